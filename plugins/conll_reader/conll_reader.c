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
#include "colio.h"

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
};

enum { SEP_AUTO, SEP_SPACE, SEP_TAB };

typedef struct tokrec {
    size_t start, end;   /* UTF-16 offsets */
    size_t field0;       /* index of its first field in reader.fields */
    char *seps;          /* NULL when regular */
} tokrec;

typedef struct sentrec {
    size_t tok0, ntok;
    char *before;        /* NULL when the default */
} sentrec;

typedef struct reader {
    crfp_host *host;
    const crfp_params *params;
    colio_lines L;
    const char *colspec;
    int sepmode, docstart;
    int64_t max_sent;
    int eof;
    crfp_status failed;
    unsigned long ndocs;

    /* the document being assembled */
    colio_buf text, header, blanks;
    size_t pos16;
    char **fields;
    size_t nfields, capfields;
    tokrec *toks;
    size_t ntoks, captoks;
    sentrec *sents;
    size_t nsents, capsents;
    size_t ncols;
    unsigned long cols_line;
    char **names;
    colio_buf colnames;
    int sep_tab, crlf, final_nl_missing, in_sent, consumed;

    /* one line split: fields [fo[i], fo[i]+fl[i]), runs [ro[i], ro[i]+rl[i]),
     * run 0 before the first field, run nf after the last */
    size_t *fo, *fl, *ro, *rl, capsplit;
} reader;

