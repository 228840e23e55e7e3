/* The trainers' tests' shared problem and helpers (tinycrf.h). */
#include "tinycrf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double uniform(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static crfp_status build(tinycrf *t, const tinycrf_spec *spec)
{
    static const char *const labels[] = {"A", "B", "C", "D", "E", "F", "G", "H"};
    crfp_obsseq *obs = NULL;
    t->host = crfp_host_new();
    t->crf = crfp_crf_new();
    t->ds = crfp_dataset_new();
    obs = crfp_obsseq_new();
    if (!t->host || !t->crf || !t->ds || !obs) {
        crfp_obsseq_free(obs);
        return CRFP_ENOMEM;
    }
    crfp_host_set_verbosity(t->host, CRFP_LOG_WARN);
    if (spec->nlabels < 2 || spec->nlabels > 8 || spec->minlen < 1 ||
        spec->minlen + spec->lenspan > 16 || !spec->seed)
        return crfp_error(t->host, CRFP_EINVAL, "tinycrf: bad spec");
    uint64_t rs = spec->seed;
    crfp_status st = CRFP_OK;
    for (int s = 0; s < spec->nseq && st == CRFP_OK; s++) {
        size_t T = spec->minlen + (size_t)(uniform(&rs) * (double)spec->lenspan);
        const char *lab[16];
        st = crfp_obsseq_reset(obs, T);
        int prev = 0;
        for (size_t i = 0; i < T && st == CRFP_OK; i++) {
            int w = (int)(uniform(&rs) * spec->nwords);
            int y = uniform(&rs) < spec->p_word ? w % spec->nlabels
                                                : (prev + 1) % spec->nlabels;
            char buf[32];
            int len = snprintf(buf, sizeof buf, "w=%d", w);
            st = crfp_obsseq_push(obs, i, CRFP_OBS_UNIGRAM, buf, (size_t)len);
            len = snprintf(buf, sizeof buf, "s=%d", w % (spec->nlabels - 1));
            if (st == CRFP_OK)
                st = crfp_obsseq_push(obs, i, CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM, buf,
                                      (size_t)len);
            if (st == CRFP_OK)
                st = crfp_obsseq_push(obs, i, CRFP_OBS_BIGRAM, "b", 1);
            lab[i] = labels[y];
            prev = y;
        }
        if (st == CRFP_OK)
            st = crfp_dataset_add(t->host, t->ds, t->crf, obs, lab, 1);
    }
    crfp_obsseq_free(obs);
    if (st == CRFP_OK)
        st = crfp_crf_finalize(t->crf);
    return st;
}

void tinycrf_build(tinycrf *t, const tinycrf_spec *spec)
{
    if (build(t, spec) != CRFP_OK) {
        fprintf(stderr, "tiny CRF: %s\n", t->host ? crfp_errmsg(t->host) : "out of memory");
        tinycrf_free(t);
        exit(99);
    }
}

void tinycrf_free(tinycrf *t)
{
    crfp_dataset_free(t->ds);
    crfp_crf_free(t->crf);
    crfp_host_free(t->host);
    t->ds = NULL;
    t->crf = NULL;
    t->host = NULL;
}

double tinycrf_objective(const crfp_trainset *ts, const double *theta, double *g)
{
    double f;
    if (ts->batch(ts->ud, theta, 1, &f, g) != CRFP_OK)
        return NAN;
    for (size_t k = 0; k < ts->dim; k++)
        f += ts->rho1 * fabs(theta[k]);
    return f;
}

const crfp_trainer_vtable *tinycrf_trainer(crfp_host *host, const char *name,
                                           const crfp_plugin **pl)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/plugins/%s", CRFP_ABS_BUILDDIR, name);
    if (crfp_host_add_plugin_dir(host, dir) != CRFP_OK ||
        crfp_host_load_kind(host, name, CRFP_KIND_TRAINER, pl) != CRFP_OK)
        return NULL;
    return (*pl)->desc->vtable;
}

const crfp_trainer_vtable *tinycrf_module(const char *name, const char *const *params,
                                          crfp_host **host, const crfp_plugin **pl,
                                          int *problems)
{
    crfp_host *h = crfp_host_new();
    if (!h)
        exit(99);
    crfp_host_set_verbosity(h, CRFP_LOG_WARN);
    const crfp_trainer_vtable *vt = tinycrf_trainer(h, name, pl);
    if (!vt) {
        fprintf(stderr, "cannot load %s: %s\n", name, crfp_errmsg(h));
        exit(1);
    }
    const crfp_plugin_descriptor *d = (*pl)->desc;
    int bad = 0;
#define PROBLEM(...) (fprintf(stderr, "%s: ", name), fprintf(stderr, __VA_ARGS__), bad++)
    if (strcmp(d->name, name) != 0)
        PROBLEM("descriptor names '%s'\n", d->name);
    if (d->kind != CRFP_KIND_TRAINER)
        PROBLEM("kind %d, not a trainer\n", (int)d->kind);
    if (d->abi_major != CRFP_ABI_MAJOR || d->abi_minor > CRFP_ABI_MINOR)
        PROBLEM("ABI %u.%u against the host's %u.%u\n", d->abi_major, d->abi_minor,
                CRFP_ABI_MAJOR, CRFP_ABI_MINOR);
    if (vt->size != sizeof(crfp_trainer_vtable))
        PROBLEM("vtable size %zu\n", vt->size);
    for (; params && *params; params++) {
        int found = 0;
        for (size_t j = 0; j < d->nparams; j++)
            if (strcmp(d->params[j].name, *params) == 0)
                found = d->params[j].help && d->params[j].help[0] && d->params[j].defval;
        if (!found)
            PROBLEM("parameter %s missing, without default or without help\n", *params);
    }
#undef PROBLEM
    *problems = bad;
    *host = h;
    return vt;
}

crfp_status tinycrf_monitor(void *ud, const crfp_iter_info *info, const double *theta, int *stop)
{
    tinycrf_mon *m = ud;
    (void)theta;
    (void)stop;
    if (info->iter != m->iters + 1 || !(info->objective <= m->last * (1 + m->slack)) ||
        info->nevals < m->min_evals)
        m->monotone = 0;
    m->iters = info->iter;
    m->last = info->objective;
    return CRFP_OK;
}

crfp_params *tinycrf_params(crfp_host *host, const crfp_plugin *pl, const char *const *kv)
{
    crfp_params *p = crfp_params_new(pl->desc->params, pl->desc->nparams);
    if (!p)
        exit(99);
    for (; kv && kv[0]; kv += 2) {
        /* exits rather than CHECKs: test_failures is per translation unit */
        if (crfp_params_set(host, p, "test", kv[0], kv[1], NULL) != CRFP_OK) {
            fprintf(stderr, "%s: set %s=%s: %s\n", __FILE__, kv[0], kv[1], crfp_errmsg(host));
            exit(1);
        }
    }
    return p;
}
