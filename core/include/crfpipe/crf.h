/* crfpipe — the linear-chain CRF engine shared by every trainer and tagger.
 *
 * Model (after Lavergne, Cappé & Yvon 2010):
 *   p(y|x) ∝ exp Σ_t [ Σ_{o∈U_t} μ(y_t, o) + Σ_{o∈B_t} λ(y_{t-1}, y_t, o) ]
 * with U_t / B_t the unigram / bigram observations at position t (strings
 * produced by a features plugin, interned here as ids) and y_{-1} the
 * start-of-sequence label, index nlabels.  An observation flagged UNIGRAM
 * owns a block of nlabels weights μ(·,o); one flagged BIGRAM owns a block of
 * (nlabels+1)·nlabels weights λ(y',y,o), row y' (start label last).
 *
 * Threading: a crfp_crf is built single-threaded, then shared read-only by
 * any number of decoders / objective threads.
 */
#ifndef CRFPIPE_CRF_H
#define CRFPIPE_CRF_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/status.h"
#include "crfpipe/plugin.h"
#include "crfpipe/team.h"
#include "crfpipe/trainset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CRFP_NO_BLOCK UINT64_MAX

typedef struct crfp_crf crfp_crf;

/* --- building a model ---------------------------------------------------- */

/* An empty model (no labels, no observations, not finalized), owned by the
 * caller. */
crfp_crf *crfp_crf_new(void);          /* NULL on allocation failure */
void crfp_crf_free(crfp_crf *crf);     /* NULL accepted */

/* Intern a label; *id receives its index.  Only before finalize.  The name
 * is copied; a label the model has already gives its index (also after
 * finalize).  Errors, no message recorded (no host): CRFP_EINVAL (NULL
 * argument; a new label after finalize or beyond 65,535), CRFP_ENOMEM. */
crfp_status crfp_crf_add_label(crfp_crf *crf, const char *name, uint32_t *id);
/* Index of a label (name not NULL), or -1. */
int64_t crfp_crf_label_id(const crfp_crf *crf, const char *name);
/* Number of labels; the name of label id, NULL when id >= nlabels.  The name
 * is owned by the model and NUL-terminated; adding a label may move it, so
 * it is valid until the next crfp_crf_add_label (for good after finalize)
 * or crfp_crf_free. */
uint32_t crfp_crf_nlabels(const crfp_crf *crf);
const char *crfp_crf_label(const crfp_crf *crf, uint32_t id);

/* Intern an observation string with flags CRFP_OBS_UNIGRAM/BIGRAM (ORed
 * into those it already has).  Only before finalize.  The len bytes at s
 * are copied (they may hold NUL bytes).  After finalize only an observation
 * the model has, with no new flag, is accepted (its id returned).  Errors,
 * no message recorded: CRFP_EINVAL (NULL argument; 4 GiB or longer; too
 * many observations; anything new after finalize), CRFP_ENOMEM. */
crfp_status crfp_crf_add_obs(crfp_crf *crf, const char *s, size_t len, unsigned flags,
                             uint32_t *id);
/* Id of an observation, or -1 when unknown.  Thread-safe after finalize. */
int64_t crfp_crf_obs_id(const crfp_crf *crf, const char *s, size_t len);
/* Number of observations; the bytes of observation id, with their count in
 * *len (may be NULL).  The string is owned by the model and followed by a
 * NUL, but may itself hold NUL bytes: use *len, not strlen.  NULL, *len
 * untouched, when id >= nobs.  Valid until the next crfp_crf_add_obs (for
 * good after finalize) or crfp_crf_free. */
uint32_t crfp_crf_nobs(const crfp_crf *crf);
const char *crfp_crf_obs(const crfp_crf *crf, uint32_t id, size_t *len);

/* Lay out the parameter vector (one block per observation and flag) and
 * allocate it, zeroed.  Labels and observations are frozen afterwards.
 * Errors, no message recorded: CRFP_EINVAL (crf NULL or already
 * finalized), CRFP_ENOMEM (the model stays unfinalized). */
crfp_status crfp_crf_finalize(crfp_crf *crf);

/* Number of weights; 0 before finalize. */
size_t crfp_crf_nparams(const crfp_crf *crf);
/* The weights, owned by the model (nparams doubles).  NULL before finalize;
 * valid until crfp_crf_free. */
double *crfp_crf_weights(crfp_crf *crf);
const double *crfp_crf_weights_const(const crfp_crf *crf);
/* First weight of an observation's unigram / bigram block, or CRFP_NO_BLOCK
 * (also before finalize and for obs >= nobs). */
uint64_t crfp_crf_ublock(const crfp_crf *crf, uint32_t obs);
uint64_t crfp_crf_bblock(const crfp_crf *crf, uint32_t obs);

