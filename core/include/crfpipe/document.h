/* crfpipe — the annotated document model.
 *
 * A document is UTF-8 text plus named annotation sets.  An annotation has an
 * id (unique in the document), a type ("Token", "Sentence", "Chunk"...),
 * half-open [start, end) offsets in the document's declared offset unit,
 * and typed features.  Offsets default to UTF-16 code units, as in GATE,
 * UIMA and ICU, so corpora exchange with those tools without remapping.
 *
 * Ownership: a crfp_doc owns everything reachable from it (sets, annotations,
 * feature names and values).  Pointers returned by getters stay valid until
 * the document is freed; annotation pointers are stable across additions.
 * A getter that says otherwise below (the id, the text, arrays that grow)
 * says how long its result lasts.  None of these functions records a
 * message unless it takes a host.
 */
#ifndef CRFPIPE_DOCUMENT_H
#define CRFPIPE_DOCUMENT_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum crfp_offset_unit {
    CRFP_OFFSET_UTF16 = 0,  /* default */
    CRFP_OFFSET_CODEPOINT,
    CRFP_OFFSET_BYTE        /* UTF-8 bytes */
} crfp_offset_unit;

/* "utf16", "codepoint", "byte"; parse returns -1 for an unknown name.
 * The names are static; any other unit gives "unknown"; parse returns -1
 * for NULL too. */
const char *crfp_offset_unit_name(crfp_offset_unit u);
int crfp_offset_unit_parse(const char *name);

typedef enum crfp_vtype {
    CRFP_V_STRING = 0,
    CRFP_V_INT,
    CRFP_V_FLOAT,
    CRFP_V_BOOL,
    CRFP_V_REF,   /* id of another annotation of the same document */
    CRFP_V_LIST   /* list of values (any type, nesting allowed) */
} crfp_vtype;

typedef struct crfp_value {
    crfp_vtype type;
    union {
        const char *s;                                 /* STRING, NUL-terminated UTF-8 */
        int64_t i;                                     /* INT */
        double f;                                      /* FLOAT */
        int b;                                         /* BOOL: 0 or 1 */
        uint64_t ref;                                  /* REF */
        struct { struct crfp_value *items; size_t n; } list; /* LIST */
    } u;
} crfp_value;

typedef struct crfp_feature {
    const char *name;
    crfp_value value;
} crfp_feature;

/* Read-only view; mutate only through the functions below. */
typedef struct crfp_ann {
    uint64_t id;
    const char *type;
    size_t start, end;        /* in the document's offset unit */
    crfp_feature *feats;      /* in insertion order */
    size_t nfeats;
} crfp_ann;

/* Which processor produced (part of) an annotation set. */
typedef struct crfp_processor {
    const char *plugin;
    const char *version;
    const char **param_names;   /* nparams */
    const char **param_values;  /* nparams */
    size_t nparams;
} crfp_processor;

typedef struct crfp_annset crfp_annset;
typedef struct crfp_doc crfp_doc;

/* --- documents ---------------------------------------------------------- */

/* New empty document (id may be NULL).  NULL on allocation failure.
 * The caller owns it (crfp_doc_free); `id` is copied.  Its text is "". */
crfp_doc *crfp_doc_new(const char *id);

/* A copy of the NUL-terminated s in which every byte that is not part of
 * valid UTF-8 is replaced by U+FFFD: a file name (any bytes on POSIX) made
 * fit for a document id or a feature, which must be UTF-8.  malloc'd, the
 * caller frees it; NULL when out of memory or s is NULL. */
char *crfp_utf8_repair(const char *s);
void crfp_doc_free(crfp_doc *doc);   /* NULL accepted */

/* The id, owned by the document and valid until the next crfp_doc_set_id.
 * set_id copies `id` (NULL removes it); CRFP_ENOMEM only (the old id
 * stays). */
const char *crfp_doc_id(const crfp_doc *doc);            /* may be NULL */
crfp_status crfp_doc_set_id(crfp_doc *doc, const char *id);

