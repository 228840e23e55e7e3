/* markup_writer — a document out as XML with its annotations inline.
 *
 * The document's text is written as character data, and each chosen
 * annotation as an element around the text it spans, its features as
 * attributes: what GATE calls saving "preserving format", and the inline
 * output of taggers (<PER>Obama</PER> visited <LOC>Paris</LOC>).  A document
 * markup_reader read comes back with its own elements (the "Original
 * markups" set) and whatever the pipeline added; markup_reader reads the
 * output back to the same text and annotations.
 *
 * Which annotations: those of the sets in `sets` (default: every set)
 * whose type `types` names, each item a TYPE (in any written set),
 * SET/TYPE, or SET/ and a star (every type of SET); default: every type.  An element
 * is named by its type, or by the value of the feature `name-feature`
 * when the annotation has it (that feature then is not repeated as an
 * attribute).  Strings, numbers and booleans become attribute values;
 * lists their items joined by ';'.
 *
 * Elements must nest.  Annotations are opened by start offset, the longer
 * first, ties by id; an annotation that would cross one already open (it
 * starts inside it and ends after it) cannot be written inline and is left
 * out, counted in a warning, as GATE leaves out crossing annotations.  An
 * empty annotation is an empty element, inside every element whose span
 * holds its offset: inside those that end there, and among those that
 * start there, inside the ones with smaller ids (markup_reader numbers
 * elements by their start tags, so a document it read keeps its nesting).
 * What inline XML cannot tell apart (<a>x</a><br/> and <a>x<br/></a> give
 * one span each the same; two empty elements at one offset may be nested
 * or not) is written one way, which reads back to the same annotations;
 * in a document with no text the first annotation holds the others.
 *
 * The root: when one written annotation spans the whole text and
 * holds all others, it is the root element; otherwise the document is
 * wrapped in `root` (default <document>), so that every character of the
 * text is kept.  With `corpus`, every document of the stream is wrapped
 * in `root` (with its id and its metadata as attributes), all of them
 * inside one `corpus` element, written as they come; markup_reader reads
 * them back one by one (document=ROOT).  Without it an output holds one
 * document, as an XML file holds one root, and a second document is an
 * error.
 *
 * Text is written exactly (CR as &#13;); what XML 1.0 cannot carry is an
 * error naming the document, before any of it is written.  An element name
 * or feature name that is not an XML name is left out, with a warning.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crfpipe/crfpipe.h"
#include "../common/names.h"
#include "../common/xmlout.h"

static const crfp_param_spec params[] = {
    {"sets", CRFP_PARAM_STRING, NULL,
     "comma-separated annotation sets to write (\"\" names the default set); default: all"},
    {"types", CRFP_PARAM_STRING, NULL,
     "comma-separated annotation types to write: TYPE, SET/TYPE or SET/*; default: all"},
    {"name-feature", CRFP_PARAM_STRING, "",
     "feature whose value names an annotation's element (e.g. type: <PER>); empty: the type"},
    {"features", CRFP_PARAM_BOOL, "true", "write the annotations' features as attributes"},
    {"root", CRFP_PARAM_STRING, "document",
     "element wrapping a document that has no annotation to be its root"},
    {"corpus", CRFP_PARAM_STRING, "",
     "element wrapping every document of the output (each in its root element); empty: one "
     "document per output"},
    {"declaration", CRFP_PARAM_BOOL, "true", "begin with <?xml version=\"1.0\" encoding=\"UTF-8\"?>"},
    {"html", CRFP_PARAM_BOOL, "false",
     "empty elements as an HTML page needs them: <br/> for HTML's void elements, <p></p> for the "
     "others (XML reads both the same); otherwise <p/> (raw-text elements such as <title> are "
     "always written <title></title>)"},
};

typedef struct item {
    const crfp_ann *ann;
    const char *name;     /* element name */
    size_t start, end;    /* byte offsets */
    int marker;           /* MARK_COMMENT, MARK_PI: not an element */
} item;

enum { MARK_NONE, MARK_COMMENT, MARK_PI };

/* Whether a comment's text or a processing instruction can be written as
 * one (XML 1.0: no "--" in a comment nor '-' at its end, a PI target that
 * is a name without ':' and not xml, no "?>" in its data), and which. */
