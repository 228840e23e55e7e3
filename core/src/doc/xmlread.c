/* crfpipe — streaming reader of the XML corpus format (xmlTextReader).
 *
 * The reader walks the node stream with a small recursive-descent parser,
 * building one crfp_doc at a time; libxml2 frees the nodes behind it, so
 * memory is bounded by the largest document, not the corpus.  Everything
 * the model would refuse (offsets out of range or inside a character,
 * duplicate ids) and everything the schema cannot express (dangling
 * references) is an error naming the file and line.
 */
#include "config.h"
#include "crfpipe/corpus.h"
#include "xmlcommon.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/xmlreader.h>

enum { ST_START, ST_CORPUS, ST_DONE, ST_FAILED };

typedef struct pending_ref {
    uint64_t id;
    int line;
} pending_ref;

struct crfp_xml_reader {
    crfp_host *host;
    crfp_stream *in;
    xmlTextReaderPtr r;
    xmlRelaxNGPtr rng;
    crfp_xmlerrs errs;
    int schema_error; /* the first libxml2 error came from the validator */
    int state;
    char *buf; /* character content being collected */
    size_t len, cap;
    pending_ref *refs; /* refs of the current document, checked at its end */
    size_t nrefs, caprefs;
    crfp_prolog prolog; /* DOCTYPEs are refused before libxml2 sees them */
    size_t node_limit;  /* xml-node limit, 0 = unlimited */
    int huge_error;     /* libxml2 refused a node over its own 10 MB limit */
    int oom;            /* libxml2 ran out of memory: not an error of the input */
    /* libxml2's dictionary copies of the names met on every token, so an
     * element test is usually one pointer comparison */
    const char *d_ns, *d_a, *d_f;
};

/* --- plumbing ------------------------------------------------------------ */

static int read_cb(void *ctx, char *buf, int len)
{
    crfp_xml_reader *R = ctx;
    size_t n = fread(buf, 1, (size_t)len, R->in->fp);
    if (n == 0 && ferror(R->in->fp))
        return -1;
    /* Until the root element starts, look at the bytes before libxml2
     * does: a chunk holding a DOCTYPE is never handed over. */
    if (R->prolog.verdict == CRFP_PROLOG_PENDING &&
        crfp_prolog_feed(&R->prolog, (const unsigned char *)buf, n) > CRFP_PROLOG_OK)
        return -1;
    return (int)n;
}

static int close_cb(void *ctx)
{
    (void)ctx; /* the stream belongs to the caller */
    return 0;
}

static int line_no(crfp_xml_reader *R)
{
    xmlNodePtr node = xmlTextReaderCurrentNode(R->r);
    long l = node ? xmlGetLineNo(node) : -1;
    return l > 0 ? (int)l : xmlTextReaderGetParserLineNumber(R->r);
}

static void on_xml_error(void *ud, crfp_xml_err_ptr err)
{
    crfp_xml_reader *R = ud;
    /* libxml2 says "huge text node" as an out-of-memory error too */
    if (err && err->code == XML_ERR_NO_MEMORY && !crfp_xml_is_huge_error(err))
        R->oom = 1;
    if (err && err->level >= XML_ERR_ERROR && R->errs.count == 0) {
        R->schema_error = err->domain == XML_FROM_RELAXNGV;
        R->huge_error = crfp_xml_is_huge_error(err);
    }
    R->errs.fallback_line = xmlTextReaderGetParserLineNumber(R->r);
    crfp_xmlerrs_handler(&R->errs, err);
}

