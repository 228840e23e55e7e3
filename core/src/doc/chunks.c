/* Chunk boundaries and chunk F1 with conlleval's rules (see chunks.h). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/chunks.h"

static void copy_trunc(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

void crfp_chunk_split(const char *label, crfp_chunk_label *out)
{
    if (!label)
        label = "O";
    /* The tag ends at the first '-'; the type is all the rest, so types
     * may contain hyphens ("B-creative-work"), as in conlleval since 2004. */
    const char *dash = strchr(label, '-');
    if (!dash) {
        copy_trunc(out->tag, sizeof out->tag, label, strlen(label));
        out->type[0] = '\0';
        return;
    }
    copy_trunc(out->tag, sizeof out->tag, label, (size_t)(dash - label));
    const char *type = dash + 1;
    size_t n = strlen(type);
    if (n < sizeof out->type) {
        memcpy(out->type, type, n + 1);
        return;
    }
    /* Too long for the field: cutting it would make types that share
     * their first 63 bytes one type, and merge their chunks and scores.
     * Keep a prefix (cut at a character boundary), '~' and a 64-bit FNV-1a
     * hash of the whole type, which keeps distinct types distinct. */
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)type[i]) * UINT64_C(0x100000001b3);
    size_t keep = sizeof out->type - 1 - 17;
    while (keep > 0 && ((unsigned char)type[keep] & 0xC0) == 0x80)
        keep--;
    memcpy(out->type, type, keep);
    snprintf(out->type + keep, sizeof out->type - keep, "~%016llx", (unsigned long long)h);
}

static int is(const crfp_chunk_label *l, const char *tag)
{
    return strcmp(l->tag, tag) == 0;
}

int crfp_chunk_ends(const crfp_chunk_label *p, const crfp_chunk_label *c)
{
    if ((is(p, "B") || is(p, "I")) && (is(c, "B") || is(c, "O")))
        return 1;
    if (is(p, "E") && (is(c, "E") || is(c, "I") || is(c, "O")))
        return 1;
    if (!is(p, "O") && !is(p, ".") && strcmp(p->type, c->type) != 0)
        return 1;
    return is(p, "]") || is(p, "[");
}

int crfp_chunk_starts(const crfp_chunk_label *p, const crfp_chunk_label *c)
{
    if ((is(p, "B") || is(p, "I") || is(p, "O")) && is(c, "B"))
        return 1;
    if (is(p, "O") && is(c, "I"))
        return 1;
    if ((is(p, "E") || is(p, "O")) && (is(c, "E") || is(c, "I")))
        return 1;
    if (!is(c, "O") && !is(c, ".") && strcmp(p->type, c->type) != 0)
        return 1;
    return is(c, "[") || is(c, "]");
}

int crfp_labels_are_chunked(const char *const *labels, size_t n)
{
    int typed = 0;
    for (size_t i = 0; i < n; i++) {
        const char *l = labels[i];
        if (strcmp(l, "O") == 0)
            continue;
        if (!strchr("BIES", l[0]) || l[1] != '-' || l[2] == '\0')
            return 0;
        typed = 1;
    }
    return typed;
}

void crfp_chunk_spans(const char *const *labels, size_t n,
                      void (*emit)(void *ud, size_t start, size_t end, const char *type),
                      void *ud)
{
    crfp_chunk_label prev, cur;
    crfp_chunk_split("O", &prev);
    size_t start = 0;
    int open = 0;
    for (size_t i = 0; i <= n; i++) {
        crfp_chunk_split(i < n ? labels[i] : "O", &cur);
        if (open && crfp_chunk_ends(&prev, &cur)) {
            emit(ud, start, i, prev.type);
            open = 0;
        }
        if (i < n && crfp_chunk_starts(&prev, &cur)) {
            start = i;
            open = 1;
        }
        prev = cur;
    }
}

void crfp_chunkeval_init(crfp_chunkeval *e)
{
    memset(e, 0, sizeof *e);
    crfp_chunk_split("O", &e->last_gold);
    crfp_chunk_split("O", &e->last_guess);
}

