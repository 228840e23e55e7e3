/* markup_reader — any XML or HTML document in: its text, and its elements
 * as annotations.
 *
 * This is how GATE opens an XML or HTML file: the document's text is the
 * character data of the file (text nodes and CDATA sections, in order;
 * comments, processing instructions and tags are not text), and every
 * element becomes an annotation of the set "Original markups" whose type is
 * the element's name (with its prefix, as written), whose span is the text
 * the element encloses (an empty element is an empty span) and whose
 * features are its attributes (strings; namespace declarations are kept as
 * xmlns and xmlns:PREFIX features).  Comments and processing instructions
 * become empty annotations #comment and #pi where they stand (comments).  Annotation ids follow the order of
 * the start tags.  markup_writer writes such a document back with its
 * elements inline, so inline-annotated corpora (ENAMEX, TEI, a user's own
 * <PER>...</PER>) can be trained on and written again.
 *
 * XML is parsed by libxml2's push parser with SAX callbacks, so the parser
 * holds a window of the input, not a tree.  Nothing is fetched from the
 * network, no DTD is loaded and no entity is expanded: a DOCTYPE that
 * declares entities is refused (that is how the billion-laughs file is
 * built), and so is a reference to an entity XML does not predefine.  HTML
 * (mode=html, or by the .html/.htm extension or the content in mode=auto)
 * goes through libxml2's forgiving HTML parser, which knows HTML's named
 * entities and closes what the page leaves open; its text is the same
 * character data, except that script and style contents are left out
 * (skip) and a blank line is put where a block element (p, div, li, h1,
 * ...) starts or ends and a line break at a br, unless the text has them
 * already (breaks), so that sentences do not run across paragraphs.  HTML input must be
 * UTF-8: a charset the page declares is ignored, and bytes that are not
 * UTF-8 are an error naming the line.
 *
 * One input is one document, its id the file name; or, with document=NAME,
 * every NAME element is a document of its own, made as soon as it ends, so
 * that a corpus of any size in one file streams through in the memory of
 * one document: text and elements outside the NAME elements are dropped,
 * a document's id is its id attribute (id-attribute) or FILE:N, and its
 * other attributes are its metadata.  markup_writer's corpus output reads
 * back this way.  Limits: the input's size, or in document mode each
 * document's text (max-bytes), and the elements of a document
 * (max-elements), each an error that says how to raise it; libxml2's own
 * limits (depth 256, 10 MB text nodes) stay on.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/entities.h>
#include <libxml/parser.h>

#include "crfpipe/crfpipe.h"
#include "../common/names.h"
#include "../common/xmlhead.h"

#define HTML_BREAKS                                                                               \
    "address,article,aside,blockquote,br,caption,dd,div,dl,dt,figcaption,figure,footer,form,h1," \
    "h2,h3,h4,h5,h6,header,hr,li,main,nav,ol,p,pre,section,table,td,th,title,tr,ul"
#define HTML_SKIP "script,style"

static const crfp_param_spec params[] = {
    {"mode", CRFP_PARAM_STRING, "auto",
     "xml, html, or auto: html for a .html/.htm file or one that starts <!DOCTYPE html> or "
     "<html>, else xml"},
    {"set", CRFP_PARAM_STRING, "Original markups", "annotation set of the elements"},
    {"breaks", CRFP_PARAM_STRING, NULL,
     "comma-separated elements where a blank line (a line break for br) is put into the text "
     "when they start or end (default: HTML's block elements in html mode, none in xml mode; "
     "\"\" for none)"},
    {"skip", CRFP_PARAM_STRING, NULL,
     "comma-separated elements whose content is not text and which make no annotation "
     "(default: script,style in html mode, none in xml mode)"},
    {"comments", CRFP_PARAM_BOOL, "true",
     "keep comments and processing instructions as empty annotations #comment (text) and #pi "
     "(target, data), which markup_writer writes back"},
    {"offsets", CRFP_PARAM_STRING, "utf16", "offset unit of the documents: utf16, codepoint, byte"},
    {"document", CRFP_PARAM_STRING, "",
     "element each of which is one document, read one at a time (a corpus of any size in one "
     "file); empty: the whole input is one document"},
    {"id-attribute", CRFP_PARAM_STRING, "id",
     "with document: the attribute giving a document's id (else FILE:N)"},
    {"id", CRFP_PARAM_STRING, NULL, "document id (default: the input's file name)"},
    {"max-bytes", CRFP_PARAM_INT, "268435456",
     "largest input in bytes, or with document the largest document's text; 0 = unlimited"},
    {"max-elements", CRFP_PARAM_INT, "4000000",
     "most elements in one document; 0 = unlimited"},
};

enum { MODE_AUTO, MODE_XML, MODE_HTML };

/* Stack entries that are not elements to annotate. */
#define SKIPPED SIZE_MAX          /* skip: neither text nor annotation */
#define OUTSIDE (SIZE_MAX - 1)    /* document mode, outside every document */
#define DOCELEM (SIZE_MAX - 2)    /* document mode, the document's own element */

/* An element read: the annotation it becomes once the text is complete. */
typedef struct pelem {
    size_t name;          /* arena offset of its name */
    size_t start, end;    /* byte offsets into the text */
    size_t attr0, nattr;  /* its attributes: attrs[attr0 .. attr0 + nattr) */
} pelem;

