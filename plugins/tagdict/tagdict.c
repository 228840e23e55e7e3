/* tagdict — what a tag dictionary says about each word, as token features
 * for a tagger: the word's "ambiguity class" (the set of tags it had in the
 * training data), the same for its lowercased form, and its commonest tag.
 * Neighbours' classes generalise across words where word identities are
 * sparse ("the next word is a NOUN|VERB"); a rare word's class says which
 * tags it can take at all.  Chosen on EWT dev: samples/pos/README.md.
 *
 * A tagger-kind stage: reads the dictionary `dict` (written by the stage
 * tagdict_build from a training corpus) at open, and writes on every Token
 * the features PREFIX (the class: tags sorted and joined by '|'), PREFIXlc
 * (the class of the lowercased word) and PREFIXtop (the commonest tag, ties
 * to the first seen); a word the dictionary has not got gets `unknown`.
 * The word is the token feature `key`; the lowercase is ICU's (root
 * locale).  The model must have been trained on features from
 * tagdict_build, whose jackknife makes them as incomplete as they are on
 * new text.  Errors name the document and the token, or the dictionary
 * file and its line.
 *
 * The same stage reads a lexicon of another corpus (tagdict_build run on
 * it, as samples/pos/lexicon.xml does) under another prefix, e.g.
 * output=lex, in training and tagging pipelines alike: such a lexicon does
 * not come from the training data, so it needs no jackknife, and its tags
 * may be of another tag set (the template treats classes as opaque values).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

#include "../common/columns.h"
#include "../common/tdict.h"

static const crfp_param_spec params[] = {
    {"dict", CRFP_PARAM_PATH, NULL, "the tag dictionary file (written by tagdict_build)"},
    {"key", CRFP_PARAM_STRING, "word", "token feature holding the word"},
    {"output", CRFP_PARAM_STRING, "amb",
     "prefix of the features written: PREFIX, PREFIXlc and PREFIXtop"},
    {"unknown", CRFP_PARAM_STRING, "UNK", "the value for a word the dictionary has not got"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
};

typedef struct td {
    crfp_host *host;
    tdict_conf c;
    tdict dict;
} td;

static void td_close(void *state)
{
    td *t = state;
    if (!t)
        return;
    tdict_free(&t->dict);
    tdict_conf_close(&t->c);
    free(t);
}

static crfp_status td_open(crfp_host *host, const crfp_params *params, void **state)
{
    td *t = calloc(1, sizeof *t);
    if (!t)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    crfp_status st = tdict_conf_open(host, "tagdict", params, &t->c);
    if (st != CRFP_OK) {
        free(t);
        return st;
    }
    t->host = host;
    tdict_init(&t->dict, t->c.lower);
    char msg[256];
    if (tdict_load(&t->dict, t->c.path, msg, sizeof msg) != 0) {
        st = crfp_error(host, strstr(msg, "memory") ? CRFP_ENOMEM : CRFP_EINVAL,
                        "tagdict: %s: %s", t->c.path, msg);
        td_close(t);
        return st;
    }
    *state = t;
    return CRFP_OK;
}

/* Reads only the loaded dictionary, so documents may run concurrently,
 * each with its own scratch space. */
static crfp_status td_process(void *state, crfp_doc *doc)
{
    const td *t = state;
    crfp_annset *set = crfp_doc_annset(doc, t->c.set, 0);
    if (!set)
        return CRFP_OK;
    const char *id = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    crfp_ann **toks = NULL;
    size_t nt = 0;
    crfp_status st = crfp_annset_select(set, "Token", 0, crfp_doc_length(doc), &toks, &nt);
    if (st != CRFP_OK)
        return crfp_error(t->host, st, "tagdict: cannot list the tokens of document '%s'", id);
    tdict_scratch s = {0};
    for (size_t i = 0; i < nt && st == CRFP_OK; i++) {
        const char *w = crfp_ann_str(toks[i], t->c.key);
        if (!w)
            st = crfp_error(t->host, CRFP_ENOTFOUND, "tagdict: document '%s', token %zu: no '%s' "
                            "feature", id, i + 1, t->c.key);
        else if ((st = tdict_put(&t->dict, doc, toks[i], (const char *const *)t->c.names, w,
                                 t->c.unknown, &s)) != CRFP_OK)
            st = crfp_error(t->host, st, "tagdict: document '%s', token %zu: cannot set its "
                            "features", id, i + 1);
    }
    tdict_scratch_free(&s);
    free(toks);
    if (st == CRFP_OK && (st = columns_extend(doc, (const char *const *)t->c.names, 3)) != CRFP_OK)
        st = crfp_error(t->host, st, "tagdict: document '%s': cannot extend its columns", id);
    return st;
}

static const crfp_stage_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = td_open,
    .process = td_process,
    .close = td_close,
    .process_concurrent = td_process,
};

CRFP_PLUGIN_DEFINE(tagdict) = {
    CRFP_PLUGIN_ABI,
    .name = "tagdict",
    .kind = CRFP_KIND_TAGGER,
    .version = "1.0",
    .description = "tag dictionary lookup: each word's ambiguity class (the tags it had in "
                   "training), that of its lowercase and its commonest tag, as token features",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
