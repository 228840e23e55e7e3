/* crfpipe — exact Hessian-vector products of Σ_i loss_i (see hessvec.h).
 *
 * The Hessian of log Z is the covariance of the feature vector F(y) under
 * p(y|x), so (H v)_k = Cov(F_k, s) with s(y) = F(y)·v, the score of y
 * under v.  s decomposes like the model's score,
 *     s(y) = Σ_t u_t(y_t) + b_t(y_{t−1}, y_t),
 *     u_t(y) = Σ_{o∈U_t} v[μ(y,o)],   b_t(y',y) = Σ_{o∈B_t} v[λ(y',y,o)],
 * and for a feature firing on (y_{t−1}, y_t) = (r, c),
 *     Cov = P(r,c) (E[s | r,c] − E[s]),
 * where E[s | r,c] splits at t into the expected score of the prefix given
 * y_{t−1} = r, b_t(r,c) + u_t(c), and the expected score of the suffix
 * given y_t = c.  Those conditional expectations follow from two
 * recursions shaped like forward and backward (Tsuboi et al. 2011, tables
 * A and B).  We carry them multiplied by α and β, so that they share the
 * scaling of fwdbwd.c and no division by a marginal is ever needed:
 *     Â_t(c)     = α_t(c) E[prefix score up to t | y_t = c]
 *                = ψ̂_t(c) Σ_r E_t(r,c) (Â_{t−1}(r) + α_{t−1}(r) b_t(r,c)) + α_t(c) u_t(c)
 *     B̂_{t−1}(r) = β_{t−1}(r) E[suffix score after t−1 | y_{t−1} = r]
 *                = Σ_c E_t(r,c) (δ_t(c) + γ_t(c) b_t(r,c)),
 *     γ_t = ψ̂_t β_t,   δ_t = ψ̂_t (B̂_t + β_t u_t),
 * with ψ̂_t = ψ_t / c_t (the forward pass's scaled potentials over its
 * normaliser) and E_t = exp(λ_t).  Then E[s] = Σ_c Â_{T−1}(c) and
 *     unigram (t, c):   Â_t(c) β_t(c) + α_t(c) B̂_t(c) − P_t(c) E[s]
 *     pair (t, r, c):   E_t(r,c) [(Â_{t−1}(r) − E[s] α_{t−1}(r)) γ_t(c)
 *                                 + α_{t−1}(r) (δ_t(c) + γ_t(c) b_t(r,c))]
 *     start row (0, c): the unigram term at t = 0.
 *
 * Only ψ̂ needs exp() and θ's scattered unigram blocks; given ψ̂, α and β
 * are rebuilt inside the two recursions at one more multiply-add per cell.
 * So ψ̂ (T·Y doubles per sequence) is all that is kept between products at
 * the same θ for the first c sequences, where Tsuboi et al. keep the pair
 * marginals (T·Y² doubles): on CoNLL-2000 keeping every sequence costs
 * ntok·Y·8 = 39 MB, less than one weight vector.
 *
 * The recursions are dense in (r, c) whatever the sparsity of M_t = E_t − 1
 * (the b_t term is a dense matrix), so a sparse transition view is expanded
 * to E_t.  Cost per position: two Y² loops, the reads of v's blocks and the
 * writes of hv's, about one gradient's worth; without kept state, plus the
 * forward pass over θ.
 *
 * Threads: like objective.c, member k owns the fixed token-balanced slice
 * k of the sequences and a product buffer (member 0 writes the caller's),
 * then each member reduces a slice of the parameters, so the result depends
 * only on the team size.
 */
#include <stdlib.h>
#include <string.h>
#include "hessvec.h"
#include "infer.h"
#include "partition.h"

typedef struct hvworker {
    struct crfp_hessvec *h;
    int id;
    size_t s0, s1;       /* its sequences */
    crfp_infer *w;
    double *hv;          /* private product (members > 0) */
    size_t cap;          /* positions the T-sized scratch holds */
    double *alpha, *A, *U, *psih; /* T·Y each */
    double *E, *b, *pair;         /* Y², (Y+1)·Y, Y² */
    double *vec;                  /* 9·Y: β, B̂ (two each), γ, δ, two accumulators, unigram */
    double *mE, *mK, *mET, *mKT;  /* Y² each: trans_mats */
    uint32_t mat_obs;             /* the observation they hold, UINT32_MAX: none */
    uint64_t mat_gen;             /* ... for the job of this generation */
    int mat_k;                    /* K and KT filled */
    double *kept;        /* ψ̂ of its kept sequences, one after another */
    size_t kept_len;     /* doubles in kept */
    size_t kept_end;     /* kept sequences are [s0, kept_end) */
    uint64_t hash;       /* of its slice of θ */
    crfp_status st;
} hvworker;