typedef struct attr {
    size_t name, value;   /* arena offsets */
} attr;

typedef struct mreader {
    crfp_host *host;
    crfp_stream *in;
    char *id, *set;
    int mode;
    crfp_offset_unit unit;
    char **breaks, **skip;   /* NULL-terminated lists */
    char *docelem;           /* document mode: its element; NULL: one document */
    char *idattr;
    int markers;             /* comments and processing instructions kept */
    long long max_bytes, max_elements;
    struct pstate *ps;       /* the parse, across calls of next */
    char *buf;               /* one read */
    size_t got;
    unsigned long long total;
    int started, finished, built, failed;
    size_t ndocs;            /* documents made */
    crfp_doc **queue;        /* made and not yet returned */
    size_t qhead, qn, qcap;
} mreader;

/* Parsing state: the input's, and the buffers of the document being read. */
typedef struct pstate {
    mreader *r;
    xmlParserCtxtPtr ctxt;
    int html;
    char *text;
    size_t tlen, tcap;
    char *arena;
    size_t alen, acap;
    pelem *elems;
    size_t nelems, celems;
    attr *attrs;
    size_t nattrs, cattrs;
    size_t *stack;           /* open elements: index into elems, or SKIPPED, OUTSIDE, DOCELEM */
    size_t depth, cdepth;
    size_t skipping;         /* depth of open skipped elements */
    int in_doc;              /* inside a document (always, without document mode) */
    int any_elem;            /* an element (not a comment) was read */
    size_t docattrs;         /* document mode: the document element's attributes,
                              * attrs[0 .. docattrs) */
    size_t pending;          /* line breaks owed where a block element ended */
    size_t doctype[3];       /* arena offsets of the DOCTYPE's name, public and
                              * system ids (SIZE_MAX: none) */
    size_t tail;             /* HTML: where the text after the last top-level
                              * element starts (SIZE_MAX inside one) */
    crfp_status st;          /* first failure of a callback */
    char errmsg[512];
    int errline;
    /* UTF-8 check of HTML input across reads: continuation bytes still
     * expected, and the range of the next one */
    int u8need;
    unsigned char u8lo, u8hi;
    long line;
} pstate;

static void mr_close(void *state);

static crfp_status mr_open(crfp_host *host, const crfp_params *p, crfp_stream *in, void **state)
{
    *state = NULL;
    mreader *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    r->host = host;
    r->in = in;
    const char *mode = crfp_params_str(p, "mode");
    r->mode = strcmp(mode, "xml") == 0 ? MODE_XML : strcmp(mode, "html") == 0 ? MODE_HTML
            : strcmp(mode, "auto") == 0 ? MODE_AUTO : -1;
    if (r->mode < 0) {
        mr_close(r);
        return crfp_error(host, CRFP_EINVAL, "parameter 'mode': '%s' is not xml, html or auto",
                          mode);
    }
    int unit = crfp_offset_unit_parse(crfp_params_str(p, "offsets"));
    if (unit < 0) {
        crfp_status st = crfp_error(host, CRFP_EINVAL,
                                    "parameter 'offsets': '%s' is not utf16, codepoint or byte",
                                    crfp_params_str(p, "offsets"));
        mr_close(r);
        return st;
    }
    r->unit = (crfp_offset_unit)unit;
    r->markers = crfp_params_bool(p, "comments");
    r->max_bytes = crfp_params_int(p, "max-bytes");
    r->max_elements = crfp_params_int(p, "max-elements");
    if (r->max_bytes < 0 || r->max_elements < 0) {
        mr_close(r);
        return crfp_error(host, CRFP_EINVAL, "parameters 'max-bytes' and 'max-elements' must "
                          "be 0 (unlimited) or positive");
    }
    const char *id = crfp_params_str(p, "id");
    const char *set = crfp_params_str(p, "set");
    const char *docelem = crfp_params_str(p, "document");
    if (!(r->set = strdup(set)) || !(r->idattr = strdup(crfp_params_str(p, "id-attribute"))))
        goto nomem;
    if (*docelem && !(r->docelem = strdup(docelem)))
        goto nomem;
    r->id = id ? strdup(id) : names_docid(in->name);
    if (!r->id)
        goto nomem;
    /* breaks and skip: NULL means the mode's default, decided when the
     * mode is known; "" gives an empty list */
    const char *breaks = crfp_params_str(p, "breaks"), *skip = crfp_params_str(p, "skip");
    if (breaks && !(r->breaks = names_split(breaks, 0)))
        goto nomem;
    if (skip && !(r->skip = names_split(skip, 0)))
        goto nomem;
    *state = r;
    return CRFP_OK;
nomem:
    mr_close(r);
    return crfp_error(host, CRFP_ENOMEM, "out of memory");
}

/* --- growable arrays ------------------------------------------------------------ */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2 / size)
            return 0;
        c *= 2;
    }
    void *q = realloc(*p, c * size);
    if (!q)
        return 0;
    *p = q;
    *cap = c;
    return 1;
}

static const char *name_of(const pstate *ps)
{
    return ps->r->in->name ? ps->r->in->name : "input";
}

static long cur_line(const pstate *ps)
{
    if (ps->html)
        return ps->line;
    return ps->ctxt && ps->ctxt->input ? ps->ctxt->input->line : 0;
}

