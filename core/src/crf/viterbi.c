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

/* Both kernels below work on blocks of labels whose running values stay
 * in registers for a whole pass over the rows (or observations), instead of
 * being loaded and stored once per row.  Every label still sees the same
 * operations in the same order as the plain loops, so the results are
 * bit-identical: additions in the same order, and a max that keeps the
 * running value unless the new one is greater (x > m ? x : m, which is
 * exactly what maxpd(x, m) computes, NaN included).  One body serves two
 * vector widths: SSE2's 128 bits (baseline x86-64) and, for CPUs that have
 * it (chosen at run time, the build stays generic), AVX's 256; each lane
 * does what the scalar loop does, so both widths give the same bits. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define VIT_SSE2 1
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define VIT_AVX 1
#endif
#endif

/* VIT_KERNELS(name, attributes, vector type, lanes, load, store, add, max,
 * broadcast, zero) defines, for labels c0.. in blocks of 4 and then 1
 * vectors, returning the first label left for a narrower kernel:
 *   vit_unigram_<name>: s(y) = Σ_i μ(y, o_i) over the unigram observations
 *     of position t, added in observation order from 0;
 *   vit_rows_<name>: dn(c) = max_r [d(r) + L(r, c)] + s(c) over the rows r
 *     in rows[0..K) (all of them, or those the pruning keeps), the max taken
 *     in that order with the first of equal values kept. */
#define VIT_KERNELS(NAME, ATTR, VT, W, LD, ST, ADD, MAX, SET1, ZERO)                      \
    ATTR static uint32_t vit_unigram_##NAME(const crfp_crf *crf, const crfp_seq *seq,      \
                                            uint32_t t, const double *theta, double *out, \
                                            uint32_t c0)                                  \
    {                                                                                     \
        const uint32_t Y = crf->Y, i0 = seq->uoff[t], i1 = seq->uoff[t + 1];              \
        const uint32_t *obs = seq->uobs;                                                  \
        const uint64_t *ublk = crf->ublk;                                                 \
        for (; c0 + 4 * W <= Y; c0 += 4 * W) {                                            \
            VT a0 = ZERO(), a1 = a0, a2 = a0, a3 = a0;                                    \
            for (uint32_t i = i0; i < i1; i++) {                                          \
                const double *mu = theta + ublk[obs[i]] + c0;                             \
                a0 = ADD(a0, LD(mu));                                                     \
                a1 = ADD(a1, LD(mu + W));                                                 \
                a2 = ADD(a2, LD(mu + 2 * W));                                             \
                a3 = ADD(a3, LD(mu + 3 * W));                                             \
            }                                                                             \
            ST(out + c0, a0);                                                             \
            ST(out + c0 + W, a1);                                                         \
            ST(out + c0 + 2 * W, a2);                                                     \
            ST(out + c0 + 3 * W, a3);                                                     \
        }                                                                                 \
        for (; c0 + W <= Y; c0 += W) {                                                    \
            VT a = ZERO();                                                                \
            for (uint32_t i = i0; i < i1; i++)                                            \
                a = ADD(a, LD(theta + ublk[obs[i]] + c0));                                \
            ST(out + c0, a);                                                              \
        }                                                                                 \
        return c0;                                                                        \
    }                                                                                     \
    ATTR static uint32_t vit_rows_##NAME(uint32_t Y, const double *d, const double *L,    \
                                         const double *s, double *dn, uint32_t c0,        \
                                         const uint32_t *rows, uint32_t K)                \
    {                                                                                     \
        for (; c0 + 4 * W <= Y; c0 += 4 * W) {                                            \
            const VT d0 = SET1(d[rows[0]]);                                               \
            const double *L0 = L + (size_t)rows[0] * Y + c0;                              \
            VT m0 = ADD(d0, LD(L0)), m1 = ADD(d0, LD(L0 + W));                            \
            VT m2 = ADD(d0, LD(L0 + 2 * W)), m3 = ADD(d0, LD(L0 + 3 * W));                \
            for (uint32_t k = 1; k < K; k++) {                                            \
                const VT dr = SET1(d[rows[k]]);                                           \
                const double *Lr = L + (size_t)rows[k] * Y + c0;                          \
                m0 = MAX(ADD(dr, LD(Lr)), m0);                                            \
                m1 = MAX(ADD(dr, LD(Lr + W)), m1);                                        \
                m2 = MAX(ADD(dr, LD(Lr + 2 * W)), m2);                                    \
                m3 = MAX(ADD(dr, LD(Lr + 3 * W)), m3);                                    \
            }                                                                             \
            ST(dn + c0, ADD(m0, LD(s + c0)));                                             \
            ST(dn + c0 + W, ADD(m1, LD(s + c0 + W)));                                     \
            ST(dn + c0 + 2 * W, ADD(m2, LD(s + c0 + 2 * W)));                             \
            ST(dn + c0 + 3 * W, ADD(m3, LD(s + c0 + 3 * W)));                             \
        }                                                                                 \
        for (; c0 + W <= Y; c0 += W) {                                                    \
            VT m = ADD(SET1(d[rows[0]]), LD(L + (size_t)rows[0] * Y + c0));               \
            for (uint32_t k = 1; k < K; k++)                                              \
                m = MAX(ADD(SET1(d[rows[k]]), LD(L + (size_t)rows[k] * Y + c0)), m);      \
            ST(dn + c0, ADD(m, LD(s + c0)));                                              \
        }                                                                                 \
        return c0;                                                                        \
    }

