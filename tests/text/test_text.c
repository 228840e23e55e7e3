/* Tests of text_reader and icu_tokenizer, loaded through the host as real
 * modules.
 *
 * text_reader: the text is the input byte for byte (CRLF, tabs, Unicode;
 * only a BOM is taken off), per file, line or paragraph, and leader +
 * texts + trailers rebuild the input exactly; invalid UTF-8 and NUL bytes
 * are errors naming the line and byte; NFC/NFKC normalisation records the
 * stretches it changed; max-bytes; empty input.
 *
 * icu_tokenizer: on text in English, German, French, Spanish, Russian,
 * Greek, Arabic, Hindi, Chinese, Japanese and on emoji sequences, in each
 * offset unit, every token's text slice equals its `string` feature, no
 * token holds white space, tokens are in order and do not overlap, and
 * every Sentence spans exactly its tokens; then the kinds, clitics,
 * abbreviations (ICU's list and a file), the keep pattern, runs of
 * punctuation, custom break rules (and their errors), wrapped lines.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../testcheck.h"

static crfp_host *host;

/* --- helpers ------------------------------------------------------------------ */

typedef struct kv {
    const char *name, *value;
} kv;

static crfp_params *params_for(const crfp_plugin *pl, const kv *p)
{
    crfp_params *ps = crfp_params_new(pl->desc->params, pl->desc->nparams);
    for (; ps && p && p->name; p++)
        if (crfp_params_set(host, ps, "test", p->name, p->value, NULL) != CRFP_OK) {
            fprintf(stderr, "param %s: %s\n", p->name, crfp_errmsg(host));
            exit(1);
        }
    return ps;
}

/* Read every document of `input` (len bytes) with text_reader and the
 * given parameters.  Returns the status of the first failure (the message
 * is in the host); *docs and *n receive the documents read until then. */
static crfp_status read_all(const char *input, size_t len, const kv *p, crfp_doc ***docs,
                            size_t *n)
{
    const crfp_plugin *pl;
    if (crfp_host_load(host, "text_reader", &pl) != CRFP_OK) {
        fprintf(stderr, "%s\n", crfp_errmsg(host));
        exit(1);
    }
    const crfp_reader_vtable *rv = pl->desc->vtable;
    crfp_params *ps = params_for(pl, p);
    /* fmemopen cannot open an empty buffer for reading everywhere */
    FILE *fp = len ? fmemopen((void *)input, len, "rb") : fopen("/dev/null", "rb");
    crfp_stream in = {fp, "in.txt"};
    void *st = NULL;
    *docs = NULL;
    *n = 0;
    crfp_status s = rv->open(host, ps, &in, &st);
    while (s == CRFP_OK) {
        crfp_doc *d = NULL;
        s = rv->next(st, &d);
        if (s != CRFP_OK || !d)
            break;
        *docs = realloc(*docs, (*n + 1) * sizeof **docs);
        (*docs)[(*n)++] = d;
    }
    if (st)
        rv->close(st);
    fclose(fp);
    crfp_params_free(ps);
    return s;
}

static void free_docs(crfp_doc **docs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        crfp_doc_free(docs[i]);
    free(docs);
}

static const char *meta_s(const crfp_doc *d, const char *name)
{
    const char *s = crfp_doc_meta_str(d, name);
    return s ? s : "";
}

/* leader + Σ (text + trailer) */
static char *rebuild(crfp_doc **docs, size_t n, size_t *len)
{
    size_t cap = 1;
    for (size_t i = 0; i < n; i++) {
        size_t tl;
        crfp_doc_text(docs[i], &tl);
        cap += tl + strlen(meta_s(docs[i], "trailer")) + strlen(meta_s(docs[i], "leader"));
    }
    char *b = malloc(cap);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t tl;
        const char *t = crfp_doc_text(docs[i], &tl);
        const char *lead = meta_s(docs[i], "leader"), *trail = meta_s(docs[i], "trailer");
        memcpy(b + k, lead, strlen(lead));
        k += strlen(lead);
        memcpy(b + k, t, tl);
        k += tl;
        memcpy(b + k, trail, strlen(trail));
        k += strlen(trail);
    }
    b[k] = '\0';
    *len = k;
    return b;
}

