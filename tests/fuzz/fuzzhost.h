/* crfpipe fuzz targets — shared set-up.
 *
 * Every target gets one host for the whole process and loads plugins only
 * through the public registry API (crfp_host_load_kind + desc->vtable), all
 * of it in fuzzhost.c, so that a change of the plugin ABI touches one file.
 * Set-up failures (a plugin that does not load, no temporary directory) are
 * problems of the environment, not findings: they abort with a message.
 */
#ifndef CRFP_FUZZHOST_H
#define CRFP_FUZZHOST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "crfpipe/crfpipe.h"

/* The process-wide host, created on first use, logging nowhere (a fuzzer
 * feeding millions of inputs must not print a warning for each). */
crfp_host *fz_host(void);

/* The vtable of plugin `name`, which must be of kind `kind`; *params gets a
 * parameter set for it built from n name/value pairs (NULL when params is
 * NULL).  Aborts when the plugin cannot be loaded or a parameter is refused. */
const void *fz_plugin(const char *name, crfp_kind kind, const char *const *names,
                      const char *const *values, size_t n, crfp_params **params);

/* Write data to a file in this process's temporary directory (removed at
 * exit) and return its path; the same `name` is overwritten each time.  At
 * most 8 names per process, each under 32 bytes. */
const char *fz_file(const char *name, const uint8_t *data, size_t size);

/* A read-only stream over data (fmemopen; /dev/null when size is 0, which
 * fmemopen refuses).  Close with fclose. */
FILE *fz_memstream_in(const uint8_t *data, size_t size);

/* Read documents of fp (named `name` in messages) with reader rd and its
 * parameters rp into docs[0..*n), at most max of them: reading stops there
 * (a further document is freed).  Returns the reader's status, CRFP_OK at
 * the end of the input; the documents read before an error are kept.  The
 * caller frees the documents. */
crfp_status fz_read_docs(const crfp_reader_vtable *rd, const crfp_params *rp, FILE *fp,
                         const char *name, crfp_doc **docs, size_t max, size_t *n);

/* The line readers' targets: the input text[0..tlen) read as fz_read_docs
 * reads it (the stream named `name`), with the oracles every such reader
 * meets: a failure carries a message, and with a `line` limit of 40 bytes
 * (small) a reader that got to the end without an error met no longer
 * line.  Returns the reader's status; its message stays in the host. */
crfp_status fz_read_lines(const crfp_reader_vtable *rd, const crfp_params *rp,
                          const uint8_t *text, size_t tlen, const char *name, int small,
                          crfp_doc **docs, size_t max, size_t *n);

/* Write docs[0..n) with the writer plugin `writer` (its defaults) to
 * memory: *buf (the caller frees it) of *len bytes.  Returns the writer's
 * status; a failure without a message is a finding. */
crfp_status fz_write_docs(const char *writer, crfp_doc *const *docs, size_t n, char **buf,
                          size_t *len);

/* The same with the writer's vtable wr and parameters wp (fz_plugin's),
 * for a target that tries several writers or settings. */
crfp_status fz_write_with(const crfp_writer_vtable *wr, const crfp_params *wp,
                          crfp_doc *const *docs, size_t n, char **buf, size_t *len);

/* The oracle of the attribute-data targets: features plugin fx (extractor
 * ex) makes observations of every Sentence of doc's default set from its
 * Tokens' `attrs` feature, one list per Token; anything else is a
 * finding. */
void fz_extract_attrs(const crfp_features_vtable *fx, void *ex, crfp_doc *doc);

/* The body of the reader/writer targets (roundtrip.c): read data with the
 * reader plugin, write what it returns with the writer plugin (given n
 * parameters wnames/wvalues), read that back and compare. */
void fz_roundtrip(const uint8_t *data, size_t size, const char *reader, const char *writer,
                  const char *const *wnames, const char *const *wvalues, size_t nw);

/* Set the host's `line` limit to `bytes` (0 = unlimited), or back to its
 * default with FZ_DEFAULT_LINE.  Targets that vary the limit per input call
 * it for every input, since the host lives as long as the process. */
#define FZ_DEFAULT_LINE ((size_t)-1)
void fz_line_limit(size_t bytes);

/* The length in bytes of the longest line of d[0..n) (without its '\n'):
 * what a `line` limit oracle compares with the limit. */
size_t fz_longest_line(const uint8_t *d, size_t n);

/* The dump of a model (crfp_crf_dump) in a malloc'd buffer of *len bytes;
 * a dump that fails is a finding. */
char *fz_model_dump(crfp_crf *crf, size_t *len);

/* The oracle of the model targets: `crf` (a model loaded or imported from
 * `path`, taken over and freed here) dumps as d1 (len1 bytes, freed here),
 * saves next to path, loads back and dumps the same; anything else is a
 * finding, `what` naming the model in the message. */
void fz_model_roundtrip(crfp_crf *crf, const char *path, char *d1, size_t len1,
                        const char *what);

/* After an importer of another program's model returned st: 1 when it
 * imported; 0 when it refused the file as malformed (CRFP_EFORMAT, the
 * error cleared); any other status is a finding. */
int fz_imported(crfp_status st);

/* The oracle of the importers of template models (Wapiti's, CRF++'s):
 * the features configuration of `crf` loads in the templates plugin and
 * extracts from a fixed sentence, or fails with a parse error and a
 * message, as `crfpipe model import` checks it (path names it). */
void fz_template_config(crfp_crf *crf, const char *path);

/* With FUZZ_VERBOSE set, print what became of an input (to check that the
 * seeds reach deep into the code, not only the first error). */
void fz_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Abort with a message: an oracle of a target found a real bug (libFuzzer
 * records the input as a crash). */
void fz_fail(const char *what, const char *detail) __attribute__((noreturn));

#endif
