/* crfpipe — Viterbi decoding with sparse transitions.
 *
 * δ_t(y) = s_t(y) + max_{y'} [δ_{t−1}(y') + λ_t(y',y)].  For column y, every
 * y' with λ_t(y',y) = 0 contributes just δ_{t−1}(y'), so with the labels
 * sorted by δ_{t−1} once per position the best of those is the first one in
 * that order not among the column's non-zeros: the column costs its
 * non-zeros plus a scan at most as long (Sokolovska et al. 2010).  Ties go to
 * the lowest label id, in both the sparse and dense loops, so both return the
 * same labelling.
 */
#include <math.h>
#include "infer.h"

#define VITERBI_PREFETCH 8

/* Labels by decreasing δ, ties by increasing id (insertion sort: Y is small
 * and δ changes little in order from one position to the next). */
static void sort_labels(uint32_t Y, const double *d, uint32_t *order)
{
    for (uint32_t i = 0; i < Y; i++) {
        uint32_t y = order[i], j = i;
        while (j > 0) {
            uint32_t z = order[j - 1];
            if (d[z] > d[y] || (d[z] == d[y] && z < y))
                break;
            order[j] = z;
            j--;
        }
        order[j] = y;
    }
}

static inline int better(double v, uint32_t r, double best, uint32_t arg)
{
    return v > best || (v == best && r < arg);
}

crfp_status crfp_viterbi_run(crfp_infer *w, const crfp_seq *seq, const double *theta,
                             uint32_t *out_y, double *score)
{
    const crfp_crf *crf = w->crf;
    const uint32_t Y = w->Y, T = seq->T;
    const size_t YY = (size_t)Y * Y;
    if (score)
        *score = 0.0;
    if (T == 0)
        return CRFP_OK;
    if (Y == 0)
        return CRFP_EINVAL;
    if (crfp_infer_reserve(w, T) != CRFP_OK)
        return CRFP_ENOMEM;
    /* δ of every position is kept (in the forward workspace) so that dense
     * positions need no backpointers: the max loop then vectorises, and
     * the argmax is recomputed for the one label the backtrace follows. */
    double *d = w->alpha, *dn, *s = w->tmp + 2 * (size_t)Y;
    crfp_tview v;
    /* Unigram blocks are scattered over the whole model: ask for the next
     * positions' blocks while this one is decoded. */
    for (uint32_t t = 0; t < VITERBI_PREFETCH; t++)
        crfp_prefetch_unigram(crf, seq, t, theta, 0);
    crfp_unigram(crf, seq, 0, theta, s);
    if (crfp_view_get(w, seq, 0, theta, CRFP_VIEW_LOG, &v) != CRFP_OK)
        return CRFP_ENOMEM;
    for (uint32_t y = 0; y < Y; y++)
        d[y] = s[y] + v.L[YY + y];
    crfp_view_release(w, seq, 0);
    for (uint32_t y = 0; y < Y; y++)
        w->order[y] = y;
    for (uint32_t t = 1; t < T; t++) {
        uint32_t *bp = w->bp + (size_t)t * Y;
        d = w->alpha + (size_t)(t - 1) * Y;
        dn = w->alpha + (size_t)t * Y;
        crfp_prefetch_unigram(crf, seq, t + VITERBI_PREFETCH - 1, theta, 0);
        crfp_unigram(crf, seq, t, theta, s);
        if (crfp_view_get(w, seq, t, theta, CRFP_VIEW_LOG, &v) != CRFP_OK)
            return CRFP_ENOMEM;
        if (v.dense) {
            const double *L = v.L;
            for (uint32_t c = 0; c < Y; c++)
                dn[c] = d[0] + L[c];
            for (uint32_t r = 1; r < Y; r++) {
                const double dr = d[r], *Lr = L + (size_t)r * Y;
                for (uint32_t c = 0; c < Y; c++) {
                    double x = dr + Lr[c];
                    dn[c] = x > dn[c] ? x : dn[c];
                }
            }
            bp[0] = UINT32_MAX; /* recomputed by the backtrace */
        } else {
            sort_labels(Y, d, w->order);
            for (uint32_t c = 0; c < Y; c++) {
                if (++w->markgen == 0) {
                    for (uint32_t y = 0; y < Y; y++)
                        w->mark[y] = 0;
                    w->markgen = 1;
                }
                const uint32_t gen = w->markgen;
                double best = -INFINITY;
                uint32_t arg = UINT32_MAX;
                for (uint32_t k = v.colptr[c]; k < v.colptr[c + 1]; k++) {
                    uint32_t r = v.row[k];
                    w->mark[r] = gen;
                    double x = d[r] + v.lam[k];
                    if (better(x, r, best, arg)) {
                        best = x;
                        arg = r;
                    }
                }
                for (uint32_t j = 0; j < Y; j++) {
                    uint32_t r = w->order[j];
                    if (w->mark[r] == gen)
                        continue;
                    if (better(d[r], r, best, arg)) {
                        best = d[r];
                        arg = r;
                    }
                    break;
                }
                /* NaN weights can leave no winner; keep the path well formed. */
                dn[c] = best;
                bp[c] = arg == UINT32_MAX ? 0 : arg;
            }
        }
        crfp_view_release(w, seq, t);
        for (uint32_t c = 0; c < Y; c++)
            dn[c] += s[c];
    }
    d = w->alpha + (size_t)(T - 1) * Y;
    uint32_t y = 0;
    for (uint32_t c = 1; c < Y; c++)
        if (d[c] > d[y])
            y = c;
    if (score)
        *score = d[y];
    for (uint32_t t = T; t-- > 0;) {
        out_y[t] = y;
        if (!t)
            break;
        const uint32_t *bp = w->bp + (size_t)t * Y;
        if (bp[0] != UINT32_MAX) {
            y = bp[y];
            continue;
        }
        /* Same comparisons in the same order as a backpointer loop would
         * make: the lowest label among equal scores wins. */
        if (crfp_view_get(w, seq, t, theta, CRFP_VIEW_LOG, &v) != CRFP_OK)
            return CRFP_ENOMEM;
        const double *dp = w->alpha + (size_t)(t - 1) * Y;
        double best = dp[0] + v.L[y];
        uint32_t arg = 0;
        for (uint32_t r = 1; r < Y; r++) {
            double x = dp[r] + v.L[(size_t)r * Y + y];
            if (x > best) {
                best = x;
                arg = r;
            }
        }
        crfp_view_release(w, seq, t);
        y = arg;
    }
    return CRFP_OK;
}
