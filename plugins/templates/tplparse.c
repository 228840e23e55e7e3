/* templates plugin — parsing a CRF++/Wapiti template into a tpl program.
 *
 * Language (see doc in templates.c for the user-facing summary):
 *   line      := blank | '#' comment | '#!after' ID PREREQ | pattern
 *   pattern   := ('U' | 'B' | '*') text
 *   text      := literal bytes and macros; "%%" is a literal '%'
 *   macro     := '%' op '[' row ',' col [',' '"' regex '"'] ']'
 *   op        := x X t T m M   (t/T/m/M take the regex, x/X must not)
 * The identifier of a pattern is its text up to the first ':' (when that
 * ':' comes before any macro).  It is part of every observation, so two
 * templates cannot produce the same string; a pattern without one gets
 * "<letter>@<line>:" prepended.  A pattern with neither identifier nor
 * macro (bare "B") is a constant observation, its text itself.
 * Identifiers must be unique in a template.
 *
 * "#!crf++", before the first pattern, spells observations as CRF++ does:
 * the pattern's text with its macros replaced, no identifier added, two
 * patterns free to make the same observation.
 *
 * "#!wapiti", before the first pattern, reads the rest as Wapiti reads its
 * pattern files, so that the observations are Wapiti's, byte for byte
 * (what a model imported from Wapiti needs, and what a Wapiti user expects
 * of the same pattern file): parse_wapiti_line, and tplwapiti.c for its
 * regular expressions.
 *
 * "#!after ID PREREQ" (incremental feature sets, Lavergne et al. 2010,
 * §5.4) holds the observations of pattern ID back until, at the same
 * token, the observation of pattern PREREQ has a non-zero block in the
 * model of a previous trainer of a chain.  A '#!' line is a comment to
 * CRF++ and Wapiti, so such templates stay readable there (with every
 * feature admitted at once).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ustring.h>
#include "crfpipe/alloc.h"
#include "tpl.h"

/* Growable arrays of the program under construction. */
typedef struct builder {
    crfp_host *host;
    tpl *t;
    size_t cap_pats, cap_pieces, cap_lits, cap_names, cap_rx, cap_wrx;
    char **ids;        /* identifiers seen, for the uniqueness check */
    unsigned char *idcolon; /* per identifier: its observations start "ID:" */
    size_t nids, cap_ids;
    int line;
    /* '#!after' directives: identifier pairs and their lines */
    char **after;      /* 2 per directive: ID, PREREQ */
    int *after_line;
    size_t nafter, cap_after;
} builder;

static crfp_status grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return CRFP_OK;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, c * elem);
    if (!p)
        return CRFP_ENOMEM;
    *arr = p;
    *cap = c;
    return CRFP_OK;
}

static crfp_status perr(builder *b, const char *what, const char *detail)
{
    return crfp_error(b->host, CRFP_EPARSE, "%s:%d: %s%s", b->t->origin, b->line, what,
                      detail ? detail : "");
}

static crfp_status add_lit(builder *b, const char *s, size_t n)
{
    if (!n)
        return CRFP_OK;
    tpl *t = b->t;
    tpl_pattern *pat = &t->pats[t->npats];
    /* Adjacent literals merge, keeping the pieces per pattern minimal. */
    if (pat->n && t->pieces[t->npieces - 1].kind == TPL_LIT) {
        tpl_piece *last = &t->pieces[t->npieces - 1];
        if (last->lit + last->litlen == t->nlits) {
            while (t->nlits + n > b->cap_lits) {
                size_t c = b->cap_lits ? b->cap_lits * 2 : 256;
                char *p = realloc(t->lits, c);
                if (!p)
                    return CRFP_ENOMEM;
                t->lits = p;
                b->cap_lits = c;
            }
            memcpy(t->lits + t->nlits, s, n);
            t->nlits += n;
            last->litlen += n;
            return CRFP_OK;
        }
    }
    while (t->nlits + n > b->cap_lits) {
        size_t c = b->cap_lits ? b->cap_lits * 2 : 256;
        char *p = realloc(t->lits, c);
        if (!p)
            return CRFP_ENOMEM;
        t->lits = p;
        b->cap_lits = c;
    }
    if (grow((void **)&t->pieces, &b->cap_pieces, t->npieces, sizeof *t->pieces))
        return CRFP_ENOMEM;
    tpl_piece *pc = &t->pieces[t->npieces++];
    memset(pc, 0, sizeof *pc);
    pc->kind = TPL_LIT;
    pc->lit = t->nlits;
    pc->litlen = n;
    memcpy(t->lits + t->nlits, s, n);
    t->nlits += n;
    pat->n++;
    return CRFP_OK;
}

