/* conllu_reader — CoNLL-U (https://universaldependencies.org/format.html)
 * to documents.
 *
 * Every word line (integer ID) becomes a Token whose features are the ten
 * columns id form lemma upos xpos feats head deprel deps misc.  Multiword
 * token ranges ("3-4") and empty nodes ("8.1") are not Tokens, so taggers
 * never see them; they become MultiWordToken annotations (spanning their
 * words) and zero-width EmptyNode annotations (after word n), with the same
 * ten features, and conllu_writer puts them back in place.  The text is the
 * word forms joined by spaces, one sentence per line.
 *
 * Layout kept for byte-exact output: the comment lines of a sentence, in
 * order, in its "comments" feature (also parsed into "sent_id" and "text"
 * for convenience); blank-line runs as in conll_reader (meta header/trailer,
 * Sentence "before"), meta final-newline and newline.
 */
#include "config.h"
#include "../common/colio.h"

#include <stdlib.h>
#include <string.h>

static const crfp_param_spec params[] = {
    {"newdoc", CRFP_PARAM_BOOL, "true",
     "a sentence whose first comment is '# newdoc' starts a new document"},
    {"max-sentences", CRFP_PARAM_INT, "0",
     "start a new document every N sentences (0 = unlimited), to bound memory"},
    {"batch-bytes", CRFP_PARAM_INT, "65536",
     "continue a long document in a new one (id ID.2, ID.3...) once this many bytes of input "
     "were read, at the next sentence, so that memory stays bounded (0 = never)"},
};

#define NCOL 10
static const char *const colname[NCOL] = {"id",   "form", "lemma",  "upos", "xpos",
                                          "feats", "head", "deprel", "deps", "misc"};
#define COLUMNS "id,form,lemma,upos,xpos,feats,head,deprel,deps,misc"

enum { IT_WORD, IT_MWT, IT_EMPTY };

typedef struct item {
    int kind;
    size_t field0;   /* NCOL fields in reader.foff / reader.flen */
    size_t a, b;     /* MWT: word ids a..b; EMPTY: after word a (0 = before word 1) */
    size_t word;     /* WORD: index in reader.words */
} item;

typedef struct wordrec {
    size_t start, end;   /* UTF-16 */
} wordrec;

typedef struct sentrec {
    size_t item0, nitem, word0, nword;
    char *before, *comments;
    unsigned long line;
} sentrec;

typedef struct reader {
    crfp_host *host;
    const crfp_params *params;
    colio_lines L;
    int newdoc, eof;
    int64_t max_sent, batch_bytes;
    crfp_status failed;
    unsigned long ndocs, part;  /* logical document, and batch within it */
    int continued;              /* the next batch continues the document */
    int crlf_known;

    colio_buf text, header, blanks, comments;
    size_t pos16;
    /* fields: offsets into the line buffer (the batch the document takes),
     * NUL-terminated in place, and lengths */
    size_t *foff, *flen;
    size_t nfields, capfields, capflen;
    const char *lines;   /* the batch's bytes while the document is built */
    item *items;
    size_t nitems, capitems;
    wordrec *words;
    size_t nwords, capwords;
    sentrec *sents;
    size_t nsents, capsents;
    char *docid;
    int crlf, final_nl_missing, in_sent, consumed;
    /* id checks inside the current sentence */
    size_t last_word, range_end, last_empty_word, last_empty_k;
    unsigned long range_line;
} reader;

static crfp_status oom(reader *r)
{
    return crfp_error(r->host, CRFP_ENOMEM, "%s:%lu: out of memory", r->L.in->name,
                      r->L.lineno);
}

static int grow(void **p, size_t *cap, size_t need, size_t elsize)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elsize);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

static crfp_status add_raw_line(reader *r, colio_buf *b)
{
    if (colio_buf_add(b, r->L.line, r->L.len) != CRFP_OK ||
        (r->L.has_nl && colio_buf_add(b, "\n", 1) != CRFP_OK))
        return oom(r);
    return CRFP_OK;
}

