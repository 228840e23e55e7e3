/* Test problems for the lbfgs optimizer: objectives behind the
 * lbfgs_objective interface, a deterministic RNG, a reference proximal
 * gradient solver and the ℓ1 optimality check. */
#ifndef CRFP_TEST_LBFGS_PROBLEMS_H
#define CRFP_TEST_LBFGS_PROBLEMS_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/crfpipe.h"
#include "lbfgs_impl.h"

/* splitmix64: same sequence on every platform. */
typedef struct rng { uint64_t s; } rng;
double rng_uniform(rng *r);  /* [0, 1) */
double rng_normal(rng *r);

typedef enum { P_QUAD, P_LSQ, P_LOGIT, P_ROSEN } ptype;

/* One problem plus what the tests record through the callbacks. */
typedef struct problem {
    ptype type;
    size_t dim, rows;
    double *A;      /* rows x dim (P_QUAD: dim x dim SPD matrix) */
    double *b;      /* rows (P_QUAD: dim); P_LOGIT: labels ±1 */
    double rho2;
    /* recording */
    int nevals, iters;
    double *Fs;     /* F per iteration (up to 10000) */
    int monotone;   /* 0 once some F rose above its predecessor */
    double F0;      /* F at the start, set by the test */
    /* behaviour switches */
    int stop_at;        /* set *stop at this iteration (0: never) */
    int eintr_at;       /* iteration callback returns CRFP_EINTR here */
    double *theta_at;   /* copy of θ seen by the last callback */
    int interrupt_eval; /* call crfp_host_interrupt at this eval (0: never) */
    int fail_eval;      /* eval returns CRFP_EIO at this eval */
    int wrong_grad;     /* eval returns -∇f */
    crfp_host *host;
} problem;

/* Random SPD quadratic ½x'Ax - b'x. */
void problem_quad(problem *p, size_t dim, uint64_t seed);
/* ½‖Ax - b‖², A rows x dim, b from a sparse x plus noise. */
void problem_lsq(problem *p, size_t rows, size_t dim, uint64_t seed);
/* Σ log(1 + exp(-b_i a_i'x)) + rho2/2‖x‖². */
void problem_logit(problem *p, size_t rows, size_t dim, double rho2, uint64_t seed);
/* Extended Rosenbrock, dim even. */
void problem_rosen(problem *p, size_t dim);
void problem_free(problem *p);

/* The lbfgs_objective for p with penalties rho1 (rho2 is the problem's). */
lbfgs_objective problem_objective(problem *p, double rho1);
/* The same problem as a batch-only training set (what the host hands the
 * plugin); monitor = the same iteration callback. */
crfp_trainset problem_trainset(problem *p, double rho1);
/* Smooth part f and ∇f (g may be NULL). */
double problem_f(const problem *p, const double *x, double *g);
/* Lipschitz constant of ∇f (power iteration), for the reference solver. */
double problem_lipschitz(const problem *p);

/* FISTA with restart on f + rho1‖x‖₁, from zero, until the iterate moves
 * less than 1e-15 or `maxit` iterations. */
void reference_prox(const problem *p, double rho1, double *x, int maxit);

/* Largest violation of the ℓ1 optimality conditions at x. */
double l1_violation(const problem *p, double rho1, const double *x);

/* The tests' CHECK (one counter per test program: problems.c checks
 * nothing). */
#include "../testcheck.h"

#endif
