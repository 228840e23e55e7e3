/* crfpipe — the annotated document model.
 *
 * Memory: everything a document owns except a few growable arrays lives in a
 * per-document arena, so a column reader creating a million features pays
 * for a handful of mallocs, and a document is freed in one sweep.  Type and
 * feature names are interned (one copy per document, compared by pointer).
 * Annotations are arena objects too, which is what keeps crfp_ann pointers
 * stable while sets grow.
 *
 * What a token costs is what a corpus costs, so the per-annotation path is
 * kept free of heap allocations and hash lookups: annotations added in
 * document order with increasing ids (what every reader does) need neither
 * an id table (lookups binary-search the sets; the table is built only for
 * sets whose ids come out of order) nor a sorted copy (the insertion order
 * is the (start, -end, id) order and select searches it directly).  Readers
 * can hand the document their input buffer (crfp_doc_adopt) and point
 * string features into it (crfp_ann_set_str_ref) instead of copying them.
 */
#include "config.h"
#include "crfpipe/document.h"
#include "utf.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- arena --------------------------------------------------------------- */

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
} arena_block;

/* Eight bytes, not max_align_t's sixteen: the arena holds pointers, sizes,
 * int64 and doubles only, and on x86-64 sixteen would round every 56-byte
 * annotation up to 64 and every short string up to 16. */
#define ARENA_ALIGN ((size_t)8)
_Static_assert(alignof(crfp_value) <= ARENA_ALIGN && alignof(crfp_ann) <= ARENA_ALIGN &&
                   alignof(double) <= ARENA_ALIGN,
               "arena alignment too small");
#define ARENA_HDR ((sizeof(arena_block) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1))
#define ARENA_MIN 16384u

typedef struct arena {
    arena_block *head;
    size_t next_cap; /* blocks grow geometrically up to ARENA_MAXBLK */
    size_t total;    /* bytes of all blocks, for crfp_doc_memory */
} arena;

/* Freed blocks of the standard sizes are kept for the next documents.  A
 * stream of documents (a reader's batches) then reuses the same memory
 * instead of having the kernel fault in and zero fresh pages for each one,
 * which was a third of the time of a conversion.  Bounded, and shared by
 * all threads (documents are often freed on another thread than the one
 * that made them). */
#define ARENA_CLASSES 5 /* ARENA_MIN .. ARENA_MIN << 4 = 256 KiB */
#define ARENA_MAXBLK ((size_t)ARENA_MIN << (ARENA_CLASSES - 1))
#define ARENA_CACHE_MAX ((size_t)32 << 20)
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static arena_block *cache_head[ARENA_CLASSES];
static size_t cache_bytes;

static int block_class(size_t cap)
{
    for (int c = 0; c < ARENA_CLASSES; c++)
        if (cap == (size_t)ARENA_MIN << c)
            return c;
    return -1;
}

static arena_block *block_get(size_t cap)
{
    int c = block_class(cap);
    if (c >= 0) {
        pthread_mutex_lock(&cache_mu);
        arena_block *b = cache_head[c];
        if (b) {
            cache_head[c] = b->next;
            cache_bytes -= cap;
        }
        pthread_mutex_unlock(&cache_mu);
        if (b)
            return b;
    }
    return malloc(ARENA_HDR + cap);
}

static void block_put(arena_block *b)
{
    int c = block_class(b->cap);
    if (c >= 0) {
        pthread_mutex_lock(&cache_mu);
        int keep = cache_bytes + b->cap <= ARENA_CACHE_MAX;
        if (keep) {
            b->next = cache_head[c];
            cache_head[c] = b;
            cache_bytes += b->cap;
        }
        pthread_mutex_unlock(&cache_mu);
        if (keep)
            return;
    }
    free(b);
}

/* `align` is 1 (strings) or ARENA_ALIGN. */
static void *arena_alloc_al(arena *a, size_t n, size_t align)
{
    arena_block *b = a->head;
    if (b && align > 1)
        b->used = (b->used + align - 1) & ~(align - 1);
    if (n == 0)
        n = 1;
    if (!b || b->used > b->cap || b->cap - b->used < n) {
        size_t cap = a->next_cap ? a->next_cap : ARENA_MIN;
        if (cap < ARENA_MAXBLK)
            a->next_cap = cap * 2;
        if (cap < n)
            cap = n;
        arena_block *nb = block_get(cap);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->cap = cap;
        a->total += ARENA_HDR + cap;
        /* A large one-off allocation goes behind the current block so the
         * latter's free space is not abandoned. */
        if (b && n > ARENA_MIN && b->used < b->cap && b->cap - b->used >= ARENA_ALIGN) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = (char *)b + ARENA_HDR + b->used;
    b->used += n;
    return p;
}

static void *arena_alloc(arena *a, size_t n)
{
    return arena_alloc_al(a, n, ARENA_ALIGN);
}

static char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc_al(a, n + 1, 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static void arena_free(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *n = b->next;
        block_put(b);
        b = n;
    }
    a->head = NULL;
    a->total = 0;
}

/* --- interned names ------------------------------------------------------ */

typedef struct strtab {
    const char **slots; /* open addressing, NULL = empty */
    size_t cap, n;
} strtab;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static const char *strtab_find(const strtab *t, const char *s)
{
    if (!t->cap)
        return NULL;
    size_t mask = t->cap - 1;
    for (size_t i = hash_str(s) & mask;; i = (i + 1) & mask) {
        if (!t->slots[i])
            return NULL;
        if (strcmp(t->slots[i], s) == 0)
            return t->slots[i];
    }
}

static int strtab_grow(strtab *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    const char **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return 0;
    for (size_t j = 0; j < t->cap; j++) {
        if (!t->slots[j])
            continue;
        size_t i = hash_str(t->slots[j]) & (cap - 1);
        while (slots[i])
            i = (i + 1) & (cap - 1);
        slots[i] = t->slots[j];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 1;
}

static const char *strtab_intern(strtab *t, arena *a, const char *s)
{
    const char *f = strtab_find(t, s);
    if (f)
        return f;
    if ((t->n + 1) * 2 > t->cap && !strtab_grow(t))
        return NULL;
    char *copy = arena_strndup(a, s, strlen(s));
    if (!copy)
        return NULL;
    size_t i = hash_str(s) & (t->cap - 1);
    while (t->slots[i])
        i = (i + 1) & (t->cap - 1);
    t->slots[i] = copy;
    t->n++;
    return copy;
}

/* --- id -> annotation ---------------------------------------------------- */

typedef struct idmap {
    crfp_ann **slots; /* NULL = empty; key is slots[i]->id */
    size_t cap, n;
} idmap;

static size_t hash_id(uint64_t id)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdull;
    id ^= id >> 33;
    return (size_t)id;
}

static crfp_ann *idmap_find(const idmap *m, uint64_t id)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = hash_id(id) & mask;; i = (i + 1) & mask) {
        if (!m->slots[i])
            return NULL;
        if (m->slots[i]->id == id)
            return m->slots[i];
    }
}

