/* lbfgs plugin — internal interfaces of the optimizer, shared by the plugin
 * glue (lbfgs.c) and the unit tests, which compile these sources directly.
 */
#ifndef CRFP_LBFGS_IMPL_H
#define CRFP_LBFGS_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

/* --- correction-pair memory (history.c) ---------------------------------
 * A ring of m pairs (s, y) in half precision with a power-of-two scale per
 * vector, their Gram matrix, θ_prev in double, and ∇f_prev rounded to
 * float in the ring's free slot during the line search; history.c says
 * why.  The direction d is the caller's, in float. */
typedef struct lbfgs_mem {
    size_t n;
    int m, count, head; /* head: the free slot, where the next pair goes */
    uint16_t **s, **y;  /* m slots of n halves each */
    int *es, *ey;       /* per slot: a stored value is half · 2^e */
    double *G;          /* (2m)² inner products of the stored vectors, by
                         * slot: row 2k is s_k, row 2k + 1 is y_k */
    double *vs, *vy;    /* per slot: v's and v'y, v = -pg at the iterate */
    double *rho;        /* 1 / s'y per slot */
    double gamma;       /* s'y / y'y of the newest pair */
    double *x0;         /* θ_prev: where the line search starts */
    double *work;       /* coefficients of the recursion, 4m + 1 */
    int *order;         /* slots of the stored pairs, oldest first */
    double *out;        /* partial sums of the passes, LBFGS_NACC(m) */
    int hw;             /* convert halves with F16C */
    vpool *pool;        /* borrowed; NULL = serial */
} lbfgs_mem;

/* The Gram entry of stored vectors (slot a, u) and (slot b, w); u, w: 0 = s,
 * 1 = y. */
static inline double *lbfgs_mem_gram(const lbfgs_mem *mem, int a, int u, int b, int w)
{
    return &mem->G[(size_t)(2 * a + u) * 2 * (size_t)mem->m + (size_t)(2 * b + w)];
}

/* Partial sums the passes of a history of m pairs need (and so the
 * vpool's size). */
#define LBFGS_NACC(m) (7 + 6 * (size_t)(m))

/* ∇f_prev in the free slot: element j's float, its high 16 bits in hi[j]
 * and its low 16 in lo[j], so that element j of the new pair can replace
 * it in place. */
static inline float lbfgs_g0_get(const uint16_t *hi, const uint16_t *lo, size_t j)
{
    uint32_t b = (uint32_t)hi[j] << 16 | lo[j];
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
static inline void lbfgs_g0_put(uint16_t *hi, uint16_t *lo, size_t j, float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    hi[j] = (uint16_t)(b >> 16);
    lo[j] = (uint16_t)b;
}

/* Allocate 2m vectors of n halves and θ_prev (CRFP_ENOMEM on failure,
 * message in host).  Free with lbfgs_mem_free(), which accepts a zeroed
 * struct. */
crfp_status lbfgs_mem_init(crfp_host *host, lbfgs_mem *mem, size_t n, int m);
void lbfgs_mem_free(lbfgs_mem *mem);
/* Forget every pair. */
void lbfgs_mem_reset(lbfgs_mem *mem);
/* The slot of the i-th stored pair, 0 = oldest. */
int lbfgs_mem_slot(const lbfgs_mem *mem, int i);
/* d = H·(-pg(x, g)) in float, its components that disagree in sign with
 * -pg zeroed (rho1 > 0), H the L-BFGS inverse-Hessian approximation of the
 * stored pairs (identity when none); then evict the oldest pair when the
 * ring is full, and save x → x0 and ∇f, rounded, into the free slot, in the
 * same pass.  Returns pg'd.  Needs the products of -pg(x, g) with the
 * pairs, which lbfgs_mem_commit leaves (or no pair stored). */
double lbfgs_direction(lbfgs_mem *mem, const double *x, const double *g, double rho1, float *d);
/* After an accepted step from x0 to x: store the pair (x - x0, g - ∇f_prev)
 * in the free slot, keep it when the curvature condition holds, and take
 * the products of -pg(x, g) with the pairs kept (*pg2 = ‖pg‖², *x2 =
 * ‖x‖²).  Returns 1 when kept, 0 when skipped. */
int lbfgs_mem_commit(lbfgs_mem *mem, const double *x, const double *g, double rho1,
                     double *pg2, double *x2);
/* The i-th stored pair (0 = oldest), decoded into s and y (n each). */
void lbfgs_mem_pair(const lbfgs_mem *mem, int i, double *s, double *y);

/* --- pseudo-gradient and orthants (owlqn.c) -----------------------------
 * With rho1 = 0 these reduce to the plain gradient and no projection. */

/* Component of the pseudo-gradient of f + c‖·‖₁: the one-sided derivative
 * that points downhill, or 0 when neither side does. */
static inline double owlqn_pgrad(double x, double g, double c)
{
    if (x > 0)
        return g + c;
    if (x < 0)
        return g - c;
    if (g + c < 0)
        return g + c;
    if (g - c > 0)
        return g - c;
    return 0.0;
}

/* *pg2 = ‖pg(x, g)‖², *x2 = ‖x‖². */
void owlqn_norms(vpool *pool, size_t n, const double *x, const double *g, double rho1,
                 double *pg2, double *x2);
/* x = π(x0 + a·d) onto the orthant of x0 (sign(x0), or sign(-pg0) where
 * x0 = 0); *dd = pg0'(x - x0), *l1 = ‖x‖₁.  g0 = ∇f(x0) as lbfgs_g0_get
 * reads it, dd0 = pg0'd. */
void owlqn_trial(vpool *pool, size_t n, const double *x0, const uint16_t *g0hi,
                 const uint16_t *g0lo, const float *d, double dd0, double a, double rho1,
                 double *x, double *dd, double *l1);
/* ‖x‖₁. */
double owlqn_l1(vpool *pool, size_t n, const double *x);

/* --- line search (linesearch.c) ----------------------------------------- */
typedef struct lbfgs_ls {
    /* in */
    const double *x0;      /* accepted point (lbfgs_mem's x0) */
    const uint16_t *g0hi, *g0lo; /* its ∇f (lbfgs_g0_get) */
    double F0;             /* F(x0) */
    const float *d;        /* descent direction */
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
 * puts x0 back and evaluates ∇f there again.  Returns non-OK only for an eval failure or an
 * interrupt (CRFP_EINTR, message recorded). */
crfp_status lbfgs_linesearch(crfp_host *host, const lbfgs_objective *obj, const lbfgs_opts *opts,
                             lbfgs_ls *ls, double *x, double *g);

#endif
