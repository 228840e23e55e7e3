/* lbfgs plugin — quasi-Newton trainer: L-BFGS, or OWL-QN when rho1 > 0.
 *
 * Algorithm choices, and why:
 *  - Limited-memory BFGS keeps m correction pairs (s, y) and applies the
 *    inverse-Hessian approximation by the two-loop recursion (run on the
 *    pairs' inner products, history.c), scaled by γ = s'y / y'y of the
 *    newest pair.  m = 5 by default: on CRF objectives
 *    going beyond 5-10 pairs buys few iterations while each pair costs two
 *    more vectors of the (possibly multi-million) weight count, and memory
 *    is what limits the models that can be trained.
 *  - With an ℓ1 penalty the objective is not differentiable at zero, so the
 *    orthant-wise variant (OWL-QN) replaces the gradient by the
 *    pseudo-gradient, keeps the direction in the orthant the pseudo-gradient
 *    points to, and projects trial points back onto the current orthant —
 *    which is what produces exact zeros.  The pairs still use the gradient
 *    of the smooth part, which keeps the curvature model valid.
 *  - The line search is backtracking with the Armijo condition only.  The
 *    quasi-Newton step of length 1 is accepted in most iterations, and a
 *    Wolfe curvature test would add evaluations (each a pass over the whole
 *    training set) for no gain in this setting; pairs that violate the
 *    curvature condition are skipped instead.  A step that does not decrease
 *    F is never accepted, so F is monotone.  If backtracking fails, the
 *    history is dropped and steepest descent is tried once before giving up
 *    cleanly with the best point found.
 *  - Stopping: the relative decrease of F over the last `window` = 5
 *    iterations below epsilon = 3e-4.  Chosen on CoNLL-2000 with a
 *    dev split of the training set (last 1,000 sentences held out): dev
 *    chunk F1 was 94.16 at 1e-3 (105 iterations), 94.24-94.28 at 3e-4
 *    (122-127), 94.26-94.31 at 1e-4 (135-142) and 94.28 after 160: past
 *    3e-4 the gain is within noise while each iteration costs a pass over
 *    the data.  Measuring over a window rather than one iteration ignores
 *    the occasional nearly flat step.  A gradient test (gtol) ends runs that
 *    reach a stationary point exactly, e.g. a warm start from the optimum,
 *    and a run also ends quietly once the decrease a step predicts is below
 *    the rounding error of F, where no line search can tell progress apart.
 *
 * This file only turns parameters into options; the numerics live in
 * minimize.c, history.c (with f16.c), owlqn.c, linesearch.c and vpool.c.
 */
#include "config.h"
#include "crfpipe/crfpipe.h"
#include "lbfgs_impl.h"

#include <limits.h>

static const crfp_param_spec lbfgs_params[] = {
    {"history", CRFP_PARAM_INT, "5",
     "number m of correction pairs kept (memory: 20 + 4m bytes per weight besides the weights "
     "themselves: 2m half-precision vectors)"},
    {"epsilon", CRFP_PARAM_FLOAT, "3e-4",
     "stop when (F[k-window] - F[k]) / |F[k]| falls to epsilon or below (0 disables)"},
    {"window", CRFP_PARAM_INT, "5",
     "number of iterations over which the relative decrease of F is measured"},
    {"max-linesearch", CRFP_PARAM_INT, "20",
     "objective evaluations allowed per line search before falling back to steepest descent"},
    {"max-iter", CRFP_PARAM_INT, "0",
     "stop after this many iterations (0 = no limit besides the host's own)"},
    {"gtol", CRFP_PARAM_FLOAT, "1e-5",
     "stop when the (pseudo-)gradient norm is at most gtol * max(1, |theta|) (0 disables)"},
    {"shard", CRFP_PARAM_BOOL, "true",
     "in a distributed run on one machine, split the optimizer's vectors and loops across the "
     "ranks instead of repeating them on every rank (the same optimizer; sums in another order)"},
};

