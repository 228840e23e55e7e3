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
 * λ_t(r, y)).  A node whose f is below the k-th best score is never popped,
 * so a parent's popped children are at most k (ties aside): an expansion
 * keeps its k best children sorted, and only a sibling past them costs a
 * scan.  So for k labellings of length T about k·T nodes are popped, each
 * costing one column of λ and one pass over Y, instead of list Viterbi's
 * k-way merges of every state at every position (k·Y² per position: with
 * G2P's 233 labels, two hundred times the cost of one Viterbi).
 *
 * Orders are total and deterministic: siblings by decreasing key, then
 * increasing label; the heap by decreasing f, then the node made first. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "infer.h"

#define NONE UINT32_MAX

struct crfp_nbnode {
    double g;       /* score of the positions after t */
    double G;       /* g + s_t(y): what its children add their transition to */
    uint32_t t, y;
    uint32_t parent;   /* NONE for a node at T-1 */
    uint32_t col;      /* its λ_t(·, y) in nb_col (col·Y), once expanded */
    uint32_t rank;     /* its place in the parent's list of best children;
                        * NONE: found past the list, by a scan */
};

/* A child in a parent's list: label and key, best first. */
struct crfp_nbkid {
    double key;
    uint32_t r;
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
    uint32_t M;    /* children kept sorted per expansion: min(k, Y) */
} search;

static inline int key_before(double a, uint32_t ra, double b, uint32_t rb)
{
    return a > b || (a == b && ra < rb);
}

/* The M best labels by key d[r] + (lam ? lam[r] : 0), best first, into
 * out; returns how many (NaN keys are left out). */
static uint32_t best_kids(uint32_t Y, const double *d, const double *lam, uint32_t M,
                          struct crfp_nbkid *out)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < Y; r++) {
        double v = lam ? d[r] + lam[r] : d[r];
        if (v != v || (n == M && !key_before(v, r, out[n - 1].key, out[n - 1].r)))
            continue;
        uint32_t i = n < M ? n++ : n - 1;
        while (i > 0 && key_before(v, r, out[i - 1].key, out[i - 1].r)) {
            out[i] = out[i - 1];
            i--;
        }
        out[i] = (struct crfp_nbkid){v, r};
    }
    return n;
}

static crfp_status push(search *s, double g, uint32_t t, uint32_t y, uint32_t parent,
                        uint32_t rank)
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
    w->nb_node[id] = (struct crfp_nbnode){g, 0.0, t, y, parent, NONE, rank};
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
    if (!w || !theta || !found || (k && (!out_y || !scores)) || !crfp_force_fits(w, seq))
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
    crfp_vit_memo memo = {UINT32_MAX, 0};
    search S = {w, 0, 0, 0, k < Y ? (uint32_t)k : Y};
    const uint32_t M = S.M;
    /* Per expansion, in nb_col: λ_t(·, y) (Y doubles), then its M best
     * children; column 0 holds the roots' list. */
    const size_t stride = Y + (M * sizeof(struct crfp_nbkid) + sizeof(double) - 1) / sizeof(double);
