/* sgd_l1 — the training loop: minibatch steps over a shuffled training set,
 * the learning-rate schedule, the calibration of eta0, and stopping.
 *
 * Objective (trainset.h):  F(θ) = Σ_i loss_i(θ) + rho2/2‖θ‖² + rho1‖θ‖₁.
 * A step on n of the N sequences follows the stochastic gradient of
 * Σ_{i∈batch} loss_i + (n/N)(rho2/2‖θ‖² + rho1‖θ‖₁): the penalties are
 * shared out over the steps of an epoch so that an epoch applies them once
 * in total, as Tsuruoka et al. do with C/N per sample.  The loss gradient
 * is summed (not averaged) over the minibatch, so eta is a per-sequence
 * rate whatever the batch size.
 *
 * Schedule: eta_t = eta0 / (1 + t/N)^alpha, t the number of sequences seen
 * (alpha = `decay`).  It decays per epoch, as Tsuruoka et al.'s
 * exponential schedule eta0·0.85^(t/N) does, but polynomially, so that
 * Σ eta_t diverges (the iterates can still travel) while the rate still
 * goes to 0 for alpha > 0 (the ℓ1 noise averages out).  Bottou's
 * eta0/(1 + lambda·eta0·t) was set aside: with lambda = rho2/N it hardly
 * decays at all on CRF problems (rho2 of order 0.1-1 and N of thousands),
 * and not at all for a pure ℓ1 penalty.  alpha = 1 (the 1/t decay of
 * SGD theory) was kept untuned; eta0's factor and the epoch count were
 * chosen on a CoNLL-2000 dev split (README.md).
 *
 * Distributed runs (the training set offers `mix`, trainset.h): iterative
 * parameter mixing.  Each rank runs the epoch on its own sequences, then
 * the ranks average the weights and the lazy ℓ1 state (q and U: the
 * penalty each weight received and could have received), which the fold
 * has just brought up to date, and add up their losses.  Each rank's
 * objective is its sequences' loss plus its share N_r/N of the penalties,
 * so that the shares add up to the whole objective (Zinkevich et al. 2010):
 * the penalty per step uses the job's N, while the schedule counts epochs
 * of the rank's own N_r sequences, as one process counts its epochs.  The
 * calibrated eta0 is averaged too, so that every rank steps alike.
 */
#include "config.h"
#include "sgd_impl.h"
#include "crfpipe/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The member added to the training set in ABI 2.1: present when the
 * builder's struct is large enough to hold it and has it set. */
#define TS_HAS_SPARSE(ts)                                                                 \
    ((ts)->size >= offsetof(crfp_trainset, seq_grad_sparse) +                             \
                       sizeof((ts)->seq_grad_sparse) &&                                   \
     (ts)->seq_grad_sparse != NULL)

void sgd_opts_default(sgd_opts *o)
{
    o->eta0 = 0;
    o->decay = 1.0;
    o->batch = 1;
    o->seed = 1;
    o->max_epochs = 10;
    o->epsilon = 1e-3;
    o->window = 3;
    o->calib_sample = 1000;
    o->calib_factor = 2.0;
}

