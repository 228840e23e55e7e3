/* crfpipe — inference workspaces and the public inference entry points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "infer.h"

/* Cached exp(λ) matrices per workspace, in doubles: enough for thousands of
 * frequent bigram observations, bounded so many threads stay affordable. */
#define EXP_CACHE_DOUBLES ((size_t)4 << 20)
/* The fixed-θ cache of combined λ matrices, in doubles per workspace
 * (16 MB), and at most this many of them. */
#define LOG_CACHE_DOUBLES ((size_t)2 << 20)
#define LOG_CACHE_SLOTS 256

crfp_infer *crfp_infer_new(const crfp_crf *crf)
{
    if (!crf || !crf->final)
        return NULL;
    crfp_infer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->crf = crf;
    crfp_infer_set_simd(w, 1);
    w->prune = 1;
    uint32_t Y = crf->Y;
    size_t Y1 = (size_t)Y + 1, YY = (size_t)Y * Y;
    w->Y = Y;
    w->ebudget = EXP_CACHE_DOUBLES;
    w->tmp = calloc(4 * Y1, sizeof *w->tmp);
    w->order = calloc(Y1, sizeof *w->order);
    w->mark = calloc(Y1, sizeof *w->mark);
    w->prow = calloc(Y1, sizeof *w->prow);
    w->ident = calloc(Y1, sizeof *w->ident);
    w->pair = calloc(YY + 1, sizeof *w->pair);
    w->stamp = calloc(crf->nbig + 1, sizeof *w->stamp);
    w->ce = calloc(crf->nbig + 1, sizeof *w->ce);
    w->Ls = calloc(Y1 * Y + 1, sizeof *w->Ls);
    w->Lm = malloc((Y1 * Y + 1) * sizeof *w->Lm);
    w->Es = calloc(YY + 1, sizeof *w->Es);
    w->Ps = malloc((Y1 * Y + 1) * sizeof *w->Ps);
    w->slam = calloc(Y1 * Y + 1, sizeof *w->slam);
    w->sm = calloc(Y1 * Y + 1, sizeof *w->sm);
    w->sE = calloc(Y1, sizeof *w->sE);
    w->touched_mark = calloc(Y1 * Y + 1, 1);
    w->touched = calloc(Y1 * Y + 1, sizeof *w->touched);
    w->scol = calloc(Y1, sizeof *w->scol);
    w->srow = calloc(Y1 * Y + 1, sizeof *w->srow);
    /* Two runs of Y+1: scratch counts, then a run that stays zero and serves
     * as the column pointers of an empty transition. */
    w->cnt = calloc(2 * Y1, sizeof *w->cnt);
    w->consts = malloc((YY + Y1 * Y + 1) * sizeof *w->consts);
    if (!w->tmp || !w->order || !w->mark || !w->prow || !w->ident || !w->pair || !w->stamp || !w->ce || !w->Ls || !w->Lm ||
        !w->Es || !w->Ps || !w->slam || !w->sm || !w->sE || !w->touched_mark || !w->touched ||
        !w->scol || !w->srow || !w->cnt || !w->consts) {
        crfp_infer_free(w);
        return NULL;
    }
    for (uint32_t y = 0; y < Y; y++)
        w->ident[y] = y;
    for (size_t i = 0; i < YY; i++)
        w->consts[i] = 1.0;
    for (size_t i = 0; i < Y1 * Y + 1; i++)
        w->Ps[i] = 1.0;
    for (size_t i = YY; i < YY + Y1 * Y + 1; i++)
        w->consts[i] = 0.0;
    w->ones = w->consts;
    w->zeros = w->consts + YY;
    return w;
}

