/* crfpipe — the engine's training set (trainset.h): the batch objective on
 * the thread team, and the sequence-level services that stochastic, online
 * and blockwise trainers build on.
 *
 * One block per observation: the model lays out each observation's unigram
 * weights and then its bigram weights contiguously, in observation order,
 * so block b is simply [block_start[b], block_start[b+1]).
 *
 * Sequence gradients are computed into a packed buffer that holds only the
 * blocks the sequences touch (the forward-backward's gradient offsets are
 * redirected there through crfp_infer.gub/gbb), so a stochastic step costs
 * the size of the sequence, never the size of θ.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hessvec.h"
#include "infer.h"

typedef struct engine_ts {
    crfp_trainset pub;
    crfp_host *host;
    const crfp_crf *crf;
    const crfp_dataset *ds;
    const uint64_t *mask;
    crfp_crfobj *obj;
    uint64_t *bstart;          /* nobs + 1 */
    /* block occurrences (CSR), built on first use */
    pthread_mutex_t occ_mu;
    int occ_ready;
    size_t *occ_off;           /* nobs + 1 */
    crfp_occ *occ;
    /* Hessian-vector products, built on the first product */
    crfp_hessvec *hv;
    size_t hv_keep;
} engine_ts;

struct crfp_tsws {
    engine_ts *ts;
    crfp_infer *w;
    uint32_t *stamp;           /* per block: generation when listed */
    uint32_t gen;
    uint64_t *gub, *gbb;       /* packed offsets of the listed blocks */
    uint32_t *blocks;
    size_t nblocks, capblocks;
    double *pack;              /* packed gradient */
    size_t packcap;
    uint64_t *fidx;            /* path features */
    double *fval;
    size_t capf;
    double *pair;              /* block statistics: pair marginals */
    size_t cappair;
    /* windowed block statistics: α, β, ψ/c of a window, scratch, dense E */
    double *wal, *wbe, *wps, *wtmp, *E;
    size_t capw, capwb, capwp, capwt, capE;
};

static inline int masked_out(const engine_ts *e, uint64_t j)
{
    return e->mask && !((e->mask[j >> 6] >> (j & 63)) & 1u);
}

const char *crfp_ts_caps_str(uint64_t caps, char *buf, size_t len)
{
    static const char *const names[] = {"batch", "sequence", "decode", "blocks", "hessvec"};
    size_t k = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (caps & (UINT64_C(1) << i)) {
            int n = snprintf(buf + k, k < len ? len - k : 0, "%s%s", k ? ", " : "", names[i]);
            if (n > 0)
                k += (size_t)n;
        }
    if (len && k == 0)
        snprintf(buf, len, "nothing");
    return buf;
}

crfp_status crfp_trainset_require(crfp_host *host, const crfp_trainset *ts, uint64_t needs,
                                  const char *trainer)
{
    if ((ts->caps & needs) == needs)
        return CRFP_OK;
    char a[128], b[128];
    return crfp_error(host, CRFP_EINVAL,
                      "trainer '%s' needs %s from the training set, which offers only %s",
                      trainer, crfp_ts_caps_str(needs & ~ts->caps, a, sizeof a),
                      crfp_ts_caps_str(ts->caps, b, sizeof b));
}

/* --- batch ---------------------------------------------------------------- */

static crfp_status ts_batch(void *ud, const double *theta, int with_l2, double *f, double *g)
{
    engine_ts *e = ud;
    crfp_crfobj_set_rho2(e->obj, with_l2 ? e->pub.rho2 : 0.0);
    crfp_status st = crfp_crfobj_eval(e->obj, theta, f, g);
    if (st == CRFP_OK && e->mask) {
        /* Frozen parameters are 0, so they add nothing to f; only their
         * gradient must read as 0 for the optimizer to leave them be. */
        size_t n = e->pub.dim;
        for (size_t w = 0; w < (n + 63) / 64; w++) {
            uint64_t m = ~e->mask[w];
            while (m) {
                size_t j = w * 64 + (size_t)__builtin_ctzll(m);
                m &= m - 1;
                if (j < n)
                    g[j] = 0.0;
            }
        }
    }
    return st;
}

/* --- workspaces ----------------------------------------------------------- */

static crfp_status ts_ws_new(void *ud, crfp_tsws **out)
{
    engine_ts *e = ud;
    crfp_tsws *ws = calloc(1, sizeof *ws);
    size_t nb = e->pub.nblocks ? e->pub.nblocks : 1;
    if (!ws)
        return CRFP_ENOMEM;
    ws->ts = e;
    ws->w = crfp_infer_new(e->crf);
    ws->stamp = calloc(nb, sizeof *ws->stamp);
    ws->gub = malloc(nb * sizeof *ws->gub);
    ws->gbb = malloc(nb * sizeof *ws->gbb);
    if (!ws->w || !ws->stamp || !ws->gub || !ws->gbb) {
        e->pub.ws_free(ws);
        return CRFP_ENOMEM;
    }
    *out = ws;
    return CRFP_OK;
}

