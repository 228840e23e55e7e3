/* crfsuite_reader — CRFsuite's data format: the attributes come with the
 * data, so a corpus made for `crfsuite learn` trains here with the
 * `attributes` features plugin, unchanged.
 *
 * A line is one item: its label, then its attributes, separated by TABs;
 * a blank line ends a sequence.  An attribute is a name, or name:weight;
 * in a name "\:" stands for a colon and "\\" for a backslash, so the first
 * colon not escaped starts the weight.  The label field may be empty (data
 * to tag).  A line starting with '@' is a declaration: "@weight:W" weighs
 * the sequence in CRFsuite, which crfpipe does not, so only W = 1 passes.
 *
 * A weight scales the attribute's features as in CRFsuite (weights=scale,
 * the default): the cell carries it as "\*W" (see the attributes plugin),
 * weight 1 as nothing; an attribute of weight 0 stays, scoring nothing, as
 * in CRFsuite, where its labels are seen with it.  weights=binary takes
 * every non-zero weight as 1 and leaves weight 0 out (when presence is what
 * matters), weights=error refuses weights other than 0 and 1 (0 left out),
 * naming file, line and attribute.
 *
 * Each item becomes a Token spanning its line in the document text (the
 * lines as read, declarations left out), with the features `attrs` (its
 * attributes as the `attributes` plugin reads a cell: space-separated,
 * with "\s", "\t", "\n", "\r", "\\" and "\_" escapes, "_" for none) and
 * `label` (unless empty); each sequence a Sentence.  The columns are
 * "attrs,label".  A document holds up to `block` sequences, so that memory
 * stays bounded on a corpus of any size.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/colio.h"
#include "../lexicon_reader/lexdoc.h"

static const crfp_param_spec params[] = {
    {"weights", CRFP_PARAM_STRING, "scale",
     "attribute weights: scale (the attribute's features are scaled by its weight, as in "
     "CRFsuite), binary (every non-zero weight taken as 1) or error (weights other than 0 and 1 "
     "refused, naming the line)"},
    {"block", CRFP_PARAM_INT, "1000", "sequences per document (>= 1)"},
};

enum { W_SCALE, W_BINARY, W_ERROR };

typedef struct tok {
    size_t start, end;   /* span in the document's unit */
    size_t cell, label;  /* offsets in aux of its NUL-terminated features */
    int has_label;
} tok;

typedef struct csreader {
    crfp_host *host;
    const crfp_params *params;
    crfp_stream *in;
    colio_lines L;
    int weights;      /* W_* */
    int64_t block;
    unsigned long ndocs;
    int eof;
} csreader;

static void cs_close(void *state)
{
    csreader *r = state;
    if (!r)
        return;
    colio_lines_free(&r->L);
    free(r);
}

static crfp_status cs_open(crfp_host *host, const crfp_params *p, crfp_stream *in, void **state)
{
    const char *w = crfp_params_str(p, "weights");
    int mode = strcmp(w, "scale") == 0    ? W_SCALE
               : strcmp(w, "binary") == 0 ? W_BINARY
               : strcmp(w, "error") == 0  ? W_ERROR
                                          : -1;
    if (mode < 0)
        return crfp_error(host, CRFP_EINVAL, "parameter 'weights': '%s' is not scale, binary "
                          "or error", w);
    int64_t block = crfp_params_int(p, "block");
    if (block < 1)
        return crfp_error(host, CRFP_EINVAL, "parameter 'block' must be >= 1");
    csreader *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    r->host = host;
    r->params = p;
    r->in = in;
    r->L.host = host;
    r->L.in = in;
    r->weights = mode;
    r->block = block;
    *state = r;
    return CRFP_OK;
}

static const char *fname(const csreader *r)
{
    return r->in->name ? r->in->name : "input";
}

/* The weight after the first unescaped colon of field f[0..n): *name_len
 * receives the length of the name part (escapes still in), *w the weight
 * (1 when there is none).  0 when the weight is not a finite number. */
static int split_weight(const char *f, size_t n, size_t *name_len, double *w)
{
    *w = 1.0;
    for (size_t i = 0; i < n; i++) {
        if (f[i] == '\\' && i + 1 < n) {
            i++;
            continue;
        }
        if (f[i] != ':')
            continue;
        *name_len = i;
        return colio_finite(f + i + 1, n - i - 1, w);
    }
    *name_len = n;
    return 1;
}

/* Append the name f[0..n), CRFsuite escapes resolved, to the cell in the
 * attributes plugin's escaping.  0 on ENOMEM. */
