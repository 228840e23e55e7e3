/* newton_cg: truncated Newton on a tiny CRF built through the engine,
 * against lbfgs on the same training set.  F = Σ loss_i + rho2/2‖θ‖² is
 * strictly convex, so every variant — the trust region with and without
 * the diagonal preconditioner, the line search, a subsampled Hessian, kept
 * per-sequence state or none, one thread or two — must reach L-BFGS's
 * optimum: the same F to 1e-9 relative and the same weights to 1e-5, with
 * F never increasing between the iterations the monitor sees.  rho1 > 0 is refused
 * with a message naming it; the module's descriptor and parameter checks
 * are tested too. */
#include "../tinycrf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
    static const tinycrf_spec spec = {31337, 80, 25, 4, 2, 9, 0.6};
    tinycrf t = {0};
    tinycrf_build(&t, &spec);
    crfp_host *host = t.host;
    crfp_crf *crf = t.crf;
    crfp_dataset *ds = t.ds;
    crfp_team *team = NULL;
    if (crfp_team_new(2, &team) != CRFP_OK)
        return 99;
    const double rho2 = 0.2;
    crfp_trainset *ts1 = NULL, *ts2 = NULL;
    FAILIF(crfp_trainset_new(host, crf, ds, NULL, NULL, 0.0, rho2, &ts1));
    FAILIF(crfp_trainset_new(host, crf, ds, team, NULL, 0.0, rho2, &ts2));
    size_t dim = ts1->dim;

    const crfp_plugin *ncg, *lbfgs;
    const crfp_trainer_vtable *vn = tinycrf_trainer(host, "newton_cg", &ncg),
                              *vl = tinycrf_trainer(host, "lbfgs", &lbfgs);
    if (!vn || !vl)
        FAILIF(CRFP_ENOTFOUND);
    CHECK(vn->size == sizeof(crfp_trainer_vtable) &&
              vn->needs == (CRFP_TS_BATCH | CRFP_TS_HESSVEC),
          "vtable: size %zu, needs %llx", vn->size, (unsigned long long)vn->needs);

    double *xl = calloc(dim, sizeof *xl), *xn = calloc(dim, sizeof *xn);
    double *g = malloc(dim * sizeof *g);
    if (!xl || !xn || !g)
        return 99;
    /* the reference: L-BFGS to convergence */
    const char *kvl[] = {"epsilon", "0", "gtol", "1e-11", NULL};
    crfp_params *pl = tinycrf_params(host, lbfgs, kvl);
    FAILIF(vl->train(host, pl, ts1, xl));
    crfp_params_free(pl);
    double Fl, F0;
    FAILIF(ts1->batch(ts1->ud, xl, 1, &Fl, g));
    memset(xn, 0, dim * sizeof *xn);
    FAILIF(ts1->batch(ts1->ud, xn, 1, &F0, g));

    static const char *const variants[][16] = {
        {"(defaults)", NULL},
        {"precond", "false", NULL},
        {"line", "false", "mnorm", "true", NULL},
        {"line", "false", NULL},
        {"line", "true", "hessian-sample", "0.3", "max-cg", "5", NULL},
        {"line", "false", "hessian-sample", "0.5", "diag-every", "1", NULL},
        {"keep", "0", "forcing", "0.1", NULL},
        {"keep", "20", NULL},
    };
    for (size_t k = 0; k < sizeof variants / sizeof *variants; k++) {
        for (int th = 0; th < 2; th++) {
            crfp_trainset *ts = th ? ts2 : ts1;
            tinycrf_mon m = {0, INFINITY, 1, 0, 1};
            ts->monitor = tinycrf_monitor;
            ts->monitor_ud = &m;
            /* the defaults truncate CG at 3 iterations, for CoNLL-2000's
             * sake; the other variants solve the systems further */
            const char *kv[20] = {"epsilon", "0", "gtol", "1e-9", "max-cg", "20"};
            size_t n = k ? 6 : 4;
            for (size_t j = k ? 0 : 1; variants[k][j]; j++)
                kv[n++] = variants[k][j];
            kv[n] = NULL;
            crfp_params *pn = tinycrf_params(host, ncg, kv);
            memset(xn, 0, dim * sizeof *xn);
            crfp_status st = vn->train(host, pn, ts, xn);
            CHECK(st == CRFP_OK, "variant %zu: %s", k, crfp_errmsg(host));
            crfp_params_free(pn);
            ts->monitor = NULL;
            double Fn, dx = 0.0;
            FAILIF(ts1->batch(ts1->ud, xn, 1, &Fn, g));
            for (size_t j = 0; j < dim; j++)
                dx = fmax(dx, fabs(xn[j] - xl[j]));
            printf("variant %zu (%s...), %d thread%s: %d iterations, F = %.12g (L-BFGS %.12g, "
                   "F(0) %.6g), max |dθ| %.2g\n",
                   k, variants[k][0], th + 1, th ? "s" : "", m.iters, Fn, Fl, F0, dx);
            CHECK(m.monotone && m.iters > 0, "variant %zu: F not decreasing at every iteration",
                  k);
            CHECK(fabs(Fn - Fl) <= 1e-9 * Fl, "variant %zu: F = %.15g, L-BFGS %.15g", k, Fn, Fl);
            CHECK(dx < 1e-5, "variant %zu: weights differ by %g", k, dx);
        }
    }

    /* rho1 > 0: a clear refusal */
    crfp_trainset *tl1 = NULL;
    FAILIF(crfp_trainset_new(host, crf, ds, NULL, NULL, 0.5, rho2, &tl1));
    crfp_params *pn = tinycrf_params(host, ncg, NULL);
    CHECK(vn->train(host, pn, tl1, xn) == CRFP_EINVAL, "rho1 > 0 accepted");
    CHECK(strstr(crfp_errmsg(host), "rho1") && strstr(crfp_errmsg(host), "not supported"),
          "message: %s", crfp_errmsg(host));
    crfp_params_free(pn);
    crfp_trainset_free(tl1);
    /* parameter checks */
    static const char *const bad[][3] = {
        {"forcing", "1.5", NULL}, {"max-cg", "0", NULL}, {"hessian-sample", "0", NULL},
        {"keep", "-2", NULL}, {"window", "0", NULL}, {"diag-every", "0", NULL}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        pn = tinycrf_params(host, ncg, bad[k]);
        CHECK(vn->train(host, pn, ts1, xn) == CRFP_EINVAL, "%s=%s accepted", bad[k][0],
              bad[k][1]);
        crfp_params_free(pn);
    }

    free(xl);
    free(xn);
    free(g);
    crfp_trainset_free(ts1);
    crfp_trainset_free(ts2);
    crfp_team_free(team);
    tinycrf_free(&t);
    return test_failures ? 1 : 0;
}