crfp_status sgd_run_init(sgd_run *r, crfp_host *host, const crfp_trainset *ts, double *theta)
{
    memset(r, 0, sizeof *r);
    r->host = host;
    r->ts = ts;
    crfp_status st = crfp_trainset_require(host, ts, CRFP_TS_SEQUENCE, "sgd_l1");
    if (st != CRFP_OK)
        return st;
    if (!TS_HAS_SPARSE(ts))
        return crfp_error(host, CRFP_EINVAL,
                          "sgd_l1: the training set offers no per-block gradient "
                          "(seq_grad_sparse), which this trainer needs to stay within "
                          "two weight vectors of memory");
    if (!ts->seq_blocks || !ts->ws_new || !ts->ws_free)
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: the training set lacks seq_blocks/ws_new");
    if (!(ts->rho1 >= 0 && ts->rho1 < INFINITY) || !(ts->rho2 >= 0 && ts->rho2 < INFINITY))
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: rho1=%g, rho2=%g: must be finite and >= 0",
                          ts->rho1, ts->rho2);
    if (ts->nseq == 0)
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: no training sequences");
    if (ts->nblocks > UINT32_MAX)
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: %zu blocks: more than 2^32",
                          ts->nblocks);
    r->rho1 = ts->rho1;
    r->rho2 = ts->rho2;
    r->N = (double)ts->nseq;
    /* A rank's share of the penalties is N_r / N (see the top). */
    if (CRFP_TS_HAS_MIX(ts) && (st = ts->mix(ts->ud, &r->N, 1, CRFP_MIX_SUM)) != CRFP_OK)
        return st;
    if ((st = ts->ws_new(ts->ud, &r->ws)) != CRFP_OK)
        return crfp_error(host, st, "sgd_l1: cannot allocate a training workspace");
    if ((st = sgd_lazy_init(&r->lz, ts->dim, ts->nblocks, ts->block_start, theta,
                            r->rho1 > 0, r->rho2 > 0)) != CRFP_OK) {
        sgd_run_free(r);
        return crfp_error(host, st, "sgd_l1: cannot allocate the penalty vector (%zu weights)",
                          ts->dim);
    }
    return CRFP_OK;
}

void sgd_run_free(sgd_run *r)
{
    if (!r)
        return;
    if (r->ws)
        r->ts->ws_free(r->ws);
    r->ws = NULL;
    sgd_par_free(r->par);
    r->par = NULL;
    sgd_lazy_free(&r->lz);
}

crfp_status sgd_step(sgd_run *r, const size_t *idx, size_t n, double eta, double *loss)
{
    const crfp_trainset *ts = r->ts;
    sgd_lazy *lz = &r->lz;
    double share = (double)n / r->N;
    double a = 1.0 - eta * r->rho2 * share, c = eta * r->rho1 * share;
    if (!(a > 0) || !(c >= 0) || !(eta >= 0))
        return crfp_error(r->host, CRFP_EINVAL,
                          "sgd_l1: learning rate %g too large for rho2=%g and batch %zu "
                          "(the ℓ2 decay factor %g is not positive); lower eta0",
                          eta, r->rho2, n, a);
    crfp_status st;
    if (n > 1 && r->ts->team && crfp_team_size(r->ts->team) > 1) {
        if (!r->par && (st = sgd_par_init(r)) != CRFP_OK)
            return st;
        if (r->par)
            return sgd_par_step(r, idx, n, eta, a, c, loss);
    }
    /* Catch up first: the gradient must be taken at the weights the dense
     * algorithm would have, with the penalties of the steps since each block
     * was last touched applied.  (Tsuruoka et al. skip this and take the
     * gradient at stale weights; catching up costs one pass over blocks the
     * gradient visits anyway, and makes the lazy and dense runs agree.) */
    if (lz->l1 || lz->l2) {
        for (size_t i = 0; i < n; i++) {
            const uint32_t *bl;
            size_t nb;
            if ((st = ts->seq_blocks(r->ws, idx[i], &bl, &nb)) != CRFP_OK)
                return st;
            for (size_t j = 0; j < nb; j++)
                sgd_lazy_block(lz, bl[j], 0, NULL);
        }
    }
    const uint32_t *blocks;
    size_t nb;
    const double *g;
    double l = 0;
    if ((st = ts->seq_grad_sparse(r->ws, lz->theta, idx, n, &blocks, &nb, &g, &l)) != CRFP_OK)
        return st;
    sgd_lazy_advance(lz, a, c);
    for (size_t j = 0; j < nb; j++) {
        uint32_t b = blocks[j];
        sgd_lazy_block(lz, b, eta, g);
        g += lz->block_start[b + 1] - lz->block_start[b];
    }
    *loss += l;
    return CRFP_OK;
}

/* --- calibration ------------------------------------------------------------ */