/* --- text_reader ------------------------------------------------------------------ */

static const char sample[] = "\xEF\xBB\xBF"
                             "First line,\twith a tab.\r\n"
                             "Zweite Zeile: Grüße, 😀!\r\n"
                             "\n"
                             "   \n"
                             "Third paragraph\n"
                             "still third.\n"
                             "\n"
                             "last line without newline";

static void test_reader_file(void)
{
    crfp_doc **d;
    size_t n;
    CHECK(read_all(sample, sizeof sample - 1, NULL, &d, &n) == CRFP_OK, "%s", crfp_errmsg(host));
    CHECK(n == 1, "one document per file, got %zu", n);
    if (n != 1)
        return;
    size_t len;
    const char *t = crfp_doc_text(d[0], &len);
    CHECK(len == sizeof sample - 4 && memcmp(t, sample + 3, len) == 0,
          "text is the input minus the BOM, byte for byte");
    const crfp_value *bom = crfp_doc_meta_get(d[0], "bom");
    CHECK(bom && bom->type == CRFP_V_BOOL && bom->u.b == 1, "bom recorded");
    const crfp_value *off = crfp_doc_meta_get(d[0], "offset");
    CHECK(off && off->type == CRFP_V_INT && off->u.i == 3, "offset after the BOM");
    CHECK(strcmp(crfp_doc_id(d[0]), "in.txt") == 0, "id is the file name: %s", crfp_doc_id(d[0]));
    CHECK(strcmp(meta_s(d[0], "format"), "text") == 0, "format");
    free_docs(d, n);
}

static void test_reader_lines(void)
{
    crfp_doc **d;
    size_t n;
    CHECK(read_all(sample, sizeof sample - 1, (kv[]){{"split", "line"}, {NULL, NULL}}, &d, &n) ==
              CRFP_OK,
          "%s", crfp_errmsg(host));
    CHECK(n == 5, "five non-blank lines, got %zu", n);
    size_t len;
    char *b = rebuild(d, n, &len);
    CHECK(len == sizeof sample - 4 && memcmp(b, sample + 3, len) == 0,
          "texts and trailers rebuild the input");
    free(b);
    if (n == 5) {
        size_t tl;
        const char *t = crfp_doc_text(d[0], &tl);
        CHECK(tl == 23 && memcmp(t, "First line,\twith a tab.", tl) == 0, "line 1 without CRLF");
        CHECK(strcmp(meta_s(d[0], "trailer"), "\r\n") == 0, "CRLF in the trailer");
        CHECK(strcmp(meta_s(d[1], "trailer"), "\r\n\n   \n") == 0, "blank lines in the trailer");
        CHECK(strcmp(crfp_doc_id(d[2]), "in.txt:5") == 0, "id with line: %s", crfp_doc_id(d[2]));
        const crfp_value *ln = crfp_doc_meta_get(d[2], "line");
        CHECK(ln && ln->type == CRFP_V_INT && ln->u.i == 5, "line number");
        t = crfp_doc_text(d[4], &tl);
        CHECK(tl == 25 && strcmp(meta_s(d[4], "trailer"), "") == 0, "last line");
    }
    free_docs(d, n);
    /* skip-blank=false: a blank line is a document */
    CHECK(read_all(sample, sizeof sample - 1,
                   (kv[]){{"split", "line"}, {"skip-blank", "false"}, {NULL, NULL}}, &d,
                   &n) == CRFP_OK,
          "%s", crfp_errmsg(host));
    CHECK(n == 8, "eight lines, got %zu", n);
    b = rebuild(d, n, &len);
    CHECK(len == sizeof sample - 4 && memcmp(b, sample + 3, len) == 0, "rebuilt (skip-blank=false)");
    free(b);
    free_docs(d, n);
}

