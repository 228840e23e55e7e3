/* The training driver (see train.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "train.h"
#include "trainrun.h"
#include "dist.h"
#include "ckpt.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

const crfp_param_spec crfp_train_common_params[] = {
    {"model", CRFP_PARAM_PATH, NULL, "file the trained model is written to (required)"},
    {"label", CRFP_PARAM_STRING, "", "token feature holding the gold label (default: the reader's label column, CoNLL-U's upos; else the last column)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set holding Sentence and Token annotations"},
    {"dev", CRFP_PARAM_PATH, NULL, "labelled development file: dev error each iteration, early stop"},
    {"dev-patience", CRFP_PARAM_INT, "5",
     "stop when dev error has not improved for this many iterations (0 = never)"},
    {"dev-keep", CRFP_PARAM_STRING, "last",
     "with --dev: the iterate each stage ends with, last or best (the lowest dev error, "
     "earliest of ties; keeps one more weight vector)"},
    {"threads", CRFP_PARAM_INT, "0", "worker threads for the objective (0 = all cores)"},
    {"rho1", CRFP_PARAM_FLOAT, "0", "l1 penalty weight (> 0 selects OWL-QN / sparse models)"},
    {"rho2", CRFP_PARAM_FLOAT, "0.3", "l2 penalty weight"},
    {"max-iter", CRFP_PARAM_INT, "0", "stop after this many iterations (0 = optimizer decides)"},
    {"init-model", CRFP_PARAM_PATH, NULL, "warm start from this model's weights"},
    {"min-freq", CRFP_PARAM_FLOAT, NULL,
     "give weights only to observations seen at this many positions of the training data or "
     "more (CRF++'s -f; default: all); with all-states or all-transitions false, only to the "
     "label pairs whose values, times their sequences' weights, sum to this or more "
     "(CRFsuite's feature.minfreq); a warm start's observations are all kept"},
    {"all-states", CRFP_PARAM_BOOL, "true",
     "a weight for every label of each observation; false: only for the labels it is seen "
     "with in the training data (CRFsuite's feature.possible_states=0)"},
    {"all-transitions", CRFP_PARAM_BOOL, "true",
     "a weight for every label pair of each bigram observation; false: only for the pairs "
     "seen with it in the training data, and no start weights (CRFsuite's "
     "feature.possible_transitions=0)"},
    {"start-weights", CRFP_PARAM_BOOL, "true",
     "weights for the first label of a sequence (the bigram observations' start row); false: "
     "none, the model family of CRF++ and Wapiti (all-transitions false has none either)"},
    {"weight-feature", CRFP_PARAM_STRING, "weight",
     "Sentence feature holding the sentence's weight in the training objective, a number "
     "from 0 to 1e9 (CRFsuite's @weight:W; a sentence without it weighs 1; not applied to "
     "the dev set); empty: every sentence weighs 1"},
    {"fb-mode", CRFP_PARAM_STRING, "auto", "forward-backward path: auto, sparse or dense"},
    {"unlabelled", CRFP_PARAM_STRING, "error",
     "a sentence with a token lacking the label: error, or skip it (counted; e.g. the "
     "lexicon entries the aligner could not align)"},
    {"train-error", CRFP_PARAM_BOOL, "false",
     "also print the training-set error every iteration (one more Viterbi pass each)"},
    {"checkpoint", CRFP_PARAM_PATH, NULL,
     "write the training state to this file every checkpoint-every iterations (atomically)"},
    {"checkpoint-every", CRFP_PARAM_INT, "10", "iterations between two checkpoints"},
    {"resume", CRFP_PARAM_BOOL, "false",
     "continue from the checkpoint file instead of starting afresh"},
    {"cv-folds", CRFP_PARAM_INT, "0",
     "cross-validation: train K models, each on all but one fold of the training data, "
     "score each on the fold it did not see and report the error rates per fold and their "
     "mean; MODEL, when given, is then trained on all of it (0 = no cross-validation)"},
    {"cv-split", CRFP_PARAM_STRING, "blocks",
     "how cv-folds cuts the training data: blocks (K runs of consecutive sentences, so that "
     "the sentences of one document stay in one fold) or interleaved (sentence i in fold i "
     "mod K)"},
    {"rho1-path", CRFP_PARAM_STRING, NULL,
     "regularisation path: comma-separated l1 weights (e.g. 2,1,0.5,0.25,0.1), trained in "
     "turn, each warm-started from the previous solution; point V's model is written to "
     "MODEL.rho1-V and MODEL gets the one with the lowest dev error (the last without a dev "
     "set); only for trainers that support l1"},
};
const size_t crfp_train_common_nparams =
    sizeof crfp_train_common_params / sizeof crfp_train_common_params[0];

enum { INCR_FREE = 0, INCR_HELD = 1, INCR_ADMITTED = 2 };

double crfp_train_elapsed(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

/* CPU time of the process, user and system, every thread. */
double crfp_train_cpu(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return NAN;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

const char *crfp_train_param(const crfp_trainrun *r, const char *name)
{
    for (size_t i = 0; i < r->nstages; i++)
        if (crfp_params_isset(r->stages[i].params, name))
            return crfp_params_str(r->stages[i].params, name);
    return crfp_params_str(r->stages[r->nstages - 1].params, name);
}

static int64_t run_int(const crfp_trainrun *r, const char *name)
{
    const char *v = crfp_train_param(r, name);
    return v ? strtoll(v, NULL, 10) : 0;
}

static int run_bool(const crfp_trainrun *r, const char *name)
{
    const char *v = crfp_train_param(r, name);
    return v && (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "1") == 0 ||
                 strcmp(v, "on") == 0);
}

crfp_status crfp_train_check_models(crfp_host *host, const crfp_train_stage *stages, size_t n)
{
    crfp_status cst = crfp_train_check_cv(host, stages, n);
    if (cst != CRFP_OK)
        return cst;
    for (size_t k = 0; k < n; k++) {
        const char *spec = crfp_params_str(stages[k].params, "rho1-path");
        if (spec) {
            crfp_status st = crfp_train_check_path(host, stages, n, spec);
            if (st != CRFP_OK)
                return st;
            break;
        }
    }
    for (size_t k = 0; k < n; k++) {
        const crfp_params *sp = stages[k].params;
        if (k + 1 < n && !crfp_params_isset(sp, "model"))
            continue;
        const char *model = crfp_params_str(sp, "model");
        if (!model)
            continue; /* the pipeline reports a missing --model itself */
        crfp_status st = crfp_crf_check_save_path(host, model);
        if (st != CRFP_OK)
            return crfp_error_wrap(host, st, "trainer '%s'", stages[k].plugin->desc->name);
    }
    return CRFP_OK;
}

