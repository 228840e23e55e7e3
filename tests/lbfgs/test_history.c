/* The correction pairs are stored in half precision and the direction is
 * computed from their inner products (history.c).  This test checks the
 * claims that choice rests on:
 *  0. the half conversions: the portable one rounds every float to the
 *     nearest half, ties to even, and the F16C one gives the same bits;
 *  1. a stored pair is the exact difference rounded once to half (y: the
 *     new gradient minus the old one rounded to float), and the direction
 *     is, to float rounding, the textbook two-loop recursion in double
 *     over the stored pairs: the storage is narrow, never the arithmetic;
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
#include "f16.h"

/* --- 0. half conversions ------------------------------------------------- */

static void test_f16(void)
{
    int hw = f16_hw();
    /* every half decodes exactly, and the same both ways */
    for (uint32_t h = 0; h < 65536; h++) {
        float f = f16_to_float((uint16_t)h);
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu))
            continue; /* NaNs */
        CHECK(f16_from_float(f) == h, "half %04x -> %g -> %04x", h, f, f16_from_float(f));
        uint16_t hh = (uint16_t)h;
        double v;
        f16_decode(hw, &hh, &v, 1);
        CHECK(v == (double)f, "half %04x: decoded %g, expected %g", h, v, f);
    }
    /* nearest, ties to even, against the neighbours; blocks of 8 take the
     * vector path when there is one */
    rng r = {7};
    enum { N = 1 << 16 };
    double *v = malloc(N * sizeof *v), *back = malloc(N * sizeof *back);
    uint16_t *h = malloc(N * sizeof *h);
    for (int i = 0; i < N; i++) {
        /* magnitudes from 2^-30 to 2^17: zeros, subnormals, normals, the
         * top and overflow; every 4th an exact tie between two halves */
        double m = ldexp(1.0 + rng_uniform(&r), (int)(rng_uniform(&r) * 47) - 30);
        if (i % 4 == 0) {
            uint16_t lo = (uint16_t)(rng_uniform(&r) * 0x7bff);
            m = 0.5 * ((double)f16_to_float(lo) + f16_to_float((uint16_t)(lo + 1)));
        }
        v[i] = i % 2 ? -m : m;
    }
    f16_encode(hw, v, 1.0, h, N);
    int bad = 0;
    for (int i = 0; i < N && bad < 5; i++) {
        float f = (float)v[i];
        uint16_t want = f16_from_float(f);
        if (h[i] != want) {
            bad++;
            CHECK(0, "%.9g: block path %04x, portable %04x", v[i], h[i], want);
        }
        double a = fabs((double)f);
        uint16_t mag = want & 0x7fffu;
        if (mag >= 0x7c00u) {
            CHECK(a >= 65520.0, "%.9g became infinite", (double)f);
            continue;
        }
        double got = f16_to_float(mag), up = f16_to_float((uint16_t)(mag + 1));
        double dn = mag ? f16_to_float((uint16_t)(mag - 1)) : -1.0;
        CHECK(fabs(a - got) <= fabs(a - up) && (mag == 0 || fabs(a - got) <= fabs(a - dn)),
              "%.9g rounded to %.9g, not the nearest half", a, got);
        if (fabs(a - got) == fabs(a - up) || (mag && fabs(a - got) == fabs(a - dn)))
            CHECK((mag & 1u) == 0, "%.9g: tie rounded to odd %04x", a, mag);
    }
    f16_decode(hw, h, back, N);
    for (int i = 0; i < N; i++)
        if (back[i] != (double)f16_to_float(h[i])) {
            CHECK(0, "block decode of %04x: %g", h[i], back[i]);
            break;
        }
    printf("half conversions: %s path agrees with the portable one on %d values\n",
           hw ? "F16C" : "portable", N);
    free(v);
    free(back);
    free(h);
}

/* --- 1. the pairs and the recursion ---------------------------------------- */

