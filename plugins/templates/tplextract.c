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
 * the empty string by %t/%T/%m/%M and %p/%s/%w.
 *
 * Each observation is built in the workspace buffer and then pushed.  A
 * sentence reads each cell about as many times as the template has
 * patterns, so the hot path is a recompiled form of the pieces ("steps"):
 * literals of up to 16 bytes are stored padded to 16, the cells %x reads
 * are staged once per sentence into a buffer where each is followed by at
 * least 16 readable bytes, and "_B" paddings are formatted once per
 * extractor; a step is then one fixed 16-byte copy.  %X, regexes and long
 * values take the general path.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>
#include "crfpipe/alloc.h"
#include "tpl.h"

#define TPL_NIL "_NIL"
/* Paddings "_B-k" / "_B+k" kept preformatted for k up to this. */
#define PAD_MAX 16
/* Bytes a fast step copies at once (its value padded to this). */
#define CHUNK 16

enum { STEP_LIT, STEP_X, STEP_SLOW };

typedef struct tpl_step {
    unsigned char kind;       /* STEP_* */
    unsigned char n;          /* LIT: bytes of lit used */
    int row;                  /* X */
    long col;                 /* X: column index, or -1: names[name] */
    size_t name;
    const tpl_piece *pc;      /* SLOW: the piece */
    char lit[CHUNK];          /* LIT: zero-padded */
} tpl_step;

typedef struct tpl_ws {
    struct tpl_ws *next;
    URegularExpression **rx;   /* clones, tpl.nrx */
    long *cols;                /* names resolved for the current sentence */
    char *buf;
    size_t cap;
    /* cells %x reads, this sentence: value at cp[i] (length cn[i]) with
     * CHUNK readable bytes from there on */
    const char **cp;
    size_t *cn;
    size_t ccap;
    char *stage;               /* the staged values */
    size_t stage_cap;
    unsigned char *xcol;       /* per column: some %x piece reads it */
    size_t xcol_cap;
    crfp_obsseq *one;          /* '#!wapiti-me': one token's observations */
} tpl_ws;

typedef struct tpl_pad {
    char s[CHUNK];
    size_t n;
} tpl_pad;

struct tpl_extractor {
    crfp_host *host;
    tpl *t;
    pthread_mutex_t lock;      /* guards pool and error reporting */
    tpl_ws *pool;
    tpl_pad pad[2][PAD_MAX + 1]; /* [0][k] "_B-k", [1][k] "_B+k" */
    tpl_pad nil;                 /* "_NIL" */
    tpl_step *steps;             /* of pattern p: [sfirst[p], sfirst[p+1]) */
    size_t *sfirst;
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
    free(w->cp);
    free(w->cn);
    free(w->stage);
    free(w->xcol);
    crfp_obsseq_free(w->one);
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
        /* A clone builds a matcher, with the same unchecked allocations as
         * compiling (see add_regex): in a reserve section too. */
        crfp_reserve_section rs;
        if (crfp_reserve_enter(&rs) != CRFP_OK) {
            ws_free(t, w);
            return NULL;
        }
        w->rx[i] = uregex_clone(t->rx[i], &err);
        if (crfp_reserve_leave(&rs) && U_SUCCESS(err))
            err = U_MEMORY_ALLOCATION_ERROR;
        /* A clone starts with ICU's defaults (no time limit), so the limits
         * are set here, once per clone, and never on the matching path. */
        if (U_SUCCESS(err))
            uregex_setTimeLimit(w->rx[i], t->rx_time, &err);
        if (U_SUCCESS(err))
            uregex_setStackLimit(w->rx[i], t->rx_stack, &err);
        if (U_FAILURE(err)) {
            if (w->rx[i])
                uregex_close(w->rx[i]);
            w->rx[i] = NULL;
            ws_free(t, w);
            return NULL;
        }
    }
    return w;
}

/* Recompile the pieces into steps: literals cut into CHUNK-byte parts, %x
 * cells, and everything else as it is. */