static size_t utf8_charlen(unsigned char c)
{
    return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
}

/* Trim [*s, *e) of ASCII blanks. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && (**s == ' ' || **s == '\t'))
        (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
        (*e)--;
}

static crfp_status bad_arg(builder *b, const char *fmt, const char *s, const char *e)
{
    char msg[256];
    int n = (int)(e - s);
    if (n > 64)
        n = 64;
    snprintf(msg, sizeof msg, fmt, n, s);
    return perr(b, msg, NULL);
}

static crfp_status parse_int(builder *b, const char *s, const char *e, const char *what,
                             long *out)
{
    const char *p = s;
    if (p < e && (*p == '-' || *p == '+'))
        p++;
    if (p == e)
        goto bad;
    long v = 0;
    for (; p < e; p++) {
        if (*p < '0' || *p > '9' || v > (INT_MAX - 9) / 10)
            goto bad;
        v = v * 10 + (*p - '0');
    }
    *out = *s == '-' ? -v : v;
    return CRFP_OK;
bad:;
    char fmt[96];
    snprintf(fmt, sizeof fmt, "malformed macro: %s '%%.*s' is not an integer", what);
    return bad_arg(b, fmt, s, e);
}

static int is_name(const char *s, const char *e)
{
    if (s == e || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; s < e; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.'))
            return 0;
    return 1;
}

/* Index of column `name` in the declared list, or -1. */
static long declared_col(const char *columns, const char *s, size_t n)
{
    long i = 0;
    const char *p = columns;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && *q != ' ' && *q != '\t' && *q != ',')
            q++;
        if ((size_t)(q - p) == n && !memcmp(p, s, n))
            return i;
        i++;
        p = q;
    }
    return -1;
}

static crfp_status add_name(builder *b, const char *s, size_t n, size_t *idx)
{
    tpl *t = b->t;
    for (size_t i = 0; i < t->nnames; i++)
        if (strlen(t->names[i]) == n && !memcmp(t->names[i], s, n)) {
            *idx = i;
            return CRFP_OK;
        }
    size_t cap = b->cap_names;
    if (grow((void **)&t->names, &cap, t->nnames, sizeof *t->names))
        return CRFP_ENOMEM;
    if (cap != b->cap_names) {
        int *nl = realloc(t->name_line, cap * sizeof *nl);
        if (!nl)
            return CRFP_ENOMEM;
        t->name_line = nl;
        b->cap_names = cap;
    }
    char *c = malloc(n + 1);
    if (!c)
        return CRFP_ENOMEM;
    memcpy(c, s, n);
    c[n] = '\0';
    t->names[t->nnames] = c;
    t->name_line[t->nnames] = b->line;
    *idx = t->nnames++;
    return CRFP_OK;
}

