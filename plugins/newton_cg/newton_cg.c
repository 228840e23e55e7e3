/* newton_cg plugin — truncated Newton trainer (Tsuboi et al. 2011):
 * preconditioned conjugate gradient on the Newton system with the training
 * set's exact Hessian-vector products, globalised by a line search (or a
 * Steihaug trust region).  Minimises F(θ) = Σ_i loss_i + rho2/2‖θ‖²; the
 * ℓ1 term is refused (see below).  Capabilities needed: BATCH, HESSVEC.
 *
 * Why this design, in short (details in ncg.c, measurements in README.md):
 *  - The products come from the engine (hessvec): one pass per product,
 *    exact, on the host's team.  The engine keeps the first `keep`
 *    sequences' per-position state between products at the same θ
 *    (Tsuboi et al.'s c), which saves the pass over θ — the reads of its
 *    scattered unigram blocks and the exp() — in all the products of a
 *    Newton system but the first.  Default: every sequence (nlabels
 *    doubles per token, 39 MB on CoNLL-2000, less than one weight vector).
 *  - A Jacobi preconditioner from the engine's approximate Hessian
 *    diagonal (hessdiag).
 *  - rho1 > 0 is an error, not silently ignored: the ℓ1 term is not twice
 *    differentiable, and an orthant-wise Newton-CG was not worth its
 *    complexity when lbfgs (OWL-QN), sgd-l1 and bcd already train sparse
 *    models and a chain (`--trainer bcd,newton-cg --2.rho1 0`) fine-tunes
 *    their active set with Newton-CG.
 *  - Stopping: as lbfgs — relative decrease of F over `window` iterations
 *    at most `epsilon`, gradient norm at most gtol·max(1, ‖θ‖), max-iter,
 *    and the monitor (dev patience, Ctrl-C, which is also polled between
 *    CG iterations).  Defaults chosen on a dev split of CoNLL-2000
 *    (README.md).
 *
 * This file only turns parameters into options.
 */
#include "config.h"
#include "crfpipe/crfpipe.h"
#include "ncg_impl.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static const crfp_param_spec ncg_params[] = {
    {"epsilon", CRFP_PARAM_FLOAT, "5e-3",
     "stop when (F[k-window] - F[k]) / |F[k]| falls to epsilon or below (0 disables)"},
    {"window", CRFP_PARAM_INT, "3",
     "number of iterations over which the relative decrease of F is measured"},
    {"gtol", CRFP_PARAM_FLOAT, "1e-5",
     "stop when the gradient norm is at most gtol * max(1, |theta|) (0 disables)"},
    {"max-iter", CRFP_PARAM_INT, "0",
     "stop after this many Newton iterations (0 = no limit besides the host's own)"},
    {"max-cg", CRFP_PARAM_INT, "3", "conjugate-gradient iterations per Newton system"},
    {"forcing", CRFP_PARAM_FLOAT, "0.5",
     "CG stops when |residual| <= eta |g|, eta = min(forcing, sqrt(|g| / |g0|))"},
    {"precond", CRFP_PARAM_BOOL, "true",
     "precondition CG by the approximate diagonal of the Hessian (one more pass per iteration)"},
    {"mnorm", CRFP_PARAM_BOOL, "true",
     "trust region: measured in the preconditioner's norm (false: the Euclidean norm)"},
    {"line", CRFP_PARAM_BOOL, "true",
     "globalise by a backtracking line search (false: Steihaug trust region)"},
    {"hessian-sample", CRFP_PARAM_FLOAT, "1",
     "fraction of the sequences the Hessian is estimated on, drawn anew each iteration "
     "(1 = exact)"},
    {"diag-every", CRFP_PARAM_INT, "3",
     "iterations between two computations of the (full) Hessian diagonal for the "
     "preconditioner and the sample's correction"},
    {"keep", CRFP_PARAM_INT, "-1",
     "sequences whose per-position state is kept between Hessian-vector products at the "
     "same weights (-1 = all: nlabels doubles per token; 0 = none)"},
};

static crfp_status get_int(crfp_host *host, const crfp_params *p, const char *name, int *out)
{
    int64_t v = crfp_params_int(p, name);
    if (v < INT_MIN || v > INT_MAX)
        return crfp_error(host, CRFP_EINVAL, "newton_cg: %s=%lld: out of range", name,
                          (long long)v);
    *out = (int)v;
    return CRFP_OK;
}

static crfp_status ts_eval(void *ud, const double *theta, double *f, double *g)
{
    const crfp_trainset *ts = ud;
    return ts->batch(ts->ud, theta, 1, f, g);
}

static crfp_status ts_hessvec(void *ud, const double *theta, const double *v, double *hv)
{
    const crfp_trainset *ts = ud;
    return ts->hessvec(ts->ud, theta, v, 1, hv);
}

