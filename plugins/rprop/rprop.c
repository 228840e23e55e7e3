/* rprop plugin — resilient backpropagation (Riedmiller & Braun 1993), as
 * Wapiti trains with it (`wapiti train -a rprop`, `rprop+`, `rprop-`).
 *
 * Every weight has its own step, which grows by stpinc while the sign of
 * its gradient holds and shrinks by stpdec when it flips; the weight moves
 * by its step against the sign of its gradient, whatever the gradient's
 * size.  Only signs count, so features of every frequency move at their own
 * pace without a line search or curvature estimate.  Each iteration costs
 * one batch gradient and an elementwise pass; memory is four vectors of the
 * weight count besides θ (three for rprop-), where L-BFGS keeps its history.
 *
 * Variants, as Wapiti's: rprop+ (the default, Wapiti's rprop and rprop+)
 * undoes a weight's last step when its gradient changes sign, and skips
 * its next adaptation; rprop- only shrinks the step.  The ℓ1 penalty:
 * steps follow the orthant-wise pseudo-gradient (as OWL-QN's) and never go
 * against it; or, with cutoff=true (Wapiti's --cutoff), a weight whose
 * gradient the penalty outweighs is set to 0 where it sits at 0 or has just
 * crossed it.  The ℓ2 penalty is in the gradient.  Wapiti's step limits
 * and factors are the defaults (stpmin 1e-8, stpmax 50, stpinc 1.2,
 * stpdec 0.5, first step 0.1); signs below 64 ε count as 0, as in Wapiti.
 *
 * Stopping: like lbfgs, when F decreased by at most epsilon (relative) over
 * `window` iterations, at max-iter, or by the host's monitor (dev patience,
 * interrupt).  F is not monotone under RPROP (no line search), hence a
 * smaller default epsilon than lbfgs's over the same window.
 */
#include "config.h"
#include "crfpipe/crfpipe.h"
#include "rprop_impl.h"

#include <limits.h>
#include <string.h>

static const crfp_param_spec rprop_params[] = {
    {"variant", CRFP_PARAM_STRING, "rprop+",
     "rprop+ (undo a step whose gradient changed sign: Wapiti's rprop and rprop+) or "
     "rprop- (only shrink the step)"},
    {"cutoff", CRFP_PARAM_BOOL, "false",
     "l1: set to 0 a weight whose gradient the penalty outweighs (Wapiti's --cutoff); "
     "false: follow the orthant-wise pseudo-gradient"},
    {"step0", CRFP_PARAM_FLOAT, "0.1", "every weight's first step"},
    {"stpmin", CRFP_PARAM_FLOAT, "1e-8", "smallest step (Wapiti's --stpmin)"},
    {"stpmax", CRFP_PARAM_FLOAT, "50", "largest step (Wapiti's --stpmax)"},
    {"stpinc", CRFP_PARAM_FLOAT, "1.2", "step growth while a gradient keeps its sign"},
    {"stpdec", CRFP_PARAM_FLOAT, "0.5", "step shrink when a gradient changes sign"},
    {"epsilon", CRFP_PARAM_FLOAT, "1e-4",
     "stop when (F[k-window] - F[k]) / |F[k]| falls to epsilon or below (0 disables)"},
    {"window", CRFP_PARAM_INT, "5",
     "number of iterations over which the relative decrease of F is measured"},
    {"max-iter", CRFP_PARAM_INT, "0",
     "stop after this many iterations (0 = no limit besides the host's own)"},
};

static crfp_status read_opts(crfp_host *host, const crfp_params *p, rprop_opts *o)
{
    rprop_opts_default(o);
    if (!p)
        return CRFP_OK;
    const char *v = crfp_params_str(p, "variant");
    if (v && strcmp(v, "rprop+") != 0 && strcmp(v, "rprop-") != 0 && strcmp(v, "rprop") != 0)
        return crfp_error(host, CRFP_EINVAL, "rprop: variant=%s: must be rprop+ or rprop-", v);
    o->backtrack = !v || strcmp(v, "rprop-") != 0;
    o->cutoff = crfp_params_bool(p, "cutoff");
    o->step0 = crfp_params_float(p, "step0");
    o->stpmin = crfp_params_float(p, "stpmin");
    o->stpmax = crfp_params_float(p, "stpmax");
    o->stpinc = crfp_params_float(p, "stpinc");
    o->stpdec = crfp_params_float(p, "stpdec");
    o->epsilon = crfp_params_float(p, "epsilon");
    int64_t w = crfp_params_int(p, "window"), mi = crfp_params_int(p, "max-iter");
    if (w < 1 || w > 100000 || mi < 0 || mi > LONG_MAX)
        return crfp_error(host, CRFP_EINVAL, "rprop: window=%lld, max-iter=%lld: need window "
                          "in 1..100000 and max-iter >= 0", (long long)w, (long long)mi);
    o->window = (int)w;
    o->max_iter = (long)mi;
    return CRFP_OK;
}

static crfp_status rprop_entry(crfp_host *host, const crfp_params *params,
                               const crfp_trainset *ts, double *theta)
{
    rprop_opts o;
    crfp_status st = read_opts(host, params, &o);
    return st != CRFP_OK ? st : rprop_train(host, &o, ts, theta);
}

static const crfp_trainer_vtable rprop_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_trainer_vtable),
    .needs = CRFP_TS_BATCH,
    .train = rprop_entry,
};

CRFP_PLUGIN_DEFINE(rprop) = {
    CRFP_PLUGIN_ABI,
    .name = "rprop",
    .kind = CRFP_KIND_TRAINER,
    .version = "1.0",
    .description = "RPROP (resilient backpropagation, Wapiti's rprop+/rprop-), one step per "
                   "weight from the gradient's sign; l1 by pseudo-gradient or cut-off",
    .flags = CRFP_PLUGIN_TRAINER_L1,
    .params = rprop_params,
    .nparams = sizeof rprop_params / sizeof rprop_params[0],
    .vtable = &rprop_vtable,
};
