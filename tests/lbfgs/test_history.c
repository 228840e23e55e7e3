/* The correction pairs are stored in single precision (lbfgs_mem in
 * lbfgs_impl.h).  This test checks the two claims that choice rests on:
 *  1. the two-loop recursion over the stored pairs is, to double rounding,
 *     the textbook recursion in double over the same (rounded) pairs: only
 *     the storage is single precision, never the arithmetic;
 *  2. the minimizer reaches the same optimum as an L-BFGS keeping its pairs
 *     in double (a plain implementation written here, independent of the
 *     plugin's), on an ill-conditioned logistic regression and on
 *     Rosenbrock, to within the tolerance both are run to, and in a
 *     comparable number of iterations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems.h"

/* --- 1. the recursion ------------------------------------------------------ */

static void test_twoloop(void)
{
    const size_t n = 1000;
    const int m = 4;
    rng r = {99};
    lbfgs_mem mem;
    CHECK(lbfgs_mem_init(NULL, &mem, n, m) == CRFP_OK, "mem_init");
    double *x = malloc(n * sizeof *x), *g = malloc(n * sizeof *g);
    double *d = malloc(n * sizeof *d), *ref = malloc(n * sizeof *ref);
    double S[4][1000], Yv[4][1000], rho[4], alpha[4];
    /* pairs from a quadratic with a diagonal Hessian over 2 orders of
     * magnitude, so that s'y > 0 holds and the recursion's own rounding
     * (amplified by the conditioning) stays near 1e-16: arithmetic in
     * single precision would show as differences of 1e-6 */
    double *h = malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = pow(10.0, 2.0 * rng_uniform(&r) - 1.0);
    int kept = 0;
    for (int k = 0; k < m; k++) {
        lbfgs_mem_reserve(&mem);
        for (size_t i = 0; i < n; i++) {
            mem.xs[i] = rng_normal(&r);
            mem.gs[i] = h[i] * mem.xs[i];
            x[i] = mem.xs[i] + 1e-3 * rng_normal(&r);
            g[i] = h[i] * x[i];
        }
        int slot = mem.head;
        double pg2, x2;
        kept += lbfgs_mem_commit(&mem, x, g, 0.0, d, &pg2, &x2);
        for (size_t i = 0; i < n; i++) {
            S[k][i] = mem.s[slot][i];
            Yv[k][i] = mem.y[slot][i];
        }
    }
    CHECK(kept == m, "%d of %d pairs kept", kept, m);
    for (size_t i = 0; i < n; i++)
        d[i] = ref[i] = rng_normal(&r);
    mem.sd_valid = 0;
    lbfgs_twoloop(&mem, d);
    /* textbook two-loop, all in double over the rounded pairs */
    for (int k = m - 1; k >= 0; k--) {
        double sy = 0, sq = 0;
        for (size_t i = 0; i < n; i++) {
            sy += S[k][i] * Yv[k][i];
            sq += S[k][i] * ref[i];
        }
        rho[k] = 1 / sy;
        alpha[k] = rho[k] * sq;
        for (size_t i = 0; i < n; i++)
            ref[i] -= alpha[k] * Yv[k][i];
    }
    double sy = 0, yy = 0;
    for (size_t i = 0; i < n; i++) {
        sy += S[m - 1][i] * Yv[m - 1][i];
        yy += Yv[m - 1][i] * Yv[m - 1][i];
    }
    for (size_t i = 0; i < n; i++)
        ref[i] *= sy / yy;
    for (int k = 0; k < m; k++) {
        double yq = 0;
        for (size_t i = 0; i < n; i++)
            yq += Yv[k][i] * ref[i];
        double b = rho[k] * yq;
        for (size_t i = 0; i < n; i++)
            ref[i] += (alpha[k] - b) * S[k][i];
    }
    double err = 0, norm = 0;
    for (size_t i = 0; i < n; i++) {
        err = fmax(err, fabs(d[i] - ref[i]));
        norm = fmax(norm, fabs(ref[i]));
    }
    CHECK(err <= 1e-13 * norm, "two-loop differs from the double recursion: %g of %g", err,
          norm);
    printf("two-loop over float pairs: max difference %.3g of max |Hd| %.3g\n", err, norm);
    lbfgs_mem_free(&mem);
    free(h);
    free(x);
    free(g);
    free(d);
    free(ref);
}

/* --- 2. the optimum -------------------------------------------------------- */

/* Plain L-BFGS with double pairs: two-loop, backtracking Armijo from the
 * unit step, stop when ‖g‖ <= gtol or after maxit iterations.  Returns the
 * iterations. */
