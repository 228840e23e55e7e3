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

/* Since 2.8.  Whether the column list `columns` ("a,b,c") holds only the
 * names a column reader gives when told none (word, col1, col2, ...,
 * label): names that say where a column is, not what it holds.  NULL and
 * "" are not positional. */
int crfp_columns_positional(const char *columns);

/* Since 2.8.  The columns `doc_columns` of a document as a template trained
 * on the named columns `model_columns` (a model's "columns" metadata) reads
 * them: the document's k-th column, when its name is positional
 * (word, colN, label) and differs from the model's k-th, takes the model's
 * k-th name, as Wapiti and CRF++ read a column file by position.  Names the
 * document has elsewhere are not taken (a chained tagger's output column
 * keeps being read by its name), nor names beyond the shorter list.
 * *renamed is a malloc'd list of as many names as doc_columns (caller
 * frees), or NULL when no name changes (either list NULL or empty, the
 * model's columns positional too, nothing positional to rename, or more
 * than 1,024 document columns, which are not renamed).
 * Errors: CRFP_ENOMEM (*renamed NULL). */
crfp_status crfp_columns_as_model(const char *doc_columns, const char *model_columns,
                                  char **renamed);

/* Since 2.8.  Have b present each document's columns as
 * crfp_columns_as_model renames them for `model_columns` (copied; NULL
 * turns it off).  The cells are still looked up under the document's own
 * names; only the sequence's colnames change, so a template's %x[0,pos]
 * finds the second column of a file read without --columns.  Errors:
 * CRFP_ENOMEM (b unchanged). */
crfp_status crfp_sentbuf_read_as(crfp_sentbuf *b, const char *model_columns);

#ifdef __cplusplus
}
#endif
#endif
