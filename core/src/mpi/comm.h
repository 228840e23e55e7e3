/* crfpipe — the collective operations distributed training needs, over MPI
 * when built with it and trivially for a job of one process otherwise.
 * comm.c is the only file that includes <mpi.h>; the rest of the library
 * calls these.  Internal, not installed.
 *
 * Every function here is collective: all ranks must call it, in the same
 * order and with the same sizes, from their main thread.  A failure
 * (a rank died, the network broke) is returned as CRFP_EIO with a message
 * in host; the caller must then stop without another collective call.
 */
#ifndef CRFP_MPI_COMM_H
#define CRFP_MPI_COMM_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/crfpipe.h"
#include "crfpipe/dist.h"

/* v[0..n) := the sum over the ranks, identical on every rank.  `wait`
 * non-zero books the time as waiting for the slowest rank (used for the
 * small reductions that precede the big ones). */
crfp_status crfp_comm_sum_f64(crfp_host *host, double *v, size_t n, int wait);
crfp_status crfp_comm_sum_u64(crfp_host *host, uint64_t *v, size_t n);
/* v[0..n) := the maximum over the ranks. */
crfp_status crfp_comm_max_i64(crfp_host *host, int64_t *v, size_t n);
/* Rank `root`'s `len` bytes at buf to every rank's buf (len must agree). */
crfp_status crfp_comm_bcast(crfp_host *host, void *buf, size_t len, int root);
/* Point to point, for tree reductions of variable-sized data: send `len`
 * bytes to `dest`; receive one message from `src` into *buf (malloc'd,
 * caller frees) of *len bytes. */
crfp_status crfp_comm_send(crfp_host *host, int dest, const void *buf, size_t len);
crfp_status crfp_comm_recv(crfp_host *host, int src, void **buf, size_t *len);

/* Sums of large vectors through node-local shared memory (MPI-3 shared
 * windows), for the gradient of every evaluation: each rank computes into
 * a segment of its own, then the ranks of a machine add the segments up in
 * rank order (with few ranks per machine each rank adds them all straight
 * into its own vector; with more, each adds a slice into a shared result
 * that every rank then copies), node leaders combine their machines' sums
 * with MPI_Allreduce when the job spans several.  On one machine nothing
 * goes through MPI's message layer, and every rank gets the same bits.
 *
 * crfp_comm_shared_new: set up for vectors of n doubles (collective): two
 * segments per rank, used in turn.  Nothing is set up, and CRFP_OK
 * returned, when shared memory is not available (no MPI, one rank, or the
 * MPI library refuses): crfp_comm_shared_buffer then returns NULL and
 * callers use crfp_comm_sum_f64.  Errors: CRFP_EIO, CRFP_ENOMEM.
 * crfp_comm_shared_buffer: the segment to compute the next vector into
 * (owned by the job, valid until crfp_comm_shared_free), or NULL.
 * crfp_comm_shared_sum: out[0..n) = Σ over ranks of their current
 * segments + rho2·x (x may be NULL: no such term), and *sq (may be NULL) =
 * Σ x², summed in an order that depends on the team size only; `team` (may
 * be NULL) splits the work.  With `slice` (sharded vectors, below) only
 * this rank's slice out[lo, hi) is written, and *sq covers the slice.
 * Errors: CRFP_EIO, CRFP_EINVAL.
 * crfp_comm_shared_free: collective; safe when nothing was set up. */
crfp_status crfp_comm_shared_new(crfp_host *host, size_t n);
double *crfp_comm_shared_buffer(void);
crfp_status crfp_comm_shared_sum(crfp_host *host, double *out, size_t n, crfp_team *team,
                                 const double *x, double rho2, double *sq, int slice);
void crfp_comm_shared_free(void);

/* Sharded vectors, for an optimizer that splits its own vectors across the
 * ranks (trainset.h: shard, batch_shard, gather).  Offered only when every
 * rank of the job is on this machine and the shared segments exist: the
 * slices then meet in shared memory, with no copy through MPI.
 *
 * crfp_comm_shared_slice: whether vectors of n entries (n as given to
 * crfp_comm_shared_new) can be sharded; if so [*lo, *hi) is this rank's
 * slice, the ranks' slices in rank order partitioning [0, n).
 * crfp_comm_shared_gather: v holds n elements of `width` bytes (8 or 4),
 * whose slice [lo, hi) is this rank's; on return every rank holds all of
 * them (for v = crfp_comm_shared_iterate(), a barrier and no copy); *sq
 * (may be NULL; doubles only) receives Σ v² over this rank's slice,
 * computed in the same pass.  Errors: CRFP_EIO, CRFP_EINVAL (not
 * sharded, or a bad width). */
int crfp_comm_shared_slice(size_t n, size_t *lo, size_t *hi);
/* The whole-vector buffer the ranks of the machine share, for a sharded
 * optimizer's iterate (each rank writing only its slice; gathering it then
 * copies nothing), or NULL when vectors cannot be sharded.  Owned by the
 * job, valid until crfp_comm_shared_free; the full sum of more than
 * DIRECT_MAX ranks uses it too, so no such sum may run while it holds an
 * iterate. */
double *crfp_comm_shared_iterate(void);
crfp_status crfp_comm_shared_gather(crfp_host *host, void *v, size_t n, size_t width,
                                    double *sq);

/* Add `seconds` to this rank's computation time (crfp_dist_compute_seconds). */
void crfp_comm_book_compute(double seconds);

/* Whether every rank passes `ok` (non-zero): one small collective.  Used
 * at the points where a rank may have failed on its own, so that all
 * ranks stop together; when some rank failed, crfp_dist_failed_together()
 * is set on every rank and *all_ok is 0.  Errors: CRFP_EIO. */
crfp_status crfp_comm_agree(crfp_host *host, int ok, int *all_ok);

#endif
