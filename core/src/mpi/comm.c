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

/* --- node-local shared sums ------------------------------------------------ */

#ifdef CRFP_HAVE_MPI
static struct {
    MPI_Comm node, leaders;   /* ranks of this machine; node leaders (or NULL) */
    MPI_Win segwin, reswin;
    double **seg;             /* every node rank's segment, mapped here */
    double *res;              /* the node's sum (shared) */
    int nrank, nsize;
    size_t n;
    int locked;               /* the windows are in a passive-target epoch */
} shm = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_WIN_NULL, MPI_WIN_NULL, NULL, NULL, 0, 0, 0, 0};

/* A barrier of the node's ranks that also orders their memory accesses to
 * the shared windows (the "separate" memory model's sync, a no-op on
 * machines with coherent caches but required by the standard). */
static int node_sync(void)
{
    MPI_Win_sync(shm.segwin);
    MPI_Win_sync(shm.reswin);
    int rc = MPI_Barrier(shm.node);
    MPI_Win_sync(shm.segwin);
    MPI_Win_sync(shm.reswin);
    return rc;
}
#endif

crfp_status crfp_comm_shared_new(crfp_host *host, size_t n, double **seg)
{
    *seg = NULL;
#ifdef CRFP_HAVE_MPI
    if (!job.active || job.size < 2 || n == 0 || n > (size_t)INT_MAX * 8)
        return CRFP_OK;
    crfp_comm_shared_free();
    int rc = MPI_Comm_split_type(job.comm, MPI_COMM_TYPE_SHARED, job.rank, MPI_INFO_NULL,
                                 &shm.node);
    if (rc != MPI_SUCCESS)
        return mpi_failed(host, rc, "MPI_Comm_split_type");
    MPI_Comm_rank(shm.node, &shm.nrank);
    MPI_Comm_size(shm.node, &shm.nsize);
    /* The leaders' communicator: one rank per machine, only when the job
     * spans several. */
    int nodes = shm.nrank == 0;
    if ((rc = MPI_Allreduce(MPI_IN_PLACE, &nodes, 1, MPI_INT, MPI_SUM, job.comm)) != MPI_SUCCESS)
        return mpi_failed(host, rc, "MPI_Allreduce");
    if (nodes > 1 &&
        (rc = MPI_Comm_split(job.comm, shm.nrank == 0 ? 0 : MPI_UNDEFINED, job.rank,
                             &shm.leaders)) != MPI_SUCCESS)
        return mpi_failed(host, rc, "MPI_Comm_split");
    double *mine = NULL, *res = NULL;
    if ((rc = MPI_Win_allocate_shared((MPI_Aint)(n * sizeof(double)), sizeof(double),
                                      MPI_INFO_NULL, shm.node, &mine, &shm.segwin)) !=
            MPI_SUCCESS ||
        (rc = MPI_Win_allocate_shared((MPI_Aint)(shm.nrank == 0 ? n * sizeof(double) : 0),
                                      sizeof(double), MPI_INFO_NULL, shm.node, &res,
                                      &shm.reswin)) != MPI_SUCCESS) {
        /* Not fatal: the sums go through MPI_Allreduce instead. */
        crfp_log(host, CRFP_LOG_DEBUG, "mpi: no shared memory for the sums; using MPI_Allreduce");
        crfp_comm_shared_free();
        return CRFP_OK;
    }
    if (!(shm.seg = calloc((size_t)shm.nsize, sizeof *shm.seg))) {
        crfp_comm_shared_free();
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    for (int i = 0; i < shm.nsize; i++) {
        MPI_Aint size;
        int disp;
        MPI_Win_shared_query(shm.segwin, i, &size, &disp, &shm.seg[i]);
    }
    MPI_Aint size;
    int disp;
    MPI_Win_shared_query(shm.reswin, 0, &size, &disp, &shm.res);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, shm.segwin);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, shm.reswin);
    shm.locked = 1;
    shm.n = n;
    *seg = shm.seg[shm.nrank];
#else
    (void)host, (void)n;
#endif
    return CRFP_OK;
}

#ifdef CRFP_HAVE_MPI
/* One team member's part of a node's sum: its share of this rank's slice,
 * each element added up over the node's segments in rank order. */
typedef struct sumjob {
    size_t lo, hi;      /* this rank's slice */
    double *out;        /* the copy-out target, or NULL in the adding phase */
} sumjob;

static void sum_member(void *arg, int id, int parts)
{
    sumjob *j = arg;
    size_t a, b;
    crfp_team_slice(j->hi - j->lo, id, parts, &a, &b);
    a += j->lo;
    b += j->lo;
    if (j->out) {
        memcpy(j->out + a, shm.res + a, (b - a) * sizeof(double));
        return;
    }
    double *res = shm.res;
    memcpy(res + a, shm.seg[0] + a, (b - a) * sizeof(double));
    for (int r = 1; r < shm.nsize; r++) {
        const double *s = shm.seg[r];
        for (size_t i = a; i < b; i++)
            res[i] += s[i];
    }
}
#endif

crfp_status crfp_comm_shared_sum(crfp_host *host, double *out, size_t n, crfp_team *team)
{
#ifdef CRFP_HAVE_MPI
    if (!shm.seg || n != shm.n)
        return crfp_error(host, CRFP_EINVAL, "shared sum of %zu values without segments", n);
    double t0 = now();
    int rc = node_sync(); /* every segment written */
    double t1 = now();
    if (rc == MPI_SUCCESS) {
        sumjob j;
        crfp_team_slice(n, shm.nrank, shm.nsize, &j.lo, &j.hi);
        j.out = NULL;
        crfp_team_run(team, sum_member, &j);
        rc = node_sync(); /* the node's sum complete */
    }
    if (rc == MPI_SUCCESS && shm.leaders != MPI_COMM_NULL) {
        for (size_t at = 0; rc == MPI_SUCCESS && at < n; at += PIECE) {
            size_t k = n - at < PIECE ? n - at : PIECE;
            rc = MPI_Allreduce(MPI_IN_PLACE, shm.res + at, (int)k, MPI_DOUBLE, MPI_SUM,
                               shm.leaders);
        }
    }
    if (rc == MPI_SUCCESS && shm.leaders != MPI_COMM_NULL)
        rc = node_sync(); /* the machines' sum in every node's result */
    if (rc == MPI_SUCCESS) {
        sumjob j = {0, n, out};
        crfp_team_run(team, sum_member, &j);
    }
    job.wait += t1 - t0;
    job.xfer += now() - t1;
    return rc == MPI_SUCCESS ? CRFP_OK : mpi_failed(host, rc, "the shared-memory sum");
#else
    (void)out, (void)n, (void)team;
    return crfp_error(host, CRFP_EINVAL, "no shared sums without MPI");
#endif
}

void crfp_comm_shared_free(void)
{
#ifdef CRFP_HAVE_MPI
    if (shm.locked) {
        MPI_Win_unlock_all(shm.segwin);
        MPI_Win_unlock_all(shm.reswin);
        shm.locked = 0;
    }
    if (shm.segwin != MPI_WIN_NULL)
        MPI_Win_free(&shm.segwin);
    if (shm.reswin != MPI_WIN_NULL)
        MPI_Win_free(&shm.reswin);
    if (shm.leaders != MPI_COMM_NULL)
        MPI_Comm_free(&shm.leaders);
    if (shm.node != MPI_COMM_NULL)
        MPI_Comm_free(&shm.node);
    free(shm.seg);
    shm.seg = NULL;
    shm.res = NULL;
    shm.n = 0;
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
