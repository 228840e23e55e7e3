/* text_reader — plain UTF-8 text in, documents out.
 *
 * One document per input (split=file, the default), per line (split=line)
 * or per paragraph (split=paragraph: runs of non-blank lines separated by
 * blank ones).  The text is kept byte for byte: CRLF, tabs, form feeds and
 * any Unicode stay as they are; only a UTF-8 byte order mark at the start
 * of the input is taken off (and recorded as `bom`).  What lies between two
 * documents (a line terminator, blank lines) is recorded as the first
 * one's `trailer`, and anything before the first as its `leader`, so that
 * the input is the concatenation of leader, texts and trailers.
 *
 * Invalid UTF-8 and NUL bytes are errors naming the file, the line and the
 * byte (crfpipe strings are NUL-terminated, so a NUL could never reach a
 * token feature intact).
 *
 * With normalize=nfc or nfkc the stored text is the ICU normalisation of
 * the input.  The document records the form (`normalization`) and every
 * stretch the normalisation changed (`normalized-spans`: start and end in
 * the stored text, in the document's offset unit, then start and end in
 * the input, in bytes), so annotation offsets point into the stored text
 * and can still be carried back to the input.
 *
 * Memory is bounded by one document: split=line and split=paragraph stream
 * a file of any size.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

#include "crfpipe/crfpipe.h"

static const crfp_param_spec params[] = {
    {"split", CRFP_PARAM_STRING, "file",
     "one document per: file (the whole input), line, paragraph (blank-line separated)"},
    {"normalize", CRFP_PARAM_STRING, "none",
     "ICU normalisation of the stored text: none, nfc, nfkc (recorded in the metadata)"},
    {"offsets", CRFP_PARAM_STRING, "utf16", "offset unit of the documents: utf16, codepoint, byte"},
    {"id", CRFP_PARAM_STRING, NULL,
     "document id (split=file) or id prefix (ID:LINE); default: the input's file name"},
    {"skip-blank", CRFP_PARAM_BOOL, "true",
     "split=line: blank lines make no document (they go into the previous one's trailer)"},
    {"max-bytes", CRFP_PARAM_INT, "268435456",
     "largest document in bytes (split=file, split=paragraph); 0 = unlimited"},
};

enum { SPLIT_FILE, SPLIT_LINE, SPLIT_PARA };

/* A growable byte buffer. */
typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static int buf_reserve(buf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    char *p = realloc(b->s, cap);
    if (!p)
        return -1;
    b->s = p;
    b->cap = cap;
    return 0;
}

