/* crfpipe — the plugin ABI, version CRFP_ABI_MAJOR.CRFP_ABI_MINOR.
 *
 * A plugin is a libtool module (-module -avoid-version) whose file name is a
 * C identifier, e.g. `conll_reader.so`.  It exports one symbol,
 * `crfp_plugin`, of type crfp_plugin_descriptor, declared with
 * CRFP_PLUGIN_DEFINE(modname) so that the libtool `modname_LTX_` prefix
 * makes it unique when modules are preloaded (dlpreopen).
 *
 * The descriptor names the plugin, its kind, version and parameters, and
 * points to the vtable of its kind.  Plugins return crfp_status codes and
 * report through crfp_error()/crfp_log() on the host they are given; they
 * never call exit() and never print to stdout/stderr themselves.
 *
 * Compatibility (as GStreamer's plugin descriptor does it):
 *  - The descriptor carries the major and minor ABI version the plugin was
 *    built against (CRFP_PLUGIN_ABI fills them in).  The host refuses another
 *    major version, and a minor version newer than its own (the plugin may
 *    rely on members this host does not know).
 *  - The descriptor never changes size within a major version: new fields
 *    take the place of `reserved` slots, which a plugin built before them
 *    leaves zero.
 *  - Every vtable starts with `size`, the sizeof the plugin saw at build
 *    time (CRFP_VTABLE_SIZE).  Vtables only grow at the end, one minor
 *    version at a time; the host reads a member only when `size` covers it
 *    (CRFP_VT_HAS), so a plugin built against 2.0 loads in a 2.1 host.
 *  - Before accepting a module the host checks that the vtable's required
 *    members (those of 2.0) are present.
 * A plugin may ask for an older layout by defining CRFP_ABI_TARGET_MINOR
 * before including this header; members newer than that are then left out,
 * exactly as an older header would have had them.
 *
 * History: 2.0 descriptor with major/minor and padding, sized vtables,
 * format declarations, trainers on crfp_trainset (trainset.h); 2.1 adds the
 * reader's content probe; 2.2 adds the document stages' concurrent
 * process; 2.3 adds the descriptor's `flags` (readers whose files may be
 * cut at blank lines, for distributed training) and the trainer's
 * resumable entry point (`resume`, checkpoints); 2.4 adds the feature
 * extractor's `prerequisites` (incremental feature sets); 2.5 adds valued
 * observations (crfp_obsseq_push_value, crfp_obsseq_values; the engine's
 * crfp_seq.uval); 2.6 adds the engine's crfp_path_terms (a labelling's
 * score position by position); 2.7 adds sequence weights (the training
 * set's `seq_weight`, the engine's crfp_dataset_set_weight); 2.8 adds
 * reading columns named by position under a model's names
 * (crfp_columns_positional, crfp_columns_as_model, crfp_sentbuf_read_as);
 * 2.9 adds crfp_xml_quiet_* (libxml2's encoding failures kept for the
 * message instead of printed on stderr).
 */
#ifndef CRFPIPE_PLUGIN_H
#define CRFPIPE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "crfpipe/status.h"
#include "crfpipe/params.h"
#include "crfpipe/document.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CRFP_ABI_MAJOR 2u
#define CRFP_ABI_MINOR 9u
#ifndef CRFP_ABI_TARGET_MINOR
#define CRFP_ABI_TARGET_MINOR CRFP_ABI_MINOR
#endif

/* The size a plugin records in the first member of its vtable. */
#define CRFP_VTABLE_SIZE(type) ((size_t)sizeof(type))
/* Whether vtable `vt` (a pointer to `type`) is large enough to hold `member`
 * and has it set.  The host uses this for members added after 2.0. */
#define CRFP_VT_HAS(vt, type, member)                                              \
    ((vt)->size >= offsetof(type, member) + sizeof(((type *)0)->member) &&         \
     (vt)->member != NULL)

