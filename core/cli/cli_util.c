/* crfpipe CLI — output files committed by rename, input streams, options. */
#include "config.h"
#include "cli.h"
#include "crfpipe/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_progname(void)
{
    static char name[48];
    if (crfp_dist_size() <= 1)
        return "crfpipe";
    snprintf(name, sizeof name, "crfpipe[rank %d]", crfp_dist_rank());
    return name;
}

int cli_fail(crfp_host *host)
{
    /* In an MPI job a failure every rank agreed on is reported once, by
     * rank 0, unless it is this rank's own. */
    crfp_dist_failure kind = crfp_dist_failure_kind();
    if (crfp_dist_rank() != 0 && (kind == CRFP_DIST_FAIL_SAME || kind == CRFP_DIST_FAIL_ELSEWHERE))
        return CLI_FAIL;
    const char *msg = crfp_errmsg(host);
    fprintf(stderr, "%s: error: ", cli_progname());
    crfp_fput_message(stderr, *msg ? msg : crfp_status_str(crfp_errcode(host)));
    fprintf(stderr, "%s\n", cli_sniff_note(msg));
    return CLI_FAIL;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "crfpipe %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    /* the command's own help lists what it accepts */
    if (*cmd)
        fprintf(stderr, "\n(see 'crfpipe %s --help')\n", cmd);
    else
        fprintf(stderr, "\n(see 'crfpipe help')\n");
    return CLI_USAGE;
}

/* Set by --force-special: -o may then write into a FIFO, a device or through
 * a symbolic link instead of refusing them. */
static int force_special;

void cli_output_force_special(int on)
{
    force_special = on;
}

static crfp_status open_failed(cli_output *o, crfp_status st)
{
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    return st;
}

int cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-"))
        return 0;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

crfp_status cli_not_input(crfp_host *host, const char *path, const char *input)
{
    if (!cli_same_file(path, input))
        return CRFP_OK;
    return crfp_error(host, CRFP_EINVAL, "%s: is the input %s itself; writing the output there "
                      "would destroy it (choose another -o)", path, input);
}

crfp_status cli_output_open_over(crfp_host *host, cli_output *o, const char *path,
                                 const char *input)
{
    crfp_status st = cli_not_input(host, path, input);
    if (st != CRFP_OK) {
        memset(o, 0, sizeof *o);
        return st;
    }
    return cli_output_open(host, o, path);
}

crfp_status cli_output_open(crfp_host *host, cli_output *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        o->stream.fp = stdout;
        o->stream.name = "<stdout>";
        return CRFP_OK;
    }
    if (!(o->path = strdup(path)))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    o->stream.name = o->path;
    struct stat sb;
    int exists = lstat(path, &sb) == 0;
    if (!exists && errno != ENOENT)
        return open_failed(o, crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno)));
    if (exists && S_ISDIR(sb.st_mode))
        return open_failed(o, crfp_error(host, CRFP_EIO, "%s: is a directory", path));
    if (exists && !S_ISREG(sb.st_mode)) {
        /* Replacing a device node, FIFO or symbolic link by a regular file
         * destroys it (as root, -o /dev/null would); writing into it is only
         * done when asked for, and then without a temporary. */
        const char *what = S_ISLNK(sb.st_mode)    ? "a symbolic link"
                           : S_ISFIFO(sb.st_mode) ? "a FIFO"
                           : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device"
                                                                        : "not a regular file";
        if (!force_special)
            return open_failed(o,
                               crfp_error(host, CRFP_EINVAL,
                                          "%s: is %s; -o only replaces regular files (use "
                                          "--force-special to write into it, or -o - for stdout)",
                                          path, what));
        int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISLNK(sb.st_mode) ? O_TRUNC : 0));
        struct stat tb;
        if (fd >= 0 && fstat(fd, &tb) == 0 && S_ISREG(tb.st_mode) && ftruncate(fd, 0) != 0) {
            close(fd);
            fd = -1;
        }
        if (fd < 0 || !(o->stream.fp = fdopen(fd, "w"))) {
            crfp_status st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            return open_failed(o, st);
        }
        o->direct = 1;
        return CRFP_OK;
    }
    /* The temporary, its mode and owner, and the removal of temporaries
     * left by runs that died, are the core's (shared with model files). */
    int fd;
    crfp_status st = crfp_outfile_begin(host, path, &o->tmp, &fd);
    if (st != CRFP_OK)
        return open_failed(o, st);
    if (!(o->stream.fp = fdopen(fd, "w"))) {
        int e = errno;
        st = crfp_error(host, e == ENOMEM ? CRFP_ENOMEM : CRFP_EIO, "%s: %s", path,
                        e == ENOMEM ? "out of memory" : strerror(e));
        close(fd);
        unlink(o->tmp);
        return open_failed(o, st);
    }
    return CRFP_OK;
}

crfp_status cli_output_commit(crfp_host *host, cli_output *o)
{
    if (!o->path) {
        if (fflush(o->stream.fp) != 0 || ferror(o->stream.fp))
            return crfp_error(host, CRFP_EIO, "<stdout>: write error: %s", strerror(errno));
        return CRFP_OK;
    }
    crfp_status st = CRFP_OK;
    int bad = fflush(o->stream.fp) != 0 || ferror(o->stream.fp);
    /* Synced here, before fclose, because the stream owns the descriptor;
     * the core's commit then renames.  (fsync fails with EINVAL on FIFOs
     * and character devices: not an error.) */
    if (!bad && fsync(fileno(o->stream.fp)) != 0 && errno != EINVAL)
        bad = 1;
    int saved = errno;
    if (fclose(o->stream.fp) != 0 || bad)
        st = crfp_error(host, CRFP_EIO, "%s: write error: %s", o->path,
                        strerror(bad ? saved : errno));
    else if (!o->direct)
        st = crfp_outfile_commit(host, -1, o->tmp, o->path);
    if (st != CRFP_OK && o->tmp)
        unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return st;
}

