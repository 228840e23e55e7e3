/* lbfgs plugin — OWL-QN's passes besides the direction (Andrew & Gao
 * 2007): the norms at the start, the projected trial points of the line
 * search, and ‖θ‖₁.  The pseudo-gradient (owlqn_pgrad) is never stored:
 * each pass recomputes it from θ and ∇f, which costs a few flops per entry
 * but saves a whole vector of memory. */
#include "config.h"
#include "lbfgs_impl.h"

#include <math.h>

#include "vpool.h"

typedef struct oargs {
    const double *x, *g, *x0;
    const uint16_t *g0hi, *g0lo;
    const float *d;
    double *xo;
    double rho1, a;
} oargs;

static void k_norms(void *ctx, size_t lo, size_t hi, double *acc)
{
    const oargs *o = ctx;
    const double *restrict x = o->x, *restrict g = o->g;
    const double rho1 = o->rho1;
    double a = 0, b = 0;
    for (size_t i = lo; i < hi; i++) {
        double p = rho1 > 0 ? owlqn_pgrad(x[i], g[i], rho1) : g[i];
        a += p * p;
        b += x[i] * x[i];
    }
    acc[0] += a;
    acc[1] += b;
}

void owlqn_norms(vpool *pool, size_t n, const double *x, const double *g, double rho1,
                 double *pg2, double *x2)
{
    oargs o = {.x = x, .g = g, .rho1 = rho1};
    double out[2];
    vpool_run(pool, n, k_norms, &o, out, 2);
    *pg2 = out[0];
    *x2 = out[1];
}

static void k_trial(void *ctx, size_t lo, size_t hi, double *acc)
{
    const oargs *o = ctx;
    const double *restrict x0 = o->x0;
    const float *restrict d = o->d;
    double *restrict x = o->xo;
    const double rho1 = o->rho1, a = o->a;
    if (rho1 > 0) {
        double s = 0, t = 0;
        for (size_t i = lo; i < hi; i++) {
            double p = owlqn_pgrad(x0[i], lbfgs_g0_get(o->g0hi, o->g0lo, i), rho1);
            /* orthant: sign of x0, or of -pg where x0 is zero */
            double or = x0[i] != 0 ? x0[i] : -p;
            double v = x0[i] + a * d[i];
            if (v * or <= 0)
                v = 0;
            x[i] = v;
            s += p * (v - x0[i]);
            t += fabs(v);
        }
        acc[0] += s;
        acc[1] += t;
    } else {
        for (size_t i = lo; i < hi; i++)
            x[i] = x0[i] + a * d[i];
    }
}

void owlqn_trial(vpool *pool, size_t n, const double *x0, const uint16_t *g0hi,
                 const uint16_t *g0lo, const float *d, double dd0, double a, double rho1,
                 double *x, double *dd, double *l1)
{
    oargs o = {.x0 = x0, .g0hi = g0hi, .g0lo = g0lo, .d = d, .xo = x, .rho1 = rho1, .a = a};
    double out[2];
    vpool_run(pool, n, k_trial, &o, out, 2);
    /* Without the projection the step is exactly a·d: the predicted
     * decrease is a·(g0'd), known without another pass over g0. */
    *dd = rho1 > 0 ? out[0] : a * dd0;
    *l1 = out[1];
}

static void k_l1(void *ctx, size_t lo, size_t hi, double *acc)
{
    const double *restrict x = ((const oargs *)ctx)->x;
    double s = 0;
    for (size_t i = lo; i < hi; i++)
        s += fabs(x[i]);
    acc[0] += s;
}

double owlqn_l1(vpool *pool, size_t n, const double *x)
{
    oargs o = {.x = x};
    double out[1];
    vpool_run(pool, n, k_l1, &o, out, 1);
    return out[0];
}
