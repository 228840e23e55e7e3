/* sgd: sgd_l1 on a tiny CRF built through the engine (crfp_trainset_new)
 * against lbfgs (OWL-QN) on the same training set: the elastic-net
 * objective F = Σ loss_i + rho2/2‖θ‖² + rho1‖θ‖₁ must come within 0.1%
 * of OWL-QN's optimum (SGD with a decaying rate only approaches it, the
 * last digits being noise), with exact zeros; two runs with the same seed on
 * one thread must give the same bits; minibatch steps spread over a team of
 * three must follow the single-threaded run up to rounding. */
#include "../tinycrf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    static const tinycrf_spec spec = {2024, 60, 15, 3, 3, 6, 0.7};
    tinycrf t = {0};
    tinycrf_build(&t, &spec);
    crfp_host *host = t.host;
    crfp_crf *crf = t.crf;
    crfp_dataset *ds = t.ds;
    const double rho1 = 0.5, rho2 = 0.1;
    crfp_trainset *ts = NULL;
    FAILIF(crfp_trainset_new(host, crf, ds, NULL, NULL, rho1, rho2, &ts));
    size_t dim = ts->dim;

    const crfp_plugin *sgd, *lbfgs;
    const crfp_trainer_vtable *vs = tinycrf_trainer(host, "sgd_l1", &sgd),
                              *vl = tinycrf_trainer(host, "lbfgs", &lbfgs);
    if (!vs || !vl)
        FAILIF(CRFP_ENOTFOUND);

    double *xl = calloc(dim, sizeof *xl), *xs = calloc(dim, sizeof *xs),
           *x2 = calloc(dim, sizeof *x2), *g = malloc(dim * sizeof *g);
    if (!xl || !xs || !x2 || !g)
        return 99;

    /* the reference: OWL-QN to convergence */
    const char *kvl[] = {"epsilon", "0", "gtol", "1e-9", NULL};
    crfp_params *pl = tinycrf_params(host, lbfgs, kvl);
    FAILIF(vl->train(host, pl, ts, xl));
    crfp_params_free(pl);
    double Fl = tinycrf_objective(ts, xl, g);

    /* sgd_l1, calibrated, many epochs */
    /* decay 0.5: the slower schedule gets closer in a fixed number of epochs
     * on a problem this small (with the default 1 the gap is ~1e-3). */
    const char *kvs[] = {"max-epochs", "300", "epsilon", "0", "decay", "0.5", NULL};
    crfp_params *ps = tinycrf_params(host, sgd, kvs);
    FAILIF(vs->train(host, ps, ts, xs));
    double Fs = tinycrf_objective(ts, xs, g), F0 = tinycrf_objective(ts, x2, g);
    size_t zs = 0, zl = 0;
    for (size_t k = 0; k < dim; k++) {
        zs += xs[k] == 0;
        zl += xl[k] == 0;
    }
    printf("F(0) = %.8g, lbfgs F* = %.8g (%zu zeros), sgd_l1 F = %.8g (%zu zeros) of %zu; "
           "relative gap %.3g\n",
           F0, Fl, zl, Fs, zs, dim, (Fs - Fl) / Fl);
    CHECK(Fs >= Fl * (1 - 1e-6), "sgd below the optimum? %.10g < %.10g", Fs, Fl);
    /* The stated tolerance: within 0.1 % of the optimal objective (SGD's
     * last iterates hover around the optimum at the final learning rate;
     * measured gap 6e-5 with decay 0.5 and 300 epochs). */
    CHECK((Fs - Fl) / Fl < 1e-3, "sgd_l1 F = %.10g, optimum %.10g", Fs, Fl);
    CHECK(zs > 0, "no exact zero");

    /* one thread, same seed: the same bits */
    FAILIF(vs->train(host, ps, ts, x2));
    CHECK(memcmp(xs, x2, dim * sizeof *xs) == 0, "two runs with seed 1 differ");
    crfp_params_free(ps);

    /* minibatches of 5 on one thread and on a team of three (parstep.c):
     * the same iterates but for the order of the gradients' sums */
    crfp_team *team = NULL;
    crfp_trainset *ts3 = NULL;
    FAILIF(crfp_team_new(3, &team));
    FAILIF(crfp_trainset_new(host, crf, ds, team, NULL, rho1, rho2, &ts3));
    const char *kvb[] = {"max-epochs", "40", "epsilon", "0", "batch", "5", NULL};
    crfp_params *pb = tinycrf_params(host, sgd, kvb);
    memset(xs, 0, dim * sizeof *xs);
    memset(x2, 0, dim * sizeof *x2);
    FAILIF(vs->train(host, pb, ts, xs));
    FAILIF(vs->train(host, pb, ts3, x2));
    double worst = 0;
    size_t nz1 = 0, nz3 = 0;
    for (size_t k = 0; k < dim; k++) {
        double d = fabs(xs[k] - x2[k]);
        worst = d > worst ? d : worst;
        nz1 += xs[k] != 0;
        nz3 += x2[k] != 0;
    }
    printf("batch 5: 1 thread %zu non-zero, 3 threads %zu non-zero, max |difference| %.3g\n",
           nz1, nz3, worst);
    CHECK(worst < 1e-9, "1 and 3 threads differ by %.3g", worst);
    CHECK(nz1 == nz3 && nz1 > 0, "non-zeros: %zu on 1 thread, %zu on 3", nz1, nz3);
    crfp_params_free(pb);
    crfp_trainset_free(ts3);
    crfp_team_free(team);

    /* a starting point whose scores overflow exp() (a warm start of huge
     * weights): said as such, not blamed on the learning rate */
    for (size_t k = 0; k < dim; k++)
        x2[k] = xl[k] * 1e4;
    ps = tinycrf_params(host, sgd, kvs);
    CHECK(vs->train(host, ps, ts, x2) == CRFP_EINVAL &&
              strstr(crfp_errmsg(host), "not finite") != NULL,
          "a non-finite starting objective: %s", crfp_errmsg(host));
    crfp_params_free(ps);

    free(xl);
    free(xs);
    free(x2);
    free(g);
    crfp_trainset_free(ts);
    tinycrf_free(&t);
    return test_failures ? 1 : 0;
}
