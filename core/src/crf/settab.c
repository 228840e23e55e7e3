/* crfpipe — small tables keyed by observation sets (infer.h).
 *
 * The per-epoch caches of forward-backward (views per observation set in
 * trans.c, deferred gradients per set in setgrad.c) look a set up by its
 * hash near a home slot.  With few slots every slot is probed: when only a
 * few were, sets whose probe runs overlapped evicted each other (G2P's 29
 * letter sets in 38 slots).
 */
#include <stdlib.h>
#include <string.h>
#include "infer.h"

#define SETTAB_PROBES 8 /* beyond 128 slots */

uint64_t crfp_set_hash(const uint32_t *obs, uint32_t nb)
{
    uint64_t h = 0x9E3779B97F4A7C15ull * (nb + 1);
    for (uint32_t i = 0; i < nb; i++)
        h = (h ^ obs[i]) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

crfp_status crfp_settab_alloc(crfp_settab *t, size_t per, size_t budget, uint32_t maxslots)
{
    memset(t, 0, sizeof *t);
    size_t n = per ? budget / per : 0;
    if (n > maxslots)
        n = maxslots;
    if (n < 2)
        return CRFP_EINVAL; /* too few sets would fit to be worth caching */
    t->obs = malloc(n * CRFP_LC_MAXOBS * sizeof *t->obs);
    t->nobs = calloc(n, sizeof *t->nobs);
    t->hash = malloc(n * sizeof *t->hash);
    t->data = malloc(n * per * sizeof *t->data);
    t->n = (uint32_t)n;
    t->per = per;
    if (t->obs && t->nobs && t->hash && t->data)
        return CRFP_OK;
    crfp_settab_free(t);
    return CRFP_ENOMEM;
}

void crfp_settab_free(crfp_settab *t)
{
    free(t->obs);
    free(t->nobs);
    free(t->hash);
    free(t->data);
    memset(t, 0, sizeof *t);
}

void crfp_settab_clear(crfp_settab *t)
{
    if (t->nobs)
        memset(t->nobs, 0, t->n * sizeof *t->nobs);
}

uint32_t crfp_settab_find(const crfp_settab *t, const uint32_t *obs, uint32_t nb, uint64_t *h,
                          int *hit)
{
    *h = crfp_set_hash(obs, nb);
    *hit = 0;
    const uint32_t n = t->n, home = (uint32_t)(*h % n), probes = n <= 128 ? n : SETTAB_PROBES;
    for (uint32_t p = 0; p < probes; p++) {
        uint32_t q = home + p < n ? home + p : home + p - n;
        if (t->nobs[q] == 0)
            return q;
        if (t->hash[q] == *h && t->nobs[q] == nb &&
            memcmp(t->obs + (size_t)q * CRFP_LC_MAXOBS, obs, nb * sizeof *obs) == 0) {
            *hit = 1;
            return q;
        }
    }
    return home;
}

void crfp_settab_label(crfp_settab *t, uint32_t s, uint64_t h, const uint32_t *obs, uint32_t nb)
{
    t->hash[s] = h;
    memcpy(t->obs + (size_t)s * CRFP_LC_MAXOBS, obs, nb * sizeof *obs);
    t->nobs[s] = nb;
}