/* The features plugin that produced the observations, and its saved
 * configuration (e.g. the template text), kept in the model so that
 * tagging extracts exactly what training saw.  Strings are copied.
 * set: `config` is len bytes (NULL allowed when len is 0); a second call
 * replaces the first.  Errors, no message recorded: CRFP_EINVAL (crf or
 * plugin NULL, config NULL with len > 0), CRFP_ENOMEM (nothing changed).
 * The getters return NULL (and *len, which may be NULL, 0) until set; the
 * strings are owned by the model, the config NUL-terminated after its len
 * bytes, valid until the next crfp_crf_set_features or crfp_crf_free. */
crfp_status crfp_crf_set_features(crfp_crf *crf, const char *plugin, const char *config,
                                  size_t len);
const char *crfp_crf_features_plugin(const crfp_crf *crf);
const char *crfp_crf_features_config(const crfp_crf *crf, size_t *len);

/* Free-form key/value metadata saved with the model (label feature name,
 * trainer, rho1...).  set: both strings copied; a key set again gets the new
 * value.  Errors, no message recorded: CRFP_EINVAL (NULL argument),
 * CRFP_ENOMEM (nothing changed).  get: the value of `key` (not NULL), or
 * NULL when absent; owned by the model, valid until `key` is set again or
 * crfp_crf_free. */
crfp_status crfp_crf_set_meta(crfp_crf *crf, const char *key, const char *value);
const char *crfp_crf_meta(const crfp_crf *crf, const char *key);

/* Number of non-zero weights (0 before finalize). */
size_t crfp_crf_active(const crfp_crf *crf);

/* --- model files ----------------------------------------------------------
 * Binary, versioned, little-endian, checksummed.  Only observations with a
 * non-zero weight are stored, with their non-zero weights bit-exact.  Saving
 * writes `path.tmp.PID.XXXXXX` (crfpipe/outfile.h: stale temporaries of
 * dead runs are removed first), fsyncs it, renames it into place and fsyncs
 * the directory.  The file keeps an existing model's mode, or gets 0666
 * minus the umask.  Errors: those of crfp_crf_check_save_path, CRFP_ENOMEM,
 * CRFP_EIO (write, sync or rename failed; the old file is untouched).
 * CRFP_EINVAL, too, for a NULL argument or a model not finalized. */
crfp_status crfp_crf_save(crfp_host *host, const crfp_crf *crf, const char *path);

/* Whether a model could be saved at `path`, checked before a long training
 * run rather than after it: the path must be a regular file or a new name
 * (CRFP_EIO for a directory; CRFP_EINVAL for a FIFO, device or socket,
 * which would be destroyed or block), in an existing directory the process
 * may write (CRFP_EIO naming the directory and the reason).  Also CRFP_EINVAL
 * for a NULL or empty path, CRFP_ENOMEM. */
crfp_status crfp_crf_check_save_path(crfp_host *host, const char *path);

/* Errors: CRFP_ENOTFOUND (no such file), CRFP_EIO (unreadable, a directory,
 * a FIFO: refused at once rather than waited on), CRFP_ENOMEM, CRFP_EFORMAT
 * (not a model, wrong version, truncated, checksum mismatch), each naming
 * the file.  *out owned by the caller.  The model comes finalized; free it
 * with crfp_crf_free.  *out is NULL on failure.  Also CRFP_EINVAL (path or
 * out NULL, *out then untouched), and CRFP_EFORMAT for a model over the
 * host's model-labels or model-params limit or a file that changed while
 * it was read. */
crfp_status crfp_crf_load(crfp_host *host, const char *path, crfp_crf **out);
/* --- the model as text -----------------------------------------------------
 * Human-readable dump, tab-separated: the header (crfp_crf_dump_header),
 * then one line per non-zero weight (crfp_crf_write_weight).  Strings (labels,
 * observations, metadata) are written with backslash, tab, line feed and
 * carriage return as \\ \t \n \r and other control bytes as \xHH, so
 * that no field holds a separator; the features configuration is written
 * as it is after a line giving its length in bytes.  Nothing is closed.
 * Errors: CRFP_EINVAL (crf NULL or not finalized, out NULL), CRFP_EIO (a
 * write failed; part of the text may have been written). */
crfp_status crfp_crf_dump(crfp_host *host, const crfp_crf *crf, FILE *out);
/* The dump without its weight lines: "labels N", "label ID NAME" per label,
 * "features PLUGIN", "config BYTES" and the configuration, "meta KEY VALUE"
 * per metadata entry.  Errors: as crfp_crf_dump. */
crfp_status crfp_crf_dump_header(crfp_host *host, const crfp_crf *crf, FILE *out);

