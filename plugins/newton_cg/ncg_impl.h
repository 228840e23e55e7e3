/* newton_cg plugin — internal interfaces of the truncated Newton optimizer,
 * shared by the plugin glue (newton_cg.c) and the unit tests, which compile
 * these sources directly.
 */
#ifndef CRFP_NCG_IMPL_H
#define CRFP_NCG_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/plugin.h"
#include "crfpipe/team.h"
#include "crfpipe/trainset.h"

/* The twice-differentiable objective the optimizer works on: F and ∇F
 * (ℓ2 term included), products with ∇²F, and the end-of-iteration report.
 * The plugin glue builds it from a crfp_trainset; the tests from synthetic
 * problems. */
typedef struct ncg_objective {
    size_t dim;
    void *ud;
    /* F(θ) and ∇F(θ) (g: dim entries, overwritten). */
    crfp_status (*eval)(void *ud, const double *theta, double *f, double *g);
    /* hv = ∇²F(θ) v (dim entries, overwritten; v and hv do not alias). */
    crfp_status (*hessvec)(void *ud, const double *theta, const double *v, double *hv);
    /* d = a positive approximation of the diagonal of ∇²F(θ), for the
     * preconditioner (may be NULL: no preconditioning). */
    crfp_status (*hessdiag)(void *ud, const double *theta, double *d);
    /* Subsample the products and diagonals that follow (fraction of the
     * data, seed); may be NULL when opts->sample >= 1. */
    crfp_status (*sample)(void *ud, double fraction, uint64_t seed);
    /* End of an iteration (may be NULL): sets *stop to end; CRFP_EINTR
     * when interrupted. */
    crfp_status (*iteration)(void *ud, const crfp_iter_info *info, const double *theta,
                             int *stop);
} ncg_objective;

typedef struct ncg_opts {
    double epsilon;    /* relative decrease of F over `window` iterations */
    int window;        /* iterations the decrease is measured over */
    double gtol;       /* stop when ‖∇F‖ <= gtol·max(1, ‖θ‖); 0 disables */
    int64_t max_iter;  /* outer iterations, 0 = unlimited */
    int max_cg;        /* CG iterations per Newton system */
    double forcing;    /* CG stops at ‖r‖ <= η_k ‖g‖, η_k = min(forcing, sqrt(‖g‖/‖g_0‖)) */
    int precond;       /* diagonal preconditioner (when obj->hessdiag is set) */
    int mnorm;         /* trust region in the preconditioner's norm (else Euclidean) */
    int line;          /* line search instead of the trust region */
    double sample;     /* fraction of the data the Hessian is estimated on, per iteration */
    int diag_every;    /* with a sample: iterations between refreshes of the full diagonal */
    crfp_team *team;   /* the vector loops' team (NULL = serial) */
} ncg_opts;

/* Fill `o` with the documented defaults (same as the plugin's). */
void ncg_opts_default(ncg_opts *o);

/* CRFP_EINVAL naming the offending option when one is out of range. */
crfp_status ncg_opts_check(crfp_host *host, const ncg_opts *o);

/* Minimise F from the point in theta (dim entries, caller-owned), leaving
 * the best point found in theta.  Returns CRFP_OK when a stopping rule was
 * met, when the iteration callback set *stop, or when no further decrease
 * can be found (logged); CRFP_EINTR when interrupted (theta = last accepted
 * iterate); CRFP_ENOMEM (message recorded); CRFP_EINVAL for bad options or
 * a non-finite objective at the start; any status of obj->eval,
 * obj->hessvec or obj->iteration (theta = last accepted iterate).
 * Memory: five vectors of dim doubles besides theta, six with the
 * preconditioner, seven with a sample. */
crfp_status ncg_minimize(crfp_host *host, const ncg_opts *opts, const ncg_objective *obj,
                         double *theta);

/* --- vector loops on the team (ncg_vec.c) --------------------------------
 * Each splits [0, n) into the team's fixed slices and adds partial sums in
 * member order, so results depend on the team size only.  `v` may be NULL
 * (serial).  No allocation after ncg_vec_new, no failure. */
typedef struct ncg_vec ncg_vec;
/* NULL for a NULL or one-member team, or when out of memory (serial). */
ncg_vec *ncg_vec_new(crfp_team *team);
void ncg_vec_free(ncg_vec *v);

double ncg_dot(ncg_vec *v, size_t n, const double *x, const double *y);
/* Σ m_i x_i y_i (m NULL: x'y). */
double ncg_wdot(ncg_vec *v, size_t n, const double *m, const double *x, const double *y);
/* The preconditioned CG's fused passes, M = diag(m) (m NULL: identity),
 * the trust region's norm ‖x‖_W² = Σ w x² (w NULL: Euclidean). */
/* z += a·d; r -= a·hd; out = {r'r, r'M⁻¹r, 0}. */
void ncg_cg_step(ncg_vec *v, size_t n, const double *m, double a, const double *d,
                 const double *hd, double *z, double *r, double out[3]);
/* d = M⁻¹r + b·d; out = {d'Wd, z'Wd, 0}. */
void ncg_cg_dir(ncg_vec *v, size_t n, const double *m, const double *w, double b,
                const double *r, const double *z, double *d, double out[3]);
/* r = -g, d = -M⁻¹g; out = {g'g, g'M⁻¹g, d'Wd}. */
void ncg_neg(ncg_vec *v, size_t n, const double *m, const double *w, const double *g, double *d,
             double *r, double out[3]);
/* keep = x; x += s. */
void ncg_step(ncg_vec *v, size_t n, const double *s, double *x, double *keep);
/* hd += c∘d (c NULL: nothing); returns d'hd. */
double ncg_diag_dot(ncg_vec *v, size_t n, const double *c, const double *d, double *hd);
/* x = base + a·s. */
void ncg_from(ncg_vec *v, size_t n, const double *base, double a, const double *s, double *x);

#endif
