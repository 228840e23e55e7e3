/* newton_cg plugin — the CG iteration's vector loops on the host's team.
 *
 * Over millions of weights these loops are bound by memory bandwidth, so
 * the updates of one CG iteration are fused into as few passes as the data
 * dependencies allow (ncg_impl.h), and each pass is split over the team.
 */
#include "config.h"
#include "ncg_impl.h"

#include <stdlib.h>
#include <string.h>

/* Below this many elements a loop is not worth waking the team for. */
#define VEC_MIN 65536
#define NACC 3

enum op { OP_DOT, OP_CG_STEP, OP_CG_DIR, OP_NEG, OP_STEP, OP_WDOT, OP_FROM, OP_DIAG_DOT };

typedef struct args {
    enum op op;
    double a;
    const double *x, *y, *m; /* m: the preconditioner's diagonal, NULL = identity */
    const double *w;         /* the trust region's norm weights, NULL = Euclidean */
    double *p, *q;
} args;

struct ncg_vec {
    crfp_team *team;
    int n;
    double (*acc)[NACC];
    args *job;
    size_t len;
};

static void kernel(const args *j, size_t lo, size_t hi, double acc[NACC])
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    const double a = j->a;
    switch (j->op) {
    case OP_DOT: {
        const double *restrict x = j->x, *restrict y = j->y;
        for (size_t i = lo; i < hi; i++)
            s0 += x[i] * y[i];
        break;
    }
    case OP_WDOT: { /* Σ m x y */
        const double *restrict x = j->x, *restrict y = j->y, *restrict m = j->m;
        if (!m) {
            for (size_t i = lo; i < hi; i++)
                s0 += x[i] * y[i];
        } else {
            for (size_t i = lo; i < hi; i++)
                s0 += m[i] * x[i] * y[i];
        }
        break;
    }
    case OP_CG_STEP: { /* x = d, y = hd, p = z, q = r; s0 = r'r, s1 = r'M⁻¹r */
        const double *restrict d = j->x, *restrict hd = j->y, *restrict m = j->m;
        double *restrict z = j->p, *restrict r = j->q;
        for (size_t i = lo; i < hi; i++) {
            z[i] += a * d[i];
            r[i] -= a * hd[i];
            s0 += r[i] * r[i];
        }
        if (m)
            for (size_t i = lo; i < hi; i++)
                s1 += r[i] * r[i] / m[i];
        else
            s1 = s0;
        break;
    }
    case OP_CG_DIR: { /* x = r, y = z, p = d: d = M⁻¹r + a·d; s0 = d'Wd, s1 = z'Wd */
        const double *restrict r = j->x, *restrict z = j->y, *restrict m = j->m;
        const double *restrict w = j->w;
        double *restrict d = j->p;
        if (!m) {
            for (size_t i = lo; i < hi; i++)
                d[i] = r[i] + a * d[i];
        } else {
            for (size_t i = lo; i < hi; i++)
                d[i] = r[i] / m[i] + a * d[i];
        }
        if (!w) {
            for (size_t i = lo; i < hi; i++) {
                s0 += d[i] * d[i];
                s1 += z[i] * d[i];
            }
        } else {
            for (size_t i = lo; i < hi; i++) {
                s0 += w[i] * d[i] * d[i];
                s1 += w[i] * z[i] * d[i];
            }
        }
        break;
    }
    case OP_NEG: { /* x = g, p = d, q = r: r = -g, d = -M⁻¹g; s0 = g'g, s1 = g'M⁻¹g, s2 = d'Wd */
        const double *restrict g = j->x, *restrict m = j->m, *restrict w = j->w;
        double *restrict d = j->p, *restrict r = j->q;
        for (size_t i = lo; i < hi; i++) {
            r[i] = -g[i];
            s0 += g[i] * g[i];
        }
        if (!m) {
            for (size_t i = lo; i < hi; i++)
                d[i] = -g[i];
            s1 = s0;
        } else {
            for (size_t i = lo; i < hi; i++) {
                d[i] = -g[i] / m[i];
                s1 -= g[i] * d[i];
            }
        }
        if (!w)
            for (size_t i = lo; i < hi; i++)
                s2 += d[i] * d[i];
        else
            for (size_t i = lo; i < hi; i++)
                s2 += w[i] * d[i] * d[i];
        break;
    }
    case OP_DIAG_DOT: { /* x = d, y = c, p = hd: hd += c∘d; s0 = d'hd */
        const double *restrict d = j->x, *restrict c = j->y;
        double *restrict hd = j->p;
        if (c)
            for (size_t i = lo; i < hi; i++)
                hd[i] += c[i] * d[i];
        for (size_t i = lo; i < hi; i++)
            s0 += d[i] * hd[i];
        break;
    }
    case OP_FROM: { /* x = s, y = base, p = θ: θ = base + a·s */
        const double *restrict st = j->x, *restrict base = j->y;
        double *restrict x = j->p;
        for (size_t i = lo; i < hi; i++)
            x[i] = base[i] + a * st[i];
        break;
    }
    case OP_STEP: { /* x = s, p = θ, q = keep */
        const double *restrict s = j->x;
        double *restrict x = j->p, *restrict keep = j->q;
        for (size_t i = lo; i < hi; i++) {
            keep[i] = x[i];
            x[i] += s[i];
        }
        break;
    }
    }
    acc[0] += s0;
    acc[1] += s1;
    acc[2] += s2;
}