/* One non-zero weight: μ(label, obs) when !bigram (prev is then nlabels),
 * λ(prev, label, obs) when bigram (prev == nlabels: the start label). */
typedef struct crfp_crf_weight {
    int bigram;
    uint32_t obs, prev, label;
    double value;
} crfp_crf_weight;

/* Call fn for every non-zero weight of a finalized model, in the dump's
 * order: by observation id, each one's unigram weights by label, then its
 * bigram weights by previous label (start last) and label.  `w` is valid
 * during the call only.  A non-zero return of fn stops the walk and is
 * returned; 0 when every weight was visited (or crf is NULL or not
 * finalized: nothing is visited).  Only reads the model. */
int crfp_crf_foreach_weight(const crfp_crf *crf,
                            int (*fn)(void *ud, const crfp_crf_weight *w), void *ud);

/* Write `w` as a line of the dump: "U\tOBS\tLABEL\tWEIGHT" or
 * "B\tOBS\tPREV\tLABEL\tWEIGHT" (PREV "<start>" for the start label),
 * strings escaped as in the dump, the weight with 17 significant digits.
 * Cannot fail by itself: check ferror(out). */
void crfp_crf_write_weight(const crfp_crf *crf, const crfp_crf_weight *w, FILE *out);

/* --- sequences ------------------------------------------------------------
 * A sentence as ids: T positions; for position t its unigram observation
 * ids are uobs[uoff[t] .. uoff[t+1]) and bigram ones bobs[boff[t] ..
 * boff[t+1]).  y (may be NULL when unlabelled) holds label ids.
 * uval (since 2.5; NULL: every value is 1) holds, at the same indices as
 * uobs, the value of each unigram observation: its features contribute
 * uval[i]·μ(y, uobs[i]) to the score (CRFsuite's attribute values).  Bigram
 * observations are binary.  A caller building a crfp_seq for
 * crfp_dataset_add_ids sets uval (NULL, or finite values). */
typedef struct crfp_seq {
    uint32_t T;
    uint32_t *y;
    uint32_t *uoff, *uobs;
    uint32_t *boff, *bobs;
    double *uval;
} crfp_seq;

/* A set of sequences in one arena.  new: empty, owned by the caller; NULL
 * on allocation failure.  free: NULL accepted.  size / tokens: the
 * sequences and tokens it holds.  get: sequence i, NULL when i >= size; the
 * crfp_seq and its arrays are owned by the dataset and valid until the next
 * crfp_dataset_add* on it, or its free. */
typedef struct crfp_dataset crfp_dataset;
crfp_dataset *crfp_dataset_new(void);
void crfp_dataset_free(crfp_dataset *ds);
size_t crfp_dataset_size(const crfp_dataset *ds);
size_t crfp_dataset_tokens(const crfp_dataset *ds);
const crfp_seq *crfp_dataset_get(const crfp_dataset *ds, size_t i);

/* Append a sentence.  With `grow` (training) unknown observations and labels
 * are interned into crf (not yet finalized); otherwise (dev/test, or after
 * finalize) unknown observations are dropped and an unknown label is mapped
 * to... nothing: CRFP_ENOTFOUND is returned unless labels is NULL.
 * `labels` (may be NULL) has obs->ntok strings.  obs and labels are only
 * read: the sentence is copied.  Errors, recorded in host: CRFP_EINVAL (ds,
 * crf or obs NULL; `grow` with a finalized model; a NULL label; a sentence
 * of 2^32 tokens or observations; a label or observation crf refuses),
 * CRFP_ENOTFOUND (above), CRFP_ENOMEM.  After any error ds holds its
 * earlier sentences, unchanged, and stays usable.  With `grow`, what was
 * interned into crf before the error stays there. */
crfp_status crfp_dataset_add(crfp_host *host, crfp_dataset *ds, crfp_crf *crf,
                             const crfp_obsseq *obs, const char *const *labels, int grow);

/* Append a sentence already expressed as ids (copied; seq->y and seq->uval
 * may be NULL).  Ids are not checked here: crfp_crfobj_new / crfp_crf_errors
 * check them; a value that is not finite is CRFP_EINVAL.
 * For tests, benchmarks and callers that intern observations themselves.
 * Errors: CRFP_EINVAL (malformed offsets), CRFP_ENOMEM.  CRFP_EINVAL
 * also for ds or seq NULL; messages are recorded in host (may be NULL).
 * After an error ds holds its earlier sentences, unchanged. */
crfp_status crfp_dataset_add_ids(crfp_host *host, crfp_dataset *ds, const crfp_seq *seq);

