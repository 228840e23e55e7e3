/* gate_reader — a GATE XML document in, a crfpipe document out.
 *
 * Reads the format GATE saves documents in (GateDocument, versions 2 and
 * 3; see gate_writer.c for its layout): the document features become the
 * document's metadata, TextWithNodes its text (UTF-16 offsets, as GATE
 * counts), each AnnotationSet a set (the one without a Name is the default
 * set ""), each Annotation an annotation with its Id, Type, the offsets of
 * its StartNode and EndNode, and its features.  RelationSets are skipped
 * with a warning.
 *
 * Feature values by their className: java.lang.String (or none) is a
 * string; Integer, Long, Short and Byte are integers; Double and Float
 * floats; Boolean booleans; collection classes (java.util.ArrayList,
 * LinkedList, HashSet, ...) lists of their ';'-separated items typed by
 * itemClassName (GATE drops empty items, so does this reader; if one item
 * does not parse as that class, all are kept as strings); any other
 * class (GATE's ObjectWrapper, user classes) is kept as its text, with a
 * warning.  Document features named crfpipe.processor.N, which
 * gate_writer writes, are turned back into the sets' processors.
 *
 * A GATE file holds one document; the document's id is the file name.
 * Like crfpipe's own XML reader this one refuses a DOCTYPE before libxml2
 * sees it (no entity is ever expanded) and bounds text nodes and attribute
 * values by the host's xml-node limit.  Errors name the file and line.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "crfpipe/crfpipe.h"
#include "../common/names.h"
#include "../common/xmlhead.h"

static const crfp_param_spec params[] = {
    {"id", CRFP_PARAM_STRING, NULL, "document id (default: the input's file name)"},
};

typedef struct node {
    long id;
    size_t off;      /* UTF-16 offset */
} node;

