/* crfpipe — datasets of id sequences (CSR in a few big buffers) and the
 * reusable tagging buffer. */
#include <stdlib.h>
#include <string.h>
#include "crf_impl.h"

/* A growable uint32 array.  Sequences point into these buffers, so when one
 * moves every crfp_seq is re-pointed (amortised O(1) per token). */
typedef struct u32buf {
    uint32_t *v;
    size_t n, cap;
} u32buf;

static int u32_reserve(u32buf *b, size_t extra)
{
    /* Always own a buffer, so that sequences never point at NULL + offset. */
    if (b->v && b->n + extra <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->n + extra)
        cap *= 2;
    uint32_t *v = realloc(b->v, cap * sizeof *v);
    if (!v)
        return -1;
    b->v = v;
    b->cap = cap;
    return 0;
}

typedef struct seqrec {
    size_t y, uoff, uobs, boff, bobs; /* offsets of the sequence in each buffer */
} seqrec;

struct crfp_dataset {
    u32buf y, uoff, uobs, boff, bobs;
    crfp_seq *seqs;
    seqrec *rec;
    size_t n, cap;
    size_t tokens;
};

crfp_dataset *crfp_dataset_new(void)
{
    return calloc(1, sizeof(crfp_dataset));
}

void crfp_dataset_free(crfp_dataset *ds)
{
    if (!ds)
        return;
    free(ds->y.v);
    free(ds->uoff.v);
    free(ds->uobs.v);
    free(ds->boff.v);
    free(ds->bobs.v);
    free(ds->seqs);
    free(ds->rec);
    free(ds);
}

size_t crfp_dataset_size(const crfp_dataset *ds)
{
    return ds->n;
}

size_t crfp_dataset_tokens(const crfp_dataset *ds)
{
    return ds->tokens;
}

const crfp_seq *crfp_dataset_get(const crfp_dataset *ds, size_t i)
{
    return i < ds->n ? &ds->seqs[i] : NULL;
}

static void repoint(crfp_dataset *ds, size_t i, int labelled)
{
    crfp_seq *s = &ds->seqs[i];
    const seqrec *r = &ds->rec[i];
    s->y = labelled ? ds->y.v + r->y : NULL;
    s->uoff = ds->uoff.v + r->uoff;
    s->uobs = ds->uobs.v + r->uobs;
    s->boff = ds->boff.v + r->boff;
    s->bobs = ds->bobs.v + r->bobs;
}

/* Open a new sequence of T tokens: reserves offsets and labels. */
static crfp_status begin_seq(crfp_dataset *ds, uint32_t T, int labelled)
{
    if (ds->n == ds->cap) {
        size_t cap = ds->cap ? ds->cap * 2 : 256;
        crfp_seq *s = realloc(ds->seqs, cap * sizeof *s);
        if (!s)
            return CRFP_ENOMEM;
        ds->seqs = s;
        seqrec *r = realloc(ds->rec, cap * sizeof *r);
        if (!r)
            return CRFP_ENOMEM;
        ds->rec = r;
        ds->cap = cap;
    }
    if (u32_reserve(&ds->y, labelled ? T : 0) || u32_reserve(&ds->uoff, (size_t)T + 1) ||
        u32_reserve(&ds->boff, (size_t)T + 1) || u32_reserve(&ds->uobs, 0) ||
        u32_reserve(&ds->bobs, 0))
        return CRFP_ENOMEM;
    seqrec *r = &ds->rec[ds->n];
    r->y = ds->y.n;
    r->uoff = ds->uoff.n;
    r->uobs = ds->uobs.n;
    r->boff = ds->boff.n;
    r->bobs = ds->bobs.n;
    ds->seqs[ds->n].T = T;
    ds->uoff.v[ds->uoff.n] = 0;
    ds->boff.v[ds->boff.n] = 0;
    return CRFP_OK;
}

/* Close the sequence opened by begin_seq and re-point every sequence when a
 * buffer moved during its construction. */
