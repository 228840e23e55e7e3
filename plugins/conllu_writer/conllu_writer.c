/* conllu_writer — documents to CoNLL-U.
 *
 * Per sentence: its comment lines, then Tokens, MultiWordTokens and
 * EmptyNodes in ID order (a range "a-b" just before word a, an empty node
 * "a.k" after word a), each line the ten columns id form lemma upos xpos
 * feats head deprel deps misc taken from the annotation's features.  The
 * layout recorded by conllu_reader (Sentence "before" and "comments", meta
 * header/trailer/final-newline/newline) is replayed, so reading and writing
 * reproduces a file byte for byte.
 */
#include "config.h"
#include "../conll_writer/colwalk.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const crfp_param_spec params[] = {
    {"map", CRFP_PARAM_STRING, "",
     "comma-separated COLUMN:FEATURE pairs taking a column from another feature, "
     "e.g. upos:predicted"},
    {"strict", CRFP_PARAM_BOOL, "false",
     "an annotation lacking a column's feature is an error instead of '_'"},
    {"annset", CRFP_PARAM_STRING, "", "annotation set holding the sentences and tokens"},
};

#define NCOL 10
static const char *const colname[NCOL] = {"id",   "form", "lemma",  "upos", "xpos",
                                          "feats", "head", "deprel", "deps", "misc"};

typedef struct writer {
    crfp_host *host;
    crfp_stream *out;
    const char *annset;
    int strict;
    char *feat[NCOL];   /* feature that feeds each column */
    unsigned long ndocs;
} writer;

/* One line to write and where it goes in ID order. */
typedef struct line {
    const crfp_ann *a;
    unsigned long word, rank, sub;  /* (a, 0, 0) range, (n, 1, 0) word, (a, 2, k) empty */
    unsigned long autoid;           /* for Tokens without an id feature */
} line;

static int line_cmp(const void *x, const void *y)
{
    const line *a = x, *b = y;
    if (a->word != b->word)
        return a->word < b->word ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->sub < b->sub ? -1 : a->sub > b->sub;
}

static int parse_ulong(const char *s, const char *end, unsigned long *v)
{
    if (s == end || end - s > 9)
        return -1;
    *v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        *v = *v * 10 + (unsigned long)(*s - '0');
    }
    return 0;
}

/* Sort key from the id feature: "a-b", "a.k" or "n". */
static crfp_status line_key(writer *w, const char *where, line *l, int kind)
{
    const char *id = crfp_ann_str(l->a, "id");
    if (!id) {
        if (kind != 1)
            return crfp_error(w->host, CRFP_EINVAL, "%s: %s %" PRIu64 " has no string 'id'",
                              where, l->a->type, l->a->id);
        l->word = l->autoid;
        l->rank = 1;
        return CRFP_OK;
    }
    const char *end = id + strlen(id);
    const char *sep = kind == 0 ? strchr(id, '-') : kind == 2 ? strchr(id, '.') : end;
    unsigned long sub = 0;
    if (!sep || parse_ulong(id, sep, &l->word) != 0 ||
        (kind != 1 && parse_ulong(sep + 1, end, &sub) != 0))
        return crfp_error(w->host, CRFP_EINVAL, "%s: %s %" PRIu64 ": bad id '%s'", where,
                          l->a->type, l->a->id, id);
    l->rank = (unsigned long)kind;
    l->sub = kind == 2 ? sub : 0;
    return CRFP_OK;
}

