/* crfpipe tag — placeholder until its owner lands it. */
#include "config.h"
#include "cli.h"

int cmd_tag(crfp_host *host, int argc, char **argv)
{
    (void)host;
    (void)argc;
    return cli_usage(argv[0], "not implemented yet");
}
