/* Test module: a kind this host does not know. */
#include "crfpipe/plugin.h"

static const crfp_stage_vtable badkind_vtable;

CRFP_PLUGIN_DEFINE(tp_badkind) = {
    CRFP_PLUGIN_ABI,
    .name = "tp_badkind",
    .kind = (crfp_kind)99,
    .version = "0.1",
    .description = "plugin of an unknown kind",
    .vtable = &badkind_vtable,
};
