/* perceptron plugin — internal interface of the training loop.
 *
 * perceptron.c turns the user's parameters into perc_opts and calls
 * perc_train; the loop itself lives in perc_train.c so that the unit tests
 * (tests/perceptron/) can compile it directly and drive it with options the
 * command line does not expose (the per-example hook).
 */
#ifndef PERC_IMPL_H
#define PERC_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/crfpipe.h"
#include "crfpipe/trainset.h"

typedef enum perc_variant {
    PERC_AVERAGED = 0, /* Collins (2002): step 1 on every mistake */
    PERC_PA = 1,       /* passive-aggressive PA-I (Crammer et al. 2006), Hamming cost */
    PERC_AROW = 2,     /* AROW (Crammer, Kulesza & Dredze 2009), diagonal, Hamming cost */
    PERC_MIRA = 3      /* CRF++'s MIRA: 1-best, each sequence's steps summed bounded by C,
                        * shrinking, stops when the constraints hold (its -a MIRA) */
} perc_variant;

typedef struct perc_opts {
    perc_variant variant;
    double C;        /* PA aggressiveness: the largest step τ; MIRA: the bound on the sum of a
                      * sequence's steps; > 0 */
    int shrink;      /* MIRA: a sequence right this many epochs in a row is skipped until
                      * the constraints hold (CRF++'s -H); >= 1 */
    double variance; /* AROW: the initial variance of every weight; > 0 */
    double gamma;    /* AROW: r, the regulariser of the confidence update; > 0 */
    int average;     /* 1: return the average of θ over all examples; 0: the last θ */
    int epochs;      /* passes over the training set; >= 1 */
    uint64_t seed;   /* seeds the per-epoch shuffle */
    int shuffle;     /* 0: visit the sequences in their stored order every epoch */
    /* Test hook (NULL in the plugin): called after every example with the
     * current, not averaged, weights w (dim entries, read-only, valid during
     * the call) — what a naive dense average would sum. */
    void (*on_example)(void *ud, const double *w, size_t dim);
    void *hook_ud;
} perc_opts;

/* The defaults the plugin's parameter declarations also spell out. */
void perc_opts_default(perc_opts *o);

/* Train on `ts` (which must offer CRFP_TS_DECODE) starting from the weights
 * in theta (dim = ts->dim).  On return theta holds the averaged weights
 * (o->average; otherwise the current ones) of the last completed epoch — also on CRFP_EINTR, and theta is left as given
 * if no epoch completed.  Borrowed: host (may be NULL: no messages, no
 * interrupt polling), ts, theta.  Errors: CRFP_EINVAL (bad options or a
 * training set without decoding, message in host), CRFP_ENOMEM, whatever the
 * training set's functions or the monitor return (CRFP_EINTR included). */
crfp_status perc_train(crfp_host *host, const perc_opts *o, const crfp_trainset *ts,
                       double *theta);

#endif
