/* lbfgs plugin — the correction-pair ring and the two-loop recursion. */
#include "config.h"
#include "lbfgs_impl.h"
#include "vecops.h"
#include "crfpipe/alloc.h"

#include <stdlib.h>
#include <string.h>

/* A pair whose s'y is this small relative to y'y carries no reliable
 * curvature: storing it would make H nearly singular or indefinite. */
#define CURVATURE_EPS 1e-10

crfp_status lbfgs_mem_init(crfp_host *host, lbfgs_mem *mem, size_t n, int m)
{
    memset(mem, 0, sizeof *mem);
    mem->n = n;
    mem->m = m;
    mem->s = calloc((size_t)m, sizeof *mem->s);
    mem->y = calloc((size_t)m, sizeof *mem->y);
    mem->rho = calloc((size_t)m, sizeof *mem->rho);
    mem->alpha = calloc((size_t)m, sizeof *mem->alpha);
    if (!mem->s || !mem->y || !mem->rho || !mem->alpha)
        goto nomem;
    for (int i = 0; i < m; i++) {
        mem->s[i] = crfp_big_alloc(n * sizeof(float));
        mem->y[i] = crfp_big_alloc(n * sizeof(float));
        if (!mem->s[i] || !mem->y[i])
            goto nomem;
    }
    mem->xs = crfp_big_alloc(n * sizeof(double));
    mem->gs = crfp_big_alloc(n * sizeof(double));
    if (!mem->xs || !mem->gs)
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
    free(mem->xs);
    free(mem->gs);
    free(mem->rho);
    free(mem->alpha);
    memset(mem, 0, sizeof *mem);
}

void lbfgs_mem_reset(lbfgs_mem *mem)
{
    mem->count = 0;
    mem->sd_valid = 0;
}

int lbfgs_mem_reserve(lbfgs_mem *mem)
{
    if (mem->count == mem->m)
        mem->count--;
    return mem->head;
}

int lbfgs_mem_commit(lbfgs_mem *mem, const double *x, const double *g, double rho1, double *d,
                     double *pg2, double *x2)
{
    int k = mem->head;
    double r[5];
    owlqn_pair_steepest(mem->pool, mem->n, x, g, rho1, mem->xs, mem->gs, mem->s[k], mem->y[k], d,
                        r);
    double sy = r[0], yy = r[1];
    *pg2 = r[2];
    *x2 = r[3];
    mem->sd_valid = 0;
    if (!(yy > 0) || !(sy > CURVATURE_EPS * yy))
        return 0;
    mem->rho[k] = 1.0 / sy;
    mem->gamma = sy / yy;
    mem->head = (k + 1) % mem->m;
    mem->count++;
    /* The two-loop recursion starts with exactly this product. */
    mem->sd = r[4];
    mem->sd_valid = 1;
    return 1;
}

/* Index of the i-th stored pair, 0 = oldest. */
static int slot(const lbfgs_mem *mem, int i)
{
    return (mem->head - mem->count + i + 2 * mem->m) % mem->m;
}

/* Each loop step's dot product is fused into the previous step's update of
 * d, so the recursion costs 2·count + 1 passes instead of 4·count. */
void lbfgs_twoloop(lbfgs_mem *mem, double *d)
{
    int c = mem->count;
    size_t n = mem->n;
    if (c == 0)
        return;
    int k = slot(mem, c - 1);
    double dot = mem->sd_valid ? mem->sd : vec_dot_f(mem->pool, n, mem->s[k], d);
    mem->sd_valid = 0;
    for (int i = c - 1; i >= 0; i--) {
        k = slot(mem, i);
        double a = mem->rho[k] * dot;
        mem->alpha[i] = a;
        if (i > 0)
            dot = vec_axpy_dot_f(mem->pool, n, -a, mem->y[k], d, mem->s[slot(mem, i - 1)]);
        else
            dot = vec_axpy_scale_dot_f(mem->pool, n, -a, mem->y[k], mem->gamma, d, mem->y[k]);
    }
    for (int i = 0; i < c; i++) {
        k = slot(mem, i);
        double b = mem->rho[k] * dot;
        const float *next = i + 1 < c ? mem->y[slot(mem, i + 1)] : NULL;
        dot = vec_axpy_dot_f(mem->pool, n, mem->alpha[i] - b, mem->s[k], d, next);
    }
}
