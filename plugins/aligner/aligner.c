/* aligner — many-to-many EM alignment of graphemes to phonemes
 * (Jiampojamarn, Kondrak & Sherif 2007), turning a pronunciation lexicon
 * into per-grapheme labels a CRF can learn.
 *
 * Model.  A joint distribution P(g, p) over "chunk pairs": g is one or two
 * graphemes, p zero, one or two phonemes, with the moves 1:0 (a silent
 * letter), 1:1, 1:2 and 2:1 (`max-letters`, `max-phonemes` restrict them;
 * 2:2 is left out, being two 1:1s, and deletions are single letters, as in
 * the paper).  EM: forward-backward over the (letter, phoneme) lattice of
 * each entry gives expected chunk-pair counts, normalised jointly; the
 * initial distribution is the co-occurrence count of each pair in the
 * lattices.  Stress digits are ignored in the model (`ignore-stress`), so
 * AH0 and AH1 share their statistics and one model serves both.
 *
 * Use.  At open, with `lexicon`, the model is trained on that file (read by
 * the lexicon_reader and graphemes plugins, through the host, with the same
 * folding as the pipeline) and saved to `model` when given; without it the
 * saved `model` is loaded.  Then, per Sentence (entry) with a `phonemes`
 * feature, the best (Viterbi) alignment labels each Token (feature
 * `output`, default `phone`): the first letter of a chunk gets its phonemes
 * joined by ':' (`K:S`) or the null phoneme `_`, the second letter of a 2:1
 * chunk gets `_`.  The phonemes stage undoes this exactly.  An entry with no
 * alignment under the moves (more phonemes than 2 per letter) gets a
 * fallback: one phoneme per letter and the rest joined on the last letter;
 * their number is logged.  With `unaligned=none` such an entry gets no label
 * instead: its long joined labels would each become a label of the CRF (on
 * CMUdict, 44 of 108,127 entries), and a trainer run with `unlabelled=skip`
 * leaves the entry out.  Sentences with a gold `aligned` feature (NETtalk)
 * are scored: the agreement is logged at the end of the stream.
 *
 * Model file: a `# crfpipe aligner model 1` line, `key value` settings,
 * then `pair<TAB>g1[ g2]<TAB>p1[ p2]|_<TAB>probability` lines; loading
 * checks every line (see load_model). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"
#include "../common/colio.h"

static const crfp_param_spec params[] = {
    {"model", CRFP_PARAM_PATH, NULL, "alignment model: loaded, or written after training"},
    {"lexicon", CRFP_PARAM_PATH, NULL, "lexicon to train the alignment on (EM) at start"},
    {"lexicon-format", CRFP_PARAM_STRING, "auto", "its format (see lexicon_reader)"},
    {"fold", CRFP_PARAM_BOOL, "true", "case folding of the graphemes (as the graphemes stage)"},
    {"letter", CRFP_PARAM_STRING, "letter", "token feature holding the grapheme"},
    {"input", CRFP_PARAM_STRING, "phonemes", "Sentence feature holding the pronunciation"},
    {"output", CRFP_PARAM_STRING, "phone", "token feature receiving the label"},
    {"max-letters", CRFP_PARAM_INT, "2", "letters per chunk (1 or 2)"},
    {"max-phonemes", CRFP_PARAM_INT, "2", "phonemes per chunk (1 or 2)"},
    {"deletions", CRFP_PARAM_BOOL, "true", "letters may map to no phoneme"},
    {"ignore-stress", CRFP_PARAM_BOOL, "true", "strip stress digits inside the model"},
    {"iterations", CRFP_PARAM_INT, "30", "at most this many EM iterations"},
    {"unaligned", CRFP_PARAM_STRING, "join",
     "an entry no alignment fits: join (one phoneme per letter, the rest on the last) or "
     "none (no label: train with unlabelled=skip to leave it out)"},
};

/* --- string interning ------------------------------------------------------ */
typedef struct strtab {
    char **s;          /* id -> string, id 0 unused */
    size_t n, cap;
    uint32_t *h;       /* open addressing: id or 0 */
    size_t hcap;
} strtab;

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static void st_free(strtab *t)
{
    for (size_t i = 1; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->h);
}

