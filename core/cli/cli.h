/* crfpipe CLI — shared declarations of the subcommands. */
#ifndef CRFP_CLI_H
#define CRFP_CLI_H

#include <stdio.h>
#include "crfpipe/crfpipe.h"

/* Exit codes: 0 success, 1 failure (error printed), 2 usage error. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Each subcommand gets argv without the global options (--plugin-path,
 * --quiet) and argv[0] = the subcommand name. */
int cmd_plugins(crfp_host *host, int argc, char **argv);
int cmd_validate(crfp_host *host, int argc, char **argv);
int cmd_convert(crfp_host *host, int argc, char **argv);
int cmd_features(crfp_host *host, int argc, char **argv);
int cmd_run(crfp_host *host, int argc, char **argv);
int cmd_train(crfp_host *host, int argc, char **argv);
int cmd_tag(crfp_host *host, int argc, char **argv);
int cmd_eval(crfp_host *host, int argc, char **argv);
int cmd_model(crfp_host *host, int argc, char **argv);
int cmd_plot(crfp_host *host, int argc, char **argv);
/* The actions of `crfpipe model` (argv[0] "model", argv[1] the action). */
int cli_model_info(crfp_host *host, int argc, char **argv);
int cli_model_top(crfp_host *host, int argc, char **argv);

/* "crfpipe", or "crfpipe[rank R]" in an MPI job of several ranks (static
 * storage). */
const char *cli_progname(void);
/* Print "crfpipe: error: <message of the host's last error>" to stderr and
 * return CLI_FAIL (in an MPI job: only the ranks that should, see
 * crfp_dist_failure). */
int cli_fail(crfp_host *host);
/* Print "crfpipe CMD: fmt..." and a usage hint, return CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Output that appears only when complete: writes go to a temporary file
 * "PATH.tmp.PID.XXXXXX" next to `path`, fsync'd and renamed over it by
 * cli_output_commit() (then the directory is fsync'd).  path NULL or "-"
 * means stdout (no temporary).  `path` must be a new name or a regular
 * file, whose mode (and, as root, owner) the result keeps; a new file gets
 * 0666 minus the umask.  A FIFO, device or symbolic link is refused
 * (CRFP_EINVAL, message naming --force-special) unless
 * cli_output_force_special(1) was called: then it is written directly.
 * Opening also removes this path's temporaries left by dead runs (pid gone,
 * or untouched for an hour).  On failure call cli_output_abort(), which
 * removes the temporary file.  Errors: CRFP_EIO with strerror, CRFP_ENOMEM. */
typedef struct cli_output {
    crfp_stream stream;
    char *path;
    char *tmp;   /* NULL for stdout and for direct writes */
    int direct;  /* writing into a FIFO/device/link target (--force-special) */
} cli_output;
/* --force-special: let -o write into FIFOs, devices and through symlinks. */
void cli_output_force_special(int on);
crfp_status cli_output_open(crfp_host *host, cli_output *o, const char *path);
/* Whether paths a and b name one existing file, however spelt (hard links
 * and "./x" included); NULL and "-" name none. */
int cli_same_file(const char *a, const char *b);
/* CRFP_EINVAL (message in host) when output `path` is the file `input`
 * itself: the output replaces it only at the end, but then the input is
 * gone (a model overwritten by `model info -o`); else CRFP_OK. */
crfp_status cli_not_input(crfp_host *host, const char *path, const char *input);
/* cli_output_open after cli_not_input. */
crfp_status cli_output_open_over(crfp_host *host, cli_output *o, const char *path,
                                 const char *input);
crfp_status cli_output_commit(crfp_host *host, cli_output *o);
void cli_output_abort(cli_output *o);
/* Whether an output could be written at `path` (NULL or "-": stdout, yes):
 * opens it as cli_output_open does and aborts at once, so that a file
 * written only after hours of training (a report, a chart) fails before
 * them.  Errors: those of cli_output_open. */
crfp_status cli_output_probe(crfp_host *host, const char *path);

/* For the actions of `crfpipe model`: open the output `out` (NULL or "-":
 * stdout; see cli_output_open), then load the model at `path` into *crf
 * (caller frees it, and commits or aborts *o).  On failure nothing is left
 * open.  Errors: those of cli_output_open and crfp_crf_load. */
crfp_status cli_model_open(crfp_host *host, const char *out, const char *path, cli_output *o,
                           crfp_crf **crf);
/* The arguments every action of `crfpipe model` takes besides its own
 * options: -o/--output FILE and the MODEL.  Returns -1 when argv[*i] was
 * one (taken, *i advanced past a value), else an exit code after a usage
 * message (an unknown option, a second MODEL, a missing value). */
int cli_model_arg(crfp_host *host, int argc, char **argv, int *i, const char **out,
                  const char **path);

/* Input: path NULL or "-" is stdin. */
crfp_status cli_input_open(crfp_host *host, crfp_stream *s, const char *path);
void cli_input_close(crfp_stream *s);

