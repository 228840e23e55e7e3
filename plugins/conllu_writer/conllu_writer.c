/* conllu_writer — documents to CoNLL-U.
 *
 * Per sentence: its comment lines, then Tokens, MultiWordTokens and
 * EmptyNodes in ID order (a range "a-b" just before word a, an empty node
 * "a.k" after word a), each line the ten columns id form lemma upos xpos
 * feats head deprel deps misc taken from the annotation's features.  The
 * layout recorded by conllu_reader (Sentence "before" and "comments", meta
 * header/trailer/final-newline/newline) is replayed, so reading and writing
 * reproduces a file byte for byte.
 *
 * Predictions.  CoNLL-U has no column for a tagger's output, so a Token
 * feature `prediction` (default "predicted") is placed by `prediction-to`:
 *   column  in the column of the label the model predicts (`label`, e.g.
 *           upos), which is where UD tools (conll18_ud_eval, UDPipe) read a
 *           system's output; the value it replaces, the gold label when the
 *           input had one, moves to MISC as Gold<LABEL>= (e.g. GoldUPOS=NOUN)
 *           unless keep-gold=false, so that `crfpipe eval` can score the
 *           file on its own.  A MISC that already has that key keeps it:
 *           re-tagging a tagged file keeps the original gold.
 *   misc    in MISC as Predicted<LABEL>= (PredictedUPOS=NOUN), every column
 *           unchanged.
 *   extra   as an eleventh column (not valid CoNLL-U; for column tools).
 *   none    not written.
 *   auto    column when `label` is a CoNLL-U column, misc otherwise; so a
 *           prediction is never dropped silently.
 * Only Token lines take predictions; ranges and empty nodes keep theirs.
 *
 * Unrepresentable values.  Before anything of a document is written, every
 * cell is checked: empty cells, tabs and line breaks break any column, and
 * spaces are only allowed in FORM, LEMMA and MISC (as in UD's validator).
 * `unrepresentable` chooses: escape (default; UD's MISC escapes \s \t \n \r
 * \p \\, see colwalk.h), drop (the column is written as '_'), or error.  The
 * first two print one warning per column naming the output, the sentence,
 * the word and the value.
 */
#include "config.h"
#include "../conll_writer/colwalk.h"
#include "../common/columns.h"

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
    {"label", CRFP_PARAM_STRING, "",
     "the Token feature the prediction stands for, e.g. upos (crfpipe tag sets it from the "
     "model's metadata)"},
    {"prediction", CRFP_PARAM_STRING, "predicted", "the Token feature holding the prediction"},
    {"prediction-to", CRFP_PARAM_STRING, "auto",
     "where the prediction goes: column (the label's column; its old value kept in MISC as "
     "Gold<LABEL>=), misc (MISC Predicted<LABEL>=), extra (an 11th column), none; auto = "
     "column when the label is a CoNLL-U column, else misc"},
    {"keep-gold", CRFP_PARAM_BOOL, "true",
     "with prediction-to=column, keep the replaced value in MISC as Gold<LABEL>="},
    {"unrepresentable", CRFP_PARAM_STRING, "escape",
     "a value a column cannot hold (empty, tab, line break, space outside FORM/LEMMA/MISC): "
     "escape (\\s \\t \\n \\r \\p \\\\ as in UD's MISC), drop (write '_') or error; decided "
     "before the document is written, with one warning per column"},
};

#define NCOL 10
#define MISC 9
static const char *const colname[NCOL] = {"id",   "form", "lemma",  "upos", "xpos",
                                          "feats", "head", "deprel", "deps", "misc"};

enum { PM_AUTO, PM_COLUMN, PM_MISC, PM_EXTRA, PM_NONE };

typedef struct writer {
    crfp_host *host;
    crfp_stream *out;
    const char *annset;
    int strict;
    char *feat[NCOL];   /* feature that feeds each column */
    unsigned long ndocs;
    const char *pred;   /* feature holding the prediction */
    int mode;           /* PM_* as configured */
    int labcol;         /* column of the label, or -1 */
    int keep_gold;
    int policy;         /* COLWALK_ESCAPE / DROP / ERROR */
    char *goldkey, *predkey;   /* "GoldUPOS", "PredictedUPOS" */
    int warned[NCOL + 1];
    int warned_cols;    /* columns with no place here were reported */
    const char *cols0;  /* while reporting them: the first column */
} writer;

