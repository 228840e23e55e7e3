/* Reading a Wapiti model file (what `wapiti train` writes) into a crfpipe
 * model.
 *
 * The file is text, one item per line:
 *   #mdl#TYPE#NACT            model type (2: CRF, 0: maxent) and number of weights given
 *   #rdr#NPATS/NTOKS/AUTOUNI  the reader: NPATS patterns follow (AUTOUNI:
 *                             trained with --me)
 *   LEN:PATTERN,              each string as a netstring and a newline
 *   #qrk#Y                    the labels, Y strings, in id order
 *   #qrk#O                    the observations, O strings, in id order
 *   INDEX=WEIGHT              NACT lines, WEIGHT a C99 hex float ("%la")
 * Wapiti gives each observation a block of weights, in id order, by the
 * first byte of its string: 'u' Y unigram weights, 'b' Y*Y bigram weights
 * (previous label major), '*' both, unigram first; INDEX counts through
 * those blocks.  The bigram weights apply from the second token on: there
 * are no start weights.
 *
 * In crfpipe that is the same observations, spelled the same, with the same
 * blocks, and the bigram blocks' start rows left at zero; the patterns
 * become the features plugin's configuration, appended to the head the
 * caller gives (the templates plugin's Wapiti dialect, which spells the
 * observations as Wapiti does).  A model trained without patterns, on
 * observations given in the data, gets the plugin and configuration the
 * caller gives for those (the attributes plugin reading them from the data
 * as Wapiti does).  Only observations with a non-zero weight are kept.
 *
 * The file is hostile input: every count is checked against what the rest
 * of the file can hold before anything is allocated for it, strings must be
 * whole, unique and free of NUL and line breaks, weights finite and their
 * indexes increasing and within the blocks; the host's model-labels and
 * model-params limits apply.  Errors name the file and line.
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

/* A cursor over the file, which is in memory. */
typedef struct cursor {
    crfp_host *host;
    const char *path;
    char *p, *end;
    size_t line;
} cursor;

/* A format error at line `line` (bad: the current line; after_line: the
 * line just read, whose content is at fault). */
static crfp_status bad_vline(cursor *c, size_t line, const char *fmt, va_list ap)
{
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return crfp_error(c->host, CRFP_EFORMAT, "%s:%zu: %s", c->path, line, msg);
}