crfp_status cli_output_probe(crfp_host *host, const char *path)
{
    cli_output o;
    crfp_status st = cli_output_open(host, &o, path);
    if (st == CRFP_OK)
        cli_output_abort(&o);
    return st;
}

void cli_output_abort(cli_output *o)
{
    if (o->path && o->stream.fp)
        fclose(o->stream.fp);
    if (o->tmp)
        unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

crfp_status cli_input_open(crfp_host *host, crfp_stream *s, const char *path)
{
    if (!path || strcmp(path, "-") == 0) {
        s->fp = stdin;
        s->name = "<stdin>";
        return CRFP_OK;
    }
    s->fp = fopen(path, "rb");
    s->name = path;
    if (!s->fp)
        return crfp_error(host, errno == ENOMEM ? CRFP_ENOMEM : CRFP_EIO, "%s: %s", path,
                          errno == ENOMEM ? "out of memory opening it" : strerror(errno));
    return CRFP_OK;
}

void cli_input_close(crfp_stream *s)
{
    if (s->fp && s->fp != stdin)
        fclose(s->fp);
    s->fp = NULL;
}

int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0)
        return 0;
    if (a[2 + n] == '=') {
        *value = a + 3 + n;
        return 1;
    }
    if (a[2 + n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_usage(cmd, "option --%s needs a value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

/* Which plugin reads `path`: the format named, else the one its extension
 * declares, else whichever reader's probe recognises the file's first
 * bytes, else the default format (CLI_DEFAULT_FORMAT).  The host knows the
 * plugins only through what they declare. */
crfp_status cli_reader_for(crfp_host *host, const char *fmt, const char *path, const char **name)
{
    const crfp_plugin *p = NULL;
    crfp_status st;
    *name = NULL;
    if (!fmt && path && strcmp(path, "-") != 0) {
        st = crfp_host_format_for_path(host, CRFP_KIND_READER, path, &p);
        if (st == CRFP_OK) {
            *name = p->desc->name;
            return CRFP_OK;
        }
        if (st != CRFP_ENOTFOUND)
            return st;
    }
    if (!fmt) {
        if ((st = cli_sniff_reader(host, path, name)) != CRFP_OK || *name)
            return st;
    }
    st = crfp_host_find_format(host, CRFP_KIND_READER, fmt ? fmt : CLI_DEFAULT_FORMAT, &p);
    if (st == CRFP_OK)
        *name = p->desc->name;
    return st;
}

crfp_status cli_writer_for(crfp_host *host, const char *fmt, const char *path, const char **name)
{
    const crfp_plugin *p = NULL;
    crfp_status st;
    *name = NULL;
    if (!fmt && path) {
        st = crfp_host_format_for_path(host, CRFP_KIND_WRITER, path, &p);
        if (st == CRFP_OK) {
            *name = p->desc->name;
            return CRFP_OK;
        }
        if (st != CRFP_ENOTFOUND)
            return st;
    }
    st = crfp_host_find_format(host, CRFP_KIND_WRITER, fmt ? fmt : CLI_DEFAULT_FORMAT, &p);
    if (st == CRFP_OK)
        *name = p->desc->name;
    return st;
}

int cli_lookup_fail(crfp_host *host, const char *cmd)
{
    if (crfp_errcode(host) == CRFP_ENOTFOUND)
        return cli_usage(cmd, "%s", crfp_errmsg(host));
    return cli_fail(host);
}

int cli_stage_opt(const char *cmd, int argc, char **argv, int *i, const char **names,
                  const char **values, size_t *n, size_t max)
{
    char *name = argv[*i] + 2, *eq = strchr(name, '=');
    const char *v;
    if (eq) {
        *eq = '\0';
        v = eq + 1;
    } else if (*i + 1 < argc) {
        v = argv[++*i];
    } else {
        cli_usage(cmd, "option --%s needs a value", name);
        return -1;
    }
    if (*n == max) {
        cli_usage(cmd, "too many options");
        return -1;
    }
    names[*n] = name;
    values[(*n)++] = v;
    return 1;
}

int cli_param_pair(const char *cmd, const char *opt, char *arg, const char **names,
                   const char **values, size_t *n, size_t max)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        cli_usage(cmd, "--%s expects NAME=VALUE, got '%s'", opt, arg);
        return -1;
    }
    if (*n == max) {
        cli_usage(cmd, "too many --%s options", opt);
        return -1;
    }
    *eq = '\0';
    names[*n] = arg;
    values[(*n)++] = eq + 1;
    return 1;
}

void *cli_append_observed(void **arr, size_t *n, size_t *cap, size_t elem,
                          const void *defaults, const void *src, size_t srcsize)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        void *na = realloc(*arr, nc * elem);
        if (!na)
            return NULL;
        *arr = na;
        *cap = nc;
    }
    unsigned char *dst = (unsigned char *)*arr + *n * elem;
    memcpy(dst, defaults, elem);
    memcpy(dst, src, srcsize < elem ? srcsize : elem);
    (*n)++;
    return dst;
}
