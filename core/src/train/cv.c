/* Cross-validation (the common trainer parameter cv-folds; see trainrun.h
 * and crfp_train_finish in train.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainrun.h"
#include "crfpipe/chunks.h"
#include "dist.h"

/* The cv-folds value of a run (0 when absent). */
int64_t crfp_train_cv_folds(const crfp_train_stage *stages, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (crfp_params_isset(stages[k].params, "cv-folds"))
            return crfp_params_int(stages[k].params, "cv-folds");
    return 0;
}

/* The cv-split value of a run: 1 for interleaved, 0 for blocks, -1 for
 * neither. */
static int cv_interleaved(const crfp_train_stage *stages, size_t n)
{
    const char *v = NULL;
    for (size_t k = 0; k < n && !v; k++)
        if (crfp_params_isset(stages[k].params, "cv-split"))
            v = crfp_params_str(stages[k].params, "cv-split");
    if (!v || strcmp(v, "blocks") == 0)
        return 0;
    return strcmp(v, "interleaved") == 0 ? 1 : -1;
}

/* The first sentence of block f of n sentences cut into K (f <= K):
 * floor(f n / K), as bench/tune.sh cut its folds by hand, computed without
 * forming f n: f (n mod K) < K^2 stays far below the range of size_t. */
static size_t block_start(size_t f, size_t n, size_t K)
{
    return f * (n / K) + f * (n % K) / K;
}

/* Whether a cross-validation can run with these stages, before any data is
 * read (the upper bound on K, the number of sentences, is checked after). */
crfp_status crfp_train_check_cv(crfp_host *host, const crfp_train_stage *stages, size_t n)
{
    int64_t k = crfp_train_cv_folds(stages, n);
    if (cv_interleaved(stages, n) < 0)
        return crfp_error(host, CRFP_EINVAL, "cv-split must be blocks or interleaved");
    if (k == 0)
        return CRFP_OK;
    if (k < 2)
        return crfp_error(host, CRFP_EINVAL, "cv-folds must be 0 (none) or at least 2, not %lld",
                          (long long)k);
    for (size_t i = 0; i < n; i++) {
        const crfp_params *sp = stages[i].params;
        if (crfp_params_isset(sp, "rho1-path"))
            return crfp_error(host, CRFP_EINVAL, "cv-folds and rho1-path exclude each other: "
                              "cross-validate one rho1 at a time");
        if (crfp_params_isset(sp, "checkpoint") || crfp_params_isset(sp, "resume"))
            return crfp_error(host, CRFP_EINVAL, "checkpoints are not available with cv-folds");
        if (crfp_params_isset(sp, "init-model"))
            /* a warm start interns the old model's labels and observations
             * first, which a fold's own model (fold_model) does not */
            return crfp_error(host, CRFP_EINVAL, "cv-folds does not warm-start (init-model): "
                              "each fold's model is built from its own sentences");
    }
    if (crfp_dist_size() > 1)
        return crfp_error(host, CRFP_EINVAL, "cv-folds does not run in a distributed job yet: "
                          "run it in one process");
    return CRFP_OK;
}

/* A fold's own model: the labels and observations its training sentences
 * hold, interned in the order those sentences first show them (labels token
 * by token; a token's unigram observations, then its bigram ones), as a run
 * on those sentences alone would intern them.  So a label or observation
 * that only the held-out fold (or the dev set) has is unknown to the fold's
 * model, as it would be to a model trained on the other folds; an earlier
 * version kept the whole data's labels, and a label of the held-out fold
 * alone then took part in every normalisation.  *omap and *lmap (caller
 * frees) give each observation and label of `full` its id in *out, or
 * UINT32_MAX; *tofull each label of *out its id in `full`.  The weights
 * start as `start` (the whole model's starting weights), block by block.
 * Errors: CRFP_ENOMEM, those of the model. */
