/* crfpipe — the dictionary every rank shares (crfp_dist_merge_dict).
 *
 * A single process numbers labels and observations in the order it first
 * meets them.  Each rank only meets those of its own sentences, but it
 * knows where each of its sentences stands in the single-process order
 * (crfp_shard_order), so each entry gets a key: (position of the first
 * sentence holding it, its id on this rank).  The second part orders the
 * entries first met in the same sentence, which only one rank holds, so
 * local ids order them exactly as a single process would.  The union keeps
 * each string's smallest key and ORs its unigram/bigram flags; sorted by
 * key it is the single-process numbering.  Entries interned before any
 * sentence (a warm-start model's) keep their places at the front: every
 * rank interned them first, in the same order.
 *
 * The union is reduced along a binomial tree (rank r + 2^s sends its
 * subtree's union to rank r at step s), so each rank receives at most
 * log2 P lists and no rank receives P of them, then rank 0 sorts and
 * broadcasts the result.  Traffic: the dictionary's size times about
 * log2 P at rank 0, once per run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "../crf/crf_impl.h"
#include "../mpi/comm.h"

/* One string of a list: key, flags, and where its bytes are. */
typedef struct entry {
    uint64_t key1;  /* 0 for the leading fixed entries, else 1 + sentence order */
    uint32_t key2;  /* id on the rank that met it first */
    uint32_t len;
    uint64_t off;   /* into the list's arena */
    uint8_t flags;  /* CRFP_OBS_* (0 for labels) */
    uint8_t label;  /* 1: a label, 0: an observation */
} entry;

typedef struct list {
    entry *e;
    size_t n, cap;
    char *arena;
    size_t alen, acap;
    crfp_dict index[2]; /* string -> entry number, per kind (labels, observations) */
    uint32_t *at[2];    /* dict id -> entry number */
    size_t atcap[2];
} list;

static void list_free(list *l)
{
    free(l->e);
    free(l->arena);
    for (int k = 0; k < 2; k++) {
        crfp_dict_free(&l->index[k]);
        free(l->at[k]);
    }
    memset(l, 0, sizeof *l);
}

/* Add an entry, or merge it into the one with the same string and kind:
 * smallest key, flags ORed. */
static crfp_status list_put(list *l, int label, const char *s, uint32_t len, uint64_t key1,
                            uint32_t key2, uint8_t flags)
{
    crfp_dict *d = &l->index[label];
    uint32_t id;
    int added = 0;
    crfp_status st = crfp_dict_intern(d, s, len, &id, &added);
    if (st != CRFP_OK)
        return st;
    if (!added) {
        entry *e = &l->e[l->at[label][id]];
        if (key1 < e->key1 || (key1 == e->key1 && key2 < e->key2)) {
            e->key1 = key1;
            e->key2 = key2;
        }
        e->flags |= flags;
        return CRFP_OK;
    }
    if (id >= l->atcap[label]) {
        size_t cap = l->atcap[label] ? 2 * l->atcap[label] : 1024;
        uint32_t *na = realloc(l->at[label], cap * sizeof *na);
        if (!na)
            return CRFP_ENOMEM;
        l->at[label] = na;
        l->atcap[label] = cap;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        entry *ne = realloc(l->e, cap * sizeof *ne);
        if (!ne)
            return CRFP_ENOMEM;
        l->e = ne;
        l->cap = cap;
    }
    if (l->alen + len > l->acap) {
        size_t cap = l->acap ? l->acap : 65536;
        while (cap < l->alen + len)
            cap *= 2;
        char *na = realloc(l->arena, cap);
        if (!na)
            return CRFP_ENOMEM;
        l->arena = na;
        l->acap = cap;
    }
    memcpy(l->arena + l->alen, s, len);
    l->at[label][id] = (uint32_t)l->n;
    l->e[l->n++] = (entry){key1, key2, len, l->alen, flags, (uint8_t)label};
    l->alen += len;
    return CRFP_OK;
}

/* Wire format, little-endian as the machine is (the ranks of a job share
 * an architecture): u64 count, then per entry u64 key1, u32 key2, u32 len,
 * u8 flags, u8 label, the bytes. */
static crfp_status list_pack(const list *l, char **out, size_t *outlen)
{
    size_t n = 8 + l->n * 18 + l->alen;
    char *b = malloc(n), *p = b;
    if (!b)
        return CRFP_ENOMEM;
    uint64_t cnt = l->n;
    memcpy(p, &cnt, 8);
    p += 8;
    for (size_t i = 0; i < l->n; i++) {
        const entry *e = &l->e[i];
        memcpy(p, &e->key1, 8);
        memcpy(p + 8, &e->key2, 4);
        memcpy(p + 12, &e->len, 4);
        p[16] = (char)e->flags;
        p[17] = (char)e->label;
        memcpy(p + 18, l->arena + e->off, e->len);
        p += 18 + e->len;
    }
    *out = b;
    *outlen = n;
    return CRFP_OK;
}