typedef enum crfp_kind {
    CRFP_KIND_READER = 1,    /* byte stream -> documents */
    CRFP_KIND_WRITER = 2,    /* documents -> byte stream */
    CRFP_KIND_TOKENIZER = 3, /* document -> document (adds Token/Sentence) */
    CRFP_KIND_FEATURES = 4,  /* token sequence -> observations */
    CRFP_KIND_TRAINER = 5,   /* minimises an objective (optimizer) */
    CRFP_KIND_TAGGER = 6     /* document -> document (adds labels) */
} crfp_kind;

/* "reader", "writer", ...; "unknown" otherwise.  Static strings. */
const char *crfp_kind_name(crfp_kind k);
/* -1 for an unknown name or NULL. */
int crfp_kind_parse(const char *name);

typedef struct crfp_plugin_descriptor {
    uint32_t abi_major;            /* = CRFP_ABI_MAJOR at build time */
    uint32_t abi_minor;            /* = CRFP_ABI_TARGET_MINOR at build time */
    const char *name;              /* = module file name */
    crfp_kind kind;
    const char *version;           /* plugin's own version, e.g. "1.0" */
    const char *description;       /* one line */
    const crfp_param_spec *params; /* nparams entries */
    size_t nparams;
    const void *vtable;            /* crfp_<kind>_vtable, starting with its size */
    /* Optional module-level hooks: init is called once after loading; a
     * non-OK return makes the load fail with CRFP_EPLUGIN. */
    crfp_status (*init)(crfp_host *host);
    void (*fini)(void);
    /* Readers and writers: the formats they handle, a NULL-terminated list
     * of names (e.g. {"conllu", NULL}; the first is the canonical one), and
     * the file extensions that imply them (e.g. {".conllu", NULL}).  The
     * host looks formats up here (crfp_host_find_format); it knows no
     * plugin by name.  NULL for other kinds. */
    const char *const *formats;
    const char *const *extensions;
#if CRFP_ABI_TARGET_MINOR >= 3
    /* 2.3: CRFP_PLUGIN_* properties (below); the slot was reserved, so it
     * reads 0 in older plugins. */
    uintptr_t flags;
    /* Reserved for later minor versions; must be zero (left out of
     * designated initialisers). */
    void *reserved[7];
#else
    void *reserved[8];
#endif
} crfp_plugin_descriptor;

/* Descriptor flags (2.3).
 * CRFP_PLUGIN_SPLIT_BLANK_LINES (readers): a file in this format may be cut
 * just after any empty line (a line holding nothing but its terminator,
 * "\n" or "\r\n"), and reading the pieces one after the other yields the
 * same sentences in the same order.  Distributed training then hands each
 * rank one contiguous piece of the file instead of making every rank parse
 * all of it. */
#define CRFP_PLUGIN_SPLIT_BLANK_LINES ((uintptr_t)1)
/* CRFP_PLUGIN_TRAINER_L1 (trainers): the trainer minimises the objective
 * with its l1 term for any rho1 >= 0, starting from the weights it is
 * given.  The host runs a regularisation path (the common parameter
 * rho1-path: one training per rho1, each warm-started from the previous
 * solution) only with trainers that declare it, and refuses the others
 * before reading any data; a trainer built without the flag is taken not
 * to support l1. */
#define CRFP_PLUGIN_TRAINER_L1 ((uintptr_t)2)

/* The two version fields, for designated initialisers:
 *   CRFP_PLUGIN_DEFINE(x) = { CRFP_PLUGIN_ABI, .name = "x", ... }; */
#define CRFP_PLUGIN_ABI .abi_major = CRFP_ABI_MAJOR, .abi_minor = CRFP_ABI_TARGET_MINOR

#define CRFP_PLUGIN_SYMBOL "crfp_plugin"
#define CRFP_PLUGIN_DEFINE(modname) \
    const crfp_plugin_descriptor modname##_LTX_crfp_plugin

/* --- byte streams for readers and writers ------------------------------ */

typedef struct crfp_stream {
    FILE *fp;          /* opened by the host */
    const char *name;  /* file name for messages ("<stdin>", "<stdout>") */
} crfp_stream;

