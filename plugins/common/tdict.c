/* tdict — the tag dictionary: counting, lookup, the file format.  See
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
static void pairs_free(tdict_pairs *p);

void tdict_scratch_forget(tdict_scratch *s)
{
    s->doc = NULL; /* tdict_put then clears the map */
}

void tdict_scratch_free(tdict_scratch *s)
{
    free(s->low);
    pairs_free(&s->seen);
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
    pairs_free(&d->wp);
    pairs_free(&d->lp);
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

static void pairs_free(tdict_pairs *p)
{
    free(p->key);
    free(p->val);
    memset(p, 0, sizeof *p);
}

static long pairs_find(const tdict_pairs *p, uint64_t key)
{
    if (!p->key)
        return -1;
    for (size_t i = mix(key) & p->mask; p->key[i]; i = (i + 1) & p->mask)
        if (p->key[i] == key + 1)
            return (long)p->val[i];
    return -1;
}

static int pairs_put(tdict_pairs *p, uint64_t key, uint32_t val)
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
    long at = pairs_find(p, key);
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
    if (pairs_put(p, key, c->n) != 0)
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
    for (size_t i = 0; i < d->words.n; i++)
        free(d->wamb[i]);
    for (size_t i = 0; i < d->lwords.n; i++)
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
        if (!d->wamb || !d->lamb || !d->wtop) {
            free(d->wamb);
            free(d->lamb);
            free(d->wtop);
            d->wamb = d->lamb = NULL;
            d->wtop = NULL;
            d->frozen = 0;
        } else {
            thaw(d);
        }
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

int tdict_save(const tdict *d, const char *path)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp)
        return ENOMEM;
    snprintf(tmp, pl + 16, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        free(tmp);
        return e;
    }
    fputs("#crfpipe-tagdict 1\n", f);
    for (size_t w = 0; w < d->words.n; w++) {
        const tdict_counts *c = &d->wc[w];
        fputs(d->words.strs[w], f);
        for (uint32_t i = 0; i < c->n; i++)
            fprintf(f, "\t%s\t%lu", d->tags.strs[c->tag[i]], (unsigned long)c->count[i]);
        fputc('\n', f);
    }
    int e = ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e)
        remove(tmp);
    free(tmp);
    return e;
}

static int utf8_ok(const char *s, size_t n)
{
    for (int32_t i = 0; (size_t)i < n;) {
        UChar32 c;
        U8_NEXT(s, i, (int32_t)n, c);
        if (c < 0)
            return 0;
    }
    return 1;
}

/* Largest dictionary file read (a guard against a hostile path such as a
 * device, not a limit any real lexicon reaches). */
#define TDICT_MAX_BYTES ((size_t)1 << 30)

int tdict_load(tdict *d, const char *path, char *err, size_t errsize)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errsize, "%s", strerror(errno));
        return -1;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            if (cap >= TDICT_MAX_BYTES) {
                snprintf(err, errsize, "larger than %zu bytes: not a tag dictionary",
                         TDICT_MAX_BYTES);
                goto fail;
            }
            size_t nc = cap ? 2 * cap : 1 << 20;
            char *nb = realloc(buf, nc);
            if (!nb) {
                snprintf(err, errsize, "out of memory");
                goto fail;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errsize, "%s", strerror(errno ? errno : EIO));
        goto fail;
    }
    fclose(f);
    f = NULL;
    buf[n] = '\0';
    if (grow((void **)&d->own, &d->capown, d->nown + 1, sizeof *d->own) != 0) {
        snprintf(err, errsize, "out of memory");
        goto fail;
    }
    d->own[d->nown++] = buf; /* from here the dictionary frees it */
    static const char header[] = "#crfpipe-tagdict 1\n";
    if (strncmp(buf, header, sizeof header - 1) != 0) {
        snprintf(err, errsize, "line 1: not a tag dictionary (no '#crfpipe-tagdict 1' header)");
        return -1;
    }
    size_t line = 1;
    for (char *p = buf + sizeof header - 1; p < buf + n;) {
        line++;
        char *e = memchr(p, '\n', (size_t)(buf + n - p));
        if (!e) {
            snprintf(err, errsize, "line %zu: no newline at the end (a truncated file?)", line);
            return -1;
        }
        *e = '\0';
        if (memchr(p, '\0', (size_t)(e - p)) || !utf8_ok(p, (size_t)(e - p))) {
            snprintf(err, errsize, "line %zu: not UTF-8 text", line);
            return -1;
        }
        char *word = p, *tab = strchr(p, '\t');
        if (!tab || tab == word) {
            snprintf(err, errsize, "line %zu: expected 'word TAB tag TAB count ...'", line);
            return -1;
        }
        *tab = '\0';
        if (strtab_find(&d->words, word) >= 0) {
            snprintf(err, errsize, "line %zu: the word '%.64s' is listed twice", line, word);
            return -1;
        }
        for (char *q = tab + 1; q;) {
            char *tag = q, *t2 = strchr(q, '\t');
            if (t2 == tag || !*tag) {
                snprintf(err, errsize, "line %zu: an empty tag", line);
                return -1;
            }
            if (!t2) {
                snprintf(err, errsize, "line %zu: tag '%.64s' without a count", line, tag);
                return -1;
            }
            *t2 = '\0';
            if (strchr(tag, '|')) {
                snprintf(err, errsize, "line %zu: tag '%.64s' has a '|', which joins the tags "
                         "of a class", line, tag);
                return -1;
            }
            char *num = t2 + 1, *end;
            q = strchr(num, '\t');
            if (q)
                *q++ = '\0';
            errno = 0;
            unsigned long long k = strtoull(num, &end, 10);
            if (num[0] < '0' || num[0] > '9' || *end || errno || k == 0 || k > UINT32_MAX) {
                snprintf(err, errsize, "line %zu: count '%.32s' of tag '%.64s' is not an integer "
                         "from 1 to %lu", line, num, tag, (unsigned long)UINT32_MAX);
                return -1;
            }
            if (tdict_add(d, word, tag, (uint32_t)k) != 0) {
                snprintf(err, errsize, "out of memory");
                return -1;
            }
        }
        p = e + 1;
    }
    if (tdict_freeze(d) != 0) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    return 0;
