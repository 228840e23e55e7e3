/* crfpipe — balanced static split of a dataset over threads (internal). */
#ifndef CRFP_CRF_PARTITION_H
#define CRFP_CRF_PARTITION_H

#include "crf_impl.h"

/* Cut sequences [0, n) into `parts` contiguous ranges of about equal token
 * counts: range i is [cut[i], cut[i+1]).  cut has parts+1 entries.  A fixed
 * split (rather than work stealing) keeps each thread's summation order, and
 * so the results, independent of scheduling. */
static inline void crfp_partition(const crfp_dataset *ds, int parts, size_t *cut)
{
    size_t n = crfp_dataset_size(ds), total = crfp_dataset_tokens(ds), acc = 0, i = 0;
    cut[0] = 0;
    for (int p = 1; p < parts; p++) {
        size_t goal = (size_t)((double)total * p / parts);
        while (i < n && acc + crfp_dataset_get(ds, i)->T <= goal)
            acc += crfp_dataset_get(ds, i++)->T;
        cut[p] = i;
    }
    cut[parts] = n;
}

#endif