/* Sequence weights (since 2.7): sequence i's loss counts w_i times in the
 * training objective, F(θ) = Σ_i w_i·loss_i(θ) + penalties, as CRFsuite's
 * "@weight:W" (a sequence seen w times, or an instance weight for domain
 * adaptation or importance sampling).  Every sequence weighs 1 until set.
 * weight: sequence i's (1 when i is out of range or ds NULL); pure.
 * weighted: how many sequences weigh other than 1 (0 for ds NULL); pure.
 * set_weight: w finite, from 0 to CRFP_MAX_SEQ_WEIGHT (0: the sequence
 * contributes nothing, though its observations and labels are in the
 * model).  Errors, recorded in host (may be NULL): CRFP_EINVAL (ds NULL,
 * i out of range, w outside the range; the weight is then unchanged).
 * crfp_dataset_remap carries the weights over. */
#define CRFP_MAX_SEQ_WEIGHT 1e9
double crfp_dataset_weight(const crfp_dataset *ds, size_t i);
size_t crfp_dataset_weighted(const crfp_dataset *ds);
crfp_status crfp_dataset_set_weight(crfp_host *host, crfp_dataset *ds, size_t i, double w);

/* Fill a caller-owned crfp_seq for tagging one sentence (no label).  The
 * seq's arrays are (re)allocated in `buf`, reused across calls.  new: owned
 * by the caller, NULL on allocation failure.  free: NULL accepted.  fill:
 * *seq points into b (its y NULL), valid until the next fill on b or its
 * free; observations the finalized model lacks, or lacks a block for, are
 * dropped.  crf and obs are only read.  Errors, no message recorded (no
 * host): CRFP_EINVAL (NULL argument, model not finalized, 2^32 tokens or
 * observations, an observation of 4 GiB), CRFP_ENOMEM; *seq is then
 * untouched. */
typedef struct crfp_seqbuf crfp_seqbuf;
crfp_seqbuf *crfp_seqbuf_new(void);
void crfp_seqbuf_free(crfp_seqbuf *b);
crfp_status crfp_seqbuf_fill(crfp_seqbuf *b, const crfp_crf *crf, const crfp_obsseq *obs,
                             const crfp_seq **seq);

/* --- inference --------------------------------------------------------------
 * A crfp_infer is a per-thread workspace (grown to the longest sequence
 * seen, on the heap).  The crf is only read.  The functions below record
 * no message (there is no host).  Those taking a sequence fail with
 * CRFP_EINVAL for a NULL workspace or theta, or for a sequence that does
 * not fit the model (NULL, decreasing offsets, label or observation ids out
 * of range or without weights), and with CRFP_ENOMEM when the workspace
 * cannot grow (w stays usable). */
typedef struct crfp_infer crfp_infer;
/* A workspace for crf (finalized; borrowed, must outlive it), owned by the
 * caller.  NULL when crf is NULL or not finalized, or out of memory.
 * crfp_infer_free accepts NULL. */
crfp_infer *crfp_infer_new(const crfp_crf *crf);
void crfp_infer_free(crfp_infer *w);

/* Force the forward-backward path: 0 = automatic (sparse where M=exp(λ)-1
 * is sparse enough, dense otherwise), 1 = always sparse, 2 = always dense.
 * For tests and benchmarks.  Any other value means 0.  Ends a fixed θ
 * (crfp_infer_fix_theta). */
void crfp_infer_set_mode(crfp_infer *w, int mode);

/* Let Viterbi and the gradient's outer-product kernel use the CPU's 256-bit
 * vector instructions (AVX; AVX2 and FMA for the kernel) when it has them
 * (on = 1, the default) or keep to the baseline ones (0).  Viterbi gives
 * the same labelling and bit-identical scores either way; gradients differ
 * in rounding only (fused multiply-adds).  For tests and benchmarks. */
void crfp_infer_set_simd(crfp_infer *w, int on);

/* Let Viterbi skip, at a position whose summed transitions it has cached
 * (θ fixed, crfp_infer_fix_theta), the previous labels that cannot be the
 * best predecessor of any label (on = 1, the default) or always look at
 * all of them (0).  Exact: the same labelling and bit-identical scores;
 * for tests and benchmarks. */
void crfp_infer_set_prune(crfp_infer *w, int on);
/* How many (position, previous label) pairs Viterbi has skipped so far on w
 * by that pruning, and how many it weighed in all at the positions where
 * pruning applied; for tests and benchmarks.  Neither pointer may be NULL. */
void crfp_infer_prune_counts(const crfp_infer *w, uint64_t *skipped, uint64_t *weighed);

