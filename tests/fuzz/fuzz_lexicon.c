/* Fuzz target: the pronunciation-lexicon readers, lexicon_reader (CMUdict,
 * NETtalk, TSV, word lists) and nettalk_reader (NETtalk as letter
 * sequences, with its fold split).
 *
 * The first byte of the input picks a configuration; the rest is the file.
 *   bits 0-2  lexicon_reader's format: auto, cmudict, nettalk, tsv, words
 *             (5-7: nettalk_reader, malformed=skip for 5 and 6, error for 7)
 *   bit 3     lexicon_reader stress=false / nettalk_reader header=0 (else 1)
 *   bit 4     lexicon_reader variants=false / nettalk_reader part=train
 *   bit 5     block=1 (else 64)
 *   bit 6     the host's `line` limit is 40 bytes (else the default)
 * The reader must return documents or an error with a message, never
 * crash, leak or hang.  Oracles on what it returns:
 *   - with the 40-byte limit, a reader that gets to the end of the input
 *     without an error has met no longer line;
 *   - lexicon_reader: every Sentence spans its `word` feature's text in
 *     the document, `variant` is an integer >= 1, `phonemes` (when there)
 *     is symbols without control characters separated by single spaces
 *     (a lone CR or a form feed separates too), `aligned` (NETtalk) has one
 *     symbol per byte of the word;
 *   - nettalk_reader: every Sentence holds one Token per letter of its
 *     word, each one letter wide, with one-character letter, phone and
 *     stress features, the letter being the text under the Token. */
#include "fuzzhost.h"

#include <stdlib.h>
#include <string.h>

#define MAXDOCS 64

static const char *const lexfmts[] = {"auto", "cmudict", "nettalk", "tsv", "words"};

/* The reader of configuration c (0..63), loaded once per configuration. */
static const crfp_reader_vtable *reader_for(unsigned c, crfp_params **params)
{
    static const crfp_reader_vtable *rd[64];
    static crfp_params *rp[64];
    if (!rd[c]) {
        unsigned f = c & 7;
        const char *block = (c & 32) ? "1" : "64";
        if (f < 5) {
            const char *names[] = {"format", "stress", "variants", "block"};
            const char *values[] = {lexfmts[f], (c & 8) ? "false" : "true",
                                    (c & 16) ? "false" : "true", block};
            rd[c] = fz_plugin("lexicon_reader", CRFP_KIND_READER, names, values, 4, &rp[c]);
        } else {
            const char *names[] = {"malformed", "header", "part", "block"};
            const char *values[] = {f == 7 ? "error" : "skip", (c & 8) ? "0" : "1",
                                    (c & 16) ? "train" : "all", block};
            rd[c] = fz_plugin("nettalk_reader", CRFP_KIND_READER, names, values, 4, &rp[c]);
        }
    }
    *params = rp[c];
    return rd[c];
}

/* The bytes of the text under [start, end) (offsets in the document's
 * unit); *n their length. */
static const char *span(crfp_doc *doc, size_t start, size_t end, size_t *n)
{
    size_t b0, b1, len;
    const char *t = crfp_doc_text(doc, &len);
    if (crfp_doc_to_byte(doc, start, &b0) != CRFP_OK || crfp_doc_to_byte(doc, end, &b1) != CRFP_OK ||
        b0 > b1 || b1 > len)
        fz_fail("span", "annotation offsets outside the text");
    *n = b1 - b0;
    return t + b0;
}

static int equals(const char *s, size_t n, const char *z)
{
    return z && strlen(z) == n && memcmp(s, z, n) == 0;
}

/* Symbols separated by single spaces: non-empty, no blank at either end,
 * no two blanks together, no TAB or line end.  Returns the count. */
static size_t symbols(const char *what, const char *s)
{
    size_t n = 0;
    if (!s[0] || s[0] == ' ')
        fz_fail(what, "empty or starts with a space");
    for (const char *p = s; *p; p++) {
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            fz_fail(what, "holds a control character");
        if (*p == ' ' && (p[1] == ' ' || p[1] == '\0'))
            fz_fail(what, "two spaces together or a trailing space");
        n += p == s || p[-1] == ' ';
    }
    return n;
}

