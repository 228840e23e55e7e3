/* Forced decoding (crfp_infer_set_force) against brute-force enumeration
 * of the labellings that agree with the forced labels, on random tiny
 * CRFs: Viterbi's labelling and score, the n-best list (every agreeing
 * labelling, in order, and no other), log Z, token and pair marginals and
 * segment probabilities of the conditioned distribution, in every
 * forward-backward mode, with the Viterbi pruning and vector kernels on
 * and off and with θ fixed.  Then the refusals, and that ending the force
 * gives back the unconstrained answers. */
#include "crftest.h"

#define MAXT 6
#define MAXY 4
#define MAXL 4096 /* 4^6 labellings */

typedef struct agree {
    const uint32_t *force;
    uint32_t Y, T;
    size_t n;
    double score[MAXL];
    uint32_t y[MAXL][MAXT];
} agree;

static void collect(void *ud, const uint32_t *y, double score)
{
    agree *a = ud;
    for (uint32_t t = 0; t < a->T; t++)
        if (a->force[t] != CRFP_FREE_LABEL && y[t] != a->force[t])
            return;
    a->score[a->n] = score;
    memcpy(a->y[a->n], y, a->T * sizeof *y);
    a->n++;
}

/* Indices of the labellings by score, best first. */
static void by_score(const agree *a, size_t *ix)
{
    for (size_t i = 0; i < a->n; i++)
        ix[i] = i;
    for (size_t i = 1; i < a->n; i++)
        for (size_t j = i; j > 0 && a->score[ix[j]] > a->score[ix[j - 1]]; j--) {
            size_t s = ix[j];
            ix[j] = ix[j - 1];
            ix[j - 1] = s;
        }
}

