/* crfpipe — the training set as trainers see it (plugin ABI 2).
 *
 * One interface serves every trainer family, in the spirit of CRFsuite's
 * encoder: batch quasi-Newton methods use the batch loss and gradient,
 * stochastic and online methods the per-sequence gradient and decoding,
 * blockwise coordinate descent the per-block occurrences and windowed
 * statistics, second-order methods the Hessian-vector product.  The engine
 * owns the implementation (crfp_trainset_new in crf.h); tests and
 * distributed runs may build their own, since it is a table of functions.
 *
 * The objective, over the parameter vector θ of dimension `dim`:
 *     F(θ) = Σ_i loss_i(θ) + rho2/2 ‖θ‖² + rho1 ‖θ‖₁,
 *     loss_i(θ) = log Z(x_i) − score(x_i, y_i)   (negative log-likelihood).
 * The ℓ1 term is always the trainer's to handle; the ℓ2 term is added by
 * `batch` on request and otherwise left to the trainer (a stochastic
 * trainer applies it lazily).
 *
 * Layout: θ is cut into `nblocks` blocks, block b = [block_start[b],
 * block_start[b+1]).  For the CRF engine a block is one observation: its
 * unigram weights μ(·,o) followed by its label-pair weights λ(·,·,o).  A
 * sequence only touches the blocks of the observations it contains.
 *
 * Sequence weights (2.7): with weights w_i the loss above is Σ_i w_i·loss_i;
 * see `seq_weight`.
 *
 * Threads: `batch`, `monitor` and `hessvec` run on the host's thread team and
 * must be called from one thread at a time.  The functions taking a
 * crfp_tsws are thread-safe for distinct workspaces (one per thread).
 *
 * A trainer tests `caps` before using a member: members whose capability is
 * absent may be NULL.  The host refuses to run a trainer whose vtable
 * `needs` a capability the training set lacks, naming both.
 */
#ifndef CRFPIPE_TRAINSET_H
#define CRFPIPE_TRAINSET_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/status.h"
#include "crfpipe/team.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capability flags. */
#define CRFP_TS_BATCH    UINT64_C(0x01) /* batch loss and gradient */
#define CRFP_TS_SEQUENCE UINT64_C(0x02) /* per-sequence / minibatch gradient, touched blocks */
#define CRFP_TS_DECODE   UINT64_C(0x04) /* Viterbi on a training sequence, path features */
#define CRFP_TS_BLOCKS   UINT64_C(0x08) /* block occurrences, windowed block statistics */
#define CRFP_TS_HESSVEC  UINT64_C(0x10) /* exact Hessian-vector products */

/* Text for a capability set ("batch, sequence"), for messages: written to
 * buf (NUL-terminated unless len is 0, truncated to fit; "nothing" for no
 * capability), which is returned.  Cannot fail. */
const char *crfp_ts_caps_str(uint64_t caps, char *buf, size_t len);

/* What a trainer reports at the end of an iteration (an epoch for online
 * trainers). */
typedef struct crfp_iter_info {
    int iter;          /* 1-based */
    double objective;  /* F(θ) including the ℓ1 term, or the trainer's estimate of it */
    double step;       /* step length or learning rate */
    int nevals;        /* batch evaluations (or sequences visited) in this iteration */
} crfp_iter_info;

/* A per-thread workspace for the sequence-level functions. */
typedef struct crfp_tsws crfp_tsws;

/* Where a block's observation occurs: sequence `seq`, position `pos`. */
typedef struct crfp_occ {
    uint32_t seq, pos;
} crfp_occ;

typedef struct crfp_trainset crfp_trainset;
struct crfp_trainset {
    size_t size;          /* sizeof(crfp_trainset) of its builder: grows at the end */
    uint64_t caps;        /* CRFP_TS_* */
    size_t nseq, ntok;    /* sequences and tokens */
    size_t dim;           /* parameters */
    uint32_t nlabels;
    size_t nblocks;
    const uint64_t *block_start; /* nblocks + 1 entries, block_start[nblocks] = dim */
    double rho1, rho2;    /* the penalties asked for (a trainer may refuse rho1 > 0) */
    crfp_team *team;      /* the host's team, for the trainer's own vector loops (may be NULL) */
    void *ud;             /* the builder's */

