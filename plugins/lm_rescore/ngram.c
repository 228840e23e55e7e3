/* ngram — interpolated Kneser-Ney over phonemes (see ngram.h).
 *
 * Every n-gram of every order, and every context, is one entry of a single
 * open-addressing table keyed by its symbol ids packed 16 bits each into
 * 128 bits (ids start at 1, so a key's length is where its zeros begin and
 * keys of different lengths never collide).  An entry holds its count as
 * an n-gram (raw at the highest order, continuation below) and, as a
 * context, the total and the number of distinct symbols that follow it. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ngram.h"

#define BOS 1
#define EOS 2
#define FIRST_PHONE 3
#define UNKNOWN 0xffffu   /* never counted: its n-grams all miss */
#define MAX_IDS 0xfffcu
#define NGRAM_MAX_TOTAL ((uint64_t)1 << 52)

typedef struct gkey {
    uint64_t a, b;   /* ids 0-3 in a, 4-7 in b, first id lowest */
} gkey;

typedef struct gent {
    gkey k;          /* a == 0: empty slot */
    uint64_t c;      /* as an n-gram */
    uint64_t tot;    /* as a context: sum of the counts that follow it */
    uint32_t typ;    /* as a context: distinct symbols that follow it */
} gent;

struct ngram {
    int order;
    double D;
    int finished;
    /* symbols: id -> string (ids 1 and 2 the padding), and their hash */
    char **sym;
    uint32_t nsym, symcap;
    uint32_t *symh;      /* open addressing: id or 0 */
    uint32_t symhcap;
    gent *t;
    size_t tcap, tn;
    uint64_t tot0;       /* the empty context */
    uint32_t typ0;
    uint32_t V;          /* distinct symbols that can follow anything */
    uint64_t total;      /* all highest-order counts: bounds every sum */
};

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static uint64_t key_hash(gkey k)
{
    uint64_t h = k.a * 0x9e3779b97f4a7c15ull ^ (k.b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
    return h ^ (h >> 29);
}

static uint32_t key_get(gkey k, int i)
{
    return (uint32_t)((i < 4 ? k.a >> (16 * i) : k.b >> (16 * (i - 4))) & 0xffff);
}

static gkey key_make(const uint32_t *ids, int len)
{
    gkey k = {0, 0};
    for (int i = 0; i < len; i++) {
        if (i < 4)
            k.a |= (uint64_t)ids[i] << (16 * i);
        else
            k.b |= (uint64_t)ids[i] << (16 * (i - 4));
    }
    return k;
}

static int key_len(gkey k)
{
    int n = 0;
    while (n < NGRAM_MAX_ORDER && key_get(k, n))
        n++;
    return n;
}

/* The key without its first symbol. */
static gkey key_suffix(gkey k)
{
    return (gkey){(k.a >> 16) | (k.b << 48), k.b >> 16};
}

/* The key without its last symbol (len ≥ 1). */
static gkey key_prefix(gkey k, int len)
{
    int i = len - 1;
    if (i < 4)
        k.a &= ~((uint64_t)0xffff << (16 * i));
    else
        k.b &= ~((uint64_t)0xffff << (16 * (i - 4)));
    return k;
}

static gent *t_find(const ngram *m, gkey k)
{
    if (!m->tcap)
        return NULL;
    size_t mask = m->tcap - 1, i = key_hash(k) & mask;
    for (;;) {
        gent *e = &m->t[i];
        if (!e->k.a)
            return NULL;
        if (e->k.a == k.a && e->k.b == k.b)
            return e;
        i = (i + 1) & mask;
    }
}

static int t_grow(ngram *m)
{
    size_t ncap = m->tcap ? 2 * m->tcap : 1024;
    if (ncap > SIZE_MAX / sizeof(gent))
        return -1;
    gent *nt = calloc(ncap, sizeof *nt);
    if (!nt)
        return -1;
    for (size_t j = 0; j < m->tcap; j++) {
        if (!m->t[j].k.a)
            continue;
        size_t i = key_hash(m->t[j].k) & (ncap - 1);
        while (nt[i].k.a)
            i = (i + 1) & (ncap - 1);
        nt[i] = m->t[j];
    }
    free(m->t);
    m->t = nt;
    m->tcap = ncap;
    return 0;
}

/* The entry of k, added (zeroed) when absent; NULL when out of memory.
 * Valid until the next insertion. */
static gent *t_get(ngram *m, gkey k)
{
    gent *e = t_find(m, k);
    if (e)
        return e;
    if ((m->tn + 1) * 3 > m->tcap * 2 && t_grow(m))
        return NULL;
    size_t mask = m->tcap - 1, i = key_hash(k) & mask;
    while (m->t[i].k.a)
        i = (i + 1) & mask;
    m->t[i].k = k;
    m->tn++;
    return &m->t[i];
}

static uint32_t sym_find(const ngram *m, const char *s, size_t n, uint64_t h)
{
    uint32_t mask = m->symhcap - 1, i = (uint32_t)h & mask;
    for (;;) {
        uint32_t id = m->symh[i];
        if (!id)
            return 0;
        if (strlen(m->sym[id]) == n && memcmp(m->sym[id], s, n) == 0)
            return id;
        i = (i + 1) & mask;
    }
}

/* The id of symbol s[0..n), added when absent: 0 when out of memory or
 * out of ids. */
static uint32_t sym_id(ngram *m, const char *s, size_t n)
{
    uint64_t h = fnv(s, n);
    uint32_t id = sym_find(m, s, n, h);
    if (id)
        return id;
    if (m->nsym >= MAX_IDS)
        return 0;
    if (m->nsym + 1 >= m->symcap) {
        uint32_t nc = m->symcap * 2;
        char **ns = realloc(m->sym, nc * sizeof *ns);
        if (!ns)
            return 0;
        m->sym = ns;
        m->symcap = nc;
    }
    if ((m->nsym + 1) * 2 > m->symhcap) {
        uint32_t nc = m->symhcap * 2;
        uint32_t *nh = calloc(nc, sizeof *nh);
        if (!nh)
            return 0;
        for (uint32_t j = 1; j < m->nsym; j++) {
            uint32_t i = (uint32_t)fnv(m->sym[j], strlen(m->sym[j])) & (nc - 1);
            while (nh[i])
                i = (i + 1) & (nc - 1);
            nh[i] = j;
        }
        free(m->symh);
        m->symh = nh;
        m->symhcap = nc;
    }
    char *c = malloc(n + 1);
    if (!c)
        return 0;
    memcpy(c, s, n);
    c[n] = '\0';
    id = m->nsym++;
    m->sym[id] = c;
    uint32_t i = (uint32_t)h & (m->symhcap - 1);
    while (m->symh[i])
        i = (i + 1) & (m->symhcap - 1);
    m->symh[i] = id;
    return id;
}

ngram *ngram_new(int order, double discount)
{
    if (order < 1 || order > NGRAM_MAX_ORDER || !(discount > 0 && discount < 1))
        return NULL;
    ngram *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->order = order;
    m->D = discount;
    m->symcap = 64;
    m->symhcap = 128;
    m->sym = calloc(m->symcap, sizeof *m->sym);
    m->symh = calloc(m->symhcap, sizeof *m->symh);
    m->nsym = 1;
    if (!m->sym || !m->symh || sym_id(m, "<s>", 3) != BOS || sym_id(m, "</s>", 4) != EOS) {
        ngram_free(m);
        return NULL;
    }
    return m;
}

void ngram_free(ngram *m)
{
    if (!m)
        return;
    for (uint32_t i = 1; i < m->nsym; i++)
        free(m->sym[i]);
    free(m->sym);
    free(m->symh);
    free(m->t);
    free(m);
}

int ngram_order(const ngram *m)
{
    return m->order;
}

size_t ngram_count(const ngram *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->tcap; i++)
        n += m->t[i].k.a && m->t[i].c && key_len(m->t[i].k) == m->order;
    return n;
}

