/* Unit tests of the document model: text and UTF-8 checks, offsets in each
 * unit (with non-BMP characters), annotations, select, features of every
 * type, meta, processors and deep comparison. */
#include "config.h"
#include "crfpipe/crfpipe.h"
#include "doccheck.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* "a😀b中c": a(1) 😀(4 bytes, 2 UTF-16 units) b(1) 中(3 bytes) c(1). */
static const char MIXED[] = "a\xF0\x9F\x98\x80" "b\xE4\xB8\xAD" "c";

static void test_text(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new("t");
    CHECK(d != NULL);
    CHECK_STR(crfp_doc_id(d), "t");
    size_t len;
    CHECK_STR(crfp_doc_text(d, &len), "");
    CHECK(len == 0);
    CHECK(crfp_doc_length(d) == 0);

    /* Each invalid form, and the byte offset it must be reported at. */
    static const struct { const char *s; size_t n; const char *off; } bad[] = {
        {"ab\x80", 3, "offset 2"},              /* stray continuation */
        {"a\xC0\xAF", 3, "offset 1"},           /* overlong '/' */
        {"xy\xE0\x80\xAF", 5, "offset 2"},      /* overlong 3-byte */
        {"\xED\xA0\x80", 3, "offset 0"},        /* surrogate U+D800 */
        {"abc\xF4\x90\x80\x80", 7, "offset 3"}, /* U+110000 */
        {"ok\xE4\xB8", 4, "offset 2"},          /* truncated */
        {"\xFF", 1, "offset 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_ST(crfp_doc_set_text(h, d, bad[i].s, bad[i].n), CRFP_EUTF8);
        CHECK_MSG(h, bad[i].off);
    }
    CHECK_ST(crfp_doc_set_text(h, d, MIXED, sizeof MIXED - 1), CRFP_OK);
    CHECK(crfp_doc_length(d) == 6);
    CHECK_ST(crfp_doc_set_offset_unit(d, CRFP_OFFSET_CODEPOINT), CRFP_OK);
    CHECK(crfp_doc_length(d) == 5);
    CHECK_ST(crfp_doc_set_offset_unit(d, CRFP_OFFSET_BYTE), CRFP_OK);
    CHECK(crfp_doc_length(d) == 10);
    CHECK_ST(crfp_doc_set_offset_unit(d, CRFP_OFFSET_UTF16), CRFP_OK);

    /* The text is frozen once annotations exist, and so is the unit. */
    crfp_annset *s = crfp_doc_annset(d, "", 1);
    CHECK_ST(crfp_annset_add(h, d, s, "X", 0, 1, NULL), CRFP_OK);
    CHECK_ST(crfp_doc_set_text(h, d, "abc", 3), CRFP_EINVAL);
    CHECK_ST(crfp_doc_set_offset_unit(d, CRFP_OFFSET_BYTE), CRFP_EINVAL);
    crfp_doc_free(d);

    CHECK_STR(crfp_offset_unit_name(CRFP_OFFSET_CODEPOINT), "codepoint");
    CHECK(crfp_offset_unit_parse("utf16") == CRFP_OFFSET_UTF16);
    CHECK(crfp_offset_unit_parse("byte") == CRFP_OFFSET_BYTE);
    CHECK(crfp_offset_unit_parse("utf8") == -1);
}

static void test_offsets(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new(NULL);
    CHECK(crfp_doc_id(d) == NULL);
    CHECK_ST(crfp_doc_set_text(h, d, MIXED, sizeof MIXED - 1), CRFP_OK);
    size_t b, o;
    /* UTF-16: a=0, 😀=1..2, b=3, 中=4, c=5, end=6. */
    CHECK(crfp_doc_length(d) == 6);
    static const struct { size_t u16; size_t byte; } map16[] = {
        {0, 0}, {1, 1}, {3, 5}, {4, 6}, {5, 9}, {6, 10}};
    for (size_t i = 0; i < sizeof map16 / sizeof *map16; i++) {
        CHECK_ST(crfp_doc_to_byte(d, map16[i].u16, &b), CRFP_OK);
        CHECK(b == map16[i].byte);
        CHECK_ST(crfp_doc_from_byte(d, map16[i].byte, &o), CRFP_OK);
        CHECK(o == map16[i].u16);
    }
    /* Between the halves of the surrogate pair of 😀. */
    CHECK_ST(crfp_doc_to_byte(d, 2, &b), CRFP_EUTF8);
    CHECK_ST(crfp_doc_to_byte(d, 7, &b), CRFP_EINVAL);
    CHECK_ST(crfp_doc_from_byte(d, 2, &o), CRFP_EUTF8); /* inside 😀's bytes */
    CHECK_ST(crfp_doc_from_byte(d, 7, &o), CRFP_EUTF8); /* inside 中 */
    CHECK_ST(crfp_doc_from_byte(d, 11, &o), CRFP_EINVAL);

    crfp_annset *s = crfp_doc_annset(d, "", 1);
    crfp_ann *a = NULL;
    CHECK_ST(crfp_annset_add(h, d, s, "Emoji", 1, 3, &a), CRFP_OK);
    CHECK(a && a->start == 1 && a->end == 3);
    CHECK_ST(crfp_annset_add(h, d, s, "Half", 1, 2, NULL), CRFP_EUTF8);
    CHECK_MSG(h, "inside a character");
    CHECK_ST(crfp_annset_add(h, d, s, "Half", 2, 3, NULL), CRFP_EUTF8);
    CHECK_ST(crfp_annset_add(h, d, s, "Far", 2, 9, NULL), CRFP_EINVAL);
    CHECK_MSG(h, "outside the text");
    CHECK_ST(crfp_annset_add(h, d, s, "Back", 3, 1, NULL), CRFP_EINVAL);
    CHECK(crfp_annset_size(s) == 1);
    crfp_doc_free(d);

    /* Code points: 😀 is one unit. */
    d = crfp_doc_new("cp");
    crfp_doc_set_offset_unit(d, CRFP_OFFSET_CODEPOINT);
    CHECK_ST(crfp_doc_set_text(h, d, MIXED, sizeof MIXED - 1), CRFP_OK);
    CHECK(crfp_doc_length(d) == 5);
    CHECK_ST(crfp_doc_to_byte(d, 2, &b), CRFP_OK);
    CHECK(b == 5);
    CHECK_ST(crfp_doc_to_byte(d, 4, &b), CRFP_OK);
    CHECK(b == 9);
    CHECK_ST(crfp_doc_from_byte(d, 6, &o), CRFP_OK);
    CHECK(o == 3);
    crfp_doc_free(d);

    /* Bytes: continuation bytes are not boundaries. */
    d = crfp_doc_new("b");
    crfp_doc_set_offset_unit(d, CRFP_OFFSET_BYTE);
    CHECK_ST(crfp_doc_set_text(h, d, MIXED, sizeof MIXED - 1), CRFP_OK);
    CHECK_ST(crfp_doc_to_byte(d, 5, &b), CRFP_OK);
    CHECK(b == 5);
    CHECK_ST(crfp_doc_to_byte(d, 3, &b), CRFP_EUTF8);
    CHECK_ST(crfp_doc_to_byte(d, 12, &b), CRFP_EINVAL);
    crfp_annset *bs = crfp_doc_annset(d, "x", 1);
    CHECK_ST(crfp_annset_add(h, d, bs, "Han", 6, 9, NULL), CRFP_OK);
    CHECK_ST(crfp_annset_add(h, d, bs, "Han", 7, 9, NULL), CRFP_EUTF8);
    crfp_doc_free(d);

    /* A long text with many multi-byte characters: every mapping inverts. */
    d = crfp_doc_new("long");
    char *big = malloc(4000 * 8);
    size_t n = 0;
    for (int i = 0; i < 4000; i++) {
        switch (i % 4) {
        case 0: big[n++] = 'x'; break;
        case 1: memcpy(big + n, "\xC3\xA9", 2); n += 2; break;          /* é */
        case 2: memcpy(big + n, "\xE4\xB8\xAD", 3); n += 3; break;      /* 中 */
        case 3: memcpy(big + n, "\xF0\x9F\x98\x80", 4); n += 4; break;  /* 😀 */
        }
    }
    CHECK_ST(crfp_doc_set_text(h, d, big, n), CRFP_OK);
    CHECK(crfp_doc_length(d) == 5000);
    size_t u = 0, bytes = 0, bad = 0;
    for (int i = 0; i < 4000; i++) {
        if (crfp_doc_to_byte(d, u, &b) != CRFP_OK || b != bytes ||
            crfp_doc_from_byte(d, bytes, &o) != CRFP_OK || o != u)
            bad++;
        int k = i % 4;
        if (k == 3 && crfp_doc_to_byte(d, u + 1, &b) != CRFP_EUTF8)
            bad++;
        u += k == 3 ? 2 : 1;
        bytes += (size_t)(k + 1);
    }
    CHECK(bad == 0);
    free(big);
    crfp_doc_free(d);
}

static void test_annotations(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new("ann");
    const char *text = "The cat sat.\nIt purred.";
    CHECK_ST(crfp_doc_set_text(h, d, text, strlen(text)), CRFP_OK);
    crfp_annset *s = crfp_doc_annset(d, "", 1);
    CHECK(crfp_doc_annset(d, "", 0) == s);
    CHECK(crfp_doc_annset(d, "other", 0) == NULL);
    CHECK(crfp_doc_annset_count(d) == 1);
    CHECK_STR(crfp_annset_name(s), "");

    /* Added out of order on purpose: select must sort. */
    crfp_ann *toks[6], *s2, *s1;
    CHECK_ST(crfp_annset_add(h, d, s, "Sentence", 13, 23, &s2), CRFP_OK);
    static const size_t spans[6][2] = {{13, 15}, {16, 22}, {22, 23}, {0, 3}, {4, 7}, {8, 11}};
    for (int i = 0; i < 6; i++)
        CHECK_ST(crfp_annset_add(h, d, s, "Token", spans[i][0], spans[i][1], &toks[i]), CRFP_OK);
    CHECK_ST(crfp_annset_add(h, d, s, "Sentence", 0, 12, &s1), CRFP_OK);
    crfp_ann *first = crfp_annset_get(s, 0);
    CHECK(first == s2);
    CHECK(crfp_annset_size(s) == 8);
    CHECK(crfp_annset_get(s, 8) == NULL);

    /* Ids are fresh and unique; explicit ids must not collide. */
    CHECK(s1->id != s2->id && toks[0]->id != toks[1]->id);
    CHECK(crfp_doc_find_ann(d, toks[3]->id) == toks[3]);
    CHECK(crfp_doc_find_ann(d, 9999) == NULL);
    CHECK_ST(crfp_annset_add_with_id(h, d, s, toks[2]->id, "Token", 0, 1, NULL), CRFP_EINVAL);
    CHECK_MSG(h, "duplicate annotation id");
    crfp_ann *x;
    CHECK_ST(crfp_annset_add_with_id(h, d, s, 100, "Mark", 12, 12, &x), CRFP_OK);
    CHECK(x->id == 100);
    crfp_ann *y;
    CHECK_ST(crfp_annset_add(h, d, s, "Mark", 23, 23, &y), CRFP_OK);
    CHECK(y->id == 101);

    crfp_ann **res;
    size_t n;
    CHECK_ST(crfp_annset_select(s, "Token", s1->start, s1->end, &res, &n), CRFP_OK);
    CHECK(n == 3);
    if (n == 3)
        CHECK(res[0] == toks[3] && res[1] == toks[4] && res[2] == toks[5]);
    free(res);
    CHECK_ST(crfp_annset_select(s, "Token", s2->start, s2->end, &res, &n), CRFP_OK);
    CHECK(n == 3 && res[0] == toks[0] && res[2] == toks[2]);
    free(res);
    /* Any type: enclosing first (start, -end, id); zero-length marks at the
     * end of the range are inside it. */
    CHECK_ST(crfp_annset_select(s, NULL, 0, 12, &res, &n), CRFP_OK);
    CHECK(n == 5);
    if (n == 5)
        CHECK(res[0] == s1 && res[1] == toks[3] && res[4] == x);
    free(res);
    CHECK_ST(crfp_annset_select(s, "Nothing", 0, 23, &res, &n), CRFP_OK);
    CHECK(n == 0 && res == NULL);
    CHECK_ST(crfp_annset_select(s, "Token", 5, 20, &res, &n), CRFP_OK);
    CHECK(n == 2 && res[0] == toks[5] && res[1] == toks[0]);
    free(res);

    /* The index follows later additions, in order or not. */
    crfp_ann *late;
    CHECK_ST(crfp_annset_add(h, d, s, "Token", 4, 5, &late), CRFP_OK);
    CHECK_ST(crfp_annset_select(s, "Token", 0, 12, &res, &n), CRFP_OK);
    CHECK(n == 4 && res[1] == toks[4] && res[2] == late);
    free(res);

    /* Pointers stay valid while the set grows a lot. */
    for (int i = 0; i < 20000; i++)
        if (crfp_annset_add(h, d, s, "Filler", 0, 0, NULL) != CRFP_OK)
            break;
    CHECK(crfp_annset_size(s) == 20011);
    CHECK(toks[3]->start == 0 && toks[3]->end == 3 && strcmp(toks[3]->type, "Token") == 0);
    CHECK_ST(crfp_annset_select(s, "Token", 0, 23, &res, &n), CRFP_OK);
    CHECK(n == 7);
    free(res);
    crfp_doc_free(d);
}

static void test_features(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new("f");
    CHECK_ST(crfp_doc_set_text(h, d, "word", 4), CRFP_OK);
    crfp_annset *s = crfp_doc_annset(d, "feat", 1);
    crfp_ann *a, *b;
    CHECK_ST(crfp_annset_add(h, d, s, "Token", 0, 4, &a), CRFP_OK);
    CHECK_ST(crfp_annset_add(h, d, s, "Token", 0, 4, &b), CRFP_OK);

    char name[8] = "form";
    CHECK_ST(crfp_ann_set_str(d, a, name, "word"), CRFP_OK);
    name[0] = 'X'; /* names are copied */
    CHECK_STR(crfp_ann_str(a, "form"), "word");
    CHECK_ST(crfp_ann_set_int(d, a, "n", INT64_MIN), CRFP_OK);
    CHECK_ST(crfp_ann_set_float(d, a, "p", 0.1), CRFP_OK);
    CHECK_ST(crfp_ann_set_bool(d, a, "ok", 7), CRFP_OK);
    CHECK_ST(crfp_ann_set_ref(d, a, "head", b->id), CRFP_OK);
    CHECK(crfp_ann_get(a, "n")->type == CRFP_V_INT && crfp_ann_get(a, "n")->u.i == INT64_MIN);
    CHECK(crfp_ann_get(a, "p")->u.f == 0.1);
    CHECK(crfp_ann_get(a, "ok")->u.b == 1);
    CHECK(crfp_ann_get(a, "head")->type == CRFP_V_REF && crfp_ann_get(a, "head")->u.ref == b->id);
    CHECK(crfp_ann_get(a, "missing") == NULL);
    CHECK(crfp_ann_str(a, "n") == NULL);

    /* Replacing keeps the position; other features are untouched. */
    CHECK_ST(crfp_ann_set_str(d, a, "n", "seven"), CRFP_OK);
    CHECK(a->nfeats == 5);
    CHECK_STR(a->feats[1].name, "n");
    CHECK_STR(crfp_ann_str(a, "n"), "seven");

    /* Nested list, deep-copied. */
    char buf[8] = "inner";
    crfp_value inner[2] = {{.type = CRFP_V_STRING, .u.s = buf}, {.type = CRFP_V_FLOAT, .u.f = -0.0}};
    crfp_value outer[3] = {{.type = CRFP_V_INT, .u.i = 3},
                           {.type = CRFP_V_LIST, .u.list = {inner, 2}},
                           {.type = CRFP_V_LIST, .u.list = {NULL, 0}}};
    crfp_value list = {.type = CRFP_V_LIST, .u.list = {outer, 3}};
    CHECK_ST(crfp_ann_set(d, b, "l", &list), CRFP_OK);
    buf[0] = 'X';
    const crfp_value *l = crfp_ann_get(b, "l");
    CHECK(l && l->type == CRFP_V_LIST && l->u.list.n == 3);
    if (l && l->u.list.n == 3) {
        CHECK(l->u.list.items[0].u.i == 3);
        CHECK_STR(l->u.list.items[1].u.list.items[0].u.s, "inner");
        CHECK(signbit(l->u.list.items[1].u.list.items[1].u.f));
        CHECK(l->u.list.items[2].u.list.n == 0);
        CHECK(crfp_value_equal(l, &list) == 0); /* buf changed since */
    }
    /* Invalid UTF-8 in a string value is refused. */
    CHECK_ST(crfp_ann_set_str(d, b, "bad", "\xC0\x80"), CRFP_EUTF8);
    CHECK(crfp_ann_get(b, "bad") == NULL);

    /* Many features on many annotations (the column readers' load). */
    crfp_ann *many[1000];
    for (int i = 0; i < 1000; i++) {
        crfp_annset_add(h, d, s, "Token", 0, 4, &many[i]);
        for (int k = 0; k < 10; k++) {
            char nm[8], val[16];
            snprintf(nm, sizeof nm, "c%d", k);
            snprintf(val, sizeof val, "v%d_%d", i, k);
            crfp_ann_set_str(d, many[i], nm, val);
        }
    }
    int wrong = 0;
    for (int i = 0; i < 1000; i++) {
        char val[16];
        snprintf(val, sizeof val, "v%d_9", i);
        if (many[i]->nfeats != 10 || strcmp(crfp_ann_str(many[i], "c9"), val) != 0)
            wrong++;
    }
    CHECK(wrong == 0);
    crfp_doc_free(d);
}

static void test_meta_processors_equal(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new("m");
    CHECK_ST(crfp_doc_meta_set_str(d, "format", "conll"), CRFP_OK);
    crfp_value iv = {.type = CRFP_V_INT, .u.i = 42};
    CHECK_ST(crfp_doc_meta_set(d, "n", &iv), CRFP_OK);
    CHECK_ST(crfp_doc_meta_set_str(d, "format", "conllu"), CRFP_OK);
    CHECK_STR(crfp_doc_meta_str(d, "format"), "conllu");
    CHECK(crfp_doc_meta_str(d, "n") == NULL);
    CHECK(crfp_doc_meta_get(d, "n")->u.i == 42);
    size_t nm;
    const crfp_feature *meta = crfp_doc_meta(d, &nm);
    CHECK(nm == 2 && strcmp(meta[0].name, "format") == 0);

    crfp_annset *s = crfp_doc_annset(d, "tagger", 1);
    const char *names[] = {"model", "nbest"}, *vals[] = {"m.crf", "1"};
    CHECK_ST(crfp_annset_add_processor(d, s, "viterbi", "1.0", names, vals, 2), CRFP_OK);
    CHECK_ST(crfp_annset_add_processor(d, s, "tok", "0.1", NULL, NULL, 0), CRFP_OK);
    size_t np;
    const crfp_processor *p = crfp_annset_processors(s, &np);
    CHECK(np == 2);
    CHECK_STR(p[0].plugin, "viterbi");
    CHECK_STR(p[0].param_values[0], "m.crf");
    CHECK(p[1].nparams == 0);

    crfp_doc *e = crfp_doc_new("m");
    crfp_doc_meta_set_str(e, "format", "conllu");
    crfp_doc_meta_set(e, "n", &iv);
    crfp_annset *t = crfp_doc_annset(e, "tagger", 1);
    crfp_annset_add_processor(e, t, "viterbi", "1.0", names, vals, 2);
    crfp_annset_add_processor(e, t, "tok", "0.1", NULL, NULL, 0);
    char why[200];
    CHECK(crfp_doc_equal(d, e, why, sizeof why));
    crfp_doc_set_text(h, e, "x", 1);
    CHECK(!crfp_doc_equal(d, e, why, sizeof why));
    CHECK_STR(why, "texts differ");
    crfp_doc_free(e);
    crfp_doc_free(d);
}

/* The reader calls (issue 8): adopted buffers, features by reference,
 * interned names, reserved room, the memory figure. */
static void test_borrowed(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new("b");
    char *text = malloc(32);
    CHECK(d && text);
    if (!d || !text)
        return;
    memcpy(text, "Rockwell said .", 15);
    CHECK_ST(crfp_doc_set_text_owned(h, d, text, 15), CRFP_OK);
    CHECK(crfp_doc_text(d, NULL) == text); /* taken, not copied */
    char *bad = malloc(4);
    memcpy(bad, "a\xFF" "b", 4);
    CHECK_ST(crfp_doc_set_text_owned(h, d, bad, 3), CRFP_EUTF8); /* and freed */

    /* a line buffer with its fields NUL-terminated in place */
    char *line = malloc(32);
    memcpy(line, "Rockwell\0NNP\0B-NP\0\xC3", 19);
    CHECK_ST(crfp_doc_adopt(d, line, 32), CRFP_OK);
    size_t before = crfp_doc_memory(d);
    crfp_annset *set = crfp_doc_annset(d, "", 1);
    crfp_ann *t = NULL;
    CHECK_ST(crfp_annset_add(h, d, set, "Token", 0, 8, &t), CRFP_OK);
    if (!t)
        return;
    CHECK_ST(crfp_ann_reserve(d, t, 4), CRFP_OK);
    const crfp_feature *room = t->feats;
    const char *names[] = {"word", "pos", "chunk"};
    const char *vals[] = {line, line + 9, line + 13};
    size_t lens[] = {8, 3, 4};
    CHECK_ST(crfp_ann_set_strs_ref(d, t, names, vals, lens, 3), CRFP_OK);
    CHECK(t->nfeats == 3 && t->feats == room); /* no new array */
    CHECK(crfp_ann_str(t, "pos") == line + 9);  /* no copy */
    CHECK_STR(crfp_ann_str(t, "chunk"), "B-NP");
    /* feature names are the document's interned copies */
    const char *iw = crfp_doc_name(d, "word");
    CHECK(iw && iw == t->feats[0].name && iw == crfp_doc_intern(d, "word"));
    CHECK(crfp_doc_name(d, "nonesuch") == NULL);
    CHECK(crfp_ann_get(t, iw) == &t->feats[0].value);
    /* replacing by reference; a string of the document may be referred to */
    CHECK_ST(crfp_ann_set_str_ref(d, t, "pos", crfp_doc_intern(d, "NNS")), CRFP_OK);
    CHECK(t->nfeats == 3);
    CHECK_STR(crfp_ann_str(t, "pos"), "NNS");
    CHECK_ST(crfp_ann_set_str_ref(d, t, "predicted", t->feats[2].value.u.s), CRFP_OK);
    CHECK(t->nfeats == 4 && t->feats == room);
    /* the checks still apply: a length that is not the string's, bad UTF-8 */
    crfp_ann *u = NULL;
    CHECK_ST(crfp_annset_add(h, d, set, "Token", 9, 13, &u), CRFP_OK);
    size_t wrong[] = {7, 3, 4};
    CHECK_ST(crfp_ann_set_strs_ref(d, u, names, vals, wrong, 3), CRFP_EINVAL);
    const char *badv[] = {line + 18};
    size_t badl[] = {1};
    line[19] = '\0';
    CHECK_ST(crfp_ann_set_strs_ref(d, u, names, badv, badl, 1), CRFP_EUTF8);
    CHECK_ST(crfp_ann_set_str_ref(d, u, "word", line + 18), CRFP_EUTF8);
    /* a repeated name in one call: the last value, one feature */
    const char *dupn[] = {"x", "x"}, *dupv[] = {line, line + 9};
    crfp_ann *w = NULL;
    CHECK_ST(crfp_annset_add(h, d, set, "Token", 14, 15, &w), CRFP_OK);
    CHECK_ST(crfp_ann_set_strs_ref(d, w, dupn, dupv, NULL, 2), CRFP_OK);
    CHECK(w->nfeats == 1);
    CHECK_STR(crfp_ann_str(w, "x"), "NNP");
    /* added to features a reader reserved exactly: one new array of the
     * exact size (a later stage's batch must not leave 4 + 8 slots behind
     * in the arena for 5), so the next feature needs another */
    crfp_ann *r = NULL;
    CHECK_ST(crfp_annset_add(h, d, set, "Token", 0, 3, &r), CRFP_OK);
    CHECK_ST(crfp_ann_reserve(d, r, 2), CRFP_OK);
    CHECK_ST(crfp_ann_set_strs_ref(d, r, names, vals, lens, 2), CRFP_OK);
    const crfp_feature *two = r->feats;
    const char *more[] = {"maj", "majne", "word", "majspan"};
    const char *mv[] = {"PER", "LOC", line + 9, "none"};
    CHECK_ST(crfp_ann_set_strs_ref(d, r, more, mv, NULL, 4), CRFP_OK);
    CHECK(r->nfeats == 5 && r->feats != two);
    CHECK_STR(crfp_ann_str(r, "word"), "NNP");
    CHECK_STR(crfp_ann_str(r, "pos"), "NNP");
    CHECK_STR(crfp_ann_str(r, "majne"), "LOC");
    const crfp_feature *five = r->feats;
    CHECK_ST(crfp_ann_set_str_ref(d, r, "majspan", "PER"), CRFP_OK);
    CHECK(r->feats == five);
    CHECK_ST(crfp_ann_set_str_ref(d, r, "sixth", "x"), CRFP_OK);
    CHECK(r->nfeats == 6 && r->feats != five);
    CHECK_STR(crfp_ann_str(r, "maj"), "PER");
    CHECK(crfp_doc_memory(d) >= before && before >= 32);
    crfp_doc_free(d); /* frees text and line: valgrind/ASan would tell */
}

/* Ids and order: no id table while ids increase, one once they do not; the
 * sorted view of a set whose order broke (spans added after the tokens). */
static void test_ids_and_order(crfp_host *h)
{
    crfp_doc *d = crfp_doc_new("o");
    CHECK_ST(crfp_doc_set_text(h, d, "a b c d e f g h", 15), CRFP_OK);
    crfp_annset *toks = crfp_doc_annset(d, "", 1), *ents = crfp_doc_annset(d, "ner", 1);
    crfp_ann *a[8];
    for (int i = 0; i < 8; i++)
        CHECK_ST(crfp_annset_add(h, d, toks, "Token", (size_t)2 * i, (size_t)2 * i + 1, &a[i]),
                 CRFP_OK);
    /* another set, ids given out of order, some below the first set's */
    static const uint64_t ids[] = {100, 50, 75, 20};
    crfp_ann *e[4];
    for (int i = 0; i < 4; i++)
        CHECK_ST(crfp_annset_add_with_id(h, d, ents, ids[i], "E", (size_t)(3 - i) * 4,
                                         (size_t)(3 - i) * 4 + 1, &e[i]),
                 CRFP_OK);
    for (int i = 0; i < 8; i++)
        CHECK(crfp_doc_find_ann(d, a[i]->id) == a[i]);
    for (int i = 0; i < 4; i++)
        CHECK(crfp_doc_find_ann(d, ids[i]) == e[i]);
    CHECK(crfp_doc_find_ann(d, 60) == NULL);
    CHECK(crfp_doc_find_ann(d, 1000) == NULL);
    /* duplicates are refused in either kind of set, below and above next_id */
    CHECK_ST(crfp_annset_add_with_id(h, d, ents, 50, "E", 0, 1, NULL), CRFP_EINVAL);
    CHECK_ST(crfp_annset_add_with_id(h, d, toks, a[3]->id, "E", 0, 1, NULL), CRFP_EINVAL);
    CHECK_ST(crfp_annset_add_with_id(h, d, toks, 75, "E", 0, 1, NULL), CRFP_EINVAL);
    /* after the table exists, new ids in the unsorted set are found too */
    CHECK_ST(crfp_annset_add_with_id(h, d, ents, 30, "E", 2, 3, &e[0]), CRFP_OK);
    CHECK(crfp_doc_find_ann(d, 30) == e[0]);

    /* Spans after the tokens, in a scrambled order: select must give
     * (start, -end, id) order, as a full sort would. */
    static const size_t sp[][2] = {{8, 11}, {0, 3}, {4, 15}, {2, 3}, {0, 15}, {12, 13}};
    for (size_t i = 0; i < 6; i++)
        CHECK_ST(crfp_annset_add(h, d, toks, "Chunk", sp[i][0], sp[i][1], NULL), CRFP_OK);
    crfp_ann **all;
    size_t n;
    CHECK_ST(crfp_annset_select(toks, NULL, 0, 15, &all, &n), CRFP_OK);
    CHECK(n == 14);
    for (size_t i = 1; i < n; i++) {
        const crfp_ann *p = all[i - 1], *q = all[i];
        CHECK(p->start < q->start || (p->start == q->start && p->end > q->end) ||
              (p->start == q->start && p->end == q->end && p->id < q->id));
    }
    free(all);
    CHECK_ST(crfp_annset_select(toks, "Chunk", 0, 11, &all, &n), CRFP_OK);
    CHECK(n == 3); /* [0,3) [2,3) [8,11) */
    free(all);
    /* a set still in document order needs no sorted copy and selects the same */
    CHECK_ST(crfp_annset_select(crfp_doc_annset(d, "", 0), "Token", 4, 9, &all, &n), CRFP_OK);
    CHECK(n == 3 && all[0] == a[2] && all[2] == a[4]);
    free(all);
    crfp_doc_free(d);
}

/* A job that asks its own team for a job gets a serial one, not a deadlock. */
typedef struct nested {
    crfp_team *t;
    int inner[4];
} nested;

static void inner_job(void *arg, int id, int n)
{
    int *count = arg;
    CHECK(id == 0 && n == 1);
    (*count)++;
}

static void outer_job(void *arg, int id, int n)
{
    nested *j = arg;
    (void)n;
    crfp_team_run(j->t, inner_job, &j->inner[id]);
}

/* A sentence buffer splits a document's "columns" metadata once and reuses
 * the split: it must notice a new value even when a freed document and its
 * metadata are followed by others at the same addresses (malloc reuses
 * blocks of one size at once), which a cache keyed by pointers would not. */
static void test_sentbuf_columns(crfp_host *h)
{
    crfp_sentbuf *b = crfp_sentbuf_new();
    CHECK(b != NULL);
    static const char *const cols[] = {"form,upos", "upos,form", "upos,form", "form,upos", ""};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
        crfp_doc *d = crfp_doc_new("cols");
        CHECK_ST(crfp_doc_set_text(h, d, "x", 1), CRFP_OK);
        if (*cols[i])
            CHECK_ST(crfp_doc_meta_set_str(d, "columns", cols[i]), CRFP_OK);
        crfp_annset *s = crfp_doc_annset(d, "", 1);
        crfp_ann *t;
        CHECK_ST(crfp_annset_add(h, d, s, "Token", 0, 1, &t), CRFP_OK);
        CHECK_ST(crfp_ann_set_str(d, t, "form", "x"), CRFP_OK);
        CHECK_ST(crfp_ann_set_str(d, t, "upos", "X"), CRFP_OK);
        const crfp_tokseq *seq;
        CHECK_ST(crfp_sentbuf_fill(h, b, d, NULL, NULL, &seq, NULL), CRFP_OK);
        CHECK(seq->ntok == 1 && seq->ncols == 2);
        int upos_first = cols[i][0] == 'u';
        CHECK_STR(seq->colnames[0], upos_first ? "upos" : "form");
        CHECK_STR(seq->cells[0], upos_first ? "X" : "x");
        crfp_doc_free(d);
    }
    crfp_sentbuf_free(b);
}

