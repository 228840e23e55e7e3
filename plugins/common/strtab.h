/* strtab — distinct strings numbered in order of first appearance.
 *
 * A helper compiled into the plugins that group tokens by a string
 * (majority, tagdict); not part of the plugin ABI.  Open addressing, grown
 * at half load, so that grouping n strings is linear in n.  The table does
 * not copy the strings: each must stay valid and unchanged as long as the
 * table.  A zeroed strtab is an empty table. */
#ifndef CRFP_PLUGINS_STRTAB_H
#define CRFP_PLUGINS_STRTAB_H

#include <stddef.h>
#include <stdint.h>

/* Linked into each plugin, exported by none. */
#if defined(__GNUC__)
#define PLUGIN_COMMON_API __attribute__((visibility("hidden")))
#else
#define PLUGIN_COMMON_API
#endif

typedef struct strtab {
    /* (hash << 32) | (id + 1), 0 = empty; mask + 1 = 2^k entries.  The hash
     * beside the id lets a probe reject another string without reading it:
     * over a lexicon of 10^5 words each string read is a cache miss, and a
     * tagger looks up two forms of every token in each dictionary. */
    uint64_t *slot;
    size_t mask;
    const char **strs;  /* id -> string */
    size_t n, cap;      /* strings, room in strs */
} strtab;

/* Frees the table's arrays (not the strings) and leaves it empty. */
PLUGIN_COMMON_API void strtab_free(strtab *t);

/* The id of s (0, 1, ... in order of first appearance), adding s if it is
 * new; -1 when out of memory or when the table already holds 2^32 - 2
 * strings (the table is then unchanged). */
PLUGIN_COMMON_API long strtab_id(strtab *t, const char *s);

/* The id of s, or -1 if it is not in the table. */
PLUGIN_COMMON_API long strtab_find(const strtab *t, const char *s);

#endif
