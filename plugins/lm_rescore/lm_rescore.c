/* lm_rescore — re-rank a G2P tagger's n-best labellings of each word with a
 * phoneme n-gram language model.
 *
 * A first-order CRF sees one previous label; a pronunciation's phonotactics
 * span more (joint-sequence G2P models use 6- to 9-grams).  Placed after
 * `viterbi` with `nbest` K > 1 and `scores=true`, this stage reads, for each
 * Sentence (one word), its K labellings (token features INPUT, INPUT-2 ..
 * INPUT-K) and their CRF log scores (Sentence feature INPUT-scores), turns
 * each into phonemes as the `phonemes` stage does (null `_` dropped, pairs
 * `K:S` split), and keeps the labelling with the highest
 *
 *     CRF log score + weight · log P_LM(phonemes)
 *
 * in OUTPUT (default: INPUT itself, so the `phonemes` stage that follows
 * needs no change), with the rank it came from in the Sentence feature
 * `lm-rank`.  `weight` and the n-best size are chosen on development data
 * (samples/g2p/README.md).
 *
 * The model (ngram.h: interpolated Kneser-Ney) is trained at open on
 * `lexicon`, read by the lexicon_reader plugin with the same `stress`
 * setting as the pipeline's reader, and saved to `model` when given; or
 * loaded from `model`. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "ngram.h"

static const crfp_param_spec params[] = {
    {"model", CRFP_PARAM_PATH, NULL, "phoneme n-gram model: loaded, or written after training"},
    {"lexicon", CRFP_PARAM_PATH, NULL, "lexicon whose pronunciations train the model at start"},
    {"lexicon-format", CRFP_PARAM_STRING, "auto", "its format (see lexicon_reader)"},
    {"stress", CRFP_PARAM_BOOL, "false", "keep stress digits (as lexicon_reader's stress)"},
    {"order", CRFP_PARAM_INT, "7", "n-gram order when training (1 to 8)"},
    {"discount", CRFP_PARAM_FLOAT, "0.7", "Kneser-Ney discount when training (0 < D < 1)"},
    {"weight", CRFP_PARAM_FLOAT, "0.4", "weight of the language model's log-probability"},
    {"input", CRFP_PARAM_STRING, "predicted",
     "token feature of the best labelling (INPUT-2.. the others, INPUT-scores their scores)"},
    {"output", CRFP_PARAM_STRING, "", "token feature receiving the chosen label (default INPUT)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
};

typedef struct rescore {
    crfp_host *host;
    ngram *lm;
    double weight;
    char *input, *output, *scores, *set;
    char *model_path, *weight_str;
    char **names;          /* INPUT, INPUT-2, ... as needed */
    size_t nnames;
    /* each label seen so far: its phonemes as the model's symbol ids,
     * ids[loff[i] .. loff[i+1]) for the label labs[i], found by hash */
    char **labs;
    uint32_t *loff, *lids, *lhash;
    size_t nlab, labcap, loffcap, nlids, lidscap, lhashcap;
    /* one word's candidates: ids (offsets coff), cumulative log-probs */
    uint32_t *cids;
    size_t *coff;
    double *cum;
    size_t ccap, cofcap, cumcap;
} rescore;

static void rs_close(void *state)
{
    rescore *r = state;
    if (!r)
        return;
    ngram_free(r->lm);
    free(r->input);
    free(r->output);
    free(r->scores);
    free(r->set);
    free(r->model_path);
    free(r->weight_str);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    for (size_t i = 0; i < r->nlab; i++)
        free(r->labs[i]);
    free(r->labs);
    free(r->loff);
    free(r->lids);
    free(r->lhash);
    free(r->cids);
    free(r->coff);
    free(r->cum);
    free(r);
}

