/* crfpipe train --report FILE: the training curves, drawn with cairo, or
 * written as a table (FILE.tsv) that `crfpipe plot` overlays with other
 * runs'; and --path-report, the table and chart of a regularisation path.
 *
 * The host's training observer (observe.h) hands over each iteration's
 * figures -- the same ones the progress line prints -- and they are kept
 * until training ends, then drawn as six panels: the objective, the dev
 * error and the active features, each against the iteration and against
 * the time.  A chain of trainers, or the points of a regularisation path,
 * are drawn as one run, with a dashed line where each takes over. */
#include "config.h"
#include "cli.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    /* a library built with a shorter struct leaves the rest unknown */
    crfp_train_iter unknown = {.dev_error = NAN, .dev_seq_error = NAN, .train_error = NAN,
                               .cpu_seconds = NAN};
    if (!cli_append_observed((void **)&r->its, &r->n, &r->cap, sizeof *r->its, &unknown, it,
                             it->size))
        r->oom = 1;
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
    /* the report is written after training: a place it cannot go fails
     * now (rank 0 writes it) */
    crfp_status st = crfp_dist_rank() == 0 ? cli_output_probe(host, path) : CRFP_OK;
    if (st != CRFP_OK) {
        crfp_error_wrap(host, st, "--report");
        free(r->path);
        free(r);
        return NULL;
    }
    crfp_host_set_train_observer(host, observe, r);
    return r;
}

enum { W = 1100, H = 940, HEADER = 64 };

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* Whether iteration i starts a new segment of the run: a trainer of a
 * chain taking over, the next point of a regularisation path or the next
 * fold of a cross-validation.  Each segment's clock starts at 0 again. */
static int new_segment(const crfp_train_iter *its, size_t i)
{
    return i == 0 || its[i].stage != its[i - 1].stage || its[i].point != its[i - 1].point ||
           its[i].fold != its[i - 1].fold;
}

/* The table of a run (--report FILE.tsv): one row per iteration, the time
 * continued across segments as the chart draws it, and the training time
 * without the monitor's scoring, so that trainers can be compared against
 * time whatever their number of iterations.  Errors as fractions; "nan"
 * where there is no value (strtod reads it back). */
static crfp_status write_tsv(cli_train_report *r)
{
    cli_output o;
    crfp_status st = cli_output_open(r->host, &o, r->path);
    if (st != CRFP_OK)
        return crfp_error_wrap(r->host, st, "--report");
    FILE *f = o.stream.fp;
    fprintf(f, "trainer\tstage\tpoint\trho1\titer\tseconds\ttrain_seconds\tobjective\tactive\t"
               "nparams\tdev_error\tdev_seq_error\ttrain_error\ttrain_cpu_seconds\tfold\n");
    double off = 0, toff = 0, coff = 0, last = 0, tlast = 0, clast = 0;
    for (size_t i = 0; i < r->n; i++) {
        const crfp_train_iter *it = &r->its[i];
        if (new_segment(r->its, i)) {
            off = last;
            toff = tlast;
            coff = clast;
        }
        last = off + it->seconds;
        tlast = toff + it->seconds - it->monitor_seconds;
        clast = coff + it->cpu_seconds;
        /* fold: 1-based, "all" for the training of all the data after
         * the folds, 0 without a cross-validation */
        char fold[24] = "0";
        if (it->nfolds && it->fold < it->nfolds)
            snprintf(fold, sizeof fold, "%zu", it->fold + 1);
        else if (it->nfolds)
            strcpy(fold, "all");
        fprintf(f, "%s\t%zu\t%zu\t%.17g\t%d\t%.6f\t%.6f\t%.17g\t%zu\t%zu\t%.9g\t%.9g\t%.9g\t%.3f"
                   "\t%s\n",
                it->trainer ? it->trainer : "?", it->stage, it->point, it->rho1, it->iter, last,
                tlast, it->objective, it->active, it->nparams, it->dev_error, it->dev_seq_error,
                it->train_error, clast, fold);
    }
    if (ferror(f) || (f != stdout && fflush(f) != 0)) {
        cli_output_abort(&o);
        return crfp_error(r->host, CRFP_EIO, "--report: %s: write error", r->path);
    }
    if ((st = cli_output_commit(r->host, &o)) != CRFP_OK)
        return st;
    crfp_log(r->host, CRFP_LOG_INFO, "training report written to %s", r->path);
    return CRFP_OK;
}