struct crfp_hessvec {
    const crfp_crf *crf;
    const crfp_dataset *ds;
    crfp_team *team;
    const uint64_t *mask;
    int n;
    hvworker *wk;
    size_t keep;          /* c asked for */
    size_t laid_out;      /* c the kept buffers were laid out for, when `laid` */
    int laid;
    int valid;            /* the kept ψ̂ belong to θ with hash `kept_hash` */
    uint64_t kept_hash;
    int bufs;             /* member product buffers allocated */
    /* the product in progress */
    const double *theta, *v;
    double *hv;
    double rho2;
    /* subsampled products: sequence i counts when in[i] (NULL: all), the
     * sum scaled by nseq / nin */
    unsigned char *in;
    size_t nin;
    double scale;
    int use_kept;         /* read ψ̂ from the kept state (else compute, and keep) */
    int diag;             /* the job is the diagonal, not a product */
    uint64_t gen;         /* jobs run so far: a new job invalidates trans_mats' cache */
};

/* How many positions ahead v's and hv's unigram blocks are prefetched. */
#define HV_PREFETCH 2

static inline int masked_out(const uint64_t *mask, uint64_t j)
{
    return mask && !((mask[j >> 6] >> (j & 63)) & 1u);
}

/* --- per-sequence product ---------------------------------------------------- */

static crfp_status reserve(hvworker *k, size_t T)
{
    if (T <= k->cap)
        return CRFP_OK;
    size_t cap = k->cap ? k->cap : 64, Y = k->h->crf->Y ? k->h->crf->Y : 1;
    while (cap < T)
        cap *= 2;
    if (cap > SIZE_MAX / sizeof(double) / Y)
        return CRFP_ENOMEM;
    double **arr[] = {&k->alpha, &k->A, &k->U, &k->psih};
    for (size_t i = 0; i < sizeof arr / sizeof *arr; i++) {
        double *p = realloc(*arr[i], cap * Y * sizeof *p);
        if (!p)
            return CRFP_ENOMEM;
        *arr[i] = p;
    }
    k->cap = cap;
    return CRFP_OK;
}

/* ψ̂_t(y) = ψ_t(y) / c_t of sequence s at θ, into out (T·Y): the forward
 * pass of fwdbwd.c, whose ψ and normalisers are exactly those of the
 * gradient's forward-backward. */
static crfp_status compute_psih(hvworker *k, const crfp_seq *s, const double *theta,
                                double *out)
{
    const uint32_t Y = k->h->crf->Y;
    double logz;
    crfp_status st = crfp_fb_run(k->w, s, theta, &logz, 0, NULL, NULL, NULL, NULL, 1.0);
    if (st != CRFP_OK)
        return st;
    for (uint32_t t = 0; t < s->T; t++) {
        const double inv = 1.0 / k->w->scale[t];
        const double *p = k->w->psi + (size_t)t * Y;
        double *o = out + (size_t)t * Y;
        for (uint32_t y = 0; y < Y; y++)
            o[y] = p[y] * inv;
    }
    return CRFP_OK;
}

/* E_t as a dense Y×Y matrix (rows < Y). */
static const double *dense_E(hvworker *k, const crfp_tview *tv)
{
    if (tv->dense && tv->E)
        return tv->E;
    const uint32_t Y = k->h->crf->Y;
    double *E = k->E;
    for (size_t i = 0; i < (size_t)Y * Y; i++)
        E[i] = 1.0;
    for (uint32_t c = 0; c < Y; c++)
        for (uint32_t q = tv->colptr[c]; q < tv->colptr[c + 1]; q++)
            E[(size_t)tv->row[q] * Y + c] = 1.0 + tv->m[q];
    return E;
}

/* b_t ((Y+1)·Y, start row last): v's bigram blocks of position t summed,
 * masked entries left out. */
static const double *bigram_v(hvworker *k, const crfp_seq *s, uint32_t t, const double *v)
{
    const crfp_crf *crf = k->h->crf;
    const uint64_t *mask = k->h->mask;
    const size_t n = ((size_t)crf->Y + 1) * crf->Y;
    const uint32_t a0 = s->boff[t], a1 = s->boff[t + 1];
    if (a1 == a0)
        return k->w->zeros;
    if (a1 - a0 == 1 && !mask)
        return v + crf->bblk[s->bobs[a0]];
    double *b = k->b;
    memset(b, 0, n * sizeof *b);
    for (uint32_t a = a0; a < a1; a++) {
        const uint64_t base = crf->bblk[s->bobs[a]];
        const double *vb = v + base;
        for (size_t j = 0; j < n; j++)
            if (!masked_out(mask, base + j))
                b[j] += vb[j];
    }
    return b;
}

