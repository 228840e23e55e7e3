/* Line input and text helpers shared by the line-based readers (conll_reader,
 * conllu_reader, lexicon_reader, nettalk_reader; libcommon is linked into each
 * module, and the symbols are hidden so the copies never interpose on each
 * other).
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

/* Reads a stream one line at a time, through one buffer that accumulates
 * the lines of the document (batch) being built: the reader gives those
 * bytes to the document in one block (colio_take) and points its string
 * features into them, so no field is copied one by one and a token costs no
 * allocation.  Lines are found with memchr in blocks read with fread, never
 * byte by byte.
 *
 * A line may hold at most the host's `line` limit (crfp_host_limit,
 * CRFP_LIMIT_LINE) bytes.  The current line is line[0..len) without its
 * terminator, NUL-terminated in place (the NUL overwrites the terminator);
 * a "\r\n" terminator is reported through `crlf` and stripped.
 * Every line is checked for NUL bytes and invalid UTF-8, which are
 * CRFP_EPARSE/CRFP_EUTF8 errors naming file:line.
 *
 * `line` points into `data` and is valid until the next colio_next or
 * colio_take (reading may move the buffer); offsets into `data`
 * (colio_off) stay valid until colio_take. */
typedef struct colio_lines {
    crfp_host *host;
    crfp_stream *in;
    char *line;
    size_t len;
    unsigned long lineno;   /* 1-based number of the current line */
    int has_nl;             /* current line ended with '\n' */
    int crlf;               /* ... and with "\r\n" */
    int pushed;             /* colio_unread was called */
    int ascii;              /* the current line is all ASCII */
    /* the buffer: data[0..dlen) read, data[0..pos) consumed as lines;
     * data[0] is the first byte of the current batch */
    char *data;
    size_t dlen, dcap, pos;
    size_t line_off;        /* offset of the current line in data */
    int eof;
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

/* Offset in data of the current line (valid until colio_take). */
static inline size_t colio_off(const colio_lines *L)
{
    return L->line_off;
}

/* Bytes of the batch so far: the lines consumed and not pushed back. */
static inline size_t colio_batch_bytes(const colio_lines *L)
{
    return L->pushed ? L->line_off : L->pos;
}

/* Hand over the batch: the bytes of every line consumed since the last
 * take, except a line pushed back (which starts the next batch).  *buf
 * (malloc'd, owned by the caller) holds them in *size bytes plus one spare
 * byte, so that a field ending the last line may be NUL-terminated in
 * place; offsets from colio_off index it.  Afterwards the current line, if
 * pushed back, is at offset 0 of the new batch.  CRFP_ENOMEM (recorded,
 * naming file:line). */
COLIO_HIDDEN crfp_status colio_take(colio_lines *L, char **buf, size_t *size);
/* Forget the batch's bytes instead (a reader that copied what it keeps):
 * without a take or a discard per batch the buffer would hold the whole
 * input. */
COLIO_HIDDEN void colio_discard(colio_lines *L);
/* The same for a reader that copies every line it keeps before reading the
 * next, called before each colio_next: the buffer is emptied only once the
 * consumed lines hold a block (64 KiB), so memory stays bounded by a block
 * plus the longest line and the bytes are moved about once, not at every
 * line. */
COLIO_HIDDEN void colio_discard_consumed(colio_lines *L);

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

/* --- numbers in fields ------------------------------------------------------ */
/* 1 with *v when s[0..n) is a finite number as strtod reads it, whole
 * (CRFsuite's attribute weights, the attributes plugin's values); 0 for
 * anything else, an empty field and one of 64 bytes or more included. */
COLIO_HIDDEN int colio_finite(const char *s, size_t n, double *v);

#endif
