/* gate_writer — documents out as GATE XML (the format GATE's "Save as XML"
 * writes and its XML document format reads, version 3).
 *
 * A GATE XML file holds one document:
 *   GateDocument
 *     GateDocumentFeatures   Feature*      (document features: the metadata)
 *     TextWithNodes          text with an empty Node id="N" at every offset
 *                            an annotation starts or ends (N is the offset)
 *     AnnotationSet [Name]   Annotation (Id, Type, StartNode, EndNode) with
 *                            Feature* — the default set has no Name
 * and a Feature is a Name and a Value element, each with the Java class of
 * its content (className).  Offsets in GATE count UTF-16 code units (Java
 * chars); documents in another unit are converted.
 *
 * Values: strings are java.lang.String, integers java.lang.Long, floats
 * java.lang.Double (17 significant digits, so they read back exactly),
 * booleans java.lang.Boolean, references (annotation ids)
 * java.lang.Integer.  A list of scalars of one type becomes a
 * java.util.ArrayList with that itemClassName, its items separated by ';'
 * (GATE splits the text at ';' and drops empty items, so a list with an
 * empty item or a ';' in an item cannot be written that way: it is
 * written as one string, with a warning).
 *
 * The processors recorded on annotation sets (crfpipe's provenance) become
 * document features "crfpipe.processor.N", whose value lists set, plugin,
 * version and parameters as name=value items separated by ';', with '%',
 * ';' and '=' percent-encoded; gate_reader turns them back into
 * processors.  A GATE document read by gate_reader has none, so GATE →
 * crfpipe → GATE adds nothing.
 *
 * Text and values are written exactly: a carriage return as &#13; (an XML
 * parser would otherwise turn CR LF into LF), tabs and line breaks in
 * attributes as character references.  What XML 1.0 cannot carry (control
 * characters other than tab, LF and CR; U+FFFE, U+FFFF) is refused with an
 * error naming the document, before anything of it is written.
 *
 * Since a file holds one document, a second document in the same output is
 * an error (write each document to its own file).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/names.h"
#include "../common/xmlout.h"

static const crfp_param_spec params[] = {
    {"sets", CRFP_PARAM_STRING, NULL,
     "comma-separated annotation sets to write (\"\" names the default set); default: all"},
    {"provenance", CRFP_PARAM_BOOL, "true",
     "write the annotation sets' processors as crfpipe.processor.N document features"},
};

typedef struct gwriter {
    crfp_host *host;
    crfp_stream *out;
    char **sets;           /* NULL-terminated; NULL: every set */
    int provenance;
    int ndocs;
    int warned_list;
    xmlout o;              /* the document, written in one go */
    /* offset conversion */
    size_t *offs;          /* distinct offsets, document unit, sorted */
    size_t *u16;           /* the same in UTF-16 units */
    size_t *bytes;         /* and in bytes */
    size_t noffs, capoffs;
} gwriter;

static void gw_close(void *state);

static crfp_status gw_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    *state = NULL;
    gwriter *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    w->host = host;
    w->out = out;
    w->provenance = crfp_params_bool(p, "provenance");
    const char *sets = crfp_params_str(p, "sets");
    if (sets && !(w->sets = names_split(sets, 1)))
        goto nomem;
    *state = w;
    return CRFP_OK;
nomem:
    gw_close(w);
    return crfp_error(host, CRFP_ENOMEM, "out of memory");
}

/* --- output buffer (xmlout.h) ------------------------------------------------ */

static void puts_(gwriter *w, const char *s)
{
    xmlout_puts(&w->o, s);
}

static void put_esc(gwriter *w, const char *s, size_t n, int attr)
{
    xmlout_esc(&w->o, s, n, attr);
}

#define xml_bad xmlout_bad

/* --- values ----------------------------------------------------------------- */

static const char *class_of(crfp_vtype t)
{
    switch (t) {
    case CRFP_V_STRING: return "java.lang.String";
    case CRFP_V_INT: return "java.lang.Long";
    case CRFP_V_FLOAT: return "java.lang.Double";
    case CRFP_V_BOOL: return "java.lang.Boolean";
    case CRFP_V_REF: return "java.lang.Integer";
    case CRFP_V_LIST: return "java.util.ArrayList";
    }
    return "java.lang.String";
}

/* Whether a list can be a GATE collection: scalars of one type, none
 * empty or holding ';'. */
static int list_ok(const crfp_value *v)
{
    for (size_t i = 0; i < v->u.list.n; i++) {
        const crfp_value *it = &v->u.list.items[i];
        if (it->type == CRFP_V_LIST || it->type != v->u.list.items[0].type)
            return 0;
        if (it->type == CRFP_V_STRING && (!*it->u.s || strchr(it->u.s, ';')))
            return 0;
    }
    return 1;
}