static void ts_ws_free(crfp_tsws *ws)
{
    if (!ws)
        return;
    crfp_infer_free(ws->w);
    free(ws->stamp);
    free(ws->gub);
    free(ws->gbb);
    free(ws->blocks);
    free(ws->pack);
    free(ws->fidx);
    free(ws->fval);
    free(ws->pair);
    free(ws->wal);
    free(ws->wbe);
    free(ws->wps);
    free(ws->wtmp);
    free(ws->E);
    free(ws);
}

static void ts_gold(void *ud, size_t i, const uint32_t **y, uint32_t *T)
{
    const crfp_seq *s = crfp_dataset_get(((engine_ts *)ud)->ds, i);
    *y = s->y;
    *T = s->T;
}

/* Start a new list of blocks. */
static void list_begin(crfp_tsws *ws)
{
    ws->nblocks = 0;
    if (++ws->gen == 0) {
        memset(ws->stamp, 0, ws->ts->pub.nblocks * sizeof *ws->stamp);
        ws->gen = 1;
    }
}

static crfp_status list_add(crfp_tsws *ws, uint32_t b)
{
    if (ws->stamp[b] == ws->gen)
        return CRFP_OK;
    ws->stamp[b] = ws->gen;
    if (ws->nblocks == ws->capblocks) {
        size_t cap = ws->capblocks ? 2 * ws->capblocks : 256;
        uint32_t *nb = realloc(ws->blocks, cap * sizeof *nb);
        if (!nb)
            return CRFP_ENOMEM;
        ws->blocks = nb;
        ws->capblocks = cap;
    }
    ws->blocks[ws->nblocks++] = b;
    return CRFP_OK;
}

static crfp_status list_seq(crfp_tsws *ws, const crfp_seq *s)
{
    crfp_status st = CRFP_OK;
    uint32_t nu = s->T ? s->uoff[s->T] - s->uoff[0] : 0;
    uint32_t nbg = s->T ? s->boff[s->T] - s->boff[0] : 0;
    for (uint32_t k = 0; k < nu && st == CRFP_OK; k++)
        st = list_add(ws, s->uobs[s->uoff[0] + k]);
    for (uint32_t k = 0; k < nbg && st == CRFP_OK; k++)
        st = list_add(ws, s->bobs[s->boff[0] + k]);
    return st;
}

static crfp_status ts_seq_blocks(crfp_tsws *ws, size_t i, const uint32_t **blocks, size_t *n)
{
    list_begin(ws);
    crfp_status st = list_seq(ws, crfp_dataset_get(ws->ts->ds, i));
    *blocks = ws->blocks;
    *n = st == CRFP_OK ? ws->nblocks : 0;
    return st;
}

/* Lay the listed blocks out one after another in ws->pack (zeroed) and point
 * the forward-backward's gradient offsets there. */
static crfp_status pack_blocks(crfp_tsws *ws)
{
    const engine_ts *e = ws->ts;
    const crfp_crf *crf = e->crf;
    size_t total = 0;
    for (size_t k = 0; k < ws->nblocks; k++) {
        uint32_t b = ws->blocks[k];
        uint64_t base = e->bstart[b];
        if (crf->ublk[b] != CRFP_NO_BLOCK)
            ws->gub[b] = total + (crf->ublk[b] - base);
        if (crf->bblk[b] != CRFP_NO_BLOCK)
            ws->gbb[b] = total + (crf->bblk[b] - base);
        total += e->bstart[b + 1] - base;
    }
    if (total > ws->packcap) {
        size_t cap = ws->packcap ? ws->packcap : 1024;
        while (cap < total)
            cap *= 2;
        double *np = realloc(ws->pack, cap * sizeof *np);
        if (!np)
            return CRFP_ENOMEM;
        ws->pack = np;
        ws->packcap = cap;
    }
    memset(ws->pack, 0, total * sizeof *ws->pack);
    return CRFP_OK;
}

/* Zero the packed gradient of frozen parameters. */
static void pack_mask(crfp_tsws *ws)
{
    const engine_ts *e = ws->ts;
    if (!e->mask)
        return;
    double *p = ws->pack;
    for (size_t k = 0; k < ws->nblocks; k++) {
        uint32_t b = ws->blocks[k];
        for (uint64_t j = e->bstart[b]; j < e->bstart[b + 1]; j++, p++)
            if (masked_out(e, j))
                *p = 0.0;
    }
}

