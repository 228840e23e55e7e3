/* crfpipe train — builds reader → features → trainer and runs it. */
#include "config.h"
#include "cli.h"
#include "help.h"
#include "report.h"
#include "cvtable.h"

#include <stdlib.h>
#include <string.h>

#define MAXP 64

typedef struct kv {
    const char *names[MAXP], *values[MAXP];
    size_t n;
} kv;

/* Options of wapiti train, crf_learn and crfsuite learn that crfpipe spells
 * otherwise: given here, they are answered with crfpipe's spelling rather
 * than a guess at the nearest option. */
static const cli_foreign other_tools[] = {
    {"-a", "the optimizer is --trainer NAME (wapiti train -a, crf_learn -a): lbfgs (l-bfgs, "
           "CRF-L2; with --rho1, OWL-QN as CRF-L1), sgd-l1, bcd, rprop (--variant rprop+ or "
           "rprop-), newton-cg, or perceptron (--variant mira is crf_learn -a MIRA)"},
    {"--algo", "the optimizer is --trainer NAME: lbfgs, sgd-l1, bcd, rprop (--variant rprop+ "
               "or rprop-), newton-cg, perceptron"},
    {"-p", "the template is --template FILE (wapiti train -p); crf_learn -p N (threads) is "
           "--threads N"},
    {"--pattern", "the template is --template FILE"},
    {"-c", "crf_learn -c C is --rho2 1/C (with -a CRF-L1, --rho1 1/C)"},
    {"-f", "crf_learn -f N is --min-freq N"},
    {"-1", "wapiti train -1 R is --rho1 R"},
    {"-2", "wapiti train -2 R is --rho2 R"},
    {"-e", "wapiti train -e E and crf_learn -e E are --epsilon E (over --window K "
           "iterations); crfsuite learn -e K (hold out group K) is --dev FILE"},
    {"--stopeps", "wapiti train --stopeps E is --epsilon E"},
    {"-w", "wapiti train -w K is --window K"},
    {"--stopwin", "wapiti train --stopwin K is --window K"},
    {"-i", "wapiti train -i N is --max-iter N"},
    {"--maxiter", "the iteration limit is --max-iter N"},
    {"-t", "wapiti train -t N (threads) is --threads N; crf_learn -t (a text model too) is "
           "crfpipe model dump MODEL"},
    {"--nthread", "the threads are --threads N"},
    {"-d", "wapiti train -d FILE is --dev FILE"},
    {"--devel", "the development set is --dev FILE"},
    {"-H", "crf_learn -H N is --shrinking-size N (with --trainer perceptron --variant mira)"},
    {"-x", "crfsuite learn -x (cross-validation over its groups) is --cv-folds K"},
    {"-g", "crfsuite learn -g N (groups for -x) is --cv-folds N"},
};

static const char *other_tool_hint(const char *arg)
{
    return cli_foreign_hint(other_tools, sizeof other_tools / sizeof *other_tools, arg);
}

static int kv_add(kv *k, const char *name, const char *value)
{
    if (k->n == MAXP)
        return 0;
    k->names[k->n] = name;
    k->values[k->n++] = value;
    return 1;
}

/* Every --PARAM must be declared by a trainer of the chain (--NAME.PARAM
 * or --N.PARAM by that trainer): checked here, before any data is read,
 * so that a typo gets the nearest valid option rather than a stage error.
 * Prints the message and returns CLI_USAGE, or CLI_FAIL when a trainer
 * cannot be loaded. */
