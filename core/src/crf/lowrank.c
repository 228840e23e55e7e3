/* crfpipe — deferred bigram gradients of one-observation positions (infer.h).
 *
 * At a position whose transition is one observation's block o, the pair
 * marginals are P(y',y) = α_{t−1}(y') E_o(y',y) γ_t(y) with E_o = exp(λ_o)
 * the same at every position of o within an evaluation.  So o's gradient
 * over the whole slice is E_o ∘ Σ_t α_{t−1} γ_tᵀ: a sum of outer products,
 * then one elementwise product.  Adding P at each position instead reads
 * and writes o's Y² block of the gradient every time; on NETtalk's 3-grm-
 * (one trigram block per letter, 52 labels, 14 M weights) those blocks are
 * scattered over 110 MB and the position's 43 KB of traffic was the largest
 * cost of a training iteration.
 *
 * Here a position only copies its two vectors (2Y doubles) into a record.
 * When the records fill their budget, or at crfp_fb_flush, they are grouped
 * by observation and each group's outer products are summed by a
 * register-tiled kernel in a scratch matrix that stays in cache; the block
 * is then read and written once per group, its E applied from the epoch's
 * non-zero list (E = 1 + M with M sparse).  Only the rounding differs from
 * adding at once, as for the observation sets of setgrad.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "infer.h"

/* Bytes of records per workspace: they start at 1 MB and double while a
 * drain finds fewer than 16 records per observation on average (the
 * positions' blocks are many and scattered, so more records save more
 * traffic), up to 64 MB: 77,000 positions of NETtalk's 52 labels, most of
 * an evaluation of its 3-grm- set on one thread.  A template whose
 * positions share a few blocks (CoNLL-2000 chunking's constant `B`) stays
 * at 1 MB. */
#define LOWRANK_START ((size_t)1 << 20)
#define LOWRANK_MAX ((size_t)64 << 20)
/* Records summed per pass over the scratch matrix: their vectors stay in
 * the cache while every tile of S is visited. */
#define LOWRANK_CHUNK 64

/* A record holds α_{t−1} padded with zeros to yr = Y rounded up to 4,
 * then γ_t padded to yc = Y rounded up to 8, so that the kernels below
 * work on whole tiles of 4 rows × 8 columns of S (yr × yc) and need no
 * tail loops; the padding adds products of zero. */
static uint32_t round_up(uint32_t y, uint32_t k)
{
    return (y + k - 1) / k * k;
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* S(r, c) += Σ_k a_k(r) γ_k(c) over records key[k0..k1) (the record index
 * is a key's low half).  Each tile of S stays in registers over the
 * chunk, so a product costs one load of γ shared by four rows instead of
 * a load and a store of S. */
static void tiles_plain(uint32_t yr, uint32_t yc, const double *vec, const uint64_t *key,
                        uint32_t k0, uint32_t k1, double *S)
{
    const size_t stride = (size_t)yr + yc;
    for (uint32_t r0 = 0; r0 < yr; r0 += 4)
        for (uint32_t c0 = 0; c0 < yc; c0 += 8) {
            double acc[4][8];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 8; j++)
                    acc[i][j] = S[(size_t)(r0 + i) * yc + c0 + j];
            for (uint32_t k = k0; k < k1; k++) {
                const double *a = vec + (uint32_t)key[k] * stride;
                const double *g = a + yr + c0;
                a += r0;
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 8; j++)
                        acc[i][j] += a[i] * g[j];
            }
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 8; j++)
                    S[(size_t)(r0 + i) * yc + c0 + j] = acc[i][j];
        }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define LOWRANK_FMA 1