/* Count the highest-order n-grams of a padded id sequence. */
static crfp_status count_padded(ngram *m, const uint32_t *ids, size_t len, uint64_t times)
{
    const int N = m->order;
    for (size_t i = (size_t)N - 1; i < len; i++) {
        /* every count and context total is at most the sum of all counts:
         * kept far below 2^64 (a hostile file could add up to overflow) */
        if (times > NGRAM_MAX_TOTAL || m->total > NGRAM_MAX_TOTAL - times)
            return CRFP_EINVAL;
        gent *e = t_get(m, key_make(ids + i + 1 - N, N));
        if (!e)
            return CRFP_ENOMEM;
        e->c += times;
        m->total += times;
    }
    return CRFP_OK;
}

crfp_status ngram_add(ngram *m, const char *const *ph, size_t n)
{
    if (!m || m->finished || (n && !ph) || n > SIZE_MAX / sizeof(uint32_t) - 2 * NGRAM_MAX_ORDER)
        return CRFP_EINVAL;
    const int N = m->order;
    size_t len = (size_t)N - 1 + n + 1;
    uint32_t stackbuf[64], *ids = len <= 64 ? stackbuf : malloc(len * sizeof *ids);
    if (!ids)
        return CRFP_ENOMEM;
    crfp_status st = CRFP_OK;
    size_t k = 0;
    for (int i = 0; i < N - 1; i++)
        ids[k++] = BOS;
    for (size_t i = 0; i < n && st == CRFP_OK; i++) {
        size_t l = strlen(ph[i]);
        if (!l || strcspn(ph[i], " \t\r\n") != l || strcmp(ph[i], "<s>") == 0 ||
            strcmp(ph[i], "</s>") == 0) {
            st = CRFP_EINVAL;
            break;
        }
        uint32_t id = sym_id(m, ph[i], l);
        if (!id)
            st = m->nsym >= MAX_IDS ? CRFP_EINVAL : CRFP_ENOMEM;
        ids[k++] = id;
    }
    ids[k++] = EOS;
    if (st == CRFP_OK)
        st = count_padded(m, ids, k, 1);
    if (ids != stackbuf)
        free(ids);
    return st;
}

