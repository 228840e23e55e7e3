/* Model files: bit-exact round trip of weights, labels, observations,
 * features config and metadata; every damaged file (each truncation, flipped
 * bytes, wrong magic or version, inconsistent counts) gives CRFP_EFORMAT
 * without crashing. */
#include <unistd.h>
#include "crftest.h"
#include "../modelsum.h"

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long sz = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)sz + 1);
    *n = fread(b, 1, (size_t)sz, fp);
    fclose(fp);
    return b;
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
    /* A fresh file each time: truncating one in place makes some file
     * systems flush it to disk, which is slow across thousands of writes. */
    unlink(path);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(b, 1, n, fp) != n)
        abort();
    fclose(fp);
}

static void reseal(unsigned char *b, size_t n)
{
    uint64_t h = modelsum(b, n - 8);
    for (int k = 0; k < 8; k++)
        b[n - 8 + (size_t)k] = (unsigned char)(h >> (8 * k));
}

static crfp_status load_bytes(crfp_host *host, const char *path, const unsigned char *b, size_t n)
{
    spit(path, b, n);
    crfp_crf *m = NULL;
    crfp_status st = crfp_crf_load(host, path, &m);
    CHECK((st == CRFP_OK) == (m != NULL), "output iff success");
    crfp_crf_free(m);
    return st;
}

