/* perceptron plugin — the training loop (see perc_impl.h and the design
 * notes at the top of perceptron.c).
 *
 * Lazy averaging.  Let θ_k be the weights after the k-th example of the
 * whole run (k = 1..N over all epochs) and Δ_k the update made at example k.
 * The averaged weights are (1/N) Σ_k θ_k.  Since Δ_k is present in θ_k ..
 * θ_N, that is N−k+1 times,
 *     Σ_k θ_k = N θ_N − Σ_k (k−1) Δ_k,
 * so keeping one accumulator u = Σ_k (k−1) Δ_k beside θ gives the average as
 * θ − u/N at any time, and an update costs two sparse writes (θ and u)
 * instead of a dense pass.  For the plain perceptron every Δ is a sum of
 * ±val with val = 1 for the engine's indicator features, so θ and u stay
 * integers and exact far beyond any corpus size (2^53); only the final
 * division rounds.
 *
 * θ lives in a private vector `w`; the caller's theta only ever receives
 * the average, written at the end of each epoch.  That costs one vector
 * more than finalising in place and undoing it, but the current weights are
 * never perturbed by a round trip through θ − u/N + u/N, and theta always
 * holds the last completed epoch's average, which is exactly what an
 * interrupt must leave behind.
 *
 * Distributed runs (the training set offers `mix`): iterative parameter
 * mixing (McDonald, Hall & Mann 2010).  Each rank runs the epoch on its own
 * sequences; then the current weights w, which the next epoch decodes
 * with, are averaged over the ranks (the paper's uniform mixture), and so
 * is the output: θ becomes the mean of the ranks' running averages.  Each
 * rank then rewrites its accumulator as u = k·(w − θ) (k its examples so
 * far), so that its running average w − u/k is exactly the mixed θ and the
 * next epoch's updates average in from there.  The reported error counts
 * are summed over the ranks.
 */
#include "config.h"
#include "perc_impl.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "crfpipe/rng.h"

void perc_opts_default(perc_opts *o)
{
    memset(o, 0, sizeof *o);
    o->variant = PERC_AVERAGED;
    o->C = 0.03;
    o->variance = 1.0;
    o->gamma = 1.0;
    o->average = 1;
    o->epochs = 20;
    o->seed = 1;
    o->shuffle = 1;
    o->shrink = 20;
}

/* One (index, value) entry of a sparse feature-difference vector. */
typedef struct perc_ent {
    uint64_t idx;
    double val;
} perc_ent;

/* An unused slot of the merge table: no parameter has this index. */
#define PERC_EMPTY UINT64_MAX

/* Per-run state.  Everything here is owned by the run and freed by
 * run_free. */
typedef struct perc_run {
    const crfp_trainset *ts;
    const perc_opts *o;
    crfp_tsws *ws;
    double *w;        /* current weights θ (dim) */
    double *u;        /* Σ_k (k−1) Δ_k (dim) */
    double *cov;      /* AROW: the diagonal of the covariance Σ (dim), else NULL */
    uint64_t count;   /* examples seen in the whole run (N) */
    /* MIRA (CRF++'s, whose bounds are single precision): per sequence the
     * sum of its steps, and the epochs in a row it was right; per epoch the
     * largest violated margin of a sequence below its bound */
    float *bound;
    unsigned short *right;
    double kkt;
    int converged;    /* MIRA: epochs in a row with every constraint met */
    size_t *order;    /* visiting order of the sequences (nseq) */
    uint32_t *yhat;   /* Viterbi labelling (capacity cap_y) */
    size_t cap_y;
    perc_ent *diff;   /* Φ(gold) − Φ(pred) for PA (capacity cap_d) */
    size_t cap_d;
    perc_ent *tab;    /* hash table merging the two paths' lists (capacity cap_h) */
    size_t cap_h;
    size_t hsz;       /* slots of tab in use for the current sequence, a power of two */
} perc_run;

