/* lbfgs: plain L-BFGS (rho1 = 0) on smooth problems — a convex quadratic
 * against its closed-form solution, ℓ2-regularised logistic regression to a
 * small gradient, and extended Rosenbrock to its minimiser (1, ..., 1).
 * Every run also checks that F never increased between iterations. */
#include "config.h"
#include "problems.h"
#include "lbfgs_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Solve A x = b for SPD A by Cholesky (A copied). */
static void cholesky_solve(const double *A0, const double *b, double *x, size_t n)
{
    double *L = calloc(n * n, sizeof(double));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++) {
            double s = A0[i * n + j];
            for (size_t k = 0; k < j; k++)
                s -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = i == j ? sqrt(s) : s / L[j * n + j];
        }
    for (size_t i = 0; i < n; i++) {
        double s = b[i];
        for (size_t k = 0; k < i; k++)
            s -= L[i * n + k] * x[k];
        x[i] = s / L[i * n + i];
    }
    for (size_t i = n; i-- > 0;) {
        double s = x[i];
        for (size_t k = i + 1; k < n; k++)
            s -= L[k * n + i] * x[k];
        x[i] = s / L[i * n + i];
    }
    free(L);
}

static double gradnorm(const problem *p, const double *x)
{
    double *g = calloc(p->dim, sizeof(double)), s = 0;
    problem_f(p, x, g);
    for (size_t i = 0; i < p->dim; i++)
        s += g[i] * g[i];
    free(g);
    return sqrt(s);
}

static void run(crfp_host *host, problem *p, const lbfgs_opts *o, double *x)
{
    lbfgs_objective obj = problem_objective(p, 0.0);
    p->host = host;
    p->F0 = problem_f(p, x, NULL);
    crfp_status st = lbfgs_minimize(host, o, &obj, x);
    CHECK(st == CRFP_OK, "status %d: %s", (int)st, crfp_errmsg(host));
    CHECK(p->monotone, "F increased during the run");
    CHECK(p->iters > 0, "no iteration");
}

static void test_quadratic(crfp_host *host, int m)
{
    problem p;
    problem_quad(&p, 50, 12345);
    double *x = calloc(50, sizeof(double)), *xs = calloc(50, sizeof(double));
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    o.m = m;
    o.epsilon = 0;
    o.gtol = 1e-11;
    run(host, &p, &o, x);
    cholesky_solve(p.A, p.b, xs, 50);
    double err = 0;
    for (size_t i = 0; i < 50; i++)
        err = fmax(err, fabs(x[i] - xs[i]));
    CHECK(err < 1e-6, "m=%d: max |x - x*| = %g after %d iterations", m, err, p.iters);
    printf("quadratic m=%d: %d iterations, %d evals, err %.3g\n", m, p.iters, p.nevals, err);
    free(x);
    free(xs);
    problem_free(&p);
}

static void test_logistic(crfp_host *host)
{
    problem p;
    problem_logit(&p, 300, 20, 0.1, 777);
    double *x = calloc(20, sizeof(double));
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    o.epsilon = 0;
    o.gtol = 1e-9;
    run(host, &p, &o, x);
    double gn = gradnorm(&p, x);
    /* ~sqrt(machine epsilon · F · curvature): the floor of any method
     * that only accepts measurable decreases of F */
    CHECK(gn < 1e-5, "logistic: ‖∇f‖ = %g", gn);
    printf("logistic: %d iterations, %d evals, |g| %.3g\n", p.iters, p.nevals, gn);
    free(x);
    problem_free(&p);
}

static void test_rosenbrock(crfp_host *host)
{
    problem p;
    problem_rosen(&p, 10);
    double x[10];
    for (int i = 0; i < 10; i++)
        x[i] = i % 2 ? 1.0 : -1.2;
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    o.epsilon = 0;
    o.gtol = 1e-10;
    o.max_iter = 2000;
    run(host, &p, &o, x);
    double err = 0;
    for (int i = 0; i < 10; i++)
        err = fmax(err, fabs(x[i] - 1));
    CHECK(err < 1e-6, "rosenbrock: max |x - 1| = %g after %d iterations", err, p.iters);
    CHECK(p.iters < 2000, "rosenbrock needed the iteration cap");
    printf("rosenbrock: %d iterations, %d evals, err %.3g\n", p.iters, p.nevals, err);
    problem_free(&p);
}

/* The epsilon/window test must end a run on its own, before a huge
 * iteration cap, and leave a near-optimal F. */
static void test_decrease_stop(crfp_host *host)
{
    problem p;
    problem_logit(&p, 300, 20, 0.1, 4242);
    double *x = calloc(20, sizeof(double)), *xr = calloc(20, sizeof(double));
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    o.gtol = 0;
    o.epsilon = 1e-6;
    o.max_iter = 5000;
    run(host, &p, &o, x);
    CHECK(p.iters < 5000 && p.iters >= o.window, "iterations %d", p.iters);
    /* a tight run for comparison */
    problem q;
    problem_logit(&q, 300, 20, 0.1, 4242);
    o.epsilon = 0;
    o.gtol = 1e-10;
    run(host, &q, &o, xr);
    double F = problem_f(&p, x, NULL), Fr = problem_f(&q, xr, NULL);
    CHECK(F - Fr <= 1e-5 * fabs(Fr), "epsilon stop too early: F %.12g vs %.12g", F, Fr);
    free(x);
    free(xr);
    problem_free(&p);
    problem_free(&q);
}

int main(void)
{
    crfp_host *host = crfp_host_new();
    if (!host)
        return 99;
    crfp_host_set_verbosity(host, CRFP_LOG_WARN);
    test_quadratic(host, 5);
    test_quadratic(host, 1);
    test_quadratic(host, 17);
    test_logistic(host);
    test_rosenbrock(host);
    test_decrease_stop(host);
    crfp_host_free(host);
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
