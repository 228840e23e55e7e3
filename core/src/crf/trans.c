/* crfpipe — transition views: cached per-observation non-zero lists and
 * exp(λ) matrices, and the scratch sum for positions with several bigram
 * observations (see infer.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "infer.h"

static int reserve_i(crfp_infer *w, size_t extra)
{
    if (w->ipool_n + extra <= w->ipool_cap)
        return 0;
    size_t cap = w->ipool_cap ? w->ipool_cap : 1024;
    while (cap < w->ipool_n + extra)
        cap *= 2;
    uint32_t *p = realloc(w->ipool, cap * sizeof *p);
    if (!p)
        return -1;
    w->ipool = p;
    w->ipool_cap = cap;
    return 0;
}

static int reserve_d(crfp_infer *w, size_t extra)
{
    if (w->dpool_n + extra <= w->dpool_cap)
        return 0;
    size_t cap = w->dpool_cap ? w->dpool_cap : 1024;
    while (cap < w->dpool_n + extra)
        cap *= 2;
    double *p = realloc(w->dpool, cap * sizeof *p);
    if (!p)
        return -1;
    w->dpool = p;
    w->dpool_cap = cap;
    return 0;
}

void crfp_infer_epoch(crfp_infer *w)
{
    /* deferred gradients still need this epoch's non-zero lists */
    crfp_fb_lowrank_drain(w, 0);
    w->epoch++;
    if (w->epoch == 0) {
        /* Stamps wrapped: make every old stamp stale explicitly. */
        if (w->crf->nbig)
            memset(w->stamp, 0, w->crf->nbig * sizeof *w->stamp);
        w->epoch = 1;
    }
    w->ipool_n = 0;
    w->dpool_n = 0;
    w->eused = 0;
    if (w->lc)
        memset(w->lc_nobs, 0, w->lc_slots * sizeof *w->lc_nobs);
    crfp_settab_clear(&w->ec_sets);
}

/* Non-zero list of observation o's block (rows < Y, column-major) with
 * expm1(λ), and exp of its start row. */
static crfp_status ensure_entry(crfp_infer *w, const double *theta, uint32_t o)
{
    const crfp_crf *crf = w->crf;
    uint32_t b = crf->bidx[o];
    if (w->stamp[b] == w->epoch)
        return CRFP_OK;
    uint32_t Y = w->Y;
    const double *L = theta + crf->bblk[o];
    uint32_t *cnt = w->cnt;
    memset(cnt, 0, ((size_t)Y + 1) * sizeof *cnt);
    uint32_t nnz = 0;
    for (uint32_t r = 0; r < Y; r++)
        for (uint32_t c = 0; c < Y; c++)
            if (L[(size_t)r * Y + c] != 0.0) {
                cnt[c + 1]++;
                nnz++;
            }
    if (reserve_i(w, (size_t)Y + 1 + nnz) || reserve_d(w, 2 * (size_t)nnz + Y))
        return CRFP_ENOMEM;
    crfp_centry *e = &w->ce[b];
    e->ioff = w->ipool_n;
    e->doff = w->dpool_n;
    e->eoff = SIZE_MAX;
    e->nnz = nnz;
    w->ipool_n += (size_t)Y + 1 + nnz;
    w->dpool_n += 2 * (size_t)nnz + Y;
    uint32_t *colptr = w->ipool + e->ioff, *row = colptr + Y + 1;
    double *lam = w->dpool + e->doff, *m = lam + nnz, *sE = m + nnz;
    colptr[0] = 0;
    for (uint32_t c = 0; c < Y; c++) {
        colptr[c + 1] = colptr[c] + cnt[c + 1];
        cnt[c] = colptr[c];
    }
    for (uint32_t r = 0; r < Y; r++)
        for (uint32_t c = 0; c < Y; c++) {
            double l = L[(size_t)r * Y + c];
            if (l != 0.0) {
                uint32_t k = cnt[c]++;
                row[k] = r;
                lam[k] = l;
                m[k] = expm1(l);
            }
        }
    for (uint32_t y = 0; y < Y; y++)
        sE[y] = exp(L[(size_t)Y * Y + y]);
    w->stamp[b] = w->epoch;
    return CRFP_OK;
}

