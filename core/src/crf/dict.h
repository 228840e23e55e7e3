/* crfpipe — string interning for labels and observations (internal).
 *
 * Strings live NUL-terminated in one growable arena, each preceded by its
 * length (4 bytes, native order), and are referred to by
 * dense ids in insertion order; an open-addressing table of ids (linear
 * probing, FNV-1a hashes kept alongside) finds them.  No per-string malloc:
 * loading a model with 300k+ observations or interning a large corpus costs a
 * handful of reallocations.
 */
#ifndef CRFP_CRF_DICT_H
#define CRFP_CRF_DICT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "crfpipe/status.h"

typedef struct crfp_dict {
    char *arena;          /* all strings, each followed by '\0' */
    size_t arena_len, arena_cap;
    uint64_t *off;        /* off[id]: start of string id in arena (its length
                           * is the 4 bytes before it) */
    uint32_t n, cap;      /* strings stored / capacity of off */
    /* The table: hash, id and arena offset per slot (id UINT32_MAX =
     * empty); size mask+1.  A lookup reads its slot and then the string
     * itself, whose length is stored just before it in the arena: two
     * cache lines, the first prefetchable (crfp_dict_prefetch). */
    struct crfp_dslot {
        uint32_t hash, id;
        uint64_t off;
    } *slots;
    uint32_t mask;
} crfp_dict;

/* Zero-initialised dict is valid and empty; free releases its memory. */
void crfp_dict_init(crfp_dict *d);
void crfp_dict_free(crfp_dict *d);

/* FNV-1a 64-bit of a byte range (also used for model checksums). */
uint64_t crfp_fnv1a64(const void *p, size_t n, uint64_t h);
#define CRFP_FNV64_INIT 0xcbf29ce484222325ULL

/* Unaligned loads: 8 bytes in native order (a fixed-size copy compiles to
 * one load), 4 bytes little-endian (the order of the hash's tail word). */
static inline uint64_t crfp_dict_ld64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static inline uint64_t crfp_dict_le32(const char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap32(w);
#endif
    return w;
}

/* The 1..7 bytes of a tail as one little-endian word: two overlapping loads
 * (or three byte reads) rather than a loop, and nothing read past the end.
 * Overlapping bytes are ORed with themselves, so the value is exactly the
 * bytes in order. */
static inline uint64_t crfp_dict_tail(const char *p, size_t n)
{
    if (n >= 4)
        return crfp_dict_le32(p) | crfp_dict_le32(p + n - 4) << (8 * (n - 4));
    const unsigned char *b = (const unsigned char *)p;
    return (uint64_t)b[0] | (uint64_t)b[n >> 1] << (8 * (n >> 1)) |
           (uint64_t)b[n - 1] << (8 * (n - 1));
}

/* The 32-bit hash the table uses (8 bytes per step, then mixed).  Inline:
 * the tagger hashes every observation of every sentence. */
static inline uint32_t crfp_dict_hash_inline(const char *s, size_t len)
{
    /* FNV-style multiply over 8-byte words, then a final avalanche so that
     * keys differing in their last bytes spread over the whole table. */
    uint64_t h = CRFP_FNV64_INIT ^ (uint64_t)len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        h = (h ^ crfp_dict_ld64(s + i)) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    if (i < len)
        h = (h ^ crfp_dict_tail(s + i, len - i)) * 0x100000001b3ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

uint32_t crfp_dict_hash(const char *s, size_t len);

/* Whether a[0..n) == b[0..n): words, the last one overlapping, no call. */
static inline int crfp_dict_same(const char *a, const char *b, size_t n)
{
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 < n; i += 8)
            if (crfp_dict_ld64(a + i) != crfp_dict_ld64(b + i))
                return 0;
        return crfp_dict_ld64(a + n - 8) == crfp_dict_ld64(b + n - 8);
    }
    if (n == 0)
        return 1;
    return crfp_dict_tail(a, n) == crfp_dict_tail(b, n);
}

