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
 *
 * The job's state (its communicator, the shared windows, the time books)
 * is this file's: MPI is initialised once per process, so a job is a fact
 * about the process, not about a host or a training run.
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
    double compute;    /* seconds in the wrapped evaluations (dist_ts.c) */
    double wait_cpu;   /* CPU seconds this thread burnt while waiting (MPI polls) */
#ifdef CRFP_HAVE_MPI
    MPI_Comm comm;
#endif
} job = {0, 0, 1, CRFP_DIST_FAIL_ALONE, 0, 0, 0, 0
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

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
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

double crfp_dist_wait_cpu_seconds(void)
{
    return job.wait_cpu;
}

double crfp_dist_compute_seconds(void)
{
    return job.compute;
}

void crfp_comm_book_compute(double seconds)
{
    job.compute += seconds;
}

crfp_status crfp_dist_init(crfp_host *host, int *argc, char ***argv, int *ranks)
{
    int launched = launched_size();
    if (ranks)
        *ranks = job.active ? crfp_dist_size() : 1;
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

/* Small sums of doubles are gathered and added up in rank order on every
 * rank: the same bits everywhere whatever algorithm the library picks (an
 * MPI_Allreduce may associate the additions differently on different
 * ranks, and ranks that disagree on a step length part ways). */
#define ORDERED_MAX 16

static crfp_status ordered_sum(crfp_host *host, double *v, size_t n)
{
    double stackbuf[ORDERED_MAX * 16], *all = stackbuf;
    if ((size_t)job.size > 16 && !(all = malloc((size_t)job.size * n * sizeof *all)))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    int rc = MPI_Allgather(v, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE, job.comm);
    if (rc == MPI_SUCCESS)
        for (size_t k = 0; k < n; k++) {
            double s = all[k];
            for (int r = 1; r < job.size; r++)
                s += all[(size_t)r * n + k];
            v[k] = s;
        }
    if (all != stackbuf)
        free(all);
    return rc == MPI_SUCCESS ? CRFP_OK : mpi_failed(host, rc, "MPI_Allgather");
}

static crfp_status allreduce(crfp_host *host, void *v, size_t n, size_t width, MPI_Datatype t,
                             MPI_Op op, int wait)
{
    double t0 = now(), c0 = cpu_now();
    if (t == MPI_DOUBLE && op == MPI_SUM && n <= ORDERED_MAX) {
        crfp_status st = ordered_sum(host, v, n);
        *(wait ? &job.wait : &job.xfer) += now() - t0;
        if (wait)
            job.wait_cpu += cpu_now() - c0;
        return st;
    }
    for (size_t at = 0; at < n; at += PIECE) {
        size_t k = n - at < PIECE ? n - at : PIECE;
        int rc = MPI_Allreduce(MPI_IN_PLACE, (char *)v + at * width, (int)k, t, op, job.comm);
        if (rc != MPI_SUCCESS)
            return mpi_failed(host, rc, "MPI_Allreduce");
    }
    *(wait ? &job.wait : &job.xfer) += now() - t0;
    if (wait)
        job.wait_cpu += cpu_now() - c0;
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
/* Up to this many ranks on a machine, each rank adds up all the segments
 * itself, straight into its own vector: one barrier and one pass (P reads
 * and a write per value).  Beyond, the ranks add a slice each into a shared
 * result and then copy it out (about two reads and a write per value and
 * rank, two barriers), which keeps the memory traffic from growing with
 * the number of ranks. */
#define DIRECT_MAX 3

static struct {
    MPI_Comm node, leaders;   /* ranks of this machine; node leaders (or NULL) */
    MPI_Win segwin, reswin;
    double **seg;             /* every node rank's two segments (2n), mapped here */
    double *res;              /* the node's sum (shared), slice path only */
    int nrank, nsize;
    size_t n;
    int cur;                  /* which of its two segments a rank computes into */
    int locked;               /* the windows are in a passive-target epoch */
} shm = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_WIN_NULL, MPI_WIN_NULL, NULL, NULL, 0, 0, 0, 0, 0};

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

static int direct(void)
{
    return shm.leaders == MPI_COMM_NULL && shm.nsize <= DIRECT_MAX;
}
#endif

crfp_status crfp_comm_shared_new(crfp_host *host, size_t n)
{
#ifdef CRFP_HAVE_MPI
    if (!job.active || job.size < 2 || n == 0 || n > (size_t)INT_MAX * 4)
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
    /* Two segments per rank, used in turn: a rank may start computing the
     * next vector while the others still read its last one. */
    double *mine = NULL, *res = NULL;
    /* The node's shared result: the sum's slices when there are many ranks
     * or machines, a sharded optimizer's iterate on one. */
    size_t resn = shm.nrank == 0 ? n : 0;
    if ((rc = MPI_Win_allocate_shared((MPI_Aint)(2 * n * sizeof(double)), sizeof(double),
                                      MPI_INFO_NULL, shm.node, &mine, &shm.segwin)) !=
            MPI_SUCCESS ||
        (rc = MPI_Win_allocate_shared((MPI_Aint)(resn * sizeof(double)), sizeof(double),
                                      MPI_INFO_NULL, shm.node, &res, &shm.reswin)) !=
            MPI_SUCCESS) {
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
    shm.cur = 0;
#else
    (void)host, (void)n;
#endif
    return CRFP_OK;
}

double *crfp_comm_shared_buffer(void)
{
#ifdef CRFP_HAVE_MPI
    if (shm.seg)
        return shm.seg[shm.nrank] + (size_t)shm.cur * shm.n;
#endif
    return NULL;
}

#ifdef CRFP_HAVE_MPI
/* One team member's part of a sum (each element added up over the
 * segments in rank order, so every rank gets the same bits):
 *  - adding (out NULL): this rank's slice [lo, hi) into the shared result;
 *  - direct: everything into out, plus rho2·x, Σx² in part[id];
 *  - copy-out: the shared result into out, plus rho2·x, Σx². */
typedef struct sumjob {
    size_t lo, hi;
    double *out;
    const double *x;    /* the ℓ2 term's vector, or NULL */
    double rho2;
    int from_res;       /* copy-out */
    double part[256];   /* Σx² per member */
} sumjob;

static void sum_member(void *arg, int id, int parts)
{
    sumjob *j = arg;
    size_t a, b;
    crfp_team_slice(j->hi - j->lo, id, parts, &a, &b);
    a += j->lo;
    b += j->lo;
    size_t off = (size_t)shm.cur * shm.n;
    double *dst = j->out ? j->out : shm.res;
    if (j->from_res)
        memcpy(dst + a, shm.res + a, (b - a) * sizeof(double));
    else {
        memcpy(dst + a, shm.seg[0] + off + a, (b - a) * sizeof(double));
        for (int r = 1; r < shm.nsize; r++) {
            const double *s = shm.seg[r] + off;
            for (size_t i = a; i < b; i++)
                dst[i] += s[i];
        }
    }
    double sq = 0;
    if (j->out && j->x) {
        const double *x = j->x, r2 = j->rho2;
        for (size_t i = a; i < b; i++) {
            dst[i] += r2 * x[i];
            sq += x[i] * x[i];
        }
    }
    if (id < 256)
        j->part[id] = sq;
}

static void run_sum(sumjob *j, crfp_team *team, double *sq)
{
    if (crfp_team_size(team) > 256)
        team = NULL;
    crfp_team_run(team, sum_member, j);
    if (sq) {
        double s = 0;
        for (int i = 0; i < crfp_team_size(team); i++)
            s += j->part[i];
        *sq = s;
    }
}
#endif

crfp_status crfp_comm_shared_sum(crfp_host *host, double *out, size_t n, crfp_team *team,
                                 const double *x, double rho2, double *sq, int slice)
{
#ifdef CRFP_HAVE_MPI
    sumjob j = {0, n, out, x, rho2, 0, {0}};
    if (!shm.seg || n != shm.n || (slice && !crfp_comm_shared_slice(n, &j.lo, &j.hi)))
        return crfp_error(host, CRFP_EINVAL, "shared sum of %zu values without %s", n,
                          slice ? "shards" : "segments");
    double t0 = now(), c0 = cpu_now();
    int rc = node_sync(); /* every segment written */
    double t1 = now();
    job.wait_cpu += cpu_now() - c0;
    /* A slice is added straight into out, whatever the number of ranks:
     * P reads of 1/P of the vector. */
    if (rc == MPI_SUCCESS && (slice || direct())) {
        run_sum(&j, team, sq);
    } else if (rc == MPI_SUCCESS) {
        sumjob a = {0, 0, NULL, NULL, 0, 0, {0}};
        crfp_team_slice(n, shm.nrank, shm.nsize, &a.lo, &a.hi);
        run_sum(&a, team, NULL);
        rc = node_sync(); /* the node's sum complete */
        if (rc == MPI_SUCCESS && shm.leaders != MPI_COMM_NULL) {
            if (shm.nrank == 0)
                for (size_t at = 0; rc == MPI_SUCCESS && at < n; at += PIECE) {
                    size_t k = n - at < PIECE ? n - at : PIECE;
                    rc = MPI_Allreduce(MPI_IN_PLACE, shm.res + at, (int)k, MPI_DOUBLE, MPI_SUM,
                                       shm.leaders);
                }
            if (rc == MPI_SUCCESS)
                rc = node_sync(); /* the machines' sum in every node's result */
        }
        if (rc == MPI_SUCCESS) {
            j.from_res = 1;
            run_sum(&j, team, sq);
        }
    }
    /* The other segment takes the next vector (see crfp_comm_shared_new). */
    shm.cur ^= 1;
    job.wait += t1 - t0;
    job.xfer += now() - t1;
    return rc == MPI_SUCCESS ? CRFP_OK : mpi_failed(host, rc, "the shared-memory sum");
#else
    (void)out, (void)n, (void)team, (void)x, (void)rho2, (void)sq, (void)slice;
    return crfp_error(host, CRFP_EINVAL, "no shared sums without MPI");
#endif
}

int crfp_comm_shared_slice(size_t n, size_t *lo, size_t *hi)
{
    *lo = 0;
    *hi = n;
#ifdef CRFP_HAVE_MPI
    if (!shm.seg || !shm.res || n != shm.n || shm.leaders != MPI_COMM_NULL ||
        shm.nsize != job.size)
        return 0;
    crfp_team_slice(n, shm.nrank, shm.nsize, lo, hi);
    return 1;
#else
    return 0;
#endif
}

double *crfp_comm_shared_iterate(void)
{
#ifdef CRFP_HAVE_MPI
    size_t lo, hi;
    if (crfp_comm_shared_slice(shm.n, &lo, &hi))
        return shm.res;
#endif
    return NULL;
}

crfp_status crfp_comm_shared_gather(crfp_host *host, void *v, size_t n, size_t width,
                                    double *sq)
{
#ifdef CRFP_HAVE_MPI
    size_t lo, hi;
    if (!crfp_comm_shared_slice(n, &lo, &hi) || (width != 8 && width != 4 && width != 2))
        return crfp_error(host, CRFP_EINVAL, "gather of %zu values of %zu bytes without shards",
                          n, width);
    double t0 = now();
    if (sq && width == sizeof(double)) {
        const double *x = v;
        double s = 0;
        for (size_t i = lo; i < hi; i++)
            s += x[i] * x[i];
        *sq = s;
    }
    int rc;
    if (v == shm.res) {
        /* The shared iterate: every slice is already where all can read it;
         * the barriers order the writes before the reads, and the reads
         * before the next writes. */
        rc = node_sync();
    } else {
        /* Slices meet in the segment each rank computes its next vector
         * into, which nobody reads before that vector is complete: the
         * last sum's barrier came after every read of it. */
        size_t off = (size_t)shm.cur * shm.n;
        char *b = v;
        memcpy((char *)(shm.seg[shm.nrank] + off) + lo * width, b + lo * width,
               (hi - lo) * width);
        rc = node_sync(); /* every slice staged */
        for (int r = 0; rc == MPI_SUCCESS && r < shm.nsize; r++) {
            size_t a, z;
            if (r == shm.nrank)
                continue;
            crfp_team_slice(n, r, shm.nsize, &a, &z);
            memcpy(b + a * width, (const char *)(shm.seg[r] + off) + a * width, (z - a) * width);
        }
        /* Nobody writes a segment again before everyone has read it. */
        if (rc == MPI_SUCCESS)
            rc = node_sync();
    }
    job.xfer += now() - t0;
    return rc == MPI_SUCCESS ? CRFP_OK : mpi_failed(host, rc, "the shared-memory gather");
#else
    (void)v, (void)n, (void)width, (void)sq;
    return crfp_error(host, CRFP_EINVAL, "no shared gathers without MPI");
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
