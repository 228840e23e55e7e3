/* Tests of the templates features plugin, loaded through the host as a real
 * module: every construct on a hand-made sentence with non-ASCII cells,
 * each parse error with its FILE:LINE, save/load round trip, and two
 * threads sharing one extractor. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crfpipe/crfpipe.h"

static int failures;
#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            failures++;                                                           \
        }                                                                         \
    } while (0)

static crfp_host *host;
static const crfp_plugin *plugin;
static const crfp_features_vtable *vt;

/* The sentence: word / pos, with the second token lacking its pos. */
static const char *const colnames[] = {"word", "pos"};
static const char *const cells[] = {
    "Ünïcödé", "NNP",
    "東京",    NULL,
    "fun😀Fun", "NN",
};
static const crfp_tokseq sent = {3, 2, colnames, cells};

/* Build an extractor from template text the way a model would. */
static crfp_status load_text(const char *columns, const char *body, void **ex)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "#!columns%s%s\n%s", columns ? " " : "", columns ? columns : "",
             body);
    return vt->load(host, buf, strlen(buf), "t.tpl", ex);
}

/* Whether token t has exactly observation `s` with flags `fl`. */
static int has(const crfp_obsseq *o, size_t t, const char *s, unsigned fl)
{
    const char *const *strs;
    const unsigned char *flags;
    size_t n;
    crfp_obsseq_get(o, t, &strs, &flags, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(strs[i], s) && flags[i] == fl)
            return 1;
    fprintf(stderr, "token %zu lacks '%s' (flags %u); it has:\n", t, s, fl);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "   '%s' %u\n", strs[i], flags[i]);
    return 0;
}

static size_t count(const crfp_obsseq *o, size_t t)
{
    size_t n;
    crfp_obsseq_get(o, t, NULL, NULL, &n);
    return n;
}

static const char *constructs =
    "# comment\n"                             /* 1 */
    "\n"                                      /* 2 */
    "U00:%x[0,0]\n"                           /* 3 */
    "   U01:%x[-1,word]/%x[1,pos]   \r\n"     /* 4 */
    "U02:%x[-2,0]|%x[2,0]\n"                  /* 5 */
    "*03:%X[0,0]\n"                           /* 6 */
    "U04:%t[0,0,\"\\p{Lu}\"]\n"               /* 7 */
    "U05:%m[0,word,\"\\p{Han}+\"]\n"          /* 8 */
    "U06:%T[0,0,\"^ÜNÏ\"]\n"                  /* 9 */
    "U07:%M[0,0,\"FUN.\"]\n"                  /* 10 */
    "U08:%m[0,word,\"ö.\"]\n"                 /* 11 */
    "B\n"                                     /* 12 */
    "U%x[0,1]\n"                              /* 13 */
    "B10:%x[0,pos]\n"                         /* 14 */
    "U11:100%%\n"                             /* 15 */
    "U12:%t[0,1,\"^$\"]\n"                    /* 16 */
    "U13:%t[-1,0,\"x\"]%m[1,0,\"x?\"]\n"      /* 17 */
    "U14:%m[0,0,\"\\p{Emoji_Presentation}\"]\n" /* 18 */
    "U15:%t[0,0,\"^ünï\"]\n"                  /* 19 */
    "U16:%m[0,0,\"a\"]\n";                    /* 20 */
#define NPATS 18