static int idmap_put(idmap *m, crfp_ann *a)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        crfp_ann **slots = calloc(cap, sizeof *slots);
        if (!slots)
            return 0;
        for (size_t j = 0; j < m->cap; j++) {
            if (!m->slots[j])
                continue;
            size_t i = hash_id(m->slots[j]->id) & (cap - 1);
            while (slots[i])
                i = (i + 1) & (cap - 1);
            slots[i] = m->slots[j];
        }
        free(m->slots);
        m->slots = slots;
        m->cap = cap;
    }
    size_t i = hash_id(a->id) & (m->cap - 1);
    while (m->slots[i])
        i = (i + 1) & (m->cap - 1);
    m->slots[i] = a;
    m->n++;
    return 1;
}

/* --- layout -------------------------------------------------------------- */

/* The public view first, so a crfp_ann * is also an ann_node *. */
typedef struct ann_node {
    crfp_ann pub;
    size_t cap; /* room in pub.feats */
} ann_node;

struct crfp_annset {
    const struct crfp_doc *doc; /* for its interned names */
    char *name;
    crfp_ann **anns; /* insertion order */
    size_t n, cap;
    /* ins_sorted: the insertion order is the (start, -end, id) order, so
     * select searches anns itself.  Otherwise the order is a sorted copy
     * built on first use.  The lock lets several threads select in the
     * same document concurrently. */
    int ins_sorted;
    size_t nprefix;  /* anns[0..nprefix) are in order (all of them while ins_sorted) */
    pthread_mutex_t lock;
    crfp_ann **sorted;
    size_t nsorted, capsorted;
    int sorted_valid;
    /* ids_sorted: ids strictly increase in insertion order, so an id is
     * found by binary search; otherwise the set's annotations are in the
     * document's id table. */
    int ids_sorted;
    crfp_processor *procs;
    size_t nprocs, capprocs;
};

/* Recently used name pointers and their interned copies: callers pass the
 * same few names (column names, "Token") over and over. */
#define NAMECACHE 64

struct crfp_doc {
    char *id;
    char *text;
    size_t len;
    crfp_offmap map;
    crfp_offset_unit unit;
    arena ar;
    strtab names;
    struct { const char *key, *interned; } namecache[NAMECACHE];
    crfp_annset **sets;
    size_t nsets, capsets;
    size_t nanns;      /* annotations in all sets */
    /* The id table holds the annotations of the sets whose ids are not
     * increasing (ids_sorted == 0), and only once a lookup needed it
     * (ids_live); idlock guards building it from concurrent lookups. */
    idmap ids;
    int ids_live;
    pthread_mutex_t idlock;
    uint64_t next_id;
    crfp_feature *meta;
    size_t nmeta, capmeta;
    void **owned;      /* buffers given by crfp_doc_adopt */
    size_t nowned, capowned;
    size_t owned_bytes;
};

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    size_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    void *p = realloc(*arr, c * elem);
    if (!p)
        return 0;
    *arr = p;
    *cap = c;
    return 1;
}

/* --- documents ----------------------------------------------------------- */

const char *crfp_offset_unit_name(crfp_offset_unit u)
{
    switch (u) {
    case CRFP_OFFSET_UTF16: return "utf16";
    case CRFP_OFFSET_CODEPOINT: return "codepoint";
    case CRFP_OFFSET_BYTE: return "byte";
    }
    return "unknown";
}

int crfp_offset_unit_parse(const char *name)
{
    if (!name)
        return -1;
    if (strcmp(name, "utf16") == 0)
        return CRFP_OFFSET_UTF16;
    if (strcmp(name, "codepoint") == 0)
        return CRFP_OFFSET_CODEPOINT;
    if (strcmp(name, "byte") == 0)
        return CRFP_OFFSET_BYTE;
    return -1;
}

crfp_doc *crfp_doc_new(const char *id)
{
    crfp_doc *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (id && !(d->id = strdup(id))) {
        free(d);
        return NULL;
    }
    if (pthread_mutex_init(&d->idlock, NULL) != 0) {
        free(d->id);
        free(d);
        return NULL;
    }
    d->text = strdup("");
    if (!d->text || !crfp_offmap_build(&d->map, "", 0)) {
        crfp_doc_free(d);
        return NULL;
    }
    return d;
}

void crfp_doc_free(crfp_doc *doc)
{
    if (!doc)
        return;
    for (size_t i = 0; i < doc->nsets; i++) {
        crfp_annset *s = doc->sets[i];
        pthread_mutex_destroy(&s->lock);
        free(s->anns);
        free(s->sorted);
        free(s->procs);
        free(s);
    }
    free(doc->sets);
    free(doc->ids.slots);
    pthread_mutex_destroy(&doc->idlock);
    free(doc->names.slots);
    free(doc->meta);
    for (size_t i = 0; i < doc->nowned; i++)
        free(doc->owned[i]);
    free(doc->owned);
    crfp_offmap_free(&doc->map);
    arena_free(&doc->ar);
    free(doc->text);
    free(doc->id);
    free(doc);
}

