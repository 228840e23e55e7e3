/* Reads tests/conll/docstart.conll and the EWT sample through the reader
 * plugins and checks the documents they build: how the file splits into
 * documents, sentences and tokens, the column features, UTF-16 offsets of
 * non-ASCII words, and that multiword ranges and empty nodes are kept out
 * of the Tokens. */
#include "config.h"
#include "crfpipe/crfpipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

typedef struct docs {
    crfp_doc *d[256];
    size_t n;
} docs;

/* kv: NULL, or name, value, name, value, ..., NULL. */
static int read_all_kv(crfp_host *host, const char *plugin, const char *path,
                       const char *const *kv, docs *out)
{
    const crfp_plugin *pl;
    if (crfp_host_load_kind(host, plugin, CRFP_KIND_READER, &pl) != CRFP_OK) {
        fprintf(stderr, "load %s: %s\n", plugin, crfp_errmsg(host));
        return -1;
    }
    crfp_params *p = crfp_params_new(pl->desc->params, pl->desc->nparams);
    if (!p)
        return -1;
    for (size_t i = 0; kv && kv[i]; i += 2)
        if (crfp_params_set(host, p, "test", kv[i], kv[i + 1], NULL) != CRFP_OK) {
            crfp_params_free(p);
            return -1;
        }
    crfp_stream in = {fopen(path, "rb"), path};
    if (!in.fp) {
        perror(path);
        return -1;
    }
    const crfp_reader_vtable *v = pl->desc->vtable;
    void *st;
    int rc = 0;
    out->n = 0;
    if (v->open(host, p, &in, &st) != CRFP_OK) {
        rc = -1;
    } else {
        for (;;) {
            crfp_doc *d;
            if (v->next(st, &d) != CRFP_OK) {
                fprintf(stderr, "%s\n", crfp_errmsg(host));
                rc = -1;
                break;
            }
            if (!d)
                break;
            if (out->n == sizeof out->d / sizeof *out->d) {
                crfp_doc_free(d);
                rc = -1;
                break;
            }
            out->d[out->n++] = d;
        }
        v->close(st);
    }
    fclose(in.fp);
    crfp_params_free(p);
    return rc;
}

static int read_all(crfp_host *host, const char *plugin, const char *path, const char *pname,
                    const char *pvalue, docs *out)
{
    const char *kv[] = {pname, pvalue, NULL};
    return read_all_kv(host, plugin, path, pname ? kv : NULL, out);
}

static void free_docs(docs *ds)
{
    for (size_t i = 0; i < ds->n; i++)
        crfp_doc_free(ds->d[i]);
    ds->n = 0;
}

static size_t count_type(crfp_doc *d, const char *type)
{
    crfp_annset *set = crfp_doc_annset(d, "", 0);
    size_t n = 0;
    for (size_t i = 0; set && i < crfp_annset_size(set); i++)
        n += strcmp(crfp_annset_get(set, i)->type, type) == 0;
    return n;
}

static void check_conll(crfp_host *host, const char *srcdir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/conll/docstart.conll", srcdir);
    docs ds;
    CHECK(read_all(host, "conll_reader", path, "columns", "word,pos,chunk,ner", &ds) == 0);
    CHECK(ds.n == 3);
    if (ds.n != 3)
        return;
    size_t len;
    const char *text = crfp_doc_text(ds.d[0], &len);
    CHECK(strcmp(text, "Alice visited Zürich .\nShe liked it .") == 0);
    CHECK(count_type(ds.d[0], "Sentence") == 2);
    CHECK(count_type(ds.d[0], "Token") == 8);
    CHECK(strcmp(crfp_doc_meta_str(ds.d[0], "format"), "conll") == 0);
    CHECK(strcmp(crfp_doc_meta_str(ds.d[0], "columns"), "word,pos,chunk,ner") == 0);
    CHECK(strcmp(crfp_doc_meta_str(ds.d[0], "header"), "-DOCSTART- -X- -X- O\n\n") == 0);

    crfp_annset *set = crfp_doc_annset(ds.d[0], "", 0);
    CHECK(set != NULL);
    if (set) {
        /* Tokens follow their Sentence in insertion order: index 3 is "Zürich"
         * (offsets in UTF-16 units: ü is one unit, two bytes). */
        crfp_ann *z = crfp_annset_get(set, 3);
        CHECK(strcmp(z->type, "Token") == 0);
        CHECK(strcmp(crfp_ann_str(z, "word"), "Zürich") == 0);
        CHECK(strcmp(crfp_ann_str(z, "ner"), "B-LOC") == 0);
        CHECK(z->start == 14 && z->end == 20);
        size_t np;
        const crfp_processor *pr = crfp_annset_processors(set, &np);
        CHECK(np == 1 && strcmp(pr[0].plugin, "conll_reader") == 0);
    }

    /* "𝄞" is outside the BMP: two UTF-16 units, so "clef" starts at 7. */
    set = crfp_doc_annset(ds.d[1], "", 0);
    CHECK(count_type(ds.d[1], "Sentence") == 2);
    if (set) {
        crfp_ann *clef = crfp_annset_get(set, 3);
        CHECK(strcmp(crfp_ann_str(clef, "word"), "clef") == 0);
        CHECK(clef->start == 7 && clef->end == 11);
        /* The two blank lines before "Acme" are recorded on its sentence. */
        crfp_ann *s2 = crfp_annset_get(set, 5);
        CHECK(strcmp(s2->type, "Sentence") == 0);
        CHECK(crfp_ann_str(s2, "before") && strcmp(crfp_ann_str(s2, "before"), "\n\n") == 0);
    }
    CHECK(count_type(ds.d[2], "Token") == 2);
    CHECK(strcmp(crfp_doc_meta_str(ds.d[2], "trailer"), "\n") == 0);
    free_docs(&ds);

    /* Default column names: word, col1.., label. */
    CHECK(read_all(host, "conll_reader", path, NULL, NULL, &ds) == 0);
    CHECK(ds.n == 3 && strcmp(crfp_doc_meta_str(ds.d[0], "columns"), "word,col1,col2,label") == 0);
    free_docs(&ds);

    /* Without DOCSTART handling, -DOCSTART- lines are tokens of one document. */
    CHECK(read_all(host, "conll_reader", path, "docstart", "false", &ds) == 0);
    CHECK(ds.n == 1 && count_type(ds.d[0], "Sentence") == 8);
    free_docs(&ds);

    CHECK(read_all(host, "conll_reader", path, "max-sentences", "1", &ds) == 0);
    CHECK(ds.n == 5);
    free_docs(&ds);

    /* Batches of at most 1 byte: every sentence of a -DOCSTART- document
     * after the first continues it in a new document (d1, d1.2, d2, ...),
     * which keeps the document's columns and has no header of its own. */
    const char *tiny[] = {"batch-bytes", "1", "columns", "word,pos,chunk,ner", NULL};
    CHECK(read_all_kv(host, "conll_reader", path, tiny, &ds) == 0);
    CHECK(ds.n == 5);
    if (ds.n == 5) {
        static const char *const ids[] = {"d1", "d1.2", "d2", "d2.2", "d3"};
        for (size_t i = 0; i < 5; i++) {
            CHECK(strcmp(crfp_doc_id(ds.d[i]), ids[i]) == 0);
            CHECK(count_type(ds.d[i], "Sentence") == 1);
            CHECK(strcmp(crfp_doc_meta_str(ds.d[i], "columns"), "word,pos,chunk,ner") == 0);
        }
        CHECK(crfp_doc_meta_str(ds.d[0], "header") != NULL);
        CHECK(crfp_doc_meta_str(ds.d[1], "header") == NULL);
        /* the blank lines between the parts end the first one */
        CHECK(strcmp(crfp_doc_meta_str(ds.d[0], "trailer"), "\n") == 0);
        CHECK(strcmp(crfp_doc_meta_str(ds.d[2], "trailer"), "\n\n") == 0);
    }
    free_docs(&ds);
}

