/* tdict_stage — what the tagdict and tagdict_build stages share: their
 * settings, and setting a token's three features with values interned in
 * the document.  See tdict.h. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "tdict.h"

/* The document's interned copy of v, a string of the dictionary (or the
 * unknown value), through the scratch's map by address. */
static const char *intern(tdict_scratch *s, crfp_doc *doc, const char *v)
{
    if (s->doc != doc) {
        tdict_pairs_free(&s->seen);
        s->n = 0;
        s->doc = doc;
    }
    uint64_t key = (uint64_t)(uintptr_t)v;
    long at = tdict_pairs_find(&s->seen, key);
    if (at >= 0)
        return s->to[at];
    const char *in = crfp_doc_intern(doc, v);
    if (!in || s->n > UINT32_MAX)
        return NULL;
    if (s->n == s->tocap) {
        size_t nc = s->tocap ? 2 * s->tocap : 16;
        const char **to = realloc(s->to, nc * sizeof *to);
        if (!to)
            return NULL;
        s->to = to;
        s->tocap = nc;
    }
    if (tdict_pairs_put(&s->seen, key, (uint32_t)s->n) != 0)
        return NULL;
    s->to[s->n++] = in;
    return in;
}

crfp_status tdict_put(const tdict *d, crfp_doc *doc, crfp_ann *ann, const char *const names[3],
                      const char *word, const char *unknown, tdict_scratch *s)
{
    const char *v[3];
    if (tdict_lookup(d, word, unknown, s, &v[0], &v[1], &v[2]) != 0)
        return CRFP_ENOMEM;
    for (int i = 0; i < 3; i++)
        if (!(v[i] = intern(s, doc, v[i])))
            return CRFP_ENOMEM;
    return crfp_ann_set_strs_ref(doc, ann, names, v, NULL, 3);
}

void tdict_conf_close(tdict_conf *c)
{
    if (c->lower)
        ucasemap_close(c->lower);
    free(c->path);
    free(c->key);
    free(c->set);
    free(c->unknown);
    for (int i = 0; i < 3; i++)
        free(c->names[i]);
    memset(c, 0, sizeof *c);
}

crfp_status tdict_conf_open(crfp_host *host, const char *stage, const crfp_params *params,
                            tdict_conf *c)
{
    memset(c, 0, sizeof *c);
    const char *out = crfp_params_str(params, "output"), *path = crfp_params_str(params, "dict");
    if (!path || !*path)
        return crfp_error(host, CRFP_EINVAL, "%s: the parameter 'dict' (a file) is required",
                          stage);
    if (!*out || strlen(out) > 200)
        return crfp_error(host, CRFP_EINVAL, "%s: output must be a name of 1 to 200 bytes",
                          stage);
    UErrorCode err = U_ZERO_ERROR;
    if (!(c->path = strdup(path)) || !(c->key = strdup(crfp_params_str(params, "key"))) ||
        !(c->set = strdup(crfp_params_str(params, "set"))) ||
        !(c->unknown = strdup(crfp_params_str(params, "unknown"))) ||
        !(c->names[0] = strdup(out)) || !(c->names[1] = columns_name(out, "lc")) ||
        !(c->names[2] = columns_name(out, "top"))) {
        tdict_conf_close(c);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    c->lower = ucasemap_open("", 0, &err);
    if (U_FAILURE(err)) {
        tdict_conf_close(c);
        return crfp_error(host, CRFP_EINVAL, "%s: ICU lowercasing: %s", stage, u_errorName(err));
    }
    return CRFP_OK;
}
