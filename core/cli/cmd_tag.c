/* crfpipe tag — builds reader → viterbi → writer and runs it.
 *
 * Options are routed to the stage that declares them: reader (--columns),
 * writer (--map, --prediction-to, --keep-gold, --unrepresentable,
 * --separator, --strict, and any --writer-param NAME=VALUE), and everything
 * else to the tagger, whose declaration checks it; an option the tagger
 * and the writer both declare (scores, set) goes to both.
 *
 * Where the prediction goes depends on the output format: the column
 * writer appends a column (the tagger extends the document's column list),
 * the XML writer adds a Token feature, and the CoNLL-U writer, which has no
 * spare column, is told which label the model predicts (the model's
 * "label" metadata) so that it can put the prediction in that column and
 * keep the gold in MISC (see plugins/conllu_writer).
 */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

crfp_status cli_model_label(crfp_host *host, const char *model, char **label)
{
    crfp_crf *crf = NULL;
    *label = NULL;
    /* A full load, for the one metadata string: the model format has no
     * header-only reader, and a second load (tens of milliseconds even for
     * large models) is cheaper than a format parser kept in two places. */
    crfp_status st = crfp_crf_load(host, model, &crf);
    if (st != CRFP_OK)
        return st;
    const char *l = crfp_crf_meta(crf, "label");
    if (l && *l && !(*label = strdup(l)))
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
    crfp_crf_free(crf);
    return st;
}

