/* crfpipe — the plugin registry: finding, opening and checking modules with
 * libltdl, and scanning the search path.
 *
 * Modules are opened with lt_dlopenext() on DIR/NAME, so either the libtool
 * archive (NAME.la) or the bare shared object (NAME.so) will do: distributions
 * routinely delete .la files.  Preloaded modules (a program linked with
 * -dlpreopen that calls LTDL_SET_PRELOADED_SYMBOLS() before crfp_host_new())
 * are found last, through lt_dlopenadvise() restricted to preloaded symbols.
 */
#include "config.h"
#include "host_priv.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LT_MODULE_EXT
#define LT_MODULE_EXT ".so"
#endif

static void loader_reason(char *buf, size_t len);
static int is_oom_reason(const char *why);

static int is_identifier(const char *s, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

static char *join3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb);
        memcpy(s + la + lb, c, lc + 1);
    }
    return s;
}

/* --- trust ------------------------------------------------------------------
 *
 * Opening a module runs its constructors, and a name lookup or `crfpipe
 * plugins` opens every module on the search path: anyone who can put a file
 * there runs code as whoever runs crfpipe (often root, for an install).  So,
 * as ld.so ignores writable library paths for privileged programs and sudo
 * refuses plugins that others can write, a directory or module file that is
 * world-writable, or owned by someone other than root or the current user,
 * is skipped with a warning.  Each warning is given once per host. */

/* Whether the stat of a path on the search path can be trusted; if not, the
 * reason, for the warning, in why[len]. */
static int trusted(const struct stat *sb, char *why, size_t len)
{
    if (sb->st_mode & S_IWOTH) {
        snprintf(why, len, "it is world-writable");
        return 0;
    }
    if (sb->st_uid != 0 && sb->st_uid != geteuid()) {
        snprintf(why, len, "it is owned by uid %lu, neither root nor the current user",
                 (unsigned long)sb->st_uid);
        return 0;
    }
    return 1;
}

static void warn_once(crfp_host *host, const char *what, const char *path, const char *why)
{
    for (size_t i = 0; i < host->nwarned; i++)
        if (strcmp(host->warned[i], path) == 0)
            return;
    crfp_log(host, CRFP_LOG_WARN, "ignoring plugin %s %s: %s", what, path, why);
    /* Out of memory only means the warning may be repeated. */
    char *copy = strdup(path);
    char **w = copy ? realloc(host->warned, (host->nwarned + 1) * sizeof *w) : NULL;
    if (!w) {
        free(copy);
        return;
    }
    w[host->nwarned++] = copy;
    host->warned = w;
}

/* 1: `dir` is a directory that may be searched; 0: it does not exist (normal
 * for pkglibdir in the build tree) or is not a directory; -1: untrusted
 * (warned). */
static int usable_dir(crfp_host *host, const char *dir)
{
    struct stat sb;
    char why[96];
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    if (!trusted(&sb, why, sizeof why)) {
        warn_once(host, "directory", dir, why);
        return -1;
    }
    return 1;
}

/* 1: `path` is a regular file that may be opened; 0: no such file; -1:
 * untrusted (warned). */
static int usable_file(crfp_host *host, const char *path)
{
    struct stat sb;
    char why[96];
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    if (!trusted(&sb, why, sizeof why)) {
        warn_once(host, "module", path, why);
        return -1;
    }
    return 1;
}

/* --- finding the shared object ------------------------------------------ */

/* Reads the parts of a libtool archive (NAME.la) that say where its shared
 * object is: `dlname` and `installed`.  A .la that is not a libtool module
 * archive, or names a file that is not NAME.so (possibly versioned), is
 * refused: the registry opens only files named after the plugin it looks
 * for. */
