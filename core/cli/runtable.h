/* The tables of training runs that `crfpipe plot` overlays.
 *
 * A run is the table `crfpipe train --report RUN.tsv` wrote: one row per
 * iteration, columns named by a header line; columns are found by name, so
 * that a table with columns added later still reads.  The reader is apart
 * from the command so that tests/fuzz/fuzz_plot.c drives it: a table is
 * input like any corpus, and may be anything. */
#ifndef CRFP_RUNTABLE_H
#define CRFP_RUNTABLE_H

#include <stddef.h>
#include "crfpipe/crfpipe.h"

/* One run: its name and n points (x[i], y[i]); every x is finite, a y is
 * finite or NaN (a gap in the curve). */
typedef struct runtable {
    char *name;
    double *x, *y;
    size_t n;
} runtable;

/* Read run `spec` ("NAME=FILE" or "FILE", named by its base name without
 * .tsv) into *r (zeroed first; free it with runtable_free even after an
 * error).  x is column `xcol` of each row, or the row's number when xcol is
 * NULL; y is column `ycol`, times 100 when `percent`.
 * Errors (message in host): CRFP_EIO (unreadable), CRFP_EFORMAT (not a
 * --report table, a column missing, an x that is not a finite number),
 * CRFP_EPARSE (a line over the `line` limit, a NUL byte), CRFP_ENOMEM.  A y
 * that is not a finite number -- "nan", the report's "not measured", an
 * empty field, or "inf" or text -- leaves a gap; a warning counts the rows
 * of the last two kinds. */
crfp_status runtable_read(crfp_host *host, const char *spec, const char *xcol,
                          const char *ycol, int percent, runtable *r);

/* Free what runtable_read allocated in *r (not r itself). */
void runtable_free(runtable *r);

#endif