static int cell_add(lex_sbuf *aux, int first, const char *f, size_t n)
{
    char buf[256];
    size_t k = 0;
    if (!first && !lex_sb_add(aux, " ", 1))
        return 0;
    if (n == 1 && f[0] == '_')
        return lex_sb_add(aux, "\\_", 2);
    for (size_t i = 0; i < n; i++) {
        char c = f[i];
        /* "\:" and "\\" are CRFsuite's escapes; another backslash is itself */
        if (c == '\\' && i + 1 < n && (f[i + 1] == ':' || f[i + 1] == '\\'))
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

/* The declaration on the current line ('@' first).  Only "@weight:1". */
static crfp_status declaration(csreader *r)
{
    const char *l = r->L.line;
    size_t n = r->L.len;
    size_t nl;
    double w;
    if (n > 8 && memcmp(l, "@weight:", 8) == 0 && split_weight(l, n, &nl, &w) && nl == 7) {
        if (w == 1.0)
            return CRFP_OK;
        return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: '%.*s': crfpipe does not weigh "
                          "sequences (only @weight:1 is accepted)", fname(r), r->L.lineno,
                          (int)(n > 80 ? 80 : n), l);
    }
    return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: unknown declaration '%.*s' (CRFsuite's "
                      "data format knows @weight:W)", fname(r), r->L.lineno,
                      (int)(n > 80 ? 80 : n), l);
}

/* The item on the current line: its label and cell appended to aux, its
 * span to the text. */
static crfp_status item(csreader *r, lex_sbuf *text, size_t *unitpos, lex_sbuf *aux, tok *t)
{
    const char *l = r->L.line, *end = l + r->L.len;
    const char *tab = memchr(l, '\t', r->L.len);
    const char *lab_end = tab ? tab : end;
    t->has_label = lab_end > l;
    t->label = aux->n;
    if (!lex_sb_add(aux, l, (size_t)(lab_end - l)) || !lex_sb_add(aux, "", 1))
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    t->cell = aux->n;
    int first = 1;
    for (const char *f = tab ? tab + 1 : end; f < end;) {
        const char *fe = memchr(f, '\t', (size_t)(end - f));
        if (!fe)
            fe = end;
        size_t n = (size_t)(fe - f), nl;
        double w;
        if (n > 0) {
            if (!split_weight(f, n, &nl, &w))
                return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: attribute '%.*s': the part "
                                  "after its first ':' is not a finite number (write a colon "
                                  "in a name as '\\:')", fname(r), r->L.lineno,
                                  (int)(n > 80 ? 80 : n), f);
            if (w != 0.0 && w != 1.0 && r->weights == W_ERROR)
                return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: attribute '%.*s' has weight "
                                  "%g (weights=error; weights=scale scales its features by "
                                  "it, weights=binary takes every non-zero weight as 1)",
                                  fname(r), r->L.lineno, (int)(nl > 80 ? 80 : nl), f, w);
            if ((w != 0.0 || r->weights == W_SCALE) && nl > 0) {
                if (!cell_add(aux, first, f, nl))
                    return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                first = 0;
                /* the value, in the attributes plugin's "\*W"; %.17g gives
                 * back the very double */
                char v[40];
                int vn = w != 1.0 && r->weights == W_SCALE ? snprintf(v, sizeof v, "\\*%.17g", w)
                                                           : 0;
                if (vn > 0 && !lex_sb_add(aux, v, (size_t)vn))
                    return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
            }
        }
        f = fe + 1;
    }
    if ((first && !lex_sb_add(aux, "_", 1)) || !lex_sb_add(aux, "", 1))
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    /* the token spans its line; lines are joined by '\n' */
    t->start = *unitpos;
    *unitpos += colio_unit_len(CRFP_OFFSET_UTF16, l, r->L.len);
    t->end = *unitpos;
    if (!lex_sb_add(text, l, r->L.len) || !lex_sb_add(text, "\n", 1))
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    (*unitpos)++;
    return CRFP_OK;
}

static crfp_status build(csreader *r, const lex_sbuf *text, const lex_sbuf *aux, const tok *toks,
                         const size_t *sent0, size_t nsent, crfp_doc **out)
{
    crfp_doc *doc = NULL;
    crfp_annset *set = NULL;
    crfp_status st = lex_doc(r->host, "crfsuite", ++r->ndocs, text, "crfsuite", "columns",
                             "attrs,label", &doc, &set);
    if (st != CRFP_OK)
        return st;
    if (crfp_doc_offset_unit(doc) != CRFP_OFFSET_UTF16) {
        crfp_doc_free(doc);
        return crfp_error(r->host, CRFP_EINVAL, "%s: documents must default to UTF-16 offsets",
                          fname(r));
    }
    const char *pn[4], *pv[4], *name, *value;
    size_t np = 0;
    for (size_t i = 0; np < 4 && crfp_params_iter(r->params, i, &name, &value); i++) {
        pn[np] = name;
        pv[np++] = value;
    }
    st = crfp_annset_add_processor(doc, set, "crfsuite_reader", PACKAGE_VERSION, pn, pv, np);
    for (size_t s = 0; s < nsent && st == CRFP_OK; s++) {
        const tok *a = toks + sent0[s], *b = toks + sent0[s + 1] - 1;
        crfp_ann *ann;
        if ((st = crfp_annset_add(r->host, doc, set, "Sentence", a->start, b->end, &ann)) !=
            CRFP_OK)
            break;
        for (const tok *t = a; t <= b && st == CRFP_OK; t++)
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
            st = crfp_error(r->host, st, "%s: the sequences up to line %lu: %s", fname(r),
                            r->L.lineno, crfp_status_str(st));
        return st;
    }
    *out = doc;
    return CRFP_OK;
}

