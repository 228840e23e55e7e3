/* crfpipe — files that appear only when complete.
 *
 * Outputs (the program's -o files, model files) are written to a temporary
 * "PATH.tmp.PID.XXXXXX" in the same directory, fsync'd, renamed over PATH
 * and the directory fsync'd: after a crash PATH holds either its old or its
 * complete new contents.  A run that dies leaves its temporary behind; the
 * next run writing PATH removes it (crfp_outfile_clean_stale), which is
 * why the writer's pid is in the name.  The program's -o handling
 * (core/cli) and crfp_crf_save share these functions.
 */
#ifndef CRFPIPE_OUTFILE_H
#define CRFPIPE_OUTFILE_H

#include <sys/types.h>
#include "crfpipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Remove temporaries of `path` left behind by runs that died: names
 * "BASE.tmp.PID.XXXXXX" (and "BASE.tmp.XXXXXX" of older versions) next to
 * it whose pid no longer exists, or that have not been written for an hour
 * (the pid may have been reused).  Only regular files owned by the
 * effective user are touched.  Failures are
 * ignored: cleaning up is a courtesy and must not fail the run. */
void crfp_outfile_clean_stale(const char *path);

/* The mode a file written at `path` should get: an existing regular file's
 * (its owner chose it; `*exists` set to 1), else 0666 minus the process's
 * umask (`*exists` 0).  Reading the umask does not change it, so this is
 * safe while other threads create files.  `exists` must not be NULL;
 * cannot fail. */
mode_t crfp_outfile_mode(const char *path, int *exists);

/* Start writing `path`: clean its stale temporaries, then create
 * "PATH.tmp.PID.XXXXXX" with crfp_outfile_mode's mode (and, when running
 * as root over someone's file, that file's owner).  *tmp (malloc'd, the
 * caller frees) and *fd receive the temporary.  Errors: CRFP_ENOMEM,
 * CRFP_EIO (message names path and the system's reason).  On failure *tmp
 * is NULL, *fd -1 and no temporary is left. */
crfp_status crfp_outfile_begin(crfp_host *host, const char *path, char **tmp, int *fd);

/* Make a written temporary the file: fsync(fd) (EINVAL, for descriptors
 * that cannot be synced, is not an error), close it, rename tmp over path,
 * fsync the directory.  fd may be -1 when the caller has synced and closed
 * the temporary itself (a stdio stream); otherwise it is closed in every
 * case.  On any failure the temporary is removed.  Errors: CRFP_EIO naming
 * path and the cause.  The string tmp stays the caller's to free. */
crfp_status crfp_outfile_commit(crfp_host *host, int fd, const char *tmp, const char *path);

/* fsync the directory holding `path`, so that a rename into it survives a
 * crash.  Best effort (errors ignored). */
void crfp_outfile_sync_dir(const char *path);

#ifdef __cplusplus
}
#endif
#endif