static crfp_status draw(cli_train_report *r)
{
    size_t n = r->n;
    double *buf = malloc((6 * n + 1) * sizeof *buf);
    double *marks = malloc((n + 1) * sizeof *marks), *tmarks = malloc((n + 1) * sizeof *tmarks);
    const char **mlabels = malloc((n + 1) * sizeof *mlabels);
    char (*ptext)[32] = malloc((n + 1) * sizeof *ptext);  /* "rho1 0.5" marks */
    if (!buf || !marks || !tmarks || !mlabels || !ptext) {
        free(buf);
        free(marks);
        free(tmarks);
        free(mlabels);
        free(ptext);
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
        if (new_segment(r->its, i)) {
            /* a new stage's clock starts at 0: continue the time axis */
            offset = last;
            if (it->nstages > 1 || it->npoints > 1 || it->nfolds > 0) {
                /* where the previous stage ended, as on the time axis */
                marks[nmarks] = (double)i;
                tmarks[nmarks] = offset;
                if (it->nfolds > 0) {
                    if (it->fold < it->nfolds)
                        snprintf(ptext[nmarks], sizeof ptext[nmarks], "fold %zu", it->fold + 1);
                    else
                        snprintf(ptext[nmarks], sizeof ptext[nmarks], "all data");
                    mlabels[nmarks] = ptext[nmarks];
                } else if (it->npoints > 1) {
                    snprintf(ptext[nmarks], sizeof ptext[nmarks], "\u03c11 %g", it->rho1);
                    mlabels[nmarks] = ptext[nmarks];
                } else {
                    mlabels[nmarks] = it->trainer;
                }
                nmarks++;
            }
            if (tl < sizeof trainers && (i == 0 || it->stage != r->its[i - 1].stage))
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
        free(ptext);
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
                          mk[col], mlabels, nmarks, "no iteration recorded", 0, 0, NULL, 0};
        cplot_lines(cr, &co, &so, 1);
        cplot_series sd[2] = {{"dev error", xs[col], dev, n, 0xd62728, 0},
                              {"training error", xs[col], trn, n, 0x7f7f7f, 1}};
        cplot_chart cd = {x0, HEADER + ph, pw, ph, "Token error rate", xl[col], "error",
                          0, 1, mk[col], mlabels, nmarks,
                          "no dev set: train with --dev FILE to follow the error", 0, 0, NULL, 0};
        cplot_lines(cr, &cd, sd + (has_dev ? 0 : 1), has_dev ? (has_train ? 2 : 1) :
                                                             (has_train ? 1 : 0));
        cplot_series sa = {NULL, xs[col], act, n, 0x2ca02c, 0};
        cplot_chart ca = {x0, HEADER + 2 * ph, pw, ph, "Active features (non-zero weights)",
                          xl[col], "weights", 0, 0, mk[col], mlabels, nmarks,
                          "no iteration recorded", 0, 0, NULL, 0};
        cplot_lines(cr, &ca, &sa, 1);
    }
    free(buf);
    free(marks);
    free(tmarks);
    free(mlabels);
    free(ptext);
    if (cplot_close(pl, err, sizeof err) != 0)
        return crfp_error(r->host, CRFP_EIO, "--report: %s", err);
    crfp_log(r->host, CRFP_LOG_INFO, "training report written to %s", r->path);
    return CRFP_OK;
}

crfp_status cli_train_report_finish(cli_train_report *r, int failed)
{
    crfp_host_set_train_observer(r->host, NULL, NULL);
    crfp_status st = failed && r->n == 0 ? CRFP_OK : ends_with(r->path, ".tsv") ? write_tsv(r)
                                                                                : draw(r);
    free(r->its);
    free(r->path);
    free(r);
    return st;
}

