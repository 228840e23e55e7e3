/* templates — the features plugin driven by CRF++/Wapiti-style templates.
 *
 * Parameters:
 *   template  the template file (required);
 *   columns   optional column names ("word pos chunk"): names used in the
 *             template then resolve to those positions at load time, so an
 *             unknown name is reported before any data is read.  Without
 *             it, names resolve against each sentence's column names.
 *
 * Template syntax, one pattern per line ('#' comments, blank lines ignored):
 *   U00:%x[-1,0]/%x[0,word]     unigram pattern with identifier "U00"
 *   B01:%x[0,pos]               bigram pattern: conditions the label pair
 *   *02:%x[0,0]                 both
 *   B                           the constant label bigram
 *   %x[row,col]  value of column col (index or name) row tokens away
 *   %X[row,col]  the same, lowercased (ICU full case mapping, root locale)
 *   %t[row,col,"re"] / %T   "true"/"false": does the ICU regex match
 *                           anywhere in the cell (%T case-insensitive)
 *   %m[row,col,"re"] / %M   the first match of the regex, "" if none
 *   %p[row,col,n] / %s[...] the first / last n characters, "" if shorter
 *   %w[row,col]             the word shape (X x a d, runs collapsed)
 *   %%                      a literal '%'
 * The regex ends at the first '"]'.  A pattern's identifier is its text up
 * to the first ':' before any macro; patterns without one are given
 * "<letter>@<line>:".  Outside the sentence cells read "_B-1", "_B-2"...
 * (left) and "_B+1", "_B+2"... (right); a missing cell reads "_NIL".
 *
 *   #!crf++                 before the first pattern: CRF++'s identifiers
 *                           (none added, shared ones allowed)
 *   #!wapiti                before the first pattern: the rest is read, and
 *                           its observations spelled, as Wapiti does
 *                           (tplparse.c, tplwapiti.c)
 *   #!wapiti-me             the same, as `wapiti --me` reads data: each token
 *                           a sequence of its own, its observations the
 *                           unigrams "u"+observation (tplextract.c)
 *   #!after ID PREREQ       incremental feature sets: pattern ID's
 *                           observations wait, token by token, until
 *                           PREREQ's has a non-zero block (chained trainers)
 * The configuration saved in models is a first line "#!columns NAMES"
 * followed by the template text verbatim, so line numbers, generated
 * identifiers and therefore observations are identical after loading.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tpl.h"

#define COLUMNS_HEADER "#!columns"

static const crfp_param_spec templates_params[] = {
    {"template", CRFP_PARAM_PATH, NULL, "feature template file (CRF++/Wapiti syntax)"},
    {"columns", CRFP_PARAM_STRING, NULL,
     "column names for %x[row,NAME], resolved when the template loads"},
};

/* The extractor together with what save() needs to rebuild it. */
typedef struct templates_ex {
    tpl_extractor *ex;
    char *text;
    size_t len;
} templates_ex;