void crfp_infer_free(crfp_infer *w)
{
    if (!w)
        return;
    free(w->psi);
    free(w->alpha);
    free(w->beta);
    free(w->scale);
    free(w->shift);
    free(w->bp);
    free(w->tmp);
    free(w->order);
    free(w->mark);
    free(w->prow);
    free(w->ident);
    free(w->pair);
    free(w->stamp);
    free(w->ce);
    free(w->ipool);
    free(w->dpool);
    free(w->Ls);
    free(w->Lm);
    free(w->lc);
    free(w->lc_obs);
    free(w->lc_nobs);
    free(w->lc_hash);
    crfp_settab_free(&w->dg_sets);
    crfp_fb_lowrank_free(w);
    crfp_settab_free(&w->ec_sets);
    free(w->Es);
    free(w->Ps);
    free(w->slam);
    free(w->sm);
    free(w->sE);
    free(w->touched_mark);
    free(w->touched);
    free(w->scol);
    free(w->srow);
    free(w->cnt);
    free(w->consts);
    free(w->nb_node);
    free(w->nb_heap);
    free(w->nb_col);
    free(w->nb_kids);
    free(w->nb_tycol);
    free(w->nb_tystamp);
    free(w);
}

void crfp_infer_set_simd(crfp_infer *w, int on)
{
    w->avx = w->fma = 0;
#if defined(__GNUC__) && defined(__x86_64__)
    if (on) {
        w->avx = __builtin_cpu_supports("avx");
        w->fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
#else
    (void)on;
#endif
}

void crfp_infer_set_prune(crfp_infer *w, int on)
{
    w->prune = on != 0;
}

void crfp_infer_prune_counts(const crfp_infer *w, uint64_t *skipped, uint64_t *weighed)
{
    *skipped = w->pskipped;
    *weighed = w->pweighed;
}

void crfp_infer_set_mode(crfp_infer *w, int mode)
{
    w->mode = mode == 1 || mode == 2 ? mode : 0;
    /* the caches hold views chosen under the old mode */
    w->fixed = NULL;
    crfp_settab_clear(&w->ec_sets);
}

crfp_status crfp_infer_fix_theta(crfp_infer *w, const double *theta)
{
    if (!w)
        return CRFP_EINVAL;
    w->fixed = NULL;
    crfp_infer_epoch(w);
    if (!theta)
        return CRFP_OK;
    if (!w->lc) {
        size_t per = crfp_lc_per(w->Y);
        size_t slots = LOG_CACHE_DOUBLES / per;
        if (slots > LOG_CACHE_SLOTS)
            slots = LOG_CACHE_SLOTS;
        if (slots) {
            w->lc = malloc(slots * per * sizeof *w->lc);
            w->lc_obs = malloc(slots * CRFP_LC_MAXOBS * sizeof *w->lc_obs);
            w->lc_nobs = malloc(slots * sizeof *w->lc_nobs);
            w->lc_hash = malloc(slots * sizeof *w->lc_hash);
            if (!w->lc || !w->lc_obs || !w->lc_nobs || !w->lc_hash) {
                free(w->lc);
                free(w->lc_obs);
                free(w->lc_nobs);
                free(w->lc_hash);
                w->lc = NULL;
                w->lc_obs = w->lc_nobs = NULL;
                w->lc_hash = NULL;
                return CRFP_ENOMEM;
            }
            w->lc_slots = (uint32_t)slots;
        }
    }
    if (w->lc)
        memset(w->lc_nobs, 0, w->lc_slots * sizeof *w->lc_nobs);
    w->fixed = theta;
    return CRFP_OK;
}

void crfp_infer_begin(crfp_infer *w, const double *theta)
{
    w->fb_seq = NULL;
    if (!w->fixed || w->fixed != theta)
        crfp_infer_epoch(w);
}

static int grow(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, n * size);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

crfp_status crfp_infer_reserve(crfp_infer *w, size_t T)
{
    if (T <= w->cap)
        return CRFP_OK;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < T)
        cap *= 2;
    size_t Y = w->Y ? w->Y : 1;
    if (cap > SIZE_MAX / sizeof(double) / Y)
        return CRFP_ENOMEM;
    if (grow((void **)&w->psi, cap * Y, sizeof(double)) ||
        grow((void **)&w->alpha, cap * Y, sizeof(double)) ||
        grow((void **)&w->beta, cap * Y, sizeof(double)) ||
        grow((void **)&w->bp, cap * Y, sizeof(uint32_t)) ||
        grow((void **)&w->scale, cap, sizeof(double)) ||
        grow((void **)&w->shift, cap, sizeof(double)))
        return CRFP_ENOMEM;
    w->cap = cap;
    return CRFP_OK;
}

