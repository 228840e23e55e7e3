/* lbfgs: OWL-QN on a real (tiny, random) linear-chain CRF objective from
 * the engine: F must decrease monotonically and the result must satisfy
 * the ℓ1 optimality conditions with some exact zeros. */
#include "config.h"
#include "problems.h"
#include "lbfgs_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct crfrun {
    crfp_crfobj *obj;
    int iters, monotone;
    double last;
} crfrun;

static crfp_status eval(void *ud, const double *x, double *f, double *g)
{
    return crfp_crfobj_eval(((crfrun *)ud)->obj, x, f, g);
}

static crfp_status iteration(void *ud, const crfp_iter_info *info, const double *x, int *stop)
{
    crfrun *r = ud;
    (void)x;
    (void)stop;
    if (!(info->objective <= r->last) || info->iter != r->iters + 1)
        r->monotone = 0;
    r->last = info->objective;
    r->iters = info->iter;
    return CRFP_OK;
}

#define FAILIF(st)                                                                       \
    do {                                                                                 \
        if ((st) != CRFP_OK) {                                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, crfp_errmsg(host));       \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

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
    rng r = {2024};
    /* Labels depend on the word (noisily) and on the previous label, so
     * both unigram and bigram weights matter; rare words make ℓ1 zero
     * some of them. */
    for (int s = 0; s < 40; s++) {
        size_t T = 3 + (size_t)(rng_uniform(&r) * 6);
        const char *lab[16];
        FAILIF(crfp_obsseq_reset(obs, T));
        int prev = 0;
        for (size_t t = 0; t < T; t++) {
            int w = (int)(rng_uniform(&r) * 12);
            int y = rng_uniform(&r) < 0.7 ? w % 3 : (prev + 1) % 3;
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
    size_t n = crfp_crf_nparams(crf);
    crfrun run = {NULL, 0, 1, INFINITY};
    crfp_team *tm = NULL;
    FAILIF(crfp_team_new(2, &tm));
    FAILIF(crfp_crfobj_new(host, crf, ds, tm, 0.1, &run.obj));
    double rho1 = 1.0;
    lbfgs_objective obj = {n, rho1, 0.1, &run, eval, iteration};
    double *x = calloc(n, sizeof(double)), *g = calloc(n, sizeof(double));
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    o.epsilon = 0;
    o.gtol = 1e-10;
    o.max_iter = 2000;
    crfp_status st = lbfgs_minimize(host, &o, &obj, x);
    CHECK(st == CRFP_OK, "train: %s", crfp_errmsg(host));
    CHECK(run.monotone, "F increased");
    CHECK(run.iters > 3 && run.iters < 2000, "%d iterations", run.iters);

    double f, worst = 0;
    FAILIF(crfp_crfobj_eval(run.obj, x, &f, g));
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i] > 0   ? fabs(g[i] + rho1)
                   : x[i] < 0 ? fabs(g[i] - rho1)
                              : fmax(0.0, fabs(g[i]) - rho1);
        worst = fmax(worst, v);
        zeros += x[i] == 0;
    }
    CHECK(worst < 1e-4, "optimality violated by %g", worst);
    CHECK(zeros > 0 && zeros < n, "%zu of %zu weights are zero", zeros, n);
    printf("crf: %zu weights, %d iterations, %zu zeros, violation %.3g\n", n, run.iters, zeros,
           worst);
    free(x);
    free(g);
    crfp_crfobj_free(run.obj);
    crfp_team_free(tm);
    crfp_obsseq_free(obs);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
    crfp_host_free(host);
    return test_failures ? 1 : 0;
}