/* Option parsing helper: if argv[*i] is `--name VALUE` or `--name=VALUE`,
 * store VALUE, advance *i and return 1; 0 if it is another option; -1 when
 * the value is missing (usage message printed). */
int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **value);

/* argv[*i] is `--name VALUE` or `--name=VALUE` meant for a stage, whose
 * declaration will check it: append it to names/values (n of max used).
 * Returns 1, or -1 after a usage message (missing value, too many). */
int cli_stage_opt(const char *cmd, int argc, char **argv, int *i, const char **names,
                  const char **values, size_t *n, size_t max);

/* The value of `--OPT NAME=VALUE` (--reader-param, --writer-param), split
 * in place (argv's storage is ours) and appended to names/values (n of max
 * used).  Returns 1, or -1 after a usage message (no '=', an empty name,
 * too many). */
int cli_param_pair(const char *cmd, const char *opt, char *arg, const char **names,
                   const char **values, size_t *n, size_t max);

/* Run pipeline `p` from inpath to outpath (NULL/"-" = stdin/stdout); the
 * output file appears only if the run succeeds.  Returns an exit code. */
int cli_run_pipeline(crfp_host *host, crfp_pipeline *p, const char *inpath, const char *outpath);

/* Several inputs through `p` in one run (crfp_pipeline_begin, a feed per
 * input, end): its stages and their models opened once.  With `outdir`,
 * each input's documents go to their own file there (made if missing),
 * named after the input
 * with the writer's extension (written whole, as -o is, as soon as that
 * input is done); otherwise all of them to `outpath` (NULL or "-":
 * stdout), or to training.  Name clashes, stdin with `outdir`, an input
 * its output would overwrite and outputs for a training pipeline are
 * refused before anything is read (usage messages name `cmd`).  Returns an
 * exit code. */
int cli_run_many(crfp_host *host, crfp_pipeline *p, const char *cmd, const char *const *inputs,
                 size_t nin, const char *outpath, const char *outdir);

/* The format of inputs whose name and content say nothing. */
#define CLI_DEFAULT_FORMAT "conll"

/* The reader/writer plugin for a format name, or, when fmt is NULL, for
 * the file: its extension, then (readers) its content, then
 * CLI_DEFAULT_FORMAT.  On success *name is the plugin's name (owned by the
 * host).  Errors: CRFP_ENOTFOUND for an unknown format (the message lists
 * the known ones), CRFP_ENOMEM and the registry's errors when the plugins
 * could not be looked at; see cli_lookup_fail(). */
crfp_status cli_reader_for(crfp_host *host, const char *fmt, const char *path, const char **name);
crfp_status cli_writer_for(crfp_host *host, const char *fmt, const char *path, const char **name);

/* The exit code after a failed format look-up, message printed: a usage
 * error (CLI_USAGE) for an unknown format, the user's to fix, CLI_FAIL
 * when the look-up itself failed (out of memory). */
int cli_lookup_fail(crfp_host *host, const char *cmd);

/* The label feature a model was trained to predict (its "label"
 * metadata), malloc'd in *label (caller frees); *label is NULL when the
 * model does not record one.  Errors: those of crfp_crf_load (CRFP_EIO,
 * CRFP_EFORMAT naming the file), CRFP_ENOMEM. */
crfp_status cli_model_label(crfp_host *host, const char *model, char **label);
/* The tagger's input-columns for a model reading a tokenizer's output: the
 * model's columns with the first one reading the token feature `string`
 * ("word=string,pos"); *cols NULL when the model has no columns or its
 * first is `string` already.  *cols is the caller's (free).  Errors: the
 * model's loading, CRFP_ENOMEM. */
crfp_status cli_tokenizer_columns(crfp_host *host, const char *model, char **cols);

/* Format detection from content, for inputs whose name says nothing
 * (see sniff.c): *name is the name of the reader plugin whose probe is most
 * confident about the first 64 KiB of a readable regular file, else NULL
 * (stdin, unreadable file, unknown content: the caller keeps its default).
 * Remembers the path and the answer, so that cli_sniff_note() can explain
 * an error that follows.  Errors: CRFP_ENOMEM (reading the head or scanning
 * the plugins), so that running out of memory is not taken for "no known
 * format". */
crfp_status cli_sniff_reader(crfp_host *host, const char *path, const char **name);

/* " (read as FORMAT, detected from its content; use --format to override)"
 * when `msg` concerns the last file whose format was detected from its
 * content, else "".  A static string. */
const char *cli_sniff_note(const char *msg);

/* Append to the array *arr (*n elements of `elem` bytes, room for *cap) a
 * copy of an observer's struct `src`, whose own size is `srcsize`: the
 * element starts as `defaults` (elem bytes) and the first min(srcsize,
 * elem) bytes come from src, so that a library built with a shorter struct
 * leaves the newer members at their defaults.  Returns the new element, or
 * NULL when out of memory (the array is then unchanged).  Observers cannot
 * report errors: their callers remember the NULL and say it later. */
void *cli_append_observed(void **arr, size_t *n, size_t *cap, size_t elem,
                          const void *defaults, const void *src, size_t srcsize);

#endif
