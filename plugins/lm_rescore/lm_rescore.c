/* lm_rescore — re-rank a G2P tagger's n-best labellings of each word with
 * n-gram language models.
 *
 * A first-order CRF sees one previous label; a pronunciation's regularities
 * span more (joint-sequence G2P models use 6- to 9-grams).  Placed after
 * `viterbi` with `nbest` K > 1 and `scores=true`, this stage reads, for each
 * Sentence (one word), its K labellings (token features INPUT, INPUT-2 ..
 * INPUT-K) and their CRF log scores (Sentence feature INPUT-scores) and
 * keeps the labelling with the highest
 *
 *     CRF log score + weight · log P(phonemes) + joint-weight · log P(pairs)
 *
 * in OUTPUT (default: INPUT itself, so the `phonemes` stage that follows
 * needs no change), with the rank it came from in the Sentence feature
 * `lm-rank`.  P(phonemes) is a phoneme n-gram model over the labelling's
 * phonemes (null `_` dropped, pairs `K:S` split, as the phonemes stage
 * does); P(pairs) a joint n-gram model over its letter|label pairs, one per
 * grapheme, the joint-sequence model of G2P.  Either may be left out.
 * Weights and K were chosen on development data (README, "Grapheme-to-
 * phoneme").
 *
 * The models (ngram.h: interpolated Kneser-Ney) are trained at open on
 * `lexicon` (lmtrain.c; the joint one only with `alignment`, the aligner
 * model that labelled the tagger's training data) and saved to `model` and
 * `joint-model` when given; without `lexicon` they are loaded from there. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "rescore.h"

static const crfp_param_spec params[] = {
    {"model", CRFP_PARAM_PATH, NULL,
     "phoneme n-gram model: loaded, or written after training on lexicon"},
    {"joint-model", CRFP_PARAM_PATH, NULL,
     "joint letter|label n-gram model: loaded, or written after training"},
    {"lexicon", CRFP_PARAM_PATH, NULL, "lexicon to train the models on at start"},
    {"alignment", CRFP_PARAM_PATH, NULL,
     "aligner model labelling the lexicon for the joint model (the tagger's)"},
    {"lexicon-format", CRFP_PARAM_STRING, "auto", "the lexicon's format (see lexicon_reader)"},
    {"stress", CRFP_PARAM_BOOL, "false", "keep stress digits (as lexicon_reader's stress)"},
    {"fold", CRFP_PARAM_BOOL, "true", "case folding of the graphemes (as the graphemes stage)"},
    {"order", CRFP_PARAM_INT, "7", "phoneme n-gram order when training (1 to 8)"},
    {"joint-order", CRFP_PARAM_INT, "6", "joint n-gram order when training (1 to 8)"},
    {"discount", CRFP_PARAM_FLOAT, "0.7", "Kneser-Ney discount when training (0 < D < 1)"},
    {"weight", CRFP_PARAM_FLOAT, "0.4", "weight of the phoneme model's log-probability"},
    {"joint-weight", CRFP_PARAM_FLOAT, "0.8", "weight of the joint model's log-probability"},
    {"candidates", CRFP_PARAM_INT, "0",
     "re-rank only the first N labellings of each word (0: all the tagger gave)"},
    {"letter", CRFP_PARAM_STRING, "letter", "token feature holding the grapheme"},
    {"input", CRFP_PARAM_STRING, "predicted",
     "token feature of the best labelling (INPUT-2.. the others, INPUT-scores their scores)"},
    {"output", CRFP_PARAM_STRING, "", "token feature receiving the chosen label (default INPUT)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
};

static void part_free(lmpart *m)
{
    ngram_free(m->lm);
    for (size_t i = 0; i < m->nkeys; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->off);
    free(m->ids);
    free(m->hash);
    free(m->cand);
    free(m->coff);
    free(m->cum);
}

static void rs_close(void *state)
{
    rescore *r = state;
    if (!r)
        return;
    part_free(&r->part[0]);
    part_free(&r->part[1]);
    free(r->input);
    free(r->output);
    free(r->scores);
    free(r->set);
    free(r->letter);
    for (size_t i = 0; i < sizeof r->prov / sizeof *r->prov; i++)
        free(r->prov[i]);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    free(r->keybuf);
    free(r);
}

static crfp_status rs_open(crfp_host *host, const crfp_params *p, void **state)
{
    const char *model = crfp_params_str(p, "model"), *jmodel = crfp_params_str(p, "joint-model");
    const char *lex = crfp_params_str(p, "lexicon"), *align = crfp_params_str(p, "alignment");
    if (!model && !jmodel && !lex)
        return crfp_error(host, CRFP_EINVAL, "give 'lexicon' (to train the models), 'model' "
                          "and/or 'joint-model' (saved models), or both (train and save)");
    if (jmodel && lex && !align)
        return crfp_error(host, CRFP_EINVAL, "training the joint model needs 'alignment' (the "
                          "aligner model that labelled the tagger's training data)");
    double w = crfp_params_float(p, "weight"), jw = crfp_params_float(p, "joint-weight");
    int64_t cands = crfp_params_int(p, "candidates");
    if (cands < 0 || cands > 1000)
        return crfp_error(host, CRFP_EINVAL, "candidates must be between 0 and 1000");
    if (!(w >= 0 && w <= 100) || !(jw >= 0 && jw <= 100))
        return crfp_error(host, CRFP_EINVAL, "weight and joint-weight must be between 0 and 100");
    rescore *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    r->host = host;
    r->candidates = (size_t)cands;
    r->part[0] = (lmpart){.weight = w, .what = "phoneme"};
    r->part[1] = (lmpart){.weight = jw, .joint = 1, .what = "joint"};
    crfp_status st;
    const char *in = crfp_params_str(p, "input"), *out = crfp_params_str(p, "output");
    size_t il = strlen(in);
    char wb[32], jwb[32];
    snprintf(wb, sizeof wb, "%g", w);
    snprintf(jwb, sizeof jwb, "%g", jw);
    if (!(r->input = strdup(in)) || !(r->output = strdup(*out ? out : in)) ||
        !(r->set = strdup(crfp_params_str(p, "set"))) ||
        !(r->letter = strdup(crfp_params_str(p, "letter"))) || !(r->scores = malloc(il + 8)) ||
        !(r->prov[0] = strdup(model ? model : "")) || !(r->prov[1] = strdup(wb)) ||
        !(r->prov[2] = strdup(jmodel ? jmodel : "")) || !(r->prov[3] = strdup(jwb)) ||
        !(r->prov[4] = strdup(lex ? lex : ""))) {
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        goto fail;
    }
    snprintf(r->scores, il + 8, "%s-scores", in);
    if (!*in) {
        st = crfp_error(host, CRFP_EINVAL, "input must not be empty");
        goto fail;
    }
    if (lex) {
        int64_t order = crfp_params_int(p, "order"), jorder = crfp_params_int(p, "joint-order");
        double D = crfp_params_float(p, "discount");
        if (order < 1 || order > NGRAM_MAX_ORDER || jorder < 1 || jorder > NGRAM_MAX_ORDER ||
            !(D > 0 && D < 1)) {
            st = crfp_error(host, CRFP_EINVAL, "order and joint-order must be 1 to %d and "
                            "discount in (0, 1)", NGRAM_MAX_ORDER);
            goto fail;
        }
        if (!(r->part[0].lm = ngram_new((int)order, D)) ||
            (align && !(r->part[1].lm = ngram_new((int)jorder, D)))) {
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
            goto fail;
        }
        if ((st = lm_train(host, p, lex, r)) != CRFP_OK)
            goto fail;
        if ((model && (st = ngram_save(host, r->part[0].lm, model)) != CRFP_OK) ||
            (jmodel && (st = ngram_save(host, r->part[1].lm, jmodel)) != CRFP_OK))
            goto fail;
    } else if ((model && (st = ngram_load(host, model, &r->part[0].lm)) != CRFP_OK) ||
               (jmodel && (st = ngram_load(host, jmodel, &r->part[1].lm)) != CRFP_OK)) {
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

/* The index of `key` in m->keys, its symbol ids made once: for the
 * phoneme model a label's phonemes (null `_` none, pairs `K:S` split), for
 * the joint model the one symbol letter|label.  SIZE_MAX: out of memory. */
