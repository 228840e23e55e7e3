/* crfpipe — what the engine sees of a crfp_obsseq (internal, not ABI).
 *
 * The public accessor hands out one token's strings at a time and leaves
 * their lengths to strlen.  The engine looks up every observation of a
 * sentence in batches, so it reads the entry arrays directly, with each
 * string's key length recorded when it was pushed.
 */
#ifndef CRFP_OBSSEQ_IMPL_H
#define CRFP_OBSSEQ_IMPL_H

#include <stddef.h>
#include "crfpipe/plugin.h"

/* Entries of a sentence, all owned by the crfp_obsseq and valid until its
 * next push or reset.  Entry k: str[k] (NUL-terminated), klen[k] the length
 * of its key, i.e. up to its first NUL (what strlen(str[k]) returns; an
 * observation is a C string even when more bytes were pushed), flags[k]. */
typedef struct crfp_obsview {
    size_t ntok, nent;
    const char *const *str;
    const size_t *klen;
    const unsigned char *flags;
    const size_t *tstart;   /* first entry of token t, for t < filled */
    size_t filled;
    const double *val;      /* per entry; NULL when every value is 1 */
} crfp_obsview;

/* Fill *v from o (not NULL). */
void crfp_obsseq_view(const crfp_obsseq *o, crfp_obsview *v);

/* Entries [*b, *e) of token t < v->ntok. */
static inline void crfp_obsview_range(const crfp_obsview *v, size_t t, size_t *b, size_t *e)
{
    *b = t < v->filled ? v->tstart[t] : v->nent;
    *e = t + 1 < v->filled ? v->tstart[t + 1] : v->nent;
}

#endif
