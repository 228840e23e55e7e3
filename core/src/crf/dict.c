/* crfpipe — string interning: arena + open addressing (see dict.h). */
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "crfpipe/alloc.h"

#define EMPTY UINT32_MAX

void crfp_dict_init(crfp_dict *d)
{
    memset(d, 0, sizeof *d);
}

void crfp_dict_free(crfp_dict *d)
{
    if (!d)
        return;
    free(d->arena);
    free(d->off);
    free(d->slots);
    memset(d, 0, sizeof *d);
}

uint64_t crfp_fnv1a64(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint32_t crfp_dict_hash(const char *s, size_t len)
{
    return crfp_dict_hash_inline(s, len);
}

int64_t crfp_dict_find_h(const crfp_dict *d, const char *s, size_t len, uint32_t h)
{
    if (!d->slots)
        return -1;
    for (uint32_t i = h & d->mask;; i = (i + 1) & d->mask) {
        const struct crfp_dslot *e = &d->slots[i];
        if (e->id == EMPTY)
            return -1;
        if (e->hash != h)
            continue;
        const char *p = d->arena + e->off;
        uint32_t n;
        memcpy(&n, p - CRFP_DICT_PREFIX, CRFP_DICT_PREFIX);
        if (n == len && crfp_dict_same(p, s, len))
            return e->id;
    }
}

int64_t crfp_dict_confirm_slow(const crfp_dict *d, uint32_t slot, const char *s, size_t len,
                               uint32_t h)
{
    for (uint32_t i = (slot + 1) & d->mask;; i = (i + 1) & d->mask) {
        const struct crfp_dslot *f = &d->slots[i];
        if (f->id == EMPTY)
            return -1;
        if (f->hash != h)
            continue;
        const char *p = d->arena + f->off;
        uint32_t n;
        memcpy(&n, p - CRFP_DICT_PREFIX, CRFP_DICT_PREFIX);
        if (n == len && crfp_dict_same(p, s, len))
            return f->id;
    }
}

int64_t crfp_dict_find(const crfp_dict *d, const char *s, size_t len)
{
    return crfp_dict_find_h(d, s, len, crfp_dict_hash(s, len));
}

/* The entries move from the old table, which holds each one's hash: no
 * per-id copy of the hashes (nor of the lengths, which precede the strings
 * in the arena) is kept, 8 bytes per string less — 2.7 MB of a loaded
 * CoNLL-2000 model. */
static crfp_status rehash(crfp_dict *d, uint32_t nslots)
{
    struct crfp_dslot *slots = crfp_big_alloc((size_t)nslots * sizeof *slots);
    if (!slots)
        return CRFP_ENOMEM;
    for (uint32_t i = 0; i < nslots; i++)
        slots[i].id = EMPTY;
    uint32_t mask = nslots - 1;
    for (uint32_t k = 0; d->slots && k <= d->mask; k++) {
        const struct crfp_dslot *e = &d->slots[k];
        if (e->id == EMPTY)
            continue;
        uint32_t i = e->hash & mask;
        while (slots[i].id != EMPTY)
            i = (i + 1) & mask;
        slots[i] = *e;
    }
    free(d->slots);
    d->slots = slots;
    d->mask = mask;
    return CRFP_OK;
}

/* exact: a reservation, sized to what was asked (a model loader knows its
 * count); else doubling, for interning one at a time. */
static crfp_status grow_entries(crfp_dict *d, size_t want, int exact)
{
    if (want <= d->cap)
        return CRFP_OK;
    if (want > UINT32_MAX - 2)
        return CRFP_EINVAL;
    size_t cap = d->cap ? d->cap : 64;
    while (cap < want)
        cap *= 2;
    if (exact)
        cap = want;
    if (cap > UINT32_MAX - 1)
        cap = UINT32_MAX - 1;
    uint64_t *off = crfp_big_realloc(d->off, d->cap * sizeof *off, cap * sizeof *off);
    if (!off)
        return CRFP_ENOMEM;
    d->off = off;
    d->cap = (uint32_t)cap;
    return CRFP_OK;
}

static crfp_status grow_arena(crfp_dict *d, size_t want)
{
    if (want <= d->arena_cap)
        return CRFP_OK;
    size_t cap = d->arena_cap ? d->arena_cap : 4096;
    while (cap < want)
        cap *= 2;
    char *a = crfp_big_realloc(d->arena, d->arena_cap, cap);
    if (!a)
        return CRFP_ENOMEM;
    d->arena = a;
    d->arena_cap = cap;
    return CRFP_OK;
}

/* Keep the load factor at most 2/3.  At 1/2 a model of 338k observations
 * took 1M slots (16 MB, a sixth of what tagging keeps resident); at 2/3 it
 * takes 512k, and a miss (most lookups of unseen observations) still
 * reads one or two cache lines of 4 slots. */
static crfp_status ensure_slots(crfp_dict *d, size_t n)
{
    size_t need = 16;
    while (need < n + (n + 1) / 2)
        need *= 2;
    if (need > ((size_t)1 << 31))
        return CRFP_EINVAL;
    if (d->slots && (size_t)d->mask + 1 >= need)
        return CRFP_OK;
    return rehash(d, (uint32_t)need);
}

crfp_status crfp_dict_reserve(crfp_dict *d, size_t n, size_t bytes)
{
    crfp_status st = grow_entries(d, (size_t)d->n + n, 1);
    if (st == CRFP_OK)
        st = grow_arena(d, d->arena_len + bytes + (CRFP_DICT_PREFIX + 1) * n);
    if (st == CRFP_OK)
        st = ensure_slots(d, (size_t)d->n + n);
    return st;
}

crfp_status crfp_dict_intern(crfp_dict *d, const char *s, size_t len, uint32_t *id, int *added)
{
    if (added)
        *added = 0;
    if (len >= UINT32_MAX)
        return CRFP_EINVAL;
    crfp_status st = ensure_slots(d, (size_t)d->n + 1);
    if (st != CRFP_OK)
        return st;
    uint32_t h = crfp_dict_hash(s, len);
    int64_t have = crfp_dict_find_h(d, s, len, h);
    if (have >= 0) {
        *id = (uint32_t)have;
        return CRFP_OK;
    }
    uint32_t i = h & d->mask;
    while (d->slots[i].id != EMPTY)
        i = (i + 1) & d->mask;
    if ((st = grow_entries(d, (size_t)d->n + 1, 0)) != CRFP_OK)
        return st;
    if ((st = grow_arena(d, d->arena_len + CRFP_DICT_PREFIX + len + 1)) != CRFP_OK)
        return st;
    uint32_t nid = d->n++;
    uint32_t n32 = (uint32_t)len;
    memcpy(d->arena + d->arena_len, &n32, CRFP_DICT_PREFIX);
    d->arena_len += CRFP_DICT_PREFIX;
    d->off[nid] = d->arena_len;
    if (len)
        memcpy(d->arena + d->arena_len, s, len);
    d->arena[d->arena_len + len] = '\0';
    d->arena_len += len + 1;
    d->slots[i].hash = h;
    d->slots[i].id = nid;
    d->slots[i].off = d->off[nid];
    *id = nid;
    if (added)
        *added = 1;
    return CRFP_OK;
}

crfp_status crfp_dict_shrink(crfp_dict *d)
{
    if (d->arena && d->arena_len < d->arena_cap) {
        char *a = crfp_big_realloc(d->arena, d->arena_len, d->arena_len);
        if (!a)
            return CRFP_ENOMEM;
        d->arena = a;
        d->arena_cap = d->arena_len;
    }
    return CRFP_OK;
}
