/* Forward-backward: log Z, token and pairwise marginals against brute-force
 * enumeration on random tiny CRFs, in automatic, sparse and dense modes; and
 * sparse against dense on larger problems with many and with no zero
 * transition weights. */
#include "crftest.h"

typedef struct brute {
    uint32_t Y, T;
    double mx;        /* max score (for a stable log-sum-exp) */
    double z;         /* Σ exp(score − mx) */
    double *marg;     /* T·Y, unnormalised */
    double *pair;     /* T·(Y+1)·Y, unnormalised */
    int pass;
} brute;

static void visit(void *ud, const uint32_t *y, double score)
{
    brute *b = ud;
    if (b->pass == 0) {
        if (score > b->mx)
            b->mx = score;
        return;
    }
    double p = exp(score - b->mx);
    b->z += p;
    for (uint32_t t = 0; t < b->T; t++) {
        b->marg[t * b->Y + y[t]] += p;
        uint32_t prev = t ? y[t - 1] : b->Y;
        b->pair[((size_t)t * (b->Y + 1) + prev) * b->Y + y[t]] += p;
    }
}

/* Σ exp(score − mx) over the labellings whose positions start..start+n-1
 * are lab[0..n): crfp_segment_prob's numerator. */
typedef struct segsum {
    uint32_t start, n;
    const uint32_t *lab;
    double mx, z;
} segsum;

static void visit_seg(void *ud, const uint32_t *y, double score)
{
    segsum *g = ud;
    for (uint32_t i = 0; i < g->n; i++)
        if (y[g->start + i] != g->lab[i])
            return;
    g->z += exp(score - g->mx);
}

/* Segments: against brute force for random segments and labels (whole
 * sequence included, where it is the labelling's probability), and the
 * calls the tables do not serve refused. */
static void segment_checks(int trial, int mode, crfp_crf *crf, crfp_seq *seq, const double *theta,
                           crfp_infer *w, const brute *b)
{
    uint32_t Y = b->Y, T = b->T, lab[8];
    double logz, p;
    double *marg = malloc((size_t)T * Y * sizeof *marg);
    CHECK(crfp_forward_backward(w, seq, theta, &logz, marg) == CRFP_OK, "fb");
    for (int k = 0; k < 6; k++) {
        uint32_t start = ct_int(T), n = 1 + ct_int(T - start);
        if (k == 0)
            start = 0, n = T;
        for (uint32_t i = 0; i < n; i++)
            lab[i] = ct_int(Y);
        segsum g = {start, n, lab, b->mx, 0.0};
        ct_enumerate(crf, seq, theta, visit_seg, &g);
        CHECK(crfp_segment_prob(w, seq, theta, start, n, lab, &p) == CRFP_OK, "segment");
        CHECK(ct_close(p, g.z / b->z, 1e-10), "trial %d mode %d segment [%u, +%u): %.17g vs %.17g",
              trial, mode, start, n, p, g.z / b->z);
        if (n == 1)
            CHECK(ct_close(p, marg[start * Y + lab[0]], 1e-12), "a one-position segment is the "
                  "marginal");
    }
    lab[0] = 0;
    CHECK(crfp_segment_prob(w, seq, theta, 0, 0, lab, &p) == CRFP_EINVAL, "n = 0");
    CHECK(crfp_segment_prob(w, seq, theta, T - 1, 2, lab, &p) == CRFP_EINVAL, "past the end");
    lab[0] = Y;
    CHECK(crfp_segment_prob(w, seq, theta, 0, 1, lab, &p) == CRFP_EINVAL, "label out of range");
    lab[0] = 0;
    /* tables without the backward pass, or overwritten by Viterbi */
    CHECK(crfp_forward_backward(w, seq, theta, &logz, NULL) == CRFP_OK, "fb, no marginals");
    CHECK(crfp_segment_prob(w, seq, theta, 0, 1, lab, &p) == CRFP_EINVAL, "no backward pass");
    CHECK(crfp_forward_backward(w, seq, theta, &logz, marg) == CRFP_OK, "fb");
    uint32_t best[8];
    CHECK(crfp_viterbi(w, seq, theta, best, NULL) == CRFP_OK, "viterbi");
    CHECK(crfp_segment_prob(w, seq, theta, 0, 1, lab, &p) == CRFP_EINVAL, "after Viterbi");
    free(marg);
}

