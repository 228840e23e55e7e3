/* crfpipe — libxml2's generic error messages kept, not printed (corpus.h:
 * crfp_xml_quiet_*).  libxml2 raises a failed encoding conversion without
 * a parser context, so it reaches neither the structured handler of the
 * parser nor its SAX callbacks: only the thread's generic handler, which
 * prints on stderr.  Readers swap that handler for this one around their
 * parsing calls, and say the cause in their own error. */
#include "config.h"
#include "crfpipe/corpus.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libxml/xmlerror.h>

/* libxml2 sends a message in pieces ("encoding error : ", the text, "\n"):
 * the first message, up to its line break, is kept. */
static void keep(void *ctx, const char *fmt, ...)
{
    crfp_xml_quiet *q = ctx;
    if (q->n + 1 >= sizeof q->msg || memchr(q->msg, '\n', q->n))
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(q->msg + q->n, sizeof q->msg - q->n, fmt, ap);
    va_end(ap);
    if (n > 0)
        q->n += (size_t)n < sizeof q->msg - q->n ? (size_t)n : sizeof q->msg - q->n - 1;
}

void crfp_xml_quiet_begin(crfp_xml_quiet *q)
{
    q->old_handler = xmlGenericError;
    q->old_context = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(q, keep);
}

void crfp_xml_quiet_end(crfp_xml_quiet *q)
{
    xmlSetGenericErrorFunc(q->old_context, q->old_handler);
}

const char *crfp_xml_quiet_msg(crfp_xml_quiet *q)
{
    char *nl = memchr(q->msg, '\n', q->n);
    if (nl)
        *nl = '\0';
    /* only an encoding failure ("input conversion failed due to input
     * error, bytes 0x..", "encoder error": a handler of ours gets the text
     * without libxml2's "encoding error : " prefix); a failed allocation,
     * say, comes this way too and is the caller's to report as such */
    if (strstr(q->msg, "conversion failed") || strstr(q->msg, "encoder error"))
        return q->msg;
    return "";
}