/* Per document: what is written where. */
typedef struct plan {
    int mode;           /* PM_COLUMN, PM_MISC, PM_EXTRA or PM_NONE */
    size_t ncols;       /* 10, or 11 with PM_EXTRA */
    int drop[NCOL + 1]; /* column written as '_' */
} plan;

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

/* Characters column k may not hold besides tab and line breaks. */
static unsigned col_flags(size_t k)
{
    return k == 1 || k == 2 || k == MISC ? 0 : COLWALK_NO_SPACE;
}

/* The text of column k of a line as the input had it: its feature (or the
 * mapped one), the automatic id, the covered text for FORM, else '_'.
 * *own receives a malloc'd string the caller frees, or NULL. */
static crfp_status base_text(writer *w, const crfp_doc *doc, const line *l, size_t k,
                             char *tmp, size_t tmpsz, char **own, const char **text,
                             const char *where)
{
    /* Only Tokens take mapped columns: ranges and empty nodes keep their
     * own annotation. */
    const char *fname = strcmp(l->a->type, "Token") == 0 && w->feat[k] ? w->feat[k]
                                                                        : colname[k];
    const crfp_value *v = crfp_ann_get(l->a, fname);
    *own = NULL;
    if (v) {
        if (!(*text = colwalk_value_text(v, tmp, tmpsz)))
            return crfp_error(w->host, CRFP_EINVAL, "%s: %s %" PRIu64 ": feature '%s' is a list",
                              where, l->a->type, l->a->id, fname);
    } else if (k == 0) {
        snprintf(tmp, tmpsz, "%lu", l->autoid);
        *text = tmp;
    } else if (k == 1) {
        if (!(*own = colwalk_span_text(doc, l->a)))
            return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
        *text = *own;
    } else if (w->strict) {
        return crfp_error(w->host, CRFP_EINVAL,
                          "%s: %s %" PRIu64 " [%zu, %zu) has no feature '%s' (strict)", where,
                          l->a->type, l->a->id, l->a->start, l->a->end, fname);
    } else {
        *text = "_";
    }
    return CRFP_OK;
}

/* Value of attribute `key` in a MISC cell ("A=1|B=2"), or NULL; *len
 * receives its length. */
static const char *misc_attr(const char *misc, const char *key, size_t *len)
{
    size_t kl = strlen(key);
    for (const char *p = misc; p && *p;) {
        const char *e = strchr(p, '|');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > kl && p[kl] == '=' && strncmp(p, key, kl) == 0) {
            *len = n - kl - 1;
            return p + kl + 1;
        }
        p = e ? e + 1 : NULL;
    }
    return NULL;
}

/* MISC with key=value set (replacing an existing value when `replace`, else
 * keeping it), malloc'd; the value is escaped if it holds '|', a space or
 * anything else MISC cannot hold. */
static char *misc_with(const char *misc, const char *key, const char *value, int replace)
{
    size_t old;
    if (misc_attr(misc, key, &old) && !replace)
        return strdup(misc);
    char *ev = colwalk_cell_ok(value, COLWALK_NO_PIPE | COLWALK_NO_SPACE)
                   ? strdup(value)
                   : colwalk_escape(value, COLWALK_NO_PIPE | COLWALK_NO_SPACE);
    if (!ev)
        return NULL;
    size_t cap = strlen(misc) + strlen(key) + strlen(ev) + 3;
    char *out = malloc(cap), *o = out;
    if (!out) {
        free(ev);
        return NULL;
    }
    /* Keep the other attributes in their order; the new one goes last. */
    int empty = strcmp(misc, "_") == 0;
    size_t kl = strlen(key);
    for (const char *p = empty ? NULL : misc; p && *p;) {
        const char *e = strchr(p, '|');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!(n > kl && p[kl] == '=' && strncmp(p, key, kl) == 0)) {
            if (o > out)
                *o++ = '|';
            memcpy(o, p, n);
            o += n;
        }
        p = e ? e + 1 : NULL;
    }
    if (o > out)
        *o++ = '|';
    o += sprintf(o, "%s=%s", key, ev);
    free(ev);
    return out;
}

/* The text of column k (k == NCOL: the extra column) as the plan writes
 * it, before escaping. */