static crfp_status fail_at(crfp_xml_reader *R, int line, crfp_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static crfp_status fail_at(crfp_xml_reader *R, int line, crfp_status st, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    R->state = ST_FAILED;
    return crfp_error(R->host, st, "%s:%d: %s", R->in->name, line, msg);
}

#define FAIL(R, st, ...) fail_at((R), line_no(R), (st), __VA_ARGS__)

/* Whether libxml2 failed for lack of memory: through the handler, or (for
 * a failure before it was set, or in a call that reports none) the
 * thread's last error.  Such a failure is not the input's fault and must
 * not read as a parse error. */
static int xml_oom(crfp_xml_reader *R)
{
    crfp_xml_err_ptr last = xmlGetLastError();
    return !R->huge_error && (R->oom || (last && last->code == XML_ERR_NO_MEMORY &&
                                         !crfp_xml_is_huge_error(last)));
}

static crfp_status oom_fail(crfp_xml_reader *R)
{
    R->state = ST_FAILED;
    return crfp_error(R->host, CRFP_ENOMEM, "%s: out of memory", R->in->name);
}

/* Advance one node.  *eof is set at the end of the input. */
static crfp_status rd(crfp_xml_reader *R, int *eof)
{
    crfp_xml_quiet q = {0};
    crfp_xml_quiet_begin(&q);
    int ret = xmlTextReaderRead(R->r);
    crfp_xml_quiet_end(&q);
    *eof = ret == 0;
    if (ret < 0 && xml_oom(R))
        return oom_fail(R);
    if (*crfp_xml_quiet_msg(&q))
        return FAIL(R, CRFP_EPARSE, "the bytes are not in the encoding the file declares: %s",
                    crfp_xml_quiet_msg(&q));
    if (R->prolog.verdict > CRFP_PROLOG_OK) {
        R->state = ST_FAILED;
        return crfp_prolog_error(R->host, &R->prolog, R->in->name);
    }
    if (R->huge_error) {
        R->state = ST_FAILED;
        return crfp_xml_node_error(R->host, R->in->name, R->errs.fallback_line,
                                   "a text node or attribute value", 0);
    }
    if (ret < 0 && xml_oom(R))
        return oom_fail(R);
    if (ret < 0 && ferror(R->in->fp)) {
        R->state = ST_FAILED;
        return crfp_error(R->host, CRFP_EIO, "%s: read error", R->in->name);
    }
    if (R->errs.count) {
        R->state = ST_FAILED;
        return crfp_error(R->host, R->schema_error ? CRFP_ESCHEMA : CRFP_EPARSE, "%s",
                          R->errs.text ? R->errs.text : "XML error");
    }
    if (ret < 0)
        return FAIL(R, CRFP_EPARSE, "malformed XML");
    return CRFP_OK;
}

static int all_space(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* Next element start or end, skipping layout, comments and PIs.  *type is
 * XML_READER_TYPE_ELEMENT, XML_READER_TYPE_END_ELEMENT or 0 at the end. */
static crfp_status next_sig(crfp_xml_reader *R, int *type)
{
    for (;;) {
        int eof;
        crfp_status st = rd(R, &eof);
        if (st != CRFP_OK)
            return st;
        if (eof) {
            *type = 0;
            return CRFP_OK;
        }
        int t = xmlTextReaderNodeType(R->r);
        switch (t) {
        case XML_READER_TYPE_ELEMENT:
        case XML_READER_TYPE_END_ELEMENT:
            *type = t;
            return CRFP_OK;
        case XML_READER_TYPE_TEXT:
        case XML_READER_TYPE_CDATA: {
            const char *v = (const char *)xmlTextReaderConstValue(R->r);
            if (v && !all_space(v))
                return FAIL(R, CRFP_EPARSE, "unexpected text outside <text>, <f> or <v>");
            break;
        }
        case XML_READER_TYPE_DOCUMENT_TYPE:
            return FAIL(R, CRFP_EPARSE, "a DOCTYPE is not allowed in a corpus");
        case XML_READER_TYPE_ENTITY_REFERENCE:
            return FAIL(R, CRFP_EPARSE, "entity references are not allowed in a corpus");
        default:
            break; /* whitespace, comments, processing instructions */
        }
    }
}

static const char *elem_name(crfp_xml_reader *R)
{
    const char *n = (const char *)xmlTextReaderConstLocalName(R->r);
    return n ? n : "?";
}

static int is_elem(crfp_xml_reader *R, const char *name)
{
    const char *ns = (const char *)xmlTextReaderConstNamespaceUri(R->r);
    if (!ns || (ns != R->d_ns && strcmp(ns, CRFP_XML_NS) != 0))
        return 0;
    const char *n = elem_name(R);
    return n == name || strcmp(n, name) == 0;
}

static crfp_status unexpected(crfp_xml_reader *R, const char *expected)
{
    const char *ns = (const char *)xmlTextReaderConstNamespaceUri(R->r);
    if (!ns || strcmp(ns, CRFP_XML_NS) != 0)
        return FAIL(R, CRFP_EPARSE, "element <%s> is not in namespace %s (expected %s)",
                    elem_name(R), CRFP_XML_NS, expected);
    return FAIL(R, CRFP_EPARSE, "unexpected element <%s>, expected %s", elem_name(R), expected);
}

/* The attributes of the current element: vals[i] receives a copy of
 * names[i] (NULL when absent); any other attribute is an error.  Copies go
 * into buf[0..bufsz) while they fit (the elements of every token, <a> and
 * <f>, then cost no malloc), else are malloc'd; free_attrs_in tells them
 * apart. */
static crfp_status get_attrs_in(crfp_xml_reader *R, const char *const *names, size_t n,
                                char **vals, char *buf, size_t bufsz);

static int in_buf(const char *p, const char *buf, size_t bufsz)
{
    return p && buf && p >= buf && p < buf + bufsz;
}

static void free_attrs_in(char **vals, size_t n, const char *buf, size_t bufsz)
{
    for (size_t i = 0; i < n; i++) {
        if (!in_buf(vals[i], buf, bufsz))
            free(vals[i]);
        vals[i] = NULL;
    }
}

static crfp_status get_attrs(crfp_xml_reader *R, const char *const *names, size_t n, char **vals)
{
    return get_attrs_in(R, names, n, vals, NULL, 0);
}

static crfp_status get_attrs_in(crfp_xml_reader *R, const char *const *names, size_t n,
                                char **vals, char *buf, size_t bufsz)
{
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        vals[i] = NULL;
    const char *elem = elem_name(R);
    int line = line_no(R);
    crfp_status st = CRFP_OK;
    int more = xmlTextReaderMoveToFirstAttribute(R->r);
    for (; more == 1 && st == CRFP_OK; more = xmlTextReaderMoveToNextAttribute(R->r)) {
        if (xmlTextReaderIsNamespaceDecl(R->r))
            continue;
        const char *an = (const char *)xmlTextReaderConstName(R->r);
        const char *av = (const char *)xmlTextReaderConstValue(R->r);
        if (!an || !av) {
            /* a name or value libxml2 could not build: read as "" it
             * would change the document */
            st = oom_fail(R);
            break;
        }
        size_t i = 0;
        while (i < n && strcmp(an, names[i]) != 0)
            i++;
        size_t avlen = av ? strlen(av) : 0;
        if (R->node_limit && avlen > R->node_limit) {
            R->state = ST_FAILED;
            char what[96];
            snprintf(what, sizeof what, "attribute '%.40s' of <%.20s>", an, elem);
            st = crfp_xml_node_error(R->host, R->in->name, line, what, avlen);
        } else if (i == n) {
            st = fail_at(R, line, CRFP_EPARSE, "unknown attribute '%s' on <%s>", an, elem);
        } else {
            if (!in_buf(vals[i], buf, bufsz))
                free(vals[i]); /* a repeated attribute: libxml2 refuses those */
            if (bufsz - used > avlen) {
                vals[i] = buf + used;
                memcpy(vals[i], av ? av : "", avlen + 1);
                used += avlen + 1;
            } else if (!(vals[i] = strdup(av ? av : ""))) {
                st = crfp_error(R->host, CRFP_ENOMEM, "out of memory");
            }
        }
    }
    xmlTextReaderMoveToElement(R->r);
    if (st == CRFP_OK && more < 0)
        st = xml_oom(R) ? oom_fail(R)
                        : fail_at(R, line, CRFP_EPARSE, "cannot read the attributes of <%s>", elem);
    if (st != CRFP_OK)
        free_attrs_in(vals, n, buf, bufsz);
    return st;
}

static void free_attrs(char **vals, size_t n)
{
    free_attrs_in(vals, n, NULL, 0);
}

static crfp_status require(crfp_xml_reader *R, int line, const char *elem, const char *const *names,
                           char **vals, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!vals[i])
            return fail_at(R, line, CRFP_EPARSE, "<%s> lacks the attribute '%s'", elem, names[i]);
    return CRFP_OK;
}

static crfp_status buf_append(crfp_xml_reader *R, const char *s, size_t n)
{
    if (R->len + n + 1 > R->cap) {
        size_t cap = R->cap ? R->cap : 256;
        while (cap < R->len + n + 1)
            cap *= 2;
        char *p = realloc(R->buf, cap);
        if (!p)
            return crfp_error(R->host, CRFP_ENOMEM, "out of memory");
        R->buf = p;
        R->cap = cap;
    }
    memcpy(R->buf + R->len, s, n);
    R->len += n;
    R->buf[R->len] = '\0';
    return CRFP_OK;
}

/* The character content of the current element, exactly, into R->buf. */
static crfp_status read_content(crfp_xml_reader *R)
{
    R->len = 0;
    crfp_status st = buf_append(R, "", 0);
    if (st != CRFP_OK || xmlTextReaderIsEmptyElement(R->r))
        return st;
    /* a dictionary string: it stays valid while the reader moves on */
    const char *elem = elem_name(R);
    for (;;) {
        int eof;
        if ((st = rd(R, &eof)) != CRFP_OK)
            return st;
        if (eof)
            return FAIL(R, CRFP_EPARSE, "unexpected end of input inside <%s>", elem);
        switch (xmlTextReaderNodeType(R->r)) {
        case XML_READER_TYPE_TEXT:
        case XML_READER_TYPE_CDATA:
        case XML_READER_TYPE_WHITESPACE:
        case XML_READER_TYPE_SIGNIFICANT_WHITESPACE: {
            const char *v = (const char *)xmlTextReaderConstValue(R->r);
            size_t vl = v ? strlen(v) : 0;
            if (R->node_limit && R->len + vl > R->node_limit) {
                R->state = ST_FAILED;
                char what[64];
                snprintf(what, sizeof what, "the content of <%.20s>", elem);
                return crfp_xml_node_error(R->host, R->in->name, line_no(R), what, R->len + vl);
            }
            if (v && (st = buf_append(R, v, vl)) != CRFP_OK)
                return st;
            break;
        }
        case XML_READER_TYPE_END_ELEMENT:
            return CRFP_OK;
        case XML_READER_TYPE_ELEMENT:
            return FAIL(R, CRFP_EPARSE, "unexpected element <%s> inside <%s>", elem_name(R), elem);
        case XML_READER_TYPE_ENTITY_REFERENCE:
            return FAIL(R, CRFP_EPARSE, "entity references are not allowed in a corpus");
        default:
            break;
        }
    }
}

/* Elements that must have no content (a <param>, an empty <corpus>). */
static crfp_status expect_end(crfp_xml_reader *R, const char *elem)
{
    if (xmlTextReaderIsEmptyElement(R->r))
        return CRFP_OK;
    int t;
    crfp_status st = next_sig(R, &t);
    if (st == CRFP_OK && t != XML_READER_TYPE_END_ELEMENT)
        return FAIL(R, CRFP_EPARSE, "<%s> must be empty", elem);
    return st;
}

/* --- scalar syntax ------------------------------------------------------- */

/* xsd's whitespace collapse for the non-string types. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return 0;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

static int parse_i64(const char *s, int64_t *out)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (*p < '0' || *p > '9')
        return 0;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end || errno == ERANGE)
        return 0;
    *out = (int64_t)v;
    return 1;
}

static int parse_double(const char *s, double *out)
{
    if (!*s)
        return 0;
    char *end;
    double v = strtod(s, &end);
    if (*end)
        return 0;
    *out = v;
    return 1;
}

/* --- values -------------------------------------------------------------- */

static void value_free(crfp_value *v)
{
    if (v->type == CRFP_V_STRING) {
        free((char *)v->u.s);
    } else if (v->type == CRFP_V_LIST) {
        for (size_t i = 0; i < v->u.list.n; i++)
            value_free(&v->u.list.items[i]);
        free(v->u.list.items);
    }
    v->type = CRFP_V_INT;
}

static int parse_type(const char *t)
{
    static const char *const names[] = {"string", "int", "float", "bool", "ref", "list"};
    if (!t)
        return CRFP_V_STRING;
    for (int i = 0; i < 6; i++)
        if (strcmp(t, names[i]) == 0)
            return i;
    return -1;
}

static crfp_status record_ref(crfp_xml_reader *R, uint64_t id, int line)
{
    if (R->nrefs == R->caprefs) {
        size_t cap = R->caprefs ? R->caprefs * 2 : 16;
        pending_ref *p = realloc(R->refs, cap * sizeof *p);
        if (!p)
            return crfp_error(R->host, CRFP_ENOMEM, "out of memory");
        R->refs = p;
        R->caprefs = cap;
    }
    R->refs[R->nrefs++] = (pending_ref){id, line};
    return CRFP_OK;
}

/* The value of the current <f> or <v>, whose type attribute is `tname`
 * (NULL = string).  *v is malloc'd (value_free). */
static crfp_status parse_value(crfp_xml_reader *R, const char *tname, const char *fname,
                               crfp_value *v)
{
    int line = line_no(R);
    int type = parse_type(tname);
    v->type = CRFP_V_INT;
    if (type < 0)
        return fail_at(R, line, CRFP_EPARSE, "feature '%s': unknown type '%s' (expected string, int, float, bool, ref or list)",
                       fname, tname);
    crfp_status st;
    if (type == CRFP_V_LIST) {
        v->type = CRFP_V_LIST;
        v->u.list.items = NULL;
        v->u.list.n = 0;
        if (xmlTextReaderIsEmptyElement(R->r))
            return CRFP_OK;
        size_t cap = 0;
        for (;;) {
            int t;
            if ((st = next_sig(R, &t)) != CRFP_OK)
                return st;
            if (t == XML_READER_TYPE_END_ELEMENT)
                return CRFP_OK;
            if (t == 0)
                return FAIL(R, CRFP_EPARSE, "unexpected end of input in list '%s'", fname);
            if (!is_elem(R, "v"))
                return unexpected(R, "<v>");
            if (v->u.list.n == cap) {
                cap = cap ? cap * 2 : 4;
                crfp_value *items = realloc(v->u.list.items, cap * sizeof *items);
                if (!items)
                    return crfp_error(R->host, CRFP_ENOMEM, "out of memory");
                v->u.list.items = items;
            }
            static const char *const vattrs[] = {"type"};
            char *tv;
            if ((st = get_attrs(R, vattrs, 1, &tv)) != CRFP_OK)
                return st;
            st = parse_value(R, tv, fname, &v->u.list.items[v->u.list.n]);
            free(tv);
            if (st != CRFP_OK) {
                value_free(&v->u.list.items[v->u.list.n]);
                return st;
            }
            v->u.list.n++;
        }
    }
    if ((st = read_content(R)) != CRFP_OK)
        return st;
    if (type == CRFP_V_STRING) {
        char *s = strdup(R->buf);
        if (!s)
            return crfp_error(R->host, CRFP_ENOMEM, "out of memory");
        v->type = CRFP_V_STRING;
        v->u.s = s;
        return CRFP_OK;
    }
    char *s = trim(R->buf);
    int ok = 0;
    switch (type) {
    case CRFP_V_INT:
        ok = parse_i64(s, &v->u.i);
        break;
    case CRFP_V_FLOAT:
        ok = parse_double(s, &v->u.f);
        break;
    case CRFP_V_BOOL:
        ok = 1;
        if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0)
            v->u.b = 1;
        else if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0)
            v->u.b = 0;
        else
            ok = 0;
        break;
    case CRFP_V_REF:
        ok = parse_u64(s, &v->u.ref);
        if (ok && (st = record_ref(R, v->u.ref, line)) != CRFP_OK)
            return st;
        break;
    }
    if (!ok)
        return fail_at(R, line, CRFP_EPARSE, "feature '%s': '%s' is not a valid %s", fname, s, tname);
    v->type = (crfp_vtype)type;
    return CRFP_OK;
}

