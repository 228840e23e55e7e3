/* Large arrays on huge pages where available (see alloc.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "crfpipe/alloc.h"

#define HUGE_PAGE ((size_t)2 << 20)
/* From here on an array goes to huge pages: at most half a huge page is
 * wasted, against a page fault per 4 KiB (expensive on virtual machines)
 * and TLB misses on every scattered access. */
#define BIG_MIN ((size_t)1 << 20)

void *crfp_big_alloc(size_t bytes)
{
    if (bytes < BIG_MIN)
        return malloc(bytes ? bytes : 1);
    size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, len) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    /* Advice only: without transparent huge pages the array still works.
     * A huge page is resident whole once touched, so the last, partial one
     * is asked for only when the array fills most of it: otherwise its
     * part stays on 4 KiB pages, and the up to 2 MiB past the array's end
     * are never made resident (a loaded model's dozen arrays of 1 - 3 MiB
     * each wasted ~1 MiB this way, 9 MB of tagging's resident set). */
    size_t huge = bytes / HUGE_PAGE * HUGE_PAGE;
    if (bytes - huge >= HUGE_PAGE / 4 * 3)
        huge = len;
    if (huge)
        madvise(p, huge, MADV_HUGEPAGE);
#endif
    return p;
}

void *crfp_big_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    void *p = crfp_big_alloc(bytes);
    if (p && bytes)
        memset(p, 0, bytes);
    return p;
}

void *crfp_big_realloc(void *p, size_t old, size_t bytes)
{
    if (bytes < BIG_MIN)
        return realloc(p, bytes ? bytes : 1);
    void *q = crfp_big_alloc(bytes);
    if (!q)
        return NULL;
    if (p)
        memcpy(q, p, old < bytes ? old : bytes);
    free(p);
    return q;
}
