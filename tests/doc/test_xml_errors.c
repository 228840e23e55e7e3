/* Bad corpora: each must fail with the right status and a message naming
 * the file and the line of the fault, never crash, never yield a wrong
 * document. */
#include "config.h"
#include "crfpipe/crfpipe.h"
#include "doccheck.h"

#include <stdlib.h>

#define HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<corpus xmlns=\"urn:crfpipe:corpus:1\">\n"
#define GOOD "<document id=\"ok\"><text>fine</text></document>\n"

static const struct bad_case {
    const char *name;
    const char *xml;
    int validate;
    crfp_status want;
    const char *where;  /* "name:line" expected in the message */
    const char *what;   /* and this */
} cases[] = {
    {"malformed", HEAD GOOD "<document id=\"x\"><text>a</txet></document>\n</corpus>\n", 0,
     CRFP_EPARSE, "malformed:4", "text"},
    {"truncated", HEAD GOOD "<document id=\"x\"><text>abc", 0, CRFP_EPARSE, "truncated:", ""},
    {"range", HEAD GOOD "<document id=\"r\"><text>abc</text>\n<annotations>\n"
              "<a id=\"1\" type=\"T\" start=\"1\" end=\"4\"/>\n</annotations></document></corpus>",
     0, CRFP_EINVAL, "range:6", "outside the text"},
    {"surrogate", HEAD GOOD "<document id=\"s\" offsets=\"utf16\"><text>a\xF0\x9F\x98\x80</text>\n"
                  "<annotations><a id=\"1\" type=\"T\" start=\"1\" end=\"2\"/></annotations>"
                  "</document></corpus>",
     0, CRFP_EUTF8, "surrogate:5", "inside a character"},
    {"codepoint-ok-utf16-bad", HEAD GOOD "<document offsets=\"utf16\"><text>\xE4\xB8\xAD\xF0\x9F\x98\x80</text>\n"
                  "<annotations><a id=\"1\" type=\"T\" start=\"0\" end=\"2\"/></annotations>"
                  "</document></corpus>",
     0, CRFP_EUTF8, "codepoint-ok-utf16-bad:5", "end 2"},
    {"badutf8", HEAD GOOD "<document id=\"u\">\n<text>ab\xC0\xAF</text></document></corpus>", 0,
     CRFP_EPARSE, "badutf8:5", "UTF-8"},
    {"badtype", HEAD GOOD "<document id=\"t\"><text>abc</text><annotations>\n"
                "<a id=\"1\" type=\"T\" start=\"0\" end=\"1\">\n"
                "<f name=\"z\" type=\"complex\">1+i</f></a></annotations></document></corpus>",
     0, CRFP_EPARSE, "badtype:6", "unknown type 'complex'"},
    {"dupid", HEAD GOOD "<document id=\"t\"><text>abc</text><annotations>\n"
              "<a id=\"7\" type=\"T\" start=\"0\" end=\"1\"/>\n"
              "<a id=\"7\" type=\"T\" start=\"1\" end=\"2\"/></annotations></document></corpus>",
     0, CRFP_EINVAL, "dupid:6", "duplicate annotation id 7"},
    {"dupid-across-sets", HEAD GOOD "<document id=\"t\"><text>abc</text><annotations>\n"
              "<a id=\"7\" type=\"T\" start=\"0\" end=\"1\"/></annotations>\n<annotations set=\"b\">\n"
              "<a id=\"7\" type=\"T\" start=\"1\" end=\"2\"/></annotations></document></corpus>",
     0, CRFP_EINVAL, "dupid-across-sets:7", "duplicate annotation id"},
    {"dangling", HEAD GOOD "<document id=\"t\"><text>abc</text><annotations>\n"
                 "<a id=\"1\" type=\"T\" start=\"0\" end=\"1\">\n"
                 "<f name=\"head\" type=\"ref\">9</f></a></annotations></document></corpus>",
     0, CRFP_EINVAL, "dangling:6", "annotation 9"},
    {"badint", HEAD GOOD "<document id=\"t\"><text>abc</text><annotations>\n"
               "<a id=\"1\" type=\"T\" start=\"0\" end=\"1\">\n"
               "<f name=\"n\" type=\"int\">12x</f></a></annotations></document></corpus>",
     0, CRFP_EPARSE, "badint:6", "not a valid int"},
    {"badunit", HEAD GOOD "<document offsets=\"words\"><text>abc</text></document></corpus>", 0,
     CRFP_EPARSE, "badunit:4", "unknown offset unit"},
    {"notext", HEAD GOOD "<document id=\"n\">\n</document></corpus>", 0, CRFP_EPARSE, "notext:",
     "without <text>"},
    {"badint-schema", HEAD GOOD "<document id=\"t\"><text>abc</text><annotations>\n"
               "<a id=\"1\" type=\"T\" start=\"0\" end=\"1\">\n"
               "<f name=\"n\" type=\"int\">12x</f></a></annotations></document></corpus>",
     1, CRFP_ESCHEMA, "badint-schema:6", "f"},
    {"wrongns", "<corpus xmlns=\"urn:other\"><document><text/></document></corpus>", 0,
     CRFP_EPARSE, "wrongns:1", "namespace"},
    {"doctype", "<!DOCTYPE corpus [<!ENTITY e \"x\">]>\n<corpus xmlns=\"urn:crfpipe:corpus:1\"/>", 0,
     CRFP_EPARSE, "doctype:", "DOCTYPE"},
    {"badattr", HEAD GOOD "<document id=\"t\" lang=\"en\"><text>abc</text></document></corpus>", 0,
     CRFP_EPARSE, "badattr:4", "unknown attribute 'lang'"},
    {"dupset", HEAD GOOD "<document id=\"t\"><text>abc</text>\n<annotations set=\"a\"/>\n"
               "<annotations set=\"a\"/></document></corpus>",
     0, CRFP_EPARSE, "dupset:6", "appears twice"},
    {"trailing", HEAD GOOD "</corpus>\n<corpus/>", 0, CRFP_EPARSE, "trailing:5", ""},
};

