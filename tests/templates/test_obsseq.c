/* Unit tests of crfp_obsseq: order, empty tokens, growth, reuse. */
#include <math.h>
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

static void test_basic(void)
{
    crfp_obsseq *o = crfp_obsseq_new();
    CHECK(o != NULL);
    CHECK(crfp_obsseq_reset(o, 4) == CRFP_OK);
    CHECK(crfp_obsseq_ntok(o) == 4);
    /* token 0: two; token 1: none; token 2: one; token 3: none */
    CHECK(crfp_obsseq_push(o, 0, CRFP_OBS_UNIGRAM, "a", 1) == CRFP_OK);
    CHECK(crfp_obsseq_push(o, 0, CRFP_OBS_BIGRAM, "bc", 2) == CRFP_OK);
    CHECK(crfp_obsseq_push(o, 2, 3, "x\0y", 3) == CRFP_OK);
    /* going back is refused, and so is a token past the end */
    CHECK(crfp_obsseq_push(o, 1, 1, "z", 1) == CRFP_EINVAL);
    CHECK(crfp_obsseq_push(o, 4, 1, "z", 1) == CRFP_EINVAL);

    const char *const *s;
    const unsigned char *f;
    size_t n;
    crfp_obsseq_get(o, 0, &s, &f, &n);
    CHECK(n == 2);
    CHECK(n == 2 && !strcmp(s[0], "a") && f[0] == CRFP_OBS_UNIGRAM);
    CHECK(n == 2 && !strcmp(s[1], "bc") && f[1] == CRFP_OBS_BIGRAM);
    crfp_obsseq_get(o, 1, &s, &f, &n);
    CHECK(n == 0);
    crfp_obsseq_get(o, 2, &s, &f, &n);
    CHECK(n == 1 && memcmp(s[0], "x\0y", 4) == 0 && f[0] == 3);
    crfp_obsseq_get(o, 3, &s, &f, &n);
    CHECK(n == 0);
    crfp_obsseq_get(o, 99, &s, &f, &n);
    CHECK(n == 0);

    /* reset forgets everything but keeps working */
    CHECK(crfp_obsseq_reset(o, 1) == CRFP_OK);
    crfp_obsseq_get(o, 0, &s, &f, &n);
    CHECK(n == 0);
    CHECK(crfp_obsseq_push(o, 0, 1, "", 0) == CRFP_OK);
    crfp_obsseq_get(o, 0, &s, &f, &n);
    CHECK(n == 1 && s[0][0] == '\0');
    CHECK(crfp_obsseq_push(o, 1, 1, "q", 1) == CRFP_EINVAL);
    crfp_obsseq_free(o);
    crfp_obsseq_free(NULL);
}

/* Many long strings force the arena and the entry arrays to move; every
 * string must still read back intact, over several reused sentences. */
static void test_growth(void)
{
    crfp_obsseq *o = crfp_obsseq_new();
    char buf[600];
    for (int round = 0; round < 3; round++) {
        size_t ntok = 300 + (size_t)round * 100;
        CHECK(crfp_obsseq_reset(o, ntok) == CRFP_OK);
        for (size_t t = 0; t < ntok; t++) {
            if (t % 7 == 3)
                continue; /* tokens without observations */
            for (size_t k = 0; k < 5; k++) {
                size_t len = (t * 31 + k * 17 + (size_t)round) % 500;
                memset(buf, 'a' + (int)((t + k) % 26), sizeof buf);
                int wl = snprintf(buf, sizeof buf, "%zu/%zu", t, k);
                size_t l = len > (size_t)wl ? len : (size_t)wl;
                buf[wl] = '|';
                buf[l] = '\0';
                CHECK(crfp_obsseq_push(o, t, (unsigned)(k % 3) + 1, buf, l) == CRFP_OK);
            }
        }
        int bad = 0;
        for (size_t t = 0; t < ntok; t++) {
            const char *const *s;
            const unsigned char *f;
            size_t n;
            crfp_obsseq_get(o, t, &s, &f, &n);
            if (t % 7 == 3) {
                bad += n != 0;
                continue;
            }
            bad += n != 5;
            for (size_t k = 0; k < n; k++) {
                char want[48];
                snprintf(want, sizeof want, "%zu/%zu", t, k);
                size_t wl = strlen(want);
                size_t len = (t * 31 + k * 17 + (size_t)round) % 500;
                size_t l = len > wl ? len : wl;
                bad += strncmp(s[k], want, wl) != 0 || strlen(s[k]) != l ||
                       f[k] != (unsigned char)((k % 3) + 1);
            }
        }
        CHECK(bad == 0);
    }
    crfp_obsseq_free(o);
}

/* Values (crfp_obsseq_push_value): none until one other than 1, then 1
 * for the entries before it; 0 is kept; a bigram value and a value
 * that is not finite are refused; reset forgets them; they survive growth
 * of the entry arrays. */
