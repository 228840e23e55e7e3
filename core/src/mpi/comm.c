/* crfpipe — the job and its collective operations (dist.h, comm.h).
 *
 * With MPI: the job communicates on a duplicate of MPI_COMM_WORLD whose
 * error handler returns errors instead of aborting, so that a broken
 * connection (a rank that died) becomes a crfpipe error naming the cause.
 * Open MPI's launcher also stops the whole job when a rank dies, so a run
 * never hangs on a dead peer for long; either way no rank goes on to write
 * a model.
 *
 * Without MPI, or when not launched by mpirun, the job is this process and
 * every collective is the identity.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"

#ifdef CRFP_HAVE_MPI
#include <mpi.h>
#endif

static struct {
    int active, rank, size;
    crfp_dist_failure failure;
    double wait, xfer; /* seconds in collectives */
#ifdef CRFP_HAVE_MPI
    MPI_Comm comm;
#endif
} job = {0, 0, 1, CRFP_DIST_FAIL_ALONE, 0, 0
#ifdef CRFP_HAVE_MPI
         , MPI_COMM_NULL
#endif
};

/* The environment variables launchers set in each process they start:
 * Open MPI's mpirun, PMIx-based launchers (srun --mpi=pmix, prterun) and
 * MPICH's Hydra.  Reading them instead of always calling MPI_Init keeps
 * plain runs free of MPI's start-up cost and of its messages when no
 * launcher is present. */
static int launched_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE",
                                       "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v) > 0 ? atoi(v) : 1;
    }
    /* PMIx sets the rank, not always the size. */
    return getenv("PMIX_RANK") ? 1 : 0;
}

#ifdef CRFP_HAVE_MPI
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
#endif

