/* nettalk_reader — NETtalk's letter-aligned dictionary as letter sequences,
 * one Sentence per word and one Token per letter, for training a tagger
 * that predicts each letter's phoneme (Lavergne et al. 2010, §5.1.1).
 *
 * Input: a free-text header of `header` lines (10 in the distributed
 * file), then one entry per line, `word<TAB>phonemes<TAB>stress<TAB>flag`,
 * the three strings letter-aligned (one ASCII symbol per letter; `-` is
 * the null phoneme).  An entry whose strings differ in length, or that
 * lacks a field, is skipped with a warning naming the file and line
 * (`malformed=skip`, the default: the distributed file has one such entry)
 * or stops the reader (`malformed=error`).  A line over the host's `line`
 * limit, a NUL byte or invalid UTF-8 always stops it (plugins/common/colio).
 *
 * Each Token has the features `letter`, `phone` and `stress` (in that
 * order, the document's `columns`); each Sentence `word` and `flag`.
 *
 * Folds: entries are numbered by headword in file order, the entries of a
 * heteronym (the same spelling on consecutive lines) sharing a number k, so
 * that a spelling never lands in two parts.  Headword k belongs to fold
 * k % folds.  With part=test the reader keeps fold `fold`, with part=dev
 * fold (fold+1) % folds, with part=train the other folds - eight of ten,
 * the protocol of the paper's cross-validation - and with part=all every
 * entry.  Malformed entries are numbered like the others, so skipping them
 * does not move any word to another fold. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/colio.h"
#include "../lexicon_reader/lexdoc.h"

static const crfp_param_spec params[] = {
    {"part", CRFP_PARAM_STRING, "all", "all, train, dev or test (see fold, folds)"},
    {"fold", CRFP_PARAM_INT, "0", "test fold (0 .. folds-1); dev is the next fold"},
    {"folds", CRFP_PARAM_INT, "10", "number of folds (>= 3 for train/dev/test)"},
    {"header", CRFP_PARAM_INT, "10", "free-text header lines to skip before the entries"},
    {"malformed", CRFP_PARAM_STRING, "skip",
     "skip (with a warning naming the line) or error: entries whose strings are not aligned"},
    {"block", CRFP_PARAM_INT, "256", "words per document (>= 1)"},
};

enum { P_ALL, P_TRAIN, P_DEV, P_TEST };

typedef struct ntreader {
    crfp_host *host;
    crfp_stream *in;
    int part, strict;
    int64_t fold, folds, header, block;
    colio_lines L;      /* the current line: L.line, L.lineno */
    char *lastword;     /* spelling of the previous entry, for heteronyms */
    int64_t k;          /* headword number of the previous entry, -1 first */
    unsigned long ndocs;
    int eof;
} ntreader;

static void nt_close(void *state)
{
    ntreader *r = state;
    if (!r)
        return;
    colio_lines_free(&r->L);
    free(r->lastword);
    free(r);
}

static crfp_status nt_open(crfp_host *host, const crfp_params *p, crfp_stream *in, void **state)
{
    const char *part = crfp_params_str(p, "part"), *mal = crfp_params_str(p, "malformed");
    int pt = strcmp(part, "all") == 0     ? P_ALL
             : strcmp(part, "train") == 0 ? P_TRAIN
             : strcmp(part, "dev") == 0   ? P_DEV
             : strcmp(part, "test") == 0  ? P_TEST
                                          : -1;
    if (pt < 0)
        return crfp_error(host, CRFP_EINVAL,
                          "parameter 'part': '%s' is not all, train, dev or test", part);
    if (strcmp(mal, "skip") != 0 && strcmp(mal, "error") != 0)
        return crfp_error(host, CRFP_EINVAL, "parameter 'malformed': '%s' is not skip or error",
                          mal);
    int64_t folds = crfp_params_int(p, "folds"), fold = crfp_params_int(p, "fold");
    /* train, dev and test must be three different, non-empty sets of folds */
    if (folds < 3 || folds > 1000000)
        return crfp_error(host, CRFP_EINVAL, "parameter 'folds' must be 3 .. 1000000");
    if (fold < 0 || fold >= folds)
        return crfp_error(host, CRFP_EINVAL, "parameter 'fold' must be 0 .. %lld",
                          (long long)(folds - 1));
    int64_t header = crfp_params_int(p, "header"), block = crfp_params_int(p, "block");
    if (header < 0)
        return crfp_error(host, CRFP_EINVAL, "parameter 'header' must be >= 0");
    if (block < 1)
        return crfp_error(host, CRFP_EINVAL, "parameter 'block' must be >= 1");
    ntreader *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    r->host = host;
    r->in = in;
    r->L.host = host;
    r->L.in = in;
    r->part = pt;
    r->strict = strcmp(mal, "error") == 0;
    r->fold = fold;
    r->folds = folds;
    r->header = header;
    r->block = block;
    r->k = -1;
    *state = r;
    return CRFP_OK;
}

