/* crfpipe — command-line entry point: global options and dispatch. */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The one piece of process state the CLI keeps: the host the signal
 * handler must reach.  The handler only sets a sig_atomic_t inside it. */
static crfp_host *sigint_host;

/* Ctrl-C, and the signals that ask a process to end (SIGTERM from kill,
 * a batch system or systemd; SIGHUP when the terminal goes away) stop the
 * command cleanly: training saves the model of its last iteration, other
 * commands leave their output untouched. */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_stop(int sig)
{
    if (sigint_host)
        crfp_host_interrupt(sigint_host);
    /* The same signal again kills the process the ordinary way. */
    signal(sig, SIG_DFL);
}

#define NSTOP (sizeof stop_signals / sizeof *stop_signals)

/* Catch the stop signals, keeping their previous handling in saved[] for
 * release_stop_signals().  SIGTERM or SIGHUP that the caller ignores stays
 * ignored (nohup ignores SIGHUP so that training outlives the terminal).
 * SIGINT is caught even then, as it always was: scripts stop training with
 * `kill -INT` on a background job, for which the shell ignores SIGINT. */
static void catch_stop_signals(struct sigaction saved[NSTOP])
{
    memset(saved, 0, NSTOP * sizeof *saved); /* SIG_DFL, should a query fail */
    for (size_t i = 0; i < NSTOP; i++) {
        if (sigaction(stop_signals[i], NULL, &saved[i]) == 0 && saved[i].sa_handler == SIG_IGN &&
            stop_signals[i] != SIGINT)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop;
        sigemptyset(&sa.sa_mask);
        /* SA_RESTART: a read interrupted by the signal goes on; the flag is
         * polled between documents and iterations. */
        sa.sa_flags = SA_RESTART;
        sigaction(stop_signals[i], &sa, NULL);
    }
}

static void release_stop_signals(const struct sigaction saved[NSTOP])
{
    for (size_t i = 0; i < NSTOP; i++)
        sigaction(stop_signals[i], &saved[i], NULL);
}

static void log_stderr(void *ud, crfp_log_level level, const char *msg)
{
    (void)ud;
    if (level == CRFP_LOG_ERROR)
        fprintf(stderr, "%s: error: ", cli_progname());
    else if (level == CRFP_LOG_WARN)
        fprintf(stderr, "%s: warning: ", cli_progname());
    crfp_fput_message(stderr, msg);
    fputc('\n', stderr);
}

/* Their help and option lists are in help.c. */
static const struct command {
    const char *name;
    int (*fn)(crfp_host *, int, char **);
} commands[] = {
    {"plugins", cmd_plugins}, {"validate", cmd_validate}, {"convert", cmd_convert},
    {"run", cmd_run},         {"train", cmd_train},       {"tag", cmd_tag},
    {"eval", cmd_eval},       {"model", cmd_model},       {"plot", cmd_plot},
    {"features", cmd_features},
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
    /* Under mpirun every rank runs this program: join the job first.  Only
     * rank 0 prints progress; the others report warnings and errors, named
     * by their rank. */
    if (crfp_dist_init(host, &argc, &argv, NULL) != CRFP_OK) {
        fprintf(stderr, "crfpipe: error: %s\n", crfp_errmsg(host));
        crfp_host_free(host);
        return CLI_FAIL;
    }
    if (crfp_dist_rank() != 0)
        crfp_host_set_verbosity(host, CRFP_LOG_WARN);
    /* Limits: the environment first, so that --limit overrides it. */
    if (crfp_host_set_limits(host, getenv("CRFPIPE_LIMITS")) != CRFP_OK) {
        fprintf(stderr, "crfpipe: error: $CRFPIPE_LIMITS: %s\n", crfp_errmsg(host));
        crfp_host_free(host);
        return CLI_USAGE;
    }

    /* Global options may appear anywhere; strip them before dispatch. */
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        fprintf(stderr, "crfpipe: error: out of memory\n");
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
        if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) {
            /* debug lines too, e.g. each iteration's objective in full */
            if (crfp_dist_rank() == 0)
                crfp_host_set_verbosity(host, CRFP_LOG_DEBUG);
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
        printf("crfpipe %s (plugin ABI %u.%u%s)\n", PACKAGE_VERSION, CRFP_ABI_MAJOR, CRFP_ABI_MINOR,
               crfp_dist_compiled() ? ", MPI" : "");
        goto out;
    }
    if (crfp_dist_size() > 1 && strcmp(args[0], "train") != 0 && strcmp(args[0], "run") != 0) {
        if (crfp_dist_rank() == 0)
            fprintf(stderr, "crfpipe: error: only 'train' (or 'run' with a training pipeline) "
                    "runs as an MPI job; '%s' would run %d times\n", args[0], crfp_dist_size());
        rc = CLI_USAGE;
        goto out;
    }
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
        if (strcmp(args[0], commands[c].name) == 0) {
            struct sigaction saved[NSTOP];
            sigint_host = host;
            /* In an MPI job the launcher owns the signals: Ctrl-C stops the
             * whole job (use --checkpoint and --resume), since one rank
             * stopping alone would leave the others waiting. */
            int caught = !crfp_dist_active();
            if (caught)
                catch_stop_signals(saved);
            rc = commands[c].fn(host, n, args);
            if (caught)
                release_stop_signals(saved);
            sigint_host = NULL;
            goto out;
        }
    }
    fprintf(stderr, "crfpipe: unknown command '%s'%s\n", args[0], cli_suggest_command(args[0]));
    usage(stderr);
    rc = CLI_USAGE;
out:
    free(args);
    if (crfp_dist_active()) {
        /* A failure this rank met alone leaves the others inside a
         * collective call: abort the job.  Agreed failures and usage
         * errors (every rank sees the same command line) end normally. */
        int ok = rc == CLI_OK || rc == CLI_USAGE ||
                 crfp_dist_failure_kind() != CRFP_DIST_FAIL_ALONE;
        if (!ok)
            fprintf(stderr, "%s: stopping every rank of the job\n", cli_progname());
        crfp_host_free(host);
        crfp_dist_end(ok, rc);
        return rc;
    }
    crfp_host_free(host);
    return rc;
}
