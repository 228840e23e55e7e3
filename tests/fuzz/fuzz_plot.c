/* Fuzz target: the tables `crfpipe plot` reads (core/cli/runtable.c,
 * compiled in) and the line chart it draws from them (core/plot).
 *
 * The first byte chooses the axes (x: a time column or the row number; y:
 * one of the report's columns, in percent or not), a log x axis, an x and y
 * cut-off like --x-max / --y-max, and a 40-byte `line` limit; the rest is
 * the table, written to a temporary file.  The table must read or give an
 * error with a message, never crash, leak or hang; the chart is drawn on a
 * cairo recording surface and must end (a tick loop that did not advance
 * hung `crfpipe plot`) with cairo in no error state.  Oracles on a table
 * that reads:
 *   - one point per non-empty line after the header;
 *   - every x is finite, every y finite or NaN;
 *   - with the 40-byte limit, no line of the input is longer than 40 bytes. */
#include "fuzzhost.h"

#include "../../core/cli/runtable.h"
#include "../../core/plot/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const xcols[] = {"train_seconds", "seconds", "train_cpu_seconds", NULL};
static const char *const ycols[] = {"dev_error", "dev_seq_error", "train_error", "objective",
                                    "active", "rho1", "iter", "dev_error"};

/* The non-empty lines after the first, as the reader must count them. */
static size_t data_lines(const uint8_t *t, size_t n)
{
    size_t lines = 0, i = 0;
    while (i < n && t[i] != '\n')
        i++;
    for (i++; i < n;) {
        size_t j = i;
        while (j < n && t[j] != '\n')
            j++;
        lines += j > i;
        i = j + 1;
    }
    return lines;
}

static void draw(const runtable *r, int percent, int ylog, int logx, double xmax, double ymax)
{
    size_t n = 0;
    while (n < r->n && r->x[n] <= xmax)
        n++;
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!y)
        fz_fail("set-up", "out of memory");
    for (size_t i = 0; i < n; i++)
        y[i] = r->y[i] > ymax ? NAN : r->y[i];
    cplot_series s = {"run", r->x, y, n, 0x1f77b4, 0};
    cairo_surface_t *surf = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(surf);
    cplot_chart c = {10, 60, 1080, 650, NULL, "x", "y", ylog, percent, NULL, NULL, 0,
                     "no iteration", logx, 0, NULL, 0};
    cplot_lines(cr, &c, &s, 1);
    cairo_status_t cs = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    free(y);
    if (cs != CAIRO_STATUS_SUCCESS)
        fz_fail("cplot_lines left cairo in an error state", cairo_status_to_string(cs));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    crfp_host *h = fz_host();
    unsigned c = data[0];
    int small = (c & 128) != 0, logx = (c & 32) != 0, cut = (c & 64) != 0;
    const char *xcol = xcols[c & 3], *ycol = ycols[(c >> 2) & 7];
    int percent = strstr(ycol, "error") != NULL, ylog = strcmp(ycol, "objective") == 0;
    fz_line_limit(small ? 40 : FZ_DEFAULT_LINE);
    const uint8_t *text = data + 1;
    size_t tlen = size - 1;
    const char *path = fz_file("run.tsv", text, tlen);

    runtable r;
    crfp_status st = runtable_read(h, path, xcol, ycol, percent, &r);
    if (st != CRFP_OK) {
        if (!crfp_errmsg(h)[0])
            fz_fail("runtable_read failed without a message", crfp_status_str(st));
        fz_trace("config %u: %s", c, crfp_errmsg(h));
        runtable_free(&r);
        return 0;
    }
    if (!r.name || strcmp(r.name, "run") != 0)
        fz_fail("runtable_read", "the run is not named after its file");
    if (r.n != data_lines(text, tlen))
        fz_fail("runtable_read", "not one point per non-empty line after the header");
    for (size_t i = 0; i < r.n; i++) {
        if (!isfinite(r.x[i]))
            fz_fail("runtable_read", "an x that is not finite");
        if (isinf(r.y[i]))
            fz_fail("runtable_read", "an infinite y");
        if (!xcol && r.x[i] != (double)(i + 1))
            fz_fail("runtable_read", "x is not the row number");
    }
    if (small && fz_longest_line(text, tlen) > 40)
        fz_fail("line limit", "a line over the limit was read without an error");
    draw(&r, percent, ylog, logx, cut ? 10 : INFINITY, cut ? 10 : INFINITY);
    fz_trace("config %u: %zu point(s)", c, r.n);
    runtable_free(&r);
    return 0;
}
