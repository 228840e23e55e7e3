/* crfpipe model top — the weights that matter most, in the dump's lines.
 *
 * What users of CRFsuite look at after training (the "top positive / top
 * negative state features" and "likely transitions" of its tutorials) is a
 * model's largest weights, per label or per template pattern.  `top` prints
 * the dump's weight lines (crfp_crf_write_weight), filtered and sorted, so
 * there is one line format to read.  Only the N best lines are kept, in a
 * heap, so a model of billions of weights is ranked in N lines of memory.
 */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum { ORDER_HIGH, ORDER_LOW, ORDER_ABS } order;
enum { KIND_U = 1, KIND_B = 2 };

/* One weight line: its rank key and the weight.  Ties are broken by the
 * dump's order (observation, unigram before bigram, previous label,
 * label), so the output is the same on every run. */
typedef struct entry {
    double key, value;
    uint32_t obs, prev, label;
    unsigned char bigram;
} entry;

typedef struct ranking {
    entry *heap;   /* a min-heap of the best `cap`; with `all`, every line */
    size_t n, cap;
    int all;
    order ord;
    int kinds;     /* KIND_U | KIND_B */
    int64_t label; /* -1: any */
    const char *prefix;
    size_t prefix_len;
    const crfp_crf *crf;
    int nomem;
} ranking;

/* Whether a comes after b in the dump. */
static int later(const entry *a, const entry *b)
{
    if (a->obs != b->obs)
        return a->obs > b->obs;
    if (a->bigram != b->bigram)
        return a->bigram > b->bigram;
    if (a->prev != b->prev)
        return a->prev > b->prev;
    return a->label > b->label;
}

/* Whether a ranks after b (is worse): lower key, then later in the dump. */
static int worse(const entry *a, const entry *b)
{
    return a->key < b->key || (a->key == b->key && later(a, b));
}

