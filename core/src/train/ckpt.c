/* crfpipe — checkpoint files (ckpt.h).
 *
 * Layout, native byte order (a checkpoint resumes on the machines that made
 * it), every field 8 bytes:
 *   "CRFPCKP1", version (1), dim, fingerprint of the model's layout,
 *   iteration, number of bookkeeping values, state length, rho1, rho2
 *   (bit patterns), trainer name length, the name padded to 8 bytes,
 *   the bookkeeping values, θ (dim doubles), the trainer's state,
 *   checksum of everything before it.
 * Written to a temporary file beside the target, fsync'd, renamed over it,
 * then the directory fsync'd: a checkpoint is either the previous one or
 * the new one, whatever happens to the process or the machine.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt.h"
#include "../crf/crf_impl.h"
#include "../mpi/comm.h"

#define MAGIC "CRFPCKP1"
#define CKPT_VERSION 1
#define NHEAD 10 /* 8-byte fields after the magic, before the name */

/* A running 64-bit hash over a byte stream taken in 8-byte words (FNV-style
 * multiply and shift), fast enough for the gigabyte a large run's state
 * takes. */
typedef struct hasher {
    uint64_t h;
    unsigned char part[8];
    size_t npart;
} hasher;

static void hash_word(hasher *s, uint64_t w)
{
    s->h = (s->h ^ w) * UINT64_C(0x100000001b3);
    s->h ^= s->h >> 29;
}

static void hash_add(hasher *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    /* npart < 8 always; saying so spares GCC's -Wstringop-overflow a
     * false alarm in the sanitizer build */
    while (n && s->npart && s->npart < 8) {
        s->part[s->npart++] = *p++;
        n--;
        if (s->npart == 8) {
            uint64_t w;
            memcpy(&w, s->part, 8);
            hash_word(s, w);
            s->npart = 0;
        }
    }
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        hash_word(s, w);
    }
    memcpy(s->part, p, n);
    s->npart = n;
}

static uint64_t hash_end(hasher *s)
{
    uint64_t w = 0;
    memcpy(&w, s->part, s->npart);
    hash_word(s, w ^ ((uint64_t)s->npart << 56));
    return s->h;
}

uint64_t crfp_ckpt_fingerprint(const crfp_crf *crf)
{
    hasher s = {UINT64_C(0xcbf29ce484222325), {0}, 0};
    uint64_t n[3] = {crf->labels.n, crf->obs.n, crf->nparams};
    hash_add(&s, n, sizeof n);
    for (uint32_t y = 0; y < crf->labels.n; y++) {
        size_t len;
        const char *str = crfp_dict_str(&crf->labels, y, &len);
        hash_add(&s, str, len + 1);
    }
    for (uint32_t o = 0; o < crf->obs.n; o++) {
        size_t len;
        const char *str = crfp_dict_str(&crf->obs, o, &len);
        uint64_t l = len;
        hash_add(&s, &l, sizeof l);
        hash_add(&s, str, len);
        hash_add(&s, &crf->oflags[o], 1);
    }
    return hash_end(&s);
}

