/* The sequence and document loop of the attribute-data readers
 * (attrseq.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attrseq.h"

/* An item: its span in the document's unit, and the offsets in aux of
 * its NUL-terminated label and attributes. */
typedef struct item {
    size_t start, end;
    size_t cell, label;
    int has_label;
} item;

void attrseq_init(attrseq_reader *r, crfp_host *host, const crfp_params *p, crfp_stream *in)
{
    memset(r, 0, sizeof *r);
    r->host = host;
    r->params = p;
    r->in = in;
    r->L.host = host;
    r->L.in = in;
    r->block = 1;
    r->seq_weight = NAN;
}

void attrseq_free(attrseq_reader *r)
{
    if (r)
        colio_lines_free(&r->L);
}

const char *attrseq_name(const attrseq_reader *r)
{
    return r->in->name ? r->in->name : "input";
}

int attrseq_cell_add(lex_sbuf *aux, int first, const char *f, size_t n, int crfsuite_escapes)
{
    char buf[256];
    size_t k = 0;
    if (!first && !lex_sb_add(aux, " ", 1))
        return 0;
    if (n == 1 && f[0] == '_')
        return lex_sb_add(aux, "\\_", 2);
    for (size_t i = 0; i < n; i++) {
        char c = f[i];
        if (crfsuite_escapes && c == '\\' && i + 1 < n && (f[i + 1] == ':' || f[i + 1] == '\\'))
            c = f[++i];
        const char *e = c == ' ' ? "\\s" : c == '\t' ? "\\t" : c == '\n' ? "\\n"
                        : c == '\r' ? "\\r" : c == '\\' ? "\\\\" : NULL;
        if (k + 2 > sizeof buf) {
            if (!lex_sb_add(aux, buf, k))
                return 0;
            k = 0;
        }
        if (e) {
            buf[k++] = e[0];
            buf[k++] = e[1];
        } else {
            buf[k++] = c;
        }
    }
    return lex_sb_add(aux, buf, k);
}

/* The item on the current line, if it is one (*skip otherwise): label and
 * cell appended to aux, its span to the text. */
static crfp_status read_item(attrseq_reader *r, lex_sbuf *text, size_t *unitpos, lex_sbuf *aux,
                             item *t, int *skip)
{
    *skip = 0;
    t->label = aux->n;
    crfp_status st = r->line(r, aux, &t->cell, &t->has_label, skip);
    if (st != CRFP_OK || *skip)
        return st;
    /* the token spans its line; lines are joined by '\n' */
    t->start = *unitpos;
    *unitpos += colio_unit_len(CRFP_OFFSET_UTF16, r->L.line, r->L.len);
    t->end = *unitpos;
    if (!lex_sb_add(text, r->L.line, r->L.len) || !lex_sb_add(text, "\n", 1))
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    (*unitpos)++;
    return CRFP_OK;
}