static int compile_steps(tpl_extractor *ex)
{
    const tpl *t = ex->t;
    size_t n = 0;
    for (size_t i = 0; i < t->npieces; i++) {
        const tpl_piece *pc = &t->pieces[i];
        n += pc->kind == TPL_LIT ? (pc->litlen + CHUNK - 1) / CHUNK : 1;
    }
    ex->steps = calloc(n ? n : 1, sizeof *ex->steps);
    ex->sfirst = calloc(t->npats + 1, sizeof *ex->sfirst);
    if (!ex->steps || !ex->sfirst)
        return -1;
    n = 0;
    for (size_t p = 0; p < t->npats; p++) {
        ex->sfirst[p] = n;
        for (size_t k = 0; k < t->pats[p].n; k++) {
            const tpl_piece *pc = &t->pieces[t->pats[p].first + k];
            if (pc->kind == TPL_LIT) {
                for (size_t o = 0; o < pc->litlen; o += CHUNK) {
                    tpl_step *st = &ex->steps[n++];
                    size_t m = pc->litlen - o < CHUNK ? pc->litlen - o : CHUNK;
                    st->kind = STEP_LIT;
                    st->n = (unsigned char)m;
                    memcpy(st->lit, t->lits + pc->lit + o, m);
                }
                continue;
            }
            tpl_step *st = &ex->steps[n++];
            st->kind = pc->op == 'x' && !t->wapiti ? STEP_X : STEP_SLOW;
            st->row = pc->row;
            st->col = pc->col;
            st->name = pc->name;
            st->pc = pc;
        }
    }
    ex->sfirst[t->npats] = n;
    return 0;
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
    /* ICU takes int32_t limits: clamp rather than wrap. */
    size_t tl = crfp_host_limit(host, CRFP_LIMIT_REGEX_TIME);
    size_t sl = crfp_host_limit(host, CRFP_LIMIT_REGEX_STACK);
    t->rx_time = tl > INT32_MAX ? INT32_MAX : (int32_t)tl;
    t->rx_stack = sl > INT32_MAX ? INT32_MAX : (int32_t)sl;
    if (compile_steps(ex)) {
        tpl_extractor_free(ex);
        return crfp_error(host, CRFP_ENOMEM, "templates: cannot create the extractor");
    }
    memcpy(ex->nil.s, TPL_NIL, 4);
    ex->nil.n = 4;
    for (int k = 1; k <= PAD_MAX; k++) {
        ex->pad[0][k].n = (size_t)snprintf(ex->pad[0][k].s, sizeof ex->pad[0][k].s, "_B-%d", k);
        ex->pad[1][k].n = (size_t)snprintf(ex->pad[1][k].s, sizeof ex->pad[1][k].s, "_B+%d", k);
    }
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
    free(ex->steps);
    free(ex->sfirst);
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
    /* ICU 72 loses the clone of the text that uregex_setUText makes when a
     * later allocation of that clone fails: matched in a reserve section
     * (alloc.h), the clone is whole and running out of memory is reported
     * after the match. */
    crfp_reserve_section rs;
    if (crfp_reserve_enter(&rs) != CRFP_OK)
        return report(ex, CRFP_ENOMEM, "%s:%d: out of memory matching a regular expression",
                      ex->t->origin, pat->line);
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
    if (crfp_reserve_leave(&rs))
        err = U_MEMORY_ALLOCATION_ERROR;
    if (err == U_REGEX_TIME_OUT || err == U_REGEX_STACK_OVERFLOW) {
        int time = err == U_REGEX_TIME_OUT;
        const char *name = time ? "regex-time" : "regex-stack";
        return report(ex, CRFP_EPARSE,
                      "%s:%d: regular expression %s on '%.40s%s': exceeded the limit %s=%ld "
                      "(catastrophic backtracking?  raise it with --limit %s=N or "
                      "CRFPIPE_LIMITS=%s=N; 0 = unlimited)",
                      ex->t->origin, pat->line, time ? "too slow" : "too deep", s,
                      strlen(s) > 40 ? "..." : "", name,
                      (long)(time ? ex->t->rx_time : ex->t->rx_stack), name, name);
    }
    if (err == U_MEMORY_ALLOCATION_ERROR)
        return report(ex, CRFP_ENOMEM, "%s:%d: out of memory matching a regular expression",
                      ex->t->origin, pat->line);
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
        if (err == U_MEMORY_ALLOCATION_ERROR)
            return report(ex, CRFP_ENOMEM, "%s: out of memory lowercasing '%s'", ex->t->origin,
                          s);
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

static int grow(void **p, size_t *cap, size_t need, size_t elt)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elt);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Stage the cells %x pieces read (see the top of the file); a missing
 * feature reads as "_NIL". */
