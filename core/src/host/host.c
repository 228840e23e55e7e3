/* crfpipe — the host handle: creation, settings and the plugin search path.
 * Loading modules is registry.c's job. */
#include "config.h"
#include "host_priv.h"
#include "crfpipe/alloc.h"
#include "crfpipe/team.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CRFP_ABS_BUILDDIR
#define CRFP_ABS_BUILDDIR ""
#endif
#ifndef CRFP_PKGLIBDIR
#define CRFP_PKGLIBDIR "/usr/local/lib/crfpipe"
#endif

static void log_to_stderr(void *ud, crfp_log_level level, const char *msg)
{
    (void)ud;
    fputs(level == CRFP_LOG_ERROR  ? "crfpipe: error: "
          : level == CRFP_LOG_WARN ? "crfpipe: warning: "
                                   : "",
          stderr);
    crfp_fput_message(stderr, msg);
    fputc('\n', stderr);
}

/* Libtool runs uninstalled programs from .libs/ inside the build tree, so the
 * real executable's location tells whether the build tree's plugins (rather
 * than the possibly stale or absent installed ones) belong to this binary. */
static int running_uninstalled(void)
{
    const char *bd = CRFP_ABS_BUILDDIR;
    if (!bd[0])
        return 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    char real[PATH_MAX];
    if (!realpath(bd, real))
        return 0;
    size_t rl = strlen(real);
    return strncmp(exe, real, rl) == 0 && exe[rl] == '/';
}

crfp_host *crfp_host_new(void)
{
    /* Before anything uses ICU, which accepts an allocator only then. */
    crfp_reserve_install();
    crfp_host *host = calloc(1, sizeof *host);
    if (!host)
        return NULL;
    /* The error buffer exists before any error, so that running out of
     * memory while recording one still leaves its status in words. */
    if (!(host->errmsg = calloc(1, CRFP_ERRBUF_MIN))) {
        free(host);
        return NULL;
    }
    host->errcap = CRFP_ERRBUF_MIN;
    host->log_fn = log_to_stderr;
    host->max_level = CRFP_LOG_PROGRESS;
    host->uninstalled = running_uninstalled();
    crfp_host_limits_init(host);
    /* lt_dlinit is reference-counted by libltdl, so several hosts (or a host
     * inside a program that uses ltdl itself) coexist. */
    if (lt_dlinit() != 0) {
        free(host->errmsg);
        free(host);
        return NULL;
    }
    host->ltdl_ready = 1;
    if (crfp_host_rebuild_path(host) != CRFP_OK) {
        crfp_host_free(host);
        return NULL;
    }
    return host;
}

static void free_path(crfp_host *host)
{
    for (size_t i = 0; i < host->npath; i++)
        free(host->path[i].dir);
    free(host->path);
    free(host->path_view);
    host->path = NULL;
    host->path_view = NULL;
    host->npath = 0;
}

void crfp_host_free(crfp_host *host)
{
    if (!host)
        return;
    /* Jobs may run plugin code: stop the team before any module goes. */
    crfp_team_free(host->team);
    host->team = NULL;
    /* Unload in reverse order of loading, in case a later module's fini
     * still relies on an earlier one. */
    for (size_t i = host->nloaded; i-- > 0;) {
        crfp_loaded *l = host->loaded[i];
        if (l->inited && l->pub.desc->fini)
            l->pub.desc->fini();
        if (l->handle)
            lt_dlclose(l->handle);
        free(l->pub.file);
        free(l);
    }
    free(host->loaded);
    free(host->scan_list);
    for (size_t i = 0; i < host->nwarned; i++)
        free(host->warned[i]);
    free(host->warned);
    for (size_t i = 0; i < host->nuser; i++)
        free(host->user_dirs[i]);
    free(host->user_dirs);
    free_path(host);
    if (host->ltdl_ready)
        lt_dlexit();
    free(host->errmsg);
    free(host);
}

void crfp_host_set_log(crfp_host *host, crfp_log_fn fn, void *userdata)
{
    if (!host)
        return;
    host->log_fn = fn ? fn : log_to_stderr;
    host->log_ud = fn ? userdata : NULL;
}

void crfp_host_set_verbosity(crfp_host *host, crfp_log_level max_level)
{
    if (host)
        host->max_level = max_level;
}

