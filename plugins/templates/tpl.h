/* templates plugin — internal interface between the parser (tplparse.c),
 * the extractor (tplextract.c) and the vtable glue (templates.c).
 *
 * A template file compiles into a flat program: each pattern is a run of
 * pieces, each piece either literal bytes or a reference to one cell
 * (row offset, column) with an operation applied to it.  Extraction then
 * only walks these arrays; nothing is parsed or allocated per token.
 */
#ifndef CRFP_TEMPLATES_TPL_H
#define CRFP_TEMPLATES_TPL_H

#include <stddef.h>
#include <unicode/uregex.h>
#include <unicode/ucasemap.h>
#include "crfpipe/crfpipe.h"

enum tpl_piece_kind { TPL_LIT = 0, TPL_CELL = 1 };

typedef struct tpl_piece {
    int kind;
    char op;              /* CELL: 'x' 'X' 't' 'T' 'm' 'M' 'p' 's' 'w' */
    int row;              /* CELL: offset from the current token */
    long col;             /* CELL: column index, or -1 when named */
    size_t name;          /* CELL with col < 0: index into tpl.names */
    size_t rx;            /* CELL 't'/'m'/'T'/'M': index into tpl.rx, or into
                             tpl.wrx in the Wapiti dialect */
    int len;              /* CELL 'p'/'s': number of characters */
    int absolute;         /* CELL, Wapiti dialect: row counts from the ends
                             ("%x[@1,0]" the first token, "@-1" the last) */
    size_t lit, litlen;   /* LIT: bytes tpl.lits[lit .. lit+litlen) */
} tpl_piece;

typedef struct tpl_pattern {
    unsigned flags;       /* CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM */
    int line;             /* in the template text, for messages */
    size_t first, n;      /* pieces[first .. first+n) */
} tpl_pattern;

typedef struct tpl {
    char *origin;                 /* file or model name for messages */
    tpl_pattern *pats;
    size_t npats;
    tpl_piece *pieces;
    size_t npieces;
    char *lits;                   /* literal bytes of every piece */
    size_t nlits;
    char **names;                 /* distinct column names used */
    int *name_line;               /* first template line using each name */
    size_t nnames;
    URegularExpression **rx;      /* compiled once; only cloned afterwards */
    size_t nrx;
    long maxcol;                  /* largest numeric column, -1 if none */
    int maxcol_line;
    UCaseMap *lower;              /* root-locale lowercasing for %X */
    char *columns;                /* declared column names ("a b c"), or NULL */
    int32_t rx_time;              /* ICU time limit of each regex clone (0 = none) */
    int32_t rx_stack;             /* ICU backtrack stack limit in bytes (0 = none) */
    char *after;                  /* '#!after' prerequisites, one "ID: PREREQ:\n" line
                                     each (observation prefixes), or NULL */
    int wapiti;                   /* '#!wapiti': the patterns are read, and their
                                     observations spelled, as Wapiti does */
    int wapiti_me;                /* '#!wapiti-me': the same, each token a sequence
                                     of its own as wapiti --me reads data, each
                                     observation the unigram "u"+observation */
    int crfpp;                    /* '#!crf++': CRF++'s identifiers (none added,
                                     duplicates shared) */
    char **wrx;                   /* the Wapiti dialect's regexes, as written */
    size_t nwrx;
} tpl;

/* Compile `len` bytes of template text.  `origin` names the text in
 * messages ("FILE:LINE: ..."); `columns` (may be NULL) is a whitespace or
 * comma separated list of column names: when given, names in the template
 * resolve to those positions now and an unknown name is an error; when
 * NULL, names are resolved against each sentence's column names.
 * Errors: CRFP_EPARSE (syntax, bad regex, unknown column), CRFP_ENOMEM.
 * On success *out is owned by the caller (tpl_free). */
crfp_status tpl_compile(crfp_host *host, const char *text, size_t len, const char *origin,
                        const char *columns, tpl **out);
void tpl_free(tpl *t);   /* NULL accepted */

/* The extractor: a compiled template plus a pool of per-call workspaces
 * (regex clones and buffers), so concurrent extract calls never share a
 * matcher.  Each clone gets the host's regex-time and regex-stack limits
 * once, when the workspace is made, so matching pays nothing for them; a
 * match that exceeds one fails with CRFP_EPARSE naming the template line,
 * the limit and how to raise it.  Takes ownership of `t` (also on failure).  `host` receives the
 * errors found while extracting and must outlive the extractor. */
typedef struct tpl_extractor tpl_extractor;
crfp_status tpl_extractor_new(crfp_host *host, tpl *t, tpl_extractor **out);
void tpl_extractor_free(tpl_extractor *ex);   /* NULL accepted */
const tpl *tpl_extractor_tpl(const tpl_extractor *ex);

/* Fill `out` with the observations of `seq`.  Thread-safe for distinct
 * `out`.  Errors: CRFP_EPARSE when a column named or numbered by the
 * template does not exist in `seq` (message "FILE:LINE: ..."),
 * CRFP_EUTF8 / CRFP_EPLUGIN when ICU rejects a cell, CRFP_ENOMEM. */
crfp_status tpl_extract(tpl_extractor *ex, const crfp_tokseq *seq, crfp_obsseq *out);

/* Wapiti's regular expressions (tplwapiti.c), for templates in its
 * dialect.  Whether the n bytes at re are a regex Wapiti would run to the
 * end: NULL, or what is wrong with it (a static string).  Pure. */
const char *tpl_wrx_check(const char *re, size_t n);

/* The leftmost match of the checked, NUL-terminated regex re in s, as
 * Wapiti finds it: its offset, with its length in *len; -1 when there is
 * none; -2 when *budget (backtracking steps, counted down; NULL for no
 * limit) runs out first.  Pure apart from *budget. */
long tpl_wrx_find(const char *re, const char *s, size_t *len, unsigned long *budget);

#endif