/* Parameters arrive as int64; anything outside int is out of range. */
static crfp_status get_int(crfp_host *host, const crfp_params *p, const char *name, int *out)
{
    int64_t v = crfp_params_int(p, name);
    if (v < INT_MIN || v > INT_MAX)
        return crfp_error(host, CRFP_EINVAL, "lbfgs: %s=%lld: out of range", name,
                          (long long)v);
    *out = (int)v;
    return CRFP_OK;
}

/* The trainset's batch objective with its ℓ2 term, and its monitor. */
static crfp_status ts_eval(void *ud, const double *theta, double *f, double *g)
{
    const crfp_trainset *ts = ud;
    return ts->batch(ts->ud, theta, 1, f, g);
}

static crfp_status ts_eval_shard(void *ud, double *theta, double *f, double *g)
{
    const crfp_trainset *ts = ud;
    return ts->batch_shard(ts->ud, theta, 1, f, g);
}

static crfp_status ts_sum(void *ud, double *v, size_t n)
{
    const crfp_trainset *ts = ud;
    return ts->mix(ts->ud, v, n, CRFP_MIX_SUM);
}

static crfp_status ts_gather(void *ud, void *v, size_t width)
{
    const crfp_trainset *ts = ud;
    return ts->gather(ts->ud, v, width);
}

static crfp_status ts_iteration(void *ud, const crfp_iter_info *info, const double *theta,
                                int *stop)
{
    const crfp_trainset *ts = ud;
    return ts->monitor ? ts->monitor(ts->monitor_ud, info, theta, stop) : CRFP_OK;
}

static crfp_status lbfgs_resume(crfp_host *host, const crfp_params *params,
                                const crfp_trainset *ts, double *theta,
                                const crfp_train_ckpt *ck)
{
    lbfgs_objective objective = {.dim = ts->dim, .rho1 = ts->rho1, .rho2 = ts->rho2,
                                 .ud = (void *)ts, .eval = ts_eval, .iteration = ts_iteration};
    const lbfgs_objective *obj = &objective;
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    int shard = !params || crfp_params_bool(params, "shard");
    if (shard && CRFP_TS_HAS(ts, shard) && CRFP_TS_HAS(ts, batch_shard) &&
        CRFP_TS_HAS(ts, gather) && CRFP_TS_HAS_MIX(ts)) {
        crfp_status st = ts->shard(ts->ud, &objective.lo, &objective.hi, &objective.xbuf);
        if (st != CRFP_OK)
            return st;
        objective.eval_shard = ts_eval_shard;
        objective.sum = ts_sum;
        objective.gather = ts_gather;
    }
    if (params) {
        crfp_status st;
        if ((st = get_int(host, params, "history", &o.m)) != CRFP_OK ||
            (st = get_int(host, params, "window", &o.window)) != CRFP_OK ||
            (st = get_int(host, params, "max-linesearch", &o.max_ls)) != CRFP_OK)
            return st;
        o.epsilon = crfp_params_float(params, "epsilon");
        o.gtol = crfp_params_float(params, "gtol");
        o.max_iter = crfp_params_int(params, "max-iter");
    }
    o.team = ts->team;
    return lbfgs_minimize_ckpt(host, &o, obj, theta, ck);
}

static crfp_status lbfgs_train(crfp_host *host, const crfp_params *params,
                               const crfp_trainset *ts, double *theta)
{
    return lbfgs_resume(host, params, ts, theta, NULL);
}

static const crfp_trainer_vtable lbfgs_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_trainer_vtable),
    .needs = CRFP_TS_BATCH,
    .train = lbfgs_train,
    .resume = lbfgs_resume,
};

CRFP_PLUGIN_DEFINE(lbfgs) = {
    CRFP_PLUGIN_ABI,
    .name = "lbfgs",
    .kind = CRFP_KIND_TRAINER,
    .version = "1.3",
    .description = "L-BFGS (OWL-QN when rho1 > 0) quasi-Newton optimizer",
    .params = lbfgs_params,
    .nparams = sizeof lbfgs_params / sizeof lbfgs_params[0],
    .vtable = &lbfgs_vtable,
    /* l1 for any rho1, warm starts: it can run a regularisation path */
    .flags = CRFP_PLUGIN_TRAINER_L1,
};
