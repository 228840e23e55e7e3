/* Fuzz target: the markup_reader and markup_writer plugins.
 *
 * Any XML or HTML file is hostile input.  The first byte's low bit picks
 * the reader's mode (xml or html) for the input; the writer's output is
 * XML and is read back in xml mode.  Oracles: a failure carries a message;
 * what the reader accepts, the writer writes (or refuses with a message);
 * the output reads back to the same text, with at most the annotations
 * read plus the wrapper element (crossing ones and names XML cannot hold
 * are left out, with a warning); and writing that again gives the same
 * bytes, so that nothing more is lost
 * (the inline form is a fixed point after one pass: nesting the writer
 * cannot tell, such as two empty elements at one offset, is settled by the
 * first pass). */
#include "fuzzhost.h"

#include <stdlib.h>
#include <string.h>

static crfp_doc *read_one(const crfp_reader_vtable *rd, const crfp_params *rp,
                          const uint8_t *data, size_t size, const char *what)
{
    crfp_host *h = fz_host();
    crfp_doc *doc = NULL;
    size_t n = 0;
    FILE *fp = fz_memstream_in(data, size);
    crfp_status st = fz_read_docs(rd, rp, fp, "fuzz.in", &doc, 1, &n);
    fclose(fp);
    if (st != CRFP_OK && !crfp_errmsg(h)[0])
        fz_fail("reader failed without a message", what);
    if (st != CRFP_OK && what[0] == 'b')
        fz_fail("re-reading the writer's output", crfp_errmsg(h));
    crfp_error_clear(h);
    if (st != CRFP_OK) {
        crfp_doc_free(doc);
        return NULL;
    }
    return doc;
}

static size_t count_anns(const crfp_doc *d)
{
    size_t n = 0;
    for (size_t s = 0; s < crfp_doc_annset_count(d); s++)
        n += crfp_annset_size(crfp_doc_annset_at(d, s));
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const xn[] = {"mode", "max-elements"}, *const xv[] = {"xml", "20000"};
    static const char *const hv[] = {"html", "20000"};
    crfp_params *xp, *hp, *wp;
    const crfp_reader_vtable *rd = fz_plugin("markup_reader", CRFP_KIND_READER, xn, xv, 2, &xp);
    fz_plugin("markup_reader", CRFP_KIND_READER, xn, hv, 2, &hp);
    const crfp_writer_vtable *wr = fz_plugin("markup_writer", CRFP_KIND_WRITER, NULL, NULL, 0, &wp);
    int html = size && (data[0] & 1);
    crfp_doc *d1 = read_one(rd, html ? hp : xp, data, size, "input");
    if (d1) {
        char *b1 = NULL, *b2 = NULL;
        size_t l1 = 0, l2 = 0;
        if (fz_write_with(wr, wp, &d1, 1, &b1, &l1) == CRFP_OK) {
            crfp_doc *d2 = read_one(rd, xp, (const uint8_t *)b1, l1, "back");
            size_t t1, t2;
            const char *s1 = crfp_doc_text(d1, &t1), *s2 = crfp_doc_text(d2, &t2);
            if (t1 != t2 || memcmp(s1, s2, t1) != 0) {
                fprintf(stderr, "---- written:\n%.*s\n----\n", (int)l1, b1);
                fz_fail("round trip", "the text changed");
            }
            /* the first pass may leave out what inline XML cannot hold
             * (crossing spans, names that are not XML names: warned), and
             * may add the wrapper; the second must keep everything */
            size_t n1 = count_anns(d1), n2 = count_anns(d2);
            if (n2 > n1 + 1) {
                fprintf(stderr, "---- written:\n%.*s\n----\n", (int)l1, b1);
                fz_fail("round trip", "annotations gained (beyond the wrapper)");
            }
            if (fz_write_with(wr, wp, &d2, 1, &b2, &l2) != CRFP_OK)
                fz_fail("writing the re-read document", crfp_errmsg(fz_host()));
            if (l1 != l2 || memcmp(b1, b2, l1) != 0) {
                fprintf(stderr, "---- first:\n%.*s\n---- second:\n%.*s\n----\n", (int)l1, b1,
                        (int)l2, b2);
                fz_fail("round trip", "writing the output again changed it");
            }
            crfp_doc_free(d2);
        }
        crfp_error_clear(fz_host());
        free(b1);
        free(b2);
        crfp_doc_free(d1);
    }
    crfp_params_free(xp);
    crfp_params_free(hp);
    crfp_params_free(wp);
    return 0;
}
