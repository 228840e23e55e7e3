/* perceptron: the lazily averaged weights equal a dense reference — a
 * naive re-implementation in this file that decodes with the same training
 * set, applies each update densely and sums θ after every example — to
 * 1e-12, after every epoch (through the monitor) and at the end, for the
 * perceptron, PA and AROW (its dense covariance diagonal in the reference),
 * from a zero and from a warm start, and the last weights when averaging
 * is off.  Also: the
 * per-example hook sees the same θ; a monitor stop or interrupt leaves the
 * average it was shown; 1 thread with a fixed seed is bit-for-bit
 * reproducible. */
#include "config.h"
#include "ptest.h"
#include "perc_impl.h"

#define EPOCHS 4

/* The dense reference.  avg receives EPOCHS averages, one per epoch
 * (epochs x dim).  Returns the number of examples seen. */
static uint64_t reference(const crfp_trainset *ts, const perc_opts *o, const double *theta0,
                          double *avg)
{
    size_t dim = ts->dim;
    double *th = malloc(dim * sizeof *th), *sum = calloc(dim, sizeof *sum),
           *d = malloc(dim * sizeof *d), *cov = malloc(dim * sizeof *cov);
    size_t *order = malloc(ts->nseq * sizeof *order);
    uint32_t *yhat = malloc(64 * sizeof *yhat);
    crfp_tsws *ws;
    if (!th || !sum || !d || !cov || !order || !yhat || ts->ws_new(ts->ud, &ws) != CRFP_OK)
        exit(99);
    memcpy(th, theta0, dim * sizeof *th);
    for (size_t j = 0; j < dim; j++)
        cov[j] = o->variance;
    for (size_t i = 0; i < ts->nseq; i++)
        order[i] = i;
    crfp_rng rng;
    crfp_rng_seed(&rng, o->seed);
    uint64_t N = 0;
    for (int e = 0; e < o->epochs; e++) {
        if (o->shuffle)
            crfp_rng_shuffle(&rng, order, ts->nseq);
        for (size_t k = 0; k < ts->nseq; k++) {
            size_t i = order[k];
            const uint32_t *gold;
            uint32_t T;
            ts->gold(ts->ud, i, &gold, &T);
            if (T > 64 || ts->viterbi(ws, th, i, yhat, NULL) != CRFP_OK)
                exit(99);
            size_t loss = 0;
            for (uint32_t t = 0; t < T; t++)
                loss += gold[t] != yhat[t];
            if (loss) {
                memset(d, 0, dim * sizeof *d);
                const uint64_t *idx;
                const double *val;
                size_t n;
                if (ts->path_features(ws, i, NULL, &idx, &val, &n) != CRFP_OK)
                    exit(99);
                for (size_t j = 0; j < n; j++)
                    d[idx[j]] += val[j];
                if (ts->path_features(ws, i, yhat, &idx, &val, &n) != CRFP_OK)
                    exit(99);
                for (size_t j = 0; j < n; j++)
                    d[idx[j]] -= val[j];
                double tau = 1.0;
                if (o->variant == PERC_PA) {
                    double margin = 0, sq = 0;
                    for (size_t j = 0; j < dim; j++) {
                        margin += th[j] * d[j];
                        sq += d[j] * d[j];
                    }
                    tau = sq > 0 ? fmin(o->C, ((double)loss - margin) / sq) : 0.0;
                }
                if (o->variant == PERC_AROW) {
                    /* The full diagonal: entries with d = 0 stay put. */
                    double margin = 0, conf = o->gamma;
                    for (size_t j = 0; j < dim; j++) {
                        margin += th[j] * d[j];
                        conf += cov[j] * d[j] * d[j];
                    }
                    double alpha = ((double)loss - margin) / conf;
                    for (size_t j = 0; j < dim; j++) {
                        th[j] += alpha * cov[j] * d[j];
                        cov[j] = 1.0 / (1.0 / cov[j] + d[j] * d[j] / o->gamma);
                    }
                    tau = 0.0;
                }
                for (size_t j = 0; j < dim; j++)
                    th[j] += tau * d[j];
            }
            for (size_t j = 0; j < dim; j++)
                sum[j] += th[j];
            N++;
        }
        for (size_t j = 0; j < dim; j++)
            avg[(size_t)e * dim + j] = o->average ? sum[j] / (double)N : th[j];
    }
    ts->ws_free(ws);
    free(cov);
    free(th);
    free(sum);
    free(d);
    free(order);
    free(yhat);
    return N;
}