/* The matrices one position's recursions need: E = exp(λ_t) and
 * K = E∘b_t (row-major, rows < Y) and their transposes, so that every
 * Y² loop runs along contiguous rows with no reduction inside and
 * vectorises.  A position with one bigram observation, the common case
 * (CRF++'s "B"), reuses them from the last position with the same
 * observation within the product (ws->mat_*), so they cost Y² once per
 * observation, not per position.  With want_k = 0 (the diagonal) K is not
 * needed. */
typedef struct tmats {
    const double *E, *K, *ET, *KT;
} tmats;

static void transpose(uint32_t Y, const double *a, double *at)
{
    for (uint32_t r = 0; r < Y; r++)
        for (uint32_t c = 0; c < Y; c++)
            at[(size_t)c * Y + r] = a[(size_t)r * Y + c];
}

static crfp_status trans_mats(hvworker *k, const crfp_seq *s, uint32_t t, const double *theta,
                              const double *v, int want_k, tmats *m)
{
    const crfp_crf *crf = k->h->crf;
    const uint32_t Y = crf->Y, nb = s->boff[t + 1] - s->boff[t];
    const size_t YY = (size_t)Y * Y;
    const int cacheable = nb == 1 && !k->h->mask;
    const uint32_t o = cacheable ? s->bobs[s->boff[t]] : UINT32_MAX;
    double *E = k->mE, *K = k->mK, *ET = k->mET, *KT = k->mKT;
    m->E = E, m->K = K, m->ET = ET, m->KT = KT;
    if (cacheable && k->mat_obs == o && k->mat_gen == k->h->gen && k->mat_k >= want_k)
        return CRFP_OK;
    crfp_tview tv;
    if (crfp_view_get(k->w, s, t, theta, CRFP_VIEW_FB, &tv) != CRFP_OK)
        return CRFP_ENOMEM;
    memcpy(E, dense_E(k, &tv), YY * sizeof *E);
    crfp_view_release(k->w, s, t);
    transpose(Y, E, ET);
    if (want_k) {
        const double *b = bigram_v(k, s, t, v);
        for (size_t j = 0; j < YY; j++)
            K[j] = E[j] * b[j];
        transpose(Y, K, KT);
    }
    k->mat_obs = o;
    k->mat_gen = k->h->gen;
    k->mat_k = want_k;
    return CRFP_OK;
}

