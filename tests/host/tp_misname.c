/* Test module: the descriptor claims a name other than the module's. */
#include "crfpipe/plugin.h"

static const crfp_stage_vtable misname_vtable;

CRFP_PLUGIN_DEFINE(tp_misname) = {
    CRFP_PLUGIN_ABI,
    .name = "someone_else",
    .kind = CRFP_KIND_TAGGER,
    .version = "0.1",
    .description = "plugin with a mismatched name",
    .vtable = &misname_vtable,
};
