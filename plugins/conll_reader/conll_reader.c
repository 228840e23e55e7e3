/* conll_reader — CoNLL-2000/2003 column files to documents.
 *
 * Each non-blank line is a token whose whitespace-separated fields become
 * string features of a Token annotation; blank lines end sentences.  The
 * document text is the first column of each sentence joined by single
 * spaces, one sentence per line.  Everything else in the file (the
 * -DOCSTART- lines, the exact blank-line runs, odd spacing, a missing final
 * newline, CRLF) is recorded in document meta and in Sentence/Token
 * features so that conll_writer reproduces the input byte for byte:
 *   meta header      raw text before the first sentence (DOCSTART line, blanks)
 *   meta trailer     raw text after the last sentence ("" when none)
 *   meta separator   "space" or "tab": what joins the fields of a line
 *   meta final-newline  "false" when the file's last line had no '\n'
 *   meta newline     "crlf" when lines end in "\r\n"
 *   Sentence before  raw blank lines before it, when not exactly one "\n"
 *   Token seps       the whitespace runs around and between its fields,
 *                    joined by '|', when not exactly one separator each
 */
#include "config.h"
#include "../common/colio.h"

#include <stdlib.h>
#include <string.h>

static const crfp_param_spec params[] = {
    {"columns", CRFP_PARAM_STRING, "",
     "comma-separated column names; default: word, col1..colN-2, label (1 column: word)"},
    {"separator", CRFP_PARAM_STRING, "auto",
     "auto (runs of spaces/tabs), space (runs of spaces) or tab (each tab)"},
    {"docstart", CRFP_PARAM_BOOL, "true", "a -DOCSTART- line starts a new document"},
    {"max-sentences", CRFP_PARAM_INT, "0",
     "start a new document every N sentences (0 = unlimited), to bound memory"},
    {"batch-bytes", CRFP_PARAM_INT, "65536",
     "continue a long document in a new one (id dN.2, dN.3...) once this many bytes of input "
     "were read, at the next sentence, so that memory stays bounded (0 = never)"},
};

enum { SEP_AUTO, SEP_SPACE, SEP_TAB };

typedef struct tokrec {
    size_t start, end;   /* UTF-16 offsets */
    size_t field0;       /* index of its first field in reader.fo */
    size_t seps;         /* offset + 1 of its recorded spacing in reader.seps, 0 = regular */
} tokrec;

typedef struct sentrec {
    size_t tok0, ntok;
    size_t before;       /* offset + 1 of its blank lines in reader.befores, 0 = default */
} sentrec;

typedef struct reader {
    crfp_host *host;
    const crfp_params *params;
    colio_lines L;
    const char *colspec;
    int sepmode, docstart;
    int64_t max_sent, batch_bytes;
    int eof;
    crfp_status failed;
    unsigned long ndocs, part;  /* logical document, and batch within it */
    int continued;              /* the next batch continues the document */

    /* the batch being assembled; fields are offsets into the line buffer
     * (L.data), NUL-terminated in place, so that the document can take the
     * buffer and its features point into it */
    colio_buf text, header, blanks, seps, befores;
    size_t pos16;
    size_t *fo, *fl;     /* field offsets and lengths, ncols per token */
    size_t nfields, capfields, capfl;
    tokrec *toks;
    size_t ntoks, captoks;
    sentrec *sents;
    size_t nsents, capsents;
    int in_sent, consumed;
    /* kept across the batches of one document */
    size_t ncols;
    unsigned long cols_line;
    char **names;
    colio_buf colnames;
    int sep_tab, crlf, crlf_known, final_nl_missing;

    /* one line split: fields [sf[i], sf[i]+sl[i]), runs [ro[i], ro[i]+rl[i]),
     * run 0 before the first field, run nf after the last */
    size_t *sf, *sl, *ro, *rl, capsplit;
} reader;

