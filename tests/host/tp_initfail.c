/* Test module: its init hook refuses to start, as a plugin missing a
 * resource would. */
#include "crfpipe/plugin.h"

static const crfp_stage_vtable initfail_vtable;

static crfp_status initfail_init(crfp_host *host)
{
    return crfp_error(host, CRFP_EIO, "tp_initfail: resource table missing");
}

CRFP_PLUGIN_DEFINE(tp_initfail) = {
    .abi_version = CRFP_ABI_VERSION,
    .name = "tp_initfail",
    .kind = CRFP_KIND_TAGGER,
    .version = "0.1",
    .description = "plugin whose init fails",
    .vtable = &initfail_vtable,
    .init = initfail_init,
};
