/* crfpipe — shrinking a model to its active features, for chained training:
 * a trainer that follows another (e.g. sgd-l1 then lbfgs) works on a
 * parameter vector that holds only the observations the first one kept,
 * and a mask freezes the weights it zeroed inside them
 * (Lavergne et al. 2010, §5.3: fine-tuning the selected features). */
#include <stdlib.h>
#include <string.h>
#include "crf_impl.h"

static int block_active(const crfp_crf *crf, const double *theta, uint32_t o)
{
    uint32_t Y = crf->Y;
    if (crf->ublk[o] != CRFP_NO_BLOCK)
        for (uint32_t j = 0; j < Y; j++)
            if (theta[crf->ublk[o] + j] != 0.0)
                return 1;
    if (crf->bblk[o] != CRFP_NO_BLOCK)
        for (size_t j = 0; j < (size_t)(Y + 1) * Y; j++)
            if (theta[crf->bblk[o] + j] != 0.0)
                return 1;
    return 0;
}

/* Filter one id list through the map, appending to out. */
/* Keep the ids of [a, b) that map has, mapped, at out[k..]; with val (the
 * unigram values, or NULL) their values go to oval[k..] alike. */
static size_t filter_ids(const uint32_t *ids, const double *val, uint32_t a, uint32_t b,
                         const uint32_t *map, uint32_t *out, double *oval, size_t k)
{
    for (uint32_t i = a; i < b; i++)
        if (map[ids[i]] != UINT32_MAX) {
            if (val)
                oval[k] = val[i];
            out[k++] = map[ids[i]];
        }
    return k;
}

crfp_status crfp_crf_shrink(const crfp_crf *crf, const double *theta, crfp_crf **out_crf,
                            uint32_t **out_map, uint64_t **out_mask)
{
    return crfp_crf_shrink_keep(crf, theta, NULL, NULL, out_crf, out_map, out_mask);
}

static inline int bit(const uint64_t *set, uint32_t o)
{
    return set && ((set[o >> 6] >> (o & 63)) & 1u);
}

/* A new model, not finalized, with crf's labels, the observations whose
 * bit is set in `sel` (in their order, with their flags), its features
 * configuration and metadata; *out_map as for crfp_crf_shrink.  Errors:
 * CRFP_ENOMEM (both outputs NULL). */
static crfp_status copy_selected(const crfp_crf *crf, const uint64_t *sel, crfp_crf **out_crf,
                                 uint32_t **out_map)
{
    *out_crf = NULL;
    *out_map = NULL;
    crfp_status st = CRFP_ENOMEM;
    uint32_t nobs = crf->obs.n, Y = crf->labels.n;
    uint32_t *map = malloc(((size_t)nobs + 1) * sizeof *map);
    crfp_crf *nc = crfp_crf_new();
    if (!map || !nc)
        goto fail;
    for (uint32_t y = 0; y < Y; y++) {
        uint32_t id;
        if ((st = crfp_crf_add_label(nc, crfp_crf_label(crf, y), &id)) != CRFP_OK)
            goto fail;
    }
    /* in their order, so that ids interned first (a warm start's) keep
     * their values when all of them are kept */
    for (uint32_t o = 0; o < nobs; o++) {
        map[o] = UINT32_MAX;
        if (!bit(sel, o))
            continue;
        size_t len;
        const char *s = crfp_crf_obs(crf, o, &len);
        if ((st = crfp_crf_add_obs(nc, s, len, crf->oflags[o], &map[o])) != CRFP_OK)
            goto fail;
    }
    st = CRFP_ENOMEM;
    if (crf->fplugin && crfp_crf_set_features(nc, crf->fplugin, crf->fconfig,
                                              crf->fconfig_len) != CRFP_OK)
        goto fail;
    for (size_t i = 0; i < crf->nmeta; i++)
        if (crfp_crf_set_meta(nc, crf->meta_k[i], crf->meta_v[i]) != CRFP_OK)
            goto fail;
    *out_crf = nc;
    *out_map = map;
    return CRFP_OK;
fail:
    free(map);
    crfp_crf_free(nc);
    return st == CRFP_OK ? CRFP_ENOMEM : st;
}

