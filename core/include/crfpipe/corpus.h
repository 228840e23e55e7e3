/* crfpipe — the XML corpus format (schemas/document.rng): streaming reader,
 * incremental writer and validation.
 *
 * The reader holds one document in memory at a time (xmlTextReader), so a
 * corpus of any size streams in bounded memory.  The writer emits each
 * document as it is given (xmlTextWriter).  The xml_reader / xml_writer
 * plugins are thin wrappers around these functions.
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
 * streams.  Errors name in->name and the line. */
crfp_status crfp_xml_reader_open(crfp_host *host, crfp_stream *in, int validate,
                                 crfp_xml_reader **out);
/* Next document (caller owns it) or *doc = NULL at the end.  Malformed XML,
 * schema violations, bad offsets and invalid UTF-8 are errors naming the
 * file and line. */
crfp_status crfp_xml_reader_next(crfp_xml_reader *r, crfp_doc **doc);
void crfp_xml_reader_close(crfp_xml_reader *r);

typedef struct crfp_xml_writer crfp_xml_writer;
/* Start writing a corpus to `out` (not closed by the writer). */
crfp_status crfp_xml_writer_open(crfp_host *host, crfp_stream *out, crfp_xml_writer **w);
crfp_status crfp_xml_writer_write(crfp_xml_writer *w, const crfp_doc *doc);
/* Close the corpus element and flush. */
crfp_status crfp_xml_writer_finish(crfp_xml_writer *w);
void crfp_xml_writer_close(crfp_xml_writer *w);

/* Validate a whole file against schemas/<schema> ("document.rng" or
 * "pipeline.rng").  CRFP_ESCHEMA / CRFP_EPARSE with file:line messages. */
crfp_status crfp_xml_validate_file(crfp_host *host, const char *path, const char *schema);

#ifdef __cplusplus
}
#endif
#endif
