/* lbfgs plugin — the correction pairs, and the search direction they give.
 *
 * Memory decides this file's design.  With CoNLL-2000's 7.4M weights a
 * vector of doubles is 60 MB, and L-BFGS classically keeps 2m + 4 of them
 * (m = 5: 840 MB).  Here:
 *  - each pair (s, y) is stored in IEEE half precision with a power-of-two
 *    scale per vector (so its largest entries sit near the top of the half
 *    range and entries down to 2^-29 of its norm keep all 11 bits);
 *  - ∇f at the line search's start is kept, rounded to float, in the free
 *    slot of the ring (its two 16-bit halves in s and y of element j), so
 *    the pass that stores the new pair overwrites element j of it with
 *    element j of the pair, in place;
 *  - the direction H·v is computed "vector-free" (Chen, Wang and Zhou,
 *    NIPS 2014): all the two-loop recursion needs are inner products
 *    between v and the pairs, which are kept in a (2m)² Gram matrix updated
 *    by the pass that stores each pair; the recursion then runs on 2m + 1
 *    coefficients, and a single pass forms d = Σ c_k b_k.
 * So the optimizer keeps θ, ∇f, θ_prev in double, d in float and 2m half
 * vectors: 3·8 + 4 + 4m bytes per weight (48 for m = 5; 80 with the
 * float pairs of lbfgs 1.1 – 1.2), and makes two passes over the history per
 * iteration where the two-loop recursion makes 2m + 1.
 *
 * Why this stays BFGS: every product is accumulated in double from the
 * stored (rounded) values, and ρ, γ and the Gram matrix are those of the
 * stored values, so H is exactly the BFGS matrix of slightly perturbed
 * pairs — positive definite — and every direction is checked for descent.
 * The optimum (∇f = 0, or the ℓ1 optimality conditions) does not depend
 * on H.
 */
#include "config.h"
#include "lbfgs_impl.h"
#include "f16.h"
#include "crfpipe/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#define HIST_X86 1
#endif

/* A pair whose s'y is this small relative to y'y carries no reliable
 * curvature: storing it would make H nearly singular or indefinite. */
#define CURVATURE_EPS 1e-10

/* Elements converted and combined at a time, in buffers on the stack. */
#define CHUNK 256

/* The passes below are sums of products over chunks: written on 4-lane
 * vectors (GCC's vector extension), each product's sum is a chain of one
 * addition per 4 elements instead of one per element, and the chains of
 * several products run side by side.  Every kernel is compiled twice,
 * for AVX2 with FMA and F16C, where the halves are converted in registers
 * as they are used (no buffer), and for the baseline; mem->hw selects. */
typedef double v4 __attribute__((vector_size(4 * sizeof(double))));
#define INLINE static inline __attribute__((always_inline))

/* o[k] += Σ_t A_k[t]·B_k[t] for the nprod products (A, B) listed. */
INLINE void dots(int nprod, const double *const *A, const double *const *B, size_t len,
                 double *o)
{
    v4 acc[8] = {{0}};
    size_t t = 0;
    for (; t + 4 <= len; t += 4)
        for (int k = 0; k < nprod; k++) {
            v4 a, b;
            memcpy(&a, A[k] + t, sizeof a);
            memcpy(&b, B[k] + t, sizeof b);
            acc[k] += a * b;
        }
    for (int k = 0; k < nprod; k++) {
        double r = (acc[k][0] + acc[k][1]) + (acc[k][2] + acc[k][3]);
        for (size_t u = t; u < len; u++)
            r += A[k][u] * B[k][u];
        o[k] += r;
    }
}

#ifdef HIST_X86
#include <immintrin.h>
#define HW __attribute__((target("avx2,fma,f16c")))

HW static inline __m256d half4(const uint16_t *h)
{
    return _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(const void *)h)));
}

