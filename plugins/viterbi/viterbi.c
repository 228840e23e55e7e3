/* viterbi — the CRF tagger stage.
 *
 * Loads a model once, rebuilds its feature extractor from the features
 * plugin and configuration stored in it, and labels every sentence of each
 * document with sparse Viterbi (optionally n-best lists and posterior
 * marginals).  Sentences of a document are decoded by a team of threads
 * sharing the model read-only; the document itself is only written by the
 * calling thread, after the team is done.  A pipeline may instead run
 * several documents (a reader's batches) through it at once (ABI 2.2
 * process_concurrent), each decoded on one thread.
 *
 * The model's template reads token features by column.  By default the
 * columns are the document's own (crfpipe/tokseq.h: its "columns" metadata,
 * else the tokens' string features by name), which suits documents read
 * from the format the model was trained on.  `input-columns` instead lists
 * the template's columns in order, each either a token feature of the same
 * name or NAME=FEATURE: "word=string,pos" lets a model trained on CoNLL
 * columns word and pos tag the output of a tokenizer (feature `string`)
 * and of a POS tagger (feature `pos`), whatever else the tokens carry.  A
 * token without the feature reads as a missing cell.  Taggers chain this
 * way: each writes its label as the feature `output`, which the next
 * stage's template reads as a column.
 *
 * `decode=posterior` replaces the best labelling by each token's most
 * probable label under the forward-backward marginals: the labelling with
 * the fewest expected token errors, which is what a per-token score (a
 * phoneme error rate, a tag accuracy) counts.  It helps weak models whose
 * marginals are flat (NETtalk 1-grm: -0.4 points of PER) and changes
 * little where the model is sure; spans of BIO labels may then come out
 * of an I- after an O, which starts a span there as conlleval reads it.
 *
 * `scores` and `token-scores` give each labelling's score and each token's
 * share of it (crfp_path_terms: the weights of its label and of the label
 * pair into it).  Under decode=posterior they are the posterior decoder's
 * own, as Wapiti prints them with -p -s: the product of the labelling's
 * marginals and each token's marginal.
 *
 * `label-bias` shifts the score of chosen labels by a constant at every
 * position: a trade of precision against recall (an entity tagger that
 * finds few but sure entities gains F1 from a negative bias on O), tuned
 * on development data.  It is applied to the model's weights once, at
 * load: adding d to λ(y', y) of the constant bigram observation `B` for
 * every previous label y' (start included) adds d to y's score at every
 * token, whatever the labels around it.
 *
 * `force` (Wapiti's --force) keeps the label of every token whose
 * `force-feature` (default: the model's label feature, the gold column)
 * holds one, and decodes the others around them: the engine scores every
 * other label of such a token -inf (crfp_infer_set_force), so n-best
 * lists, posteriors and marginals are those of the agreeing labellings.
 * Labels to keep come from partial annotation, a gazetteer or a user's
 * corrections; one the model lacks is an error naming the token.
 *
 * Decoding workspaces outlive the documents: a worker takes one from the
 * tagger's free list and gives it back when its document is done.  With
 * fixed weights a workspace's transition cache fills once for the run
 * instead of once per document, which at G2P's one-word sentences and
 * 233 labels was a third of the time of a 256-word document.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

#include "../common/columns.h"

/* One version for the descriptor and the processor a tagged document
 * records (1.4: columns named by position read under the model's names). */
#define VITERBI_VERSION "1.4"