/* A callback's failure: recorded once, and the parser stopped. */
static void fail(pstate *ps, crfp_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(pstate *ps, crfp_status st, const char *fmt, ...)
{
    if (ps->st != CRFP_OK)
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (st == CRFP_ENOMEM)
        ps->st = crfp_error(ps->r->host, st, "%s: out of memory", name_of(ps));
    else
        ps->st = crfp_error(ps->r->host, st, "%s:%ld: %s", name_of(ps), cur_line(ps), msg);
    if (ps->ctxt)
        xmlStopParser(ps->ctxt);
}

static size_t intern(pstate *ps, const char *s, size_t n)
{
    if (!grow((void **)&ps->arena, &ps->acap, ps->alen + n + 1, 1)) {
        fail(ps, CRFP_ENOMEM, "out of memory");
        return 0;
    }
    size_t at = ps->alen;
    memcpy(ps->arena + at, s, n);
    ps->arena[at + n] = '\0';
    ps->alen += n + 1;
    return at;
}

static void add_text(pstate *ps, const char *s, size_t n)
{
    if (ps->st != CRFP_OK || ps->skipping || !ps->in_doc)
        return;
    if (ps->r->docelem && ps->r->max_bytes &&
        ps->tlen + n > (unsigned long long)ps->r->max_bytes) {
        fail(ps, CRFP_EPARSE,
             "document %zu is over %lld bytes of text (raise the limit with the reader "
             "parameter max-bytes=N; 0 = unlimited)",
             ps->r->ndocs + 1, ps->r->max_bytes);
        return;
    }
    if (!grow((void **)&ps->text, &ps->tcap, ps->tlen + n + 1, 1)) {
        fail(ps, CRFP_ENOMEM, "out of memory");
        return;
    }
    memcpy(ps->text + ps->tlen, s, n);
    ps->tlen += n;
}

/* Breaks: a block element starts or ends, and the text gets a blank line
 * there (a line break for br) unless it has one already.  A tokenizer ends
 * a sentence at a line break, and with icu_tokenizer's wrapped=true (for
 * pages whose source wraps lines inside paragraphs) still at a blank line.
 * At an end the break waits (ps->pending) for what follows: the white
 * space of the source counts toward it and the missing line breaks come
 * after that, so that a page read, written and read again gets no more. */
static size_t trailing_newlines(const pstate *ps)
{
    size_t nl = 0;
    /* only the last white space matters; 256 bytes bound the look back */
    for (size_t i = ps->tlen, k = 0; i > 0 && k < 256 && nl < 2; i--, k++) {
        char c = ps->text[i - 1];
        if (c == '\n')
            nl++;
        else if (c != ' ' && c != '\t' && c != '\r')
            break;
    }
    return nl;
}

static void settle_break(pstate *ps, size_t want)
{
    if (want < ps->pending)
        want = ps->pending;
    ps->pending = 0;
    if (!want || !ps->tlen)
        return;
    for (size_t have = trailing_newlines(ps); have < want; have++)
        add_text(ps, "\n", 1);
}

static size_t break_of(const pstate *ps, const char *name)
{
    if (ps->skipping || !names_has(ps->r->breaks, name, ps->html))
        return 0;
    return strcasecmp(name, "br") == 0 ? 1 : 2;
}

/* --- SAX callbacks ------------------------------------------------------------------ */

static int all_space(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            return 0;
    return 1;
}

/* HTML's parser reports the white space around the root element as text,
 * XML's does not: in HTML, white space before the first element is
 * dropped here and after the last one at the end (build), so that a page
 * reads as its root element's text, as an XML file does. */
static void on_chars(void *ud, const xmlChar *ch, int len)
{
    pstate *ps = ud;
    const char *s = (const char *)ch;
    size_t n = (size_t)len;
    if (ps->skipping || !ps->in_doc ||
        (ps->html && !ps->any_elem && !ps->depth && all_space(s, n)))
        return;
    if (ps->pending) {
        /* the source's white space first, then what the break still owes */
        size_t ws = 0;
        while (ws < n && (s[ws] == ' ' || s[ws] == '\t' || s[ws] == '\n' || s[ws] == '\r'))
            ws++;
        add_text(ps, s, ws);
        if (ws == n)
            return;
        settle_break(ps, 0);
        s += ws, n -= ws;
    }
    add_text(ps, s, n);
}

/* An element starts; attributes are (name, value) pairs.  Returns the new
 * element's index, or SIZE_MAX when it is skipped or on failure. */
static void push(pstate *ps, size_t idx)
{
    if (!grow((void **)&ps->stack, &ps->cdepth, ps->depth + 1, sizeof *ps->stack)) {
        fail(ps, CRFP_ENOMEM, "out of memory");
        return;
    }
    ps->stack[ps->depth++] = idx;
}

/* The name prefix:local (or local) into the arena. */
static size_t intern_q(pstate *ps, const char *prefix, const char *local)
{
    size_t pl = prefix ? strlen(prefix) : 0, ll = strlen(local);
    if (!grow((void **)&ps->arena, &ps->acap, ps->alen + pl + ll + 2, 1)) {
        fail(ps, CRFP_ENOMEM, "out of memory");
        return 0;
    }
    size_t at = ps->alen;
    char *d = ps->arena + at;
    if (prefix) {
        memcpy(d, prefix, pl);
        d[pl++] = ':';
    }
    memcpy(d + pl, local, ll + 1);
    ps->alen += pl + ll + 1;
    return at;
}

/* An element starts.  Returns its index in elems, or SIZE_MAX when it is
 * skipped or on failure. */
static size_t start_elem(pstate *ps, const char *prefix, const char *local)
{
    if (ps->st != CRFP_OK)
        return SIZE_MAX;
    if (ps->skipping) {
        ps->skipping++;
        push(ps, SIZE_MAX);
        return SIZE_MAX;
    }
    size_t at = intern_q(ps, prefix, local);
    if (ps->st != CRFP_OK)
        return SIZE_MAX;
    if (!ps->in_doc) {
        /* document mode, between documents: only a document element counts */
        int doc = strcmp(ps->arena + at, ps->r->docelem) == 0;
        ps->alen = at;
        push(ps, doc ? DOCELEM : OUTSIDE);
        if (doc)
            ps->in_doc = 1;
        return doc ? DOCELEM : SIZE_MAX;
    }
    if (names_has(ps->r->skip, ps->arena + at, ps->html)) {
        ps->alen = at;
        ps->skipping++;
        push(ps, SIZE_MAX);
        return SIZE_MAX;
    }
    settle_break(ps, break_of(ps, ps->arena + at));
    if (ps->r->max_elements && ps->nelems >= (size_t)ps->r->max_elements) {
        fail(ps, CRFP_EPARSE,
             "more than %lld elements (raise the limit with the reader parameter "
             "max-elements=N; 0 = unlimited)",
             ps->r->max_elements);
        return SIZE_MAX;
    }
    if (!grow((void **)&ps->elems, &ps->celems, ps->nelems + 1, sizeof *ps->elems)) {
        fail(ps, CRFP_ENOMEM, "out of memory");
        return SIZE_MAX;
    }
    ps->tail = SIZE_MAX;
    ps->any_elem = 1;
    ps->elems[ps->nelems] = (pelem){at, ps->tlen, ps->tlen, ps->nattrs, 0};
    push(ps, ps->nelems);
    return ps->st == CRFP_OK ? ps->nelems++ : SIZE_MAX;
}

static void add_attr(pstate *ps, size_t el, const char *prefix, const char *local,
                     const char *value, size_t vlen)
{
    if (el == SIZE_MAX || ps->st != CRFP_OK)
        return;
    if (!grow((void **)&ps->attrs, &ps->cattrs, ps->nattrs + 1, sizeof *ps->attrs)) {
        fail(ps, CRFP_ENOMEM, "out of memory");
        return;
    }
    size_t n = intern_q(ps, prefix, local);
    size_t v = intern(ps, value, vlen);
    if (ps->st != CRFP_OK)
        return;
    ps->attrs[ps->nattrs++] = (attr){n, v};
    if (el == DOCELEM)
        ps->docattrs++;
    else
        ps->elems[el].nattr++;
}

static void doc_done(pstate *ps);

static void end_elem(pstate *ps)
{
    if (ps->st != CRFP_OK || ps->depth == 0)
        return;
    size_t idx = ps->stack[--ps->depth];
    if (idx == SKIPPED) {
        ps->skipping--;
        return;
    }
    if (idx == OUTSIDE)
        return;
    /* a break owed inside this element is paid before it ends */
    settle_break(ps, 0);
    if (idx == DOCELEM) {
        doc_done(ps);
        return;
    }
    ps->elems[idx].end = ps->tlen;
    if (ps->depth == 0)
        ps->tail = ps->tlen;
    size_t want = break_of(ps, ps->arena + ps->elems[idx].name);
    if (want > ps->pending && ps->tlen)
        ps->pending = want;
}

/* A comment or a processing instruction inside a document: an empty
 * annotation of type #comment (feature text) or #pi (target, data) where
 * it stands, which markup_writer writes back as one.  Not text. */
static void add_marker(pstate *ps, const char *type, const char *n1, const char *v1,
                       const char *n2, const char *v2)
{
    if (ps->st != CRFP_OK || ps->skipping || !ps->in_doc || !ps->r->markers)
        return;
    if (ps->r->max_elements && ps->nelems >= (size_t)ps->r->max_elements) {
        fail(ps, CRFP_EPARSE,
             "more than %lld elements (raise the limit with the reader parameter "
             "max-elements=N; 0 = unlimited)",
             ps->r->max_elements);
        return;
    }
    if (!grow((void **)&ps->elems, &ps->celems, ps->nelems + 1, sizeof *ps->elems)) {
        fail(ps, CRFP_ENOMEM, "out of memory");
        return;
    }
    size_t at = intern(ps, type, strlen(type));
    if (ps->st != CRFP_OK)
        return;
    size_t el = ps->nelems++;
    ps->elems[el] = (pelem){at, ps->tlen, ps->tlen, ps->nattrs, 0};
    add_attr(ps, el, NULL, n1, v1, strlen(v1));
    if (n2)
        add_attr(ps, el, NULL, n2, v2, strlen(v2));
}

/* The DOCTYPE's name and identifiers (not its internal subset), kept as
 * the metadata doctype, doctype-public and doctype-system of a file read
 * as one document, for markup_writer to write back. */
static void on_doctype(void *ud, const xmlChar *name, const xmlChar *pub, const xmlChar *sys)
{
    pstate *ps = ud;
    if (ps->st != CRFP_OK || ps->r->docelem || ps->doctype[0] != SIZE_MAX || !name)
        return;
    ps->doctype[0] = intern(ps, (const char *)name, strlen((const char *)name));
    if (pub)
        ps->doctype[1] = intern(ps, (const char *)pub, strlen((const char *)pub));
    if (sys)
        ps->doctype[2] = intern(ps, (const char *)sys, strlen((const char *)sys));
}

static void on_comment(void *ud, const xmlChar *value)
{
    add_marker(ud, "#comment", "text", value ? (const char *)value : "", NULL, NULL);
}

static void on_pi(void *ud, const xmlChar *target, const xmlChar *data)
{
    /* HTML's parser reports an XML declaration (of an XHTML page, or of
     * markup_writer's output) as an instruction named xml: it is none */
    if (target && strcasecmp((const char *)target, "xml") == 0)
        return;
    add_marker(ud, "#pi", "target", (const char *)target, "data", data ? (const char *)data : "");
}

/* XML (SAX2, names with their prefixes as the file writes them).
 * Attributes the DTD defaults (the last ndefaulted) are not the file's. */
static void on_start_ns(void *ud, const xmlChar *local, const xmlChar *prefix,
                        const xmlChar *uri, int nns, const xmlChar **ns, int nattrs,
                        int ndefaulted, const xmlChar **attrs)
{
    (void)uri;
    pstate *ps = ud;
    size_t el = start_elem(ps, (const char *)prefix, (const char *)local);
    for (int i = 0; i < nns; i++) {
        const char *p = (const char *)ns[2 * i], *u = (const char *)ns[2 * i + 1];
        add_attr(ps, el, p ? "xmlns" : NULL, p ? p : "xmlns", u ? u : "", u ? strlen(u) : 0);
    }
    for (int i = 0; i < nattrs - ndefaulted; i++) {
        const xmlChar **a = attrs + 5 * i;   /* localname, prefix, URI, value, end */
        add_attr(ps, el, (const char *)a[1], (const char *)a[0], (const char *)a[3],
                 (size_t)(a[4] - a[3]));
    }
}

static void on_end_ns(void *ud, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri)
{
    (void)local;
    (void)prefix;
    (void)uri;
    end_elem(ud);
}

/* HTML (SAX1: names lower-cased by the parser, attributes in pairs). */
static void on_start(void *ud, const xmlChar *name, const xmlChar **atts)
{
    pstate *ps = ud;
    size_t el = start_elem(ps, NULL, (const char *)name);
    for (size_t i = 0; atts && atts[i]; i += 2) {
        const char *v = atts[i + 1] ? (const char *)atts[i + 1] : "";
        add_attr(ps, el, NULL, (const char *)atts[i], v, strlen(v));
    }
}

static void on_end(void *ud, const xmlChar *name)
{
    (void)name;
    end_elem(ud);
}

/* No entity is ever expanded (see the top of the file). */
static void on_entity_decl(void *ud, const xmlChar *name, int type, const xmlChar *pub,
                           const xmlChar *sys, xmlChar *content)
{
    (void)type;
    (void)pub;
    (void)sys;
    (void)content;
    fail(ud, CRFP_EPARSE,
         "the DOCTYPE declares the entity '%s': crfpipe expands no entity (a document that "
         "declares entities could grow without bound); replace the references by their text",
         (const char *)name);
}

static void on_reference(void *ud, const xmlChar *name)
{
    fail(ud, CRFP_EPARSE,
         "reference to the entity '&%s;', which XML does not predefine and crfpipe does not "
         "load (no DTD is read); write the character itself or a character reference",
         (const char *)name);
}

static xmlEntityPtr on_get_entity(void *ud, const xmlChar *name)
{
    (void)ud;
    return xmlGetPredefinedEntity(name);
}

static void on_error(void *ud, xmlErrorPtr e)
{
    pstate *ps = ud;
    if (!e)
        return;
    if (e->code == XML_ERR_NO_MEMORY) {
        fail(ps, CRFP_ENOMEM, "out of memory");
        return;
    }
    /* HTML's parser recovers from what it reports; XML's namespace errors
     * (an undeclared prefix) leave the document well-formed: the element
     * keeps its name as written. */
    if (ps->html || e->level < XML_ERR_ERROR ||
        (e->domain == XML_FROM_NAMESPACE && e->level != XML_ERR_FATAL))
        return;
    if (ps->errmsg[0])
        return;
    snprintf(ps->errmsg, sizeof ps->errmsg, "%s", e->message ? e->message : "parse error");
    size_t n = strlen(ps->errmsg);
    while (n && (ps->errmsg[n - 1] == '\n' || ps->errmsg[n - 1] == ' '))
        ps->errmsg[--n] = '\0';
    for (char *c = ps->errmsg; *c; c++)   /* one line: libxml2 adds the bytes it saw */
        if (*c == '\n')
            *c = ' ';
    ps->errline = e->line;
}

/* --- the input ------------------------------------------------------------------ */

/* Whether the first bytes look like HTML: <!DOCTYPE html or an <html> root. */
static int looks_html(const char *buf, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len) {
        const char *lt = memchr(buf + i, '<', len - i);
        if (!lt)
            return 0;
        i = (size_t)(lt - buf) + 1;
        if (len - i >= 12 && strncasecmp(buf + i, "!DOCTYPE", 8) == 0) {
            size_t j = i + 8;
            while (j < len && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\r' || buf[j] == '\n'))
                j++;
            return len - j >= 4 && strncasecmp(buf + j, "html", 4) == 0 &&
                   (len - j == 4 || !((buf[j + 4] | 0x20) >= 'a' && (buf[j + 4] | 0x20) <= 'z'));
        }
        if (i < len && (buf[i] == '?' || buf[i] == '!'))
            continue;
        return len - i >= 5 && strncasecmp(buf + i, "html", 4) == 0 &&
               (buf[i + 4] == '>' || buf[i + 4] == ' ' || buf[i + 4] == '\t' ||
                buf[i + 4] == '\n' || buf[i + 4] == '\r');
    }
    return 0;
}

static int html_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    return (n > 5 && strcasecmp(name + n - 5, ".html") == 0) ||
           (n > 4 && strcasecmp(name + n - 4, ".htm") == 0);
}

