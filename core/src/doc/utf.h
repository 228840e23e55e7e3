/* crfpipe — UTF-8 validation and the offset map between byte offsets and
 * UTF-16 / code point offsets.  Private to libcrfpipe (not installed). */
#ifndef CRFP_UTF_H
#define CRFP_UTF_H

#include <stddef.h>
#include <stdint.h>

/* Validate `len` bytes of UTF-8: rejects stray continuation bytes, truncated
 * sequences, overlong forms, surrogates (U+D800..U+DFFF) and code points
 * above U+10FFFF.  Returns 1 when valid; otherwise 0 with *bad set to the
 * byte offset of the first offending sequence. */
int crfp_utf8_valid(const char *s, size_t len, size_t *bad);

/* Decode one character of valid UTF-8 at s[0..len); returns its byte length
 * (1..4) and stores the code point, 0 when the sequence is invalid. */
int crfp_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

/* Only non-ASCII characters are recorded: an ASCII run maps 1:1 in every
 * unit, so an ASCII text costs nothing and lookups are a binary search over
 * the multi-byte characters alone. */
typedef struct crfp_mbchar {
    size_t byte;   /* byte offset of the character */
    size_t u16;    /* its UTF-16 offset */
    size_t cp;     /* its code point offset */
    unsigned char nbytes; /* 2..4; a 4-byte character is 2 UTF-16 units */
} crfp_mbchar;

typedef struct crfp_offmap {
    crfp_mbchar *mb;   /* malloc'd, nmb entries, increasing offsets */
    size_t nmb;
    size_t len_bytes, len_u16, len_cp;
} crfp_offmap;

/* Build the map of a text already validated by crfp_utf8_valid.  Returns 0
 * on allocation failure (map left empty).  Free with crfp_offmap_free. */
int crfp_offmap_build(crfp_offmap *m, const char *s, size_t len);
void crfp_offmap_free(crfp_offmap *m);

/* unit: 0 UTF-16, 1 code point, 2 byte (crfp_offset_unit values).
 * Return 0 on success, 1 when the offset is inside a character, 2 when it
 * is beyond the end.  `text` is needed for the byte unit's boundary test. */
int crfp_offmap_to_byte(const crfp_offmap *m, const char *text, int unit, size_t off,
                        size_t *byte);
int crfp_offmap_from_byte(const crfp_offmap *m, const char *text, int unit, size_t byte,
                          size_t *off);
size_t crfp_offmap_length(const crfp_offmap *m, int unit);

#endif