static void end_seq(crfp_dataset *ds, uint32_t T, int labelled, const uint32_t *old[5])
{
    ds->y.n += labelled ? T : 0;
    ds->uoff.n += (size_t)T + 1;
    ds->boff.n += (size_t)T + 1;
    ds->tokens += T;
    ds->n++;
    int moved = old[0] != ds->y.v || old[1] != ds->uoff.v || old[2] != ds->uobs.v ||
                old[3] != ds->boff.v || old[4] != ds->bobs.v;
    if (moved) {
        for (size_t i = 0; i + 1 < ds->n; i++)
            repoint(ds, i, ds->seqs[i].y != NULL);
    }
    repoint(ds, ds->n - 1, labelled);
}

#define SNAPSHOT(ds, old)        \
    do {                         \
        (old)[0] = (ds)->y.v;    \
        (old)[1] = (ds)->uoff.v; \
        (old)[2] = (ds)->uobs.v; \
        (old)[3] = (ds)->boff.v; \
        (old)[4] = (ds)->bobs.v; \
    } while (0)

crfp_status crfp_dataset_add(crfp_host *host, crfp_dataset *ds, crfp_crf *crf,
                             const crfp_obsseq *obs, const char *const *labels, int grow)
{
    if (!ds || !crf || !obs)
        return crfp_error(host, CRFP_EINVAL, "crf: dataset_add: NULL argument");
    if (grow && crf->final)
        return crfp_error(host, CRFP_EINVAL, "crf: dataset_add: cannot grow a finalized model");
    size_t ntok = crfp_obsseq_ntok(obs);
    if (ntok > UINT32_MAX - 1)
        return crfp_error(host, CRFP_EINVAL, "crf: sentence of %zu tokens is too long", ntok);
    uint32_t T = (uint32_t)ntok;
    int labelled = labels != NULL;
    const uint32_t *old[5];
    SNAPSHOT(ds, old);
    if (begin_seq(ds, T, labelled) != CRFP_OK)
        return crfp_error(host, CRFP_ENOMEM, "crf: out of memory adding a sentence");
    uint32_t *uoff = ds->uoff.v + ds->uoff.n, *boff = ds->boff.v + ds->boff.n;
    uint32_t *y = labelled ? ds->y.v + ds->y.n : NULL;
    size_t u0 = ds->uobs.n, b0 = ds->bobs.n;
    crfp_status st = CRFP_OK;
    for (uint32_t t = 0; t < T; t++) {
        if (labelled) {
            if (!labels[t]) {
                st = crfp_error(host, CRFP_EINVAL, "crf: token %u has no label", t + 1);
                goto fail;
            }
            if (grow) {
                st = crfp_crf_add_label(crf, labels[t], &y[t]);
                if (st != CRFP_OK) {
                    st = crfp_error(host, st, "crf: cannot add label '%s'", labels[t]);
                    goto fail;
                }
            } else {
                int64_t id = crfp_crf_label_id(crf, labels[t]);
                if (id < 0 || (uint64_t)id >= crfp_crf_nlabels(crf)) {
                    st = crfp_error(host, CRFP_ENOTFOUND,
                                    "crf: token %u: label '%s' unknown to the model", t + 1,
                                    labels[t]);
                    goto fail;
                }
                y[t] = (uint32_t)id;
            }
        }
        const char *const *strs;
        const unsigned char *flags;
        size_t n;
        crfp_obsseq_get(obs, t, &strs, &flags, &n);
        if (u32_reserve(&ds->uobs, n) || u32_reserve(&ds->bobs, n)) {
            st = crfp_error(host, CRFP_ENOMEM, "crf: out of memory adding a sentence");
            goto fail;
        }
        for (size_t i = 0; i < n; i++) {
            unsigned f = flags[i] & (CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM);
            uint32_t id;
            if (grow) {
                st = crfp_crf_add_obs(crf, strs[i], strlen(strs[i]), f, &id);
                if (st != CRFP_OK) {
                    st = crfp_error(host, st, "crf: cannot intern observation '%s'", strs[i]);
                    goto fail;
                }
            } else {
                int64_t have = crfp_crf_obs_id(crf, strs[i], strlen(strs[i]));
                if (have < 0)
                    continue;
                id = (uint32_t)have;
                f &= crf->oflags[id];
            }
            if (f & CRFP_OBS_UNIGRAM)
                ds->uobs.v[ds->uobs.n++] = id;
            if (f & CRFP_OBS_BIGRAM)
                ds->bobs.v[ds->bobs.n++] = id;
        }
        uoff[t + 1] = (uint32_t)(ds->uobs.n - u0);
        boff[t + 1] = (uint32_t)(ds->bobs.n - b0);
        if (ds->uobs.n - u0 > UINT32_MAX - 1 || ds->bobs.n - b0 > UINT32_MAX - 1) {
            st = crfp_error(host, CRFP_EINVAL, "crf: sentence has too many observations");
            goto fail;
        }
    }
    end_seq(ds, T, labelled, old);
    return CRFP_OK;
fail:
    /* Forget the partial sentence; earlier ones may need re-pointing. */
    ds->uobs.n = u0;
    ds->bobs.n = b0;
    for (size_t i = 0; i < ds->n; i++)
        repoint(ds, i, ds->seqs[i].y != NULL);
    return st;
}