static crfp_status check_newline(reader *r)
{
    if (!r->L.has_nl) {
        r->consumed = 1;
        return CRFP_OK;
    }
    r->consumed = 1;
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

/* Parse a decimal number without sign or leading zero; -1 when s is not one. */
static long long parse_num(const char *s, size_t n)
{
    if (n == 0 || n > 9 || (s[0] == '0' && n > 1))
        return -1;
    long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static crfp_status bad_id(reader *r, const char *id, const char *why)
{
    return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: bad ID '%s': %s", r->L.in->name,
                      r->L.lineno, id, why);
}

/* Start a sentence: its blank-line prefix becomes the header (first
 * sentence) or its "before" feature. */
static crfp_status open_sentence(reader *r)
{
    if (grow((void **)&r->sents, &r->capsents, r->nsents + 1, sizeof *r->sents))
        return oom(r);
    sentrec *s = &r->sents[r->nsents];
    memset(s, 0, sizeof *s);
    s->item0 = r->nitems;
    s->word0 = r->nwords;
    s->line = r->L.lineno;
    if (r->nsents == 0) {
        if (r->blanks.len && colio_buf_add(&r->header, r->blanks.s, r->blanks.len) != CRFP_OK)
            return oom(r);
    } else if (!(r->blanks.len == 1 && r->blanks.s[0] == '\n') &&
               !(s->before = strdup(r->blanks.len ? r->blanks.s : ""))) {
        return oom(r);
    }
    r->blanks.len = 0;
    r->nsents++;
    r->in_sent = 1;
    r->last_word = r->range_end = r->last_empty_word = r->last_empty_k = 0;
    return CRFP_OK;
}

static crfp_status close_sentence(reader *r)
{
    sentrec *s = &r->sents[r->nsents - 1];
    r->in_sent = 0;
    if (r->comments.len && !(s->comments = strdup(r->comments.s)))
        return oom(r);
    r->comments.len = 0;
    if (s->nword == 0)
        return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: sentence has no word lines",
                          r->L.in->name, s->line);
    if (r->range_end > r->last_word)
        return crfp_error(r->host, CRFP_EPARSE,
                          "%s:%lu: multiword token ends at word %zu, but the sentence has %zu",
                          r->L.in->name, r->range_line, r->range_end, r->last_word);
    return CRFP_OK;
}

static crfp_status add_token_line(reader *r)
{
    const char *s = r->L.line;
    size_t n = r->L.len, fo[NCOL], fl[NCOL], k = 0, i = 0;
    for (;;) {
        size_t fs = i;
        while (i < n && s[i] != '\t')
            i++;
        if (k < NCOL) {
            fo[k] = fs;
            fl[k] = i - fs;
        }
        k++;
        if (i == n)
            break;
        i++;
    }
    if (k != NCOL)
        return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: %zu tab-separated fields, CoNLL-U needs %d",
                          r->L.in->name, r->L.lineno, k, NCOL);
    for (k = 0; k < NCOL; k++)
        if (fl[k] == 0)
            return crfp_error(r->host, CRFP_EPARSE, "%s:%lu: empty %s field (use '_')",
                              r->L.in->name, r->L.lineno, colname[k]);

    char id[64];
    snprintf(id, sizeof id, "%.*s", (int)(fl[0] < 60 ? fl[0] : 60), s);
    const char *dash = memchr(s, '-', fl[0]), *dot = memchr(s, '.', fl[0]);
    item it = {0};
    if (dash) {
        long long a = parse_num(s, (size_t)(dash - s));
        long long b = parse_num(dash + 1, fl[0] - (size_t)(dash - s) - 1);
        if (a < 1 || b < 1)
            return bad_id(r, id, "not a range n-m");
        if ((size_t)a != r->last_word + 1 || b <= a)
            return bad_id(r, id, "a range must start at the next word and span two or more");
        if (r->range_end > r->last_word)
            return bad_id(r, id, "overlaps the previous multiword token");
        it.kind = IT_MWT;
        it.a = (size_t)a;
        it.b = (size_t)b;
        r->range_end = (size_t)b;
        r->range_line = r->L.lineno;
    } else if (dot) {
        long long a = parse_num(s, (size_t)(dot - s));
        long long e = parse_num(dot + 1, fl[0] - (size_t)(dot - s) - 1);
        if (a < 0 || e < 1)
            return bad_id(r, id, "not an empty node n.k");
        if ((size_t)a != r->last_word)
            return bad_id(r, id, "an empty node must follow the word it is numbered after");
        size_t want = r->last_empty_word == (size_t)a ? r->last_empty_k + 1 : 1;
        if ((size_t)e != want)
            return bad_id(r, id, "empty nodes after a word must be numbered .1, .2, ...");
        it.kind = IT_EMPTY;
        it.a = (size_t)a;
        r->last_empty_word = (size_t)a;
        r->last_empty_k = (size_t)e;
    } else {
        long long v = parse_num(s, fl[0]);
        if (v < 1)
            return bad_id(r, id, "not a positive integer, range or decimal");
        if ((size_t)v != r->last_word + 1) {
            char why[64];
            snprintf(why, sizeof why, "expected %zu", r->last_word + 1);
            return bad_id(r, id, why);
        }
        it.kind = IT_WORD;
        r->last_word = (size_t)v;
        if (grow((void **)&r->words, &r->capwords, r->nwords + 1, sizeof *r->words))
            return oom(r);
        sentrec *sr = &r->sents[r->nsents - 1];
        size_t sep = sr->nword ? 1 : r->nsents > 1;
        if (sep && colio_buf_add(&r->text, sr->nword ? " " : "\n", 1) != CRFP_OK)
            return oom(r);
        r->pos16 += sep;
        wordrec *w = &r->words[r->nwords];
        w->start = r->pos16;
        r->pos16 += colio_utf16_len(s + fo[1], fl[1]);
        w->end = r->pos16;
        if (colio_buf_add(&r->text, s + fo[1], fl[1]) != CRFP_OK)
            return oom(r);
        it.word = r->nwords++;
        crfp_status lst = colio_sentence_limit(&r->L, ++sr->nword);
        if (lst != CRFP_OK)
            return lst;
    }
    if (grow((void **)&r->foff, &r->capfields, r->nfields + NCOL, sizeof *r->foff) ||
        grow((void **)&r->flen, &r->capflen, r->nfields + NCOL, sizeof *r->flen) ||
        grow((void **)&r->items, &r->capitems, r->nitems + 1, sizeof *r->items))
        return oom(r);
    it.field0 = r->nfields;
    /* No copy: each field ends where its tab (or the line's end) was. */
    size_t base = colio_off(&r->L);
    for (k = 0; k < NCOL; k++) {
        r->foff[r->nfields] = base + fo[k];
        r->flen[r->nfields] = fl[k];
        r->L.line[fo[k] + fl[k]] = '\0';
        r->nfields++;
    }
    r->items[r->nitems++] = it;
    r->sents[r->nsents - 1].nitem++;
    if (!r->L.has_nl)
        r->final_nl_missing = 1;
    return CRFP_OK;
}