/* Id of s[0..n) (added when absent); 0 on ENOMEM or table full. */
static uint32_t st_id(strtab *t, const char *s, size_t n)
{
    if (t->n == 0) {
        t->cap = 64;
        t->hcap = 256;
        t->s = calloc(t->cap, sizeof *t->s);
        t->h = calloc(t->hcap, sizeof *t->h);
        if (!t->s || !t->h)
            return 0;
        t->n = 1;
    }
    size_t m = t->hcap - 1, i = (size_t)fnv(s, n) & m;
    while (t->h[i]) {
        const char *c = t->s[t->h[i]];
        if (strlen(c) == n && memcmp(c, s, n) == 0)
            return t->h[i];
        i = (i + 1) & m;
    }
    if (t->n >= 65535)
        return 0;   /* ids are packed in 16 bits */
    if (t->n == t->cap) {
        char **ns = realloc(t->s, 2 * t->cap * sizeof *ns);
        if (!ns)
            return 0;
        t->s = ns;
        t->cap *= 2;
    }
    if (!(t->s[t->n] = strndup(s, n)))
        return 0;
    t->h[i] = (uint32_t)t->n;
    uint32_t id = (uint32_t)t->n++;
    if (2 * t->n > t->hcap) {   /* rehash */
        size_t nc = 2 * t->hcap;
        uint32_t *nh = calloc(nc, sizeof *nh);
        if (!nh)
            return 0;
        for (size_t k = 1; k < t->n; k++) {
            size_t j = (size_t)fnv(t->s[k], strlen(t->s[k])) & (nc - 1);
            while (nh[j])
                j = (j + 1) & (nc - 1);
            nh[j] = (uint32_t)k;
        }
        free(t->h);
        t->h = nh;
        t->hcap = nc;
    }
    return id;
}

/* --- chunk-pair table: key -> (prob, count) ---------------------------------- */
typedef struct pairtab {
    uint64_t *key;     /* 0 = empty (no pair has all four ids 0) */
    double *prob, *cnt;
    size_t n, cap;
} pairtab;

static uint64_t pkey(uint32_t g1, uint32_t g2, uint32_t p1, uint32_t p2)
{
    return (uint64_t)g1 | (uint64_t)g2 << 16 | (uint64_t)p1 << 32 | (uint64_t)p2 << 48;
}

static void pt_free(pairtab *t)
{
    free(t->key);
    free(t->prob);
    free(t->cnt);
    memset(t, 0, sizeof *t);
}

static size_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k;
}

/* Slot of `k`, or (size_t)-1 when absent and !add (or on ENOMEM). */
static size_t pt_find(pairtab *t, uint64_t k, int add)
{
    if (t->cap == 0) {
        if (!add)
            return (size_t)-1;
        t->cap = 1024;
        t->key = calloc(t->cap, sizeof *t->key);
        t->prob = calloc(t->cap, sizeof *t->prob);
        t->cnt = calloc(t->cap, sizeof *t->cnt);
        if (!t->key || !t->prob || !t->cnt)
            return (size_t)-1;
    }
    size_t m = t->cap - 1, i = hash64(k) & m;
    while (t->key[i]) {
        if (t->key[i] == k)
            return i;
        i = (i + 1) & m;
    }
    if (!add)
        return (size_t)-1;
    if (2 * (t->n + 1) > t->cap) {
        pairtab nt = {0};
        nt.cap = 2 * t->cap;
        nt.key = calloc(nt.cap, sizeof *nt.key);
        nt.prob = calloc(nt.cap, sizeof *nt.prob);
        nt.cnt = calloc(nt.cap, sizeof *nt.cnt);
        if (!nt.key || !nt.prob || !nt.cnt) {
            pt_free(&nt);
            return (size_t)-1;
        }
        for (size_t j = 0; j < t->cap; j++) {
            if (!t->key[j])
                continue;
            size_t q = hash64(t->key[j]) & (nt.cap - 1);
            while (nt.key[q])
                q = (q + 1) & (nt.cap - 1);
            nt.key[q] = t->key[j];
            nt.prob[q] = t->prob[j];
            nt.cnt[q] = t->cnt[j];
        }
        nt.n = t->n;
        pt_free(t);
        *t = nt;
        return pt_find(t, k, add);
    }
    t->key[i] = k;
    t->n++;
    return i;
}

/* --- the aligner ------------------------------------------------------------ */
typedef struct move {
    int a, b;   /* letters, phonemes */
} move;

typedef struct word {
    uint32_t *x, *y;   /* grapheme ids, phoneme ids (stress-free when ignored) */
    int n, m;
} word;

typedef struct aligner {
    crfp_host *host;
    const crfp_params *params;
    strtab g, p;
    pairtab pairs;
    move moves[6];
    int nmoves;
    int ignore_stress;
    int label_unaligned; /* unaligned=join */
    char *letter, *input, *output;
    /* scratch */
    double *alpha, *beta;
    size_t *slot;
    int *back;
    size_t scap;
    uint32_t *xb, *yb;
    size_t xcap, ycap;
    char *lab;
    size_t labcap;
    /* statistics */
    size_t words, fallbacks, gold_letters, gold_agree, gold_words, gold_words_agree;
} aligner;

static void al_close(void *state)
{
    aligner *A = state;
    if (!A)
        return;
    if (A->words)
        crfp_log(A->host, CRFP_LOG_INFO, "aligner: %zu entries aligned, %zu %s", A->words,
                 A->fallbacks, A->label_unaligned ? "by the fallback" : "left unlabelled");
    if (A->gold_letters)
        crfp_log(A->host, CRFP_LOG_INFO, "aligner: agreement with the gold alignment: %.2f%% of "
                 "%zu letters, %.2f%% of %zu words",
                 100.0 * (double)A->gold_agree / (double)A->gold_letters, A->gold_letters,
                 100.0 * (double)A->gold_words_agree / (double)A->gold_words, A->gold_words);
    st_free(&A->g);
    st_free(&A->p);
    pt_free(&A->pairs);
    free(A->alpha);
    free(A->beta);
    free(A->slot);
    free(A->back);
    free(A->xb);
    free(A->yb);
    free(A->lab);
    free(A->letter);
    free(A->input);
    free(A->output);
    free(A);
}

