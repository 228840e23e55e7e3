/* crfpipe — incremental writer of the XML corpus format.
 *
 * Each document is checked before any of it is written, so a document that
 * XML cannot carry (a control character, a dangling reference) leaves the
 * output at a document boundary with a clear error instead of a file the
 * reader would reject.
 */
#include "config.h"
#include "crfpipe/corpus.h"
#include "utf.h"
#include "xmlcommon.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct crfp_xml_writer {
    crfp_host *host;
    crfp_stream *out;
    char *buf;     /* the document being written */
    size_t len, cap;
    int oom;       /* the buffer could not grow */
    unsigned long ndocs;
    int io_error;  /* errno of the first failed fwrite, or -1 */
    int finished;
};

static crfp_status io_fail(crfp_xml_writer *w)
{
    return crfp_error(w->host, CRFP_EIO, "%s: write error%s%s", w->out->name,
                      w->io_error > 0 ? ": " : "", w->io_error > 0 ? strerror(w->io_error) : "");
}

static void put(crfp_xml_writer *w, const char *s, size_t n);
static void attr(crfp_xml_writer *w, const char *name, const char *value);

crfp_status crfp_xml_writer_open(crfp_host *host, crfp_stream *out, crfp_xml_writer **wp)
{
    *wp = NULL;
    crfp_xml_writer *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    w->host = host;
    w->out = out;
    /* The prolog and the <corpus start tag, whose end (">" or "/>") depends
     * on whether a document follows; written with the first document. */
    static const char prolog[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<corpus";
    put(w, prolog, sizeof prolog - 1);
    attr(w, "xmlns", CRFP_XML_NS);
    if (w->oom) {
        crfp_xml_writer_close(w);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    *wp = w;
    return CRFP_OK;
}

/* --- checks -------------------------------------------------------------- */

/* XML 1.0 cannot carry C0 controls other than tab, LF and CR (CR goes out
 * as &#13;), nor U+FFFE/U+FFFF.  Returns the byte offset of the first such
 * character, or (size_t)-1.  *high (may be NULL) is set when a byte above
 * ASCII comes before it: only then is there UTF-8 to validate. */
static size_t xml_bad_char(const char *s, size_t len, int *high)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len; i++) {
        if (p[i] >= 0x80 && high)
            *high = 1;
        if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
            return i;
        if (p[i] == 0xEF && i + 2 < len && p[i + 1] == 0xBF && (p[i + 2] == 0xBE || p[i + 2] == 0xBF))
            return i;
    }
    return (size_t)-1;
}

typedef struct check_ctx {
    crfp_xml_writer *w;
    const crfp_doc *doc;
    const char *docid;
} check_ctx;

static crfp_status check_str(check_ctx *c, const char *s, const char *what)
{
    /* Documents built by the readers hold valid UTF-8; a plugin's own
     * strings (an annotation type, a feature name) may not, and the
     * output must still be XML that reads back. */
    int high = 0;
    size_t len = strlen(s), bad = xml_bad_char(s, len, &high), badu;
    if (high && !crfp_utf8_valid(s, len, &badu) && (bad == (size_t)-1 || badu < bad))
        return crfp_error(c->w->host, CRFP_EINVAL,
                          "%s: document '%s': %s is not valid UTF-8 (byte %zu)", c->w->out->name,
                          c->docid, what, badu);
    if (bad == (size_t)-1)
        return CRFP_OK;
    const unsigned char *p = (const unsigned char *)s + bad;
    unsigned cp = p[0] < 0x20 ? p[0] : p[2] == 0xBE ? 0xFFFEu : 0xFFFFu;
    return crfp_error(c->w->host, CRFP_EINVAL,
                      "%s: document '%s': %s contains U+%04X at byte %zu, which XML 1.0 cannot represent",
                      c->w->out->name, c->docid, what, cp, bad);
}

static crfp_status check_value(check_ctx *c, const crfp_value *v, const char *what)
{
    switch (v->type) {
    case CRFP_V_STRING:
        return check_str(c, v->u.s, what);
    case CRFP_V_REF:
        if (!crfp_doc_find_ann(c->doc, v->u.ref))
            return crfp_error(c->w->host, CRFP_EINVAL,
                              "%s: document '%s': %s refers to annotation %" PRIu64 ", which does not exist",
                              c->w->out->name, c->docid, what, v->u.ref);
        return CRFP_OK;
    case CRFP_V_LIST:
        for (size_t i = 0; i < v->u.list.n; i++) {
            crfp_status st = check_value(c, &v->u.list.items[i], what);
            if (st != CRFP_OK)
                return st;
        }
        return CRFP_OK;
    default:
        return CRFP_OK;
    }
}