static crfp_status cs_next(void *state, crfp_doc **out)
{
    csreader *r = state;
    *out = NULL;
    lex_sbuf text = {0}, aux = {0};
    tok *toks = NULL;
    size_t *sent0 = NULL, ntok = 0, tcap = 0, nsent = 0, scap = 0, unitpos = 0, open0 = 0;
    int in_seq = 0;
    crfp_status st = CRFP_OK;
    while (!r->eof) {
        int got;
        /* what an item keeps is copied: the lines consumed can go */
        colio_discard_consumed(&r->L);
        if ((st = colio_next(&r->L, &got)) != CRFP_OK)
            goto done;
        int blank = !got || colio_probe_blank(r->L.line, r->L.len);
        if (!got)
            r->eof = 1;
        if (blank) {
            if (in_seq) {
                /* a sequence ends: sent0[nsent] .. ntok */
                if (!lex_grow((void **)&sent0, &scap, nsent + 1, sizeof *sent0)) {
                    st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                    goto done;
                }
                sent0[nsent++] = open0;
                sent0[nsent] = ntok;
                in_seq = 0;
                if ((int64_t)nsent >= r->block)
                    break;
            }
            continue;
        }
        if (r->L.line[0] == '@') {
            if ((st = declaration(r)) != CRFP_OK)
                goto done;
            continue;
        }
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
        if ((st = item(r, &text, &unitpos, &aux, &toks[ntok])) != CRFP_OK)
            goto done;
        ntok++;
    }
    if (nsent > 0)
        st = build(r, &text, &aux, toks, sent0, nsent, out);
done:
    free(toks);
    free(sent0);
    free(text.s);
    free(aux.s);
    return st;
}

/* CRFsuite data: lines of a label and several TAB-separated fields, half
 * of them at least attribute=value, the label itself seldom.  A CoNLL
 * file's fields seldom hold '=', and one of attribute=value cells holds it
 * in its first column too (its label comes last); a CoNLL-U file starts
 * with a comment ('#'), which a label here does not, and few of its ten
 * fields hold '='. */
static int cs_probe(const char *head, size_t len)
{
    size_t at = 0, b, e, attrs = 0, with_eq = 0, lines = 0, first_eq = 0;
    int complete;
    while (colio_probe_line(head, len, &at, &b, &e, &complete)) {
        if (!complete && len >= COLIO_PROBE_MAX)
            break;
        if (colio_probe_blank(head + b, e - b) || head[b] == '@')
            continue;
        if (head[b] == '#')
            return 0;
        size_t fields = 0;
        for (size_t i = b; i <= e; i++) {
            if (i < e && head[i] != '\t')
                continue;
            if (fields++ > 0) {
                attrs++;
                /* the field just ended at i: does it hold '='? */
                size_t j = i;
                while (j > b && head[j - 1] != '\t')
                    j--;
                with_eq += memchr(head + j, '=', i - j) != NULL;
            }
        }
        if (fields < 2)
            return 0;
        const char *tab = memchr(head + b, '\t', e - b);
        first_eq += tab && memchr(head + b, '=', (size_t)(tab - (head + b))) != NULL;
        lines++;
    }
    return lines && attrs >= 2 * lines && 2 * with_eq >= attrs && 2 * first_eq < lines ? 60 : 0;
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = cs_open,
    .next = cs_next,
    .close = cs_close,
    .probe = cs_probe,
};

static const char *const formats[] = {"crfsuite", NULL};
static const char *const extensions[] = {".crfsuite", NULL};

CRFP_PLUGIN_DEFINE(crfsuite_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "crfsuite_reader",
    .kind = CRFP_KIND_READER,
    .version = PACKAGE_VERSION,
    .description = "CRFsuite's data format (label, then TAB-separated attributes; a blank "
                   "line between sequences), for the attributes features plugin",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
    /* blank lines end sequences and nothing spans them */
    .flags = CRFP_PLUGIN_SPLIT_BLANK_LINES,
};
