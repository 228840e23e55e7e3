/* crfpipe — the host's private layout, shared by the files that implement
 * status, logging and the plugin registry.  Not installed. */
#ifndef CRFP_HOST_PRIV_H
#define CRFP_HOST_PRIV_H

#include <signal.h>
#include <ltdl.h>
#include "crfpipe/host.h"
#include "crfpipe/observe.h"

/* The smallest error buffer: room for any status string and a note. */
#define CRFP_ERRBUF_MIN 96

/* One module the host has opened. */
typedef struct crfp_loaded {
    crfp_plugin pub;
    lt_dlhandle handle;
    int inited;  /* init() succeeded, so fini() is owed */
} crfp_loaded;

/* The search path is rebuilt whenever a --plugin-path dir is added, so that
 * crfp_host_search_path() can be a plain read. */
typedef struct crfp_pathdir {
    char *dir;
    int buildtree; /* dir is BUILDDIR/plugins: modules live in NAME/ and NAME/.libs/ */
} crfp_pathdir;

struct crfp_host {
    crfp_log_fn log_fn;
    void *log_ud;
    crfp_log_level max_level;
    /* Observers (observe.h): training iterations, finished documents. */
    crfp_train_observer train_obs;
    void *train_obs_ud;
    crfp_doc_observer doc_obs;
    void *doc_obs_ud;
    crfp_path_observer path_obs;
    void *path_obs_ud;
    crfp_fold_observer fold_obs;
    void *fold_obs_ud;

    crfp_status errcode;
    char *errmsg;     /* heap, at least CRFP_ERRBUF_MIN bytes from crfp_host_new
                       * on, so that an error can be recorded without memory */
    size_t errcap;

    volatile sig_atomic_t interrupted;
    int nthreads;
    struct crfp_team *team; /* started on first use (crfp_host_team) */

    int ltdl_ready;
    int uninstalled;   /* the running program lies in the build tree */

    char **user_dirs;  /* from crfp_host_add_plugin_dir, in order */
    size_t nuser;
    crfp_pathdir *path; /* effective search path */
    size_t npath;
    const char **path_view; /* path[i].dir, for crfp_host_search_path */

    crfp_loaded **loaded;
    size_t nloaded, capload;
    const crfp_plugin **scan_list;
    char **warned;     /* untrusted paths already warned about (registry.c) */
    size_t nwarned;

    size_t limits[CRFP_LIMIT_COUNT]; /* crfp_host_set_limits; 0 = unlimited */
};

/* Where errors reported by one thread go while it works for a parallel
 * stage of a pipeline (crfp_host_errslot): several threads processing
 * documents at once must not race on the host's single message. */
typedef struct crfp_errslot {
    crfp_status code;
    char *msg;        /* heap; NULL until an error is recorded */
    size_t cap;
} crfp_errslot;

/* Route the errors the calling thread reports on `host` (crfp_error,
 * crfp_error_prefix; read back by crfp_errmsg and crfp_errcode on the same
 * thread) into `slot`, until called again with slot NULL.  The slot is the
 * caller's; free its msg with free(). */
void crfp_host_errslot(crfp_host *host, crfp_errslot *slot);

/* Rebuild host->path from the user dirs, the environment, the build tree and
 * the install dir.  CRFP_ENOMEM on allocation failure (path left empty). */
crfp_status crfp_host_rebuild_path(crfp_host *host);

/* Every limit to its default (crfp_host_new). */
void crfp_host_limits_init(crfp_host *host);

#endif
