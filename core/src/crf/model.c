/* crfpipe — CRF model: labels, observations, parameter layout, metadata. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "crf_impl.h"

crfp_crf *crfp_crf_new(void)
{
    crfp_crf *crf = calloc(1, sizeof *crf);
    if (!crf)
        return NULL;
    crfp_dict_init(&crf->labels);
    crfp_dict_init(&crf->obs);
    return crf;
}

void crfp_crf_free(crfp_crf *crf)
{
    if (!crf)
        return;
    crfp_dict_free(&crf->labels);
    crfp_dict_free(&crf->obs);
    free(crf->oflags);
    free(crf->ublk);
    free(crf->bblk);
    free(crf->bidx);
    free(crf->w);
    free(crf->fplugin);
    free(crf->fconfig);
    for (size_t i = 0; i < crf->nmeta; i++) {
        free(crf->meta_k[i]);
        free(crf->meta_v[i]);
    }
    free(crf->meta_k);
    free(crf->meta_v);
    free(crf);
}

crfp_status crfp_crf_add_label(crfp_crf *crf, const char *name, uint32_t *id)
{
    if (!crf || !name || !id)
        return CRFP_EINVAL;
    int64_t have = crfp_dict_find(&crf->labels, name, strlen(name));
    if (have >= 0) {
        *id = (uint32_t)have;
        return CRFP_OK;
    }
    /* Labels are indexed with 16-bit arithmetic nowhere, but Y² blocks and
     * backpointers make huge label sets pointless; the cap keeps
     * (Y+1)·Y far from overflow. */
    if (crf->final || crf->labels.n >= 65535)
        return CRFP_EINVAL;
    return crfp_dict_intern(&crf->labels, name, strlen(name), id, NULL);
}

int64_t crfp_crf_label_id(const crfp_crf *crf, const char *name)
{
    return crfp_dict_find(&crf->labels, name, strlen(name));
}

uint32_t crfp_crf_nlabels(const crfp_crf *crf)
{
    return crf->final ? crf->Y : crf->labels.n;
}

const char *crfp_crf_label(const crfp_crf *crf, uint32_t id)
{
    if (id >= crf->labels.n)
        return NULL;
    return crfp_dict_str(&crf->labels, id, NULL);
}

crfp_status crfp_crf_add_obs(crfp_crf *crf, const char *s, size_t len, unsigned flags,
                             uint32_t *id)
{
    if (!crf || !s || !id)
        return CRFP_EINVAL;
    if (crf->final) {
        int64_t have = crfp_dict_find(&crf->obs, s, len);
        /* After finalize the layout is fixed: accept only what changes nothing. */
        if (have >= 0 && (crf->oflags[have] | flags) == crf->oflags[have]) {
            *id = (uint32_t)have;
            return CRFP_OK;
        }
        return CRFP_EINVAL;
    }
    crfp_status st = crfp_dict_intern(&crf->obs, s, len, id, NULL);
    if (st != CRFP_OK)
        return st;
    if (*id >= crf->oflags_cap) {
        size_t cap = crf->oflags_cap ? crf->oflags_cap * 2 : 1024;
        unsigned char *f = crfp_big_realloc(crf->oflags, crf->oflags_cap, cap);
        if (!f)
            return CRFP_ENOMEM;
        memset(f + crf->oflags_cap, 0, cap - crf->oflags_cap);
        crf->oflags = f;
        crf->oflags_cap = cap;
    }
    crf->oflags[*id] |= (unsigned char)(flags & (CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM));
    return CRFP_OK;
}

int64_t crfp_crf_obs_id(const crfp_crf *crf, const char *s, size_t len)
{
    return crfp_dict_find(&crf->obs, s, len);
}

uint32_t crfp_crf_nobs(const crfp_crf *crf)
{
    return crf->obs.n;
}

const char *crfp_crf_obs(const crfp_crf *crf, uint32_t id, size_t *len)
{
    if (id >= crf->obs.n)
        return NULL;
    return crfp_dict_str(&crf->obs, id, len);
}

crfp_status crfp_crf_finalize(crfp_crf *crf)
{
    if (!crf || crf->final)
        return CRFP_EINVAL;
    uint32_t n = crf->obs.n;
    uint64_t Y = crf->labels.n;
    size_t m = n ? n : 1;
    /* a call retried after CRFP_ENOMEM starts afresh */
    free(crf->ublk);
    free(crf->bblk);
    free(crf->bidx);
    crf->ublk = crfp_big_alloc(m * sizeof *crf->ublk);
    crf->bblk = crfp_big_alloc(m * sizeof *crf->bblk);
    crf->bidx = crfp_big_alloc(m * sizeof *crf->bidx);
    if (!crf->ublk || !crf->bblk || !crf->bidx)
        return CRFP_ENOMEM;
    /* Blocks in observation order: an observation's unigram and bigram
     * weights are adjacent, which keeps the gradient scatter local. */
    uint64_t off = 0;
    uint32_t nbig = 0;
    for (uint32_t o = 0; o < n; o++) {
        unsigned f = crf->oflags[o];
        crf->ublk[o] = CRFP_NO_BLOCK;
        crf->bblk[o] = CRFP_NO_BLOCK;
        crf->bidx[o] = UINT32_MAX;
        if ((f & CRFP_OBS_UNIGRAM) && Y) {
            crf->ublk[o] = off;
            off += Y;
        }
        if ((f & CRFP_OBS_BIGRAM) && Y) {
            crf->bblk[o] = off;
            off += (Y + 1) * Y;
            crf->bidx[o] = nbig++;
        }
    }
    if (off > SIZE_MAX / sizeof(double))
        return CRFP_ENOMEM;
    crf->w = crfp_big_calloc(off ? off : 1, sizeof(double));
    if (!crf->w)
        return CRFP_ENOMEM;
    crf->nparams = off;
    crf->nbig = nbig;
    crf->Y = (uint32_t)Y;
    crf->final = 1;
    return CRFP_OK;
}