static void test_reader_paragraphs(void)
{
    crfp_doc **d;
    size_t n;
    const char *in = "\n\nPara one\r\nstill one\r\n\r\nPara two\n\n\n";
    CHECK(read_all(in, strlen(in), (kv[]){{"split", "paragraph"}, {NULL, NULL}}, &d, &n) == CRFP_OK,
          "%s", crfp_errmsg(host));
    CHECK(n == 2, "two paragraphs, got %zu", n);
    if (n == 2) {
        size_t tl;
        const char *t = crfp_doc_text(d[0], &tl);
        CHECK(tl == 19 && memcmp(t, "Para one\r\nstill one", tl) == 0, "paragraph keeps its CRLF");
        CHECK(strcmp(meta_s(d[0], "leader"), "\n\n") == 0, "leading blank lines");
        CHECK(strcmp(meta_s(d[0], "trailer"), "\r\n\r\n") == 0, "trailer");
        CHECK(strcmp(crfp_doc_id(d[1]), "in.txt:6") == 0, "id %s", crfp_doc_id(d[1]));
        const crfp_value *off = crfp_doc_meta_get(d[1], "offset");
        CHECK(off && off->u.i == 25, "offset of paragraph two: %lld", off ? (long long)off->u.i : -1);
    }
    size_t len;
    char *b = rebuild(d, n, &len);
    CHECK(len == strlen(in) && memcmp(b, in, len) == 0, "paragraphs rebuild the input");
    free(b);
    free_docs(d, n);
}

static void test_reader_errors(void)
{
    crfp_doc **d;
    size_t n;
    const char bad[] = "ok\nstill ok\nab\xC3(x\n";
    CHECK(read_all(bad, sizeof bad - 1, NULL, &d, &n) == CRFP_EUTF8, "invalid UTF-8 is an error");
    CHECK(strstr(crfp_errmsg(host), "in.txt:3:") && strstr(crfp_errmsg(host), "byte 3 of the line"),
          "message names line and byte: %s", crfp_errmsg(host));
    free_docs(d, n);
    CHECK(read_all(bad, sizeof bad - 1, (kv[]){{"split", "line"}, {NULL, NULL}}, &d, &n) ==
              CRFP_EUTF8,
          "invalid UTF-8, line mode");
    CHECK(n == 2, "the two good lines were read first (%zu)", n);
    CHECK(strstr(crfp_errmsg(host), "in.txt:3:"), "line mode message: %s", crfp_errmsg(host));
    free_docs(d, n);
    const char nul[] = "a\nb\0c\n";
    CHECK(read_all(nul, sizeof nul - 1, NULL, &d, &n) == CRFP_EPARSE, "NUL is an error");
    CHECK(strstr(crfp_errmsg(host), "in.txt:2:") && strstr(crfp_errmsg(host), "NUL"),
          "NUL message: %s", crfp_errmsg(host));
    free_docs(d, n);
    /* a surrogate encoded in UTF-8 and an overlong form */
    const char sur[] = "x\xED\xA0\x80y";
    CHECK(read_all(sur, sizeof sur - 1, NULL, &d, &n) == CRFP_EUTF8, "surrogate refused");
    free_docs(d, n);
    const char ovl[] = "x\xC0\xAFy";
    CHECK(read_all(ovl, sizeof ovl - 1, NULL, &d, &n) == CRFP_EUTF8, "overlong refused");
    free_docs(d, n);
    CHECK(read_all("0123456789", 10, (kv[]){{"max-bytes", "5"}, {NULL, NULL}}, &d, &n) ==
              CRFP_EPARSE,
          "max-bytes");
    CHECK(strstr(crfp_errmsg(host), "max-bytes=5"), "names the limit: %s", crfp_errmsg(host));
    free_docs(d, n);
    CHECK(read_all("", 0, NULL, &d, &n) == CRFP_OK && n == 0, "empty input: no document");
    free_docs(d, n);
    CHECK(read_all("\xEF\xBB\xBF", 3, NULL, &d, &n) == CRFP_OK && n == 0, "a BOM alone: none");
    free_docs(d, n);
}

