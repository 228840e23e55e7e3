/* The frequency cut-off (min-freq): observations seen at fewer than N
 * positions of the training data get no weights, as CRF++'s -f does.  A
 * rare observation mostly fits the one sentence it occurs in, and a large
 * template produces millions of them: dropping them before the parameters
 * are laid out saves their memory in every vector of the optimizer, where
 * an l1 penalty would only zero them after allocating them.
 *
 * An observation's frequency is the number of positions where it fires:
 * its unigram occurrences, or its bigram ones for an observation of bigram
 * patterns only (a `*` pattern's observation is in both lists at the same
 * positions and is counted once).  In a distributed job the counts are
 * summed over the ranks, so every rank keeps the same observations.
 *
 * CRFsuite's feature.minfreq counts otherwise: per feature, i.e. per
 * attribute and label (and per pair of labels), each occurrence counting
 * its sequence's weight times the attribute's value, and it keeps a
 * feature whose sum reaches N, whatever N (0 by default, which drops a
 * feature whose values sum below 0).  In its model family (all-states or
 * all-transitions false) the run counts so, pair by pair, when min-freq is
 * given (crfp_train_seen_mask).  Here such an observation is then kept
 * when a bound on every label's sum -- its occurrences' weights times
 * their positive values, summed over the labels -- reaches N, so the cut
 * before the layout drops only observations none of whose pairs could. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "trainrun.h"
#include "dist.h"

double crfp_train_min_freq(const crfp_trainrun *r, int *given)
{
    const char *v = crfp_train_param(r, "min-freq");
    if (given)
        *given = v != NULL;
    return v ? strtod(v, NULL) : 1.0;
}

int crfp_train_min_freq_cuts(const crfp_trainrun *r, double *minfreq, int *by_label)
{
    int given;
    *minfreq = crfp_train_min_freq(r, &given);
    by_label[0] = given && !crfp_train_param_true(r, "all-states");
    by_label[1] = given && !crfp_train_param_true(r, "all-transitions");
    /* positions are whole and at least 1: N <= 1 keeps every observation;
     * the bound of a label's sum is at least 0 */
    return given && (*minfreq > 1.0 || ((by_label[0] || by_label[1]) && *minfreq > 0.0));
}

crfp_status crfp_train_frequent(crfp_host *host, const crfp_dataset *ds, uint32_t nobs,
                                double minfreq, const int *by_label, uint32_t always,
                                int collective, uint64_t **keep, size_t *nkept)
{
    *keep = NULL;
    *nkept = 0;
    double *mass = calloc(2 * (size_t)nobs + 2, sizeof *mass);
    uint64_t *bits = calloc((size_t)nobs / 64 + 1, sizeof *bits);
    crfp_status st = mass && bits ? CRFP_OK
                                  : crfp_error(host, CRFP_ENOMEM, "out of memory counting "
                                               "observations");
    for (size_t i = 0, n = crfp_dataset_size(ds); st == CRFP_OK && i < n; i++) {
        const crfp_seq *q = crfp_dataset_get(ds, i);
        double w = crfp_dataset_weight(ds, i);
        for (int kind = 0; q->T && kind < 2 && st == CRFP_OK; kind++) {
            const uint32_t *ids = kind ? q->bobs : q->uobs, *off = kind ? q->boff : q->uoff;
            for (uint32_t j = off[0]; j < off[q->T]; j++) {
                if (ids[j] >= nobs) {
                    /* an id beyond the model: a bug, not bad input */
                    st = crfp_error(host, CRFP_EINVAL, "min-freq: observation ids out of range");
                    break;
                }
                double v = !by_label[kind] ? 1.0
                           : kind == 0 && q->uval ? w * (q->uval[j] > 0.0 ? q->uval[j] : 0.0)
                                                  : w;
                mass[2 * (size_t)ids[j] + (size_t)kind] += v;
            }
        }
    }
    /* every rank calls, even after a failure, so that none waits forever */
    if (collective)
        st = crfp_dist_sum_reals(host, st, mass, 2 * (size_t)nobs);
    if (st != CRFP_OK) {
        free(mass);
        free(bits);
        return st;
    }
    for (uint32_t o = 0; o < nobs; o++) {
        double u = mass[2 * (size_t)o], b = mass[2 * (size_t)o + 1];
        if (o < always || (u > b ? u : b) >= minfreq) {
            bits[o >> 6] |= UINT64_C(1) << (o & 63);
            (*nkept)++;
        }
    }
    free(mass);
    *keep = bits;
    return CRFP_OK;
}

crfp_status crfp_train_cut_rare(crfp_trainrun *r)
{
    double minfreq;
    int by_label[2];
    if (!crfp_train_min_freq_cuts(r, &minfreq, by_label))
        return CRFP_OK;
    crfp_host *host = r->host;
    uint32_t nobs = crfp_crf_nobs(r->crf);
    /* a warm start's observations, interned first, keep their weights */
    uint32_t always = r->init ? crfp_crf_nobs(r->init) : 0;
    uint64_t *keep;
    size_t nkept;
    crfp_status st = crfp_train_frequent(host, r->train, nobs, minfreq, by_label, always, 1, &keep,
                                         &nkept);
    if (st != CRFP_OK)
        return st;
    crfp_crf *nc = NULL;
    uint32_t *map = NULL;
    crfp_dataset *nt = NULL, *nd = NULL;
    st = crfp_crf_subset(r->crf, keep, &nc, &map);
    free(keep);
    if (st == CRFP_OK && (st = crfp_dataset_remap(r->train, map, &nt)) == CRFP_OK)
        st = crfp_dataset_remap(r->dev, map, &nd);
    free(map);
    if (st != CRFP_OK) {
        crfp_crf_free(nc);
        crfp_dataset_free(nt);
        crfp_dataset_free(nd);
        return crfp_error(host, st, "min-freq: out of memory dropping rare observations");
    }
    crfp_log(host, CRFP_LOG_INFO, "min-freq %g: %zu of %u observations seen often enough%s",
             minfreq, nkept, nobs, by_label[0] || by_label[1] ? " for some label" : "");
    crfp_train_replace(r, nc, nt, nd);
    return CRFP_OK;
}
