/* crfpipe — exact k-best labellings: Viterbi forward, then a best-first
 * search backward over suffixes with Viterbi's δ as the (exact) heuristic.
 *
 * A node is a suffix y_t .. y_{T-1}; g is its score after position t
 * (unigrams of positions > t, transitions into them) and f = g + δ_t(y_t),
 * the best complete score that extends it, since δ_t(y) is the best prefix
 * score ending in y at t.  Nodes leave a max-heap by f; one at t = 0 is a
 * complete labelling of score f, so labellings come out best first.  A
 * node does not push all its Y children: only the best one, and each popped
 * node pushes its next sibling (next in its parent's order of δ_{t-1}(r) +
 * λ_t(r, y)).  So for k labellings of length T about k·T nodes are popped,
 * each costing one column of λ and a scan of Y, instead of list Viterbi's
 * k-way merges of every state at every position (k·Y² per position: with
 * G2P's 233 labels, two hundred times the cost of one Viterbi).
 *
 * Orders are total and deterministic: siblings by decreasing key, then
 * increasing label; the heap by decreasing f, then the node made first. */
#include <math.h>
#include <stdlib.h>
#include "infer.h"

#define NONE UINT32_MAX

struct crfp_nbnode {
    double g;       /* score of the positions after t */
    double G;       /* g + s_t(y): what its children add their transition to */
    uint32_t t, y;
    uint32_t parent;   /* NONE for a node at T-1 */
    uint32_t col;      /* its λ_t(·, y) in nb_col (col·Y), once expanded */
};

struct crfp_nbheap {
    double f;
    uint32_t node;
};

static int heap_above(const struct crfp_nbheap *a, const struct crfp_nbheap *b)
{
    return a->f > b->f || (a->f == b->f && a->node < b->node);
}

static crfp_status grow(void **p, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap)
        return CRFP_OK;
    size_t n = *cap ? *cap : 64;
    while (n < want) {
        if (n > SIZE_MAX / 2 / size)
            return CRFP_ENOMEM;
        n *= 2;
    }
    void *q = realloc(*p, n * size);
    if (!q)
        return CRFP_ENOMEM;
    *p = q;
    *cap = n;
    return CRFP_OK;
}

typedef struct search {
    crfp_infer *w;
    uint32_t nnodes, nheap, ncols;
} search;