/* Count every pronunciation of the lexicon at `path` into m. */
static crfp_status train(crfp_host *host, const crfp_params *p, const char *path, ngram *m)
{
    const crfp_plugin *rp;
    crfp_status st = crfp_host_load_kind(host, "lexicon_reader", CRFP_KIND_READER, &rp);
    if (st != CRFP_OK)
        return st;
    const crfp_reader_vtable *rv = rp->desc->vtable;
    crfp_params *rpar = crfp_params_new(rp->desc->params, rp->desc->nparams);
    FILE *fp = NULL;
    void *rs = NULL;
    char *buf = NULL;
    const char **ph = NULL;
    size_t phcap = 0, entries = 0;
    if (!rpar) {
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        goto out;
    }
    if ((st = crfp_params_set(host, rpar, "lm_rescore", "format",
                              crfp_params_str(p, "lexicon-format"), NULL)) != CRFP_OK ||
        (st = crfp_params_set(host, rpar, "lm_rescore", "stress",
                              crfp_params_bool(p, "stress") ? "true" : "false", NULL)) != CRFP_OK)
        goto out;
    if (!(fp = fopen(path, "rb"))) {
        st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
        goto out;
    }
    crfp_stream in = {fp, path};
    if ((st = rv->open(host, rpar, &in, &rs)) != CRFP_OK) {
        rs = NULL;
        goto out;
    }
    for (;;) {
        crfp_doc *doc = NULL;
        if ((st = rv->next(rs, &doc)) != CRFP_OK || !doc)
            break;
        crfp_annset *set = crfp_doc_annset(doc, "", 0);
        crfp_ann **sents = NULL;
        size_t ns = 0;
        if (set)
            st = crfp_annset_select(set, "Sentence", 0, crfp_doc_length(doc), &sents, &ns);
        for (size_t s = 0; s < ns && st == CRFP_OK; s++) {
            const char *pron = crfp_ann_str(sents[s], "phonemes");
            if (!pron)
                continue;
            free(buf);
            if (!(buf = strdup(pron))) {
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                break;
            }
            size_t n = 0;
            for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
                if (n == phcap) {
                    size_t nc = phcap ? 2 * phcap : 32;
                    const char **np = realloc(ph, nc * sizeof *np);
                    if (!np) {
                        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                        break;
                    }
                    ph = np;
                    phcap = nc;
                }
                ph[n++] = tok;
            }
            if (st != CRFP_OK)
                break;
            if ((st = ngram_add(m, ph, n)) != CRFP_OK) {
                const char *w = crfp_ann_str(sents[s], "word");
                st = crfp_error(host, st, "%s: entry '%s': %s", path, w ? w : "",
                                st == CRFP_ENOMEM ? "out of memory"
                                                  : "a phoneme the model cannot take (the "
                                                    "padding symbols <s> </s>, or too many "
                                                    "distinct phonemes)");
                break;
            }
            entries++;
        }
        free(sents);
        crfp_doc_free(doc);
        if (st != CRFP_OK)
            break;
    }
    if (st == CRFP_OK && !entries)
        st = crfp_error(host, CRFP_EINVAL, "%s: no pronunciation to train on", path);
    if (st == CRFP_OK && (st = ngram_finish(m)) != CRFP_OK)
        st = crfp_error(host, st, "out of memory");
    if (st == CRFP_OK)
        crfp_log(host, CRFP_LOG_INFO, "lm_rescore: %zu pronunciations of %s, %zu %d-grams", entries,
                 path, ngram_count(m), ngram_order(m));
out:
    if (rs)
        rv->close(rs);
    if (fp)
        fclose(fp);
    crfp_params_free(rpar);
    free(buf);
    free(ph);
    return st;
}

static crfp_status rs_open(crfp_host *host, const crfp_params *p, void **state)
{
    const char *model = crfp_params_str(p, "model"), *lex = crfp_params_str(p, "lexicon");
    if (!model && !lex)
        return crfp_error(host, CRFP_EINVAL, "give 'model' (a saved phoneme n-gram model), "
                          "'lexicon' (to train one), or both (train and save)");
    double w = crfp_params_float(p, "weight");
    if (!(w >= 0 && w <= 100))
        return crfp_error(host, CRFP_EINVAL, "weight must be between 0 and 100");
    rescore *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    r->host = host;
    r->weight = w;
    crfp_status st;
    const char *in = crfp_params_str(p, "input"), *out = crfp_params_str(p, "output");
    char wbuf[64];
    snprintf(wbuf, sizeof wbuf, "%g", w);
    size_t il = strlen(in);
    if (!(r->input = strdup(in)) || !(r->output = strdup(*out ? out : in)) ||
        !(r->set = strdup(crfp_params_str(p, "set"))) || !(r->weight_str = strdup(wbuf)) ||
        !(r->model_path = strdup(model ? model : "")) || !(r->scores = malloc(il + 8))) {
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        goto fail;
    }
    snprintf(r->scores, il + 8, "%s-scores", in);
    if (!*in) {
        st = crfp_error(host, CRFP_EINVAL, "input must not be empty");
        goto fail;
    }
    if (lex) {
        int64_t order = crfp_params_int(p, "order");
        double D = crfp_params_float(p, "discount");
        if (order < 1 || order > NGRAM_MAX_ORDER || !(D > 0 && D < 1)) {
            st = crfp_error(host, CRFP_EINVAL, "order must be 1 to %d and discount in (0, 1)",
                            NGRAM_MAX_ORDER);
            goto fail;
        }
        if (!(r->lm = ngram_new((int)order, D))) {
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
            goto fail;
        }
        if ((st = train(host, p, lex, r->lm)) != CRFP_OK)
            goto fail;
        if (model && (st = ngram_save(host, r->lm, model)) != CRFP_OK)
            goto fail;
    } else if ((st = ngram_load(host, model, &r->lm)) != CRFP_OK) {
        goto fail;
    }
    *state = r;
    return CRFP_OK;
fail:
    rs_close(r);
    return st;
}

