/* crfpipe — deferred bigram gradients of observation sets (infer.h).
 *
 * At a position whose transition sums several bigram observations' blocks
 * (G2P's and NETtalk's templates put the constant `B` and a letter's `*`
 * block at every position), forward-backward has one Y×Y matrix of pair
 * marginals that belongs to each of those blocks.  Adding it straight away
 * costs a clear and a fill of a scratch matrix and one pass per block, and
 * the blocks' rows are far apart in the gradient.  With deferral on, the
 * matrix is added to an accumulator kept per observation *set* instead, and
 * the set's sum reaches its blocks once, when the accumulator is evicted or
 * flushed: at 233 labels and 29 letter sets, one pass over Y² per position
 * where there were four.
 *
 * The accumulators are slots of a set table (settab.c; a set that finds
 * neither itself nor a free slot evicts the home slot's set, adding its
 * sum to the gradient), sized by a memory budget per workspace.  Only the
 * rounding differs from adding at once:
 * each block receives the same terms, grouped by set.
 */
#include <stdlib.h>
#include <string.h>
#include "infer.h"

/* Doubles of accumulators per workspace (32 MB), and at most this many sets
 * (so that templates with thousands of sets, e.g. CoNLL-2000's `*` words,
 * keep a few MB). */
#define SETGRAD_DOUBLES ((size_t)4 << 20)
#define SETGRAD_MAXSLOTS 128

void crfp_fb_defer(crfp_infer *w, double *g)
{
    w->dg_g = g && !w->gbb && w->Y ? g : NULL;
    w->dg_nosets = 0;
    /* sums left by a run that failed half-way belong to another gradient */
    crfp_settab_clear(&w->dg_sets);
    crfp_fb_lowrank_clear(w);
}

/* Add slot s's sum to its blocks and free the slot. */
static void spill(crfp_infer *w, uint32_t s)
{
    const size_t YY = (size_t)w->Y * w->Y;
    const double *acc = crfp_settab_slot(&w->dg_sets, s);
    const uint32_t *obs = w->dg_sets.obs + (size_t)s * CRFP_LC_MAXOBS;
    for (uint32_t i = 0; i < w->dg_sets.nobs[s]; i++) {
        double *gb = w->dg_g + w->crf->bblk[obs[i]];
        for (size_t j = 0; j < YY; j++)
            gb[j] += acc[j];
    }
    w->dg_sets.nobs[s] = 0;
}

double *crfp_fb_deferred(crfp_infer *w, const double *g, const uint32_t *obs, uint32_t nb)
{
    if (!w->dg_g || g != w->dg_g || w->gbb || w->dg_nosets || nb < 2 || nb > CRFP_LC_MAXOBS)
        return NULL;
    const size_t YY = (size_t)w->Y * w->Y;
    /* The accumulators come with the first position that needs them (a
     * template without such positions never pays for them); without them
     * this deferral is off until the next crfp_fb_defer. */
    if (!w->dg_sets.n &&
        crfp_settab_alloc(&w->dg_sets, YY, SETGRAD_DOUBLES, SETGRAD_MAXSLOTS) != CRFP_OK) {
        w->dg_nosets = 1;
        return NULL;
    }
    uint64_t h;
    int hit;
    uint32_t s = crfp_settab_find(&w->dg_sets, obs, nb, &h, &hit);
    double *acc = crfp_settab_slot(&w->dg_sets, s);
    if (hit)
        return acc;
    if (w->dg_sets.nobs[s])
        spill(w, s); /* no free slot: the home slot's set goes */
    memset(acc, 0, YY * sizeof *acc);
    crfp_settab_label(&w->dg_sets, s, h, obs, nb);
    return acc;
}

void crfp_fb_flush(crfp_infer *w)
{
    crfp_fb_lowrank_drain(w, 0);
    if (w->dg_g)
        for (uint32_t s = 0; s < w->dg_sets.n; s++)
            if (w->dg_sets.nobs[s])
                spill(w, s);
    w->dg_g = NULL;
}
