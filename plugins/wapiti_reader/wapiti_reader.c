/* wapiti_reader — Wapiti's data with its observations given (what `wapiti
 * train` reads without a pattern file), for the attributes features plugin
 * (bigram=wapiti, or bigram=wapiti-me).
 *
 * A line is one item: fields separated by white space (C's isspace, as
 * Wapiti splits them), the last one its label when the data is labelled; a
 * line of white space only ends a sequence.  Each other field is an
 * observation whose first byte says its kind, as in Wapiti: 'u' unigram,
 * 'b' label pair, '*' both; anything else is refused, naming the line.
 * With maxent=true the data is read as `wapiti train --me` reads it: every
 * line a sequence of its own and its fields observations of any spelling
 * (the features plugin, bigram=wapiti-me, makes each a unigram "u"+field,
 * as Wapiti does).
 *
 * Whether the last field is a label cannot be seen in every line (`wapiti
 * label` is told, with -c): labelled=true or false says so; labelled=auto,
 * the default, decides on the first item: its last field is a label unless
 * it starts with u, b or * as an observation does (so labels that start
 * with one of those need labelled=true).  Once auto has decided "none", a
 * later last field that cannot be an observation is an error naming its
 * line rather than an observation of a misread label.
 *
 * Items become Tokens with `attrs` (the fields, in the attributes plugin's
 * escaping) and `label`, sequences Sentences: plugins/common/attrseq.h.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/attrseq.h"

static const crfp_param_spec params[] = {
    {"labelled", CRFP_PARAM_STRING, "auto",
     "whether the last field of a line is its label: true, false (wapiti label without -c) or "
     "auto (decided on the first line: a label unless it starts with u, b or *)"},
    {"maxent", CRFP_PARAM_BOOL, "false",
     "every line a sequence of its own and its fields observations of any spelling, as "
     "wapiti train --me reads them (features: attributes, bigram=wapiti-me)"},
    {"block", CRFP_PARAM_INT, "1000", "sequences per document (>= 1)"},
};

enum { LAB_NO, LAB_YES, LAB_AUTO };

typedef struct wreader {
    attrseq_reader a;        /* first: the line function gets it */
    int labelled;            /* the parameter: LAB_* */
    int lab;                 /* LAB_YES or LAB_NO; with auto -1 until the first item */
    unsigned long decided_at;   /* the line where auto decided */
    int maxent;
} wreader;

static void wr_close(void *state)
{
    wreader *r = state;
    if (!r)
        return;
    attrseq_free(&r->a);
    free(r);
}

/* Wapiti's white space: a line of it only ends a sequence. */
static int wr_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return 0;
    return 1;
}

static int is_obs(const char *f)
{
    return f[0] == 'u' || f[0] == 'b' || f[0] == '*';
}

/* The next field of l[*at..n): its start and length; 0 when there is none. */
static int field(const char *l, size_t n, size_t *at, const char **f, size_t *len)
{
    size_t i = *at;
    while (i < n && isspace((unsigned char)l[i]))
        i++;
    if (i == n)
        return 0;
    size_t b = i;
    while (i < n && !isspace((unsigned char)l[i]))
        i++;
    *f = l + b;
    *len = i - b;
    *at = i;
    return 1;
}