static crfp_status add_regex(builder *b, const char *s, size_t n, int icase, size_t *idx)
{
    tpl *t = b->t;
    if (n == 0)
        return perr(b, "empty regular expression", NULL);
    UErrorCode err = U_ZERO_ERROR;
    int32_t ulen = 0;
    u_strFromUTF8(NULL, 0, &ulen, s, (int32_t)n, &err);
    if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err))
        return perr(b, "regular expression is not valid UTF-8", NULL);
    UChar *u = malloc(((size_t)ulen + 1) * sizeof *u);
    if (!u)
        return CRFP_ENOMEM;
    err = U_ZERO_ERROR;
    u_strFromUTF8(u, ulen + 1, NULL, s, (int32_t)n, &err);
    UParseError pe;
    memset(&pe, 0, sizeof pe);
    /* ICU 72's RegexPattern constructor uses allocations it does not check:
     * compiled in a reserve section, a pattern that ran out of memory is
     * thrown away instead of crashing the program. */
    crfp_reserve_section rs;
    if (crfp_reserve_enter(&rs) != CRFP_OK) {
        free(u);
        return CRFP_ENOMEM;
    }
    URegularExpression *rx = uregex_open(u, ulen, icase ? UREGEX_CASE_INSENSITIVE : 0, &pe, &err);
    int ran_out = crfp_reserve_leave(&rs);
    free(u);
    if (ran_out || err == U_MEMORY_ALLOCATION_ERROR) {
        if (rx)
            uregex_close(rx);
        return CRFP_ENOMEM;
    }
    if (U_FAILURE(err)) {
        char msg[256];
        int m = n > 64 ? 64 : (int)n;
        snprintf(msg, sizeof msg, "bad regular expression \"%.*s\": %s at offset %d", m, s,
                 u_errorName(err), (int)pe.offset);
        if (rx)
            uregex_close(rx);
        return perr(b, msg, NULL);
    }
    if (grow((void **)&t->rx, &b->cap_rx, t->nrx, sizeof *t->rx)) {
        uregex_close(rx);
        return CRFP_ENOMEM;
    }
    t->rx[t->nrx] = rx;
    *idx = t->nrx++;
    return CRFP_OK;
}

/* Parse the macro starting at p ("%x[..."), p < e; *next receives the
 * position after it. */
static crfp_status parse_macro(builder *b, const char *p, const char *e, const char **next)
{
    tpl *t = b->t;
    char op = p[1];
    if (!strchr("xXtTmMpsw", op) || op == '\0') {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "unknown macro '%%%c' (expected %%x, %%X, %%t, %%T, %%m, %%M, %%p, %%s, %%w "
                 "or %%%%)",
                 op ? op : ' ');
        return perr(b, msg, NULL);
    }
    if (p + 2 >= e || p[2] != '[') {
        char msg[64];
        snprintf(msg, sizeof msg, "malformed macro: expected '[' after %%%c", op);
        return perr(b, msg, NULL);
    }
    int wants_rx = strchr("tTmM", op) != NULL;
    int wants_len = op == 'p' || op == 's';
    const char *q = p + 3;
    const char *rs = q;
    while (q < e && *q != ',' && *q != ']')
        q++;
    if (q == e || *q != ',') {
        char msg[80];
        snprintf(msg, sizeof msg, "malformed macro: %%%c[...] needs a row and a column", op);
        return perr(b, msg, NULL);
    }
    const char *re = q, *s1 = rs;
    trim(&s1, &re);
    long row;
    crfp_status st = parse_int(b, s1, re, "row", &row);
    if (st)
        return st;
    const char *cs = ++q;
    while (q < e && *q != ',' && *q != ']')
        q++;
    if (q == e) {
        char msg[64];
        snprintf(msg, sizeof msg, "malformed macro: %%%c[ without closing ']'", op);
        return perr(b, msg, NULL);
    }
    const char *ce = q, *s2 = cs;
    trim(&s2, &ce);
    tpl_piece pc;
    memset(&pc, 0, sizeof pc);
    pc.kind = TPL_CELL;
    pc.op = op;
    pc.row = (int)row;
    if (s2 < ce && (isdigit((unsigned char)*s2) || *s2 == '-' || *s2 == '+')) {
        long col;
        if ((st = parse_int(b, s2, ce, "column", &col)))
            return st;
        if (col < 0)
            return bad_arg(b, "malformed macro: column '%.*s' is negative", s2, ce);
        pc.col = col;
        if (col > t->maxcol) {
            t->maxcol = col;
            t->maxcol_line = b->line;
        }
    } else if (is_name(s2, ce)) {
        if (t->columns) {
            long col = declared_col(t->columns, s2, (size_t)(ce - s2));
            if (col < 0) {
                char msg[256];
                snprintf(msg, sizeof msg, "unknown column name '%.*s' (columns: %s)",
                         (int)(ce - s2 > 64 ? 64 : ce - s2), s2, t->columns);
                return perr(b, msg, NULL);
            }
            pc.col = col;
            if (col > t->maxcol) {
                t->maxcol = col;
                t->maxcol_line = b->line;
            }
        } else {
            pc.col = -1;
            if ((st = add_name(b, s2, (size_t)(ce - s2), &pc.name)))
                return st;
        }
    } else {
        return bad_arg(b, "malformed macro: column '%.*s' is neither an index nor a name", s2,
                       ce);
    }
    if (*q == ']') {
        if (wants_rx || wants_len) {
            char msg[96];
            snprintf(msg, sizeof msg, "malformed macro: %%%c needs %s", op,
                     wants_rx ? "a quoted regular expression" : "a length, e.g. [0,word,3]");
            return perr(b, msg, NULL);
        }
        q++;
    } else if (wants_len) {
        /* %p / %s: a number of characters, 1 to 64 */
        const char *ls = ++q;
        while (q < e && *q != ']')
            q++;
        if (q == e)
            return perr(b, "malformed macro: missing ']' after the length", NULL);
        const char *le = q, *l1 = ls;
        trim(&l1, &le);
        long n;
        if ((st = parse_int(b, l1, le, "length", &n)))
            return st;
        if (n < 1 || n > 64)
            return bad_arg(b, "malformed macro: length '%.*s' is not between 1 and 64", l1, le);
        pc.len = (int)n;
        q++;
    } else {
        if (!wants_rx) {
            char msg[80];
            snprintf(msg, sizeof msg, "malformed macro: %%%c takes only a row and a column", op);
            return perr(b, msg, NULL);
        }
        q++;
        while (q < e && (*q == ' ' || *q == '\t'))
            q++;
        if (q == e || *q != '"')
            return perr(b, "malformed macro: the regular expression must be in double quotes",
                        NULL);
        /* The regex ends at the first '"]', so it may itself contain quotes. */
        const char *xs = ++q;
        while (q + 1 < e && !(q[0] == '"' && q[1] == ']'))
            q++;
        if (q + 1 >= e)
            return perr(b, "malformed macro: unterminated regular expression (expected \"])",
                        NULL);
        if ((st = add_regex(b, xs, (size_t)(q - xs), op == 'T' || op == 'M', &pc.rx)))
            return st;
        q += 2;
    }
    if (grow((void **)&t->pieces, &b->cap_pieces, t->npieces, sizeof *t->pieces))
        return CRFP_ENOMEM;
    t->pieces[t->npieces++] = pc;
    t->pats[t->npats].n++;
    *next = q;
    return CRFP_OK;
}

