/* Sentences with their Tokens, for the line writers (sentwalk.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "sentwalk.h"

crfp_status sentwalk(crfp_host *host, const crfp_doc *doc, crfp_annset *set, sentwalk_fn fn,
                     void *ud)
{
    crfp_ann **sents = NULL, **toks = NULL;
    size_t ns = 0, nt = 0;
    crfp_status st = crfp_annset_select(set, "Sentence", 0, crfp_doc_length(doc), &sents, &ns);
    for (size_t s = 0; s < ns && st == CRFP_OK; s++) {
        free(toks);
        toks = NULL;
        if ((st = crfp_annset_select(set, "Token", sents[s]->start, sents[s]->end, &toks,
                                     &nt)) == CRFP_OK)
            st = fn(ud, doc, s, sents[s], toks, nt);
    }
    free(toks);
    free(sents);
    if (st == CRFP_ENOMEM && !crfp_errmsg(host)[0])   /* the selections record none */
        st = crfp_error(host, st, "out of memory");
    return st;
}

crfp_status sentwalk_out_status(crfp_host *host, crfp_stream *out, int flush)
{
    if ((flush && fflush(out->fp) != 0) || ferror(out->fp))
        return crfp_error(host, CRFP_EIO, "%s: write error", out->name ? out->name : "output");
    return CRFP_OK;
}

int linecols_is_prediction(const char *pred, const char *name, size_t len)
{
    size_t pl = strlen(pred);
    return len >= pl && memcmp(name, pred, pl) == 0 && (len == pl || name[pl] == '-');
}

void linecols_free(linecols *lc)
{
    for (size_t k = 0; k < lc->n; k++)
        free(lc->names[k]);
    free(lc->names);
    lc->names = NULL;
    lc->n = 0;
}

crfp_status linecols_of(crfp_host *host, const crfp_doc *doc, const char *pred, linecols *lc)
{
    linecols_free(lc);
    const char *fmt = crfp_doc_meta_str(doc, "format"), *cols = crfp_doc_meta_str(doc, "columns");
    const char *sep = crfp_doc_meta_str(doc, "separator");
    if (!fmt || strcmp(fmt, "conll") != 0 || !cols)
        return CRFP_OK;
    lc->sep = sep && strcmp(sep, "space") == 0 ? ' ' : '\t';
    if (columns_split(cols, &lc->names, &lc->n) != 0) {
        linecols_free(lc);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    size_t n = 0;
    for (size_t k = 0; k < lc->n; k++)
        if (linecols_is_prediction(pred, lc->names[k], strlen(lc->names[k])))
            free(lc->names[k]);
        else
            lc->names[n++] = lc->names[k];
    lc->n = n;
    if (n == 0)
        linecols_free(lc);
    return CRFP_OK;
}

const char *linecols_put(const linecols *lc, const crfp_doc *doc, const crfp_ann *a, char sep,
                         const char *bad, FILE *fp)
{
    if (!lc->n) {
        const char *text = crfp_doc_text(doc, NULL);
        size_t b, e;
        if (crfp_doc_to_byte(doc, a->start, &b) != CRFP_OK ||
            crfp_doc_to_byte(doc, a->end, &e) != CRFP_OK || e < b)
            return "its span is not on the text's characters";
        for (size_t i = b; i < e; i++) {
            if (text[i] == '\n' || text[i] == '\r')
                return "its text holds a line break";
            if (text[i] && strchr(bad, text[i]))
                return "its text holds a TAB";
        }
        fwrite(text + b, 1, e - b, fp);
        fputc('\t', fp);
        return NULL;
    }
    for (size_t c = 0; c < lc->n; c++) {
        const char *cell = crfp_ann_str(a, lc->names[c]);
        if (cell && (strpbrk(cell, "\n\r") || strchr(cell, sep) ||
                     (sep == ' ' && strchr(cell, '\t'))))
            return "a cell holds a line break or the separator";
    }
    for (size_t c = 0; c < lc->n; c++) {
        const char *cell = crfp_ann_str(a, lc->names[c]);
        fputs(cell && *cell ? cell : "_", fp);
        fputc(c + 1 < lc->n ? sep : '\t', fp);
    }
    return NULL;
}

const char *sentwalk_pred_name(const char *pred, size_t k, char *buf, size_t n)
{
    if (k == 0)
        return pred;
    snprintf(buf, n, "%s-%zu", pred, k + 1);
    return buf;
}

size_t sentwalk_nbest(const crfp_ann *tok, const char *pred)
{
    char name[300];
    size_t k = 1;
    while (k < 1000 && crfp_ann_str(tok, sentwalk_pred_name(pred, k, name, sizeof name)))
        k++;
    return k;
}

crfp_status sentwalk_document(crfp_host *host, crfp_stream *out, const crfp_doc *doc,
                              const char *set, sentwalk_fn fn, void *ud)
{
    crfp_annset *as = crfp_doc_annset((crfp_doc *)doc, set, 0);
    if (!as)
        return CRFP_OK;
    crfp_status st = sentwalk(host, doc, as, fn, ud);
    return st == CRFP_OK ? sentwalk_out_status(host, out, 0) : st;
}
