/* lbfgs plugin — the L-BFGS / OWL-QN driver loop.
 *
 * Memory: θ (the caller's), ∇f and θ_prev in double, the direction d in
 * float, and the 2m half vectors of the pairs, one of whose slots holds
 * ∇f_prev during the line search (history.c): 20 + 4m bytes per weight
 * beyond θ.  The pseudo-gradient is recomputed on the fly, never stored.
 * Everything is allocated once, before the first evaluation.  (On the
 * CoNLL-2000 chunker, m = 5: 298 MB of vectors besides θ's 60; 536 MB with
 * float pairs and double ∇f_prev, d, and 715 MB with double pairs.)
 *
 * Sharded (a distributed run on one machine, see lbfgs_objective): every
 * loop runs over this rank's slice [lo, hi) of the vectors, its products
 * summed over the ranks by the pool, so each rank does 1/P of the work and
 * touches 1/P of the history's memory; θ is made whole by each evaluation
 * and, after a failed line search put the slice back, once at the end.
 *
 * Checkpoints: after an iteration the whole state is θ, ∇f, the stored
 * pairs with their scales, ρ, γ, Gram matrix and products with -pg, F and
 * the window of past F, and the iteration and evaluation counts; the
 * direction is recomputed from them.  Saved bit for bit and restored, the
 * run goes on exactly as if it had never stopped (the pairs are put back
 * oldest first in slots 0.., which changes where they lie, not what the
 * recursion computes). */
#include "config.h"
#include "lbfgs_impl.h"
#include "crfpipe/alloc.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lbfgs_opts_default(lbfgs_opts *o)
{
    o->m = 5;
    o->epsilon = 3e-4;
    o->window = 5;
    o->max_ls = 20;
    o->max_iter = 0;
    o->gtol = 1e-5;
    o->team = NULL;
}

crfp_status lbfgs_opts_check(crfp_host *host, const lbfgs_opts *o)
{
    if (o->m < 1 || o->m > 1000)
        return crfp_error(host, CRFP_EINVAL, "lbfgs: history=%d: must be in 1..1000", o->m);
    if (o->window < 1 || o->window > 100000)
        return crfp_error(host, CRFP_EINVAL, "lbfgs: window=%d: must be in 1..100000",
                          o->window);
    if (o->max_ls < 1)
        return crfp_error(host, CRFP_EINVAL, "lbfgs: max-linesearch=%d: must be >= 1",
                          o->max_ls);
    if (o->max_iter < 0)
        return crfp_error(host, CRFP_EINVAL, "lbfgs: max-iter=%lld: must be >= 0",
                          (long long)o->max_iter);
    if (!(o->epsilon >= 0) || !isfinite(o->epsilon))
        return crfp_error(host, CRFP_EINVAL, "lbfgs: epsilon=%g: must be a finite value >= 0",
                          o->epsilon);
    if (!(o->gtol >= 0) || !isfinite(o->gtol))
        return crfp_error(host, CRFP_EINVAL, "lbfgs: gtol=%g: must be a finite value >= 0",
                          o->gtol);
    return CRFP_OK;
}

/* Workspace of one run. */
typedef struct run {
    crfp_host *host;
    const lbfgs_opts *opts;
    const lbfgs_objective *obj;
    size_t n;
    double *x, *g;
    float *d;
    lbfgs_mem mem;
    vpool *pool;
    size_t lo, hi; /* the vectors' live slice: [0, n) unless sharded */
    int agreed_stop;   /* the monitor stopped the run (every shard at once) */
    double f, F;
    double *Fwin; /* F of the last `window` iterates, ring indexed by iter */
    const crfp_train_ckpt *ck; /* may be NULL */
} run;

/* The fixed part of a saved state; Fwin[window], then for each pair,
 * oldest first, {ρ, e_s, e_y, v's, v'y}, then the pairs' Gram matrix
 * ((2·count)², rows s_0, y_0, s_1, ...) follow it in the same piece, then
 * ∇f (doubles), then s and y of each pair, oldest first (halves). */