static void test_constructs(void)
{
    void *ex = NULL;
    crfp_status st = load_text(NULL, constructs, &ex);
    CHECK(st == CRFP_OK);
    if (st) {
        fprintf(stderr, "%s\n", crfp_errmsg(host));
        return;
    }
    crfp_obsseq *o = crfp_obsseq_new();
    CHECK(vt->extract(ex, &sent, o) == CRFP_OK);
    CHECK(crfp_obsseq_ntok(o) == 3);
    for (size_t t = 0; t < 3; t++)
        CHECK(count(o, t) == NPATS);
    const unsigned U = CRFP_OBS_UNIGRAM, B = CRFP_OBS_BIGRAM, S = U | B;
    CHECK(has(o, 0, "U00:Ünïcödé", U));
    CHECK(has(o, 1, "U00:東京", U));
    CHECK(has(o, 0, "U01:_B-1/_NIL", U));
    CHECK(has(o, 1, "U01:Ünïcödé/NN", U));
    CHECK(has(o, 2, "U01:東京/_B+1", U));
    CHECK(has(o, 0, "U02:_B-2|fun😀Fun", U));
    CHECK(has(o, 1, "U02:_B-1|_B+1", U));
    CHECK(has(o, 2, "U02:Ünïcödé|_B+2", U));
    CHECK(has(o, 0, "*03:ünïcödé", S));
    CHECK(has(o, 1, "*03:東京", S));
    CHECK(has(o, 2, "*03:fun😀fun", S));
    CHECK(has(o, 0, "U04:true", U));
    CHECK(has(o, 1, "U04:false", U));
    CHECK(has(o, 2, "U04:true", U));
    CHECK(has(o, 0, "U05:", U));
    CHECK(has(o, 1, "U05:東京", U));
    CHECK(has(o, 0, "U06:true", U));
    CHECK(has(o, 2, "U06:false", U));
    CHECK(has(o, 2, "U07:fun😀", U));
    CHECK(has(o, 0, "U07:", U));
    CHECK(has(o, 0, "U08:öd", U));
    CHECK(has(o, 1, "U08:", U));
    for (size_t t = 0; t < 3; t++)
        CHECK(has(o, t, "B", B));
    CHECK(has(o, 0, "U@13:NNP", U));
    CHECK(has(o, 1, "U@13:_NIL", U));
    CHECK(has(o, 2, "B10:NN", B));
    CHECK(has(o, 1, "B10:_NIL", B));
    CHECK(has(o, 0, "U11:100%", U));
    CHECK(has(o, 1, "U12:true", U));
    CHECK(has(o, 0, "U12:false", U));
    CHECK(has(o, 0, "U13:_B-1", U));
    CHECK(has(o, 1, "U13:false", U));
    CHECK(has(o, 2, "U13:false_B+1", U));
    CHECK(has(o, 2, "U14:😀", U));
    CHECK(has(o, 0, "U14:", U));
    /* %t is case-sensitive, %T is not. */
    CHECK(has(o, 0, "U15:false", U));
    CHECK(has(o, 2, "U16:", U));
    /* order of observations follows the template */
    const char *const *s;
    size_t n;
    crfp_obsseq_get(o, 0, &s, NULL, &n);
    CHECK(n == NPATS && !strcmp(s[0], "U00:Ünïcödé") && !strcmp(s[NPATS - 1], "U16:"));

    /* An empty sentence gives no observations and no error. */
    crfp_tokseq empty = {0, 2, colnames, NULL};
    CHECK(vt->extract(ex, &empty, o) == CRFP_OK);
    CHECK(crfp_obsseq_ntok(o) == 0);
    vt->free(ex);
    crfp_obsseq_free(o);
}

/* Each malformed template fails with CRFP_EPARSE and a message starting with
 * "t.tpl:LINE: " and containing `what`. */
static void expect_error(const char *columns, const char *body, int line, const char *what)
{
    void *ex = (void *)1;
    crfp_status st = load_text(columns, body, &ex);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "t.tpl:%d: ", line);
    const char *msg = crfp_errmsg(host);
    int ok = st == CRFP_EPARSE && ex == NULL && strncmp(msg, prefix, strlen(prefix)) == 0 &&
             strstr(msg, what) != NULL;
    if (!ok)
        fprintf(stderr, "template %s: status %d, message '%s', wanted '%s...%s'\n", body, st,
                msg, prefix, what);
    CHECK(ok);
    if (st == CRFP_OK)
        vt->free(ex);
}

