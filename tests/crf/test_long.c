/* A 10,000-token sequence: scaling keeps forward-backward finite, marginals
 * are distributions, Viterbi returns a labelling whose score it reports. */
#include "crftest.h"

int main(void)
{
    ct_rng = 0x5151515151515151ULL;
    const uint32_t T = 10000;
    crfp_crf *crf = ct_model(6, 50);
    ct_weights(crf, 0.5, 0, 3.0);
    crfp_seq seq;
    ct_seq_make(crf, T, 8, 2, &seq);
    const double *theta = crfp_crf_weights_const(crf);
    uint32_t Y = crfp_crf_nlabels(crf);
    double *marg = malloc((size_t)T * Y * sizeof(double));
    double lz[3];
    for (int mode = 0; mode <= 2; mode++) {
        crfp_infer *w = crfp_infer_new(crf);
        crfp_infer_set_mode(w, mode);
        CHECK(crfp_forward_backward(w, &seq, theta, &lz[mode], marg) == CRFP_OK, "fb");
        CHECK(isfinite(lz[mode]) && lz[mode] > 0, "logZ %g", lz[mode]);
        for (uint32_t t = 0; t < T; t++) {
            double s = 0.0;
            for (uint32_t y = 0; y < Y; y++) {
                CHECK(marg[t * Y + y] >= 0.0 && marg[t * Y + y] <= 1.0 + 1e-12, "range");
                s += marg[t * Y + y];
            }
            CHECK(fabs(s - 1.0) < 1e-9, "mode %d position %u sums to %.17g", mode, t, s);
        }
        uint32_t *y = malloc(T * sizeof(uint32_t));
        double score;
        CHECK(crfp_viterbi(w, &seq, theta, y, &score) == CRFP_OK, "viterbi");
        double ps = crfp_path_score(crf, &seq, theta, y);
        CHECK(ct_close(ps, score, 1e-9), "viterbi score %.17g path %.17g", score, ps);
        /* The best labelling is at most as likely as everything together. */
        CHECK(score <= lz[mode] + 1e-6, "score %g above logZ %g", score, lz[mode]);
        free(y);
        crfp_infer_free(w);
    }
    CHECK(fabs(lz[1] - lz[2]) <= 1e-10 * fabs(lz[2]), "sparse %.17g dense %.17g", lz[1], lz[2]);
    /* The objective handles it too, in two threads. */
    crfp_dataset *ds = crfp_dataset_new();
    CHECK(crfp_dataset_add_ids(NULL, ds, &seq) == CRFP_OK, "add");
    CHECK(crfp_dataset_add_ids(NULL, ds, &seq) == CRFP_OK, "add");
    crfp_crfobj *obj;
    crfp_team *tm = NULL;
    CHECK(crfp_team_new(2, &tm) == CRFP_OK, "team");
    CHECK(crfp_crfobj_new(NULL, crf, ds, tm, 0.0, &obj) == CRFP_OK, "obj");
    double f, *g = malloc(crfp_crf_nparams(crf) * sizeof(double));
    CHECK(crfp_crfobj_eval(obj, theta, &f, g) == CRFP_OK, "eval");
    double gold = crfp_path_score(crf, &seq, theta, seq.y);
    CHECK(ct_close(f, 2 * (lz[0] - gold), 1e-10), "f %.17g", f);
    crfp_crfobj_free(obj);
    crfp_team_free(tm);
    crfp_dataset_free(ds);
    free(g);
    free(marg);
    ct_seq_free(&seq);
    crfp_crf_free(crf);
    return test_failures ? 1 : 0;
}