static crfp_status fold_model(crfp_trainrun *r, const crfp_crf *full, const crfp_dataset *tr,
                              const double *start, crfp_crf **out, uint32_t **omap,
                              uint32_t **lmap, uint32_t **tofull)
{
    crfp_host *host = r->host;
    uint32_t nobs = crfp_crf_nobs(full), Y = crfp_crf_nlabels(full);
    /* min-freq counts in the fold's training sentences, as a run on them
     * alone would (the whole model was cut by the counts of all of them) */
    uint64_t *keep = NULL;
    size_t nkept;
    double minfreq;
    int by_label[2];
    if (crfp_train_min_freq_cuts(r, &minfreq, by_label)) {
        crfp_status st = crfp_train_frequent(host, tr, nobs, minfreq, by_label, 0, 0, &keep,
                                             &nkept);
        if (st != CRFP_OK)
            return st;
    }
    crfp_crf *fc = crfp_crf_new();
    uint32_t *om = malloc(((size_t)nobs + 1) * sizeof *om),
             *lm = malloc(((size_t)Y + 1) * sizeof *lm), *tf = malloc(((size_t)Y + 1) * sizeof *tf);
    size_t flen;
    const char *fconf = crfp_crf_features_config(full, &flen);
    crfp_status st = fc && om && lm && tf ? CRFP_OK : CRFP_ENOMEM;
    if (st == CRFP_OK && crfp_crf_features_plugin(full))
        st = crfp_crf_set_features(fc, crfp_crf_features_plugin(full), fconf, flen);
    for (uint32_t o = 0; o < nobs && om; o++)
        om[o] = UINT32_MAX;
    for (uint32_t l = 0; l < Y && lm; l++)
        lm[l] = UINT32_MAX;
    for (size_t i = 0; st == CRFP_OK && i < crfp_dataset_size(tr); i++) {
        const crfp_seq *q = crfp_dataset_get(tr, i);
        for (uint32_t t = 0; st == CRFP_OK && t < q->T; t++) {
            if (lm[q->y[t]] == UINT32_MAX) {
                st = crfp_crf_add_label(fc, crfp_crf_label(full, q->y[t]), &lm[q->y[t]]);
                if (st == CRFP_OK)
                    tf[lm[q->y[t]]] = q->y[t];
            }
            for (int kind = 0; kind < 2 && st == CRFP_OK; kind++) {
                const uint32_t *ids = kind ? q->bobs : q->uobs, *off = kind ? q->boff : q->uoff;
                for (uint32_t j = off[t]; j < off[t + 1] && st == CRFP_OK; j++) {
                    if (keep && !((keep[ids[j] >> 6] >> (ids[j] & 63)) & 1u))
                        continue;
                    size_t len;
                    const char *name = crfp_crf_obs(full, ids[j], &len);
                    st = crfp_crf_add_obs(fc, name, len, kind ? CRFP_OBS_BIGRAM : CRFP_OBS_UNIGRAM,
                                          &om[ids[j]]);
                }
            }
        }
    }
    if (st == CRFP_OK)
        st = crfp_crf_finalize(fc);
    if (st == CRFP_OK) {
        /* the starting weights, row by row: the start row is the last one
         * of a bigram block in both layouts */
        uint32_t Yf = crfp_crf_nlabels(fc);
        double *w = crfp_crf_weights(fc);
        for (uint32_t o = 0; o < nobs; o++) {
            if (om[o] == UINT32_MAX)
                continue;
            uint64_t u = crfp_crf_ublock(full, o), uf = crfp_crf_ublock(fc, om[o]),
                     b = crfp_crf_bblock(full, o), bf = crfp_crf_bblock(fc, om[o]);
            for (uint32_t y = 0; y < Yf; y++) {
                if (u != CRFP_NO_BLOCK && uf != CRFP_NO_BLOCK)
                    w[uf + y] = start[u + tf[y]];
                for (uint32_t p = 0; b != CRFP_NO_BLOCK && bf != CRFP_NO_BLOCK && p <= Yf; p++)
                    w[bf + (size_t)p * Yf + y] =
                        start[b + (size_t)(p == Yf ? Y : tf[p]) * Y + tf[y]];
            }
        }
    }
    free(keep);
    if (st != CRFP_OK) {
        crfp_crf_free(fc);
        free(om);
        free(lm);
        free(tf);
        return st == CRFP_ENOMEM ? crfp_error(host, st, "out of memory building a fold's model")
                                 : st;
    }
    *out = fc;
    *omap = om;
    *lmap = lm;
    *tofull = tf;
    return CRFP_OK;
}

/* Room for n labels in *y (*cap of them now).  Errors: CRFP_ENOMEM. */
static crfp_status room(uint32_t **y, size_t *cap, size_t n)
{
    if (n <= *cap)
        return CRFP_OK;
    uint32_t *ny = realloc(*y, n * sizeof *ny);
    if (!ny)
        return CRFP_ENOMEM;
    *y = ny;
    *cap = n;
    return CRFP_OK;
}

