/* icu_tokenizer — sentences and tokens from ICU break iterators.
 *
 * The document text is converted to UTF-16 once; ICU's word break
 * iterator (the locale's rules, or custom rules from a file) cuts it into
 * segments and its sentence break iterator into sentences.  Each segment
 * that is not white space becomes a Token annotation with the token text
 * (`string`) and a `kind` derived from the rule status ICU reports for it:
 *
 *   status range (ubrk.h)     kind
 *   UBRK_WORD_NUMBER          number
 *   UBRK_WORD_LETTER          word
 *   UBRK_WORD_KANA, _IDEO     kana when written only in hiragana or
 *                             katakana, else ideo (ICU's Japanese
 *                             dictionary gives kana words IDEO too)
 *   UBRK_WORD_NONE            emoji, punctuation, symbol or other, from the
 *                             segment's characters (ICU gives them all the
 *                             same status)
 *
 * Three adjustments follow ICU's segmentation, each optional:
 *  - `keep`: an ICU regular expression whose matches stay single tokens
 *    (by default URLs and e-mail addresses, which word break rules cut at
 *    every ':', '/' and '@');
 *  - abbreviations: a word followed directly by '.' keeps the period when
 *    the pair is a known abbreviation ("Mr.", "U.S.") — the locale's
 *    sentence-break suppressions in ICU's data plus an optional file — or an
 *    initialism ("e.g", "U.S" + "."); the same lists keep sentences from
 *    ending after them (ICU's own filter, "ss=standard", for its list; this
 *    plugin for the file's);
 *  - `clitics`: suffixes split off words ("n't", "'s"; the apostrophe also
 *    matches U+2019), as Penn/UD tokenisation of English does.
 *
 * Sentence annotations span their tokens: from the first token's start to
 * the last one's end (so they never include trailing white space), and a
 * sentence without tokens is dropped.  Offsets are in the document's unit.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/uloc.h>
#include <unicode/uregex.h>
#include <unicode/uscript.h>
#include <unicode/ures.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>
#include <unicode/uversion.h>

#include "crfpipe/crfpipe.h"

/* What word break rules cut but is one token in most conventions:
 *  - URLs (http, https, ftp, mailto: or www.), ending before trailing
 *    punctuation ("see http://x.org/a." ends before the period);
 *  - e-mail addresses;
 *  - numbers joined by '-', '/' or ':' (dates, times, phone numbers:
 *    01/24/2001, 12:30, 555-0100) and dates like 01-Feb-02;
 *  - emoticons such as :) ;-) :D, when no letter or digit touches them.
 * Each top-level alternative runs as a regex of its own (see keep_open). */
#define DEFAULT_KEEP                                                                         \
    "(?:(?:[hH][tT][tT][pP][sS]?|[fF][tT][pP])://|mailto:|[wW][wW][wW]\\.)"                    \
    "[^\\s<>\"]*[^\\s<>\".,;:!?)\\]}'\\u2019\\u201D]"                                        \
    "|(?<![\\p{L}\\p{N}._%+-])[\\p{L}\\p{N}._%+-]++@[\\p{L}\\p{N}-]+(?:\\.[\\p{L}\\p{N}-]+)*\\.\\p{L}{2,}" \
    "|\\p{Nd}{1,2}-\\p{L}{3}-\\p{Nd}{2,4}"                                                    \
    "|(?<![\\p{L}\\p{N}])\\p{Nd}+(?:[-/:]\\p{Nd}+)+(?![\\p{L}\\p{N}])"                        \
    "|(?<![\\p{L}\\p{N}])[:;=][-o^']?[()\\[\\]DPpO3/|*](?![\\p{L}\\p{N}])"

static const crfp_param_spec params[] = {
    {"locale", CRFP_PARAM_STRING, "",
     "ICU locale of the break rules and abbreviations (e.g. en, de, ja; \"\" = root)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set receiving Token and Sentence annotations"},
    {"rules", CRFP_PARAM_PATH, NULL, "file of custom ICU word break rules (replaces the locale's)"},
    {"sentence-rules", CRFP_PARAM_PATH, NULL, "file of custom ICU sentence break rules"},
    {"abbreviations", CRFP_PARAM_BOOL, "true",
     "use the locale's sentence-break suppressions (Mr., U.S., ...): no sentence ends after "
     "them and they keep their period"},
    {"abbreviation-file", CRFP_PARAM_PATH, NULL,
     "more abbreviations, one per line with its final period (e.g. Dr.); '#' starts a comment"},
    {"clitics", CRFP_PARAM_STRING, "",
     "comma-separated suffixes split off words, e.g. n't,'s,'m,'re,'ve,'ll,'d"},
    {"keep", CRFP_PARAM_STRING, DEFAULT_KEEP,
     "ICU regular expression whose matches stay one token (default: URLs, e-mail addresses; "
     "\"\" = none)"},
    {"merge-punctuation", CRFP_PARAM_BOOL, "true",
     "runs of one punctuation or symbol character (..., --, !!!, **) and of .!? are one token"},
    {"sentences", CRFP_PARAM_BOOL, "true", "add Sentence annotations"},
    {"wrapped", CRFP_PARAM_BOOL, "false",
     "single line breaks are line wrapping, not sentence ends (blank lines still are)"},
    {"string-feature", CRFP_PARAM_STRING, "string", "token feature holding the token text"},
    {"kind-feature", CRFP_PARAM_STRING, "kind", "token feature holding the token kind"},
};

/* --- a set of UTF-8 strings (abbreviations) ------------------------------- */

typedef struct strset {
    char **slot;
    size_t cap, n;
} strset;

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int strset_has(const strset *set, const char *s, size_t n)
{
    if (!set->n)
        return 0;
    for (size_t i = hash_bytes(s, n) & (set->cap - 1);; i = (i + 1) & (set->cap - 1)) {
        const char *e = set->slot[i];
        if (!e)
            return 0;
        if (strlen(e) == n && memcmp(e, s, n) == 0)
            return 1;
    }
}

