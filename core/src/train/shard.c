/* crfpipe — each rank's piece of an input file (dist.h, crfp_shard_open).
 *
 * A file in a format whose reader declares CRFP_PLUGIN_SPLIT_BLANK_LINES is
 * cut at blank lines into one contiguous piece per rank.  Piece r starts at
 * the first cut point at or after byte size·r/P (a cut point is the start of
 * the file or the position just after an empty line) and ends where piece
 * r+1 starts.  Byte-balanced pieces are token-balanced enough for the
 * objective's cost, and contiguous pieces in rank order are what lets the
 * shared dictionary reproduce the single-process numbering.  Each rank
 * finds its two cut points by reading forward from the nominal offsets, a
 * sentence or so: no rank reads more than its piece and two sentences.
 *
 * The piece is served to the reader as a FILE through fopencookie (glibc)
 * reading with pread, so the reader streams it like any file; elsewhere the
 * piece is read into memory and served by fmemopen.
 */
#define _GNU_SOURCE 1 /* fopencookie */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dist.h"

/* The first cut point at or after `from`, or `size` when there is none:
 * positions p with p == 0, or with the line that ends at p - 1 empty. */
static crfp_status next_cut(crfp_host *host, int fd, const char *name, uint64_t from,
                            uint64_t size, uint64_t *cut)
{
    if (from == 0 || from >= size) {
        *cut = from >= size ? size : 0;
        return CRFP_OK;
    }
    /* Look back up to 3 bytes, so that an empty line ("\n\n" or "\n\r\n")
     * ending just before `from` is seen. */
    uint64_t at = from >= 3 ? from - 3 : 0;
    char buf[65536];
    /* state: the bytes since the last '\n' were empty (0), "\r" (1), or
     * anything else (2); at the file start a line begins. */
    int line = at == 0 ? 0 : 2;
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, (off_t)at);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return crfp_error(host, CRFP_EIO, "%s: %s", name, strerror(errno));
        }
        if (n == 0) {
            *cut = size;
            return CRFP_OK;
        }
        for (ssize_t i = 0; i < n; i++) {
            char c = buf[i];
            uint64_t pos = at + (uint64_t)i; /* of c */
            if (c == '\n') {
                /* the line that just ended was empty: the next byte is a cut */
                if (line != 2 && pos + 1 >= from) {
                    *cut = pos + 1;
                    return CRFP_OK;
                }
                line = 0;
            } else if (c == '\r' && line == 0) {
                line = 1;
            } else {
                line = 2;
            }
        }
        at += (uint64_t)n;
    }
}

typedef struct piece {
    int fd;
    uint64_t start, end, at;
} piece;

#ifdef __GLIBC__
static ssize_t piece_read(void *cookie, char *buf, size_t len)
{
    piece *p = cookie;
    if (p->at >= p->end)
        return 0;
    if (len > p->end - p->at)
        len = (size_t)(p->end - p->at);
    ssize_t n;
    do
        n = pread(p->fd, buf, len, (off_t)p->at);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        p->at += (uint64_t)n;
    return n;
}

static int piece_close(void *cookie)
{
    piece *p = cookie;
    int rc = close(p->fd);
    free(p);
    return rc;
}
#endif

crfp_status crfp_shard_open(crfp_host *host, const crfp_plugin *reader, crfp_stream *in,
                            crfp_shard *out)
{
    memset(out, 0, sizeof *out);
    out->stream = *in;
    out->cut = 1;
    int P = crfp_dist_size(), r = crfp_dist_rank();
    if (P <= 1)
        return CRFP_OK;
    out->cut = 0;
    struct stat sb;
    if (!in->fp || fstat(fileno(in->fp), &sb) != 0 || !S_ISREG(sb.st_mode))
        return crfp_error(host, CRFP_EINVAL,
                          "%s: distributed training reads its input from a regular file that "
                          "every rank can open, not from %s", in->name,
                          in->fp == stdin ? "standard input" : "a pipe or device");
    if (!(reader->desc->flags & CRFP_PLUGIN_SPLIT_BLANK_LINES))
        return CRFP_OK; /* read whole, keep every P-th sentence */
    uint64_t size = (uint64_t)sb.st_size;
    int fd = fileno(in->fp);
    uint64_t a, b;
    crfp_status st;
    if ((st = next_cut(host, fd, in->name, size / (uint64_t)P * (uint64_t)r +
                       size % (uint64_t)P * (uint64_t)r / (uint64_t)P, size, &a)) != CRFP_OK ||
        (st = next_cut(host, fd, in->name, r + 1 == P ? size : size / (uint64_t)P * (uint64_t)(r + 1) +
                       size % (uint64_t)P * (uint64_t)(r + 1) / (uint64_t)P, size, &b)) != CRFP_OK)
        return st;
    if (b < a)
        b = a;
    size_t nl = strlen(in->name) + 64;
    if (!(out->name = malloc(nl)))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    /* Line numbers in the reader's messages count from the piece's start:
     * the name says where that is. */
    snprintf(out->name, nl, "%s[rank %d: bytes %llu-%llu]", in->name, r, (unsigned long long)a,
             (unsigned long long)b);
    FILE *fp = NULL;
#ifdef __GLIBC__
    piece *p = malloc(sizeof *p);
    int dfd = dup(fd);
    if (p && dfd >= 0) {
        *p = (piece){dfd, a, b, a};
        cookie_io_functions_t io = {.read = piece_read, .close = piece_close};
        fp = fopencookie(p, "r", io);
    }
    if (!fp) {
        if (dfd >= 0)
            close(dfd);
        free(p);
    }
#else
    size_t len = (size_t)(b - a);
    char *buf = malloc(len ? len : 1);
    ssize_t n = buf ? pread(fd, buf, len, (off_t)a) : -1;
    if (n == (ssize_t)len)
        fp = fmemopen(len ? buf : "", len, "r");
    /* fmemopen does not own buf: it is leaked with the piece (one per run). */
    if (!fp)
        free(buf);
#endif
    if (!fp) {
        free(out->name);
        out->name = NULL;
        return crfp_error(host, CRFP_EIO, "%s: cannot open this rank's piece: %s", in->name,
                          strerror(errno ? errno : ENOMEM));
    }
    out->stream.fp = fp;
    out->stream.name = out->name;
    out->cut = 1;
    out->start = a;
    out->end = b;
    return CRFP_OK;
}

void crfp_shard_close(crfp_shard *s)
{
    if (s->name && s->stream.fp)
        fclose(s->stream.fp);
    free(s->name);
    memset(s, 0, sizeof *s);
}