static int close12(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b));
}

/* What the monitor and the hook record. */
typedef struct rec {
    size_t dim;
    int iters;
    double *seen;      /* EPOCHS x dim: theta shown to the monitor */
    double *hooksum;   /* Σ θ over the examples, from the hook */
    uint64_t hookn;
    int stop_at, eintr_at;
} rec;

static crfp_status monitor(void *ud, const crfp_iter_info *info, const double *theta, int *stop)
{
    rec *r = ud;
    CHECK(info->iter == r->iters + 1, "iteration %d after %d", info->iter, r->iters);
    r->iters = info->iter;
    if (info->iter <= EPOCHS)
        memcpy(r->seen + (size_t)(info->iter - 1) * r->dim, theta, r->dim * sizeof *theta);
    CHECK(info->objective >= 0 && info->objective <= 1, "objective %g", info->objective);
    if (info->iter == r->stop_at)
        *stop = 1;
    if (info->iter == r->eintr_at)
        return CRFP_EINTR;
    return CRFP_OK;
}

static void hook(void *ud, const double *w, size_t dim)
{
    rec *r = ud;
    for (size_t j = 0; j < dim; j++)
        r->hooksum[j] += w[j];
    r->hookn++;
}

static const char *vname(perc_variant v, int average)
{
    if (!average)
        return v == PERC_PA ? "pa (last weights)" : v == PERC_AROW ? "arow (last weights)"
                                                               : "perceptron (last weights)";
    return v == PERC_PA ? "pa" : v == PERC_AROW ? "arow" : "perceptron";
}