/* Declare that the following inference calls on w use `theta` and that it
 * does not change meanwhile (tagging with a loaded model).  The workspace
 * then keeps what it derives from θ per bigram observation (non-zero lists,
 * exp(λ), and for Viterbi the summed λ of positions with several bigram
 * observations) across calls, instead of rebuilding it for every sequence:
 * with G2P's letter-conditioned transitions that was most of the decoding
 * time.  Calls with another θ behave as before (a fresh cache per call).
 * NULL, or crfp_infer_set_mode, ends it.  The caller must not change the
 * values of a fixed θ; re-fix after doing so.  Memory: up to 16 MB per
 * workspace for the summed matrices, plus the model's bigram non-zeros.
 * Errors: CRFP_EINVAL (w NULL), CRFP_ENOMEM (w stays usable, not fixed). */
crfp_status crfp_infer_fix_theta(crfp_infer *w, const double *theta);

/* Forced decoding (Wapiti's --force): while set, inference on w keeps
 * position t of a sequence to the label force[t], or leaves it free where
 * force[t] is CRFP_FREE_LABEL.  crfp_viterbi and crfp_nbest then give the
 * best labellings among those that agree with it (crfp_nbest finds fewer
 * than k when fewer exist), crfp_forward_backward the log partition
 * function and the marginals of the distribution conditioned on it, and
 * crfp_pair_marginals and crfp_segment_prob alike.  `force` (T entries)
 * is borrowed: it must stay unchanged until the next call on w, which
 * replaces it, or a call with force NULL, which ends it.  While it is set
 * a sequence whose length is not T is refused (CRFP_EINVAL).  Errors:
 * CRFP_EINVAL (w NULL; a label neither CRFP_FREE_LABEL nor one of the
 * model's: nothing is forced then). */
#define CRFP_FREE_LABEL UINT32_MAX
crfp_status crfp_infer_set_force(crfp_infer *w, const uint32_t *force, uint32_t T);

/* Best labelling (sparse Viterbi).  out_y has seq->T entries; *score (may be
 * NULL) its unnormalised log score.  CRFP_EINVAL also for out_y NULL when
 * T > 0, or a model without labels. */
crfp_status crfp_viterbi(crfp_infer *w, const crfp_seq *seq, const double *theta,
                         uint32_t *out_y, double *score);

/* The k best labellings, best first: out_y is k*T, scores k entries; *found
 * receives how many exist (< k for short sequences with few labels).
 * T = 0 gives one (empty) labelling of score 0; a model without labels, or
 * k = 0, none.  *found is 0 on error.  CRFP_EINVAL also for found NULL, or
 * out_y or scores NULL with k > 0. */
crfp_status crfp_nbest(crfp_infer *w, const crfp_seq *seq, const double *theta, size_t k,
                       uint32_t *out_y, double *scores, size_t *found);

/* Forward-backward: log Z, and (when not NULL) token marginals
 * marg[t*Y + y] = P(y_t = y | x).  CRFP_EINVAL also for logz NULL, and for
 * scores too large for exp() (log Z not finite: a weight or label bias of
 * about 700 or more), where marg is left unset; Viterbi has no such limit. */
crfp_status crfp_forward_backward(crfp_infer *w, const crfp_seq *seq, const double *theta,
                                  double *logz, double *marg);

/* Pairwise marginals P(y_{t-1}=y', y_t=y | x) as pair[(t*(Y+1) + y')*Y + y]
 * (y' = Y at t = 0, the start label) — for tests.  CRFP_EINVAL also for
 * pair NULL. */
crfp_status crfp_pair_marginals(crfp_infer *w, const crfp_seq *seq, const double *theta,
                                double *pair);

/* The probability that positions start..start+n-1 carry labels[0..n), given
 * x: a span's confidence (Culotta & McCallum's constrained
 * forward-backward), from the tables of the workspace's last run, which
 * must be crfp_forward_backward with marginals (or crfp_pair_marginals) on
 * this seq and theta, unchanged since; O(n).  Borrowed arguments; *p
 * receives the probability.  Errors: CRFP_EINVAL (NULL arguments, n = 0,
 * a segment past the sequence's end, a label out of range, or no such last
 * run), CRFP_ENOMEM (building a transition view). */
crfp_status crfp_segment_prob(crfp_infer *w, const crfp_seq *seq, const double *theta,
                              uint32_t start, uint32_t n, const uint32_t *labels, double *p);

/* Unnormalised log score of a labelling.  Nothing is checked: crf must be
 * finalized, seq fit it and y hold seq->T label ids.  Cannot fail. */
double crfp_path_score(const crfp_crf *crf, const crfp_seq *seq, const double *theta,
                       const uint32_t *y);

/* 2.6: the same score term by term: terms[t] (seq->T doubles, owned by the
 * caller; NULL: not written) receives position t's share, the weights of
 * y[t]'s unigram features and of the label pair (y[t-1], y[t]) (the start
 * pair at t = 0) at t, and the sum is returned.  What Wapiti's `label -s`
 * prints beside each token.  Same preconditions; cannot fail. */
