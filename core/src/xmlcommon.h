/* crfpipe — pieces shared by the XML corpus reader, writer and validator.
 * Private to libcrfpipe (not installed). */
#ifndef CRFP_XMLCOMMON_H
#define CRFP_XMLCOMMON_H

#include <libxml/xmlerror.h>
#include <libxml/relaxng.h>
#include <libxml/xmlversion.h>
#include "crfpipe/status.h"

#define CRFP_XML_NS "urn:crfpipe:corpus:1"

/* libxml2 2.12 made the error argument of structured handlers const. */
#if LIBXML_VERSION >= 21200
typedef const xmlError *crfp_xml_err_ptr;
#else
typedef xmlErrorPtr crfp_xml_err_ptr;
#endif

/* Messages collected from libxml2's structured error callbacks, each line
 * "file:line: message".  Kept per operation (no libxml2 global handler). */
typedef struct crfp_xmlerrs {
    char *text;         /* malloc'd, lines separated by '\n'; NULL when none */
    size_t len, cap;
    int count;          /* errors seen (more than are kept) */
    const char *name;   /* file name for the messages (else libxml2's) */
    int fallback_line;  /* used when libxml2 knows no line */
} crfp_xmlerrs;

/* Usable as an xmlStructuredErrorFunc with ud = crfp_xmlerrs *.  Warnings
 * are ignored. */
void crfp_xmlerrs_handler(void *ud, crfp_xml_err_ptr err);
void crfp_xmlerrs_free(crfp_xmlerrs *e);

/* Load schemas/<name> ("document.rng"; ".rng" is appended when missing)
 * from crfp_schema_dir().  CRFP_ENOTFOUND / CRFP_EPARSE with a message. */
crfp_status crfp_rng_load(crfp_host *host, const char *name, xmlRelaxNGPtr *out);

#endif
