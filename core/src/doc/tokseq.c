/* Sentences of a document as token tables (crfp_tokseq). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/tokseq.h"

struct crfp_sentbuf {
    /* Column names: those of the document's "columns" metadata, split when
     * it differs from the last one split, then extra feature names met in
     * the sentence.  The cache is keyed by the metadata's text, not by the
     * document's address: a document freed and the next one allocated at
     * the same place, with other columns, must not reuse the split. */
    char *metakey;             /* the metadata last split ("" for none); NULL: none yet */
    char *metacopy;
    size_t nmeta;
    /* crfp_sentbuf_read_as: the model's columns, and the split's names as
     * the model reads them (nalias == nmeta when any changed, else 0) */
    char *readas;
    char *aliascopy;
    const char **alias;
    size_t nalias, capalias;
    const char **cols;
    size_t ncols, capcols;
    const char **cells;
    size_t capcells;
    crfp_ann **toks;
    size_t captoks;
    crfp_tokseq seq;
};

crfp_sentbuf *crfp_sentbuf_new(void)
{
    return calloc(1, sizeof(crfp_sentbuf));
}

void crfp_sentbuf_free(crfp_sentbuf *b)
{
    if (!b)
        return;
    free(b->metakey);
    free(b->metacopy);
    free(b->readas);
    free(b->aliascopy);
    free(b->alias);
    free(b->cols);
    free(b->cells);
    free(b->toks);
    free(b);
}

static int grow(void **p, size_t *cap, size_t need, size_t elt)
{
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elt);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

static crfp_status split_meta(crfp_sentbuf *b, const crfp_doc *doc)
{
    const char *meta = crfp_doc_meta_str(doc, "columns");
    if (!meta)
        meta = "";
    if (b->metakey && strcmp(b->metakey, meta) == 0)
        return CRFP_OK;
    /* until the split is complete there is no key, so a failure is
     * retried by the next call rather than leaving half a split cached */
    free(b->metakey);
    b->metakey = NULL;
    b->nmeta = 0;
    free(b->metacopy);
    b->metacopy = NULL;
    b->nalias = 0;
    free(b->aliascopy);
    b->aliascopy = NULL;
    if (*meta) {
        if (!(b->metacopy = strdup(meta)))
            return CRFP_ENOMEM;
        for (char *s = b->metacopy;;) {
            char *comma = strchr(s, ',');
            if (comma)
                *comma = '\0';
            if (!grow((void **)&b->cols, &b->capcols, b->nmeta + 1, sizeof *b->cols))
                return CRFP_ENOMEM;
            b->cols[b->nmeta++] = s;
            if (!comma)
                break;
            s = comma + 1;
        }
    }
    if (b->readas && b->nmeta) {
        if (crfp_columns_as_model(meta, b->readas, &b->aliascopy) != CRFP_OK ||
            (b->aliascopy &&
             !grow((void **)&b->alias, &b->capalias, b->nmeta, sizeof *b->alias)))
            return CRFP_ENOMEM;
        /* as many names as the metadata's, empty ones included */
        for (char *s = b->aliascopy; s && b->nalias < b->nmeta;) {
            char *comma = strchr(s, ',');
            if (comma)
                *comma = '\0';
            b->alias[b->nalias++] = s;
            s = comma ? comma + 1 : NULL;
        }
        if (b->nalias != b->nmeta)
            b->nalias = 0;
    }
    if (!(b->metakey = strdup(meta))) {
        b->nmeta = b->nalias = 0;
        return CRFP_ENOMEM;
    }
    return CRFP_OK;
}

crfp_status crfp_sentbuf_read_as(crfp_sentbuf *b, const char *model_columns)
{
    char *copy = NULL;
    if (model_columns && !(copy = strdup(model_columns)))
        return CRFP_ENOMEM;
    free(b->readas);
    b->readas = copy;
    /* the next fill splits again, under the new names */
    free(b->metakey);
    b->metakey = NULL;
    b->nalias = 0;
    return CRFP_OK;
}

