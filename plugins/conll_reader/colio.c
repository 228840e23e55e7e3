/* Line input and text helpers shared by the column readers. */
#include "config.h"
#include "colio.h"

#include <errno.h>
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

/* Room for n + 2 bytes (the byte being added and the NUL). */
static int line_reserve(colio_lines *L, size_t n)
{
    if (n + 2 <= L->cap)
        return 0;
    size_t cap = L->cap ? L->cap : 256;
    while (cap < n + 2)
        cap *= 2;
    char *p = realloc(L->line, cap);
    if (!p)
        return -1;
    L->line = p;
    L->cap = cap;
    return 0;
}

crfp_status colio_next(colio_lines *L, int *got)
{
    if (L->pushed) {
        L->pushed = 0;
        *got = 1;
        return CRFP_OK;
    }
    *got = 0;
    /* Byte by byte rather than getline(3): getline cannot bound the line,
     * and when it runs out of memory it returns -1 like end of file, so a
     * huge line used to end the input silently (exit 0, truncated output). */
    size_t limit = crfp_host_limit(L->host, CRFP_LIMIT_LINE);
    FILE *fp = L->in->fp;
    size_t n = 0;
    int c = EOF, oom = 0;
    errno = 0;
    flockfile(fp);
    while ((c = getc_unlocked(fp)) != EOF) {
        if (line_reserve(L, n)) {
            oom = 1;
            break;
        }
        L->line[n++] = (char)c;
        if (c == '\n' || (limit && n > limit + 1))
            break;
    }
    int err = ferror(fp);
    funlockfile(fp);
    if (oom)
        return crfp_error(L->host, CRFP_ENOMEM,
                          "%s:%lu: out of memory reading a line (%zu bytes so far)", L->in->name,
                          L->lineno + 1, n);
    if (err)
        return crfp_error(L->host, CRFP_EIO, "%s:%lu: read error: %s", L->in->name,
                          L->lineno + 1, strerror(errno));
    if (n == 0)
        return CRFP_OK;
    L->lineno++;
    L->has_nl = L->line[n - 1] == '\n';
    if (L->has_nl)
        n--;
    L->crlf = L->has_nl && n > 0 && L->line[n - 1] == '\r';
    if (L->crlf)
        n--;
    if (limit && n > limit)
        return crfp_error(L->host, CRFP_EPARSE,
                          "%s:%lu: line longer than the limit line=%zu bytes (raise it with "
                          "--limit line=N or CRFPIPE_LIMITS=line=N; 0 = unlimited)",
                          L->in->name, L->lineno, limit);
    L->len = n;
    L->line[n] = '\0';
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
    free(L->line);
    L->line = NULL;
    L->cap = 0;
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
