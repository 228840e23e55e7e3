/* The training driver's run, shared by the files of core/src/train that
 * drive it: train.c (documents in, the chain of trainers, the monitor,
 * saving), path.c (regularisation paths), cv.c (cross-validation) and
 * minfreq.c (the frequency cut-off).
 * Internal to libcrfpipe. */
#ifndef CRFP_TRAINRUN_H
#define CRFP_TRAINRUN_H

#include <stdint.h>
#include <time.h>

#include "train.h"

struct crfp_trainrun {
    crfp_host *host;
    crfp_train_stage *stages;
    size_t nstages, cur;           /* cur: the stage running */
    const crfp_plugin *features;
    void *ex;
    crfp_crf *crf;
    crfp_dataset *train, *dev;
    crfp_dataset *heldout; /* cv.c: the held-out fold of a chain, remapped
                            * with train and dev when a stage shrinks them */
    crfp_obsseq *obs;
    crfp_sentbuf *sb;
    const char **labels;
    size_t caplabels;
    char *labelname;
    char *columns0;     /* the first training document's "columns" metadata */
    char *source;       /* training input name, for messages */
    crfp_crf *init;     /* warm-start model, if any */
    crfp_team *team;
    /* iteration bookkeeping (per stage) */
    struct timespec t0, tlast;
    size_t best_dev;
    int best_iter, last_iter;
    int total_iter;     /* over every stage of a chain */
    double objective;
    /* distributed runs (train/dist.h): how each input was shared out, the
     * sentences seen so far (to keep every P-th when not cut), whether the
     * dictionary is merged, and the job's totals */
    int cut[2];
    uint64_t nsent[2];
    int merged;
    uint64_t total[9];  /* train sequences, tokens; dev sequences, tokens; sentences
                         * skipped for a missing label (train, dev); dev sentences
                         * and tokens left out for a label unknown to the model;
                         * training sequences weighing other than 1 */
    uint64_t dev_unknown[2]; /* this rank's share of the last two */
    uint64_t skipped[2]; /* this rank's share of the last two */
    int skip_unlabelled; /* unlabelled=skip */
    void *ck_state;     /* a resumed trainer's saved state, until its first iteration */
    /* dev-keep=best: a copy of the running stage's weights at its lowest
     * dev error so far, and that iterate's objective; kept_iter is the
     * iteration whose weights the model holds after the stage */
    int keep_best;
    double *best_theta, best_obj;
    int kept_iter;
    /* monitoring time of the running stage (observe.h: monitor_seconds),
     * the process's CPU time when it started and the monitor's share */
    double monitor_secs, cpu0, monitor_cpu;
    /* regularisation path (rho1-path): the point running, of npoints;
     * cross-validation (cv-folds): the fold running, of nfolds */
    size_t point, npoints, fold, nfolds;
    /* Incremental feature sets (the features' `prerequisites`): per
     * observation, the rule whose prefix it starts with (-1: none), the
     * prerequisite class it belongs to (-1: none) and its state. */
    size_t nrules;
    char **rule_x;      /* held prefixes, one per rule */
    int32_t *rule_y;    /* each rule's prerequisite class */
    char **ycls;        /* distinct prerequisite prefixes */
    size_t nycls;
    int32_t *orule, *ocls;
    unsigned char *ostate; /* INCR_FREE, INCR_HELD, INCR_ADMITTED */
};

/* Seconds since *a (CLOCK_MONOTONIC), and the CPU time of the process (user
 * and system, every thread). */
double crfp_train_elapsed(const struct timespec *a);
double crfp_train_cpu(void);

/* Run stage k of the chain on the current model and training data, the
 * model's weights as the starting point and the result; `mask` (NULL: all)
 * holds observations back.  The monitor reports each iteration; dev-keep
 * puts the best iterate back.  Returns CRFP_OK, CRFP_EINTR (the last or
 * kept iterate in place), or the trainer's error, wrapped. */
crfp_status crfp_train_run_stage(crfp_trainrun *r, size_t k, const uint64_t *mask);

/* Save the current model to `path` with its metadata (label, trainers,
 * penalties, the iteration it holds); rank 0 alone in a job.  Errors: those
 * of crfp_crf_save. */
