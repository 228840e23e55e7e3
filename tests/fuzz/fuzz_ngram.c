/* Fuzz target: the phoneme n-gram model loader of the lm_rescore plugin
 * (ngram_load, plugins/lm_rescore/ngram.c).
 *
 * ngram_load reads by path, so the input is written to a temporary file.
 * Its first byte is not part of the file but picks the host's `line` limit,
 * so that the loader's refusal of long lines is fuzzed as well:
 *   0x00          line=0 (unlimited)
 *   0x01 - 0x3f   line=that many bytes (' ' is 32, the length of the header
 *                 line, so ' ' to '?' load short-lined models and smaller
 *                 values stop at the header)
 *   0x40 - 0xff   the host's default (1 MiB); seeds use '@'
 * The rest must give a finished model or an error with a message naming
 * the file, never a crash, a hang or a leak.  Oracles on a loaded model
 * (its n-gram lines are re-read here to know its symbols):
 *   - every line of the file fits the limit (and a "line longer than the
 *     limit" error only comes when one does not);
 *   - no log-probability is NaN or above 0;
 *   - ngram_logprob equals the sum of ngram_cond over the sequence, and
 *     ngram_prefix_logprobs resumed from a prefix equals it recomputed;
 *   - in the contexts of the file's n-grams, P(w | h) summed over the
 *     symbols that end an n-gram (the unigram vocabulary), </s> and one
 *     unseen phoneme is 1: Kneser-Ney is a distribution for any count
 *     table, not only for one derived from sequences.
 */
#include "fuzzhost.h"

#include "../../plugins/lm_rescore/ngram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Longest sequence scored: over 64 phonemes, ngram_logprob takes its
 * malloc path instead of its stack buffers. */
#define SEQ_MAX 70
/* Contexts whose distribution is summed (the first n-gram lines'). */
#define CTX_MAX 4

static const char header[] = "# crfpipe phoneme n-gram model 1";

/* Never a symbol: symbols are separated by spaces. */
static const char unseen[] = "no such phoneme";

/* The file's symbols as the loader splits them: its lines after the three
 * header lines are all n-gram lines once the load succeeded. */
typedef struct parsed {
    char *text;               /* the file, NUL-terminated, cut in place */
    const char *seq[SEQ_MAX]; /* phonemes of the n-grams in file order */
    size_t nseq;
    const char **ctx[CTX_MAX]; /* histories (without <s> padding) */
    size_t nctx_len[CTX_MAX];
    size_t nctx;
    const char **final;       /* last phoneme of each n-gram (with repeats) */
    size_t nfinal;
    int eos_final;            /* some n-gram ends in </s> */
    size_t nlines;            /* n-gram lines */
} parsed;

static int is_pad(const char *s)
{
    return strcmp(s, "<s>") == 0 || strcmp(s, "</s>") == 0;
}

/* The longest line of the file in bytes (its CR included, as the loader
 * counts it), computed before the load: it must not trust the file. */
/* Cut a file the loader accepted into lines and symbols.  It has no NUL
 * byte (the loader refuses them) and every line after the header, order
 * and discount lines is "g<TAB>S1 ... SN<TAB>COUNT" with N = order; a line
 * that is not is a finding, not something to step over. */
