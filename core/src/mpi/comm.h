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
 * its own segment, the ranks of a node add the segments up slice by slice
 * (each rank one slice, reading the others' segments directly, in rank
 * order), node leaders combine their nodes' sums with MPI_Allreduce when
 * the job spans several machines, and every rank copies the result out.
 * On one machine nothing goes through MPI's message layer: the sum costs
 * about two passes over the vector per rank, and every rank gets the same
 * bits.
 *
 * crfp_comm_shared_new: allocate the segments for vectors of n doubles
 * (collective); *seg receives this rank's (owned by the job, valid until
 * crfp_comm_shared_free).  *seg is NULL, and CRFP_OK returned, when shared
 * memory is not available (no MPI, one rank, or the MPI library refuses):
 * callers then use crfp_comm_sum_f64.  Errors: CRFP_EIO.
 * crfp_comm_shared_sum: out[0..n) = Σ over ranks of their segments; `team`
 * (may be NULL) splits the node's adding and the copy.  Errors: CRFP_EIO.
 * crfp_comm_shared_free: collective; NULL-safe. */
crfp_status crfp_comm_shared_new(crfp_host *host, size_t n, double **seg);
crfp_status crfp_comm_shared_sum(crfp_host *host, double *out, size_t n, crfp_team *team);
void crfp_comm_shared_free(void);

/* Whether every rank passes `ok` (non-zero): one small collective.  Used
 * at the points where a rank may have failed on its own, so that all
 * ranks stop together; when some rank failed, crfp_dist_failed_together()
 * is set on every rank and *all_ok is 0.  Errors: CRFP_EIO. */
crfp_status crfp_comm_agree(crfp_host *host, int ok, int *all_ok);

#endif
