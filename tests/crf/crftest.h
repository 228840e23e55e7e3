/* Shared helpers of the CRF engine tests: seeded RNG, random models and
 * sequences, brute-force enumeration of all labellings. */
#ifndef CRFTEST_H
#define CRFTEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crfpipe/crfpipe.h"

#include "../testcheck.h"

static uint64_t ct_rng = 0x9e3779b97f4a7c15ULL;
static inline uint64_t ct_next(void)
{
    ct_rng ^= ct_rng << 13;
    ct_rng ^= ct_rng >> 7;
    ct_rng ^= ct_rng << 17;
    return ct_rng;
}
static inline double ct_unif(void) { return (double)(ct_next() >> 11) / 9007199254740992.0; }
static inline uint32_t ct_int(uint32_t n) { return (uint32_t)(ct_next() % n); }

static inline int ct_close(double a, double b, double tol)
{
    return fabs(a - b) <= tol * (1.0 + fabs(a) + fabs(b));
}

/* A model with Y labels and nobs observations of random kinds. */
static inline crfp_crf *ct_model(uint32_t Y, uint32_t nobs)
{
    crfp_crf *crf = crfp_crf_new();
    char name[32];
    for (uint32_t y = 0; y < Y; y++) {
        uint32_t id;
        snprintf(name, sizeof name, "L%u", y);
        if (crfp_crf_add_label(crf, name, &id) != CRFP_OK)
            abort();
    }
    for (uint32_t o = 0; o < nobs; o++) {
        uint32_t id;
        /* First two observations have both kinds so every problem has both. */
        unsigned flags = o < 2 ? 3 : 1 + ct_int(3);
        snprintf(name, sizeof name, "o%u", o);
        if (crfp_crf_add_obs(crf, name, strlen(name), flags, &id) != CRFP_OK)
            abort();
    }
    if (crfp_crf_finalize(crf) != CRFP_OK)
        abort();
    return crf;
}

/* Random weights; a fraction pzero exactly 0; with `discrete` values are
 * multiples of 0.5 so that ties occur. */
static inline void ct_weights(crfp_crf *crf, double pzero, int discrete, double scale)
{
    double *w = crfp_crf_weights(crf);
    for (size_t i = 0; i < crfp_crf_nparams(crf); i++) {
        if (ct_unif() < pzero)
            w[i] = 0.0;
        else if (discrete)
            w[i] = 0.5 * ((double)ct_int(9) - 4.0);
        else
            w[i] = scale * (2.0 * ct_unif() - 1.0);
    }
}

/* When set, ct_seq_make gives most sequences values on their unigram
 * observations (CRFsuite's attribute values): 1, 0, negative, fractional,
 * large; the rest stay binary (uval NULL), so that datasets mix both. */
static int ct_valued;

static inline double ct_value(void)
{
    static const double pick[] = {1.0, 0.0, -1.0, 0.5, 2.5, -0.3, 4.0};
    return ct_int(3) ? pick[ct_int(7)] : 6.0 * ct_unif() - 3.0;
}

static inline void ct_seq_free(crfp_seq *s)
{
    free(s->uval);
    free(s->uoff);
    free(s->uobs);
    free(s->boff);
    free(s->bobs);
    free(s->y);
    memset(s, 0, sizeof *s);
}

/* Random sequence of T positions, up to maxu unigram and maxb bigram
 * observations per position, labels random. */
static inline void ct_seq_make(const crfp_crf *crf, uint32_t T, uint32_t maxu, uint32_t maxb,
                        crfp_seq *s)
{
    uint32_t nobs = crfp_crf_nobs(crf), Y = crfp_crf_nlabels(crf);
    s->T = T;
    s->uoff = calloc((size_t)T + 1, sizeof(uint32_t));
    s->boff = calloc((size_t)T + 1, sizeof(uint32_t));
    s->uobs = calloc((size_t)T * maxu + 1, sizeof(uint32_t));
    s->bobs = calloc((size_t)T * maxb + 1, sizeof(uint32_t));
    s->y = calloc((size_t)T + 1, sizeof(uint32_t));
    uint32_t nu = 0, nb = 0;
    for (uint32_t t = 0; t < T; t++) {
        uint32_t ku = ct_int(maxu + 1), kb = ct_int(maxb + 1);
        for (uint32_t k = 0; k < ku; k++) {
            uint32_t o = ct_int(nobs);
            if (crfp_crf_ublock(crf, o) != CRFP_NO_BLOCK)
                s->uobs[nu++] = o;
        }
        for (uint32_t k = 0; k < kb; k++) {
            uint32_t o = ct_int(nobs);
            if (crfp_crf_bblock(crf, o) != CRFP_NO_BLOCK)
                s->bobs[nb++] = o;
        }
        s->uoff[t + 1] = nu;
        s->boff[t + 1] = nb;
        s->y[t] = ct_int(Y);
    }
    s->uval = NULL;
    if (ct_valued && ct_int(4)) {
        s->uval = calloc((size_t)nu + 1, sizeof(double));
        for (uint32_t i = 0; i < nu; i++)
            s->uval[i] = ct_value();
    }
}

/* The score of labelling y, from the definition (not the engine's
 * crfp_path_score): Σ_t Σ_i v_i μ(y_t, o_i) + Σ_t Σ_j λ(y_{t-1}, y_t, o_j),
 * with y_{-1} the start label (row Y of a bigram block). */
static inline double ct_ref_score(const crfp_crf *crf, const crfp_seq *s, const double *theta,
                                  const uint32_t *y)
{
    uint32_t Y = crfp_crf_nlabels(crf);
    double sc = 0.0;
    for (uint32_t t = 0; t < s->T; t++) {
        for (uint32_t i = s->uoff[t]; i < s->uoff[t + 1]; i++)
            sc += (s->uval ? s->uval[i] : 1.0) * theta[crfp_crf_ublock(crf, s->uobs[i]) + y[t]];
        uint64_t row = t ? y[t - 1] : Y;
        for (uint32_t j = s->boff[t]; j < s->boff[t + 1]; j++)
            sc += theta[crfp_crf_bblock(crf, s->bobs[j]) + row * Y + y[t]];
    }
    return sc;
}

/* Brute force: visit every labelling of seq (Y^T of them) in lexicographic
 * order, with its score. Returns the count. */
typedef void (*ct_visit)(void *ud, const uint32_t *y, double score);
static inline size_t ct_enumerate(const crfp_crf *crf, const crfp_seq *seq, const double *theta,
                           ct_visit fn, void *ud)
{
    uint32_t Y = crfp_crf_nlabels(crf), T = seq->T, y[16] = {0};
    size_t n = 0;
    for (;;) {
        fn(ud, y, ct_ref_score(crf, seq, theta, y));
        n++;
        uint32_t t = T;
        while (t > 0 && ++y[t - 1] == Y)
            y[--t] = 0;
        if (t == 0)
            return n;
    }
}

#endif
