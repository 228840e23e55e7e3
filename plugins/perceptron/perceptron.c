/* perceptron plugin — online trainers that decode instead of computing
 * likelihoods: the averaged structured perceptron (Collins 2002) and, with
 * variant=pa, averaged passive-aggressive training (PA-I, Crammer et al.
 * 2006), with variant=arow, adaptive regularisation of weights (AROW,
 * Crammer, Kulesza & Dredze 2009): CRFsuite's five trainers are lbfgs,
 * l2sgd, ap, pa and arow, and these are its last three.  variant=mira is
 * CRF++'s MIRA (crf_learn -a MIRA) step for step: per sequence a dual
 * variable bounded by C, shrinking, no averaging, the stored order, and
 * its stopping rule (perc_train.c, mira_update).
 *
 * Algorithm choices, and why:
 *  - Each epoch visits the training sequences in a fresh random order
 *    (crfp_rng seeded by `seed`), decodes each with the training set's
 *    Viterbi (the engine's sparse Viterbi: this is where the time goes) and,
 *    when the best path differs from the gold one, moves θ by
 *    τ·(Φ(gold) − Φ(pred)).  The perceptron takes τ = 1; PA takes the
 *    smallest step that makes the gold path win by its Hamming distance to
 *    the prediction, capped at C:  τ = min(C, (loss − θ·d) / ‖d‖²).
 *    AROW keeps a variance σ_j per weight (one more vector of the weight
 *    count) and moves each weight by α·σ_j·d_j, α = (loss − θ·d) /
 *    (Σ σ_j d_j² + γ); a weight's variance shrinks each time its feature
 *    is in a difference, so frequent features settle and rare ones keep
 *    moving.  The structured cost is CRFsuite's (loss − θ·d against the
 *    Viterbi path); the diagonal update of Σ is the one of Σ⁻¹'s diagonal.
 *  - All three return the average of θ over every example of every epoch
 *    (average=false: the last θ, which is what CRFsuite's arow returns),
 *    which is what makes perceptron-style training generalise (Collins 2002;
 *    Freund & Schapire's voted perceptron).  The average is kept lazily —
 *    one accumulator vector, two sparse writes per update, no dense pass per
 *    example — and written to theta once per epoch (perc_train.c explains
 *    the bookkeeping).  Memory: three vectors of the weight count (the
 *    caller's θ, the current weights, the accumulator).
 *  - The progress line's objective is the fraction of training tokens the
 *    epoch mislabelled as it went (before each update): there is no
 *    likelihood to report.  Its step is 1, PA's mean τ or AROW's mean α.
 *  - Stopping: after `max-epochs` epochs (the common max-iter overrides it
 *    when set), or when the host's monitor says so (dev-set patience).  The
 *    monitor does not tell a trainer which epoch was best on the dev set,
 *    so the weights returned are the last epoch's average, not the best
 *    one's; with averaging the dev error moves little from epoch to epoch
 *    near the end, so the patience window costs little.  Ctrl-C returns
 *    CRFP_EINTR with the last completed epoch's average.
 *  - No penalties: the perceptron minimises no regularised objective; its
 *    capacity control is the averaging and the number of epochs.  rho1 > 0
 *    is refused (an ℓ1 model would need a different algorithm), and so is
 *    an explicitly given rho2 > 0; the driver's default rho2 is ignored.
 *  - One thread decodes, in the order the shuffle dictates: the perceptron
 *    is inherently sequential (each example is decoded with the weights the
 *    previous one left), and mixing per-thread weight vectors (McDonald et
 *    al. 2010) changes the algorithm and its results with the thread count.
 *    Runs are bit-for-bit reproducible from the seed.
 *
 * Defaults, chosen on CoNLL-2000 chunking (samples/chunking/chunking.tpl)
 * with a dev split of train.txt only — the first 7,936 sentences trained,
 * the last 1,000 held out and scored (chunk F1, conlleval rules); test.txt
 * was not looked at — over seeds 1, 2, 3, F1 of the averaged weights after
 * every epoch (a scratch harness scoring the monitor's θ each epoch; the
 * CLI trained on the same split gives the same figures, e.g. 94.22 and
 * 94.33 for seed 1 at the defaults):
 *   perceptron, mean F1 at 5/10/15/20/25/30/40 epochs:
 *     94.12 / 94.17 / 94.22 / 94.28 / 94.29 / 94.28 / 94.28
 *   pa, mean F1 at 20/25 epochs:  c=0.01 (2 seeds) 94.19 / 94.19,
 *     c=0.03  94.30 / 94.32,  c=0.1 94.31 / 94.32.  c >= 0.1 gives
 *     bit-identical runs: with ~20 features a token, ‖d‖² is large and PA's
 *     step stays below 0.1 (its mean is ~0.026), so c only bites below.
 *   arow, seed 1, F1 at 10 epochs for γ = 0.1 / 1 / 10 / 100 / 1000:
 *     89.15 / 92.99 / 93.91 / 94.15 / 93.95; only γ/variance matters
 *     (variance 0.1 gives γ = 10's figure, 10 γ = 0.1's).  γ = 30 / 100 /
 *     300 at 20 epochs, seeds 1, 2, 3: mean 93.84 / 93.97 / 93.94; at 5 /
 *     10 / 20 / 40 epochs (γ = 100, seed 1) 93.94 / 94.15 / 94.06 / 94.10,
 *     and 93.81 / 93.99 / 93.98 at 10 / 20 / 40 without averaging.  On
 *     UD EWT (pos.tpl, train → dev UPOS, 20 epochs) γ = 1 / 10 / 100 / 1000
 *     gave 94.04 / 94.47 / 94.54 / 94.42 % (the perceptron 95.05, pa
 *     95.00).  CRFsuite's default γ = 1 is far from either optimum here:
 *     with ~20 features a token, Σ σ_j d_j² of a mistaken sentence is in
 *     the hundreds, and γ = 1 lets the first mistakes move the weights
 *     whole units.
 * Hence max-epochs=20 (dev F1 flat after it, each epoch ~0.15 s),
 * c=0.03 (ties 0.1 on the mean, but was steadier from seed to seed and
 * epoch to epoch: 0.1 swung 94.12-94.44 past 20 epochs), γ = 100 with
 * variance 1, and averaging for all three.  With these, on
 * train.txt → test.txt: perceptron F1 93.63 in 3.0 s of training, pa 93.58
 * in about as much CPU time (one core, an otherwise idle machine).
 */