/* By id, then offset. */
static int cmp_node(const void *a, const void *b)
{
    const node *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

typedef struct greader {
    crfp_host *host;
    crfp_stream *in;
    char *id;
    /* DOCTYPE guard on the bytes libxml2 reads */
    int prolog_done;
    char tail[16];
    size_t ntail;
    int doctype;
    int done;
    int warned_class, warned_rel, warned_items;
} greader;

static void gr_close(void *state);

static crfp_status gr_open(crfp_host *host, const crfp_params *p, crfp_stream *in, void **state)
{
    *state = NULL;
    greader *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    r->host = host;
    r->in = in;
    const char *id = crfp_params_str(p, "id");
    r->id = id ? strdup(id) : names_docid(in->name);
    if (!r->id) {
        gr_close(r);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    *state = r;
    return CRFP_OK;
}

/* libxml2 input callback.  Until the root element starts, the bytes are
 * scanned for "<!DOCTYPE" (across reads, through a small tail), and the
 * read fails if one is found: a DTD could declare entities. */
static int read_cb(void *ctx, char *buffer, int len)
{
    greader *r = ctx;
    size_t got = fread(buffer, 1, (size_t)len, r->in->fp);
    if (got == 0)
        return ferror(r->in->fp) ? -1 : 0;
    if (!r->prolog_done) {
        char win[16 + 64];
        size_t i = 0;
        while (i < got && !r->prolog_done) {
            size_t take = got - i < 64 ? got - i : 64;
            memcpy(win, r->tail, r->ntail);
            memcpy(win + r->ntail, buffer + i, take);
            size_t wl = r->ntail + take;
            for (size_t k = 0; k < wl; k++) {
                if (win[k] != '<' || k + 1 >= wl)
                    continue;
                char c = win[k + 1];
                if (wl - k >= 9 && memcmp(win + k, "<!DOCTYPE", 9) == 0) {
                    r->doctype = 1;
                    return -1;
                }
                if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':') {
                    r->prolog_done = 1;
                    break;
                }
            }
            size_t keep = wl < 9 ? wl : 9;
            memcpy(r->tail, win + wl - keep, keep);
            r->ntail = keep;
            i += take;
        }
    }
    return (int)got;
}

/* --- per-document parsing state ---------------------------------------------- */

typedef struct pstate {
    greader *r;
    xmlTextReaderPtr xr;
    crfp_doc *doc;
    size_t limit;        /* xml-node */
    /* text */
    char *text;
    size_t tlen, tcap;
    size_t u16;          /* UTF-16 length of text so far */
    node *nodes;
    size_t nnodes, capnodes;
    int have_text;
    int sorted;
    char errmsg[512];    /* libxml2's first error, kept off stderr */
    int errline;
    int oom;             /* libxml2 ran out of memory: not a parse error */
} pstate;

static void on_xml_error(void *ud, xmlErrorPtr e)
{
    pstate *ps = ud;
    if (e && e->code == XML_ERR_NO_MEMORY)
        ps->oom = 1;
    if (!e || ps->errmsg[0])
        return;
    snprintf(ps->errmsg, sizeof ps->errmsg, "%s", e->message ? e->message : "parse error");
    size_t n = strlen(ps->errmsg);
    while (n && (ps->errmsg[n - 1] == '\n' || ps->errmsg[n - 1] == ' '))
        ps->errmsg[--n] = '\0';
    ps->errline = e->line;
}

/* The line of the node the reader is on (its start tag), else where the
 * parser is (which runs ahead of the reader). */
static int line_of(pstate *ps)
{
    xmlNodePtr n = xmlTextReaderCurrentNode(ps->xr);
    long l = n ? xmlGetLineNo(n) : -1;
    return l > 0 && l < INT_MAX ? (int)l : xmlTextReaderGetParserLineNumber(ps->xr);
}

static const char *name_of(pstate *ps)
{
    return ps->r->in->name ? ps->r->in->name : "input";
}

static crfp_status perr(pstate *ps, crfp_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static crfp_status perr(pstate *ps, crfp_status st, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return crfp_error(ps->r->host, st, "%s:%d: %s", name_of(ps), line_of(ps), msg);
}

/* Advance; *type is the node type, 0 at the end.  Parse errors become
 * CRFP_EPARSE naming the line. */
static crfp_status step(pstate *ps, int *type)
{
    crfp_xml_quiet q = {0};
    crfp_xml_quiet_begin(&q);
    int rc = xmlTextReaderRead(ps->xr);
    crfp_xml_quiet_end(&q);
    const xmlError *err = rc < 0 ? xmlGetLastError() : NULL;
    if (*crfp_xml_quiet_msg(&q) && !ps->oom && !(err && err->code == XML_ERR_NO_MEMORY)) {
        *type = 0;
        return crfp_error(ps->r->host, CRFP_EPARSE,
                          "%s:%d: the bytes are not in the encoding the file declares: %s",
                          name_of(ps), line_of(ps), crfp_xml_quiet_msg(&q));
    }
    if (rc == 1) {
        *type = xmlTextReaderNodeType(ps->xr);
        return CRFP_OK;
    }
    *type = 0;
    if (rc == 0)
        return CRFP_OK;
    /* libxml2 reports a failed allocation as an error of the document;
     * one before the handler was set (in xmlReaderForIO) only in the
     * thread's last error */
    const xmlError *last = xmlGetLastError();
    if (ps->oom || (last && last->code == XML_ERR_NO_MEMORY))
        return crfp_error(ps->r->host, CRFP_ENOMEM, "%s:%d: out of memory", name_of(ps),
                          line_of(ps));
    if (ps->r->doctype)
        return crfp_error(ps->r->host, CRFP_EPARSE,
                          "%s: a DOCTYPE is not allowed (GATE documents have none; DTDs could "
                          "declare entities)",
                          name_of(ps));
    return crfp_error(ps->r->host, CRFP_EPARSE, "%s:%d: not well-formed XML: %s", name_of(ps),
                      ps->errline ? ps->errline : line_of(ps),
                      ps->errmsg[0] ? ps->errmsg : "parse error");
}

static const char *local(pstate *ps)
{
    const xmlChar *n = xmlTextReaderConstLocalName(ps->xr);
    return n ? (const char *)n : "";
}

/* A node's value, checked against the xml-node limit. */
static crfp_status checked_value(pstate *ps, const char **v, size_t *n)
{
    const xmlChar *x = xmlTextReaderConstValue(ps->xr);
    *v = x ? (const char *)x : "";
    *n = strlen(*v);
    if (ps->limit && *n > ps->limit)
        return perr(ps, CRFP_EPARSE,
                    "text node of %zu bytes is over the limit xml-node=%zu (raise it with "
                    "--limit xml-node=N or CRFPIPE_LIMITS=xml-node=N; 0 = unlimited)",
                    *n, ps->limit);
    return CRFP_OK;
}

/* An attribute, checked likewise; NULL when absent.  Caller xmlFree()s. */
static crfp_status attr(pstate *ps, const char *name, char **out)
{
    *out = (char *)xmlTextReaderGetAttribute(ps->xr, BAD_CAST name);
    if (!*out) {
        /* absent, or its copy could not be made */
        int has = xmlTextReaderMoveToAttribute(ps->xr, BAD_CAST name);
        xmlTextReaderMoveToElement(ps->xr);
        if (has != 0)
            return crfp_error(ps->r->host, CRFP_ENOMEM, "%s:%d: out of memory", name_of(ps),
                              line_of(ps));
    }
    if (*out && ps->limit && strlen(*out) > ps->limit) {
        xmlFree(*out);
        *out = NULL;
        return perr(ps, CRFP_EPARSE, "attribute %s over the limit xml-node=%zu", name, ps->limit);
    }
    return CRFP_OK;
}

static int text_add(pstate *ps, const char *s, size_t n)
{
    if (ps->tlen + n + 1 > ps->tcap) {
        size_t cap = ps->tcap ? ps->tcap : 4096;
        while (cap < ps->tlen + n + 1)
            cap *= 2;
        char *t = realloc(ps->text, cap);
        if (!t)
            return -1;
        ps->text = t;
        ps->tcap = cap;
    }
    memcpy(ps->text + ps->tlen, s, n);
    ps->tlen += n;
    ps->text[ps->tlen] = '\0';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xC0) != 0x80)
            ps->u16 += c >= 0xF0 ? 2 : 1;
    }
    return 0;
}

