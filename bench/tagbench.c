/* tagbench MODEL FILE [READER] — tagging speed of a model on one thread.
 *
 * Prints: model load time; tokens per second for feature extraction plus
 * Viterbi (documents already parsed, the way a pipeline stage sees them);
 * and the time of sparse vs dense forward-backward over the same
 * sequences, the ratio measured in one run. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crfpipe/crfpipe.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int die(crfp_host *h, const char *what)
{
    fprintf(stderr, "tagbench: %s: %s\n", what, crfp_errmsg(h));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tagbench MODEL FILE [READER [COLUMNS]]\n");
        return 2;
    }
    const char *reader = argc > 3 ? argv[3] : "conll_reader";
    const char *columns = argc > 4 ? argv[4] : NULL;
    crfp_host *h = crfp_host_new();
    if (!h)
        return 1;
    double t0 = now();
    crfp_crf *crf;
    if (crfp_crf_load(h, argv[1], &crf) != CRFP_OK)
        return die(h, "load");
    double tload = now() - t0;

    const crfp_plugin *fp, *rp;
    void *ex;
    size_t cfglen;
    const char *cfg = crfp_crf_features_config(crf, &cfglen);
    if (crfp_host_load_kind(h, crfp_crf_features_plugin(crf), CRFP_KIND_FEATURES, &fp) != CRFP_OK)
        return die(h, "features plugin");
    const crfp_features_vtable *fv = fp->desc->vtable;
    t0 = now();
    if (fv->load(h, cfg, cfglen, argv[1], &ex) != CRFP_OK)
        return die(h, "features");
    tload += now() - t0;
    if (crfp_host_load_kind(h, reader, CRFP_KIND_READER, &rp) != CRFP_OK)
        return die(h, "reader");

    /* Parse all documents first: the benchmark is about tagging. */
    crfp_params *rpar = crfp_params_new(rp->desc->params, rp->desc->nparams);
    if (columns && crfp_params_set(h, rpar, "tagbench", "columns", columns, NULL) != CRFP_OK)
        return die(h, "columns");
    crfp_stream in = {fopen(argv[2], "rb"), argv[2]};
    if (!in.fp) {
        perror(argv[2]);
        return 1;
    }
    const crfp_reader_vtable *rv = rp->desc->vtable;
    void *rs;
    if (rv->open(h, rpar, &in, &rs) != CRFP_OK)
        return die(h, "open");
    crfp_doc **docs = NULL;
    size_t ndocs = 0;
    for (;;) {
        crfp_doc *d;
        if (rv->next(rs, &d) != CRFP_OK)
            return die(h, "read");
        if (!d)
            break;
        docs = realloc(docs, (ndocs + 1) * sizeof *docs);
        docs[ndocs++] = d;
    }
    rv->close(rs);
    fclose(in.fp);

    /* Collect each sentence's tokens once so the timed loop sees only
     * extraction and decoding. */
    crfp_sentbuf *sb = crfp_sentbuf_new();
    crfp_obsseq *obs = crfp_obsseq_new();
    crfp_seqbuf *qb = crfp_seqbuf_new();
    crfp_infer *inf = crfp_infer_new(crf);
    crfp_dataset *ds = crfp_dataset_new();
    const double *theta = crfp_crf_weights_const(crf);
    if (inf)
        (void)crfp_infer_fix_theta(inf, theta); /* as the viterbi plugin does */
    uint32_t *y = malloc(100000 * sizeof *y);
    size_t ntok = 0, nsent = 0;
    /* stage times: token table, feature extraction, observation lookup,
     * Viterbi (the best of three runs of each) */
    double best = 1e30, stage[4] = {1e30, 1e30, 1e30, 1e30};
    for (int rep = 0; rep < 3; rep++) {
        double ts = now(), acc[4] = {0, 0, 0, 0};
        ntok = nsent = 0;
        for (size_t d = 0; d < ndocs; d++) {
            crfp_ann **sents;
            size_t ns;
            crfp_doc_sentences(h, docs[d], NULL, &sents, &ns);
            for (size_t s = 0; s < ns; s++) {
                const crfp_tokseq *seq;
                const crfp_seq *q;
                double t0 = now();
                if (crfp_sentbuf_fill(h, sb, docs[d], NULL, sents[s], &seq, NULL) != CRFP_OK)
                    return die(h, "tokens");
                double t1 = now();
                if (fv->extract(ex, seq, obs) != CRFP_OK)
                    return die(h, "features");
                double t2 = now();
                if (crfp_seqbuf_fill(qb, crf, obs, &q) != CRFP_OK)
                    return die(h, "lookup");
                double t3 = now();
                if (crfp_viterbi(inf, q, theta, y, NULL) != CRFP_OK)
                    return die(h, "viterbi");
                double t4 = now();
                acc[0] += t1 - t0, acc[1] += t2 - t1, acc[2] += t3 - t2, acc[3] += t4 - t3;
                if (rep == 0 && crfp_dataset_add(h, ds, crf, obs, NULL, 0) != CRFP_OK)
                    return die(h, "dataset");
                ntok += seq->ntok;
                nsent++;
            }
            free(sents);
        }
        double dt = now() - ts;
        if (dt < best)
            best = dt;
        for (int k = 0; k < 4; k++)
            if (acc[k] < stage[k])
                stage[k] = acc[k];
    }
    printf("model load:        %.3f s (%zu parameters, %zu active, %u observations)\n", tload,
           crfp_crf_nparams(crf), crfp_crf_active(crf), crfp_crf_nobs(crf));
    printf("tagging:           %zu tokens, %zu sentences in %.3f s = %.0f tokens/s (1 thread, "
           "features + Viterbi)\n", ntok, nsent, best, (double)ntok / best);

    printf("  of which:        token table %.3f s, features %.3f s, lookup %.3f s, Viterbi %.3f s\n",
           stage[0], stage[1], stage[2], stage[3]);

    /* Sparse vs dense forward-backward on the same sequences. */
    double tm[3] = {0, 0, 0}, lz[3] = {0, 0, 0};
    for (int mode = 1; mode <= 2; mode++) {
        crfp_infer_set_mode(inf, mode);
        double tbest = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double ts = now(), sum = 0;
            for (size_t i = 0; i < crfp_dataset_size(ds); i++) {
                double logz;
                if (crfp_forward_backward(inf, crfp_dataset_get(ds, i), theta, &logz, NULL) !=
                    CRFP_OK)
                    return die(h, "forward-backward");
                sum += logz;
            }
            double dt = now() - ts;
            if (dt < tbest)
                tbest = dt;
            lz[mode] = sum;
        }
        tm[mode] = tbest;
    }
    printf("forward-backward:  sparse %.3f s, dense %.3f s, dense/sparse = %.2f "
           "(sum log Z %.6f vs %.6f)\n", tm[1], tm[2], tm[2] / tm[1], lz[1], lz[2]);
    return 0;
}