static const crfp_param_spec params[] = {
    {"model", CRFP_PARAM_PATH, NULL, "model file to tag with (required)"},
    {"threads", CRFP_PARAM_INT, "0", "decoding threads (0 = all cores)"},
    {"nbest", CRFP_PARAM_INT, "1", "also output the k best labellings (features OUTPUT-2..k)"},
    {"posteriors", CRFP_PARAM_BOOL, "false",
     "add the marginal of each predicted label (OUTPUT-prob), the sequence probability, and to "
     "each span the probability that its tokens carry their labels (feature prob)"},
    {"marginals", CRFP_PARAM_INT, "0",
     "add each token's N most probable labels with their marginals, most probable first "
     "(features OUTPUT-marginal-1..N, each LABEL/PROBABILITY; N at least the number of labels: "
     "all of them, as CRF++'s -v2)"},
    {"marginals-order", CRFP_PARAM_STRING, "rank",
     "order of the marginals' features: rank (most probable first) or label (the model's label "
     "order, as CRF++'s -v2 and crfsuite tag -l list them)"},
    {"decode", CRFP_PARAM_STRING, "viterbi",
     "viterbi (the best labelling) or posterior (each token's most probable label: fewer token "
     "errors expected, though the labelling may be one the model scores low)"},
    {"output", CRFP_PARAM_STRING, "predicted", "token feature receiving the predicted label"},
    {"scores", CRFP_PARAM_BOOL, "false",
     "add each labelling's unnormalised log score (Sentence feature OUTPUT-scores, a list in "
     "n-best order), e.g. for lm_rescore; with decode=posterior the product of its tokens' "
     "marginals, which that decoding maximises (as wapiti label -p -s)"},
    {"token-scores", CRFP_PARAM_BOOL, "false",
     "add each token's share of its labelling's score (features OUTPUT-score, OUTPUT-K-score "
     "for the k-th best): the weights of its label and of the label pair into it, which sum to "
     "the log score; with decode=posterior its label's marginal (wapiti label -s prints both)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
    {"spans", CRFP_PARAM_STRING, "auto",
     "annotation type for chunks of BIO labels (e.g. Chunk, Entity); auto = Chunk when the "
     "labels are BIO, none = no spans"},
    {"span-set", CRFP_PARAM_STRING, NULL,
     "annotation set receiving the spans (e.g. Response, beside GATE's Key); default: the "
     "tokens' set"},
    {"span-feature", CRFP_PARAM_STRING, "label",
     "feature of each span annotation holding its type (the label without B-/I-)"},
    {"weight-scale", CRFP_PARAM_FLOAT, "1",
     "multiply every weight by this (> 0), as CRF++'s crf_test -c: the labelling stays, the "
     "probabilities sharpen (above 1) or flatten (below 1); tuned on development data, it "
     "calibrates them (temperature scaling, 1/T)"},
    {"label-bias", CRFP_PARAM_STRING, NULL,
     "LABEL:VALUE,... added to the score of LABEL at every token (e.g. O:-1 favours "
     "entities); needs the template's constant bigram pattern B"},
    {"force", CRFP_PARAM_BOOL, "false",
     "forced decoding (Wapiti's --force): a token whose force-feature holds one of the model's "
     "labels keeps that label, and the others are decoded around it (empty or _ leaves a token "
     "free)"},
    {"force-feature", CRFP_PARAM_STRING, NULL,
     "with force: the token feature holding the labels to keep (default: the model's label, "
     "e.g. the gold column)"},
    {"input-columns", CRFP_PARAM_STRING, NULL,
     "the template's columns in order, each NAME or NAME=TOKEN_FEATURE (e.g. word=string,pos); "
     "default: the document's columns"},
};

/* The template's view of the tokens when input-columns is set. */
typedef struct colmap {
    size_t n;
    char **names;     /* column names the template sees */
    char **feats;     /* token features they are read from */
    char *spec;       /* the parameter, for provenance */
} colmap;

typedef struct tagger {
    crfp_host *host;
    crfp_crf *crf;
    const crfp_features_vtable *fv;
    void *ex;
    int nthreads;
    size_t nbest;
    int posteriors;
    size_t nmarg;     /* marginals: how many of each token's labels (<= Y) */
    int marginal;     /* decode=posterior: argmax of each token's marginal */
    int scores;       /* write OUTPUT-scores */
    int tokscores;    /* write OUTPUT-score, OUTPUT-K-score */
    int by_label;     /* marginals-order=label */
    char *force;      /* force: the token feature whose labels are kept, else NULL */
    char *output;
    char *set;
    char *spantype;   /* NULL: no spans */
    char *spanfeat;
    char *spanset;    /* the spans' set, NULL: the tokens' */
    char *bias_spec;  /* label-bias, for provenance */
    double scale;     /* weight-scale */
    colmap cm;        /* cm.n == 0: the document's columns */
    unsigned char *cm_warned;   /* per mapped column: its absence was reported */
    /* the input's columns were compared with the model's; documents may be
     * tagged concurrently (process_concurrent), so it is claimed atomically */
    atomic_int cols_checked;
    atomic_int untokenized;   /* a document with text and no tokens was reported */
    char **outnames;  /* OUTPUT, OUTPUT-2..k, OUTPUT-prob, OUTPUT-marginal-1..nmarg,
                       * then with token-scores OUTPUT-score, OUTPUT-2-score..k */
    const char **extras;  /* the outputs written besides OUTPUT (into outnames) */
    size_t nextras;
    const char *model_path;
    /* Idle decoding workspaces; at most as many exist as workers ever ran
     * at once.  The lock guards only the list. */
    pthread_mutex_t idle_lock;
    int idle_lock_ok;
    struct wspace *idle;
} tagger;

/* One worker's buffers: its token table, observations, lookup, Viterbi
 * workspace (with its cache of transitions for the fixed weights) and
 * label buffers.  Owned by the tagger's idle list between documents. */
typedef struct wspace {
    struct wspace *next;
    crfp_sentbuf *sb;
    crfp_obsseq *obs;
    crfp_seqbuf *qb;
    crfp_infer *inf;
    uint32_t *ybuf;
    const char **cells;
    size_t capcells;
    double *scores, *marg;
    const char **labs;      /* spans: the best labelling's label strings (capT) */
    size_t capT;
    unsigned char *taken;   /* marginals: labels already ranked at a token (Y) */
} wspace;

static void wspace_free(wspace *w)
{
    if (!w)
        return;
    crfp_sentbuf_free(w->sb);
    crfp_obsseq_free(w->obs);
    crfp_seqbuf_free(w->qb);
    crfp_infer_free(w->inf);
    free(w->ybuf);
    free(w->cells);
    free(w->scores);
    free(w->marg);
    free(w->labs);
    free(w->taken);
    free(w);
}

/* An idle workspace, or a new one (NULL: out of memory). */
static wspace *wspace_take(tagger *tg)
{
    wspace *w = NULL;
    pthread_mutex_lock(&tg->idle_lock);
    if (tg->idle) {
        w = tg->idle;
        tg->idle = w->next;
    }
    pthread_mutex_unlock(&tg->idle_lock);
    if (w)
        return w;
    if (!(w = calloc(1, sizeof *w)))
        return NULL;
    w->sb = crfp_sentbuf_new();
    w->obs = crfp_obsseq_new();
    w->qb = crfp_seqbuf_new();
    w->inf = crfp_infer_new(tg->crf);
    w->scores = malloc(tg->nbest * sizeof *w->scores);
    if (tg->nmarg)
        w->taken = malloc(crfp_crf_nlabels(tg->crf));
    /* columns named by position are read under the model's names (not
     * when input-columns maps them: its names are the template's) */
    if (!w->sb || !w->obs || !w->qb || !w->inf || !w->scores || (tg->nmarg && !w->taken) ||
        (!tg->cm.n && crfp_sentbuf_read_as(w->sb, crfp_crf_meta(tg->crf, "columns")) != CRFP_OK)) {
        wspace_free(w);
        return NULL;
    }
    /* The model's weights do not change while tagging: let the workspace
     * keep its per-observation transitions across sentences and
     * documents.  Out of memory here only loses that cache. */
    (void)crfp_infer_fix_theta(w->inf, crfp_crf_weights_const(tg->crf));
    return w;
}

static void wspace_give(tagger *tg, wspace *w)
{
    pthread_mutex_lock(&tg->idle_lock);
    w->next = tg->idle;
    tg->idle = w;
    pthread_mutex_unlock(&tg->idle_lock);
}

/* Per-document work shared by the team. */
typedef struct job {
    tagger *tg;
    const crfp_doc *doc;
    crfp_ann **toks;          /* every Token of the set, text order */
    size_t *sbeg, *send;      /* sentence s covers toks[sbeg[s] .. send[s]) */
    size_t nsent;
    uint32_t *pred;           /* nbest labels per token: pred[k*ntoktotal + i] */
    size_t ntoktotal;
    size_t *nfound;           /* per sentence: how many labellings found */
    double *prob;             /* per token marginal of the best label */
    double *spanp;            /* posteriors with spans: at a span's first token, the
                               * probability of the span's labels */
    uint32_t *mlab;           /* marginals: mlab[i*nmarg + r], the r-th likeliest label */
    double *mval;             /* ... and its marginal */
    double *seqprob;          /* per sentence, per k: probability */
    double *seqscore;         /* per sentence, per k: log score (scores=true) */
    double *tokscore;         /* token-scores: tokscore[k*ntoktotal + i] */
    double *lognorm;          /* posteriors: per sentence, log Z */
    uint32_t *forced;         /* force: per token, the label kept, or CRFP_FREE_LABEL */
    atomic_size_t next;
    atomic_int failed;
    int nth;                  /* team members that take part */
    atomic_int feat_failed;   /* the features plugin failed and said why */
    /* The first failure, recorded by the one member that claims it (the
     * host's error record is not for worker threads): read after the
     * team has finished. */
    atomic_int claimed;
    crfp_status fail_st;
    const char *fail_what;    /* static: the step that failed */
    size_t fail_sent;         /* 0-based sentence, SIZE_MAX for set-up */
} job;

static void record_failure(job *j, crfp_status st, const char *what, size_t sent)
{
    if (atomic_exchange(&j->claimed, 1) == 0) {
        j->fail_st = st;
        j->fail_what = what;
        j->fail_sent = sent;
    }
    atomic_store(&j->failed, 1);
}

static void tagger_close(void *state);

/* Apply "LABEL:VALUE,..." to the weights of the constant bigram
 * observation "B" (see the top of the file). */
static crfp_status apply_bias(crfp_host *host, crfp_crf *crf, const char *spec, const char *model)
{
    int64_t obs = crfp_crf_obs_id(crf, "B", 1);
    uint64_t blk = obs >= 0 ? crfp_crf_bblock(crf, (uint32_t)obs) : CRFP_NO_BLOCK;
    if (blk == CRFP_NO_BLOCK)
        return crfp_error(host, CRFP_EINVAL,
                          "label-bias: the model %s has no constant label bigram (a bare 'B' "
                          "line in its template), which the bias is added to",
                          model);
    uint32_t Y = crfp_crf_nlabels(crf);
    double *w = crfp_crf_weights(crf) + blk;
    for (const char *p = spec; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *colon = NULL;
        for (size_t i = len; i > 0; i--)
            if (p[i - 1] == ':') {
                colon = p + i - 1;
                break;
            }
        char label[256], num[64];
        if (!colon || colon == p || (size_t)(colon - p) >= sizeof label ||
            len - (size_t)(colon - p) - 1 >= sizeof num || len - (size_t)(colon - p) - 1 == 0)
            return crfp_error(host, CRFP_EINVAL,
                              "label-bias '%s': expected LABEL:VALUE items separated by commas",
                              spec);
        memcpy(label, p, (size_t)(colon - p));
        label[colon - p] = '\0';
        memcpy(num, colon + 1, len - (size_t)(colon - p) - 1);
        num[len - (size_t)(colon - p) - 1] = '\0';
        char *end;
        double d = strtod(num, &end);
        if (*end || !isfinite(d))
            return crfp_error(host, CRFP_EINVAL, "label-bias '%s': '%s' is not a number", spec, num);
        int64_t y = crfp_crf_label_id(crf, label);
        if (y < 0)
            return crfp_error(host, CRFP_EINVAL, "label-bias: the model %s has no label '%s'", model,
                              label);
        for (uint32_t prev = 0; prev <= Y; prev++)
            w[(size_t)prev * Y + (size_t)y] += d;
        p += len + (comma ? 1 : 0);
    }
    return CRFP_OK;
}

static void colmap_free(colmap *cm)
{
    for (size_t i = 0; i < cm->n; i++) {
        free(cm->names[i]);
        free(cm->feats[i]);
    }
    free(cm->names);
    free(cm->feats);
    free(cm->spec);
    memset(cm, 0, sizeof *cm);
}

/* Parse "a,b=c,...": column a from feature a, column b from feature c. */
static crfp_status colmap_parse(crfp_host *host, colmap *cm, const char *spec)
{
    size_t n = 1;
    for (const char *c = spec; *c; c++)
        n += *c == ',';
    cm->names = calloc(n, sizeof *cm->names);
    cm->feats = calloc(n, sizeof *cm->feats);
    if (!cm->names || !cm->feats || !(cm->spec = strdup(spec)))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    for (const char *p = spec;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t nl = eq ? (size_t)(eq - p) : len;
        const char *f = eq ? eq + 1 : p;
        size_t fl = eq ? len - nl - 1 : len;
        if (nl == 0 || fl == 0)
            return crfp_error(host, CRFP_EINVAL,
                              "input-columns '%s': empty column or feature name (expected "
                              "NAME or NAME=FEATURE, separated by commas)",
                              spec);
        for (size_t i = 0; i < cm->n; i++)
            if (strlen(cm->names[i]) == nl && memcmp(cm->names[i], p, nl) == 0)
                return crfp_error(host, CRFP_EINVAL, "input-columns '%s': column '%.*s' given twice",
                                  spec, (int)nl, p);
        if (!(cm->names[cm->n] = strndup(p, nl)) || !(cm->feats[cm->n] = strndup(f, fl)))
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        cm->n++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return CRFP_OK;
}

/* The token table of toks[0..n) through the column map; cells point into
 * the document.  *cells is grown as needed (caller frees). */
static int colmap_fill(const colmap *cm, crfp_ann *const *toks, size_t n, const char ***cells,
                       size_t *cap, crfp_tokseq *seq)
{
    size_t need = n * cm->n + 1;
    if (need > *cap) {
        const char **c = realloc(*cells, need * sizeof *c);
        if (!c)
            return -1;
        *cells = c;
        *cap = need;
    }
    const char **c = *cells;
    for (size_t t = 0; t < n; t++)
        for (size_t k = 0; k < cm->n; k++)
            c[t * cm->n + k] = crfp_ann_str(toks[t], cm->feats[k]);
    seq->ntok = n;
    seq->ncols = cm->n;
    seq->colnames = (const char *const *)cm->names;
    seq->cells = c;
    return 0;
}

/* How many output names the tagger writes: OUTPUT and the n-best, the
 * probability slot, the marginals, and with token-scores one per
 * labelling. */
static size_t nout_names(const tagger *tg)
{
    return tg->nbest + 1 + tg->nmarg + (tg->tokscores ? tg->nbest : 0);
}

static crfp_status tagger_open(crfp_host *host, const crfp_params *p, void **state)
{
    tagger *tg = calloc(1, sizeof *tg);
    if (!tg)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    tg->host = host;
    atomic_init(&tg->cols_checked, 0);
    atomic_init(&tg->untokenized, 0);
    if (pthread_mutex_init(&tg->idle_lock, NULL) != 0) {
        free(tg);
        return crfp_error(host, CRFP_ENOMEM, "cannot create a lock");
    }
    tg->idle_lock_ok = 1;
    crfp_status st;
    const char *model = crfp_params_str(p, "model");
    if (!model) {
        st = crfp_error(host, CRFP_EINVAL, "parameter 'model' is required");
        goto fail;
    }
    tg->model_path = model;
    if ((st = crfp_crf_load(host, model, &tg->crf)) != CRFP_OK)
        goto fail;
    const char *fname = crfp_crf_features_plugin(tg->crf);
    const crfp_plugin *fp;
    if ((st = crfp_host_load_kind(host, fname, CRFP_KIND_FEATURES, &fp)) != CRFP_OK) {
        crfp_error_wrap(host, st, "%s: features plugin of the model", model);
        goto fail;
    }
    tg->fv = fp->desc->vtable;
    size_t cfglen;
    const char *cfg = crfp_crf_features_config(tg->crf, &cfglen);
    if ((st = tg->fv->load(host, cfg, cfglen, model, &tg->ex)) != CRFP_OK)
        goto fail;
    tg->scale = crfp_params_float(p, "weight-scale");
    if (!(tg->scale > 0.0) || !isfinite(tg->scale)) {
        st = crfp_error(host, CRFP_EINVAL, "weight-scale must be a number above 0, not %g",
                        tg->scale);
        goto fail;
    }
    if (tg->scale != 1.0) {
        /* before the bias, which is in the scaled scores' units */
        double *wts = crfp_crf_weights(tg->crf);
        for (size_t i = 0, n = crfp_crf_nparams(tg->crf); i < n; i++)
            if (!isfinite(wts[i] *= tg->scale)) {
                st = crfp_error(host, CRFP_EINVAL, "weight-scale %g makes a weight of the model "
                                "%s too large for a double", tg->scale, model);
                goto fail;
            }
    }
    const char *bias = crfp_params_str(p, "label-bias");
    if (bias && *bias) {
        if ((st = apply_bias(host, tg->crf, bias, model)) != CRFP_OK)
            goto fail;
        if (!(tg->bias_spec = strdup(bias)))
            goto nomem;
    }
    int64_t th = crfp_params_int(p, "threads");
    tg->nthreads = th > 0 ? (int)th : crfp_host_threads(host);
    int64_t nb = crfp_params_int(p, "nbest");
    if (nb < 1 || nb > 1000) {
        st = crfp_error(host, CRFP_EINVAL, "nbest must be between 1 and 1000, not %lld",
                        (long long)nb);
        goto fail;
    }
    tg->nbest = (size_t)nb;
    tg->posteriors = crfp_params_bool(p, "posteriors");
    int64_t nm = crfp_params_int(p, "marginals");
    if (nm < 0) {
        st = crfp_error(host, CRFP_EINVAL, "marginals must be 0 or more, not %lld", (long long)nm);
        goto fail;
    }
    tg->nmarg = (uint64_t)nm < crfp_crf_nlabels(tg->crf) ? (size_t)nm : crfp_crf_nlabels(tg->crf);
    const char *dec = crfp_params_str(p, "decode");
    if (strcmp(dec, "posterior") == 0)
        tg->marginal = 1;
    else if (strcmp(dec, "viterbi") != 0) {
        st = crfp_error(host, CRFP_EINVAL, "decode must be viterbi or posterior, not '%s'", dec);
        goto fail;
    }
    if (tg->marginal && tg->nbest > 1) {
        st = crfp_error(host, CRFP_EINVAL,
                        "decode=posterior gives one labelling; it cannot go with nbest=%zu",
                        tg->nbest);
        goto fail;
    }
    tg->scores = crfp_params_bool(p, "scores");
    tg->tokscores = crfp_params_bool(p, "token-scores");
    const char *mo = crfp_params_str(p, "marginals-order");
    if (strcmp(mo, "label") == 0)
        tg->by_label = 1;
    else if (strcmp(mo, "rank") != 0) {
        st = crfp_error(host, CRFP_EINVAL, "marginals-order must be rank or label, not '%s'", mo);
        goto fail;
    }
    if (crfp_params_bool(p, "force")) {
        const char *ff = crfp_params_str(p, "force-feature");
        const char *ml = crfp_crf_meta(tg->crf, "label");
        if (!(tg->force = strdup(ff && *ff ? ff : ml && *ml ? ml : "label")))
            goto nomem;
    }
    tg->output = strdup(crfp_params_str(p, "output"));
    tg->set = strdup(crfp_params_str(p, "set"));
    if (!tg->output || !tg->set)
        goto nomem;
    const char *spans = crfp_params_str(p, "spans");
    if (strcmp(spans, "none") != 0) {
        uint32_t Y = crfp_crf_nlabels(tg->crf);
        const char **labels = malloc((Y + 1) * sizeof *labels);
        if (!labels)
            goto nomem;
        for (uint32_t y = 0; y < Y; y++)
            labels[y] = crfp_crf_label(tg->crf, y);
        int chunked = crfp_labels_are_chunked(labels, Y);
        free(labels);
        if (strcmp(spans, "auto") != 0)
            tg->spantype = strdup(spans);
        else if (chunked)
            tg->spantype = strdup("Chunk");
        if ((strcmp(spans, "auto") != 0 || chunked) && !tg->spantype)
            goto nomem;
    }
    const char *sset = crfp_params_str(p, "span-set");
    if (sset && !(tg->spanset = strdup(sset)))
        goto nomem;
    if (!(tg->spanfeat = strdup(crfp_params_str(p, "span-feature"))))
        goto nomem;
    if (!*tg->spanfeat) {
        st = crfp_error(host, CRFP_EINVAL, "span-feature must not be empty");
        goto fail;
    }
    if (tg->posteriors && tg->spantype && strcmp(tg->spanfeat, "prob") == 0) {
        st = crfp_error(host, CRFP_EINVAL, "span-feature 'prob' would be overwritten by each "
                        "span's probability (posteriors=true): choose another name");
        goto fail;
    }
    const char *ic = crfp_params_str(p, "input-columns");
    if (ic && (st = colmap_parse(host, &tg->cm, ic)) != CRFP_OK)
        goto fail;
    if (tg->cm.n && !(tg->cm_warned = calloc(tg->cm.n, 1)))
        goto nomem;
    size_t nout = nout_names(tg);
    tg->outnames = calloc(nout, sizeof *tg->outnames);
    if (!tg->outnames)
        goto nomem;
    size_t olen = strlen(tg->output) + 40, ts = tg->nbest + 1 + tg->nmarg;
    for (size_t k = 0; k < nout; k++) {
        if (!(tg->outnames[k] = malloc(olen)))
            goto nomem;
        if (k == 0)
            snprintf(tg->outnames[k], olen, "%s", tg->output);
        else if (k < tg->nbest)
            snprintf(tg->outnames[k], olen, "%s-%zu", tg->output, k + 1);
        else if (k == tg->nbest)
            snprintf(tg->outnames[k], olen, "%s-prob", tg->output);
        else if (k < ts)
            snprintf(tg->outnames[k], olen, "%s-marginal-%zu", tg->output, k - tg->nbest);
        else if (k == ts)
            snprintf(tg->outnames[k], olen, "%s-score", tg->output);
        else
            snprintf(tg->outnames[k], olen, "%s-%zu-score", tg->output, k - ts + 1);
    }
    /* up to 999 n-best, the probability, up to model-labels (4096)
     * marginals and the n-best's token scores: on the heap, made once for
     * every document */
    if (!(tg->extras = malloc(nout * sizeof *tg->extras)))
        goto nomem;
    for (size_t k = 1; k < tg->nbest; k++)
        tg->extras[tg->nextras++] = tg->outnames[k];
    if (tg->posteriors)
        tg->extras[tg->nextras++] = tg->outnames[tg->nbest];
    for (size_t r = 1; r <= tg->nmarg; r++)
        tg->extras[tg->nextras++] = tg->outnames[tg->nbest + r];
    for (size_t k = ts; k < nout; k++)
        tg->extras[tg->nextras++] = tg->outnames[k];
    *state = tg;
    return CRFP_OK;
nomem:
    st = crfp_error(host, CRFP_ENOMEM, "out of memory");
fail:
    tagger_close(tg);
    return st;
}

/* Decode sentences until none is left.  Errors are flagged, not reported:
 * only the calling thread may write the host's message. */
static void *worker(void *arg);

/* A member of the host's team: the first j->nth take sentences in turn
 * (dynamic, since sentence lengths vary; each result has its own slot, so
 * the output does not depend on which member decoded what). */
static void member(void *arg, int id, int n)
{
    (void)n;
    if (id < ((job *)arg)->nth)
        worker(arg);
}

/* The n largest of the Y marginals m, largest first, ties to the lower
 * label id (so the order does not depend on anything but m): n passes of
 * selection, O(nY), which at n = Y = 233 (G2P) is still small beside the
 * forward-backward that made m.  by_label: the same n labels listed in
 * label order instead.  taken: Y bytes of scratch. */
static void rank_marginals(const double *m, uint32_t Y, size_t n, int by_label,
                           unsigned char *taken, uint32_t *lab, double *val)
{
    memset(taken, 0, Y);
    for (size_t r = 0; r < n; r++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t y = 0; y < Y; y++)
            if (!taken[y] && (best == UINT32_MAX || m[y] > m[best]))
                best = y;
        taken[best] = 1;
        lab[r] = best;
        val[r] = m[best];
    }
    for (uint32_t y = 0, r = 0; by_label && y < Y; y++)
        if (taken[y]) {
            lab[r] = y;
            val[r++] = m[y];
        }
}

/* Forward-backward refuses scores whose exp() overflows (a label bias in
 * the thousands), which Viterbi decodes in log space without trouble. */
static const char OVERFLOW_WHAT[] = "computing its probabilities";

/* A span's probability: that its tokens carry the labels they were given
 * (crfp_segment_prob, after the sentence's forward-backward). */
typedef struct spanprob_ctx {
    crfp_infer *inf;
    const crfp_seq *q;
    const double *theta;
    const uint32_t *y;
    double *out;     /* the sentence's slots, indexed by token */
    crfp_status st;
} spanprob_ctx;

static void spanprob(void *ud, size_t start, size_t end, const char *type)
{
    (void)type;
    spanprob_ctx *c = ud;
    if (c->st == CRFP_OK)
        c->st = crfp_segment_prob(c->inf, c->q, c->theta, (uint32_t)start, (uint32_t)(end - start),
                                  c->y + start, &c->out[start]);
}

static void *worker(void *arg)
{
    job *j = arg;
    tagger *tg = j->tg;
    uint32_t Y = crfp_crf_nlabels(tg->crf);
    const double *theta = crfp_crf_weights_const(tg->crf);
    wspace *w = wspace_take(tg);
    if (!w) {
        record_failure(j, CRFP_ENOMEM, "setting up a decoding workspace", SIZE_MAX);
        return NULL;
    }
    crfp_tokseq mseq;
    for (;;) {
        size_t s = atomic_fetch_add(&j->next, 1);
        if (s >= j->nsent || atomic_load(&j->failed))
            break;
        size_t beg = j->sbeg[s], n = j->send[s] - beg;
        const crfp_tokseq *seq;
        const crfp_seq *q;
        crfp_status st;
        if (n == 0) {
            j->nfound[s] = 0;
            continue;
        }
        if (tg->cm.n) {
            if (colmap_fill(&tg->cm, j->toks + beg, n, &w->cells, &w->capcells, &mseq)) {
                record_failure(j, CRFP_ENOMEM, "building its token table", s);
                break;
            }
            seq = &mseq;
        } else if ((st = crfp_sentbuf_fill_tokens(NULL, w->sb, j->doc, j->toks + beg, n,
                                                  &seq)) != CRFP_OK) {
            record_failure(j, st, "building its token table", s);
            break;
        }
        if ((st = tg->fv->extract(tg->ex, seq, w->obs)) != CRFP_OK) {
            /* Its message (e.g. a regex over its limit) is in the host. */
            atomic_store(&j->feat_failed, 1);
            record_failure(j, st, "extracting its features", s);
            break;
        }
        if ((st = crfp_seqbuf_fill(w->qb, tg->crf, w->obs, &q)) != CRFP_OK) {
            record_failure(j, st, "looking up its observations", s);
            break;
        }
        if (n > w->capT) {
            uint32_t *ny = realloc(w->ybuf, n * tg->nbest * sizeof *ny);
            if (ny)
                w->ybuf = ny;
            int wantm = tg->posteriors || tg->marginal || tg->nmarg;
            double *nm = wantm && ny ? realloc(w->marg, n * Y * sizeof *nm) : w->marg;
            if (nm)
                w->marg = nm;
            int wantl = j->spanp != NULL;
            const char **nl = wantl && ny && nm ? realloc(w->labs, n * sizeof *nl) : w->labs;
            if (!ny || (wantm && !nm) || (wantl && !nl)) {
                record_failure(j, CRFP_ENOMEM, "allocating its label buffers", s);
                break;
            }
            w->labs = nl;
            w->capT = n;
        }
        /* the workspace outlives the sentence: the force is set for this
         * one and ended below, whatever happens */
        if (j->forced && (st = crfp_infer_set_force(w->inf, j->forced + beg, (uint32_t)n)) !=
                             CRFP_OK) {
            record_failure(j, st, "forcing its labels", s);
            break;
        }
        size_t found = 1;
        double logz = 0, mprod = 1;
        if (tg->marginal) {
            /* Minimum Bayes risk for the token error: each token's own most
             * probable label (ties to the lower label id), scored as a path
             * for the sequence probability; OUTPUT-scores gets what this
             * decoding maximises, the product of the marginals. */
            st = crfp_forward_backward(w->inf, q, theta, &logz, w->marg);
            if (st == CRFP_OK) {
                for (size_t t = 0; t < n; t++) {
                    const double *m = w->marg + t * Y;
                    uint32_t best = 0;
                    for (uint32_t y = 1; y < Y; y++)
                        if (m[y] > m[best])
                            best = y;
                    w->ybuf[t] = best;
                    mprod *= m[best];
                }
                w->scores[0] = crfp_path_score(tg->crf, q, theta, w->ybuf);
            }
        } else if (tg->nbest == 1)
            st = crfp_viterbi(w->inf, q, theta, w->ybuf, w->scores);
        else
            st = crfp_nbest(w->inf, q, theta, tg->nbest, w->ybuf, w->scores, &found);
        if (st != CRFP_OK) {
            record_failure(j, st,
                           tg->marginal ? (st == CRFP_EINVAL ? OVERFLOW_WHAT
                                                             : "computing its marginals")
                           : tg->nbest == 1 ? "running Viterbi" : "finding its n best", s);
            break;
        }
        j->nfound[s] = found;
        for (size_t k = 0; k < found; k++)
            memcpy(j->pred + k * j->ntoktotal + beg, w->ybuf + k * n, n * sizeof *w->ybuf);
        if (tg->scores)
            memcpy(j->seqscore + s * tg->nbest, w->scores, found * sizeof *w->scores);
        if (tg->scores && tg->marginal)
            j->seqscore[s * tg->nbest] = mprod;
        for (size_t k = 0; k < found && tg->tokscores; k++) {
            double *ts = j->tokscore + k * j->ntoktotal + beg;
            if (tg->marginal)
                for (size_t t = 0; t < n; t++)
                    ts[t] = w->marg[t * Y + w->ybuf[t]];
            else
                (void)crfp_path_terms(tg->crf, q, theta, w->ybuf + k * n, ts);
        }
        if ((tg->posteriors || tg->nmarg) && !tg->marginal &&
            (st = crfp_forward_backward(w->inf, q, theta, &logz, w->marg)) != CRFP_OK) {
            record_failure(j, st, st == CRFP_EINVAL ? OVERFLOW_WHAT : "computing its posteriors", s);
            break;
        }
        if (tg->posteriors) {
            j->lognorm[s] = logz;
            for (size_t t = 0; t < n; t++)
                j->prob[beg + t] = w->marg[t * Y + w->ybuf[t]];
            for (size_t k = 0; k < found; k++)
                j->seqprob[s * tg->nbest + k] = exp(w->scores[k] - logz);
        }
        if (j->spanp) {
            /* each span's confidence while the tables are this sentence's */
            for (size_t t = 0; t < n; t++)
                w->labs[t] = crfp_crf_label(tg->crf, w->ybuf[t]);
            spanprob_ctx c = {w->inf, q, theta, w->ybuf, j->spanp + beg, CRFP_OK};
            crfp_chunk_spans(w->labs, n, spanprob, &c);
            if (c.st != CRFP_OK) {
                record_failure(j, c.st, "computing its spans' probabilities", s);
                break;
            }
        }
        for (size_t t = 0; t < n && tg->nmarg; t++)
            rank_marginals(w->marg + t * Y, Y, tg->nmarg, tg->by_label, w->taken,
                           j->mlab + (beg + t) * tg->nmarg, j->mval + (beg + t) * tg->nmarg);
        crfp_infer_set_force(w->inf, NULL, 0);
    }
    crfp_infer_set_force(w->inf, NULL, 0);
    wspace_give(tg, w);
    return NULL;
}

typedef struct span_ctx {
    tagger *tg;
    crfp_doc *doc;
    crfp_annset *set;
    crfp_ann **toks;
    const double *spanp;   /* the sentence's span probabilities, or NULL */
    const char *const *labs; /* the sentence's predicted labels */
    crfp_status st;
} span_ctx;

static void emit_span(void *ud, size_t start, size_t end, const char *type)
{
    span_ctx *c = ud;
    if (c->st != CRFP_OK)
        return;
    /* The type as the chunk's first label spells it: chunks.h shortens
     * types too long for its field, which must not reach the output. */
    const char *dash = strchr(c->labs[start], '-');
    if (dash)
        type = dash + 1;
    crfp_ann *a;
    c->st = crfp_annset_add(c->tg->host, c->doc, c->set, c->tg->spantype, c->toks[start]->start,
                            c->toks[end - 1]->end, &a);
    if (c->st == CRFP_OK)
        c->st = crfp_ann_set_str(c->doc, a, c->tg->spanfeat, type);
    if (c->st == CRFP_OK && c->spanp) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.6f", c->spanp[start]);
        c->st = crfp_ann_set_str(c->doc, a, "prob", buf);
    }
}

