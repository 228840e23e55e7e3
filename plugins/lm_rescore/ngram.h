/* ngram — a phoneme n-gram language model with interpolated Kneser-Ney
 * smoothing (Chen & Goodman 1998, one discount D for every order):
 *
 *   P(w | h) = max(c(h w) − D, 0) / c(h·) + D · N1+(h ·) / c(h·) · P(w | h')
 *
 * where h' is h without its first symbol, c are the raw counts at the
 * highest order and continuation counts N1+(· h w) below it, and the
 * recursion ends in the uniform distribution over the symbols that can
 * follow.  Sequences are padded with order−1 `<s>` and ended by `</s>`.
 * Orders 1 to NGRAM_MAX_ORDER; at most 65,532 distinct phonemes. */
#ifndef CRFPIPE_NGRAM_H
#define CRFPIPE_NGRAM_H

#include <stddef.h>

#include "crfpipe/crfpipe.h"

#define NGRAM_MAX_ORDER 8

typedef struct ngram ngram;

/* An empty model of this order (1..NGRAM_MAX_ORDER) and discount (0 < D
 * < 1).  NULL when out of memory or the arguments are out of range. */
ngram *ngram_new(int order, double discount);

void ngram_free(ngram *m);

/* Count one sequence of n phonemes (strings, not kept).  Only before
 * ngram_finish.  Errors: CRFP_ENOMEM; CRFP_EINVAL for an empty phoneme, one
 * with white space, the padding symbols themselves, or too many distinct
 * phonemes. */
crfp_status ngram_add(ngram *m, const char *const *ph, size_t n);

/* Derive the lower orders and the context totals; afterwards the model
 * only scores.  Errors: CRFP_ENOMEM, CRFP_EINVAL (nothing counted). */
crfp_status ngram_finish(ngram *m);

/* Natural log-probability of the sequence (with its `</s>`).  A phoneme the
 * model never saw counts as one more symbol of the uniform floor.  NaN only
 * when out of memory (sequences over 64 phonemes need a buffer). */
double ngram_logprob(const ngram *m, const char *const *ph, size_t n);

/* The same with phonemes given as the model's symbol ids (ngram_symbol:
 * a phoneme it never saw gets an id that matches nothing), prefix by
 * prefix: cum[i] = log P(ids[0..i)) for i ≤ n and cum[n+1] adds </s>.
 * cum has n + 2 entries, of which cum[0..from] (from ≤ n) are taken as
 * given, e.g. from another sequence with the same first `from` phonemes:
 * n-best candidates share most of their prefixes. */
uint32_t ngram_symbol(const ngram *m, const char *phone);
void ngram_prefix_logprobs(const ngram *m, const uint32_t *ids, size_t n, size_t from,
                           double *cum);

/* Natural log of P(w | h): h the nh phonemes before w (padded with <s> when
 * shorter than order−1, only the last order−1 used); w NULL is </s>. */
double ngram_cond(const ngram *m, const char *const *h, size_t nh, const char *w);

int ngram_order(const ngram *m);
size_t ngram_count(const ngram *m);   /* highest-order n-gram types */

/* Write the highest-order counts to `path` (through path.tmp and a rename:
 * the file is whole or absent).  Errors: CRFP_EIO, said through host. */
crfp_status ngram_save(crfp_host *host, const ngram *m, const char *path);

/* Read a model written by ngram_save, finished.  Every malformed line is
 * an error naming file and line; a line longer than the host's `line`
 * limit is refused.  On error *out is NULL. */
crfp_status ngram_load(crfp_host *host, const char *path, ngram **out);

#endif
