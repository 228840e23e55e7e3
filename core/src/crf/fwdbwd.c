/* crfpipe — scaled forward-backward with sparse transitions.
 *
 * With ψ_t(y) = exp(s_t(y) − max s_t) and M_t = exp(λ_t) − 1,
 *   α_t(y) = ψ_t(y) [Σ_{y'} α_{t−1}(y') + Σ_{y'} α_{t−1}(y') M_t(y',y)],
 * so a position costs O(Y + nnz(M_t)) instead of O(Y²) (Lavergne et al.
 * 2010, §4.1).  α_t is normalised to sum 1 and its normaliser c_t kept:
 * log Z = Σ_t (log c_t + max s_t).  β is scaled by the same c_t so that
 * P(y_t = y) = α_t(y) β_t(y) directly.  No log/exp in the recursions: the
 * only exp() per position are the Y of ψ_t.
 */
#include <math.h>
#include <string.h>
#include "infer.h"

static void forward_step(uint32_t Y, const crfp_tview *v, const double *ap, const double *psi,
                         double *a, double *acc)
{
    if (v->dense) {
        for (uint32_t c = 0; c < Y; c++)
            acc[c] = 0.0;
        for (uint32_t r = 0; r < Y; r++) {
            const double ar = ap[r], *E = v->E + (size_t)r * Y;
            for (uint32_t c = 0; c < Y; c++)
                acc[c] += ar * E[c];
        }
        for (uint32_t c = 0; c < Y; c++)
            a[c] = psi[c] * acc[c];
        return;
    }
    double sum = 0.0;
    for (uint32_t r = 0; r < Y; r++)
        sum += ap[r];
    for (uint32_t c = 0; c < Y; c++) {
        double s = sum;
        for (uint32_t k = v->colptr[c]; k < v->colptr[c + 1]; k++)
            s += ap[v->row[k]] * v->m[k];
        a[c] = psi[c] * s;
    }
}

/* β_{t−1}(y') = Σ_y exp(λ_t(y',y)) γ(y), with γ = ψ_t β_t / c_t. */
static void backward_step(uint32_t Y, const crfp_tview *v, const double *gam, double *bp)
{
    if (v->dense) {
        /* Four interleaved partial sums: the vectoriser may not reorder a
         * plain floating-point reduction, but it packs these lanes. */
        for (uint32_t r = 0; r < Y; r++) {
            const double *E = v->E + (size_t)r * Y;
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            uint32_t c = 0;
            for (; c + 4 <= Y; c += 4) {
                s0 += E[c] * gam[c];
                s1 += E[c + 1] * gam[c + 1];
                s2 += E[c + 2] * gam[c + 2];
                s3 += E[c + 3] * gam[c + 3];
            }
            for (; c < Y; c++)
                s0 += E[c] * gam[c];
            bp[r] = (s0 + s1) + (s2 + s3);
        }
        return;
    }
    double sum = 0.0;
    for (uint32_t c = 0; c < Y; c++)
        sum += gam[c];
    for (uint32_t r = 0; r < Y; r++)
        bp[r] = sum;
    for (uint32_t c = 0; c < Y; c++) {
        const double gc = gam[c];
        for (uint32_t k = v->colptr[c]; k < v->colptr[c + 1]; k++)
            bp[v->row[k]] += v->m[k] * gc;
    }
}

/* out[y'Y+y] (+)= P(y_{t−1}=y', y_t=y) = α_{t−1}(y') exp(λ_t(y',y)) γ(y). */
static void pair_add(uint32_t Y, const crfp_tview *v, const double *ap, const double *gam,
                     double *out)
{
    if (v->dense) {
        for (uint32_t r = 0; r < Y; r++) {
            const double ar = ap[r], *E = v->E + (size_t)r * Y;
            double *o = out + (size_t)r * Y;
            for (uint32_t c = 0; c < Y; c++)
                o[c] += ar * E[c] * gam[c];
        }
        return;
    }
    for (uint32_t r = 0; r < Y; r++) {
        const double ar = ap[r];
        double *o = out + (size_t)r * Y;
        for (uint32_t c = 0; c < Y; c++)
            o[c] += ar * gam[c];
    }
    for (uint32_t c = 0; c < Y; c++) {
        const double gc = gam[c];
        for (uint32_t k = v->colptr[c]; k < v->colptr[c + 1]; k++)
            out[(size_t)v->row[k] * Y + c] += ap[v->row[k]] * v->m[k] * gc;
    }
}