static void parse_model(parsed *p, const uint8_t *d, size_t n, int order)
{
    memset(p, 0, sizeof *p);
    p->text = malloc(n + 1);
    /* an n-gram line has at least 6 bytes, so n/2 + 1 is enough */
    p->final = malloc((n / 2 + 1) * sizeof *p->final);
    if (!p->text || !p->final)
        fz_fail("set-up", "malloc");
    for (size_t i = 0; i < CTX_MAX; i++)
        if (!(p->ctx[i] = malloc((size_t)order * sizeof *p->ctx[i])))
            fz_fail("set-up", "malloc");
    memcpy(p->text, d, n);
    p->text[n] = '\0';
    if (strlen(p->text) != n)
        fz_fail("ngram_load", "accepted a NUL byte");
    char *line = p->text;
    for (size_t lineno = 1; line && *line; lineno++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        if (lineno == 1 && strcmp(line, header) != 0)
            fz_fail("ngram_load", "accepted a file without the header");
        if (lineno > 3) {
            char *tab = strncmp(line, "g\t", 2) == 0 ? strchr(line + 2, '\t') : NULL;
            if (!tab)
                fz_fail("ngram_load", "accepted a line that is not an n-gram");
            *tab = '\0';
            const char *s[NGRAM_MAX_ORDER];
            int k = 0;
            for (char *q = line + 2; q; k++) {
                /* an empty symbol: two spaces, or a space at either end */
                if (k == order || !*q || *q == ' ')
                    fz_fail("ngram_load", "accepted an empty symbol or too many symbols");
                s[k] = q;
                if ((q = strchr(q, ' ')) != NULL)
                    *q++ = '\0';
            }
            if (k != order)
                fz_fail("ngram_load", "accepted too few symbols");
            if (strcmp(s[order - 1], "</s>") == 0)
                p->eos_final = 1;
            else
                p->final[p->nfinal++] = s[order - 1];
            for (int i = 0; i < order && p->nseq < SEQ_MAX; i++)
                if (!is_pad(s[i]))
                    p->seq[p->nseq++] = s[i];
            if (p->nctx < CTX_MAX) {
                /* the history of the line's last symbol as a caller gives
                 * it, real phonemes only: ngram_cond pads with <s> */
                size_t c = 0;
                for (int i = 0; i < order - 1; i++)
                    if (!is_pad(s[i]))
                        p->ctx[p->nctx][c++] = s[i];
                p->nctx_len[p->nctx++] = c;
            }
            p->nlines++;
        }
        line = nl ? nl + 1 : NULL;
    }
}

static void parsed_free(parsed *p)
{
    free(p->text);
    free(p->final);
    for (size_t i = 0; i < CTX_MAX; i++)
        free(p->ctx[i]);
}

/* Two log-probabilities computed along different paths: equal up to
 * rounding, or the same infinity (a probability that underflowed, possible
 * with a discount such as 1e-300). */
static void same_logprob(const char *what, double a, double b)
{
    if (isnan(a) || isnan(b) || a > 1e-9 || b > 1e-9)
        fz_fail(what, "NaN or a log-probability above 0");
    if (a == b)
        return;
    if (!isfinite(a) || !isfinite(b) || fabs(a - b) > 1e-9 * (1 + fabs(a)))
        fz_fail(what, "the two ways disagree");
}

/* P(w | hist), checked to be a probability. */
static double prob(const ngram *m, const char *const *hist, size_t nh, const char *w)
{
    double lp = ngram_cond(m, hist, nh, w);
    if (isnan(lp) || lp > 1e-9)
        fz_fail("ngram_cond", "NaN or a log-probability above 0");
    return exp(lp);
}

static void score(const ngram *m, const parsed *p)
{
    /* a sequence of the model's own phonemes, the same with an unseen one,
     * and the empty word */
    const char *seq[SEQ_MAX + 1];
    size_t n = p->nseq;
    memcpy(seq, p->seq, n * sizeof *seq);
    for (int variant = 0; variant < 3; variant++) {
        if (variant == 1) {
            if (n)
                seq[n / 2] = unseen;
            else
                seq[n++] = unseen;
        }
        if (variant == 2)
            n = 0;
        double lp = ngram_logprob(m, seq, n), sum = 0;
        for (size_t j = 0; j <= n; j++)
            sum += ngram_cond(m, seq, j, j < n ? seq[j] : NULL);
        same_logprob("ngram_logprob against ngram_cond", lp, sum);

        /* the n-best reuse: resuming from a shared prefix changes nothing */
        uint32_t ids[SEQ_MAX + 1];
        double cum[SEQ_MAX + 3], again[SEQ_MAX + 3];
        for (size_t j = 0; j < n; j++)
            ids[j] = ngram_symbol(m, seq[j]);
        ngram_prefix_logprobs(m, ids, n, 0, cum);
        size_t from = n / 2;
        memcpy(again, cum, (from + 1) * sizeof *cum);
        ngram_prefix_logprobs(m, ids, n, from, again);
        if (memcmp(cum, again, (n + 2) * sizeof *cum) != 0)
            fz_fail("ngram_prefix_logprobs", "resuming from a prefix changes the result");
        same_logprob("ngram_prefix_logprobs against ngram_logprob", cum[n + 1], lp);
        fz_trace("%zu phonemes: log P = %g", n, lp);
    }

    /* The unigram vocabulary: the distinct symbols that end an n-gram (a
     * phoneme seen only before others shares the unseen floor, so it is
     * not part of the sum; nor is </s> unless an n-gram ends with it). */
    static unsigned char seen[65536];
    const char **vocab = malloc((p->nfinal + 1) * sizeof *vocab);
    if (!vocab)
        fz_fail("set-up", "malloc");
    size_t nv = 0;
    for (size_t i = 0; i < p->nfinal; i++) {
        uint32_t id = ngram_symbol(m, p->final[i]);
        if (id > 0xffff)
            fz_fail("ngram_symbol", "an id above 16 bits");
        if (!seen[id]) {
            seen[id] = 1;
            vocab[nv++] = p->final[i];
        }
    }
    for (size_t c = 0; c <= p->nctx; c++) {
        /* c == nctx: no history, i.e. all <s> */
        const char *const *hist = c < p->nctx ? p->ctx[c] : NULL;
        size_t nh = c < p->nctx ? p->nctx_len[c] : 0;
        double total = prob(m, hist, nh, unseen);
        if (p->eos_final)
            total += prob(m, hist, nh, NULL);
        for (size_t i = 0; i < nv; i++)
            total += prob(m, hist, nh, vocab[i]);
        if (fabs(total - 1) > 1e-9) {
            char msg[96];
            snprintf(msg, sizeof msg, "P(. | context %zu) sums to %.17g", c, total);
            fz_fail("ngram_cond is not a distribution", msg);
        }
        fz_trace("context %zu (%zu phonemes): P sums to 1%+.3g over %zu symbols", c, nh,
                 total - 1, nv + 1 + (size_t)p->eos_final);
    }
    for (size_t i = 0; i < nv; i++)
        seen[ngram_symbol(m, vocab[i])] = 0;
    free(vocab);
}

