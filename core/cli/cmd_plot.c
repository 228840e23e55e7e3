/* crfpipe plot — overlay the curves of several training runs.
 *
 * Each run is the table `crfpipe train --report RUN.tsv` wrote, read by
 * runtable.c.  The chart is drawn
 * with the same code as the reports (core/plot), so that a comparison of
 * trainers -- test error against training time, say -- needs no plotting
 * program besides crfpipe. */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "runtable.h"

/* What can be put on an axis: the option's word, the table's column, the
 * axis title, and whether it is an error rate (shown in percent). */
typedef struct quantity {
    const char *word, *column, *label;
    int percent, log;
} quantity;

static const quantity xs[] = {
    {"time", "train_seconds", "training time (s), without the dev-set scoring", 0, 0},
    {"seconds", "seconds", "time (s), dev-set scoring included", 0, 0},
    {"cpu", "train_cpu_seconds", "training CPU time (s, user + system of every thread), "
     "without the dev-set scoring", 0, 0},
    {"iteration", NULL, "iteration (all stages and points in turn)", 0, 0},
};
static const quantity ys[] = {
    {"dev-error", "dev_error", "token error rate on the dev set", 1, 0},
    {"dev-seq-error", "dev_seq_error", "sentence error rate on the dev set", 1, 0},
    {"train-error", "train_error", "token error rate on the training set", 1, 0},
    {"objective", "objective", "objective (log scale)", 0, 1},
    {"active", "active", "active features (non-zero weights)", 0, 0},
};

static const quantity *find_quantity(const quantity *q, size_t n, const char *word)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(q[i].word, word) == 0)
            return &q[i];
    return NULL;
}

static void free_runs(runtable *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        runtable_free(&runs[i]);
    free(runs);
}

/* A positive number for --x-max / --y-max; 0 when it is not one. */
static int positive(const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d > 0) || !isfinite(d))
        return 0;
    *out = d;
    return 1;
}

