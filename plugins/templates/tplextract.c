/* templates plugin — running a compiled template over one sentence.
 *
 * ICU matchers carry the state of their last match, so a matcher cannot be
 * shared by two threads.  Each extract call therefore borrows a workspace
 * (its own clones of every regex, a string buffer, the resolved column
 * names) from a pool guarded by a mutex and gives it back at the end: after
 * the first sentence of each thread nothing is allocated, and the mutex is
 * taken twice per sentence, not per token.
 *
 * Values outside the sentence become "_B-k" (k tokens before the start) or
 * "_B+k" (k tokens past the end) for every operation, as in CRF++; a token
 * without the requested feature gives "_NIL" for %x/%X and is matched as
 * the empty string by %t/%T/%m/%M.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/utext.h>
#include "tpl.h"

#define TPL_NIL "_NIL"

typedef struct tpl_ws {
    struct tpl_ws *next;
    URegularExpression **rx;   /* clones, tpl.nrx */
    long *cols;                /* names resolved for the current sentence */
    char *buf;
    size_t cap;
} tpl_ws;

struct tpl_extractor {
    crfp_host *host;
    tpl *t;
    pthread_mutex_t lock;      /* guards pool and error reporting */
    tpl_ws *pool;
};

static void ws_free(const tpl *t, tpl_ws *w)
{
    if (!w)
        return;
    if (w->rx)
        for (size_t i = 0; i < t->nrx; i++)
            if (w->rx[i])
                uregex_close(w->rx[i]);
    free(w->rx);
    free(w->cols);
    free(w->buf);
    free(w);
}

/* Called with the lock held: uregex_clone only reads the original, but the
 * lock keeps that reasoning out of ICU's hands. */
static tpl_ws *ws_new(const tpl *t)
{
    tpl_ws *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->cap = 256;
    w->buf = malloc(w->cap);
    w->rx = calloc(t->nrx ? t->nrx : 1, sizeof *w->rx);
    w->cols = calloc(t->nnames ? t->nnames : 1, sizeof *w->cols);
    if (!w->buf || !w->rx || !w->cols) {
        ws_free(t, w);
        return NULL;
    }
    for (size_t i = 0; i < t->nrx; i++) {
        UErrorCode err = U_ZERO_ERROR;
        w->rx[i] = uregex_clone(t->rx[i], &err);
        if (U_FAILURE(err)) {
            w->rx[i] = NULL;
            ws_free(t, w);
            return NULL;
        }
    }
    return w;
}

crfp_status tpl_extractor_new(crfp_host *host, tpl *t, tpl_extractor **out)
{
    *out = NULL;
    tpl_extractor *ex = calloc(1, sizeof *ex);
    if (!ex || pthread_mutex_init(&ex->lock, NULL) != 0) {
        free(ex);
        tpl_free(t);
        return crfp_error(host, CRFP_ENOMEM, "templates: cannot create the extractor");
    }
    ex->host = host;
    ex->t = t;
    *out = ex;
    return CRFP_OK;
}

void tpl_extractor_free(tpl_extractor *ex)
{
    if (!ex)
        return;
    while (ex->pool) {
        tpl_ws *w = ex->pool;
        ex->pool = w->next;
        ws_free(ex->t, w);
    }
    pthread_mutex_destroy(&ex->lock);
    tpl_free(ex->t);
    free(ex);
}

const tpl *tpl_extractor_tpl(const tpl_extractor *ex)
{
    return ex->t;
}

static crfp_status report(tpl_extractor *ex, crfp_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static crfp_status report(tpl_extractor *ex, crfp_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&ex->lock);
    crfp_verror(ex->host, st, fmt, ap);
    pthread_mutex_unlock(&ex->lock);
    va_end(ap);
    return st;
}

static int reserve(tpl_ws *w, size_t len, size_t more)
{
    if (w->cap - len >= more)
        return 0;
    size_t cap = w->cap;
    while (cap - len < more)
        cap *= 2;
    char *b = realloc(w->buf, cap);
    if (!b)
        return -1;
    w->buf = b;
    w->cap = cap;
    return 0;
}

static int append(tpl_ws *w, size_t *len, const char *s, size_t n)
{
    if (reserve(w, *len, n + 1))
        return -1;
    memcpy(w->buf + *len, s, n);
    *len += n;
    return 0;
}

/* Run regex `rx` over `s`; for 'm'/'M' append the first match, for 't'/'T'
 * "true" or "false". */
static crfp_status apply_regex(tpl_extractor *ex, const tpl_pattern *pat, tpl_ws *w,
                               size_t *len, const tpl_piece *pc, const char *s)
{
    UErrorCode err = U_ZERO_ERROR;
    UText ut = UTEXT_INITIALIZER;
    utext_openUTF8(&ut, s, -1, &err);
    URegularExpression *rx = w->rx[pc->rx];
    uregex_setUText(rx, &ut, &err);
    UBool found = U_SUCCESS(err) ? uregex_find(rx, 0, &err) : 0;
    int64_t b = 0, e = 0;
    if (found && (pc->op == 'm' || pc->op == 'M')) {
        /* On UTF-8 text the native indexes are byte offsets. */
        b = uregex_start64(rx, 0, &err);
        e = uregex_end64(rx, 0, &err);
    }
    utext_close(&ut);
    if (U_FAILURE(err))
        return report(ex, CRFP_EPLUGIN, "%s:%d: regular expression failed on '%s': %s",
                      ex->t->origin, pat->line, s, u_errorName(err));
    int r;
    if (pc->op == 't' || pc->op == 'T')
        r = found ? append(w, len, "true", 4) : append(w, len, "false", 5);
    else
        r = append(w, len, s + b, (size_t)(e - b));
    return r ? CRFP_ENOMEM : CRFP_OK;
}

