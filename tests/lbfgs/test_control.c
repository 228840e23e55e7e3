/* lbfgs: control flow — stop requested by the callback, max-iter, EINTR
 * from the callback and from an interrupt during the line search (θ must
 * be the last accepted iterate), evaluation errors, warm start from the
 * optimum, a clean stop when no decrease exists (wrong gradient), and
 * rejection of bad input. */
#include "config.h"
#include "problems.h"
#include "lbfgs_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct logcap {
    int warnings;
    char last[512];
} logcap;

static void capture(void *ud, crfp_log_level level, const char *msg)
{
    logcap *c = ud;
    if (level == CRFP_LOG_WARN) {
        c->warnings++;
        snprintf(c->last, sizeof c->last, "%s", msg);
    }
}

static crfp_host *new_host(logcap *cap)
{
    crfp_host *h = crfp_host_new();
    if (!h)
        exit(99);
    memset(cap, 0, sizeof *cap);
    crfp_host_set_log(h, capture, cap);
    crfp_host_set_verbosity(h, CRFP_LOG_WARN);
    return h;
}

static lbfgs_opts tight(void)
{
    lbfgs_opts o;
    lbfgs_opts_default(&o);
    o.epsilon = 0;
    o.gtol = 1e-10;
    return o;
}

static crfp_status go(crfp_host *h, problem *p, double rho1, const lbfgs_opts *o, double *x)
{
    p->host = h;
    p->F0 = problem_f(p, x, NULL);
    for (size_t i = 0; i < p->dim; i++)
        p->F0 += rho1 * fabs(x[i]);
    lbfgs_objective obj = problem_objective(p, rho1);
    return lbfgs_minimize(h, o, &obj, x);
}

static int same(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof(double)) == 0;
}

static void test_stop_flag(void)
{
    logcap cap;
    crfp_host *h = new_host(&cap);
    problem p;
    problem_logit(&p, 100, 10, 0.1, 1);
    p.stop_at = 3;
    double x[10] = {0};
    lbfgs_opts o = tight();
    crfp_status st = go(h, &p, 0.01, &o, x);
    CHECK(st == CRFP_OK, "stop flag: status %d", (int)st);
    CHECK(p.iters == 3, "stop flag: %d iterations, expected 3", p.iters);
    CHECK(same(x, p.theta_at, 10), "stop flag: θ is not the iterate reported");
    problem_free(&p);
    crfp_host_free(h);
}

static void test_max_iter(void)
{
    logcap cap;
    crfp_host *h = new_host(&cap);
    problem p;
    problem_rosen(&p, 4);
    double x[4] = {-1.2, 1, -1.2, 1};
    lbfgs_opts o = tight();
    o.max_iter = 7;
    crfp_status st = go(h, &p, 0, &o, x);
    CHECK(st == CRFP_OK, "max-iter: status %d", (int)st);
    CHECK(p.iters == 7, "max-iter: %d iterations, expected 7", p.iters);
    CHECK(p.monotone, "max-iter: F increased");
    problem_free(&p);
    crfp_host_free(h);
}

static void test_eintr_callback(void)
{
    logcap cap;
    crfp_host *h = new_host(&cap);
    problem p;
    problem_lsq(&p, 30, 20, 3);
    p.eintr_at = 4;
    double x[20] = {0};
    lbfgs_opts o = tight();
    crfp_status st = go(h, &p, 0.5, &o, x);
    CHECK(st == CRFP_EINTR, "EINTR from callback: status %d", (int)st);
    CHECK(p.iters == 4, "EINTR from callback: %d iterations", p.iters);
    CHECK(same(x, p.theta_at, 20), "EINTR: θ is not the last accepted iterate");
    problem_free(&p);
    crfp_host_free(h);
}

static void test_interrupt_linesearch(void)
{
    for (int at = 1; at <= 12; at++) {
        logcap cap;
        crfp_host *h = new_host(&cap);
        problem p;
        problem_logit(&p, 100, 10, 0.0, 8);
        p.interrupt_eval = at;
        double x[10] = {0}, x0[10] = {0};
        lbfgs_opts o = tight();
        crfp_status st = go(h, &p, 0.2, &o, x);
        CHECK(st == CRFP_EINTR, "interrupt at eval %d: status %d", at, (int)st);
        const double *expect = p.iters > 0 ? p.theta_at : x0;
        CHECK(same(x, expect, 10), "interrupt at eval %d: θ is not the last accepted iterate",
              at);
        CHECK(p.nevals <= at + 1, "interrupt at eval %d: %d evaluations", at, p.nevals);
        problem_free(&p);
        crfp_host_free(h);
    }
}

