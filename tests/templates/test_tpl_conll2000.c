/* The shipped chunking templates over the whole CoNLL-2000 training set
 * (read from $CRFP_SHARED_DATA, never copied into the tree; skipped when
 * absent).  Checks the shape and content of the observations; its run time
 * also shows the extractor's speed at the real scale (211k tokens). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crfpipe/crfpipe.h"

static int failures;
#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            failures++;                                                           \
        }                                                                         \
    } while (0)

typedef struct corpus {
    char *text;
    const char **cells;   /* 3 per token: word pos chunk */
    size_t ntok;
    size_t *sent;         /* first token of each sentence, plus ntok */
    size_t nsent;
} corpus;

static int read_corpus(const char *path, corpus *c)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    c->text = malloc((size_t)size + 1);
    if (!c->text || fread(c->text, 1, (size_t)size, fp) != (size_t)size) {
        fclose(fp);
        return -1;
    }
    fclose(fp);
    c->text[size] = '\0';
    size_t lines = 1;
    for (long i = 0; i < size; i++)
        lines += c->text[i] == '\n';
    c->cells = malloc(lines * 3 * sizeof *c->cells);
    c->sent = malloc((lines + 1) * sizeof *c->sent);
    if (!c->cells || !c->sent)
        return -1;
    int in_sent = 0;
    for (char *line = c->text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (*line == '\0') {
            in_sent = 0;
        } else {
            if (!in_sent)
                c->sent[c->nsent++] = c->ntok;
            in_sent = 1;
            char *save = NULL;
            for (int k = 0; k < 3; k++)
                c->cells[c->ntok * 3 + (size_t)k] = strtok_r(k ? NULL : line, " ", &save);
            c->ntok++;
        }
        line = nl ? nl + 1 : NULL;
    }
    c->sent[c->nsent] = c->ntok;
    return 0;
}

static int find(const crfp_obsseq *o, size_t t, const char *s, unsigned fl)
{
    const char *const *strs;
    const unsigned char *flags;
    size_t n;
    crfp_obsseq_get(o, t, &strs, &flags, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(strs[i], s))
            return flags[i] == fl;
    return 0;
}

static void run(crfp_host *host, const crfp_plugin *pl, const corpus *c, const char *tpl,
                int star)
{
    const crfp_features_vtable *vt = pl->desc->vtable;
    crfp_params *p = crfp_params_new(pl->desc->params, pl->desc->nparams);
    char path[1024];
    snprintf(path, sizeof path, "%s/samples/chunking/%s", CRFP_ABS_SRCDIR, tpl);
    void *ex = NULL;
    crfp_status st = crfp_params_set(host, p, "test", "template", path, NULL);
    if (st == CRFP_OK)
        st = vt->create(host, p, &ex);
    crfp_params_free(p);
    CHECK(st == CRFP_OK);
    if (st) {
        fprintf(stderr, "%s\n", crfp_errmsg(host));
        return;
    }
    static const char *const names[] = {"word", "pos", "chunk"};
    crfp_obsseq *o = crfp_obsseq_new();
    size_t total = 0, both = 0, bigram = 0, bad = 0;
    for (size_t s = 0; s < c->nsent; s++) {
        size_t b = c->sent[s], n = c->sent[s + 1] - b;
        crfp_tokseq seq = {n, 3, names, c->cells + 3 * b};
        if (vt->extract(ex, &seq, o) != CRFP_OK) {
            bad++;
            continue;
        }
        for (size_t t = 0; t < n; t++) {
            const unsigned char *fl;
            size_t k;
            crfp_obsseq_get(o, t, NULL, &fl, &k);
            total += k;
            bad += k != 20;
            for (size_t i = 0; i < k; i++) {
                both += fl[i] == (CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM);
                bigram += fl[i] == CRFP_OBS_BIGRAM;
            }
        }
        if (s == 0) {
            /* "Confidence NN B-NP / in IN B-PP / the DT B-NP ..." */
            const char *w = star ? "*02:Confidence" : "U02:Confidence";
            const char *pp = star ? "*12:NN" : "U12:NN";
            unsigned f = star ? 3 : 1;
            CHECK(find(o, 0, w, f));
            CHECK(find(o, 0, pp, f));
            CHECK(find(o, 0, "U00:_B-2", 1));
            CHECK(find(o, 0, "U01:_B-1", 1));
            CHECK(find(o, 0, "U06:Confidence/in", 1));
            CHECK(find(o, 0, "U22:NN/IN/DT", 1));
            CHECK(find(o, 0, "U15:_B-2/_B-1", 1));
            CHECK(find(o, 1, "U21:NN/IN/DT", 1));
            CHECK(find(o, 0, "B", 2));
            CHECK(find(o, n - 1, "U04:_B+2", 1));
            CHECK(find(o, n - 1, "U18:_B+1/_B+2", 1));
        }
    }
    CHECK(bad == 0);
    CHECK(total == c->ntok * 20);
    CHECK(bigram == c->ntok);
    CHECK(both == (star ? 2 * c->ntok : 0));
    crfp_obsseq_free(o);
    vt->free(ex);
}

int main(void)
{
    const char *data = getenv("CRFP_SHARED_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/conll2000/train.txt", data ? data : "");
    corpus c = {0};
    if (!data || read_corpus(path, &c) != 0) {
        fprintf(stderr, "skip: %s not available\n", path);
        return 77;
    }
    CHECK(c.ntok > 200000);
    crfp_host *host = crfp_host_new();
    const crfp_plugin *pl;
    crfp_host_add_plugin_dir(host, CRFP_ABS_BUILDDIR "/plugins/templates");
    if (crfp_host_load_kind(host, "templates", CRFP_KIND_FEATURES, &pl) != CRFP_OK) {
        fprintf(stderr, "%s\n", crfp_errmsg(host));
        return 1;
    }
    run(host, pl, &c, "chunking.tpl", 0);
    run(host, pl, &c, "chunking-star.tpl", 1);
    crfp_host_free(host);
    free(c.text);
    free(c.cells);
    free(c.sent);
    return failures ? 1 : 0;
}