/* Open pattern t->npats (its pieces follow; t->npats grows when it ends). */
static crfp_status start_pattern(builder *b, unsigned flags)
{
    tpl *t = b->t;
    if (grow((void **)&t->pats, &b->cap_pats, t->npats, sizeof *t->pats))
        return CRFP_ENOMEM;
    tpl_pattern *pat = &t->pats[t->npats];
    pat->flags = flags;
    pat->line = b->line;
    pat->first = t->npieces;
    pat->n = 0;
    return CRFP_OK;
}

static crfp_status check_unique(builder *b, const char *id, size_t n, int colon)
{
    for (size_t i = 0; i < b->nids; i++)
        if (strlen(b->ids[i]) == n && !memcmp(b->ids[i], id, n))
            return bad_arg(b, "duplicate pattern identifier '%.*s'", id, id + n);
    size_t cap = b->cap_ids;
    if (grow((void **)&b->ids, &b->cap_ids, b->nids, sizeof *b->ids))
        return CRFP_ENOMEM;
    if (b->cap_ids != cap || !b->idcolon) {
        unsigned char *nc = realloc(b->idcolon, b->cap_ids);
        if (!nc)
            return CRFP_ENOMEM;
        b->idcolon = nc;
    }
    b->idcolon[b->nids] = (unsigned char)colon;
    char *c = malloc(n + 1);
    if (!c)
        return CRFP_ENOMEM;
    memcpy(c, id, n);
    c[n] = '\0';
    b->ids[b->nids++] = c;
    return CRFP_OK;
}

