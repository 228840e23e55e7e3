/* crfpipe model dump|info|top MODEL — a model's contents as text; crfpipe
 * model import MODEL -o OUT — another program's model as a crfpipe one;
 * crfpipe model export MODEL -o OUT — an attribute model for CRFsuite.
 *
 * dump: every non-zero weight (crfp_crf_dump); info: the same header and
 * the model's sizes (model_info.c); top: the largest weights, filtered
 * (model_top.c); import: a CRFsuite model (crfp_crf_import_crfsuite), its
 * attributes extracted by the attributes plugin as from CRFsuite data, or
 * a Wapiti model (crfp_crf_import_wapiti), its patterns run by the
 * templates plugin in Wapiti's dialect, or a CRF++ model
 * (crfp_crf_import_crfpp), its template in CRF++'s;
 * export: the reverse (crfp_crf_export_crfsuite). */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <string.h>

crfp_status cli_model_open(crfp_host *host, const char *out, const char *path, cli_output *o,
                           crfp_crf **crf)
{
    /* the output first: a bad -o fails before a big model loads */
    crfp_status st = cli_output_open_over(host, o, out, path);
    if (st != CRFP_OK)
        return st;
    if ((st = crfp_crf_load(host, path, crf)) != CRFP_OK)
        cli_output_abort(o);
    return st;
}

int cli_model_arg(crfp_host *host, int argc, char **argv, int *i, const char **out,
                  const char **path)
{
    const char *v;
    int k;
    if (strcmp(argv[*i], "-o") == 0 && *i + 1 < argc) {
        *out = argv[++*i];
    } else if ((k = cli_opt(argv[0], argc, argv, i, "output", &v)) != 0) {
        if (k < 0)
            return CLI_USAGE;
        *out = v;
    } else if (argv[*i][0] == '-' && argv[*i][1]) {
        return cli_unknown_option(host, argc, argv, argv[*i]);
    } else if (*path) {
        return cli_usage(argv[0], "unexpected argument '%s'", argv[*i]);
    } else {
        *path = argv[*i];
    }
    return -1;
}

static int model_dump(crfp_host *host, int argc, char **argv)
{
    if (argc != 3 || argv[2][0] == '-')
        return argc == 3 ? cli_unknown_option(host, argc, argv, argv[2])
                         : cli_usage(argv[0], "usage: crfpipe model dump MODEL");
    crfp_crf *crf;
    if (crfp_crf_load(host, argv[2], &crf) != CRFP_OK)
        return cli_fail(host);
    crfp_status st = crfp_crf_dump(host, crf, stdout);
    crfp_crf_free(crf);
    if (st == CRFP_OK && fflush(stdout) != 0)
        st = crfp_error(host, CRFP_EIO, "<stdout>: write error");
    return st == CRFP_OK ? CLI_OK : cli_fail(host);
}

/* What the crfsuite reader gives (attribute cells in "attrs", the gold in
 * "label") and the attributes plugin reads, as `crfpipe train --features
 * attributes` records it. */
static const char import_features[] = "attributes";
static const char import_config[] = "columns=attrs\nbigram=bias\n";

/* The arguments of import and export, IN -o OUT: -1 with both set, else
 * the exit status (after a usage message naming `usage`, or the failure of
 * an OUT that cannot be written). */
static int conversion_args(crfp_host *host, int argc, char **argv, const char *usage,
                           const char **path, const char **out)
{
    *path = *out = NULL;
    for (int i = 2; i < argc; i++) {
        int r = cli_model_arg(host, argc, argv, &i, out, path);
        if (r >= 0)
            return r;
    }
    if (!*path || !*out)
        return cli_usage(argv[0], "usage: %s", usage);
    if (cli_same_file(*out, *path))
        return cli_usage(argv[0], "-o %s is the input model itself; writing it would destroy it",
                         *out);
    if (crfp_crf_check_save_path(host, *out) != CRFP_OK)
        return cli_fail(host);
    return -1;
}

/* A Wapiti model's patterns, read by the templates plugin in its Wapiti
 * dialect, which spells the observations as Wapiti does.  The comment puts
 * pattern k on line k+2 of the template, its line in the model file, so
 * that a message about a pattern names the right line. */
static const char template_features[] = "templates";
/* A Wapiti model trained without patterns, on observations given in the
 * data: the attributes plugin reads them from Wapiti's data (format
 * wapiti) and spells them as Wapiti does, with --me as --me does. */
static const crfp_wapiti_features wapiti_features = {
    .patterns = template_features,
    .patterns_head = "#!columns\n# the patterns of a Wapiti model\n#!wapiti\n",
    .patterns_me_head = "#!columns\n# the patterns of a Wapiti model\n#!wapiti-me\n",
    .raw = "attributes",
    .raw_config = "columns=attrs\nbigram=wapiti\n",
    .me_config = "columns=attrs\nbigram=wapiti-me\n",
};

/* A CRF++ model's template lines, in the templates plugin's CRF++ dialect
 * (observations spelled as CRF++ spells them). */
static const char crfpp_head[] = "#!columns\n# the template of a CRF++ model\n#!crf++\n";

/* Which program wrote the model at path: 's' CRFsuite, 'w' Wapiti, '+'
 * CRF++, 'c' crfpipe, '?' none of them; a file that cannot be read (or is
 * empty) is left to the CRFsuite importer, which says why ('s'). */
static int model_kind(const char *path)
{
    unsigned char head[12];
    size_t got = crfp_crf_file_head(path, head, sizeof head);
    return got == 0 || crfp_crf_is_crfsuite(head, got) ? 's'
         : crfp_crf_is_wapiti(head, got)                ? 'w'
         : crfp_crf_is_crfpp(head, got)                 ? '+'
         : crfp_crf_is_crfpipe(head, got)                ? 'c' : '?';
}