    /* End of an iteration: progress line, dev-set evaluation, stopping
     * rules (max-iter, dev patience).  Sets *stop when training should end.
     * Returns CRFP_EINTR when the user interrupted: the trainer then returns
     * CRFP_EINTR with θ holding the last completed iterate.  The host's
     * training monitor fills these two; they may be NULL (no monitor). */
    crfp_status (*monitor)(void *monitor_ud, const crfp_iter_info *info, const double *theta,
                           int *stop);
    void *monitor_ud;

    /* BATCH.  *f = Σ_i loss_i(θ) (+ rho2/2‖θ‖² when with_l2), g (dim, overwritten)
     * its gradient.  Errors: CRFP_ENOMEM. */
    crfp_status (*batch)(void *ud, const double *theta, int with_l2, double *f, double *g);

    /* A workspace for the functions below (owned by the caller, freed with
     * ws_free).  Errors: CRFP_ENOMEM. */
    crfp_status (*ws_new)(void *ud, crfp_tsws **ws);
    void (*ws_free)(crfp_tsws *ws);

    /* Gold labelling of sequence i: *y (owned by the training set) has *T
     * entries.  Always available. */
    void (*gold)(void *ud, size_t i, const uint32_t **y, uint32_t *T);

    /* The blocks sequence i touches, each once: *blocks (owned by ws, valid
     * until the next call on ws) has *n entries.  Always available. */
    crfp_status (*seq_blocks)(crfp_tsws *ws, size_t i, const uint32_t **blocks, size_t *n);

    /* SEQUENCE.  For the n sequences idx[0..n): *loss += Σ loss_i(θ) (no ℓ2)
     * and g += gain · Σ ∇loss_i(θ), writing only the blocks they touch, which
     * are listed in *blocks (*nblocks entries, each once, owned by ws, valid
     * until the next call on ws).  g may not alias theta. */
    crfp_status (*seq_grad)(crfp_tsws *ws, const double *theta, const size_t *idx, size_t n,
                            double gain, double *g, double *loss, const uint32_t **blocks,
                            size_t *nblocks);

    /* DECODE.  Best labelling of sequence i under θ into y (T entries);
     * *score (may be NULL) its unnormalised score. */
    crfp_status (*viterbi)(crfp_tsws *ws, const double *theta, size_t i, uint32_t *y,
                           double *score);
    /* DECODE.  The features that fire on labelling y of sequence i (y NULL:
     * the gold one): *n entries, parameter index idx[k] with value val[k];
     * an index may appear more than once (the score is Σ_k val[k]·θ[idx[k]]).
     * Arrays owned by ws, valid until the next call on ws. */
    crfp_status (*path_features)(crfp_tsws *ws, size_t i, const uint32_t *y,
                                 const uint64_t **idx, const double **val, size_t *n);

    /* BLOCKS.  Where block b's observation occurs, sorted by sequence then
     * position: *occ (owned by the training set) has *n entries. */
    crfp_status (*occurrences)(void *ud, size_t b, const crfp_occ **occ, size_t *n);
    /* BLOCKS.  Gradient and diagonal curvature of Σ_i loss_i restricted to
     * block b (both of block length, overwritten), computed only on the
     * sequences where b occurs, with forward-backward truncated to `radius`
     * positions on each side of each occurrence (0: the whole sequence,
     * exact).  *loss (may be NULL) receives the loss of those sequences (or
     * of their windows).  g and h may both be NULL when only the loss is
     * wanted (forward passes only, about half the cost).  The engine's
     * windows: those of occurrences that overlap or touch are merged; at a
     * window's left edge the previous label is taken uniform (the
     * transition into the window kept), at its right edge the chain is cut;
     * the loss is then −log p(gold labels of the window) under that window
     * model, whose gradient the statistics are. */
    crfp_status (*block_stats)(crfp_tsws *ws, const double *theta, size_t b, uint32_t radius,
                               double *g, double *h, double *loss);

