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
 * otherwise free it with crfp_xml_reader_close. */
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
 * before the documents that precede it are returned. */
crfp_status crfp_xml_reader_next(crfp_xml_reader *r, crfp_doc **doc);
void crfp_xml_reader_close(crfp_xml_reader *r);

typedef struct crfp_xml_writer crfp_xml_writer;
/* Start writing a corpus to `out` (not closed by the writer).  Documents
 * are written indented, but text and string values exactly (a CR becomes
 * &#13;).  A document holding what XML 1.0 cannot carry (control
 * characters, U+FFFE/U+FFFF) or a reference to a missing annotation is
 * refused with CRFP_EINVAL before any of it is written.  Write errors are
 * CRFP_EIO naming out->name.  Free the writer with crfp_xml_writer_close. */
crfp_status crfp_xml_writer_open(crfp_host *host, crfp_stream *out, crfp_xml_writer **w);
crfp_status crfp_xml_writer_write(crfp_xml_writer *w, const crfp_doc *doc);
/* Close the corpus element and flush. */
crfp_status crfp_xml_writer_finish(crfp_xml_writer *w);
void crfp_xml_writer_close(crfp_xml_writer *w);

/* Validate a whole file against schemas/<schema> ("document.rng" or
 * "pipeline.rng"; the ".rng" may be omitted).  With schema NULL the root
 * element decides: <pipeline> selects pipeline.rng, anything else
 * document.rng.  Errors: CRFP_EIO (cannot open), CRFP_EPARSE (not
 * well-formed, a DOCTYPE, a node over the host's xml-node limit),
 * CRFP_ESCHEMA (invalid), CRFP_ENOTFOUND (schema missing); the message lists
 * every schema error found (up to 20) as "file:line: what", one per line.
 * A corpus that matches the schema is then read as crfp_xml_reader_next
 * reads it, so what validates is what the reader accepts (its errors:
 * CRFP_EINVAL, CRFP_EUTF8, ...). */
crfp_status crfp_xml_validate_file(crfp_host *host, const char *path, const char *schema);

#ifdef __cplusplus
}
#endif
#endif
