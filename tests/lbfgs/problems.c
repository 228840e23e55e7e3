/* Test problems for the lbfgs optimizer (see problems.h). */
#include "config.h"
#include "problems.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double rng_uniform(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

double rng_normal(rng *r)
{
    double u = rng_uniform(r), v = rng_uniform(r);
    return sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v);
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    return p;
}

static void init(problem *p, ptype t, size_t dim, size_t rows)
{
    memset(p, 0, sizeof *p);
    p->type = t;
    p->dim = dim;
    p->rows = rows;
    p->monotone = 1;
    p->Fs = xcalloc(10000, sizeof(double));
    p->theta_at = xcalloc(dim, sizeof(double));
}

void problem_quad(problem *p, size_t dim, uint64_t seed)
{
    rng r = {seed};
    init(p, P_QUAD, dim, dim);
    double *M = xcalloc(dim * dim, sizeof(double));
    for (size_t i = 0; i < dim * dim; i++)
        M[i] = rng_normal(&r);
    p->A = xcalloc(dim * dim, sizeof(double));
    /* A = M'M/dim + I: eigenvalues in about [1, 5] */
    for (size_t i = 0; i < dim; i++)
        for (size_t j = 0; j < dim; j++) {
            double s = 0;
            for (size_t k = 0; k < dim; k++)
                s += M[k * dim + i] * M[k * dim + j];
            p->A[i * dim + j] = s / (double)dim + (i == j ? 1.0 : 0.0);
        }
    free(M);
    p->b = xcalloc(dim, sizeof(double));
    for (size_t i = 0; i < dim; i++)
        p->b[i] = rng_normal(&r);
}

void problem_lsq(problem *p, size_t rows, size_t dim, uint64_t seed)
{
    rng r = {seed};
    init(p, P_LSQ, dim, rows);
    p->A = xcalloc(rows * dim, sizeof(double));
    p->b = xcalloc(rows, sizeof(double));
    for (size_t i = 0; i < rows * dim; i++)
        p->A[i] = rng_normal(&r);
    double *w = xcalloc(dim, sizeof(double));
    for (size_t j = 0; j < dim; j += 4)
        w[j] = 3 * rng_normal(&r);
    for (size_t i = 0; i < rows; i++) {
        double s = 0;
        for (size_t j = 0; j < dim; j++)
            s += p->A[i * dim + j] * w[j];
        p->b[i] = s + 0.5 * rng_normal(&r);
    }
    free(w);
}

void problem_logit(problem *p, size_t rows, size_t dim, double rho2, uint64_t seed)
{
    rng r = {seed};
    init(p, P_LOGIT, dim, rows);
    p->rho2 = rho2;
    p->A = xcalloc(rows * dim, sizeof(double));
    p->b = xcalloc(rows, sizeof(double));
    double *w = xcalloc(dim, sizeof(double));
    for (size_t j = 0; j < dim; j++)
        w[j] = j % 3 == 0 ? 2 * rng_normal(&r) : 0.0;
    for (size_t i = 0; i < rows; i++) {
        double s = 0;
        for (size_t j = 0; j < dim; j++) {
            p->A[i * dim + j] = rng_normal(&r);
            s += p->A[i * dim + j] * w[j];
        }
        /* labels drawn from the model so that the data are not separable */
        p->b[i] = rng_uniform(&r) < 1 / (1 + exp(-s)) ? 1.0 : -1.0;
    }
    free(w);
}

void problem_rosen(problem *p, size_t dim)
{
    init(p, P_ROSEN, dim, 0);
}

void problem_free(problem *p)
{
    free(p->A);
    free(p->b);
    free(p->Fs);
    free(p->theta_at);
    memset(p, 0, sizeof *p);
}