static crfp_status oom(reader *r)
{
    return crfp_error(r->host, CRFP_ENOMEM, "%s:%lu: out of memory", r->L.in->name,
                      r->L.lineno);
}

static int grow(void **p, size_t *cap, size_t need, size_t elsize, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : first;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elsize);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int is_delim(const reader *r, char c)
{
    if (r->sepmode == SEP_TAB)
        return c == '\t';
    if (r->sepmode == SEP_SPACE)
        return c == ' ';
    return c == ' ' || c == '\t';
}

static crfp_status split_reserve(reader *r, size_t n)
{
    if (n <= r->capsplit)
        return CRFP_OK;
    size_t cap = r->capsplit ? r->capsplit * 2 : 16;
    while (cap < n)
        cap *= 2;
    size_t **arrs[] = {&r->sf, &r->sl, &r->ro, &r->rl};
    for (size_t i = 0; i < 4; i++) {
        size_t *p = realloc(*arrs[i], cap * sizeof *p);
        if (!p)
            return oom(r);
        *arrs[i] = p;
    }
    r->capsplit = cap;
    return CRFP_OK;
}

/* Split the current line into fields and whitespace runs.  In tab mode each
 * tab separates exactly one pair of fields, so an empty field is an error. */
static crfp_status split(reader *r, size_t *nf)
{
    const char *s = r->L.line;
    size_t n = r->L.len, i = 0, k = 0;
    crfp_status st;
    if (r->sepmode == SEP_TAB) {
        if ((st = split_reserve(r, 2)) != CRFP_OK)
            return st;
        r->ro[0] = r->rl[0] = 0;
        for (;;) {
            size_t fs = i;
            const char *t = memchr(s + i, '\t', n - i);
            i = t ? (size_t)(t - s) : n;
            if (i == fs)
                return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: empty field %zu",
                                  r->L.in->name, r->L.lineno, k + 1);
            if ((st = split_reserve(r, k + 2)) != CRFP_OK)
                return st;
            r->sf[k] = fs;
            r->sl[k] = i - fs;
            k++;
            r->ro[k] = i;
            r->rl[k] = i < n;
            if (i == n)
                break;
            i++;
        }
    } else {
        for (;;) {
            if (k + 2 > r->capsplit && (st = split_reserve(r, k + 2)) != CRFP_OK)
                return st;
            size_t rs = i;
            while (i < n && is_delim(r, s[i]))
                i++;
            r->ro[k] = rs;
            r->rl[k] = i - rs;
            if (i == n)
                break;
            size_t fs = i;
            while (i < n && !is_delim(r, s[i]))
                i++;
            r->sf[k] = fs;
            r->sl[k] = i - fs;
            k++;
        }
    }
    *nf = k;
    return CRFP_OK;
}

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

static int is_docstart(const reader *r)
{
    const char *s = r->L.line;
    size_t n = r->L.len, i = 0;
    while (i < n && is_delim(r, s[i]))
        i++;
    if (n - i < 10 || memcmp(s + i, "-DOCSTART-", 10) != 0)
        return 0;
    return i + 10 == n || is_delim(r, s[i + 10]);
}

/* The raw line with its terminator, as blank lines and DOCSTART lines are
 * kept ("\n" stands for either terminator; meta newline says which). */
static crfp_status add_raw_line(reader *r, colio_buf *b)
{
    if (colio_buf_add(b, r->L.line, r->L.len) != CRFP_OK ||
        (r->L.has_nl && colio_buf_add(b, "\n", 1) != CRFP_OK))
        return oom(r);
    return CRFP_OK;
}

static crfp_status check_newline(reader *r)
{
    if (!r->L.has_nl)
        return CRFP_OK;
    if (!r->crlf_known) {
        r->crlf = r->L.crlf;
        r->crlf_known = 1;
        return CRFP_OK;
    }
    if (r->crlf != r->L.crlf)
        return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: mixed LF and CRLF line endings",
                          r->L.in->name, r->L.lineno);
    return CRFP_OK;
}

