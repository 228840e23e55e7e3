/* crfpipe eval — reader → (viterbi) → evaluate; the report goes to stdout.
 *
 * With --model the file is tagged first and the gold label is the one the
 * model was trained on (its "label" metadata), so that `eval --model M F`
 * scores exactly what `tag --model M F` writes.  Without it the evaluate
 * plugin finds the prediction and the gold in what crfpipe tag wrote (MISC
 * GoldX= / PredictedX= in CoNLL-U, the recorded tagging run in XML, the last
 * two columns otherwise) or says there is no prediction to score.
 *
 * With --spans TYPES the annotation_diff writer (format "diff") compares
 * two annotation sets by their offsets instead, as GATE's AnnotationDiff:
 * no token and no tagging run is involved. */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* With --model --spans, the annotation type of the tagger's spans: compared
 * by their label with the gold's types, and never written anywhere. */
#define SPAN_TYPE "crfpipe.EvalSpan"

/* A tokenizer before the tagger (eval --model --spans --tokenizer). */
typedef struct tokstage {
    const char *name;   /* NULL: none */
    const char *n[32], *v[32];
    size_t k;
} tokstage;

/* eval --spans: reader -> (tokenizer) -> (viterbi, its spans the response)
 * -> annotation diff.  rn/rv have room for one more (columns); dn/dv for
 * three more.  tn/tv (NULL: no tagging) are the tagger's nt parameters. */
static int eval_spans(crfp_host *host, const char *cmd, const char *format, const char *columns,
                      const char *input, const char *output, const char *spans, const char **rn,
                      const char **rv, size_t nr, const char **dn, const char **dv, size_t nd,
                      const char **tn, const char **tv, size_t nt, const tokstage *tk)
{
    const char *reader;
    const crfp_plugin *diff = NULL;
    if (cli_reader_for(host, format, input, &reader) != CRFP_OK ||
        crfp_host_find_format(host, CRFP_KIND_WRITER, "diff", &diff) != CRFP_OK)
        return cli_lookup_fail(host, cmd);
    if (columns) {
        rn[nr] = "columns";
        rv[nr++] = columns;
    }
    if (tn) {
        /* the gold's annotation types against the tagger's spans by label */
        dn[nd] = "key-types", dv[nd++] = spans;
        dn[nd] = "response-types", dv[nd++] = SPAN_TYPE;
        dn[nd] = "response-feature", dv[nd++] = "label";
    } else {
        dn[nd] = "types", dv[nd++] = spans;
    }
    crfp_pipeline *p = crfp_pipeline_new(host);
    if (!p) {
        fprintf(stderr, "crfpipe: error: out of memory\n");
        return CLI_FAIL;
    }
    int rc;
    if (crfp_pipeline_add(p, reader, "input", rn, rv, nr, NULL) == CRFP_OK &&
        (!tk->name ||
         crfp_pipeline_add(p, tk->name, "--tokenizer", tk->n, tk->v, tk->k, NULL) == CRFP_OK) &&
        (!tn || crfp_pipeline_add(p, "viterbi", "--model", tn, tv, nt, NULL) == CRFP_OK) &&
        crfp_pipeline_add(p, diff->desc->name, "eval", dn, dv, nd, NULL) == CRFP_OK)
        rc = cli_run_pipeline(host, p, input, output);
    else
        rc = cli_fail(host);
    crfp_pipeline_free(p);
    return rc;
}

