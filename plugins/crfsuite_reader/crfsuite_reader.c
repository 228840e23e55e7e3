/* crfsuite_reader — CRFsuite's data format: the attributes come with the
 * data, so a corpus made for `crfsuite learn` trains here with the
 * `attributes` features plugin, unchanged.
 *
 * A line is one item: its label, then its attributes, separated by TABs;
 * a blank line ends a sequence.  An attribute is a name, or name:weight;
 * in a name "\:" stands for a colon and "\\" for a backslash, so the first
 * colon not escaped starts the weight.  The label field is read the same
 * way, as CRFsuite reads it: escapes undone, and a colon not escaped starts
 * a value that CRFsuite ignores (a warning, once, names the line).  The
 * label field may be empty (data to tag).  A line starting with '@' is a declaration: "@weight:W" weighs
 * the sequence (0 <= W <= 1e9), which its Sentence carries as its `weight`
 * feature, what `crfpipe train` weighs it by.
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
#include "../common/attrseq.h"

static const crfp_param_spec params[] = {
    {"weights", CRFP_PARAM_STRING, "scale",
     "attribute weights: scale (the attribute's features are scaled by its weight, as in "
     "CRFsuite), binary (every non-zero weight taken as 1) or error (weights other than 0 and 1 "
     "refused, naming the line)"},
    {"block", CRFP_PARAM_INT, "1000", "sequences per document (>= 1)"},
};

enum { W_SCALE, W_BINARY, W_ERROR };

typedef struct csreader {
    attrseq_reader a;   /* first: the line function gets it */
    int weights;        /* W_* */
    int warned_label;   /* a label cut at a colon was reported */
} csreader;

static void cs_close(void *state)
{
    csreader *r = state;
    if (!r)
        return;
    attrseq_free(&r->a);
    free(r);
}

static crfp_status cs_line(attrseq_reader *a, lex_sbuf *aux, size_t *cell, int *has_label,
                           int *skip);

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
    attrseq_init(&r->a, host, p, in);
    r->a.block = block;
    r->a.format = "crfsuite";
    r->a.processor = "crfsuite_reader";
    r->a.line = cs_line;
    r->weights = mode;
    *state = r;
    return CRFP_OK;
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

/* The declaration on the current line ('@' first): "@weight:W" weighs the
 * sequence it is in, or begins, in training, as in CRFsuite; the last one
 * read wins, and one followed by a blank line weighs nothing. */
static crfp_status declaration(attrseq_reader *a)
{
    const char *l = a->L.line;
    size_t n = a->L.len;
    size_t nl;
    double w;
    if (n >= 8 && memcmp(l, "@weight:", 8) == 0) {
        if (n > 8 && split_weight(l, n, &nl, &w) && nl == 7 && w >= 0.0 &&
            w <= CRFP_MAX_SEQ_WEIGHT) {
            a->seq_weight = w;
            return CRFP_OK;
        }
        return crfp_error(a->host, CRFP_EPARSE, "%s:%lu: '%.*s': a sequence's weight is a "
                          "number from 0 to %g", attrseq_name(a), a->L.lineno,
                          (int)(n > 80 ? 80 : n), l, CRFP_MAX_SEQ_WEIGHT);
    }
    return crfp_error(a->host, CRFP_EPARSE, "%s:%lu: unknown declaration '%.*s' (CRFsuite's "
                      "data format knows @weight:W)", attrseq_name(a), a->L.lineno,
                      (int)(n > 80 ? 80 : n), l);
}

/* A line: a declaration, or the label, a TAB and the TAB-separated
 * attributes (attrseq_line_fn). */
/* The label field l[0..n) as CRFsuite reads it, appended to aux: "\:" and
 * "\\" undone, and ending at the first colon not escaped, after which
 * CRFsuite takes a value that it ignores (said once, with the line).
 * *len receives the label's length. */
