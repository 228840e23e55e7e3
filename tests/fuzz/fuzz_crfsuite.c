/* Fuzz target: CRFsuite's data format (crfsuite_reader), then what is read
 * through the attributes features plugin and the crfsuite_writer.
 *
 * The first byte of the input picks a configuration; the rest is the file.
 *   bit 0     weights=binary (else error), unless bit 3
 *   bit 1     block=1 (else 1000)
 *   bit 2     the host's `line` limit is 40 bytes (else the default)
 *   bit 3     weights=scale (the default: a weight is the attribute's value)
 * The reader must return documents or an error with a message, never
 * crash, leak or hang.  Oracles on what it returns:
 *   - with the 40-byte limit, a reader that gets to the end of the input
 *     without an error has met no longer line;
 *   - a Sentence's `weight` (@weight:W) is a float from 0 to 1e9;
 *   - every Token spans one line of the input, not blank and not a
 *     declaration, whose first field, read as CRFsuite reads it ("\:" and
 *     "\\" undone, up to a colon not escaped), is its `label`; a Token
 *     without a label has an empty one;
 *   - `attrs` is "_" or attributes separated by single spaces, holding no
 *     other raw space, no raw TAB or line break, every backslash one of the
 *     escapes \s \t \n \r \\ \_, or with weights=scale "\*" followed by a
 *     finite number up to the end of the attribute (its value);
 *   - the attributes plugin extracts every Token (one bias bigram each);
 *   - the writer writes one line per Token and a blank line per Sentence. */
#include "fuzzhost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXDOCS 64

static const crfp_reader_vtable *reader_for(unsigned c, crfp_params **params)
{
    static const crfp_reader_vtable *rd[16];
    static crfp_params *rp[16];
    if (!rd[c]) {
        const char *names[] = {"weights", "block"};
        const char *values[] = {(c & 8) ? "scale" : (c & 1) ? "binary" : "error",
                                (c & 2) ? "1" : "1000"};
        rd[c] = fz_plugin("crfsuite_reader", CRFP_KIND_READER, names, values, 2, &rp[c]);
    }
    *params = rp[c];
    return rd[c];
}

static void check_cell(const char *a, int scale)
{
    if (!a || !a[0])
        fz_fail("attrs", "missing or empty");
    if (strcmp(a, "_") == 0)
        return;
    if (a[0] == ' ')
        fz_fail("attrs", "starts with a space");
    for (const char *p = a; *p; p++) {
        unsigned char c = (unsigned char)*p;
        /* other control bytes are bytes of a name like any other */
        if (c == '\t' || c == '\n' || c == '\r')
            fz_fail("attrs", "holds a raw TAB or line break");
        if (c == ' ' && (p[1] == ' ' || p[1] == '\0'))
            fz_fail("attrs", "two spaces together or a trailing space");
        if (c == '\\' && p[1] == '*') {
            if (!scale)
                fz_fail("attrs", "a value without weights=scale");
            char *end;
            double w = strtod(p + 2, &end);
            if (end == p + 2 || (*end && *end != ' ') || !isfinite(w))
                fz_fail("attrs", "'\\*' not followed by a finite number up to the end");
            p = end - 1;
            continue;
        }
        if (c == '\\') {
            if (!p[1] || !strchr("stnr\\_", p[1]))
                fz_fail("attrs", "a backslash that is no escape");
            p++;
        }
    }
}

/* Every Token against the input text: a whole line starting with its
 * label; returns the number of Tokens and of Sentences. */