int cmd_plot(crfp_host *host, int argc, char **argv)
{
    const char *out = NULL, *title = NULL, *v;
    const quantity *qx = &xs[0], *qy = &ys[0];
    double xmax = INFINITY, ymax = INFINITY;
    int logx = 0;
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    const char **specs = calloc((size_t)argc + 1, sizeof *specs);
    size_t nspec = 0;
    if (!specs) {
        fprintf(stderr, "crfpipe: error: out of memory\n");
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    for (int i = 1; i < argc && rc == CLI_OK; i++) {
        int r;
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                rc = cli_usage(argv[0], "-o needs a file");
            else
                out = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--log-x") == 0) {
            /* trainers' times span orders of magnitude (seconds to minutes) */
            logx = 1;
            continue;
        }
        if ((r = cli_opt(argv[0], argc, argv, &i, "output", &v)) != 0) {
            out = v;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "title", &v)) != 0) {
            title = v;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "x", &v)) != 0) {
            if (r > 0 && !(qx = find_quantity(xs, sizeof xs / sizeof *xs, v)))
                rc = cli_usage(argv[0], "--x must be time, seconds, cpu or iteration, not '%s'", v);
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "y", &v)) != 0) {
            if (r > 0 && !(qy = find_quantity(ys, sizeof ys / sizeof *ys, v)))
                rc = cli_usage(argv[0], "--y must be dev-error, dev-seq-error, train-error, "
                               "objective or active, not '%s'", v);
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "x-max", &v)) != 0) {
            if (r > 0 && !positive(v, &xmax))
                rc = cli_usage(argv[0], "--x-max must be a number > 0, not '%s'", v);
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "y-max", &v)) != 0) {
            if (r > 0 && !positive(v, &ymax))
                rc = cli_usage(argv[0], "--y-max must be a number > 0, not '%s'", v);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_unknown_option(host, argc, argv, argv[i]);
        } else {
            specs[nspec++] = argv[i];
            r = 1;
        }
        if (r < 0)
            rc = CLI_USAGE;
    }
    if (rc == CLI_OK && nspec == 0)
        rc = cli_usage(argv[0], "no run given (tables written by crfpipe train --report "
                       "RUN.tsv)");
    if (rc == CLI_OK && !out)
        rc = cli_usage(argv[0], "-o FILE is required (SVG, or PNG when it ends in .png)");
    for (size_t k = 0; k < nspec && rc == CLI_OK; k++)
        if (cli_same_file(out, specs[k]))
            rc = cli_usage(argv[0], "-o %s is the table %s itself; drawing there would destroy "
                           "it", out, specs[k]);
    if (rc != CLI_OK) {
        free(specs);
        return rc;
    }
    runtable *runs = calloc(nspec, sizeof *runs);
    cplot_series *ser = calloc(nspec, sizeof *ser);
    char (*legend)[160] = calloc(nspec, sizeof *legend);
    if (!runs || !ser || !legend) {
        free(runs);
        free(ser);
        free(legend);
        free(specs);
        fprintf(stderr, "crfpipe: error: out of memory\n");
        return CLI_FAIL;
    }
    /* distinct colours that survive a grey-scale print */
    static const unsigned palette[] = {0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd,
                                       0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
    size_t np = sizeof palette / sizeof *palette;
    for (size_t k = 0; k < nspec && rc == CLI_OK; k++) {
        if (runtable_read(host, specs[k], qx->column, qy->column, qy->percent, &runs[k]) !=
            CRFP_OK) {
            rc = cli_fail(host);
            break;
        }
        runtable *r = &runs[k];
        /* the legend says where each run ended */
        double lx = NAN, ly = NAN;
        for (size_t i = 0; i < r->n; i++)
            if (!isnan(r->y[i])) {
                lx = r->x[i];
                ly = r->y[i];
            }
        char a[32], b[32];
        if (isnan(ly))
            snprintf(legend[k], sizeof legend[k], "%s", r->name);
        else if (qy->percent)
            snprintf(legend[k], sizeof legend[k], "%s: %.2f%% %s %s%s", r->name, ly,
                     qx->column ? "at" : "after", cplot_fmt(lx, lx >= 10 ? 1 : 0.1, b, sizeof b),
                     qx->column ? " s" : " iterations");
        else
            snprintf(legend[k], sizeof legend[k], "%s: %s %s %s%s", r->name,
                     cplot_fmt(ly, fabs(ly) >= 10 ? 1 : 0.01, a, sizeof a),
                     qx->column ? "at" : "after", cplot_fmt(lx, lx >= 10 ? 1 : 0.1, b, sizeof b),
                     qx->column ? " s" : " iterations");
        /* past --x-max the curve ends; above --y-max it leaves the chart */
        size_t n = 0;
        while (n < r->n && r->x[n] <= xmax)
            n++;
        for (size_t i = 0; i < n; i++)
            if (r->y[i] > ymax)
                r->y[i] = NAN;
        ser[k] = (cplot_series){legend[k], r->x, r->y, n, palette[k % np], k >= np};
    }
    if (rc == CLI_OK) {
        char err[512];
        cplot *pl;
        enum { W = 1100, H = 720, HEADER = 60 };
        if (cplot_open(out, W, H, &pl, err, sizeof err) != 0) {
            fprintf(stderr, "crfpipe: error: %s\n", err);
            rc = CLI_FAIL;
        } else {
            cairo_t *cr = cplot_cr(pl);
            char sub[256];
            snprintf(sub, sizeof sub, "%s against %s; %zu run%s", qy->label, qx->label, nspec,
                     nspec == 1 ? "" : "s");
            cplot_rgb(cr, 0x222222);
            cplot_text(cr, 14, 10, title ? title : "crfpipe plot", 17, 0, 0, 0, 1);
            cplot_text(cr, 14, 36, sub, 12, 0, 0, 0, 0);
            cplot_chart c = {10, HEADER, W - 20, H - HEADER - 10, NULL, qx->label, qy->word,
                             qy->log, qy->percent, NULL, NULL, 0, "no iteration in these runs",
                             logx, 0, NULL, 0};
            cplot_lines(cr, &c, ser, nspec);
            if (cplot_close(pl, err, sizeof err) != 0) {
                fprintf(stderr, "crfpipe: error: %s\n", err);
                rc = CLI_FAIL;
            }
        }
    }
    free_runs(runs, nspec);
    free(ser);
    free(legend);
    free(specs);
    return rc;
}
