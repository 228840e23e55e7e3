/* all-states / all-transitions: weights only for the label pairs the
 * training data shows, as CRFsuite's defaults (feature.possible_states=0,
 * feature.possible_transitions=0) give them; start-weights: none for the
 * first label of a sequence, as in CRF++'s and Wapiti's models.
 *
 * crfpipe gives every observation a weight for every label (and every
 * bigram observation one for every pair of labels), which lets the model
 * penalise a label an observation was never seen with.  CRFsuite by default
 * creates a state feature (attribute a, label y) only where a occurs on a
 * token labelled y, and a transition (y', y) only where y follows y'; it has
 * no start weights.  The same model family here is a mask over the weight
 * vector, which the training set honours (crfp_trainset_new: masked weights
 * stay zero and take part in no score), so every trainer, chains, folds and
 * paths train it without knowing; the weight vector keeps its size, but the
 * model file holds only the non-zero weights.
 *
 * In a job every rank sees its share of the data: the marks are summed
 * over the ranks as bytes packed eight to a counter, which cannot carry
 * from one byte into the next with fewer than 256 ranks. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "trainrun.h"

/* (the declaration checks the spelling) */
int crfp_train_param_true(const crfp_trainrun *r, const char *name)
{
    const char *v = crfp_train_param(r, name);
    return !v || strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "1") == 0 ||
           strcmp(v, "on") == 0;
}

crfp_status crfp_train_seen_mask(crfp_trainrun *r, uint64_t **out)
{
    *out = NULL;
    int states = crfp_train_param_true(r, "all-states"), trans = crfp_train_param_true(r, "all-transitions");
    /* start weights only with all transitions: the seen ones are between
     * tokens (as in CRFsuite) */
    int start = trans && crfp_train_param_true(r, "start-weights");
    if (states && trans && start)
        return CRFP_OK;
    crfp_host *host = r->host;
    const crfp_crf *crf = r->crf;
    size_t np = crfp_crf_nparams(crf), Y = crfp_crf_nlabels(crf);
    uint32_t nobs = crfp_crf_nobs(crf);
    if (crfp_dist_active() && crfp_dist_size() > 255)
        return crfp_error(host, CRFP_EINVAL, "all-states/all-transitions false: at most 255 "
                          "ranks, not %d", crfp_dist_size());
    /* one byte per weight, padded to whole counters */
    size_t nw = (np + 7) / 8;
    uint64_t *words = calloc(nw ? nw : 1, sizeof *words);
    uint64_t *mask = malloc(((np + 63) / 64 + 1) * sizeof *mask);
    if (!words || !mask) {
        free(words);
        free(mask);
        return crfp_error(host, CRFP_ENOMEM, "out of memory for the seen label pairs");
    }
    unsigned char *seen = (unsigned char *)words;
    /* min-freq given: CRFsuite's feature.minfreq, each pair's sequence
     * weights times values summed (minfreq.c) */
    double minfreq;
    int by_label[2];
    (void)crfp_train_min_freq_cuts(r, &minfreq, by_label);
    double *mass = NULL;
    if ((by_label[0] || by_label[1]) && !(mass = calloc(np ? np : 1, sizeof *mass))) {
        free(words);
        free(mask);
        return crfp_error(host, CRFP_ENOMEM, "out of memory summing the label pairs' values "
                          "(min-freq)");
    }
    for (uint32_t o = 0; o < nobs; o++) {
        uint64_t u = crfp_crf_ublock(crf, o), b = crfp_crf_bblock(crf, o);
        if (states && u != CRFP_NO_BLOCK)
            memset(seen + u, 1, Y);
        if (trans && b != CRFP_NO_BLOCK)
            memset(seen + b, 1, (start ? Y + 1 : Y) * Y);
    }
    for (size_t i = 0, n = crfp_dataset_size(r->train); i < n; i++) {
        const crfp_seq *s = crfp_dataset_get(r->train, i);
        if (!s->y)
            continue;
        double w = crfp_dataset_weight(r->train, i);
        for (uint32_t t = 0; t < s->T; t++) {
            uint32_t y = s->y[t];
            for (uint32_t k = s->uoff[t]; !states && k < s->uoff[t + 1]; k++) {
                uint64_t u = crfp_crf_ublock(crf, s->uobs[k]);
                if (u == CRFP_NO_BLOCK)
                    continue;
                seen[u + y] = 1;
                if (by_label[0])
                    mass[u + y] += w * (s->uval ? s->uval[k] : 1.0);
            }
            /* transitions between tokens only: no start weight, as CRFsuite */
            for (uint32_t k = s->boff[t]; !trans && t > 0 && k < s->boff[t + 1]; k++) {
                uint64_t b = crfp_crf_bblock(crf, s->bobs[k]);
                if (b == CRFP_NO_BLOCK)
                    continue;
                seen[b + (size_t)s->y[t - 1] * Y + y] = 1;
                if (by_label[1])
                    mass[b + (size_t)s->y[t - 1] * Y + y] += w;
            }
        }
    }
    crfp_status st = crfp_dist_sum_counts(host, CRFP_OK, words, nw);
    if (mass)
        st = crfp_dist_sum_reals(host, st, mass, np);
    if (st != CRFP_OK) {
        free(words);
        free(mask);
        free(mass);
        return st;
    }
    /* a pair seen less than min-freq is as if unseen (CRFsuite keeps a
     * feature whose sum reaches feature.minfreq, negative sums included) */
    size_t cut = 0;
    for (uint32_t o = 0; mass && o < nobs; o++) {
        uint64_t u = crfp_crf_ublock(crf, o), b = crfp_crf_bblock(crf, o);
        for (size_t k = 0; by_label[0] && u != CRFP_NO_BLOCK && k < Y; k++)
            if (seen[u + k] && mass[u + k] < minfreq) {
                seen[u + k] = 0;
                cut++;
            }
        for (size_t k = 0; by_label[1] && b != CRFP_NO_BLOCK && k < Y * Y; k++)
            if (seen[b + k] && mass[b + k] < minfreq) {
                seen[b + k] = 0;
                cut++;
            }
    }
    free(mass);
    memset(mask, 0, ((np + 63) / 64 + 1) * sizeof *mask);
    double *theta = crfp_crf_weights((crfp_crf *)crf);
    size_t on = 0;
    for (size_t j = 0; j < np; j++) {
        if (seen[j]) {
            mask[j >> 6] |= UINT64_C(1) << (j & 63);
            on++;
        } else {
            /* a warm start's weight on an unseen pair would be saved
             * without ever having been trained or scored */
            theta[j] = 0.0;
        }
    }
    free(words);
    char often[160] = "";
    if (by_label[0] || by_label[1])
        snprintf(often, sizeof often, " often enough (min-freq %g, each pair's values summed "
                 "as by CRFsuite's feature.minfreq: %zu pairs fewer)", minfreq, cut);
    if (!states || !trans)
        crfp_log(host, CRFP_LOG_INFO, "%s: %zu of %zu weights on label pairs the training "
                 "data shows%s", !states && !trans ? "all-states and all-transitions false"
                                 : !states         ? "all-states false"
                                                   : "all-transitions false", on, np, often);
    else
        crfp_log(host, CRFP_LOG_INFO, "start-weights false: %zu of %zu weights, none for the "
                 "first label", on, np);
    *out = mask;
    return CRFP_OK;
}
