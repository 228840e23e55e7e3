/* The engine's windowed block statistics (block_stats with radius > 0):
 *  - a radius covering every sequence gives exactly (bit for bit) the
 *    statistics of radius 0;
 *  - for a block occurring once, well inside its sequence, the statistics
 *    of radius R equal a brute-force enumeration of the window model that
 *    trainset.c documents: labels a-1..z with y_{a-1} uniform and the
 *    transition into a kept, nothing after z;
 *  - a small radius approximates radius 0, and the error shrinks as the
 *    radius grows. */
#include "../crf/crftest.h"

/* Brute force over the window [a, z] of s for block b, which must occur
 * only at position t0 in (a, z]: g, h (block length, added to) and the
 * window loss. */
static double brute_window(const crfp_crf *crf, const crfp_seq *s, const double *theta,
                           uint32_t a, uint32_t z, uint32_t b, double *g, double *h)
{
    uint32_t Y = crfp_crf_nlabels(crf), W = z - a + 2; /* position a-1 first */
    /* A sequence holding a-1 (no observation: it adds nothing but the
     * label y_{a-1}) then a..z. */
    crfp_seq w;
    memset(&w, 0, sizeof w);
    w.T = W;
    w.uoff = calloc(W + 1, sizeof *w.uoff);
    w.boff = calloc(W + 1, sizeof *w.boff);
    w.uobs = s->uobs;
    w.bobs = s->bobs;
    w.uoff[0] = w.uoff[1] = s->uoff[a];
    w.boff[0] = w.boff[1] = s->boff[a];
    for (uint32_t t = a; t <= z; t++) {
        w.uoff[t - a + 2] = s->uoff[t + 1];
        w.boff[t - a + 2] = s->boff[t + 1];
    }
    /* marginals of the window model: every labelling of a-1..z, weight
     * (1/Y) exp(score) (the uniform y_{a-1}) */
    size_t n = 1;
    for (uint32_t k = 0; k < W; k++)
        n *= Y;
    double *pu = calloc((size_t)W * Y, sizeof *pu), *pp = calloc((size_t)W * Y * Y, sizeof *pp);
    uint32_t y[16] = {0};
    double zsum = 0.0, gold = 0.0;
    for (size_t k = 0; k < n; k++) {
        size_t q = k;
        for (uint32_t t = W; t-- > 0;) {
            y[t] = (uint32_t)(q % Y);
            q /= Y;
        }
        double p = exp(crfp_path_score(crf, &w, theta, y)) / Y;
        zsum += p;
        int isgold = 1;
        for (uint32_t t = 1; t < W; t++)
            isgold &= y[t] == s->y[a + t - 1];
        if (isgold)
            gold += p;
        for (uint32_t t = 1; t < W; t++) {
            pu[(size_t)t * Y + y[t]] += p;
            pp[((size_t)t * Y + y[t - 1]) * Y + y[t]] += p;
        }
    }
    uint64_t ub = crfp_crf_ublock(crf, b), bb = crfp_crf_bblock(crf, b);
    size_t boff = ub != CRFP_NO_BLOCK ? Y : 0;
    for (uint32_t t = a + 1; t <= z; t++) {
        uint32_t wt = t - a + 1;
        double cu = 0, cb = 0;
        for (uint32_t x = s->uoff[t]; x < s->uoff[t + 1]; x++)
            cu += s->uobs[x] == b;
        for (uint32_t x = s->boff[t]; x < s->boff[t + 1]; x++)
            cb += s->bobs[x] == b;
        if (cu > 0 && ub != CRFP_NO_BLOCK) {
            for (uint32_t c = 0; c < Y; c++) {
                double p = pu[(size_t)wt * Y + c] / zsum;
                g[c] += cu * p;
                h[c] += cu * cu * p * (1 - p);
            }
            g[s->y[t]] -= cu;
        }
        if (cb > 0 && bb != CRFP_NO_BLOCK) {
            for (size_t j = 0; j < (size_t)Y * Y; j++) {
                double p = pp[(size_t)wt * Y * Y + j] / zsum;
                g[boff + j] += cb * p;
                h[boff + j] += cb * cb * p * (1 - p);
            }
            g[boff + (size_t)s->y[t - 1] * Y + s->y[t]] -= cb;
        }
    }
    free(pu);
    free(pp);
    free(w.uoff);
    free(w.boff);
    return log(zsum) - log(gold);
}

/* Brute force of the window model for every block that occurs once, in
 * the middle of a sequence of its own. */
