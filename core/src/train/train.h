/* The training driver: collects documents, builds the CRF, runs a chain of
 * trainer plugins on the engine's training set, monitors progress and the
 * dev set, saves the model.  Internal to libcrfpipe; the pipeline runner
 * drives it for a pipeline that ends in one or more trainer stages. */
#ifndef CRFP_TRAIN_H
#define CRFP_TRAIN_H

#include "crfpipe/crfpipe.h"

/* Parameters every trainer stage takes, whatever its optimizer. */
extern const crfp_param_spec crfp_train_common_params[];
extern const size_t crfp_train_common_nparams;

typedef struct crfp_trainrun crfp_trainrun;

/* One trainer of a chain: the plugin and its merged (common + own)
 * parameters, borrowed. */
typedef struct crfp_train_stage {
    const crfp_plugin *plugin;
    const crfp_params *params;
} crfp_train_stage;

/* Begin a run with `n` >= 1 chained trainers (each starts from the previous
 * one's solution, shrunk to its active features).  Run-wide parameters
 * (model, label, set, dev, dev-patience, threads, init-model, fb-mode,
 * train-error) are read from the first stage that sets them, else from the
 * last stage.  `features` / `ex` is the compiled extractor (borrowed).
 * *out owned by the caller.  Errors: CRFP_ENOMEM, those of loading the
 * warm-start model. */
crfp_status crfp_train_open(crfp_host *host, const crfp_train_stage *stages, size_t n,
                            const crfp_plugin *features, void *ex, crfp_trainrun **out);
/* Check, before any data is read, that every model the chain will save
 * (the last stage's `model`, and an intermediate stage's when it sets one,
 * and with rho1-path each point's MODEL.rho1-V) can be written: see
 * crfp_crf_check_save_path; and that a rho1-path can run (one trainer that
 * declares CRFP_PLUGIN_TRAINER_L1, no explicit rho1, no checkpoints, valid
 * distinct values), and that a cross-validation (cv-folds) can (no path,
 * no warm start, no checkpoints, one process).  A run that would fail
 * only after hours of training fails now.  Errors: those of that function, CRFP_EINVAL naming the
 * reason, CRFP_ENOMEM. */
crfp_status crfp_train_check_models(crfp_host *host, const crfp_train_stage *stages, size_t n);
/* The run-wide value of a common parameter (see crfp_train_open). */
const char *crfp_train_param(const crfp_trainrun *run, const char *name);
/* Name of the training input, for messages (copied). */
crfp_status crfp_train_set_source(crfp_trainrun *run, const char *name);
/* Distributed runs: whether the training (dev = 0) or dev (dev = 1) input
 * this rank reads is its own piece (cut = 1, crfp_shard_open) or the whole
 * input, of which it then keeps every P-th sentence.  Default: cut. */
void crfp_train_set_cut(crfp_trainrun *run, int dev, int cut);
/* The training documents are all in: in a distributed run, build the
 * dictionary every rank shares (collective; crfp_train_finish does it when
 * not done, but dev documents need it first).  Errors: those of
 * crfp_dist_merge_dict. */
crfp_status crfp_train_inputs_done(crfp_trainrun *run);
/* Add the labelled sentences of a training document (not kept). */
crfp_status crfp_train_add(crfp_trainrun *run, crfp_doc *doc);
/* Add the labelled sentences of a dev document (not kept); `origin` names
 * its file for messages.  Sentences with labels unseen in training are
 * skipped with a warning. */
crfp_status crfp_train_add_dev(crfp_trainrun *run, crfp_doc *doc, const char *origin);
/* Train and save the model (also after Ctrl-C: the last iterate is saved
 * and CRFP_EINTR returned).  With rho1-path, train each point in turn from
 * the previous point's weights, save it to MODEL.rho1-V, report it to the
 * host's path observer (observe.h), and save the point of lowest dev error
 * (the last without a dev set) to MODEL; Ctrl-C ends the path after the
 * interrupted point is saved.  With cv-folds K, train K models from the
 * starting weights, each on all but one fold (cv-split: K runs of
 * consecutive sentences, or sentence i in fold i mod K),
 * score each on its held-out fold and report it to the host's fold
 * observer; then, when MODEL is set, train on all the data and save it.
 * Errors: those of the trainers, of saving, of the dev-set scoring,
 * CRFP_EINVAL (more folds than sentences, a template holding features
 * back), CRFP_EINTR. */
crfp_status crfp_train_finish(crfp_trainrun *run);
void crfp_train_free(crfp_trainrun *run);

#endif
