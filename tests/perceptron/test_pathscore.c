/* perceptron: the features the training set lists for a labelled path
 * reproduce the path's score — Σ_k val[k]·θ[idx[k]] equals the engine's
 * crfp_path_score — for the gold path (y = NULL) and random paths, on
 * random models whose sequences repeat observations at a position (so an
 * index is listed more than once and every occurrence must count).
 * tests/crf/test_trainset.c checks the gold and Viterbi paths of the
 * engine's own test problems; this one adds what the perceptron's update
 * relies on: arbitrary (non-optimal) paths and repeated indices. */
#include "config.h"
#include "ptest.h"

static uint32_t *ids(size_t n)
{
    uint32_t *p = calloc(n ? n : 1, sizeof *p);
    if (!p)
        exit(99);
    return p;
}

int main(void)
{
    crfp_host *host = crfp_host_new();
    if (!host)
        return 99;
    crfp_rng r;
    crfp_rng_seed(&r, 2718);
    size_t checked = 0, dups = 0;
    for (int model = 0; model < 20; model++) {
        uint32_t Y = 2 + (uint32_t)crfp_rng_below(&r, 5), nobs = 3 + (uint32_t)crfp_rng_below(&r, 10);
        crfp_crf *crf = crfp_crf_new();
        crfp_dataset *ds = crfp_dataset_new();
        if (!crf || !ds)
            return 99;
        char name[32];
        for (uint32_t y = 0; y < Y; y++) {
            uint32_t id;
            snprintf(name, sizeof name, "L%u", y);
            MUST(host, crfp_crf_add_label(crf, name, &id));
        }
        for (uint32_t o = 0; o < nobs; o++) {
            uint32_t id;
            unsigned flags = o < 2 ? 3u : 1u + (unsigned)crfp_rng_below(&r, 3);
            snprintf(name, sizeof name, "o%u", o);
            MUST(host, crfp_crf_add_obs(crf, name, strlen(name), flags, &id));
        }
        MUST(host, crfp_crf_finalize(crf));
        double *theta = crfp_crf_weights(crf);
        size_t dim = crfp_crf_nparams(crf);
        for (size_t j = 0; j < dim; j++)
            theta[j] = crfp_rng_unit(&r) < 0.2 ? 0.0 : 4.0 * crfp_rng_unit(&r) - 2.0;
        for (int s = 0; s < 6; s++) {
            uint32_t T = 1 + (uint32_t)crfp_rng_below(&r, 12);
            crfp_seq q = {T, ids(T), ids(T + 1), ids(4 * T), ids(T + 1), ids(4 * T), NULL};
            uint32_t nu = 0, nb = 0;
            for (uint32_t t = 0; t < T; t++) {
                /* up to 4 observations a position, drawn with replacement */
                for (size_t k = crfp_rng_below(&r, 5); k > 0; k--) {
                    uint32_t o = (uint32_t)crfp_rng_below(&r, nobs);
                    if (crfp_crf_ublock(crf, o) != CRFP_NO_BLOCK)
                        q.uobs[nu++] = o;
                }
                for (size_t k = crfp_rng_below(&r, 5); k > 0; k--) {
                    uint32_t o = (uint32_t)crfp_rng_below(&r, nobs);
                    if (crfp_crf_bblock(crf, o) != CRFP_NO_BLOCK)
                        q.bobs[nb++] = o;
                }
                q.uoff[t + 1] = nu;
                q.boff[t + 1] = nb;
                q.y[t] = (uint32_t)crfp_rng_below(&r, Y);
            }
            MUST(host, crfp_dataset_add_ids(host, ds, &q));
            free(q.y);
            free(q.uoff);
            free(q.uobs);
            free(q.boff);
            free(q.bobs);
        }
        crfp_trainset *ts;
        MUST(host, crfp_trainset_new(host, crf, ds, NULL, NULL, 0.0, 0.0, &ts));
        CHECK(ts->caps & CRFP_TS_DECODE, "no decoding capability");
        CHECK(ts->dim == dim, "dim %zu, model has %zu", ts->dim, dim);
        crfp_tsws *ws;
        MUST(host, ts->ws_new(ts->ud, &ws));
        uint32_t y[16];
        for (size_t i = 0; i < ts->nseq; i++) {
            const crfp_seq *q = crfp_dataset_get(ds, i);
            const uint32_t *gold;
            uint32_t T;
            ts->gold(ts->ud, i, &gold, &T);
            CHECK(T == q->T && memcmp(gold, q->y, T * sizeof *gold) == 0, "gold of %zu", i);
            for (int path = 0; path < 4; path++) {
                const uint32_t *lab = NULL;
                if (path > 0) {
                    for (uint32_t t = 0; t < T; t++)
                        y[t] = (uint32_t)crfp_rng_below(&r, Y);
                    lab = y;
                }
                const uint64_t *idx;
                const double *val;
                size_t n;
                MUST(host, ts->path_features(ws, i, lab, &idx, &val, &n));
                double s = 0.0;
                for (size_t k = 0; k < n; k++) {
                    CHECK(idx[k] < dim, "index %llu out of range", (unsigned long long)idx[k]);
                    s += val[k] * theta[idx[k]];
                    for (size_t l = 0; l < k; l++)
                        if (idx[l] == idx[k]) {
                            dups++;
                            break;
                        }
                }
                double want = crfp_path_score(crf, q, theta, lab ? lab : q->y);
                CHECK(fabs(s - want) <= 1e-12 * (1.0 + fabs(want)),
                      "model %d seq %zu path %d: features give %.17g, path score %.17g", model,
                      i, path, s, want);
                checked++;
            }
            /* The Viterbi score is the score of the path it returns. */
            double vs;
            MUST(host, ts->viterbi(ws, theta, i, y, &vs));
            double want = crfp_path_score(crf, q, theta, y);
            CHECK(fabs(vs - want) <= 1e-12 * (1.0 + fabs(want)), "viterbi score %.17g vs %.17g",
                  vs, want);
        }
        ts->ws_free(ws);
        crfp_trainset_free(ts);
        crfp_dataset_free(ds);
        crfp_crf_free(crf);
    }
    CHECK(dups > 0, "no path listed an index twice: the test lost its point");
    printf("%zu paths: features reproduce the path score (%zu repeated indices)\n", checked,
           dups);
    crfp_host_free(host);
    return test_failures ? 1 : 0;
}
