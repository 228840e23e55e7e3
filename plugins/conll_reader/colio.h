/* Line input and text helpers shared by the two column readers (conll_reader
 * and conllu_reader compile this file into each module; the symbols are
 * hidden so the two copies never interpose on each other).
 */
#ifndef CRFP_COLIO_H
#define CRFP_COLIO_H

#include <stddef.h>
#include <sys/types.h>
#include "crfpipe/crfpipe.h"

#define COLIO_HIDDEN __attribute__((visibility("hidden")))

/* A growable byte buffer, always NUL-terminated once something was added.
 * Zero-initialise; free with colio_buf_free. */
typedef struct colio_buf {
    char *s;
    size_t len, cap;
} colio_buf;

/* Append n bytes.  CRFP_ENOMEM (not recorded in any host) on failure. */
COLIO_HIDDEN crfp_status colio_buf_add(colio_buf *b, const char *s, size_t n);
COLIO_HIDDEN void colio_buf_free(colio_buf *b);

/* Reads a stream one line at a time; a line may hold at most the host's
 * `line` limit (crfp_host_limit, CRFP_LIMIT_LINE) bytes.  The current line is line[0..len) without its terminator; a
 * "\r\n" terminator is reported through `crlf` and stripped.  Every line is
 * checked for NUL bytes and invalid UTF-8, which are CRFP_EPARSE/CRFP_EUTF8
 * errors naming file:line. */
typedef struct colio_lines {
    crfp_host *host;
    crfp_stream *in;
    char *line;
    size_t cap;
    size_t len;
    unsigned long lineno;   /* 1-based number of the current line */
    int has_nl;             /* current line ended with '\n' */
    int crlf;               /* ... and with "\r\n" */
    int pushed;             /* colio_unread was called */
} colio_lines;

/* Next line: *got = 1 and the fields above set, or *got = 0 at the end of
 * the stream.  Errors: CRFP_EIO (read error), CRFP_ENOMEM ("out of memory",
 * never taken for the end of the input), CRFP_EPARSE (NUL byte, line over
 * the `line` limit, naming it), CRFP_EUTF8 (invalid UTF-8, with the byte
 * column).  All name file:line. */
COLIO_HIDDEN crfp_status colio_next(colio_lines *L, int *got);
/* CRFP_EPARSE naming the current line and the `sentence-tokens` limit when a
 * sentence of ntok tokens exceeds it, else CRFP_OK. */
COLIO_HIDDEN crfp_status colio_sentence_limit(colio_lines *L, size_t ntok);
/* Make the next colio_next return the current line again. */
COLIO_HIDDEN void colio_unread(colio_lines *L);
COLIO_HIDDEN void colio_lines_free(colio_lines *L);

/* Number of UTF-16 code units in n bytes of valid UTF-8. */
COLIO_HIDDEN size_t colio_utf16_len(const char *s, size_t n);

/* Length of the text of `n` bytes in the document's offset unit, for text
 * that will be set on a document whose unit is `unit`. */
COLIO_HIDDEN size_t colio_unit_len(crfp_offset_unit unit, const char *s, size_t n);


/* --- format probes -----------------------------------------------------------
 * Line walking over the head of an input (the first bytes, up to
 * COLIO_PROBE_MAX), shared by the CoNLL and CoNLL-U probes. */
#define COLIO_PROBE_MAX (64 * 1024)
/* Next line of buf[*at, len) in [*b, *e) (no terminator, CR dropped); 0 at
 * the end.  *complete says whether it ended in '\n'. */
int colio_probe_line(const char *buf, size_t len, size_t *at, size_t *b, size_t *e,
                     int *complete);
/* Whether s[0..n) holds only blanks and tabs. */
int colio_probe_blank(const char *s, size_t n);

#endif