static size_t key_index(lmpart *m, const char *key)
{
    uint32_t h = str_hash(key);
    if (m->hashcap) {
        size_t mask = m->hashcap - 1;
        for (size_t i = h & mask; m->hash[i]; i = (i + 1) & mask)
            if (strcmp(m->keys[m->hash[i] - 1], key) == 0)
                return m->hash[i] - 1;
    }
    if ((m->nkeys + 1) * 2 > m->hashcap) {
        size_t nc = m->hashcap ? 2 * m->hashcap : 256;
        uint32_t *nh = calloc(nc, sizeof *nh);
        if (!nh)
            return SIZE_MAX;
        for (size_t j = 0; j < m->nkeys; j++) {
            size_t i = str_hash(m->keys[j]) & (nc - 1);
            while (nh[i])
                i = (i + 1) & (nc - 1);
            nh[i] = (uint32_t)j + 1;
        }
        free(m->hash);
        m->hash = nh;
        m->hashcap = nc;
    }
    size_t kl = strlen(key);
    if (grow((void **)&m->keys, &m->keycap, m->nkeys + 1, sizeof *m->keys) ||
        grow((void **)&m->off, &m->offcap, m->nkeys + 2, sizeof *m->off) ||
        grow((void **)&m->ids, &m->idcap, m->nids + kl + 1, sizeof *m->ids) ||
        !(m->keys[m->nkeys] = strdup(key)))
        return SIZE_MAX;
    if (m->nkeys == 0)
        m->off[0] = 0;
    char *c = m->keys[m->nkeys];
    if (m->joint) {
        m->ids[m->nids++] = ngram_symbol(m->lm, c);
    } else if (strcmp(c, "_") != 0) {
        /* the phonemes of the label, each looked up in place */
        for (char *q = c; *q;) {
            size_t pl = strcspn(q, ":");
            char save = q[pl];
            q[pl] = '\0';
            if (pl)
                m->ids[m->nids++] = ngram_symbol(m->lm, q);
            q[pl] = save;
            q += pl + (save == ':');
        }
    }
    m->off[m->nkeys + 1] = (uint32_t)m->nids;
    size_t i = h & (m->hashcap - 1);
    while (m->hash[i])
        i = (i + 1) & (m->hashcap - 1);
    m->hash[i] = (uint32_t)++m->nkeys;
    return m->nkeys - 1;
}