/* Append the output columns to the document's column list so column
 * writers print them after the input columns. */
/* Sentence feature OUTPUT+SUFFIX: the list of n floats x (n <= 1000, the
 * largest nbest). */
static crfp_status set_list(crfp_doc *doc, crfp_ann *sent, const char *output, const char *suffix,
                            const double *x, size_t n)
{
    crfp_value items[1000];
    crfp_value v = {.type = CRFP_V_LIST};
    for (size_t k = 0; k < n; k++) {
        items[k].type = CRFP_V_FLOAT;
        items[k].u.f = x[k];
    }
    v.u.list.items = items;
    v.u.list.n = n;
    char name[300];
    snprintf(name, sizeof name, "%s%s", output, suffix);
    return crfp_ann_set(doc, sent, name, &v);
}

/* list without the name `drop` (malloc'd; NULL when out of memory). */
static char *without(const char *list, const char *drop)
{
    char *out = malloc(strlen(list) + 1);
    if (!out)
        return NULL;
    size_t o = 0, dl = drop ? strlen(drop) : 0;
    for (const char *p = list; p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (!(drop && l == dl && !strncmp(p, drop, l))) {
            if (o)
                out[o++] = ',';
            memcpy(out + o, p, l);
            o += l;
        }
        p = e ? e + 1 : NULL;
    }
    out[o] = '\0';
    return out;
}

