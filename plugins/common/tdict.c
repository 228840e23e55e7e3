/* tdict — the tag dictionary: counting, the answers, lookup.  The file
 * format is in tdict_file.c, what the stages share in tdict_stage.c.  See
 * tdict.h. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unicode/utf8.h>

#include "tdict.h"

static void thaw(tdict *d);

void tdict_scratch_forget(tdict_scratch *s)
{
    s->doc = NULL; /* tdict_put then clears the map */
}

void tdict_scratch_free(tdict_scratch *s)
{
    free(s->low);
    tdict_pairs_free(&s->seen);
    free(s->to);
    memset(s, 0, sizeof *s);
}

void tdict_init(tdict *d, const UCaseMap *lower)
{
    memset(d, 0, sizeof *d);
    d->lower = lower;
}

static void counts_free(tdict_counts *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].tag);
        free(c[i].count);
    }
    free(c);
}

void tdict_free(tdict *d)
{
    thaw(d); /* first: it reads the tables' sizes */
    strtab_free(&d->tags);
    strtab_free(&d->words);
    strtab_free(&d->lwords);
    counts_free(d->wc, d->wcap);
    counts_free(d->lc, d->lcap);
    tdict_pairs_free(&d->wp);
    tdict_pairs_free(&d->lp);
    for (size_t i = 0; i < d->nown; i++)
        free(d->own[i]);
    free(d->own);
    tdict_scratch_free(&d->add);
    tdict_init(d, d->lower);
}

static int grow(void **p, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < want)
        nc *= 2;
    void *q = realloc(*p, nc * size);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* The lowercase of word into s->low; NULL when out of memory. */
static const char *lowercase(const UCaseMap *cm, const char *word, char **buf, size_t *cap)
{
    int32_t len = (int32_t)strlen(word);
    for (;;) {
        UErrorCode err = U_ZERO_ERROR;
        int32_t need = ucasemap_utf8ToLower(cm, *buf, (int32_t)*cap, word, len, &err);
        if (U_SUCCESS(err) && err != U_STRING_NOT_TERMINATED_WARNING && need >= 0)
            return *buf;
        if (err != U_BUFFER_OVERFLOW_ERROR && err != U_STRING_NOT_TERMINATED_WARNING)
            return NULL;
        char *nb = realloc(*buf, (size_t)need + 1);
        if (!nb)
            return NULL;
        *buf = nb;
        *cap = (size_t)need + 1;
    }
}

/* (id, tag) -> the tag's index in the id's counts: open addressing on
 * key + 1 (0 = empty), grown at half load, so that counting stays linear
 * even for a hostile word with thousands of tags. */
static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    return k ^ (k >> 33);
}

void tdict_pairs_free(tdict_pairs *p)
{
    free(p->key);
    free(p->val);
    memset(p, 0, sizeof *p);
}

long tdict_pairs_find(const tdict_pairs *p, uint64_t key)
{
    if (!p->key)
        return -1;
    for (size_t i = mix(key) & p->mask; p->key[i]; i = (i + 1) & p->mask)
        if (p->key[i] == key + 1)
            return (long)p->val[i];
    return -1;
}

int tdict_pairs_put(tdict_pairs *p, uint64_t key, uint32_t val)
{
    if (2 * (p->n + 1) > (p->key ? p->mask + 1 : 0)) {
        size_t ns = p->key ? 2 * (p->mask + 1) : 64;
        uint64_t *nk = calloc(ns, sizeof *nk);
        uint32_t *nv = malloc(ns * sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free(nv);
            return -1;
        }
        for (size_t i = 0; p->key && i <= p->mask; i++) {
            if (!p->key[i])
                continue;
            size_t j = mix(p->key[i] - 1) & (ns - 1);
            while (nk[j])
                j = (j + 1) & (ns - 1);
            nk[j] = p->key[i];
            nv[j] = p->val[i];
        }
        free(p->key);
        free(p->val);
        p->key = nk;
        p->val = nv;
        p->mask = ns - 1;
    }
    size_t i = mix(key) & p->mask;
    while (p->key[i])
        i = (i + 1) & p->mask;
    p->key[i] = key + 1;
    p->val[i] = val;
    p->n++;
    return 0;
}

/* Count k more of `tag` for entry `id` (its counts c, the pair map p). */
static int count(tdict_counts *c, tdict_pairs *p, size_t id, uint32_t tag, uint32_t k)
{
    if (id > UINT32_MAX)
        return -1;
    uint64_t key = (uint64_t)id << 32 | tag;
    long at = tdict_pairs_find(p, key);
    if (at >= 0) {
        c->count[at] = c->count[at] > UINT32_MAX - k ? UINT32_MAX : c->count[at] + k;
        return 0;
    }
    if (c->n == c->cap) {
        uint32_t nc = c->cap ? 2 * c->cap : 2;
        uint32_t *t = realloc(c->tag, nc * sizeof *t);
        if (!t)
            return -1;
        c->tag = t;
        uint32_t *n = realloc(c->count, nc * sizeof *n);
        if (!n)
            return -1;
        c->count = n;
        c->cap = nc;
    }
    if (tdict_pairs_put(p, key, c->n) != 0)
        return -1;
    c->tag[c->n] = tag;
    c->count[c->n++] = k;
    return 0;
}

/* The counts of key in table t (with its array *c of *ccap entries), the
 * key added if new. */