/* Set the text (copied).  Fails with CRFP_EUTF8 on invalid UTF-8, the
 * message giving the byte offset.  Must be called before annotations are
 * added (changing the text would invalidate offsets): CRFP_EINVAL otherwise.
 * Also CRFP_ENOMEM; messages are recorded in host (may be NULL).  On error
 * the old text stays. */
crfp_status crfp_doc_set_text(crfp_host *host, crfp_doc *doc, const char *text, size_t len);
/* The text, NUL-terminated after its *len_bytes (may be NULL) bytes; "" for
 * a new document.  Owned by the document, valid until the next
 * crfp_doc_set_text* or crfp_doc_free. */
const char *crfp_doc_text(const crfp_doc *doc, size_t *len_bytes);

crfp_offset_unit crfp_doc_offset_unit(const crfp_doc *doc);
/* Only allowed while the document has no annotations (CRFP_EINVAL).
 * CRFP_EINVAL also for an unknown unit. */
crfp_status crfp_doc_set_offset_unit(crfp_doc *doc, crfp_offset_unit u);

/* Length of the text in the document's offset unit. */
size_t crfp_doc_length(const crfp_doc *doc);

/* Convert an offset in the document's unit to a UTF-8 byte offset.
 * CRFP_EUTF8 when `off` falls inside a character (e.g. between the two
 * halves of a surrogate pair), CRFP_EINVAL when beyond the end. */
crfp_status crfp_doc_to_byte(const crfp_doc *doc, size_t off, size_t *byte);
/* Inverse: byte offset (must be on a character boundary) to document unit.
 * Both: CRFP_EUTF8 inside a character, CRFP_EINVAL beyond the end; the
 * result is written only on success. */
crfp_status crfp_doc_from_byte(const crfp_doc *doc, size_t byte, size_t *off);

/* Document-level features (metadata such as a source format's column names,
 * kept so writers can reproduce their input exactly).  Setting follows
 * crfp_ann_set: the name is interned and the value deep-copied, replacing
 * a feature of that name; same errors.  get: NULL when absent (name not
 * NULL).  meta: the *n features in insertion order (NULL when none).  That
 * value and array are the document's, valid until the next meta set (which
 * may replace or move them); strings in them last as long as the document. */
crfp_status crfp_doc_meta_set(crfp_doc *doc, const char *name, const crfp_value *v);
crfp_status crfp_doc_meta_set_str(crfp_doc *doc, const char *name, const char *s);
const crfp_value *crfp_doc_meta_get(const crfp_doc *doc, const char *name);
const char *crfp_doc_meta_str(const crfp_doc *doc, const char *name); /* NULL unless STRING */
const crfp_feature *crfp_doc_meta(const crfp_doc *doc, size_t *n);

/* --- annotation sets ---------------------------------------------------- */

/* The set called `name` ("" is the default set).  With `create`, make it if
 * missing; otherwise NULL when missing (and NULL on allocation failure).
 * A NULL name is "".  The set belongs to the document. */
crfp_annset *crfp_doc_annset(crfp_doc *doc, const char *name, int create);
/* Number of sets, and set i in creation order (NULL when i >= count). */
size_t crfp_doc_annset_count(const crfp_doc *doc);
crfp_annset *crfp_doc_annset_at(const crfp_doc *doc, size_t i);

/* The set's name, owned by the document. */
const char *crfp_annset_name(const crfp_annset *set);

/* Record that `plugin` (version, parameters) produced annotations in `set`.
 * Strings are copied.  `set` must belong to doc.  Errors (the set is then
 * unchanged): CRFP_EINVAL (plugin or version NULL; names or values, or one
 * of their n entries, NULL), CRFP_ENOMEM.  processors: the *n records in
 * the order added (NULL when none); the array belongs to the set, valid
 * until its next crfp_annset_add_processor, its strings as long as the
 * document. */
crfp_status crfp_annset_add_processor(crfp_doc *doc, crfp_annset *set, const char *plugin,
                                      const char *version, const char *const *names,
                                      const char *const *values, size_t n);
