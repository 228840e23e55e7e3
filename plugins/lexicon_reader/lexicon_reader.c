/* lexicon_reader — pronunciation lexicons to documents, for grapheme-to-
 * phoneme work.
 *
 * Formats (parameter `format`, or guessed from the first entry):
 *   cmudict  `word P1 P2 ...`, variants `word(2)`, `#` comments (whole line
 *            or trailing), stress digits kept or stripped (`stress`);
 *   nettalk  NETtalk's letter-aligned `word<TAB>phonemes<TAB>stress<TAB>flag`
 *            with its free-text header; `-` is the null phoneme;
 *   tsv      `word<TAB>P1 P2 ...` (repeated words are variants);
 *   words    whitespace-separated words, no pronunciation (input to tag).
 *
 * Each document holds a block of `block` entries.  Its text is the words,
 * one per line; each entry is a Sentence annotation over its word with the
 * features
 *   word      the headword (without the `(2)` variant mark)
 *   variant   1, 2, ... (INT), the pronunciation's rank for this word
 *   phonemes  the pronunciation, symbols separated by single spaces
 *   aligned   (nettalk) the gold alignment: one symbol per letter, `_` for
 *             the null phoneme, space-separated
 * The graphemes tokenizer then adds the Tokens.  Errors name the file and
 * line.  Lines are read by plugins/common/colio: one over the host's `line`
 * limit, a NUL byte or invalid UTF-8 is an error; control characters
 * separate phonemes like blanks; NETtalk's letters and symbols must be
 * printable ASCII (its alignment is one byte per letter). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/colio.h"
#include "lexdoc.h"

static const crfp_param_spec params[] = {
    {"format", CRFP_PARAM_STRING, "auto", "auto, cmudict, nettalk, tsv or words"},
    {"stress", CRFP_PARAM_BOOL, "true",
     "keep the stress digits of CMUdict vowels (AH0, EY1); false strips them"},
    {"block", CRFP_PARAM_INT, "64", "entries per document (>= 1)"},
    {"variants", CRFP_PARAM_BOOL, "true", "keep alternative pronunciations (word(2) ...)"},
};

enum { F_AUTO, F_CMUDICT, F_NETTALK, F_TSV, F_WORDS };

typedef struct lexreader {
    crfp_host *host;
    crfp_stream *in;
    int format, stress, variants;
    int64_t block;
    colio_lines L;     /* the current line: L.line, L.lineno */
    int header_done;   /* nettalk: past the free-text header */
    int eof;
    unsigned long ndocs;
    char *lastword;    /* tsv: for counting variants */
    int lastvariant;
    /* pending words of a 'words' line (one line may hold more than a block) */
    char *pending;
    size_t pendoff;
} lexreader;

static void lr_close(void *state)
{
    lexreader *r = state;
    if (!r)
        return;
    colio_lines_free(&r->L);
    free(r->lastword);
    free(r->pending);
    free(r);
}

static int parse_format(const char *s)
{
    if (strcmp(s, "auto") == 0) return F_AUTO;
    if (strcmp(s, "cmudict") == 0) return F_CMUDICT;
    if (strcmp(s, "nettalk") == 0) return F_NETTALK;
    if (strcmp(s, "tsv") == 0) return F_TSV;
    if (strcmp(s, "words") == 0) return F_WORDS;
    return -1;
}