/* A <f name type> element: the document's copy is made by `set`.  A plain
 * string (the common case) goes from the content buffer straight into the
 * document, without a copy of its own. */
static crfp_status parse_feature(crfp_xml_reader *R, crfp_doc *doc, crfp_ann *ann)
{
    static const char *const names[] = {"name", "type"};
    char *a[2], abuf[256];
    int line = line_no(R);
    crfp_status st = get_attrs_in(R, names, 2, a, abuf, sizeof abuf);
    if (st != CRFP_OK)
        return st;
    if ((st = require(R, line, "f", names, a, 1)) != CRFP_OK) {
        free_attrs_in(a, 2, abuf, sizeof abuf);
        return st;
    }
    crfp_value v;
    int borrowed = 0;
    if (!a[1] || strcmp(a[1], "string") == 0) {
        st = read_content(R);
        v.type = CRFP_V_STRING;
        v.u.s = R->buf;
        borrowed = 1;
    } else {
        st = parse_value(R, a[1], a[0], &v);
    }
    if (st == CRFP_OK) {
        st = ann ? crfp_ann_set(doc, ann, a[0], &v) : crfp_doc_meta_set(doc, a[0], &v);
        if (st != CRFP_OK)
            st = fail_at(R, line, st, "feature '%s': %s", a[0],
                         st == CRFP_EUTF8 ? "invalid UTF-8" : crfp_status_str(st));
    }
    if (!borrowed)
        value_free(&v);
    free_attrs_in(a, 2, abuf, sizeof abuf);
    return st;
}