static crfp_status stage(tpl_extractor *ex, tpl_ws *w, const crfp_tokseq *seq)
{
    const tpl *t = ex->t;
    const size_t ncols = seq->ncols, ntok = seq->ntok, ncells = ntok * ncols;
    size_t xcap = w->xcol_cap;
    if (grow((void **)&w->xcol, &xcap, ncols, 1))
        return CRFP_ENOMEM;
    w->xcol_cap = xcap;
    size_t ccap = w->ccap, ccap2 = w->ccap;
    if (grow((void **)&w->cp, &ccap, ncells, sizeof *w->cp) ||
        grow((void **)&w->cn, &ccap2, ncells, sizeof *w->cn))
        return CRFP_ENOMEM;
    w->ccap = ccap < ccap2 ? ccap : ccap2;
    if (ncols)
        memset(w->xcol, 0, ncols);
    for (size_t i = 0; i < t->npieces; i++) {
        const tpl_piece *pc = &t->pieces[i];
        /* (the Wapiti dialect reads every cell on the general path) */
        if (pc->kind == TPL_CELL && pc->op == 'x' && !t->wapiti)
            w->xcol[pc->col >= 0 ? pc->col : w->cols[pc->name]] = 1;
    }
    size_t bytes = CHUNK;
    for (size_t c = 0; c < ncols; c++)
        for (size_t tok = 0; w->xcol[c] && tok < ntok; tok++) {
            const char *cell = seq->cells[tok * ncols + c];
            size_t n = cell ? strlen(cell) : 0;
            w->cn[tok * ncols + c] = n;
            bytes += n + 1;
        }
    if (grow((void **)&w->stage, &w->stage_cap, bytes, 1))
        return CRFP_ENOMEM;
    size_t off = 0;
    for (size_t c = 0; c < ncols; c++)
        for (size_t tok = 0; w->xcol[c] && tok < ntok; tok++) {
            const size_t i = tok * ncols + c;
            const char *cell = seq->cells[i];
            if (!cell) {
                w->cp[i] = ex->nil.s;
                w->cn[i] = ex->nil.n;
                continue;
            }
            memcpy(w->stage + off, cell, w->cn[i] + 1);
            w->cp[i] = w->stage + off;
            off += w->cn[i] + 1;
        }
    memset(w->stage + off, 0, CHUNK);
    return CRFP_OK;
}

/* %p / %s: the first / last `len` characters (code points) of s, nothing
 * when s is shorter, as %m[..,"^.{n}"] and %m[..,".{n}$"] give them but
 * without a regex. */
static int affix(tpl_ws *w, size_t *len, const char *s, int n, int suffix)
{
    int32_t slen = (int32_t)strlen(s), i;
    if (!suffix) {
        i = 0;
        for (int k = 0; k < n; k++) {
            if (i >= slen)
                return 0;
            U8_FWD_1(s, i, slen);
        }
        return append(w, len, s, (size_t)i);
    }
    i = slen;
    for (int k = 0; k < n; k++) {
        if (i <= 0)
            return 0;
        U8_BACK_1((const uint8_t *)s, 0, i);
    }
    return append(w, len, s + i, (size_t)(slen - i));
}

/* %w: the word shape, each character by its class -- X upper case, x lower
 * case, a other letters, d digits, anything else itself -- with runs of
 * one class written once: "McDonald's" -> "XxXx'x", "1990s" -> "dx". */
static int shape(tpl_ws *w, size_t *len, const char *s)
{
    int32_t slen = (int32_t)strlen(s), i = 0;
    UChar32 last = -1;
    while (i < slen) {
        int32_t start = i;
        UChar32 c;
        U8_NEXT(s, i, slen, c);
        char cls;
        if (c < 0)
            cls = '?';
        else if (u_isupper(c) || u_istitle(c))
            cls = 'X';
        else if (u_islower(c))
            cls = 'x';
        else if (u_isalpha(c))
            cls = 'a';
        else if (u_isdigit(c))
            cls = 'd';
        else
            cls = 0;
        UChar32 key = cls ? (UChar32)(unsigned char)cls + 0x110000 : c;
        if (key == last)
            continue;
        last = key;
        if (cls ? append(w, len, &cls, 1) : append(w, len, s + start, (size_t)(i - start)))
            return -1;
    }
    return 0;
}

/* Append the n bytes at v, with A-Z lowered when lower is set (Wapiti's
 * tolower in the "C" locale). */
static int append_ascii(tpl_ws *w, size_t *len, const char *v, size_t n, int lower)
{
    size_t at = *len;
    if (append(w, len, v, n))
        return -1;
    for (size_t i = at; lower && i < *len; i++)
        if (w->buf[i] >= 'A' && w->buf[i] <= 'Z')
            w->buf[i] = (char)(w->buf[i] - 'A' + 'a');
    return 0;
}

/* A piece of a template in Wapiti's dialect, as Wapiti computes it: a row
 * outside the sentence reads "_x-1" to "_x-4", then "_x-#" (and "_x+1" ...
 * past the end), and %t and %m run on that string too; upper case
 * commands lowercase their result in ASCII; regexes are Wapiti's
 * (tplwapiti.c), their backtracking bounded by the regex-time limit. */