    /* HESSVEC.  hv (dim, overwritten) = ∇²(Σ_i loss_i)(θ) · v (+ rho2·v when
     * with_l2), exact.  v and hv must not alias; frozen parameters (a
     * chained trainer's mask) read as 0 in v and come out 0 in hv.
     * Errors: CRFP_ENOMEM (hv then holds garbage). */
    crfp_status (*hessvec)(void *ud, const double *theta, const double *v, int with_l2,
                           double *hv);

    /* SEQUENCE.  The gradient of Σ loss_i over idx[0..n) packed: *gblk
     * holds the blocks listed in *blocks one after another, each of its
     * block length, in that order; *loss += Σ loss_i.  Both arrays owned by
     * ws, valid until the next call on ws.  For trainers that update θ in
     * place and may keep no dim-sized vector of their own (SGD). */
    crfp_status (*seq_grad_sparse)(crfp_tsws *ws, const double *theta, const size_t *idx,
                                   size_t n, const uint32_t **blocks, size_t *nblocks,
                                   const double **gblk, double *loss);

    /* HESSVEC, optional (NULL, or beyond `size`, in older sets: test with
     * CRFP_TS_HAS).  Keep, between products at the same θ, what `hessvec`
     * needs from θ for the first c sequences, so that the products after the
     * first at an unchanged θ skip their pass over θ for them (the `c`
     * trade-off of Tsuboi et al. 2011: time against memory).  c = 0 (the
     * default) keeps nothing, SIZE_MAX every sequence.  The engine keeps
     * nlabels doubles per token and recognises an unchanged θ by a hash of
     * its bits, so a trainer may change θ in place without telling it.
     * Takes effect at the next product.  Errors: none from the engine (a
     * set may refuse with CRFP_EINVAL). */
    crfp_status (*hessvec_keep)(void *ud, size_t c);
    /* HESSVEC, optional (CRFP_TS_HAS).  d (dim, overwritten) = an
     * approximation of the diagonal of ∇²(Σ_i loss_i)(θ) (+ rho2 when
     * with_l2), for diagonal preconditioning: per weight, the variance
     * P(1 − P) of its feature at each position where it fires, summed over
     * positions (the covariances between positions are left out, which is
     * exact for a feature firing once per sequence); frozen weights get 0.
     * Costs about one product, and shares the state kept by hessvec_keep.
     * Errors: CRFP_ENOMEM (d then holds garbage). */
    crfp_status (*hessdiag)(void *ud, const double *theta, int with_l2, double *d);
    /* HESSVEC, optional (CRFP_TS_HAS).  Subsample the products and the
     * diagonal that follow: each sequence is in the sample with probability
     * `fraction` (> 0), independently, drawn from a hash of its index and
     * `seed`, and the loss part is scaled by nseq / (sequences in the
     * sample), an unbiased estimate of the exact Hessian at a fraction of
     * its cost (Byrd, Chin, Neveitt & Nocedal 2011).  fraction >= 1 (the
     * default): every sequence, exact.  The state kept by hessvec_keep is
     * recomputed at the next product.  Errors: CRFP_EINVAL (fraction <= 0),
     * CRFP_ENOMEM. */
    crfp_status (*hessvec_sample)(void *ud, double fraction, uint64_t seed);
    /* Distributed runs (dist.h), optional: NULL, or beyond `size`, in one
     * process (test with CRFP_TS_HAS_MIX).  The training set is then this
     * rank's shard of the job's: nseq, ntok and every sequence-level member
     * (gold, seq_*, viterbi, path_features, occurrences, block_stats) see
     * the local sequences only, while `batch`, `hessvec` and `monitor`
     * are the whole job's and collective (every rank calls them, in the
     * same order).  `mix` replaces v[0..n) on every rank by its mean
     * (CRFP_MIX_MEAN) or its sum (CRFP_MIX_SUM) over the ranks; it is how
     * online trainers average their weights after each epoch (iterative
     * parameter mixing) and add up what they report.  Collective.
     * Errors: CRFP_EIO (communication; the trainer returns it). */
    crfp_status (*mix)(void *ud, double *v, size_t n, int op);