static int parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static crfp_status read_text(pstate *ps)
{
    if (xmlTextReaderIsEmptyElement(ps->xr)) {
        ps->have_text = 1;
        return CRFP_OK;
    }
    for (;;) {
        int t;
        crfp_status st = step(ps, &t);
        if (st != CRFP_OK)
            return st;
        if (t == 0)
            return perr(ps, CRFP_EPARSE, "the input ends inside TextWithNodes");
        if (t == XML_READER_TYPE_END_ELEMENT)
            break;
        if (t == XML_READER_TYPE_TEXT || t == XML_READER_TYPE_CDATA ||
            t == XML_READER_TYPE_WHITESPACE || t == XML_READER_TYPE_SIGNIFICANT_WHITESPACE) {
            const char *v;
            size_t n;
            if ((st = checked_value(ps, &v, &n)) != CRFP_OK)
                return st;
            if (text_add(ps, v, n))
                return crfp_error(ps->r->host, CRFP_ENOMEM, "out of memory");
            continue;
        }
        if (t != XML_READER_TYPE_ELEMENT)
            continue;   /* comments, processing instructions */
        if (strcmp(local(ps), "Node") != 0)
            return perr(ps, CRFP_EPARSE, "element <%s> inside TextWithNodes (only <Node> may be)",
                        local(ps));
        char *ids;
        if ((st = attr(ps, "id", &ids)) != CRFP_OK)
            return st;
        long id;
        int bad = parse_long(ids, &id);
        xmlFree(ids);
        if (bad)
            return perr(ps, CRFP_EPARSE, "<Node> without an integer id");
        if (ps->nnodes == ps->capnodes) {
            size_t cap = ps->capnodes ? 2 * ps->capnodes : 256;
            node *nn = realloc(ps->nodes, cap * sizeof *nn);
            if (!nn)
                return crfp_error(ps->r->host, CRFP_ENOMEM, "out of memory");
            ps->nodes = nn;
            ps->capnodes = cap;
        }
        ps->nodes[ps->nnodes++] = (node){id, ps->u16};
        if (!xmlTextReaderIsEmptyElement(ps->xr))
            return perr(ps, CRFP_EPARSE, "<Node> must be empty");
    }
    /* Node ids are what annotations point at: one id at two offsets would
     * leave it to the sort which one they get. */
    if (ps->nnodes > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(ps->nodes, ps->nnodes, sizeof *ps->nodes, cmp_node);
    ps->sorted = 1;
    for (size_t i = 1; i < ps->nnodes; i++)
        if (ps->nodes[i].id == ps->nodes[i - 1].id && ps->nodes[i].off != ps->nodes[i - 1].off)
            return perr(ps, CRFP_EPARSE, "node id %ld stands at two offsets in TextWithNodes "
                        "(UTF-16 %zu and %zu)", ps->nodes[i].id, ps->nodes[i - 1].off,
                        ps->nodes[i].off);
    ps->have_text = 1;
    crfp_status st = crfp_doc_set_text(ps->r->host, ps->doc, ps->text ? ps->text : "", ps->tlen);
    if (st != CRFP_OK)
        return crfp_error_wrap(ps->r->host, st, "%s:%d", name_of(ps), line_of(ps));
    return CRFP_OK;
}

/* Offset of node `id` (UTF-16); -1 when unknown. */
static long node_off(pstate *ps, long id)
{
    if (!ps->sorted) {
        if (ps->nnodes > 1) /* qsort(NULL, 0, ...) is undefined */
            qsort(ps->nodes, ps->nnodes, sizeof *ps->nodes, cmp_node);
        ps->sorted = 1;
    }
    size_t lo = 0, hi = ps->nnodes;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ps->nodes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ps->nnodes && ps->nodes[lo].id == id ? (long)ps->nodes[lo].off : -1;
}

/* --- features ------------------------------------------------------------------- */

/* The text content of a Name or Value element (no child elements). */
static crfp_status elem_text(pstate *ps, char **out)
{
    *out = NULL;
    size_t n = 0, cap = 64;
    char *s = malloc(cap);
    if (!s)
        return crfp_error(ps->r->host, CRFP_ENOMEM, "out of memory");
    s[0] = '\0';
    if (xmlTextReaderIsEmptyElement(ps->xr)) {
        *out = s;
        return CRFP_OK;
    }
    for (;;) {
        int t;
        crfp_status st = step(ps, &t);
        if (st == CRFP_OK && t == 0)
            st = perr(ps, CRFP_EPARSE, "the input ends inside a feature");
        if (st == CRFP_OK && t == XML_READER_TYPE_ELEMENT)
            st = perr(ps, CRFP_EPARSE, "element <%s> inside a feature name or value", local(ps));
        if (st != CRFP_OK) {
            free(s);
            return st;
        }
        if (t == XML_READER_TYPE_END_ELEMENT)
            break;
        if (t != XML_READER_TYPE_TEXT && t != XML_READER_TYPE_CDATA &&
            t != XML_READER_TYPE_WHITESPACE && t != XML_READER_TYPE_SIGNIFICANT_WHITESPACE)
            continue;
        const char *v;
        size_t vn;
        if ((st = checked_value(ps, &v, &vn)) != CRFP_OK) {
            free(s);
            return st;
        }
        if (n + vn + 1 > cap) {
            while (n + vn + 1 > cap)
                cap *= 2;
            char *ns = realloc(s, cap);
            if (!ns) {
                free(s);
                return crfp_error(ps->r->host, CRFP_ENOMEM, "out of memory");
            }
            s = ns;
        }
        memcpy(s + n, v, vn + 1);
        n += vn;
    }
    *out = s;
    return CRFP_OK;
}

enum { K_STRING, K_INT, K_FLOAT, K_BOOL, K_LIST, K_OTHER };

static int kind_of_class(const char *c)
{
    if (!c || !strcmp(c, "java.lang.String"))
        return K_STRING;
    if (!strcmp(c, "java.lang.Integer") || !strcmp(c, "java.lang.Long") ||
        !strcmp(c, "java.lang.Short") || !strcmp(c, "java.lang.Byte"))
        return K_INT;
    if (!strcmp(c, "java.lang.Double") || !strcmp(c, "java.lang.Float"))
        return K_FLOAT;
    if (!strcmp(c, "java.lang.Boolean"))
        return K_BOOL;
    if (!strncmp(c, "java.util.", 10) &&
        (strstr(c, "List") || strstr(c, "Set") || !strcmp(c, "java.util.Vector") ||
         strstr(c, "Collection")))
        return K_LIST;
    return K_OTHER;
}

/* A scalar from its text as class kind k; 0 when the text does not parse
 * (the caller keeps it as a string). */
static int scalar(int k, const char *s, crfp_value *v)
{
    char *end;
    switch (k) {
    case K_INT:
        errno = 0;
        v->u.i = strtoll(s, &end, 10);
        if (!*s || *end || errno)
            return 0;
        v->type = CRFP_V_INT;
        return 1;
    case K_FLOAT:
        errno = 0;
        v->u.f = strtod(s, &end);
        if (!*s || *end)
            return 0;
        v->type = CRFP_V_FLOAT;
        return 1;
    case K_BOOL:
        if (strcmp(s, "true") && strcmp(s, "false"))
            return 0;
        v->type = CRFP_V_BOOL;
        v->u.b = strcmp(s, "true") == 0;
        return 1;
    default:
        v->type = CRFP_V_STRING;
        v->u.s = s;
        return 1;
    }
}

/* A Feature element: its name and value, set with `set` (meta or an
 * annotation's features). */
typedef crfp_status (*feat_sink)(pstate *ps, void *ud, const char *name, const crfp_value *v);

static crfp_status read_feature(pstate *ps, feat_sink sink, void *ud)
{
    char *name = NULL, *value = NULL, *vclass = NULL, *iclass = NULL;
    int have_value = 0;
    crfp_status st = CRFP_OK;
    if (xmlTextReaderIsEmptyElement(ps->xr))
        return perr(ps, CRFP_EPARSE, "empty <Feature>");
    for (;;) {
        int t;
        if ((st = step(ps, &t)) != CRFP_OK)
            goto out;
        if (t == 0) {
            st = perr(ps, CRFP_EPARSE, "the input ends inside a <Feature>");
            goto out;
        }
        if (t == XML_READER_TYPE_END_ELEMENT)
            break;
        if (t != XML_READER_TYPE_ELEMENT)
            continue;
        const char *ln = local(ps);
        if (!strcmp(ln, "Name") && !name) {
            if ((st = elem_text(ps, &name)) != CRFP_OK)
                goto out;
        } else if (!strcmp(ln, "Value") && !have_value) {
            if ((st = attr(ps, "className", &vclass)) != CRFP_OK ||
                (st = attr(ps, "itemClassName", &iclass)) != CRFP_OK ||
                (st = elem_text(ps, &value)) != CRFP_OK)
                goto out;
            have_value = 1;
        } else {
            st = perr(ps, CRFP_EPARSE, "<%s> inside <Feature> (expected one Name and one Value)",
                      ln);
            goto out;
        }
    }
    if (!name) {
        st = perr(ps, CRFP_EPARSE, "<Feature> without a <Name>");
        goto out;
    }
    if (!value) {
        /* GATE writes no Value for a null feature: crfpipe has no null */
        value = strdup("");
        if (!value) {
            st = crfp_error(ps->r->host, CRFP_ENOMEM, "out of memory");
            goto out;
        }
    }
    int k = kind_of_class(vclass);
    crfp_value v;
    memset(&v, 0, sizeof v);
    if (k == K_LIST) {
        int ik = kind_of_class(iclass);
        size_t n = 0;
        for (char *p = value; *p; p++)
            n += *p == ';';
        crfp_value *items = calloc(n + 1, sizeof *items);
        char **toks = calloc(n + 1, sizeof *toks);
        if (!items || !toks) {
            free(items);
            free(toks);
            st = crfp_error(ps->r->host, CRFP_ENOMEM, "out of memory");
            goto out;
        }
        if (ik == K_LIST || ik == K_OTHER)
            ik = K_STRING;
        /* The items are typed all alike or not at all: one that does not
         * parse as itemClassName makes the whole list strings, which GATE's
         * format can hold (a list of mixed types it cannot, so gate_writer
         * would have to flatten it into one string). */
        size_t m = 0;
        int mixed = 0;
        for (char *save = NULL, *tok = strtok_r(value, ";", &save); tok;
             tok = strtok_r(NULL, ";", &save)) {
            toks[m] = tok;
            mixed |= !scalar(ik, tok, &items[m++]);
        }
        if (mixed) {
            for (size_t i = 0; i < m; i++)
                scalar(K_STRING, toks[i], &items[i]);
            if (!ps->r->warned_items) {
                crfp_log(ps->r->host, CRFP_LOG_WARN,
                         "%s:%d: feature '%s': an item is not of its itemClassName %s: the "
                         "list is kept as strings",
                         name_of(ps), line_of(ps), name, iclass);
                ps->r->warned_items = 1;
            }
        }
        v.type = CRFP_V_LIST;
        v.u.list.items = items;
        v.u.list.n = m;
        st = sink(ps, ud, name, &v);
        free(items);
        free(toks);
        goto out;
    }
    if (k == K_OTHER && !ps->r->warned_class) {
        crfp_log(ps->r->host, CRFP_LOG_WARN,
                 "%s:%d: feature '%s' has class %s, which crfpipe does not know: kept as its text",
                 name_of(ps), line_of(ps), name, vclass);
        ps->r->warned_class = 1;
    }
    if (!scalar(k, value, &v))
        scalar(K_STRING, value, &v);
    st = sink(ps, ud, name, &v);
out:
    free(name);
    free(value);
    xmlFree(vclass);
    xmlFree(iclass);
    return st;
}

/* --- document features and provenance ---------------------------------------------- */

typedef struct proc {
    char *set, *plugin, *version;
    char **names, **values;
    size_t n;
} proc;

typedef struct procs {
    proc *v;
    size_t n;
} procs;

static void proc_free(proc *p);

static void procs_free(procs *P)
{
    for (size_t i = 0; i < P->n; i++)
        proc_free(&P->v[i]);
    free(P->v);
    memset(P, 0, sizeof *P);
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* s[0..n) with %XX sequences decoded (malloc'd; NULL on ENOMEM). */
static char *pct_decode(const char *s, size_t n)
{
    char *o = malloc(n + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            o[k++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
            continue;
        }
        o[k++] = s[i];
    }
    o[k] = '\0';
    return o;
}

static void proc_free(proc *p)
{
    free(p->set);
    free(p->plugin);
    free(p->version);
    for (size_t j = 0; j < p->n; j++) {
        free(p->names[j]);
        free(p->values[j]);
    }
    free(p->names);
    free(p->values);
    memset(p, 0, sizeof *p);
}

/* Parse "set=..;plugin=..;version=..;name=value;..." (what gate_writer
 * writes) into a proc; 0 when it is not in that form, and the feature is
 * then kept as ordinary metadata. */
static int parse_proc(const char *s, proc *p)
{
    memset(p, 0, sizeof *p);
    size_t cap = 0;
    int ok = 1;
    for (const char *q = s; *q && ok;) {
        const char *semi = strchr(q, ';');
        size_t len = semi ? (size_t)(semi - q) : strlen(q);
        const char *eq = memchr(q, '=', len);
        char *k = eq ? pct_decode(q, (size_t)(eq - q)) : NULL;
        char *v = eq ? pct_decode(eq + 1, len - (size_t)(eq - q) - 1) : NULL;
        if (!k || !v) {
            ok = 0;
        } else if (!p->set && !p->plugin && !strcmp(k, "set")) {
            p->set = v, v = NULL;
        } else if (p->set && !p->plugin && !strcmp(k, "plugin")) {
            p->plugin = v, v = NULL;
        } else if (p->plugin && !p->version && !strcmp(k, "version")) {
            p->version = v, v = NULL;
        } else if (p->version) {
            if (p->n == cap) {
                cap = cap ? 2 * cap : 8;
                char **nn = realloc(p->names, cap * sizeof *nn);
                if (nn)
                    p->names = nn;
                char **nv = nn ? realloc(p->values, cap * sizeof *nv) : NULL;
                if (nv)
                    p->values = nv;
                ok = nn && nv;
            }
            if (ok) {
                p->names[p->n] = k;
                p->values[p->n++] = v;
                k = v = NULL;
            }
        } else {
            ok = 0;
        }
        free(k);
        free(v);
        q += len + (semi ? 1 : 0);
    }
    if (!ok || !p->version) {
        proc_free(p);
        return 0;
    }
    return 1;
}

typedef struct meta_ud {
    procs *P;
} meta_ud;

static crfp_status meta_sink(pstate *ps, void *ud, const char *name, const crfp_value *v)
{
    meta_ud *m = ud;
    if (!strncmp(name, "crfpipe.processor.", 18) && v->type == CRFP_V_STRING) {
        proc p;
        if (parse_proc(v->u.s, &p)) {
            proc *nv = realloc(m->P->v, (m->P->n + 1) * sizeof *nv);
            if (!nv) {
                proc_free(&p);
                return crfp_error(ps->r->host, CRFP_ENOMEM, "out of memory");
            }
            m->P->v = nv;
            m->P->v[m->P->n++] = p;
            return CRFP_OK;
        }
    }
    crfp_status st = crfp_doc_meta_set(ps->doc, name, v);
    if (st != CRFP_OK)
        return perr(ps, st, "document feature '%s': %s", name, crfp_status_str(st));
    return CRFP_OK;
}

typedef struct ann_ud {
    crfp_ann *a;
} ann_ud;

static crfp_status ann_sink(pstate *ps, void *ud, const char *name, const crfp_value *v)
{
    crfp_status st = crfp_ann_set(ps->doc, ((ann_ud *)ud)->a, name, v);
    if (st != CRFP_OK)
        return perr(ps, st, "feature '%s': %s", name, crfp_status_str(st));
    return CRFP_OK;
}

static crfp_status read_features(pstate *ps, feat_sink sink, void *ud)
{
    if (xmlTextReaderIsEmptyElement(ps->xr))
        return CRFP_OK;
    for (;;) {
        int t;
        crfp_status st = step(ps, &t);
        if (st != CRFP_OK)
            return st;
        if (t == 0)
            return perr(ps, CRFP_EPARSE, "the input ends inside a feature map");
        if (t == XML_READER_TYPE_END_ELEMENT)
            return CRFP_OK;
        if (t != XML_READER_TYPE_ELEMENT)
            continue;
        if (strcmp(local(ps), "Feature") != 0)
            return perr(ps, CRFP_EPARSE, "<%s> where a <Feature> was expected", local(ps));
        if ((st = read_feature(ps, sink, ud)) != CRFP_OK)
            return st;
    }
}

/* --- annotation sets --------------------------------------------------------------- */

static crfp_status read_set(pstate *ps)
{
    if (!ps->have_text)
        return perr(ps, CRFP_EPARSE, "<AnnotationSet> before <TextWithNodes>");
    char *name;
    crfp_status st = attr(ps, "Name", &name);
    if (st != CRFP_OK)
        return st;
    crfp_annset *set = crfp_doc_annset(ps->doc, name ? name : "", 1);
    xmlFree(name);
    if (!set)
        return crfp_error(ps->r->host, CRFP_ENOMEM, "out of memory");
    if (xmlTextReaderIsEmptyElement(ps->xr))
        return CRFP_OK;
    for (;;) {
        int t;
        if ((st = step(ps, &t)) != CRFP_OK)
            return st;
        if (t == 0)
            return perr(ps, CRFP_EPARSE, "the input ends inside an <AnnotationSet>");
        if (t == XML_READER_TYPE_END_ELEMENT)
            return CRFP_OK;
        if (t != XML_READER_TYPE_ELEMENT)
            continue;
        if (strcmp(local(ps), "Annotation") != 0)
            return perr(ps, CRFP_EPARSE, "<%s> inside <AnnotationSet> (only <Annotation> may be)",
                        local(ps));
        char *ids = NULL, *type = NULL, *sn = NULL, *en = NULL;
        if ((st = attr(ps, "Id", &ids)) == CRFP_OK && (st = attr(ps, "Type", &type)) == CRFP_OK &&
            (st = attr(ps, "StartNode", &sn)) == CRFP_OK)
            st = attr(ps, "EndNode", &en);
        long id = -1, s = 0, e = 0;
        if (st == CRFP_OK && !type)
            st = perr(ps, CRFP_EPARSE, "<Annotation> without a Type");
        if (st == CRFP_OK && (parse_long(sn, &s) || parse_long(en, &e)))
            st = perr(ps, CRFP_EPARSE, "<Annotation> without integer StartNode and EndNode");
        if (st == CRFP_OK && ids && (parse_long(ids, &id) || id < 0))
            st = perr(ps, CRFP_EPARSE, "annotation Id '%s' is not a non-negative integer", ids);
        long so = st == CRFP_OK ? node_off(ps, s) : 0, eo = st == CRFP_OK ? node_off(ps, e) : 0;
        if (st == CRFP_OK && (so < 0 || eo < 0))
            st = perr(ps, CRFP_EPARSE, "annotation %s: %s node %ld is not in TextWithNodes",
                      ids ? ids : "", so < 0 ? "start" : "end", so < 0 ? s : e);
        if (st == CRFP_OK && so > eo)
            st = perr(ps, CRFP_EPARSE, "annotation %s ends (node %ld) before it starts (node %ld)",
                      ids ? ids : "", e, s);
        crfp_ann *a = NULL;
        if (st == CRFP_OK) {
            st = ids ? crfp_annset_add_with_id(ps->r->host, ps->doc, set, (uint64_t)id, type,
                                               (size_t)so, (size_t)eo, &a)
                     : crfp_annset_add(ps->r->host, ps->doc, set, type, (size_t)so, (size_t)eo,
                                       &a);
            if (st != CRFP_OK)
                crfp_error_wrap(ps->r->host, st, "%s:%d", name_of(ps), line_of(ps));
        }
        xmlFree(ids);
        xmlFree(type);
        xmlFree(sn);
        xmlFree(en);
        if (st != CRFP_OK)
            return st;
        ann_ud ud = {a};
        if ((st = read_features(ps, ann_sink, &ud)) != CRFP_OK)
            return st;
    }
}

/* Skip the current element and its content. */
static crfp_status skip_elem(pstate *ps)
{
    if (xmlTextReaderIsEmptyElement(ps->xr))
        return CRFP_OK;
    int depth = xmlTextReaderDepth(ps->xr);
    for (;;) {
        int t;
        crfp_status st = step(ps, &t);
        if (st != CRFP_OK)
            return st;
        if (t == 0)
            return perr(ps, CRFP_EPARSE, "the input ends inside an element");
        if (t == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(ps->xr) == depth)
            return CRFP_OK;
    }
}

static crfp_status parse_doc(pstate *ps)
{
    crfp_status st;
    int t;
    /* the root */
    do {
        if ((st = step(ps, &t)) != CRFP_OK)
            return st;
    } while (t != 0 && t != XML_READER_TYPE_ELEMENT);
    if (t == 0)
        return crfp_error(ps->r->host, CRFP_EPARSE, "%s: no GATE document (empty input)",
                          name_of(ps));
    if (strcmp(local(ps), "GateDocument") != 0)
        return perr(ps, CRFP_EPARSE,
                    "the root element is <%s>, not <GateDocument>: not a GATE XML document%s",
                    local(ps),
                    !strcmp(local(ps), "corpus") ? " (a crfpipe corpus: read it with --format xml)"
                                                 : "");
    procs P = {0};
    meta_ud mu = {&P};
    int have_feats = 0;
    if (!xmlTextReaderIsEmptyElement(ps->xr)) {
        for (;;) {
            if ((st = step(ps, &t)) != CRFP_OK)
                goto out;
            if (t == 0) {
                st = perr(ps, CRFP_EPARSE, "the input ends inside <GateDocument>");
                goto out;
            }
            if (t == XML_READER_TYPE_END_ELEMENT)
                break;
            if (t != XML_READER_TYPE_ELEMENT)
                continue;
            const char *ln = local(ps);
            if (!strcmp(ln, "GateDocumentFeatures") && !have_feats && !ps->have_text) {
                have_feats = 1;
                st = read_features(ps, meta_sink, &mu);
            } else if (!strcmp(ln, "TextWithNodes") && !ps->have_text) {
                st = read_text(ps);
            } else if (!strcmp(ln, "AnnotationSet")) {
                st = read_set(ps);
            } else if (!strcmp(ln, "RelationSet")) {
                if (!ps->r->warned_rel)
                    crfp_log(ps->r->host, CRFP_LOG_WARN,
                             "%s:%d: relation sets are not read (crfpipe has no relations)",
                             name_of(ps), line_of(ps));
                ps->r->warned_rel = 1;
                st = skip_elem(ps);
            } else {
                st = perr(ps, CRFP_EPARSE, "unexpected <%s> in <GateDocument>", ln);
            }
            if (st != CRFP_OK)
                goto out;
        }
    }
    if (!ps->have_text) {
        st = perr(ps, CRFP_EPARSE, "<GateDocument> without <TextWithNodes>");
        goto out;
    }
    /* nothing but comments and white space may follow */
    for (;;) {
        if ((st = step(ps, &t)) != CRFP_OK)
            goto out;
        if (t == 0)
            break;
        if (t == XML_READER_TYPE_ELEMENT) {
            st = perr(ps, CRFP_EPARSE, "a second root element <%s>", local(ps));
            goto out;
        }
    }
    for (size_t i = 0; i < P.n && st == CRFP_OK; i++) {
        proc *p = &P.v[i];
        crfp_annset *set = crfp_doc_annset(ps->doc, p->set, 1);
        st = set ? crfp_annset_add_processor(ps->doc, set, p->plugin, p->version,
                                             (const char *const *)p->names,
                                             (const char *const *)p->values, p->n)
                 : CRFP_ENOMEM;
        if (st != CRFP_OK)
            st = crfp_error(ps->r->host, st, "out of memory");
    }
out:
    procs_free(&P);
    return st;
}

static crfp_status gr_next(void *state, crfp_doc **out)
{
    greader *r = state;
    *out = NULL;
    if (r->done)
        return CRFP_OK;
    r->done = 1;
    pstate ps;
    memset(&ps, 0, sizeof ps);
    ps.r = r;
    ps.limit = crfp_host_limit(r->host, CRFP_LIMIT_XML_NODE);
    int opts = XML_PARSE_NONET | XML_PARSE_NOCDATA;
    /* libxml2 refuses text nodes over 10,000,000 bytes unless in "huge"
     * mode; this reader applies the host's limit itself */
    if (!ps.limit || ps.limit > 10000000)
        opts |= XML_PARSE_HUGE;
    xmlResetLastError();
    ps.xr = xmlReaderForIO(read_cb, NULL, r, r->in->name, NULL, opts);
    if (ps.xr)
        xmlTextReaderSetStructuredErrorHandler(ps.xr, on_xml_error, &ps);
    ps.doc = crfp_doc_new(r->id);
    crfp_status st = CRFP_OK;
    if (!ps.xr || !ps.doc)
        st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    if (st == CRFP_OK)
        st = parse_doc(&ps);
    if (ps.xr)
        xmlFreeTextReader(ps.xr);
    free(ps.text);
    free(ps.nodes);
    if (st != CRFP_OK) {
        crfp_doc_free(ps.doc);
        return st;
    }
    *out = ps.doc;
    return CRFP_OK;
}

static void gr_close(void *state)
{
    greader *r = state;
    if (!r)
        return;
    free(r->id);
    free(r);
}

/* Confidence that the input is GATE XML: 100 when its first element is
 * GateDocument (crfpipe's own XML reader says 60 for any XML). */
static int gr_probe(const char *buf, size_t len)
{
    size_t at, n;
    return xmlhead_root(buf, len, &at, &n) > 0 && n == 12 && memcmp(buf + at, "GateDocument", 12) == 0
               ? 100
               : 0;
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = gr_open,
    .next = gr_next,
    .close = gr_close,
    .probe = gr_probe,
};

static const char *const formats[] = {"gate", NULL};
static const char *const extensions[] = {".gate.xml", NULL};

CRFP_PLUGIN_DEFINE(gate_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "gate_reader",
    .kind = CRFP_KIND_READER,
    .version = "1.0",
    .description = "GATE XML documents (GateDocument), with their annotation sets and features",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
