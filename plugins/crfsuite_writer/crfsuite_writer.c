/* crfsuite_writer — labels as `crfsuite tag` prints them: one line per
 * token, a blank line after each sequence.  A token with a gold label and
 * a prediction gets "GOLD<TAB>PREDICTED" (`crfsuite tag -r`), which
 * `crfpipe eval` and conlleval score as they are; a token with only one of
 * them gets that one.  The prediction is the token feature `prediction`
 * (default: the viterbi tagger's output), the gold label `label`.
 * `reference=false` leaves the gold out, as `crfsuite tag` without -r.
 *
 * What -p, -i and -l add comes from the tagger's results: `probability`
 * heads each sequence with "@score<TAB>SCORE<TAB>LOGZ" and
 * "@probability<TAB>P" (the Sentence features PRED-scores, PRED-lognorm and
 * PRED-seqprob: crfpipe tag --scores true --posteriors); `marginal` appends
 * ":P" to each prediction (PRED-prob: --posteriors); `marginal-all` appends
 * "<TAB>LABEL:P" for each label (PRED-marginal-1..N in the model's label
 * order: --marginals N --marginals-order label, N at least the label
 * count).  A result asked for and missing is an error naming the token or
 * sequence and the option that gives it.
 *
 * The format has no place for anything else: the document's other columns
 * (a tagger's n-best, probability and marginal columns, a column file's
 * words) are named in one warning, so that none vanishes without a word.
 * A label holding a TAB or a line break would break the lines: an error.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/columns.h"
#include "../common/sentwalk.h"

static const crfp_param_spec params[] = {
    {"label", CRFP_PARAM_STRING, "label", "token feature with the gold label"},
    {"prediction", CRFP_PARAM_STRING, "predicted", "token feature with the predicted label"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentences and Tokens"},
    {"reference", CRFP_PARAM_BOOL, "true",
     "the gold label before the prediction when a token has one (crfsuite tag -r); false: the "
     "prediction alone"},
    {"probability", CRFP_PARAM_BOOL, "false",
     "before each sequence '@score SCORE LOGZ' and '@probability P' (crfsuite tag -p; needs "
     "crfpipe tag --scores true --posteriors)"},
    {"marginal", CRFP_PARAM_BOOL, "false",
     "each prediction followed by ':' and its marginal (crfsuite tag -i; needs --posteriors)"},
    {"marginal-all", CRFP_PARAM_BOOL, "false",
     "each token's line followed by LABEL:MARGINAL for every label (crfsuite tag -l; needs "
     "--marginals N --marginals-order label, N at least the number of labels)"},
};

typedef struct csw {
    crfp_host *host;
    crfp_stream *out;
    const char *label, *pred, *set;
    int warned, reference, probability, marginal, marginal_all;
} csw;

static crfp_status w_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    csw *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    w->host = host;
    w->out = out;
    w->label = crfp_params_str(p, "label");
    w->pred = crfp_params_str(p, "prediction");
    w->set = crfp_params_str(p, "set");
    w->reference = crfp_params_bool(p, "reference");
    w->probability = crfp_params_bool(p, "probability");
    w->marginal = crfp_params_bool(p, "marginal");
    w->marginal_all = crfp_params_bool(p, "marginal-all");
    *state = w;
    return CRFP_OK;
}

/* Whether the l bytes at s are PRED followed by suffix. */
static int pred_plus(const csw *w, const char *s, size_t l, const char *suffix)
{
    size_t pl = strlen(w->pred), sl = strlen(suffix);
    return l >= pl + sl && memcmp(s, w->pred, pl) == 0 && memcmp(s + pl, suffix, sl) == 0;
}

/* Whether the l bytes at s are one of the names written (or the attributes
 * of CRFsuite's own data, which are the input, not a result; or the gold
 * label that reference=false leaves out on purpose). */
static int written(void *ud, const char *s, size_t l)
{
    const csw *w = ud;
    return (strlen(w->label) == l && memcmp(s, w->label, l) == 0) ||
           (strlen(w->pred) == l && memcmp(s, w->pred, l) == 0) ||
           (w->marginal && pred_plus(w, s, l, "-prob") && l == strlen(w->pred) + 5) ||
           (w->marginal_all && pred_plus(w, s, l, "-marginal-")) ||
           (l == 5 && memcmp(s, "attrs", 5) == 0);
}

/* The feature PRED+suffix of a (NULL: none). */
static const crfp_value *pred_feature(const csw *w, const crfp_ann *a, const char *suffix)
{
    char name[300];
    snprintf(name, sizeof name, "%s%s", w->pred, suffix);
    return a ? crfp_ann_get(a, name) : NULL;
}

/* The first number of a Sentence's list feature, or of a float one. */
static int first_number(const crfp_value *v, double *x)
{
    if (v && v->type == CRFP_V_LIST && v->u.list.n > 0)
        v = &v->u.list.items[0];
    if (!v || v->type != CRFP_V_FLOAT)
        return 0;
    *x = v->u.f;
    return 1;
}

/* probability=true: the two lines crfsuite tag -p heads a sequence with. */
static crfp_status put_probability(csw *w, const crfp_doc *doc, size_t s, const crfp_ann *sent)
{
    double score, logz, p;
    if (!first_number(pred_feature(w, sent, "-scores"), &score) ||
        !first_number(pred_feature(w, sent, "-lognorm"), &logz) ||
        !first_number(pred_feature(w, sent, "-seqprob"), &p))
        return crfp_error(w->host, CRFP_ENOTFOUND, "document '%s', sentence %zu: probability=true, "
                          "but the sentence has no score, log partition and probability (crfpipe "
                          "tag --scores true --posteriors gives them)",
                          crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1);
    fprintf(w->out->fp, "@score\t%f\t%f\n@probability\t%f\n", score, logz, p);
    return CRFP_OK;
}