/* The flat text of any value (lists as items joined by "; "). */
static void put_flat(gwriter *w, const crfp_value *v)
{
    char num[64];
    if (v->type != CRFP_V_LIST) {
        const char *t = xmlout_scalar(v, num, sizeof num);
        put_esc(w, t, strlen(t), 0);
        return;
    }
    puts_(w, "[");
    for (size_t i = 0; i < v->u.list.n; i++) {
        if (i)
            puts_(w, "; ");
        put_flat(w, &v->u.list.items[i]);
    }
    puts_(w, "]");
}

static int str_bad(const char *s)
{
    size_t n = strlen(s);
    return xml_bad(s, n) < n;
}

/* Strings in a value that XML cannot carry: the first bad one's text. */
static const char *value_bad(const crfp_value *v)
{
    if (v->type == CRFP_V_STRING)
        return xml_bad(v->u.s, strlen(v->u.s)) < strlen(v->u.s) ? v->u.s : NULL;
    if (v->type == CRFP_V_LIST)
        for (size_t i = 0; i < v->u.list.n; i++) {
            const char *b = value_bad(&v->u.list.items[i]);
            if (b)
                return b;
        }
    return NULL;
}

static void put_feature(gwriter *w, const char *name, const crfp_value *v, const char *docid)
{
    puts_(w, "<Feature>\n  <Name className=\"java.lang.String\">");
    put_esc(w, name, strlen(name), 0);
    puts_(w, "</Name>\n  <Value className=\"");
    if (v->type == CRFP_V_LIST && list_ok(v)) {
        puts_(w, "java.util.ArrayList\"");
        if (v->u.list.n) {
            puts_(w, " itemClassName=\"");
            puts_(w, class_of(v->u.list.items[0].type));
            puts_(w, "\"");
        }
        puts_(w, ">");
        char num[64];
        for (size_t i = 0; i < v->u.list.n; i++) {
            if (i)
                puts_(w, ";");
            const char *t = xmlout_scalar(&v->u.list.items[i], num, sizeof num);
            put_esc(w, t, strlen(t), 0);
        }
    } else if (v->type == CRFP_V_LIST) {
        if (!w->warned_list) {
            crfp_log(w->host, CRFP_LOG_WARN,
                     "document '%s': feature '%s' is a list GATE's format cannot hold (empty "
                     "items, ';' in an item or mixed types): written as one string",
                     docid, name);
            w->warned_list = 1;
        }
        puts_(w, "java.lang.String\">");
        put_flat(w, v);
    } else {
        puts_(w, class_of(v->type));
        puts_(w, "\">");
        put_flat(w, v);
    }
    puts_(w, "</Value>\n</Feature>\n");
}

/* --- provenance ------------------------------------------------------------- */

static void put_pct(gwriter *w, const char *s)
{
    char tmp[4];
    for (; *s; s++) {
        if (*s == '%' || *s == ';' || *s == '=') {
            snprintf(tmp, sizeof tmp, "%%%02X", (unsigned char)*s);
            puts_(w, tmp);
        } else {
            put_esc(w, s, 1, 0);
        }
    }
}

static size_t put_processors(gwriter *w, crfp_annset *set, size_t k)
{
    size_t np;
    const crfp_processor *pr = crfp_annset_processors(set, &np);
    for (size_t i = 0; i < np; i++) {
        char name[64];
        snprintf(name, sizeof name, "crfpipe.processor.%zu", ++k);
        puts_(w, "<Feature>\n  <Name className=\"java.lang.String\">");
        puts_(w, name);
        puts_(w, "</Name>\n  <Value className=\"java.lang.String\">set=");
        put_pct(w, crfp_annset_name(set));
        puts_(w, ";plugin=");
        put_pct(w, pr[i].plugin);
        puts_(w, ";version=");
        put_pct(w, pr[i].version ? pr[i].version : "");
        for (size_t j = 0; j < pr[i].nparams; j++) {
            puts_(w, ";");
            put_pct(w, pr[i].param_names[j]);
            puts_(w, "=");
            put_pct(w, pr[i].param_values[j]);
        }
        puts_(w, "</Value>\n</Feature>\n");
    }
    return k;
}

/* --- offsets ------------------------------------------------------------------ */

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static int wanted(const gwriter *w, const crfp_annset *set)
{
    return !w->sets || names_has(w->sets, crfp_annset_name(set), 0);
}

/* Collect the distinct offsets of the written annotations and convert
 * them to UTF-16 units and bytes in one pass over the text. */
