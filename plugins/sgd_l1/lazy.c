/* sgd_l1 — the lazy cumulative-ℓ1 / exact-ℓ2 bookkeeping (see sgd_impl.h
 * for the dense algorithm it reproduces and why the lazy form is exact).
 *
 * Cost: a step touches only the blocks of its sequences, O(their length),
 * like the gradient itself; the O(dim) work is one fold per epoch.
 */
#include "config.h"
#include "sgd_impl.h"

#include <stdlib.h>
#include <string.h>

/* Tsuruoka's clip of one weight against the total penalty u it could have
 * received, q being what it did receive.  The weight moves towards zero by
 * at most its remaining debt and never crosses it: crossing is what plain
 * ℓ1-SGD does and why it produces few exact zeros.  Written without
 * branches (selects the compiler turns into conditional moves or blends):
 * the sign of a weight is unpredictable and this loop runs over every
 * weight a step touches, twice. */
static inline double clip(double z, double *q, double u)
{
    double dp = z - (u + *q), dn = z + (u - *q);
    dp = dp > 0 ? dp : 0;
    dn = dn < 0 ? dn : 0;
    double v = z > 0 ? dp : z < 0 ? dn : 0;
    *q += v - z;
    return v;
}

/* The fused update of one block of n weights: decay by r, step -eta·g (g
 * may be NULL), clip against u when l1.  The arithmetic (and its order) is
 * the same in every variant, so that peeking, catching up and stepping give
 * the same bits. */
static inline void kernel(double *restrict th, double *restrict q, size_t n, double r,
                          double eta, const double *restrict g, double u, int l1)
{
    for (size_t k = 0; k < n; k++) {
        double t = th[k] * r;
        if (g)
            t -= eta * g[k];
        if (l1) {
            double qq = q[k] * r;
            t = clip(t, &qq, u);
            q[k] = qq;
        }
        th[k] = t;
    }
}

crfp_status sgd_lazy_init(sgd_lazy *lz, size_t dim, size_t nblocks,
                          const uint64_t *block_start, double *theta, int l1, int l2)
{
    memset(lz, 0, sizeof *lz);
    lz->dim = dim;
    lz->nblocks = nblocks;
    lz->block_start = block_start;
    lz->theta = theta;
    lz->P = 1.0;
    lz->U = 0.0;
    lz->l1 = l1;
    lz->l2 = l2;
    /* q is only read by the clip, so pure ℓ2 runs do without it. */
    if (l1 && !(lz->q = crfp_big_calloc(dim ? dim : 1, sizeof *lz->q)))
        return CRFP_ENOMEM;
    if (l2) {
        if (!(lz->pref = malloc((nblocks ? nblocks : 1) * sizeof *lz->pref))) {
            sgd_lazy_free(lz);
            return CRFP_ENOMEM;
        }
        for (size_t b = 0; b < nblocks; b++)
            lz->pref[b] = 1.0;
    }
    return CRFP_OK;
}

void sgd_lazy_free(sgd_lazy *lz)
{
    if (!lz)
        return;
    free(lz->q);
    free(lz->pref);
    lz->q = NULL;
    lz->pref = NULL;
}

void sgd_lazy_advance(sgd_lazy *lz, double a, double c)
{
    lz->P *= a;
    /* c / P: the step's penalty in w units (θ = P·w). */
    lz->U += c / lz->P;
}

/* sgd_lazy_block, with `force` to catch up a block of zeros too (the fold
 * resets every pref[b], so no decay may stay pending there). */
static void update(sgd_lazy *lz, uint32_t b, double eta, const double *g, int force)
{
    size_t lo = lz->block_start[b], n = lz->block_start[b + 1] - lo;
    double *th = lz->theta + lo, *q = lz->l1 ? lz->q + lo : NULL;
    /* Catching up a block of zeros changes nothing: decay keeps zeros and
     * the clip skips them.  Leaving pref[b] alone keeps the decay its q
     * owes pending (it is applied through P / pref[b] when the block next
     * changes), so q need not even be read — and most blocks are zero
     * under ℓ1, while reading q is a second cache miss per block. */
    if (!g && !force) {
        size_t k = 0;
        while (k < n && th[k] == 0)
            k++;
        if (k == n)
            return;
    }
    /* The decay since the block's last update, all steps at once: the
     * product of the a_s, P_now / P_then.  The same factor scales the
     * applied penalty q, which lives in θ units. */
    double r = 1.0;
    if (lz->l2) {
        r = lz->P / lz->pref[b];
        lz->pref[b] = lz->P;
    }
    double u = lz->P * lz->U;
    /* Constant arguments let the compiler specialise each variant. */
    if (lz->l1) {
        if (g)
            kernel(th, q, n, r, eta, g, u, 1);
        else
            kernel(th, q, n, r, 0, NULL, u, 1);
    } else if (g) {
        kernel(th, NULL, n, r, eta, g, 0, 0);
    } else if (r != 1.0) {
        kernel(th, NULL, n, r, 0, NULL, 0, 0);
    }
}

void sgd_lazy_block(sgd_lazy *lz, uint32_t b, double eta, const double *g)
{
    update(lz, b, eta, g, 0);
}

void sgd_lazy_peek(const sgd_lazy *lz, uint32_t b, double *out)
{
    size_t lo = lz->block_start[b], n = lz->block_start[b + 1] - lo;
    double r = lz->l2 ? lz->P / lz->pref[b] : 1.0, u = lz->P * lz->U;
    for (size_t k = 0; k < n; k++) {
        double t = lz->theta[lo + k] * r;
        if (lz->l1) {
            double q = lz->q[lo + k] * r;
            t = clip(t, &q, u);
        }
        out[k] = t;
    }
}

void sgd_lazy_fold(sgd_lazy *lz, double *l1, double *l2, size_t *nnz)
{
    double s1 = 0, s2 = 0;
    size_t nz = 0;
    for (size_t b = 0; b < lz->nblocks; b++) {
        update(lz, (uint32_t)b, 0, NULL, 1);
        const double *th = lz->theta + lz->block_start[b];
        size_t n = lz->block_start[b + 1] - lz->block_start[b];
        for (size_t k = 0; k < n; k++) {
            double v = th[k];
            s1 += v < 0 ? -v : v;
            s2 += v * v;
            nz += v != 0;
        }
    }
    /* New frame: every block is at P, so rescaling P to 1 only changes the
     * unit of U (u = P·U stays the same number of θ units) and resets
     * every block's reference.  This keeps P far from underflow however
     * long training runs. */
    if (lz->l2) {
        lz->U *= lz->P;
        lz->P = 1.0;
        for (size_t b = 0; b < lz->nblocks; b++)
            lz->pref[b] = 1.0;
    }
    if (l1)
        *l1 = s1;
    if (l2)
        *l2 = s2;
    if (nnz)
        *nnz = nz;
}
