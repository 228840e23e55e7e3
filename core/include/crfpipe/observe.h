/* crfpipe — observers: how an application follows a long run.
 *
 * An application registers callbacks on its host to draw progress bars,
 * collect training curves for a report, or forward iterations to another
 * language; the library calls them at fixed points and otherwise ignores
 * them.  An observer only reads what it is given, may not keep the
 * pointers past the call, and must not call back into the run (no
 * crfp_error, no pipeline calls).  It runs on the thread that reached the
 * point, so it must be quick: training waits for it.
 */
#ifndef CRFPIPE_OBSERVE_H
#define CRFPIPE_OBSERVE_H

#include <stddef.h>
#include "crfpipe/status.h"
#include "crfpipe/document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One training iteration (an epoch for online trainers), as the host's
 * training monitor saw it.  `size` is sizeof the struct the library was
 * built with: members are only added at the end, so an observer compiled
 * against an older header reads a prefix. */
typedef struct crfp_train_iter {
    size_t size;
    const char *trainer;   /* plugin name of the stage running */
    size_t stage, nstages; /* 0-based stage of the chain, and its length */
    int iter;              /* 1-based, within the stage */
    double objective;      /* as the trainer reported it (ℓ1 included) */
    double step;           /* step length or learning rate */
    int nevals;            /* objective evaluations in the iteration */
    size_t active;         /* non-zero weights after the iteration */
    size_t nparams;        /* weights of the model being trained (a chain
                            * shrinks it between stages) */
    double dev_error;      /* token error rate on the dev set, 0..1; NaN
                            * when there is no dev set */
    double dev_seq_error;  /* sentence error rate on the dev set; NaN */
    double train_error;    /* token error rate on the training set, NaN
                            * unless the train-error parameter is on */
    double seconds;        /* since this stage started training */
    /* added for regularisation paths and error-against-time plots: */
    double monitor_seconds; /* of `seconds`, the time the host's monitor
                             * spent scoring the dev (and training) set:
                             * seconds - monitor_seconds is training time */
    double rho1;           /* the l1 weight this stage trains with */
    size_t point, npoints; /* 0-based point of a regularisation path, and
                            * its length (1 without a path) */
    double cpu_seconds;    /* CPU time of the process (user + system, every
                            * thread) since this stage started, less the
                            * monitor's scoring: training CPU time */
    /* added for cross-validation: */
    size_t fold, nfolds;   /* 0-based fold being trained, and how many
                            * (nfolds 0 without a cross-validation); the
                            * training on all the data that may follow the
                            * folds has fold == nfolds */
} crfp_train_iter;

typedef void (*crfp_train_observer)(void *ud, const crfp_train_iter *it);

/* Call fn(ud, it) at the end of every training iteration, after the
 * progress line (whatever the verbosity).  fn NULL removes it.  One
 * observer per host; ud is the caller's.  The setters below all ignore a
 * NULL host, keep fn and ud (not copied) until replaced, and cannot fail. */
void crfp_host_set_train_observer(crfp_host *host, crfp_train_observer fn, void *ud);

/* One point of a regularisation path (the common trainer parameter
 * rho1-path): the model trained with `rho1`, warm-started from the
 * previous point's solution, has been written to `model`.  Same `size`
 * rule as crfp_train_iter. */
typedef struct crfp_train_point {
    size_t size;
    size_t index, npoints;  /* 0-based point, and the path's length */
    double rho1;
    int iterations;         /* of this point alone */
    double objective;       /* final objective (l1 and l2 terms included) */
    size_t active;          /* non-zero weights of the model written */
    size_t nparams;
    double dev_error;       /* token error rate of that model on the dev
                             * set, 0..1; NaN without a dev set */
    double dev_seq_error;   /* sentence error rate; NaN without one */
    double seconds;         /* wall-clock time of this point (training,
                             * monitoring and saving) */
    double cpu_seconds;     /* CPU time of the process (user + system,
                             * every thread) over the same span */
    const char *model;      /* the file written */
    int interrupted;        /* training stopped by a signal: the path ends
                             * after this point */
} crfp_train_point;

typedef void (*crfp_path_observer)(void *ud, const crfp_train_point *pt);

/* Call fn(ud, pt) after every point of a regularisation path, once its
 * model is written.  fn NULL removes it.  One observer per host; ud is
 * the caller's.  Same rules as the training observer. */
void crfp_host_set_path_observer(crfp_host *host, crfp_path_observer fn, void *ud);

/* For training drivers: report a point (pt->size must be set).  Does
 * nothing without an observer, or for a NULL host or pt. */
void crfp_host_observe_point(crfp_host *host, const crfp_train_point *pt);

/* One fold of a cross-validation (the common trainer parameter cv-folds):
 * a model trained from the starting weights on every other fold has been
 * scored on this fold, which it never saw.  Same `size` rule as
 * crfp_train_iter. */
typedef struct crfp_train_fold {
    size_t size;
    size_t index, nfolds;   /* 0-based fold, and how many there are */
    size_t train_seqs;      /* sentences trained on (the other folds) */
    size_t heldout_seqs, heldout_tokens;
    int iterations;         /* of this fold's training */
    double objective;       /* its final objective */
    size_t active, nparams; /* non-zero weights of its model, of nparams */
    size_t token_errors, seq_errors; /* on the held-out fold */
    double seconds;         /* wall-clock time of the fold (training and
                             * scoring) */
    double cpu_seconds;     /* CPU time of the process over the same span */
    int interrupted;        /* training stopped by a signal: the fold's
                             * model is the last iterate reached, and no
                             * fold follows */
    int chunked;            /* the labels are chunk tags (O, B-x, I-x...):
                             * the chunk counts below are set, as conlleval
                             * counts them */
    size_t chunks_correct, chunks_gold, chunks_guessed;
} crfp_train_fold;

typedef void (*crfp_fold_observer)(void *ud, const crfp_train_fold *f);

/* Call fn(ud, f) after every fold of a cross-validation.  fn NULL removes
 * it.  One observer per host; ud is the caller's.  Same rules as the
 * training observer. */
void crfp_host_set_fold_observer(crfp_host *host, crfp_fold_observer fn, void *ud);

/* For training drivers: report a fold (f->size must be set).  Does nothing
 * without an observer, or for a NULL host or f. */
void crfp_host_observe_fold(crfp_host *host, const crfp_train_fold *f);

/* Called once per document that has been through every stage of a
 * pipeline run (after the writer wrote it, or the trainer took it), one
 * call at a time and in input order.  `doc` is only valid during the call. */
typedef void (*crfp_doc_observer)(void *ud, const crfp_doc *doc);

/* Register (fn NULL: remove) the document observer of `host`. */
void crfp_host_set_doc_observer(crfp_host *host, crfp_doc_observer fn, void *ud);

/* For pipeline runners (the library's own and an application's): report
 * that `doc` is done.  Does nothing when no observer is registered (or for a
 * NULL host or doc). */
void crfp_host_observe_doc(crfp_host *host, const crfp_doc *doc);

/* For training drivers: report an iteration (it->size must be set).  Does
 * nothing without an observer, or for a NULL host or it. */
void crfp_host_observe_iter(crfp_host *host, const crfp_train_iter *it);

/* Number of Token annotations of the annotation set `set` ("" = default;
 * NULL is the default too) of doc: what progress displays count.  0 when
 * the set does not exist; cannot fail. */
size_t crfp_doc_count_tokens(const crfp_doc *doc, const char *set);

#ifdef __cplusplus
}
#endif
#endif
