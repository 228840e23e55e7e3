/* Test module: its init hook refuses to start, as a plugin missing a
 * resource would. */
#include "crfpipe/plugin.h"

static crfp_status initfail_open(crfp_host *host, const crfp_params *params, void **state)
{
    (void)host, (void)params;
    *state = NULL;
    return CRFP_OK;
}

static crfp_status initfail_process(void *state, crfp_doc *doc)
{
    (void)state, (void)doc;
    return CRFP_OK;
}

static void initfail_close(void *state)
{
    (void)state;
}

static const crfp_stage_vtable initfail_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = initfail_open,
    .process = initfail_process,
    .close = initfail_close,
};

static crfp_status initfail_init(crfp_host *host)
{
    return crfp_error(host, CRFP_EIO, "tp_initfail: resource table missing");
}

CRFP_PLUGIN_DEFINE(tp_initfail) = {
    CRFP_PLUGIN_ABI,
    .name = "tp_initfail",
    .kind = CRFP_KIND_TAGGER,
    .version = "0.1",
    .description = "plugin whose init fails",
    .vtable = &initfail_vtable,
    .init = initfail_init,
};