static void free_names(reader *r)
{
    if (r->names)
        for (size_t i = 0; i < r->ncols; i++)
            free(r->names[i]);
    free(r->names);
    r->names = NULL;
    r->ncols = 0;
    colio_buf_free(&r->colnames);
}

/* Column names for a document whose first token line has nf fields. */
static crfp_status set_names(reader *r, size_t nf)
{
    r->names = calloc(nf, sizeof *r->names);
    if (!r->names)
        return oom(r);
    r->ncols = nf;
    if (r->colspec && *r->colspec) {
        const char *p = r->colspec;
        size_t k = 0;
        for (;;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            while (len && (*p == ' ' || *p == '\t'))
                p++, len--;
            while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
                len--;
            if (len == 0)
                return crfp_error(r->host, CRFP_EINVAL,
                                  "%s:%lu: parameter columns='%s' has an empty name",
                                  r->L.in->name, r->L.lineno, r->colspec);
            if (k < nf && !(r->names[k] = strndup(p, len)))
                return oom(r);
            k++;
            if (!e)
                break;
            p = e + 1;
        }
        if (k != nf)
            return crfp_error(r->host, CRFP_EPARSE,
                              "%s:%lu: line has %zu fields but columns='%s' names %zu",
                              r->L.in->name, r->L.lineno, nf, r->colspec, k);
    } else {
        for (size_t k = 0; k < nf; k++) {
            char tmp[32];
            if (k == 0)
                strcpy(tmp, "word");
            else if (k == nf - 1)
                strcpy(tmp, "label");
            else
                snprintf(tmp, sizeof tmp, "col%zu", k);
            if (!(r->names[k] = strdup(tmp)))
                return oom(r);
        }
    }
    for (size_t k = 0; k < nf; k++)
        if ((k && colio_buf_add(&r->colnames, ",", 1) != CRFP_OK) ||
            colio_buf_add(&r->colnames, r->names[k], strlen(r->names[k])) != CRFP_OK)
            return oom(r);
    return CRFP_OK;
}

