/* Writing a crfpipe model as a CRFsuite model file (crf1d, version 100),
 * which `crfsuite tag`, python-crfsuite and sklearn-crfsuite open.
 *
 * CRFsuite scores a labelling with state features (attribute a, label y)
 * and transitions (label y', label y), with no start weights.  A crfpipe
 * model says the same when its unigram blocks are the state features of
 * the attributes spelled as its observations, and its label-pair weights
 * are all in the bigram block of one observation that fires at every
 * position (the attributes plugin's "B"), whose start row is zero: what
 * `--features attributes --all-transitions false` trains, and what
 * `crfpipe model import` makes of a CRFsuite model.  Anything else would
 * score differently in CRFsuite, and is refused with the reason.
 *
 * The file (import_crfsuite.c reads it): a 48-byte header; the "FEAT"
 * chunk, one 20-byte record per non-zero weight (type 0 state / 1
 * transition, source, destination, weight); the label and the attribute
 * string tables (cqdb.h), only attributes with a non-zero weight, as
 * CRFsuite stores them; then, each at a 4-byte boundary, the "LFRF" chunk
 * (per label, the transitions leaving it; CRFsuite sizes its offset array
 * for L + 2 labels, the last two empty) and the "AFRF" chunk (per
 * attribute, its state features), each an array of absolute offsets to
 * lists of a count and feature ids.  Written as crfpipe's models are
 * (crfp_model_write: a temporary, renamed).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cqdb.h"
#include "crf_impl.h"

typedef struct feat {
    uint32_t type, src, dst;
    double w;
} feat;

static void put_feature(crfp_bytes *b, const feat *f)
{
    uint64_t bits;
    memcpy(&bits, &f->w, sizeof bits);
    crfp_bytes_put32(b, f->type);
    crfp_bytes_put32(b, f->src);
    crfp_bytes_put32(b, f->dst);
    crfp_bytes_put32(b, (uint32_t)bits);
    crfp_bytes_put32(b, (uint32_t)(bits >> 32));
}

/* Append f to the growing array *fs (*nf used of *cap).  0 on ENOMEM. */
static int push_feat(feat **fs, size_t *nf, size_t *cap, feat f)
{
    if (*nf == *cap) {
        feat *n = realloc(*fs, 2 * *cap * sizeof *n);
        if (!n)
            return 0;
        *fs = n;
        *cap *= 2;
    }
    (*fs)[(*nf)++] = f;
    return 1;
}

static void align4(crfp_bytes *b)
{
    /* (a put after a failed one adds nothing: stop there) */
    while (b->n % 4 && !b->oom)
        crfp_bytes_put(b, "", 1);
}

/* A reference chunk ("LFRF"/"AFRF"): `slots` offsets (the first n filled),
 * then for each of the n sources the features whose source it is.  Returns
 * the chunk's offset. */
static uint32_t put_refs(crfp_bytes *b, const char *id, uint32_t n, uint32_t slots,
                         const feat *fs, size_t nf, uint32_t type)
{
    align4(b);
    const size_t at = b->n;
    crfp_bytes_put(b, id, 4);
    crfp_bytes_put32(b, 0);
    crfp_bytes_put32(b, slots);
    for (uint32_t i = 0; i < slots; i++)
        crfp_bytes_put32(b, 0);
    /* the features are in source order within each type (see below), so
     * one pass finds each source's run */
    size_t k = 0;
    while (k < nf && fs[k].type != type)
        k++;
    for (uint32_t s = 0; s < n; s++) {
        size_t e = k;
        while (e < nf && fs[e].type == type && fs[e].src == s)
            e++;
        crfp_bytes_set32(b, at + 12 + 4 * (size_t)s, (uint32_t)b->n);
        crfp_bytes_put32(b, (uint32_t)(e - k));
        for (size_t j = k; j < e; j++)
            crfp_bytes_put32(b, (uint32_t)j);
        k = e;
    }
    crfp_bytes_set32(b, at + 4, (uint32_t)(b->n - at));
    return (uint32_t)at;
}

