/* sgd_l1 plugin — internal interface, shared by the module and its tests.
 *
 * Two layers:
 *  - sgd_lazy (lazy.c): the parameter vector under SGD with the cumulative
 *    ℓ1 penalty of Tsuruoka, Tsujii & Ananiadou (2009) and an exact lazy
 *    ℓ2 decay, updated one block at a time.  Pure numerics, no training
 *    set: the tests compare it with a dense reference.
 *  - sgd_run (train.c): epochs, learning-rate schedule, calibration of
 *    eta0, stopping, on top of a crfp_trainset.
 *
 * Steps follow one another.  A step of several sequences is spread over the
 * training set's thread team (parstep.c): the members catch up disjoint
 * blocks, take the gradients of disjoint sequences in workspaces of their
 * own, and update disjoint blocks, so no two members ever write the same
 * weight.  The result depends on the team size only through the order in
 * which the members' gradients are summed (rounding).
 */
#ifndef SGD_IMPL_H
#define SGD_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/crfpipe.h"
#include "crfpipe/trainset.h"

/* --- lazy elastic-net bookkeeping (lazy.c) ----------------------------------
 *
 * The dense algorithm this implements, per step t with learning rate eta_t
 * over a minibatch of n of the N sequences, for EVERY coordinate k:
 *     a_t = 1 - eta_t·rho2·n/N               (ℓ2 decay factor)
 *     c_t = eta_t·rho1·n/N                   (ℓ1 penalty of the step)
 *     θ_k ← a_t·θ_k − eta_t·g_k              (g: minibatch loss gradient)
 *     q_k ← a_t·q_k,  u ← a_t·u + c_t
 *     clip(θ_k, q_k, u)                      (Tsuruoka's rule, below)
 * where u is the total ℓ1 penalty a weight could have received so far and
 * q_k the penalty θ_k actually received (signed):
 *     θ > 0:  θ' = max(0, θ − (u + q)),   q += θ' − θ
 *     θ < 0:  θ' = min(0, θ + (u − q)),   q += θ' − θ
 * The decay also shrinks u and q: the "debt" u ± q of a clipped weight is a
 * weight-sized quantity, so it decays with the weights (without this the
 * rule would not be positively homogeneous and no lazy form would be
 * exact).  With rho2 = 0 this is exactly Tsuruoka's algorithm.
 *
 * Lazy form.  Write θ = P·w with P = Π a_s (a global scalar) and measure
 * penalties in w units: U = Σ_s c_s / P_s.  In w units the ℓ2 decay
 * disappears and the clip is the pure-ℓ1 rule with u = U, whose
 * composition over steps where g_k = 0 is a single clip with the latest U
 * (a clipped weight stays at 0; an unclipped one has q = ∓U, no debt).  So
 * a block not touched since step t1 is brought to step t by scaling θ and q
 * by P_t / P_t1 and clipping once with u = P_t·U_t: exact up to rounding.
 * Each block remembers P at its last update (pref, one double per block —
 * blocks are observations, far fewer than weights).  θ itself is stored in
 * true units for up-to-date blocks, so the engine can compute gradients on
 * it; stale blocks are only read after being caught up.
 *
 * Memory: θ (the caller's) + q (dim doubles) + pref (nblocks doubles).
 */
typedef struct sgd_lazy {
    size_t dim, nblocks;
    const uint64_t *block_start; /* nblocks + 1, not owned */
    double *theta;               /* dim, the caller's */
    double *q;                   /* dim, owned: applied ℓ1 penalty, θ units */
    double *pref;                /* nblocks, owned; NULL when rho2 = 0 (P ≡ 1) */
    double P;                    /* Π a_s since the last fold */
    double U;                    /* Σ c_s / P_s, the cumulative penalty in w units */
    int l1, l2;                  /* rho1 > 0, rho2 > 0 */
} sgd_lazy;

/* Set up bookkeeping for theta (dim weights in nblocks blocks): q = 0 (no
 * penalty applied yet, so a warm start carries no debt), P = 1, U = 0.
 * Errors: CRFP_ENOMEM.  Free with sgd_lazy_free. */
crfp_status sgd_lazy_init(sgd_lazy *lz, size_t dim, size_t nblocks,
                          const uint64_t *block_start, double *theta, int l1, int l2);
void sgd_lazy_free(sgd_lazy *lz); /* NULL and zeroed structs accepted */

/* Advance the global state by one step: P ← a·P, U += c / P.  a in (0, 1],
 * c >= 0 (the caller checks). */