double problem_f(const problem *p, const double *x, double *g)
{
    size_t n = p->dim;
    double f = 0;
    if (g)
        memset(g, 0, n * sizeof(double));
    switch (p->type) {
    case P_QUAD:
        for (size_t i = 0; i < n; i++) {
            double ax = 0;
            for (size_t j = 0; j < n; j++)
                ax += p->A[i * n + j] * x[j];
            f += 0.5 * x[i] * ax - p->b[i] * x[i];
            if (g)
                g[i] = ax - p->b[i];
        }
        break;
    case P_LSQ:
        for (size_t i = 0; i < p->rows; i++) {
            double r = -p->b[i];
            for (size_t j = 0; j < n; j++)
                r += p->A[i * n + j] * x[j];
            f += 0.5 * r * r;
            if (g)
                for (size_t j = 0; j < n; j++)
                    g[j] += r * p->A[i * n + j];
        }
        break;
    case P_LOGIT:
        for (size_t i = 0; i < p->rows; i++) {
            double m = 0;
            for (size_t j = 0; j < n; j++)
                m += p->A[i * n + j] * x[j];
            m *= p->b[i];
            /* log(1 + e^-m) without overflow */
            f += m > 0 ? log1p(exp(-m)) : -m + log1p(exp(m));
            double c = -p->b[i] / (1 + exp(m));
            if (g)
                for (size_t j = 0; j < n; j++)
                    g[j] += c * p->A[i * n + j];
        }
        for (size_t j = 0; j < n; j++) {
            f += 0.5 * p->rho2 * x[j] * x[j];
            if (g)
                g[j] += p->rho2 * x[j];
        }
        break;
    case P_ROSEN:
        for (size_t i = 0; i + 1 < n; i += 2) {
            double a = x[i + 1] - x[i] * x[i], c = 1 - x[i];
            f += 100 * a * a + c * c;
            if (g) {
                g[i] = -400 * x[i] * a - 2 * c;
                g[i + 1] = 200 * a;
            }
        }
        break;
    }
    return f;
}

static crfp_status eval_cb(void *ud, const double *x, double *f, double *g)
{
    problem *p = ud;
    p->nevals++;
    if (p->interrupt_eval && p->nevals == p->interrupt_eval)
        crfp_host_interrupt(p->host);
    if (p->fail_eval && p->nevals == p->fail_eval)
        return crfp_error(p->host, CRFP_EIO, "test: evaluation %d failed", p->nevals);
    *f = problem_f(p, x, g);
    if (p->wrong_grad)
        for (size_t i = 0; i < p->dim; i++)
            g[i] = -g[i];
    return CRFP_OK;
}

static crfp_status iter_cb(void *ud, const crfp_iter_info *info, const double *x, int *stop)
{
    problem *p = ud;
    double prev = info->iter > 1 ? p->Fs[info->iter - 2] : p->F0;
    if (info->iter != p->iters + 1 || !(info->objective <= prev))
        p->monotone = 0;
    p->iters = info->iter;
    if (getenv("LBFGS_TEST_TRACE"))
        fprintf(stderr, "iter %d F %.17g step %g evals %d\n", info->iter, info->objective,
                info->step, info->nevals);
    if (info->iter <= 10000)
        p->Fs[info->iter - 1] = info->objective;
    memcpy(p->theta_at, x, p->dim * sizeof(double));
    if (p->eintr_at && info->iter == p->eintr_at)
        return crfp_error(p->host, CRFP_EINTR, "test: interrupted");
    if (p->stop_at && info->iter == p->stop_at)
        *stop = 1;
    return CRFP_OK;
}

lbfgs_objective problem_objective(problem *p, double rho1)
{
    lbfgs_objective o = {.dim = p->dim, .rho1 = rho1, .rho2 = p->rho2, .ud = p, .eval = eval_cb,
                         .iteration = iter_cb};
    return o;
}

/* The problem seen through the training-set interface (batch only), as
 * the plugin receives it from the host.  problem_f includes the ℓ2 term;
 * without it, it is taken off again. */
