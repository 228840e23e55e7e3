/* rprop: RPROP on a tiny CRF built through the engine, against lbfgs on the
 * same training set.
 *   - ℓ2 (F strictly convex): rprop+ and rprop-, on one thread and on two,
 *     reach L-BFGS's optimum (F to 1e-9 relative, weights to 1e-5), and the
 *     two thread counts give the same bits (the update is elementwise, the
 *     ℓ1 norm summed in fixed chunks).
 *   - ℓ1 + ℓ2: both variants reach OWL-QN's optimum (F to 1e-7 relative)
 *     with the same weights at exactly 0: the orthant-wise steps stop at 0.
 *     The cut-off scheme (Wapiti's --cutoff) ends below the starting F.
 *   - bad parameters are refused with a message naming them; the trainer
 *     declares the ℓ1 flag and needs only the batch gradient. */
#include "../tinycrf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double *train(crfp_host *host, const crfp_trainer_vtable *vt, const crfp_plugin *pl,
                     crfp_trainset *ts, const char *const *kv, size_t dim, int *iters)
{
    double *x = calloc(dim, sizeof *x);
    if (!x)
        exit(99);
    tinycrf_mon m = {0, INFINITY, 1, INFINITY, 1};
    ts->monitor = tinycrf_monitor;
    ts->monitor_ud = &m;
    crfp_params *p = tinycrf_params(host, pl, kv);
    crfp_status st = vt->train(host, p, ts, x);
    CHECK(st == CRFP_OK, "%s: %s", pl->desc->name, crfp_errmsg(host));
    crfp_params_free(p);
    ts->monitor = NULL;
    *iters = m.iters;
    return x;
}

