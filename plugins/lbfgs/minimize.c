/* lbfgs plugin — the L-BFGS / OWL-QN driver loop.
 *
 * Memory: 2m + 3 vectors of dim doubles, 2m + 2 of them allocated here —
 * θ (the caller's), ∇f, the direction d and the m (s, y) pairs, whose
 * scratch slot holds θ_prev and ∇f_prev during the line search (the
 * pseudo-gradient is recomputed on the fly, never stored).  Everything is
 * allocated once, before the first evaluation. */
#include "config.h"
#include "lbfgs_impl.h"
#include "vecops.h"
#include "crfpipe/alloc.h"

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
    double *x, *g, *d;
    lbfgs_mem mem;
    vpool *pool;
    double f, F;
    double *Fwin; /* F of the last `window` iterates, ring indexed by iter */
} run;

/* Put back the accepted point kept in the scratch slot. */
static void restore(run *r, int k)
{
    memcpy(r->x, r->mem.s[k], r->n * sizeof(double));
    memcpy(r->g, r->mem.y[k], r->n * sizeof(double));
}

/* One line search from the point saved in slot k along r->d. */
static crfp_status search(run *r, int k, double dd, double a0, lbfgs_ls *ls)
{
    ls->x0 = r->mem.s[k];
    ls->g0 = r->mem.y[k];
    ls->F0 = r->F;
    ls->d = r->d;
    ls->dd0 = dd;
    ls->a0 = a0;
    ls->pool = r->pool;
    crfp_status st = lbfgs_linesearch(r->host, r->obj, r->opts, ls, r->x, r->g);
    if (st != CRFP_OK || !ls->found)
        restore(r, k);
    return st;
}

/* What ended the loop, for the summary line. */
typedef enum {
    END_CONVERGED, END_DECREASE, END_MAXITER, END_CALLBACK, END_STUCK, END_FLAT
} end_reason;

static crfp_status iterate(run *r, int *iters, int *evals, end_reason *why)
{
    const lbfgs_objective *obj = r->obj;
    const lbfgs_opts *o = r->opts;
    double rho1 = obj->rho1;
    int iter = 0;
    r->Fwin[0] = r->F;
    /* d = -pg at the current point, with ‖pg‖² and ‖x‖²: computed here for
     * the first iteration, then by the pass that stores each new pair. */
    double pg2, x2;
    owlqn_steepest(r->pool, r->n, r->x, r->g, rho1, r->d, &pg2, &x2);
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
        lbfgs_twoloop(&r->mem, r->d);
        int k = lbfgs_mem_reserve(&r->mem);
        double dd = owlqn_constrain_save(r->pool, r->n, r->x, r->g, rho1, r->d, r->mem.s[k], r->mem.y[k]);
        if (!(dd < 0)) {
            /* H lost positive definiteness numerically, or the orthant
             * constraint removed every component: start over. */
            crfp_log(r->host, CRFP_LOG_DEBUG, "lbfgs: iteration %d: not a descent direction, "
                     "resetting the history", iter + 1);
            lbfgs_mem_reset(&r->mem);
            owlqn_steepest(r->pool, r->n, r->x, r->g, rho1, r->d, &pg2, &x2);
            dd = -pg2;
            fresh = 1;
        }
        lbfgs_ls ls;
        /* Without curvature information the scale of d is arbitrary: take
         * a unit gradient step, but no longer than 1 in θ (large gradients
         * far from the optimum); near it (warm start) the plain gradient
         * step is the better guess. */
        double a0 = fresh ? fmin(1.0, 1.0 / sqrt(pg2)) : 1.0;
        crfp_status st = search(r, k, dd, a0, &ls);
        if (st != CRFP_OK)
            return st;
        int nevals = ls.nevals;
        if (!ls.found && !fresh) {
            crfp_log(r->host, CRFP_LOG_DEBUG, "lbfgs: iteration %d: line search failed, "
                     "retrying along the steepest descent direction", iter + 1);
            lbfgs_mem_reset(&r->mem);
            owlqn_steepest(r->pool, r->n, r->x, r->g, rho1, r->d, &pg2, &x2);
            st = search(r, k, -pg2, fmin(1.0, 1.0 / sqrt(pg2)), &ls);
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
        lbfgs_mem_commit(&r->mem, r->x, r->g, rho1, r->d, &pg2, &x2);
        iter++;
        *iters = iter;
        r->f = ls.f;
        r->F = ls.F;
        int stop = 0;
        if (obj->iteration) {
            crfp_iter_info info = {iter, r->F, ls.step, nevals};
            st = obj->iteration(obj->ud, &info, r->x, &stop);
            if (st != CRFP_OK)
                return st;
        }
        if (stop) {
            *why = END_CALLBACK;
            return CRFP_OK;
        }
        int w = o->window;
        double old = r->Fwin[iter % w];
        r->Fwin[iter % w] = r->F;
        if (iter >= w && old - r->F <= o->epsilon * fabs(r->F)) {
            *why = END_DECREASE;
            return CRFP_OK;
        }
    }
}

crfp_status lbfgs_minimize(crfp_host *host, const lbfgs_opts *opts, const lbfgs_objective *obj,
                           double *theta)
{
    crfp_status st = lbfgs_opts_check(host, opts);
    if (st != CRFP_OK)
        return st;
    if (!obj || !obj->eval || !theta)
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
    r.g = crfp_big_alloc(r.n * sizeof(double));
    r.d = crfp_big_alloc(r.n * sizeof(double));
    r.Fwin = malloc((size_t)opts->window * sizeof(double));
    if (!r.g || !r.d || !r.Fwin) {
        st = crfp_error(host, CRFP_ENOMEM, "lbfgs: out of memory for %zu weights", r.n);
        goto out;
    }
    st = lbfgs_mem_init(host, &r.mem, r.n, opts->m);
    if (st != CRFP_OK)
        goto out;
    r.pool = vpool_new(opts->team);
    r.mem.pool = r.pool;
    crfp_log(host, CRFP_LOG_INFO, "lbfgs: %s, %zu weights, history %d, optimizer memory %.1f MB",
             obj->rho1 > 0 ? "OWL-QN" : "L-BFGS", r.n, opts->m,
             (double)(2 * opts->m + 2) * (double)r.n * sizeof(double) / 1e6);
    st = obj->eval(obj->ud, theta, &r.f, r.g);
    if (st != CRFP_OK)
        goto out;
    r.F = r.f + (obj->rho1 > 0 ? obj->rho1 * vec_l1(r.pool, r.n, theta) : 0.0);
    if (!isfinite(r.F)) {
        st = crfp_error(host, CRFP_EINVAL, "lbfgs: the objective is not finite (%g) at the "
                        "starting point", r.F);
        goto out;
    }
    int iters = 0, evals = 1;
    end_reason why = END_CONVERGED;
    st = iterate(&r, &iters, &evals, &why);
    if (st == CRFP_OK) {
        static const char *const reasons[] = {
            "gradient below gtol", "relative decrease below epsilon", "max-iter reached",
            "stopped by the caller", "no further decrease possible",
            "converged to machine precision"};
        crfp_log(host, CRFP_LOG_INFO, "lbfgs: %s after %d iterations, %d evaluations, F = %.10g",
                 reasons[why], iters, evals, r.F);
    }
out:
    vpool_free(r.pool);
    lbfgs_mem_free(&r.mem);
    free(r.g);
    free(r.d);
    free(r.Fwin);
    return st;
}