typedef struct saved {
    uint64_t magic;
    uint64_t n;
    int64_t m, window, count, iter, evals;
    double f, F, gamma, pg2, x2, rho1;
} saved;
#define SAVED_MAGIC UINT64_C(0x3376534746424c) /* "LBFGSv3": half pairs */
#define SAVED_MAGIC_V2 UINT64_C(0x3276534746424c) /* "LBFGSv2": float pairs */
#define SAVED_MAGIC_V1 UINT64_C(0x3176534746424c) /* "LBFGSv1": double pairs */
#define PAIR_SCALARS 5

static crfp_status save_state(run *r, int iter, int evals, double pg2, double x2)
{
    const lbfgs_mem *mem = &r->mem;
    int w = r->opts->window, c = mem->count;
    const lbfgs_objective *obj = r->obj;
    if (obj->eval_shard) {
        /* The state is saved whole (it may resume on another number of
         * ranks); the vectors stay whole afterwards, which costs memory
         * only in runs that checkpoint. */
        crfp_status st = obj->gather(obj->ud, r->g, sizeof(double));
        for (int i = 0; st == CRFP_OK && i < c; i++)
            if ((st = obj->gather(obj->ud, mem->s[lbfgs_mem_slot(mem, i)], sizeof(uint16_t))) ==
                CRFP_OK)
                st = obj->gather(obj->ud, mem->y[lbfgs_mem_slot(mem, i)], sizeof(uint16_t));
        if (st != CRFP_OK)
            return st;
    }
    size_t nd = (size_t)w + PAIR_SCALARS * (size_t)c + 4 * (size_t)c * (size_t)c;
    size_t hlen = sizeof(saved) + nd * sizeof(double);
    unsigned char *h = malloc(hlen);
    crfp_ckpt_piece *pc = malloc((2 + 2 * (size_t)c) * sizeof *pc);
    if (!h || !pc) {
        free(h);
        free(pc);
        return crfp_error(r->host, CRFP_ENOMEM, "lbfgs: out of memory saving a checkpoint");
    }
    saved sv = {SAVED_MAGIC, r->n, mem->m, w, c, iter, evals,
                r->f, r->F, mem->gamma, pg2, x2, r->obj->rho1};
    memcpy(h, &sv, sizeof sv);
    double *t = (double *)(void *)(h + sizeof sv);
    memcpy(t, r->Fwin, (size_t)w * sizeof(double));
    t += w;
    for (int i = 0; i < c; i++) {
        int k = lbfgs_mem_slot(mem, i);
        double v[PAIR_SCALARS] = {mem->rho[k], mem->es[k], mem->ey[k], mem->vs[k], mem->vy[k]};
        memcpy(t, v, sizeof v);
        t += PAIR_SCALARS;
    }
    for (int i = 0; i < 2 * c; i++)
        for (int j = 0; j < 2 * c; j++)
            *t++ = *lbfgs_mem_gram(mem, lbfgs_mem_slot(mem, i / 2), i % 2, lbfgs_mem_slot(mem, j / 2),
                            j % 2);
    size_t np = 0, vb = r->n * sizeof(double), pb = r->n * sizeof(uint16_t);
    pc[np++] = (crfp_ckpt_piece){h, hlen};
    pc[np++] = (crfp_ckpt_piece){r->g, vb};
    for (int i = 0; i < c; i++) {
        pc[np++] = (crfp_ckpt_piece){mem->s[lbfgs_mem_slot(mem, i)], pb};
        pc[np++] = (crfp_ckpt_piece){mem->y[lbfgs_mem_slot(mem, i)], pb};
    }
    crfp_status st = r->ck->save(r->ck->ud, iter, r->x, pc, np);
    free(h);
    free(pc);
    return st;
}