int main(void)
{
    static const tinycrf_spec spec = {4242, 80, 25, 4, 2, 9, 0.6};
    tinycrf t = {0};
    tinycrf_build(&t, &spec);
    crfp_host *host = t.host;
    crfp_team *team = NULL;
    if (crfp_team_new(2, &team) != CRFP_OK)
        return 99;
    const double rho2 = 0.2, rho1 = 0.3;
    crfp_trainset *ts1 = NULL, *ts2 = NULL, *tl1 = NULL;
    FAILIF(crfp_trainset_new(host, t.crf, t.ds, NULL, NULL, 0.0, rho2, &ts1));
    FAILIF(crfp_trainset_new(host, t.crf, t.ds, team, NULL, 0.0, rho2, &ts2));
    FAILIF(crfp_trainset_new(host, t.crf, t.ds, team, NULL, rho1, rho2, &tl1));
    const size_t dim = ts1->dim;

    const crfp_plugin *rp, *lb;
    const crfp_trainer_vtable *vr = tinycrf_trainer(host, "rprop", &rp),
                              *vl = tinycrf_trainer(host, "lbfgs", &lb);
    if (!vr || !vl)
        FAILIF(CRFP_ENOTFOUND);
    CHECK(vr->needs == CRFP_TS_BATCH, "needs %llx", (unsigned long long)vr->needs);
    CHECK(rp->desc->flags & CRFP_PLUGIN_TRAINER_L1, "rprop does not declare l1");

    double *g = malloc(dim * sizeof *g);
    if (!g)
        return 99;
    int it;
    /* the references: L-BFGS and OWL-QN to convergence */
    const char *kvl[] = {"epsilon", "0", "gtol", "1e-11", NULL};
    double *xl = train(host, vl, lb, ts1, kvl, dim, &it);
    double Fl, F0;
    FAILIF(ts1->batch(ts1->ud, xl, 1, &Fl, g));
    memset(g, 0, dim * sizeof *g);
    double *zero = calloc(dim, sizeof *zero);
    if (!zero)
        return 99;
    FAILIF(ts1->batch(ts1->ud, zero, 1, &F0, g));
    double *xo = train(host, vl, lb, tl1, kvl, dim, &it);
    double Fo = 0.0;
    FAILIF(tl1->batch(tl1->ud, xo, 1, &Fo, g));
    for (size_t j = 0; j < dim; j++)
        Fo += rho1 * fabs(xo[j]);
    size_t zo = 0;
    for (size_t j = 0; j < dim; j++)
        zo += xo[j] == 0.0;
    CHECK(zo > 0 && zo < dim, "OWL-QN: %zu of %zu weights at 0: no test of sparsity", zo, dim);

    static const char *const variants[] = {"rprop+", "rprop-"};
    for (int v = 0; v < 2; v++) {
        double *x[2];
        for (int th = 0; th < 2; th++) {
            const char *kv[] = {"variant", variants[v], "epsilon", "0", "max-iter", "4000",
                                NULL};
            x[th] = train(host, vr, rp, th ? ts2 : ts1, kv, dim, &it);
            double F, dx = 0.0;
            FAILIF(ts1->batch(ts1->ud, x[th], 1, &F, g));
            for (size_t j = 0; j < dim; j++)
                dx = fmax(dx, fabs(x[th][j] - xl[j]));
            printf("%s, l2, %d thread%s: %d iterations, F = %.12g (L-BFGS %.12g, F(0) %.6g), "
                   "max |dθ| %.2g\n", variants[v], th + 1, th ? "s" : "", it, F, Fl, F0, dx);
            CHECK(fabs(F - Fl) <= 1e-9 * Fl, "%s: F = %.15g, L-BFGS %.15g", variants[v], F, Fl);
            CHECK(dx < 1e-5, "%s: weights differ by %g", variants[v], dx);
        }
        CHECK(memcmp(x[0], x[1], dim * sizeof *x[0]) == 0,
              "%s: one thread and two give other weights", variants[v]);
        free(x[0]);
        free(x[1]);

        const char *kv[] = {"variant", variants[v], "epsilon", "0", "max-iter", "4000", NULL};
        double *xr = train(host, vr, rp, tl1, kv, dim, &it);
        double F;
        FAILIF(tl1->batch(tl1->ud, xr, 1, &F, g));
        size_t zr = 0, same = 0;
        for (size_t j = 0; j < dim; j++) {
            F += rho1 * fabs(xr[j]);
            zr += xr[j] == 0.0;
            same += (xr[j] == 0.0) == (xo[j] == 0.0);
        }
        printf("%s, l1: %d iterations, F = %.12g (OWL-QN %.12g), %zu weights at 0 (OWL-QN "
               "%zu), %zu of %zu alike\n", variants[v], it, F, Fo, zr, zo, same, dim);
        CHECK(fabs(F - Fo) <= 1e-7 * Fo, "%s, l1: F = %.15g, OWL-QN %.15g", variants[v], F, Fo);
        CHECK(same == dim, "%s, l1: %zu weights at 0 where OWL-QN has none, or the reverse",
              variants[v], dim - same);
        free(xr);
    }
    /* Wapiti's cut-off scheme: a descent, not OWL-QN's optimum */
    const char *kvc[] = {"cutoff", "true", "variant", "rprop-", "max-iter", "300", NULL};
    double *xc = train(host, vr, rp, tl1, kvc, dim, &it);
    double Fc;
    FAILIF(tl1->batch(tl1->ud, xc, 1, &Fc, g));
    for (size_t j = 0; j < dim; j++)
        Fc += rho1 * fabs(xc[j]);
    printf("cutoff: F = %.12g (OWL-QN %.12g, F(0) %.6g)\n", Fc, Fo, F0);
    CHECK(Fc < F0 && Fc >= Fo * (1 - 1e-9), "cutoff: F = %.12g", Fc);
    free(xc);

    /* parameter checks */
    static const char *const bad[][3] = {
        {"variant", "rprop*", NULL}, {"stpmin", "0", NULL},   {"stpmax", "0.01", NULL},
        {"stpinc", "1", NULL},       {"stpdec", "1", NULL},   {"window", "0", NULL},
        {"max-iter", "-1", NULL},    {"epsilon", "-1", NULL}, {"step0", "100", NULL}};
    double *xb = calloc(dim, sizeof *xb);
    for (size_t k = 0; xb && k < sizeof bad / sizeof *bad; k++) {
        crfp_params *p = tinycrf_params(host, rp, bad[k]);
        crfp_error_clear(host);
        CHECK(vr->train(host, p, ts1, xb) == CRFP_EINVAL && strstr(crfp_errmsg(host), bad[k][0]),
              "%s=%s accepted or unclear: '%s'", bad[k][0], bad[k][1], crfp_errmsg(host));
        crfp_params_free(p);
    }
    free(xb);
    free(xl);
    free(xo);
    free(zero);
    free(g);
    crfp_trainset_free(ts1);
    crfp_trainset_free(ts2);
    crfp_trainset_free(tl1);
    crfp_team_free(team);
    tinycrf_free(&t);
    return test_failures ? 1 : 0;
}
