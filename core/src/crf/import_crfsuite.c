/* Reading a CRFsuite model file (crf1d, as `crfsuite learn`, python-crfsuite
 * and sklearn-crfsuite write it) into a crfpipe model.
 *
 * The file, all little-endian: a 48-byte header ("lCRF", file size, "FOMC",
 * version 100, then counts and offsets of the feature chunk, the label and
 * attribute string tables and two reference chunks), a "FEAT" chunk of
 * 20-byte features (type, source, destination, IEEE double weight), and
 * the two string tables in CQDB format: a 24-byte header ("CQDB", chunk
 * size, flags, byte-order mark, and the size and offset of a backward
 * array), 256 hash tables, the records (id, key size, key with its NUL),
 * and the backward array giving each id's record offset, relative to the
 * chunk (cqdb.h).  The backward arrays give the strings (id → string); the
 * hash tables, through which CRFsuite finds them, are checked to find every
 * one (a file whose index is broken is corrupted, and CRFsuite would tag
 * with it wrongly); the reference chunks are derived data and are not read.
 *
 * CRFsuite's linear chain scores a labelling with state features
 * (attribute a, label y) and transition features (label y', label y), with
 * no start or end weights.  In crfpipe that is an observation per
 * attribute with a unigram block, and one constant observation "B" whose
 * bigram block holds the transitions — what the attributes features plugin
 * extracts from CRFsuite data (bigram=bias) — with the start row left at
 * zero.  So tagging with the imported model gives CRFsuite's labelling and
 * probabilities.
 *
 * Everything in the file is checked before it is used: every offset and
 * size against the file and its chunk, every id against its table, strings
 * NUL-terminated without a NUL inside, labels and attributes unique,
 * weights finite; the host's model-labels and model-params limits apply as
 * to crfpipe's own models.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cqdb.h"
#include "crf_impl.h"
#include "crfpipe/host.h"

#define HEADER_SIZE 48
#define FEATURE_SIZE 20
#define le32 crfp_le32

/* Feature k of the FEAT chunk's records at feat: type, source and
 * destination ids, weight (an IEEE double, little-endian like the rest). */
static void feature(const unsigned char *feat, uint32_t k, uint32_t *type, uint32_t *src,
                    uint32_t *dst, double *w)
{
    const unsigned char *f = feat + (size_t)k * FEATURE_SIZE;
    *type = le32(f);
    *src = le32(f + 4);
    *dst = le32(f + 8);
    uint64_t bits = (uint64_t)le32(f + 12) | (uint64_t)le32(f + 16) << 32;
    memcpy(w, &bits, sizeof *w);
}

int crfp_crf_is_crfsuite(const void *head, size_t n)
{
    return n >= 12 && memcmp(head, "lCRF", 4) == 0 && memcmp((const char *)head + 8, "FOMC", 4) == 0;
}

