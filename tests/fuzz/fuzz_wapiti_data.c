/* Fuzz target: Wapiti's data with its observations (wapiti_reader), then
 * what is read through the attributes features plugin (bigram=wapiti or
 * wapiti-me) and the wapiti_writer.
 *
 * The first byte of the input picks a configuration; the rest is the file.
 *   bits 0-1  labelled=auto, true, false (3: auto)
 *   bit 2     maxent=true (with labelled=true when bits 0-1 say auto)
 *   bit 3     block=1 (else 1000)
 *   bit 4     the host's `line` limit is 40 bytes (else the default)
 * The reader must return documents or an error with a message, never
 * crash, leak or hang.  Oracles on what it returns:
 *   - with the 40-byte limit, a reader that gets to the end of the input
 *     without an error has met no longer line;
 *   - every Token spans one line of the input that is not white space
 *     only; its `label`, when it has one, is the line's last field;
 *   - `attrs` is "_" or fields separated by single spaces holding only the
 *     attributes plugin's escapes, each (unescaped) a field of the line;
 *     without maxent each starts with u, b or *;
 *   - with maxent every Sentence is one Token;
 *   - the attributes plugin extracts every Token (without maxent: every
 *     observation's first byte its kind);
 *   - the writer, each Token given a prediction, writes one line per Token
 *     (the Token's line, a TAB and the prediction) and a blank line per
 *     Sentence. */
#include "fuzzhost.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAXDOCS 64

static const crfp_reader_vtable *reader_for(unsigned c, crfp_params **params)
{
    static const crfp_reader_vtable *rd[16];
    static crfp_params *rp[16];
    if (!rd[c]) {
        static const char *const lab[] = {"auto", "true", "false", "auto"};
        const char *names[] = {"labelled", "maxent", "block"};
        const char *values[] = {(c & 4) && lab[c & 3][0] == 'a' ? "true" : lab[c & 3],
                                (c & 4) ? "true" : "false", (c & 8) ? "1" : "1000"};
        rd[c] = fz_plugin("wapiti_reader", CRFP_KIND_READER, names, values, 3, &rp[c]);
    }
    *params = rp[c];
    return rd[c];
}

/* Whether field f of n bytes is one of the white-space separated fields of
 * line l[0..ln). */
static int is_field(const char *l, size_t ln, const char *f, size_t n)
{
    for (size_t i = 0; i < ln;) {
        while (i < ln && isspace((unsigned char)l[i]))
            i++;
        size_t b = i;
        while (i < ln && !isspace((unsigned char)l[i]))
            i++;
        if (i > b && i - b == n && memcmp(l + b, f, n) == 0)
            return 1;
    }
    return 0;
}

/* The last field of line l[0..ln): its start and length. */
static const char *last_field(const char *l, size_t ln, size_t *n)
{
    size_t e = ln;
    while (e > 0 && isspace((unsigned char)l[e - 1]))
        e--;
    size_t b = e;
    while (b > 0 && !isspace((unsigned char)l[b - 1]))
        b--;
    *n = e - b;
    return l + b;
}

static void check_cell(const char *a, const char *line, size_t ln, int maxent)
{
    if (!a || !a[0])
        fz_fail("attrs", "missing or empty");
    if (strcmp(a, "_") == 0)
        return;
    char *buf = malloc(strlen(a) + 1);
    if (!buf)
        fz_fail("set-up", "out of memory");
    for (const char *p = a; *p;) {
        size_t k = 0;
        if (*p == ' ')
            fz_fail("attrs", "an empty attribute or a leading space");
        for (; *p && *p != ' '; p++) {
            if (*p == '\\') {
                if (!p[1] || !strchr("stnr\\_", p[1]))
                    fz_fail("attrs", "a backslash that is no escape");
                p++;
                buf[k++] = *p == 's' ? ' ' : *p == 't' ? '\t' : *p == 'n' ? '\n'
                           : *p == 'r' ? '\r' : *p;
            } else {
                buf[k++] = *p;
            }
        }
        if (!is_field(line, ln, buf, k))
            fz_fail("attrs", "an attribute that is no field of the line");
        if (!maxent && buf[0] != 'u' && buf[0] != 'b' && buf[0] != '*')
            fz_fail("attrs", "an observation that does not start with u, b or *");
        if (*p == ' ' && !p[1])
            fz_fail("attrs", "a trailing space");
        if (*p == ' ')
            p++;
    }
    free(buf);
}

/* Every Token against the input text; gives each a prediction for the
 * writer, and returns the numbers of Tokens and Sentences. */