crfp_status crfp_train_save(crfp_trainrun *r, const char *path, const char *trainers);

/* Run the chain's stages in turn on the current model and data, each after
 * the first on its predecessor's solution shrunk to its active features;
 * `mask` (taken; NULL: none) holds observations of the first stage back.
 * With `save_between`, an intermediate stage that sets its own model saves
 * it.  *tst gets CRFP_OK or CRFP_EINTR (the chain stops there).  Returns
 * CRFP_OK, or the error of a stage (also in *tst), of shrinking or of
 * saving. */
crfp_status crfp_train_run_chain(crfp_trainrun *r, uint64_t *mask, int save_between,
                                 crfp_status *tst);

/* seen.c.  With all-states or all-transitions false, *mask (caller frees)
 * gets the weights of label pairs the training data shows (unigram: a label
 * on a token with the observation; bigram: a label after another, no start
 * weights), the marks of a job's ranks combined, and the others are zeroed
 * in the model's weights; NULL when both are true.  Errors: CRFP_ENOMEM,
 * CRFP_EINVAL (256 ranks or more), a job's. */
crfp_status crfp_train_seen_mask(crfp_trainrun *r, uint64_t **mask);
/* A boolean parameter of the run, true unless set otherwise. */
int crfp_train_param_true(const crfp_trainrun *r, const char *name);

/* Classify the observations of the finalized model by the extractor's
 * prerequisites (#!after); *held gets how many are held back.  Errors:
 * CRFP_ENOMEM. */
crfp_status crfp_train_incr_setup(crfp_trainrun *r, size_t *held);

/* Free the run's model, training and dev data and put these (taken) in
 * their place: ids changed (a shrunk model, a frequency cut-off). */
void crfp_train_replace(crfp_trainrun *r, crfp_crf *crf, crfp_dataset *train, crfp_dataset *dev);
/* minfreq.c.  The run's min-freq (*given says whether it was set; unset:
 * 1, every observation).  min_freq_cuts: also whether the cut counts the
 * way CRFsuite does, per label, for unigram (by_label[0]: all-states
 * false) and bigram observations (by_label[1]: all-transitions false), and
 * whether the cut before the layout can drop anything.  frequent: the
 * observations of `ds` (nobs in its model) seen at min-freq positions or
 * more -- counted per label's bound where by_label says so (see the top of
 * minfreq.c) -- and the first `always` ones, as a bitset in *keep (caller
 * frees; *nkept of them), the counts summed over a job's ranks when
 * `collective` (every rank must then call).  cut_rare: the cut itself,
 * which replaces the run's model (not yet finalized), training and dev
 * data by their restriction to those observations, a warm start's all
 * kept.  Errors: CRFP_ENOMEM, a job's. */
double crfp_train_min_freq(const crfp_trainrun *r, int *given);
int crfp_train_min_freq_cuts(const crfp_trainrun *r, double *minfreq, int *by_label);
crfp_status crfp_train_frequent(crfp_host *host, const crfp_dataset *ds, uint32_t nobs,
                                double minfreq, const int *by_label, uint32_t always,
                                int collective, uint64_t **keep, size_t *nkept);
crfp_status crfp_train_cut_rare(crfp_trainrun *r);
/* path.c.  Whether a rho1-path `spec` can run with these stages (before any
 * data is read); then the path itself (see crfp_train_finish). */
crfp_status crfp_train_check_path(crfp_host *host, const crfp_train_stage *stages, size_t n,
                                  const char *spec);
crfp_status crfp_train_run_path(crfp_trainrun *r, const char *spec, const char *trainers,
                                const struct timespec *tall);

/* cv.c.  The cv-folds value of a run (0: none); whether it can run with
 * these stages (before any data is read); then the folds and, when MODEL
 * is given, the training on all the data (see crfp_train_finish). */
int64_t crfp_train_cv_folds(const crfp_train_stage *stages, size_t n);
crfp_status crfp_train_check_cv(crfp_host *host, const crfp_train_stage *stages, size_t n);
crfp_status crfp_train_run_cv(crfp_trainrun *r, const char *trainers,
                              const struct timespec *tall);

#endif