#define KIDS(c) ((struct crfp_nbkid *)(w->nb_col + (size_t)(c) * stride + Y))
#define NKIDS(c) (w->nb_kids[c])
    if (grow((void **)&w->nb_col, &w->nb_col_cap, stride, sizeof *w->nb_col) != CRFP_OK ||
        grow((void **)&w->nb_kids, &w->nb_kids_cap, 1, sizeof *w->nb_kids) != CRFP_OK)
        return CRFP_ENOMEM;
    /* (t, y) -> its expansion's column, valid where stamped with this call's
     * generation (no clearing of T·Y entries per call) */
    if (grow((void **)&w->nb_tycol, &w->nb_ty_cap, (size_t)T * Y, sizeof *w->nb_tycol) != CRFP_OK)
        return CRFP_ENOMEM;
    if (w->nb_stamp_cap < w->nb_ty_cap) {
        uint32_t *ns = realloc(w->nb_tystamp, w->nb_ty_cap * sizeof *ns);
        if (!ns)
            return CRFP_ENOMEM;
        memset(ns + w->nb_stamp_cap, 0, (w->nb_ty_cap - w->nb_stamp_cap) * sizeof *ns);
        w->nb_tystamp = ns;
        w->nb_stamp_cap = w->nb_ty_cap;
    }
    if (++w->nb_gen == 0) {
        memset(w->nb_tystamp, 0, w->nb_stamp_cap * sizeof *w->nb_tystamp);
        w->nb_gen = 1;
    }
    const double *dlast = delta + (size_t)(T - 1) * Y;
    NKIDS(0) = best_kids(Y, dlast, NULL, M, KIDS(0));
    S.ncols = 1;
    if (NKIDS(0) == 0)
        return CRFP_OK;
    if ((st = push(&S, 0.0, T - 1, KIDS(0)[0].r, NONE, 0)) != CRFP_OK)
        return st;
    size_t n = 0;
    while (n < k && S.nheap) {
        struct crfp_nbheap top = w->nb_heap[0];
        /* best first: once the best left is -inf (a label forced away,
         * crfp_infer_set_force) no labelling that agrees is left */
        if (top.f == -INFINITY)
            break;
        uint32_t id = pop(&S);
        struct crfp_nbnode nd = w->nb_node[id];
        const double *d = delta + (size_t)nd.t * Y;
        /* its next sibling: the parent's next choice at this position */
        const uint32_t pc = nd.parent == NONE ? 0 : w->nb_node[nd.parent].col;
        const double *lam = nd.parent == NONE ? NULL : w->nb_col + (size_t)pc * stride;
        const double G = nd.parent == NONE ? 0.0 : w->nb_node[nd.parent].G;
        uint32_t r, rank = NONE;
        if (nd.rank != NONE && nd.rank + 1 < NKIDS(pc)) {
            rank = nd.rank + 1;
            r = KIDS(pc)[rank].r;
        } else {
            double key = lam ? d[nd.y] + lam[nd.y] : d[nd.y];
            r = next_best(Y, d, lam, key, nd.y);
        }
        if (r != NONE &&
            (st = push(&S, lam ? G + lam[r] : 0.0, nd.t, r, nd.parent, rank)) != CRFP_OK)
            return st;
        if (nd.t == 0) {
            /* complete: read the labels back along the parents */
            uint32_t *y = out_y + n * T;
            for (uint32_t c = id; c != NONE; c = w->nb_node[c].parent)
                y[w->nb_node[c].t] = w->nb_node[c].y;
            scores[n++] = top.f;
            continue;
        }
        /* expand: its column of λ and its best children, which depend on
         * (t, y) only and are shared by every suffix through that label,
         * then its own unigram score and best child */
        const size_t ty = (size_t)nd.t * Y + nd.y;
        uint32_t c = w->nb_tystamp[ty] == w->nb_gen ? w->nb_tycol[ty] : NONE;
        if (c == NONE) {
            c = S.ncols;
            if (grow((void **)&w->nb_col, &w->nb_col_cap, ((size_t)c + 1) * stride,
                     sizeof *w->nb_col) != CRFP_OK ||
                grow((void **)&w->nb_kids, &w->nb_kids_cap, (size_t)c + 1,
                     sizeof *w->nb_kids) != CRFP_OK)
                return CRFP_ENOMEM;
            double *col = w->nb_col + (size_t)c * stride;
            if ((st = crfp_viterbi_column(w, seq, nd.t, theta, &memo, nd.y, col)) != CRFP_OK)
                return st;
            S.ncols++;
            NKIDS(c) = best_kids(Y, delta + (size_t)(nd.t - 1) * Y, col, M, KIDS(c));
            w->nb_tycol[ty] = c;
            w->nb_tystamp[ty] = w->nb_gen;
        }
        const double *col = w->nb_col + (size_t)c * stride;
        /* s_t(y) alone, summed in crfp_unigram's order */
        double sy = 0.0;
        for (uint32_t i = seq->uoff[nd.t]; i < seq->uoff[nd.t + 1]; i++)
            sy += crfp_uval(seq, i) * theta[crf->ublk[seq->uobs[i]] + nd.y];
        struct crfp_nbnode *m = &w->nb_node[id];
        m->col = c;
        m->G = nd.g + sy;
        const double Gm = m->G;
        if (NKIDS(c) && (st = push(&S, Gm + col[KIDS(c)[0].r], nd.t - 1, KIDS(c)[0].r, id, 0)) !=
                            CRFP_OK)
            return st;
    }
#undef KIDS
#undef NKIDS
    *found = n;
    return CRFP_OK;
}