/* --- crfpipe train --rho1-path: the path's table and chart ---------------- */

struct cli_path_report {
    crfp_host *host;
    char *table, *plot;  /* table: NULL for stdout */
    crfp_train_point *pts;
    char **models;       /* each point's model file, copied (the observer's dies) */
    size_t n, cap, mcap; /* points, and room for them in pts and in models */
    int oom;
    cli_output out;      /* the table, opened before training (rank 0) */
    int opened;
};

static void observe_point(void *ud, const crfp_train_point *pt)
{
    cli_path_report *r = ud;
    /* the model names are copied: the point's pointer dies with the call */
    if (r->n == r->mcap) {
        size_t nc = r->mcap ? 2 * r->mcap : 16;
        char **nm = realloc(r->models, nc * sizeof *nm);
        if (!nm) {
            r->oom = 1;
            return;
        }
        r->models = nm;
        r->mcap = nc;
    }
    char *model = strdup(pt->model ? pt->model : "");
    crfp_train_point unknown = {.dev_error = NAN, .dev_seq_error = NAN};
    crfp_train_point *dst = model ? cli_append_observed((void **)&r->pts, &r->n, &r->cap,
                                                        sizeof *r->pts, &unknown, pt, pt->size)
                                  : NULL;
    if (!dst) {
        free(model);
        r->oom = 1;
        return;
    }
    r->models[r->n - 1] = model;
    dst->model = model;
}

cli_path_report *cli_path_report_start(crfp_host *host, const char *table, const char *plot)
{
    cli_path_report *r = calloc(1, sizeof *r);
    if (!r || (table && !(r->table = strdup(table))) || (plot && !(r->plot = strdup(plot)))) {
        if (r)
            free(r->table);
        free(r);
        crfp_error(host, CRFP_ENOMEM, "out of memory");
        return NULL;
    }
    r->host = host;
    /* opened now, so that an -o that cannot be written fails before the
     * path trains rather than after (the file appears at the end) */
    if (crfp_dist_rank() == 0) {
        crfp_status st = plot ? cli_output_probe(host, plot) : CRFP_OK;
        if (st != CRFP_OK) {
            crfp_error_wrap(host, st, "--path-report");
            free(r->table);
            free(r->plot);
            free(r);
            return NULL;
        }
        st = cli_output_open(host, &r->out, r->table);
        if (st != CRFP_OK) {
            if (r->table)
                crfp_error_wrap(host, st, "-o");
            free(r->table);
            free(r->plot);
            free(r);
            return NULL;
        }
        r->opened = 1;
    }
    crfp_host_set_path_observer(host, observe_point, r);
    return r;
}

/* The table: tab-separated, a header line, one row per point; errors in
 * percent, as the progress lines print them. */
static crfp_status path_table(cli_path_report *r)
{
    FILE *f = r->out.stream.fp;
    fprintf(f, "rho1\titerations\tactive\tdev_error_pct\tdev_seq_error_pct\tseconds\t"
               "cpu_seconds\tobjective\tmodel\n");
    for (size_t i = 0; i < r->n; i++) {
        const crfp_train_point *p = &r->pts[i];
        fprintf(f, "%g\t%d\t%zu\t%.3f\t%.2f\t%.2f\t%.2f\t%.9g\t%s%s\n", p->rho1, p->iterations,
                p->active, 100.0 * p->dev_error, 100.0 * p->dev_seq_error, p->seconds,
                p->cpu_seconds, p->objective, p->model, p->interrupted ? " (interrupted)" : "");
    }
    /* a write error (a full disk) is found, and the file removed, here */
    r->opened = 0;
    return cli_output_commit(r->host, &r->out);
}

enum { PW = 1100, PH = 520 };

/* The chart: active features and dev error against rho1 (log scale when
 * every rho1 is > 0), one dot per point. */
