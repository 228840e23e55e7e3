/* A pipeline run in parts (crfp_pipeline_begin, feeds, end), as crfpipe run
 * drives it for a corpus of files: the calls' contract (feed or end without
 * a begin, a second begin, a feed with nowhere to write), one output per
 * feed and one output for all, a failing feed that leaves the run to be
 * ended and a new run after it, and a pipeline freed with its run open
 * (LeakSanitizer watches that one in the sanitizer build).  The CoNLL
 * reader and writer reproduce their input byte for byte, so each output is
 * known.  Also: a features stage rebuilt from a saved configuration
 * (crfp_pipeline_add_saved_features), refused for another kind of plugin
 * and failing at begin, with its origin, when the configuration is bad. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../testcheck.h"

static const char A[] = "He PRP\nreckons VBZ\n\nThe DT\n";
static const char B[] = "A DT\ndog NN\n";

/* An input stream over `s`. */
static crfp_stream input(const char *s, const char *name)
{
    return (crfp_stream){fmemopen((void *)s, strlen(s), "rb"), name};
}

typedef struct sink {
    char *buf;
    size_t len;
    crfp_stream st;
} sink;

static void sink_open(sink *k)
{
    k->buf = NULL;
    k->len = 0;
    k->st = (crfp_stream){open_memstream(&k->buf, &k->len), "<mem>"};
}

/* Close the sink and compare what it holds with `want`. */
static int sink_is(sink *k, const char *want)
{
    fclose(k->st.fp);
    int same = k->len == strlen(want) && memcmp(k->buf, want, k->len) == 0;
    free(k->buf);
    return same;
}

static crfp_pipeline *conll_pipeline(crfp_host *h)
{
    crfp_pipeline *p = crfp_pipeline_new(h);
    const char *names[] = {"columns"}, *values[] = {"word,pos"};
    if (!p || crfp_pipeline_add(p, "conll_reader", "reader", names, values, 1, NULL) != CRFP_OK ||
        crfp_pipeline_add(p, "conll_writer", "writer", NULL, NULL, 0, NULL) != CRFP_OK) {
        fprintf(stderr, "cannot build the pipeline: %s\n", crfp_errmsg(h));
        exit(99);
    }
    return p;
}