int cmd_eval(crfp_host *host, int argc, char **argv)
{
    const char *format = NULL, *columns = NULL, *input = NULL, *model = NULL, *threads = NULL;
    const char *decode = NULL, *gold = NULL, *guess = NULL, *output = NULL, *plot = NULL, *v;
    const char *rn[32], *rv[32], *spans = NULL, *dn[16], *dv[16];
    size_t nr = 0, nd = 0;
    tokstage tk = {0};
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    for (int i = 1; i < argc; i++) {
        int r = 0;
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            output = argv[++i];
            continue;
        }
        if ((r = cli_opt(argv[0], argc, argv, &i, "format", &v)) != 0)
            format = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "columns", &v)) != 0)
            columns = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "model", &v)) != 0)
            model = v;
        else if (strcmp(argv[i], "-m") == 0) {
            /* Wapiti's and CRFsuite's short option for the model */
            if (i + 1 >= argc)
                return cli_usage(argv[0], "-m needs a model file");
            model = argv[++i];
            r = 1;
        }
        else if ((r = cli_opt(argv[0], argc, argv, &i, "threads", &v)) != 0)
            threads = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "decode", &v)) != 0)
            decode = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "label", &v)) != 0)
            gold = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "guess", &v)) != 0)
            guess = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "report", &v)) != 0)
            plot = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "reader-param", &v)) > 0)
            r = cli_param_pair(argv[0], "reader-param", (char *)v, rn, rv, &nr, 31);
        else if ((r = cli_opt(argv[0], argc, argv, &i, "spans", &v)) != 0)
            spans = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "diff-param", &v)) > 0)
            r = cli_param_pair(argv[0], "diff-param", (char *)v, dn, dv, &nd, 13);
        else if ((r = cli_opt(argv[0], argc, argv, &i, "tokenizer", &v)) > 0)
            tk.name = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "tokenizer-param", &v)) > 0)
            r = cli_param_pair(argv[0], "tokenizer-param", (char *)v, tk.n, tk.v, &tk.k, 32);
        else if (r < 0)
            return CLI_USAGE;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_unknown_option(host, argc, argv, argv[i]);
        else if (!input) {
            input = argv[i];
            r = 1;
        } else
            return cli_usage(argv[0], "unexpected argument '%s'", argv[i]);
        if (r < 0)
            return CLI_USAGE;
    }
    if (!input)
        return cli_usage(argv[0], "no file to evaluate");
    if (decode && !model)
        return cli_usage(argv[0], "--decode needs --model (it chooses how the model tags)");
    if (nd && !spans)
        return cli_usage(argv[0], "--diff-param needs --spans");
    if (tk.k && !tk.name)
        return cli_usage(argv[0], "--tokenizer-param needs --tokenizer");
    /* tokens made here carry no gold labels: only spans can be scored */
    if (tk.name && !(spans && model))
        return cli_usage(argv[0], "--tokenizer goes with --model and --spans (the gold is "
                                  "spans over the text, the model tags the tokens made)");
    if (spans && (gold || guess || plot))
        return cli_usage(argv[0], "--spans compares annotation sets: it goes without --label, "
                                  "--guess and --report");
    if (spans) {
        const char *tn[8] = {"model", "spans", "span-feature"}, *tv[8] = {model, SPAN_TYPE,
                                                                           "label"};
        size_t nt = 3;
        char *incols = NULL;
        if (tk.name && cli_tokenizer_columns(host, model, &incols) != CRFP_OK)
            return cli_fail(host);
        if (incols)
            tn[nt] = "input-columns", tv[nt++] = incols;
        /* a confidence curve over the tagger's spans needs their prob */
        for (size_t k = 0; k < nd; k++)
            if (strcmp(dn[k], "confidence") == 0) {
                tn[nt] = "posteriors", tv[nt++] = "true";
                break;
            }
        if (threads) {
            tn[nt] = "threads", tv[nt++] = threads;
            crfp_host_set_threads(host, atoi(threads));
        }
        if (decode)
            tn[nt] = "decode", tv[nt++] = decode;
        int rc = eval_spans(host, argv[0], format, columns, input, output, spans, rn, rv, nr, dn,
                            dv, nd, model ? tn : NULL, tv, nt, &tk);
        free(incols);
        return rc;
    }
    /* The model's label is the gold when the tokens have that feature;
     * column files whose columns are named by position fall back to the
     * column before the prediction (the evaluate plugin decides). */
    char *label = NULL;
    if (model && !gold && cli_model_label(host, model, &label) != CRFP_OK)
        return cli_fail(host);
    const char *reader;
    const crfp_plugin *report = NULL;
    if (cli_reader_for(host, format, input, &reader) != CRFP_OK ||
        crfp_host_find_format(host, CRFP_KIND_WRITER, "report", &report) != CRFP_OK) {
        free(label);
        return cli_lookup_fail(host, argv[0]);
    }
    crfp_pipeline *p = crfp_pipeline_new(host);
    if (!p) {
        free(label);
        fprintf(stderr, "crfpipe: error: out of memory\n");
        return CLI_FAIL;
    }
    if (columns) {
        rn[nr] = "columns";
        rv[nr++] = columns;
    }
    const char *tn[4], *tv[4], *en[5], *ev[5];
    size_t nt = 0, ne = 0;
    tn[nt] = "model", tv[nt++] = model;
    tn[nt] = "output", tv[nt++] = "predicted";
    if (threads) {
        tn[nt] = "threads", tv[nt++] = threads;
        crfp_host_set_threads(host, atoi(threads)); /* the pipeline's batches too */
    }
    if (decode)
        tn[nt] = "decode", tv[nt++] = decode;
    if (gold)
        en[ne] = "gold", ev[ne++] = gold;
    if (guess || model)
        en[ne] = "guess", ev[ne++] = guess ? guess : "predicted";
    if (label)
        en[ne] = "model-label", ev[ne++] = label;
    if (strcmp(input, "-") != 0)
        en[ne] = "source", ev[ne++] = input;
    if (plot)
        en[ne] = "plot", ev[ne++] = plot;
    int rc;
    if (crfp_pipeline_add(p, reader, "input", rn, rv, nr, NULL) == CRFP_OK &&
        (!model || crfp_pipeline_add(p, "viterbi", "--model", tn, tv, nt, NULL) == CRFP_OK) &&
        crfp_pipeline_add(p, report->desc->name, "eval", en, ev, ne, NULL) == CRFP_OK)
        rc = cli_run_pipeline(host, p, input, output);
    else
        rc = cli_fail(host);
    crfp_pipeline_free(p);
    free(label);
    return rc;
}