static void tiny_trial(int trial)
{
    uint32_t Y = 1 + ct_int(4), T = 1 + ct_int(6);
    crfp_crf *crf = ct_model(Y, 3 + ct_int(5));
    ct_weights(crf, trial % 3 == 0 ? 0.0 : 0.6, 0, trial % 5 == 0 ? 6.0 : 2.0);
    crfp_seq seq;
    ct_seq_make(crf, T, 3, 2, &seq);
    const double *theta = crfp_crf_weights_const(crf);

    brute b = {Y, T, -INFINITY, 0.0, calloc(T * Y, sizeof(double)),
               calloc((size_t)T * (Y + 1) * Y, sizeof(double)), 0};
    ct_enumerate(crf, &seq, theta, visit, &b);
    b.pass = 1;
    ct_enumerate(crf, &seq, theta, visit, &b);
    double logz_ref = b.mx + log(b.z);

    crfp_infer *w = crfp_infer_new(crf);
    double *marg = malloc(T * Y * sizeof(double));
    double *pair = malloc((size_t)T * (Y + 1) * Y * sizeof(double));
    for (int mode = 0; mode <= 2; mode++) {
        crfp_infer_set_mode(w, mode);
        double logz;
        CHECK(crfp_forward_backward(w, &seq, theta, &logz, marg) == CRFP_OK, "fb");
        CHECK(ct_close(logz, logz_ref, 1e-10), "trial %d mode %d logZ %.17g vs %.17g", trial,
              mode, logz, logz_ref);
        for (size_t i = 0; i < (size_t)T * Y; i++)
            CHECK(ct_close(marg[i], b.marg[i] / b.z, 1e-10), "trial %d mode %d marg[%zu]",
                  trial, mode, i);
        CHECK(crfp_pair_marginals(w, &seq, theta, pair) == CRFP_OK, "pairs");
        for (size_t i = 0; i < (size_t)T * (Y + 1) * Y; i++)
            CHECK(ct_close(pair[i], b.pair[i] / b.z, 1e-10), "trial %d mode %d pair[%zu] %g vs %g",
                  trial, mode, i, pair[i], b.pair[i] / b.z);
        double lz2;
        CHECK(crfp_forward_backward(w, &seq, theta, &lz2, NULL) == CRFP_OK && lz2 == logz,
              "logZ without marginals");
        segment_checks(trial, mode, crf, &seq, theta, w, &b);
    }
    free(marg);
    free(pair);
    free(b.marg);
    free(b.pair);
    crfp_infer_free(w);
    ct_seq_free(&seq);
    crfp_crf_free(crf);
}

static double rel(double a, double b)
{
    return fabs(a - b) / (fabs(a) + fabs(b) + 1e-300);
}