const crfp_centry *crfp_view_entry(const crfp_infer *w, uint32_t o)
{
    uint32_t b = w->crf->bidx[o];
    return w->stamp[b] == w->epoch ? &w->ce[b] : NULL;
}

static int want_dense(const crfp_infer *w, uint32_t nnz)
{
    if (w->mode == 1)
        return 0;
    if (w->mode == 2)
        return 1;
    /* The sparse recursions touch each non-zero once plus O(Y); past about a
     * third of the matrix the dense loops, which vectorise, win. */
    return (size_t)nnz * 3 > (size_t)w->Y * w->Y;
}

static void fill_exp(double *E, const double *L, size_t n)
{
    for (size_t i = 0; i < n; i++)
        E[i] = exp(L[i]);
}

/* v := the dense multi-observation view L (start row last), with E
 * (exp(λ), forward-backward) or NULL, and the start exponentials in w->sE. */
static void dense_view(crfp_infer *w, crfp_tview *v, const double *L, const double *E)
{
    w->multi_dense = 1;
    v->rmax = v->rmin = NULL;
    v->nnz = w->Y * w->Y;
    v->colptr = w->cnt + w->Y + 1;
    v->row = NULL;
    v->lam = v->m = NULL;
    v->L = L;
    v->sE = w->sE;
    v->dense = 1;
    v->E = E;
}

/* The epoch's cache of forward-backward views per observation set: G2P
 * and NETtalk templates put the constant B and a letter's `*` block at
 * every position, and building the sum of λ and the product of exp(λ)
 * costs two Y² copies per view, twice per position; with the cache, once
 * per set and epoch.  Budget: 4M doubles and 128 sets per workspace (a
 * template with thousands of sets, e.g. CoNLL-2000's `*` words, keeps a
 * few MB). */
#define EC_DOUBLES ((size_t)4 << 20)
#define EC_MAXSLOTS 128

/* A slot: kind (1 dense, 2 sparse) and nnz, then λ with its start row
 * ((Y+1)·Y) and the start exponentials (Y); then for a dense view exp(λ)
 * (Y²), for a sparse one lam and m (nnz each) followed by colptr (Y+1)
 * and row (nnz) as 32-bit integers. */
static size_t ec_per(uint32_t Y)
{
    return 2 + 2 * (size_t)Y * Y + 2 * (size_t)Y;
}

static size_t ec_sparse_need(uint32_t Y, uint32_t nnz)
{
    return 2 + ((size_t)Y + 1) * Y + Y + 2 * (size_t)nnz + ((size_t)Y + 1 + nnz + 1) / 2;
}

/* v := the view stored in slot e; nothing to undo at release. */
static void ec_view(crfp_infer *w, const double *e, crfp_tview *v)
{
    const uint32_t Y = w->Y;
    const size_t YY = (size_t)Y * Y;
    const double *L = e + 2, *sE = L + YY + Y;
    if (e[0] == 1.0) {
        dense_view(w, v, L, sE + Y);
        v->sE = sE;
        return;
    }
    uint32_t nnz = (uint32_t)e[1];
    const double *lam = sE + Y;
    const uint32_t *ip = (const uint32_t *)(lam + 2 * (size_t)nnz);
    w->multi_dense = 1;
    v->rmax = v->rmin = NULL;
    v->nnz = nnz;
    v->colptr = ip;
    v->row = ip + Y + 1;
    v->lam = lam;
    v->m = lam + nnz;
    v->L = L;
    v->sE = sE;
    v->dense = 0;
    v->E = NULL;
}

/* The slot of set obs[0..nb): *hit when it holds the set's view for this
 * epoch; otherwise a slot to fill, emptied here and labelled by the caller
 * (crfp_settab_label) once filled.  NULL when the set is not cached. */