/* Keys of the entries of length len with a count, copied: the table moves
 * while the caller inserts. */
static gkey *keys_of_length(const ngram *m, int len, size_t *n)
{
    gkey *k = malloc((m->tn + 1) * sizeof *k);
    if (!k)
        return NULL;
    *n = 0;
    for (size_t i = 0; i < m->tcap; i++)
        if (m->t[i].k.a && m->t[i].c && (len == 0 || key_len(m->t[i].k) == len))
            k[(*n)++] = m->t[i].k;
    return k;
}

crfp_status ngram_finish(ngram *m)
{
    if (!m || m->finished)
        return CRFP_EINVAL;
    const int N = m->order;
    size_t n;
    /* continuation counts, order by order downward: N1+(· g) */
    for (int len = N; len >= 2; len--) {
        gkey *k = keys_of_length(m, len, &n);
        if (!k)
            return CRFP_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            gent *e = t_get(m, key_suffix(k[i]));
            if (!e) {
                free(k);
                return CRFP_ENOMEM;
            }
            e->c++;
        }
        free(k);
    }
    /* context totals over every n-gram with a count */
    gkey *k = keys_of_length(m, 0, &n);
    if (!k)
        return CRFP_ENOMEM;
    if (!n) {
        free(k);
        return CRFP_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        const gent *g = t_find(m, k[i]);
        uint64_t c = g->c;
        int len = key_len(k[i]);
        if (len == 1) {
            m->tot0 += c;
            m->typ0++;
            m->V++;
            continue;
        }
        gent *e = t_get(m, key_prefix(k[i], len));
        if (!e) {
            free(k);
            return CRFP_ENOMEM;
        }
        e->tot += c;
        e->typ++;
    }
    free(k);
    m->finished = 1;
    return CRFP_OK;
}