ncg_vec *ncg_vec_new(crfp_team *team)
{
    int n = crfp_team_size(team);
    if (n <= 1)
        return NULL;
    ncg_vec *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->acc = calloc((size_t)n, sizeof *v->acc);
    if (!v->acc) {
        free(v);
        return NULL;
    }
    v->team = team;
    v->n = n;
    return v;
}

void ncg_vec_free(ncg_vec *v)
{
    if (!v)
        return;
    free(v->acc);
    free(v);
}

static void member(void *arg, int id, int n)
{
    ncg_vec *v = arg;
    size_t lo, hi;
    crfp_team_slice(v->len, id, n, &lo, &hi);
    memset(v->acc[id], 0, sizeof v->acc[id]);
    kernel(v->job, lo, hi, v->acc[id]);
}

static void run(ncg_vec *v, size_t n, args *j, double out[NACC])
{
    memset(out, 0, NACC * sizeof *out);
    if (!v || n < VEC_MIN) {
        kernel(j, 0, n, out);
        return;
    }
    v->job = j;
    v->len = n;
    crfp_team_run(v->team, member, v);
    for (int k = 0; k < NACC; k++)
        for (int i = 0; i < v->n; i++)
            out[k] += v->acc[i][k];
}

double ncg_dot(ncg_vec *v, size_t n, const double *x, const double *y)
{
    args j = {.op = OP_DOT, .x = x, .y = y};
    double out[NACC];
    run(v, n, &j, out);
    return out[0];
}

double ncg_wdot(ncg_vec *v, size_t n, const double *m, const double *x, const double *y)
{
    args j = {.op = OP_WDOT, .x = x, .y = y, .m = m};
    double out[NACC];
    run(v, n, &j, out);
    return out[0];
}

void ncg_cg_step(ncg_vec *v, size_t n, const double *m, double a, const double *d,
                 const double *hd, double *z, double *r, double out[3])
{
    args j = {.op = OP_CG_STEP, .a = a, .x = d, .y = hd, .m = m, .p = z, .q = r};
    run(v, n, &j, out);
}

void ncg_cg_dir(ncg_vec *v, size_t n, const double *m, const double *w, double b,
                const double *r, const double *z, double *d, double out[3])
{
    args j = {.op = OP_CG_DIR, .a = b, .x = r, .y = z, .m = m, .w = w, .p = d};
    run(v, n, &j, out);
}

void ncg_neg(ncg_vec *v, size_t n, const double *m, const double *w, const double *g, double *d,
             double *r, double out[3])
{
    args j = {.op = OP_NEG, .x = g, .m = m, .w = w, .p = d, .q = r};
    run(v, n, &j, out);
}

void ncg_step(ncg_vec *v, size_t n, const double *s, double *x, double *keep)
{
    args j = {.op = OP_STEP, .x = s, .p = x, .q = keep};
    double out[NACC];
    run(v, n, &j, out);
}

void ncg_from(ncg_vec *v, size_t n, const double *base, double a, const double *s, double *x)
{
    args j = {.op = OP_FROM, .a = a, .x = s, .y = base, .p = x};
    double out[NACC];
    run(v, n, &j, out);
}

double ncg_diag_dot(ncg_vec *v, size_t n, const double *c, const double *d, double *hd)
{
    args j = {.op = OP_DIAG_DOT, .x = d, .y = c, .p = hd};
    double out[NACC];
    run(v, n, &j, out);
    return out[0];
}
