/* crfpipe — inference workspace and transition views (internal).
 *
 * Transition at position t: λ_t(y',y) = Σ_{o∈B_t} λ(y',y,o).  A "view" of it
 * gives both the full λ matrix (log domain, for Viterbi) and its non-zero
 * entries in column-major order with expm1(λ) (for the sparse recursions of
 * Lavergne et al. 2010, which use M_t = exp(λ_t) − 1), plus, when the dense
 * path is chosen, exp(λ_t) itself.
 *
 * Per bigram observation these are computed once per "epoch" and cached in
 * the workspace: a public inference call is one epoch; an objective
 * evaluation is one epoch per thread, so the constant "B" observation of a
 * CRF++ chunking template costs Y² exp() per evaluation, not per position.
 */
#ifndef CRFP_CRF_INFER_H
#define CRFP_CRF_INFER_H

#include <math.h>

#include "crf_impl.h"

typedef struct crfp_tview {
    uint32_t nnz;            /* non-zero entries in rows y' < Y */
    const uint32_t *colptr;  /* Y+1: entries of column y at [colptr[y], colptr[y+1]) */
    const uint32_t *row;     /* nnz: their row y' */
    const double *lam;       /* nnz: λ_t(y',y) */
    const double *m;         /* nnz: exp(λ_t(y',y)) − 1 */
    const double *L;         /* (Y+1)·Y: full λ_t, start row last */
    const double *sE;        /* Y: exp(λ_t(start, y)) */
    const double *E;         /* Y·Y: exp(λ_t) rows < Y; set only when dense */
    /* Y each, or NULL: max and min of each row y' < Y of L, all finite
     * (the fixed-θ cache keeps them; Viterbi's row pruning uses them) */
    const double *rmax, *rmin;
    int dense;               /* use the dense recursions at this position */
} crfp_tview;

/* A table of observation sets (settab.c), for per-set caches of n slots:
 * each slot's set (obs, nobs ids; nobs 0 = free), its hash and its `per`
 * doubles of payload. */
typedef struct crfp_settab {
    uint32_t *obs;  /* n × CRFP_LC_MAXOBS */
    uint32_t *nobs; /* n */
    uint64_t *hash; /* n */
    double *data;   /* n × per */
    size_t per;
    uint32_t n;     /* 0: not allocated */
} crfp_settab;

static inline double *crfp_settab_slot(const crfp_settab *t, uint32_t s)
{
    return t->data + (size_t)s * t->per;
}

typedef struct crfp_centry {
    size_t ioff;   /* in ipool: colptr (Y+1) then row (nnz) */
    size_t doff;   /* in dpool: lam (nnz), m (nnz), sE (Y) */
    size_t eoff;   /* in dpool: E (Y·Y), or SIZE_MAX */
    uint32_t nnz;
} crfp_centry;