static int strset_add(strset *set, const char *s, size_t n)
{
    if (strset_has(set, s, n))
        return 0;
    if ((set->n + 1) * 2 > set->cap) {
        size_t nc = set->cap ? set->cap * 2 : 64;
        char **ns = calloc(nc, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < set->cap; i++) {
            char *e = set->slot[i];
            if (!e)
                continue;
            size_t j = hash_bytes(e, strlen(e)) & (nc - 1);
            while (ns[j])
                j = (j + 1) & (nc - 1);
            ns[j] = e;
        }
        free(set->slot);
        set->slot = ns;
        set->cap = nc;
    }
    char *copy = strndup(s, n);
    if (!copy)
        return -1;
    size_t j = hash_bytes(s, n) & (set->cap - 1);
    while (set->slot[j])
        j = (j + 1) & (set->cap - 1);
    set->slot[j] = copy;
    set->n++;
    return 0;
}

static void strset_free(strset *set)
{
    for (size_t i = 0; i < set->cap; i++)
        free(set->slot[i]);
    free(set->slot);
    memset(set, 0, sizeof *set);
}

/* --- state ------------------------------------------------------------------ */

/* A piece of the text in UTF-16 code units and what it is. */
typedef struct seg {
    int32_t s, e;
    const char *kind;
} seg;

typedef struct clitic {
    UChar *u;        /* the suffix, apostrophes as U+0027 */
    int32_t len;
} clitic;

typedef struct tokenizer {
    crfp_host *host;
    char *set;
    char *strfeat, *kindfeat;
    int sentences, wrapped, abbrev, merge_punct;
    UBreakIterator *wbi, *sbi;
    URegularExpression **keep;   /* the keep pattern's top-level alternatives */
    size_t nkeep;
    strset abbr;          /* every abbreviation (ICU's and the file's) */
    strset abbr_file;     /* the file's: this plugin suppresses their breaks */
    clitic *clitics;
    size_t nclitics;
    /* provenance */
    const char *pnames[8];
    char *pvalues[8];
    size_t np;
    /* per-document buffers */
    UChar *u, *us;        /* the text, and the copy the sentence iterator reads */
    int32_t ucap, uscap;
    seg *segs, *toks;
    size_t capsegs, captoks;
    int32_t *keeps;       /* keep matches: start, end pairs */
    size_t capkeeps;
    int32_t *sb;          /* sentence boundaries */
    size_t capsb;
    size_t *off;          /* per token: start, end in the document's unit */
    size_t *boff;         /* per token: start, end in UTF-8 bytes */
    size_t capoff, capboff;
    char *str;
    size_t capstr;
} tokenizer;

static void tk_close(void *state);

static int grow(void **p, size_t *cap, size_t need, size_t elt)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elt);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Read a whole file (for rules and abbreviation lists); *text is malloc'd
 * and NUL-terminated. */
static crfp_status slurp(crfp_host *host, const char *path, const char *what, char **text,
                         size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return crfp_error(host, CRFP_EIO, "%s: cannot open %s: %s", path, what, strerror(errno));
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    while (b) {
        if (cap - n < 2) {
            char *nb = cap < (64u << 20) ? realloc(b, cap * 2) : NULL;
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + n, 1, cap - n - 1, fp);
        n += got;
        if (!got)
            break;
    }
    int bad = ferror(fp), e = errno;
    fclose(fp);
    if (!b)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory (or over 64 MiB) reading %s",
                          path, what);
    if (bad) {
        free(b);
        return crfp_error(host, CRFP_EIO, "%s: cannot read %s: %s", path, what, strerror(e));
    }
    b[n] = '\0';
    *text = b;
    *len = n;
    return CRFP_OK;
}

/* UTF-8 -> malloc'd UTF-16 (NUL-terminated); *n16 its length. */
static crfp_status to_utf16(crfp_host *host, const char *origin, const char *s, size_t n,
                            UChar **out, int32_t *n16)
{
    *out = NULL;
    if (n > INT32_MAX / 2)
        return crfp_error(host, CRFP_EINVAL, "%s: too large", origin);
    UErrorCode err = U_ZERO_ERROR;
    int32_t need = 0;
    u_strFromUTF8(NULL, 0, &need, s, (int32_t)n, &err);
    if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err))
        return crfp_error(host, CRFP_EUTF8, "%s: invalid UTF-8", origin);
    err = U_ZERO_ERROR;
    UChar *u = malloc(((size_t)need + 1) * sizeof *u);
    if (!u)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    u_strFromUTF8(u, need + 1, NULL, s, (int32_t)n, &err);
    if (U_FAILURE(err)) {
        free(u);
        return crfp_error(host, CRFP_EUTF8, "%s: invalid UTF-8", origin);
    }
    *out = u;
    *n16 = need;
    return CRFP_OK;
}

/* A break iterator from a rules file; rule errors name file:line:column. */
static crfp_status open_rules(crfp_host *host, const char *path, const char *what,
                              UBreakIterator **out)
{
    char *text;
    size_t len;
    crfp_status st = slurp(host, path, what, &text, &len);
    if (st != CRFP_OK)
        return st;
    UChar *u;
    int32_t n16;
    st = to_utf16(host, path, text, len, &u, &n16);
    free(text);
    if (st != CRFP_OK)
        return st;
    UParseError pe;
    memset(&pe, 0, sizeof pe);
    UErrorCode err = U_ZERO_ERROR;
    *out = ubrk_openRules(u, n16, NULL, 0, &pe, &err);
    free(u);
    if (U_FAILURE(err))
        return crfp_error(host, CRFP_EPARSE, "%s:%d:%d: invalid ICU break rules: %s", path,
                          pe.line, pe.offset, u_errorName(err));
    return CRFP_OK;
}