fail:
    if (f)
        fclose(f);
    free(buf);
    return -1;
}

/* The document's interned copy of v, a string of the dictionary (or the
 * unknown value), through the scratch's map by address. */
static const char *intern(tdict_scratch *s, crfp_doc *doc, const char *v)
{
    if (s->doc != doc) {
        pairs_free(&s->seen);
        s->n = 0;
        s->doc = doc;
    }
    uint64_t key = (uint64_t)(uintptr_t)v;
    long at = pairs_find(&s->seen, key);
    if (at >= 0)
        return s->to[at];
    const char *in = crfp_doc_intern(doc, v);
    if (!in || s->n > UINT32_MAX ||
        grow((void **)&s->to, &s->tocap, s->n + 1, sizeof *s->to) != 0 ||
        pairs_put(&s->seen, key, (uint32_t)s->n) != 0)
        return NULL;
    s->to[s->n++] = in;
    return in;
}

crfp_status tdict_put(const tdict *d, crfp_doc *doc, crfp_ann *ann, const char *const names[3],
                      const char *word, const char *unknown, tdict_scratch *s)
{
    const char *v[3];
    if (tdict_lookup(d, word, unknown, s, &v[0], &v[1], &v[2]) != 0)
        return CRFP_ENOMEM;
    for (int i = 0; i < 3; i++)
        if (!(v[i] = intern(s, doc, v[i])))
            return CRFP_ENOMEM;
    return crfp_ann_set_strs_ref(doc, ann, names, v, NULL, 3);
}

void tdict_conf_close(tdict_conf *c)
{
    if (c->lower)
        ucasemap_close(c->lower);
    free(c->path);
    free(c->key);
    free(c->set);
    free(c->unknown);
    for (int i = 0; i < 3; i++)
        free(c->names[i]);
    memset(c, 0, sizeof *c);
}

static char *cat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

crfp_status tdict_conf_open(crfp_host *host, const char *stage, const crfp_params *params,
                            tdict_conf *c)
{
    memset(c, 0, sizeof *c);
    const char *out = crfp_params_str(params, "output"), *path = crfp_params_str(params, "dict");
    if (!path || !*path)
        return crfp_error(host, CRFP_EINVAL, "%s: the parameter 'dict' (a file) is required",
                          stage);
    if (!*out || strlen(out) > 200)
        return crfp_error(host, CRFP_EINVAL, "%s: output must be a name of 1 to 200 bytes",
                          stage);
    UErrorCode err = U_ZERO_ERROR;
    if (!(c->path = strdup(path)) || !(c->key = strdup(crfp_params_str(params, "key"))) ||
        !(c->set = strdup(crfp_params_str(params, "set"))) ||
        !(c->unknown = strdup(crfp_params_str(params, "unknown"))) ||
        !(c->names[0] = strdup(out)) || !(c->names[1] = cat(out, "lc")) ||
        !(c->names[2] = cat(out, "top"))) {
        tdict_conf_close(c);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    c->lower = ucasemap_open("", 0, &err);
    if (U_FAILURE(err)) {
        tdict_conf_close(c);
        return crfp_error(host, CRFP_EINVAL, "%s: ICU lowercasing: %s", stage, u_errorName(err));
    }
    return CRFP_OK;
}