/* normalized-spans as an array of n integers */
static size_t spans_of(const crfp_doc *d, int64_t *v, size_t max)
{
    const crfp_value *s = crfp_doc_meta_get(d, "normalized-spans");
    if (!s || s->type != CRFP_V_LIST)
        return (size_t)-1;
    size_t n = s->u.list.n < max ? s->u.list.n : max;
    for (size_t i = 0; i < n; i++)
        v[i] = s->u.list.items[i].u.i;
    return s->u.list.n;
}

static void test_reader_normalize(void)
{
    /* "Cafe" + U+0301 (combining acute), then U+FB01 (fi ligature) and
     * U+1F600: NFC composes the é (1 UTF-16 unit instead of 2, 2 bytes
     * instead of 3); NFKC also unfolds the ligature */
    const char in[] = "Cafe\xCC\x81 \xEF\xAC\x81x \xF0\x9F\x98\x80.";
    crfp_doc **d;
    size_t n;
    CHECK(read_all(in, sizeof in - 1, (kv[]){{"normalize", "nfc"}, {NULL, NULL}}, &d, &n) ==
              CRFP_OK,
          "%s", crfp_errmsg(host));
    if (n == 1) {
        size_t tl;
        const char *t = crfp_doc_text(d[0], &tl);
        const char want[] = "Caf\xC3\xA9 \xEF\xAC\x81x \xF0\x9F\x98\x80.";
        CHECK(tl == sizeof want - 1 && memcmp(t, want, tl) == 0, "NFC text");
        CHECK(strcmp(meta_s(d[0], "normalization"), "NFC") == 0, "form recorded");
        int64_t v[8];
        size_t k = spans_of(d[0], v, 8);
        CHECK(k == 4 && v[0] == 3 && v[1] == 4 && v[2] == 3 && v[3] == 6,
              "one span: stored [3,4) UTF-16, input bytes [3,6): %zu %lld %lld %lld %lld", k,
              (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3]);
    }
    free_docs(d, n);
    CHECK(read_all(in, sizeof in - 1,
                   (kv[]){{"normalize", "nfkc"}, {"offsets", "codepoint"}, {NULL, NULL}}, &d,
                   &n) == CRFP_OK,
          "%s", crfp_errmsg(host));
    if (n == 1) {
        size_t tl;
        const char *t = crfp_doc_text(d[0], &tl);
        const char want[] = "Caf\xC3\xA9 fix \xF0\x9F\x98\x80.";
        CHECK(tl == sizeof want - 1 && memcmp(t, want, tl) == 0, "NFKC text");
        int64_t v[8];
        size_t k = spans_of(d[0], v, 8);
        CHECK(k == 8 && v[4] == 5 && v[5] == 7 && v[6] == 7 && v[7] == 10,
              "ligature span in code points [5,7), input bytes [7,10)");
    }
    free_docs(d, n);
    /* already normalised: nothing recorded but the form */
    CHECK(read_all("plain", 5, (kv[]){{"normalize", "nfc"}, {NULL, NULL}}, &d, &n) == CRFP_OK &&
              n == 1,
          "plain");
    if (n == 1) {
        int64_t v[1];
        CHECK(spans_of(d[0], v, 1) == 0, "no span");
    }
    free_docs(d, n);
}

/* --- icu_tokenizer ---------------------------------------------------------------- */

typedef struct tokrun {
    crfp_doc *doc;
    crfp_ann **toks, **sents;
    size_t ntok, nsent;
} tokrun;

static void tokrun_free(tokrun *r)
{
    free(r->toks);
    free(r->sents);
    crfp_doc_free(r->doc);
    memset(r, 0, sizeof *r);
}