/* Put a saved state back; *iter, *evals, *pg2, *x2 receive its counters. */
static crfp_status restore_state(run *r, int *iter, int *evals, double *pg2, double *x2)
{
    const crfp_train_ckpt *ck = r->ck;
    const unsigned char *b = ck->state;
    saved sv;
    if (ck->len < sizeof sv)
        return crfp_error(r->host, CRFP_EFORMAT, "lbfgs: checkpoint state truncated");
    memcpy(&sv, b, sizeof sv);
    lbfgs_mem *mem = &r->mem;
    if (sv.magic == SAVED_MAGIC_V1 || sv.magic == SAVED_MAGIC_V2)
        return crfp_error(r->host, CRFP_EFORMAT,
                          "lbfgs: the checkpoint was made by lbfgs %s (%s-precision history), "
                          "which this version cannot resume; train again",
                          sv.magic == SAVED_MAGIC_V1 ? "1.0" : "1.1 - 1.2",
                          sv.magic == SAVED_MAGIC_V1 ? "double" : "single");
    if (sv.magic != SAVED_MAGIC)
        return crfp_error(r->host, CRFP_EFORMAT, "lbfgs: the checkpoint holds no L-BFGS state");
    if (sv.n != r->n || sv.m != mem->m || sv.window != r->opts->window || sv.rho1 != r->obj->rho1)
        return crfp_error(r->host, CRFP_EFORMAT,
                          "lbfgs: the checkpoint was made with %llu weights, history %lld, "
                          "window %lld, rho1 %g; this run has %zu, %d, %d, %g",
                          (unsigned long long)sv.n, (long long)sv.m, (long long)sv.window,
                          sv.rho1, r->n, mem->m, r->opts->window, r->obj->rho1);
    if (sv.count < 0 || sv.count > sv.m || sv.iter < 0 || sv.iter > INT_MAX)
        return crfp_error(r->host, CRFP_EFORMAT, "lbfgs: checkpoint state of the wrong size");
    size_t w = (size_t)sv.window, c = (size_t)sv.count, vb = r->n * sizeof(double),
           pb = r->n * sizeof(uint16_t);
    size_t nd = w + PAIR_SCALARS * c + 4 * c * c;
    if (ck->len != sizeof sv + nd * sizeof(double) + vb + 2 * c * pb)
        return crfp_error(r->host, CRFP_EFORMAT, "lbfgs: checkpoint state of the wrong size");
    const unsigned char *p = b + sizeof sv;
    memcpy(r->Fwin, p, w * sizeof(double));
    p += w * sizeof(double);
    for (size_t i = 0; i < c; i++, p += PAIR_SCALARS * sizeof(double)) {
        double v[PAIR_SCALARS];
        memcpy(v, p, sizeof v);
        if (!(v[1] >= -1100 && v[1] <= 1100 && v[2] >= -1100 && v[2] <= 1100))
            return crfp_error(r->host, CRFP_EFORMAT, "lbfgs: checkpoint pair %zu has scale "
                              "exponents %g, %g", i + 1, v[1], v[2]);
        mem->rho[i] = v[0];
        mem->es[i] = (int)v[1];
        mem->ey[i] = (int)v[2];
        mem->vs[i] = v[3];
        mem->vy[i] = v[4];
    }
    for (size_t i = 0; i < 2 * c; i++)
        for (size_t j = 0; j < 2 * c; j++, p += sizeof(double))
            memcpy(lbfgs_mem_gram(mem, (int)(i / 2), (int)(i % 2), (int)(j / 2), (int)(j % 2)), p,
                   sizeof(double));
    memcpy(r->g, p, vb);
    p += vb;
    for (size_t i = 0; i < c; i++) {
        memcpy(mem->s[i], p, pb);
        memcpy(mem->y[i], p + pb, pb);
        p += 2 * pb;
    }
    mem->count = (int)c;
    mem->head = (int)(c % (size_t)mem->m);
    mem->gamma = sv.gamma;
    r->f = sv.f;
    r->F = sv.F;
    *iter = (int)sv.iter;
    *evals = (int)sv.evals;
    *pg2 = sv.pg2;
    *x2 = sv.x2;
    return CRFP_OK;
}

/* Put back the point the line search started from; its gradient, kept
 * only rounded, is evaluated again by the one caller that needs it. */
static void restore(run *r)
{
    memcpy(r->x + r->lo, r->mem.x0 + r->lo, (r->hi - r->lo) * sizeof(double));
}