static int buf_add(buf *b, const char *s, size_t n)
{
    if (buf_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

typedef struct treader {
    crfp_host *host;
    crfp_stream *in;
    int split;
    const UNormalizer2 *norm;     /* NULL: no normalisation */
    const char *normname;         /* "NFC", "NFKC" */
    crfp_offset_unit unit;
    char *idbase;
    char *source;   /* the input's name as UTF-8, for the "source" feature */
    int skip_blank;
    size_t maxbytes;              /* 0 = unlimited */
    size_t maxline;               /* the host's line limit, split=line */
    /* input */
    char *in_buf;
    size_t in_len, in_pos;
    int eof;
    uint64_t offset;              /* input bytes consumed before in_buf[in_pos] */
    unsigned long lineno;         /* lines consumed */
    int started;                  /* the BOM check is done */
    int bom;                      /* a BOM was removed (recorded on the first document) */
    /* the current line, terminator included */
    buf line;
    unsigned long line_no;        /* its number */
    uint64_t line_off;            /* its input offset */
    int held;                     /* `line` is read but not yet used */
    /* a document being assembled / waiting for its trailer */
    buf text, trailer, leader;
    unsigned long doc_line;
    uint64_t doc_off;
    int have_doc;
    int ndocs;
    int done;
} treader;

static void tr_close(void *state);

static crfp_status tr_open(crfp_host *host, const crfp_params *p, crfp_stream *in, void **state)
{
    *state = NULL;
    const char *split = crfp_params_str(p, "split");
    const char *norm = crfp_params_str(p, "normalize");
    const char *offs = crfp_params_str(p, "offsets");
    int sp = strcmp(split, "file") == 0        ? SPLIT_FILE
             : strcmp(split, "line") == 0      ? SPLIT_LINE
             : strcmp(split, "paragraph") == 0 ? SPLIT_PARA
                                               : -1;
    if (sp < 0)
        return crfp_error(host, CRFP_EINVAL,
                          "text_reader: split must be file, line or paragraph, not '%s'", split);
    int unit = crfp_offset_unit_parse(offs);
    if (unit < 0)
        return crfp_error(host, CRFP_EINVAL,
                          "text_reader: offsets must be utf16, codepoint or byte, not '%s'", offs);
    const UNormalizer2 *n2 = NULL;
    const char *normname = NULL;
    if (strcmp(norm, "none") != 0) {
        UErrorCode err = U_ZERO_ERROR;
        if (strcmp(norm, "nfc") == 0) {
            n2 = unorm2_getNFCInstance(&err);
            normname = "NFC";
        } else if (strcmp(norm, "nfkc") == 0) {
            n2 = unorm2_getNFKCInstance(&err);
            normname = "NFKC";
        } else {
            return crfp_error(host, CRFP_EINVAL,
                              "text_reader: normalize must be none, nfc or nfkc, not '%s'", norm);
        }
        if (U_FAILURE(err))
            return crfp_error(host, CRFP_EPLUGIN, "text_reader: ICU has no %s normaliser: %s",
                              normname, u_errorName(err));
    }
    int64_t maxb = crfp_params_int(p, "max-bytes");
    if (maxb < 0)
        return crfp_error(host, CRFP_EINVAL, "text_reader: max-bytes must be >= 0");
    treader *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    r->host = host;
    r->in = in;
    r->split = sp;
    r->norm = n2;
    r->normname = normname;
    r->unit = (crfp_offset_unit)unit;
    r->skip_blank = crfp_params_bool(p, "skip-blank");
    r->maxbytes = (size_t)maxb;
    r->maxline = crfp_host_limit(host, CRFP_LIMIT_LINE);
    r->in_buf = malloc(65536);
    const char *id = crfp_params_str(p, "id");
    if (!id) {
        /* the file name without its directory; "<stdin>" becomes "stdin" */
        const char *name = in->name ? in->name : "input";
        const char *slash = strrchr(name, '/');
        id = slash ? slash + 1 : name;
        if (*id == '<') {
            size_t n = strlen(id);
            r->idbase = n >= 2 && id[n - 1] == '>' ? strndup(id + 1, n - 2) : strdup(id);
        }
    }
    if (!r->idbase)
        r->idbase = crfp_utf8_repair(id);   /* a file name may be any bytes */
    r->source = crfp_utf8_repair(in->name ? in->name : "input");
    if (!r->in_buf || !r->idbase || !r->source) {
        tr_close(r);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    *state = r;
    return CRFP_OK;
}

static const char *in_name(const treader *r)
{
    return r->in->name ? r->in->name : "input";
}

/* Refill the input buffer; 0 at the end of the input. */
static crfp_status refill(treader *r, int *got)
{
    *got = 0;
    if (r->eof)
        return CRFP_OK;
    r->in_len = fread(r->in_buf, 1, 65536, r->in->fp);
    r->in_pos = 0;
    if (r->in_len == 0) {
        if (ferror(r->in->fp))
            return crfp_error(r->host, CRFP_EIO, "%s:%lu: read error: %s", in_name(r),
                              r->lineno + 1, strerror(errno));
        r->eof = 1;
        return CRFP_OK;
    }
    if (!r->started) {
        r->started = 1;
        /* A BOM says "UTF-8", not "text": it is taken off and recorded.
         * fread of 64 KiB returns at least 3 bytes unless the input is
         * shorter (or a pipe delivers less; then the BOM is kept). */
        if (r->in_len >= 3 && memcmp(r->in_buf, "\xEF\xBB\xBF", 3) == 0) {
            r->in_pos = 3;
            r->offset = 3;
            r->bom = 1;
        }
    }
    *got = 1;
    return CRFP_OK;
}

/* Read the next line, terminator included, into r->line.  *got = 0 at the
 * end of the input.  `limit` bounds the line (0 = none); `what` names the
 * limit in the message. */
static crfp_status read_line(treader *r, size_t limit, const char *what, int *got)
{
    *got = 0;
    if (r->held) {
        r->held = 0;
        *got = 1;
        return CRFP_OK;
    }
    r->line.len = 0;
    r->line_no = r->lineno + 1;
    r->line_off = r->offset;
    for (;;) {
        if (r->in_pos == r->in_len) {
            int more;
            crfp_status st = refill(r, &more);
            if (st != CRFP_OK)
                return st;
            if (!more)
                break;
            if (r->line.len == 0)
                r->line_off = r->offset;
        }
        const char *p = r->in_buf + r->in_pos;
        size_t avail = r->in_len - r->in_pos;
        const char *nl = memchr(p, '\n', avail);
        size_t take = nl ? (size_t)(nl - p) + 1 : avail;
        if (limit && r->line.len + take > limit + 2)
            return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: %s longer than the limit %s=%zu bytes (%s)",
                              in_name(r), r->line_no,
                              r->split == SPLIT_LINE ? "line" : "paragraph", what, limit,
                              r->split == SPLIT_LINE
                                  ? "raise it with --limit line=N or CRFPIPE_LIMITS=line=N; 0 = "
                                    "unlimited"
                                  : "a missing blank line?  raise the reader parameter "
                                    "max-bytes; 0 = unlimited");
        if (buf_add(&r->line, p, take))
            return crfp_error(r->host, CRFP_ENOMEM, "%s:%lu: out of memory reading a line",
                              in_name(r), r->line_no);
        r->in_pos += take;
        r->offset += take;
        if (nl)
            break;
    }
    if (r->line.len == 0)
        return CRFP_OK;
    r->lineno++;
    *got = 1;
    return CRFP_OK;
}

/* Length of the line without its "\n" or "\r\n". */
static size_t content_len(const buf *l)
{
    size_t n = l->len;
    if (n && l->s[n - 1] == '\n') {
        n--;
        if (n && l->s[n - 1] == '\r')
            n--;
    }
    return n;
}

/* A blank line holds only spaces, tabs and its terminator. */
static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n' && s[i] != '\f' &&
            s[i] != '\v')
            return 0;
    return 1;
}