/* word, label or colN (N digits) */
static int positional_name(const char *p, size_t l)
{
    if ((l == 4 && !memcmp(p, "word", 4)) || (l == 5 && !memcmp(p, "label", 5)))
        return 1;
    if (l <= 3 || memcmp(p, "col", 3) != 0)
        return 0;
    for (size_t i = 3; i < l; i++)
        if (p[i] < '0' || p[i] > '9')
            return 0;
    return 1;
}

int crfp_columns_positional(const char *columns)
{
    if (!columns || !*columns)
        return 0;
    for (const char *p = columns; p;) {
        const char *e = strchr(p, ',');
        if (!positional_name(p, e ? (size_t)(e - p) : strlen(p)))
            return 0;
        p = e ? e + 1 : NULL;
    }
    return 1;
}

/* Whether the comma list `list` holds the name p[0..l). */
static int has_name(const char *list, const char *p, size_t l)
{
    for (const char *q = list; q;) {
        const char *e = strchr(q, ',');
        size_t ql = e ? (size_t)(e - q) : strlen(q);
        if (ql == l && memcmp(q, p, l) == 0)
            return 1;
        q = e ? e + 1 : NULL;
    }
    return 0;
}

/* Renaming compares each renamed name with the document's list: a list of
 * more columns than any real file has (a hostile line of a million fields)
 * is left as it is rather than take quadratic time. */
#define AS_MODEL_MAX_COLUMNS 1024

static size_t count_names(const char *list)
{
    size_t n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    return n;
}

crfp_status crfp_columns_as_model(const char *doc_columns, const char *model_columns,
                                  char **renamed)
{
    *renamed = NULL;
    if (!doc_columns || !*doc_columns || !model_columns || !*model_columns ||
        count_names(doc_columns) > AS_MODEL_MAX_COLUMNS || crfp_columns_positional(model_columns))
        return CRFP_OK;
    /* each name out is the document's or the model's: the two lengths bound it */
    char *out = malloc(strlen(doc_columns) + strlen(model_columns) + 2);
    if (!out)
        return CRFP_ENOMEM;
    size_t o = 0;
    int changed = 0;
    const char *m = model_columns;
    for (const char *d = doc_columns; d;) {
        const char *de = strchr(d, ',');
        size_t dl = de ? (size_t)(de - d) : strlen(d);
        const char *name = d;
        size_t nl = dl;
        if (m) {
            const char *me = strchr(m, ',');
            size_t ml = me ? (size_t)(me - m) : strlen(m);
            if (ml && positional_name(d, dl) && !(ml == dl && memcmp(m, d, dl) == 0) &&
                !has_name(doc_columns, m, ml)) {
                name = m;
                nl = ml;
                changed = 1;
            }
            m = me ? me + 1 : NULL;
        }
        if (d != doc_columns)
            out[o++] = ',';
        memcpy(out + o, name, nl);
        o += nl;
        d = de ? de + 1 : NULL;
    }
    out[o] = '\0';
    if (!changed)
        free(out);
    else
        *renamed = out;
    return CRFP_OK;
}

static long find_col(const crfp_sentbuf *b, const char *name)
{
    for (size_t c = 0; c < b->ncols; c++)
        if (b->cols[c] == name || strcmp(b->cols[c], name) == 0)
            return (long)c;
    return -1;
}

crfp_status crfp_doc_sentences(crfp_host *host, crfp_doc *doc, const char *set, crfp_ann ***sents,
                               size_t *n)
{
    *sents = NULL;
    *n = 0;
    crfp_annset *as = crfp_doc_annset(doc, set ? set : "", 0);
    if (!as)
        return CRFP_OK;
    size_t len = crfp_doc_length(doc);
    crfp_status st = crfp_annset_select(as, "Sentence", 0, len, sents, n);
    if (st != CRFP_OK)
        return crfp_error(host, st, "cannot list sentences");
    if (*n > 0)
        return CRFP_OK;
    crfp_ann **toks = NULL;
    size_t ntok = 0;
    st = crfp_annset_select(as, "Token", 0, len, &toks, &ntok);
    free(toks);
    if (st != CRFP_OK)
        return crfp_error(host, st, "cannot list tokens");
    if (ntok == 0)
        return CRFP_OK;
    *sents = calloc(1, sizeof **sents);
    if (!*sents)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    *n = 1;
    return CRFP_OK;
}

