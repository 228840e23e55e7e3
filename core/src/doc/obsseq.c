/* crfp_obsseq: the observations of one sentence, in memory reused across
 * sentences.
 *
 * Strings live back to back in one arena, NUL-terminated, so a sentence of
 * any size costs no per-string allocation; reset only rewinds the counters.
 * Entries record their arena offset, because the arena may move when it
 * grows: the pointer array handed out by crfp_obsseq_get is rebuilt from the
 * offsets at that moment, which is why those pointers only live until the
 * next push or reset.
 *
 * Each entry also records its key length (bytes before the first NUL), found
 * while the bytes are copied, so that the engine never runs strlen over
 * strings it has just been handed.
 *
 * Values (CRFsuite's attribute values) are rare: the value array exists only
 * from the first value other than 1 in a sentence on (the entries before it
 * are then filled with 1), so that binary observations cost nothing and the
 * engine sees "no values" for a binary sentence.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "crfpipe/plugin.h"
#include "obsseq_impl.h"

struct crfp_obsseq {
    char *arena;            /* strings, each followed by '\0' */
    size_t alen, acap;
    size_t *soff;           /* per entry: offset of its string in arena */
    const char **sptr;      /* per entry: arena + soff, kept in sync */
    size_t *klen;           /* per entry: length up to the first NUL */
    unsigned char *flags;   /* per entry */
    double *val;            /* per entry, ecap long, when allocated */
    int hasval;             /* val holds this sentence's values */
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
    free(o->klen);
    free(o->flags);
    free(o->val);
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
    o->hasval = 0;
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
    size_t *kl = realloc(o->klen, cap * sizeof *kl);
    if (!kl)
        return CRFP_ENOMEM;
    o->klen = kl;
    unsigned char *fl = realloc(o->flags, cap);
    if (!fl)
        return CRFP_ENOMEM;
    o->flags = fl;
    if (o->val || o->hasval) {
        double *v = realloc(o->val, cap * sizeof *v);
        if (!v)
            return CRFP_ENOMEM;
        o->val = v;
    }
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

static inline uint64_t load64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline uint32_t load32(const char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* Non-zero iff some byte of w is zero (exact: no false positives for the
 * question "is there one", only for "which"). */
#define HASZERO64(w) (((w) - 0x0101010101010101ULL) & ~(w) & 0x8080808080808080ULL)
#define HASZERO32(w) (((w) - 0x01010101U) & ~(w) & 0x80808080U)

/* Copy n bytes and return the length of the C string they start with (n when
 * there is no NUL).  Words are read only inside [s, s+n): the last one
 * overlaps the one before instead of reading past the end. */
static size_t copy_key(char *dst, const char *s, size_t n)
{
    int zero;
    if (n >= 8) {
        uint64_t z = 0, w;
        size_t i = 0;
        for (; i + 8 < n; i += 8) {
            w = load64(s + i);
            memcpy(dst + i, &w, 8);
            z |= HASZERO64(w);
        }
        w = load64(s + n - 8);
        memcpy(dst + n - 8, &w, 8);
        z |= HASZERO64(w);
        zero = z != 0;
    } else if (n >= 4) {
        uint32_t a = load32(s), b = load32(s + n - 4);
        memcpy(dst, &a, 4);
        memcpy(dst + n - 4, &b, 4);
        zero = (HASZERO32(a) | HASZERO32(b)) != 0;
    } else {
        zero = 0;
        for (size_t i = 0; i < n; i++) {
            dst[i] = s[i];
            zero |= s[i] == '\0';
        }
    }
    if (!zero)
        return n;
    const char *nul = memchr(dst, 0, n);
    return (size_t)(nul - dst);
}

crfp_status crfp_obsseq_push(crfp_obsseq *o, size_t t, unsigned flags, const char *s, size_t len)
{
    /* t + 1 < filled also covers filled == 0, since t < ntok rules out
     * wrap-around. */
    if (!o || (!s && len) || t >= o->ntok || t + 1 < o->filled || len == SIZE_MAX)
        return CRFP_EINVAL;
    crfp_status st;
    if (o->nent == o->ecap && (st = grow_entries(o)) != CRFP_OK)
        return st;
    if (o->acap - o->alen < len + 1 && (st = grow_arena(o, len + 1)) != CRFP_OK)
        return st;
    /* Tokens skipped over (no observations) start where the next one does. */
    const size_t k = o->nent, at = o->alen;
    while (o->filled <= t)
        o->tstart[o->filled++] = k;
    /* The fields are read before the copy: stores through char pointers
     * could alias them and force reloads. */
    char *dst = o->arena + at;
    size_t *klen = o->klen, *soff = o->soff;
    const char **sptr = o->sptr;
    unsigned char *fl = o->flags;
    o->nent = k + 1;
    o->alen = at + len + 1;
    soff[k] = at;
    sptr[k] = dst;
    fl[k] = (unsigned char)flags;
    klen[k] = copy_key(dst, s, len);
    dst[len] = '\0';
    if (o->hasval)
        o->val[k] = 1.0;
    return CRFP_OK;
}

crfp_status crfp_obsseq_push_value(crfp_obsseq *o, size_t t, unsigned flags, const char *s,
                                   size_t len, double value)
{
    if (!o || !isfinite(value) || (value != 1.0 && (flags & CRFP_OBS_BIGRAM)))
        return CRFP_EINVAL;
    if (value != 1.0 && !o->hasval) {
        /* the first value of the sentence: every entry so far has 1 */
        if (!o->val && o->ecap) {
            o->val = malloc(o->ecap * sizeof *o->val);
            if (!o->val)
                return CRFP_ENOMEM;
        }
        for (size_t k = 0; k < o->nent; k++)
            o->val[k] = 1.0;
        o->hasval = 1;
    }
    crfp_status st = crfp_obsseq_push(o, t, flags, s, len);
    if (st == CRFP_OK && o->hasval)
        o->val[o->nent - 1] = value;
    return st;
}
void crfp_obsseq_view(const crfp_obsseq *o, crfp_obsview *v)
{
    v->ntok = o->ntok;
    v->nent = o->nent;
    v->str = o->sptr;
    v->klen = o->klen;
    v->flags = o->flags;
    v->tstart = o->tstart;
    v->filled = o->filled;
    v->val = o->hasval ? o->val : NULL;
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

const double *crfp_obsseq_values(const crfp_obsseq *o, size_t t)
{
    if (!o || !o->hasval || t >= o->ntok)
        return NULL;
    return o->val + (t < o->filled ? o->tstart[t] : o->nent);
}
