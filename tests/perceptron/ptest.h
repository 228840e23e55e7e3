/* Shared helpers of the perceptron tests: a check macro, a seeded RNG and
 * tiny CRF problems built through the public engine API (crf.h). */
#ifndef PTEST_H
#define PTEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crfpipe/crfpipe.h"
#include "crfpipe/rng.h"

#include "../testcheck.h"

/* Abort the test (exit 99: hard error) when a setup step fails. */
#define MUST(host, expr)                                                              \
    do {                                                                              \
        crfp_status st_ = (expr);                                                     \
        if (st_ != CRFP_OK) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,             \
                    crfp_errmsg(host));                                               \
            exit(99);                                                                 \
        }                                                                             \
    } while (0)

/* A tiny problem: the model, its labelled dataset and the engine's
 * training set over them.  Everything owned by the struct (pt_free). */
typedef struct pt_problem {
    crfp_crf *crf;
    crfp_dataset *ds;
    crfp_trainset *ts;
} pt_problem;

/* Build `nseq` sentences of 3..8 tokens over `nwords` words and 3 labels.
 * Token t carries the unigram+bigram observation "w=<word>" and the bigram
 * observation "b" (a plain transition).  With noise = 0 the labels follow
 *     y_0 = w_0 mod 3,   y_t = (w_t + y_{t-1}) mod 3,
 * which λ(y', y, w) represents exactly: the set is separable.  With noise
 * p each label is replaced by a random one with probability p. */
static inline void pt_build(crfp_host *host, pt_problem *p, uint64_t seed, size_t nseq,
                            int nwords, double noise, double rho2)
{
    static const char *const names[] = {"A", "B", "C"};
    memset(p, 0, sizeof *p);
    p->crf = crfp_crf_new();
    p->ds = crfp_dataset_new();
    crfp_obsseq *obs = crfp_obsseq_new();
    if (!p->crf || !p->ds || !obs)
        exit(99);
    crfp_rng r;
    crfp_rng_seed(&r, seed);
    for (size_t s = 0; s < nseq; s++) {
        size_t T = 3 + crfp_rng_below(&r, 6);
        const char *lab[8];
        MUST(host, crfp_obsseq_reset(obs, T));
        size_t prev = 0;
        for (size_t t = 0; t < T; t++) {
            size_t w = crfp_rng_below(&r, (size_t)nwords);
            size_t y = t == 0 ? w % 3 : (w + prev) % 3;
            if (noise > 0 && crfp_rng_unit(&r) < noise)
                y = crfp_rng_below(&r, 3);
            char buf[32];
            int len = snprintf(buf, sizeof buf, "w=%zu", w);
            MUST(host, crfp_obsseq_push(obs, t, CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM, buf,
                                        (size_t)len));
            MUST(host, crfp_obsseq_push(obs, t, CRFP_OBS_BIGRAM, "b", 1));
            lab[t] = names[y];
            prev = y;
        }
        MUST(host, crfp_dataset_add(host, p->ds, p->crf, obs, lab, 1));
    }
    crfp_obsseq_free(obs);
    MUST(host, crfp_crf_finalize(p->crf));
    MUST(host, crfp_trainset_new(host, p->crf, p->ds, NULL, NULL, 0.0, rho2, &p->ts));
}

static inline void pt_free(pt_problem *p)
{
    crfp_trainset_free(p->ts);
    crfp_dataset_free(p->ds);
    crfp_crf_free(p->crf);
    memset(p, 0, sizeof *p);
}

/* Token errors of Viterbi under theta on the problem's training data. */
static inline size_t pt_errors(const pt_problem *p, const double *theta)
{
    size_t te = 0, se = 0;
    if (crfp_crf_errors(p->crf, p->ds, theta, NULL, &te, &se) != CRFP_OK)
        exit(99);
    return te;
}

#endif
