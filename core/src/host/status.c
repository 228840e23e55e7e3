/* crfpipe — status strings, the error message kept in the host, logging. */
#include "config.h"
#include "host_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void crfp_fput_message(FILE *f, const char *msg)
{
    const char *run = msg;
    for (const char *p = msg; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n')
            continue;
        fwrite(run, 1, (size_t)(p - run), f);
        fprintf(f, "\\x%02x", c);
        run = p + 1;
    }
    fputs(run, f);
}

const char *crfp_status_str(crfp_status st)
{
    switch (st) {
    case CRFP_OK: return "ok";
    case CRFP_ENOMEM: return "out of memory";
    case CRFP_EIO: return "input/output error";
    case CRFP_EPARSE: return "parse error";
    case CRFP_ESCHEMA: return "schema validation error";
    case CRFP_EINVAL: return "invalid argument";
    case CRFP_ENOTFOUND: return "not found";
    case CRFP_EABI: return "plugin ABI mismatch";
    case CRFP_EPLUGIN: return "plugin error";
    case CRFP_EFORMAT: return "bad model format";
    case CRFP_EINTR: return "interrupted";
    case CRFP_EUTF8: return "invalid UTF-8";
    }
    return "unknown status";
}

/* The calling thread's redirection, if any (crfp_host_errslot). */
static _Thread_local const crfp_host *tl_host;
static _Thread_local crfp_errslot *tl_slot;

void crfp_host_errslot(crfp_host *host, crfp_errslot *slot)
{
    tl_host = slot ? host : NULL;
    tl_slot = slot;
}

/* The message slot errors on `host` go to from this thread. */
typedef struct errref {
    crfp_status *code;
    char **msg;
    size_t *cap;
} errref;

static errref err_of(const crfp_host *host)
{
    if (tl_slot && tl_host == host)
        return (errref){&tl_slot->code, &tl_slot->msg, &tl_slot->cap};
    crfp_host *h = (crfp_host *)host;
    return (errref){&h->errcode, &h->errmsg, &h->errcap};
}

/* Make room for a message of `need` bytes plus NUL.  On failure the old
 * buffer is kept so that at least the status survives. */
static int errbuf_reserve(errref e, size_t need)
{
    if (need < *e.cap)
        return 1;
    size_t cap = *e.cap ? *e.cap : 128;
    while (cap <= need)
        cap *= 2;
    char *p = realloc(*e.msg, cap);
    if (!p)
        return 0;
    *e.msg = p;
    *e.cap = cap;
    return 1;
}

crfp_status crfp_verror(crfp_host *host, crfp_status st, const char *fmt, va_list ap)
{
    if (!host)
        return st;
    errref e = err_of(host);
    /* Format into a fresh buffer: callers often wrap the previous message
     * (crfp_error(h, st, "%s: %s", x, crfp_errmsg(h))), so the arguments may
     * point into the current one. */
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    /* Never smaller than CRFP_ERRBUF_MIN, so that the fallback below always
     * has room. */
    size_t cap = n >= 0 && (size_t)n + 1 > CRFP_ERRBUF_MIN ? (size_t)n + 1 : CRFP_ERRBUF_MIN;
    char *buf = n >= 0 ? malloc(cap) : NULL;
    *e.code = st;
    if (!buf) {
        /* Keep a truthful, if generic, message rather than a stale one (the
         * host starts with a buffer, so there is one). */
        if (*e.msg && *e.cap)
            snprintf(*e.msg, *e.cap, "%s%s", crfp_status_str(st),
                     st == CRFP_ENOMEM ? "" : " (out of memory for the details)");
        return st;
    }
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    free(*e.msg);
    *e.msg = buf;
    *e.cap = cap;
    return st;
}

crfp_status crfp_error(crfp_host *host, crfp_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    crfp_status r = crfp_verror(host, st, fmt, ap);
    va_end(ap);
    return r;
}

/* Prefix the current message with `pre` ("pre: message"); an empty
 * message becomes "pre: <what the status says>", so that a failure that
 * recorded nothing still reads as a sentence. */
static void prefix_message(errref e, const char *pre, size_t n)
{
    const char *fill = NULL;
    if (!(*e.msg) || !(*e.msg)[0])
        fill = *e.code != CRFP_OK ? crfp_status_str(*e.code)
                                        : "failed without saying why";
    size_t old = fill ? strlen(fill) : strlen((*e.msg));
    if (!errbuf_reserve(e, n + 2 + old))
        return;
    if (fill)
        memcpy((*e.msg) + n + 2, fill, old + 1);
    else
        memmove((*e.msg) + n + 2, (*e.msg), old + 1);
    memcpy((*e.msg), pre, n);
    (*e.msg)[n] = ':';
    (*e.msg)[n + 1] = ' ';
}

static char *vformat(const char *fmt, va_list ap, size_t *len)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        *len = (size_t)n;
    }
    return s;
}

crfp_status crfp_error_prefix(crfp_host *host, const char *fmt, ...)
{
    if (!host)
        return CRFP_OK;
    errref e = err_of(host);
    va_list ap;
    va_start(ap, fmt);
    size_t n;
    char *pre = vformat(fmt, ap, &n);
    va_end(ap);
    if (pre)
        prefix_message(e, pre, n);
    free(pre);
    return *e.code;
}

crfp_status crfp_error_wrap(crfp_host *host, crfp_status st, const char *fmt, ...)
{
    if (!host)
        return st;
    errref e = err_of(host);
    /* The status first, so that an empty message is filled in with what
     * `st` says rather than what an older error said. */
    if (!*e.msg || !*e.msg[0] || *e.code == CRFP_OK)
        crfp_error_clear(host);
    *e.code = st;
    va_list ap;
    va_start(ap, fmt);
    size_t n;
    char *pre = vformat(fmt, ap, &n);
    va_end(ap);
    if (pre)
        prefix_message(e, pre, n);
    free(pre);
    return st;
}

const char *crfp_errmsg(const crfp_host *host)
{
    if (!host)
        return "";
    errref e = err_of(host);
    return *e.msg ? *e.msg : "";
}

crfp_status crfp_errcode(const crfp_host *host)
{
    return host ? *err_of(host).code : CRFP_OK;
}

void crfp_error_clear(crfp_host *host)
{
    if (!host)
        return;
    errref e = err_of(host);
    *e.code = CRFP_OK;
    if (*e.msg)
        (*e.msg)[0] = '\0';
}

void crfp_log(crfp_host *host, crfp_log_level level, const char *fmt, ...)
{
    if (!host || level > host->max_level || !host->log_fn)
        return;
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        host->log_fn(host->log_ud, level, small);
        return;
    }
    /* Long lines (e.g. a list of search directories) are not truncated. */
    char *big = malloc((size_t)n + 1);
    if (!big) {
        host->log_fn(host->log_ud, level, small);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    host->log_fn(host->log_ud, level, big);
    free(big);
}

int crfp_interrupted(const crfp_host *host)
{
    return host ? host->interrupted != 0 : 0;
}
