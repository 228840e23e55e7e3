/* crfpipe convert — stream documents from one format's reader plugin to
 * another format's writer plugin. */
#include "config.h"
#include "cli.h"
#include "help.h"
#include "progress.h"

#include <stdlib.h>
#include <string.h>

/* name=value settings for one plugin, from the command line. */
typedef struct settings {
    const char **names, **values;
    size_t n;
} settings;

static int settings_add(settings *s, const char *name, const char *value)
{
    const char **nn = realloc(s->names, (s->n + 1) * sizeof *nn);
    if (!nn)
        return -1;
    s->names = nn;
    const char **vv = realloc(s->values, (s->n + 1) * sizeof *vv);
    if (!vv)
        return -1;
    s->values = vv;
    s->names[s->n] = name;
    s->values[s->n++] = value;
    return 0;
}

/* Split "name=value" in place (argv strings are writable). */
static int settings_add_arg(settings *s, char *arg)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return 1;
    *eq = '\0';
    return settings_add(s, arg, eq + 1);
}

static void settings_free(settings *s)
{
    free(s->names);
    free(s->values);
}

static crfp_status make_params(crfp_host *host, const crfp_plugin *pl, const settings *s,
                               crfp_params **out)
{
    crfp_params *p = crfp_params_new(pl->desc->params, pl->desc->nparams);
    if (!p)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    char where[128];
    snprintf(where, sizeof where, "convert: plugin '%s'", pl->desc->name);
    for (size_t i = 0; i < s->n; i++) {
        crfp_status st = crfp_params_set(host, p, where, s->names[i], s->values[i], NULL);
        if (st != CRFP_OK) {
            crfp_params_free(p);
            return st;
        }
    }
    *out = p;
    return CRFP_OK;
}

/* Load both plugins, stream every document, and leave the output complete
 * or absent. */
static int run(crfp_host *host, const char *rname, const char *wname, const settings *rs,
               const settings *ws, const char *inpath, const char *outpath)
{
    const crfp_plugin *rp, *wp;
    if (crfp_host_load_kind(host, rname, CRFP_KIND_READER, &rp) != CRFP_OK ||
        crfp_host_load_kind(host, wname, CRFP_KIND_WRITER, &wp) != CRFP_OK)
        return cli_fail(host);
    const crfp_reader_vtable *rv = rp->desc->vtable;
    const crfp_writer_vtable *wv = wp->desc->vtable;
    crfp_params *rpar = NULL, *wpar = NULL;
    if (make_params(host, rp, rs, &rpar) != CRFP_OK || make_params(host, wp, ws, &wpar) != CRFP_OK) {
        crfp_params_free(rpar);
        return cli_fail(host);
    }
    crfp_stream in = {0};
    cli_output out;
    void *rstate = NULL, *wstate = NULL;
    int out_open = 0;
    crfp_status st = cli_input_open(host, &in, inpath);
    if (st == CRFP_OK && (st = cli_output_open_over(host, &out, outpath, inpath)) == CRFP_OK)
        out_open = 1;
    cli_progress *bar = st == CRFP_OK ? cli_progress_start(host, in.fp, "converting") : NULL;
    if (st == CRFP_OK)
        st = rv->open(host, rpar, &in, &rstate);
    if (st == CRFP_OK && (st = wv->open(host, wpar, &out.stream, &wstate)) != CRFP_OK)
        wstate = NULL;
    while (st == CRFP_OK) {
        crfp_doc *doc = NULL;
        if ((st = rv->next(rstate, &doc)) != CRFP_OK || !doc)
            break;
        st = wv->write(wstate, doc);
        if (st == CRFP_OK)
            cli_progress_doc(bar, doc);
        crfp_doc_free(doc);
        if (st == CRFP_OK && crfp_interrupted(host))
            st = crfp_error(host, CRFP_EINTR, "convert: interrupted");
    }
    if (st == CRFP_OK)
        st = wv->finish(wstate);
    if (wstate)
        wv->close(wstate);
    if (rstate)
        rv->close(rstate);
    cli_progress_end(bar);
    if (st == CRFP_OK && out_open) {
        out_open = 0;
        st = cli_output_commit(host, &out);
    }
    if (out_open)
        cli_output_abort(&out);
    cli_input_close(&in);
    crfp_params_free(rpar);
    crfp_params_free(wpar);
    /* a plugin that failed without a word still gets its cause said,
     * rather than the "ok" of an empty record */
    if (st != CRFP_OK && crfp_errcode(host) == CRFP_OK)
        crfp_error_wrap(host, st, "%s", inpath ? inpath : "<stdin>");
    return st == CRFP_OK ? CLI_OK : cli_fail(host);
}

