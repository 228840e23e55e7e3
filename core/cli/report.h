/* crfpipe CLI — the training report (crfpipe train --report). */
#ifndef CRFP_CLI_REPORT_H
#define CRFP_CLI_REPORT_H

#include "crfpipe/crfpipe.h"

typedef struct cli_train_report cli_train_report;

/* Start recording every training iteration of `host` (its training
 * observer) for a plot written to `path` by cli_train_report_finish: SVG,
 * or PNG when the name ends in ".png", or the figures themselves as a
 * tab-separated table (one row per iteration, `crfpipe plot` draws it)
 * when it ends in ".tsv".  NULL when out of memory (message
 * in host). */
cli_train_report *cli_train_report_start(crfp_host *host, const char *path);

/* Remove the observer, draw the curves recorded so far (none: an empty
 * plot saying so, unless `failed`: a run that failed before its first
 * iteration leaves no file) and free the report.  Errors (message in host): CRFP_EIO
 * when the file cannot be written, CRFP_ENOMEM. */
crfp_status cli_train_report_finish(cli_train_report *rep, int failed);

typedef struct cli_path_report cli_path_report;

/* Start recording the points of a regularisation path (the host's path
 * observer) for cli_path_report_finish: a tab-separated table to `table`
 * (NULL or "-": stdout) and, when `plot` is not NULL, a chart of the
 * active features and the dev error against rho1 to `plot` (SVG, or PNG
 * when the name ends in ".png").  Both strings are copied.  NULL when out
 * of memory (message in host). */
cli_path_report *cli_path_report_start(crfp_host *host, const char *table, const char *plot);

/* Remove the observer, write the table and the chart of the points
 * recorded so far (a run that `failed` before its first point writes
 * nothing) and free the report.  Errors (message in host): those of
 * cli_output_open/commit for the table, CRFP_EIO for the chart,
 * CRFP_ENOMEM. */
crfp_status cli_path_report_finish(cli_path_report *rep, int failed);

#endif