/* --- reader ------------------------------------------------------------- */
typedef struct crfp_reader_vtable {
    size_t size;  /* CRFP_VTABLE_SIZE(crfp_reader_vtable) */
    /* Prepare to read `in`.  *state is the plugin's. */
    crfp_status (*open)(crfp_host *host, const crfp_params *params, crfp_stream *in,
                        void **state);
    /* Next document, owned by the caller afterwards; *doc = NULL at the end
     * of the stream.  Errors name the file and line. */
    crfp_status (*next)(void *state, crfp_doc **doc);
    /* Free the state open made (the stream stays open: the host closes it). */
    void (*close)(void *state);
#if CRFP_ABI_TARGET_MINOR >= 1
    /* 2.1, optional.  How sure the plugin is (0 = not its format, 100 =
     * certain) that input starting with the `len` bytes at `head` is in its
     * format; `len` is at most 64 KiB and may cut a line.  Used when neither
     * an option nor the file name says which format an input is in.  Pure:
     * no host, no state. */
    int (*probe)(const char *head, size_t len);
#endif
} crfp_reader_vtable;

/* --- writer ------------------------------------------------------------- */
typedef struct crfp_writer_vtable {
    size_t size;  /* CRFP_VTABLE_SIZE(crfp_writer_vtable) */
    /* Prepare to write to `out` (closed by the host).  *state is the
     * plugin's. */
    crfp_status (*open)(crfp_host *host, const crfp_params *params, crfp_stream *out,
                        void **state);
    /* Write one document (not consumed). */
    crfp_status (*write)(void *state, const crfp_doc *doc);
    /* End of stream: write trailers and flush. */
    crfp_status (*finish)(void *state);
    /* Free the state open made (also when finish was not called). */
    void (*close)(void *state);
} crfp_writer_vtable;

/* --- document processors: tokenizer, tagger ----------------------------- */
typedef struct crfp_stage_vtable {
    size_t size;  /* CRFP_VTABLE_SIZE(crfp_stage_vtable) */
    /* Build the stage from `params`.  *state is the plugin's. */
    crfp_status (*open)(crfp_host *host, const crfp_params *params, void **state);
    /* Annotate `doc` in place.  May be called from one thread at a time per
     * state. */
    crfp_status (*process)(void *state, crfp_doc *doc);
    /* End of stream (may be NULL). */
    crfp_status (*finish)(void *state);
    /* Free the state open made. */
    void (*close)(void *state);
#if CRFP_ABI_TARGET_MINOR >= 2
    /* 2.2, optional.  What process does, but callable from several threads
     * at once, each with its own document: the pipeline then reads the
     * stream in bounded batches, runs them through the stages in parallel
     * on the host's team (crfp_host_team) and writes them in input order.
     * The state is shared by the calls, so they may only read it (or guard
     * what they change).  A call may use crfp_host_team itself; inside the
     * pipeline's parallel run that gives it a serial job on its own
     * thread.  Errors are reported on the host as usual (each thread's
     * reports are kept apart; the pipeline reports the first document's).
     * When any document stage of a pipeline lacks it, documents go through
     * the stages one at a time, in order. */
    crfp_status (*process_concurrent)(void *state, crfp_doc *doc);
#endif
} crfp_stage_vtable;
typedef crfp_stage_vtable crfp_tokenizer_vtable;
typedef crfp_stage_vtable crfp_tagger_vtable;

/* --- features ----------------------------------------------------------- */

/* A sentence seen as a table: ntok rows, ncols named columns (token
 * features, e.g. word, pos).  cells[t*ncols + c] is NULL where the token
 * lacks that feature.  Built by the host; read-only for plugins. */
typedef struct crfp_tokseq {
    size_t ntok;
    size_t ncols;
    const char *const *colnames;
    const char *const *cells;
} crfp_tokseq;

enum { CRFP_OBS_UNIGRAM = 1, CRFP_OBS_BIGRAM = 2 };

/* Observations of a sentence: for token t, entries [off[t], off[t+1]).
 * Each is a string (NUL-terminated, in an arena owned by the crfp_obsseq)
 * plus flags CRFP_OBS_UNIGRAM and/or CRFP_OBS_BIGRAM saying whether it
 * feeds μ(y,x), λ(y',y,x) or both.  Managed with the functions below so
 * that its memory is reused across sentences. */
