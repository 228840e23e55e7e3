/* The training driver: collects documents, builds the CRF, runs a trainer
 * plugin on its objective, saves the model.  Internal to libcrfpipe; the
 * pipeline runner drives it for a pipeline that ends in a trainer. */
#ifndef CRFP_TRAIN_H
#define CRFP_TRAIN_H

#include "crfpipe/crfpipe.h"

/* Parameters every trainer stage takes, whatever its optimizer. */
extern const crfp_param_spec crfp_train_common_params[];
extern const size_t crfp_train_common_nparams;

typedef struct crfp_trainrun crfp_trainrun;

/* How the driver re-reads a dev file: the pipeline's reader. */
typedef struct crfp_reader_ref {
    const crfp_plugin *plugin;  /* NULL: chosen from the file name */
    const crfp_params *params;
} crfp_reader_ref;

/* Begin a run.  `features` / `ex` is the compiled extractor of the pipeline's
 * features stage (borrowed); `params` the merged common + optimizer
 * parameters (borrowed).  *out owned by the caller. */
crfp_status crfp_train_open(crfp_host *host, const crfp_plugin *trainer,
                            const crfp_params *params, const crfp_plugin *features, void *ex,
                            crfp_reader_ref reader, crfp_trainrun **out);
/* Name of the training input, for messages (copied). */
crfp_status crfp_train_set_source(crfp_trainrun *run, const char *name);
/* Add the labelled sentences of a training document (not kept). */
crfp_status crfp_train_add(crfp_trainrun *run, crfp_doc *doc);
/* Train and save the model (also after Ctrl-C: the last iterate is saved
 * and CRFP_EINTR returned). */
crfp_status crfp_train_finish(crfp_trainrun *run);
void crfp_train_free(crfp_trainrun *run);

/* Open a reader plugin on a file for internal use (dev sets, eval): plugin
 * chosen by name, or from the extension when name is NULL (.xml → xml_reader,
 * .conllu → conllu_reader, else conll_reader). */
crfp_status crfp_reader_for_file(crfp_host *host, const char *path, const char *name,
                                 const crfp_plugin **out);

#endif
