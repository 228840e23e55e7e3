/* crfpipe CLI — progress bar for long tagging and conversion runs
 * (progress.c). */
#ifndef CRFP_CLI_PROGRESS_H
#define CRFP_CLI_PROGRESS_H

#include <stdio.h>
#include "crfpipe/crfpipe.h"

typedef struct cli_progress cli_progress;

/* Show a bar for a run reading `in` (bytes read, tokens/s, time left when
 * the size is known) if it is wanted: stderr is a terminal and --quiet was
 * not given, or CRFPIPE_PROGRESS=always; never with CRFPIPE_PROGRESS=never.
 * `what` (static) starts the line, e.g. "tagging".  While it is up, the
 * host's document observer counts tokens and its log sink clears the bar
 * before each message.  Returns NULL when no bar is shown (also when it
 * cannot be started: a bar is not worth failing a run for). */
cli_progress *cli_progress_start(crfp_host *host, FILE *in, const char *what);

/* Count the tokens of a finished document (runs that do not go through a
 * pipeline; the pipeline reports to the observer itself).  NULL p: no-op. */
void cli_progress_doc(cli_progress *p, const crfp_doc *doc);

/* Take the bar down (the line is cleared) and put the host's log sink and
 * observer back.  NULL accepted.  Call before closing the input. */
void cli_progress_end(cli_progress *p);

#endif