/* The locale's sentence-break suppressions, as ICU's data lists them
 * (brkitr/<locale>: exceptions/SentenceBreak); the locale falls back to
 * its parents as ICU's own filter does.  No list is not an error. */
static crfp_status load_icu_abbrevs(tokenizer *tk, const char *locale)
{
    UErrorCode err = U_ZERO_ERROR;
    UResourceBundle *b = ures_open(U_ICUDATA_NAME "-brkitr", locale, &err);
    UResourceBundle *ex = U_SUCCESS(err) ? ures_getByKey(b, "exceptions", NULL, &err) : NULL;
    UResourceBundle *sb = U_SUCCESS(err) ? ures_getByKey(ex, "SentenceBreak", NULL, &err) : NULL;
    crfp_status st = CRFP_OK;
    for (int32_t i = 0; U_SUCCESS(err) && sb && i < ures_getSize(sb); i++) {
        int32_t len = 0;
        UErrorCode e2 = U_ZERO_ERROR;
        const UChar *s = ures_getStringByIndex(sb, i, &len, &e2);
        char buf[256];
        int32_t n8 = 0;
        if (U_SUCCESS(e2))
            u_strToUTF8(buf, sizeof buf, &n8, s, len, &e2);
        if (U_SUCCESS(e2) && n8 < (int32_t)sizeof buf && strset_add(&tk->abbr, buf, (size_t)n8)) {
            st = crfp_error(tk->host, CRFP_ENOMEM, "out of memory");
            break;
        }
    }
    ures_close(sb);
    ures_close(ex);
    ures_close(b);
    return st;
}

static crfp_status load_abbrev_file(tokenizer *tk, const char *path)
{
    char *text;
    size_t len;
    crfp_status st = slurp(tk->host, path, "abbreviation file", &text, &len);
    if (st != CRFP_OK)
        return st;
    unsigned long line = 0;
    for (char *p = text; *p && st == CRFP_OK;) {
        char *nl = strchr(p, '\n');
        char *end = nl ? nl : p + strlen(p);
        line++;
        char *hash = memchr(p, '#', (size_t)(end - p));
        char *e = hash ? hash : end;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            e--;
        if (e > p) {
            int32_t dummy = 0;
            UErrorCode err = U_ZERO_ERROR;
            u_strFromUTF8(NULL, 0, &dummy, p, (int32_t)(e - p), &err);
            if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err))
                st = crfp_error(tk->host, CRFP_EUTF8, "%s:%lu: invalid UTF-8", path, line);
            else if (e[-1] != '.')
                st = crfp_error(tk->host, CRFP_EPARSE,
                                "%s:%lu: '%.*s' does not end with a period (an abbreviation is "
                                "written with its final period, e.g. 'Dr.')",
                                path, line, (int)(e - p), p);
            else if (strset_add(&tk->abbr, p, (size_t)(e - p)) ||
                     strset_add(&tk->abbr_file, p, (size_t)(e - p)))
                st = crfp_error(tk->host, CRFP_ENOMEM, "out of memory");
        }
        p = nl ? nl + 1 : end;
    }
    free(text);
    return st;
}

static crfp_status parse_clitics(tokenizer *tk, const char *list)
{
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n) {
            clitic *c = realloc(tk->clitics, (tk->nclitics + 1) * sizeof *c);
            if (!c)
                return crfp_error(tk->host, CRFP_ENOMEM, "out of memory");
            tk->clitics = c;
            c = &tk->clitics[tk->nclitics];
            crfp_status st = to_utf16(tk->host, "parameter 'clitics'", p, n, &c->u, &c->len);
            if (st != CRFP_OK)
                return st;
            tk->nclitics++;
            /* U+2019 (right single quotation mark) is the typographic
             * apostrophe: one spelling matches both. */
            for (int32_t i = 0; i < c->len; i++)
                if (c->u[i] == 0x2019)
                    c->u[i] = 0x27;
        }
        p += n + (comma ? 1 : 0);
    }
    return CRFP_OK;
}

/* Compile the keep pattern as its top-level alternatives, each a regex of
 * its own: ICU scans quickly for a pattern whose possible first
 * characters it knows, which an alternation of unrelated patterns
 * defeats (measured: the default pattern as one regex costs five times
 * more).  Matches of all of them are merged in keep_find. */
static crfp_status keep_open(tokenizer *tk, const char *keep)
{
    crfp_host *host = tk->host;
    UChar *u;
    int32_t n16;
    crfp_status st = to_utf16(host, "parameter 'keep'", keep, strlen(keep), &u, &n16);
    if (st != CRFP_OK)
        return st;
    /* the whole pattern first: a syntax error is reported at its offset
     * in what the user wrote */
    UParseError pe;
    UErrorCode err = U_ZERO_ERROR;
    URegularExpression *whole = uregex_open(u, n16, 0, &pe, &err);
    if (U_FAILURE(err)) {
        free(u);
        return crfp_error(host, CRFP_EINVAL,
                          "parameter 'keep': invalid ICU regular expression at offset %d: %s",
                          pe.offset, u_errorName(err));
    }
    uregex_close(whole);
    /* split at '|' outside groups, classes, escapes and \Q...\E */
    int32_t depth = 0, cls = 0, quoted = 0, start = 0;
    for (int32_t i = 0; i <= n16 && st == CRFP_OK; i++) {
        if (i < n16) {
            UChar c = u[i];
            if (quoted) {
                if (c == '\\' && i + 1 < n16 && u[i + 1] == 'E')
                    quoted = 0, i++;
                continue;
            }
            if (c == '\\') {
                if (i + 1 < n16 && u[i + 1] == 'Q')
                    quoted = 1;
                i++;
                continue;
            }
            if (cls) {
                cls += c == '[' ? 1 : c == ']' ? -1 : 0;
                continue;
            }
            if (c == '[')
                cls = 1;
            else if (c == '(')
                depth++;
            else if (c == ')')
                depth--;
            if (c != '|' || depth > 0)
                continue;
        }
        URegularExpression **nk = realloc(tk->keep, (tk->nkeep + 1) * sizeof *nk);
        if (!nk) {
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
            break;
        }
        tk->keep = nk;
        err = U_ZERO_ERROR;
        URegularExpression *rx = uregex_open(u + start, i - start, 0, &pe, &err);
        if (U_FAILURE(err)) {
            /* cannot happen for a valid whole; be safe: use the whole */
            st = crfp_error(host, CRFP_EINVAL, "parameter 'keep': cannot split the pattern: %s",
                            u_errorName(err));
            break;
        }
        tk->keep[tk->nkeep++] = rx;
        /* A find scans the document up to its match, so the per-match
         * limit of template regexes (which match one cell) is scaled up;
         * a runaway pattern still stops. */
        size_t tl = crfp_host_limit(host, CRFP_LIMIT_REGEX_TIME);
        err = U_ZERO_ERROR;
        if (tl)
            uregex_setTimeLimit(rx, tl > INT32_MAX / 64 ? INT32_MAX : (int32_t)tl * 64, &err);
        start = i + 1;
    }
    free(u);
    return st;
}

