/* majority — non-local evidence for a second tagging pass (Krishnan &
 * Manning 2006): what a first tagger said about the *other* occurrences of a
 * word or of an entity string in the same document.
 *
 * A tagger-kind stage placed between two viterbi stages.  It reads, on every
 * Token of a document, the word (feature `key`, default `word`) and the first
 * pass's label (feature `input`, default `predicted`), reduces each label to
 * its type (B-PER, I-PER, E-PER, S-PER, L-PER, U-PER -> PER; O stays O; a
 * label without such a prefix is its own type) and writes three token
 * features, named after `output` (default `maj`):
 *
 *   maj      the commonest type of this word over the document, O included
 *   majne    the commonest type other than O ("none" if the word is never
 *            part of an entity): a sentence-initial capital or a lowercased
 *            mention learns from the document's confident mentions
 *   majspan  inside a first-pass entity, the commonest type of that entity
 *            string (its words joined by spaces) over the document; "none"
 *            outside entities
 *
 * Ties go to the type seen first in the document, so the output is a
 * function of the document alone.  The scope is the document, because
 * documents are what the pipeline streams: to aggregate over a whole corpus
 * (what helps most on CoNLL-2002, samples/ner/README.md), read it as one
 * document (conll_reader batch-bytes=0, docstart=false).  Time and memory
 * are linear in the document's tokens.
 *
 * The second-pass model has to be trained on features made the same way
 * from first-pass labels it did not see in training (jackknifing):
 * samples/ner/train-es.sh shows the recipe.  Errors: a token without `key`
 * or `input` is reported with the document id and the token's number.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

#include "../common/columns.h"
#include "../common/strtab.h"

static const crfp_param_spec params[] = {
    {"input", CRFP_PARAM_STRING, "predicted", "token feature holding the first pass's label"},
    {"key", CRFP_PARAM_STRING, "word", "token feature holding the word"},
    {"output", CRFP_PARAM_STRING, "maj",
     "prefix of the features written: PREFIX, PREFIXne and PREFIXspan"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
};

typedef struct mj {
    crfp_host *host;
    char *input, *key, *set;
    char *out_tok, *out_ne, *out_span; /* feature names */
} mj;

static void mj_close(void *state)
{
    mj *m = state;
    if (!m)
        return;
    free(m->input);
    free(m->key);
    free(m->set);
    free(m->out_tok);
    free(m->out_ne);
    free(m->out_span);
    free(m);
}

