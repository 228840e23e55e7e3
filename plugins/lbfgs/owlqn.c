/* lbfgs plugin — OWL-QN's pseudo-gradient, direction constraint and
 * orthant projection (Andrew & Gao 2007).  The pseudo-gradient is never
 * stored: each pass recomputes it from θ and ∇f, which costs a few flops
 * per entry but saves a whole vector of memory. */
#include "config.h"
#include "lbfgs_impl.h"

#include <math.h>

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

void owlqn_steepest(size_t n, const double *restrict x, const double *restrict g, double rho1,
                    double *restrict d, double *pg2, double *x2)
{
    double a = 0, b = 0;
    if (rho1 > 0) {
        for (size_t i = 0; i < n; i++) {
            double p = pgrad(x[i], g[i], rho1);
            d[i] = -p;
            a += p * p;
            b += x[i] * x[i];
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            d[i] = -g[i];
            a += g[i] * g[i];
            b += x[i] * x[i];
        }
    }
    *pg2 = a;
    *x2 = b;
}

double owlqn_constrain_save(size_t n, const double *restrict x, const double *restrict g,
                            double rho1, double *restrict d, double *restrict xs,
                            double *restrict gs)
{
    double dd = 0;
    if (rho1 > 0) {
        for (size_t i = 0; i < n; i++) {
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
        for (size_t i = 0; i < n; i++) {
            dd += g[i] * d[i];
            xs[i] = x[i];
            gs[i] = g[i];
        }
    }
    return dd;
}

void owlqn_trial(size_t n, const double *restrict x0, const double *restrict g0,
                 const double *restrict d, double a, double rho1, double *restrict x,
                 double *dd, double *l1)
{
    double s = 0, t = 0;
    if (rho1 > 0) {
        for (size_t i = 0; i < n; i++) {
            double p = pgrad(x0[i], g0[i], rho1);
            /* orthant: sign of x0, or of -pg where x0 is zero */
            double o = x0[i] != 0 ? x0[i] : -p;
            double v = x0[i] + a * d[i];
            if (v * o <= 0)
                v = 0;
            x[i] = v;
            s += p * (v - x0[i]);
            t += fabs(v);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            x[i] = x0[i] + a * d[i];
            s += g0[i] * d[i];
        }
        s *= a;
    }
    *dd = s;
    *l1 = t;
}
