/* A 36 KB model whose labels and sparse bigram blocks stand for 12.8 GB of
 * weights (4,000 labels x 100 bigram observations, one weight each, valid
 * checksum): the loader must refuse it by the model-params limit before
 * allocating, refuse too many labels by model-labels, refuse forged empty
 * blocks, and, when the limit is lifted and memory runs out, say "out of
 * memory" rather than "corrupt".  alarm() bounds the run: the old loader
 * spent minutes zeroing the weights (or was killed). */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "crfpipe/crfpipe.h"
#include "../modelsum.h"

#define CHECK(c, ...)                                                                          \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

typedef struct {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, uint64_t v, int bytes)
{
    if (b->n + (size_t)bytes > b->cap) {
        b->cap = b->cap ? b->cap * 2 : 4096;
        b->p = realloc(b->p, b->cap);
        CHECK(b->p, "out of memory");
    }
    for (int k = 0; k < bytes; k++)
        b->p[b->n++] = (unsigned char)(v >> (8 * k));
}

static void put_str(buf *b, const char *s)
{
    put(b, strlen(s), 4);
    for (; *s; s++)
        put(b, (unsigned char)*s, 1);
}

/* Y labels, nobs bigram observations each holding `cnt` weights. */
static void forge(const char *path, unsigned Y, unsigned nobs, unsigned cnt)
{
    buf b = {0};
    const char *magic = "CRFPMODL";
    for (int i = 0; i < 8; i++)
        put(&b, (unsigned char)magic[i], 1);
    put(&b, 1, 4);
    put(&b, Y, 4);
    char s[32];
    for (unsigned y = 0; y < Y; y++) {
        snprintf(s, sizeof s, "L%u", y);
        put_str(&b, s);
    }
    put(&b, 0, 1); /* no features plugin */
    put(&b, 0, 4); /* no meta */
    put(&b, nobs, 4);
    for (unsigned o = 0; o < nobs; o++) {
        snprintf(s, sizeof s, "o%u", o);
        put_str(&b, s);
        put(&b, 2, 1); /* bigram */
        put(&b, 0, 1); /* sparse */
        put(&b, cnt, 4);
        for (unsigned k = 0; k < cnt; k++) {
            put(&b, k, 4);
            put(&b, 0x3ff0000000000000ULL, 8); /* 1.0 */
        }
    }
    put(&b, modelsum(b.p, b.n), 8);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(b.p, 1, b.n, fp) == b.n && fclose(fp) == 0, "cannot write %s", path);
    free(b.p);
}

static crfp_status load(crfp_host *host, const char *path)
{
    crfp_crf *crf = NULL;
    crfp_status st = crfp_crf_load(host, path, &crf);
    crfp_crf_free(crf);
    return st;
}

int main(void)
{
    alarm(60);
    char path[] = "/tmp/crfp-bigmodel.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    crfp_host *host = crfp_host_new();
    CHECK(host, "crfp_host_new");

    forge(path, 4000, 100, 1);
    crfp_status st = load(host, path);
    CHECK(st == CRFP_EFORMAT && strstr(crfp_errmsg(host), "model-params="),
          "12.8 GB model: status %d, '%s'", st, crfp_errmsg(host));

    CHECK(crfp_host_set_limits(host, "model-labels=1000") == CRFP_OK, "set_limits");
    st = load(host, path);
    CHECK(st == CRFP_EFORMAT && strstr(crfp_errmsg(host), "model-labels=1000"),
          "4,000 labels over the label limit: status %d, '%s'", st, crfp_errmsg(host));
    CHECK(crfp_host_set_limits(host, "model-labels=4096") == CRFP_OK, "set_limits");

    /* The same blocks, all weights left out: forged, whatever the limits. */
    forge(path, 40, 3, 0);
    st = load(host, path);
    CHECK(st == CRFP_EFORMAT && strstr(crfp_errmsg(host), "corrupt"),
          "empty sparse block: status %d, '%s'", st, crfp_errmsg(host));

    /* A legitimate small model still loads. */
    forge(path, 40, 3, 2);
    st = load(host, path);
    CHECK(st == CRFP_OK, "small model: status %d, '%s'", st, crfp_errmsg(host));

#if !defined(__SANITIZE_ADDRESS__) && !defined(CRFP_SANITIZERS)
    /* Lifted limit, 1 GB of address space: out of memory, said so. */
    forge(path, 4000, 100, 1);
    CHECK(crfp_host_set_limits(host, "model-params=unlimited") == CRFP_OK, "set_limits");
    struct rlimit rl = {(rlim_t)1 << 30, (rlim_t)1 << 30};
    if (setrlimit(RLIMIT_AS, &rl) == 0) {
        st = load(host, path);
        CHECK(st == CRFP_ENOMEM && strstr(crfp_errmsg(host), "out of memory") &&
                  !strstr(crfp_errmsg(host), "corrupt"),
              "lifted limit: status %d, '%s'", st, crfp_errmsg(host));
    }
#endif
    crfp_host_free(host);
    unlink(path);
    return 0;
}
