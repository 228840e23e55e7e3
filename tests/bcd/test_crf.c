/* bcd: blockwise coordinate descent on a tiny CRF built through the engine
 * against lbfgs (OWL-QN) on the same training set.  With exact block
 * statistics (radius 0) both minimise the same strictly convex elastic-net
 * objective, so BCD must reach OWL-QN's optimum: the same F to 1e-7
 * relative, the same weights to 1e-4, the same zeros.  With windows
 * (radius 1) it minimises an approximation: F must still fall well below
 * its starting value and come close to the optimum.  The module's
 * descriptor, the capability it needs and its parameter checks are tested
 * too. */
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

static uint64_t rs = 77;
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

typedef struct mon {
    int sweeps;
    double last;
    int monotone;
} mon;

static crfp_status monitor(void *ud, const crfp_iter_info *info, const double *theta, int *stop)
{
    mon *m = ud;
    (void)theta;
    (void)stop;
    if (info->iter != m->sweeps + 1 || !(info->objective <= m->last * (1 + 1e-12)))
        m->monotone = 0;
    m->sweeps = info->iter;
    m->last = info->objective;
    return CRFP_OK;
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
     * words make ℓ1 zero some weights; "s=" observations carry both kinds
     * of weights, "b" is the constant bigram one. */
    for (int s = 0; s < 50; s++) {
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
    mon m = {0, INFINITY, 1};
    ts->monitor = monitor;
    ts->monitor_ud = &m;

    FAILIF(crfp_host_add_plugin_dir(host, CRFP_ABS_BUILDDIR "/plugins/bcd"));
    FAILIF(crfp_host_add_plugin_dir(host, CRFP_ABS_BUILDDIR "/plugins/lbfgs"));
    const crfp_plugin *bcd, *lbfgs;
    FAILIF(crfp_host_load_kind(host, "bcd", CRFP_KIND_TRAINER, &bcd));
    FAILIF(crfp_host_load_kind(host, "lbfgs", CRFP_KIND_TRAINER, &lbfgs));
    const crfp_trainer_vtable *vb = bcd->desc->vtable, *vl = lbfgs->desc->vtable;
    CHECK(vb->size == sizeof(crfp_trainer_vtable) && vb->needs == CRFP_TS_BLOCKS,
          "vtable: size %zu, needs %llx", vb->size, (unsigned long long)vb->needs);

    double *xl = calloc(dim, sizeof *xl), *xb = calloc(dim, sizeof *xb);
    double *x0 = calloc(dim, sizeof *x0), *g = malloc(dim * sizeof *g);
    if (!xl || !xb || !x0 || !g)
        return 99;

    /* the reference: OWL-QN to convergence */
    const char *kvl[] = {"epsilon", "0", "gtol", "1e-10", NULL};
    crfp_params *pl = params(host, lbfgs, kvl);
    ts->monitor = NULL;
    FAILIF(vl->train(host, pl, ts, xl));
    crfp_params_free(pl);
    ts->monitor = monitor;
    double Fl = objective(ts, xl, g), F0 = objective(ts, x0, g);

    /* bcd, exact statistics, to convergence */
    const char *kvb[] = {"radius", "0", "max-sweeps", "2000", "epsilon", "0", NULL};
    crfp_params *pb = params(host, bcd, kvb);
    FAILIF(vb->train(host, pb, ts, xb));
    crfp_params_free(pb);
    double Fb = objective(ts, xb, g), dx = 0.0;
    size_t zb = 0, zl = 0, zdiff = 0;
    for (size_t k = 0; k < dim; k++) {
        dx = fmax(dx, fabs(xb[k] - xl[k]));
        zb += xb[k] == 0;
        zl += xl[k] == 0;
        zdiff += (xb[k] == 0) != (fabs(xl[k]) < 1e-9);
    }
    printf("F(0) = %.10g; OWL-QN F* = %.10g (%zu zeros); bcd F = %.10g (%zu zeros) after %d "
           "sweeps, max |dθ| %.3g\n", F0, Fl, zl, Fb, zb, m.sweeps, dx);
    CHECK(m.monotone, "bcd's objective increased between sweeps");
    CHECK(fabs(Fb - Fl) <= 1e-7 * Fl, "bcd F = %.12g, OWL-QN %.12g", Fb, Fl);
    CHECK(dx < 1e-4, "weights differ by %g", dx);
    CHECK(zb > 0 && zdiff == 0, "zeros: bcd %zu, OWL-QN %zu, %zu differ", zb, zl, zdiff);

    /* windows of radius 1: an approximation, still a large decrease */
    memset(xb, 0, dim * sizeof *xb);
    m = (mon){0, INFINITY, 1};
    const char *kvw[] = {"radius", "1", "max-sweeps", "50", NULL};
    pb = params(host, bcd, kvw);
    FAILIF(vb->train(host, pb, ts, xb));
    crfp_params_free(pb);
    double Fw = objective(ts, xb, g);
    printf("bcd radius 1: F = %.10g after %d sweeps\n", Fw, m.sweeps);
    CHECK(Fw < Fl + 0.05 * (F0 - Fl), "radius 1: F = %.10g, optimum %.10g, F(0) %.10g", Fw, Fl,
          F0);

    /* parameter checks */
    const char *bad[] = {"max-tries", "0", NULL};
    pb = params(host, bcd, bad);
    CHECK(vb->train(host, pb, ts, xb) == CRFP_EINVAL, "max-tries 0 accepted");
    crfp_params_free(pb);

    free(xl);
    free(xb);
    free(x0);
    free(g);
    crfp_trainset_free(ts);
    crfp_obsseq_free(obs);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
    crfp_host_free(host);
    return test_failures ? 1 : 0;
}
