/* Reading the tables of training runs (runtable.h). */
#include "config.h"
#include "runtable.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* See runtable.h. */
crfp_status runtable_read(crfp_host *host, const char *spec, const char *xcol,
                          const char *ycol, int percent, runtable *r)
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
    size_t cap = 0, nr = 0, lineno = 1, odd_rows = 0;
    size_t limit = crfp_host_limit(host, CRFP_LIMIT_LINE);
    crfp_status st = CRFP_OK;
    long got = read_line(f, limit, &line, &cap);
    if (got == -1 && !ferror(f))
        got = -4; /* an empty file */
    if (got >= 0 && column_of(line, "iter") < 0)
        got = -4;
    if (got < 0)
        goto end_of_lines;
    int cx = xcol ? column_of(line, xcol) : -2, cy = column_of(line, ycol);
    if (cx == -1 || cy < 0) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: no column '%s'", path,
                        cy < 0 ? ycol : xcol);
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
                            lineno, xcol);
            goto done;
        }
        if (percent)
            y *= 100.0;
        if (isinf(y)) {
            /* a rate above DBL_MAX / 100 (found by fuzz_plot): no curve
             * can show it, and the legend would say "inf%" */
            oddy = 1;
            y = NAN;
        }
        odd_rows += oddy != 0;
        r->x[r->n] = x;
        r->y[r->n++] = y;
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
                 ycol);
done:
    free(line);
    fclose(f);
    return st;
}

void runtable_free(runtable *r)
{
    free(r->name);
    free(r->x);
    free(r->y);
    r->name = NULL;
    r->x = r->y = NULL;
    r->n = 0;
}
