/* tdict — a tag dictionary: for each word, the tags it was seen with and
 * how often, and the same for its lowercased form.  The data structure of
 * the tagdict and tagdict_build plugins; not part of the plugin ABI.
 *
 * Words and tags added are not copied: they must stay valid as long as the
 * dictionary (strings of a document, or of a loaded file's buffer, which
 * the dictionary then owns).  Lowercased forms are the dictionary's own.
 * Functions returning int give 0, or -1 when out of memory. */
#ifndef CRFP_TDICT_H
#define CRFP_TDICT_H

#include <stddef.h>
#include <stdint.h>
#include <unicode/ucasemap.h>

#include "crfpipe/crfpipe.h"

#include "strtab.h"

/* A map from 64-bit keys to 32-bit values (open addressing): (entry id,
 * tag id) -> the tag's index in the entry's counts; an address -> an index */
typedef struct tdict_pairs {
    uint64_t *key;  /* key + 1; 0 = empty */
    uint32_t *val;
    size_t mask, n;
} tdict_pairs;

/* The pair map (tdict.c): the value of `key`, or -1; add `key` (not in the
 * map) with `val` (0, or -1 when out of memory); free its arrays. */
PLUGIN_COMMON_API long tdict_pairs_find(const tdict_pairs *p, uint64_t key);
PLUGIN_COMMON_API int tdict_pairs_put(tdict_pairs *p, uint64_t key, uint32_t val);
PLUGIN_COMMON_API void tdict_pairs_free(tdict_pairs *p);

/* Scratch space of one caller of tdict_lookup (one per thread): zeroed
 * before the first use, freed by tdict_scratch_free. */
typedef struct tdict_scratch {
    char *low;
    size_t lowcap;
    /* tdict_put: the document's interned copy of each dictionary string
     * already set in `doc`, so that a class is hashed into the document
     * once, not once per token */
    const crfp_doc *doc;
    tdict_pairs seen;   /* address -> index in `to` */
    const char **to;
    size_t n, tocap;
} tdict_scratch;

PLUGIN_COMMON_API void tdict_scratch_free(tdict_scratch *s);

/* Forget tdict_put's interned copies: needed before `s` serves another
 * document or a changed dictionary (a freed document's or dictionary's
 * addresses may be reused by the next). */
PLUGIN_COMMON_API void tdict_scratch_forget(tdict_scratch *s);

typedef struct tdict_counts {
    uint32_t *tag, *count; /* tag ids and counts, in order of first appearance */
    uint32_t n, cap;
} tdict_counts;


typedef struct tdict {
    const UCaseMap *lower;  /* borrowed; ICU's root-locale lowercasing */
    strtab tags, words, lwords;
    tdict_counts *wc, *lc;  /* per word id, per lowercased-form id */
    size_t wcap, lcap;
    tdict_pairs wp, lp;
    /* tdict_freeze's answers: per word its class and commonest tag, per
     * lowercased form its class */
    char **wamb, **lamb;
    const char **wtop;
    int frozen;
    char **own;             /* lowercased forms, the file buffer */
    size_t nown, capown;
    tdict_scratch add;      /* tdict_add's lowercasing */
} tdict;

/* An empty dictionary that lowercases with `lower` (not owned). */
PLUGIN_COMMON_API void tdict_init(tdict *d, const UCaseMap *lower);

/* Frees everything the dictionary owns; d is then empty again. */
PLUGIN_COMMON_API void tdict_free(tdict *d);

/* Count `count` more occurrences of `word` with `tag` (a frozen dictionary
 * thaws: its answers are recomputed by the next tdict_freeze). */
PLUGIN_COMMON_API int tdict_add(tdict *d, const char *word, const char *tag, uint32_t count);

/* Give the dictionary `buf` (malloc'd) to free with itself: the buffer of
 * a loaded file, whose strings it keeps.  0, or -1 when out of memory (buf
 * is then still the caller's). */
PLUGIN_COMMON_API int tdict_own(tdict *d, char *buf);

/* Compute every word's answers once, so that lookups are two hash finds
 * (tdict_load freezes what it reads).  0, or -1 when out of memory. */
PLUGIN_COMMON_API int tdict_freeze(tdict *d);

/* Longest class written out: a longer one is "|many:N" (N tags; no class
 * of tags starts with '|', since tags are never empty nor contain one). */
#define TDICT_CLASS_MAX 1024

/* What a frozen dictionary says about `word` (valid UTF-8): *amb, its tags
 * sorted bytewise and joined by '|' (or "|many:N", see TDICT_CLASS_MAX);
 * *lc, the same for every form with its lowercase; *top, its commonest
 * tag, ties to the first seen.  Each is `unknown` when the dictionary has
 * not got the word (the lowercased form).  The strings belong to the
 * dictionary (valid until it changes) or are `unknown`.  Reads `d` only,
 * so threads may look up concurrently, each with its own scratch.  -1 when out of memory or when
 * `d` is not frozen. */
PLUGIN_COMMON_API int tdict_lookup(const tdict *d, const char *word, const char *unknown,
                                   tdict_scratch *s, const char **amb, const char **lc,
                                   const char **top);

/* Write the dictionary to `path` (atomically: a temporary file renamed):
 * a header line "#crfpipe-tagdict 1", then one line per word in order of
 * first appearance, "word TAB tag TAB count [TAB tag TAB count ...]".
 * Returns 0, or an errno value. */
PLUGIN_COMMON_API int tdict_save(const tdict *d, const char *path);

/* Read a dictionary written by tdict_save into the empty `d` (which then
 * owns the file's contents).  0 on success; otherwise -1 and a message of
 * the form "line N: what is wrong" (or the system's error) in err. */
PLUGIN_COMMON_API int tdict_load(tdict *d, const char *path, char *err, size_t errsize);

/* The settings both dictionary stages take (parameters key, output, unknown,
 * set, dict) and ICU's lowercasing, opened by tdict_conf_open (CRFP_OK, or
 * an error recorded on `host`, messages prefixed by `stage`) and freed by
 * tdict_conf_close. */
typedef struct tdict_conf {
    char *path, *key, *set, *unknown;
    char *names[3];  /* PREFIX, PREFIXlc, PREFIXtop */
    UCaseMap *lower;
} tdict_conf;

PLUGIN_COMMON_API crfp_status tdict_conf_open(crfp_host *host, const char *stage,
                                              const crfp_params *params, tdict_conf *c);
PLUGIN_COMMON_API void tdict_conf_close(tdict_conf *c);

/* Set the features names[0..2] of token `ann` of `doc` to what d says
 * about `word` (amb, lc, top as tdict_lookup), the values interned in the
 * document once each: `s` remembers the copies (tdict_scratch_forget
 * before another document or dictionary).  CRFP_ENOMEM, or the setter's
 * error. */
PLUGIN_COMMON_API crfp_status tdict_put(const tdict *d, crfp_doc *doc, crfp_ann *ann,
                                        const char *const names[3], const char *word,
                                        const char *unknown, tdict_scratch *s);

#endif