double crfp_path_terms(const crfp_crf *crf, const crfp_seq *seq, const double *theta,
                       const uint32_t *y, double *terms);

/* --- training objective -----------------------------------------------------
 * f(θ) = Σ_i [log Z(x_i) - score(x_i, y_i)] + rho2/2‖θ‖², and ∇f, computed
 * on `team` (NULL: the calling thread alone); sequences are split over the
 * members, each accumulating into its own gradient buffer (one member into
 * the caller's g, the others into buffers covering only the parameters their
 * sequences touch).  *out owned by
 * the caller; crf, ds and team are borrowed and must outlive it.
 * Errors: CRFP_EINVAL (model not finalized, unlabelled or malformed
 * sequence, named), CRFP_ENOMEM.
 * new: also CRFP_EINVAL for crf, ds or out NULL or rho2 not >= 0; *out is
 * NULL on failure; messages are recorded in host.  free: NULL accepted.
 * eval: *f = f(θ) and g (nparams doubles, overwritten) = ∇f; errors,
 * recorded in the objective's host: CRFP_EINVAL (NULL argument),
 * CRFP_ENOMEM (g then holds garbage, *f is not set). */
typedef struct crfp_crfobj crfp_crfobj;
crfp_status crfp_crfobj_new(crfp_host *host, const crfp_crf *crf, const crfp_dataset *ds,
                            crfp_team *team, double rho2, crfp_crfobj **out);
void crfp_crfobj_free(crfp_crfobj *o);
crfp_status crfp_crfobj_eval(crfp_crfobj *o, const double *theta, double *f, double *g);
/* Change the ℓ2 weight used by the next evaluations (not checked: unlike
 * crfp_crfobj_new, a negative value is taken as given). */
void crfp_crfobj_set_rho2(crfp_crfobj *o, double rho2);
/* Force sparse/dense forward-backward inside eval (see crfp_infer_set_mode). */
void crfp_crfobj_set_mode(crfp_crfobj *o, int mode);
/* The vector kernels inside eval on or off (see crfp_infer_set_simd). */
void crfp_crfobj_set_simd(crfp_crfobj *o, int on);

/* Token and sequence errors of Viterbi on a labelled dataset, on `team`
 * (NULL: the calling thread).  Errors: CRFP_EINVAL (unlabelled or malformed
 * sequence), CRFP_ENOMEM; no message is recorded (no host).  CRFP_EINVAL
 * also for a NULL argument or a model not finalized.  The counts are set to
 * 0 first, and are partial after CRFP_ENOMEM. */
crfp_status crfp_crf_errors(const crfp_crf *crf, const crfp_dataset *ds, const double *theta,
                            crfp_team *team, size_t *tok_err, size_t *seq_err);

/* --- the training set seen by trainers (trainset.h) -------------------------
 * Build the engine's crfp_trainset over a finalized model and a labelled
 * dataset, with every capability: batch objective and exact Hessian-vector
 * products on `team` (the products' buffers, one weight vector per member
 * but the first, are allocated on the first product), per-sequence
 * gradients, decoding, block occurrences and statistics.  One
 * block per observation.  `mask` (may be NULL; nparams bits, bit j of
 * mask[j/64]) freezes the parameters whose bit is 0 at zero: their
 * gradients read as 0 and they appear in no path's features, which is how a
 * chained trainer fine-tunes only the features its predecessor kept.
 * crf, ds, team and mask are borrowed and must outlive the set; *out is
 * owned by the caller (crfp_trainset_free).  monitor/monitor_ud are left
 * NULL for the caller to fill.  Errors: those of crfp_crfobj_new.  Also
 * CRFP_EINVAL for rho1 not >= 0, and CRFP_ENOMEM; *out (not NULL itself)
 * is NULL on failure; messages are recorded in host. */
crfp_status crfp_trainset_new(crfp_host *host, const crfp_crf *crf, const crfp_dataset *ds,
                              crfp_team *team, const uint64_t *mask, double rho1, double rho2,
                              crfp_trainset **out);
/* Free a set built by crfp_trainset_new (NULL accepted); not for training
 * sets built otherwise. */
void crfp_trainset_free(crfp_trainset *ts);
/* Force the forward-backward path of the batch objective (see
 * crfp_infer_set_mode).  Only on a set built by crfp_trainset_new. */
void crfp_trainset_set_mode(crfp_trainset *ts, int mode);

/* A copy of `crf` that keeps only the observations owning a weight that is
 * non-zero in theta (labels, features configuration and metadata kept), with
 * their weights copied from theta.  *map (nobs entries) gives each old
 * observation's new id, or UINT32_MAX when dropped; *mask (nparams bits of
 * the new model) marks the weights that were non-zero.  All outputs owned
 * by the caller (free, crfp_crf_free).  Errors: CRFP_ENOMEM, CRFP_EINVAL
 * (crf not finalized).  On failure all three outputs are NULL; no message
 * is recorded (no host). */
