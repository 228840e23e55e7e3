/* Line input and text helpers shared by the column readers. */
#include "config.h"
#include "colio.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

crfp_status colio_buf_add(colio_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p)
            return CRFP_ENOMEM;
        b->s = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return CRFP_OK;
}

void colio_buf_free(colio_buf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

/* Byte offset of the first invalid UTF-8 sequence, or n when valid.  Rejects
 * overlong forms, surrogates and code points above U+10FFFF, which
 * crfp_doc_set_text would refuse later without a line number. */
static size_t utf8_invalid_at(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        unsigned cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            k = 1, cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            k = 2, cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            k = 3, cp = c & 0x07;
        } else {
            return i;
        }
        if (i + k >= n)
            return i;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + j] & 0x3F);
        }
        if ((k == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return i;
        i += k + 1;
    }
    return n;
}

/* Whether n bytes are all ASCII and not NUL, eight at a time; the answer
 * for most lines of most corpora, so the byte-wise checks below run only on
 * the lines that need them. */
static int plain_ascii(const char *s, size_t n)
{
    const uint64_t lo = 0x0101010101010101ull, hi = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        if (((v - lo) & ~v & hi) | (v & hi))
            return 0;
    }
    for (; i < n; i++)
        if (s[i] == '\0' || (unsigned char)s[i] >= 0x80)
            return 0;
    return 1;
}

/* Blocks read at a time.  Small enough that the bytes read past the end of
 * a batch (copied into the next batch's buffer) cost little, large enough
 * that fread goes straight to read(2) without the stdio buffer. */
#define COLIO_BLOCK ((size_t)64 * 1024)

/* Read the next block; at least one spare byte always follows the data
 * (colio_take's NUL).  *oom on allocation failure. */
static crfp_status fill(colio_lines *L, int *oom)
{
    *oom = 0;
    if (L->dcap - L->dlen < COLIO_BLOCK + 1) {
        size_t cap = L->dcap ? L->dcap : 2 * COLIO_BLOCK;
        while (cap - L->dlen < COLIO_BLOCK + 1)
            cap *= 2;
        char *p = realloc(L->data, cap);
        if (!p) {
            *oom = 1;
            return CRFP_ENOMEM;
        }
        L->data = p;
        L->dcap = cap;
    }
    errno = 0;
    size_t n = fread(L->data + L->dlen, 1, COLIO_BLOCK, L->in->fp);
    L->dlen += n;
    if (n < COLIO_BLOCK) {
        if (ferror(L->in->fp))
            return crfp_error(L->host, CRFP_EIO, "%s:%lu: read error: %s", L->in->name,
                              L->lineno + 1, strerror(errno ? errno : EIO));
        L->eof = 1;
    }
    return CRFP_OK;
}

crfp_status colio_next(colio_lines *L, int *got)
{
    if (L->pushed) {
        L->pushed = 0;
        L->line = L->data + L->line_off;
        *got = 1;
        return CRFP_OK;
    }
    *got = 0;
    /* A line is bounded by the `line` limit: reading stops as soon as the
     * partial line is over it, so a huge line never fills memory (and, with
     * the limit lifted, running out of memory is an error, never taken for
     * the end of the input). */
    size_t limit = crfp_host_limit(L->host, CRFP_LIMIT_LINE);
    size_t start = L->pos, scan = start;
    const char *nl = NULL;
    for (;;) {
        if (L->dlen > scan && (nl = memchr(L->data + scan, '\n', L->dlen - scan)))
            break;
        scan = L->dlen;
        if (L->eof)
            break;
        if (limit && L->dlen - start > limit + 2)
            break;
        int oom;
        crfp_status st = fill(L, &oom);
        if (oom)
            return crfp_error(L->host, CRFP_ENOMEM,
                              "%s:%lu: out of memory reading a line (%zu bytes so far)",
                              L->in->name, L->lineno + 1, L->dlen - start);
        if (st != CRFP_OK)
            return st;
    }
    if (!nl && L->dlen == start)
        return CRFP_OK;
    size_t n = nl ? (size_t)(nl - (L->data + start)) : L->dlen - start;
    L->lineno++;
    L->line_off = start;
    L->line = L->data + start;
    L->has_nl = nl != NULL;
    L->pos = start + n + (nl != NULL);
    L->crlf = L->has_nl && n > 0 && L->line[n - 1] == '\r';
    if (L->crlf)
        n--;
    if (limit && n > limit)
        return crfp_error(L->host, CRFP_EPARSE,
                          "%s:%lu: line longer than the limit line=%zu bytes (raise it with "
                          "--limit line=N or CRFPIPE_LIMITS=line=N; 0 = unlimited)",
                          L->in->name, L->lineno, limit);
    L->len = n;
    /* NUL-terminated in place, over its '\r' or '\n' (or the spare byte
     * after the data), as the readers want their lines. */
    L->line[n] = '\0';
    L->ascii = plain_ascii(L->line, n);
    if (L->ascii) {
        *got = 1;
        return CRFP_OK;
    }
    if (memchr(L->line, '\0', n))
        return crfp_error(L->host, CRFP_EPARSE, "%s:%lu: NUL byte in line", L->in->name,
                          L->lineno);
    size_t bad = utf8_invalid_at((const unsigned char *)L->line, n);
    if (bad < n)
        return crfp_error(L->host, CRFP_EUTF8, "%s:%lu: invalid UTF-8 at byte %zu of the line",
                          L->in->name, L->lineno, bad + 1);
    *got = 1;
    return CRFP_OK;
}