/* Tokenize `text` in `unit` with the given parameters. */
static crfp_status tokenize(const char *text, crfp_offset_unit unit, const kv *p, tokrun *r)
{
    memset(r, 0, sizeof *r);
    const crfp_plugin *pl;
    if (crfp_host_load(host, "icu_tokenizer", &pl) != CRFP_OK) {
        fprintf(stderr, "%s\n", crfp_errmsg(host));
        exit(1);
    }
    const crfp_stage_vtable *sv = pl->desc->vtable;
    crfp_params *ps = params_for(pl, p);
    void *st = NULL;
    crfp_status s = sv->open(host, ps, &st);
    crfp_params_free(ps);
    if (s != CRFP_OK)
        return s;
    r->doc = crfp_doc_new("t");
    crfp_doc_set_offset_unit(r->doc, unit);
    crfp_doc_set_text(host, r->doc, text, strlen(text));
    s = sv->process(st, r->doc);
    sv->close(st);
    if (s != CRFP_OK)
        return s;
    crfp_annset *set = crfp_doc_annset(r->doc, "", 0);
    if (set) {
        crfp_annset_select(set, "Token", 0, crfp_doc_length(r->doc), &r->toks, &r->ntok);
        crfp_annset_select(set, "Sentence", 0, crfp_doc_length(r->doc), &r->sents, &r->nsent);
    }
    return CRFP_OK;
}

static int is_ws(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
            return 1;
    return 0;
}

/* The invariants every tokenization must hold. */
static void check_invariants(const tokrun *r, const char *what)
{
    size_t len;
    const char *text = crfp_doc_text(r->doc, &len);
    size_t prev_end = 0;
    for (size_t i = 0; i < r->ntok; i++) {
        const crfp_ann *a = r->toks[i];
        size_t bs = 0, be = 0;
        CHECK(crfp_doc_to_byte(r->doc, a->start, &bs) == CRFP_OK &&
                  crfp_doc_to_byte(r->doc, a->end, &be) == CRFP_OK,
              "%s: token %zu offsets", what, i);
        const char *s = crfp_ann_str(a, "string");
        CHECK(s && strlen(s) == be - bs && memcmp(s, text + bs, be - bs) == 0,
              "%s: token %zu: slice [%zu,%zu) '%.*s' differs from its string '%s'", what, i, bs,
              be, (int)(be - bs), text + bs, s ? s : "(none)");
        CHECK(a->end > a->start && !is_ws(text + bs, be - bs), "%s: token %zu '%s' empty or spaced",
              what, i, s ? s : "");
        CHECK(a->start >= prev_end, "%s: token %zu overlaps the previous one", what, i);
        CHECK(crfp_ann_str(a, "kind") != NULL, "%s: token %zu has a kind", what, i);
        prev_end = a->end;
    }
    /* each sentence spans its tokens exactly; every token is in one */
    size_t t = 0;
    for (size_t s = 0; s < r->nsent; s++) {
        const crfp_ann *S = r->sents[s];
        CHECK(t < r->ntok && r->toks[t]->start == S->start, "%s: sentence %zu starts at a token",
              what, s);
        while (t < r->ntok && r->toks[t]->end <= S->end)
            t++;
        CHECK(t > 0 && r->toks[t - 1]->end == S->end, "%s: sentence %zu ends at a token", what, s);
    }
    CHECK(t == r->ntok, "%s: %zu tokens outside sentences", what, r->ntok - t);
}

static const char *tok(const tokrun *r, size_t i)
{
    return i < r->ntok ? crfp_ann_str(r->toks[i], "string") : "(none)";
}

static const char *kind(const tokrun *r, size_t i)
{
    return i < r->ntok ? crfp_ann_str(r->toks[i], "kind") : "(none)";
}

/* index of the token spelt s, or -1 */
static long find(const tokrun *r, const char *s)
{
    for (size_t i = 0; i < r->ntok; i++)
        if (!strcmp(tok(r, i), s))
            return (long)i;
    return -1;
}

static const struct {
    const char *locale, *text;
    size_t min_tokens;
} langs[] = {
    {"en", "The U.S. economy grew 3.2% in Q3; analysts didn't expect it. Mr. Smith agreed!", 15},
    {"de", "Die Straße war naß. Am 3. Oktober 2023 kamen 1.234 Gäste — z. B. aus Köln.", 15},
    {"fr", "L'été dernier, j'ai vu « Les Misérables » à l'Opéra. C'était génial !", 12},
    {"es", "¿Dónde está el niño? ¡Allí, junto a la señora Núñez!", 12},
    {"ru", "Москва — столица России. В 2024 г. там жили 13 млн человек.", 10},
    {"el", "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας. Ζουν εκεί 3,7 εκατ. άνθρωποι;", 10},
    {"ar", "ذهب الطالب إلى المدرسة صباحاً. كان الجو جميلاً، والسماء صافية.", 9},
    {"hi", "भारत एक विशाल देश है। यहाँ 140 करोड़ लोग रहते हैं।", 10},
    {"zh", "北京是中国的首都。我们明天去长城，好吗？", 6},
    {"ja", "東京は日本の首都です。カタカナとひらがなも使います！", 6},
    {"en", "Emoji: 👩‍👩‍👧‍👦 family, 👍🏽 thumbs, 🇫🇷🇩🇪 flags, ❤️ heart, 1️⃣ key.", 10},
};