/* D += cs·s + cy·y, s and y halves. */
HW static inline void axpy_pair_hw(double cs, const uint16_t *s, double cy, const uint16_t *y,
                                   double *D, size_t len)
{
    const __m256d a = _mm256_set1_pd(cs), b = _mm256_set1_pd(cy);
    size_t t = 0;
    for (; t + 4 <= len; t += 4) {
        __m256d d = _mm256_loadu_pd(D + t);
        d = _mm256_fmadd_pd(a, half4(s + t), d);
        _mm256_storeu_pd(D + t, _mm256_fmadd_pd(b, half4(y + t), d));
    }
    for (; t < len; t++)
        D[t] = fma(cy, f16_to_float(y[t]), fma(cs, f16_to_float(s[t]), D[t]));
}

/* o[0..2] += S'h, Y'h, V'h, h halves. */
HW static inline void dots3_hw(const double *S, const double *Y, const double *V,
                               const uint16_t *h, size_t len, double *o)
{
    __m256d a = _mm256_setzero_pd(), b = a, c = a;
    size_t t = 0;
    for (; t + 4 <= len; t += 4) {
        __m256d w = half4(h + t);
        a = _mm256_fmadd_pd(_mm256_loadu_pd(S + t), w, a);
        b = _mm256_fmadd_pd(_mm256_loadu_pd(Y + t), w, b);
        c = _mm256_fmadd_pd(_mm256_loadu_pd(V + t), w, c);
    }
    double r[3] = {(a[0] + a[1]) + (a[2] + a[3]), (b[0] + b[1]) + (b[2] + b[3]),
                   (c[0] + c[1]) + (c[2] + c[3])};
    for (; t < len; t++) {
        double w = f16_to_float(h[t]);
        r[0] = fma(S[t], w, r[0]);
        r[1] = fma(Y[t], w, r[1]);
        r[2] = fma(V[t], w, r[2]);
    }
    o[0] += r[0];
    o[1] += r[1];
    o[2] += r[2];
}
#endif

/* The same two for either path (hw: a constant where they are inlined);
 * B is scratch of len doubles. */
INLINE void axpy_pair(int hw, double cs, const uint16_t *s, double cy, const uint16_t *y,
                      double *D, double *B, size_t len)
{
#ifdef HIST_X86
    if (hw) {
        axpy_pair_hw(cs, s, cy, y, D, len);
        return;
    }
#endif
    f16_decode(0, s, B, len);
    for (size_t t = 0; t < len; t++)
        D[t] += cs * B[t];
    f16_decode(0, y, B, len);
    for (size_t t = 0; t < len; t++)
        D[t] += cy * B[t];
}

INLINE void dots3(int hw, const double *S, const double *Y, const double *V, const uint16_t *h,
                  double *B, size_t len, double *o)
{
#ifdef HIST_X86
    if (hw) {
        dots3_hw(S, Y, V, h, len, o);
        return;
    }
#endif
    const double *oa[3] = {S, Y, V}, *ob[3] = {B, B, B};
    f16_decode(0, h, B, len);
    dots(3, oa, ob, len, o);
}