static void check_doc(crfp_doc *doc, int scale, size_t *ntok, size_t *nsent)
{
    size_t tlen, len = crfp_doc_length(doc);
    const char *text = crfp_doc_text(doc, &tlen);
    crfp_annset *set = crfp_doc_annset(doc, "", 0);
    if (!set)
        fz_fail("crfsuite_reader", "a document without its annotation set");
    crfp_ann **sen = NULL, **tok = NULL;
    size_t ns = 0, nt = 0;
    if (crfp_annset_select(set, "Sentence", 0, len, &sen, &ns) != CRFP_OK ||
        crfp_annset_select(set, "Token", 0, len, &tok, &nt) != CRFP_OK)
        fz_fail("select", crfp_errmsg(fz_host()));
    if (ns == 0 || nt < ns)
        fz_fail("crfsuite_reader", "a document without sentences, or an empty sentence");
    for (size_t i = 0; i < ns; i++) {
        /* @weight:W: a float in range, or no weight at all */
        const crfp_value *w = crfp_ann_get(sen[i], "weight");
        if (w && (w->type != CRFP_V_FLOAT || !(w->u.f >= 0.0 && w->u.f <= CRFP_MAX_SEQ_WEIGHT)))
            fz_fail("crfsuite_reader", "a Sentence weight that is no float from 0 to 1e9");
    }
    for (size_t i = 0; i < nt; i++) {
        size_t b0, b1;
        if (crfp_doc_to_byte(doc, tok[i]->start, &b0) != CRFP_OK ||
            crfp_doc_to_byte(doc, tok[i]->end, &b1) != CRFP_OK || b0 >= b1 || b1 > tlen)
            fz_fail("crfsuite_reader", "a Token outside the text, or empty");
        const char *l = text + b0;
        size_t n = b1 - b0;
        if ((b0 > 0 && text[b0 - 1] != '\n') || (b1 < tlen && text[b1] != '\n') ||
            memchr(l, '\n', n) || l[0] == '@')
            fz_fail("crfsuite_reader", "a Token is not one line of data");
        /* the label is the first field read as CRFsuite reads it: "\:" and
         * "\\" undone, up to the first colon not escaped */
        char want[256];
        size_t wn = 0, k = 0;
        for (; k < n && l[k] != '\t' && l[k] != ':' && wn < sizeof want - 1; k++, wn++) {
            if (l[k] == '\\' && k + 1 < n && (l[k + 1] == ':' || l[k + 1] == '\\'))
                k++;
            want[wn] = l[k];
        }
        want[wn] = '\0';
        const char *lab = crfp_ann_str(tok[i], "label");
        if (wn < sizeof want - 1 && (lab ? strcmp(lab, want) != 0 : wn != 0))
            fz_fail("crfsuite_reader", "the label is not the line's first field as CRFsuite "
                    "reads it");
        check_cell(crfp_ann_str(tok[i], "attrs"), scale);
    }
    *ntok += nt;
    *nsent += ns;
    free(sen);
    free(tok);
}

/* The attributes plugin makes observations of every Token: each sentence
 * as a one-column token sequence of its cells. */
static void extract(crfp_doc *doc)
{
    /* kept for the process, as the reader's are */
    static const crfp_features_vtable *fx;
    static void *ex;
    static crfp_params *fp;
    if (!fx) {
        fx = fz_plugin("attributes", CRFP_KIND_FEATURES, NULL, NULL, 0, &fp);
        if (fx->create(fz_host(), fp, &ex) != CRFP_OK)
            fz_fail("attributes", crfp_errmsg(fz_host()));
    }
    fz_extract_attrs(fx, ex, doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    crfp_host *h = fz_host();
    unsigned c = data[0] & 11;
    int small = (data[0] & 4) != 0;
    fz_line_limit(small ? 40 : FZ_DEFAULT_LINE);
    crfp_params *rp;
    const crfp_reader_vtable *rd = reader_for(c, &rp);
    const uint8_t *text = data + 1;
    size_t tlen = size - 1;

    crfp_doc *docs[MAXDOCS];
    size_t n, ntok = 0, nsent = 0;
    crfp_status st = fz_read_lines(rd, rp, text, tlen, "fuzz.crfsuite", small, docs, MAXDOCS, &n);
    for (size_t i = 0; i < n; i++) {
        check_doc(docs[i], (c & 8) != 0, &ntok, &nsent);
        extract(docs[i]);
    }
    fz_trace("config %u%s: %zu document(s), %zu tokens: %s", c, small ? " line=40" : "", n, ntok,
             st == CRFP_OK ? "ok" : crfp_errmsg(h));
    crfp_error_clear(h);

    /* the writer: a line per Token, a blank line per Sentence */
    char *buf;
    size_t blen;
    /* (a label or line holding a CR is refused by the writer: it would
     * end a line) */
    crfp_status wst = fz_write_docs("crfsuite_writer", docs, n, &buf, &blen);
    if (wst == CRFP_OK) {
        size_t lines = 0, blank = 0;
        for (size_t i = 0; i < blen; i++)
            if (buf[i] == '\n') {
                lines++;
                blank += i == 0 || buf[i - 1] == '\n';
            }
        if (lines != ntok + nsent || blank != nsent)
            fz_fail("crfsuite_writer", "not a line per Token and a blank line per Sentence");
    }
    free(buf);
    for (size_t i = 0; i < n; i++)
        crfp_doc_free(docs[i]);
    fz_trace("writer: %s", wst == CRFP_OK ? "ok" : crfp_errmsg(h));
    crfp_error_clear(h);
    return 0;
}