static int against_brute_force(int trial)
{
    uint32_t Y = 2 + ct_int(2);
    crfp_crf *crf = ct_model(Y, 25);
    ct_weights(crf, trial % 2 ? 0.5 : 0.0, 0, 1.5);
    crfp_dataset *ds = crfp_dataset_new();
    enum { N = 6 };
    crfp_seq seqs[N];
    for (int i = 0; i < N; i++) {
        ct_seq_make(crf, 7 + ct_int(4), 2, 2, &seqs[i]);
        CHECK(crfp_dataset_add_ids(NULL, ds, &seqs[i]) == CRFP_OK, "add");
    }
    crfp_trainset *ts = NULL;
    CHECK(crfp_trainset_new(NULL, crf, ds, NULL, NULL, 0.0, 0.0, &ts) == CRFP_OK, "ts");
    crfp_tsws *ws;
    CHECK(ts->ws_new(ts->ud, &ws) == CRFP_OK, "ws");
    const double *theta = crfp_crf_weights_const(crf);
    int tested = 0;
    for (size_t b = 0; b < ts->nblocks; b++) {
        const crfp_occ *occ;
        size_t nocc;
        CHECK(ts->occurrences(ts->ud, b, &occ, &nocc) == CRFP_OK, "occurrences");
        if (nocc != 1)
            continue;
        const crfp_seq *s = &seqs[occ[0].seq];
        uint32_t t0 = occ[0].pos;
        for (uint32_t R = 1; R <= 3; R++) {
            /* interior windows only: both boundaries are approximations */
            if (t0 < R + 1 || t0 + R + 1 >= s->T)
                continue;
            size_t len = ts->block_start[b + 1] - ts->block_start[b];
            double *g = calloc(len, sizeof *g), *h = calloc(len, sizeof *h);
            double *bg = calloc(len, sizeof *bg), *bh = calloc(len, sizeof *bh), loss;
            CHECK(ts->block_stats(ws, theta, b, R, g, h, &loss) == CRFP_OK, "block_stats");
            double bl = brute_window(crf, s, theta, t0 - R, t0 + R, (uint32_t)b, bg, bh);
            CHECK(fabs(loss - bl) <= 1e-10 * (1 + fabs(bl)), "block %zu R %u: loss %.15g vs %.15g",
                  b, R, loss, bl);
            for (size_t j = 0; j < len; j++) {
                CHECK(fabs(g[j] - bg[j]) <= 1e-10, "block %zu R %u: g[%zu] %.15g vs %.15g", b, R,
                      j, g[j], bg[j]);
                CHECK(fabs(h[j] - bh[j]) <= 1e-10, "block %zu R %u: h[%zu] %.15g vs %.15g", b, R,
                      j, h[j], bh[j]);
            }
            tested++;
            free(g);
            free(h);
            free(bg);
            free(bh);
        }
    }
    ts->ws_free(ws);
    crfp_trainset_free(ts);
    for (int i = 0; i < N; i++)
        ct_seq_free(&seqs[i]);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
    return tested;
}

/* Large radius = radius 0 bit for bit; small radii approximate it, better
 * as they grow. */
static void against_exact(int trial, double *err_sum)
{
    uint32_t Y = 2 + ct_int(6);
    crfp_crf *crf = ct_model(Y, 30);
    ct_weights(crf, trial % 3 == 0 ? 0.6 : 0.1, 0, 0.7);
    crfp_dataset *ds = crfp_dataset_new();
    enum { N = 10 };
    crfp_seq seqs[N];
    for (int i = 0; i < N; i++) {
        ct_seq_make(crf, 1 + ct_int(40), 3, 2, &seqs[i]);
        CHECK(crfp_dataset_add_ids(NULL, ds, &seqs[i]) == CRFP_OK, "add");
    }
    crfp_trainset *ts = NULL;
    CHECK(crfp_trainset_new(NULL, crf, ds, NULL, NULL, 0.0, 0.0, &ts) == CRFP_OK, "ts");
    crfp_tsws *ws;
    CHECK(ts->ws_new(ts->ud, &ws) == CRFP_OK, "ws");
    const double *theta = crfp_crf_weights_const(crf);
    static const uint32_t radii[] = {1, 2, 4, 8};
    for (size_t b = 0; b < ts->nblocks; b++) {
        size_t len = ts->block_start[b + 1] - ts->block_start[b];
        double *g0 = calloc(len, sizeof *g0), *h0 = calloc(len, sizeof *h0);
        double *g = calloc(len, sizeof *g), *h = calloc(len, sizeof *h), l0, l;
        CHECK(ts->block_stats(ws, theta, b, 0, g0, h0, &l0) == CRFP_OK, "radius 0");
        CHECK(ts->block_stats(ws, theta, b, 40, g, h, &l) == CRFP_OK, "radius 40");
        CHECK(memcmp(g, g0, len * sizeof *g) == 0 && memcmp(h, h0, len * sizeof *h) == 0 &&
                  l == l0, "block %zu: radius 40 differs from radius 0", b);
        /* the loss alone (g = h = NULL) is the same loss */
        for (uint32_t R = 0; R < 4; R++) {
            double la, lb;
            CHECK(ts->block_stats(ws, theta, b, R, g, h, &la) == CRFP_OK &&
                      ts->block_stats(ws, theta, b, R, NULL, NULL, &lb) == CRFP_OK,
                  "loss only");
            CHECK(la == lb, "block %zu radius %u: loss alone %.17g vs %.17g", b, R, lb, la);
        }
        for (size_t r = 0; r < sizeof radii / sizeof *radii; r++) {
            CHECK(ts->block_stats(ws, theta, b, radii[r], g, h, &l) == CRFP_OK, "radius");
            double num = 0.0, den = 1e-12;
            for (size_t j = 0; j < len; j++) {
                num += fabs(g[j] - g0[j]);
                den += fabs(g0[j]);
                CHECK(h[j] >= 0.0, "curvature");
            }
            err_sum[r] += num / den;
        }
        free(g0);
        free(h0);
        free(g);
        free(h);
    }
    ts->ws_free(ws);
    crfp_trainset_free(ts);
    for (int i = 0; i < N; i++)
        ct_seq_free(&seqs[i]);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
}

int main(void)
{
    int tested = 0;
    for (int k = 0; k < 8; k++)
        tested += against_brute_force(k);
    printf("%d windows checked by brute force\n", tested);
    CHECK(tested >= 20, "only %d windows checked by brute force", tested);
    double err[4] = {0};
    for (int k = 0; k < 6; k++)
        against_exact(k, err);
    printf("mean relative gradient error by radius 1, 2, 4, 8: %.3g %.3g %.3g %.3g\n", err[0],
           err[1], err[2], err[3]);
    /* The windows' error must fall as they widen, and be small at 8. */
    CHECK(err[1] < err[0] && err[2] < err[1] && err[3] < err[2], "error not decreasing");
    CHECK(err[3] < 0.05 * err[0], "radius 8 no better than radius 1");
    return test_failures ? 1 : 0;
}
