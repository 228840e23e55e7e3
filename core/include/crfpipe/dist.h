/* crfpipe — running as one rank of a distributed (MPI) job.
 *
 * Training can span several processes started by `mpirun -np N crfpipe
 * train ...`: each rank reads its share of the training sequences, the
 * feature dictionary is built collectively, batch trainers sum their loss
 * and gradient over the ranks and online trainers average their weights
 * after every epoch (trainset.h, `mix`); rank 0 prints and writes the model.
 * The library does all of that inside crfp_pipeline_run once the process
 * has joined the job with crfp_dist_init; nothing else changes for the
 * caller.
 *
 * MPI is optional (configure --with-mpi).  Without it the functions below
 * still exist: crfp_dist_init refuses to run under a launcher that started
 * several copies, and the process is a job of one rank.
 *
 * Process-wide state: MPI itself is per process, so these functions keep
 * one job per process; call them from the main thread only.
 */
#ifndef CRFPIPE_DIST_H
#define CRFPIPE_DIST_H

#include "crfpipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Non-zero when libcrfpipe was built with MPI.  The functions below cannot
 * fail unless they say so. */
int crfp_dist_compiled(void);

/* Join the job when the process was started by an MPI launcher (mpirun,
 * detected from the environment it sets), otherwise do nothing: a plain
 * run never touches MPI.  `argc`/`argv` are handed to MPI_Init_thread and
 * may be NULL.  *ranks (may be NULL) receives the job size (1 when not
 * launched).  Errors: CRFP_EINVAL when launched as several ranks by a
 * build without MPI (each copy would train the whole model and race on the
 * output), CRFP_EIO when MPI cannot be initialised; the message is in
 * host.  Once joined, a further call does nothing but set *ranks to the
 * job size, and returns CRFP_OK. */
crfp_status crfp_dist_init(crfp_host *host, int *argc, char ***argv, int *ranks);

/* Whether crfp_dist_init joined a job (even of one rank). */
int crfp_dist_active(void);
/* This process's rank (0 when not in a job) and the job size (1). */
int crfp_dist_rank(void);
int crfp_dist_size(void);

/* How a failure came about, which decides who reports it and how the job
 * ends.  ALONE (the default): this rank failed on its own while the others
 * may be waiting for it in a collective call, so the job must be aborted
 * (crfp_dist_end(0, ...)).  The other kinds are agreed by every rank, which
 * then all end normally: SAME, every rank holds the same message (e.g. no
 * training data in the whole job) and rank 0 alone reports it; HERE, this
 * rank's own error, which it reports; ELSEWHERE, another rank failed and
 * this one only stops (rank 0 says so). */
typedef enum crfp_dist_failure {
    CRFP_DIST_FAIL_ALONE = 0,
    CRFP_DIST_FAIL_SAME,
    CRFP_DIST_FAIL_HERE,
    CRFP_DIST_FAIL_ELSEWHERE
} crfp_dist_failure;
/* The kind of the last failure (CRFP_DIST_FAIL_ALONE until set), and (for
 * the library) setting it. */
crfp_dist_failure crfp_dist_failure_kind(void);
void crfp_dist_set_failure_kind(crfp_dist_failure kind);

/* Leave the job: MPI_Finalize when `ok`, else MPI_Abort(MPI_COMM_WORLD,
 * exit_code), which makes the launcher stop every rank (it does not
 * return).  Nothing when not in a job.  Afterwards crfp_dist_active() is 0. */
void crfp_dist_end(int ok, int exit_code);

/* Seconds this rank spent in collective communication since
 * crfp_dist_init: `wait` the part spent waiting for the slowest rank (the
 * small collectives that precede every large one), `xfer` the rest.  Either
 * pointer may be NULL; both stay 0 when no job was joined. */
void crfp_dist_comm_seconds(double *wait, double *xfer);
/* CPU seconds the calling (main) thread used while waiting in those
 * collectives: MPI polls, so waiting costs CPU that a machine with a core
 * per rank would not have spent on anything else. */
double crfp_dist_wait_cpu_seconds(void);

#ifdef __cplusplus
}
#endif
#endif