/* HTML's parser would take bytes that are not UTF-8 for Latin-1 without a
 * word: check them first, as a state machine that carries a character cut
 * between two reads. */
static int check_utf8(pstate *ps, const char *buf, size_t n)
{
    const unsigned char *u = (const unsigned char *)buf;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        if (ps->u8need) {
            if (c < ps->u8lo || c > ps->u8hi)
                goto bad;
            ps->u8need--;
            ps->u8lo = 0x80, ps->u8hi = 0xBF;
            continue;
        }
        if (c == '\n')
            ps->line++;
        if (c == 0) {
            fail(ps, CRFP_EUTF8, "a NUL byte in the text");
            return 0;
        }
        if (c < 0x80)
            continue;
        ps->u8lo = 0x80, ps->u8hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            ps->u8need = 1;
        else if (c >= 0xE0 && c <= 0xEF)
            ps->u8need = 2, ps->u8lo = c == 0xE0 ? 0xA0 : 0x80, ps->u8hi = c == 0xED ? 0x9F : 0xBF;
        else if (c >= 0xF0 && c <= 0xF4)
            ps->u8need = 3, ps->u8lo = c == 0xF0 ? 0x90 : 0x80, ps->u8hi = c == 0xF4 ? 0x8F : 0xBF;
        else
            goto bad;
        continue;
    bad:
        fail(ps, CRFP_EUTF8, "byte 0x%02X is not UTF-8 here (HTML input must be UTF-8)", c);
        return 0;
    }
    return 1;
}

