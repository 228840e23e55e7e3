/* lbfgs: the real module, loaded through the host — descriptor, parameter
 * declarations and validation, and a training run through the trainer
 * vtable (OWL-QN on a lasso problem checked against optimality). */
#include "config.h"
#include "problems.h"
#include "../tinycrf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    const char *want[] = {"history", "epsilon", "window", "max-linesearch", "max-iter", "gtol",
                          NULL};
    crfp_host *h;
    const crfp_plugin *pl;
    int problems;
    const crfp_trainer_vtable *vt = tinycrf_module("lbfgs", want, &h, &pl, &problems);
    CHECK(problems == 0, "lbfgs: %d problems with the descriptor", problems);
    crfp_status st;

    /* a lasso problem solved through the vtable */
    problem p;
    problem_lsq(&p, 50, 30, 11);
    p.host = h;
    p.F0 = problem_f(&p, (double[30]){0}, NULL);
    const char *kv[] = {"history", "3", "epsilon", "0", "gtol", "1e-12", "max-iter", "5000",
                        NULL};
    crfp_params *ps = tinycrf_params(h, pl, kv);
    double rho1 = 2.0, x[30] = {0};
    crfp_trainset obj = problem_trainset(&p, rho1);
    st = vt->train(h, ps, &obj, x);
    CHECK(st == CRFP_OK, "train: %s", crfp_errmsg(h));
    CHECK(p.monotone, "F increased");
    double viol = l1_violation(&p, rho1, x);
    CHECK(viol < 1e-5, "optimality violated by %g", viol);
    int zeros = 0;
    for (int i = 0; i < 30; i++)
        zeros += x[i] == 0;
    CHECK(zeros > 0, "no exact zero in the ℓ1 solution");
    printf("module: %d iterations, %d zeros, violation %.3g\n", p.iters, zeros, viol);
    crfp_params_free(ps);

    /* max-iter through the parameters */
    memset(x, 0, sizeof x);
    p.iters = 0;
    const char *kv2[] = {"max-iter", "2", NULL};
    ps = tinycrf_params(h, pl, kv2);
    st = vt->train(h, ps, &obj, x);
    CHECK(st == CRFP_OK && p.iters == 2, "max-iter=2: status %d, %d iterations", (int)st,
          p.iters);
    crfp_params_free(ps);

    /* values the host parses but the plugin rejects */
    const char *kv3[] = {"history", "0", NULL};
    ps = tinycrf_params(h, pl, kv3);
    st = vt->train(h, ps, &obj, x);
    CHECK(st == CRFP_EINVAL && strstr(crfp_errmsg(h), "history"), "history=0: %d %s", (int)st,
          crfp_errmsg(h));
    crfp_params_free(ps);
    const char *kv4[] = {"epsilon", "-1", NULL};
    ps = tinycrf_params(h, pl, kv4);
    st = vt->train(h, ps, &obj, x);
    CHECK(st == CRFP_EINVAL && strstr(crfp_errmsg(h), "epsilon"), "epsilon=-1: %d %s", (int)st,
          crfp_errmsg(h));
    crfp_params_free(ps);

    /* a value the host must refuse to parse */
    ps = crfp_params_new(pl->desc->params, pl->desc->nparams);
    st = crfp_params_set(h, ps, "test", "history", "many", NULL);
    CHECK(st == CRFP_EINVAL, "history=many accepted");
    crfp_params_free(ps);

    problem_free(&p);
    crfp_host_free(h);
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
