/* strtab — see strtab.h. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

static uint64_t str_hash(const char *s)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a, then its high bits folded down */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h ^ (h >> 29);
}

void strtab_free(strtab *t)
{
    free(t->slot);
    free(t->strs);
    memset(t, 0, sizeof *t);
}

static int grow(strtab *t)
{
    size_t ns = t->slot ? 2 * (t->mask + 1) : 64, ncap = ns / 2;
    size_t *slot = calloc(ns, sizeof *slot);
    const char **strs = slot ? realloc(t->strs, ncap * sizeof *strs) : NULL;
    if (!strs) {
        free(slot);
        return -1;
    }
    for (size_t id = 0; id < t->n; id++) {
        size_t i = str_hash(strs[id]) & (ns - 1);
        while (slot[i])
            i = (i + 1) & (ns - 1);
        slot[i] = id + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->strs = strs;
    t->mask = ns - 1;
    t->cap = ncap;
    return 0;
}

long strtab_find(const strtab *t, const char *s)
{
    if (!t->slot)
        return -1;
    for (size_t i = str_hash(s) & t->mask; t->slot[i]; i = (i + 1) & t->mask)
        if (strcmp(t->strs[t->slot[i] - 1], s) == 0)
            return (long)(t->slot[i] - 1);
    return -1;
}

long strtab_id(strtab *t, const char *s)
{
    long id = strtab_find(t, s);
    if (id >= 0)
        return id;
    if ((2 * (t->n + 1) > t->mask + 1 || t->n == t->cap) && grow(t) != 0)
        return -1;
    size_t i = str_hash(s) & t->mask;
    while (t->slot[i])
        i = (i + 1) & t->mask;
    t->strs[t->n] = s;
    t->slot[i] = ++t->n;
    return (long)(t->n - 1);
}
