/* crfpipe — files that appear only when complete (see outfile.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crfpipe/outfile.h"

/* A temporary untouched for this long belongs to no live run, whatever its
 * pid says (pids are reused). */
#define STALE_AGE_SECONDS 3600

/* The directory part of path ("." when none), malloc'd, and the base name
 * (pointing into path). */
static char *split_path(const char *path, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

void crfp_outfile_clean_stale(const char *path)
{
    const char *base;
    char *dir = split_path(path, &base);
    if (!dir)
        return;
    DIR *d = opendir(dir);
    free(dir);
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
        int dead = pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 &&
                   errno == ESRCH;
        if (dead || now - sb.st_mtime > STALE_AGE_SECONDS)
            unlinkat(dirfd(d), n, 0);
    }
    closedir(d);
}

/* The umask, read without setting it: umask(2) can only be read by
 * changing it, which would briefly give other threads' new files mode
 * 0666.  Linux reports it in /proc/self/status; elsewhere the change is
 * made and undone at once. */
static mode_t current_umask(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        unsigned long m;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Umask: %lo", &m) == 1) {
                fclose(f);
                return (mode_t)m;
            }
        fclose(f);
    }
    mode_t m = umask(022);
    umask(m);
    return m;
}

mode_t crfp_outfile_mode(const char *path, int *exists)
{
    struct stat sb;
    *exists = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    if (*exists)
        return sb.st_mode & 07777;
    return 0666 & ~current_umask();
}

crfp_status crfp_outfile_begin(crfp_host *host, const char *path, char **tmp, int *fd)
{
    *tmp = NULL;
    *fd = -1;
    int exists;
    mode_t mode = crfp_outfile_mode(path, &exists);
    struct stat sb;
    int have_owner = exists && stat(path, &sb) == 0;
    crfp_outfile_clean_stale(path);
    size_t n = strlen(path) + 48;
    char *t = malloc(n);
    if (!t)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", path);
    snprintf(t, n, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    int f = mkstemp(t);
    if (f < 0) {
        int e = errno;
        crfp_status st = crfp_error(host, e == ENOMEM ? CRFP_ENOMEM : CRFP_EIO,
                                    "%s: cannot create temporary file: %s", path,
                                    e == ENOMEM ? "out of memory" : strerror(e));
        free(t);
        return st;
    }
    /* mkstemp creates 0600: give the file the mode it will have. */
    if (fchmod(f, mode) != 0) {
        crfp_status st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
        close(f);
        unlink(t);
        free(t);
        return st;
    }
    if (have_owner && geteuid() == 0 && (sb.st_uid != 0 || sb.st_gid != 0)) {
        /* root rewriting someone's file keeps it theirs; best effort. */
        if (fchown(f, sb.st_uid, sb.st_gid) != 0)
            (void)0;
    }
    *tmp = t;
    *fd = f;
    return CRFP_OK;
}

void crfp_outfile_sync_dir(const char *path)
{
    const char *base;
    char *dir = split_path(path, &base);
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

crfp_status crfp_outfile_commit(crfp_host *host, int fd, const char *tmp, const char *path)
{
    /* The data must be on disk before the rename makes it the file: after a
     * crash the name then holds either the old or the complete new
     * contents. */
    int err = 0;
    if (fd >= 0 && fsync(fd) != 0 && errno != EINVAL)
        err = errno;
    if (fd >= 0 && close(fd) != 0 && !err)
        err = errno;
    if (err) {
        unlink(tmp);
        return crfp_error(host, CRFP_EIO, "%s: write error: %s", path, strerror(err));
    }
    if (rename(tmp, path) != 0) {
        err = errno;
        unlink(tmp);
        return crfp_error(host, CRFP_EIO, "%s: cannot rename into place: %s", path,
                          strerror(err));
    }
    crfp_outfile_sync_dir(path);
    return CRFP_OK;
}
