/* bcd — blockwise coordinate descent for the elastic-net CRF (Sokolovska,
 * Lavergne, Cappé & Yvon 2010; Lavergne et al. 2010 §3.4).
 *
 * A block is one observation: its unigram weights μ(·,o) and its
 * label-pair weights λ(·,·,o).  A sweep visits every block in turn.  For
 * block b the training set's block_stats gives, over the sequences where
 * the observation occurs only (or windows around its occurrences, see
 * `radius`), the gradient g of the loss and a diagonal curvature h (the
 * per-position variances of each feature, covariances between positions
 * left out).  Each weight then minimises its own quadratic model plus the
 * penalties in closed form:
 *     θ_k ← S(κ h_k θ_k − g_k, rho1) / (κ h_k + rho2),
 *     S(z, r) = sign(z) max(|z| − r, 0)   (soft thresholding),
 * all weights of the block at once, κ >= 1 a per-block multiplier of the
 * curvature.  The approximate curvature may be too small (the covariances
 * it leaves out, several weights of the block moving together), so every
 * update is checked: the loss of the block's sequences (or windows) plus
 * the block's penalties must not increase — a forward pass on the same
 * sequences, about half the statistics' cost.  If it does, κ is
 * multiplied by 4 and the update retried from the old weights (the step
 * shrinks towards the old point, so some κ always succeeds); after
 * max-tries failures the block is left as it was.  On success κ is halved
 * back towards 1, so blocks that needed damping once are not slowed for
 * ever.  This is the line search Sokolovska et al. describe (α⁻¹ on the
 * second-order term only, which keeps the fixed points those of F) with a
 * per-block memory instead of their fixed α in 2–5.
 *
 * Memory: θ (the caller's), one float κ per block, a few block-sized
 * buffers, and the training set's workspace (which grows to the longest
 * sequence); no other vector of the weight count.
 *
 * Objective and stopping: after each sweep F is computed exactly over
 * the whole training set when the set offers per-sequence losses
 * (SEQUENCE capability; one forward-backward per sequence), and the
 * monitor gets it (progress line, dev set, max-iter, Ctrl-C).  Training
 * ends after max-sweeps, when F decreased by at most epsilon (relative)
 * over `window` sweeps, or when the monitor says so.  With a window radius
 * > 0 the checks are made on the windows' losses: the objective of the
 * window models, an approximation of F's change.
 */
#include "config.h"
#include "bcd_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void bcd_opts_default(bcd_opts *o)
{
    o->radius = 2;
    o->max_sweeps = 20;
    o->epsilon = 1e-3;
    o->window = 2;
    o->kappa0 = 1.0;
    o->max_tries = 6;
}

static double soft(double z, double r)
{
    return z > r ? z - r : z < -r ? z + r : 0.0;
}

/* rho1‖x‖₁ + rho2/2‖x‖² over one block. */
static double penalty(const double *x, size_t n, double rho1, double rho2)
{
    double a = 0.0, q = 0.0;
    for (size_t j = 0; j < n; j++) {
        a += fabs(x[j]);
        q += x[j] * x[j];
    }
    return rho1 * a + 0.5 * rho2 * q;
}

/* F(θ) over the whole set from per-sequence losses (SEQUENCE), or NAN when
 * the set cannot give them. */
static crfp_status objective(const crfp_trainset *ts, crfp_tsws *ws, const double *theta,
                             double *F)
{
    if (!(ts->caps & CRFP_TS_SEQUENCE) || !CRFP_TS_HAS(ts, seq_grad_sparse)) {
        *F = NAN;
        return CRFP_OK;
    }
    double loss = 0.0;
    size_t idx[64];
    for (size_t i = 0; i < ts->nseq;) {
        size_t n = 0;
        for (; n < 64 && i < ts->nseq; n++, i++)
            idx[n] = i;
        const uint32_t *bl;
        size_t nb;
        const double *gb;
        crfp_status st = ts->seq_grad_sparse(ws, theta, idx, n, &bl, &nb, &gb, &loss);
        if (st != CRFP_OK)
            return st;
    }
    *F = loss + penalty(theta, ts->dim, ts->rho1, ts->rho2);
    return CRFP_OK;
}

