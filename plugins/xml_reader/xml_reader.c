/* xml_reader — reads crfpipe XML corpora (schemas/document.rng), one
 * document at a time; a thin wrapper around crfp_xml_reader. */
#include "config.h"
#include "crfpipe/crfpipe.h"
#include "../common/xmlhead.h"

#include <string.h>

static const crfp_param_spec params[] = {
    {"validate", CRFP_PARAM_BOOL, "false",
     "also check each document against the RELAX NG schema while streaming"},
};

static crfp_status xr_open(crfp_host *host, const crfp_params *p, crfp_stream *in, void **state)
{
    return crfp_xml_reader_open(host, in, crfp_params_bool(p, "validate"),
                                (crfp_xml_reader **)state);
}

static crfp_status xr_next(void *state, crfp_doc **doc)
{
    return crfp_xml_reader_next(state, doc);
}

static void xr_close(void *state)
{
    crfp_xml_reader_close(state);
}

/* --- format detection ------------------------------------------------------
 * Confidence 0..100 that buf (the first bytes of an input, up to 64 KiB) is
 * a crfpipe XML corpus (100 when the first element is <corpus>, 60 for other
 * XML); the reader vtable's probe (ABI 2.1). */
static int xml_reader_probe(const char *buf, size_t len)
{
    size_t at, n;
    int r = xmlhead_root(buf, len, &at, &n);
    if (r <= 0)
        return r < 0 ? 60 : 0;
    const char *colon = memchr(buf + at, ':', n);
    size_t k = colon ? (size_t)(colon - buf) + 1 : at;   /* prefix:corpus */
    return at + n - k == 6 && memcmp(buf + k, "corpus", 6) == 0 ? 100 : 60;
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = xr_open,
    .next = xr_next,
    .close = xr_close,
    .probe = xml_reader_probe,
};

static const char *const formats[] = {"xml", NULL};
static const char *const extensions[] = {".xml", NULL};

CRFP_PLUGIN_DEFINE(xml_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "xml_reader",
    .kind = CRFP_KIND_READER,
    .version = "1.0",
    .description = "crfpipe XML corpus reader (streaming, optional RELAX NG validation)",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
