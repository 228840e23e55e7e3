/* Sentences with their Tokens, for the line writers (sentwalk.h). */
#include "config.h"

#include <stdlib.h>

#include "sentwalk.h"

crfp_status sentwalk(crfp_host *host, const crfp_doc *doc, crfp_annset *set, sentwalk_fn fn,
                     void *ud)
{
    crfp_ann **sents = NULL, **toks = NULL;
    size_t ns = 0, nt = 0;
    crfp_status st = crfp_annset_select(set, "Sentence", 0, crfp_doc_length(doc), &sents, &ns);
    for (size_t s = 0; s < ns && st == CRFP_OK; s++) {
        free(toks);
        toks = NULL;
        if ((st = crfp_annset_select(set, "Token", sents[s]->start, sents[s]->end, &toks,
                                     &nt)) == CRFP_OK)
            st = fn(ud, doc, s, sents[s], toks, nt);
    }
    free(toks);
    free(sents);
    if (st == CRFP_ENOMEM && !crfp_errmsg(host)[0])   /* the selections record none */
        st = crfp_error(host, st, "out of memory");
    return st;
}

crfp_status sentwalk_out_status(crfp_host *host, crfp_stream *out, int flush)
{
    if ((flush && fflush(out->fp) != 0) || ferror(out->fp))
        return crfp_error(host, CRFP_EIO, "%s: write error", out->name ? out->name : "output");
    return CRFP_OK;
}
