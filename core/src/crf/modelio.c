/* crfpipe — model files: save and load (dump.c prints them).
 *
 * Layout (all integers little-endian):
 *   "CRFPMODL"  u32 version
 *   u32 nlabels, then each label as u32 length + bytes
 *   u8 has_features; if 1: u32 length + plugin name, u64 length + config
 *   u32 nmeta, then key and value each as u32 length + bytes
 *   u32 nobs, then per observation: u32 length + bytes, u8 flags, and for
 *     each block it owns (unigram first): u8 encoding;
 *       0 sparse: u32 count, count × (u32 index in block, u64 IEEE bits),
 *                 indexes strictly increasing
 *       1 dense:  block size × u64 IEEE bits
 *   u64 checksum of everything before it (see checksum64)
 * Only observations and blocks with a non-zero weight are written, so a
 * loaded model is smaller than the trained one but scores identically.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "crf_impl.h"
#include "crfpipe/alloc.h"
#include "crfpipe/host.h"
#include "crfpipe/outfile.h"

#define MAGIC "CRFPMODL"
#define VERSION 1u

/* FNV-1a-style mixing of 64-bit little-endian words in four interleaved
 * lanes (so the multiplies do not wait on each other), the lanes and the
 * tail bytes folded at the end: verifying a 60 MB model costs a few
 * milliseconds, not a tenth of a second. */
static inline uint64_t load_le64(const unsigned char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

static uint64_t checksum64(const unsigned char *p, size_t n)
{
    const uint64_t prime = 0x100000001b3ULL;
    uint64_t h[4] = {CRFP_FNV64_INIT, CRFP_FNV64_INIT ^ 1, CRFP_FNV64_INIT ^ 2,
                     CRFP_FNV64_INIT ^ 3};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++)
            h[k] = (h[k] ^ load_le64(p + i + 8 * (size_t)k)) * prime;
    uint64_t r = CRFP_FNV64_INIT;
    for (int k = 0; k < 4; k++)
        r = (r ^ h[k]) * prime;
    for (; i < n; i++)
        r = (r ^ p[i]) * prime;
    return r;
}

/* --- writing --------------------------------------------------------------- */

typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    int oom;
} wbuf;

static unsigned char *wreserve(wbuf *b, size_t k)
{
    if (b->oom)
        return NULL;
    if (b->n + k > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->n + k)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    unsigned char *at = b->p + b->n;
    b->n += k;
    return at;
}

