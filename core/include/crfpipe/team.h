/* crfpipe — the one thread team of a process.
 *
 * Every parallel loop in crfpipe (the training objective, error counting,
 * the optimizers' vector loops, the tagger) runs on the host's team instead
 * of starting threads of its own: threads are started once, a job costs a
 * wake-up rather than a pthread_create, and `--threads N` means N
 * everywhere.  A job is a function called once on every member, with the
 * member's id (0 = the calling thread) and the team size; it splits its
 * work by id, so results depend only on the team size, never on scheduling.
 */
#ifndef CRFPIPE_TEAM_H
#define CRFPIPE_TEAM_H

#include <stddef.h>
#include "crfpipe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crfp_team crfp_team;

/* A job: called as fn(arg, id, n) for id = 0 .. n-1, concurrently. */
typedef void (*crfp_team_fn)(void *arg, int id, int n);

/* Start a team of `nthreads` members, the caller counting as member 0
 * (nthreads <= 0: one per online core).  *out owned by the caller.
 * Errors: CRFP_ENOMEM (memory or threads could not be had).  *out is
 * NULL on failure; no message is recorded.  At most 1024 members (at most
 * 256 for nthreads <= 0). */
crfp_status crfp_team_new(int nthreads, crfp_team **out);
/* Stop and join the members.  NULL accepted.  Not while a job runs. */
void crfp_team_free(crfp_team *t);
/* Members, caller included; 1 for a NULL team. */
int crfp_team_size(const crfp_team *t);

/* Run fn on every member and return when all have finished.  A NULL team
 * runs fn(arg, 0, 1) on the caller.  Calls from several threads are
 * serialised.  A job that itself calls crfp_team_run on the same team (a
 * stage that parallelises its own work, run by a pipeline that already
 * spreads documents over the team) gets fn(arg, 0, 1) on its own thread:
 * the members are busy, and waiting for them would deadlock. */
void crfp_team_run(crfp_team *t, crfp_team_fn fn, void *arg);

/* Member id's share of [0, n) cut into `parts` contiguous slices on
 * 8-element boundaries (so that members do not share cache lines of a
 * double array): [*lo, *hi).  parts >= 1 and 0 <= id < parts; cannot fail. */
static inline void crfp_team_slice(size_t n, int id, int parts, size_t *lo, size_t *hi)
{
    size_t blocks = (n + 7) / 8;
    size_t a = blocks * (size_t)id / (size_t)parts * 8;
    size_t b = blocks * ((size_t)id + 1) / (size_t)parts * 8;
    *hi = b > n ? n : b;
    *lo = a > *hi ? *hi : a;
}

/* The host's team, started on first use with crfp_host_threads(host)
 * members and kept until crfp_host_free; after crfp_host_set_threads the
 * next call starts a team of the new size.  NULL when threads cannot be
 * started (callers then run serially: crfp_team_run accepts NULL), or for
 * a NULL host.  The team is the host's: do not free it, nor keep it across
 * crfp_host_set_threads, which may free it. */
crfp_team *crfp_host_team(crfp_host *host);

#ifdef __cplusplus
}
#endif
#endif
