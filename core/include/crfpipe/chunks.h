/* crfpipe — chunks in label sequences, with the boundary rules of the CoNLL
 * shared tasks' conlleval script (IOB1, IOB2/BIO, IOE, bracket tags), so
 * that spans a tagger emits and the chunk F1 that `crfpipe eval` prints
 * agree with the standard scorer.
 *
 * A label "B-NP" has tag "B" and type "NP"; "O" has tag "O" and type "".
 */
#ifndef CRFPIPE_CHUNKS_H
#define CRFPIPE_CHUNKS_H

#include <stddef.h>
#include "crfpipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crfp_chunk_label {
    char tag[16];       /* truncated beyond 15 bytes */
    char type[64];      /* "" when none; a type of 64 bytes or more is kept as its
                           first bytes, '~' and 16 hex digits of a hash of the
                           whole, so that long types stay distinct */
} crfp_chunk_label;

/* Split a label as conlleval does: the tag before the first '-', the type
 * after it (hyphens included).  NULL is treated as "O".  Both parts are
 * copied into the caller's *out (the tag truncated to its field, a long
 * type shortened as said above); cannot fail. */
void crfp_chunk_split(const char *label, crfp_chunk_label *out);

/* conlleval's endOfChunk / startOfChunk between consecutive labels: 1 or 0.
 * Pure; cannot fail. */
int crfp_chunk_ends(const crfp_chunk_label *prev, const crfp_chunk_label *cur);
int crfp_chunk_starts(const crfp_chunk_label *prev, const crfp_chunk_label *cur);

/* Whether every label looks like O, B-x, I-x (E-x, S-x): spans make sense.
 * 0 as well when no label has a type (all "O", or n == 0).  The n labels
 * must not be NULL.  Pure; cannot fail. */
int crfp_labels_are_chunked(const char *const *labels, size_t n);

/* Spans of one labelled sentence: calls `emit(ud, start, end, type)` for
 * each chunk [start, end) in token indexes, in order.  `type` points to a
 * copy on this function's stack, valid only during the call.  NULL labels
 * read as "O".  Allocates nothing; cannot fail. */
void crfp_chunk_spans(const char *const *labels, size_t n,
                                        void (*emit)(void *ud, size_t start, size_t end, const char *type),
                      void *ud);

/* Chunk-level scoring exactly as conlleval: feed tokens sentence by
 * sentence, then read the totals. */
typedef struct crfp_chunk_type_stats {
    char *type;
    size_t correct, found_gold, found_guess;
} crfp_chunk_type_stats;

typedef struct crfp_chunkeval {
    size_t tokens, correct_tags;
    size_t correct_chunks, found_gold, found_guess;
    crfp_chunk_type_stats *types;   /* sorted by type at the end */
    size_t ntypes, captypes;
    /* running state */
    crfp_chunk_label last_gold, last_guess;
    int in_correct;
} crfp_chunkeval;

/* Start an empty evaluator in the caller's *e.  Allocates nothing, so it
 * cannot fail; what the calls below allocate (types and its strings, owned
 * by *e) is released by crfp_chunkeval_free. */
void crfp_chunkeval_init(crfp_chunkeval *e);
/* One token; gold/guess label strings (read during the call only; NULL
 * reads as "O").  CRFP_ENOMEM only (the per-type table could not grow: the
 * totals are then incomplete, and *e may only be freed). */
crfp_status crfp_chunkeval_token(crfp_chunkeval *e, const char *gold, const char *guess);
/* End of sentence (conlleval's boundary line).  CRFP_ENOMEM only, as
 * crfp_chunkeval_token. */
crfp_status crfp_chunkeval_boundary(crfp_chunkeval *e);
/* Close the last chunk; sort the per-type table.  CRFP_ENOMEM only, as
 * crfp_chunkeval_token.  The totals and e->types stay readable until
 * crfp_chunkeval_free. */
crfp_status crfp_chunkeval_finish(crfp_chunkeval *e);
/* Free the per-type table and its strings and zero *e (e must not be NULL;
 * crfp_chunkeval_init it again before reuse). */
void crfp_chunkeval_free(crfp_chunkeval *e);

#ifdef __cplusplus
}
#endif
#endif
