/* crfpipe — status codes, error context and logging.
 *
 * Every fallible function in libcrfpipe and in plugins returns a crfp_status.
 * The human-readable message (naming file, line, element or stage) is kept in
 * the crfp_host handle that was passed in, in the manner of sqlite3_errmsg():
 * the caller reads it with crfp_errmsg() after a non-OK return.  Nothing in the
 * library or in a plugin ever calls exit().
 */
#ifndef CRFPIPE_STATUS_H
#define CRFPIPE_STATUS_H

#include <stdio.h>

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum crfp_status {
    CRFP_OK = 0,
    CRFP_ENOMEM,     /* allocation failed */
    CRFP_EIO,        /* read/write/open failure (errno reported in message) */
    CRFP_EPARSE,     /* malformed input: XML, column file, template, pipeline */
    CRFP_ESCHEMA,    /* well-formed XML that fails schema validation */
    CRFP_EINVAL,     /* bad argument, parameter or value */
    CRFP_ENOTFOUND,  /* plugin, file, label, feature not found */
    CRFP_EABI,       /* plugin ABI version mismatch / no descriptor */
    CRFP_EPLUGIN,    /* plugin failed to initialise or misbehaved */
    CRFP_EFORMAT,    /* model file corrupt, truncated or of another version */
    CRFP_EINTR,      /* interrupted by the user (SIGINT); partial result kept */
    CRFP_EUTF8       /* invalid UTF-8 or offset not on a character boundary */
} crfp_status;

/* Static string naming a status ("ok", "out of memory", ...). Never NULL
 * ("unknown status" for a value outside the enum). */
const char *crfp_status_str(crfp_status st);

typedef enum crfp_log_level {
    CRFP_LOG_ERROR = 0,
    CRFP_LOG_WARN,
    CRFP_LOG_INFO,     /* summaries: sizes, figures */
    CRFP_LOG_PROGRESS, /* one line per training iteration; silenced by --quiet */
    CRFP_LOG_DEBUG
} crfp_log_level;

/* Log sink supplied by the application.  `msg` is one line without '\n';
 * it is only valid during the call. */
typedef void (*crfp_log_fn)(void *userdata, crfp_log_level level, const char *msg);

/* Write `msg` (a message or log line, NUL-terminated) to f with its control
 * bytes other than tab and line feed written \xHH: messages quote hostile
 * input (a model's strings, a file's bytes), which must not reach a
 * terminal as escape sequences.  Cannot fail by itself: check ferror(f). */
void crfp_fput_message(FILE *f, const char *msg);

/* The host handle: log sink, verbosity, last error, plugin registry, and the
 * interrupt flag.  One per application; the registry part and the
 * allocation reserve for libxml2 and ICU (alloc.h: their allocator hooks
 * are process-wide) are the only process-wide mutable state in crfpipe.
 * Error reporting through it is not thread-safe: worker threads return
 * statuses and let the calling thread report.  An error recorded while
 * memory is short keeps its status and says so in words. */
typedef struct crfp_host crfp_host;

/* Record an error: formats the message into the host and returns `st`, so a
 * caller can write `return crfp_error(host, CRFP_EPARSE, "%s:%d: ...", ...)`.
 * `host` may be NULL (message dropped).  Cannot fail: when the message
 * cannot be allocated, the status is kept with its generic text.
 * crfp_verror is the same with a va_list (which it consumes). */
crfp_status crfp_error(crfp_host *host, crfp_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
crfp_status crfp_verror(crfp_host *host, crfp_status st, const char *fmt, va_list ap);

/* Prefix the current error message with "prefix: " (e.g. the stage name);
 * when no message was recorded, the result is "prefix: " followed by what
 * the recorded status says.  Returns the recorded status (CRFP_OK if none
 * was recorded: a caller holding the callee's status should use
 * crfp_error_wrap).  A NULL host returns CRFP_OK too.  When memory runs
 * out the message is left unprefixed. */
crfp_status crfp_error_prefix(crfp_host *host, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Like crfp_error_prefix for a callee that returned `st`: the recorded
 * status becomes `st`, a message the callee left is prefixed, and a callee
 * that left none (or left the status OK) gets "prefix: " and what `st`
 * says ("out of memory", ...).  Returns st; host NULL is accepted.  When
 * memory runs out the message is left unprefixed. */
crfp_status crfp_error_wrap(crfp_host *host, crfp_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Last error message recorded in `host`; "" when none. Owned by the host,
 * valid until the next error is recorded (or changed or cleared by the
 * calls here); "" for a NULL host.  errcode: the status recorded with it,
 * CRFP_OK when none or for a NULL host.  clear: back to none (a NULL host
 * is ignored). */
const char *crfp_errmsg(const crfp_host *host);
crfp_status crfp_errcode(const crfp_host *host);
void crfp_error_clear(crfp_host *host);

/* Send one line to the host's log sink (printf-style, no trailing '\n').
 * Dropped for a NULL host or a level above its verbosity; cannot fail. */
void crfp_log(crfp_host *host, crfp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Non-zero once the user asked to stop (SIGINT, SIGTERM, SIGHUP).  Long loops poll this and
 * return CRFP_EINTR after leaving their state consistent.  0 for a NULL host. */
int crfp_interrupted(const crfp_host *host);

#ifdef __cplusplus
}
#endif
#endif