typedef struct crfp_obsseq crfp_obsseq;
/* Empty container owned by the caller (crfp_obsseq_free); NULL on ENOMEM. */
crfp_obsseq *crfp_obsseq_new(void);
void crfp_obsseq_free(crfp_obsseq *o);   /* NULL accepted */
/* Start a sentence of `ntok` tokens (forgets the previous one, keeps the
 * memory).  CRFP_ENOMEM, CRFP_EINVAL (o NULL).  After CRFP_ENOMEM the
 * previous sentence is kept. */
crfp_status crfp_obsseq_reset(crfp_obsseq *o, size_t ntok);
/* Append a copy of the `len` bytes at `s` (NUL added) to token `t`.  Tokens
 * must be filled in order (t never decreases); tokens skipped have no
 * observations.  CRFP_EINVAL for t >= ntok or a decreasing t, CRFP_ENOMEM.
 * No message is recorded (there is no host): callers report.  CRFP_EINVAL
 * also for o NULL, s NULL with len > 0, or len == SIZE_MAX.  A NUL inside
 * the bytes ends the observation as the CRF engine interns it. */
crfp_status crfp_obsseq_push(crfp_obsseq *o, size_t t, unsigned flags, const char *s, size_t len);
/* 2.5: crfp_obsseq_push with a value (CRFsuite's attribute value): the
 * observation's unigram features contribute value·μ(y, obs) to the score
 * instead of μ(y, obs).  Value 1 is crfp_obsseq_push.  Value 0 is kept:
 * the observation adds nothing to the scores, but it is in the data, as in
 * CRFsuite (its label is seen with it: `--all-states false`; it counts for
 * --min-freq).  CRFP_EINVAL, besides crfp_obsseq_push's cases, for a value that is not
 * finite, or a value other than 1 with CRFP_OBS_BIGRAM in flags: the label
 * pair features are binary.  CRFP_ENOMEM. */
crfp_status crfp_obsseq_push_value(crfp_obsseq *o, size_t t, unsigned flags, const char *s,
                                   size_t len, double value);
/* 2.5: the values of token t's observations, in the order of
 * crfp_obsseq_get (owned by o, valid until the next push or reset), or NULL
 * when every observation of the sentence has value 1 (or o is NULL, or
 * t >= ntok). */
const double *crfp_obsseq_values(const crfp_obsseq *o, size_t t);
/* Tokens of the current sentence (0 for o NULL). */
size_t crfp_obsseq_ntok(const crfp_obsseq *o);
/* The observations of token t: *n entries (0 for t >= ntok); strings and
 * flags owned by o, valid until the next push or reset.  Any of strs,
 * flags, n may be NULL.  o NULL reads as an empty sentence. */
void crfp_obsseq_get(const crfp_obsseq *o, size_t t, const char *const **strs,
                     const unsigned char **flags, size_t *n);

typedef struct crfp_features_vtable {
    size_t size;  /* CRFP_VTABLE_SIZE(crfp_features_vtable) */
    /* Build an extractor from `params` (e.g. a template file).  *ex is the
     * plugin's. */
    crfp_status (*create)(crfp_host *host, const crfp_params *params, void **ex);
    /* Build an extractor from the text saved in a model by `save`; `origin`
     * names the model for messages. */
    crfp_status (*load)(crfp_host *host, const char *text, size_t len, const char *origin,
                        void **ex);
    /* Serialise the extractor's configuration (malloc'd, caller frees). */
    crfp_status (*save)(void *ex, char **text, size_t *len);
    /* Extract the observations of one sentence into `out` (reset by the
     * callee).  Must be thread-safe for concurrent calls with distinct
     * `out`: an extractor is shared read-only by tagging threads. */
    crfp_status (*extract)(void *ex, const crfp_tokseq *seq, crfp_obsseq *out);
    /* Free an extractor made by create or load. */
    void (*free)(void *ex);
#if CRFP_ABI_TARGET_MINOR >= 4
    /* 2.4, optional: incremental feature sets (Lavergne et al. 2010, §5.4).
     * NULL, or a text owned by the extractor (valid until `free`) of lines
     * "PREFIX PREREQ\n": an observation starting with PREFIX that the
     * extractor produces at token t is held back (its weights frozen at
     * zero) until the observation starting with PREREQ produced at the same
     * token has a non-zero weight; the trainer driver admits such
     * observations between the stages of a trainer chain.  Prefixes
     * contain no blank. */
    const char *(*prerequisites)(void *ex);
#endif
} crfp_features_vtable;

