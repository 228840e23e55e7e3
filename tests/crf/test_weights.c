/* Sequence weights (crfp_dataset_set_weight, the training set's
 * seq_weight).  A dataset whose sequence i weighs an integer k_i must give,
 * for everything a trainer asks of the training set, what the dataset
 * holding sequence i k_i times (0: left out) gives: the batch loss and
 * gradient, minibatch gradients (dense and packed), block statistics
 * exact and windowed, Hessian-vector products and the Hessian diagonal.
 * The two go through different code: a weight other than 1 turns off the
 * deferred low-rank gradient of one-observation positions, and the copies
 * keep it.  With fractional weights the batch loss is Σ_i w_i·loss_i by
 * brute force over every labelling, and its gradient matches finite
 * differences.  crfp_dataset_remap keeps the weights; weights outside
 * [0, CRFP_MAX_SEQ_WEIGHT] are refused and change nothing. */
#include "crftest.h"

/* log Σ_y exp(score(y)) by enumeration, with the maximum factored out */
typedef struct lse {
    double m, s;
} lse;

static void lse_visit(void *ud, const uint32_t *y, double score)
{
    (void)y;
    lse *a = ud;
    if (score > a->m) {
        a->s = a->s * exp(a->m - score) + 1.0;
        a->m = score;
    } else {
        a->s += exp(score - a->m);
    }
}

static double brute_loss(const crfp_crf *crf, const crfp_seq *s, const double *theta)
{
    lse a = {-INFINITY, 0.0};
    ct_enumerate(crf, s, theta, lse_visit, &a);
    return a.m + log(a.s) - ct_ref_score(crf, s, theta, s->y);
}

static int close_vec(const double *a, const double *b, size_t n, double tol, const char *what,
                     int k)
{
    for (size_t j = 0; j < n; j++)
        if (!ct_close(a[j], b[j], tol)) {
            CHECK(0, "trial %d: %s[%zu]: weighted %.17g, copies %.17g", k, what, j, a[j], b[j]);
            return 0;
        }
    return 1;
}

static crfp_trainset *new_ts(const crfp_crf *crf, const crfp_dataset *ds, crfp_team *team,
                             double rho2)
{
    crfp_trainset *ts = NULL;
    CHECK(crfp_trainset_new(NULL, crf, ds, team, NULL, 0.0, rho2, &ts) == CRFP_OK, "trainset");
    return ts;
}

