/* lm_rescore's state, shared by its stage (lm_rescore.c) and its training
 * from a lexicon (lmtrain.c). */
#ifndef CRFPIPE_RESCORE_H
#define CRFPIPE_RESCORE_H

#include <stddef.h>
#include <stdint.h>

#include "crfpipe/crfpipe.h"
#include "ngram.h"

/* One language model and what scoring a candidate with it needs. */
typedef struct lmpart {
    ngram *lm;             /* NULL: this part is not used */
    double weight;
    int joint;             /* symbols: letter|label per grapheme; else phonemes */
    const char *what;      /* "phoneme" or "joint", for messages */
    /* symbol ids of each key seen (a label, or letter|label): the key
     * keys[i] has ids[off[i] .. off[i+1]); found by hash */
    char **keys;
    uint32_t *off, *ids, *hash;
    size_t nkeys, keycap, offcap, nids, idcap, hashcap;
    /* one word's candidates: their ids (cand[coff[k] .. coff[k+1])) and
     * cumulative log-probabilities (n + 2 per candidate at coff[k] + 2k) */
    uint32_t *cand;
    size_t *coff;
    double *cum;
    size_t candcap, coffcap, cumcap;
} lmpart;

typedef struct rescore {
    crfp_host *host;
    lmpart part[2];        /* [0] phonemes, [1] joint letter|label */
    char *input, *output, *scores, *set, *letter;
    char *prov[8];         /* provenance values, owned */
    size_t candidates;     /* re-rank only the first ones; 0: all */
    char **names;          /* INPUT, INPUT-2, ... as needed */
    size_t nnames;
    char *keybuf;          /* scratch for letter|label */
    size_t keybufcap;
} rescore;

/* Train r->part[0] (and r->part[1] when `alignment` is set: the lexicon
 * labelled by that aligner model) on the lexicon at `path`, read as the
 * parameters say (lexicon-format, stress, fold, letter).  The parts'
 * models must exist, empty.  Errors are said through host. */
crfp_status lm_train(crfp_host *host, const crfp_params *p, const char *path, rescore *r);

#endif
