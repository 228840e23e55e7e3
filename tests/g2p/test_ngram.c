/* The phoneme n-gram model of lm_rescore (plugins/lm_rescore/ngram.c)
 * against a plain re-implementation of interpolated Kneser-Ney that
 * recounts the corpus for every query, on random corpora of every order;
 * each conditional distribution sums to one; sentence log-probabilities
 * are the sums of the conditionals; a saved model loads back to the same
 * bits; malformed model files are refused with their file and line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../plugins/lm_rescore/ngram.h"
#include "../testcheck.h"

#define MAXSEQ 40
#define MAXLEN 8
static const char *ALPHA[] = {"AA", "B", "K", "S", "IY", "T"};

typedef struct corpus {
    int n;
    int len[MAXSEQ];
    const char *s[MAXSEQ][MAXLEN + 2 * NGRAM_MAX_ORDER];  /* padded */
    int plen[MAXSEQ];
} corpus;

static unsigned rng = 12345;
static unsigned next(void)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 16) & 0x7fff;
}

/* Padded copy: N-1 <s>, the phonemes, </s>. */
static void pad(corpus *c, int i, int N)
{
    int k = 0;
    for (int j = 0; j < N - 1; j++)
        c->s[i][k++] = "<s>";
    for (int j = 0; j < c->len[i]; j++)
        c->s[i][k++] = c->s[i][N - 1 + j] ? c->s[i][N - 1 + j] : "?";
    c->s[i][k++] = "</s>";
    c->plen[i] = k;
}

static int same(const char *const *a, const char *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(a[i], b[i]) != 0)
            return 0;
    return 1;
}

/* Reference counts, recomputed from the corpus each time.
 * c(k, g): order-N raw count when k == N, else the number of distinct
 * symbols x with c(k+1, x g) > 0. */
static double ref_c(const corpus *c, int N, int k, const char *const *g)
{
    if (k == N) {
        int n = 0;
        for (int i = 0; i < c->n; i++)
            for (int p = N - 1; p < c->plen[i]; p++)
                n += same(&c->s[i][p - N + 1], g, N);
        return n;
    }
    /* distinct predecessors x: any position where g occurs as the end of
     * an order-(k+1) window, i.e. preceded by at least one symbol */
    const char *seen[512];
    int ns = 0;
    for (int i = 0; i < c->n; i++)
        for (int p = N - 1; p < c->plen[i]; p++) {
            /* the window of order k+1 ending at p must lie in the padding
             * or the sequence: start at p-k >= 0 */
            if (p - k < 0 || !same(&c->s[i][p - k + 1], g, k))
                continue;
            const char *x = c->s[i][p - k];
            int dup = 0;
            for (int j = 0; j < ns; j++)
                dup |= strcmp(seen[j], x) == 0;
            if (!dup && ns < 512)
                seen[ns++] = x;
        }
    return ns;
}

static const char *SYMS[] = {"AA", "B", "K", "S", "IY", "T", "</s>"};
#define NSYMS 7

/* P(w | h) with h the k-1 symbols before w, interpolated down to order 1. */
static double ref_p(const corpus *c, int N, double D, const char *const *h, const char *w)
{
    /* V: symbols with a unigram count */
    int V = 0;
    for (int j = 0; j < NSYMS; j++)
        V += ref_c(c, N, 1, &SYMS[j]) > 0;
    double pr = 1.0 / (V + 1.0);
    for (int k = 1; k <= N; k++) {
        const char *g[NGRAM_MAX_ORDER + 1];
        for (int j = 0; j < k - 1; j++)
            g[j] = h[N - 1 - (k - 1) + j];
        double tot = 0, typ = 0;
        for (int j = 0; j < NSYMS; j++) {
            g[k - 1] = SYMS[j];
            double x = ref_c(c, N, k, g);
            tot += x;
            typ += x > 0;
        }
        if (tot == 0)
            continue;
        g[k - 1] = w;
        double x = ref_c(c, N, k, g);
        pr = (x > D ? x - D : 0) / tot + D * typ / tot * pr;
    }
    return pr;
}

