/* crfpipe — the training objective f(θ) = Σ_i [log Z_i − score_i] + ρ2/2‖θ‖²
 * and its gradient, on the host's thread team: each member owns a fixed,
 * token-balanced slice of the sequences and a gradient buffer.
 *
 * The buffers are prefixes of the parameter vector, not whole copies: a
 * sequence only adds to the blocks of its own observations, and blocks lie
 * in observation order, which is the order the observations were first met
 * in the training data.  A slice therefore touches [0, hi) with hi the end
 * of its last block, and the earlier a slice the shorter that prefix.
 * Member 0 adds into the caller's gradient directly and takes the last
 * slice (whose prefix is usually everything); member i > 0 takes slice
 * i - 1 and a buffer of its own hi only.  On CoNLL-2000 with 2 threads the
 * second gradient shrinks from 7.4M to 4.6M doubles.  With two members the
 * sum is bit for bit the one of the former layout (one addition, which
 * commutes); with more, another fixed order, still independent of the
 * scheduling. */
#include <stdlib.h>
#include <string.h>
#include "infer.h"
#include "partition.h"

typedef struct worker {
    struct crfp_crfobj *o;
    int id;
    crfp_infer *w;
    double *g;      /* private gradient (NULL for member 0: the caller's g) */
    size_t hi;      /* parameters [0, hi) are all its sequences touch */
    double loss;    /* phase 1: Σ log Z − score over its sequences */
    double sq;      /* phase 2: Σ θ² over its slice */
    crfp_status st;
    size_t failed_seq; /* the sequence whose forward-backward failed */
    size_t s0, s1;  /* its sequences */
} worker;

struct crfp_crfobj {
    crfp_host *host;
    const crfp_crf *crf;
    const crfp_dataset *ds;
    crfp_team *team;
    int n;
    double rho2;
    worker *wk;
    const double *theta;
    double *g;
};

static void phase_compute(worker *k)
{
    crfp_crfobj *o = k->o;
    const crfp_crf *crf = o->crf;
    double *g = k->id == 0 ? o->g : k->g;
    memset(g, 0, (k->id == 0 ? crf->nparams : k->hi) * sizeof *g);
    crfp_infer_epoch(k->w);
    /* The pair marginals of multi-observation positions are summed per
     * observation set over the whole slice (setgrad.c); without the memory
     * for that they are added at once, with the same result. */
    crfp_fb_defer(k->w, g);
    double loss = 0.0;
    k->st = CRFP_OK;
    for (size_t i = k->s0; i < k->s1; i++) {
        const crfp_seq *seq = crfp_dataset_get(o->ds, i);
        double logz, gold;
        const double wt = crfp_dataset_weight(o->ds, i);
        crfp_status st = crfp_fb_run(k->w, seq, o->theta, &logz, 1, g, NULL, seq->y, &gold, wt);
        if (st != CRFP_OK) {
            crfp_fb_flush(k->w);
            k->st = st;
            k->failed_seq = i;
            return;
        }
        loss += wt * (logz - gold);
    }
    crfp_fb_flush(k->w);
    k->loss = loss;
}

/* Each thread reduces a slice of the gradient, adding the other threads'
 * buffers in thread order and the ℓ2 term once. */
static void phase_reduce(worker *k)
{
    crfp_crfobj *o = k->o;
    size_t P = o->crf->nparams;
    size_t a = P * (size_t)k->id / (size_t)o->n, b = P * ((size_t)k->id + 1) / (size_t)o->n;
    double *g = o->g;
    const double *theta = o->theta;
    for (int i = 1; i < o->n; i++) {
        const double *gi = o->wk[i].g;
        size_t e = b < o->wk[i].hi ? b : o->wk[i].hi;
        for (size_t j = a; j < e; j++)
            g[j] += gi[j];
    }
    double sq = 0.0;
    if (o->rho2 != 0.0) {
        const double r = o->rho2;
        for (size_t j = a; j < b; j++) {
            g[j] += r * theta[j];
            sq += theta[j] * theta[j];
        }
    }
    k->sq = sq;
}

static void job_compute(void *arg, int id, int n)
{
    (void)n;
    phase_compute(&((crfp_crfobj *)arg)->wk[id]);
}

static void job_reduce(void *arg, int id, int n)
{
    (void)n;
    phase_reduce(&((crfp_crfobj *)arg)->wk[id]);
}

void crfp_crfobj_free(crfp_crfobj *o)
{
    if (!o)
        return;
    /* o->wk is NULL when allocating it failed. */
    for (int i = 0; o->wk && i < o->n; i++) {
        crfp_infer_free(o->wk[i].w);
        free(o->wk[i].g);
    }
    free(o->wk);
    free(o);
}

