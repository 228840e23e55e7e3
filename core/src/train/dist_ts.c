/* crfpipe — the training set of a distributed run (crfp_dist_trainset).
 *
 * Batch trainers run unchanged on every rank: the batch objective is the
 * local engine's without ℓ2, summed over the ranks, plus the ℓ2 term once.
 * Every rank then holds the same f and ∇f (MPI_Allreduce gives each rank
 * the same sum), so the optimizers take the same steps everywhere and no
 * parameter vector is ever sent besides the gradient.  The loss is reduced
 * first, together with the ranks' statuses: that small reduction is where
 * ranks wait for the slowest one, and a rank whose evaluation failed makes
 * every rank fail at the same call instead of leaving them in the large
 * reduction.  Hessian-vector products are summed the same way.
 *
 * Online trainers see this rank's sequences only, and average (or add up)
 * whatever they choose through `mix`.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "dist.h"
#include "../crf/crf_impl.h"
#include "../mpi/comm.h"

typedef struct dist_ts {
    crfp_trainset pub;
    crfp_host *host;
    crfp_trainset *local;
    int shared;   /* sums through shared memory (comm.h) */
} dist_ts;


static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* g += rho2·θ over a slice per team member, Σθ² summed in member order so
 * that the result depends on the team size only. */
typedef struct l2job {
    const double *theta;
    double *g;
    double rho2;
    size_t dim;
    double part[256];
} l2job;

static void l2_slice(void *arg, int id, int n)
{
    l2job *j = arg;
    size_t lo, hi;
    crfp_team_slice(j->dim, id, n, &lo, &hi);
    double sq = 0;
    for (size_t i = lo; i < hi; i++) {
        j->g[i] += j->rho2 * j->theta[i];
        sq += j->theta[i] * j->theta[i];
    }
    if (id < 256)
        j->part[id] = sq;
}

static double add_l2(const dist_ts *d, const double *theta, double *g)
{
    l2job j;
    j.theta = theta;
    j.g = g;
    j.rho2 = d->pub.rho2;
    j.dim = d->pub.dim;
    crfp_team *team = crfp_team_size(d->pub.team) <= 256 ? d->pub.team : NULL;
    crfp_team_run(team, l2_slice, &j);
    double sq = 0;
    for (int i = 0; i < crfp_team_size(team); i++)
        sq += j.part[i];
    return 0.5 * d->pub.rho2 * sq;
}

/* Sum the small vector head[0..n) over the ranks together with the local
 * status st (head[1] carries it): every rank then fails, or none does.
 * A failed rank contributes nothing useful; the others say why they stop. */
static crfp_status agree(dist_ts *d, crfp_status st, double *head, size_t n)
{
    head[1] = st != CRFP_OK;
    crfp_status cs = crfp_comm_sum_f64(d->host, head, n, 1);
    if (cs != CRFP_OK)
        return cs;
    if (head[1] != 0) {
        crfp_dist_set_failure_kind(st != CRFP_OK ? CRFP_DIST_FAIL_HERE
                                                 : CRFP_DIST_FAIL_ELSEWHERE);
        return st != CRFP_OK ? st
                             : crfp_error(d->host, CRFP_EIO, "another rank failed (its message "
                                          "is above); stopping");
    }
    return CRFP_OK;
}

/* Sum v[0..n) over the ranks after agreeing on the local status st (a
 * failed rank contributes nothing useful): the statuses travel in the same
 * small reduction as `scalar` (may be NULL).  With shared memory the
 * vectors were computed into the shared buffers, and the ℓ2 term rho2·x
 * (x not NULL) is added in the same pass, *sq receiving Σx²; otherwise
 * *sq is left alone and the caller adds the term. */
static crfp_status reduce(dist_ts *d, crfp_status st, double *scalar, double *v, size_t n,
                          const double *x, double rho2, double *sq, int *added)
{
    *added = 0;
    double head[2] = {scalar ? *scalar : 0.0, 0};
    crfp_status cs = agree(d, st, head, 2);
    if (cs != CRFP_OK)
        return cs;
    if (scalar)
        *scalar = head[0];
    if (d->shared) {
        *added = x != NULL;
        return crfp_comm_shared_sum(d->host, v, n, d->pub.team, x, rho2, sq, 0);
    }
    return crfp_comm_sum_f64(d->host, v, n, 0);
}

