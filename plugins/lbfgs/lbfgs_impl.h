/* lbfgs plugin — internal interfaces of the optimizer, shared by the plugin
 * glue (lbfgs.c) and the unit tests, which compile these sources directly.
 */
#ifndef CRFP_LBFGS_IMPL_H
#define CRFP_LBFGS_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/plugin.h"
#include "crfpipe/trainset.h"
#include "vpool.h"

/* The differentiable objective the minimizer works on: f and ∇f of the
 * smooth part, the ℓ1 weight it handles itself, and the end-of-iteration
 * report.  The plugin glue builds it from a crfp_trainset; the unit tests
 * from synthetic problems. */
typedef struct lbfgs_objective {
    size_t dim;
    double rho1, rho2;
    void *ud;
    /* f(θ) and ∇f(θ) (g has dim entries; overwritten). */
    crfp_status (*eval)(void *ud, const double *theta, double *f, double *g);
    /* End of an iteration (may be NULL): sets *stop to end; CRFP_EINTR
     * when interrupted. */
    crfp_status (*iteration)(void *ud, const crfp_iter_info *info, const double *theta,
                             int *stop);
    /* Sharded (a distributed run; absent when eval_shard is NULL): the
     * minimizer keeps and updates only [lo, hi) of its vectors, sums its
     * products over the shards with `sum`, evaluates with eval_shard, which
     * takes θ's slice and returns θ whole, F whole and g's slice, and
     * makes vectors whole with `gather` (trainset.h: shard, batch_shard,
     * gather, mix).  All three collective; errors returned as they come.
     * xbuf (may be NULL): a whole vector the shards share, taken as the
     * iterate (each shard writes its slice; see trainset.h's `shard`). */
    size_t lo, hi;
    double *xbuf;
    crfp_status (*eval_shard)(void *ud, double *theta, double *f, double *g);
    crfp_status (*sum)(void *ud, double *v, size_t n);
    crfp_status (*gather)(void *ud, void *v, size_t width);
} lbfgs_objective;

/* f and ∇f at x through eval or eval_shard. */
static inline crfp_status lbfgs_eval(const lbfgs_objective *obj, double *x, double *f, double *g)
{
    return obj->eval_shard ? obj->eval_shard(obj->ud, x, f, g) : obj->eval(obj->ud, x, f, g);
}

/* --- options ------------------------------------------------------------ */
typedef struct lbfgs_opts {
    int m;             /* correction pairs kept (history) */
    double epsilon;    /* relative decrease of F over `window` iterations */
    int window;        /* iterations the decrease is measured over */
    int max_ls;        /* trial points per line search */
    int64_t max_iter;  /* 0 = unlimited */
    double gtol;       /* stop when ‖pg‖ <= gtol·max(1, ‖θ‖); 0 disables */
    crfp_team *team;   /* the vector loops' team (NULL = serial) */
} lbfgs_opts;

/* Fill `o` with the documented defaults (same as the plugin's). */
void lbfgs_opts_default(lbfgs_opts *o);

/* CRFP_EINVAL naming the offending option when one is out of range. */
crfp_status lbfgs_opts_check(crfp_host *host, const lbfgs_opts *o);

/* Minimise F(θ) = f(θ) + obj->rho1‖θ‖₁ from the point in theta (dim
 * entries, caller-owned), leaving the best point found in theta.
 * Returns CRFP_OK when a stopping criterion was met, when the iteration
 * callback set *stop, or when no further decrease could be found (a
 * warning is logged); CRFP_EINTR when interrupted (theta = last accepted
 * iterate); CRFP_ENOMEM; CRFP_EINVAL for a non-finite objective at the
 * start or bad options; any status returned by obj->eval or
 * obj->iteration (theta = last accepted iterate). */
crfp_status lbfgs_minimize(crfp_host *host, const lbfgs_opts *opts, const lbfgs_objective *obj,
                           double *theta);
/* The same with checkpoints (ck may be NULL: lbfgs_minimize): resumes from
 * ck->state when set (theta then holds the saved iterate; the state must
 * come from a run with the same dimension, history, window and rho1, else
 * CRFP_EFORMAT naming them) and offers the state to ck->save after each
 * iteration ck->due accepts.  Errors: those of lbfgs_minimize and of
 * ck->save; CRFP_ENOMEM. */
crfp_status lbfgs_minimize_ckpt(crfp_host *host, const lbfgs_opts *opts,
                                const lbfgs_objective *obj, double *theta,
                                const crfp_train_ckpt *ck);

/* --- correction-pair memory (twoloop.c) ---------------------------------
 * A ring of m pairs (s, y) in single precision, and in double the point the
 * line search starts from (θ_prev, ∇f_prev).
 *
 * Why single precision: the pairs are 2m of the optimizer's 2m + 4 vectors
 * (m = 5 with CoNLL-2000's 7.4M weights: 10 vectors, 596 MB in double of
 * the 775 MB that θ and the optimizer took), and they
 * only shape the search direction.  Differences are taken in double and
 * rounded once when stored; every product of the recursion is accumulated
 * in double from the stored values, and ρ, γ are computed from those same
 * values, so H is the exact BFGS matrix of slightly perturbed pairs:
 * positive definite, any direction it gives is checked for descent, and the
 * optimum, where ∇f = 0, does not depend on it.  θ, ∇f, θ_prev and
 * ∇f_prev stay in double: the iterates and the line search are exact. */
