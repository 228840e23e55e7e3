/* crfpipe — allocation of large arrays (parameter vectors, gradients,
 * hash tables).
 *
 * Training and tagging touch weight blocks scattered over tens of
 * megabytes; with 4 KiB pages most of those touches also miss the TLB.
 * Arrays allocated here are aligned to 2 MiB and, where the system
 * supports it (Linux madvise MADV_HUGEPAGE), backed by huge pages.  Small
 * requests fall back to malloc.
 */
#ifndef CRFPIPE_ALLOC_H
#define CRFPIPE_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Uninitialised array of `bytes`; NULL when out of memory.  Free with
 * free(). */
void *crfp_big_alloc(size_t bytes);
/* Zeroed array of n * size bytes (NULL on overflow or out of memory).
 * Free with free(). */
void *crfp_big_calloc(size_t n, size_t size);
/* Grow or shrink p (NULL, or from malloc or the functions above; `old`
 * bytes of it are kept) to `bytes`, moving it to huge pages once it is
 * large enough.  NULL when out of memory, p then untouched.  Free with
 * free(). */
void *crfp_big_realloc(void *p, size_t old, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