crfp_status bcd_train(crfp_host *host, const bcd_opts *o, const crfp_trainset *ts,
                      double *theta)
{
    crfp_status st = crfp_trainset_require(host, ts, CRFP_TS_BLOCKS, "bcd");
    if (st != CRFP_OK)
        return st;
    if (!ts->occurrences || !ts->block_stats || !ts->ws_new || !ts->ws_free)
        return crfp_error(host, CRFP_EINVAL, "bcd: the training set lacks block statistics");
    if (!(ts->rho1 >= 0 && isfinite(ts->rho1)) || !(ts->rho2 >= 0 && isfinite(ts->rho2)))
        return crfp_error(host, CRFP_EINVAL, "bcd: rho1=%g, rho2=%g: must be finite and >= 0",
                          ts->rho1, ts->rho2);
    if (o->max_sweeps < 1 || o->window < 1 || !(o->epsilon >= 0) || !(o->kappa0 > 0) ||
        !isfinite(o->kappa0) || o->max_tries < 1)
        return crfp_error(host, CRFP_EINVAL, "bcd: invalid options");
    const size_t nb = ts->nblocks;
    size_t maxlen = 1;
    for (size_t b = 0; b < nb; b++) {
        size_t len = ts->block_start[b + 1] - ts->block_start[b];
        maxlen = len > maxlen ? len : maxlen;
    }
    crfp_tsws *ws = NULL;
    float *kappa = malloc((nb ? nb : 1) * sizeof *kappa);
    double *g = malloc(maxlen * sizeof *g), *h = malloc(maxlen * sizeof *h);
    double *old = malloc(maxlen * sizeof *old);
    double *Fwin = malloc((size_t)o->window * sizeof *Fwin);
    if (!kappa || !g || !h || !old || !Fwin || (st = ts->ws_new(ts->ud, &ws)) != CRFP_OK) {
        st = crfp_error(host, CRFP_ENOMEM, "bcd: out of memory");
        goto out;
    }
    for (size_t b = 0; b < nb; b++)
        kappa[b] = (float)o->kappa0;
    double F;
    if ((st = objective(ts, ws, theta, &F)) != CRFP_OK)
        goto out;
    if (!isfinite(F)) {
        /* every block's statistics would be NaN too: nothing to descend */
        st = crfp_error(host, CRFP_EINVAL, "bcd: the objective is not finite (%g) at the "
                        "starting point (a warm start whose weights are too large for exp()?)",
                        F);
        goto out;
    }
    crfp_log(host, CRFP_LOG_INFO, "bcd: %zu blocks, window radius %u%s, F = %.10g", nb,
             o->radius, o->radius ? "" : " (exact)", F);
    Fwin[0] = F;
    const double rho1 = ts->rho1, rho2 = ts->rho2;
    int sweep = 0;
    for (;;) {
        size_t tried = 0, changed = 0, given_up = 0, retries = 0;
        for (size_t b = 0; b < nb; b++) {
            if ((b & 1023) == 0 && crfp_interrupted(host)) {
                st = crfp_error(host, CRFP_EINTR, "bcd: interrupted");
                goto out;
            }
            double *x = theta + ts->block_start[b];
            const size_t len = ts->block_start[b + 1] - ts->block_start[b];
            const crfp_occ *occ;
            size_t nocc;
            if ((st = ts->occurrences(ts->ud, b, &occ, &nocc)) != CRFP_OK)
                goto out;
            if (nocc == 0) {
                /* The loss does not depend on the block: the penalties'
                 * minimum. */
                memset(x, 0, len * sizeof *x);
                continue;
            }
            double loss0, loss1;
            if ((st = ts->block_stats(ws, theta, b, o->radius, g, h, &loss0)) != CRFP_OK)
                goto out;
            tried++;
            const double F0 = loss0 + penalty(x, len, rho1, rho2);
            memcpy(old, x, len * sizeof *old);
            int done = 0;
            for (int k = 0; k < o->max_tries && !done; k++) {
                const double kb = kappa[b];
                int moved = 0;
                for (size_t j = 0; j < len; j++) {
                    double c = kb * h[j] + rho2;
                    double v = c > 0 ? soft(kb * h[j] * old[j] - g[j], rho1) / c : old[j];
                    x[j] = v;
                    moved |= v != old[j];
                }
                if (!moved) {
                    done = 1;
                    break;
                }
                if ((st = ts->block_stats(ws, theta, b, o->radius, NULL, NULL, &loss1)) !=
                    CRFP_OK)
                    goto out;
                double F1 = loss1 + penalty(x, len, rho1, rho2);
                /* rounding of a sum of many losses: a change below it is no
                 * increase */
                if (F1 <= F0 + 1e-12 * fabs(F0)) {
                    done = 2;
                    changed++;
                    kappa[b] = kb > 2.0f ? kb / 2.0f : 1.0f;
                } else {
                    retries++;
                    kappa[b] = kb * 4.0f;
                }
            }
            if (!done) {
                memcpy(x, old, len * sizeof *x);
                given_up++;
            }
        }
        sweep++;
        if ((st = objective(ts, ws, theta, &F)) != CRFP_OK)
            goto out;
        if (!isfinite(F)) {
            st = crfp_error(host, CRFP_EINVAL, "bcd: the objective is not finite (%g) after sweep "
                            "%d", F, sweep);
            goto out;
        }
        crfp_log(host, CRFP_LOG_DEBUG, "bcd: sweep %d: %zu blocks updated of %zu, %zu retries, "
                 "%zu left unchanged after %d trials", sweep, changed, tried, retries, given_up,
                 o->max_tries);
        int stop = 0;
        if (ts->monitor) {
            crfp_iter_info info = {sweep, F, 1.0, (int)(tried + changed + retries)};
            if ((st = ts->monitor(ts->monitor_ud, &info, theta, &stop)) != CRFP_OK)
                goto out;
        }
        if (stop || sweep >= o->max_sweeps)
            break;
        int w = o->window;
        double prev = Fwin[sweep % w];
        Fwin[sweep % w] = F;
        if (sweep >= w && isfinite(F) && prev - F <= o->epsilon * fabs(F))
            break;
        if (changed == 0)
            break;
    }
    crfp_log(host, CRFP_LOG_INFO, "bcd: %d sweeps, F = %.10g", sweep, F);
out:
    if (ws)
        ts->ws_free(ws);
    free(kappa);
    free(g);
    free(h);
    free(old);
    free(Fwin);
    return st;
}
