/* XML corpus round trip: documents built with every feature type, offset
 * unit and awkward character are written, read back and compared deeply,
 * then written again and compared byte for byte.  Also: the output is
 * schema-valid, and the writer refuses what XML cannot carry. */
#include "config.h"
#include "crfpipe/crfpipe.h"
#include "doccheck.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#define NDOCS 3

static crfp_doc *build_rich(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new("rich <&> \"doc\"\t1");
    /* Leading/trailing blanks, CR, CRLF, tab, markup characters, emoji. */
    const char *text = "  The \"cat\" <sat> & purred.\r\nSecond\tline \xF0\x9F\x98\x80 \xE4\xB8\xAD\xE6\x96\x87 \n\n ";
    CHECK_ST(crfp_doc_set_text(h, d, text, strlen(text)), CRFP_OK);
    CHECK_ST(crfp_doc_meta_set_str(d, "format", "conll"), CRFP_OK);
    CHECK_ST(crfp_doc_meta_set_str(d, "blank", "  \n "), CRFP_OK);
    crfp_value mv = {.type = CRFP_V_FLOAT, .u.f = 1.0 / 3.0};
    CHECK_ST(crfp_doc_meta_set(d, "third", &mv), CRFP_OK);

    crfp_annset *def = crfp_doc_annset(d, "", 1);
    const char *pn[] = {"template", "odd"}, *pv[] = {"a \"b\" <c>", "x\ny\tz\r"};
    CHECK_ST(crfp_annset_add_processor(d, def, "tokenizer", "1.2", pn, pv, 2), CRFP_OK);
    CHECK_ST(crfp_annset_add_processor(d, def, "bare", "0", NULL, NULL, 0), CRFP_OK);
    crfp_ann *sent, *tok, *emoji;
    CHECK_ST(crfp_annset_add(h, d, def, "Sentence", 2, 27, &sent), CRFP_OK);
    CHECK_ST(crfp_annset_add(h, d, def, "Token", 2, 5, &tok), CRFP_OK);
    CHECK_ST(crfp_annset_add(h, d, def, "Emoji", 41, 43, &emoji), CRFP_OK);
    CHECK_ST(crfp_ann_set_str(d, tok, "form", "The"), CRFP_OK);
    CHECK_ST(crfp_ann_set_str(d, tok, "empty", ""), CRFP_OK);
    CHECK_ST(crfp_ann_set_str(d, tok, "spaces", "  "), CRFP_OK);
    CHECK_ST(crfp_ann_set_str(d, tok, "lines", "\r\n a\rb\n"), CRFP_OK);
    CHECK_ST(crfp_ann_set_str(d, tok, "markup", "<f name=\"x\">&amp;</f>]]>"), CRFP_OK);
    CHECK_ST(crfp_ann_set_int(d, tok, "min", INT64_MIN), CRFP_OK);
    CHECK_ST(crfp_ann_set_int(d, tok, "max", INT64_MAX), CRFP_OK);
    CHECK_ST(crfp_ann_set_float(d, tok, "tenth", 0.1), CRFP_OK);
    CHECK_ST(crfp_ann_set_float(d, tok, "big", 1.7976931348623157e308), CRFP_OK);
    CHECK_ST(crfp_ann_set_float(d, tok, "tiny", 4.9406564584124654e-324), CRFP_OK);
    CHECK_ST(crfp_ann_set_float(d, tok, "negzero", -0.0), CRFP_OK);
    CHECK_ST(crfp_ann_set_float(d, tok, "nan", NAN), CRFP_OK);
    CHECK_ST(crfp_ann_set_float(d, tok, "inf", INFINITY), CRFP_OK);
    CHECK_ST(crfp_ann_set_float(d, tok, "ninf", -INFINITY), CRFP_OK);
    CHECK_ST(crfp_ann_set_bool(d, tok, "yes", 1), CRFP_OK);
    CHECK_ST(crfp_ann_set_bool(d, tok, "no", 0), CRFP_OK);
    CHECK_ST(crfp_ann_set_ref(d, tok, "sentence", sent->id), CRFP_OK);
    crfp_value in[3] = {{.type = CRFP_V_REF, .u.ref = emoji->id},
                        {.type = CRFP_V_STRING, .u.s = " x "},
                        {.type = CRFP_V_LIST, .u.list = {NULL, 0}}};
    crfp_value items[4] = {{.type = CRFP_V_INT, .u.i = -5},
                           {.type = CRFP_V_LIST, .u.list = {in, 3}},
                           {.type = CRFP_V_BOOL, .u.b = 1},
                           {.type = CRFP_V_FLOAT, .u.f = 2.5}};
    crfp_value list = {.type = CRFP_V_LIST, .u.list = {items, 4}};
    CHECK_ST(crfp_ann_set(d, tok, "list", &list), CRFP_OK);
    crfp_value empty = {.type = CRFP_V_LIST, .u.list = {NULL, 0}};
    CHECK_ST(crfp_ann_set(d, emoji, "nothing", &empty), CRFP_OK);

    crfp_annset *ner = crfp_doc_annset(d, "ner \"x\"", 1);
    crfp_ann *e;
    CHECK_ST(crfp_annset_add_with_id(h, d, ner, 1000, "PER", 44, 46, &e), CRFP_OK);
    CHECK_ST(crfp_ann_set_ref(d, e, "in", sent->id), CRFP_OK);
    CHECK(crfp_doc_annset(d, "unused", 1) != NULL); /* an empty set survives */
    return d;
}