crfp_status crfp_sentbuf_fill_tokens(crfp_host *host, crfp_sentbuf *b, const crfp_doc *doc,
                                     crfp_ann *const *toks, size_t ntok,
                                     const crfp_tokseq **seq)
{
    if (split_meta(b, doc) != CRFP_OK)
        goto nomem;
    b->ncols = b->nmeta;
    if (!grow((void **)&b->toks, &b->captoks, ntok + 1, sizeof *b->toks))
        goto nomem;
    if (ntok && b->toks != toks)
        memmove(b->toks, toks, ntok * sizeof *toks);
    /* Without a declared column list, the columns are the string features
     * met in the sentence: a first pass lays them out with a fixed stride.
     * With one, other features (a writer's spacing notes...) are not
     * columns. */
    for (size_t t = 0; b->nmeta == 0 && t < ntok; t++) {
        const crfp_ann *a = b->toks[t];
        for (size_t f = 0; f < a->nfeats; f++) {
            if (a->feats[f].value.type != CRFP_V_STRING)
                continue;
            if (find_col(b, a->feats[f].name) >= 0)
                continue;
            if (!grow((void **)&b->cols, &b->capcols, b->ncols + 1, sizeof *b->cols))
                goto nomem;
            b->cols[b->ncols++] = a->feats[f].name;
        }
    }
    if (!grow((void **)&b->cells, &b->capcells, ntok * b->ncols + 1, sizeof *b->cells))
        goto nomem;
    memset(b->cells, 0, ntok * b->ncols * sizeof *b->cells);
    for (size_t t = 0; t < ntok; t++) {
        const crfp_ann *a = b->toks[t];
        for (size_t f = 0; f < a->nfeats; f++) {
            if (a->feats[f].value.type != CRFP_V_STRING)
                continue;
            /* Features usually come in column order: try the same index. */
            long c = (f < b->ncols && strcmp(b->cols[f], a->feats[f].name) == 0)
                         ? (long)f
                         : find_col(b, a->feats[f].name);
            if (c < 0)
                continue;
            b->cells[t * b->ncols + (size_t)c] = a->feats[f].value.u.s;
        }
    }
    b->seq.ntok = ntok;
    b->seq.ncols = b->ncols;
    b->seq.colnames = b->nalias ? b->alias : b->cols;
    b->seq.cells = b->cells;
    *seq = &b->seq;
    return CRFP_OK;
nomem:
    return crfp_error(host, CRFP_ENOMEM, "out of memory");
}

crfp_status crfp_sentbuf_fill(crfp_host *host, crfp_sentbuf *b, crfp_doc *doc, const char *set,
                              crfp_ann *sentence, const crfp_tokseq **seq, crfp_ann ***tokens)
{
    crfp_annset *as = crfp_doc_annset(doc, set ? set : "", 0);
    crfp_ann **sel = NULL;
    size_t ntok = 0;
    if (as) {
        size_t s = sentence ? sentence->start : 0;
        size_t e = sentence ? sentence->end : crfp_doc_length(doc);
        crfp_status st = crfp_annset_select(as, "Token", s, e, &sel, &ntok);
        if (st != CRFP_OK)
            return crfp_error(host, st, "cannot list tokens");
    }
    crfp_status st = crfp_sentbuf_fill_tokens(host, b, doc, sel, ntok, seq);
    free(sel);
    if (st == CRFP_OK && tokens)
        *tokens = b->toks;
    return st;
}

int crfp_tokseq_col(const crfp_tokseq *seq, const char *name)
{
    for (size_t c = 0; c < seq->ncols; c++)
        if (strcmp(seq->colnames[c], name) == 0)
            return (int)c;
    return -1;
}