static void test_errors(void)
{
    expect_error(NULL, "U00:%x[0,0]\nX01:%x[0,0]\n", 2, "unknown pattern type 'X'");
    expect_error(NULL, "# c\n\nÜ01:%x[0,0]\n", 3, "unknown pattern type 'Ü'");
    expect_error(NULL, "U00:%y[0,0]\n", 1, "unknown macro '%y'");
    expect_error(NULL, "U00:%x0,0]\n", 1, "expected '['");
    expect_error(NULL, "U00:%x[a,0]\n", 1, "row 'a' is not an integer");
    expect_error(NULL, "U00:%x[1-,0]\n", 1, "row '1-' is not an integer");
    expect_error(NULL, "U00:%x[0,1.5]\n", 1, "column '1.5'");
    expect_error(NULL, "U00:%x[0,a b]\n", 1, "column 'a b' is neither an index nor a name");
    expect_error(NULL, "U00:%x[0,-1]\n", 1, "is negative");
    expect_error(NULL, "U00:%x[0]\n", 1, "needs a row and a column");
    expect_error(NULL, "U00:%x[0,0\n", 1, "without closing ']'");
    expect_error(NULL, "U00:%x[0,0,\"a\"]\n", 1, "takes only a row and a column");
    expect_error(NULL, "\nU00:%t[0,0]\n", 2, "needs a quoted regular expression");
    expect_error(NULL, "U00:%m[0,0,abc]\n", 1, "must be in double quotes");
    expect_error(NULL, "U00:%m[0,0,\"abc]\n", 1, "unterminated regular expression");
    expect_error(NULL, "U00:%t[0,0,\"(ab\"]\n", 1, "bad regular expression \"(ab\"");
    expect_error(NULL, "U00:%t[0,0,\"(ab\"]\n", 1, "U_REGEX_MISMATCHED_PAREN");
    expect_error(NULL, "U00:%t[0,0,\"a{2,1}\"]\n", 1, "at offset");
    expect_error(NULL, "U00:abc%\n", 1, "'%' at the end");
    expect_error(NULL, "U00:%m[0,0,\"\"]\n", 1, "empty regular expression");
    expect_error(NULL, "U00:%x[0,0]\n#\nU00:%x[0,1]\n", 3, "duplicate pattern identifier 'U00'");
    expect_error(NULL, "B\nB\n", 2, "duplicate pattern identifier 'B'");
    expect_error("word pos", "U00:%x[0,pos]\nU01:%x[0,lemma]\n", 2,
                 "unknown column name 'lemma'");

    /* A template with no pattern at all names the origin. */
    void *ex = NULL;
    CHECK(load_text(NULL, "# only comments\n\n", &ex) == CRFP_EPARSE);
    CHECK(strstr(crfp_errmsg(host), "t.tpl: the template has no pattern") != NULL);

    /* A saved configuration without the header is not a template model. */
    CHECK(vt->load(host, "U00:%x[0,0]\n", 12, "m.crf", &ex) == CRFP_EFORMAT);
    CHECK(strstr(crfp_errmsg(host), "m.crf") != NULL);
}

/* Problems only visible against a sentence: names and indexes that the
 * sentence does not have, reported with the template line. */
static void test_extract_errors(void)
{
    void *ex = NULL;
    crfp_obsseq *o = crfp_obsseq_new();
    CHECK(load_text(NULL, "U00:%x[0,0]\n\nU01:%x[0,lemma]\n", &ex) == CRFP_OK);
    CHECK(vt->extract(ex, &sent, o) == CRFP_EPARSE);
    CHECK(strcmp(crfp_errmsg(host), "t.tpl:3: unknown column name 'lemma'") == 0);
    vt->free(ex);
    CHECK(load_text(NULL, "U00:%x[0,0]\nU01:%x[0,2]\n", &ex) == CRFP_OK);
    CHECK(vt->extract(ex, &sent, o) == CRFP_EPARSE);
    CHECK(strstr(crfp_errmsg(host), "t.tpl:2: column 2 does not exist") != NULL);
    vt->free(ex);
    /* With declared columns, names work positionally even without colnames. */
    CHECK(load_text("w p", "U00:%x[0,p]\n", &ex) == CRFP_OK);
    crfp_tokseq anon = {3, 2, NULL, cells};
    CHECK(vt->extract(ex, &anon, o) == CRFP_OK);
    CHECK(has(o, 2, "U00:NN", CRFP_OBS_UNIGRAM));
    vt->free(ex);
    crfp_obsseq_free(o);
}