crfp_status crfp_dataset_add_ids(crfp_host *host, crfp_dataset *ds, const crfp_seq *seq)
{
    if (!ds || !seq || (seq->T && (!seq->uoff || !seq->boff)))
        return crfp_error(host, CRFP_EINVAL, "crf: dataset_add_ids: bad sequence");
    uint32_t T = seq->T;
    int labelled = seq->y != NULL;
    size_t nu = T ? seq->uoff[T] - seq->uoff[0] : 0;
    size_t nb = T ? seq->boff[T] - seq->boff[0] : 0;
    const uint32_t *old[5];
    SNAPSHOT(ds, old);
    if (begin_seq(ds, T, labelled) != CRFP_OK || u32_reserve(&ds->uobs, nu) ||
        u32_reserve(&ds->bobs, nb))
        return crfp_error(host, CRFP_ENOMEM, "crf: out of memory adding a sentence");
    for (uint32_t t = 0; t <= T; t++) {
        ds->uoff.v[ds->uoff.n + t] = seq->uoff[t] - seq->uoff[0];
        ds->boff.v[ds->boff.n + t] = seq->boff[t] - seq->boff[0];
    }
    if (nu)
        memcpy(ds->uobs.v + ds->uobs.n, seq->uobs + seq->uoff[0], nu * sizeof(uint32_t));
    if (nb)
        memcpy(ds->bobs.v + ds->bobs.n, seq->bobs + seq->boff[0], nb * sizeof(uint32_t));
    if (labelled && T)
        memcpy(ds->y.v + ds->y.n, seq->y, T * sizeof(uint32_t));
    ds->uobs.n += nu;
    ds->bobs.n += nb;
    end_seq(ds, T, labelled, old);
    return CRFP_OK;
}

/* --- tagging buffer -------------------------------------------------------- */

struct crfp_seqbuf {
    crfp_seq seq;
    u32buf uoff, uobs, boff, bobs;
    u32buf hash, len, slot; /* per observation of the sentence, for batching */
};

crfp_seqbuf *crfp_seqbuf_new(void)
{
    return calloc(1, sizeof(crfp_seqbuf));
}

void crfp_seqbuf_free(crfp_seqbuf *b)
{
    if (!b)
        return;
    free(b->uoff.v);
    free(b->uobs.v);
    free(b->boff.v);
    free(b->bobs.v);
    free(b->hash.v);
    free(b->len.v);
    free(b->slot.v);
    free(b);
}