/* The same with 256-bit fused multiply-adds: 8 accumulators of 4 lanes. */
__attribute__((target("avx2,fma"))) static void
tiles_fma(uint32_t yr, uint32_t yc, const double *vec, const uint64_t *key, uint32_t k0,
          uint32_t k1, double *S)
{
    const size_t stride = (size_t)yr + yc;
    for (uint32_t r0 = 0; r0 < yr; r0 += 4)
        for (uint32_t c0 = 0; c0 < yc; c0 += 8) {
            double *s0 = S + (size_t)r0 * yc + c0, *s1 = s0 + yc, *s2 = s1 + yc, *s3 = s2 + yc;
            __m256d x0 = _mm256_loadu_pd(s0), y0 = _mm256_loadu_pd(s0 + 4);
            __m256d x1 = _mm256_loadu_pd(s1), y1 = _mm256_loadu_pd(s1 + 4);
            __m256d x2 = _mm256_loadu_pd(s2), y2 = _mm256_loadu_pd(s2 + 4);
            __m256d x3 = _mm256_loadu_pd(s3), y3 = _mm256_loadu_pd(s3 + 4);
            for (uint32_t k = k0; k < k1; k++) {
                const double *a = vec + (uint32_t)key[k] * stride;
                const __m256d g0 = _mm256_loadu_pd(a + yr + c0);
                const __m256d g1 = _mm256_loadu_pd(a + yr + c0 + 4);
                __m256d b = _mm256_broadcast_sd(a + r0);
                x0 = _mm256_fmadd_pd(b, g0, x0), y0 = _mm256_fmadd_pd(b, g1, y0);
                b = _mm256_broadcast_sd(a + r0 + 1);
                x1 = _mm256_fmadd_pd(b, g0, x1), y1 = _mm256_fmadd_pd(b, g1, y1);
                b = _mm256_broadcast_sd(a + r0 + 2);
                x2 = _mm256_fmadd_pd(b, g0, x2), y2 = _mm256_fmadd_pd(b, g1, y2);
                b = _mm256_broadcast_sd(a + r0 + 3);
                x3 = _mm256_fmadd_pd(b, g0, x3), y3 = _mm256_fmadd_pd(b, g1, y3);
            }
            _mm256_storeu_pd(s0, x0), _mm256_storeu_pd(s0 + 4, y0);
            _mm256_storeu_pd(s1, x1), _mm256_storeu_pd(s1 + 4, y1);
            _mm256_storeu_pd(s2, x2), _mm256_storeu_pd(s2 + 4, y2);
            _mm256_storeu_pd(s3, x3), _mm256_storeu_pd(s3 + 4, y3);
        }
}
#endif

/* Add the records' sums to their blocks of the gradient and empty them;
 * returns how many observations they had. */
static uint32_t drain(crfp_infer *w)
{
    const uint32_t Y = w->Y, n = w->lr_n, yr = round_up(Y, 4), yc = round_up(Y, 8);
    const size_t YY = (size_t)Y * Y;
    uint64_t *key = w->lr_key;
    w->lr_n = 0;
    if (!n)
        return 0;
    qsort(key, n, sizeof *key, cmp_key);
    double *S = w->lr_S;
    uint32_t groups = 0;
    for (uint32_t i = 0; i < n; groups++) {
        const uint32_t o = (uint32_t)(key[i] >> 32);
        uint32_t j = i + 1;
        while (j < n && (uint32_t)(key[j] >> 32) == o)
            j++;
        memset(S, 0, (size_t)yr * yc * sizeof *S);
        for (uint32_t k0 = i; k0 < j; k0 += LOWRANK_CHUNK) {
            uint32_t k1 = j - k0 < LOWRANK_CHUNK ? j : k0 + LOWRANK_CHUNK;
#ifdef LOWRANK_FMA
            if (w->fma)
                tiles_fma(yr, yc, w->lr_vec, key, k0, k1, S);
            else
#endif
                tiles_plain(yr, yc, w->lr_vec, key, k0, k1, S);
        }
        double *gb = w->dg_g + w->crf->bblk[o];
        for (uint32_t r = 0; r < Y; r++)
            for (uint32_t c = 0; c < Y; c++)
                gb[(size_t)r * Y + c] += S[(size_t)r * yc + c];
        /* E = 1 + M, the non-zeros of M from the epoch's list: every record
         * was made at a position whose view built it, and a new epoch
         * drains the records before it forgets the lists.  (The branch on
         * λ itself is a guard that should never be taken.) */
        const crfp_centry *e = crfp_view_entry(w, o);
        if (e) {
            const uint32_t *colptr = w->ipool + e->ioff, *row = colptr + Y + 1;
            const double *m = w->dpool + e->doff + e->nnz;
            for (uint32_t c = 0; c < Y; c++)
                for (uint32_t k = colptr[c]; k < colptr[c + 1]; k++)
                    gb[(size_t)row[k] * Y + c] += S[(size_t)row[k] * yc + c] * m[k];
        } else {
            const double *L = w->lr_theta + w->crf->bblk[o];
            for (size_t c = 0; c < YY; c++)
                if (L[c] != 0.0)
                    gb[c] += S[c / Y * yc + c % Y] * expm1(L[c]);
        }
        for (uint32_t k = i; k < j; k++) {
            uint32_t gi = w->lr_gold[(uint32_t)key[k]];
            if (gi != UINT32_MAX)
                gb[gi] -= 1.0;
        }
        i = j;
    }
    return groups;
}