static crfp_status add_token_line(reader *r)
{
    size_t nf = 0;
    crfp_status st = split(r, &nf);
    if (st != CRFP_OK)
        return st;
    if (!r->names) {
        if ((st = set_names(r, nf)) != CRFP_OK)
            return st;
        r->cols_line = r->L.lineno;
        r->sep_tab = nf > 1 && r->rl[1] == 1 && r->L.line[r->ro[1]] == '\t';
    } else if (nf != r->ncols) {
        return crfp_error(r->host, CRFP_EPARSE,
                          "%s:%lu: %zu fields, but the document's first token line (%lu) has %zu",
                          r->L.in->name, r->L.lineno, nf, r->cols_line, r->ncols);
    }
    if (!r->in_sent) {
        if (grow((void **)&r->sents, &r->capsents, r->nsents + 1, sizeof *r->sents, 64))
            return oom(r);
        sentrec *s = &r->sents[r->nsents];
        s->tok0 = r->ntoks;
        s->ntok = 0;
        s->before = 0;
        int dflt = r->nsents == 0 ? r->blanks.len == 0
                                  : r->blanks.len == 1 && r->blanks.s[0] == '\n';
        if (r->nsents == 0) {
            if (r->blanks.len && colio_buf_add(&r->header, r->blanks.s, r->blanks.len) != CRFP_OK)
                return oom(r);
        } else if (!dflt) {
            s->before = r->befores.len + 1;
            if (colio_buf_add(&r->befores, r->blanks.len ? r->blanks.s : "", r->blanks.len + 1) !=
                CRFP_OK)
                return oom(r);
        }
        r->blanks.len = 0;
        r->nsents++;
        r->in_sent = 1;
        if (r->nsents > 1 && colio_buf_add(&r->text, "\n", 1) != CRFP_OK)
            return oom(r);
        r->pos16 += r->nsents > 1;
    } else {
        if (colio_buf_add(&r->text, " ", 1) != CRFP_OK)
            return oom(r);
        r->pos16++;
    }
    if (grow((void **)&r->toks, &r->captoks, r->ntoks + 1, sizeof *r->toks, 256) ||
        grow((void **)&r->fo, &r->capfields, r->nfields + nf, sizeof *r->fo, 1024) ||
        grow((void **)&r->fl, &r->capfl, r->nfields + nf, sizeof *r->fl, 1024))
        return oom(r);
    tokrec *t = &r->toks[r->ntoks];
    t->field0 = r->nfields;
    t->seps = 0;
    int regular = r->rl[0] == 0 && r->rl[nf] == 0;
    for (size_t k = 1; regular && k < nf; k++)
        regular = r->rl[k] == 1 && r->L.line[r->ro[k]] == (r->sep_tab ? '\t' : ' ');
    if (!regular) {
        t->seps = r->seps.len + 1;
        for (size_t k = 0; k <= nf; k++)
            if ((k && colio_buf_add(&r->seps, "|", 1) != CRFP_OK) ||
                colio_buf_add(&r->seps, r->L.line + r->ro[k], r->rl[k]) != CRFP_OK)
                return oom(r);
        if (colio_buf_add(&r->seps, "", 1) != CRFP_OK)
            return oom(r);
    }
    const char *w = r->L.line + r->sf[0];
    t->start = r->pos16;
    r->pos16 += r->L.ascii ? r->sl[0] : colio_utf16_len(w, r->sl[0]);
    t->end = r->pos16;
    if (colio_buf_add(&r->text, w, r->sl[0]) != CRFP_OK)
        return oom(r);
    /* The fields become strings in place: the byte after each (a separator,
     * the line's terminator, or the buffer's spare byte) turns into NUL. */
    size_t base = colio_off(&r->L);
    for (size_t k = 0; k < nf; k++) {
        r->fl[r->nfields] = r->sl[k];
        r->fo[r->nfields++] = base + r->sf[k];
        r->L.line[r->sf[k] + r->sl[k]] = '\0';
    }
    r->ntoks++;
    crfp_status lst = colio_sentence_limit(&r->L, ++r->sents[r->nsents - 1].ntok);
    if (lst != CRFP_OK)
        return lst;
    if (!r->L.has_nl)
        r->final_nl_missing = 1;
    return CRFP_OK;
}

/* Forget the batch; with `whole`, also what the document's batches share. */
static void reset_batch(reader *r, int whole)
{
    r->nfields = r->ntoks = r->nsents = 0;
    r->text.len = r->header.len = r->blanks.len = r->seps.len = r->befores.len = 0;
    r->pos16 = 0;
    r->in_sent = r->consumed = 0;
    r->final_nl_missing = 0;
    if (whole) {
        free_names(r);
        r->sep_tab = r->crlf = r->crlf_known = 0;
    }
}

/* Read lines until the batch ends: at a DOCSTART line after some content
 * (a new document), after max-sentences sentences, at a sentence starting
 * once batch-bytes were read (the document continues in the next batch),
 * or at the end of the stream. */
