/* crfpp_writer — labels as CRF++'s crf_test prints them: each token's
 * columns, a TAB and the predicted label; a blank line after each
 * sentence.  The columns are a column file's (the CoNLL reader's, which is
 * what crf_test reads), joined by TABs whatever separated them, the
 * prediction's own (PREDICTION, PREDICTION-...) left out; a document of
 * another format gives each token's text.
 *
 * What crf_test's options add comes from the tagger's results:
 *   verbose=1 (-v1)  "# P" before each sentence, P its labelling's
 *                    probability (the Sentence feature PREDICTION-seqprob),
 *                    and "/P" after each label, its marginal
 *                    (PREDICTION-prob): crfpipe tag --posteriors;
 *   verbose=2 (-v2)  also "<TAB>LABEL/P" for every label (the features
 *                    PREDICTION-marginal-1..N): --marginals N
 *                    --marginals-order label, N at least the label count;
 *   --nbest N (-n N) the N best labellings one after the other, each headed
 *                    "# K P" (K from 0), which needs --posteriors; with
 *                    verbose, a later labelling's marginals are looked up
 *                    in the marginals, so --marginals too.  The writer's
 *                    own `nbest` (crfpipe tag gives --nbest to both) says
 *                    n-best was asked for, so that -n 1 heads its one
 *                    labelling "# 0 P" as crf_test does; without it, more
 *                    than one labelling is what says so.
 * A result asked for and missing is an error naming the document, sentence
 * and token and the option that gives it; a cell or label holding a TAB or
 * a line break, which would break the line, is an error too.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/columns.h"
#include "../common/sentwalk.h"

static const crfp_param_spec params[] = {
    {"prediction", CRFP_PARAM_STRING, "predicted", "token feature with the predicted label"},
    {"verbose", CRFP_PARAM_INT, "0",
     "crf_test -v: 1 adds each sentence's probability and each label's marginal (crfpipe tag "
     "--posteriors), 2 every label's marginal too (--marginals N --marginals-order label)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentences and Tokens"},
    {"nbest", CRFP_PARAM_INT, "0",
     "crf_test -n N: N > 0 heads each labelling '# K P', even the one of N = 1 (crfpipe tag "
     "--nbest gives it here and to the tagger); 0: only when there are several"},
};

typedef struct cpw {
    crfp_host *host;
    crfp_stream *out;
    const char *pred, *set;
    int verbose, warned;
    int64_t nbest;  /* crf_test -n asked for (0: not) */
    linecols lc;   /* this document's columns, if it is a column file's */
} cpw;

static crfp_status w_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    int64_t v = crfp_params_int(p, "verbose");
    if (v < 0 || v > 2)
        return crfp_error(host, CRFP_EINVAL, "verbose must be 0, 1 or 2 (crf_test -v), not %lld",
                          (long long)v);
    cpw *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    w->host = host;
    w->out = out;
    w->pred = crfp_params_str(p, "prediction");
    w->set = crfp_params_str(p, "set");
    w->verbose = (int)v;
    w->nbest = crfp_params_int(p, "nbest");
    *state = w;
    return CRFP_OK;
}

/* The feature PRED+suffix of a (NULL: none). */
static const crfp_value *pred_feature(const cpw *w, const crfp_ann *a, const char *suffix)
{
    char name[300];
    snprintf(name, sizeof name, "%s%s", w->pred, suffix);
    return a ? crfp_ann_get(a, name) : NULL;
}

/* Whether the l bytes at s are PRED+suffix followed by digits only
 * (digits: at least one) or nothing (digits 0). */
static int pred_digits(const cpw *w, const char *s, size_t l, const char *suffix, int digits)
{
    size_t pl = strlen(w->pred), sl = strlen(suffix), k = pl + sl;
    if (l < k || memcmp(s, w->pred, pl) != 0 || memcmp(s + pl, suffix, sl) != 0)
        return 0;
    if (!digits)
        return l == k;
    while (k < l && s[k] >= '0' && s[k] <= '9')
        k++;
    return k == l && l > pl + sl;
}