static size_t record_bytes(uint32_t Y)
{
    return ((size_t)round_up(Y, 4) + round_up(Y, 8)) * sizeof(double) + sizeof(uint64_t) +
           sizeof(uint32_t);
}

/* Make room for cap records (more than lr_cap); 0 when there is none, the
 * records held staying valid. */
static int lr_grow(crfp_infer *w, size_t cap)
{
    const size_t stride = (size_t)round_up(w->Y, 4) + round_up(w->Y, 8);
    if (cap > UINT32_MAX)
        return 0;
    double *v = realloc(w->lr_vec, cap * stride * sizeof *v);
    if (!v)
        return 0;
    w->lr_vec = v;
    /* zeroed: the padding of every record stays 0 */
    memset(v + (size_t)w->lr_cap * stride, 0, (cap - w->lr_cap) * stride * sizeof *v);
    uint64_t *k = realloc(w->lr_key, cap * sizeof *k);
    if (!k)
        return 0;
    w->lr_key = k;
    uint32_t *gd = realloc(w->lr_gold, cap * sizeof *gd);
    if (!gd)
        return 0;
    w->lr_gold = gd;
    w->lr_cap = (uint32_t)cap;
    return 1;
}

/* First use: the scratch sum and the first records; 0 without memory. */
static int lr_alloc(crfp_infer *w)
{
    size_t cap = w->lr_max ? w->lr_max : LOWRANK_START / record_bytes(w->Y);
    w->lr_S = malloc((size_t)round_up(w->Y, 4) * round_up(w->Y, 8) * sizeof *w->lr_S);
    if (!w->lr_S || !lr_grow(w, cap < 2 ? 2 : cap)) {
        crfp_fb_lowrank_free(w);
        return 0;
    }
    return 1;
}

int crfp_fb_lowrank(crfp_infer *w, const double *g, const double *theta, uint32_t o,
                    uint32_t gold, const double *ap, const double *gam)
{
    if (!w->dg_g || g != w->dg_g || w->gbb || !w->Y || w->lr_off)
        return 0;
    /* A template without one-observation positions never pays for the
     * records; without the memory nothing is deferred. */
    if (!w->lr_cap && !lr_alloc(w)) {
        w->lr_off = 1;
        return 0;
    }
    /* Records of another θ would need another E: a new θ comes with a new
     * epoch, which drains them (crfp_infer_epoch); until then, add at once. */
    if (w->lr_n && theta != w->lr_theta)
        return 0;
    if (w->lr_n == w->lr_cap)
        return 0; /* full: the caller adds at once, then drains */
    const uint32_t r = w->lr_n++, Y = w->Y, yr = round_up(Y, 4);
    double *rec = w->lr_vec + (size_t)r * (yr + round_up(Y, 8));
    memcpy(rec, ap, Y * sizeof *rec);
    memcpy(rec + yr, gam, Y * sizeof *rec);
    w->lr_theta = theta;
    w->lr_key[r] = (uint64_t)o << 32 | r;
    w->lr_gold[r] = gold;
    return 1;
}

void crfp_fb_lowrank_drain(crfp_infer *w, int full_only)
{
    if (!w->dg_g || (full_only && w->lr_n < w->lr_cap))
        return;
    const uint32_t n = w->lr_n, groups = drain(w);
    /* Full, and few records per observation: more of them would save
     * gradient traffic (a failed growth keeps the records as they are). */
    if (full_only && !w->lr_max && (size_t)groups * 16 > n &&
        2 * (size_t)w->lr_cap * record_bytes(w->Y) <= LOWRANK_MAX)
        lr_grow(w, 2 * (size_t)w->lr_cap);
}

void crfp_fb_lowrank_clear(crfp_infer *w)
{
    w->lr_n = 0;
}

void crfp_fb_lowrank_free(crfp_infer *w)
{
    free(w->lr_vec), free(w->lr_key), free(w->lr_gold), free(w->lr_S);
    w->lr_vec = w->lr_S = NULL;
    w->lr_key = NULL;
    w->lr_gold = NULL;
    w->lr_n = w->lr_cap = 0;
    w->lr_off = 0;
}
