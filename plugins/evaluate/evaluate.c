/* evaluate — a writer that scores predicted labels against gold labels and
 * writes a report instead of documents: token and sequence accuracy,
 * per-label precision/recall/F1, and chunk F1 computed exactly as the
 * CoNLL conlleval script does.
 *
 * Where the labels are, when the gold/guess parameters do not say, so that
 * whatever `crfpipe tag` wrote can be scored as it is (first match wins,
 * per sentence):
 *   1. a CoNLL-U MISC attribute PredictedX=... (conllu_writer
 *      prediction-to=misc): the guess; the gold is column x (lower case);
 *   2. a MISC attribute GoldX=... (prediction-to=column, the default): the
 *      gold; the guess is column x, which holds the prediction;
 *   3. a document whose annotation set records a viterbi run: the guess is
 *      its output feature, the gold the label its model was trained on
 *      (model-label, else the model file's metadata, read once per model)
 *      when the tokens have such a feature, else the column before;
 *   4. otherwise the last two columns, guess last (conlleval's convention).
 * A CoNLL-U document where 1-3 find nothing, or a column file with fewer
 * than three columns, has no prediction to score: that is an error ("no
 * predicted labels in FILE"), not an accuracy of 0 %. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/columns.h"
#include "g2p.h"
#include "plot.h"

static const crfp_param_spec params[] = {
    {"gold", CRFP_PARAM_STRING, "",
     "token feature with the gold label (default: the column before the guess)"},
    {"guess", CRFP_PARAM_STRING, "",
     "token feature with the predicted label (default: the last column)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
    {"source", CRFP_PARAM_STRING, "", "name of the input, for messages (crfpipe eval sets it)"},
    {"model-label", CRFP_PARAM_STRING, "",
     "the label feature of the model that tagged the input: the gold when the tokens have it "
     "and gold is not set (crfpipe eval --model sets it)"},
    {"errors", CRFP_PARAM_BOOL, "false",
     "G2P: list every mispronounced word with its prediction and closest reference"},
    {"plot", CRFP_PARAM_PATH, NULL,
     "also draw the confusion matrix as a heat map and per-label precision, recall and F1 into "
     "this file: SVG, or PNG when the name ends in .png (crfpipe eval --report sets it)"},
};

typedef struct label_stats {
    char *label;
    size_t tp, fp, fn;
} label_stats;

typedef struct evaluator {
    crfp_host *host;
    crfp_stream *out;
    char *gold, *guess, *set, *source, *mlabel;
    crfp_sentbuf *sb;
    char *model_path, *model_label;   /* cache of the last model's label */
    char *gbuf, *pbuf;                /* MISC attribute values */
    size_t gcap, pcap;
    size_t tokens, correct, sents, sents_correct;
    label_stats *labels;
    size_t nlabels, caplabels;
    /* confusion counts, conf[gold * capconf + guess], in arrival order of
     * the labels; grown with them */
    size_t *conf;
    size_t capconf;
    char *plot;
    crfp_chunkeval chunks;
    /* Where the labels were only guessed by position (the last two
     * columns): the first such pair of names and its input, for the check
     * that the pair shares a label at all. */
    char *posgold, *posguess, *posdoc;
    g2p_eval *g2p;   /* lexicon entries: PER/WER instead of label scores (g2p.c) */
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
    e->source = strdup(crfp_params_str(p, "source"));
    e->mlabel = strdup(crfp_params_str(p, "model-label"));
    const char *plot = crfp_params_str(p, "plot");
    if (plot && *plot && !(e->plot = strdup(plot))) {
        ev_close(e);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    e->sb = crfp_sentbuf_new();
    crfp_chunkeval_init(&e->chunks);
    e->g2p = g2p_eval_new(crfp_params_bool(p, "errors"));
    if (!e->g2p || !e->gold || !e->guess || !e->set || !e->source || !e->mlabel || !e->sb) {
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

/* Count gold g predicted as p in the confusion matrix (both labels are
 * already known to stats_of); returns g's stats (stats_of may have moved
 * them), NULL when out of memory. */
static label_stats *count_pair(evaluator *e, const char *g, const char *p)
{
    if (e->nlabels > e->capconf) {
        size_t nc = e->capconf ? e->capconf : 16;
        while (nc < e->nlabels)
            nc *= 2;
        size_t *m = calloc(nc * nc, sizeof *m);
        if (!m)
            return NULL;
        for (size_t r = 0; r < e->capconf; r++)
            memcpy(m + r * nc, e->conf + r * e->capconf, e->capconf * sizeof *m);
        free(e->conf);
        e->conf = m;
        e->capconf = nc;
    }
    label_stats *gs = stats_of(e, g), *ps = stats_of(e, p);
    e->conf[(size_t)(gs - e->labels) * e->capconf + (size_t)(ps - e->labels)]++;
    return gs;
}

/* Where one label comes from: a column, or an attribute of a MISC cell. */
typedef struct source {
    int col;             /* tokseq column, -1 when absent */
    const char *attr;    /* MISC attribute (then col is the misc column) */
} source;

/* The value of `attr` in a MISC cell ("A=1|B=2"), copied into *buf; NULL
 * when absent or out of memory (*oom set). */
static const char *misc_value(const char *cell, const char *attr, char **buf, size_t *cap,
                              int *oom)
{
    size_t kl = strlen(attr);
    for (const char *p = cell; p && *p;) {
        const char *e = strchr(p, '|');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > kl && p[kl] == '=' && strncmp(p, attr, kl) == 0) {
            if (n - kl > *cap) {
                char *nb = realloc(*buf, n - kl);
                if (!nb) {
                    *oom = 1;
                    return NULL;
                }
                *buf = nb;
                *cap = n - kl;
            }
            memcpy(*buf, p + kl + 1, n - kl - 1);
            (*buf)[n - kl - 1] = '\0';
            return *buf;
        }
        p = e ? e + 1 : NULL;
    }
    return NULL;
}

/* The distinct MISC attributes of the sentence whose names start with
 * `prefix` followed by an upper-case letter (PredictedUPOS, GoldXPOS), in
 * order of appearance: the first `max` copied into names (64 bytes each);
 * returns how many were copied. */
static size_t misc_keys_with(const crfp_tokseq *seq, int misc, const char *prefix,
                             char (*names)[64], size_t max)
{
    size_t pl = strlen(prefix), found = 0;
    for (size_t t = 0; misc >= 0 && t < seq->ntok && found < max; t++) {
        const char *cell = seq->cells[t * seq->ncols + (size_t)misc];
        for (const char *p = cell; p && *p && found < max;) {
            const char *e = strchr(p, '|'), *eq = strchr(p, '=');
            size_t n = e ? (size_t)(e - p) : strlen(p), kl = eq ? (size_t)(eq - p) : 0;
            if (eq && eq < p + n && kl > pl && kl < 64 && strncmp(p, prefix, pl) == 0 &&
                p[pl] >= 'A' && p[pl] <= 'Z') {
                size_t i = 0;
                while (i < found && !(strlen(names[i]) == kl && strncmp(names[i], p, kl) == 0))
                    i++;
                if (i == found) {
                    memcpy(names[found], p, kl);
                    names[found++][kl] = '\0';
                }
            }
            p = e ? e + 1 : NULL;
        }
    }
    return found;
}

static int misc_key_with(const crfp_tokseq *seq, int misc, const char *prefix, char *name)
{
    char one[1][64];
    if (!misc_keys_with(seq, misc, prefix, one, 1))
        return 0;
    memcpy(name, one[0], 64);
    return 1;
}

/* Whether the sentence's MISC has the attribute PREFIX + LABEL as the
 * CoNLL-U writer spells it (columns_misc_key), copied into key (64 bytes). */
static int misc_has_label_key(const crfp_tokseq *seq, int misc, const char *prefix,
                              const char *label, char *key)
{
    /* keys of 64 bytes or more are never collected (misc_keys_with) */
    if (misc < 0 || columns_misc_key(key, 64, prefix, label) >= 64)
        return 0;
    char all[16][64];
    size_t n = misc_keys_with(seq, misc, prefix, all, 16);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i], key) == 0)
            return 1;
    return 0;
}

