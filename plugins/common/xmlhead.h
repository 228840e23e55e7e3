/* xmlhead — the name of the first element in the first bytes of an XML
 * input, for the probes of the XML readers (crfpipe's corpus, GATE's
 * GateDocument, any other XML): pure, no parser, no allocation.
 */
#ifndef CRFPIPE_COMMON_XMLHEAD_H
#define CRFPIPE_COMMON_XMLHEAD_H

#include <stddef.h>

/* 1 when buf[0..len) starts (after a UTF-8 byte order mark and white
 * space) with '<' and holds the start of an element after the declaration,
 * comments, processing instructions and doctype; then buf[*at .. *at + *n)
 * is its name as written (with any prefix; cut at len).  -1 when it starts
 * with '<' but no element starts in those bytes, 0 when it does not start
 * with '<'. */
int xmlhead_root(const char *buf, size_t len, size_t *at, size_t *n);

#endif