static crfp_status bad(cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static crfp_status bad(cursor *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    crfp_status st = bad_vline(c, c->line, fmt, ap);
    va_end(ap);
    return st;
}

static crfp_status bad_prev(cursor *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static crfp_status bad_prev(cursor *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    crfp_status st = bad_vline(c, c->line - 1, fmt, ap);
    va_end(ap);
    return st;
}

static int lit(cursor *c, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

/* The end of a line: "\n" or "\r\n". */
static int eol(cursor *c)
{
    if (c->p < c->end && *c->p == '\r')
        c->p++;
    if (c->p == c->end || *c->p != '\n')
        return 0;
    c->p++;
    c->line++;
    return 1;
}

/* A decimal number of at most 19 digits. */
static int num(cursor *c, uint64_t *v)
{
    const char *s = c->p;
    *v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && c->p - s < 19)
        *v = *v * 10 + (uint64_t)(*c->p++ - '0');
    return c->p > s && !(c->p < c->end && *c->p >= '0' && *c->p <= '9');
}

/* A netstring "LEN:BYTES," and its line break; the ',' becomes the string's
 * NUL.  what names the string in messages. */
static crfp_status netstring(cursor *c, const char *what, uint64_t k, char **s, size_t *len)
{
    uint64_t n;
    if (!num(c, &n) || !lit(c, ":"))
        return bad(c, "%s %llu: expected LENGTH:STRING,", what, (unsigned long long)k);
    if (n >= (uint64_t)(c->end - c->p) || c->p[n] != ',')
        return bad(c, "%s %llu: the string of %llu bytes %s", what, (unsigned long long)k,
                   (unsigned long long)n,
                   n >= (uint64_t)(c->end - c->p) ? "runs past the end of the file"
                                                  : "does not end with ','");
    /* the ',' found, a line break inside means the length is wrong */
    if (memchr(c->p, '\0', n) || memchr(c->p, '\n', n))
        return bad(c, "%s %llu: a NUL byte or a line break in the string", what,
                   (unsigned long long)k);
    *s = c->p;
    *len = n;
    c->p[n] = '\0';
    c->p += n + 1;
    if (!eol(c))
        return bad(c, "%s %llu: expected a line break after the string", what,
                   (unsigned long long)k);
    return CRFP_OK;
}

/* "#qrk#COUNT" and its line; the count is bounded by what the rest of the
 * file can hold (a string takes at least 4 bytes: "0:,\n"). */
static crfp_status quark_head(cursor *c, const char *what, uint64_t *n)
{
    if (!lit(c, "#qrk#") || !num(c, n) || !eol(c))
        return bad(c, "expected '#qrk#COUNT', the start of the %s", what);
    if (*n <= (uint64_t)(c->end - c->p) / 4)
        return CRFP_OK;
    return bad_prev(c, "%llu %s announced, more than the rest of the file holds",
               (unsigned long long)*n, what);
}

/* Block sizes by an observation's first byte: Wapiti's kinds. */
static unsigned obs_flags(char first)
{
    return first == 'u' ? CRFP_OBS_UNIGRAM
         : first == 'b' ? CRFP_OBS_BIGRAM
         : first == '*' ? CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM : 0;
}

/* One "INDEX=WEIGHT" line. */
static crfp_status weight_line(cursor *c, uint64_t k, uint64_t *idx, double *w)
{
    if (!num(c, idx) || !lit(c, "="))
        return bad(c, "weight %llu: expected INDEX=WEIGHT", (unsigned long long)k);
    char tmp[64];
    size_t n = 0;
    while (c->p + n < c->end && c->p[n] != '\n' && c->p[n] != '\r' && n < sizeof tmp - 1)
        n++;
    memcpy(tmp, c->p, n);
    tmp[n] = '\0';
    char *e;
    errno = 0;
    *w = n ? strtod(tmp, &e) : 0;
    if (!n || *e || tmp[0] == ' ' || tmp[0] == '\t')
        return bad(c, "weight %llu: '%.40s' is not a number", (unsigned long long)k, tmp);
    if (!isfinite(*w))
        return bad(c, "weight %llu: '%.40s' is not a finite number", (unsigned long long)k, tmp);
    c->p += n;
    if (!eol(c) && c->p != c->end)
        return bad(c, "weight %llu: expected a line break", (unsigned long long)k);
    return CRFP_OK;
}

int crfp_crf_is_wapiti(const void *head, size_t n)
{
    return n >= 5 && memcmp(head, "#mdl#", 5) == 0;
}

crfp_status crfp_crf_import_wapiti(crfp_host *host, const char *path,
                                   const crfp_wapiti_features *fx, crfp_crf **out)
{
    if (!path || !fx || !fx->patterns || !fx->patterns_head || !out)
        return crfp_error(host, CRFP_EINVAL, "crf: import: NULL argument");
    const char *head = fx->patterns_head;
    *out = NULL;
    char *file;
    size_t size = 0;
    crfp_status st = crfp_model_read_all(host, path, (unsigned char **)&file, &size);
    if (st != CRFP_OK)
        return st;
    cursor c = {.host = host, .path = path, .p = file, .end = file + size, .line = 1};
    crfp_crf *crf = NULL;
    char **pats = NULL, **obs = NULL;
    size_t *patlen = NULL, *obslen = NULL;
    uint64_t *start = NULL;
    uint32_t *id_of = NULL;
    char *config = NULL;
    crfp_dict seen;
    crfp_dict_init(&seen);
    uint64_t type, nact, npats, ntoks, autouni = 0, Y, O;

    if (!lit(&c, "#mdl#")) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: not a Wapiti model (no #mdl# header)", path);
        goto out;
    }
    if (!num(&c, &type)) {
        st = bad(&c, "expected the model type after #mdl#");
        goto out;
    }
    if (!lit(&c, "#")) {
        st = bad(&c, "a Wapiti model in its older format, which has no model type; load it "
                 "and save it again with a recent Wapiti (1.5)");
        goto out;
    }
    /* A maximum-entropy model (0) is imported as the CRF it is labelled as:
     * `wapiti label` decodes it with the CRF's Viterbi and forward-backward
     * over its unigram and (then zero, unless it was started from a CRF)
     * bigram weights, so the same blocks tag it the same.  An MEMM (1)
     * normalises each (position, previous label) row: no CRF weights do
     * that. */
    if (type != 2 && type != 0) {
        if (type > 1)
            st = bad(&c, "model type %llu, which Wapiti does not have (2 is a CRF)",
                     (unsigned long long)type);
        else
            st = bad(&c, "a Wapiti MEMM (-T memm): its scores are normalised per previous "
                     "label, which a CRF's weights cannot express; crfpipe imports CRFs and "
                     "maximum-entropy models (-T crf, -T maxent)");
        goto out;
    }
    if (!num(&c, &nact) || !eol(&c)) {
        st = bad(&c, "expected the number of weights after #mdl#%llu#", (unsigned long long)type);
        goto out;
    }
    if (!lit(&c, "#rdr#") || !num(&c, &npats) || !lit(&c, "/") || !num(&c, &ntoks) ||
        (lit(&c, "/") && !num(&c, &autouni)) || !eol(&c)) {
        st = bad(&c, "expected '#rdr#PATTERNS/COLUMNS/AUTOUNI', the start of the reader");
        goto out;
    }
    /* Without patterns the observations came with the data, spelled as
     * the model lists them (with --me, "u" and the field): a features
     * plugin that reads them from the data makes them again. */
    const char *raw_config = autouni ? fx->me_config : fx->raw_config;
    if (npats == 0 && (!fx->raw || !raw_config)) {
        st = bad_prev(&c, "a Wapiti model without patterns%s, which this importer was not "
                      "set up for", autouni ? " trained with --me" : "");
        goto out;
    }
    if (npats && autouni && !fx->patterns_me_head) {
        st = bad_prev(&c, "a Wapiti model trained with patterns and --me, which this importer "
                      "was not set up for");
        goto out;
    }
    if (npats == 0)
        head = raw_config;
    else if (autouni)
        head = fx->patterns_me_head;
    if (npats > (uint64_t)(c.end - c.p) / 4) {
        st = bad_prev(&c, "%llu patterns announced, more than the rest of the file holds",
                 (unsigned long long)npats);
        goto out;
    }
    if (!(pats = malloc(npats * sizeof *pats)) || !(patlen = malloc(npats * sizeof *patlen)))
        goto nomem;
    size_t conflen = strlen(head) + 1;
    for (uint64_t k = 0; k < npats; k++) {
        if ((st = netstring(&c, "pattern", k + 1, &pats[k], &patlen[k])) != CRFP_OK)
            goto out;
        /* a pattern file cannot hold a '#' (Wapiti cuts the comment), and
         * the type letter is stored lowered */
        if (!patlen[k] || !obs_flags(pats[k][0]) || memchr(pats[k], '#', patlen[k]) ||
            memchr(pats[k], '\r', patlen[k])) {
            st = bad_prev(&c, "pattern %llu ('%.64s') %s", (unsigned long long)k + 1, pats[k],
                     !patlen[k] || !obs_flags(pats[k][0])
                         ? "does not start with Wapiti's type letter u, b or *"
                         : "holds a '#' or a carriage return, which a pattern file cannot");
            goto out;
        }
        conflen += patlen[k] + 1;
    }

    if ((st = quark_head(&c, "labels", &Y)) != CRFP_OK)
        goto out;
    size_t maxY = crfp_host_limit(host, CRFP_LIMIT_MODEL_LABELS);
    if (Y == 0 || Y > 65535 || (maxY && Y > maxY)) {
        st = bad(&c, Y == 0 ? "a model without labels"
                            : "%llu labels, more than crfpipe's 65,535 or the limit model-labels "
                              "(--limit model-labels=N if the model is trusted)",
                 (unsigned long long)Y);
        goto out;
    }
    if (!(crf = crfp_crf_new()))
        goto nomem;
    for (uint64_t y = 0; y < Y; y++) {
        char *s;
        size_t len;
        uint32_t id;
        if ((st = netstring(&c, "label", y + 1, &s, &len)) != CRFP_OK)
            goto out;
        if (crfp_crf_label_id(crf, s) >= 0) {
            st = bad_prev(&c, "label %llu ('%.64s') appears twice", (unsigned long long)y + 1, s);
            goto out;
        }
        if (crfp_crf_add_label(crf, s, &id) != CRFP_OK)
            goto nomem;
    }

    if ((st = quark_head(&c, "observations", &O)) != CRFP_OK)
        goto out;
    if (O == 0 || O >= UINT32_MAX) {
        st = bad(&c, O ? "more observations than crfpipe's 4 billion" : "a model without "
                 "observations");
        goto out;
    }
    if (!(obs = malloc(O * sizeof *obs)) || !(obslen = malloc(O * sizeof *obslen)) ||
        !(start = malloc((O + 1) * sizeof *start)) || !(id_of = malloc(O * sizeof *id_of)))
        goto nomem;
    /* Wapiti's layout: each observation's block after the previous one's.
     * Its total is bounded, so that no index arithmetic overflows. */
    const uint64_t ublk = Y, bblk = Y * Y;
    uint64_t F = 0;
    for (uint64_t o = 0; o < O; o++) {
        if ((st = netstring(&c, "observation", o + 1, &obs[o], &obslen[o])) != CRFP_OK)
            goto out;
        unsigned fl = obslen[o] ? obs_flags(obs[o][0]) : 0;
        uint32_t id;
        int added;
        if (!fl) {
            st = bad_prev(&c, "observation %llu ('%.64s') does not start with u, b or *, which "
                     "give its kind", (unsigned long long)o + 1, obs[o]);
            goto out;
        }
        if (crfp_dict_intern(&seen, obs[o], obslen[o], &id, &added) != CRFP_OK)
            goto nomem;
        if (!added) {
            st = bad_prev(&c, "observation %llu ('%.64s') appears twice",
                          (unsigned long long)o + 1, obs[o]);
            goto out;
        }
        start[o] = F;
        F += (fl & CRFP_OBS_UNIGRAM ? ublk : 0) + (fl & CRFP_OBS_BIGRAM ? bblk : 0);
        if (F > (uint64_t)1 << 62) {
            st = bad(&c, "more than 2^62 weights in the blocks of the observations so far");
            goto out;
        }
        id_of[o] = UINT32_MAX;
    }
    start[O] = F;
    crfp_dict_free(&seen);   /* needed no more: the memory goes back now */

    /* Pass 1 over the weights: check them, and find the observations that
     * carry one. */
    char *weights_at = c.p;
    size_t weights_line = c.line;
    uint64_t next = 0, o = 0;
    for (uint64_t k = 0; k < nact; k++) {
        uint64_t idx;
        double w;
        if (c.p == c.end) {
            st = bad(&c, "the file ends after %llu of its %llu weights",
                     (unsigned long long)k, (unsigned long long)nact);
            goto out;
        }
        if ((st = weight_line(&c, k + 1, &idx, &w)) != CRFP_OK)
            goto out;
        if (idx < next || idx >= F) {
            st = bad_prev(&c, idx >= F ? "weight index %llu is past the model's %llu weights"
                                  : "weight index %llu after a larger one or itself (Wapiti "
                                    "writes them in increasing order)",
                     (unsigned long long)idx, (unsigned long long)F);
            goto out;
        }
        next = idx + 1;
        while (start[o + 1] <= idx)
            o++;
        if (w != 0.0)
            id_of[o] = 0;   /* numbered below */
    }
    while (c.p < c.end && (*c.p == '\n' || *c.p == '\r' || *c.p == ' ' || *c.p == '\t'))
        c.line += *c.p++ == '\n';
    if (c.p != c.end) {
        st = bad(&c, "text after the %llu weights the header announces",
                 (unsigned long long)nact);
        goto out;
    }

    uint64_t nparams = 0;
    for (uint64_t i = 0; i < O; i++) {
        if (id_of[i] == UINT32_MAX)
            continue;
        unsigned fl = obs_flags(obs[i][0]);
        nparams += (fl & CRFP_OBS_UNIGRAM ? ublk : 0) + (fl & CRFP_OBS_BIGRAM ? ublk + bblk : 0);
        if ((st = crfp_import_params_check(host, path, nparams)) != CRFP_OK)
            goto out;
        if (crfp_crf_add_obs(crf, obs[i], obslen[i], fl, &id_of[i]) != CRFP_OK)
            goto nomem;
    }
    if (!(config = malloc(conflen)))
        goto nomem;
    size_t at = strlen(head);
    memcpy(config, head, at);
    for (uint64_t k = 0; k < npats; k++) {
        memcpy(config + at, pats[k], patlen[k]);
        at += patlen[k];
        config[at++] = '\n';
    }
    if (crfp_crf_finalize(crf) != CRFP_OK ||
        crfp_crf_set_features(crf, npats ? fx->patterns : fx->raw, config, at) != CRFP_OK)
        goto nomem;

    /* Pass 2: the weights into their blocks. */
    double *w = crfp_crf_weights(crf);
    c.p = weights_at;
    c.line = weights_line;
    o = 0;
    for (uint64_t k = 0; k < nact; k++) {
        uint64_t idx;
        double v;
        weight_line(&c, k + 1, &idx, &v);
        while (start[o + 1] <= idx)
            o++;
        if (v == 0.0)
            continue;
        uint64_t d = idx - start[o];
        unsigned fl = obs_flags(obs[o][0]);
        if (fl & CRFP_OBS_UNIGRAM && d < ublk)
            w[crfp_crf_ublock(crf, id_of[o]) + d] = v;
        else
            w[crfp_crf_bblock(crf, id_of[o]) + (d - (fl & CRFP_OBS_UNIGRAM ? ublk : 0))] = v;
    }
    /* model info should say what was imported: a maxent model tags as a
     * CRF but was not trained as one */
    if ((type == 0 && crfp_crf_set_meta(crf, "wapiti-type", "maxent") != CRFP_OK) ||
        (autouni && crfp_crf_set_meta(crf, "wapiti-me", "true") != CRFP_OK))
        goto nomem;
    st = CRFP_OK;
    *out = crf;
    crf = NULL;
    goto out;
nomem:
    st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory", path);
out:
    crfp_dict_free(&seen);
    crfp_crf_free(crf);
    free(pats);
    free(patlen);
    free(obs);
    free(obslen);
    free(start);
    free(id_of);
    free(config);
    free(file);
    return st;
}