/* How many positions ahead the model's blocks are prefetched. */
#define PREFETCH_AHEAD 2

crfp_status crfp_fb_run(crfp_infer *w, const crfp_seq *seq, const double *theta, double *logz,
                        int backward, double *g, double *pair, const uint32_t *gold,
                        double *gold_score, double weight)
{
    const crfp_crf *crf = w->crf;
    const uint32_t Y = w->Y, T = seq->T;
    const size_t YY = (size_t)Y * Y;
    const uint64_t *gub = w->gub ? w->gub : crf->ublk, *gbb = w->gbb ? w->gbb : crf->bblk;
    const int pf = w->gub == NULL; /* prefetch the gradient only in the model's layout */
    w->fb_seq = NULL;   /* the tables are about to change */
    if (crfp_infer_reserve(w, T) != CRFP_OK)
        return CRFP_ENOMEM;
    *logz = 0.0;
    if (T == 0 || Y == 0)
        return CRFP_OK;
    crfp_tview v;
    double lz = 0.0, gs = 0.0;
    double *acc = w->tmp;
    for (uint32_t t = 0; t < PREFETCH_AHEAD; t++)
        crfp_prefetch_unigram(crf, seq, t, theta, 0);
    for (uint32_t t = 0; t < T; t++) {
        double *psi = w->psi + (size_t)t * Y, *a = w->alpha + (size_t)t * Y;
        crfp_prefetch_unigram(crf, seq, t + PREFETCH_AHEAD, theta, 0);
        crfp_unigram(crf, seq, t, theta, psi);
        crfp_force_apply(w, t, psi);
        if (gold)
            gs += psi[gold[t]];
        double mx = psi[0];
        for (uint32_t y = 1; y < Y; y++)
            mx = psi[y] > mx ? psi[y] : mx;
        for (uint32_t y = 0; y < Y; y++)
            psi[y] = exp(psi[y] - mx);
        w->shift[t] = mx;
        if (crfp_view_get(w, seq, t, theta, CRFP_VIEW_FB, &v) != CRFP_OK)
            return CRFP_ENOMEM;
        if (gold)
            gs += v.L[(size_t)(t ? gold[t - 1] : Y) * Y + gold[t]];
        if (t == 0) {
            for (uint32_t y = 0; y < Y; y++)
                a[y] = psi[y] * v.sE[y];
        } else {
            forward_step(Y, &v, a - Y, psi, a, acc);
        }
        crfp_view_release(w, seq, t);
        double z = 0.0;
        for (uint32_t y = 0; y < Y; y++)
            z += a[y];
        const double inv = 1.0 / z;
        for (uint32_t y = 0; y < Y; y++)
            a[y] *= inv;
        w->scale[t] = z;
        lz += log(z) + mx;
    }
    *logz = lz;
    if (gold_score)
        *gold_score = gs;
    if (!backward && !g && !pair)
        return CRFP_OK;

    double *gam = w->tmp, *p = w->tmp + Y;
    /* A weighted sequence adds weight·(marginals − gold counts) to g: the
     * marginals the gradient reads are scaled copies (pw, gw), while p and
     * gam stay the true ones for beta's recursion and `pair`.  Its
     * positions are not deferred to lowrank.c, whose records assume a
     * gold count of 1. */
    const int weighted = weight != 1.0;
    double *pw = weighted ? w->tmp + 2 * (size_t)Y : p;
    double *gw = weighted ? w->tmp + 3 * (size_t)Y : gam;
    double *bT = w->beta + (size_t)(T - 1) * Y;
    for (uint32_t y = 0; y < Y; y++)
        bT[y] = 1.0;
    if (g && pf)
        for (uint32_t t = T; t-- > 0 && t + PREFETCH_AHEAD >= T;)
            crfp_prefetch_unigram(crf, seq, t, g, 1);
    for (uint32_t t = T; t-- > 0;) {
        const double *a = w->alpha + (size_t)t * Y, *b = w->beta + (size_t)t * Y;
        const double *psi = w->psi + (size_t)t * Y;
        if (g || t == 0) {
            for (uint32_t y = 0; y < Y; y++)
                p[y] = a[y] * b[y];
        }
        if (g) {
            if (pf && t >= PREFETCH_AHEAD)
                crfp_prefetch_unigram(crf, seq, t - PREFETCH_AHEAD, g, 1);
            if (weighted)
                for (uint32_t y = 0; y < Y; y++)
                    pw[y] = weight * p[y];
            if (!seq->uval) {
                for (uint32_t i = seq->uoff[t]; i < seq->uoff[t + 1]; i++) {
                    double *gu = g + gub[seq->uobs[i]];
                    for (uint32_t y = 0; y < Y; y++)
                        gu[y] += pw[y];
                    if (gold)
                        gu[gold[t]] -= weight;
                }
            } else {
                for (uint32_t i = seq->uoff[t]; i < seq->uoff[t + 1]; i++) {
                    double *gu = g + gub[seq->uobs[i]];
                    const double v = seq->uval[i];
                    for (uint32_t y = 0; y < Y; y++)
                        gu[y] += v * pw[y];
                    if (gold)
                        gu[gold[t]] -= v * weight;
                }
            }
        }
        if (t == 0) {
            /* From the start label: P(y_{-1}=start, y_0=y) = P(y_0=y). */
            if (g)
                for (uint32_t i = seq->boff[0]; i < seq->boff[1]; i++) {
                    double *gb = g + gbb[seq->bobs[i]] + YY;
                    for (uint32_t y = 0; y < Y; y++)
                        gb[y] += pw[y];
                    if (gold)
                        gb[gold[0]] -= weight;
                }
            if (pair) {
                memset(pair, 0, YY * sizeof *pair);
                memcpy(pair + YY, p, Y * sizeof *pair);
            }
            break;
        }
        if (crfp_view_get(w, seq, t, theta, CRFP_VIEW_FB, &v) != CRFP_OK)
            return CRFP_ENOMEM;
        const double inv = 1.0 / w->scale[t];
        for (uint32_t y = 0; y < Y; y++)
            gam[y] = psi[y] * b[y] * inv;
        const double *ap = a - Y;
        backward_step(Y, &v, gam, w->beta + (size_t)(t - 1) * Y);
        if (g && weighted)
            for (uint32_t y = 0; y < Y; y++)
                gw[y] = weight * gam[y];
        uint32_t nb = seq->boff[t + 1] - seq->boff[t];
        double *dacc;
        if (pair) {
            double *pt = pair + (size_t)t * (Y + 1) * Y;
            memset(pt, 0, ((size_t)Y + 1) * Y * sizeof *pt);
            pair_add(Y, &v, ap, gam, pt);
        }
        if (g && nb == 1 && !weighted &&
            crfp_fb_lowrank(w, g, theta, seq->bobs[seq->boff[t]],
                            gold ? gold[t - 1] * Y + gold[t] : UINT32_MAX, ap, gam)) {
            /* kept, added per observation later (lowrank.c) */
        } else if (g && nb == 1) {
            double *gb = g + gbb[seq->bobs[seq->boff[t]]];
            pair_add(Y, &v, ap, gw, gb);
            if (gold)
                gb[(size_t)gold[t - 1] * Y + gold[t]] -= weight;
        } else if (g && nb > 1 &&
                   (dacc = crfp_fb_deferred(w, g, seq->bobs + seq->boff[t], nb)) != NULL) {
            pair_add(Y, &v, ap, gw, dacc);
            if (gold)
                dacc[(size_t)gold[t - 1] * Y + gold[t]] -= weight;
        } else if (g && nb > 1) {
            memset(w->pair, 0, YY * sizeof *w->pair);
            pair_add(Y, &v, ap, gw, w->pair);
            if (gold)
                w->pair[(size_t)gold[t - 1] * Y + gold[t]] -= weight;
            for (uint32_t i = seq->boff[t]; i < seq->boff[t + 1]; i++) {
                double *gb = g + gbb[seq->bobs[i]];
                for (size_t j = 0; j < YY; j++)
                    gb[j] += w->pair[j];
            }
        }
        crfp_view_release(w, seq, t);
        if (g && nb == 1)
            crfp_fb_lowrank_drain(w, 1);
    }
    return CRFP_OK;
}