int cmd_convert(crfp_host *host, int argc, char **argv)
{
    const char *cmd = argv[0], *from = NULL, *to = NULL, *columns = NULL, *outopt = NULL;
    const char *pos[2] = {NULL, NULL};
    size_t npos = 0;
    settings rs = {0}, ws = {0};
    int rc = CLI_USAGE;
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if ((r = cli_opt(cmd, argc, argv, &i, "from", &from)) ||
            (r = cli_opt(cmd, argc, argv, &i, "to", &to)) ||
            (r = cli_opt(cmd, argc, argv, &i, "columns", &columns)) ||
            (r = cli_opt(cmd, argc, argv, &i, "output", &outopt))) {
            if (r < 0)
                goto out;
            continue;
        }
        settings *s = NULL;
        if ((r = cli_opt(cmd, argc, argv, &i, "reader-param", &v)))
            s = &rs;
        else if ((r = cli_opt(cmd, argc, argv, &i, "writer-param", &v)))
            s = &ws;
        if (s) {
            if (r < 0)
                goto out;
            int e = settings_add_arg(s, (char *)v);
            if (e > 0) {
                rc = cli_usage(cmd, "expected NAME=VALUE, got '%s'", v);
                goto out;
            }
            if (e < 0) {
                fprintf(stderr, "crfpipe: error: out of memory\n");
                rc = CLI_FAIL;
                goto out;
            }
            continue;
        }
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc) {
                rc = cli_usage(cmd, "option -o needs a value");
                goto out;
            }
            outopt = argv[++i];
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            rc = cli_unknown_option(host, argc, argv, argv[i]);
            goto out;
        }
        if (npos == 2) {
            rc = cli_usage(cmd, "too many arguments: expected [IN [OUT]]");
            goto out;
        }
        pos[npos++] = argv[i];
    }
    if (outopt && npos == 2) {
        rc = cli_usage(cmd, "give the output either as OUT or with -o, not both");
        goto out;
    }
    if (!to) {
        rc = cli_usage(cmd, "--to FORMAT is required (conll, conllu or xml)");
        goto out;
    }
    /* The plugins are found by the formats they declare. */
    const char *rname, *wname;
    if (cli_reader_for(host, from, pos[0], &rname) != CRFP_OK ||
        cli_writer_for(host, to, NULL, &wname) != CRFP_OK) {
        rc = cli_lookup_fail(host, cmd);
        goto out;
    }
    const crfp_plugin *rpl = NULL, *wpl = NULL;
    if (crfp_host_load(host, rname, &rpl) != CRFP_OK ||
        crfp_host_load(host, wname, &wpl) != CRFP_OK) {
        rc = cli_fail(host);
        goto out;
    }
    from = crfp_plugin_format(rpl);
    to = crfp_plugin_format(wpl);
    /* --columns names the input's columns when reading CoNLL, otherwise
     * it chooses the columns written. */
    if (columns) {
        int ok = strcmp(from, "conll") == 0 ? settings_add(&rs, "columns", columns)
               : strcmp(to, "conll") == 0   ? settings_add(&ws, "columns", columns)
                                            : 1;
        if (ok > 0) {
            rc = cli_usage(cmd, "--columns applies only to --from conll or --to conll");
            goto out;
        }
        if (ok < 0) {
            fprintf(stderr, "crfpipe: error: out of memory\n");
            rc = CLI_FAIL;
            goto out;
        }
    }
    rc = run(host, rname, wname, &rs, &ws, pos[0], outopt ? outopt : pos[1]);
out:
    settings_free(&rs);
    settings_free(&ws);
    return rc;
}