int main(void)
{
    crfp_host *h = crfp_host_new();
    if (!h)
        return 99;
    crfp_pipeline *p = conll_pipeline(h);
    crfp_stream a = input(A, "a.conll"), b = input(B, "b.conll");

    /* the contract */
    CHECK(crfp_pipeline_feed(p, &a, NULL) == CRFP_EINVAL, "feed without begin");
    CHECK(crfp_pipeline_end(p, 1) == CRFP_EINVAL, "end without begin");
    CHECK(crfp_pipeline_end(p, 0) == CRFP_OK, "dropping no run");
    CHECK(crfp_pipeline_begin(p, NULL) == CRFP_OK, "begin: %s", crfp_errmsg(h));
    CHECK(crfp_pipeline_begin(p, NULL) == CRFP_EINVAL, "a second begin");
    CHECK(crfp_pipeline_feed(p, &a, NULL) == CRFP_EINVAL && strstr(crfp_errmsg(h), "nowhere"),
          "documents with nowhere to go: %s", crfp_errmsg(h));

    /* one output per feed */
    rewind(a.fp);
    sink ka, kb;
    sink_open(&ka);
    sink_open(&kb);
    CHECK(crfp_pipeline_feed(p, &a, &ka.st) == CRFP_OK, "feed a: %s", crfp_errmsg(h));
    CHECK(crfp_pipeline_feed(p, &b, &kb.st) == CRFP_OK, "feed b: %s", crfp_errmsg(h));
    CHECK(crfp_pipeline_end(p, 1) == CRFP_OK, "end: %s", crfp_errmsg(h));
    CHECK(sink_is(&ka, A), "a's output is not a");
    CHECK(sink_is(&kb, B), "b's output is not b");

    /* one output for all the feeds */
    rewind(a.fp);
    rewind(b.fp);
    sink all;
    sink_open(&all);
    CHECK(crfp_pipeline_begin(p, &all.st) == CRFP_OK, "begin with an output");
    CHECK(crfp_pipeline_feed(p, &a, NULL) == CRFP_OK, "feed a into it: %s", crfp_errmsg(h));
    CHECK(crfp_pipeline_feed(p, &b, NULL) == CRFP_OK, "feed b into it: %s", crfp_errmsg(h));
    CHECK(crfp_pipeline_end(p, 1) == CRFP_OK, "end: %s", crfp_errmsg(h));
    char ab[sizeof A + sizeof B];
    snprintf(ab, sizeof ab, "%s%s", A, B);
    CHECK(sink_is(&all, ab), "the common output is not a then b");

    /* a failing feed names its input; the run is ended without finishing,
     * and a new one starts */
    crfp_stream bad = input("one two three\nfour\n", "bad.conll");
    sink kx;
    sink_open(&kx);
    CHECK(crfp_pipeline_begin(p, NULL) == CRFP_OK, "begin again");
    CHECK(crfp_pipeline_feed(p, &bad, &kx.st) != CRFP_OK && strstr(crfp_errmsg(h), "bad.conll"),
          "a bad input fails, named: %s", crfp_errmsg(h));
    CHECK(crfp_pipeline_end(p, 0) == CRFP_OK, "ending a failed run");
    fclose(kx.st.fp);
    free(kx.buf);
    rewind(a.fp);
    sink ky;
    sink_open(&ky);
    CHECK(crfp_pipeline_begin(p, &ky.st) == CRFP_OK, "a run after the failed one");
    CHECK(crfp_pipeline_feed(p, &a, NULL) == CRFP_OK && crfp_pipeline_end(p, 1) == CRFP_OK,
          "the run after the failed one: %s", crfp_errmsg(h));
    CHECK(sink_is(&ky, A), "the run after the failed one wrote something else");

    /* freed with its run open: everything is closed */
    rewind(a.fp);
    sink kz;
    sink_open(&kz);
    CHECK(crfp_pipeline_begin(p, &kz.st) == CRFP_OK && crfp_pipeline_feed(p, &a, NULL) == CRFP_OK,
          "a run left open");
    crfp_pipeline_free(p);

    /* a features stage rebuilt from a saved configuration: only a
     * features plugin takes one, and a bad one fails when the run begins,
     * named by its origin */
    crfp_pipeline *q = crfp_pipeline_new(h);
    const char *cn[] = {"columns"}, *cv[] = {"word,pos"};
    CHECK(q && crfp_pipeline_add(q, "conll_reader", "reader", cn, cv, 1, NULL) == CRFP_OK,
          "reader: %s", crfp_errmsg(h));
    CHECK(crfp_pipeline_add_saved_features(q, "conll_writer", "saved", "x", 1, "m.model") ==
              CRFP_EINVAL && strstr(crfp_errmsg(h), "not a features plugin"),
          "a writer given a saved configuration: %s", crfp_errmsg(h));
    static const char cfg[] = "#!columns\nU00:%y[0,0]\n";
    CHECK(crfp_pipeline_add_saved_features(q, "templates", "saved", cfg, sizeof cfg - 1,
                                           "m.model") == CRFP_OK, "saved: %s", crfp_errmsg(h));
    CHECK(crfp_pipeline_add(q, "conll_writer", "writer", NULL, NULL, 0, NULL) == CRFP_OK,
          "writer: %s", crfp_errmsg(h));
    CHECK(crfp_pipeline_begin(q, NULL) == CRFP_EPARSE && strstr(crfp_errmsg(h), "m.model:1: unknown macro"),
          "a bad saved template fails at begin, with its origin and line: %s", crfp_errmsg(h));
    crfp_pipeline_free(q);
    fclose(kz.st.fp);
    free(kz.buf);
    fclose(a.fp);
    fclose(b.fp);
    fclose(bad.fp);
    crfp_host_free(h);
    return test_failures ? 1 : 0;
}
