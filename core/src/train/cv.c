/* Cross-validation (the common trainer parameter cv-folds; see trainrun.h
 * and crfp_train_finish in train.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainrun.h"
#include "dist.h"

/* The cv-folds value of a run (0 when absent). */
int64_t crfp_train_cv_folds(const crfp_train_stage *stages, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (crfp_params_isset(stages[k].params, "cv-folds"))
            return crfp_params_int(stages[k].params, "cv-folds");
    return 0;
}

/* Whether a cross-validation can run with these stages, before any data is
 * read (the upper bound on K, the number of sentences, is checked after). */
crfp_status crfp_train_check_cv(crfp_host *host, const crfp_train_stage *stages, size_t n)
{
    int64_t k = crfp_train_cv_folds(stages, n);
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
    if (n > 1)
        /* each fold would need the full model back after the shrinking
         * between stages, i.e. a copy of model and data per fold */
        return crfp_error(host, CRFP_EINVAL, "cv-folds trains one trainer, not a chain (%s, "
                          "%s...)", stages[0].plugin->desc->name, stages[1].plugin->desc->name);
    if (crfp_dist_size() > 1)
        return crfp_error(host, CRFP_EINVAL, "cv-folds does not run in a distributed job yet: "
                          "run it in one process");
    return CRFP_OK;
}

/* Cross-validation (cv-folds K), as CRFsuite's `learn -x`: sentence i of
 * the training data is in fold i mod K; fold k's model is trained from the
 * starting weights (zero, or --init-model's) on the other folds and scored
 * on fold k.  The folds share the dictionary built from all the data, so a
 * fold's model has weights for observations seen only in the fold it is
 * scored on; no training sentence touches them, so they stay at 0 (the
 * penalties pull them there) and score as an unseen observation would.
 * --dev still stops each fold's training; the held-out fold never does.
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
        return crfp_error(host, CRFP_EINVAL, "cv-folds: the template holds observations back "
                          "('#!after'), which only a chain of trainers admits, and "
                          "cross-validation trains one trainer");
    double *theta = crfp_crf_weights(r->crf), *start = malloc(np * sizeof *start);
    if (!start)
        return crfp_error(host, CRFP_ENOMEM, "out of memory for the starting weights of the "
                          "folds (%.1f MB)", (double)np * sizeof(double) / 1048576.0);
    memcpy(start, theta, np * sizeof *start);
    crfp_status tst = CRFP_OK;
    double sum = 0, sum2 = 0;
    size_t done = 0;
    for (int64_t k = 0; k < K && st == CRFP_OK && tst == CRFP_OK; k++) {
        crfp_dataset *tr = crfp_dataset_new(), *ho = crfp_dataset_new();
        if (!tr || !ho)
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        for (size_t i = 0; i < nseq && st == CRFP_OK; i++)
            st = crfp_dataset_add_ids(host, (int64_t)(i % (size_t)K) == k ? ho : tr,
                                      crfp_dataset_get(all, i));
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        double c0 = crfp_train_cpu();
        if (st == CRFP_OK) {
            crfp_log(host, CRFP_LOG_INFO, "fold %lld/%lld: training on %zu sentences, %zu held "
                     "out", (long long)k + 1, (long long)K, crfp_dataset_size(tr),
                     crfp_dataset_size(ho));
            memcpy(theta, start, np * sizeof *theta);
            r->fold = (size_t)k;
            r->nfolds = (size_t)K;
            r->train = tr;
            tst = crfp_train_run_stage(r, 0, NULL);
            r->train = all;
            if (tst != CRFP_OK && tst != CRFP_EINTR)
                st = tst;
        }
        size_t te = 0, se = 0;
        if (st == CRFP_OK &&
            (st = crfp_crf_errors(r->crf, ho, theta, r->team, &te, &se)) != CRFP_OK)
            crfp_error_wrap(host, st, "fold %lld: scoring the held-out sentences",
                            (long long)k + 1);
        if (st == CRFP_OK) {
            crfp_train_fold f = {sizeof f, (size_t)k, (size_t)K, crfp_dataset_size(tr),
                                 crfp_dataset_size(ho), crfp_dataset_tokens(ho), r->kept_iter,
                                 r->objective, crfp_crf_active(r->crf), np, te, se,
                                 crfp_train_elapsed(&t0), crfp_train_cpu() - c0, tst == CRFP_EINTR};
            double e = (double)te / (double)f.heldout_tokens;
            sum += e;
            sum2 += e * e;
            done++;
            crfp_log(host, CRFP_LOG_INFO, "fold %lld/%lld: token error %.3f%% (%zu of %zu), "
                     "sentence error %.2f%%, %d iterations, %zu active features, %.1f s",
                     (long long)k + 1, (long long)K, 100.0 * e, te, f.heldout_tokens,
                     100.0 * (double)se / (double)f.heldout_seqs, f.iterations, f.active,
                     f.seconds);
            crfp_host_observe_fold(host, &f);
        }
        crfp_dataset_free(tr);
        crfp_dataset_free(ho);
    }
    if (st == CRFP_OK && done) {
        double mean = sum / (double)done, var = done > 1 ? (sum2 - sum * mean) / (double)(done - 1)
                                                         : 0;
        crfp_log(host, CRFP_LOG_INFO, "cross-validation, %zu of %lld folds: token error %.3f%% "
                 "+- %.3f (mean +- standard error of the folds)", done, (long long)K,
                 100.0 * mean, 100.0 * sqrt((var > 0 ? var : 0) / (double)done));
    }
    const char *model = crfp_params_str(r->stages[0].params, "model");
    if (st == CRFP_OK && tst == CRFP_OK && model) {
        crfp_log(host, CRFP_LOG_INFO, "training on all %zu sentences for %s", nseq, model);
        memcpy(theta, start, np * sizeof *theta);
        r->total_iter = 0;
        r->fold = (size_t)K;
        tst = crfp_train_run_stage(r, 0, NULL);
        if (tst != CRFP_OK && tst != CRFP_EINTR)
            st = tst;
        else if ((st = crfp_train_save(r, model, trainers)) == CRFP_OK && tst == CRFP_OK)
            crfp_log(host, CRFP_LOG_INFO, "trained: %d iterations in %.1f s, objective %.6e, "
                     "%zu active features of %zu", r->total_iter, crfp_train_elapsed(tall),
                     r->objective, crfp_crf_active(r->crf), np);
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
