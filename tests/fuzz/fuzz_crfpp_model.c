/* Fuzz target: the CRF++ model importer (crfp_crf_import_crfpp,
 * core/src/crf/import_crfpp.c): the binary model, a parser of sizes and of
 * a double-array trie, and the text model.
 *
 * The input is a whole CRF++ model file, binary or text.  Oracle: a model
 * that imports has no start weight (CRF++ has none), its template lines
 * load in the templates plugin (as `crfpipe model import` checks them) or
 * fail with a parse error, and it saves, loads and dumps the same.  Its
 * weights are those of the file's features by construction, so the
 * target checks what the importer cannot get wrong silently: every label
 * string of the model is one of the file's NUL- or line-separated strings.
 */
#include "fuzzhost.h"

#include <stdlib.h>
#include <string.h>

static int in_file(const uint8_t *data, size_t size, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= size; i++)
        if ((i == 0 || data[i - 1] == '\0' || data[i - 1] == '\n') &&
            memcmp(data + i, s, n) == 0 &&
            (i + n == size || data[i + n] == '\0' || data[i + n] == '\n' || data[i + n] == '\r'))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    if (crfp_host_set_limits(h, "model-params=4M,regex-time=10") != CRFP_OK)
        fz_fail("set-up: limit refused", crfp_errmsg(h));
    if (size > (1u << 20))
        return 0;
    const char *path = fz_file("crfpp-model", data, size);
    crfp_crf *crf = NULL;
    crfp_status st = crfp_crf_import_crfpp(h, path, "templates", "#!columns\n#!crf++\n", &crf);
    if (!fz_imported(st)) {
        return 0;
    }
    for (uint32_t y = 0; y < crfp_crf_nlabels(crf); y++)
        if (!in_file(data, size, crfp_crf_label(crf, y)))
            fz_fail("import", "a label that is not a string of the file");
    const double *w = crfp_crf_weights_const(crf);
    uint32_t Y = crfp_crf_nlabels(crf);
    for (uint32_t o = 0; o < crfp_crf_nobs(crf); o++) {
        size_t len;
        const char *s = crfp_crf_obs(crf, o, &len);
        uint64_t b = crfp_crf_bblock(crf, o);
        if (!len || (s[0] != 'U' && s[0] != 'B'))
            fz_fail("import", "an observation that does not start with U or B");
        for (size_t j = (size_t)Y * Y; b != CRFP_NO_BLOCK && j < (size_t)(Y + 1) * Y; j++)
            if (w[b + j] != 0.0)
                fz_fail("import", "a start weight, which CRF++ has not");
    }

    fz_template_config(crf, path);

    size_t len1;
    char *d1 = fz_model_dump(crf, &len1);
    fz_model_roundtrip(crf, path, d1, len1, "an imported CRF++ model");
    return 0;
}