static void test_languages(void)
{
    const crfp_offset_unit units[] = {CRFP_OFFSET_UTF16, CRFP_OFFSET_CODEPOINT, CRFP_OFFSET_BYTE};
    for (size_t l = 0; l < sizeof langs / sizeof *langs; l++)
        for (size_t u = 0; u < 3; u++) {
            char what[64];
            snprintf(what, sizeof what, "%s/%s", langs[l].locale, crfp_offset_unit_name(units[u]));
            tokrun r;
            crfp_status st = tokenize(langs[l].text, units[u],
                                      (kv[]){{"locale", langs[l].locale}, {NULL, NULL}}, &r);
            CHECK(st == CRFP_OK, "%s: %s", what, crfp_errmsg(host));
            if (st == CRFP_OK) {
                CHECK(r.ntok >= langs[l].min_tokens, "%s: only %zu tokens", what, r.ntok);
                CHECK(r.nsent >= 1, "%s: no sentence", what);
                check_invariants(&r, what);
            }
            tokrun_free(&r);
        }
}

static void test_kinds(void)
{
    tokrun r;
    /* Japanese: kanji are ideographs, katakana/hiragana runs kana */
    CHECK(tokenize("東京タワーへ行きました。", CRFP_OFFSET_UTF16, (kv[]){{"locale", "ja"}, {NULL, NULL}},
                   &r) == CRFP_OK,
          "%s", crfp_errmsg(host));
    int ideo = 0, kana = 0;
    for (size_t i = 0; i < r.ntok; i++) {
        ideo += !strcmp(kind(&r, i), "ideo");
        kana += !strcmp(kind(&r, i), "kana");
    }
    CHECK(ideo > 0 && kana > 0, "ja: ideo %d kana %d", ideo, kana);
    CHECK(!strcmp(kind(&r, r.ntok - 1), "punctuation"), "ja: 。 is punctuation");
    tokrun_free(&r);
    /* emoji sequences are single tokens of kind emoji */
    CHECK(tokenize("a 👩‍👩‍👧 b 👍🏽 c 🇫🇷 d ❤️ e", CRFP_OFFSET_UTF16, NULL, &r) == CRFP_OK, "emoji");
    CHECK(r.ntok == 9, "emoji: 9 tokens, got %zu", r.ntok);
    for (size_t i = 1; i < r.ntok; i += 2)
        CHECK(!strcmp(kind(&r, i), "emoji"), "emoji: token %zu '%s' is %s", i, tok(&r, i),
              kind(&r, i));
    CHECK(r.ntok > 1 && r.toks[1]->end - r.toks[1]->start == 8, "family: 8 UTF-16 units");
    tokrun_free(&r);
    CHECK(tokenize("Pay $5.50 + 3,000 € now (ok)", CRFP_OFFSET_UTF16, NULL, &r) == CRFP_OK, "kinds");
    long k;
    CHECK((k = find(&r, "$")) >= 0 && !strcmp(kind(&r, (size_t)k), "symbol"), "$ is a symbol");
    CHECK((k = find(&r, "5.50")) >= 0 && !strcmp(kind(&r, (size_t)k), "number"), "5.50 number");
    CHECK((k = find(&r, "3,000")) >= 0 && !strcmp(kind(&r, (size_t)k), "number"), "3,000 number");
    CHECK((k = find(&r, "(")) >= 0 && !strcmp(kind(&r, (size_t)k), "punctuation"), "( punct");
    CHECK((k = find(&r, "Pay")) >= 0 && !strcmp(kind(&r, (size_t)k), "word"), "Pay word");
    tokrun_free(&r);
}

