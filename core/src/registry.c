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
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef LT_MODULE_EXT
#define LT_MODULE_EXT ".so"
#endif

static int is_identifier(const char *s, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
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

/* The module file that lt_dlopenext(base) would open, or NULL: the .la is
 * preferred, as libltdl does. */
static char *module_file(const char *base)
{
    char *la = join3(base, ".la", "");
    if (la && is_file(la))
        return la;
    free(la);
    char *so = join3(base, LT_MODULE_EXT, "");
    if (so && is_file(so))
        return so;
    free(so);
    return NULL;
}

/* Candidate base names (without extension) of module `name` in one search
 * directory, in the order they are tried. */
static size_t candidates(const crfp_host *host, const crfp_pathdir *pd, const char *name,
                         char *out[2])
{
    size_t n = 0;
    if (pd->buildtree) {
        char *sub = join3(pd->dir, "/", name);
        if (sub) {
            out[n++] = join3(sub, "/", name);
            out[n++] = join3(sub, "/.libs/", name);
            free(sub);
        }
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
    const crfp_plugin_descriptor *d = lt_dlsym(h, CRFP_PLUGIN_SYMBOL);
    crfp_status st;
    if (!d) {
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
            crfp_error(host, CRFP_EPLUGIN, "%s: plugin '%s' failed to initialise: %s", file, name,
                       *why ? why : crfp_status_str(st));
            host->nloaded--;
            free(fcopy);
            free(l);
            lt_dlclose(h);
            return CRFP_EPLUGIN;
        }
        l->inited = 1;
    }
    *out = &l->pub;
    return CRFP_OK;
}

static crfp_status open_file(crfp_host *host, const char *base, const char *file,
                             const char *name, const crfp_plugin **out)
{
    lt_dlhandle h = lt_dlopenext(base);
    if (!h) {
        const char *why = lt_dlerror();
        return crfp_error(host, CRFP_EPLUGIN, "%s: cannot open module: %s", file,
                          why ? why : "unknown libltdl error");
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

static crfp_status not_found(crfp_host *host, const char *name)
{
    size_t len = 1;
    for (size_t i = 0; i < host->npath; i++)
        len += strlen(host->path[i].dir) + 16;
    char *dirs = malloc(len);
    if (!dirs)
        return crfp_error(host, CRFP_ENOTFOUND, "plugin '%s' not found", name);
    dirs[0] = '\0';
    for (size_t i = 0; i < host->npath; i++) {
        if (i)
            strcat(dirs, ", ");
        strcat(dirs, host->path[i].dir);
        if (host->path[i].buildtree)
            strcat(dirs, "/*");
    }
    crfp_status st = crfp_error(host, CRFP_ENOTFOUND,
                                "plugin '%s' not found: no %s.la or %s%s in %s", name, name,
                                name, LT_MODULE_EXT, dirs);
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
    for (size_t i = 0; i < host->npath; i++) {
        char *cand[2] = {NULL, NULL};
        size_t nc = candidates(host, &host->path[i], name, cand);
        crfp_status st = CRFP_ENOTFOUND;
        for (size_t c = 0; c < nc && st == CRFP_ENOTFOUND; c++) {
            if (!cand[c]) {
                st = crfp_error(host, CRFP_ENOMEM, "plugin '%s': out of memory", name);
                break;
            }
            char *file = module_file(cand[c]);
            if (file) {
                st = open_file(host, cand[c], file, name, out);
                free(file);
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
    return not_found(host, name);
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
static crfp_status scan_dir(const char *dir, namelist *nl)
{
    DIR *d = opendir(dir);
    if (!d)
        return CRFP_OK;
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
static crfp_status scan_buildtree(const char *dir, namelist *nl)
{
    DIR *d = opendir(dir);
    if (!d)
        return CRFP_OK;
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
        else if ((st = scan_dir(sub, nl)) == CRFP_OK)
            st = scan_dir(libs, nl);
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
            st = scan_buildtree(pd->dir, &nl);
        } else {
            st = scan_dir(pd->dir, &nl);
            if (st == CRFP_OK && host->uninstalled) {
                char *libs = join3(pd->dir, "/.libs", "");
                st = libs ? scan_dir(libs, &nl) : CRFP_ENOMEM;
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
        if (crfp_host_load(host, nl.names[i], &p) == CRFP_OK)
            out[k++] = p;
        else if (on_error)
            on_error(ud, nl.files[i], crfp_errmsg(host));
    }
    namelist_free(&nl);
    crfp_error_clear(host);
    free(host->scan_list);
    host->scan_list = out;
    *list = out;
    *n = k;
    return CRFP_OK;
}