static uint32_t phone_id(const ngram *m, const char *p)
{
    size_t l = strlen(p);
    uint32_t w = sym_find(m, p, l, fnv(p, l));
    return w < FIRST_PHONE ? UNKNOWN : w;
}

/* P(h[N-1] | h[0..N-1)): the interpolation from the unigram level up. */
static double cond_ids(const ngram *m, const uint32_t *h)
{
    const int N = m->order;
    const uint32_t w = h[N - 1];
    const double D = m->D;
    double pr = 1.0 / (m->V + 1.0);   /* one share for the symbols never seen */
    for (int k = 1; k <= N; k++) {
        const uint32_t *g = h + N - k;   /* the k-1 symbols before w, then w */
        uint64_t tot;
        uint32_t typ;
        if (k == 1) {
            tot = m->tot0;
            typ = m->typ0;
        } else {
            const gent *e = t_find(m, key_make(g, k - 1));
            /* a context never seen has no longer context seen either: its
             * extension's suffix would have a continuation count */
            if (!e || !e->tot)
                break;
            tot = e->tot;
            typ = e->typ;
        }
        const gent *e = w == UNKNOWN ? NULL : t_find(m, key_make(g, k));
        double c = e ? (double)e->c : 0.0;
        pr = (c > D ? c - D : 0.0) / (double)tot + D * typ / (double)tot * pr;
    }
    return pr;
}

double ngram_cond(const ngram *m, const char *const *h, size_t nh, const char *w)
{
    const int N = m->order;
    uint32_t ids[NGRAM_MAX_ORDER];
    for (int i = 0; i < N - 1; i++) {
        size_t back = (size_t)(N - 1 - i);   /* how far before w */
        ids[i] = back <= nh ? phone_id(m, h[nh - back]) : BOS;
    }
    ids[N - 1] = w ? phone_id(m, w) : EOS;
    return log(cond_ids(m, ids));
}

uint32_t ngram_symbol(const ngram *m, const char *phone)
{
    return phone_id(m, phone);
}

void ngram_prefix_logprobs(const ngram *m, const uint32_t *ids, size_t n, size_t from,
                           double *cum)
{
    const int N = m->order;
    uint32_t h[NGRAM_MAX_ORDER];   /* the N-1 symbols before position i, then it */
    if (from == 0)
        cum[0] = 0.0;
    for (size_t i = from; i <= n; i++) {
        for (int j = 0; j < N - 1; j++) {
            size_t back = (size_t)(N - 1 - j);
            h[j] = back <= i ? ids[i - back] : BOS;
        }
        h[N - 1] = i < n ? ids[i] : EOS;
        cum[i + 1] = cum[i] + log(cond_ids(m, h));
    }
}

double ngram_logprob(const ngram *m, const char *const *ph, size_t n)
{
    uint32_t sbuf[64] = {0}, *ids = n <= 64 ? sbuf : malloc(n * sizeof *ids);
    double cbuf[66], *cum = n <= 64 ? cbuf : malloc((n + 2) * sizeof *cum);
    double lp = NAN;
    if (ids && cum) {
        for (size_t i = 0; i < n; i++)
            ids[i] = phone_id(m, ph[i]);
        ngram_prefix_logprobs(m, ids, n, 0, cum);
        lp = cum[n + 1];
    }
    if (ids != sbuf)
        free(ids);
    if (cum != cbuf)
        free(cum);
    return lp;
}

