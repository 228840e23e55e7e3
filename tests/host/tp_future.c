/* Test module: built for a newer minor ABI than the host knows (it may use
 * members this host would never fill in or read). */
#include "crfpipe/plugin.h"

static const crfp_stage_vtable future_vtable;

CRFP_PLUGIN_DEFINE(tp_future) = {
    .abi_major = CRFP_ABI_MAJOR,
    .abi_minor = CRFP_ABI_MINOR + 1,
    .name = "tp_future",
    .kind = CRFP_KIND_TAGGER,
    .version = "0.1",
    .description = "plugin of a newer minor ABI",
    .vtable = &future_vtable,
};
