/* lbfgs plugin — the vector-loop team (see vpool.h). */
#include "config.h"
#include "vpool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Below this many elements a loop is not worth waking the team for. */
#define VPOOL_MIN 65536

typedef struct member {
    struct vpool *p;
    int id;
    pthread_t th;
    double acc[VPOOL_ACC];
} member;

struct vpool {
    int n;                 /* team size, caller included */
    member *m;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned gen;          /* bumped for each job */
    int pending, quit;
    /* the current job */
    vpool_fn fn;
    void *ctx;
    size_t len;
};

static void slice(const vpool *p, int id, size_t *lo, size_t *hi)
{
    /* slices on 8-element boundaries keep each thread on its own lines */
    size_t blocks = (p->len + 7) / 8;
    *lo = blocks * (size_t)id / (size_t)p->n * 8;
    *hi = blocks * ((size_t)id + 1) / (size_t)p->n * 8;
    if (*hi > p->len)
        *hi = p->len;
    if (*lo > *hi)
        *lo = *hi;
}

static void *member_main(void *arg)
{
    member *m = arg;
    vpool *p = m->p;
    unsigned seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->gen == seen && !p->quit)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit)
            break;
        seen = p->gen;
        pthread_mutex_unlock(&p->mu);
        size_t lo, hi;
        slice(p, m->id, &lo, &hi);
        memset(m->acc, 0, sizeof m->acc);
        p->fn(p->ctx, lo, hi, m->acc);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

vpool *vpool_new(int nthreads)
{
    if (nthreads <= 1)
        return NULL;
    vpool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->m = calloc((size_t)nthreads, sizeof *p->m);
    if (!p->m) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    p->n = 1;
    for (int i = 1; i < nthreads; i++) {
        p->m[i].p = p;
        p->m[i].id = i;
        if (pthread_create(&p->m[i].th, NULL, member_main, &p->m[i]) != 0)
            break;
        p->n++;
    }
    if (p->n == 1) {
        vpool_free(p);
        return NULL;
    }
    return p;
}

void vpool_free(vpool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->m[i].th, NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    free(p->m);
    free(p);
}

void vpool_run(vpool *p, size_t n, vpool_fn fn, void *ctx, double out[VPOOL_ACC])
{
    memset(out, 0, VPOOL_ACC * sizeof *out);
    if (!p || n < VPOOL_MIN) {
        fn(ctx, 0, n, out);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->len = n;
    p->pending = p->n - 1;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    size_t lo, hi;
    slice(p, 0, &lo, &hi);
    double acc0[VPOOL_ACC] = {0};
    fn(ctx, lo, hi, acc0);
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    for (int k = 0; k < VPOOL_ACC; k++) {
        out[k] = acc0[k];
        for (int i = 1; i < p->n; i++)
            out[k] += p->m[i].acc[k];
    }
}
