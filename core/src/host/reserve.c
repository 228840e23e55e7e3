/* crfpipe — the allocation reserve for libraries that crash when an
 * allocation fails (see "reserve sections" in alloc.h).
 *
 * libxml2 2.9 (RELAX NG schema compilation and validation: the XML Schema
 * datatype tables, facet regexps, validation states) and ICU 72 (the
 * constructor of RegexPattern) use the result of some allocations without
 * checking it, so a failure inside them is a segmentation fault, not an
 * error.  Nothing outside those libraries can make their code check; what
 * can be done is to see that, inside the few calls known to be fragile, an
 * allocation never fails: both libraries let the application supply their
 * allocator (xmlMemSetup, u_setMemoryFunctions).  The functions installed
 * here pass every call to the previous allocator (malloc), and only when it
 * fails *and* the calling thread is inside a reserve section serve the
 * request from a reserve set aside for this.  The call then completes, the
 * section records that memory ran out, and the caller throws the result
 * away and reports CRFP_ENOMEM.
 *
 * This is process-wide state, like the plugin registry and for the same
 * reason: the libraries' allocator hooks are process-wide.  It consists of
 * the previous hooks (written once, under pthread_once), the reserve (one
 * mapping made on first need and never returned, since blocks served from
 * it can end up in the libraries' own global tables) with its free lists
 * under a mutex, and a thread-local pointer to the innermost section of the
 * calling thread.  Outside sections the hooks cost one extra call and one
 * range check per free.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <libxml/xmlmemory.h>
#include <unicode/uclean.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "crfpipe/alloc.h"

/* 16 MiB of address space, touched only as far as it is used: compiling
 * document.rng from scratch and validating a pipeline file against
 * pipeline.rng need about 1 MiB of libxml2 memory in all; an ICU regex a
 * few kB.  Blocks come in power-of-two classes from 32 bytes to the whole
 * reserve and are reused once freed, so a long validation running on the
 * reserve needs its peak, not its total. */
#define RESERVE_BYTES ((size_t)16 << 20)
#define MIN_SHIFT 5
#define MAX_SHIFT 24
#define HDR 16 /* class, kept 16-byte aligned for the block that follows */

static struct {
    pthread_once_t once;
    /* libxml2's allocator before ours (normally malloc and friends). */
    xmlFreeFunc xfree;
    xmlMallocFunc xmalloc;
    xmlReallocFunc xrealloc;
    xmlStrdupFunc xstrdup;
    int xml_hooked, icu_hooked;

    pthread_mutex_t mu;
    unsigned char *_Atomic base; /* the reserve, once mapped */
    size_t used;                 /* bytes carved from it so far */
    void *free_list[MAX_SHIFT + 1];
} R = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER};

/* The innermost section of this thread, NULL outside any. */
static _Thread_local crfp_reserve_section *current;

static int in_reserve(const void *p)
{
    const unsigned char *b = atomic_load_explicit(&R.base, memory_order_acquire);
    return b && (const unsigned char *)p >= b && (const unsigned char *)p < b + RESERVE_BYTES;
}

static size_t block_capacity(const void *p)
{
    size_t cls;
    memcpy(&cls, (const unsigned char *)p - HDR, sizeof cls);
    return ((size_t)1 << cls) - HDR;
}

/* A block of at least n bytes from the reserve, or NULL when it is
 * exhausted (the library will then see the failure it cannot handle: the
 * reserve is sized so that this does not happen for the calls guarded). */
static void *reserve_take(size_t n)
{
    unsigned char *b = atomic_load_explicit(&R.base, memory_order_acquire);
    if (!b || n > RESERVE_BYTES - HDR)
        return NULL;
    size_t cls = MIN_SHIFT;
    while (((size_t)1 << cls) < n + HDR)
        cls++;
    size_t size = (size_t)1 << cls;
    unsigned char *p = NULL;
    pthread_mutex_lock(&R.mu);
    if (R.free_list[cls]) {
        p = R.free_list[cls];
        memcpy(&R.free_list[cls], p, sizeof(void *));
    } else if (RESERVE_BYTES - R.used >= size) {
        p = b + R.used;
        R.used += size;
    }
    pthread_mutex_unlock(&R.mu);
    if (!p)
        return NULL;
    memcpy(p, &cls, sizeof cls);
    /* Every enclosing section of this thread ran out of memory too. */
    for (crfp_reserve_section *s = current; s; s = s->prev)
        s->drawn = 1;
    return p + HDR;
}