static int starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static crfp_status read_doc(reader *r)
{
    crfp_status st;
    r->continued = 0;
    for (;;) {
        int got;
        if ((st = colio_next(&r->L, &got)) != CRFP_OK)
            return st;
        if (!got) {
            r->eof = 1;
            return r->in_sent ? close_sentence(r) : CRFP_OK;
        }
        const char *s = r->L.line;
        if (is_blank(s, r->L.len)) {
            if ((st = check_newline(r)) != CRFP_OK)
                return st;
            if (r->in_sent && (st = close_sentence(r)) != CRFP_OK)
                return st;
            if ((st = add_raw_line(r, &r->blanks)) != CRFP_OK)
                return st;
            continue;
        }
        int comment = s[0] == '#';
        if (!r->in_sent) {
            int split = r->nsents > 0 &&
                        ((r->max_sent > 0 && r->nsents >= (size_t)r->max_sent) ||
                         (r->newdoc && comment && starts(s, "# newdoc")));
            if (split) {
                colio_unread(&r->L);
                return CRFP_OK;
            }
            /* A long document goes on in the next batch. */
            if (r->nsents > 0 && r->batch_bytes > 0 &&
                colio_off(&r->L) >= (size_t)r->batch_bytes) {
                colio_unread(&r->L);
                r->continued = 1;
                return CRFP_OK;
            }
            if ((st = open_sentence(r)) != CRFP_OK)
                return st;
            if (r->nsents == 1 && comment && starts(s, "# newdoc id = ") && !r->docid &&
                !(r->docid = strdup(s + 14)))
                return oom(r);
        }
        if ((st = check_newline(r)) != CRFP_OK)
            return st;
        if (comment) {
            if (r->sents[r->nsents - 1].nitem)
                return crfp_error(r->host, CRFP_EPARSE,
                                  "%s:%lu: comment line inside a sentence (comments must "
                                  "precede its first word line)", r->L.in->name, r->L.lineno);
            if ((r->comments.len && colio_buf_add(&r->comments, "\n", 1) != CRFP_OK) ||
                colio_buf_add(&r->comments, s, r->L.len) != CRFP_OK)
                return oom(r);
            if (!r->L.has_nl)
                r->final_nl_missing = 1;
            continue;
        }
        if ((st = add_token_line(r)) != CRFP_OK)
            return st;
    }
}

/* Value of "# key = value" among a sentence's comment lines, malloc'd. */
static char *comment_value(const char *comments, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = comments; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > kl + 5 && strncmp(p, "# ", 2) == 0 && strncmp(p + 2, key, kl) == 0 &&
            strncmp(p + 2 + kl, " = ", 3) == 0)
            return strndup(p + 5 + kl, len - 5 - kl);
        p = e ? e + 1 : NULL;
    }
    return NULL;
}

