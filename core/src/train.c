/* The training driver (see train.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "train.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

const crfp_param_spec crfp_train_common_params[] = {
    {"model", CRFP_PARAM_PATH, NULL, "file the trained model is written to (required)"},
    {"label", CRFP_PARAM_STRING, "", "token feature holding the gold label (default: last column)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set holding Sentence and Token annotations"},
    {"dev", CRFP_PARAM_PATH, NULL, "labelled development file: dev error each iteration, early stop"},
    {"dev-patience", CRFP_PARAM_INT, "5",
     "stop when dev error has not improved for this many iterations (0 = never)"},
    {"threads", CRFP_PARAM_INT, "0", "worker threads for the objective (0 = all cores)"},
    {"rho1", CRFP_PARAM_FLOAT, "0", "l1 penalty weight (> 0 selects OWL-QN / sparse models)"},
    {"rho2", CRFP_PARAM_FLOAT, "0.3", "l2 penalty weight"},
    {"max-iter", CRFP_PARAM_INT, "0", "stop after this many iterations (0 = optimizer decides)"},
    {"init-model", CRFP_PARAM_PATH, NULL, "warm start from this model's weights"},
    {"fb-mode", CRFP_PARAM_STRING, "auto", "forward-backward path: auto, sparse or dense"},
    {"train-error", CRFP_PARAM_BOOL, "false",
     "also print the training-set error every iteration (one more Viterbi pass each)"},
};
const size_t crfp_train_common_nparams =
    sizeof crfp_train_common_params / sizeof crfp_train_common_params[0];

struct crfp_trainrun {
    crfp_host *host;
    const crfp_plugin *trainer;
    const crfp_params *params;
    const crfp_plugin *features;
    void *ex;
    crfp_reader_ref reader;
    crfp_crf *crf;
    crfp_dataset *train, *dev;
    crfp_obsseq *obs;
    crfp_sentbuf *sb;
    const char **labels;
    size_t caplabels;
    char *labelname;
    char *source;       /* training input name, for messages */
    crfp_crf *init;     /* warm-start model, if any */
    crfp_crfobj *obj;
    int nthreads;
    /* iteration bookkeeping */
    struct timespec t0, tlast;
    size_t best_dev;
    int best_iter, last_iter;
    double objective;
    double eval_secs;   /* time spent in f/∇f, to tell it from the optimizer's own */
    int nevals;
};

