/* bcd plugin — blockwise coordinate descent for the elastic net
 * F = Σ loss_i + rho2/2‖θ‖² + rho1‖θ‖₁ (Sokolovska et al. 2010), the trainer
 * that needs least memory: θ plus one float per block, so it trains models
 * whose optimizer vectors would not fit.  Capability needed: BLOCKS (block
 * occurrences and statistics); with SEQUENCE the exact objective is
 * reported after each sweep.  Algorithm and safeguard: bcd_train.c;
 * defaults and measurements: README.md.
 *
 * This file only turns parameters into options.
 */
#include "config.h"
#include "bcd_impl.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static const crfp_param_spec bcd_params[] = {
    {"radius", CRFP_PARAM_INT, "2",
     "block statistics on windows of this many positions on each side of each occurrence "
     "(0 = whole sequences, exact)"},
    {"max-sweeps", CRFP_PARAM_INT, "20",
     "stop after this many passes over the blocks (the common max-iter, when set, overrides it)"},
    {"epsilon", CRFP_PARAM_FLOAT, "1e-3",
     "stop when the objective decreased by at most epsilon (relative) over `window` sweeps "
     "(0 disables)"},
    {"window", CRFP_PARAM_INT, "2", "sweeps over which the relative decrease is measured"},
    {"kappa", CRFP_PARAM_FLOAT, "1",
     "initial multiplier of every block's curvature (>= 1 damps the first updates)"},
    {"max-tries", CRFP_PARAM_INT, "6",
     "trials per block update (the curvature multiplier x4 after each increase of the "
     "objective) before the block is left unchanged for the sweep"},
};

static crfp_status get_opts(crfp_host *host, const crfp_params *p, bcd_opts *o)
{
    bcd_opts_default(o);
    if (!p)
        return CRFP_OK;
    int64_t radius = crfp_params_int(p, "radius"), sweeps = crfp_params_int(p, "max-sweeps");
    int64_t window = crfp_params_int(p, "window"), tries = crfp_params_int(p, "max-tries");
    o->epsilon = crfp_params_float(p, "epsilon");
    o->kappa0 = crfp_params_float(p, "kappa");
    if (radius < 0 || radius > UINT32_MAX)
        return crfp_error(host, CRFP_EINVAL, "bcd: radius=%lld: must be >= 0",
                          (long long)radius);
    if (crfp_params_declares(p, "max-iter") && crfp_params_isset(p, "max-iter") &&
        crfp_params_int(p, "max-iter") > 0)
        sweeps = crfp_params_int(p, "max-iter");
    if (sweeps < 1 || sweeps > 1000000)
        return crfp_error(host, CRFP_EINVAL, "bcd: max-sweeps=%lld: must be in [1, 1e6]",
                          (long long)sweeps);
    if (window < 1 || window > 1000)
        return crfp_error(host, CRFP_EINVAL, "bcd: window=%lld: must be in [1, 1000]",
                          (long long)window);
    if (tries < 1 || tries > 50)
        return crfp_error(host, CRFP_EINVAL, "bcd: max-tries=%lld: must be in [1, 50]",
                          (long long)tries);
    if (!(o->epsilon >= 0 && o->epsilon < 1))
        return crfp_error(host, CRFP_EINVAL, "bcd: epsilon=%g: must be in [0, 1)", o->epsilon);
    if (!(o->kappa0 > 0 && o->kappa0 <= 1e6))
        return crfp_error(host, CRFP_EINVAL, "bcd: kappa=%g: must be in (0, 1e6]", o->kappa0);
    o->radius = (uint32_t)radius;
    o->max_sweeps = (int)sweeps;
    o->window = (int)window;
    o->max_tries = (int)tries;
    return CRFP_OK;
}

static crfp_status bcd_entry(crfp_host *host, const crfp_params *params, const crfp_trainset *ts,
                             double *theta)
{
    bcd_opts o;
    crfp_status st = get_opts(host, params, &o);
    if (st != CRFP_OK)
        return st;
    return bcd_train(host, &o, ts, theta);
}

static const crfp_trainer_vtable bcd_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_trainer_vtable),
    .needs = CRFP_TS_BLOCKS,
    .train = bcd_entry,
};

CRFP_PLUGIN_DEFINE(bcd) = {
    CRFP_PLUGIN_ABI,
    .name = "bcd",
    .kind = CRFP_KIND_TRAINER,
    .version = "1.0",
    .description = "blockwise coordinate descent for the elastic net (Sokolovska et al. 2010)",
    .params = bcd_params,
    .nparams = sizeof bcd_params / sizeof bcd_params[0],
    .vtable = &bcd_vtable,
    /* l1 for any rho1, warm starts: it can run a regularisation path */
    .flags = CRFP_PLUGIN_TRAINER_L1,
};
