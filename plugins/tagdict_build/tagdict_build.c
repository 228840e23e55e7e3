/* tagdict_build — the tag dictionary of a training corpus, and jackknifed
 * dictionary features on that corpus for training a tagger that reads them
 * (the stage tagdict writes the same features on new text; see there what
 * they are and why).
 *
 * A tagger-kind stage for training pipelines.  The first document it sees
 * is the training corpus, read as one document (reader parameters
 * batch-bytes=0 and newdoc=false or docstart=false): it counts the gold
 * tags (token feature `label`) of every word (`key`), writes the
 * dictionary to `dict`, and sets on every token the features PREFIX,
 * PREFIXlc and PREFIXtop as tagdict would, but jackknifed: the corpus is
 * cut into `folds` runs of consecutive sentences, and the tokens of each
 * run get what the other runs say.  A word seen once in training then looks
 * as unknown as a new word will when tagging; without the jackknife the
 * tagger would learn to trust classes that are always complete, and they
 * are not on new text.  (Runs of consecutive sentences rather than every
 * k-th sentence keep a document's repeated names in one run, as on new
 * text: 95.45 against 95.41 % on EWT dev.)
 *
 * Documents after the end of the input (the stage's finish), such as the
 * dev set a trainer reads through the same stages after the training data,
 * are looked up in the full dictionary.  A second document before it is an
 * error: the corpus was cut into several (a reader's batches), and a
 * dictionary of its first part would be silently poorer.  The stage keeps
 * state from one document to the next, so it runs documents one at a time
 * (no process_concurrent).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

#include "../common/columns.h"
#include "../common/tdict.h"

static const crfp_param_spec params[] = {
    {"dict", CRFP_PARAM_PATH, NULL, "the tag dictionary file written"},
    {"key", CRFP_PARAM_STRING, "word", "token feature holding the word"},
    {"label", CRFP_PARAM_STRING, "label", "token feature holding the gold tag"},
    {"folds", CRFP_PARAM_INT, "10", "runs of consecutive sentences for the jackknife"},
    {"output", CRFP_PARAM_STRING, "amb",
     "prefix of the features written: PREFIX, PREFIXlc and PREFIXtop"},
    {"unknown", CRFP_PARAM_STRING, "UNK", "the value for a word the dictionary has not got"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
};

typedef struct tb {
    crfp_host *host;
    tdict_conf c;
    char *label;
    char *pending;        /* the dictionary until the end of the input, then renamed */
    size_t folds;
    tdict full;           /* the corpus's dictionary, once built */
    int built, ended;     /* the corpus seen; the end of the input */
    tdict_scratch s;
} tb;

static void tb_close(void *state)
{
    tb *t = state;
    if (!t)
        return;
    tdict_free(&t->full);
    tdict_scratch_free(&t->s);
    if (t->pending)
        remove(t->pending); /* a run that failed leaves no dictionary */
    free(t->pending);
    tdict_conf_close(&t->c);
    free(t->label);
    free(t);
}