static size_t count_names(const char *list)
{
    size_t n = *list ? 1 : 0;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    return n;
}

/* Templates read columns by position, so a model applied to columns other
 * than those it was trained on reads its features from the wrong ones (a
 * model of word/POS files on CoNLL-U reads the ids as words) without any
 * error.  Warn once per tagger when the input's columns (label aside) do
 * not start with the model's.  Names a column reader gives by position say
 * only how many columns there are: two such lists always match (a file
 * without its gold column is fine), and one matches a named list with as
 * many columns besides the label, with or without its own last (gold)
 * column.  input-columns maps explicitly and is not checked. */
/* A document that declares no columns (GATE's, tokenized text): its
 * tokens' features in their order are what the template reads, so the
 * model's columns must be among them by name; else say which are missing,
 * once, rather than tag from empty cells or from whatever feature stands at
 * a column's position (ANNIE's `length` for a POS column). */
static void check_features(tagger *tg, const crfp_doc *doc, const char *mc, const crfp_ann *tok)
{
    const char *label = crfp_crf_meta(tg->crf, "label");
    char missing[256] = "", have[256] = "";
    size_t nm = 0, lm = 0, lh = 0;
    for (const char *p = mc, *e; p; p = e ? e + 1 : NULL) {
        e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char name[128];
        if (l == 0 || l >= sizeof name)
            continue;
        memcpy(name, p, l);
        name[l] = '\0';
        if ((label && strcmp(name, label) == 0) || crfp_ann_str(tok, name))
            continue;
        if (lm + l + 3 < sizeof missing)
            lm += (size_t)snprintf(missing + lm, sizeof missing - lm, "%s%s", nm ? ", " : "", name);
        nm++;
    }
    if (nm == 0)
        return;
    for (size_t i = 0; i < tok->nfeats && lh + 3 < sizeof have; i++)
        lh += (size_t)snprintf(have + lh, sizeof have - lh, "%s%s", i ? ", " : "",
                               tok->feats[i].name);
    crfp_log(tg->host, CRFP_LOG_WARN,
             "viterbi: document '%s' declares no columns, and its tokens lack the model's "
             "column%s %s (they have: %s): the template reads those as empty, or by position "
             "from other features; map them with input-columns (e.g. word=string)",
             crfp_doc_id(doc) ? crfp_doc_id(doc) : "", nm == 1 ? "" : "s", missing,
             *have ? have : "no feature");
}