static crfp_status check_feats(check_ctx *c, const crfp_feature *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char what[160];
        snprintf(what, sizeof what, "feature '%s'", f[i].name);
        crfp_status st = check_str(c, f[i].name, "a feature name");
        if (st == CRFP_OK)
            st = check_value(c, &f[i].value, what);
        if (st != CRFP_OK)
            return st;
    }
    return CRFP_OK;
}

static crfp_status check_doc(crfp_xml_writer *w, const crfp_doc *doc)
{
    check_ctx c = {w, doc, crfp_doc_id(doc) ? crfp_doc_id(doc) : ""};
    crfp_status st = check_str(&c, c.docid, "the id");
    size_t len;
    const char *text = crfp_doc_text(doc, &len);
    size_t bad = xml_bad_char(text, len, NULL);   /* UTF-8 since crfp_doc_set_text */
    if (st == CRFP_OK && bad != (size_t)-1) {
        const unsigned char *p = (const unsigned char *)text + bad;
        unsigned cp = p[0] < 0x20 ? p[0] : p[2] == 0xBE ? 0xFFFEu : 0xFFFFu;
        return crfp_error(w->host, CRFP_EINVAL,
                          "%s: document '%s': the text contains U+%04X at byte %zu, which XML 1.0 cannot represent",
                          w->out->name, c.docid, cp, bad);
    }
    size_t nmeta;
    const crfp_feature *meta = crfp_doc_meta(doc, &nmeta);
    if (st == CRFP_OK)
        st = check_feats(&c, meta, nmeta);
    for (size_t s = 0; st == CRFP_OK && s < crfp_doc_annset_count(doc); s++) {
        const crfp_annset *set = crfp_doc_annset_at(doc, s);
        st = check_str(&c, crfp_annset_name(set), "a set name");
        size_t np;
        const crfp_processor *p = crfp_annset_processors(set, &np);
        for (size_t i = 0; st == CRFP_OK && i < np; i++) {
            st = check_str(&c, p[i].plugin, "a processor name");
            if (st == CRFP_OK)
                st = check_str(&c, p[i].version, "a processor version");
            for (size_t k = 0; st == CRFP_OK && k < p[i].nparams; k++) {
                st = check_str(&c, p[i].param_names[k], "a processor parameter");
                if (st == CRFP_OK)
                    st = check_str(&c, p[i].param_values[k], "a processor parameter");
            }
        }
        for (size_t i = 0; st == CRFP_OK && i < crfp_annset_size(set); i++) {
            const crfp_ann *a = crfp_annset_get(set, i);
            st = check_str(&c, a->type, "an annotation type");
            if (st == CRFP_OK)
                st = check_feats(&c, a->feats, a->nfeats);
        }
    }
    return st;
}

/* --- output -------------------------------------------------------------
 * The serialiser writes what libxml2's xmlTextWriter wrote with two-space
 * indentation, byte for byte (a corpus written before reads and compares
 * the same), but into one buffer per document with a table-driven escape
 * instead of a dozen library calls, a malloc and an escaped copy per node:
 * that was 15 mallocs per token and most of a conversion's time.  The
 * layout: one element per line, indented by depth; an element with text has
 * it inline (<f name="word">Rockwell</f>, also when empty: <f ...></f>);
 * one with nothing inside is self-closed (<a .../>, <text/>). */

static int out_grow(crfp_xml_writer *w, size_t more)
{
    if (w->cap - w->len >= more)
        return 0;
    size_t cap = w->cap ? w->cap : 65536;
    while (cap - w->len < more)
        cap *= 2;
    char *b = realloc(w->buf, cap);
    if (!b) {
        w->oom = 1;
        return -1;
    }
    w->buf = b;
    w->cap = cap;
    return 0;
}