static crfp_status lowercase(tpl_extractor *ex, tpl_ws *w, size_t *len, const char *s)
{
    size_t n = strlen(s);
    for (;;) {
        if (reserve(w, *len, n + 1))
            return CRFP_ENOMEM;
        UErrorCode err = U_ZERO_ERROR;
        size_t room = w->cap - *len - 1;
        int32_t got = ucasemap_utf8ToLower(ex->t->lower, w->buf + *len,
                                           room > INT32_MAX ? INT32_MAX : (int32_t)room, s,
                                           (int32_t)n, &err);
        if (err == U_BUFFER_OVERFLOW_ERROR) {
            n = (size_t)got;
            continue;
        }
        if (U_FAILURE(err))
            return report(ex, CRFP_EUTF8, "%s: cannot lowercase '%s': %s", ex->t->origin, s,
                          u_errorName(err));
        *len += (size_t)got;
        return CRFP_OK;
    }
}

/* Column names are looked up once per sentence, not per token. */
static crfp_status resolve(tpl_extractor *ex, tpl_ws *w, const crfp_tokseq *seq)
{
    const tpl *t = ex->t;
    if (t->maxcol >= 0 && (size_t)t->maxcol >= seq->ncols)
        return report(ex, CRFP_EPARSE,
                      "%s:%d: column %ld does not exist (the sentence has %zu column%s)",
                      t->origin, t->maxcol_line, t->maxcol, seq->ncols,
                      seq->ncols == 1 ? "" : "s");
    for (size_t i = 0; i < t->nnames; i++) {
        w->cols[i] = -1;
        for (size_t c = 0; seq->colnames && c < seq->ncols; c++)
            if (seq->colnames[c] && !strcmp(seq->colnames[c], t->names[i])) {
                w->cols[i] = (long)c;
                break;
            }
        if (w->cols[i] < 0)
            return report(ex, CRFP_EPARSE, "%s:%d: unknown column name '%s'", t->origin,
                          t->name_line[i], t->names[i]);
    }
    return CRFP_OK;
}

static crfp_status run(tpl_extractor *ex, tpl_ws *w, const crfp_tokseq *seq, crfp_obsseq *out)
{
    const tpl *t = ex->t;
    crfp_status st = crfp_obsseq_reset(out, seq->ntok);
    if (st)
        return report(ex, st, "%s: cannot reset the observations", t->origin);
    if ((st = resolve(ex, w, seq)))
        return st;
    const long ntok = (long)seq->ntok;
    for (long tok = 0; tok < ntok; tok++) {
        for (size_t p = 0; p < t->npats; p++) {
            const tpl_pattern *pat = &t->pats[p];
            size_t len = 0;
            for (size_t k = 0; k < pat->n; k++) {
                const tpl_piece *pc = &t->pieces[pat->first + k];
                if (pc->kind == TPL_LIT) {
                    if (append(w, &len, t->lits + pc->lit, pc->litlen))
                        return CRFP_ENOMEM;
                    continue;
                }
                long pos = tok + pc->row;
                if (pos < 0 || pos >= ntok) {
                    char pad[32];
                    int n = pos < 0 ? snprintf(pad, sizeof pad, "_B%ld", pos)
                                    : snprintf(pad, sizeof pad, "_B+%ld", pos - ntok + 1);
                    if (append(w, &len, pad, (size_t)n))
                        return CRFP_ENOMEM;
                    continue;
                }
                long col = pc->col >= 0 ? pc->col : w->cols[pc->name];
                const char *cell = seq->cells[(size_t)pos * seq->ncols + (size_t)col];
                switch (pc->op) {
                case 'x':
                    if (append(w, &len, cell ? cell : TPL_NIL, cell ? strlen(cell) : 4))
                        return CRFP_ENOMEM;
                    break;
                case 'X':
                    if (!cell) {
                        if (append(w, &len, TPL_NIL, 4))
                            return CRFP_ENOMEM;
                    } else if ((st = lowercase(ex, w, &len, cell))) {
                        return st;
                    }
                    break;
                default:
                    if ((st = apply_regex(ex, pat, w, &len, pc, cell ? cell : "")))
                        return st;
                }
            }
            if ((st = crfp_obsseq_push(out, (size_t)tok, pat->flags, w->buf, len)))
                return st;
        }
    }
    return CRFP_OK;
}

crfp_status tpl_extract(tpl_extractor *ex, const crfp_tokseq *seq, crfp_obsseq *out)
{
    if (!ex)
        return CRFP_EINVAL;
    if (!seq || !out || (seq->ntok && seq->ncols && !seq->cells))
        return report(ex, CRFP_EINVAL, "%s: extract called without a token table",
                      ex->t->origin);
    pthread_mutex_lock(&ex->lock);
    tpl_ws *w = ex->pool;
    if (w)
        ex->pool = w->next;
    else
        w = ws_new(ex->t);
    pthread_mutex_unlock(&ex->lock);
    if (!w)
        return report(ex, CRFP_ENOMEM, "%s: out of memory (extraction workspace)", ex->t->origin);
    crfp_status st = run(ex, w, seq, out);
    if (st == CRFP_ENOMEM)
        report(ex, st, "%s: out of memory while extracting", ex->t->origin);
    pthread_mutex_lock(&ex->lock);
    w->next = ex->pool;
    ex->pool = w;
    pthread_mutex_unlock(&ex->lock);
    return st;
}
