/* crfpipe — internals of the CRF engine shared by its source files.
 * Nothing here is part of the public API. */
#ifndef CRFP_CRF_IMPL_H
#define CRFP_CRF_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/crf.h"
#include "dict.h"
#include "crfpipe/alloc.h"

struct crfp_crf {
    crfp_dict labels;
    crfp_dict obs;
    unsigned char *oflags;   /* per observation: CRFP_OBS_* ORed */
    size_t oflags_cap;
    int final;
    /* Layout, valid after finalize. */
    uint64_t *ublk, *bblk;   /* per observation, CRFP_NO_BLOCK when absent */
    uint32_t *bidx;          /* per observation: rank among bigram ones, or UINT32_MAX */
    uint32_t nbig;           /* observations with a bigram block */
    uint32_t Y;              /* labels, frozen at finalize */
    double *w;
    size_t nparams;
    char *fplugin;
    char *fconfig;
    size_t fconfig_len;
    char **meta_k, **meta_v;
    size_t nmeta, meta_cap;
};

/* Check that a sequence only names observations owning the block it uses and
 * labels < Y.  Errors: CRFP_EINVAL (message to host, which may be NULL). */
crfp_status crfp_seq_check(crfp_host *host, const crfp_crf *crf, const crfp_seq *seq);

/* Portable count of online processors (at least 1). */
int crfp_ncpus(void);

/* Open the model file at path for reading (modelio.c): a regular file only,
 * checked on the descriptor after a non-blocking open, so that a FIFO
 * without a writer is refused instead of waited for.  *fd (blocking again)
 * is the caller's; *sb receives its status (size, times).  Errors, recorded in host and naming path:
 * CRFP_ENOTFOUND, CRFP_ENOMEM, CRFP_EIO (a directory, FIFO or other
 * non-regular file; open, stat or fcntl failed). */
struct stat;
crfp_status crfp_model_open(crfp_host *host, const char *path, int *fd, struct stat *sb);

/* Read the whole model file at path (crfp_model_open's checks) into *buf,
 * owned by the caller, of *n bytes followed by a NUL byte (the importers of
 * other programs' models, which parse the file in memory; the text formats
 * may NUL-terminate their last line in place).  Errors, recorded in host and
 * naming path: those of crfp_model_open, CRFP_ENOMEM, CRFP_EIO (a read
 * error, or the file shrank while read). */
crfp_status crfp_model_read_all(crfp_host *host, const char *path, unsigned char **buf,
                                size_t *n);

/* The importers' check of a model's size against the host's model-params
 * limit, before its weights are allocated: CRFP_OK, or CRFP_EFORMAT with a
 * message naming path and how to raise the limit. */
crfp_status crfp_import_params_check(crfp_host *host, const char *path, uint64_t nparams);

/* Write the n bytes at buf as the file at path, whole or not at all: to a
 * temporary (crfpipe/outfile.h), synced and renamed over path.  Used for
 * crfpipe's models and for models written for other programs.  Errors,
 * recorded in host and naming path: CRFP_EIO, CRFP_ENOMEM; no temporary is
 * left. */
crfp_status crfp_model_write(crfp_host *host, const char *path, const void *buf, size_t n);

#endif