/* Which format a data line suggests (see the top of the file). */
static int guess_line(const char *l)
{
    if (strstr(l, "NetTalk Corpus"))
        return F_NETTALK;
    const char *tab = strchr(l, '\t');
    if (tab) {
        const char *tab2 = strchr(tab + 1, '\t');
        size_t wl = (size_t)(tab - l);
        if (tab2 && (size_t)(tab2 - tab - 1) == wl)
            return F_NETTALK;
        return F_TSV;
    }
    const char *sp = strchr(l, ' ');
    if (!sp)
        return F_WORDS;
    /* CMUdict: every field after the first is an upper-case symbol */
    for (const char *p = sp; *p; p++)
        if (!(*p == ' ' || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return *p == '#' ? F_CMUDICT : F_WORDS;
    return F_CMUDICT;
}

/* Whether a line's headword looks like a dictionary word: no digits but in
 * a trailing variant mark "(2)".  Column corpora often have tokens such as
 * "w12" or "1990", and their tags are upper-case symbols like phonemes. */
static int probe_headword_ok(const char *l)
{
    size_t n = strcspn(l, " \t");
    if (n == 0)
        return 0;
    const char *paren = memchr(l, '(', n);
    size_t end = paren ? (size_t)(paren - l) : n;
    for (size_t i = 0; i < end; i++)
        if (l[i] >= '0' && l[i] <= '9')
            return 0;
    return 1;
}

static int lr_probe(const char *head, size_t len)
{
    /* A lexicon is one entry per line with no blank lines; column corpora
     * (CoNLL, whose token lines can look like "word P1 P2") separate their
     * sentences by blank lines.  So: the first non-comment lines (up to 20)
     * must all be entries of one lexicon format, and no blank line may
     * appear among them. */
    char buf[512];
    int fmt = -1, lines = 0;
    size_t i = 0;
    while (i < len && lines < 20) {
        size_t j = i;
        while (j < len && head[j] != '\n')
            j++;
        if (j == len && len >= 65536)
            break; /* a line cut by the end of the head */
        size_t e = j > i && head[j - 1] == '\r' ? j - 1 : j;
        if (e == i) {
            if (j < len)
                return 0; /* blank line: sentences, not entries */
        } else if (head[i] != '#' && head[i] != ';') {
            size_t n = e - i < sizeof buf - 1 ? e - i : sizeof buf - 1;
            memcpy(buf, head + i, n);
            buf[n] = '\0';
            if (strstr(buf, "NetTalk Corpus"))
                return 100;
            int g = guess_line(buf);
            if ((g != F_CMUDICT && g != F_NETTALK) || (fmt >= 0 && g != fmt) ||
                !probe_headword_ok(buf))
                return 0; /* tsv and plain words: only when asked for */
            fmt = g;
            lines++;
        }
        i = j + 1;
    }
    /* A CoNLL sentence can be longer than 20 tokens, so look for a blank
     * line between two non-blank ones in the rest of the head too: a
     * two-column tagged corpus ("From ADP") reads like CMUdict entries. */
    for (int blank = 0; fmt >= 0 && i < len;) {
        size_t j = i;
        while (j < len && head[j] != '\n')
            j++;
        size_t e = j > i && head[j - 1] == '\r' ? j - 1 : j;
        if (e == i)
            blank = 1;
        else if (blank)
            return 0;
        i = j + 1;
    }
    if (fmt == F_CMUDICT)
        return 70;
    if (fmt == F_NETTALK)
        return 60;
    return 0;
}

static crfp_status lr_open(crfp_host *host, const crfp_params *p, crfp_stream *in, void **state)
{
    int f = parse_format(crfp_params_str(p, "format"));
    if (f < 0)
        return crfp_error(host, CRFP_EINVAL, "parameter 'format': '%s' is not auto, cmudict, "
                          "nettalk, tsv or words", crfp_params_str(p, "format"));
    int64_t block = crfp_params_int(p, "block");
    if (block < 1)
        return crfp_error(host, CRFP_EINVAL, "parameter 'block' must be >= 1");
    lexreader *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    r->host = host;
    r->in = in;
    r->L.host = host;
    r->L.in = in;
    r->format = f;
    r->block = block;
    r->stress = crfp_params_bool(p, "stress");
    r->variants = crfp_params_bool(p, "variants");
    *state = r;
    return CRFP_OK;
}

/* One entry before it becomes a Sentence. */
typedef struct entry {
    size_t wstart, wend;      /* byte span of the word in the text */
    char *word;               /* headword, malloc'd */
    int variant;
    char *phonemes, *aligned; /* malloc'd or NULL */
} entry;

static void entries_free(entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(e[i].word);
        free(e[i].phonemes);
        free(e[i].aligned);
    }
}

/* Strip trailing white space (and a CR). */
static void rtrim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

/* Whether s is all printable ASCII, blanks excluded: NETtalk's letters and
 * phoneme symbols, one byte each. */
static int all_symbols(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
            return 0;
    return 1;
}

/* A byte that separates phonemes: a blank or any other ASCII control
 * character (a lone CR inside a line, a form feed), which can be no part
 * of a phoneme symbol. */
static int phoneme_sep(char c)
{
    return (unsigned char)c <= ' ' || c == 0x7f;
}

/* Space-separated phonemes of `src` (runs of separators collapse), stress
 * digits stripped when !stress.  malloc'd; NULL on ENOMEM. */
static char *norm_phonemes(const char *src, int stress)
{
    size_t n = strlen(src);
    char *o = malloc(n + 1), *q = o;
    if (!o)
        return NULL;
    const char *p = src;
    while (*p) {
        while (*p && phoneme_sep(*p))
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && !phoneme_sep(*e))
            e++;
        size_t l = (size_t)(e - p);
        if (!stress)
            while (l > 1 && p[l - 1] >= '0' && p[l - 1] <= '9')
                l--;
        if (q != o)
            *q++ = ' ';
        memcpy(q, p, l);
        q += l;
        p = e;
    }
    *q = '\0';
    return o;
}