    /* Distributed runs, optional (CRFP_TS_HAS): a sharded optimizer.  NULL
     * in one process, and where the ranks cannot meet in shared memory.
     * A batch trainer that uses these keeps and updates only the slice
     * [lo, hi) of θ and of its own vectors that `shard` gives this rank
     * (the ranks' slices, in rank order, partition [0, dim)), adds up its
     * products of vectors over the ranks with `mix` (CRFP_MIX_SUM), and
     * evaluates with `batch_shard` instead of `batch`, so that no rank
     * repeats the optimizer's work on the whole vectors:
     *  - shard: this rank's slice, and in *iterate (may be NULL) a vector
     *    of dim doubles that the ranks share (owned by the set, valid until
     *    the trainer returns), which the trainer may take as its θ: each
     *    rank writes only its slice of it, so that evaluating and
     *    gathering it copy nothing.  Every rank may read the whole of it
     *    from the return of a collective call until its own next write to
     *    it; a rank that reads beyond its slice after that (the monitor,
     *    a checkpoint) must call `gather` on it before writing again.
     *    The trainer copies it to its θ before returning.  Not
     *    collective; errors: none.
     *  - batch_shard: on entry θ[lo, hi) is this rank's part of θ (the rest
     *    is ignored); on return θ is whole on every rank, *f is the whole
     *    job's objective (+ rho2/2‖θ‖² when with_l2) and g[lo, hi) its
     *    gradient (the rest of g untouched).  Collective; errors as
     *    `batch`, and CRFP_EIO.
     *  - gather: v holds dim elements of `width` bytes (8: double, 4:
     *    float, 2: half) whose slice [lo, hi) is this rank's; on return every rank
     *    holds all of them (for checkpoints, and θ at the end of training).
     *    Collective; errors: CRFP_EIO, CRFP_EINVAL (another width). */
    crfp_status (*shard)(void *ud, size_t *lo, size_t *hi, double **iterate);
    crfp_status (*batch_shard)(void *ud, double *theta, int with_l2, double *f, double *g);
    crfp_status (*gather)(void *ud, void *v, size_t width);

    /* Optional (since 2.7; CRFP_TS_HAS): sequence i's weight w_i >= 0 in
     * the objective, which then reads F(θ) = Σ_i w_i·loss_i(θ) + penalties
     * (CRFsuite's "@weight:W"; crfp_dataset_set_weight).  Every member
     * above that returns a loss, a gradient, block statistics or a Hessian
     * product already includes the weights: only a trainer that makes its
     * own update from `viterbi` and `path_features` (the perceptrons)
     * scales it by w_i.  Absent, every sequence weighs 1.  Pure. */
    double (*seq_weight)(void *ud, size_t i);
};

/* Whether training set `ts` is large enough to hold `member` and has it
 * set: members added after ABI 2.0 (seq_grad_sparse, hessvec_keep, hessdiag,
 * hessvec_sample, mix, shard, batch_shard, gather, seq_weight) are only read
 * when this holds. */
#define CRFP_TS_HAS(ts, member)                                                            \
    ((ts)->size >= offsetof(crfp_trainset, member) + sizeof((ts)->member) &&               \
     (ts)->member != NULL)

#define CRFP_MIX_MEAN 0
#define CRFP_MIX_SUM 1

/* Whether ts offers `mix`. */
#define CRFP_TS_HAS_MIX(ts) CRFP_TS_HAS(ts, mix)

/* Fail unless `ts` offers every capability in `needs`: CRFP_EINVAL with a
 * message naming the trainer, what it needs and what the set offers.
 * CRFP_OK otherwise; nothing else can go wrong.  ts must not be NULL. */
crfp_status crfp_trainset_require(crfp_host *host, const crfp_trainset *ts, uint64_t needs,
                                  const char *trainer);

#ifdef __cplusplus
}
#endif
#endif
