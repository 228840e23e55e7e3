/* Viterbi and n-best against a brute-force ranking of all labellings, with
 * discrete weights so that ties occur; sparse and dense Viterbi must return
 * the very same labelling. */
#include "crftest.h"

typedef struct rank {
    uint32_t T;
    size_t n;
    double *score;
    uint32_t *y;  /* n·T */
} rank;

static void visit(void *ud, const uint32_t *y, double score)
{
    rank *r = ud;
    r->score[r->n] = score;
    memcpy(r->y + r->n * r->T, y, r->T * sizeof *y);
    r->n++;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void trial_run(int trial)
{
    uint32_t Y = 1 + ct_int(4), T = 1 + ct_int(6);
    crfp_crf *crf = ct_model(Y, 3 + ct_int(5));
    int discrete = trial % 2 == 0;
    ct_weights(crf, trial % 3 == 0 ? 0.0 : 0.6, discrete, 2.0);
    crfp_seq seq;
    ct_seq_make(crf, T, 3, 2, &seq);
    const double *theta = crfp_crf_weights_const(crf);
    size_t total = 1;
    for (uint32_t t = 0; t < T; t++)
        total *= Y;
    rank r = {T, 0, malloc(total * sizeof(double)), malloc(total * T * sizeof(uint32_t))};
    ct_enumerate(crf, &seq, theta, visit, &r);
    double *sorted = malloc(total * sizeof(double));
    memcpy(sorted, r.score, total * sizeof(double));
    qsort(sorted, total, sizeof(double), cmp_desc);

    crfp_infer *w = crfp_infer_new(crf);
    uint32_t yv[3][8];
    double sv[3];
    for (int mode = 0; mode <= 2; mode++) {
        crfp_infer_set_mode(w, mode);
        CHECK(crfp_viterbi(w, &seq, theta, yv[mode], &sv[mode]) == CRFP_OK, "viterbi");
        CHECK(ct_close(sv[mode], sorted[0], 1e-12), "trial %d mode %d: viterbi %.17g best %.17g",
              trial, mode, sv[mode], sorted[0]);
        CHECK(ct_close(ct_ref_score(crf, &seq, theta, yv[mode]), sorted[0], 1e-12),
              "trial %d mode %d: labelling is not a best one", trial, mode);
        CHECK(ct_close(crfp_path_score(crf, &seq, theta, yv[mode]),
                       ct_ref_score(crf, &seq, theta, yv[mode]), 1e-12),
              "trial %d mode %d: crfp_path_score differs from the definition", trial, mode);
        /* term by term: each position's share is the definition's score
         * of the labelling's prefix to t less that to t-1, and the terms
         * add up to crfp_path_score bit for bit */
        double terms[8];
        CHECK(crfp_path_terms(crf, &seq, theta, yv[mode], terms) ==
                  crfp_path_score(crf, &seq, theta, yv[mode]),
              "trial %d mode %d: crfp_path_terms' sum is not crfp_path_score", trial, mode);
        for (uint32_t t = 0; t < T; t++) {
            crfp_seq upto = seq, before = seq;
            upto.T = t + 1;
            before.T = t;
            double want = ct_ref_score(crf, &upto, theta, yv[mode]) -
                          ct_ref_score(crf, &before, theta, yv[mode]);
            CHECK(ct_close(terms[t], want, 1e-12), "trial %d mode %d: term %u is %.17g, not %.17g",
                  trial, mode, t, terms[t], want);
        }
    }
    CHECK(memcmp(yv[1], yv[2], T * sizeof(uint32_t)) == 0,
          "trial %d: sparse and dense Viterbi disagree on ties", trial);
    CHECK(memcmp(yv[0], yv[2], T * sizeof(uint32_t)) == 0, "trial %d: auto differs", trial);

    /* n-best: every labelling when k exceeds their number, else the top k. */
    size_t ks[3] = {1, 3, total + 2};
    for (int ki = 0; ki < 3; ki++) {
        size_t k = ks[ki], found = 0;
        uint32_t *ny = malloc(k * T * sizeof(uint32_t));
        double *ns = malloc(k * sizeof(double));
        CHECK(crfp_nbest(w, &seq, theta, k, ny, ns, &found) == CRFP_OK, "nbest");
        size_t want = k < total ? k : total;
        CHECK(found == want, "trial %d k %zu: found %zu want %zu", trial, k, found, want);
        for (size_t j = 0; j < found && j < want; j++) {
            CHECK(ct_close(ns[j], sorted[j], 1e-12), "trial %d k %zu rank %zu: %.17g vs %.17g",
                  trial, k, j, ns[j], sorted[j]);
            CHECK(ct_close(ct_ref_score(crf, &seq, theta, ny + j * T), ns[j], 1e-12),
                  "trial %d rank %zu: score does not match labelling", trial, j);
            for (size_t i = j > 64 ? j - 64 : 0; i < j; i++)
                CHECK(memcmp(ny + i * T, ny + j * T, T * sizeof(uint32_t)) != 0,
                      "trial %d: ranks %zu and %zu repeat a labelling", trial, i, j);
        }
        if (found)
            CHECK(memcmp(ny, yv[2], T * sizeof(uint32_t)) == 0 || ns[0] == sv[2],
                  "1-best differs from Viterbi");
        free(ny);
        free(ns);
    }
    crfp_infer_free(w);
    free(sorted);
    free(r.score);
    free(r.y);
    ct_seq_free(&seq);
    crfp_crf_free(crf);
}

/* Larger problems: sparse and dense Viterbi agree exactly, and so do the
 * dense one with and without 256-bit vectors (Y up to 40 covers their
 * 16-label blocks, 4-label blocks and every tail). */
static void big_trial(int trial)
{
    uint32_t Y = 5 + ct_int(36), T = 50 + ct_int(50);
    crfp_crf *crf = ct_model(Y, 30);
    ct_weights(crf, trial % 2 ? 0.97 : 0.5, trial % 4 < 2, 2.0);
    crfp_seq seq;
    ct_seq_make(crf, T, 4, trial % 3, &seq);
    const double *theta = crfp_crf_weights_const(crf);
    crfp_infer *ws = crfp_infer_new(crf), *wd = crfp_infer_new(crf);
    crfp_infer_set_mode(ws, 1);
    crfp_infer_set_mode(wd, 2);
    uint32_t *a = malloc(T * sizeof(uint32_t)), *b = malloc(T * sizeof(uint32_t));
    double sa, sb;
    CHECK(crfp_viterbi(ws, &seq, theta, a, &sa) == CRFP_OK, "sparse");
    CHECK(crfp_viterbi(wd, &seq, theta, b, &sb) == CRFP_OK, "dense");
    CHECK(sa == sb, "big trial %d: scores %.17g %.17g", trial, sa, sb);
    CHECK(memcmp(a, b, T * sizeof(uint32_t)) == 0, "big trial %d: labellings differ", trial);
    CHECK(ct_close(ct_ref_score(crf, &seq, theta, a), sa, 1e-12), "score of labelling");
    crfp_infer_set_simd(wd, 0);
    double sc;
    CHECK(crfp_viterbi(wd, &seq, theta, b, &sc) == CRFP_OK, "dense, baseline vectors");
    CHECK(sc == sb && memcmp(a, b, T * sizeof(uint32_t)) == 0,
          "big trial %d: wide and baseline vectors differ (%.17g %.17g)", trial, sb, sc);
    free(a);
    free(b);
    crfp_infer_free(ws);
    crfp_infer_free(wd);
    ct_seq_free(&seq);
    crfp_crf_free(crf);
}

/* crfp_infer_fix_theta: one workspace decoding many sequences with θ fixed
 * (its per-observation caches and summed transitions kept across calls,
 * slots of the summed-λ cache reused by other observation sets) must give
 * bit for bit what a fresh cache per call gives, for Viterbi, n-best and
 * forward-backward; after θ's values change and θ is fixed again, the
 * answers must follow the new values. */
static void fixed_trial(int trial)
{
    uint32_t Y = 2 + ct_int(12), nseq = 40;
    crfp_crf *crf = ct_model(Y, 30);
    crfp_seq seqs[40];
    for (uint32_t i = 0; i < nseq; i++)
        ct_seq_make(crf, 1 + ct_int(12), 3, 3, &seqs[i]);
    const double *theta = crfp_crf_weights_const(crf);
    crfp_infer *wf = crfp_infer_new(crf), *wp = crfp_infer_new(crf);
    uint32_t a[12], b[12], na[3 * 12], nb[3 * 12];
    double marga[12 * 14], margb[12 * 14];
    for (int round = 0; round < 2; round++) {
        /* mostly dense blocks in round 0 (summed views), sparse in round 1 */
        ct_weights(crf, round ? 0.8 : 0.05, (trial + round) % 2, 2.0);
        CHECK(crfp_infer_fix_theta(wf, theta) == CRFP_OK, "fix");
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = 0; i < nseq; i++) {
                const crfp_seq *q = &seqs[(i * 7 + (uint32_t)pass * 3) % nseq];
                double sa, sb, za, zb;
                size_t fa, fb;
                CHECK(crfp_viterbi(wf, q, theta, a, &sa) == CRFP_OK, "viterbi fixed");
                CHECK(crfp_viterbi(wp, q, theta, b, &sb) == CRFP_OK, "viterbi");
                CHECK(sa == sb && memcmp(a, b, q->T * sizeof *a) == 0,
                      "fixed trial %d round %d: Viterbi %.17g vs %.17g", trial, round, sa, sb);
                CHECK(ct_close(ct_ref_score(crf, q, theta, a), sa, 1e-12),
                      "fixed trial %d: score of the labelling", trial);
                double ta[3], tb[3];
                CHECK(crfp_nbest(wf, q, theta, 3, na, ta, &fa) == CRFP_OK, "nbest fixed");
                CHECK(crfp_nbest(wp, q, theta, 3, nb, tb, &fb) == CRFP_OK, "nbest");
                CHECK(fa == fb && memcmp(ta, tb, fa * sizeof *ta) == 0 &&
                          memcmp(na, nb, fa * q->T * sizeof *na) == 0,
                      "fixed trial %d: n-best differs", trial);
                CHECK(crfp_forward_backward(wf, q, theta, &za, marga) == CRFP_OK, "fb fixed");
                CHECK(crfp_forward_backward(wp, q, theta, &zb, margb) == CRFP_OK, "fb");
                CHECK(ct_close(za, zb, 1e-12), "fixed trial %d: log Z %.17g vs %.17g", trial,
                      za, zb);
                for (size_t k = 0; k < (size_t)q->T * Y; k++)
                    CHECK(ct_close(marga[k], margb[k], 1e-10), "fixed trial %d: marginal",
                          trial);
            }
    }
    CHECK(crfp_infer_fix_theta(wf, NULL) == CRFP_OK, "unfix");
    crfp_infer_free(wf);
    crfp_infer_free(wp);
    for (uint32_t i = 0; i < nseq; i++)
        ct_seq_free(&seqs[i]);
    crfp_crf_free(crf);
}