/* Phoneme id of s[0..n), stress digits dropped when the model ignores them. */
static uint32_t phone_id(aligner *A, const char *s, size_t n)
{
    if (A->ignore_stress)
        while (n > 1 && s[n - 1] >= '0' && s[n - 1] <= '9')
            n--;
    return st_id(&A->p, s, n);
}

/* Scratch for a lattice of n letters and m phonemes. */
static int scratch(aligner *A, int n, int m)
{
    size_t need = (size_t)(n + 1) * (size_t)(m + 1);
    if (need <= A->scap)
        return 1;
    free(A->alpha);
    free(A->beta);
    free(A->slot);
    free(A->back);
    A->scap = need * 2;
    A->alpha = malloc(A->scap * sizeof *A->alpha);
    A->beta = malloc(A->scap * sizeof *A->beta);
    A->slot = malloc(A->scap * 6 * sizeof *A->slot);
    A->back = malloc(A->scap * sizeof *A->back);
    return A->alpha && A->beta && A->slot && A->back;
}

/* The pair key of the move `mv` ending at (i, j). */
static uint64_t move_key(const word *w, int i, int j, const move *mv)
{
    uint32_t g1 = w->x[i - mv->a], g2 = mv->a == 2 ? w->x[i - 1] : 0;
    uint32_t p1 = mv->b >= 1 ? w->y[j - mv->b] : 0, p2 = mv->b == 2 ? w->y[j - 1] : 0;
    return pkey(g1, g2, p1, p2);
}

/* Forward-backward on one word; adds expected counts.  Returns log Z, or
 * -INFINITY when the word has no alignment. */
static double em_word(aligner *A, const word *w)
{
    int n = w->n, m = w->m, M = m + 1;
    if (!scratch(A, n, m))
        return NAN;
    double *al = A->alpha, *be = A->beta;
    size_t *sl = A->slot;
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= m; j++) {
            double s = i == 0 && j == 0 ? 1.0 : 0.0;
            for (int k = 0; k < A->nmoves; k++) {
                const move *mv = &A->moves[k];
                size_t *slot = &sl[((size_t)i * M + j) * 6 + k];
                *slot = (size_t)-1;
                if (i < mv->a || j < mv->b)
                    continue;
                *slot = pt_find(&A->pairs, move_key(w, i, j, mv), 0);
                if (*slot != (size_t)-1)
                    s += al[(size_t)(i - mv->a) * M + (j - mv->b)] * A->pairs.prob[*slot];
            }
            if (i || j)
                al[(size_t)i * M + j] = s;
            else
                al[0] = 1.0;
        }
    double Z = al[(size_t)n * M + m];
    if (!(Z > 0))
        return -INFINITY;
    for (int i = n; i >= 0; i--)
        for (int j = m; j >= 0; j--) {
            if (i == n && j == m) {
                be[(size_t)i * M + j] = 1.0;
                continue;
            }
            double s = 0;
            for (int k = 0; k < A->nmoves; k++) {
                const move *mv = &A->moves[k];
                int i2 = i + mv->a, j2 = j + mv->b;
                if (i2 > n || j2 > m)
                    continue;
                size_t slot = sl[((size_t)i2 * M + j2) * 6 + k];
                if (slot != (size_t)-1)
                    s += A->pairs.prob[slot] * be[(size_t)i2 * M + j2];
            }
            be[(size_t)i * M + j] = s;
        }
    for (int i = 1; i <= n; i++)
        for (int j = 0; j <= m; j++)
            for (int k = 0; k < A->nmoves; k++) {
                size_t slot = sl[((size_t)i * M + j) * 6 + k];
                if (slot == (size_t)-1)
                    continue;
                const move *mv = &A->moves[k];
                A->pairs.cnt[slot] += al[(size_t)(i - mv->a) * M + (j - mv->b)] *
                                      A->pairs.prob[slot] * be[(size_t)i * M + j] / Z;
            }
    return log(Z);
}

/* Every chunk pair of the word's lattice gets a count of 1 (initialisation). */
static int seed_word(aligner *A, const word *w)
{
    for (int i = 1; i <= w->n; i++)
        for (int j = 0; j <= w->m; j++)
            for (int k = 0; k < A->nmoves; k++) {
                const move *mv = &A->moves[k];
                if (i < mv->a || j < mv->b)
                    continue;
                size_t s = pt_find(&A->pairs, move_key(w, i, j, mv), 1);
                if (s == (size_t)-1)
                    return 0;
                A->pairs.cnt[s] += 1.0;
            }
    return 1;
}

