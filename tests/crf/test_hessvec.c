/* The training set's exact Hessian-vector product (hessvec.c):
 *  - against brute force on tiny CRFs (|Y| <= 4, T <= 6): every labelling
 *    enumerated, the Hessian built as Σ_i Cov(F) from the feature vectors
 *    that path_features lists, then multiplied by v;
 *  - against central finite differences of the batch gradient on larger
 *    random problems (longer sequences, several bigram observations per
 *    position, sparse and dense transitions);
 *  - the same products with 1 and 2 threads, with and without the ℓ2 term,
 *    and under a mask (P H P v, checked by brute force too);
 *  - the approximate diagonal (hessdiag) against the same formula on
 *    brute-force marginals, and against the exact diagonal where features
 *    fire once per sequence;
 *  - subsampled products (hessvec_sample): a scaled sum over a subset;
 *  - kept state (hessvec_keep): products after the first at the same θ are
 *    bit-identical to those computed from scratch, and a θ changed in place
 *    is noticed. */
#include "crftest.h"

#define MAXL 4096 /* labellings of a tiny sequence: Y^T <= 4^6 */

typedef struct enum_ud {
    uint32_t T;
    size_t n;
    double score[MAXL];
    uint32_t y[MAXL][8];
} enum_ud;

static void visit(void *ud, const uint32_t *y, double score)
{
    enum_ud *e = ud;
    e->score[e->n] = score;
    memcpy(e->y[e->n], y, e->T * sizeof *y);
    e->n++;
}

/* H (dim×dim, added to) += Cov(F) over the labellings of sequence i. */
static void brute_hessian(const crfp_crf *crf, const crfp_seq *s, crfp_trainset *ts,
                          crfp_tsws *ws, size_t i, const double *theta, double *H)
{
    static enum_ud e;
    size_t dim = ts->dim;
    e.n = 0;
    e.T = s->T;
    ct_enumerate(crf, s, theta, visit, &e);
    double mx = -INFINITY, z = 0.0;
    for (size_t k = 0; k < e.n; k++)
        mx = fmax(mx, e.score[k]);
    for (size_t k = 0; k < e.n; k++)
        z += exp(e.score[k] - mx);
    double *mean = calloc(dim, sizeof *mean), *F = calloc(dim, sizeof *F);
    for (size_t k = 0; k < e.n; k++) {
        double p = exp(e.score[k] - mx) / z;
        const uint64_t *idx;
        const double *val;
        size_t nf;
        CHECK(ts->path_features(ws, i, e.y[k], &idx, &val, &nf) == CRFP_OK, "path_features");
        memset(F, 0, dim * sizeof *F);
        for (size_t f = 0; f < nf; f++)
            F[idx[f]] += val[f];
        for (size_t a = 0; a < dim; a++) {
            if (F[a] == 0.0)
                continue;
            mean[a] += p * F[a];
            for (size_t b = 0; b < dim; b++)
                H[a * dim + b] += p * F[a] * F[b];
        }
    }
    for (size_t a = 0; a < dim; a++)
        for (size_t b = 0; b < dim; b++)
            H[a * dim + b] -= mean[a] * mean[b];
    free(mean);
    free(F);
}

/* D (added to) += the approximate diagonal of sequence s from brute-force
 * marginals: P(1 − P) per position where a weight's feature is listed. */