/* Column named by the lower-cased MISC key suffix (GoldUPOS -> upos). */
static int col_of_key(const crfp_tokseq *seq, const char *key, size_t prefix)
{
    char low[64];
    size_t n = strlen(key + prefix);
    for (size_t i = 0; i <= n && i < sizeof low; i++)
        low[i] = (char)(key[prefix + i] >= 'A' && key[prefix + i] <= 'Z'
                            ? key[prefix + i] - 'A' + 'a'
                            : key[prefix + i]);
    low[sizeof low - 1] = '\0';
    return crfp_tokseq_col(seq, low);
}

/* The viterbi run recorded on the document's set: its output feature and
 * model file (borrowed), or 0. */
static int recorded_run(const crfp_doc *doc, const char *set, const char **output,
                        const char **model)
{
    const crfp_annset *as = crfp_doc_annset((crfp_doc *)doc, set, 0);
    size_t np = 0;
    const crfp_processor *pr = as ? crfp_annset_processors(as, &np) : NULL;
    int found = 0;
    for (size_t i = 0; i < np; i++) {
        if (strcmp(pr[i].plugin, "viterbi") != 0)
            continue;
        *output = "predicted";
        *model = NULL;
        for (size_t k = 0; k < pr[i].nparams; k++) {
            if (strcmp(pr[i].param_names[k], "output") == 0)
                *output = pr[i].param_values[k];
            else if (strcmp(pr[i].param_names[k], "model") == 0)
                *model = pr[i].param_values[k];
        }
        found = 1;   /* the last run wins */
    }
    return found;
}