/* The model's features plugin reads its configuration (the templates
 * plugin compiles the imported patterns), so that a pattern it cannot run
 * fails the import, not the first tagging.  Errors: the plugin's, with its
 * message. */
static crfp_status check_features(crfp_host *host, const crfp_crf *crf, const char *path)
{
    const crfp_plugin *fp;
    crfp_status st = crfp_host_load_kind(host, crfp_crf_features_plugin(crf), CRFP_KIND_FEATURES,
                                         &fp);
    if (st != CRFP_OK)
        return st;
    const crfp_features_vtable *fv = fp->desc->vtable;
    size_t len;
    const char *cfg = crfp_crf_features_config(crf, &len);
    void *ex = NULL;
    if ((st = fv->load(host, cfg, len, path, &ex)) == CRFP_OK)
        fv->free(ex);
    return st;
}

static int model_import(crfp_host *host, int argc, char **argv)
{
    const char *out, *path;
    int r = conversion_args(host, argc, argv,
                            "crfpipe model import CRFSUITE_WAPITI_OR_CRFPP_MODEL -o MODEL", &path,
                            &out);
    if (r >= 0)
        return r;
    crfp_crf *crf;
    int kind = model_kind(path), tpl = kind != 's';
    if (kind == 'c' || kind == '?') {
        crfp_error(host, CRFP_EFORMAT, kind == 'c'
                   ? "%s: already a crfpipe model: nothing to import (import reads "
                     "CRFsuite's, Wapiti's and CRF++'s models)"
                   : "%s: not a CRFsuite, Wapiti or CRF++ model (their files begin with "
                     "'lCRF', '#mdl#', 'version: ' or CRF++'s binary version 100)", path);
        return cli_fail(host);
    }
    if (kind == 'w' ? crfp_crf_import_wapiti(host, path, &wapiti_features, &crf)
        : kind == '+' ? crfp_crf_import_crfpp(host, path, template_features, crfpp_head, &crf)
                      : crfp_crf_import_crfsuite(host, path, import_features, import_config,
                                                 sizeof import_config - 1, &crf))
        return cli_fail(host);
    crfp_status st = tpl ? check_features(host, crf, path) : CRFP_OK;
    if (st != CRFP_OK) {
        crfp_crf_free(crf);
        return cli_fail(host);
    }
    /* the attribute models read the columns of their readers (CRFsuite's,
     * Wapiti's data with its observations) */
    int attrs = strcmp(crfp_crf_features_plugin(crf), template_features) != 0;
    if ((st = crfp_crf_set_meta(crf, "label", "label")) != CRFP_OK ||
        (attrs && (st = crfp_crf_set_meta(crf, "columns", "attrs,label")) != CRFP_OK) ||
        (st = crfp_crf_set_meta(crf, "trainer", kind == 'w' ? "wapiti"
                                                : kind == '+' ? "crf++" : "crfsuite")) != CRFP_OK ||
        (st = crfp_crf_set_meta(crf, "imported-from", path)) != CRFP_OK)
        st = crfp_error(host, st, "out of memory");
    if (st == CRFP_OK)
        st = crfp_crf_save(host, crf, out);
    if (st == CRFP_OK)
        crfp_log(host, CRFP_LOG_INFO, "%s: %u labels, %u observations, %zu non-zero weights "
                 "imported from %s", out, crfp_crf_nlabels(crf), crfp_crf_nobs(crf),
                 crfp_crf_active(crf), path);
    crfp_crf_free(crf);
    return st == CRFP_OK ? CLI_OK : cli_fail(host);
}

/* export MODEL -o OUT: an attribute model (the features plugin import
 * records, CRFsuite's constant label bigram) as a CRFsuite model file. */
static int model_export(crfp_host *host, int argc, char **argv)
{
    const char *out, *path;
    int r = conversion_args(host, argc, argv, "crfpipe model export MODEL -o CRFSUITE_MODEL",
                            &path, &out);
    if (r >= 0)
        return r;
    crfp_crf *crf;
    if (crfp_crf_load(host, path, &crf) != CRFP_OK)
        return cli_fail(host);
    /* CRFsuite's model knows attributes and a constant label bigram: the
     * attributes plugin's, whose bigram observation is "B" */
    crfp_status st = crfp_crf_export_crfsuite(host, crf, import_features, "B", out);
    if (st == CRFP_EINVAL)
        crfp_error_prefix(host, "%s", path);
    if (st == CRFP_OK)
        crfp_log(host, CRFP_LOG_INFO, "%s: %u labels, %zu non-zero weights written for CRFsuite",
                 out, crfp_crf_nlabels(crf), crfp_crf_active(crf));
    crfp_crf_free(crf);
    return st == CRFP_OK ? CLI_OK : cli_fail(host);
}

int cmd_model(crfp_host *host, int argc, char **argv)
{
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    if (argc >= 2 && strcmp(argv[1], "dump") == 0)
        return model_dump(host, argc, argv);
    if (argc >= 2 && strcmp(argv[1], "info") == 0)
        return cli_model_info(host, argc, argv);
    if (argc >= 2 && strcmp(argv[1], "top") == 0)
        return cli_model_top(host, argc, argv);
    if (argc >= 2 && strcmp(argv[1], "import") == 0)
        return model_import(host, argc, argv);
    if (argc >= 2 && strcmp(argv[1], "export") == 0)
        return model_export(host, argc, argv);
    if (argc < 2)
        return cli_usage(argv[0],
                         "usage: crfpipe model dump|info|top|import|export [OPTIONS] MODEL");
    return cli_usage(argv[0], "unknown action '%s': dump, info, top, import or export", argv[1]);
}