static crfp_status set_fields(reader *r, crfp_doc *doc, crfp_ann *a, size_t field0)
{
    const char *vals[NCOL];
    for (size_t k = 0; k < NCOL; k++)
        vals[k] = r->lines + r->foff[field0 + k];
    return crfp_ann_set_strs_ref(doc, a, colname, vals, r->flen + field0, NCOL);
}

static crfp_status build_sentence(reader *r, crfp_doc *doc, crfp_annset *set,
                                  const sentrec *sr)
{
    const wordrec *w = r->words + sr->word0;
    crfp_ann *sa;
    crfp_status st = crfp_annset_add(r->host, doc, set, "Sentence", w[0].start,
                                     w[sr->nword - 1].end, &sa);
    if (st != CRFP_OK)
        return st;
    if (sr->before && (st = crfp_ann_set_str(doc, sa, "before", sr->before)) != CRFP_OK)
        return st;
    if (sr->comments) {
        if ((st = crfp_ann_set_str(doc, sa, "comments", sr->comments)) != CRFP_OK)
            return st;
        const char *keys[] = {"sent_id", "text"};
        for (size_t i = 0; i < 2; i++) {
            char *v = comment_value(sr->comments, keys[i]);
            if (v) {
                st = crfp_ann_set_str(doc, sa, keys[i], v);
                free(v);
                if (st != CRFP_OK)
                    return st;
            }
        }
    }
    for (size_t i = sr->item0; i < sr->item0 + sr->nitem; i++) {
        const item *it = &r->items[i];
        crfp_ann *a;
        if (it->kind == IT_WORD)
            st = crfp_annset_add(r->host, doc, set, "Token", r->words[it->word].start,
                                 r->words[it->word].end, &a);
        else if (it->kind == IT_MWT)
            st = crfp_annset_add(r->host, doc, set, "MultiWordToken", w[it->a - 1].start,
                                 w[it->b - 1].end, &a);
        else {
            size_t off = it->a ? w[it->a - 1].end : w[0].start;
            st = crfp_annset_add(r->host, doc, set, "EmptyNode", off, off, &a);
        }
        if (st != CRFP_OK || (st = set_fields(r, doc, a, it->field0)) != CRFP_OK)
            return st;
    }
    return CRFP_OK;
}

