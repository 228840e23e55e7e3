/* crfpipe — datasets of id sequences (CSR in a few big buffers) and the
 * reusable tagging buffer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "crf_impl.h"
#include "../doc/obsseq_impl.h"

/* A growable uint32 array.  Sequences point into these buffers, so when one
 * moves every crfp_seq is re-pointed (amortised O(1) per token). */
typedef struct u32buf {
    uint32_t *v;
    size_t n, cap;
} u32buf;

/* A growable double array: the values of valued unigram observations. */
typedef struct dblbuf {
    double *v;
    size_t n, cap;
} dblbuf;

/* Room for `extra` more elements of `size` bytes in the array *v of n
 * used and *cap held, doubling from 1024.  Always leaves a buffer, so that
 * sequences never point at NULL + offset.  -1 on ENOMEM (*v unchanged). */
static int reserve(void **v, size_t n, size_t *cap, size_t extra, size_t size)
{
    if (*v && n + extra <= *cap)
        return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < n + extra)
        c *= 2;
    void *p = realloc(*v, c * size);
    if (!p)
        return -1;
    *v = p;
    *cap = c;
    return 0;
}

static int u32_reserve(u32buf *b, size_t extra)
{
    return reserve((void **)&b->v, b->n, &b->cap, extra, sizeof *b->v);
}

static int dbl_reserve(dblbuf *b, size_t extra)
{
    return reserve((void **)&b->v, b->n, &b->cap, extra, sizeof *b->v);
}

#define NO_VALUES SIZE_MAX

typedef struct seqrec {
    size_t y, uoff, uobs, boff, bobs; /* offsets of the sequence in each buffer */
    size_t uval;                      /* in uval, or NO_VALUES: every value is 1 */
    double weight;                    /* the sequence's weight in the objective (1) */
} seqrec;

/* Values are stored only for the sequences that have one other than 1
 * (CRFsuite's attribute values): a binary corpus costs nothing more, and
 * its sequences keep uval NULL, the engine's fast path. */