static void check_doc(crfp_doc *doc, int maxent, size_t *ntok, size_t *nsent)
{
    size_t tlen, len = crfp_doc_length(doc);
    const char *text = crfp_doc_text(doc, &tlen);
    crfp_annset *set = crfp_doc_annset(doc, "", 0);
    if (!set)
        fz_fail("wapiti_reader", "a document without its annotation set");
    crfp_ann **sen = NULL, **tok = NULL;
    size_t ns = 0, nt = 0;
    if (crfp_annset_select(set, "Sentence", 0, len, &sen, &ns) != CRFP_OK ||
        crfp_annset_select(set, "Token", 0, len, &tok, &nt) != CRFP_OK)
        fz_fail("select", crfp_errmsg(fz_host()));
    if (ns == 0 || nt < ns || (maxent && nt != ns))
        fz_fail("wapiti_reader", "a document without sentences, an empty sentence, or with "
                "maxent a sentence of several tokens");
    for (size_t i = 0; i < nt; i++) {
        size_t b0, b1;
        if (crfp_doc_to_byte(doc, tok[i]->start, &b0) != CRFP_OK ||
            crfp_doc_to_byte(doc, tok[i]->end, &b1) != CRFP_OK || b0 >= b1 || b1 > tlen)
            fz_fail("wapiti_reader", "a Token outside the text, or empty");
        const char *l = text + b0;
        size_t n = b1 - b0, fl;
        if ((b0 > 0 && text[b0 - 1] != '\n') || (b1 < tlen && text[b1] != '\n') ||
            memchr(l, '\n', n))
            fz_fail("wapiti_reader", "a Token is not one line of data");
        const char *last = last_field(l, n, &fl);
        if (fl == 0)
            fz_fail("wapiti_reader", "a Token of white space only");
        const char *lab = crfp_ann_str(tok[i], "label");
        if (lab && (strlen(lab) != fl || memcmp(lab, last, fl) != 0))
            fz_fail("wapiti_reader", "the label is not the line's last field");
        check_cell(crfp_ann_str(tok[i], "attrs"), l, n, maxent);
        if (crfp_ann_set_str(doc, tok[i], "predicted", "P") != CRFP_OK)
            fz_fail("set-up", "out of memory");
    }
    *ntok += nt;
    *nsent += ns;
    free(sen);
    free(tok);
}

/* The attributes plugin makes observations of every Token. */
static void extract(crfp_doc *doc, int maxent)
{
    /* kept for the process, as the readers are */
    static const crfp_features_vtable *fx[2];
    static void *ex[2];
    static crfp_params *fp[2];
    if (!fx[maxent]) {
        const char *names[] = {"bigram"}, *values[] = {maxent ? "wapiti-me" : "wapiti"};
        fx[maxent] = fz_plugin("attributes", CRFP_KIND_FEATURES, names, values, 1, &fp[maxent]);
        if (fx[maxent]->create(fz_host(), fp[maxent], &ex[maxent]) != CRFP_OK)
            fz_fail("attributes", crfp_errmsg(fz_host()));
    }
    fz_extract_attrs(fx[maxent], ex[maxent], doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    crfp_host *h = fz_host();
    unsigned c = data[0] & 15;
    int small = (data[0] & 16) != 0, maxent = (c & 4) != 0;
    fz_line_limit(small ? 40 : FZ_DEFAULT_LINE);
    crfp_params *rp;
    const crfp_reader_vtable *rd = reader_for(c, &rp);
    const uint8_t *text = data + 1;
    size_t tlen = size - 1;

    crfp_doc *docs[MAXDOCS];
    size_t n, ntok = 0, nsent = 0;
    crfp_status st = fz_read_lines(rd, rp, text, tlen, "fuzz.wapiti", small, docs, MAXDOCS, &n);
    for (size_t i = 0; i < n; i++) {
        check_doc(docs[i], maxent, &ntok, &nsent);
        extract(docs[i], maxent);
    }
    fz_trace("config %u%s: %zu document(s), %zu tokens: %s", c, small ? " line=40" : "", n, ntok,
             st == CRFP_OK ? "ok" : crfp_errmsg(h));
    crfp_error_clear(h);

    /* the writer: the Token's line, a TAB and the prediction; a blank line
     * per Sentence */
    char *buf;
    size_t blen;
    /* (a label or line holding a CR is refused by the writer: it would
     * end a line) */
    crfp_status wst = fz_write_docs("wapiti_writer", docs, n, &buf, &blen);
    if (wst == CRFP_OK) {
        size_t lines = 0, blank = 0, tabbed = 0;
        for (size_t i = 0; i < blen; i++)
            if (buf[i] == '\n') {
                lines++;
                blank += i == 0 || buf[i - 1] == '\n';
                tabbed += i >= 2 && buf[i - 1] == 'P' && buf[i - 2] == '\t';
            }
        if (lines != ntok + nsent || blank != nsent || tabbed != ntok)
            fz_fail("wapiti_writer", "not a line per Token ending in TAB and its prediction, "
                    "and a blank line per Sentence");
    }
    free(buf);
    for (size_t i = 0; i < n; i++)
        crfp_doc_free(docs[i]);
    fz_trace("writer: %s", wst == CRFP_OK ? "ok" : crfp_errmsg(h));
    crfp_error_clear(h);
    return 0;
}