static crfp_status build_doc(reader *r, crfp_doc **out)
{
    char id[32];
    if (r->part <= 1)
        r->ndocs++;
    snprintf(id, sizeof id, "d%lu", r->ndocs);
    const char *base = r->docid ? r->docid : id;
    char *partid = NULL;
    if (r->part > 1) {
        size_t n = strlen(base) + 24;
        if (!(partid = malloc(n)))
            return oom(r);
        snprintf(partid, n, "%s.%lu", base, r->part);
    }
    crfp_doc *doc = crfp_doc_new(partid ? partid : base);
    free(partid);
    if (!doc)
        return oom(r);
    /* The document keeps the batch's lines; its fields point into them. */
    char *lines;
    size_t nlines;
    crfp_status st = colio_take(&r->L, &lines, &nlines);
    if (st != CRFP_OK) {
        crfp_doc_free(doc);
        return st;
    }
    if ((st = crfp_doc_adopt(doc, lines, nlines + 1)) != CRFP_OK) {
        crfp_doc_free(doc);
        return oom(r);
    }
    r->lines = lines;
    st = crfp_doc_set_text(r->host, doc, r->text.s ? r->text.s : "", r->text.len);
    if (st != CRFP_OK)
        goto fail;
    if ((st = crfp_doc_meta_set_str(doc, "format", "conllu")) != CRFP_OK ||
        (st = crfp_doc_meta_set_str(doc, "columns", COLUMNS)) != CRFP_OK ||
        /* the last column, MISC, is no label to learn: a trainer told no
         * label learns UPOS, as UD taggers do */
        (st = crfp_doc_meta_set_str(doc, "default-label", "upos")) != CRFP_OK ||
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
    for (size_t i = 0; np < 7 && crfp_params_iter(r->params, i, &name, &value); i++) {
        pn[np] = name;
        pv[np++] = value;
    }
    pn[np] = "columns";
    pv[np++] = COLUMNS;
    if ((st = crfp_annset_add_processor(doc, set, "conllu_reader", PACKAGE_VERSION, pn, pv, np)) !=
        CRFP_OK)
        goto fail;
    for (size_t s = 0; s < r->nsents; s++)
        if ((st = build_sentence(r, doc, set, &r->sents[s])) != CRFP_OK)
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

static void reset_doc(reader *r, int whole)
{
    for (size_t i = 0; i < r->nsents; i++) {
        free(r->sents[i].before);
        free(r->sents[i].comments);
    }
    if (whole) {
        free(r->docid);
        r->docid = NULL;
        r->crlf = r->crlf_known = 0;
    }
    r->nfields = r->nitems = r->nwords = r->nsents = 0;
    r->text.len = r->header.len = r->blanks.len = r->comments.len = 0;
    r->pos16 = 0;
    r->final_nl_missing = r->in_sent = r->consumed = 0;
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
    r->newdoc = crfp_params_bool(p, "newdoc");
    r->max_sent = crfp_params_int(p, "max-sentences");
    r->batch_bytes = crfp_params_int(p, "batch-bytes");
    if (r->max_sent < 0 || r->batch_bytes < 0) {
        const char *what = r->max_sent < 0 ? "max-sentences" : "batch-bytes";
        free(r);
        return crfp_error(host, CRFP_EINVAL, "conllu_reader: %s must be >= 0", what);
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
    /* A batch continuing a document keeps its id and line ends. */
    int cont = r->continued;
    reset_doc(r, !cont);
    r->part = cont ? r->part + 1 : 1;
    crfp_status st = read_doc(r);
    /* Input of blank lines only is no document at all (not an empty one,
     * which writers and taggers would have to special-case). */
    if (st == CRFP_OK && r->consumed && (r->nsents || r->header.len))
        st = build_doc(r, doc);
    reset_doc(r, 0);
    /* a batch that made no document (blank lines only) leaves the buffer */
    if (!*doc)
        colio_discard(&r->L);
    r->failed = st;
    return st;
}

static void r_close(void *state)
{
    reader *r = state;
    if (!r)
        return;
    reset_doc(r, 1);
    colio_buf_free(&r->text);
    colio_buf_free(&r->header);
    colio_buf_free(&r->blanks);
    colio_buf_free(&r->comments);
    free(r->foff);
    free(r->flen);
    free(r->items);
    free(r->words);
    free(r->sents);
    colio_lines_free(&r->L);
    free(r);
}

/* --- format detection ------------------------------------------------------
 * Confidence 0..100 that buf (the first bytes of an input, up to 64 KiB) is
 * CoNLL-U (every complete non-blank line a comment or 10 tab-separated
 * fields with an ID first); the reader vtable's probe (ABI 2.1). */
/* A CoNLL-U ID: n, n-m or n.k (digits). */
static int probe_conllu_id(const char *s, size_t n)
{
    size_t i = 0, d = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, d++;
    if (!d)
        return 0;
    if (i == n)
        return 1;
    if (s[i] != '-' && s[i] != '.')
        return 0;
    size_t j = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i == n && i > j;
}

static int conllu_reader_probe(const char *buf, size_t len)
{
    size_t at = 0, b, e;
    int complete, comments = 0, words = 0, bad = 0;
    while (colio_probe_line(buf, len, &at, &b, &e, &complete)) {
        if (!complete && len >= COLIO_PROBE_MAX)
            break;
        if (colio_probe_blank(buf + b, e - b))
            continue;
        if (buf[b] == '#') {
            comments = 1;
            continue;
        }
        size_t fields = 1, first = e;
        for (size_t i = b; i < e; i++)
            if (buf[i] == '\t') {
                if (fields == 1)
                    first = i;
                fields++;
            }
        if (fields != 10 || !probe_conllu_id(buf + b, first - b))
            bad++;
        else
            words++;
    }
    /* A few broken lines in what is clearly CoNLL-U: still CoNLL-U, so
     * that its reader reports them in its own terms. */
    if (!words || words < 4 * bad)
        return 0;
    return bad ? 40 : comments ? 95 : 90;
}

static const crfp_reader_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_reader_vtable),
    .open = r_open,
    .next = r_next,
    .close = r_close,
    .probe = conllu_reader_probe,
};

static const char *const formats[] = {"conllu", NULL};
static const char *const extensions[] = {".conllu", NULL};

CRFP_PLUGIN_DEFINE(conllu_reader) = {
    CRFP_PLUGIN_ABI,
    .name = "conllu_reader",
    .kind = CRFP_KIND_READER,
    .version = PACKAGE_VERSION,
    .description = "CoNLL-U treebanks (Token per word; multiword ranges and empty nodes kept "
                   "apart)",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
    /* blank lines end sentences and nothing spans them: a file may be
     * cut after any empty line (distributed training) */
    .flags = CRFP_PLUGIN_SPLIT_BLANK_LINES,
};
