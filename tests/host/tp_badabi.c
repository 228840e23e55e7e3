/* Test module: built for a different (future) plugin ABI. */
#include "crfpipe/plugin.h"

static const crfp_stage_vtable badabi_vtable;

CRFP_PLUGIN_DEFINE(tp_badabi) = {
    .abi_major = CRFP_ABI_MAJOR + 41,
    .abi_minor = 0,
    .name = "tp_badabi",
    .kind = CRFP_KIND_TAGGER,
    .version = "0.1",
    .description = "plugin of another ABI",
    .vtable = &badabi_vtable,
};
