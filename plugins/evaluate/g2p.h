/* evaluate, G2P part: phoneme and word error rates of pronunciations.
 *
 * A document is a G2P one when its Sentences (lexicon entries) carry both a
 * gold `phonemes` and a predicted `pronunciation` feature (what the
 * lexicon_reader and the phonemes stage write).  Consecutive entries of the
 * same `word` are its variants: the prediction is scored against the
 * closest one (PER = edit distance / its length, summed over words; a word
 * is right when it equals any variant), so variants split across document
 * blocks are still grouped. */
#ifndef EVALUATE_G2P_H
#define EVALUATE_G2P_H

#include <stdio.h>
#include "crfpipe/crfpipe.h"

typedef struct g2p_eval g2p_eval;

/* New accumulator (NULL on ENOMEM); `errors` lists every wrong word in the
 * report.  Freed by g2p_eval_free (NULL accepted). */
g2p_eval *g2p_eval_new(int errors);
void g2p_eval_free(g2p_eval *g);

/* Whether `doc` is a G2P document (see above) in annotation set `set`. */
int g2p_eval_applies(crfp_doc *doc, const char *set);

/* Score the entries of `doc`; CRFP_ENOMEM (recorded in host) on failure. */
crfp_status g2p_eval_doc(crfp_host *host, g2p_eval *g, crfp_doc *doc, const char *set);

/* Number of words scored so far (0: nothing to report). */
size_t g2p_eval_words(const g2p_eval *g);

/* Close the last word and write the report to f. */
crfp_status g2p_eval_report(crfp_host *host, g2p_eval *g, FILE *f);

#endif
