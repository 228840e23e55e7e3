/* Benchmark of the CRF engine on synthetic data.
 *
 *   fwdbwd_bench [ZERO_FRACTION [TOKENS]]
 *
 * 1. Forward-backward, sparse against dense, Y = 22, with one bigram
 *    observation per position whose transition weights are zero in the given
 *    fraction (default 0.9): prints both times and their ratio.
 * 2. One objective+gradient evaluation on a CoNLL-2000-sized problem
 *    (TOKENS tokens, default 211727; 19 unigram observations per token out of
 *    340k, the constant bigram observation "B") on 1 and 2 threads.
 * Times are wall-clock (CLOCK_MONOTONIC); nothing here is a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "crfpipe/crfpipe.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double unif(void) { return (double)(next() >> 11) / 9007199254740992.0; }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static crfp_crf *model(uint32_t Y, uint32_t nuni)
{
    crfp_crf *crf = crfp_crf_new();
    char name[32];
    uint32_t id;
    for (uint32_t y = 0; y < Y; y++) {
        snprintf(name, sizeof name, "L%u", y);
        crfp_crf_add_label(crf, name, &id);
    }
    crfp_crf_add_obs(crf, "B", 1, CRFP_OBS_BIGRAM, &id);
    for (uint32_t o = 0; o < nuni; o++) {
        int n = snprintf(name, sizeof name, "u%u", o);
        crfp_crf_add_obs(crf, name, (size_t)n, CRFP_OBS_UNIGRAM, &id);
    }
    if (crfp_crf_finalize(crf) != CRFP_OK) {
        fprintf(stderr, "finalize failed\n");
        return NULL;
    }
    return crf;
}

/* Sentences of about 24 tokens, `per` unigram observations per token drawn
 * with a skew so that some are frequent, and "B" (id 0) everywhere. */
static crfp_dataset *dataset(uint32_t Y, uint32_t nuni, size_t tokens, uint32_t per)
{
    crfp_dataset *ds = crfp_dataset_new();
    uint32_t T = 24;
    uint32_t *uoff = malloc((T + 1) * sizeof *uoff), *boff = malloc((T + 1) * sizeof *boff);
    uint32_t *uobs = malloc((size_t)T * per * sizeof *uobs), *bobs = malloc(T * sizeof *bobs);
    uint32_t *y = malloc(T * sizeof *y);
    for (size_t done = 0; done < tokens; done += T) {
        uoff[0] = boff[0] = 0;
        for (uint32_t t = 0; t < T; t++) {
            for (uint32_t k = 0; k < per; k++) {
                double u = unif();
                uobs[t * per + k] = 1 + (uint32_t)(u * u * u * nuni) % nuni;
            }
            uoff[t + 1] = (t + 1) * per;
            bobs[t] = 0;
            boff[t + 1] = t + 1;
            y[t] = (uint32_t)(next() % Y);
        }
        crfp_seq s = {T, y, uoff, uobs, boff, bobs};
        crfp_dataset_add_ids(NULL, ds, &s);
    }
    free(uoff);
    free(boff);
    free(uobs);
    free(bobs);
    free(y);
    return ds;
}

int main(int argc, char **argv)
{
    double zero = argc > 1 ? atof(argv[1]) : 0.9;
    size_t tokens = argc > 2 ? (size_t)atol(argv[2]) : 211727;
    const uint32_t Y = 22;

    /* 1. sparse vs dense forward-backward */
    crfp_crf *crf = model(Y, 1000);
    if (!crf)
        return 1;
    double *w = crfp_crf_weights(crf);
    for (size_t i = 0; i < crfp_crf_nparams(crf); i++)
        w[i] = 0.5 * (2 * unif() - 1);
    uint64_t bb = crfp_crf_bblock(crf, 0);
    for (size_t i = 0; i < (size_t)(Y + 1) * Y; i++)
        w[bb + i] = unif() < zero ? 0.0 : 2 * unif() - 1;
    crfp_dataset *ds = dataset(Y, 1000, 50000, 10);
    double t_mode[3] = {0, 0, 0}, lz_mode[3] = {0, 0, 0};
    size_t maxT = 0;
    for (size_t i = 0; i < crfp_dataset_size(ds); i++)
        maxT = crfp_dataset_get(ds, i)->T > maxT ? crfp_dataset_get(ds, i)->T : maxT;
    double *marg = malloc(maxT * Y * sizeof *marg);
    for (int mode = 1; mode <= 2; mode++) {
        crfp_infer *inf = crfp_infer_new(crf);
        crfp_infer_set_mode(inf, mode);
        double t0 = now(), sum = 0.0;
        for (int rep = 0; rep < 3; rep++)
            for (size_t i = 0; i < crfp_dataset_size(ds); i++) {
                double lz;
                crfp_forward_backward(inf, crfp_dataset_get(ds, i), w, &lz, marg);
                sum += lz;
            }
        t_mode[mode] = now() - t0;
        lz_mode[mode] = sum;
        crfp_infer_free(inf);
    }
    printf("forward-backward Y=%u, %.0f%% zero transitions, %zu tokens x3:\n", Y, 100 * zero,
           crfp_dataset_tokens(ds));
    printf("  sparse %.3f s  dense %.3f s  dense/sparse %.2f  (sum logZ %.10g vs %.10g)\n",
           t_mode[1], t_mode[2], t_mode[2] / t_mode[1], lz_mode[1], lz_mode[2]);
    free(marg);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);

    /* 2. objective on a CoNLL-2000-sized problem */
    crf = model(Y, 340000);
    ds = dataset(Y, 340000, tokens, 19);
    size_t P = crfp_crf_nparams(crf);
    double *theta = malloc(P * sizeof *theta), *g = malloc(P * sizeof *g);
    for (size_t i = 0; i < P; i++)
        theta[i] = 0.1 * (2 * unif() - 1);
    printf("objective: %zu tokens, %zu sentences, %zu parameters\n", crfp_dataset_tokens(ds),
           crfp_dataset_size(ds), P);
    for (int nt = 1; nt <= 2; nt++) {
        crfp_crfobj *obj;
        crfp_team *tm = NULL;
        if (crfp_team_new(nt, &tm) != CRFP_OK || crfp_crfobj_new(NULL, crf, ds, tm, 1e-3, &obj) != CRFP_OK)
            return 1;
        double f = 0, best = 1e30;
        for (int rep = 0; rep < 4; rep++) {
            double t0 = now();
            crfp_crfobj_eval(obj, theta, &f, g);
            double dt = now() - t0;
            best = dt < best ? dt : best;
        }
        printf("  %d thread%s: best of 4 evaluations %.3f s (f = %.10g)\n", nt, nt > 1 ? "s" : "",
               best, f);
        crfp_crfobj_free(obj);
        crfp_team_free(tm);
    }
    /* 3. model file of that size: save and load times */
    memcpy(crfp_crf_weights(crf), theta, P * sizeof *theta);
    char path[] = "/tmp/crfp-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
        close(fd);
        crfp_host *host = crfp_host_new();
        double t0 = now();
        crfp_status st = crfp_crf_save(host, crf, path);
        double t1 = now();
        crfp_crf *m = NULL;
        if (st == CRFP_OK)
            st = crfp_crf_load(host, path, &m);
        double t2 = now();
        printf("model file: save %.3f s, load %.3f s (%s)\n", t1 - t0, t2 - t1,
               st == CRFP_OK ? "ok" : crfp_errmsg(host));
        crfp_crf_free(m);
        crfp_host_free(host);
        unlink(path);
    }
    free(theta);
    free(g);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
    return 0;
}