#include "config.h"
#include "crfpipe/crfpipe.h"
#include "perc_impl.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static const crfp_param_spec perc_params[] = {
    {"variant", CRFP_PARAM_STRING, "perceptron",
     "perceptron (step 1), pa (passive-aggressive PA-I), arow (adaptive "
     "regularisation of weights, a variance per weight) or mira (CRF++'s -a MIRA); rho1 "
     "and rho2 do not apply (rho1 > 0 or an explicit rho2 > 0 is an error)"},
    {"max-epochs", CRFP_PARAM_INT, "20",
     "passes over the training set (the common max-iter, when set, overrides it; "
     "variant=mira: 100000 unless set, as CRF++'s -m, since it stops by itself)"},
    {"c", CRFP_PARAM_FLOAT, "0.03",
     "variant=pa: aggressiveness C, the largest step taken on one sequence; variant=mira: "
     "the bound on the sum of a sequence's steps (1 unless set, CRF++'s -c)"},
    {"shrinking-size", CRFP_PARAM_INT, "20",
     "variant=mira: a sequence labelled right this many epochs in a row is skipped until "
     "every constraint holds (CRF++'s -H)"},
    {"variance", CRFP_PARAM_FLOAT, "1",
     "variant=arow: the initial variance of every weight (its first steps' scale)"},
    {"gamma", CRFP_PARAM_FLOAT, "100",
     "variant=arow: r, how slowly the variances shrink and the steps with them"},
    {"average", CRFP_PARAM_BOOL, "true",
     "return the average of the weights over every example of every epoch (false: "
     "the last weights, as CRFsuite's arow does; variant=mira: false unless set, as CRF++)"},
    {"seed", CRFP_PARAM_INT, "1", "seed of the per-epoch shuffle"},
    {"shuffle", CRFP_PARAM_BOOL, "true",
     "visit the sequences in a new random order each epoch (false: stored order; "
     "variant=mira: false unless set, as CRF++)"},
};

/* Fill `o` from `params` (NULL: defaults) and the training set's penalties.
 * Errors: CRFP_EINVAL with a message naming the parameter. */
