/* bcd plugin — internal interface of the blockwise coordinate descent
 * trainer, shared by the module (bcd.c) and its tests, which compile
 * bcd_train.c directly.
 */
#ifndef CRFP_BCD_IMPL_H
#define CRFP_BCD_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/crfpipe.h"
#include "crfpipe/trainset.h"

typedef struct bcd_opts {
    uint32_t radius;    /* block statistics on windows of this radius (0 = exact) */
    int max_sweeps;     /* passes over the blocks */
    double epsilon;     /* stop when F decreased by at most epsilon (relative) over `window` sweeps */
    int window;
    double kappa0;      /* initial curvature multiplier of every block */
    int max_tries;      /* trials per block before its update is given up */
} bcd_opts;

/* The documented defaults (same as the plugin's). */
void bcd_opts_default(bcd_opts *o);

/* Minimise F(θ) = Σ_i loss_i + rho2/2‖θ‖² + rho1‖θ‖₁ of `ts` (needs BLOCKS;
 * with SEQUENCE the exact objective is reported after each sweep) by
 * sweeps of blockwise coordinate descent from the point in theta
 * (caller-owned, dim entries), which holds the result.  Memory: θ, one
 * float per block, block-sized buffers and the training set's workspace.
 * Returns CRFP_OK (a stopping rule, or the monitor asked to stop),
 * CRFP_EINTR (interrupted within a sweep: theta holds every block update
 * made so far, each of which decreased the objective), CRFP_ENOMEM,
 * CRFP_EINVAL (options, or a training set without what is needed), or a
 * status of the training set or the monitor. */
crfp_status bcd_train(crfp_host *host, const bcd_opts *o, const crfp_trainset *ts,
                      double *theta);

#endif