size_t crfp_crf_nparams(const crfp_crf *crf)
{
    return crf->nparams;
}

double *crfp_crf_weights(crfp_crf *crf)
{
    return crf->w;
}

const double *crfp_crf_weights_const(const crfp_crf *crf)
{
    return crf->w;
}

uint64_t crfp_crf_ublock(const crfp_crf *crf, uint32_t obs)
{
    if (!crf->final || obs >= crf->obs.n)
        return CRFP_NO_BLOCK;
    return crf->ublk[obs];
}

uint64_t crfp_crf_bblock(const crfp_crf *crf, uint32_t obs)
{
    if (!crf->final || obs >= crf->obs.n)
        return CRFP_NO_BLOCK;
    return crf->bblk[obs];
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    if (n)
        memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

crfp_status crfp_crf_set_features(crfp_crf *crf, const char *plugin, const char *config,
                                  size_t len)
{
    if (!crf || !plugin || (!config && len))
        return CRFP_EINVAL;
    char *p = dupn(plugin, strlen(plugin));
    char *c = dupn(config ? config : "", len);
    if (!p || !c) {
        free(p);
        free(c);
        return CRFP_ENOMEM;
    }
    free(crf->fplugin);
    free(crf->fconfig);
    crf->fplugin = p;
    crf->fconfig = c;
    crf->fconfig_len = len;
    return CRFP_OK;
}

const char *crfp_crf_features_plugin(const crfp_crf *crf)
{
    return crf->fplugin;
}

const char *crfp_crf_features_config(const crfp_crf *crf, size_t *len)
{
    if (len)
        *len = crf->fplugin ? crf->fconfig_len : 0;
    return crf->fconfig;
}

crfp_status crfp_crf_set_meta(crfp_crf *crf, const char *key, const char *value)
{
    if (!crf || !key || !value)
        return CRFP_EINVAL;
    char *v = dupn(value, strlen(value));
    if (!v)
        return CRFP_ENOMEM;
    for (size_t i = 0; i < crf->nmeta; i++)
        if (strcmp(crf->meta_k[i], key) == 0) {
            free(crf->meta_v[i]);
            crf->meta_v[i] = v;
            return CRFP_OK;
        }
    if (crf->nmeta == crf->meta_cap) {
        size_t cap = crf->meta_cap ? crf->meta_cap * 2 : 8;
        char **k = realloc(crf->meta_k, cap * sizeof *k);
        if (k)
            crf->meta_k = k;
        char **vv = k ? realloc(crf->meta_v, cap * sizeof *vv) : NULL;
        if (!vv) {
            free(v);
            return CRFP_ENOMEM;
        }
        crf->meta_v = vv;
        crf->meta_cap = cap;
    }
    char *k = dupn(key, strlen(key));
    if (!k) {
        free(v);
        return CRFP_ENOMEM;
    }
    crf->meta_k[crf->nmeta] = k;
    crf->meta_v[crf->nmeta] = v;
    crf->nmeta++;
    return CRFP_OK;
}

const char *crfp_crf_meta(const crfp_crf *crf, const char *key)
{
    for (size_t i = 0; i < crf->nmeta; i++)
        if (strcmp(crf->meta_k[i], key) == 0)
            return crf->meta_v[i];
    return NULL;
}

size_t crfp_crf_active(const crfp_crf *crf)
{
    size_t n = 0;
    for (size_t i = 0; i < crf->nparams; i++)
        n += crf->w[i] != 0.0;
    return n;
}

crfp_status crfp_seq_check(crfp_host *host, const crfp_crf *crf, const crfp_seq *seq)
{
    if (!crf->final)
        return crfp_error(host, CRFP_EINVAL, "crf: model not finalized");
    if (!seq || (seq->T && (!seq->uoff || !seq->boff)))
        return crfp_error(host, CRFP_EINVAL, "crf: malformed sequence");
    for (uint32_t t = 0; t < seq->T; t++) {
        if (seq->uoff[t + 1] < seq->uoff[t] || seq->boff[t + 1] < seq->boff[t])
            return crfp_error(host, CRFP_EINVAL, "crf: token %u: decreasing offsets", t);
        if (seq->y && seq->y[t] >= crf->Y)
            return crfp_error(host, CRFP_EINVAL, "crf: token %u: label id %u out of range", t,
                              seq->y[t]);
        for (uint32_t i = seq->uoff[t]; i < seq->uoff[t + 1]; i++) {
            uint32_t o = seq->uobs[i];
            if (o >= crf->obs.n || crf->ublk[o] == CRFP_NO_BLOCK)
                return crfp_error(host, CRFP_EINVAL,
                                  "crf: token %u: observation %u has no unigram weights", t, o);
        }
        for (uint32_t i = seq->boff[t]; i < seq->boff[t + 1]; i++) {
            uint32_t o = seq->bobs[i];
            if (o >= crf->obs.n || crf->bblk[o] == CRFP_NO_BLOCK)
                return crfp_error(host, CRFP_EINVAL,
                                  "crf: token %u: observation %u has no bigram weights", t, o);
        }
    }
    return CRFP_OK;
}

int crfp_ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)(n > 256 ? 256 : n);
}