/* The label feature of a model (its metadata), cached per path; NULL with
 * the host's error set when it cannot be read. */
static const char *model_label(evaluator *e, const char *model)
{
    if (e->model_path && strcmp(e->model_path, model) == 0)
        return e->model_label;
    crfp_crf *crf;
    if (crfp_crf_load(e->host, model, &crf) != CRFP_OK)
        return NULL;
    const char *l = crfp_crf_meta(crf, "label");
    free(e->model_path);
    free(e->model_label);
    e->model_path = strdup(model);
    e->model_label = l ? strdup(l) : NULL;
    crfp_crf_free(crf);
    if (!e->model_path || (l && !e->model_label)) {
        crfp_error(e->host, CRFP_ENOMEM, "out of memory");
        return NULL;
    }
    if (!e->model_label)
        crfp_error(e->host, CRFP_ENOTFOUND, "%s: the model records no label feature", model);
    return e->model_label;
}

static const char *doc_name(const evaluator *e, const crfp_doc *doc)
{
    if (*e->source)
        return e->source;
    return crfp_doc_id(doc) ? crfp_doc_id(doc) : "<document>";
}

/* A CoNLL-U sentence tagged for several labels (GoldUPOS and GoldXPOS in
 * MISC) does not say which one to score: an error naming them, rather
 * than a report on whichever comes first. */
static int several_keys(evaluator *e, const crfp_doc *doc, const crfp_tokseq *seq, int misc)
{
    char keys[8][64];
    size_t n = misc_keys_with(seq, misc, "Gold", keys, 8);
    n += misc_keys_with(seq, misc, "Predicted", keys + n, 8 - n);
    if (n < 2)
        return 0;
    char list[400] = "";
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", keys[i]);
    crfp_error(e->host, CRFP_EINVAL, "%s: MISC records the predictions of several labels (%s): "
               "name the one to score with --label (e.g. --label upos)", doc_name(e, doc), list);
    return 1;
}

/* Decide where the gold and guessed labels of a sentence are (see the top
 * of the file).  Errors name the input. */