/* Byte offset of the first invalid UTF-8 sequence or NUL byte in s[0..n),
 * or n.  Rejects overlong forms, surrogates and code points above
 * U+10FFFF, as crfp_doc_set_text does. */
static size_t first_bad(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (u[i] == 0)
            return i;
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        /* U8_NEXT refuses overlong forms, surrogates and values above
         * U+10FFFF; a window of 4 bytes keeps the index in int32_t. */
        UChar32 c;
        int32_t k = 0, len = n - i > 4 ? 4 : (int32_t)(n - i);
        U8_NEXT(u + i, k, len, c);
        if (c < 0)
            return i;
        i += (size_t)k;
    }
    return n;
}

/* The error for a bad byte at `at` bytes into a document that starts at
 * input line `line0` and input offset `off0`. */
static crfp_status bad_byte(treader *r, const char *s, size_t at, unsigned long line0,
                            uint64_t off0)
{
    unsigned long line = line0;
    size_t bol = 0;
    for (size_t i = 0; i < at; i++)
        if (s[i] == '\n') {
            line++;
            bol = i + 1;
        }
    unsigned char b = (unsigned char)s[at];
    if (b == 0)
        return crfp_error(r->host, CRFP_EPARSE,
                          "%s:%lu: NUL byte at byte %zu of the line (input offset %llu)",
                          in_name(r), line, at - bol + 1, (unsigned long long)(off0 + at));
    return crfp_error(r->host, CRFP_EUTF8,
                      "%s:%lu: invalid UTF-8 (byte 0x%02X) at byte %zu of the line (input "
                      "offset %llu)",
                      in_name(r), line, b, at - bol + 1, (unsigned long long)(off0 + at));
}

