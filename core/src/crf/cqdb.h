/* crfpipe — CRFsuite's string tables (CQDB), read and written (internal).
 *
 * A CQDB chunk, all little-endian: a 24-byte header ("CQDB", chunk size,
 * flags, byte-order mark, the size and offset of a backward array), 256
 * hash-table references (offset, bucket count), the records (id, key size,
 * key with its NUL), the hash tables (buckets of hash and record offset,
 * open addressing from (hash >> 8) mod the bucket count, twice as many
 * buckets as keys), and the backward array (each id's record offset).
 * Offsets are relative to the chunk.  A key's hash is Bob Jenkins' lookup3
 * hashlittle of its bytes with the NUL, seed 0; its table is hash mod 256.
 * CRFsuite finds attributes and labels through the hash tables, crfpipe's
 * importer reads the backward array and checks that the tables agree.
 */
#ifndef CRFP_CQDB_H
#define CRFP_CQDB_H

#include <stddef.h>
#include <stdint.h>

#define CRFP_CQDB_HEADER 24

/* A CQDB chunk being read: its bytes (checked to lie within the file) and
 * its backward array. */
typedef struct crfp_cqdb {
    const unsigned char *b;
    size_t size;
    const unsigned char *bwd; /* bwd_size record offsets */
    uint32_t bwd_size;
} crfp_cqdb;

/* A growable byte buffer for writing; `oom` is set (and the buffer left as
 * it was) when it cannot grow. */
typedef struct crfp_bytes {
    unsigned char *p;
    size_t n, cap;
    int oom;
} crfp_bytes;

uint32_t crfp_le32(const unsigned char *p);
void crfp_bytes_put(crfp_bytes *b, const void *s, size_t n);
void crfp_bytes_put32(crfp_bytes *b, uint32_t v);
/* Overwrite the 4 bytes at `at` (< b->n - 3) with v. */
void crfp_bytes_set32(crfp_bytes *b, size_t at, uint32_t v);

/* lookup3's hashlittle(key, n, 0): the hash CQDB files are indexed by. */
uint32_t crfp_cqdb_hash(const void *key, size_t n);

/* Check the chunk at `off` of the file (n bytes) into *db.  NULL, or what
 * is wrong (a constant string). */
const char *crfp_cqdb_open(const unsigned char *file, size_t n, uint32_t off, crfp_cqdb *db);
/* The string of `id`, its length in *len; NULL with *why when the record is
 * missing or malformed. */
const char *crfp_cqdb_string(const crfp_cqdb *db, uint32_t id, size_t *len, const char **why);
/* The id the hash tables give the len bytes at s (a string without its
 * NUL), or -1 when they do not find it (or are malformed: every read is
 * checked against the chunk). */
int64_t crfp_cqdb_find(const crfp_cqdb *db, const char *s, size_t len);

/* Append to *out a CQDB chunk holding strs[0..n) as ids 0..n-1 (NUL-free
 * strings; lens their lengths).  On allocation failure out->oom is set. */
void crfp_cqdb_write(crfp_bytes *out, const char *const *strs, const size_t *lens, uint32_t n);

#endif
