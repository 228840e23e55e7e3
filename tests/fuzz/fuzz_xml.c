/* Fuzz target: the streaming XML corpus reader (corpus.h).
 *
 * Any byte string may be fed; the reader must return documents or an error,
 * never crash, leak or hang.  Oracle: every document it accepts must survive
 * a round trip — the writer either refuses it (CRFP_EINVAL, for what XML
 * cannot carry) or writes XML that the reader, now validating against the
 * schema, reads back as an equal document. */
#include "fuzzhost.h"

#include <stdlib.h>
#include <string.h>

#define MAXDOCS 64

static void free_docs(crfp_doc **d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        crfp_doc_free(d[i]);
}

/* Read at most MAXDOCS documents; returns the reader's final status. */
static crfp_status read_all(FILE *fp, int validate, crfp_doc **docs, size_t *n)
{
    crfp_host *h = fz_host();
    crfp_stream in = {fp, "fuzz.xml"};
    crfp_xml_reader *r;
    *n = 0;
    crfp_status st = crfp_xml_reader_open(h, &in, validate, &r);
    if (st != CRFP_OK)
        return st;
    for (;;) {
        crfp_doc *d;
        st = crfp_xml_reader_next(r, &d);
        if (st != CRFP_OK || !d)
            break;
        if (*n == MAXDOCS) {
            crfp_doc_free(d);
            break;
        }
        docs[(*n)++] = d;
    }
    crfp_xml_reader_close(r);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    crfp_doc *docs[MAXDOCS], *again[MAXDOCS];
    size_t n, m;
    FILE *fp = fz_memstream_in(data, size);
    crfp_status st = read_all(fp, 0, docs, &n);
    fclose(fp);
    fz_trace("read %zu document(s): %s", n, st == CRFP_OK ? "ok" : crfp_errmsg(h));
    if (st != CRFP_OK || n == 0) {
        free_docs(docs, n);
        return 0;
    }

    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out)
        fz_fail("set-up", "open_memstream");
    crfp_stream os = {out, "roundtrip.xml"};
    crfp_xml_writer *w;
    size_t written = 0;
    if (crfp_xml_writer_open(h, &os, &w) != CRFP_OK)
        fz_fail("xml writer open", crfp_errmsg(h));
    for (size_t i = 0; i < n; i++) {
        st = crfp_xml_writer_write(w, docs[i]);
        if (st == CRFP_EINVAL) {   /* refused before any of it was written */
            crfp_doc_free(docs[i]);
            continue;
        }
        if (st != CRFP_OK)
            fz_fail("xml writer", crfp_errmsg(h));
        docs[written++] = docs[i];
    }
    if (crfp_xml_writer_finish(w) != CRFP_OK)
        fz_fail("xml writer finish", crfp_errmsg(h));
    crfp_xml_writer_close(w);
    fclose(out);

    FILE *back = fz_memstream_in((const uint8_t *)buf, len);
    st = read_all(back, 1, again, &m);
    fclose(back);
    if (st != CRFP_OK) {
        fprintf(stderr, "---- written:\n%.*s\n----\n", (int)len, buf);
        fz_fail("re-reading the writer's output", crfp_errmsg(h));
    }
    fz_trace("round trip of %zu document(s) ok", m);
    if (m != written)
        fz_fail("round trip", "document count differs");
    for (size_t i = 0; i < m; i++) {
        char why[256];
        if (!crfp_doc_equal(docs[i], again[i], why, sizeof why))
            fz_fail("round trip changed a document", why);
    }
    free_docs(again, m);
    free_docs(docs, written);
    free(buf);
    return 0;
}