static void run_case(crfp_host *host, pt_problem *p, perc_variant variant, int warm,
                     int average)
{
    crfp_trainset *ts = p->ts;
    size_t dim = ts->dim;
    perc_opts o;
    perc_opts_default(&o);
    o.variant = variant;
    o.epochs = EPOCHS;
    o.C = 0.3;
    /* gamma and variance away from 1, so that swapping them shows */
    o.variance = 0.7;
    o.gamma = 2.5;
    o.average = average;
    o.seed = 7;
    double *theta0 = calloc(dim, sizeof *theta0), *theta = malloc(dim * sizeof *theta),
           *ref = malloc(EPOCHS * dim * sizeof *ref);
    rec r = {dim, 0, malloc(EPOCHS * dim * sizeof(double)), calloc(dim, sizeof(double)), 0, 0, 0};
    if (!theta0 || !theta || !ref || !r.seen || !r.hooksum)
        exit(99);
    crfp_rng rng;
    crfp_rng_seed(&rng, 99);
    if (warm)
        for (size_t j = 0; j < dim; j++)
            theta0[j] = crfp_rng_unit(&rng) - 0.5;
    uint64_t N = reference(ts, &o, theta0, ref);

    memcpy(theta, theta0, dim * sizeof *theta);
    ts->monitor = monitor;
    ts->monitor_ud = &r;
    o.on_example = hook;
    o.hook_ud = &r;
    crfp_status st = perc_train(host, &o, ts, theta);
    CHECK(st == CRFP_OK, "train: %s", crfp_errmsg(host));
    CHECK(r.iters == EPOCHS, "%d epochs reported", r.iters);
    CHECK(r.hookn == N, "hook saw %llu examples, expected %llu", (unsigned long long)r.hookn,
          (unsigned long long)N);
    size_t bad = 0, bad_epoch = 0, bad_hook = 0, moved = 0;
    for (size_t j = 0; j < dim; j++) {
        bad += !close12(theta[j], ref[(EPOCHS - 1) * dim + j]);
        bad_hook += !close12(theta[j], r.hooksum[j] / (double)N);
        moved += theta[j] != theta0[j];
        for (int e = 0; e < EPOCHS; e++)
            bad_epoch += !close12(r.seen[(size_t)e * dim + j], ref[(size_t)e * dim + j]);
    }
    CHECK(bad == 0, "%s%s: %zu of %zu averaged weights differ from the dense reference",
          vname(variant, average), warm ? " (warm)" : "", bad, dim);
    if (average)
        CHECK(bad_hook == 0, "%zu averaged weights differ from the hook's dense average",
              bad_hook);
    else
        CHECK(bad_hook > 0, "the last weights equal the average");
    CHECK(bad_epoch == 0, "%zu per-epoch averages differ from the reference", bad_epoch);
    CHECK(moved > dim / 4, "only %zu of %zu weights moved", moved, dim);
    printf("%s%s: %zu weights, %llu examples: = the dense reference\n",
           vname(variant, average), warm ? " (warm start)" : "", dim, (unsigned long long)N);

    /* Bit-for-bit reproducible from the seed (one thread, no team). */
    double *again = malloc(dim * sizeof *again);
    if (!again)
        exit(99);
    memcpy(again, theta0, dim * sizeof *again);
    o.on_example = NULL;
    r.iters = 0;
    st = perc_train(host, &o, ts, again);
    CHECK(st == CRFP_OK && memcmp(again, theta, dim * sizeof *theta) == 0,
          "a second run with the same seed differs");
    /* Another seed visits another order (a sanity check that the seed is used). */
    memcpy(again, theta0, dim * sizeof *again);
    o.seed = 8;
    r.iters = 0;
    st = perc_train(host, &o, ts, again);
    CHECK(st == CRFP_OK && memcmp(again, theta, dim * sizeof *theta) != 0,
          "seed 8 gives the same weights as seed 7");
    o.seed = 7;

    /* A monitor stop at epoch 2 keeps epoch 2's average; an interrupt at
     * epoch 3 returns CRFP_EINTR with epoch 3's average. */
    memcpy(again, theta0, dim * sizeof *again);
    r.iters = 0;
    r.stop_at = 2;
    st = perc_train(host, &o, ts, again);
    CHECK(st == CRFP_OK && r.iters == 2, "stop at 2: status %d after %d epochs", (int)st, r.iters);
    CHECK(memcmp(again, r.seen + dim, dim * sizeof *again) == 0,
          "after a stop theta is not the average the monitor was shown");
    memcpy(again, theta0, dim * sizeof *again);
    r.iters = 0;
    r.stop_at = 0;
    r.eintr_at = 3;
    st = perc_train(host, &o, ts, again);
    CHECK(st == CRFP_EINTR && r.iters == 3, "eintr at 3: status %d after %d epochs", (int)st,
          r.iters);
    CHECK(memcmp(again, r.seen + 2 * dim, dim * sizeof *again) == 0,
          "after an interrupt theta is not the last completed epoch's average");
    ts->monitor = NULL;
    ts->monitor_ud = NULL;
    free(again);
    free(theta0);
    free(theta);
    free(ref);
    free(r.seen);
    free(r.hooksum);
}

int main(void)
{
    crfp_host *host = crfp_host_new();
    if (!host)
        return 99;
    crfp_host_set_verbosity(host, CRFP_LOG_WARN);
    pt_problem p;
    /* Noisy labels: mistakes, hence updates, in every epoch. */
    pt_build(host, &p, 3, 30, 7, 0.25, 0.0);
    for (int warm = 0; warm <= 1; warm++) {
        run_case(host, &p, PERC_AVERAGED, warm, 1);
        run_case(host, &p, PERC_PA, warm, 1);
        run_case(host, &p, PERC_AROW, warm, 1);
    }
    run_case(host, &p, PERC_AROW, 0, 0);
    run_case(host, &p, PERC_PA, 1, 0);
    pt_free(&p);
    crfp_host_free(host);
    return test_failures ? 1 : 0;
}
