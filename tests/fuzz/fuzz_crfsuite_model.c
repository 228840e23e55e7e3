/* Fuzz target: the CRFsuite model importer (crfp_crf_import_crfsuite,
 * core/src/crf/import_crfsuite.c), a parser of binary offsets and ids.
 *
 * The input is a whole CRFsuite model file, except that the target writes
 * the file's real size into the header's size field, which the importer
 * checks first: random bytes would otherwise never get past it.
 * Oracle: a model that imports must dump, save, load again and dump the
 * same, and be written for CRFsuite (the exporter) and imported back with
 * the same dump; it has one label per entry of the file's label count; and its
 * weights add up, per kind, to what the file's features with a non-zero
 * weight add up to, read here independently of the importer (features
 * listed twice add up, as CRFsuite's score would).
 */
#include "fuzzhost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    /* 65,535 labels make a 32 GiB bigram block: the model-params limit
     * keeps what an input may allocate to what the fuzzer's RSS limit
     * allows (and tests that the importer applies it). */
    if (crfp_host_set_limits(h, "model-params=4M") != CRFP_OK)
        fz_fail("set-up: limit refused", crfp_errmsg(h));
    if (size > (1u << 20))
        return 0;
    uint8_t *file = malloc(size ? size : 1);
    if (!file)
        fz_fail("set-up", "malloc");
    if (size)
        memcpy(file, data, size);
    if (size >= 8)
        for (int i = 0; i < 4; i++)
            file[4 + i] = (uint8_t)(size >> (8 * i));
    const char *path = fz_file("crfsuite-model", file, size);

    static const char cfg[] = "columns=attrs\nbigram=bias\n";
    crfp_crf *crf = NULL;
    crfp_status st = crfp_crf_import_crfsuite(h, path, "attributes", cfg, sizeof cfg - 1, &crf);
    if (!fz_imported(st)) {
        free(file);
        return 0;
    }
    /* what the file's features add up to, by kind */
    uint32_t off = le32(file + 28), nfeat = le32(file + off + 8);
    double want[2] = {0, 0}, scale[2] = {0, 0};
    for (uint32_t k = 0; k < nfeat; k++) {
        const uint8_t *f = file + off + 12 + (size_t)k * 20;
        uint64_t bits = (uint64_t)le32(f + 12) | (uint64_t)le32(f + 16) << 32;
        double w;
        memcpy(&w, &bits, sizeof w);
        want[le32(f)] += w;
        scale[le32(f)] += fabs(w);
    }
    if (crfp_crf_nlabels(crf) != le32(file + 20))
        fz_fail("import", "not one label per entry of the file's label count");
    double got[2] = {0, 0};
    const double *w = crfp_crf_weights_const(crf);
    uint32_t Y = crfp_crf_nlabels(crf);
    for (uint32_t o = 0; o < crfp_crf_nobs(crf); o++) {
        uint64_t u = crfp_crf_ublock(crf, o), b = crfp_crf_bblock(crf, o);
        for (uint32_t y = 0; u != CRFP_NO_BLOCK && y < Y; y++)
            got[0] += w[u + y];
        for (size_t j = 0; b != CRFP_NO_BLOCK && j < (size_t)(Y + 1) * Y; j++) {
            if (j >= (size_t)Y * Y && w[b + j] != 0.0)
                fz_fail("import", "a start weight, which CRFsuite has not");
            got[1] += w[b + j];
        }
    }
    for (int k = 0; k < 2; k++)
        if (fabs(got[k] - want[k]) > 1e-9 * (1.0 + scale[k]))
            fz_fail("import", k ? "the transition weights do not add up to the file's"
                                : "the state weights do not add up to the file's");
    free(file);

    size_t len1;
    char *d1 = fz_model_dump(crf, &len1);
    /* written for CRFsuite (crfpipe model export) and imported back: the
     * same model, and the written file's hash index finds every string
     * (the import checks it) */
    char exported[600];
    snprintf(exported, sizeof exported, "%s.cs", path);
    if (crfp_crf_export_crfsuite(h, crf, "attributes", "B", exported) != CRFP_OK)
        fz_fail("export of an imported model", crfp_errmsg(h));
    crfp_crf *back = NULL;
    if (crfp_crf_import_crfsuite(h, exported, "attributes", cfg, sizeof cfg - 1, &back) !=
        CRFP_OK)
        fz_fail("import of the exported model", crfp_errmsg(h));
    remove(exported);
    size_t len3;
    char *d3 = fz_model_dump(back, &len3);
    if (len3 != len1 || memcmp(d1, d3, len1) != 0)
        fz_fail("export and import", "the dumps differ");
    free(d3);
    crfp_crf_free(back);
    fz_model_roundtrip(crf, path, d1, len1, "an imported model");
    return 0;
}
