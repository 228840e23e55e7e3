/* crfpipe plugins — list the plugins on the search path, or describe one. */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <stdlib.h>
#include <string.h>

static const char *type_name(crfp_param_type t)
{
    switch (t) {
    case CRFP_PARAM_STRING: return "string";
    case CRFP_PARAM_INT: return "int";
    case CRFP_PARAM_FLOAT: return "float";
    case CRFP_PARAM_BOOL: return "bool";
    case CRFP_PARAM_PATH: return "path";
    }
    return "?";
}

/* Descriptor strings come from arbitrary modules; never hand NULL to printf. */
static const char *str_or(const char *s, const char *dflt)
{
    return s ? s : dflt;
}

static void on_scan_error(void *ud, const char *file, const char *msg)
{
    crfp_host *host = ud;
    /* The registry's messages already start with the file name. */
    if (strncmp(msg, file, strlen(file)) == 0)
        crfp_log(host, CRFP_LOG_WARN, "skipped: %s", msg);
    else
        crfp_log(host, CRFP_LOG_WARN, "skipped %s: %s", file, msg);
}

static int by_name(const void *a, const void *b)
{
    const crfp_plugin *x = *(const crfp_plugin *const *)a;
    const crfp_plugin *y = *(const crfp_plugin *const *)b;
    return strcmp(x->desc->name, y->desc->name);
}

static size_t maxw(size_t w, const char *s)
{
    size_t n = strlen(s);
    return n > w ? n : w;
}

