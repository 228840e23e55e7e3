/* rprop plugin — the RPROP loop (see rprop.c for the method and its
 * choices).
 *
 * Per iteration: one batch evaluation of F and its gradient at θ, the
 * monitor (progress, dev set, stopping) on that θ, the trainer's own
 * stopping rule, then every weight moves by its own step.  The update is
 * elementwise, so it runs in slices on the host's team and its result does
 * not depend on the team's size; the ℓ1 norm is summed in fixed chunks for
 * the same reason.  Memory: four vectors besides θ (gradient, previous
 * gradient, steps, and with backtracking the previous weights). */
#include "config.h"
#include "rprop_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rprop_opts_default(rprop_opts *o)
{
    o->backtrack = 1;
    o->cutoff = 0;
    o->step0 = 0.1;
    o->stpmin = 1e-8;
    o->stpmax = 50.0;
    o->stpinc = 1.2;
    o->stpdec = 0.5;
    o->epsilon = 1e-4;
    o->window = 5;
    o->max_iter = 0;
}

/* Signs below this size count as 0, as in Wapiti: a gradient that is zero
 * but for rounding must not grow or shrink a step. */
#define RPROP_TINY (DBL_EPSILON * 64.0)

static double sgn(double v)
{
    return v < -RPROP_TINY ? -1.0 : v > RPROP_TINY ? 1.0 : 0.0;
}

typedef struct rprop_job {
    const rprop_opts *o;
    double rho1;
    size_t dim;
    double *x, *xp, *g, *gp, *stp;
    /* ℓ1 norm: one partial sum per chunk of CHUNK weights */
    double *part;
    size_t nchunk;
} rprop_job;

#define CHUNK ((size_t)65536)

static void l1_slice(void *arg, int id, int parts)
{
    rprop_job *j = arg;
    size_t lo, hi;
    crfp_team_slice(j->nchunk, id, parts, &lo, &hi);
    for (size_t c = lo; c < hi; c++) {
        size_t end = (c + 1) * CHUNK < j->dim ? (c + 1) * CHUNK : j->dim;
        double s = 0.0;
        for (size_t f = c * CHUNK; f < end; f++)
            s += fabs(j->x[f]);
        j->part[c] = s;
    }
}

/* One weight's RPROP step.  Without ℓ1 this is Wapiti's step exactly (its
 * objective trajectory is followed to the digits it prints:
 * tests/pipeline/wapiti_model.sh).  With ℓ1 the default works on the
 * orthant-wise pseudo-gradient throughout -- the penalty's subgradient
 * nearest to cancelling the loss's, 0 where the penalty outweighs it at 0 --
 * for the sign tests, the direction and the remembered gradient, and a step
 * across 0 stops at 0, as OWL-QN projects onto the orthant.  Wapiti tests
 * signs on the raw gradient and only forbids steps along the
 * pseudo-gradient, which leaves a weight the penalty should silence stuck
 * where it is (on tests/data/wapiti-model, ρ1 = 0.5: Wapiti's rprop stalls
 * at F = 500.64, OWL-QN reaches 383.88).  `cutoff` keeps Wapiti's
 * alternative: the raw gradient, and a weight whose gradient the penalty
 * outweighs is set to 0 where it sits at 0 or has just crossed it. */
static void update_one(const rprop_job *j, size_t f)
{
    const rprop_opts *o = j->o;
    const double rho1 = j->rho1;
    const int project = rho1 != 0.0 && !o->cutoff, cut = rho1 != 0.0 && o->cutoff;
    double *x = j->x, *g = j->g, *gp = j->gp, *stp = j->stp, *xp = j->xp;
    double pg = g[f];
    if (project) {
        if (x[f] < -RPROP_TINY)
            pg -= rho1;
        else if (x[f] > RPROP_TINY)
            pg += rho1;
        else if (g[f] < -rho1)
            pg += rho1;
        else if (g[f] > rho1)
            pg -= rho1;
        else
            pg = 0.0;
        g[f] = pg;   /* the gradient remembered and stepped along */
    } else if (cut) {
        double s = g[f] + rho1 * sgn(x[f]);
        if (s * s < rho1 * rho1 &&
            (x[f] == 0.0 || (gp[f] * g[f] < 0.0 && xp && xp[f] * x[f] < 0.0))) {
            if (xp)
                xp[f] = x[f];
            x[f] = 0.0;
            gp[f] = g[f];
            return;
        }
    }
    const double turn = sgn(gp[f]) * sgn(pg);
    if (turn > 0.0)
        stp[f] = fmin(stp[f] * o->stpinc, o->stpmax);
    else if (turn < 0.0)
        stp[f] = fmax(stp[f] * o->stpdec, o->stpmin);
    if (o->backtrack && turn < 0.0) {
        /* rprop+: the last step overshot a minimum along this weight: undo
         * it, and forget the gradient so that the next step is not cut */
        x[f] = xp[f];
        g[f] = 0.0;
    } else {
        /* (Wapiti steps along the gradient's sign, or after a backtrack the
         * pseudo-gradient's; here g[f] holds the pseudo-gradient under ℓ1,
         * so the two are one) */
        const double d = stp[f] * -sgn(pg);
        if (o->backtrack)
            xp[f] = x[f];
        if (project && x[f] != 0.0 && (x[f] + d) * x[f] < 0.0) {
            /* a step across 0 stops there, and a backtrack returns there:
             * the projection is not a step to undo */
            x[f] = 0.0;
            if (xp)
                xp[f] = 0.0;
        } else {
            x[f] += d;
        }
    }
    gp[f] = g[f];
}