static void test_english_rules(void)
{
    tokrun r;
    const char *text = "Dr. Who didn't see Mr. Smith's dog in the U.S. today... Really?! "
                       "Mail a.b@example.org or see https://example.com/x?y=1. Call 555-0100 "
                       "on 01/24/2001 :)";
    /* defaults, English: ICU's abbreviations */
    CHECK(tokenize(text, CRFP_OFFSET_UTF16,
                   (kv[]){{"locale", "en"}, {"clitics", "n't,'s"}, {NULL, NULL}}, &r) == CRFP_OK,
          "%s", crfp_errmsg(host));
    check_invariants(&r, "english");
    CHECK(find(&r, "did") >= 0 && find(&r, "n't") >= 0, "clitic n't split");
    CHECK(find(&r, "Smith") >= 0 && find(&r, "'s") >= 0, "clitic 's split");
    CHECK(find(&r, "Mr.") >= 0, "Mr. keeps its period (ICU's list)");
    CHECK(find(&r, "U.S.") >= 0, "U.S. is one token");
    CHECK(find(&r, "Dr") >= 0, "Dr. is not in ICU's English list");
    CHECK(find(&r, "...") >= 0 && find(&r, "?!") >= 0, "runs of punctuation");
    long k = find(&r, "a.b@example.org");
    CHECK(k >= 0 && !strcmp(kind(&r, (size_t)k), "email"), "e-mail address kept");
    k = find(&r, "https://example.com/x?y=1");
    CHECK(k >= 0 && !strcmp(kind(&r, (size_t)k), "url"), "URL kept, without the final period");
    CHECK(find(&r, "555-0100") >= 0 && find(&r, "01/24/2001") >= 0, "numbers joined by - and /");
    CHECK(find(&r, ":)") >= 0, "emoticon");
    /* sentences: "Dr." ends one (not in the list); the URL's '?' does not */
    size_t with_dr = r.nsent;
    tokrun_free(&r);
    /* an abbreviation file adds Dr. */
    char path[] = "/tmp/crfpipe-abbr.XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    fputs("# test\nDr.\n", fp);
    fclose(fp);
    CHECK(tokenize(text, CRFP_OFFSET_UTF16,
                   (kv[]){{"locale", "en"}, {"abbreviation-file", path}, {NULL, NULL}}, &r) ==
              CRFP_OK,
          "%s", crfp_errmsg(host));
    CHECK(find(&r, "Dr.") >= 0, "Dr. from the file");
    CHECK(r.nsent == with_dr - 1, "no sentence ends after Dr.: %zu vs %zu", r.nsent, with_dr);
    CHECK(find(&r, "didn't") >= 0, "no clitics by default");
    tokrun_free(&r);
    fp = fopen(path, "w");
    fputs("Dr\n", fp);
    fclose(fp);
    CHECK(tokenize(text, CRFP_OFFSET_UTF16,
                   (kv[]){{"abbreviation-file", path}, {NULL, NULL}}, &r) == CRFP_EPARSE,
          "an abbreviation without its period is an error");
    CHECK(strstr(crfp_errmsg(host), ":1:"), "names the line: %s", crfp_errmsg(host));
    tokrun_free(&r);
    remove(path);
    /* without abbreviations ICU ends a sentence after Mr. */
    CHECK(tokenize("Mr. Smith came. He sat.", CRFP_OFFSET_UTF16,
                   (kv[]){{"locale", "en"}, {NULL, NULL}}, &r) == CRFP_OK,
          "%s", crfp_errmsg(host));
    CHECK(r.nsent == 2, "with ICU's suppressions: 2 sentences, got %zu", r.nsent);
    tokrun_free(&r);
    CHECK(tokenize("Mr. Smith came. He sat.", CRFP_OFFSET_UTF16,
                   (kv[]){{"locale", "en"}, {"abbreviations", "false"}, {NULL, NULL}}, &r) ==
              CRFP_OK,
          "%s", crfp_errmsg(host));
    CHECK(r.nsent == 3, "without: 3 sentences, got %zu", r.nsent);
    CHECK(find(&r, "Mr") >= 0, "Mr without its period");
    tokrun_free(&r);
    /* keep="" and merge-punctuation=false restore ICU's own cuts */
    CHECK(tokenize("see http://x.org now...", CRFP_OFFSET_UTF16,
                   (kv[]){{"keep", ""}, {"merge-punctuation", "false"}, {NULL, NULL}}, &r) ==
              CRFP_OK,
          "%s", crfp_errmsg(host));
    CHECK(find(&r, "http") >= 0 && find(&r, "...") < 0, "ICU's segmentation");
    tokrun_free(&r);
}