static crfp_status read_file(crfp_host *host, const char *path, char **text, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return errno == ENOMEM
                   ? crfp_error(host, CRFP_ENOMEM, "%s: out of memory opening the template", path)
                   : crfp_error(host, CRFP_EIO, "%s: cannot open template: %s", path,
                                strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        /* Keep one byte free for the terminating NUL. */
        if (cap - n < 2) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(fp), saved = errno;
    fclose(fp);
    if (!buf)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory reading the template", path);
    if (bad) {
        free(buf);
        return crfp_error(host, CRFP_EIO, "%s: cannot read template: %s", path, strerror(saved));
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return CRFP_OK;
}

static crfp_status wrap(crfp_host *host, const char *text, size_t len, const char *origin,
                        const char *columns, void **out)
{
    templates_ex *te = calloc(1, sizeof *te);
    if (!te || !(te->text = malloc(len + 1))) {
        free(te);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", origin);
    }
    memcpy(te->text, text, len);
    te->text[len] = '\0';
    te->len = len;
    tpl *t;
    crfp_status st = tpl_compile(host, text, len, origin, columns, &t);
    if (st == CRFP_OK)
        st = tpl_extractor_new(host, t, &te->ex);
    if (st) {
        free(te->text);
        free(te);
        return st;
    }
    *out = te;
    return CRFP_OK;
}

static crfp_status templates_create(crfp_host *host, const crfp_params *params, void **ex)
{
    *ex = NULL;
    const char *path = crfp_params_str(params, "template");
    if (!path || !*path)
        return crfp_error(host, CRFP_EINVAL, "templates: parameter 'template' is required");
    const char *columns = crfp_params_str(params, "columns");
    if (columns && strchr(columns, '\n'))
        return crfp_error(host, CRFP_EINVAL, "templates: parameter 'columns' has a newline");
    char *text = NULL;
    size_t len = 0;
    crfp_status st = read_file(host, path, &text, &len);
    if (st)
        return st;
    st = wrap(host, text, len, path, columns && *columns ? columns : NULL, ex);
    free(text);
    return st;
}

static crfp_status templates_load(crfp_host *host, const char *text, size_t len,
                                  const char *origin, void **ex)
{
    *ex = NULL;
    size_t hl = strlen(COLUMNS_HEADER);
    if (len < hl || memcmp(text, COLUMNS_HEADER, hl) != 0 ||
        (len > hl && text[hl] != ' ' && text[hl] != '\n'))
        return crfp_error(host, CRFP_EFORMAT,
                          "%s: saved template configuration does not start with '%s'", origin,
                          COLUMNS_HEADER);
    const char *nl = memchr(text, '\n', len);
    if (!nl)
        return crfp_error(host, CRFP_EFORMAT, "%s: saved template configuration is truncated",
                          origin);
    const char *cs = text + hl;
    while (cs < nl && *cs == ' ')
        cs++;
    char *columns = NULL;
    if (cs < nl) {
        columns = strndup(cs, (size_t)(nl - cs));
        if (!columns)
            return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", origin);
    }
    const char *body = nl + 1;
    crfp_status st = wrap(host, body, len - (size_t)(body - text), origin, columns, ex);
    free(columns);
    return st;
}

static crfp_status templates_save(void *ex, char **text, size_t *len)
{
    const templates_ex *te = ex;
    const char *columns = tpl_extractor_tpl(te->ex)->columns;
    size_t hl = strlen(COLUMNS_HEADER), cl = columns ? strlen(columns) + 1 : 0;
    size_t n = hl + cl + 1 + te->len;
    char *s = malloc(n + 1);
    if (!s)
        return CRFP_ENOMEM;
    memcpy(s, COLUMNS_HEADER, hl);
    if (columns) {
        s[hl] = ' ';
        memcpy(s + hl + 1, columns, cl - 1);
    }
    s[hl + cl] = '\n';
    memcpy(s + hl + cl + 1, te->text, te->len);
    s[n] = '\0';
    *text = s;
    *len = n;
    return CRFP_OK;
}

static crfp_status templates_extract(void *ex, const crfp_tokseq *seq, crfp_obsseq *out)
{
    return tpl_extract(((templates_ex *)ex)->ex, seq, out);
}

static const char *templates_prerequisites(void *ex)
{
    return tpl_extractor_tpl(((templates_ex *)ex)->ex)->after;
}

static void templates_free(void *ex)
{
    templates_ex *te = ex;
    if (!te)
        return;
    tpl_extractor_free(te->ex);
    free(te->text);
    free(te);
}

static const crfp_features_vtable templates_vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_features_vtable),
    .create = templates_create,
    .load = templates_load,
    .save = templates_save,
    .extract = templates_extract,
    .free = templates_free,
    .prerequisites = templates_prerequisites,
};

CRFP_PLUGIN_DEFINE(templates) = {
    CRFP_PLUGIN_ABI,
    .name = "templates",
    .kind = CRFP_KIND_FEATURES,
    .version = "1.0",
    .description = "CRF++/Wapiti feature templates (%x %t %m, ICU regular expressions)",
    .params = templates_params,
    .nparams = sizeof templates_params / sizeof templates_params[0],
    .vtable = &templates_vtable,
};
