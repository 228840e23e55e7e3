/* Fuzz target: raw text in, tokens out — the text_reader and icu_tokenizer
 * plugins.
 *
 * The first byte of the input picks a configuration (how the reader splits
 * documents, which normalisation and offset unit, whether the tokenizer
 * merges punctuation and adds sentences); the rest is the text.  The reader
 * must return documents or an error with a message, never crash, leak or
 * hang.  Oracles:
 *   - split=file, normalize=none: the one document's text is the input byte
 *     for byte, less a leading BOM (the reader keeps text as it is);
 *   - after the tokenizer: the text is unchanged, Tokens are non-empty,
 *     within the text, in order and disjoint; so are Sentences, and every
 *     Token lies inside a Sentence when sentences are asked for. */
#include "fuzzhost.h"

#include <stdlib.h>
#include <string.h>

#define MAXDOCS 64

static const char *const splits[] = {"file", "line", "paragraph", "file"};
static const char *const norms[] = {"none", "nfc", "nfkc", "none"};
static const char *const units[] = {"utf16", "codepoint", "byte", "utf16"};

typedef struct config {
    const crfp_reader_vtable *rd;
    crfp_params *rp;
} config;

/* The reader with configuration c (0..63), loaded once per configuration. */
static const config *reader_for(unsigned c)
{
    static config cfg[64];
    if (!cfg[c].rd) {
        const char *names[] = {"split", "normalize", "offsets"};
        const char *values[] = {splits[c & 3], norms[(c >> 2) & 3], units[(c >> 4) & 3]};
        cfg[c].rd = fz_plugin("text_reader", CRFP_KIND_READER, names, values, 3, &cfg[c].rp);
    }
    return &cfg[c];
}

/* The tokenizer's state for variant v (merge-punctuation, sentences). */
static void *tokenizer_for(unsigned v, const crfp_tokenizer_vtable **vt)
{
    static const crfp_tokenizer_vtable *tk;
    static void *state[4];
    static crfp_params *params[4];
    if (!state[v]) {
        const char *names[] = {"merge-punctuation", "sentences"};
        const char *values[] = {(v & 1) ? "true" : "false", (v & 2) ? "true" : "false"};
        tk = fz_plugin("icu_tokenizer", CRFP_KIND_TOKENIZER, names, values, 2, &params[v]);
        if (tk->open(fz_host(), params[v], &state[v]) != CRFP_OK)
            fz_fail("icu_tokenizer open", crfp_errmsg(fz_host()));
    }
    *vt = tk;
    return state[v];
}

/* Spans of `type` in set order must be non-empty, within [0, len], sorted
 * and disjoint.  Returns how many there are. */
static size_t check_spans(crfp_doc *doc, const char *type, size_t len)
{
    size_t n = 0, last_end = 0;
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
        crfp_annset *set = crfp_doc_annset_at(doc, s);
        crfp_ann **a = NULL;
        size_t na = 0;
        if (crfp_annset_select(set, type, 0, len, &a, &na) != CRFP_OK)
            fz_fail("select", crfp_errmsg(fz_host()));
        for (size_t i = 0; i < na; i++) {
            if (a[i]->start >= a[i]->end || a[i]->end > len)
                fz_fail(type, "empty or out of the text");
            if (n && a[i]->start < last_end)
                fz_fail(type, "overlaps the previous one");
            last_end = a[i]->end;
            n++;
        }
        free(a);
    }
    return n;
}

/* Every Token inside some Sentence. */
static void check_covered(crfp_doc *doc, size_t len)
{
    for (size_t s = 0; s < crfp_doc_annset_count(doc); s++) {
        crfp_annset *set = crfp_doc_annset_at(doc, s);
        crfp_ann **tok = NULL, **sen = NULL;
        size_t nt = 0, ns = 0, j = 0;
        if (crfp_annset_select(set, "Token", 0, len, &tok, &nt) != CRFP_OK ||
            crfp_annset_select(set, "Sentence", 0, len, &sen, &ns) != CRFP_OK)
            fz_fail("select", crfp_errmsg(fz_host()));
        for (size_t i = 0; i < nt; i++) {
            while (j < ns && sen[j]->end <= tok[i]->start)
                j++;
            if (j == ns || sen[j]->start > tok[i]->start || sen[j]->end < tok[i]->end)
                fz_fail("Token", "not inside a Sentence");
        }
        free(tok);
        free(sen);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    crfp_host *h = fz_host();
    unsigned c = data[0] & 63, v = (data[0] >> 6) & 3;
    const config *cf = reader_for(c);
    const uint8_t *text = data + 1;
    size_t tlen = size - 1;

    FILE *fp = fz_memstream_in(text, tlen);
    crfp_doc *docs[MAXDOCS];
    size_t n;
    crfp_status st = fz_read_docs(cf->rd, cf->rp, fp, "fuzz.txt", docs, MAXDOCS, &n);
    fclose(fp);
    if (st != CRFP_OK && !crfp_errmsg(h)[0])
        fz_fail("reader failed without a message", crfp_status_str(st));
    fz_trace("config %u/%u: %zu document(s): %s", c, v, n,
             st == CRFP_OK ? "ok" : crfp_errmsg(h));
    crfp_error_clear(h);

    if (st == CRFP_OK && n == 1 && (c & 3) == 0 && ((c >> 2) & 3) % 3 == 0) {
        size_t len;
        const char *t = crfp_doc_text(docs[0], &len);
        const uint8_t *want = text;
        size_t wlen = tlen;
        if (wlen >= 3 && memcmp(want, "\xEF\xBB\xBF", 3) == 0) {
            want += 3;
            wlen -= 3;
        }
        if (len != wlen || memcmp(t, want, len) != 0)
            fz_fail("split=file", "the document's text is not the input");
    }

    const crfp_tokenizer_vtable *tk;
    void *ts = tokenizer_for(v, &tk);
    for (size_t i = 0; i < n; i++) {
        size_t blen, len = crfp_doc_length(docs[i]);
        const char *before = crfp_doc_text(docs[i], &blen);
        char *copy = malloc(blen ? blen : 1);
        if (!copy)
            fz_fail("set-up", "out of memory");
        memcpy(copy, before, blen);
        st = tk->process(ts, docs[i]);
        if (st != CRFP_OK) {
            if (!crfp_errmsg(h)[0])
                fz_fail("tokenizer failed without a message", crfp_status_str(st));
            crfp_error_clear(h);
        } else {
            size_t alen;
            const char *after = crfp_doc_text(docs[i], &alen);
            if (alen != blen || memcmp(after, copy, blen) != 0)
                fz_fail("icu_tokenizer", "changed the text");
            size_t nt = check_spans(docs[i], "Token", len);
            size_t ns = check_spans(docs[i], "Sentence", len);
            if ((v & 2) && nt && !ns)
                fz_fail("icu_tokenizer", "tokens but no sentence");
            if (v & 2)
                check_covered(docs[i], len);
            fz_trace("document %zu: %zu tokens, %zu sentences", i + 1, nt, ns);
        }
        free(copy);
        crfp_doc_free(docs[i]);
    }
    return 0;
}
