/* crfpipe — allocation of large arrays (parameter vectors, gradients,
 * hash tables), and the reserve that keeps fragile library calls from
 * crashing when memory runs out.
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
#include "crfpipe/status.h"

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

/* --- reserve sections -------------------------------------------------------
 *
 * libxml2 2.9 (compiling a RELAX NG schema, validating against one) and ICU
 * 72 (compiling a regular expression) crash instead of failing when some of
 * their allocations fail.  A call to one of them made inside a reserve
 * section cannot see an allocation fail: what malloc refuses it is given
 * from a reserve kept for the purpose (16 MiB of address space, used only
 * then), so it completes; crfp_reserve_leave() then says that memory ran
 * out, and the caller discards the result and fails with CRFP_ENOMEM.  The
 * reserve covers the libraries' allocations only (installed with
 * xmlMemSetup and u_setMemoryFunctions by crfp_reserve_install, which
 * crfp_host_new calls), not the caller's own, which must be checked as
 * usual.
 *
 *     crfp_reserve_section rs;
 *     if (crfp_reserve_enter(&rs) != CRFP_OK)
 *         return crfp_error(host, CRFP_ENOMEM, "out of memory");
 *     rx = uregex_open(...);
 *     if (crfp_reserve_leave(&rs)) { uregex_close(rx); ... CRFP_ENOMEM }
 *
 * Sections nest and are per thread; the section lives on the caller's
 * stack.  Keep them around the fragile call only: everything allocated in
 * one while memory is short comes from the reserve. */
typedef struct crfp_reserve_section {
    struct crfp_reserve_section *prev; /* enclosing section of this thread */
    int drawn;                          /* set when the reserve was drawn on */
} crfp_reserve_section;

/* Install the allocator hooks (once per process; later calls do nothing).
 * ICU takes them only before its first use, so a program that uses ICU
 * before creating a host should call this first.  Cannot fail: a library
 * that refuses the hooks is left unprotected, and its calls run as usual. */
void crfp_reserve_install(void);

/* Enter a section.  CRFP_ENOMEM (nothing entered, no message recorded)
 * when the reserve cannot be mapped: the fragile call must then not be
 * made.  *s is the caller's; a section entered with CRFP_OK must be left
 * with crfp_reserve_leave(s) on the same thread. */
crfp_status crfp_reserve_enter(crfp_reserve_section *s);

/* Leave the section entered last on this thread.  Returns 1 when an
 * allocation inside it had to be served from the reserve (memory ran out:
 * discard the result, report CRFP_ENOMEM), else 0.  s must be that section.
 * Cannot fail. */
int crfp_reserve_leave(crfp_reserve_section *s);

#ifdef __cplusplus
}
#endif
#endif
