/* newton_cg plugin — truncated Newton: conjugate gradient on the Newton
 * system with Hessian-vector products, globalised by a line search (the
 * default) or a trust region (Steihaug-Toint CG), after Nocedal & Wright
 * (2006) Alg. 7.1, 7.2 and 4.1, as Tsuboi et al. (2011) use it for CRFs.
 *
 * Outer iteration k, at θ with F and g = ∇F:
 *  1. M = the approximate Hessian diagonal (hessdiag; refreshed every
 *     diag-every iterations, it changes slowly) as a Jacobi preconditioner:
 *     CRF features differ in frequency by five orders of magnitude, and
 *     so do the Hessian's diagonal entries.
 *  2. Preconditioned CG on ∇²F s = −g from s = 0, with exact products from
 *     the training set (hessvec; the engine keeps each sequence's forward
 *     state between the products at one θ), stopped at the first of:
 *     ‖r‖ <= η_k‖g‖ with η_k = min(forcing, sqrt(‖g_k‖/‖g_0‖)) (the
 *     inexact Newton step; η_k → 0 gives superlinear convergence), max-cg
 *     iterations, and with a trust region the boundary ‖s‖ = Δ (in the
 *     M-norm, in which the PCG iterates' norms grow monotonically, so the
 *     first one outside is where it is crossed) or a direction of
 *     non-positive curvature (only possible with rho2 = 0).
 *  3a. Line search: backtracking from the last accepted step times 2 (at
 *     most 1) by safeguarded quadratic interpolation until Armijo holds.
 *  3b. Trust region: trial θ + s, ρ = (F(θ) − F(θ+s)) / pred with pred =
 *     −g's − ½ s'∇²F s = ½ s'(r − g), r the CG residual (no extra
 *     product); accepted when ρ > 1e-4; Δ ← ¼ min(‖s‖, Δ) when ρ < ¼,
 *     Δ ← 4Δ when ρ > ¾ and the step hit the boundary.
 * Either way F never increases and the gradient of the accepted point
 * comes with its evaluation.
 *
 * Why a line search and few CG iterations by default (README.md has the
 * measurements): far from the optimum the CRF loss is far from quadratic
 * (a step moves the ~20 features of every token together, and the
 * probabilities saturate), so the Newton step is cut to a tenth or a
 * third whatever CG's accuracy: solving the system further is wasted, and
 * a trust region spends rejected evaluations finding the scale a line
 * search finds from the previous step.
 *
 * Optionally (hessian-sample < 1) the products are estimated on a fresh
 * sample of the sequences each iteration (Byrd et al. 2011), with the
 * sample's diagonal replaced by the full one (diagonal correction, see
 * prepare()); cheaper products, a poorer model.
 *
 * Memory: besides θ, the gradient g, the CG iterate s, residual r,
 * direction d, product ∇²F·d and the preconditioner — six vectors (seven
 * with a sample).  The trial reuses d to keep θ (to restore it after a
 * rejected step) and the product's vector for the trial's gradient,
 * swapped with g on acceptance.
 */
#include "config.h"
#include "ncg_impl.h"
#include "crfpipe/alloc.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ncg_opts_default(ncg_opts *o)
{
    o->epsilon = 5e-3;
    o->window = 3;
    o->gtol = 1e-5;
    o->max_iter = 0;
    o->max_cg = 3;
    o->forcing = 0.5;
    o->precond = 1;
    o->mnorm = 1;
    o->line = 1;
    o->sample = 1.0;
    o->diag_every = 3;
    o->team = NULL;
}

crfp_status ncg_opts_check(crfp_host *host, const ncg_opts *o)
{
    if (!(o->epsilon >= 0) || !isfinite(o->epsilon))
        return crfp_error(host, CRFP_EINVAL,
                          "newton_cg: epsilon=%g: must be a finite value >= 0", o->epsilon);
    if (o->window < 1 || o->window > 100000)
        return crfp_error(host, CRFP_EINVAL, "newton_cg: window=%d: must be in 1..100000",
                          o->window);
    if (!(o->gtol >= 0) || !isfinite(o->gtol))
        return crfp_error(host, CRFP_EINVAL, "newton_cg: gtol=%g: must be a finite value >= 0",
                          o->gtol);
    if (o->max_iter < 0)
        return crfp_error(host, CRFP_EINVAL, "newton_cg: max-iter=%lld: must be >= 0",
                          (long long)o->max_iter);
    if (o->max_cg < 1 || o->max_cg > 1000000)
        return crfp_error(host, CRFP_EINVAL, "newton_cg: max-cg=%d: must be in 1..1000000",
                          o->max_cg);
    if (!(o->forcing > 0 && o->forcing < 1))
        return crfp_error(host, CRFP_EINVAL, "newton_cg: forcing=%g: must be in (0, 1)",
                          o->forcing);
    return CRFP_OK;
}

