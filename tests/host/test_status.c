/* Status strings, the host's error message, logging levels, kinds, settings. */
#include "config.h"
#include "crfpipe/host.h"
#include "check.h"

#include <stdlib.h>

typedef struct sink {
    int count[CRFP_LOG_DEBUG + 1];
    char last[256];
} sink;

static void to_sink(void *ud, crfp_log_level level, const char *msg)
{
    sink *s = ud;
    s->count[level]++;
    snprintf(s->last, sizeof s->last, "%s", msg);
}

int main(void)
{
    int fails = 0;
    int *f = &fails;

    for (int s = CRFP_OK; s <= CRFP_EUTF8; s++) {
        const char *str = crfp_status_str((crfp_status)s);
        CHECK(f, str && *str);
        for (int t = CRFP_OK; t < s; t++)
            CHECK(f, strcmp(str, crfp_status_str((crfp_status)t)) != 0);
    }
    CHECK(f, strcmp(crfp_status_str(CRFP_OK), "ok") == 0);
    CHECK(f, crfp_status_str((crfp_status)1000) != NULL);

    /* A NULL host drops messages but keeps the status. */
    CHECK(f, crfp_error(NULL, CRFP_EIO, "x") == CRFP_EIO);
    CHECK(f, strcmp(crfp_errmsg(NULL), "") == 0);

    crfp_host *h = crfp_host_new();
    CHECK(f, h != NULL);
    if (!h)
        return 1;
    CHECK(f, crfp_errcode(h) == CRFP_OK && strcmp(crfp_errmsg(h), "") == 0);
    CHECK(f, crfp_error(h, CRFP_EPARSE, "%s:%d: bad %s", "in.conll", 12, "column") ==
                 CRFP_EPARSE);
    CHECK(f, crfp_errcode(h) == CRFP_EPARSE);
    CHECK(f, strcmp(crfp_errmsg(h), "in.conll:12: bad column") == 0);
    CHECK(f, crfp_error_prefix(h, "stage '%s'", "reader") == CRFP_EPARSE);
    CHECK(f, strcmp(crfp_errmsg(h), "stage 'reader': in.conll:12: bad column") == 0);
    /* Wrapping the current message in a new one must not read freed memory. */
    CHECK(f, crfp_error(h, CRFP_EIO, "outer: %s", crfp_errmsg(h)) == CRFP_EIO);
    CHECK(f, strcmp(crfp_errmsg(h), "outer: stage 'reader': in.conll:12: bad column") == 0);
    /* Long messages are kept whole. */
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    crfp_error(h, CRFP_EINVAL, "%s!", big);
    CHECK(f, strlen(crfp_errmsg(h)) == sizeof big);
    crfp_error_clear(h);
    CHECK(f, crfp_errcode(h) == CRFP_OK && strcmp(crfp_errmsg(h), "") == 0);
    /* A prefix on an empty message still reads as a sentence. */
    crfp_error_prefix(h, "p");
    CHECK(f, strcmp(crfp_errmsg(h), "p: failed without saying why") == 0);
    crfp_error_clear(h);
    /* wrap: the callee's status wins, its message is kept, and a callee
     * that recorded nothing gets the status in words (a features plugin
     * whose save ran out of memory used to leave "ok" behind). */
    CHECK(f, crfp_error_wrap(h, CRFP_ENOMEM, "features '%s'", "t") == CRFP_ENOMEM);
    CHECK(f, crfp_errcode(h) == CRFP_ENOMEM);
    CHECK(f, strcmp(crfp_errmsg(h), "features 't': out of memory") == 0);
    crfp_error(h, CRFP_EPARSE, "x.tpl:3: bad");
    CHECK(f, crfp_error_wrap(h, CRFP_EPLUGIN, "stage") == CRFP_EPLUGIN);
    CHECK(f, crfp_errcode(h) == CRFP_EPLUGIN && strcmp(crfp_errmsg(h), "stage: x.tpl:3: bad") == 0);
    crfp_error_clear(h);

    /* Logging: default level shows PROGRESS but not DEBUG. */
    sink s = {{0}, ""};
    crfp_host_set_log(h, to_sink, &s);
    for (int l = CRFP_LOG_ERROR; l <= CRFP_LOG_DEBUG; l++)
        crfp_log(h, (crfp_log_level)l, "level %d", l);
    CHECK(f, s.count[CRFP_LOG_ERROR] == 1 && s.count[CRFP_LOG_PROGRESS] == 1);
    CHECK(f, s.count[CRFP_LOG_DEBUG] == 0);
    CHECK(f, strcmp(s.last, "level 3") == 0);
    crfp_host_set_verbosity(h, CRFP_LOG_INFO);
    crfp_log(h, CRFP_LOG_PROGRESS, "iter");
    crfp_log(h, CRFP_LOG_INFO, "summary %s", big);
    CHECK(f, s.count[CRFP_LOG_PROGRESS] == 1 && s.count[CRFP_LOG_INFO] == 2);
    CHECK(f, strncmp(s.last, "summary aaa", 11) == 0);
    crfp_host_set_verbosity(h, CRFP_LOG_DEBUG);
    crfp_log(h, CRFP_LOG_DEBUG, "dbg");
    CHECK(f, s.count[CRFP_LOG_DEBUG] == 1);

    /* Kinds. */
    for (int k = CRFP_KIND_READER; k <= CRFP_KIND_TAGGER; k++)
        CHECK(f, crfp_kind_parse(crfp_kind_name((crfp_kind)k)) == k);
    CHECK(f, strcmp(crfp_kind_name(CRFP_KIND_FEATURES), "features") == 0);
    CHECK(f, strcmp(crfp_kind_name((crfp_kind)0), "unknown") == 0);
    CHECK(f, strcmp(crfp_kind_name((crfp_kind)77), "unknown") == 0);
    CHECK(f, crfp_kind_parse("unknown") == -1 && crfp_kind_parse("Reader") == -1);
    CHECK(f, crfp_kind_parse(NULL) == -1);

    /* Threads and the interrupt flag. */
    CHECK(f, crfp_host_threads(h) >= 1);
    crfp_host_set_threads(h, 3);
    CHECK(f, crfp_host_threads(h) == 3);
    crfp_host_set_threads(h, -2);
    CHECK(f, crfp_host_threads(h) >= 1);
    CHECK(f, !crfp_interrupted(h));
    crfp_host_interrupt(h);
    CHECK(f, crfp_interrupted(h));

    /* Search path: --plugin-path first, then the environment, install dir last. */
    setenv("CRFPIPE_PLUGIN_PATH", "/env/a::/env/b/", 1);
    crfp_host *h2 = crfp_host_new();
    CHECK(f, h2 != NULL);
    if (h2) {
        CHECK(f, crfp_host_add_plugin_dir(h2, "/user/x") == CRFP_OK);
        CHECK(f, crfp_host_add_plugin_dir(h2, "") == CRFP_EINVAL);
        const char *const *dirs;
        size_t n;
        crfp_host_search_path(h2, &dirs, &n);
        CHECK(f, n >= 4);
        if (n >= 4) {
            CHECK(f, strcmp(dirs[0], "/user/x") == 0);
            CHECK(f, strcmp(dirs[1], "/env/a") == 0);
            CHECK(f, strcmp(dirs[2], "/env/b") == 0);
            CHECK(f, strcmp(dirs[n - 1], CRFP_PKGLIBDIR) == 0);
        }
        /* This test runs from the build tree, so the build tree is searched. */
        int has_build = 0;
        for (size_t i = 0; i < n; i++)
            has_build |= contains(dirs[i], CRFP_ABS_BUILDDIR "/plugins");
        CHECK(f, has_build);
        crfp_host_free(h2);
    }
    crfp_host_free(h);
    crfp_host_free(NULL);
    if (fails)
        fprintf(stderr, "%d check(s) failed\n", fails);
    return fails ? 1 : 0;
}