static crfp_status mj_open(crfp_host *host, const crfp_params *params, void **state)
{
    const char *out = crfp_params_str(params, "output");
    if (!*out || strlen(out) > 200)
        return crfp_error(host, CRFP_EINVAL, "majority: output must be a name of 1 to 200 bytes");
    mj *m = calloc(1, sizeof *m);
    if (!m || !(m->input = strdup(crfp_params_str(params, "input"))) ||
        !(m->key = strdup(crfp_params_str(params, "key"))) ||
        !(m->set = strdup(crfp_params_str(params, "set"))) || !(m->out_tok = strdup(out)) ||
        !(m->out_ne = columns_name(out, "ne")) || !(m->out_span = columns_name(out, "span"))) {
        mj_close(m);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    m->host = host;
    *state = m;
    return CRFP_OK;
}

/* The type of a label: the label after a one-letter position prefix
 * (B I E S L U and a dash), else the label itself.  Points into `l`. */
static const char *label_type(const char *l, char *pos)
{
    if (strchr("BIESLU", l[0]) && l[0] && l[1] == '-' && l[2]) {
        *pos = l[0];
        return l + 2;
    }
    *pos = 0;
    return l;
}

/* Words, entity strings and labels are grouped by hash tables
 * (../common/strtab.h), so a document costs time linear in its tokens: a
 * sort, or a linear search of the labels, would let a hostile document with
 * 10^6 distinct labels run for hours. */

/* One token, or one first-pass entity: its group (its word, or the
 * entity's words joined), its type and where it is. */
typedef struct item {
    size_t group;     /* id of its key in the key table */
    size_t type;      /* index into the document's type table */
    size_t first;     /* its first token, which also orders ties */
    size_t ntok;      /* tokens covered (1 for a token) */
} item;

/* The order in which to visit items so that each group is contiguous,
 * groups in order of first appearance and items in their original
 * (position) order within a group: a counting sort of the indices by group
 * id into order[].  Returns 0, or -1 when out of memory. */
static int group_order(const item *it, size_t n, size_t ngroups, size_t *order)
{
    size_t *pos = calloc(ngroups + 1, sizeof *pos);
    if (!pos)
        return -1;
    for (size_t i = 0; i < n; i++)
        pos[it[i].group + 1]++;
    for (size_t g = 0; g < ngroups; g++)
        pos[g + 1] += pos[g];
    for (size_t i = 0; i < n; i++)
        order[pos[it[i].group]++] = i;
    free(pos);
    return 0;
}

/* For each group of items (visited in order[], where each group is
 * contiguous and in position order), the commonest type (skip_o: ignoring
 * type 0, "O"), ties to the type whose first item comes first; results[i]
 * gets the winning type of item i, or (size_t)-1.  counts (all zero, and
 * left so) and firsts have an entry per type. */
static void vote(const item *it, const size_t *order, size_t n, int skip_o, size_t *counts,
                 size_t *firsts, size_t *results)
{
    for (size_t g = 0; g < n;) {
        size_t e = g;
        while (e < n && it[order[e]].group == it[order[g]].group)
            e++;
        size_t best = (size_t)-1;
        for (size_t i = g; i < e; i++) {
            size_t t = it[order[i]].type;
            if (skip_o && t == 0)
                continue;
            if (counts[t]++ == 0)
                firsts[t] = it[order[i]].first;
        }
        for (size_t i = g; i < e; i++) {
            size_t t = it[order[i]].type;
            if ((skip_o && t == 0) || counts[t] == 0)
                continue;
            if (best == (size_t)-1 || counts[t] > counts[best] ||
                (counts[t] == counts[best] && firsts[t] < firsts[best]))
                best = t;
        }
        for (size_t i = g; i < e; i++) {
            counts[it[order[i]].type] = 0;
            results[order[i]] = best;
        }
        g = e;
    }
}

/* Everything one document needs; freed by work_free. */
typedef struct work {
    crfp_ann **sents, **toks;
    size_t ns, nt;
    strtab types;         /* label types, [0] = "O"; point into the document */
    strtab words, spans;  /* the keys of tokens and of entities */
    char *tpos;           /* per token: position letter, 0 if none */
    item *items;          /* tokens (item t is token t), then spans */
    size_t *order;        /* the same, grouped: see group_order */
    size_t *res, *counts, *firsts;
    const char **vals;    /* per token: the three values written */
    char **keys;          /* joined entity strings */
    size_t nkeys;
} work;

static void work_free(work *w)
{
    free(w->sents);
    free(w->toks);
    strtab_free(&w->types);
    strtab_free(&w->words);
    strtab_free(&w->spans);
    free(w->tpos);
    free(w->items);
    free(w->order);
    free(w->res);
    free(w->counts);
    free(w->firsts);
    free(w->vals);
    for (size_t i = 0; i < w->nkeys; i++)
        free(w->keys[i]);
    free(w->keys);
}

/* Does a token with position letter pos continue the entity of the token
 * before it (letter prev), given that both have the same type?  I, E and L
 * continue anything but an entity that the previous letter closed. */
static int continues(char prev, char pos)
{
    return (pos == 'I' || pos == 'E' || pos == 'L') && prev != 'E' && prev != 'S' &&
           prev != 'L' && prev != 'U';
}

static crfp_status oom(const mj *m)
{
    return crfp_error(m->host, CRFP_ENOMEM, "out of memory");
}

static crfp_status run(const mj *m, crfp_doc *doc, work *w)
{
    crfp_annset *set = crfp_doc_annset(doc, m->set, 0);
    if (!set)
        return CRFP_OK;
    size_t len = crfp_doc_length(doc);
    crfp_status st = crfp_annset_select(set, "Sentence", 0, len, &w->sents, &w->ns);
    if (st == CRFP_OK)
        st = crfp_annset_select(set, "Token", 0, len, &w->toks, &w->nt);
    if (st != CRFP_OK)
        return crfp_error(m->host, st, "majority: cannot list the annotations of document '%s'",
                          crfp_doc_id(doc) ? crfp_doc_id(doc) : "");
    size_t nt = w->nt;
    if (nt == 0)
        return CRFP_OK;
    if (!(w->tpos = malloc(nt)) ||
        !(w->items = malloc(2 * nt * sizeof *w->items)) ||
        !(w->res = malloc(2 * nt * sizeof *w->res)) ||
        !(w->vals = malloc(3 * nt * sizeof *w->vals)) ||
        !(w->keys = malloc(nt * sizeof *w->keys)) ||
        strtab_id(&w->types, "O") != 0)
        return oom(m);
    for (size_t t = 0; t < nt; t++) {
        const char *k = crfp_ann_str(w->toks[t], m->key), *l = crfp_ann_str(w->toks[t], m->input);
        if (!k || !l)
            return crfp_error(m->host, CRFP_ENOTFOUND, "majority: document '%s', token %zu: no "
                              "'%s' feature%s", crfp_doc_id(doc) ? crfp_doc_id(doc) : "", t + 1,
                              k ? m->input : m->key, k ? " (run the first tagger before this "
                              "stage)" : "");
        long ty = strtab_id(&w->types, label_type(l, &w->tpos[t]));
        long g = strtab_id(&w->words, k);
        if (ty < 0 || g < 0)
            return oom(m);
        w->items[t] = (item){(size_t)g, (size_t)ty, t, 1};
    }
    if (!(w->counts = calloc(w->types.n, sizeof *w->counts)) ||
        !(w->firsts = malloc(w->types.n * sizeof *w->firsts)) ||
        !(w->order = malloc(nt * sizeof *w->order)))
        return oom(m);

    /* the first pass's entities, never across a sentence boundary (tokens
     * outside every Sentence count as a sentence each) */
    size_t nspan = 0, s = 0;
    for (size_t t = 0; t < nt;) {
        if (w->items[t].type == 0) {
            t++;
            continue;
        }
        while (s < w->ns && w->sents[s]->end <= w->toks[t]->start)
            s++;
        size_t send = s < w->ns && w->sents[s]->start <= w->toks[t]->start ? w->sents[s]->end : 0;
        size_t e = t + 1;
        while (e < nt && send && w->toks[e]->end <= send && w->items[e].type == w->items[t].type &&
               continues(w->tpos[e - 1], w->tpos[e]))
            e++;
        size_t klen = 0;
        for (size_t i = t; i < e; i++)
            klen += strlen(w->words.strs[w->items[i].group]) + 1;
        char *key = malloc(klen);
        if (!key)
            return oom(m);
        w->keys[w->nkeys++] = key;
        for (size_t i = t, o = 0; i < e; i++) {
            const char *k = w->words.strs[w->items[i].group];
            size_t kl = strlen(k);
            memcpy(key + o, k, kl);
            o += kl;
            key[o++] = i + 1 < e ? ' ' : '\0';
        }
        long g = strtab_id(&w->spans, key);
        if (g < 0)
            return oom(m);
        w->items[nt + nspan++] = (item){(size_t)g, w->items[t].type, t, e - t};
        t = e;
    }

    /* tokens: the majority with and without O */
    const char **type = w->types.strs;
    if (group_order(w->items, nt, w->words.n, w->order) != 0)
        return oom(m);
    vote(w->items, w->order, nt, 0, w->counts, w->firsts, w->res);
    vote(w->items, w->order, nt, 1, w->counts, w->firsts, w->res + nt);
    for (size_t t = 0; t < nt; t++) {
        const char **v = w->vals + 3 * t;
        v[0] = type[w->res[t]];
        v[1] = w->res[nt + t] == (size_t)-1 ? "none" : type[w->res[nt + t]];
        v[2] = "none";
    }
    /* entities: the majority of their string */
    item *sp = w->items + nt;
    if (group_order(sp, nspan, w->spans.n, w->order) != 0)
        return oom(m);
    vote(sp, w->order, nspan, 0, w->counts, w->firsts, w->res);
    for (size_t i = 0; i < nspan; i++)
        for (size_t t = sp[i].first; t < sp[i].first + sp[i].ntok; t++)
            w->vals[3 * t + 2] = type[w->res[i]];
    /* one call per token sets the three (values in the document or static) */
    const char *names[3] = {m->out_tok, m->out_ne, m->out_span};
    for (size_t t = 0; t < nt && st == CRFP_OK; t++)
        st = crfp_ann_set_strs_ref(doc, w->toks[t], names, w->vals + 3 * t, NULL, 3);
    if (st != CRFP_OK)
        return crfp_error(m->host, st, "majority: document '%s': cannot set the token features",
                          crfp_doc_id(doc) ? crfp_doc_id(doc) : "");
    return CRFP_OK;
}

/* Reads only the (immutable) settings, so documents may run concurrently. */
static crfp_status mj_process(void *state, crfp_doc *doc)
{
    const mj *m = state;
    work w = {0};
    crfp_status st = run(m, doc, &w);
    work_free(&w);
    const char *names[3] = {m->out_tok, m->out_ne, m->out_span};
    if (st == CRFP_OK && (st = columns_extend(doc, names, 3)) != CRFP_OK)
        st = crfp_error(m->host, st, "majority: document '%s': cannot extend its columns",
                        crfp_doc_id(doc) ? crfp_doc_id(doc) : "");
    return st;
}

static const crfp_stage_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = mj_open,
    .process = mj_process,
    .close = mj_close,
    .process_concurrent = mj_process,
};

CRFP_PLUGIN_DEFINE(majority) = {
    CRFP_PLUGIN_ABI,
    .name = "majority",
    .kind = CRFP_KIND_TAGGER,
    .version = "1.0",
    .description = "document-level majority of a first tagger's labels per word and per entity "
                   "string, as features for a second pass",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