/* `ds` in the ids of a fold's model: observations through omap (unknown
 * ones leave their tokens) and, with lmap, labels too; a sentence with a
 * label the fold's model lacks is left out and counted in *dropped (a dev
 * sentence, as the dev set of a run on the fold alone would skip it).
 * Without lmap the labels stay the whole model's (the held-out fold:
 * scored against its own gold labels).  Errors: CRFP_ENOMEM. */
static crfp_status fold_data(const crfp_dataset *ds, const uint32_t *omap, const uint32_t *lmap,
                             crfp_dataset **out, size_t *dropped)
{
    crfp_dataset *ob;
    crfp_status st = crfp_dataset_remap(ds, omap, &ob);
    if (st != CRFP_OK || !lmap) {
        *out = st == CRFP_OK ? ob : NULL;
        return st;
    }
    /* Relabelled in place, the remapped copy being ours; a second copy only
     * when sentences must go (a dev set with labels the fold lacks), since
     * the training part is most of the data. */
    size_t unknown = 0;
    for (size_t i = 0; i < crfp_dataset_size(ob); i++) {
        const crfp_seq *q = crfp_dataset_get(ob, i);
        uint32_t t = 0;
        while (t < q->T && lmap[q->y[t]] != UINT32_MAX)
            t++;
        unknown += t < q->T;
    }
    if (!unknown) {
        for (size_t i = 0; i < crfp_dataset_size(ob); i++) {
            const crfp_seq *q = crfp_dataset_get(ob, i);
            for (uint32_t t = 0; t < q->T; t++)
                q->y[t] = lmap[q->y[t]];
        }
        *out = ob;
        return CRFP_OK;
    }
    crfp_dataset *nd = crfp_dataset_new();
    uint32_t *y = NULL;
    size_t cap = 0;
    st = nd ? CRFP_OK : CRFP_ENOMEM;
    for (size_t i = 0; st == CRFP_OK && i < crfp_dataset_size(ob); i++) {
        crfp_seq q = *crfp_dataset_get(ob, i);
        if ((st = room(&y, &cap, q.T)) != CRFP_OK)
            break;
        uint32_t t = 0;
        for (; t < q.T && lmap[q.y[t]] != UINT32_MAX; t++)
            y[t] = lmap[q.y[t]];
        if (t < q.T) {
            ++*dropped;
            continue;
        }
        q.y = y;
        if ((st = crfp_dataset_add_ids(NULL, nd, &q)) == CRFP_OK)
            st = crfp_dataset_set_weight(NULL, nd, crfp_dataset_size(nd) - 1,
                                         crfp_dataset_weight(ob, i));
    }
    free(y);
    crfp_dataset_free(ob);
    if (st != CRFP_OK) {
        crfp_dataset_free(nd);
        nd = NULL;
    }
    *out = nd;
    return st;
}

/* conlleval's F1 of a fold's chunks, in percent (0 when none is right). */
static double chunk_f1(const crfp_train_fold *f)
{
    if (!f->chunks_correct)
        return 0;
    double p = (double)f->chunks_correct / (double)f->chunks_guessed,
           r = (double)f->chunks_correct / (double)f->chunks_gold;
    return 200.0 * p * r / (p + r);
}

/* Score the fold's model (crf, theta) on its held-out sentences, whose
 * observations are in the fold model's ids and whose gold labels are the
 * whole model's (`full`; tofull maps the fold's labels to them): token and
 * sentence errors and, when the labels are chunk tags, the chunks found,
 * expected and right as conlleval counts them (the figure chunkers and
 * entity taggers are compared by).  A gold label the fold's model lacks is
 * an error wherever it occurs.  One thread: the held-out fold is a K-th of
 * the data, decoded once.  Errors: CRFP_ENOMEM, those of Viterbi. */