static void test_rules_and_wrapping(void)
{
    char path[] = "/tmp/crfpipe-rules.XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fdopen(fd, "w");
    /* letters and digits apart, each run a segment with ICU's statuses */
    fputs("!!chain;\n$L = [\\p{L}];\n$D = [\\p{Nd}];\n$L+ {200};\n$D+ {100};\n", fp);
    fclose(fp);
    tokrun r;
    CHECK(tokenize("abc123def x", CRFP_OFFSET_UTF16, (kv[]){{"rules", path}, {NULL, NULL}}, &r) ==
              CRFP_OK,
          "%s", crfp_errmsg(host));
    CHECK(r.ntok == 4 && !strcmp(tok(&r, 1), "123") && !strcmp(kind(&r, 1), "number") &&
              !strcmp(kind(&r, 2), "word"),
          "custom rules: %zu tokens", r.ntok);
    tokrun_free(&r);
    fp = fopen(path, "w");
    fputs("$L = [\\p{L}];\n$L+ {200}\n$Q = [;\n", fp);
    fclose(fp);
    CHECK(tokenize("abc", CRFP_OFFSET_UTF16, (kv[]){{"rules", path}, {NULL, NULL}}, &r) ==
              CRFP_EPARSE,
          "bad rules are an error");
    CHECK(strstr(crfp_errmsg(host), path) && strstr(crfp_errmsg(host), "invalid ICU break rules"),
          "names the file: %s", crfp_errmsg(host));
    tokrun_free(&r);
    remove(path);
    const char *wrapped = "This sentence is\nwrapped over lines. The next one\nis too.\n\nNew para";
    CHECK(tokenize(wrapped, CRFP_OFFSET_UTF16, NULL, &r) == CRFP_OK, "%s", crfp_errmsg(host));
    size_t plain = r.nsent;
    tokrun_free(&r);
    CHECK(tokenize(wrapped, CRFP_OFFSET_UTF16, (kv[]){{"wrapped", "true"}, {NULL, NULL}}, &r) ==
              CRFP_OK,
          "%s", crfp_errmsg(host));
    CHECK(r.nsent == 3 && plain == 5, "wrapped: 3 sentences (plain %zu, wrapped %zu)", plain,
          r.nsent);
    check_invariants(&r, "wrapped");
    tokrun_free(&r);
    CHECK(tokenize("x", CRFP_OFFSET_UTF16, (kv[]){{"locale", "12"}, {NULL, NULL}}, &r) ==
              CRFP_EINVAL,
          "a locale without a language is refused");
    tokrun_free(&r);
    CHECK(tokenize("   \n\t ", CRFP_OFFSET_UTF16, NULL, &r) == CRFP_OK && r.ntok == 0 &&
              r.nsent == 0,
          "white space only: no token, no sentence");
    tokrun_free(&r);
}

int main(void)
{
    host = crfp_host_new();
    if (!host)
        return 1;
    crfp_host_set_verbosity(host, CRFP_LOG_ERROR);
    test_reader_file();
    test_reader_lines();
    test_reader_paragraphs();
    test_reader_errors();
    test_reader_normalize();
    test_languages();
    test_kinds();
    test_english_rules();
    test_rules_and_wrapping();
    crfp_host_free(host);
    return test_failures ? 1 : 0;
}