static void check_conllu(crfp_host *host, const char *srcdir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/ewt-sample.conllu", srcdir);
    docs ds;
    /* One document for the whole file, to count everything at once. */
    const char *one[] = {"newdoc", "false", "batch-bytes", "0", NULL};
    CHECK(read_all_kv(host, "conllu_reader", path, one, &ds) == 0);
    CHECK(ds.n == 1);
    if (ds.n != 1)
        return;
    crfp_doc *d = ds.d[0];
    CHECK(count_type(d, "Sentence") == 49);
    CHECK(count_type(d, "MultiWordToken") == 22);
    CHECK(count_type(d, "EmptyNode") == 1);
    /* Every Token is a word with an integer id; ranges and empty nodes are not. */
    crfp_annset *set = crfp_doc_annset(d, "", 0);
    size_t words = 0;
    for (size_t i = 0; set && i < crfp_annset_size(set); i++) {
        crfp_ann *a = crfp_annset_get(set, i);
        if (strcmp(a->type, "Token") != 0)
            continue;
        words++;
        const char *id = crfp_ann_str(a, "id");
        CHECK(id && strspn(id, "0123456789") == strlen(id));
        CHECK(crfp_ann_str(a, "upos") != NULL);
    }
    CHECK(words == 1179);
    size_t len;
    const char *text = crfp_doc_text(d, &len);
    CHECK(strncmp(text, "From the AP comes this story :\n", 31) == 0);
    free_docs(&ds);

    CHECK(read_all(host, "conllu_reader", path, NULL, NULL, &ds) == 0);
    CHECK(ds.n == 7);
    if (ds.n > 0)
        CHECK(strcmp(crfp_doc_id(ds.d[0]),
                     "weblog-blogspot.com_nominations_20041117172713_ENG_20041117_172713") == 0);
    free_docs(&ds);

    /* Batches: a document longer than batch-bytes continues in documents
     * ID.2, ID.3... cut between sentences; together they hold exactly what
     * the single document held, and each stays near the batch size. */
    const char *small[] = {"newdoc", "false", "batch-bytes", "4096", NULL};
    CHECK(read_all_kv(host, "conllu_reader", path, small, &ds) == 0);
    CHECK(ds.n > 10);
    size_t sents = 0;
    words = 0;
    for (size_t i = 0; i < ds.n; i++) {
        sents += count_type(ds.d[i], "Sentence");
        words += count_type(ds.d[i], "Token");
        /* the id of the first part is the file's "# newdoc id" */
        char want[128];
        snprintf(want, sizeof want, "%s.%zu", crfp_doc_id(ds.d[0]), i + 1);
        CHECK(i == 0 || strcmp(crfp_doc_id(ds.d[i]), want) == 0);
        size_t len;
        crfp_doc_text(ds.d[i], &len);
        CHECK(len < 4096);
        /* only the first batch has the file's header, only the last its trailer */
        CHECK(i == 0 || !crfp_doc_meta_str(ds.d[i], "header"));
    }
    CHECK(sents == 49 && words == 1179);
    free_docs(&ds);
}

int main(void)
{
    const char *srcdir = getenv("top_srcdir");
    if (!srcdir)
        srcdir = CRFP_ABS_SRCDIR;
    crfp_host *host = crfp_host_new();
    if (!host)
        return 99;
    check_conll(host, srcdir);
    check_conllu(host, srcdir);
    crfp_host_free(host);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
