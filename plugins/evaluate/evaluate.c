/* evaluate — a writer that scores predicted labels against gold labels and
 * writes a report instead of documents: token and sequence accuracy,
 * per-label precision/recall/F1, and chunk F1 computed exactly as the
 * CoNLL conlleval script does. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

static const crfp_param_spec params[] = {
    {"gold", CRFP_PARAM_STRING, "",
     "token feature with the gold label (default: the column before the guess)"},
    {"guess", CRFP_PARAM_STRING, "",
     "token feature with the predicted label (default: the last column)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
};

typedef struct label_stats {
    char *label;
    size_t tp, fp, fn;
} label_stats;

typedef struct evaluator {
    crfp_host *host;
    crfp_stream *out;
    char *gold, *guess, *set;
    crfp_sentbuf *sb;
    size_t tokens, correct, sents, sents_correct;
    label_stats *labels;
    size_t nlabels, caplabels;
    crfp_chunkeval chunks;
} evaluator;

static void ev_close(void *state);

static crfp_status ev_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    evaluator *e = calloc(1, sizeof *e);
    if (!e)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    e->host = host;
    e->out = out;
    e->gold = strdup(crfp_params_str(p, "gold"));
    e->guess = strdup(crfp_params_str(p, "guess"));
    e->set = strdup(crfp_params_str(p, "set"));
    e->sb = crfp_sentbuf_new();
    crfp_chunkeval_init(&e->chunks);
    if (!e->gold || !e->guess || !e->set || !e->sb) {
        ev_close(e);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    *state = e;
    return CRFP_OK;
}

static label_stats *stats_of(evaluator *e, const char *label)
{
    for (size_t i = 0; i < e->nlabels; i++)
        if (strcmp(e->labels[i].label, label) == 0)
            return &e->labels[i];
    if (e->nlabels == e->caplabels) {
        size_t nc = e->caplabels ? 2 * e->caplabels : 32;
        label_stats *nl = realloc(e->labels, nc * sizeof *nl);
        if (!nl)
            return NULL;
        e->labels = nl;
        e->caplabels = nc;
    }
    label_stats *s = &e->labels[e->nlabels];
    memset(s, 0, sizeof *s);
    if (!(s->label = strdup(label)))
        return NULL;
    e->nlabels++;
    return s;
}

static crfp_status ev_write(void *state, const crfp_doc *cdoc)
{
    evaluator *e = state;
    crfp_doc *doc = (crfp_doc *)cdoc; /* only read: selecting builds an index */
    crfp_ann **sents;
    size_t nsent;
    crfp_status st = crfp_doc_sentences(e->host, doc, e->set, &sents, &nsent);
    if (st != CRFP_OK)
        return st;
    for (size_t s = 0; s < nsent && st == CRFP_OK; s++) {
        const crfp_tokseq *seq;
        if ((st = crfp_sentbuf_fill(e->host, e->sb, doc, e->set, sents[s], &seq, NULL)) != CRFP_OK)
            break;
        if (seq->ntok == 0)
            continue;
        int gu = *e->guess ? crfp_tokseq_col(seq, e->guess) : (int)seq->ncols - 1;
        int go = *e->gold ? crfp_tokseq_col(seq, e->gold) : gu - 1;
        if (gu < 0 || go < 0 || go == gu) {
            st = crfp_error(e->host, CRFP_ENOTFOUND, "document '%s': cannot find the %s label "
                            "feature '%s' (tokens have: %s%s%s)",
                            crfp_doc_id(doc) ? crfp_doc_id(doc) : "", gu < 0 ? "guessed" : "gold",
                            gu < 0 ? e->guess : e->gold, seq->ncols ? seq->colnames[0] : "",
                            seq->ncols > 1 ? ", ..., " : "",
                            seq->ncols > 1 ? seq->colnames[seq->ncols - 1] : "");
            break;
        }
        int all = 1;
        for (size_t t = 0; t < seq->ntok && st == CRFP_OK; t++) {
            const char *g = seq->cells[t * seq->ncols + (size_t)go];
            const char *p = seq->cells[t * seq->ncols + (size_t)gu];
            if (!g || !p) {
                st = crfp_error(e->host, CRFP_EINVAL, "document '%s', sentence %zu, token %zu: "
                                "missing %s label", crfp_doc_id(doc) ? crfp_doc_id(doc) : "",
                                s + 1, t + 1, g ? "guessed" : "gold");
                break;
            }
            e->tokens++;
            label_stats *gs = stats_of(e, g), *ps = stats_of(e, p);
            if (!gs || !ps) {
                st = crfp_error(e->host, CRFP_ENOMEM, "out of memory");
                break;
            }
            if (strcmp(g, p) == 0) {
                e->correct++;
                gs->tp++;
            } else {
                all = 0;
                gs->fn++;
                ps->fp++;
            }
            if (crfp_chunkeval_token(&e->chunks, g, p) != CRFP_OK)
                st = crfp_error(e->host, CRFP_ENOMEM, "out of memory");
        }
        if (st == CRFP_OK && crfp_chunkeval_boundary(&e->chunks) != CRFP_OK)
            st = crfp_error(e->host, CRFP_ENOMEM, "out of memory");
        e->sents++;
        e->sents_correct += all;
    }
    free(sents);
    return st;
}

