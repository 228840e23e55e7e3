/* crfpipe — pieces shared by the XML corpus reader, writer and validator.
 * Private to libcrfpipe (not installed). */
#ifndef CRFP_XMLCOMMON_H
#define CRFP_XMLCOMMON_H

#include <libxml/xmlerror.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlversion.h>
#include "crfpipe/status.h"
#include "crfpipe/host.h"

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

/* Parse `path` (a DOCTYPE refused before libxml2 sees it) and validate it
 * against schemas/<schema> (NULL: pipeline.rng for a <pipeline> root, else
 * document.rng); the tree, owned by the caller (xmlFreeDoc), in *out.  The
 * libxml2 work runs in reserve sections (alloc.h), so running out of
 * memory is CRFP_ENOMEM, never a crash or a parse error.  Other errors as
 * crfp_xml_validate_file's, without the reader's checks. */
crfp_status crfp_xml_load_valid(crfp_host *host, const char *path, const char *schema,
                                xmlDocPtr *out);

/* A scanner of the prolog (what precedes the root element), fed the raw
 * bytes as they are read.  A DOCTYPE must be refused before libxml2 sees
 * it: the streaming reader parses ahead, so entities declared in an
 * internal subset would be expanded into the first start tag's attributes
 * (billion laughs) before the reader ever returned the DOCTYPE node.  The
 * corpus format has no DOCTYPE, so no entity can ever be declared.
 * Zero-initialise; `line` is 1-based once something was fed. */
typedef struct crfp_prolog {
    int state;
    int line;
    size_t pos;
    int verdict; /* CRFP_PROLOG_* */
} crfp_prolog;
enum { CRFP_PROLOG_PENDING = 0, CRFP_PROLOG_OK, CRFP_PROLOG_DOCTYPE, CRFP_PROLOG_ENCODING };
/* Feed n bytes; returns the verdict (PENDING until the root element starts). */
int crfp_prolog_feed(crfp_prolog *p, const unsigned char *s, size_t n);
/* The error for a DOCTYPE/ENCODING verdict, as "name:line: ..." (CRFP_EPARSE). */
crfp_status crfp_prolog_error(crfp_host *host, const crfp_prolog *p, const char *name);

/* libxml2 refuses text nodes and attribute values over 10,000,000 bytes
 * unless XML_PARSE_HUGE is given, which also turns off its entity
 * amplification checks and makes long attributes parse in quadratic time.
 * Huge mode is therefore used only when the xml-node limit asks for more. */
#define CRFP_LIBXML_NODE_MAX ((size_t)10000000)
/* Whether a libxml2 error is its refusal of a node over 10 MB (the texts
 * differ between versions, hence a match on the message). */
int crfp_xml_is_huge_error(crfp_xml_err_ptr err);
/* Parser options for the host's xml-node limit. */
int crfp_xml_parse_options(const crfp_host *host);
/* The error for a node of `len` bytes (or "over the limit" when len is 0)
 * that exceeds the xml-node limit, naming the limit and how to raise it. */
crfp_status crfp_xml_node_error(crfp_host *host, const char *name, int line, const char *what,
                                size_t len);

#endif