static void check_columns(tagger *tg, const crfp_doc *doc, const crfp_ann *tok)
{
    const char *mc = crfp_crf_meta(tg->crf, "columns");
    const char *dc = crfp_doc_meta_str(doc, "columns");
    if (tg->cm.n || !mc || (!dc && !tok) || atomic_exchange(&tg->cols_checked, 1))
        return;
    if (!dc) {
        check_features(tg, doc, mc, tok);
        return;
    }
    char *renamed = NULL;
    /* as Wapiti and CRF++ do it, silently: a debug line (--verbose) */
    if (crfp_columns_as_model(dc, mc, &renamed) == CRFP_OK && renamed)
        crfp_log(tg->host, CRFP_LOG_DEBUG,
                 "viterbi: document '%s' names its columns by position (%s): read as the "
                 "model's %s, as Wapiti and CRF++ read columns (--columns names them)",
                 crfp_doc_id(doc) ? crfp_doc_id(doc) : "", dc, renamed);
    free(renamed);
    int mp = crfp_columns_positional(mc), dp = crfp_columns_positional(dc);
    if (mp && dp)
        return;
    const char *label = crfp_crf_meta(tg->crf, "label");
    char *m = without(mc, label), *d = without(dc, label);
    size_t ml = m ? strlen(m) : 0;
    int ok;
    if (mp == dp) {
        ok = m && d && strncmp(d, m, ml) == 0 && (d[ml] == '\0' || d[ml] == ',');
    } else {
        /* the named side's columns besides its label, against the
         * positional side's columns with or without its last */
        size_t named = count_names(mp ? d ? d : "" : m ? m : ""), pos = count_names(mp ? mc : dc);
        ok = named == pos || named + 1 == pos;
    }
    if (m && d && !ok)
        crfp_log(tg->host, CRFP_LOG_WARN,
                 "viterbi: the model %s was trained on the columns %s, and document '%s' has %s: "
                 "templates read columns by position, so its features may come from the wrong "
                 "columns (input-columns maps them by name)", tg->model_path, mc,
                 crfp_doc_id(doc) ? crfp_doc_id(doc) : "", dc);
    free(m);
    free(d);
}