static crfp_status parse_line(builder *b, const char *s, const char *e)
{
    tpl *t = b->t;
    unsigned flags;
    switch (*s) {
    case 'U': flags = CRFP_OBS_UNIGRAM; break;
    case 'B': flags = CRFP_OBS_BIGRAM; break;
    case '*': flags = CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM; break;
    default: {
        size_t n = utf8_charlen((unsigned char)*s);
        if (n > (size_t)(e - s))
            n = 1;
        char msg[96];
        snprintf(msg, sizeof msg, "unknown pattern type '%.*s' (expected U, B or *)", (int)n, s);
        return perr(b, msg, NULL);
    }
    }
    if (start_pattern(b, flags))
        return CRFP_ENOMEM;

    const char *pct = memchr(s, '%', (size_t)(e - s));
    const char *colon = memchr(s, ':', (size_t)((pct ? pct : e) - s));
    crfp_status st;
    const char *p = s;
    if (t->crfpp) {
        /* CRF++ spells an observation as the pattern's text, nothing added */
        st = CRFP_OK;
    } else if (colon) {
        st = check_unique(b, s, (size_t)(colon - s), 1);
    } else if (!pct) {
        st = check_unique(b, s, (size_t)(e - s), 0);
    } else {
        char id[32];
        int n = snprintf(id, sizeof id, "%c@%d:", *s, b->line);
        if ((st = check_unique(b, id, (size_t)n - 1, 1)) == CRFP_OK)
            st = add_lit(b, id, (size_t)n);
        p = s + 1;
    }
    if (st)
        return st;
    while (p < e) {
        const char *m = memchr(p, '%', (size_t)(e - p));
        if (!m)
            m = e;
        if ((st = add_lit(b, p, (size_t)(m - p))))
            return st;
        if (m == e)
            break;
        if (m + 1 < e && m[1] == '%') {
            if ((st = add_lit(b, "%", 1)))
                return st;
            p = m + 2;
            continue;
        }
        if (m + 1 == e)
            return perr(b, "malformed macro: '%' at the end of the line", NULL);
        if ((st = parse_macro(b, m, e, &p)))
            return st;
    }
    t->npats++;
    return CRFP_OK;
}

/* An integer as C's "%i" reads it (Wapiti's row: decimal, 0x hex or 0
 * octal, with a sign) over all of s..e; -1 when it is not one. */
static int wapiti_int(const char *s, const char *e, long *out)
{
    char tmp[32];
    if (e - s <= 0 || e - s >= (long)sizeof tmp)
        return -1;
    memcpy(tmp, s, (size_t)(e - s));
    tmp[e - s] = '\0';
    char *end;
    errno = 0;
    long v = strtol(tmp, &end, 0);
    if (*end || errno || end == tmp || v < -1000000 || v > 1000000)
        return -1;
    *out = v;
    return 0;
}

/* One pattern as Wapiti reads it ('#!wapiti'): s..e without its comment
 * and blanks.  The type letter may be lower or upper case and is written
 * in lower case, which Wapiti makes the first byte of every observation;
 * there are no identifiers (two patterns may give the same observation,
 * and then count it twice, as in Wapiti); macros are %x, %t and %m, upper
 * case to lowercase their result, on a row that "@" counts from the ends
 * of the sentence and a numbered column; a regex ends at its first '"' not
 * escaped by '\'. */
