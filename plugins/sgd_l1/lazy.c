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
 * ℓ1-SGD does and why it produces few exact zeros. */
static inline void clip(double *th, double *q, double u)
{
    double z = *th, v;
    if (z > 0) {
        v = z - (u + *q);
        if (v < 0)
            v = 0;
    } else if (z < 0) {
        v = z + (u - *q);
        if (v > 0)
            v = 0;
    } else {
        return;
    }
    *th = v;
    *q += v - z;
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

void sgd_lazy_block(sgd_lazy *lz, uint32_t b, double eta, const double *g)
{
    size_t lo = lz->block_start[b], n = lz->block_start[b + 1] - lo;
    double *th = lz->theta + lo;
    /* The decay since the block's last update, all steps at once: the
     * product of the a_s, P_now / P_then.  The same factor scales the
     * applied penalty q, which lives in θ units. */
    if (lz->l2) {
        double r = lz->P / lz->pref[b];
        if (r != 1.0) {
            for (size_t k = 0; k < n; k++)
                th[k] *= r;
            if (lz->l1) {
                double *q = lz->q + lo;
                for (size_t k = 0; k < n; k++)
                    q[k] *= r;
            }
        }
        lz->pref[b] = lz->P;
    }
    if (g)
        for (size_t k = 0; k < n; k++)
            th[k] -= eta * g[k];
    if (lz->l1) {
        double *q = lz->q + lo, u = lz->P * lz->U;
        for (size_t k = 0; k < n; k++)
            clip(&th[k], &q[k], u);
    }
}

void sgd_lazy_peek(const sgd_lazy *lz, uint32_t b, double *out)
{
    size_t lo = lz->block_start[b], n = lz->block_start[b + 1] - lo;
    double r = lz->l2 ? lz->P / lz->pref[b] : 1.0, u = lz->P * lz->U;
    for (size_t k = 0; k < n; k++) {
        double th = lz->theta[lo + k] * r;
        if (lz->l1) {
            double q = lz->q[lo + k] * r;
            clip(&th, &q, u);
        }
        out[k] = th;
    }
}

void sgd_lazy_fold(sgd_lazy *lz, double *l1, double *l2, size_t *nnz)
{
    double s1 = 0, s2 = 0;
    size_t nz = 0;
    for (size_t b = 0; b < lz->nblocks; b++) {
        sgd_lazy_block(lz, (uint32_t)b, 0, NULL);
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
