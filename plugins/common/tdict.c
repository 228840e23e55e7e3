/* tdict — the tag dictionary: counting, lookup, the file format.  See
 * tdict.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unicode/utf8.h>

#include "tdict.h"

void tdict_scratch_free(tdict_scratch *s)
{
    free(s->out);
    free(s->low);
    free(s->idx);
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
    strtab_free(&d->tags);
    strtab_free(&d->words);
    strtab_free(&d->lwords);
    counts_free(d->wc, d->wcap);
    counts_free(d->lc, d->lcap);
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

static int count(tdict_counts *c, uint32_t tag, uint32_t k)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->tag[i] == tag) {
            c->count[i] = c->count[i] > UINT32_MAX - k ? UINT32_MAX : c->count[i] + k;
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
    long t = strtab_id(&d->tags, tag);
    if (t < 0)
        return -1;
    tdict_counts *wc = entry(&d->words, &d->wc, &d->wcap, word);
    if (!wc || count(wc, (uint32_t)t, k) != 0)
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
    return lc && count(lc, (uint32_t)t, k) == 0 ? 0 : -1;
}

/* The tags of c sorted bytewise and joined by '|' into out; the bytes
 * written with the NUL.  idx: room for c->n indices. */
static size_t join(const tdict *d, const tdict_counts *c, char *out, uint32_t *idx)
{
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t j = i;
        for (; j > 0 && strcmp(d->tags.strs[c->tag[idx[j - 1]]], d->tags.strs[c->tag[i]]) > 0; j--)
            idx[j] = idx[j - 1];
        idx[j] = i;
    }
    size_t o = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const char *t = d->tags.strs[c->tag[idx[i]]];
        size_t l = strlen(t);
        if (i)
            out[o++] = '|';
        memcpy(out + o, t, l);
        o += l;
    }
    out[o] = '\0';
    return o + 1;
}

static size_t joined_size(const tdict *d, const tdict_counts *c)
{
    size_t n = 1;
    for (uint32_t i = 0; i < c->n; i++)
        n += strlen(d->tags.strs[c->tag[i]]) + 1;
    return n;
}

int tdict_lookup(const tdict *d, const char *word, const char *unknown, tdict_scratch *s,
                 const char **amb, const char **lc, const char **top)
{
    *amb = *lc = *top = unknown;
    long w = strtab_find(&d->words, word);
    const char *low = lowercase(d->lower, word, &s->low, &s->lowcap);
    if (!low)
        return -1;
    long l = strtab_find(&d->lwords, low);
    const tdict_counts *wc = w >= 0 ? &d->wc[w] : NULL, *lcc = l >= 0 ? &d->lc[l] : NULL;
    size_t need = (wc ? joined_size(d, wc) : 0) + (lcc ? joined_size(d, lcc) : 0);
    size_t nidx = (wc ? wc->n : 0) > (lcc ? lcc->n : 0) ? wc->n : lcc ? lcc->n : 0;
    if (nidx > s->idxcap) {
        uint32_t *ix = realloc(s->idx, nidx * sizeof *ix);
        if (!ix)
            return -1;
        s->idx = ix;
        s->idxcap = nidx;
    }
    if (need > s->outcap) {
        char *o = realloc(s->out, need);
        if (!o)
            return -1;
        s->out = o;
        s->outcap = need;
    }
    size_t at = 0;
    if (wc && wc->n) {
        at = join(d, wc, s->out, s->idx);
        *amb = s->out;
        uint32_t best = 0;
        for (uint32_t i = 1; i < wc->n; i++)
            if (wc->count[i] > wc->count[best])
                best = i;
        *top = d->tags.strs[wc->tag[best]];
    }
    if (lcc && lcc->n) {
        join(d, lcc, s->out + at, s->idx);
        *lc = s->out + at;
    }
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
    return 0;
fail:
    if (f)
        fclose(f);
    free(buf);
    return -1;
}

crfp_status tdict_put(const tdict *d, crfp_doc *doc, crfp_ann *ann, const char *const names[3],
                      const char *word, const char *unknown, tdict_scratch *s)
{
    const char *v[3];
    if (tdict_lookup(d, word, unknown, s, &v[0], &v[1], &v[2]) != 0)
        return CRFP_ENOMEM;
    for (int i = 0; i < 3; i++)
        if (!(v[i] = crfp_doc_intern(doc, v[i])))
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