static crfp_status cell_text(writer *w, const plan *pl, const crfp_doc *doc, const line *l,
                             size_t k, char *tmp, size_t tmpsz, char **own, const char **text,
                             const char *where)
{
    *own = NULL;
    const char *pv = NULL;
    char ptmp[64];
    if (pl->mode != PM_NONE && strcmp(l->a->type, "Token") == 0) {
        const crfp_value *v = crfp_ann_get(l->a, w->pred);
        if (v && !(pv = colwalk_value_text(v, ptmp, sizeof ptmp)))
            return crfp_error(w->host, CRFP_EINVAL, "%s: %s %" PRIu64 ": feature '%s' is a list",
                              where, l->a->type, l->a->id, w->pred);
    }
    if (k == NCOL) {
        *text = pv ? pv : "_";
        if (pv == ptmp && !(*text = *own = strdup(pv)))
            return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
        return CRFP_OK;
    }
    if (pv && pl->mode == PM_COLUMN && (int)k == w->labcol) {
        if (pv == ptmp) {
            snprintf(tmp, tmpsz, "%s", pv);
            pv = tmp;
        }
        *text = pv;
        return CRFP_OK;
    }
    crfp_status st = base_text(w, doc, l, k, tmp, tmpsz, own, text, where);
    if (st != CRFP_OK || k != MISC || !pv || pl->mode == PM_EXTRA)
        return st;
    char *misc = NULL;
    if (pl->mode == PM_MISC) {
        misc = misc_with(*text, w->predkey, pv, 1);
    } else if (w->keep_gold) {
        char gtmp[64], *gown = NULL;
        const char *gold;
        if ((st = base_text(w, doc, l, (size_t)w->labcol, gtmp, sizeof gtmp, &gown, &gold,
                            where)) != CRFP_OK)
            return st;
        misc = strcmp(gold, "_") == 0 ? strdup(*text) : misc_with(*text, w->goldkey, gold, 0);
        free(gown);
    } else {
        return CRFP_OK;
    }
    free(*own);
    if (!(*own = misc))
        return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
    *text = misc;
    return CRFP_OK;
}

static const char *why_bad(const char *s)
{
    if (!*s)
        return "is empty";
    if (strpbrk(s, "\n\r"))
        return "holds a line break";
    if (strchr(s, '\t'))
        return "holds a tab";
    return "holds a space";
}

static crfp_status write_line(writer *w, const plan *pl, const crfp_doc *doc, const line *l,
                              const char *eol, const char *where)
{
    FILE *fp = w->out->fp;
    for (size_t k = 0; k < pl->ncols; k++) {
        char tmp[64], *own;
        const char *text;
        crfp_status st = cell_text(w, pl, doc, l, k, tmp, sizeof tmp, &own, &text, where);
        if (st != CRFP_OK)
            return st;
        unsigned fl = col_flags(k);
        char *esc = NULL;
        if (pl->drop[k])
            text = "_";
        else if (!colwalk_cell_ok(text, fl) && !(text = esc = colwalk_escape(text, fl))) {
            free(own);
            return crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
        }
        if (k)
            fputc('\t', fp);
        fputs(text, fp);
        free(esc);
        free(own);
    }
    fputs(eol, fp);
    return CRFP_OK;
}

/* The lines of sentence i, in group order (not yet sorted), with their
 * automatic ids. */
static crfp_status collect_lines(writer *w, const colgroup g[3], size_t i, line **buf,
                                 size_t *cap, size_t *m, const char *where)
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
    *m = 0;
    crfp_status st;
    for (int kind = 0; kind < 3; kind++) {
        unsigned long ntok = 0;
        for (size_t j = g[kind].first[i]; j < g[kind].first[i + 1]; j++) {
            line *l = &ls[(*m)++];
            memset(l, 0, sizeof *l);
            l->a = g[kind].anns[j];
            l->autoid = ++ntok;
            if ((st = line_key(w, where, l, kind)) != CRFP_OK)
                return st;
        }
    }
    return CRFP_OK;
}

static crfp_status write_sentence(writer *w, const plan *pl, const crfp_doc *doc,
                                  const crfp_ann *sent, const colgroup g[3], size_t i,
                                  line **buf, size_t *cap, int crlf, const char *eol,
                                  int last_nl, const char *where)
{
    size_t m;
    crfp_status st = collect_lines(w, g, i, buf, cap, &m, where);
    if (st != CRFP_OK)
        return st;
    line *ls = *buf;
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
        if ((st = write_line(w, pl, doc, &ls[j], j + 1 == m && !last_nl ? "" : eol, where)) !=
            CRFP_OK)
            return st;
    return CRFP_OK;
}