static crfp_status resolve(evaluator *e, const crfp_doc *doc, const crfp_tokseq *seq,
                           source *gold, source *guess, char *gkey, char *pkey)
{
    gold->col = guess->col = -1;
    gold->attr = guess->attr = NULL;
    int misc = crfp_tokseq_col(seq, "misc");
    const char *fmt = crfp_doc_meta_str(doc, "format");
    int conllu = fmt && strcmp(fmt, "conllu") == 0;
    if (!*e->guess && *e->gold && misc_has_label_key(seq, misc, "Predicted", e->gold, pkey)) {
        /* --label X names which of the recorded predictions to score; a
         * GoldX= too means the column holds an earlier prediction */
        guess->col = misc;
        guess->attr = pkey;
        if (misc_has_label_key(seq, misc, "Gold", e->gold, gkey)) {
            gold->col = misc;
            gold->attr = gkey;
            return CRFP_OK;
        }
    } else if (!*e->guess && *e->gold && misc_has_label_key(seq, misc, "Gold", e->gold, gkey)) {
        gold->col = misc;
        gold->attr = gkey;
        guess->col = crfp_tokseq_col(seq, e->gold);
        return guess->col >= 0 ? CRFP_OK
                               : crfp_error(e->host, CRFP_ENOTFOUND, "%s: no column '%s'",
                                            doc_name(e, doc), e->gold);
    } else if (*e->guess) {
        guess->col = crfp_tokseq_col(seq, e->guess);
    } else if (!*e->gold && several_keys(e, doc, seq, misc)) {
        return CRFP_EINVAL;
    } else if (!*e->gold && misc_key_with(seq, misc, "Predicted", pkey)) {
        guess->col = misc;
        guess->attr = pkey;
        gold->col = col_of_key(seq, pkey, 9);
    } else if (!*e->gold && misc_key_with(seq, misc, "Gold", gkey)) {
        gold->col = misc;
        gold->attr = gkey;
        guess->col = col_of_key(seq, gkey, 4);
    } else {
        const char *out = NULL, *model = NULL;
        if (recorded_run(doc, e->set, &out, &model)) {
            guess->col = crfp_tokseq_col(seq, out);
            if (!*e->gold && *e->mlabel) {
                gold->col = crfp_tokseq_col(seq, e->mlabel);
            } else if (!*e->gold && model) {
                const char *l = model_label(e, model);
                if (!l)
                    return crfp_error_prefix(e->host, "%s: finding the gold label of the "
                                             "recorded tagging run (give --label)",
                                             doc_name(e, doc));
                /* column files name columns by position (word, col1,
                 * label): then the column before the guess, below */
                gold->col = crfp_tokseq_col(seq, l);
            }
        } else if (conllu) {
            return crfp_error(e->host, CRFP_ENOTFOUND, "no predicted labels in %s: a CoNLL-U "
                              "file tagged by crfpipe has GoldUPOS=... (prediction in the "
                              "column) or PredictedUPOS=... (prediction in MISC) attributes in "
                              "MISC, and this one has neither; tag it first, or score it with "
                              "crfpipe eval --model MODEL", doc_name(e, doc));
        } else if (seq->ncols < 3 && !*e->gold) {
            return crfp_error(e->host, CRFP_ENOTFOUND, "no predicted labels in %s: it has %zu "
                              "column%s, and a scored file needs the gold label and the "
                              "prediction as its last two (crfpipe tag appends it); tag it "
                              "first, or score it with crfpipe eval --model MODEL%s",
                              doc_name(e, doc), seq->ncols, seq->ncols == 1 ? "" : "s",
                              /* two columns are word and label as often as gold and
                               * prediction (crfsuite tag -r): the user says which */
                              seq->ncols == 2 ? "; if they are the gold and predicted labels "
                              "(crfsuite tag -r, crfpipe's crfsuite output), give --label "
                              "word --guess label" : "");
        } else {
            guess->col = (int)seq->ncols - 1;
        }
    }
    if (*e->gold)
        gold->col = crfp_tokseq_col(seq, e->gold);
    else if (gold->col < 0 && !gold->attr && *e->mlabel)
        gold->col = crfp_tokseq_col(seq, e->mlabel);
    if (!*e->gold && gold->col < 0 && !gold->attr && guess->col >= 0 && !guess->attr) {
        gold->col = guess->col - 1;
        if (gold->col >= 0 && !e->posgold &&
            (!(e->posgold = strdup(seq->colnames[gold->col])) ||
             !(e->posguess = strdup(seq->colnames[guess->col])) ||
             !(e->posdoc = strdup(doc_name(e, doc)))))
            return crfp_error(e->host, CRFP_ENOMEM, "out of memory");
    }
    if (guess->col < 0 || gold->col < 0 || (gold->col == guess->col && !gold->attr &&
                                            !guess->attr)) {
        int g = guess->col < 0;
        return crfp_error(e->host, CRFP_ENOTFOUND, "%s: cannot find the %s label "
                          "feature '%s' (tokens have: %s%s%s)", doc_name(e, doc),
                          g ? "guessed" : "gold",
                          g ? (*e->guess ? e->guess : "predicted") : (*e->gold ? e->gold : "?"),
                          seq->ncols ? seq->colnames[0] : "", seq->ncols > 1 ? ", ..., " : "",
                          seq->ncols > 1 ? seq->colnames[seq->ncols - 1] : "");
    }
    return CRFP_OK;
}

