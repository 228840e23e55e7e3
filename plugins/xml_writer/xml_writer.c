/* xml_writer — writes crfpipe XML corpora (schemas/document.rng), each
 * document as it arrives; a thin wrapper around crfp_xml_writer. */
#include "config.h"
#include "crfpipe/crfpipe.h"

static crfp_status xw_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    (void)p;
    return crfp_xml_writer_open(host, out, (crfp_xml_writer **)state);
}

static crfp_status xw_write(void *state, const crfp_doc *doc)
{
    return crfp_xml_writer_write(state, doc);
}

static crfp_status xw_finish(void *state)
{
    return crfp_xml_writer_finish(state);
}

static void xw_close(void *state)
{
    crfp_xml_writer_close(state);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = xw_open,
    .write = xw_write,
    .finish = xw_finish,
    .close = xw_close,
};

static const char *const formats[] = {"xml", NULL};
static const char *const extensions[] = {".xml", NULL};

CRFP_PLUGIN_DEFINE(xml_writer) = {
    CRFP_PLUGIN_ABI,
    .name = "xml_writer",
    .kind = CRFP_KIND_WRITER,
    .version = "1.0",
    .description = "crfpipe XML corpus writer (lossless: text, meta, sets, typed features)",
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