static crfp_status read_la(crfp_host *host, const char *la, const char *name, char **dlname,
                           int *installed)
{
    *dlname = NULL;
    *installed = 1;
    FILE *f = fopen(la, "r");
    if (!f)
        return errno == ENOMEM ? crfp_error(host, CRFP_ENOMEM, "%s: out of memory", la)
                               : crfp_error(host, CRFP_EPLUGIN, "%s: %s", la, strerror(errno));
    char line[4096];
    int marker = 0, lines = 0;
    crfp_status st = CRFP_OK;
    /* Libtool writes a few dozen short lines; a long file is something else. */
    while (st == CRFP_OK && lines++ < 200 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (lines == 1)
            marker = strstr(line, " - a libtool library file") != NULL;
        if (strncmp(line, "installed=", 10) == 0)
            *installed = strcmp(line + 10, "no") != 0;
        if (strncmp(line, "dlname='", 8) == 0 && !*dlname) {
            size_t n = strlen(line + 8);
            if (n == 0 || line[8 + n - 1] != '\'')
                continue;
            if (!(*dlname = strndup(line + 8, n - 1)))
                st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory", la);
        }
    }
    if (st == CRFP_OK && ferror(f))
        st = crfp_error(host, errno == ENOMEM ? CRFP_ENOMEM : CRFP_EPLUGIN, "%s: %s", la,
                        errno == ENOMEM ? "out of memory" : strerror(errno));
    fclose(f);
    if (st != CRFP_OK) {
        free(*dlname);
        *dlname = NULL;
        return st;
    }
    size_t nl = strlen(name), el = strlen(LT_MODULE_EXT);
    const char *d = *dlname;
    if (!marker || !d)
        st = crfp_error(host, CRFP_EPLUGIN, "%s: not a libtool module archive (no %s)", la,
                        marker ? "dlname" : "'libtool library file' header");
    else if (!*d)
        st = crfp_error(host, CRFP_EPLUGIN, "%s: the archive has no shared object (empty dlname)",
                        la);
    else if (strchr(d, '/') || strncmp(d, name, nl) != 0 || strncmp(d + nl, LT_MODULE_EXT, el) != 0 ||
             (d[nl + el] && d[nl + el] != '.'))
        st = crfp_error(host, CRFP_EPLUGIN,
                        "%s: refusing dlname '%s': a plugin's shared object must be %s%s in the "
                        "same directory", la, d, name, LT_MODULE_EXT);
    if (st != CRFP_OK) {
        free(*dlname);
        *dlname = NULL;
    }
    return st;
}

/* The module that loading `name` from `base` (DIR/NAME) would open: the
 * libtool archive NAME.la, as libltdl prefers it, else NAME.so.  *file is
 * what the user is shown (the .la or the .so), *so the shared object itself
 * (for a .la, its dlname in DIR, or in DIR/.libs for an archive in a build
 * tree); both malloc'd.  The file, the shared object and the directory
 * holding it must be trusted.  CRFP_ENOTFOUND (no message) when there is no
 * usable module; *skipped is set when one existed but was not trusted.
 * Errors: CRFP_EPLUGIN (a .la that is not a module archive), CRFP_ENOMEM. */
