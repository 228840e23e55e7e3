/* bcd: blockwise coordinate descent on a tiny CRF built through the engine
 * against lbfgs (OWL-QN) on the same training set.  With exact block
 * statistics (radius 0) both minimise the same strictly convex elastic-net
 * objective, so BCD must reach OWL-QN's optimum: the same F to 1e-7
 * relative, the same weights to 1e-4, the same zeros.  With windows
 * (radius 1) it minimises an approximation: F must still fall well below
 * its starting value and come close to the optimum.  The module's
 * descriptor, the capability it needs and its parameter checks are tested
 * too. */
#include "../tinycrf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
    static const tinycrf_spec spec = {77, 50, 15, 3, 3, 6, 0.7};
    tinycrf t = {0};
    tinycrf_build(&t, &spec);
    crfp_host *host = t.host;
    crfp_crf *crf = t.crf;
    crfp_dataset *ds = t.ds;
    const double rho1 = 0.5, rho2 = 0.1;
    crfp_trainset *ts = NULL;
    FAILIF(crfp_trainset_new(host, crf, ds, NULL, NULL, rho1, rho2, &ts));
    size_t dim = ts->dim;
    tinycrf_mon m = {0, INFINITY, 1, 1e-12, 0};
    ts->monitor = tinycrf_monitor;
    ts->monitor_ud = &m;

    const crfp_plugin *bcd, *lbfgs;
    const crfp_trainer_vtable *vb = tinycrf_trainer(host, "bcd", &bcd),
                              *vl = tinycrf_trainer(host, "lbfgs", &lbfgs);
    if (!vb || !vl)
        FAILIF(CRFP_ENOTFOUND);
    CHECK(vb->size == sizeof(crfp_trainer_vtable) && vb->needs == CRFP_TS_BLOCKS,
          "vtable: size %zu, needs %llx", vb->size, (unsigned long long)vb->needs);

    double *xl = calloc(dim, sizeof *xl), *xb = calloc(dim, sizeof *xb);
    double *x0 = calloc(dim, sizeof *x0), *g = malloc(dim * sizeof *g);
    if (!xl || !xb || !x0 || !g)
        return 99;

    /* the reference: OWL-QN to convergence */
    const char *kvl[] = {"epsilon", "0", "gtol", "1e-10", NULL};
    crfp_params *pl = tinycrf_params(host, lbfgs, kvl);
    ts->monitor = NULL;
    FAILIF(vl->train(host, pl, ts, xl));
    crfp_params_free(pl);
    ts->monitor = tinycrf_monitor;
    double Fl = tinycrf_objective(ts, xl, g), F0 = tinycrf_objective(ts, x0, g);

    /* bcd, exact statistics, to convergence */
    const char *kvb[] = {"radius", "0", "max-sweeps", "2000", "epsilon", "0", NULL};
    crfp_params *pb = tinycrf_params(host, bcd, kvb);
    FAILIF(vb->train(host, pb, ts, xb));
    crfp_params_free(pb);
    double Fb = tinycrf_objective(ts, xb, g), dx = 0.0;
    size_t zb = 0, zl = 0, zdiff = 0;
    for (size_t k = 0; k < dim; k++) {
        dx = fmax(dx, fabs(xb[k] - xl[k]));
        zb += xb[k] == 0;
        zl += xl[k] == 0;
        zdiff += (xb[k] == 0) != (fabs(xl[k]) < 1e-9);
    }
    printf("F(0) = %.10g; OWL-QN F* = %.10g (%zu zeros); bcd F = %.10g (%zu zeros) after %d "
           "sweeps, max |dθ| %.3g\n", F0, Fl, zl, Fb, zb, m.iters, dx);
    CHECK(m.monotone, "bcd's objective increased between sweeps");
    CHECK(fabs(Fb - Fl) <= 1e-7 * Fl, "bcd F = %.12g, OWL-QN %.12g", Fb, Fl);
    CHECK(dx < 1e-4, "weights differ by %g", dx);
    CHECK(zb > 0 && zdiff == 0, "zeros: bcd %zu, OWL-QN %zu, %zu differ", zb, zl, zdiff);

    /* windows of radius 1: an approximation, still a large decrease */
    memset(xb, 0, dim * sizeof *xb);
    m = (tinycrf_mon){0, INFINITY, 1, 1e-12, 0};
    const char *kvw[] = {"radius", "1", "max-sweeps", "50", NULL};
    pb = tinycrf_params(host, bcd, kvw);
    FAILIF(vb->train(host, pb, ts, xb));
    crfp_params_free(pb);
    double Fw = tinycrf_objective(ts, xb, g);
    printf("bcd radius 1: F = %.10g after %d sweeps\n", Fw, m.iters);
    CHECK(Fw < Fl + 0.05 * (F0 - Fl), "radius 1: F = %.10g, optimum %.10g, F(0) %.10g", Fw, Fl,
          F0);

    /* parameter checks */
    const char *bad[] = {"max-tries", "0", NULL};
    pb = tinycrf_params(host, bcd, bad);
    CHECK(vb->train(host, pb, ts, xb) == CRFP_EINVAL, "max-tries 0 accepted");
    crfp_params_free(pb);

    /* a starting point whose scores overflow exp() (a warm start of huge
     * weights): a clear error, not a model of NaN weights */
    for (size_t k = 0; k < dim; k++)
        xb[k] = xl[k] * 1e4;
    pb = tinycrf_params(host, bcd, kvw);
    ts->monitor = NULL;
    CHECK(vb->train(host, pb, ts, xb) == CRFP_EINVAL &&
              strstr(crfp_errmsg(host), "not finite") != NULL,
          "a non-finite starting objective: %s", crfp_errmsg(host));
    crfp_params_free(pb);

    free(xl);
    free(xb);
    free(x0);
    free(g);
    crfp_trainset_free(ts);
    tinycrf_free(&t);
    return test_failures ? 1 : 0;
}
