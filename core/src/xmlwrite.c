/* crfpipe — incremental writer of the XML corpus format (xmlTextWriter).
 *
 * Each document is checked before any of it is written, so a document that
 * XML cannot carry (a control character, a dangling reference) leaves the
 * output at a document boundary with a clear error instead of a file the
 * reader would reject.
 */
#include "config.h"
#include "crfpipe/corpus.h"
#include "xmlcommon.h"
#include "crfpipe/alloc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlwriter.h>

struct crfp_xml_writer {
    crfp_host *host;
    crfp_stream *out;
    xmlTextWriterPtr w;
    int io_error; /* errno of the first failed fwrite, or -1 */
    int finished;
};

static int write_cb(void *ctx, const char *buf, int len)
{
    crfp_xml_writer *w = ctx;
    errno = 0;
    if (len > 0 && fwrite(buf, 1, (size_t)len, w->out->fp) != (size_t)len) {
        if (!w->io_error)
            w->io_error = errno ? errno : -1;
        return -1;
    }
    return len;
}

static int close_cb(void *ctx)
{
    (void)ctx; /* the stream belongs to the caller */
    return 0;
}

static crfp_status io_fail(crfp_xml_writer *w)
{
    return crfp_error(w->host, CRFP_EIO, "%s: write error%s%s", w->out->name,
                      w->io_error > 0 ? ": " : "", w->io_error > 0 ? strerror(w->io_error) : "");
}

/* libxml2 (2.9) does not report every allocation failure through the
 * writer's return values: xmlTextWriterWriteString returns success when
 * escaping the text fails (the text is dropped), and an output buffer that
 * fails to grow silently empties itself, so a run out of memory "succeeded"
 * with an empty file (found by the allocation-failure walk, tests/fault).
 * Every such failure does go through libxml2's error record, which is
 * per thread: clear it before writing, look at it after. */
static void oom_watch(void)
{
    xmlResetLastError();
}

static int oom_seen(void)
{
    const xmlError *e = xmlGetLastError();
    return e && e->code == XML_ERR_NO_MEMORY;
}

/* libxml2 2.9's text writer also ignores failures it reports only on
 * stderr: xmlTextWriterStartElement pushes its element on a list whose
 * link allocation can fail ("Cannot initialize memory for new link"), and
 * the entry is then lost (a leak, and a writer that no longer knows its
 * open elements).  So the writer runs in reserve sections (alloc.h): its
 * allocations cannot fail, and one that had to come from the reserve makes
 * the call fail with CRFP_ENOMEM afterwards. */
static crfp_status oom_fail(crfp_xml_writer *w)
{
    return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory writing XML", w->out->name);
}

static crfp_status write_fail(crfp_xml_writer *w)
{
    if (oom_seen())
        return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory writing XML", w->out->name);
    return io_fail(w);
}