/* The token feature of rank k (0-based): INPUT, INPUT-2, ... */
static const char *rank_name(rescore *r, size_t k)
{
    while (r->nnames <= k) {
        char **nn = realloc(r->names, (r->nnames + 1) * sizeof *nn);
        if (!nn)
            return NULL;
        r->names = nn;
        size_t l = strlen(r->input) + 24;
        if (!(nn[r->nnames] = malloc(l)))
            return NULL;
        if (r->nnames == 0)
            snprintf(nn[0], l, "%s", r->input);
        else
            snprintf(nn[r->nnames], l, "%s-%zu", r->input, r->nnames + 1);
        r->nnames++;
    }
    return r->names[k];
}

static int grow(void **p, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < want)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The index of label l in r->labs, its phonemes converted once (null `_`
 * none, pairs `K:S` split); SIZE_MAX when out of memory. */
static size_t label_index(rescore *r, const char *l)
{
    uint32_t h = str_hash(l);
    if (r->lhashcap) {
        size_t mask = r->lhashcap - 1;
        for (size_t i = h & mask; r->lhash[i]; i = (i + 1) & mask)
            if (strcmp(r->labs[r->lhash[i] - 1], l) == 0)
                return r->lhash[i] - 1;
    }
    if ((r->nlab + 1) * 2 > r->lhashcap) {
        size_t nc = r->lhashcap ? 2 * r->lhashcap : 256;
        uint32_t *nh = calloc(nc, sizeof *nh);
        if (!nh)
            return SIZE_MAX;
        for (size_t j = 0; j < r->nlab; j++) {
            size_t i = str_hash(r->labs[j]) & (nc - 1);
            while (nh[i])
                i = (i + 1) & (nc - 1);
            nh[i] = (uint32_t)j + 1;
        }
        free(r->lhash);
        r->lhash = nh;
        r->lhashcap = nc;
    }
    size_t ll = strlen(l);
    if (grow((void **)&r->labs, &r->labcap, r->nlab + 1, sizeof *r->labs) ||
        grow((void **)&r->loff, &r->loffcap, r->nlab + 2, sizeof *r->loff) ||
        grow((void **)&r->lids, &r->lidscap, r->nlids + ll + 1, sizeof *r->lids) ||
        !(r->labs[r->nlab] = strdup(l)))
        return SIZE_MAX;
    if (r->nlab == 0)
        r->loff[0] = 0;
    char *c = r->labs[r->nlab], part[256];
    if (strcmp(c, "_") != 0)
        for (const char *p = c; *p;) {
            size_t pl = strcspn(p, ":");
            if (pl && pl < sizeof part) {
                memcpy(part, p, pl);
                part[pl] = '\0';
                r->lids[r->nlids++] = ngram_symbol(r->lm, part);
            } else if (pl) {
                r->lids[r->nlids++] = ngram_symbol(r->lm, "");   /* too long: unknown */
            }
            p += pl + (p[pl] == ':');
        }
    r->loff[r->nlab + 1] = (uint32_t)r->nlids;
    size_t i = h & (r->lhashcap - 1);
    while (r->lhash[i])
        i = (i + 1) & (r->lhashcap - 1);
    r->lhash[i] = (uint32_t)++r->nlab;
    return r->nlab - 1;
}

/* Candidate k's phoneme ids (labels toks[0..n) of feature `name`) appended
 * to r->cids, r->coff[k+1] its end.  0, -1 out of memory, 1 a label
 * missing. */
static int candidate_ids(rescore *r, crfp_ann **toks, size_t n, const char *name, size_t k)
{
    if (grow((void **)&r->coff, &r->cofcap, k + 2, sizeof *r->coff))
        return -1;
    if (k == 0)
        r->coff[0] = 0;
    size_t m = r->coff[k];
    for (size_t t = 0; t < n; t++) {
        const char *l = crfp_ann_str(toks[t], name);
        if (!l)
            return 1;
        size_t li = label_index(r, l);
        if (li == SIZE_MAX)
            return -1;
        size_t a = r->loff[li], b = r->loff[li + 1];
        if (grow((void **)&r->cids, &r->ccap, m + (b - a), sizeof *r->cids))
            return -1;
        memcpy(r->cids + m, r->lids + a, (b - a) * sizeof *r->cids);
        m += b - a;
    }
    r->coff[k + 1] = m;
    return 0;
}

/* log P_LM of candidate k, reusing the prefix it shares with an earlier
 * candidate (their cumulative log-probs sit in r->cum, n+2 per candidate
 * at offset coff[k] + 2k). */