static void normalise(aligner *A)
{
    double tot = 0;
    for (size_t i = 0; i < A->pairs.cap; i++)
        tot += A->pairs.cnt[i];
    for (size_t i = 0; i < A->pairs.cap; i++) {
        A->pairs.prob[i] = tot > 0 ? A->pairs.cnt[i] / tot : 0;
        A->pairs.cnt[i] = 0;
    }
}

/* --- training: read the lexicon through the reader and graphemes plugins --- */
typedef struct wordlist {
    word *w;
    size_t n, cap;
} wordlist;

static void wl_free(wordlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->w[i].x);
        free(l->w[i].y);
    }
    free(l->w);
}

/* Letters (token feature) and phonemes (sentence feature) of one entry as
 * ids into A->xb / A->yb; *n, *m their numbers.  0 when the entry has no
 * pronunciation; -1 on error. */
static int entry_ids(aligner *A, crfp_ann *sent, crfp_ann **toks, size_t nt, int *n, int *m,
                     const char *const **labels_src, const char ***phon_strs, size_t *phon_cap,
                     char **phon_buf)
{
    (void)labels_src;
    const char *ph = crfp_ann_str(sent, A->input);
    if (!ph)
        return 0;
    if (nt + 1 > A->xcap) {
        free(A->xb);
        A->xcap = 2 * nt + 8;
        if (!(A->xb = malloc(A->xcap * sizeof *A->xb)))
            return -1;
    }
    for (size_t t = 0; t < nt; t++) {
        const char *l = crfp_ann_str(toks[t], A->letter);
        if (!l) {
            crfp_error(A->host, CRFP_ENOTFOUND, "a Token has no '%s' feature (run the graphemes "
                       "tokenizer before the aligner)", A->letter);
            return -1;
        }
        if (!(A->xb[t] = st_id(&A->g, l, strlen(l)))) {
            crfp_error(A->host, CRFP_ENOMEM, "out of memory (or more than 65535 graphemes)");
            return -1;
        }
    }
    *n = (int)nt;
    size_t pl = strlen(ph);
    if (pl + 1 > A->ycap) {
        free(A->yb);
        A->ycap = 2 * pl + 8;
        if (!(A->yb = malloc(A->ycap * sizeof *A->yb)))
            return -1;
    }
    if (phon_strs) {
        free(*phon_buf);
        if (!(*phon_buf = strdup(ph)))
            return -1;
        if (pl + 1 > *phon_cap) {
            free(*phon_strs);
            *phon_cap = pl + 8;
            if (!(*phon_strs = malloc(*phon_cap * sizeof **phon_strs)))
                return -1;
        }
    }
    int k = 0;
    for (const char *p = ph; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        if (!(A->yb[k] = phone_id(A, p, (size_t)(e - p)))) {
            crfp_error(A->host, CRFP_ENOMEM, "out of memory");
            return -1;
        }
        if (phon_strs) {
            char *c = *phon_buf + (p - ph);
            c[e - p] = '\0';
            (*phon_strs)[k] = c;
        }
        k++;
        p = e;
    }
    *m = k;
    return 1;
}