crfp_status crfp_crf_export_crfsuite(crfp_host *host, const crfp_crf *crf, const char *features,
                                     const char *bias, const char *path)
{
    if (!crf || !features || !bias || !path)
        return crfp_error(host, CRFP_EINVAL, "export: NULL argument");
    if (!crf->final || !crf->w)
        return crfp_error(host, CRFP_EINVAL, "the model has no weights");
    if (!crf->fplugin || strcmp(crf->fplugin, features) != 0)
        return crfp_error(host, CRFP_EINVAL,
                          "a model of the %s features plugin; CRFsuite's models hold "
                          "attributes given with the data (the %s plugin) and a constant label "
                          "bigram: train with --features %s --all-transitions false",
                          crf->fplugin ? crf->fplugin : "(no)", features, features);
    const uint32_t Y = crf->Y, nobs = (uint32_t)crf->obs.n;
    const double *w = crf->w;
    int64_t b = crfp_crf_obs_id(crf, bias, strlen(bias));
    /* label-pair weights anywhere but in the bias observation's block have
     * no place in CRFsuite's model */
    for (uint32_t o = 0; o < nobs; o++) {
        if (crf->bblk[o] == CRFP_NO_BLOCK)
            continue;
        const double *bw = w + crf->bblk[o];
        for (size_t j = 0; j < ((size_t)Y + 1) * Y; j++) {
            if (bw[j] == 0.0)
                continue;
            if ((int64_t)o != b)
                return crfp_error(host, CRFP_EINVAL,
                                  "observation '%.64s' has label-pair weights, which "
                                  "CRFsuite's transitions (one weight per label pair, no "
                                  "attribute) cannot hold", crfp_crf_obs(crf, o, NULL));
            if (j >= (size_t)Y * Y)
                return crfp_error(host, CRFP_EINVAL,
                                  "the model has start weights (for the first label of a "
                                  "sentence), which a CRFsuite model has no place for: train "
                                  "it with --all-transitions false");
        }
    }
    /* The features: state ones in attribute order, then transitions in
     * label order; attributes numbered in order among the observations
     * with a non-zero unigram weight. */
    size_t nf = 0, cap = 1024;
    feat *fs = malloc(cap * sizeof *fs);
    const char **astr = malloc((nobs ? nobs : 1) * sizeof *astr);
    size_t *alen = malloc((nobs ? nobs : 1) * sizeof *alen);
    const char **lstr = malloc((Y ? Y : 1) * sizeof *lstr);
    size_t *llen = malloc((Y ? Y : 1) * sizeof *llen);
    crfp_bytes out = {0};
    crfp_status st = CRFP_OK;
    int oom = 0;
    uint32_t A = 0;
    if (!fs || !astr || !alen || !lstr || !llen) {
        oom = 1;
        goto done;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t o = 0; pass == 0 && o < nobs; o++) {
            if (crf->ublk[o] == CRFP_NO_BLOCK)
                continue;
            const double *uw = w + crf->ublk[o];
            int used = 0;
            for (uint32_t y = 0; y < Y; y++) {
                if (uw[y] == 0.0)
                    continue;
                if (!push_feat(&fs, &nf, &cap, (feat){0, A, y, uw[y]})) {
                    oom = 1;
                    goto done;
                }
                used = 1;
            }
            if (used) {
                astr[A] = crfp_crf_obs(crf, o, &alen[A]);
                A++;
            }
        }
        for (uint32_t r = 0; pass == 1 && b >= 0 && crf->bblk[b] != CRFP_NO_BLOCK && r < Y; r++)
            for (uint32_t c = 0; c < Y; c++) {
                double v = w[crf->bblk[b] + (size_t)r * Y + c];
                if (v == 0.0)
                    continue;
                if (!push_feat(&fs, &nf, &cap, (feat){1, r, c, v})) {
                    oom = 1;
                    goto done;
                }
            }
    }
    if (nf > UINT32_MAX / 20) {
        st = crfp_error(host, CRFP_EINVAL, "%s: %zu features, more than a CRFsuite model holds",
                        path, nf);
        goto done;
    }
    for (uint32_t y = 0; y < Y; y++)
        lstr[y] = crfp_crf_label(crf, y), llen[y] = strlen(lstr[y]);

    unsigned char head[48] = {0};
    crfp_bytes_put(&out, head, sizeof head);
    const uint32_t off_feat = (uint32_t)out.n;
    crfp_bytes_put(&out, "FEAT", 4);
    crfp_bytes_put32(&out, (uint32_t)(12 + 20 * nf));
    crfp_bytes_put32(&out, (uint32_t)nf);
    for (size_t k = 0; k < nf; k++)
        put_feature(&out, &fs[k]);
    const uint32_t off_lab = (uint32_t)out.n;
    crfp_cqdb_write(&out, lstr, llen, Y);
    const uint32_t off_attr = (uint32_t)out.n;
    crfp_cqdb_write(&out, astr, alen, A);
    const uint32_t off_lref = put_refs(&out, "LFRF", Y, Y + 2, fs, nf, 1);
    const uint32_t off_aref = put_refs(&out, "AFRF", A, A, fs, nf, 0);
    if (out.oom) {
        oom = 1;
        goto done;
    }
    if (out.n > UINT32_MAX) {
        st = crfp_error(host, CRFP_EINVAL, "%s: %zu bytes, more than a CRFsuite model holds", path,
                        out.n);
        goto done;
    }
    memcpy(out.p, "lCRF", 4);
    crfp_bytes_set32(&out, 4, (uint32_t)out.n);
    memcpy(out.p + 8, "FOMC", 4);
    const uint32_t fields[] = {100, (uint32_t)nf, Y, A, off_feat, off_lab, off_attr, off_lref,
                               off_aref};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        crfp_bytes_set32(&out, 12 + 4 * i, fields[i]);

    st = crfp_model_write(host, path, out.p, out.n);
done:
    if (oom)
        st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory", path);
    free(fs);
    free(astr);
    free(alen);
    free(lstr);
    free(llen);
    free(out.p);
    return st;
}