crfp_status ngram_save(crfp_host *host, const ngram *m, const char *path)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 5);
    if (!tmp)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp", 5);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        crfp_status st = crfp_error(host, CRFP_EIO, "%s: %s", tmp, strerror(errno));
        free(tmp);
        return st;
    }
    fprintf(f, "# crfpipe phoneme n-gram model 1\norder %d\ndiscount %.17g\n", m->order, m->D);
    for (size_t i = 0; i < m->tcap; i++) {
        const gent *e = &m->t[i];
        if (!e->k.a || key_len(e->k) != m->order)
            continue;
        /* the highest order keeps its raw counts through ngram_finish;
         * everything else is derived from them at load */
        uint64_t c = e->c;
        fputs("g\t", f);
        for (int j = 0; j < m->order; j++)
            fprintf(f, "%s%s", j ? " " : "", m->sym[key_get(e->k, j)]);
        fprintf(f, "\t%llu\n", (unsigned long long)c);
    }
    if (ferror(f) | (fclose(f) != 0) || rename(tmp, path) != 0) {
        crfp_status st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return st;
    }
    free(tmp);
    return CRFP_OK;
}

/* One "g<TAB>s1 ... sN<TAB>count" line into m; 0, or an error already said. */
static crfp_status load_gram(crfp_host *host, ngram *m, char *line, const char *path,
                             size_t lineno)
{
    const int N = m->order;
    char *syms = line + 2, *tab = strncmp(line, "g\t", 2) == 0 ? strchr(syms, '\t') : NULL;
    if (!tab)
        return crfp_error(host, CRFP_EFORMAT, "%s:%zu: expected 'g<TAB>symbols<TAB>count'",
                          path, lineno);
    *tab = '\0';
    char *end;
    errno = 0;
    unsigned long long c = strtoull(tab + 1, &end, 10);
    if (end == tab + 1 || *end || errno || c == 0 || c > (1ull << 40) || tab[1] == '-')
        return crfp_error(host, CRFP_EFORMAT, "%s:%zu: bad count '%s'", path, lineno, tab + 1);
    uint32_t ids[NGRAM_MAX_ORDER];
    int n = 0;
    for (char *p = syms; *p;) {
        char *e = strchr(p, ' ');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (!l || n == N || (e && !e[1]))
            return crfp_error(host, CRFP_EFORMAT, "%s:%zu: expected %d symbols separated by "
                              "single spaces", path, lineno, N);
        uint32_t id = sym_id(m, p, l);
        if (!id)
            return crfp_error(host, m->nsym >= MAX_IDS ? CRFP_EFORMAT : CRFP_ENOMEM,
                              "%s:%zu: %s", path, lineno,
                              m->nsym >= MAX_IDS ? "too many symbols" : "out of memory");
        ids[n++] = id;
        p = e ? e + 1 : p + l;
    }
    if (n != N)
        return crfp_error(host, CRFP_EFORMAT, "%s:%zu: expected %d symbols, found %d", path,
                          lineno, N, n);
    /* <s> only as leading padding, </s> only last */
    for (int i = 0; i < N; i++)
        if ((ids[i] == BOS && i && ids[i - 1] != BOS) || (ids[i] == EOS && i != N - 1) ||
            (i == N - 1 && ids[i] == BOS))
            return crfp_error(host, CRFP_EFORMAT, "%s:%zu: misplaced <s> or </s>", path, lineno);
    crfp_status st = count_padded(m, ids, (size_t)N, c);
    if (st == CRFP_EINVAL)
        return crfp_error(host, CRFP_EFORMAT, "%s:%zu: the counts add up to more than 2^52",
                          path, lineno);
    return st == CRFP_OK ? CRFP_OK
                         : crfp_error(host, CRFP_ENOMEM, "%s:%zu: out of memory", path, lineno);
}

/* The next line of f, without its terminator, into *buf: 1, or 0 at the
 * end; -1 longer than max bytes (0: no limit), -2 a NUL byte, -3 out of
 * memory.  Never holds more than max bytes of a hostile file. */
