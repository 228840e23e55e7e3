/* crfpipe — command-line entry point: global options and dispatch. */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The one piece of process state the CLI keeps: the host the SIGINT handler
 * must reach.  The handler only sets a sig_atomic_t inside it. */
static crfp_host *sigint_host;

static void on_sigint(int sig)
{
    (void)sig;
    if (sigint_host)
        crfp_host_interrupt(sigint_host);
    /* A second Ctrl-C kills the process the ordinary way. */
    signal(SIGINT, SIG_DFL);
}

static void log_stderr(void *ud, crfp_log_level level, const char *msg)
{
    (void)ud;
    if (level == CRFP_LOG_ERROR)
        fprintf(stderr, "crfpipe: error: %s\n", msg);
    else if (level == CRFP_LOG_WARN)
        fprintf(stderr, "crfpipe: warning: %s\n", msg);
    else
        fprintf(stderr, "%s\n", msg);
}

/* Their help and option lists are in help.c. */
static const struct command {
    const char *name;
    int (*fn)(crfp_host *, int, char **);
} commands[] = {
    {"plugins", cmd_plugins}, {"validate", cmd_validate}, {"convert", cmd_convert},
    {"run", cmd_run},         {"train", cmd_train},       {"tag", cmd_tag},
    {"eval", cmd_eval},       {"model", cmd_model},
};

static void usage(FILE *f)
{
    cli_help_general(f);
}

int main(int argc, char **argv)
{
    crfp_host *host = crfp_host_new();
    if (!host) {
        fprintf(stderr, "crfpipe: error: cannot initialise (out of memory or libltdl)\n");
        return CLI_FAIL;
    }
    crfp_host_set_log(host, log_stderr, NULL);
    /* Limits: the environment first, so that --limit overrides it. */
    if (crfp_host_set_limits(host, getenv("CRFPIPE_LIMITS")) != CRFP_OK) {
        fprintf(stderr, "crfpipe: error: $CRFPIPE_LIMITS: %s\n", crfp_errmsg(host));
        crfp_host_free(host);
        return CLI_USAGE;
    }

    /* Global options may appear anywhere; strip them before dispatch. */
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        crfp_host_free(host);
        return CLI_FAIL;
    }
    int n = 0, rc = CLI_OK;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r = cli_opt("", argc, argv, &i, "plugin-path", &v);
        if (r < 0) {
            rc = CLI_USAGE;
            goto out;
        }
        if (r > 0) {
            if (crfp_host_add_plugin_dir(host, v) != CRFP_OK) {
                rc = cli_fail(host);
                goto out;
            }
            continue;
        }
        if ((r = cli_opt("", argc, argv, &i, "limit", &v)) != 0) {
            if (r < 0 || crfp_host_set_limits(host, v) != CRFP_OK) {
                if (r > 0)
                    fprintf(stderr, "crfpipe: error: --limit: %s\n", crfp_errmsg(host));
                rc = CLI_USAGE;
                goto out;
            }
            continue;
        }
        if (strcmp(argv[i], "--force-special") == 0) {
            cli_output_force_special(1);
            continue;
        }
        if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            crfp_host_set_verbosity(host, CRFP_LOG_WARN);
            continue;
        }
        args[n++] = argv[i];
    }
    if (n == 0) {
        usage(stderr);
        rc = CLI_USAGE;
        goto out;
    }
    if (strcmp(args[0], "help") == 0 || strcmp(args[0], "--help") == 0 ||
        strcmp(args[0], "-h") == 0) {
        rc = cli_help_main(host, n, args);
        goto out;
    }
    if (strcmp(args[0], "--version") == 0) {
        printf("crfpipe %s (plugin ABI %u.%u)\n", PACKAGE_VERSION, CRFP_ABI_MAJOR, CRFP_ABI_MINOR);
        goto out;
    }
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
        if (strcmp(args[0], commands[c].name) == 0) {
            sigint_host = host;
            signal(SIGINT, on_sigint);
            rc = commands[c].fn(host, n, args);
            signal(SIGINT, SIG_DFL);
            sigint_host = NULL;
            goto out;
        }
    }
    fprintf(stderr, "crfpipe: unknown command '%s'%s\n", args[0], cli_suggest_command(args[0]));
    usage(stderr);
    rc = CLI_USAGE;
out:
    free(args);
    crfp_host_free(host);
    return rc;
}
