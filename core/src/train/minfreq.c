/* The frequency cut-off (min-freq): observations seen at fewer than N
 * positions of the training data get no weights, as CRF++'s -f and
 * CRFsuite's feature.minfreq do.  A rare observation mostly fits the one
 * sentence it occurs in, and a large template produces millions of them:
 * dropping them before the parameters are laid out saves their memory in
 * every vector of the optimizer, where an l1 penalty would only zero them
 * after allocating them.
 *
 * An observation's frequency is the number of positions where it fires:
 * its unigram occurrences, or its bigram ones for an observation of bigram
 * patterns only (a `*` pattern's observation is in both lists at the same
 * positions and is counted once).  In a distributed job the counts are
 * summed over the ranks, so every rank keeps the same observations. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "trainrun.h"
#include "dist.h"

int64_t crfp_train_min_freq(const crfp_trainrun *r)
{
    const char *v = crfp_train_param(r, "min-freq");
    return v ? strtoll(v, NULL, 10) : 1;
}

crfp_status crfp_train_frequent(crfp_host *host, const crfp_dataset *ds, uint32_t nobs,
                                int64_t minfreq, uint32_t always, int collective,
                                uint64_t **keep, size_t *nkept)
{
    *keep = NULL;
    *nkept = 0;
    uint64_t *counts = calloc(2 * (size_t)nobs + 2, sizeof *counts);
    uint64_t *bits = calloc((size_t)nobs / 64 + 1, sizeof *bits);
    crfp_status st = counts && bits ? CRFP_OK
                                    : crfp_error(host, CRFP_ENOMEM, "out of memory counting "
                                                 "observations");
    if (st == CRFP_OK && crfp_dataset_obs_counts(ds, nobs, counts) != CRFP_OK)
        /* an id beyond the model: a bug, not bad input */
        st = crfp_error(host, CRFP_EINVAL, "min-freq: observation ids out of range");
    /* every rank calls, even after a failure, so that none waits forever */
    if (collective)
        st = crfp_dist_sum_counts(host, st, counts, 2 * (size_t)nobs);
    if (st != CRFP_OK) {
        free(counts);
        free(bits);
        return st;
    }
    for (uint32_t o = 0; o < nobs; o++) {
        uint64_t u = counts[2 * (size_t)o], b = counts[2 * (size_t)o + 1];
        if (o < always || (u > b ? u : b) >= (uint64_t)minfreq) {
            bits[o >> 6] |= UINT64_C(1) << (o & 63);
            (*nkept)++;
        }
    }
    free(counts);
    *keep = bits;
    return CRFP_OK;
}

crfp_status crfp_train_cut_rare(crfp_trainrun *r)
{
    int64_t minfreq = crfp_train_min_freq(r);
    if (minfreq <= 1)
        return CRFP_OK;
    crfp_host *host = r->host;
    uint32_t nobs = crfp_crf_nobs(r->crf);
    /* a warm start's observations, interned first, keep their weights */
    uint32_t always = r->init ? crfp_crf_nobs(r->init) : 0;
    uint64_t *keep;
    size_t nkept;
    crfp_status st = crfp_train_frequent(host, r->train, nobs, minfreq, always, 1, &keep, &nkept);
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
    crfp_log(host, CRFP_LOG_INFO, "min-freq %lld: %zu of %u observations seen often enough",
             (long long)minfreq, nkept, nobs);
    crfp_train_replace(r, nc, nt, nd);
    return CRFP_OK;
}