typedef enum {
    END_CONVERGED, END_DECREASE, END_MAXITER, END_CALLBACK, END_STUCK, END_FLAT
} end_reason;

typedef struct run {
    crfp_host *host;
    const ncg_opts *o;
    const ncg_objective *obj;
    size_t n;
    ncg_vec *vec;
    double *x, *g, *z, *r, *d, *hd;
    double *m;            /* preconditioner diagonal, NULL = none */
    const double *pm;     /* the preconditioner: m, or NULL */
    double *c;            /* diagonal correction of a subsampled Hessian, NULL = none */
    const double *w;      /* trust-region norm weights: m or NULL (Euclidean) */
    double F, gg, xx, delta, g0;
    double *Fwin;
    int evals, prods, diags;
    int need_precond;     /* resample and refresh M before the next CG */
    double last_step;     /* line search: the last accepted step */
    double t_eval, t_prod, t_diag; /* seconds spent in each */
} run;

/* Process CPU seconds (all threads): what a pass costs, whatever the load
 * of a shared machine. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static crfp_status timed_eval(run *R, double *f, double *g)
{
    double t0 = now();
    crfp_status st = R->obj->eval(R->obj->ud, R->x, f, g);
    R->t_eval += now() - t0;
    R->evals++;
    return st;
}

/* Before a Newton system: draw the iteration's sample and set the
 * preconditioner M (the approximate diagonal of the exact Hessian, floored
 * so that M stays positive definite when rho2 = 0) and, with a sample, the
 * diagonal correction c = max(0, D − D_S): the subsampled Hessian sees a
 * rare feature only when one of its sequences is drawn, so alone it would
 * give most features the curvature rho2 and Newton steps far too long in
 * them; adding back the part of the diagonal the sample misses keeps every
 * feature's curvature right and the sample's couplings between features. */
static crfp_status prepare(run *R, uint64_t seed)
{
    const ncg_objective *obj = R->obj;
    crfp_status st = CRFP_OK;
    double t0 = now();
    if (R->c) {
        /* The full diagonal changes slowly: refreshed every diag_every
         * iterations only (it costs a pass over the data). */
        if (seed % (uint64_t)R->o->diag_every == 0) {
            if ((st = obj->sample(obj->ud, 1.0, 0)) != CRFP_OK ||
                (st = obj->hessdiag(obj->ud, R->x, R->m)) != CRFP_OK)
                goto out;
            R->diags++;
        }
        if ((st = obj->sample(obj->ud, R->o->sample, seed)) != CRFP_OK ||
            (st = obj->hessdiag(obj->ud, R->x, R->c)) != CRFP_OK)
            goto out;
        R->diags++;
        for (size_t i = 0; i < R->n; i++)
            R->c[i] = R->m[i] > R->c[i] ? R->m[i] - R->c[i] : 0.0;
    } else if (R->m && seed % (uint64_t)R->o->diag_every == 0) {
        if ((st = obj->hessdiag(obj->ud, R->x, R->m)) != CRFP_OK)
            goto out;
        R->diags++;
    }
    if (R->m)
        for (size_t i = 0; i < R->n; i++)
            if (!(R->m[i] > 1e-10))
                R->m[i] = 1e-10;
out:
    R->t_diag += now() - t0;
    return st;
}

/* τ >= 0 with ‖z + τ d‖_M = Δ, from zz = z'Mz (< Δ²), zd = z'Md, dd = d'Md. */
static double to_boundary(double zz, double zd, double dd, double delta)
{
    double disc = zd * zd + dd * (delta * delta - zz);
    if (!(dd > 0))
        return 0.0;
    double tau = (-zd + sqrt(disc > 0 ? disc : 0.0)) / dd;
    return tau > 0 ? tau : 0.0;
}