static void trial(int tr)
{
    uint32_t Y = 1 + ct_int(MAXY), T = 1 + ct_int(MAXT);
    crfp_crf *crf = ct_model(Y, 3 + ct_int(5));
    ct_weights(crf, tr % 3 == 0 ? 0.0 : 0.6, tr % 4 == 0, tr % 5 == 0 ? 6.0 : 2.0);
    crfp_seq seq;
    ct_seq_make(crf, T, 3, 2, &seq);
    const double *theta = crfp_crf_weights_const(crf);
    uint32_t force[MAXT];
    for (uint32_t t = 0; t < T; t++)
        force[t] = ct_unif() < 0.4 ? ct_int(Y) : CRFP_FREE_LABEL;
    if (tr % 7 == 0)
        for (uint32_t t = 0; t < T; t++)
            force[t] = ct_int(Y); /* all of it: one labelling */

    static agree a;
    a.force = force;
    a.Y = Y;
    a.T = T;
    a.n = 0;
    ct_enumerate(crf, &seq, theta, collect, &a);
    CHECK(a.n >= 1, "trial %d: no agreeing labelling", tr);
    static size_t ix[MAXL];
    by_score(&a, ix);
    double mx = a.score[ix[0]], z = 0.0;
    double marg[MAXT * MAXY] = {0}, pair[MAXT * (MAXY + 1) * MAXY] = {0};
    for (size_t i = 0; i < a.n; i++) {
        double p = exp(a.score[i] - mx);
        z += p;
        for (uint32_t t = 0; t < T; t++) {
            marg[t * Y + a.y[i][t]] += p;
            uint32_t prev = t ? a.y[i][t - 1] : Y;
            pair[((size_t)t * (Y + 1) + prev) * Y + a.y[i][t]] += p;
        }
    }
    double logz_ref = mx + log(z);

    crfp_infer *w = crfp_infer_new(crf);
    CHECK(crfp_infer_set_force(w, force, T) == CRFP_OK, "set_force");
    for (int cfg = 0; cfg < 6; cfg++) {
        crfp_infer_set_mode(w, cfg % 3);
        crfp_infer_set_prune(w, cfg < 3);
        crfp_infer_set_simd(w, cfg % 2);
        if (cfg == 5)
            CHECK(crfp_infer_fix_theta(w, theta) == CRFP_OK, "fix theta");
        uint32_t y[MAXT];
        double score;
        CHECK(crfp_viterbi(w, &seq, theta, y, &score) == CRFP_OK, "viterbi");
        CHECK(ct_close(score, mx, 1e-12), "trial %d cfg %d: Viterbi score %.17g, best agreeing %.17g",
              tr, cfg, score, mx);
        for (uint32_t t = 0; t < T; t++)
            CHECK(force[t] == CRFP_FREE_LABEL || y[t] == force[t],
                  "trial %d cfg %d: Viterbi moved forced position %u", tr, cfg, t);
        CHECK(ct_close(crfp_path_score(crf, &seq, theta, y), score, 1e-12),
              "trial %d: the labelling is not its score's", tr);

        /* n-best: all agreeing labellings in order, then no more */
        size_t k = a.n + 2, found;
        uint32_t *ys = malloc(k * T * sizeof *ys);
        double *sc = malloc(k * sizeof *sc);
        CHECK(crfp_nbest(w, &seq, theta, k, ys, sc, &found) == CRFP_OK, "nbest");
        CHECK(found == a.n, "trial %d cfg %d: n-best found %zu, %zu agree", tr, cfg, found, a.n);
        for (size_t i = 0; i < found && i < a.n; i++) {
            CHECK(ct_close(sc[i], a.score[ix[i]], 1e-12), "trial %d cfg %d: n-best %zu scores "
                  "%.17g, expected %.17g", tr, cfg, i, sc[i], a.score[ix[i]]);
            for (uint32_t t = 0; t < T; t++)
                CHECK(force[t] == CRFP_FREE_LABEL || ys[i * T + t] == force[t],
                      "trial %d: n-best %zu moved a forced position", tr, i);
        }
        free(ys);
        free(sc);

        double logz, m[MAXT * MAXY], pm[MAXT * (MAXY + 1) * MAXY];
        CHECK(crfp_forward_backward(w, &seq, theta, &logz, m) == CRFP_OK, "fb");
        CHECK(ct_close(logz, logz_ref, 1e-10), "trial %d cfg %d: log Z %.17g vs %.17g", tr, cfg,
              logz, logz_ref);
        for (size_t i = 0; i < (size_t)T * Y; i++)
            CHECK(ct_close(m[i], marg[i] / z, 1e-10), "trial %d cfg %d: marginal %zu %g vs %g",
                  tr, cfg, i, m[i], marg[i] / z);
        /* a segment: the forced labels' own probability is 1 */
        uint32_t start = ct_int(T), n = 1 + ct_int(T - start), lab[MAXT];
        double sz = 0.0, p;
        for (uint32_t i = 0; i < n; i++)
            lab[i] = force[start + i] != CRFP_FREE_LABEL ? force[start + i] : ct_int(Y);
        for (size_t i = 0; i < a.n; i++) {
            uint32_t ok = 1;
            for (uint32_t j = 0; j < n; j++)
                ok &= a.y[i][start + j] == lab[j];
            if (ok)
                sz += exp(a.score[i] - mx);
        }
        CHECK(crfp_segment_prob(w, &seq, theta, start, n, lab, &p) == CRFP_OK, "segment");
        CHECK(ct_close(p, sz / z, 1e-10), "trial %d cfg %d: segment %.17g vs %.17g", tr, cfg, p,
              sz / z);
        CHECK(crfp_pair_marginals(w, &seq, theta, pm) == CRFP_OK, "pairs");
        for (size_t i = 0; i < (size_t)T * (Y + 1) * Y; i++)
            CHECK(ct_close(pm[i], pair[i] / z, 1e-10), "trial %d cfg %d: pair %zu", tr, cfg, i);
    }

    /* refused: another length, a label out of range (nothing set then) */
    crfp_seq other;
    ct_seq_make(crf, T + 1, 3, 2, &other);
    uint32_t y2[MAXT + 1];
    double lz;
    size_t found;
    CHECK(crfp_viterbi(w, &other, theta, y2, NULL) == CRFP_EINVAL, "another length: viterbi");
    CHECK(crfp_forward_backward(w, &other, theta, &lz, NULL) == CRFP_EINVAL, "another length: fb");
    CHECK(crfp_nbest(w, &other, theta, 2, y2, &lz, &found) == CRFP_EINVAL, "another length: nbest");
    uint32_t bad[MAXT];
    memcpy(bad, force, sizeof bad);
    bad[T - 1] = Y;
    CHECK(crfp_infer_set_force(w, bad, T) == CRFP_EINVAL, "a label out of range");
    CHECK(crfp_infer_set_force(NULL, force, T) == CRFP_EINVAL, "no workspace");

    /* ended: the unconstrained answers, as from a fresh workspace */
    CHECK(crfp_infer_set_force(w, NULL, 0) == CRFP_OK, "end the force");
    crfp_infer *fresh = crfp_infer_new(crf);
    uint32_t y1[MAXT + 1], yf[MAXT + 1];
    double s1, sf, l1, lf;
    CHECK(crfp_viterbi(w, &other, theta, y1, &s1) == CRFP_OK &&
              crfp_viterbi(fresh, &other, theta, yf, &sf) == CRFP_OK && s1 == sf &&
              memcmp(y1, yf, (T + 1) * sizeof *y1) == 0,
          "trial %d: after the force, Viterbi differs from a fresh workspace's", tr);
    CHECK(crfp_forward_backward(w, &seq, theta, &l1, NULL) == CRFP_OK &&
              crfp_forward_backward(fresh, &seq, theta, &lf, NULL) == CRFP_OK &&
              ct_close(l1, lf, 1e-12) && (a.n == 1 || l1 >= logz_ref - 1e-12),
          "trial %d: after the force, log Z %.17g vs %.17g", tr, l1, lf);
    crfp_infer_free(fresh);
    crfp_infer_free(w);
    ct_seq_free(&other);
    ct_seq_free(&seq);
    crfp_crf_free(crf);
}

int main(void)
{
    ct_rng = 0x5EED0F0CE5EED0F0ULL;
    for (int tr = 0; tr < 500; tr++)
        trial(tr);
    if (test_failures)
        fprintf(stderr, "%d failures\n", test_failures);
    return test_failures ? 1 : 0;
}
