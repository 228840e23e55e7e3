/* attributes — a features plugin for data that comes with its observations
 * already made, as CRFsuite's does: each token carries a list of attribute
 * strings ("word=the", "suffix3=ing", "is_title"), and every attribute is
 * an observation of its own.
 *
 * The attributes of a token are the cells of the token features named by
 * `columns` (default "attrs"), each cell holding any number of attributes
 * separated by spaces; "\s", "\t", "\n", "\r", "\\" and "\_" inside one
 * stand for a space, tab, line feed, carriage return, backslash and
 * underscore, and a cell "_" holds none (the CoNLL convention for empty).
 * An attribute may end in "\*W", W a finite number: its value (CRFsuite's
 * attribute weight, "name:W" in CRFsuite's data), by which its features
 * are scaled; without it the value is 1.  With W = 0 the attribute adds
 * nothing to the scores but is in the data (CRFsuite keeps it too: its
 * labels are seen with it).  No writer escapes '*', so "\*" cannot be part
 * of a name.
 * Attributes feed the unigram weights μ(y, a); the label bigram is the one
 * constant observation "B" (`bigram=bias`, what CRFsuite's transition
 * features are), or every attribute also feeds λ(y', y, a) (`bigram=all`),
 * or there is none (`bigram=none`).  Wapiti's data without patterns
 * (wapiti_reader) says each attribute's kind by its first byte, 'u' μ, 'b'
 * λ, '*' both (`bigram=wapiti`; another first byte is an error), or, read
 * as `wapiti train --me` reads it, makes every attribute a unigram
 * observation "u"+attribute (`bigram=wapiti-me`): the observations then
 * are the very strings of a Wapiti model's.  Neither takes values.
 *
 * The configuration saved in models is "columns=NAMES\nbigram=MODE\n".
 * The Python bindings (python/) use this plugin for python-crfsuite-style
 * training; `crfpipe tag` tags such models like any other.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/colio.h"

static const crfp_param_spec params[] = {
    {"columns", CRFP_PARAM_STRING, "attrs",
     "comma-separated token features whose cells hold space-separated attributes, each "
     "optionally ending in \\*VALUE"},
    {"bigram", CRFP_PARAM_STRING, "bias",
     "label bigram observations: bias (one constant per token), all (every attribute), none, "
     "wapiti (each attribute's first byte: u unigram, b bigram, * both) or wapiti-me (every "
     "attribute a unigram named u+attribute, as wapiti --me)"},
};

enum { BIGRAM_BIAS, BIGRAM_ALL, BIGRAM_NONE, BIGRAM_WAPITI, BIGRAM_WAPITI_ME };
static const char *const modes[] = {"bias", "all", "none", "wapiti", "wapiti-me"};

typedef struct attr_ex {
    crfp_host *host;
    char **cols;   /* column names */
    size_t ncols;
    int bigram;
} attr_ex;

static void ax_free(void *p)
{
    attr_ex *ax = p;
    if (!ax)
        return;
    for (size_t i = 0; i < ax->ncols; i++)
        free(ax->cols[i]);
    free(ax->cols);
    free(ax);
}

/* Build from the two settings; `origin` names them in messages. */
static crfp_status build(crfp_host *host, const char *columns, size_t clen, const char *bigram,
                         size_t blen, const char *origin, void **out)
{
    attr_ex *ax = calloc(1, sizeof *ax);
    if (!ax)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    ax->host = host;
    ax->bigram = -1;
    for (int m = 0; m < (int)(sizeof modes / sizeof *modes); m++)
        if (blen == strlen(modes[m]) && memcmp(bigram, modes[m], blen) == 0)
            ax->bigram = m;
    if (ax->bigram < 0) {
        ax_free(ax);
        return crfp_error(host, CRFP_EINVAL, "%s: bigram must be bias, all, none, wapiti or "
                          "wapiti-me, not '%.*s'", origin, (int)(blen > 64 ? 64 : blen), bigram);
    }
    for (size_t i = 0; i < clen;) {
        size_t j = i;
        while (j < clen && columns[j] != ',')
            j++;
        if (j > i) {
            char **nc = realloc(ax->cols, (ax->ncols + 1) * sizeof *nc);
            if (!nc || !(nc[ax->ncols] = strndup(columns + i, j - i))) {
                if (nc)
                    ax->cols = nc;
                ax_free(ax);
                return crfp_error(host, CRFP_ENOMEM, "out of memory");
            }
            ax->cols = nc;
            ax->ncols++;
        }
        i = j + 1;
    }
    if (ax->ncols == 0 || ax->ncols > 16) {
        size_t n = ax->ncols;
        ax_free(ax);
        return crfp_error(host, CRFP_EINVAL, "%s: %s attribute columns", origin,
                          n ? "more than 16" : "no");
    }
    *out = ax;
    return CRFP_OK;
}