void sgd_lazy_advance(sgd_lazy *lz, double a, double c);

/* Bring block b up to the current step; with g (block length, the loss
 * gradient at the block's values as of the previous step) also take the
 * gradient step -eta·g between the decay and the clip.  Calling it without
 * g on an up-to-date block changes nothing. */
void sgd_lazy_block(sgd_lazy *lz, uint32_t b, double eta, const double *g);

/* The current values of block b, as the dense algorithm would have them,
 * into out (block length) without updating anything (for tests). */
void sgd_lazy_peek(const sgd_lazy *lz, uint32_t b, double *out);

/* Bring every block up to date and start a new frame (P = 1), so that
 * theta holds the exact iterate; *l1 = ‖θ‖₁ and *l2 = ‖θ‖², *nnz the
 * non-zeros (each may be NULL).  O(dim). */
void sgd_lazy_fold(sgd_lazy *lz, double *l1, double *l2, size_t *nnz);

/* --- training (train.c) ------------------------------------------------------ */

typedef struct sgd_opts {
    double eta0;         /* > 0: fixed; 0: calibrated on a sample */
    double decay;        /* alpha in eta_t = eta0 / (1 + t/N)^alpha, t in sequences */
    size_t batch;        /* sequences per step */
    uint64_t seed;       /* shuffles and the calibration sample */
    int max_epochs;      /* > 0 */
    double epsilon;      /* relative objective decrease over `window` epochs; 0: off */
    int window;          /* >= 1 */
    size_t calib_sample; /* sequences in the calibration sample */
    double calib_factor; /* eta0 = best calibrated rate × this */
} sgd_opts;

void sgd_opts_default(sgd_opts *o);

typedef struct sgd_par sgd_par;

/* The per-run state; the tests drive it step by step. */
typedef struct sgd_run {
    crfp_host *host;
    const crfp_trainset *ts;
    crfp_tsws *ws;
    sgd_lazy lz;
    double rho1, rho2;
    double N;            /* sequences, as a double for the penalty shares */
    sgd_par *par;        /* steps spread over ts->team (parstep.c); NULL until the
                          * first step of several sequences on a team of several */
} sgd_run;

/* Prepare a run on ts over theta (owned by the caller, dim entries): checks
 * the capabilities (CRFP_EINVAL naming what is missing, as the host does),
 * the penalties (CRFP_EINVAL for negative or non-finite ones), allocates
 * the workspace and the lazy state (CRFP_ENOMEM).  Free with
 * sgd_run_free. */
crfp_status sgd_run_init(sgd_run *r, crfp_host *host, const crfp_trainset *ts, double *theta);
void sgd_run_free(sgd_run *r);

/* One SGD step on the n sequences idx[0..n) with rate eta: catches up the
 * blocks they touch, takes the gradient there, advances the penalties and
 * updates those blocks.  *loss += the minibatch loss before the step.
 * Errors: the training set's; CRFP_EINVAL when eta·rho2·n/N >= 1 (the
 * decay would flip signs: the rate is too large). */
crfp_status sgd_step(sgd_run *r, const size_t *idx, size_t n, double eta, double *loss);

/* --- steps across the team (parstep.c) ----------------------------------------- */

/* Set up r->par for ts->team when it has more than one member (otherwise
 * r->par stays NULL): a workspace per member besides r->ws, and two
 * 32-bit words per block for the union of a step's blocks.  Errors:
 * CRFP_ENOMEM (with a message). */
crfp_status sgd_par_init(sgd_run *r);
void sgd_par_free(sgd_par *p); /* NULL accepted */

/* The body of sgd_step for n >= 2 sequences on r->par, with the step's
 * decay factor a and ℓ1 increment c already checked: the same arithmetic
 * as the single-threaded step.  Errors: the training set's. */
crfp_status sgd_par_step(sgd_run *r, const size_t *idx, size_t n, double eta, double a,
                         double c, double *loss);

/* Choose eta0 as crfsgd does: one pass over a sample per candidate rate,
 * keep the one with the lowest sample objective.  theta and the lazy state
 * are left as they were.  Errors: CRFP_ENOMEM, the training set's. */
crfp_status sgd_calibrate(sgd_run *r, const sgd_opts *o, double *eta0);

/* The whole optimisation (theta holds the start and receives the result,
 * also on CRFP_EINTR, when it is the last completed epoch). */
crfp_status sgd_train(crfp_host *host, const sgd_opts *o, const crfp_trainset *ts,
                      double *theta);

#endif
