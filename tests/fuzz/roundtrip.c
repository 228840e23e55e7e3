/* Shared body of the targets that pair a reader with its writer
 * (fuzz_conll, fuzz_conllu, fuzz_gate).
 *
 * The reader plugin reads the input from memory; each document it returns
 * goes through the writer plugin into a memory stream.  Oracle: what the
 * writer produced must read back into as many documents, each equal to the
 * one written (the readers record in document metadata what the writers
 * need to reproduce their input).  The column writers run with
 * unrepresentable=error: a cell they would have to escape (a token holding
 * a line break, say) is refused with a message rather than written in a
 * form that reads back as a different string. */
#include "fuzzhost.h"

#include <stdlib.h>
#include <string.h>

#define MAXDOCS 64

static void free_docs(crfp_doc **d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        crfp_doc_free(d[i]);
}

void fz_roundtrip(const uint8_t *data, size_t size, const char *reader, const char *writer,
                  const char *const *wnames, const char *const *wvalues, size_t nw)
{
    crfp_host *h = fz_host();
    crfp_params *rp, *wp;
    const crfp_reader_vtable *rd = fz_plugin(reader, CRFP_KIND_READER, NULL, NULL, 0, &rp);
    const crfp_writer_vtable *wr = fz_plugin(writer, CRFP_KIND_WRITER, wnames, wvalues, nw, &wp);
    crfp_doc *docs[MAXDOCS], *again[MAXDOCS];
    size_t n = 0, m = 0;

    FILE *fp = fz_memstream_in(data, size);
    crfp_status st = fz_read_docs(rd, rp, fp, "fuzz.in", docs, MAXDOCS, &n);
    fclose(fp);
    fz_trace("read %zu document(s): %s", n, st == CRFP_OK ? "ok" : crfp_errmsg(h));
    if (st != CRFP_OK && !crfp_errmsg(h)[0])
        fz_fail("reader failed without a message", crfp_status_str(st));
    crfp_error_clear(h);

    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out)
        fz_fail("set-up", "open_memstream");
    crfp_stream os = {out, "fuzz.out"};
    void *ws = NULL;
    int refused = 0;
    if (n && wr->open(h, wp, &os, &ws) != CRFP_OK)
        fz_fail("writer open", crfp_errmsg(h));
    for (size_t i = 0; i < n && !refused; i++) {
        st = wr->write(ws, docs[i]);
        if (st != CRFP_OK) {
            /* A document the format cannot hold may be refused, with a
             * message; then the output is incomplete and not compared. */
            if (!crfp_errmsg(h)[0])
                fz_fail("writer failed without a message", crfp_status_str(st));
            fz_trace("writer refused: %s", crfp_errmsg(h));
            refused = 1;
        }
    }
    if (ws) {
        if (!refused && wr->finish(ws) != CRFP_OK)
            fz_fail("writer finish", crfp_errmsg(h));
        wr->close(ws);
    }
    fclose(out);
    crfp_error_clear(h);

    if (n && !refused) {
        FILE *back = fz_memstream_in((const uint8_t *)buf, len);
        st = fz_read_docs(rd, rp, back, "fuzz.in", again, MAXDOCS, &m);
        fclose(back);
        if (st != CRFP_OK) {
            fprintf(stderr, "---- written:\n%.*s\n----\n", (int)len, buf);
            fz_fail("re-reading the writer's output", crfp_errmsg(h));
        }
        fz_trace("round trip of %zu document(s) ok", m);
        if (m != n)
            fz_fail("round trip", "document count differs");
        for (size_t i = 0; i < m; i++) {
            char why[256];
            if (!crfp_doc_equal(docs[i], again[i], why, sizeof why)) {
                fprintf(stderr, "---- written:\n%.*s\n----\n", (int)len, buf);
                fz_fail("round trip changed a document", why);
            }
        }
        free_docs(again, m);
    }
    free_docs(docs, n);
    free(buf);
    crfp_params_free(rp);
    crfp_params_free(wp);
}