static crfp_status read_opts(crfp_host *host, const crfp_params *params,
                             const crfp_trainset *ts, perc_opts *o)
{
    perc_opts_default(o);
    if (ts->rho1 > 0.0)
        return crfp_error(host, CRFP_EINVAL,
                          "perceptron: rho1=%g: the perceptron has no l1 penalty "
                          "(use --trainer lbfgs for sparse models)", ts->rho1);
    if (!params)
        return CRFP_OK;
    if (crfp_params_declares(params, "rho2") && crfp_params_isset(params, "rho2") &&
        crfp_params_float(params, "rho2") > 0.0)
        return crfp_error(host, CRFP_EINVAL,
                          "perceptron: rho2=%g: the perceptron has no l2 penalty "
                          "(its regularisation is averaging and max-epochs)",
                          crfp_params_float(params, "rho2"));
    const char *v = crfp_params_str(params, "variant");
    if (v && strcmp(v, "pa") == 0)
        o->variant = PERC_PA;
    else if (v && strcmp(v, "arow") == 0)
        o->variant = PERC_AROW;
    else if (v && strcmp(v, "mira") == 0)
        o->variant = PERC_MIRA;
    else if (v && strcmp(v, "perceptron") != 0)
        return crfp_error(host, CRFP_EINVAL,
                          "perceptron: variant=%s: must be perceptron, pa, arow or mira", v);
    /* MIRA takes CRF++'s defaults where the user said nothing */
    const int mira = o->variant == PERC_MIRA;
    int64_t ep = crfp_params_int(params, "max-epochs");
    if (mira && !crfp_params_isset(params, "max-epochs"))
        ep = 100000;
    if (crfp_params_declares(params, "max-iter") && crfp_params_int(params, "max-iter") > 0)
        ep = crfp_params_int(params, "max-iter");
    if (ep < 1 || ep > INT_MAX)
        return crfp_error(host, CRFP_EINVAL, "perceptron: max-epochs=%lld: must be 1 or more",
                          (long long)ep);
    o->epochs = (int)ep;
    o->C = mira && !crfp_params_isset(params, "c") ? 1.0 : crfp_params_float(params, "c");
    if (!(o->C > 0.0))
        return crfp_error(host, CRFP_EINVAL, "perceptron: c=%g: must be > 0", o->C);
    o->variance = crfp_params_float(params, "variance");
    if (!(o->variance > 0.0) || !isfinite(o->variance))
        return crfp_error(host, CRFP_EINVAL, "perceptron: variance=%g: must be finite and > 0",
                          o->variance);
    o->gamma = crfp_params_float(params, "gamma");
    if (!(o->gamma > 0.0) || !isfinite(o->gamma))
        return crfp_error(host, CRFP_EINVAL, "perceptron: gamma=%g: must be finite and > 0",
                          o->gamma);
    o->average = mira && !crfp_params_isset(params, "average") ? 0
                 : crfp_params_bool(params, "average");
    o->seed = (uint64_t)crfp_params_int(params, "seed");
    o->shuffle = mira && !crfp_params_isset(params, "shuffle") ? 0
                 : crfp_params_bool(params, "shuffle");
    int64_t sh = crfp_params_int(params, "shrinking-size");
    if (sh < 1 || sh > 65535)
        return crfp_error(host, CRFP_EINVAL, "perceptron: shrinking-size=%lld: must be 1 to "
                          "65535", (long long)sh);
    o->shrink = (int)sh;
    return CRFP_OK;
}

/* The trainer entry point (crfp_trainer_vtable.train). */
static crfp_status perc_train_entry(crfp_host *host, const crfp_params *params,
                                    const crfp_trainset *ts, double *theta)
{
    perc_opts o;
    crfp_status st = read_opts(host, params, ts, &o);
    if (st != CRFP_OK)
        return st;
    return perc_train(host, &o, ts, theta);
}

static const crfp_trainer_vtable perc_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_trainer_vtable),
    .needs = CRFP_TS_DECODE,
    .train = perc_train_entry,
};

CRFP_PLUGIN_DEFINE(perceptron) = {
    CRFP_PLUGIN_ABI,
    .name = "perceptron",
    .kind = CRFP_KIND_TRAINER,
    .version = "1.0",
    .description = "averaged structured perceptron, passive-aggressive or AROW trainer, or "
                   "CRF++'s MIRA (no rho1/rho2)",
    .params = perc_params,
    .nparams = sizeof perc_params / sizeof perc_params[0],
    .vtable = &perc_vtable,
};