static crfp_status resolve(crfp_host *host, const char *base, const char *name, char **file,
                           char **so, int *skipped)
{
    *file = *so = NULL;
    /* The directory the module lies in: the search directory itself, or a
     * plugin's directory (and .libs) in the build tree. */
    const char *bslash = strrchr(base, '/');
    char *bdir = bslash ? strndup(base, (size_t)(bslash - base)) : strdup(".");
    if (!bdir)
        return crfp_error(host, CRFP_ENOMEM, "plugin '%s': out of memory", name);
    int ud = usable_dir(host, bdir);
    free(bdir);
    if (ud <= 0) {
        if (ud < 0)
            *skipped = 1;
        return CRFP_ENOTFOUND;
    }
    char *la = join3(base, ".la", "");
    char *plain = join3(base, LT_MODULE_EXT, "");
    crfp_status st = CRFP_ENOTFOUND;
    if (!la || !plain) {
        st = crfp_error(host, CRFP_ENOMEM, "plugin '%s': out of memory", name);
        goto out;
    }
    int u = usable_file(host, la);
    if (u < 0) {
        /* Not NAME.so instead: the archive is what libltdl would follow. */
        *skipped = 1;
        goto out;
    }
    if (u > 0) {
        char *dlname;
        int installed;
        if ((st = read_la(host, la, name, &dlname, &installed)) != CRFP_OK)
            goto out;
        const char *slash = strrchr(la, '/');
        char *dir = slash ? strndup(la, (size_t)(slash - la)) : strdup(".");
        char *libs = dir ? join3(dir, "/.libs", "") : NULL;
        char *in_libs = libs ? join3(libs, "/", dlname) : NULL;
        char *beside = dir ? join3(dir, "/", dlname) : NULL;
        free(dlname);
        if (!in_libs || !beside) {
            st = crfp_error(host, CRFP_ENOMEM, "plugin '%s': out of memory", name);
        } else {
            /* An archive that is not installed lives in the build tree with
             * its object in .libs (what libltdl does too). */
            int ul = installed ? 0 : usable_dir(host, libs);
            int us = ul > 0 ? usable_file(host, in_libs) : 0;
            if (us > 0) {
                *so = in_libs;
                in_libs = NULL;
            } else if (ul >= 0 && us == 0 && (us = usable_file(host, beside)) > 0) {
                *so = beside;
                beside = NULL;
            }
            if (*so) {
                *file = la;
                la = NULL;
                st = CRFP_OK;
            } else if (ul < 0 || us < 0) {
                *skipped = 1;
                st = CRFP_ENOTFOUND;
            } else {
                st = crfp_error(host, CRFP_EPLUGIN, "%s: its shared object is missing", la);
            }
        }
        free(dir);
        free(libs);
        free(in_libs);
        free(beside);
        goto out;
    }
    u = usable_file(host, plain);
    if (u < 0)
        *skipped = 1;
    if (u > 0) {
        *file = plain;
        *so = strdup(plain);
        plain = NULL;
        if (!*so) {
            free(*file);
            *file = NULL;
            st = crfp_error(host, CRFP_ENOMEM, "plugin '%s': out of memory", name);
        } else {
            st = CRFP_OK;
        }
    }
out:
    free(la);
    free(plain);
    return st;
}

/* Candidate base names (without extension) of module `name` in one search
 * directory, in the order they are tried.  A NULL entry means that memory
 * ran out (the caller reports it). */
static size_t candidates(const crfp_host *host, const crfp_pathdir *pd, const char *name,
                         char *out[2])
{
    size_t n = 0;
    if (pd->buildtree) {
        char *sub = join3(pd->dir, "/", name);
        out[n++] = sub ? join3(sub, "/", name) : NULL;
        out[n++] = sub ? join3(sub, "/.libs/", name) : NULL;
        free(sub);
    } else {
        out[n++] = join3(pd->dir, "/", name);
        if (host->uninstalled)
            out[n++] = join3(pd->dir, "/.libs/", name);
    }
    return n;
}

static crfp_loaded *find_loaded(const crfp_host *host, const char *name)
{
    for (size_t i = 0; i < host->nloaded; i++)
        if (strcmp(host->loaded[i]->pub.desc->name, name) == 0)
            return host->loaded[i];
    return NULL;
}

/* The members every vtable of a kind must have (those of ABI 2.0), as the
 * byte size the vtable must reach and the function pointers it must set. */
#define HAS(type, m) (vt_size >= offsetof(type, m) + sizeof(void *) && ((const type *)vt)->m)
static const char *missing_member(crfp_kind kind, const void *vt, size_t vt_size)
{
    switch (kind) {
    case CRFP_KIND_READER:
        return !HAS(crfp_reader_vtable, open) ? "open" : !HAS(crfp_reader_vtable, next) ? "next"
               : !HAS(crfp_reader_vtable, close) ? "close" : NULL;
    case CRFP_KIND_WRITER:
        return !HAS(crfp_writer_vtable, open) ? "open" : !HAS(crfp_writer_vtable, write) ? "write"
               : !HAS(crfp_writer_vtable, finish) ? "finish"
               : !HAS(crfp_writer_vtable, close) ? "close" : NULL;
    case CRFP_KIND_TOKENIZER:
    case CRFP_KIND_TAGGER:
        return !HAS(crfp_stage_vtable, open) ? "open" : !HAS(crfp_stage_vtable, process) ? "process"
               : !HAS(crfp_stage_vtable, close) ? "close" : NULL;
    case CRFP_KIND_FEATURES:
        return !HAS(crfp_features_vtable, create) ? "create"
               : !HAS(crfp_features_vtable, load) ? "load"
               : !HAS(crfp_features_vtable, save) ? "save"
               : !HAS(crfp_features_vtable, extract) ? "extract"
               : !HAS(crfp_features_vtable, free) ? "free" : NULL;
    case CRFP_KIND_TRAINER:
        return !HAS(crfp_trainer_vtable, train) ? "train" : NULL;
    }
    return "?";
}
#undef HAS