static crfp_status read_batch(reader *r)
{
    crfp_status st;
    r->continued = 0;
    for (;;) {
        int got;
        if ((st = colio_next(&r->L, &got)) != CRFP_OK)
            return st;
        if (!got) {
            r->eof = 1;
            return CRFP_OK;
        }
        const char *s = r->L.line;
        /* Token lines first: they are nearly all the lines. */
        int blank = r->L.len == 0 || ((s[0] == ' ' || s[0] == '\t') && is_blank(s, r->L.len));
        if (!blank && r->docstart && (s[0] == '-' || s[0] == ' ' || s[0] == '\t') &&
            is_docstart(r)) {
            if (r->consumed) {
                colio_unread(&r->L);
                return CRFP_OK;
            }
            if ((st = check_newline(r)) != CRFP_OK)
                return st;
            r->consumed = 1;
            if ((st = add_raw_line(r, &r->header)) != CRFP_OK)
                return st;
            continue;
        }
        if (blank) {
            if ((st = check_newline(r)) != CRFP_OK)
                return st;
            r->consumed = 1;
            r->in_sent = 0;
            if ((st = add_raw_line(r, &r->blanks)) != CRFP_OK)
                return st;
            continue;
        }
        if (!r->in_sent && r->nsents > 0) {
            if (r->max_sent > 0 && r->nsents >= (size_t)r->max_sent) {
                colio_unread(&r->L);
                return CRFP_OK;
            }
            if (r->batch_bytes > 0 && colio_off(&r->L) >= (size_t)r->batch_bytes) {
                colio_unread(&r->L);
                r->continued = 1;
                return CRFP_OK;
            }
        }
        if ((st = check_newline(r)) != CRFP_OK)
            return st;
        r->consumed = 1;
        if ((st = add_token_line(r)) != CRFP_OK)
            return st;
    }
}