static crfp_status ax_create(crfp_host *host, const crfp_params *p, void **ex)
{
    const char *c = crfp_params_str(p, "columns"), *b = crfp_params_str(p, "bigram");
    return build(host, c, strlen(c), b, strlen(b), "attributes", ex);
}

/* The value of "key=" on its own line of a saved configuration. */
static const char *setting(const char *text, size_t len, const char *key, size_t *vlen)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len;
        if (e - i > kl && memcmp(text + i, key, kl) == 0 && text[i + kl] == '=') {
            *vlen = e - i - kl - 1;
            return text + i + kl + 1;
        }
        i = e + 1;
    }
    return NULL;
}

static crfp_status ax_load(crfp_host *host, const char *text, size_t len, const char *origin,
                           void **ex)
{
    size_t cl, bl;
    const char *c = setting(text, len, "columns", &cl), *b = setting(text, len, "bigram", &bl);
    if (!c || !b)
        return crfp_error(host, CRFP_EFORMAT, "%s: saved attributes configuration lacks "
                          "columns= or bigram=", origin);
    return build(host, c, cl, b, bl, origin, ex);
}

static crfp_status ax_save(void *p, char **text, size_t *len)
{
    const attr_ex *ax = p;
    size_t n = sizeof "columns=\nbigram=wapiti-me\n";
    for (size_t i = 0; i < ax->ncols; i++)
        n += strlen(ax->cols[i]) + 1;
    char *s = malloc(n);
    if (!s)
        return CRFP_ENOMEM;
    size_t k = (size_t)snprintf(s, n, "columns=");
    for (size_t i = 0; i < ax->ncols; i++)
        k += (size_t)snprintf(s + k, n - k, "%s%s", i ? "," : "", ax->cols[i]);
    k += (size_t)snprintf(s + k, n - k, "\nbigram=%s\n", modes[ax->bigram]);
    *text = s;
    *len = k;
    return CRFP_OK;
}

/* The value of attribute a[0..n) when it ends in "\*W": *name_len gets the
 * length before the "\*", *w the value; 1 when it has none (*name_len = n,
 * *w = 1), 0 when what follows the first "\*" is not a finite number. */
static int split_value(const char *a, size_t n, size_t *name_len, double *w)
{
    *name_len = n;
    *w = 1.0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (a[i] != '\\')
            continue;
        if (a[i + 1] != '*') {
            i++;
            continue;
        }
        *name_len = i;
        return colio_finite(a + i + 2, n - i - 2, w);
    }
    return 1;
}

/* Undo the escapes of one attribute of n bytes into buf (at least n bytes);
 * returns the new length. */
static size_t unescape(const char *a, size_t n, char *buf)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i] != '\\' || i + 1 == n) {
            buf[k++] = a[i];
            continue;
        }
        char c = a[++i];
        buf[k++] = c == 's' ? ' ' : c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
    }
    return k;
}

/* Attribute a[0..n) of token t (0-based) as Wapiti makes it an
 * observation (bigram=wapiti or wapiti-me): escapes undone, no value. */
static crfp_status push_wapiti(const attr_ex *ax, crfp_obsseq *out, size_t t, const char *a,
                               size_t n)
{
    char small[256];
    /* a private buffer keeps extraction thread-safe; one byte more for the
     * "u" of --me */
    char *buf = n + 1 <= sizeof small ? small : malloc(n + 1);
    if (!buf)
        return CRFP_ENOMEM;
    int me = ax->bigram == BIGRAM_WAPITI_ME;
    size_t nl = unescape(a, n, buf + me);
    crfp_status st = CRFP_OK;
    unsigned flags = 0;
    if (me) {
        buf[0] = 'u';
        flags = CRFP_OBS_UNIGRAM;
    } else if (nl > 0) {
        flags = buf[0] == 'u' ? CRFP_OBS_UNIGRAM : buf[0] == 'b' ? CRFP_OBS_BIGRAM
                : buf[0] == '*' ? CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM : 0;
    }
    if (!flags)
        st = crfp_error(ax->host, CRFP_EINVAL, "attributes: token %zu: attribute '%.*s' does not "
                        "start with u, b or *, the kinds of Wapiti's observations (bigram=wapiti)",
                        t + 1, (int)(nl > 80 ? 80 : nl), buf);
    else
        st = crfp_obsseq_push(out, t, flags, buf, nl + (size_t)me);
    if (buf != small)
        free(buf);
    return st;
}

