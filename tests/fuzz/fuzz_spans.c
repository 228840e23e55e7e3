/* Fuzz target: annotation spans made token labels (span_labels) on
 * hostile GATE documents: overlapping, nested, empty and misaligned spans,
 * tokens that overlap one another, sentences out of step with tokens.
 *
 * The first byte of the input picks a configuration; the rest is a GATE
 * XML document, which gate_reader reads.
 *   bits 0-1  scheme: bio, bioes, io (3: bio)
 *   bit 2     the spans are in the default set (else in "Key")
 *   bit 3     type-feature=kind (else the annotation type)
 *   bit 4     types also Token and Sentence (spans over themselves)
 * span_labels must label the document or fail with a message, never crash,
 * leak or hang.  Oracles on a labelled document: every Token of the
 * default set has the `label` feature, either O or PREFIX-TYPE with a
 * prefix the scheme allows and a non-empty type without blanks. */
#include "fuzzhost.h"

#include <stdlib.h>
#include <string.h>

#define MAXDOCS 4

static const char *const schemes[] = {"bio", "bioes", "io", "bio"};

static const crfp_stage_vtable *stage_for(unsigned c, void **state)
{
    static const crfp_stage_vtable *vt[32];
    static void *st[32];
    static crfp_params *sp[32];
    if (!vt[c]) {
        const char *names[] = {"scheme", "span-set", "types", "type-feature"};
        const char *values[] = {schemes[c & 3], (c & 4) ? "" : "Key",
                                (c & 16) ? "Person,Location,Token,Sentence"
                                         : "Person,Location,Organization,Entity",
                                (c & 8) ? "kind" : ""};
        vt[c] = fz_plugin("span_labels", CRFP_KIND_TAGGER, names, values, 4, &sp[c]);
        if (vt[c]->open(fz_host(), sp[c], &st[c]) != CRFP_OK)
            fz_fail("span_labels open", crfp_errmsg(fz_host()));
    }
    *state = st[c];
    return vt[c];
}

static void check_label(const char *l, unsigned c)
{
    if (!l)
        fz_fail("span_labels", "a Token without its label");
    if (strcmp(l, "O") == 0)
        return;
    const char *allowed = (c & 3) == 1 ? "BIES" : (c & 3) == 2 ? "I" : "BI";
    if (!l[0] || !strchr(allowed, l[0]) || l[1] != '-' || !l[2] || strpbrk(l + 2, " \t\r\n"))
        fz_fail("span_labels: a label the scheme does not make", l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    crfp_host *h = fz_host();
    unsigned c = data[0] & 31;
    static const crfp_reader_vtable *rd;
    static crfp_params *rp;
    if (!rd)
        rd = fz_plugin("gate_reader", CRFP_KIND_READER, NULL, NULL, 0, &rp);
    FILE *fp = fz_memstream_in(data + 1, size - 1);
    crfp_doc *docs[MAXDOCS];
    size_t n;
    crfp_status st = fz_read_docs(rd, rp, fp, "fuzz.gate.xml", docs, MAXDOCS, &n);
    fclose(fp);
    crfp_error_clear(h);
    void *state;
    const crfp_stage_vtable *vt = stage_for(c, &state);
    for (size_t i = 0; i < n; i++) {
        st = vt->process(state, docs[i]);
        if (st != CRFP_OK) {
            if (!crfp_errmsg(h)[0])
                fz_fail("span_labels failed without a message", crfp_status_str(st));
        } else {
            crfp_annset *set = crfp_doc_annset(docs[i], "", 0);
            crfp_ann **toks = NULL;
            size_t nt = 0;
            if (set && crfp_annset_select(set, "Token", 0, crfp_doc_length(docs[i]), &toks,
                                          &nt) != CRFP_OK)
                fz_fail("select", "out of memory");
            for (size_t t = 0; t < nt; t++)
                check_label(crfp_ann_str(toks[t], "label"), c);
            free(toks);
        }
        fz_trace("config %u: %s", c, st == CRFP_OK ? "labelled" : crfp_errmsg(h));
        crfp_error_clear(h);
        crfp_doc_free(docs[i]);
    }
    return 0;
}