static void put(crfp_xml_writer *w, const char *s, size_t n)
{
    if (out_grow(w, n))
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

#define PUTS(w, lit) put((w), (lit), sizeof(lit) - 1)

static void indent(crfp_xml_writer *w, int depth)
{
    static const char spaces[] = "                                                                ";
    size_t n = 2 * (size_t)depth;
    while (n > sizeof spaces - 1) {
        put(w, spaces, sizeof spaces - 1);
        n -= sizeof spaces - 1;
    }
    put(w, spaces, n);
}

/* What each byte becomes in text (xmlEncodeSpecialChars: & < > " CR) and
 * in attribute values (xmlBufAttrSerializeTxtContent: also LF and tab);
 * NULL: the byte itself.  Multi-byte UTF-8 is copied as it is. */
static const char *const text_esc[256] = {
    ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\r'] = "&#13;"};
static const char *const attr_esc[256] = {
    ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\r'] = "&#13;",
    ['\n'] = "&#10;", ['\t'] = "&#9;"};

static void put_esc(crfp_xml_writer *w, const char *s, size_t n, const char *const *esc)
{
    /* the worst case (every byte "&quot;") reserved once */
    if (out_grow(w, 6 * n))
        return;
    char *o = w->buf + w->len;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = esc[(unsigned char)s[i]];
        if (!e)
            continue;
        memcpy(o, s + run, i - run);
        o += i - run;
        size_t el = strlen(e);
        memcpy(o, e, el);
        o += el;
        run = i + 1;
    }
    memcpy(o, s + run, n - run);
    o += n - run;
    w->len = (size_t)(o - w->buf);
}

/* ` name="value"` */
static void attr(crfp_xml_writer *w, const char *name, const char *value)
{
    put(w, " ", 1);
    put(w, name, strlen(name));
    PUTS(w, "=\"");
    put_esc(w, value, strlen(value), attr_esc);
    put(w, "\"", 1);
}

static size_t fmt_u64(char *buf, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

static void attr_u64(crfp_xml_writer *w, const char *name, uint64_t v)
{
    char buf[24];
    put(w, " ", 1);
    put(w, name, strlen(name));
    PUTS(w, "=\"");
    put(w, buf, fmt_u64(buf, v));
    put(w, "\"", 1);
}

/* 17 significant digits always read back to the same double; the special
 * values use the xsd:double spellings, which strtod also accepts. */
static void format_double(double f, char *buf, size_t n)
{
    if (isnan(f))
        snprintf(buf, n, "NaN");
    else if (isinf(f))
        snprintf(buf, n, f < 0 ? "-INF" : "INF");
    else
        snprintf(buf, n, "%.17g", f);
}

static const char *const type_names[] = {"string", "int", "float", "bool", "ref", "list"};

/* The rest of an <f> or <v> whose start tag `<f name="..."` is written, at
 * `depth`: the type attribute, the content, the end. */
static void write_value(crfp_xml_writer *w, const crfp_value *v, const char *tag, int depth)
{
    char buf[64];
    size_t n = 0;
    if (v->type != CRFP_V_STRING) {
        PUTS(w, " type=\"");
        put(w, type_names[v->type], strlen(type_names[v->type]));
        put(w, "\"", 1);
    }
    switch (v->type) {
    case CRFP_V_STRING:
        put(w, ">", 1);
        put_esc(w, v->u.s, strlen(v->u.s), text_esc);
        break;
    case CRFP_V_INT:
        if (v->u.i < 0) {
            buf[0] = '-';
            n = 1 + fmt_u64(buf + 1, (uint64_t)0 - (uint64_t)v->u.i);
        } else {
            n = fmt_u64(buf, (uint64_t)v->u.i);
        }
        break;
    case CRFP_V_FLOAT:
        format_double(v->u.f, buf, sizeof buf);
        n = strlen(buf);
        break;
    case CRFP_V_BOOL:
        n = (size_t)snprintf(buf, sizeof buf, "%s", v->u.b ? "true" : "false");
        break;
    case CRFP_V_REF:
        n = fmt_u64(buf, v->u.ref);
        break;
    case CRFP_V_LIST:
        if (v->u.list.n == 0) {
            PUTS(w, "/>\n");
            return;
        }
        PUTS(w, ">\n");
        for (size_t i = 0; i < v->u.list.n; i++) {
            indent(w, depth + 1);
            PUTS(w, "<v");
            write_value(w, &v->u.list.items[i], "v", depth + 1);
        }
        indent(w, depth);
        break;
    }
    if (v->type != CRFP_V_STRING && v->type != CRFP_V_LIST) {
        put(w, ">", 1);
        put(w, buf, n);
    }
    PUTS(w, "</");
    put(w, tag, strlen(tag));
    PUTS(w, ">\n");
}

static void write_feats(crfp_xml_writer *w, const crfp_feature *f, size_t n, int depth)
{
    for (size_t i = 0; i < n; i++) {
        indent(w, depth);
        PUTS(w, "<f");
        attr(w, "name", f[i].name);
        write_value(w, &f[i].value, "f", depth);
    }
}

static void write_set(crfp_xml_writer *w, const crfp_annset *set)
{
    const char *name = crfp_annset_name(set);
    size_t np;
    const crfp_processor *p = crfp_annset_processors(set, &np);
    size_t na = crfp_annset_size(set);
    PUTS(w, "    <annotations");
    if (*name)
        attr(w, "set", name);
    if (np == 0 && na == 0) {
        PUTS(w, "/>\n");
        return;
    }
    PUTS(w, ">\n");
    for (size_t i = 0; i < np; i++) {
        PUTS(w, "      <processor");
        attr(w, "plugin", p[i].plugin);
        attr(w, "version", p[i].version);
        if (p[i].nparams == 0) {
            PUTS(w, "/>\n");
            continue;
        }
        PUTS(w, ">\n");
        for (size_t k = 0; k < p[i].nparams; k++) {
            PUTS(w, "        <param");
            attr(w, "name", p[i].param_names[k]);
            attr(w, "value", p[i].param_values[k]);
            PUTS(w, "/>\n");
        }
        PUTS(w, "      </processor>\n");
    }
    for (size_t i = 0; i < na; i++) {
        const crfp_ann *a = crfp_annset_get(set, i);
        PUTS(w, "      <a");
        attr_u64(w, "id", a->id);
        attr(w, "type", a->type);
        attr_u64(w, "start", a->start);
        attr_u64(w, "end", a->end);
        if (a->nfeats == 0) {
            PUTS(w, "/>\n");
            continue;
        }
        PUTS(w, ">\n");
        write_feats(w, a->feats, a->nfeats, 4);
        PUTS(w, "      </a>\n");
    }
    PUTS(w, "    </annotations>\n");
}

static void write_doc(crfp_xml_writer *w, const crfp_doc *doc)
{
    if (w->ndocs++ == 0)
        PUTS(w, ">\n"); /* the <corpus> start tag */
    const char *id = crfp_doc_id(doc);
    PUTS(w, "  <document");
    if (id)
        attr(w, "id", id);
    attr(w, "offsets", crfp_offset_unit_name(crfp_doc_offset_unit(doc)));
    PUTS(w, ">\n");
    /* check_doc has refused embedded NULs and what XML cannot carry */
    size_t len;
    const char *text = crfp_doc_text(doc, &len);
    if (len) {
        PUTS(w, "    <text>");
        put_esc(w, text, len, text_esc);
        PUTS(w, "</text>\n");
    } else {
        PUTS(w, "    <text/>\n");
    }
    size_t nmeta;
    const crfp_feature *meta = crfp_doc_meta(doc, &nmeta);
    if (nmeta) {
        PUTS(w, "    <meta>\n");
        write_feats(w, meta, nmeta, 3);
        PUTS(w, "    </meta>\n");
    }
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++)
        write_set(w, crfp_doc_annset_at(doc, s));
    PUTS(w, "  </document>\n");
}

/* Hand the buffer to the stream. */
static crfp_status out_flush(crfp_xml_writer *w)
{
    errno = 0;
    if (w->len && fwrite(w->buf, 1, w->len, w->out->fp) != w->len) {
        w->io_error = errno ? errno : -1;
        w->len = 0;
        return io_fail(w);
    }
    w->len = 0;
    return CRFP_OK;
}

crfp_status crfp_xml_writer_write(crfp_xml_writer *w, const crfp_doc *doc)
{
    if (w->finished)
        return crfp_error(w->host, CRFP_EINVAL, "%s: document written after the end of the corpus",
                          w->out->name);
    crfp_status st = check_doc(w, doc);
    if (st != CRFP_OK)
        return st;
    size_t mark = w->len;
    unsigned long nd = w->ndocs;
    write_doc(w, doc);
    if (w->oom) {
        /* nothing of this document reaches the output */
        w->oom = 0;
        w->len = mark;
        w->ndocs = nd;
        return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory writing XML", w->out->name);
    }
    return out_flush(w);
}

crfp_status crfp_xml_writer_finish(crfp_xml_writer *w)
{
    if (w->finished)
        return CRFP_OK;
    w->finished = 1;
    if (w->ndocs)
        PUTS(w, "</corpus>\n");
    else
        PUTS(w, "/>\n");
    if (w->oom)
        return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory writing XML", w->out->name);
    crfp_status st = out_flush(w);
    if (st != CRFP_OK)
        return st;
    /* The stream buffers what was written: a full disk often shows only
     * here, and the message should say so (ENOSPC, EIO...). */
    errno = 0;
    if (fflush(w->out->fp) != 0) {
        w->io_error = errno ? errno : -1;
        return io_fail(w);
    }
    return CRFP_OK;
}

void crfp_xml_writer_close(crfp_xml_writer *w)
{
    if (!w)
        return;
    free(w->buf);
    free(w);
}