const char *crfp_doc_id(const crfp_doc *doc)
{
    return doc->id;
}

crfp_status crfp_doc_set_id(crfp_doc *doc, const char *id)
{
    char *c = NULL;
    if (id && !(c = strdup(id)))
        return CRFP_ENOMEM;
    free(doc->id);
    doc->id = c;
    return CRFP_OK;
}

crfp_status crfp_doc_set_text_owned(crfp_host *host, crfp_doc *doc, char *text, size_t len)
{
    if (doc->nanns) {
        free(text);
        return crfp_error(host, CRFP_EINVAL,
                          "document '%s': the text cannot change once annotations exist",
                          doc->id ? doc->id : "");
    }
    size_t bad;
    if (!crfp_utf8_valid(text, len, &bad)) {
        free(text);
        return crfp_error(host, CRFP_EUTF8,
                          "document '%s': invalid UTF-8 in the text at byte offset %zu",
                          doc->id ? doc->id : "", bad);
    }
    crfp_offmap m;
    if (!crfp_offmap_build(&m, text, len)) {
        free(text);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    text[len] = '\0';
    free(doc->text);
    crfp_offmap_free(&doc->map);
    doc->text = text;
    doc->len = len;
    doc->map = m;
    return CRFP_OK;
}

crfp_status crfp_doc_set_text(crfp_host *host, crfp_doc *doc, const char *text, size_t len)
{
    if (doc->nanns)
        return crfp_error(host, CRFP_EINVAL,
                          "document '%s': the text cannot change once annotations exist",
                          doc->id ? doc->id : "");
    char *copy = malloc(len + 1);
    if (!copy)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    memcpy(copy, text, len);
    return crfp_doc_set_text_owned(host, doc, copy, len);
}

crfp_status crfp_doc_adopt(crfp_doc *doc, void *buf, size_t size)
{
    if (!buf)
        return CRFP_EINVAL;
    if (!grow((void **)&doc->owned, &doc->capowned, doc->nowned + 1, sizeof *doc->owned)) {
        free(buf);
        return CRFP_ENOMEM;
    }
    doc->owned[doc->nowned++] = buf;
    doc->owned_bytes += size;
    return CRFP_OK;
}

size_t crfp_doc_memory(const crfp_doc *doc)
{
    size_t n = sizeof *doc + doc->len + 1 + doc->ar.total + doc->owned_bytes +
               doc->map.nmb * sizeof *doc->map.mb + doc->names.cap * sizeof *doc->names.slots +
               doc->ids.cap * sizeof *doc->ids.slots + doc->capmeta * sizeof *doc->meta +
               doc->capsets * sizeof *doc->sets + doc->capowned * sizeof *doc->owned;
    for (size_t i = 0; i < doc->nsets; i++) {
        const crfp_annset *s = doc->sets[i];
        n += sizeof *s + s->cap * sizeof *s->anns + s->capsorted * sizeof *s->sorted +
             s->capprocs * sizeof *s->procs;
    }
    return n;
}

const char *crfp_doc_text(const crfp_doc *doc, size_t *len_bytes)
{
    if (len_bytes)
        *len_bytes = doc->len;
    return doc->text;
}

crfp_offset_unit crfp_doc_offset_unit(const crfp_doc *doc)
{
    return doc->unit;
}

crfp_status crfp_doc_set_offset_unit(crfp_doc *doc, crfp_offset_unit u)
{
    if (doc->nanns || (int)u < 0 || u > CRFP_OFFSET_BYTE)
        return CRFP_EINVAL;
    doc->unit = u;
    return CRFP_OK;
}

size_t crfp_doc_length(const crfp_doc *doc)
{
    return crfp_offmap_length(&doc->map, (int)doc->unit);
}

static crfp_status map_result(int r)
{
    return r == 0 ? CRFP_OK : r == 1 ? CRFP_EUTF8 : CRFP_EINVAL;
}

crfp_status crfp_doc_to_byte(const crfp_doc *doc, size_t off, size_t *byte)
{
    return map_result(crfp_offmap_to_byte(&doc->map, doc->text, (int)doc->unit, off, byte));
}

crfp_status crfp_doc_from_byte(const crfp_doc *doc, size_t byte, size_t *off)
{
    return map_result(crfp_offmap_from_byte(&doc->map, doc->text, (int)doc->unit, byte, off));
}

/* --- values -------------------------------------------------------------- */

/* Whether s is valid UTF-8.  Feature values are mostly short ASCII words:
 * test that byte by byte and leave the rest to the full validator. */
static int str_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p && *p < 0x80)
        p++;
    return !*p || crfp_utf8_valid((const char *)p, strlen((const char *)p), NULL);
}

/* Strings must be UTF-8 so that every writer can emit them unchanged. */
static crfp_status value_check(const crfp_value *v)
{
    switch (v->type) {
    case CRFP_V_STRING:
        if (!v->u.s)
            return CRFP_EINVAL;
        return str_valid(v->u.s) ? CRFP_OK : CRFP_EUTF8;
    case CRFP_V_INT:
    case CRFP_V_FLOAT:
    case CRFP_V_REF:
        return CRFP_OK;
    case CRFP_V_BOOL:
        return v->u.b == 0 || v->u.b == 1 ? CRFP_OK : CRFP_EINVAL;
    case CRFP_V_LIST:
        if (v->u.list.n && !v->u.list.items)
            return CRFP_EINVAL;
        for (size_t i = 0; i < v->u.list.n; i++) {
            crfp_status st = value_check(&v->u.list.items[i]);
            if (st != CRFP_OK)
                return st;
        }
        return CRFP_OK;
    }
    return CRFP_EINVAL;
}

