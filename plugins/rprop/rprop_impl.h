/* rprop plugin — internal interface of the RPROP loop (rprop_train.c), which
 * the unit tests (tests/rprop/) drive directly. */
#ifndef RPROP_IMPL_H
#define RPROP_IMPL_H

#include <stddef.h>
#include "crfpipe/crfpipe.h"
#include "crfpipe/trainset.h"

typedef struct rprop_opts {
    int backtrack;    /* 1: rprop+ (a step whose gradient changed sign is undone), 0: rprop- */
    int cutoff;       /* l1 by Wapiti's alternative: a weight whose gradient lies within the
                       * penalty is set to 0 (0: the orthant-wise pseudo-gradient) */
    double step0;     /* every weight's first step */
    double stpmin, stpmax, stpinc, stpdec;
    double epsilon;   /* stop when F decreased by at most epsilon (relative) over window */
    int window;       /* iterations, >= 1 */
    long max_iter;    /* 0: no limit of its own */
} rprop_opts;

/* The defaults the plugin's parameter declarations spell out. */
void rprop_opts_default(rprop_opts *o);

/* Minimise the training set's objective (rho1 and rho2 included) from theta
 * (ts->dim entries), which receives the last iterate: also on CRFP_EINTR.
 * Borrowed: host (messages, may be NULL), ts, theta.  Errors: CRFP_EINVAL
 * (options, message in host), CRFP_ENOMEM, those of ts->batch and
 * ts->monitor. */
crfp_status rprop_train(crfp_host *host, const rprop_opts *o, const crfp_trainset *ts,
                        double *theta);

#endif