crfp_status crfp_train_open(crfp_host *host, const crfp_train_stage *stages, size_t n,
                            const crfp_plugin *features, void *ex, crfp_trainrun **out)
{
    crfp_trainrun *r = calloc(1, sizeof *r);
    if (!r || n == 0) {
        free(r);
        return crfp_error(host, n ? CRFP_ENOMEM : CRFP_EINVAL,
                          n ? "out of memory" : "no trainer stage");
    }
    r->host = host;
    r->cut[0] = r->cut[1] = 1;
    r->features = features;
    r->ex = ex;
    r->nstages = n;
    if (!(r->stages = malloc(n * sizeof *r->stages))) {
        free(r);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    memcpy(r->stages, stages, n * sizeof *stages);
    r->crf = crfp_crf_new();
    r->train = crfp_dataset_new();
    r->dev = crfp_dataset_new();
    r->obs = crfp_obsseq_new();
    r->sb = crfp_sentbuf_new();
    if (!r->crf || !r->train || !r->dev || !r->obs || !r->sb) {
        crfp_train_free(r);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    const char *label = crfp_train_param(r, "label");
    if (label && *label && !(r->labelname = strdup(label))) {
        crfp_train_free(r);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    const char *unl = crfp_train_param(r, "unlabelled");
    if (unl && strcmp(unl, "skip") == 0) {
        r->skip_unlabelled = 1;
    } else if (unl && strcmp(unl, "error") != 0) {
        crfp_train_free(r);
        return crfp_error(host, CRFP_EINVAL, "unlabelled must be error or skip, not '%s'", unl);
    }
    const char *keep = crfp_train_param(r, "dev-keep");
    if (keep && strcmp(keep, "best") == 0) {
        r->keep_best = 1;
    } else if (keep && strcmp(keep, "last") != 0) {
        crfp_train_free(r);
        return crfp_error(host, CRFP_EINVAL, "dev-keep must be last or best, not '%s'", keep);
    }
    if (r->keep_best && (crfp_train_param(r, "checkpoint") || run_bool(r, "resume"))) {
        /* a resumed run would know the best iteration but not its weights */
        crfp_train_free(r);
        return crfp_error(host, CRFP_EINVAL, "dev-keep=best cannot be combined with "
                          "--checkpoint or --resume: the best iterate is not part of a "
                          "checkpoint");
    }
    int64_t th = run_int(r, "threads");
    if (th > 0)
        crfp_host_set_threads(host, (int)th);
    r->team = crfp_host_team(host);

    /* Warm start: intern the old model's labels and observations first so
     * that its weights can be copied block by block after finalize. */
    const char *init = crfp_train_param(r, "init-model");
    if (init) {
        crfp_status st = crfp_crf_load(host, init, &r->init);
        if (st != CRFP_OK) {
            crfp_train_free(r);
            return st;
        }
        uint32_t id;
        for (uint32_t y = 0; y < crfp_crf_nlabels(r->init); y++)
            if ((st = crfp_crf_add_label(r->crf, crfp_crf_label(r->init, y), &id)) != CRFP_OK)
                break;
        for (uint32_t o = 0; st == CRFP_OK && o < crfp_crf_nobs(r->init); o++) {
            size_t len;
            const char *s = crfp_crf_obs(r->init, o, &len);
            unsigned fl = (crfp_crf_ublock(r->init, o) != CRFP_NO_BLOCK ? CRFP_OBS_UNIGRAM : 0) |
                          (crfp_crf_bblock(r->init, o) != CRFP_NO_BLOCK ? CRFP_OBS_BIGRAM : 0);
            st = crfp_crf_add_obs(r->crf, s, len, fl, &id);
        }
        if (st != CRFP_OK) {
            crfp_train_free(r);
            return crfp_error(host, st, "%s: cannot reuse model for warm start", init);
        }
        /* a file read without --columns takes the old model's column names
         * by position, as wapiti train -m reads it (and its template) */
        if (crfp_sentbuf_read_as(r->sb, crfp_crf_meta(r->init, "columns")) != CRFP_OK) {
            crfp_train_free(r);
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        }
    }
    *out = r;
    return CRFP_OK;
}

/* Column files name their columns by position (word, col1.., label), and
 * templates read them by position: a document whose columns are not those
 * of the first training document (a dev file without the POS column, a
 * second training file with one more) would be read silently wrong, as
 * CRF++ refuses an inconsistent column count.  Columns appended after
 * them (a tagger's output in a dev set tagged earlier) are harmless. */
static crfp_status check_columns(crfp_trainrun *r, const crfp_doc *doc, int training,
                                 const char *origin)
{
    const char *cols = crfp_doc_meta_str(doc, "columns");
    if (!cols)
        return CRFP_OK;
    if (!r->columns0) {
        if (training && !(r->columns0 = strdup(cols)))
            return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
        return CRFP_OK;
    }
    size_t n = strlen(r->columns0);
    if (strncmp(cols, r->columns0, n) == 0 && (cols[n] == '\0' || cols[n] == ','))
        return CRFP_OK;
    return crfp_error(r->host, CRFP_EINVAL, "%s: document '%s' has the columns %s where the "
                      "training data has %s: templates read columns by position, so they must "
                      "be the same (give both the same layout, or name them with --columns)",
                      origin, crfp_doc_id(doc) ? crfp_doc_id(doc) : "", cols, r->columns0);
}

/* The weight of sentence `sent` (whose tokens are `seq`) onto the last
 * sequence of ds: its feature `name`, or else the tokens' column `name`
 * when they all carry the same value (a weight column of CoNLL data, which
 * has no sentence features); a number from 0 to CRFP_MAX_SEQ_WEIGHT, given
 * as a number or as text; absent, 1.  Errors: CRFP_EINVAL naming the
 * document, sentence and token. */
static crfp_status sentence_weight(crfp_trainrun *r, const crfp_doc *doc, const crfp_ann *sent,
                                   const crfp_tokseq *seq, const char *name, crfp_dataset *ds,
                                   const char *origin, size_t s)
{
    const char *id = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    const crfp_value *v = sent ? crfp_ann_get(sent, name) : NULL;
    crfp_value cell = {.type = CRFP_V_STRING};
    if (!v) {
        int c = crfp_tokseq_col(seq, name);
        if (c < 0)
            return CRFP_OK;
        cell.u.s = seq->cells[(size_t)c];
        for (size_t t = 0; t < seq->ntok; t++) {
            const char *x = seq->cells[t * seq->ncols + (size_t)c];
            if (!x || !cell.u.s || strcmp(x, cell.u.s) != 0)
                return crfp_error(r->host, CRFP_EINVAL, "%s: document '%s', sentence %zu, "
                                  "token %zu: %s '%.40s' where the first token has '%.40s' (a "
                                  "sentence's weight, the same on each of its tokens)", origin,
                                  id, s + 1, t + 1, name, x ? x : "(none)",
                                  cell.u.s ? cell.u.s : "(none)");
        }
        v = &cell;
    }
    double w = NAN;
    char text[64] = "";
    if (v->type == CRFP_V_FLOAT) {
        w = v->u.f;
        snprintf(text, sizeof text, "%g", w);
    } else if (v->type == CRFP_V_INT) {
        w = (double)v->u.i;
        snprintf(text, sizeof text, "%lld", (long long)v->u.i);
    } else if (v->type == CRFP_V_STRING) {
        char *end;
        errno = 0;
        w = strtod(v->u.s, &end);
        if (end == v->u.s || *end != '\0' || errno == ERANGE)
            w = NAN;
        snprintf(text, sizeof text, "%.40s%s", v->u.s, strlen(v->u.s) > 40 ? "..." : "");
    } else {
        snprintf(text, sizeof text, "(not a number)");
    }
    if (w >= 0.0 && w <= CRFP_MAX_SEQ_WEIGHT)
        return crfp_dataset_set_weight(r->host, ds, crfp_dataset_size(ds) - 1, w);
    return crfp_error(r->host, CRFP_EINVAL, "%s: document '%s', sentence %zu: %s '%s' is not a "
                      "number from 0 to %g (the sentence's weight in training; "
                      "--weight-feature names another feature, '' none)", origin, id, s + 1,
                      name, text, CRFP_MAX_SEQ_WEIGHT);
}

/* Extract one document's sentences into `ds`. */
static crfp_status add_doc(crfp_trainrun *r, crfp_doc *doc, crfp_dataset *ds, int grow,
                           const char *origin)
{
    const crfp_features_vtable *fv = r->features->desc->vtable;
    crfp_status cst = check_columns(r, doc, ds == r->train, origin);
    if (cst != CRFP_OK)
        return cst;
    const char *set = crfp_train_param(r, "set");
    const char *wname = crfp_train_param(r, "weight-feature");
    crfp_ann **sents;
    size_t nsent;
    crfp_status st = crfp_doc_sentences(r->host, doc, set, &sents, &nsent);
    if (st != CRFP_OK)
        return st;
    for (size_t s = 0; s < nsent && st == CRFP_OK; s++) {
        const crfp_tokseq *seq;
        st = crfp_sentbuf_fill(r->host, r->sb, doc, set, sents[s], &seq, NULL);
        if (st != CRFP_OK)
            break;
        if (seq->ntok == 0)
            continue;
        /* A rank that reads the whole input keeps every P-th sentence. */
        if (!r->cut[ds == r->dev] && crfp_dist_size() > 1 &&
            r->nsent[ds == r->dev]++ % (uint64_t)crfp_dist_size() != (uint64_t)crfp_dist_rank())
            continue;
        if (!r->labelname) {
            if (seq->ncols == 0) {
                st = crfp_error(r->host, CRFP_EINVAL, "%s: tokens have no features", origin);
                break;
            }
            /* the reader's hint (CoNLL-U: upos, not the MISC column that
             * comes last), else the last column */
            const char *hint = crfp_doc_meta_str(doc, "default-label");
            if (!(hint && crfp_tokseq_col(seq, hint) >= 0) &&
                !crfp_doc_meta_str(doc, "columns")) {
                /* Tokens of a document without columns (GATE, raw text
                 * tokenized) carry features in no meaningful order: the
                 * last one is no label, and training on it (ANNIE's
                 * `length`, say) would succeed with a useless model. */
                st = crfp_error(r->host, CRFP_EINVAL, "%s: document '%s': its tokens declare no "
                                "label column (features %s%s%s): give --label FEATURE; gold kept "
                                "as annotations over the text (GATE's Key) becomes token labels "
                                "with the span_labels stage", origin,
                                crfp_doc_id(doc) ? crfp_doc_id(doc) : "", seq->colnames[0],
                                seq->ncols > 1 ? ", ..., " : "",
                                seq->ncols > 1 ? seq->colnames[seq->ncols - 1] : "");
                break;
            }
            const char *def = hint && crfp_tokseq_col(seq, hint) >= 0
                                  ? hint : seq->colnames[seq->ncols - 1];
            if (!(r->labelname = strdup(def))) {
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                break;
            }
        }
        int lc = crfp_tokseq_col(seq, r->labelname);
        if (lc < 0 && r->skip_unlabelled) {
            r->skipped[ds == r->dev]++;
            continue;
        }
        if (lc < 0) {
            st = crfp_error(r->host, CRFP_ENOTFOUND, "%s: document '%s', sentence %zu: tokens "
                            "have no label feature '%s' (unlabelled=skip leaves such sentences "
                            "out)", origin, crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1,
                            r->labelname);
            break;
        }
        if (seq->ntok > r->caplabels) {
            const char **nl = realloc(r->labels, seq->ntok * sizeof *nl);
            if (!nl) {
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                break;
            }
            r->labels = nl;
            r->caplabels = seq->ntok;
        }
        int unlabelled = 0;
        for (size_t t = 0; t < seq->ntok; t++) {
            r->labels[t] = seq->cells[t * seq->ncols + (size_t)lc];
            if (!r->labels[t]) {
                unlabelled = 1;
                if (r->skip_unlabelled)
                    break;
                st = crfp_error(r->host, CRFP_EINVAL, "%s: document '%s', sentence %zu, token "
                                "%zu: no '%s' label (unlabelled=skip leaves such sentences "
                                "out)", origin, crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1,
                                t + 1, r->labelname);
                break;
            }
        }
        if (st != CRFP_OK)
            break;
        if (unlabelled) {
            r->skipped[ds == r->dev]++;
            continue;
        }
        st = fv->extract(r->ex, seq, r->obs);
        if (st != CRFP_OK) {
            crfp_error_wrap(r->host, st, "%s: document '%s', sentence %zu: features", origin,
                            crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1);
            /* a template naming columns of a file read without --columns */
            const char *cols = crfp_doc_meta_str(doc, "columns");
            if (strstr(crfp_errmsg(r->host), "unknown column name") &&
                crfp_columns_positional(cols)) {
                char msg[768];
                snprintf(msg, sizeof msg, "%s; the file's columns have no names (%.120s, by "
                         "position): name them with --columns", crfp_errmsg(r->host), cols);
                crfp_error(r->host, st, "%s", msg);
            }
            break;
        }
        st = crfp_dataset_add(r->host, ds, r->crf, r->obs, r->labels, grow);
        if (st == CRFP_OK && ds == r->train && wname && *wname)
            st = sentence_weight(r, doc, sents[s], seq, wname, ds, origin, s);
        if (st == CRFP_ENOTFOUND && !grow) {
            /* A dev sentence with a label never seen in training cannot be
             * scored: the first is named, all are counted, and the summary
             * says how much of the dev set the dev error leaves out. */
            if (r->dev_unknown[0]++ == 0)
                crfp_log(r->host, CRFP_LOG_WARN, "%s: document '%s', sentence %zu: %s (sentence "
                         "left out of the dev error; the others like it are counted)", origin,
                         crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1, crfp_errmsg(r->host));
            r->dev_unknown[1] += seq->ntok;
            st = CRFP_OK;
        }
    }
    free(sents);
    return st;
}

crfp_status crfp_train_set_source(crfp_trainrun *r, const char *name)
{
    free(r->source);
    r->source = name ? strdup(name) : NULL;
    return !name || r->source ? CRFP_OK : crfp_error(r->host, CRFP_ENOMEM, "out of memory");
}

void crfp_train_set_cut(crfp_trainrun *r, int dev, int cut)
{
    r->cut[dev != 0] = cut;
}

crfp_status crfp_train_inputs_done(crfp_trainrun *r)
{
    if (r->merged || !crfp_dist_active())
        return CRFP_OK;
    r->merged = 1;
    return crfp_dist_merge_dict(r->host, &r->crf, r->train, r->cut[0],
                                r->init ? crfp_crf_nlabels(r->init) : 0,
                                r->init ? crfp_crf_nobs(r->init) : 0);
}

crfp_status crfp_train_add(crfp_trainrun *r, crfp_doc *doc)
{
    return add_doc(r, doc, r->train, 1, r->source ? r->source : "training data");
}

crfp_status crfp_train_add_dev(crfp_trainrun *r, crfp_doc *doc, const char *origin)
{
    return add_doc(r, doc, r->dev, 0, origin);
}

static size_t count_active(const double *theta, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += theta[i] != 0.0;
    return k;
}

/* The host's training monitor: progress line, dev error, stopping rules. */
static crfp_status monitor(void *ud, const crfp_iter_info *info, const double *theta, int *stop)
{
    crfp_trainrun *r = ud;
    const crfp_params *sp = r->stages[r->cur].params;
    size_t n = crfp_crf_nparams(r->crf);
    /* A resumed trainer has restored its state by its first iteration's
     * end: give its (possibly large) saved copy back. */
    free(r->ck_state);
    r->ck_state = NULL;
    size_t active = count_active(theta, n);
    double dt = crfp_train_elapsed(&r->tlast);
    char dev[64] = "";
    /* what the observer (observe.h) gets besides the progress line */
    crfp_train_iter obs = {.size = sizeof obs, .dev_error = NAN, .dev_seq_error = NAN,
                           .train_error = NAN};
    r->last_iter = info->iter;
    r->objective = info->objective;
    struct timespec tmon;
    clock_gettime(CLOCK_MONOTONIC, &tmon);
    double cmon = crfp_train_cpu();
    if (r->total[2] > 0) {
        size_t te = 0, se = 0;
        crfp_status st = crfp_crf_errors(r->crf, r->dev, theta, r->team, &te, &se);
        /* In a job each rank scores its share of the dev set. */
        uint64_t c[2] = {te, se};
        if ((st = crfp_dist_sum_counts(r->host, st, c, 2)) != CRFP_OK)
            return crfp_error(r->host, st, "dev-set evaluation: %s", crfp_errmsg(r->host));
        te = (size_t)c[0];
        se = (size_t)c[1];
        double err = 100.0 * (double)te / (double)r->total[3];
        obs.dev_error = err / 100.0;
        obs.dev_seq_error = (double)se / (double)r->total[2];
        snprintf(dev, sizeof dev, "  dev-err %6.3f%% (seq %5.2f%%)", err,
                 100.0 * (double)se / (double)r->total[2]);
        if (r->best_iter == 0 || te < r->best_dev) {
            r->best_dev = te;
            r->best_iter = info->iter;
            if (r->keep_best) {
                /* allocated at the first dev score, so that a run without
                 * a dev set pays nothing for the option */
                if (!r->best_theta && !(r->best_theta = malloc(n * sizeof *r->best_theta)))
                    return crfp_error(r->host, CRFP_ENOMEM, "out of memory keeping the best "
                                      "iterate (dev-keep=best: %.1f MB)",
                                      (double)n * sizeof(double) / 1048576.0);
                memcpy(r->best_theta, theta, n * sizeof *r->best_theta);
                r->best_obj = info->objective;
            }
        }
        int64_t patience = run_int(r, "dev-patience");
        if (patience > 0 && info->iter - r->best_iter >= patience) {
            crfp_log(r->host, CRFP_LOG_INFO, "dev error has not improved for %lld iterations: "
                     "stopping", (long long)patience);
            *stop = 1;
        }
    }
    char train[48] = "";
    if (run_bool(r, "train-error")) {
        size_t te = 0, se = 0;
        crfp_status st = crfp_crf_errors(r->crf, r->train, theta, r->team, &te, &se);
        uint64_t c[1] = {te};
        if ((st = crfp_dist_sum_counts(r->host, st, c, 1)) != CRFP_OK)
            return crfp_error(r->host, st, "training-set evaluation: %s", crfp_errmsg(r->host));
        obs.train_error = (double)c[0] / (double)r->total[1];
        snprintf(train, sizeof train, "  train-err %6.3f%%", 100.0 * obs.train_error);
    }
    /* Scoring is the monitor's time, not the optimizer's: observers that
     * compare trainers against time subtract it. */
    r->monitor_secs += crfp_train_elapsed(&tmon);
    double cnow = crfp_train_cpu();
    r->monitor_cpu += cnow - cmon;
    char who[48] = "";
    if (r->nstages > 1)
        snprintf(who, sizeof who, "%s ", r->stages[r->cur].plugin->desc->name);
    crfp_log(r->host, CRFP_LOG_PROGRESS,
             "%siter %4d  obj %.6e  active %9zu%s%s  step %.3g  evals %d  %.2fs (%.1fs)", who, info->iter,
             info->objective, active, train, dev, info->step, info->nevals, dt,
             crfp_train_elapsed(&r->t0));
    /* In full, for comparing runs (--verbose), with this rank's cumulative
     * seconds of objective computation and of communication (waiting,
     * transfer) in a job, for bench/mpi.sh. */
    double cw = 0, cx = 0, cpu = cnow;
    crfp_dist_comm_seconds(&cw, &cx);
    crfp_log(r->host, CRFP_LOG_DEBUG,
             "iter %d objective %.17g compute %.4f wait %.4f xfer %.4f cpu %.4f waitcpu %.4f",
             info->iter, info->objective, crfp_dist_compute_seconds(), cw, cx, cpu,
             crfp_dist_wait_cpu_seconds());
    obs.trainer = r->stages[r->cur].plugin->desc->name;
    obs.stage = r->cur;
    obs.nstages = r->nstages;
    obs.iter = info->iter;
    obs.objective = info->objective;
    obs.step = info->step;
    obs.nevals = info->nevals;
    obs.active = active;
    obs.nparams = n;
    obs.seconds = crfp_train_elapsed(&r->t0);
    obs.monitor_seconds = r->monitor_secs;
    obs.cpu_seconds = cnow - r->cpu0 - r->monitor_cpu;
    obs.rho1 = crfp_params_float(sp, "rho1");
    obs.point = r->point;
    obs.npoints = r->npoints ? r->npoints : 1;
    obs.fold = r->fold;
    obs.nfolds = r->nfolds;
    crfp_host_observe_iter(r->host, &obs);
    clock_gettime(CLOCK_MONOTONIC, &r->tlast);
    int64_t maxit = crfp_params_int(sp, "max-iter");
    if (maxit > 0 && info->iter >= maxit)
        *stop = 1;
    /* In a job every rank stops at the same iteration: an interrupt seen
     * by any rank counts for all. */
    int intr = crfp_interrupted(r->host);
    if (crfp_dist_active()) {
        crfp_status st = crfp_dist_any(r->host, intr, &intr);
        if (st != CRFP_OK)
            return st;
    }
    if (intr)
        return CRFP_EINTR;
    return CRFP_OK;
}

static crfp_status copy_warm_start(crfp_trainrun *r)
{
    uint32_t Y = crfp_crf_nlabels(r->crf), Yi = crfp_crf_nlabels(r->init);
    double *w = crfp_crf_weights(r->crf);
    const double *wi = crfp_crf_weights_const(r->init);
    /* Labels and observations of the old model were interned first, so ids
     * agree; blocks are copied row by row since Y may have grown. */
    for (uint32_t o = 0; o < crfp_crf_nobs(r->init); o++) {
        uint64_t ui = crfp_crf_ublock(r->init, o), u = crfp_crf_ublock(r->crf, o);
        if (ui != CRFP_NO_BLOCK && u != CRFP_NO_BLOCK)
            memcpy(w + u, wi + ui, Yi * sizeof *w);
        uint64_t bi = crfp_crf_bblock(r->init, o), b = crfp_crf_bblock(r->crf, o);
        if (bi != CRFP_NO_BLOCK && b != CRFP_NO_BLOCK) {
            for (uint32_t yp = 0; yp < Yi; yp++)
                memcpy(w + b + (size_t)yp * Y, wi + bi + (size_t)yp * Yi, Yi * sizeof *w);
            /* the start row is the last one in both layouts */
            memcpy(w + b + (size_t)Y * Y, wi + bi + (size_t)Yi * Yi, Yi * sizeof *w);
        }
    }
    return CRFP_OK;
}

/* --- checkpoints ------------------------------------------------------------
 * The host's side of crfp_train_ckpt: when a checkpoint is due, and writing
 * it with the driver's own bookkeeping (the dev set's best error and its
 * iteration, which the stopping rule needs). */
typedef struct ckrun {
    crfp_trainrun *r;
    const char *path;
    int64_t every;
    crfp_ckpt_info info;
    int64_t book[2];
} ckrun;

static int ck_due(void *ud, int iter)
{
    const ckrun *c = ud;
    return c->path && c->every > 0 && iter % c->every == 0;
}

static crfp_status ck_save(void *ud, int iter, const double *theta,
                           const crfp_ckpt_piece *pieces, size_t n)
{
    ckrun *c = ud;
    c->book[0] = (int64_t)c->r->best_dev;
    c->book[1] = c->r->best_iter;
    c->info.iter = iter;
    c->info.book = c->book;
    return crfp_ckpt_write(c->r->host, c->path, &c->info, theta, pieces, n);
}

/* Run the trainer of stage k, through its resumable entry when the user
 * asked for checkpoints or to resume. */
static crfp_status call_trainer(crfp_trainrun *r, size_t k, const crfp_trainset *ts)
{
    crfp_host *host = r->host;
    const crfp_train_stage *sg = &r->stages[k];
    const crfp_plugin_descriptor *d = sg->plugin->desc;
    const crfp_trainer_vtable *tv = d->vtable;
    double *theta = crfp_crf_weights(r->crf);
    ckrun c = {r, crfp_train_param(r, "checkpoint"), run_int(r, "checkpoint-every"), {0}, {0}};
    int resume = run_bool(r, "resume");
    if (!c.path && !resume)
        return tv->train(host, sg->params, ts, theta);
    if (!c.path)
        return crfp_error(host, CRFP_EINVAL, "--resume needs --checkpoint FILE");
    if (r->nstages > 1)
        return crfp_error(host, CRFP_EINVAL, "checkpoints are not available for chained "
                          "trainers yet (--trainer %s...)", d->name);
    if (!CRFP_VT_HAS(tv, crfp_trainer_vtable, resume))
        return crfp_error(host, CRFP_EINVAL, "trainer '%s' cannot write or resume from "
                          "checkpoints (it has no resume entry, plugin ABI 2.2)", d->name);
    c.info = (crfp_ckpt_info){crfp_crf_nparams(r->crf), crfp_ckpt_fingerprint(r->crf),
                              d->name, ts->rho1, ts->rho2, 0, c.book, 2, 0};
    crfp_train_ckpt ck = {sizeof ck, NULL, 0, 0, ck_due, ck_save, &c};
    if (resume) {
        size_t len;
        crfp_status st = crfp_ckpt_read(host, c.path, &c.info, theta, &ck.iter, &r->ck_state,
                                        &len, c.book);
        if (st != CRFP_OK)
            return st;
        ck.state = r->ck_state;
        ck.len = len;
        r->best_dev = (size_t)c.book[0];
        r->best_iter = (int)c.book[1];
        r->last_iter = ck.iter;
        crfp_log(host, CRFP_LOG_INFO, "resuming from %s after iteration %d", c.path, ck.iter);
    }
    crfp_status st = tv->resume(host, sg->params, ts, theta, &ck);
    free(r->ck_state);
    r->ck_state = NULL;
    return st;
}

/* Run stage k on the current model and data; theta is the model's weights. */
crfp_status crfp_train_run_stage(crfp_trainrun *r, size_t k, const uint64_t *mask)
{
    crfp_host *host = r->host;
    const crfp_train_stage *sg = &r->stages[k];
    const crfp_plugin_descriptor *d = sg->plugin->desc;
    double rho1 = crfp_params_float(sg->params, "rho1");
    double rho2 = crfp_params_float(sg->params, "rho2");
    if (rho1 < 0 || rho2 < 0)
        return crfp_error(host, CRFP_EINVAL, "trainer '%s': rho1 and rho2 must be >= 0", d->name);
    crfp_trainset *ts;
    crfp_status st = crfp_trainset_new(host, r->crf, r->train, r->team, mask, rho1, rho2, &ts);
    if (st != CRFP_OK)
        return st;
    const char *mode = crfp_train_param(r, "fb-mode");
    if (mode && strcmp(mode, "sparse") == 0)
        crfp_trainset_set_mode(ts, 1);
    else if (mode && strcmp(mode, "dense") == 0)
        crfp_trainset_set_mode(ts, 2);
    else if (mode && strcmp(mode, "auto") != 0) {
        crfp_trainset_free(ts);
        return crfp_error(host, CRFP_EINVAL, "fb-mode must be auto, sparse or dense, not '%s'",
                          mode);
    }
    crfp_trainset *local = ts;
    if ((st = crfp_dist_trainset(host, local, &ts)) != CRFP_OK) {
        crfp_trainset_free(local);
        return st;
    }
    ts->monitor = monitor;
    ts->monitor_ud = r;
    const crfp_trainer_vtable *tv = d->vtable;
    if ((st = crfp_trainset_require(host, ts, tv->needs, d->name)) != CRFP_OK) {
        crfp_dist_trainset_free(ts, local);
        crfp_trainset_free(local);
        return st;
    }
    r->cur = k;
    r->best_iter = 0;
    r->last_iter = 0;
    r->monitor_secs = 0;
    r->monitor_cpu = 0;
    r->cpu0 = crfp_train_cpu();
    clock_gettime(CLOCK_MONOTONIC, &r->t0);
    r->tlast = r->t0;
    if (r->nstages > 1)
        crfp_log(host, CRFP_LOG_INFO, "stage %zu/%zu: %s on %zu parameters", k + 1, r->nstages,
                 d->name, crfp_crf_nparams(r->crf));
    crfp_error_clear(host);
    st = call_trainer(r, k, ts);
    crfp_dist_trainset_free(ts, local);
    crfp_trainset_free(local);
    const char *misuse = crfp_params_misuse(sg->params);
    if (misuse && (st == CRFP_OK || st == CRFP_EINTR))
        return crfp_error(host, CRFP_EPLUGIN, "trainer '%s' %s", d->name, misuse);
    if (st != CRFP_OK && st != CRFP_EINTR) {
        free(r->best_theta);
        r->best_theta = NULL;
        return crfp_error_wrap(host, st, "trainer '%s'", d->name);
    }
    r->total_iter += r->last_iter;
    r->kept_iter = r->last_iter;
    if (r->best_theta && r->best_iter != r->last_iter) {
        /* every rank of a job scored the same dev error, so every rank
         * puts back the same iterate */
        memcpy(crfp_crf_weights(r->crf), r->best_theta,
               crfp_crf_nparams(r->crf) * sizeof *r->best_theta);
        r->objective = r->best_obj;
        r->kept_iter = r->best_iter;
        crfp_log(host, CRFP_LOG_INFO, "%s: keeping iteration %d, the lowest dev error (%.3f%%), "
                 "not the last (%d)", d->name, r->best_iter,
                 100.0 * (double)r->best_dev / (double)r->total[3], r->last_iter);
    }
    free(r->best_theta);
    r->best_theta = NULL;
    if (r->nstages > 1)
        crfp_log(host, CRFP_LOG_INFO, "%s: %d iterations in %.1f s, objective %.6e, %zu active "
                 "features of %zu", d->name, r->last_iter, crfp_train_elapsed(&r->t0), r->objective,
                 crfp_crf_active(r->crf), crfp_crf_nparams(r->crf));
    return st;
}

static void incr_free(crfp_trainrun *r)
{
    for (size_t i = 0; i < r->nrules; i++)
        free(r->rule_x[i]);
    for (size_t i = 0; i < r->nycls; i++)
        free(r->ycls[i]);
    free(r->rule_x);
    free(r->rule_y);
    free(r->ycls);
    free(r->orule);
    free(r->ocls);
    free(r->ostate);
    r->rule_x = r->ycls = NULL;
    r->rule_y = r->orule = r->ocls = NULL;
    r->ostate = NULL;
    r->nrules = r->nycls = 0;
}

static int starts_with(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return n <= len && memcmp(s, prefix, n) == 0;
}

/* Read the extractor's prerequisites (plugin.h, 2.4) and classify the
 * observations of the finalized model.  *held receives how many are held
 * back; 0 with no prerequisites. */
crfp_status crfp_train_incr_setup(crfp_trainrun *r, size_t *held)
{
    *held = 0;
    const crfp_features_vtable *fv = r->features->desc->vtable;
    if (!CRFP_VT_HAS(fv, crfp_features_vtable, prerequisites) || !fv->prerequisites)
        return CRFP_OK;
    const char *text = fv->prerequisites(r->ex);
    if (!text || !*text)
        return CRFP_OK;
    if (crfp_dist_size() > 1)
        /* Admission looks at the training tokens; ranks hold different
         * shares of them and would admit different features. */
        return crfp_error(r->host, CRFP_EINVAL, "incremental feature sets ('#!after' in the "
                          "template) are not supported in distributed training");
    crfp_status st = CRFP_ENOMEM;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n'), *e = nl ? nl : p + strlen(p);
        const char *sp = memchr(p, ' ', (size_t)(e - p));
        if (sp && sp > p && sp + 1 < e) {
            char **nx = realloc(r->rule_x, (r->nrules + 1) * sizeof *nx);
            int32_t *ny = nx ? realloc(r->rule_y, (r->nrules + 1) * sizeof *ny) : NULL;
            if (nx)
                r->rule_x = nx;
            if (!ny)
                goto fail;
            r->rule_y = ny;
            char *x = strndup(p, (size_t)(sp - p)), *y = strndup(sp + 1, (size_t)(e - sp - 1));
            if (!x || !y) {
                free(x);
                free(y);
                goto fail;
            }
            r->rule_x[r->nrules] = x;
            size_t j = 0;
            while (j < r->nycls && strcmp(r->ycls[j], y) != 0)
                j++;
            if (j == r->nycls) {
                char **nc = realloc(r->ycls, (r->nycls + 1) * sizeof *nc);
                if (!nc) {
                    free(y);
                    r->nrules++;
                    goto fail;
                }
                r->ycls = nc;
                r->ycls[r->nycls++] = y;
            } else {
                free(y);
            }
            r->rule_y[r->nrules++] = (int32_t)j;
        }
        p = nl ? nl + 1 : e;
    }
    uint32_t nobs = crfp_crf_nobs(r->crf);
    r->orule = malloc(((size_t)nobs + 1) * sizeof *r->orule);
    r->ocls = malloc(((size_t)nobs + 1) * sizeof *r->ocls);
    r->ostate = malloc((size_t)nobs + 1);
    if (!r->orule || !r->ocls || !r->ostate)
        goto fail;
    for (uint32_t o = 0; o < nobs; o++) {
        size_t len;
        const char *s = crfp_crf_obs(r->crf, o, &len);
        r->orule[o] = r->ocls[o] = -1;
        for (size_t i = 0; i < r->nrules && r->orule[o] < 0; i++)
            if (starts_with(s, len, r->rule_x[i]))
                r->orule[o] = (int32_t)i;
        for (size_t j = 0; j < r->nycls && r->ocls[o] < 0; j++)
            if (starts_with(s, len, r->ycls[j]))
                r->ocls[o] = (int32_t)j;
        r->ostate[o] = r->orule[o] >= 0 ? INCR_HELD : INCR_FREE;
        *held += r->orule[o] >= 0;
    }
    return CRFP_OK;
fail:
    incr_free(r);
    return crfp_error(r->host, st, "out of memory");
}

static void set_block(uint64_t *mask, uint64_t first, size_t len, int on)
{
    for (size_t j = 0; j < len; j++) {
        uint64_t b = first + j;
        if (on)
            mask[b >> 6] |= UINT64_C(1) << (b & 63);
        else
            mask[b >> 6] &= ~(UINT64_C(1) << (b & 63));
    }
}

/* The first stage's mask: every weight free but those of held-back
 * observations.  *mask owned by the caller. */
static crfp_status incr_first_mask(crfp_trainrun *r, uint64_t **mask)
{
    size_t np = crfp_crf_nparams(r->crf), Y = crfp_crf_nlabels(r->crf);
    uint64_t *m = malloc(((np + 63) / 64 + 1) * sizeof *m);
    if (!m)
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    memset(m, 0xff, ((np + 63) / 64 + 1) * sizeof *m);
    for (uint32_t o = 0; o < crfp_crf_nobs(r->crf); o++) {
        if (r->ostate[o] != INCR_HELD)
            continue;
        uint64_t u = crfp_crf_ublock(r->crf, o), b = crfp_crf_bblock(r->crf, o);
        if (u != CRFP_NO_BLOCK)
            set_block(m, u, Y, 0);
        if (b != CRFP_NO_BLOCK)
            set_block(m, b, (Y + 1) * Y, 0);
    }
    *mask = m;
    return CRFP_OK;
}

static int obs_active(const crfp_crf *crf, const double *theta, uint32_t o)
{
    size_t Y = crfp_crf_nlabels(crf);
    uint64_t u = crfp_crf_ublock(crf, o), b = crfp_crf_bblock(crf, o);
    for (size_t j = 0; u != CRFP_NO_BLOCK && j < Y; j++)
        if (theta[u + j] != 0.0)
            return 1;
    for (size_t j = 0; b != CRFP_NO_BLOCK && j < (Y + 1) * Y; j++)
        if (theta[b + j] != 0.0)
            return 1;
    return 0;
}

/* Between stages: admit every held observation that, at some training
 * token, comes with an active observation of its prerequisite class.
 * *keep (still held: kept, frozen) and *open (admitted now: whole blocks
 * free) are nobs-bit sets owned by the caller. */
static crfp_status incr_admit(crfp_trainrun *r, uint64_t **keep, uint64_t **open)
{
    uint32_t nobs = crfp_crf_nobs(r->crf);
    size_t words = (size_t)nobs / 64 + 1;
    const double *theta = crfp_crf_weights_const(r->crf);
    uint64_t *k = calloc(words, sizeof *k), *op = calloc(words, sizeof *op);
    unsigned char *act = calloc((size_t)nobs + 1, 1);
    if (!k || !op || !act) {
        free(k);
        free(op);
        free(act);
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    }
    for (uint32_t o = 0; o < nobs; o++)
        act[o] = r->ocls[o] >= 0 && obs_active(r->crf, theta, o);
    size_t nadm = 0, nheld = 0;
    for (size_t i = 0; i < crfp_dataset_size(r->train); i++) {
        const crfp_seq *q = crfp_dataset_get(r->train, i);
        for (uint32_t t = 0; t < q->T; t++) {
            /* the token's observations: unigram ids, then bigram ids (an
             * observation with both blocks is in both lists) */
            const uint32_t *lists[2] = {q->uobs + q->uoff[t], q->bobs + q->boff[t]};
            uint32_t lens[2] = {q->uoff[t + 1] - q->uoff[t], q->boff[t + 1] - q->boff[t]};
            for (int a = 0; a < 2; a++)
                for (uint32_t x = 0; x < lens[a]; x++) {
                    uint32_t o = lists[a][x];
                    if (r->ostate[o] != INCR_HELD)
                        continue;
                    int32_t want = r->rule_y[r->orule[o]];
                    int ok = 0;
                    for (int c = 0; c < 2 && !ok; c++)
                        for (uint32_t z = 0; z < lens[c] && !ok; z++) {
                            uint32_t p = lists[c][z];
                            ok = r->ocls[p] == want && act[p];
                        }
                    if (ok) {
                        r->ostate[o] = INCR_ADMITTED;
                        op[o >> 6] |= UINT64_C(1) << (o & 63);
                        nadm++;
                    }
                }
        }
    }
    for (uint32_t o = 0; o < nobs; o++)
        if (r->ostate[o] == INCR_HELD) {
            k[o >> 6] |= UINT64_C(1) << (o & 63);
            nheld++;
        }
    free(act);
    crfp_log(r->host, CRFP_LOG_INFO, "incremental features: %zu observations admitted, %zu "
             "still held back", nadm, nheld);
    *keep = k;
    *open = op;
    return CRFP_OK;
}

void crfp_train_replace(crfp_trainrun *r, crfp_crf *crf, crfp_dataset *train, crfp_dataset *dev)
{
    crfp_crf_free(r->crf);
    crfp_dataset_free(r->train);
    crfp_dataset_free(r->dev);
    r->crf = crf;
    r->train = train;
    r->dev = dev;
}

/* Replace the model and datasets by their restriction to the active
 * features (and, with incremental feature sets, the held-back and newly
 * admitted observations); returns the mask of the free weights inside the
 * kept blocks. */
static crfp_status shrink_run(crfp_trainrun *r, uint64_t **mask)
{
    crfp_crf *nc;
    uint32_t *map;
    uint64_t *keep = NULL, *open = NULL;
    crfp_status st;
    if (r->ostate && (st = incr_admit(r, &keep, &open)) != CRFP_OK)
        return st;
    st = crfp_crf_shrink_keep(r->crf, crfp_crf_weights_const(r->crf), keep, open, &nc, &map,
                              mask);
    free(keep);
    free(open);
    if (st == CRFP_OK && r->ostate) {
        /* the per-observation state follows the observations' new ids */
        uint32_t nobs = crfp_crf_nobs(r->crf), nn = crfp_crf_nobs(nc);
        int32_t *nr = malloc(((size_t)nn + 1) * sizeof *nr), *ncl = malloc(((size_t)nn + 1) * sizeof *ncl);
        unsigned char *ns = malloc((size_t)nn + 1);
        if (!nr || !ncl || !ns) {
            free(nr);
            free(ncl);
            free(ns);
            free(map);
            free(*mask);
            *mask = NULL;
            crfp_crf_free(nc);
            return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
        }
        for (uint32_t o = 0; o < nobs; o++)
            if (map[o] != UINT32_MAX) {
                nr[map[o]] = r->orule[o];
                ncl[map[o]] = r->ocls[o];
                ns[map[o]] = r->ostate[o];
            }
        free(r->orule);
        free(r->ocls);
        free(r->ostate);
        r->orule = nr;
        r->ocls = ncl;
        r->ostate = ns;
    }
    if (st != CRFP_OK)
        return crfp_error(r->host, st, "cannot shrink the model to its active features: %s",
                          crfp_status_str(st));
    crfp_dataset *nt = NULL, *nd = NULL, *nh = NULL;
    if ((st = crfp_dataset_remap(r->train, map, &nt)) != CRFP_OK ||
        (st = crfp_dataset_remap(r->dev, map, &nd)) != CRFP_OK ||
        (r->heldout && (st = crfp_dataset_remap(r->heldout, map, &nh)) != CRFP_OK)) {
        free(map);
        free(*mask);
        *mask = NULL;
        crfp_crf_free(nc);
        crfp_dataset_free(nt);
        crfp_dataset_free(nd);
        return crfp_error(r->host, st, "out of memory shrinking the training data");
    }
    free(map);
    crfp_train_replace(r, nc, nt, nd);
    if (r->heldout) {
        /* the held-out fold of a cross-validation follows the ids; an
         * observation the shrunk model lacks leaves its tokens, as an
         * unseen one would */
        crfp_dataset_free(r->heldout);
        r->heldout = nh;
    }
    return CRFP_OK;
}

crfp_status crfp_train_save(crfp_trainrun *r, const char *path, const char *trainers)
{
    /* Every rank holds the same model; rank 0 writes it. */
    if (crfp_dist_rank() != 0)
        return CRFP_OK;
    char rho1[64], rho2[64], iters[32];
    const crfp_params *sp = r->stages[r->cur].params;
    snprintf(rho1, sizeof rho1, "%.17g", crfp_params_float(sp, "rho1"));
    snprintf(rho2, sizeof rho2, "%.17g", crfp_params_float(sp, "rho2"));
    /* the iterate the model holds (dev-keep=best may keep an earlier one) */
    snprintf(iters, sizeof iters, "%d", r->kept_iter);
    /* What the model learnt from: its label (eval and the CoNLL-U writer
     * look for it) and, for column files, the columns, which taggers
     * compare with their input's since templates read them by position.
     * A model without them would be wrong, not smaller: none may fail. */
    /* and whether sequence weights shaped it: how many, read from which
     * feature */
    char weights[160];
    snprintf(weights, sizeof weights, "%llu of %llu sequences weigh other than 1 (feature %s)",
             (unsigned long long)r->total[8], (unsigned long long)r->total[0],
             crfp_train_param(r, "weight-feature"));
    /* columns named by position were read under the warm start's names
     * (crfp_train_open): the model records those, which its template uses */
    char *renamed = NULL;
    crfp_status st = r->init ? crfp_columns_as_model(r->columns0, crfp_crf_meta(r->init, "columns"),
                                                     &renamed)
                             : CRFP_OK;
    const char *keys[] = {"label", "trainer", "rho1", "rho2", "iterations", "columns",
                          "sequence-weights"};
    const char *vals[] = {r->labelname, trainers, rho1, rho2, iters,
                          renamed ? renamed : r->columns0, r->total[8] ? weights : NULL};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && st == CRFP_OK; i++)
        if (vals[i])
            st = crfp_crf_set_meta(r->crf, keys[i], vals[i]);
    free(renamed);
    if (st != CRFP_OK)
        return crfp_error(r->host, st, "%s: cannot record the model's metadata: %s", path,
                          crfp_status_str(st));
    st = crfp_crf_save(r->host, r->crf, path);
    if (st == CRFP_OK)
        crfp_log(r->host, CRFP_LOG_INFO, "model written to %s", path);
    return st;
}

crfp_status crfp_train_run_chain(crfp_trainrun *r, uint64_t *mask, int save_between,
                                 crfp_status *tst)
{
    crfp_status st = CRFP_OK;
    *tst = CRFP_OK;
    /* The first stage trains only the seen label pairs when asked; later
     * stages keep them, as they keep every weight a stage left at zero. */
    uint64_t *seen;
    if ((st = crfp_train_seen_mask(r, &seen)) != CRFP_OK) {
        free(mask);
        return *tst = st;
    }
    if (seen && mask) {
        for (size_t j = 0, n = (crfp_crf_nparams(r->crf) + 63) / 64; j < n; j++)
            mask[j] &= seen[j];
        free(seen);
    } else if (seen)
        mask = seen;
    /* a model with nothing to learn labels every token alike: say why */
    int any = crfp_crf_nparams(r->crf) > 0;
    for (size_t j = 0, n = (crfp_crf_nparams(r->crf) + 63) / 64; mask && j < n; j++)
        if ((any = mask[j] != 0))
            break;
    if (!any)
        crfp_log(r->host, CRFP_LOG_WARN, "the model has no weight to train%s: it will give "
                 "every token the same label", crfp_train_param(r, "min-freq")
                     ? " (min-freq cut every observation or label pair)" : "");
    for (size_t k = 0; k < r->nstages && *tst == CRFP_OK; k++) {
        if (k > 0 && (st = shrink_run(r, &mask)) != CRFP_OK)
            break;
        *tst = crfp_train_run_stage(r, k, mask);
        free(mask);
        mask = NULL;
        if (*tst != CRFP_OK && *tst != CRFP_EINTR)
            return *tst;
        /* An intermediate stage with a model of its own saves it too. */
        const crfp_params *sp = r->stages[k].params;
        if (save_between && k + 1 < r->nstages && crfp_params_isset(sp, "model") &&
            *tst == CRFP_OK &&
            (st = crfp_train_save(r, crfp_params_str(sp, "model"),
                                  r->stages[k].plugin->desc->name)) != CRFP_OK)
            break;
    }
    free(mask);
    return st;
}

crfp_status crfp_train_finish(crfp_trainrun *r)
{
    crfp_host *host = r->host;
    crfp_status st = crfp_train_inputs_done(r);
    if (st != CRFP_OK)
        return st;
    r->total[0] = crfp_dataset_size(r->train);
    r->total[1] = crfp_dataset_tokens(r->train);
    r->total[2] = crfp_dataset_size(r->dev);
    r->total[3] = crfp_dataset_tokens(r->dev);
    r->total[4] = r->skipped[0];
    r->total[5] = r->skipped[1];
    r->total[6] = r->dev_unknown[0];
    r->total[7] = r->dev_unknown[1];
    r->total[8] = crfp_dataset_weighted(r->train);
    if ((st = crfp_dist_sum_counts(host, CRFP_OK, r->total, 9)) != CRFP_OK)
        return st;
    if (r->total[6] && r->total[2] == 0) {
        crfp_dist_set_failure_kind(CRFP_DIST_FAIL_SAME);
        return crfp_error(host, CRFP_EINVAL, "none of the dev set's %llu sentences can be scored: "
                          "each has a label the training data lacks",
                          (unsigned long long)r->total[6]);
    }
    if (r->total[6] && crfp_dist_rank() == 0)   /* the job's figures, said once */
        crfp_log(host, CRFP_LOG_WARN, "dev: %llu of %llu sentences (%llu tokens) left out: "
                 "their labels include one the training data lacks, which the model cannot "
                 "predict; the dev error is over the other sentences",
                 (unsigned long long)r->total[6], (unsigned long long)(r->total[6] + r->total[2]),
                 (unsigned long long)r->total[7]);
    if (r->total[4] || r->total[5])
        crfp_log(host, CRFP_LOG_INFO, "unlabelled=skip: left out %llu training and %llu dev "
                 "sentences with a token lacking the '%s' label",
                 (unsigned long long)r->total[4], (unsigned long long)r->total[5],
                 r->labelname ? r->labelname : "");
    if (r->total[0] == 0) {
        crfp_dist_set_failure_kind(CRFP_DIST_FAIL_SAME);
        return crfp_error(host, CRFP_EINVAL, "%s: no labelled sentences to train on",
                          r->source ? r->source : "training data");
    }
    if ((st = crfp_train_cut_rare(r)) != CRFP_OK)
        return st;
    st = crfp_crf_finalize(r->crf);
    if (st != CRFP_OK)
        return crfp_error(host, st, "cannot lay out the model's parameters");
    if (r->init)
        copy_warm_start(r);

    /* The model carries its feature extractor so tagging sees exactly what
     * training saw. */
    const crfp_features_vtable *fv = r->features->desc->vtable;
    char *cfg = NULL;
    size_t cfglen = 0;
    /* The plugin's status, not whatever was recorded last: a save that
     * ran out of memory without a message must not read as success. */
    crfp_error_clear(host);
    if ((st = fv->save(r->ex, &cfg, &cfglen)) != CRFP_OK)
        return crfp_error_wrap(host, st, "features '%s': saving its configuration",
                               r->features->desc->name);
    st = crfp_crf_set_features(r->crf, r->features->desc->name, cfg, cfglen);
    free(cfg);
    if (st != CRFP_OK)
        return crfp_error(host, st, "out of memory");

#ifdef __GLIBC__
    /* The documents the data came from are gone; hand their pages back
     * before the optimizer allocates its vectors, so that peak memory is
     * data + optimizer rather than their sum with the parse. */
    malloc_trim(0);
#endif
    size_t np = crfp_crf_nparams(r->crf);
    crfp_log(host, CRFP_LOG_INFO,
             "training: %llu sequences, %llu tokens; %u labels, %u observations, %zu parameters "
             "(%.1f MB per parameter vector)%s",
             (unsigned long long)r->total[0], (unsigned long long)r->total[1],
             crfp_crf_nlabels(r->crf), crfp_crf_nobs(r->crf), np,
             (double)np * sizeof(double) / 1048576.0, r->init ? "; warm start" : "");
    if (r->total[8])
        crfp_log(host, CRFP_LOG_INFO, "training: %llu of the sequences weigh other than 1 "
                 "(Sentence feature %s)", (unsigned long long)r->total[8],
                 crfp_train_param(r, "weight-feature"));
    /* One label is no task: the model predicts it everywhere (the gold was
     * not where it was looked for: another --label, --spans of an
     * annotation set the documents do not have) */
    if (crfp_crf_nlabels(r->crf) == 1 && crfp_dist_rank() == 0 && !r->init)
        crfp_log(host, CRFP_LOG_WARN, "training: every token has the label '%s' (feature %s): "
                 "the model can only predict it", crfp_crf_label(r->crf, 0),
                 r->labelname ? r->labelname : "?");
    if (crfp_dist_size() > 1)
        crfp_log(host, CRFP_LOG_INFO, "mpi: %d ranks, rank 0 holds %zu sequences, %zu tokens",
                 crfp_dist_size(), crfp_dataset_size(r->train), crfp_dataset_tokens(r->train));
    if (r->total[2])
        crfp_log(host, CRFP_LOG_INFO, "dev: %llu sequences, %llu tokens",
                 (unsigned long long)r->total[2], (unsigned long long)r->total[3]);

    char trainers[256] = "";
    size_t tl = 0;
    for (size_t k = 0; k < r->nstages && tl < sizeof trainers; k++)
        tl += (size_t)snprintf(trainers + tl, sizeof trainers - tl, "%s%s", k ? "," : "",
                               r->stages[k].plugin->desc->name);
    struct timespec tall;
    clock_gettime(CLOCK_MONOTONIC, &tall);
    const char *spec = crfp_train_param(r, "rho1-path");
    if (spec)
        return crfp_train_run_path(r, spec, trainers, &tall);
    if (crfp_train_cv_folds(r->stages, r->nstages) > 0)
        return crfp_train_run_cv(r, trainers, &tall);
    uint64_t *mask = NULL;
    size_t held;
    if ((st = crfp_train_incr_setup(r, &held)) != CRFP_OK)
        return st;
    if (held) {
        crfp_log(host, CRFP_LOG_INFO, "incremental features: %zu of %u observations held back "
                 "until their prerequisite is active", held, crfp_crf_nobs(r->crf));
        if (r->nstages == 1)
            crfp_log(host, CRFP_LOG_WARN, "the template holds %zu observations back ('#!after') "
                     "but only a chain of trainers (--trainer a,b) admits them", held);
        if ((st = incr_first_mask(r, &mask)) != CRFP_OK)
            return st;
    }
    crfp_status tst;
    if ((st = crfp_train_run_chain(r, mask, 1, &tst)) != CRFP_OK)
        return st;
    crfp_dist_report(host, r->train, r->crf);
    if (tst == CRFP_EINTR)
        crfp_log(host, CRFP_LOG_WARN, "interrupted: saving the model of iteration %d",
                 r->kept_iter);
    /* One summary line in a fixed form (bench/conll2000.sh reads it):
     * iterations over every stage, active features of the full model. */
    /* with no iteration completed no objective was reported: saying 0 would
     * pass for one */
    char obj[48];
    if (r->total_iter > 0)
        snprintf(obj, sizeof obj, "%.6e", r->objective);
    else
        snprintf(obj, sizeof obj, "none (no iteration completed)");
    crfp_log(host, CRFP_LOG_INFO, "trained: %d iterations in %.1f s, objective %s, %zu active "
             "features of %zu", r->total_iter, crfp_train_elapsed(&tall), obj,
             crfp_crf_active(r->crf), np);
    const char *model = crfp_params_str(r->stages[r->nstages - 1].params, "model");
    if ((st = crfp_train_save(r, model, trainers)) != CRFP_OK)
        return st;
    if (tst == CRFP_EINTR)
        return crfp_error(host, CRFP_EINTR, "interrupted at iteration %d; model saved to %s",
                          r->last_iter, model);
    return CRFP_OK;
}

void crfp_train_free(crfp_trainrun *r)
{
    if (!r)
        return;
    free(r->ck_state);
    free(r->best_theta);
    incr_free(r);
    crfp_crf_free(r->crf);
    crfp_crf_free(r->init);
    crfp_dataset_free(r->train);
    crfp_dataset_free(r->dev);
    crfp_obsseq_free(r->obs);
    crfp_sentbuf_free(r->sb);
    free(r->stages);
    free(r->labels);
    free(r->labelname);
    free(r->columns0);
    free(r->source);
    free(r);
}
