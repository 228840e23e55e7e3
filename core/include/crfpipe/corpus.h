/* crfpipe — the XML corpus format (schemas/document.rng): streaming reader,
 * incremental writer and validation.
 *
 * The reader holds one document in memory at a time (xmlTextReader), so a
 * corpus of any size streams in memory bounded by its largest document
 * (column readers write long inputs as documents of a bounded size).  The
 * writer emits each document as it is given, serialised directly in the
 * layout libxml2's xmlTextWriter produced with indentation (byte for byte)
 * without a library call per node.  The xml_reader / xml_writer plugins
 * are thin wrappers around these functions.
 */
#ifndef CRFPIPE_CORPUS_H
#define CRFPIPE_CORPUS_H

#include "crfpipe/status.h"
#include "crfpipe/plugin.h"
#include "crfpipe/document.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Directory holding the installed schemas: $CRFPIPE_SCHEMA_DIR if set, the
 * source tree's schemas/ when running uninstalled, else $(pkgdatadir)/schemas.
 * Static storage or environment; never NULL. */
const char *crfp_schema_dir(void);

typedef struct crfp_xml_reader crfp_xml_reader;

/* Start reading a corpus from `in` (not closed by the reader).  With
 * `validate`, each document is also checked against the schema as it
 * streams.  Errors name in->name and the line.  *out is NULL on failure;
 * otherwise free it with crfp_xml_reader_close.  `in` and host must outlive
 * the reader.  Errors: CRFP_ENOMEM; with `validate`, those of loading
 * document.rng (CRFP_ENOTFOUND missing, CRFP_EIO unreadable, CRFP_EPARSE
 * not compiling) and CRFP_EPARSE when validation cannot start; CRFP_EIO
 * when libxml2 cannot set up the reader. */
crfp_status crfp_xml_reader_open(crfp_host *host, crfp_stream *in, int validate,
                                 crfp_xml_reader **out);
/* Next document (caller owns it) or *doc = NULL at the end.  Malformed XML
 * and invalid UTF-8 (CRFP_EPARSE), schema violations (CRFP_ESCHEMA),
 * offsets out of range or duplicate ids or dangling references
 * (CRFP_EINVAL) and offsets inside a character (CRFP_EUTF8) are errors
 * naming the file and line; so are a DOCTYPE (refused before libxml2 parses
 * it, so no entity is ever expanded), non-UTF-8 input and text nodes or
 * attribute values over the host's xml-node limit (CRFP_EPARSE).  After an error the reader only reports
 * errors.  Because libxml2 parses ahead, a syntax error may be reported
 * before the documents that precede it are returned.  Also: CRFP_EIO (read
 * error), CRFP_ENOMEM, and CRFP_EINVAL ("reading after an error") for a
 * call after a failed one.  *doc is NULL on every error; a document
 * returned does not depend on the reader (free it with crfp_doc_free). */
crfp_status crfp_xml_reader_next(crfp_xml_reader *r, crfp_doc **doc);
/* Free the reader (NULL accepted).  The stream is not closed; documents
 * already returned stay the caller's. */
void crfp_xml_reader_close(crfp_xml_reader *r);

typedef struct crfp_xml_writer crfp_xml_writer;
/* Start writing a corpus to `out` (not closed by the writer).  Documents
 * are written indented, but text and string values exactly (a CR becomes
 * &#13;).  A document holding what XML 1.0 cannot carry (control
 * characters, U+FFFE/U+FFFF) or a reference to a missing annotation is
 * refused with CRFP_EINVAL before any of it is written.  Write errors are
 * CRFP_EIO naming out->name.  Free the writer with crfp_xml_writer_close.
 * open: *w is the caller's, NULL on failure; CRFP_ENOMEM only (nothing is
 * written before the first document or finish).  `out` and host must
 * outlive the writer. */
crfp_status crfp_xml_writer_open(crfp_host *host, crfp_stream *out, crfp_xml_writer **w);
/* Write one document (only read: it stays the caller's).  Errors: CRFP_EINVAL
 * (refused as above, or written after crfp_xml_writer_finish), CRFP_ENOMEM
 * (nothing of the document is written), CRFP_EIO. */
crfp_status crfp_xml_writer_write(crfp_xml_writer *w, const crfp_doc *doc);
/* Close the corpus element and flush.  Errors: CRFP_ENOMEM, CRFP_EIO
 * (including a failing fflush).  Later calls do nothing and return CRFP_OK. */
crfp_status crfp_xml_writer_finish(crfp_xml_writer *w);
/* Free the writer (NULL accepted) without finishing: a corpus not finished
 * first is left incomplete.  The stream is not closed. */
void crfp_xml_writer_close(crfp_xml_writer *w);

/* Validate a whole file against schemas/<schema> ("document.rng" or
 * "pipeline.rng"; the ".rng" may be omitted).  With schema NULL the root
 * element decides: <pipeline> selects pipeline.rng, anything else
 * document.rng.  Errors: CRFP_EIO (cannot open), CRFP_EPARSE (not
 * well-formed, a DOCTYPE, a node over the host's xml-node limit),
 * CRFP_ESCHEMA (invalid), CRFP_ENOTFOUND (schema missing), CRFP_ENOMEM; the message lists
 * every schema error found (up to 20) as "file:line: what", one per line.
 * A corpus that matches the schema is then read as crfp_xml_reader_next
 * reads it, so what validates is what the reader accepts (its errors:
 * CRFP_EINVAL, CRFP_EUTF8, ...). */
crfp_status crfp_xml_validate_file(crfp_host *host, const char *path, const char *schema);

/* Since 2.9.  libxml2 reports a failed conversion of the input's declared
 * encoding through its generic error handler, a per-thread setting that
 * prints on stderr by default, and not to the parser's error callbacks,
 * which then see only "Extra content at the end of the document".  Between
 * crfp_xml_quiet_begin and crfp_xml_quiet_end (on the thread that parses,
 * around each call that may read input) the first such message is kept in
 * `q` instead, and the thread's handler is put back at the end.
 * crfp_xml_quiet_msg gives the message on one line, "" when none or when
 * the message kept is not about the encoding (libxml2 reports a failed
 * allocation this way too: the caller tells it by its own means).  `q` is
 * the caller's; zero it (or begin with it fresh) before the first begin.
 * Nothing can fail. */
typedef struct crfp_xml_quiet {
    char msg[256];
    size_t n;
    /* the thread's handler and its context, while begun */
    void (*old_handler)(void *ctx, const char *fmt, ...);
    void *old_context;
} crfp_xml_quiet;
void crfp_xml_quiet_begin(crfp_xml_quiet *q);
void crfp_xml_quiet_end(crfp_xml_quiet *q);
const char *crfp_xml_quiet_msg(crfp_xml_quiet *q);

#ifdef __cplusplus
}
#endif
#endif