/* Preconditioned Steihaug CG from s = 0 on ∇²F s = −g, the trust region
 * measured in the M-norm, ‖s‖_M = sqrt(s'Ms), in which the CG iterates'
 * norms increase monotonically (Steihaug 1983), so the first iterate
 * outside is where the boundary is crossed.  On return z holds s, r its
 * residual −g − ∇²F s, *zz = ‖s‖²_M, *hit whether s reached the boundary. */
static crfp_status steihaug(run *R, double tol, int *iters, double *zz_out, int *hit)
{
    const size_t n = R->n;
    const ncg_objective *obj = R->obj;
    double out[3];
    ncg_neg(R->vec, n, R->pm, R->w, R->g, R->d, R->r, out);
    double rz = out[1];
    memset(R->z, 0, n * sizeof *R->z);
    double zz = 0.0, zd = 0.0, dd = out[2];
    *hit = 0;
    int j = 0;
    while (j < R->o->max_cg) {
        if (crfp_interrupted(R->host))
            return crfp_error(R->host, CRFP_EINTR, "newton_cg: interrupted");
        double t0 = now();
        crfp_status st = obj->hessvec(obj->ud, R->x, R->d, R->hd);
        R->t_prod += now() - t0;
        if (st != CRFP_OK)
            return st;
        R->prods++;
        j++;
        double kappa = ncg_diag_dot(R->vec, n, R->c, R->d, R->hd);
        double alpha = kappa > 0 ? rz / kappa : 0.0;
        double zz_next = zz + 2 * alpha * zd + alpha * alpha * dd;
        if (!(kappa > 0) || zz_next >= R->delta * R->delta) {
            /* Non-positive curvature (only with rho2 = 0 and a flat
             * direction) or past the boundary: go to the boundary. */
            double tau = to_boundary(zz, zd, dd, R->delta);
            ncg_cg_step(R->vec, n, R->pm, tau, R->d, R->hd, R->z, R->r, out);
            zz = zz + 2 * tau * zd + tau * tau * dd;
            *hit = 1;
            break;
        }
        ncg_cg_step(R->vec, n, R->pm, alpha, R->d, R->hd, R->z, R->r, out);
        zz = zz_next;
        if (sqrt(out[0]) <= tol)
            break;
        double rz_new = out[1];
        ncg_cg_dir(R->vec, n, R->pm, R->w, rz_new / rz, R->r, R->z, R->d, out);
        dd = out[0];
        zd = out[1];
        rz = rz_new;
    }
    *iters = j;
    *zz_out = zz;
    return CRFP_OK;
}