/* hv += ∇² loss(θ) v for sequence s, given its ψ̂. */
static crfp_status hv_seq(hvworker *k, const crfp_seq *s, const double *theta, const double *v,
                          const double *psih, double wt, double *hv)
{
    const crfp_crf *crf = k->h->crf;
    const uint64_t *mask = k->h->mask;
    const uint32_t Y = crf->Y, T = s->T;
    const size_t YY = (size_t)Y * Y;
    if (T == 0 || Y == 0)
        return CRFP_OK;
    double *restrict alpha = k->alpha, *restrict A = k->A, *restrict U = k->U;
    double *beta = k->vec, *B = beta + Y, *nbeta = B + Y, *nB = nbeta + Y;
    double *restrict gam = nB + Y, *restrict del = gam + Y, *restrict acc_a = del + Y;
    double *restrict acc_A = acc_a + Y, *restrict uh = acc_A + Y;
    crfp_tview tv;
    tmats m;

    /* u_t for every t: read once, used by both recursions.  v's blocks are
     * scattered over the whole vector: their cache misses, and those of
     * the writes to hv below, dominate a product unless they are asked for
     * a few positions ahead, as fwdbwd.c does for θ and the gradient. */
    for (uint32_t t = 0; t < HV_PREFETCH && t < T; t++)
        crfp_prefetch_unigram(crf, s, t, v, 0);
    for (uint32_t t = 0; t < T; t++) {
        double *u = U + (size_t)t * Y;
        crfp_prefetch_unigram(crf, s, t + HV_PREFETCH, v, 0);
        memset(u, 0, Y * sizeof *u);
        for (uint32_t a = s->uoff[t]; a < s->uoff[t + 1]; a++) {
            const uint64_t base = crf->ublk[s->uobs[a]];
            const double *vu = v + base, x = crfp_uval(s, a);
            if (!mask && x == 1.0) {
                for (uint32_t y = 0; y < Y; y++)
                    u[y] += vu[y];
            } else if (!mask) {
                for (uint32_t y = 0; y < Y; y++)
                    u[y] += x * vu[y];
            } else {
                for (uint32_t y = 0; y < Y; y++)
                    if (!masked_out(mask, base + y))
                        u[y] += x * vu[y];
            }
        }
    }

    /* Forward: α and Â, along the rows of E and K. */
    if (crfp_view_get(k->w, s, 0, theta, CRFP_VIEW_FB, &tv) != CRFP_OK)
        return CRFP_ENOMEM;
    {
        const double *b0 = bigram_v(k, s, 0, v) + YY;
        for (uint32_t c = 0; c < Y; c++) {
            double a = psih[c] * tv.sE[c];
            alpha[c] = a;
            A[c] = a * (U[c] + b0[c]);
        }
    }
    crfp_view_release(k->w, s, 0);
    for (uint32_t t = 1; t < T; t++) {
        if (trans_mats(k, s, t, theta, v, 1, &m) != CRFP_OK)
            return CRFP_ENOMEM;
        const double *ap = alpha + (size_t)(t - 1) * Y, *Ap = A + (size_t)(t - 1) * Y;
        memset(acc_a, 0, Y * sizeof *acc_a);
        memset(acc_A, 0, Y * sizeof *acc_A);
        for (uint32_t r = 0; r < Y; r++) {
            const double ar = ap[r], Ar = Ap[r];
            const double *restrict Er = m.E + (size_t)r * Y, *restrict Kr = m.K + (size_t)r * Y;
            for (uint32_t c = 0; c < Y; c++) {
                acc_a[c] += ar * Er[c];
                acc_A[c] += Ar * Er[c] + ar * Kr[c];
            }
        }
        const double *ph = psih + (size_t)t * Y, *u = U + (size_t)t * Y;
        double *at = alpha + (size_t)t * Y, *At = A + (size_t)t * Y;
        for (uint32_t c = 0; c < Y; c++) {
            double a = ph[c] * acc_a[c];
            at[c] = a;
            At[c] = ph[c] * acc_A[c] + a * u[c];
        }
    }
    double Es = 0.0;
    for (uint32_t c = 0; c < Y; c++)
        Es += A[(size_t)(T - 1) * Y + c];

    /* Backward: β and B̂ along the rows of the transposes, the products'
     * pair terms along the rows of E and K. */
    for (uint32_t c = 0; c < Y; c++) {
        beta[c] = 1.0;
        B[c] = 0.0;
    }
    for (uint32_t t = T; t-- > 0 && t + HV_PREFETCH >= T;)
        crfp_prefetch_unigram(crf, s, t, hv, 1);
    for (uint32_t t = T; t-- > 0;) {
        const double *at = alpha + (size_t)t * Y, *At = A + (size_t)t * Y;
        if (t >= HV_PREFETCH)
            crfp_prefetch_unigram(crf, s, t - HV_PREFETCH, hv, 1);
        /* the sequence's weight w scales its Hessian: it multiplies the
         * terms written to hv (uh here, the pair terms below) */
        for (uint32_t c = 0; c < Y; c++)
            uh[c] = wt * (At[c] * beta[c] + at[c] * (B[c] - beta[c] * Es));
        for (uint32_t a = s->uoff[t]; a < s->uoff[t + 1]; a++) {
            double *o = hv + crf->ublk[s->uobs[a]];
            const double x = crfp_uval(s, a);
            for (uint32_t c = 0; c < Y; c++)
                o[c] += x * uh[c];
        }
        if (t == 0) {
            for (uint32_t a = s->boff[0]; a < s->boff[1]; a++) {
                double *o = hv + crf->bblk[s->bobs[a]] + YY;
                for (uint32_t c = 0; c < Y; c++)
                    o[c] += uh[c];
            }
            break;
        }
        if (trans_mats(k, s, t, theta, v, 1, &m) != CRFP_OK)
            return CRFP_ENOMEM;
        const double *ph = psih + (size_t)t * Y, *u = U + (size_t)t * Y;
        for (uint32_t c = 0; c < Y; c++) {
            gam[c] = ph[c] * beta[c];
            del[c] = ph[c] * (B[c] + beta[c] * u[c]);
        }
        /* β_{t−1} = E γ, B̂_{t−1} = E δ + K γ */
        memset(nbeta, 0, Y * sizeof *nbeta);
        memset(nB, 0, Y * sizeof *nB);
        for (uint32_t c = 0; c < Y; c++) {
            const double gc = gam[c], dc = del[c];
            const double *restrict ETc = m.ET + (size_t)c * Y, *restrict KTc = m.KT + (size_t)c * Y;
            for (uint32_t r = 0; r < Y; r++) {
                nbeta[r] += ETc[r] * gc;
                nB[r] += ETc[r] * dc + KTc[r] * gc;
            }
        }
        const uint32_t nb = s->boff[t + 1] - s->boff[t];
        if (nb > 0) {
            double *out;
            if (nb == 1) {
                out = hv + crf->bblk[s->bobs[s->boff[t]]];
            } else {
                out = k->pair;
                memset(out, 0, YY * sizeof *out);
            }
            const double *ap = alpha + (size_t)(t - 1) * Y, *Ap = A + (size_t)(t - 1) * Y;
            for (uint32_t r = 0; r < Y; r++) {
                const double ar = wt * ap[r], Ar = wt * (Ap[r] - Es * ap[r]);
                const double *restrict Er = m.E + (size_t)r * Y;
                const double *restrict Kr = m.K + (size_t)r * Y;
                double *restrict o = out + (size_t)r * Y;
                for (uint32_t c = 0; c < Y; c++)
                    o[c] += Er[c] * (Ar * gam[c] + ar * del[c]) + ar * Kr[c] * gam[c];
            }
            for (uint32_t a = s->boff[t]; nb > 1 && a < s->boff[t + 1]; a++) {
                double *o = hv + crf->bblk[s->bobs[a]];
                for (size_t j = 0; j < YY; j++)
                    o[j] += out[j];
            }
        }
        double *x = beta;
        beta = nbeta;
        nbeta = x;
        x = B;
        B = nB;
        nB = x;
    }
    return CRFP_OK;
}