static tdict_counts *entry(strtab *t, tdict_counts **c, size_t *ccap, const char *key)
{
    /* room first, so that a failure leaves table and counts in step */
    size_t old = *ccap;
    if (grow((void **)c, ccap, t->n + 1, sizeof **c) != 0)
        return NULL;
    memset(*c + old, 0, (*ccap - old) * sizeof **c);
    long id = strtab_id(t, key);
    return id < 0 ? NULL : &(*c)[id];
}

int tdict_add(tdict *d, const char *word, const char *tag, uint32_t k)
{
    thaw(d);
    long t = strtab_id(&d->tags, tag);
    if (t < 0 || (unsigned long)t > UINT32_MAX)
        return -1;
    tdict_counts *wc = entry(&d->words, &d->wc, &d->wcap, word);
    if (!wc || count(wc, &d->wp, (size_t)(wc - d->wc), (uint32_t)t, k) != 0)
        return -1;
    const char *low = lowercase(d->lower, word, &d->add.low, &d->add.lowcap);
    if (!low)
        return -1;
    if (strtab_find(&d->lwords, low) < 0) {
        /* a new lowercased form: the dictionary keeps its own copy */
        char *copy = strdup(low);
        if (!copy || grow((void **)&d->own, &d->capown, d->nown + 1, sizeof *d->own) != 0) {
            free(copy);
            return -1;
        }
        d->own[d->nown++] = copy;
        low = copy;
    }
    tdict_counts *lc = entry(&d->lwords, &d->lc, &d->lcap, low);
    return lc && count(lc, &d->lp, (size_t)(lc - d->lc), (uint32_t)t, k) == 0 ? 0 : -1;
}

static int by_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The tags of c sorted bytewise and joined by '|' (malloc'd), NULL when out
 * of memory; tags: room for c->n pointers. */
static char *join(const tdict *d, const tdict_counts *c, const char **tags)
{
    size_t len = 1;
    for (uint32_t i = 0; i < c->n; i++) {
        tags[i] = d->tags.strs[c->tag[i]];
        len += strlen(tags[i]) + 1;
    }
    if (len > TDICT_CLASS_MAX) {
        /* no tagger learns from such a class, and every token would carry
         * (and every setter check) all of it */
        char *out = malloc(32);
        if (out)
            snprintf(out, 32, "|many:%lu", (unsigned long)c->n);
        return out;
    }
    qsort(tags, c->n, sizeof *tags, by_str);
    char *out = malloc(len), *o = out;
    if (!out)
        return NULL;
    for (uint32_t i = 0; i < c->n; i++) {
        size_t l = strlen(tags[i]);
        if (i)
            *o++ = '|';
        memcpy(o, tags[i], l);
        o += l;
    }
    *o = '\0';
    return out;
}

static void thaw(tdict *d)
{
    if (!d->frozen)
        return;
    /* also after a freeze that failed part way: arrays may be missing */
    for (size_t i = 0; d->wamb && i < d->words.n; i++)
        free(d->wamb[i]);
    for (size_t i = 0; d->lamb && i < d->lwords.n; i++)
        free(d->lamb[i]);
    free(d->wamb);
    free(d->lamb);
    free(d->wtop);
    d->wamb = d->lamb = NULL;
    d->wtop = NULL;
    d->frozen = 0;
}

int tdict_freeze(tdict *d)
{
    if (d->frozen)
        return 0;
    size_t most = 1;
    for (size_t i = 0; i < d->words.n; i++)
        most = d->wc[i].n > most ? d->wc[i].n : most;
    for (size_t i = 0; i < d->lwords.n; i++)
        most = d->lc[i].n > most ? d->lc[i].n : most;
    const char **tags = malloc(most * sizeof *tags);
    d->wamb = calloc(d->words.n + 1, sizeof *d->wamb);
    d->lamb = calloc(d->lwords.n + 1, sizeof *d->lamb);
    d->wtop = calloc(d->words.n + 1, sizeof *d->wtop);
    d->frozen = 1; /* so that thaw frees what was made */
    int bad = !tags || !d->wamb || !d->lamb || !d->wtop;
    for (size_t w = 0; !bad && w < d->words.n; w++) {
        const tdict_counts *c = &d->wc[w];
        uint32_t best = 0;
        for (uint32_t i = 1; i < c->n; i++)
            if (c->count[i] > c->count[best])
                best = i;
        d->wtop[w] = d->tags.strs[c->tag[best]];
        bad = !(d->wamb[w] = join(d, c, tags));
    }
    for (size_t l = 0; !bad && l < d->lwords.n; l++)
        bad = !(d->lamb[l] = join(d, &d->lc[l], tags));
    free(tags);
    if (bad) {
        thaw(d);
        return -1;
    }
    return 0;
}

int tdict_lookup(const tdict *d, const char *word, const char *unknown, tdict_scratch *s,
                 const char **amb, const char **lc, const char **top)
{
    *amb = *lc = *top = unknown;
    if (!d->frozen)
        return -1;
    long w = strtab_find(&d->words, word);
    if (w >= 0) {
        *amb = d->wamb[w];
        *top = d->wtop[w];
    }
    const char *low = lowercase(d->lower, word, &s->low, &s->lowcap);
    if (!low)
        return -1;
    long l = strtab_find(&d->lwords, low);
    if (l >= 0)
        *lc = d->lamb[l];
    return 0;
}
int tdict_own(tdict *d, char *buf)
{
    if (grow((void **)&d->own, &d->capown, d->nown + 1, sizeof *d->own) != 0)
        return -1;
    d->own[d->nown++] = buf;
    return 0;
}