crfp_status crfp_crf_shrink(const crfp_crf *crf, const double *theta, crfp_crf **out_crf,
                            uint32_t **map, uint64_t **mask);
/* crfp_crf_shrink that also keeps the observations whose bit is set in
 * `keep` (nobs bits, may be NULL) - with their weights, as zeros when they
 * are zero - and in `open` (may be NULL), whose whole blocks it marks in
 * the mask: the incremental feature sets' admitted observations, free to
 * move in the next stage.  Same ownership and errors as crfp_crf_shrink. */
crfp_status crfp_crf_shrink_keep(const crfp_crf *crf, const double *theta, const uint64_t *keep,
                                 const uint64_t *open, crfp_crf **out_crf, uint32_t **map,
                                 uint64_t **mask);
/* A copy of `crf`, which must not be finalized yet, with only the
 * observations whose bit is set in `keep` (nobs bits), in their order, and
 * every label, the features configuration and the metadata; not finalized
 * either.  *map (nobs entries) gives each old observation's new id, or
 * UINT32_MAX when dropped.  Both outputs owned by the caller (crfp_crf_free,
 * free).  Used to drop observations too rare in the training data before
 * the parameters are laid out (crfp_dataset_obs_counts; crfp_dataset_remap
 * then renumbers the data).  Errors, no message recorded: CRFP_EINVAL (crf
 * finalized), CRFP_ENOMEM.  On failure both outputs are NULL. */
crfp_status crfp_crf_subset(const crfp_crf *crf, const uint64_t *keep, crfp_crf **out,
                            uint32_t **map);

/* Add to counts[2·o] and counts[2·o + 1] the number of positions of `ds`
 * where observation o is a unigram and a bigram observation (counts has
 * 2·nobs entries, which the caller zeroes or accumulates into across
 * datasets).  Only reads ds.  Errors, no message recorded: CRFP_EINVAL (an
 * id >= nobs; counts then partly added). */
crfp_status crfp_dataset_obs_counts(const crfp_dataset *ds, uint32_t nobs, uint64_t *counts);

/* `ds` with every observation id o replaced by map[o], dropping those mapped
 * to UINT32_MAX.  *out owned by the caller, NULL on failure.  Errors:
 * CRFP_ENOMEM, no message recorded. */
crfp_status crfp_dataset_remap(const crfp_dataset *ds, const uint32_t *map, crfp_dataset **out);

/* --- models of other programs -------------------------------------------- */

/* Whether the n bytes at head begin a CRFsuite model file (crf1d: "lCRF"
 * then, at byte 8, "FOMC"; 12 bytes suffice).  Pure. */
int crfp_crf_is_crfsuite(const void *head, size_t n);

/* Read the CRFsuite model file at `path` (version 100: CRFsuite 0.12,
 * python-crfsuite, sklearn-crfsuite) as a finalized crfpipe model with the
 * same scores: every attribute with a non-zero state weight becomes a
 * unigram observation of the same bytes, the transitions the bigram block
 * of the observation "B" (no start weights, as in CRFsuite).  `features`
 * and the `config_len` bytes at `config` are recorded as its features
 * plugin and configuration (the caller names the plugin that extracts those
 * observations from CRFsuite data; the library knows no plugin by name);
 * no metadata is set.  *out is owned by the caller (crfp_crf_free), NULL on
 * failure.  The file is hostile input: every offset, id and string is
 * checked, and the host's model-labels and model-params limits apply.
 * Errors (message in host, naming the file and what is wrong):
 * CRFP_ENOTFOUND, CRFP_EIO, CRFP_EFORMAT (not a CRFsuite model, another
 * version, truncated or malformed), CRFP_ENOMEM, CRFP_EINVAL (NULL
 * argument). */
crfp_status crfp_crf_import_crfsuite(crfp_host *host, const char *path, const char *features,
                                     const char *config, size_t config_len, crfp_crf **out);

/* Up to n bytes from the start of the file at path into head, to tell
 * model formats apart before reading one: the count read, 0 when the file
 * cannot be opened or is not a regular file (reading it as a model then
 * says why).  A FIFO is not waited for.  Reads nothing else. */
size_t crfp_crf_file_head(const char *path, void *head, size_t n);

/* Whether the n bytes at head begin a crfpipe model file (its magic; 8
 * bytes suffice).  Pure. */
int crfp_crf_is_crfpipe(const void *head, size_t n);

/* Whether the n bytes at head begin a Wapiti model file ("#mdl#").  Pure. */
int crfp_crf_is_wapiti(const void *head, size_t n);

