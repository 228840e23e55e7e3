/* The training objective: f against brute force, ∇f against central finite
 * differences (with rho2 > 0), and the same f and ∇f with 1, 2 and 3
 * threads, in sparse and dense modes. */
#include "crftest.h"

typedef struct lse {
    double mx, z;
    int pass;
} lse;

static void visit(void *ud, const uint32_t *y, double score)
{
    (void)y;
    lse *l = ud;
    if (l->pass == 0)
        l->mx = score > l->mx ? score : l->mx;
    else
        l->z += exp(score - l->mx);
}

static double brute_f(const crfp_crf *crf, crfp_seq *seqs, int n, const double *theta, double rho2)
{
    double f = 0.0;
    for (int i = 0; i < n; i++) {
        lse l = {-INFINITY, 0.0, 0};
        ct_enumerate(crf, &seqs[i], theta, visit, &l);
        l.pass = 1;
        ct_enumerate(crf, &seqs[i], theta, visit, &l);
        f += l.mx + log(l.z) - ct_ref_score(crf, &seqs[i], theta, seqs[i].y);
    }
    double sq = 0.0;
    for (size_t j = 0; j < crfp_crf_nparams(crf); j++)
        sq += theta[j] * theta[j];
    return f + 0.5 * rho2 * sq;
}

static void fd_trial(int trial)
{
    uint32_t Y = 2 + ct_int(3);
    crfp_crf *crf = ct_model(Y, 5);
    ct_weights(crf, trial % 2 ? 0.5 : 0.0, 0, 1.0);
    crfp_dataset *ds = crfp_dataset_new();
    crfp_seq seqs[4];
    for (int i = 0; i < 4; i++) {
        ct_seq_make(crf, 1 + ct_int(5), 3, 2, &seqs[i]);
        CHECK(crfp_dataset_add_ids(NULL, ds, &seqs[i]) == CRFP_OK, "add");
    }
    const double rho2 = 0.3;
    size_t P = crfp_crf_nparams(crf);
    double *theta = malloc(P * sizeof(double)), *g = malloc(P * sizeof(double));
    double *g2 = malloc(P * sizeof(double));
    memcpy(theta, crfp_crf_weights_const(crf), P * sizeof(double));
    crfp_crfobj *obj;
    CHECK(crfp_crfobj_new(NULL, crf, ds, NULL, rho2, &obj) == CRFP_OK, "obj");
    for (int mode = 0; mode <= 2; mode++) {
        crfp_crfobj_set_mode(obj, mode);
        double f;
        CHECK(crfp_crfobj_eval(obj, theta, &f, g) == CRFP_OK, "eval");
        double fb = brute_f(crf, seqs, 4, theta, rho2);
        CHECK(ct_close(f, fb, 1e-10), "trial %d f %.17g brute %.17g", trial, f, fb);
        for (size_t j = 0; j < P; j++) {
            const double h = 1e-5, keep = theta[j];
            double fp, fm;
            theta[j] = keep + h;
            CHECK(crfp_crfobj_eval(obj, theta, &fp, g2) == CRFP_OK, "eval+");
            theta[j] = keep - h;
            CHECK(crfp_crfobj_eval(obj, theta, &fm, g2) == CRFP_OK, "eval-");
            theta[j] = keep;
            double fd = (fp - fm) / (2 * h);
            CHECK(fabs(fd - g[j]) <= 1e-6 * (1.0 + fabs(g[j])),
                  "trial %d mode %d param %zu: analytic %.12g finite difference %.12g", trial,
                  mode, j, g[j], fd);
        }
    }
    crfp_crfobj_free(obj);
    free(theta);
    free(g);
    free(g2);
    for (int i = 0; i < 4; i++)
        ct_seq_free(&seqs[i]);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
}