static int marker_of(const crfp_ann *a, int *ok)
{
    *ok = 0;
    int kind = strcmp(a->type, "#comment") == 0 ? MARK_COMMENT
             : strcmp(a->type, "#pi") == 0       ? MARK_PI
                                                 : MARK_NONE;
    if (kind == MARK_NONE || a->start != a->end)
        return kind;
    if (kind == MARK_COMMENT) {
        const char *t = crfp_ann_str(a, "text");
        size_t n = t ? strlen(t) : 0;
        *ok = t && !strstr(t, "--") && !(n && t[n - 1] == '-') && xmlout_bad(t, n) == n &&
              !strchr(t, '\r');
    } else {
        const char *t = crfp_ann_str(a, "target"), *d = crfp_ann_str(a, "data");
        size_t n = d ? strlen(d) : 0;
        *ok = t && xmlout_is_name(t) && !strchr(t, ':') && strcasecmp(t, "xml") != 0 &&
              (!d || (!strstr(d, "?>") && xmlout_bad(d, n) == n && !strchr(d, '\r')));
    }
    return kind;
}

typedef struct mwriter {
    crfp_host *host;
    crfp_stream *out;
    char **sets, **types;  /* NULL-terminated; NULL: all */
    char *name_feature, *root, *corpus;
    int features, declaration;
    int html_empty;        /* html=true: empty elements as HTML writes them */
    int ndocs;
    int warned_name, warned_attr, warned_marker;
    xmlout o, body;
    item *items;
    size_t nitems, citems;
} mwriter;

static void mw_close(void *state);

static crfp_status mw_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    *state = NULL;
    mwriter *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    w->host = host;
    w->out = out;
    w->features = crfp_params_bool(p, "features");
    w->declaration = crfp_params_bool(p, "declaration");
    w->html_empty = crfp_params_bool(p, "html");
    const char *sets = crfp_params_str(p, "sets"), *types = crfp_params_str(p, "types");
    if ((sets && !(w->sets = names_split(sets, 1))) || (types && !(w->types = names_split(types, 0))) ||
        !(w->name_feature = strdup(crfp_params_str(p, "name-feature"))) ||
        !(w->root = strdup(crfp_params_str(p, "root"))) ||
        !(w->corpus = strdup(crfp_params_str(p, "corpus")))) {
        mw_close(w);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    const char *bad = !xmlout_is_qname(w->root) ? "root"
                      : *w->corpus && !xmlout_is_qname(w->corpus) ? "corpus" : NULL;
    if (bad) {
        crfp_status st = crfp_error(host, CRFP_EINVAL, "parameter '%s': '%s' is not an XML name",
                                    bad, strcmp(bad, "root") ? w->corpus : w->root);
        mw_close(w);
        return st;
    }
    *state = w;
    return CRFP_OK;
}

/* --- which annotations ----------------------------------------------------------- */

static int set_wanted(const mwriter *w, const char *set)
{
    return !w->sets || names_has(w->sets, set, 0);
}

static int type_wanted(const mwriter *w, const char *set, const char *type)
{
    if (!w->types)
        return 1;
    size_t sl = strlen(set);
    for (size_t i = 0; w->types[i]; i++) {
        const char *t = w->types[i];
        const char *slash = strrchr(t, '/');
        if (!slash) {
            if (strcmp(t, type) == 0)
                return 1;
        } else if ((size_t)(slash - t) == sl && strncmp(t, set, sl) == 0 &&
                   (strcmp(slash + 1, "*") == 0 || strcmp(slash + 1, type) == 0)) {
            return 1;
        }
    }
    return 0;
}

static int value_bad(const crfp_value *v)
{
    if (v->type == CRFP_V_STRING)
        return xmlout_bad(v->u.s, strlen(v->u.s)) < strlen(v->u.s);
    if (v->type == CRFP_V_LIST)
        for (size_t i = 0; i < v->u.list.n; i++)
            if (value_bad(&v->u.list.items[i]))
                return 1;
    return 0;
}

