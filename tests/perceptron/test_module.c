/* perceptron: the real module, loaded through the host — descriptor,
 * parameters and their validation, and training through the trainer
 * vtable on a tiny separable CRF, where the averaged perceptron and PA
 * must reach zero training error, the training error lbfgs reaches on the
 * same set.  Two runs with one seed are bit-for-bit identical. */
#include "config.h"
#include "ptest.h"
#include "../tinycrf.h"

/* Parameters of `specs` set from NULL-terminated name/value pairs. */
static crfp_params *params(crfp_host *h, const crfp_param_spec *specs, size_t n,
                           const char *const *kv)
{
    crfp_params *p = crfp_params_new(specs, n);
    if (!p)
        exit(99);
    for (; kv && kv[0]; kv += 2) {
        crfp_status st = crfp_params_set(h, p, "test", kv[0], kv[1], NULL);
        CHECK(st == CRFP_OK, "set %s=%s: %s", kv[0], kv[1], crfp_errmsg(h));
    }
    return p;
}

static int epochs_seen;
static crfp_status count(void *ud, const crfp_iter_info *info, const double *theta, int *stop)
{
    (void)ud;
    (void)theta;
    (void)stop;
    epochs_seen = info->iter;
    return CRFP_OK;
}

int main(void)
{
    const char *want[] = {"variant", "max-epochs", "c", "seed", "shuffle", NULL};
    crfp_host *h;
    const crfp_plugin *pl, *lb;
    int problems;
    const crfp_trainer_vtable *vt = tinycrf_module("perceptron", want, &h, &pl, &problems);
    CHECK(problems == 0, "perceptron: %d problems with the descriptor", problems);
    CHECK(vt->needs == CRFP_TS_DECODE, "needs %llu", (unsigned long long)vt->needs);
    const crfp_trainer_vtable *lvt = tinycrf_trainer(h, "lbfgs", &lb);
    if (!lvt) {
        fprintf(stderr, "cannot load lbfgs: %s\n", crfp_errmsg(h));
        return 1;
    }
    const crfp_plugin_descriptor *d = pl->desc;
    /* The driver hands a trainer its own parameters merged with the common
     * ones; two of those matter here. */
    crfp_param_spec merged[16];
    size_t nm = 0;
    for (size_t j = 0; j < d->nparams && nm < 14; j++)
        merged[nm++] = d->params[j];
    merged[nm++] = (crfp_param_spec){"rho2", CRFP_PARAM_FLOAT, "0.3", "l2"};
    merged[nm++] = (crfp_param_spec){"max-iter", CRFP_PARAM_INT, "0", "iterations"};

    pt_problem p;
    pt_build(h, &p, 11, 40, 9, 0.0, 0.1);
    size_t dim = p.ts->dim;
    double *th = calloc(dim, sizeof *th), *th2 = calloc(dim, sizeof *th2);
    if (!th || !th2)
        return 99;

    /* lbfgs first: the error any trainer should match on this set. */
    crfp_params *ps = params(h, lb->desc->params, lb->desc->nparams, NULL);
    crfp_status st = lvt->train(h, ps, p.ts, th);
    CHECK(st == CRFP_OK, "lbfgs: %s", crfp_errmsg(h));
    size_t lbfgs_err = pt_errors(&p, th);
    crfp_params_free(ps);
    CHECK(lbfgs_err == 0, "lbfgs leaves %zu training errors on a separable set", lbfgs_err);

    static const char *const variants[] = {"perceptron", "pa", "arow", "mira"};
    for (int v = 0; v < 4; v++) {
        const char *kv[] = {"variant", variants[v], "max-epochs", "30", "seed", "5", NULL};
        ps = params(h, merged, nm, kv);
        memset(th, 0, dim * sizeof *th);
        p.ts->monitor = count;
        epochs_seen = 0;
        st = vt->train(h, ps, p.ts, th);
        p.ts->monitor = NULL;
        CHECK(st == CRFP_OK, "%s: %s", kv[1], crfp_errmsg(h));
        size_t err = pt_errors(&p, th);
        if (v < 3)
            CHECK(err == lbfgs_err, "%s: %zu training errors, lbfgs %zu", kv[1], err, lbfgs_err);
        else
            /* CRF++'s MIRA steps by the loss less the prediction's lead
             * (tests/pipeline/crfpp_model.sh checks its steps against
             * CRF++'s): a sequence whose prediction leads the gold path by
             * its loss or more takes no step, so it may end with errors;
             * it stops by itself once no constraint is violated */
            CHECK(epochs_seen < 30, "mira: did not stop by itself in %d epochs", epochs_seen);
        printf("%s: %zu training errors (lbfgs: %zu), %d epochs\n", kv[1], err, lbfgs_err,
               epochs_seen);
        /* One thread, one seed: the same bits. */
        memset(th2, 0, dim * sizeof *th2);
        st = vt->train(h, ps, p.ts, th2);
        CHECK(st == CRFP_OK && memcmp(th, th2, dim * sizeof *th) == 0,
              "%s: two runs with seed 5 differ", kv[1]);
        crfp_params_free(ps);
    }

    /* The common max-iter, when set, overrides max-epochs. */
    p.ts->monitor = count;
    const char *kv_it[] = {"max-epochs", "9", "max-iter", "3", NULL};
    ps = params(h, merged, nm, kv_it);
    st = vt->train(h, ps, p.ts, th);
    CHECK(st == CRFP_OK && epochs_seen == 3, "max-iter=3: status %d, %d epochs", (int)st,
          epochs_seen);
    crfp_params_free(ps);
    const char *kv_ep[] = {"max-epochs", "4", NULL};
    ps = params(h, merged, nm, kv_ep);
    st = vt->train(h, ps, p.ts, th);
    CHECK(st == CRFP_OK && epochs_seen == 4, "max-epochs=4: status %d, %d epochs", (int)st,
          epochs_seen);
    crfp_params_free(ps);
    p.ts->monitor = NULL;

    /* Refusals, each with a message naming the parameter. */
    const char *bad[][5] = {{"rho2", "0.5", NULL, NULL, NULL},
                            {"variant", "crf", NULL, NULL, NULL},
                            {"variant", "pa", "c", "0", NULL},
                            {"variant", "mira", "c", "-1", NULL},
                            {"variant", "mira", "shrinking-size", "0", NULL},
                            {"variant", "arow", "gamma", "0", NULL},
                            {"variant", "arow", "variance", "-1", NULL},
                            {"max-epochs", "0", NULL, NULL, NULL}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ps = params(h, merged, nm, bad[k]);
        crfp_error_clear(h);
        st = vt->train(h, ps, p.ts, th);
        /* "c=" rather than "c", which any message contains */
        char name[32];
        snprintf(name, sizeof name, "%s=", bad[k][2] ? bad[k][2] : bad[k][0]);
        CHECK(st == CRFP_EINVAL && strstr(crfp_errmsg(h), name),
              "%s=%s accepted or unclear: status %d, '%s'", bad[k][0], bad[k][1], (int)st,
              crfp_errmsg(h));
        crfp_params_free(ps);
    }
    /* rho2 explicitly 0 is fine; the default 0.3 is ignored. */
    const char *kv_r0[] = {"rho2", "0", "max-epochs", "1", NULL};
    ps = params(h, merged, nm, kv_r0);
    st = vt->train(h, ps, p.ts, th);
    CHECK(st == CRFP_OK, "rho2=0 refused: %s", crfp_errmsg(h));
    crfp_params_free(ps);

    /* rho1 > 0 comes with the training set. */
    crfp_trainset *ts1;
    MUST(h, crfp_trainset_new(h, p.crf, p.ds, NULL, NULL, 1.0, 0.0, &ts1));
    ps = params(h, merged, nm, NULL);
    st = vt->train(h, ps, ts1, th);
    CHECK(st == CRFP_EINVAL && strstr(crfp_errmsg(h), "rho1"), "rho1=1 accepted: %d '%s'",
          (int)st, crfp_errmsg(h));
    crfp_params_free(ps);
    crfp_trainset_free(ts1);

    free(th);
    free(th2);
    pt_free(&p);
    crfp_host_free(h);
    return test_failures ? 1 : 0;
}