/* The outputs become columns of the document (a writer without a column
 * list shows them; a later template reads them). */
static crfp_status extend_columns(tagger *tg, crfp_doc *doc)
{
    /* The prediction last and the extras (n-best, probabilities) before
     * the gold label when the input ends with it: gold and prediction stay
     * the last two columns, which is where conlleval and crfpipe eval look
     * in a column file that cannot say which column is which. */
    const char *label = crfp_crf_meta(tg->crf, "label");
    crfp_status st = columns_insert(doc, tg->extras, tg->nextras, label && *label ? label : NULL);
    if (st == CRFP_OK)
        st = columns_extend(doc, (const char *const *)tg->outnames, 1);
    return st;
}

/* force: each token's label to keep, from its force feature, into
 * j->forced; a value that is none of the model's labels is an error naming
 * the token (the model cannot produce it, and dropping it would decode the
 * token freely without a word). */
/* The name of the document's column that the model reads as `name`: when
 * the document's columns are named by position (crfp_columns_as_model),
 * the model's label column `label` of a file read without --columns is the
 * document's `label` (or colN); else `name` itself.  Written to buf. */
static crfp_status doc_column(tagger *tg, const crfp_doc *doc, const char *name, char *buf,
                              size_t cap)
{
    const char *dc = crfp_doc_meta_str(doc, "columns");
    char *renamed = NULL;
    snprintf(buf, cap, "%s", name);
    if (tg->cm.n ||
        crfp_columns_as_model(dc, crfp_crf_meta(tg->crf, "columns"), &renamed) != CRFP_OK)
        return tg->cm.n ? CRFP_OK : crfp_error(tg->host, CRFP_ENOMEM, "out of memory");
    size_t nl = strlen(name);
    const char *d = dc;
    for (const char *r = renamed; r && d;) {
        const char *re = strchr(r, ','), *de = strchr(d, ',');
        size_t rl = re ? (size_t)(re - r) : strlen(r), dl = de ? (size_t)(de - d) : strlen(d);
        if (rl == nl && memcmp(r, name, nl) == 0) {
            snprintf(buf, cap, "%.*s", (int)dl, d);
            break;
        }
        r = re ? re + 1 : NULL;
        d = de ? de + 1 : NULL;
    }
    free(renamed);
    return CRFP_OK;
}

static crfp_status forced_labels(tagger *tg, const crfp_doc *doc, job *j)
{
    char feat[256];
    crfp_status st = doc_column(tg, doc, tg->force, feat, sizeof feat);
    if (st != CRFP_OK)
        return st;
    if (!(j->forced = malloc((j->ntoktotal + 1) * sizeof *j->forced)))
        return crfp_error(tg->host, CRFP_ENOMEM, "out of memory");
    for (size_t i = 0; i < j->ntoktotal; i++)
        j->forced[i] = CRFP_FREE_LABEL;
    for (size_t s = 0; s < j->nsent; s++)
        for (size_t i = j->sbeg[s]; i < j->send[s]; i++) {
            const char *v = crfp_ann_str(j->toks[i], feat);
            if (!v || !*v || strcmp(v, "_") == 0)
                continue;
            int64_t id = crfp_crf_label_id(tg->crf, v);
            if (id < 0)
                return crfp_error(tg->host, CRFP_EINVAL, "document '%s', sentence %zu, token "
                                  "%zu: '%.80s' (feature %s) is not one of the model's labels, "
                                  "so it cannot be forced", crfp_doc_id(doc) ? crfp_doc_id(doc)
                                  : "", s + 1, i - j->sbeg[s] + 1, v, feat);
            j->forced[i] = (uint32_t)id;
        }
    return CRFP_OK;
}

/* A document with text and no Token to tag is most likely raw text that
 * reached the tagger without a tokenizer: say so once, rather than write it
 * back untagged without a word. */