static void put_value(xmlout *o, const crfp_value *v)
{
    char num[64];
    if (v->type != CRFP_V_LIST) {
        const char *t = xmlout_scalar(v, num, sizeof num);
        xmlout_esc(o, t, strlen(t), 1);
        return;
    }
    for (size_t i = 0; i < v->u.list.n; i++) {
        if (i)
            xmlout_puts(o, ";");
        put_value(o, &v->u.list.items[i]);
    }
}

/* The chosen annotations, with their element names and byte offsets;
 * checks everything that could refuse the document. */
static crfp_status collect(mwriter *w, const crfp_doc *doc, const char *docid)
{
    size_t len;
    const char *text = crfp_doc_text(doc, &len);
    size_t bad = xmlout_bad(text, len);
    if (bad < len)
        return crfp_error(w->host, CRFP_EINVAL,
                          "%s: document '%s': the text holds a character XML 1.0 cannot carry "
                          "(byte 0x%02X at byte offset %zu)",
                          w->out->name, docid, (unsigned char)text[bad], bad);
    w->nitems = 0;
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
        crfp_annset *set = crfp_doc_annset_at(doc, s);
        const char *sname = crfp_annset_name(set);
        if (!set_wanted(w, sname))
            continue;
        for (size_t i = 0; i < crfp_annset_size(set); i++) {
            const crfp_ann *a = crfp_annset_get(set, i);
            if (!type_wanted(w, sname, a->type))
                continue;
            const char *name = a->type;
            int ok, marker = marker_of(a, &ok);
            if (marker && !ok) {
                if (!w->warned_marker++)
                    crfp_log(w->host, CRFP_LOG_WARN,
                             "%s: document '%s': %s annotation %" PRIu64 " cannot be written as "
                             "one (a comment holding \"--\", a processing instruction named xml, "
                             "...): such annotations are left out",
                             w->out->name, docid, a->type, a->id);
                continue;
            }
            if (!marker && *w->name_feature) {
                const char *v = crfp_ann_str(a, w->name_feature);
                if (v && *v)
                    name = v;
            }
            if (!marker && !xmlout_is_qname(name)) {
                if (!w->warned_name++)
                    crfp_log(w->host, CRFP_LOG_WARN,
                             "%s: document '%s': '%s' (annotation %" PRIu64
                             ") is not an XML element name: such annotations are left out",
                             w->out->name, docid, name, a->id);
                continue;
            }
            for (size_t f = 0; w->features && f < a->nfeats; f++)
                if (value_bad(&a->feats[f].value))
                    return crfp_error(w->host, CRFP_EINVAL,
                                      "%s: document '%s': feature '%s' of %s annotation %" PRIu64
                                      " holds a character XML 1.0 cannot carry",
                                      w->out->name, docid, a->feats[f].name, a->type, a->id);
            size_t b0, b1;
            if (crfp_doc_to_byte(doc, a->start, &b0) != CRFP_OK ||
                crfp_doc_to_byte(doc, a->end, &b1) != CRFP_OK)
                return crfp_error(w->host, CRFP_EINVAL,
                                  "%s: document '%s': annotation %" PRIu64 " is not in the text",
                                  w->out->name, docid, a->id);
            if (w->nitems == w->citems) {
                size_t cap = w->citems ? 2 * w->citems : 256;
                item *n = realloc(w->items, cap * sizeof *n);
                if (!n)
                    return crfp_error(w->host, CRFP_ENOMEM, "out of memory");
                w->items = n;
                w->citems = cap;
            }
            w->items[w->nitems++] = (item){a, name, b0, b1, marker};
        }
    }
    return CRFP_OK;
}

/* By start; at one start the non-empty ones (longer first, then by id)
 * before the empty ones (by id); merge_empty then places the empty ones. */
static int cmp_item(const void *x, const void *y)
{
    const item *a = *(item *const *)x, *b = *(item *const *)y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    int ea = a->start == a->end, eb = b->start == b->end;
    if (ea != eb)
        return ea - eb;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return a->ann->id < b->ann->id ? -1 : a->ann->id > b->ann->id;
}