static crfp_status push(search *s, double g, uint32_t t, uint32_t y, uint32_t parent)
{
    crfp_infer *w = s->w;
    if (s->nnodes == NONE - 1)
        return CRFP_ENOMEM;
    if (grow((void **)&w->nb_node, &w->nb_node_cap, (size_t)s->nnodes + 1,
             sizeof *w->nb_node) != CRFP_OK ||
        grow((void **)&w->nb_heap, &w->nb_heap_cap, (size_t)s->nheap + 1,
             sizeof *w->nb_heap) != CRFP_OK)
        return CRFP_ENOMEM;
    uint32_t id = s->nnodes++;
    w->nb_node[id] = (struct crfp_nbnode){g, 0.0, t, y, parent, NONE};
    struct crfp_nbheap e = {g + w->alpha[(size_t)t * w->Y + y], id};
    struct crfp_nbheap *h = w->nb_heap;
    size_t i = s->nheap++;
    while (i > 0 && heap_above(&e, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
    return CRFP_OK;
}

static uint32_t pop(search *s)
{
    struct crfp_nbheap *h = s->w->nb_heap;
    uint32_t top = h[0].node;
    struct crfp_nbheap last = h[--s->nheap];
    size_t i = 0, n = s->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && heap_above(&h[c + 1], &h[c]))
            c++;
        if (!heap_above(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (n)
        h[i] = last;
    return top;
}

/* The best label r by key d[r] + (lam ? lam[r] : 0) that comes after
 * (after_key, after) in the order (key down, label up); after == NONE: the
 * best of all.  NONE when none is left.  NaN keys never come. */
static uint32_t next_best(uint32_t Y, const double *d, const double *lam, double after_key,
                          uint32_t after)
{
    uint32_t arg = NONE;
    double best = 0.0;
    for (uint32_t r = 0; r < Y; r++) {
        double v = lam ? d[r] + lam[r] : d[r];
        if (after != NONE && !(v < after_key || (v == after_key && r > after)))
            continue;
        if (arg == NONE ? v == v : v > best) {
            best = v;
            arg = r;
        }
    }
    return arg;
}

crfp_status crfp_nbest(crfp_infer *w, const crfp_seq *seq, const double *theta, size_t k,
                       uint32_t *out_y, double *scores, size_t *found)
{
    if (!w || !theta || !found || (k && (!out_y || !scores)))
        return CRFP_EINVAL;
    *found = 0;
    crfp_status st = crfp_seq_check(NULL, w->crf, seq);
    if (st != CRFP_OK)
        return st;
    const crfp_crf *crf = w->crf;
    const uint32_t Y = w->Y, T = seq->T;
    if (k == 0 || Y == 0)
        return CRFP_OK;
    if (T == 0) {
        scores[0] = 0.0;
        *found = 1;
        return CRFP_OK;
    }
    crfp_infer_begin(w, theta);
    /* δ of every position, in w->alpha; out_y's first row is overwritten
     * below by the same best labelling (or an equal-scoring one). */
    if ((st = crfp_viterbi_run(w, seq, theta, out_y, NULL)) != CRFP_OK)
        return st;
    const double *delta = w->alpha;
    double *s = w->tmp;   /* unigram scores of one position */
    crfp_vit_memo memo = {UINT32_MAX, 0};
    search S = {w, 0, 0, 0};
    const double *dlast = delta + (size_t)(T - 1) * Y;
    uint32_t r0 = next_best(Y, dlast, NULL, 0.0, NONE);
    if (r0 == NONE)
        return CRFP_OK;
    if ((st = push(&S, 0.0, T - 1, r0, NONE)) != CRFP_OK)
        return st;
    size_t n = 0;
    while (n < k && S.nheap) {
        struct crfp_nbheap top = w->nb_heap[0];
        uint32_t id = pop(&S);
        struct crfp_nbnode nd = w->nb_node[id];
        const double *d = delta + (size_t)nd.t * Y;
        /* its next sibling: the parent's next choice at this position */
        if (nd.parent == NONE) {
            uint32_t r = next_best(Y, d, NULL, d[nd.y], nd.y);
            if (r != NONE && (st = push(&S, 0.0, nd.t, r, NONE)) != CRFP_OK)
                return st;
        } else {
            const struct crfp_nbnode *p = &w->nb_node[nd.parent];
            const double *lam = w->nb_col + (size_t)p->col * Y;
            uint32_t r = next_best(Y, d, lam, d[nd.y] + lam[nd.y], nd.y);
            if (r != NONE && (st = push(&S, p->G + lam[r], nd.t, r, nd.parent)) != CRFP_OK)
                return st;
        }
        if (nd.t == 0) {
            /* complete: read the labels back along the parents */
            uint32_t *y = out_y + n * T;
            for (uint32_t c = id; c != NONE; c = w->nb_node[c].parent)
                y[w->nb_node[c].t] = w->nb_node[c].y;
            scores[n++] = top.f;
            continue;
        }
        /* expand: its column of λ, its unigram score, its best child */
        if (grow((void **)&w->nb_col, &w->nb_col_cap, ((size_t)S.ncols + 1) * Y,
                 sizeof *w->nb_col) != CRFP_OK)
            return CRFP_ENOMEM;
        double *lam = w->nb_col + (size_t)S.ncols * Y;
        if ((st = crfp_viterbi_column(w, seq, nd.t, theta, &memo, nd.y, lam)) != CRFP_OK)
            return st;
        crfp_unigram(crf, seq, nd.t, theta, s);
        struct crfp_nbnode *m = &w->nb_node[id];
        m->col = S.ncols++;
        m->G = nd.g + s[nd.y];
        const double *dp = delta + (size_t)(nd.t - 1) * Y;
        uint32_t r = next_best(Y, dp, lam, 0.0, NONE);
        if (r != NONE && (st = push(&S, m->G + lam[r], nd.t - 1, r, id)) != CRFP_OK)
            return st;
    }
    *found = n;
    return CRFP_OK;
}