struct crfp_infer {
    const crfp_crf *crf;
    uint32_t Y;
    int mode;                /* 0 auto, 1 sparse, 2 dense */
    int avx;                 /* the CPU has AVX: Viterbi's 256-bit kernels */
    int fma;                 /* the CPU has AVX2 and FMA (lowrank.c's kernel) */
    int prune;               /* Viterbi may skip rows that cannot win (default 1) */
    uint32_t *prow;          /* Y: the rows kept */
    uint32_t *ident;         /* Y: 0, 1, ..., Y-1 (every row) */
    uint64_t pskipped, pweighed; /* rows skipped / considered by the pruning */
    /* Where crfp_fb_run adds an observation's gradient: g + gub[o] (unigram)
     * and g + gbb[o] (bigram).  NULL: the model's own layout.  A training
     * set points these at a packed buffer holding only a sequence's blocks. */
    const uint64_t *gub, *gbb;
    size_t cap;              /* positions the T-sized buffers hold */
    double *psi, *alpha, *beta, *scale, *shift;
    uint32_t *bp;
    double *tmp;             /* 4·Y scratch */
    uint32_t *order;         /* Y scratch (sparse Viterbi) */
    uint32_t *mark;          /* Y scratch stamps (sparse Viterbi) */
    uint32_t markgen;
    double *pair;            /* Y·Y scratch (pair marginals, multi-observation) */
    /* epoch cache, indexed by bigram rank */
    uint32_t epoch;
    uint32_t *stamp;
    crfp_centry *ce;
    uint32_t *ipool;
    size_t ipool_n, ipool_cap;
    double *dpool;
    size_t dpool_n, dpool_cap, ebudget, eused;
    /* θ declared fixed by crfp_infer_fix_theta: the epoch then outlives
     * the public calls made with that θ */
    const double *fixed;
    /* scratch view for positions with several bigram observations */
    double *Ls, *Es, *slam, *sm, *sE;
    double *Lm;      /* (Y+1)·Y: a dense multi-observation λ, overwritten whole */
    /* With θ fixed: the dense multi-observation λ matrices of the last
     * observation sets seen, direct-mapped by a hash of the set (a G2P
     * model's positions combine the constant "B" with one of a few dozen
     * letters' blocks: each combination is summed once, not per letter). */
    double *lc;          /* lc_slots × crfp_lc_per(Y): a matrix of (Y+1)·Y, a
                          * flag (1: row bounds valid), its rows' max and min */
    uint32_t *lc_obs;    /* lc_slots × CRFP_LC_MAXOBS observation ids */
    uint32_t *lc_nobs;   /* lc_slots: how many ids; 0 = empty */
    uint64_t *lc_hash;   /* lc_slots: the hash of each slot's set */
    uint32_t lc_clock;   /* the next slot to evict when none is free */
    uint32_t lc_slots;
    double *Ps;      /* product of the observations' exp(λ), 1 where untouched */
    unsigned char *touched_mark;
    uint32_t *touched, ntouched, *scol, *srow, *cnt;
    int multi_dense;  /* the last multi-observation view filled Ls densely */
    /* The sequence, theta and length whose forward-backward tables (alpha,
     * beta, psi, c, backward included) the buffers hold, for
     * crfp_segment_prob; fb_seq NULL: none (another run may have
     * overwritten them). */
    const crfp_seq *fb_seq;
    /* Forced decoding (crfp_infer_set_force): force_T labels, or NULL. */
    const uint32_t *force;
    uint32_t force_T;
    const double *fb_theta;
    uint32_t fb_T;
    const double *ones, *zeros;
    double *consts;
    /* Within an epoch (θ unchanged): the dense multi-observation views of
     * forward-backward per observation set, each ec_per doubles (λ with its
     * start row, exp(λ), the start exponentials), the slots of ec_sets.
     * Allocated on first use; ec_off
     * is set when the memory could not be had (views are then built per
     * position, as without the cache). */
    crfp_settab ec_sets;
    int ec_off;
    /* Deferred bigram gradients per observation set (setgrad.c): the
     * accumulators of Y² doubles, the slots of dg_sets; dg_g the
     * gradient they belong to, NULL when deferral is off; dg_nosets set
     * when the accumulators could not be had. */
    crfp_settab dg_sets;
    double *dg_g;
    int dg_nosets;
    /* Deferred bigram gradients of one-observation positions (lowrank.c):
     * lr_cap records of α_{t−1} and γ_t in lr_vec (layout in lowrank.c),
     * their sort keys (observation << 32 | record) and gold pair cells
     * (UINT32_MAX: none); lr_theta the θ they were made with, lr_S the
     * scratch sum.  Allocated on first use, with lr_max records if set
     * (tests), else a fixed budget; lr_off set when that failed. */
    double *lr_vec, *lr_S;
    uint64_t *lr_key;
    uint32_t *lr_gold;
    uint32_t lr_n, lr_cap, lr_max;
    int lr_off;
    const double *lr_theta;
    /* n-best search (nbest.c): its nodes, heap and transition columns */
    struct crfp_nbnode *nb_node;
    struct crfp_nbheap *nb_heap;
    double *nb_col;
    uint32_t *nb_kids;
    uint32_t *nb_tycol, *nb_tystamp, nb_gen;   /* (t, y) -> column, per call */
    size_t nb_node_cap, nb_heap_cap, nb_col_cap, nb_kids_cap, nb_ty_cap, nb_stamp_cap;
};

/* Start a new epoch: forget cached transitions (θ may have changed). */
void crfp_infer_epoch(crfp_infer *w);
/* What a public inference call does first: a new epoch, unless θ is the
 * one fixed by crfp_infer_fix_theta (then the caches stay). */
void crfp_infer_begin(crfp_infer *w, const double *theta);
/* Observation sets of more ids than this are not kept in the λ cache. */
#define CRFP_LC_MAXOBS 8
/* Set tables (settab.c).  alloc: as many slots of `per` doubles as
 * `budget` doubles hold, at most maxslots; CRFP_EINVAL when fewer than 2
 * would, CRFP_ENOMEM (t is then empty either way).  find
 * returns the slot holding obs[0..nb) (*hit 1), else a free slot, else the
 * set's home slot, whose set the caller evicts; *h the set's hash, for
 * label, which records the set in slot s. */