/* Every way a module can break the contract, checked before anything in it
 * is called. */
static crfp_status check_descriptor(crfp_host *host, const char *file, const char *name,
                                    const crfp_plugin_descriptor *d)
{
    if (d->abi_major != CRFP_ABI_MAJOR || d->abi_minor > CRFP_ABI_MINOR)
        return crfp_error(host, CRFP_EABI,
                          "%s: plugin built for ABI %u.%u, but this crfpipe supports %u.0 to "
                          "%u.%u (rebuild the plugin against this crfpipe)",
                          file, (unsigned)d->abi_major, (unsigned)d->abi_minor, CRFP_ABI_MAJOR,
                          CRFP_ABI_MAJOR, CRFP_ABI_MINOR);
    if (!d->name || strcmp(d->name, name) != 0)
        return crfp_error(host, CRFP_EABI,
                          "%s: descriptor names plugin '%s' but the module is '%s' "
                          "(the descriptor name must equal the module file name)",
                          file, d->name ? d->name : "(null)", name);
    if (crfp_kind_parse(crfp_kind_name(d->kind)) < 0)
        return crfp_error(host, CRFP_EABI, "%s: plugin '%s' has unknown kind %d", file, name,
                          (int)d->kind);
    if (!d->vtable)
        return crfp_error(host, CRFP_EABI, "%s: plugin '%s' has no vtable", file, name);
    /* Every vtable starts with its size. */
    size_t vt_size = *(const size_t *)d->vtable;
    const char *miss = missing_member(d->kind, d->vtable, vt_size);
    if (miss)
        return crfp_error(host, CRFP_EABI,
                          "%s: plugin '%s': its %s vtable (%zu bytes) lacks the required member "
                          "'%s'", file, name, crfp_kind_name(d->kind), vt_size, miss);
    if (d->nparams && !d->params)
        return crfp_error(host, CRFP_EABI, "%s: plugin '%s' declares %zu parameters but no table",
                          file, name, d->nparams);
    for (size_t i = 0; i < d->nparams; i++)
        if (!d->params[i].name)
            return crfp_error(host, CRFP_EABI, "%s: plugin '%s': parameter %zu has no name", file,
                              name, i + 1);
    return CRFP_OK;
}

static crfp_status remember(crfp_host *host, crfp_loaded *l)
{
    if (host->nloaded == host->capload) {
        size_t cap = host->capload ? 2 * host->capload : 8;
        crfp_loaded **p = realloc(host->loaded, cap * sizeof *p);
        if (!p)
            return CRFP_ENOMEM;
        host->loaded = p;
        host->capload = cap;
    }
    host->loaded[host->nloaded++] = l;
    return CRFP_OK;
}