const crfp_processor *crfp_annset_processors(const crfp_annset *set, size_t *n);

/* Add an annotation with a fresh id.  Checks 0 <= start <= end <= length
 * and that both offsets are on character boundaries; errors are recorded in
 * `host` (CRFP_EINVAL / CRFP_EUTF8).  *out (may be NULL) receives the new
 * annotation.  The fresh id is one more than the largest in the document.
 * Also CRFP_EINVAL for a NULL type and CRFP_ENOMEM.  The annotation is the
 * document's; `set` must belong to doc. */
crfp_status crfp_annset_add(crfp_host *host, crfp_doc *doc, crfp_annset *set, const char *type,
                            size_t start, size_t end, crfp_ann **out);
/* Same with an explicit id (from a file); CRFP_EINVAL if the id is taken. */
crfp_status crfp_annset_add_with_id(crfp_host *host, crfp_doc *doc, crfp_annset *set,
                                    uint64_t id, const char *type, size_t start, size_t end,
                                    crfp_ann **out);

/* Annotations of the set in insertion order; get gives NULL when
 * i >= size. */
size_t crfp_annset_size(const crfp_annset *set);
crfp_ann *crfp_annset_get(const crfp_annset *set, size_t i);

/* The annotations of `type` (NULL = any) inside [start, end), sorted by
 * (start, -end, id).  *out is a malloc'd array the caller frees (free());
 * it is NULL when *n == 0.  The annotations stay the document's.  A type
 * the document has never used selects nothing.  CRFP_ENOMEM only. */
crfp_status crfp_annset_select(const crfp_annset *set, const char *type, size_t start,
                               size_t end, crfp_ann ***out, size_t *n);

/* Look up an annotation by id in any set of the document; NULL if absent
 * (also, for ids added out of order, when the id table cannot be built for
 * lack of memory). */
crfp_ann *crfp_doc_find_ann(const crfp_doc *doc, uint64_t id);

/* --- features ----------------------------------------------------------- */

/* Set (replace) a feature.  Values are deep-copied.  `ann` must belong to doc;
 * the name is interned.  Errors: CRFP_EINVAL (name or v NULL, a STRING
 * value NULL, a BOOL not 0 or 1, a LIST of n > 0 without items),
 * CRFP_EUTF8 (a string that is not UTF-8), CRFP_ENOMEM.  set_bool stores
 * b != 0; set_ref does not check that the id exists. */
crfp_status crfp_ann_set(crfp_doc *doc, crfp_ann *ann, const char *name, const crfp_value *v);
crfp_status crfp_ann_set_str(crfp_doc *doc, crfp_ann *ann, const char *name, const char *s);
crfp_status crfp_ann_set_int(crfp_doc *doc, crfp_ann *ann, const char *name, int64_t i);
crfp_status crfp_ann_set_float(crfp_doc *doc, crfp_ann *ann, const char *name, double f);
crfp_status crfp_ann_set_bool(crfp_doc *doc, crfp_ann *ann, const char *name, int b);
crfp_status crfp_ann_set_ref(crfp_doc *doc, crfp_ann *ann, const char *name, uint64_t id);

/* NULL when absent.  name must not be NULL.  The value is the document's,
 * valid until the annotation's features next change. */
const crfp_value *crfp_ann_get(const crfp_ann *ann, const char *name);
/* The string value of `name`, NULL when absent or not a STRING.  It is the
 * document's copy (or what crfp_ann_set_str_ref was given) and lasts as
 * long as the document. */
const char *crfp_ann_str(const crfp_ann *ann, const char *name);

/* --- building documents cheaply (readers) --------------------------------
 * A reader producing millions of tokens should pay no heap allocation and
 * no string copy per token.  These calls let it hand the document its
 * buffers instead of having them copied.  (Added in 0.2; plugins using them
 * need this libcrfpipe or later, the plugin ABI is unchanged.) */