uint64_t crfp_set_hash(const uint32_t *obs, uint32_t nb);
crfp_status crfp_settab_alloc(crfp_settab *t, size_t per, size_t budget, uint32_t maxslots);
void crfp_settab_free(crfp_settab *t);
void crfp_settab_clear(crfp_settab *t);
uint32_t crfp_settab_find(const crfp_settab *t, const uint32_t *obs, uint32_t nb, uint64_t *h,
                          int *hit);
void crfp_settab_label(crfp_settab *t, uint32_t s, uint64_t h, const uint32_t *obs, uint32_t nb);
/* Doubles per slot of the λ cache. */
static inline size_t crfp_lc_per(uint32_t Y)
{
    return ((size_t)Y + 1) * Y + 1 + 2 * (size_t)Y;
}
/* Make the T-sized buffers hold T positions.  Errors: CRFP_ENOMEM. */
crfp_status crfp_infer_reserve(crfp_infer *w, size_t T);

enum { CRFP_VIEW_LOG = 0, CRFP_VIEW_FB = 1 };
/* Transition view of position t.  Pointers stay valid until the next call.
 * `want` CRFP_VIEW_FB fills E when the dense path is chosen.
 * Errors: CRFP_ENOMEM. */
crfp_status crfp_view_get(crfp_infer *w, const crfp_seq *seq, uint32_t t, const double *theta,
                          int want, crfp_tview *v);
/* Undo the scratch state of the last view (cheap; call before the next). */
void crfp_view_release(crfp_infer *w, const crfp_seq *seq, uint32_t t);

/* The value of unigram observation i of seq (1 without values). */
static inline double crfp_uval(const crfp_seq *seq, uint32_t i)
{
    return seq->uval ? seq->uval[i] : 1.0;
}

/* Unigram scores s_t(y) = Σ_i v_i μ(y, o_i) into out (Y). */
static inline void crfp_unigram(const crfp_crf *crf, const crfp_seq *seq, uint32_t t,
                                const double *theta, double *out)
{
    uint32_t Y = crf->Y;
    for (uint32_t y = 0; y < Y; y++)
        out[y] = 0.0;
    /* two loops, so that the binary one (nearly every corpus) stays as
     * tight as it was before values */
    if (!seq->uval) {
        for (uint32_t i = seq->uoff[t]; i < seq->uoff[t + 1]; i++) {
            const double *mu = theta + crf->ublk[seq->uobs[i]];
            for (uint32_t y = 0; y < Y; y++)
                out[y] += mu[y];
        }
        return;
    }
    for (uint32_t i = seq->uoff[t]; i < seq->uoff[t + 1]; i++) {
        const double *mu = theta + crf->ublk[seq->uobs[i]];
        const double v = seq->uval[i];
        for (uint32_t y = 0; y < Y; y++)
            out[y] += v * mu[y];
    }
}

/* Forced decoding: at a forced position every label but the forced one
 * scores -inf, so that no path through it survives a max and exp() makes
 * it 0 in a sum; the max and the sums are otherwise unchanged. */
static inline void crfp_force_apply(const crfp_infer *w, uint32_t t, double *s)
{
    if (!w->force || w->force[t] == CRFP_FREE_LABEL)
        return;
    const uint32_t f = w->force[t];
    for (uint32_t y = 0; y < w->Y; y++)
        if (y != f)
            s[y] = -INFINITY;
}

/* A sequence must have the forced length while labels are forced. */
static inline int crfp_force_fits(const crfp_infer *w, const crfp_seq *seq)
{
    return !w->force || (seq && seq->T == w->force_T);
}

/* Ask the cache for the unigram blocks (of theta, or of a gradient when
 * `write`) of position t ahead of use: over a large model these blocks are
 * scattered across tens of megabytes and their misses dominate otherwise. */
static inline void crfp_prefetch_unigram(const crfp_crf *crf, const crfp_seq *seq, uint32_t t,
                                         const double *base, int write)
{
#if defined(__GNUC__)
    if (t >= seq->T)
        return;
    const size_t bytes = (size_t)crf->Y * sizeof(double);
    for (uint32_t i = seq->uoff[t]; i < seq->uoff[t + 1]; i++) {
        const char *p = (const char *)(base + crf->ublk[seq->uobs[i]]);
        for (size_t off = 0; off < bytes; off += 64) {
            if (write)
                __builtin_prefetch(p + off, 1, 1);
            else
                __builtin_prefetch(p + off, 0, 1);
        }
    }
#else
    (void)crf, (void)seq, (void)t, (void)base, (void)write;
#endif
}

