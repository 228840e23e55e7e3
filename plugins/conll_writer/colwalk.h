/* Helpers shared by the two column writers (conll_writer and conllu_writer
 * compile this file into each module; symbols hidden): grouping a
 * document's annotations by sentence, and turning feature values into
 * column text.
 */
#ifndef CRFP_COLWALK_H
#define CRFP_COLWALK_H

#include <stdio.h>
#include "crfpipe/crfpipe.h"

#define COLWALK_HIDDEN __attribute__((visibility("hidden")))

/* The sentences of one annotation set, sorted by offset.  When the set has
 * no Sentence annotation the whole text is one sentence whose ann is NULL. */
typedef struct colwalk {
    crfp_ann **sents;     /* nsents entries, possibly one NULL */
    size_t *sstart, *send;
    size_t nsents;
    crfp_ann **owned;     /* the array from crfp_annset_select */
} colwalk;

/* Annotations of one type split by sentence: those of sentence i are
 * anns[first[i] .. first[i+1]). */
typedef struct colgroup {
    crfp_ann **anns;
    size_t n;
    size_t *first;        /* nsents + 1 entries */
} colgroup;

/* The annotation set `name` of doc, or NULL when it does not exist. */
COLWALK_HIDDEN const crfp_annset *colwalk_annset(const crfp_doc *doc, const char *name);

/* Collect the sentences of `set` (NULL = an empty set).  Errors:
 * CRFP_ENOMEM.  Free with colwalk_free. */
COLWALK_HIDDEN crfp_status colwalk_init(crfp_host *host, const crfp_doc *doc,
                                        const crfp_annset *set, colwalk *w);
COLWALK_HIDDEN void colwalk_free(colwalk *w);

/* Collect the annotations of `type`, each assigned to the sentence that
 * contains it.  One outside every sentence is a CRFP_EINVAL error naming
 * `where`, the type and its offsets.  Free with colgroup_free. */
COLWALK_HIDDEN crfp_status colgroup_init(crfp_host *host, const char *where,
                                         const crfp_annset *set, const char *type,
                                         const colwalk *w, colgroup *g);
COLWALK_HIDDEN void colgroup_free(colgroup *g);

/* Text of a feature value for a column, in tmp (size >= 64) or in the
 * document.  NULL for lists (which no column can hold). */
COLWALK_HIDDEN const char *colwalk_value_text(const crfp_value *v, char *tmp, size_t tmpsz);

/* The text the annotation covers, malloc'd (caller frees); NULL when out
 * of memory or when its offsets do not map to bytes. */
COLWALK_HIDDEN char *colwalk_span_text(const crfp_doc *doc, const crfp_ann *a);

/* Cells a column format cannot hold as they are.  Every column rejects an
 * empty cell (it would merge with its neighbours) and tab, CR, LF (they
 * split the line); the flags add space (space-separated files, CoNLL-U
 * columns other than FORM, LEMMA, MISC) and '|' (a value inside MISC). */
enum { COLWALK_NO_SPACE = 1, COLWALK_NO_PIPE = 2 };

/* 1 when s can be written unchanged under `flags`, else 0. */
COLWALK_HIDDEN int colwalk_cell_ok(const char *s, unsigned flags);

/* The escaped form of s, malloc'd (caller frees; NULL when out of memory).
 * The escapes are the ones Universal Dependencies uses in MISC (SpacesAfter):
 * \s space, \t tab, \n LF, \r CR, \p '|', and \\ for a backslash, the
 * last applied only inside a cell that needs escaping, so that ordinary
 * values (paths, "\") are written unchanged.  An empty s becomes "_". */
COLWALK_HIDDEN char *colwalk_escape(const char *s, unsigned flags);

/* What a writer does with cells it cannot hold (parameter
 * "unrepresentable"): escape them, leave the column out (CoNLL-U: write
 * '_'), or stop with an error.  Decided per document before any of it is
 * written. */
enum { COLWALK_ESCAPE, COLWALK_DROP, COLWALK_ERROR };
/* Parse "escape" / "drop" / "error"; -1 for anything else. */
COLWALK_HIDDEN int colwalk_policy(const char *s);

/* Write s, turning each "\n" into "\r\n" when crlf. */
COLWALK_HIDDEN void colwalk_put_raw(FILE *fp, const char *s, int crlf);

#endif
