/* lbfgs: the sharded optimizer (lbfgs_objective's eval_shard, sum, gather)
 * against the plain one.  P threads of one process stand in for P ranks:
 * each runs the minimizer on its slice of the vectors, and the collectives
 * meet at a barrier (slices written to a shared vector, partial sums added
 * in shard order), which is what the distributed training set does through
 * shared memory; with a shared iterate too (each shard writing its slice of
 * one θ that all read).  Checked: every shard ends with the same θ, bit for bit;
 * F per iteration equals the unsharded run's to 1e-9 (relative) over the
 * first 20 iterations; the optimum is the same; and a failing collective
 * stops every shard with its error. */
#include "config.h"
#include "problems.h"
#include "lbfgs_impl.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXP 4
#define MAXIT 400

typedef struct job {
    const problem *p;
    int P;
    pthread_barrier_t bar;
    double *whole;              /* the gathered vector (doubles or floats) */
    double *xbuf;               /* the shared iterate, or NULL */
    double part[MAXP][LBFGS_NACC(5)];
    int fail_sum_at;            /* the sum that fails on shard 1 (0: none) */
    int failed;                 /* a shard saw the failure (read after a barrier) */
} job;

typedef struct shard {
    job *j;
    int rank;
    size_t lo, hi;
    double *x, *gfull;
    double rho1;
    crfp_host *host;
    crfp_status st;
    int iters, sums;
    double Fs[MAXIT];
} shard;

static void slice(size_t n, int rank, int P, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)rank / (size_t)P;
    *hi = n * (size_t)(rank + 1) / (size_t)P;
}

static crfp_status sh_gather(void *ud, void *v, size_t width)
{
    shard *s = ud;
    job *j = s->j;
    size_t n = j->p->dim;
    char *b = v, *w = (char *)j->whole;
    if (v == j->xbuf) {
        /* the shared iterate: the slices are in place */
        pthread_barrier_wait(&j->bar);
        return CRFP_OK;
    }
    memcpy(w + s->lo * width, b + s->lo * width, (s->hi - s->lo) * width);
    pthread_barrier_wait(&j->bar);
    memcpy(b, w, n * width);
    pthread_barrier_wait(&j->bar);
    return CRFP_OK;
}

static crfp_status sh_eval(void *ud, double *theta, double *f, double *g)
{
    shard *s = ud;
    crfp_status st = sh_gather(s, theta, sizeof *theta);
    if (st != CRFP_OK)
        return st;
    /* Each shard computes the whole objective (the training set would
     * sum the ranks' losses); only its slice of g is handed back. */
    *f = problem_f(s->j->p, theta, s->gfull);
    memcpy(g + s->lo, s->gfull + s->lo, (s->hi - s->lo) * sizeof *g);
    /* Every shard has read the shared iterate before any writes it again
     * (the training set's gradient sum is such a barrier). */
    if (theta == s->j->xbuf)
        pthread_barrier_wait(&s->j->bar);
    return CRFP_OK;
}

static crfp_status sh_sum(void *ud, double *v, size_t n)
{
    shard *s = ud;
    job *j = s->j;
    if (n > LBFGS_NACC(5))
        return crfp_error(s->host, CRFP_EINVAL, "sum of %zu values", n);
    int fail = ++s->sums == j->fail_sum_at && s->rank == 1;
    memcpy(j->part[s->rank], v, n * sizeof *v);
    if (fail)
        j->failed = 1;
    pthread_barrier_wait(&j->bar);
    int failed = j->failed;
    for (size_t k = 0; k < n; k++) {
        double t = j->part[0][k];
        for (int r = 1; r < j->P; r++)
            t += j->part[r][k];
        v[k] = t;
    }
    pthread_barrier_wait(&j->bar);
    if (failed)
        return crfp_error(s->host, CRFP_EIO, "shard %d: the sum failed", s->rank);
    return CRFP_OK;
}

static crfp_status sh_iteration(void *ud, const crfp_iter_info *info, const double *theta,
                                int *stop)
{
    shard *s = ud;
    (void)theta, (void)stop;
    if (info->iter <= MAXIT)
        s->Fs[info->iter - 1] = info->objective;
    s->iters = info->iter;
    return CRFP_OK;
}

static void options(lbfgs_opts *o)
{
    lbfgs_opts_default(o);
    o->epsilon = 0;
    o->gtol = 1e-10;
    o->max_iter = MAXIT;
}