static crfp_status score_fold(const crfp_crf *full, const crfp_crf *crf, const uint32_t *tofull,
                              const crfp_dataset *ho, const double *theta, crfp_train_fold *f)
{
    uint32_t ny = crfp_crf_nlabels(full);
    const char **names = malloc(((size_t)ny + 1) * sizeof *names);
    crfp_infer *w = names ? crfp_infer_new(crf) : NULL;
    uint32_t *y = NULL;
    size_t cap = 0;
    crfp_status st = w ? crfp_infer_fix_theta(w, theta) : CRFP_ENOMEM;
    crfp_chunkeval ce;
    crfp_chunkeval_init(&ce);
    for (uint32_t l = 0; st == CRFP_OK && l < ny; l++)
        names[l] = crfp_crf_label(full, l);
    f->chunked = st == CRFP_OK && crfp_labels_are_chunked(names, ny);
    f->token_errors = f->seq_errors = 0;
    for (size_t i = 0; st == CRFP_OK && i < crfp_dataset_size(ho); i++) {
        const crfp_seq *gold = crfp_dataset_get(ho, i);
        crfp_seq seq = *gold;
        seq.y = NULL; /* the whole model's ids: not the fold model's to check */
        if ((st = room(&y, &cap, seq.T)) != CRFP_OK)
            break;
        if ((st = crfp_viterbi(w, &seq, theta, y, NULL)) != CRFP_OK)
            break;
        size_t e = 0;
        for (uint32_t t = 0; t < seq.T && st == CRFP_OK; t++) {
            uint32_t guess = tofull[y[t]];
            e += guess != gold->y[t];
            if (f->chunked)
                st = crfp_chunkeval_token(&ce, names[gold->y[t]], names[guess]);
        }
        if (f->chunked && st == CRFP_OK)
            st = crfp_chunkeval_boundary(&ce);
        f->token_errors += e;
        f->seq_errors += e != 0;
    }
    if (f->chunked && st == CRFP_OK && (st = crfp_chunkeval_finish(&ce)) == CRFP_OK) {
        f->chunks_correct = ce.correct_chunks;
        f->chunks_gold = ce.found_gold;
        f->chunks_guessed = ce.found_guess;
    }
    crfp_chunkeval_free(&ce);
    crfp_infer_free(w);
    free(y);
    free(names);
    return st;
}

/* Train fold k (its sentences in `tr`, its held-out ones in `ho`, both in
 * the whole model's ids; taken) from `start` and score it.  The fold's own
 * model (fold_model) and its data replace the run's for the time of the
 * fold, the dev set relabelled (its sentences with labels the fold lacks
 * left out) and the run's totals set to the fold's; a chain's stages shrink
 * them, the held-out fold following the ids (r->heldout).  The whole model,
 * data and totals come back afterwards.  *tst as crfp_train_run_chain. */
static crfp_status train_fold(crfp_trainrun *r, crfp_dataset *tr, crfp_dataset *ho,
                              const double *start, crfp_train_fold *f, crfp_status *tst)
{
    crfp_crf *full = r->crf, *fc = NULL;
    crfp_dataset *all = r->train, *dev = r->dev, *ftr = NULL, *fdev = NULL, *fho = NULL;
    uint64_t totals[4];
    memcpy(totals, r->total, sizeof totals);
    uint32_t *omap = NULL, *lmap = NULL, *tofull = NULL;
    size_t dropped = 0;
    *tst = CRFP_OK;
    crfp_status st = fold_model(r, full, tr, start, &fc, &omap, &lmap, &tofull);
    if (st == CRFP_OK && ((st = fold_data(tr, omap, lmap, &ftr, &dropped)) != CRFP_OK ||
                          (st = fold_data(dev, omap, lmap, &fdev, &dropped)) != CRFP_OK ||
                          (st = fold_data(ho, omap, NULL, &fho, &dropped)) != CRFP_OK))
        st = crfp_error(r->host, st, "out of memory copying a fold's data");
    crfp_dataset_free(tr);
    crfp_dataset_free(ho);
    free(omap);
    free(lmap);
    if (st != CRFP_OK) {
        crfp_crf_free(fc);
        crfp_dataset_free(ftr);
        crfp_dataset_free(fdev);
        crfp_dataset_free(fho);
        free(tofull);
        return st;
    }
    if (dropped)
        crfp_log(r->host, CRFP_LOG_INFO, "%zu dev sentence%s left out of this fold: a label "
                 "the fold's training sentences lack", dropped, dropped == 1 ? "" : "s");
    r->crf = fc;
    r->train = ftr;
    r->dev = fdev;
    r->heldout = fho;
    r->total[0] = crfp_dataset_size(ftr);
    r->total[1] = crfp_dataset_tokens(ftr);
    r->total[2] = crfp_dataset_size(fdev);
    r->total[3] = crfp_dataset_tokens(fdev);
    st = crfp_train_run_chain(r, NULL, 0, tst);
    if (st == CRFP_OK)
        st = score_fold(full, r->crf, tofull, r->heldout, crfp_crf_weights_const(r->crf), f);
    /* the fold's model as its last stage left it */
    f->active = crfp_crf_active(r->crf);
    f->nparams = crfp_crf_nparams(r->crf);
    /* the fold's model and data, shrunk or not, go; the whole come back */
    crfp_crf_free(r->crf);
    crfp_dataset_free(r->train);
    crfp_dataset_free(r->dev);
    crfp_dataset_free(r->heldout);
    free(tofull);
    r->crf = full;
    r->train = all;
    r->dev = dev;
    r->heldout = NULL;
    memcpy(r->total, totals, sizeof totals);
    return st;
}

