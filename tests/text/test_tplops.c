/* The template operations added for real tagging templates: %p (prefix)
 * and %s (suffix) of n characters, %w (word shape), through the templates
 * plugin loaded as a module: values on non-ASCII cells, words shorter
 * than n, missing cells, paddings outside the sentence, and the parse
 * errors of malformed uses with their line. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../testcheck.h"

static crfp_host *host;
static const crfp_features_vtable *vt;

static const char *const colnames[] = {"word", "pos"};
static const char *const cells[] = {
    "McDonald's", "NNP",
    "Ünïcödé",    NULL,
    "東京2020",    "NN",
    "a",          "DT",
    NULL,         "X",
    "--->",       ":",
};
static const crfp_tokseq sent = {6, 2, colnames, cells};

static crfp_status load(const char *body, void **ex)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "#!columns\n%s", body);
    return vt->load(host, buf, strlen(buf), "ops.tpl", ex);
}

/* Observation k of token t ("" when absent). */
static const char *obs(const crfp_obsseq *o, size_t t, size_t k)
{
    const char *const *strs;
    size_t n;
    crfp_obsseq_get(o, t, &strs, NULL, &n);
    return k < n ? strs[k] : "";
}

int main(void)
{
    host = crfp_host_new();
    const crfp_plugin *pl;
    if (!host || crfp_host_load_kind(host, "templates", CRFP_KIND_FEATURES, &pl) != CRFP_OK) {
        fprintf(stderr, "%s\n", host ? crfp_errmsg(host) : "no host");
        return 1;
    }
    vt = pl->desc->vtable;
    void *ex = NULL;
    crfp_status st = load("U0:%p[0,word,3]\n"
                          "U1:%s[0,word,2]\n"
                          "U2:%w[0,word]\n"
                          "U3:%p[-1,word,1]/%s[1,0,4]\n"
                          "U4:%s[0,word,64]\n",
                          &ex);
    CHECK(st == CRFP_OK, "%s", crfp_errmsg(host));
    crfp_obsseq *o = crfp_obsseq_new();
    CHECK(o && vt->extract(ex, &sent, o) == CRFP_OK, "%s", crfp_errmsg(host));
    /* prefixes and suffixes count characters, not bytes */
    CHECK(!strcmp(obs(o, 0, 0), "U0:McD"), "%s", obs(o, 0, 0));
    CHECK(!strcmp(obs(o, 0, 1), "U1:'s"), "%s", obs(o, 0, 1));
    CHECK(!strcmp(obs(o, 1, 0), "U0:Ünï"), "%s", obs(o, 1, 0));
    CHECK(!strcmp(obs(o, 1, 1), "U1:dé"), "%s", obs(o, 1, 1));
    CHECK(!strcmp(obs(o, 2, 0), "U0:東京2"), "%s", obs(o, 2, 0));
    /* shapes: X x a d, other characters themselves, runs collapsed */
    CHECK(!strcmp(obs(o, 0, 2), "U2:XxXx'x"), "%s", obs(o, 0, 2));
    CHECK(!strcmp(obs(o, 1, 2), "U2:Xx"), "%s", obs(o, 1, 2));
    CHECK(!strcmp(obs(o, 2, 2), "U2:ad"), "%s", obs(o, 2, 2));
    CHECK(!strcmp(obs(o, 5, 2), "U2:->"), "%s", obs(o, 5, 2));
    /* shorter than n: empty, as %m[..,"^.{n}"] gives */
    CHECK(!strcmp(obs(o, 3, 0), "U0:"), "%s", obs(o, 3, 0));
    CHECK(!strcmp(obs(o, 3, 1), "U1:"), "%s", obs(o, 3, 1));
    CHECK(!strcmp(obs(o, 0, 4), "U4:"), "%s", obs(o, 0, 4));
    /* a missing cell reads as the empty string */
    CHECK(!strcmp(obs(o, 4, 0), "U0:") && !strcmp(obs(o, 4, 2), "U2:"), "missing cell");
    /* outside the sentence: paddings */
    CHECK(!strcmp(obs(o, 0, 3), "U3:_B-1/cödé"), "%s", obs(o, 0, 3));
    CHECK(!strcmp(obs(o, 5, 3), "U3:/_B+1"), "missing cell, then padding: %s", obs(o, 5, 3));
    vt->free(ex);
    /* errors, each naming its line */
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"U0:%p[0,word]\n", "ops.tpl:1: malformed macro: %p needs a length"},
        {"U0:%x[0,0]\nU1:%s[0,word,0]\n", "ops.tpl:2: malformed macro: length '0' is not between 1"},
        {"U0:%s[0,word,65]\n", "is not between 1 and 64"},
        {"U0:%p[0,word,x]\n", "ops.tpl:1:"},
        {"U0:%w[0,word,3]\n", "%w takes only a row and a column"},
        {"U0:%p[0,word,3\n", "ops.tpl:1:"},
        {"U0:%q[0,word]\n", "unknown macro '%q'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ex = NULL;
        st = load(bad[i].text, &ex);
        CHECK(st == CRFP_EPARSE && strstr(crfp_errmsg(host), bad[i].msg),
              "'%s': status %d, message '%s'", bad[i].text, st, crfp_errmsg(host));
        if (ex)
            vt->free(ex);
    }
    crfp_obsseq_free(o);
    crfp_host_free(host);
    return test_failures ? 1 : 0;
}