/* Children <f> of the current element until its end. */
static crfp_status parse_features(crfp_xml_reader *R, crfp_doc *doc, crfp_ann *ann)
{
    if (xmlTextReaderIsEmptyElement(R->r))
        return CRFP_OK;
    for (;;) {
        int t;
        crfp_status st = next_sig(R, &t);
        if (st != CRFP_OK)
            return st;
        if (t == XML_READER_TYPE_END_ELEMENT)
            return CRFP_OK;
        if (t == 0)
            return FAIL(R, CRFP_EPARSE, "unexpected end of input");
        if (!is_elem(R, R->d_f))
            return unexpected(R, "<f>");
        if ((st = parse_feature(R, doc, ann)) != CRFP_OK)
            return st;
    }
}

/* --- structure ----------------------------------------------------------- */

static crfp_status parse_processor(crfp_xml_reader *R, crfp_doc *doc, crfp_annset *set)
{
    static const char *const names[] = {"plugin", "version"};
    static const char *const pnames[] = {"name", "value"};
    char *a[2];
    int line = line_no(R);
    crfp_status st = get_attrs(R, names, 2, a);
    if (st != CRFP_OK)
        return st;
    char **keys = NULL, **vals = NULL;
    size_t n = 0, cap = 0;
    if ((st = require(R, line, "processor", names, a, 2)) != CRFP_OK)
        goto out;
    if (!xmlTextReaderIsEmptyElement(R->r)) {
        for (;;) {
            int t;
            if ((st = next_sig(R, &t)) != CRFP_OK)
                goto out;
            if (t == XML_READER_TYPE_END_ELEMENT)
                break;
            if (t == 0 || !is_elem(R, "param")) {
                st = t == 0 ? FAIL(R, CRFP_EPARSE, "unexpected end of input") : unexpected(R, "<param>");
                goto out;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 4;
                char **k = realloc(keys, cap * sizeof *k);
                if (k)
                    keys = k;
                char **v = realloc(vals, cap * sizeof *v);
                if (v)
                    vals = v;
                if (!k || !v) {
                    st = crfp_error(R->host, CRFP_ENOMEM, "out of memory");
                    goto out;
                }
            }
            char *pv[2];
            int pl = line_no(R);
            if ((st = get_attrs(R, pnames, 2, pv)) != CRFP_OK)
                goto out;
            keys[n] = pv[0];
            vals[n] = pv[1];
            n++;
            if ((st = require(R, pl, "param", pnames, pv, 2)) != CRFP_OK ||
                (st = expect_end(R, "param")) != CRFP_OK)
                goto out;
        }
    }
    st = crfp_annset_add_processor(doc, set, a[0], a[1], (const char *const *)keys,
                                   (const char *const *)vals, n);
    if (st != CRFP_OK)
        st = fail_at(R, line, st, "<processor>: %s", crfp_status_str(st));
out:
    for (size_t i = 0; i < n; i++) {
        free(keys[i]);
        free(vals[i]);
    }
    free(keys);
    free(vals);
    free_attrs(a, 2);
    return st;
}

