/* crfsuite_writer — labels as `crfsuite tag` prints them: one line per
 * token, a blank line after each sequence.  A token with a gold label and
 * a prediction gets "GOLD<TAB>PREDICTED" (`crfsuite tag -r`), which
 * `crfpipe eval` and conlleval score as they are; a token with only one of
 * them gets that one.  The prediction is the token feature `prediction`
 * (default: the viterbi tagger's output), the gold label `label`.
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
};

typedef struct csw {
    crfp_host *host;
    crfp_stream *out;
    const char *label, *pred, *set;
    int warned;
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
    *state = w;
    return CRFP_OK;
}

/* Whether the l bytes at s are one of the names written (or the attributes
 * of CRFsuite's own data, which are the input, not a result). */
static int written(void *ud, const char *s, size_t l)
{
    const csw *w = ud;
    return (strlen(w->label) == l && memcmp(s, w->label, l) == 0) ||
           (strlen(w->pred) == l && memcmp(s, w->pred, l) == 0) ||
           (l == 5 && memcmp(s, "attrs", 5) == 0);
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
    (void)sent;
    for (size_t t = 0; t < nt && st == CRFP_OK; t++) {
        const char *gold = crfp_ann_str(toks[t], w->label);
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
        fputc('\n', w->out->fp);
    }
    if (st == CRFP_OK && nt > 0)
        fputc('\n', w->out->fp);
    return st;
}

static crfp_status w_write(void *state, const crfp_doc *doc)
{
    csw *w = state;
    crfp_annset *set = crfp_doc_annset((crfp_doc *)doc, w->set, 0);
    if (!set)
        return CRFP_OK;
    report_dropped(w, doc);
    crfp_status st = sentwalk(w->host, doc, set, put_sentence, w);
    return st == CRFP_OK ? sentwalk_out_status(w->host, w->out, 0) : st;
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
