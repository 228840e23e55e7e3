/* lbfgs plugin — dense vector kernels of the optimizer's hot path.
 *
 * Every routine is a single pass over its vectors: on a CRF with millions of
 * weights the optimizer is memory-bandwidth bound, so fusing a dot product
 * into the axpy that precedes it halves the traffic of the two-loop
 * recursion, and each pass is split over the vpool team (NULL = serial).
 * None allocates; none fails.  Output vectors must not alias input vectors
 * unless stated.
 */
#ifndef CRFP_LBFGS_VECOPS_H
#define CRFP_LBFGS_VECOPS_H

#include <stddef.h>
#include "vpool.h"

/* x'y. */
double vec_dot(vpool *p, size_t n, const double *x, const double *y);

/* d += a·x, then return z'd (the updated d).  z may be NULL: returns 0. */
double vec_axpy_dot(vpool *p, size_t n, double a, const double *x, double *d, const double *z);

/* d = c·(d + a·x), then return z'd (the updated d).  z may be NULL. */
double vec_axpy_scale_dot(vpool *p, size_t n, double a, const double *x, double c, double *d,
                          const double *z);

/* The same three with x and z from the correction-pair ring, stored in
 * single precision (see lbfgs_mem); every product and sum is in double. */
double vec_dot_f(vpool *p, size_t n, const float *x, const double *y);
double vec_axpy_dot_f(vpool *p, size_t n, double a, const float *x, double *d, const float *z);
double vec_axpy_scale_dot_f(vpool *p, size_t n, double a, const float *x, double c, double *d,
                            const float *z);

/* ‖x‖₁. */
double vec_l1(vpool *p, size_t n, const double *x);

#endif