static void test_direction(int hw)
{
    const size_t n = 1000;
    const int m = 4;
    rng r = {99};
    lbfgs_mem mem;
    CHECK(lbfgs_mem_init(NULL, &mem, n, m) == CRFP_OK, "mem_init");
    mem.hw = hw && mem.hw;
    double *x = malloc(n * sizeof *x), *g = malloc(n * sizeof *g);
    double *x1 = malloc(n * sizeof *x1), *g1 = malloc(n * sizeof *g1);
    double *ref = malloc(n * sizeof *ref), *h = malloc(n * sizeof *h);
    float *d = malloc(n * sizeof *d);
    double S[4][1000], Yv[4][1000], ES[4][1000], EY[4][1000], rho[4], alpha[4];
    /* pairs from a quadratic with a diagonal Hessian over 2 orders of
     * magnitude, so that s'y > 0 holds and the recursion's own rounding
     * (amplified by the conditioning) stays near 1e-16 */
    for (size_t i = 0; i < n; i++)
        h[i] = pow(10.0, 2.0 * rng_uniform(&r) - 1.0);
    int kept = 0;
    for (int k = 0; k < m; k++) {
        for (size_t i = 0; i < n; i++) {
            x[i] = rng_normal(&r);
            g[i] = h[i] * x[i];
            /* steps whose entries span 8 orders of magnitude */
            x1[i] = x[i] + 1e-3 * rng_normal(&r) * pow(10.0, -8.0 * rng_uniform(&r));
            g1[i] = h[i] * x1[i];
            ES[k][i] = x1[i] - x[i];
            EY[k][i] = g1[i] - (double)(float)g[i];
        }
        lbfgs_direction(&mem, x, g, 0.0, d);
        for (size_t i = 0; i < n; i++)
            CHECK(mem.x0[i] == x[i], "x0 not saved");
        double pg2, x2;
        kept += lbfgs_mem_commit(&mem, x1, g1, 0.0, &pg2, &x2);
    }
    CHECK(kept == m, "%d of %d pairs kept", kept, m);
    /* each stored entry is the exact difference rounded once, to 11 bits,
     * or below the pair's normal range (2^-14 of its scale 2^(e+15)) */
    for (int k = 0; k < m; k++) {
        lbfgs_mem_pair(&mem, k, S[k], Yv[k]);
        int sl = lbfgs_mem_slot(&mem, k);
        double us = ldexp(1, mem.es[sl] - 25), uy = ldexp(1, mem.ey[sl] - 25);
        for (size_t i = 0; i < n; i++) {
            double fs = fabs((double)(float)ES[k][i] - S[k][i]);
            double fy = fabs((double)(float)EY[k][i] - Yv[k][i]);
            CHECK(fs <= ldexp(fabs(ES[k][i]), -11) + us, "pair %d, s[%zu]: %.17g for %.17g", k,
                  i, S[k][i], ES[k][i]);
            CHECK(fy <= ldexp(fabs(EY[k][i]), -11) + uy, "pair %d, y[%zu]: %.17g for %.17g", k,
                  i, Yv[k][i], EY[k][i]);
        }
    }
    /* the direction at (x1, g1): H·(-g1) */
    for (size_t i = 0; i < n; i++)
        ref[i] = -g1[i];
    lbfgs_direction(&mem, x1, g1, 0.0, d);
    /* textbook two-loop, all in double over the stored pairs */
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
    for (size_t i = 0; i < n; i++)
        norm = fmax(norm, fabs(ref[i]));
    for (size_t i = 0; i < n; i++)
        err = fmax(err, fabs(d[i] - ref[i]) - ldexp(fabs(ref[i]), -24));
    CHECK(err <= 1e-12 * norm, "direction differs from the double recursion by %g (of %g) "
          "beyond its rounding to float", err, norm);
    printf("direction from the pairs' inner products (%s kernels): beyond float rounding, max "
           "difference %.3g of max |Hd| %.3g\n", mem.hw ? "AVX2" : "portable", err, norm);
    lbfgs_mem_free(&mem);
    free(h);
    free(x);
    free(g);
    free(x1);
    free(g1);
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
    printf("%s: half history %d iterations, double history %d; max |x - x_double| %.3g, "
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
    test_f16();
    test_direction(1);
    test_direction(0);
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