int crfp_dist_compiled(void)
{
#ifdef CRFP_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

int crfp_dist_active(void)
{
    return job.active;
}

int crfp_dist_rank(void)
{
    return job.rank;
}

int crfp_dist_size(void)
{
    return job.size;
}

crfp_dist_failure crfp_dist_failure_kind(void)
{
    return job.failure;
}

void crfp_dist_set_failure_kind(crfp_dist_failure kind)
{
    job.failure = kind;
}

void crfp_dist_comm_seconds(double *wait, double *xfer)
{
    if (wait)
        *wait = job.wait;
    if (xfer)
        *xfer = job.xfer;
}

crfp_status crfp_dist_init(crfp_host *host, int *argc, char ***argv, int *ranks)
{
    int launched = launched_size();
    if (ranks)
        *ranks = 1;
    if (job.active || launched == 0)
        return CRFP_OK;
#ifndef CRFP_HAVE_MPI
    (void)argc;
    (void)argv;
    if (launched > 1)
        return crfp_error(host, CRFP_EINVAL,
                          "started as %d ranks by an MPI launcher, but this crfpipe was built "
                          "without MPI (configure --with-mpi); each copy would train the whole "
                          "model on its own", launched);
    return CRFP_OK;
#else
    int provided = 0;
    /* FUNNELED: only the main thread calls MPI; the thread team computes
     * between the calls. */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return crfp_error(host, CRFP_EIO, "cannot initialise MPI");
    if (provided < MPI_THREAD_FUNNELED)
        crfp_log(host, CRFP_LOG_WARN, "the MPI library offers no thread support "
                 "(MPI_THREAD_FUNNELED); use --threads 1 if the run misbehaves");
    if (MPI_Comm_dup(MPI_COMM_WORLD, &job.comm) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(job.comm, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
        MPI_Finalize();
        return crfp_error(host, CRFP_EIO, "cannot set up the MPI communicator");
    }
    MPI_Comm_rank(job.comm, &job.rank);
    MPI_Comm_size(job.comm, &job.size);
    job.active = 1;
    if (ranks)
        *ranks = job.size;
    return CRFP_OK;
#endif
}

void crfp_dist_end(int ok, int exit_code)
{
    if (!job.active)
        return;
#ifdef CRFP_HAVE_MPI
    if (!ok)
        MPI_Abort(MPI_COMM_WORLD, exit_code);
    MPI_Comm_free(&job.comm);
    MPI_Finalize();
#else
    (void)ok;
    (void)exit_code;
#endif
    job.active = 0;
}

#ifdef CRFP_HAVE_MPI
/* MPI counts are ints: large vectors go in pieces. */
#define PIECE ((size_t)1 << 26)

static crfp_status mpi_failed(crfp_host *host, int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        len = 0;
    msg[len] = '\0';
    return crfp_error(host, CRFP_EIO,
                      "rank %d: %s failed: %s (did another rank die or the network fail?)",
                      job.rank, what, len ? msg : "unknown MPI error");
}

static crfp_status allreduce(crfp_host *host, void *v, size_t n, size_t width, MPI_Datatype t,
                             MPI_Op op, int wait)
{
    double t0 = now();
    for (size_t at = 0; at < n; at += PIECE) {
        size_t k = n - at < PIECE ? n - at : PIECE;
        int rc = MPI_Allreduce(MPI_IN_PLACE, (char *)v + at * width, (int)k, t, op, job.comm);
        if (rc != MPI_SUCCESS)
            return mpi_failed(host, rc, "MPI_Allreduce");
    }
    *(wait ? &job.wait : &job.xfer) += now() - t0;
    return CRFP_OK;
}
#endif

crfp_status crfp_comm_sum_f64(crfp_host *host, double *v, size_t n, int wait)
{
#ifdef CRFP_HAVE_MPI
    if (job.active && job.size > 1)
        return allreduce(host, v, n, sizeof *v, MPI_DOUBLE, MPI_SUM, wait);
#endif
    (void)host, (void)v, (void)n, (void)wait;
    return CRFP_OK;
}

crfp_status crfp_comm_sum_u64(crfp_host *host, uint64_t *v, size_t n)
{
#ifdef CRFP_HAVE_MPI
    if (job.active && job.size > 1)
        return allreduce(host, v, n, sizeof *v, MPI_UINT64_T, MPI_SUM, 1);
#endif
    (void)host, (void)v, (void)n;
    return CRFP_OK;
}

crfp_status crfp_comm_max_i64(crfp_host *host, int64_t *v, size_t n)
{
#ifdef CRFP_HAVE_MPI
    if (job.active && job.size > 1)
        return allreduce(host, v, n, sizeof *v, MPI_INT64_T, MPI_MAX, 1);
#endif
    (void)host, (void)v, (void)n;
    return CRFP_OK;
}

crfp_status crfp_comm_bcast(crfp_host *host, void *buf, size_t len, int root)
{
#ifdef CRFP_HAVE_MPI
    if (job.active && job.size > 1) {
        double t0 = now();
        for (size_t at = 0; at < len; at += PIECE) {
            size_t k = len - at < PIECE ? len - at : PIECE;
            int rc = MPI_Bcast((char *)buf + at, (int)k, MPI_BYTE, root, job.comm);
            if (rc != MPI_SUCCESS)
                return mpi_failed(host, rc, "MPI_Bcast");
        }
        job.xfer += now() - t0;
    }
#endif
    (void)host, (void)buf, (void)len, (void)root;
    return CRFP_OK;
}

crfp_status crfp_comm_send(crfp_host *host, int dest, const void *buf, size_t len)
{
#ifdef CRFP_HAVE_MPI
    double t0 = now();
    uint64_t n = len;
    int rc = MPI_Send(&n, 1, MPI_UINT64_T, dest, 1, job.comm);
    for (size_t at = 0; rc == MPI_SUCCESS && at < len; at += PIECE) {
        size_t k = len - at < PIECE ? len - at : PIECE;
        rc = MPI_Send((const char *)buf + at, (int)k, MPI_BYTE, dest, 2, job.comm);
    }
    job.xfer += now() - t0;
    return rc == MPI_SUCCESS ? CRFP_OK : mpi_failed(host, rc, "MPI_Send");
#else
    (void)buf, (void)len;
    return crfp_error(host, CRFP_EINVAL, "no rank %d in a job of one process", dest);
#endif
}

crfp_status crfp_comm_recv(crfp_host *host, int src, void **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
#ifdef CRFP_HAVE_MPI
    double t0 = now();
    uint64_t n = 0;
    int rc = MPI_Recv(&n, 1, MPI_UINT64_T, src, 1, job.comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return mpi_failed(host, rc, "MPI_Recv");
    char *b = malloc(n ? (size_t)n : 1);
    if (!b)
        return crfp_error(host, CRFP_ENOMEM, "out of memory receiving %llu bytes from rank %d",
                          (unsigned long long)n, src);
    for (size_t at = 0; rc == MPI_SUCCESS && at < n; at += PIECE) {
        size_t k = n - at < PIECE ? n - at : PIECE;
        rc = MPI_Recv(b + at, (int)k, MPI_BYTE, src, 2, job.comm, MPI_STATUS_IGNORE);
    }
    job.wait += now() - t0;
    if (rc != MPI_SUCCESS) {
        free(b);
        return mpi_failed(host, rc, "MPI_Recv");
    }
    *buf = b;
    *len = n;
    return CRFP_OK;
#else
    return crfp_error(host, CRFP_EINVAL, "no rank %d in a job of one process", src);
#endif
}

crfp_status crfp_comm_agree(crfp_host *host, int ok, int *all_ok)
{
    int64_t bad = !ok;
    *all_ok = ok;
    crfp_status st = crfp_comm_max_i64(host, &bad, 1);
    if (st != CRFP_OK)
        return st;
    *all_ok = bad == 0;
    if (bad) {
        /* The failing ranks keep their own message; the others say why
         * they stop. */
        crfp_dist_set_failure_kind(ok ? CRFP_DIST_FAIL_ELSEWHERE : CRFP_DIST_FAIL_HERE);
        if (ok)
            crfp_error(host, CRFP_EIO, "another rank failed (its message is above); stopping");
    }
    return CRFP_OK;
}