/* d += the approximate Hessian diagonal of sequence s, given its ψ̂: for
 * each feature, the variance of its indicator summed over the positions
 * where it fires, P(1 − P) with P the token or pair marginal (the
 * covariances between positions are left out, as in Sokolovska et al.
 * 2010; exact for a feature that fires once in the sequence). */
static crfp_status diag_seq(hvworker *k, const crfp_seq *s, const double *theta,
                            const double *psih, double wt, double *d)
{
    const crfp_crf *crf = k->h->crf;
    const uint32_t Y = crf->Y, T = s->T;
    const size_t YY = (size_t)Y * Y;
    if (T == 0 || Y == 0)
        return CRFP_OK;
    double *restrict alpha = k->alpha, *beta = k->vec, *nbeta = beta + Y;
    double *restrict gam = nbeta + Y, *restrict acc = gam + Y, *restrict p = acc + Y;
    crfp_tview tv;
    tmats m;
    if (crfp_view_get(k->w, s, 0, theta, CRFP_VIEW_FB, &tv) != CRFP_OK)
        return CRFP_ENOMEM;
    for (uint32_t c = 0; c < Y; c++)
        alpha[c] = psih[c] * tv.sE[c];
    crfp_view_release(k->w, s, 0);
    for (uint32_t t = 1; t < T; t++) {
        if (trans_mats(k, s, t, theta, NULL, 0, &m) != CRFP_OK)
            return CRFP_ENOMEM;
        const double *ap = alpha + (size_t)(t - 1) * Y;
        memset(acc, 0, Y * sizeof *acc);
        for (uint32_t r = 0; r < Y; r++) {
            const double ar = ap[r], *restrict Er = m.E + (size_t)r * Y;
            for (uint32_t c = 0; c < Y; c++)
                acc[c] += ar * Er[c];
        }
        const double *ph = psih + (size_t)t * Y;
        double *at = alpha + (size_t)t * Y;
        for (uint32_t c = 0; c < Y; c++)
            at[c] = ph[c] * acc[c];
    }
    for (uint32_t c = 0; c < Y; c++)
        beta[c] = 1.0;
    for (uint32_t t = T; t-- > 0 && t + HV_PREFETCH >= T;)
        crfp_prefetch_unigram(crf, s, t, d, 1);
    for (uint32_t t = T; t-- > 0;) {
        const double *at = alpha + (size_t)t * Y;
        if (t >= HV_PREFETCH)
            crfp_prefetch_unigram(crf, s, t - HV_PREFETCH, d, 1);
        for (uint32_t c = 0; c < Y; c++) {
            double q = at[c] * beta[c];
            p[c] = wt * q * (1.0 - q);
        }
        for (uint32_t a = s->uoff[t]; a < s->uoff[t + 1]; a++) {
            double *o = d + crf->ublk[s->uobs[a]];
            const double x = crfp_uval(s, a), x2 = x * x;
            for (uint32_t c = 0; c < Y; c++)
                o[c] += x2 * p[c];
        }
        if (t == 0) {
            for (uint32_t a = s->boff[0]; a < s->boff[1]; a++) {
                double *o = d + crf->bblk[s->bobs[a]] + YY;
                for (uint32_t c = 0; c < Y; c++)
                    o[c] += p[c];
            }
            break;
        }
        if (trans_mats(k, s, t, theta, NULL, 0, &m) != CRFP_OK)
            return CRFP_ENOMEM;
        const double *ph = psih + (size_t)t * Y, *ap = alpha + (size_t)(t - 1) * Y;
        for (uint32_t c = 0; c < Y; c++)
            gam[c] = ph[c] * beta[c];
        memset(nbeta, 0, Y * sizeof *nbeta);
        for (uint32_t c = 0; c < Y; c++) {
            const double gc = gam[c], *restrict ETc = m.ET + (size_t)c * Y;
            for (uint32_t r = 0; r < Y; r++)
                nbeta[r] += ETc[r] * gc;
        }
        const uint32_t nb = s->boff[t + 1] - s->boff[t];
        if (nb > 0) {
            double *out = k->pair;
            for (uint32_t r = 0; r < Y; r++) {
                const double ar = ap[r], *restrict Er = m.E + (size_t)r * Y;
                double *restrict o = out + (size_t)r * Y;
                for (uint32_t c = 0; c < Y; c++) {
                    const double q = ar * Er[c] * gam[c];
                    o[c] = wt * q * (1.0 - q);
                }
            }
            for (uint32_t a = s->boff[t]; a < s->boff[t + 1]; a++) {
                double *o = d + crf->bblk[s->bobs[a]];
                for (size_t j = 0; j < YY; j++)
                    o[j] += out[j];
            }
        }
        double *x = beta;
        beta = nbeta;
        nbeta = x;
    }
    return CRFP_OK;
}