/* Parse the current line into *e (word appended to text).  Returns 1 when
 * the line held an entry, 0 when it is to be skipped, -1 on error (message
 * recorded). */
static int parse_line(lexreader *r, char *l, lex_sbuf *text, entry *e, crfp_status *st)
{
    const char *fname = r->in->name;
    memset(e, 0, sizeof *e);
    if (r->format == F_NETTALK && !r->header_done) {
        /* the header is free text; data starts with the first line whose
         * word and phoneme fields have the same length */
        char *t1 = strchr(l, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t1 || t1 == l || (t2 ? (size_t)(t2 - t1 - 1) : strlen(t1 + 1)) != (size_t)(t1 - l) ||
            !islower((unsigned char)l[0]))
            return 0;
        r->header_done = 1;
    }
    if (r->format != F_NETTALK) {
        /* comments: whole-line `#` or `;;;`, or trailing ` # ...` in CMUdict */
        if (l[0] == '#' || (l[0] == ';' && l[1] == ';'))
            return 0;
        if (r->format == F_CMUDICT) {
            char *h = strstr(l, " #");
            if (h)
                *h = '\0';
        }
        rtrim(l);
    }
    if (!*l)
        return 0;
    char *word = l, *rest;
    if (r->format == F_CMUDICT) {
        rest = strchr(l, ' ');
        if (!rest) {
            *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: CMUdict entry '%s' has no "
                             "phonemes (expected 'word P1 P2 ...')", fname, r->L.lineno, l);
            return -1;
        }
        *rest++ = '\0';
        e->variant = 1;
        size_t wl = strlen(word);
        if (wl > 3 && word[wl - 1] == ')') {
            char *par = strrchr(word, '(');
            char *end;
            errno = 0;
            long v = par && par > word ? strtol(par + 1, &end, 10) : 0;
            if (!par || par == word || v < 1 || v > INT_MAX || errno || end != word + wl - 1) {
                *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: bad variant mark in '%s' "
                                 "(expected word(2), word(3) ...)", fname, r->L.lineno, word);
                return -1;
            }
            *par = '\0';
            e->variant = (int)v;
        }
        if (!(e->phonemes = norm_phonemes(rest, r->stress)))
            goto nomem;
        if (!*e->phonemes) {
            *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: CMUdict entry '%s' has no "
                             "phonemes", fname, r->L.lineno, word);
            return -1;
        }
    } else if (r->format == F_NETTALK) {
        char *t1 = strchr(l, '\t');
        if (!t1) {
            *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: NETtalk entry without a TAB "
                             "(expected word<TAB>phonemes<TAB>stress<TAB>flag)", fname, r->L.lineno);
            return -1;
        }
        *t1 = '\0';
        char *ph = t1 + 1, *t2 = strchr(ph, '\t');
        if (t2)
            *t2 = '\0';
        rtrim(ph);
        size_t wl = strlen(word);
        /* one symbol per letter is one byte per letter: the alignment
         * would cut a multi-byte character in two, and a blank or a control
         * character would be no symbol */
        if (!*word) {
            *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: NETtalk entry with an empty word",
                             fname, r->L.lineno);
            return -1;
        }
        if (!all_symbols(word) || !all_symbols(ph)) {
            *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: NETtalk entry '%s': a letter or "
                             "phoneme that is not printable ASCII (NETtalk's symbols are one "
                             "ASCII character each)", fname, r->L.lineno, word);
            return -1;
        }
        if (strlen(ph) != wl) {
            *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: NETtalk entry '%s': %zu letters but "
                             "%zu phoneme symbols (they must be letter-aligned)", fname, r->L.lineno,
                             word, wl, strlen(ph));
            return -1;
        }
        e->variant = 1;
        if (!(e->phonemes = malloc(2 * wl + 1)) || !(e->aligned = malloc(2 * wl + 1)))
            goto nomem;
        char *p = e->phonemes, *a = e->aligned;
        for (size_t i = 0; i < wl; i++) {
            if (ph[i] != '-') {
                if (p != e->phonemes)
                    *p++ = ' ';
                *p++ = ph[i];
            }
            if (i)
                *a++ = ' ';
            *a++ = ph[i] == '-' ? '_' : ph[i];
        }
        *p = *a = '\0';
        if (!*e->phonemes) {
            /* as for CMUdict and TSV: an entry without a pronunciation */
            *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: NETtalk entry '%s' has no phonemes "
                             "(every letter is '-')", fname, r->L.lineno, word);
            return -1;
        }
    } else if (r->format == F_TSV) {
        char *t1 = strchr(l, '\t');
        if (!t1) {
            *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: no TAB (expected "
                             "word<TAB>phonemes)", fname, r->L.lineno);
            return -1;
        }
        *t1 = '\0';
        if (!(e->phonemes = norm_phonemes(t1 + 1, r->stress)))
            goto nomem;
        if (!*word || !*e->phonemes) {
            *st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: empty word or pronunciation",
                             fname, r->L.lineno);
            return -1;
        }
        e->variant = r->lastword && strcmp(r->lastword, word) == 0 ? r->lastvariant + 1 : 1;
        free(r->lastword);
        if (!(r->lastword = strdup(word)))
            goto nomem;
        r->lastvariant = e->variant;
    } else {
        e->variant = 1;   /* words: handled by the caller */
    }
    if (e->variant > 1 && !r->variants) {
        free(e->phonemes);
        free(e->aligned);
        memset(e, 0, sizeof *e);
        return 0;
    }
    if (!(e->word = strdup(word)))
        goto nomem;
    if (text->n && !lex_sb_add(text, "\n", 1))
        goto nomem;
    e->wstart = text->n;
    if (!lex_sb_add(text, word, strlen(word)))
        goto nomem;
    e->wend = text->n;
    return 1;