static int write_all(int fd, const void *p, size_t n, hasher *hs)
{
    const char *c = p;
    if (hs)
        hash_add(hs, p, n);
    while (n) {
        ssize_t k = write(fd, c, n > ((size_t)1 << 30) ? (size_t)1 << 30 : n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static void header(const crfp_ckpt_info *in, uint64_t h[NHEAD])
{
    memset(h, 0, NHEAD * sizeof *h);
    h[0] = CKPT_VERSION;
    h[1] = in->dim;
    h[2] = in->fingerprint;
    h[3] = (uint64_t)(int64_t)in->iter;
    h[4] = in->nbook;
    h[5] = in->state_len;
    memcpy(&h[6], &in->rho1, 8);
    memcpy(&h[7], &in->rho2, 8);
    h[8] = strlen(in->trainer);
}

crfp_status crfp_ckpt_write(crfp_host *host, const char *path, const crfp_ckpt_info *in,
                            const double *theta, const crfp_ckpt_piece *pieces, size_t npieces)
{
    if (crfp_dist_rank() != 0)
        return CRFP_OK;
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 40);
    if (!tmp)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    snprintf(tmp, plen + 40, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
    int fd = mkstemp(tmp);
    if (fd < 0) {
        crfp_status st = crfp_error(host, CRFP_EIO, "%s: cannot create a checkpoint: %s", tmp,
                                    strerror(errno));
        free(tmp);
        return st;
    }
    hasher hs = {UINT64_C(0xcbf29ce484222325), {0}, 0};
    uint64_t h[NHEAD];
    header(in, h);
    uint64_t state_len = 0;
    for (size_t i = 0; i < npieces; i++)
        state_len += pieces[i].len;
    h[5] = state_len;
    char name[256] = {0};
    size_t nl = h[8] < sizeof name ? (size_t)h[8] : sizeof name - 1;
    h[8] = nl;
    memcpy(name, in->trainer, nl);
    int bad = write_all(fd, MAGIC, 8, &hs) || write_all(fd, h, sizeof h, &hs) ||
              write_all(fd, name, (nl + 7) / 8 * 8, &hs) ||
              write_all(fd, in->book, in->nbook * sizeof *in->book, &hs) ||
              write_all(fd, theta, in->dim * sizeof *theta, &hs);
    for (size_t i = 0; i < npieces && !bad; i++)
        bad = write_all(fd, pieces[i].data, pieces[i].len, &hs);
    uint64_t sum = hash_end(&hs);
    if (!bad)
        bad = write_all(fd, &sum, 8, NULL);
    int err = bad ? errno : 0;
    if (!err && fsync(fd) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err) {
        unlink(tmp);
        free(tmp);
        return crfp_error(host, CRFP_EIO, "%s: cannot write the checkpoint: %s", path,
                          strerror(err));
    }
    free(tmp);
    /* The rename itself must reach the disk. */
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    if (dir) {
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
        int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    crfp_log(host, CRFP_LOG_INFO, "checkpoint after iteration %d written to %s (%.1f MB)",
             in->iter, path,
             (double)(in->dim * 8 + state_len) / 1048576.0);
    return CRFP_OK;
}

static int read_all(FILE *fp, void *p, size_t n, hasher *hs)
{
    if (n && fread(p, 1, n, fp) != n)
        return -1;
    hash_add(hs, p, n);
    return 0;
}

/* Rank 0's part of crfp_ckpt_read: the file into the outputs. */
static crfp_status read_file(crfp_host *host, const char *path, const crfp_ckpt_info *want,
                             double *theta, uint64_t h[NHEAD], void **state, int64_t *book)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return crfp_error(host, CRFP_EIO, "%s: cannot open the checkpoint: %s", path,
                          strerror(errno));
    hasher hs = {UINT64_C(0xcbf29ce484222325), {0}, 0};
    char magic[8], name[256];
    crfp_status st = CRFP_EFORMAT;
    const char *what = "truncated";
    if (read_all(fp, magic, 8, &hs) || read_all(fp, h, NHEAD * 8, &hs))
        goto out;
    what = "not a crfpipe checkpoint";
    if (memcmp(magic, MAGIC, 8) != 0 || h[0] != CKPT_VERSION || h[8] >= sizeof name)
        goto out;
    what = "truncated";
    if (read_all(fp, name, (size_t)(h[8] + 7) / 8 * 8, &hs))
        goto out;
    name[h[8]] = '\0';
    double r1, r2;
    memcpy(&r1, &h[6], 8);
    memcpy(&r2, &h[7], 8);
    if (h[1] != want->dim || h[2] != want->fingerprint) {
        st = crfp_error(host, CRFP_EFORMAT,
                        "%s: the checkpoint belongs to another model (%llu parameters, "
                        "dictionary %016llx; this run has %llu, %016llx): same training data, "
                        "template and options are needed to resume", path,
                        (unsigned long long)h[1], (unsigned long long)h[2],
                        (unsigned long long)want->dim, (unsigned long long)want->fingerprint);
        goto done;
    }
    if (strcmp(name, want->trainer) != 0 || r1 != want->rho1 || r2 != want->rho2 ||
        h[4] != want->nbook) {
        st = crfp_error(host, CRFP_EFORMAT,
                        "%s: the checkpoint was made by trainer '%s' with rho1 %g, rho2 %g; "
                        "this run uses '%s' with rho1 %g, rho2 %g", path, name, r1, r2,
                        want->trainer, want->rho1, want->rho2);
        goto done;
    }
    /* The sizes the header announces must add up to the file's before
     * anything is allocated: a crafted header cannot ask for memory (the
     * checksum guards against accidents, not against a file made to
     * match). */
    struct stat sb;
    uint64_t fixed = 8 + NHEAD * 8 + (h[8] + 7) / 8 * 8 + h[4] * 8 + want->dim * 8 + 8;
    if (fstat(fileno(fp), &sb) != 0 || sb.st_size < 0 || (uint64_t)sb.st_size < fixed ||
        h[5] != (uint64_t)sb.st_size - fixed || h[3] > INT_MAX) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: truncated or corrupted (%lld bytes, where its "
                        "header announces %llu bytes of trainer state after %llu of the rest, "
                        "iteration %llu)", path, (long long)sb.st_size,
                        (unsigned long long)h[5], (unsigned long long)fixed,
                        (unsigned long long)h[3]);
        goto done;
    }
    st = CRFP_ENOMEM;
    if (!(*state = malloc(h[5] ? (size_t)h[5] : 1)))
        goto done;
    st = CRFP_EFORMAT;
    if (read_all(fp, book, (size_t)h[4] * 8, &hs) || read_all(fp, theta, want->dim * 8, &hs) ||
        read_all(fp, *state, (size_t)h[5], &hs))
        goto out;
    uint64_t sum;
    if (fread(&sum, 1, 8, fp) != 8)
        goto out;
    what = "checksum mismatch (truncated or corrupted)";
    if (sum != hash_end(&hs) || fgetc(fp) != EOF)
        goto out;
    st = CRFP_OK;
    goto done;
out:
    st = crfp_error(host, CRFP_EFORMAT, "%s: %s", path, what);
done:
    if (st == CRFP_ENOMEM)
        st = crfp_error(host, st, "%s: out of memory reading the checkpoint", path);
    if (st != CRFP_OK) {
        free(*state);
        *state = NULL;
    }
    fclose(fp);
    return st;
}

crfp_status crfp_ckpt_read(crfp_host *host, const char *path, const crfp_ckpt_info *want,
                           double *theta, int *iter, void **state, size_t *state_len,
                           int64_t *book)
{
    uint64_t h[NHEAD] = {0};
    *state = NULL;
    *state_len = 0;
    crfp_status st = CRFP_OK;
    if (crfp_dist_rank() == 0)
        st = read_file(host, path, want, theta, h, state, book);
    /* Rank 0 read the file; the others get its contents, so that only one
     * machine needs to see the checkpoint. */
    int ok;
    crfp_status cs = crfp_comm_agree(host, st == CRFP_OK, &ok);
    if (cs != CRFP_OK || st != CRFP_OK || !ok) {
        /* the same file, the same verdict: rank 0 reports it */
        if (cs == CRFP_OK && crfp_dist_size() > 1)
            crfp_dist_set_failure_kind(crfp_dist_rank() == 0 ? CRFP_DIST_FAIL_HERE
                                                             : CRFP_DIST_FAIL_ELSEWHERE);
        free(*state);
        *state = NULL;
        return cs != CRFP_OK ? cs : st != CRFP_OK ? st : CRFP_EIO;
    }
    if ((st = crfp_comm_bcast(host, h, sizeof h, 0)) != CRFP_OK)
        return st;
    if (crfp_dist_rank() != 0 && !(*state = malloc(h[5] ? (size_t)h[5] : 1)))
        return crfp_error(host, CRFP_ENOMEM, "out of memory receiving the checkpoint");
    if ((st = crfp_comm_bcast(host, book, (size_t)h[4] * 8, 0)) != CRFP_OK ||
        (st = crfp_comm_bcast(host, theta, want->dim * 8, 0)) != CRFP_OK ||
        (st = crfp_comm_bcast(host, *state, (size_t)h[5], 0)) != CRFP_OK) {
        free(*state);
        *state = NULL;
        return st;
    }
    *iter = (int)(int64_t)h[3];
    *state_len = (size_t)h[5];
    return CRFP_OK;
}