static void *run_shard(void *arg)
{
    shard *s = arg;
    const problem *p = s->j->p;
    lbfgs_opts o;
    options(&o);
    lbfgs_objective obj = {.dim = p->dim, .rho1 = s->rho1, .rho2 = p->rho2, .ud = s,
                           .iteration = sh_iteration, .lo = s->lo, .hi = s->hi,
                           .eval_shard = sh_eval, .sum = sh_sum, .gather = sh_gather,
                           .xbuf = s->j->xbuf};
    s->st = lbfgs_minimize(s->host, &o, &obj, s->x);
    return NULL;
}

/* The plain run's F per iteration and final θ. */
static crfp_status plain_eval(void *ud, const double *theta, double *f, double *g)
{
    *f = problem_f(((shard *)ud)->j->p, theta, g);
    return CRFP_OK;
}

static void compare(problem *p, double rho1, int P, int shared, const char *name)
{
    size_t n = p->dim;
    job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.P = P;
    j.whole = calloc(n, sizeof(double));
    j.xbuf = shared ? calloc(n, sizeof(double)) : NULL;
    pthread_barrier_init(&j.bar, NULL, (unsigned)P);

    shard ref;
    memset(&ref, 0, sizeof ref);
    ref.j = &j;
    ref.x = calloc(n, sizeof(double));
    ref.host = crfp_host_new();
    crfp_host_set_verbosity(ref.host, CRFP_LOG_WARN);
    lbfgs_opts o;
    options(&o);
    lbfgs_objective plain = {.dim = n, .rho1 = rho1, .rho2 = p->rho2, .ud = &ref,
                             .eval = plain_eval, .iteration = sh_iteration};
    crfp_status st = lbfgs_minimize(ref.host, &o, &plain, ref.x);
    CHECK(st == CRFP_OK, "%s: plain run: %s", name, crfp_errmsg(ref.host));

    shard sh[MAXP];
    pthread_t th[MAXP];
    for (int r = 0; r < P; r++) {
        memset(&sh[r], 0, sizeof sh[r]);
        sh[r].j = &j;
        sh[r].rank = r;
        sh[r].rho1 = rho1;
        slice(n, r, P, &sh[r].lo, &sh[r].hi);
        sh[r].x = calloc(n, sizeof(double));
        sh[r].gfull = calloc(n, sizeof(double));
        sh[r].host = crfp_host_new();
        crfp_host_set_verbosity(sh[r].host, CRFP_LOG_WARN);
        pthread_create(&th[r], NULL, run_shard, &sh[r]);
    }
    for (int r = 0; r < P; r++)
        pthread_join(th[r], NULL);

    for (int r = 0; r < P; r++) {
        CHECK(sh[r].st == CRFP_OK, "%s P=%d shard %d: %s", name, P, r, crfp_errmsg(sh[r].host));
        CHECK(sh[r].iters == sh[0].iters, "%s: shard %d took %d iterations, shard 0 %d", name,
              r, sh[r].iters, sh[0].iters);
        CHECK(memcmp(sh[r].x, sh[0].x, n * sizeof(double)) == 0,
              "%s P=%d: shard %d ends with another θ than shard 0", name, P, r);
    }
    double worst = 0;
    int upto = ref.iters < 20 ? ref.iters : 20;
    CHECK(sh[0].iters >= upto, "%s P=%d: %d iterations, the plain run %d", name, P,
          sh[0].iters, ref.iters);
    for (int k = 0; k < upto && k < sh[0].iters; k++)
        worst = fmax(worst, fabs(sh[0].Fs[k] - ref.Fs[k]) / fabs(ref.Fs[k]));
    CHECK(worst <= 1e-9, "%s P=%d: F differs from the plain run by %g (relative)", name, P,
          worst);
    double dx = 0, xmax = 0;
    for (size_t i = 0; i < n; i++) {
        dx = fmax(dx, fabs(sh[0].x[i] - ref.x[i]));
        xmax = fmax(xmax, fabs(ref.x[i]));
    }
    CHECK(dx <= 1e-6 * fmax(1.0, xmax), "%s P=%d: θ differs from the plain run's by %g", name,
          P, dx);
    if (rho1 > 0)
        for (size_t i = 0; i < n; i++)
            CHECK((sh[0].x[i] == 0) == (ref.x[i] == 0) || fabs(ref.x[i]) < 1e-6,
                  "%s P=%d: weight %zu is %g sharded, %g plain", name, P, i, sh[0].x[i],
                  ref.x[i]);
    printf("%s P=%d%s: %d / %d iterations (sharded / plain), F within %.2g over the first %d, "
           "max |dθ| %.2g\n", name, P, shared ? " (shared iterate)" : "", sh[0].iters, ref.iters, worst, upto, dx);

    for (int r = 0; r < P; r++) {
        free(sh[r].x);
        free(sh[r].gfull);
        crfp_host_free(sh[r].host);
    }
    free(ref.x);
    crfp_host_free(ref.host);
    pthread_barrier_destroy(&j.bar);
    free(j.whole);
    free(j.xbuf);
}

