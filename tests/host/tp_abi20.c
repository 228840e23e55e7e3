/* Test module: a reader built against plugin ABI 2.0, as an older header
 * would have compiled it: its vtable has no `probe` (added in 2.1) and its
 * recorded size says so.  A 2.1 host must load it and never read past that
 * size. */
#define CRFP_ABI_TARGET_MINOR 0
#include "crfpipe/plugin.h"

static crfp_status old_open(crfp_host *host, const crfp_params *params, crfp_stream *in,
                            void **state)
{
    (void)host, (void)params, (void)in;
    *state = NULL;
    return CRFP_OK;
}

static crfp_status old_next(void *state, crfp_doc **doc)
{
    (void)state;
    *doc = NULL;
    return CRFP_OK;
}

static void old_close(void *state)
{
    (void)state;
}

static const crfp_reader_vtable old_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = old_open,
    .next = old_next,
    .close = old_close,
};

static const char *const formats[] = {"tp-old", NULL};
static const char *const extensions[] = {".tpold", NULL};

CRFP_PLUGIN_DEFINE(tp_abi20) = {
    CRFP_PLUGIN_ABI,
    .name = "tp_abi20",
    .kind = CRFP_KIND_READER,
    .version = "0.1",
    .description = "reader built against ABI 2.0",
    .vtable = &old_vtable,
    .formats = formats,
    .extensions = extensions,
};
