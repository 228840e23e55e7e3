/* conlleval's chunk rules: hand-checked cases. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "crfpipe/chunks.h"

static int failures;

#define CHECK(c)                                                                              \
    do {                                                                                      \
        if (!(c)) {                                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);             \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)

/* Score one sentence per NULL-separated group. */
static void score(const char *const *gold, const char *const *guess, size_t n,
                  crfp_chunkeval *e)
{
    crfp_chunkeval_init(e);
    for (size_t i = 0; i < n; i++) {
        if (!gold[i])
            crfp_chunkeval_boundary(e);
        else
            crfp_chunkeval_token(e, gold[i], guess[i]);
    }
    crfp_chunkeval_boundary(e);
    crfp_chunkeval_finish(e);
}

typedef struct span {
    size_t s, e;
    char type[16];
} span;

static span spans[32];
static size_t nspans;

static void emit(void *ud, size_t s, size_t e, const char *type)
{
    (void)ud;
    spans[nspans].s = s;
    spans[nspans].e = e;
    snprintf(spans[nspans].type, sizeof spans[nspans].type, "%s", type);
    nspans++;
}

int main(void)
{
    crfp_chunkeval e;
    {   /* perfect IOB2 */
        const char *g[] = {"B-NP", "I-NP", "B-VP", "O", "B-NP"};
        score(g, g, 5, &e);
        CHECK(e.found_gold == 3 && e.found_guess == 3 && e.correct_chunks == 3);
        CHECK(e.tokens == 5 && e.correct_tags == 5);
        crfp_chunkeval_free(&e);
    }
    {   /* I- after O starts a chunk (IOB1 style); a type change splits */
        const char *g[] = {"B-NP", "I-NP", "O", "I-NP", "I-VP"};
        const char *p[] = {"B-NP", "I-NP", "O", "B-NP", "B-VP"};
        score(g, p, 5, &e);
        CHECK(e.found_gold == 3 && e.found_guess == 3);
        CHECK(e.correct_chunks == 3);
        CHECK(e.correct_tags == 3);
        crfp_chunkeval_free(&e);
    }
    {   /* a chunk predicted too long is wrong, and so is one too short */
        const char *g[] = {"B-NP", "I-NP", "B-NP", "O"};
        const char *p[] = {"B-NP", "I-NP", "I-NP", "O"};
        score(g, p, 4, &e);
        CHECK(e.found_gold == 2 && e.found_guess == 1 && e.correct_chunks == 0);
        crfp_chunkeval_free(&e);
    }
    {   /* sentence boundaries close chunks */
        const char *g[] = {"B-NP", "I-NP", NULL, "I-NP", "O"};
        const char *p[] = {"B-NP", "I-NP", NULL, "B-NP", "O"};
        score(g, p, 5, &e);
        CHECK(e.found_gold == 2 && e.found_guess == 2 && e.correct_chunks == 2);
        CHECK(e.tokens == 4);
        crfp_chunkeval_free(&e);
    }
    {   /* per-type table, sorted */
        const char *g[] = {"B-VP", "B-NP", "B-ADJP"};
        const char *p[] = {"B-VP", "B-PP", "B-ADJP"};
        score(g, p, 3, &e);
        CHECK(e.ntypes == 4);
        CHECK(strcmp(e.types[0].type, "ADJP") == 0 && e.types[0].correct == 1);
        CHECK(strcmp(e.types[1].type, "NP") == 0 && e.types[1].found_gold == 1 &&
              e.types[1].found_guess == 0);
        CHECK(strcmp(e.types[2].type, "PP") == 0 && e.types[2].found_guess == 1);
        crfp_chunkeval_free(&e);
    }
    {   /* spans agree with the scorer's chunks */
        const char *l[] = {"B-NP", "I-NP", "O", "I-PER", "I-PER", "B-PER", "I-LOC"};
        nspans = 0;
        crfp_chunk_spans(l, 7, emit, NULL);
        CHECK(nspans == 4);
        CHECK(spans[0].s == 0 && spans[0].e == 2 && strcmp(spans[0].type, "NP") == 0);
        CHECK(spans[1].s == 3 && spans[1].e == 5 && strcmp(spans[1].type, "PER") == 0);
        CHECK(spans[2].s == 5 && spans[2].e == 6 && strcmp(spans[2].type, "PER") == 0);
        CHECK(spans[3].s == 6 && spans[3].e == 7 && strcmp(spans[3].type, "LOC") == 0);
    }
    {   /* types may contain hyphens */
        crfp_chunk_label l;
        crfp_chunk_split("I-creative-work", &l);
        CHECK(strcmp(l.tag, "I") == 0 && strcmp(l.type, "creative-work") == 0);
        crfp_chunk_split("O", &l);
        CHECK(strcmp(l.tag, "O") == 0 && l.type[0] == '\0');
    }
    {   /* types past the field's 63 bytes stay distinct: two types that
         * share their first 70 bytes are two types, with two chunks */
        char a[90], b[90], c[200];
        memset(a, 'x', sizeof a);
        memcpy(a, "B-", 2);
        a[80] = 'A';
        a[81] = '\0';
        memcpy(b, a, sizeof b);
        b[0] = 'I';   /* I- of another type after B-: a new chunk */
        b[80] = 'B';
        crfp_chunk_label la, lb, la2;
        crfp_chunk_split(a, &la);
        crfp_chunk_split(b, &lb);
        crfp_chunk_split(a, &la2);
        CHECK(strcmp(la.type, lb.type) != 0 && strcmp(lb.tag, "I") == 0);
        CHECK(strcmp(la.type, la2.type) == 0);
        CHECK(strlen(la.type) == sizeof la.type - 1 && strchr(la.type, '~'));
        const char *l2[] = {a, b};
        nspans = 0;
        crfp_chunk_spans(l2, 2, emit, NULL);
        CHECK(nspans == 2);
        /* a multi-byte character at the cut is not split */
        strcpy(c, "B-");
        for (int k = 0; k < 40; k++)
            strcat(c, "\xc3\xa9");   /* é, 2 bytes */
        crfp_chunk_label lc;
        crfp_chunk_split(c, &lc);
        char *t = strchr(lc.type, '~');
        CHECK(t && (t - lc.type) % 2 == 0);
        /* a type that fits is kept whole */
        crfp_chunk_split("B-short", &lc);
        CHECK(strcmp(lc.type, "short") == 0);
    }
    {
        const char *bio[] = {"O", "B-NP", "I-NP"}, *pos[] = {"NN", "VB"};
        CHECK(crfp_labels_are_chunked(bio, 3));
        CHECK(!crfp_labels_are_chunked(pos, 2));
    }
    if (failures)
        fprintf(stderr, "%d checks failed\n", failures);
    return failures ? 1 : 0;
}