static crfp_status ts_batch(void *ud, const double *x, int with_l2, double *f, double *g)
{
    problem *p = ud;
    crfp_status st = eval_cb(p, x, f, g);
    if (st == CRFP_OK && !with_l2)
        for (size_t i = 0; i < p->dim; i++) {
            *f -= 0.5 * p->rho2 * x[i] * x[i];
            g[i] -= p->rho2 * x[i];
        }
    return st;
}

crfp_trainset problem_trainset(problem *p, double rho1)
{
    crfp_trainset t;
    memset(&t, 0, sizeof t);
    t.size = sizeof t;
    t.caps = CRFP_TS_BATCH;
    t.nseq = 1;
    t.dim = p->dim;
    t.rho1 = rho1;
    t.rho2 = p->rho2;
    t.ud = p;
    t.batch = ts_batch;
    t.monitor = iter_cb;
    t.monitor_ud = p;
    return t;
}

static double l2(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

double problem_lipschitz(const problem *p)
{
    /* power iteration on the Hessian-vector product of the quadratic part;
     * for the logistic loss the curvature is at most 1/4 of A'A */
    size_t n = p->dim;
    double *v = xcalloc(n, sizeof(double)), *w = xcalloc(n, sizeof(double));
    double *z = xcalloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++)
        v[i] = 1.0 / sqrt((double)n);
    double lam = 0;
    for (int it = 0; it < 500; it++) {
        memset(w, 0, n * sizeof(double));
        if (p->type == P_QUAD) {
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++)
                    w[i] += p->A[i * n + j] * v[j];
        } else {
            for (size_t r = 0; r < p->rows; r++) {
                double s = 0;
                for (size_t j = 0; j < n; j++)
                    s += p->A[r * n + j] * v[j];
                for (size_t j = 0; j < n; j++)
                    w[j] += s * p->A[r * n + j];
            }
        }
        lam = l2(w, n);
        for (size_t i = 0; i < n; i++)
            v[i] = w[i] / lam;
    }
    free(v);
    free(w);
    free(z);
    if (p->type == P_LOGIT)
        return 0.25 * lam + p->rho2;
    return lam;
}

static double soft(double v, double t)
{
    return v > t ? v - t : v < -t ? v + t : 0.0;
}

void reference_prox(const problem *p, double rho1, double *x, int maxit)
{
    size_t n = p->dim;
    double L = problem_lipschitz(p) * 1.01;
    double *y = xcalloc(n, sizeof(double)), *g = xcalloc(n, sizeof(double));
    double *xp = xcalloc(n, sizeof(double));
    memset(x, 0, n * sizeof(double));
    double t = 1;
    for (int it = 0; it < maxit; it++) {
        problem_f(p, y, g);
        memcpy(xp, x, n * sizeof(double));
        double move = 0, dot = 0;
        for (size_t i = 0; i < n; i++) {
            x[i] = soft(y[i] - g[i] / L, rho1 / L);
            move = fmax(move, fabs(x[i] - xp[i]));
        }
        for (size_t i = 0; i < n; i++)
            dot += (y[i] - x[i]) * (x[i] - xp[i]);
        /* gradient-based restart: drop the momentum when it points uphill */
        double tn = dot > 0 ? 1.0 : (1 + sqrt(1 + 4 * t * t)) / 2;
        double mom = dot > 0 ? 0.0 : (t - 1) / tn;
        for (size_t i = 0; i < n; i++)
            y[i] = x[i] + mom * (x[i] - xp[i]);
        t = tn;
        if (it > 10 && move < 1e-15)
            break;
    }
    free(y);
    free(g);
    free(xp);
}

double l1_violation(const problem *p, double rho1, const double *x)
{
    size_t n = p->dim;
    double *g = xcalloc(n, sizeof(double));
    problem_f(p, x, g);
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double v;
        if (x[i] > 0)
            v = fabs(g[i] + rho1);
        else if (x[i] < 0)
            v = fabs(g[i] - rho1);
        else
            v = fmax(0.0, fabs(g[i]) - rho1);
        worst = fmax(worst, v);
    }
    free(g);
    return worst;
}