static crfp_status parse_wapiti_line(builder *b, const char *s, const char *e)
{
    tpl *t = b->t;
    unsigned flags;
    char type = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
    switch (type) {
    case 'u': flags = CRFP_OBS_UNIGRAM; break;
    case 'b': flags = CRFP_OBS_BIGRAM; break;
    case '*': flags = CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM; break;
    default:
        return bad_arg(b, "unknown pattern type '%.*s' (Wapiti's are u, b and *)", s, s + 1);
    }
    if (start_pattern(b, flags))
        return CRFP_ENOMEM;
    crfp_status st = add_lit(b, &type, 1);
    const char *p = s + 1;
    while (st == CRFP_OK && p < e) {
        const char *m = memchr(p, '%', (size_t)(e - p));
        if (!m)
            m = e;
        if ((st = add_lit(b, p, (size_t)(m - p))) || m == e)
            break;
        char op = m + 1 < e ? m[1] : '\0';
        char lop = op >= 'A' && op <= 'Z' ? (char)(op - 'A' + 'a') : op;
        if (lop != 'x' && lop != 't' && lop != 'm')
            return bad_arg(b, "unknown command '%%%.*s' (Wapiti's are %%x, %%t and %%m, and %% "
                           "has no escape)", m + 1, m + (m + 1 < e ? 2 : 1));
        tpl_piece pc;
        memset(&pc, 0, sizeof pc);
        pc.kind = TPL_CELL;
        pc.op = op;
        const char *q = m + 2;
        if (q == e || *q != '[')
            return bad_arg(b, "malformed command: expected '[' after %%%.*s", m + 1, m + 2);
        q++;
        if (q < e && *q == '@')
            pc.absolute = 1, q++;
        const char *comma = memchr(q, ',', (size_t)(e - q));
        long row, col = 0;
        if (!comma || wapiti_int(q, comma, &row))
            return perr(b, "malformed command: the row is not an integer", NULL);
        q = comma + 1;
        while (q < e && (*q == ' ' || *q == '\t'))
            q++;
        const char *cs = q;
        while (q < e && *q >= '0' && *q <= '9' && col <= 1000000)
            col = col * 10 + (*q++ - '0');
        if (q == cs || col > 1000000)
            return perr(b, "malformed command: the column is not a number", NULL);
        pc.row = (int)row;
        pc.col = col;
        if (col > t->maxcol) {
            t->maxcol = col;
            t->maxcol_line = b->line;
        }
        if (lop != 'x') {
            if (e - q < 2 || q[0] != ',' || q[1] != '"')
                return perr(b, "malformed command: expected ,\"REGEX\" after the column", NULL);
            const char *rs = q += 2;
            while (q < e && *q != '"')
                q += *q == '\\' && q + 1 < e ? 2 : 1;
            if (q >= e)
                return perr(b, "malformed command: the regular expression has no closing '\"'",
                            NULL);
            const char *why = tpl_wrx_check(rs, (size_t)(q - rs));
            if (why)
                return crfp_error(b->host, CRFP_EPARSE, "%s:%d: regular expression \"%.*s\": %s",
                                  t->origin, b->line, (int)(q - rs > 64 ? 64 : q - rs), rs, why);
            if (grow((void **)&t->wrx, &b->cap_wrx, t->nwrx, sizeof *t->wrx))
                return CRFP_ENOMEM;
            if (!(t->wrx[t->nwrx] = strndup(rs, (size_t)(q - rs))))
                return CRFP_ENOMEM;
            pc.rx = t->nwrx++;
            q++;
        }
        if (q == e || *q != ']')
            return perr(b, "malformed command: expected ']'", NULL);
        if (grow((void **)&t->pieces, &b->cap_pieces, t->npieces, sizeof *t->pieces))
            return CRFP_ENOMEM;
        t->pieces[t->npieces++] = pc;
        t->pats[t->npats].n++;
        p = q + 1;
    }
    if (st)
        return st;
    t->npats++;
    return CRFP_OK;
}

/* Record "#!after ID PREREQ" (s..e, the whole trimmed line). */
static crfp_status parse_after(builder *b, const char *s, const char *e)
{
    const char *p = s + 7, *w[2][2];
    for (int k = 0; k < 2; k++) {
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        w[k][0] = p;
        while (p < e && *p != ' ' && *p != '\t')
            p++;
        w[k][1] = p;
        if (w[k][0] == w[k][1])
            return perr(b, "'#!after' needs two pattern identifiers: #!after ID PREREQ", NULL);
    }
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    if (p != e)
        return perr(b, "'#!after' takes exactly two pattern identifiers: #!after ID PREREQ",
                    NULL);
    if (grow((void **)&b->after, &b->cap_after, 2 * b->nafter + 1, sizeof *b->after) ||
        grow((void **)&b->after, &b->cap_after, 2 * b->nafter + 2, sizeof *b->after))
        return CRFP_ENOMEM;
    int *nl = realloc(b->after_line, (b->nafter + 1) * sizeof *nl);
    if (!nl)
        return CRFP_ENOMEM;
    b->after_line = nl;
    for (int k = 0; k < 2; k++)
        if (!(b->after[2 * b->nafter + (size_t)k] =
                  strndup(w[k][0], (size_t)(w[k][1] - w[k][0]))))
            return CRFP_ENOMEM;
    b->after_line[b->nafter++] = b->line;
    return CRFP_OK;
}