/* Columns a reader named by position take a model's names, position by
 * position, and only those: named columns, names the document already
 * has, and columns beyond the shorter list keep theirs. */
static void test_columns_as_model(crfp_host *h)
{
    static const struct {
        const char *doc, *model, *want;   /* want NULL: nothing renamed */
    } cases[] = {
        {"word,col1,label", "word,pos,chunk", "word,pos,chunk"},
        {"word,label", "word,pos,chunk", "word,pos"},                  /* no gold column */
        {"word,col1,col2,label", "word,pos,chunk", "word,pos,chunk,label"},
        {"word,label", "form,label", "form,label"},
        {"word,col1,label,pos", "word,pos,chunk", "word,col1,chunk,pos"}, /* a chained output */
        {"word,pos,chunk", "word,pos,chunk", NULL},
        {"w,p,c", "word,pos,chunk", NULL},                              /* named by the user */
        {"word,col1,label", "word,col1,label", NULL},                   /* both positional */
        {"word,col1,label", NULL, NULL},
        {NULL, "word,pos", NULL},
        {"", "word,pos", NULL},
        {"word,,label", "word,pos,chunk", "word,,chunk"},               /* "" is no position */
        {"col1x,label", "a,b", "col1x,b"},
        {"col12,col3", "a,,b", "a,col3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *r = (char *)"unset";
        CHECK_ST(crfp_columns_as_model(cases[i].doc, cases[i].model, &r), CRFP_OK);
        if (!cases[i].want)
            CHECK(r == NULL);
        else
            CHECK(r && strcmp(r, cases[i].want) == 0);
        free(r);
    }
    /* a list of more than 1,024 columns is not renamed (no quadratic time) */
    for (size_t n = 1024; n <= 1025; n++) {
        char *big = malloc(n * 8 + 16), *r = NULL;
        CHECK(big != NULL);
        if (!big)
            break;
        size_t o = (size_t)sprintf(big, "word");
        for (size_t k = 1; k + 1 < n; k++)
            o += (size_t)sprintf(big + o, ",col%zu", k);
        sprintf(big + o, ",label");
        CHECK_ST(crfp_columns_as_model(big, "word,pos,chunk", &r), CRFP_OK);
        CHECK(n == 1024 ? r && strncmp(r, "word,pos,chunk,", 15) == 0 : r == NULL);
        free(r);
        free(big);
    }
    CHECK(crfp_columns_positional("word,col1,col22,label"));
    CHECK(!crfp_columns_positional("word,col,label") && !crfp_columns_positional("word,pos"));
    CHECK(!crfp_columns_positional("") && !crfp_columns_positional(NULL));
    CHECK(!crfp_columns_positional("word,,label"));

    /* the buffer: colnames renamed, cells still found under the document's
     * names; a document with named columns, and one after read_as(NULL),
     * read under their own */
    crfp_sentbuf *b = crfp_sentbuf_new();
    CHECK(b && crfp_sentbuf_read_as(b, "word,pos,chunk") == CRFP_OK);
    static const char *const docs[] = {"word,col1,label", "word,p,label", "word,col1,label"};
    for (size_t i = 0; i < 3; i++) {
        if (i == 2)
            CHECK_ST(crfp_sentbuf_read_as(b, NULL), CRFP_OK);
        crfp_doc *d = crfp_doc_new("pos");
        CHECK_ST(crfp_doc_set_text(h, d, "x", 1), CRFP_OK);
        CHECK_ST(crfp_doc_meta_set_str(d, "columns", docs[i]), CRFP_OK);
        crfp_annset *s = crfp_doc_annset(d, "", 1);
        crfp_ann *t;
        CHECK_ST(crfp_annset_add(h, d, s, "Token", 0, 1, &t), CRFP_OK);
        char c1[8];
        snprintf(c1, sizeof c1, "%s", i == 1 ? "p" : "col1");
        CHECK_ST(crfp_ann_set_str(d, t, "word", "x"), CRFP_OK);
        CHECK_ST(crfp_ann_set_str(d, t, c1, "NN"), CRFP_OK);
        CHECK_ST(crfp_ann_set_str(d, t, "label", "B-NP"), CRFP_OK);
        const crfp_tokseq *seq;
        CHECK_ST(crfp_sentbuf_fill(h, b, d, NULL, NULL, &seq, NULL), CRFP_OK);
        CHECK(seq->ncols == 3);
        CHECK_STR(seq->colnames[1], i == 0 ? "pos" : c1);
        CHECK_STR(seq->colnames[2], i == 1 ? "chunk" : i == 0 ? "chunk" : "label");
        CHECK(crfp_tokseq_col(seq, "pos") == (i == 0 ? 1 : -1));
        CHECK_STR(seq->cells[1], "NN");
        CHECK_STR(seq->cells[2], "B-NP");
        crfp_doc_free(d);
    }
    crfp_sentbuf_free(b);
}

static void test_team_nesting(void)
{
    crfp_team *t = NULL;
    CHECK_ST(crfp_team_new(3, &t), CRFP_OK);
    nested j = {t, {0, 0, 0, 0}};
    crfp_team_run(t, outer_job, &j);
    CHECK(j.inner[0] == 1 && j.inner[1] == 1 && j.inner[2] == 1 && j.inner[3] == 0);
    crfp_team_free(t);
}

/* crfp_utf8_repair: valid UTF-8 comes back unchanged; each byte that is not
 * part of a valid sequence (stray continuation, truncated or overlong
 * sequence, surrogate, above U+10FFFF) becomes U+FFFD, and the result is
 * valid (a document accepts it as an id and as a feature). */
static void test_utf8_repair(crfp_host *h)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"", ""},
        {"caf\xC3\xA9 \xF0\x9F\x98\x80", "caf\xC3\xA9 \xF0\x9F\x98\x80"},
        {"caf\xE9.txt", "caf\xEF\xBF\xBD.txt"},
        {"\x80x", "\xEF\xBF\xBDx"},
        {"end\xE2\x82", "end\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = crfp_utf8_repair(cases[i].in);
        CHECK(r && strcmp(r, cases[i].out) == 0);
        crfp_doc *d = crfp_doc_new(r);
        CHECK(d && crfp_doc_meta_set_str(d, "source", r) == CRFP_OK);
        crfp_doc_free(d);
        free(r);
    }
    CHECK(crfp_utf8_repair(NULL) == NULL);
    /* what the repair is for: a document refuses the raw name */
    crfp_doc *d = crfp_doc_new("x");
    CHECK(d && crfp_doc_meta_set_str(d, "source", "caf\xE9") != CRFP_OK);
    crfp_doc_free(d);
    (void)h;
}

int main(void)
{
    crfp_host *h = crfp_host_new();
    if (!h) {
        fprintf(stderr, "cannot create host\n");
        return 1;
    }
    test_text(h);
    test_offsets(h);
    test_annotations(h);
    test_features(h);
    test_meta_processors_equal(h);
    test_borrowed(h);
    test_ids_and_order(h);
    test_sentbuf_columns(h);
    test_columns_as_model(h);
    test_team_nesting();
    test_utf8_repair(h);
    crfp_host_free(h);
    if (doc_failures)
        fprintf(stderr, "%d check(s) failed\n", doc_failures);
    return doc_failures ? 1 : 0;
}
