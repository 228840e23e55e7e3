/* Reading a CRF++ model (what `crf_learn` writes: the binary model, or the
 * text one of `crf_learn -t`) into a crfpipe model.
 *
 * Both hold the labels, the template lines, the feature strings with their
 * first weight index, and the weights.  CRF++ gives each feature string a
 * block by its first byte: 'U' Y unigram weights, 'B' Y*Y bigram weights
 * (previous label major), used from the second token on (no start
 * weights).  Scores are weights times crf_test's cost factor, 1 unless
 * crf_test -c says otherwise: the imported weights are the stored ones.
 *
 * The binary file, in the writer's byte order (little-endian here):
 *   u32 version (100), i32 type (0), f64 cost factor, u32 maxid (weights),
 *   u32 xsize (columns), u32 dsize, u32 and the labels (NUL-separated),
 *   u32 and the template lines (NUL-separated, NUL-padded), dsize bytes of
 *   a double-array trie (Darts: 8-byte units, a signed base and an unsigned
 *   check) mapping each feature string to its first index, and maxid
 *   float weights.
 * The trie is walked from its root: the child of a node whose base is b by
 * byte c is unit b + c + 1 when that unit's check is b; unit b itself, when
 * its check is b and its base negative, ends a key with value -base - 1.
 *
 * The text file: "version: 100", "cost-factor: F", "maxid: N", "xsize: K",
 * a blank line, the labels one per line, a blank line, the template lines,
 * a blank line, "INDEX STRING" per feature, a blank line, and the maxid
 * weights one per line.
 *
 * The feature strings are what the template lines make (crfpipe's
 * templates spell them the same, with the line "#!crf++" for CRF++'s
 * identifiers, which the caller's head provides); the lines become the
 * features plugin's configuration after that head.  Only feature strings
 * with a non-zero weight are kept.
 *
 * The file is hostile input: sizes against the file, every unit of the trie
 * visited at most once and every index within bounds, strings whole and
 * unique, weights finite, the model-labels and model-params limits.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crf_impl.h"
#include "dict.h"
#include "crfpipe/host.h"

/* What both formats give. */
typedef struct crfpp {
    crfp_host *host;
    const char *path;
    uint32_t maxid, Y;
    const char **labels;          /* Y, NUL-terminated, in the file's buffer */
    const char **tpl;             /* template lines */
    size_t ntpl;
    crfp_dict feats;              /* the feature strings, in file order */
    uint32_t *first;              /* per feature string: its first index */
    size_t cap_first;
    double *w;                    /* maxid */
} crfpp;

static crfp_status bad(crfpp *m, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static crfp_status bad(crfpp *m, size_t line, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line)
        return crfp_error(m->host, CRFP_EFORMAT, "%s:%zu: %s", m->path, line, msg);
    return crfp_error(m->host, CRFP_EFORMAT, "%s: %s", m->path, msg);
}

static crfp_status nomem(crfpp *m)
{
    return crfp_error(m->host, CRFP_ENOMEM, "%s: out of memory", m->path);
}

/* Record feature string s (len bytes) with first index id; line names it in
 * messages (0 for the binary file). */
static crfp_status add_feature(crfpp *m, const char *s, size_t len, uint64_t id, size_t line)
{
    if (len == 0 || (s[0] != 'U' && s[0] != 'B'))
        return bad(m, line, "feature '%.64s' does not start with U or B, which give its kind",
                   s);
    uint64_t size = s[0] == 'U' ? m->Y : (uint64_t)m->Y * m->Y;
    if (id > m->maxid || m->maxid - id < size)
        return bad(m, line, "feature '%.64s' at index %llu: its %llu weights pass maxid %lu", s,
                   (unsigned long long)id, (unsigned long long)size, (unsigned long)m->maxid);
    uint32_t k;
    int added;
    if (crfp_dict_intern(&m->feats, s, len, &k, &added) != CRFP_OK)
        return nomem(m);
    if (!added)
        return bad(m, line, "feature '%.64s' appears twice", s);
    if (k >= m->cap_first) {
        size_t cap = m->cap_first ? 2 * m->cap_first : 1024;
        uint32_t *f = realloc(m->first, cap * sizeof *f);
        if (!f)
            return nomem(m);
        m->first = f;
        m->cap_first = cap;
    }
    m->first[k] = (uint32_t)id;
    return CRFP_OK;
}