static crfp_status ax_extract(void *p, const crfp_tokseq *seq, crfp_obsseq *out)
{
    const attr_ex *ax = p;
    crfp_status st = crfp_obsseq_reset(out, seq->ntok);
    if (st != CRFP_OK)
        return st;
    /* the attribute columns of this sentence; a sentence lacking every one
     * of them is a mistake (a misnamed column), not a sentence of tokens
     * without attributes */
    long idx[16];
    size_t nidx = 0;
    for (size_t i = 0; i < ax->ncols && nidx < 16; i++)
        for (size_t c = 0; c < seq->ncols; c++)
            if (seq->colnames && seq->colnames[c] && strcmp(seq->colnames[c], ax->cols[i]) == 0) {
                idx[nidx++] = (long)c;
                break;
            }
    if (nidx == 0 && seq->ntok > 0)
        return crfp_error(ax->host, CRFP_EINVAL, "attributes: the tokens have no column '%s' "
                          "(they have %s%s)", ax->cols[0],
                          seq->ncols && seq->colnames ? seq->colnames[0] : "none",
                          seq->ncols > 1 ? ", ..." : "");
    unsigned flags = CRFP_OBS_UNIGRAM | (ax->bigram == BIGRAM_ALL ? CRFP_OBS_BIGRAM : 0);
    int wapiti = ax->bigram == BIGRAM_WAPITI || ax->bigram == BIGRAM_WAPITI_ME;
    char small[256];
    for (size_t t = 0; t < seq->ntok && st == CRFP_OK; t++) {
        for (size_t k = 0; k < nidx && st == CRFP_OK; k++) {
            const char *cell = seq->cells[t * seq->ncols + (size_t)idx[k]];
            if (!cell || strcmp(cell, "_") == 0)
                continue;
            for (const char *a = cell; *a && st == CRFP_OK;) {
                while (*a == ' ')
                    a++;
                const char *e = a;
                while (*e && *e != ' ')
                    e++;
                size_t n = (size_t)(e - a);
                if (n == 0)
                    break;
                if (wapiti) {
                    st = push_wapiti(ax, out, t, a, n);
                    a = e;
                    continue;
                }
                if (!memchr(a, '\\', n)) {
                    st = crfp_obsseq_push(out, t, flags, a, n);
                    a = e;
                    continue;
                }
                /* rare: escaped characters or a value */
                size_t nl;
                double w;
                if (!split_value(a, n, &nl, &w))
                    return crfp_error(ax->host, CRFP_EINVAL, "attributes: token %zu: attribute "
                                      "'%.*s': '\\*' must be followed by its value, a finite "
                                      "number", t + 1, (int)(n > 80 ? 80 : n), a);
                if (nl == 0)
                    return crfp_error(ax->host, CRFP_EINVAL, "attributes: token %zu: attribute "
                                      "'%.*s' has a value but no name", t + 1,
                                      (int)(n > 80 ? 80 : n), a);
                if (w != 1.0 && ax->bigram == BIGRAM_ALL)
                    return crfp_error(ax->host, CRFP_EINVAL, "attributes: token %zu: attribute "
                                      "'%.*s' has value %g, but with bigram=all it is also a "
                                      "label-pair observation, whose features are binary",
                                      t + 1, (int)(nl > 80 ? 80 : nl), a, w);
                /* a private buffer keeps extraction thread-safe */
                char *buf = nl <= sizeof small ? small : malloc(nl);
                if (!buf)
                    return CRFP_ENOMEM;
                st = crfp_obsseq_push_value(out, t, flags, buf, unescape(a, nl, buf), w);
                if (buf != small)
                    free(buf);
                a = e;
            }
        }
        if (st == CRFP_OK && ax->bigram == BIGRAM_BIAS)
            st = crfp_obsseq_push(out, t, CRFP_OBS_BIGRAM, "B", 1);
    }
    return st;
}

static const crfp_features_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_features_vtable),
    .create = ax_create,
    .load = ax_load,
    .save = ax_save,
    .extract = ax_extract,
    .free = ax_free,
};

CRFP_PLUGIN_DEFINE(attributes) = {
    CRFP_PLUGIN_ABI,
    .name = "attributes",
    .kind = CRFP_KIND_FEATURES,
    .version = "1.0",
    .description = "observations given with the data: space-separated attributes per token, "
                   "each with an optional value (name\\*1.25) that scales its features "
                   "(CRFsuite style)",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .vtable = &vtable,
};