static crfp_status ts_seq_grad_sparse(crfp_tsws *ws, const double *theta, const size_t *idx,
                                      size_t n, const uint32_t **blocks, size_t *nblocks,
                                      const double **gblk, double *loss)
{
    const engine_ts *e = ws->ts;
    crfp_status st = CRFP_OK;
    list_begin(ws);
    for (size_t k = 0; k < n && st == CRFP_OK; k++)
        st = list_seq(ws, crfp_dataset_get(e->ds, idx[k]));
    if (st == CRFP_OK)
        st = pack_blocks(ws);
    if (st != CRFP_OK)
        return st;
    /* θ changes between calls: forget cached transitions. */
    crfp_infer_epoch(ws->w);
    ws->w->gub = ws->gub;
    ws->w->gbb = ws->gbb;
    double sum = 0.0;
    for (size_t k = 0; k < n && st == CRFP_OK; k++) {
        const crfp_seq *s = crfp_dataset_get(e->ds, idx[k]);
        double logz, gold;
        const double wt = crfp_dataset_weight(e->ds, idx[k]);
        st = crfp_fb_run(ws->w, s, theta, &logz, 1, ws->pack, NULL, s->y, &gold, wt);
        sum += wt * (logz - gold);
    }
    ws->w->gub = ws->w->gbb = NULL;
    if (st != CRFP_OK)
        return st;
    pack_mask(ws);
    *blocks = ws->blocks;
    *nblocks = ws->nblocks;
    *gblk = ws->pack;
    if (loss)
        *loss += sum;
    return CRFP_OK;
}

static crfp_status ts_seq_grad(crfp_tsws *ws, const double *theta, const size_t *idx, size_t n,
                               double gain, double *g, double *loss, const uint32_t **blocks,
                               size_t *nblocks)
{
    const double *pack;
    crfp_status st = ts_seq_grad_sparse(ws, theta, idx, n, blocks, nblocks, &pack, loss);
    if (st != CRFP_OK)
        return st;
    const uint64_t *bs = ws->ts->bstart;
    for (size_t k = 0; k < *nblocks; k++) {
        uint32_t b = (*blocks)[k];
        double *gb = g + bs[b];
        size_t len = bs[b + 1] - bs[b];
        for (size_t j = 0; j < len; j++)
            gb[j] += gain * pack[j];
        pack += len;
    }
    return CRFP_OK;
}

/* --- decoding ------------------------------------------------------------- */

static crfp_status ts_viterbi(crfp_tsws *ws, const double *theta, size_t i, uint32_t *y,
                              double *score)
{
    crfp_infer_epoch(ws->w);
    return crfp_viterbi_run(ws->w, crfp_dataset_get(ws->ts->ds, i), theta, y, score);
}

static crfp_status feat_push(crfp_tsws *ws, size_t *k, uint64_t j, double val)
{
    if (masked_out(ws->ts, j))
        return CRFP_OK;
    if (*k == ws->capf) {
        size_t cap = ws->capf ? 2 * ws->capf : 1024;
        uint64_t *ni = realloc(ws->fidx, cap * sizeof *ni);
        if (!ni)
            return CRFP_ENOMEM;
        ws->fidx = ni;
        double *nv = realloc(ws->fval, cap * sizeof *nv);
        if (!nv)
            return CRFP_ENOMEM;
        ws->fval = nv;
        ws->capf = cap;
    }
    ws->fidx[*k] = j;
    ws->fval[(*k)++] = val;
    return CRFP_OK;
}

static crfp_status ts_path_features(crfp_tsws *ws, size_t i, const uint32_t *y,
                                    const uint64_t **idx, const double **val, size_t *n)
{
    const crfp_crf *crf = ws->ts->crf;
    const crfp_seq *s = crfp_dataset_get(ws->ts->ds, i);
    const uint32_t Y = crf->Y;
    if (!y)
        y = s->y;
    size_t k = 0;
    crfp_status st = CRFP_OK;
    for (uint32_t t = 0; t < s->T && st == CRFP_OK; t++) {
        if (y[t] >= Y)
            return CRFP_EINVAL;
        for (uint32_t a = s->uoff[t]; a < s->uoff[t + 1] && st == CRFP_OK; a++)
            st = feat_push(ws, &k, crf->ublk[s->uobs[a]] + y[t], crfp_uval(s, a));
        uint64_t row = (uint64_t)(t ? y[t - 1] : Y) * Y + y[t];
        for (uint32_t a = s->boff[t]; a < s->boff[t + 1] && st == CRFP_OK; a++)
            st = feat_push(ws, &k, crf->bblk[s->bobs[a]] + row, 1.0);
    }
    *idx = ws->fidx;
    *val = ws->fval;
    *n = st == CRFP_OK ? k : 0;
    return st;
}

/* --- blocks ----------------------------------------------------------------- */

/* Occurrences of every observation, counting a position once even when the
 * observation is both a unigram and a bigram one there. */
