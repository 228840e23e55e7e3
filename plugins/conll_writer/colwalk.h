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

/* Write s, turning each "\n" into "\r\n" when crlf. */
COLWALK_HIDDEN void colwalk_put_raw(FILE *fp, const char *s, int crlf);

#endif
