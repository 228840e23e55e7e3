/* phonemes — back from per-grapheme labels to the word's pronunciation.
 *
 * A tagger-kind stage placed after viterbi: for every Sentence (one word)
 * it reads the label of each Token inside it (feature `input`, default
 * `predicted`), drops the null phoneme `_`, splits joined pairs `K:S` (the
 * aligner's convention) and writes the phonemes, separated by single
 * spaces, as the Sentence's string feature `output` (default
 * `pronunciation`).  A Token without the label is an error naming the
 * document and the word. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

static const crfp_param_spec params[] = {
    {"input", CRFP_PARAM_STRING, "predicted", "token feature holding the per-grapheme label"},
    {"output", CRFP_PARAM_STRING, "pronunciation", "Sentence feature receiving the phonemes"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
};

typedef struct ph {
    crfp_host *host;
    char *input, *output, *set;
    char *buf;
    size_t cap;
} ph;

static void ph_close(void *state)
{
    ph *p = state;
    if (!p)
        return;
    free(p->input);
    free(p->output);
    free(p->set);
    free(p->buf);
    free(p);
}

static crfp_status ph_open(crfp_host *host, const crfp_params *params, void **state)
{
    ph *p = calloc(1, sizeof *p);
    if (!p || !(p->input = strdup(crfp_params_str(params, "input"))) ||
        !(p->output = strdup(crfp_params_str(params, "output"))) ||
        !(p->set = strdup(crfp_params_str(params, "set")))) {
        ph_close(p);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    p->host = host;
    *state = p;
    return CRFP_OK;
}

/* Append label `l` (null dropped, ':' becoming ' ') to p->buf at *n. */
static int append_label(ph *p, size_t *n, const char *l)
{
    if (strcmp(l, "_") == 0 || !*l)
        return 1;
    size_t ll = strlen(l);
    if (*n + ll + 2 > p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 128;
        while (nc < *n + ll + 2)
            nc *= 2;
        char *nb = realloc(p->buf, nc);
        if (!nb)
            return 0;
        p->buf = nb;
        p->cap = nc;
    }
    if (*n)
        p->buf[(*n)++] = ' ';
    for (size_t i = 0; i < ll; i++)
        p->buf[(*n)++] = l[i] == ':' ? ' ' : l[i];
    p->buf[*n] = '\0';
    return 1;
}

static crfp_status ph_process(void *state, crfp_doc *doc)
{
    ph *p = state;
    crfp_annset *set = crfp_doc_annset(doc, p->set, 0);
    if (!set)
        return CRFP_OK;
    crfp_ann **sents = NULL, **toks = NULL;
    size_t ns = 0, nt = 0;
    size_t len = crfp_doc_length(doc);
    crfp_status st = crfp_annset_select(set, "Sentence", 0, len, &sents, &ns);
    if (st == CRFP_OK)
        st = crfp_annset_select(set, "Token", 0, len, &toks, &nt);
    size_t t = 0;
    for (size_t s = 0; s < ns && st == CRFP_OK; s++) {
        size_t n = 0;
        if (p->cap == 0 && !(p->buf = malloc(p->cap = 128))) {
            st = crfp_error(p->host, CRFP_ENOMEM, "out of memory");
            break;
        }
        p->buf[0] = '\0';
        while (t < nt && toks[t]->start < sents[s]->start)
            t++;
        for (; t < nt && toks[t]->end <= sents[s]->end; t++) {
            const char *l = crfp_ann_str(toks[t], p->input);
            if (!l) {
                const char *w = crfp_ann_str(sents[s], "word");
                st = crfp_error(p->host, CRFP_ENOTFOUND, "document '%s', word %zu%s%s%s: a "
                                "grapheme has no '%s' label (run the tagger first)",
                                crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1,
                                w ? " ('" : "", w ? w : "", w ? "')" : "", p->input);
                break;
            }
            if (!append_label(p, &n, l)) {
                st = crfp_error(p->host, CRFP_ENOMEM, "out of memory");
                break;
            }
        }
        if (st == CRFP_OK)
            st = crfp_ann_set_str(doc, sents[s], p->output, p->buf);
    }
    free(sents);
    free(toks);
    return st;
}

static const crfp_stage_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = ph_open,
    .process = ph_process,
    .close = ph_close,
};

CRFP_PLUGIN_DEFINE(phonemes) = {
    CRFP_PLUGIN_ABI,
    .name = "phonemes",
    .kind = CRFP_KIND_TAGGER,
    .version = "1.0",
    .description = "per-grapheme labels (null _, pairs K:S) to the word's phoneme string",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
