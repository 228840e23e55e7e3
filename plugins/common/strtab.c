/* strtab — see strtab.h. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

static uint32_t str_hash(const char *s)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a, then its high bits folded down */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (uint32_t)(h ^ (h >> 32));
}

void strtab_free(strtab *t)
{
    free(t->slot);
    free(t->strs);
    memset(t, 0, sizeof *t);
}

/* Doubles the slots (re-placing every entry by its stored hash) and the
 * room for strings. */
static int grow(strtab *t)
{
    size_t ns = t->slot ? 2 * (t->mask + 1) : 64, ncap = ns / 2;
    uint64_t *slot = calloc(ns, sizeof *slot);
    const char **strs = slot ? realloc(t->strs, ncap * sizeof *strs) : NULL;
    if (!strs) {
        free(slot);
        return -1;
    }
    for (size_t k = 0; t->slot && k <= t->mask; k++) {
        if (!t->slot[k])
            continue;
        size_t i = (size_t)(t->slot[k] >> 32) & (ns - 1);
        while (slot[i])
            i = (i + 1) & (ns - 1);
        slot[i] = t->slot[k];
    }
    free(t->slot);
    t->slot = slot;
    t->strs = strs;
    t->mask = ns - 1;
    t->cap = ncap;
    return 0;
}

/* The slot holding s (hash h), or the empty slot where it would go. */
static size_t probe(const strtab *t, const char *s, uint32_t h)
{
    size_t i = h & t->mask;
    for (; t->slot[i]; i = (i + 1) & t->mask)
        if ((uint32_t)(t->slot[i] >> 32) == h &&
            strcmp(t->strs[(uint32_t)t->slot[i] - 1], s) == 0)
            break;
    return i;
}

long strtab_find(const strtab *t, const char *s)
{
    if (!t->slot)
        return -1;
    size_t i = probe(t, s, str_hash(s));
    return t->slot[i] ? (long)((uint32_t)t->slot[i] - 1) : -1;
}

long strtab_id(strtab *t, const char *s)
{
    const uint32_t h = str_hash(s);
    if (t->slot) {
        size_t i = probe(t, s, h);
        if (t->slot[i])
            return (long)((uint32_t)t->slot[i] - 1);
    }
    if (t->n >= UINT32_MAX - 1)
        return -1;
    if ((!t->slot || 2 * (t->n + 1) > t->mask + 1 || t->n == t->cap) && grow(t) != 0)
        return -1;
    size_t i = probe(t, s, h);
    t->strs[t->n] = s;
    t->slot[i] = (uint64_t)h << 32 | (uint64_t)(t->n + 1);
    return (long)t->n++;
}