#ifdef VIT_SSE2
VIT_KERNELS(sse2, , __m128d, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_add_pd, _mm_max_pd,
            _mm_set1_pd, _mm_setzero_pd)
#endif
#ifdef VIT_AVX
VIT_KERNELS(avx, __attribute__((target("avx"))), __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd,
            _mm256_add_pd, _mm256_max_pd, _mm256_set1_pd, _mm256_setzero_pd)
#endif

/* The widest kernels the CPU has, then the narrower ones, then the scalar
 * loop for the labels left. */
static void vit_unigram(const crfp_infer *w, const crfp_seq *seq, uint32_t t,
                        const double *theta, double *out)
{
    const crfp_crf *crf = w->crf;
    const uint32_t Y = crf->Y, i0 = seq->uoff[t], i1 = seq->uoff[t + 1];
    uint32_t c0 = 0;
    if (seq->uval) {
        /* valued observations (rare): crfp_unigram's sum, in its order */
        crfp_unigram(crf, seq, t, theta, out);
        return;
    }
#ifdef VIT_AVX
    if (w->avx)
        c0 = vit_unigram_avx(crf, seq, t, theta, out, c0);
#endif
#ifdef VIT_SSE2
    c0 = vit_unigram_sse2(crf, seq, t, theta, out, c0);
#endif
    for (; c0 < Y; c0++) {
        double a = 0.0;
        for (uint32_t i = i0; i < i1; i++)
            a += theta[crf->ublk[seq->uobs[i]] + c0];
        out[c0] = a;
    }
}

/* Row pruning (exact).  Let r* be the best previous label and
 * lb = d(r*) + min_c L(r*, c): every label c can be reached with at least
 * lb.  A row r with d(r) + max_c L(r, c) < lb is below lb in every column,
 * and since rounding is monotone the computed sums keep that order, so it
 * is never the maximum anywhere and may be skipped: the max over the rows
 * kept, which include r*, is the max over all of them, bit for bit.  (The
 * backtrace's argmax still looks at every row.)  G2P's letters make d very
 * peaked, so most of its 233 rows go.  Returns the number K of rows kept in
 * rows[], or Y when pruning does not apply or would not pay. */
#define VIT_PRUNE_MIN_Y 32

static uint32_t vit_keep_rows(crfp_infer *w, const double *d, const crfp_tview *v,
                              uint32_t *rows)
{
    const uint32_t Y = w->Y;
    if (!w->prune || !v->rmax || Y < VIT_PRUNE_MIN_Y)
        return Y;
    uint32_t best = 0;
    for (uint32_t r = 1; r < Y; r++)
        if (d[r] > d[best])
            best = r;
    const double lb = d[best] + v->rmin[best];
    /* NaN or -inf scores: leave them to the full loop */
    if (!(lb > -INFINITY))
        return Y;
    uint32_t K = 0;
    for (uint32_t r = 0; r < Y; r++) {
        const double ub = d[r] + v->rmax[r];
        if (ub != ub)
            return Y;
        if (!(ub < lb))
            rows[K++] = r;
    }
    w->pweighed += Y;
    if (K * 4 > Y * 3)
        return Y;
    w->pskipped += Y - K;
    return K;
}

static void vit_dense(crfp_infer *w, const double *d, const crfp_tview *v,
                      const double *s, double *dn)
{
    const uint32_t Y = w->Y;
    const double *L = v->L;
    uint32_t c0 = 0, K = vit_keep_rows(w, d, v, w->prow);
    const uint32_t *rows = K < Y ? w->prow : w->ident;
#ifdef VIT_AVX
    if (w->avx)
        c0 = vit_rows_avx(Y, d, L, s, dn, c0, rows, K);
#endif
#ifdef VIT_SSE2
    c0 = vit_rows_sse2(Y, d, L, s, dn, c0, rows, K);
#endif
    for (; c0 < Y; c0++) {
        double m = d[rows[0]] + L[(size_t)rows[0] * Y + c0];
        for (uint32_t k = 1; k < K; k++) {
            double x = d[rows[k]] + L[(size_t)rows[k] * Y + c0];
            m = x > m ? x : m;
        }
        dn[c0] = m + s[c0];
    }
}