static crfp_status create_from(const char *path, const char *columns, void **ex)
{
    size_t n;
    const crfp_param_spec *specs = plugin->desc->params;
    n = plugin->desc->nparams;
    crfp_params *p = crfp_params_new(specs, n);
    crfp_status st = crfp_params_set(host, p, "test", "template", path, NULL);
    if (st == CRFP_OK && columns)
        st = crfp_params_set(host, p, "test", "columns", columns, NULL);
    if (st == CRFP_OK)
        st = vt->create(host, p, ex);
    crfp_params_free(p);
    return st;
}

static int same_obs(const crfp_obsseq *a, const crfp_obsseq *b)
{
    if (crfp_obsseq_ntok(a) != crfp_obsseq_ntok(b))
        return 0;
    for (size_t t = 0; t < crfp_obsseq_ntok(a); t++) {
        const char *const *sa, *const *sb;
        const unsigned char *fa, *fb;
        size_t na, nb;
        crfp_obsseq_get(a, t, &sa, &fa, &na);
        crfp_obsseq_get(b, t, &sb, &fb, &nb);
        if (na != nb)
            return 0;
        for (size_t i = 0; i < na; i++)
            if (strcmp(sa[i], sb[i]) || fa[i] != fb[i])
                return 0;
    }
    return 1;
}

static void test_files_and_roundtrip(void)
{
    const char *dir = CRFP_ABS_SRCDIR "/tests/templates/";
    char path[1024];
    void *ex = NULL;

    snprintf(path, sizeof path, "%sbad.tpl", dir);
    CHECK(create_from(path, NULL, &ex) == CRFP_EPARSE);
    char want[1100];
    snprintf(want, sizeof want, "%s:5: ", path);
    CHECK(strncmp(crfp_errmsg(host), want, strlen(want)) == 0);

    snprintf(path, sizeof path, "%snope.tpl", dir);
    CHECK(create_from(path, NULL, &ex) == CRFP_EIO);
    CHECK(strstr(crfp_errmsg(host), path) != NULL);

    const char *columns[] = {NULL, "word pos"};
    for (int c = 0; c < 2; c++) {
        snprintf(path, sizeof path, "%sword-pos.tpl", dir);
        crfp_status st = create_from(path, columns[c], &ex);
        CHECK(st == CRFP_OK);
        if (st) {
            fprintf(stderr, "%s\n", crfp_errmsg(host));
            continue;
        }
        crfp_obsseq *a = crfp_obsseq_new(), *b = crfp_obsseq_new();
        CHECK(vt->extract(ex, &sent, a) == CRFP_OK);
        CHECK(has(a, 1, "U@7:東京", CRFP_OBS_UNIGRAM));
        char *text;
        size_t len;
        CHECK(vt->save(ex, &text, &len) == CRFP_OK);
        CHECK(strlen(text) == len);
        void *ex2 = NULL;
        CHECK(vt->load(host, text, len, "model.crf", &ex2) == CRFP_OK);
        if (ex2) {
            CHECK(vt->extract(ex2, &sent, b) == CRFP_OK);
            CHECK(same_obs(a, b));
            char *text2;
            size_t len2;
            CHECK(vt->save(ex2, &text2, &len2) == CRFP_OK);
            CHECK(len2 == len && memcmp(text, text2, len) == 0);
            free(text2);
            vt->free(ex2);
        }
        free(text);
        vt->free(ex);
        crfp_obsseq_free(a);
        crfp_obsseq_free(b);
    }
}

/* Two threads run the same extractor over the same sentences; both must
 * reproduce what a single thread computed. */
#define NSENT 64
typedef struct job {
    void *ex;
    const crfp_tokseq *seqs;
    crfp_obsseq *const *ref;
    int mismatches;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    crfp_obsseq *o = crfp_obsseq_new();
    for (int round = 0; round < 20; round++)
        for (int i = 0; i < NSENT; i++)
            if (vt->extract(j->ex, &j->seqs[i], o) != CRFP_OK || !same_obs(o, j->ref[i]))
                j->mismatches++;
    crfp_obsseq_free(o);
    return NULL;
}