static crfp_status build_doc(reader *r, crfp_doc **out)
{
    char id[48];
    if (r->part > 1)
        snprintf(id, sizeof id, "d%lu.%lu", r->ndocs, r->part);
    else
        snprintf(id, sizeof id, "d%lu", r->ndocs);
    crfp_doc *doc = crfp_doc_new(id);
    char *lines = NULL;
    size_t nlines = 0;
    crfp_status st = colio_take(&r->L, &lines, &nlines);
    if (st != CRFP_OK) {
        crfp_doc_free(doc);
        return st;
    }
    if (!doc) {
        free(lines);
        return oom(r);
    }
    if ((st = crfp_doc_adopt(doc, lines, nlines + 1)) != CRFP_OK)
        goto fail;
    /* The text buffer goes to the document as it is; the next batch starts
     * a new one. */
    if (r->text.s) {
        st = crfp_doc_set_text_owned(r->host, doc, r->text.s, r->text.len);
        r->text.s = NULL;
        r->text.len = r->text.cap = 0;
    } else {
        st = crfp_doc_set_text(r->host, doc, "", 0);
    }
    if (st != CRFP_OK)
        goto fail;
    if (crfp_doc_offset_unit(doc) != CRFP_OFFSET_UTF16) {
        st = crfp_error(r->host, CRFP_EINVAL, "%s: documents must default to UTF-16 offsets",
                        r->L.in->name);
        goto fail;
    }
    const char *cols = r->colnames.s ? r->colnames.s : "";
    if ((st = crfp_doc_meta_set_str(doc, "format", "conll")) != CRFP_OK ||
        (st = crfp_doc_meta_set_str(doc, "columns", cols)) != CRFP_OK ||
        (st = crfp_doc_meta_set_str(doc, "separator", r->sep_tab ? "tab" : "space")) != CRFP_OK ||
        (r->header.len &&
         (st = crfp_doc_meta_set_str(doc, "header", r->header.s)) != CRFP_OK) ||
        (st = crfp_doc_meta_set_str(doc, "trailer", r->blanks.len ? r->blanks.s : "")) !=
            CRFP_OK ||
        (r->final_nl_missing &&
         (st = crfp_doc_meta_set_str(doc, "final-newline", "false")) != CRFP_OK) ||
        (r->crlf && (st = crfp_doc_meta_set_str(doc, "newline", "crlf")) != CRFP_OK))
        goto fail;

    crfp_annset *set = crfp_doc_annset(doc, "", 1);
    if (!set) {
        st = CRFP_ENOMEM;
        goto fail;
    }
    const char *pn[8], *pv[8];
    size_t np = 0;
    const char *name, *value;
    for (size_t i = 0; np < 8 && crfp_params_iter(r->params, i, &name, &value); i++) {
        pn[np] = name;
        pv[np] = strcmp(name, "columns") == 0 ? cols : value;
        np++;
    }
    if ((st = crfp_annset_add_processor(doc, set, "conll_reader", PACKAGE_VERSION, pn, pv, np)) !=
        CRFP_OK)
        goto fail;

    /* Interned once per batch: the setters then skip the name lookup. */
    const char *inames[64], **names = inames, *ivals[64], **vals = ivals;
    if (r->ncols > 64 && (!(names = malloc(r->ncols * sizeof *names)) ||
                          !(vals = malloc(r->ncols * sizeof *vals)))) {
        if (names != inames)
            free(names);
        st = CRFP_ENOMEM;
        goto fail;
    }
    const char *tok_t = crfp_doc_intern(doc, "Token"), *seps_n = crfp_doc_intern(doc, "seps");
    for (size_t k = 0; k < r->ncols; k++)
        if (!(names[k] = crfp_doc_intern(doc, r->names[k])))
            st = CRFP_ENOMEM;
    if (!tok_t || !seps_n)
        st = CRFP_ENOMEM;
    for (size_t s = 0; s < r->nsents && st == CRFP_OK; s++) {
        const sentrec *sr = &r->sents[s];
        crfp_ann *sa;
        if ((st = crfp_annset_add(r->host, doc, set, "Sentence", r->toks[sr->tok0].start,
                                  r->toks[sr->tok0 + sr->ntok - 1].end, &sa)) != CRFP_OK)
            break;
        if (sr->before &&
            (st = crfp_ann_set_str(doc, sa, "before", r->befores.s + sr->before - 1)) != CRFP_OK)
            break;
        for (size_t t = sr->tok0; t < sr->tok0 + sr->ntok && st == CRFP_OK; t++) {
            const tokrec *tr = &r->toks[t];
            crfp_ann *ta;
            if ((st = crfp_annset_add(r->host, doc, set, tok_t, tr->start, tr->end, &ta)) !=
                    CRFP_OK ||
                (st = crfp_ann_reserve(doc, ta, r->ncols + (tr->seps != 0))) != CRFP_OK)
                break;
            const size_t *fo = r->fo + tr->field0;
            for (size_t k = 0; k < r->ncols; k++)
                vals[k] = lines + fo[k];
            st = crfp_ann_set_strs_ref(doc, ta, names, vals, r->fl + tr->field0, r->ncols);
            if (st == CRFP_OK && tr->seps)
                st = crfp_ann_set_str(doc, ta, seps_n, r->seps.s + tr->seps - 1);
        }
    }
    if (names != inames) {
        free(names);
        free(vals);
    }
    if (st != CRFP_OK)
        goto fail;
    *out = doc;
    return CRFP_OK;
fail:
    crfp_doc_free(doc);
    if (st == CRFP_ENOMEM)
        return oom(r);
    return crfp_error_wrap(r->host, st, "%s: document ending at line %lu", r->L.in->name,
                           r->L.lineno);
}

static crfp_status r_open(crfp_host *host, const crfp_params *p, crfp_stream *in, void **state)
{
    reader *r = calloc(1, sizeof *r);
    if (!r)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", in->name);
    r->host = host;
    r->params = p;
    r->L.host = host;
    r->L.in = in;
    r->colspec = crfp_params_str(p, "columns");
    const char *sep = crfp_params_str(p, "separator");
    if (!sep || strcmp(sep, "auto") == 0)
        r->sepmode = SEP_AUTO;
    else if (strcmp(sep, "space") == 0)
        r->sepmode = SEP_SPACE;
    else if (strcmp(sep, "tab") == 0)
        r->sepmode = SEP_TAB;
    else {
        free(r);
        return crfp_error(host, CRFP_EINVAL,
                          "conll_reader: separator='%s': expected auto, space or tab", sep);
    }
    r->docstart = crfp_params_bool(p, "docstart");
    r->max_sent = crfp_params_int(p, "max-sentences");
    r->batch_bytes = crfp_params_int(p, "batch-bytes");
    if (r->max_sent < 0 || r->batch_bytes < 0) {
        const char *what = r->max_sent < 0 ? "max-sentences" : "batch-bytes";
        free(r);
        return crfp_error(host, CRFP_EINVAL, "conll_reader: %s must be >= 0", what);
    }
    *state = r;
    return CRFP_OK;
}