/* Candidate k's symbol ids under model m (the labels `name` of toks[0..n))
 * appended to m->cand, m->coff[k+1] their end, room made for its
 * cumulative log-probabilities.  0; -1 out of memory; 1 a label missing;
 * 2 a grapheme missing. */
static int candidate_ids(rescore *r, lmpart *m, crfp_ann **toks, size_t n, const char *name,
                         size_t k)
{
    if (grow((void **)&m->coff, &m->coffcap, k + 2, sizeof *m->coff))
        return -1;
    if (k == 0)
        m->coff[0] = 0;
    size_t c = m->coff[k];
    for (size_t t = 0; t < n; t++) {
        const char *key = crfp_ann_str(toks[t], name);
        if (!key)
            return 1;
        if (m->joint) {
            const char *l = crfp_ann_str(toks[t], r->letter);
            if (!l)
                return 2;
            size_t need = strlen(l) + strlen(key) + 2;
            if (grow((void **)&r->keybuf, &r->keybufcap, need, 1))
                return -1;
            snprintf(r->keybuf, need, "%s|%s", l, key);
            key = r->keybuf;
        }
        size_t ki = key_index(m, key);
        if (ki == SIZE_MAX)
            return -1;
        size_t a = m->off[ki], b = m->off[ki + 1];
        if (grow((void **)&m->cand, &m->candcap, c + (b - a), sizeof *m->cand))
            return -1;
        memcpy(m->cand + c, m->ids + a, (b - a) * sizeof *m->cand);
        c += b - a;
    }
    m->coff[k + 1] = c;
    return grow((void **)&m->cum, &m->cumcap, c + 2 * (k + 1), sizeof *m->cum) ? -1 : 0;
}

/* log P of candidate k under m, reusing the prefix it shares with an
 * earlier candidate. */
static double candidate_logprob(lmpart *m, size_t k)
{
    const uint32_t *ids = m->cand + m->coff[k];
    const size_t n = m->coff[k + 1] - m->coff[k];
    double *cum = m->cum + m->coff[k] + 2 * k;
    size_t from = 0, src = SIZE_MAX;
    for (size_t i = 0; i < k; i++) {
        const uint32_t *o = m->cand + m->coff[i];
        size_t on = m->coff[i + 1] - m->coff[i], l = 0;
        while (l < n && l < on && o[l] == ids[l])
            l++;
        if (src == SIZE_MAX || l > from) {
            from = l;
            src = i;
        }
    }
    if (src != SIZE_MAX && from)
        memcpy(cum, m->cum + m->coff[src] + 2 * src, (from + 1) * sizeof *cum);
    else
        from = 0;
    ngram_prefix_logprobs(m->lm, ids, n, from, cum);
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
        if (r->candidates && K > r->candidates)
            K = r->candidates;
        double bestv = 0.0;
        for (size_t k = 0; k < K && st == CRFP_OK; k++) {
            const crfp_value *v = &sc->u.list.items[k];
            const char *name = rank_name(r, k);
            if (v->type != CRFP_V_FLOAT) {
                st = crfp_error(host, CRFP_EINVAL, "document '%s', word %zu: score %zu of '%s' "
                                "is not a number", did, s + 1, k + 1, r->scores);
                break;
            }
            double x = v->u.f;
            for (int i = 0; i < 2 && st == CRFP_OK; i++) {
                lmpart *m = &r->part[i];
                if (!m->lm)
                    continue;
                int e = name ? candidate_ids(r, m, toks + t0, t - t0, name, k) : -1;
                if (e < 0)
                    st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                else if (e)
                    st = crfp_error(host, CRFP_ENOTFOUND, "document '%s', word %zu: a grapheme "
                                    "lacks %s '%s'", did, s + 1,
                                    e == 1 ? "the n-best label" : "the feature",
                                    e == 1 ? name : r->letter);
                else
                    x += m->weight * candidate_logprob(m, k);
            }
            if (st == CRFP_OK && (k == 0 || x > bestv)) {
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
        const char *names[7] = {"model", "weight", "joint-model", "joint-weight", "lexicon",
                                "input", "output"};
        const char *values[7] = {r->prov[0], r->prov[1], r->prov[2], r->prov[3], r->prov[4],
                                 r->input, r->output};
        st = crfp_annset_add_processor(doc, set, "lm_rescore", "1.0", names, values, 7);
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
    .description = "re-rank n-best G2P labellings with phoneme and joint n-gram models",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
