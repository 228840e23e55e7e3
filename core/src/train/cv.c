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
    }
    if (crfp_dist_size() > 1)
        return crfp_error(host, CRFP_EINVAL, "cv-folds does not run in a distributed job yet: "
                          "run it in one process");
    return CRFP_OK;
}

/* A copy of the model with the starting weights, for one fold of a chain:
 * its stages shrink the model and the data they train on, and the next
 * fold starts from the whole of both again.  The copy keeps every
 * observation in its place, so the datasets' ids stay valid.  Errors:
 * CRFP_ENOMEM, CRFP_EPLUGIN (ids moved: a bug). */
static crfp_status fold_model(crfp_trainrun *r, const crfp_crf *full, const double *start,
                              crfp_crf **out)
{
    uint32_t nobs = crfp_crf_nobs(full), *map = NULL;
    uint64_t *all = malloc(((size_t)nobs / 64 + 1) * sizeof *all), *mask = NULL;
    if (!all)
        return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    memset(all, 0xff, ((size_t)nobs / 64 + 1) * sizeof *all);
    crfp_status st = crfp_crf_shrink_keep(full, start, all, NULL, out, &map, &mask);
    free(all);
    free(mask);
    for (uint32_t o = 0; st == CRFP_OK && o < nobs; o++)
        if (map[o] != o) {
            crfp_crf_free(*out);
            *out = NULL;
            st = crfp_error(r->host, CRFP_EPLUGIN, "cv-folds: copying the model moved "
                            "observation %u to %u", o, map[o]);
        }
    free(map);
    return st == CRFP_ENOMEM ? crfp_error(r->host, st, "out of memory copying the model for "
                                          "a fold") : st;
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

/* Score the fold's model (crf, theta) on its held-out sentences: token and
 * sentence errors and, when the labels are chunk tags, the chunks found,
 * expected and right as conlleval counts them (the figure chunkers and
 * entity taggers are compared by).  One thread: the held-out fold is a
 * K-th of the data, decoded once.  Errors: CRFP_ENOMEM, those of Viterbi. */
static crfp_status score_fold(const crfp_crf *crf, const crfp_dataset *ho, const double *theta,
                              crfp_train_fold *f)
{
    uint32_t ny = crfp_crf_nlabels(crf);
    const char **names = malloc(((size_t)ny + 1) * sizeof *names);
    crfp_infer *w = names ? crfp_infer_new(crf) : NULL;
    uint32_t *y = NULL;
    size_t cap = 0;
    crfp_status st = w ? crfp_infer_fix_theta(w, theta) : CRFP_ENOMEM;
    crfp_chunkeval ce;
    crfp_chunkeval_init(&ce);
    for (uint32_t l = 0; st == CRFP_OK && l < ny; l++)
        names[l] = crfp_crf_label(crf, l);
    f->chunked = st == CRFP_OK && crfp_labels_are_chunked(names, ny);
    f->token_errors = f->seq_errors = 0;
    for (size_t i = 0; st == CRFP_OK && i < crfp_dataset_size(ho); i++) {
        const crfp_seq *seq = crfp_dataset_get(ho, i);
        if (seq->T > cap) {
            uint32_t *nyb = realloc(y, (size_t)seq->T * sizeof *nyb);
            if (!nyb) {
                st = CRFP_ENOMEM;
                break;
            }
            y = nyb;
            cap = seq->T;
        }
        if ((st = crfp_viterbi(w, seq, theta, y, NULL)) != CRFP_OK)
            break;
        size_t e = 0;
        for (uint32_t t = 0; t < seq->T && st == CRFP_OK; t++) {
            e += y[t] != seq->y[t];
            if (f->chunked)
                st = crfp_chunkeval_token(&ce, names[seq->y[t]], names[y[t]]);
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

/* Train fold k (its sentences in `tr`, given to the run) from `start` and
 * count its errors on `ho` (also given).  A single trainer trains the whole
 * model in place; a chain trains a copy (fold_model) whose stages shrink it
 * with its data, the held-out fold following the ids (r->heldout), and the
 * whole model and dev set are put back afterwards.  *tst as
 * crfp_train_run_chain. */
static crfp_status train_fold(crfp_trainrun *r, crfp_dataset *tr, crfp_dataset *ho,
                              const double *start, crfp_train_fold *f, crfp_status *tst)
{
    crfp_crf *full = r->crf;
    crfp_dataset *all = r->train, *dev = r->dev;
    size_t np = crfp_crf_nparams(full);
    crfp_status st = CRFP_OK;
    *tst = CRFP_OK;
    if (r->nstages == 1) {
        memcpy(crfp_crf_weights(full), start, np * sizeof *start);
        r->train = tr;
        st = crfp_train_run_chain(r, NULL, 0, tst);
        r->train = all;
        crfp_dataset_free(tr);
        if (st == CRFP_OK)
            st = score_fold(r->crf, ho, crfp_crf_weights_const(r->crf), f);
        f->active = crfp_crf_active(r->crf);
        f->nparams = np;
        crfp_dataset_free(ho);
        return st;
    }
    crfp_crf *copy = NULL;
    crfp_dataset *devcopy = NULL;
    uint32_t nobs = crfp_crf_nobs(full), *id = malloc(((size_t)nobs + 1) * sizeof *id);
    if (!id)
        st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    for (uint32_t o = 0; st == CRFP_OK && o < nobs; o++)
        id[o] = o;
    if (st == CRFP_OK && (st = crfp_dataset_remap(dev, id, &devcopy)) != CRFP_OK)
        st = crfp_error(r->host, st, "out of memory copying the dev set for a fold");
    free(id);
    if (st == CRFP_OK)
        st = fold_model(r, full, start, &copy);
    if (st != CRFP_OK) {
        crfp_dataset_free(devcopy);
        crfp_dataset_free(tr);
        crfp_dataset_free(ho);
        return st;
    }
    r->crf = copy;
    r->train = tr;
    r->dev = devcopy;
    r->heldout = ho;
    st = crfp_train_run_chain(r, NULL, 0, tst);
    if (st == CRFP_OK)
        st = score_fold(r->crf, r->heldout, crfp_crf_weights_const(r->crf), f);
    /* the fold's model as its last stage left it */
    f->active = crfp_crf_active(r->crf);
    f->nparams = crfp_crf_nparams(r->crf);
    /* the fold's model and data, shrunk or not, go; the whole come back */
    crfp_crf_free(r->crf);
    crfp_dataset_free(r->train);
    crfp_dataset_free(r->dev);
    crfp_dataset_free(r->heldout);
    r->crf = full;
    r->train = all;
    r->dev = dev;
    r->heldout = NULL;
    return st;
}

/* Cross-validation (cv-folds K), as CRFsuite's `learn -x`: the training
 * data is cut into K folds -- K runs of consecutive sentences by default,
 * as neighbouring sentences come from one document and a fold that holds
 * its neighbours' sentences would flatter the model; or, with cv-split
 * interleaved, sentence i in fold i mod K -- and fold k's model is trained from the
 * starting weights (zero, or --init-model's) on the other folds and scored
 * on fold k.  The folds share the dictionary built from all the data, so a
 * fold's model has weights for observations seen only in the fold it is
 * scored on; no training sentence touches them, so they stay at 0 (the
 * penalties pull them there) and score as an unseen observation would.
 * --dev still stops each fold's training; the held-out fold never does.
 * A chain trains a copy of the model per fold (train_fold).
 * Each fold is reported to the fold observer; MODEL, when given, is then
 * trained on all the data and saved. */
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
    /* blocks: the first nseq mod K folds hold one sentence more */
    size_t base = nseq / (size_t)K, extra = nseq % (size_t)K;
    for (int64_t k = 0; k < K && st == CRFP_OK && tst == CRFP_OK; k++) {
        crfp_dataset *tr = crfp_dataset_new(), *ho = crfp_dataset_new();
        if (!tr || !ho)
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        size_t uk = (size_t)k, lo = uk * base + (uk < extra ? uk : extra),
               hi = lo + base + (uk < extra);
        for (size_t i = 0; i < nseq && st == CRFP_OK; i++) {
            int held = interleaved ? i % (size_t)K == uk : i >= lo && i < hi;
            st = crfp_dataset_add_ids(host, held ? ho : tr, crfp_dataset_get(all, i));
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
