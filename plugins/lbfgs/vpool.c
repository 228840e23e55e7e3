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
    double (*acc)[VPOOL_ACC]; /* per member */
    /* the current job */
    vpool_fn fn;
    void *ctx;
    size_t len;
};

vpool *vpool_new(crfp_team *team)
{
    int n = crfp_team_size(team);
    if (n <= 1)
        return NULL;
    vpool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->acc = calloc((size_t)n, sizeof *p->acc);
    if (!p->acc) {
        free(p);
        return NULL;
    }
    p->team = team;
    p->n = n;
    return p;
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
    memset(p->acc[id], 0, sizeof p->acc[id]);
    p->fn(p->ctx, lo, hi, p->acc[id]);
}

void vpool_run(vpool *p, size_t n, vpool_fn fn, void *ctx, double out[VPOOL_ACC])
{
    memset(out, 0, VPOOL_ACC * sizeof *out);
    if (!p || n < VPOOL_MIN) {
        fn(ctx, 0, n, out);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->len = n;
    crfp_team_run(p->team, member, p);
    /* partial sums in member order: results depend on the team size only */
    for (int k = 0; k < VPOOL_ACC; k++)
        for (int i = 0; i < p->n; i++)
            out[k] += p->acc[i][k];
}