static crfp_status parse_ann(crfp_xml_reader *R, crfp_doc *doc, crfp_annset *set)
{
    static const char *const names[] = {"id", "type", "start", "end"};
    char *a[4], abuf[256];
    int line = line_no(R);
    crfp_status st = get_attrs_in(R, names, 4, a, abuf, sizeof abuf);
    if (st != CRFP_OK)
        return st;
    uint64_t id, start, end;
    crfp_ann *ann = NULL;
    if ((st = require(R, line, "a", names, a, 4)) != CRFP_OK)
        goto out;
    const char *bad = !parse_u64(trim(a[0]), &id) ? "id"
                      : !parse_u64(trim(a[2]), &start) ? "start"
                      : !parse_u64(trim(a[3]), &end) ? "end" : NULL;
    if (bad) {
        st = fail_at(R, line, CRFP_EPARSE, "<a>: attribute %s='%s' is not an unsigned integer", bad,
                     bad[0] == 'i' ? a[0] : bad[0] == 's' ? a[2] : a[3]);
        goto out;
    }
    if (start > SIZE_MAX || end > SIZE_MAX) {
        st = fail_at(R, line, CRFP_EINVAL, "<a id='%s'>: offsets too large", a[0]);
        goto out;
    }
    st = crfp_annset_add_with_id(R->host, doc, set, id, a[1], (size_t)start, (size_t)end, &ann);
    if (st != CRFP_OK) {
        R->state = ST_FAILED;
        crfp_error_wrap(R->host, st, "%s:%d", R->in->name, line);
        goto out;
    }
    st = parse_features(R, doc, ann);
out:
    free_attrs_in(a, 4, abuf, sizeof abuf);
    return st;
}