static crfp_status read_label(csreader *r, lex_sbuf *aux, const char *l, size_t n, size_t *len)
{
    attrseq_reader *a = &r->a;
    size_t k = 0;
    *len = 0;
    const char *p = l, *e = l + n;
    for (; p < e && *p != ':'; p++, k++) {
        const char *c = p;
        if (*p == '\\' && p + 1 < e && (p[1] == ':' || p[1] == '\\'))
            c = ++p;
        if (!lex_sb_add(aux, c, 1))
            return crfp_error(a->host, CRFP_ENOMEM, "out of memory");
    }
    if (p < e && !r->warned_label) {
        r->warned_label = 1;
        crfp_log(a->host, CRFP_LOG_WARN, "%s:%lu: the label '%.*s' is read as '%.*s', as "
                 "CRFsuite reads it: a colon starts a value, which it ignores (write a colon in "
                 "a label as '\\:'); said once", attrseq_name(a), a->L.lineno,
                 (int)(n > 80 ? 80 : n), l, (int)(k > 80 ? 80 : k),
                 k ? aux->s + aux->n - k : "");
    }
    *len = k;
    return CRFP_OK;
}

static crfp_status cs_line(attrseq_reader *a, lex_sbuf *aux, size_t *cell, int *has_label,
                           int *skip)
{
    csreader *r = (csreader *)a;
    const char *l = a->L.line, *end = l + a->L.len;
    if (l[0] == '@') {
        *skip = 1;
        return declaration(a);
    }
    const char *tab = memchr(l, '\t', a->L.len);
    const char *lab_end = tab ? tab : end;
    size_t llen = 0;
    crfp_status st = read_label(r, aux, l, (size_t)(lab_end - l), &llen);
    if (st != CRFP_OK)
        return st;
    *has_label = llen > 0;
    if (!lex_sb_add(aux, "", 1))
        return crfp_error(a->host, CRFP_ENOMEM, "out of memory");
    *cell = aux->n;
    int first = 1;
    for (const char *f = tab ? tab + 1 : end; f < end;) {
        const char *fe = memchr(f, '\t', (size_t)(end - f));
        if (!fe)
            fe = end;
        size_t n = (size_t)(fe - f), nl;
        double w;
        if (n > 0) {
            if (!split_weight(f, n, &nl, &w))
                return crfp_error(a->host, CRFP_EPARSE, "%s:%lu: attribute '%.*s': the part "
                                  "after its first ':' is not a finite number (write a colon "
                                  "in a name as '\\:')", attrseq_name(a), a->L.lineno,
                                  (int)(n > 80 ? 80 : n), f);
            if (w != 0.0 && w != 1.0 && r->weights == W_ERROR)
                return crfp_error(a->host, CRFP_EPARSE, "%s:%lu: attribute '%.*s' has weight "
                                  "%g (weights=error; weights=scale scales its features by "
                                  "it, weights=binary takes every non-zero weight as 1)",
                                  attrseq_name(a), a->L.lineno, (int)(nl > 80 ? 80 : nl), f, w);
            if ((w != 0.0 || r->weights == W_SCALE) && nl > 0) {
                if (!attrseq_cell_add(aux, first, f, nl, 1))
                    return crfp_error(a->host, CRFP_ENOMEM, "out of memory");
                first = 0;
                /* the value, in the attributes plugin's "\*W"; %.17g gives
                 * back the very double */
                char v[40];
                int vn = w != 1.0 && r->weights == W_SCALE ? snprintf(v, sizeof v, "\\*%.17g", w)
                                                           : 0;
                if (vn > 0 && !lex_sb_add(aux, v, (size_t)vn))
                    return crfp_error(a->host, CRFP_ENOMEM, "out of memory");
            }
        }
        f = fe + 1;
    }
    if ((first && !lex_sb_add(aux, "_", 1)) || !lex_sb_add(aux, "", 1))
        return crfp_error(a->host, CRFP_ENOMEM, "out of memory");
    return CRFP_OK;
}

static crfp_status cs_next(void *state, crfp_doc **out)
{
    return attrseq_next(&((csreader *)state)->a, out);
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
