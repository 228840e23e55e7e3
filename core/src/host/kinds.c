/* crfpipe — names of plugin kinds, as used in `crfpipe plugins` and pipelines. */
#include "config.h"
#include "crfpipe/plugin.h"

#include <string.h>

static const char *const kind_names[] = {
    [CRFP_KIND_READER] = "reader",       [CRFP_KIND_WRITER] = "writer",
    [CRFP_KIND_TOKENIZER] = "tokenizer", [CRFP_KIND_FEATURES] = "features",
    [CRFP_KIND_TRAINER] = "trainer",     [CRFP_KIND_TAGGER] = "tagger",
};
enum { NKINDS = sizeof kind_names / sizeof *kind_names };

const char *crfp_kind_name(crfp_kind k)
{
    /* The value may come from an untrusted module, so check before indexing. */
    if ((int)k <= 0 || (int)k >= NKINDS || !kind_names[k])
        return "unknown";
    return kind_names[k];
}

int crfp_kind_parse(const char *name)
{
    if (!name)
        return -1;
    for (int k = 1; k < NKINDS; k++)
        if (kind_names[k] && strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}