crfp_status crfp_crf_import_crfsuite(crfp_host *host, const char *path, const char *features,
                                     const char *config, size_t config_len, crfp_crf **out)
{
    if (!path || !features || !out || (!config && config_len))
        return crfp_error(host, CRFP_EINVAL, "crf: import: NULL argument");
    *out = NULL;
    unsigned char *file;
    size_t n = 0;
    crfp_status st = crfp_model_read_all(host, path, &file, &n);
    if (st != CRFP_OK)
        return st;
    crfp_crf *crf = NULL;
    const char *what = NULL, *why = NULL;
    uint32_t *obs_of = NULL;   /* per attribute: its observation, UINT32_MAX if none */
    crfp_cqdb labels, attrs;
    const unsigned char *feat = NULL;
    uint32_t nfeat = 0, Y = 0, A = 0;
    if (n < HEADER_SIZE || !crfp_crf_is_crfsuite(file, n)) {
        st = crfp_crf_is_crfsuite(file, n)
                 ? crfp_error(host, CRFP_EFORMAT, "%s: a CRFsuite model cut short: %zu bytes, "
                              "less than its %d-byte header", path, n, HEADER_SIZE)
                 : crfp_error(host, CRFP_EFORMAT, "%s: not a CRFsuite model (no lCRF/FOMC "
                              "header)", path);
        goto out;
    }
    uint32_t version = le32(file + 12);
    Y = le32(file + 20);
    A = le32(file + 24);
    uint32_t off_feat = le32(file + 28), off_lab = le32(file + 32), off_attr = le32(file + 36);
    if (version != 100) {
        st = crfp_error(host, CRFP_EFORMAT,
                        "%s: CRFsuite model version %lu; crfpipe reads version 100 (CRFsuite "
                        "0.12)", path, (unsigned long)version);
        goto out;
    }
    if (le32(file + 4) != n) {
        st = crfp_error(host, CRFP_EFORMAT,
                        "%s: the header gives %lu bytes, the file has %zu (truncated or "
                        "corrupted)", path, (unsigned long)le32(file + 4), n);
        goto out;
    }
    size_t maxY = crfp_host_limit(host, CRFP_LIMIT_MODEL_LABELS);
    if (Y == 0 || Y > 65535 || (maxY && Y > maxY)) {
        st = crfp_error(host, CRFP_EFORMAT,
                        Y == 0 ? "%s: a CRFsuite model without labels"
                               : "%s: %lu labels, more than crfpipe's 65,535 or the limit "
                                 "model-labels (--limit model-labels=N if the model is trusted)",
                        path, (unsigned long)Y);
        goto out;
    }
    if ((what = crfp_cqdb_open(file, n, off_lab, &labels)) != NULL) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: label table: %s", path, what);
        goto out;
    }
    if (A > 0 && (what = crfp_cqdb_open(file, n, off_attr, &attrs)) != NULL) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: attribute table: %s", path, what);
        goto out;
    }
    /* Every id needs an entry of the table's id array, which lies within
     * the file: this bounds the counts, and what is allocated for them, by
     * the file's size. */
    if (Y > labels.bwd_size || (A > 0 && A > attrs.bwd_size)) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: the header gives %lu %s, the table holds %lu",
                        path, (unsigned long)(Y > labels.bwd_size ? Y : A),
                        Y > labels.bwd_size ? "labels" : "attributes",
                        (unsigned long)(Y > labels.bwd_size ? labels.bwd_size : attrs.bwd_size));
        goto out;
    }
    if (off_feat > n || n - off_feat < 12 || memcmp(file + off_feat, "FEAT", 4) != 0) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: no FEAT chunk at offset %lu", path,
                        (unsigned long)off_feat);
        goto out;
    }
    nfeat = le32(file + off_feat + 8);
    if ((n - off_feat - 12) / FEATURE_SIZE < nfeat) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: %lu features run past the end of the file",
                        path, (unsigned long)nfeat);
        goto out;
    }
    feat = file + off_feat + 12;

    if (!(crf = crfp_crf_new()) || !(obs_of = malloc((A ? A : 1) * sizeof *obs_of))) {
        st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (uint32_t y = 0; y < Y; y++) {
        size_t len;
        const char *s = crfp_cqdb_string(&labels, y, &len, &why);
        if (!s) {
            st = crfp_error(host, CRFP_EFORMAT, "%s: the label table %s %lu", path, why,
                            (unsigned long)y);
            goto out;
        }
        if (crfp_crf_label_id(crf, s) >= 0) {
            st = crfp_error(host, CRFP_EFORMAT, "%s: label %lu ('%.64s') appears twice", path,
                            (unsigned long)y, s);
            goto out;
        }
        if (crfp_cqdb_find(&labels, s, len) != (int64_t)y) {
            st = crfp_error(host, CRFP_EFORMAT, "%s: the label table's hash index does not "
                            "find label %lu ('%.64s')", path, (unsigned long)y, s);
            goto out;
        }
        uint32_t id;
        if ((st = crfp_crf_add_label(crf, s, &id)) != CRFP_OK) {
            st = crfp_error(host, st, "%s: out of memory", path);
            goto out;
        }
    }
    /* Pass 1: check every feature; note the attributes that carry weight
     * and whether a transition does. */
    int trans = 0;
    for (uint32_t a = 0; a < A; a++)
        obs_of[a] = UINT32_MAX;
    for (uint32_t k = 0; k < nfeat; k++) {
        uint32_t type, src, dst;
        double w;
        feature(feat, k, &type, &src, &dst, &w);
        if (type > 1 || dst >= Y || src >= (type == 0 ? A : Y) || !isfinite(w)) {
            st = crfp_error(host, CRFP_EFORMAT,
                            "%s: feature %lu: %s", path, (unsigned long)k,
                            type > 1   ? "a type that is neither state (0) nor transition (1)"
                            : !isfinite(w) ? "a weight that is not a finite number"
                            : type == 0  ? "an attribute or label id out of range"
                                         : "a label id out of range");
            goto out;
        }
        if (w != 0.0) {
            if (type == 0)
                obs_of[src] = 0;   /* numbered below */
            else
                trans = 1;
        }
    }
    /* The observations: the attributes that carry weight, in id order,
     * then the constant bigram observation. */
    uint64_t nparams = 0;
    for (uint32_t a = 0; a < A; a++) {
        size_t len;
        const char *s = crfp_cqdb_string(&attrs, a, &len, &why);
        if (!s) {
            st = crfp_error(host, CRFP_EFORMAT, "%s: the attribute table %s %lu", path, why,
                            (unsigned long)a);
            goto out;
        }
        if (crfp_cqdb_find(&attrs, s, len) != (int64_t)a) {
            st = crfp_error(host, CRFP_EFORMAT, "%s: the attribute table's hash index does not "
                            "find attribute %lu ('%.64s')", path, (unsigned long)a, s);
            goto out;
        }
        if (obs_of[a] == UINT32_MAX)
            continue;
        uint32_t id, before = crfp_crf_nobs(crf);
        if ((st = crfp_crf_add_obs(crf, s, len, CRFP_OBS_UNIGRAM, &id)) != CRFP_OK) {
            st = crfp_error(host, st, st == CRFP_ENOMEM ? "%s: out of memory"
                                                        : "%s: too many attributes", path);
            goto out;
        }
        if (crfp_crf_nobs(crf) == before) {
            st = crfp_error(host, CRFP_EFORMAT, "%s: attribute %lu ('%.64s') appears twice",
                            path, (unsigned long)a, s);
            goto out;
        }
        obs_of[a] = id;
        nparams += Y;
        if ((st = crfp_import_params_check(host, path, nparams)) != CRFP_OK)
            goto out;
    }
    uint32_t bobs = 0;
    nparams += trans ? ((uint64_t)Y + 1) * Y : 0;
    if ((st = crfp_import_params_check(host, path, nparams)) != CRFP_OK)
        goto out;
    if (trans && (st = crfp_crf_add_obs(crf, "B", 1, CRFP_OBS_BIGRAM, &bobs)) != CRFP_OK) {
        st = crfp_error(host, st, "%s: out of memory", path);
        goto out;
    }
    if ((st = crfp_crf_finalize(crf)) != CRFP_OK ||
        (st = crfp_crf_set_features(crf, features, config, config_len)) != CRFP_OK) {
        st = crfp_error(host, st, "%s: out of memory for the model's weights", path);
        goto out;
    }
    /* Pass 2: the weights.  A feature listed twice adds up, as CRFsuite's
     * score would. */
    double *w = crfp_crf_weights(crf);
    uint64_t bblk = trans ? crfp_crf_bblock(crf, bobs) : CRFP_NO_BLOCK;
    for (uint32_t k = 0; k < nfeat; k++) {
        uint32_t type, src, dst;
        double v;
        feature(feat, k, &type, &src, &dst, &v);
        if (v == 0.0)
            continue;
        if (type == 1) {
            w[bblk + (size_t)src * Y + dst] += v;
        } else {
            w[crfp_crf_ublock(crf, obs_of[src]) + dst] += v;
        }
    }
    for (size_t i = 0, np = crfp_crf_nparams(crf); i < np; i++)
        if (!isfinite(w[i])) {
            st = crfp_error(host, CRFP_EFORMAT, "%s: weights add up to a number that is not "
                                                "finite", path);
            goto out;
        }
    st = CRFP_OK;
    *out = crf;
    crf = NULL;
out:
    crfp_crf_free(crf);
    free(obs_of);
    free(file);
    return st;
}