int main(void)
{
    ct_rng = 0x7777777777777777ULL;
    crfp_host *host = crfp_host_new();
    char dir[] = "/tmp/crfp-modelio-XXXXXX";
    if (!host || !mkdtemp(dir))
        return 99;
    char path[256], bad[256];
    snprintf(path, sizeof path, "%s/m.crf", dir);
    snprintf(bad, sizeof bad, "%s/bad.crf", dir);

    crfp_crf *crf = ct_model(5, 12);
    ct_weights(crf, 0.7, 0, 3.0);
    double *w = crfp_crf_weights(crf);
    /* A fully dense block, an all-zero observation, awkward values. */
    uint64_t ub = crfp_crf_ublock(crf, 0);
    for (uint32_t y = 0; y < 5; y++)
        w[ub + y] = 1.0 / (y + 3.0);
    ub = crfp_crf_ublock(crf, 1);
    for (uint32_t y = 0; y < 5; y++)
        w[ub + y] = 0.0;
    uint64_t bb = crfp_crf_bblock(crf, 1);
    for (uint32_t i = 0; i < 30; i++)
        w[bb + i] = 0.0;
    w[crfp_crf_ublock(crf, 0)] = -0.0 + 1e-310; /* subnormal */
    const char cfg[] = "U00:%x[0,0]\nB\n";
    CHECK(crfp_crf_set_features(crf, "templates", cfg, sizeof cfg - 1) == CRFP_OK, "features");
    CHECK(crfp_crf_set_meta(crf, "label", "chunk") == CRFP_OK, "meta");
    CHECK(crfp_crf_set_meta(crf, "rho1", "0.5") == CRFP_OK, "meta");
    CHECK(crfp_crf_set_meta(crf, "rho1", "0.25") == CRFP_OK, "meta replaced");

    CHECK(crfp_crf_save(host, crf, path) == CRFP_OK, "save: %s", crfp_errmsg(host));
    crfp_crf *m = NULL;
    CHECK(crfp_crf_load(host, path, &m) == CRFP_OK && m, "load: %s", crfp_errmsg(host));
    if (!m)
        return 1;
    CHECK(crfp_crf_nlabels(m) == 5, "labels");
    for (uint32_t y = 0; y < 5; y++)
        CHECK(strcmp(crfp_crf_label(m, y), crfp_crf_label(crf, y)) == 0, "label %u", y);
    size_t len;
    const char *c = crfp_crf_features_config(m, &len);
    CHECK(len == sizeof cfg - 1 && memcmp(c, cfg, len) == 0, "config");
    CHECK(strcmp(crfp_crf_features_plugin(m), "templates") == 0, "plugin");
    CHECK(strcmp(crfp_crf_meta(m, "rho1"), "0.25") == 0 && strcmp(crfp_crf_meta(m, "label"),
                                                                  "chunk") == 0, "meta");
    CHECK(crfp_crf_obs_id(m, "o1", 2) < 0, "observation without weights is dropped");
    CHECK(crfp_crf_active(m) == crfp_crf_active(crf), "active %zu vs %zu", crfp_crf_active(m),
          crfp_crf_active(crf));
    const double *wm = crfp_crf_weights_const(m);
    for (uint32_t o = 0; o < crfp_crf_nobs(crf); o++) {
        const char *s = crfp_crf_obs(crf, o, &len);
        int64_t id = crfp_crf_obs_id(m, s, len);
        uint64_t blk[2] = {crfp_crf_ublock(crf, o), crfp_crf_bblock(crf, o)};
        uint64_t mblk[2] = {id >= 0 ? crfp_crf_ublock(m, (uint32_t)id) : CRFP_NO_BLOCK,
                            id >= 0 ? crfp_crf_bblock(m, (uint32_t)id) : CRFP_NO_BLOCK};
        size_t size[2] = {5, 30};
        for (int k = 0; k < 2; k++) {
            if (blk[k] == CRFP_NO_BLOCK)
                continue;
            for (size_t i = 0; i < size[k]; i++) {
                double a = w[blk[k] + i];
                double b = mblk[k] == CRFP_NO_BLOCK ? 0.0 : wm[mblk[k] + i];
                CHECK(memcmp(&a, &b, sizeof a) == 0, "obs %s block %d weight %zu: %a vs %a", s,
                      k, i, a, b);
            }
        }
    }
    /* Identical behaviour: same Viterbi and log Z on a sequence mapped by name. */
    {
        crfp_seq s1;
        ct_seq_make(crf, 12, 4, 2, &s1);
        crfp_seq s2 = s1;
        s2.uobs = malloc((s1.uoff[12] + 1) * sizeof(uint32_t));
        s2.bobs = malloc((s1.boff[12] + 1) * sizeof(uint32_t));
        s2.uoff = malloc(13 * sizeof(uint32_t));
        s2.boff = malloc(13 * sizeof(uint32_t));
        uint32_t nu = 0, nb = 0;
        s2.uoff[0] = s2.boff[0] = 0;
        for (uint32_t t = 0; t < 12; t++) {
            for (uint32_t i = s1.uoff[t]; i < s1.uoff[t + 1]; i++) {
                const char *s = crfp_crf_obs(crf, s1.uobs[i], &len);
                int64_t id = crfp_crf_obs_id(m, s, len);
                if (id >= 0 && crfp_crf_ublock(m, (uint32_t)id) != CRFP_NO_BLOCK)
                    s2.uobs[nu++] = (uint32_t)id;
            }
            for (uint32_t i = s1.boff[t]; i < s1.boff[t + 1]; i++) {
                const char *s = crfp_crf_obs(crf, s1.bobs[i], &len);
                int64_t id = crfp_crf_obs_id(m, s, len);
                if (id >= 0 && crfp_crf_bblock(m, (uint32_t)id) != CRFP_NO_BLOCK)
                    s2.bobs[nb++] = (uint32_t)id;
            }
            s2.uoff[t + 1] = nu;
            s2.boff[t + 1] = nb;
        }
        crfp_infer *w1 = crfp_infer_new(crf), *w2 = crfp_infer_new(m);
        uint32_t y1[12], y2[12];
        double v1, v2, l1, l2;
        CHECK(crfp_viterbi(w1, &s1, w, y1, &v1) == CRFP_OK, "v1");
        CHECK(crfp_viterbi(w2, &s2, wm, y2, &v2) == CRFP_OK, "v2");
        CHECK(memcmp(y1, y2, sizeof y1) == 0 && ct_close(v1, v2, 1e-14), "same Viterbi");
        CHECK(crfp_forward_backward(w1, &s1, w, &l1, NULL) == CRFP_OK, "fb1");
        CHECK(crfp_forward_backward(w2, &s2, wm, &l2, NULL) == CRFP_OK, "fb2");
        CHECK(ct_close(l1, l2, 1e-14), "same logZ %.17g %.17g", l1, l2);
        crfp_infer_free(w1);
        crfp_infer_free(w2);
        s2.y = NULL;
        ct_seq_free(&s2);
        ct_seq_free(&s1);
    }
    /* The dump lists the weights. */
    {
        char *text = NULL;
        size_t tlen = 0;
        FILE *mem = open_memstream(&text, &tlen);
        CHECK(crfp_crf_dump(host, m, mem) == CRFP_OK, "dump");
        fclose(mem);
        CHECK(strstr(text, "label\t0\tL0\n") != NULL, "dump labels");
        CHECK(strstr(text, "U00:%x[0,0]\n") != NULL, "dump config");
        char line[128];
        snprintf(line, sizeof line, "U\to0\tL1\t%.17g\n", 1.0 / 4.0);
        CHECK(strstr(text, line) != NULL, "dump unigram line: %s", line);
        CHECK(strstr(text, "\nB\t") != NULL, "dump bigram line");
        free(text);
    }
    crfp_crf_free(m);

    size_t n = 0;
    unsigned char *file = slurp(path, &n);
    CHECK(file && n > 100, "file size %zu", n);
    /* Every truncation. */
    for (size_t k = 0; k < n; k++) {
        crfp_status st = load_bytes(host, bad, file, k);
        CHECK(st == CRFP_EFORMAT, "prefix %zu of %zu: status %d", k, n, (int)st);
        if (k == n / 2)
            CHECK(strstr(crfp_errmsg(host), bad) != NULL, "message names the file: %s",
                  crfp_errmsg(host));
    }
    CHECK(load_bytes(host, bad, file, n) == CRFP_OK, "intact copy loads");
    /* Every single flipped byte. */
    for (size_t k = 0; k < n; k++) {
        file[k] ^= 0x5a;
        CHECK(load_bytes(host, bad, file, n) == CRFP_EFORMAT, "flipped byte %zu", k);
        file[k] ^= 0x5a;
    }
    /* Wrong magic; wrong version, even with a valid checksum. */
    file[0] = 'X';
    CHECK(load_bytes(host, bad, file, n) == CRFP_EFORMAT, "magic");
    file[0] = 'C';
    file[8] = 2;
    reseal(file, n);
    CHECK(load_bytes(host, bad, file, n) == CRFP_EFORMAT, "version");
    CHECK(strstr(crfp_errmsg(host), "version") != NULL, "says version: %s", crfp_errmsg(host));
    file[8] = 1;
    /* Any byte changed with the checksum forged: rejected or loaded, never a
     * crash (counts and indexes are checked). */
    for (size_t k = 12; k + 8 < n; k++) {
        unsigned char keep = file[k];
        for (int v = k % 5 ? 2 : 0; v < 3; v++) {
            file[k] = v == 0 ? 0xff : v == 1 ? 0x00 : (unsigned char)(keep + 1);
            reseal(file, n);
            crfp_status st = load_bytes(host, bad, file, n);
            CHECK(st == CRFP_OK || st == CRFP_EFORMAT, "forged byte %zu: status %d", k, (int)st);
        }
        file[k] = keep;
    }
    reseal(file, n);
    CHECK(load_bytes(host, bad, file, n) == CRFP_OK, "restored");
    /* A weight forged to NaN or infinity, checksum and all: refused, since
     * Viterbi would answer label 0 everywhere; and such a model in memory
     * is not saved. */
    {
        double quarter = 0.25, forged[2] = {NAN, INFINITY};
        size_t at = n;
        for (size_t k = 12; k + 8 <= n - 8 && at == n; k++)
            if (memcmp(file + k, &quarter, 8) == 0)
                at = k;
        CHECK(at < n, "the weight 1/4 is in the file");
        for (int f = 0; f < 2 && at < n; f++) {
            memcpy(file + at, &forged[f], 8);
            reseal(file, n);
            CHECK(load_bytes(host, bad, file, n) == CRFP_EFORMAT &&
                      strstr(crfp_errmsg(host), "is not finite") != NULL,
                  "a %s weight loaded: %s", f ? "infinite" : "NaN", crfp_errmsg(host));
        }
        crfp_crf *mm = NULL;
        CHECK(crfp_crf_load(host, path, &mm) == CRFP_OK, "reload");
        if (mm) {
            crfp_crf_weights(mm)[0] = NAN;
            CHECK(crfp_crf_save(host, mm, bad) == CRFP_EINVAL &&
                      strstr(crfp_errmsg(host), "not finite") != NULL,
                  "a NaN weight saved: %s", crfp_errmsg(host));
        }
        crfp_crf_free(mm);
    }
    free(file);
    /* Missing file. */
    crfp_crf *none = NULL;
    CHECK(crfp_crf_load(host, "/nonexistent/dir/m.crf", &none) != CRFP_OK && !none, "missing");

    unlink(bad);
    unlink(path);
    rmdir(dir);
    crfp_crf_free(crf);
    crfp_host_free(host);
    if (test_failures)
        fprintf(stderr, "%d failures\n", test_failures);
    return test_failures ? 1 : 0;
}