static crfp_chunk_type_stats *type_stats(crfp_chunkeval *e, const char *type)
{
    for (size_t i = 0; i < e->ntypes; i++)
        if (strcmp(e->types[i].type, type) == 0)
            return &e->types[i];
    if (e->ntypes == e->captypes) {
        size_t nc = e->captypes ? 2 * e->captypes : 16;
        crfp_chunk_type_stats *nt = realloc(e->types, nc * sizeof *nt);
        if (!nt)
            return NULL;
        e->types = nt;
        e->captypes = nc;
    }
    crfp_chunk_type_stats *s = &e->types[e->ntypes];
    memset(s, 0, sizeof *s);
    if (!(s->type = strdup(type)))
        return NULL;
    e->ntypes++;
    return s;
}

/* One line of conlleval's main loop; `boundary` marks the sentence-break
 * pseudo token, which is "O O" and not counted as a token. */
static crfp_status step(crfp_chunkeval *e, const char *gold, const char *guess, int boundary)
{
    crfp_chunk_label g, p;
    crfp_chunk_split(gold, &g);
    crfp_chunk_split(guess, &p);
    if (boundary)
        crfp_chunk_split("O", &p);
    if (e->in_correct) {
        int ge = crfp_chunk_ends(&e->last_gold, &g), pe = crfp_chunk_ends(&e->last_guess, &p);
        if (ge && pe && strcmp(e->last_guess.type, e->last_gold.type) == 0) {
            e->in_correct = 0;
            e->correct_chunks++;
            crfp_chunk_type_stats *s = type_stats(e, e->last_gold.type);
            if (!s)
                return CRFP_ENOMEM;
            s->correct++;
        } else if (ge != pe || strcmp(p.type, g.type) != 0) {
            e->in_correct = 0;
        }
    }
    int gs = crfp_chunk_starts(&e->last_gold, &g), ps = crfp_chunk_starts(&e->last_guess, &p);
    if (gs && ps && strcmp(p.type, g.type) == 0)
        e->in_correct = 1;
    if (gs) {
        e->found_gold++;
        crfp_chunk_type_stats *s = type_stats(e, g.type);
        if (!s)
            return CRFP_ENOMEM;
        s->found_gold++;
    }
    if (ps) {
        e->found_guess++;
        crfp_chunk_type_stats *s = type_stats(e, p.type);
        if (!s)
            return CRFP_ENOMEM;
        s->found_guess++;
    }
    if (!boundary) {
        if (strcmp(g.tag, p.tag) == 0 && strcmp(g.type, p.type) == 0)
            e->correct_tags++;
        e->tokens++;
    }
    e->last_gold = g;
    e->last_guess = p;
    return CRFP_OK;
}

crfp_status crfp_chunkeval_token(crfp_chunkeval *e, const char *gold, const char *guess)
{
    return step(e, gold, guess, 0);
}

crfp_status crfp_chunkeval_boundary(crfp_chunkeval *e)
{
    return step(e, "O", "O", 1);
}

static int cmp_type(const void *a, const void *b)
{
    return strcmp(((const crfp_chunk_type_stats *)a)->type,
                  ((const crfp_chunk_type_stats *)b)->type);
}

crfp_status crfp_chunkeval_finish(crfp_chunkeval *e)
{
    if (e->in_correct) {
        e->correct_chunks++;
        crfp_chunk_type_stats *s = type_stats(e, e->last_gold.type);
        if (!s)
            return CRFP_ENOMEM;
        s->correct++;
        e->in_correct = 0;
    }
    if (e->ntypes > 1)
        qsort(e->types, e->ntypes, sizeof *e->types, cmp_type);
    return CRFP_OK;
}

void crfp_chunkeval_free(crfp_chunkeval *e)
{
    for (size_t i = 0; i < e->ntypes; i++)
        free(e->types[i].type);
    free(e->types);
    memset(e, 0, sizeof *e);
}