static void trial(int N, double D)
{
    corpus *c = calloc(1, sizeof *c);
    c->n = 5 + (int)(next() % 30);
    ngram *m = ngram_new(N, D);
    CHECK(m != NULL, "new");
    for (int i = 0; i < c->n; i++) {
        c->len[i] = (int)(next() % (MAXLEN + 1));   /* empty words too */
        const char *ph[MAXLEN];
        for (int j = 0; j < c->len[i]; j++)
            ph[j] = c->s[i][N - 1 + j] = ALPHA[next() % 4 + (next() % 5 == 0 ? 2 : 0)];
        pad(c, i, N);
        CHECK(ngram_add(m, ph, (size_t)c->len[i]) == CRFP_OK, "add");
    }
    CHECK(ngram_finish(m) == CRFP_OK, "finish");
    for (int q = 0; q < 30; q++) {
        /* a history of up to 6 symbols, some never seen */
        const char *hist[6];
        int nh = (int)(next() % 7);
        for (int j = 0; j < nh; j++)
            hist[j] = next() % 9 == 0 ? "ZZ" : ALPHA[next() % 6];
        const char *h[NGRAM_MAX_ORDER];
        for (int j = 0; j < N - 1; j++) {
            int back = N - 1 - j;
            h[j] = back <= nh ? hist[nh - back] : "<s>";
        }
        double sum = 0;
        for (int j = 0; j < NSYMS; j++) {
            const char *w = j < NSYMS - 1 ? SYMS[j] : NULL;
            double got = ngram_cond(m, hist, (size_t)nh, w);
            double want = log(ref_p(c, N, D, h, SYMS[j]));
            CHECK(fabs(got - want) < 1e-12, "order %d D %g: log P(%s | %d symbols) %.17g, "
                  "reference %.17g", N, D, SYMS[j], nh, got, want);
            sum += exp(got);
        }
        double unk = exp(ngram_cond(m, hist, (size_t)nh, "ZZ"));
        double want_unk = ref_p(c, N, D, h, "ZZ");
        CHECK(fabs(unk - want_unk) < 1e-15, "unknown symbol %.17g vs %.17g", unk, want_unk);
        /* symbols of the alphabet the corpus never used share the unknown's mass */
        for (int j = 0; j < NSYMS - 1; j++) {
            const char *one = SYMS[j];
            if (ref_c(c, N, 1, &one) == 0)
                sum -= exp(ngram_cond(m, hist, (size_t)nh, one));
        }
        CHECK(fabs(sum + unk - 1.0) < 1e-12, "order %d: the distribution sums to %.17g", N,
              sum + unk);
        /* a word's log-probability is the sum of its conditionals */
        double lp = 0;
        for (int j = 0; j <= nh; j++)
            lp += ngram_cond(m, hist, (size_t)j, j < nh ? hist[j] : NULL);
        CHECK(fabs(lp - ngram_logprob(m, hist, (size_t)nh)) < 1e-10, "logprob %.17g vs %.17g",
              ngram_logprob(m, hist, (size_t)nh), lp);
    }
    /* saved and loaded: the same numbers to the bit */
    char path[] = "/tmp/crfpipe-ngram-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    crfp_host *host = crfp_host_new();
    ngram *l = NULL;
    CHECK(ngram_save(host, m, path) == CRFP_OK, "save: %s", crfp_errmsg(host));
    CHECK(ngram_load(host, path, &l) == CRFP_OK && l, "load: %s", crfp_errmsg(host));
    for (int i = 0; l && i < c->n; i++) {
        const char *ph[MAXLEN];
        for (int j = 0; j < c->len[i]; j++)
            ph[j] = c->s[i][N - 1 + j];
        double a = ngram_logprob(m, ph, (size_t)c->len[i]);
        double b = ngram_logprob(l, ph, (size_t)c->len[i]);
        CHECK(memcmp(&a, &b, sizeof a) == 0, "reloaded model: %.17g vs %.17g", a, b);
    }
    CHECK(!l || ngram_count(l) == ngram_count(m), "n-gram count after load");
    ngram_free(l);
    crfp_host_free(host);
    remove(path);
    ngram_free(m);
    free(c);
}

