/* crfpipe — the host: creation, plugin search path and registry.
 *
 * The application creates one crfp_host, configures its search path and log
 * sink, and asks it for plugins by name.  Modules are opened with libltdl
 * (lt_dlopenext), so `.la` files are optional; the search order is:
 *   1. directories added with crfp_host_add_plugin_dir() (--plugin-path),
 *   2. the CRFPIPE_PLUGIN_PATH environment variable (':'-separated),
 *   3. the build tree, when the program runs uninstalled,
 *   4. $(pkglibdir).
 * A program may also link plugins in statically (libtool -dlpreopen) and
 * call LTDL_SET_PRELOADED_SYMBOLS() before crfp_host_new(): a name not found
 * on the search path is then looked up among the preloaded modules.
 *
 * Opening a module runs its constructors, and a look-up by format opens
 * every module on the path, so the path is searched as ld.so and sudo
 * search theirs: a directory or module file that is world-writable, or
 * owned by a user other than root and the effective user, is skipped with
 * a warning (once per host).  Only NAME.so and NAME.la are opened, and a
 * NAME.la only when it is a libtool archive whose dlname is NAME.so
 * (possibly versioned) beside it or, for an uninstalled archive, in its
 * .libs directory; that shared object passes the same checks.
 */
#ifndef CRFPIPE_HOST_H
#define CRFPIPE_HOST_H

#include "crfpipe/status.h"
#include "crfpipe/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create a host.  Returns NULL only when out of memory or when libltdl
 * cannot initialise.  The caller owns it; free with crfp_host_free(). */
crfp_host *crfp_host_new(void);

/* Unload every module and free the host.  NULL is accepted.  The host's
 * team is stopped first and every module's fini hook runs: crfp_plugin
 * pointers, descriptors and strings from the modules die with it. */
void crfp_host_free(crfp_host *host);

/* Replace the log sink (default: stderr, level <= INFO, PROGRESS shown).
 * fn NULL puts the default sink back; a NULL host is ignored. */
void crfp_host_set_log(crfp_host *host, crfp_log_fn fn, void *userdata);

/* The current sink and its userdata (the default sink when none was set),
 * so that a caller can wrap it for a while and put it back.  Neither
 * pointer may be NULL; a NULL host gives NULL and NULL. */
void crfp_host_get_log(const crfp_host *host, crfp_log_fn *fn, void **userdata);

/* Messages above `max_level` are dropped (e.g. CRFP_LOG_INFO hides PROGRESS
 * lines, which is what --quiet does).  A NULL host is ignored. */
void crfp_host_set_verbosity(crfp_host *host, crfp_log_level max_level);
/* The level set by crfp_host_set_verbosity (default CRFP_LOG_PROGRESS, also
 * for a NULL host). */
crfp_log_level crfp_host_verbosity(const crfp_host *host);

/* Append a directory to the search path, ahead of the environment and
 * installed locations.  The string is copied.  Errors: CRFP_EINVAL (NULL
 * host, with no message; NULL or empty dir), CRFP_ENOMEM (the search path
 * is then the one before the call). */
crfp_status crfp_host_add_plugin_dir(crfp_host *host, const char *dir);

/* Number of threads that engine work may use (0 = all online cores).
 * set: a value <= 0 means 0; a NULL host is ignored; the host's team, when
 * its size changes, is freed (not while it runs a job) and restarted by the
 * next crfp_host_team.  get: the number in force, the online cores for 0
 * or a NULL host. */
void crfp_host_set_threads(crfp_host *host, int nthreads);
int crfp_host_threads(const crfp_host *host);

/* Ask long-running work to stop (called from a signal handler: SIGINT,
 * SIGTERM, SIGHUP in the crfpipe program; it only stores to a
 * sig_atomic_t).  Training then saves the model of its last iteration.
 * A NULL host is ignored. */
void crfp_host_interrupt(crfp_host *host);

/* A loaded plugin.  Owned by the host; valid until crfp_host_free(). */
typedef struct crfp_plugin {
    const crfp_plugin_descriptor *desc;
    char *file;   /* path of the module that was opened */
} crfp_plugin;

/* Find and load the plugin `name` (a C identifier, the module file name;
 * '-' is read as '_', so "sgd-l1" loads sgd_l1).  *out is NULL on failure.
 * Errors: CRFP_ENOTFOUND (no usable module of that name on the search path;
 * the message says when an untrusted one was skipped), CRFP_EABI (module
 * without descriptor, ABI version mismatch, descriptor name differing from
 * the module name, unknown kind), CRFP_EPLUGIN (its init hook failed; the
 * file is not a loadable module, "not a loadable module: REASON" with the
 * dynamic loader's reason; a .la that is not a libtool module archive),
 * CRFP_ENOMEM (out of memory opening or initialising it: never reported as
 * one of the others), CRFP_EINVAL (name is not a C identifier).  The
 * message names the file.  Loading a name again returns the same
 * crfp_plugin; failures are not cached.  CRFP_EINVAL also for a NULL
 * argument. */
crfp_status crfp_host_load(crfp_host *host, const char *name, const crfp_plugin **out);

/* Like crfp_host_load, but also fails with CRFP_EINVAL unless the plugin is of
 * kind `kind` (it stays loaded; *out is NULL). */
crfp_status crfp_host_load_kind(crfp_host *host, const char *name, crfp_kind kind,
                                const crfp_plugin **out);

