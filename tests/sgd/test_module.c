/* sgd: the real module loaded through the host — descriptor, parameters,
 * the capability check (a training set without per-sequence gradients is
 * refused with a message naming what is missing), parameter validation,
 * and a training run on the toy set: it must decrease the objective, find
 * exact zeros, and be bit-for-bit reproducible from its seed. */
#include "config.h"
#include "toyset.h"
#include "../tinycrf.h"

/* F(θ) on the toy set. */
static double objective(const toy *t, const double *theta)
{
    double f = 0;
    for (size_t i = 0; i < t->nseq; i++)
        f += toy_loss(toy_margin(t, i, theta));
    for (size_t k = 0; k < t->dim; k++)
        f += t->ts.rho1 * fabs(theta[k]) + 0.5 * t->ts.rho2 * theta[k] * theta[k];
    return f;
}

typedef struct mon {
    int epochs;
    double last;
} mon;

static crfp_status monitor(void *ud, const crfp_iter_info *info, const double *theta, int *stop)
{
    mon *m = ud;
    (void)theta;
    (void)stop;
    CHECK(info->iter == m->epochs + 1, "epoch %d after %d", info->iter, m->epochs);
    CHECK(isfinite(info->objective) && info->step > 0, "info %g %g", info->objective,
          info->step);
    m->epochs = info->iter;
    m->last = info->objective;
    return m->epochs == 7 ? CRFP_EINTR : CRFP_OK;
}

int main(void)
{
    const char *want[] = {"eta0", "decay", "batch", "seed", "max-epochs", "epsilon", "window",
                          "calib-sample", "calib-factor", NULL};
    crfp_host *h;
    const crfp_plugin *pl;
    int problems;
    const crfp_trainer_vtable *vt = tinycrf_module("sgd_l1", want, &h, &pl, &problems);
    CHECK(problems == 0, "sgd_l1: %d problems with the descriptor", problems);
    CHECK(vt->needs == CRFP_TS_SEQUENCE, "needs %llx", (unsigned long long)vt->needs);
    crfp_status st;

    toy t;
    toy_init(&t, 60, 40, 0.3, 0.1);
    double *x = calloc(t.dim, sizeof *x), *x2 = calloc(t.dim, sizeof *x2);

    /* (4) capability mismatch: a batch-only training set */
    t.ts.caps = CRFP_TS_BATCH;
    st = crfp_trainset_require(h, &t.ts, vt->needs, "sgd_l1");
    CHECK(st == CRFP_EINVAL && strstr(crfp_errmsg(h), "sgd_l1") &&
              strstr(crfp_errmsg(h), "sequence"),
          "host check: %d %s", (int)st, crfp_errmsg(h));
    crfp_params *ps = tinycrf_params(h, pl, NULL);
    crfp_error_clear(h);
    st = vt->train(h, ps, &t.ts, x);
    CHECK(st == CRFP_EINVAL && strstr(crfp_errmsg(h), "sequence"), "train: %d %s", (int)st,
          crfp_errmsg(h));
    printf("capability mismatch: %s\n", crfp_errmsg(h));
    t.ts.caps = CRFP_TS_SEQUENCE;
    /* ... and a builder older than the per-block gradient */
    size_t full = t.ts.size;
    t.ts.size = offsetof(crfp_trainset, seq_grad_sparse);
    st = vt->train(h, ps, &t.ts, x);
    CHECK(st == CRFP_EINVAL && strstr(crfp_errmsg(h), "seq_grad_sparse"), "old set: %d %s",
          (int)st, crfp_errmsg(h));
    t.ts.size = full;
    crfp_params_free(ps);

    /* parameters the host parses but the plugin refuses */
    const char *bad[][2] = {{"batch", "0"}, {"eta0", "-1"}, {"window", "0"},
                            {"epsilon", "2"}, {"calib-factor", "0"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *kv[] = {bad[i][0], bad[i][1], NULL};
        ps = tinycrf_params(h, pl, kv);
        st = vt->train(h, ps, &t.ts, x);
        CHECK(st == CRFP_EINVAL && strstr(crfp_errmsg(h), bad[i][0]), "%s=%s: %d %s",
              bad[i][0], bad[i][1], (int)st, crfp_errmsg(h));
        crfp_params_free(ps);
    }

    /* a run with calibration: F goes down, exact zeros appear */
    double F0 = objective(&t, x);
    const char *kv[] = {"max-epochs", "40", "epsilon", "0", "calib-sample", "20", NULL};
    ps = tinycrf_params(h, pl, kv);
    st = vt->train(h, ps, &t.ts, x);
    CHECK(st == CRFP_OK, "train: %s", crfp_errmsg(h));
    double F = objective(&t, x);
    size_t zeros = 0;
    for (size_t k = 0; k < t.dim; k++)
        zeros += x[k] == 0;
    CHECK(F < 0.9 * F0, "F %g -> %g", F0, F);
    CHECK(zeros > 0, "no exact zero");
    printf("toy: F %.6g -> %.6g, %zu of %zu weights zero\n", F0, F, zeros, t.dim);

    /* (3) the same seed gives the same bits, another seed other ones */
    st = vt->train(h, ps, &t.ts, x2);
    CHECK(st == CRFP_OK && memcmp(x, x2, t.dim * sizeof *x) == 0, "not reproducible");
    crfp_params_free(ps);
    const char *kv2[] = {"max-epochs", "40", "epsilon", "0", "calib-sample", "20", "seed", "7",
                         NULL};
    ps = tinycrf_params(h, pl, kv2);
    memset(x2, 0, t.dim * sizeof *x2);
    st = vt->train(h, ps, &t.ts, x2);
    CHECK(st == CRFP_OK && memcmp(x, x2, t.dim * sizeof *x) != 0, "seed ignored");
    crfp_params_free(ps);

    /* the monitor: one call per epoch; its CRFP_EINTR is returned with θ
     * the last completed epoch */
    mon m = {0, 0};
    t.ts.monitor = monitor;
    t.ts.monitor_ud = &m;
    const char *kv3[] = {"eta0", "0.5", "epsilon", "0", NULL};
    ps = tinycrf_params(h, pl, kv3);
    memset(x, 0, t.dim * sizeof *x);
    st = vt->train(h, ps, &t.ts, x);
    CHECK(st == CRFP_EINTR && m.epochs == 7, "interrupt: %d after %d epochs", (int)st,
          m.epochs);
    CHECK(isfinite(objective(&t, x)), "theta after interrupt");
    crfp_params_free(ps);

    free(x);
    free(x2);
    toy_free(&t);
    crfp_host_free(h);
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