/* The sample, the blocks it touches and their starting values. */
typedef struct calib {
    size_t *seqs, nseq;
    uint32_t *blocks;
    size_t nblocks;
    double *saved; /* the listed blocks' weights, packed in list order */
} calib;

static void calib_free(calib *c)
{
    free(c->seqs);
    free(c->blocks);
    free(c->saved);
}

static crfp_status calib_new(sgd_run *r, const sgd_opts *o, calib *c)
{
    const crfp_trainset *ts = r->ts;
    size_t N = ts->nseq, S = o->calib_sample < N ? o->calib_sample : N;
    memset(c, 0, sizeof *c);
    unsigned char *mark = calloc(ts->nblocks ? ts->nblocks : 1, 1);
    size_t *perm = malloc(N * sizeof *perm);
    size_t cap = 1024, vals = 0;
    c->blocks = malloc(cap * sizeof *c->blocks);
    crfp_status st = CRFP_ENOMEM;
    if (!mark || !perm || !c->blocks)
        goto out;
    /* A stream of its own, so that changing the sample size does not change
     * the epochs' shuffles. */
    crfp_rng rng;
    crfp_rng_seed(&rng, o->seed ^ UINT64_C(0xca11b7a7e5a3b1e5));
    for (size_t i = 0; i < N; i++)
        perm[i] = i;
    crfp_rng_shuffle(&rng, perm, N);
    for (size_t i = 0; i < S; i++) {
        const uint32_t *bl;
        size_t nb;
        if ((st = ts->seq_blocks(r->ws, perm[i], &bl, &nb)) != CRFP_OK)
            goto out;
        for (size_t j = 0; j < nb; j++) {
            if (mark[bl[j]])
                continue;
            mark[bl[j]] = 1;
            if (c->nblocks == cap) {
                uint32_t *nbk = realloc(c->blocks, 2 * cap * sizeof *nbk);
                st = CRFP_ENOMEM;
                if (!nbk)
                    goto out;
                c->blocks = nbk;
                cap *= 2;
            }
            c->blocks[c->nblocks++] = bl[j];
            vals += ts->block_start[bl[j] + 1] - ts->block_start[bl[j]];
        }
    }
    st = CRFP_ENOMEM;
    if (!(c->saved = malloc((vals ? vals : 1) * sizeof *c->saved)))
        goto out;
    for (size_t j = 0, at = 0; j < c->nblocks; j++) {
        size_t lo = ts->block_start[c->blocks[j]], n = ts->block_start[c->blocks[j] + 1] - lo;
        memcpy(c->saved + at, r->lz.theta + lo, n * sizeof *c->saved);
        at += n;
    }
    c->seqs = perm; /* the sample is perm's first S entries */
    perm = NULL;
    c->nseq = S;
    st = CRFP_OK;
out:
    free(mark);
    free(perm);
    if (st != CRFP_OK)
        calib_free(c);
    return st;
}

/* Put the sample's blocks back as they were before a trial: weights from
 * the saved copy, no penalty applied, frame P = 1.  Blocks outside the
 * sample were never touched by the trial, so the whole state is fresh
 * again. */
static void calib_restore(sgd_run *r, const calib *c)
{
    sgd_lazy *lz = &r->lz;
    for (size_t j = 0, at = 0; j < c->nblocks; j++) {
        uint32_t b = c->blocks[j];
        size_t lo = lz->block_start[b], n = lz->block_start[b + 1] - lo;
        memcpy(lz->theta + lo, c->saved + at, n * sizeof *c->saved);
        if (lz->q)
            memset(lz->q + lo, 0, n * sizeof *lz->q);
        if (lz->pref)
            lz->pref[b] = 1.0;
        at += n;
    }
    lz->P = 1.0;
    lz->U = 0.0;
}

/* The objective restricted to the sample: its losses plus its share S/N of
 * the penalties of the weights it touches (the others are the same for
 * every candidate).  Non-finite values come back as +inf. */