static void run_free(perc_run *r)
{
    if (r->ws)
        r->ts->ws_free(r->ws);
    free(r->w);
    free(r->u);
    free(r->cov);
    free(r->bound);
    free(r->right);
    free(r->order);
    free(r->yhat);
    free(r->diff);
    free(r->tab);
}

/* Grow *buf (elements of `size` bytes, capacity *cap) to hold n.  Doubling
 * keeps the number of reallocations logarithmic in the longest sequence.
 * Returns 0 on allocation failure, *buf then unchanged. */
static int grow(void **buf, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap)
        return 1;
    size_t c = *cap ? *cap : 64;
    while (c < n)
        c *= 2;
    void *p = realloc(*buf, c * size);
    if (!p)
        return 0;
    *buf = p;
    *cap = c;
    return 1;
}

/* w += step·v and u += (step·k)·v for each entry; k = examples seen before
 * this one.  Duplicated indices simply add up, as the score does. */
static void apply(perc_run *r, const uint64_t *idx, const double *val, size_t n, double step)
{
    const double ck = step * (double)r->count;
    double *w = r->w, *u = r->u;
    for (size_t k = 0; k < n; k++) {
        w[idx[k]] += step * val[k];
        u[idx[k]] += ck * val[k];
    }
}

/* Add `v` to the entry of index `id` in the open-addressing table r->tab
 * (r->hsz slots, a power of two, at most half full so that probes stay
 * short and an empty slot always exists). */
