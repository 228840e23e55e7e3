/* lbfgs plugin — OWL-QN's pseudo-gradient, direction constraint and
 * orthant projection (Andrew & Gao 2007).  The pseudo-gradient is never
 * stored: each pass recomputes it from θ and ∇f, which costs a few flops
 * per entry but saves a whole vector of memory. */
#include "config.h"
#include "lbfgs_impl.h"

#include <math.h>

#include "vpool.h"

/* Component of the pseudo-gradient of f + c‖·‖₁: the one-sided derivative
 * that points downhill, or 0 when neither side does. */
static inline double pgrad(double x, double g, double c)
{
    if (x > 0)
        return g + c;
    if (x < 0)
        return g - c;
    if (g + c < 0)
        return g + c;
    if (g - c > 0)
        return g - c;
    return 0.0;
}

typedef struct oargs {
    const double *x, *g, *x0, *g0, *dc;
    double *d, *xs, *gs, *xo;
    float *sf, *yf;
    double rho1, a;
} oargs;

static void k_steepest(void *ctx, size_t lo, size_t hi, double *acc)
{
    const oargs *o = ctx;
    const double *restrict x = o->x, *restrict g = o->g;
    double *restrict d = o->d;
    const double rho1 = o->rho1;
    double a = 0, b = 0;
    if (rho1 > 0) {
        for (size_t i = lo; i < hi; i++) {
            double p = pgrad(x[i], g[i], rho1);
            d[i] = -p;
            a += p * p;
            b += x[i] * x[i];
        }
    } else {
        for (size_t i = lo; i < hi; i++) {
            d[i] = -g[i];
            a += g[i] * g[i];
            b += x[i] * x[i];
        }
    }
    acc[0] += a;
    acc[1] += b;
}

void owlqn_steepest(vpool *pool, size_t n, const double *x, const double *g, double rho1,
                    double *d, double *pg2, double *x2)
{
    oargs o = {.x = x, .g = g, .d = d, .rho1 = rho1};
    double out[VPOOL_ACC];
    vpool_run(pool, n, k_steepest, &o, out);
    *pg2 = out[0];
    *x2 = out[1];
}

static void k_constrain_save(void *ctx, size_t lo, size_t hi, double *acc)
{
    const oargs *o = ctx;
    const double *restrict x = o->x, *restrict g = o->g;
    double *restrict d = o->d, *restrict xs = o->xs, *restrict gs = o->gs;
    const double rho1 = o->rho1;
    double dd = 0;
    if (rho1 > 0) {
        for (size_t i = lo; i < hi; i++) {
            double p = pgrad(x[i], g[i], rho1);
            double v = d[i];
            if (v * p >= 0)
                v = 0; /* sign(d) must agree with sign(-pg) */
            d[i] = v;
            dd += p * v;
            xs[i] = x[i];
            gs[i] = g[i];
        }
    } else {
        for (size_t i = lo; i < hi; i++) {
            dd += g[i] * d[i];
            xs[i] = x[i];
            gs[i] = g[i];
        }
    }
    acc[0] += dd;
}

double owlqn_constrain_save(vpool *pool, size_t n, const double *x, const double *g,
                            double rho1, double *d, double *xs, double *gs)
{
    oargs o = {.x = x, .g = g, .d = d, .xs = xs, .gs = gs, .rho1 = rho1};
    double out[VPOOL_ACC];
    vpool_run(pool, n, k_constrain_save, &o, out);
    return out[0];
}

static void k_trial(void *ctx, size_t lo, size_t hi, double *acc)
{
    const oargs *o = ctx;
    const double *restrict x0 = o->x0, *restrict g0 = o->g0, *restrict d = o->dc;
    double *restrict x = o->xo;
    const double rho1 = o->rho1, a = o->a;
    if (rho1 > 0) {
        double s = 0, t = 0;
        for (size_t i = lo; i < hi; i++) {
            double p = pgrad(x0[i], g0[i], rho1);
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

void owlqn_trial(vpool *pool, size_t n, const double *x0, const double *g0, const double *d,
                 double dd0, double a, double rho1, double *x, double *dd, double *l1)
{
    oargs o = {.x0 = x0, .g0 = g0, .dc = d, .xo = x, .rho1 = rho1, .a = a};
    double out[VPOOL_ACC];
    vpool_run(pool, n, k_trial, &o, out);
    /* Without the projection the step is exactly a·d: the predicted
     * decrease is a·(g0'd), known without another pass over g0. */
    *dd = rho1 > 0 ? out[0] : a * dd0;
    *l1 = out[1];
}

/* The new pair (s = x − x0, y = g − g0, differences taken in double and
 * then rounded to the ring's single precision) and the steepest direction
 * at x, in one pass over the vectors the two steps share.  The products
 * are those of the rounded pair: ρ = 1/s'y and γ then describe exactly the
 * pair the recursion will use, so H stays positive definite. */
static void k_pair_steepest(void *ctx, size_t lo, size_t hi, double *acc)
{
    const oargs *o = ctx;
    const double *restrict x = o->x, *restrict g = o->g;
    const double *restrict x0 = o->x0, *restrict g0 = o->g0;
    double *restrict d = o->d;
    float *restrict s = o->sf, *restrict y = o->yf;
    const double rho1 = o->rho1;
    double sy = 0, yy = 0, pp = 0, xx = 0, sd = 0;
    for (size_t i = lo; i < hi; i++) {
        /* The products take the stored values, read back.  (Kept in a
         * float local instead, GCC 12 -O2 used the unrounded difference
         * for s in them: s'y then belonged to no stored pair.) */
        s[i] = (float)(x[i] - x0[i]);
        y[i] = (float)(g[i] - g0[i]);
        double si = s[i], yi = y[i];
        double p = rho1 > 0 ? pgrad(x[i], g[i], rho1) : g[i];
        d[i] = -p;
        sy += si * yi;
        yy += yi * yi;
        pp += p * p;
        xx += x[i] * x[i];
        sd -= si * p;
    }
    acc[0] += sy;
    acc[1] += yy;
    acc[2] += pp;
    acc[3] += xx;
    acc[4] += sd;
}

void owlqn_pair_steepest(vpool *pool, size_t n, const double *x, const double *g, double rho1,
                         const double *x0, const double *g0, float *s, float *y, double *d,
                         double out[5])
{
    oargs o = {.x = x, .g = g, .x0 = x0, .g0 = g0, .d = d, .sf = s, .yf = y, .rho1 = rho1};
    double acc[VPOOL_ACC];
    vpool_run(pool, n, k_pair_steepest, &o, acc);
    for (int k = 0; k < 5; k++)
        out[k] = acc[k];
}