/* Scan the whole search path and load every module found (for `crfpipe
 * plugins`).  A module that fails to load is reported through `on_error` (may
 * be NULL) and skipped; the first occurrence of a name on the path wins.
 * Running out of memory is not a broken module: the scan then fails with
 * CRFP_ENOMEM (and the format look-ups below with it, rather than
 * answering "unknown format").  On success *list is an array of *n
 * pointers owned by the host.  The array is valid until the next scan
 * (each format look-up below makes one) or crfp_host_free, the plugins
 * until crfp_host_free.  `on_error`'s strings are only valid during its
 * call.  A successful scan clears the host's error.  CRFP_EINVAL for a NULL
 * host, list or n; on any other failure *list is NULL and *n 0. */
typedef void (*crfp_scan_error_fn)(void *ud, const char *file, const char *msg);
crfp_status crfp_host_scan(crfp_host *host, const crfp_plugin ***list, size_t *n,
                           crfp_scan_error_fn on_error, void *ud);

/* The effective search path, for diagnostics: *dirs owned by the host,
 * valid until the next crfp_host_add_plugin_dir or crfp_host_free.  A NULL
 * host gives NULL and 0; dirs and n must not be NULL. */
void crfp_host_search_path(const crfp_host *host, const char *const **dirs, size_t *n);

/* --- formats ---------------------------------------------------------------
 * Readers and writers declare the formats and file extensions they handle
 * (crfp_plugin_descriptor.formats / .extensions); these look them up among
 * every plugin on the search path (scanning it once), so that the host and
 * the program know no plugin by name. */

/* The plugin of `kind` (reader or writer) that declares format `format`.
 * Errors: CRFP_ENOTFOUND (message lists the formats that exist), those of
 * crfp_host_scan (CRFP_ENOMEM).  The look-ups set *out to NULL first and
 * leave the plugin owned by the host. */
crfp_status crfp_host_find_format(crfp_host *host, crfp_kind kind, const char *format,
                                  const crfp_plugin **out);
/* The plugin of `kind` whose declared extensions match the end of `path`
 * (case-insensitive, longest match wins).  CRFP_ENOTFOUND, with no message,
 * when none matches (or path is NULL); the errors of crfp_host_scan. */
crfp_status crfp_host_format_for_path(crfp_host *host, crfp_kind kind, const char *path,
                                      const crfp_plugin **out);
/* The reader whose probe (ABI 2.1) is most confident about input starting
 * with `head` (len bytes); *confidence (may be NULL) receives its score
 * (1..100).  CRFP_ENOTFOUND, with no message, when no reader recognises it
 * (*confidence 0); the errors of crfp_host_scan. */
crfp_status crfp_host_sniff_reader(crfp_host *host, const char *head, size_t len,
                                   const crfp_plugin **out, int *confidence);
/* The canonical format name a reader or writer declares ("" if none, or for
 * p NULL); the module's string, valid until crfp_host_free. */
const char *crfp_plugin_format(const crfp_plugin *p);
/* The length of the longest extension `p` declares that ends `path`
 * (case-insensitively, and shorter than path), 0 when none does or p or
 * path is NULL: what crfp_host_format_for_path matches, and what to cut to
 * name an output after its input. */
size_t crfp_plugin_ext_match(const crfp_plugin *p, const char *path);

/* --- Resource limits -------------------------------------------------------
 *
 * Hostile or broken input must fail with a message, not exhaust memory or
 * time.  Each limit below has a default chosen far above what real corpora,
 * templates and models need; a limit of 0 means "unlimited".  Errors caused
 * by a limit name it as NAME=VALUE and say how to raise it.  The crfpipe
 * program applies $CRFPIPE_LIMITS first, then each --limit option; a program
 * embedding libcrfpipe calls crfp_host_set_limits() itself (the library
 * reads no environment variable for limits). */
typedef enum crfp_limit {
    CRFP_LIMIT_XML_NODE = 0,   /* "xml-node": bytes in one XML text node or
                                * attribute value (default 10,000,000;
                                * above that libxml2's "huge" mode is used,
                                * which parses long attributes slowly) */
    CRFP_LIMIT_LINE,           /* "line": bytes in one line of a column file
                                * (default 1 MiB) */
    CRFP_LIMIT_SENTENCE,       /* "sentence-tokens": tokens in one sentence of
                                * a column file (default 100,000) */
    CRFP_LIMIT_REGEX_TIME,     /* "regex-time": ICU match-time units (about
                                * 10,000 backtracking steps each) per template
                                * regex match (default 1,000) */
    CRFP_LIMIT_REGEX_STACK,    /* "regex-stack": bytes of ICU backtracking
                                * stack per template regex (default 8 MiB) */
    CRFP_LIMIT_MODEL_LABELS,   /* "model-labels": labels in a model file
                                * (default 4,096; the format allows 65,535) */
    CRFP_LIMIT_MODEL_PARAMS,   /* "model-params": weights a loaded model may
                                * allocate (default 268,435,456 = 2 GiB) */
    CRFP_LIMIT_COUNT
} crfp_limit;

/* The current value of a limit (0 = unlimited).  A NULL host gives the
 * default; an out-of-range `which` gives 0 (unlimited). */
size_t crfp_host_limit(const crfp_host *host, crfp_limit which);

/* The name of a limit as used by crfp_host_set_limits ("xml-node", ...), or
 * NULL for an out-of-range value.  Static storage. */
const char *crfp_limit_name(crfp_limit which);

/* Set limits from a spec "NAME=VALUE[,NAME=VALUE]..." (also separated by
 * spaces); VALUE is a decimal number with an optional suffix k, M or G
 * (powers of 1024), or "unlimited" / 0.  NULL or "" changes nothing.  On
 * error (CRFP_EINVAL: unknown name, bad number) no limit is changed and the
 * message names the offending item and lists the known names.  A NULL host
 * is CRFP_EINVAL, with no message. */
crfp_status crfp_host_set_limits(crfp_host *host, const char *spec);

#ifdef __cplusplus
}
#endif
#endif