/* Id of s[0..len) or -1.  Read-only: safe from many threads. */
int64_t crfp_dict_find(const crfp_dict *d, const char *s, size_t len);
/* Same with the hash already computed (callers batching lookups hash and
 * prefetch first, then find). */
int64_t crfp_dict_find_h(const crfp_dict *d, const char *s, size_t len, uint32_t h);

/* Bytes of the length stored before each string in the arena. */
#define CRFP_DICT_PREFIX 4

/* Batched lookups in three steps, each over a whole batch so that cache
 * misses overlap: crfp_dict_prefetch(h); then crfp_dict_probe(h), which
 * returns the first slot holding hash h (or UINT32_MAX: absent) and asks
 * for its string; then crfp_dict_confirm(slot, s, len, h), the id or -1.
 * Inline: these run for every observation the tagger sees. */
static inline uint32_t crfp_dict_probe(const crfp_dict *d, uint32_t h)
{
    if (!d->slots)
        return UINT32_MAX;
    for (uint32_t i = h & d->mask;; i = (i + 1) & d->mask) {
        const struct crfp_dslot *e = &d->slots[i];
        if (e->id == UINT32_MAX)
            return UINT32_MAX;
        if (e->hash == h) {
#if defined(__GNUC__)
            __builtin_prefetch(d->arena + e->off - CRFP_DICT_PREFIX, 0, 1);
#endif
            return i;
        }
    }
}

/* The rest of a probe chain after a 32-bit hash collision (rare). */
int64_t crfp_dict_confirm_slow(const crfp_dict *d, uint32_t slot, const char *s, size_t len,
                               uint32_t h);

static inline int64_t crfp_dict_confirm(const crfp_dict *d, uint32_t slot, const char *s,
                                        size_t len, uint32_t h)
{
    if (slot == UINT32_MAX)
        return -1;
    const struct crfp_dslot *e = &d->slots[slot];
    const char *p = d->arena + e->off;
    uint32_t n;
    memcpy(&n, p - CRFP_DICT_PREFIX, CRFP_DICT_PREFIX);
    if (n == len && crfp_dict_same(p, s, len))
        return e->id;
    return crfp_dict_confirm_slow(d, slot, s, len, h);
}

/* Ask for the table slot of hash h ahead of a crfp_dict_find_h. */
static inline void crfp_dict_prefetch(const crfp_dict *d, uint32_t h)
{
#if defined(__GNUC__)
    if (d->slots)
        __builtin_prefetch(&d->slots[h & d->mask], 0, 1);
#else
    (void)d;
    (void)h;
#endif
}

/* Id of s[0..len), adding it when new (*added set to 1, may be NULL).
 * Errors: CRFP_ENOMEM; CRFP_EINVAL for strings of 4 GiB or more, or when the
 * dict already holds 2^30 strings. */
crfp_status crfp_dict_intern(crfp_dict *d, const char *s, size_t len, uint32_t *id, int *added);

/* String of an id (< d->n), owned by the dict, valid until the next intern. */
static inline const char *crfp_dict_str(const crfp_dict *d, uint32_t id, size_t *len)
{
    const char *s = d->arena + d->off[id];
    if (len) {
        uint32_t n;
        memcpy(&n, s - CRFP_DICT_PREFIX, CRFP_DICT_PREFIX);
        *len = n;
    }
    return s;
}

/* Reserve room for `n` more strings totalling `bytes` characters, so that a
 * loader knowing the sizes avoids rehashing.  Errors: CRFP_ENOMEM. */
crfp_status crfp_dict_reserve(crfp_dict *d, size_t n, size_t bytes);

/* Give back the arena's unused capacity (a loader that could not know the
 * strings' total size ends with up to half of it unused).  The dict stays
 * valid and may grow again.  Errors: CRFP_ENOMEM (nothing changed). */
crfp_status crfp_dict_shrink(crfp_dict *d);

#endif