/* The columns written: the line's, the predictions (OUTPUT, OUTPUT-K), and
 * with verbose the marginals. */
static int written(void *ud, const char *s, size_t l)
{
    const cpw *w = ud;
    if (w->lc.n && !linecols_is_prediction(w->pred, s, l))
        return 1;
    return pred_digits(w, s, l, "", 0) || pred_digits(w, s, l, "-", 1) ||
           (w->verbose >= 1 && pred_digits(w, s, l, "-prob", 0)) ||
           (w->verbose >= 2 && pred_digits(w, s, l, "-marginal-", 1));
}

static void report_dropped(cpw *w, const crfp_doc *doc)
{
    const char *cols = crfp_doc_meta_str(doc, "columns");
    char list[256];
    size_t more;
    if (w->warned || !cols || columns_unwritten(cols, written, w, list, sizeof list, &more) == 0)
        return;
    w->warned = 1;
    crfp_log(w->host, CRFP_LOG_WARN, "%s: the crfpp output holds the columns, the predicted "
             "labels and (verbose) their probabilities only: %s%s not written (--to xml keeps "
             "every column)", w->out->name ? w->out->name : "output", list, more ? " and more" : "");
}

static crfp_status unwritable(cpw *w, const crfp_doc *doc, size_t s, size_t t, const char *what)
{
    return crfp_error(w->host, CRFP_EINVAL, "document '%s', sentence %zu, token %zu: %s",
                      crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1, t + 1, what);
}

/* The marginal of label lab at token a, as LABEL/P's P: the prediction's
 * own probability for the best labelling, else looked up in the
 * marginals. */
static const char *marginal_of(const cpw *w, const crfp_ann *a, const char *lab, size_t k)
{
    if (k == 0) {
        const crfp_value *v = pred_feature(w, a, "-prob");
        if (v && v->type == CRFP_V_STRING)
            return v->u.s;
    }
    size_t ll = strlen(lab);
    for (size_t r = 1; r <= 100000; r++) {
        char suffix[40];
        snprintf(suffix, sizeof suffix, "-marginal-%zu", r);
        const crfp_value *v = pred_feature(w, a, suffix);
        if (!v || v->type != CRFP_V_STRING)
            return NULL;
        const char *slash = strrchr(v->u.s, '/');
        if (slash && (size_t)(slash - v->u.s) == ll && memcmp(v->u.s, lab, ll) == 0)
            return slash + 1;
    }
    return NULL;
}

/* Token t of sentence s in labelling k: its columns, a TAB, the label of
 * feature `predname`, and what verbose adds. */
static crfp_status put_token(cpw *w, const crfp_doc *doc, size_t s, size_t t, const crfp_ann *a,
                             const char *predname, size_t k)
{
    FILE *fp = w->out->fp;
    const char *pred = crfp_ann_str(a, predname);
    if (!pred)
        return unwritable(w, doc, s, t, "no prediction to write (is a tagger in the pipeline?)");
    if (strpbrk(pred, "\t\n\r"))
        return unwritable(w, doc, s, t, "the prediction holds a TAB or a line break");
    const char *p = w->verbose ? marginal_of(w, a, pred, k) : NULL;
    if (w->verbose && !p)
        return unwritable(w, doc, s, t, k == 0 ? "verbose, but the token has no marginal "
                          "(crfpipe tag --posteriors gives it)" : "verbose with --nbest, but "
                          "the token has no marginal of a later labelling's label (crfpipe tag "
                          "--marginals N, N the number of labels, gives them)");
    for (size_t r = 1; w->verbose >= 2; r++) {
        char suffix[40];
        snprintf(suffix, sizeof suffix, "-marginal-%zu", r);
        const crfp_value *v = pred_feature(w, a, suffix);
        if (!v && r > 1)
            break;
        if (!v || v->type != CRFP_V_STRING || !strrchr(v->u.s, '/') ||
            strpbrk(v->u.s, "\t\n\r"))
            return unwritable(w, doc, s, t, v ? "a marginal is not LABEL/PROBABILITY" :
                              "verbose=2, but the token has no marginals (crfpipe tag "
                              "--marginals N --marginals-order label gives every label's)");
    }
    const char *why = linecols_put(&w->lc, doc, a, '\t', "\t", fp);
    if (why)
        return unwritable(w, doc, s, t, why);
    fputs(pred, fp);
    if (p)
        fprintf(fp, "/%s", p);
    for (size_t r = 1; w->verbose >= 2; r++) {
        char suffix[40];
        snprintf(suffix, sizeof suffix, "-marginal-%zu", r);
        const crfp_value *v = pred_feature(w, a, suffix);
        if (!v)
            break;
        fprintf(fp, "\t%s", v->u.s);
    }
    fputc('\n', fp);
    return CRFP_OK;
}

