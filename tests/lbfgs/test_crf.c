/* lbfgs: OWL-QN on a real (tiny, random) linear-chain CRF objective from
 * the engine: F must decrease monotonically and the result must satisfy
 * the ℓ1 optimality conditions with some exact zeros. */
#include "../tinycrf.h"
#include "lbfgs_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct crfrun {
    crfp_crfobj *obj;
    int iters, monotone;
    double last;
} crfrun;

static crfp_status eval(void *ud, const double *x, double *f, double *g)
{
    return crfp_crfobj_eval(((crfrun *)ud)->obj, x, f, g);
}

static crfp_status iteration(void *ud, const crfp_iter_info *info, const double *x, int *stop)
{
    crfrun *r = ud;
    (void)x;
    (void)stop;
    if (!(info->objective <= r->last) || info->iter != r->iters + 1)
        r->monotone = 0;
    r->last = info->objective;
    r->iters = info->iter;
    return CRFP_OK;
}

int main(void)
{
    static const tinycrf_spec spec = {2024, 40, 12, 3, 3, 6, 0.7};
    tinycrf t = {0};
    tinycrf_build(&t, &spec);
    crfp_host *host = t.host;
    crfp_crf *crf = t.crf;
    crfp_dataset *ds = t.ds;
    size_t n = crfp_crf_nparams(crf);
    crfrun run = {NULL, 0, 1, INFINITY};
    crfp_team *tm = NULL;
    FAILIF(crfp_team_new(2, &tm));
    FAILIF(crfp_crfobj_new(host, crf, ds, tm, 0.1, &run.obj));
    double rho1 = 1.0;
    lbfgs_objective obj = {.dim = n, .rho1 = rho1, .rho2 = 0.1, .ud = &run, .eval = eval,
                           .iteration = iteration};
    double *x = calloc(n, sizeof(double)), *g = calloc(n, sizeof(double));
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    o.epsilon = 0;
    o.gtol = 1e-10;
    o.max_iter = 2000;
    crfp_status st = lbfgs_minimize(host, &o, &obj, x);
    CHECK(st == CRFP_OK, "train: %s", crfp_errmsg(host));
    CHECK(run.monotone, "F increased");
    CHECK(run.iters > 3 && run.iters < 2000, "%d iterations", run.iters);

    double f, worst = 0;
    FAILIF(crfp_crfobj_eval(run.obj, x, &f, g));
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i] > 0   ? fabs(g[i] + rho1)
                   : x[i] < 0 ? fabs(g[i] - rho1)
                              : fmax(0.0, fabs(g[i]) - rho1);
        worst = fmax(worst, v);
        zeros += x[i] == 0;
    }
    CHECK(worst < 1e-4, "optimality violated by %g", worst);
    CHECK(zeros > 0 && zeros < n, "%zu of %zu weights are zero", zeros, n);
    printf("crf: %zu weights, %d iterations, %zu zeros, violation %.3g\n", n, run.iters, zeros,
           worst);
    free(x);
    free(g);
    crfp_crfobj_free(run.obj);
    crfp_team_free(tm);
    tinycrf_free(&t);
    return test_failures ? 1 : 0;
}