/* marginal and marginal-all: what crfsuite tag -i and -l add to token t's
 * line. */
static crfp_status put_marginals(csw *w, const crfp_doc *doc, size_t s, size_t t,
                                 const crfp_ann *tok)
{
    const char *where = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    if (w->marginal) {
        const crfp_value *v = pred_feature(w, tok, "-prob");
        if (!v || v->type != CRFP_V_STRING || strpbrk(v->u.s, "\t\n\r"))
            return crfp_error(w->host, CRFP_ENOTFOUND, "document '%s', sentence %zu, token %zu: "
                              "marginal=true, but the token has no marginal (crfpipe tag "
                              "--posteriors gives it)", where, s + 1, t + 1);
        fprintf(w->out->fp, ":%s", v->u.s);
    }
    for (size_t r = 1; w->marginal_all; r++) {
        char suffix[40];
        snprintf(suffix, sizeof suffix, "-marginal-%zu", r);
        const crfp_value *v = pred_feature(w, tok, suffix);
        const char *slash = v && v->type == CRFP_V_STRING ? strrchr(v->u.s, '/') : NULL;
        if (!v && r > 1)
            break;
        if (!slash || strpbrk(v->u.s, "\t\n\r"))
            return crfp_error(w->host, CRFP_ENOTFOUND, "document '%s', sentence %zu, token %zu: "
                              "marginal-all=true, but %s (crfpipe tag --marginals N "
                              "--marginals-order label gives every label's)", where, s + 1, t + 1,
                              v ? "a marginal is not LABEL/PROBABILITY" : "the token has no "
                              "marginals");
        fprintf(w->out->fp, "\t%.*s:%s", (int)(slash - v->u.s), v->u.s, slash + 1);
    }
    return CRFP_OK;
}

/* One warning naming the document's columns that are not written. */
static void report_dropped(csw *w, const crfp_doc *doc)
{
    const char *cols = crfp_doc_meta_str(doc, "columns");
    char list[256];
    size_t more;
    if (w->warned || !cols || columns_unwritten(cols, written, w, list, sizeof list, &more) == 0)
        return;
    w->warned = 1;
    crfp_log(w->host, CRFP_LOG_WARN, "%s: the crfsuite output holds the gold and predicted "
             "labels only: %s%s not written (--to conll or --to xml keeps every column)",
             w->out->name ? w->out->name : "output", list, more ? " and more" : "");
}

static crfp_status put_label(csw *w, const crfp_doc *doc, size_t s, size_t t, const char *v)
{
    if (strpbrk(v, "\t\n\r"))
        return crfp_error(w->host, CRFP_EINVAL, "document '%s', sentence %zu, token %zu: the "
                          "label '%.60s' holds a TAB or a line break, which this format "
                          "cannot hold", crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1, t + 1,
                          v);
    fputs(v, w->out->fp);
    return CRFP_OK;
}

/* One sequence: a line per token, then a blank line (sentwalk_fn). */
static crfp_status put_sentence(void *ud, const crfp_doc *doc, size_t s, const crfp_ann *sent,
                                crfp_ann *const *toks, size_t nt)
{
    csw *w = ud;
    crfp_status st = CRFP_OK;
    if (w->probability && nt > 0 && (st = put_probability(w, doc, s, sent)) != CRFP_OK)
        return st;
    for (size_t t = 0; t < nt && st == CRFP_OK; t++) {
        const char *gold = w->reference ? crfp_ann_str(toks[t], w->label) : NULL;
        const char *pred = crfp_ann_str(toks[t], w->pred);
        if (!gold && !pred)
            return crfp_error(w->host, CRFP_ENOTFOUND, "document '%s', sentence %zu, token "
                              "%zu: neither a '%s' nor a '%s' feature to write",
                              crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1, t + 1, w->label,
                              w->pred);
        if (gold && (st = put_label(w, doc, s, t, gold)) != CRFP_OK)
            break;
        if (gold && pred)
            fputc('\t', w->out->fp);
        if (pred && (st = put_label(w, doc, s, t, pred)) != CRFP_OK)
            break;
        if ((w->marginal || w->marginal_all) && (st = put_marginals(w, doc, s, t, toks[t])) !=
                                                    CRFP_OK)
            break;
        fputc('\n', w->out->fp);
    }
    if (st == CRFP_OK && nt > 0)
        fputc('\n', w->out->fp);
    return st;
}

static crfp_status w_write(void *state, const crfp_doc *doc)
{
    csw *w = state;
    if (crfp_doc_annset((crfp_doc *)doc, w->set, 0))
        report_dropped(w, doc);
    return sentwalk_document(w->host, w->out, doc, w->set, put_sentence, w);
}

static crfp_status w_finish(void *state)
{
    csw *w = state;
    return sentwalk_out_status(w->host, w->out, 1);
}

static void w_close(void *state)
{
    free(state);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = w_open,
    .write = w_write,
    .finish = w_finish,
    .close = w_close,
};

static const char *const formats[] = {"crfsuite", NULL};

CRFP_PLUGIN_DEFINE(crfsuite_writer) = {
    CRFP_PLUGIN_ABI,
    .name = "crfsuite_writer",
    .kind = CRFP_KIND_WRITER,
    .version = PACKAGE_VERSION,
    .description = "labels as crfsuite tag prints them: GOLD<TAB>PREDICTED per token (-r), a "
                   "blank line between sequences",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
};
