/* crfpipe — model files: save, load, dump.
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

crfp_status crfp_crf_save(crfp_host *host, const crfp_crf *crf, const char *path)
{
    if (!crf || !path)
        return crfp_error(host, CRFP_EINVAL, "crf: save: NULL argument");
    if (!crf->final)
        return crfp_error(host, CRFP_EINVAL, "%s: cannot save a model that is not finalized",
                          path);
    crfp_status st = crfp_crf_check_save_path(host, path);
    if (st != CRFP_OK)
        return st;
    wbuf b = {0};
    serialise(crf, &b);
    if (b.oom) {
        free(b.p);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory serialising the model", path);
    }
    /* A temporary named after this process (so that a later run can tell
     * it from one left by a run that died, and remove that), with the mode
     * the model will have: an existing model's, else what the umask
     * allows. */
    char *tmp;
    int fd;
    if ((st = crfp_outfile_begin(host, path, &tmp, &fd)) != CRFP_OK) {
        free(b.p);
        return st;
    }
    int err = write_all(fd, b.p, b.n);
    free(b.p);
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

/* --- reading --------------------------------------------------------------- */

typedef struct rbuf {
    const unsigned char *p;
    size_t n, at;
    int bad;
} rbuf;

static uint64_t get_le(rbuf *r, int bytes)
{
    if (r->bad || r->n - r->at < (size_t)bytes) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | r->p[r->at + (size_t)i];
    r->at += (size_t)bytes;
    return v;
}

static const char *get_bytes(rbuf *r, size_t n)
{
    if (r->bad || r->n - r->at < n) {
        r->bad = 1;
        return NULL;
    }
    const char *s = (const char *)r->p + r->at;
    r->at += n;
    return s;
}

static double get_double(rbuf *r)
{
    uint64_t u = get_le(r, 8);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* A string copied to a NUL-terminated scratch buffer (*tmp grows). */
static const char *get_cstr(rbuf *r, size_t n, char **tmp, size_t *cap)
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
    if (memchr(*tmp, '\0', n)) {
        r->bad = 1;
        return NULL;
    }
    return *tmp;
}

/* Skip (pass 1) or read into w (pass 2) one weight block of `size`. */
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
            memcpy(w, r->p + r->at, size * 8);
            r->at += size * 8;
#else
            for (size_t i = 0; i < size; i++)
                w[i] = get_double(r);
#endif
        } else {
            r->at += size * 8;
        }
        return 0;
    }
    if (enc != 0)
        return r->bad = 1, -1;
    uint64_t cnt = get_le(r, 4);
    /* The writer leaves all-zero blocks out, so an empty sparse block is
     * forged: it would cost 5 bytes of file for `size` weights of memory. */
    if (r->bad || cnt == 0 || cnt > size || (r->n - r->at) / 12 < cnt)
        return r->bad = 1, -1;
    if (!w) {
        /* Validate indexes now so that pass 2 cannot fail. */
        uint64_t prev = 0;
        for (uint64_t k = 0; k < cnt; k++) {
            uint64_t i = get_le(r, 4);
            (void)get_le(r, 8);
            if (i >= size || (k && i <= prev))
                return r->bad = 1, -1;
            prev = i;
        }
        return 0;
    }
    for (uint64_t k = 0; k < cnt; k++) {
        uint64_t i = get_le(r, 4);
        w[i] = get_double(r);
    }
    return 0;
}