static int check_trainer_opts(crfp_host *host, int argc, char **argv, const kv *tp,
                              const char *trainer)
{
    char list[256], *names[16];
    size_t nt = 0;
    snprintf(list, sizeof list, "%s", trainer);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && nt < 16;
         tok = strtok_r(NULL, ",", &save))
        names[nt++] = tok;
    for (size_t k = 0; k < nt; k++) {
        const crfp_plugin *pl;
        if (crfp_host_load_kind(host, names[k], CRFP_KIND_TRAINER, &pl) != CRFP_OK) {
            crfp_status st = crfp_errcode(host);
            const char *hint = st == CRFP_ENOTFOUND
                                   ? cli_suggest_plugin(host, CRFP_KIND_TRAINER, names[k]) : "";
            fprintf(stderr, "crfpipe: error: --trainer %s: %s%s\n", names[k], crfp_errmsg(host),
                    hint);
            return CLI_FAIL;
        }
    }
    for (size_t i = 0; i < tp->n; i++) {
        const char *nm = tp->names[i], *dot = strchr(nm, '.');
        int ok = 0;
        for (size_t k = 0; k < nt && !ok; k++) {
            if (dot) {
                size_t pl = (size_t)(dot - nm);
                char *end;
                unsigned long pos = strtoul(nm, &end, 10);
                int named = (strlen(names[k]) == pl && strncmp(nm, names[k], pl) == 0) ||
                            (end == dot && pl > 0 && pos == k + 1);
                /* trainer names compare with '-' and '_' alike */
                for (size_t j = 0; !named && j < pl && strlen(names[k]) == pl; j++) {
                    if (nm[j] != names[k][j] &&
                        !(strchr("-_", nm[j]) && strchr("-_", names[k][j])))
                        break;
                    named = j + 1 == pl;
                }
                ok = named && crfp_pipeline_stage_accepts(host, names[k], dot + 1);
            } else {
                ok = crfp_pipeline_stage_accepts(host, names[k], nm);
            }
        }
        if (!ok) {
            char opt[160];
            snprintf(opt, sizeof opt, "--%s", nm);
            return cli_unknown_option(host, argc, argv, opt);
        }
    }
    return CLI_OK;
}