/* A sum that fails on one shard fails every shard (they all see it at the
 * same collective), none hangs. */
static void failing_sum(problem *p)
{
    size_t n = p->dim;
    job j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.P = 2;
    j.whole = calloc(n, sizeof(double));
    j.fail_sum_at = 7;
    pthread_barrier_init(&j.bar, NULL, 2);
    shard sh[2];
    pthread_t th[2];
    for (int r = 0; r < 2; r++) {
        memset(&sh[r], 0, sizeof sh[r]);
        sh[r].j = &j;
        sh[r].rank = r;
        slice(n, r, 2, &sh[r].lo, &sh[r].hi);
        sh[r].x = calloc(n, sizeof(double));
        sh[r].gfull = calloc(n, sizeof(double));
        sh[r].host = crfp_host_new();
        crfp_host_set_verbosity(sh[r].host, CRFP_LOG_ERROR);
        pthread_create(&th[r], NULL, run_shard, &sh[r]);
    }
    for (int r = 0; r < 2; r++) {
        pthread_join(th[r], NULL);
        CHECK(sh[r].st == CRFP_EIO, "shard %d: status %d after a failed sum", r, (int)sh[r].st);
        CHECK(strstr(crfp_errmsg(sh[r].host), "the sum failed") != NULL, "shard %d: '%s'", r,
              crfp_errmsg(sh[r].host));
        free(sh[r].x);
        free(sh[r].gfull);
        crfp_host_free(sh[r].host);
    }
    pthread_barrier_destroy(&j.bar);
    free(j.whole);
}

/* A shard's pool runs its kernels on its slice only, whatever n it is
 * given, split over the team, and adds its sums over the shards.  The
 * members record the range they saw under a lock (they run at once). */
typedef struct seen_range {
    pthread_mutex_t lock;
    size_t lo, hi;
} seen_range;

static void record(void *ctx, size_t lo, size_t hi, double *acc)
{
    seen_range *seen = ctx;
    pthread_mutex_lock(&seen->lock);
    if (lo < seen->lo)
        seen->lo = lo;
    if (hi > seen->hi)
        seen->hi = hi;
    pthread_mutex_unlock(&seen->lock);
    acc[0] += (double)(hi - lo);
}

static crfp_status times_three(void *ud, double *v, size_t n)
{
    (void)ud;
    for (size_t k = 0; k < n; k++)
        v[k] *= 3;
    return CRFP_OK;
}

static void pool_slice(void)
{
    crfp_team *team = NULL;
    CHECK(crfp_team_new(2, &team) == CRFP_OK, "no team");
    for (int t = 0; t < 2; t++) {
        vpool *vp = vpool_new_shard(t ? team : NULL, 100000, 300000, times_three, NULL, 1);
        seen_range seen = {PTHREAD_MUTEX_INITIALIZER, (size_t)-1, 0};
        double out[1];
        vpool_run(vp, 1000000, record, &seen, out, 1);
        CHECK(seen.lo == 100000 && seen.hi == 300000, "team %d: ran on [%zu, %zu)", t, seen.lo,
              seen.hi);
        CHECK(out[0] == 600000, "team %d: sum %g", t, out[0]);
        CHECK(vpool_status(vp) == CRFP_OK, "status");
        vpool_free(vp);
    }
    crfp_team_free(team);
}

int main(void)
{
    /* Shards that part ways wait at a barrier for ever: fail instead. */
    alarm(120);
    pool_slice();
    problem p;
    problem_logit(&p, 300, 57, 0.1, 11);
    compare(&p, 0.0, 2, 0, "logistic-l2");
    compare(&p, 0.0, 2, 1, "logistic-l2");
    compare(&p, 0.0, 3, 1, "logistic-l2");
    failing_sum(&p);
    problem_free(&p);

    problem_lsq(&p, 80, 41, 12);
    compare(&p, 0.5, 2, 0, "lasso");
    compare(&p, 0.5, 4, 1, "lasso");
    problem_free(&p);

    problem_rosen(&p, 30);
    compare(&p, 0.0, 2, 1, "rosenbrock");
    problem_free(&p);

    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