static crfp_status wapiti_piece(tpl_extractor *ex, tpl_ws *w, const crfp_tokseq *seq,
                                const tpl_pattern *pat, const tpl_piece *pc, long tok,
                                size_t *len)
{
    const tpl *t = ex->t;
    const long ntok = (long)seq->ntok;
    long pos = !pc->absolute ? tok + pc->row : pc->row < 0 ? pc->row + ntok : pc->row - 1;
    char pad[8];
    const char *v;
    if (pos < 0 || pos >= ntok) {
        long k = pos < 0 ? -pos - 1 : pos - ntok;
        snprintf(pad, sizeof pad, "_x%c%c", pos < 0 ? '-' : '+', k < 4 ? (char)('1' + k) : '#');
        v = pad;
    } else {
        v = seq->cells[(size_t)pos * seq->ncols + (size_t)pc->col];
        if (!v)
            v = pc->op == 'x' || pc->op == 'X' ? TPL_NIL : "";
    }
    char op = pc->op;
    int lower = op >= 'A' && op <= 'Z';
    if (op == 'x' || op == 'X')
        return append_ascii(w, len, v, strlen(v), lower) ? CRFP_ENOMEM : CRFP_OK;
    /* ICU's time unit is about 10,000 steps of its matcher (host.h) */
    unsigned long budget = (unsigned long)t->rx_time * 10000UL;
    size_t n = 0;
    long at = tpl_wrx_find(t->wrx[pc->rx], v, &n, t->rx_time ? &budget : NULL);
    if (at == -2)
        return report(ex, CRFP_EPARSE,
                      "%s:%d: regular expression too slow on '%.40s%s': exceeded the limit "
                      "regex-time=%ld (catastrophic backtracking?  raise it with --limit "
                      "regex-time=N or CRFPIPE_LIMITS=regex-time=N; 0 = unlimited)",
                      t->origin, pat->line, v, strlen(v) > 40 ? "..." : "", (long)t->rx_time);
    int r;
    if (op == 't' || op == 'T')
        r = at >= 0 ? append(w, len, "true", 4) : append(w, len, "false", 5);
    else
        r = at >= 0 ? append_ascii(w, len, v + at, n, lower) : 0;
    return r ? CRFP_ENOMEM : CRFP_OK;
}

/* A piece the steps do not cover: %X, regexes, affixes, shapes (values
 * outside the sentence are paddings for them too), and every piece of the
 * Wapiti dialect. */
static crfp_status slow_piece(tpl_extractor *ex, tpl_ws *w, const crfp_tokseq *seq,
                              const tpl_pattern *pat, const tpl_piece *pc, long tok,
                              size_t *len)
{
    if (ex->t->wapiti)
        return wapiti_piece(ex, w, seq, pat, pc, tok, len);
    const long ntok = (long)seq->ntok;
    const long pos = tok + pc->row;
    if (pos < 0 || pos >= ntok) {
        char pad[32];
        int n = pos < 0 ? snprintf(pad, sizeof pad, "_B%ld", pos)
                        : snprintf(pad, sizeof pad, "_B+%ld", pos - ntok + 1);
        return append(w, len, pad, (size_t)n) ? CRFP_ENOMEM : CRFP_OK;
    }
    long col = pc->col >= 0 ? pc->col : w->cols[pc->name];
    const char *cell = seq->cells[(size_t)pos * seq->ncols + (size_t)col];
    if (pc->op == 'X') {
        if (!cell)
            return append(w, len, TPL_NIL, 4) ? CRFP_ENOMEM : CRFP_OK;
        return lowercase(ex, w, len, cell);
    }
    if (pc->op == 'p' || pc->op == 's')
        return affix(w, len, cell ? cell : "", pc->len, pc->op == 's') ? CRFP_ENOMEM : CRFP_OK;
    if (pc->op == 'w')
        return shape(w, len, cell ? cell : "") ? CRFP_ENOMEM : CRFP_OK;
    return apply_regex(ex, pat, w, len, pc, cell ? cell : "");
}

