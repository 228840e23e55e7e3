/* crfpipe model dump MODEL — labels, features configuration and weights. */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <string.h>

int cmd_model(crfp_host *host, int argc, char **argv)
{
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    if (argc != 3 || strcmp(argv[1], "dump") != 0)
        return cli_usage(argv[0], "usage: crfpipe model dump MODEL");
    crfp_crf *crf;
    if (crfp_crf_load(host, argv[2], &crf) != CRFP_OK)
        return cli_fail(host);
    crfp_status st = crfp_crf_dump(host, crf, stdout);
    crfp_crf_free(crf);
    if (st == CRFP_OK && fflush(stdout) != 0)
        st = crfp_error(host, CRFP_EIO, "<stdout>: write error");
    return st == CRFP_OK ? CLI_OK : cli_fail(host);
}