void colio_discard(colio_lines *L)
{
    size_t cut = L->pushed ? L->line_off : L->pos;
    if (L->dlen > cut)
        memmove(L->data, L->data + cut, L->dlen - cut);
    L->dlen -= cut;
    L->pos -= cut;
    L->line_off = L->pushed ? 0 : L->pos;
    L->line = L->data ? L->data + L->line_off : NULL;
}

void colio_discard_consumed(colio_lines *L)
{
    if (colio_batch_bytes(L) >= COLIO_BLOCK)
        colio_discard(L);
}

crfp_status colio_take(colio_lines *L, char **buf, size_t *size)
{
    /* The batch is copied out (one memcpy of ~batch-bytes) and the read
     * buffer kept: handing the read buffer itself over meant a fresh buffer
     * per batch, of a size glibc serves with mmap, so every batch faulted
     * in new zeroed pages; a batch-sized copy comes from the heap, which
     * the freed documents keep supplying. */
    size_t cut = L->pushed ? L->line_off : L->pos;
    char *out = malloc(cut + 1);
    if (!out)
        return crfp_error(L->host, CRFP_ENOMEM, "%s:%lu: out of memory", L->in->name,
                          L->lineno);
    if (cut)
        memcpy(out, L->data, cut);
    /* the spare byte: a last line without a terminator ends its last field
     * here (written by the reader before the take) */
    out[cut] = L->data ? L->data[cut] : '\0';
    *buf = out;
    *size = cut;
    colio_discard(L);
    return CRFP_OK;
}

crfp_status colio_sentence_limit(colio_lines *L, size_t ntok)
{
    size_t limit = crfp_host_limit(L->host, CRFP_LIMIT_SENTENCE);
    if (!limit || ntok <= limit)
        return CRFP_OK;
    return crfp_error(L->host, CRFP_EPARSE,
                      "%s:%lu: sentence longer than the limit sentence-tokens=%zu (a missing "
                      "blank line?  raise it with --limit sentence-tokens=N or "
                      "CRFPIPE_LIMITS=sentence-tokens=N; 0 = unlimited)",
                      L->in->name, L->lineno, limit);
}

void colio_unread(colio_lines *L)
{
    L->pushed = 1;
}

void colio_lines_free(colio_lines *L)
{
    free(L->data);
    L->data = L->line = NULL;
    L->dlen = L->dcap = L->pos = 0;
}

size_t colio_utf16_len(const char *s, size_t n)
{
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xC0) != 0x80)
            u += c >= 0xF0 ? 2 : 1;
    }
    return u;
}

size_t colio_unit_len(crfp_offset_unit unit, const char *s, size_t n)
{
    if (unit == CRFP_OFFSET_BYTE)
        return n;
    if (unit == CRFP_OFFSET_CODEPOINT) {
        size_t u = 0;
        for (size_t i = 0; i < n; i++)
            u += ((unsigned char)s[i] & 0xC0) != 0x80;
        return u;
    }
    return colio_utf16_len(s, n);
}

int colio_probe_line(const char *buf, size_t len, size_t *at, size_t *b, size_t *e,
                     int *complete)
{
    if (*at >= len)
        return 0;
    *b = *at;
    const char *nl = memchr(buf + *at, '\n', len - *at);
    *e = nl ? (size_t)(nl - buf) : len;
    *complete = nl != NULL;
    *at = nl ? *e + 1 : len;
    if (*e > *b && buf[*e - 1] == '\r')
        (*e)--;
    return 1;
}

int colio_probe_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

int colio_finite(const char *s, size_t n, double *v)
{
    char num[64];
    if (n == 0 || n >= sizeof num)
        return 0;
    memcpy(num, s, n);
    num[n] = '\0';
    char *end;
    *v = strtod(num, &end);
    return *end == '\0' && isfinite(*v);
}