static crfp_status map_offsets(gwriter *w, const crfp_doc *doc, const char *docid)
{
    size_t n = 0;
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
        crfp_annset *set = crfp_doc_annset_at(doc, s);
        if (wanted(w, set))
            n += 2 * crfp_annset_size(set);
    }
    if (n + 1 > w->capoffs) {
        size_t cap = n + 1;
        size_t *a = realloc(w->offs, cap * sizeof *a);
        if (a)
            w->offs = a;
        size_t *b = a ? realloc(w->u16, cap * sizeof *b) : NULL;
        if (b)
            w->u16 = b;
        size_t *c = b ? realloc(w->bytes, cap * sizeof *c) : NULL;
        if (c)
            w->bytes = c;
        if (!c)
            return crfp_error(w->host, CRFP_ENOMEM, "out of memory");
        w->capoffs = cap;
    }
    n = 0;
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
        crfp_annset *set = crfp_doc_annset_at(doc, s);
        if (!wanted(w, set))
            continue;
        for (size_t i = 0; i < crfp_annset_size(set); i++) {
            const crfp_ann *a = crfp_annset_get(set, i);
            w->offs[n++] = a->start;
            w->offs[n++] = a->end;
        }
    }
    if (n > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(w->offs, n, sizeof *w->offs, cmp_size);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || w->offs[m - 1] != w->offs[i])
            w->offs[m++] = w->offs[i];
    w->noffs = m;
    size_t len;
    const char *text = crfp_doc_text(doc, &len);
    size_t b = 0, u16 = 0;
    for (size_t i = 0; i < m; i++) {
        size_t target;
        if (crfp_doc_to_byte(doc, w->offs[i], &target) != CRFP_OK)
            return crfp_error(w->host, CRFP_EINVAL, "document '%s': offset %zu is not in the text",
                              docid, w->offs[i]);
        for (; b < target; b++) {
            unsigned char c = (unsigned char)text[b];
            if ((c & 0xC0) != 0x80)
                u16 += c >= 0xF0 ? 2 : 1;
        }
        w->bytes[i] = target;
        w->u16[i] = u16;
    }
    return CRFP_OK;
}

