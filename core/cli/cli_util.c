/* crfpipe CLI — output files committed by rename, input streams, options. */
#include "config.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_fail(crfp_host *host)
{
    const char *msg = crfp_errmsg(host);
    fprintf(stderr, "crfpipe: error: %s%s\n", *msg ? msg : crfp_status_str(crfp_errcode(host)),
            cli_sniff_note(msg));
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

/* Temporaries are "OUT.tmp.PID.XXXXXX", so that a later run can tell one
 * left behind by a crashed run (its pid is gone) from one being written. */
#define STALE_AGE_SECONDS 3600

/* The directory part of path ("." when none) and the base name, malloc'd. */
static int split_path(const char *path, char **dir, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    return *dir ? 0 : -1;
}

/* Remove temporaries of `base` in `dir` left behind by runs that died: the
 * pid in the name no longer exists, or (names without a pid, or pids that
 * were reused) the file has not been written for STALE_AGE_SECONDS.  Only
 * regular files owned by this user are touched; failures are ignored, since
 * cleaning up is a courtesy and must not fail the run. */
static void clean_stale(const char *dir, const char *base)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t bl = strlen(base);
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, bl) != 0 || strncmp(n + bl, ".tmp.", 5) != 0)
            continue;
        const char *rest = n + bl + 5;
        size_t rl = strlen(rest);
        long pid = -1;
        if (rl > 7 && rest[rl - 7] == '.') {
            char *endp;
            pid = strtol(rest, &endp, 10);
            if (endp != rest + rl - 7 || pid <= 0)
                continue; /* not a name we create */
        } else if (rl != 6) {
            continue;
        }
        struct stat sb;
        if (fstatat(dirfd(d), n, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode) ||
            sb.st_uid != geteuid())
            continue;
        int dead = pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
        if (dead || now - sb.st_mtime > STALE_AGE_SECONDS)
            unlinkat(dirfd(d), n, 0);
    }
    closedir(d);
}

static crfp_status open_failed(cli_output *o, crfp_status st)
{
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    return st;
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
    /* Mode of the result: the old file's (its owner chose it), else what
     * open(2) would give a new file under the umask. */
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = exists ? (sb.st_mode & 07777) : (0666 & ~mask);

    char *dir;
    const char *base;
    if (split_path(path, &dir, &base) != 0)
        return open_failed(o, crfp_error(host, CRFP_ENOMEM, "out of memory"));
    clean_stale(dir, base);
    free(dir);

    size_t n = strlen(path);
    if (!(o->tmp = malloc(n + 48)))
        return open_failed(o, crfp_error(host, CRFP_ENOMEM, "out of memory"));
    snprintf(o->tmp, n + 48, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    int fd = mkstemp(o->tmp);
    if (fd < 0)
        return open_failed(o,
                           crfp_error(host, CRFP_EIO, "%s: cannot create temporary file: %s",
                                      path, strerror(errno)));
    if (fchmod(fd, mode) != 0 || !(o->stream.fp = fdopen(fd, "w"))) {
        crfp_status st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        return open_failed(o, st);
    }
    if (exists && geteuid() == 0 && (sb.st_uid != 0 || sb.st_gid != 0)) {
        /* root rewriting someone's file keeps it theirs; best effort. */
        if (fchown(fd, sb.st_uid, sb.st_gid) != 0)
            (void)0;
    }
    return CRFP_OK;
}

/* Make the rename durable: the directory entry lives in the directory. */
static void sync_dir_of(const char *path)
{
    char *dir;
    const char *base;
    if (split_path(path, &dir, &base) != 0)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
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
    /* The data must be on disk before the rename makes it the file: after a
     * crash the name then holds either the old or the complete new contents.
     * (fsync fails with EINVAL on FIFOs and character devices: not an error.) */
    if (!bad && !o->direct && fsync(fileno(o->stream.fp)) != 0 && errno != EINVAL)
        bad = 1;
    int saved = errno;
    if (fclose(o->stream.fp) != 0 || bad)
        st = crfp_error(host, CRFP_EIO, "%s: write error: %s", o->path,
                        strerror(bad ? saved : errno));
    else if (!o->direct && rename(o->tmp, o->path) != 0)
        st = crfp_error(host, CRFP_EIO, "%s: cannot rename into place: %s", o->path,
                        strerror(errno));
    else if (!o->direct)
        sync_dir_of(o->path);
    if (st != CRFP_OK && o->tmp)
        unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
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
        return crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
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
const char *cli_reader_for(crfp_host *host, const char *fmt, const char *path)
{
    const crfp_plugin *p = NULL;
    if (fmt)
        return crfp_host_find_format(host, CRFP_KIND_READER, fmt, &p) == CRFP_OK
                   ? p->desc->name : NULL;
    if (path && strcmp(path, "-") != 0 &&
        crfp_host_format_for_path(host, CRFP_KIND_READER, path, &p) == CRFP_OK)
        return p->desc->name;
    const char *sniffed = cli_sniff_reader(host, path);
    if (sniffed)
        return sniffed;
    return crfp_host_find_format(host, CRFP_KIND_READER, CLI_DEFAULT_FORMAT, &p) == CRFP_OK
               ? p->desc->name : NULL;
}

const char *cli_writer_for(crfp_host *host, const char *fmt, const char *path)
{
    const crfp_plugin *p = NULL;
    if (fmt)
        return crfp_host_find_format(host, CRFP_KIND_WRITER, fmt, &p) == CRFP_OK
                   ? p->desc->name : NULL;
    if (path && crfp_host_format_for_path(host, CRFP_KIND_WRITER, path, &p) == CRFP_OK)
        return p->desc->name;
    return crfp_host_find_format(host, CRFP_KIND_WRITER, CLI_DEFAULT_FORMAT, &p) == CRFP_OK
               ? p->desc->name : NULL;
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
