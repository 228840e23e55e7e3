/* docmem FILE [READER [COLUMNS]] — what documents cost per token.
 *
 * Reads FILE with a reader plugin (default conll_reader) one document at a
 * time, as the pipeline does, and prints the bytes each document holds
 * (crfp_doc_memory: arena, arrays, text, the input buffer it adopted) per
 * token, the largest document, and how many documents there were.  With
 * the environment variable DOCMEM_COUNT_ONLY set, only the token count is
 * printed (the benchmark divides a malloc count by it).
 *
 * A malloc count per token comes from outside this program (valgrind's
 * "total heap usage" over a crfpipe run, bench/stream.sh): counting inside
 * would need an allocator hook that libcrfpipe does not offer. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

static int die(crfp_host *h, const char *what)
{
    fprintf(stderr, "docmem: %s: %s\n", what, crfp_errmsg(h));
    return 1;
}

static size_t count_tokens(crfp_doc *d)
{
    size_t n = 0;
    for (size_t s = 0; s < crfp_doc_annset_count(d); s++) {
        const crfp_annset *set = crfp_doc_annset_at(d, s);
        for (size_t i = 0; i < crfp_annset_size(set); i++)
            n += strcmp(crfp_annset_get(set, i)->type, "Token") == 0;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: docmem FILE [READER [COLUMNS]]\n");
        return 2;
    }
    const char *reader = argc > 2 ? argv[2] : "conll_reader";
    const char *columns = argc > 3 ? argv[3] : NULL;
    crfp_host *h = crfp_host_new();
    if (!h)
        return 1;
    const crfp_plugin *rp;
    if (crfp_host_load_kind(h, reader, CRFP_KIND_READER, &rp) != CRFP_OK)
        return die(h, "reader");
    crfp_params *rpar = crfp_params_new(rp->desc->params, rp->desc->nparams);
    if (!rpar ||
        (columns && crfp_params_set(h, rpar, "docmem", "columns", columns, NULL) != CRFP_OK))
        return die(h, "columns");
    crfp_stream in = {fopen(argv[1], "rb"), argv[1]};
    if (!in.fp) {
        perror(argv[1]);
        return 1;
    }
    const crfp_reader_vtable *rv = rp->desc->vtable;
    void *rs;
    if (rv->open(h, rpar, &in, &rs) != CRFP_OK)
        return die(h, "open");
    size_t ndocs = 0, ntok = 0, bytes = 0, maxdoc = 0, maxtok = 0;
    for (;;) {
        crfp_doc *d;
        if (rv->next(rs, &d) != CRFP_OK)
            return die(h, "read");
        if (!d)
            break;
        size_t m = crfp_doc_memory(d), t = count_tokens(d);
        bytes += m;
        ntok += t;
        if (m > maxdoc) {
            maxdoc = m;
            maxtok = t;
        }
        ndocs++;
        crfp_doc_free(d);
    }
    rv->close(rs);
    fclose(in.fp);
    crfp_params_free(rpar);
    if (getenv("DOCMEM_COUNT_ONLY"))
        printf("%zu\n", ntok);
    else
        printf("documents: %zu, tokens: %zu, bytes per token: %.1f, largest document: %.2f MB "
               "(%zu tokens)\n",
               ndocs, ntok, ntok ? (double)bytes / (double)ntok : 0.0, maxdoc / 1048576.0,
               maxtok);
    crfp_host_free(h);
    return 0;
}