/* Cross-validation (cv-folds K), as CRFsuite's `learn -x`: the training
 * data is cut into K folds -- K runs of consecutive sentences by default,
 * as neighbouring sentences come from one document and a fold that holds
 * its neighbours' sentences would flatter the model; or, with cv-split
 * interleaved, sentence i in fold i mod K -- and fold k's model, with the
 * labels and observations of the other folds only (fold_model), is trained
 * from zero on them and scored on
 * fold k: what training on the other folds alone would give.  --dev still
 * stops each fold's training; the held-out fold never does.  Each fold is
 * reported to the fold observer; MODEL, when given, is then trained on all
 * the data and saved. */
crfp_status crfp_train_run_cv(crfp_trainrun *r, const char *trainers, const struct timespec *tall)
{
    crfp_host *host = r->host;
    int64_t K = crfp_train_cv_folds(r->stages, r->nstages);
    crfp_status st = crfp_train_check_cv(host, r->stages, r->nstages);
    if (st != CRFP_OK)
        return st;
    crfp_dataset *all = r->train;
    size_t nseq = crfp_dataset_size(all), np = crfp_crf_nparams(r->crf);
    if ((uint64_t)K > nseq)
        return crfp_error(host, CRFP_EINVAL, "cv-folds = %lld, but the training data has %zu "
                          "sentences: each fold needs one", (long long)K, nseq);
    size_t held;
    if ((st = crfp_train_incr_setup(r, &held)) != CRFP_OK)
        return st;
    if (held)
        /* the admissions between stages change the run's per-observation
         * state, which each fold would need afresh */
        return crfp_error(host, CRFP_EINVAL, "cv-folds: the template holds observations back "
                          "('#!after'); cross-validate without '#!after' lines");
    double *theta = crfp_crf_weights(r->crf), *start = malloc(np * sizeof *start);
    if (!start)
        return crfp_error(host, CRFP_ENOMEM, "out of memory for the starting weights of the "
                          "folds (%.1f MB)", (double)np * sizeof(double) / 1048576.0);
    memcpy(start, theta, np * sizeof *start);
    crfp_status tst = CRFP_OK;
    double sum = 0, sum2 = 0, csum = 0, csum2 = 0;
    size_t done = 0;
    int chunked = 0;
    int interleaved = cv_interleaved(r->stages, r->nstages);
    for (int64_t k = 0; k < K && st == CRFP_OK && tst == CRFP_OK; k++) {
        crfp_dataset *tr = crfp_dataset_new(), *ho = crfp_dataset_new();
        if (!tr || !ho)
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        size_t uk = (size_t)k, lo = block_start(uk, nseq, (size_t)K),
               hi = block_start(uk + 1, nseq, (size_t)K);
        for (size_t i = 0; i < nseq && st == CRFP_OK; i++) {
            int held = interleaved ? i % (size_t)K == uk : i >= lo && i < hi;
            crfp_dataset *to = held ? ho : tr;
            if ((st = crfp_dataset_add_ids(host, to, crfp_dataset_get(all, i))) == CRFP_OK)
                st = crfp_dataset_set_weight(host, to, crfp_dataset_size(to) - 1,
                                             crfp_dataset_weight(all, i));
        }
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        double c0 = crfp_train_cpu();
        crfp_train_fold f = {.size = sizeof f, .index = (size_t)k, .nfolds = (size_t)K};
        if (st == CRFP_OK) {
            f.train_seqs = crfp_dataset_size(tr);
            f.heldout_seqs = crfp_dataset_size(ho);
            f.heldout_tokens = crfp_dataset_tokens(ho);
            crfp_log(host, CRFP_LOG_INFO, "fold %lld/%lld: training on %zu sentences, %zu held "
                     "out", (long long)k + 1, (long long)K, f.train_seqs, f.heldout_seqs);
            r->fold = (size_t)k;
            r->nfolds = (size_t)K;
            int it0 = r->total_iter;
            st = train_fold(r, tr, ho, start, &f, &tst);
            f.iterations = r->total_iter - it0;
            tr = ho = NULL; /* train_fold took them */
            if (st != CRFP_OK)
                crfp_error_wrap(host, st, "fold %lld", (long long)k + 1);
        }
        if (st == CRFP_OK) {
            f.objective = r->objective;
            f.seconds = crfp_train_elapsed(&t0);
            f.cpu_seconds = crfp_train_cpu() - c0;
            f.interrupted = tst == CRFP_EINTR;
            double e = (double)f.token_errors / (double)f.heldout_tokens;
            sum += e;
            sum2 += e * e;
            done++;
            char chunks[128] = "";
            if (f.chunked) {
                double f1 = chunk_f1(&f);
                csum += f1;
                csum2 += f1 * f1;
                snprintf(chunks, sizeof chunks, ", chunk F1 %.2f (%zu right of %zu found, %zu "
                         "expected)", f1, f.chunks_correct, f.chunks_guessed, f.chunks_gold);
            }
            crfp_log(host, CRFP_LOG_INFO, "fold %lld/%lld: token error %.3f%% (%zu of %zu), "
                     "sentence error %.2f%%%s, %d iterations, %zu active features, %.1f s",
                     (long long)k + 1, (long long)K, 100.0 * e, f.token_errors, f.heldout_tokens,
                     100.0 * (double)f.seq_errors / (double)f.heldout_seqs, chunks, f.iterations,
                     f.active, f.seconds);
            chunked = f.chunked;
            crfp_host_observe_fold(host, &f);
        }
        crfp_dataset_free(tr);
        crfp_dataset_free(ho);
    }
    if (st == CRFP_OK && done) {
        double mean = sum / (double)done, var = done > 1 ? (sum2 - sum * mean) / (double)(done - 1)
                                                         : 0;
        char chunks[64] = "";
        if (chunked) {
            double cm = csum / (double)done,
                   cv = done > 1 ? (csum2 - csum * cm) / (double)(done - 1) : 0;
            snprintf(chunks, sizeof chunks, ", chunk F1 %.2f +- %.2f", cm,
                     sqrt((cv > 0 ? cv : 0) / (double)done));
        }
        crfp_log(host, CRFP_LOG_INFO, "cross-validation, %zu of %lld folds: token error %.3f%% "
                 "+- %.3f%s (mean +- standard error of the folds)", done, (long long)K,
                 100.0 * mean, 100.0 * sqrt((var > 0 ? var : 0) / (double)done), chunks);
    }
    const char *model = crfp_params_str(r->stages[r->nstages - 1].params, "model");
    if (st == CRFP_OK && tst == CRFP_OK && model) {
        crfp_log(host, CRFP_LOG_INFO, "training on all %zu sentences for %s", nseq, model);
        memcpy(theta, start, np * sizeof *theta);
        r->total_iter = 0;
        r->fold = (size_t)K;
        /* a chain shrinks the model in place now: nothing follows */
        if ((st = crfp_train_run_chain(r, NULL, 1, &tst)) == CRFP_OK &&
            (st = crfp_train_save(r, model, trainers)) == CRFP_OK && tst == CRFP_OK)
            crfp_log(host, CRFP_LOG_INFO, "trained: %d iterations in %.1f s, objective %.6e, "
                     "%zu active features of %zu", r->total_iter, crfp_train_elapsed(tall),
                     r->objective, crfp_crf_active(r->crf), crfp_crf_nparams(r->crf));
    }
    free(start);
    if (st != CRFP_OK)
        return st;
    if (tst == CRFP_EINTR)
        return crfp_error(host, CRFP_EINTR, "interrupted at iteration %d%s", r->last_iter,
                          model && done == (size_t)K ? "; the model of that iteration is saved"
                                                     : "; folds before it are reported");
    return CRFP_OK;
}