crfp_status cli_tokenizer_columns(crfp_host *host, const char *model, char **cols)
{
    crfp_crf *crf = NULL;
    *cols = NULL;
    crfp_status st = crfp_crf_load(host, model, &crf);
    if (st != CRFP_OK)
        return st;
    const char *c = crfp_crf_meta(crf, "columns"), *label = crfp_crf_meta(crf, "label");
    size_t first = c ? strcspn(c, ",") : 0, len = c ? strlen(c) : 0;
    /* the gold column, last, is no input: left out (one in the middle
     * stays, or the columns after it would shift) */
    const char *last = c ? strrchr(c, ',') : NULL;
    if (last && label && strcmp(last + 1, label) == 0)
        len = (size_t)(last - c);
    if (first && !(first == 6 && strncmp(c, "string", 6) == 0)) {
        /* NAME=string,REST */
        size_t cap = len + 8;
        if ((*cols = malloc(cap)))
            snprintf(*cols, cap, "%.*s=string%.*s", (int)first, c, (int)(len - first), c + first);
        else
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    crfp_crf_free(crf);
    return st;
}

/* cmd_tag with `inputs` (room for argc entries) to collect the input files
 * in: a corpus of files is tagged in one run (cli_run_many). */
/* Options of crf_test, wapiti label and crfsuite tag that crfpipe spells
 * otherwise (crfpipe tag -m is theirs already). */
static const cli_foreign other_tools[] = {
    {"-v0", "crf_test -v0 is what crfpipe tag --to crfpp prints by default"},
    {"-v1", "crf_test -v1 is --posteriors --to crfpp --writer-param verbose=1"},
    {"-v2", "crf_test -v2 is --posteriors --marginals N --marginals-order label --to crfpp "
            "--writer-param verbose=2 (N: the model's label count)"},
    {"-n", "crf_test -n N and wapiti label -n N are --nbest N"},
    {"-c", "crf_test -c F is --weight-scale F; wapiti label -c (score the input's labels) is "
           "crfpipe eval --model MODEL FILE"},
    {"-s", "wapiti label -s is --scores true --token-scores true (--to wapiti)"},
    {"-p", "wapiti label -p is --decode posterior; crfsuite tag -p is --scores true "
           "--posteriors --to crfsuite --writer-param probability=true"},
    {"-l", "wapiti label -l is --to wapiti --writer-param labels-only=true; crfsuite tag -l "
           "is --marginals N --marginals-order label --to crfsuite --writer-param "
           "marginal-all=true"},
    {"-i", "crfsuite tag -i is --posteriors --to crfsuite --writer-param marginal=true"},
    {"-r", "crfsuite tag -r (the gold label beside the prediction) is what --to crfsuite "
           "prints by default (--writer-param reference=false: without it)"},
    {"-t", "crfsuite tag -t (score the input's labels) is crfpipe eval --model MODEL FILE"},
};

static int tag(crfp_host *host, int argc, char **argv, const char **inputs)
{
    const char *format = NULL, *to = NULL, *columns = NULL, *output = NULL, *outdir = NULL;
    const char *tagger = "viterbi", *v, *model = NULL, *tokenizer = NULL;
    const char *names[32], *values[32], *wn[32], *wv[32], *rn[32], *rv[32], *kn[32], *kv[32];
    size_t n = 0, nw = 0, nr = 0, nin = 0, nk = 0;
    for (int i = 1; i < argc; i++) {
        int r = 0;
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                return cli_usage(argv[0], "-o needs a file");
            output = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "-m") == 0) {
            /* Wapiti's and CRFsuite's short option for the model */
            if (i + 1 >= argc)
                return cli_usage(argv[0], "-m needs a model file");
            if (n == 32)
                return cli_usage(argv[0], "too many options");
            names[n] = "model";
            values[n++] = model = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--posteriors") == 0 || strcmp(argv[i], "--force") == 0) {
            /* flags: the tagger's boolean parameters of those names */
            if (n == 32)
                return cli_usage(argv[0], "too many options");
            names[n] = argv[i] + 2;
            values[n++] = "true";
            continue;
        }
        int is_writer = 0;
        for (size_t k = 0; k < cli_tag_writer_nopts; k++) {
            size_t len = strlen(cli_tag_writer_opts[k]);
            if (strncmp(argv[i], "--", 2) == 0 &&
                strncmp(argv[i] + 2, cli_tag_writer_opts[k], len) == 0 &&
                (argv[i][2 + len] == '\0' || argv[i][2 + len] == '='))
                is_writer = 1;
        }
        if ((r = cli_opt(argv[0], argc, argv, &i, "output-dir", &v)) != 0)
            outdir = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "format", &v)) != 0)
            format = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "to", &v)) != 0)
            to = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "columns", &v)) != 0)
            columns = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "output", &v)) != 0)
            output = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "tagger", &v)) != 0)
            tagger = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "tokenizer", &v)) != 0)
            tokenizer = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "tokenizer-param", &v)) != 0) {
            if (r > 0)
                r = cli_param_pair(argv[0], "tokenizer-param", (char *)v, kn, kv, &nk, 32);
        }
        else if ((r = cli_opt(argv[0], argc, argv, &i, "writer-param", &v)) != 0) {
            if (r > 0)
                r = cli_param_pair(argv[0], "writer-param", (char *)v, wn, wv, &nw, 32);
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "reader-param", &v)) != 0) {
            if (r > 0)   /* one slot stays for --columns */
                r = cli_param_pair(argv[0], "reader-param", (char *)v, rn, rv, &nr, 31);
        } else if (is_writer)
            r = cli_stage_opt(argv[0], argc, argv, &i, wn, wv, &nw, 32);
        else if (strncmp(argv[i], "--", 2) == 0 && argv[i][2]) {
            /* --model, --threads, --nbest, ... go to the tagger, which
             * checks them against its declaration. */
            r = cli_stage_opt(argv[0], argc, argv, &i, names, values, &n, 32);
            if (r > 0 && strcmp(names[n - 1], "model") == 0)
                model = values[n - 1];
            /* The pipeline tags batches in parallel on the host's team:
             * --threads sizes it too, so that 1 means one thread. */
            if (r > 0 && strcmp(names[n - 1], "threads") == 0)
                crfp_host_set_threads(host, atoi(values[n - 1]));
        } else if (argv[i][0] == '-' && argv[i][1]) {
            /* not a file to tag ("-" alone is stdin) */
            const char *h = cli_foreign_hint(other_tools, sizeof other_tools /
                                             sizeof *other_tools, argv[i]);
            if (h)
                return cli_usage(argv[0], "unknown option '%s': %s", argv[i], h);
            return cli_unknown_option(host, argc, argv, argv[i]);
        } else {
            inputs[nin++] = argv[i];
            r = 1;
        }
        if (r < 0)
            return CLI_USAGE;
    }
    /* Tagger options are checked against its declaration here, so that a
     * typo gets the nearest valid option. */
    const crfp_plugin *tpl = NULL;
    if (crfp_host_load_kind(host, tagger, CRFP_KIND_TAGGER, &tpl) != CRFP_OK) {
        crfp_status st = crfp_errcode(host);
        fprintf(stderr, "crfpipe: error: --tagger %s: %s%s\n", tagger, crfp_errmsg(host),
                st == CRFP_ENOTFOUND ? cli_suggest_plugin(host, CRFP_KIND_TAGGER, tagger) : "");
        return CLI_FAIL;
    }
    for (size_t k = 0; k < n; k++)
        if (!crfp_pipeline_stage_accepts(host, tagger, names[k])) {
            char opt[160];
            snprintf(opt, sizeof opt, "--%s", names[k]);
            return cli_unknown_option(host, argc, argv, opt);
        }
    if (output && outdir)
        return cli_usage(argv[0], "-o and --output-dir exclude each other: one output for all "
                                  "inputs, or one per input");
    if (nk && !tokenizer)
        return cli_usage(argv[0], "--tokenizer-param needs --tokenizer");
    const crfp_plugin *kpl = NULL;
    if (tokenizer && crfp_host_load_kind(host, tokenizer, CRFP_KIND_TOKENIZER, &kpl) != CRFP_OK) {
        crfp_status st = crfp_errcode(host);
        fprintf(stderr, "crfpipe: error: --tokenizer %s: %s%s\n", tokenizer, crfp_errmsg(host),
                st == CRFP_ENOTFOUND ? cli_suggest_plugin(host, CRFP_KIND_TOKENIZER, tokenizer)
                                     : "");
        return CLI_FAIL;
    }
    const char *reader, *writer, *input = nin ? inputs[0] : NULL;
    if (cli_reader_for(host, format, input, &reader) != CRFP_OK)
        return cli_lookup_fail(host, argv[0]);
    /* one reader reads every input: without --format they must agree */
    for (size_t k = 1; !format && k < nin; k++) {
        const char *rk;
        if (cli_reader_for(host, NULL, inputs[k], &rk) != CRFP_OK)
            return cli_lookup_fail(host, argv[0]);
        if (strcmp(rk, reader) != 0)
            return cli_usage(argv[0], "%s is read by %s and %s by %s: tag them separately, or "
                                      "give --format", input, reader, inputs[k], rk);
    }
    /* Without --to the output has the input's format, as the reader was
     * chosen (from the name, else from the content). */
    const crfp_plugin *rpl = NULL;
    if (crfp_host_load(host, reader, &rpl) != CRFP_OK)
        return cli_fail(host);
    const char *same = crfp_plugin_format(rpl);
    if (cli_writer_for(host, to ? to : format ? format : same, NULL, &writer) != CRFP_OK)
        return cli_lookup_fail(host, argv[0]);
    /* A writer that declares a `label` parameter (CoNLL-U, CRFsuite) is
     * told which token feature the model predicts, where it puts or keeps
     * the gold; an explicit --writer-param label=... wins. */
    const crfp_plugin *wpl = NULL;
    if (crfp_host_load(host, writer, &wpl) != CRFP_OK)
        return cli_fail(host);
    char *label = NULL;
    int has_label = 0;
    for (size_t k = 0; k < nw; k++)
        has_label |= strcmp(wn[k], "label") == 0;
    int takes_label = 0;
    for (size_t k = 0; wpl && k < wpl->desc->nparams; k++)
        takes_label |= strcmp(wpl->desc->params[k].name, "label") == 0;
    if (takes_label && model && !has_label && nw < 32) {
        if (cli_model_label(host, model, &label) != CRFP_OK)
            return cli_fail(host);
        if (label) {
            wn[nw] = "label";
            wv[nw++] = label;
        }
    }
    /* A tagger option the writer declares too means the same to both
     * (--scores true: Wapiti's output prints the scores the tagger adds;
     * --set: the set both work on); --writer-param NAME=... wins. */
    for (size_t k = 0; k < n && nw < 32; k++) {
        int given = 0, takes = 0;
        for (size_t m = 0; m < nw; m++)
            given |= strcmp(wn[m], names[k]) == 0;
        for (size_t m = 0; wpl && m < wpl->desc->nparams; m++)
            takes |= strcmp(wpl->desc->params[m].name, names[k]) == 0;
        if (takes && !given) {
            wn[nw] = names[k];
            wv[nw++] = values[k];
        }
    }
    /* A tokenizer's tokens carry their text as the feature `string`: the
     * model's first column reads it, unless --input-columns says otherwise
     * (the other columns keep their names, e.g. a POS feature). */
    char *incols = NULL;
    int has_incols = 0;
    for (size_t k = 0; k < n; k++)
        has_incols |= strcmp(names[k], "input-columns") == 0;
    if (tokenizer && model && !has_incols && n < 32) {
        crfp_status st = cli_tokenizer_columns(host, model, &incols);
        if (st != CRFP_OK) {
            free(label);
            return cli_fail(host);
        }
        if (incols) {
            names[n] = "input-columns";
            values[n++] = incols;
        }
    }
    crfp_pipeline *p = crfp_pipeline_new(host);
    if (!p) {
        free(incols);
        free(label);
        fprintf(stderr, "crfpipe: error: out of memory\n");
        return CLI_FAIL;
    }
    if (columns) {
        rn[nr] = "columns";
        rv[nr++] = columns;
    }
    int rc;
    if (crfp_pipeline_add(p, reader, "input", rn, rv, nr, NULL) == CRFP_OK &&
        (!tokenizer ||
         crfp_pipeline_add(p, tokenizer, "--tokenizer", kn, kv, nk, NULL) == CRFP_OK) &&
        crfp_pipeline_add(p, tagger, "--tagger", names, values, n, NULL) == CRFP_OK &&
        crfp_pipeline_add(p, writer, "output", wn, wv, nw, NULL) == CRFP_OK)
        rc = nin <= 1 && !outdir ? cli_run_pipeline(host, p, input, output)
                                 : cli_run_many(host, p, argv[0], nin ? inputs : (const char *[]){"-"},
                                                nin ? nin : 1, output, outdir);
    else
        rc = cli_fail(host);
    crfp_pipeline_free(p);
    free(label);
    free(incols);
    return rc;
}

int cmd_tag(crfp_host *host, int argc, char **argv)
{
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    if (!inputs) {
        fprintf(stderr, "crfpipe: error: out of memory\n");
        return CLI_FAIL;
    }
    int rc = tag(host, argc, argv, inputs);
    free(inputs);
    return rc;
}