static crfp_status parse_annotations(crfp_xml_reader *R, crfp_doc *doc)
{
    static const char *const names[] = {"set"};
    char *name;
    int line = line_no(R);
    crfp_status st = get_attrs(R, names, 1, &name);
    if (st != CRFP_OK)
        return st;
    const char *sn = name ? name : "";
    crfp_annset *set = NULL;
    if (crfp_doc_annset(doc, sn, 0))
        st = fail_at(R, line, CRFP_EPARSE, "annotation set '%s' appears twice in document '%s'", sn,
                     crfp_doc_id(doc) ? crfp_doc_id(doc) : "");
    else if (!(set = crfp_doc_annset(doc, sn, 1)))
        st = crfp_error(R->host, CRFP_ENOMEM, "out of memory");
    free(name);
    if (st != CRFP_OK || xmlTextReaderIsEmptyElement(R->r))
        return st;
    int seen_ann = 0;
    for (;;) {
        int t;
        if ((st = next_sig(R, &t)) != CRFP_OK)
            return st;
        if (t == XML_READER_TYPE_END_ELEMENT)
            return CRFP_OK;
        if (t == 0)
            return FAIL(R, CRFP_EPARSE, "unexpected end of input");
        if (is_elem(R, R->d_a)) {
            seen_ann = 1;
            st = parse_ann(R, doc, set);
        } else if (is_elem(R, "processor") && !seen_ann) {
            st = parse_processor(R, doc, set);
        } else {
            st = unexpected(R, seen_ann ? "<a>" : "<processor> or <a>");
        }
        if (st != CRFP_OK)
            return st;
    }
}