static crfp_status d_batch(void *ud, const double *theta, int with_l2, double *f, double *g)
{
    dist_ts *d = ud;
    double t0 = now(), *buf = d->shared ? crfp_comm_shared_buffer() : g;
    crfp_status st = d->local->batch(d->local->ud, theta, 0, f, buf);
    crfp_comm_book_compute(now() - t0);
    int l2 = with_l2 && d->pub.rho2 != 0.0, added;
    double sq = 0;
    if ((st = reduce(d, st, f, g, d->pub.dim, l2 ? theta : NULL, d->pub.rho2, &sq, &added)) !=
        CRFP_OK)
        return st;
    if (added)
        *f += 0.5 * d->pub.rho2 * sq;
    else if (l2)
        *f += add_l2(d, theta, g);
    return CRFP_OK;
}

/* Sharded optimizer (trainset.h): θ's slices meet in shared memory before
 * the evaluation (with the shared iterate, where the trainer wrote them),
 * and each rank adds up only its slice of the gradient, so the sum reads
 * each segment once in all instead of once per rank. */
static crfp_status d_shard(void *ud, size_t *lo, size_t *hi, double **iterate)
{
    dist_ts *d = ud;
    crfp_comm_shared_slice(d->pub.dim, lo, hi);
    *iterate = crfp_comm_shared_iterate();
    return CRFP_OK;
}

static crfp_status d_gather(void *ud, void *v, size_t width)
{
    dist_ts *d = ud;
    return crfp_comm_shared_gather(d->host, v, d->pub.dim, width, NULL);
}

static crfp_status d_batch_shard(void *ud, double *theta, int with_l2, double *f, double *g)
{
    dist_ts *d = ud;
    int l2 = with_l2 && d->pub.rho2 != 0.0;
    /* ‖θ‖² of the slices, taken as they are gathered, rides in the small
     * reduction with the loss. */
    double sq = 0;
    crfp_status st = crfp_comm_shared_gather(d->host, theta, d->pub.dim, sizeof *theta,
                                             l2 ? &sq : NULL);
    if (st != CRFP_OK)
        return st;
    double t0 = now();
    st = d->local->batch(d->local->ud, theta, 0, f, crfp_comm_shared_buffer());
    crfp_comm_book_compute(now() - t0);
    double head[3] = {*f, 0, sq};
    if ((st = agree(d, st, head, 3)) != CRFP_OK)
        return st;
    *f = head[0] + (l2 ? 0.5 * d->pub.rho2 * head[2] : 0.0);
    return crfp_comm_shared_sum(d->host, g, d->pub.dim, d->pub.team, l2 ? theta : NULL,
                                d->pub.rho2, NULL, 1);
}

static crfp_status d_hessvec(void *ud, const double *theta, const double *v, int with_l2,
                             double *hv)
{
    dist_ts *d = ud;
    double t0 = now(), *buf = d->shared ? crfp_comm_shared_buffer() : hv;
    crfp_status st = d->local->hessvec(d->local->ud, theta, v, 0, buf);
    crfp_comm_book_compute(now() - t0);
    int l2 = with_l2 && d->pub.rho2 != 0.0, added;
    if ((st = reduce(d, st, NULL, hv, d->pub.dim, l2 ? v : NULL, d->pub.rho2, NULL, &added)) !=
        CRFP_OK)
        return st;
    if (l2 && !added) {
        const double r = d->pub.rho2;
        for (size_t i = 0; i < d->pub.dim; i++)
            hv[i] += r * v[i];
    }
    return CRFP_OK;
}

static crfp_status d_mix(void *ud, double *v, size_t n, int op)
{
    dist_ts *d = ud;
    if (op != CRFP_MIX_MEAN && op != CRFP_MIX_SUM)
        return crfp_error(d->host, CRFP_EINVAL, "mix: unknown operation %d", op);
    crfp_status st = crfp_comm_sum_f64(d->host, v, n, n <= 16);
    if (st == CRFP_OK && op == CRFP_MIX_MEAN) {
        const double p = (double)crfp_dist_size();
        for (size_t i = 0; i < n; i++)
            v[i] /= p;
    }
    return st;
}

