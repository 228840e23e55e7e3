/* crfpipe — strict UTF-8 validation and byte <-> UTF-16/code point offsets. */
#include "config.h"
#include "utf.h"
#include "crfpipe/document.h"

#include <stdlib.h>
#include <string.h>

int crfp_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int n;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        v = c & 0x1F;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        v = c & 0x0F;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        v = c & 0x07;
        min = 0x10000;
    } else {
        return 0; /* continuation byte, C0/C1 (always overlong) or F5..FF */
    }
    if ((size_t)n > len)
        return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

char *crfp_utf8_repair(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *out = malloc(3 * n + 1);   /* each bad byte grows to 3 */
    if (!out)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, o = 0;
    while (i < n) {
        uint32_t cp;
        int k = crfp_utf8_decode(p + i, n - i, &cp);
        if (k > 0) {
            memcpy(out + o, s + i, (size_t)k);
            o += (size_t)k;
            i += (size_t)k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}

int crfp_utf8_valid(const char *s, size_t len, size_t *bad)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        int n = crfp_utf8_decode(p + i, len - i, &cp);
        if (n == 0) {
            if (bad)
                *bad = i;
            return 0;
        }
        i += (size_t)n;
    }
    return 1;
}

int crfp_offmap_build(crfp_offmap *m, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t count = 0;
    for (size_t i = 0; i < len; i++)
        if (p[i] >= 0xC0)
            count++;
    m->mb = NULL;
    m->nmb = 0;
    if (count) {
        m->mb = malloc(count * sizeof *m->mb);
        if (!m->mb)
            return 0;
    }
    size_t u16 = 0, cp = 0;
    for (size_t i = 0; i < len;) {
        if (p[i] < 0x80) {
            i++, u16++, cp++;
            continue;
        }
        unsigned char nb = p[i] >= 0xF0 ? 4 : p[i] >= 0xE0 ? 3 : 2;
        crfp_mbchar *c = &m->mb[m->nmb++];
        c->byte = i;
        c->u16 = u16;
        c->cp = cp;
        c->nbytes = nb;
        i += nb;
        u16 += nb == 4 ? 2 : 1;
        cp++;
    }
    m->len_bytes = len;
    m->len_u16 = u16;
    m->len_cp = cp;
    return 1;
}

void crfp_offmap_free(crfp_offmap *m)
{
    free(m->mb);
    m->mb = NULL;
    m->nmb = 0;
}

size_t crfp_offmap_length(const crfp_offmap *m, int unit)
{
    return unit == 0 ? m->len_u16 : unit == 1 ? m->len_cp : m->len_bytes;
}

static size_t unit_of(const crfp_mbchar *c, int unit)
{
    return unit == 0 ? c->u16 : c->cp;
}

static size_t unit_len(const crfp_mbchar *c, int unit)
{
    return unit == 0 && c->nbytes == 4 ? 2 : 1;
}

/* Index of the last multi-byte character whose offset (unit, or bytes when
 * by_byte) is <= off; nmb when there is none. */
static size_t last_at_or_before(const crfp_offmap *m, int unit, int by_byte, size_t off)
{
    size_t lo = 0, hi = m->nmb; /* answer is lo-1 after the search */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        size_t v = by_byte ? m->mb[mid].byte : unit_of(&m->mb[mid], unit);
        if (v <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? m->nmb : lo - 1;
}

static int byte_boundary(const crfp_offmap *m, const char *text, size_t b)
{
    if (b > m->len_bytes)
        return 2;
    if (b < m->len_bytes && (((const unsigned char *)text)[b] & 0xC0) == 0x80)
        return 1;
    return 0;
}

int crfp_offmap_to_byte(const crfp_offmap *m, const char *text, int unit, size_t off,
                        size_t *byte)
{
    if (unit == 2) {
        int r = byte_boundary(m, text, off);
        if (r == 0)
            *byte = off;
        return r;
    }
    if (off > crfp_offmap_length(m, unit))
        return 2;
    size_t k = last_at_or_before(m, unit, 0, off);
    if (k == m->nmb) {
        *byte = off;
        return 0;
    }
    const crfp_mbchar *c = &m->mb[k];
    size_t u = unit_of(c, unit), ul = unit_len(c, unit);
    if (off == u) {
        *byte = c->byte;
        return 0;
    }
    if (off < u + ul)
        return 1;
    *byte = c->byte + c->nbytes + (off - u - ul);
    return 0;
}

int crfp_offmap_from_byte(const crfp_offmap *m, const char *text, int unit, size_t byte,
                          size_t *off)
{
    int r = byte_boundary(m, text, byte);
    if (r != 0 || unit == 2) {
        if (r == 0)
            *off = byte;
        return r;
    }
    size_t k = last_at_or_before(m, unit, 1, byte);
    if (k == m->nmb) {
        *off = byte;
        return 0;
    }
    const crfp_mbchar *c = &m->mb[k];
    if (byte == c->byte) {
        *off = unit_of(c, unit);
        return 0;
    }
    *off = unit_of(c, unit) + unit_len(c, unit) + (byte - c->byte - c->nbytes);
    return 0;
}