/* Larger problems: sparse and dense recursions must agree. */
static void sparse_dense_trial(int trial, double pzero)
{
    uint32_t Y = 5 + ct_int(18), T = 20 + ct_int(40);
    crfp_crf *crf = ct_model(Y, 30);
    ct_weights(crf, pzero, 0, 1.5);
    crfp_seq seq;
    ct_seq_make(crf, T, 6, trial % 2 ? 1 : 3, &seq);
    const double *theta = crfp_crf_weights_const(crf);
    crfp_infer *ws = crfp_infer_new(crf), *wd = crfp_infer_new(crf), *wa = crfp_infer_new(crf);
    crfp_infer_set_mode(ws, 1);
    crfp_infer_set_mode(wd, 2);
    size_t n = (size_t)T * Y, np = (size_t)T * (Y + 1) * Y;
    double *ms = malloc(n * sizeof(double)), *md = malloc(n * sizeof(double));
    double *ma = malloc(n * sizeof(double));
    double *ps = malloc(np * sizeof(double)), *pd = malloc(np * sizeof(double));
    double ls, ld, la;
    CHECK(crfp_forward_backward(ws, &seq, theta, &ls, ms) == CRFP_OK, "sparse");
    CHECK(crfp_forward_backward(wd, &seq, theta, &ld, md) == CRFP_OK, "dense");
    CHECK(crfp_forward_backward(wa, &seq, theta, &la, ma) == CRFP_OK, "auto");
    CHECK(rel(ls, ld) <= 1e-10, "trial %d pzero %g logZ sparse %.17g dense %.17g", trial, pzero,
          ls, ld);
    CHECK(rel(la, ld) <= 1e-10, "auto logZ");
    for (size_t i = 0; i < n; i++) {
        CHECK(fabs(ms[i] - md[i]) <= 1e-10 * fabs(md[i]) + 1e-14, "marg %zu: %g vs %g", i, ms[i],
              md[i]);
        CHECK(fabs(ma[i] - md[i]) <= 1e-10 * fabs(md[i]) + 1e-14, "auto marg %zu", i);
    }
    CHECK(crfp_pair_marginals(ws, &seq, theta, ps) == CRFP_OK, "sparse pairs");
    CHECK(crfp_pair_marginals(wd, &seq, theta, pd) == CRFP_OK, "dense pairs");
    for (size_t i = 0; i < np; i++)
        CHECK(fabs(ps[i] - pd[i]) <= 1e-10 * fabs(pd[i]) + 1e-14, "pair %zu", i);
    /* Marginals are probabilities: each position sums to 1. */
    for (uint32_t t = 0; t < T; t++) {
        double s = 0.0;
        for (uint32_t y = 0; y < Y; y++)
            s += ms[t * Y + y];
        CHECK(fabs(s - 1.0) < 1e-12, "position %u sums to %.17g", t, s);
    }
    free(ms);
    free(md);
    free(ma);
    free(ps);
    free(pd);
    crfp_infer_free(ws);
    crfp_infer_free(wd);
    crfp_infer_free(wa);
    ct_seq_free(&seq);
    crfp_crf_free(crf);
}

/* Scores whose exp() overflows: forward-backward refuses them (EINVAL, no
 * NaN marginals), Viterbi still decodes. */
static void overflow_check(void)
{
    crfp_crf *crf = ct_model(3, 5);
    ct_weights(crf, 0.0, 0, 2.0);
    double *w = crfp_crf_weights(crf);
    for (size_t i = 0; i < crfp_crf_nparams(crf); i++)
        w[i] *= 1000.0;
    crfp_seq seq;
    ct_seq_make(crf, 5, 3, 2, &seq);
    crfp_infer *inf = crfp_infer_new(crf);
    double logz, marg[5 * 3], pair[5 * 4 * 3];
    uint32_t y[5];
    CHECK(crfp_forward_backward(inf, &seq, w, &logz, marg) == CRFP_EINVAL, "overflow: fb");
    CHECK(crfp_forward_backward(inf, &seq, w, &logz, NULL) == CRFP_EINVAL, "overflow: log Z");
    CHECK(crfp_pair_marginals(inf, &seq, w, pair) == CRFP_EINVAL, "overflow: pairs");
    CHECK(crfp_viterbi(inf, &seq, w, y, NULL) == CRFP_OK, "overflow: Viterbi");
    crfp_infer_free(inf);
    ct_seq_free(&seq);
    crfp_crf_free(crf);
}

int main(void)
{
    ct_rng = 0x1234567887654321ULL;
    overflow_check();
    /* binary observations, then valued ones (CRFsuite's attribute values) */
    for (ct_valued = 0; ct_valued < 2; ct_valued++) {
        for (int trial = 0; trial < 400; trial++)
            tiny_trial(trial);
        for (int trial = 0; trial < 20; trial++) {
            sparse_dense_trial(trial, 0.95);
            sparse_dense_trial(trial, 0.6);
            sparse_dense_trial(trial, 0.0);
        }
    }
    if (test_failures)
        fprintf(stderr, "%d failures\n", test_failures);
    return test_failures ? 1 : 0;
}
