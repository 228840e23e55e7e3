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
#include <stdint.h>
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
    /* Per document, reused: the interned column names and, per cell, the
     * text found by the scan when it is a string of the document (NULL:
     * look again when writing). */
    const char **inames;
    size_t capinames;
    const char **cells;
    size_t capcells;
    uint32_t *lens;      /* strlen of each cached cell */
    size_t caplens;
    /* Output goes through this buffer, not one stdio call per cell. */
    unsigned char badch[256]; /* bytes a cell cannot hold as they are; NUL too */
    char obuf[1 << 16];
    size_t olen;
    int oerr;
} writer;

static void out_flush(writer *w)
{
    if (w->olen && fwrite(w->obuf, 1, w->olen, w->out->fp) != w->olen)
        w->oerr = 1;
    w->olen = 0;
}

static void out_put(writer *w, const char *s, size_t n)
{
    if (w->olen + n > sizeof w->obuf) {
        out_flush(w);
        if (n > sizeof w->obuf) {
            if (fwrite(s, 1, n, w->out->fp) != n)
                w->oerr = 1;
            return;
        }
    }
    memcpy(w->obuf + w->olen, s, n);
    w->olen += n;
}

static void out_str(writer *w, const char *s)
{
    out_put(w, s, strlen(s));
}

/* s with each "\n" written as "\r\n" when crlf (the layout strings the
 * reader recorded). */
static void out_raw(writer *w, const char *s, int crlf)
{
    if (!crlf) {
        out_str(w, s);
        return;
    }
    for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1) {
        out_put(w, s, (size_t)(nl - s));
        out_put(w, "\r\n", 2);
    }
    out_str(w, s);
}