static void check_lexicon_doc(crfp_doc *doc)
{
    size_t len = crfp_doc_length(doc);
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
        crfp_ann **a = NULL;
        size_t na = 0;
        if (crfp_annset_select(crfp_doc_annset_at(doc, s), "Sentence", 0, len, &a, &na) != CRFP_OK)
            fz_fail("select", crfp_errmsg(fz_host()));
        for (size_t i = 0; i < na; i++) {
            size_t n;
            const char *t = span(doc, a[i]->start, a[i]->end, &n);
            const char *word = crfp_ann_str(a[i], "word");
            if (!equals(t, n, word))
                fz_fail("lexicon_reader", "a Sentence does not span its word");
            const crfp_value *v = crfp_ann_get(a[i], "variant");
            if (!v || v->type != CRFP_V_INT || v->u.i < 1)
                fz_fail("lexicon_reader", "variant is not an integer >= 1");
            const char *ph = crfp_ann_str(a[i], "phonemes");
            if (ph)
                symbols("phonemes", ph);
            const char *al = crfp_ann_str(a[i], "aligned");
            if (al && symbols("aligned", al) != n)
                fz_fail("lexicon_reader", "aligned: not one symbol per letter");
        }
        free(a);
    }
}

static void check_nettalk_doc(crfp_doc *doc)
{
    static const char *const cols[] = {"letter", "phone", "stress"};
    size_t len = crfp_doc_length(doc);
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
        crfp_annset *set = crfp_doc_annset_at(doc, s);
        crfp_ann **sen = NULL;
        size_t ns = 0;
        if (crfp_annset_select(set, "Sentence", 0, len, &sen, &ns) != CRFP_OK)
            fz_fail("select", crfp_errmsg(fz_host()));
        for (size_t i = 0; i < ns; i++) {
            crfp_ann **tok = NULL;
            size_t nt = 0, n;
            span(doc, sen[i]->start, sen[i]->end, &n);
            if (crfp_annset_select(set, "Token", sen[i]->start, sen[i]->end, &tok, &nt) != CRFP_OK)
                fz_fail("select", crfp_errmsg(fz_host()));
            if (nt != n || n == 0)
                fz_fail("nettalk_reader", "not one Token per letter of the word");
            for (size_t j = 0; j < nt; j++) {
                size_t m;
                const char *t = span(doc, tok[j]->start, tok[j]->end, &m);
                if (m != 1 || !equals(t, 1, crfp_ann_str(tok[j], "letter")))
                    fz_fail("nettalk_reader", "a Token is not its letter");
                for (int c = 1; c < 3; c++) {
                    const char *f = crfp_ann_str(tok[j], cols[c]);
                    if (!f || strlen(f) != 1)
                        fz_fail("nettalk_reader", "phone or stress is not one character");
                }
            }
            free(tok);
        }
        free(sen);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    crfp_host *h = fz_host();
    unsigned c = data[0] & 63;
    int small = (data[0] & 64) != 0;
    fz_line_limit(small ? 40 : FZ_DEFAULT_LINE);
    crfp_params *rp;
    const crfp_reader_vtable *rd = reader_for(c, &rp);
    const uint8_t *text = data + 1;
    size_t tlen = size - 1;

    crfp_doc *docs[MAXDOCS];
    size_t n;
    crfp_status st = fz_read_lines(rd, rp, text, tlen, "fuzz.lex", small, docs, MAXDOCS, &n);
    for (size_t i = 0; i < n; i++) {
        if ((c & 7) < 5)
            check_lexicon_doc(docs[i]);
        else
            check_nettalk_doc(docs[i]);
        crfp_doc_free(docs[i]);
    }
    fz_trace("config %u%s: %zu document(s): %s", c, small ? " line=40" : "", n,
             st == CRFP_OK ? "ok" : crfp_errmsg(h));
    crfp_error_clear(h);
    return 0;
}