static crfp_status write_line(writer *w, const crfp_doc *doc, const line *l, const char *eol,
                              const char *where)
{
    FILE *fp = w->out->fp;
    for (size_t k = 0; k < NCOL; k++) {
        /* Only Tokens take mapped columns: ranges and empty nodes keep
         * their own annotation. */
        const char *fname = strcmp(l->a->type, "Token") == 0 && w->feat[k] ? w->feat[k]
                                                                            : colname[k];
        const crfp_value *v = crfp_ann_get(l->a, fname);
        char tmp[64], *span = NULL;
        const char *text;
        if (v) {
            if (!(text = colwalk_value_text(v, tmp, sizeof tmp)))
                return crfp_error(w->host, CRFP_EINVAL, "%s: %s %" PRIu64
                                  ": feature '%s' is a list", where, l->a->type, l->a->id,
                                  fname);
        } else if (k == 0) {
            snprintf(tmp, sizeof tmp, "%lu", l->autoid);
            text = tmp;
        } else if (k == 1) {
            if (!(span = colwalk_span_text(doc, l->a)))
                return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
            text = span;
        } else if (w->strict) {
            return crfp_error(w->host, CRFP_EINVAL, "%s: %s %" PRIu64
                              " [%zu, %zu) has no feature '%s' (strict)", where, l->a->type,
                              l->a->id, l->a->start, l->a->end, fname);
        } else {
            text = "_";
        }
        int ok = *text && !strpbrk(text, "\t\n\r");
        if (!ok) {
            crfp_status st = crfp_error(w->host, CRFP_EINVAL, "%s: %s %" PRIu64
                                        ": %s = '%s' is empty or holds a tab or line break",
                                        where, l->a->type, l->a->id, fname, text);
            free(span);
            return st;
        }
        if (k)
            fputc('\t', fp);
        fputs(text, fp);
        free(span);
    }
    fputs(eol, fp);
    return CRFP_OK;
}

static crfp_status write_sentence(writer *w, const crfp_doc *doc, const crfp_ann *sent,
                                  const colgroup g[3], size_t i, line **buf, size_t *cap,
                                  int crlf, const char *eol, int last_nl, const char *where)
{
    size_t n = 0;
    for (int kind = 0; kind < 3; kind++)
        n += g[kind].first[i + 1] - g[kind].first[i];
    if (n > *cap) {
        line *p = realloc(*buf, n * sizeof *p);
        if (!p)
            return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
        *buf = p;
        *cap = n;
    }
    line *ls = *buf;
    size_t m = 0;
    crfp_status st;
    for (int kind = 0; kind < 3; kind++) {
        unsigned long ntok = 0;
        for (size_t j = g[kind].first[i]; j < g[kind].first[i + 1]; j++) {
            line *l = &ls[m++];
            memset(l, 0, sizeof *l);
            l->a = g[kind].anns[j];
            l->autoid = ++ntok;
            if ((st = line_key(w, where, l, kind)) != CRFP_OK)
                return st;
        }
    }
    qsort(ls, m, sizeof *ls, line_cmp);
    FILE *fp = w->out->fp;
    const char *comments = sent ? crfp_ann_str(sent, "comments") : NULL;
    if (comments) {
        colwalk_put_raw(fp, comments, crlf);
        fputs(eol, fp);
    } else if (sent) {
        const char *keys[] = {"sent_id", "text"};
        for (size_t k = 0; k < 2; k++) {
            const char *v = crfp_ann_str(sent, keys[k]);
            if (v && !strpbrk(v, "\n\r"))
                fprintf(fp, "# %s = %s%s", keys[k], v, eol);
        }
    }
    for (size_t j = 0; j < m; j++)
        if ((st = write_line(w, doc, &ls[j], j + 1 == m && !last_nl ? "" : eol, where)) !=
            CRFP_OK)
            return st;
    return CRFP_OK;
}