static void brute_diag(const crfp_crf *crf, const crfp_seq *s, const double *theta,
                       const uint64_t *mask, double *D)
{
    static enum_ud e;
    uint32_t Y = crfp_crf_nlabels(crf), T = s->T;
    e.n = 0;
    e.T = T;
    ct_enumerate(crf, s, theta, visit, &e);
    double mx = -INFINITY, z = 0.0;
    for (size_t k = 0; k < e.n; k++)
        mx = fmax(mx, e.score[k]);
    for (size_t k = 0; k < e.n; k++)
        z += exp(e.score[k] - mx);
    /* pair[t][y'][y], y' = Y the start label */
    double *pair = calloc((size_t)T * (Y + 1) * Y, sizeof *pair);
    for (size_t k = 0; k < e.n; k++) {
        double p = exp(e.score[k] - mx) / z;
        for (uint32_t t = 0; t < T; t++)
            pair[((size_t)t * (Y + 1) + (t ? e.y[k][t - 1] : Y)) * Y + e.y[k][t]] += p;
    }
    for (uint32_t t = 0; t < T; t++) {
        for (uint32_t c = 0; c < Y; c++) {
            double pm = 0.0;
            for (uint32_t r = 0; r <= Y; r++)
                pm += pair[((size_t)t * (Y + 1) + r) * Y + c];
            for (uint32_t a = s->uoff[t]; a < s->uoff[t + 1]; a++) {
                uint64_t j = crfp_crf_ublock(crf, s->uobs[a]) + c;
                double x = s->uval ? s->uval[a] : 1.0;
                if (!mask || ((mask[j >> 6] >> (j & 63)) & 1))
                    D[j] += x * x * pm * (1 - pm);
            }
            for (uint32_t r = 0; r <= Y; r++) {
                if ((r == Y) != (t == 0))
                    continue;
                double q = pair[((size_t)t * (Y + 1) + r) * Y + c];
                for (uint32_t a = s->boff[t]; a < s->boff[t + 1]; a++) {
                    uint64_t j = crfp_crf_bblock(crf, s->bobs[a]) + (uint64_t)r * Y + c;
                    if (!mask || ((mask[j >> 6] >> (j & 63)) & 1))
                        D[j] += q * (1 - q);
                }
            }
        }
    }
    free(pair);
}

static double maxabs(const double *x, size_t n)
{
    double m = 0.0;
    for (size_t j = 0; j < n; j++)
        m = fmax(m, fabs(x[j]));
    return m;
}