/* Where this document's prediction goes. */
static int plan_mode(writer *w, const colgroup *toks)
{
    if (w->mode == PM_NONE)
        return PM_NONE;
    int any = 0;
    for (size_t j = 0; j < toks->n && !any; j++)
        any = crfp_ann_get(toks->anns[j], w->pred) != NULL;
    if (!any)
        return PM_NONE;
    if (w->mode != PM_AUTO)
        return w->mode;
    return w->labcol >= 0 ? PM_COLUMN : PM_MISC;
}

/* Check every cell of the document before writing any: per column, count
 * the cells it cannot hold and remember the first; then escape, drop or
 * fail as configured, with one warning per column and writer. */
static crfp_status scan_doc(writer *w, plan *pl, const crfp_doc *doc, const colwalk *wk,
                            const colgroup g[3], line **buf, size_t *cap, const char *where)
{
    size_t nbad[NCOL + 1] = {0};
    char *first[NCOL + 1] = {0};
    crfp_status st = CRFP_OK;
    for (size_t i = 0; i < wk->nsents && st == CRFP_OK; i++) {
        size_t m;
        if (g[1].first[i + 1] == g[1].first[i])
            continue;
        if ((st = collect_lines(w, g, i, buf, cap, &m, where)) != CRFP_OK)
            break;
        for (size_t j = 0; j < m && st == CRFP_OK; j++) {
            const line *l = &(*buf)[j];
            for (size_t k = 0; k < pl->ncols && st == CRFP_OK; k++) {
                char tmp[64], *own;
                const char *text;
                if ((st = cell_text(w, pl, doc, l, k, tmp, sizeof tmp, &own, &text, where)) !=
                    CRFP_OK)
                    break;
                if (!colwalk_cell_ok(text, col_flags(k)) && nbad[k]++ == 0) {
                    const char *sid = wk->sents[i] ? crfp_ann_str(wk->sents[i], "sent_id") : NULL;
                    const char *id = crfp_ann_str(l->a, "id");
                    char idbuf[32];
                    if (!id) {
                        snprintf(idbuf, sizeof idbuf, "%lu", l->autoid);
                        id = idbuf;
                    }
                    size_t need = strlen(where) + strlen(text) + (sid ? strlen(sid) : 0) +
                                  strlen(id) + 200;
                    if ((first[k] = malloc(need)))
                        snprintf(first[k], need, "%s, sentence %zu%s%s%s, word %s: column %s = "
                                 "'%s' %s", where, i + 1, sid ? " (sent_id " : "",
                                 sid ? sid : "", sid ? ")" : "", id,
                                 k == NCOL ? "11 (prediction)" : colname[k], text, why_bad(text));
                    else
                        st = crfp_error(w->host, CRFP_ENOMEM, "%s: out of memory", where);
                }
                free(own);
            }
        }
    }
    for (size_t k = 0; k <= NCOL && st == CRFP_OK; k++) {
        if (!nbad[k])
            continue;
        const char *ctx = k == 1 || k == 2 || k == MISC ? "" : "; spaces are allowed only in "
                                                               "FORM, LEMMA and MISC";
        if (w->policy == COLWALK_ERROR) {
            st = crfp_error(w->host, CRFP_EINVAL, "%s, which CoNLL-U cannot hold%s (%zu such "
                            "cells; writer parameter unrepresentable=escape or drop)", first[k],
                            ctx, nbad[k]);
            break;
        }
        pl->drop[k] = w->policy == COLWALK_DROP;
        if (!w->warned[k]++)
            crfp_log(w->host, CRFP_LOG_WARN, "%s, which CoNLL-U cannot hold%s: %s %zu such "
                     "cell%s of this document (writer parameter unrepresentable=%s)", first[k],
                     ctx, pl->drop[k] ? "wrote '_' for the column in" : "escaped (\\s \\t \\n \\r "
                     "\\p \\\\)", nbad[k], nbad[k] == 1 ? "" : "s",
                     pl->drop[k] ? "escape or error" : "drop or error");
    }
    for (size_t k = 0; k <= NCOL; k++)
        free(first[k]);
    return st;
}