static void test_threads(void)
{
    static const char *words[] = {"Ünïcödé", "東京", "fun😀Fun", "The", "ÉCOLE", "naïve",
                                  "42",      "Σίσυφος", "x"};
    static const char *tags[] = {"NNP", "NN", "DT", "CD", "JJ"};
    enum { MAXT = 12 };
    static const char *cellbuf[NSENT][MAXT * 2];
    crfp_tokseq seqs[NSENT];
    for (int i = 0; i < NSENT; i++) {
        size_t ntok = 1 + (size_t)(i * 7) % MAXT;
        for (size_t t = 0; t < ntok; t++) {
            cellbuf[i][2 * t] = words[(i + t * 3) % 9];
            cellbuf[i][2 * t + 1] = (i + t) % 6 == 5 ? NULL : tags[(i * 5 + t) % 5];
        }
        seqs[i] = (crfp_tokseq){ntok, 2, colnames, cellbuf[i]};
    }
    void *ex = NULL;
    CHECK(load_text(NULL, constructs, &ex) == CRFP_OK);
    if (!ex)
        return;
    crfp_obsseq *ref[NSENT];
    for (int i = 0; i < NSENT; i++) {
        ref[i] = crfp_obsseq_new();
        CHECK(vt->extract(ex, &seqs[i], ref[i]) == CRFP_OK);
        CHECK(crfp_obsseq_ntok(ref[i]) == seqs[i].ntok);
    }
    job jobs[2] = {{ex, seqs, ref, 0}, {ex, seqs, ref, 0}};
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        CHECK(pthread_create(&th[k], NULL, worker, &jobs[k]) == 0);
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    CHECK(jobs[0].mismatches == 0 && jobs[1].mismatches == 0);
    for (int i = 0; i < NSENT; i++)
        crfp_obsseq_free(ref[i]);
    vt->free(ex);
}


/* Wapiti's dialect ('#!wapiti'): observations spelled as Wapiti spells them
 * (tests/pipeline/wapiti_model.sh checks a whole corpus against Wapiti
 * itself; these are the rules one by one, on bytes that are not ASCII). */
static const char *const wcells[] = {
    "ÜBer.9", "NNP",
    "don't",  "NNP",
    "x",      NULL,
};
static const crfp_tokseq wsent = {3, 2, colnames, wcells};
static const char *wapiti =
    "#!wapiti\n"                                                  /* 1 */
    "U00:%x[-1,0]/%x[-5,0]/%x[1,0]   # a comment, and blanks\n"   /* 2 */
    "u01:%X[0,0]\n"                                               /* 3 */
    "U02:%t[0,0,\"^\\u\"]/%T[0,0,\"^ü\"]/%t[-1,0,\"x\"]\n"       /* 4 */
    "U03:%m[0,0,\"..\"]/%m[0,0,\"\\a*\"]/%m[0,0,\"\\a\\a?\"]\n"  /* 5 */
    "U04:%x[@1,0]/%x[@-1,1]/%x[@0,0]\n"                           /* 6 */
    "U%x[0,1]\n"                                                  /* 7 */
    "U%x[1,1]\n"                                                  /* 8 */
    "b\n"                                                         /* 9 */
    "*05:%m[0,0,\"'t$\"]/%M[0,0,\"^.*\\.\\d\"]/%m[0,0,\"n.*\"]\n" /* 10 */
    "u06:%x[-0x1,0]\n";                                           /* 11 */