typedef struct lbfgs_mem {
    size_t n;
    int m, count, head; /* head: the slot the next pair goes to */
    float **s, **y;     /* m vectors of n each */
    double *xs, *gs;    /* θ_prev and ∇f_prev during the line search */
    double *rho;        /* 1 / s'y per slot */
    double *alpha;      /* two-loop coefficients, m */
    double gamma;       /* s'y / y'y of the newest pair */
    double sd;          /* s'd of the newest pair and the current d, when valid */
    int sd_valid;       /* set by lbfgs_mem_commit, cleared by any other change */
    vpool *pool;        /* borrowed; NULL = serial */
} lbfgs_mem;

/* Allocate 2m vectors of n floats and 2 of n doubles (CRFP_ENOMEM on
 * failure, message in host).  Free with lbfgs_mem_free(), which accepts a
 * zeroed struct. */
crfp_status lbfgs_mem_init(crfp_host *host, lbfgs_mem *mem, size_t n, int m);
void lbfgs_mem_free(lbfgs_mem *mem);
/* Forget every pair. */
void lbfgs_mem_reset(lbfgs_mem *mem);
/* Evict the oldest pair when the ring is full, so that at most m - 1 pairs
 * are kept while the line search runs (the same history as when the
 * scratch point lived in the ring's free slot).  Returns the slot the next
 * pair goes to. */
int lbfgs_mem_reserve(lbfgs_mem *mem);
/* xs, gs hold θ_prev and ∇f_prev: store the pair (x - θ_prev,
 * g - ∇f_prev), keep it when the curvature condition holds,
 * and set d = -pg(x, g) in the same pass (*pg2 = ‖pg‖², *x2 = ‖x‖²).
 * Returns 1 when kept, 0 when skipped. */
int lbfgs_mem_commit(lbfgs_mem *mem, const double *x, const double *g, double rho1, double *d,
                     double *pg2, double *x2);
/* d := H·d, H the L-BFGS inverse-Hessian approximation (identity when no
 * pair is stored). */
void lbfgs_twoloop(lbfgs_mem *mem, double *d);

/* --- pseudo-gradient and orthants (owlqn.c) -----------------------------
 * With rho1 = 0 these reduce to the plain gradient and no projection. */

/* d = -pg(x, g); *pg2 = ‖pg‖², *x2 = ‖x‖². */
void owlqn_steepest(vpool *pool, size_t n, const double *x, const double *g, double rho1, double *d,
                    double *pg2, double *x2);
/* Zero the components of d whose sign disagrees with -pg (only when
 * rho1 > 0), copy x → xs and g → gs, and return pg'd. */
double owlqn_constrain_save(vpool *pool, size_t n, const double *x, const double *g, double rho1,
                            double *d, double *xs, double *gs);
/* x = π(x0 + a·d) onto the orthant of x0 (sign(x0), or sign(-pg0) where
 * x0 = 0); *dd = pg0'(x - x0), *l1 = ‖x‖₁.  g0 = ∇f(x0), dd0 = pg0'd. */
void owlqn_trial(vpool *pool, size_t n, const double *x0, const double *g0, const double *d,
                 double dd0, double a, double rho1, double *x, double *dd, double *l1);
/* After an accepted step: store the pair s = x - x0, y = g - g0 rounded to
 * float and set d = -pg(x, g), in one pass.  out = {s'y, y'y, ‖pg‖², ‖x‖²,
 * s'd}, of the rounded pair. */
void owlqn_pair_steepest(vpool *pool, size_t n, const double *x, const double *g, double rho1,
                         const double *x0, const double *g0, float *s, float *y, double *d,
                         double out[5]);

/* --- line search (linesearch.c) ----------------------------------------- */
typedef struct lbfgs_ls {
    /* in */
    const double *x0, *g0; /* accepted point and its ∇f (lbfgs_mem's xs, gs) */
    double F0;             /* F(x0) */
    const double *d;       /* descent direction */
    double dd0;            /* pg0'd < 0 */
    double a0;             /* first trial step */
    vpool *pool;           /* borrowed; NULL = serial */
    /* out */
    double f, F, step;
    int nevals;
    int found;
    int flat; /* gave up because F cannot change measurably any more */
} lbfgs_ls;

/* Backtracking (safeguarded quadratic interpolation) until the Armijo
 * condition holds; a trial with F >= F0 is never accepted.  Gives up
 * (found = 0) after opts->max_ls evaluations, or at once (flat = 1) when
 * the predicted decrease is below the rounding error of F.  On success (found = 1) x, g hold the new
 * point and its gradient; otherwise they hold garbage and the caller
 * restores them from x0, g0.  Returns non-OK only for an eval failure or an
 * interrupt (CRFP_EINTR, message recorded). */
crfp_status lbfgs_linesearch(crfp_host *host, const lbfgs_objective *obj, const lbfgs_opts *opts,
                             lbfgs_ls *ls, double *x, double *g);

#endif