/* The features plugins that make an imported Wapiti model's observations
 * again, with their configurations (the caller names them: the library
 * knows no plugin by name). */
typedef struct crfp_wapiti_features {
    const char *patterns;       /* models trained with patterns: the plugin, */
    const char *patterns_head;  /* its configuration, before the patterns (one a line), */
    const char *patterns_me_head;   /* and with --me (NULL: such models are refused) */
    const char *raw;            /* models trained on observations given in the data:
                                 * the plugin (NULL: such models are refused), */
    const char *raw_config;     /* its configuration, */
    const char *me_config;      /* and with --me (every observation "u" and the field;
                                 * NULL: refused) */
} crfp_wapiti_features;

/* Read the Wapiti model file at `path` (`wapiti train`'s text format: a
 * linear-chain CRF, or a maximum-entropy model, which `wapiti label`
 * decodes as a CRF) as a finalized crfpipe model with the same scores:
 * every observation with a non-zero weight becomes an observation of the
 * same bytes, with Wapiti's unigram and bigram blocks (no start weights, as
 * in Wapiti).  Its features plugin and configuration come from `fx`: for a
 * model with patterns, fx->patterns with fx->patterns_head (trained with
 * --me: fx->patterns_me_head) followed by the patterns; without, fx->raw
 * with fx->raw_config (fx->me_config for a model trained with --me).  Metadata: wapiti-type=maxent for a maxent model,
 * wapiti-me=true for --me; nothing else.  *out is owned by the caller
 * (crfp_crf_free), NULL on failure.  The file is hostile input: every count,
 * string and index is checked, and the host's model-labels and model-params
 * limits apply.  Errors (message in host, naming the file and line):
 * CRFP_ENOTFOUND, CRFP_EIO, CRFP_EFORMAT (not a Wapiti model; an MEMM, a
 * kind of model fx gives no features for (a NULL member), or one from
 * before model types; truncated or malformed),
 * CRFP_ENOMEM, CRFP_EINVAL (NULL argument). */
crfp_status crfp_crf_import_wapiti(crfp_host *host, const char *path,
                                   const crfp_wapiti_features *fx, crfp_crf **out);

/* Whether the n bytes at head begin a CRF++ model: the text one
 * ("version: ") or the binary one (version 1xx and a small type,
 * little-endian; 8 bytes suffice).  Pure. */
int crfp_crf_is_crfpp(const void *head, size_t n);

/* Read the CRF++ model at `path` (crf_learn's binary model, or the text one
 * of crf_learn -t) as a finalized crfpipe model with the same scores (as
 * crf_test gives them with its default cost factor 1): every feature string
 * with a non-zero weight becomes an observation of the same bytes, 'U'
 * strings with a unigram block, 'B' strings with a bigram block (no start
 * weights, as in CRF++).  Its features plugin is `features`, and its
 * configuration `head` followed by CRF++'s template lines, one per line
 * (the caller names the plugin and the head; the library knows no plugin by
 * name); no metadata is set.  *out is owned by the caller, NULL on
 * failure.  Hostile input: sizes, trie and indexes are checked, and the
 * model-labels and model-params limits apply.  Errors (message in host,
 * naming the file, and the line for the text model): CRFP_ENOTFOUND,
 * CRFP_EIO, CRFP_EFORMAT, CRFP_ENOMEM, CRFP_EINVAL (NULL argument). */
crfp_status crfp_crf_import_crfpp(crfp_host *host, const char *path, const char *features,
                                  const char *head, crfp_crf **out);

/* Write crf (finalized; only read) as a CRFsuite model file at path
 * (crf1d version 100, which crfsuite tag, python-crfsuite and
 * sklearn-crfsuite open): its non-zero unigram weights become state
 * features of the attributes spelled as their observations, the bigram
 * block of the observation `bias` (the one its features plugin makes at
 * every position) CRFsuite's transitions.  The model's features plugin
 * must be `features`, the one whose observations are CRFsuite's attributes
 * (the caller names it, as for crfp_crf_import_crfsuite).  CRFsuite has no
 * other label-pair weights and no start weights: a model with either, or
 * of another features plugin, is refused, CRFP_EINVAL with a message that
 * says what and how to train without it (about the model, so the caller
 * prefixes the model's name; messages about the file name path).  The file is written to a
 * temporary and renamed (crfpipe/outfile.h).  Errors (message in host):
 * CRFP_EINVAL (above, a NULL argument, a model without weights or too
 * large for the format), CRFP_EIO, CRFP_ENOMEM; no file is left on
 * error. */
crfp_status crfp_crf_export_crfsuite(crfp_host *host, const crfp_crf *crf, const char *features,
                                     const char *bias, const char *path);

#ifdef __cplusplus
}
#endif
#endif
