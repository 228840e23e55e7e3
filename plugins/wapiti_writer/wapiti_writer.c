/* wapiti_writer — labels as `wapiti label` prints them: each token's input
 * line, a TAB and the predicted label; a blank line after each sequence.
 * The input line is the token's text, which wapiti_reader makes the line
 * as read (so with labelled data the gold label is on it, as with `wapiti
 * label -c`; with labels-only=true the predictions alone, as -l).  A
 * document of a column file (the CoNLL reader's: what a model imported
 * with its pattern file tags) has its line made again from its columns,
 * joined by the file's separator, those of the prediction (PREDICTION and
 * PREDICTION-...) left out: `wapiti label` echoes the line it read.  With
 * --nbest N each labelling is written in turn, as `wapiti label -n N`
 * writes them.  With scores=true each is headed by "# K SCORE", K
 * counting from 0, and each token's line ends in "<TAB>LABEL/SCORE", as
 * `wapiti label -s` writes them: the tagger's scores and token-scores
 * (under decode=posterior the product of the marginals and each marginal,
 * as with -p -s).
 *
 * The prediction is the token feature `prediction` (default: the viterbi
 * tagger's `predicted`).  A token without one, or a text or label holding
 * a line break, is an error naming the document, sequence and token: the
 * format has no place for it.  The document's other result columns (a
 * tagger's n-best, marginals) are named in one warning.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/columns.h"
#include "../common/sentwalk.h"

static const crfp_param_spec params[] = {
    {"prediction", CRFP_PARAM_STRING, "predicted", "token feature with the predicted label"},
    {"scores", CRFP_PARAM_BOOL, "false",
     "as wapiti label -s: a line '# K SCORE' before each labelling (K: 0, or 0..N-1 with "
     "--nbest N) and each token's LABEL/SCORE after its label: the Sentence feature "
     "PREDICTION-scores and the token features PREDICTION-score, PREDICTION-K-score, given by "
     "crfpipe tag --scores true --token-scores true"},
    {"labels-only", CRFP_PARAM_BOOL, "false",
     "the predicted labels alone, without the input lines (wapiti label -l)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentences and Tokens"},
};

typedef struct wpw {
    crfp_host *host;
    crfp_stream *out;
    const char *pred, *set;
    int scores, labels_only, warned;
    linecols lc;   /* this document's line, if it is a column file's */
} wpw;

static crfp_status w_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    wpw *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    w->host = host;
    w->out = out;
    w->pred = crfp_params_str(p, "prediction");
    w->set = crfp_params_str(p, "set");
    w->scores = crfp_params_bool(p, "scores");
    w->labels_only = crfp_params_bool(p, "labels-only");
    *state = w;
    return CRFP_OK;
}

/* The columns the line and the predictions hold: the line's (a column
 * file's, or wapiti_reader's), OUTPUT, OUTPUT-K of --nbest, and with
 * scores=true OUTPUT-score and OUTPUT-K-score. */
static int written(void *ud, const char *s, size_t l)
{
    const wpw *w = ud;
    size_t pl = strlen(w->pred), k = pl + 1;
    if (w->lc.n && !linecols_is_prediction(w->pred, s, l))
        return 1;
    if (w->scores && l >= 6 && memcmp(s + l - 6, "-score", 6) == 0)
        l -= 6;
    if (l > pl + 1 && memcmp(s, w->pred, pl) == 0 && s[pl] == '-') {
        while (k < l && s[k] >= '0' && s[k] <= '9')
            k++;
        if (k == l)
            return 1;
    }
    return (pl == l && memcmp(s, w->pred, l) == 0) || (l == 5 && memcmp(s, "attrs", 5) == 0) ||
           (l == 5 && memcmp(s, "label", 5) == 0);
}

static void report_dropped(wpw *w, const crfp_doc *doc)
{
    const char *cols = crfp_doc_meta_str(doc, "columns");
    char list[256];
    size_t more;
    if (w->warned || !cols || columns_unwritten(cols, written, w, list, sizeof list, &more) == 0)
        return;
    w->warned = 1;
    crfp_log(w->host, CRFP_LOG_WARN, "%s: the wapiti output holds the input lines and the "
             "predicted labels only: %s%s not written (--to xml keeps every column)",
             w->out->name ? w->out->name : "output", list, more ? " and more" : "");
}

static crfp_status unwritable(wpw *w, const crfp_doc *doc, size_t s, size_t t, const char *what)
{
    return crfp_error(w->host, CRFP_EINVAL, "document '%s', sequence %zu, token %zu: %s",
                      crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1, t + 1, what);
}