/* The members that take the builder's `ud` forward it to the local set. */
static crfp_status d_ws_new(void *ud, crfp_tsws **ws)
{
    dist_ts *d = ud;
    return d->local->ws_new(d->local->ud, ws);
}

static void d_gold(void *ud, size_t i, const uint32_t **y, uint32_t *T)
{
    dist_ts *d = ud;
    d->local->gold(d->local->ud, i, y, T);
}

static double d_seq_weight(void *ud, size_t i)
{
    dist_ts *d = ud;
    return d->local->seq_weight(d->local->ud, i);
}

static crfp_status d_occurrences(void *ud, size_t b, const crfp_occ **occ, size_t *n)
{
    dist_ts *d = ud;
    return d->local->occurrences(d->local->ud, b, occ, n);
}

crfp_status crfp_dist_trainset(crfp_host *host, crfp_trainset *local, crfp_trainset **out)
{
    *out = local;
    /* A job of one rank is one process: no wrapper, so that it trains
     * exactly the model a plain run does. */
    if (!crfp_dist_active() || crfp_dist_size() == 1)
        return CRFP_OK;
    dist_ts *d = calloc(1, sizeof *d);
    if (!d)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    d->host = host;
    d->local = local;
    crfp_trainset *t = &d->pub;
    /* Members are copied one by one, never the whole struct: a member
     * added later that takes the builder's `ud` must not be called with
     * this wrapper's; unknown members stay NULL, i.e. absent. */
    t->size = sizeof *t;
    t->caps = local->caps;
    t->nseq = local->nseq;
    t->ntok = local->ntok;
    t->dim = local->dim;
    t->nlabels = local->nlabels;
    t->nblocks = local->nblocks;
    t->block_start = local->block_start;
    t->rho1 = local->rho1;
    t->rho2 = local->rho2;
    t->team = local->team;
    t->ud = d;
    /* The workspace functions carry the local set's workspace. */
    t->ws_free = local->ws_free;
    t->seq_blocks = local->seq_blocks;
    t->seq_grad = local->seq_grad;
    t->viterbi = local->viterbi;
    t->path_features = local->path_features;
    t->block_stats = local->block_stats;
    if (local->size >= offsetof(crfp_trainset, seq_grad_sparse) + sizeof local->seq_grad_sparse)
        t->seq_grad_sparse = local->seq_grad_sparse;
    t->batch = local->batch ? d_batch : NULL;
    t->hessvec = (local->caps & CRFP_TS_HESSVEC) && local->hessvec ? d_hessvec : NULL;
    if (!t->hessvec)
        t->caps &= ~CRFP_TS_HESSVEC;
    t->ws_new = local->ws_new ? d_ws_new : NULL;
    t->gold = local->gold ? d_gold : NULL;
    t->occurrences = local->occurrences ? d_occurrences : NULL;
    t->mix = d_mix;
    if (CRFP_TS_HAS(local, seq_weight))
        t->seq_weight = d_seq_weight;
    /* Gradients are summed through shared memory where the ranks share a
     * machine (comm.h): one more vector per rank, far less time. */
    crfp_status st = crfp_comm_shared_new(host, t->dim);
    if (st != CRFP_OK) {
        free(d);
        return st;
    }
    d->shared = crfp_comm_shared_buffer() != NULL;
    size_t lo, hi;
    if (t->batch && crfp_comm_shared_slice(t->dim, &lo, &hi)) {
        t->shard = d_shard;
        t->batch_shard = d_batch_shard;
        t->gather = d_gather;
    }
    *out = t;
    return CRFP_OK;
}

void crfp_dist_trainset_free(crfp_trainset *ts, const crfp_trainset *local)
{
    if (ts && ts != local) {
        crfp_comm_shared_free();
        free(ts->ud);
    }
}