static crfp_status wr_line(attrseq_reader *a, lex_sbuf *aux, size_t *cell, int *has_label,
                           int *skip)
{
    wreader *r = (wreader *)a;
    const char *l = a->L.line, *f, *last = NULL;
    size_t n = a->L.len, at = 0, len, lastlen = 0, nf = 0;
    (void)skip;
    while (field(l, n, &at, &f, &len)) {
        last = f;
        lastlen = len;
        nf++;
    }
    if (r->lab < 0) {
        r->lab = is_obs(last) ? LAB_NO : LAB_YES;
        r->decided_at = a->L.lineno;
    }
    int lab = r->lab;
    if (r->labelled == LAB_AUTO && lab == LAB_NO && !is_obs(last))
        return crfp_error(a->host, CRFP_EPARSE, "%s:%lu: the last field '%.*s' does not start "
                          "with u, b or * as an observation does, but line %lu's last field "
                          "did, which made it data without labels (labelled=auto): give "
                          "labelled=true or labelled=false", attrseq_name(a), a->L.lineno,
                          (int)(lastlen > 80 ? 80 : lastlen), last, r->decided_at);
    *has_label = lab == LAB_YES;
    if (!lex_sb_add(aux, lab == LAB_YES ? last : "", lab == LAB_YES ? lastlen : 0) ||
        !lex_sb_add(aux, "", 1))
        return crfp_error(a->host, CRFP_ENOMEM, "out of memory");
    *cell = aux->n;
    size_t nobs = nf - (lab == LAB_YES), k = 0;
    at = 0;
    while (k < nobs && field(l, n, &at, &f, &len)) {
        if (!r->maxent && !is_obs(f))
            return crfp_error(a->host, CRFP_EPARSE, "%s:%lu: field %zu '%.*s' does not start "
                              "with u, b or *, the kinds of Wapiti's observations (maxent=true "
                              "reads data as wapiti --me does%s)", attrseq_name(a),
                              a->L.lineno, k + 1, (int)(len > 80 ? 80 : len), f,
                              lab == LAB_YES ? "" : "; labelled=true if it is a label");
        if (!attrseq_cell_add(aux, k == 0, f, len, 0))
            return crfp_error(a->host, CRFP_ENOMEM, "out of memory");
        k++;
    }
    if ((nobs == 0 && !lex_sb_add(aux, "_", 1)) || !lex_sb_add(aux, "", 1))
        return crfp_error(a->host, CRFP_ENOMEM, "out of memory");
    return CRFP_OK;
}

static crfp_status wr_open(crfp_host *host, const crfp_params *p, crfp_stream *in, void **state)
{
    const char *lv = crfp_params_str(p, "labelled");
    int lab = strcmp(lv, "true") == 0 ? LAB_YES : strcmp(lv, "false") == 0 ? LAB_NO
              : strcmp(lv, "auto") == 0 ? LAB_AUTO : -1;
    if (lab < 0)
        return crfp_error(host, CRFP_EINVAL, "parameter 'labelled': '%s' is not true, false "
                          "or auto", lv);
    int maxent = crfp_params_bool(p, "maxent");
    if (maxent && lab == LAB_AUTO)
        return crfp_error(host, CRFP_EINVAL, "with maxent=true the observations need not start "
                          "with u, b or *, so labels cannot be told from them: give "
                          "labelled=true or labelled=false");
    int64_t block = crfp_params_int(p, "block");
    if (block < 1)
        return crfp_error(host, CRFP_EINVAL, "parameter 'block' must be >= 1");
    wreader *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    attrseq_init(&r->a, host, p, in);
    r->a.block = block;
    r->a.per_line = maxent;
    r->a.format = "wapiti";
    r->a.processor = "wapiti_reader";
    r->a.line = wr_line;
    r->a.blank = wr_blank;
    r->labelled = lab;
    r->lab = lab == LAB_AUTO ? -1 : lab;
    r->maxent = maxent;
    *state = r;
    return CRFP_OK;
}

static crfp_status wr_next(void *state, crfp_doc **out)
{
    return attrseq_next(&((wreader *)state)->a, out);
}

/* Wapiti data with its observations: every field of every line but the
 * last starts with u, b or *, and at least one line has two fields.  A
 * CoNLL file's words seldom all do; a CRFsuite file's label comes first. */
static int wr_probe(const char *head, size_t len)
{
    size_t at = 0, b, e, lines = 0, multi = 0;
    int complete;
    while (colio_probe_line(head, len, &at, &b, &e, &complete)) {
        if (!complete && len >= COLIO_PROBE_MAX)
            break;
        if (wr_blank(head + b, e - b))
            continue;
        size_t k = 0, fl, nf = 0;
        const char *f, *prev = NULL;
        while (field(head + b, e - b, &k, &f, &fl)) {
            if (prev && !is_obs(prev))
                return 0;
            prev = f;
            nf++;
        }
        multi += nf > 1;
        lines++;
    }
    return lines && multi ? 55 : 0;
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = wr_open,
    .next = wr_next,
    .close = wr_close,
    .probe = wr_probe,
};

static const char *const formats[] = {"wapiti", NULL};

CRFP_PLUGIN_DEFINE(wapiti_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "wapiti_reader",
    .kind = CRFP_KIND_READER,
    .version = PACKAGE_VERSION,
    .description = "Wapiti's data with its observations given (white-space separated fields "
                   "starting with u, b or *, the label last; a blank line between sequences), "
                   "for the attributes features plugin",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    /* blank lines end sequences and nothing spans them */
    .flags = CRFP_PLUGIN_SPLIT_BLANK_LINES,
};
