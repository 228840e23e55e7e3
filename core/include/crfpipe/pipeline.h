/* crfpipe — pipelines: a reader, document stages and a writer or trainer.
 *
 * A pipeline (schemas/pipeline.rng) lists stages, each a plugin name plus
 * parameters.  The role of a stage follows from its plugin's kind:
 *   reader?  tokenizer*  tagger*  features?  (tagger* writer? | trainer+)
 * (taggers before the features stage run before its features are
 * extracted, in training as in tagging).
 * A missing reader/writer defaults to xml_reader/xml_writer.  Documents
 * stream one at a time from the reader through the stages to the writer;
 * a trainer collects them and trains at the end of the stream.
 */
#ifndef CRFPIPE_PIPELINE_H
#define CRFPIPE_PIPELINE_H

#include "crfpipe/status.h"
#include "crfpipe/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crfp_pipeline crfp_pipeline;

/* Empty pipeline bound to `host` (which must outlive it). NULL on ENOMEM.
 * The caller owns it; crfp_pipeline_free accepts NULL. */
crfp_pipeline *crfp_pipeline_new(crfp_host *host);
void crfp_pipeline_free(crfp_pipeline *p);

/* Append a stage: load plugin `plugin` and validate the n name/value
 * parameters against its declaration.  `where` names the stage in messages
 * (e.g. "pipe.xml:7"); relative PATH parameters resolve against `basedir`
 * (NULL = current directory).  Errors: those of crfp_host_load, and
 * CRFP_EINVAL for unknown parameters, wrong types, or a stage whose kind
 * cannot follow the previous ones.  Also CRFP_ENOMEM.  `where` must not be
 * NULL; names and values are copied; the message, in the pipeline's host,
 * names the stage.  On error the pipeline is unchanged. */
crfp_status crfp_pipeline_add(crfp_pipeline *p, const char *plugin, const char *where,
                              const char *const *names, const char *const *values, size_t n,
                              const char *basedir);

/* Append a features stage of plugin `plugin` whose extractor is rebuilt
 * from a saved configuration -- the `len` bytes at `config`, as a model
 * keeps them (crfp_crf_features_config) -- by the plugin's load, instead of
 * from parameters: training more on a model's own features.  `origin`
 * names the configuration in the plugin's messages (the model file);
 * `where` names the stage, as for crfp_pipeline_add.  Everything is copied.
 * Errors: those of crfp_pipeline_add, CRFP_EINVAL (the plugin is not a
 * features plugin; a NULL argument), CRFP_ENOMEM; the load's own errors
 * come when the pipeline opens.  On error the pipeline is unchanged. */
crfp_status crfp_pipeline_add_saved_features(crfp_pipeline *p, const char *plugin,
                                             const char *where, const char *config, size_t len,
                                             const char *origin);

/* Parse and validate a pipeline XML file, adding its stages.  *out, owned
 * by the caller (host must outlive it), is NULL on failure.  Errors: those
 * of crfp_xml_validate_file against pipeline.rng (CRFP_EIO, CRFP_EPARSE,
 * CRFP_ESCHEMA, CRFP_ENOTFOUND, CRFP_ENOMEM) and of crfp_pipeline_add
 * (relative paths resolve against the file's directory), CRFP_EINVAL for a
 * stage of more than 64 parameters. */
crfp_status crfp_pipeline_load(crfp_host *host, const char *path, crfp_pipeline **out);

/* Stream documents from `in` through the pipeline to `out` (out may be NULL
 * for a training pipeline).  The streams are not closed.  Errors, recorded
 * in the host and naming the stage or stream: those of the stages and of
 * training, those of crfp_host_find_format when the default XML reader or
 * writer is needed, CRFP_EINVAL (a trainer without `model` outside
 * cross-validation, more than 16 chained trainers), CRFP_EPLUGIN (a plugin
 * read a parameter it never declared), CRFP_EINTR (interrupted),
 * CRFP_ENOMEM.  Every stage opened is closed before it returns. */
crfp_status crfp_pipeline_run(crfp_pipeline *p, crfp_stream *in, crfp_stream *out);

/* The same run in parts, for a corpus of several inputs: the document
 * stages (tokenizers, taggers, features: their models) are opened once by
 * crfp_pipeline_begin, each crfp_pipeline_feed streams one input through
 * them, and crfp_pipeline_end finishes the run: the stages that gather over
 * the whole corpus write their results (a tag dictionary, an evaluation), a
 * training pipeline trains on the documents of every feed.  crfp_pipeline_run
 * is a begin, one feed and an end.
 *
 * begin: `out` (may be NULL) is the output of every feed that gives none:
 * its writer is opened now and finished by the end.  Errors: those of
 * crfp_pipeline_run before any document is read (stages that cannot open,
 * a model that could not be written), CRFP_EINVAL when a run is already
 * open.  On failure nothing stays open.
 * feed: reads `in` (not closed) with the pipeline's reader; its documents go
 * to `out` when given (a writer opened, finished and closed for this input
 * alone: one output per input), else to begin's output or to training.
 * Errors: those of crfp_pipeline_run while documents stream, naming the
 * input, and CRFP_EINVAL (no run open; no output for a pipeline that
 * writes; a second input of a distributed training run).  After a failure
 * the run stays open: end it with crfp_pipeline_end(p, 0).
 * end: with `finish`, the end-of-corpus work above, then everything is
 * closed; without, everything is closed (after a failed feed, or to drop
 * the run) and CRFP_OK returned.  Errors with `finish`: those of the
 * stages' end of stream, of the writer's flush, of training.
 * crfp_pipeline_free also ends an open run, without finishing it. */
crfp_status crfp_pipeline_begin(crfp_pipeline *p, crfp_stream *out);
crfp_status crfp_pipeline_feed(crfp_pipeline *p, crfp_stream *in, crfp_stream *out);
crfp_status crfp_pipeline_end(crfp_pipeline *p, int finish);

/* Whether the pipeline ends in a trainer (and so writes no document).
 * p must not be NULL. */
int crfp_pipeline_is_training(const crfp_pipeline *p);

/* The plugin of the pipeline's reader, writer, features or (last) trainer
 * stage, or NULL when it has none (a pipeline without a reader or writer
 * reads or writes XML) or for another kind.  Owned by the host. */
const crfp_plugin *crfp_pipeline_plugin(const crfp_pipeline *p, crfp_kind kind);

/* Whether a stage of plugin `plugin` declares parameter `param` (for a
 * trainer: its own or one every trainer stage takes).  0 also when the
 * plugin cannot be loaded (the message is then in host). */
int crfp_pipeline_stage_accepts(crfp_host *host, const char *plugin, const char *param);

/* The parameters a stage of plugin `plugin` accepts, as crfp_pipeline_add
 * checks them: the plugin's declaration, and for a trainer also the
 * parameters every trainer stage takes (model, rho1, dev, ...), where the
 * trainer's own declaration of one of those wins (its default, its help).
 * *specs is a malloc'd array of *n entries (the caller frees it; its
 * strings belong to the loaded plugin and the library).  Errors: those of
 * crfp_host_load, CRFP_ENOMEM.  *specs is NULL after CRFP_ENOMEM, and left
 * untouched, as *n is, when the plugin cannot be loaded; with no parameter
 * it is a (non-NULL) array of *n = 0 entries to free. */
crfp_status crfp_pipeline_stage_params(crfp_host *host, const char *plugin,
                                       crfp_param_spec **specs, size_t *n);

#ifdef __cplusplus
}
#endif
#endif