static long find_id(const builder *b, const char *id)
{
    for (size_t i = 0; i < b->nids; i++)
        if (strcmp(b->ids[i], id) == 0)
            return (long)i;
    return -1;
}

/* Check the '#!after' directives against the patterns and build t->after,
 * one "ID: PREREQ:" line per directive (the observation prefixes). */
static crfp_status resolve_after(builder *b)
{
    tpl *t = b->t;
    if (b->nafter == 0)
        return CRFP_OK;
    long *pre = malloc(b->nids * sizeof *pre);
    size_t len = 1;
    if (!pre)
        return CRFP_ENOMEM;
    for (size_t i = 0; i < b->nids; i++)
        pre[i] = -1;
    crfp_status st = CRFP_OK;
    for (size_t d = 0; d < b->nafter && st == CRFP_OK; d++) {
        b->line = b->after_line[d];
        long id[2];
        for (int k = 0; k < 2 && st == CRFP_OK; k++) {
            const char *nm = b->after[2 * d + (size_t)k];
            id[k] = find_id(b, nm);
            if (id[k] < 0)
                st = bad_arg(b, "'#!after': no pattern has the identifier '%.*s'", nm,
                             nm + strlen(nm));
            else if (!b->idcolon[id[k]])
                /* a constant such as "B" is one observation: nothing to
                 * admit by token, and its text is no prefix */
                st = bad_arg(b, "'#!after': '%.*s' is a constant pattern (no ':'), it cannot "
                             "take part", nm, nm + strlen(nm));
        }
        if (st != CRFP_OK)
            break;
        if (id[0] == id[1])
            st = perr(b, "'#!after': a pattern cannot wait for itself", NULL);
        else if (pre[id[0]] >= 0)
            st = bad_arg(b, "'#!after': pattern '%.*s' already has a prerequisite",
                         b->ids[id[0]], b->ids[id[0]] + strlen(b->ids[id[0]]));
        else
            pre[id[0]] = id[1];
        len += strlen(b->ids[id[0]]) + strlen(b->ids[id[1]]) + 4;
    }
    /* A cycle would hold its patterns back for ever. */
    for (size_t i = 0; i < b->nids && st == CRFP_OK; i++) {
        long j = pre[i];
        for (size_t steps = 0; j >= 0 && steps <= b->nids; steps++)
            j = pre[j];
        if (j >= 0) {
            b->line = 0;
            for (size_t d = 0; d < b->nafter; d++)
                if (strcmp(b->after[2 * d], b->ids[i]) == 0)
                    b->line = b->after_line[d];
            st = bad_arg(b, "'#!after': pattern '%.*s' waits for itself through a cycle",
                         b->ids[i], b->ids[i] + strlen(b->ids[i]));
        }
    }
    if (st == CRFP_OK && !(t->after = malloc(len)))
        st = CRFP_ENOMEM;
    if (st == CRFP_OK) {
        size_t n = 0;
        for (size_t d = 0; d < b->nafter; d++)
            n += (size_t)snprintf(t->after + n, len - n, "%s: %s:\n", b->after[2 * d],
                                  b->after[2 * d + 1]);
    }
    free(pre);
    return st;
}

void tpl_free(tpl *t)
{
    if (!t)
        return;
    free(t->origin);
    free(t->pats);
    free(t->pieces);
    free(t->lits);
    for (size_t i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->names);
    free(t->name_line);
    for (size_t i = 0; i < t->nrx; i++)
        uregex_close(t->rx[i]);
    free(t->rx);
    for (size_t i = 0; i < t->nwrx; i++)
        free(t->wrx[i]);
    free(t->wrx);
    if (t->lower)
        ucasemap_close(t->lower);
    free(t->columns);
    free(t->after);
    free(t);
}