static crfp_status run(tpl_extractor *ex, tpl_ws *w, const crfp_tokseq *seq, crfp_obsseq *out)
{
    const tpl *t = ex->t;
    crfp_status st = crfp_obsseq_reset(out, seq->ntok);
    if (st)
        return report(ex, st, "%s: cannot reset the observations", t->origin);
    if ((st = resolve(ex, w, seq)))
        return st;
    if ((st = stage(ex, w, seq)))
        return st;
    /* Everything the loop reads is in locals: the stores into the buffer
     * go through char pointers, which may alias any field, so fields would
     * be reloaded after every copy. */
    const long ntok = (long)seq->ntok;
    const size_t ncols = seq->ncols, npats = t->npats;
    const char *const *cp = w->cp;
    const size_t *cn = w->cn;
    const long *cols = w->cols;
    const tpl_step *steps = ex->steps;
    const size_t *sfirst = ex->sfirst;
    char *buf = w->buf;
    size_t cap = w->cap;
    for (long tok = 0; tok < ntok; tok++) {
        for (size_t p = 0; p < npats; p++) {
            const tpl_step *sp = steps + sfirst[p], *se = steps + sfirst[p + 1];
            size_t len = 0;
            for (; sp < se; sp++) {
                /* room for a whole chunk and the final NUL */
                if (cap - len < CHUNK + 1) {
                    if (reserve(w, len, CHUNK + 1))
                        return CRFP_ENOMEM;
                    buf = w->buf, cap = w->cap;
                }
                if (sp->kind == STEP_LIT) {
                    memcpy(buf + len, sp->lit, CHUNK);
                    len += sp->n;
                    continue;
                }
                const long pos = tok + sp->row;
                const char *v;
                size_t n;
                if (sp->kind == STEP_X && pos >= 0 && pos < ntok) {
                    size_t at = (size_t)pos * ncols + (size_t)(sp->col >= 0 ? sp->col
                                                                             : cols[sp->name]);
                    v = cp[at];
                    n = cn[at];
                } else {
                    long far = pos < 0 ? -pos : pos - ntok + 1;
                    if (sp->kind == STEP_SLOW || far > PAD_MAX) {
                        if ((st = slow_piece(ex, w, seq, &t->pats[p], sp->pc, tok, &len)))
                            return st;
                        buf = w->buf, cap = w->cap;
                        continue;
                    }
                    v = ex->pad[pos >= 0][far].s;
                    n = ex->pad[pos >= 0][far].n;
                }
                if (n <= CHUNK) {
                    memcpy(buf + len, v, CHUNK);
                } else {
                    if (reserve(w, len, n + 1))
                        return CRFP_ENOMEM;
                    buf = w->buf, cap = w->cap;
                    memcpy(buf + len, v, n);
                }
                len += n;
            }
            if ((st = crfp_obsseq_push(out, (size_t)tok, t->pats[p].flags, buf, len)))
                return st;
        }
    }
    return CRFP_OK;
}

/* '#!wapiti-me', as `wapiti --me` reads data with patterns: every token is
 * a sequence of its own (so rows other than its own read the paddings),
 * and every observation is named "u" and what the pattern gives, as Wapiti
 * interns it.  Wapiti makes it a unigram when its pattern is u or *; a b
 * pattern's observations feed label pairs, which a one-token sequence does
 * not have, so they score nothing and are left out. */
static crfp_status run_me(tpl_extractor *ex, tpl_ws *w, const crfp_tokseq *seq, crfp_obsseq *out)
{
    crfp_status st = crfp_obsseq_reset(out, seq->ntok);
    if (st)
        return report(ex, st, "%s: cannot reset the observations", ex->t->origin);
    if (!w->one && !(w->one = crfp_obsseq_new()))
        return CRFP_ENOMEM;
    for (size_t tok = 0; tok < seq->ntok; tok++) {
        crfp_tokseq alone = {1, seq->ncols, seq->colnames,
                             seq->cells ? seq->cells + tok * seq->ncols : NULL};
        if ((st = run(ex, w, &alone, w->one)))
            return st;
        const char *const *strs;
        const unsigned char *flags;
        size_t n;
        crfp_obsseq_get(w->one, 0, &strs, &flags, &n);
        for (size_t k = 0; k < n; k++) {
            if (!(flags[k] & CRFP_OBS_UNIGRAM))
                continue;
            size_t len = strlen(strs[k]);
            if (reserve(w, 0, len + 2))
                return CRFP_ENOMEM;
            w->buf[0] = 'u';
            memcpy(w->buf + 1, strs[k], len + 1);
            if ((st = crfp_obsseq_push(out, tok, CRFP_OBS_UNIGRAM, w->buf, len + 1)))
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
    crfp_status st = ex->t->wapiti_me ? run_me(ex, w, seq, out) : run(ex, w, seq, out);
    if (st == CRFP_ENOMEM)
        report(ex, st, "%s: out of memory while extracting", ex->t->origin);
    pthread_mutex_lock(&ex->lock);
    w->next = ex->pool;
    ex->pool = w;
    pthread_mutex_unlock(&ex->lock);
    return st;
}
