/* The engine's training set (trainset.h): per-sequence gradients sum to the
 * batch gradient, minibatches equal the sum of their sequences, only the
 * listed blocks are written, path features reproduce the path score, block
 * statistics equal the batch gradient's block, a mask freezes parameters,
 * and shrinking keeps exactly the active features. */
#include "crftest.h"

static double rel(double a, double b)
{
    double d = fabs(a - b), m = fmax(fabs(a), fabs(b));
    return m > 1e-300 ? d / m : d;
}

static void trial(int k)
{
    uint32_t Y = 2 + ct_int(5);
    crfp_crf *crf = ct_model(Y, 30);
    ct_weights(crf, k % 2 ? 0.5 : 0.0, 0, 1.0);
    crfp_dataset *ds = crfp_dataset_new();
    enum { N = 9 };
    crfp_seq seqs[N];
    for (int i = 0; i < N; i++) {
        ct_seq_make(crf, 1 + ct_int(8), 3, 2, &seqs[i]);
        CHECK(crfp_dataset_add_ids(NULL, ds, &seqs[i]) == CRFP_OK, "add");
    }
    size_t P = crfp_crf_nparams(crf);
    const double *theta = crfp_crf_weights_const(crf);
    crfp_team *team = NULL;
    CHECK(crfp_team_new(2, &team) == CRFP_OK, "team");
    crfp_trainset *ts = NULL;
    CHECK(crfp_trainset_new(NULL, crf, ds, team, NULL, 0.0, 0.0, &ts) == CRFP_OK, "trainset");
    if (!ts)
        return;
    CHECK(ts->dim == P && ts->nseq == N && ts->block_start[ts->nblocks] == P, "layout");
    double *gb = calloc(P, sizeof *gb), *gs = calloc(P, sizeof *gs), *gm = calloc(P, sizeof *gm);
    double fb = 0;
    CHECK(ts->batch(ts->ud, theta, 0, &fb, gb) == CRFP_OK, "batch");
    crfp_tsws *ws = NULL;
    CHECK(ts->ws_new(ts->ud, &ws) == CRFP_OK, "ws");
    /* Σ_i ∇loss_i = batch gradient, each written only on listed blocks. */
    double fs = 0.0;
    unsigned char *touched = calloc(ts->nblocks, 1);
    for (size_t i = 0; i < N; i++) {
        const uint32_t *bl;
        size_t nb;
        double *gi = calloc(P, sizeof *gi);
        CHECK(ts->seq_grad(ws, theta, &i, 1, 1.0, gi, &fs, &bl, &nb) == CRFP_OK, "seq_grad");
        memset(touched, 0, ts->nblocks);
        for (size_t j = 0; j < nb; j++)
            touched[bl[j]] = 1;
        for (size_t b = 0; b < ts->nblocks; b++)
            for (uint64_t j = ts->block_start[b]; j < ts->block_start[b + 1]; j++) {
                if (!touched[b])
                    CHECK(gi[j] == 0.0, "seq %zu wrote untouched block %zu", i, b);
                gs[j] += gi[j];
            }
        free(gi);
    }
    CHECK(rel(fs, fb) < 1e-12, "loss %.17g vs batch %.17g", fs, fb);
    for (size_t j = 0; j < P; j++)
        CHECK(fabs(gs[j] - gb[j]) <= 1e-12 * fmax(1.0, fabs(gb[j])), "g[%zu] %.17g vs %.17g", j,
              gs[j], gb[j]);
    /* One minibatch of all sequences, with a gain. */
    size_t all[N];
    for (size_t i = 0; i < N; i++)
        all[i] = i;
    const uint32_t *bl;
    size_t nb;
    double fm = 0.0;
    CHECK(ts->seq_grad(ws, theta, all, N, -0.5, gm, &fm, &bl, &nb) == CRFP_OK, "minibatch");
    for (size_t j = 0; j < P; j++)
        CHECK(fabs(-0.5 * gb[j] - gm[j]) <= 1e-12 * fmax(1.0, fabs(gb[j])), "minibatch g[%zu]", j);
    /* Path features reproduce the score of gold and of Viterbi's path; the
     * Viterbi path scores at least as high as gold. */
    for (size_t i = 0; i < N; i++) {
        uint32_t y[16];
        double vs;
        CHECK(ts->viterbi(ws, theta, i, y, &vs) == CRFP_OK, "viterbi");
        const uint64_t *idx;
        const double *val;
        size_t n;
        for (int which = 0; which < 2; which++) {
            CHECK(ts->path_features(ws, i, which ? y : NULL, &idx, &val, &n) == CRFP_OK, "pf");
            double s = 0.0;
            for (size_t j = 0; j < n; j++)
                s += val[j] * theta[idx[j]];
            double want = ct_ref_score(crf, &seqs[i], theta, which ? y : seqs[i].y);
            CHECK(fabs(s - want) <= 1e-12 * fmax(1.0, fabs(want)), "path score %.17g vs %.17g",
                  s, want);
            if (which)
                CHECK(fabs(s - vs) <= 1e-9 * fmax(1.0, fabs(vs)), "viterbi score");
        }
    }
    /* Block statistics (exact) give the batch gradient's block. */
    for (size_t b = 0; b < ts->nblocks; b++) {
        size_t len = ts->block_start[b + 1] - ts->block_start[b];
        double *g = calloc(len + 1, sizeof *g), *h = calloc(len + 1, sizeof *h);
        CHECK(ts->block_stats(ws, theta, b, 0, g, h, NULL) == CRFP_OK, "block_stats");
        for (size_t j = 0; j < len; j++) {
            double want = gb[ts->block_start[b] + j];
            CHECK(fabs(g[j] - want) <= 1e-10 * fmax(1.0, fabs(want)), "block %zu g[%zu]", b, j);
            CHECK(h[j] >= 0.0 && h[j] <= 0.25 * N * 16, "curvature");
        }
        free(g);
        free(h);
    }
    /* Shrinking keeps exactly the non-zero weights; the mask freezes the
     * zeros inside the kept blocks. */
    crfp_crf *small;
    uint32_t *map;
    uint64_t *mask;
    CHECK(crfp_crf_shrink(crf, theta, &small, &map, &mask) == CRFP_OK, "shrink");
    CHECK(crfp_crf_active(small) == crfp_crf_active(crf), "active %zu vs %zu",
          crfp_crf_active(small), crfp_crf_active(crf));
    crfp_dataset *sds;
    CHECK(crfp_dataset_remap(ds, map, &sds) == CRFP_OK, "remap");
    crfp_trainset *sts;
    CHECK(crfp_trainset_new(NULL, small, sds, team, mask, 0.0, 0.0, &sts) == CRFP_OK, "small ts");
    size_t SP = crfp_crf_nparams(small);
    double *sg = calloc(SP + 1, sizeof *sg), fsm;
    CHECK(sts->batch(sts->ud, crfp_crf_weights_const(small), 0, &fsm, sg) == CRFP_OK, "sbatch");
    /* Dropped observations have all-zero weights, so the loss is unchanged. */
    CHECK(rel(fsm, fb) < 1e-12, "shrunk loss %.17g vs %.17g", fsm, fb);
    for (size_t j = 0; j < SP; j++)
        if (!((mask[j >> 6] >> (j & 63)) & 1))
            CHECK(sg[j] == 0.0, "frozen gradient %zu", j);
    free(sg);
    crfp_trainset_free(sts);
    crfp_dataset_free(sds);
    crfp_crf_free(small);
    free(map);
    free(mask);

    free(touched);
    ts->ws_free(ws);
    crfp_trainset_free(ts);
    crfp_team_free(team);
    free(gb);
    free(gs);
    free(gm);
    for (int i = 0; i < N; i++)
        ct_seq_free(&seqs[i]);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
}

int main(void)
{
    /* binary observations, then valued ones (CRFsuite's attribute values) */
    for (ct_valued = 0; ct_valued < 2; ct_valued++)
        for (int k = 0; k < 12; k++)
            trial(k);
    /* A trainer that needs what the set lacks is refused, naming both. */
    crfp_host *h = crfp_host_new();
    crfp_trainset t;
    memset(&t, 0, sizeof t);
    t.caps = CRFP_TS_BATCH;
    CHECK(crfp_trainset_require(h, &t, CRFP_TS_DECODE | CRFP_TS_BATCH, "perceptron") ==
              CRFP_EINVAL, "require");
    CHECK(strstr(crfp_errmsg(h), "'perceptron' needs decode") &&
              strstr(crfp_errmsg(h), "offers only batch"), "message: %s", crfp_errmsg(h));
    crfp_host_free(h);
    return test_failures ? 1 : 0;
}
