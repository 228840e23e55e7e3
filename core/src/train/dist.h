/* crfpipe — distributed training, the library side (dist.h is the process
 * side).  Internal, not installed.
 *
 * How a job trains one model (see README, "Training past one machine"):
 *  - input: each rank reads a contiguous piece of the training (and dev)
 *    file, cut at blank lines when the reader allows it (shard.c);
 *    otherwise every rank reads the whole stream and keeps every P-th
 *    sentence;
 *  - features: the ranks intern their own observations, then build the
 *    union in the single-process first-seen order and renumber their data
 *    (dictmerge.c), so θ has one layout everywhere;
 *  - training: the trainer runs on every rank on a wrapped training set
 *    (dist_ts.c) whose batch sums over the ranks and whose `mix` averages
 *    online trainers' weights; the monitor's dev counts are summed, so
 *    every rank takes the same decisions; rank 0 alone prints and writes.
 * All functions here are collective unless said otherwise.
 */
#ifndef CRFP_TRAIN_DIST_H
#define CRFP_TRAIN_DIST_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/crfpipe.h"
#include "crfpipe/crf.h"
#include "crfpipe/dist.h"

/* --- input shards (shard.c) ----------------------------------------------- */

/* A rank's view of one input. */
typedef struct crfp_shard {
    crfp_stream stream;  /* what the reader reads: a piece of the file, or the input itself */
    char *name;          /* the piece's name for messages (owned), or NULL */
    int cut;             /* 1: stream holds this rank's piece only; 0: the whole input */
    uint64_t start, end; /* the piece's bytes, when cut */
} crfp_shard;

/* Prepare this rank's view of `in` for a reader plugin.  Outside a job of
 * several ranks this is `in` itself.  In a job: a regular file whose reader
 * declares CRFP_PLUGIN_SPLIT_BLANK_LINES is cut into contiguous pieces of
 * about equal size at blank lines, piece r for rank r (each rank finds its
 * two cut points by reading a little past them: no rank reads the whole
 * file); any other regular file is read whole by every rank (out->cut = 0:
 * the caller keeps every P-th sentence).  Not collective.  Errors:
 * CRFP_EINVAL for stdin or a pipe in a job (the ranks cannot all read it),
 * CRFP_EIO, CRFP_ENOMEM; messages name the file.  Close with
 * crfp_shard_close (also after a failure). */
crfp_status crfp_shard_open(crfp_host *host, const crfp_plugin *reader, crfp_stream *in,
                            crfp_shard *out);
void crfp_shard_close(crfp_shard *s);

/* Whether sentence number k (0-based, counting the sentences this rank's
 * stream yields) is this rank's when the stream is not cut. */
static inline int crfp_shard_keeps(const crfp_shard *s, uint64_t k)
{
    return s->cut || k % (uint64_t)crfp_dist_size() == (uint64_t)crfp_dist_rank();
}

/* The position in the single-process order of the k-th sequence this rank
 * holds: ranks hold contiguous pieces in rank order when cut, every P-th
 * sentence otherwise.  Not collective. */
static inline uint64_t crfp_shard_order(int cut, uint64_t k)
{
    if (cut)
        return ((uint64_t)crfp_dist_rank() << 40) | k;
    return k * (uint64_t)crfp_dist_size() + (uint64_t)crfp_dist_rank();
}

/* --- the shared dictionary (dictmerge.c) ------------------------------------ */

/* Replace *crf (labels and observations this rank interned, not finalized)
 * by the union over the ranks, numbered in the order a single process
 * reading the whole input would have interned them, and renumber `train`
 * (this rank's sequences, in input order; `cut` says how they were
 * chosen) in place.  The first `fixed_labels` labels and `fixed_obs`
 * observations (a warm-start model's, interned before any sentence and so
 * identical on every rank) keep their ids.  The new model keeps nothing
 * else of the old one (features and metadata are set later); *crf is
 * unchanged on failure.  Errors: CRFP_ENOMEM, CRFP_EIO (communication, or
 * another rank failed: see crfp_dist_failure_kind). */
crfp_status crfp_dist_merge_dict(crfp_host *host, crfp_crf **crf, crfp_dataset *train, int cut,
                                 uint32_t fixed_labels, uint32_t fixed_obs);

/* --- the distributed training set (dist_ts.c) -------------------------------- */

/* Wrap `local` (the engine's training set over this rank's sequences) for a
 * job: `batch` and `hessvec` sum over the ranks (the ℓ2 term added once),
 * `mix` averages or sums vectors over the ranks, everything sequence-level
 * stays local.  Outside a job of several ranks *out = local.  `local` is borrowed and must
 * outlive the wrapper.  Errors: CRFP_ENOMEM. */
crfp_status crfp_dist_trainset(crfp_host *host, crfp_trainset *local, crfp_trainset **out);
/* Free a wrapper made by crfp_dist_trainset (not `local`); `ts` equal to
 * the local set is left alone. */
void crfp_dist_trainset_free(crfp_trainset *ts, const crfp_trainset *local);

/* --- run-level helpers (dist_ts.c) ---------------------------------------------- */

/* Sum n counters over the ranks after agreeing on this rank's status `st`
 * (the outcome of computing them): when any rank failed, every rank
 * returns an error (this rank's own, or "another rank failed") with the
 * failure kind set.  Outside a job returns st.  Errors: st, CRFP_EIO. */
crfp_status crfp_dist_sum_counts(crfp_host *host, crfp_status st, uint64_t *v, size_t n);
/* The same for n reals (sums of sequence weights and values). */
crfp_status crfp_dist_sum_reals(crfp_host *host, crfp_status st, double *v, size_t n);

/* Whether any rank has `flag` set (e.g. interrupted).  On a communication
 * failure *any = 1 and the error is returned. */
crfp_status crfp_dist_any(crfp_host *host, int flag, int *any);

/* Log, on rank 0, one line with the job's communication figures and, for
 * every rank, its peak resident memory, the size of its training data and
 * of the dictionary (collective in a job; in one process the memory
 * figures alone). */
void crfp_dist_report(crfp_host *host, const crfp_dataset *train, const crfp_crf *crf);

/* Seconds this rank spent in the wrapped batch and Hessian-vector
 * computations (not communicating), for the run's summary. */
double crfp_dist_compute_seconds(void);

#endif
