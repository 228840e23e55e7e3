/* crfpipe train --report FILE: the training curves, drawn with cairo.
 *
 * The host's training observer (observe.h) hands over each iteration's
 * figures -- the same ones the progress line prints -- and they are kept
 * until training ends, then drawn as six panels: the objective, the dev
 * error and the active features, each against the iteration and against
 * the time.  A chain of trainers is drawn as one run, with a dashed line
 * where each trainer takes over. */
#include "config.h"
#include "cli.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

struct cli_train_report {
    crfp_host *host;
    char *path;
    crfp_train_iter *its;
    size_t n, cap;
    int oom;  /* an iteration could not be kept: said when drawing */
};

static void observe(void *ud, const crfp_train_iter *it)
{
    cli_train_report *r = ud;
    if (r->n == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 64;
        crfp_train_iter *ni = realloc(r->its, nc * sizeof *ni);
        if (!ni) {
            r->oom = 1;
            return;
        }
        r->its = ni;
        r->cap = nc;
    }
    /* a library built with a shorter struct leaves the rest unknown */
    crfp_train_iter *dst = &r->its[r->n++];
    memset(dst, 0, sizeof *dst);
    dst->dev_error = dst->dev_seq_error = dst->train_error = NAN;
    memcpy(dst, it, it->size < sizeof *dst ? it->size : sizeof *dst);
}

cli_train_report *cli_train_report_start(crfp_host *host, const char *path)
{
    cli_train_report *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        crfp_error(host, CRFP_ENOMEM, "out of memory");
        return NULL;
    }
    r->host = host;
    crfp_host_set_train_observer(host, observe, r);
    return r;
}

enum { W = 1100, H = 940, HEADER = 64 };

static crfp_status draw(cli_train_report *r)
{
    size_t n = r->n;
    double *buf = malloc((6 * n + 1) * sizeof *buf);
    double *marks = malloc((n + 1) * sizeof *marks), *tmarks = malloc((n + 1) * sizeof *tmarks);
    const char **mlabels = malloc((n + 1) * sizeof *mlabels);
    if (!buf || !marks || !tmarks || !mlabels) {
        free(buf);
        free(marks);
        free(tmarks);
        free(mlabels);
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    }
    double *xi = buf, *xt = buf + n, *obj = buf + 2 * n, *dev = buf + 3 * n, *trn = buf + 4 * n,
           *act = buf + 5 * n;
    size_t nmarks = 0, best = 0;
    int has_dev = 0, has_train = 0;
    double offset = 0, last = 0;
    char trainers[256] = "";
    size_t tl = 0;
    for (size_t i = 0; i < n; i++) {
        const crfp_train_iter *it = &r->its[i];
        if (i == 0 || it->stage != r->its[i - 1].stage) {
            /* a new stage's clock starts at 0: continue the time axis */
            offset = last;
            if (it->nstages > 1) {
                /* where the previous stage ended, as on the time axis */
                marks[nmarks] = (double)i;
                tmarks[nmarks] = offset;
                mlabels[nmarks++] = it->trainer;
            }
            if (tl < sizeof trainers)
                tl += (size_t)snprintf(trainers + tl, sizeof trainers - tl, "%s%s", i ? "," : "",
                                       it->trainer ? it->trainer : "?");
        }
        xi[i] = (double)i + 1;
        xt[i] = last = offset + it->seconds;
        obj[i] = it->objective;
        dev[i] = 100.0 * it->dev_error;
        trn[i] = 100.0 * it->train_error;
        act[i] = (double)it->active;
        has_dev |= !isnan(it->dev_error);
        has_train |= !isnan(it->train_error);
        if (!isnan(it->dev_error) && (isnan(r->its[best].dev_error) ||
                                      it->dev_error < r->its[best].dev_error))
            best = i;
    }
    char err[512];
    cplot *pl;
    if (cplot_open(r->path, W, H, &pl, err, sizeof err) != 0) {
        free(buf);
        free(marks);
        free(tmarks);
        free(mlabels);
        return crfp_error(r->host, CRFP_EIO, "--report: %s", err);
    }
    cairo_t *cr = cplot_cr(pl);
    char title[512], sub[512];
    snprintf(title, sizeof title, "crfpipe train: %s", n ? trainers : "no iteration");
    cplot_rgb(cr, 0x222222);
    cplot_text(cr, 14, 10, title, 17, 0, 0, 0, 1);
    if (n) {
        const crfp_train_iter *e = &r->its[n - 1];
        int k = snprintf(sub, sizeof sub, "%zu iterations in %.1f s; final objective %.6g, %zu of "
                         "%zu weights active", n, last, e->objective, e->active, e->nparams);
        if (has_dev && k > 0 && (size_t)k < sizeof sub)
            snprintf(sub + k, sizeof sub - (size_t)k, "; best dev error %.3f%% at iteration %zu",
                     100.0 * r->its[best].dev_error, best + 1);
    } else {
        snprintf(sub, sizeof sub, "training stopped before its first iteration");
    }
    if (r->oom)
        strncat(sub, " (out of memory: some iterations are missing)", sizeof sub - strlen(sub) - 1);
    cplot_text(cr, 14, 36, sub, 12, 0, 0, 0, 0);

    double pw = (W - 20) / 2.0, ph = (H - HEADER - 10) / 3.0;
    const double *xs[2] = {xi, xt};
    const double *mk[2] = {marks, tmarks};
    const char *xl[2] = {"iteration", "time (s)"};
    for (int col = 0; col < 2; col++) {
        double x0 = 10 + col * pw;
        cplot_series so = {"objective", xs[col], obj, n, 0x1f77b4, 0};
        cplot_chart co = {x0, HEADER, pw, ph, "Objective (log scale)", xl[col], "objective", 1, 0,
                          mk[col], mlabels, nmarks, "no iteration recorded"};
        cplot_lines(cr, &co, &so, 1);
        cplot_series sd[2] = {{"dev error", xs[col], dev, n, 0xd62728, 0},
                              {"training error", xs[col], trn, n, 0x7f7f7f, 1}};
        cplot_chart cd = {x0, HEADER + ph, pw, ph, "Token error rate", xl[col], "error",
                          0, 1, mk[col], mlabels, nmarks,
                          "no dev set: train with --dev FILE to follow the error"};
        cplot_lines(cr, &cd, sd + (has_dev ? 0 : 1), has_dev ? (has_train ? 2 : 1) :
                                                             (has_train ? 1 : 0));
        cplot_series sa = {NULL, xs[col], act, n, 0x2ca02c, 0};
        cplot_chart ca = {x0, HEADER + 2 * ph, pw, ph, "Active features (non-zero weights)",
                          xl[col], "weights", 0, 0, mk[col], mlabels, nmarks,
                          "no iteration recorded"};
        cplot_lines(cr, &ca, &sa, 1);
    }
    free(buf);
    free(marks);
    free(tmarks);
    free(mlabels);
    if (cplot_close(pl, err, sizeof err) != 0)
        return crfp_error(r->host, CRFP_EIO, "--report: %s", err);
    crfp_log(r->host, CRFP_LOG_INFO, "training report written to %s", r->path);
    return CRFP_OK;
}

crfp_status cli_train_report_finish(cli_train_report *r, int failed)
{
    crfp_host_set_train_observer(r->host, NULL, NULL);
    crfp_status st = failed && r->n == 0 ? CRFP_OK : draw(r);
    free(r->its);
    free(r->path);
    free(r);
    return st;
}
