/* Helpers shared by the column writers. */
#include "config.h"
#include "colwalk.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const crfp_annset *colwalk_annset(const crfp_doc *doc, const char *name)
{
    size_t n = crfp_doc_annset_count(doc);
    for (size_t i = 0; i < n; i++) {
        const crfp_annset *s = crfp_doc_annset_at(doc, i);
        if (strcmp(crfp_annset_name(s), name) == 0)
            return s;
    }
    return NULL;
}

crfp_status colwalk_init(crfp_host *host, const crfp_doc *doc, const crfp_annset *set,
                         colwalk *w)
{
    memset(w, 0, sizeof *w);
    size_t len = crfp_doc_length(doc), n = 0;
    if (set) {
        crfp_status st = crfp_annset_select(set, "Sentence", 0, len, &w->owned, &n);
        if (st != CRFP_OK)
            return crfp_error(host, st, "out of memory listing the sentences");
    }
    size_t m = n ? n : 1;
    w->sents = calloc(m, sizeof *w->sents);
    w->sstart = calloc(m, sizeof *w->sstart);
    w->send = calloc(m, sizeof *w->send);
    if (!w->sents || !w->sstart || !w->send) {
        colwalk_free(w);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    if (n == 0) {
        w->send[0] = len;
    } else {
        for (size_t i = 0; i < n; i++) {
            w->sents[i] = w->owned[i];
            w->sstart[i] = w->owned[i]->start;
            w->send[i] = w->owned[i]->end;
        }
    }
    w->nsents = m;
    return CRFP_OK;
}

void colwalk_free(colwalk *w)
{
    free(w->owned);
    free(w->sents);
    free(w->sstart);
    free(w->send);
    memset(w, 0, sizeof *w);
}

crfp_status colgroup_init(crfp_host *host, const char *where, const crfp_annset *set,
                          const char *type, const colwalk *w, colgroup *g)
{
    memset(g, 0, sizeof *g);
    g->first = calloc(w->nsents + 1, sizeof *g->first);
    if (!g->first)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    if (!set)
        return CRFP_OK;
    size_t end = w->send[w->nsents - 1];
    for (size_t i = 0; i < w->nsents; i++)
        if (w->send[i] > end)
            end = w->send[i];
    crfp_status st = crfp_annset_select(set, type, 0, end, &g->anns, &g->n);
    if (st != CRFP_OK) {
        colgroup_free(g);
        return crfp_error(host, st, "%s: out of memory listing the %s annotations", where, type);
    }
    /* Both lists are sorted by start, so one forward pass assigns every
     * annotation to the first sentence that can still contain it. */
    size_t j = 0;
    for (size_t i = 0; i < g->n; i++) {
        const crfp_ann *a = g->anns[i];
        while (j < w->nsents && w->send[j] < a->end)
            g->first[++j] = i;
        if (j == w->nsents || a->start < w->sstart[j]) {
            st = crfp_error(host, CRFP_EINVAL, "%s: %s annotation %" PRIu64
                            " [%zu, %zu) lies outside every Sentence",
                            where, type, a->id, a->start, a->end);
            colgroup_free(g);
            return st;
        }
    }
    while (j < w->nsents)
        g->first[++j] = g->n;
    return CRFP_OK;
}

void colgroup_free(colgroup *g)
{
    free(g->anns);
    free(g->first);
    memset(g, 0, sizeof *g);
}

const char *colwalk_value_text(const crfp_value *v, char *tmp, size_t tmpsz)
{
    switch (v->type) {
    case CRFP_V_STRING:
        return v->u.s;
    case CRFP_V_INT:
        snprintf(tmp, tmpsz, "%" PRId64, v->u.i);
        return tmp;
    case CRFP_V_FLOAT:
        snprintf(tmp, tmpsz, "%.17g", v->u.f);
        return tmp;
    case CRFP_V_BOOL:
        return v->u.b ? "true" : "false";
    case CRFP_V_REF:
        snprintf(tmp, tmpsz, "%" PRIu64, v->u.ref);
        return tmp;
    default:
        return NULL;
    }
}

char *colwalk_span_text(const crfp_doc *doc, const crfp_ann *a)
{
    size_t b0, b1, len;
    if (crfp_doc_to_byte(doc, a->start, &b0) != CRFP_OK ||
        crfp_doc_to_byte(doc, a->end, &b1) != CRFP_OK)
        return NULL;
    const char *text = crfp_doc_text(doc, &len);
    return strndup(text + b0, b1 - b0);
}

void colwalk_put_raw(FILE *fp, const char *s, int crlf)
{
    if (!crlf) {
        fputs(s, fp);
        return;
    }
    for (; *s; s++) {
        if (*s == '\n')
            fputc('\r', fp);
        fputc(*s, fp);
    }
}

int colwalk_cell_ok(const char *s, unsigned flags)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r' ||
            (*s == ' ' && (flags & COLWALK_NO_SPACE)) || (*s == '|' && (flags & COLWALK_NO_PIPE)))
            return 0;
    return 1;
}

char *colwalk_escape(const char *s, unsigned flags)
{
    if (!*s)
        return strdup("_");
    char *out = malloc(2 * strlen(s) + 1), *o = out;
    if (!out)
        return NULL;
    for (; *s; s++) {
        char e = 0;
        switch (*s) {
        case '\t': e = 't'; break;
        case '\n': e = 'n'; break;
        case '\r': e = 'r'; break;
        case '\\': e = '\\'; break;
        case ' ': e = (flags & COLWALK_NO_SPACE) ? 's' : 0; break;
        case '|': e = (flags & COLWALK_NO_PIPE) ? 'p' : 0; break;
        default: break;
        }
        if (e) {
            *o++ = '\\';
            *o++ = e;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

int colwalk_policy(const char *s)
{
    if (!s || strcmp(s, "escape") == 0)
        return COLWALK_ESCAPE;
    if (strcmp(s, "drop") == 0)
        return COLWALK_DROP;
    if (strcmp(s, "error") == 0)
        return COLWALK_ERROR;
    return -1;
}
