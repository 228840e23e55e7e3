/* crfpipe tag — builds reader → viterbi → writer and runs it. */
#include "config.h"
#include "cli.h"

#include <string.h>

int cmd_tag(crfp_host *host, int argc, char **argv)
{
    const char *format = NULL, *to = NULL, *columns = NULL, *input = NULL, *output = NULL;
    const char *tagger = "viterbi", *v;
    const char *names[32], *values[32];
    size_t n = 0;
    for (int i = 1; i < argc; i++) {
        int r = 0;
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                return cli_usage(argv[0], "-o needs a file");
            output = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--posteriors") == 0) {
            names[n] = "posteriors";
            values[n++] = "true";
            continue;
        }
        if ((r = cli_opt(argv[0], argc, argv, &i, "format", &v)) != 0)
            format = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "to", &v)) != 0)
            to = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "columns", &v)) != 0)
            columns = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "output", &v)) != 0)
            output = v;
        else if ((r = cli_opt(argv[0], argc, argv, &i, "tagger", &v)) != 0)
            tagger = v;
        else if (strncmp(argv[i], "--", 2) == 0 && argv[i][2])
            /* --model, --threads, --nbest, ... go to the tagger, which
             * checks them against its declaration. */
            r = cli_stage_opt(argv[0], argc, argv, &i, names, values, &n, 32);
        else if (!input) {
            input = argv[i];
            r = 1;
        } else {
            return cli_usage(argv[0], "unexpected argument '%s'", argv[i]);
        }
        if (r < 0)
            return CLI_USAGE;
    }
    const char *reader = cli_reader_for(host, format, input);
    const char *writer = reader ? cli_writer_for(host, to ? to : format, to ? NULL : input) : NULL;
    if (!reader || !writer)
        return cli_usage(argv[0], "%s", crfp_errmsg(host));
    crfp_pipeline *p = crfp_pipeline_new(host);
    if (!p)
        return CLI_FAIL;
    const char *cn[] = {"columns"}, *cv[] = {columns};
    int rc;
    if (crfp_pipeline_add(p, reader, "input", cn, cv, columns ? 1 : 0, NULL) == CRFP_OK &&
        crfp_pipeline_add(p, tagger, "--tagger", names, values, n, NULL) == CRFP_OK &&
        crfp_pipeline_add(p, writer, "output", NULL, NULL, 0, NULL) == CRFP_OK)
        rc = cli_run_pipeline(host, p, input, output);
    else
        rc = cli_fail(host);
    crfp_pipeline_free(p);
    return rc;
}
