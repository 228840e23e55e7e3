/* crfpipe — the thread team (see team.h).
 *
 * Members sleep on a condition variable between jobs and are woken by a
 * generation counter; the caller runs member 0 itself, so a team of n costs
 * n-1 threads.  Condition variables rather than spinning: the team lives as
 * long as the host, and a spinning idle team would steal the cores that the
 * single-threaded stages (reading, writing) need.
 */
#include "config.h"
#include "crfpipe/team.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* The team whose job the calling thread is running, if any: a job that
 * asks the same team for another job runs it alone instead of waiting for
 * members that are busy with the first one (a deadlock).  This is what
 * lets a stage that parallelises its own work be called from a pipeline
 * that already runs documents in parallel on the team. */
static _Thread_local const struct crfp_team *tl_running;

typedef struct member {
    struct crfp_team *t;
    int id;
    pthread_t th;
} member;

struct crfp_team {
    int n;
    member *m;
    int started;              /* threads actually running (members 1..started) */
    pthread_mutex_t run_mu;   /* serialises crfp_team_run callers */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned gen;
    int pending, quit;
    crfp_team_fn fn;
    void *arg;
};

static void *member_main(void *p)
{
    member *m = p;
    crfp_team *t = m->t;
    unsigned seen = 0;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (t->gen == seen && !t->quit)
            pthread_cond_wait(&t->go, &t->mu);
        if (t->quit)
            break;
        seen = t->gen;
        crfp_team_fn fn = t->fn;
        void *arg = t->arg;
        pthread_mutex_unlock(&t->mu);
        tl_running = t;
        fn(arg, m->id, t->n);
        tl_running = NULL;
        pthread_mutex_lock(&t->mu);
        if (--t->pending == 0)
            pthread_cond_signal(&t->done);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (n > 256 ? 256 : (int)n) : 1;
}

crfp_status crfp_team_new(int nthreads, crfp_team **out)
{
    *out = NULL;
    int n = nthreads > 0 ? nthreads : online_cpus();
    if (n > 1024)
        n = 1024;
    crfp_team *t = calloc(1, sizeof *t);
    if (!t)
        return CRFP_ENOMEM;
    t->n = n;
    t->m = calloc((size_t)n, sizeof *t->m);
    if (!t->m) {
        free(t);
        return CRFP_ENOMEM;
    }
    pthread_mutex_init(&t->run_mu, NULL);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->go, NULL);
    pthread_cond_init(&t->done, NULL);
    for (int i = 0; i < n; i++) {
        t->m[i].t = t;
        t->m[i].id = i;
    }
    for (int i = 1; i < n; i++) {
        if (pthread_create(&t->m[i].th, NULL, member_main, &t->m[i]) != 0) {
            crfp_team_free(t);
            return CRFP_ENOMEM;
        }
        t->started = i;
    }
    *out = t;
    return CRFP_OK;
}

void crfp_team_free(crfp_team *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->quit = 1;
    pthread_cond_broadcast(&t->go);
    pthread_mutex_unlock(&t->mu);
    for (int i = 1; i <= t->started; i++)
        pthread_join(t->m[i].th, NULL);
    pthread_mutex_destroy(&t->run_mu);
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->go);
    pthread_cond_destroy(&t->done);
    free(t->m);
    free(t);
}

int crfp_team_size(const crfp_team *t)
{
    return t ? t->n : 1;
}

void crfp_team_run(crfp_team *t, crfp_team_fn fn, void *arg)
{
    if (!t || t->n == 1 || tl_running == t) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&t->run_mu);
    pthread_mutex_lock(&t->mu);
    t->fn = fn;
    t->arg = arg;
    t->pending = t->n - 1;
    t->gen++;
    pthread_cond_broadcast(&t->go);
    pthread_mutex_unlock(&t->mu);
    tl_running = t;
    fn(arg, 0, t->n);
    tl_running = NULL;
    pthread_mutex_lock(&t->mu);
    while (t->pending > 0)
        pthread_cond_wait(&t->done, &t->mu);
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_unlock(&t->run_mu);
}