/* --- normalisation ---------------------------------------------------------- */

/* Length of UTF-16 text s[0..n) in unit u. */
static size_t u16_units(crfp_offset_unit u, const UChar *s, int32_t n)
{
    if (u == CRFP_OFFSET_UTF16)
        return (size_t)n;
    size_t k = 0;
    for (int32_t i = 0; i < n;) {
        UChar32 c;
        U16_NEXT(s, i, n, c);
        k += u == CRFP_OFFSET_CODEPOINT ? 1 : (size_t)U8_LENGTH(c);
    }
    return k;
}

static size_t u16_bytes(const UChar *s, int32_t n)
{
    return u16_units(CRFP_OFFSET_BYTE, s, n);
}

typedef struct ustr {
    UChar *s;
    int32_t len, cap;
} ustr;

static int ustr_reserve(ustr *u, int32_t more)
{
    if (more > INT32_MAX - u->len - 1)
        return -1;
    if (u->len + more <= u->cap)
        return 0;
    int64_t cap = u->cap ? u->cap : 256;
    while (cap < (int64_t)u->len + more)
        cap *= 2;
    if (cap > INT32_MAX)
        cap = INT32_MAX;
    UChar *p = realloc(u->s, (size_t)cap * sizeof *p);
    if (!p)
        return -1;
    u->s = p;
    u->cap = (int32_t)cap;
    return 0;
}

/* Normalise the document text in r->text (UTF-8, valid).  When it changes,
 * r->text is replaced and *spans receives 4 integers per changed stretch
 * (see the top of the file); *nspans counts integers.  Work is done only
 * when ICU's quick check says the text may not be normalised already. */