static crfp_status r_next(void *state, crfp_doc **doc)
{
    reader *r = state;
    *doc = NULL;
    if (r->failed)
        return crfp_error(r->host, r->failed, "%s: reader already failed", r->L.in->name);
    if (r->eof)
        return CRFP_OK;
    /* A batch continuing a document keeps its columns, separator and line
     * ends (and their checks); any other starts afresh. */
    int cont = r->continued;
    reset_batch(r, !cont);
    if (cont)
        r->part++;
    else
        r->part = 1;
    crfp_status st = read_batch(r);
    /* Input of blank lines only is no document at all (not an empty one,
     * which writers and taggers would have to special-case). */
    if (st == CRFP_OK && r->consumed && (r->nsents || r->header.len || cont)) {
        if (!cont)
            r->ndocs++;
        st = build_doc(r, doc);
    }
    r->failed = st;
    return st;
}

static void r_close(void *state)
{
    reader *r = state;
    if (!r)
        return;
    reset_batch(r, 1);
    colio_buf_free(&r->text);
    colio_buf_free(&r->header);
    colio_buf_free(&r->blanks);
    colio_buf_free(&r->seps);
    colio_buf_free(&r->befores);
    free(r->fo);
    free(r->fl);
    free(r->toks);
    free(r->sents);
    free(r->sf);
    free(r->sl);
    free(r->ro);
    free(r->rl);
    colio_lines_free(&r->L);
    free(r);
}

/* --- format detection ------------------------------------------------------
 * Confidence 0..100 that buf (the first bytes of an input, up to 64 KiB) is
 * a CoNLL column file (every complete non-blank line the same number of
 * blank-separated fields; -DOCSTART- lines aside); the reader
 * vtable's probe (ABI 2.1). */
static int conll_reader_probe(const char *buf, size_t len)
{
    size_t at = 0, b, e, want = 0;
    int complete, docstart = 0, lines = 0;
    while (colio_probe_line(buf, len, &at, &b, &e, &complete)) {
        if (!complete && len >= COLIO_PROBE_MAX)
            break;
        if (colio_probe_blank(buf + b, e - b))
            continue;
        size_t i = b;
        while (i < e && (buf[i] == ' ' || buf[i] == '\t'))
            i++;
        if (e - i >= 10 && memcmp(buf + i, "-DOCSTART-", 10) == 0) {
            docstart = 1;
            continue;
        }
        size_t fields = 0;
        for (int in = 0; i < e; i++) {
            int sep = buf[i] == ' ' || buf[i] == '\t';
            if (!sep && !in)
                fields++;
            in = !sep;
        }
        if (want && fields != want)
            return 0;
        want = fields;
        lines++;
    }
    return lines ? (docstart ? 80 : 50) : 0;
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = r_open,
    .next = r_next,
    .close = r_close,
    .probe = conll_reader_probe,
};

static const char *const formats[] = {"conll", NULL};
static const char *const extensions[] = {".conll", NULL};

CRFP_PLUGIN_DEFINE(conll_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "conll_reader",
    .kind = CRFP_KIND_READER,
    .version = PACKAGE_VERSION,
    .description = "CoNLL-2000/2003 column files (one token per line, blank line between "
                   "sentences)",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
    /* blank lines end sentences and nothing spans them: a file may be
     * cut after any empty line (distributed training) */
    .flags = CRFP_PLUGIN_SPLIT_BLANK_LINES,
};
