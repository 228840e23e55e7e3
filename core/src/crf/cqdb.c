/* crfpipe — CRFsuite's string tables (CQDB): see cqdb.h for the layout. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cqdb.h"

#define CQDB_BOM 0x62445371u
#define NTABLES 256u

uint32_t crfp_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void crfp_bytes_put(crfp_bytes *b, const void *s, size_t n)
{
    if (b->oom)
        return;
    if (n > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->n < n) {
            if (cap > SIZE_MAX / 2) {
                b->oom = 1;
                return;
            }
            cap *= 2;
        }
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, s, n);
    b->n += n;
}

void crfp_bytes_put32(crfp_bytes *b, uint32_t v)
{
    unsigned char q[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    crfp_bytes_put(b, q, 4);
}

void crfp_bytes_set32(crfp_bytes *b, size_t at, uint32_t v)
{
    if (b->oom)
        return;
    b->p[at] = (unsigned char)v;
    b->p[at + 1] = (unsigned char)(v >> 8);
    b->p[at + 2] = (unsigned char)(v >> 16);
    b->p[at + 3] = (unsigned char)(v >> 24);
}

/* --- the hash ---------------------------------------------------------------
 * lookup3 (Bob Jenkins, 2006, public domain): three 32-bit lanes started at
 * 0xdeadbeef + length + seed, the key taken 12 bytes at a time as
 * little-endian words and mixed, the last 1..12 bytes added and a final
 * avalanche; an empty key returns the start value.  Written here from the
 * algorithm's description; the test is that CRFsuite's own files, whose
 * buckets store each key's hash, are found by it (crfsuite_model.sh). */
static uint32_t rotl(uint32_t x, unsigned k)
{
    return (x << k) | (x >> (32 - k));
}

static void mix(uint32_t *a, uint32_t *b, uint32_t *c)
{
    *a -= *c, *a ^= rotl(*c, 4), *c += *b;
    *b -= *a, *b ^= rotl(*a, 6), *a += *c;
    *c -= *b, *c ^= rotl(*b, 8), *b += *a;
    *a -= *c, *a ^= rotl(*c, 16), *c += *b;
    *b -= *a, *b ^= rotl(*a, 19), *a += *c;
    *c -= *b, *c ^= rotl(*b, 4), *b += *a;
}

static void final(uint32_t *a, uint32_t *b, uint32_t *c)
{
    *c ^= *b, *c -= rotl(*b, 14);
    *a ^= *c, *a -= rotl(*c, 11);
    *b ^= *a, *b -= rotl(*a, 25);
    *c ^= *b, *c -= rotl(*b, 16);
    *a ^= *c, *a -= rotl(*c, 4);
    *b ^= *a, *b -= rotl(*a, 14);
    *c ^= *b, *c -= rotl(*b, 24);
}

uint32_t crfp_cqdb_hash(const void *key, size_t n)
{
    const unsigned char *k = key;
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)n;
    while (n > 12) {
        a += crfp_le32(k);
        b += crfp_le32(k + 4);
        c += crfp_le32(k + 8);
        mix(&a, &b, &c);
        n -= 12;
        k += 12;
    }
    if (n == 0)
        return c;
    /* the last 1..12 bytes, zero-padded: byte i of the block goes to lane
     * i / 4, at bits 8·(i mod 4) */
    uint32_t lane[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        lane[i / 4] += (uint32_t)k[i] << (8 * (i % 4));
    a += lane[0];
    b += lane[1];
    c += lane[2];
    final(&a, &b, &c);
    return c;
}

/* --- reading ---------------------------------------------------------------- */

const char *crfp_cqdb_open(const unsigned char *file, size_t n, uint32_t off, crfp_cqdb *db)
{
    if (off == 0 || off > n || n - off < CRFP_CQDB_HEADER)
        return "its offset lies outside the file";
    const unsigned char *b = file + off;
    if (memcmp(b, "CQDB", 4) != 0)
        return "no CQDB chunk at its offset";
    uint32_t size = crfp_le32(b + 4);
    if (size < CRFP_CQDB_HEADER || size > n - off)
        return "its chunk size runs past the end of the file";
    if (crfp_le32(b + 12) != CQDB_BOM)
        return "a byte-order mark that is not CQDB's";
    db->b = b;
    db->size = size;
    db->bwd_size = crfp_le32(b + 16);
    uint32_t bwd_off = crfp_le32(b + 20);
    if (db->bwd_size == 0) {
        db->bwd = NULL;
        return NULL;
    }
    if (bwd_off < CRFP_CQDB_HEADER || bwd_off > size || (size - bwd_off) / 4 < db->bwd_size)
        return "its id table lies outside its chunk";
    db->bwd = b + bwd_off;
    return NULL;
}

const char *crfp_cqdb_string(const crfp_cqdb *db, uint32_t id, size_t *len, const char **why)
{
    if (id >= db->bwd_size) {
        *why = "has no entry for this id";
        return NULL;
    }
    uint32_t off = crfp_le32(db->bwd + (size_t)id * 4);
    if (off < CRFP_CQDB_HEADER || off > db->size || db->size - off < 8) {
        *why = "points outside its chunk for this id";
        return NULL;
    }
    const unsigned char *rec = db->b + off;
    uint32_t ksize = crfp_le32(rec + 4);
    if (crfp_le32(rec) != id) {
        *why = "holds another id's record for this id";
        return NULL;
    }
    if (ksize == 0 || ksize > db->size - off - 8) {
        *why = "has a string running past its chunk for this id";
        return NULL;
    }
    const char *s = (const char *)rec + 8;
    if (s[ksize - 1] != '\0' || memchr(s, '\0', ksize - 1)) {
        *why = "has a string that is not one NUL-terminated string for this id";
        return NULL;
    }
    *len = ksize - 1;
    return s;
}

