/* crfpipe CLI — the training report (crfpipe train --report). */
#ifndef CRFP_CLI_REPORT_H
#define CRFP_CLI_REPORT_H

#include "crfpipe/crfpipe.h"

typedef struct cli_train_report cli_train_report;

/* Start recording every training iteration of `host` (its training
 * observer) for a plot written to `path` by cli_train_report_finish: SVG,
 * or PNG when the name ends in ".png".  NULL when out of memory (message
 * in host). */
cli_train_report *cli_train_report_start(crfp_host *host, const char *path);

/* Remove the observer, draw the curves recorded so far (none: an empty
 * plot saying so, unless `failed`: a run that failed before its first
 * iteration leaves no file) and free the report.  Errors (message in host): CRFP_EIO
 * when the file cannot be written, CRFP_ENOMEM. */
crfp_status cli_train_report_finish(cli_train_report *rep, int failed);

#endif