/* One sentence: each labelling the tagger gave, headed as crf_test heads
 * it, a line per token, a blank line (sentwalk_fn). */
static crfp_status put_sentence(void *ud, const crfp_doc *doc, size_t s, const crfp_ann *sent,
                                crfp_ann *const *toks, size_t nt)
{
    cpw *w = ud;
    char name[160];
    if (nt == 0)
        return CRFP_OK;
    size_t nbest = sentwalk_nbest(toks[0], w->pred);
    const crfp_value *v = pred_feature(w, sent, "-seqprob");
    int ok = v && v->type == CRFP_V_LIST && v->u.list.n > 0;
    for (size_t k = 0; ok && k < v->u.list.n; k++)
        ok = v->u.list.items[k].type == CRFP_V_FLOAT;
    const int headed = nbest > 1 || w->nbest > 0; /* crf_test -n: "# K P" */
    if ((headed || w->verbose) && !ok)
        return unwritable(w, doc, s, 0, headed ? "n-best labellings, but the sentence has "
                          "no probability of each (crfpipe tag --posteriors gives them)" :
                          "verbose, but the sentence has no probability (crfpipe tag "
                          "--posteriors gives it)");
    /* a sentence with fewer labellings than --nbest asked for: those found */
    if (ok && v->u.list.n < nbest)
        nbest = v->u.list.n;
    crfp_status st = CRFP_OK;
    for (size_t k = 0; k < nbest && st == CRFP_OK; k++) {
        if (headed)
            fprintf(w->out->fp, "# %zu %f\n", k, v->u.list.items[k].u.f);
        else if (w->verbose)
            fprintf(w->out->fp, "# %f\n", v->u.list.items[0].u.f);
        const char *pn = sentwalk_pred_name(w->pred, k, name, sizeof name);
        for (size_t t = 0; t < nt && st == CRFP_OK; t++)
            st = put_token(w, doc, s, t, toks[t], pn, k);
        if (st == CRFP_OK)
            fputc('\n', w->out->fp);
    }
    return st;
}

static crfp_status w_write(void *state, const crfp_doc *doc)
{
    cpw *w = state;
    crfp_status st = linecols_of(w->host, doc, w->pred, &w->lc);
    if (st != CRFP_OK)
        return st;
    report_dropped(w, doc);
    return sentwalk_document(w->host, w->out, doc, w->set, put_sentence, w);
}

static crfp_status w_finish(void *state)
{
    cpw *w = state;
    return sentwalk_out_status(w->host, w->out, 1);
}

static void w_close(void *state)
{
    linecols_free(&((cpw *)state)->lc);
    free(state);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = w_open,
    .write = w_write,
    .finish = w_finish,
    .close = w_close,
};

static const char *const formats[] = {"crfpp", NULL};

CRFP_PLUGIN_DEFINE(crfpp_writer) = {
    CRFP_PLUGIN_ABI,
    .name = "crfpp_writer",
    .kind = CRFP_KIND_WRITER,
    .version = PACKAGE_VERSION,
    .description = "labels as CRF++'s crf_test prints them: each token's columns, a TAB and the "
                   "predicted label; a blank line between sentences (verbose=1, 2: -v1, -v2)",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
};