static void reserve_give(void *q)
{
    unsigned char *p = (unsigned char *)q - HDR;
    size_t cls;
    memcpy(&cls, p, sizeof cls);
    pthread_mutex_lock(&R.mu);
    memcpy(p, &R.free_list[cls], sizeof(void *));
    R.free_list[cls] = p;
    pthread_mutex_unlock(&R.mu);
}

/* --- the hooks ------------------------------------------------------------
 * Each takes from the previous allocator first, and from the reserve only
 * inside a section, when that failed. */

static void *take(void *(*prev)(size_t), size_t n)
{
    void *p = prev(n);
    if (!p && current)
        p = reserve_take(n ? n : 1);
    return p;
}

/* `p` was refused by prev_realloc: move it to the reserve.  Its size is
 * known only for blocks of the C library's malloc. */
static void *move_to_reserve(void *p, size_t n, void (*prev_free)(void *))
{
#ifdef __GLIBC__
    size_t have = malloc_usable_size(p);
    void *q = reserve_take(n);
    if (q) {
        memcpy(q, p, have < n ? have : n);
        prev_free(p);
    }
    return q;
#else
    (void)p, (void)n, (void)prev_free;
    return NULL;
#endif
}

static void *resize(void *p, size_t n, void *(*prev_malloc)(size_t),
                    void *(*prev_realloc)(void *, size_t), void (*prev_free)(void *),
                    int libc_blocks)
{
    if (!p)
        return take(prev_malloc, n);
    if (in_reserve(p)) {
        size_t have = block_capacity(p);
        if (n <= have)
            return p;
        void *q = take(prev_malloc, n);
        if (q) {
            memcpy(q, p, have);
            reserve_give(p);
        }
        return q;
    }
    void *q = prev_realloc(p, n);
    if (!q && n && current && libc_blocks)
        q = move_to_reserve(p, n, prev_free);
    return q;
}

static void xml_free(void *p)
{
    if (p && in_reserve(p))
        reserve_give(p);
    else
        R.xfree(p);
}

static void *xml_malloc(size_t n)
{
    return take(R.xmalloc, n);
}

static void *xml_realloc(void *p, size_t n)
{
    /* malloc_usable_size() applies only when libxml2's blocks are the C
     * library's, which is what its default allocator gives. */
    return resize(p, n, R.xmalloc, R.xrealloc, R.xfree,
                  R.xrealloc == realloc && R.xfree == free);
}

static char *xml_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = take(R.xmalloc, n);
    if (p)
        memcpy(p, s, n);
    return p;
}

/* ICU's default allocator is the C library's. */
static void *icu_alloc(const void *ctx, size_t n)
{
    (void)ctx;
    return take(malloc, n);
}

static void *icu_realloc(const void *ctx, void *p, size_t n)
{
    (void)ctx;
    return resize(p, n, malloc, realloc, free, 1);
}

static void icu_free(const void *ctx, void *p)
{
    (void)ctx;
    if (p && in_reserve(p))
        reserve_give(p);
    else
        free(p);
}

static void install(void)
{
    if (xmlMemGet(&R.xfree, &R.xmalloc, &R.xrealloc, &R.xstrdup) == 0 && R.xfree &&
        R.xmalloc && R.xrealloc &&
        xmlMemSetup(xml_free, xml_malloc, xml_realloc, xml_strdup) == 0)
        R.xml_hooked = 1;
    /* ICU accepts an allocator only before it has been used; if the
     * program used it first, ICU's fragile calls run unprotected. */
    UErrorCode err = U_ZERO_ERROR;
    u_setMemoryFunctions(NULL, icu_alloc, icu_realloc, icu_free, &err);
    R.icu_hooked = U_SUCCESS(err);
}

void crfp_reserve_install(void)
{
    pthread_once(&R.once, install);
}

crfp_status crfp_reserve_enter(crfp_reserve_section *s)
{
    s->prev = NULL;
    s->drawn = 0;
    crfp_reserve_install();
    if (!atomic_load_explicit(&R.base, memory_order_acquire)) {
        pthread_mutex_lock(&R.mu);
        if (!atomic_load_explicit(&R.base, memory_order_relaxed)) {
            void *m = mmap(NULL, RESERVE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
            if (m != MAP_FAILED)
                atomic_store_explicit(&R.base, m, memory_order_release);
        }
        pthread_mutex_unlock(&R.mu);
        /* Without a reserve the fragile call must not be made at all. */
        if (!atomic_load_explicit(&R.base, memory_order_acquire))
            return CRFP_ENOMEM;
    }
    s->prev = current;
    current = s;
    return CRFP_OK;
}

int crfp_reserve_leave(crfp_reserve_section *s)
{
    current = s->prev;
    return s->drawn;
}