/* Within the run [lo, hi) of one start offset (non-empty items, then
 * empty ones by id), put each empty item right after the last non-empty
 * one with a smaller id (see the top).  With sufmin[m] the smallest id of
 * the non-empty items from m on, nondecreasing in m, the items before an
 * empty one with id x are those m with sufmin[m] < x: a binary search, and
 * since the empty ones come by id, one merge.  tmp holds hi - lo items,
 * sufmin as many ids. */
static void merge_empty(item **o, size_t lo, size_t hi, item **tmp, uint64_t *sufmin)
{
    size_t ne = lo;
    while (ne < hi && o[ne]->start != o[ne]->end)
        ne++;
    size_t nn = ne - lo;
    if (nn == 0 || ne == hi)
        return;
    for (size_t m = nn; m-- > 0;) {
        uint64_t id = o[lo + m]->ann->id;
        sufmin[m] = m + 1 < nn && sufmin[m + 1] < id ? sufmin[m + 1] : id;
    }
    size_t k = 0, placed = 0;
    for (size_t j = ne; j < hi; j++) {
        uint64_t x = o[j]->ann->id;
        size_t a = 0, b = nn;   /* count of m with sufmin[m] < x */
        while (a < b) {
            size_t mid = (a + b) / 2;
            if (sufmin[mid] < x)
                a = mid + 1;
            else
                b = mid;
        }
        while (placed < a)
            tmp[k++] = o[lo + placed++];
        tmp[k++] = o[j];
    }
    while (placed < nn)
        tmp[k++] = o[lo + placed++];
    memcpy(o + lo, tmp, k * sizeof *tmp);
}

static void put_close(mwriter *w, const item *it);

/* HTML's elements whose content is raw text (an HTML parser reads <title/>
 * as a title that runs on over the rest of the page): an empty one is
 * written <title></title>, which XML reads the same as <title/>. */
static int raw_text(const char *name)
{
    static const char *const raw[] = {"title", "textarea", "script", "style", "xmp", "iframe",
                                      "noembed", "noframes", "noscript", "plaintext"};
    for (size_t i = 0; i < sizeof raw / sizeof *raw; i++)
        if (strcasecmp(name, raw[i]) == 0)
            return 1;
    return 0;
}

/* HTML's void elements: <br>, never </br>. */
static int html_void(const char *name)
{
    static const char *const v[] = {"area", "base", "br", "col", "embed", "hr", "img", "input",
                                    "link", "meta", "param", "source", "track", "wbr"};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (strcasecmp(name, v[i]) == 0)
            return 1;
    return 0;
}

static void put_open(mwriter *w, const item *it, int empty)
{
    xmlout *o = &w->body;
    if (it->marker == MARK_COMMENT) {
        xmlout_puts(o, "<!--");
        xmlout_puts(o, crfp_ann_str(it->ann, "text"));
        xmlout_puts(o, "-->");
        return;
    }
    if (it->marker == MARK_PI) {
        /* XML reads the white space after the target as the separator,
         * never as data (HTML's parser may keep it) */
        const char *d = crfp_ann_str(it->ann, "data");
        while (d && (*d == ' ' || *d == '\t' || *d == '\n' || *d == '\r'))
            d++;
        xmlout_puts(o, "<?");
        xmlout_puts(o, crfp_ann_str(it->ann, "target"));
        if (d && *d) {
            xmlout_puts(o, " ");
            xmlout_puts(o, d);
        }
        xmlout_puts(o, "?>");
        return;
    }
    xmlout_puts(o, "<");
    xmlout_puts(o, it->name);
    const crfp_ann *a = it->ann;
    /* namespace declarations first, as XML's parser reports them (so that
     * what is written reads back in the order it is written again) */
    for (size_t k = 0; w->features && k < 2 * a->nfeats; k++) {
        size_t f = k % a->nfeats;
        const char *fn = a->feats[f].name;
        int ns = strncmp(fn, "xmlns", 5) == 0 && (fn[5] == '\0' || fn[5] == ':');
        if (ns != (k < a->nfeats))
            continue;
        if (*w->name_feature && it->name != a->type && strcmp(fn, w->name_feature) == 0)
            continue;
        /* a namespace declaration XML's namespaces refuse (an empty
         * prefix URI, a reserved prefix) is left out as a bad name is */
        const crfp_value *v = &a->feats[f].value;
        int badns = ns && fn[5] == ':' &&
                    (!xmlout_is_name(fn + 6) || strchr(fn + 6, ':') ||
                     strncasecmp(fn + 6, "xml", 3) == 0 || v->type != CRFP_V_STRING || !*v->u.s);
        if (badns || (!ns && !xmlout_is_qname(fn))) {
            if (!w->warned_attr++)
                crfp_log(w->host, CRFP_LOG_WARN,
                         "%s: feature '%s' of %s annotation %" PRIu64
                         " is not an XML attribute name (or a namespace declaration XML "
                         "refuses): such features are left out",
                         w->out->name, fn, a->type, a->id);
            continue;
        }
        xmlout_puts(o, " ");
        xmlout_puts(o, fn);
        xmlout_puts(o, "=\"");
        put_value(o, &a->feats[f].value);
        xmlout_puts(o, "\"");
    }
    /* an empty element: <x/>, or <x></x> where HTML needs it */
    if (empty && (w->html_empty ? html_void(it->name) : !raw_text(it->name))) {
        xmlout_puts(o, "/>");
        return;
    }
    xmlout_puts(o, ">");
    if (empty)
        put_close(w, it);
}

