/* conll_writer — documents to CoNLL-2000/2003 column files.
 *
 * One line per Token (its features in column order), a blank line between
 * sentences.  When the document came from conll_reader, the layout it
 * recorded (meta header/trailer/separator/final-newline/newline, Sentence
 * "before", Token "seps") is replayed so that the input comes out byte for
 * byte; documents from elsewhere get the plain layout: no header, one blank
 * line after each sentence.
 */
#include "config.h"
#include "colwalk.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const crfp_param_spec params[] = {
    {"columns", CRFP_PARAM_STRING, "",
     "comma-separated Token features to write, in order (default: the document's "
     "'columns' meta), e.g. word,pos,chunk,predicted"},
    {"separator", CRFP_PARAM_STRING, "auto",
     "auto (as recorded by the reader, else space), space or tab"},
    {"strict", CRFP_PARAM_BOOL, "false",
     "a Token lacking a column's feature is an error instead of '_'"},
    {"annset", CRFP_PARAM_STRING, "", "annotation set holding Sentence and Token"},
};

typedef struct writer {
    crfp_host *host;
    crfp_stream *out;
    const char *columns, *annset;
    int sepmode; /* 0 auto, 1 space, 2 tab */
    int strict;
    unsigned long ndocs;
} writer;

typedef struct colnames {
    char **names;
    size_t n;
} colnames;

static void names_free(colnames *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->names[i]);
    free(c->names);
    c->names = NULL;
    c->n = 0;
}

static crfp_status names_parse(crfp_host *host, const char *where, const char *spec,
                               colnames *c)
{
    size_t cap = 1;
    for (const char *p = spec; *p; p++)
        cap += *p == ',';
    c->names = calloc(cap, sizeof *c->names);
    c->n = 0;
    if (!c->names)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", where);
    for (const char *p = spec;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0) {
            names_free(c);
            return crfp_error(host, CRFP_EINVAL, "%s: column list '%s' has an empty name",
                              where, spec);
        }
        if (!(c->names[c->n++] = strndup(p, len))) {
            names_free(c);
            return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", where);
        }
        if (!e)
            break;
        p = e + 1;
    }
    return CRFP_OK;
}

/* A cell must survive being read back: not empty, no line break, and no
 * character the reader would take for a separator. */
static int cell_ok(const char *s, int tab)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s == '\n' || *s == '\r' || *s == '\t' || (!tab && *s == ' '))
            return 0;
    return 1;
}

/* The i-th '|'-separated run of a Token's recorded "seps", or NULL. */
static const char *seps_run(const char *seps, size_t i, size_t *len)
{
    for (; i > 0; i--) {
        seps = strchr(seps, '|');
        if (!seps)
            return NULL;
        seps++;
    }
    const char *e = strchr(seps, '|');
    *len = e ? (size_t)(e - seps) : strlen(seps);
    return seps;
}

static size_t count_runs(const char *seps)
{
    size_t n = 1;
    for (; *seps; seps++)
        n += *seps == '|';
    return n;
}