static crfp_status calib_objective(sgd_run *r, const calib *c, size_t batch, double *f)
{
    const crfp_trainset *ts = r->ts;
    sgd_lazy *lz = &r->lz;
    double loss = 0, pen = 0;
    for (size_t j = 0; j < c->nblocks; j++)
        sgd_lazy_block(lz, c->blocks[j], 0, NULL);
    for (size_t i = 0; i < c->nseq; i += batch) {
        size_t n = c->nseq - i < batch ? c->nseq - i : batch;
        const uint32_t *bl;
        size_t nb;
        const double *g;
        double l = 0;
        crfp_status st = ts->seq_grad_sparse(r->ws, lz->theta, c->seqs + i, n, &bl, &nb, &g, &l);
        if (st != CRFP_OK)
            return st;
        loss += l;
    }
    for (size_t j = 0; j < c->nblocks; j++) {
        size_t lo = lz->block_start[c->blocks[j]], hi = lz->block_start[c->blocks[j] + 1];
        for (size_t k = lo; k < hi; k++)
            pen += r->rho1 * fabs(lz->theta[k]) + 0.5 * r->rho2 * lz->theta[k] * lz->theta[k];
    }
    *f = loss + pen * (double)c->nseq / r->N;
    if (!isfinite(*f))
        *f = INFINITY;
    return CRFP_OK;
}

/* One pass over the sample at rate eta (with the schedule of the real run's
 * first steps), then the sample objective; the state is restored. */
static crfp_status calib_trial(sgd_run *r, const sgd_opts *o, const calib *c, double eta,
                               double *f)
{
    crfp_status st = CRFP_OK;
    double loss = 0;
    *f = INFINITY;
    for (size_t i = 0, t = 0; i < c->nseq; i += o->batch) {
        size_t n = c->nseq - i < o->batch ? c->nseq - i : o->batch;
        double e = eta / pow(1.0 + (double)t / (double)r->ts->nseq, o->decay);
        /* Rates so large that the decay would flip signs, or drive the
         * frame towards underflow, lose outright rather than fail. */
        if (!(e * r->rho2 * (double)n / r->N < 0.5) || r->lz.P < 1e-30 || !isfinite(loss))
            goto done;
        if ((st = sgd_step(r, c->seqs + i, n, e, &loss)) != CRFP_OK)
            goto done;
        t += n;
    }
    st = calib_objective(r, c, o->batch, f);
done:
    calib_restore(r, c);
    return st;
}