static int lbfgs_double(const problem *p, double *x, int m, double gtol, int maxit)
{
    size_t n = p->dim;
    double *g = malloc(n * sizeof *g), *d = malloc(n * sizeof *d);
    double *xn = malloc(n * sizeof *xn), *gn = malloc(n * sizeof *gn);
    double *S = malloc((size_t)m * n * sizeof *S), *Yv = malloc((size_t)m * n * sizeof *Yv);
    double *rho = malloc((size_t)m * sizeof *rho), *alpha = malloc((size_t)m * sizeof *alpha);
    int count = 0, head = 0, it = 0;
    double f = problem_f(p, x, g);
    for (; it < maxit; it++) {
        double gg = 0;
        for (size_t i = 0; i < n; i++)
            gg += g[i] * g[i];
        if (sqrt(gg) <= gtol)
            break;
        for (size_t i = 0; i < n; i++)
            d[i] = -g[i];
        for (int c = count - 1; c >= 0; c--) {
            int k = (head - count + c + m) % m;
            double sq = 0;
            for (size_t i = 0; i < n; i++)
                sq += S[(size_t)k * n + i] * d[i];
            alpha[c] = rho[k] * sq;
            for (size_t i = 0; i < n; i++)
                d[i] -= alpha[c] * Yv[(size_t)k * n + i];
        }
        if (count) {
            int k = (head - 1 + m) % m;
            double sy = 0, yy = 0;
            for (size_t i = 0; i < n; i++) {
                sy += S[(size_t)k * n + i] * Yv[(size_t)k * n + i];
                yy += Yv[(size_t)k * n + i] * Yv[(size_t)k * n + i];
            }
            for (size_t i = 0; i < n; i++)
                d[i] *= sy / yy;
        }
        for (int c = 0; c < count; c++) {
            int k = (head - count + c + m) % m;
            double yq = 0;
            for (size_t i = 0; i < n; i++)
                yq += Yv[(size_t)k * n + i] * d[i];
            double b = rho[k] * yq;
            for (size_t i = 0; i < n; i++)
                d[i] += (alpha[c] - b) * S[(size_t)k * n + i];
        }
        double gd = 0;
        for (size_t i = 0; i < n; i++)
            gd += g[i] * d[i];
        double a = count ? 1.0 : fmin(1.0, 1.0 / sqrt(gg)), fn = f;
        int ok = 0;
        for (int t = 0; t < 40 && !ok; t++, a *= 0.5) {
            for (size_t i = 0; i < n; i++)
                xn[i] = x[i] + a * d[i];
            fn = problem_f(p, xn, gn);
            ok = fn <= f + 1e-4 * a * gd;
        }
        if (!ok)
            break;
        double sy = 0, yy = 0;
        for (size_t i = 0; i < n; i++) {
            double si = xn[i] - x[i], yi = gn[i] - g[i];
            S[(size_t)head * n + i] = si;
            Yv[(size_t)head * n + i] = yi;
            sy += si * yi;
            yy += yi * yi;
        }
        if (sy > 1e-10 * yy) {
            rho[head] = 1 / sy;
            head = (head + 1) % m;
            if (count < m)
                count++;
        }
        memcpy(x, xn, n * sizeof *x);
        memcpy(g, gn, n * sizeof *g);
        f = fn;
    }
    free(g);
    free(d);
    free(xn);
    free(gn);
    free(S);
    free(Yv);
    free(rho);
    free(alpha);
    return it;
}

static void compare(crfp_host *host, problem *p, const char *name, double tol)
{
    size_t n = p->dim;
    double *x = calloc(n, sizeof *x), *xr = calloc(n, sizeof *xr);
    if (p->type == P_ROSEN)
        for (size_t i = 0; i < n; i += 2) {
            x[i] = xr[i] = -1.2;
            x[i + 1] = xr[i + 1] = 1.0;
        }
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    o.epsilon = 0;
    o.gtol = 1e-10;
    o.max_iter = 5000;
    lbfgs_objective obj = problem_objective(p, 0.0);
    p->host = host;
    p->F0 = problem_f(p, x, NULL);
    CHECK(lbfgs_minimize(host, &o, &obj, x) == CRFP_OK, "%s: %s", name, crfp_errmsg(host));
    int iters_ref = lbfgs_double(p, xr, o.m, 1e-10, 5000);
    double err = 0, scale = 1;
    for (size_t i = 0; i < n; i++) {
        err = fmax(err, fabs(x[i] - xr[i]));
        scale = fmax(scale, fabs(xr[i]));
    }
    double f = problem_f(p, x, NULL), fr = problem_f(p, xr, NULL);
    CHECK(err <= tol * scale, "%s: max |x - x_double| = %g (scale %g)", name, err, scale);
    CHECK(fabs(f - fr) <= 1e-10 * fmax(1.0, fabs(fr)), "%s: F %.17g, double history %.17g", name,
          f, fr);
    /* same order of work: at most twice the reference's iterations */
    CHECK(p->iters <= 2 * iters_ref + 10, "%s: %d iterations, double history %d", name, p->iters,
          iters_ref);
    printf("%s: float history %d iterations, double history %d; max |x - x_double| %.3g, "
           "F %.12g vs %.12g\n",
           name, p->iters, iters_ref, err, f, fr);
    free(x);
    free(xr);
}

int main(void)
{
    crfp_host *host = crfp_host_new();
    if (!host)
        return 99;
    crfp_host_set_verbosity(host, CRFP_LOG_WARN);
    test_twoloop();
    problem p;
    problem_logit(&p, 400, 60, 1e-3, 2024);
    /* both stop at a gradient of ~1e-10·‖θ‖ on curvature down to rho2:
     * their iterates may differ by up to ~1e-5 along the flattest
     * direction, F by nothing measurable */
    compare(host, &p, "logistic, rho2 = 1e-3", 1e-5);
    problem_free(&p);
    problem_rosen(&p, 20);
    compare(host, &p, "Rosenbrock 20", 1e-6);
    problem_free(&p);
    crfp_host_free(host);
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