static crfp_status iterate(run *R, int *iters, end_reason *why)
{
    const ncg_opts *o = R->o;
    const ncg_objective *obj = R->obj;
    const size_t n = R->n;
    int iter = 0, rejects = 0, step_evals = 0, step_prods = 0;
    crfp_status st;
    R->Fwin[0] = R->F;
    R->need_precond = 0; /* ncg_minimize prepared the first */
    for (;;) {
        *iters = iter;
        if (o->max_iter > 0 && iter >= o->max_iter) {
            *why = END_MAXITER;
            return CRFP_OK;
        }
        double gnorm = sqrt(R->gg);
        if (gnorm == 0 || gnorm <= o->gtol * fmax(1.0, sqrt(R->xx))) {
            *why = END_CONVERGED;
            return CRFP_OK;
        }
        if (R->need_precond) {
            if ((st = prepare(R, (uint64_t)iter + 1)) != CRFP_OK)
                return st;
            R->need_precond = 0;
        }
        double eta = fmin(o->forcing, sqrt(gnorm / R->g0));
        int cg = 0, hit = 0;
        double zz = 0.0;
        st = steihaug(R, eta * gnorm, &cg, &zz, &hit);
        if (st != CRFP_OK)
            return st;
        step_prods += cg;
        /* pred = −g's − ½ s'Hs = ½ s'(r − g), with Hs = −g − r. */
        double gs = ncg_dot(R->vec, n, R->z, R->g);
        double pred = 0.5 * (ncg_dot(R->vec, n, R->z, R->r) - gs);
        double snorm = sqrt(zz);
        if (!(pred > 4 * DBL_EPSILON * fabs(R->F))) {
            /* The model promises less than F's rounding error: no step can
             * be told apart from no step any more. */
            *why = END_FLAT;
            return CRFP_OK;
        }
        ncg_step(R->vec, n, R->z, R->x, R->d); /* d keeps θ */
        double Fn;
        if (o->line) {
            /* Armijo backtracking along s, safeguarded quadratic
             * interpolation. */
            /* First trial: twice the last accepted step, at most 1 — far
             * from the optimum the Newton step overshoots by a similar
             * factor from one iteration to the next. */
            double a = fmin(1.0, 2.0 * R->last_step);
            int ls = 0;
            if (a < 1.0)
                ncg_from(R->vec, n, R->d, a, R->z, R->x);
            if ((st = timed_eval(R, &Fn, R->hd)) != CRFP_OK) {
                memcpy(R->x, R->d, n * sizeof *R->x);
                return st;
            }
            step_evals++;
            while (!(Fn <= R->F + 1e-4 * a * gs) && ls < 30) {
                double den = 2.0 * (Fn - R->F - gs * a);
                double an = den > 0 ? -gs * a * a / den : 0.5 * a;
                a = fmin(fmax(an, 0.1 * a), 0.5 * a);
                ncg_from(R->vec, n, R->d, a, R->z, R->x);
                if ((st = timed_eval(R, &Fn, R->hd)) != CRFP_OK) {
                    memcpy(R->x, R->d, n * sizeof *R->x);
                    return st;
                }
                step_evals++;
                ls++;
            }
            crfp_log(R->host, CRFP_LOG_DEBUG,
                     "newton_cg: %d CG iterations, |s| %.4g, eta %.3g, pred %.6g, step %g after "
                     "%d backtracks, actual %.6g",
                     cg, snorm, eta, pred, a, ls, R->F - Fn);
            if (!(Fn <= R->F + 1e-4 * a * gs)) {
                memcpy(R->x, R->d, n * sizeof *R->x);
                *why = END_STUCK;
                return CRFP_OK;
            }
            snorm *= a;
            R->last_step = a;
            goto accept;
        }
        if ((st = timed_eval(R, &Fn, R->hd)) != CRFP_OK) {
            memcpy(R->x, R->d, n * sizeof *R->x);
            return st;
        }
        step_evals++;
        double ratio = isfinite(Fn) ? (R->F - Fn) / pred : -INFINITY;
        crfp_log(R->host, CRFP_LOG_DEBUG,
                 "newton_cg: %d CG iterations%s, |s|_M %.4g, radius %.4g, eta %.3g, "
                 "pred %.6g, actual %.6g, ratio %.4f",
                 cg, hit ? " (boundary)" : "", snorm, R->delta, eta, pred, R->F - Fn, ratio);
        /* The radius: cut to a quarter of the step when the model was poor,
         * four times larger when it was good and the step was cut by the
         * boundary.  (TRON's interpolated rule, which grows the radius only
         * as far as the quadratic through F along s says, kept it far too
         * small on CRFs, whose Newton steps are cut to a tenth early on.) */
        if (!(ratio >= 0.25))
            R->delta = 0.25 * fmin(snorm, R->delta);
        else if (ratio > 0.75 && hit)
            R->delta *= 4.0;
        if (!(ratio > 1e-4)) {
            memcpy(R->x, R->d, n * sizeof *R->x);
            if (++rejects >= 30 || !(R->delta > 1e-12 * fmax(1.0, sqrt(R->xx)))) {
                crfp_log(R->host, CRFP_LOG_WARN,
                         "newton_cg: iteration %d: no decrease of the objective within a "
                         "trust radius of %g after %d trials; stopping at F = %.10g",
                         iter + 1, R->delta, rejects, R->F);
                *why = END_STUCK;
                return CRFP_OK;
            }
            continue;
        }
        rejects = 0;
    accept:;
        double *t = R->g;
        R->g = R->hd;
        R->hd = t;
        R->F = Fn;
        R->gg = ncg_dot(R->vec, n, R->g, R->g);
        R->xx = ncg_dot(R->vec, n, R->x, R->x);
        iter++;
        *iters = iter;
        int stop = 0;
        if (obj->iteration) {
            crfp_iter_info info = {iter, R->F, snorm, step_evals + step_prods};
            if ((st = obj->iteration(obj->ud, &info, R->x, &stop)) != CRFP_OK)
                return st;
        }
        step_evals = step_prods = 0;
        if (stop) {
            *why = END_CALLBACK;
            return CRFP_OK;
        }
        int w = o->window;
        double old = R->Fwin[iter % w];
        R->Fwin[iter % w] = R->F;
        if (iter >= w && old - R->F <= o->epsilon * fabs(R->F)) {
            *why = END_DECREASE;
            return CRFP_OK;
        }
        R->need_precond = 1;
    }
}