crfp_status sgd_calibrate(sgd_run *r, const sgd_opts *o, double *eta0)
{
    calib c;
    crfp_status st = calib_new(r, o, &c);
    if (st != CRFP_OK)
        return st == CRFP_ENOMEM ? crfp_error(r->host, st, "sgd_l1: calibration: out of memory")
                                 : st;
    /* Start at 0.1 and walk by factors of 2 in the direction that improves
     * the sample objective, stopping at the first candidate that does not:
     * the sample objective after one pass is unimodal enough in log eta for
     * this, and each trial costs two passes over the sample.  Then fit a
     * parabola in log2(eta) through the best rate and its two neighbours and
     * take its vertex: on the factor-2 grid alone the chosen rate, and with
     * it the number of features the l1 penalty keeps, jumps by 2x between
     * data sets that differ little (a dev split and the full training set
     * picked 0.2 and 0.1 on CoNLL-2000). */
    double f0, e = 0.1, fe, f2;
    int trials = 0;
    if ((st = calib_objective(r, &c, o->batch, &f0)) != CRFP_OK)
        goto out;
    if (!isfinite(f0)) {
        /* no rate can be judged, and the epochs would only report a
         * divergence that is not the rate's doing */
        st = crfp_error(r->host, CRFP_EINVAL, "sgd_l1: the objective is not finite (%g) at the "
                        "starting point (a warm start whose weights are too large for exp()?)",
                        f0);
        goto out;
    }
    calib_restore(r, &c);
    if ((st = calib_trial(r, o, &c, e, &fe)) != CRFP_OK ||
        (st = calib_trial(r, o, &c, 2 * e, &f2)) != CRFP_OK)
        goto out;
    trials = 2;
    double dir = 0.5;
    double flo = NAN, fhi = NAN; /* f at e/2 and 2e, when known */
    if (f2 < fe) {
        dir = 2;
        flo = fe;
        e *= 2;
        fe = f2;
    } else {
        fhi = f2;
    }
    for (int k = 0; k < 20; k++) {
        double e2 = e * dir, fn;
        if ((st = calib_trial(r, o, &c, e2, &fn)) != CRFP_OK)
            goto out;
        trials++;
        crfp_log(r->host, CRFP_LOG_DEBUG, "sgd_l1: calibration: eta %g: sample objective %.6g",
                 e2, fn);
        if (!(fn < fe)) {
            if (dir > 1)
                fhi = fn;
            else
                flo = fn;
            break;
        }
        if (dir > 1)
            flo = fe;
        else
            fhi = fe;
        e = e2;
        fe = fn;
    }
    if (isnan(flo) && (st = calib_trial(r, o, &c, e / 2, &flo)) == CRFP_OK)
        trials++;
    if (st == CRFP_OK && isnan(fhi) && (st = calib_trial(r, o, &c, 2 * e, &fhi)) == CRFP_OK)
        trials++;
    if (st != CRFP_OK)
        goto out;
    /* vertex of the parabola through (-1, flo), (0, fe), (1, fhi) */
    double curv = flo - 2 * fe + fhi, shift = 0.0;
    if (isfinite(curv) && curv > 0)
        shift = 0.5 * (flo - fhi) / curv;
    if (shift > 1)
        shift = 1;
    if (shift < -1)
        shift = -1;
    e *= exp2(shift);
    *eta0 = e * o->calib_factor;
    crfp_log(r->host, CRFP_LOG_INFO,
             "sgd_l1: eta0 = %g (best rate %g of %d tried on %zu sequences: sample objective "
             "%.6g -> %.6g)",
             *eta0, e, trials, c.nseq, f0, fe);
out:
    calib_free(&c);
    return st;
}

/* --- the run ------------------------------------------------------------------ */

/* Iterative parameter mixing at the end of an epoch (folded state): the
 * mean of θ, q and U over the ranks, the sum of the losses, and the norms
 * of the mixed θ. */
static crfp_status mix_epoch(sgd_run *r, double *loss, double *l1, double *l2, size_t *nnz)
{
    const crfp_trainset *ts = r->ts;
    sgd_lazy *lz = &r->lz;
    crfp_status st;
    if ((st = ts->mix(ts->ud, lz->theta, lz->dim, CRFP_MIX_MEAN)) != CRFP_OK ||
        (lz->q && (st = ts->mix(ts->ud, lz->q, lz->dim, CRFP_MIX_MEAN)) != CRFP_OK) ||
        (st = ts->mix(ts->ud, &lz->U, 1, CRFP_MIX_MEAN)) != CRFP_OK ||
        (st = ts->mix(ts->ud, loss, 1, CRFP_MIX_SUM)) != CRFP_OK)
        return st;
    double s1 = 0, s2 = 0;
    size_t nz = 0;
    for (size_t k = 0; k < lz->dim; k++) {
        double v = lz->theta[k];
        s1 += v < 0 ? -v : v;
        s2 += v * v;
        nz += v != 0;
    }
    *l1 = s1;
    *l2 = s2;
    *nnz = nz;
    return CRFP_OK;
}