/* --- team jobs ----------------------------------------------------------------- */

/* A hash of θ's bits, to tell whether the kept state is still θ's.  Four
 * independent lanes so that the pass runs at memory speed. */
static uint64_t hash_slice(const double *x, size_t lo, size_t hi)
{
    const uint64_t K = UINT64_C(0x9e3779b97f4a7c15);
    uint64_t h[4] = {1, 2, 3, 4};
    size_t i = lo;
    for (; i + 4 <= hi; i += 4)
        for (int l = 0; l < 4; l++) {
            uint64_t w;
            memcpy(&w, x + i + l, sizeof w);
            h[l] = (h[l] ^ w) * K;
            h[l] ^= h[l] >> 29;
        }
    for (; i < hi; i++) {
        uint64_t w;
        memcpy(&w, x + i, sizeof w);
        h[0] = (h[0] ^ w) * K;
        h[0] ^= h[0] >> 29;
    }
    return ((h[0] * K + h[1]) * K + h[2]) * K + h[3];
}

static void job_hash(void *arg, int id, int n)
{
    crfp_hessvec *h = arg;
    size_t lo, hi;
    crfp_team_slice(h->crf->nparams, id, n, &lo, &hi);
    h->wk[id].hash = hash_slice(h->theta, lo, hi);
}

static void job_compute(void *arg, int id, int n)
{
    (void)n;
    crfp_hessvec *h = arg;
    hvworker *k = &h->wk[id];
    const uint32_t Y = h->crf->Y;
    double *hv = id == 0 ? h->hv : k->hv;
    memset(hv, 0, h->crf->nparams * sizeof *hv);
    crfp_infer_epoch(k->w);
    k->st = CRFP_OK;
    size_t off = 0;
    for (size_t i = k->s0; i < k->s1; i++) {
        const crfp_seq *s = crfp_dataset_get(h->ds, i);
        if (h->in && !h->in[i]) {
            if (i < k->kept_end)
                off += (size_t)s->T * Y;
            continue;
        }
        crfp_status st = reserve(k, s->T);
        const double *psih = k->psih;
        if (st == CRFP_OK) {
            if (i < k->kept_end) {
                double *slot = k->kept + off;
                off += (size_t)s->T * Y;
                if (!h->use_kept)
                    st = compute_psih(k, s, h->theta, slot);
                psih = slot;
            } else {
                st = compute_psih(k, s, h->theta, k->psih);
            }
        }
        const double wt = crfp_dataset_weight(h->ds, i);
        if (st == CRFP_OK)
            st = h->diag ? diag_seq(k, s, h->theta, psih, wt, hv)
                         : hv_seq(k, s, h->theta, h->v, psih, wt, hv);
        if (st != CRFP_OK) {
            k->st = st;
            return;
        }
    }
}