typedef crfp_vit_memo vit_memo;

/* The transition of position t in the log domain.  Viterbi needs only λ:
 * when one bigram observation fires (the constant "B" of a CRF++ template,
 * at every position) and its block is dense, its weights are the view, and
 * the cached non-zero list with expm1(λ) that forward-backward wants is
 * never built.  The dense/sparse choice is trans.c's rule (a third of the
 * matrix); either loop gives the same labelling and score.  Otherwise, and
 * with several observations, trans.c builds the view; *release says
 * whether crfp_view_release must follow. */
static crfp_status vit_view(crfp_infer *w, const crfp_seq *seq, uint32_t t, const double *theta,
                            vit_memo *memo, crfp_tview *v, int *release)
{
    const uint32_t b0 = seq->boff[t];
    *release = 0;
    v->rmax = v->rmin = NULL;
    if (seq->boff[t + 1] - b0 == 1 && w->mode != 1) {
        const uint32_t o = seq->bobs[b0];
        const double *L = theta + w->crf->bblk[o];
        if (memo->obs != o) {
            const size_t YY = (size_t)w->Y * w->Y;
            size_t nnz = 0;
            if (w->mode == 2) {
                nnz = YY;
            } else {
                /* counted in rows, stopping once the answer is known */
                for (size_t i = 0; i < YY && nnz * 3 <= YY; i += w->Y)
                    for (size_t j = i; j < i + w->Y; j++)
                        nnz += L[j] != 0.0;
            }
            memo->obs = o;
            memo->dense = nnz * 3 > YY;
        }
        if (memo->dense) {
            v->L = L;
            v->dense = 1;
            return CRFP_OK;
        }
    }
    *release = 1;
    return crfp_view_get(w, seq, t, theta, CRFP_VIEW_LOG, v);
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
    vit_memo memo = {UINT32_MAX, 0};
    int rel;
    /* Unigram blocks are scattered over the whole model: ask for the next
     * positions' blocks while this one is decoded. */
    for (uint32_t t = 0; t < VITERBI_PREFETCH; t++)
        crfp_prefetch_unigram(crf, seq, t, theta, 0);
    vit_unigram(w, seq, 0, theta, s);
    crfp_force_apply(w, 0, s);
    if (vit_view(w, seq, 0, theta, &memo, &v, &rel) != CRFP_OK)
        return CRFP_ENOMEM;
    for (uint32_t y = 0; y < Y; y++)
        d[y] = s[y] + v.L[YY + y];
    if (rel)
        crfp_view_release(w, seq, 0);
    for (uint32_t y = 0; y < Y; y++)
        w->order[y] = y;
    for (uint32_t t = 1; t < T; t++) {
        uint32_t *bp = w->bp + (size_t)t * Y;
        d = w->alpha + (size_t)(t - 1) * Y;
        dn = w->alpha + (size_t)t * Y;
        crfp_prefetch_unigram(crf, seq, t + VITERBI_PREFETCH - 1, theta, 0);
        vit_unigram(w, seq, t, theta, s);
        crfp_force_apply(w, t, s);
        if (vit_view(w, seq, t, theta, &memo, &v, &rel) != CRFP_OK)
            return CRFP_ENOMEM;
        if (v.dense) {
            vit_dense(w, d, &v, s, dn);
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
                dn[c] = best + s[c];
                bp[c] = arg == UINT32_MAX ? 0 : arg;
            }
        }
        if (rel)
            crfp_view_release(w, seq, t);
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
        if (vit_view(w, seq, t, theta, &memo, &v, &rel) != CRFP_OK)
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
        if (rel)
            crfp_view_release(w, seq, t);
        y = arg;
    }
    return CRFP_OK;
}

crfp_status crfp_viterbi_column(crfp_infer *w, const crfp_seq *seq, uint32_t t,
                                const double *theta, crfp_vit_memo *memo, uint32_t y,
                                double *col)
{
    crfp_tview v;
    int rel;
    if (vit_view(w, seq, t, theta, memo, &v, &rel) != CRFP_OK)
        return CRFP_ENOMEM;
    const uint32_t Y = w->Y;
    for (uint32_t r = 0; r < Y; r++)
        col[r] = v.L[(size_t)r * Y + y];
    if (rel)
        crfp_view_release(w, seq, t);
    return CRFP_OK;
}