static crfp_status load_lexicon(aligner *A, const char *path, wordlist *out)
{
    crfp_host *host = A->host;
    const crfp_plugin *rp, *gp;
    crfp_status st;
    if ((st = crfp_host_load_kind(host, "lexicon_reader", CRFP_KIND_READER, &rp)) != CRFP_OK ||
        (st = crfp_host_load_kind(host, "graphemes", CRFP_KIND_TOKENIZER, &gp)) != CRFP_OK)
        return st;
    crfp_params *rpar = crfp_params_new(rp->desc->params, rp->desc->nparams);
    crfp_params *gpar = crfp_params_new(gp->desc->params, gp->desc->nparams);
    FILE *fp = NULL;
    void *rs = NULL, *gs = NULL;
    const crfp_reader_vtable *rv = rp->desc->vtable;
    const crfp_stage_vtable *gv = gp->desc->vtable;
    if (!rpar || !gpar) {
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        goto out;
    }
    if ((st = crfp_params_set(host, rpar, "aligner", "format",
                              crfp_params_str(A->params, "lexicon-format"), NULL)) != CRFP_OK ||
        (st = crfp_params_set(host, gpar, "aligner", "fold",
                              crfp_params_bool(A->params, "fold") ? "true" : "false", NULL)) !=
            CRFP_OK ||
        (st = crfp_params_set(host, gpar, "aligner", "feature", A->letter, NULL)) != CRFP_OK)
        goto out;
    if (!(fp = fopen(path, "rb"))) {
        st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
        goto out;
    }
    crfp_stream in = {fp, path};
    if ((st = rv->open(host, rpar, &in, &rs)) != CRFP_OK) {
        rs = NULL;
        goto out;
    }
    if ((st = gv->open(host, gpar, &gs)) != CRFP_OK) {
        gs = NULL;
        goto out;
    }
    for (;;) {
        crfp_doc *doc = NULL;
        if ((st = rv->next(rs, &doc)) != CRFP_OK || !doc)
            break;
        if ((st = gv->process(gs, doc)) != CRFP_OK) {
            crfp_doc_free(doc);
            break;
        }
        crfp_annset *set = crfp_doc_annset(doc, "", 0);
        crfp_ann **sents = NULL, **toks = NULL;
        size_t ns = 0, ntk = 0, t = 0, len = crfp_doc_length(doc);
        if (set && (st = crfp_annset_select(set, "Sentence", 0, len, &sents, &ns)) == CRFP_OK)
            st = crfp_annset_select(set, "Token", 0, len, &toks, &ntk);
        for (size_t s = 0; s < ns && st == CRFP_OK; s++) {
            while (t < ntk && toks[t]->start < sents[s]->start)
                t++;
            size_t t0 = t;
            while (t < ntk && toks[t]->end <= sents[s]->end)
                t++;
            int n, m;
            int r = entry_ids(A, sents[s], toks + t0, t - t0, &n, &m, NULL, NULL, NULL, NULL);
            if (r < 0) {
                st = crfp_errcode(host) != CRFP_OK ? crfp_errcode(host) : CRFP_ENOMEM;
                break;
            }
            if (r == 0 || n == 0 || m == 0)
                continue;
            if (out->n == out->cap) {
                size_t nc = out->cap ? 2 * out->cap : 1024;
                word *nw = realloc(out->w, nc * sizeof *nw);
                if (!nw) {
                    st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                    break;
                }
                out->w = nw;
                out->cap = nc;
            }
            word *w = &out->w[out->n];
            w->x = malloc((size_t)n * sizeof *w->x);
            w->y = malloc((size_t)m * sizeof *w->y);
            if (!w->x || !w->y) {
                free(w->x);
                free(w->y);
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                break;
            }
            memcpy(w->x, A->xb, (size_t)n * sizeof *w->x);
            memcpy(w->y, A->yb, (size_t)m * sizeof *w->y);
            w->n = n;
            w->m = m;
            out->n++;
        }
        free(sents);
        free(toks);
        crfp_doc_free(doc);
        if (st != CRFP_OK)
            break;
    }
out:
    if (gs)
        gv->close(gs);
    if (rs)
        rv->close(rs);
    if (fp)
        fclose(fp);
    crfp_params_free(rpar);
    crfp_params_free(gpar);
    return st;
}

static crfp_status train(aligner *A, const char *path)
{
    wordlist wl = {0};
    crfp_status st = load_lexicon(A, path, &wl);
    if (st != CRFP_OK) {
        wl_free(&wl);
        return crfp_error_wrap(A->host, st, "aligner: training on %s", path);
    }
    if (wl.n == 0) {
        wl_free(&wl);
        return crfp_error(A->host, CRFP_EINVAL, "aligner: %s: no entries with a pronunciation",
                          path);
    }
    for (size_t i = 0; i < wl.n; i++)
        if (!seed_word(A, &wl.w[i])) {
            wl_free(&wl);
            return crfp_error(A->host, CRFP_ENOMEM, "out of memory");
        }
    normalise(A);
    int64_t iters = crfp_params_int(A->params, "iterations");
    double prev = -INFINITY;
    for (int64_t it = 0; it < iters; it++) {
        double ll = 0;
        size_t skipped = 0;
        for (size_t i = 0; i < wl.n; i++) {
            double z = em_word(A, &wl.w[i]);
            if (isnan(z)) {
                wl_free(&wl);
                return crfp_error(A->host, CRFP_ENOMEM, "out of memory");
            }
            if (isinf(z))
                skipped++;
            else
                ll += z;
        }
        normalise(A);
        crfp_log(A->host, CRFP_LOG_PROGRESS, "aligner: EM iteration %lld: log-likelihood %.6g "
                 "(%zu entries, %zu without an alignment)", (long long)it + 1, ll, wl.n, skipped);
        if (it > 0 && fabs(ll - prev) <= 1e-5 * fabs(ll))
            break;
        prev = ll;
    }
    /* forget pairs EM drove to (almost) zero: a smaller model, same alignments */
    for (size_t i = 0; i < A->pairs.cap; i++)
        if (A->pairs.key[i] && A->pairs.prob[i] < 1e-12)
            A->pairs.prob[i] = 0;
    wl_free(&wl);
    return CRFP_OK;
}

/* --- model file ------------------------------------------------------------- */
static crfp_status save_model(aligner *A, const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return crfp_error(A->host, CRFP_EIO, "%s: %s", tmp, strerror(errno));
    fprintf(f, "# crfpipe aligner model 1\n");
    fprintf(f, "max-letters %lld\nmax-phonemes %lld\ndeletions %s\nignore-stress %s\nfold %s\n",
            (long long)crfp_params_int(A->params, "max-letters"),
            (long long)crfp_params_int(A->params, "max-phonemes"),
            crfp_params_bool(A->params, "deletions") ? "true" : "false",
            A->ignore_stress ? "true" : "false",
            crfp_params_bool(A->params, "fold") ? "true" : "false");
    for (size_t i = 0; i < A->pairs.cap; i++) {
        uint64_t k = A->pairs.key[i];
        if (!k || A->pairs.prob[i] <= 0)
            continue;
        uint32_t g1 = k & 0xffff, g2 = (k >> 16) & 0xffff, p1 = (k >> 32) & 0xffff,
                 p2 = (k >> 48) & 0xffff;
        fprintf(f, "pair\t%s%s%s\t%s%s%s\t%.17g\n", A->g.s[g1], g2 ? " " : "", g2 ? A->g.s[g2] : "",
                p1 ? A->p.s[p1] : "_", p2 ? " " : "", p2 ? A->p.s[p2] : "", A->pairs.prob[i]);
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return crfp_error(A->host, CRFP_EIO, "%s: %s", path, strerror(errno));
    }
    return CRFP_OK;
}