/* Member id adds the other members' products over its slice of the
 * parameters, in member order, then ρ2·v, then zeroes frozen entries. */
static void job_reduce(void *arg, int id, int n)
{
    crfp_hessvec *h = arg;
    size_t lo, hi;
    crfp_team_slice(h->crf->nparams, id, n, &lo, &hi);
    double *hv = h->hv;
    for (int m = 1; m < n; m++) {
        const double *p = h->wk[m].hv;
        for (size_t j = lo; j < hi; j++)
            hv[j] += p[j];
    }
    if (h->in) {
        const double c = h->scale;
        for (size_t j = lo; j < hi; j++)
            hv[j] *= c;
    }
    if (h->rho2 != 0.0 && h->diag) {
        for (size_t j = lo; j < hi; j++)
            hv[j] += h->rho2;
    } else if (h->rho2 != 0.0) {
        const double r = h->rho2, *v = h->v;
        for (size_t j = lo; j < hi; j++)
            hv[j] += r * v[j];
    }
    if (h->mask)
        for (size_t j = lo; j < hi; j++)
            if (masked_out(h->mask, j))
                hv[j] = 0.0;
}

/* --- construction and the public entry points ---------------------------------- */

void crfp_hessvec_free(crfp_hessvec *h)
{
    if (!h)
        return;
    for (int i = 0; h->wk && i < h->n; i++) {
        hvworker *k = &h->wk[i];
        crfp_infer_free(k->w);
        free(k->hv);
        free(k->alpha);
        free(k->A);
        free(k->U);
        free(k->psih);
        free(k->E);
        free(k->b);
        free(k->pair);
        free(k->vec);
        free(k->mE);
        free(k->mK);
        free(k->mET);
        free(k->mKT);
        free(k->kept);
    }
    free(h->wk);
    free(h->in);
    free(h);
}

crfp_status crfp_hessvec_new(const crfp_crf *crf, const crfp_dataset *ds, crfp_team *team,
                             const uint64_t *mask, crfp_hessvec **out)
{
    *out = NULL;
    if (!crf || !ds || !crf->final)
        return CRFP_EINVAL;
    crfp_hessvec *h = calloc(1, sizeof *h);
    if (!h)
        return CRFP_ENOMEM;
    h->crf = crf;
    h->ds = ds;
    h->team = team;
    h->mask = mask;
    h->n = crfp_team_size(team);
    h->wk = calloc((size_t)h->n, sizeof *h->wk);
    size_t *cut = malloc(((size_t)h->n + 1) * sizeof *cut);
    if (!h->wk || !cut) {
        free(cut);
        crfp_hessvec_free(h);
        return CRFP_ENOMEM;
    }
    crfp_partition(ds, h->n, cut);
    const size_t Y = crf->Y, Y1 = Y + 1;
    for (int i = 0; i < h->n; i++) {
        hvworker *k = &h->wk[i];
        k->h = h;
        k->id = i;
        k->s0 = k->kept_end = cut[i];
        k->s1 = cut[i + 1];
        k->w = crfp_infer_new(crf);
        k->E = malloc((Y * Y + 1) * sizeof *k->E);
        k->b = malloc((Y1 * Y + 1) * sizeof *k->b);
        k->pair = malloc((Y * Y + 1) * sizeof *k->pair);
        k->vec = malloc((9 * Y + 1) * sizeof *k->vec);
        k->mE = malloc((Y * Y + 1) * sizeof *k->mE);
        k->mK = malloc((Y * Y + 1) * sizeof *k->mK);
        k->mET = malloc((Y * Y + 1) * sizeof *k->mET);
        k->mKT = malloc((Y * Y + 1) * sizeof *k->mKT);
        k->mat_obs = UINT32_MAX;
        if (!k->w || !k->E || !k->b || !k->pair || !k->vec || !k->mE || !k->mK || !k->mET ||
            !k->mKT) {
            free(cut);
            crfp_hessvec_free(h);
            return CRFP_ENOMEM;
        }
    }
    free(cut);
    *out = h;
    return CRFP_OK;
}

