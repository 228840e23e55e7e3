/* Test module: a well-formed tagger plugin with parameters and hooks. */
#include "crfpipe/plugin.h"

static crfp_status good_open(crfp_host *host, const crfp_params *params, void **state)
{
    (void)host;
    (void)params;
    *state = NULL;
    return CRFP_OK;
}

static crfp_status good_process(void *state, crfp_doc *doc)
{
    (void)state;
    (void)doc;
    return CRFP_OK;
}

static void good_close(void *state)
{
    (void)state;
}

static const crfp_stage_vtable good_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = good_open,
    .process = good_process,
    .close = good_close,
};

static const crfp_param_spec good_params[] = {
    {"label", CRFP_PARAM_STRING, "O", "label given to every token"},
    {"count", CRFP_PARAM_INT, "3", "how many"},
    {"rho1", CRFP_PARAM_FLOAT, NULL, "an l1 weight without default"},
};

static crfp_status good_init(crfp_host *host)
{
    crfp_log(host, CRFP_LOG_DEBUG, "tp_good: init");
    return CRFP_OK;
}

CRFP_PLUGIN_DEFINE(tp_good) = {
    CRFP_PLUGIN_ABI,
    .name = "tp_good",
    .kind = CRFP_KIND_TAGGER,
    .version = "1.2",
    .description = "well-formed test plugin",
    .params = good_params,
    .nparams = sizeof good_params / sizeof *good_params,
    .vtable = &good_vtable,
    .init = good_init,
    .fini = NULL,
};