static crfp_status parse_document(crfp_xml_reader *R, crfp_doc **out)
{
    static const char *const names[] = {"id", "offsets"};
    char *a[2];
    int line = line_no(R);
    crfp_status st = get_attrs(R, names, 2, a);
    if (st != CRFP_OK)
        return st;
    crfp_doc *doc = crfp_doc_new(a[0]);
    int unit = a[1] ? crfp_offset_unit_parse(a[1]) : CRFP_OFFSET_UTF16;
    if (!doc)
        st = crfp_error(R->host, CRFP_ENOMEM, "out of memory");
    else if (unit < 0)
        st = fail_at(R, line, CRFP_EPARSE, "<document>: unknown offset unit '%s' (expected utf16, codepoint or byte)",
                     a[1]);
    else
        crfp_doc_set_offset_unit(doc, (crfp_offset_unit)unit);
    free_attrs(a, 2);
    if (st == CRFP_OK && xmlTextReaderIsEmptyElement(R->r))
        st = fail_at(R, line, CRFP_EPARSE, "<document> without <text>");
    R->nrefs = 0;

    int t, stage = 0; /* 0: want text, 1: meta allowed, 2: annotations only */
    while (st == CRFP_OK) {
        if ((st = next_sig(R, &t)) != CRFP_OK)
            break;
        if (t == XML_READER_TYPE_END_ELEMENT) {
            if (stage == 0)
                st = FAIL(R, CRFP_EPARSE, "<document> without <text>");
            break;
        }
        if (t == 0) {
            st = FAIL(R, CRFP_EPARSE, "unexpected end of input inside <document>");
            break;
        }
        int el = line_no(R);
        if (stage == 0) {
            if (!is_elem(R, "text")) {
                st = unexpected(R, "<text>");
            } else if ((st = get_attrs(R, NULL, 0, NULL)) == CRFP_OK &&
                       (st = read_content(R)) == CRFP_OK &&
                       (st = crfp_doc_set_text(R->host, doc, R->buf, R->len)) != CRFP_OK) {
                R->state = ST_FAILED;
                crfp_error_wrap(R->host, st, "%s:%d", R->in->name, el);
            }
            stage = 1;
        } else if (stage == 1 && is_elem(R, "meta")) {
            if ((st = get_attrs(R, NULL, 0, NULL)) == CRFP_OK)
                st = parse_features(R, doc, NULL);
            stage = 2;
        } else if (is_elem(R, "annotations")) {
            st = parse_annotations(R, doc);
            stage = 2;
        } else {
            st = unexpected(R, stage == 1 ? "<meta> or <annotations>" : "<annotations>");
        }
    }
    for (size_t i = 0; st == CRFP_OK && i < R->nrefs; i++)
        if (!crfp_doc_find_ann(doc, R->refs[i].id))
            st = fail_at(R, R->refs[i].line, CRFP_EINVAL,
                         "reference to annotation %" PRIu64 ", which document '%s' does not contain",
                         R->refs[i].id, crfp_doc_id(doc) ? crfp_doc_id(doc) : "");
    if (st != CRFP_OK) {
        R->state = ST_FAILED;
        crfp_doc_free(doc);
        return st;
    }
    *out = doc;
    return CRFP_OK;
}

