/* Test module: a tagger whose vtable lacks a required member (process). */
#include "crfpipe/plugin.h"

static crfp_status novt_open(crfp_host *host, const crfp_params *params, void **state)
{
    (void)host, (void)params;
    *state = NULL;
    return CRFP_OK;
}

static void novt_close(void *state)
{
    (void)state;
}

static const crfp_stage_vtable novt_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = novt_open,
    .close = novt_close,
};

CRFP_PLUGIN_DEFINE(tp_novt) = {
    CRFP_PLUGIN_ABI,
    .name = "tp_novt",
    .kind = CRFP_KIND_TAGGER,
    .version = "0.1",
    .description = "tagger without a process function",
    .vtable = &novt_vtable,
};