crfp_status crfp_xml_writer_open(crfp_host *host, crfp_stream *out, crfp_xml_writer **wp)
{
    *wp = NULL;
    crfp_xml_writer *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    w->host = host;
    w->out = out;
    crfp_reserve_section rs;
    if (crfp_reserve_enter(&rs) != CRFP_OK) {
        free(w);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    oom_watch();
    xmlOutputBufferPtr ob = xmlOutputBufferCreateIO(write_cb, close_cb, w, NULL);
    if (!ob || !(w->w = xmlNewTextWriter(ob))) {
        crfp_reserve_leave(&rs);
        if (ob)
            xmlOutputBufferClose(ob);
        free(w);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    int bad = xmlTextWriterSetIndent(w->w, 1) < 0 ||
              xmlTextWriterSetIndentString(w->w, BAD_CAST "  ") < 0 ||
              xmlTextWriterStartDocument(w->w, NULL, "UTF-8", NULL) < 0 ||
              xmlTextWriterStartElement(w->w, BAD_CAST "corpus") < 0 ||
              xmlTextWriterWriteAttribute(w->w, BAD_CAST "xmlns", BAD_CAST CRFP_XML_NS) < 0 ||
              oom_seen();
    int drawn = crfp_reserve_leave(&rs);
    if (drawn || bad) {
        crfp_status st = drawn ? oom_fail(w) : write_fail(w);
        crfp_xml_writer_close(w);
        return st;
    }
    *wp = w;
    return CRFP_OK;
}

/* --- checks -------------------------------------------------------------- */

/* XML 1.0 cannot carry C0 controls other than tab, LF and CR (CR goes out
 * as &#13;), nor U+FFFE/U+FFFF.  Returns the byte offset of the first such
 * character, or (size_t)-1. */
static size_t xml_bad_char(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len; i++) {
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
    size_t bad = xml_bad_char(s, strlen(s));
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
    size_t bad = xml_bad_char(text, len);
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

/* --- output -------------------------------------------------------------- */

static int attr(xmlTextWriterPtr w, const char *name, const char *value)
{
    return xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST value) < 0 ? -1 : 0;
}

static int attr_u64(xmlTextWriterPtr w, const char *name, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return attr(w, name, buf);
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

/* Writes the type attribute and the content of an <f> or <v> element. */
static int write_value(xmlTextWriterPtr w, const crfp_value *v)
{
    char buf[64];
    if (v->type != CRFP_V_STRING && attr(w, "type", type_names[v->type]) < 0)
        return -1;
    switch (v->type) {
    case CRFP_V_STRING:
        return xmlTextWriterWriteString(w, BAD_CAST v->u.s) < 0 ? -1 : 0;
    case CRFP_V_INT:
        snprintf(buf, sizeof buf, "%" PRId64, v->u.i);
        break;
    case CRFP_V_FLOAT:
        format_double(v->u.f, buf, sizeof buf);
        break;
    case CRFP_V_BOOL:
        snprintf(buf, sizeof buf, "%s", v->u.b ? "true" : "false");
        break;
    case CRFP_V_REF:
        snprintf(buf, sizeof buf, "%" PRIu64, v->u.ref);
        break;
    case CRFP_V_LIST:
        for (size_t i = 0; i < v->u.list.n; i++) {
            if (xmlTextWriterStartElement(w, BAD_CAST "v") < 0 ||
                write_value(w, &v->u.list.items[i]) < 0 || xmlTextWriterEndElement(w) < 0)
                return -1;
        }
        return 0;
    }
    return xmlTextWriterWriteString(w, BAD_CAST buf) < 0 ? -1 : 0;
}

static int write_feats(xmlTextWriterPtr w, const crfp_feature *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (xmlTextWriterStartElement(w, BAD_CAST "f") < 0 || attr(w, "name", f[i].name) < 0 ||
            write_value(w, &f[i].value) < 0 || xmlTextWriterEndElement(w) < 0)
            return -1;
    }
    return 0;
}

static int write_set(xmlTextWriterPtr w, const crfp_annset *set)
{
    const char *name = crfp_annset_name(set);
    if (xmlTextWriterStartElement(w, BAD_CAST "annotations") < 0 || (*name && attr(w, "set", name) < 0))
        return -1;
    size_t np;
    const crfp_processor *p = crfp_annset_processors(set, &np);
    for (size_t i = 0; i < np; i++) {
        if (xmlTextWriterStartElement(w, BAD_CAST "processor") < 0 ||
            attr(w, "plugin", p[i].plugin) < 0 || attr(w, "version", p[i].version) < 0)
            return -1;
        for (size_t k = 0; k < p[i].nparams; k++) {
            if (xmlTextWriterStartElement(w, BAD_CAST "param") < 0 ||
                attr(w, "name", p[i].param_names[k]) < 0 ||
                attr(w, "value", p[i].param_values[k]) < 0 || xmlTextWriterEndElement(w) < 0)
                return -1;
        }
        if (xmlTextWriterEndElement(w) < 0)
            return -1;
    }
    for (size_t i = 0; i < crfp_annset_size(set); i++) {
        const crfp_ann *a = crfp_annset_get(set, i);
        if (xmlTextWriterStartElement(w, BAD_CAST "a") < 0 || attr_u64(w, "id", a->id) < 0 ||
            attr(w, "type", a->type) < 0 || attr_u64(w, "start", a->start) < 0 ||
            attr_u64(w, "end", a->end) < 0 || write_feats(w, a->feats, a->nfeats) < 0 ||
            xmlTextWriterEndElement(w) < 0)
            return -1;
    }
    return xmlTextWriterEndElement(w) < 0 ? -1 : 0;
}

static int write_doc(xmlTextWriterPtr w, const crfp_doc *doc)
{
    const char *id = crfp_doc_id(doc);
    if (xmlTextWriterStartElement(w, BAD_CAST "document") < 0 || (id && attr(w, "id", id) < 0) ||
        attr(w, "offsets", crfp_offset_unit_name(crfp_doc_offset_unit(doc))) < 0)
        return -1;
    /* The text may hold NUL-free UTF-8 only up to len; it is NUL-terminated
     * by the model, and xml_bad_char has refused embedded NULs. */
    const char *text = crfp_doc_text(doc, NULL);
    if (xmlTextWriterStartElement(w, BAD_CAST "text") < 0 ||
        (*text && xmlTextWriterWriteString(w, BAD_CAST text) < 0) || xmlTextWriterEndElement(w) < 0)
        return -1;
    size_t nmeta;
    const crfp_feature *meta = crfp_doc_meta(doc, &nmeta);
    if (nmeta && (xmlTextWriterStartElement(w, BAD_CAST "meta") < 0 ||
                  write_feats(w, meta, nmeta) < 0 || xmlTextWriterEndElement(w) < 0))
        return -1;
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++)
        if (write_set(w, crfp_doc_annset_at(doc, s)) < 0)
            return -1;
    return xmlTextWriterEndElement(w) < 0 ? -1 : 0;
}

crfp_status crfp_xml_writer_write(crfp_xml_writer *w, const crfp_doc *doc)
{
    if (w->finished)
        return crfp_error(w->host, CRFP_EINVAL, "%s: document written after the end of the corpus",
                          w->out->name);
    crfp_status st = check_doc(w, doc);
    if (st != CRFP_OK)
        return st;
    crfp_reserve_section rs;
    if (crfp_reserve_enter(&rs) != CRFP_OK)
        return oom_fail(w);
    oom_watch();
    int bad = write_doc(w->w, doc) < 0 || xmlTextWriterFlush(w->w) < 0 || w->io_error ||
              oom_seen();
    if (crfp_reserve_leave(&rs))
        return oom_fail(w);
    return bad ? write_fail(w) : CRFP_OK;
}

crfp_status crfp_xml_writer_finish(crfp_xml_writer *w)
{
    if (w->finished)
        return CRFP_OK;
    w->finished = 1;
    crfp_reserve_section rs;
    if (crfp_reserve_enter(&rs) != CRFP_OK)
        return oom_fail(w);
    oom_watch();
    int bad = xmlTextWriterEndDocument(w->w) < 0 || xmlTextWriterFlush(w->w) < 0 ||
              w->io_error || oom_seen();
    if (crfp_reserve_leave(&rs))
        return oom_fail(w);
    if (bad)
        return write_fail(w);
    /* The stream buffers what write_cb gave it: a full disk often shows
     * only here, and the message should say so (ENOSPC, EIO...). */
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
    if (w->w)
        xmlFreeTextWriter(w->w); /* also closes the output buffer, not the FILE */
    free(w);
}
