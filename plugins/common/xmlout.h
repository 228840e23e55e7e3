/* xmlout — the output buffer of the plugins that write XML by hand
 * (gate_writer, markup_writer): a growable byte buffer that remembers
 * running out of memory instead of failing each call, XML 1.0 escaping, and
 * the checks of what XML 1.0 can carry.
 *
 * A document is built in memory and written in one go, so that a document
 * refused half-way (a character XML cannot carry, a name that is not an XML
 * name) leaves nothing of itself in the output.
 */
#ifndef CRFPIPE_COMMON_XMLOUT_H
#define CRFPIPE_COMMON_XMLOUT_H

#include <stddef.h>

typedef struct xmlout {
    char *buf;     /* owned; NUL-terminated after len bytes once anything is put */
    size_t len, cap;
    int oom;       /* a put ran out of memory: the content is incomplete */
} xmlout;

/* Append n bytes (or a C string) unchanged.  On allocation failure the
 * buffer keeps what it had and sets oom; later puts do nothing. */
void xmlout_put(xmlout *o, const char *s, size_t n);
void xmlout_puts(xmlout *o, const char *s);
/* Append escaped character data: & < > always, CR as &#13; (an XML parser
 * would turn CR LF into LF); with attr, also " TAB and LF (attribute
 * values are normalised otherwise), for a value in double quotes. */
void xmlout_esc(xmlout *o, const char *s, size_t n, int attr);
/* Empty the buffer (keeps its memory and clears oom). */
void xmlout_reset(xmlout *o);
/* Free the memory (the struct itself is the caller's). */
void xmlout_free(xmlout *o);

/* The text of a scalar value (string, integer, float, boolean, reference;
 * "" for a list): the string itself, or buf (len bytes, 64 are enough)
 * holding it.  Floats with 17 significant digits, so they read back
 * exactly; non-finite ones as Java writes them (NaN, Infinity,
 * -Infinity), which GATE's Double.parseDouble reads. */
struct crfp_value;
const char *xmlout_scalar(const struct crfp_value *v, char *buf, size_t len);

/* Byte offset of the first character XML 1.0 cannot carry in s[0..n)
 * (controls other than TAB, LF, CR; U+FFFE, U+FFFF), or n if none.  s is
 * valid UTF-8. */
size_t xmlout_bad(const char *s, size_t n);
/* Whether the NUL-terminated UTF-8 string s is an XML 1.0 Name (fifth
 * edition: NameStartChar NameChar*; ':' allowed, so prefixed names pass). */
int xmlout_is_name(const char *s);
/* Whether s is also a qualified name of XML namespaces: a Name with at
 * most one ':', neither first nor last, and not the reserved prefix xmlns
 * (an element or attribute an XML parser reads back as written). */
int xmlout_is_qname(const char *s);

#endif
