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
    crfp_host *h = crfp_host_new();
    if (!h)
        return 99;
    crfp_host_set_verbosity(h, CRFP_LOG_WARN);
    if (crfp_host_add_plugin_dir(h, CRFP_ABS_BUILDDIR "/plugins/lbfgs") != CRFP_OK)
        return 99;
    const crfp_plugin *pl = NULL;
    crfp_status st = crfp_host_load_kind(h, "lbfgs", CRFP_KIND_TRAINER, &pl);
    if (st != CRFP_OK) {
        fprintf(stderr, "cannot load lbfgs: %s\n", crfp_errmsg(h));
        return 1;
    }
    const crfp_plugin_descriptor *d = pl->desc;
    CHECK(strcmp(d->name, "lbfgs") == 0, "name %s", d->name);
    CHECK(d->kind == CRFP_KIND_TRAINER, "kind %d", (int)d->kind);
    CHECK(d->abi_major == CRFP_ABI_MAJOR && d->abi_minor <= CRFP_ABI_MINOR, "abi %u.%u",
          d->abi_major, d->abi_minor);
    const char *want[] = {"history", "epsilon", "window", "max-linesearch", "max-iter", "gtol"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int found = 0;
        for (size_t j = 0; j < d->nparams; j++)
            if (strcmp(d->params[j].name, want[i]) == 0)
                found = d->params[j].help && d->params[j].help[0] && d->params[j].defval;
        CHECK(found, "parameter %s missing, without default or without help", want[i]);
    }
    const crfp_trainer_vtable *vt = d->vtable;

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
    ps = crfp_params_new(d->params, d->nparams);
    st = crfp_params_set(h, ps, "test", "history", "many", NULL);
    CHECK(st == CRFP_EINVAL, "history=many accepted");
    crfp_params_free(ps);

    problem_free(&p);
    crfp_host_free(h);
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