/* Brute force on a tiny CRF, with and without a mask, on 1 and 2 threads. */
static void tiny(int trial, crfp_team *team2)
{
    uint32_t Y = 2 + ct_int(3);
    crfp_crf *crf = ct_model(Y, 4 + ct_int(3));
    double pzero = trial % 3 == 0 ? 0.0 : trial % 3 == 1 ? 0.4 : 0.8;
    ct_weights(crf, pzero, trial % 5 == 4, 1.5);
    crfp_dataset *ds = crfp_dataset_new();
    enum { N = 5 };
    crfp_seq seqs[N];
    for (int i = 0; i < N; i++) {
        uint32_t T = 1 + ct_int(6);
        ct_seq_make(crf, T, 3, 2, &seqs[i]);
        CHECK(crfp_dataset_add_ids(NULL, ds, &seqs[i]) == CRFP_OK, "add");
    }
    size_t dim = crfp_crf_nparams(crf);
    /* A mask freezing about a third of the parameters (at zero, as a
     * chained trainer's are). */
    uint64_t *mask = calloc((dim + 63) / 64, sizeof *mask);
    double *theta = crfp_crf_weights(crf);
    for (size_t j = 0; j < dim; j++)
        if (ct_unif() < 0.67)
            mask[j >> 6] |= UINT64_C(1) << (j & 63);
    double *v = malloc(dim * sizeof *v), *hv = malloc(dim * sizeof *hv);
    double *hv2 = malloc(dim * sizeof *hv2), *H = malloc(dim * dim * sizeof *H);
    double *thm = malloc(dim * sizeof *thm);
    for (size_t j = 0; j < dim; j++)
        v[j] = 2.0 * ct_unif() - 1.0;
    for (int masked = 0; masked < 2; masked++) {
        const uint64_t *mk = masked ? mask : NULL;
        for (size_t j = 0; j < dim; j++)
            thm[j] = mk && !((mk[j >> 6] >> (j & 63)) & 1) ? 0.0 : theta[j];
        crfp_trainset *ts1 = NULL, *ts2 = NULL;
        CHECK(crfp_trainset_new(NULL, crf, ds, NULL, mk, 0.0, 0.7, &ts1) == CRFP_OK, "ts1");
        CHECK(crfp_trainset_new(NULL, crf, ds, team2, mk, 0.0, 0.7, &ts2) == CRFP_OK, "ts2");
        if (!ts1 || !ts2)
            return;
        CHECK((ts1->caps & CRFP_TS_HESSVEC) && ts1->hessvec, "no HESSVEC capability");
        crfp_tsws *ws;
        CHECK(ts1->ws_new(ts1->ud, &ws) == CRFP_OK, "ws");
        memset(H, 0, dim * dim * sizeof *H);
        for (size_t i = 0; i < N; i++)
            brute_hessian(crf, &seqs[i], ts1, ws, i, thm, H);
        ts1->ws_free(ws);
        /* the Hessian is symmetric, its diagonal non-negative */
        for (size_t a = 0; a < dim; a++) {
            CHECK(H[a * dim + a] >= -1e-12, "diagonal %zu: %g", a, H[a * dim + a]);
            for (size_t b = 0; b < a; b++)
                CHECK(fabs(H[a * dim + b] - H[b * dim + a]) < 1e-12, "symmetry");
        }
        CHECK(ts1->hessvec(ts1->ud, thm, v, 0, hv) == CRFP_OK, "hessvec");
        double scale = 1.0;
        for (size_t a = 0; a < dim; a++) {
            double want = 0.0;
            if (!mk || ((mk[a >> 6] >> (a & 63)) & 1))
                for (size_t b = 0; b < dim; b++)
                    if (!mk || ((mk[b >> 6] >> (b & 63)) & 1))
                        want += H[a * dim + b] * v[b];
            scale = fmax(scale, fabs(want));
            CHECK(fabs(hv[a] - want) <= 1e-11 * (1.0 + fabs(want)),
                  "trial %d%s: Hv[%zu] = %.15g, brute force %.15g", trial,
                  masked ? " (masked)" : "", a, hv[a], want);
        }
        /* with ℓ2: + rho2·v on the free parameters */
        CHECK(ts1->hessvec(ts1->ud, thm, v, 1, hv2) == CRFP_OK, "hessvec l2");
        for (size_t a = 0; a < dim; a++) {
            int frozen = mk && !((mk[a >> 6] >> (a & 63)) & 1);
            double want = hv[a] + (frozen ? 0.0 : 0.7 * v[a]);
            CHECK(fabs(hv2[a] - want) <= 1e-13 * (1.0 + fabs(want)), "l2 term at %zu", a);
        }
        /* The approximate diagonal (hessdiag) against brute-force marginals,
         * with ℓ2 on the free weights, on 1 and 2 threads. */
        CHECK(CRFP_TS_HAS(ts1, hessdiag), "hessdiag");
        memset(hv2, 0, dim * sizeof *hv2);
        for (size_t i = 0; i < N; i++)
            brute_diag(crf, &seqs[i], thm, mk, hv2);
        for (int th = 0; th < 2; th++) {
            crfp_trainset *t = th ? ts2 : ts1;
            CHECK(t->hessdiag(t->ud, thm, 1, hv) == CRFP_OK, "hessdiag");
            for (size_t a = 0; a < dim; a++) {
                int frozen = mk && !((mk[a >> 6] >> (a & 63)) & 1);
                double want = frozen ? 0.0 : hv2[a] + 0.7;
                CHECK(fabs(hv[a] - want) <= 1e-12 * (1.0 + fabs(want)),
                      "diag[%zu] = %.15g, brute force %.15g (%d threads)", a, hv[a], want,
                      th + 1);
            }
        }
        CHECK(ts1->hessvec(ts1->ud, thm, v, 0, hv) == CRFP_OK, "hessvec");
        /* two threads: the same product up to the order of the sums */
        CHECK(ts2->hessvec(ts2->ud, thm, v, 0, hv2) == CRFP_OK, "hessvec 2 threads");
        for (size_t a = 0; a < dim; a++)
            CHECK(fabs(hv2[a] - hv[a]) <= 1e-13 * scale, "2 threads: %.17g vs %.17g", hv2[a],
                  hv[a]);
        crfp_trainset_free(ts1);
        crfp_trainset_free(ts2);
    }
    free(v);
    free(hv);
    free(hv2);
    free(H);
    free(thm);
    free(mask);
    for (int i = 0; i < N; i++)
        ct_seq_free(&seqs[i]);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
}

/* Finite differences of the batch gradient along v, on larger problems;
 * the kept state; 1 vs 2 threads. */
/* Sequences of one token with at most one listing per observation: each
 * feature fires at most once per sequence, so hessdiag is the exact
 * diagonal of the brute-force Hessian. */
