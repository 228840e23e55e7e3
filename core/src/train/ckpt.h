/* crfpipe — checkpoint files of a training run (ckpt.c).  Internal.
 *
 * A checkpoint holds θ, the trainer's own state (crfp_train_ckpt in
 * plugin.h) and the training driver's bookkeeping (dev-set best, ...), with
 * what identifies the run it belongs to: the model's layout (a fingerprint
 * of its labels and observations), the trainer and the penalties.  In a
 * distributed run rank 0 writes and reads the file; the others receive its
 * contents, so only rank 0 needs to see it.
 */
#ifndef CRFP_TRAIN_CKPT_H
#define CRFP_TRAIN_CKPT_H

#include <stddef.h>
#include <stdint.h>
#include "crfpipe/crfpipe.h"

/* What identifies a run, and the values saved with the state. */
typedef struct crfp_ckpt_info {
    uint64_t dim;          /* parameters */
    uint64_t fingerprint;  /* crfp_ckpt_fingerprint of the model */
    const char *trainer;   /* plugin name */
    double rho1, rho2;
    int iter;              /* write: the iteration the state ends */
    const int64_t *book;   /* write: the driver's values (nbook) */
    size_t nbook;
    size_t state_len;      /* unused on write (the pieces say) */
} crfp_ckpt_info;

/* A hash of the model's labels, observations and their flags (after
 * finalize): equal for runs on the same data, template and warm start. */
uint64_t crfp_ckpt_fingerprint(const crfp_crf *crf);

/* Write θ (in->dim doubles), the pieces and in->book to `path`, atomically
 * (temporary file, fsync, rename, fsync of the directory).  Only rank 0
 * writes; the others return CRFP_OK at once.  Errors: CRFP_EIO naming the
 * file and the cause, CRFP_ENOMEM. */
crfp_status crfp_ckpt_write(crfp_host *host, const char *path, const crfp_ckpt_info *in,
                            const double *theta, const crfp_ckpt_piece *pieces, size_t npieces);

/* Read `path` (collective: rank 0 reads and sends the contents to every
 * rank) into theta (want->dim doubles), book (want->nbook values) and
 * *state (malloc'd, *state_len bytes, caller frees); *iter receives the
 * iteration.  The file must match `want` (dimension, fingerprint, trainer,
 * penalties).  Errors: CRFP_EIO (cannot open), CRFP_EFORMAT (not a
 * checkpoint, corrupted, or another run's: the message says what differs),
 * CRFP_ENOMEM. */
crfp_status crfp_ckpt_read(crfp_host *host, const char *path, const crfp_ckpt_info *want,
                           double *theta, int *iter, void **state, size_t *state_len,
                           int64_t *book);

#endif