/* One line search from mem.x0 (∇f in the free slot) along r->d. */
static crfp_status search(run *r, double dd, double a0, lbfgs_ls *ls)
{
    ls->x0 = r->mem.x0;
    ls->g0hi = r->mem.s[r->mem.head];
    ls->g0lo = r->mem.y[r->mem.head];
    ls->F0 = r->F;
    ls->d = r->d;
    ls->dd0 = dd;
    ls->a0 = a0;
    ls->pool = r->pool;
    crfp_status st = lbfgs_linesearch(r->host, r->obj, r->opts, ls, r->x, r->g);
    if (st != CRFP_OK || !ls->found)
        restore(r);
    return st;
}

/* What ended the loop, for the summary line. */
typedef enum {
    END_CONVERGED, END_DECREASE, END_MAXITER, END_CALLBACK, END_STUCK, END_FLAT
} end_reason;

/* *iters and *evals hold where the run starts (0 and 1, or a restored
 * state's counts with `resumed`, pg2 and x2 then its norms). */
static crfp_status iterate(run *r, int *iters, int *evals, end_reason *why, int resumed,
                           double pg2, double x2)
{
    const lbfgs_objective *obj = r->obj;
    const lbfgs_opts *o = r->opts;
    double rho1 = obj->rho1;
    int iter = *iters;
    if (!resumed)
        r->Fwin[0] = r->F;
    /* ‖pg‖² and ‖x‖²: computed here for the first iteration, then by the
     * pass that stores each new pair.  A resumed run keeps the norms it
     * saved. */
    if (!resumed)
        owlqn_norms(r->pool, r->n, r->x, r->g, rho1, &pg2, &x2);
    for (;;) {
        *iters = iter;
        if (o->max_iter > 0 && iter >= o->max_iter) {
            *why = END_MAXITER;
            return CRFP_OK;
        }
        if (pg2 == 0 || sqrt(pg2) <= o->gtol * fmax(1.0, sqrt(x2))) {
            *why = END_CONVERGED;
            return CRFP_OK;
        }
        int fresh = r->mem.count == 0;
        double dd = lbfgs_direction(&r->mem, r->x, r->g, rho1, r->d);
        crfp_status st = vpool_status(r->pool);
        if (st != CRFP_OK)
            return st;
        if (!(dd < 0)) {
            /* H lost positive definiteness numerically, or the orthant
             * constraint removed every component: start over. */
            crfp_log(r->host, CRFP_LOG_DEBUG, "lbfgs: iteration %d: not a descent direction, "
                     "resetting the history", iter + 1);
            lbfgs_mem_reset(&r->mem);
            dd = lbfgs_direction(&r->mem, r->x, r->g, rho1, r->d);
            if ((st = vpool_status(r->pool)) != CRFP_OK)
                return st;
            fresh = 1;
        }
        lbfgs_ls ls;
        /* Without curvature information the scale of d is arbitrary: take
         * a unit gradient step, but no longer than 1 in θ (large gradients
         * far from the optimum); near it (warm start) the plain gradient
         * step is the better guess. */
        double a0 = fresh ? fmin(1.0, 1.0 / sqrt(pg2)) : 1.0;
        st = search(r, dd, a0, &ls);
        if (st != CRFP_OK)
            return st;
        int nevals = ls.nevals;
        if (!ls.found && !fresh) {
            crfp_log(r->host, CRFP_LOG_DEBUG, "lbfgs: iteration %d: line search failed, "
                     "retrying along the steepest descent direction", iter + 1);
            /* ∇f at the restored point, exactly: the line search kept it
             * rounded to float. */
            if ((st = lbfgs_eval(obj, r->x, &r->f, r->g)) != CRFP_OK)
                return st;
            nevals++;
            lbfgs_mem_reset(&r->mem);
            dd = lbfgs_direction(&r->mem, r->x, r->g, rho1, r->d);
            if ((st = vpool_status(r->pool)) != CRFP_OK)
                return st;
            st = search(r, dd, fmin(1.0, 1.0 / sqrt(pg2)), &ls);
            if (st != CRFP_OK)
                return st;
            nevals += ls.nevals;
        }
        *evals += nevals;
        if (!ls.found && ls.flat) {
            *why = END_FLAT;
            return CRFP_OK;
        }
        if (!ls.found) {
            crfp_log(r->host, CRFP_LOG_WARN,
                     "lbfgs: iteration %d: no decrease of the objective found along the "
                     "steepest descent direction after %d evaluations; stopping at F = %.10g",
                     iter + 1, nevals, r->F);
            *why = END_STUCK;
            return CRFP_OK;
        }
        lbfgs_mem_commit(&r->mem, r->x, r->g, rho1, &pg2, &x2);
        if ((st = vpool_status(r->pool)) != CRFP_OK)
            return st;
        iter++;
        *iters = iter;
        r->f = ls.f;
        r->F = ls.F;
        int stop = 0;
        if (obj->iteration) {
            crfp_iter_info info = {iter, r->F, ls.step, nevals};
            st = obj->iteration(obj->ud, &info, r->x, &stop);
            if (st != CRFP_OK) {
                r->agreed_stop = st == CRFP_EINTR;
                return st;
            }
        }
        if (stop) {
            *why = END_CALLBACK;
            return CRFP_OK;
        }
        int w = o->window;
        double old = r->Fwin[iter % w];
        r->Fwin[iter % w] = r->F;
        int converged = iter >= w && old - r->F <= o->epsilon * fabs(r->F);
        if (!converged && r->ck && r->ck->due && r->ck->save && r->ck->due(r->ck->ud, iter) &&
            (st = save_state(r, iter, *evals, pg2, x2)) != CRFP_OK)
            return st;
        if (converged) {
            *why = END_DECREASE;
            return CRFP_OK;
        }
        /* The monitor and the checkpoint may have read the other shards'
         * slices of a shared iterate: nobody writes it before they are
         * done. */
        if (obj->xbuf && (st = obj->gather(obj->ud, r->x, sizeof(double))) != CRFP_OK)
            return st;
    }
}

