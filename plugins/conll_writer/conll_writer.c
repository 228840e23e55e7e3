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
    {"unrepresentable", CRFP_PARAM_STRING, "escape",
     "a value a column cannot hold (empty, line break, tab, or space when space-separated): "
     "escape (\\s \\t \\n \\r \\\\ as in UD's MISC, '_' for empty), drop (leave the "
     "column out) or error; decided before the document is written, one warning per column"},
};

typedef struct writer {
    crfp_host *host;
    crfp_stream *out;
    const char *columns, *annset;
    int sepmode; /* 0 auto, 1 space, 2 tab */
    int strict;
    int policy;          /* COLWALK_ESCAPE, DROP or ERROR */
    unsigned long ndocs;
    char **dropped;      /* columns left out of every document */
    size_t ndropped;
    char **warned;       /* columns already warned about */
    size_t nwarned;
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

/* The text of column k of a Token: its feature, the covered text for
 * "word", else '_' (or an error when strict).  *own receives a malloc'd
 * string the caller frees, or NULL. */
static crfp_status cell_text(writer *w, const crfp_doc *doc, const crfp_ann *tok,
                             const char *name, char *tmp, size_t tmpsz, char **own,
                             const char **text, const char *where)
{
    const crfp_value *v = crfp_ann_get(tok, name);
    *own = NULL;
    if (v) {
        if (!(*text = colwalk_value_text(v, tmp, tmpsz)))
            return crfp_error(w->host, CRFP_EINVAL,
                              "%s: Token %" PRIu64 ": feature '%s' is a list, which a "
                              "column cannot hold", where, tok->id, name);
    } else if (strcmp(name, "word") == 0) {
        if (!(*own = colwalk_span_text(doc, tok)))
            return crfp_error(w->host, CRFP_EINVAL, "%s: Token %" PRIu64
                              ": cannot take its text [%zu, %zu)", where, tok->id,
                              tok->start, tok->end);
        *text = *own;
    } else if (w->strict) {
        return crfp_error(w->host, CRFP_EINVAL,
                          "%s: Token %" PRIu64 " [%zu, %zu) has no feature '%s' (strict)",
                          where, tok->id, tok->start, tok->end, name);
    } else {
        *text = "_";
    }
    return CRFP_OK;
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

/* keep[k]: column k is written (the others were dropped as unrepresentable). */
static crfp_status write_token(writer *w, const crfp_doc *doc, const crfp_ann *tok,
                               const colnames *cols, const unsigned char *keep, int same_cols,
                               int tab, const char *where)
{
    FILE *fp = w->out->fp;
    const char *seps = same_cols ? crfp_ann_str(tok, "seps") : NULL;
    if (seps && count_runs(seps) != cols->n + 1)
        seps = NULL;
    size_t rl;
    const char *run;
    if (seps && (run = seps_run(seps, 0, &rl)))
        fwrite(run, 1, rl, fp);
    unsigned fl = tab ? 0 : COLWALK_NO_SPACE;
    int first = 1;
    for (size_t k = 0; k < cols->n; k++) {
        if (!keep[k])
            continue;
        if (!first) {
            if (seps && (run = seps_run(seps, k, &rl)))
                fwrite(run, 1, rl, fp);
            else
                fputc(tab ? '\t' : ' ', fp);
        }
        first = 0;
        char tmp[64], *own, *esc = NULL;
        const char *text;
        crfp_status st = cell_text(w, doc, tok, cols->names[k], tmp, sizeof tmp, &own, &text,
                                   where);
        if (st != CRFP_OK)
            return st;
        if (!colwalk_cell_ok(text, fl) && !(text = esc = colwalk_escape(text, fl))) {
            free(own);
            return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
        }
        fputs(text, fp);
        free(esc);
        free(own);
    }
    if (seps && (run = seps_run(seps, cols->n, &rl)))
        fwrite(run, 1, rl, fp);
    return CRFP_OK;
}

/* 1 when a warning about column `name` was already printed; else records
 * it and returns 0 (also when out of memory: one warning too many is
 * harmless). */
static int note_warned(writer *w, const char *name)
{
    for (size_t i = 0; i < w->nwarned; i++)
        if (strcmp(w->warned[i], name) == 0)
            return 1;
    char **d = realloc(w->warned, (w->nwarned + 1) * sizeof *d);
    if (!d)
        return 0;
    w->warned = d;
    if ((d[w->nwarned] = strdup(name)))
        w->nwarned++;
    return 0;
}

static int was_dropped(const writer *w, const char *name)
{
    for (size_t i = 0; i < w->ndropped; i++)
        if (strcmp(w->dropped[i], name) == 0)
            return 1;
    return 0;
}

static const char *why_bad(const char *s, int tab)
{
    if (!*s)
        return "is empty";
    if (strpbrk(s, "\n\r"))
        return "holds a line break";
    if (strchr(s, '\t'))
        return "holds a tab";
    return tab ? "holds a space" : "holds a space, the column separator";
}

/* Check every cell of the document before any is written; fill keep[]
 * (0 = column left out) under the writer's policy, warning once per column.
 * A column is dropped from every document once dropped from one, so the
 * file keeps one column count; one that must be dropped only after earlier
 * documents were written with it is an error. */
static crfp_status scan_doc(writer *w, const crfp_doc *doc, const colwalk *wk,
                            const colgroup *toks, const colnames *cols, int tab,
                            unsigned char *keep, const char *where)
{
    unsigned fl = tab ? 0 : COLWALK_NO_SPACE;
    crfp_status st = CRFP_OK;
    size_t s = 0;
    for (size_t k = 0; k < cols->n && st == CRFP_OK; k++) {
        keep[k] = !was_dropped(w, cols->names[k]);
        size_t nbad = 0;
        char *first = NULL;
        for (size_t t = 0; t < toks->n && st == CRFP_OK; t++) {
            const crfp_ann *tok = toks->anns[t];
            char tmp[64], *own;
            const char *text;
            if ((st = cell_text(w, doc, tok, cols->names[k], tmp, sizeof tmp, &own, &text,
                                where)) != CRFP_OK)
                break;
            if (!colwalk_cell_ok(text, fl) && nbad++ == 0) {
                /* sentence and word number of the first offender */
                for (s = 0; s + 1 < wk->nsents && toks->first[s + 1] <= t; s++)
                    ;
                const char *sid = wk->sents[s] ? crfp_ann_str(wk->sents[s], "sent_id") : NULL;
                size_t need = strlen(where) + strlen(text) + strlen(cols->names[k]) +
                              (sid ? strlen(sid) : 0) + 160;
                if ((first = malloc(need)))
                    snprintf(first, need, "%s, sentence %zu%s%s%s, word %zu: feature '%s' = "
                             "'%s' %s", where, s + 1, sid ? " (sent_id " : "", sid ? sid : "",
                             sid ? ")" : "", t - toks->first[s] + 1, cols->names[k], text,
                             why_bad(text, tab));
                else
                    st = crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
            }
            free(own);
        }
        if (st == CRFP_OK && nbad && keep[k]) {
            if (w->policy == COLWALK_ERROR) {
                st = crfp_error(w->host, CRFP_EINVAL, "%s (%zu such cells; writer parameter "
                                "unrepresentable=escape or drop)", first, nbad);
            } else if (w->policy == COLWALK_DROP && w->ndocs > 1) {
                st = crfp_error(w->host, CRFP_EINVAL, "%s: cannot leave the column out now that "
                                "earlier documents were written with it (writer parameter "
                                "unrepresentable=escape)", first);
            } else if (w->policy == COLWALK_DROP) {
                char **d = realloc(w->dropped, (w->ndropped + 1) * sizeof *d);
                if (!d || !(d[w->ndropped] = strdup(cols->names[k]))) {
                    if (d)
                        w->dropped = d;
                    st = crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
                } else {
                    w->dropped = d;
                    w->ndropped++;
                    keep[k] = 0;
                    crfp_log(w->host, CRFP_LOG_WARN, "%s: column '%s' left out of the output "
                             "(%zu such cell%s; writer parameter unrepresentable=escape keeps "
                             "it escaped)", first, cols->names[k], nbad, nbad == 1 ? "" : "s");
                }
            } else if (!was_dropped(w, cols->names[k]) && !note_warned(w, cols->names[k])) {
                crfp_log(w->host, CRFP_LOG_WARN, "%s: escaped (\\s space, \\t tab, \\n \\r line "
                         "breaks, \\\\ backslash, '_' for empty) in %zu cell%s of this document "
                         "(writer parameter unrepresentable=drop leaves the column out, =error "
                         "stops)", first, nbad, nbad == 1 ? "" : "s");
            }
        }
        free(first);
    }
    return st;
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
    unsigned char *keep = malloc(cols.n + 1);
    if (!keep)
        st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory", where);
    else
        st = scan_doc(w, doc, &wk, &toks, &cols, tab, keep, where);
    FILE *fp = w->out->fp;
    if (st == CRFP_OK && header)
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
            st = write_token(w, doc, toks.anns[t], &cols, keep, same_cols && !w->ndropped,
                             tab, where);
            if (!(no_final_nl && t + 1 == toks.n))
                fputs(eol, fp);
        }
    }
    if (st == CRFP_OK)
        colwalk_put_raw(fp, trailer, crlf);
    if (st == CRFP_OK && ferror(fp))
        st = crfp_error(host, CRFP_EIO, "%s: write error: %s", where, strerror(errno));
    free(keep);
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
    if ((w->policy = colwalk_policy(crfp_params_str(p, "unrepresentable"))) < 0) {
        crfp_status st = crfp_error(host, CRFP_EINVAL, "conll_writer: unrepresentable='%s': "
                                    "expected escape, drop or error",
                                    crfp_params_str(p, "unrepresentable"));
        free(w);
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

static void w_close(void *state)
{
    writer *w = state;
    if (!w)
        return;
    for (size_t i = 0; i < w->ndropped; i++)
        free(w->dropped[i]);
    for (size_t i = 0; i < w->nwarned; i++)
        free(w->warned[i]);
    free(w->dropped);
    free(w->warned);
    free(w);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = w_open,
    .write = w_write,
    .finish = w_finish,
    .close = w_close,
};

static const char *const formats[] = {"conll", NULL};
static const char *const extensions[] = {".conll", NULL};

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