crfp_status tpl_compile(crfp_host *host, const char *text, size_t len, const char *origin,
                        const char *columns, tpl **out)
{
    *out = NULL;
    tpl *t = calloc(1, sizeof *t);
    if (!t)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", origin);
    t->maxcol = -1;
    t->origin = strdup(origin ? origin : "<template>");
    if (columns && !(t->columns = strdup(columns))) {
        tpl_free(t);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory", origin);
    }
    UErrorCode err = U_ZERO_ERROR;
    t->lower = ucasemap_open("", 0, &err);
    if (!t->origin || U_FAILURE(err)) {
        tpl_free(t);
        return crfp_error(host, CRFP_ENOMEM, "%s: cannot set up case mapping: %s", origin,
                          u_errorName(err));
    }
    builder b = {.host = host, .t = t};
    crfp_status st = CRFP_OK;
    const char *p = text, *end = text + len;
    while (p < end && st == CRFP_OK) {
        b.line++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *s = p;
        p = nl ? nl + 1 : end;
        if (e > s && e[-1] == '\r')
            e--;
        trim(&s, &e);
        if (e - s >= 7 && memcmp(s, "#!after", 7) == 0 &&
            (e - s == 7 || s[7] == ' ' || s[7] == '\t')) {
            if ((st = parse_after(&b, s, e)) == CRFP_ENOMEM)
                st = crfp_error(host, CRFP_ENOMEM, "%s:%d: out of memory", t->origin, b.line);
            continue;
        }
        if ((e - s == 8 && memcmp(s, "#!wapiti", 8) == 0) ||
            (e - s == 11 && memcmp(s, "#!wapiti-me", 11) == 0) ||
            (e - s == 7 && memcmp(s, "#!crf++", 7) == 0)) {
            if (t->npats)
                st = bad_arg(&b, "'%.*s' must come before the first pattern", s, e);
            else if (t->wapiti || t->crfpp)
                st = perr(&b, "a second dialect line ('#!wapiti', '#!wapiti-me' or '#!crf++')",
                          NULL);
            *(s[2] == 'w' ? &t->wapiti : &t->crfpp) = 1;
            t->wapiti_me = e - s == 11;
            continue;
        }
        if (t->wapiti) {
            /* Wapiti ends a pattern at its first '#' and drops the blanks
             * before it */
            const char *h = memchr(s, '#', (size_t)(e - s));
            if (h)
                e = h;
            while (e > s && (e[-1] == ' ' || (e[-1] >= '\t' && e[-1] <= '\r')))
                e--;
        }
        if (s == e || *s == '#')
            continue;
        if (memchr(s, '\0', (size_t)(e - s))) {
            st = perr(&b, "NUL byte in template", NULL);
            break;
        }
        st = t->wapiti ? parse_wapiti_line(&b, s, e) : parse_line(&b, s, e);
        if (st == CRFP_ENOMEM)
            st = crfp_error(host, CRFP_ENOMEM, "%s:%d: out of memory", t->origin, b.line);
    }
    if (st == CRFP_OK && (t->wapiti || t->crfpp) && b.nafter) {
        b.line = b.after_line[0];
        st = perr(&b, t->wapiti ? "'#!after' needs pattern identifiers, which Wapiti's patterns "
                                  "(#!wapiti) do not have"
                                : "'#!after' needs pattern identifiers, which CRF++'s patterns "
                                  "(#!crf++) do not have", NULL);
    }
    if (st == CRFP_OK && t->npats == 0)
        st = crfp_error(host, CRFP_EPARSE, "%s: the template has no pattern", t->origin);
    if (st == CRFP_OK && (st = resolve_after(&b)) == CRFP_ENOMEM)
        st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory", t->origin);
    for (size_t i = 0; i < b.nids; i++)
        free(b.ids[i]);
    free(b.ids);
    free(b.idcolon);
    for (size_t i = 0; i < 2 * b.nafter; i++)
        free(b.after[i]);
    free(b.after);
    free(b.after_line);
    if (st) {
        tpl_free(t);
        return st;
    }
    *out = t;
    return CRFP_OK;
}