/* Integer weights against copies. */
static void copies_trial(int k, crfp_team *team)
{
    uint32_t Y = 2 + ct_int(4);
    crfp_crf *crf = ct_model(Y, 12);
    ct_weights(crf, 0.3, 0, 1.5);
    const double *theta = crfp_crf_weights_const(crf);
    size_t P = crfp_crf_nparams(crf);
    enum { N = 10 };
    crfp_seq seqs[N];
    crfp_dataset *W = crfp_dataset_new(), *D = crfp_dataset_new();
    unsigned kw[N];
    for (int i = 0; i < N; i++) {
        ct_seq_make(crf, 1 + ct_int(9), 3, 2, &seqs[i]);
        kw[i] = i == 0 ? 1 : ct_int(4); /* 0 to 3 */
        CHECK(crfp_dataset_add_ids(NULL, W, &seqs[i]) == CRFP_OK, "add");
        CHECK(crfp_dataset_set_weight(NULL, W, (size_t)i, kw[i]) == CRFP_OK, "set weight");
        for (unsigned c = 0; c < kw[i]; c++)
            CHECK(crfp_dataset_add_ids(NULL, D, &seqs[i]) == CRFP_OK, "add copy");
    }
    size_t nw = 0;
    for (int i = 0; i < N; i++)
        nw += kw[i] != 1;
    CHECK(crfp_dataset_weighted(W) == nw && crfp_dataset_weighted(D) == 0, "weighted count");
    double rho2 = k % 2 ? 0.7 : 0.0;
    crfp_trainset *tw = new_ts(crf, W, team, rho2), *td = new_ts(crf, D, team, rho2);
    if (!tw || !td)
        goto out;
    CHECK(CRFP_TS_HAS(tw, seq_weight), "no seq_weight member");
    for (size_t i = 0; i < N; i++)
        CHECK(tw->seq_weight(tw->ud, i) == kw[i] && td->seq_weight(td->ud, 0) == 1.0,
              "seq_weight(%zu)", i);
    double *a = calloc(P, sizeof *a), *b = calloc(P, sizeof *b), *v = calloc(P, sizeof *v);
    double fa, fb;
    /* batch, with and without ℓ2 */
    for (int l2 = 0; l2 < 2; l2++) {
        CHECK(tw->batch(tw->ud, theta, l2, &fa, a) == CRFP_OK &&
                  td->batch(td->ud, theta, l2, &fb, b) == CRFP_OK, "batch");
        CHECK(ct_close(fa, fb, 1e-12), "trial %d: batch loss %.17g, copies %.17g", k, fa, fb);
        close_vec(a, b, P, 1e-11, "batch gradient", k);
    }
    /* every sequence as one minibatch: the copies' indices list each copy */
    size_t idxw[N], idxd[3 * N], nd = 0;
    for (size_t i = 0; i < N; i++)
        idxw[i] = i;
    for (size_t i = 0; i < crfp_dataset_size(D); i++)
        idxd[nd++] = i;
    crfp_tsws *ww = NULL, *wd = NULL;
    CHECK(tw->ws_new(tw->ud, &ww) == CRFP_OK && td->ws_new(td->ud, &wd) == CRFP_OK, "ws");
    const uint32_t *bl;
    size_t nbl;
    double la = 0, lb = 0;
    memset(a, 0, P * sizeof *a);
    memset(b, 0, P * sizeof *b);
    CHECK(tw->seq_grad(ww, theta, idxw, N, 0.5, a, &la, &bl, &nbl) == CRFP_OK &&
              td->seq_grad(wd, theta, idxd, nd, 0.5, b, &lb, &bl, &nbl) == CRFP_OK,
          "seq_grad");
    CHECK(ct_close(la, lb, 1e-12), "trial %d: minibatch loss %.17g, copies %.17g", k, la, lb);
    close_vec(a, b, P, 1e-11, "minibatch gradient", k);
    /* each sequence alone against the sum of its copies' gradients */
    for (size_t i = 0, c0 = 0; i < N; c0 += kw[i], i++) {
        const double *pk;
        la = lb = 0;
        memset(b, 0, P * sizeof *b);
        CHECK(tw->seq_grad_sparse(ww, theta, &i, 1, &bl, &nbl, &pk, &la) == CRFP_OK,
              "seq_grad_sparse");
        memset(a, 0, P * sizeof *a);
        for (size_t j = 0; j < nbl; j++) {
            uint64_t s0 = tw->block_start[bl[j]], s1 = tw->block_start[bl[j] + 1];
            memcpy(a + s0, pk, (s1 - s0) * sizeof *a);
            pk += s1 - s0;
        }
        for (size_t c = 0; c < kw[i]; c++) {
            size_t q = c0 + c;
            CHECK(td->seq_grad(wd, theta, &q, 1, 1.0, b, &lb, &bl, &nbl) == CRFP_OK, "seq_grad");
        }
        CHECK(ct_close(la, lb, 1e-12), "trial %d: sequence %zu loss %.17g, copies %.17g", k, i,
              la, lb);
        close_vec(a, b, P, 1e-11, "packed sequence gradient", k);
    }
    /* block statistics, exact (radius 0) and windowed */
    for (uint32_t radius = 0; radius < 3; radius += 2)
        for (size_t blk = 0; blk < tw->nblocks; blk++) {
            size_t len = tw->block_start[blk + 1] - tw->block_start[blk];
            double *ga = calloc(len, sizeof *ga), *ha = calloc(len, sizeof *ha);
            double *gb = calloc(len, sizeof *gb), *hb = calloc(len, sizeof *hb);
            CHECK(tw->block_stats(ww, theta, blk, radius, ga, ha, &la) == CRFP_OK &&
                      td->block_stats(wd, theta, blk, radius, gb, hb, &lb) == CRFP_OK,
                  "block_stats");
            CHECK(ct_close(la, lb, 1e-12), "trial %d: block %zu radius %u loss %.17g, copies "
                  "%.17g", k, blk, radius, la, lb);
            close_vec(ga, gb, len, 1e-11, "block gradient", k);
            close_vec(ha, hb, len, 1e-11, "block curvature", k);
            free(ga);
            free(ha);
            free(gb);
            free(hb);
        }
    /* Hessian-vector product and diagonal */
    for (size_t j = 0; j < P; j++)
        v[j] = 2.0 * ct_unif() - 1.0;
    CHECK(tw->hessvec(tw->ud, theta, v, 1, a) == CRFP_OK &&
              td->hessvec(td->ud, theta, v, 1, b) == CRFP_OK, "hessvec");
    close_vec(a, b, P, 1e-11, "Hv", k);
    CHECK(tw->hessdiag(tw->ud, theta, 1, a) == CRFP_OK &&
              td->hessdiag(td->ud, theta, 1, b) == CRFP_OK, "hessdiag");
    close_vec(a, b, P, 1e-11, "Hessian diagonal", k);
    tw->ws_free(ww);
    td->ws_free(wd);
    free(a);
    free(b);
    free(v);
out:
    crfp_trainset_free(tw);
    crfp_trainset_free(td);
    crfp_dataset_free(W);
    crfp_dataset_free(D);
    for (int i = 0; i < N; i++)
        ct_seq_free(&seqs[i]);
    crfp_crf_free(crf);
}