static double candidate_logprob(rescore *r, size_t k)
{
    const uint32_t *ids = r->cids + r->coff[k];
    const size_t n = r->coff[k + 1] - r->coff[k];
    double *cum = r->cum + r->coff[k] + 2 * k;
    size_t from = 0, src = SIZE_MAX;
    for (size_t i = 0; i < k; i++) {
        const uint32_t *o = r->cids + r->coff[i];
        size_t on = r->coff[i + 1] - r->coff[i], l = 0;
        while (l < n && l < on && o[l] == ids[l])
            l++;
        if (l > from || src == SIZE_MAX) {
            from = l;
            src = i;
        }
    }
    if (src != SIZE_MAX && from)
        memcpy(cum, r->cum + r->coff[src] + 2 * src, (from + 1) * sizeof *cum);
    else
        from = 0;
    ngram_prefix_logprobs(r->lm, ids, n, from, cum);
    return cum[n + 1];
}

static crfp_status rs_process(void *state, crfp_doc *doc)
{
    rescore *r = state;
    crfp_host *host = r->host;
    crfp_annset *set = crfp_doc_annset(doc, r->set, 0);
    if (!set)
        return CRFP_OK;
    crfp_ann **sents = NULL, **toks = NULL;
    size_t ns = 0, nt = 0, len = crfp_doc_length(doc);
    crfp_status st = crfp_annset_select(set, "Sentence", 0, len, &sents, &ns);
    if (st == CRFP_OK)
        st = crfp_annset_select(set, "Token", 0, len, &toks, &nt);
    const char *did = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    size_t t = 0;
    for (size_t s = 0; s < ns && st == CRFP_OK; s++) {
        while (t < nt && toks[t]->start < sents[s]->start)
            t++;
        size_t t0 = t;
        while (t < nt && toks[t]->end <= sents[s]->end)
            t++;
        const crfp_value *sc = crfp_ann_get(sents[s], r->scores);
        if (!sc || sc->type != CRFP_V_LIST) {
            st = crfp_error(host, CRFP_ENOTFOUND, "document '%s', word %zu: no list '%s' of "
                            "n-best scores (run viterbi with nbest > 1 and scores=true first)",
                            did, s + 1, r->scores);
            break;
        }
        size_t K = sc->u.list.n, best = 0;
        double bestv = 0.0;
        for (size_t k = 0; k < K && st == CRFP_OK; k++) {
            const crfp_value *v = &sc->u.list.items[k];
            const char *name = rank_name(r, k);
            int e = name ? candidate_ids(r, toks + t0, t - t0, name, k) : -1;
            if (e == 0 && grow((void **)&r->cum, &r->cumcap, r->coff[k + 1] + 2 * (k + 1),
                               sizeof *r->cum))
                e = -1;
            if (e < 0) {
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                break;
            }
            if (e > 0 || v->type != CRFP_V_FLOAT) {
                st = crfp_error(host, CRFP_EINVAL, "document '%s', word %zu: %s", did, s + 1,
                                e > 0 ? "a grapheme lacks one of the n-best labels listed in "
                                        "the scores"
                                      : "a score is not a number");
                break;
            }
            double x = v->u.f + r->weight * candidate_logprob(r, k);
            if (k == 0 || x > bestv) {
                bestv = x;
                best = k;
            }
        }
        if (st != CRFP_OK || K == 0)
            continue;
        const char *from = rank_name(r, best);
        if (best != 0 || strcmp(r->output, r->input) != 0)
            for (size_t u = t0; u < t && st == CRFP_OK; u++)
                st = crfp_ann_set_str_ref(doc, toks[u], r->output, crfp_ann_str(toks[u], from));
        if (st == CRFP_OK)
            st = crfp_ann_set_int(doc, sents[s], "lm-rank", (int64_t)best + 1);
        if (st != CRFP_OK)
            st = crfp_error(host, st, "document '%s', word %zu: cannot set '%s': %s", did, s + 1,
                            r->output, crfp_status_str(st));
    }
    free(sents);
    free(toks);
    if (st == CRFP_OK) {
        const char *names[4] = {"model", "weight", "input", "output"};
        const char *values[4] = {r->model_path, r->weight_str, r->input, r->output};
        st = crfp_annset_add_processor(doc, set, "lm_rescore", "1.0", names, values, 4);
    }
    return st;
}

static const crfp_stage_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = rs_open,
    .process = rs_process,
    .close = rs_close,
};

CRFP_PLUGIN_DEFINE(lm_rescore) = {
    CRFP_PLUGIN_ABI,
    .name = "lm_rescore",
    .kind = CRFP_KIND_TAGGER,
    .version = "1.0",
    .description = "re-rank n-best G2P labellings with a phoneme n-gram language model",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
