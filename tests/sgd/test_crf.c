/* sgd: sgd_l1 on a tiny CRF built through the engine (crfp_trainset_new)
 * against lbfgs (OWL-QN) on the same training set: the elastic-net
 * objective F = Σ loss_i + rho2/2‖θ‖² + rho1‖θ‖₁ must come within 0.1%
 * of OWL-QN's optimum (SGD with a decaying rate only approaches it, the
 * last digits being noise), with exact zeros; two runs with the same seed on
 * one thread must give the same bits. */
#include "config.h"
#include "crfpipe/crfpipe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testcheck.h"
#define FAILIF(st)                                                                        \
    do {                                                                                  \
        if ((st) != CRFP_OK) {                                                            \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, crfp_errmsg(host));        \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

static uint64_t rs = 2024;
static double unif(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (double)(rs >> 11) / 9007199254740992.0;
}

static double objective(const crfp_trainset *ts, const double *theta, double *g)
{
    double f;
    if (ts->batch(ts->ud, theta, 1, &f, g) != CRFP_OK)
        return NAN;
    for (size_t k = 0; k < ts->dim; k++)
        f += ts->rho1 * fabs(theta[k]);
    return f;
}

static crfp_params *params(crfp_host *host, const crfp_plugin *pl, const char *const *kv)
{
    crfp_params *p = crfp_params_new(pl->desc->params, pl->desc->nparams);
    if (!p)
        exit(99);
    for (; kv && kv[0]; kv += 2) {
        crfp_status st = crfp_params_set(host, p, "test", kv[0], kv[1], NULL);
        CHECK(st == CRFP_OK, "set %s=%s: %s", kv[0], kv[1], crfp_errmsg(host));
    }
    return p;
}

int main(void)
{
    crfp_host *host = crfp_host_new();
    crfp_crf *crf = crfp_crf_new();
    crfp_dataset *ds = crfp_dataset_new();
    crfp_obsseq *obs = crfp_obsseq_new();
    if (!host || !crf || !ds || !obs)
        return 99;
    crfp_host_set_verbosity(host, CRFP_LOG_WARN);
    static const char *const labels[] = {"A", "B", "C"};
    /* Labels depend on the word (noisily) and on the previous label; rare
     * words make ℓ1 zero some weights. */
    for (int s = 0; s < 60; s++) {
        size_t T = 3 + (size_t)(unif() * 6);
        const char *lab[16];
        FAILIF(crfp_obsseq_reset(obs, T));
        int prev = 0;
        for (size_t t = 0; t < T; t++) {
            int w = (int)(unif() * 15);
            int y = unif() < 0.7 ? w % 3 : (prev + 1) % 3;
            char buf[32];
            int len = snprintf(buf, sizeof buf, "w=%d", w);
            FAILIF(crfp_obsseq_push(obs, t, CRFP_OBS_UNIGRAM, buf, (size_t)len));
            len = snprintf(buf, sizeof buf, "s=%d", w % 2);
            FAILIF(crfp_obsseq_push(obs, t, CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM, buf,
                                    (size_t)len));
            FAILIF(crfp_obsseq_push(obs, t, CRFP_OBS_BIGRAM, "b", 1));
            lab[t] = labels[y];
            prev = y;
        }
        FAILIF(crfp_dataset_add(host, ds, crf, obs, lab, 1));
    }
    FAILIF(crfp_crf_finalize(crf));
    const double rho1 = 0.5, rho2 = 0.1;
    crfp_trainset *ts = NULL;
    FAILIF(crfp_trainset_new(host, crf, ds, NULL, NULL, rho1, rho2, &ts));
    size_t dim = ts->dim;

    FAILIF(crfp_host_add_plugin_dir(host, CRFP_ABS_BUILDDIR "/plugins/sgd_l1"));
    FAILIF(crfp_host_add_plugin_dir(host, CRFP_ABS_BUILDDIR "/plugins/lbfgs"));
    const crfp_plugin *sgd, *lbfgs;
    FAILIF(crfp_host_load_kind(host, "sgd_l1", CRFP_KIND_TRAINER, &sgd));
    FAILIF(crfp_host_load_kind(host, "lbfgs", CRFP_KIND_TRAINER, &lbfgs));
    const crfp_trainer_vtable *vs = sgd->desc->vtable, *vl = lbfgs->desc->vtable;

    double *xl = calloc(dim, sizeof *xl), *xs = calloc(dim, sizeof *xs),
           *x2 = calloc(dim, sizeof *x2), *g = malloc(dim * sizeof *g);
    if (!xl || !xs || !x2 || !g)
        return 99;

    /* the reference: OWL-QN to convergence */
    const char *kvl[] = {"epsilon", "0", "gtol", "1e-9", NULL};
    crfp_params *pl = params(host, lbfgs, kvl);
    FAILIF(vl->train(host, pl, ts, xl));
    crfp_params_free(pl);
    double Fl = objective(ts, xl, g);

    /* sgd_l1, calibrated, many epochs */
    /* decay 0.5: the slower schedule gets closer in a fixed number of epochs
     * on a problem this small (with the default 1 the gap is ~1e-3). */
    const char *kvs[] = {"max-epochs", "300", "epsilon", "0", "decay", "0.5", NULL};
    crfp_params *ps = params(host, sgd, kvs);
    FAILIF(vs->train(host, ps, ts, xs));
    double Fs = objective(ts, xs, g), F0 = objective(ts, x2, g);
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

    free(xl);
    free(xs);
    free(x2);
    free(g);
    crfp_trainset_free(ts);
    crfp_obsseq_free(obs);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
    crfp_host_free(host);
    return test_failures ? 1 : 0;
}
