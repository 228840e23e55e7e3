/* lbfgs plugin — a small team of threads for the optimizer's vector loops.
 *
 * The loops over millions of weights are bound by memory bandwidth, which
 * one core does not saturate: splitting each loop over two threads makes it
 * about 1.4x faster here.  They run on the host's thread team (team.h).  Each loop is cut into the same contiguous slices
 * on every call and partial sums are added in slice order, so results only
 * depend on the thread count.
 */
#ifndef CRFP_LBFGS_VPOOL_H
#define CRFP_LBFGS_VPOOL_H

#include <stddef.h>
#include "crfpipe/status.h"
#include "crfpipe/team.h"

typedef struct vpool vpool;

/* A range kernel: process [lo, hi) and add its partial sums to acc (as
 * many entries as the run asks for, zeroed by the caller). */
typedef void (*vpool_fn)(void *ctx, size_t lo, size_t hi, double *acc);

/* The loops' bookkeeping on the host's team (borrowed), for runs of at
 * most nacc partial sums.  Returns NULL for a NULL or one-member team, or
 * when out of memory: callers then run serially, which every function
 * below accepts. */
vpool *vpool_new(crfp_team *team, size_t nacc);
void vpool_free(vpool *p);

/* Sums partials over the shards of a distributed run (collective). */
typedef crfp_status (*vpool_sum)(void *ud, double *v, size_t n);

/* The loops of one shard: every run covers [lo, hi) only (whatever n it
 * is given) and its partial sums are then added over the shards by
 * sum(ud, ...).  Returns NULL only when out of memory.  `team` as above. */
vpool *vpool_new_shard(crfp_team *team, size_t lo, size_t hi, vpool_sum sum, void *ud,
                       size_t nacc);

/* Run fn over [0, n) (a shard's pool: its slice) on the team and return the
 * nacc summed partials in out (nacc at most the pool's). */
void vpool_run(vpool *p, size_t n, vpool_fn fn, void *ctx, double *out, size_t nacc);

/* CRFP_OK, or the first failure of a shard pool's sums (the pool runs no
 * sum after it, and out then holds this shard's partials only). */
crfp_status vpool_status(const vpool *p);

#endif