crfp_status crfp_infer_set_force(crfp_infer *w, const uint32_t *force, uint32_t T)
{
    if (!w)
        return CRFP_EINVAL;
    for (uint32_t t = 0; force && t < T; t++)
        if (force[t] != CRFP_FREE_LABEL && force[t] >= w->Y)
            return CRFP_EINVAL;
    w->force = force;
    w->force_T = force ? T : 0;
    /* the forward-backward tables were made under the old constraints */
    w->fb_seq = NULL;
    return CRFP_OK;
}

crfp_status crfp_viterbi(crfp_infer *w, const crfp_seq *seq, const double *theta,
                         uint32_t *out_y, double *score)
{
    if (!w || !theta || (!out_y && seq && seq->T) || !crfp_force_fits(w, seq))
        return CRFP_EINVAL;
    crfp_status st = crfp_seq_check(NULL, w->crf, seq);
    if (st != CRFP_OK)
        return st;
    crfp_infer_begin(w, theta);
    return crfp_viterbi_run(w, seq, theta, out_y, score);
}

crfp_status crfp_forward_backward(crfp_infer *w, const crfp_seq *seq, const double *theta,
                                  double *logz, double *marg)
{
    if (!w || !theta || !logz || !crfp_force_fits(w, seq))
        return CRFP_EINVAL;
    crfp_status st = crfp_seq_check(NULL, w->crf, seq);
    if (st != CRFP_OK)
        return st;
    crfp_infer_begin(w, theta);
    st = crfp_fb_run(w, seq, theta, logz, marg != NULL, NULL, NULL, NULL, NULL, 1.0);
    if (st == CRFP_OK && !isfinite(*logz)) {
        /* exp() of scores this large overflows: no probability to give */
        w->fb_seq = NULL;
        return CRFP_EINVAL;
    }
    if (st != CRFP_OK || !marg)
        return st;
    w->fb_seq = seq;
    w->fb_theta = theta;
    w->fb_T = seq->T;
    size_t n = (size_t)seq->T * w->Y;
    for (size_t i = 0; i < n; i++)
        marg[i] = w->alpha[i] * w->beta[i];
    return CRFP_OK;
}

crfp_status crfp_pair_marginals(crfp_infer *w, const crfp_seq *seq, const double *theta,
                                double *pair)
{
    if (!w || !theta || !pair || !crfp_force_fits(w, seq))
        return CRFP_EINVAL;
    crfp_status st = crfp_seq_check(NULL, w->crf, seq);
    if (st != CRFP_OK)
        return st;
    crfp_infer_begin(w, theta);
    double logz;
    st = crfp_fb_run(w, seq, theta, &logz, 1, NULL, pair, NULL, NULL, 1.0);
    if (st == CRFP_OK && !isfinite(logz))
        return CRFP_EINVAL;
    if (st == CRFP_OK) {
        w->fb_seq = seq;
        w->fb_theta = theta;
        w->fb_T = seq->T;
    }
    return st;
}

double crfp_path_terms(const crfp_crf *crf, const crfp_seq *seq, const double *theta,
                       const uint32_t *y, double *terms)
{
    uint32_t Y = crf->Y;
    double s = 0.0;
    for (uint32_t t = 0; t < seq->T; t++) {
        /* the sum adds each weight in turn, as it always has: training
         * objectives stay bit for bit what they were */
        double term = 0.0;
        for (uint32_t i = seq->uoff[t]; i < seq->uoff[t + 1]; i++) {
            double w = crfp_uval(seq, i) * theta[crf->ublk[seq->uobs[i]] + y[t]];
            term += w;
            s += w;
        }
        size_t prev = t ? y[t - 1] : Y;
        for (uint32_t i = seq->boff[t]; i < seq->boff[t + 1]; i++) {
            term += theta[crf->bblk[seq->bobs[i]] + prev * Y + y[t]];
            s += theta[crf->bblk[seq->bobs[i]] + prev * Y + y[t]];
        }
        if (terms)
            terms[t] = term;
    }
    return s;
}

double crfp_path_score(const crfp_crf *crf, const crfp_seq *seq, const double *theta,
                       const uint32_t *y)
{
    return crfp_path_terms(crf, seq, theta, y, NULL);
}