static int list_all(crfp_host *host, int kind)
{
    const crfp_plugin **list;
    size_t n;
    if (crfp_host_scan(host, &list, &n, on_scan_error, host) != CRFP_OK)
        return cli_fail(host);
    if (n == 0) {
        const char *const *dirs;
        size_t nd;
        crfp_host_search_path(host, &dirs, &nd);
        crfp_log(host, CRFP_LOG_WARN, "no plugins found on the search path:");
        for (size_t i = 0; i < nd; i++)
            crfp_log(host, CRFP_LOG_WARN, "  %s", dirs[i]);
        return CLI_OK;
    }
    /* Sorting a copy: the host owns the scan list. */
    const crfp_plugin **sorted = malloc(n * sizeof *sorted);
    if (!sorted) {
        crfp_error(host, CRFP_ENOMEM, "plugins: out of memory");
        return cli_fail(host);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (kind < 0 || (int)list[i]->desc->kind == kind)
            sorted[k++] = list[i];
    n = k;
    qsort(sorted, n, sizeof *sorted, by_name);
    size_t wn = strlen("NAME"), wk = strlen("KIND"), wv = strlen("VERSION"),
           wf = strlen("FILE");
    for (size_t i = 0; i < n; i++) {
        const crfp_plugin_descriptor *d = sorted[i]->desc;
        wn = maxw(wn, d->name);
        wk = maxw(wk, crfp_kind_name(d->kind));
        wv = maxw(wv, str_or(d->version, "-"));
        wf = maxw(wf, sorted[i]->file);
    }
    printf("%-*s  %-*s  %-*s  %-*s  %s\n", (int)wn, "NAME", (int)wk, "KIND", (int)wv, "VERSION",
           (int)wf, "FILE", "DESCRIPTION");
    for (size_t i = 0; i < n; i++) {
        const crfp_plugin_descriptor *d = sorted[i]->desc;
        printf("%-*s  %-*s  %-*s  %-*s  %s\n", (int)wn, d->name, (int)wk,
               crfp_kind_name(d->kind), (int)wv, str_or(d->version, "-"), (int)wf,
               sorted[i]->file, str_or(d->description, ""));
    }
    free(sorted);
    if (fflush(stdout) != 0) {
        crfp_error(host, CRFP_EIO, "<stdout>: write error");
        return cli_fail(host);
    }
    return CLI_OK;
}

static int describe(crfp_host *host, const char *name)
{
    const crfp_plugin *p;
    if (crfp_host_load(host, name, &p) != CRFP_OK) {
        if (crfp_errcode(host) != CRFP_ENOTFOUND)
            return cli_fail(host);
        fprintf(stderr, "crfpipe: error: %s%s\n", crfp_errmsg(host),
                cli_suggest_plugin(host, 0, name));
        return CLI_FAIL;
    }
    const crfp_plugin_descriptor *d = p->desc;
    printf("name:        %s\n", d->name);
    printf("kind:        %s\n", crfp_kind_name(d->kind));
    printf("version:     %s\n", str_or(d->version, "-"));
    printf("abi:         %u.%u\n", (unsigned)d->abi_major, (unsigned)d->abi_minor);
    printf("file:        %s\n", p->file);
    printf("description: %s\n", str_or(d->description, ""));
    /* whether --rho1-path can use it (CRFP_PLUGIN_TRAINER_L1) */
    if (d->kind == CRFP_KIND_TRAINER)
        printf("l1:          %s\n", d->flags & CRFP_PLUGIN_TRAINER_L1 ? "yes" : "no");
    if (d->nparams == 0) {
        printf("parameters:  none\n");
    } else {
        size_t wn = strlen("NAME"), wt = strlen("TYPE"), wd = strlen("DEFAULT");
        for (size_t i = 0; i < d->nparams; i++) {
            wn = maxw(wn, d->params[i].name);
            wt = maxw(wt, type_name(d->params[i].type));
            wd = maxw(wd, str_or(d->params[i].defval, "-"));
        }
        printf("parameters:\n");
        printf("  %-*s  %-*s  %-*s  %s\n", (int)wn, "NAME", (int)wt, "TYPE", (int)wd, "DEFAULT",
               "HELP");
        for (size_t i = 0; i < d->nparams; i++) {
            const crfp_param_spec *s = &d->params[i];
            printf("  %-*s  %-*s  %-*s  %s\n", (int)wn, s->name, (int)wt, type_name(s->type),
                   (int)wd, str_or(s->defval, "-"), str_or(s->help, ""));
        }
    }
    if (fflush(stdout) != 0) {
        crfp_error(host, CRFP_EIO, "<stdout>: write error");
        return cli_fail(host);
    }
    return CLI_OK;
}

static int show_path(crfp_host *host)
{
    const char *const *dirs;
    size_t n;
    crfp_host_search_path(host, &dirs, &n);
    for (size_t i = 0; i < n; i++)
        printf("%s\n", dirs[i]);
    return CLI_OK;
}

/* --names and --formats: one item per line, for scripts and the bash
 * completion; kind < 0 means every kind. */
static int list_names(crfp_host *host, int formats, int kind)
{
    const crfp_plugin **list;
    size_t n;
    if (crfp_host_scan(host, &list, &n, NULL, NULL) != CRFP_OK)
        return cli_fail(host);
    for (size_t i = 0; i < n; i++) {
        const crfp_plugin_descriptor *d = list[i]->desc;
        if (kind >= 0 && (int)d->kind != kind)
            continue;
        if (!formats)
            printf("%s\n", d->name);
        else if (d->formats && (d->kind == CRFP_KIND_READER || d->kind == CRFP_KIND_WRITER))
            for (const char *const *f = d->formats; *f; f++) {
                /* a format both read and written is printed once */
                int dup = 0;
                for (size_t j = 0; j < i && !dup; j++) {
                    const crfp_plugin_descriptor *e = list[j]->desc;
                    if ((kind >= 0 && (int)e->kind != kind) || !e->formats ||
                        (e->kind != CRFP_KIND_READER && e->kind != CRFP_KIND_WRITER))
                        continue;
                    for (const char *const *g = e->formats; *g && !dup; g++)
                        dup = strcmp(*f, *g) == 0;
                }
                if (!dup)
                    printf("%s\n", *f);
            }
    }
    if (fflush(stdout) != 0) {
        crfp_error(host, CRFP_EIO, "<stdout>: write error");
        return cli_fail(host);
    }
    return CLI_OK;
}

int cmd_plugins(crfp_host *host, int argc, char **argv)
{
    const char *name = NULL, *kindname = NULL;
    int path = 0, names = 0, formats = 0;
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    for (int i = 1; i < argc; i++) {
        int r;
        if (strcmp(argv[i], "--path") == 0)
            path = 1;
        else if (strcmp(argv[i], "--names") == 0)
            names = 1;
        else if (strcmp(argv[i], "--formats") == 0)
            formats = 1;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "kind", &kindname)) != 0) {
            if (r < 0)
                return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1])
            return cli_unknown_option(host, argc, argv, argv[i]);
        else if (name)
            return cli_usage(argv[0], "expects at most one plugin name");
        else
            name = argv[i];
    }
    int kind = -1;
    if (kindname && (kind = crfp_kind_parse(kindname)) < 0)
        return cli_usage(argv[0], "--kind: unknown kind '%s' (reader, writer, tokenizer, "
                         "features, trainer, tagger)", kindname);
    if (path + names + formats > 1)
        return cli_usage(argv[0], "--path, --names and --formats exclude each other");
    if ((path || names || formats) && name)
        return cli_usage(argv[0], "--path, --names and --formats take no plugin name");
    if (path)
        return show_path(host);
    if (names || formats)
        return list_names(host, formats, kind);
    if (name)
        return describe(host, name);
    return list_all(host, kind);
}