static void test_eval_error(void)
{
    logcap cap;
    crfp_host *h = new_host(&cap);
    problem p;
    problem_quad(&p, 10, 5);
    p.fail_eval = 5;
    double x[10] = {0};
    lbfgs_opts o = tight();
    crfp_status st = go(h, &p, 0, &o, x);
    CHECK(st == CRFP_EIO, "eval error: status %d", (int)st);
    CHECK(strstr(crfp_errmsg(h), "evaluation 5") != NULL, "eval error message: %s",
          crfp_errmsg(h));
    double x0[10] = {0};
    CHECK(same(x, p.iters ? p.theta_at : x0, 10), "eval error: θ not the last accepted");
    problem_free(&p);
    crfp_host_free(h);
}

static void test_warm_start(double rho1)
{
    logcap cap;
    crfp_host *h = new_host(&cap);
    problem p;
    problem_logit(&p, 150, 15, 0.1, 21);
    double x[15] = {0};
    lbfgs_opts o = tight();
    crfp_status st = go(h, &p, rho1, &o, x);
    CHECK(st == CRFP_OK, "warm start: first run status %d", (int)st);
    int first = p.iters;
    p.iters = 0;
    p.nevals = 0;
    double F0 = problem_f(&p, x, NULL);
    for (int i = 0; i < 15; i++)
        F0 += rho1 * fabs(x[i]);
    p.F0 = F0;
    o.gtol = 1e-8;
    lbfgs_objective obj = problem_objective(&p, rho1);
    st = lbfgs_minimize(h, &o, &obj, x);
    CHECK(st == CRFP_OK, "warm start: status %d", (int)st);
    CHECK(p.iters <= 2, "warm start (rho1=%g): %d iterations (cold: %d)", rho1, p.iters, first);
    CHECK(p.nevals <= 3, "warm start: %d evaluations", p.nevals);
    CHECK(p.monotone, "warm start: F increased");
    problem_free(&p);
    crfp_host_free(h);
}

static void test_wrong_gradient(void)
{
    logcap cap;
    crfp_host *h = new_host(&cap);
    problem p;
    problem_quad(&p, 10, 77);
    p.wrong_grad = 1;
    double x[10], x0[10];
    for (int i = 0; i < 10; i++)
        x[i] = x0[i] = 0.1 * i;
    lbfgs_opts o = tight();
    crfp_status st = go(h, &p, 0, &o, x);
    CHECK(st == CRFP_OK, "wrong gradient: status %d (%s)", (int)st, crfp_errmsg(h));
    CHECK(p.iters == 0, "wrong gradient: %d iterations accepted", p.iters);
    CHECK(same(x, x0, 10), "wrong gradient: θ moved although F never decreased");
    CHECK(cap.warnings == 1 && strstr(cap.last, "no decrease"), "wrong gradient: warning '%s'",
          cap.last);
    /* the first direction already is steepest descent: one line search */
    CHECK(p.nevals == 1 + o.max_ls, "wrong gradient: %d evaluations", p.nevals);
    problem_free(&p);
    crfp_host_free(h);
}

static crfp_status nan_eval(void *ud, const double *x, double *f, double *g)
{
    (void)ud;
    (void)x;
    *f = NAN;
    g[0] = 0;
    return CRFP_OK;
}

static void test_bad_input(void)
{
    logcap cap;
    crfp_host *h = new_host(&cap);
    double x[1] = {0};
    lbfgs_objective obj = {.dim = 1, .eval = nan_eval};
    lbfgs_opts o = tight();
    CHECK(lbfgs_minimize(h, &o, &obj, x) == CRFP_EINVAL, "NaN objective accepted");
    CHECK(strstr(crfp_errmsg(h), "not finite") != NULL, "message: %s", crfp_errmsg(h));
    o.m = 0;
    CHECK(lbfgs_minimize(h, &o, &obj, x) == CRFP_EINVAL, "history=0 accepted");
    CHECK(strstr(crfp_errmsg(h), "history") != NULL, "message: %s", crfp_errmsg(h));
    o = tight();
    o.max_ls = 0;
    CHECK(lbfgs_minimize(h, &o, &obj, x) == CRFP_EINVAL, "max-linesearch=0 accepted");
    o = tight();
    obj.rho1 = -1;
    CHECK(lbfgs_minimize(h, &o, &obj, x) == CRFP_EINVAL, "negative rho1 accepted");
    crfp_host_free(h);
}

int main(void)
{
    test_stop_flag();
    test_max_iter();
    test_eintr_callback();
    test_interrupt_linesearch();
    test_eval_error();
    test_warm_start(0.0);
    test_warm_start(0.5);
    test_wrong_gradient();
    test_bad_input();
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