static int grow_array(void **p, size_t *cap, size_t need, size_t elsize)
{
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elsize);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

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
                             const char *name, const char *iname, char *tmp, size_t tmpsz,
                             char **own, const char **text, const char *where)
{
    /* iname: the document's copy of the name, NULL when no feature of the
     * document has it (feature names are interned, so a pointer test finds
     * the feature). */
    const crfp_value *v = NULL;
    for (size_t i = 0; iname && i < tok->nfeats; i++)
        if (tok->feats[i].name == iname) {
            v = &tok->feats[i].value;
            break;
        }
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

/* The usual line: every column kept and found by the scan, nothing to
 * escape, the default spacing.  Copied straight into the output buffer;
 * 0 when the line is not of that kind. */
static int write_plain(writer *w, const crfp_ann *tok, const char *const *cells,
                       const uint32_t *lens, size_t n, char sep, const char *iseps,
                       const char *eol, size_t eollen)
{
    size_t need = eollen + n;
    for (size_t k = 0; k < n; k++) {
        if (!cells[k])
            return 0;
        need += lens[k];
    }
    for (size_t i = 0; iseps && i < tok->nfeats; i++)
        if (tok->feats[i].name == iseps)
            return 0;
    if (w->olen + need > sizeof w->obuf) {
        out_flush(w);
        if (need > sizeof w->obuf)
            return 0;
    }
    char *o = w->obuf + w->olen;
    for (size_t k = 0; k < n; k++) {
        if (k)
            *o++ = sep;
        memcpy(o, cells[k], lens[k]);
        o += lens[k];
    }
    memcpy(o, eol, eollen);
    w->olen = (size_t)(o + eollen - w->obuf);
    return 1;
}

/* keep[k]: column k is written (the others were dropped as unrepresentable);
 * bad[k]: column k holds cells to escape.  cells: what the scan found. */
static crfp_status write_token(writer *w, const crfp_doc *doc, const crfp_ann *tok,
                               const colnames *cols, const unsigned char *keep,
                               const unsigned char *bad, const char *const *cells,
                               const uint32_t *lens, const char *iseps, int tab,
                               const char *where)
{
    const char *seps = NULL;
    for (size_t i = 0; iseps && i < tok->nfeats; i++)
        if (tok->feats[i].name == iseps && tok->feats[i].value.type == CRFP_V_STRING)
            seps = tok->feats[i].value.u.s;
    if (seps && count_runs(seps) != cols->n + 1)
        seps = NULL;
    size_t rl;
    const char *run;
    if (seps && (run = seps_run(seps, 0, &rl)))
        out_put(w, run, rl);
    unsigned fl = tab ? 0 : COLWALK_NO_SPACE;
    int first = 1;
    for (size_t k = 0; k < cols->n; k++) {
        if (!keep[k])
            continue;
        if (!first) {
            if (seps && (run = seps_run(seps, k, &rl)))
                out_put(w, run, rl);
            else
                out_put(w, tab ? "\t" : " ", 1);
        }
        first = 0;
        char tmp[64], *own = NULL, *esc = NULL;
        const char *text = cells[k];
        if (text && !bad[k]) {
            out_put(w, text, lens[k]);
            continue;
        }
        if (!text) {
            crfp_status st = cell_text(w, doc, tok, cols->names[k], w->inames[k], tmp,
                                       sizeof tmp, &own, &text, where);
            if (st != CRFP_OK)
                return st;
        }
        if (bad[k] && !colwalk_cell_ok(text, fl) && !(text = esc = colwalk_escape(text, fl))) {
            free(own);
            return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
        }
        out_str(w, text);
        free(esc);
        free(own);
    }
    if (seps && (run = seps_run(seps, cols->n, &rl)))
        out_put(w, run, rl);
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
                            unsigned char *keep, unsigned char *badcol, const char *where)
{
    unsigned fl = tab ? 0 : COLWALK_NO_SPACE;
    crfp_status st = CRFP_OK;
    size_t s = 0, nc = cols->n;
    /* The common case first, token by token: every cell a string feature
     * that can be written as it is.  Its text and length are kept for the
     * writing pass; a column with any other cell (missing, not a string,
     * to be escaped) is looked at again below, column by column, for the
     * messages and the policy. */
    unsigned char *slow = badcol;
    memset(slow, 0, nc);
    for (size_t t = 0; t < toks->n; t++) {
        const crfp_ann *tok = toks->anns[t];
        for (size_t k = 0; k < nc; k++) {
            const char *in = w->inames[k], *text = NULL;
            const crfp_feature *f = k < tok->nfeats && tok->feats[k].name == in ? &tok->feats[k]
                                                                               : NULL;
            for (size_t i = 0; !f && in && i < tok->nfeats; i++)
                if (tok->feats[i].name == in)
                    f = &tok->feats[i];
            if (f && f->value.type == CRFP_V_STRING)
                text = f->value.u.s;
            w->cells[t * nc + k] = text;
            if (!text) {
                slow[k] = 1;
                continue;
            }
            const unsigned char *p = (const unsigned char *)text;
            while (!w->badch[*p])
                p++;
            if (*p || p == (const unsigned char *)text)
                slow[k] = 1;
            w->lens[t * nc + k] = (uint32_t)(p - (const unsigned char *)text);
            if ((size_t)(p - (const unsigned char *)text) > UINT32_MAX - 1)
                slow[k] = 1;
        }
    }
    for (size_t k = 0; k < nc && st == CRFP_OK; k++) {
        keep[k] = !was_dropped(w, cols->names[k]);
        if (!slow[k])
            continue;
        size_t nbad = 0;
        char *first = NULL;
        for (size_t t = 0; t < toks->n && st == CRFP_OK; t++) {
            const crfp_ann *tok = toks->anns[t];
            char tmp[64], *own;
            const char *text;
            if ((st = cell_text(w, doc, tok, cols->names[k], w->inames[k], tmp, sizeof tmp, &own,
                                &text, where)) != CRFP_OK)
                break;
            w->cells[t * cols->n + k] = own || text == tmp ? NULL : text;
            if (w->cells[t * cols->n + k])
                w->lens[t * cols->n + k] = (uint32_t)strlen(text);
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
        /* from here on badcol[k] (alias slow[k]) means: has cells to escape */
        badcol[k] = nbad != 0;
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
    unsigned char *keep = malloc(2 * cols.n + 1), *bad = keep ? keep + cols.n : NULL;
    size_t ncells = toks.n * cols.n + 1;
    if (!keep || (cols.n > w->capinames &&
                  grow_array((void **)&w->inames, &w->capinames, cols.n, sizeof *w->inames)) ||
        (ncells > w->capcells &&
         grow_array((void **)&w->cells, &w->capcells, ncells, sizeof *w->cells)) ||
        (ncells > w->caplens &&
         grow_array((void **)&w->lens, &w->caplens, ncells, sizeof *w->lens))) {
        st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory", where);
    } else {
        for (size_t k = 0; k < cols.n; k++)
            w->inames[k] = crfp_doc_name(doc, cols.names[k]);
        w->badch[' '] = !tab;
        st = scan_doc(w, doc, &wk, &toks, &cols, tab, keep, bad, where);
    }
    const char *iseps = same_cols && !w->ndropped ? crfp_doc_name(doc, "seps") : NULL;
    int plain = st == CRFP_OK;
    for (size_t k = 0; plain && k < cols.n; k++)
        plain = keep[k] && !bad[k];
    if (st == CRFP_OK && header)
        out_raw(w, header, crlf);
    int written = 0;
    for (size_t i = 0; i < wk.nsents && st == CRFP_OK; i++) {
        size_t a = toks.first[i], b = toks.first[i + 1];
        if (a == b)
            continue;
        const char *before = wk.sents[i] ? crfp_ann_str(wk.sents[i], "before") : NULL;
        out_raw(w, before ? before : written ? "\n" : "", crlf);
        written = 1;
        for (size_t t = a; t < b && st == CRFP_OK; t++) {
            int last = no_final_nl && t + 1 == toks.n;
            if (plain && !last &&
                write_plain(w, toks.anns[t], w->cells + t * cols.n, w->lens + t * cols.n, cols.n,
                            tab ? '\t' : ' ', iseps, eol, strlen(eol)))
                continue;
            st = write_token(w, doc, toks.anns[t], &cols, keep, bad, w->cells + t * cols.n,
                             w->lens + t * cols.n, iseps, tab, where);
            if (!(no_final_nl && t + 1 == toks.n))
                out_str(w, eol);
        }
    }
    if (st == CRFP_OK)
        out_raw(w, trailer, crlf);
    out_flush(w);
    if (st == CRFP_OK && (w->oerr || ferror(w->out->fp)))
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
    /* NUL ends the scan; a space is checked per document (tab files hold
     * spaces), so it is only in the table when no tab can be chosen. */
    w->badch[0] = w->badch['\t'] = w->badch['\n'] = w->badch['\r'] = 1;
    w->badch[' '] = 1;
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
    free(w->inames);
    free(w->cells);
    free(w->lens);
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