struct crfp_dataset {
    u32buf y, uoff, uobs, boff, bobs;
    dblbuf uval;
    crfp_seq *seqs;
    seqrec *rec;
    size_t n, cap;
    size_t tokens;
    size_t nweighted; /* sequences of a weight other than 1 */
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
    free(ds->uval.v);
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

double crfp_dataset_weight(const crfp_dataset *ds, size_t i)
{
    return ds && i < ds->n ? ds->rec[i].weight : 1.0;
}

size_t crfp_dataset_weighted(const crfp_dataset *ds)
{
    return ds ? ds->nweighted : 0;
}

crfp_status crfp_dataset_set_weight(crfp_host *host, crfp_dataset *ds, size_t i, double w)
{
    if (!ds || i >= ds->n)
        return crfp_error(host, CRFP_EINVAL, "sequence weight: no sequence %zu", i + 1);
    if (!(w >= 0.0) || !isfinite(w) || w > CRFP_MAX_SEQ_WEIGHT)
        return crfp_error(host, CRFP_EINVAL, "sequence weight %g: not a number from 0 to %g",
                          w, CRFP_MAX_SEQ_WEIGHT);
    ds->nweighted += (w != 1.0) - (ds->rec[i].weight != 1.0);
    ds->rec[i].weight = w;
    return CRFP_OK;
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
    s->uval = r->uval == NO_VALUES ? NULL : ds->uval.v + r->uval;
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
    r->uval = NO_VALUES;
    r->weight = 1.0;
    ds->seqs[ds->n].T = T;
    ds->uoff.v[ds->uoff.n] = 0;
    ds->boff.v[ds->boff.n] = 0;
    return CRFP_OK;
}

/* Re-point the first n sequences when a buffer moved since `old` was
 * taken: also after a failed reservation, which may have moved some
 * buffers before another one could not grow. */
static void repoint_moved(crfp_dataset *ds, size_t n, const void *old[6])
{
    int moved = old[0] != ds->y.v || old[1] != ds->uoff.v || old[2] != ds->uobs.v ||
                old[3] != ds->boff.v || old[4] != ds->bobs.v || old[5] != ds->uval.v;
    for (size_t i = 0; moved && i < n; i++)
        repoint(ds, i, ds->seqs[i].y != NULL);
}

/* Close the sequence opened by begin_seq and re-point every sequence when a
 * buffer moved during its construction. */
static void end_seq(crfp_dataset *ds, uint32_t T, int labelled, const void *old[6])
{
    ds->y.n += labelled ? T : 0;
    ds->uoff.n += (size_t)T + 1;
    ds->boff.n += (size_t)T + 1;
    ds->tokens += T;
    ds->n++;
    repoint_moved(ds, ds->n - 1, old);
    repoint(ds, ds->n - 1, labelled);
}

#define SNAPSHOT(ds, old)        \
    do {                         \
        (old)[0] = (ds)->y.v;    \
        (old)[1] = (ds)->uoff.v; \
        (old)[2] = (ds)->uobs.v; \
        (old)[3] = (ds)->boff.v; \
        (old)[4] = (ds)->bobs.v; \
        (old)[5] = (ds)->uval.v; \
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
    const void *old[6];
    SNAPSHOT(ds, old);
    if (begin_seq(ds, T, labelled) != CRFP_OK) {
        repoint_moved(ds, ds->n, old);
        return crfp_error(host, CRFP_ENOMEM, "crf: out of memory adding a sentence");
    }
    uint32_t *uoff = ds->uoff.v + ds->uoff.n, *boff = ds->boff.v + ds->boff.n;
    uint32_t *y = labelled ? ds->y.v + ds->y.n : NULL;
    size_t u0 = ds->uobs.n, b0 = ds->bobs.n, v0 = ds->uval.n;
    crfp_status st = CRFP_OK;
    crfp_obsview ov;
    crfp_obsseq_view(obs, &ov);
    if (ov.val) {
        if (dbl_reserve(&ds->uval, ov.nent)) {
            repoint_moved(ds, ds->n, old);
            return crfp_error(host, CRFP_ENOMEM, "crf: out of memory adding a sentence");
        }
        ds->rec[ds->n].uval = v0;
    }
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
        size_t e0, e1;
        crfp_obsview_range(&ov, t, &e0, &e1);
        if (u32_reserve(&ds->uobs, e1 - e0) || u32_reserve(&ds->bobs, e1 - e0)) {
            st = crfp_error(host, CRFP_ENOMEM, "crf: out of memory adding a sentence");
            goto fail;
        }
        for (size_t i = e0; i < e1; i++) {
            unsigned f = ov.flags[i] & (CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM);
            uint32_t id;
            if (grow) {
                st = crfp_crf_add_obs(crf, ov.str[i], ov.klen[i], f, &id);
                if (st != CRFP_OK) {
                    st = crfp_error(host, st, "crf: cannot intern observation '%s'", ov.str[i]);
                    goto fail;
                }
            } else {
                int64_t have = crfp_crf_obs_id(crf, ov.str[i], ov.klen[i]);
                if (have < 0)
                    continue;
                id = (uint32_t)have;
                f &= crf->oflags[id];
            }
            if (f & CRFP_OBS_UNIGRAM) {
                ds->uobs.v[ds->uobs.n++] = id;
                if (ov.val)
                    ds->uval.v[ds->uval.n++] = ov.val[i];
            }
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
    if (ov.val) {
        /* values other than 1 only on observations the model dropped */
        int ones = 1;
        for (size_t k = v0; k < ds->uval.n && ones; k++)
            ones = ds->uval.v[k] == 1.0;
        if (ones) {
            ds->uval.n = v0;
            ds->rec[ds->n].uval = NO_VALUES;
        }
    }
    end_seq(ds, T, labelled, old);
    return CRFP_OK;
fail:
    /* Forget the partial sentence; earlier ones may need re-pointing. */
    ds->uobs.n = u0;
    ds->bobs.n = b0;
    ds->uval.n = v0;
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
    for (size_t k = 0; seq->uval && k < nu; k++)
        if (!isfinite(seq->uval[seq->uoff[0] + k]))
            return crfp_error(host, CRFP_EINVAL, "crf: dataset_add_ids: a value is not finite");
    const void *old[6];
    SNAPSHOT(ds, old);
    if (begin_seq(ds, T, labelled) != CRFP_OK || u32_reserve(&ds->uobs, nu) ||
        u32_reserve(&ds->bobs, nb) || (seq->uval && dbl_reserve(&ds->uval, nu))) {
        repoint_moved(ds, ds->n, old);
        return crfp_error(host, CRFP_ENOMEM, "crf: out of memory adding a sentence");
    }
    for (uint32_t t = 0; t <= T; t++) {
        ds->uoff.v[ds->uoff.n + t] = seq->uoff[t] - seq->uoff[0];
        ds->boff.v[ds->boff.n + t] = seq->boff[t] - seq->boff[0];
    }
    if (nu)
        memcpy(ds->uobs.v + ds->uobs.n, seq->uobs + seq->uoff[0], nu * sizeof(uint32_t));
    if (nb)
        memcpy(ds->bobs.v + ds->bobs.n, seq->bobs + seq->boff[0], nb * sizeof(uint32_t));
    if (seq->uval) {
        ds->rec[ds->n].uval = ds->uval.n;
        if (nu)
            memcpy(ds->uval.v + ds->uval.n, seq->uval + seq->uoff[0], nu * sizeof(double));
        ds->uval.n += nu;
    }
    if (labelled && T)
        memcpy(ds->y.v + ds->y.n, seq->y, T * sizeof(uint32_t));
    ds->uobs.n += nu;
    ds->bobs.n += nb;
    end_seq(ds, T, labelled, old);
    return CRFP_OK;
}

crfp_status crfp_dataset_obs_counts(const crfp_dataset *ds, uint32_t nobs, uint64_t *counts)
{
    for (size_t i = 0; i < ds->n; i++) {
        const crfp_seq *q = &ds->seqs[i];
        if (!q->T)
            continue;
        for (int kind = 0; kind < 2; kind++) {
            const uint32_t *ids = kind ? q->bobs : q->uobs, *off = kind ? q->boff : q->uoff;
            for (uint32_t j = off[0]; j < off[q->T]; j++) {
                if (ids[j] >= nobs)
                    return CRFP_EINVAL;
                counts[2 * (size_t)ids[j] + (size_t)kind]++;
            }
        }
    }
    return CRFP_OK;
}

/* --- tagging buffer -------------------------------------------------------- */

struct crfp_seqbuf {
    crfp_seq seq;
    u32buf uoff, uobs, boff, bobs;
    dblbuf uval;
    u32buf hash, slot; /* per observation of the sentence, for batching */
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
    free(b->uval.v);
    free(b->hash.v);
    free(b->slot.v);
    free(b);
}

/* Ask for the cache lines of a unigram block: the decoder reads it next, and
 * over a large model nearly every block is a miss. */
static inline void prefetch_block(const double *blk, uint32_t Y)
{
#if defined(__GNUC__)
    const char *p = (const char *)blk;
    const char *end = (const char *)(blk + Y) - 1;
    for (; p <= end; p += 64)
        __builtin_prefetch(p, 0, 1);
    /* the block's last line when it straddles one more boundary */
    __builtin_prefetch(end, 0, 1);
#else
    (void)blk, (void)Y;
#endif
}

crfp_status crfp_seqbuf_fill(crfp_seqbuf *b, const crfp_crf *crf, const crfp_obsseq *obs,
                             const crfp_seq **seq)
{
    if (!b || !crf || !obs || !seq || !crf->final)
        return CRFP_EINVAL;
    crfp_obsview ov;
    crfp_obsseq_view(obs, &ov);
    const size_t ntok = ov.ntok, nent = ov.nent;
    if (ntok > UINT32_MAX - 1 || nent > UINT32_MAX - 1)
        return CRFP_EINVAL;
    b->uoff.n = b->uobs.n = b->boff.n = b->bobs.n = b->hash.n = b->slot.n = 0;
    if (u32_reserve(&b->uoff, ntok + 1) || u32_reserve(&b->boff, ntok + 1) ||
        u32_reserve(&b->uobs, nent) || u32_reserve(&b->bobs, nent) ||
        u32_reserve(&b->hash, nent) || u32_reserve(&b->slot, nent))
        return CRFP_ENOMEM;
    b->uval.n = 0;
    const double *oval = ov.val;
    if (oval && dbl_reserve(&b->uval, nent))
        return CRFP_ENOMEM;
    double *uval = oval ? b->uval.v : NULL;
    /* Three passes over the whole sentence: hash every observation and ask
     * for its table slot; find each slot (now cached) and ask for its
     * string; only then compare strings.  Over a 300k-entry table nearly
     * every step misses the cache, and batching lets the misses overlap.
     * The key lengths come from the obsseq: no strlen here. */
    const crfp_dict *dict = &crf->obs;
    const char *const *str = ov.str;
    const size_t *klen = ov.klen;
    uint32_t *hash = b->hash.v, *slot = b->slot.v;
    for (size_t k = 0; k < nent; k++) {
        if (klen[k] >= UINT32_MAX)
            return CRFP_EINVAL;
        uint32_t h = crfp_dict_hash_inline(str[k], klen[k]);
        crfp_dict_prefetch(dict, h);
        hash[k] = h;
    }
    for (size_t k = 0; k < nent; k++)
        slot[k] = crfp_dict_probe(dict, hash[k]);
    const uint64_t *ublk = crf->ublk, *bblk = crf->bblk;
    /* The slot already names the id its string will most likely confirm:
     * ask for the id's block offsets now, a third miss per observation that
     * would otherwise stall the loop below. */
#if defined(__GNUC__)
    for (size_t k = 0; k < nent; k++) {
        if (slot[k] == UINT32_MAX)
            continue;
        const uint32_t id = dict->slots[slot[k]].id;
        const unsigned f = ov.flags[k];
        if (f & CRFP_OBS_UNIGRAM)
            __builtin_prefetch(&ublk[id], 0, 1);
        if (f & CRFP_OBS_BIGRAM)
            __builtin_prefetch(&bblk[id], 0, 1);
    }
#endif
    const double *wts = crf->w;
    const uint32_t Y = crf->Y;
    uint32_t *uobs = b->uobs.v, *bobs = b->bobs.v, *uoff = b->uoff.v, *boff = b->boff.v;
    uint32_t nu = 0, nb = 0;
    uoff[0] = boff[0] = 0;
    for (size_t t = 0; t < ntok; t++) {
        size_t e0, e1;
        crfp_obsview_range(&ov, t, &e0, &e1);
        for (size_t k = e0; k < e1; k++) {
            int64_t id = crfp_dict_confirm(dict, slot[k], str[k], klen[k], hash[k]);
            if (id < 0)
                continue;
            const unsigned f = ov.flags[k];
            if ((f & CRFP_OBS_UNIGRAM) && ublk[id] != CRFP_NO_BLOCK) {
                if (uval)
                    uval[nu] = oval[k];
                uobs[nu++] = (uint32_t)id;
                prefetch_block(wts + ublk[id], Y);
            }
            if ((f & CRFP_OBS_BIGRAM) && bblk[id] != CRFP_NO_BLOCK)
                bobs[nb++] = (uint32_t)id;
        }
        uoff[t + 1] = nu;
        boff[t + 1] = nb;
    }
    b->uobs.n = nu;
    b->bobs.n = nb;
    b->seq.T = (uint32_t)ntok;
    b->seq.y = NULL;
    b->seq.uoff = uoff;
    b->seq.uobs = uobs;
    b->seq.boff = boff;
    b->seq.bobs = bobs;
    b->seq.uval = uval;
    *seq = &b->seq;
    return CRFP_OK;
}
