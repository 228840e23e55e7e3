/* crfpipe run PIPELINE.xml [-i IN] [-o OUT] [--threads N] */
#include "config.h"
#include "cli.h"
#include "help.h"
#include "progress.h"

#include <stdlib.h>
#include <string.h>

/* Shared by run, train and tag: stream `in` through `p` into `outpath`
 * (committed only on success). */
int cli_run_pipeline(crfp_host *host, crfp_pipeline *p, const char *inpath, const char *outpath)
{
    crfp_stream in;
    cli_output out;
    if (cli_input_open(host, &in, inpath) != CRFP_OK)
        return cli_fail(host);
    int training = crfp_pipeline_is_training(p);
    if (!training && cli_output_open(host, &out, outpath) != CRFP_OK) {
        cli_input_close(&in);
        return cli_fail(host);
    }
    /* Training prints a line per iteration instead of a bar. */
    cli_progress *bar = training ? NULL : cli_progress_start(host, in.fp, "crfpipe");
    crfp_status st = crfp_pipeline_run(p, &in, training ? NULL : &out.stream);
    cli_progress_end(bar);
    cli_input_close(&in);
    /* A stage that failed without recording why (a writer out of memory)
     * must not be reported as "ok". */
    if (st != CRFP_OK && (crfp_errcode(host) == CRFP_OK || !*crfp_errmsg(host)))
        crfp_error_wrap(host, st, "%s", outpath && strcmp(outpath, "-") ? outpath : "pipeline");
    if (training)
        return st == CRFP_OK ? CLI_OK : cli_fail(host);
    if (st != CRFP_OK) {
        cli_output_abort(&out);
        return cli_fail(host);
    }
    if (cli_output_commit(host, &out) != CRFP_OK)
        return cli_fail(host);
    return CLI_OK;
}

int cmd_run(crfp_host *host, int argc, char **argv)
{
    const char *pipe = NULL, *in = NULL, *out = NULL, *v;
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    for (int i = 1; i < argc; i++) {
        int r;
        if (strcmp(argv[i], "-i") == 0 || strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                return cli_usage(argv[0], "option %s needs a file", argv[i]);
            *(argv[i][1] == 'i' ? &in : &out) = argv[i + 1];
            i++;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "input", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            in = v;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "output", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            out = v;
        } else if ((r = cli_opt(argv[0], argc, argv, &i, "threads", &v)) != 0) {
            /* The host's team: documents (a reader's batches) processed at
             * once by stages that allow it. */
            if (r < 0)
                return CLI_USAGE;
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 0 || n > 1024)
                return cli_usage(argv[0], "--threads expects a number from 0 (all cores) to 1024");
            crfp_host_set_threads(host, (int)n);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_unknown_option(host, argc, argv, argv[i]);
        } else if (!pipe) {
            pipe = argv[i];
        } else {
            return cli_usage(argv[0], "unexpected argument '%s'", argv[i]);
        }
    }
    if (!pipe)
        return cli_usage(argv[0], "which pipeline? usage: crfpipe run PIPELINE.xml [-i IN] [-o OUT] "
                                  "[--threads N]");
    crfp_pipeline *p;
    if (crfp_pipeline_load(host, pipe, &p) != CRFP_OK)
        return cli_fail(host);
    int rc = cli_run_pipeline(host, p, in, out);
    crfp_pipeline_free(p);
    return rc;
}