static void put_le(wbuf *b, uint64_t v, int bytes)
{
    unsigned char *p = wreserve(b, (size_t)bytes);
    if (!p)
        return;
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_bytes(wbuf *b, const void *s, size_t n)
{
    unsigned char *p = wreserve(b, n);
    if (p && n)
        memcpy(p, s, n);
}

static void put_str32(wbuf *b, const char *s, size_t n)
{
    put_le(b, n, 4);
    put_bytes(b, s, n);
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void put_block(wbuf *b, const double *w, size_t size)
{
    size_t nnz = 0;
    for (size_t i = 0; i < size; i++)
        nnz += w[i] != 0.0 || dbits(w[i]) != 0;
    /* A sparse entry costs 12 bytes, a dense one 8. */
    if (nnz * 3 > size * 2) {
        put_le(b, 1, 1);
        unsigned char *p = wreserve(b, size * 8);
        if (!p)
            return;
        for (size_t i = 0; i < size; i++) {
            uint64_t u = dbits(w[i]);
            for (int k = 0; k < 8; k++)
                p[i * 8 + (size_t)k] = (unsigned char)(u >> (8 * k));
        }
        return;
    }
    put_le(b, 0, 1);
    put_le(b, nnz, 4);
    for (size_t i = 0; i < size; i++)
        if (w[i] != 0.0 || dbits(w[i]) != 0) {
            put_le(b, i, 4);
            put_le(b, dbits(w[i]), 8);
        }
}

static int block_nonzero(const double *w, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (w[i] != 0.0 || dbits(w[i]) != 0)
            return 1;
    return 0;
}

static void serialise(const crfp_crf *crf, wbuf *b)
{
    uint32_t Y = crf->Y;
    put_bytes(b, MAGIC, 8);
    put_le(b, VERSION, 4);
    put_le(b, Y, 4);
    for (uint32_t y = 0; y < Y; y++) {
        size_t n;
        const char *s = crfp_dict_str(&crf->labels, y, &n);
        put_str32(b, s, n);
    }
    put_le(b, crf->fplugin != NULL, 1);
    if (crf->fplugin) {
        put_str32(b, crf->fplugin, strlen(crf->fplugin));
        put_le(b, crf->fconfig_len, 8);
        put_bytes(b, crf->fconfig, crf->fconfig_len);
    }
    put_le(b, crf->nmeta, 4);
    for (size_t i = 0; i < crf->nmeta; i++) {
        put_str32(b, crf->meta_k[i], strlen(crf->meta_k[i]));
        put_str32(b, crf->meta_v[i], strlen(crf->meta_v[i]));
    }
    size_t count_at = b->n;
    put_le(b, 0, 4);
    uint32_t nobs = 0;
    size_t usz = Y, bsz = ((size_t)Y + 1) * Y;
    for (uint32_t o = 0; o < crf->obs.n; o++) {
        const double *uw = crf->ublk[o] != CRFP_NO_BLOCK ? crf->w + crf->ublk[o] : NULL;
        const double *bw = crf->bblk[o] != CRFP_NO_BLOCK ? crf->w + crf->bblk[o] : NULL;
        unsigned flags = 0;
        if (uw && block_nonzero(uw, usz))
            flags |= CRFP_OBS_UNIGRAM;
        if (bw && block_nonzero(bw, bsz))
            flags |= CRFP_OBS_BIGRAM;
        if (!flags)
            continue;
        size_t n;
        const char *s = crfp_dict_str(&crf->obs, o, &n);
        put_str32(b, s, n);
        put_le(b, flags, 1);
        if (flags & CRFP_OBS_UNIGRAM)
            put_block(b, uw, usz);
        if (flags & CRFP_OBS_BIGRAM)
            put_block(b, bw, bsz);
        nobs++;
    }
    if (!b->oom)
        for (int k = 0; k < 4; k++)
            b->p[count_at + (size_t)k] = (unsigned char)(nobs >> (8 * k));
    if (!b->oom)
        put_le(b, checksum64(b->p, b->n), 8);
}

crfp_status crfp_crf_check_save_path(crfp_host *host, const char *path)
{
    if (!path || !*path)
        return crfp_error(host, CRFP_EINVAL, "no model file named");
    struct stat sb;
    if (stat(path, &sb) == 0) {
        /* The model replaces a regular file by rename; anything else would
         * be destroyed (a device, a FIFO another program waits on) or
         * cannot be replaced (a directory). */
        if (S_ISDIR(sb.st_mode))
            return crfp_error(host, CRFP_EIO, "%s: is a directory, not a model file", path);
        if (!S_ISREG(sb.st_mode))
            return crfp_error(host, CRFP_EINVAL,
                              "%s: is %s; a model is written only as a regular file", path,
                              S_ISFIFO(sb.st_mode)                            ? "a FIFO"
                              : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device"
                              : S_ISSOCK(sb.st_mode)                          ? "a socket"
                                                                              : "not a regular file");
    } else if (errno != ENOENT && errno != ENOTDIR) {
        /* (ENOTDIR: the directory check below says which part is not one.) */
        return crfp_error(host, errno == ENOMEM ? CRFP_ENOMEM : CRFP_EIO, "%s: %s", path,
                          strerror(errno));
    }
    /* The temporary is created, and renamed, in the model's directory. */
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", path);
    crfp_status st = CRFP_OK;
    if (stat(dir, &sb) != 0)
        st = crfp_error(host, errno == ENOMEM ? CRFP_ENOMEM : CRFP_EIO,
                        "%s: cannot write the model there: directory %s: %s", path, dir,
                        strerror(errno));
    else if (!S_ISDIR(sb.st_mode))
        st = crfp_error(host, CRFP_EIO, "%s: cannot write the model there: %s is not a directory",
                        path, dir);
    else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
        st = crfp_error(host, CRFP_EIO, "%s: cannot write the model there: directory %s: %s",
                        path, dir, strerror(errno));
    free(dir);
    return st;
}

/* Write all of buf to fd, retrying short writes. */
static int write_all(int fd, const unsigned char *buf, size_t n)
{
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (w == 0)
            return EIO;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The first weight that is NaN or infinite, or SIZE_MAX.  A model never
 * holds one: scores would compare as NaN and Viterbi would answer label 0
 * everywhere without a word, so save refuses them and load reports them. */
static size_t first_nonfinite(const crfp_crf *crf)
{
    for (size_t i = 0; i < crf->nparams; i++)
        if (!isfinite(crf->w[i]))
            return i;
    return SIZE_MAX;
}

crfp_status crfp_crf_save(crfp_host *host, const crfp_crf *crf, const char *path)
{
    if (!crf || !path)
        return crfp_error(host, CRFP_EINVAL, "crf: save: NULL argument");
    if (!crf->final)
        return crfp_error(host, CRFP_EINVAL, "%s: cannot save a model that is not finalized",
                          path);
    size_t bad = first_nonfinite(crf);
    if (bad != SIZE_MAX)
        return crfp_error(host, CRFP_EINVAL, "%s: weight %zu of the model is not finite (%g): "
                          "its training diverged; nothing was written", path, bad, crf->w[bad]);
    crfp_status st = crfp_crf_check_save_path(host, path);
    if (st != CRFP_OK)
        return st;
    wbuf b = {0};
    serialise(crf, &b);
    if (b.oom) {
        free(b.p);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory serialising the model", path);
    }
    st = crfp_model_write(host, path, b.p, b.n);
    free(b.p);
    return st;
}

crfp_status crfp_model_write(crfp_host *host, const char *path, const void *buf, size_t n)
{
    /* A temporary named after this process (so that a later run can tell
     * it from one left by a run that died, and remove that), with the mode
     * the model will have: an existing model's, else what the umask
     * allows. */
    char *tmp;
    int fd;
    crfp_status st = crfp_outfile_begin(host, path, &tmp, &fd);
    if (st != CRFP_OK)
        return st;
    int err = write_all(fd, buf, n);
    if (err) {
        close(fd);
        unlink(tmp);
        free(tmp);
        return crfp_error(host, CRFP_EIO, "%s: cannot write model: %s", path, strerror(err));
    }
    /* fsync the file, rename, fsync the directory. */
    st = crfp_outfile_commit(host, fd, tmp, path);
    free(tmp);
    return st;
}

/* --- reading ---------------------------------------------------------------
 *
 * The file is streamed through one small buffer, never held whole: a loaded
 * model then costs what it keeps (weights, dictionary, layout) and not also
 * the file's size on top (tagging CoNLL-2000 peaked at 172 MB with a 66 MB
 * buffer next to the 60 MB of weights).  Two sequential passes, the second
 * from the page cache:
 *   1. the structure: labels, features, metadata, observations and their
 *      flags, every block validated but not stored, and the checksum of
 *      every byte read.  When it fails, the rest of the file still goes
 *      through the checksum, and a mismatch is reported rather than the
 *      parse error, as when the whole file was verified before parsing:
 *      a damaged file is called damaged, wherever the damage lies.  Then
 *      the layout and the zeroed weights (crfp_crf_finalize);
 *   2. the weights, into their blocks.
 * The file may change between passes (another process writing it in
 * place): pass 2 checks again everything it relies on (flags, block
 * encodings, indexes), so a change can never make it write out of bounds,
 * and the file's size, modification and change times, taken again after
 * it, must be those of the start, so that a model never mixes two
 * versions of a file.  (Checksumming pass 2 as well cost 2 % of the
 * instructions of tagging CoNLL-2000's test set end to end.) */

/* Large enough that reads are few (130 for a 66 MB model per pass), small
 * enough not to matter next to the model: one plain allocation, reused by
 * both passes. */
#define RBUF_CAP ((size_t)1 << 19)

/* The checksum of checksum64, fed in pieces of any size. */
typedef struct cksum {
    uint64_t h[4];
    unsigned char carry[32];
    size_t ncarry;
} cksum;

static void ck_init(cksum *c)
{
    c->h[0] = CRFP_FNV64_INIT;
    c->h[1] = CRFP_FNV64_INIT ^ 1;
    c->h[2] = CRFP_FNV64_INIT ^ 2;
    c->h[3] = CRFP_FNV64_INIT ^ 3;
    c->ncarry = 0;
}

static inline void ck_group(cksum *c, const unsigned char *p)
{
    const uint64_t prime = 0x100000001b3ULL;
    for (int k = 0; k < 4; k++)
        c->h[k] = (c->h[k] ^ load_le64(p + 8 * (size_t)k)) * prime;
}

static void ck_feed(cksum *c, const unsigned char *p, size_t n)
{
    const uint64_t prime = 0x100000001b3ULL;
    if (c->ncarry) {
        size_t k = 32 - c->ncarry < n ? 32 - c->ncarry : n;
        memcpy(c->carry + c->ncarry, p, k);
        c->ncarry += k;
        p += k;
        n -= k;
        if (c->ncarry < 32)
            return;
        ck_group(c, c->carry);
        c->ncarry = 0;
    }
    /* the lanes in locals: through c they would be reloaded after every
     * byte load, which may alias them */
    uint64_t h[4] = {c->h[0], c->h[1], c->h[2], c->h[3]};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++)
            h[k] = (h[k] ^ load_le64(p + i + 8 * (size_t)k)) * prime;
    memcpy(c->h, h, sizeof h);
    p += i;
    n -= i;
    memcpy(c->carry, p, n);
    c->ncarry = n;
}

static uint64_t ck_final(const cksum *c)
{
    const uint64_t prime = 0x100000001b3ULL;
    uint64_t r = CRFP_FNV64_INIT;
    for (int k = 0; k < 4; k++)
        r = (r ^ c->h[k]) * prime;
    for (size_t i = 0; i < c->ncarry; i++)
        r = (r ^ c->carry[i]) * prime;
    return r;
}

/* The parser's view of the file: absolute offsets, as the error messages
 * give them.  The buffer holds the file's bytes [b0, b0 + blen); every byte
 * read from the file goes through the checksum once, in order. */
typedef struct rbuf {
    int fd;
    size_t n;   /* bytes before the stored checksum: the parse limit */
    size_t at;  /* next byte to parse */
    unsigned char *b;
    size_t b0, blen;
    cksum ck;
    int sum;    /* feed the checksum (pass 1) */
    unsigned char *big; /* spans longer than the buffer */
    size_t bigcap;
    int bad;    /* 1 malformed or truncated, 2 out of memory, 3 read error */
} rbuf;

/* Exactly n bytes at offset `at`: 0, or -1 on an error or a short file. */
static int read_at(int fd, void *dst, size_t n, size_t at)
{
    unsigned char *d = dst;
    while (n) {
        ssize_t got = pread(fd, d, n, (off_t)at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        d += got;
        at += (size_t)got;
        n -= (size_t)got;
    }
    return 0;
}

/* Start a pass at byte 0 (the buffer is kept). */
static void rb_rewind(rbuf *r)
{
    r->at = 0;
    r->b0 = 0;
    r->blen = 0;
    ck_init(&r->ck);
}

/* Make [at, at + k) available in the buffer (k <= RBUF_CAP, at + k <= n),
 * reading as much as fits. */
static int rb_fill(rbuf *r, size_t k)
{
    if (r->at + k <= r->b0 + r->blen)
        return 0;
    size_t keep = r->b0 + r->blen - r->at; /* at never passes the buffer's end */
    memmove(r->b, r->b + (r->at - r->b0), keep);
    r->b0 = r->at;
    r->blen = keep;
    size_t want = RBUF_CAP - keep, left = r->n - (r->b0 + keep);
    if (want > left)
        want = left;
    while (want) {
        ssize_t got = pread(r->fd, r->b + r->blen, want, (off_t)(r->b0 + r->blen));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            /* an error, or the file shrank since fstat */
            r->bad = 3;
            return -1;
        }
        if (r->sum)
            ck_feed(&r->ck, r->b + r->blen, (size_t)got);
        r->blen += (size_t)got;
        want -= (size_t)got;
    }
    return 0;
}

static uint64_t get_le(rbuf *r, int bytes)
{
    if (r->bad || r->n - r->at < (size_t)bytes) {
        if (!r->bad)
            r->bad = 1;
        return 0;
    }
    /* the common case, inline: the bytes are in the buffer */
    if (r->at + (size_t)bytes > r->b0 + r->blen && rb_fill(r, (size_t)bytes))
        return 0;
    const unsigned char *p = r->b + (r->at - r->b0);
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    r->at += (size_t)bytes;
    return v;
}

/* Pass over n bytes (through the checksum). */
static int skip(rbuf *r, size_t n)
{
    if (r->bad || r->n - r->at < n) {
        if (!r->bad)
            r->bad = 1;
        return -1;
    }
    while (n) {
        size_t avail = r->b0 + r->blen - r->at;
        if (!avail) {
            if (rb_fill(r, 1))
                return -1;
            continue;
        }
        size_t k = avail < n ? avail : n;
        r->at += k;
        n -= k;
    }
    return 0;
}

/* Copy the next n bytes to dst. */
static int get_into(rbuf *r, void *dst, size_t n)
{
    if (r->bad || r->n - r->at < n) {
        if (!r->bad)
            r->bad = 1;
        return -1;
    }
    unsigned char *d = dst;
    while (n) {
        size_t avail = r->b0 + r->blen - r->at;
        if (!avail) {
            if (rb_fill(r, 1))
                return -1;
            continue;
        }
        size_t k = avail < n ? avail : n;
        memcpy(d, r->b + (r->at - r->b0), k);
        d += k;
        r->at += k;
        n -= k;
    }
    return 0;
}

/* The next n bytes, valid until the next read from r. */
static const char *get_bytes(rbuf *r, size_t n)
{
    if (r->bad || r->n - r->at < n) {
        if (!r->bad)
            r->bad = 1;
        return NULL;
    }
    if (n <= RBUF_CAP) {
        if (r->at + n > r->b0 + r->blen && rb_fill(r, n))
            return NULL;
        const char *s = (const char *)r->b + (r->at - r->b0);
        r->at += n;
        return s;
    }
    /* Longer than the buffer (a large feature configuration, or a forged
     * length within the file's size): bounded by the file, as before. */
    if (n > r->bigcap) {
        unsigned char *t = realloc(r->big, n);
        if (!t) {
            r->bad = 2;
            return NULL;
        }
        r->big = t;
        r->bigcap = n;
    }
    return get_into(r, r->big, n) ? NULL : (const char *)r->big;
}

static double get_double(rbuf *r)
{
    uint64_t u = get_le(r, 8);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* A string copied to a NUL-terminated scratch buffer (*tmp grows); with
 * nul_ok = 0 a string holding a NUL is malformed. */
static const char *get_str(rbuf *r, size_t n, char **tmp, size_t *cap, int nul_ok)
{
    const char *s = get_bytes(r, n);
    if (!s)
        return NULL;
    if (n + 1 > *cap) {
        char *t = realloc(*tmp, n + 1);
        if (!t) {
            r->bad = 2;
            return NULL;
        }
        *tmp = t;
        *cap = n + 1;
    }
    memcpy(*tmp, s, n);
    (*tmp)[n] = '\0';
    if (!nul_ok && memchr(*tmp, '\0', n)) {
        r->bad = 1;
        return NULL;
    }
    return *tmp;
}

static const char *get_cstr(rbuf *r, size_t n, char **tmp, size_t *cap)
{
    return get_str(r, n, tmp, cap, 0);
}

/* Skip and validate (pass 1, w NULL) or read into w (pass 2) one weight
 * block of `size`.  Pass 2 checks again what pass 1 validated, since the
 * file may have changed in between: -1 then, never a write outside w. */
static int read_block(rbuf *r, size_t size, double *w)
{
    unsigned enc = (unsigned)get_le(r, 1);
    if (r->bad)
        return -1;
    if (enc == 1) {
        if (r->n - r->at < size * 8)
            return r->bad = 1, -1;
        if (w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* The file's byte order is the host's: the block is the array. */
            return get_into(r, w, size * 8);
#else
            for (size_t i = 0; i < size; i++)
                w[i] = get_double(r);
            return r->bad ? -1 : 0;
#endif
        }
        return skip(r, size * 8);
    }
    if (enc != 0)
        return r->bad = 1, -1;
    uint64_t cnt = get_le(r, 4);
    /* The writer leaves all-zero blocks out, so an empty sparse block is
     * forged: it would cost 5 bytes of file for `size` weights of memory. */
    if (r->bad || cnt == 0 || cnt > size || (r->n - r->at) / 12 < cnt)
        return r->bad = 1, -1;
    uint64_t prev = 0;
    for (uint64_t k = 0; k < cnt; k++) {
        uint64_t i = get_le(r, 4);
        double v = get_double(r);
        if (r->bad || i >= size || (k && i <= prev))
            return r->bad = 1, -1;
        if (w)
            w[i] = v;
        prev = i;
    }
    return 0;
}

/* Pass 1: the n bytes before the checksum, up to the layout, leaving the zeroed weights to pass 2; *obs_at receives the
 * offset of the first observation. */
static crfp_status parse(crfp_host *host, const char *path, rbuf *r, crfp_crf **out,
                         size_t *obs_at)
{
    size_t n = r->n;
    crfp_crf *crf = crfp_crf_new();
    char *tmp = NULL;
    size_t tcap = 0;
    const char *what = "truncated";
    crfp_status st = CRFP_EFORMAT;
    if (!crf)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", path);
    skip(r, 12);
    uint64_t Y = get_le(r, 4);
    if (r->bad || Y > 65535 || Y > (n - r->at) / 4) {
        what = "label count out of range";
        goto fail;
    }
    size_t maxY = crfp_host_limit(host, CRFP_LIMIT_MODEL_LABELS);
    if (maxY && Y > maxY) {
        crfp_crf_free(crf);
        return crfp_error(host, CRFP_EFORMAT,
                          "%s: %llu labels, more than the limit model-labels=%zu (raise it with "
                          "--limit model-labels=N or CRFPIPE_LIMITS=model-labels=N if the model "
                          "is trusted)",
                          path, (unsigned long long)Y, maxY);
    }
    for (uint64_t y = 0; y < Y; y++) {
        uint64_t len = get_le(r, 4);
        const char *s = get_cstr(r, len, &tmp, &tcap);
        if (!s)
            goto fail;
        uint32_t id;
        if (crfp_crf_label_id(crf, s) >= 0) {
            what = "duplicate label";
            goto fail;
        }
        if ((st = crfp_crf_add_label(crf, s, &id)) != CRFP_OK)
            goto fail;
        st = CRFP_EFORMAT;
    }
    uint64_t hasf = get_le(r, 1);
    if (hasf > 1) {
        what = "bad features flag";
        goto fail;
    }
    if (hasf) {
        uint64_t len = get_le(r, 4);
        const char *s = get_cstr(r, len, &tmp, &tcap);
        if (!s)
            goto fail;
        char *name = strdup(s);
        uint64_t clen = get_le(r, 8);
        const char *c = name ? get_bytes(r, clen) : NULL;
        if (!name || !c) {
            if (!name)
                st = CRFP_ENOMEM; /* not "truncated" */
            free(name);
            goto fail;
        }
        st = crfp_crf_set_features(crf, name, c, clen);
        free(name);
        if (st != CRFP_OK)
            goto fail;
        st = CRFP_EFORMAT;
    }
    uint64_t nmeta = get_le(r, 4);
    if (r->bad || nmeta > (n - r->at) / 8) {
        what = "metadata count out of range";
        goto fail;
    }
    for (uint64_t i = 0; i < nmeta; i++) {
        uint64_t klen = get_le(r, 4);
        const char *k = get_cstr(r, klen, &tmp, &tcap);
        char *key = k ? strdup(k) : NULL;
        if (k && !key) {
            st = CRFP_ENOMEM; /* not "truncated" */
            goto fail;
        }
        uint64_t vlen = get_le(r, 4);
        const char *v = key ? get_cstr(r, vlen, &tmp, &tcap) : NULL;
        if (!v) {
            free(key);
            goto fail;
        }
        st = crfp_crf_set_meta(crf, key, v);
        free(key);
        if (st != CRFP_OK)
            goto fail;
        st = CRFP_EFORMAT;
    }
    uint64_t nobs = get_le(r, 4);
    if (r->bad || nobs > (n - r->at) / 6) {
        what = "observation count out of range";
        goto fail;
    }
    *obs_at = r->at;
    if (crfp_dict_reserve(&crf->obs, nobs, 0) != CRFP_OK) {
        st = CRFP_ENOMEM;
        goto fail;
    }
    size_t usz = Y, bsz = (Y + 1) * Y;
    /* Weights the loaded model will allocate and zero: bounded before
     * anything is allocated, since a sparse block of one weight stands for
     * a whole block in memory ((Y+1)·Y doubles for a bigram observation). */
    uint64_t nparams = 0;
    size_t maxp = crfp_host_limit(host, CRFP_LIMIT_MODEL_PARAMS);
    for (uint64_t i = 0; i < nobs; i++) {
        uint64_t len = get_le(r, 4);
        /* copied: reading the flags may move the buffer */
        const char *s = get_str(r, len, &tmp, &tcap, 1);
        unsigned flags = (unsigned)get_le(r, 1);
        if (r->bad)
            goto fail;
        if (flags == 0 || (flags & ~3u) || Y == 0) {
            what = "bad observation flags";
            goto fail;
        }
        uint32_t id, before = crf->obs.n;
        if ((st = crfp_crf_add_obs(crf, s, len, flags, &id)) != CRFP_OK)
            goto fail;
        st = CRFP_EFORMAT;
        if (crf->obs.n == before) {
            what = "duplicate observation";
            goto fail;
        }
        nparams += ((flags & CRFP_OBS_UNIGRAM) ? usz : 0) + ((flags & CRFP_OBS_BIGRAM) ? bsz : 0);
        if ((maxp && nparams > maxp) || nparams > SIZE_MAX / sizeof(double)) {
            free(tmp);
            crfp_crf_free(crf);
            return crfp_error(host, CRFP_EFORMAT,
                              "%s: the model needs more than %llu weights (%.1f GB), more than "
                              "the limit model-params=%zu (raise it with --limit model-params=N "
                              "or CRFPIPE_LIMITS=model-params=N if the model is trusted)",
                              path, (unsigned long long)nparams, nparams * 8.0 / 1e9, maxp);
        }
        if ((flags & CRFP_OBS_UNIGRAM) && read_block(r, usz, NULL))
            goto fail;
        if ((flags & CRFP_OBS_BIGRAM) && read_block(r, bsz, NULL))
            goto fail;
    }
    if (r->at != n) {
        what = "trailing bytes before the checksum";
        goto fail;
    }
    /* before the weights exist, so that the copy does not add to the peak */
    if ((st = crfp_dict_shrink(&crf->obs)) != CRFP_OK ||
        (st = crfp_crf_finalize(crf)) != CRFP_OK)
        goto fail;
    free(tmp);
    *out = crf;
    return CRFP_OK;
fail:
    free(tmp);
    crfp_crf_free(crf);
    if (r->bad == 3)
        return crfp_error(host, CRFP_EIO, "%s: read error", path);
    if (r->bad == 2 || st == CRFP_ENOMEM)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory loading the model", path);
    if (st != CRFP_EFORMAT)
        return crfp_error(host, CRFP_EFORMAT, "%s: invalid model: %s", path, crfp_status_str(st));
    return crfp_error(host, CRFP_EFORMAT, "%s: corrupt model file: %s at byte %zu", path, what,
                      r->at);
}

/* Pass 2: the weights of a model pass 1 laid out, from the same file
 * again.  Everything before the observations was checked by pass 1 and is
 * only skipped (through the checksum); each observation must come back with
 * the flags pass 1 saw.  Returns 0, or -1 with r->bad set. */
static int read_weights(rbuf *r, crfp_crf *crf, size_t obs_at)
{
    size_t usz = crf->Y, bsz = ((size_t)crf->Y + 1) * crf->Y;
    if (skip(r, obs_at))
        return -1;
    for (uint32_t i = 0; i < crf->obs.n; i++) {
        uint64_t len = get_le(r, 4);
        if (r->bad || skip(r, len))
            return -1;
        unsigned flags = (unsigned)get_le(r, 1);
        if (r->bad || flags != crf->oflags[i])
            return r->bad = 1, -1;
        if (crf->ublk[i] != CRFP_NO_BLOCK && read_block(r, usz, crf->w + crf->ublk[i]))
            return -1;
        if (crf->bblk[i] != CRFP_NO_BLOCK && read_block(r, bsz, crf->w + crf->bblk[i]))
            return -1;
    }
    return r->at == r->n ? 0 : (r->bad = 1, -1);
}

crfp_status crfp_model_open(crfp_host *host, const char *path, int *fd, struct stat *out)
{
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer,
     * forever if none comes; the type is checked on the descriptor. */
    int d = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (d < 0)
        return crfp_error(host, errno == ENOENT ? CRFP_ENOTFOUND
                                : errno == ENOMEM ? CRFP_ENOMEM : CRFP_EIO,
                          "%s: cannot open model: %s", path,
                          errno == ENOMEM ? "out of memory" : strerror(errno));
    struct stat sb;
    if (fstat(d, &sb) != 0) {
        int e = errno;
        close(d);
        return crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        int isdir = S_ISDIR(sb.st_mode), isfifo = S_ISFIFO(sb.st_mode);
        close(d);
        return crfp_error(host, CRFP_EIO, "%s: %s", path,
                          isdir    ? "is a directory, not a model file"
                          : isfifo ? "is a FIFO; a model is read only from a regular file"
                                   : "not a regular file");
    }
    int fl = fcntl(d, F_GETFL);
    if (fl < 0 || fcntl(d, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(d);
        return crfp_error(host, CRFP_EIO, "%s: cannot open model: %s", path, strerror(e));
    }
    *fd = d;
    *out = sb;
    return CRFP_OK;
}

int crfp_crf_is_crfpipe(const void *head, size_t n)
{
    return n >= 8 && memcmp(head, MAGIC, 8) == 0;
}

size_t crfp_crf_file_head(const char *path, void *head, size_t n)
{
    ssize_t got = 0;
    /* non-blocking, and regular files only: a FIFO must not hang the peek */
    int fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) : -1;
    if (fd >= 0) {
        struct stat sb;
        if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
            do
                got = read(fd, head, n);
            while (got < 0 && errno == EINTR);
        close(fd);
    }
    return got > 0 ? (size_t)got : 0;
}

crfp_status crfp_import_params_check(crfp_host *host, const char *path, uint64_t nparams)
{
    size_t maxp = crfp_host_limit(host, CRFP_LIMIT_MODEL_PARAMS);
    if (!maxp || nparams <= maxp)
        return CRFP_OK;
    return crfp_error(host, CRFP_EFORMAT,
                      "%s: the model needs at least %llu weights, more than the limit "
                      "model-params=%zu (--limit model-params=N if the model is trusted)",
                      path, (unsigned long long)nparams, maxp);
}

crfp_status crfp_model_read_all(crfp_host *host, const char *path, unsigned char **buf,
                                size_t *n)
{
    *buf = NULL;
    int fd;
    struct stat sb;
    crfp_status st = crfp_model_open(host, path, &fd, &sb);
    if (st != CRFP_OK)
        return st;
    size_t size = (size_t)sb.st_size;
    /* one byte more: the text formats end their last line with a NUL */
    unsigned char *b = malloc(size + 1);
    if (!b) {
        close(fd);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory reading %zu bytes", path, size);
    }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, b + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != size) {
        free(b);
        return crfp_error(host, CRFP_EIO, "%s: read error (the file changed or shrank)", path);
    }
    b[size] = '\0';
    *buf = b;
    *n = size;
    return CRFP_OK;
}

crfp_status crfp_crf_load(crfp_host *host, const char *path, crfp_crf **out)
{
    if (!path || !out)
        return crfp_error(host, CRFP_EINVAL, "crf: load: NULL argument");
    *out = NULL;
    int fd;
    struct stat sb;
    crfp_status ost = crfp_model_open(host, path, &fd, &sb);
    if (ost != CRFP_OK)
        return ost;
    size_t n = (size_t)sb.st_size;
    rbuf r = {.fd = fd, .n = n, .sum = 1};
    r.b = malloc(RBUF_CAP);
    if (!r.b) {
        close(fd);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory reading %zu bytes", path, n);
    }
    crfp_status st;
    unsigned char head[12] = {0}, tail[8];
    /* The magic, the version and the stored checksum, which pass 1 checks
     * everything before it against.  A file shorter than the head is read
     * as far as it goes (the rest stays zero), so that the magic is never
     * compared with bytes that were not read. */
    if ((n > 0 && read_at(fd, head, n < 12 ? n : 12, 0)) ||
        (n >= 20 && read_at(fd, tail, 8, n - 8))) {
        st = crfp_error(host, CRFP_EIO, "%s: read error", path);
    } else if (n >= 12 && crfp_crf_is_crfsuite(head, 12)) {
        st = crfp_error(host, CRFP_EFORMAT,
                        "%s: a CRFsuite model, not a crfpipe one: convert it once with "
                        "'crfpipe model import %s -o MODEL' (Python: Tagger.open reads it as it "
                        "is)", path, path);
    } else if (n >= 12 && crfp_crf_is_wapiti(head, 12)) {
        st = crfp_error(host, CRFP_EFORMAT,
                        "%s: a Wapiti model, not a crfpipe one: convert it once with "
                        "'crfpipe model import %s -o MODEL'", path, path);
    } else if (n >= 12 && crfp_crf_is_crfpp(head, 12)) {
        st = crfp_error(host, CRFP_EFORMAT,
                        "%s: a CRF++ model, not a crfpipe one: convert it once with "
                        "'crfpipe model import %s -o MODEL'", path, path);
    } else if (!crfp_crf_is_crfpipe(head, n)) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: not a crfpipe model (bad magic)", path);
    } else if (n < 12 + 8) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: truncated model file (%zu bytes)", path, n);
    } else {
        uint32_t ver = (uint32_t)head[8] | (uint32_t)head[9] << 8 | (uint32_t)head[10] << 16 |
                       (uint32_t)head[11] << 24;
        uint64_t want = load_le64(tail);
        size_t obs_at = 0;
        r.n = n - 8;
        rb_rewind(&r);
        if (ver != VERSION) {
            st = crfp_error(host, CRFP_EFORMAT,
                            "%s: model format version %lu, this build reads version %u", path,
                            (unsigned long)ver, VERSION);
        } else if ((st = parse(host, path, &r, out, &obs_at)) != CRFP_OK) {
            /* parse() reported; unless reading failed, the checksum of the
             * whole file decides whether that report stands */
            if (r.bad != 3) {
                r.bad = 0;
                skip(&r, r.n - r.at);
                if (r.bad)
                    st = crfp_error(host, CRFP_EIO, "%s: read error", path);
                else if (ck_final(&r.ck) != want)
                    st = crfp_error(host, CRFP_EFORMAT,
                                    "%s: checksum mismatch (file truncated or corrupted)", path);
            }
        } else if (ck_final(&r.ck) != want) {
            crfp_crf_free(*out);
            *out = NULL;
            st = crfp_error(host, CRFP_EFORMAT,
                            "%s: checksum mismatch (file truncated or corrupted)", path);
        } else {
            rb_rewind(&r);
            r.sum = 0;
            struct stat sa;
            if (read_weights(&r, *out, obs_at) != 0 || fstat(fd, &sa) != 0 ||
                sa.st_size != sb.st_size || sa.st_mtim.tv_sec != sb.st_mtim.tv_sec ||
                sa.st_mtim.tv_nsec != sb.st_mtim.tv_nsec ||
                sa.st_ctim.tv_sec != sb.st_ctim.tv_sec ||
                sa.st_ctim.tv_nsec != sb.st_ctim.tv_nsec) {
                crfp_crf_free(*out);
                *out = NULL;
                st = r.bad == 3 ? crfp_error(host, CRFP_EIO, "%s: read error", path)
                                : crfp_error(host, CRFP_EFORMAT,
                                             "%s: the model file changed while it was being "
                                             "read", path);
            } else {
                size_t bad = first_nonfinite(*out);
                if (bad != SIZE_MAX) {
                    st = crfp_error(host, CRFP_EFORMAT, "%s: weight %zu is not finite (%g): "
                                    "a model's weights are finite numbers", path, bad,
                                    (*out)->w[bad]);
                    crfp_crf_free(*out);
                    *out = NULL;
                }
            }
        }
    }
    free(r.b);
    free(r.big);
    close(fd);
    return st;
}