/* Parse the n bytes before the checksum (already verified). */
static crfp_status parse(crfp_host *host, const char *path, const unsigned char *buf, size_t n,
                         crfp_crf **out)
{
    rbuf r = {buf, n, 12, 0};
    crfp_crf *crf = crfp_crf_new();
    char *tmp = NULL;
    size_t tcap = 0;
    size_t *where = NULL;
    const char *what = "truncated";
    crfp_status st = CRFP_EFORMAT;
    if (!crf)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", path);
    uint64_t Y = get_le(&r, 4);
    if (r.bad || Y > 65535 || Y > (n - r.at) / 4) {
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
        uint64_t len = get_le(&r, 4);
        const char *s = get_cstr(&r, len, &tmp, &tcap);
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
    uint64_t hasf = get_le(&r, 1);
    if (hasf > 1) {
        what = "bad features flag";
        goto fail;
    }
    if (hasf) {
        uint64_t len = get_le(&r, 4);
        const char *s = get_cstr(&r, len, &tmp, &tcap);
        if (!s)
            goto fail;
        char *name = strdup(s);
        uint64_t clen = get_le(&r, 8);
        const char *c = get_bytes(&r, clen);
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
    uint64_t nmeta = get_le(&r, 4);
    if (r.bad || nmeta > (n - r.at) / 8) {
        what = "metadata count out of range";
        goto fail;
    }
    for (uint64_t i = 0; i < nmeta; i++) {
        uint64_t klen = get_le(&r, 4);
        const char *k = get_cstr(&r, klen, &tmp, &tcap);
        char *key = k ? strdup(k) : NULL;
        if (k && !key) {
            st = CRFP_ENOMEM; /* not "truncated" */
            goto fail;
        }
        uint64_t vlen = get_le(&r, 4);
        const char *v = key ? get_cstr(&r, vlen, &tmp, &tcap) : NULL;
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
    uint64_t nobs = get_le(&r, 4);
    if (r.bad || nobs > (n - r.at) / 6) {
        what = "observation count out of range";
        goto fail;
    }
    where = malloc((nobs ? nobs : 1) * sizeof *where);
    if (!where || crfp_dict_reserve(&crf->obs, nobs, 0) != CRFP_OK) {
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
        uint64_t len = get_le(&r, 4);
        const char *s = get_bytes(&r, len);
        unsigned flags = (unsigned)get_le(&r, 1);
        if (r.bad)
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
        where[i] = r.at;
        nparams += ((flags & CRFP_OBS_UNIGRAM) ? usz : 0) + ((flags & CRFP_OBS_BIGRAM) ? bsz : 0);
        if ((maxp && nparams > maxp) || nparams > SIZE_MAX / sizeof(double)) {
            free(where);
            free(tmp);
            crfp_crf_free(crf);
            return crfp_error(host, CRFP_EFORMAT,
                              "%s: the model needs more than %llu weights (%.1f GB), more than "
                              "the limit model-params=%zu (raise it with --limit model-params=N "
                              "or CRFPIPE_LIMITS=model-params=N if the model is trusted)",
                              path, (unsigned long long)nparams, nparams * 8.0 / 1e9, maxp);
        }
        if ((flags & CRFP_OBS_UNIGRAM) && read_block(&r, usz, NULL))
            goto fail;
        if ((flags & CRFP_OBS_BIGRAM) && read_block(&r, bsz, NULL))
            goto fail;
    }
    if (r.at != n) {
        what = "trailing bytes before the checksum";
        goto fail;
    }
    if ((st = crfp_crf_finalize(crf)) != CRFP_OK)
        goto fail;
    for (uint64_t i = 0; i < nobs; i++) {
        r.at = where[i];
        if (crf->ublk[i] != CRFP_NO_BLOCK)
            read_block(&r, usz, crf->w + crf->ublk[i]);
        if (crf->bblk[i] != CRFP_NO_BLOCK)
            read_block(&r, bsz, crf->w + crf->bblk[i]);
    }
    free(where);
    free(tmp);
    *out = crf;
    return CRFP_OK;
fail:
    free(where);
    free(tmp);
    crfp_crf_free(crf);
    if (r.bad == 2 || st == CRFP_ENOMEM)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory loading the model", path);
    if (st != CRFP_EFORMAT)
        return crfp_error(host, CRFP_EFORMAT, "%s: invalid model: %s", path, crfp_status_str(st));
    return crfp_error(host, CRFP_EFORMAT, "%s: corrupt model file: %s at byte %zu", path, what,
                      r.at);
}

/* The whole file in one buffer on huge pages: on virtual machines every
 * 4 KiB page fault and TLB miss is expensive, and a 60 MB model read into
 * plain malloc'd memory spent most of its load time faulting pages in (a
 * page-cache mapping, touched page by page, was no better). */
static unsigned char *read_file(FILE *fp, size_t n)
{
    unsigned char *buf = crfp_big_alloc(n ? n : 1);
    if (!buf)
        return NULL;
    if (n && (fread(buf, 1, n, fp) != n || ferror(fp))) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    return buf;
}

crfp_status crfp_crf_load(crfp_host *host, const char *path, crfp_crf **out)
{
    if (!path || !out)
        return crfp_error(host, CRFP_EINVAL, "crf: load: NULL argument");
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer,
     * forever if none comes; the type is checked on the descriptor. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return crfp_error(host, errno == ENOENT ? CRFP_ENOTFOUND
                                : errno == ENOMEM ? CRFP_ENOMEM : CRFP_EIO,
                          "%s: cannot open model: %s", path,
                          errno == ENOMEM ? "out of memory" : strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        int isdir = S_ISDIR(sb.st_mode), isfifo = S_ISFIFO(sb.st_mode);
        close(fd);
        return crfp_error(host, CRFP_EIO, "%s: %s", path,
                          isdir    ? "is a directory, not a model file"
                          : isfifo ? "is a FIFO; a model is read only from a regular file"
                                   : "not a regular file");
    }
    int fl = fcntl(fd, F_GETFL);
    FILE *fp = fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
    if (!fp) {
        int e = errno;
        close(fd);
        return crfp_error(host, e == ENOMEM ? CRFP_ENOMEM : CRFP_EIO, "%s: cannot open model: %s",
                          path, e == ENOMEM ? "out of memory" : strerror(e));
    }
    size_t n = (size_t)sb.st_size;
    errno = 0;
    unsigned char *buf = read_file(fp, n);
    fclose(fp);
    if (!buf) {
        if (errno == EIO)
            return crfp_error(host, CRFP_EIO, "%s: read error", path);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory reading %zu bytes", path, n);
    }
    crfp_status st;
    if (n < 8 || memcmp(buf, MAGIC, 8) != 0) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: not a crfpipe model (bad magic)", path);
    } else if (n < 12 + 8) {
        st = crfp_error(host, CRFP_EFORMAT, "%s: truncated model file (%zu bytes)", path, n);
    } else {
        rbuf r = {buf, n, 8, 0};
        uint64_t ver = get_le(&r, 4);
        rbuf c = {buf, n, n - 8, 0};
        uint64_t sum = get_le(&c, 8);
        if (ver != VERSION)
            st = crfp_error(host, CRFP_EFORMAT,
                            "%s: model format version %llu, this build reads version %u", path,
                            (unsigned long long)ver, VERSION);
        else if (sum != checksum64(buf, n - 8))
            st = crfp_error(host, CRFP_EFORMAT,
                            "%s: checksum mismatch (file truncated or corrupted)", path);
        else
            st = parse(host, path, buf, n - 8, out);
    }
    free(buf);
    return st;
}

/* --- dump ---------------------------------------------------------------------- */

crfp_status crfp_crf_dump(crfp_host *host, const crfp_crf *crf, FILE *out)
{
    if (!crf || !out || !crf->final)
        return crfp_error(host, CRFP_EINVAL, "crf: dump: no finalized model");
    uint32_t Y = crf->Y;
    fprintf(out, "labels\t%u\n", Y);
    for (uint32_t y = 0; y < Y; y++)
        fprintf(out, "label\t%u\t%s\n", y, crfp_dict_str(&crf->labels, y, NULL));
    fprintf(out, "features\t%s\n", crf->fplugin ? crf->fplugin : "-");
    fprintf(out, "config\t%zu\n", crf->fplugin ? crf->fconfig_len : (size_t)0);
    if (crf->fplugin && crf->fconfig_len) {
        fwrite(crf->fconfig, 1, crf->fconfig_len, out);
        if (crf->fconfig[crf->fconfig_len - 1] != '\n')
            fputc('\n', out);
    }
    for (size_t i = 0; i < crf->nmeta; i++)
        fprintf(out, "meta\t%s\t%s\n", crf->meta_k[i], crf->meta_v[i]);
    for (uint32_t o = 0; o < crf->obs.n; o++) {
        const char *s = crfp_dict_str(&crf->obs, o, NULL);
        if (crf->ublk[o] != CRFP_NO_BLOCK) {
            const double *w = crf->w + crf->ublk[o];
            for (uint32_t y = 0; y < Y; y++)
                if (w[y] != 0.0)
                    fprintf(out, "U\t%s\t%s\t%.17g\n", s, crfp_dict_str(&crf->labels, y, NULL),
                            w[y]);
        }
        if (crf->bblk[o] != CRFP_NO_BLOCK) {
            const double *w = crf->w + crf->bblk[o];
            for (uint32_t p = 0; p <= Y; p++)
                for (uint32_t y = 0; y < Y; y++)
                    if (w[(size_t)p * Y + y] != 0.0)
                        fprintf(out, "B\t%s\t%s\t%s\t%.17g\n", s,
                                p == Y ? "<start>" : crfp_dict_str(&crf->labels, p, NULL),
                                crfp_dict_str(&crf->labels, y, NULL), w[(size_t)p * Y + y]);
        }
    }
    if (fflush(out) != 0 || ferror(out))
        return crfp_error(host, CRFP_EIO, "crf: dump: write error: %s", strerror(errno));
    return CRFP_OK;
}
