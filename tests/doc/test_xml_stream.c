/* Streaming: a corpus of 20,000 small documents, generated as text (not by
 * our writer, so the reader is tested on its own), is read one document at
 * a time; every document arrives complete and in order. */
#include "config.h"
#include "crfpipe/crfpipe.h"
#include "doccheck.h"

#include <stdlib.h>

#define NDOC 20000

int main(void)
{
    crfp_host *h = crfp_host_new();
    if (!h)
        return 1;
    FILE *f = tmpfile();
    if (!f) {
        perror("tmpfile");
        return 1;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<corpus xmlns=\"urn:crfpipe:corpus:1\">\n");
    for (int i = 0; i < NDOC; i++) {
        /* Text "w<i> \xC3\xA9": the é makes UTF-16 and byte offsets differ. */
        fprintf(f,
                "<document id=\"d%d\"><text>w%d \xC3\xA9</text>\n"
                "<annotations><a id=\"0\" type=\"Sentence\" start=\"0\" end=\"%d\"/>"
                "<a id=\"1\" type=\"Token\" start=\"0\" end=\"%d\"><f name=\"n\" type=\"int\">%d</f>"
                "<f name=\"s\" type=\"ref\">0</f></a></annotations></document>\n",
                i, i, snprintf(NULL, 0, "w%d", i) + 2, snprintf(NULL, 0, "w%d", i), i);
    }
    fprintf(f, "</corpus>\n");
    rewind(f);

    crfp_stream in = {f, "stream.xml"};
    crfp_xml_reader *r;
    CHECK_ST(crfp_xml_reader_open(h, &in, 0, &r), CRFP_OK);
    int n = 0, bad = 0;
    for (;;) {
        crfp_doc *d;
        crfp_status st = crfp_xml_reader_next(r, &d);
        if (st != CRFP_OK) {
            fprintf(stderr, "%s\n", crfp_errmsg(h));
            bad++;
            break;
        }
        if (!d)
            break;
        char id[32];
        snprintf(id, sizeof id, "d%d", n);
        crfp_annset *s = crfp_doc_annset(d, "", 0);
        crfp_ann **toks;
        size_t nt;
        if (!s || strcmp(crfp_doc_id(d), id) != 0 ||
            crfp_annset_select(s, "Token", 0, crfp_doc_length(d), &toks, &nt) != CRFP_OK ||
            nt != 1 || crfp_ann_get(toks[0], "n")->u.i != n ||
            crfp_ann_get(toks[0], "s")->u.ref != 0)
            bad++;
        else
            free(toks);
        crfp_doc_free(d);
        n++;
    }
    /* After the end, next keeps answering "no more". */
    crfp_doc *d = (crfp_doc *)&n;
    CHECK_ST(crfp_xml_reader_next(r, &d), CRFP_OK);
    CHECK(d == NULL);
    crfp_xml_reader_close(r);
    fclose(f);
    CHECK(n == NDOC);
    CHECK(bad == 0);
    crfp_host_free(h);
    return doc_failures ? 1 : 0;
}