static void put_close(mwriter *w, const item *it)
{
    xmlout_puts(&w->body, "</");
    xmlout_puts(&w->body, it->name);
    xmlout_puts(&w->body, ">");
}

/* The body: text and elements.  *top counts the top-level elements,
 * *loose whether text lies outside all of them, *crossing the annotations
 * left out. */
static crfp_status put_body(mwriter *w, const crfp_doc *doc, size_t *top, int *loose,
                            size_t *crossing)
{
    size_t len;
    const char *text = crfp_doc_text(doc, &len);
    *top = 0;
    *loose = 0;
    *crossing = 0;
    size_t n = w->nitems;
    item **order = n ? malloc(n * sizeof *order) : NULL;
    item **tmp = n ? malloc(n * sizeof *tmp) : NULL;
    uint64_t *sufmin = n ? malloc(n * sizeof *sufmin) : NULL;
    size_t *stack = n ? malloc(n * sizeof *stack) : NULL;
    if (n && (!order || !tmp || !sufmin || !stack)) {
        free(order);
        free(tmp);
        free(sufmin);
        free(stack);
        return crfp_error(w->host, CRFP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        order[i] = &w->items[i];
    if (n > 1)
        qsort(order, n, sizeof *order, cmp_item);
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo + 1;
        while (hi < n && order[hi]->start == order[lo]->start)
            hi++;
        merge_empty(order, lo, hi, tmp, sufmin);
        lo = hi;
    }
    size_t holder = 0;
    while (holder < n && order[holder]->marker)
        holder++;
    if (len == 0 && n > 1) {
        /* An empty text: every annotation is empty, at offset 0.  The
         * first element (by id) holds the others, so that the document
         * needs no wrapper, which would be one more empty element the next
         * time; comments alone stand at the top. */
        *top = holder < n;
        if (holder < n)
            put_open(w, order[holder], 0);
        for (size_t i = 0; i < n; i++)
            if (i != holder)
                put_open(w, order[i], 1);
        if (holder < n)
            put_close(w, order[holder]);
        free(order);
        free(tmp);
        free(sufmin);
        free(stack);
        return CRFP_OK;
    }
    size_t depth = 0, at = 0;
#define TEXT_TO(pos)                                                   \
    do {                                                               \
        if ((pos) > at) {                                              \
            if (!depth)                                                \
                *loose = 1;                                            \
            xmlout_esc(&w->body, text + at, (pos) - at, 0);            \
            at = (pos);                                                \
        }                                                              \
    } while (0)
    for (size_t i = 0; i < n; i++) {
        const item *it = order[i];
        /* an empty item stays inside the elements that end where it is */
        while (depth && (order[stack[depth - 1]]->end < it->start ||
                         (order[stack[depth - 1]]->end == it->start && it->start != it->end))) {
            TEXT_TO(order[stack[depth - 1]]->end);
            put_close(w, order[stack[--depth]]);
        }
        if (it->start != it->end && depth && it->end > order[stack[depth - 1]]->end) {
            ++*crossing;
            continue;
        }
        TEXT_TO(it->start);
        if (!depth && !it->marker)   /* comments may stand beside the root */
            ++*top;
        if (it->start == it->end) {
            put_open(w, it, 1);
        } else {
            put_open(w, it, 0);
            stack[depth++] = i;
        }
    }
    while (depth) {
        TEXT_TO(order[stack[depth - 1]]->end);
        put_close(w, order[stack[--depth]]);
    }
    TEXT_TO(len);
#undef TEXT_TO
    free(order);
    free(tmp);
    free(sufmin);
    free(stack);
    return CRFP_OK;
}

/* Whether s may stand in a DOCTYPE as a literal in double quotes and read
 * back the same: a system id as a URI is written (no white space, quote or
 * angle bracket), a public id of XML's PubidChar with single spaces inside
 * (XML parsers collapse its white space). */
static int literal_ok(const char *s, int pubid)
{
    const unsigned char *u = (const unsigned char *)s;
    if (!*u || (pubid && (u[0] == ' ' || u[strlen(s) - 1] == ' ' || strstr(s, "  "))))
        return 0;
    for (const unsigned char *c = u; *c; c++) {
        if (*c < 0x20 || *c == '"' || *c == '<' || *c == '>' || (!pubid && *c == ' '))
            return 0;
        if (pubid && !((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                       (*c >= '0' && *c <= '9') || strchr(" -'()+,./:=?;!*#@$_%", *c)))
            return 0;
    }
    return xmlout_bad(s, strlen(s)) == strlen(s);
}

/* The DOCTYPE markup_reader kept (metadata doctype, doctype-public,
 * doctype-system), its internal subset never: <!DOCTYPE html>.  XML wants
 * a system id after a public one: a public id alone is left out. */
static void put_doctype(mwriter *w, const crfp_doc *doc)
{
    const char *name = crfp_doc_meta_str(doc, "doctype");
    const char *pub = crfp_doc_meta_str(doc, "doctype-public");
    const char *sys = crfp_doc_meta_str(doc, "doctype-system");
    if (!name || !xmlout_is_qname(name))
        return;
    if (sys && !literal_ok(sys, 0))
        sys = NULL;
    if (pub && (!sys || !literal_ok(pub, 1)))
        pub = NULL;
    xmlout_puts(&w->o, "<!DOCTYPE ");
    xmlout_puts(&w->o, name);
    if (pub) {
        xmlout_puts(&w->o, " PUBLIC \"");
        xmlout_puts(&w->o, pub);
        xmlout_puts(&w->o, "\" \"");
    } else if (sys) {
        xmlout_puts(&w->o, " SYSTEM \"");
    }
    if (sys) {
        xmlout_puts(&w->o, sys);
        xmlout_puts(&w->o, "\"");
    }
    xmlout_puts(&w->o, ">\n");
}

static crfp_status mw_write(void *state, const crfp_doc *doc)
{
    mwriter *w = state;
    const char *docid = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    if (w->ndocs && !*w->corpus)
        return crfp_error(w->host, CRFP_EINVAL,
                          "%s: document '%s': an XML file holds one root and this is the second "
                          "document (write each document to its own file, or give the writer a "
                          "corpus element: corpus=documents)",
                          w->out->name, docid);
    if (*w->corpus && xmlout_bad(docid, strlen(docid)) < strlen(docid))
        return crfp_error(w->host, CRFP_EINVAL,
                          "%s: a document id holds a character XML 1.0 cannot carry",
                          w->out->name);
    crfp_status st = collect(w, doc, docid);
    if (st != CRFP_OK)
        return st;
    xmlout_reset(&w->body);
    size_t top, crossing;
    int loose;
    if ((st = put_body(w, doc, &top, &loose, &crossing)) != CRFP_OK)
        return st;
    if (crossing)
        crfp_log(w->host, CRFP_LOG_WARN,
                 "%s: document '%s': %zu annotation%s cross%s others and cannot be written "
                 "inline: left out",
                 w->out->name, docid, crossing, crossing == 1 ? "" : "s",
                 crossing == 1 ? "es" : "");
    xmlout_reset(&w->o);
    if (w->ndocs == 0) {
        if (w->declaration)
            xmlout_puts(&w->o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        if (!*w->corpus)
            put_doctype(w, doc);
        if (*w->corpus) {
            xmlout_puts(&w->o, "<");
            xmlout_puts(&w->o, w->corpus);
            xmlout_puts(&w->o, ">\n");
        }
    }
    int wrap = *w->corpus || top != 1 || loose;
    if (wrap) {
        xmlout_puts(&w->o, "<");
        xmlout_puts(&w->o, w->root);
        if (*w->corpus) {
            /* the document's id and metadata, as markup_reader in document
             * mode reads them back */
            xmlout_puts(&w->o, " id=\"");
            xmlout_esc(&w->o, docid, strlen(docid), 1);
            xmlout_puts(&w->o, "\"");
            size_t nm;
            const crfp_feature *meta = crfp_doc_meta(doc, &nm);
            for (size_t i = 0; i < nm; i++) {
                if (strcmp(meta[i].name, "id") == 0 || !xmlout_is_qname(meta[i].name) ||
                    value_bad(&meta[i].value))
                    continue;
                xmlout_puts(&w->o, " ");
                xmlout_puts(&w->o, meta[i].name);
                xmlout_puts(&w->o, "=\"");
                put_value(&w->o, &meta[i].value);
                xmlout_puts(&w->o, "\"");
            }
        }
        /* empty: as the element reads back and is written the next time */
        xmlout_puts(&w->o, w->body.len ? ">" : "/>");
    }
    xmlout_put(&w->o, w->body.buf ? w->body.buf : "", w->body.len);
    if (wrap && w->body.len) {
        xmlout_puts(&w->o, "</");
        xmlout_puts(&w->o, w->root);
        xmlout_puts(&w->o, ">");
    }
    xmlout_puts(&w->o, "\n");
    w->ndocs++;
    if (w->o.oom || w->body.oom)
        return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory writing document '%s'",
                          w->out->name, docid);
    if (fwrite(w->o.buf, 1, w->o.len, w->out->fp) != w->o.len)
        return crfp_error(w->host, CRFP_EIO, "%s: write error: %s", w->out->name,
                          strerror(errno));
    return CRFP_OK;
}

static crfp_status mw_finish(void *state)
{
    mwriter *w = state;
    if (*w->corpus) {
        xmlout_reset(&w->o);
        if (!w->ndocs && w->declaration)
            xmlout_puts(&w->o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        xmlout_puts(&w->o, w->ndocs ? "</" : "<");
        xmlout_puts(&w->o, w->corpus);
        xmlout_puts(&w->o, w->ndocs ? ">\n" : "/>\n");
        if (w->o.oom)
            return crfp_error(w->host, CRFP_ENOMEM, "out of memory");
        if (fwrite(w->o.buf, 1, w->o.len, w->out->fp) != w->o.len)
            return crfp_error(w->host, CRFP_EIO, "%s: write error: %s", w->out->name,
                              strerror(errno));
    }
    if (fflush(w->out->fp) != 0 || ferror(w->out->fp))
        return crfp_error(w->host, CRFP_EIO, "%s: write error: %s", w->out->name,
                          strerror(errno));
    return CRFP_OK;
}

static void mw_close(void *state)
{
    mwriter *w = state;
    if (!w)
        return;
    names_free(w->sets);
    names_free(w->types);
    free(w->name_feature);
    free(w->root);
    free(w->corpus);
    xmlout_free(&w->o);
    xmlout_free(&w->body);
    free(w->items);
    free(w);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = mw_open,
    .write = mw_write,
    .finish = mw_finish,
    .close = mw_close,
};

static const char *const formats[] = {"markup", NULL};

CRFP_PLUGIN_DEFINE(markup_writer) = {
    CRFP_PLUGIN_ABI,
    .name = "markup_writer",
    .kind = CRFP_KIND_WRITER,
    .version = "1.0",
    .description = "XML with the annotations inline as elements, their features as attributes "
                   "(GATE's save preserving format; <PER>Obama</PER>)",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
};