crfp_status lbfgs_mem_init(crfp_host *host, lbfgs_mem *mem, size_t n, int m)
{
    memset(mem, 0, sizeof *mem);
    mem->n = n;
    mem->m = m;
    mem->hw = f16_hw();
    size_t mm = 2 * (size_t)m;
    mem->s = calloc((size_t)m, sizeof *mem->s);
    mem->y = calloc((size_t)m, sizeof *mem->y);
    mem->es = calloc((size_t)m, sizeof *mem->es);
    mem->ey = calloc((size_t)m, sizeof *mem->ey);
    mem->rho = calloc((size_t)m, sizeof *mem->rho);
    mem->vs = calloc((size_t)m, sizeof *mem->vs);
    mem->vy = calloc((size_t)m, sizeof *mem->vy);
    mem->G = calloc(mm * mm, sizeof *mem->G);
    mem->work = calloc(4 * (size_t)m + 1, sizeof *mem->work);
    mem->order = calloc((size_t)m, sizeof *mem->order);
    mem->out = calloc(LBFGS_NACC(m), sizeof *mem->out);
    if (!mem->out || !mem->s || !mem->y || !mem->es || !mem->ey || !mem->rho || !mem->vs || !mem->vy ||
        !mem->G || !mem->work || !mem->order)
        goto nomem;
    for (int i = 0; i < m; i++) {
        mem->s[i] = crfp_big_alloc(n * sizeof(uint16_t));
        mem->y[i] = crfp_big_alloc(n * sizeof(uint16_t));
        if (!mem->s[i] || !mem->y[i])
            goto nomem;
    }
    if (!(mem->x0 = crfp_big_alloc(n * sizeof(double))))
        goto nomem;
    return CRFP_OK;
nomem:
    lbfgs_mem_free(mem);
    return crfp_error(host, CRFP_ENOMEM,
                      "lbfgs: out of memory allocating %d correction pairs of %zu weights", m,
                      n);
}

void lbfgs_mem_free(lbfgs_mem *mem)
{
    for (int i = 0; i < mem->m; i++) {
        if (mem->s)
            free(mem->s[i]);
        if (mem->y)
            free(mem->y[i]);
    }
    free(mem->s);
    free(mem->y);
    free(mem->es);
    free(mem->ey);
    free(mem->rho);
    free(mem->vs);
    free(mem->vy);
    free(mem->G);
    free(mem->work);
    free(mem->order);
    free(mem->out);
    free(mem->x0);
    memset(mem, 0, sizeof *mem);
}

void lbfgs_mem_reset(lbfgs_mem *mem)
{
    mem->count = 0;
}

int lbfgs_mem_slot(const lbfgs_mem *mem, int i)
{
    return (mem->head - mem->count + i + 2 * mem->m) % mem->m;
}

/* The two-loop recursion on coefficients: H·v = cv·v + Σ cs_i s_i + Σ cy_i
 * y_i over the stored pairs, oldest first (cs, cy: count entries each, in
 * the pairs' true scale). */
static void coefficients(lbfgs_mem *mem, double *cv, double *cs, double *cy)
{
    int c = mem->count;
    int *sl = mem->order;
    double *alpha = mem->work + 2 * (size_t)mem->m;
    for (int i = 0; i < c; i++) {
        sl[i] = lbfgs_mem_slot(mem, i);
        cs[i] = cy[i] = 0;
    }
    double qv = 1;
    for (int i = c - 1; i >= 0; i--) {
        int a = sl[i];
        double dot = qv * mem->vs[a];
        for (int j = 0; j < c; j++)
            dot += cs[j] * *lbfgs_mem_gram(mem, a, 0, sl[j], 0) + cy[j] * *lbfgs_mem_gram(mem, a, 0, sl[j], 1);
        alpha[i] = mem->rho[a] * dot;
        cy[i] -= alpha[i];
    }
    qv *= mem->gamma;
    for (int j = 0; j < c; j++) {
        cs[j] *= mem->gamma;
        cy[j] *= mem->gamma;
    }
    for (int i = 0; i < c; i++) {
        int a = sl[i];
        double dot = qv * mem->vy[a];
        for (int j = 0; j < c; j++)
            dot += cs[j] * *lbfgs_mem_gram(mem, a, 1, sl[j], 0) + cy[j] * *lbfgs_mem_gram(mem, a, 1, sl[j], 1);
        cs[i] += alpha[i] - mem->rho[a] * dot;
    }
    *cv = qv;
}

/* --- the direction pass ----------------------------------------------- */

typedef struct dargs {
    const lbfgs_mem *mem;
    const double *x, *g;
    double rho1;
    float *d;
    int c;
    double cv;
    const double *cs, *cy; /* per stored pair, in the halves' scale */
    uint16_t *fs, *fy;     /* the free slot: receives ∇f as floats */
} dargs;

