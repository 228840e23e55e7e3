/* Fuzz target: pipeline files (crfp_pipeline_load).
 *
 * The input is written to a temporary file, since pipelines are loaded by
 * path (relative PATH parameters resolve against the file's directory).
 * Loading parses, validates against pipeline.rng, loads the named plugins
 * through the registry and checks every parameter and the order of the
 * stages; it must end in a pipeline or an error with a message, never a
 * crash or a leak.  Nothing is run: running would open files the input
 * names. */
#include "fuzzhost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    const char *path = fz_file("input.xml", data, size);
    crfp_pipeline *p = NULL;
    crfp_status st = crfp_pipeline_load(h, path, &p);
    fz_trace("%s", st == CRFP_OK ? "loaded" : crfp_errmsg(h));
    if (st == CRFP_OK) {
        if (!p)
            fz_fail("crfp_pipeline_load", "OK without a pipeline");
        (void)crfp_pipeline_is_training(p);
    } else if (!crfp_errmsg(h)[0]) {
        fz_fail("crfp_pipeline_load failed without a message", crfp_status_str(st));
    }
    crfp_pipeline_free(p);
    crfp_error_clear(h);
    return 0;
}