static crfp_doc *build_codepoint(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new(NULL);
    crfp_doc_set_offset_unit(d, CRFP_OFFSET_CODEPOINT);
    const char *text = "\xF0\x9F\x98\x80\xF0\x9F\x98\x80 ok";
    CHECK_ST(crfp_doc_set_text(h, d, text, strlen(text)), CRFP_OK);
    crfp_annset *s = crfp_doc_annset(d, "", 1);
    CHECK_ST(crfp_annset_add(h, d, s, "Emoji", 1, 2, NULL), CRFP_OK);
    return d;
}

static crfp_doc *build_empty(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new("");
    crfp_doc_set_offset_unit(d, CRFP_OFFSET_BYTE);
    CHECK_ST(crfp_doc_set_text(h, d, "", 0), CRFP_OK);
    return d;
}

static int write_docs(crfp_host *h, crfp_doc **docs, size_t n, char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    crfp_stream out = {f, "mem.xml"};
    crfp_xml_writer *w;
    crfp_status st = crfp_xml_writer_open(h, &out, &w);
    for (size_t i = 0; st == CRFP_OK && i < n; i++)
        st = crfp_xml_writer_write(w, docs[i]);
    if (st == CRFP_OK)
        st = crfp_xml_writer_finish(w);
    if (st != CRFP_OK)
        fprintf(stderr, "write: %s\n", crfp_errmsg(h));
    crfp_xml_writer_close(w);
    fclose(f);
    return st == CRFP_OK;
}

static size_t read_docs(crfp_host *h, const char *buf, size_t len, int validate, crfp_doc **docs,
                        size_t max)
{
    FILE *f = fmemopen((void *)buf, len, "r");
    crfp_stream in = {f, "mem.xml"};
    crfp_xml_reader *r;
    size_t n = 0;
    crfp_status st = crfp_xml_reader_open(h, &in, validate, &r);
    while (st == CRFP_OK) {
        crfp_doc *d;
        st = crfp_xml_reader_next(r, &d);
        if (st != CRFP_OK || !d)
            break;
        if (n < max)
            docs[n] = d;
        else
            crfp_doc_free(d);
        n++;
    }
    if (st != CRFP_OK)
        fprintf(stderr, "read: %s\n", crfp_errmsg(h));
    CHECK_ST(st, CRFP_OK);
    crfp_xml_reader_close(r);
    fclose(f);
    return n;
}

static void test_roundtrip(crfp_host *h)
{
    crfp_doc *docs[NDOCS] = {build_rich(h), build_codepoint(h), build_empty(h)};
    char *x1 = NULL, *x2 = NULL;
    size_t l1 = 0, l2 = 0;
    CHECK(write_docs(h, docs, NDOCS, &x1, &l1));
    /* CR must be a character reference: a literal one would be lost. */
    CHECK(memchr(x1, '\r', l1) == NULL);
    CHECK(strstr(x1, "&#13;") != NULL);

    for (int validate = 0; validate <= 1; validate++) {
        crfp_doc *back[NDOCS + 1] = {0};
        size_t n = read_docs(h, x1, l1, validate, back, NDOCS + 1);
        CHECK(n == NDOCS);
        for (size_t i = 0; i < NDOCS && i < n; i++) {
            char why[256] = "";
            int eq = crfp_doc_equal(docs[i], back[i], why, sizeof why);
            if (!eq)
                fprintf(stderr, "document %zu differs after the round trip: %s\n", i, why);
            CHECK(eq);
        }
        if (n >= 1) {
            crfp_ann *tok = crfp_annset_get(crfp_doc_annset(back[0], "", 0), 1);
            CHECK(tok && signbit(crfp_ann_get(tok, "negzero")->u.f));
            CHECK(tok && isnan(crfp_ann_get(tok, "nan")->u.f));
            CHECK(tok && crfp_ann_get(tok, "tenth")->u.f == 0.1);
        }
        if (!validate && n == NDOCS) {
            CHECK(write_docs(h, back, NDOCS, &x2, &l2));
            CHECK(l1 == l2 && memcmp(x1, x2, l1) == 0);
            if (l1 != l2 || memcmp(x1, x2, l1) != 0)
                fprintf(stderr, "first write:\n%s\nsecond write:\n%s\n", x1, x2);
        }
        for (size_t i = 0; i < NDOCS && i < n; i++)
            crfp_doc_free(back[i]);
    }

    /* The whole-file validator accepts the writer's output. */
    char path[] = "roundtrip-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, x1, l1) == (ssize_t)l1);
        close(fd);
        crfp_status st = crfp_xml_validate_file(h, path, "document");
        if (st != CRFP_OK)
            fprintf(stderr, "validate: %s\n", crfp_errmsg(h));
        CHECK_ST(st, CRFP_OK);
        unlink(path);
    }
    free(x1);
    free(x2);
    for (size_t i = 0; i < NDOCS; i++)
        crfp_doc_free(docs[i]);
}