INLINE void direction_body(void *ctx, size_t lo, size_t hi, double *acc, int hw)
{
    const dargs *a = ctx;
    const lbfgs_mem *mem = a->mem;
    const double *restrict x = a->x, *restrict g = a->g;
    double *restrict x0 = mem->x0;
    float *restrict d = a->d;
    const double rho1 = a->rho1;
    double P[CHUNK], D[CHUNK], B[CHUNK], dd = 0;
    const double *pa[1] = {P}, *pb[1] = {D};
    for (size_t j0 = lo; j0 < hi; j0 += CHUNK) {
        size_t len = hi - j0 < CHUNK ? hi - j0 : CHUNK;
        for (size_t t = 0; t < len; t++) {
            P[t] = rho1 > 0 ? owlqn_pgrad(x[j0 + t], g[j0 + t], rho1) : g[j0 + t];
            D[t] = -a->cv * P[t];
        }
        for (int i = 0; i < a->c; i++) {
            int k = mem->order[i];
            axpy_pair(hw, a->cs[i], mem->s[k] + j0, a->cy[i], mem->y[k] + j0, D, B, len);
        }
        /* Only now, every pair's part of this chunk read, may the free
         * slot (the oldest pair's, when the ring is full) take ∇f. */
        for (size_t t = 0; t < len; t++) {
            size_t j = j0 + t;
            double v = D[t];
            if (rho1 > 0 && v * P[t] >= 0)
                v = 0; /* sign(d) must agree with sign(-pg) */
            float df = (float)v;
            d[j] = df;
            D[t] = df;
            x0[j] = x[j];
            lbfgs_g0_put(a->fs, a->fy, j, (float)g[j]);
        }
        dots(1, pa, pb, len, &dd);
    }
    acc[0] += dd;
}

static void k_direction(void *ctx, size_t lo, size_t hi, double *acc)
{
    direction_body(ctx, lo, hi, acc, 0);
}

#ifdef HIST_X86
HW static void k_direction_hw(void *ctx, size_t lo, size_t hi, double *acc)
{
    direction_body(ctx, lo, hi, acc, 1);
}
#else
#define k_direction_hw k_direction
#endif

double lbfgs_direction(lbfgs_mem *mem, const double *x, const double *g, double rho1, float *d)
{
    double *cs = mem->work, *cy = mem->work + mem->m, cv = 1;
    int c = mem->count;
    if (c > 0)
        coefficients(mem, &cv, cs, cy);
    for (int i = 0; i < c; i++) {
        int k = mem->order[i];
        cs[i] = ldexp(cs[i], mem->es[k]);
        cy[i] = ldexp(cy[i], mem->ey[k]);
    }
    /* The oldest pair leaves when the ring is full: at most m - 1 pairs
     * are kept while the line search runs, and its slot holds ∇f. */
    if (mem->count == mem->m)
        mem->count--;
    dargs a = {mem, x, g, rho1, d, c, cv, cs, cy, mem->s[mem->head], mem->y[mem->head]};
    vpool_run(mem->pool, mem->n, mem->hw ? k_direction_hw : k_direction, &a, mem->out, 1);
    return mem->out[0];
}

/* --- the pass that stores a pair -------------------------------------- */

typedef struct cargs {
    const lbfgs_mem *mem;
    const double *x, *g;
    double rho1;
    int c;               /* pairs kept besides the new one (mem->order) */
    uint16_t *fs, *fy;   /* the free slot */
    double ss, sy;       /* encoding scales of the new s and y */
} cargs;