static crfp_status build_occurrences(engine_ts *e)
{
    size_t nb = e->pub.nblocks;
    size_t *off = calloc(nb + 1, sizeof *off);
    uint32_t *last = malloc((nb ? nb : 1) * sizeof *last); /* (seq, pos) stamp */
    uint32_t *lastseq = malloc((nb ? nb : 1) * sizeof *lastseq);
    if (!off || !last || !lastseq) {
        free(off);
        free(last);
        free(lastseq);
        return CRFP_ENOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        memset(last, 0xff, nb * sizeof *last);
        memset(lastseq, 0xff, nb * sizeof *lastseq);
        size_t *fill = NULL;
        if (pass == 1) {
            for (size_t b = 0; b < nb; b++)
                off[b + 1] += off[b];
            e->occ = malloc((off[nb] ? off[nb] : 1) * sizeof *e->occ);
            fill = calloc(nb ? nb : 1, sizeof *fill);
            if (!e->occ || !fill) {
                free(fill);
                free(off);
                free(last);
                free(lastseq);
                free(e->occ);
                e->occ = NULL;
                return CRFP_ENOMEM;
            }
        }
        for (size_t i = 0; i < e->pub.nseq; i++) {
            const crfp_seq *s = crfp_dataset_get(e->ds, i);
            for (uint32_t t = 0; t < s->T; t++) {
                for (int kind = 0; kind < 2; kind++) {
                    const uint32_t *o = kind ? s->bobs : s->uobs;
                    uint32_t a0 = kind ? s->boff[t] : s->uoff[t];
                    uint32_t a1 = kind ? s->boff[t + 1] : s->uoff[t + 1];
                    for (uint32_t a = a0; a < a1; a++) {
                        uint32_t b = o[a];
                        if (last[b] == t && lastseq[b] == (uint32_t)i)
                            continue;
                        last[b] = t;
                        lastseq[b] = (uint32_t)i;
                        if (pass == 0)
                            off[b + 1]++;
                        else
                            e->occ[off[b] + fill[b]++] = (crfp_occ){(uint32_t)i, t};
                    }
                }
            }
        }
        free(fill);
    }
    free(last);
    free(lastseq);
    e->occ_off = off;
    return CRFP_OK;
}

static crfp_status ts_occurrences(void *ud, size_t b, const crfp_occ **occ, size_t *n)
{
    engine_ts *e = ud;
    crfp_status st = CRFP_OK;
    pthread_mutex_lock(&e->occ_mu);
    if (!e->occ_ready && (st = build_occurrences(e)) == CRFP_OK)
        e->occ_ready = 1;
    pthread_mutex_unlock(&e->occ_mu);
    if (st != CRFP_OK)
        return st;
    if (b >= e->pub.nblocks)
        return CRFP_EINVAL;
    *occ = e->occ + e->occ_off[b];
    *n = e->occ_off[b + 1] - e->occ_off[b];
    return CRFP_OK;
}