static crfp_status normalize_text(treader *r, uint64_t src_off, int64_t **spans, size_t *nspans)
{
    *spans = NULL;
    *nspans = 0;
    crfp_host *host = r->host;
    if (r->text.len > (size_t)INT32_MAX / 3)
        return crfp_error(host, CRFP_EINVAL,
                          "%s: document of %zu bytes too large to normalise (split it with "
                          "split=line or split=paragraph)",
                          in_name(r), r->text.len);
    UErrorCode err = U_ZERO_ERROR;
    int32_t n16 = 0;
    u_strFromUTF8(NULL, 0, &n16, r->text.s, (int32_t)r->text.len, &err);
    if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err))
        return crfp_error(host, CRFP_EUTF8, "%s: cannot convert the text: %s", in_name(r),
                          u_errorName(err));
    err = U_ZERO_ERROR;
    UChar *src = malloc(((size_t)n16 + 1) * sizeof *src);
    if (!src)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    u_strFromUTF8(src, n16 + 1, NULL, r->text.s, (int32_t)r->text.len, &err);
    if (U_FAILURE(err)) {
        free(src);
        return crfp_error(host, CRFP_EUTF8, "%s: cannot convert the text: %s", in_name(r),
                          u_errorName(err));
    }
    if (unorm2_quickCheck(r->norm, src, n16, &err) == UNORM_YES && U_SUCCESS(err)) {
        free(src);
        return CRFP_OK;
    }
    err = U_ZERO_ERROR;
    ustr out = {0};
    ustr tmp = {0};
    int64_t *sp = NULL;
    size_t nsp = 0, capsp = 0;
    size_t out_units = 0;       /* stored text so far, in the document's unit */
    uint64_t src_bytes = 0;     /* input so far, in bytes */
    crfp_status st = CRFP_OK;
    /* Split at normalisation boundaries: each segment normalises on its
     * own, so unchanged segments are copied and changed ones recorded. */
    int32_t a = 0;
    while (a < n16 && st == CRFP_OK) {
        int32_t b = a;
        UChar32 c;
        U16_NEXT(src, b, n16, c);
        while (b < n16) {
            int32_t nb = b;
            U16_NEXT(src, nb, n16, c);
            if (unorm2_hasBoundaryBefore(r->norm, c))
                break;
            b = nb;
        }
        const UChar *seg = src + a;
        int32_t seglen = b - a;
        size_t seg_bytes = u16_bytes(seg, seglen);
        if (unorm2_isNormalized(r->norm, seg, seglen, &err) || U_FAILURE(err)) {
            if (U_FAILURE(err) || ustr_reserve(&out, seglen)) {
                st = crfp_error(host, U_FAILURE(err) ? CRFP_EPLUGIN : CRFP_ENOMEM,
                                "%s: normalisation failed: %s", in_name(r), u_errorName(err));
                break;
            }
            memcpy(out.s + out.len, seg, (size_t)seglen * sizeof *seg);
            out.len += seglen;
            out_units += u16_units(r->unit, seg, seglen);
        } else {
            int32_t need = unorm2_normalize(r->norm, seg, seglen, NULL, 0, &err);
            err = U_ZERO_ERROR;
            if (ustr_reserve(&tmp, need + 1) || ustr_reserve(&out, need)) {
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                break;
            }
            int32_t got = unorm2_normalize(r->norm, seg, seglen, tmp.s, tmp.cap, &err);
            if (U_FAILURE(err)) {
                st = crfp_error(host, CRFP_EPLUGIN, "%s: normalisation failed: %s", in_name(r),
                                u_errorName(err));
                break;
            }
            memcpy(out.s + out.len, tmp.s, (size_t)got * sizeof *tmp.s);
            out.len += got;
            size_t units = u16_units(r->unit, tmp.s, got);
            if (nsp + 4 > capsp) {
                size_t nc = capsp ? 2 * capsp : 64;
                int64_t *p = realloc(sp, nc * sizeof *p);
                if (!p) {
                    st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                    break;
                }
                sp = p;
                capsp = nc;
            }
            sp[nsp++] = (int64_t)out_units;
            sp[nsp++] = (int64_t)(out_units + units);
            sp[nsp++] = (int64_t)(src_off + src_bytes);
            sp[nsp++] = (int64_t)(src_off + src_bytes + seg_bytes);
            out_units += units;
        }
        src_bytes += seg_bytes;
        a = b;
    }
    free(src);
    free(tmp.s);
    if (st == CRFP_OK && nsp) {
        int32_t n8 = 0;
        err = U_ZERO_ERROR;
        u_strToUTF8(NULL, 0, &n8, out.s, out.len, &err);
        err = U_ZERO_ERROR;
        r->text.len = 0;
        if (buf_reserve(&r->text, (size_t)n8)) {
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        } else {
            u_strToUTF8(r->text.s, n8 + 1, NULL, out.s, out.len, &err);
            r->text.len = (size_t)n8;
            r->text.s[n8] = '\0';
            if (U_FAILURE(err))
                st = crfp_error(host, CRFP_EPLUGIN, "%s: normalisation failed: %s", in_name(r),
                                u_errorName(err));
        }
    }
    free(out.s);
    if (st != CRFP_OK) {
        free(sp);
        return st;
    }
    *spans = sp;
    *nspans = nsp;
    return CRFP_OK;
}

/* --- documents ---------------------------------------------------------------- */

static crfp_status set_int(crfp_doc *doc, const char *name, int64_t v)
{
    crfp_value val = {.type = CRFP_V_INT};
    val.u.i = v;
    return crfp_doc_meta_set(doc, name, &val);
}