static int cmp_keep(const void *a, const void *b)
{
    const int32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] > y[1] ? -1 : x[1] < y[1];
}

/* Every match of every keep alternative in u[0..n16), then the earliest
 * (and at equal starts the longest) of overlapping ones: tk->keeps holds
 * *n (start, end) pairs, sorted and disjoint. */
static crfp_status keep_find(tokenizer *tk, const char *docid, const UChar *u, int32_t n16,
                             size_t *n)
{
    size_t k = 0;
    for (size_t r = 0; r < tk->nkeep; r++) {
        URegularExpression *rx = tk->keep[r];
        UErrorCode err = U_ZERO_ERROR;
        uregex_setText(rx, u, n16, &err);
        while (U_SUCCESS(err) && uregex_findNext(rx, &err)) {
            int32_t s = uregex_start(rx, 0, &err), e = uregex_end(rx, 0, &err);
            if (U_FAILURE(err) || e <= s)
                continue;
            if (grow((void **)&tk->keeps, &tk->capkeeps, 2 * k + 2, sizeof *tk->keeps))
                return crfp_error(tk->host, CRFP_ENOMEM, "out of memory");
            tk->keeps[2 * k] = s;
            tk->keeps[2 * k + 1] = e;
            k++;
        }
        if (U_FAILURE(err))
            return crfp_error(tk->host, CRFP_EPLUGIN, "document '%s': keep pattern failed: %s%s",
                              docid, u_errorName(err),
                              err == U_REGEX_TIME_OUT ? " (raise --limit regex-time=N)" : "");
    }
    if (k > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(tk->keeps, k, 2 * sizeof *tk->keeps, cmp_keep);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && tk->keeps[2 * i] < tk->keeps[2 * m - 1])
            continue;
        tk->keeps[2 * m] = tk->keeps[2 * i];
        tk->keeps[2 * m + 1] = tk->keeps[2 * i + 1];
        m++;
    }
    *n = m;
    return CRFP_OK;
}

static crfp_status add_prov(tokenizer *tk, const char *name, const char *value)
{
    if (!value || tk->np == sizeof tk->pnames / sizeof *tk->pnames)
        return CRFP_OK;
    tk->pnames[tk->np] = name;
    if (!(tk->pvalues[tk->np] = strdup(value)))
        return crfp_error(tk->host, CRFP_ENOMEM, "out of memory");
    tk->np++;
    return CRFP_OK;
}