static void single_tokens(void)
{
    uint32_t Y = 3;
    crfp_crf *crf = ct_model(Y, 6);
    ct_weights(crf, 0.2, 0, 1.0);
    crfp_dataset *ds = crfp_dataset_new();
    enum { N = 8 };
    crfp_seq seqs[N];
    for (int i = 0; i < N; i++) {
        ct_seq_make(crf, 1, 1, 1, &seqs[i]);
        CHECK(crfp_dataset_add_ids(NULL, ds, &seqs[i]) == CRFP_OK, "add");
    }
    size_t dim = crfp_crf_nparams(crf);
    const double *theta = crfp_crf_weights_const(crf);
    crfp_trainset *ts = NULL;
    CHECK(crfp_trainset_new(NULL, crf, ds, NULL, NULL, 0.0, 0.0, &ts) == CRFP_OK, "ts");
    if (!ts)
        return;
    crfp_tsws *ws;
    CHECK(ts->ws_new(ts->ud, &ws) == CRFP_OK, "ws");
    double *H = calloc(dim * dim, sizeof *H), *d = malloc(dim * sizeof *d);
    for (size_t i = 0; i < N; i++)
        brute_hessian(crf, &seqs[i], ts, ws, i, theta, H);
    CHECK(ts->hessdiag(ts->ud, theta, 0, d) == CRFP_OK, "hessdiag");
    for (size_t a = 0; a < dim; a++)
        CHECK(fabs(d[a] - H[a * dim + a]) <= 1e-12, "single tokens: diag[%zu] %.15g vs %.15g",
              a, d[a], H[a * dim + a]);
    ts->ws_free(ws);
    crfp_trainset_free(ts);
    free(H);
    free(d);
    for (int i = 0; i < N; i++)
        ct_seq_free(&seqs[i]);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
}

/* Subsampled products (hessvec_sample): fraction 1 is the exact product
 * bit for bit; a fraction below 1 gives (N/|S|)·Σ_{i∈S} H_i v for some
 * non-empty subset S of the sequences — found among all 2^N — and another
 * seed another subset. */
static void sampled(crfp_team *team2)
{
    uint32_t Y = 3;
    crfp_crf *crf = ct_model(Y, 20);
    ct_weights(crf, 0.2, 0, 1.0);
    enum { N = 8 };
    crfp_seq seqs[N];
    crfp_dataset *ds = crfp_dataset_new(), *one[N];
    for (int i = 0; i < N; i++) {
        ct_seq_make(crf, 2 + ct_int(8), 3, 2, &seqs[i]);
        CHECK(crfp_dataset_add_ids(NULL, ds, &seqs[i]) == CRFP_OK, "add");
        one[i] = crfp_dataset_new();
        CHECK(crfp_dataset_add_ids(NULL, one[i], &seqs[i]) == CRFP_OK, "add one");
    }
    size_t dim = crfp_crf_nparams(crf);
    const double *theta = crfp_crf_weights_const(crf);
    double *v = malloc(dim * sizeof *v), *hv = malloc(dim * sizeof *hv);
    double *ref = malloc(dim * sizeof *ref), *P = malloc(N * dim * sizeof *P);
    for (size_t j = 0; j < dim; j++)
        v[j] = 2.0 * ct_unif() - 1.0;
    for (int i = 0; i < N; i++) {
        crfp_trainset *t1 = NULL;
        CHECK(crfp_trainset_new(NULL, crf, one[i], NULL, NULL, 0.0, 0.0, &t1) == CRFP_OK, "t1");
        CHECK(t1->hessvec(t1->ud, theta, v, 0, P + (size_t)i * dim) == CRFP_OK, "P_i");
        crfp_trainset_free(t1);
    }
    crfp_trainset *ts = NULL;
    CHECK(crfp_trainset_new(NULL, crf, ds, team2, NULL, 0.0, 0.0, &ts) == CRFP_OK, "ts");
    CHECK(CRFP_TS_HAS(ts, hessvec_sample), "hessvec_sample");
    CHECK(ts->hessvec(ts->ud, theta, v, 0, ref) == CRFP_OK, "exact");
    CHECK(ts->hessvec_sample(ts->ud, 1.0, 7) == CRFP_OK, "fraction 1");
    CHECK(ts->hessvec(ts->ud, theta, v, 0, hv) == CRFP_OK, "fraction 1 product");
    CHECK(memcmp(hv, ref, dim * sizeof *hv) == 0, "fraction 1 differs from the exact product");
    CHECK(ts->hessvec_sample(ts->ud, 0.0, 7) == CRFP_EINVAL, "fraction 0 accepted");
    unsigned found[2] = {0, 0};
    for (int sd = 0; sd < 2; sd++) {
        CHECK(ts->hessvec_sample(ts->ud, 0.5, 11 + (uint64_t)sd) == CRFP_OK, "sample");
        CHECK(ts->hessvec(ts->ud, theta, v, 0, hv) == CRFP_OK, "sampled product");
        for (unsigned S = 1; S < (1u << N) && !found[sd]; S++) {
            double scale = (double)N / __builtin_popcount(S);
            int ok = 1;
            for (size_t j = 0; j < dim && ok; j++) {
                double want = 0.0;
                for (int i = 0; i < N; i++)
                    if (S >> i & 1)
                        want += P[(size_t)i * dim + j];
                want *= scale;
                ok = fabs(hv[j] - want) <= 1e-11 * (1.0 + fabs(want));
            }
            if (ok)
                found[sd] = S;
        }
        CHECK(found[sd] != 0, "seed %d: the sampled product is no scaled subset sum", sd);
    }
    CHECK(found[0] != found[1], "two seeds drew the same sample (%x)", found[0]);
    crfp_trainset_free(ts);
    free(v);
    free(hv);
    free(ref);
    free(P);
    for (int i = 0; i < N; i++) {
        ct_seq_free(&seqs[i]);
        crfp_dataset_free(one[i]);
    }
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
}