/* Check, initialise and register an opened module; closes it on failure. */
static crfp_status adopt(crfp_host *host, lt_dlhandle h, const char *file, const char *name,
                         const crfp_plugin **out)
{
    /* lt_dlsym tries NAME_LTX_crfp_plugin first, then plain crfp_plugin. */
    lt_dlerror();
    const crfp_plugin_descriptor *d = lt_dlsym(h, CRFP_PLUGIN_SYMBOL);
    crfp_status st;
    if (!d) {
        char why[256];
        loader_reason(why, sizeof why);
        if (is_oom_reason(why))
            st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory looking up its descriptor (%s)",
                            file, why);
        else
            st = crfp_error(host, CRFP_EABI,
                        "%s: no crfp_plugin descriptor (not a crfpipe plugin? expected symbol "
                        "'%s_LTX_crfp_plugin' from CRFP_PLUGIN_DEFINE(%s))",
                        file, name, name);
        lt_dlclose(h);
        return st;
    }
    if ((st = check_descriptor(host, file, name, d)) != CRFP_OK) {
        lt_dlclose(h);
        return st;
    }
    crfp_loaded *l = calloc(1, sizeof *l);
    char *fcopy = strdup(file);
    if (!l || !fcopy) {
        free(l);
        free(fcopy);
        lt_dlclose(h);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", file);
    }
    l->pub.desc = d;
    l->pub.file = fcopy;
    l->handle = h;
    /* An accepted module stays mapped until the process ends (as
     * GStreamer's plugins do): the libraries it pulls in (cairo's pixman,
     * ICU, ...) keep process-lifetime allocations in their globals, made by
     * their constructors; unloading them with the module would orphan those
     * blocks and rerun the constructors at the next load.  lt_dlclose in
     * crfp_host_free then only drops the host's reference. */
    lt_dlmakeresident(h);
    if (remember(host, l) != CRFP_OK) {
        free(fcopy);
        free(l);
        lt_dlclose(h);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", file);
    }
    if (d->init) {
        crfp_error_clear(host);
        st = d->init(host);
        if (st != CRFP_OK) {
            const char *why = crfp_errmsg(host);
            /* Running out of memory is not the module's fault: keep saying
             * so, with the status a caller can act on. */
            crfp_status rst = st == CRFP_ENOMEM ? CRFP_ENOMEM : CRFP_EPLUGIN;
            crfp_error(host, rst, "%s: plugin '%s' failed to initialise: %s", file, name,
                       *why ? why : crfp_status_str(st));
            host->nloaded--;
            free(fcopy);
            free(l);
            lt_dlclose(h);
            return rst;
        }
        l->inited = 1;
    }
    *out = &l->pub;
    return CRFP_OK;
}

/* libltdl's last message, copied (it may point into dlerror()'s buffer,
 * which the next loader call reuses). */
static void loader_reason(char *buf, size_t len)
{
    const char *why = lt_dlerror();
    snprintf(buf, len, "%s", why ? why : "unknown libltdl error");
}

/* Whether a loader's message means that it ran out of memory: libltdl says
 * "not enough memory", glibc's dlerror() appends strerror(ENOMEM) or, when
 * it could not even format its message, says "out of memory". */
static int is_oom_reason(const char *why)
{
    return strstr(why, "not enough memory") || strstr(why, "out of memory") ||
           strstr(why, strerror(ENOMEM));
}

/* Why the dlopen loader cannot open `so`, in buf; 0 if it can after all
 * (it was closed again).  libltdl tries each of its loaders in turn and
 * reports the last one's verdict, which is the preload loader's "file not
 * found" whatever dlopen() said; asking the dlopen loader alone recovers
 * the real reason ("invalid ELF header", a missing dependency, ENOMEM). */
static int dlopen_reason(const char *so, char *buf, size_t len)
{
    const lt_dlvtable *vt = lt_dlloader_find("lt_dlopen");
    if (!vt || !vt->module_open) {
        snprintf(buf, len, "refused by libltdl, which has no dlopen loader to say why");
        return 1;
    }
    lt_dlerror();
    lt_module m = vt->module_open(vt->dlloader_data, so, NULL);
    if (m) {
        if (vt->module_close)
            vt->module_close(vt->dlloader_data, m);
        return 0;
    }
    loader_reason(buf, len);
    return 1;
}

/* Open the shared object `so` of module `file` and adopt it.  Errors:
 * CRFP_ENOMEM when the loader ran out of memory, CRFP_EPLUGIN ("not a
 * loadable module: REASON") when the file cannot be loaded, and those of
 * adopt(). */
