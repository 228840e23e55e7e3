/* wordshape — a complete, minimal crfpipe plugin (a document stage).
 *
 * It gives every Token a feature "shape" computed from its word: upper-case
 * letters become X, lower-case x, digits d, other ASCII characters stay as
 * they are and any other character becomes u ("McDonald's" -> "XxXx'x" with
 * runs collapsed).  Templates can then use it like any column, e.g.
 * U20:%x[0,shape], and column writers print it as a new last column.
 *
 * Build it outside the crfpipe tree with the installed SDK:
 *     cc -std=c11 -shared -fPIC -o wordshape.so wordshape.c \
 *        $(pkg-config --cflags --libs crfpipe)
 * and use it:
 *     CRFPIPE_PLUGIN_PATH=$PWD crfpipe plugins wordshape
 *     CRFPIPE_PLUGIN_PATH=$PWD crfpipe run shape.xml -i in.conllu -o out.xml
 * where shape.xml is a pipeline (crfpipe-pipeline(5)) with the stages
 * conllu_reader, wordshape and xml_writer.
 *
 * The rules every plugin follows (crfpipe-plugin(3)): the module file name
 * is the plugin's name, a C identifier; the descriptor is exported with
 * CRFP_PLUGIN_DEFINE; errors are returned as crfp_status with a message
 * recorded through crfp_error(); nothing is printed, nothing exits.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include <crfpipe/crfpipe.h>

/* What the host checks the user's parameters against, and what `crfpipe
 * plugins wordshape` shows. */
static const crfp_param_spec params[] = {
    {"from", CRFP_PARAM_STRING, "form", "token feature holding the word (form, word, ...)"},
    {"to", CRFP_PARAM_STRING, "shape", "token feature receiving the shape"},
    {"collapse", CRFP_PARAM_BOOL, "true", "write a run of one class once (Xxxx -> Xx)"},
};

/* The state of one stage: the validated parameters, copied, since the
 * parameter set is only guaranteed during open(). */
typedef struct shaper {
    crfp_host *host;
    char *from, *to;
    int collapse;
} shaper;

static void ws_close(void *state)
{
    shaper *s = state;
    if (!s)
        return;
    free(s->from);
    free(s->to);
    free(s);
}

static crfp_status ws_open(crfp_host *host, const crfp_params *p, void **state)
{
    shaper *s = calloc(1, sizeof *s);
    if (!s)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    s->host = host;
    s->from = strdup(crfp_params_str(p, "from"));
    s->to = strdup(crfp_params_str(p, "to"));
    s->collapse = crfp_params_bool(p, "collapse");
    if (!s->from || !s->to || !*s->to) {
        int empty = s->to && !*s->to;
        ws_close(s);
        return empty ? crfp_error(host, CRFP_EINVAL, "parameter 'to' is empty")
                     : crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    *state = s;
    return CRFP_OK;
}

/* The shape of UTF-8 word w in out (at most cap - 1 classes: longer words
 * are cut, which only makes their shape coarser). */
static void shape_of(const char *w, int collapse, char *out, size_t cap)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)w; *c && n + 1 < cap; c++) {
        char k;
        if ((*c & 0xc0) == 0x80)
            continue; /* continuation byte of a multi-byte character */
        if (*c >= 'A' && *c <= 'Z')
            k = 'X';
        else if (*c >= 'a' && *c <= 'z')
            k = 'x';
        else if (*c >= '0' && *c <= '9')
            k = 'd';
        else if (*c < 0x80)
            k = (char)*c;
        else
            k = 'u';
        if (!collapse || n == 0 || out[n - 1] != k)
            out[n++] = k;
    }
    out[n] = '\0';
}

/* Column writers print the features listed in the document's "columns"
 * metadata: add ours once. */
static crfp_status add_column(shaper *s, crfp_doc *doc)
{
    const char *cols = crfp_doc_meta_str(doc, "columns");
    if (!cols)
        return CRFP_OK;
    size_t tl = strlen(s->to);
    for (const char *c = cols; c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
        if (strncmp(c, s->to, tl) == 0 && (c[tl] == ',' || c[tl] == '\0'))
            return CRFP_OK;
    size_t len = strlen(cols) + tl + 2;
    char *v = malloc(len);
    if (!v)
        return crfp_error(s->host, CRFP_ENOMEM, "out of memory");
    snprintf(v, len, "%s,%s", cols, s->to);
    crfp_status st = crfp_doc_meta_set_str(doc, "columns", v);
    free(v);
    return st == CRFP_OK ? st : crfp_error(s->host, st, "out of memory");
}

static crfp_status ws_process(void *state, crfp_doc *doc)
{
    shaper *s = state;
    crfp_annset *set = crfp_doc_annset(doc, "", 0);
    if (!set)
        return CRFP_OK; /* no annotations, nothing to do */
    char shape[64];
    for (size_t i = 0; i < crfp_annset_size(set); i++) {
        crfp_ann *a = crfp_annset_get(set, i);
        if (strcmp(a->type, "Token") != 0)
            continue;
        const char *word = crfp_ann_str(a, s->from);
        if (!word)
            continue; /* a token without the feature keeps no shape */
        shape_of(word, s->collapse, shape, sizeof shape);
        if (crfp_ann_set_str(doc, a, s->to, shape) != CRFP_OK)
            return crfp_error(s->host, CRFP_ENOMEM, "out of memory");
    }
    /* provenance: who added the feature, with which parameters */
    const char *names[] = {"from", "to", "collapse"};
    const char *values[] = {s->from, s->to, s->collapse ? "true" : "false"};
    if (crfp_annset_add_processor(doc, set, "wordshape", "1.0", names, values, 3) != CRFP_OK)
        return crfp_error(s->host, CRFP_ENOMEM, "out of memory");
    return add_column(s, doc);
}

static const crfp_stage_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = ws_open,
    .process = ws_process,
    .close = ws_close,
};

CRFP_PLUGIN_DEFINE(wordshape) = {
    CRFP_PLUGIN_ABI,
    .name = "wordshape",
    .kind = CRFP_KIND_TOKENIZER, /* a document stage that runs before features */
    .version = "1.0",
    .description = "example plugin: word shape (Xx, d, ...) of every Token as a feature",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .vtable = &vtable,
};