/* ‖x - x0‖², ‖g - g0‖²: the new pair's norms, which set its scales. */
INLINE void norms_body(void *ctx, size_t lo, size_t hi, double *acc)
{
    const cargs *a = ctx;
    const double *restrict x = a->x, *restrict g = a->g, *restrict x0 = a->mem->x0;
    double S[CHUNK], Y[CHUNK];
    const double *pa[2] = {S, Y};
    for (size_t j0 = lo; j0 < hi; j0 += CHUNK) {
        size_t len = hi - j0 < CHUNK ? hi - j0 : CHUNK;
        for (size_t t = 0; t < len; t++) {
            S[t] = x[j0 + t] - x0[j0 + t];
            Y[t] = g[j0 + t] - (double)lbfgs_g0_get(a->fs, a->fy, j0 + t);
        }
        dots(2, pa, pa, len, acc);
    }
}

/* acc: 0 s's, 1 s'y, 2 y'y, 3 ‖pg‖², 4 ‖x‖², 5 v's, 6 v'y, then for each
 * other pair i: 7 + 6i + {s's_i, y's_i, s'y_i, y'y_i, v's_i, v'y_i}; the
 * pair's products in the halves' scale. */
INLINE void commit_body(void *ctx, size_t lo, size_t hi, double *acc, int hw)
{
    const cargs *a = ctx;
    const lbfgs_mem *mem = a->mem;
    const double *restrict x = a->x, *restrict g = a->g, *restrict x0 = mem->x0;
    const double rho1 = a->rho1;
    double S[CHUNK], Y[CHUNK], V[CHUNK], B[CHUNK], tmp[7];
    /* acc order: s's, s'y, y'y, v'v (= ‖pg‖²), x'x, v's, v'y */
    const double *na[7] = {S, S, Y, V, NULL, V, V}, *nb[7] = {S, Y, Y, V, NULL, S, Y};
    for (size_t j0 = lo; j0 < hi; j0 += CHUNK) {
        size_t len = hi - j0 < CHUNK ? hi - j0 : CHUNK;
        for (size_t t = 0; t < len; t++) {
            size_t j = j0 + t;
            S[t] = x[j] - x0[j];
            Y[t] = g[j] - (double)lbfgs_g0_get(a->fs, a->fy, j);
            V[t] = -(rho1 > 0 ? owlqn_pgrad(x[j], g[j], rho1) : g[j]);
        }
        /* ∇f_prev of this chunk is read: the pair may take its place.  The
         * products are those of the stored values, read back. */
        f16_encode(hw, S, a->ss, a->fs + j0, len);
        f16_encode(hw, Y, a->sy, a->fy + j0, len);
        f16_decode(hw, a->fs + j0, S, len);
        f16_decode(hw, a->fy + j0, Y, len);
        na[4] = nb[4] = x + j0;
        dots(7, na, nb, len, acc);
        for (int i = 0; i < a->c; i++) {
            int k = mem->order[i];
            double *o = acc + 7 + 6 * i;
            tmp[0] = tmp[1] = tmp[2] = 0;
            dots3(hw, S, Y, V, mem->s[k] + j0, B, len, tmp);
            o[0] += tmp[0];
            o[1] += tmp[1];
            o[4] += tmp[2];
            tmp[0] = tmp[1] = tmp[2] = 0;
            dots3(hw, S, Y, V, mem->y[k] + j0, B, len, tmp);
            o[2] += tmp[0];
            o[3] += tmp[1];
            o[5] += tmp[2];
        }
    }
}

static void k_norms(void *ctx, size_t lo, size_t hi, double *acc)
{
    norms_body(ctx, lo, hi, acc);
}

static void k_commit(void *ctx, size_t lo, size_t hi, double *acc)
{
    commit_body(ctx, lo, hi, acc, 0);
}

#ifdef HIST_X86
HW static void k_norms_hw(void *ctx, size_t lo, size_t hi, double *acc)
{
    norms_body(ctx, lo, hi, acc);
}

HW static void k_commit_hw(void *ctx, size_t lo, size_t hi, double *acc)
{
    commit_body(ctx, lo, hi, acc, 1);
}
#else
#define k_norms_hw k_norms
#define k_commit_hw k_commit
#endif