static crfp_status open_file(crfp_host *host, const char *so, const char *file, const char *name,
                             const crfp_plugin **out)
{
    char why[512];
    lt_dlerror();
    lt_dlhandle h = lt_dlopen(so);
    if (!h) {
        loader_reason(why, sizeof why);
        /* A failure that is not libltdl's own lack of memory: find out what
         * dlopen() said.  If it opens now, the failure was transient (memory
         * freed meanwhile): try once more. */
        if (!is_oom_reason(why) && !dlopen_reason(so, why, sizeof why)) {
            lt_dlerror();
            if (!(h = lt_dlopen(so)))
                loader_reason(why, sizeof why);
        }
    }
    if (!h) {
        if (is_oom_reason(why))
            return crfp_error(host, CRFP_ENOMEM, "%s: out of memory loading the module (%s)", file,
                              why);
        return crfp_error(host, CRFP_EPLUGIN, "%s: not a loadable module: %s", file, why);
    }
    return adopt(host, h, file, name, out);
}

static lt_dlhandle open_preloaded(const char *name)
{
    lt_dladvise adv;
    if (lt_dladvise_init(&adv) != 0)
        return NULL;
    lt_dlhandle h = NULL;
    if (lt_dladvise_preload(&adv) == 0)
        h = lt_dlopenadvise(name, adv);
    lt_dladvise_destroy(&adv);
    /* A failed preload lookup leaves an error behind that means nothing to
     * the user; the caller reports "not found" instead. */
    lt_dlerror();
    return h;
}

static crfp_status not_found(crfp_host *host, const char *name, int skipped)
{
    const char *note = skipped ? " (an untrusted one was ignored: see the warning)" : "";
    size_t len = 1;
    for (size_t i = 0; i < host->npath; i++)
        len += strlen(host->path[i].dir) + 16;
    char *dirs = malloc(len);
    if (!dirs)
        return crfp_error(host, CRFP_ENOTFOUND, "plugin '%s' not found%s", name, note);
    dirs[0] = '\0';
    for (size_t i = 0; i < host->npath; i++) {
        if (i)
            strcat(dirs, ", ");
        strcat(dirs, host->path[i].dir);
        if (host->path[i].buildtree)
            strcat(dirs, "/*");
    }
    crfp_status st = crfp_error(host, CRFP_ENOTFOUND,
                                "plugin '%s' not found: no %s.la or %s%s in %s%s", name, name,
                                name, LT_MODULE_EXT, dirs, note);
    free(dirs);
    return st;
}

crfp_status crfp_host_load(crfp_host *host, const char *name, const crfp_plugin **out)
{
    if (!host || !out)
        return crfp_error(host, CRFP_EINVAL, "crfp_host_load: NULL argument");
    *out = NULL;
    /* Users write "sgd-l1"; module files are C identifiers ("sgd_l1"). */
    char norm[128];
    if (name && strchr(name, '-') && strlen(name) < sizeof norm) {
        size_t i = 0;
        for (; name[i]; i++)
            norm[i] = name[i] == '-' ? '_' : name[i];
        norm[i] = '\0';
        name = norm;
    }
    if (!name || !is_identifier(name, strlen(name)))
        return crfp_error(host, CRFP_EINVAL,
                          "plugin name '%s' is not valid (a plugin name is a C identifier)",
                          name ? name : "(null)");
    crfp_loaded *l = find_loaded(host, name);
    if (l) {
        *out = &l->pub;
        return CRFP_OK;
    }
    int skipped = 0;
    for (size_t i = 0; i < host->npath; i++) {
        if (usable_dir(host, host->path[i].dir) <= 0)
            continue;
        char *cand[2] = {NULL, NULL};
        size_t nc = candidates(host, &host->path[i], name, cand);
        crfp_status st = CRFP_ENOTFOUND;
        for (size_t c = 0; c < nc && st == CRFP_ENOTFOUND; c++) {
            if (!cand[c]) {
                st = crfp_error(host, CRFP_ENOMEM, "plugin '%s': out of memory", name);
                break;
            }
            char *file, *so;
            int untrusted = 0;
            st = resolve(host, cand[c], name, &file, &so, &untrusted);
            if (st == CRFP_OK) {
                st = open_file(host, so, file, name, out);
                free(file);
                free(so);
            }
            /* A directory holding an untrusted file for this name is not
             * used for it at all: the build tree's second candidate
             * (.libs/NAME.so) must not stand in for a NAME.la that was
             * refused. */
            if (untrusted) {
                skipped = 1;
                break;
            }
        }
        for (size_t c = 0; c < nc; c++)
            free(cand[c]);
        if (st != CRFP_ENOTFOUND)
            return st;
    }
    lt_dlhandle h = open_preloaded(name);
    if (h)
        return adopt(host, h, name, name, out);
    return not_found(host, name, skipped);
}