static void test_writer_refusals(crfp_host *h)
{
    crfp_doc *ctl = crfp_doc_new("ctl");
    CHECK_ST(crfp_doc_set_text(h, ctl, "bell\x07", 5), CRFP_OK);
    crfp_doc *dang = crfp_doc_new("dang");
    CHECK_ST(crfp_doc_set_text(h, dang, "ab", 2), CRFP_OK);
    crfp_ann *a;
    crfp_annset_add(h, dang, crfp_doc_annset(dang, "", 1), "T", 0, 1, &a);
    crfp_ann_set_ref(dang, a, "to", 77);
    crfp_doc *fine = crfp_doc_new("fine");
    CHECK_ST(crfp_doc_set_text(h, fine, "ok", 2), CRFP_OK);
    crfp_doc *nonchar = crfp_doc_new("nonchar");
    CHECK_ST(crfp_doc_set_text(h, nonchar, "x", 1), CRFP_OK);
    crfp_annset_add(h, nonchar, crfp_doc_annset(nonchar, "", 1), "T", 0, 1, &a);
    crfp_ann_set_str(nonchar, a, "v", "ok\xEF\xBF\xBF");
    /* a plugin's own strings: an annotation type, a feature name */
    crfp_doc *badtype = crfp_doc_new("badtype");
    CHECK_ST(crfp_doc_set_text(h, badtype, "x", 1), CRFP_OK);
    crfp_annset_add(h, badtype, crfp_doc_annset(badtype, "", 1), "E\x92y", 0, 1, &a);
    crfp_doc *badname = crfp_doc_new("badname");
    CHECK_ST(crfp_doc_set_text(h, badname, "x", 1), CRFP_OK);
    crfp_annset_add(h, badname, crfp_doc_annset(badname, "", 1), "T", 0, 1, &a);
    crfp_ann_set_str(badname, a, "n\xC3", "v");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    crfp_stream out = {f, "out.xml"};
    crfp_xml_writer *w;
    CHECK_ST(crfp_xml_writer_open(h, &out, &w), CRFP_OK);
    CHECK_ST(crfp_xml_writer_write(w, ctl), CRFP_EINVAL);
    CHECK_MSG(h, "U+0007");
    CHECK_MSG(h, "out.xml");
    CHECK_ST(crfp_xml_writer_write(w, dang), CRFP_EINVAL);
    CHECK_MSG(h, "annotation 77");
    CHECK_ST(crfp_xml_writer_write(w, nonchar), CRFP_EINVAL);
    CHECK_MSG(h, "U+FFFF");
    CHECK_ST(crfp_xml_writer_write(w, badtype), CRFP_EINVAL);
    CHECK_MSG(h, "an annotation type is not valid UTF-8 (byte 1)");
    CHECK_ST(crfp_xml_writer_write(w, badname), CRFP_EINVAL);
    CHECK_MSG(h, "a feature name is not valid UTF-8");
    CHECK_ST(crfp_xml_writer_write(w, fine), CRFP_OK);
    CHECK_ST(crfp_xml_writer_finish(w), CRFP_OK);
    crfp_xml_writer_close(w);
    fclose(f);
    /* Refused documents left nothing behind. */
    crfp_doc *back[2] = {0};
    CHECK(read_docs(h, buf, len, 1, back, 2) == 1);
    CHECK(back[0] && strcmp(crfp_doc_id(back[0]), "fine") == 0);
    crfp_doc_free(back[0]);
    free(buf);
    crfp_doc_free(ctl);
    crfp_doc_free(dang);
    crfp_doc_free(fine);
    crfp_doc_free(nonchar);
    crfp_doc_free(badtype);
    crfp_doc_free(badname);
}

int main(void)
{
    crfp_host *h = crfp_host_new();
    if (!h)
        return 1;
    test_roundtrip(h);
    test_writer_refusals(h);
    crfp_host_free(h);
    if (doc_failures)
        fprintf(stderr, "%d check(s) failed\n", doc_failures);
    return doc_failures ? 1 : 0;
}