static crfp_status value_copy(arena *a, crfp_value *dst, const crfp_value *src)
{
    *dst = *src;
    if (src->type == CRFP_V_STRING) {
        if (!(dst->u.s = arena_strndup(a, src->u.s, strlen(src->u.s))))
            return CRFP_ENOMEM;
    } else if (src->type == CRFP_V_LIST) {
        dst->u.list.items = NULL;
        if (src->u.list.n) {
            crfp_value *items = arena_alloc(a, src->u.list.n * sizeof *items);
            if (!items)
                return CRFP_ENOMEM;
            for (size_t i = 0; i < src->u.list.n; i++) {
                crfp_status st = value_copy(a, &items[i], &src->u.list.items[i]);
                if (st != CRFP_OK)
                    return st;
            }
            dst->u.list.items = items;
        }
    }
    return CRFP_OK;
}

/* The document's copy of `name`.  The cache is keyed by the caller's
 * pointer and confirmed by comparing the strings, so a caller reusing a
 * buffer for another name still gets the right one. */
static const char *intern_name(crfp_doc *doc, const char *name)
{
    size_t k = (size_t)(((uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 58);
    const char *c = doc->namecache[k].interned;
    if (c && (c == name || (doc->namecache[k].key == name && strcmp(c, name) == 0)))
        return c;
    c = strtab_intern(&doc->names, &doc->ar, name);
    if (c) {
        doc->namecache[k].key = name;
        doc->namecache[k].interned = c;
    }
    return c;
}

const char *crfp_doc_name(const crfp_doc *doc, const char *name)
{
    return name ? strtab_find(&doc->names, name) : NULL;
}

const char *crfp_doc_intern(crfp_doc *doc, const char *name)
{
    return name ? intern_name(doc, name) : NULL;
}

/* Shared by document metadata and annotation features: check and copy the
 * value into the document, intern the name, and replace the feature in
 * place when `feats` already has it (*done = 1); otherwise the caller
 * appends (name, copy). */
static crfp_status feature_prepare(crfp_doc *doc, crfp_feature *feats, size_t n,
                                   const char *name, const crfp_value *v,
                                   const char **iname, crfp_value *copy, int *done)
{
    *done = 0;
    if (!name || !v)
        return CRFP_EINVAL;
    crfp_status st = value_check(v);
    if (st != CRFP_OK)
        return st;
    if (!(*iname = intern_name(doc, name)))
        return CRFP_ENOMEM;
    if ((st = value_copy(&doc->ar, copy, v)) != CRFP_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        if (feats[i].name == *iname) {
            feats[i].value = *copy;
            *done = 1;
            break;
        }
    }
    return CRFP_OK;
}

/* --- document meta ------------------------------------------------------- */

crfp_status crfp_doc_meta_set(crfp_doc *doc, const char *name, const crfp_value *v)
{
    const char *iname;
    crfp_value copy;
    int done;
    crfp_status st = feature_prepare(doc, doc->meta, doc->nmeta, name, v, &iname, &copy, &done);
    if (st != CRFP_OK || done)
        return st;
    if (!grow((void **)&doc->meta, &doc->capmeta, doc->nmeta + 1, sizeof *doc->meta))
        return CRFP_ENOMEM;
    doc->meta[doc->nmeta].name = iname;
    doc->meta[doc->nmeta].value = copy;
    doc->nmeta++;
    return CRFP_OK;
}

crfp_status crfp_doc_meta_set_str(crfp_doc *doc, const char *name, const char *s)
{
    crfp_value v = {.type = CRFP_V_STRING, .u.s = s};
    return crfp_doc_meta_set(doc, name, &v);
}

const crfp_value *crfp_doc_meta_get(const crfp_doc *doc, const char *name)
{
    for (size_t i = 0; i < doc->nmeta; i++)
        if (strcmp(doc->meta[i].name, name) == 0)
            return &doc->meta[i].value;
    return NULL;
}

const char *crfp_doc_meta_str(const crfp_doc *doc, const char *name)
{
    const crfp_value *v = crfp_doc_meta_get(doc, name);
    return v && v->type == CRFP_V_STRING ? v->u.s : NULL;
}

const crfp_feature *crfp_doc_meta(const crfp_doc *doc, size_t *n)
{
    *n = doc->nmeta;
    return doc->meta;
}

/* --- annotation sets ----------------------------------------------------- */

crfp_annset *crfp_doc_annset(crfp_doc *doc, const char *name, int create)
{
    if (!name)
        name = "";
    for (size_t i = 0; i < doc->nsets; i++)
        if (strcmp(doc->sets[i]->name, name) == 0)
            return doc->sets[i];
    if (!create)
        return NULL;
    if (!grow((void **)&doc->sets, &doc->capsets, doc->nsets + 1, sizeof *doc->sets))
        return NULL;
    crfp_annset *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (!(s->name = arena_strndup(&doc->ar, name, strlen(name))) ||
        pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return NULL;
    }
    s->doc = doc;
    s->ins_sorted = 1;
    s->ids_sorted = 1;
    doc->sets[doc->nsets++] = s;
    return s;
}

size_t crfp_doc_annset_count(const crfp_doc *doc)
{
    return doc->nsets;
}

crfp_annset *crfp_doc_annset_at(const crfp_doc *doc, size_t i)
{
    return i < doc->nsets ? doc->sets[i] : NULL;
}

const char *crfp_annset_name(const crfp_annset *set)
{
    return set->name;
}

crfp_status crfp_annset_add_processor(crfp_doc *doc, crfp_annset *set, const char *plugin,
                                      const char *version, const char *const *names,
                                      const char *const *values, size_t n)
{
    if (!plugin || !version || (n && (!names || !values)))
        return CRFP_EINVAL;
    if (!grow((void **)&set->procs, &set->capprocs, set->nprocs + 1, sizeof *set->procs))
        return CRFP_ENOMEM;
    crfp_processor p = {0};
    p.plugin = arena_strndup(&doc->ar, plugin, strlen(plugin));
    p.version = arena_strndup(&doc->ar, version, strlen(version));
    if (!p.plugin || !p.version)
        return CRFP_ENOMEM;
    if (n) {
        const char **pn = arena_alloc(&doc->ar, n * sizeof *pn);
        const char **pv = arena_alloc(&doc->ar, n * sizeof *pv);
        if (!pn || !pv)
            return CRFP_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            if (!names[i] || !values[i])
                return CRFP_EINVAL;
            pn[i] = arena_strndup(&doc->ar, names[i], strlen(names[i]));
            pv[i] = arena_strndup(&doc->ar, values[i], strlen(values[i]));
            if (!pn[i] || !pv[i])
                return CRFP_ENOMEM;
        }
        p.param_names = pn;
        p.param_values = pv;
    }
    p.nparams = n;
    set->procs[set->nprocs++] = p;
    return CRFP_OK;
}

const crfp_processor *crfp_annset_processors(const crfp_annset *set, size_t *n)
{
    *n = set->nprocs;
    return set->procs;
}

/* (start, -end, id): enclosing annotations before their contents. */
static int ann_cmp(const crfp_ann *a, const crfp_ann *b)
{
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int ann_qcmp(const void *x, const void *y)
{
    return ann_cmp(*(crfp_ann *const *)x, *(crfp_ann *const *)y);
}

static crfp_status check_span(crfp_host *host, const crfp_doc *doc, const char *type,
                              size_t start, size_t end)
{
    /* Text without multi-byte characters, or byte offsets: every offset up
     * to the length is a character boundary (byte offsets need the text). */
    size_t len = crfp_doc_length(doc), b;
    if (start <= end && end <= len && doc->map.nmb == 0)
        return CRFP_OK;
    const char *id = doc->id ? doc->id : "";
    if (start > end || end > len)
        return crfp_error(host, CRFP_EINVAL,
                          "document '%s': %s annotation [%zu, %zu) outside the text (length %zu %s)",
                          id, type, start, end, len, crfp_offset_unit_name(doc->unit));
    if (crfp_doc_to_byte(doc, start, &b) != CRFP_OK)
        return crfp_error(host, CRFP_EUTF8,
                          "document '%s': %s annotation start %zu is inside a character (%s offsets)",
                          id, type, start, crfp_offset_unit_name(doc->unit));
    if (crfp_doc_to_byte(doc, end, &b) != CRFP_OK)
        return crfp_error(host, CRFP_EUTF8,
                          "document '%s': %s annotation end %zu is inside a character (%s offsets)",
                          id, type, end, crfp_offset_unit_name(doc->unit));
    return CRFP_OK;
}

/* Binary search of a set whose ids increase. */
static crfp_ann *set_find_sorted(const crfp_annset *s, uint64_t id)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->anns[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->anns[lo]->id == id ? s->anns[lo] : NULL;
}

/* Put every annotation of the unsorted sets in the id table (once). */
static int ids_build(crfp_doc *doc)
{
    if (doc->ids_live)
        return 1;
    for (size_t i = 0; i < doc->nsets; i++) {
        const crfp_annset *s = doc->sets[i];
        if (s->ids_sorted)
            continue;
        for (size_t k = 0; k < s->n; k++)
            if (!idmap_put(&doc->ids, s->anns[k]))
                return 0;
    }
    doc->ids_live = 1;
    return 1;
}

/* The annotation with this id, or NULL; *oom set when the id table could
 * not be built. */
static crfp_ann *find_id(const crfp_doc *cdoc, uint64_t id, int *oom)
{
    crfp_doc *doc = (crfp_doc *)cdoc; /* the id table is a cache */
    *oom = 0;
    if (id >= doc->next_id)
        return NULL;
    int unsorted = 0;
    for (size_t i = 0; i < doc->nsets; i++) {
        const crfp_annset *s = doc->sets[i];
        if (!s->ids_sorted) {
            unsorted = 1;
            continue;
        }
        crfp_ann *a = set_find_sorted(s, id);
        if (a)
            return a;
    }
    if (!unsorted)
        return NULL;
    pthread_mutex_lock(&doc->idlock);
    crfp_ann *a = NULL;
    if (ids_build(doc))
        a = idmap_find(&doc->ids, id);
    else
        *oom = 1;
    pthread_mutex_unlock(&doc->idlock);
    return a;
}

crfp_status crfp_annset_add_with_id(crfp_host *host, crfp_doc *doc, crfp_annset *set,
                                    uint64_t id, const char *type, size_t start, size_t end,
                                    crfp_ann **out)
{
    if (!type)
        return crfp_error(host, CRFP_EINVAL, "annotation without a type");
    crfp_status st = check_span(host, doc, type, start, end);
    if (st != CRFP_OK)
        return st;
    /* An id at or above next_id is new by construction: only ids below it
     * (files with ids out of order) need a lookup. */
    if (id < doc->next_id) {
        int oom;
        if (find_id(doc, id, &oom))
            return crfp_error(host, CRFP_EINVAL, "document '%s': duplicate annotation id %llu",
                              doc->id ? doc->id : "", (unsigned long long)id);
        if (oom)
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    if (!grow((void **)&set->anns, &set->cap, set->n + 1, sizeof *set->anns))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    ann_node *a = arena_alloc(&doc->ar, sizeof *a);
    const char *itype = intern_name(doc, type);
    if (!a || !itype)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    memset(a, 0, sizeof *a);
    a->pub.id = id;
    a->pub.type = itype;
    a->pub.start = start;
    a->pub.end = end;

    /* Id bookkeeping: a set leaving id order joins the id table, if that
     * table exists yet (otherwise it is built from the flags when needed). */
    int in_order = set->n == 0 || set->anns[set->n - 1]->id < id;
    if (set->ids_sorted && !in_order) {
        set->ids_sorted = 0;
        if (doc->ids_live)
            for (size_t k = 0; k < set->n; k++)
                if (!idmap_put(&doc->ids, set->anns[k]))
                    return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    if (!set->ids_sorted && doc->ids_live && !idmap_put(&doc->ids, &a->pub))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");

    pthread_mutex_lock(&set->lock);
    int ordered = set->n == 0 || ann_cmp(set->anns[set->n - 1], &a->pub) < 0;
    if (set->ins_sorted && !ordered) {
        /* The sorted copy starts from here; it is built on the next select. */
        set->ins_sorted = 0;
        set->sorted_valid = 0;
        set->nprefix = set->n;
    } else if (!set->ins_sorted && set->sorted_valid) {
        /* Readers add in document order; keep the index instead of resorting. */
        if ((set->nsorted == 0 || ann_cmp(set->sorted[set->nsorted - 1], &a->pub) < 0) &&
            grow((void **)&set->sorted, &set->capsorted, set->nsorted + 1, sizeof *set->sorted))
            set->sorted[set->nsorted++] = &a->pub;
        else
            set->sorted_valid = 0;
    }
    set->anns[set->n++] = &a->pub;
    pthread_mutex_unlock(&set->lock);
    doc->nanns++;
    if (id >= doc->next_id)
        doc->next_id = id + 1;
    if (out)
        *out = &a->pub;
    return CRFP_OK;
}

crfp_status crfp_annset_add(crfp_host *host, crfp_doc *doc, crfp_annset *set, const char *type,
                            size_t start, size_t end, crfp_ann **out)
{
    return crfp_annset_add_with_id(host, doc, set, doc->next_id, type, start, end, out);
}

size_t crfp_annset_size(const crfp_annset *set)
{
    return set->n;
}

crfp_ann *crfp_annset_get(const crfp_annset *set, size_t i)
{
    return i < set->n ? set->anns[i] : NULL;
}

/* Build the sorted copy.  Annotations come in runs: the reader's, in
 * order, then those a tagger added (spans, themselves in order): sort only
 * what follows the ordered prefix, when it needs it, and merge, instead of
 * sorting everything.  Called with the set's lock held. */
static crfp_status sort_set(crfp_annset *set)
{
    size_t n = set->n, p = set->nprefix <= n ? set->nprefix : 0, m = n - p;
    crfp_ann **tail = NULL;
    if (m) {
        if (!(tail = malloc(m * sizeof *tail)))
            return CRFP_ENOMEM;
        memcpy(tail, set->anns + p, m * sizeof *tail);
        size_t k = 1;
        while (k < m && ann_cmp(tail[k - 1], tail[k]) < 0)
            k++;
        if (k < m)
            qsort(tail, m, sizeof *tail, ann_qcmp);
    }
    if (p)
        memcpy(set->sorted, set->anns, p * sizeof *set->sorted);
    /* merge from the back: the prefix is already in place */
    size_t i = p, j = m, o = n;
    while (j > 0) {
        if (i > 0 && ann_cmp(set->sorted[i - 1], tail[j - 1]) > 0)
            set->sorted[--o] = set->sorted[--i];
        else
            set->sorted[--o] = tail[--j];
    }
    free(tail);
    set->nsorted = n;
    set->sorted_valid = 1;
    return CRFP_OK;
}

crfp_status crfp_annset_select(const crfp_annset *cset, const char *type, size_t start,
                               size_t end, crfp_ann ***out, size_t *n)
{
    /* The index is a cache: building it does not change what the set holds. */
    crfp_annset *set = (crfp_annset *)cset;
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&set->lock);
    crfp_ann **order = set->anns;
    size_t norder = set->n;
    if (!set->ins_sorted) {
        if (!set->sorted_valid) {
            if (!grow((void **)&set->sorted, &set->capsorted, set->n, sizeof *set->sorted)) {
                pthread_mutex_unlock(&set->lock);
                return CRFP_ENOMEM;
            }
            if (sort_set(set) != CRFP_OK) {
                pthread_mutex_unlock(&set->lock);
                return CRFP_ENOMEM;
            }
        }
        order = set->sorted;
        norder = set->nsorted;
    }
    size_t lo = 0, hi = norder;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (order[mid]->start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Type names are interned: comparing the pointer of the document's copy
     * is enough. */
    const char *itype = NULL;
    if (type && !(itype = strtab_find(&set->doc->names, type))) {
        pthread_mutex_unlock(&set->lock);
        return CRFP_OK;
    }
    size_t cnt = 0, first = lo;
    for (size_t i = lo; i < norder && order[i]->start <= end; i++) {
        const crfp_ann *a = order[i];
        if (a->end <= end && (!itype || a->type == itype))
            cnt++;
    }
    if (cnt) {
        crfp_ann **res = malloc(cnt * sizeof *res);
        if (!res) {
            pthread_mutex_unlock(&set->lock);
            return CRFP_ENOMEM;
        }
        size_t k = 0;
        for (size_t i = first; k < cnt; i++) {
            crfp_ann *a = order[i];
            if (a->end <= end && (!itype || a->type == itype))
                res[k++] = a;
        }
        *out = res;
        *n = cnt;
    }
    pthread_mutex_unlock(&set->lock);
    return CRFP_OK;
}

crfp_ann *crfp_doc_find_ann(const crfp_doc *doc, uint64_t id)
{
    int oom;
    return find_id(doc, id, &oom);
}

/* --- features ------------------------------------------------------------ */

/* Make room for `want` features on ann; the old array stays in the arena
 * (doubling bounds the waste). */
static crfp_status feats_room(crfp_doc *doc, crfp_ann *ann, size_t want)
{
    ann_node *node = (ann_node *)ann;
    if (want <= node->cap)
        return CRFP_OK;
    size_t cap = node->cap ? node->cap * 2 : 4;
    if (cap < want)
        cap = want;
    crfp_feature *f = arena_alloc(&doc->ar, cap * sizeof *f);
    if (!f)
        return CRFP_ENOMEM;
    if (ann->nfeats)
        memcpy(f, ann->feats, ann->nfeats * sizeof *f);
    ann->feats = f;
    node->cap = cap;
    return CRFP_OK;
}

crfp_status crfp_ann_reserve(crfp_doc *doc, crfp_ann *ann, size_t n)
{
    ann_node *node = (ann_node *)ann;
    if (n <= node->cap)
        return CRFP_OK;
    /* Exactly n: a reader knows how many features its tokens get. */
    crfp_feature *f = arena_alloc(&doc->ar, n * sizeof *f);
    if (!f)
        return CRFP_ENOMEM;
    if (ann->nfeats)
        memcpy(f, ann->feats, ann->nfeats * sizeof *f);
    ann->feats = f;
    node->cap = n;
    return CRFP_OK;
}

static crfp_status feats_put(crfp_doc *doc, crfp_ann *ann, const char *iname,
                             const crfp_value *copy)
{
    crfp_status st = feats_room(doc, ann, ann->nfeats + 1);
    if (st != CRFP_OK)
        return st;
    ann->feats[ann->nfeats].name = iname;
    ann->feats[ann->nfeats].value = *copy;
    ann->nfeats++;
    return CRFP_OK;
}

crfp_status crfp_ann_set(crfp_doc *doc, crfp_ann *ann, const char *name, const crfp_value *v)
{
    const char *iname;
    crfp_value copy;
    int done;
    crfp_status st = feature_prepare(doc, ann->feats, ann->nfeats, name, v, &iname, &copy, &done);
    if (st != CRFP_OK || done)
        return st;
    return feats_put(doc, ann, iname, &copy);
}

crfp_status crfp_ann_set_str_ref(crfp_doc *doc, crfp_ann *ann, const char *name, const char *s)
{
    if (!name || !s)
        return CRFP_EINVAL;
    if (!str_valid(s))
        return CRFP_EUTF8;
    const char *iname = intern_name(doc, name);
    if (!iname)
        return CRFP_ENOMEM;
    crfp_value v = {.type = CRFP_V_STRING, .u.s = s};
    for (size_t i = 0; i < ann->nfeats; i++)
        if (ann->feats[i].name == iname) {
            ann->feats[i].value = v;
            return CRFP_OK;
        }
    return feats_put(doc, ann, iname, &v);
}

/* CRFP_OK when s[0..n) is valid UTF-8 without NUL (CRFP_EINVAL for a NUL,
 * CRFP_EUTF8), eight ASCII bytes at a time. */
static crfp_status mem_check(const char *s, size_t n)
{
    const uint64_t lo = 0x0101010101010101ull, hi = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        if (((v - lo) & ~v & hi) | (v & hi))
            break;
    }
    for (; i < n; i++)
        if (s[i] == '\0' || (unsigned char)s[i] >= 0x80)
            break;
    if (i == n)
        return CRFP_OK;
    if (memchr(s + i, '\0', n - i))
        return CRFP_EINVAL;
    return crfp_utf8_valid(s + i, n - i, NULL) ? CRFP_OK : CRFP_EUTF8;
}

crfp_status crfp_ann_set_strs_ref(crfp_doc *doc, crfp_ann *ann, const char *const *names,
                                  const char *const *values, const size_t *lens, size_t n)
{
    /* A fresh annotation (no features yet) with distinct names takes the
     * features in one append; anything else goes one by one. */
    int fresh = ann->nfeats == 0 && n <= 64;
    const char *in[64];
    for (size_t i = 0; fresh && i < n; i++) {
        if (!names[i] || !values[i])
            return CRFP_EINVAL;
        if (!(in[i] = intern_name(doc, names[i])))
            return CRFP_ENOMEM;
        for (size_t j = 0; j < i; j++)
            fresh &= in[j] != in[i];
    }
    if (!fresh) {
        /* Room for every name not yet present in one allocation of the
         * exact size: one by one, the arena would keep each outgrown array
         * (a reader's 2 features + 3 set here: 4 + 8 slots instead of 5). */
        size_t add = 0;
        for (size_t i = 0; i < n; i++)
            add += names[i] && !crfp_ann_get(ann, names[i]);
        crfp_status st = crfp_ann_reserve(doc, ann, ann->nfeats + add);
        if (st != CRFP_OK)
            return st;
        for (size_t i = 0; i < n; i++) {
            st = crfp_ann_set_str_ref(doc, ann, names[i], values[i]);
            if (st == CRFP_OK && lens && values[i][lens[i]] != '\0')
                st = CRFP_EINVAL;
            if (st != CRFP_OK)
                return st;
        }
        return CRFP_OK;
    }
    crfp_status st = feats_room(doc, ann, n);
    if (st != CRFP_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        if (lens) {
            /* a NUL inside or none at the end: not the string described */
            if (values[i][lens[i]] != '\0')
                return CRFP_EINVAL;
            if ((st = mem_check(values[i], lens[i])) != CRFP_OK)
                return st;
        } else if (!str_valid(values[i])) {
            return CRFP_EUTF8;
        }
        ann->feats[i].name = in[i];
        ann->feats[i].value.type = CRFP_V_STRING;
        ann->feats[i].value.u.s = values[i];
        ann->nfeats = i + 1;
    }
    return CRFP_OK;
}

crfp_status crfp_ann_set_str(crfp_doc *doc, crfp_ann *ann, const char *name, const char *s)
{
    crfp_value v = {.type = CRFP_V_STRING, .u.s = s};
    return crfp_ann_set(doc, ann, name, &v);
}

crfp_status crfp_ann_set_int(crfp_doc *doc, crfp_ann *ann, const char *name, int64_t i)
{
    crfp_value v = {.type = CRFP_V_INT, .u.i = i};
    return crfp_ann_set(doc, ann, name, &v);
}

crfp_status crfp_ann_set_float(crfp_doc *doc, crfp_ann *ann, const char *name, double f)
{
    crfp_value v = {.type = CRFP_V_FLOAT, .u.f = f};
    return crfp_ann_set(doc, ann, name, &v);
}

crfp_status crfp_ann_set_bool(crfp_doc *doc, crfp_ann *ann, const char *name, int b)
{
    crfp_value v = {.type = CRFP_V_BOOL, .u.b = b != 0};
    return crfp_ann_set(doc, ann, name, &v);
}

crfp_status crfp_ann_set_ref(crfp_doc *doc, crfp_ann *ann, const char *name, uint64_t id)
{
    crfp_value v = {.type = CRFP_V_REF, .u.ref = id};
    return crfp_ann_set(doc, ann, name, &v);
}

const crfp_value *crfp_ann_get(const crfp_ann *ann, const char *name)
{
    /* Interned names match by pointer; others mostly differ at once. */
    for (size_t i = 0; i < ann->nfeats; i++)
        if (ann->feats[i].name == name ||
            (ann->feats[i].name[0] == name[0] && strcmp(ann->feats[i].name, name) == 0))
            return &ann->feats[i].value;
    return NULL;
}

const char *crfp_ann_str(const crfp_ann *ann, const char *name)
{
    const crfp_value *v = crfp_ann_get(ann, name);
    return v && v->type == CRFP_V_STRING ? v->u.s : NULL;
}

/* --- comparison ---------------------------------------------------------- */

static int differ(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return 0;
}

static int str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int crfp_value_equal(const crfp_value *a, const crfp_value *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case CRFP_V_STRING: return strcmp(a->u.s, b->u.s) == 0;
    case CRFP_V_INT: return a->u.i == b->u.i;
    /* Bitwise, so that NaN equals itself and -0 differs from 0. */
    case CRFP_V_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof a->u.f) == 0;
    case CRFP_V_BOOL: return a->u.b == b->u.b;
    case CRFP_V_REF: return a->u.ref == b->u.ref;
    case CRFP_V_LIST:
        if (a->u.list.n != b->u.list.n)
            return 0;
        for (size_t i = 0; i < a->u.list.n; i++)
            if (!crfp_value_equal(&a->u.list.items[i], &b->u.list.items[i]))
                return 0;
        return 1;
    }
    return 0;
}

static int feats_equal(const crfp_feature *fa, size_t na, const crfp_feature *fb, size_t nb,
                       const char *what, char *why, size_t whylen)
{
    if (na != nb)
        return differ(why, whylen, "%s: %zu vs %zu features", what, na, nb);
    for (size_t i = 0; i < na; i++) {
        if (strcmp(fa[i].name, fb[i].name) != 0)
            return differ(why, whylen, "%s: feature %zu named '%s' vs '%s'", what, i,
                          fa[i].name, fb[i].name);
        if (!crfp_value_equal(&fa[i].value, &fb[i].value))
            return differ(why, whylen, "%s: feature '%s' differs", what, fa[i].name);
    }
    return 1;
}

int crfp_doc_equal(const crfp_doc *a, const crfp_doc *b, char *why, size_t whylen)
{
    if (!str_eq(a->id, b->id))
        return differ(why, whylen, "ids differ");
    if (a->len != b->len || memcmp(a->text, b->text, a->len) != 0)
        return differ(why, whylen, "texts differ");
    if (a->unit != b->unit)
        return differ(why, whylen, "offset units differ");
    if (!feats_equal(a->meta, a->nmeta, b->meta, b->nmeta, "meta", why, whylen))
        return 0;
    if (a->nsets != b->nsets)
        return differ(why, whylen, "%zu vs %zu annotation sets", a->nsets, b->nsets);
    for (size_t s = 0; s < a->nsets; s++) {
        const crfp_annset *sa = a->sets[s], *sb = b->sets[s];
        if (strcmp(sa->name, sb->name) != 0)
            return differ(why, whylen, "set %zu named '%s' vs '%s'", s, sa->name, sb->name);
        if (sa->nprocs != sb->nprocs)
            return differ(why, whylen, "set '%s': processor counts differ", sa->name);
        for (size_t p = 0; p < sa->nprocs; p++) {
            const crfp_processor *pa = &sa->procs[p], *pb = &sb->procs[p];
            int eq = strcmp(pa->plugin, pb->plugin) == 0 &&
                     strcmp(pa->version, pb->version) == 0 && pa->nparams == pb->nparams;
            for (size_t k = 0; eq && k < pa->nparams; k++)
                eq = strcmp(pa->param_names[k], pb->param_names[k]) == 0 &&
                     strcmp(pa->param_values[k], pb->param_values[k]) == 0;
            if (!eq)
                return differ(why, whylen, "set '%s': processor %zu differs", sa->name, p);
        }
        if (sa->n != sb->n)
            return differ(why, whylen, "set '%s': %zu vs %zu annotations", sa->name, sa->n,
                          sb->n);
        for (size_t i = 0; i < sa->n; i++) {
            const crfp_ann *x = sa->anns[i], *y = sb->anns[i];
            char what[96];
            snprintf(what, sizeof what, "set '%s' annotation %llu", sa->name,
                     (unsigned long long)x->id);
            if (x->id != y->id || strcmp(x->type, y->type) != 0 || x->start != y->start ||
                x->end != y->end)
                return differ(why, whylen, "%s: id, type or span differs", what);
            if (!feats_equal(x->feats, x->nfeats, y->feats, y->nfeats, what, why, whylen))
                return 0;
        }
    }
    return 1;
}
