/* crfpipe — documents seen as sequences of tokens, for features, trainers
 * and taggers.
 *
 * A sequence is the Token annotations inside one Sentence annotation of an
 * annotation set (or, in a document without sentences, all its Tokens).
 * Its columns are the document's "columns" metadata when present (column
 * readers record it; taggers append their outputs), else the tokens' string
 * features in order of first appearance in the sentence.  A reader may name
 * in "default-label" the column a trainer learns when told no label
 * (CoNLL-U: upos); without it the trainer takes the last column.
 */
#ifndef CRFPIPE_TOKSEQ_H
#define CRFPIPE_TOKSEQ_H

#include "crfpipe/status.h"
#include "crfpipe/plugin.h"
#include "crfpipe/document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sentences of `set` (the default set "" when NULL) in text order.
 * *sents is malloc'd (caller frees; NULL when *n == 0).  A document with
 * Tokens but no Sentence yields one pseudo-sentence: *sents[0] == NULL.
 * The sentences are the document's; a missing set yields none.  Errors:
 * CRFP_ENOMEM only (message in host). */
crfp_status crfp_doc_sentences(crfp_host *host, crfp_doc *doc, const char *set,
                               crfp_ann ***sents, size_t *n);

/* Reusable buffer turning one sentence into a crfp_tokseq, owned by the
 * caller; crfp_sentbuf_free accepts NULL. */
typedef struct crfp_sentbuf crfp_sentbuf;
crfp_sentbuf *crfp_sentbuf_new(void);   /* NULL on ENOMEM */
void crfp_sentbuf_free(crfp_sentbuf *b);

/* Fill `b` from `sentence` (NULL = every Token of the set) of `doc`.
 * *seq and *tokens (ntok annotation pointers) are owned by b and valid until
 * its next fill; cells point into the document.  tokens may be NULL; a
 * missing set gives an empty sequence.  Errors: CRFP_ENOMEM only (message
 * in host). */
crfp_status crfp_sentbuf_fill(crfp_host *host, crfp_sentbuf *b, crfp_doc *doc, const char *set,
                              crfp_ann *sentence, const crfp_tokseq **seq, crfp_ann ***tokens);

/* Same from an explicit, ordered token array (e.g. a slice of one
 * crfp_annset_select over the whole document).  Reads the document only,
 * so threads may call it concurrently on distinct buffers.  The ntok
 * pointers are copied into b.  Errors: CRFP_ENOMEM only (message in host). */
crfp_status crfp_sentbuf_fill_tokens(crfp_host *host, crfp_sentbuf *b, const crfp_doc *doc,
                                     crfp_ann *const *toks, size_t ntok,
                                     const crfp_tokseq **seq);

/* Index of column `name` in seq, or -1.  name must not be NULL. */
int crfp_tokseq_col(const crfp_tokseq *seq, const char *name);

#ifdef __cplusplus
}
#endif
#endif
