/* lbfgs plugin — dense vector kernels (see vecops.h).  Each public routine
 * wraps a range kernel run over the team; the kernels keep four partial
 * sums so the additions do not wait on each other. */
#include "config.h"
#include "vecops.h"

#include <math.h>

typedef struct vargs {
    double a, c;
    const double *x, *y, *z, *g;
    double *d, *s, *yw;
} vargs;

static void k_dot(void *ctx, size_t lo, size_t hi, double *acc)
{
    const vargs *v = ctx;
    const double *restrict x = v->x, *restrict y = v->y;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = lo;
    for (; i + 4 <= hi; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < hi; i++)
        s0 += x[i] * y[i];
    acc[0] += (s0 + s1) + (s2 + s3);
}

double vec_dot(vpool *p, size_t n, const double *x, const double *y)
{
    vargs v = {.x = x, .y = y};
    double out[VPOOL_ACC];
    vpool_run(p, n, k_dot, &v, out);
    return out[0];
}

/* d = c·(d + a·x); acc += z'd.  c == 1 is the plain axpy. */
static void k_axpy_scale_dot(void *ctx, size_t lo, size_t hi, double *acc)
{
    const vargs *v = ctx;
    const double a = v->a, c = v->c;
    const double *restrict x = v->x, *restrict z = v->z;
    double *restrict d = v->d;
    if (!z) {
        if (c == 1.0)
            for (size_t i = lo; i < hi; i++)
                d[i] += a * x[i];
        else
            for (size_t i = lo; i < hi; i++)
                d[i] = c * (d[i] + a * x[i]);
        return;
    }
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = lo;
    for (; i + 4 <= hi; i += 4) {
        double v0 = c * (d[i] + a * x[i]), v1 = c * (d[i + 1] + a * x[i + 1]);
        double v2 = c * (d[i + 2] + a * x[i + 2]), v3 = c * (d[i + 3] + a * x[i + 3]);
        d[i] = v0, d[i + 1] = v1, d[i + 2] = v2, d[i + 3] = v3;
        s0 += z[i] * v0;
        s1 += z[i + 1] * v1;
        s2 += z[i + 2] * v2;
        s3 += z[i + 3] * v3;
    }
    for (; i < hi; i++) {
        d[i] = c * (d[i] + a * x[i]);
        s0 += z[i] * d[i];
    }
    acc[0] += (s0 + s1) + (s2 + s3);
}

double vec_axpy_dot(vpool *p, size_t n, double a, const double *x, double *d, const double *z)
{
    vargs v = {.a = a, .c = 1.0, .x = x, .z = z, .d = d};
    double out[VPOOL_ACC];
    vpool_run(p, n, k_axpy_scale_dot, &v, out);
    return out[0];
}

double vec_axpy_scale_dot(vpool *p, size_t n, double a, const double *x, double c, double *d,
                          const double *z)
{
    vargs v = {.a = a, .c = c, .x = x, .z = z, .d = d};
    double out[VPOOL_ACC];
    vpool_run(p, n, k_axpy_scale_dot, &v, out);
    return out[0];
}

/* Single-precision operands: the same kernels, each float widened to
 * double as it is loaded. */
typedef struct vfargs {
    double a, c;
    const float *x, *z;
    const double *y;
    double *d;
} vfargs;

static void k_dot_f(void *ctx, size_t lo, size_t hi, double *acc)
{
    const vfargs *v = ctx;
    const float *restrict x = v->x;
    const double *restrict y = v->y;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = lo;
    for (; i + 4 <= hi; i += 4) {
        s0 += (double)x[i] * y[i];
        s1 += (double)x[i + 1] * y[i + 1];
        s2 += (double)x[i + 2] * y[i + 2];
        s3 += (double)x[i + 3] * y[i + 3];
    }
    for (; i < hi; i++)
        s0 += (double)x[i] * y[i];
    acc[0] += (s0 + s1) + (s2 + s3);
}

double vec_dot_f(vpool *p, size_t n, const float *x, const double *y)
{
    vfargs v = {.x = x, .y = y};
    double out[VPOOL_ACC];
    vpool_run(p, n, k_dot_f, &v, out);
    return out[0];
}

static void k_axpy_scale_dot_f(void *ctx, size_t lo, size_t hi, double *acc)
{
    const vfargs *v = ctx;
    const double a = v->a, c = v->c;
    const float *restrict x = v->x, *restrict z = v->z;
    double *restrict d = v->d;
    if (!z) {
        if (c == 1.0)
            for (size_t i = lo; i < hi; i++)
                d[i] += a * (double)x[i];
        else
            for (size_t i = lo; i < hi; i++)
                d[i] = c * (d[i] + a * (double)x[i]);
        return;
    }
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = lo;
    for (; i + 4 <= hi; i += 4) {
        double v0 = c * (d[i] + a * (double)x[i]), v1 = c * (d[i + 1] + a * (double)x[i + 1]);
        double v2 = c * (d[i + 2] + a * (double)x[i + 2]);
        double v3 = c * (d[i + 3] + a * (double)x[i + 3]);
        d[i] = v0, d[i + 1] = v1, d[i + 2] = v2, d[i + 3] = v3;
        s0 += (double)z[i] * v0;
        s1 += (double)z[i + 1] * v1;
        s2 += (double)z[i + 2] * v2;
        s3 += (double)z[i + 3] * v3;
    }
    for (; i < hi; i++) {
        d[i] = c * (d[i] + a * (double)x[i]);
        s0 += (double)z[i] * d[i];
    }
    acc[0] += (s0 + s1) + (s2 + s3);
}

double vec_axpy_dot_f(vpool *p, size_t n, double a, const float *x, double *d, const float *z)
{
    vfargs v = {.a = a, .c = 1.0, .x = x, .z = z, .d = d};
    double out[VPOOL_ACC];
    vpool_run(p, n, k_axpy_scale_dot_f, &v, out);
    return out[0];
}

double vec_axpy_scale_dot_f(vpool *p, size_t n, double a, const float *x, double c, double *d,
                            const float *z)
{
    vfargs v = {.a = a, .c = c, .x = x, .z = z, .d = d};
    double out[VPOOL_ACC];
    vpool_run(p, n, k_axpy_scale_dot_f, &v, out);
    return out[0];
}

static void k_l1(void *ctx, size_t lo, size_t hi, double *acc)
{
    const vargs *v = ctx;
    const double *restrict x = v->x;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = lo;
    for (; i + 4 <= hi; i += 4) {
        s0 += fabs(x[i]);
        s1 += fabs(x[i + 1]);
        s2 += fabs(x[i + 2]);
        s3 += fabs(x[i + 3]);
    }
    for (; i < hi; i++)
        s0 += fabs(x[i]);
    acc[0] += (s0 + s1) + (s2 + s3);
}

double vec_l1(vpool *p, size_t n, const double *x)
{
    vargs v = {.x = x};
    double out[VPOOL_ACC];
    vpool_run(p, n, k_l1, &v, out);
    return out[0];
}