crfp_status sgd_train(crfp_host *host, const sgd_opts *o, const crfp_trainset *ts,
                      double *theta)
{
    sgd_run r;
    size_t *order = NULL;
    double *hist = NULL;
    int dirty = 0; /* stale blocks in theta: fold before returning */
    crfp_status st = sgd_run_init(&r, host, ts, theta);
    if (st != CRFP_OK)
        goto out;
    double eta0 = o->eta0;
    if (!(eta0 > 0)) {
        if ((st = sgd_calibrate(&r, o, &eta0)) != CRFP_OK)
            goto out;
        if (CRFP_TS_HAS_MIX(ts) && (st = ts->mix(ts->ud, &eta0, 1, CRFP_MIX_MEAN)) != CRFP_OK)
            goto out;
    } else {
        crfp_log(host, CRFP_LOG_INFO, "sgd_l1: eta0 = %g (given)", eta0);
    }
    size_t N = ts->nseq;
    order = malloc(N * sizeof *order);
    hist = malloc(((size_t)o->max_epochs + 1) * sizeof *hist);
    if (!order || !hist) {
        st = crfp_error(host, CRFP_ENOMEM, "sgd_l1: out of memory");
        goto out;
    }
    for (size_t i = 0; i < N; i++)
        order[i] = i;
    crfp_rng rng;
    crfp_rng_seed(&rng, o->seed);
    uint64_t t = 0;
    for (int epoch = 1; epoch <= o->max_epochs; epoch++) {
        /* Shuffle the previous order rather than the identity: each epoch's
         * order then depends on the seed and the epoch number only. */
        crfp_rng_shuffle(&rng, order, N);
        double loss = 0, eta = eta0;
        for (size_t i = 0; i < N; i += o->batch) {
            size_t n = N - i < o->batch ? N - i : o->batch;
            eta = eta0 / pow(1.0 + (double)t / (double)N, o->decay);
            if ((st = sgd_step(&r, order + i, n, eta, &loss)) != CRFP_OK)
                goto out;
            dirty = 1;
            t += n;
            /* A frame shrinking towards underflow is refolded early (O(dim),
             * only with huge eta·rho2). */
            if (r.lz.P < 1e-100)
                sgd_lazy_fold(&r.lz, NULL, NULL, NULL);
        }
        double l1, l2;
        size_t nnz;
        sgd_lazy_fold(&r.lz, &l1, &l2, &nnz);
        dirty = 0;
        if (CRFP_TS_HAS_MIX(ts) && (st = mix_epoch(&r, &loss, &l1, &l2, &nnz)) != CRFP_OK)
            goto out;
        /* The loss is summed over the epoch at moving weights: an estimate of
         * Σ loss_i, the one crfsgd reports too; the penalties are exact. */
        double F = loss + r.rho1 * l1 + 0.5 * r.rho2 * l2;
        if (!isfinite(F)) {
            st = crfp_error(host, CRFP_EINVAL,
                            "sgd_l1: diverged in epoch %d (eta0 = %g): set a smaller eta0",
                            epoch, eta0);
            goto out;
        }
        hist[epoch] = F;
        crfp_iter_info info = {epoch, F, eta, (int)(N < INT32_MAX ? N : INT32_MAX)};
        int stop = 0;
        if (ts->monitor) {
            /* θ is exact here (folded): on CRFP_EINTR it is the result. */
            if ((st = ts->monitor(ts->monitor_ud, &info, theta, &stop)) != CRFP_OK)
                goto out;
        } else {
            crfp_log(host, CRFP_LOG_PROGRESS,
                     "epoch %d: objective %.6g (estimate), eta %.4g, %zu non-zero", epoch, F,
                     eta, nnz);
            if (crfp_interrupted(host)) {
                st = CRFP_EINTR;
                goto out;
            }
        }
        if (stop)
            break;
        if (o->epsilon > 0 && epoch > o->window) {
            double rel = (hist[epoch - o->window] - F) / fabs(F);
            if (rel <= o->epsilon) {
                crfp_log(host, CRFP_LOG_INFO,
                         "sgd_l1: stopped after epoch %d: objective decreased by %.3g (relative) "
                         "over %d epochs, epsilon = %g",
                         epoch, rel, o->window, o->epsilon);
                break;
            }
        }
    }
out:
    /* On an error in mid-epoch theta still holds a consistent iterate. */
    if (dirty)
        sgd_lazy_fold(&r.lz, NULL, NULL, NULL);
    free(order);
    free(hist);
    sgd_run_free(&r);
    return st;
}