/* Whether s is one symbol of a model's pair line: non-empty, no blank, no
 * control character. */
static int symbol_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || *s == 0x7f)
            return 0;
    return 1;
}

/* Split a chunk "s1" or "s1 s2" of a pair line in place; 0 when it is not
 * one or two symbols separated by one space. */
static int split_chunk(char *s, char **second)
{
    char *sp = strchr(s, ' ');
    *second = NULL;
    if (sp) {
        *sp = '\0';
        *second = sp + 1;
    }
    return symbol_ok(s) && (!*second || symbol_ok(*second));
}

/* The id of symbol s in t for a model line; 0 with the error recorded (the
 * 16-bit ids are exhausted, or memory). */
static uint32_t model_id(aligner *A, strtab *t, const char *s, const char *what, const char *path,
                         unsigned long lineno)
{
    uint32_t id = st_id(t, s, strlen(s));
    if (!id && t->n >= 65535)
        crfp_error(A->host, CRFP_EFORMAT, "%s:%lu: more than 65,534 distinct %s", path, lineno,
                   what);
    else if (!id)
        crfp_error(A->host, CRFP_ENOMEM, "out of memory");
    return id;
}

/* A model file is hostile input like any other: its lines are read through
 * plugins/common/colio (the host's `line` limit, NUL bytes and invalid UTF-8
 * are errors naming file:line), and every field is checked. */
static crfp_status load_model(aligner *A, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return crfp_error(A->host, CRFP_EIO, "%s: %s", path, strerror(errno));
    crfp_stream in = {f, path};
    colio_lines L = {0};
    L.host = A->host;
    L.in = &in;
    crfp_status st;
    for (;;) {
        int got;
        colio_discard_consumed(&L);
        if ((st = colio_next(&L, &got)) != CRFP_OK || !got)
            break;
        char *line = L.line;
        unsigned long lineno = L.lineno;
        if (lineno == 1) {
            if (strcmp(line, "# crfpipe aligner model 1") != 0) {
                st = crfp_error(A->host, CRFP_EFORMAT, "%s:1: not an aligner model (expected "
                                "'# crfpipe aligner model 1')", path);
                break;
            }
            continue;
        }
        if (!*line || line[0] == '#')
            continue;
        if (strncmp(line, "pair\t", 5) != 0) {
            char key[64], val[64], extra[2];
            if (sscanf(line, "%63s %63s %1s", key, val, extra) != 2) {
                st = crfp_error(A->host, CRFP_EFORMAT, "%s:%lu: expected 'key value' or a "
                                "pair line", path, lineno);
                break;
            }
            if (strcmp(key, "ignore-stress") == 0) {
                if (strcmp(val, "true") != 0 && strcmp(val, "false") != 0) {
                    st = crfp_error(A->host, CRFP_EFORMAT, "%s:%lu: ignore-stress is true or "
                                    "false, not '%s'", path, lineno, val);
                    break;
                }
                A->ignore_stress = strcmp(val, "true") == 0;
            } else if (strcmp(key, "max-letters") != 0 && strcmp(key, "max-phonemes") != 0 &&
                       strcmp(key, "deletions") != 0 && strcmp(key, "fold") != 0) {
                /* those four are informative: the moves come from the
                 * parameters, and pairs the model lacks have no
                 * probability anyway */
                st = crfp_error(A->host, CRFP_EFORMAT, "%s:%lu: unknown setting '%s'", path,
                                lineno, key);
                break;
            }
            continue;
        }
        char *g = line + 5, *t2 = strchr(g, '\t'), *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
        if (!t2 || !t3) {
            st = crfp_error(A->host, CRFP_EFORMAT, "%s:%lu: a pair line needs 3 TAB-separated "
                            "fields", path, lineno);
            break;
        }
        *t2 = *t3 = '\0';
        char *ph = t2 + 1, *end, *g2s, *p2s = NULL;
        double pr = strtod(t3 + 1, &end);
        if (end == t3 + 1 || *end || !(pr > 0 && pr <= 1)) {
            st = crfp_error(A->host, CRFP_EFORMAT, "%s:%lu: bad probability '%s'", path, lineno,
                            t3 + 1);
            break;
        }
        int null_ph = strcmp(ph, "_") == 0;
        if (!split_chunk(g, &g2s) || (!null_ph && !split_chunk(ph, &p2s))) {
            st = crfp_error(A->host, CRFP_EFORMAT, "%s:%lu: a chunk is one or two symbols "
                            "separated by a space, with no other blank or control character (or "
                            "'_' for no phoneme)", path, lineno);
            break;
        }
        uint32_t g1 = model_id(A, &A->g, g, "graphemes", path, lineno);
        uint32_t g2 = g1 && g2s ? model_id(A, &A->g, g2s, "graphemes", path, lineno) : 0;
        uint32_t p1 = 0, p2 = 0;
        if (!null_ph && g1 && (g2 || !g2s)) {
            p1 = model_id(A, &A->p, ph, "phonemes", path, lineno);
            p2 = p1 && p2s ? model_id(A, &A->p, p2s, "phonemes", path, lineno) : 0;
        }
        if (!g1 || (g2s && !g2) || (!null_ph && (!p1 || (p2s && !p2)))) {
            st = crfp_errcode(A->host);
            break;
        }
        size_t s = pt_find(&A->pairs, pkey(g1, g2, p1, p2), 1);
        if (s == (size_t)-1) {
            st = crfp_error(A->host, CRFP_ENOMEM, "out of memory");
            break;
        }
        A->pairs.prob[s] = pr;
    }
    colio_lines_free(&L);
    fclose(f);
    if (st == CRFP_OK && A->pairs.n == 0)
        st = crfp_error(A->host, CRFP_EFORMAT, "%s: the model has no pairs", path);
    return st;
}

