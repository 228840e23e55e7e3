/* lbfgs: OWL-QN (rho1 > 0) on ℓ1-regularised least squares and logistic
 * regression.  The result must satisfy the subgradient optimality
 * conditions, hold exact zeros wherever the optimum is strictly inactive,
 * and agree with an independent proximal-gradient (FISTA) solution. */
#include "config.h"
#include "problems.h"
#include "lbfgs_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_l1(crfp_host *host, problem *p, double rho1, int m, const char *name)
{
    size_t n = p->dim;
    double *x = calloc(n, sizeof(double)), *xr = calloc(n, sizeof(double));
    double *g = calloc(n, sizeof(double));
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    o.m = m;
    o.epsilon = 0;
    o.gtol = 1e-12;
    o.max_iter = 3000;
    p->host = host;
    p->F0 = problem_f(p, x, NULL);
    lbfgs_objective obj = problem_objective(p, rho1);
    crfp_status st = lbfgs_minimize(host, &o, &obj, x);
    CHECK(st == CRFP_OK, "%s: status %d: %s", name, (int)st, crfp_errmsg(host));
    CHECK(p->monotone, "%s: F increased during the run", name);
    double viol = l1_violation(p, rho1, x);
    /* F-decrease line searches reach about sqrt(eps·F·curvature) */
    CHECK(viol < 1e-5, "%s: optimality violated by %g", name, viol);

    reference_prox(p, rho1, xr, 200000);
    double vr = l1_violation(p, rho1, xr);
    CHECK(vr < 1e-8, "%s: the reference solver itself did not converge (%g)", name, vr);
    double err = 0;
    for (size_t i = 0; i < n; i++)
        err = fmax(err, fabs(x[i] - xr[i]));
    CHECK(err < 1e-5, "%s: max |x - x_ref| = %g", name, err);

    problem_f(p, xr, g);
    size_t zeros = 0, inactive = 0, nonzero = 0;
    for (size_t i = 0; i < n; i++) {
        zeros += x[i] == 0;
        nonzero += x[i] != 0;
        if (xr[i] == 0 && fabs(g[i]) < rho1 * 0.99) {
            inactive++;
            CHECK(x[i] == 0, "%s: weight %zu = %g should be exactly 0", name, i, x[i]);
        }
    }
    CHECK(inactive > 0 && zeros > 0, "%s: the test problem is not sparse (%zu zeros)", name,
          zeros);
    CHECK(nonzero > 0, "%s: the solution is all zero", name);
    printf("%s m=%d: %d iterations, %d evals, %zu/%zu zeros, err %.3g, viol %.3g\n", name, m,
           p->iters, p->nevals, zeros, n, err, viol);
    free(x);
    free(xr);
    free(g);
}

/* rho1 as a fraction of the smallest value that zeroes everything. */
static double rho1_frac(const problem *p, double frac)
{
    double *x = calloc(p->dim, sizeof(double)), *g = calloc(p->dim, sizeof(double));
    problem_f(p, x, g);
    double mx = 0;
    for (size_t i = 0; i < p->dim; i++)
        mx = fmax(mx, fabs(g[i]));
    free(x);
    free(g);
    return frac * mx;
}

int main(void)
{
    crfp_host *host = crfp_host_new();
    if (!host)
        return 99;
    crfp_host_set_verbosity(host, CRFP_LOG_WARN);

    problem p;
    problem_lsq(&p, 60, 40, 99);
    check_l1(host, &p, rho1_frac(&p, 0.1), 5, "lasso");
    problem_free(&p);

    problem_lsq(&p, 60, 40, 100);
    check_l1(host, &p, rho1_frac(&p, 0.3), 2, "lasso");
    problem_free(&p);

    problem_logit(&p, 200, 30, 0.0, 5);
    check_l1(host, &p, rho1_frac(&p, 0.15), 5, "logistic-l1");
    problem_free(&p);

    problem_logit(&p, 200, 30, 0.05, 6);
    check_l1(host, &p, rho1_frac(&p, 0.05), 7, "logistic-l1-l2");
    problem_free(&p);

    crfp_host_free(host);
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