static int check_labels(crfpp *m, size_t line)
{
    size_t maxY = crfp_host_limit(m->host, CRFP_LIMIT_MODEL_LABELS);
    if (m->Y == 0 || m->Y > 65535 || (maxY && m->Y > maxY)) {
        bad(m, line, m->Y == 0 ? "a model without labels"
                               : "%lu labels, more than crfpipe's 65,535 or the limit "
                                 "model-labels (--limit model-labels=N if the model is trusted)",
            (unsigned long)m->Y);
        return -1;
    }
    return 0;
}

/* --- the binary model -------------------------------------------------- */

static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* NUL-separated strings of the n bytes at s (whose last byte is NUL) into
 * *out (malloc'd), empty ones skipped.  -1 when out of memory. */
static int split_nul(const char *s, size_t n, const char ***out, size_t *count)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\0' && (i == 0 || s[i - 1] != '\0');
    const char **v = malloc((k ? k : 1) * sizeof *v);
    if (!v)
        return -1;
    k = 0;
    for (size_t i = 0; i < n; i += strlen(s + i) + 1)
        if (s[i])
            v[k++] = s + i;
    *out = v;
    *count = k;
    return 0;
}

/* Walk the trie of `units` units at da, adding every key.  Each unit is
 * entered at most once (`seen`), so a corrupted trie cannot loop. */
static crfp_status walk_trie(crfpp *m, const unsigned char *da, uint32_t units)
{
    crfp_status st = CRFP_OK;
    unsigned char *seen = calloc(units ? units : 1, 1);
    /* the path from the root: per depth, its unit and the next byte to try */
    size_t cap = 64, depth = 0;
    uint32_t *node = malloc(cap * sizeof *node);
    unsigned *next = malloc(cap * sizeof *next);
    char *key = malloc(cap + 1);
    if (!seen || !node || !next || !key) {
        st = nomem(m);
        goto out;
    }
    if (units == 0) {
        st = bad(m, 0, "an empty double array (no feature)");
        goto out;
    }
    node[0] = 0;
    next[0] = 0;
    seen[0] = 1;
    for (;;) {
        uint32_t n = node[depth];
        int64_t b = (int32_t)u32(da + (size_t)n * 8);
        unsigned c = next[depth];
        if (c == 0) {
            /* the key ending here, if any */
            next[depth] = 1;
            if (b >= 0 && b < units && u32(da + (size_t)b * 8 + 4) == (uint32_t)b) {
                int32_t v = (int32_t)u32(da + (size_t)b * 8);
                if (v < 0) {
                    key[depth] = '\0';
                    if ((st = add_feature(m, key, depth, (uint64_t)(-(int64_t)v - 1), 0)))
                        goto out;
                }
            }
            continue;
        }
        /* the next child, by byte c */
        int64_t p = -1;
        for (; c < 256; c++) {
            int64_t q = b + (int64_t)c + 1;
            if (q >= 0 && q < units && u32(da + (size_t)q * 8 + 4) == (uint32_t)b) {
                p = q;
                break;
            }
        }
        if (p < 0) {
            if (depth == 0)
                break;
            depth--;
            continue;
        }
        next[depth] = c + 1;
        if (seen[p]) {
            st = bad(m, 0, "the double array of features is corrupted (unit %lld is reached "
                     "twice)", (long long)p);
            goto out;
        }
        seen[p] = 1;
        if (depth + 1 >= cap) {
            size_t nc = cap * 2;
            uint32_t *nn = realloc(node, nc * sizeof *nn);
            if (nn)
                node = nn;
            unsigned *nx = nn ? realloc(next, nc * sizeof *nx) : NULL;
            if (nx)
                next = nx;
            char *nk = nx ? realloc(key, nc + 1) : NULL;
            if (!nk) {
                st = nomem(m);
                goto out;
            }
            key = nk;
            cap = nc;
        }
        key[depth] = (char)c;
        depth++;
        node[depth] = (uint32_t)p;
        next[depth] = 0;
    }
out:
    free(seen);
    free(node);
    free(next);
    free(key);
    return st;
}

