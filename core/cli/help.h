/* crfpipe CLI — help, option lists and suggestions (help.c).
 *
 * Every command's options are described once, here: the static ones in
 * tables, the parameters of stages (trainers, the tagger, writers) taken
 * from the plugins' own declarations at run time, so that `crfpipe CMD
 * --help`, `crfpipe help CMD`, the option suggestions and the bash
 * completion never disagree with what the command accepts.
 */
#ifndef CRFP_CLI_HELP_H
#define CRFP_CLI_HELP_H

#include <stdio.h>
#include "crfpipe/crfpipe.h"

/* Whether argv[1..argc) asks for help (-h or --help before a "--"). */
int cli_wants_help(int argc, char **argv);

/* Print the help of command argv[0] to stdout.  argv is what the command
 * received, so that options already on the line (--trainer, --tagger,
 * --from, --to) choose the plugins whose parameters are listed.  Returns
 * CLI_OK, CLI_USAGE for an unknown command, CLI_FAIL when a plugin named
 * cannot be loaded (message printed). */
int cli_help(crfp_host *host, int argc, char **argv);

/* `crfpipe help ...` (argv[0] = "help"):
 *   help                        the general usage, to stdout
 *   help COMMAND [ARGS]         that command's help (as COMMAND --help)
 *   help --commands             command names, one per line
 *   help --options COMMAND [ARGS]  its option names, one per line
 *   help --global-options       global option names, one per line
 * The last three serve the bash completion.  Returns an exit code. */
int cli_help_main(crfp_host *host, int argc, char **argv);

/* The general usage (commands and global options) to f. */
void cli_help_general(FILE *f);

/* Report the unknown option `opt` (as the user wrote it, "--name" or
 * "--name=value") of command argv[0] on stderr, naming the nearest option
 * the command accepts when one is close; returns CLI_USAGE. */
int cli_unknown_option(crfp_host *host, int argc, char **argv, const char *opt);

/* An option of another tool (wapiti, crf_learn, crfsuite) that crfpipe
 * spells otherwise, and the sentence that says how. */
typedef struct cli_foreign {
    const char *opt, *hint;
} cli_foreign;

/* The hint of `arg` ("-c", "--algo=x": compared up to its '=') in the n
 * entries of `table`, or NULL. */
const char *cli_foreign_hint(const cli_foreign *table, size_t n, const char *arg);

/* " (did you mean 'NAME'?)" for the known command nearest to `name`, or ""
 * when none is close.  A static buffer, overwritten by the next call. */
const char *cli_suggest_command(const char *name);

/* The same for the plugin of `kind` (a crfp_kind; 0: any kind) nearest to
 * `name`, among those on the search path.  Keeps the host's error. */
const char *cli_suggest_plugin(crfp_host *host, int kind, const char *name);

/* Options of `crfpipe tag` that go to the writer rather than the tagger. */
extern const char *const cli_tag_writer_opts[];
extern const size_t cli_tag_writer_nopts;

/* The edit distance (insertions, deletions, substitutions, transpositions
 * of adjacent characters) between a and b, capped at 100: how far a typo
 * is from a name.  Exposed for the tests. */
int cli_edit_distance(const char *a, const char *b);

#endif