static void test_wapiti(void)
{
    void *ex = NULL;
    crfp_status st = load_text(NULL, wapiti, &ex);
    CHECK(st == CRFP_OK);
    if (st) {
        fprintf(stderr, "%s\n", crfp_errmsg(host));
        return;
    }
    crfp_obsseq *o = crfp_obsseq_new();
    CHECK(vt->extract(ex, &wsent, o) == CRFP_OK);
    const unsigned U = CRFP_OBS_UNIGRAM, B = CRFP_OBS_BIGRAM, S = U | B;
    for (size_t t = 0; t < 3; t++)
        CHECK(count(o, t) == 10);
    /* rows outside: _x-1 .. _x-4, then _x-#; the type letter lowered */
    CHECK(has(o, 0, "u00:_x-1/_x-#/don't", U));
    CHECK(has(o, 1, "u00:ÜBer.9/_x-4/x", U));
    CHECK(has(o, 2, "u00:don't/_x-3/_x+1", U));
    /* %X lowers ASCII only, as C's tolower */
    CHECK(has(o, 0, "u01:Über.9", U));
    /* %t is Wapiti's regex: \u is ASCII, %T does not ignore case, and a
     * row outside is matched as its "_x-1" */
    CHECK(has(o, 0, "u02:false/false/true", U));
    CHECK(has(o, 1, "u02:false/false/false", U));
    /* '.' is a byte; "\a*" is lazy (empty at the start), "\a?" greedy */
    CHECK(has(o, 0, "u03:Ü//Be", U));
    CHECK(has(o, 1, "u03:do//do", U));
    CHECK(has(o, 2, "u03://x", U));
    /* '@' counts rows from the ends; a missing cell reads _NIL */
    for (size_t t = 0; t < 3; t++)
        CHECK(has(o, t, "u04:ÜBer.9/_NIL/_x-1", U));
    /* no identifiers: two patterns make the same observation, twice */
    const char *const *strs;
    size_t n, same = 0;
    crfp_obsseq_get(o, 0, &strs, NULL, &n);
    for (size_t i = 0; i < n; i++)
        same += strcmp(strs[i], "uNNP") == 0;
    CHECK(same == 2);
    CHECK(has(o, 1, "u_NIL", U));
    CHECK(has(o, 2, "u_x+1", U));
    CHECK(has(o, 1, "b", B));
    /* '$' anchors at the end; %M lowers its match; "n.*" is lazy */
    CHECK(has(o, 0, "*05:/Über.9/", S));
    CHECK(has(o, 1, "*05:'t//n", S));
    CHECK(has(o, 0, "u06:_x-1", U));
    vt->free(ex);

    /* the budget of backtracking: a regex that explodes is stopped */
    static const char *const acells[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "X"};
    const crfp_tokseq as = {1, 2, colnames, acells};
    CHECK(load_text(NULL, "#!wapiti\nU:%t[0,0,\"a*a*a*a*a*a*a*a*a*a*b\"]\n", &ex) == CRFP_OK);
    CHECK(vt->extract(ex, &as, o) == CRFP_EPARSE);
    CHECK(strstr(crfp_errmsg(host), "t.tpl:2: regular expression too slow") != NULL);
    vt->free(ex);
    crfp_obsseq_free(o);

    expect_error(NULL, "#!wapiti\nX00:%x[0,0]\n", 2, "unknown pattern type 'X'");
    expect_error(NULL, "#!wapiti\nU00:%p[0,0]\n", 2, "unknown command '%p'");
    expect_error(NULL, "#!wapiti\nU00:100%%\n", 2, "unknown command '%%'");
    expect_error(NULL, "#!wapiti\n\nU00:%x0,0]\n", 3, "expected '[' after %x");
    expect_error(NULL, "#!wapiti\nU00:%x[z,0]\n", 2, "the row is not an integer");
    expect_error(NULL, "#!wapiti\nU00:%x[0,w]\n", 2, "the column is not a number");
    expect_error(NULL, "#!wapiti\nU00:%x[0,0\n", 2, "expected ']'");
    expect_error(NULL, "#!wapiti\nU00:%t[0,0, \"a\"]\n", 2, "expected ,\"REGEX\"");
    expect_error(NULL, "#!wapiti\nU00:%t[0,0,\"a\\\"]\n", 2, "has no closing '\"'");
    expect_error(NULL, "#!wapiti\nU00:%t[0,0,\"a**\"]\n", 2, "nothing to repeat");
    expect_error(NULL, "#!wapiti\nU00:%m[0,0,\"?a\"]\n", 2, "nothing to repeat");
    expect_error(NULL, "U00:%x[0,0]\n#!wapiti\n", 2, "'#!wapiti' must come before");
    expect_error(NULL, "#!wapiti\n#!after U01 U00\nU00:%x[0,0]\nU01:%x[0,0]\n", 2,
                 "'#!after' needs pattern identifiers");
}