crfp_status crfp_crfobj_new(crfp_host *host, const crfp_crf *crf, const crfp_dataset *ds,
                            crfp_team *team, double rho2, crfp_crfobj **out)
{
    if (!crf || !ds || !out)
        return crfp_error(host, CRFP_EINVAL, "crf: objective: NULL argument");
    *out = NULL;
    if (!crf->final)
        return crfp_error(host, CRFP_EINVAL, "crf: objective: model not finalized");
    if (!(rho2 >= 0.0))
        return crfp_error(host, CRFP_EINVAL, "crf: objective: rho2 must be >= 0");
    for (size_t i = 0; i < crfp_dataset_size(ds); i++) {
        const crfp_seq *seq = crfp_dataset_get(ds, i);
        if (!seq->y && seq->T)
            return crfp_error(host, CRFP_EINVAL, "crf: objective: sequence %zu has no labels",
                              i + 1);
        crfp_status st = crfp_seq_check(host, crf, seq);
        if (st != CRFP_OK) {
            /* st whatever the host recorded (there may be no host) */
            crfp_error_wrap(host, st, "sequence %zu", i + 1);
            return st;
        }
    }
    int n = crfp_team_size(team);
    crfp_crfobj *o = calloc(1, sizeof *o);
    if (!o)
        return crfp_error(host, CRFP_ENOMEM, "crf: objective: out of memory");
    o->host = host;
    o->crf = crf;
    o->ds = ds;
    o->team = team;
    o->n = n;
    o->rho2 = rho2;
    o->wk = calloc((size_t)n, sizeof *o->wk);
    size_t *cut = malloc(((size_t)n + 1) * sizeof *cut);
    if (!o->wk || !cut) {
        free(cut);
        crfp_crfobj_free(o);
        return crfp_error(host, CRFP_ENOMEM, "crf: objective: out of memory");
    }
    crfp_partition(ds, n, cut);
    size_t Y = crf->Y, usz = Y, bsz = (Y + 1) * Y;
    for (int i = 0; i < n; i++) {
        worker *k = &o->wk[i];
        int slice = i == 0 ? n - 1 : i - 1;
        k->o = o;
        k->id = i;
        k->s0 = cut[slice];
        k->s1 = cut[slice + 1];
        k->w = crfp_infer_new(crf);
        /* the end of the last block its sequences touch (checked above) */
        k->hi = 0;
        for (size_t q = k->s0; i > 0 && q < k->s1; q++) {
            const crfp_seq *seq = crfp_dataset_get(ds, q);
            if (!seq->T)
                continue;
            for (uint32_t j = 0; j < seq->uoff[seq->T]; j++)
                if (crf->ublk[seq->uobs[j]] + usz > k->hi)
                    k->hi = crf->ublk[seq->uobs[j]] + usz;
            for (uint32_t j = 0; j < seq->boff[seq->T]; j++)
                if (crf->bblk[seq->bobs[j]] + bsz > k->hi)
                    k->hi = crf->bblk[seq->bobs[j]] + bsz;
        }
        if (i > 0)
            k->g = crfp_big_alloc((k->hi ? k->hi : 1) * sizeof *k->g);
        if (!k->w || (i > 0 && !k->g)) {
            free(cut);
            crfp_crfobj_free(o);
            return crfp_error(host, CRFP_ENOMEM,
                              "crf: objective: out of memory for %d gradient buffers of %zu",
                              n - 1, crf->nparams);
        }
    }
    free(cut);
    if (n > 1)
        crfp_log(host, CRFP_LOG_DEBUG, "crf: objective: %d threads, per-thread gradients of "
                 "%zu of %zu parameters", n, o->wk[1].hi, crf->nparams);
    *out = o;
    return CRFP_OK;
}

void crfp_crfobj_set_rho2(crfp_crfobj *o, double rho2)
{
    o->rho2 = rho2;
}

void crfp_crfobj_set_mode(crfp_crfobj *o, int mode)
{
    for (int i = 0; i < o->n; i++)
        crfp_infer_set_mode(o->wk[i].w, mode);
}

void crfp_crfobj_set_simd(crfp_crfobj *o, int on)
{
    for (int i = 0; i < o->n; i++)
        crfp_infer_set_simd(o->wk[i].w, on);
}

crfp_status crfp_crfobj_eval(crfp_crfobj *o, const double *theta, double *f, double *g)
{
    if (!o || !theta || !f || !g)
        return crfp_error(o ? o->host : NULL, CRFP_EINVAL, "crf: objective: NULL argument");
    o->theta = theta;
    o->g = g;
    crfp_team_run(o->team, job_compute, o);
    for (int i = 0; i < o->n; i++) {
        const worker *k = &o->wk[i];
        if (k->st == CRFP_ENOMEM)
            return crfp_error(o->host, k->st,
                              "crf: objective: thread %d: out of memory for the forward-backward "
                              "workspace of sequence %zu", i, k->failed_seq + 1);
        if (k->st != CRFP_OK)
            return crfp_error(o->host, k->st,
                              "crf: objective: thread %d: forward-backward failed on sequence "
                              "%zu: %s", i, k->failed_seq + 1, crfp_status_str(k->st));
    }
    crfp_team_run(o->team, job_reduce, o);
    double loss = 0.0, sq = 0.0;
    for (int i = 0; i < o->n; i++) {
        loss += o->wk[i].loss;
        sq += o->wk[i].sq;
    }
    *f = loss + 0.5 * o->rho2 * sq;
    return CRFP_OK;
}