static crfp_status tk_open(crfp_host *host, const crfp_params *p, void **state)
{
    *state = NULL;
    tokenizer *tk = calloc(1, sizeof *tk);
    if (!tk)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    tk->host = host;
    crfp_status st = CRFP_OK;
    const char *locale = crfp_params_str(p, "locale");
    const char *rules = crfp_params_str(p, "rules");
    const char *srules = crfp_params_str(p, "sentence-rules");
    const char *afile = crfp_params_str(p, "abbreviation-file");
    const char *keep = crfp_params_str(p, "keep");
    tk->sentences = crfp_params_bool(p, "sentences");
    tk->wrapped = crfp_params_bool(p, "wrapped");
    tk->abbrev = crfp_params_bool(p, "abbreviations");
    tk->merge_punct = crfp_params_bool(p, "merge-punctuation");
    tk->set = strdup(crfp_params_str(p, "set"));
    tk->strfeat = strdup(crfp_params_str(p, "string-feature"));
    tk->kindfeat = strdup(crfp_params_str(p, "kind-feature"));
    if (!tk->set || !tk->strfeat || !tk->kindfeat) {
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        goto fail;
    }
    if (!*tk->strfeat || !*tk->kindfeat) {
        st = crfp_error(host, CRFP_EINVAL, "string-feature and kind-feature must not be empty");
        goto fail;
    }
    /* A misspelt locale silently gives the root rules in ICU; say so. */
    char canon[ULOC_FULLNAME_CAPACITY];
    UErrorCode err = U_ZERO_ERROR;
    uloc_canonicalize(locale, canon, sizeof canon, &err);
    if (U_FAILURE(err)) {
        st = crfp_error(host, CRFP_EINVAL, "locale '%s' is not a valid ICU locale", locale);
        goto fail;
    }
    char lang[ULOC_LANG_CAPACITY];
    err = U_ZERO_ERROR;
    uloc_getLanguage(canon, lang, sizeof lang, &err);
    int alpha = *lang != '\0';
    for (const char *c = lang; *c; c++)
        alpha &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z');
    if (*canon && (U_FAILURE(err) || !alpha)) {
        st = crfp_error(host, CRFP_EINVAL, "locale '%s' names no language", locale);
        goto fail;
    }
    if (rules) {
        if ((st = open_rules(host, rules, "word break rules", &tk->wbi)) != CRFP_OK)
            goto fail;
    } else {
        err = U_ZERO_ERROR;
        tk->wbi = ubrk_open(UBRK_WORD, canon, NULL, 0, &err);
        if (U_FAILURE(err)) {
            st = crfp_error(host, CRFP_EPLUGIN, "ICU word break iterator for '%s': %s", locale,
                            u_errorName(err));
            goto fail;
        }
    }
    if (tk->sentences) {
        if (srules) {
            if ((st = open_rules(host, srules, "sentence break rules", &tk->sbi)) != CRFP_OK)
                goto fail;
        } else {
            /* "ss=standard" asks ICU to wrap the iterator in its filter of
             * the locale's suppressions (FilteredBreakIteratorBuilder). */
            char sloc[ULOC_FULLNAME_CAPACITY + 16];
            snprintf(sloc, sizeof sloc, "%s%s", canon, tk->abbrev ? "@ss=standard" : "");
            err = U_ZERO_ERROR;
            tk->sbi = ubrk_open(UBRK_SENTENCE, sloc, NULL, 0, &err);
            if (U_FAILURE(err)) {
                st = crfp_error(host, CRFP_EPLUGIN, "ICU sentence break iterator for '%s': %s",
                                locale, u_errorName(err));
                goto fail;
            }
        }
    }
    if (tk->abbrev && (st = load_icu_abbrevs(tk, canon)) != CRFP_OK)
        goto fail;
    if (afile && (st = load_abbrev_file(tk, afile)) != CRFP_OK)
        goto fail;
    if ((st = parse_clitics(tk, crfp_params_str(p, "clitics"))) != CRFP_OK)
        goto fail;
    if (keep && *keep && (st = keep_open(tk, keep)) != CRFP_OK)
        goto fail;
    if ((st = add_prov(tk, "locale", locale)) || (st = add_prov(tk, "icu", U_ICU_VERSION)) ||
        (st = add_prov(tk, "rules", rules)) || (st = add_prov(tk, "sentence-rules", srules)) ||
        (st = add_prov(tk, "abbreviation-file", afile)) ||
        (st = add_prov(tk, "clitics", crfp_params_str(p, "clitics"))) ||
        (st = add_prov(tk, "keep", keep)) ||
        (st = add_prov(tk, "merge-punctuation", tk->merge_punct ? "true" : "false")) ||
        (st = add_prov(tk, "wrapped", tk->wrapped ? "true" : "false")))
        goto fail;
    *state = tk;
    return CRFP_OK;
fail:
    tk_close(tk);
    return st;
}

/* --- classification ------------------------------------------------------------ */

static int is_space_like(UChar32 c)
{
    if (u_isUWhiteSpace(c))
        return 1;
    int8_t t = u_charType(c);
    return t == U_CONTROL_CHAR || t == U_FORMAT_CHAR;
}

/* Kind of a segment ICU gave no word status (UBRK_WORD_NONE): NULL for
 * white space (no token). */
static const char *none_kind(const UChar *u, int32_t s, int32_t e)
{
    /* Most segments without a word status are one ASCII space or
     * punctuation mark (one per token in running text): answered without
     * the property lookups below. */
    if (e - s == 1 && u[s] < 0x80) {
        UChar c = u[s];
        if (c == ' ' || (c >= '\t' && c <= '\r'))
            return NULL;
        if (c < 0x20 || c == 0x7F)
            return NULL;   /* controls count as space, as is_space_like says */
        if ((c >= '0' && c <= '9'))
            return "number";
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            return "word";
        /* ASCII symbols (Unicode category S*); the rest is punctuation */
        return c == '$' || c == '+' || c == '<' || c == '=' || c == '>' || c == '^' ||
                       c == '`' || c == '|' || c == '~'
                   ? "symbol"
                   : "punctuation";
    }
    int32_t i = s;
    UChar32 first = -1;
    int emoji = 0;
    while (i < e) {
        UChar32 c;
        U16_NEXT(u, i, e, c);
        if (c == 0xFE0F || c == 0x200D || u_hasBinaryProperty(c, UCHAR_EMOJI_PRESENTATION) ||
            u_hasBinaryProperty(c, UCHAR_REGIONAL_INDICATOR) ||
            u_hasBinaryProperty(c, UCHAR_EMOJI_MODIFIER))
            emoji = 1;
        if (first < 0 && !is_space_like(c))
            first = c;
    }
    if (first < 0)
        return NULL;
    if (emoji || (first >= 0x1F000 && u_hasBinaryProperty(first, UCHAR_EXTENDED_PICTOGRAPHIC)))
        return "emoji";
    uint32_t mask = U_GET_GC_MASK(first);
    if (mask & U_GC_P_MASK)
        return "punctuation";
    if (mask & U_GC_S_MASK)
        return "symbol";
    if (mask & U_GC_N_MASK)
        return "number";
    if (mask & U_GC_L_MASK)
        return "word";
    return "other";
}

/* ICU's dictionary segmentation of Japanese gives kana words the IDEO
 * status too: a segment written only in hiragana or katakana (with the
 * prolonged sound mark and iteration marks) is "kana", others "ideo". */
static const char *kana_or_ideo(const UChar *u, int32_t s, int32_t e)
{
    for (int32_t i = s; i < e;) {
        UChar32 c;
        U16_NEXT(u, i, e, c);
        UErrorCode err = U_ZERO_ERROR;
        UScriptCode sc = uscript_getScript(c, &err);
        if (sc != USCRIPT_HIRAGANA && sc != USCRIPT_KATAKANA && c != 0x30FC && c != 0x309D &&
            c != 0x309E && c != 0x30FD && c != 0x30FE)
            return "ideo";
    }
    return "kana";
}