/* --- open / process ----------------------------------------------------------- */
static crfp_status al_open(crfp_host *host, const crfp_params *p, void **state)
{
    int64_t ml = crfp_params_int(p, "max-letters"), mp = crfp_params_int(p, "max-phonemes");
    if (ml < 1 || ml > 2 || mp < 1 || mp > 2)
        return crfp_error(host, CRFP_EINVAL, "max-letters and max-phonemes must be 1 or 2");
    const char *model = crfp_params_str(p, "model"), *lex = crfp_params_str(p, "lexicon");
    if (!model && !lex)
        return crfp_error(host, CRFP_EINVAL, "give 'model' (a saved alignment model), "
                          "'lexicon' (to train one), or both (train and save)");
    aligner *A = calloc(1, sizeof *A);
    if (!A)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    A->host = host;
    A->params = p;
    A->ignore_stress = crfp_params_bool(p, "ignore-stress");
    const char *un = crfp_params_str(p, "unaligned");
    if (strcmp(un, "join") != 0 && strcmp(un, "none") != 0) {
        free(A);
        return crfp_error(host, CRFP_EINVAL, "unaligned must be join or none, not '%s'", un);
    }
    A->label_unaligned = strcmp(un, "join") == 0;
    A->letter = strdup(crfp_params_str(p, "letter"));
    A->input = strdup(crfp_params_str(p, "input"));
    A->output = strdup(crfp_params_str(p, "output"));
    if (!A->letter || !A->input || !A->output) {
        al_close(A);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    if (crfp_params_bool(p, "deletions"))
        A->moves[A->nmoves++] = (move){1, 0};
    A->moves[A->nmoves++] = (move){1, 1};
    if (mp == 2)
        A->moves[A->nmoves++] = (move){1, 2};
    if (ml == 2)
        A->moves[A->nmoves++] = (move){2, 1};
    crfp_status st = lex ? train(A, lex) : load_model(A, model);
    if (st == CRFP_OK && lex && model)
        st = save_model(A, model);
    if (st != CRFP_OK) {
        al_close(A);
        return st;
    }
    *state = A;
    return CRFP_OK;
}

/* Best alignment of w: back[] holds the move index ending at each cell.
 * Unseen pairs get a tiny probability so that any lattice has a path. */
static int viterbi(aligner *A, const word *w)
{
    int n = w->n, m = w->m, M = m + 1;
    if (!scratch(A, n, m))
        return -1;
    double *sc = A->alpha;
    const double floor_lp = -60.0;
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= m; j++) {
            double best = i == 0 && j == 0 ? 0 : -INFINITY;
            int arg = -1;
            for (int k = 0; k < A->nmoves && (i || j); k++) {
                const move *mv = &A->moves[k];
                if (i < mv->a || j < mv->b)
                    continue;
                double prev = sc[(size_t)(i - mv->a) * M + (j - mv->b)];
                if (prev == -INFINITY)
                    continue;
                size_t s = pt_find(&A->pairs, move_key(w, i, j, mv), 0);
                double lp = s != (size_t)-1 && A->pairs.prob[s] > 0 ? log(A->pairs.prob[s])
                                                                    : floor_lp;
                if (prev + lp > best) {
                    best = prev + lp;
                    arg = k;
                }
            }
            sc[(size_t)i * M + j] = best;
            A->back[(size_t)i * M + j] = arg;
        }
    return sc[(size_t)n * M + m] > -INFINITY;
}

