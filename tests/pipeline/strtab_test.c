/* The string table of the tagdict and majority plugins
 * (plugins/common/strtab.c): ids in order of first appearance through many
 * growths, finds of present and absent strings, against a reference that
 * numbers the same strings by sorting.  Among 200,000 distinct strings a few
 * pairs share their 32-bit hash (about 5 expected; the test counts them
 * with its own copy of the hash and asks for one at least), so the path
 * where a probe meets an equal hash and another string is taken too. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugins/common/strtab.h"
#include "../testcheck.h"

enum { N = 400000 };

typedef struct ref {
    const char *s;
    long first;  /* index of its first appearance in the input */
} ref;

static int by_str(const void *a, const void *b)
{
    const ref *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->first > y->first) - (x->first < y->first);
}

/* strtab.c's hash (FNV-1a folded to 32 bits), to count collisions */
static unsigned hash32(const char *s)
{
    unsigned long long h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (unsigned)(h ^ (h >> 32));
}

static int by_uint(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    /* N inputs over N/2 distinct strings, each met twice in a shuffled
     * order: short numbers, long ones and UTF-8, so that lengths vary */
    char **in = malloc(N * sizeof *in);
    CHECK(in != NULL, "out of memory");
    if (!in)
        return 1;
    unsigned long long x = 88172645463325252ull;
    for (long i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        unsigned long k = (unsigned long)(x % (N / 2));
        char buf[64];
        snprintf(buf, sizeof buf, k % 3 == 0 ? "%lu" : k % 3 == 1 ? "w\xc3\xa9%lu-x" : "%lu%lu", k, k);
        in[i] = strdup(buf);
        CHECK(in[i] != NULL, "out of memory");
    }

    /* the reference: the id of a string is the rank of its first
     * appearance among the distinct strings' first appearances */
    ref *r = malloc(N * sizeof *r);
    long *want = malloc(N * sizeof *want), *firsts = malloc(N * sizeof *firsts);
    for (long i = 0; i < N; i++)
        r[i] = (ref){in[i], i};
    qsort(r, N, sizeof *r, by_str);
    long distinct = 0;
    char *isfirst = calloc(N, 1);
    for (long i = 0; i < N; i++)
        if (i == 0 || strcmp(r[i].s, r[i - 1].s) != 0)
            isfirst[r[i].first] = 1, distinct++;
    long *rank = malloc(N * sizeof *rank);
    for (long i = 0, k = 0; i < N; i++)
        rank[i] = isfirst[i] ? k++ : -1;
    for (long i = 0, f = 0; i < N; i++) {
        if (i == 0 || strcmp(r[i].s, r[i - 1].s) != 0)
            f = r[i].first;
        want[r[i].first] = rank[f];
        firsts[r[i].first] = f;
    }

    unsigned *h = malloc(distinct * sizeof *h);
    long nh = 0, collisions = 0;
    for (long i = 0; i < N; i++)
        if (isfirst[i])
            h[nh++] = hash32(in[i]);
    qsort(h, nh, sizeof *h, by_uint);
    for (long i = 1; i < nh; i++)
        collisions += h[i] == h[i - 1];
    CHECK(collisions > 0, "no two strings share a hash: the test misses a path");
    free(h);

    strtab t = {0};
    CHECK(strtab_find(&t, "anything") == -1, "an empty table finds nothing");
    for (long i = 0; i < N; i++) {
        long id = strtab_id(&t, in[i]);
        CHECK(id == want[i], "input %ld ('%s'): id %ld, want %ld", i, in[i], id, want[i]);
    }
    CHECK((long)t.n == distinct, "%zu strings, want %ld", t.n, distinct);
    for (long i = 0; i < N; i++) {
        CHECK(strtab_find(&t, in[i]) == want[i], "find '%s'", in[i]);
        CHECK(strcmp(t.strs[want[i]], in[i]) == 0, "the string of id %ld", want[i]);
        CHECK(in[firsts[i]] == t.strs[want[i]], "the table keeps the first pointer, not a copy");
    }
    /* absent strings: other prefixes, prefixes of present ones, the empty string */
    char buf[64];
    for (long k = 0; k < 20000; k++) {
        snprintf(buf, sizeof buf, "a%ld", k);
        CHECK(strtab_find(&t, buf) == -1, "'%s' is not in the table", buf);
    }
    CHECK(strtab_find(&t, "") == -1 && strtab_find(&t, "w\xc3\xa9") == -1, "prefixes");
    /* adding one more string after all that keeps the earlier ids */
    CHECK(strtab_id(&t, "") == distinct && strtab_find(&t, "") == distinct, "the empty string");
    CHECK(strtab_find(&t, in[0]) == 0, "the first string is still id 0");

    strtab_free(&t);
    CHECK(t.n == 0 && t.slot == NULL && strtab_find(&t, in[0]) == -1, "freed");
    for (long i = 0; i < N; i++)
        free(in[i]);
    free(in), free(r), free(want), free(firsts), free(isfirst), free(rank);
    return test_failures ? 1 : 0;
}
