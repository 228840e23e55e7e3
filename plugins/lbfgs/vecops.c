/* lbfgs plugin — dense vector kernels (see vecops.h).
 *
 * Reductions use four independent partial sums: without -ffast-math the
 * compiler may not reorder a floating-point sum, and a single accumulator
 * would serialise every pass on the add latency. */
#include "config.h"
#include "vecops.h"

#include <math.h>

double vec_dot(size_t n, const double *restrict x, const double *restrict y)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++)
        s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

double vec_axpy_dot(size_t n, double a, const double *restrict x, double *restrict d,
                    const double *restrict z)
{
    if (!z) {
        for (size_t i = 0; i < n; i++)
            d[i] += a * x[i];
        return 0.0;
    }
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        double v0 = d[i] + a * x[i], v1 = d[i + 1] + a * x[i + 1];
        double v2 = d[i + 2] + a * x[i + 2], v3 = d[i + 3] + a * x[i + 3];
        d[i] = v0, d[i + 1] = v1, d[i + 2] = v2, d[i + 3] = v3;
        s0 += z[i] * v0;
        s1 += z[i + 1] * v1;
        s2 += z[i + 2] * v2;
        s3 += z[i + 3] * v3;
    }
    for (; i < n; i++) {
        d[i] += a * x[i];
        s0 += z[i] * d[i];
    }
    return (s0 + s1) + (s2 + s3);
}

double vec_axpy_scale_dot(size_t n, double a, const double *restrict x, double c,
                          double *restrict d, const double *restrict z)
{
    if (!z) {
        for (size_t i = 0; i < n; i++)
            d[i] = c * (d[i] + a * x[i]);
        return 0.0;
    }
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        double v0 = c * (d[i] + a * x[i]), v1 = c * (d[i + 1] + a * x[i + 1]);
        double v2 = c * (d[i + 2] + a * x[i + 2]), v3 = c * (d[i + 3] + a * x[i + 3]);
        d[i] = v0, d[i + 1] = v1, d[i + 2] = v2, d[i + 3] = v3;
        s0 += z[i] * v0;
        s1 += z[i + 1] * v1;
        s2 += z[i + 2] * v2;
        s3 += z[i + 3] * v3;
    }
    for (; i < n; i++) {
        d[i] = c * (d[i] + a * x[i]);
        s0 += z[i] * d[i];
    }
    return (s0 + s1) + (s2 + s3);
}

void vec_make_pair(size_t n, const double *restrict x, const double *restrict g,
                   double *restrict s, double *restrict y, double *sy, double *yy)
{
    double a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        double s_0 = x[i] - s[i], s_1 = x[i + 1] - s[i + 1];
        double y_0 = g[i] - y[i], y_1 = g[i + 1] - y[i + 1];
        s[i] = s_0, s[i + 1] = s_1, y[i] = y_0, y[i + 1] = y_1;
        a0 += s_0 * y_0;
        a1 += s_1 * y_1;
        b0 += y_0 * y_0;
        b1 += y_1 * y_1;
    }
    for (; i < n; i++) {
        s[i] = x[i] - s[i];
        y[i] = g[i] - y[i];
        a0 += s[i] * y[i];
        b0 += y[i] * y[i];
    }
    *sy = a0 + a1;
    *yy = b0 + b1;
}

double vec_l1(size_t n, const double *restrict x)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += fabs(x[i]);
        s1 += fabs(x[i + 1]);
        s2 += fabs(x[i + 2]);
        s3 += fabs(x[i + 3]);
    }
    for (; i < n; i++)
        s0 += fabs(x[i]);
    return (s0 + s1) + (s2 + s3);
}