/* Like crfp_doc_set_text, but takes ownership of `text`: a malloc'd buffer
 * of at least len + 1 bytes (text[len] is set to NUL).  The document frees
 * it; on every error it is freed at once, so the caller never frees it.
 * Errors as crfp_doc_set_text (recorded in host). */
crfp_status crfp_doc_set_text_owned(crfp_host *host, crfp_doc *doc, char *text, size_t len);

/* Give `buf` (malloc'd, `size` bytes, used for accounting only) to the
 * document, which frees it with itself.  NUL-terminated strings inside it
 * may then be feature values without a copy (crfp_ann_set_str_ref).
 * CRFP_EINVAL (buf NULL), CRFP_ENOMEM (buf is then freed). */
crfp_status crfp_doc_adopt(crfp_doc *doc, void *buf, size_t size);

/* The document's interned copy of `name` (the same pointer for equal
 * strings, valid as long as the document); NULL for a NULL name or on
 * allocation failure.  Setters given interned names skip a hash lookup. */
const char *crfp_doc_intern(crfp_doc *doc, const char *name);

/* The document's interned copy of `name` when the document already holds
 * that name (as an annotation type or a feature or meta name), else NULL.
 * Read-only: safe on a const document and from several threads.  Feature
 * names are interned, so a feature called `name` has exactly this pointer
 * as its name: writers looking up the same features on every token compare
 * pointers instead of strings. */
const char *crfp_doc_name(const crfp_doc *doc, const char *name);

/* Set (replace) STRING feature `name` to `s` without copying it: `s` must
 * stay valid and unchanged as long as the document (inside a buffer given
 * to crfp_doc_adopt, static storage, or a string of this document).  It is
 * checked for UTF-8 as crfp_ann_set checks copies.  Errors: CRFP_EINVAL
 * (NULL name or s), CRFP_EUTF8, CRFP_ENOMEM; no message is recorded. */
crfp_status crfp_ann_set_str_ref(crfp_doc *doc, crfp_ann *ann, const char *name, const char *s);

/* Set n STRING features at once, names[i] = values[i], without copying the
 * values (as crfp_ann_set_str_ref, whose rules they follow): what a column
 * reader does for every token, in one call.  lens[i], when lens is not
 * NULL, is strlen(values[i]) (values[i][lens[i]] must be NUL), which the
 * reader knows and which makes the UTF-8 check a word-at-a-time scan.  A
 * name the annotation already has is replaced, a name repeated in `names`
 * takes its last value.  Errors as crfp_ann_set_str_ref (CRFP_EINVAL also
 * for a length that does not end at a NUL); on error the features set so
 * far stay. */
crfp_status crfp_ann_set_strs_ref(crfp_doc *doc, crfp_ann *ann, const char *const *names,
                                  const char *const *values, const size_t *lens, size_t n);

/* Room for `n` features in total on `ann`, so that setting that many
 * allocates no further (a reader knows how many columns its tokens have).
 * CRFP_ENOMEM only. */
crfp_status crfp_ann_reserve(crfp_doc *doc, crfp_ann *ann, size_t n);

/* Bytes of memory the document holds (its arena, arrays, text and adopted
 * buffers), for measurements such as bytes per token. */
size_t crfp_doc_memory(const crfp_doc *doc);

/* --- comparison --------------------------------------------------------- */

/* Deep equality of two values (lists element-wise).  Floats compare bit for
 * bit, so NaN equals itself and -0 differs from 0: this is the equality of
 * a lossless round trip, not of arithmetic.  Neither may be NULL. */
int crfp_value_equal(const crfp_value *a, const crfp_value *b);

/* Deep comparison of two documents: id, text, offset unit, meta, sets in
 * order with their processors, annotations in insertion order with their
 * ids, spans and features in order.  Returns 1 when equal; otherwise 0 and,
 * when `why` is not NULL, a one-line description of the first difference
 * in why[0..whylen) (truncated to fit; untouched when equal). */
int crfp_doc_equal(const crfp_doc *a, const crfp_doc *b, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
