/* crfp_obsseq: the observations of one sentence, in memory reused across
 * sentences.
 *
 * Strings live back to back in one arena, NUL-terminated, so a sentence of
 * any size costs no per-string allocation; reset only rewinds the counters.
 * Entries record their arena offset, because the arena may move when it
 * grows: the pointer array handed out by crfp_obsseq_get is rebuilt from the
 * offsets at that moment, which is why those pointers only live until the
 * next push or reset.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "crfpipe/plugin.h"

struct crfp_obsseq {
    char *arena;            /* strings, each followed by '\0' */
    size_t alen, acap;
    size_t *soff;           /* per entry: offset of its string in arena */
    const char **sptr;      /* per entry: arena + soff, kept in sync */
    unsigned char *flags;   /* per entry */
    size_t nent, ecap;
    size_t *tstart;         /* per token: first entry; valid below `filled` */
    size_t ntok, tcap;
    size_t filled;          /* tokens whose start is known (t < filled) */
};

crfp_obsseq *crfp_obsseq_new(void)
{
    return calloc(1, sizeof(crfp_obsseq));
}

void crfp_obsseq_free(crfp_obsseq *o)
{
    if (!o)
        return;
    free(o->arena);
    free(o->soff);
    free(o->sptr);
    free(o->flags);
    free(o->tstart);
    free(o);
}

crfp_status crfp_obsseq_reset(crfp_obsseq *o, size_t ntok)
{
    if (!o)
        return CRFP_EINVAL;
    if (ntok > o->tcap) {
        size_t cap = o->tcap ? o->tcap : 64;
        while (cap < ntok)
            cap *= 2;
        size_t *ts = realloc(o->tstart, cap * sizeof *ts);
        if (!ts)
            return CRFP_ENOMEM;
        o->tstart = ts;
        o->tcap = cap;
    }
    o->ntok = ntok;
    o->filled = 0;
    o->nent = 0;
    o->alen = 0;
    return CRFP_OK;
}

static crfp_status grow_entries(crfp_obsseq *o)
{
    size_t cap = o->ecap ? o->ecap * 2 : 256;
    size_t *so = realloc(o->soff, cap * sizeof *so);
    if (!so)
        return CRFP_ENOMEM;
    o->soff = so;
    const char **sp = realloc(o->sptr, cap * sizeof *sp);
    if (!sp)
        return CRFP_ENOMEM;
    o->sptr = sp;
    unsigned char *fl = realloc(o->flags, cap);
    if (!fl)
        return CRFP_ENOMEM;
    o->flags = fl;
    o->ecap = cap;
    return CRFP_OK;
}

static crfp_status grow_arena(crfp_obsseq *o, size_t need)
{
    size_t cap = o->acap ? o->acap : 4096;
    while (cap - o->alen < need) {
        if (cap > SIZE_MAX / 2)
            return CRFP_ENOMEM;
        cap *= 2;
    }
    char *a = realloc(o->arena, cap);
    if (!a)
        return CRFP_ENOMEM;
    o->arena = a;
    o->acap = cap;
    /* Doubling makes this rebasing amortised O(1) per entry. */
    for (size_t i = 0; i < o->nent; i++)
        o->sptr[i] = a + o->soff[i];
    return CRFP_OK;
}

crfp_status crfp_obsseq_push(crfp_obsseq *o, size_t t, unsigned flags, const char *s, size_t len)
{
    if (!o || (!s && len) || t >= o->ntok || (o->filled && t + 1 < o->filled))
        return CRFP_EINVAL;
    if (len == SIZE_MAX)
        return CRFP_EINVAL;
    crfp_status st;
    if (o->nent == o->ecap && (st = grow_entries(o)) != CRFP_OK)
        return st;
    if (o->acap - o->alen < len + 1 && (st = grow_arena(o, len + 1)) != CRFP_OK)
        return st;
    /* Tokens skipped over (no observations) start where the next one does. */
    while (o->filled <= t)
        o->tstart[o->filled++] = o->nent;
    char *dst = o->arena + o->alen;
    if (len)
        memcpy(dst, s, len);
    dst[len] = '\0';
    o->soff[o->nent] = o->alen;
    o->sptr[o->nent] = dst;
    o->flags[o->nent] = (unsigned char)flags;
    o->nent++;
    o->alen += len + 1;
    return CRFP_OK;
}

size_t crfp_obsseq_ntok(const crfp_obsseq *o)
{
    return o ? o->ntok : 0;
}

void crfp_obsseq_get(const crfp_obsseq *o, size_t t, const char *const **strs,
                     const unsigned char **flags, size_t *n)
{
    if (!o || t >= o->ntok) {
        if (strs)
            *strs = NULL;
        if (flags)
            *flags = NULL;
        if (n)
            *n = 0;
        return;
    }
    size_t b = t < o->filled ? o->tstart[t] : o->nent;
    size_t e = t + 1 < o->filled ? o->tstart[t + 1] : o->nent;
    if (strs)
        *strs = o->sptr ? (const char *const *)o->sptr + b : NULL;
    if (flags)
        *flags = o->flags ? o->flags + b : NULL;
    if (n)
        *n = e - b;
}