static crfp_status read_binary(crfpp *m, const unsigned char *f, size_t n)
{
    if (n < 36)
        return bad(m, 0, "a CRF++ model of %zu bytes: truncated", n);
    uint32_t version = u32(f), type = u32(f + 4);
    if (version / 100 != 1 || type != 0)
        return bad(m, 0, "CRF++ model version %lu, type %lu; crfpipe reads version 100, type 0",
                   (unsigned long)version, (unsigned long)type);
    m->maxid = u32(f + 16);
    uint32_t dsize = u32(f + 24), ysize = u32(f + 28);
    size_t at = 32;
    if (ysize > n - at || ysize == 0 || f[at + ysize - 1] != '\0')
        return bad(m, 0, "the labels (%lu bytes) %s", (unsigned long)ysize,
                   ysize > n - at ? "run past the end of the file"
                                  : "do not end with a NUL byte");
    size_t Y;
    if (split_nul((const char *)f + at, ysize, &m->labels, &Y))
        return nomem(m);
    m->Y = Y > UINT32_MAX ? UINT32_MAX : (uint32_t)Y;
    at += ysize;
    if (n - at < 4)
        return bad(m, 0, "truncated after the labels");
    uint32_t tsize = u32(f + at);
    at += 4;
    if (tsize > n - at || (tsize && f[at + tsize - 1] != '\0'))
        return bad(m, 0, "the template (%lu bytes) %s", (unsigned long)tsize,
                   tsize > n - at ? "runs past the end of the file"
                                  : "does not end with a NUL byte");
    if (split_nul((const char *)f + at, tsize, &m->tpl, &m->ntpl))
        return nomem(m);
    at += tsize;
    if (dsize % 8 || dsize > n - at || (uint64_t)m->maxid * 4 != n - at - dsize)
        return bad(m, 0, "a double array of %lu bytes and %lu weights do not fill the "
                   "remaining %zu bytes (truncated or corrupted)", (unsigned long)dsize,
                   (unsigned long)m->maxid, n - at);
    if (check_labels(m, 0))
        return CRFP_EFORMAT;
    const unsigned char *da = f + at, *alpha = f + at + dsize;
    if (!(m->w = malloc((m->maxid ? m->maxid : 1) * sizeof *m->w)))
        return nomem(m);
    for (uint32_t i = 0; i < m->maxid; i++) {
        uint32_t bits = u32(alpha + (size_t)i * 4);
        float v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            return bad(m, 0, "weight %lu is not a finite number", (unsigned long)i);
        m->w[i] = v;
    }
    crfp_status st = walk_trie(m, da, dsize / 8);
    if (st == CRFP_OK && m->feats.n == 0)
        st = bad(m, 0, "the double array holds no feature (corrupted)");
    return st;
}

/* --- the text model ---------------------------------------------------- */

/* The next line of the text at *p (end), NUL-terminated in place (a CR
 * before the LF dropped); NULL at the end of the text. */
static char *next_line(char **p, char *end, size_t *line)
{
    if (*p >= end)
        return NULL;
    char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
    char *e = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    if (e > s && e[-1] == '\r')
        e--;
    *e = '\0';
    ++*line;
    return s;
}

static int header_num(const char *s, const char *key, int real, double *v)
{
    size_t k = strlen(key);
    if (strncmp(s, key, k) != 0)
        return -1;
    char *e;
    errno = 0;
    *v = real ? strtod(s + k, &e) : (double)strtoul(s + k, &e, 10);
    return e == s + k || *e || errno || !isfinite(*v) ? -1 : 0;
}

