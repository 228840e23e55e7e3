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
#include "crfpipe/status.h"

typedef struct crfp_dict {
    char *arena;          /* all strings, each followed by '\0' */
    size_t arena_len, arena_cap;
    uint64_t *off;        /* off[id]: start of string id in arena */
    uint32_t *len;        /* len[id]: its length without the NUL */
    uint32_t *hash;       /* hash[id]: its 32-bit hash (crfp_dict_hash) */
    uint32_t n, cap;      /* strings stored / capacity of off,len,hash */
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

/* The 32-bit hash the table uses (8 bytes per step, then mixed). */
uint32_t crfp_dict_hash(const char *s, size_t len);

/* Id of s[0..len) or -1.  Read-only: safe from many threads. */
int64_t crfp_dict_find(const crfp_dict *d, const char *s, size_t len);
/* Same with the hash already computed (callers batching lookups hash and
 * prefetch first, then find). */
int64_t crfp_dict_find_h(const crfp_dict *d, const char *s, size_t len, uint32_t h);

/* Batched lookups in three steps, each over a whole batch so that cache
 * misses overlap: crfp_dict_prefetch(h); then crfp_dict_probe(h), which
 * returns the first slot holding hash h (or UINT32_MAX: absent) and asks
 * for its string; then crfp_dict_confirm(slot, s, len, h), the id or -1. */
uint32_t crfp_dict_probe(const crfp_dict *d, uint32_t h);
int64_t crfp_dict_confirm(const crfp_dict *d, uint32_t slot, const char *s, size_t len,
                          uint32_t h);

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
    if (len)
        *len = d->len[id];
    return d->arena + d->off[id];
}

/* Reserve room for `n` more strings totalling `bytes` characters, so that a
 * loader knowing the sizes avoids rehashing.  Errors: CRFP_ENOMEM. */
crfp_status crfp_dict_reserve(crfp_dict *d, size_t n, size_t bytes);

#endif