static crfp_status path_plot(cli_path_report *r)
{
    size_t n = r->n;
    double *buf = malloc((3 * n + 1) * sizeof *buf);
    if (!buf)
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    double *x = buf, *act = buf + n, *dev = buf + 2 * n;
    double secs = 0, cpu = 0;
    int iters = 0, has_dev = 0;
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        const crfp_train_point *p = &r->pts[i];
        x[i] = p->rho1;
        act[i] = (double)p->active;
        dev[i] = 100.0 * p->dev_error;
        secs += p->seconds;
        cpu += p->cpu_seconds;
        iters += p->iterations;
        has_dev |= !isnan(p->dev_error);
        if (!isnan(p->dev_error) &&
            (isnan(r->pts[best].dev_error) || p->dev_error < r->pts[best].dev_error))
            best = i;
    }
    char err[512];
    cplot *pl;
    if (cplot_open(r->plot, PW, PH, &pl, err, sizeof err) != 0) {
        free(buf);
        return crfp_error(r->host, CRFP_EIO, "--path-report: %s", err);
    }
    cairo_t *cr = cplot_cr(pl);
    char title[128], sub[512];
    snprintf(title, sizeof title, "crfpipe train: regularisation path, %zu point%s", n,
             n == 1 ? "" : "s");
    cplot_rgb(cr, 0x222222);
    cplot_text(cr, 14, 10, title, 17, 0, 0, 0, 1);
    int k = snprintf(sub, sizeof sub, "%d iterations in %.1f s (%.1f s CPU), each point "
                     "warm-started from the previous one", iters, secs, cpu);
    if (has_dev && k > 0 && (size_t)k < sizeof sub)
        snprintf(sub + k, sizeof sub - (size_t)k, "; best dev error %.3f%% at \u03c11 = %g",
                 100.0 * r->pts[best].dev_error, r->pts[best].rho1);
    if (r->oom)
        strncat(sub, " (out of memory: some points are missing)", sizeof sub - strlen(sub) - 1);
    cplot_text(cr, 14, 36, sub, 12, 0, 0, 0, 0);
    double pw = (PW - 20) / 2.0, ph = PH - HEADER - 10;
    cplot_series sa = {NULL, x, act, n, 0x2ca02c, 0};
    cplot_chart ca = {10, HEADER, pw, ph, "Active features (non-zero weights)",
                      "\u03c11 (l1 weight)", "weights", 0, 0, NULL, NULL, 0,
                      "no point trained", 1, 1, x, n};
    cplot_lines(cr, &ca, &sa, 1);
    cplot_series sd = {NULL, x, dev, n, 0xd62728, 0};
    cplot_chart cd = {10 + pw, HEADER, pw, ph, "Dev token error rate", "\u03c11 (l1 weight)",
                      "error", 0, 1, NULL, NULL, 0,
                      n ? "no dev set: train with --dev FILE to score each point"
                        : "no point trained", 1, 1, x, n};
    cplot_lines(cr, &cd, &sd, has_dev ? 1 : 0);
    free(buf);
    if (cplot_close(pl, err, sizeof err) != 0)
        return crfp_error(r->host, CRFP_EIO, "--path-report: %s", err);
    crfp_log(r->host, CRFP_LOG_INFO, "path report written to %s", r->plot);
    return CRFP_OK;
}

crfp_status cli_path_report_finish(cli_path_report *r, int failed)
{
    crfp_host_set_path_observer(r->host, NULL, NULL);
    crfp_status st = CRFP_OK;
    /* A path that stopped after some points still reports those.  In an
     * MPI job every rank saw the same points: rank 0 alone writes them. */
    if ((!failed || r->n > 0) && r->opened) {
        st = path_table(r);
        if (st == CRFP_OK && r->plot)
            st = path_plot(r);
    }
    if (r->opened)
        cli_output_abort(&r->out);
    for (size_t i = 0; i < r->n; i++)
        free(r->models[i]);
    free(r->models);
    free(r->pts);
    free(r->table);
    free(r->plot);
    free(r);
    return st;
}