/* 2^-e·v has its largest entry at most 2^15 when ‖v‖ <= 2^e: far from the
 * half maximum (65504), with 29 binades of normal halves below it. */
static int scale_exponent(double norm2)
{
    int e = 0;
    if (norm2 > 0)
        frexp(sqrt(norm2), &e);
    return e - 15;
}

int lbfgs_mem_commit(lbfgs_mem *mem, const double *x, const double *g, double rho1,
                     double *pg2, double *x2)
{
    int k = mem->head, c = mem->count;
    for (int i = 0; i < c; i++)
        mem->order[i] = lbfgs_mem_slot(mem, i);
    cargs a = {mem, x, g, rho1, c, mem->s[k], mem->y[k], 1, 1};
    double *out = mem->out;
    vpool_run(mem->pool, mem->n, mem->hw ? k_norms_hw : k_norms, &a, out, 2);
    int es = scale_exponent(out[0]), ey = scale_exponent(out[1]);
    a.ss = ldexp(1, -es);
    a.sy = ldexp(1, -ey);
    vpool_run(mem->pool, mem->n, mem->hw ? k_commit_hw : k_commit, &a, out, 7 + 6 * c);
    *pg2 = out[3];
    *x2 = out[4];
    /* v = -pg at the new point: its products with the pairs kept, whether
     * or not the new one joins them */
    for (int i = 0; i < c; i++) {
        int b = mem->order[i];
        const double *o = out + 7 + 6 * i;
        mem->vs[b] = ldexp(o[4], mem->es[b]);
        mem->vy[b] = ldexp(o[5], mem->ey[b]);
    }
    double sy = ldexp(out[1], es + ey), yy = ldexp(out[2], 2 * ey);
    if (!(yy > 0) || !(sy > CURVATURE_EPS * yy))
        return 0;
    mem->es[k] = es;
    mem->ey[k] = ey;
    *lbfgs_mem_gram(mem, k, 0, k, 0) = ldexp(out[0], 2 * es);
    *lbfgs_mem_gram(mem, k, 0, k, 1) = *lbfgs_mem_gram(mem, k, 1, k, 0) = sy;
    *lbfgs_mem_gram(mem, k, 1, k, 1) = yy;
    for (int i = 0; i < c; i++) {
        int b = mem->order[i];
        const double *o = out + 7 + 6 * i;
        *lbfgs_mem_gram(mem, k, 0, b, 0) = *lbfgs_mem_gram(mem, b, 0, k, 0) = ldexp(o[0], es + mem->es[b]);
        *lbfgs_mem_gram(mem, k, 1, b, 0) = *lbfgs_mem_gram(mem, b, 0, k, 1) = ldexp(o[1], ey + mem->es[b]);
        *lbfgs_mem_gram(mem, k, 0, b, 1) = *lbfgs_mem_gram(mem, b, 1, k, 0) = ldexp(o[2], es + mem->ey[b]);
        *lbfgs_mem_gram(mem, k, 1, b, 1) = *lbfgs_mem_gram(mem, b, 1, k, 1) = ldexp(o[3], ey + mem->ey[b]);
    }
    mem->vs[k] = ldexp(out[5], es);
    mem->vy[k] = ldexp(out[6], ey);
    mem->rho[k] = 1.0 / sy;
    mem->gamma = sy / yy;
    mem->head = (k + 1) % mem->m;
    mem->count++;
    return 1;
}

void lbfgs_mem_pair(const lbfgs_mem *mem, int i, double *s, double *y)
{
    int k = lbfgs_mem_slot(mem, i);
    f16_decode(mem->hw, mem->s[k], s, mem->n);
    f16_decode(mem->hw, mem->y[k], y, mem->n);
    for (size_t j = 0; j < mem->n; j++) {
        s[j] = ldexp(s[j], mem->es[k]);
        y[j] = ldexp(y[j], mem->ey[k]);
    }
}