static double seconds_since(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

crfp_status crfp_reader_for_file(crfp_host *host, const char *path, const char *name,
                                 const crfp_plugin **out)
{
    if (!name) {
        const char *dot = strrchr(path, '.');
        if (dot && strcmp(dot, ".xml") == 0)
            name = "xml_reader";
        else if (dot && strcmp(dot, ".conllu") == 0)
            name = "conllu_reader";
        else
            name = "conll_reader";
    }
    return crfp_host_load_kind(host, name, CRFP_KIND_READER, out);
}

crfp_status crfp_train_open(crfp_host *host, const crfp_plugin *trainer,
                            const crfp_params *params, const crfp_plugin *features, void *ex,
                            crfp_reader_ref reader, crfp_trainrun **out)
{
    crfp_trainrun *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    r->host = host;
    r->trainer = trainer;
    r->params = params;
    r->features = features;
    r->ex = ex;
    r->reader = reader;
    r->crf = crfp_crf_new();
    r->train = crfp_dataset_new();
    r->dev = crfp_dataset_new();
    r->obs = crfp_obsseq_new();
    r->sb = crfp_sentbuf_new();
    if (!r->crf || !r->train || !r->dev || !r->obs || !r->sb) {
        crfp_train_free(r);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    const char *label = crfp_params_str(params, "label");
    if (label && *label && !(r->labelname = strdup(label))) {
        crfp_train_free(r);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    int64_t th = crfp_params_int(params, "threads");
    r->nthreads = th > 0 ? (int)th : crfp_host_threads(host);

    /* Warm start: intern the old model's labels and observations first so
     * that its weights can be copied block by block after finalize. */
    const char *init = crfp_params_str(params, "init-model");
    if (init) {
        crfp_status st = crfp_crf_load(host, init, &r->init);
        if (st != CRFP_OK) {
            crfp_train_free(r);
            return st;
        }
        uint32_t id;
        for (uint32_t y = 0; y < crfp_crf_nlabels(r->init); y++)
            if ((st = crfp_crf_add_label(r->crf, crfp_crf_label(r->init, y), &id)) != CRFP_OK)
                break;
        for (uint32_t o = 0; st == CRFP_OK && o < crfp_crf_nobs(r->init); o++) {
            size_t len;
            const char *s = crfp_crf_obs(r->init, o, &len);
            unsigned fl = (crfp_crf_ublock(r->init, o) != CRFP_NO_BLOCK ? CRFP_OBS_UNIGRAM : 0) |
                          (crfp_crf_bblock(r->init, o) != CRFP_NO_BLOCK ? CRFP_OBS_BIGRAM : 0);
            st = crfp_crf_add_obs(r->crf, s, len, fl, &id);
        }
        if (st != CRFP_OK) {
            crfp_train_free(r);
            return crfp_error(host, st, "%s: cannot reuse model for warm start", init);
        }
    }
    *out = r;
    return CRFP_OK;
}

/* Extract one document's sentences into `ds`. */
static crfp_status add_doc(crfp_trainrun *r, crfp_doc *doc, crfp_dataset *ds, int grow,
                           const char *origin)
{
    const crfp_features_vtable *fv = r->features->desc->vtable;
    const char *set = crfp_params_str(r->params, "set");
    crfp_ann **sents;
    size_t nsent;
    crfp_status st = crfp_doc_sentences(r->host, doc, set, &sents, &nsent);
    if (st != CRFP_OK)
        return st;
    for (size_t s = 0; s < nsent && st == CRFP_OK; s++) {
        const crfp_tokseq *seq;
        st = crfp_sentbuf_fill(r->host, r->sb, doc, set, sents[s], &seq, NULL);
        if (st != CRFP_OK)
            break;
        if (seq->ntok == 0)
            continue;
        if (!r->labelname) {
            if (seq->ncols == 0) {
                st = crfp_error(r->host, CRFP_EINVAL, "%s: tokens have no features", origin);
                break;
            }
            if (!(r->labelname = strdup(seq->colnames[seq->ncols - 1]))) {
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                break;
            }
        }
        int lc = crfp_tokseq_col(seq, r->labelname);
        if (lc < 0) {
            st = crfp_error(r->host, CRFP_ENOTFOUND, "%s: document '%s': tokens have no label "
                            "feature '%s'", origin, crfp_doc_id(doc) ? crfp_doc_id(doc) : "",
                            r->labelname);
            break;
        }
        if (seq->ntok > r->caplabels) {
            const char **nl = realloc(r->labels, seq->ntok * sizeof *nl);
            if (!nl) {
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                break;
            }
            r->labels = nl;
            r->caplabels = seq->ntok;
        }
        for (size_t t = 0; t < seq->ntok; t++) {
            r->labels[t] = seq->cells[t * seq->ncols + (size_t)lc];
            if (!r->labels[t]) {
                st = crfp_error(r->host, CRFP_EINVAL, "%s: document '%s', sentence %zu, token "
                                "%zu: no '%s' label", origin,
                                crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1, t + 1,
                                r->labelname);
                break;
            }
        }
        if (st != CRFP_OK)
            break;
        st = fv->extract(r->ex, seq, r->obs);
        if (st != CRFP_OK) {
            crfp_error_prefix(r->host, "%s: features", origin);
            break;
        }
        st = crfp_dataset_add(r->host, ds, r->crf, r->obs, r->labels, grow);
        if (st == CRFP_ENOTFOUND && !grow) {
            /* A dev sentence with a label never seen in training cannot be
             * scored; say so once per sentence and go on. */
            crfp_log(r->host, CRFP_LOG_WARN, "%s: %s (sentence skipped)", origin,
                     crfp_errmsg(r->host));
            st = CRFP_OK;
        }
    }
    free(sents);
    return st;
}

crfp_status crfp_train_set_source(crfp_trainrun *r, const char *name)
{
    free(r->source);
    r->source = name ? strdup(name) : NULL;
    return !name || r->source ? CRFP_OK : crfp_error(r->host, CRFP_ENOMEM, "out of memory");
}

crfp_status crfp_train_add(crfp_trainrun *r, crfp_doc *doc)
{
    return add_doc(r, doc, r->train, 1, r->source ? r->source : "training data");
}

static crfp_status load_dev(crfp_trainrun *r, const char *path)
{
    const crfp_plugin *rp = r->reader.plugin;
    const crfp_params *rparams = r->reader.params;
    crfp_params *own = NULL;
    crfp_status st;
    if (!rp || !rparams) {
        if ((st = crfp_reader_for_file(r->host, path, NULL, &rp)) != CRFP_OK)
            return st;
        own = crfp_params_new(rp->desc->params, rp->desc->nparams);
        if (!own)
            return crfp_error(r->host, CRFP_ENOMEM, "out of memory");
        rparams = own;
    }
    const crfp_reader_vtable *rv = rp->desc->vtable;
    crfp_stream in = {fopen(path, "rb"), path};
    if (!in.fp) {
        crfp_params_free(own);
        return crfp_error(r->host, CRFP_EIO, "%s: %s", path, strerror(errno));
    }
    void *state = NULL;
    st = rv->open(r->host, rparams, &in, &state);
    while (st == CRFP_OK) {
        crfp_doc *doc = NULL;
        st = rv->next(state, &doc);
        if (st != CRFP_OK || !doc)
            break;
        st = add_doc(r, doc, r->dev, 0, path);
        crfp_doc_free(doc);
    }
    if (state)
        rv->close(state);
    fclose(in.fp);
    crfp_params_free(own);
    return st;
}

static crfp_status obj_eval(void *ud, const double *theta, double *f, double *g)
{
    crfp_trainrun *r = ud;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    crfp_status st = crfp_crfobj_eval(r->obj, theta, f, g);
    r->eval_secs += seconds_since(&t0);
    r->nevals++;
    return st;
}

static size_t count_active(const double *theta, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += theta[i] != 0.0;
    return k;
}

static crfp_status obj_iteration(void *ud, const crfp_iter_info *info, const double *theta,
                                 int *stop)
{
    crfp_trainrun *r = ud;
    size_t n = crfp_crf_nparams(r->crf);
    size_t active = count_active(theta, n);
    double dt = seconds_since(&r->tlast);
    char dev[64] = "";
    r->last_iter = info->iter;
    r->objective = info->objective;
    if (crfp_dataset_size(r->dev) > 0) {
        size_t te = 0, se = 0;
        crfp_status st = crfp_crf_errors(r->crf, r->dev, theta, r->nthreads, &te, &se);
        if (st != CRFP_OK)
            return st;
        double err = 100.0 * (double)te / (double)crfp_dataset_tokens(r->dev);
        snprintf(dev, sizeof dev, "  dev-err %6.3f%% (seq %5.2f%%)", err,
                 100.0 * (double)se / (double)crfp_dataset_size(r->dev));
        if (r->best_iter == 0 || te < r->best_dev) {
            r->best_dev = te;
            r->best_iter = info->iter;
        }
        int64_t patience = crfp_params_int(r->params, "dev-patience");
        if (patience > 0 && info->iter - r->best_iter >= patience) {
            crfp_log(r->host, CRFP_LOG_INFO, "dev error has not improved for %lld iterations: "
                     "stopping", (long long)patience);
            *stop = 1;
        }
    }
    char train[48] = "";
    if (crfp_params_bool(r->params, "train-error")) {
        size_t te = 0, se = 0;
        crfp_status st = crfp_crf_errors(r->crf, r->train, theta, r->nthreads, &te, &se);
        if (st != CRFP_OK)
            return st;
        snprintf(train, sizeof train, "  train-err %6.3f%%",
                 100.0 * (double)te / (double)crfp_dataset_tokens(r->train));
    }
    crfp_log(r->host, CRFP_LOG_PROGRESS,
             "iter %4d  obj %.6e  active %9zu%s%s  step %.3g  evals %d  %.2fs (%.1fs)", info->iter,
             info->objective, active, train, dev, info->step, info->nevals, dt,
             seconds_since(&r->t0));
    clock_gettime(CLOCK_MONOTONIC, &r->tlast);
    int64_t maxit = crfp_params_int(r->params, "max-iter");
    if (maxit > 0 && info->iter >= maxit)
        *stop = 1;
    if (crfp_interrupted(r->host))
        return CRFP_EINTR;
    return CRFP_OK;
}

static crfp_status copy_warm_start(crfp_trainrun *r)
{
    uint32_t Y = crfp_crf_nlabels(r->crf), Yi = crfp_crf_nlabels(r->init);
    double *w = crfp_crf_weights(r->crf);
    const double *wi = crfp_crf_weights_const(r->init);
    /* Labels and observations of the old model were interned first, so ids
     * agree; blocks are copied row by row since Y may have grown. */
    for (uint32_t o = 0; o < crfp_crf_nobs(r->init); o++) {
        uint64_t ui = crfp_crf_ublock(r->init, o), u = crfp_crf_ublock(r->crf, o);
        if (ui != CRFP_NO_BLOCK && u != CRFP_NO_BLOCK)
            memcpy(w + u, wi + ui, Yi * sizeof *w);
        uint64_t bi = crfp_crf_bblock(r->init, o), b = crfp_crf_bblock(r->crf, o);
        if (bi != CRFP_NO_BLOCK && b != CRFP_NO_BLOCK) {
            for (uint32_t yp = 0; yp < Yi; yp++)
                memcpy(w + b + (size_t)yp * Y, wi + bi + (size_t)yp * Yi, Yi * sizeof *w);
            /* the start row is the last one in both layouts */
            memcpy(w + b + (size_t)Y * Y, wi + bi + (size_t)Yi * Yi, Yi * sizeof *w);
        }
    }
    return CRFP_OK;
}

crfp_status crfp_train_finish(crfp_trainrun *r)
{
    crfp_host *host = r->host;
    if (crfp_dataset_size(r->train) == 0)
        return crfp_error(host, CRFP_EINVAL, "%s: no labelled sentences to train on",
                          r->source ? r->source : "training data");
    crfp_status st = crfp_crf_finalize(r->crf);
    if (st != CRFP_OK)
        return crfp_error(host, st, "cannot lay out the model's parameters");
    if (r->init)
        copy_warm_start(r);

    /* The model carries its feature extractor so tagging sees exactly what
     * training saw. */
    const crfp_features_vtable *fv = r->features->desc->vtable;
    char *cfg = NULL;
    size_t cfglen = 0;
    if ((st = fv->save(r->ex, &cfg, &cfglen)) != CRFP_OK)
        return crfp_error_prefix(host, "features '%s'", r->features->desc->name);
    st = crfp_crf_set_features(r->crf, r->features->desc->name, cfg, cfglen);
    free(cfg);
    if (st != CRFP_OK)
        return crfp_error(host, st, "out of memory");

    const char *dev = crfp_params_str(r->params, "dev");
    if (dev && (st = load_dev(r, dev)) != CRFP_OK)
        return st;

#ifdef __GLIBC__
    /* The documents the data came from are gone; hand their pages back
     * before the optimizer allocates its vectors, so that peak memory is
     * data + optimizer rather than their sum with the parse. */
    malloc_trim(0);
#endif
    size_t np = crfp_crf_nparams(r->crf);
    crfp_log(host, CRFP_LOG_INFO,
             "training: %zu sequences, %zu tokens; %u labels, %u observations, %zu parameters "
             "(%.1f MB per parameter vector)%s",
             crfp_dataset_size(r->train), crfp_dataset_tokens(r->train), crfp_crf_nlabels(r->crf),
             crfp_crf_nobs(r->crf), np, (double)np * sizeof(double) / 1048576.0,
             r->init ? "; warm start" : "");
    if (crfp_dataset_size(r->dev))
        crfp_log(host, CRFP_LOG_INFO, "dev: %zu sequences, %zu tokens",
                 crfp_dataset_size(r->dev), crfp_dataset_tokens(r->dev));

    double rho1 = crfp_params_float(r->params, "rho1");
    double rho2 = crfp_params_float(r->params, "rho2");
    if (rho1 < 0 || rho2 < 0)
        return crfp_error(host, CRFP_EINVAL, "rho1 and rho2 must be >= 0");
    st = crfp_crfobj_new(host, r->crf, r->train, r->nthreads, rho2, &r->obj);
    if (st != CRFP_OK)
        return st;
    const char *mode = crfp_params_str(r->params, "fb-mode");
    if (strcmp(mode, "sparse") == 0)
        crfp_crfobj_set_mode(r->obj, 1);
    else if (strcmp(mode, "dense") == 0)
        crfp_crfobj_set_mode(r->obj, 2);
    else if (strcmp(mode, "auto") != 0)
        return crfp_error(host, CRFP_EINVAL, "fb-mode must be auto, sparse or dense, not '%s'",
                          mode);

    crfp_objective obj = {np, rho1, rho2, r, obj_eval, obj_iteration};
    const crfp_trainer_vtable *tv = r->trainer->desc->vtable;
    clock_gettime(CLOCK_MONOTONIC, &r->t0);
    r->tlast = r->t0;
    double *theta = crfp_crf_weights(r->crf);
    st = tv->train(host, r->params, &obj, theta);
    if (st != CRFP_OK && st != CRFP_EINTR)
        return crfp_error_prefix(host, "trainer '%s'", r->trainer->desc->name);
    if (st == CRFP_EINTR)
        crfp_log(host, CRFP_LOG_WARN, "interrupted: saving the model of iteration %d",
                 r->last_iter);

    char buf[64];
    crfp_crf_set_meta(r->crf, "label", r->labelname);
    crfp_crf_set_meta(r->crf, "trainer", r->trainer->desc->name);
    snprintf(buf, sizeof buf, "%.17g", rho1);
    crfp_crf_set_meta(r->crf, "rho1", buf);
    snprintf(buf, sizeof buf, "%.17g", rho2);
    crfp_crf_set_meta(r->crf, "rho2", buf);
    snprintf(buf, sizeof buf, "%d", r->last_iter);
    crfp_crf_set_meta(r->crf, "iterations", buf);

    size_t active = crfp_crf_active(r->crf);
    double secs = seconds_since(&r->t0);
    crfp_log(host, CRFP_LOG_INFO, "trained: %d iterations in %.1f s, objective %.6e, %zu active "
             "features of %zu", r->last_iter, secs, r->objective, active, np);
    crfp_log(host, CRFP_LOG_INFO, "time: %d objective evaluations, %.1f s (%.3f s each); "
             "optimizer and progress %.1f s", r->nevals, r->eval_secs,
             r->nevals ? r->eval_secs / r->nevals : 0.0, secs - r->eval_secs);
    crfp_status sst = crfp_crf_save(host, r->crf, crfp_params_str(r->params, "model"));
    if (sst != CRFP_OK)
        return sst;
    crfp_log(host, CRFP_LOG_INFO, "model written to %s", crfp_params_str(r->params, "model"));
    if (st == CRFP_EINTR)
        return crfp_error(host, CRFP_EINTR, "interrupted at iteration %d; model saved to %s",
                          r->last_iter, crfp_params_str(r->params, "model"));
    return st;
}

void crfp_train_free(crfp_trainrun *r)
{
    if (!r)
        return;
    crfp_crfobj_free(r->obj);
    crfp_crf_free(r->crf);
    crfp_crf_free(r->init);
    crfp_dataset_free(r->train);
    crfp_dataset_free(r->dev);
    crfp_obsseq_free(r->obs);
    crfp_sentbuf_free(r->sb);
    free(r->labels);
    free(r->labelname);
    free(r->source);
    free(r);
}
