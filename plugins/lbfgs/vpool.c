/* lbfgs plugin — the vector loops on the host's team (see vpool.h). */
#include "config.h"
#include "vpool.h"

#include <stdlib.h>
#include <string.h>

/* Below this many elements a loop is not worth waking the team for. */
#define VPOOL_MIN 65536

struct vpool {
    crfp_team *team;
    int n;
    size_t nacc;  /* partial sums per member */
    double *acc;  /* n × nacc */
    size_t run_nacc;
    /* a shard's pool (sum != NULL) */
    size_t lo, hi;
    vpool_sum sum;
    void *sum_ud;
    crfp_status st;
    /* the current job */
    vpool_fn fn;
    void *ctx;
    size_t base, len;
};

static vpool *make(crfp_team *team, size_t nacc)
{
    int n = crfp_team_size(team);
    vpool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->nacc = nacc ? nacc : 1;
    p->acc = calloc((size_t)(n > 0 ? n : 1) * p->nacc, sizeof *p->acc);
    if (!p->acc) {
        free(p);
        return NULL;
    }
    p->team = team;
    p->n = n;
    return p;
}

vpool *vpool_new(crfp_team *team, size_t nacc)
{
    return crfp_team_size(team) <= 1 ? NULL : make(team, nacc);
}

vpool *vpool_new_shard(crfp_team *team, size_t lo, size_t hi, vpool_sum sum, void *ud,
                       size_t nacc)
{
    vpool *p = make(team, nacc);
    if (p) {
        p->lo = lo;
        p->hi = hi;
        p->sum = sum;
        p->sum_ud = ud;
    }
    return p;
}

crfp_status vpool_status(const vpool *p)
{
    return p ? p->st : CRFP_OK;
}

void vpool_free(vpool *p)
{
    if (!p)
        return;
    free(p->acc);
    free(p);
}

static void member(void *arg, int id, int n)
{
    vpool *p = arg;
    size_t lo, hi;
    crfp_team_slice(p->len, id, n, &lo, &hi);
    double *acc = p->acc + (size_t)id * p->nacc;
    memset(acc, 0, p->run_nacc * sizeof *acc);
    p->fn(p->ctx, p->base + lo, p->base + hi, acc);
}

void vpool_run(vpool *p, size_t n, vpool_fn fn, void *ctx, double *out, size_t nacc)
{
    memset(out, 0, nacc * sizeof *out);
    size_t lo = p && p->sum ? p->lo : 0, hi = p && p->sum ? p->hi : n;
    if (!p || p->n <= 1 || hi - lo < VPOOL_MIN) {
        fn(ctx, lo, hi, out);
    } else {
        p->fn = fn;
        p->ctx = ctx;
        p->base = lo;
        p->len = hi - lo;
        p->run_nacc = nacc;
        crfp_team_run(p->team, member, p);
        /* partial sums in member order: results depend on the team size only */
        for (size_t k = 0; k < nacc; k++)
            for (int i = 0; i < p->n; i++)
                out[k] += p->acc[(size_t)i * p->nacc + k];
    }
    /* The shards' partials, added in shard order by the job. */
    if (p && p->sum && p->st == CRFP_OK)
        p->st = p->sum(p->sum_ud, out, nacc);
}
