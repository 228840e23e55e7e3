/* What the trainers' C tests share: a tiny random linear-chain CRF built
 * through the engine, the elastic-net objective on a training set, trainer
 * modules loaded from the build tree, and their parameters set from
 * name/value lists.  Each test compares a trainer against another on the
 * same problem, so the problem must be built the same way everywhere: one
 * generator, its shape given by a spec. */
#ifndef CRFP_TINYCRF_H
#define CRFP_TINYCRF_H

#include "config.h"
#include "crfpipe/crfpipe.h"

#include <stdint.h>

#include "testcheck.h"

/* In a test's main(), with a crfp_host *host in scope: on an error status
 * print file:line and the host's message, and fail the test. */
#define FAILIF(st)                                                                        \
    do {                                                                                  \
        if ((st) != CRFP_OK) {                                                            \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, crfp_errmsg(host));        \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

/* The shape of a problem.  Sequence lengths are minlen + [0, lenspan);
 * word w is drawn from nwords; its label is w % nlabels with probability
 * p_word, else the previous label's successor, so both the unigram and the
 * bigram weights matter.  Each position carries "w=W" (unigram), "s=S"
 * with S = W % (nlabels - 1) (unigram and bigram) and the constant bigram
 * "b"; rare words let ℓ1 zero some weights. */
typedef struct tinycrf_spec {
    uint64_t seed; /* xorshift64 state, non-zero */
    int nseq, nwords, nlabels; /* nlabels in 2..8 */
    size_t minlen, lenspan;    /* minlen + lenspan <= 16 */
    double p_word;
} tinycrf_spec;

/* A host (verbosity: warnings), a finalized crf and its dataset. */
typedef struct tinycrf {
    crfp_host *host;
    crfp_crf *crf;
    crfp_dataset *ds;
} tinycrf;

/* Build the problem described by spec into *t.  A failure is the test's
 * set-up failing: it prints the host's message and exits 99 (a hard error
 * for the test driver). */
void tinycrf_build(tinycrf *t, const tinycrf_spec *spec);

/* Free what tinycrf_build made (any member may be NULL). */
void tinycrf_free(tinycrf *t);

/* F(θ) = Σ loss + rho2/2‖θ‖² + rho1‖θ‖₁ on ts; g (ts->dim) receives the
 * smooth part's gradient.  NAN on an engine error. */
double tinycrf_objective(const crfp_trainset *ts, const double *theta, double *g);

/* Add CRFP_ABS_BUILDDIR/plugins/NAME to the host's search path and load the
 * trainer NAME; its vtable, or NULL with the message in the host. *pl
 * receives the plugin (owned by the host). */
const crfp_trainer_vtable *tinycrf_trainer(crfp_host *host, const char *name,
                                           const crfp_plugin **pl);

/* A fresh host (verbosity: warnings) with trainer NAME loaded from the build
 * tree (exits 99 when no host can be made, 1 when the module cannot be
 * loaded), and its descriptor checked: name, kind, ABI version, vtable size,
 * and each parameter of the NULL-terminated `params` declared with a
 * default and a help text.  Each problem is printed; *problems receives
 * their count (for the test's CHECK: failures are counted per translation
 * unit).  *host and *pl receive the host (the caller frees it) and the plugin
 * (owned by the host). */
const crfp_trainer_vtable *tinycrf_module(const char *name, const char *const *params,
                                          crfp_host **host, const crfp_plugin **pl,
                                          int *problems);

/* A training-set monitor (ts->monitor = tinycrf_monitor, monitor_ud = a
 * tinycrf_mon) recording whether iterations come one by one, each with at
 * least min_evals evaluations, and the objective never rises by more than
 * slack (relative).  Start from {0, INFINITY, 1, slack, min_evals}. */
typedef struct tinycrf_mon {
    int iters;
    double last;
    int monotone;
    double slack;
    int min_evals;
} tinycrf_mon;
crfp_status tinycrf_monitor(void *ud, const crfp_iter_info *info, const double *theta, int *stop);

/* A parameter set for plugin pl with the NULL-terminated name/value pairs
 * kv (may be NULL) applied.  A rejected value prints the host's message
 * and exits 1 (a broken test); out of memory exits 99.  Free with crfp_params_free. */
crfp_params *tinycrf_params(crfp_host *host, const crfp_plugin *pl, const char *const *kv);

#endif