/* Model files that must be refused, with what the message must say. */
static void hostile(void)
{
    static const struct {
        const char *text;
        size_t len;   /* 0: strlen */
        const char *says;
    } cases[] = {
        {"", 0, "empty file"},
        {"# crfpipe aligner model 1\n", 0, ":1: not a phoneme n-gram model"},
        {"# crfpipe phoneme n-gram model 1\norder 9\ndiscount 0.5\n", 0, ":2: order must be"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 1.5\n", 0, ":3: discount"},
        {"# crfpipe phoneme n-gram model 1\ndiscount 0.5\norder 2\n", 0, ":2: expected 'order"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\n", 0, "no n-grams"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\ng\tA B C\t3\n", 0,
         ":4: expected 2 symbols"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\ng\tA\t3\n", 0,
         ":4: expected 2 symbols, found 1"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\ng\tA  B\t3\n", 0,
         ":4: expected 2 symbols separated"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\ng\tA B\t0\n", 0,
         ":4: bad count '0'"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\ng\tA B\t-2\n", 0,
         ":4: bad count"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\ng\tA B\t99999999999999999999\n",
         0, ":4: bad count"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\ng\tA B\n", 0,
         ":4: expected 'g<TAB>"},
        {"# crfpipe phoneme n-gram model 1\norder 3\ndiscount 0.5\ng\tA <s> B\t1\n", 0,
         ":4: misplaced"},
        {"# crfpipe phoneme n-gram model 1\norder 3\ndiscount 0.5\ng\t</s> A B\t1\n", 0,
         ":4: misplaced"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\ng\tA\0B\t1\n", 63,
         ":4: a NUL byte"},
        {"# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\nsomething else\n", 0,
         ":4: expected 'g<TAB>"},
    };
    crfp_host *host = crfp_host_new();
    char path[] = "/tmp/crfpipe-ngram-bad-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        FILE *f = fopen(path, "wb");
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
        fwrite(cases[i].text, 1, len, f);
        fclose(f);
        ngram *m = (ngram *)1;
        crfp_status st = ngram_load(host, path, &m);
        CHECK(st != CRFP_OK && m == NULL, "case %zu accepted", i);
        CHECK(strstr(crfp_errmsg(host), cases[i].says) && strstr(crfp_errmsg(host), path),
              "case %zu: message '%s' should name the file and say '%s'", i, crfp_errmsg(host),
              cases[i].says);
    }
    /* a line over the host's limit is refused without being read whole */
    CHECK(crfp_host_set_limits(host, "line=64") == CRFP_OK, "limit");
    FILE *f = fopen(path, "wb");
    fputs("# crfpipe phoneme n-gram model 1\norder 2\ndiscount 0.5\ng\tA ", f);
    for (int i = 0; i < 100000; i++)
        fputc('B', f);
    fputs("\t1\n", f);
    fclose(f);
    ngram *m = NULL;
    CHECK(ngram_load(host, path, &m) != CRFP_OK && !m, "long line accepted");
    CHECK(strstr(crfp_errmsg(host), ":4: line longer than the limit line=64") != NULL,
          "long line: %s", crfp_errmsg(host));
    CHECK(ngram_load(host, "/nonexistent/model.lm", &m) == CRFP_EIO && !m, "missing file");
    crfp_host_free(host);
    remove(path);
    /* arguments out of range, and symbols a word may not contain */
    CHECK(ngram_new(0, 0.5) == NULL && ngram_new(9, 0.5) == NULL && ngram_new(3, 1.0) == NULL,
          "bad order or discount accepted");
    ngram *g = ngram_new(3, 0.5);
    const char *bad1[] = {"A", "</s>"}, *bad2[] = {"A B"}, *bad3[] = {""};
    CHECK(ngram_add(g, bad1, 2) == CRFP_EINVAL && ngram_add(g, bad2, 1) == CRFP_EINVAL &&
              ngram_add(g, bad3, 1) == CRFP_EINVAL,
          "bad phonemes accepted");
    CHECK(ngram_finish(g) == CRFP_EINVAL, "an empty model finished");
    ngram_free(g);
}

int main(void)
{
    for (int N = 1; N <= NGRAM_MAX_ORDER; N++)
        for (int r = 0; r < 3; r++)
            trial(N, r == 0 ? 0.3 : r == 1 ? 0.75 : 0.05 + 0.9 * (next() % 100) / 100.0);
    hostile();
    if (!test_failures)
        printf("ngram: interpolated Kneser-Ney equals the reference at orders 1-%d\n",
               NGRAM_MAX_ORDER);
    return test_failures ? 1 : 0;
}
