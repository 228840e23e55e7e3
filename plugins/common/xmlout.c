/* xmlout — see xmlout.h. */
#include "config.h"
#include "xmlout.h"

#include "crfpipe/crfpipe.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xmlout_put(xmlout *o, const char *s, size_t n)
{
    if (o->oom)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 65536;
        while (cap < o->len + n + 1) {
            if (cap > SIZE_MAX / 2) {
                o->oom = 1;
                return;
            }
            cap *= 2;
        }
        char *b = realloc(o->buf, cap);
        if (!b) {
            o->oom = 1;
            return;
        }
        o->buf = b;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

void xmlout_puts(xmlout *o, const char *s)
{
    xmlout_put(o, s, strlen(s));
}

void xmlout_esc(xmlout *o, const char *s, size_t n, int attr)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = NULL;
        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '\r': rep = "&#13;"; break;
        case '"': rep = attr ? "&quot;" : NULL; break;
        case '\t': rep = attr ? "&#9;" : NULL; break;
        case '\n': rep = attr ? "&#10;" : NULL; break;
        default: break;
        }
        if (!rep)
            continue;
        xmlout_put(o, s + run, i - run);
        xmlout_puts(o, rep);
        run = i + 1;
    }
    xmlout_put(o, s + run, n - run);
}

void xmlout_reset(xmlout *o)
{
    o->len = 0;
    o->oom = 0;
    if (o->buf)
        o->buf[0] = '\0';
}

void xmlout_free(xmlout *o)
{
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
}

const char *xmlout_scalar(const crfp_value *v, char *buf, size_t len)
{
    switch (v->type) {
    case CRFP_V_STRING: return v->u.s;
    case CRFP_V_INT: snprintf(buf, len, "%" PRId64, v->u.i); return buf;
    case CRFP_V_FLOAT:
        if (isnan(v->u.f))
            return "NaN";
        if (isinf(v->u.f))
            return v->u.f > 0 ? "Infinity" : "-Infinity";
        snprintf(buf, len, "%.17g", v->u.f);
        return buf;
    case CRFP_V_BOOL: return v->u.b ? "true" : "false";
    case CRFP_V_REF: snprintf(buf, len, "%" PRIu64, v->u.ref); return buf;
    default: return "";
    }
}

size_t xmlout_bad(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        if (u[i] < 0x20 && u[i] != '\t' && u[i] != '\n' && u[i] != '\r')
            return i;
        /* U+FFFE and U+FFFF: EF BF BE / EF BF BF */
        if (u[i] == 0xEF && i + 2 < n && u[i + 1] == 0xBF && (u[i + 2] == 0xBE || u[i + 2] == 0xBF))
            return i;
    }
    return n;
}

/* Next code point of valid UTF-8 at *p (advanced). */
static uint32_t next_cp(const unsigned char **p)
{
    const unsigned char *s = *p;
    uint32_t c = s[0];
    int k = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    if (k)
        c &= 0x3Fu >> k;
    for (int i = 1; i <= k; i++)
        c = (c << 6) | (s[i] & 0x3Fu);
    *p = s + 1 + k;
    return c;
}

/* XML 1.0 (fifth edition) NameStartChar; NameChar adds - . 0-9 U+B7
 * U+0300-036F U+203F-2040. */
static int name_start(uint32_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' ||
           (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) ||
           (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) ||
           (c >= 0x200C && c <= 0x200D) || (c >= 0x2070 && c <= 0x218F) ||
           (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF) ||
           (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0xEFFFF);
}

static int name_char(uint32_t c)
{
    return name_start(c) || c == '-' || c == '.' || (c >= '0' && c <= '9') || c == 0xB7 ||
           (c >= 0x300 && c <= 0x36F) || (c >= 0x203F && c <= 0x2040);
}

int xmlout_is_name(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (!*p || !name_start(next_cp(&p)))
        return 0;
    while (*p)
        if (!name_char(next_cp(&p)))
            return 0;
    return 1;
}

int xmlout_is_qname(const char *s)
{
    if (!xmlout_is_name(s))
        return 0;
    const char *c = strchr(s, ':');
    if (!c)
        return 1;
    return c != s && c[1] && !strchr(c + 1, ':') && !(c - s == 5 && strncmp(s, "xmlns", 5) == 0);
}
