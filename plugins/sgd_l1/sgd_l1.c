/* sgd_l1 plugin — stochastic gradient descent with the cumulative ℓ1
 * penalty (Tsuruoka, Tsujii & Ananiadou 2009; Lavergne, Cappé & Yvon 2010
 * §3.3) and an exact lazy ℓ2 term: the elastic net F = Σ loss_i +
 * rho2/2‖θ‖² + rho1‖θ‖₁ on a crfp_trainset.
 *
 * Why this design:
 *  - A step only touches the blocks (observations) of its sequences: the
 *    engine returns the gradient restricted to them (seq_grad_sparse), the
 *    penalties of the other blocks are applied lazily when they are next
 *    touched or at the end of the epoch.  An epoch thus costs one
 *    forward-backward per sequence and no O(dim) work per step.
 *  - Memory is θ plus one vector q (the ℓ1 penalty each weight actually
 *    received) plus one double per block, as the paper's SGD needs: no
 *    gradient, no copy of θ.
 *  - The ℓ2 decay is kept exact by a scale frame (lazy.c) instead of being
 *    approximated; the dense algorithm it reproduces is stated in
 *    sgd_impl.h and checked against a dense implementation in
 *    tests/sgd/test_lazy.c.
 *  - eta0 is calibrated on a sample as crfsgd does, so no rate has to be
 *    tuned by hand; schedule and defaults: train.c and README.md.
 *
 * This file only turns parameters into options.
 */
#include "config.h"
#include "sgd_impl.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static const crfp_param_spec sgd_params[] = {
    /* The common rho1 with this trainer's default: an l1 method whose l1
     * weight defaults to 0 would surprise (chosen by cross-validation, see
     * README.md). */
    {"rho1", CRFP_PARAM_FLOAT, "0.6", "l1 penalty weight (cumulative penalty)"},
    {"eta0", CRFP_PARAM_FLOAT, "0",
     "initial learning rate per sequence (0 = calibrate on a sample of the training set)"},
    {"decay", CRFP_PARAM_FLOAT, "1",
     "exponent alpha of the schedule eta0 / (1 + t/N)^alpha, t = sequences seen"},
    {"batch", CRFP_PARAM_INT, "1",
     "sequences per minibatch step (a step of several is spread over the threads)"},
    {"seed", CRFP_PARAM_INT, "1", "seed of the per-epoch shuffles and the calibration sample"},
    {"max-epochs", CRFP_PARAM_INT, "10", "stop after this many passes over the training set"},
    {"epsilon", CRFP_PARAM_FLOAT, "1e-3",
     "stop when the objective estimate decreased by at most epsilon (relative) over `window` "
     "epochs (0 disables)"},
    {"window", CRFP_PARAM_INT, "3", "epochs over which the relative decrease is measured"},
    {"calib-sample", CRFP_PARAM_INT, "1000", "sequences used to calibrate eta0"},
    {"calib-factor", CRFP_PARAM_FLOAT, "2",
     "eta0 = the best calibrated rate times this factor"},
};

/* Read the options; CRFP_EINVAL naming the parameter for a value out of
 * range. */
static crfp_status get_opts(crfp_host *host, const crfp_params *p, sgd_opts *o)
{
    sgd_opts_default(o);
    if (!p)
        return CRFP_OK;
    int64_t batch = crfp_params_int(p, "batch"), epochs = crfp_params_int(p, "max-epochs");
    int64_t window = crfp_params_int(p, "window"), sample = crfp_params_int(p, "calib-sample");
    o->eta0 = crfp_params_float(p, "eta0");
    o->decay = crfp_params_float(p, "decay");
    o->epsilon = crfp_params_float(p, "epsilon");
    o->calib_factor = crfp_params_float(p, "calib-factor");
    o->seed = (uint64_t)crfp_params_int(p, "seed");
    if (!(o->eta0 >= 0 && o->eta0 < INFINITY))
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: eta0=%g: must be >= 0 (0 = calibrate)",
                          o->eta0);
    if (!(o->decay >= 0 && o->decay <= 10))
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: decay=%g: must be in [0, 10]", o->decay);
    if (!(o->epsilon >= 0 && o->epsilon < 1))
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: epsilon=%g: must be in [0, 1)",
                          o->epsilon);
    if (!(o->calib_factor > 0 && o->calib_factor <= 100))
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: calib-factor=%g: must be in (0, 100]",
                          o->calib_factor);
    if (batch < 1 || batch > INT32_MAX)
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: batch=%lld: must be >= 1",
                          (long long)batch);
    if (epochs < 1 || epochs > 1000000)
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: max-epochs=%lld: must be in [1, 1e6]",
                          (long long)epochs);
    if (window < 1 || window > 1000)
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: window=%lld: must be in [1, 1000]",
                          (long long)window);
    if (sample < 1)
        return crfp_error(host, CRFP_EINVAL, "sgd_l1: calib-sample=%lld: must be >= 1",
                          (long long)sample);
    o->batch = (size_t)batch;
    o->max_epochs = (int)epochs;
    o->window = (int)window;
    o->calib_sample = (size_t)sample;
    /* The host's common iteration limit, when given, is the epoch limit. */
    if (crfp_params_declares(p, "max-iter") && crfp_params_isset(p, "max-iter")) {
        int64_t mi = crfp_params_int(p, "max-iter");
        if (mi > 0)
            o->max_epochs = mi > 1000000 ? 1000000 : (int)mi;
    }
    return CRFP_OK;
}

static crfp_status sgd_l1_train(crfp_host *host, const crfp_params *params,
                                const crfp_trainset *ts, double *theta)
{
    sgd_opts o;
    crfp_status st = get_opts(host, params, &o);
    if (st != CRFP_OK)
        return st;
    return sgd_train(host, &o, ts, theta);
}

static const crfp_trainer_vtable sgd_l1_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_trainer_vtable),
    .needs = CRFP_TS_SEQUENCE,
    .train = sgd_l1_train,
};

CRFP_PLUGIN_DEFINE(sgd_l1) = {
    CRFP_PLUGIN_ABI,
    .name = "sgd_l1",
    .kind = CRFP_KIND_TRAINER,
    .version = "1.0",
    .description = "SGD with cumulative l1 penalty (Tsuruoka et al. 2009) and lazy exact l2",
    .params = sgd_params,
    .nparams = sizeof sgd_params / sizeof sgd_params[0],
    .vtable = &sgd_l1_vtable,
    /* l1 for any rho1, warm starts: it can run a regularisation path */
    .flags = CRFP_PLUGIN_TRAINER_L1,
};