crfp_status crfp_dist_sum_counts(crfp_host *host, crfp_status st, uint64_t *v, size_t n)
{
    if (!crfp_dist_active() || crfp_dist_size() == 1)
        return st;
    /* The status rides in the same reduction as the counts. */
    uint64_t *b = malloc((n + 1) * sizeof *b);
    if (!b)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    memcpy(b, v, n * sizeof *b);
    b[n] = st != CRFP_OK;
    crfp_status cs = crfp_comm_sum_u64(host, b, n + 1);
    if (cs == CRFP_OK && b[n] != 0) {
        crfp_dist_set_failure_kind(st != CRFP_OK ? CRFP_DIST_FAIL_HERE : CRFP_DIST_FAIL_ELSEWHERE);
        cs = st != CRFP_OK ? st
                           : crfp_error(host, CRFP_EIO, "another rank failed (its message is "
                                        "above); stopping");
    } else if (cs == CRFP_OK) {
        memcpy(v, b, n * sizeof *b);
    }
    free(b);
    return cs;
}

crfp_status crfp_dist_sum_reals(crfp_host *host, crfp_status st, double *v, size_t n)
{
    if (!crfp_dist_active() || crfp_dist_size() == 1)
        return st;
    /* agree on the status first (a reduction of no counter), then sum */
    uint64_t none = 0;
    crfp_status cs = crfp_dist_sum_counts(host, st, &none, 0);
    return cs == CRFP_OK ? crfp_comm_sum_f64(host, v, n, 0) : cs;
}

crfp_status crfp_dist_any(crfp_host *host, int flag, int *any)
{
    int64_t f = flag != 0;
    crfp_status st = crfp_comm_max_i64(host, &f, 1);
    *any = st != CRFP_OK || f != 0;
    return st;
}

/* Bytes of a dataset's sequences: labels, both offset arrays and the
 * observation ids (what the engine keeps per token), capacity slack left
 * out. */
static double data_bytes(const crfp_dataset *ds)
{
    double b = 0;
    for (size_t i = 0; i < crfp_dataset_size(ds); i++) {
        const crfp_seq *s = crfp_dataset_get(ds, i);
        uint32_t T = s->T;
        b += 4.0 * (3.0 * T + 2 + (T ? s->uoff[T] + s->boff[T] : 0)) + sizeof *s;
        b += s->uval && T ? 8.0 * s->uoff[T] : 0;
    }
    return b;
}

static double dict_bytes(const crfp_dict *d)
{
    return (double)d->arena_cap + (double)d->cap * (8 + 4 + 4) +
           (d->slots ? (double)(d->mask + 1) * sizeof *d->slots : 0);
}

void crfp_dist_report(crfp_host *host, const crfp_dataset *train, const crfp_crf *crf)
{
    int P = crfp_dist_active() ? crfp_dist_size() : 1, r = crfp_dist_rank();
    /* per rank: peak RSS, training data, dictionary (MB); compute, wait
     * and transfer seconds */
    enum { K = 6 };
    double *v = calloc((size_t)P * K, sizeof *v);
    if (!v)
        return;
    double *me = v + (size_t)K * (size_t)r;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        me[0] = (double)ru.ru_maxrss / 1024.0; /* kB on Linux */
    me[1] = data_bytes(train) / 1048576.0;
    me[2] = (dict_bytes(&crf->labels) + dict_bytes(&crf->obs) + crf->oflags_cap) / 1048576.0;
    me[3] = crfp_dist_compute_seconds();
    crfp_dist_comm_seconds(&me[4], &me[5]);
    if (P == 1) {
        crfp_log(host, CRFP_LOG_INFO, "memory: training data %.1f MB, dictionary %.1f MB, "
                 "peak RSS %.0f MB", me[1], me[2], me[0]);
    } else if (crfp_comm_sum_f64(host, v, (size_t)P * K, 1) == CRFP_OK && r == 0) {
        char line[4096];
        size_t k = 0;
        for (int i = 0; i < P && k < sizeof line; i++)
            k += (size_t)snprintf(line + k, sizeof line - k, "%s%.0f/%.1f/%.1f", i ? ", " : "",
                                  v[K * i], v[K * i + 1], v[K * i + 2]);
        crfp_log(host, CRFP_LOG_INFO, "mpi: %d ranks; rank 0: objective computation %.2f s, "
                 "waiting for other ranks %.2f s, transfer %.2f s; per rank, peak RSS / "
                 "training data / dictionary (MB): %s", P, v[3], v[4], v[5], line);
    }
    free(v);
}