static crfp_status list_unpack_into(list *l, const char *b, size_t n)
{
    uint64_t cnt;
    if (n < 8)
        return CRFP_EFORMAT;
    memcpy(&cnt, b, 8);
    size_t at = 8;
    for (uint64_t i = 0; i < cnt; i++) {
        if (n - at < 18)
            return CRFP_EFORMAT;
        uint64_t k1;
        uint32_t k2, len;
        memcpy(&k1, b + at, 8);
        memcpy(&k2, b + at + 8, 4);
        memcpy(&len, b + at + 12, 4);
        uint8_t fl = (uint8_t)b[at + 16], lab = (uint8_t)b[at + 17];
        if (n - at - 18 < len || lab > 1)
            return CRFP_EFORMAT;
        crfp_status st = list_put(l, lab, b + at + 18, len, k1, k2, fl);
        if (st != CRFP_OK)
            return st;
        at += 18 + len;
    }
    return at == n ? CRFP_OK : CRFP_EFORMAT;
}

static int by_key(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->label != y->label)
        return x->label > y->label ? -1 : 1; /* labels first */
    if (x->key1 != y->key1)
        return x->key1 < y->key1 ? -1 : 1;
    return x->key2 < y->key2 ? -1 : x->key2 > y->key2;
}

/* This rank's list: every label and observation with its key. */
static crfp_status local_list(const crfp_crf *crf, const crfp_dataset *ds, int cut,
                              uint32_t fixed_labels, uint32_t fixed_obs, list *l)
{
    uint32_t Y = crf->labels.n, O = crf->obs.n;
    uint64_t *first_y = malloc(((size_t)Y + 1) * sizeof *first_y);
    uint64_t *first_o = malloc(((size_t)O + 1) * sizeof *first_o);
    crfp_status st = CRFP_ENOMEM;
    if (!first_y || !first_o)
        goto out;
    /* UINT64_MAX: met in no sentence of this rank (warm-start entries). */
    memset(first_y, 0xff, ((size_t)Y + 1) * sizeof *first_y);
    memset(first_o, 0xff, ((size_t)O + 1) * sizeof *first_o);
    for (size_t i = crfp_dataset_size(ds); i-- > 0;) {
        /* backwards, so that the earliest sentence writes last */
        const crfp_seq *s = crfp_dataset_get(ds, i);
        uint64_t k = 1 + crfp_shard_order(cut, i);
        for (uint32_t t = 0; t < s->T; t++)
            first_y[s->y[t]] = k;
        uint32_t nu = s->T ? s->uoff[s->T] : 0, nb = s->T ? s->boff[s->T] : 0;
        for (uint32_t a = 0; a < nu; a++)
            first_o[s->uobs[a]] = k;
        for (uint32_t a = 0; a < nb; a++)
            first_o[s->bobs[a]] = k;
    }
    st = CRFP_OK;
    for (uint32_t y = 0; y < Y && st == CRFP_OK; y++) {
        size_t len;
        const char *s = crfp_dict_str(&crf->labels, y, &len);
        if (y < fixed_labels || first_y[y] != UINT64_MAX)
            st = list_put(l, 1, s, (uint32_t)len, y < fixed_labels ? 0 : first_y[y], y, 0);
    }
    for (uint32_t o = 0; o < O && st == CRFP_OK; o++) {
        size_t len;
        const char *s = crfp_dict_str(&crf->obs, o, &len);
        if (o < fixed_obs || first_o[o] != UINT64_MAX)
            st = list_put(l, 0, s, (uint32_t)len, o < fixed_obs ? 0 : first_o[o], o,
                          crf->oflags[o]);
    }
out:
    free(first_y);
    free(first_o);
    return st;
}

/* Reduce the lists to rank 0 along a binomial tree. */
static crfp_status reduce_to_root(crfp_host *host, list *l)
{
    int P = crfp_dist_size(), r = crfp_dist_rank();
    for (int step = 1; step < P; step <<= 1) {
        if (r % (2 * step) == step) {
            char *b;
            size_t n;
            crfp_status st = list_pack(l, &b, &n);
            if (st != CRFP_OK)
                return crfp_error(host, st, "out of memory packing the dictionary");
            st = crfp_comm_send(host, r - step, b, n);
            free(b);
            return st;
        }
        if (r % (2 * step) == 0 && r + step < P) {
            void *b;
            size_t n;
            crfp_status st = crfp_comm_recv(host, r + step, &b, &n);
            if (st != CRFP_OK)
                return st;
            st = list_unpack_into(l, b, n);
            free(b);
            if (st != CRFP_OK)
                return crfp_error(host, st, "rank %d: %s merging the dictionary of rank %d",
                                  r, st == CRFP_ENOMEM ? "out of memory" : "bad message",
                                  r + step);
        }
    }
    return CRFP_OK;
}

