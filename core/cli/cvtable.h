/* crfpipe CLI — the table of a cross-validation (crfpipe train --cv-folds). */
#ifndef CRFP_CLI_CVTABLE_H
#define CRFP_CLI_CVTABLE_H

#include "crfpipe/crfpipe.h"

typedef struct cli_cv_table cli_cv_table;

/* Start recording the folds of a cross-validation (the host's fold
 * observer) for cli_cv_table_finish, which writes them as a tab-separated
 * table to `path` (NULL or "-": stdout; copied).  NULL when out of memory
 * (message in host). */
cli_cv_table *cli_cv_table_start(crfp_host *host, const char *path);

/* Remove the observer, write the table of the folds recorded so far (a run
 * that `failed` before its first fold writes nothing) and free it.  Errors
 * (message in host): those of cli_output_open/commit, CRFP_EIO,
 * CRFP_ENOMEM. */
crfp_status cli_cv_table_finish(cli_cv_table *t, int failed);

#endif