crfp_status crfp_crf_shrink_keep(const crfp_crf *crf, const double *theta, const uint64_t *keep,
                                 const uint64_t *open, crfp_crf **out_crf, uint32_t **out_map,
                                 uint64_t **out_mask)
{
    *out_crf = NULL;
    *out_map = NULL;
    *out_mask = NULL;
    if (!crf->final)
        return CRFP_EINVAL;
    uint32_t nobs = crf->obs.n, Y = crf->Y;
    uint64_t *sel = calloc((size_t)nobs / 64 + 1, sizeof *sel), *mask = NULL;
    if (!sel)
        return CRFP_ENOMEM;
    for (uint32_t o = 0; o < nobs; o++)
        if (block_active(crf, theta, o) || bit(keep, o) || bit(open, o))
            sel[o >> 6] |= UINT64_C(1) << (o & 63);
    crfp_crf *nc;
    uint32_t *map;
    crfp_status st = copy_selected(crf, sel, &nc, &map);
    free(sel);
    if (st != CRFP_OK)
        return st;
    if ((st = crfp_crf_finalize(nc)) != CRFP_OK)
        goto fail;
    st = CRFP_ENOMEM;
    mask = calloc((nc->nparams + 63) / 64 + 1, sizeof *mask);
    if (!mask)
        goto fail;
    /* Blocks keep their layout (Y is unchanged), so weights copy whole. */
    for (uint32_t o = 0; o < nobs; o++) {
        if (map[o] == UINT32_MAX)
            continue;
        uint32_t n = map[o];
        uint64_t src[2] = {crf->ublk[o], crf->bblk[o]}, dst[2] = {nc->ublk[n], nc->bblk[n]};
        size_t len[2] = {Y, (size_t)(Y + 1) * Y};
        for (int k = 0; k < 2; k++) {
            if (src[k] == CRFP_NO_BLOCK)
                continue;
            int whole = bit(open, o);
            for (size_t j = 0; j < len[k]; j++) {
                double v = theta[src[k] + j];
                nc->w[dst[k] + j] = v;
                if (v != 0.0 || whole)
                    mask[(dst[k] + j) >> 6] |= UINT64_C(1) << ((dst[k] + j) & 63);
            }
        }
    }
    *out_crf = nc;
    *out_map = map;
    *out_mask = mask;
    return CRFP_OK;
fail:
    free(map);
    free(mask);
    crfp_crf_free(nc);
    return st == CRFP_OK ? CRFP_ENOMEM : st;
}

crfp_status crfp_dataset_remap(const crfp_dataset *ds, const uint32_t *map, crfp_dataset **out)
{
    *out = NULL;
    crfp_status st = CRFP_ENOMEM;
    crfp_dataset *nd = crfp_dataset_new();
    uint32_t *ids = NULL, *uoff = NULL, *boff = NULL;
    double *vals = NULL;
    size_t capids = 0, capT = 0;
    if (!nd)
        return CRFP_ENOMEM;
    for (size_t i = 0; i < crfp_dataset_size(ds); i++) {
        const crfp_seq *s = crfp_dataset_get(ds, i);
        size_t nu = s->T ? s->uoff[s->T] : 0, nb = s->T ? s->boff[s->T] : 0;
        if (nu + nb + 1 > capids) {
            capids = 2 * (nu + nb) + 64;
            uint32_t *n = realloc(ids, capids * sizeof *n);
            if (!n)
                goto fail;
            ids = n;
            double *v = realloc(vals, capids * sizeof *v);
            if (!v)
                goto fail;
            vals = v;
        }
        if ((size_t)s->T + 1 > capT) {
            capT = 2 * ((size_t)s->T + 1);
            uint32_t *a = realloc(uoff, capT * sizeof *a);
            if (!a)
                goto fail;
            uoff = a;
            uint32_t *b = realloc(boff, capT * sizeof *b);
            if (!b)
                goto fail;
            boff = b;
        }
        size_t ku = 0;
        uoff[0] = 0;
        for (uint32_t t = 0; t < s->T; t++) {
            ku = filter_ids(s->uobs, s->uval, s->uoff[t], s->uoff[t + 1], map, ids, vals, ku);
            uoff[t + 1] = (uint32_t)ku;
        }
        size_t kb = ku;
        boff[0] = 0;
        for (uint32_t t = 0; t < s->T; t++) {
            kb = filter_ids(s->bobs, NULL, s->boff[t], s->boff[t + 1], map, ids, NULL, kb);
            boff[t + 1] = (uint32_t)(kb - ku);
        }
        crfp_seq ns = {s->T, s->y, uoff, ids, boff, ids + ku, s->uval ? vals : NULL};
        if ((st = crfp_dataset_add_ids(NULL, nd, &ns)) != CRFP_OK ||
            (crfp_dataset_weight(ds, i) != 1.0 &&
             (st = crfp_dataset_set_weight(NULL, nd, i, crfp_dataset_weight(ds, i))) != CRFP_OK))
            goto fail;
    }
    free(ids);
    free(vals);
    free(uoff);
    free(boff);
    *out = nd;
    return CRFP_OK;
fail:
    free(ids);
    free(vals);
    free(uoff);
    free(boff);
    crfp_dataset_free(nd);
    return st == CRFP_OK ? CRFP_ENOMEM : st;
}

crfp_status crfp_crf_subset(const crfp_crf *crf, const uint64_t *keep, crfp_crf **out_crf,
                            uint32_t **out_map)
{
    *out_crf = NULL;
    *out_map = NULL;
    if (crf->final)
        return CRFP_EINVAL;
    return copy_selected(crf, keep, out_crf, out_map);
}