static crfp_status w_write(void *state, const crfp_doc *doc)
{
    writer *w = state;
    crfp_host *host = w->host;
    char where[256];
    const char *id = crfp_doc_id(doc);
    w->ndocs++;
    snprintf(where, sizeof where, "%s: document %lu%s%s%s", w->out->name, w->ndocs,
             id ? " (" : "", id ? id : "", id ? ")" : "");
    const char *nl_meta = crfp_doc_meta_str(doc, "newline");
    int crlf = nl_meta && strcmp(nl_meta, "crlf") == 0;
    const char *eol = crlf ? "\r\n" : "\n";
    const char *header = crfp_doc_meta_str(doc, "header");
    const char *trailer = crfp_doc_meta_str(doc, "trailer");
    if (!trailer)
        trailer = "\n";
    const char *fnl = crfp_doc_meta_str(doc, "final-newline");
    int no_final_nl = fnl && strcmp(fnl, "false") == 0 && !*trailer;

    const crfp_annset *set = colwalk_annset(doc, w->annset);
    static const char *const types[3] = {"MultiWordToken", "Token", "EmptyNode"};
    colwalk wk;
    colgroup g[3] = {{0}};
    crfp_status st = colwalk_init(host, doc, set, &wk);
    if (st != CRFP_OK)
        return st;
    for (int k = 0; k < 3 && st == CRFP_OK; k++)
        st = colgroup_init(host, where, set, types[k], &wk, &g[k]);
    line *buf = NULL;
    size_t cap = 0, last = wk.nsents;
    for (size_t i = 0; i < wk.nsents; i++)
        if (st == CRFP_OK && g[1].first[i + 1] > g[1].first[i])
            last = i;
    FILE *fp = w->out->fp;
    if (st == CRFP_OK && header)
        colwalk_put_raw(fp, header, crlf);
    int written = 0;
    for (size_t i = 0; i < wk.nsents && st == CRFP_OK; i++) {
        if (g[1].first[i + 1] == g[1].first[i])
            continue;
        const crfp_ann *sent = wk.sents[i];
        const char *before = sent ? crfp_ann_str(sent, "before") : NULL;
        colwalk_put_raw(fp, before ? before : written ? "\n" : "", crlf);
        written = 1;
        st = write_sentence(w, doc, sent, g, i, &buf, &cap, crlf, eol,
                            !(no_final_nl && i == last), where);
    }
    if (st == CRFP_OK)
        colwalk_put_raw(fp, trailer, crlf);
    if (st == CRFP_OK && ferror(fp))
        st = crfp_error(host, CRFP_EIO, "%s: write error: %s", where, strerror(errno));
    free(buf);
    for (int k = 0; k < 3; k++)
        colgroup_free(&g[k]);
    colwalk_free(&wk);
    return st;
}

static void w_close(void *state)
{
    writer *w = state;
    if (!w)
        return;
    for (size_t k = 0; k < NCOL; k++)
        free(w->feat[k]);
    free(w);
}

static crfp_status parse_map(writer *w, const char *map)
{
    for (const char *p = map; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        size_t k = NCOL;
        if (colon)
            for (k = 0; k < NCOL; k++)
                if (strlen(colname[k]) == (size_t)(colon - p) &&
                    strncmp(colname[k], p, (size_t)(colon - p)) == 0)
                    break;
        if (k == NCOL || colon + 1 == p + len)
            return crfp_error(w->host, CRFP_EINVAL,
                              "conllu_writer: map='%s': '%.*s' is not COLUMN:FEATURE with a "
                              "CoNLL-U column", map, (int)len, p);
        free(w->feat[k]);
        if (!(w->feat[k] = strndup(colon + 1, (size_t)(p + len - colon - 1))))
            return crfp_error(w->host, CRFP_ENOMEM, "out of memory");
        p = e ? e + 1 : NULL;
    }
    return CRFP_OK;
}

static crfp_status w_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    writer *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", out->name);
    w->host = host;
    w->out = out;
    w->annset = crfp_params_str(p, "annset");
    if (!w->annset)
        w->annset = "";
    w->strict = crfp_params_bool(p, "strict");
    crfp_status st = parse_map(w, crfp_params_str(p, "map"));
    if (st != CRFP_OK) {
        w_close(w);
        return st;
    }
    *state = w;
    return CRFP_OK;
}

static crfp_status w_finish(void *state)
{
    writer *w = state;
    if (fflush(w->out->fp) != 0 || ferror(w->out->fp))
        return crfp_error(w->host, CRFP_EIO, "%s: write error: %s", w->out->name,
                          strerror(errno));
    return CRFP_OK;
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = w_open,
    .write = w_write,
    .finish = w_finish,
    .close = w_close,
};

static const char *const formats[] = {"conllu", NULL};
static const char *const extensions[] = {".conllu", NULL};

CRFP_PLUGIN_DEFINE(conllu_writer) = {
    CRFP_PLUGIN_ABI,
    .name = "conllu_writer",
    .kind = CRFP_KIND_WRITER,
    .version = PACKAGE_VERSION,
    .description = "CoNLL-U; reproduces conllu_reader input byte for byte",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