static const char *status_kind(int32_t status, const UChar *u, int32_t s, int32_t e)
{
    if (status >= UBRK_WORD_NUMBER && status < UBRK_WORD_NUMBER_LIMIT)
        return "number";
    if (status >= UBRK_WORD_LETTER && status < UBRK_WORD_LETTER_LIMIT)
        return "word";
    if (status >= UBRK_WORD_KANA && status < UBRK_WORD_IDEO_LIMIT)
        return kana_or_ideo(u, s, e);
    return none_kind(u, s, e);
}

/* Kind of a span kept whole by the keep pattern. */
static const char *keep_kind(const UChar *u, int32_t s, int32_t e)
{
    for (int32_t i = s; i + 2 < e; i++)
        if (u[i] == ':' && u[i + 1] == '/' && u[i + 2] == '/')
            return "url";
    if (e - s > 4 && (u[s] == 'w' || u[s] == 'W') && (u[s + 1] == 'w' || u[s + 1] == 'W') &&
        (u[s + 2] == 'w' || u[s + 2] == 'W') && u[s + 3] == '.')
        return "url";
    for (int32_t i = s; i < e; i++)
        if (u[i] == '@')
            return "email";
    UChar32 c;
    int32_t i = s;
    U16_NEXT(u, i, e, c);
    if (u_isdigit(c))
        return "number";
    if (u_isalpha(c))
        return "word";
    return "symbol";
}

/* --- tokenising one document -------------------------------------------------------- */

/* Whether the one-character punctuation or symbol segment u[s..e)
 * continues the run of the token before it: adjacent, and the run repeats
 * one character ("...", "--", "**") or is made of . ! ? ("?!"). */
static int continues_run(const UChar *u, const seg *prev, int32_t s, int32_t e)
{
    if (prev->e != s || (strcmp(prev->kind, "punctuation") && strcmp(prev->kind, "symbol")))
        return 0;
    UChar32 c;
    int32_t i = s;
    U16_NEXT(u, i, e, c);
    if (i != e)
        return 0;
    int same = 1, term = c == '.' || c == '!' || c == '?';
    for (int32_t k = prev->s; k < prev->e;) {
        UChar32 x;
        U16_NEXT(u, k, prev->e, x);
        same &= x == c;
        term &= x == '.' || x == '!' || x == '?';
    }
    return same || term;
}

static crfp_status push_tok(tokenizer *tk, size_t *n, int32_t s, int32_t e, const char *kind)
{
    if (grow((void **)&tk->toks, &tk->captoks, *n + 1, sizeof *tk->toks))
        return crfp_error(tk->host, CRFP_ENOMEM, "out of memory");
    tk->toks[(*n)++] = (seg){s, e, kind};
    return CRFP_OK;
}

/* UTF-8 of u[s..e) into tk->str (NUL-terminated); its length. */
static crfp_status utf8_of(tokenizer *tk, const UChar *u, int32_t s, int32_t e, size_t *len)
{
    size_t need = (size_t)(e - s) * 3 + 2;
    if (grow((void **)&tk->str, &tk->capstr, need, 1))
        return crfp_error(tk->host, CRFP_ENOMEM, "out of memory");
    UErrorCode err = U_ZERO_ERROR;
    int32_t n8 = 0;
    u_strToUTF8(tk->str, (int32_t)tk->capstr, &n8, u + s, e - s, &err);
    if (U_FAILURE(err))
        return crfp_error(tk->host, CRFP_EPLUGIN, "UTF-16 to UTF-8: %s", u_errorName(err));
    *len = (size_t)n8;
    return CRFP_OK;
}

/* Single letters separated by periods ("U.S", "e.g", "a.m"): with a
 * following period, an initialism. */
static int initialism(const UChar *u, int32_t s, int32_t e)
{
    int letters = 0;
    int32_t i = s;
    while (i < e) {
        UChar32 c;
        U16_NEXT(u, i, e, c);
        if (!u_isalpha(c))
            return 0;
        letters++;
        if (i == e)
            break;
        if (u[i] != '.')
            return 0;
        i++;
        if (i == e)
            return 0;
    }
    return letters >= 2;
}

/* Whether `w` ends with clitic c (apostrophes compared loosely, letters
 * case-insensitively) and is longer than it. */
static int ends_with_clitic(const UChar *u, int32_t s, int32_t e, const clitic *c)
{
    if (e - s <= c->len)
        return 0;
    for (int32_t k = 0; k < c->len; k++) {
        UChar a = u[e - c->len + k], b = c->u[k];
        if (a == 0x2019)
            a = 0x27;
        if (a != b && u_tolower(a) != u_tolower(b))
            return 0;
    }
    return 1;
}

/* Segments -> tokens: white space dropped, keep matches merged, periods of
 * abbreviations attached, clitics split.  Result in tk->toks. */