static double *ec_slot(crfp_infer *w, const uint32_t *obs, uint32_t nb, uint64_t *h,
                       uint32_t *s, int *hit)
{
    *hit = 0;
    if (nb > CRFP_LC_MAXOBS || w->ec_off)
        return NULL;
    if (!w->ec_sets.n &&
        crfp_settab_alloc(&w->ec_sets, ec_per(w->Y), EC_DOUBLES, EC_MAXSLOTS) != CRFP_OK) {
        w->ec_off = 1;
        return NULL;
    }
    *s = crfp_settab_find(&w->ec_sets, obs, nb, h, hit);
    if (!*hit)
        w->ec_sets.nobs[*s] = 0;
    return crfp_settab_slot(&w->ec_sets, *s);
}

/* A cache slot's row bounds (see crfp_lc_per): flag, then the max and the
 * min of each row y' < Y of the slot's matrix, kept only when every entry
 * is finite (NaN or ±∞ would void the pruning argument). */
static void fill_bounds(double *slot, uint32_t Y)
{
    const size_t YY = (size_t)Y * Y;
    double *flag = slot + YY + Y, *rmax = flag + 1, *rmin = rmax + Y;
    *flag = 0.0;
    for (uint32_t r = 0; r < Y; r++) {
        const double *L = slot + (size_t)r * Y;
        double hi = L[0], lo = L[0];
        for (uint32_t c = 0; c < Y; c++) {
            if (!isfinite(L[c]))
                return;
            hi = L[c] > hi ? L[c] : hi;
            lo = L[c] < lo ? L[c] : lo;
        }
        rmax[r] = hi;
        rmin[r] = lo;
    }
    *flag = 1.0;
}

static void cached_bounds(crfp_tview *v, const double *slot, uint32_t Y)
{
    const double *flag = slot + (size_t)Y * Y + Y;
    if (*flag == 1.0) {
        v->rmax = flag + 1;
        v->rmin = flag + 1 + Y;
    }
}