crfp_status crfp_seqbuf_fill(crfp_seqbuf *b, const crfp_crf *crf, const crfp_obsseq *obs,
                             const crfp_seq **seq)
{
    if (!b || !crf || !obs || !seq || !crf->final)
        return CRFP_EINVAL;
    size_t ntok = crfp_obsseq_ntok(obs);
    if (ntok > UINT32_MAX - 1)
        return CRFP_EINVAL;
    b->uoff.n = b->uobs.n = b->boff.n = b->bobs.n = 0;
    if (u32_reserve(&b->uoff, ntok + 1) || u32_reserve(&b->boff, ntok + 1))
        return CRFP_ENOMEM;
    b->uoff.v[0] = b->boff.v[0] = 0;
    /* Two passes: hash every observation of the sentence and ask for its
     * table slot, then look them up.  Over a 300k-entry table nearly every
     * lookup misses the cache; batching lets those misses overlap. */
    const crfp_dict *dict = &crf->obs;
    b->hash.n = b->len.n = 0;
    for (size_t t = 0; t < ntok; t++) {
        const char *const *strs;
        const unsigned char *flags;
        size_t n;
        crfp_obsseq_get(obs, t, &strs, &flags, &n);
        if (u32_reserve(&b->hash, n) || u32_reserve(&b->len, n))
            return CRFP_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(strs[i]);
            if (len >= UINT32_MAX)
                return CRFP_EINVAL;
            uint32_t h = crfp_dict_hash(strs[i], len);
            crfp_dict_prefetch(dict, h);
            b->hash.v[b->hash.n++] = h;
            b->len.v[b->len.n++] = (uint32_t)len;
        }
    }
    /* Then find each hash's slot (now cached) and ask for its string, and
     * only then compare strings. */
    if (u32_reserve(&b->slot, b->hash.n))
        return CRFP_ENOMEM;
    for (size_t k = 0; k < b->hash.n; k++)
        b->slot.v[k] = crfp_dict_probe(dict, b->hash.v[k]);
    size_t k = 0;
    for (size_t t = 0; t < ntok; t++) {
        const char *const *strs;
        const unsigned char *flags;
        size_t n;
        crfp_obsseq_get(obs, t, &strs, &flags, &n);
        if (u32_reserve(&b->uobs, n) || u32_reserve(&b->bobs, n))
            return CRFP_ENOMEM;
        for (size_t i = 0; i < n; i++, k++) {
            int64_t id = crfp_dict_confirm(dict, b->slot.v[k], strs[i], b->len.v[k], b->hash.v[k]);
            if (id < 0)
                continue;
            if ((flags[i] & CRFP_OBS_UNIGRAM) && crf->ublk[id] != CRFP_NO_BLOCK) {
                b->uobs.v[b->uobs.n++] = (uint32_t)id;
#if defined(__GNUC__)
                /* the decoder reads this block next: start fetching it */
                const char *blk = (const char *)(crf->w + crf->ublk[id]);
                for (size_t off = 0; off < (size_t)crf->Y * sizeof(double); off += 64)
                    __builtin_prefetch(blk + off, 0, 1);
#endif
            }
            if ((flags[i] & CRFP_OBS_BIGRAM) && crf->bblk[id] != CRFP_NO_BLOCK)
                b->bobs.v[b->bobs.n++] = (uint32_t)id;
        }
        if (b->uobs.n > UINT32_MAX - 1 || b->bobs.n > UINT32_MAX - 1)
            return CRFP_EINVAL;
        b->uoff.v[t + 1] = (uint32_t)b->uobs.n;
        b->boff.v[t + 1] = (uint32_t)b->bobs.n;
    }
    b->seq.T = (uint32_t)ntok;
    b->seq.y = NULL;
    b->seq.uoff = b->uoff.v;
    b->seq.uobs = b->uobs.v;
    b->seq.boff = b->boff.v;
    b->seq.bobs = b->bobs.v;
    *seq = &b->seq;
    return CRFP_OK;
}