/* Build the document from r->text (and the trailer, leader, position). */
static crfp_status make_doc(treader *r, crfp_doc **out)
{
    crfp_host *host = r->host;
    *out = NULL;
    size_t bad = first_bad(r->text.s ? r->text.s : "", r->text.len);
    if (bad < r->text.len)
        return bad_byte(r, r->text.s, bad, r->doc_line, r->doc_off);
    int64_t *spans = NULL;
    size_t nspans = 0;
    crfp_status st = CRFP_OK;
    if (r->norm && (st = normalize_text(r, r->doc_off, &spans, &nspans)) != CRFP_OK)
        return st;
    char idbuf[64];
    const char *id = r->idbase;
    char *owned = NULL;
    if (r->split != SPLIT_FILE) {
        snprintf(idbuf, sizeof idbuf, ":%lu", r->doc_line);
        owned = malloc(strlen(r->idbase) + strlen(idbuf) + 1);
        if (!owned) {
            free(spans);
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        }
        strcpy(owned, r->idbase);
        strcat(owned, idbuf);
        id = owned;
    }
    crfp_doc *doc = crfp_doc_new(id);
    free(owned);
    if (!doc) {
        free(spans);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    st = crfp_doc_set_offset_unit(doc, r->unit);
    if (st == CRFP_OK)
        st = crfp_doc_set_text(host, doc, r->text.s ? r->text.s : "", r->text.len);
    if (st == CRFP_OK)
        st = crfp_doc_meta_set_str(doc, "format", "text");
    if (st == CRFP_OK)
        st = crfp_doc_meta_set_str(doc, "source", r->source);
    if (st == CRFP_OK && r->split != SPLIT_FILE)
        st = set_int(doc, "line", (int64_t)r->doc_line);
    if (st == CRFP_OK)
        st = set_int(doc, "offset", (int64_t)r->doc_off);
    if (st == CRFP_OK && r->ndocs == 0 && r->bom) {
        crfp_value v = {.type = CRFP_V_BOOL};
        v.u.b = 1;
        st = crfp_doc_meta_set(doc, "bom", &v);
    }
    if (st == CRFP_OK && r->leader.len)
        st = crfp_doc_meta_set_str(doc, "leader", r->leader.s);
    if (st == CRFP_OK && r->trailer.len)
        st = crfp_doc_meta_set_str(doc, "trailer", r->trailer.s);
    if (st == CRFP_OK && r->norm) {
        st = crfp_doc_meta_set_str(doc, "normalization", r->normname);
        crfp_value list = {.type = CRFP_V_LIST};
        crfp_value *items = nspans ? calloc(nspans, sizeof *items) : NULL;
        if (st == CRFP_OK && nspans && !items)
            st = CRFP_ENOMEM;
        for (size_t i = 0; i < nspans; i++) {
            items[i].type = CRFP_V_INT;
            items[i].u.i = spans[i];
        }
        list.u.list.items = items;
        list.u.list.n = nspans;
        if (st == CRFP_OK)
            st = crfp_doc_meta_set(doc, "normalized-spans", &list);
        free(items);
    }
    free(spans);
    if (st != CRFP_OK) {
        crfp_doc_free(doc);
        if (st == CRFP_ENOMEM)
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        return crfp_error_wrap(host, st, "%s", in_name(r));
    }
    r->ndocs++;
    r->leader.len = 0;
    r->trailer.len = 0;
    r->text.len = 0;
    r->have_doc = 0;
    *out = doc;
    return CRFP_OK;
}

static crfp_status nomem(treader *r)
{
    return crfp_error(r->host, CRFP_ENOMEM, "%s: out of memory", in_name(r));
}

static crfp_status too_big(treader *r)
{
    return crfp_error(r->host, CRFP_EPARSE,
                      "%s:%lu: document longer than max-bytes=%zu (split it with split=line or "
                      "split=paragraph, or raise max-bytes; 0 = unlimited)",
                      in_name(r), r->doc_line, r->maxbytes);
}

static crfp_status next_file(treader *r, crfp_doc **doc)
{
    r->doc_line = 1;
    r->done = 1;
    for (;;) {
        if (r->in_pos == r->in_len) {
            int more;
            crfp_status st = refill(r, &more);
            if (st != CRFP_OK)
                return st;
            if (!more)
                break;
            if (r->text.len == 0)
                r->doc_off = r->offset;
        }
        size_t take = r->in_len - r->in_pos;
        if (r->maxbytes && r->text.len + take > r->maxbytes)
            return too_big(r);
        if (buf_add(&r->text, r->in_buf + r->in_pos, take))
            return nomem(r);
        r->in_pos += take;
        r->offset += take;
    }
    /* An empty input holds no document (as blank column files hold no
     * sentence); a BOM alone counts as empty. */
    if (r->text.len == 0)
        return CRFP_OK;
    return make_doc(r, doc);
}

static crfp_status next_line(treader *r, crfp_doc **doc)
{
    for (;;) {
        int got;
        crfp_status st = read_line(r, r->maxline, "line", &got);
        if (st != CRFP_OK)
            return st;
        if (!got) {
            r->done = 1;
            if (r->have_doc)
                return make_doc(r, doc);
            return CRFP_OK;
        }
        size_t n = content_len(&r->line);
        int blank = r->skip_blank && is_blank(r->line.s, n);
        if (blank) {
            buf *to = r->have_doc ? &r->trailer : &r->leader;
            if (buf_add(to, r->line.s, r->line.len))
                return nomem(r);
            continue;
        }
        if (r->have_doc) {
            /* this line starts the next document */
            r->held = 1;
            return make_doc(r, doc);
        }
        r->doc_line = r->line_no;
        r->doc_off = r->line_off;
        if (buf_add(&r->text, r->line.s, n) ||
            buf_add(&r->trailer, r->line.s + n, r->line.len - n))
            return nomem(r);
        r->have_doc = 1;
    }
}

static crfp_status next_para(treader *r, crfp_doc **doc)
{
    /* A paragraph's text runs from its first line to the end of its last
     * line's content; that line's terminator and the blank lines after it
     * are its trailer.  A line's terminator stays in the text until the
     * next line shows whether it was internal. */
    size_t pending_nl = 0;   /* terminator bytes at the end of r->text */
    for (;;) {
        int got;
        crfp_status st = read_line(r, r->maxbytes, "max-bytes", &got);
        if (st != CRFP_OK)
            return st;
        if (!got) {
            r->done = 1;
            if (!r->have_doc)
                return CRFP_OK;
            if (pending_nl) {
                r->text.len -= pending_nl;
                if (buf_add(&r->trailer, r->text.s + r->text.len, pending_nl))
                    return nomem(r);
                r->text.s[r->text.len] = '\0';
            }
            return make_doc(r, doc);
        }
        size_t n = content_len(&r->line);
        if (is_blank(r->line.s, n)) {
            if (pending_nl) {
                r->text.len -= pending_nl;
                if (buf_add(&r->trailer, r->text.s + r->text.len, pending_nl))
                    return nomem(r);
                r->text.s[r->text.len] = '\0';
                pending_nl = 0;
            }
            if (buf_add(r->have_doc ? &r->trailer : &r->leader, r->line.s, r->line.len))
                return nomem(r);
            continue;
        }
        if (r->have_doc && r->trailer.len) {
            /* this line starts the next paragraph */
            r->held = 1;
            return make_doc(r, doc);
        }
        if (!r->have_doc) {
            r->doc_line = r->line_no;
            r->doc_off = r->line_off;
            r->have_doc = 1;
        }
        if (r->maxbytes && r->text.len + r->line.len > r->maxbytes)
            return too_big(r);
        if (buf_add(&r->text, r->line.s, r->line.len))
            return nomem(r);
        pending_nl = r->line.len - n;
    }
}

static crfp_status tr_next(void *state, crfp_doc **doc)
{
    treader *r = state;
    *doc = NULL;
    if (r->done && !r->have_doc)
        return CRFP_OK;
    switch (r->split) {
    case SPLIT_FILE: return next_file(r, doc);
    case SPLIT_LINE: return next_line(r, doc);
    default: return next_para(r, doc);
    }
}

static void tr_close(void *state)
{
    treader *r = state;
    if (!r)
        return;
    free(r->in_buf);
    free(r->idbase);
    free(r->source);
    free(r->line.s);
    free(r->text.s);
    free(r->trailer.s);
    free(r->leader.s);
    free(r);
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = tr_open,
    .next = tr_next,
    .close = tr_close,
};

static const char *const formats[] = {"text", NULL};
/* Not ".txt": CoNLL data often lives in .txt files (CoNLL-2000's
 * train.txt), whose format the content decides. */
static const char *const extensions[] = {".text", NULL};

CRFP_PLUGIN_DEFINE(text_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "text_reader",
    .kind = CRFP_KIND_READER,
    .version = "1.0",
    .description = "plain UTF-8 text: one document per file, line or paragraph; optional NFC/NFKC",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