/* '#!wapiti-me' (wapiti --me with patterns): each token read alone, its
 * observations "u"+observation and unigrams, a b pattern's left out. */
static void test_wapiti_me(void)
{
    void *ex = NULL;
    crfp_status st = load_text(NULL, "#!wapiti-me\nU00:%x[-1,0]/%x[0,0]/%x[1,0]\n"
                                     "U01:%x[@1,0]/%x[@-1,0]\nb02:%x[0,1]\n*03:%x[0,1]\n", &ex);
    CHECK(st == CRFP_OK);
    if (st) {
        fprintf(stderr, "%s\n", crfp_errmsg(host));
        return;
    }
    crfp_obsseq *o = crfp_obsseq_new();
    CHECK(vt->extract(ex, &wsent, o) == CRFP_OK);
    const unsigned U = CRFP_OBS_UNIGRAM;
    for (size_t t = 0; t < 3; t++)
        CHECK(count(o, t) == 3);
    /* the neighbours are outside the one-token sequence, and the first
     * and last rows are the token itself */
    CHECK(has(o, 0, "uu00:_x-1/ÜBer.9/_x+1", U));
    CHECK(has(o, 1, "uu00:_x-1/don't/_x+1", U));
    CHECK(has(o, 2, "uu01:x/x", U));
    CHECK(has(o, 0, "u*03:NNP", U));
    CHECK(has(o, 2, "u*03:_NIL", U));
    crfp_obsseq_free(o);
    vt->free(ex);
    expect_error(NULL, "#!wapiti-me\n#!crf++\nU00:%x[0,0]\n", 2, "a second dialect line");
}

/* CRF++'s identifiers ('#!crf++'): nothing added to a pattern without one,
 * and two patterns may share an identifier (and observations). */
static void test_crfpp(void)
{
    void *ex = NULL;
    crfp_status st = load_text(NULL, "#!crf++\nU%x[0,0]\nU00:%x[0,1]\nU00:%x[1,1]\nB\n", &ex);
    CHECK(st == CRFP_OK);
    if (st)
        return;
    crfp_obsseq *o = crfp_obsseq_new();
    CHECK(vt->extract(ex, &sent, o) == CRFP_OK);
    CHECK(has(o, 0, "UÜnïcödé", CRFP_OBS_UNIGRAM));
    CHECK(has(o, 0, "U00:NNP", CRFP_OBS_UNIGRAM));
    CHECK(has(o, 0, "U00:_NIL", CRFP_OBS_UNIGRAM));
    CHECK(has(o, 2, "U00:_B+1", CRFP_OBS_UNIGRAM));
    CHECK(has(o, 1, "B", CRFP_OBS_BIGRAM));
    CHECK(count(o, 0) == 4);
    vt->free(ex);
    crfp_obsseq_free(o);
    expect_error(NULL, "#!crf++\n#!after U01 U00\nU00:%x[0,0]\nU01:%x[0,0]\n", 2,
                 "which CRF++'s patterns (#!crf++) do not have");
    expect_error(NULL, "#!crf++\n#!wapiti\nU00:%x[0,0]\n", 2, "a second dialect line");
    expect_error(NULL, "U00:%x[0,0]\n#!crf++\n", 2, "'#!crf++' must come before");
}

int main(void)
{
    host = crfp_host_new();
    if (!host) {
        fprintf(stderr, "cannot create host\n");
        return 1;
    }
    crfp_host_add_plugin_dir(host, CRFP_ABS_BUILDDIR "/plugins/templates");
    if (crfp_host_load_kind(host, "templates", CRFP_KIND_FEATURES, &plugin) != CRFP_OK) {
        fprintf(stderr, "cannot load templates: %s\n", crfp_errmsg(host));
        crfp_host_free(host);
        return 1;
    }
    CHECK(strcmp(plugin->desc->name, "templates") == 0);
    vt = plugin->desc->vtable;
    test_constructs();
    test_errors();
    test_extract_errors();
    test_wapiti();
    test_wapiti_me();
    test_crfpp();
    test_files_and_roundtrip();
    test_threads();
    crfp_host_free(host);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