/* Threads only change the order of summation between sequences. */
static void thread_trial(int trial, double pzero)
{
    uint32_t Y = 3 + ct_int(8);
    crfp_crf *crf = ct_model(Y, 40);
    ct_weights(crf, pzero, 0, 1.0);
    crfp_dataset *ds = crfp_dataset_new();
    for (int i = 0; i < 37; i++) {
        crfp_seq s;
        ct_seq_make(crf, 1 + ct_int(30), 5, 2, &s);
        CHECK(crfp_dataset_add_ids(NULL, ds, &s) == CRFP_OK, "add");
        ct_seq_free(&s);
    }
    size_t P = crfp_crf_nparams(crf);
    const double *theta = crfp_crf_weights_const(crf);
    double *g1 = malloc(P * sizeof(double)), *gn = malloc(P * sizeof(double));
    double f1 = 0.0;
    for (int nt = 1; nt <= 3; nt++) {
        crfp_crfobj *obj;
        crfp_team *tm = NULL;
        CHECK(crfp_team_new(nt, &tm) == CRFP_OK, "team");
        CHECK(crfp_crfobj_new(NULL, crf, ds, tm, 0.1, &obj) == CRFP_OK, "obj");
        crfp_crfobj_set_mode(obj, trial % 3);
        double f;
        /* Evaluate twice: the pool must be reusable and θ-independent caches
         * must not leak between evaluations. */
        for (int rep = 0; rep < 2; rep++) {
            CHECK(crfp_crfobj_eval(obj, theta, &f, nt == 1 ? g1 : gn) == CRFP_OK, "eval");
            if (nt == 1 && rep == 0)
                f1 = f;
            CHECK(ct_close(f, f1, 1e-9), "threads %d: f %.17g vs %.17g", nt, f, f1);
            if (nt > 1)
                for (size_t j = 0; j < P; j++)
                    CHECK(fabs(gn[j] - g1[j]) <= 1e-9 * (1.0 + fabs(g1[j])), "threads %d g[%zu]",
                          nt, j);
        }
        crfp_crfobj_free(obj);
        crfp_team_free(tm);
    }
    free(g1);
    free(gn);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
}

/* Enough positions with one bigram observation for the gradient's records
 * of them (lowrank.c) to fill, drain while forward-backward is under way,
 * and grow (thousands of observations, so few records per observation),
 * next to positions of several observations (setgrad.c) and of none: the
 * gradient must equal expected minus gold counts built from the public
 * marginals, sequence by sequence, in every mode and with and without the
 * vector kernels. */