static void larger(int trial, crfp_team *team2)
{
    uint32_t Y = 2 + ct_int(8);
    crfp_crf *crf = ct_model(Y, 40);
    double pzero = trial % 2 ? 0.7 : 0.1;
    ct_weights(crf, pzero, 0, 1.0);
    crfp_dataset *ds = crfp_dataset_new();
    enum { N = 12 };
    crfp_seq seqs[N];
    for (int i = 0; i < N; i++) {
        ct_seq_make(crf, 1 + ct_int(30), 4, 3, &seqs[i]);
        CHECK(crfp_dataset_add_ids(NULL, ds, &seqs[i]) == CRFP_OK, "add");
    }
    size_t dim = crfp_crf_nparams(crf);
    double *theta = crfp_crf_weights(crf);
    crfp_trainset *ts = NULL, *ts2 = NULL;
    CHECK(crfp_trainset_new(NULL, crf, ds, NULL, NULL, 0.0, 0.0, &ts) == CRFP_OK, "ts");
    CHECK(crfp_trainset_new(NULL, crf, ds, team2, NULL, 0.0, 0.0, &ts2) == CRFP_OK, "ts2");
    if (!ts || !ts2)
        return;
    double *v = malloc(dim * sizeof *v), *hv = malloc(dim * sizeof *hv);
    double *hv2 = malloc(dim * sizeof *hv2), *gp = malloc(dim * sizeof *gp);
    double *gm = malloc(dim * sizeof *gm), *th = malloc(dim * sizeof *th);
    for (size_t j = 0; j < dim; j++)
        v[j] = 2.0 * ct_unif() - 1.0;
    CHECK(ts->hessvec(ts->ud, theta, v, 0, hv) == CRFP_OK, "hessvec");
    /* central differences: error O(ε²) from the third derivative plus
     * O(u/ε) rounding; ε = 1e-4 balances them near 1e-8 relative. */
    const double eps = 1e-4;
    double f;
    for (size_t j = 0; j < dim; j++)
        th[j] = theta[j] + eps * v[j];
    CHECK(ts->batch(ts->ud, th, 0, &f, gp) == CRFP_OK, "batch +");
    for (size_t j = 0; j < dim; j++)
        th[j] = theta[j] - eps * v[j];
    CHECK(ts->batch(ts->ud, th, 0, &f, gm) == CRFP_OK, "batch -");
    double scale = fmax(1.0, maxabs(hv, dim));
    for (size_t j = 0; j < dim; j++) {
        double fd = (gp[j] - gm[j]) / (2 * eps);
        CHECK(fabs(fd - hv[j]) <= 1e-6 * scale, "trial %d: Hv[%zu] = %.12g, differences %.12g",
              trial, j, hv[j], fd);
    }
    /* v'Hv >= 0 (convexity) */
    double vhv = 0.0;
    for (size_t j = 0; j < dim; j++)
        vhv += v[j] * hv[j];
    CHECK(vhv >= 0.0, "v'Hv = %g < 0", vhv);
    /* two threads */
    CHECK(ts2->hessvec(ts2->ud, theta, v, 0, hv2) == CRFP_OK, "hessvec 2");
    for (size_t j = 0; j < dim; j++)
        CHECK(fabs(hv2[j] - hv[j]) <= 1e-12 * scale, "2 threads [%zu]: %.17g vs %.17g", j,
              hv2[j], hv[j]);
    /* Kept state, on the 2-thread set: keep some of the sequences; the first
     * product fills, the second (another v) reads; both must be bit-identical
     * to products without kept state. */
    CHECK(CRFP_TS_HAS(ts2, hessvec_keep), "hessvec_keep");
    double *w2 = malloc(dim * sizeof *w2), *ref = malloc(dim * sizeof *ref);
    for (size_t j = 0; j < dim; j++)
        w2[j] = ct_unif() - 0.5;
    size_t keeps[] = {N / 3, SIZE_MAX};
    for (int kk = 0; kk < 2; kk++) {
        CHECK(ts2->hessvec_keep(ts2->ud, keeps[kk]) == CRFP_OK, "keep");
        CHECK(ts2->hessvec(ts2->ud, theta, v, 0, hv2) == CRFP_OK, "fill");
        CHECK(ts2->hessvec_keep(ts2->ud, 0) == CRFP_OK, "keep 0");
        CHECK(ts2->hessvec(ts2->ud, theta, v, 0, ref) == CRFP_OK, "ref");
        CHECK(memcmp(hv2, ref, dim * sizeof *ref) == 0, "keep %zu: filling product differs",
              keeps[kk]);
        CHECK(ts2->hessvec(ts2->ud, theta, w2, 0, ref) == CRFP_OK, "ref w");
        CHECK(ts2->hessvec_keep(ts2->ud, keeps[kk]) == CRFP_OK, "keep");
        CHECK(ts2->hessvec(ts2->ud, theta, v, 0, hv2) == CRFP_OK, "fill again");
        CHECK(ts2->hessvec(ts2->ud, theta, w2, 0, hv2) == CRFP_OK, "reuse");
        CHECK(memcmp(hv2, ref, dim * sizeof *ref) == 0, "keep %zu: reusing product differs",
              keeps[kk]);
        /* θ changed in place (same pointer): the kept state must not be
         * used; compare with a product from scratch at the new θ. */
        double old = theta[dim / 2];
        theta[dim / 2] += 0.25;
        CHECK(ts2->hessvec(ts2->ud, theta, w2, 0, hv2) == CRFP_OK, "after change");
        CHECK(ts2->hessvec_keep(ts2->ud, 0) == CRFP_OK, "keep 0");
        CHECK(ts2->hessvec(ts2->ud, theta, w2, 0, ref) == CRFP_OK, "ref changed");
        CHECK(memcmp(hv2, ref, dim * sizeof *ref) == 0, "keep %zu: stale state used after θ "
              "changed in place", keeps[kk]);
        theta[dim / 2] = old;
    }
    free(w2);
    free(ref);
    crfp_trainset_free(ts);
    crfp_trainset_free(ts2);
    free(v);
    free(hv);
    free(hv2);
    free(gp);
    free(gm);
    free(th);
    for (int i = 0; i < N; i++)
        ct_seq_free(&seqs[i]);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
}

int main(void)
{
    crfp_team *team2 = NULL;
    if (crfp_team_new(2, &team2) != CRFP_OK)
        return 99;
    /* binary observations, then valued ones (CRFsuite's attribute values) */
    for (ct_valued = 0; ct_valued < 2; ct_valued++) {
        for (int k = 0; k < 15; k++)
            tiny(k, team2);
        for (int k = 0; k < 10; k++)
            larger(k, team2);
        single_tokens();
        sampled(team2);
    }
    crfp_team_free(team2);
    return test_failures ? 1 : 0;
}
