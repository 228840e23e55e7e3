/* crfpipe plot — overlay the curves of several training runs.
 *
 * Each run is the table `crfpipe train --report RUN.tsv` wrote: one row per
 * iteration, columns named by a header line.  Columns are found by name, so
 * that a table with columns added later still reads.  The chart is drawn
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

typedef struct run {
    char *name;
    double *x, *y;
    size_t n;
} run;

/* The column of `name` in a tab-separated header line, or -1. */
static int column_of(const char *header, const char *name)
{
    int col = 0;
    size_t len = strlen(name);
    for (const char *p = header;; col++) {
        size_t w = strcspn(p, "\t\r\n");
        if (w == len && strncmp(p, name, len) == 0)
            return col;
        if (p[w] != '\t')
            return -1;
        p += w + 1;
    }
}

/* Field `col` of a tab-separated line as a number: NaN when the field is
 * absent, empty or "nan" (the report's "not measured"), and *odd set when it
 * holds something else that is not a finite number ("inf", text). */
static double field(const char *line, int col, int *odd)
{
    const char *p = line;
    *odd = 0;
    for (int k = 0; k < col; k++) {
        p = strchr(p, '\t');
        if (!p)
            return NAN;
        p++;
    }
    char *end;
    double v = strtod(p, &end);
    if (end == p || !strchr("\t\r\n", *end)) {
        *odd = !strchr("\t\r\n", *p);
        return NAN;
    }
    if (isinf(v))
        *odd = 1;
    return isfinite(v) ? v : NAN;
}

/* Read one line of f into *buf (NUL-terminated, the newline kept), growing it
 * as needed but never past `limit` bytes of text (0 = no limit).  Returns
 * the line's length; -1 at the end of the file or on a read error (ferror
 * tells); -2 when the line is longer than the limit; -3 when out of memory;
 * -5 at a NUL byte (which would cut the line short unseen).  A table is
 * user input like any corpus: one endless line must not take all memory.
 * Tables are small, so a byte at a time is fast enough. */
static long read_line(FILE *f, size_t limit, char **buf, size_t *cap)
{
    size_t len = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (c == '\0')
            return -5;
        if (len + 2 > *cap) {
            size_t nc = *cap ? 2 * *cap : 8192;
            char *nb = realloc(*buf, nc);
            if (!nb)
                return -3;
            *buf = nb;
            *cap = nc;
        }
        (*buf)[len++] = (char)c;
        if (c == '\n')
            break;
        if (limit && len > limit)
            return -2;
    }
    if (!len)
        return -1;
    (*buf)[len] = '\0';
    return (long)len;
}

/* Read run `spec` ("NAME=FILE" or "FILE", named by its base name without
 * .tsv) into *r.  Errors (message in host): CRFP_EIO (unreadable),
 * CRFP_EFORMAT (not a --report table, a column missing, a time that is not
 * a finite number), CRFP_ELIMIT (a line over the `line` limit),
 * CRFP_ENOMEM.  A value of the y column that is not a finite number (an
 * empty field where nothing was measured, an objective that overflowed)
 * leaves a gap in the curve; a warning says how many such rows there were. */
static crfp_status read_run(crfp_host *host, const char *spec, const quantity *qx,
                            const quantity *qy, run *r)
{
    memset(r, 0, sizeof *r);
    const char *eq = strchr(spec, '='), *path = eq ? eq + 1 : spec;
    if (eq) {
        r->name = strndup(spec, (size_t)(eq - spec));
    } else {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t len = strlen(base);
        if (len > 4 && strcmp(base + len - 4, ".tsv") == 0)
            len -= 4;
        r->name = strndup(base, len);
    }
    if (!r->name)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    FILE *f = fopen(path, "r");
    if (!f)
        return crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, nr = 0, lineno = 1, odd_rows = 0, limit = crfp_host_limit(host, CRFP_LIMIT_LINE);
    crfp_status st = CRFP_OK;
    long got = read_line(f, limit, &line, &cap);
    if (got == -1 && !ferror(f))
        got = -4; /* an empty file */
    if (got >= 0 && column_of(line, "iter") < 0)
        got = -4;
    if (got < 0)
        goto end_of_lines;
    int cx = qx->column ? column_of(line, qx->column) : -2, cy = column_of(line, qy->column);
    if (cx == -1 || cy < 0) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: no column '%s'", path,
                        cy < 0 ? qy->column : qx->column);
        goto done;
    }
    while ((got = read_line(f, limit, &line, &cap)) >= 0) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\0')
            continue;
        if (r->n == nr) {
            size_t nc = nr ? 2 * nr : 256;
            double *nx = realloc(r->x, nc * sizeof *nx);
            if (nx)
                r->x = nx;
            double *ny = nx ? realloc(r->y, nc * sizeof *ny) : NULL;
            if (!ny) {
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                goto done;
            }
            r->y = ny;
            nr = nc;
        }
        int oddx = 0, oddy;
        double x = cx == -2 ? (double)(r->n + 1) : field(line, cx, &oddx),
               y = field(line, cy, &oddy);
        if (isnan(x)) {
            /* the x axis orders the points: a row without its time cannot
             * be placed, and a skipped row would hide a broken table */
            st = crfp_error(host, CRFP_EFORMAT, "%s:%zu: no finite number in column '%s'", path,
                            lineno, qx->column);
            goto done;
        }
        odd_rows += oddy != 0;
        r->x[r->n] = x;
        r->y[r->n++] = qy->percent ? 100.0 * y : y;
    }
    lineno++;
end_of_lines:
    if (got == -1 && ferror(f))
        st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
    else if (got == -2)
        st = crfp_error(host, CRFP_EPARSE,
                        "%s:%zu: line longer than the limit line=%zu bytes (raise it with "
                        "--limit line=N or CRFPIPE_LIMITS=line=N; 0 = unlimited)",
                        path, lineno, limit);
    else if (got == -3)
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
    else if (got == -5)
        st = crfp_error(host, CRFP_EPARSE, "%s:%zu: NUL byte (not a text table)", path, lineno);
    else if (got == -4)
        st = crfp_error(host, CRFP_EFORMAT, "%s: not a table written by crfpipe train --report "
                        "FILE.tsv (no header line with an 'iter' column)", path);
    else if (odd_rows)
        /* an objective that overflowed, or a hand-edited table: the curve
         * shows a gap there, and the user is told why */
        crfp_log(host, CRFP_LOG_WARN, "%s: %zu row%s with no finite number in column '%s' "
                 "left a gap in the curve", path, odd_rows, odd_rows == 1 ? "" : "s",
                 qy->column);
done:
    free(line);
    fclose(f);
    return st;
}

static void free_runs(run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(runs[i].name);
        free(runs[i].x);
        free(runs[i].y);
    }
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
    if (rc != CLI_OK) {
        free(specs);
        return rc;
    }
    run *runs = calloc(nspec, sizeof *runs);
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
        if (read_run(host, specs[k], qx, qy, &runs[k]) != CRFP_OK) {
            rc = cli_fail(host);
            break;
        }
        run *r = &runs[k];
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