static crfp_status build_tokens(tokenizer *tk, const UChar *u, int32_t n16, size_t nsegs,
                                size_t nkeeps, size_t *ntoks)
{
    crfp_status st;
    size_t n = 0, k = 0;
    int32_t pos = 0;   /* text before pos is consumed */
    for (size_t i = 0; i < nsegs; i++) {
        seg g = tk->segs[i];
        if (g.e <= pos)
            continue;
        if (g.s < pos)
            g.s = pos;
        /* a keep match overlapping this segment: the part before it, then
         * the match as one token */
        while (k < nkeeps && tk->keeps[2 * k + 1] <= g.s)
            k++;
        if (k < nkeeps && tk->keeps[2 * k] < g.e) {
            int32_t ks = tk->keeps[2 * k], ke = tk->keeps[2 * k + 1];
            if (ks > g.s) {
                const char *kind = none_kind(u, g.s, ks) ? status_kind(-1, u, g.s, ks) : NULL;
                if (kind && (st = push_tok(tk, &n, g.s, ks, kind)) != CRFP_OK)
                    return st;
            }
            if ((st = push_tok(tk, &n, ks, ke, keep_kind(u, ks, ke))) != CRFP_OK)
                return st;
            pos = ke;
            k++;
            if (g.e > pos)
                i--;   /* the rest of this segment is looked at again */
            continue;
        }
        const char *kind = g.kind;
        if (!kind)
            continue;
        if (tk->merge_punct && n && (!strcmp(kind, "punctuation") || !strcmp(kind, "symbol")) &&
            continues_run(u, &tk->toks[n - 1], g.s, g.e)) {
            tk->toks[n - 1].e = g.e;
            pos = g.e;
            continue;
        }
        /* word + "." forming an abbreviation or initialism */
        if (tk->abbrev || tk->abbr.n) {
            if (g.e < n16 && u[g.e] == '.' && strcmp(kind, "word") == 0) {
                size_t len = 0;
                if ((st = utf8_of(tk, u, g.s, g.e + 1, &len)) != CRFP_OK)
                    return st;
                if (strset_has(&tk->abbr, tk->str, len) ||
                    (tk->abbrev && initialism(u, g.s, g.e))) {
                    if ((st = push_tok(tk, &n, g.s, g.e + 1, "word")) != CRFP_OK)
                        return st;
                    pos = g.e + 1;
                    continue;
                }
            }
        }
        /* clitics: the longest matching suffix of a word */
        if (tk->nclitics && strcmp(kind, "word") == 0) {
            int32_t best = 0;
            for (size_t c = 0; c < tk->nclitics; c++)
                if (tk->clitics[c].len > best && ends_with_clitic(u, g.s, g.e, &tk->clitics[c]))
                    best = tk->clitics[c].len;
            if (best) {
                if ((st = push_tok(tk, &n, g.s, g.e - best, "word")) != CRFP_OK ||
                    (st = push_tok(tk, &n, g.e - best, g.e, "word")) != CRFP_OK)
                    return st;
                pos = g.e;
                continue;
            }
        }
        if ((st = push_tok(tk, &n, g.s, g.e, kind)) != CRFP_OK)
            return st;
        pos = g.e;
    }
    *ntoks = n;
    return CRFP_OK;
}