/* The parser for the input, from its first bytes (r->buf, r->got). */
static crfp_status start(mreader *r)
{
    enum { CHUNK = 65536 };
    pstate *ps = r->ps = calloc(1, sizeof *ps);
    if (!ps || !(r->buf = malloc(CHUNK)))
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    ps->r = r;
    r->got = fread(r->buf, 1, CHUNK, r->in->fp);
    int html = r->mode == MODE_HTML ||
               (r->mode == MODE_AUTO && (html_name(r->in->name) || looks_html(r->buf, r->got)));
    if (!r->breaks && !(r->breaks = names_split(html ? HTML_BREAKS : "", 0)))
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    if (!r->skip && !(r->skip = names_split(html ? HTML_SKIP : "", 0)))
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    ps->html = html;
    ps->line = 1;
    ps->tail = SIZE_MAX;
    ps->in_doc = !r->docelem;
    ps->doctype[0] = ps->doctype[1] = ps->doctype[2] = SIZE_MAX;

    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.characters = on_chars;
    sax.ignorableWhitespace = on_chars;
    sax.cdataBlock = on_chars;
    sax.comment = on_comment;
    sax.internalSubset = on_doctype;
    sax.processingInstruction = on_pi;
    sax.serror = on_error;
    if (html) {
        sax.startElement = on_start;
        sax.endElement = on_end;
        ps->ctxt = htmlCreatePushParserCtxt(&sax, ps, NULL, 0, r->in->name, XML_CHAR_ENCODING_UTF8);
        if (ps->ctxt)
            htmlCtxtUseOptions(ps->ctxt, HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC |
                                             HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
    } else {
        sax.startElementNs = on_start_ns;
        sax.endElementNs = on_end_ns;
        sax.entityDecl = on_entity_decl;
        sax.reference = on_reference;
        sax.getEntity = on_get_entity;
        ps->ctxt = xmlCreatePushParserCtxt(&sax, ps, NULL, 0, r->in->name);
        if (ps->ctxt)
            /* NOENT: predefined entities in attribute values as their
             * characters (libxml2 otherwise leaves &#38; for &amp; there);
             * no other entity can exist, their declarations being refused */
            xmlCtxtUseOptions(ps->ctxt, XML_PARSE_NONET | XML_PARSE_NOENT);
    }
    if (!ps->ctxt)
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    return CRFP_OK;
}

/* Parse the bytes read and read the next ones; r->finished at the end. */
static crfp_status feed(mreader *r)
{
    enum { CHUNK = 65536 };
    pstate *ps = r->ps;
    r->total += r->got;
    /* one document: the input is bounded; a stream of documents is not */
    if (!r->docelem && r->max_bytes && r->total > (unsigned long long)r->max_bytes)
        fail(ps, CRFP_EPARSE,
             "the input is over %lld bytes (raise the limit with the reader parameter "
             "max-bytes=N; 0 = unlimited; or read it as a stream of documents: "
             "document=ELEMENT)",
             r->max_bytes);
    if (ps->st == CRFP_OK && ps->html)
        check_utf8(ps, r->buf, r->got);
    int last = r->got < CHUNK;
    if (ps->st == CRFP_OK && last && ferror(r->in->fp))
        fail(ps, CRFP_EIO, "read error: %s", strerror(errno));
    if (ps->st == CRFP_OK && ps->html && last && ps->u8need)
        fail(ps, CRFP_EUTF8, "the input ends inside a UTF-8 character");
    if (ps->st != CRFP_OK)
        return ps->st;
    if (!ps->html && r->total == 0)   /* libxml2 would say "Extra content" */
        return crfp_error(r->host, CRFP_EPARSE,
                          "%s: the input is empty (an XML document has one root element)",
                          name_of(ps));
    /* an encoding failure reaches only libxml2's generic handler */
    crfp_xml_quiet q = {0};
    crfp_xml_quiet_begin(&q);
    if (ps->html)
        htmlParseChunk(ps->ctxt, r->buf, (int)r->got, last);
    else
        xmlParseChunk(ps->ctxt, r->buf, (int)r->got, last);
    crfp_xml_quiet_end(&q);
    if (ps->st != CRFP_OK)
        return ps->st;
    const char *gen = crfp_xml_quiet_msg(&q);
    if (!ps->html && (ps->errmsg[0] || !ps->ctxt->wellFormed || *gen))
        return crfp_error(r->host, CRFP_EPARSE, "%s:%d: %s%s", name_of(ps),
                          ps->errline > 0 ? ps->errline : (int)cur_line(ps),
                          *gen ? "the bytes are not in the encoding the file declares: " : "",
                          *gen ? gen : ps->errmsg[0] ? ps->errmsg : "not well-formed XML");
    if (last)
        r->finished = 1;
    else
        r->got = fread(r->buf, 1, CHUNK, r->in->fp);
    return CRFP_OK;
}

/* The document from the buffers: the text, then one annotation per
 * element, in start-tag order; in document mode, the document element's
 * attributes (but its id) as metadata. */
static crfp_status build(mreader *r, pstate *ps, const char *id, crfp_doc **out)
{
    crfp_doc *doc = crfp_doc_new(id);
    if (!doc)
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    crfp_status st = crfp_doc_set_offset_unit(doc, r->unit);
    if (st == CRFP_OK)
        st = crfp_doc_set_text(r->host, doc, ps->text ? ps->text : "", ps->tlen);
    if (st != CRFP_OK) {
        crfp_doc_free(doc);
        return crfp_error_wrap(r->host, st, "%s: document '%s'", name_of(ps), id);
    }
    for (size_t k = 0; st == CRFP_OK && k < ps->docattrs; k++) {
        const attr *at = &ps->attrs[k];
        if (strcmp(ps->arena + at->name, r->idattr) != 0)
            st = crfp_doc_meta_set_str(doc, ps->arena + at->name, ps->arena + at->value);
        if (st != CRFP_OK && st != CRFP_ENOMEM)
            st = crfp_error(r->host, st, "%s: document '%s': attribute '%s' of its element: %s",
                            name_of(ps), id, ps->arena + at->name, crfp_status_str(st));
    }
    /* a DOCTYPE that HTML's parser salvaged into bytes that are not UTF-8
     * is dropped, not worth refusing the page for */
    static const char *const dt[3] = {"doctype", "doctype-public", "doctype-system"};
    for (size_t k = 0; st == CRFP_OK && k < 3; k++)
        if (ps->doctype[k] != SIZE_MAX &&
            (st = crfp_doc_meta_set_str(doc, dt[k], ps->arena + ps->doctype[k])) == CRFP_EUTF8)
            st = CRFP_OK;
    crfp_annset *set = ps->nelems ? crfp_doc_annset(doc, r->set, 1) : NULL;
    if (ps->nelems && !set)
        st = CRFP_ENOMEM;
    for (size_t i = 0; st == CRFP_OK && i < ps->nelems; i++) {
        const pelem *e = &ps->elems[i];
        size_t s, t;
        crfp_ann *a;
        st = crfp_doc_from_byte(doc, e->start, &s);
        if (st == CRFP_OK)
            st = crfp_doc_from_byte(doc, e->end, &t);
        if (st == CRFP_OK)
            st = crfp_annset_add(r->host, doc, set, ps->arena + e->name, s, t, &a);
        for (size_t k = 0; st == CRFP_OK && k < e->nattr; k++) {
            const attr *at = &ps->attrs[e->attr0 + k];
            st = crfp_ann_set_str(doc, a, ps->arena + at->name, ps->arena + at->value);
        }
        if (st != CRFP_OK && st != CRFP_ENOMEM)
            st = crfp_error_wrap(r->host, st, "%s: document '%s': element <%s>", name_of(ps), id,
                                 ps->arena + e->name);
    }
    if (st == CRFP_ENOMEM)
        st = crfp_error(r->host, st, "out of memory");
    if (st != CRFP_OK) {
        crfp_doc_free(doc);
        return st;
    }
    *out = doc;
    return CRFP_OK;
}

/* Document mode: a document element ended; its document joins the queue
 * and the buffers start again. */
static void doc_done(pstate *ps)
{
    mreader *r = ps->r;
    const char *id = NULL;
    for (size_t k = 0; k < ps->docattrs; k++)
        if (strcmp(ps->arena + ps->attrs[k].name, r->idattr) == 0)
            id = ps->arena + ps->attrs[k].value;
    char *made = NULL;
    if (!id || !*id) {
        size_t n = strlen(r->id) + 24;
        if ((made = malloc(n)))
            snprintf(made, n, "%s:%zu", r->id, r->ndocs + 1);
        id = made;
    }
    crfp_doc *doc = NULL;
    crfp_status st = id ? build(r, ps, id, &doc) : crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    free(made);
    if (st == CRFP_OK && !grow((void **)&r->queue, &r->qcap, r->qn + 1, sizeof *r->queue)) {
        crfp_doc_free(doc);
        st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    }
    if (st != CRFP_OK) {
        ps->st = st;
        xmlStopParser(ps->ctxt);
        return;
    }
    r->queue[r->qn++] = doc;
    r->ndocs++;
    ps->in_doc = 0;
    ps->tlen = ps->alen = ps->nelems = ps->nattrs = ps->docattrs = ps->pending = 0;
}

/* At the end of the input: what makes it no document at all. */
static crfp_status finish_checks(mreader *r)
{
    pstate *ps = r->ps;
    if (!ps->html && !r->docelem && !ps->nelems)
        return crfp_error(r->host, CRFP_EPARSE, "%s: no element (an XML document has one root)",
                          name_of(ps));
    if (r->docelem && !r->ndocs)
        return crfp_error(r->host, CRFP_EPARSE,
                          "%s: no <%s> element, which the reader parameter document names",
                          name_of(ps), r->docelem);
    return CRFP_OK;
}

static crfp_status mr_next(void *state, crfp_doc **doc)
{
    mreader *r = state;
    *doc = NULL;
    if (r->failed)
        return crfp_error(r->host, CRFP_EINVAL, "%s: reading after an error", r->in->name);
    crfp_status st = CRFP_OK;
    if (!r->started) {
        r->started = 1;
        st = start(r);
    }
    while (st == CRFP_OK) {
        if (r->qhead < r->qn) {
            *doc = r->queue[r->qhead++];
            if (r->qhead == r->qn)
                r->qhead = r->qn = 0;
            return CRFP_OK;
        }
        if (r->finished) {
            if (r->built)
                return CRFP_OK;
            r->built = 1;
            if ((st = finish_checks(r)) != CRFP_OK || r->docelem)
                break;
            pstate *ps = r->ps;
            if (!ps->depth)
                ps->pending = 0;   /* after the root: white space to be dropped */
            settle_break(ps, 0);
            if (ps->html && ps->tail < ps->tlen &&
                all_space(ps->text + ps->tail, ps->tlen - ps->tail))
                ps->tlen = ps->tail;
            /* elements HTML's parser left open end with the text */
            while (ps->depth) {
                size_t idx = ps->stack[--ps->depth];
                if (idx < DOCELEM)
                    ps->elems[idx].end = ps->tlen;
            }
            st = build(r, ps, r->id, doc);
            break;
        }
        st = feed(r);
    }
    if (st != CRFP_OK)
        r->failed = 1;
    return st;
}

static void mr_close(void *state)
{
    mreader *r = state;
    if (!r)
        return;
    pstate *ps = r->ps;
    if (ps && ps->ctxt) {
        /* a parser may build a document shell (HTML's default DTD) even
         * without tree callbacks; the context does not free it */
        if (ps->ctxt->myDoc)
            xmlFreeDoc(ps->ctxt->myDoc);
        ps->ctxt->myDoc = NULL;
        if (ps->html)
            htmlFreeParserCtxt(ps->ctxt);
        else
            xmlFreeParserCtxt(ps->ctxt);
    }
    if (ps) {
        free(ps->text);
        free(ps->arena);
        free(ps->elems);
        free(ps->attrs);
        free(ps->stack);
        free(ps);
    }
    for (size_t i = r->qhead; i < r->qn; i++)
        crfp_doc_free(r->queue[i]);
    free(r->queue);
    free(r->buf);
    free(r->id);
    free(r->set);
    free(r->docelem);
    free(r->idattr);
    names_free(r->breaks);
    names_free(r->skip);
    free(r);
}

/* Confidence that the input is XML or HTML this reader is for: 90 for
 * HTML, 80 for XML whose root is neither crfpipe's corpus nor a
 * GateDocument (their readers say 100; crfpipe's XML reader says 60 for
 * any other XML). */
static int mr_probe(const char *buf, size_t len)
{
    if (looks_html(buf, len))
        return 90;
    size_t at, n;
    if (xmlhead_root(buf, len, &at, &n) <= 0)
        return 0;
    const char *colon = memchr(buf + at, ':', n);
    size_t k = colon ? (size_t)(colon - buf) + 1 : at;
    if ((at + n - k == 6 && memcmp(buf + k, "corpus", 6) == 0) ||
        (n == 12 && memcmp(buf + at, "GateDocument", 12) == 0))
        return 0;
    return 80;
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = mr_open,
    .next = mr_next,
    .close = mr_close,
    .probe = mr_probe,
};

static const char *const formats[] = {"markup", "html", NULL};
static const char *const extensions[] = {".html", ".htm", ".xhtml", NULL};

CRFP_PLUGIN_DEFINE(markup_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "markup_reader",
    .kind = CRFP_KIND_READER,
    .version = "1.0",
    .description = "any XML or HTML document (GATE's Original markups): its character data as "
                   "the text, each element an annotation with its attributes",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