/* Say once which of the document's columns (its "columns" metadata) this
 * format has no place for: those a tagger added (n-best, probabilities,
 * marginals) or a column file's own, which would otherwise vanish without
 * a word.  Not reported: the CoNLL-U columns, the mapped features, the
 * prediction, and the first column, which column readers make the text
 * (written as FORM). */
static int known_column(void *ud, const char *p, size_t l)
{
    const writer *w = ud;
    /* the first column: column readers make it the text, written as FORM */
    if (p == w->cols0 || (strlen(w->pred) == l && strncmp(w->pred, p, l) == 0))
        return 1;
    for (int k = 0; k < NCOL; k++)
        if ((strlen(colname[k]) == l && strncmp(colname[k], p, l) == 0) ||
            (w->feat[k] && strlen(w->feat[k]) == l && strncmp(w->feat[k], p, l) == 0))
            return 1;
    return 0;
}

static void report_dropped(writer *w, const crfp_doc *doc, const char *where)
{
    const char *cols = crfp_doc_meta_str(doc, "columns");
    if (w->warned_cols || !cols)
        return;
    char list[256];
    size_t more;
    w->cols0 = cols;
    if (columns_unwritten(cols, known_column, w, list, sizeof list, &more) == 0)
        return;
    w->warned_cols = 1;
    crfp_log(w->host, CRFP_LOG_WARN,
             "%s: CoNLL-U has no column for %s%s: not written (the writer's map parameter puts "
             "a feature in a column; --to xml or --to conll keeps them all)", where, list,
             more ? " and more" : "");
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
    plan pl = {0};
    if (st == CRFP_OK) {
        report_dropped(w, doc, where);
        pl.mode = plan_mode(w, &g[1]);
        pl.ncols = pl.mode == PM_EXTRA ? NCOL + 1 : NCOL;
        st = scan_doc(w, &pl, doc, &wk, g, &buf, &cap, where);
    }
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
        st = write_sentence(w, &pl, doc, sent, g, i, &buf, &cap, crlf, eol,
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
    free(w->goldkey);
    free(w->predkey);
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

/* columns_misc_key, malloc'd (NULL when out of memory). */
static char *misc_key(const char *prefix, const char *label)
{
    size_t n = columns_misc_key(NULL, 0, prefix, label);
    char *s = malloc(n + 1);
    if (s)
        columns_misc_key(s, n + 1, prefix, label);
    return s;
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
    w->keep_gold = crfp_params_bool(p, "keep-gold");
    w->pred = crfp_params_str(p, "prediction");
    if (!w->pred || !*w->pred)
        w->pred = "predicted";
    const char *label = crfp_params_str(p, "label");
    if (!label)
        label = "";
    const char *to = crfp_params_str(p, "prediction-to");
    static const char *const modes[] = {"auto", "column", "misc", "extra", "none"};
    w->mode = -1;
    for (int m = 0; m < 5; m++)
        if (to && strcmp(to, modes[m]) == 0)
            w->mode = m;
    if (!to)
        w->mode = PM_AUTO;
    w->labcol = -1;
    for (int k = 0; k < NCOL; k++)
        if (strcmp(label, colname[k]) == 0)
            w->labcol = k;
    w->policy = colwalk_policy(crfp_params_str(p, "unrepresentable"));
    crfp_status st = CRFP_OK;
    if (w->mode < 0)
        st = crfp_error(host, CRFP_EINVAL, "conllu_writer: prediction-to='%s': expected auto, "
                        "column, misc, extra or none", to);
    else if (w->policy < 0)
        st = crfp_error(host, CRFP_EINVAL, "conllu_writer: unrepresentable='%s': expected "
                        "escape, drop or error", crfp_params_str(p, "unrepresentable"));
    else if (w->mode == PM_COLUMN && (w->labcol < 0 || w->labcol == 0 || w->labcol == MISC))
        st = crfp_error(host, CRFP_EINVAL, "conllu_writer: prediction-to=column needs label= "
                        "one of form, lemma, upos, xpos, feats, head, deprel, deps (label is "
                        "'%s')", label);
    else if (!(w->goldkey = misc_key("Gold", label)) ||
             !(w->predkey = misc_key("Predicted", label)))
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
    else
        st = parse_map(w, crfp_params_str(p, "map"));
    if (w->labcol == 0 || w->labcol == MISC)
        w->labcol = -1;   /* ids and MISC are structure, never replaced */
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