crfp_status ncg_minimize(crfp_host *host, const ncg_opts *opts, const ncg_objective *obj,
                         double *theta)
{
    crfp_status st = ncg_opts_check(host, opts);
    if (st != CRFP_OK)
        return st;
    if (!obj || !obj->eval || !obj->hessvec || !theta ||
        (opts->sample < 1.0 && (!obj->sample || !obj->hessdiag)))
        return crfp_error(host, CRFP_EINVAL, "newton_cg: no objective or no parameter vector");
    if (obj->dim == 0)
        return CRFP_OK;
    run R;
    memset(&R, 0, sizeof R);
    R.host = host;
    R.o = opts;
    R.obj = obj;
    R.n = obj->dim;
    R.x = theta;
    size_t bytes = R.n * sizeof(double);
    int nvec = 5;
    R.g = crfp_big_alloc(bytes);
    R.z = crfp_big_alloc(bytes);
    R.r = crfp_big_alloc(bytes);
    R.d = crfp_big_alloc(bytes);
    R.hd = crfp_big_alloc(bytes);
    R.Fwin = malloc((size_t)opts->window * sizeof *R.Fwin);
    int bad = !R.g || !R.z || !R.r || !R.d || !R.hd || !R.Fwin;
    if (!bad && ((opts->precond && obj->hessdiag) || opts->sample < 1.0)) {
        nvec++;
        bad = !(R.m = crfp_big_alloc(bytes));
    }
    if (!bad && opts->sample < 1.0) {
        nvec++;
        bad = !(R.c = crfp_big_alloc(bytes));
    }
    if (bad) {
        st = crfp_error(host, CRFP_ENOMEM, "newton_cg: out of memory for %d vectors of %zu "
                        "weights", nvec, R.n);
        goto out;
    }
    R.pm = opts->precond && obj->hessdiag ? R.m : NULL;
    R.last_step = 1.0;
    R.vec = ncg_vec_new(opts->team);
    crfp_log(host, CRFP_LOG_INFO, "newton_cg: trust-region Newton-CG%s, %zu weights, optimizer "
             "memory %.1f MB", R.pm ? " (diagonal preconditioner)" : "", R.n,
             nvec * (double)bytes / 1e6);
    if ((st = timed_eval(&R, &R.F, R.g)) != CRFP_OK)
        goto out;
    if (!isfinite(R.F)) {
        st = crfp_error(host, CRFP_EINVAL, "newton_cg: the objective is not finite (%g) at the "
                        "starting point", R.F);
        goto out;
    }
    if ((st = prepare(&R, 0)) != CRFP_OK)
        goto out;
    R.gg = ncg_dot(R.vec, R.n, R.g, R.g);
    R.xx = ncg_dot(R.vec, R.n, theta, theta);
    R.g0 = sqrt(R.gg);
    /* Δ0: the M-norm of the step −M⁻¹g, the Newton step of the diagonal
     * model (with M = I, TRON's ‖g0‖); the first trial shrinks it to the
     * CG step's length. */
    R.w = opts->mnorm ? R.pm : NULL;
    if (opts->line)
        R.delta = INFINITY;
    {
        double out[3];
        ncg_neg(R.vec, R.n, R.pm, R.w, R.g, R.d, R.r, out);
        if (!opts->line)
            R.delta = sqrt(out[2]);
    }
    int iters = 0;
    end_reason why = END_CONVERGED;
    st = iterate(&R, &iters, &why);
    if (st == CRFP_OK) {
        static const char *const reasons[] = {
            "gradient below gtol", "relative decrease below epsilon", "max-iter reached",
            "stopped by the caller", "no further decrease possible",
            "converged to machine precision"};
        crfp_log(host, CRFP_LOG_INFO,
                 "newton_cg: %s after %d iterations, F = %.10g; %d evaluations (%.1f s), "
                 "%d Hessian-vector products (%.1f s), %d diagonals (%.1f s) (CPU time)",
                 reasons[why], iters, R.F, R.evals, R.t_eval, R.prods, R.t_prod, R.diags,
                 R.t_diag);
    }
out:
    ncg_vec_free(R.vec);
    free(R.g);
    free(R.z);
    free(R.r);
    free(R.d);
    free(R.hd);
    free(R.m);
    free(R.c);
    free(R.Fwin);
    return st;
}