static void warn_untokenized(tagger *tg, const crfp_doc *doc)
{
    size_t len;
    const char *text = crfp_doc_text(doc, &len);
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i == len || atomic_exchange(&tg->untokenized, 1))
        return;
    crfp_log(tg->host, CRFP_LOG_WARN,
             "document '%s' has text and no Token annotations in set '%s': nothing to tag "
             "(raw text needs a tokenizer first: crfpipe tag --tokenizer icu_tokenizer, or a "
             "tokenizer stage in the pipeline)",
             crfp_doc_id(doc) ? crfp_doc_id(doc) : "", tg->set);
}

static crfp_status tagger_process(void *state, crfp_doc *doc)
{
    tagger *tg = state;
    crfp_host *host = tg->host;
    crfp_annset *set = crfp_doc_annset(doc, tg->set, 0);
    if (!set || !crfp_annset_size(set)) {
        warn_untokenized(tg, doc);
        return CRFP_OK;
    }
    job j;
    memset(&j, 0, sizeof j);
    j.tg = tg;
    j.doc = doc;
    crfp_ann **sents = NULL;
    size_t nsent = 0;
    crfp_status st = crfp_doc_sentences(host, doc, tg->set, &sents, &nsent);
    if (st != CRFP_OK)
        return st;
    st = crfp_annset_select(set, "Token", 0, crfp_doc_length(doc), &j.toks, &j.ntoktotal);
    if (st != CRFP_OK) {
        free(sents);
        return crfp_error(host, st, "cannot list tokens");
    }
    if (!j.ntoktotal)
        warn_untokenized(tg, doc);
    check_columns(tg, doc, j.ntoktotal ? j.toks[0] : NULL);
    size_t K = tg->nbest;
    j.nsent = nsent;
    j.sbeg = calloc(nsent + 1, sizeof *j.sbeg);
    j.send = calloc(nsent + 1, sizeof *j.send);
    j.nfound = calloc(nsent + 1, sizeof *j.nfound);
    j.pred = calloc(K * j.ntoktotal + 1, sizeof *j.pred);
    j.prob = tg->posteriors ? calloc(j.ntoktotal + 1, sizeof *j.prob) : NULL;
    j.seqprob = tg->posteriors ? calloc(nsent * K + 1, sizeof *j.seqprob) : NULL;
    size_t R = tg->nmarg;
    j.spanp = tg->posteriors && tg->spantype ? calloc(j.ntoktotal + 1, sizeof *j.spanp) : NULL;
    j.mlab = R ? calloc(j.ntoktotal * R + 1, sizeof *j.mlab) : NULL;
    j.mval = R ? calloc(j.ntoktotal * R + 1, sizeof *j.mval) : NULL;
    j.seqscore = tg->scores ? calloc(nsent * K + 1, sizeof *j.seqscore) : NULL;
    j.tokscore = tg->tokscores ? calloc(K * j.ntoktotal + 1, sizeof *j.tokscore) : NULL;
    j.lognorm = tg->posteriors ? calloc(nsent + 1, sizeof *j.lognorm) : NULL;
    if (!j.sbeg || !j.send || !j.nfound || !j.pred || (tg->posteriors && (!j.prob || !j.seqprob)) ||
        (tg->scores && !j.seqscore) || (R && (!j.mlab || !j.mval)) ||
        (tg->tokscores && !j.tokscore) || (tg->posteriors && !j.lognorm) ||
        (tg->posteriors && tg->spantype && !j.spanp)) {
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        goto out;
    }
    /* Sentences and tokens are both in text order: one merge assigns each
     * sentence its slice of tokens. */
    size_t i = 0;
    for (size_t s = 0; s < nsent; s++) {
        if (!sents[s]) {    /* document without sentences: all tokens */
            j.sbeg[s] = 0;
            j.send[s] = j.ntoktotal;
            continue;
        }
        while (i < j.ntoktotal && j.toks[i]->start < sents[s]->start)
            i++;
        j.sbeg[s] = i;
        while (i < j.ntoktotal && j.toks[i]->end <= sents[s]->end)
            i++;
        j.send[s] = i;
    }
    if (tg->force && (st = forced_labels(tg, doc, &j)) != CRFP_OK)
        goto out;
    int nth = tg->nthreads;
    if ((size_t)nth > nsent / 32 + 1)
        nth = (int)(nsent / 32 + 1);
    atomic_init(&j.next, 0);
    atomic_init(&j.failed, 0);
    atomic_init(&j.feat_failed, 0);
    atomic_init(&j.claimed, 0);
    j.nth = nth;
    /* What the features plugin records while the team runs is this
     * document's; nothing older may pass for it. */
    crfp_error_clear(host);
    if (nth > 1)
        crfp_team_run(crfp_host_team(host), member, &j);
    else
        worker(&j);
    if (atomic_load(&j.failed)) {
        /* Say what failed, where, and why: the features plugin has said it
         * when it recorded a message; otherwise the status does. */
        char where[160] = "";
        if (j.fail_sent != SIZE_MAX)
            snprintf(where, sizeof where, " of document '%.80s', sentence %zu",
                     crfp_doc_id(doc) ? crfp_doc_id(doc) : "", j.fail_sent + 1);
        st = j.fail_st != CRFP_OK ? j.fail_st : CRFP_EPLUGIN;
        if (atomic_load(&j.feat_failed) && crfp_errcode(host) != CRFP_OK && *crfp_errmsg(host)) {
            crfp_error_prefix(host, "extracting the features%s", where);
            /* a template's column name the input lacks: most often a model
             * trained with --columns given columns that are not named so */
            const char *mc = crfp_crf_meta(tg->crf, "columns");
            const char *dc = crfp_doc_meta_str(doc, "columns");
            if (strstr(crfp_errmsg(host), "unknown column name") && mc && (!dc || strcmp(mc, dc))) {
                char msg[768];
                snprintf(msg, sizeof msg, "%s (the model was trained on the columns %.120s, the "
                         "input's are %.120s: name them with --columns, or map them with "
                         "input-columns)", crfp_errmsg(host), mc, dc ? dc : "not named");
                crfp_error(host, crfp_errcode(host), "%s", msg);
            }
        }
        else if (st == CRFP_ENOMEM)
            crfp_error(host, st, "out of memory %s%s", j.fail_what, where);
        else if (j.fail_what == OVERFLOW_WHAT)
            crfp_error(host, st, "%s%s failed: its scores are too large for exp() (a label-bias "
                       "or weights of about 700 or more); Viterbi decoding works, without posteriors, "
                       "marginals or decode=posterior", j.fail_what, where);
        else
            crfp_error(host, st, "%s%s failed: %s", j.fail_what, where, crfp_status_str(st));
        goto out;
    }
    /* A mapped feature that no token of the document has is most likely
     * a misspelt input-columns: say so once (it is not an error, since a
     * document may legitimately lack it).  The model's gold column is
     * expected to be absent from new text. */
    const char *gold = crfp_crf_meta(tg->crf, "label");
    for (size_t k = 0; k < tg->cm.n && j.ntoktotal; k++) {
        if (tg->cm_warned[k] || (gold && strcmp(tg->cm.names[k], gold) == 0))
            continue;
        size_t i = 0;
        while (i < j.ntoktotal && !crfp_ann_get(j.toks[i], tg->cm.feats[k]))
            i++;
        if (i == j.ntoktotal) {
            crfp_log(host, CRFP_LOG_WARN,
                     "viterbi: document '%s': no token has the feature '%s' that input-columns "
                     "maps to column '%s' (it reads as missing)",
                     crfp_doc_id(doc) ? crfp_doc_id(doc) : "", tg->cm.feats[k], tg->cm.names[k]);
            tg->cm_warned[k] = 1;
        }
    }
    /* The labels and output names as strings of the document, made once:
     * every token then refers to them instead of getting copies. */
    uint32_t Y = crfp_crf_nlabels(tg->crf);
    size_t nout = nout_names(tg), TS = K + 1 + R;   /* dout[TS + k]: token scores */
    const char **dlab = malloc((Y + 1) * sizeof *dlab), **dout = malloc(nout * sizeof *dout);
    if (!dlab || !dout) {
        free(dlab);
        free(dout);
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        goto out;
    }
    for (uint32_t y = 0; y < Y && st == CRFP_OK; y++)
        if (!(dlab[y] = crfp_doc_intern(doc, crfp_crf_label(tg->crf, y))))
            st = CRFP_ENOMEM;
    for (size_t k = 0; k < nout && st == CRFP_OK; k++)
        if (!(dout[k] = crfp_doc_intern(doc, tg->outnames[k])))
            st = CRFP_ENOMEM;
    if (st == CRFP_OK && !(dlab[Y] = crfp_doc_intern(doc, "_")))
        st = CRFP_ENOMEM;
    /* Write the results: features on tokens, spans, provenance. */
    for (size_t s = 0; s < nsent && st == CRFP_OK; s++) {
        size_t beg = j.sbeg[s], n = j.send[s] - beg;
        for (size_t t = 0; t < n && st == CRFP_OK; t++) {
            crfp_ann *a = j.toks[beg + t];
            for (size_t k = 0; k < K && st == CRFP_OK; k++) {
                /* a shorter n-best list repeats its last entry's absence as "_" */
                const char *lab = k < j.nfound[s] ? dlab[j.pred[k * j.ntoktotal + beg + t]]
                                                  : dlab[Y];
                st = crfp_ann_set_str_ref(doc, a, dout[k], lab);
            }
            if (st == CRFP_OK && tg->posteriors) {
                char buf[32];
                snprintf(buf, sizeof buf, "%.6f", j.prob[beg + t]);
                st = crfp_ann_set_str(doc, a, dout[K], buf);
            }
            for (size_t r = 0; r < R && st == CRFP_OK; r++) {
                size_t i = (beg + t) * R + r;
                const char *lab = crfp_crf_label(tg->crf, j.mlab[i]);
                size_t ll = strlen(lab);
                char stack[128], *buf = ll + 32 <= sizeof stack ? stack : malloc(ll + 32);
                if (!buf) {
                    st = CRFP_ENOMEM;
                    break;
                }
                snprintf(buf, ll + 32, "%s/%.6f", lab, j.mval[i]);
                st = crfp_ann_set_str(doc, a, dout[K + 1 + r], buf);
                if (buf != stack)
                    free(buf);
            }
            for (size_t k = 0; tg->tokscores && k < j.nfound[s] && st == CRFP_OK; k++) {
                char buf[40];
                snprintf(buf, sizeof buf, "%.6f", j.tokscore[k * j.ntoktotal + beg + t]);
                st = crfp_ann_set_str(doc, a, dout[TS + k], buf);
            }
        }
        if (st == CRFP_OK && tg->posteriors && sents[s])
            st = set_list(doc, sents[s], tg->output, "-seqprob", j.seqprob + s * K, j.nfound[s]);
        if (st == CRFP_OK && tg->posteriors && sents[s] && n > 0) {
            char name[300];
            snprintf(name, sizeof name, "%s-lognorm", tg->output);
            st = crfp_ann_set_float(doc, sents[s], name, j.lognorm[s]);
        }
        if (st == CRFP_OK && tg->scores && sents[s])
            st = set_list(doc, sents[s], tg->output, "-scores", j.seqscore + s * K, j.nfound[s]);
        if (st == CRFP_OK && tg->spantype && n > 0) {
            const char **labs = malloc(n * sizeof *labs);
            if (!labs) {
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                break;
            }
            for (size_t t = 0; t < n; t++)
                labs[t] = crfp_crf_label(tg->crf, j.pred[beg + t]);
            crfp_annset *sset = tg->spanset ? crfp_doc_annset(doc, tg->spanset, 1) : set;
            if (!sset) {
                free(labs);
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                break;
            }
            span_ctx c = {tg, doc, sset, j.toks + beg, j.spanp ? j.spanp + beg : NULL, labs,
                          CRFP_OK};
            crfp_chunk_spans(labs, n, emit_span, &c);
            free(labs);
            st = c.st;
        }
    }
    free(dlab);
    free(dout);
    if (st == CRFP_OK)
        st = extend_columns(tg, doc);
    if (st == CRFP_OK) {
        char nb[32];
        snprintf(nb, sizeof nb, "%zu", tg->nbest);
        /* What the model learnt (its label) and how it was fed. */
        const char *label = crfp_crf_meta(tg->crf, "label");
        const char *names[17] = {"model", "nbest", "posteriors", "output", "label"};
        const char *values[17] = {tg->model_path, nb, tg->posteriors ? "true" : "false",
                                 tg->output, label ? label : ""};
        size_t np = 5;
        if (tg->scores) {
            names[np] = "scores";
            values[np++] = "true";
        }
        if (tg->tokscores) {
            names[np] = "token-scores";
            values[np++] = "true";
        }
        if (tg->cm.n) {
            names[np] = "input-columns";
            values[np++] = tg->cm.spec;
        }
        if (tg->bias_spec) {
            names[np] = "label-bias";
            values[np++] = tg->bias_spec;
        }
        char scb[40];
        if (tg->scale != 1.0) {
            snprintf(scb, sizeof scb, "%.17g", tg->scale);
            names[np] = "weight-scale";
            values[np++] = scb;
        }
        char nmb[32];
        if (tg->nmarg) {
            snprintf(nmb, sizeof nmb, "%zu", tg->nmarg);
            names[np] = "marginals";
            values[np++] = nmb;
            if (tg->by_label) {
                names[np] = "marginals-order";
                values[np++] = "label";
            }
        }
        if (tg->marginal) {
            names[np] = "decode";
            values[np++] = "posterior";
        }
        if (tg->force) {
            names[np] = "force-feature";
            values[np++] = tg->force;
        }
        if (tg->spanset) {
            names[np] = "span-set";
            values[np++] = tg->spanset;
        }
        st = crfp_annset_add_processor(doc, set, "viterbi", VITERBI_VERSION, names, values, np);
    }
    if (st == CRFP_ENOMEM)
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
out:
    free(sents);
    free(j.toks);
    free(j.sbeg);
    free(j.send);
    free(j.nfound);
    free(j.pred);
    free(j.prob);
    free(j.seqprob);
    free(j.seqscore);
    free(j.tokscore);
    free(j.lognorm);
    free(j.mlab);
    free(j.mval);
    free(j.spanp);
    free(j.forced);
    return st;
}

