/* Observers of a host (observe.h).  They live in the host so that every
 * runner -- the pipeline, the training driver, an embedding program's own
 * loop -- reports to the same place without knowing who listens. */
#include "config.h"

#include <string.h>

#include "crfpipe/crfpipe.h"
#include "host_priv.h"

void crfp_host_set_train_observer(crfp_host *host, crfp_train_observer fn, void *ud)
{
    if (!host)
        return;
    host->train_obs = fn;
    host->train_obs_ud = fn ? ud : NULL;
}

void crfp_host_set_doc_observer(crfp_host *host, crfp_doc_observer fn, void *ud)
{
    if (!host)
        return;
    host->doc_obs = fn;
    host->doc_obs_ud = fn ? ud : NULL;
}

void crfp_host_observe_doc(crfp_host *host, const crfp_doc *doc)
{
    if (host && host->doc_obs && doc)
        host->doc_obs(host->doc_obs_ud, doc);
}

void crfp_host_observe_iter(crfp_host *host, const crfp_train_iter *it)
{
    if (host && host->train_obs && it)
        host->train_obs(host->train_obs_ud, it);
}

size_t crfp_doc_count_tokens(const crfp_doc *doc, const char *set)
{
    crfp_annset *as = crfp_doc_annset((crfp_doc *)doc, set ? set : "", 0);
    if (!as)
        return 0;
    size_t n = crfp_annset_size(as), k = 0;
    for (size_t i = 0; i < n; i++) {
        const crfp_ann *a = crfp_annset_get(as, i);
        k += a->type && strcmp(a->type, "Token") == 0;
    }
    return k;
}

void crfp_host_set_path_observer(crfp_host *host, crfp_path_observer fn, void *ud)
{
    if (!host)
        return;
    host->path_obs = fn;
    host->path_obs_ud = fn ? ud : NULL;
}

void crfp_host_observe_point(crfp_host *host, const crfp_train_point *pt)
{
    if (host && host->path_obs && pt)
        host->path_obs(host->path_obs_ud, pt);
}

void crfp_host_set_fold_observer(crfp_host *host, crfp_fold_observer fn, void *ud)
{
    if (!host)
        return;
    host->fold_obs = fn;
    host->fold_obs_ud = fn ? ud : NULL;
}

void crfp_host_observe_fold(crfp_host *host, const crfp_train_fold *f)
{
    if (host && host->fold_obs && f)
        host->fold_obs(host->fold_obs_ud, f);
}