void crfp_hessvec_keep(crfp_hessvec *h, size_t c)
{
    h->keep = c;
    if (h->laid && h->laid_out == c)
        return;
    /* Give the old kept state's memory back now rather than at the next
     * product: a trainer that ends says so with c = 0. */
    for (int i = 0; i < h->n; i++) {
        hvworker *k = &h->wk[i];
        free(k->kept);
        k->kept = NULL;
        k->kept_len = 0;
        k->kept_end = k->s0;
    }
    h->laid = 0;
    h->valid = 0;
}

crfp_status crfp_hessvec_sample(crfp_hessvec *h, double fraction, uint64_t seed)
{
    const size_t N = crfp_dataset_size(h->ds);
    free(h->in);
    h->in = NULL;
    h->valid = 0; /* sequences newly in the sample have no kept state yet */
    if (!(fraction < 1.0) || N == 0)
        return CRFP_OK;
    if (!(h->in = malloc(N)))
        return CRFP_ENOMEM;
    /* Each sequence in with probability `fraction`, from a hash of its index
     * and the seed (splitmix64), so a sample does not depend on threads. */
    size_t nin = 0;
    for (size_t i = 0; i < N; i++) {
        uint64_t z = seed + (uint64_t)(i + 1) * UINT64_C(0x9e3779b97f4a7c15);
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        z ^= z >> 31;
        h->in[i] = (double)(z >> 11) * 0x1.0p-53 < fraction;
        nin += h->in[i];
    }
    if (nin == 0) /* a tiny set: keep one sequence rather than none */
        h->in[seed % N] = 1, nin = 1;
    h->nin = nin;
    h->scale = (double)N / (double)nin;
    return CRFP_OK;
}

/* Lay out the kept state for c = h->keep: member k keeps the sequences of
 * its slice below c.  A member whose buffer cannot be had keeps nothing
 * (keeping is only a saving of time). */
static void lay_out(crfp_hessvec *h)
{
    const size_t Y = h->crf->Y;
    for (int i = 0; i < h->n; i++) {
        hvworker *k = &h->wk[i];
        size_t end = h->keep < k->s1 ? (h->keep > k->s0 ? h->keep : k->s0) : k->s1;
        size_t len = 0;
        for (size_t s = k->s0; s < end; s++)
            len += (size_t)crfp_dataset_get(h->ds, s)->T * Y;
        free(k->kept);
        k->kept = NULL;
        k->kept_len = 0;
        k->kept_end = k->s0;
        if (len && (k->kept = crfp_big_alloc(len * sizeof *k->kept)) != NULL) {
            k->kept_len = len;
            k->kept_end = end;
        }
    }
    h->laid = 1;
    h->laid_out = h->keep;
    h->valid = 0;
}

static crfp_status run(crfp_hessvec *h, const double *theta, const double *v, double rho2,
                       double *hv, int diag)
{
    const size_t P = h->crf->nparams;
    if (P == 0)
        return CRFP_OK;
    if (!h->bufs) {
        for (int i = 1; i < h->n; i++)
            if (!h->wk[i].hv && !(h->wk[i].hv = crfp_big_alloc(P * sizeof(double))))
                return CRFP_ENOMEM;
        h->bufs = 1;
    }
    if (!h->laid || h->laid_out != h->keep)
        lay_out(h);
    h->theta = theta;
    h->v = v;
    h->hv = hv;
    h->rho2 = rho2;
    h->diag = diag;
    h->gen++;
    uint64_t hash = 0;
    if (h->keep > 0) {
        crfp_team_run(h->team, job_hash, h);
        for (int i = 0; i < h->n; i++)
            hash = hash * UINT64_C(0x100000001b3) ^ h->wk[i].hash;
        h->use_kept = h->valid && hash == h->kept_hash;
    } else {
        h->use_kept = 0;
    }
    crfp_team_run(h->team, job_compute, h);
    crfp_status st = CRFP_OK;
    for (int i = 0; i < h->n; i++)
        if (h->wk[i].st != CRFP_OK && st == CRFP_OK)
            st = h->wk[i].st;
    if (st != CRFP_OK) {
        h->valid = 0;
        return st;
    }
    if (h->keep > 0) {
        h->valid = 1;
        h->kept_hash = hash;
    }
    crfp_team_run(h->team, job_reduce, h);
    return CRFP_OK;
}

crfp_status crfp_hessvec_eval(crfp_hessvec *h, const double *theta, const double *v,
                              double rho2, double *hv)
{
    return run(h, theta, v, rho2, hv, 0);
}

crfp_status crfp_hessvec_diag(crfp_hessvec *h, const double *theta, double rho2, double *d)
{
    return run(h, theta, NULL, rho2, d, 1);
}