int main(void)
{
    crfp_host *h = crfp_host_new();
    if (!h)
        return 1;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct bad_case *c = &cases[i];
        FILE *f = fmemopen((void *)c->xml, strlen(c->xml), "r");
        crfp_stream in = {f, c->name};
        crfp_xml_reader *r;
        crfp_status st = crfp_xml_reader_open(h, &in, c->validate, &r);
        int ndocs = 0;
        while (st == CRFP_OK) {
            crfp_doc *d;
            st = crfp_xml_reader_next(r, &d);
            if (!d)
                break;
            ndocs++;
            crfp_doc_free(d);
        }
        if (st != c->want) {
            fprintf(stderr, "case %s: got %s (%s), expected %s\n", c->name, crfp_status_str(st),
                    crfp_errmsg(h), crfp_status_str(c->want));
            doc_failures++;
        } else {
            CHECK_MSG(h, c->where);
            CHECK_MSG(h, c->what);
        }
        /* Only the good document before the fault may be delivered; libxml2
         * parses ahead, so errors it detects itself can come first. */
        int lookahead = c->want == CRFP_EPARSE && strstr(" malformed truncated badutf8 trailing ",
                                                         c->name) != NULL;
        if (strstr(c->xml, GOOD) && ndocs != 1 && !(lookahead && ndocs == 0)) {
            fprintf(stderr, "case %s: %d documents delivered before the error\n", c->name, ndocs);
            doc_failures++;
        }
        /* And the reader stays in the error state. */
        if (r) {
            crfp_doc *d;
            CHECK(crfp_xml_reader_next(r, &d) != CRFP_OK && d == NULL);
        }
        crfp_xml_reader_close(r);
        fclose(f);
    }
    crfp_host_free(h);
    if (doc_failures)
        fprintf(stderr, "%d check(s) failed\n", doc_failures);
    return doc_failures ? 1 : 0;
}