static crfp_status ev_write(void *state, const crfp_doc *cdoc)
{
    evaluator *e = state;
    crfp_doc *doc = (crfp_doc *)cdoc; /* only read: selecting builds an index */
    if (g2p_eval_applies(doc, e->set))
        return g2p_eval_doc(e->host, e->g2p, doc, e->set);
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
        source go, gu;
        char gkey[64], pkey[64];
        if ((st = resolve(e, doc, seq, &go, &gu, gkey, pkey)) != CRFP_OK)
            break;
        int all = 1;
        for (size_t t = 0; t < seq->ntok && st == CRFP_OK; t++) {
            int oom = 0;
            const char *g = seq->cells[t * seq->ncols + (size_t)go.col];
            const char *p = seq->cells[t * seq->ncols + (size_t)gu.col];
            if (g && go.attr)
                g = misc_value(g, go.attr, &e->gbuf, &e->gcap, &oom);
            if (p && gu.attr)
                p = misc_value(p, gu.attr, &e->pbuf, &e->pcap, &oom);
            if (oom) {
                st = crfp_error(e->host, CRFP_ENOMEM, "out of memory");
                break;
            }
            if (!g || !p) {
                const char *attr = g ? gu.attr : go.attr;
                st = crfp_error(e->host, CRFP_EINVAL, "%s: document '%s', sentence %zu, "
                                "token %zu: missing %s label%s%s%s", doc_name(e, doc),
                                crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1, t + 1,
                                g ? "guessed" : "gold", attr ? " (MISC attribute " : "",
                                attr ? attr : "", attr ? ")" : "");
                break;
            }
            e->tokens++;
            label_stats *gs = stats_of(e, g), *ps = stats_of(e, p);
            if (!gs || !ps || (gs = count_pair(e, g, p)) == NULL) {
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

/* Labels in string order: qsort passes no context, so it sorts pointers
 * to the stats, which carry their label (a static pointer to the array
 * would be state shared by every evaluator in the process). */
static int cmp_label(const void *a, const void *b)
{
    return strcmp((*(const label_stats *const *)a)->label, (*(const label_stats *const *)b)->label);
}

/* The confusion matrix and per-label P/R/F1 as a picture (core/plot). */
static crfp_status draw_plot(evaluator *e, const size_t *ord, double acc, double chunk_f1)
{
    size_t n = e->nlabels;
    const char **labels = malloc((n + 1) * sizeof *labels);
    const char **notes = malloc((n + 1) * sizeof *notes);
    char *notebuf = malloc((n + 1) * 24);
    double *counts = malloc((n * n + 1) * sizeof *counts);
    double *prf = malloc((3 * n + 1) * sizeof *prf);
    crfp_status st = CRFP_OK;
    if (!labels || !notes || !notebuf || !counts || !prf) {
        st = crfp_error(e->host, CRFP_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const label_stats *s = &e->labels[ord[i]];
        labels[i] = s->label;
        for (size_t j = 0; j < n; j++)
            counts[i * n + j] = (double)e->conf[ord[i] * e->capconf + ord[j]];
        double p = pct(s->tp, s->tp + s->fp), r = pct(s->tp, s->tp + s->fn);
        prf[3 * i] = p;
        prf[3 * i + 1] = r;
        prf[3 * i + 2] = f1(p, r);
        snprintf(notebuf + 24 * i, 24, "%zu", s->tp + s->fn);
        notes[i] = notebuf + 24 * i;
    }
    /* the matrix gets about 26 px a label (12 to 44), the bars 20 */
    double cell = n ? 640.0 / (double)n : 40;
    cell = cell > 44 ? 44 : cell < 12 ? 12 : cell;
    double side = cell * (double)n;
    double hmw = side + 260, hmh = side + 190;
    double barh = 20.0 * (double)n + 110;
    double W = hmw + 460, H = (hmh > barh ? hmh : barh) + 70;
    if (H < 420)
        H = 420;
    char err[512], title[256];
    cplot *pl;
    if (cplot_open(e->plot, W, H, &pl, err, sizeof err) != 0) {
        st = crfp_error(e->host, CRFP_EIO, "%s", err);
        goto out;
    }
    cairo_t *cr = cplot_cr(pl);
    cplot_rgb(cr, 0x222222);
    snprintf(title, sizeof title, "crfpipe eval: %s", *e->source ? e->source : "evaluation");
    cplot_text(cr, 14, 10, title, 17, 0, 0, 0, 1);
    int k = snprintf(title, sizeof title, "%zu tokens, %zu sentences; token accuracy %.2f%%",
                     e->tokens, e->sents, acc);
    /* chunk F1 only means something for BIO-style labels */
    if (e->chunks.found_gold > 0 && k > 0 && (size_t)k < sizeof title)
        snprintf(title + k, sizeof title - (size_t)k, "; chunk F1 %.2f (conlleval)", chunk_f1);
    cplot_text(cr, 14, 36, title, 12, 0, 0, 0, 0);
    cplot_heatmap hm = {10, 64, hmw, H - 74, "Confusion matrix (rows: gold, share of the row)",
                        labels, n, counts};
    cplot_heatmap_draw(cr, &hm);
    static const char *const groups[] = {"precision", "recall", "F1"};
    static const unsigned colors[] = {0x4c78a8, 0xf58518, 0x54a24b};
    cplot_bars bars = {hmw + 20, 64, W - hmw - 30, barh,
                       "Per label (%), support on the right", labels, n, prf, 3, groups, colors,
                       100, notes};
    cplot_bars_draw(cr, &bars);
    if (cplot_close(pl, err, sizeof err) != 0)
        st = crfp_error(e->host, CRFP_EIO, "%s", err);
out:
    free(labels);
    free(notes);
    free(notebuf);
    free(counts);
    free(prf);
    return st;
}

static crfp_status ev_finish(void *state)
{
    evaluator *e = state;
    FILE *f = e->out->fp;
    if (g2p_eval_words(e->g2p) && e->tokens == 0) {
        crfp_status st = g2p_eval_report(e->host, e->g2p, f);
        if (st == CRFP_OK && (fflush(f) != 0 || ferror(f)))
            st = crfp_error(e->host, CRFP_EIO, "%s: write error", e->out->name);
        return st;
    }
    if (e->posgold && e->tokens > 0) {
        /* A gold column and its prediction share labels unless the model
         * is worthless; columns that share none are most likely not that
         * pair (a probability, an n-best or MISC column last), and a
         * report of 0 % would be silently wrong. */
        size_t i = 0;
        while (i < e->nlabels && !(e->labels[i].tp + e->labels[i].fn > 0 &&
                                   e->labels[i].tp + e->labels[i].fp > 0))
            i++;
        if (i == e->nlabels)
            return crfp_error(e->host, CRFP_EINVAL,
                              "%s: the columns taken as the gold label ('%s') and the "
                              "prediction ('%s'), the last two, have no label in common, so "
                              "they are not a label and its prediction; name them with "
                              "--label and --guess (and --columns)",
                              e->posdoc, e->posgold, e->posguess);
    }
    if (crfp_chunkeval_finish(&e->chunks) != CRFP_OK)
        return crfp_error(e->host, CRFP_ENOMEM, "out of memory");
    size_t *ord = malloc((e->nlabels + 1) * sizeof *ord);
    const label_stats **byname = malloc((e->nlabels + 1) * sizeof *byname);
    if (!ord || !byname) {
        free(ord);
        free(byname);
        return crfp_error(e->host, CRFP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < e->nlabels; i++)
        byname[i] = &e->labels[i];
    if (e->nlabels > 1)
        qsort(byname, e->nlabels, sizeof *byname, cmp_label);
    for (size_t i = 0; i < e->nlabels; i++)
        ord[i] = (size_t)(byname[i] - e->labels);
    free(byname);
    fprintf(f, "tokens %zu, sentences %zu\n", e->tokens, e->sents);
    fprintf(f, "token accuracy:    %6.2f%%  (%zu/%zu)\n", pct(e->correct, e->tokens), e->correct,
            e->tokens);
    fprintf(f, "sequence accuracy: %6.2f%%  (%zu/%zu)\n\n", pct(e->sents_correct, e->sents),
            e->sents_correct, e->sents);
    fprintf(f, "%-16s %9s %9s %9s %9s\n", "label", "precision", "recall", "F1", "support");
    for (size_t i = 0; i < e->nlabels; i++) {
        const label_stats *s = &e->labels[ord[i]];
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
    crfp_status st = CRFP_OK;
    if (fflush(f) != 0 || ferror(f))
        st = crfp_error(e->host, CRFP_EIO, "%s: write error", e->out->name);
    else if (e->plot)
        st = draw_plot(e, ord, pct(e->correct, e->tokens), f1(p, r));
    free(ord);
    return st;
}

static void ev_close(void *state)
{
    evaluator *e = state;
    if (!e)
        return;
    for (size_t i = 0; i < e->nlabels; i++)
        free(e->labels[i].label);
    free(e->labels);
    free(e->conf);
    free(e->plot);
    crfp_chunkeval_free(&e->chunks);
    g2p_eval_free(e->g2p);
    crfp_sentbuf_free(e->sb);
    free(e->gold);
    free(e->guess);
    free(e->set);
    free(e->source);
    free(e->mlabel);
    free(e->model_path);
    free(e->model_label);
    free(e->gbuf);
    free(e->pbuf);
    free(e->posgold);
    free(e->posguess);
    free(e->posdoc);
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