crfp_status lbfgs_minimize(crfp_host *host, const lbfgs_opts *opts, const lbfgs_objective *obj,
                           double *theta)
{
    return lbfgs_minimize_ckpt(host, opts, obj, theta, NULL);
}

crfp_status lbfgs_minimize_ckpt(crfp_host *host, const lbfgs_opts *opts,
                                const lbfgs_objective *obj, double *theta,
                                const crfp_train_ckpt *ck)
{
    crfp_status st = lbfgs_opts_check(host, opts);
    if (st != CRFP_OK)
        return st;
    if (!obj || !(obj->eval || obj->eval_shard) || !theta)
        return crfp_error(host, CRFP_EINVAL, "lbfgs: no objective or no parameter vector");
    if (!(obj->rho1 >= 0) || !isfinite(obj->rho1))
        return crfp_error(host, CRFP_EINVAL, "lbfgs: rho1=%g: must be a finite value >= 0",
                          obj->rho1);
    if (obj->dim == 0)
        return CRFP_OK;
    run r;
    memset(&r, 0, sizeof r);
    r.host = host;
    r.opts = opts;
    r.obj = obj;
    r.n = obj->dim;
    r.x = theta;
    r.ck = ck;
    r.g = crfp_big_alloc(r.n * sizeof(double));
    r.d = crfp_big_alloc(r.n * sizeof(float));
    r.Fwin = malloc((size_t)opts->window * sizeof(double));
    if (!r.g || !r.d || !r.Fwin) {
        st = crfp_error(host, CRFP_ENOMEM, "lbfgs: out of memory for %zu weights", r.n);
        goto out;
    }
    st = lbfgs_mem_init(host, &r.mem, r.n, opts->m);
    if (st != CRFP_OK)
        goto out;
    r.lo = 0;
    r.hi = r.n;
    if (obj->eval_shard) {
        if (!obj->sum || !obj->gather || obj->lo > obj->hi || obj->hi > r.n) {
            st = crfp_error(host, CRFP_EINVAL, "lbfgs: a sharded objective without its slice "
                            "or collectives");
            goto out;
        }
        r.lo = obj->lo;
        r.hi = obj->hi;
        if (obj->xbuf) {
            /* The shared iterate: this shard's slice now, the others' at
             * the first evaluation's gather. */
            r.x = obj->xbuf;
            memcpy(r.x + r.lo, theta + r.lo, (r.hi - r.lo) * sizeof(double));
        }
        if (!(r.pool = vpool_new_shard(opts->team, r.lo, r.hi, obj->sum, obj->ud,
                                       LBFGS_NACC(opts->m)))) {
            st = crfp_error(host, CRFP_ENOMEM, "lbfgs: out of memory");
            goto out;
        }
    } else {
        r.pool = vpool_new(opts->team, LBFGS_NACC(opts->m));
    }
    r.mem.pool = r.pool;
    if (obj->eval_shard)
        crfp_log(host, CRFP_LOG_INFO, "lbfgs: sharded: this rank updates weights %zu to %zu "
                 "of %zu", r.lo, r.hi, r.n);
    crfp_log(host, CRFP_LOG_INFO, "lbfgs: %s, %zu weights, history %d, optimizer memory %.1f MB%s",
             obj->rho1 > 0 ? "OWL-QN" : "L-BFGS", r.n, opts->m,
             (3.0 * sizeof(double) + sizeof(float) + 2.0 * opts->m * sizeof(uint16_t)) *
                 (double)(r.hi - r.lo) / 1e6,
             obj->eval_shard ? " per rank" : "");
    int iters = 0, evals = 1, resumed = ck && ck->state;
    double pg2 = 0, x2 = 0;
    if (resumed) {
        /* The saved point comes with its objective and gradient: no
         * evaluation, so the run continues exactly where it stopped. */
        if ((st = restore_state(&r, &iters, &evals, &pg2, &x2)) != CRFP_OK)
            goto out;
        crfp_log(host, CRFP_LOG_INFO, "lbfgs: resuming after iteration %d (F = %.10g)", iters,
                 r.F);
    } else {
        st = lbfgs_eval(obj, r.x, &r.f, r.g);
        if (st != CRFP_OK)
            goto out;
        r.F = r.f + (obj->rho1 > 0 ? obj->rho1 * owlqn_l1(r.pool, r.n, r.x) : 0.0);
        if ((st = vpool_status(r.pool)) != CRFP_OK)
            goto out;
        if (!isfinite(r.F)) {
            st = crfp_error(host, CRFP_EINVAL, "lbfgs: the objective is not finite (%g) at the "
                            "starting point", r.F);
            goto out;
        }
    }
    end_reason why = END_CONVERGED;
    st = iterate(&r, &iters, &evals, &why, resumed, pg2, x2);
    if (st == CRFP_OK) {
        static const char *const reasons[] = {
            "gradient below gtol", "relative decrease below epsilon", "max-iter reached",
            "stopped by the caller", "no further decrease possible",
            "converged to machine precision"};
        crfp_log(host, CRFP_LOG_INFO, "lbfgs: %s after %d iterations, %d evaluations, F = %.10g",
                 reasons[why], iters, evals, r.F);
    }
    /* θ whole for the caller (a failed last line search put back only
     * this shard's slice), when every shard stopped at the same point;
     * the last gather keeps the shared iterate until all have copied it. */
    if (obj->eval_shard && (st == CRFP_OK || (st == CRFP_EINTR && r.agreed_stop))) {
        crfp_status gs = obj->gather(obj->ud, r.x, sizeof(double));
        if (gs == CRFP_OK && r.x != theta) {
            memcpy(theta, r.x, r.n * sizeof(double));
            gs = obj->gather(obj->ud, r.x, sizeof(double));
        }
        if (gs != CRFP_OK)
            st = gs;
    }
out:
    vpool_free(r.pool);
    lbfgs_mem_free(&r.mem);
    free(r.g);
    free(r.d);
    free(r.Fwin);
    return st;
}