/* Write s (and, joined by ':', s2) as label of token `tok`. */
static crfp_status set_label(aligner *A, crfp_doc *doc, crfp_ann *tok, const char *s,
                             const char *const *more, int nmore)
{
    size_t need = strlen(s) + 1;
    for (int i = 0; i < nmore; i++)
        need += strlen(more[i]) + 1;
    if (need > A->labcap) {
        free(A->lab);
        A->labcap = need + 32;
        if (!(A->lab = malloc(A->labcap)))
            return crfp_error(A->host, CRFP_ENOMEM, "out of memory");
    }
    strcpy(A->lab, s);
    for (int i = 0; i < nmore; i++) {
        strcat(A->lab, ":");
        strcat(A->lab, more[i]);
    }
    return crfp_ann_set_str(doc, tok, A->output, A->lab);
}

static crfp_status al_process(void *state, crfp_doc *doc)
{
    aligner *A = state;
    crfp_annset *set = crfp_doc_annset(doc, "", 0);
    if (!set)
        return CRFP_OK;
    crfp_ann **sents = NULL, **toks = NULL;
    size_t ns = 0, ntk = 0, t = 0, len = crfp_doc_length(doc);
    crfp_status st = crfp_annset_select(set, "Sentence", 0, len, &sents, &ns);
    if (st == CRFP_OK)
        st = crfp_annset_select(set, "Token", 0, len, &toks, &ntk);
    const char **phs = NULL;
    size_t phcap = 0;
    char *phbuf = NULL;
    for (size_t s = 0; s < ns && st == CRFP_OK; s++) {
        while (t < ntk && toks[t]->start < sents[s]->start)
            t++;
        size_t t0 = t;
        while (t < ntk && toks[t]->end <= sents[s]->end)
            t++;
        int n, m;
        int r = entry_ids(A, sents[s], toks + t0, t - t0, &n, &m, NULL, &phs, &phcap, &phbuf);
        if (r < 0) {
            st = crfp_errcode(A->host) != CRFP_OK ? crfp_errcode(A->host) : CRFP_ENOMEM;
            const char *wd = crfp_ann_str(sents[s], "word");
            crfp_error_wrap(A->host, st, "aligner: document '%s', word '%s'",
                                crfp_doc_id(doc) ? crfp_doc_id(doc) : "", wd ? wd : "?");
            break;
        }
        if (r == 0 || n == 0)
            continue;
        crfp_ann **tk = toks + t0;
        word w = {A->xb, A->yb, n, m};
        A->words++;
        int ok = m > 0 ? viterbi(A, &w) : 0;
        if (ok < 0) {
            st = crfp_error(A->host, CRFP_ENOMEM, "out of memory");
            break;
        }
        if (!ok) {
            /* fallback: one phoneme per letter, the rest on the last one */
            A->fallbacks++;
            for (int i = 0; i < n && st == CRFP_OK && A->label_unaligned; i++) {
                if (i >= m)
                    st = set_label(A, doc, tk[i], "_", NULL, 0);
                else if (i < n - 1)
                    st = set_label(A, doc, tk[i], phs[i], NULL, 0);
                else
                    st = set_label(A, doc, tk[i], phs[i], phs + i + 1, m - i - 1);
            }
        } else {
            int i = n, j = m, M = m + 1;
            while ((i || j) && st == CRFP_OK) {
                const move *mv = &A->moves[A->back[(size_t)i * M + j]];
                int i0 = i - mv->a, j0 = j - mv->b;
                if (mv->b == 0)
                    st = set_label(A, doc, tk[i0], "_", NULL, 0);
                else
                    st = set_label(A, doc, tk[i0], phs[j0], phs + j0 + 1, mv->b - 1);
                if (st == CRFP_OK && mv->a == 2)
                    st = set_label(A, doc, tk[i0 + 1], "_", NULL, 0);
                i = i0;
                j = j0;
            }
        }
        /* agreement with a gold alignment (NETtalk's), letter by letter */
        const char *gold = crfp_ann_str(sents[s], "aligned");
        if (gold && st == CRFP_OK) {
            int wordok = 1, k = 0;
            const char *p = gold;
            for (; *p && k < n; k++) {
                while (*p == ' ')
                    p++;
                const char *e = p;
                while (*e && *e != ' ')
                    e++;
                const char *lab = crfp_ann_str(tk[k], A->output);
                int same = lab && strlen(lab) == (size_t)(e - p) && memcmp(lab, p, (size_t)(e - p)) == 0;
                A->gold_letters++;
                A->gold_agree += (size_t)same;
                wordok &= same;
                p = e;
            }
            A->gold_words++;
            A->gold_words_agree += (size_t)wordok;
        }
    }
    free(phs);
    free(phbuf);
    free(sents);
    free(toks);
    return st;
}

static const crfp_stage_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = al_open,
    .process = al_process,
    .close = al_close,
};

CRFP_PLUGIN_DEFINE(aligner) = {
    CRFP_PLUGIN_ABI,
    .name = "aligner",
    .kind = CRFP_KIND_TOKENIZER,
    .version = "1.0",
    .description = "many-to-many EM alignment of graphemes to phonemes: per-grapheme labels",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