static crfp_status read_text(crfpp *m, char *f, size_t n)
{
    char *p = f, *end = f + n, *s;
    size_t line = 0;
    double v;
    static const char *const keys[] = {"version: ", "cost-factor: ", "maxid: ", "xsize: "};
    for (int k = 0; k < 4; k++) {
        if (!(s = next_line(&p, end, &line)) || header_num(s, keys[k], k == 1, &v) ||
            (k == 0 && v != 100) || (k == 2 && v > UINT32_MAX))
            return bad(m, line, "expected '%s%s'", keys[k], k == 0 ? "100" : "NUMBER");
        if (k == 2)
            m->maxid = (uint32_t)v;
    }
    if (!(s = next_line(&p, end, &line)) || *s)
        return bad(m, line, "expected a blank line after the header");
    /* labels, then template lines, each list ended by a blank line: both
     * point into the buffer; a line is at least its newline, so the file's
     * size bounds their number */
    const char ***lists[2] = {&m->labels, &m->tpl};
    size_t counts[2];
    for (int k = 0; k < 2; k++) {
        size_t cap = 16, c = 0;
        const char **v2 = malloc(cap * sizeof *v2);
        if (!v2)
            return nomem(m);
        *lists[k] = v2;
        while ((s = next_line(&p, end, &line)) && *s) {
            if (c == cap) {
                const char **nv = realloc(*lists[k], 2 * cap * sizeof *nv);
                if (!nv)
                    return nomem(m);
                *lists[k] = nv;
                cap *= 2;
            }
            (*lists[k])[c++] = s;
        }
        if (!s)
            return bad(m, line, "the file ends in its %s", k ? "template" : "labels");
        counts[k] = c;
    }
    m->Y = counts[0] > UINT32_MAX ? UINT32_MAX : (uint32_t)counts[0];
    m->ntpl = counts[1];
    if (check_labels(m, line))
        return CRFP_EFORMAT;
    while ((s = next_line(&p, end, &line)) && *s) {
        char *e;
        errno = 0;
        unsigned long long id = strtoull(s, &e, 10);
        if (e == s || *e != ' ' || errno || s[0] == '-' || s[0] == '+' || s[0] == ' ')
            return bad(m, line, "expected 'INDEX FEATURE'");
        crfp_status st = add_feature(m, e + 1, strlen(e + 1), id, line);
        if (st)
            return st;
    }
    if (!s)
        return bad(m, line, "the file ends in its features");
    if (!(m->w = malloc((m->maxid ? m->maxid : 1) * sizeof *m->w)))
        return nomem(m);
    for (uint32_t i = 0; i < m->maxid; i++) {
        if (!(s = next_line(&p, end, &line)))
            return bad(m, line, "the file ends after %lu of its %lu weights", (unsigned long)i,
                       (unsigned long)m->maxid);
        char *e;
        m->w[i] = strtod(s, &e);
        if (e == s || *e || s[0] == ' ' || s[0] == '\t')
            return bad(m, line, "weight %lu: '%.40s' is not a number", (unsigned long)i + 1, s);
        if (!isfinite(m->w[i]))
            return bad(m, line, "weight %lu: '%.40s' is not a finite number",
                       (unsigned long)i + 1, s);
    }
    while ((s = next_line(&p, end, &line)))
        if (*s)
            return bad(m, line, "text after the %lu weights maxid announces",
                       (unsigned long)m->maxid);
    return CRFP_OK;
}

/* --- both ------------------------------------------------------------------ */

int crfp_crf_is_crfpp(const void *head, size_t n)
{
    const unsigned char *h = head;
    if (n >= 9 && memcmp(h, "version: ", 9) == 0)
        return 1;
    return n >= 8 && u32(h) / 100 == 1 && u32(h + 4) < 256;
}

