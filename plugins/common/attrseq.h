/* What the readers of data that carries its attributes share
 * (crfsuite_reader, wapiti_reader): one item per line, a blank line between
 * sequences (or every line a sequence of its own), each item a Token that
 * spans its line with the features `attrs` (the attributes plugin's cell)
 * and `label`, each sequence a Sentence, up to `block` sequences per
 * document so that memory stays bounded on a corpus of any size.  The
 * formats differ only in how a line is read: the reader gives that as a
 * function.
 */
#ifndef CRFP_ATTRSEQ_H
#define CRFP_ATTRSEQ_H

#include "colio.h"
#include "../lexicon_reader/lexdoc.h"

typedef struct attrseq_reader attrseq_reader;

/* Reads the current line (r->L.line, r->L.len, not blank): appends its
 * label, then its attributes in the attributes plugin's escaping ("_" for
 * none), each NUL-terminated, to aux; *cell receives the offset in aux of
 * the attributes, *has_label whether the label is there (not empty).  A line
 * that is no item (a declaration) sets *skip and appends nothing.  Errors
 * are recorded in r->host, naming the file and line. */
typedef crfp_status (*attrseq_line_fn)(attrseq_reader *r, lex_sbuf *aux, size_t *cell,
                                       int *has_label, int *skip);

struct attrseq_reader {
    crfp_host *host;
    const crfp_params *params;  /* recorded as the processor's parameters */
    crfp_stream *in;
    colio_lines L;
    int64_t block;              /* sequences per document, >= 1 */
    int per_line;               /* every item a sequence of its own */
    const char *format;         /* document ids and their `format` metadata */
    const char *processor;      /* the reader's plugin name */
    attrseq_line_fn line;
    /* whether a line is blank (ends a sequence): colio_probe_blank (spaces
     * and tabs) unless set */
    int (*blank)(const char *s, size_t n);
    unsigned long ndocs;
    int eof;
    /* The weight a declaration gave the sequence being read (CRFsuite's
     * @weight:W), which the line function sets; NAN: none.  The sequence's
     * Sentence gets it as its `weight` feature; it is reset at the
     * sequence's end and at a blank line (as CRFsuite does). */
    double seq_weight;
};

/* Set r up to read `in` (the other fields are the caller's to set). */
COLIO_HIDDEN void attrseq_init(attrseq_reader *r, crfp_host *host, const crfp_params *p,
                               crfp_stream *in);
/* The next document, or *out = NULL at the end of the input.  The caller
 * owns *out.  Errors: the line function's, CRFP_ENOMEM, colio's read
 * errors and the sentence-tokens limit, all naming file and line. */
COLIO_HIDDEN crfp_status attrseq_next(attrseq_reader *r, crfp_doc **out);
/* Frees what attrseq_init and attrseq_next keep (not r itself). */
COLIO_HIDDEN void attrseq_free(attrseq_reader *r);
/* The input's name for messages. */
COLIO_HIDDEN const char *attrseq_name(const attrseq_reader *r);
/* Appends the attribute f[0..n) to a cell in the attributes plugin's
 * escaping (space, tab, line breaks and backslash escaped, a lone "_" as
 * "\_"), after a space unless first; with crfsuite_escapes, CRFsuite's "\:"
 * and "\\" in f are first read as ':' and '\'.  0 on ENOMEM. */
COLIO_HIDDEN int attrseq_cell_add(lex_sbuf *aux, int first, const char *f, size_t n,
                                  int crfsuite_escapes);

#endif