void crfp_host_get_log(const crfp_host *host, crfp_log_fn *fn, void **userdata)
{
    *fn = host ? host->log_fn : NULL;
    *userdata = host ? host->log_ud : NULL;
}

crfp_log_level crfp_host_verbosity(const crfp_host *host)
{
    return host ? host->max_level : CRFP_LOG_PROGRESS;
}

void crfp_host_set_threads(crfp_host *host, int nthreads)
{
    if (!host)
        return;
    host->nthreads = nthreads > 0 ? nthreads : 0;
    if (host->team && crfp_team_size(host->team) != crfp_host_threads(host)) {
        crfp_team_free(host->team);
        host->team = NULL;
    }
}

crfp_team *crfp_host_team(crfp_host *host)
{
    if (!host)
        return NULL;
    if (!host->team && crfp_team_new(crfp_host_threads(host), &host->team) != CRFP_OK)
        host->team = NULL;
    return host->team;
}

int crfp_host_threads(const crfp_host *host)
{
    if (host && host->nthreads > 0)
        return host->nthreads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void crfp_host_interrupt(crfp_host *host)
{
    if (host)
        host->interrupted = 1;
}

static crfp_status push_dir(crfp_pathdir **path, size_t *n, const char *dir, size_t len,
                            int buildtree)
{
    /* Trailing slashes would only make the messages ugly. */
    while (len > 1 && dir[len - 1] == '/')
        len--;
    char *d = strndup(dir, len);
    if (!d)
        return CRFP_ENOMEM;
    crfp_pathdir *p = realloc(*path, (*n + 1) * sizeof **path);
    if (!p) {
        free(d);
        return CRFP_ENOMEM;
    }
    p[*n].dir = d;
    p[*n].buildtree = buildtree;
    *path = p;
    ++*n;
    return CRFP_OK;
}

crfp_status crfp_host_rebuild_path(crfp_host *host)
{
    /* built aside: out of memory, the host keeps the path it had */
    crfp_pathdir *path = NULL;
    size_t n = 0;
    crfp_status st = CRFP_OK;
    for (size_t i = 0; i < host->nuser && st == CRFP_OK; i++)
        st = push_dir(&path, &n, host->user_dirs[i], strlen(host->user_dirs[i]), 0);
    const char *env = getenv("CRFPIPE_PLUGIN_PATH");
    while (env && *env && st == CRFP_OK) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        if (len)
            st = push_dir(&path, &n, env, len, 0);
        env = colon ? colon + 1 : NULL;
    }
    if (host->uninstalled && st == CRFP_OK) {
        const char *bd = CRFP_ABS_BUILDDIR;
        size_t bl = strlen(bd);
        char *d = malloc(bl + sizeof "/plugins");
        if (!d) {
            st = CRFP_ENOMEM;
        } else {
            memcpy(d, bd, bl);
            memcpy(d + bl, "/plugins", sizeof "/plugins");
            st = push_dir(&path, &n, d, strlen(d), 1);
            free(d);
        }
    }
    if (st == CRFP_OK)
        st = push_dir(&path, &n, CRFP_PKGLIBDIR, strlen(CRFP_PKGLIBDIR), 0);
    const char **view = NULL;
    if (st == CRFP_OK && !(view = malloc(n * sizeof *view)))
        st = CRFP_ENOMEM;
    if (st != CRFP_OK) {
        for (size_t i = 0; i < n; i++)
            free(path[i].dir);
        free(path);
        return crfp_error(host, CRFP_ENOMEM, "plugin search path: out of memory");
    }
    for (size_t i = 0; i < n; i++)
        view[i] = path[i].dir;
    free_path(host);
    host->path = path;
    host->npath = n;
    host->path_view = view;
    return CRFP_OK;
}

crfp_status crfp_host_add_plugin_dir(crfp_host *host, const char *dir)
{
    if (!host)
        return CRFP_EINVAL;
    if (!dir || !*dir)
        return crfp_error(host, CRFP_EINVAL, "--plugin-path: empty directory name");
    char *copy = strdup(dir);
    char **ud = copy ? realloc(host->user_dirs, (host->nuser + 1) * sizeof *ud) : NULL;
    if (!ud) {
        free(copy);
        return crfp_error(host, CRFP_ENOMEM, "--plugin-path %s: out of memory", dir);
    }
    host->user_dirs = ud;
    ud[host->nuser++] = copy;
    crfp_status st = crfp_host_rebuild_path(host);
    if (st != CRFP_OK)
        free(ud[--host->nuser]); /* as if never called: the old path stays */
    return st;
}