static crfp_status ts_hessdiag(void *ud, const double *theta, double *d)
{
    const crfp_trainset *ts = ud;
    return ts->hessdiag(ts->ud, theta, 1, d);
}

static crfp_status ts_sample(void *ud, double fraction, uint64_t seed)
{
    const crfp_trainset *ts = ud;
    return ts->hessvec_sample(ts->ud, fraction, seed);
}

static crfp_status ts_iteration(void *ud, const crfp_iter_info *info, const double *theta,
                                int *stop)
{
    const crfp_trainset *ts = ud;
    return ts->monitor ? ts->monitor(ts->monitor_ud, info, theta, stop) : CRFP_OK;
}

static crfp_status ncg_train(crfp_host *host, const crfp_params *params,
                             const crfp_trainset *ts, double *theta)
{
    crfp_status st = crfp_trainset_require(host, ts, CRFP_TS_BATCH | CRFP_TS_HESSVEC,
                                           "newton_cg");
    if (st != CRFP_OK)
        return st;
    if (ts->rho1 != 0.0)
        return crfp_error(host, CRFP_EINVAL,
                          "newton_cg: rho1=%g: the l1 penalty is not supported (Newton's "
                          "method needs a twice-differentiable objective); train sparse "
                          "models with lbfgs (OWL-QN), sgd-l1 or bcd, or fine-tune their "
                          "features with a chain such as --trainer bcd,newton-cg --2.rho1 0",
                          ts->rho1);
    if (!(ts->rho2 >= 0) || !isfinite(ts->rho2))
        return crfp_error(host, CRFP_EINVAL, "newton_cg: rho2=%g: must be finite and >= 0",
                          ts->rho2);
    ncg_opts o;
    ncg_opts_default(&o);
    int64_t keep = -1;
    if (params) {
        if ((st = get_int(host, params, "window", &o.window)) != CRFP_OK ||
            (st = get_int(host, params, "max-cg", &o.max_cg)) != CRFP_OK)
            return st;
        o.epsilon = crfp_params_float(params, "epsilon");
        o.gtol = crfp_params_float(params, "gtol");
        o.forcing = crfp_params_float(params, "forcing");
        o.max_iter = crfp_params_int(params, "max-iter");
        keep = crfp_params_int(params, "keep");
        o.precond = crfp_params_bool(params, "precond");
        o.mnorm = crfp_params_bool(params, "mnorm");
        o.line = crfp_params_bool(params, "line");
        o.sample = crfp_params_float(params, "hessian-sample");
        if ((st = get_int(host, params, "diag-every", &o.diag_every)) != CRFP_OK)
            return st;
        if (o.diag_every < 1)
            return crfp_error(host, CRFP_EINVAL, "newton_cg: diag-every=%d: must be >= 1",
                              o.diag_every);
        if (!(o.sample > 0 && o.sample <= 1))
            return crfp_error(host, CRFP_EINVAL, "newton_cg: hessian-sample=%g: must be in "
                              "(0, 1]", o.sample);
        if (keep < -1)
            return crfp_error(host, CRFP_EINVAL, "newton_cg: keep=%lld: must be >= -1",
                              (long long)keep);
    }
    o.team = ts->team;
    if (CRFP_TS_HAS(ts, hessvec_keep) &&
        (st = ts->hessvec_keep(ts->ud, keep < 0 ? SIZE_MAX : (size_t)keep)) != CRFP_OK)
        return st;
    ncg_objective obj = {ts->dim, (void *)ts, ts_eval, ts_hessvec,
                         CRFP_TS_HAS(ts, hessdiag) ? ts_hessdiag : NULL,
                         CRFP_TS_HAS(ts, hessvec_sample) ? ts_sample : NULL, ts_iteration};
    if (o.sample < 1.0 && !obj.sample)
        return crfp_error(host, CRFP_EINVAL, "newton_cg: hessian-sample=%g: the training set "
                          "cannot subsample its Hessian", o.sample);
    st = ncg_minimize(host, &o, &obj, theta);
    /* The kept state belongs to this run's θ: give its memory back. */
    if (CRFP_TS_HAS(ts, hessvec_keep))
        ts->hessvec_keep(ts->ud, 0);
    if (o.sample < 1.0)
        ts->hessvec_sample(ts->ud, 1.0, 0);
    return st;
}

static const crfp_trainer_vtable ncg_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_trainer_vtable),
    .needs = CRFP_TS_BATCH | CRFP_TS_HESSVEC,
    .train = ncg_train,
};

CRFP_PLUGIN_DEFINE(newton_cg) = {
    CRFP_PLUGIN_ABI,
    .name = "newton_cg",
    .kind = CRFP_KIND_TRAINER,
    .version = "1.0",
    .description = "truncated Newton (trust-region Newton-CG) with exact Hessian-vector products",
    .params = ncg_params,
    .nparams = sizeof ncg_params / sizeof ncg_params[0],
    .vtable = &ncg_vtable,
};