static void tagger_close(void *state)
{
    tagger *tg = state;
    if (!tg)
        return;
    if (tg->ex)
        tg->fv->free(tg->ex);
    crfp_crf_free(tg->crf);
    if (tg->outnames)
        for (size_t k = 0; k < nout_names(tg); k++)
            free(tg->outnames[k]);
    free(tg->outnames);
    free(tg->extras);
    free(tg->output);
    free(tg->force);
    free(tg->set);
    free(tg->spantype);
    free(tg->spanfeat);
    free(tg->spanset);
    free(tg->bias_spec);
    colmap_free(&tg->cm);
    free(tg->cm_warned);
    while (tg->idle) {
        wspace *w = tg->idle;
        tg->idle = w->next;
        wspace_free(w);
    }
    if (tg->idle_lock_ok)
        pthread_mutex_destroy(&tg->idle_lock);
    free(tg);
}

static const crfp_tagger_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_tagger_vtable),
    .open = tagger_open,
    .process = tagger_process,
    .close = tagger_close,
    /* process only reads the tagger (model, extractor, names) and writes
     * its own document; its team job becomes a serial one when the
     * pipeline already runs documents on the team. */
    .process_concurrent = tagger_process,
};

CRFP_PLUGIN_DEFINE(viterbi) = {
    CRFP_PLUGIN_ABI,
    .name = "viterbi",
    .kind = CRFP_KIND_TAGGER,
    .version = VITERBI_VERSION,
    .description = "CRF tagger: sparse Viterbi, n-best lists, posterior marginals",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .vtable = &vtable,
};