nomem:
    *st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
    return -1;
}

/* The next line in r->L (NUL-terminated, without its line end): 1, or 0
 * at the end of the input, or -1 with the error in *st (a line over the
 * `line` limit, a NUL byte, invalid UTF-8, a read error: all name
 * file:line).  What a line holds is copied out before the next is read, so
 * the lines consumed can go (colio_discard_consumed). */
static int read_line(lexreader *r, crfp_status *st)
{
    int got;
    colio_discard_consumed(&r->L);
    *st = colio_next(&r->L, &got);
    return *st != CRFP_OK ? -1 : got;
}

static crfp_status lr_next(void *state, crfp_doc **out)
{
    lexreader *r = state;
    *out = NULL;
    lex_sbuf text = {0};
    entry *ents = NULL;
    size_t n = 0, cap = 0;
    crfp_status st = CRFP_OK;
    while (n < (size_t)r->block) {
        if (r->format == F_WORDS && r->pending && r->pending[r->pendoff]) {
            /* next word of the pending line */
            char *p = r->pending + r->pendoff;
            while (*p && isspace((unsigned char)*p))
                p++;
            char *e = p;
            while (*e && !isspace((unsigned char)*e))
                e++;
            r->pendoff = (size_t)(e - r->pending);
            if (e == p)
                continue;
            if (!lex_grow((void **)&ents, &cap, n, sizeof *ents)) {
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                goto done;
            }
            entry *en = &ents[n];
            memset(en, 0, sizeof *en);
            en->variant = 1;
            if (!(en->word = strndup(p, (size_t)(e - p))) ||
                (text.n && !lex_sb_add(&text, "\n", 1))) {
                free(en->word);
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                goto done;
            }
            en->wstart = text.n;
            if (!lex_sb_add(&text, p, (size_t)(e - p))) {
                free(en->word);
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                goto done;
            }
            en->wend = text.n;
            n++;
            continue;
        }
        if (r->eof)
            break;
        int got = read_line(r, &st);
        if (got < 0)
            goto done;
        if (!got) {
            r->eof = 1;
            break;
        }
        if (r->format == F_AUTO) {
            char tmp[512];
            snprintf(tmp, sizeof tmp, "%s", r->L.line);
            rtrim(tmp);
            if (!tmp[0] || tmp[0] == '#' || (tmp[0] == ';' && tmp[1] == ';'))
                continue;
            r->format = guess_line(tmp);
        }
        if (r->format == F_WORDS) {
            free(r->pending);
            if (!(r->pending = strdup(r->L.line))) {
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                goto done;
            }
            r->pendoff = 0;
            continue;
        }
        if (!lex_grow((void **)&ents, &cap, n, sizeof *ents)) {
            st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
            goto done;
        }
        int k = parse_line(r, r->L.line, &text, &ents[n], &st);
        if (k < 0) {
            entries_free(&ents[n], 1);
            goto done;
        }
        n += (size_t)k;
    }
    if (n == 0)
        goto done;
    static const char *const fnames[] = {"auto", "cmudict", "nettalk", "tsv", "words"};
    crfp_doc *doc = NULL;
    crfp_annset *set = NULL;
    if ((st = lex_doc(r->host, "lexicon", ++r->ndocs, &text, "lexicon", "lexicon-format",
                      fnames[r->format], &doc, &set)) != CRFP_OK)
        goto done;
    for (size_t i = 0; i < n; i++) {
        size_t s, e;
        crfp_ann *a;
        if ((st = crfp_doc_from_byte(doc, ents[i].wstart, &s)) != CRFP_OK ||
            (st = crfp_doc_from_byte(doc, ents[i].wend, &e)) != CRFP_OK ||
            (st = crfp_annset_add(r->host, doc, set, "Sentence", s, e, &a)) != CRFP_OK ||
            (st = crfp_ann_set_str(doc, a, "word", ents[i].word)) != CRFP_OK ||
            (st = crfp_ann_set_int(doc, a, "variant", ents[i].variant)) != CRFP_OK ||
            (ents[i].phonemes &&
             (st = crfp_ann_set_str(doc, a, "phonemes", ents[i].phonemes)) != CRFP_OK) ||
            (ents[i].aligned &&
             (st = crfp_ann_set_str(doc, a, "aligned", ents[i].aligned)) != CRFP_OK))
            goto fail;
    }
    *out = doc;
    goto done;
fail:
    crfp_doc_free(doc);
    if (st == CRFP_OK)
        st = CRFP_ENOMEM;
    /* the feature setters record no message of their own */
    if (!crfp_errmsg(r->host)[0])
        st = crfp_error(r->host, st, "%s: the entries up to line %lu: %s", r->in->name,
                        r->L.lineno, crfp_status_str(st));
done:
    entries_free(ents, n);
    free(ents);
    free(text.s);
    return st;
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = lr_open,
    .next = lr_next,
    .close = lr_close,
    .probe = lr_probe,
};

static const char *const formats[] = {"lexicon", "cmudict", "nettalk", "words", NULL};
static const char *const extensions[] = {".dict", ".lex", ".words", NULL};

CRFP_PLUGIN_DEFINE(lexicon_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "lexicon_reader",
    .kind = CRFP_KIND_READER,
    .version = "1.0",
    .description = "pronunciation lexicons (CMUdict, NETtalk, word<TAB>phonemes) and word lists",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