static size_t find_off(const gwriter *w, size_t off)
{
    size_t lo = 0, hi = w->noffs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->offs[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* --- documents ------------------------------------------------------------------ */

static crfp_status check_doc(gwriter *w, const crfp_doc *doc, const char *docid)
{
    size_t len;
    const char *text = crfp_doc_text(doc, &len);
    size_t bad = xml_bad(text, len);
    if (bad < len)
        return crfp_error(w->host, CRFP_EINVAL,
                          "%s: document '%s': the text holds a character XML 1.0 cannot carry "
                          "(byte 0x%02X at byte offset %zu)",
                          w->out->name, docid, (unsigned char)text[bad], bad);
    size_t nm;
    const crfp_feature *meta = crfp_doc_meta(doc, &nm);
    for (size_t i = 0; i < nm; i++)
        if (value_bad(&meta[i].value) || str_bad(meta[i].name))
            return crfp_error(w->host, CRFP_EINVAL,
                              "%s: document '%s': metadata '%s' holds a character XML 1.0 "
                              "cannot carry",
                              w->out->name, docid, meta[i].name);
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
        crfp_annset *set = crfp_doc_annset_at(doc, s);
        if (!wanted(w, set))
            continue;
        if (str_bad(crfp_annset_name(set)))
            return crfp_error(w->host, CRFP_EINVAL,
                              "%s: document '%s': an annotation set name holds a character XML "
                              "1.0 cannot carry",
                              w->out->name, docid);
        for (size_t i = 0; i < crfp_annset_size(set); i++) {
            const crfp_ann *a = crfp_annset_get(set, i);
            if (str_bad(a->type))
                return crfp_error(w->host, CRFP_EINVAL,
                                  "%s: document '%s': annotation %" PRIu64
                                  " has a type XML 1.0 cannot carry",
                                  w->out->name, docid, a->id);
            if (a->id > INT32_MAX)
                return crfp_error(w->host, CRFP_EINVAL,
                                  "%s: document '%s': annotation id %" PRIu64
                                  " is beyond GATE's (a Java int)",
                                  w->out->name, docid, a->id);
            for (size_t f = 0; f < a->nfeats; f++)
                if (value_bad(&a->feats[f].value) || str_bad(a->feats[f].name))
                    return crfp_error(w->host, CRFP_EINVAL,
                                      "%s: document '%s': feature '%s' of %s annotation %" PRIu64
                                      " holds a character XML 1.0 cannot carry",
                                      w->out->name, docid, a->feats[f].name, a->type, a->id);
        }
    }
    return CRFP_OK;
}

static crfp_status gw_write(void *state, const crfp_doc *doc)
{
    gwriter *w = state;
    const char *docid = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    if (w->ndocs++)
        return crfp_error(w->host, CRFP_EINVAL,
                          "%s: document '%s': a GATE XML file holds one document and this is the "
                          "second (write each document to its own file, e.g. one input file per "
                          "document with text_reader split=file)",
                          w->out->name, docid);
    crfp_status st = check_doc(w, doc, docid);
    if (st == CRFP_OK)
        st = map_offsets(w, doc, docid);
    if (st != CRFP_OK)
        return st;
    xmlout_reset(&w->o);
    puts_(w, "<?xml version='1.0' encoding='UTF-8'?>\n<GateDocument version=\"3\">\n"
             "<GateDocumentFeatures>\n");
    size_t nm;
    const crfp_feature *meta = crfp_doc_meta(doc, &nm);
    for (size_t i = 0; i < nm; i++)
        put_feature(w, meta[i].name, &meta[i].value, docid);
    if (w->provenance) {
        size_t k = 0;
        for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
            crfp_annset *set = crfp_doc_annset_at(doc, s);
            if (wanted(w, set))
                k = put_processors(w, set, k);
        }
    }
    puts_(w, "</GateDocumentFeatures>\n<TextWithNodes>");
    size_t len;
    const char *text = crfp_doc_text(doc, &len);
    size_t at = 0;
    for (size_t i = 0; i < w->noffs; i++) {
        put_esc(w, text + at, w->bytes[i] - at, 0);
        at = w->bytes[i];
        char node[48];
        snprintf(node, sizeof node, "<Node id=\"%zu\"/>", w->u16[i]);
        puts_(w, node);
    }
    put_esc(w, text + at, len - at, 0);
    puts_(w, "</TextWithNodes>\n");
    /* The sets in the document's order (GATE puts its default set first,
     * and so do crfpipe's readers and tokenizers; GATE reads them in any
     * order, and keeping the document's lets gate_reader give the same
     * document back). */
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
        crfp_annset *set = crfp_doc_annset_at(doc, s);
        const char *name = crfp_annset_name(set);
        if (!wanted(w, set))
            continue;
        if (*name == '\0') {
            puts_(w, "<AnnotationSet>\n");
        } else {
            puts_(w, "<AnnotationSet Name=\"");
            put_esc(w, name, strlen(name), 1);
            puts_(w, "\">\n");
        }
        for (size_t i = 0; i < crfp_annset_size(set); i++) {
            const crfp_ann *a = crfp_annset_get(set, i);
            char buf[160];
            puts_(w, "<Annotation Id=\"");
            snprintf(buf, sizeof buf, "%" PRIu64, a->id);
            puts_(w, buf);
            puts_(w, "\" Type=\"");
            put_esc(w, a->type, strlen(a->type), 1);
            snprintf(buf, sizeof buf, "\" StartNode=\"%zu\" EndNode=\"%zu\">\n",
                     w->u16[find_off(w, a->start)], w->u16[find_off(w, a->end)]);
            puts_(w, buf);
            for (size_t f = 0; f < a->nfeats; f++)
                put_feature(w, a->feats[f].name, &a->feats[f].value, docid);
            puts_(w, "</Annotation>\n");
        }
        puts_(w, "</AnnotationSet>\n");
    }
    puts_(w, "</GateDocument>\n");
    if (w->o.oom)
        return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory writing document '%s'",
                          w->out->name, docid);
    if (fwrite(w->o.buf, 1, w->o.len, w->out->fp) != w->o.len)
        return crfp_error(w->host, CRFP_EIO, "%s: write error: %s", w->out->name,
                          strerror(errno));
    return CRFP_OK;
}

static crfp_status gw_finish(void *state)
{
    gwriter *w = state;
    if (fflush(w->out->fp) != 0 || ferror(w->out->fp))
        return crfp_error(w->host, CRFP_EIO, "%s: write error: %s", w->out->name,
                          strerror(errno));
    return CRFP_OK;
}

static void gw_close(void *state)
{
    gwriter *w = state;
    if (!w)
        return;
    names_free(w->sets);
    xmlout_free(&w->o);
    free(w->offs);
    free(w->u16);
    free(w->bytes);
    free(w);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = gw_open,
    .write = gw_write,
    .finish = gw_finish,
    .close = gw_close,
};

static const char *const formats[] = {"gate", NULL};
static const char *const extensions[] = {".gate.xml", NULL};

CRFP_PLUGIN_DEFINE(gate_writer) = {
    CRFP_PLUGIN_ABI,
    .name = "gate_writer",
    .kind = CRFP_KIND_WRITER,
    .version = "1.0",
    .description = "GATE XML documents (GateDocument version 3), one per file",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