/* Whether headword number k belongs to the selected part. */
static int selected(const ntreader *r, int64_t k)
{
    int64_t f = k % r->folds;
    switch (r->part) {
    case P_TEST:
        return f == r->fold;
    case P_DEV:
        return f == (r->fold + 1) % r->folds;
    case P_TRAIN:
        return f != r->fold && f != (r->fold + 1) % r->folds;
    default:
        return 1;
    }
}

/* One parsed entry; the strings point into the reader's line buffer copy. */
typedef struct entry {
    char *word, *phon, *stress, *flag;
    size_t len;
} entry;

/* Split `l` (modified in place) into its four fields.  Returns NULL when
 * the entry is well formed, else a static description of what is wrong. */
static const char *split_entry(char *l, entry *e)
{
    size_t n = strlen(l);
    while (n > 0 && (l[n - 1] == '\n' || l[n - 1] == '\r'))
        l[--n] = '\0';
    char *f[4] = {l, NULL, NULL, NULL};
    for (int i = 1; i < 4; i++) {
        char *t = strchr(f[i - 1], '\t');
        if (!t)
            return "fewer than 4 TAB-separated fields";
        *t = '\0';
        f[i] = t + 1;
    }
    /* the flag: one field, trailing blanks allowed (three entries have one) */
    size_t fl = strlen(f[3]);
    while (fl > 0 && (f[3][fl - 1] == ' ' || f[3][fl - 1] == '\t'))
        f[3][--fl] = '\0';
    e->word = f[0];
    e->phon = f[1];
    e->stress = f[2];
    e->flag = f[3];
    e->len = strlen(f[0]);
    if (e->len == 0)
        return "empty word";
    if (strlen(f[1]) != e->len || strlen(f[2]) != e->len)
        return "word, phonemes and stress are not letter-aligned";
    for (size_t i = 0; i < e->len; i++)
        if ((unsigned char)f[0][i] <= ' ' || (unsigned char)f[0][i] >= 0x80 ||
            (unsigned char)f[1][i] <= ' ' || (unsigned char)f[1][i] >= 0x80 ||
            (unsigned char)f[2][i] <= ' ' || (unsigned char)f[2][i] >= 0x80)
            return "a symbol that is not printable ASCII";
    if (fl == 0)
        return "empty flag field";
    return NULL;
}

/* The kept entries of one document: the word text is in the document text,
 * the aligned phoneme and stress strings here (NUL-separated). */
typedef struct kept {
    size_t start, len;  /* byte span of the word in the text */
    size_t aux;         /* offset in aux buffer: phon NUL stress NUL flag NUL */
} kept;