static void tab_add(perc_run *r, uint64_t id, double v)
{
    const size_t mask = r->hsz - 1;
    /* Fibonacci hashing: parameter indices of one sequence cluster in a few
     * blocks, which the multiplication spreads over the table. */
    size_t h = (size_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & mask;
    while (r->tab[h].idx != PERC_EMPTY && r->tab[h].idx != id)
        h = (h + 1) & mask;
    r->tab[h].idx = id;
    r->tab[h].val += v;
}

/* Build Φ(gold) − Φ(pred) of sequence i in r->diff with each index once,
 * dropping the entries that cancel (features both paths share, most of
 * them), which is what ‖Φ(gold) − Φ(pred)‖² needs.  The two lists are
 * merged in a hash table rather than by sorting: linear in their length,
 * which keeps PA's cost per mistake close to the perceptron's.  The
 * entries come out in table order, a function of the data alone, so runs
 * stay reproducible.  *n receives the entry count.
 * Errors: CRFP_ENOMEM, those of path_features. */
static crfp_status build_diff(perc_run *r, size_t i, const uint32_t *yhat, size_t *n)
{
    const crfp_trainset *ts = r->ts;
    const uint64_t *idx;
    const double *val;
    size_t ng, np;
    crfp_status st = ts->path_features(r->ws, i, NULL, &idx, &val, &ng);
    if (st != CRFP_OK)
        return st;
    /* The engine lists the same observations for any labelling, so the
     * predicted path has about as many entries as the gold one; 4·ng slots
     * keep the table at most about half full, and it grows below if not.
     * Only the slots in use are cleared: one long sentence does not make
     * every later merge pay for its table. */
    size_t want = 64;
    while (want < 4 * ng)
        want *= 2;
    if (want > r->cap_h) {
        perc_ent *t = realloc(r->tab, want * sizeof *t);
        if (!t)
            return CRFP_ENOMEM;
        r->tab = t;
        r->cap_h = want;
    }
    r->hsz = want;
    for (size_t k = 0; k < r->hsz; k++)
        r->tab[k] = (perc_ent){PERC_EMPTY, 0.0};
    for (size_t k = 0; k < ng; k++)
        tab_add(r, idx[k], val[k]);
    /* The gold list is in the table: path_features may now reuse its
     * arrays. */
    if ((st = ts->path_features(r->ws, i, yhat, &idx, &val, &np)) != CRFP_OK)
        return st;
    if (2 * (ng + np) > r->hsz) {
        /* More entries than planned for (a masked training set can list
         * the paths unevenly): rehash into a larger table. */
        size_t cap = r->hsz, oldsz = r->hsz;
        while (cap < 2 * (ng + np))
            cap *= 2;
        perc_ent *old = r->tab, *t = malloc(cap * sizeof *t);
        if (!t)
            return CRFP_ENOMEM;
        r->tab = t;
        r->cap_h = r->hsz = cap;
        for (size_t k = 0; k < cap; k++)
            t[k] = (perc_ent){PERC_EMPTY, 0.0};
        for (size_t k = 0; k < oldsz; k++)
            if (old[k].idx != PERC_EMPTY)
                tab_add(r, old[k].idx, old[k].val);
        free(old);
    }
    for (size_t k = 0; k < np; k++)
        tab_add(r, idx[k], -val[k]);
    if (!grow((void **)&r->diff, &r->cap_d, ng + np, sizeof *r->diff))
        return CRFP_ENOMEM;
    size_t out = 0;
    for (size_t k = 0; k < r->hsz; k++)
        if (r->tab[k].idx != PERC_EMPTY && r->tab[k].val != 0.0)
            r->diff[out++] = r->tab[k];
    *n = out;
    return CRFP_OK;
}

/* AROW, diagonal (Crammer, Kulesza & Dredze 2009), on the difference
 * d = Φ(gold) − Φ(pred) of n entries in r->diff, with CRFsuite's structured
 * cost: the hinge loss − w·d + Hamming loss, the amount by which the
 * prediction beats the gold path plus the labels it gets wrong.  Then
 *   α = cost / (Σ_k σ_k d_k² + γ),  w_k += α σ_k d_k,
 *   σ_k ← 1 / (1/σ_k + d_k²/γ),
 * the mean moving along the old variances and the diagonal of Σ⁻¹ growing
 * by d²/γ: weights of features seen often get confident and move less,
 * rare ones keep a large step.  α is never 0 here since cost >= loss > 0.
 * *tau receives α. */
static crfp_status arow_update(perc_run *r, size_t n, size_t loss, double *tau)
{
    double margin = 0.0, conf = r->o->gamma;
    for (size_t k = 0; k < n; k++) {
        uint64_t j = r->diff[k].idx;
        double v = r->diff[k].val;
        margin += v * r->w[j];
        conf += r->cov[j] * v * v;
    }
    double alpha = ((double)loss - margin) / conf;
    if (!(alpha > 0.0))
        return CRFP_OK;
    const double ck = alpha * (double)r->count, ig = 1.0 / r->o->gamma;
    for (size_t k = 0; k < n; k++) {
        uint64_t j = r->diff[k].idx;
        double v = r->diff[k].val, s = r->cov[j];
        r->w[j] += alpha * s * v;
        r->u[j] += ck * s * v;
        r->cov[j] = 1.0 / (1.0 / s + v * v * ig);
    }
    *tau = alpha;
    return CRFP_OK;
}

/* One example, sequence i: decode with the current weights and update on a
 * mistake.  *tok_err receives the Hamming distance between the gold and
 * predicted labellings; *tau the step taken (0 when none).  Errors: those
 * of the training set's functions, CRFP_ENOMEM. */
/* Of the difference d in r->diff (n entries): *margin = w·d, *sq = ‖d‖². */
static void diff_margin(const perc_run *r, size_t n, double *margin, double *sq)
{
    double m = 0.0, q = 0.0;
    for (size_t k = 0; k < n; k++) {
        m += r->diff[k].val * r->w[r->diff[k].idx];
        q += r->diff[k].val * r->diff[k].val;
    }
    *margin = m;
    *sq = q;
}

/* w += step·d, and the average's accumulator with it. */
static void apply_diff(perc_run *r, size_t n, double step)
{
    const double ck = step * (double)r->count;
    for (size_t k = 0; k < n; k++) {
        r->w[r->diff[k].idx] += step * r->diff[k].val;
        r->u[r->diff[k].idx] += ck * r->diff[k].val;
    }
}

static crfp_status mira_update(perc_run *r, size_t i, size_t loss, double wt, double *tau);

static crfp_status example(perc_run *r, size_t i, size_t *tok_err, double *tau)
{
    const crfp_trainset *ts = r->ts;
    const uint32_t *gold;
    uint32_t T;
    ts->gold(ts->ud, i, &gold, &T);
    *tok_err = 0;
    *tau = 0.0;
    if (!grow((void **)&r->yhat, &r->cap_y, (size_t)T + 1, sizeof *r->yhat))
        return CRFP_ENOMEM;
    crfp_status st = ts->viterbi(r->ws, r->w, i, r->yhat, NULL);
    if (st != CRFP_OK)
        return st;
    size_t loss = 0;
    for (uint32_t t = 0; t < T; t++)
        loss += gold[t] != r->yhat[t];
    *tok_err = loss;
    /* A weighted sequence (CRFsuite's @weight) moves the weights w times
     * as far, as in CRFsuite's perceptrons: the averaged perceptron's and
     * PA's step and AROW's difference vector are scaled by w; w = 0
     * leaves the weights alone. */
    const double wt = CRFP_TS_HAS(ts, seq_weight) ? ts->seq_weight(ts->ud, i) : 1.0;
    if (r->o->variant == PERC_MIRA) {
        if (loss == 0) {
            if (r->right[i] < USHRT_MAX)
                r->right[i]++;
            return CRFP_OK;
        }
        r->right[i] = 0;
        return wt == 0.0 ? CRFP_OK : mira_update(r, i, loss, wt, tau);
    }
    if (loss == 0 || wt == 0.0)
        return CRFP_OK;

    if (r->o->variant == PERC_AVERAGED && wt != 1.0) {
        /* the two lists merged first: +w·val − w·val need not cancel
         * exactly in floating point when w is not an integer */
        size_t n;
        if ((st = build_diff(r, i, r->yhat, &n)) != CRFP_OK)
            return st;
        for (size_t k = 0; k < n; k++)
            apply(r, &r->diff[k].idx, &r->diff[k].val, 1, wt);
        *tau = wt;
        return CRFP_OK;
    }
    if (r->o->variant == PERC_AVERAGED) {
        /* No need to merge the two lists: the shared features add +val and
         * −val to integer-valued weights, which cancels exactly, and
         * skipping the sort keeps an update at the cost of reading the
         * lists once. */
        const uint64_t *idx;
        const double *val;
        size_t n;
        if ((st = ts->path_features(r->ws, i, NULL, &idx, &val, &n)) != CRFP_OK)
            return st;
        apply(r, idx, val, n, 1.0);
        if ((st = ts->path_features(r->ws, i, r->yhat, &idx, &val, &n)) != CRFP_OK)
            return st;
        apply(r, idx, val, n, -1.0);
        *tau = 1.0;
        return CRFP_OK;
    }

    /* PA-I: the smallest change that puts the gold path ahead of the
     * prediction by its Hamming cost, capped at C:
     *   τ = min(C, (loss − w·d) / ‖d‖²),  d = Φ(gold) − Φ(pred).
     * w·d <= 0 since pred is the best path under w, so the numerator is
     * at least the loss.  The prediction-based constraint (against the
     * Viterbi path rather than the cost-augmented one) is the usual choice
     * for structured PA and needs no loss-augmented decoder. */
    size_t n;
    if ((st = build_diff(r, i, r->yhat, &n)) != CRFP_OK)
        return st;
    if (r->o->variant == PERC_AROW) {
        if (wt != 1.0)
            for (size_t k = 0; k < n; k++)
                r->diff[k].val *= wt;
        return arow_update(r, n, loss, tau);
    }
    double margin, sq;
    diff_margin(r, n, &margin, &sq);
    /* Distinct labellings with identical features (tokens without any
     * observation) leave nothing to update. */
    if (!(sq > 0.0))
        return CRFP_OK;
    double step = ((double)loss - margin) / sq;
    if (step > r->o->C)
        step = r->o->C;
    if (!(step > 0.0))
        return CRFP_OK;
    step *= wt;
    apply_diff(r, n, step);
    *tau = step;
    return CRFP_OK;
}

/* CRF++'s MIRA (its runMIRA), step for step: dual coordinate ascent, one
 * dual variable per sequence i bounded by C,
 *   μ = max(0, (loss + w·d) / ‖d‖²), cut to C − bound_i,  w += μ·d,
 * bound_i += μ, with d = Φ(gold) − Φ(pred) and loss the Hamming distance.
 * Note the sign: CRF++ subtracts from the loss the amount by which the
 * prediction outscores the gold path (its collins() returns the score of
 * the prediction minus the gold one), where the textbook step (PA's, above)
 * adds it; with -a MIRA that is what CRF++ trains, so it is what this
 * variant trains.  A step cut at the bound leaves its sequence alone; the
 * others' loss + w·d give the epoch's KKT figure, and when it is at most 0
 * every constraint is met: training stops the second epoch in a row this
 * happens.  The bounds are single precision, as in CRF++, so that the same
 * data takes the same steps.  A weighted sequence moves the weights w
 * times as far, its bound counting the unweighted steps. */
static crfp_status mira_update(perc_run *r, size_t i, size_t loss, double wt, double *tau)
{
    size_t n;
    crfp_status st = build_diff(r, i, r->yhat, &n);
    if (st != CRFP_OK)
        return st;
    double margin, sq;
    diff_margin(r, n, &margin, &sq);
    if (!(sq > 0.0))
        return CRFP_OK;
    const float C = (float)r->o->C;
    const double viol = (double)loss + margin;
    double mu = viol / sq;
    if (!(mu > 0.0))
        mu = 0.0;
    if (r->bound[i] + mu > C)
        mu = C - r->bound[i];
    else if (viol > r->kkt)
        r->kkt = viol;
    if (!(mu > 1e-10))
        return CRFP_OK;
    r->bound[i] = (float)(r->bound[i] + mu);   /* (as CRF++ rounds it) */
    if (r->bound[i] > C)
        r->bound[i] = C;
    apply_diff(r, n, mu * wt);
    *tau = mu * wt;
    return CRFP_OK;
}

/* theta = w − u/N (or w itself, average = 0) over a slice per team member:
 * the average is elementwise, so the result does not depend on the team
 * size. */
typedef struct avg_job {
    double *theta;
    const double *w, *u;
    double n;
    size_t dim;
    int average;
} avg_job;

static void avg_slice(void *arg, int id, int parts)
{
    avg_job *j = arg;
    size_t lo, hi;
    crfp_team_slice(j->dim, id, parts, &lo, &hi);
    if (!j->average) {
        memcpy(j->theta + lo, j->w + lo, (hi - lo) * sizeof *j->theta);
        return;
    }
    for (size_t i = lo; i < hi; i++)
        j->theta[i] = j->w[i] - j->u[i] / j->n;
}

/* After mixing: u = k·(w − θ), so that w − u/k = θ. */
static void reset_slice(void *arg, int id, int parts)
{
    avg_job *j = arg;
    size_t lo, hi;
    crfp_team_slice(j->dim, id, parts, &lo, &hi);
    double *u = (double *)j->u;
    for (size_t i = lo; i < hi; i++)
        u[i] = j->n * (j->w[i] - j->theta[i]);
}

/* Iterative parameter mixing at the end of an epoch (see the top). */
static crfp_status mix_epoch(perc_run *r, double *theta, double *counts, size_t ncounts)
{
    const crfp_trainset *ts = r->ts;
    size_t dim = ts->dim;
    crfp_status st;
    if ((st = ts->mix(ts->ud, theta, dim, CRFP_MIX_MEAN)) != CRFP_OK ||
        (st = ts->mix(ts->ud, r->w, dim, CRFP_MIX_MEAN)) != CRFP_OK ||
        (st = ts->mix(ts->ud, counts, ncounts, CRFP_MIX_SUM)) != CRFP_OK)
        return st;
    /* AROW's variances are mixed like its means: each rank's shrank only
     * on its own sequences, and the mean of the ranks' keeps the next
     * epoch's steps the same for every rank. */
    if (r->cov && (st = ts->mix(ts->ud, r->cov, dim, CRFP_MIX_MEAN)) != CRFP_OK)
        return st;
    avg_job job = {theta, r->w, r->u, (double)r->count, dim, 1};
    crfp_team_run(ts->team, reset_slice, &job);
    return CRFP_OK;
}

crfp_status perc_train(crfp_host *host, const perc_opts *o, const crfp_trainset *ts,
                       double *theta)
{
    if (!(ts->caps & CRFP_TS_DECODE) || !ts->viterbi || !ts->path_features || !ts->gold ||
        !ts->ws_new || !ts->ws_free)
        return crfp_error(host, CRFP_EINVAL,
                          "perceptron: the training set offers no decoding (Viterbi and path "
                          "features)");
    if (o->epochs < 1)
        return crfp_error(host, CRFP_EINVAL, "perceptron: epochs must be at least 1, not %d",
                          o->epochs);
    if ((o->variant == PERC_PA || o->variant == PERC_MIRA) && !(o->C > 0.0))
        return crfp_error(host, CRFP_EINVAL, "perceptron: C must be > 0, not %g", o->C);
    if (o->variant == PERC_MIRA && o->shrink < 1)
        return crfp_error(host, CRFP_EINVAL, "perceptron: shrinking-size must be 1 or more, "
                          "not %d", o->shrink);
    if (o->variant == PERC_AROW && !(o->variance > 0.0 && o->gamma > 0.0 &&
                                     isfinite(o->variance) && isfinite(o->gamma)))
        return crfp_error(host, CRFP_EINVAL,
                          "perceptron: AROW's variance (%g) and gamma (%g) must be finite "
                          "and > 0", o->variance, o->gamma);
    if (ts->nseq == 0)
        return CRFP_OK;

    perc_run r = {.ts = ts, .o = o};
    crfp_status st = CRFP_OK;
    size_t dim = ts->dim;
    r.w = malloc((dim ? dim : 1) * sizeof *r.w);
    r.u = calloc(dim ? dim : 1, sizeof *r.u);
    r.order = malloc(ts->nseq * sizeof *r.order);
    if (o->variant == PERC_AROW && (r.cov = malloc((dim ? dim : 1) * sizeof *r.cov)))
        for (size_t j = 0; j < dim; j++)
            r.cov[j] = o->variance;
    if (o->variant == PERC_MIRA) {
        r.bound = calloc(ts->nseq, sizeof *r.bound);
        r.right = calloc(ts->nseq, sizeof *r.right);
    }
    if (!r.w || !r.u || !r.order || (o->variant == PERC_AROW && !r.cov) ||
        (o->variant == PERC_MIRA && (!r.bound || !r.right))) {
        run_free(&r);
        return crfp_error(host, CRFP_ENOMEM, "perceptron: out of memory for %zu weights", dim);
    }
    if ((st = ts->ws_new(ts->ud, &r.ws)) != CRFP_OK) {
        r.ws = NULL;
        run_free(&r);
        return crfp_error(host, st, "perceptron: cannot allocate a training workspace");
    }
    memcpy(r.w, theta, dim * sizeof *r.w); /* warm start: θ_0 = theta */
    for (size_t i = 0; i < ts->nseq; i++)
        r.order[i] = i;
    crfp_rng rng;
    crfp_rng_seed(&rng, o->seed);

    for (int epoch = 1; epoch <= o->epochs; epoch++) {
        /* Shuffling the already shuffled order keeps one permutation array
         * and makes epoch e's order a function of (seed, e) alone. */
        if (o->shuffle)
            crfp_rng_shuffle(&rng, r.order, ts->nseq);
        size_t tok_err = 0, seq_err = 0, updates = 0, skipped = 0;
        double tau_sum = 0.0;
        r.kkt = 0.0;
        for (size_t k = 0; k < ts->nseq; k++) {
            /* Polling every 256 sequences answers Ctrl-C within a fraction
             * of an epoch; theta still holds the last completed average. */
            if ((k & 255) == 0 && host && crfp_interrupted(host)) {
                run_free(&r);
                return CRFP_EINTR;
            }
            /* MIRA's shrinking: a sequence right shrink epochs in a row
             * is not decoded again until the constraints hold */
            if (o->variant == PERC_MIRA && r.right[r.order[k]] >= o->shrink) {
                skipped++;
                continue;
            }
            size_t e;
            double tau;
            if ((st = example(&r, r.order[k], &e, &tau)) != CRFP_OK) {
                run_free(&r);
                if (st == CRFP_ENOMEM)
                    return crfp_error(host, st, "perceptron: out of memory");
                return st;
            }
            tok_err += e;
            seq_err += e != 0;
            if (tau > 0.0) {
                updates++;
                tau_sum += tau;
            }
            r.count++;
            if (o->on_example)
                o->on_example(o->hook_ud, r.w, dim);
        }
        avg_job job = {theta, r.w, r.u, (double)r.count, dim, o->average};
        crfp_team_run(ts->team, avg_slice, &job);
        /* errors, mistaken sequences, updates, Σ step, tokens, sequences and
         * MIRA's largest violation (summed over the ranks: all stop together) */
        double counts[7] = {(double)tok_err, (double)seq_err, (double)updates, tau_sum,
                            (double)ts->ntok, (double)ts->nseq, r.kkt};
        if (CRFP_TS_HAS_MIX(ts) && (st = mix_epoch(&r, theta, counts, 7)) != CRFP_OK) {
            run_free(&r);
            return st;
        }

        crfp_log(host, CRFP_LOG_DEBUG,
                 "perceptron: epoch %d: %.0f of %.0f sequences mistaken, %.0f tokens, %.0f "
                 "updates", epoch, counts[1], counts[5], counts[0], counts[2]);
        /* MIRA: every constraint met (or at its bound) twice in a row ends
         * training, as in CRF++; the shrunk sequences are decoded again */
        int met = 0;
        if (o->variant == PERC_MIRA) {
            crfp_log(host, CRFP_LOG_DEBUG, "perceptron: mira: %zu sequences skipped, largest "
                     "violation %g", skipped, counts[6]);
            if (counts[6] <= 0.0) {
                memset(r.right, 0, ts->nseq * sizeof *r.right);
                met = ++r.converged >= 2;
            } else {
                r.converged = 0;
            }
        }
        if (ts->monitor) {
            /* The objective is the training error the epoch made on the fly
             * (the fraction of tokens mislabelled, before each update): the
             * perceptron minimises no likelihood to report. */
            crfp_iter_info info = {
                .iter = epoch,
                .objective = counts[4] > 0 ? counts[0] / counts[4] : 0.0,
                .step = counts[2] > 0 ? counts[3] / counts[2] : 0.0,
                .nevals = (int)(counts[5] > (double)INT32_MAX ? INT32_MAX : counts[5]),
            };
            int stop = 0;
            st = ts->monitor(ts->monitor_ud, &info, theta, &stop);
            if (st != CRFP_OK || stop)
                break;
        }
        if (met) {
            crfp_log(host, CRFP_LOG_INFO, "perceptron: mira: every constraint holds after %d "
                     "epochs", epoch);
            break;
        }
    }
    run_free(&r);
    return st;
}