/* Token t of sequence s: its text and a TAB (not with labels-only), its
 * prediction (the feature `pred`), and with scores=true a TAB, the
 * prediction again, '/' and its score (the feature `pred`-score). */
static crfp_status put_token(wpw *w, const crfp_doc *doc, size_t s, size_t t, const crfp_ann *a,
                             const char *predname)
{
    const char *pred = crfp_ann_str(a, predname), *score = NULL;
    if (!pred)
        return unwritable(w, doc, s, t, "no prediction to write (is a tagger in the pipeline?)");
    if (strpbrk(pred, "\n\r"))
        return unwritable(w, doc, s, t, "the prediction holds a line break");
    if (w->scores) {
        char sname[176];
        snprintf(sname, sizeof sname, "%s-score", predname);
        if (!(score = crfp_ann_str(a, sname)))
            return unwritable(w, doc, s, t, "scores=true, but it has no score (crfpipe tag "
                              "--token-scores true gives each token's)");
        if (strpbrk(score, "\n\r"))
            return unwritable(w, doc, s, t, "its score holds a line break");
    }
    const char *why = w->labels_only ? NULL : linecols_put(&w->lc, doc, a, w->lc.sep, "",
                                                           w->out->fp);
    if (why)
        return unwritable(w, doc, s, t, why);
    fputs(pred, w->out->fp);
    if (score)
        fprintf(w->out->fp, "\t%s/%s", pred, score);
    fputc('\n', w->out->fp);
    return CRFP_OK;
}

/* One sequence: for each labelling the tagger gave (as wapiti label -n),
 * its score line, a line per token, then a blank line (sentwalk_fn). */
static crfp_status put_sentence(void *ud, const crfp_doc *doc, size_t s, const crfp_ann *sent,
                                crfp_ann *const *toks, size_t nt)
{
    wpw *w = ud;
    char name[160];
    if (nt == 0)
        return CRFP_OK;
    size_t nbest = sentwalk_nbest(toks[0], w->pred);
    char sname[160];
    snprintf(sname, sizeof sname, "%s-scores", w->pred);
    const crfp_value *v = w->scores ? crfp_ann_get(sent, sname) : NULL;
    if (w->scores && (!v || v->type != CRFP_V_LIST || v->u.list.n == 0))
        return unwritable(w, doc, s, 0, "scores=true, but the sequence has no score for each "
                          "labelling (crfpipe tag --scores true gives them)");
    /* a sequence with fewer labellings than --nbest asked for (a short
     * one): the tagger scored those it found, and marks the others "_" */
    if (w->scores && v->u.list.n < nbest)
        nbest = v->u.list.n;
    crfp_status st = CRFP_OK;
    for (size_t k = 0; k < nbest && st == CRFP_OK; k++) {
        if (w->scores) {
            if (v->u.list.items[k].type != CRFP_V_FLOAT)
                return unwritable(w, doc, s, 0, "a score that is not a number");
            fprintf(w->out->fp, "# %zu %f\n", k, v->u.list.items[k].u.f);
        }
        const char *pn = sentwalk_pred_name(w->pred, k, name, sizeof name);
        for (size_t t = 0; t < nt && st == CRFP_OK; t++)
            st = put_token(w, doc, s, t, toks[t], pn);
        if (st == CRFP_OK)
            fputc('\n', w->out->fp);
    }
    return st;
}

static crfp_status w_write(void *state, const crfp_doc *doc)
{
    wpw *w = state;
    crfp_status st = linecols_of(w->host, doc, w->pred, &w->lc);
    if (st != CRFP_OK)
        return st;
    report_dropped(w, doc);
    return sentwalk_document(w->host, w->out, doc, w->set, put_sentence, w);
}

static crfp_status w_finish(void *state)
{
    wpw *w = state;
    return sentwalk_out_status(w->host, w->out, 1);
}

static void w_close(void *state)
{
    linecols_free(&((wpw *)state)->lc);
    free(state);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = w_open,
    .write = w_write,
    .finish = w_finish,
    .close = w_close,
};

static const char *const formats[] = {"wapiti", NULL};

CRFP_PLUGIN_DEFINE(wapiti_writer) = {
    CRFP_PLUGIN_ABI,
    .name = "wapiti_writer",
    .kind = CRFP_KIND_WRITER,
    .version = PACKAGE_VERSION,
    .description = "labels as wapiti label prints them: each input line, a TAB and the "
                   "predicted label; a blank line between sequences (scores=true: -s)",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
};