/* Forward-backward on a checked sequence within the current epoch: fills
 * psi, alpha, scale, shift and *logz; with `backward` also beta.  With g != NULL also adds the
 * expected counts (model marginals) to g; with pair != NULL writes pair
 * marginals in the layout of crfp_pair_marginals.  With gold != NULL,
 * *gold_score receives the score of that labelling and, when g != NULL, its
 * counts are subtracted from g (the whole per-sequence gradient in one pass
 * over the model's blocks).  What is added to g is scaled by `weight` (the
 * sequence's, crfp_dataset_weight; 1 when not training); logz, gold_score,
 * alpha, beta and pair are not.  Errors: CRFP_ENOMEM. */
crfp_status crfp_fb_run(crfp_infer *w, const crfp_seq *seq, const double *theta, double *logz,
                        int backward, double *g, double *pair, const uint32_t *gold,
                        double *gold_score, double weight);

/* Deferred bigram gradients (setgrad.c).  From crfp_fb_defer(w, g) on, the
 * pair marginals that crfp_fb_run adds to g at positions with 2 to
 * CRFP_LC_MAXOBS bigram observations go to an accumulator of the position's
 * observation set, and reach g's blocks when the set is evicted or at
 * crfp_fb_flush(w), which the caller must call before it reads g (and
 * which ends the deferral).  g must be in the model's layout (w->gbb NULL;
 * otherwise nothing is deferred).  No errors: without memory for the
 * accumulators nothing is deferred, with the same results. */
void crfp_fb_defer(crfp_infer *w, double *g);
void crfp_fb_flush(crfp_infer *w);
/* The accumulator of the set obs[0..nb) for gradient g, evicting another
 * set when needed; NULL when this position is not deferred. */
double *crfp_fb_deferred(crfp_infer *w, const double *g, const uint32_t *obs, uint32_t nb);

/* Deferred bigram gradients of one-observation positions (lowrank.c), on
 * while crfp_fb_defer's is.  crfp_fb_lowrank keeps α_{t−1} = ap and
 * γ_t = ψ_t β_t / c_t = gam (Y each) of a position of observation o, with
 * gold the cell y'·Y + y of the gold pair to subtract (UINT32_MAX: none),
 * and returns 1; 0 when the position is not deferred (off, out of memory,
 * or the records full: the caller then adds at once and, with no view
 * held, calls crfp_fb_lowrank_drain(w, 1); or θ is not the records' θ).
 * drain adds the records' sums to their blocks (always, or only when
 * full); crfp_fb_defer clears them, crfp_fb_flush and crfp_infer_epoch
 * drain them.  No errors. */
int crfp_fb_lowrank(crfp_infer *w, const double *g, const double *theta, uint32_t o,
                    uint32_t gold, const double *ap, const double *gam);
void crfp_fb_lowrank_drain(crfp_infer *w, int full_only);
void crfp_fb_lowrank_clear(crfp_infer *w);
void crfp_fb_lowrank_free(crfp_infer *w);
/* Observation o's non-zero list if this epoch built it, else NULL. */
const crfp_centry *crfp_view_entry(const crfp_infer *w, uint32_t o);

/* Viterbi on a checked sequence within the current epoch.  Leaves δ_t(y),
 * the best score of a prefix ending in y at t, in w->alpha[t·Y + y]. */
crfp_status crfp_viterbi_run(crfp_infer *w, const crfp_seq *seq, const double *theta,
                             uint32_t *out_y, double *score);

/* Which observation's block was last found dense, within one decoding (a
 * lone dense bigram block is used as the view itself). */
typedef struct crfp_vit_memo {
    uint32_t obs;   /* UINT32_MAX: none yet */
    int dense;
} crfp_vit_memo;

/* col[r] = λ_t(r, y) for r < Y, through the views Viterbi uses (t ≥ 1);
 * memo starts as {UINT32_MAX, 0} for each sequence.  Errors: CRFP_ENOMEM. */
crfp_status crfp_viterbi_column(crfp_infer *w, const crfp_seq *seq, uint32_t t,
                                const double *theta, crfp_vit_memo *memo, uint32_t y,
                                double *col);

#endif