static void test_values(void)
{
    crfp_obsseq *o = crfp_obsseq_new();
    CHECK(crfp_obsseq_reset(o, 3) == CRFP_OK);
    CHECK(crfp_obsseq_push_value(o, 0, CRFP_OBS_UNIGRAM, "a", 1, 1.0) == CRFP_OK);
    CHECK(crfp_obsseq_values(o, 0) == NULL);
    CHECK(crfp_obsseq_push_value(o, 0, CRFP_OBS_UNIGRAM, "zero", 4, 0.0) == CRFP_OK);
    CHECK(crfp_obsseq_values(o, 0) != NULL);
    CHECK(crfp_obsseq_push_value(o, 1, CRFP_OBS_BIGRAM, "B", 1, 2.0) == CRFP_EINVAL);
    CHECK(crfp_obsseq_push_value(o, 1, CRFP_OBS_UNIGRAM, "n", 1, NAN) == CRFP_EINVAL);
    CHECK(crfp_obsseq_push_value(o, 1, CRFP_OBS_UNIGRAM, "i", 1, INFINITY) == CRFP_EINVAL);
    CHECK(crfp_obsseq_push_value(o, 1, CRFP_OBS_BIGRAM, "B", 1, 1.0) == CRFP_OK);
    CHECK(crfp_obsseq_push_value(o, 1, CRFP_OBS_UNIGRAM, "b", 1, -0.25) == CRFP_OK);
    CHECK(crfp_obsseq_push(o, 2, CRFP_OBS_UNIGRAM, "c", 1) == CRFP_OK);
    /* going back is refused with a value too, 0 included */
    CHECK(crfp_obsseq_push_value(o, 0, CRFP_OBS_UNIGRAM, "d", 1, 0.0) == CRFP_EINVAL);
    CHECK(crfp_obsseq_push_value(o, 0, CRFP_OBS_UNIGRAM, "d", 1, 3.0) == CRFP_EINVAL);
    const char *const *s;
    size_t n;
    crfp_obsseq_get(o, 0, &s, NULL, &n);
    CHECK(n == 2 && !strcmp(s[0], "a") && !strcmp(s[1], "zero"));
    const double *v = crfp_obsseq_values(o, 0);
    CHECK(v && v[0] == 1.0 && v[1] == 0.0);
    crfp_obsseq_get(o, 1, &s, NULL, &n);
    v = crfp_obsseq_values(o, 1);
    CHECK(n == 2 && !strcmp(s[1], "b") && v && v[0] == 1.0 && v[1] == -0.25);
    v = crfp_obsseq_values(o, 2);
    CHECK(v && v[0] == 1.0);
    CHECK(crfp_obsseq_values(o, 3) == NULL && crfp_obsseq_values(NULL, 0) == NULL);
    /* a new sentence starts without values */
    CHECK(crfp_obsseq_reset(o, 1) == CRFP_OK);
    CHECK(crfp_obsseq_push(o, 0, CRFP_OBS_UNIGRAM, "a", 1) == CRFP_OK);
    CHECK(crfp_obsseq_values(o, 0) == NULL);
    /* thousands of entries, a value on every 7th, the first value late */
    CHECK(crfp_obsseq_reset(o, 10) == CRFP_OK);
    char buf[32];
    for (int k = 0; k < 5000; k++) {
        int m = snprintf(buf, sizeof buf, "o%d", k);
        double x = k >= 600 && k % 7 == 0 ? k / 8.0 : 1.0;
        CHECK(crfp_obsseq_push_value(o, (size_t)k / 500, CRFP_OBS_UNIGRAM, buf, (size_t)m, x) ==
              CRFP_OK);
    }
    int bad = 0;
    for (size_t t = 0; t < 10; t++) {
        crfp_obsseq_get(o, t, &s, NULL, &n);
        v = crfp_obsseq_values(o, t);
        for (size_t k = 0; v && k < n; k++) {
            int id = atoi(s[k] + 1);
            bad += v[k] != (id >= 600 && id % 7 == 0 ? id / 8.0 : 1.0);
        }
        bad += !v || n != 500;
    }
    CHECK(bad == 0);
    crfp_obsseq_free(o);
    /* the very first push of a fresh container may carry a value */
    o = crfp_obsseq_new();
    CHECK(crfp_obsseq_reset(o, 1) == CRFP_OK);
    CHECK(crfp_obsseq_push_value(o, 0, CRFP_OBS_UNIGRAM, "x", 1, 0.5) == CRFP_OK);
    v = crfp_obsseq_values(o, 0);
    CHECK(v && v[0] == 0.5);
    crfp_obsseq_free(o);
}

int main(void)
{
    test_basic();
    test_growth();
    test_values();
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