/* Row pruning (crfp_infer_set_prune) with θ fixed, many labels, several
 * bigram observations per position (their summed transitions cached) and
 * peaked unigram scores, as in G2P: the same labelling and the same score,
 * bit for bit, as the unpruned dense loop and as the sparse recursion, with
 * ties (discrete weights) and without; and pruning must actually happen. */
static void prune_trial(int trial, uint64_t *skipped, uint64_t *weighed)
{
    uint32_t Y = 32 + ct_int(70), nseq = 25;
    crfp_crf *crf = ct_model(Y, 40);
    ct_weights(crf, 0.85, trial % 2, 1.0);
    double *w = crfp_crf_weights(crf);
    for (uint32_t o = 0; o < crfp_crf_nobs(crf); o++) {
        uint64_t ub = crfp_crf_ublock(crf, o);
        if (ub != CRFP_NO_BLOCK)
            for (uint32_t y = 0; y < Y; y++)
                w[ub + y] *= 6.0;
    }
    const double *theta = crfp_crf_weights_const(crf);
    crfp_seq seqs[25];
    for (uint32_t i = 0; i < nseq; i++)
        ct_seq_make(crf, 1 + ct_int(30), 3, 3, &seqs[i]);
    crfp_infer *wp = crfp_infer_new(crf), *wn = crfp_infer_new(crf), *ws = crfp_infer_new(crf);
    crfp_infer_set_prune(wn, 0);
    crfp_infer_set_mode(ws, 1);
    CHECK(crfp_infer_fix_theta(wp, theta) == CRFP_OK, "fix");
    CHECK(crfp_infer_fix_theta(wn, theta) == CRFP_OK, "fix");
    uint32_t a[30], b[30], c[30];
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < nseq; i++) {
            const crfp_seq *q = &seqs[i];
            double sa, sb, sc;
            CHECK(crfp_viterbi(wp, q, theta, a, &sa) == CRFP_OK, "pruned");
            CHECK(crfp_viterbi(wn, q, theta, b, &sb) == CRFP_OK, "unpruned");
            CHECK(crfp_viterbi(ws, q, theta, c, &sc) == CRFP_OK, "sparse");
            CHECK(memcmp(&sa, &sb, sizeof sa) == 0 && memcmp(a, b, q->T * sizeof *a) == 0,
                  "prune trial %d (Y %u): pruned %.17g, unpruned %.17g", trial, Y, sa, sb);
            CHECK(sa == sc && memcmp(a, c, q->T * sizeof *a) == 0,
                  "prune trial %d (Y %u): pruned %.17g, sparse %.17g", trial, Y, sa, sc);
        }
    uint64_t k, n;
    crfp_infer_prune_counts(wn, &k, &n);
    CHECK(k == 0 && n == 0, "pruning switched off, yet %llu rows skipped", (unsigned long long)k);
    crfp_infer_prune_counts(wp, &k, &n);
    *skipped += k;
    *weighed += n;
    crfp_infer_free(wp);
    crfp_infer_free(wn);
    crfp_infer_free(ws);
    for (uint32_t i = 0; i < nseq; i++)
        ct_seq_free(&seqs[i]);
    crfp_crf_free(crf);
}

int main(void)
{
    ct_rng = 0x0badc0ffee123457ULL;
    /* binary observations, then valued ones (CRFsuite's attribute values) */
    for (ct_valued = 0; ct_valued < 2; ct_valued++) {
        for (int trial = 0; trial < 500; trial++)
            trial_run(trial);
        for (int trial = 0; trial < 40; trial++)
            big_trial(trial);
        for (int trial = 0; trial < 30; trial++)
            fixed_trial(trial);
    }
    uint64_t skipped = 0, weighed = 0;
    for (int trial = 0; trial < 30; trial++)
        prune_trial(trial, &skipped, &weighed);
    printf("row pruning: %llu of %llu previous labels skipped\n", (unsigned long long)skipped,
           (unsigned long long)weighed);
    CHECK(skipped * 4 > weighed, "pruning skipped only %llu of %llu rows",
          (unsigned long long)skipped, (unsigned long long)weighed);
    if (test_failures)
        fprintf(stderr, "%d failures\n", test_failures);
    return test_failures ? 1 : 0;
}