static int read_line(FILE *f, char **buf, size_t *cap, size_t max)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == 0)
            return -2;
        if (max && n >= max)
            return -1;
        if (n + 2 > *cap) {
            size_t nc = *cap ? 2 * *cap : 256;
            char *nb = realloc(*buf, nc);
            if (!nb)
                return -3;
            *buf = nb;
            *cap = nc;
        }
        (*buf)[n++] = (char)c;
    }
    if (c == EOF && n == 0)
        return 0;
    if (!*buf && !(*buf = malloc(*cap = 256)))
        return -3;
    if (n && (*buf)[n - 1] == '\r')
        n--;
    (*buf)[n] = '\0';
    return 1;
}

crfp_status ngram_load(crfp_host *host, const char *path, ngram **out)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
    size_t maxline = crfp_host_limit(host, CRFP_LIMIT_LINE);
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    int order = 0, r;
    ngram *m = NULL;
    crfp_status st = CRFP_OK;
    while (st == CRFP_OK && (r = read_line(f, &line, &cap, maxline)) != 0) {
        lineno++;
        if (r == -1) {
            st = crfp_error(host, CRFP_EFORMAT, "%s:%zu: line longer than the limit line=%zu "
                            "bytes (raise it with --limit line=N or CRFPIPE_LIMITS=line=N; "
                            "0 = unlimited)", path, lineno, maxline);
            break;
        }
        if (r == -2) {
            st = crfp_error(host, CRFP_EFORMAT, "%s:%zu: %s", path, lineno,
                            lineno == 1 ? "not a phoneme n-gram model (a binary file?)"
                                        : "a NUL byte in the line");
            break;
        }
        if (r == -3) {
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
            break;
        }
        if (lineno == 1) {
            if (strcmp(line, "# crfpipe phoneme n-gram model 1") != 0)
                st = crfp_error(host, CRFP_EFORMAT, "%s:1: not a phoneme n-gram model "
                                "(expected '# crfpipe phoneme n-gram model 1')", path);
            continue;
        }
        if (!m) {
            char key[16], extra;
            double v;
            if (sscanf(line, "%15s %lf %c", key, &v, &extra) != 2) {
                st = crfp_error(host, CRFP_EFORMAT, "%s:%zu: expected 'order N' and then "
                                "'discount D'", path, lineno);
            } else if (strcmp(key, "order") == 0 && !order) {
                if (v != floor(v) || v < 1 || v > NGRAM_MAX_ORDER)
                    st = crfp_error(host, CRFP_EFORMAT, "%s:%zu: order must be 1 to %d", path,
                                    lineno, NGRAM_MAX_ORDER);
                else
                    order = (int)v;   /* only in range: a NaN or 1e300 has no int */
            } else if (strcmp(key, "discount") == 0 && order) {
                if (!(v > 0 && v < 1))
                    st = crfp_error(host, CRFP_EFORMAT, "%s:%zu: discount must be in (0, 1)",
                                    path, lineno);
                else if (!(m = ngram_new(order, v)))
                    st = crfp_error(host, CRFP_ENOMEM, "out of memory");
            } else {
                st = crfp_error(host, CRFP_EFORMAT, "%s:%zu: expected 'order N' and then "
                                "'discount D'", path, lineno);
            }
            continue;
        }
        st = load_gram(host, m, line, path, lineno);
    }
    if (st == CRFP_OK && ferror(f))
        st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (st == CRFP_OK && !m)
        st = crfp_error(host, CRFP_EFORMAT, "%s: %s", path,
                        lineno ? "no 'order' and 'discount' lines" : "empty file");
    if (st == CRFP_OK) {
        st = ngram_finish(m);
        if (st == CRFP_EINVAL)
            st = crfp_error(host, CRFP_EFORMAT, "%s: the model has no n-grams", path);
        else if (st != CRFP_OK)
            st = crfp_error(host, st, "out of memory");
    }
    if (st != CRFP_OK) {
        ngram_free(m);
        return st;
    }
    *out = m;
    return CRFP_OK;
}