static crfp_status write_token(writer *w, const crfp_doc *doc, const crfp_ann *tok,
                               const colnames *cols, int same_cols, int tab, const char *where)
{
    FILE *fp = w->out->fp;
    const char *seps = same_cols ? crfp_ann_str(tok, "seps") : NULL;
    if (seps && count_runs(seps) != cols->n + 1)
        seps = NULL;
    size_t rl;
    const char *run;
    if (seps && (run = seps_run(seps, 0, &rl)))
        fwrite(run, 1, rl, fp);
    for (size_t k = 0; k < cols->n; k++) {
        if (k) {
            if (seps && (run = seps_run(seps, k, &rl)))
                fwrite(run, 1, rl, fp);
            else
                fputc(tab ? '\t' : ' ', fp);
        }
        const crfp_value *v = crfp_ann_get(tok, cols->names[k]);
        char tmp[64], *span = NULL;
        const char *text;
        if (v) {
            text = colwalk_value_text(v, tmp, sizeof tmp);
            if (!text)
                return crfp_error(w->host, CRFP_EINVAL,
                                  "%s: Token %" PRIu64 ": feature '%s' is a list, which a "
                                  "column cannot hold", where, tok->id, cols->names[k]);
        } else if (strcmp(cols->names[k], "word") == 0) {
            if (!(span = colwalk_span_text(doc, tok)))
                return crfp_error(w->host, CRFP_EINVAL, "%s: Token %" PRIu64
                                  ": cannot take its text [%zu, %zu)", where, tok->id,
                                  tok->start, tok->end);
            text = span;
        } else if (w->strict) {
            return crfp_error(w->host, CRFP_EINVAL,
                              "%s: Token %" PRIu64 " [%zu, %zu) has no feature '%s' (strict)",
                              where, tok->id, tok->start, tok->end, cols->names[k]);
        } else {
            text = "_";
        }
        if (!cell_ok(text, tab)) {
            crfp_status st = crfp_error(w->host, CRFP_EINVAL,
                                        "%s: Token %" PRIu64 ": feature '%s' = '%s' is empty or "
                                        "holds a separator or line break",
                                        where, tok->id, cols->names[k], text);
            free(span);
            return st;
        }
        fputs(text, fp);
        free(span);
    }
    if (seps && (run = seps_run(seps, cols->n, &rl)))
        fwrite(run, 1, rl, fp);
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

    const char *meta_cols = crfp_doc_meta_str(doc, "columns");
    const char *spec = *w->columns ? w->columns : meta_cols;
    if (!spec || !*spec)
        return crfp_error(host, CRFP_EINVAL,
                          "%s: no 'columns' meta; set the writer's columns parameter", where);
    int same_cols = meta_cols && strcmp(spec, meta_cols) == 0;
    const char *msep = crfp_doc_meta_str(doc, "separator");
    int tab = w->sepmode == 2 || (w->sepmode == 0 && msep && strcmp(msep, "tab") == 0);
    const char *nl_meta = crfp_doc_meta_str(doc, "newline");
    int crlf = nl_meta && strcmp(nl_meta, "crlf") == 0;
    const char *header = crfp_doc_meta_str(doc, "header");
    const char *trailer = crfp_doc_meta_str(doc, "trailer");
    if (!trailer)
        trailer = "\n";
    const char *fnl = crfp_doc_meta_str(doc, "final-newline");
    int no_final_nl = fnl && strcmp(fnl, "false") == 0 && !*trailer;
    const char *eol = crlf ? "\r\n" : "\n";

    colnames cols = {0};
    colwalk wk;
    colgroup toks;
    crfp_status st = names_parse(host, where, spec, &cols);
    if (st != CRFP_OK)
        return st;
    const crfp_annset *set = colwalk_annset(doc, w->annset);
    if ((st = colwalk_init(host, doc, set, &wk)) != CRFP_OK) {
        names_free(&cols);
        return st;
    }
    if ((st = colgroup_init(host, where, set, "Token", &wk, &toks)) != CRFP_OK) {
        colwalk_free(&wk);
        names_free(&cols);
        return st;
    }
    FILE *fp = w->out->fp;
    if (header)
        colwalk_put_raw(fp, header, crlf);
    int written = 0;
    for (size_t i = 0; i < wk.nsents && st == CRFP_OK; i++) {
        size_t a = toks.first[i], b = toks.first[i + 1];
        if (a == b)
            continue;
        const char *before = wk.sents[i] ? crfp_ann_str(wk.sents[i], "before") : NULL;
        colwalk_put_raw(fp, before ? before : written ? "\n" : "", crlf);
        written = 1;
        for (size_t t = a; t < b && st == CRFP_OK; t++) {
            st = write_token(w, doc, toks.anns[t], &cols, same_cols, tab, where);
            if (!(no_final_nl && t + 1 == toks.n))
                fputs(eol, fp);
        }
    }
    if (st == CRFP_OK)
        colwalk_put_raw(fp, trailer, crlf);
    if (st == CRFP_OK && ferror(fp))
        st = crfp_error(host, CRFP_EIO, "%s: write error: %s", where, strerror(errno));
    colgroup_free(&toks);
    colwalk_free(&wk);
    names_free(&cols);
    return st;
}

static crfp_status w_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    const char *sep = crfp_params_str(p, "separator");
    int mode;
    if (!sep || strcmp(sep, "auto") == 0)
        mode = 0;
    else if (strcmp(sep, "space") == 0)
        mode = 1;
    else if (strcmp(sep, "tab") == 0)
        mode = 2;
    else
        return crfp_error(host, CRFP_EINVAL,
                          "conll_writer: separator='%s': expected auto, space or tab", sep);
    writer *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", out->name);
    w->host = host;
    w->out = out;
    w->columns = crfp_params_str(p, "columns");
    w->annset = crfp_params_str(p, "annset");
    if (!w->columns)
        w->columns = "";
    if (!w->annset)
        w->annset = "";
    w->sepmode = mode;
    w->strict = crfp_params_bool(p, "strict");
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

static void w_close(void *state)
{
    free(state);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = w_open,
    .write = w_write,
    .finish = w_finish,
    .close = w_close,
};

static const char *const formats[] = {"conll", NULL};
static const char *const extensions[] = {".conll", ".txt", ".bio", ".iob", NULL};

CRFP_PLUGIN_DEFINE(conll_writer) = {
    CRFP_PLUGIN_ABI,
    .name = "conll_writer",
    .kind = CRFP_KIND_WRITER,
    .version = PACKAGE_VERSION,
    .description = "CoNLL-2000/2003 column files; reproduces conll_reader input byte for byte",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