static crfp_status tb_open(crfp_host *host, const crfp_params *params, void **state)
{
    int64_t folds = crfp_params_int(params, "folds");
    if (folds < 2 || folds > 1000)
        return crfp_error(host, CRFP_EINVAL,
                          "tagdict_build: folds must be from 2 to 1000, not %lld",
                          (long long)folds);
    tb *t = calloc(1, sizeof *t);
    if (!t)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    crfp_status st = tdict_conf_open(host, "tagdict_build", params, &t->c);
    if (st != CRFP_OK) {
        free(t);
        return st;
    }
    t->host = host;
    t->folds = (size_t)folds;
    size_t pl = strlen(t->c.path) + 16;
    if (!(t->label = strdup(crfp_params_str(params, "label"))) || !(t->pending = malloc(pl))) {
        tb_close(t);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    snprintf(t->pending, pl, "%s.partial", t->c.path);
    tdict_init(&t->full, t->c.lower);
    *state = t;
    return CRFP_OK;
}

static const char *doc_name(crfp_doc *doc)
{
    return crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
}

/* One document's tokens, sentences and strings; freed by work_free. */
typedef struct work {
    crfp_ann **sents, **toks;
    size_t ns, nt;
    const char **word, **tag;  /* per token; tags only for the corpus */
    size_t *fold;              /* per token */
    tdict part;                /* the dictionary of the other runs */
} work;

static void work_free(work *w)
{
    free(w->sents);
    free(w->toks);
    free(w->word);
    free(w->tag);
    free(w->fold);
    tdict_free(&w->part);
}

static crfp_status build(tb *t, crfp_doc *doc, work *w)
{
    crfp_host *host = t->host;
    size_t nt = w->nt, nunits = w->ns ? w->ns : nt;
    for (size_t i = 0; i < nt; i++)
        if (strpbrk(w->word[i], "\t\n") || strpbrk(w->tag[i], "\t\n|") || !*w->tag[i] ||
            !*w->word[i])
            return crfp_error(host, CRFP_EINVAL, "tagdict_build: document '%s', token %zu: an "
                              "empty word or tag, one with a tab or a newline, or a tag with "
                              "a '|' (which joins the tags of a class) cannot be stored in the "
                              "dictionary", doc_name(doc), i + 1);
    if (!(w->fold = malloc(nt * sizeof *w->fold)))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    /* the run of a token is that of its sentence (a token before every
     * sentence goes with the first, one between two with the one before;
     * a document without sentences is cut into runs of tokens) */
    for (size_t i = 0, s = 0; i < nt; i++) {
        while (w->ns && s + 1 < w->ns && w->sents[s + 1]->start <= w->toks[i]->start)
            s++;
        w->fold[i] = (w->ns ? s : i) * t->folds / nunits;
    }
    tdict_init(&w->part, t->c.lower);
    for (size_t k = 0; k < t->folds; k++) {
        tdict_free(&w->part);
        for (size_t i = 0; i < nt; i++)
            if (w->fold[i] != k && tdict_add(&w->part, w->word[i], w->tag[i], 1) != 0)
                return crfp_error(host, CRFP_ENOMEM, "out of memory");
        if (tdict_freeze(&w->part) != 0)
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        tdict_scratch_forget(&t->s); /* a new dictionary, maybe at old addresses */
        for (size_t i = 0; i < nt; i++) {
            if (w->fold[i] != k)
                continue;
            crfp_status st = tdict_put(&w->part, doc, w->toks[i], (const char *const *)t->c.names,
                                       w->word[i], t->c.unknown, &t->s);
            if (st != CRFP_OK)
                return crfp_error(host, st, "tagdict_build: document '%s', token %zu: cannot set "
                                  "its features", doc_name(doc), i + 1);
        }
    }
    tdict_free(&w->part);
    /* the full dictionary refers to the document's strings: copy them out
     * by saving and loading it, which also checks the file as tagdict will
     * read it */
    tdict part;
    tdict_init(&part, t->c.lower);
    for (size_t i = 0; i < nt; i++)
        if (tdict_add(&part, w->word[i], w->tag[i], 1) != 0) {
            tdict_free(&part);
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        }
    int e = tdict_save(&part, t->pending);
    size_t nwords = part.words.n, ntags = part.tags.n;
    tdict_free(&part);
    if (e)
        return crfp_error(host, e == ENOMEM ? CRFP_ENOMEM : CRFP_EIO, "tagdict_build: %s: %s",
                          t->pending, strerror(e));
    char msg[256];
    if (tdict_load(&t->full, t->pending, msg, sizeof msg) != 0)
        return crfp_error(host, strstr(msg, "memory") ? CRFP_ENOMEM : CRFP_EIO,
                          "tagdict_build: %s, read back: %s", t->pending, msg);
    t->built = 1;
    crfp_log(host, CRFP_LOG_INFO, "tagdict_build: %zu tokens, %zu words, %zu tags in %s "
             "(jackknife over %zu runs of sentences)", nt, nwords, ntags, t->c.path, t->folds);
    return CRFP_OK;
}

static crfp_status run(tb *t, crfp_doc *doc, work *w)
{
    crfp_host *host = t->host;
    tdict_scratch_forget(&t->s); /* the scratch outlives documents */
    crfp_annset *set = crfp_doc_annset(doc, t->c.set, 0);
    size_t len = crfp_doc_length(doc);
    crfp_status st = CRFP_OK;
    if (set && (st = crfp_annset_select(set, "Sentence", 0, len, &w->sents, &w->ns)) == CRFP_OK)
        st = crfp_annset_select(set, "Token", 0, len, &w->toks, &w->nt);
    if (st != CRFP_OK)
        return crfp_error(host, st, "tagdict_build: cannot list the annotations of document '%s'",
                          doc_name(doc));
    size_t nt = w->nt;
    if (nt && (!(w->word = malloc(nt * sizeof *w->word)) ||
               !(w->tag = malloc(nt * sizeof *w->tag))))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    for (size_t i = 0; i < nt; i++) {
        w->word[i] = crfp_ann_str(w->toks[i], t->c.key);
        w->tag[i] = t->built ? "" : crfp_ann_str(w->toks[i], t->label);
        if (!w->word[i] || !w->tag[i])
            return crfp_error(host, CRFP_ENOTFOUND, "tagdict_build: document '%s', token %zu: "
                              "no '%s' feature", doc_name(doc), i + 1,
                              w->word[i] ? t->label : t->c.key);
    }
    if (t->built && !t->ended)
        return crfp_error(host, CRFP_EINVAL, "tagdict_build: a second document ('%s') before "
                          "the end of the input: the training corpus must be one document "
                          "(reader parameters batch-bytes=0, and newdoc=false or "
                          "docstart=false)", doc_name(doc));
    if (!t->built && t->ended)
        return crfp_error(host, CRFP_EINVAL, "tagdict_build: document '%s' after the end of the "
                          "input, but no training corpus came before it", doc_name(doc));
    if (!t->built) {
        if (nt == 0)
            return crfp_error(host, CRFP_EINVAL, "tagdict_build: the training corpus (document "
                              "'%s') has no tokens", doc_name(doc));
        return build(t, doc, w);
    }
    for (size_t i = 0; i < nt; i++)
        if ((st = tdict_put(&t->full, doc, w->toks[i], (const char *const *)t->c.names, w->word[i],
                            t->c.unknown, &t->s)) != CRFP_OK)
            return crfp_error(host, st, "tagdict_build: document '%s', token %zu: cannot set its "
                              "features", doc_name(doc), i + 1);
    return CRFP_OK;
}

static crfp_status tb_process(void *state, crfp_doc *doc)
{
    tb *t = state;
    work w = {0};
    crfp_status st = run(t, doc, &w);
    work_free(&w);
    if (st == CRFP_OK && (st = columns_extend(doc, (const char *const *)t->c.names, 3)) != CRFP_OK)
        st = crfp_error(t->host, st, "tagdict_build: document '%s': cannot extend its columns",
                        doc_name(doc));
    return st;
}

/* The end of the input stream: documents from now on (a trainer's dev set)
 * are looked up. */
static crfp_status tb_finish(void *state)
{
    tb *t = state;
    t->ended = 1;
    if (!t->built)
        return crfp_error(t->host, CRFP_EINVAL, "tagdict_build: the input had no document, so "
                          "there is no training corpus to build the dictionary '%s' from",
                          t->c.path);
    /* the whole input was one corpus: the dictionary is complete */
    if (rename(t->pending, t->c.path) != 0)
        return crfp_error(t->host, CRFP_EIO, "tagdict_build: %s: %s", t->c.path,
                          strerror(errno));
    free(t->pending);
    t->pending = NULL;
    return CRFP_OK;
}

static const crfp_stage_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = tb_open,
    .process = tb_process,
    .finish = tb_finish,
    .close = tb_close,
};

CRFP_PLUGIN_DEFINE(tagdict_build) = {
    CRFP_PLUGIN_ABI,
    .name = "tagdict_build",
    .kind = CRFP_KIND_TAGGER,
    .version = "1.0",
    .description = "tag dictionary of a training corpus (read as one document), written to a "
                   "file, with jackknifed dictionary features on the corpus for training; later "
                   "documents (a dev set) are looked up in it",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