/* Whether msg is the loader's error `what` about a line of the file,
 * "PATH:LINE: what...".  Not a search for `what` anywhere in msg: some
 * messages quote the file ("bad count '...'"), and libFuzzer, which sees
 * the strings passed to strstr, would soon write the words there. */
static int is_error(const char *msg, const char *path, const char *what)
{
    size_t pl = strlen(path);
    if (strncmp(msg, path, pl) != 0 || msg[pl] != ':')
        return 0;
    msg += pl + 1;
    if (*msg < '0' || *msg > '9')
        return 0;
    while (*msg >= '0' && *msg <= '9')
        msg++;
    return strncmp(msg, ": ", 2) == 0 && strncmp(msg + 2, what, strlen(what)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    /* Every line of a model is read into memory: beyond 1 MiB an input only
     * costs time (as in fuzz_model) and the loader's counts (≤ 2^40 each)
     * could not add up to 2^64 in one n-gram in a file this size. */
    if (size > (1u << 20))
        return 0;
    fz_line_limit(FZ_DEFAULT_LINE);
    size_t limit = crfp_host_limit(h, CRFP_LIMIT_LINE);
    if (size) {
        if (data[0] < 0x40)
            fz_line_limit(limit = data[0]);
        data++;
        size--;
    }

    const char *path = fz_file("model", data, size);
    ngram *m = (ngram *)1;   /* the loader must set it NULL on error */
    crfp_status st = ngram_load(h, path, &m);
    fz_trace("line=%zu: %s", limit, st == CRFP_OK ? "loaded" : crfp_errmsg(h));
    size_t longest = fz_longest_line(data, size);
    if (st != CRFP_OK) {
        /* ENOMEM cannot happen at these sizes; EIO only for the file
         * itself, which fz_file just wrote */
        if (st != CRFP_EFORMAT)
            fz_fail("ngram_load failed with an unexpected status", crfp_errmsg(h));
        if (m)
            fz_fail("ngram_load", "an error without *out = NULL");
        if (!strstr(crfp_errmsg(h), path))
            fz_fail("ngram_load's message does not name the file", crfp_errmsg(h));
        if (is_error(crfp_errmsg(h), path, "line longer than the limit") &&
            !(limit && longest > limit))
            fz_fail("ngram_load refused a line within the limit", crfp_errmsg(h));
        crfp_error_clear(h);
        return 0;
    }
    if (!m)
        fz_fail("ngram_load", "OK without a model");
    if (limit && longest > limit)
        fz_fail("ngram_load", "accepted a line over the limit");
    int order = ngram_order(m);
    if (order < 1 || order > NGRAM_MAX_ORDER || ngram_count(m) == 0)
        fz_fail("ngram_load", "a loaded model without an order or n-grams");
    parsed p;
    parse_model(&p, data, size, order);
    if (ngram_count(m) > p.nlines)
        fz_fail("ngram_count", "more n-grams than lines");
    score(m, &p);
    parsed_free(&p);
    ngram_free(m);
    return 0;
}