static void marginal_trial(int trial)
{
    const uint32_t Y = 4 + ct_int(4), nobs = 3000;
    crfp_crf *crf = ct_model(Y, nobs);
    ct_weights(crf, trial % 2 ? 0.9 : 0.0, 0, 1.0);
    crfp_dataset *ds = crfp_dataset_new();
    const int nseq = 1500;
    crfp_seq *seqs = calloc(nseq, sizeof *seqs);
    for (int i = 0; i < nseq; i++) {
        ct_seq_make(crf, 1 + ct_int(50), 3, i % 3 ? 1 : 3, &seqs[i]);
        CHECK(crfp_dataset_add_ids(NULL, ds, &seqs[i]) == CRFP_OK, "add");
    }
    const double rho2 = 0.2;
    const size_t P = crfp_crf_nparams(crf), YY = (size_t)Y * Y;
    const double *theta = crfp_crf_weights_const(crf);
    double *ref = calloc(P, sizeof *ref), *g = malloc(P * sizeof *g);
    crfp_infer *w = crfp_infer_new(crf);
    uint32_t Tmax = 0;
    for (int i = 0; i < nseq; i++)
        Tmax = seqs[i].T > Tmax ? seqs[i].T : Tmax;
    double *marg = malloc((size_t)Tmax * Y * sizeof *marg);
    double *pair = malloc((size_t)Tmax * (Y + 1) * Y * sizeof *pair);
    double fref = 0.0;
    for (int i = 0; i < nseq; i++) {
        const crfp_seq *s = &seqs[i];
        double logz;
        CHECK(crfp_forward_backward(w, s, theta, &logz, marg) == CRFP_OK, "fb");
        CHECK(crfp_pair_marginals(w, s, theta, pair) == CRFP_OK, "pairs");
        fref += logz - ct_ref_score(crf, s, theta, s->y);
        for (uint32_t t = 0; t < s->T; t++) {
            for (uint32_t k = s->uoff[t]; k < s->uoff[t + 1]; k++) {
                double *gu = ref + crfp_crf_ublock(crf, s->uobs[k]);
                const double x = s->uval ? s->uval[k] : 1.0;
                for (uint32_t y = 0; y < Y; y++)
                    gu[y] += x * marg[(size_t)t * Y + y];
                gu[s->y[t]] -= x;
            }
            const double *pt = pair + (size_t)t * (Y + 1) * Y;
            const uint32_t prev = t ? s->y[t - 1] : Y;
            for (uint32_t k = s->boff[t]; k < s->boff[t + 1]; k++) {
                double *gb = ref + crfp_crf_bblock(crf, s->bobs[k]);
                for (size_t j = 0; j < YY + Y; j++)
                    gb[j] += pt[j];
                gb[(size_t)prev * Y + s->y[t]] -= 1.0;
            }
        }
    }
    for (size_t j = 0; j < P; j++) {
        ref[j] += rho2 * theta[j];
        fref += 0.5 * rho2 * theta[j] * theta[j];
    }
    for (int mode = 0; mode <= 2; mode++)
        for (int simd = 0; simd <= 1; simd++) {
            /* a new objective each time: its first evaluation fills the
             * records and grows them, the second starts grown */
            crfp_crfobj *obj;
            CHECK(crfp_crfobj_new(NULL, crf, ds, NULL, rho2, &obj) == CRFP_OK, "obj");
            crfp_crfobj_set_mode(obj, mode);
            crfp_crfobj_set_simd(obj, simd);
            /* twice: the second evaluation starts with the grown records */
            for (int rep = 0; rep < 2; rep++) {
                double f;
                CHECK(crfp_crfobj_eval(obj, theta, &f, g) == CRFP_OK, "eval");
                CHECK(ct_close(f, fref, 1e-11), "trial %d: f %.17g vs %.17g", trial, f, fref);
                size_t bad = 0;
                for (size_t j = 0; j < P; j++)
                    if (fabs(g[j] - ref[j]) > 1e-9 * (1.0 + fabs(ref[j])) && bad++ < 3)
                        CHECK(0, "trial %d mode %d simd %d rep %d g[%zu] %.17g vs %.17g", trial,
                              mode, simd, rep, j, g[j], ref[j]);
            }
            crfp_crfobj_free(obj);
        }
    crfp_infer_free(w);
    free(marg);
    free(pair);
    free(ref);
    free(g);
    for (int i = 0; i < nseq; i++)
        ct_seq_free(&seqs[i]);
    free(seqs);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
}

int main(void)
{
    ct_rng = 0xabcdef0123456789ULL;
    /* binary observations, then valued ones (CRFsuite's attribute values) */
    for (ct_valued = 0; ct_valued < 2; ct_valued++) {
        for (int trial = 0; trial < 6; trial++)
            fd_trial(trial);
        for (int trial = 0; trial < 6; trial++)
            thread_trial(trial, trial % 2 ? 0.8 : 0.0);
        for (int trial = 0; trial < 2; trial++)
            marginal_trial(trial);
    }
    /* An unlabelled sequence is refused with a message, not a crash. */
    crfp_crf *crf = ct_model(3, 4);
    crfp_dataset *ds = crfp_dataset_new();
    crfp_seq s;
    ct_seq_make(crf, 3, 2, 1, &s);
    free(s.y);
    s.y = NULL;
    crfp_dataset_add_ids(NULL, ds, &s);
    crfp_crfobj *obj = NULL;
    CHECK(crfp_crfobj_new(NULL, crf, ds, NULL, 0.0, &obj) == CRFP_EINVAL && !obj, "unlabelled");
    ct_seq_free(&s);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
    if (test_failures)
        fprintf(stderr, "%d failures\n", test_failures);
    return test_failures ? 1 : 0;
}
