/* crfpipe — the annotated document model.
 *
 * Memory: everything a document owns except a few growable arrays lives in a
 * per-document arena, so a column reader creating a million features pays
 * for a handful of mallocs, and a document is freed in one sweep.  Type and
 * feature names are interned (one copy per document, compared by pointer).
 * Annotations are arena objects too, which is what keeps crfp_ann pointers
 * stable while sets grow.
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

#define ARENA_ALIGN (alignof(max_align_t))
#define ARENA_HDR ((sizeof(arena_block) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1))
#define ARENA_MIN 16384u

typedef struct arena {
    arena_block *head;
    size_t next_cap; /* blocks grow geometrically up to 1 MiB */
} arena;

static void *arena_alloc(arena *a, size_t n)
{
    n = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    if (n == 0)
        n = ARENA_ALIGN;
    arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = a->next_cap ? a->next_cap : ARENA_MIN;
        if (cap < (1u << 20))
            a->next_cap = cap * 2;
        if (cap < n)
            cap = n;
        arena_block *nb = malloc(ARENA_HDR + cap);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->cap = cap;
        /* A large one-off allocation goes behind the current block so the
         * latter's free space is not abandoned. */
        if (b && n > ARENA_MIN && b->cap - b->used >= ARENA_ALIGN) {
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

static char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
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
        free(b);
        b = n;
    }
    a->head = NULL;
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
    /* (start, -end, id) order for select, built on first use.  The lock
     * lets several threads select in the same document concurrently. */
    pthread_mutex_t lock;
    crfp_ann **sorted;
    size_t nsorted, capsorted;
    int sorted_valid;
    crfp_processor *procs;
    size_t nprocs, capprocs;
};