static crfp_status nt_next(void *state, crfp_doc **out)
{
    ntreader *r = state;
    *out = NULL;
    lex_sbuf text = {0}, aux = {0};
    kept *ks = NULL;
    size_t n = 0, cap = 0;
    crfp_status st = CRFP_OK;
    const char *fname = r->in->name ? r->in->name : "input";
    while (!r->eof && n < (size_t)r->block) {
        /* a line over the `line` limit, a NUL byte or invalid UTF-8 is an
         * error naming file:line (colio); what an entry keeps is copied,
         * so the lines consumed can go */
        int got;
        colio_discard_consumed(&r->L);
        if ((st = colio_next(&r->L, &got)) != CRFP_OK)
            goto done;
        if (!got) {
            r->eof = 1;
            break;
        }
        if ((int64_t)r->L.lineno <= r->header)
            continue;
        entry e = {0};
        const char *bad = split_entry(r->L.line, &e);
        /* The headword number: the word field is known even in most
         * malformed entries; a new spelling starts a new number. */
        if (!r->lastword || strcmp(r->lastword, r->L.line) != 0) {
            r->k++;
            free(r->lastword);
            if (!(r->lastword = strdup(r->L.line))) {
                st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
                goto done;
            }
        }
        if (bad) {
            if (r->strict) {
                st = crfp_error(r->host, CRFP_EPARSE, "%s:%lu: malformed NETtalk entry '%s': %s "
                                "(expected word<TAB>phonemes<TAB>stress<TAB>flag)", fname,
                                r->L.lineno, r->L.line, bad);
                goto done;
            }
            crfp_log(r->host, CRFP_LOG_WARN, "%s:%lu: malformed NETtalk entry '%s' skipped: %s",
                     fname, r->L.lineno, r->L.line, bad);
            continue;
        }
        if (!selected(r, r->k))
            continue;
        if (!lex_grow((void **)&ks, &cap, n, sizeof *ks)) {
            st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
            goto done;
        }
        ks[n].start = text.n;
        ks[n].len = e.len;
        ks[n].aux = aux.n;
        if (!lex_sb_add(&text, e.word, e.len) || !lex_sb_add(&text, "\n", 1) ||
            !lex_sb_add(&aux, e.phon, e.len + 1) || !lex_sb_add(&aux, e.stress, e.len + 1) ||
            !lex_sb_add(&aux, e.flag, strlen(e.flag) + 1)) {
            st = crfp_error(r->host, CRFP_ENOMEM, "out of memory");
            goto done;
        }
        n++;
    }
    if (n == 0)
        goto done;
    crfp_doc *doc = NULL;
    crfp_annset *set = NULL;
    if ((st = lex_doc(r->host, "nettalk", ++r->ndocs, &text, "nettalk-letters", "columns",
                      "letter,phone,stress", &doc, &set)) != CRFP_OK)
        goto done;
    static const char *const names[] = {"letter", "phone", "stress"};
    for (size_t i = 0; i < n; i++) {
        const char *ph = aux.s + ks[i].aux, *sx = ph + ks[i].len + 1, *fl = sx + ks[i].len + 1;
        size_t s, e;
        crfp_ann *a;
        /* The text is ASCII, so byte offsets are character offsets; the
         * conversion is kept so that the spans stay right if that changes. */
        if ((st = crfp_doc_from_byte(doc, ks[i].start, &s)) != CRFP_OK ||
            (st = crfp_doc_from_byte(doc, ks[i].start + ks[i].len, &e)) != CRFP_OK ||
            (st = crfp_annset_add(r->host, doc, set, "Sentence", s, e, &a)) != CRFP_OK ||
            (st = crfp_ann_set_str(doc, a, "flag", fl)) != CRFP_OK)
            goto fail;
        for (size_t j = 0; j < ks[i].len; j++) {
            char v[3][2] = {{text.s[ks[i].start + j], 0}, {ph[j], 0}, {sx[j], 0}};
            if ((st = crfp_doc_from_byte(doc, ks[i].start + j, &s)) != CRFP_OK ||
                (st = crfp_annset_add(r->host, doc, set, "Token", s, s + 1, &a)) != CRFP_OK)
                goto fail;
            for (int c = 0; c < 3; c++)
                if ((st = crfp_ann_set_str(doc, a, names[c], v[c])) != CRFP_OK)
                    goto fail;
        }
    }
    *out = doc;
    goto done;
fail:
    crfp_doc_free(doc);
    if (st == CRFP_OK)
        st = CRFP_ENOMEM;
    /* the feature setters record no message of their own */
    if (!crfp_errmsg(r->host)[0])
        st = crfp_error(r->host, st, "%s: the entries up to line %lu: %s", fname, r->L.lineno,
                        crfp_status_str(st));
done:
    free(ks);
    free(text.s);
    free(aux.s);
    return st;
}

/* The distributed file's header names the corpus; nothing else is claimed
 * (the lexicon_reader reads the same file as a lexicon when asked to). */
static int nt_probe(const char *head, size_t len)
{
    size_t n = len < 200 ? len : 200;
    for (size_t i = 0; i + 14 <= n; i++)
        if (memcmp(head + i, "NetTalk Corpus", 14) == 0)
            return 50;
    return 0;
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = nt_open,
    .next = nt_next,
    .close = nt_close,
    .probe = nt_probe,
};

static const char *const formats[] = {"nettalk-letters", NULL};

CRFP_PLUGIN_DEFINE(nettalk_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "nettalk_reader",
    .kind = CRFP_KIND_READER,
    .version = "1.0",
    .description = "NETtalk letter-aligned dictionary: one sentence per word, one token per "
                   "letter (letter, phone, stress), with a deterministic fold split",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
};
