/* What the two dictionary readers share (lexicon_reader, and nettalk_reader,
 * which reads NETtalk as letter sequences): a growing text buffer, growing
 * entry arrays, and the document a block of entries becomes.  Header-only,
 * compiled into each plugin (a plugin directory holds one plugin). */
#ifndef CRFP_LEXDOC_H
#define CRFP_LEXDOC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

/* Growing byte buffer, always NUL-terminated once written to. */
typedef struct lex_sbuf {
    char *s;
    size_t n, cap;
} lex_sbuf;

/* Append s[0..n).  0 on ENOMEM (the buffer is unchanged). */
static inline int lex_sb_add(lex_sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 1024;
        while (nc < b->n + n + 1)
            nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns)
            return 0;
        b->s = ns;
        b->cap = nc;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
    return 1;
}

/* Room for element n of the array *arr (elements of elt bytes, *cap of them
 * allocated), doubling it when full.  0 on ENOMEM (*arr unchanged). */
static inline int lex_grow(void **arr, size_t *cap, size_t n, size_t elt)
{
    if (n < *cap)
        return 1;
    size_t nc = *cap ? 2 * *cap : 64;
    void *na = realloc(*arr, nc * elt);
    if (!na)
        return 0;
    *arr = na;
    *cap = nc;
    return 1;
}

/* A new document "PREFIX-NUMBER" holding `text` (may be empty), with the
 * metadata `format` = format and, when key is not NULL, key = value, and its
 * default annotation set.  On success the caller owns *doc (*set belongs to
 * it); on failure nothing is left allocated and the host holds the message. */
static inline crfp_status lex_doc(crfp_host *host, const char *prefix, unsigned long number,
                                  const lex_sbuf *text, const char *format, const char *key,
                                  const char *value, crfp_doc **doc, crfp_annset **set)
{
    char id[64];
    snprintf(id, sizeof id, "%s-%lu", prefix, number);
    crfp_doc *d = crfp_doc_new(id);
    if (!d)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    crfp_status st;
    if ((st = crfp_doc_set_text(host, d, text->s ? text->s : "", text->n)) != CRFP_OK ||
        (st = crfp_doc_meta_set_str(d, "format", format)) != CRFP_OK ||
        (key && (st = crfp_doc_meta_set_str(d, key, value)) != CRFP_OK)) {
        crfp_doc_free(d);
        return st == CRFP_ENOMEM ? crfp_error(host, st, "out of memory") : st;
    }
    if (!(*set = crfp_doc_annset(d, "", 1))) {
        crfp_doc_free(d);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    *doc = d;
    return CRFP_OK;
}

#endif