static double pct(size_t a, size_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static double f1(double p, double r)
{
    return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp(((const label_stats *)a)->label, ((const label_stats *)b)->label);
}

static crfp_status ev_finish(void *state)
{
    evaluator *e = state;
    FILE *f = e->out->fp;
    if (crfp_chunkeval_finish(&e->chunks) != CRFP_OK)
        return crfp_error(e->host, CRFP_ENOMEM, "out of memory");
    if (e->nlabels > 1)
        qsort(e->labels, e->nlabels, sizeof *e->labels, cmp_label);
    fprintf(f, "tokens %zu, sentences %zu\n", e->tokens, e->sents);
    fprintf(f, "token accuracy:    %6.2f%%  (%zu/%zu)\n", pct(e->correct, e->tokens), e->correct,
            e->tokens);
    fprintf(f, "sequence accuracy: %6.2f%%  (%zu/%zu)\n\n", pct(e->sents_correct, e->sents),
            e->sents_correct, e->sents);
    fprintf(f, "%-16s %9s %9s %9s %9s\n", "label", "precision", "recall", "F1", "support");
    for (size_t i = 0; i < e->nlabels; i++) {
        const label_stats *s = &e->labels[i];
        double p = pct(s->tp, s->tp + s->fp), r = pct(s->tp, s->tp + s->fn);
        fprintf(f, "%-16s %9.2f %9.2f %9.2f %9zu\n", s->label, p, r, f1(p, r), s->tp + s->fn);
    }
    const crfp_chunkeval *c = &e->chunks;
    double p = pct(c->correct_chunks, c->found_guess), r = pct(c->correct_chunks, c->found_gold);
    fprintf(f, "\nchunks (conlleval): processed %zu tokens with %zu phrases; found: %zu phrases; "
               "correct: %zu.\n", c->tokens, c->found_gold, c->found_guess, c->correct_chunks);
    fprintf(f, "accuracy: %6.2f%%; precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f\n",
            pct(c->correct_tags, c->tokens), p, r, f1(p, r));
    for (size_t i = 0; i < c->ntypes; i++) {
        const crfp_chunk_type_stats *t = &c->types[i];
        double tp = pct(t->correct, t->found_guess), tr = pct(t->correct, t->found_gold);
        fprintf(f, "%17s: precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f  %zu\n", t->type, tp,
                tr, f1(tp, tr), t->found_guess);
    }
    fprintf(f, "chunk F1: %.2f\n", f1(p, r));
    if (fflush(f) != 0 || ferror(f))
        return crfp_error(e->host, CRFP_EIO, "%s: write error", e->out->name);
    return CRFP_OK;
}

static void ev_close(void *state)
{
    evaluator *e = state;
    if (!e)
        return;
    for (size_t i = 0; i < e->nlabels; i++)
        free(e->labels[i].label);
    free(e->labels);
    crfp_chunkeval_free(&e->chunks);
    crfp_sentbuf_free(e->sb);
    free(e->gold);
    free(e->guess);
    free(e->set);
    free(e);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = ev_open,
    .write = ev_write,
    .finish = ev_finish,
    .close = ev_close,
};

static const char *const formats[] = {"report", NULL};

CRFP_PLUGIN_DEFINE(evaluate) = {
    CRFP_PLUGIN_ABI,
    .name = "evaluate",
    .kind = CRFP_KIND_WRITER,
    .version = "1.0",
    .description =
        "report accuracy, per-label P/R/F1 and conlleval chunk F1 instead of writing documents",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .vtable = &vtable,
    .formats = formats,
};