static crfp_status oom(reader *r)
{
    return crfp_error(r->host, CRFP_ENOMEM, "%s:%lu: out of memory", r->L.in->name,
                      r->L.lineno);
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
    size_t **arrs[] = {&r->fo, &r->fl, &r->ro, &r->rl};
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
            while (i < n && s[i] != '\t')
                i++;
            if (i == fs)
                return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: empty field %zu",
                                  r->L.in->name, r->L.lineno, k + 1);
            if ((st = split_reserve(r, k + 2)) != CRFP_OK)
                return st;
            r->fo[k] = fs;
            r->fl[k] = i - fs;
            k++;
            r->ro[k] = i;
            r->rl[k] = i < n;
            if (i == n)
                break;
            i++;
        }
    } else {
        for (;;) {
            if ((st = split_reserve(r, k + 2)) != CRFP_OK)
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
            r->fo[k] = fs;
            r->fl[k] = i - fs;
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
    if (!r->consumed) {
        r->crlf = r->L.crlf;
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
        if (r->nsents == r->capsents) {
            size_t cap = r->capsents ? r->capsents * 2 : 64;
            sentrec *p = realloc(r->sents, cap * sizeof *p);
            if (!p)
                return oom(r);
            r->sents = p;
            r->capsents = cap;
        }
        sentrec *s = &r->sents[r->nsents];
        s->tok0 = r->ntoks;
        s->ntok = 0;
        s->before = NULL;
        int dflt = r->nsents == 0 ? r->blanks.len == 0
                                  : r->blanks.len == 1 && r->blanks.s[0] == '\n';
        if (r->nsents == 0) {
            if (r->blanks.len && colio_buf_add(&r->header, r->blanks.s, r->blanks.len) != CRFP_OK)
                return oom(r);
        } else if (!dflt && !(s->before = strdup(r->blanks.len ? r->blanks.s : ""))) {
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
    if (r->ntoks == r->captoks) {
        size_t cap = r->captoks ? r->captoks * 2 : 256;
        tokrec *p = realloc(r->toks, cap * sizeof *p);
        if (!p)
            return oom(r);
        r->toks = p;
        r->captoks = cap;
    }
    if (r->nfields + nf > r->capfields) {
        size_t cap = r->capfields ? r->capfields * 2 : 1024;
        while (cap < r->nfields + nf)
            cap *= 2;
        char **p = realloc(r->fields, cap * sizeof *p);
        if (!p)
            return oom(r);
        r->fields = p;
        r->capfields = cap;
    }
    tokrec *t = &r->toks[r->ntoks];
    t->field0 = r->nfields;
    t->seps = NULL;
    for (size_t k = 0; k < nf; k++) {
        if (!(r->fields[r->nfields] = strndup(r->L.line + r->fo[k], r->fl[k])))
            return oom(r);
        r->nfields++;
    }
    r->ntoks++;
    crfp_status lst = colio_sentence_limit(&r->L, ++r->sents[r->nsents - 1].ntok);
    if (lst != CRFP_OK)
        return lst;

    const char *w = r->L.line + r->fo[0];
    t->start = r->pos16;
    r->pos16 += colio_utf16_len(w, r->fl[0]);
    t->end = r->pos16;
    if (colio_buf_add(&r->text, w, r->fl[0]) != CRFP_OK)
        return oom(r);

    int regular = r->rl[0] == 0 && r->rl[nf] == 0;
    for (size_t k = 1; regular && k < nf; k++)
        regular = r->rl[k] == 1 && r->L.line[r->ro[k]] == (r->sep_tab ? '\t' : ' ');
    if (!regular) {
        colio_buf b = {0};
        for (size_t k = 0; k <= nf; k++)
            if ((k && colio_buf_add(&b, "|", 1) != CRFP_OK) ||
                colio_buf_add(&b, r->L.line + r->ro[k], r->rl[k]) != CRFP_OK) {
                colio_buf_free(&b);
                return oom(r);
            }
        t->seps = b.s;
    }
    if (!r->L.has_nl)
        r->final_nl_missing = 1;
    return CRFP_OK;
}

static void reset_doc(reader *r)
{
    for (size_t i = 0; i < r->nfields; i++)
        free(r->fields[i]);
    for (size_t i = 0; i < r->ntoks; i++)
        free(r->toks[i].seps);
    for (size_t i = 0; i < r->nsents; i++)
        free(r->sents[i].before);
    r->nfields = r->ntoks = r->nsents = 0;
    r->text.len = r->header.len = r->blanks.len = 0;
    r->pos16 = 0;
    free_names(r);
    r->ncols = 0;
    r->sep_tab = r->crlf = r->final_nl_missing = r->in_sent = r->consumed = 0;
}

/* Read lines until the document ends: at a DOCSTART line after some
 * content, after max-sentences sentences, or at the end of the stream. */
static crfp_status read_doc(reader *r)
{
    crfp_status st;
    for (;;) {
        int got;
        if ((st = colio_next(&r->L, &got)) != CRFP_OK)
            return st;
        if (!got) {
            r->eof = 1;
            return CRFP_OK;
        }
        if (r->docstart && is_docstart(r)) {
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
        if (is_blank(r->L.line, r->L.len)) {
            if ((st = check_newline(r)) != CRFP_OK)
                return st;
            r->consumed = 1;
            r->in_sent = 0;
            if ((st = add_raw_line(r, &r->blanks)) != CRFP_OK)
                return st;
            continue;
        }
        if (!r->in_sent && r->max_sent > 0 && r->nsents >= (size_t)r->max_sent) {
            colio_unread(&r->L);
            return CRFP_OK;
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
    char id[32];
    snprintf(id, sizeof id, "d%lu", ++r->ndocs);
    crfp_doc *doc = crfp_doc_new(id);
    if (!doc)
        return oom(r);
    crfp_status st = crfp_doc_set_text(r->host, doc, r->text.s ? r->text.s : "", r->text.len);
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
        st = oom(r);
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

    for (size_t s = 0; s < r->nsents; s++) {
        const sentrec *sr = &r->sents[s];
        crfp_ann *sa;
        if ((st = crfp_annset_add(r->host, doc, set, "Sentence", r->toks[sr->tok0].start,
                                  r->toks[sr->tok0 + sr->ntok - 1].end, &sa)) != CRFP_OK)
            goto fail;
        if (sr->before && (st = crfp_ann_set_str(doc, sa, "before", sr->before)) != CRFP_OK)
            goto fail;
        for (size_t t = sr->tok0; t < sr->tok0 + sr->ntok; t++) {
            const tokrec *tr = &r->toks[t];
            crfp_ann *ta;
            if ((st = crfp_annset_add(r->host, doc, set, "Token", tr->start, tr->end, &ta)) !=
                CRFP_OK)
                goto fail;
            for (size_t k = 0; k < r->ncols; k++)
                if ((st = crfp_ann_set_str(doc, ta, r->names[k], r->fields[tr->field0 + k])) !=
                    CRFP_OK)
                    goto fail;
            if (tr->seps && (st = crfp_ann_set_str(doc, ta, "seps", tr->seps)) != CRFP_OK)
                goto fail;
        }
    }
    *out = doc;
    return CRFP_OK;
fail:
    crfp_doc_free(doc);
    if (st == CRFP_ENOMEM)
        return oom(r);
    return crfp_error_prefix(r->host, "%s: document ending at line %lu", r->L.in->name,
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
    if (r->max_sent < 0) {
        free(r);
        return crfp_error(host, CRFP_EINVAL, "conll_reader: max-sentences must be >= 0");
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
    reset_doc(r);
    crfp_status st = read_doc(r);
    /* Input of blank lines only is no document at all (not an empty one,
     * which writers and taggers would have to special-case). */
    if (st == CRFP_OK && r->consumed && (r->nsents || r->header.len))
        st = build_doc(r, doc);
    reset_doc(r);
    r->failed = st;
    return st;
}

static void r_close(void *state)
{
    reader *r = state;
    if (!r)
        return;
    reset_doc(r);
    colio_buf_free(&r->text);
    colio_buf_free(&r->header);
    colio_buf_free(&r->blanks);
    free(r->fields);
    free(r->toks);
    free(r->sents);
    free(r->fo);
    free(r->fl);
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
