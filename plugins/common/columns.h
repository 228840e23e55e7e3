/* columns — a stage's new token features made columns of the document.
 *
 * Readers of column formats declare a document's columns in its "columns"
 * metadata (crfpipe/tokseq.h); a trainer's templates and the writers see
 * only those.  A tagger-kind stage that adds token features meant to be
 * read by a later template (tagdict, tagdict_build, majority) appends their
 * names, as viterbi does with its output.  Not part of the plugin ABI. */
#ifndef CRFP_PLUGINS_COLUMNS_H
#define CRFP_PLUGINS_COLUMNS_H

#include <stddef.h>

#include "crfpipe/crfpipe.h"
#include "strtab.h"

/* The feature name PREFIX followed by SUFFIX (malloc'd), NULL when out of
 * memory: a stage's output names from its `output` parameter. */
PLUGIN_COMMON_API char *columns_name(const char *prefix, const char *suffix);

/* Append to doc's "columns" metadata, when it has one, each of names[0..n)
 * it does not list yet.  CRFP_ENOMEM, or the setter's error. */
PLUGIN_COMMON_API crfp_status columns_extend(crfp_doc *doc, const char *const *names, size_t n);

/* As columns_extend, except that when the last column is BEFORE_LAST (a
 * gold label), the names go just before it: a tagger's extra outputs then
 * leave the gold label and the prediction appended after it as the last
 * two columns, where conlleval and crfpipe eval read them.  BEFORE_LAST
 * NULL, or not the last column: columns_extend.  Same errors. */
PLUGIN_COMMON_API crfp_status columns_insert(crfp_doc *doc, const char *const *names, size_t n,
                                             const char *before_last);

/* The CoNLL-U MISC attribute that holds a label's gold value or prediction
 * ("Gold" + "upos" -> "GoldUPOS"): PREFIX then LABEL in capitals, with the
 * characters MISC keys cannot hold ('=', '|', blanks) as '_'.  What the
 * CoNLL-U writer writes and crfpipe eval looks for.  Written into buf (cap
 * bytes, NUL-terminated) when it fits, as snprintf does; returns its
 * length, so that buf NULL / cap 0 asks for the size.  Cannot fail. */
PLUGIN_COMMON_API size_t columns_misc_key(char *buf, size_t cap, const char *prefix,
                                          const char *label);

/* The non-empty items of the comma-separated list `csv`, each a malloc'd
 * string, appended to *items (a malloc'd array, *n of them): a stage's
 * list parameter (types, columns).  0, or -1 when out of memory (what was
 * appended stays, for the caller to free). */
PLUGIN_COMMON_API int columns_split(const char *csv, char ***items, size_t *n);

/* The columns of a document's "columns" metadata `cols` that a writer
 * cannot hold (those for which known(ud, name, len) is 0), listed as
 * "a, b, c" in list (cap bytes, NUL-terminated); *more (may be NULL)
 * receives how many more did not fit.  Returns how many are listed.  What
 * a writer names in its one warning about columns it leaves out. */
PLUGIN_COMMON_API size_t columns_unwritten(const char *cols,
                                           int (*known)(void *ud, const char *name, size_t len),
                                           void *ud, char *list, size_t cap, size_t *more);

#endif
