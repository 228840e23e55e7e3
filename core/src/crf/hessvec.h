/* crfpipe — exact Hessian-vector products of the CRF loss (internal).
 *
 * H v = Σ_i ∇² loss_i(θ) v, computed per sequence by the second dynamic
 * programme of Tsuboi et al. (2011) (see hessvec.c), on the host's team
 * with the objective's fixed token-balanced slices.  The engine's training
 * set exposes it as its `hessvec` member.
 */
#ifndef CRFP_CRF_HESSVEC_H
#define CRFP_CRF_HESSVEC_H

#include "crf_impl.h"

typedef struct crfp_hessvec crfp_hessvec;

/* A product engine over a finalized model and a dataset whose sequences
 * have been checked (crfp_crfobj_new checks them).  `mask` (may be NULL;
 * nparams bits) restricts the Hessian to the parameters whose bit is 1:
 * the product computed is P H P v with P the projection onto them, so
 * masked entries of v are ignored and those of the result are 0.  crf, ds,
 * team and mask are borrowed and must outlive it; *out is owned by the
 * caller (crfp_hessvec_free).  The per-member product buffers (one vector
 * of nparams per member but the first) are allocated on the first product.
 * Errors: CRFP_ENOMEM. */
crfp_status crfp_hessvec_new(const crfp_crf *crf, const crfp_dataset *ds, crfp_team *team,
                             const uint64_t *mask, crfp_hessvec **out);
void crfp_hessvec_free(crfp_hessvec *h); /* NULL accepted */

/* Keep the per-position state the product needs from θ (ψ_t / c_t, T·Y
 * doubles per sequence) for the first c sequences, so that the products
 * that follow at the same θ skip their forward pass over θ (Tsuboi et
 * al.'s c trade-off: c = 0 keeps nothing, SIZE_MAX keeps every sequence,
 * ntok·nlabels doubles).  The kept state is recomputed whenever θ differs,
 * bit for bit, from the θ it was computed at (a hash of θ, one pass over
 * it per product, decides).  Takes effect at the next product. */
void crfp_hessvec_keep(crfp_hessvec *h, size_t c);

/* Make the products (and the diagonal) that follow subsampled: each
 * sequence is in the sample with probability `fraction`, independently,
 * from a hash of its index and `seed`, and the loss part of the sum is
 * scaled by nseq / (sequences in the sample), an unbiased estimate of the
 * full one (Byrd, Chin, Neveitt & Nocedal 2011).  fraction >= 1: every
 * sequence, exact (the default).  Errors: CRFP_ENOMEM (nseq bytes). */
crfp_status crfp_hessvec_sample(crfp_hessvec *h, double fraction, uint64_t seed);

/* hv (nparams, overwritten) = (Σ_i ∇² loss_i(θ) + rho2·I) v.  v and hv must
 * not alias.  Errors: CRFP_ENOMEM (buffers or workspaces; hv then holds
 * garbage). */
crfp_status crfp_hessvec_eval(crfp_hessvec *h, const double *theta, const double *v,
                              double rho2, double *hv);

/* d (nparams, overwritten) = an approximation of the diagonal of
 * Σ_i ∇² loss_i(θ) + rho2·I: per feature, the variance P(1 − P) of its
 * indicator at each position where it fires, summed (covariances between
 * positions left out, as Sokolovska et al. 2010 do; exact for a feature
 * firing once per sequence), masked entries 0.  For a diagonal
 * preconditioner.  Uses and fills the kept state like a product.
 * Errors: CRFP_ENOMEM. */
crfp_status crfp_hessvec_diag(crfp_hessvec *h, const double *theta, double rho2, double *d);

#endif