struct crfp_doc {
    char *id;
    char *text;
    size_t len;
    crfp_offmap map;
    crfp_offset_unit unit;
    arena ar;
    strtab names;
    crfp_annset **sets;
    size_t nsets, capsets;
    idmap ids;
    uint64_t next_id;
    crfp_feature *meta;
    size_t nmeta, capmeta;
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
    free(doc->names.slots);
    free(doc->meta);
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

crfp_status crfp_doc_set_text(crfp_host *host, crfp_doc *doc, const char *text, size_t len)
{
    if (doc->ids.n)
        return crfp_error(host, CRFP_EINVAL,
                          "document '%s': the text cannot change once annotations exist",
                          doc->id ? doc->id : "");
    size_t bad;
    if (!crfp_utf8_valid(text, len, &bad))
        return crfp_error(host, CRFP_EUTF8,
                          "document '%s': invalid UTF-8 in the text at byte offset %zu",
                          doc->id ? doc->id : "", bad);
    char *copy = malloc(len + 1);
    crfp_offmap m;
    if (!copy || !crfp_offmap_build(&m, text, len)) {
        free(copy);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    free(doc->text);
    crfp_offmap_free(&doc->map);
    doc->text = copy;
    doc->len = len;
    doc->map = m;
    return CRFP_OK;
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
    if (doc->ids.n || (int)u < 0 || u > CRFP_OFFSET_BYTE)
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

/* Strings must be UTF-8 so that every writer can emit them unchanged. */
static crfp_status value_check(const crfp_value *v)
{
    switch (v->type) {
    case CRFP_V_STRING:
        if (!v->u.s)
            return CRFP_EINVAL;
        return crfp_utf8_valid(v->u.s, strlen(v->u.s), NULL) ? CRFP_OK : CRFP_EUTF8;
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
    if (!(*iname = strtab_intern(&doc->names, &doc->ar, name)))
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
    const char *id = doc->id ? doc->id : "";
    size_t len = crfp_doc_length(doc), b;
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

crfp_status crfp_annset_add_with_id(crfp_host *host, crfp_doc *doc, crfp_annset *set,
                                    uint64_t id, const char *type, size_t start, size_t end,
                                    crfp_ann **out)
{
    if (!type)
        return crfp_error(host, CRFP_EINVAL, "annotation without a type");
    crfp_status st = check_span(host, doc, type, start, end);
    if (st != CRFP_OK)
        return st;
    if (idmap_find(&doc->ids, id))
        return crfp_error(host, CRFP_EINVAL, "document '%s': duplicate annotation id %llu",
                          doc->id ? doc->id : "", (unsigned long long)id);
    if (!grow((void **)&set->anns, &set->cap, set->n + 1, sizeof *set->anns))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    ann_node *a = arena_alloc(&doc->ar, sizeof *a);
    const char *itype = strtab_intern(&doc->names, &doc->ar, type);
    if (!a || !itype)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    memset(a, 0, sizeof *a);
    a->pub.id = id;
    a->pub.type = itype;
    a->pub.start = start;
    a->pub.end = end;
    if (!idmap_put(&doc->ids, &a->pub))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    set->anns[set->n++] = &a->pub;
    if (id >= doc->next_id)
        doc->next_id = id + 1;

    /* Readers add in document order; keep the index instead of resorting. */
    pthread_mutex_lock(&set->lock);
    if (set->sorted_valid) {
        if ((set->nsorted == 0 || ann_cmp(set->sorted[set->nsorted - 1], &a->pub) < 0) &&
            grow((void **)&set->sorted, &set->capsorted, set->nsorted + 1, sizeof *set->sorted))
            set->sorted[set->nsorted++] = &a->pub;
        else
            set->sorted_valid = 0;
    }
    pthread_mutex_unlock(&set->lock);
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

crfp_status crfp_annset_select(const crfp_annset *cset, const char *type, size_t start,
                               size_t end, crfp_ann ***out, size_t *n)
{
    /* The index is a cache: building it does not change what the set holds. */
    crfp_annset *set = (crfp_annset *)cset;
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&set->lock);
    if (!set->sorted_valid) {
        if (!grow((void **)&set->sorted, &set->capsorted, set->n, sizeof *set->sorted)) {
            pthread_mutex_unlock(&set->lock);
            return CRFP_ENOMEM;
        }
        if (set->n)
            memcpy(set->sorted, set->anns, set->n * sizeof *set->sorted);
        set->nsorted = set->n;
        /* qsort's pointer must be valid even for no elements, and an empty
         * set has no array (UBSan aborts on qsort(NULL, 0, ...)). */
        if (set->nsorted > 1)
            qsort(set->sorted, set->nsorted, sizeof *set->sorted, ann_qcmp);
        set->sorted_valid = 1;
    }
    size_t lo = 0, hi = set->nsorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (set->sorted[mid]->start < start)
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
    for (size_t i = lo; i < set->nsorted && set->sorted[i]->start <= end; i++) {
        const crfp_ann *a = set->sorted[i];
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
            crfp_ann *a = set->sorted[i];
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
    return idmap_find(&doc->ids, id);
}

/* --- features ------------------------------------------------------------ */

crfp_status crfp_ann_set(crfp_doc *doc, crfp_ann *ann, const char *name, const crfp_value *v)
{
    const char *iname;
    crfp_value copy;
    int done;
    crfp_status st = feature_prepare(doc, ann->feats, ann->nfeats, name, v, &iname, &copy, &done);
    if (st != CRFP_OK || done)
        return st;
    ann_node *node = (ann_node *)ann;
    if (ann->nfeats == node->cap) {
        /* The old array stays in the arena; doubling bounds the waste. */
        size_t cap = node->cap ? node->cap * 2 : 4;
        crfp_feature *f = arena_alloc(&doc->ar, cap * sizeof *f);
        if (!f)
            return CRFP_ENOMEM;
        if (ann->nfeats)
            memcpy(f, ann->feats, ann->nfeats * sizeof *f);
        ann->feats = f;
        node->cap = cap;
    }
    ann->feats[ann->nfeats].name = iname;
    ann->feats[ann->nfeats].value = copy;
    ann->nfeats++;
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
    for (size_t i = 0; i < ann->nfeats; i++)
        if (strcmp(ann->feats[i].name, name) == 0)
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