static void update_slice(void *arg, int id, int parts)
{
    rprop_job *j = arg;
    size_t lo, hi;
    crfp_team_slice(j->dim, id, parts, &lo, &hi);
    for (size_t f = lo; f < hi; f++)
        update_one(j, f);
}

static double l1_norm(crfp_team *team, rprop_job *j)
{
    if (j->rho1 == 0.0)
        return 0.0;
    crfp_team_run(team, l1_slice, j);
    double s = 0.0;
    for (size_t c = 0; c < j->nchunk; c++)
        s += j->part[c];
    return s;
}

crfp_status rprop_train(crfp_host *host, const rprop_opts *o, const crfp_trainset *ts,
                        double *theta)
{
    crfp_status st = crfp_trainset_require(host, ts, CRFP_TS_BATCH, "rprop");
    if (st != CRFP_OK)
        return st;
    if (!(ts->rho1 >= 0.0 && isfinite(ts->rho1) && ts->rho2 >= 0.0 && isfinite(ts->rho2)))
        return crfp_error(host, CRFP_EINVAL, "rprop: rho1=%g, rho2=%g: must be finite and >= 0",
                          ts->rho1, ts->rho2);
    if (!(o->stpmin > 0.0 && o->stpmin <= o->step0 && o->step0 <= o->stpmax &&
          isfinite(o->stpmax)))
        return crfp_error(host, CRFP_EINVAL, "rprop: steps: need 0 < stpmin (%g) <= step0 (%g) "
                          "<= stpmax (%g), finite", o->stpmin, o->step0, o->stpmax);
    if (!(o->stpinc > 1.0 && isfinite(o->stpinc) && o->stpdec > 0.0 && o->stpdec < 1.0))
        return crfp_error(host, CRFP_EINVAL, "rprop: stpinc=%g, stpdec=%g: need stpinc > 1 "
                          "and 0 < stpdec < 1", o->stpinc, o->stpdec);
    if (!(o->epsilon >= 0.0 && isfinite(o->epsilon)) || o->window < 1 || o->window > 100000 ||
        o->max_iter < 0)
        return crfp_error(host, CRFP_EINVAL, "rprop: epsilon=%g, window=%d, max-iter=%ld: need "
                          "epsilon >= 0, window in 1..100000, max-iter >= 0", o->epsilon,
                          o->window, o->max_iter);
    const size_t dim = ts->dim, n = dim ? dim : 1;
    rprop_job j = {.o = o, .rho1 = ts->rho1, .dim = dim, .x = theta,
                   .nchunk = (dim + CHUNK - 1) / CHUNK};
    j.g = malloc(n * sizeof *j.g);
    j.gp = calloc(n, sizeof *j.gp);
    j.stp = malloc(n * sizeof *j.stp);
    j.xp = o->backtrack ? calloc(n, sizeof *j.xp) : NULL;
    j.part = malloc((j.nchunk ? j.nchunk : 1) * sizeof *j.part);
    double *Fwin = malloc((size_t)o->window * sizeof *Fwin);
    if (!j.g || !j.gp || !j.stp || (o->backtrack && !j.xp) || !j.part || !Fwin) {
        st = crfp_error(host, CRFP_ENOMEM, "rprop: out of memory for %zu weights", dim);
        goto out;
    }
    for (size_t f = 0; f < dim; f++)
        j.stp[f] = o->step0;
    const char *why = "stopped by the caller";
    long k;
    double Flast = NAN;
    for (k = 1;; k++) {
        double f;
        if ((st = ts->batch(ts->ud, theta, 1, &f, j.g)) != CRFP_OK)
            break;
        const double F = f + ts->rho1 * l1_norm(ts->team, &j);
        if (!isfinite(F)) {
            st = crfp_error(host, CRFP_EINVAL, "rprop: the objective is not finite at "
                            "iteration %ld (weights too large for exp())", k);
            break;
        }
        Flast = F;
        int stop = 0;
        if (ts->monitor) {
            crfp_iter_info info = {.iter = (int)(k < INT32_MAX ? k : INT32_MAX), .objective = F,
                                   .step = 0.0, .nevals = 1};
            if ((st = ts->monitor(ts->monitor_ud, &info, theta, &stop)) != CRFP_OK)
                break;
        }
        /* F over the last `window` iterations, oldest first overwritten */
        size_t slot = (size_t)((k - 1) % o->window);
        double old = Fwin[slot];
        Fwin[slot] = F;
        if (stop)
            break;
        if (k > o->window && o->epsilon > 0.0 && old - F <= o->epsilon * fabs(F)) {
            why = "relative decrease below epsilon";
            break;
        }
        if (o->max_iter > 0 && k >= o->max_iter) {
            why = "max-iter reached";
            break;
        }
        crfp_team_run(ts->team, update_slice, &j);
    }
    if (st == CRFP_OK)
        crfp_log(host, CRFP_LOG_INFO, "rprop: %s after %ld iterations, F = %.10g", why, k,
                 Flast);
out:
    free(j.g);
    free(j.gp);
    free(j.stp);
    free(j.xp);
    free(j.part);
    free(Fwin);
    return st;
}