/* Fractional weights: brute force, finite differences, remap, refusals. */
static void fraction_trial(int k, crfp_team *team)
{
    static const double pick[] = {0.0, 0.25, 1.0, 1.5, 3.75, 0.1};
    uint32_t Y = 2 + ct_int(3);
    crfp_crf *crf = ct_model(Y, 10);
    ct_weights(crf, 0.2, 0, 1.0);
    double *theta = crfp_crf_weights(crf);
    size_t P = crfp_crf_nparams(crf);
    enum { N = 6 };
    crfp_seq seqs[N];
    double w[N], want = 0.0;
    crfp_dataset *W = crfp_dataset_new();
    for (int i = 0; i < N; i++) {
        ct_seq_make(crf, 1 + ct_int(5), 3, 2, &seqs[i]);
        w[i] = pick[ct_int(6)];
        CHECK(crfp_dataset_add_ids(NULL, W, &seqs[i]) == CRFP_OK, "add");
        CHECK(crfp_dataset_set_weight(NULL, W, (size_t)i, w[i]) == CRFP_OK, "set weight");
        want += w[i] * brute_loss(crf, &seqs[i], theta);
    }
    /* refused, unchanged */
    const double bad[] = {-1.0, NAN, INFINITY, 2 * CRFP_MAX_SEQ_WEIGHT};
    for (int j = 0; j < 4; j++)
        CHECK(crfp_dataset_set_weight(NULL, W, 0, bad[j]) == CRFP_EINVAL &&
                  crfp_dataset_weight(W, 0) == w[0], "weight %g accepted", bad[j]);
    CHECK(crfp_dataset_set_weight(NULL, W, N, 1.0) == CRFP_EINVAL, "weight of no sequence");
    /* remap with the identity keeps every weight */
    uint32_t *map = malloc(crfp_crf_nobs(crf) * sizeof *map);
    for (uint32_t o = 0; o < crfp_crf_nobs(crf); o++)
        map[o] = o;
    crfp_dataset *R = NULL;
    CHECK(crfp_dataset_remap(W, map, &R) == CRFP_OK, "remap");
    for (size_t i = 0; R && i < N; i++)
        CHECK(crfp_dataset_weight(R, i) == w[i], "remap lost weight %zu", i);
    crfp_dataset_free(R);
    free(map);
    crfp_trainset *ts = new_ts(crf, W, team, 0.0);
    if (ts) {
        double f, *g = calloc(P, sizeof *g), *g2 = calloc(P, sizeof *g2);
        CHECK(ts->batch(ts->ud, theta, 0, &f, g) == CRFP_OK, "batch");
        CHECK(ct_close(f, want, 1e-11), "trial %d: loss %.17g, brute force %.17g", k, f, want);
        for (size_t j = 0; j < P; j++) {
            const double h = 1e-5, t0 = theta[j];
            double fp, fm;
            theta[j] = t0 + h;
            CHECK(ts->batch(ts->ud, theta, 0, &fp, g2) == CRFP_OK, "batch");
            theta[j] = t0 - h;
            CHECK(ts->batch(ts->ud, theta, 0, &fm, g2) == CRFP_OK, "batch");
            theta[j] = t0;
            double fd = (fp - fm) / (2 * h);
            CHECK(fabs(fd - g[j]) < 1e-6 * (1 + fabs(g[j])), "trial %d: d/dθ[%zu] %.10g, "
                  "finite differences %.10g", k, j, g[j], fd);
        }
        free(g);
        free(g2);
    }
    crfp_trainset_free(ts);
    crfp_dataset_free(W);
    for (int i = 0; i < N; i++)
        ct_seq_free(&seqs[i]);
    crfp_crf_free(crf);
}

int main(void)
{
    crfp_team *team = NULL;
    if (crfp_team_new(2, &team) != CRFP_OK)
        return 99;
    for (int k = 0; k < 40; k++) {
        ct_valued = k % 3 == 2;
        copies_trial(k, team);
    }
    for (int k = 0; k < 20; k++) {
        ct_valued = k % 2;
        fraction_trial(k, team);
    }
    crfp_team_free(team);
    printf("test_weights: 40 trials against copies, 20 against brute force: %d failures\n",
           test_failures);
    return test_failures ? 1 : 0;
}