/* --- trainer (optimizer) ------------------------------------------------
 * A trainer minimises the training objective seen through a crfp_trainset
 * (trainset.h): batch loss and gradient, per-sequence gradients, decoding,
 * per-block statistics, as the training set's capability flags say.  It
 * never sees the CRF's internals, so optimizers are interchangeable. */
typedef struct crfp_trainset crfp_trainset;

/* Checkpoints (2.3): how a trainer with a `resume` entry hands its state
 * to the host and gets it back.  The state is the trainer's own bytes,
 * given as a list of pieces so that large vectors are written where they
 * lie; the host stores them with θ, its own bookkeeping and a checksum,
 * atomically, and gives them back concatenated.  The host reads the pieces
 * only during the call. */
typedef struct crfp_ckpt_piece {
    const void *data;
    size_t len;
} crfp_ckpt_piece;

typedef struct crfp_train_ckpt {
    size_t size;        /* sizeof(crfp_train_ckpt) of the host: grows at the end */
    /* Where to resume: the bytes this trainer saved (its pieces, one after
     * another; owned by the host and valid until the trainer's first call
     * of the monitor, so restore them before iterating: the host then
     * frees what may be a gigabyte) and the iteration they end; theta
     * then holds that iteration's iterate.  NULL, 0 and 0 for a fresh
     * start. */
    const void *state;
    size_t len;
    int iter;
    /* Whether a checkpoint is due after iteration `iter` (so the trainer
     * gathers its state only then), and the call that writes it: theta
     * and the state after iteration `iter`, called after the monitor
     * returned for it.  In a distributed run every rank calls both, with
     * the same state: rank 0 writes.  Errors: CRFP_EIO, CRFP_ENOMEM; the
     * trainer then returns them. */
    int (*due)(void *ud, int iter);
    crfp_status (*save)(void *ud, int iter, const double *theta, const crfp_ckpt_piece *pieces,
                        size_t npieces);
    void *ud;
} crfp_train_ckpt;

typedef struct crfp_trainer_vtable {
    size_t size;      /* CRFP_VTABLE_SIZE(crfp_trainer_vtable) */
    uint64_t needs;   /* CRFP_TS_* capabilities the trainer cannot do without */
    /* Minimise the objective of `ts` from the starting point in theta (a
     * warm start, the previous trainer's solution in a chain, or zeros); on
     * return theta holds the solution (also on CRFP_EINTR).  `params` holds
     * the trainer's own parameters and the common ones (rho1, rho2, ...). */
    crfp_status (*train)(crfp_host *host, const crfp_params *params, const crfp_trainset *ts,
                         double *theta);
#if CRFP_ABI_TARGET_MINOR >= 3
    /* 2.3, optional: `train` with checkpoints.  Resumes from ck->state when
     * it is set (what this trainer saved at iteration ck->iter, with the
     * same parameters and training set: the run must then continue exactly
     * as the uninterrupted one would have), and offers its state through
     * ck->save whenever ck->due says so.  The host calls it instead of
     * `train` when the user asks for checkpoints (--checkpoint) or to
     * resume, and refuses both for trainers without it.  Errors: as
     * `train`, and CRFP_EFORMAT for a state it cannot use (message naming
     * what differs). */
    crfp_status (*resume)(crfp_host *host, const crfp_params *params, const crfp_trainset *ts,
                          double *theta, const crfp_train_ckpt *ck);
#endif
} crfp_trainer_vtable;

#ifdef __cplusplus
}
#endif
#endif