static crfp_status tk_process(void *state, crfp_doc *doc)
{
    tokenizer *tk = state;
    crfp_host *host = tk->host;
    const char *docid = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    size_t n8;
    const char *text = crfp_doc_text(doc, &n8);
    if (n8 > (size_t)INT32_MAX / 2)
        return crfp_error(host, CRFP_EINVAL,
                          "document '%s': %zu bytes is more than ICU's break iterators take "
                          "(split the input: text_reader split=paragraph)", docid, n8);
    /* --- UTF-16 copy --- */
    UErrorCode err = U_ZERO_ERROR;
    int32_t n16 = 0;
    if ((size_t)tk->ucap < n8 + 1) {
        UChar *nu = realloc(tk->u, (n8 + 1) * sizeof *nu);
        if (!nu)
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        tk->u = nu;
        tk->ucap = (int32_t)(n8 + 1);
    }
    u_strFromUTF8(tk->u, tk->ucap, &n16, text, (int32_t)n8, &err);
    if (U_FAILURE(err))
        return crfp_error(host, CRFP_EUTF8, "document '%s': text is not UTF-8: %s", docid,
                          u_errorName(err));
    const UChar *u = tk->u;
    crfp_status st = CRFP_OK;
    /* --- keep matches --- */
    size_t nkeeps = 0;
    if (tk->nkeep && n16 && (st = keep_find(tk, docid, u, n16, &nkeeps)) != CRFP_OK)
        return st;
    /* --- word segments --- */
    size_t nsegs = 0;
    err = U_ZERO_ERROR;
    ubrk_setText(tk->wbi, u, n16, &err);
    if (U_FAILURE(err))
        return crfp_error(host, CRFP_EPLUGIN, "ICU word break: %s", u_errorName(err));
    for (int32_t a = ubrk_first(tk->wbi), b; (b = ubrk_next(tk->wbi)) != UBRK_DONE; a = b) {
        if (grow((void **)&tk->segs, &tk->capsegs, nsegs + 1, sizeof *tk->segs))
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        int32_t status = ubrk_getRuleStatus(tk->wbi);
        tk->segs[nsegs++] = (seg){a, b, status_kind(status, u, a, b)};
    }
    size_t ntoks = 0;
    if ((st = build_tokens(tk, u, n16, nsegs, nkeeps, &ntoks)) != CRFP_OK)
        return st;
    /* --- sentence boundaries --- */
    size_t nsb = 0;
    if (tk->sentences && ntoks) {
        const UChar *su = u;
        if (tk->wrapped) {
            /* a lone line break reads as a space; two or more (a blank
             * line) still end the sentence */
            if (tk->uscap < n16 + 1) {
                UChar *ns = realloc(tk->us, ((size_t)n16 + 1) * sizeof *ns);
                if (!ns)
                    return crfp_error(host, CRFP_ENOMEM, "out of memory");
                tk->us = ns;
                tk->uscap = n16 + 1;
            }
            memcpy(tk->us, u, (size_t)n16 * sizeof *u);
            for (int32_t i = 0; i < n16; i++) {
                if (u[i] != '\n' && u[i] != '\r')
                    continue;
                int32_t j = i + (u[i] == '\r' && i + 1 < n16 && u[i + 1] == '\n' ? 2 : 1);
                int32_t k = j;
                while (k < n16 && (u[k] == ' ' || u[k] == '\t'))
                    k++;
                int blank_after = k < n16 && (u[k] == '\n' || u[k] == '\r');
                int blank_before = i > 0 && (u[i - 1] == '\n');
                if (!blank_after && !blank_before)
                    for (int32_t m = i; m < j; m++)
                        tk->us[m] = ' ';
                i = j - 1;
            }
            su = tk->us;
        }
        err = U_ZERO_ERROR;
        ubrk_setText(tk->sbi, su, n16, &err);
        if (U_FAILURE(err))
            return crfp_error(host, CRFP_EPLUGIN, "ICU sentence break: %s", u_errorName(err));
        for (int32_t b = ubrk_first(tk->sbi); b != UBRK_DONE; b = ubrk_next(tk->sbi)) {
            if (grow((void **)&tk->sb, &tk->capsb, nsb + 1, sizeof *tk->sb))
                return crfp_error(host, CRFP_ENOMEM, "out of memory");
            tk->sb[nsb++] = b;
        }
    }
    /* --- offsets: UTF-16 -> bytes and the document's unit, one pass --- */
    if (grow((void **)&tk->off, &tk->capoff, 2 * ntoks + 1, sizeof *tk->off) ||
        grow((void **)&tk->boff, &tk->capboff, 2 * ntoks + 1, sizeof *tk->boff))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    size_t *boff = tk->boff;
    crfp_offset_unit unit = crfp_doc_offset_unit(doc);
    {
        int32_t p16 = 0;
        size_t p8 = 0, pcp = 0;
        for (size_t t = 0; t < 2 * ntoks; t++) {
            int32_t target = t % 2 ? tk->toks[t / 2].e : tk->toks[t / 2].s;
            while (p16 < target) {
                UChar32 c;
                U16_NEXT(u, p16, n16, c);
                p8 += (size_t)U8_LENGTH(c);
                pcp++;
            }
            boff[t] = p8;
            tk->off[t] = unit == CRFP_OFFSET_UTF16       ? (size_t)p16
                         : unit == CRFP_OFFSET_CODEPOINT ? pcp
                                                         : p8;
        }
    }
    /* --- annotations --- */
    crfp_annset *set = crfp_doc_annset(doc, tk->set, 1);
    if (!set)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    /* Sentences: tokens are assigned by their start; a sentence boundary
     * that file abbreviations suppress is skipped. */
    size_t t = 0, b = 1;
    char *str = NULL;
    size_t capstr = 0;
    while (t < ntoks && st == CRFP_OK) {
        size_t first = t;
        if (tk->sentences && nsb) {
            t = first + 1;
            for (;;) {
                /* the first boundary at or after the end of the last token
                 * taken: a boundary inside a token (a '?' in a URL) is none */
                while (b < nsb && tk->sb[b] < tk->toks[t - 1].e)
                    b++;
                int32_t limit = b < nsb ? tk->sb[b] : INT32_MAX;
                while (t < ntoks && tk->toks[t].s < limit)
                    t++;
                if (t < ntoks && tk->toks[t - 1].e > limit)
                    continue;
                /* an abbreviation from the file before the boundary: the
                 * sentence goes on */
                if (t < ntoks && tk->abbr_file.n) {
                    size_t len = boff[2 * (t - 1) + 1] - boff[2 * (t - 1)];
                    if (strset_has(&tk->abbr_file, text + boff[2 * (t - 1)], len)) {
                        b++;
                        continue;
                    }
                }
                break;
            }
            crfp_ann *sa;
            st = crfp_annset_add(host, doc, set, "Sentence", tk->off[2 * first],
                                 tk->off[2 * (t - 1) + 1], &sa);
        } else {
            t = ntoks;
        }
        for (size_t i = first; i < t && st == CRFP_OK; i++) {
            crfp_ann *a;
            st = crfp_annset_add(host, doc, set, "Token", tk->off[2 * i], tk->off[2 * i + 1], &a);
            if (st != CRFP_OK)
                break;
            size_t len = boff[2 * i + 1] - boff[2 * i];
            if (len + 1 > capstr) {
                char *ns = realloc(str, len + 1);
                if (!ns) {
                    st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                    break;
                }
                str = ns;
                capstr = len + 1;
            }
            memcpy(str, text + boff[2 * i], len);
            str[len] = '\0';
            st = crfp_ann_set_str(doc, a, tk->strfeat, str);
            if (st == CRFP_OK)
                st = crfp_ann_set_str(doc, a, tk->kindfeat, tk->toks[i].kind);
            if (st == CRFP_ENOMEM)
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        }
    }
    free(str);
    if (st == CRFP_OK)
        st = crfp_annset_add_processor(doc, set, "icu_tokenizer", "1.0", tk->pnames,
                                       (const char *const *)tk->pvalues, tk->np);
    if (st == CRFP_ENOMEM)
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
    return st;
}

static void tk_close(void *state)
{
    tokenizer *tk = state;
    if (!tk)
        return;
    if (tk->wbi)
        ubrk_close(tk->wbi);
    if (tk->sbi)
        ubrk_close(tk->sbi);
    for (size_t i = 0; i < tk->nkeep; i++)
        uregex_close(tk->keep[i]);
    free(tk->keep);
    strset_free(&tk->abbr);
    strset_free(&tk->abbr_file);
    for (size_t i = 0; i < tk->nclitics; i++)
        free(tk->clitics[i].u);
    free(tk->clitics);
    for (size_t i = 0; i < tk->np; i++)
        free(tk->pvalues[i]);
    free(tk->set);
    free(tk->strfeat);
    free(tk->kindfeat);
    free(tk->u);
    free(tk->us);
    free(tk->segs);
    free(tk->toks);
    free(tk->keeps);
    free(tk->sb);
    free(tk->off);
    free(tk->boff);
    free(tk->str);
    free(tk);
}

static const crfp_tokenizer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_tokenizer_vtable),
    .open = tk_open,
    .process = tk_process,
    .close = tk_close,
};

CRFP_PLUGIN_DEFINE(icu_tokenizer) = {
    CRFP_PLUGIN_ABI,
    .name = "icu_tokenizer",
    .kind = CRFP_KIND_TOKENIZER,
    .version = "1.0",
    .description = "ICU break iterators: Sentence and Token annotations (string, kind)",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
