/* Fuzz target: the Wapiti model importer (crfp_crf_import_wapiti,
 * core/src/crf/import_wapiti.c), a parser of counts, netstrings and weight
 * indexes, and the templates plugin's Wapiti dialect that runs the
 * imported patterns.
 *
 * The input is a whole Wapiti model file.  Oracle: a model that imports
 * holds, over all its weights, the sum of the file's weight lines
 * ("INDEX=WEIGHT", read here independently of the importer: no other line
 * of the format can look like one), and no start weight (Wapiti has none);
 * its patterns, as the templates plugin's configuration, load and extract
 * on a fixed sentence or fail with a message (as `crfpipe model import`
 * checks them); and it saves, loads and dumps the same.
 */
#include "fuzzhost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    /* as for CRFsuite's models: what an input may make the importer
     * allocate stays within the fuzzer's memory */
    if (crfp_host_set_limits(h, "model-params=4M,regex-time=10") != CRFP_OK)
        fz_fail("set-up: limit refused", crfp_errmsg(h));
    if (size > (1u << 20))
        return 0;
    const char *path = fz_file("wapiti-model", data, size);
    crfp_crf *crf = NULL;
    static const crfp_wapiti_features fx = {
        .patterns = "templates", .patterns_head = "#!columns\n# fuzz\n#!wapiti\n",
        .patterns_me_head = "#!columns\n# fuzz\n#!wapiti-me\n",
        .raw = "attributes", .raw_config = "columns=attrs\nbigram=wapiti\n",
        .me_config = "columns=attrs\nbigram=wapiti-me\n",
    };
    crfp_status st = crfp_crf_import_wapiti(h, path, &fx, &crf);
    if (!fz_imported(st)) {
        return 0;
    }
    /* the file's weight lines, summed */
    double want = 0, scale = 0;
    for (size_t i = 0; i < size;) {
        size_t j = i;
        while (j < size && data[j] != '\n')
            j++;
        size_t d = i;
        while (d < j && data[d] >= '0' && data[d] <= '9')
            d++;
        if (d > i && d < j && data[d] == '=') {
            char tmp[64];
            size_t n = j - d - 1 < sizeof tmp - 1 ? j - d - 1 : sizeof tmp - 1;
            memcpy(tmp, data + d + 1, n);
            tmp[n] = '\0';
            if (n && tmp[n - 1] == '\r')
                tmp[n - 1] = '\0';
            double v = strtod(tmp, NULL);
            want += v;
            scale += fabs(v);
        }
        i = j + 1;
    }
    const double *w = crfp_crf_weights_const(crf);
    uint32_t Y = crfp_crf_nlabels(crf);
    double got = 0;
    for (uint32_t o = 0; o < crfp_crf_nobs(crf); o++) {
        uint64_t u = crfp_crf_ublock(crf, o), b = crfp_crf_bblock(crf, o);
        for (uint32_t y = 0; u != CRFP_NO_BLOCK && y < Y; y++)
            got += w[u + y];
        for (size_t j = 0; b != CRFP_NO_BLOCK && j < (size_t)(Y + 1) * Y; j++) {
            if (j >= (size_t)Y * Y && w[b + j] != 0.0)
                fz_fail("import", "a start weight, which Wapiti has not");
            got += w[b + j];
        }
    }
    if (fabs(got - want) > 1e-9 * (1.0 + scale))
        fz_fail("import", "the weights do not add up to the file's weight lines");

    /* a model with patterns: the templates plugin runs them (one without
     * is the attributes plugin's, whose configuration is fixed) */
    if (strcmp(crfp_crf_features_plugin(crf), "templates") == 0)
        fz_template_config(crf, path);

    size_t len1;
    char *d1 = fz_model_dump(crf, &len1);
    fz_model_roundtrip(crf, path, d1, len1, "an imported Wapiti model");
    return 0;
}
