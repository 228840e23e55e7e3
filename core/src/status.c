/* crfpipe — status strings, the error message kept in the host, logging. */
#include "config.h"
#include "host_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Make room for a message of `need` bytes plus NUL.  On failure the old
 * buffer is kept so that at least the status survives. */
static int errbuf_reserve(crfp_host *host, size_t need)
{
    if (need < host->errcap)
        return 1;
    size_t cap = host->errcap ? host->errcap : 128;
    while (cap <= need)
        cap *= 2;
    char *p = realloc(host->errmsg, cap);
    if (!p)
        return 0;
    host->errmsg = p;
    host->errcap = cap;
    return 1;
}

crfp_status crfp_verror(crfp_host *host, crfp_status st, const char *fmt, va_list ap)
{
    if (!host)
        return st;
    /* Format into a fresh buffer: callers often wrap the previous message
     * (crfp_error(h, st, "%s: %s", x, crfp_errmsg(h))), so the arguments may
     * point into the current one. */
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    host->errcode = st;
    if (!buf) {
        /* Keep a truthful, if generic, message rather than a stale one. */
        if (host->errmsg && host->errcap)
            snprintf(host->errmsg, host->errcap, "%s", crfp_status_str(st));
        return st;
    }
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    free(host->errmsg);
    host->errmsg = buf;
    host->errcap = (size_t)n + 1;
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

crfp_status crfp_error_prefix(crfp_host *host, const char *fmt, ...)
{
    if (!host)
        return CRFP_OK;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return host->errcode;
    size_t old = host->errmsg ? strlen(host->errmsg) : 0;
    char *pre = malloc((size_t)n + 1);
    if (!pre)
        return host->errcode;
    va_start(ap, fmt);
    vsnprintf(pre, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (errbuf_reserve(host, (size_t)n + 2 + old)) {
        if (old)
            memmove(host->errmsg + n + 2, host->errmsg, old + 1);
        else
            host->errmsg[n + 2] = '\0';
        memcpy(host->errmsg, pre, (size_t)n);
        host->errmsg[n] = ':';
        host->errmsg[n + 1] = ' ';
    }
    free(pre);
    return host->errcode;
}

const char *crfp_errmsg(const crfp_host *host)
{
    if (!host || !host->errmsg)
        return "";
    return host->errmsg;
}

crfp_status crfp_errcode(const crfp_host *host)
{
    return host ? host->errcode : CRFP_OK;
}

void crfp_error_clear(crfp_host *host)
{
    if (!host)
        return;
    host->errcode = CRFP_OK;
    if (host->errmsg)
        host->errmsg[0] = '\0';
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