/* --- API ----------------------------------------------------------------- */

crfp_status crfp_xml_reader_open(crfp_host *host, crfp_stream *in, int validate,
                                 crfp_xml_reader **out)
{
    *out = NULL;
    crfp_xml_reader *R = calloc(1, sizeof *R);
    if (!R)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    R->host = host;
    R->in = in;
    R->errs.name = in->name;
    crfp_status st;
    if (validate && (st = crfp_rng_load(host, "document.rng", &R->rng)) != CRFP_OK) {
        free(R);
        return st;
    }
    /* libxml2's huge mode only when the xml-node limit asks for nodes over
     * its own 10 MB (see crfp_xml_parse_options); a DOCTYPE, and so any
     * entity, is refused by read_cb before libxml2 parses it. */
    R->node_limit = crfp_host_limit(host, CRFP_LIMIT_XML_NODE);
    xmlResetLastError();
    R->r = xmlReaderForIO(read_cb, close_cb, R, in->name, NULL, crfp_xml_parse_options(host));
    if (!R->r) {
        /* nothing is read yet: only an allocation can have failed */
        crfp_xml_reader_close(R);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory opening the XML reader",
                          in->name);
    }
    xmlTextReaderSetStructuredErrorHandler(R->r, on_xml_error, R);
    R->d_ns = (const char *)xmlTextReaderConstString(R->r, BAD_CAST CRFP_XML_NS);
    R->d_a = (const char *)xmlTextReaderConstString(R->r, BAD_CAST "a");
    R->d_f = (const char *)xmlTextReaderConstString(R->r, BAD_CAST "f");
    if (!R->d_a || !R->d_f) {
        R->d_a = "a";
        R->d_f = "f";
    }
    if (R->rng && xmlTextReaderRelaxNGSetSchema(R->r, R->rng) != 0) {
        crfp_xml_reader_close(R);
        return crfp_error(host, CRFP_EPARSE, "%s: cannot start schema validation", in->name);
    }
    R->state = ST_START;
    *out = R;
    return CRFP_OK;
}

crfp_status crfp_xml_reader_next(crfp_xml_reader *R, crfp_doc **doc)
{
    *doc = NULL;
    crfp_status st;
    int t;
    if (R->state == ST_FAILED)
        return crfp_error(R->host, CRFP_EINVAL, "%s: reading after an error", R->in->name);
    if (R->state == ST_DONE)
        return CRFP_OK;
    if (R->state == ST_START) {
        if ((st = next_sig(R, &t)) != CRFP_OK)
            return st;
        if (t != XML_READER_TYPE_ELEMENT)
            return FAIL(R, CRFP_EPARSE, "no <corpus> element");
        /* Other XML is common here (any file named .xml comes to this
         * reader): say what the file is not, and where its readers are. */
        if (!is_elem(R, "corpus"))
            return FAIL(R, CRFP_EPARSE,
                        "not a crfpipe XML corpus: its root is <%s>, not <corpus> in namespace "
                        "%s (other XML and HTML: --from FORMAT, the formats listed by "
                        "'crfpipe plugins --formats')",
                        elem_name(R), CRFP_XML_NS);
        if ((st = get_attrs(R, NULL, 0, NULL)) != CRFP_OK)
            return st;
        R->state = xmlTextReaderIsEmptyElement(R->r) ? ST_DONE : ST_CORPUS;
    }
    if (R->state == ST_CORPUS) {
        if ((st = next_sig(R, &t)) != CRFP_OK)
            return st;
        if (t == XML_READER_TYPE_ELEMENT) {
            if (!is_elem(R, "document"))
                return unexpected(R, "<document>");
            return parse_document(R, doc);
        }
        if (t == 0)
            return FAIL(R, CRFP_EPARSE, "unexpected end of input inside <corpus>");
        R->state = ST_DONE;
    }
    /* Read to the end so that trailing garbage and validation errors at the
     * root are reported. */
    if ((st = next_sig(R, &t)) != CRFP_OK)
        return st;
    if (t != 0)
        return FAIL(R, CRFP_EPARSE, "content after </corpus>");
    return CRFP_OK;
}

void crfp_xml_reader_close(crfp_xml_reader *R)
{
    if (!R)
        return;
    if (R->r)
        xmlFreeTextReader(R->r);
    if (R->rng)
        xmlRelaxNGFree(R->rng);
    crfp_xmlerrs_free(&R->errs);
    free(R->buf);
    free(R->refs);
    free(R);
}
