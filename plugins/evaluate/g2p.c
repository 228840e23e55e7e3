/* evaluate, G2P part: phoneme error rate and word error rate (see g2p.h). */
#include "config.h"
#include "g2p.h"

#include <stdlib.h>
#include <string.h>

struct g2p_eval {
    int errors;
    size_t words, wrong, phon_err, phon_ref;
    /* the word being grouped: its name, prediction and best variant so far */
    char *word, *pred, *best_gold;
    size_t best_dist, best_len;
    /* listing of wrong words, written at the end */
    char *list;
    size_t list_n, list_cap;
    size_t *row;     /* edit-distance scratch */
    size_t rowcap;
};

g2p_eval *g2p_eval_new(int errors)
{
    g2p_eval *g = calloc(1, sizeof *g);
    if (g)
        g->errors = errors;
    return g;
}

void g2p_eval_free(g2p_eval *g)
{
    if (!g)
        return;
    free(g->word);
    free(g->pred);
    free(g->best_gold);
    free(g->list);
    free(g->row);
    free(g);
}

size_t g2p_eval_words(const g2p_eval *g)
{
    return g->words + (g->word != NULL);
}

int g2p_eval_applies(crfp_doc *doc, const char *set)
{
    crfp_annset *as = crfp_doc_annset(doc, set, 0);
    size_t n = as ? crfp_annset_size(as) : 0;
    for (size_t i = 0; i < n; i++) {
        crfp_ann *a = crfp_annset_get(as, i);
        if (strcmp(a->type, "Sentence") == 0)
            return crfp_ann_str(a, "phonemes") && crfp_ann_str(a, "pronunciation");
    }
    return 0;
}

/* Split s on spaces into at most cap tokens (pointers into a copy). */
static size_t split(char *s, const char **tok, size_t cap)
{
    size_t n = 0;
    for (char *p = strtok(s, " "); p && n < cap; p = strtok(NULL, " "))
        tok[n++] = p;
    return n;
}

/* Levenshtein distance between two phoneme strings; *reflen the number of
 * reference phonemes.  (size_t)-1 on ENOMEM. */
static size_t edit_distance(g2p_eval *g, const char *hyp, const char *ref, size_t *reflen)
{
    char *h = strdup(hyp), *r = strdup(ref);
    size_t hn = strlen(hyp) + 1, rn = strlen(ref) + 1;
    const char **ht = malloc(hn * sizeof *ht), **rt = malloc(rn * sizeof *rt);
    size_t d = (size_t)-1;
    if (!h || !r || !ht || !rt)
        goto out;
    hn = split(h, ht, hn);
    rn = split(r, rt, rn);
    if (rn + 1 > g->rowcap) {
        free(g->row);
        g->rowcap = 2 * rn + 8;
        if (!(g->row = malloc(g->rowcap * sizeof *g->row))) {
            g->rowcap = 0;
            goto out;
        }
    }
    size_t *row = g->row;
    for (size_t j = 0; j <= rn; j++)
        row[j] = j;
    for (size_t i = 1; i <= hn; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= rn; j++) {
            size_t up = row[j];
            size_t best = diag + (strcmp(ht[i - 1], rt[j - 1]) != 0);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    d = row[rn];
    *reflen = rn;
out:
    free(h);
    free(r);
    free(ht);
    free(rt);
    return d;
}

static int list_add(g2p_eval *g, const char *a, const char *b, const char *c)
{
    size_t need = strlen(a) + strlen(b) + strlen(c) + 4;
    if (g->list_n + need > g->list_cap) {
        size_t nc = g->list_cap ? 2 * g->list_cap : 4096;
        while (nc < g->list_n + need)
            nc *= 2;
        char *nl = realloc(g->list, nc);
        if (!nl)
            return 0;
        g->list = nl;
        g->list_cap = nc;
    }
    g->list_n += (size_t)sprintf(g->list + g->list_n, "%s\t%s\t%s\n", a, b, c);
    return 1;
}

/* Score the word being grouped. */
static int close_word(g2p_eval *g)
{
    if (!g->word)
        return 1;
    g->words++;
    g->phon_err += g->best_dist;
    g->phon_ref += g->best_len;
    int ok = 1;
    if (g->best_dist > 0) {
        g->wrong++;
        if (g->errors)
            ok = list_add(g, g->word, g->pred, g->best_gold);
    }
    free(g->word);
    free(g->pred);
    free(g->best_gold);
    g->word = g->pred = g->best_gold = NULL;
    return ok;
}

crfp_status g2p_eval_doc(crfp_host *host, g2p_eval *g, crfp_doc *doc, const char *set)
{
    crfp_annset *as = crfp_doc_annset(doc, set, 0);
    crfp_ann **sents = NULL;
    size_t ns = 0;
    crfp_status st = as ? crfp_annset_select(as, "Sentence", 0, crfp_doc_length(doc), &sents, &ns)
                        : CRFP_OK;
    for (size_t i = 0; i < ns && st == CRFP_OK; i++) {
        const char *gold = crfp_ann_str(sents[i], "phonemes");
        const char *pred = crfp_ann_str(sents[i], "pronunciation");
        const char *word = crfp_ann_str(sents[i], "word");
        if (!gold || !pred) {
            st = crfp_error(host, CRFP_EINVAL, "document '%s', entry %zu%s%s: no %s to score",
                            crfp_doc_id(doc) ? crfp_doc_id(doc) : "", i + 1, word ? " " : "",
                            word ? word : "", gold ? "pronunciation" : "gold phonemes");
            break;
        }
        if (!word)
            word = "";
        /* a new word unless it repeats the previous one (a variant) */
        if (!g->word || strcmp(g->word, word) != 0 || strcmp(g->pred, pred) != 0) {
            if (!close_word(g))
                goto nomem;
            if (!(g->word = strdup(word)) || !(g->pred = strdup(pred)))
                goto nomem;
            g->best_dist = (size_t)-1;
        }
        size_t len = 0, d = edit_distance(g, pred, gold, &len);
        if (d == (size_t)-1)
            goto nomem;
        if (d < g->best_dist || (d == g->best_dist && len > g->best_len)) {
            g->best_dist = d;
            g->best_len = len;
            free(g->best_gold);
            if (!(g->best_gold = strdup(gold)))
                goto nomem;
        }
    }
    free(sents);
    return st;
nomem:
    free(sents);
    return crfp_error(host, CRFP_ENOMEM, "out of memory");
}

crfp_status g2p_eval_report(crfp_host *host, g2p_eval *g, FILE *f)
{
    if (!close_word(g))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    fprintf(f, "words %zu, reference phonemes %zu\n", g->words, g->phon_ref);
    fprintf(f, "phoneme error rate: %6.2f%%  (%zu edits)\n",
            g->phon_ref ? 100.0 * (double)g->phon_err / (double)g->phon_ref : 0.0, g->phon_err);
    fprintf(f, "word error rate:    %6.2f%%  (%zu/%zu)\n",
            g->words ? 100.0 * (double)g->wrong / (double)g->words : 0.0, g->wrong, g->words);
    if (g->errors && g->list_n) {
        fprintf(f, "\nword\tpredicted\tclosest reference\n");
        fwrite(g->list, 1, g->list_n, f);
    }
    return CRFP_OK;
}