crfp_status crfp_host_load_kind(crfp_host *host, const char *name, crfp_kind kind,
                                const crfp_plugin **out)
{
    crfp_status st = crfp_host_load(host, name, out);
    if (st != CRFP_OK)
        return st;
    if ((*out)->desc->kind != kind) {
        const crfp_plugin *p = *out;
        *out = NULL;
        return crfp_error(host, CRFP_EINVAL, "%s: plugin '%s' is a %s, not a %s", p->file, name,
                          crfp_kind_name(p->desc->kind), crfp_kind_name(kind));
    }
    return CRFP_OK;
}

/* --- scanning ----------------------------------------------------------- */

typedef struct namelist {
    char **names;  /* plugin names, in discovery order */
    char **files;  /* the file each was first seen as */
    size_t n, cap;
} namelist;

static void namelist_free(namelist *nl)
{
    for (size_t i = 0; i < nl->n; i++) {
        free(nl->names[i]);
        free(nl->files[i]);
    }
    free(nl->names);
    free(nl->files);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect module names in `dir` (sorted, so output does not depend on
 * readdir order).  Missing directories are normal (e.g. pkglibdir when
 * running from the build tree). */
static crfp_status scan_dir(crfp_host *host, const char *dir, namelist *nl)
{
    /* An untrusted directory is not even listed (warned once). */
    if (usable_dir(host, dir) <= 0)
        return CRFP_OK;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOMEM ? CRFP_ENOMEM : CRFP_OK;
    char **found = NULL;
    size_t nf = 0, cap = 0;
    crfp_status st = CRFP_OK;
    struct dirent *e;
    size_t extlen = strlen(LT_MODULE_EXT);
    while ((e = readdir(d)) && st == CRFP_OK) {
        size_t len = strlen(e->d_name), stem;
        if (len > 3 && strcmp(e->d_name + len - 3, ".la") == 0)
            stem = len - 3;
        else if (len > extlen && strcmp(e->d_name + len - extlen, LT_MODULE_EXT) == 0)
            stem = len - extlen;
        else
            continue;
        if (!is_identifier(e->d_name, stem))
            continue;
        if (nf == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = realloc(found, cap * sizeof *p);
            if (!p) {
                st = CRFP_ENOMEM;
                break;
            }
            found = p;
        }
        if (!(found[nf] = strdup(e->d_name)))
            st = CRFP_ENOMEM;
        else
            nf++;
    }
    closedir(d);
    if (nf)
        qsort(found, nf, sizeof *found, cmp_str);
    for (size_t i = 0; i < nf; i++) {
        char *dot = strrchr(found[i], '.');
        size_t stem = (size_t)(dot - found[i]);
        int dup = 0;
        for (size_t k = 0; k < nl->n && !dup; k++)
            dup = strlen(nl->names[k]) == stem && strncmp(nl->names[k], found[i], stem) == 0;
        if (dup || st != CRFP_OK)
            continue;
        if (nl->n == nl->cap) {
            size_t c = nl->cap ? 2 * nl->cap : 16;
            char **a = realloc(nl->names, c * sizeof *a);
            if (a)
                nl->names = a;
            char **b = a ? realloc(nl->files, c * sizeof *b) : NULL;
            if (!b) {
                st = CRFP_ENOMEM;
                continue;
            }
            nl->files = b;
            nl->cap = c;
        }
        char *nm = strndup(found[i], stem);
        char *file = join3(dir, "/", found[i]);
        if (!nm || !file) {
            free(nm);
            free(file);
            st = CRFP_ENOMEM;
            continue;
        }
        nl->names[nl->n] = nm;
        nl->files[nl->n++] = file;
    }
    for (size_t i = 0; i < nf; i++)
        free(found[i]);
    free(found);
    return st;
}

/* BUILDDIR/plugins holds one directory per plugin, modules inside them. */
static crfp_status scan_buildtree(crfp_host *host, const char *dir, namelist *nl)
{
    if (usable_dir(host, dir) <= 0)
        return CRFP_OK;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOMEM ? CRFP_ENOMEM : CRFP_OK;
    char **subs = NULL;
    size_t ns = 0, cap = 0;
    crfp_status st = CRFP_OK;
    struct dirent *e;
    while ((e = readdir(d)) && st == CRFP_OK) {
        if (!is_identifier(e->d_name, strlen(e->d_name)))
            continue;
        if (ns == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = realloc(subs, cap * sizeof *p);
            if (!p) {
                st = CRFP_ENOMEM;
                break;
            }
            subs = p;
        }
        if (!(subs[ns] = strdup(e->d_name)))
            st = CRFP_ENOMEM;
        else
            ns++;
    }
    closedir(d);
    if (ns)
        qsort(subs, ns, sizeof *subs, cmp_str);
    for (size_t i = 0; i < ns && st == CRFP_OK; i++) {
        char *sub = join3(dir, "/", subs[i]);
        char *libs = sub ? join3(sub, "/.libs", "") : NULL;
        if (!libs)
            st = CRFP_ENOMEM;
        else if ((st = scan_dir(host, sub, nl)) == CRFP_OK)
            st = scan_dir(host, libs, nl);
        free(sub);
        free(libs);
    }
    for (size_t i = 0; i < ns; i++)
        free(subs[i]);
    free(subs);
    return st;
}

crfp_status crfp_host_scan(crfp_host *host, const crfp_plugin ***list, size_t *n,
                           crfp_scan_error_fn on_error, void *ud)
{
    if (!host || !list || !n)
        return crfp_error(host, CRFP_EINVAL, "crfp_host_scan: NULL argument");
    *list = NULL;
    *n = 0;
    namelist nl = {0};
    crfp_status st = CRFP_OK;
    for (size_t i = 0; i < host->npath && st == CRFP_OK; i++) {
        const crfp_pathdir *pd = &host->path[i];
        if (pd->buildtree) {
            st = scan_buildtree(host, pd->dir, &nl);
        } else {
            st = scan_dir(host, pd->dir, &nl);
            if (st == CRFP_OK && host->uninstalled) {
                char *libs = join3(pd->dir, "/.libs", "");
                st = libs ? scan_dir(host, libs, &nl) : CRFP_ENOMEM;
                free(libs);
            }
        }
    }
    const crfp_plugin **out = NULL;
    if (st == CRFP_OK && nl.n && !(out = malloc(nl.n * sizeof *out)))
        st = CRFP_ENOMEM;
    if (st != CRFP_OK) {
        namelist_free(&nl);
        free(out);
        return crfp_error(host, CRFP_ENOMEM, "scanning plugins: out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < nl.n; i++) {
        const crfp_plugin *p;
        /* Loading by name goes through the same search order, so it opens
         * exactly the first occurrence found here. */
        crfp_status lst = crfp_host_load(host, nl.names[i], &p);
        if (lst == CRFP_OK) {
            out[k++] = p;
        } else if (lst == CRFP_ENOMEM) {
            /* Not a broken module but a broken run: a scan that skipped it
             * would answer "unknown format" for a format that exists. */
            namelist_free(&nl);
            free(out);
            return crfp_error_wrap(host, CRFP_ENOMEM, "scanning plugins");
        } else if (lst != CRFP_ENOTFOUND && on_error) {
            /* (ENOTFOUND: only an untrusted module, already warned about.) */
            on_error(ud, nl.files[i], crfp_errmsg(host));
        }
    }
    namelist_free(&nl);
    crfp_error_clear(host);
    free(host->scan_list);
    host->scan_list = out;
    *list = out;
    *n = k;
    return CRFP_OK;
}