crfp_status crfp_dist_merge_dict(crfp_host *host, crfp_crf **crfp, crfp_dataset *train, int cut,
                                 uint32_t fixed_labels, uint32_t fixed_obs)
{
    crfp_crf *old = *crfp;
    list l;
    memset(&l, 0, sizeof l);
    char *buf = NULL;
    uint64_t blen = 0;
    uint32_t *ymap = NULL, *omap = NULL;
    crfp_crf *nc = NULL;
    crfp_status st = local_list(old, train, cut, fixed_labels, fixed_obs, &l);
    /* Every rank reaches this point, ready or not: agree before the tree. */
    int ok;
    crfp_status cst = crfp_comm_agree(host, st == CRFP_OK, &ok);
    if (st != CRFP_OK) {
        list_free(&l);
        return crfp_error(host, st, "out of memory listing the dictionary");
    }
    if (cst != CRFP_OK || !ok) {
        list_free(&l);
        return cst != CRFP_OK ? cst : CRFP_EIO;
    }
    if ((st = reduce_to_root(host, &l)) != CRFP_OK)
        goto out;
    if (crfp_dist_rank() == 0) {
        qsort(l.e, l.n, sizeof *l.e, by_key);
        size_t n;
        if ((st = list_pack(&l, &buf, &n)) != CRFP_OK) {
            st = crfp_error(host, st, "out of memory packing the dictionary");
            goto out;
        }
        blen = n;
    }
    list_free(&l);
    if ((st = crfp_comm_bcast(host, &blen, sizeof blen, 0)) != CRFP_OK)
        goto out;
    if (crfp_dist_rank() != 0 && !(buf = malloc(blen ? blen : 1))) {
        st = crfp_error(host, CRFP_ENOMEM, "out of memory receiving the dictionary");
        goto out;
    }
    if ((st = crfp_comm_bcast(host, buf, blen, 0)) != CRFP_OK)
        goto out;

    /* Every rank now builds the same model from the same bytes. */
    st = CRFP_ENOMEM;
    if (!(nc = crfp_crf_new()))
        goto nomem;
    uint64_t cnt;
    memcpy(&cnt, buf, 8);
    for (size_t at = 8, i = 0; i < cnt; i++) {
        uint32_t len, id;
        memcpy(&len, buf + at + 12, 4);
        uint8_t fl = (uint8_t)buf[at + 16], lab = (uint8_t)buf[at + 17];
        const char *s = buf + at + 18;
        if (lab) {
            /* labels are NUL-terminated strings in the public API */
            char *name = strndup(s, len);
            st = name ? crfp_crf_add_label(nc, name, &id) : CRFP_ENOMEM;
            free(name);
        } else {
            st = crfp_crf_add_obs(nc, s, len, fl, &id);
        }
        if (st != CRFP_OK)
            goto nomem;
        at += 18 + len;
    }
    /* Renumber this rank's sequences. */
    uint32_t Y = old->labels.n, O = old->obs.n;
    ymap = malloc(((size_t)Y + 1) * sizeof *ymap);
    omap = malloc(((size_t)O + 1) * sizeof *omap);
    if (!ymap || !omap)
        goto nomem;
    for (uint32_t y = 0; y < Y; y++) {
        int64_t g = crfp_crf_label_id(nc, crfp_dict_str(&old->labels, y, NULL));
        ymap[y] = g < 0 ? UINT32_MAX : (uint32_t)g;
    }
    for (uint32_t o = 0; o < O; o++) {
        size_t len;
        const char *s = crfp_dict_str(&old->obs, o, &len);
        int64_t g = crfp_crf_obs_id(nc, s, len);
        omap[o] = g < 0 ? UINT32_MAX : (uint32_t)g;
    }
    for (size_t i = 0; i < crfp_dataset_size(train); i++) {
        const crfp_seq *s = crfp_dataset_get(train, i);
        uint32_t nu = s->T ? s->uoff[s->T] : 0, nb = s->T ? s->boff[s->T] : 0;
        /* The dataset owns these arrays; the renumbering keeps every count
         * and offset, so it is done in place. */
        for (uint32_t t = 0; t < s->T; t++)
            s->y[t] = ymap[s->y[t]];
        for (uint32_t a = 0; a < nu; a++)
            s->uobs[a] = omap[s->uobs[a]];
        for (uint32_t a = 0; a < nb; a++)
            s->bobs[a] = omap[s->bobs[a]];
    }
    crfp_crf_free(old);
    *crfp = nc;
    nc = NULL;
    st = CRFP_OK;
    goto out;
nomem:
    st = crfp_error(host, CRFP_ENOMEM, "out of memory building the shared dictionary");
out:
    list_free(&l);
    free(buf);
    free(ymap);
    free(omap);
    crfp_crf_free(nc);
    return st;
}
