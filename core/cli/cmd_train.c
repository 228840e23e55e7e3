/* crfpipe train — builds reader → features → trainer and runs it. */
#include "config.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define MAXP 64

typedef struct kv {
    const char *names[MAXP], *values[MAXP];
    size_t n;
} kv;

static int kv_add(kv *k, const char *name, const char *value)
{
    if (k->n == MAXP)
        return 0;
    k->names[k->n] = name;
    k->values[k->n++] = value;
    return 1;
}

int cmd_train(crfp_host *host, int argc, char **argv)
{
    const char *trainer = "lbfgs", *features = "templates", *tpl = NULL, *format = NULL;
    const char *columns = NULL, *input = NULL, *v;
    kv tp = {{0}, {0}, 0};
    for (int i = 1; i < argc; i++) {
        int r;
        if ((r = cli_opt(argv[0], argc, argv, &i, "trainer", &v)) != 0)
            trainer = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "features", &v)) != 0)
            features = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "template", &v)) != 0)
            tpl = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "format", &v)) != 0)
            format = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "columns", &v)) != 0)
            columns = v;
        else if (strcmp(argv[i], "--resume") == 0)
            /* a flag: continue from the --checkpoint file */
            r = kv_add(&tp, "resume", "true") ? 1 : -1;
        else if (strncmp(argv[i], "--", 2) == 0 && argv[i][2])
            /* Every other --name VALUE is a trainer parameter, checked
             * against the trainer's declaration (e.g. --rho1, --history). */
            r = cli_stage_opt(argv[0], argc, argv, &i, tp.names, tp.values, &tp.n, MAXP);
        else if (!input) {
            input = argv[i];
            r = 1;
        } else {
            return cli_usage(argv[0], "unexpected argument '%s'", argv[i]);
        }
        if (r < 0)
            return CLI_USAGE;
    }
    if (!input)
        return cli_usage(argv[0], "no training file given");
    if (!tpl && strcmp(features, "templates") == 0)
        return cli_usage(argv[0], "--template FILE is required");
    int has_model = 0;
    for (size_t k = 0; k < tp.n; k++)
        has_model |= strcmp(tp.names[k], "model") == 0;
    if (!has_model)
        return cli_usage(argv[0], "--model OUT is required");
    const char *reader;
    if (cli_reader_for(host, format, input, &reader) != CRFP_OK)
        return cli_lookup_fail(host, argv[0]);

    crfp_pipeline *p = crfp_pipeline_new(host);
    if (!p) {
        fprintf(stderr, "crfpipe: error: out of memory\n");
        return CLI_FAIL;
    }
    kv rp = {{0}, {0}, 0}, fp = {{0}, {0}, 0};
    if (columns)
        kv_add(&rp, "columns", columns);
    if (tpl)
        kv_add(&fp, "template", tpl);
    int rc = CLI_FAIL;
    if (crfp_pipeline_add(p, reader, "input", rp.names, rp.values, rp.n, NULL) != CRFP_OK ||
        crfp_pipeline_add(p, features, "--features", fp.names, fp.values, fp.n, NULL) != CRFP_OK) {
        crfp_pipeline_free(p);
        return cli_fail(host);
    }
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
    rc = ok ? cli_run_pipeline(host, p, input, NULL) : cli_fail(host);
    crfp_pipeline_free(p);
    return rc;
}
