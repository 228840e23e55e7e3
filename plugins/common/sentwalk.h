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

/* A column file's line made again from a document's columns: those of
 * its "columns" metadata but a prediction's (PRED and PRED-...), when its
 * reader was a column reader (metadata format "conll"), with the file's
 * separator (metadata "separator": tab or space).  What wapiti_writer and
 * crfpp_writer echo before the label, as wapiti label and crf_test echo
 * the lines they read. */
typedef struct linecols {
    char **names;   /* NULL, n = 0: not a column file's document */
    size_t n;
    char sep;       /* the file's separator, ' ' or '\t' */
} linecols;

/* Whether the len bytes at name are PRED or PRED-... */
COLIO_HIDDEN int linecols_is_prediction(const char *pred, const char *name, size_t len);

/* Fill *lc for doc (its previous contents freed).  CRFP_ENOMEM, recorded
 * in host. */
COLIO_HIDDEN crfp_status linecols_of(crfp_host *host, const crfp_doc *doc, const char *pred,
                                     linecols *lc);

COLIO_HIDDEN void linecols_free(linecols *lc);

/* The start of token a's line, written to fp: with lc->n its cells (a
 * missing or empty one as "_") joined by sep, else its text; then a TAB.
 * NULL, or why nothing was written (a cell holding a line break or the
 * separator, a text holding a line break or one of the bytes of `bad`, a
 * span off the text), for the caller to report with the token. */
COLIO_HIDDEN const char *linecols_put(const linecols *lc, const crfp_doc *doc, const crfp_ann *a,
                                      char sep, const char *bad, FILE *fp);

/* The feature of the k-th best labelling (0-based): pred, then pred-2,
 * pred-3, ... (a tagger's --nbest), made in buf (n bytes) when k > 0. */
COLIO_HIDDEN const char *sentwalk_pred_name(const char *pred, size_t k, char *buf, size_t n);

/* How many labellings a tagger wrote on tok: pred, pred-2, ... (1 to
 * 1000). */
COLIO_HIDDEN size_t sentwalk_nbest(const crfp_ann *tok, const char *pred);

/* A line writer's write: fn for every Sentence of doc's annotation set
 * `set` (nothing when it has none), then the stream's status
 * (sentwalk_out_status). */
COLIO_HIDDEN crfp_status sentwalk_document(crfp_host *host, crfp_stream *out, const crfp_doc *doc,
                                           const char *set, sentwalk_fn fn, void *ud);

#endif