static crfp_status build(attrseq_reader *r, const lex_sbuf *text, const lex_sbuf *aux,
                         const item *toks, const size_t *sent0, const double *sw, size_t nsent,
                         crfp_doc **out)
{
    crfp_doc *doc = NULL;
    crfp_annset *set = NULL;
    crfp_status st = lex_doc(r->host, r->format, ++r->ndocs, text, r->format, "columns",
                             "attrs,label", &doc, &set);
    if (st != CRFP_OK)
        return st;
    if (crfp_doc_offset_unit(doc) != CRFP_OFFSET_UTF16) {
        crfp_doc_free(doc);
        return crfp_error(r->host, CRFP_EINVAL, "%s: documents must default to UTF-16 offsets",
                          attrseq_name(r));
    }
    const char *pn[8], *pv[8], *name, *value;
    size_t np = 0;
    for (size_t i = 0; np < 8 && crfp_params_iter(r->params, i, &name, &value); i++) {
        pn[np] = name;
        pv[np++] = value;
    }
    st = crfp_annset_add_processor(doc, set, r->processor, PACKAGE_VERSION, pn, pv, np);
    for (size_t s = 0; s < nsent && st == CRFP_OK; s++) {
        const item *a = toks + sent0[s], *b = toks + sent0[s + 1] - 1;
        crfp_ann *ann;
        if ((st = crfp_annset_add(r->host, doc, set, "Sentence", a->start, b->end, &ann)) !=
                CRFP_OK ||
            (!isnan(sw[s]) && (st = crfp_ann_set_float(doc, ann, "weight", sw[s])) != CRFP_OK))
            break;
        for (const item *t = a; t <= b && st == CRFP_OK; t++)
            if ((st = crfp_annset_add(r->host, doc, set, "Token", t->start, t->end, &ann)) ==
                    CRFP_OK &&
                (st = crfp_ann_set_str(doc, ann, "attrs", aux->s + t->cell)) == CRFP_OK &&
                t->has_label)
                st = crfp_ann_set_str(doc, ann, "label", aux->s + t->label);
    }
    if (st != CRFP_OK) {
        crfp_doc_free(doc);
        /* the feature setters record no message of their own */
        if (!crfp_errmsg(r->host)[0])
            st = crfp_error(r->host, st, "%s: the sequences up to line %lu: %s", attrseq_name(r),
                            r->L.lineno, crfp_status_str(st));
        return st;
    }
    *out = doc;
    return CRFP_OK;
}

crfp_status attrseq_next(attrseq_reader *r, crfp_doc **out)
{
    *out = NULL;
    lex_sbuf text = {0}, aux = {0};
    item *toks = NULL;
    size_t *sent0 = NULL, ntok = 0, tcap = 0, nsent = 0, scap = 0, wcap = 0, unitpos = 0,
           open0 = 0;
    double *sw = NULL; /* each sequence's weight, NAN: none */
    int in_seq = 0;
    crfp_status st = CRFP_OK;
    while (!r->eof) {
        int got, skip;
        /* what an item keeps is copied: the lines consumed can go */
        colio_discard_consumed(&r->L);
        if ((st = colio_next(&r->L, &got)) != CRFP_OK)
            goto done;
        int blank = !got || (r->blank ? r->blank : colio_probe_blank)(r->L.line, r->L.len);
        if (!got)
            r->eof = 1;
        if (!blank) {
            if (!in_seq) {
                open0 = ntok;
                in_seq = 1;
            }
            if ((st = colio_sentence_limit(&r->L, ntok - open0 + 1)) != CRFP_OK)
                goto done;
            if (!lex_grow((void **)&toks, &tcap, ntok, sizeof *toks)) {
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                goto done;
            }
            if ((st = read_item(r, &text, &unitpos, &aux, &toks[ntok], &skip)) != CRFP_OK)
                goto done;
            if (skip) {
                in_seq = ntok > open0;
                continue;
            }
            ntok++;
            if (!r->per_line)
                continue;
        }
        if (in_seq) {
            /* a sequence ends: sent0[nsent] .. ntok */
            if (!lex_grow((void **)&sent0, &scap, nsent + 1, sizeof *sent0) ||
                !lex_grow((void **)&sw, &wcap, nsent, sizeof *sw)) {
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                goto done;
            }
            sw[nsent] = r->seq_weight;
            r->seq_weight = NAN;
            sent0[nsent++] = open0;
            sent0[nsent] = ntok;
            in_seq = 0;
            if ((int64_t)nsent >= r->block)
                break;
        } else if (blank) {
            /* a declaration followed by no item weighs nothing (CRFsuite
             * resets the weight at every blank line) */
            r->seq_weight = NAN;
        }
    }
    if (nsent > 0)
        st = build(r, &text, &aux, toks, sent0, sw, nsent, out);
done:
    free(toks);
    free(sent0);
    free(sw);
    free(text.s);
    free(aux.s);
    return st;
}
