/* Fuzz target: the model loader (crfp_crf_load, core/src/crf/modelio.c).
 *
 * A model file ends in a checksum of everything before it, so random bytes
 * would almost never get past it and the fuzzer would only ever see the
 * "checksum mismatch" error.  The input is therefore the body of a model:
 * the target writes the magic and version in front, appends the correct
 * checksum (computed here from the format's definition) and loads that,
 * letting the fuzzer explore the structure behind the check.
 * Oracle: a model that loads must dump, save, load again and dump the same.
 */
#include "fuzzhost.h"
#include "../modelsum.h"

#include <stdlib.h>
#include <string.h>

static char *dump(crfp_crf *crf, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        fz_fail("set-up", "open_memstream");
    if (crfp_crf_dump(fz_host(), crf, f) != CRFP_OK)
        fz_fail("dump of a loaded model", crfp_errmsg(fz_host()));
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    /* A weight block of 65535 labels is 32 GiB: the loader checks counts
     * against the file size, so big inputs are the only way to big
     * allocations; keep them to what the fuzzer's RSS limit allows. */
    if (size > (1u << 20))
        return 0;
    size_t n = 12 + size + 8;
    uint8_t *file = malloc(n);
    if (!file)
        fz_fail("set-up", "malloc");
    memcpy(file, "CRFPMODL\1\0\0\0", 12);
    if (size)
        memcpy(file + 12, data, size);
    uint64_t sum = modelsum(file, 12 + size);
    for (int i = 0; i < 8; i++)
        file[12 + size + (size_t)i] = (uint8_t)(sum >> (8 * i));
    const char *path = fz_file("model", file, n);
    free(file);

    crfp_crf *crf = NULL;
    crfp_status st = crfp_crf_load(h, path, &crf);
    fz_trace("%s", st == CRFP_OK ? "loaded" : crfp_errmsg(h));
    if (st != CRFP_OK) {
        if (st != CRFP_EFORMAT)
            fz_fail("load failed with an unexpected status", crfp_errmsg(h));
        if (strstr(crfp_errmsg(h), "checksum mismatch"))
            fz_fail("the target's checksum disagrees with the loader's", crfp_errmsg(h));
        crfp_error_clear(h);
        return 0;
    }
    size_t len1, len2;
    char *d1 = dump(crf, &len1);
    char resaved[600];
    snprintf(resaved, sizeof resaved, "%s.re", path);
    if (crfp_crf_save(h, crf, resaved) != CRFP_OK)
        fz_fail("saving a loaded model", crfp_errmsg(h));
    crfp_crf_free(crf);
    crf = NULL;
    if (crfp_crf_load(h, resaved, &crf) != CRFP_OK)
        fz_fail("loading a re-saved model", crfp_errmsg(h));
    remove(resaved);
    char *d2 = dump(crf, &len2);
    if (len1 != len2 || memcmp(d1, d2, len1) != 0)
        fz_fail("save/load", "the dumps differ");
    free(d1);
    free(d2);
    crfp_crf_free(crf);
    return 0;
}