void crfp_host_search_path(const crfp_host *host, const char *const **dirs, size_t *n)
{
    *dirs = host ? host->path_view : NULL;
    *n = host ? host->npath : 0;
}

/* --- resource limits ------------------------------------------------------ */

static const struct {
    const char *name;
    size_t dflt;
} limit_info[CRFP_LIMIT_COUNT] = {
    [CRFP_LIMIT_XML_NODE] = {"xml-node", 10000000},
    [CRFP_LIMIT_LINE] = {"line", (size_t)1 << 20},
    [CRFP_LIMIT_SENTENCE] = {"sentence-tokens", 100000},
    [CRFP_LIMIT_REGEX_TIME] = {"regex-time", 1000},
    [CRFP_LIMIT_REGEX_STACK] = {"regex-stack", (size_t)8 << 20},
    [CRFP_LIMIT_MODEL_LABELS] = {"model-labels", 4096},
    [CRFP_LIMIT_MODEL_PARAMS] = {"model-params", (size_t)1 << 28},
};

void crfp_host_limits_init(crfp_host *host)
{
    for (int i = 0; i < CRFP_LIMIT_COUNT; i++)
        host->limits[i] = limit_info[i].dflt;
}

size_t crfp_host_limit(const crfp_host *host, crfp_limit which)
{
    if ((unsigned)which >= CRFP_LIMIT_COUNT)
        return 0;
    return host ? host->limits[which] : limit_info[which].dflt;
}

const char *crfp_limit_name(crfp_limit which)
{
    return (unsigned)which < CRFP_LIMIT_COUNT ? limit_info[which].name : NULL;
}

/* "123", "64k", "8M", "2G", "unlimited": 0 on success. */
static int parse_size(const char *s, size_t n, size_t *out)
{
    if (n == 9 && strncmp(s, "unlimited", 9) == 0) {
        *out = 0;
        return 0;
    }
    size_t v = 0, i = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        size_t d = (size_t)(s[i] - '0');
        if (v > (SIZE_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (i == 0)
        return -1;
    if (i < n) {
        int shift = s[i] == 'k' || s[i] == 'K' ? 10 : s[i] == 'M' ? 20 : s[i] == 'G' ? 30 : -1;
        if (shift < 0 || i + 1 != n || v > (SIZE_MAX >> shift))
            return -1;
        v <<= shift;
    }
    *out = v;
    return 0;
}

crfp_status crfp_host_set_limits(crfp_host *host, const char *spec)
{
    if (!host)
        return CRFP_EINVAL;
    if (!spec)
        return CRFP_OK;
    /* Parse everything into a copy first so that a bad item changes nothing. */
    size_t next[CRFP_LIMIT_COUNT];
    memcpy(next, host->limits, sizeof next);
    const char *p = spec;
    while (*p) {
        while (*p == ',' || *p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *item = p;
        while (*p && *p != ',' && *p != ' ' && *p != '\t')
            p++;
        size_t len = (size_t)(p - item);
        const char *eq = memchr(item, '=', len);
        int which = -1;
        for (int i = 0; eq && i < CRFP_LIMIT_COUNT; i++)
            if (strlen(limit_info[i].name) == (size_t)(eq - item) &&
                strncmp(item, limit_info[i].name, (size_t)(eq - item)) == 0)
                which = i;
        if (which < 0) {
            char names[256] = "";
            for (int i = 0; i < CRFP_LIMIT_COUNT; i++) {
                strcat(names, i ? ", " : "");
                strcat(names, limit_info[i].name);
            }
            return crfp_error(host, CRFP_EINVAL,
                              "limits: '%.*s' is not NAME=VALUE with NAME one of %s", (int)len,
                              item, names);
        }
        if (parse_size(eq + 1, len - (size_t)(eq + 1 - item), &next[which]) != 0)
            return crfp_error(host, CRFP_EINVAL,
                              "limits: '%.*s': the value must be a number with an optional "
                              "k, M or G suffix, or 'unlimited'",
                              (int)len, item);
    }
    memcpy(host->limits, next, sizeof next);
    return CRFP_OK;
}
