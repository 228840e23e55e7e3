/* sgd: the lazy cumulative-ℓ1 / exact-ℓ2 updates of the plugin's real step
 * (sgd_step on a toy training set) against a dense reference that applies
 * the same rule to every weight at every step.  After every step, every
 * weight must agree to 1e-12; both must produce exact zeros.
 *
 * The dense reference, written here from the rule in sgd_impl.h and not
 * from the plugin's code: per step with rate eta over a batch of n of N
 * sequences,
 *     a = 1 - eta·rho2·n/N,  c = eta·rho1·n/N
 *     θ ← a·θ − eta·∇(batch loss at θ);  q ← a·q;  u ← a·u + c
 *     for every k: θ_k > 0: θ_k' = max(0, θ_k − (u + q_k)); θ_k < 0:
 *     θ_k' = min(0, θ_k + (u − q_k)); q_k += θ_k' − θ_k.
 */
#include "config.h"
#include "sgd_impl.h"
#include "toyset.h"

typedef struct dense {
    size_t dim;
    double *th, *q, *g, u;
} dense;

static void dense_step(dense *d, const toy *t, const size_t *idx, size_t n, double eta,
                       double rho1, double rho2)
{
    double share = (double)n / (double)t->nseq;
    double a = 1 - eta * rho2 * share, c = eta * rho1 * share;
    toy_dense_grad(t, d->th, idx, n, d->g, NULL);
    d->u = a * d->u + c;
    for (size_t k = 0; k < d->dim; k++) {
        d->th[k] = a * d->th[k] - eta * d->g[k];
        d->q[k] *= a;
        double z = d->th[k];
        if (z > 0) {
            double v = z - (d->u + d->q[k]);
            d->th[k] = v > 0 ? v : 0;
        } else if (z < 0) {
            double v = z + (d->u - d->q[k]);
            d->th[k] = v < 0 ? v : 0;
        }
        d->q[k] += d->th[k] - z;
    }
}

/* Run `steps` steps of batch `batch` with both and compare after each;
 * every `fold` steps the lazy state is folded as at an epoch's end.
 * Returns the largest difference seen. */
static double compare(double rho1, double rho2, size_t batch, int steps, int fold,
                      int warm, int threads, size_t *zeros)
{
    toy t;
    toy_init(&t, 15, 12, rho1, rho2);
    /* With a team, steps of several sequences take the parallel path
     * (parstep.c): the same dense rule must come out. */
    crfp_team *team = NULL;
    if (threads > 1)
        CHECK(crfp_team_new(threads, &team) == CRFP_OK, "team of %d", threads);
    t.ts.team = team;
    double *theta = calloc(t.dim, sizeof *theta), *peek = malloc(t.dim * sizeof *peek);
    dense d = {t.dim, calloc(t.dim, sizeof(double)), calloc(t.dim, sizeof(double)),
               calloc(t.dim, sizeof(double)), 0};
    if (warm)
        for (size_t k = 0; k < t.dim; k++)
            d.th[k] = theta[k] = 2 * toy_unif() - 1;
    crfp_host *host = crfp_host_new();
    sgd_run r;
    crfp_status st = sgd_run_init(&r, host, &t.ts, theta);
    CHECK(st == CRFP_OK, "init: %s", crfp_errmsg(host));
    double worst = 0;
    size_t idx[8];
    for (int s = 0; s < steps && st == CRFP_OK; s++) {
        for (size_t j = 0; j < batch; j++)
            idx[j] = (size_t)(toy_unif() * (double)t.nseq);
        double eta = 0.8 / (1.0 + s / 15.0), loss = 0;
        st = sgd_step(&r, idx, batch, eta, &loss);
        CHECK(st == CRFP_OK, "step %d: %s", s, crfp_errmsg(host));
        dense_step(&d, &t, idx, batch, eta, rho1, rho2);
        if (fold && (s + 1) % fold == 0)
            sgd_lazy_fold(&r.lz, NULL, NULL, NULL);
        for (size_t b = 0; b < t.nblocks; b++)
            sgd_lazy_peek(&r.lz, (uint32_t)b, peek + t.start[b]);
        for (size_t k = 0; k < t.dim; k++) {
            double diff = fabs(peek[k] - d.th[k]);
            if (diff > worst)
                worst = diff;
            CHECK(diff <= 1e-12, "rho1=%g rho2=%g batch=%zu step %d weight %zu: lazy %.17g "
                  "dense %.17g", rho1, rho2, batch, s, k, peek[k], d.th[k]);
        }
    }
    /* After a fold theta itself is the dense iterate. */
    sgd_lazy_fold(&r.lz, NULL, NULL, NULL);
    *zeros = 0;
    for (size_t k = 0; k < t.dim; k++) {
        CHECK(fabs(theta[k] - d.th[k]) <= 1e-12, "after fold: weight %zu: %.17g vs %.17g", k,
              theta[k], d.th[k]);
        *zeros += d.th[k] == 0 && theta[k] == 0;
    }
    CHECK(threads < 2 || batch < 2 || r.par != NULL, "batch %zu on %d threads: no team step",
          batch, threads);
    sgd_run_free(&r);
    crfp_team_free(team);
    crfp_host_free(host);
    free(theta);
    free(peek);
    free(d.th);
    free(d.q);
    free(d.g);
    toy_free(&t);
    return worst;
}

int main(void)
{
    static const struct {
        double rho1, rho2;
        size_t batch;
        int fold, warm, threads;
    } cases[] = {
        {0.6, 0.0, 1, 0, 0, 1},  /* Tsuruoka's algorithm as published */
        {0.6, 0.5, 1, 0, 0, 1},  /* elastic net, one frame throughout */
        {0.6, 0.5, 3, 15, 1, 1}, /* minibatches, epoch folds, warm start */
        {0.0, 0.5, 2, 7, 1, 1},  /* pure ℓ2 (no q vector at all) */
        {2.0, 1.0, 1, 5, 1, 1},  /* heavy penalties: most weights clipped */
        /* steps spread over a team: more members than some batches have
         * sequences, shared blocks summed across members */
        {0.6, 0.5, 3, 15, 1, 2},
        {0.6, 0.0, 8, 0, 0, 3},
        {0.0, 0.5, 5, 7, 1, 4},
        {2.0, 1.0, 2, 5, 1, 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t zeros;
        double worst = compare(cases[c].rho1, cases[c].rho2, cases[c].batch, 200,
                               cases[c].fold, cases[c].warm, cases[c].threads, &zeros);
        printf("rho1=%g rho2=%g batch=%zu fold=%d warm=%d threads=%d: max |lazy - dense| = "
               "%.3g, %zu exact zeros\n",
               cases[c].rho1, cases[c].rho2, cases[c].batch, cases[c].fold, cases[c].warm,
               cases[c].threads, worst, zeros);
        if (cases[c].rho1 > 0)
            CHECK(zeros > 0, "no exact zero with rho1=%g", cases[c].rho1);
    }
    if (test_failures)
        fprintf(stderr, "%d failure(s)\n", test_failures);
    return test_failures ? 1 : 0;
}