int64_t crfp_cqdb_find(const crfp_cqdb *db, const char *s, size_t len)
{
    const size_t refs = CRFP_CQDB_HEADER, need = refs + 8 * NTABLES;
    if (db->size < need || len >= UINT32_MAX)
        return -1;
    uint32_t h = crfp_cqdb_hash(s, len + 1);
    const unsigned char *ref = db->b + refs + 8 * (size_t)(h % NTABLES);
    uint32_t toff = crfp_le32(ref), nb = crfp_le32(ref + 4);
    if (toff == 0 || nb == 0 || toff > db->size || (db->size - toff) / 8 < nb)
        return -1;
    const unsigned char *tab = db->b + toff;
    /* open addressing: at most nb probes */
    for (uint32_t i = 0, k = (h >> 8) % nb; i < nb; i++, k = (k + 1) % nb) {
        uint32_t bh = crfp_le32(tab + 8 * (size_t)k), roff = crfp_le32(tab + 8 * (size_t)k + 4);
        if (roff == 0)
            return -1;
        if (bh != h || roff > db->size || db->size - roff < 8)
            continue;
        const unsigned char *rec = db->b + roff;
        if (crfp_le32(rec + 4) == len + 1 && db->size - roff - 8 >= len + 1 &&
            memcmp(rec + 8, s, len) == 0 && rec[8 + len] == '\0')
            return crfp_le32(rec);
    }
    return -1;
}

/* --- writing ---------------------------------------------------------------- */

void crfp_cqdb_write(crfp_bytes *out, const char *const *strs, const size_t *lens, uint32_t n)
{
    const size_t begin = out->n;
    uint32_t *hash = malloc((n ? n : 1) * sizeof *hash), *roff = malloc((n ? n : 1) * sizeof *roff);
    uint32_t count[NTABLES] = {0};
    if (!hash || !roff) {
        free(hash);
        free(roff);
        out->oom = 1;
        return;
    }
    /* header and table references, filled in at the end */
    unsigned char zero[CRFP_CQDB_HEADER + 8 * NTABLES] = {0};
    crfp_bytes_put(out, zero, sizeof zero);
    for (uint32_t i = 0; i < n; i++) {
        hash[i] = crfp_cqdb_hash(strs[i], lens[i] + 1);
        roff[i] = (uint32_t)(out->n - begin);
        count[hash[i] % NTABLES]++;
        crfp_bytes_put32(out, i);
        crfp_bytes_put32(out, (uint32_t)(lens[i] + 1));
        crfp_bytes_put(out, strs[i], lens[i]);
        crfp_bytes_put(out, "", 1);
    }
    /* the tables, each with twice as many buckets as keys, keys placed in
     * id order from (hash >> 8) mod buckets onwards */
    uint32_t toff[NTABLES] = {0};
    for (uint32_t t = 0; t < NTABLES && !out->oom; t++) {
        if (!count[t])
            continue;
        const uint32_t nb = 2 * count[t];
        unsigned char *tab = calloc(nb, 8);
        if (!tab) {
            out->oom = 1;
            break;
        }
        for (uint32_t i = 0; i < n; i++) {
            if (hash[i] % NTABLES != t)
                continue;
            uint32_t k = (hash[i] >> 8) % nb;
            while (crfp_le32(tab + 8 * (size_t)k + 4) != 0)
                k = (k + 1) % nb;
            for (int j = 0; j < 4; j++) {
                tab[8 * (size_t)k + (size_t)j] = (unsigned char)(hash[i] >> (8 * j));
                tab[8 * (size_t)k + 4 + (size_t)j] = (unsigned char)(roff[i] >> (8 * j));
            }
        }
        toff[t] = (uint32_t)(out->n - begin);
        crfp_bytes_put(out, tab, 8 * (size_t)nb);
        free(tab);
    }
    const uint32_t bwd = (uint32_t)(out->n - begin);
    for (uint32_t i = 0; i < n; i++)
        crfp_bytes_put32(out, roff[i]);
    free(hash);
    free(roff);
    if (out->oom)
        return;
    memcpy(out->p + begin, "CQDB", 4);
    crfp_bytes_set32(out, begin + 4, (uint32_t)(out->n - begin));
    crfp_bytes_set32(out, begin + 8, 0);
    crfp_bytes_set32(out, begin + 12, CQDB_BOM);
    crfp_bytes_set32(out, begin + 16, n);
    crfp_bytes_set32(out, begin + 20, n ? bwd : 0);
    for (uint32_t t = 0; t < NTABLES; t++) {
        crfp_bytes_set32(out, begin + CRFP_CQDB_HEADER + 8 * (size_t)t, toff[t]);
        crfp_bytes_set32(out, begin + CRFP_CQDB_HEADER + 8 * (size_t)t + 4, 2 * count[t]);
    }
}