/* The crfpipe model of what was read. */
static crfp_status build(crfpp *m, const char *features, const char *head, crfp_crf **out)
{
    crfp_crf *crf = crfp_crf_new();
    uint32_t nf = m->feats.n, *id_of = malloc((nf ? nf : 1) * sizeof *id_of);
    char *config = NULL;
    crfp_status st = CRFP_OK;
    if (!crf || !id_of)
        goto nomem;
    for (uint32_t y = 0; y < m->Y; y++) {
        uint32_t id;
        if (crfp_crf_label_id(crf, m->labels[y]) >= 0) {
            st = bad(m, 0, "label %lu ('%.64s') appears twice", (unsigned long)y + 1,
                     m->labels[y]);
            goto out;
        }
        if (crfp_crf_add_label(crf, m->labels[y], &id) != CRFP_OK)
            goto nomem;
    }
    uint64_t nparams = 0;
    for (uint32_t k = 0; k < nf; k++) {
        size_t len;
        const char *s = crfp_dict_str(&m->feats, k, &len);
        int unigram = s[0] == 'U';
        uint64_t size = unigram ? m->Y : (uint64_t)m->Y * m->Y;
        int used = 0;
        for (uint64_t i = 0; i < size && !used; i++)
            used = m->w[m->first[k] + i] != 0.0;
        id_of[k] = UINT32_MAX;
        if (!used)
            continue;
        nparams += unigram ? m->Y : ((uint64_t)m->Y + 1) * m->Y;
        if ((st = crfp_import_params_check(m->host, m->path, nparams)) != CRFP_OK)
            goto out;
        if (crfp_crf_add_obs(crf, s, len, unigram ? CRFP_OBS_UNIGRAM : CRFP_OBS_BIGRAM,
                             &id_of[k]) != CRFP_OK)
            goto nomem;
    }
    size_t conflen = strlen(head) + 1;
    for (size_t t = 0; t < m->ntpl; t++) {
        if (strchr(m->tpl[t], '\n')) {
            st = bad(m, 0, "template line %zu holds a line break", t + 1);
            goto out;
        }
        conflen += strlen(m->tpl[t]) + 1;
    }
    if (!(config = malloc(conflen)))
        goto nomem;
    size_t at = strlen(head);
    memcpy(config, head, at);
    for (size_t t = 0; t < m->ntpl; t++) {
        size_t l = strlen(m->tpl[t]);
        memcpy(config + at, m->tpl[t], l);
        at += l;
        config[at++] = '\n';
    }
    if (crfp_crf_finalize(crf) != CRFP_OK ||
        crfp_crf_set_features(crf, features, config, at) != CRFP_OK)
        goto nomem;
    double *w = crfp_crf_weights(crf);
    for (uint32_t k = 0; k < nf; k++) {
        if (id_of[k] == UINT32_MAX)
            continue;
        const double *src = m->w + m->first[k];
        uint64_t u = crfp_crf_ublock(crf, id_of[k]), b = crfp_crf_bblock(crf, id_of[k]);
        if (u != CRFP_NO_BLOCK)
            memcpy(w + u, src, m->Y * sizeof *w);
        else
            memcpy(w + b, src, (size_t)m->Y * m->Y * sizeof *w);
    }
    *out = crf;
    crf = NULL;
    goto out;
nomem:
    st = nomem(m);
out:
    crfp_crf_free(crf);
    free(id_of);
    free(config);
    return st;
}

crfp_status crfp_crf_import_crfpp(crfp_host *host, const char *path, const char *features,
                                  const char *head, crfp_crf **out)
{
    if (!path || !features || !head || !out)
        return crfp_error(host, CRFP_EINVAL, "crf: import: NULL argument");
    *out = NULL;
    unsigned char *file;
    size_t n = 0;
    crfp_status st = crfp_model_read_all(host, path, &file, &n);
    if (st != CRFP_OK)
        return st;
    crfpp m = {.host = host, .path = path};
    crfp_dict_init(&m.feats);
    if (!crfp_crf_is_crfpp(file, n))
        st = crfp_error(host, CRFP_EFORMAT, "%s: not a CRF++ model", path);
    else if (n >= 9 && memcmp(file, "version: ", 9) == 0)
        st = read_text(&m, (char *)file, n);
    else
        st = read_binary(&m, file, n);
    if (st == CRFP_OK)
        st = build(&m, features, head, out);
    free(m.labels);
    free(m.tpl);
    crfp_dict_free(&m.feats);
    free(m.first);
    free(m.w);
    free(file);
    return st;
}