static crfp_status multi_dense(crfp_infer *w, const crfp_seq *seq, uint32_t t,
                              const double *theta, int want, uint32_t base, crfp_tview *v,
                              double *ec, uint32_t ec_s, uint64_t ec_h)
{
    const crfp_crf *crf = w->crf;
    const uint32_t Y = w->Y;
    const size_t YY = (size_t)Y * Y;
    const uint32_t *obs = seq->bobs + seq->boff[t];
    const uint32_t nb = seq->boff[t + 1] - seq->boff[t];
    const int fb = want == CRFP_VIEW_FB;
    double *Ls = w->Lm, *Es = w->Es, *sE = w->sE;
    const double *Lb = theta + crf->bblk[obs[base]];
    /* With θ fixed, Viterbi's Σλ of this observation set may be cached. */
    uint32_t *slot_obs = NULL, *claim = NULL;
    double *cached = NULL;
    if (!fb && w->lc && w->fixed == theta && nb <= CRFP_LC_MAXOBS) {
        uint64_t h = 0x9E3779B97F4A7C15ull * (nb + 1);
        for (uint32_t i = 0; i < nb; i++)
            h = (h ^ obs[i]) * 0xBF58476D1CE4E5B9ull;
        /* Every slot may hold any set (the slots are few: 38 at G2P's 233
         * labels) and is found by its stored hash, starting at the set's home
         * slot, where it was put when that was free.  Probing only a few
         * slots from home let G2P's 29 letter sets, at a load of 3/4, evict
         * each other whenever their probe runs overlapped. */
        const uint32_t home = (uint32_t)((h >> 32) % w->lc_slots);
        uint32_t empty = UINT32_MAX;
        for (uint32_t p = 0; p < w->lc_slots; p++) {
            uint32_t q = home + p < w->lc_slots ? home + p : home + p - w->lc_slots;
            if (w->lc_nobs[q] == 0) {
                if (empty == UINT32_MAX)
                    empty = q;
                continue;
            }
            const uint32_t *qo = w->lc_obs + (size_t)q * CRFP_LC_MAXOBS;
            if (w->lc_hash[q] == h && w->lc_nobs[q] == nb &&
                memcmp(qo, obs, nb * sizeof *obs) == 0) {
                cached = w->lc + (size_t)q * crfp_lc_per(Y);
                dense_view(w, v, cached, NULL);
                cached_bounds(v, cached, Y);
                return CRFP_OK;
            }
        }
        /* a miss: fill a free slot, else evict in turn (a clock) */
        uint32_t slot = empty;
        if (slot == UINT32_MAX) {
            slot = w->lc_clock % w->lc_slots;
            w->lc_clock = slot + 1;
        }
        cached = w->lc + (size_t)slot * crfp_lc_per(Y);
        slot_obs = w->lc_obs + (size_t)slot * CRFP_LC_MAXOBS;
        Ls = cached;
        w->lc_nobs[slot] = 0;
        w->lc_hash[slot] = h;
        memcpy(slot_obs, obs, nb * sizeof *obs);
        claim = w->lc_nobs + slot;
    }
    if (fb && ec) {
        /* filled in place: the slot's dense layout (ec_view) */
        ec[0] = 1.0;
        ec[1] = (double)YY;
        Ls = ec + 2;
        sE = Ls + YY + Y;
        Es = sE + Y;
    }
    w->multi_dense = 1;
    memcpy(Ls, Lb, (YY + Y) * sizeof *Ls);
    if (fb) {
        crfp_centry *eb = &w->ce[crf->bidx[obs[base]]];
        if (eb->eoff == SIZE_MAX && w->eused + YY <= w->ebudget) {
            if (reserve_d(w, YY))
                return CRFP_ENOMEM;
            eb->eoff = w->dpool_n;
            w->dpool_n += YY;
            w->eused += YY;
            fill_exp(w->dpool + eb->eoff, Lb, YY);
        }
        if (eb->eoff != SIZE_MAX)
            memcpy(Es, w->dpool + eb->eoff, YY * sizeof *Es);
        else
            fill_exp(Es, Lb, YY);
        const double *seb = w->dpool + eb->doff + 2 * (size_t)eb->nnz;
        memcpy(sE, seb, Y * sizeof *sE);
    }
    for (uint32_t i = 0; i < nb; i++) {
        if (i == base)
            continue;
        const crfp_centry *e = &w->ce[crf->bidx[obs[i]]];
        const uint32_t *colptr = w->ipool + e->ioff, *row = colptr + Y + 1;
        const double *lam = w->dpool + e->doff, *m = lam + e->nnz, *se = m + e->nnz;
        for (uint32_t c = 0; c < Y; c++)
            for (uint32_t k = colptr[c]; k < colptr[c + 1]; k++) {
                size_t cell = (size_t)row[k] * Y + c;
                Ls[cell] += lam[k];
                if (fb)
                    Es[cell] *= 1.0 + m[k];
            }
        const double *start = theta + crf->bblk[obs[i]] + YY;
        for (uint32_t y = 0; y < Y; y++)
            Ls[YY + y] += start[y];
        if (fb)
            for (uint32_t y = 0; y < Y; y++)
                sE[y] *= se[y];
    }
    dense_view(w, v, Ls, fb ? Es : NULL);
    v->sE = sE;
    if (fb && ec)
        crfp_settab_label(&w->ec_sets, ec_s, ec_h, obs, nb);
    if (claim) {
        fill_bounds(cached, Y);
        cached_bounds(v, cached, Y);
        *claim = nb;
    }
    return CRFP_OK;
}

/* Whether a Viterbi view of nb observations may go through the fixed-θ log
 * cache (auto mode only: forced sparse or dense views keep their own path). */
static int log_cacheable(const crfp_infer *w, const double *theta, int want, uint32_t nb)
{
    return want != CRFP_VIEW_FB && w->lc && w->fixed == theta && nb <= CRFP_LC_MAXOBS &&
           w->mode == 0;
}