static void sift_down(entry *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && worse(&h[l], &h[m]))
            m = l;
        if (r < n && worse(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        entry t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void sift_up(entry *h, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!worse(&h[i], &h[p]))
            return;
        entry t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static int offer(void *ud, const crfp_crf_weight *w)
{
    ranking *r = ud;
    if (!(r->kinds & (w->bigram ? KIND_B : KIND_U)) || (r->label >= 0 && w->label != (uint32_t)r->label))
        return 0;
    if (r->prefix_len) {
        size_t len;
        const char *s = crfp_crf_obs(r->crf, w->obs, &len);
        if (len < r->prefix_len || memcmp(s, r->prefix, r->prefix_len) != 0)
            return 0;
    }
    entry e = {r->ord == ORDER_HIGH ? w->value : r->ord == ORDER_LOW ? -w->value : fabs(w->value),
               w->value, w->obs, w->prev, w->label, (unsigned char)w->bigram};
    if (r->all) {
        /* every line is kept, and sorted at the end: no heap */
        if (r->n == r->cap) {
            size_t nc = r->cap ? 2 * r->cap : 1024;
            entry *nh = nc <= SIZE_MAX / sizeof *nh ? realloc(r->heap, nc * sizeof *nh) : NULL;
            if (!nh) {
                r->nomem = 1;
                return 1;
            }
            r->heap = nh;
            r->cap = nc;
        }
        r->heap[r->n++] = e;
        return 0;
    }
    if (r->n < r->cap) {
        r->heap[r->n] = e;
        sift_up(r->heap, r->n++);
        return 0;
    }
    if (r->n && worse(&r->heap[0], &e)) {
        r->heap[0] = e;
        sift_down(r->heap, r->n, 0);
    }
    return 0;
}

static int best_first(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return worse(y, x) ? -1 : worse(x, y) ? 1 : 0;
}

/* -n: a count, 0 for every line. */
static int parse_count(const char *v, size_t *n)
{
    char *end;
    errno = 0;
    if (!(*v >= '0' && *v <= '9'))
        return 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end || errno || x > SIZE_MAX / sizeof(entry))
        return 0;
    *n = (size_t)x;
    return 1;
}

int cli_model_top(crfp_host *host, int argc, char **argv)
{
    const char *out = NULL, *path = NULL, *v, *label = NULL;
    ranking r = {.ord = ORDER_HIGH, .kinds = KIND_U | KIND_B, .label = -1};
    size_t n = 20;
    /* argv[0] is "model", argv[1] "top" */
    for (int i = 2; i < argc; i++) {
        int k;
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            if (!parse_count(argv[++i], &n))
                return cli_usage(argv[0], "-n needs a count (0 for every weight), not '%s'",
                                 argv[i]);
        } else if ((k = cli_opt(argv[0], argc, argv, &i, "kind", &v)) != 0) {
            if (k < 0)
                return CLI_USAGE;
            if (strcmp(v, "U") == 0 || strcmp(v, "unigram") == 0)
                r.kinds = KIND_U;
            else if (strcmp(v, "B") == 0 || strcmp(v, "bigram") == 0)
                r.kinds = KIND_B;
            else if (strcmp(v, "any") == 0)
                r.kinds = KIND_U | KIND_B;
            else
                return cli_usage(argv[0], "--kind is U (unigram), B (bigram) or any, not '%s'", v);
        } else if ((k = cli_opt(argv[0], argc, argv, &i, "order", &v)) != 0) {
            if (k < 0)
                return CLI_USAGE;
            if (strcmp(v, "high") == 0)
                r.ord = ORDER_HIGH;
            else if (strcmp(v, "low") == 0)
                r.ord = ORDER_LOW;
            else if (strcmp(v, "abs") == 0)
                r.ord = ORDER_ABS;
            else
                return cli_usage(argv[0], "--order is high, low or abs, not '%s'", v);
        } else if ((k = cli_opt(argv[0], argc, argv, &i, "label", &v)) != 0) {
            if (k < 0)
                return CLI_USAGE;
            label = v;
        } else if ((k = cli_opt(argv[0], argc, argv, &i, "observation", &v)) != 0) {
            if (k < 0)
                return CLI_USAGE;
            r.prefix = v;
            r.prefix_len = strlen(v);
        } else if ((k = cli_model_arg(host, argc, argv, &i, &out, &path)) >= 0) {
            return k;
        }
    }
    if (!path)
        return cli_usage(argv[0], "usage: crfpipe model top [OPTIONS] MODEL");

    cli_output o;
    crfp_crf *crf;
    if (cli_model_open(host, out, path, &o, &crf) != CRFP_OK)
        return cli_fail(host);
    crfp_status st = CRFP_OK;
    if (label && (r.label = crfp_crf_label_id(crf, label)) < 0) {
        cli_output_abort(&o);
        crfp_crf_free(crf);
        return cli_usage(argv[0], "%s has no label '%s' ('crfpipe model info' lists them)",
                         path, label);
    }
    r.crf = crf;
    r.all = n == 0;
    r.cap = r.all ? 0 : n;
    if (r.cap) {
        /* never more lines than the model has weights */
        size_t most = crfp_crf_active(crf);
        if (r.cap > most)
            r.cap = most;
        if (r.cap && !(r.heap = malloc(r.cap * sizeof *r.heap)))
            st = crfp_error(host, CRFP_ENOMEM, "out of memory ranking %zu weights", r.cap);
    }
    if (st == CRFP_OK && (r.cap || r.all)) {
        crfp_crf_foreach_weight(crf, offer, &r);
        if (r.nomem)
            st = crfp_error(host, CRFP_ENOMEM, "out of memory ranking the weights of %s", path);
    }
    if (st == CRFP_OK) {
        if (r.n)
            qsort(r.heap, r.n, sizeof *r.heap, best_first);
        for (size_t i = 0; i < r.n; i++)
            crfp_crf_write_weight(crf,
                                  &(crfp_crf_weight){r.heap[i].bigram, r.heap[i].obs,
                                                     r.heap[i].prev, r.heap[i].label,
                                                     r.heap[i].value},
                                  o.stream.fp);
        st = cli_output_commit(host, &o);
    } else {
        cli_output_abort(&o);
    }
    free(r.heap);
    crfp_crf_free(crf);
    return st == CRFP_OK ? CLI_OK : cli_fail(host);
}