int cmd_train(crfp_host *host, int argc, char **argv)
{
    const char *trainer = "lbfgs", *features = "templates", *tpl = NULL, *format = NULL;
    int features_set = 0;
    const char *columns = NULL, *input = NULL, *v;
    const char *report = NULL, *path_report = NULL, *table = NULL, *spans = NULL;
    const char *span_set = NULL, *tokenizer = NULL;
    kv tp = {{0}, {0}, 0}, rp = {{0}, {0}, 0}, fp = {{0}, {0}, 0}, kp = {{0}, {0}, 0};
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    for (int i = 1; i < argc; i++) {
        int r;
        if ((r = cli_opt(argv[0], argc, argv, &i, "trainer", &v)) != 0)
            trainer = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "features", &v)) != 0)
            features = v, features_set = 1;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "template", &v)) != 0)
            tpl = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "format", &v)) != 0)
            format = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "spans", &v)) != 0)
            spans = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "span-set", &v)) != 0)
            span_set = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "tokenizer", &v)) != 0)
            tokenizer = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "tokenizer-param", &v)) != 0) {
            if (r > 0)
                r = cli_param_pair(argv[0], "tokenizer-param", (char *)v, kp.names, kp.values,
                                   &kp.n, MAXP);
        }
        else if ((r = cli_opt(argv[0], argc, argv, &i, "columns", &v)) != 0)
            columns = v;
        else if (strcmp(argv[i], "--resume") == 0)
            /* a flag: continue from the --checkpoint file */
            r = kv_add(&tp, "resume", "true") ? 1 : -1;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "report", &v)) != 0)
            report = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "path-report", &v)) != 0)
            path_report = v;
        else if (strcmp(argv[i], "-o") == 0) {
            /* the path's or the folds' table, instead of stdout */
            if (i + 1 >= argc)
                return cli_usage(argv[0], "-o needs a file");
            table = argv[++i];
            r = 1;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "output", &v)) != 0) {
            table = v;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "reader-param", &v)) != 0) {
            /* for the training file and the dev file alike */
            if (r > 0)
                r = cli_param_pair(argv[0], "reader-param", (char *)v, rp.names, rp.values, &rp.n,
                                   MAXP - 1);
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "feature-param", &v)) != 0) {
            if (r > 0)
                r = cli_param_pair(argv[0], "feature-param", (char *)v, fp.names, fp.values,
                                   &fp.n, MAXP - 2);
        } else if (argv[i][0] == '-' && other_tool_hint(argv[i]))
            return cli_usage(argv[0], "unknown option '%s': %s", argv[i],
                             other_tool_hint(argv[i]));
        else if (strncmp(argv[i], "--", 2) == 0 && argv[i][2])
            /* Every other --name VALUE is a trainer parameter, checked
             * against the trainer's declaration (e.g. --rho1, --history). */
            r = cli_stage_opt(argv[0], argc, argv, &i, tp.names, tp.values, &tp.n, MAXP);
        else if (argv[i][0] == '-' && argv[i][1]) {
            /* Not the training file ("-" alone is stdin).  CRFsuite's
             * learn -m names the model to write, Wapiti's train -m the one
             * to start from: an unknown -m says which is which. */
            if (argv[i][1] == 'm' && !argv[i][2])
                return cli_usage(argv[0], "unknown option '-m': the model to write is --model "
                                          "FILE (crfsuite learn -m), the one to start from "
                                          "--init-model FILE (wapiti train -m), the "
                                          "iteration limit --max-iter N (crf_learn -m)");
            return cli_unknown_option(host, argc, argv, argv[i]);
        } else if (!input) {
            input = argv[i];
            r = 1;
        } else {
            return cli_usage(argv[0], "unexpected argument '%s'", argv[i]);
        }
        if (r < 0)
            return CLI_USAGE;
    }
    int bad = check_trainer_opts(host, argc, argv, &tp, trainer);
    if (bad != CLI_OK)
        return bad;
    if (!input)
        return cli_usage(argv[0], "no training file given");
    if (span_set && !spans)
        return cli_usage(argv[0], "--span-set needs --spans");
    if (kp.n && !tokenizer)
        return cli_usage(argv[0], "--tokenizer-param needs --tokenizer");
    /* --init-model without --template or --features: more training on the
     * model's own features (wapiti train -m), its extractor rebuilt from the
     * configuration the model keeps */
    const char *init = NULL;
    for (size_t k = 0; k < tp.n; k++) {
        const char *dot = strchr(tp.names[k], '.');
        if (strcmp(dot ? dot + 1 : tp.names[k], "init-model") == 0)
            init = tp.values[k];
    }
    if (!tpl && !features_set && !init)
        return cli_usage(argv[0], "--template FILE is required (or --features attributes "
                                  "for data that carries its attributes, as CRFsuite's "
                                  "format does, or --init-model MODEL to keep its features)");
    /* The path's table and chart exist only for a path (a --rho1-path
     * given to the trainer, or to trainer N of a chain, which the driver
     * then refuses with its reason); the folds' table only for a
     * cross-validation, which alone may go without a model. */
    int has_model = 0, path = 0, cv = 0;
    for (size_t k = 0; k < tp.n; k++) {
        const char *dot = strchr(tp.names[k], '.'), *nm = dot ? dot + 1 : tp.names[k];
        has_model |= strcmp(tp.names[k], "model") == 0;
        path |= strcmp(nm, "rho1-path") == 0;
        cv |= strcmp(nm, "cv-folds") == 0 && strcmp(tp.values[k], "0") != 0;
    }
    if (!has_model && !cv)
        return cli_usage(argv[0], "--model OUT is required (or --cv-folds K alone)");
    if (!path && path_report)
        return cli_usage(argv[0], "--path-report needs --rho1-path");
    if (!path && !cv && table)
        return cli_usage(argv[0], "-o needs --rho1-path or --cv-folds");
    /* Every file training writes comes after the data is read: one of
     * them naming the training or dev file would destroy it. */
    const char *dev = NULL, *model = NULL, *ckpt = NULL;
    for (size_t k = 0; k < tp.n; k++) {
        const char *dot = strchr(tp.names[k], '.'), *nm = dot ? dot + 1 : tp.names[k];
        if (strcmp(nm, "dev") == 0)
            dev = tp.values[k];
        else if (strcmp(nm, "model") == 0)
            model = tp.values[k];
        else if (strcmp(nm, "checkpoint") == 0)
            ckpt = tp.values[k];
    }
    const char *outs[] = {model, report, path_report, table, ckpt};
    const char *what[] = {"--model", "--report", "--path-report", "-o", "--checkpoint"};
    for (size_t k = 0; k < 5; k++)
        if (cli_same_file(outs[k], input) || cli_same_file(outs[k], dev))
            return cli_usage(argv[0], "%s %s is the %s file itself; writing it would destroy it",
                             what[k], outs[k], cli_same_file(outs[k], input) ? "training" : "dev");
    const char *reader;
    if (cli_reader_for(host, format, input, &reader) != CRFP_OK)
        return cli_lookup_fail(host, argv[0]);

    crfp_pipeline *p = crfp_pipeline_new(host);
    if (!p) {
        fprintf(stderr, "crfpipe: error: out of memory\n");
        return CLI_FAIL;
    }
    if (columns)
        kv_add(&rp, "columns", columns);
    if (tpl)
        kv_add(&fp, "template", tpl);
    /* A tokenizer's tokens carry their text as the feature `string`: the
     * template's first column (%x[0,0]) reads it, unless the features
     * plugin is told its columns otherwise; crfpipe tag --tokenizer then
     * finds the model's first column named so. */
    int has_cols = 0;
    for (size_t k = 0; k < fp.n; k++)
        has_cols |= strcmp(fp.names[k], "columns") == 0;
    if (tokenizer && !has_cols && crfp_pipeline_stage_accepts(host, features, "columns"))
        kv_add(&fp, "columns", "string");
    int rc = CLI_FAIL;
    /* --spans: the gold is annotations over the text (GATE's Key), made
     * token labels by the span_labels stage, for training and dev alike */
    const char *sn[2] = {"types", "span-set"}, *sv[2] = {spans, span_set ? span_set : "Key"};
    /* The model is loaded here for its features and again by the trainer
     * for its weights: the format has no header-only reader, and the second
     * load costs far less than the training it starts (as in cmd_tag). */
    crfp_crf *im = NULL;
    if (!tpl && !features_set && init && crfp_crf_load(host, init, &im) != CRFP_OK) {
        crfp_pipeline_free(p);
        return cli_fail(host);
    }
    size_t imlen = 0;
    const char *imcfg = im ? crfp_crf_features_config(im, &imlen) : NULL;
    if (im && !crfp_crf_features_plugin(im))
        crfp_error(host, CRFP_EINVAL, "%s: the model records no features plugin: give "
                   "--template or --features", init);
    if ((im && !crfp_crf_features_plugin(im)) ||
        crfp_pipeline_add(p, reader, "input", rp.names, rp.values, rp.n, NULL) != CRFP_OK ||
        (tokenizer && crfp_pipeline_add(p, tokenizer, "--tokenizer", kp.names, kp.values, kp.n,
                                        NULL) != CRFP_OK) ||
        (spans && crfp_pipeline_add(p, "span_labels", "--spans", sn, sv, 2, NULL) != CRFP_OK) ||
        (im ? crfp_pipeline_add_saved_features(p, crfp_crf_features_plugin(im), "--init-model",
                                               imcfg, imlen, init)
            : crfp_pipeline_add(p, features, "--features", fp.names, fp.values, fp.n, NULL)) !=
            CRFP_OK) {
        crfp_crf_free(im);
        crfp_pipeline_free(p);
        return cli_fail(host);
    }
    crfp_crf_free(im);
    /* --trainer a,b chains trainers.  An option --NAME.param goes to trainer
     * NAME (or at position N, --N.param) alone; a plain --param to every
     * trainer that declares it, except
     * --model (the last: the chain's result) and --init-model (the first). */
    char list[256];
    if (strlen(trainer) >= sizeof list) {
        crfp_pipeline_free(p);
        return cli_usage(argv[0], "--trainer: list too long");
    }
    strcpy(list, trainer);
    char *names[16];
    size_t nt = 0;
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (nt == 16) {
            crfp_pipeline_free(p);
            return cli_usage(argv[0], "--trainer: at most 16 trainers");
        }
        names[nt++] = tok;
    }
    if (nt == 0) {
        crfp_pipeline_free(p);
        return cli_usage(argv[0], "--trainer: no trainer named");
    }
    int ok = 1;
    for (size_t k = 0; k < nt && ok; k++) {
        kv sk = {{0}, {0}, 0};
        size_t nl = strlen(names[k]);
        for (size_t i = 0; i < tp.n && ok; i++) {
            const char *nm = tp.names[i], *dot = strchr(nm, '.');
            if (dot) {
                /* trainer names compare with '-' and '_' alike */
                size_t pl = (size_t)(dot - nm), j = 0;
                for (; j < pl && j < nl; j++)
                    if (nm[j] != names[k][j] && !(strchr("-_", nm[j]) && strchr("-_", names[k][j])))
                        break;
                /* or by its 1-based position, for chains of one plugin */
                char *end;
                unsigned long pos = strtoul(nm, &end, 10);
                if ((j == pl && pl == nl) || (end == dot && pl > 0 && pos == k + 1))
                    ok = kv_add(&sk, dot + 1, tp.values[i]);
                continue;
            }
            if ((strcmp(nm, "model") == 0 && k + 1 < nt) ||
                (strcmp(nm, "init-model") == 0 && k > 0))
                continue;
            /* In a chain, an option only some trainers declare goes to those;
             * one that none declares is refused by the first. */
            int anyone = 0;
            for (size_t m = 0; m < nt; m++)
                anyone |= crfp_pipeline_stage_accepts(host, names[m], nm);
            if (nt == 1 || crfp_pipeline_stage_accepts(host, names[k], nm) || (!anyone && k == 0))
                ok = kv_add(&sk, nm, tp.values[i]);
        }
        if (!ok) {
            crfp_pipeline_free(p);
            return cli_usage(argv[0], "too many options");
        }
        char where[300];
        snprintf(where, sizeof where, "--trainer %s", names[k]);
        if (crfp_pipeline_add(p, names[k], where, sk.names, sk.values, sk.n, NULL) != CRFP_OK)
            ok = 0;
    }
    cli_train_report *rep = NULL;
    if (ok && report && !(rep = cli_train_report_start(host, report))) {
        crfp_pipeline_free(p);
        return cli_fail(host);
    }
    cli_path_report *prep = NULL;
    if (ok && path && !(prep = cli_path_report_start(host, table, path_report))) {
        if (rep)
            cli_train_report_finish(rep, 1);
        crfp_pipeline_free(p);
        return cli_fail(host);
    }
    cli_cv_table *cvt = NULL;
    if (ok && cv && !path && !(cvt = cli_cv_table_start(host, table))) {
        if (rep)
            cli_train_report_finish(rep, 1);
        if (prep)
            cli_path_report_finish(prep, 1);
        crfp_pipeline_free(p);
        return cli_fail(host);
    }
    rc = ok ? cli_run_pipeline(host, p, input, NULL) : cli_fail(host);
    /* The curves are drawn also when training stopped early or was
     * interrupted: they show why. */
    if (rep && cli_train_report_finish(rep, rc != CLI_OK) != CRFP_OK && rc == CLI_OK)
        rc = cli_fail(host);
    if (prep && cli_path_report_finish(prep, rc != CLI_OK) != CRFP_OK && rc == CLI_OK)
        rc = cli_fail(host);
    if (cvt && cli_cv_table_finish(cvt, rc != CLI_OK) != CRFP_OK && rc == CLI_OK)
        rc = cli_fail(host);
    crfp_pipeline_free(p);
    return rc;
}