crfp_status crfp_view_get(crfp_infer *w, const crfp_seq *seq, uint32_t t, const double *theta,
                          int want, crfp_tview *v)
{
    const crfp_crf *crf = w->crf;
    uint32_t Y = w->Y;
    size_t YY = (size_t)Y * Y;
    uint32_t b0 = seq->boff[t], nb = seq->boff[t + 1] - b0;
    const uint32_t *obs = seq->bobs + b0;
    v->rmax = v->rmin = NULL;
    if (nb == 0) {
        v->nnz = 0;
        v->colptr = w->cnt + Y + 1; /* zeroed Y+1 run kept for this purpose */
        v->row = NULL;
        v->lam = v->m = NULL;
        v->L = w->zeros;
        v->sE = w->ones;
        v->dense = w->mode == 2;
        v->E = v->dense ? w->ones : NULL;
        return CRFP_OK;
    }
    for (uint32_t i = 0; i < nb; i++)
        if (ensure_entry(w, theta, obs[i]) != CRFP_OK)
            return CRFP_ENOMEM;
    if (nb == 1) {
        crfp_centry *e = &w->ce[crf->bidx[obs[0]]];
        v->nnz = e->nnz;
        v->L = theta + crf->bblk[obs[0]];
        v->dense = want_dense(w, e->nnz);
        v->E = NULL;
        if (v->dense && want == CRFP_VIEW_FB) {
            if (e->eoff == SIZE_MAX && w->eused + YY <= w->ebudget) {
                if (reserve_d(w, YY))
                    return CRFP_ENOMEM;
                e->eoff = w->dpool_n;
                w->dpool_n += YY;
                w->eused += YY;
                fill_exp(w->dpool + e->eoff, v->L, YY);
            }
            if (e->eoff != SIZE_MAX) {
                v->E = w->dpool + e->eoff;
            } else {
                fill_exp(w->Es, v->L, YY);
                v->E = w->Es;
            }
        }
        v->colptr = w->ipool + e->ioff;
        v->row = v->colptr + Y + 1;
        v->lam = w->dpool + e->doff;
        v->m = v->lam + e->nnz;
        v->sE = v->m + e->nnz;
        return CRFP_OK;
    }
    /* Within an epoch a set's forward-backward view is built once. */
    double *ec = NULL;
    uint32_t ec_s = 0;
    uint64_t ec_h = 0;
    if (want == CRFP_VIEW_FB) {
        int hit;
        ec = ec_slot(w, obs, nb, &ec_h, &ec_s, &hit);
        if (ec && hit) {
            ec_view(w, ec, v);
            return CRFP_OK;
        }
    }
    /* Several observations, one of them dense (e.g. the constant "B" next
     * to '*' templates): start from that one's matrix and fold the others'
     * non-zeros in, which costs Y² copies instead of a merge of Y² cells. */
    if (w->mode != 1) {
        uint32_t base = nb;
        for (uint32_t i = 0; i < nb && base == nb; i++)
            if (want_dense(w, w->ce[crf->bidx[obs[i]]].nnz))
                base = i;
        /* Viterbi with θ fixed: a set of sparse observations (as B and a
         * letter's '*' block of a model with many labels, e.g. G2P's 233) is
         * otherwise merged afresh at every position of every word; the dense
         * sum is made once per distinct set and kept in the log cache. */
        if (base == nb && log_cacheable(w, theta, want, nb))
            base = 0;
        if (base < nb)
            return multi_dense(w, seq, t, theta, want, base, v, ec, ec_s, ec_h);
    }
    /* Several observations: sum their non-zeros into the scratch matrix,
     * remembering which cells were touched so that release is O(nnz).  For
     * forward-backward, exp(Σλ) is the product of the observations' cached
     * exp(λ), so no exp() is needed per position; Viterbi only needs Σλ. */
    double *Ls = w->Ls, *Ps = w->Ps;
    const int fb = want == CRFP_VIEW_FB;
    for (uint32_t i = 0; i < nb; i++) {
        const crfp_centry *e = &w->ce[crf->bidx[obs[i]]];
        const uint32_t *colptr = w->ipool + e->ioff, *row = colptr + Y + 1;
        const double *lam = w->dpool + e->doff, *m = lam + e->nnz, *se = m + e->nnz;
        for (uint32_t c = 0; c < Y; c++)
            for (uint32_t k = colptr[c]; k < colptr[c + 1]; k++) {
                size_t cell = (size_t)row[k] * Y + c;
                if (!w->touched_mark[cell]) {
                    w->touched_mark[cell] = 1;
                    w->touched[w->ntouched++] = (uint32_t)cell;
                }
                Ls[cell] += lam[k];
                if (fb)
                    Ps[cell] *= 1.0 + m[k];
            }
        const double *start = theta + crf->bblk[obs[i]] + YY;
        for (uint32_t y = 0; y < Y; y++)
            Ls[YY + y] += start[y];
        if (fb)
            for (uint32_t y = 0; y < Y; y++)
                Ps[YY + y] *= se[y];
    }
    uint32_t nnz = w->ntouched, *cnt = w->cnt;
    memset(cnt, 0, ((size_t)Y + 1) * sizeof *cnt);
    for (uint32_t i = 0; i < nnz; i++)
        cnt[w->touched[i] % Y + 1]++;
    w->scol[0] = 0;
    for (uint32_t c = 0; c < Y; c++) {
        w->scol[c + 1] = w->scol[c] + cnt[c + 1];
        cnt[c] = w->scol[c];
    }
    for (uint32_t i = 0; i < nnz; i++) {
        uint32_t cell = w->touched[i], c = cell % Y;
        uint32_t k = cnt[c]++;
        w->srow[k] = cell / Y;
        w->slam[k] = Ls[cell];
        w->sm[k] = fb ? Ps[cell] - 1.0 : 0.0;
    }
    memset(cnt, 0, ((size_t)Y + 1) * sizeof *cnt);
    if (fb)
        for (uint32_t y = 0; y < Y; y++)
            w->sE[y] = Ps[YY + y];
    v->nnz = nnz;
    v->colptr = w->scol;
    v->row = w->srow;
    v->lam = w->slam;
    v->m = w->sm;
    v->L = Ls;
    v->sE = w->sE;
    v->dense = want_dense(w, nnz);
    v->E = NULL;
    if (v->dense && want == CRFP_VIEW_FB) {
        for (size_t i = 0; i < YY; i++)
            w->Es[i] = 1.0;
        for (uint32_t i = 0; i < nnz; i++)
            w->Es[w->touched[i]] = Ps[w->touched[i]];
        v->E = w->Es;
    }
    if (ec && (v->dense || ec_sparse_need(Y, nnz) <= ec_per(Y))) {
        /* keep the view for the set's next positions (this one goes on
         * using the scratch, which release undoes as usual) */
        double *L = ec + 2, *sE = L + YY + Y;
        ec[0] = v->dense ? 1.0 : 2.0;
        ec[1] = (double)nnz;
        memcpy(L, Ls, (YY + Y) * sizeof *L);
        memcpy(sE, v->sE, Y * sizeof *sE);
        if (v->dense) {
            memcpy(sE + Y, v->E, YY * sizeof *sE);
        } else {
            double *lam = sE + Y;
            uint32_t *ip = (uint32_t *)(lam + 2 * (size_t)nnz);
            memcpy(lam, v->lam, nnz * sizeof *lam);
            memcpy(lam + nnz, v->m, nnz * sizeof *lam);
            memcpy(ip, v->colptr, ((size_t)Y + 1) * sizeof *ip);
            memcpy(ip + Y + 1, v->row, nnz * sizeof *ip);
        }
        crfp_settab_label(&w->ec_sets, ec_s, ec_h, obs, nb);
    }
    return CRFP_OK;
}

void crfp_view_release(crfp_infer *w, const crfp_seq *seq, uint32_t t)
{
    if (seq->boff[t + 1] - seq->boff[t] < 2)
        return;
    size_t YY = (size_t)w->Y * w->Y;
    /* a dense multi-observation view lives in Lm (or the cache), written
     * whole each time: nothing to undo */
    if (w->multi_dense) {
        w->multi_dense = 0;
        return;
    }
    for (uint32_t i = 0; i < w->ntouched; i++) {
        w->Ls[w->touched[i]] = 0.0;
        w->Ps[w->touched[i]] = 1.0;
        w->touched_mark[w->touched[i]] = 0;
    }
    w->ntouched = 0;
    for (uint32_t y = 0; y < w->Y; y++) {
        w->Ls[YY + y] = 0.0;
        w->Ps[YY + y] = 1.0;
    }
}
