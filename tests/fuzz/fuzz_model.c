/* Fuzz target: the model loader (crfp_crf_load, core/src/crf/modelio.c).
 *
 * A model file ends in a checksum of everything before it, so random bytes
 * would almost never get past it and the fuzzer would only ever see the
 * "checksum mismatch" error.  The input is therefore the body of a model:
 * the target writes the magic and version in front, appends the correct
 * checksum (computed here from the format's definition) and loads that,
 * letting the fuzzer explore the structure behind the check.
 * Oracle: a model that loads must dump, save, load again and dump the same,
 * and its dump has its fields: one line per label, metadata entry and
 * non-zero weight, whatever bytes its strings hold.
 */
#include "fuzzhost.h"
#include "../modelsum.h"

#include <stdlib.h>
#include <string.h>

/* The number of tab-separated fields of the line at *p (ending before end),
 * *p moved past its line feed; -1 when a field holds a control byte other
 * than the tab: the dump escapes them, so that every line keeps its
 * fields. */
static int fields(const char **p, const char *end)
{
    int n = 1;
    const char *s = *p;
    for (; s < end && *s != '\n'; s++) {
        if (*s == '\t')
            n++;
        else if ((unsigned char)*s < 0x20 || *s == 0x7f)
            n = -1000;
    }
    *p = s < end ? s + 1 : end;
    return n < 0 ? -1 : n;
}

/* The dump's shape: "labels N", N label lines of 3 fields, "features",
 * "config BYTES" and that many bytes (and a line feed), meta lines of 3
 * fields, then one line of 4 (U) or 5 (B) fields per non-zero weight. */
static void check_shape(const char *d, size_t len, const crfp_crf *crf)
{
    const char *p = d, *end = d + len;
    unsigned nl;
    if (sscanf(p, "labels\t%u", &nl) != 1 || nl != crfp_crf_nlabels(crf) || fields(&p, end) != 2)
        fz_fail("dump", "no 'labels N' line first");
    for (unsigned i = 0; i < nl; i++)
        if (strncmp(p, "label\t", 6) != 0 || fields(&p, end) != 3)
            fz_fail("dump", "a label line has not 3 fields (an unescaped tab or line feed?)");
    if (strncmp(p, "features\t", 9) != 0 || fields(&p, end) != 2)
        fz_fail("dump", "no features line");
    size_t clen;
    if (sscanf(p, "config\t%zu", &clen) != 1 || fields(&p, end) != 2 || clen > (size_t)(end - p))
        fz_fail("dump", "no config line");
    p += clen;
    if (clen && p[-1] != '\n')
        p++;
    size_t nw = 0;
    while (p < end) {
        const char *line = p;
        int n = fields(&p, end);
        if (strncmp(line, "meta\t", 5) == 0 && n == 3 && nw == 0)
            continue;
        if (!((line[0] == 'U' && n == 4) || (line[0] == 'B' && n == 5)) || line[1] != '\t')
            fz_fail("dump", "a line that is neither metadata nor a weight of 4 or 5 fields");
        nw++;
    }
    if (nw != crfp_crf_active(crf))
        fz_fail("dump", "not one weight line per non-zero weight");
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
    size_t len1;
    char *d1 = fz_model_dump(crf, &len1);
    check_shape(d1, len1, crf);
    fz_model_roundtrip(crf, path, d1, len1, "a loaded model");
    return 0;
}
