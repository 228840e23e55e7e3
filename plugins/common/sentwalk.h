/* The walk of the writers that write a document sentence by sentence
 * (crfsuite_writer, wapiti_writer): each Sentence of a set, in text order,
 * with the Tokens inside it; and the end of their output. */
#ifndef CRFP_SENTWALK_H
#define CRFP_SENTWALK_H

#include "colio.h"

/* Called for sentence s (0-based) with its ntok Tokens, in order. */
typedef crfp_status (*sentwalk_fn)(void *ud, const crfp_doc *doc, size_t s,
                                   const crfp_ann *sentence, crfp_ann *const *toks, size_t ntok);

/* fn for every Sentence of set; stops at the first status that is not
 * CRFP_OK and returns it.  CRFP_ENOMEM of the selections is recorded in
 * host as "out of memory". */
COLIO_HIDDEN crfp_status sentwalk(crfp_host *host, const crfp_doc *doc, crfp_annset *set,
                                  sentwalk_fn fn, void *ud);

/* After a document's lines: CRFP_EIO "NAME: write error" when the stream
 * had one, with flush also when flushing fails; else CRFP_OK. */
COLIO_HIDDEN crfp_status sentwalk_out_status(crfp_host *host, crfp_stream *out, int flush);

#endif
