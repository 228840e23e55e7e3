/* Fuzz target: feature templates, parsed and applied by the templates
 * plugin, loaded through the host registry like any pipeline stage.
 *
 * The input is a template file (the plugin takes it by path).  When it
 * parses, the extractor runs over a fixed sentence with awkward cells
 * (empty, missing, non-ASCII, regex metacharacters); then the oracle: the
 * configuration it saves (what a model stores) must load again and extract
 * exactly the same observations. */
#include "fuzzhost.h"

#include <stdlib.h>
#include <string.h>

/* word and form both exist because the project's templates use either. */
static const char *const colnames[] = {"word", "form", "pos", "chunk"};
static const char *const cells[] = {
    "Ünïcödé", "ünï",   "NNP",  "B-NP",
    "",        "",      NULL,   "I-NP",
    "a.b*c(",  "a.b",   "[",    NULL,
    "東京😀",  "東京",  "NN",   "O",
    "%x[0,0]", "%",     "\\",   "B-VP",
};
static const crfp_tokseq sent = {5, 4, colnames, cells};

static const crfp_features_vtable *vt;

static void compare(const crfp_obsseq *a, const crfp_obsseq *b)
{
    if (crfp_obsseq_ntok(a) != crfp_obsseq_ntok(b))
        fz_fail("save/load", "token count differs");
    for (size_t t = 0; t < crfp_obsseq_ntok(a); t++) {
        const char *const *sa, *const *sb;
        const unsigned char *fa, *fb;
        size_t na, nb;
        crfp_obsseq_get(a, t, &sa, &fa, &na);
        crfp_obsseq_get(b, t, &sb, &fb, &nb);
        if (na != nb)
            fz_fail("save/load", "observation count differs");
        for (size_t i = 0; i < na; i++)
            if (strcmp(sa[i], sb[i]) || fa[i] != fb[i])
                fz_fail("save/load changed an observation", sa[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    const char *path = fz_file("input.tpl", data, size);
    const char *names[] = {"template"}, *values[] = {path};
    crfp_params *params;
    vt = fz_plugin("templates", CRFP_KIND_FEATURES, names, values, 1, &params);
    void *ex = NULL, *ex2 = NULL;
    crfp_status st = vt->create(h, params, &ex);
    crfp_params_free(params);
    fz_trace("%s", st == CRFP_OK ? "parsed" : crfp_errmsg(h));
    if (st != CRFP_OK) {
        if (!crfp_errmsg(h)[0])
            fz_fail("create failed without a message", crfp_status_str(st));
        crfp_error_clear(h);
        return 0;
    }
    crfp_obsseq *o1 = crfp_obsseq_new(), *o2 = crfp_obsseq_new();
    if (!o1 || !o2)
        fz_fail("set-up", "crfp_obsseq_new");
    crfp_status st1 = vt->extract(ex, &sent, o1);
    char *text = NULL;
    size_t len = 0;
    if (vt->save(ex, &text, &len) != CRFP_OK)
        fz_fail("save", crfp_errmsg(h));
    if (vt->load(h, text, len, "saved.tpl", &ex2) != CRFP_OK) {
        fprintf(stderr, "---- saved:\n%.*s\n----\n", (int)len, text);
        fz_fail("the saved configuration does not load", crfp_errmsg(h));
    }
    crfp_status st2 = vt->extract(ex2, &sent, o2);
    fz_trace("extract: %s, %zu tokens", crfp_status_str(st1), crfp_obsseq_ntok(o1));
    if (st1 != st2)
        fz_fail("save/load", "extract status differs");
    if (st1 == CRFP_OK)
        compare(o1, o2);
    free(text);
    vt->free(ex2);
    vt->free(ex);
    crfp_obsseq_free(o1);
    crfp_obsseq_free(o2);
    crfp_error_clear(h);
    return 0;
}