static int grow_d(double **p, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    double *q = realloc(*p, n * sizeof *q);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Add one occurrence of block b, at position t of s, to the block's
 * statistics: p = token marginals at t (Y), pt = pair marginals at t
 * ((Y+1)·Y, start row last; at t = 0 only the start row is read).  The
 * gradient gets expected minus gold counts; the curvature, per weight, the
 * variance of its indicator, p(1 − p): the diagonal of the Hessian of log Z
 * without the covariances between positions, which is the curvature
 * blockwise coordinate descent uses (Sokolovska et al. 2010).  An
 * observation may fire more than once at a position, and a unigram one
 * with a value: their total c (the count, or the sum of the values) gives
 * c·p and c²·p(1 − p). */
static void occ_stats(const engine_ts *e, const crfp_seq *s, uint32_t t, size_t b,
                      const double *p, const double *pt, double wt, double *g, double *h)
{
    const crfp_crf *crf = e->crf;
    const uint32_t Y = crf->Y;
    const size_t YY = (size_t)Y * Y;
    const int hasu = crf->ublk[b] != CRFP_NO_BLOCK, hasb = crf->bblk[b] != CRFP_NO_BLOCK;
    double *gu = g, *hu = h;
    double *gbk = g + (hasu ? Y : 0), *hbk = h + (hasu ? Y : 0);
    double cu = 0, cb = 0;
    for (uint32_t x = s->uoff[t]; x < s->uoff[t + 1]; x++)
        cu += s->uobs[x] == b ? crfp_uval(s, x) : 0.0;
    for (uint32_t x = s->boff[t]; x < s->boff[t + 1]; x++)
        cb += s->bobs[x] == b;
    /* the sequence's weight scales its gradient and curvature alike */
    if (cu != 0 && hasu) {
        const double gc = wt * cu, hc = wt * cu * cu;
        for (uint32_t y = 0; y < Y; y++) {
            gu[y] += gc * p[y];
            hu[y] += hc * p[y] * (1.0 - p[y]);
        }
        gu[s->y[t]] -= gc;
    }
    if (cb > 0 && hasb) {
        const double gc = wt * cb, hc = wt * cb * cb;
        if (t == 0) {
            for (uint32_t y = 0; y < Y; y++) {
                double q = pt[YY + y];
                gbk[YY + y] += gc * q;
                hbk[YY + y] += hc * q * (1.0 - q);
            }
            gbk[YY + s->y[0]] -= gc;
        } else {
            for (size_t j = 0; j < YY; j++) {
                double q = pt[j];
                gbk[j] += gc * q;
                hbk[j] += hc * q * (1.0 - q);
            }
            gbk[(size_t)s->y[t - 1] * Y + s->y[t]] -= gc;
        }
    }
}

/* E_t = exp(λ_t) of a view as a dense Y×Y matrix (rows < Y), expanded into
 * ws->E when the view is sparse. */
static const double *view_dense(crfp_tsws *ws, const crfp_tview *v)
{
    if (v->dense && v->E)
        return v->E;
    const uint32_t Y = ws->ts->crf->Y;
    double *E = ws->E;
    for (size_t i = 0; i < (size_t)Y * Y; i++)
        E[i] = 1.0;
    for (uint32_t c = 0; c < Y; c++)
        for (uint32_t q = v->colptr[c]; q < v->colptr[c + 1]; q++)
            E[(size_t)v->row[q] * Y + c] = 1.0 + v->m[q];
    return E;
}

/* Forward-backward (the forward pass alone without `backward`) on the
 * window [a, z] of s alone, scaled like fwdbwd.c:
 * ws->wal (α), ws->wbe (β) and ws->wps (ψ_t / c_t) hold positions a..z.
 * The boundary approximation:
 *  - left (a > 0): y_{a−1} is taken uniform over the labels, and the
 *    transition into a is kept: α_a(y) ∝ ψ_a(y) Σ_{y'} exp(λ_a(y', y)) / Y,
 *    the least committed guess when nothing left of the window is looked
 *    at;
 *  - right (z < T − 1): the positions after z are left out, β_z = 1.  The
 *    model has no end-of-sequence potential, so this is exactly the
 *    distribution of the labels a..z given the observations up to z only.
 * *loss = −log p_window(gold labels a..z), with y_{a−1} summed out under
 * the same uniform guess: ≥ 0, and its gradient with respect to the
 * weights firing inside (a, z] is the window's expected minus gold counts,
 * which is what the statistics accumulate.  The window [0, T − 1] is the
 * exact forward-backward (the caller uses crfp_fb_run for it). */
static crfp_status window_fb(crfp_tsws *ws, const crfp_seq *s, const double *theta, uint32_t a,
                             uint32_t z, int backward, double *loss)
{
    const crfp_crf *crf = ws->ts->crf;
    const uint32_t Y = crf->Y;
    const size_t YY = (size_t)Y * Y, W = (size_t)z - a + 1;
    if (grow_d(&ws->wal, &ws->capw, W * Y) || grow_d(&ws->wbe, &ws->capwb, W * Y) ||
        grow_d(&ws->wps, &ws->capwp, W * Y))
        return CRFP_ENOMEM;
    crfp_tview v;
    double lz = 0.0, gold = 0.0, *acc = ws->wtmp;
    for (uint32_t t = a; t <= z; t++) {
        double *ps = ws->wps + (size_t)(t - a) * Y, *al = ws->wal + (size_t)(t - a) * Y;
        crfp_unigram(crf, s, t, theta, ps);
        gold += ps[s->y[t]];
        double mx = ps[0];
        for (uint32_t y = 1; y < Y; y++)
            mx = ps[y] > mx ? ps[y] : mx;
        for (uint32_t y = 0; y < Y; y++)
            ps[y] = exp(ps[y] - mx);
        if (crfp_view_get(ws->w, s, t, theta, CRFP_VIEW_FB, &v) != CRFP_OK)
            return CRFP_ENOMEM;
        if (t == 0) {
            for (uint32_t y = 0; y < Y; y++)
                acc[y] = v.sE[y];
            gold += v.L[YY + s->y[0]];
        } else {
            const double *E = view_dense(ws, &v);
            if (t == a) {
                /* y_{a−1} uniform: the column means of exp(λ_a) */
                for (uint32_t y = 0; y < Y; y++)
                    acc[y] = 0.0;
                for (uint32_t r = 0; r < Y; r++)
                    for (uint32_t c = 0; c < Y; c++)
                        acc[c] += E[(size_t)r * Y + c];
                for (uint32_t y = 0; y < Y; y++)
                    acc[y] /= Y;
                gold += log(acc[s->y[t]]);
            } else {
                const double *ap = al - Y;
                for (uint32_t y = 0; y < Y; y++)
                    acc[y] = 0.0;
                for (uint32_t r = 0; r < Y; r++) {
                    const double ar = ap[r], *Er = E + (size_t)r * Y;
                    for (uint32_t c = 0; c < Y; c++)
                        acc[c] += ar * Er[c];
                }
                gold += v.L[(size_t)s->y[t - 1] * Y + s->y[t]];
            }
        }
        crfp_view_release(ws->w, s, t);
        double sum = 0.0;
        for (uint32_t y = 0; y < Y; y++)
            sum += al[y] = ps[y] * acc[y];
        const double inv = 1.0 / sum;
        for (uint32_t y = 0; y < Y; y++) {
            al[y] *= inv;
            ps[y] *= inv;
        }
        lz += log(sum) + mx;
    }
    *loss = lz - gold;
    if (!backward)
        return CRFP_OK;
    double *bz = ws->wbe + (W - 1) * Y;
    for (uint32_t y = 0; y < Y; y++)
        bz[y] = 1.0;
    for (uint32_t t = z; t > a; t--) {
        const double *bt = ws->wbe + (size_t)(t - a) * Y, *ps = ws->wps + (size_t)(t - a) * Y;
        double *bp = ws->wbe + (size_t)(t - a - 1) * Y;
        if (crfp_view_get(ws->w, s, t, theta, CRFP_VIEW_FB, &v) != CRFP_OK)
            return CRFP_ENOMEM;
        const double *E = view_dense(ws, &v);
        for (uint32_t c = 0; c < Y; c++)
            acc[c] = ps[c] * bt[c];
        for (uint32_t r = 0; r < Y; r++) {
            const double *Er = E + (size_t)r * Y;
            double sum = 0.0;
            for (uint32_t c = 0; c < Y; c++)
                sum += Er[c] * acc[c];
            bp[r] = sum;
        }
        crfp_view_release(ws->w, s, t);
    }
    return CRFP_OK;
}

/* Token and pair marginals at position t of the last window [a, ..]:
 * p (Y) and pt ((Y+1)·Y, the layout occ_stats reads). */
static crfp_status window_marg(crfp_tsws *ws, const crfp_seq *s, const double *theta,
                               uint32_t a, uint32_t t, double *p, double *pt)
{
    const uint32_t Y = ws->ts->crf->Y;
    const size_t YY = (size_t)Y * Y;
    const double *al = ws->wal + (size_t)(t - a) * Y, *be = ws->wbe + (size_t)(t - a) * Y;
    const double *ps = ws->wps + (size_t)(t - a) * Y;
    for (uint32_t y = 0; y < Y; y++)
        p[y] = al[y] * be[y];
    memset(pt, 0, (YY + Y) * sizeof *pt);
    if (t == 0) {
        memcpy(pt + YY, p, Y * sizeof *pt);
        return CRFP_OK;
    }
    crfp_tview v;
    if (crfp_view_get(ws->w, s, t, theta, CRFP_VIEW_FB, &v) != CRFP_OK)
        return CRFP_ENOMEM;
    const double *E = view_dense(ws, &v);
    double *gam = ws->wtmp;
    for (uint32_t c = 0; c < Y; c++)
        gam[c] = ps[c] * be[c];
    for (uint32_t r = 0; r < Y; r++) {
        /* P(y_{t−1} = r, y_t = c): α_{t−1}(r) inside the window, the uniform
         * 1/Y at its left edge */
        double ar = t > a ? ws->wal[(size_t)(t - 1 - a) * Y + r] : 1.0 / Y;
        const double *Er = E + (size_t)r * Y;
        for (uint32_t c = 0; c < Y; c++)
            pt[(size_t)r * Y + c] = ar * Er[c] * gam[c];
    }
    crfp_view_release(ws->w, s, t);
    return CRFP_OK;
}

/* Block statistics on the sequences where b occurs (occ_stats), exact
 * (radius 0, or a window that covers its whole sequence) or on windows of
 * `radius` positions on each side of each occurrence, windows that overlap
 * or touch being merged into one (window_fb documents the boundary
 * approximation).  The loss is that of the sequences, or of the windows. */
static crfp_status ts_block_stats(crfp_tsws *ws, const double *theta, size_t b,
                                  uint32_t radius, double *g, double *h, double *loss)
{
    engine_ts *e = ws->ts;
    const crfp_crf *crf = e->crf;
    const uint32_t Y = crf->Y;
    const size_t YY = (size_t)Y * Y;
    const crfp_occ *occ;
    size_t nocc;
    crfp_status st = ts_occurrences(e, b, &occ, &nocc);
    if (st != CRFP_OK)
        return st;
    size_t len = e->bstart[b + 1] - e->bstart[b];
    /* g = h = NULL: the loss alone, from forward passes. */
    const int stats = g != NULL;
    if (stats) {
        memset(g, 0, len * sizeof *g);
        memset(h, 0, len * sizeof *h);
    }
    const int hasb = stats && crf->bblk[b] != CRFP_NO_BLOCK;
    double sum = 0.0;
    crfp_infer_epoch(ws->w);
    if (grow_d(&ws->wtmp, &ws->capwt, 2 * (size_t)Y + YY + Y + 1) ||
        grow_d(&ws->E, &ws->capE, YY + 1))
        return CRFP_ENOMEM;
    double *p = ws->wtmp + Y, *pt = p + Y;
    for (size_t k = 0; k < nocc && st == CRFP_OK;) {
        size_t i = occ[k].seq, kend = k;
        const crfp_seq *s = crfp_dataset_get(e->ds, i);
        const double wt = crfp_dataset_weight(e->ds, i);
        while (kend < nocc && occ[kend].seq == i)
            kend++;
        while (k < kend && st == CRFP_OK) {
            /* the next window: occurrences whose windows overlap or touch */
            uint32_t a = 0, z = s->T - 1;
            size_t k1 = kend;
            if (radius > 0) {
                uint32_t t0 = occ[k].pos;
                a = t0 > radius ? t0 - radius : 0;
                z = s->T - 1 - t0 > radius ? t0 + radius : s->T - 1;
                for (k1 = k + 1; k1 < kend && occ[k1].pos <= (uint64_t)z + 1 + radius; k1++) {
                    uint32_t t1 = occ[k1].pos;
                    z = s->T - 1 - t1 > radius ? t1 + radius : s->T - 1;
                }
            }
            if (a == 0 && z == s->T - 1) {
                /* the whole sequence: exact */
                if (hasb && grow_d(&ws->pair, &ws->cappair, (size_t)s->T * (Y + 1) * Y))
                    return CRFP_ENOMEM;
                double logz;
                st = crfp_fb_run(ws->w, s, theta, &logz, stats, NULL, hasb ? ws->pair : NULL,
                                 NULL, NULL, 1.0);
                if (st != CRFP_OK)
                    break;
                sum += wt * (logz - crfp_path_score(crf, s, theta, s->y));
                if (!stats)
                    k = k1;
                for (; k < k1; k++) {
                    uint32_t t = occ[k].pos;
                    const double *al = ws->w->alpha + (size_t)t * Y;
                    const double *be = ws->w->beta + (size_t)t * Y;
                    for (uint32_t y = 0; y < Y; y++)
                        p[y] = al[y] * be[y];
                    occ_stats(e, s, t, b, p, hasb ? ws->pair + (size_t)t * (Y + 1) * Y : NULL, wt,
                              g, h);
                }
            } else {
                double l;
                if ((st = window_fb(ws, s, theta, a, z, stats, &l)) != CRFP_OK)
                    break;
                sum += wt * l;
                if (!stats)
                    k = k1;
                for (; k < k1 && st == CRFP_OK; k++) {
                    uint32_t t = occ[k].pos;
                    st = window_marg(ws, s, theta, a, t, p, pt);
                    if (st == CRFP_OK)
                        occ_stats(e, s, t, b, p, pt, wt, g, h);
                }
            }
        }
    }
    /* frozen weights have neither gradient nor curvature (g and h are NULL
     * when the caller asked for the loss alone) */
    if (st == CRFP_OK && e->mask && g)
        for (size_t j = 0; j < len; j++)
            if (masked_out(e, e->bstart[b] + j))
                g[j] = h[j] = 0.0;
    if (loss)
        *loss = sum;
    return st;
}

/* --- Hessian-vector products ------------------------------------------------ */

static crfp_status hv_ready(engine_ts *e)
{
    crfp_status st;
    if (e->hv)
        return CRFP_OK;
    if ((st = crfp_hessvec_new(e->crf, e->ds, e->pub.team, e->mask, &e->hv)) != CRFP_OK)
        return crfp_error(e->host, st, "Hessian-vector product: out of memory");
    crfp_hessvec_keep(e->hv, e->hv_keep);
    return CRFP_OK;
}

static crfp_status ts_hessvec(void *ud, const double *theta, const double *v, int with_l2,
                              double *hv)
{
    engine_ts *e = ud;
    crfp_status st;
    if ((st = hv_ready(e)) != CRFP_OK)
        return st;
    if ((st = crfp_hessvec_eval(e->hv, theta, v, with_l2 ? e->pub.rho2 : 0.0, hv)) != CRFP_OK)
        return crfp_error(e->host, st, "Hessian-vector product: out of memory for %d product "
                          "buffers of %zu weights", crfp_team_size(e->pub.team), e->pub.dim);
    return CRFP_OK;
}

static crfp_status ts_hessdiag(void *ud, const double *theta, int with_l2, double *d)
{
    engine_ts *e = ud;
    crfp_status st;
    if ((st = hv_ready(e)) != CRFP_OK)
        return st;
    if ((st = crfp_hessvec_diag(e->hv, theta, with_l2 ? e->pub.rho2 : 0.0, d)) != CRFP_OK)
        return crfp_error(e->host, st, "Hessian diagonal: out of memory for %d buffers of %zu "
                          "weights", crfp_team_size(e->pub.team), e->pub.dim);
    return CRFP_OK;
}

static double ts_seq_weight(void *ud, size_t i)
{
    return crfp_dataset_weight(((engine_ts *)ud)->ds, i);
}

static crfp_status ts_hessvec_sample(void *ud, double fraction, uint64_t seed)
{
    engine_ts *e = ud;
    crfp_status st;
    if (!(fraction > 0.0))
        return crfp_error(e->host, CRFP_EINVAL, "Hessian sample: fraction %g must be > 0",
                          fraction);
    if ((st = hv_ready(e)) != CRFP_OK)
        return st;
    if ((st = crfp_hessvec_sample(e->hv, fraction, seed)) != CRFP_OK)
        return crfp_error(e->host, st, "Hessian sample: out of memory");
    return CRFP_OK;
}

static crfp_status ts_hessvec_keep(void *ud, size_t c)
{
    engine_ts *e = ud;
    e->hv_keep = c;
    if (e->hv)
        crfp_hessvec_keep(e->hv, c);
    return CRFP_OK;
}

/* --- construction --------------------------------------------------------- */

void crfp_trainset_free(crfp_trainset *ts)
{
    if (!ts)
        return;
    engine_ts *e = (engine_ts *)ts;
    crfp_crfobj_free(e->obj);
    crfp_hessvec_free(e->hv);
    pthread_mutex_destroy(&e->occ_mu);
    free(e->bstart);
    free(e->occ_off);
    free(e->occ);
    free(e);
}

void crfp_trainset_set_mode(crfp_trainset *ts, int mode)
{
    crfp_crfobj_set_mode(((engine_ts *)ts)->obj, mode);
}

crfp_status crfp_trainset_new(crfp_host *host, const crfp_crf *crf, const crfp_dataset *ds,
                              crfp_team *team, const uint64_t *mask, double rho1, double rho2,
                              crfp_trainset **out)
{
    *out = NULL;
    if (!crf || !ds || !crf->final)
        return crfp_error(host, CRFP_EINVAL, "training set: model not finalized");
    if (!(rho1 >= 0.0) || !(rho2 >= 0.0))
        return crfp_error(host, CRFP_EINVAL, "training set: rho1 and rho2 must be >= 0");
    engine_ts *e = calloc(1, sizeof *e);
    if (!e)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    pthread_mutex_init(&e->occ_mu, NULL);
    e->host = host;
    e->crf = crf;
    e->ds = ds;
    e->mask = mask;
    uint32_t nobs = crf->obs.n;
    e->bstart = malloc(((size_t)nobs + 1) * sizeof *e->bstart);
    if (!e->bstart) {
        crfp_trainset_free(&e->pub);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    uint64_t off = 0;
    for (uint32_t o = 0; o < nobs; o++) {
        e->bstart[o] = off;
        if (crf->ublk[o] != CRFP_NO_BLOCK)
            off += crf->Y;
        if (crf->bblk[o] != CRFP_NO_BLOCK)
            off += (uint64_t)(crf->Y + 1) * crf->Y;
    }
    e->bstart[nobs] = off;
    crfp_status st = crfp_crfobj_new(host, crf, ds, team, rho2, &e->obj);
    if (st != CRFP_OK) {
        crfp_trainset_free(&e->pub);
        return st;
    }
    crfp_trainset *t = &e->pub;
    t->size = sizeof *t;
    t->caps = CRFP_TS_BATCH | CRFP_TS_SEQUENCE | CRFP_TS_DECODE | CRFP_TS_BLOCKS |
              CRFP_TS_HESSVEC;
    t->nseq = crfp_dataset_size(ds);
    t->ntok = crfp_dataset_tokens(ds);
    t->dim = crf->nparams;
    t->nlabels = crf->Y;
    t->nblocks = nobs;
    t->block_start = e->bstart;
    t->rho1 = rho1;
    t->rho2 = rho2;
    t->team = team;
    t->ud = e;
    t->batch = ts_batch;
    t->ws_new = ts_ws_new;
    t->ws_free = ts_ws_free;
    t->gold = ts_gold;
    t->seq_blocks = ts_seq_blocks;
    t->seq_grad = ts_seq_grad;
    t->seq_grad_sparse = ts_seq_grad_sparse;
    t->viterbi = ts_viterbi;
    t->path_features = ts_path_features;
    t->occurrences = ts_occurrences;
    t->block_stats = ts_block_stats;
    t->hessvec = ts_hessvec;
    t->hessvec_keep = ts_hessvec_keep;
    t->hessdiag = ts_hessdiag;
    t->hessvec_sample = ts_hessvec_sample;
    t->seq_weight = ts_seq_weight;
    *out = t;
    return CRFP_OK;
}
