/* sgd_l1 — one step of several sequences spread over the thread team.
 *
 * A step is the single-threaded step's arithmetic in three parallel
 * phases with a little serial bookkeeping between them:
 *   1. union: the blocks the step's sequences touch, each once (serial,
 *      from seq_blocks: a few hundred list entries per sequence);
 *   2. catch-up: each member brings its slice of the union up to date;
 *   3. gradient: each member runs seq_grad_sparse on its slice of the
 *      sequences, in a workspace of its own, reading θ only;
 *   4. where each member's gradient of each union block lies (serial);
 *   5. update: each member steps its slice of the union with the sum of
 *      the members' gradients of the block, summed in member order.
 * Slices of the union are cut by weights, not blocks: a G2P model's
 * letter-dependent transition blocks hold Y² = 54,289 weights against Y
 * = 233 for an observation's unigram block.  No weight, q entry or block
 * reference is written by two members, and P and U only change between
 * phases, so the phases need no locks.
 *
 * Why steps of several sequences at all: on G2P the per-step work is
 * dominated by the blocks (the dense 233-label unigram blocks and the
 * letters' Y² transition blocks), which the sequences of a minibatch
 * share, and a step of one sequence leaves nothing to split.
 */
#include "config.h"
#include "sgd_impl.h"

#include <stdlib.h>
#include <string.h>

enum { PH_CATCHUP, PH_GRAD, PH_UPDATE };

typedef struct part {
    const uint32_t *bl; /* the member's gradient: blocks, packed values */
    size_t nb;
    const double *g;
    double loss;
    crfp_status st;
} part;

struct sgd_par {
    const crfp_trainset *ts;
    crfp_team *team;
    int nt;
    crfp_tsws **ws;   /* nt; ws[0] is the run's own (not owned) */
    uint32_t *stamp;  /* per block: generation when put in the union */
    uint32_t *pos;    /* per block: its position in the union */
    uint32_t gen;
    uint32_t *ub;     /* the union's blocks */
    uint64_t *ucum;   /* ulen + 1: weights before each union block */
    size_t ulen, ucap;
    const double **gp; /* nt × ulen: member k's gradient of union block j, or NULL */
    size_t gpcap;
    double *scratch;   /* nt × maxblock: sums of several members' gradients */
    size_t maxblock;
    part *parts;       /* nt */
    /* the job of the current phase */
    sgd_run *r;
    const size_t *idx;
    size_t n;
    double eta;
    int phase;
};

crfp_status sgd_par_init(sgd_run *r)
{
    const crfp_trainset *ts = r->ts;
    int nt = crfp_team_size(ts->team);
    if (nt < 2)
        return CRFP_OK;
    sgd_par *p = calloc(1, sizeof *p);
    if (!p)
        goto oom;
    r->par = p; /* freed with the run, also when set-up fails half-way */
    p->ts = ts;
    p->team = ts->team;
    p->nt = nt;
    size_t nb = ts->nblocks ? ts->nblocks : 1;
    p->ws = calloc((size_t)nt, sizeof *p->ws);
    p->parts = calloc((size_t)nt, sizeof *p->parts);
    p->stamp = calloc(nb, sizeof *p->stamp);
    p->pos = malloc(nb * sizeof *p->pos);
    if (!p->ws || !p->parts || !p->stamp || !p->pos)
        goto oom;
    p->ws[0] = r->ws;
    for (int k = 1; k < nt; k++)
        if (ts->ws_new(ts->ud, &p->ws[k]) != CRFP_OK)
            goto oom;
    for (size_t b = 0; b < ts->nblocks; b++) {
        size_t len = ts->block_start[b + 1] - ts->block_start[b];
        if (len > p->maxblock)
            p->maxblock = len;
    }
    if (!(p->scratch = malloc((size_t)nt * (p->maxblock ? p->maxblock : 1) * sizeof *p->scratch)))
        goto oom;
    return CRFP_OK;
oom:
    return crfp_error(r->host, CRFP_ENOMEM,
                      "sgd_l1: out of memory for the workspaces of a %d-thread team", nt);
}

void sgd_par_free(sgd_par *p)
{
    if (!p)
        return;
    /* ws[0] belongs to the run. */
    for (int k = 1; p->ws && k < p->nt; k++)
        if (p->ws[k])
            p->ts->ws_free(p->ws[k]);
    free(p->ws);
    free(p->parts);
    free(p->stamp);
    free(p->pos);
    free(p->ub);
    free(p->ucum);
    free(p->gp);
    free(p->scratch);
    free(p);
}

/* Member id's slice [lo, hi) of the union, cut at equal shares of its
 * weights (the first union position whose start reaches the share). */
static size_t cut(const sgd_par *p, int id, int parts)
{
    if (id >= parts)
        return p->ulen;
    uint64_t target = p->ucum[p->ulen] / (uint64_t)parts * (uint64_t)id;
    size_t lo = 0, hi = p->ulen;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->ucum[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void phase(void *arg, int id, int parts)
{
    sgd_par *p = arg;
    sgd_run *r = p->r;
    sgd_lazy *lz = &r->lz;
    if (p->phase == PH_GRAD) {
        /* Even shares of the sequences; with a nested (serial) run, member
         * 0 takes them all in its own workspace. */
        size_t lo = p->n * (size_t)id / (size_t)parts, hi = p->n * (size_t)(id + 1) / (size_t)parts;
        part *pt = &p->parts[id];
        pt->nb = 0;
        pt->loss = 0;
        pt->st = CRFP_OK;
        if (lo < hi)
            pt->st = r->ts->seq_grad_sparse(p->ws[id], lz->theta, p->idx + lo, hi - lo, &pt->bl,
                                            &pt->nb, &pt->g, &pt->loss);
        return;
    }
    size_t lo = cut(p, id, parts), hi = cut(p, id + 1, parts);
    for (size_t j = lo; j < hi; j++) {
        uint32_t b = p->ub[j];
        if (p->phase == PH_CATCHUP) {
            sgd_lazy_block(lz, b, 0, NULL);
            continue;
        }
        const double *g = NULL;
        int several = 0;
        size_t len = p->ucum[j + 1] - p->ucum[j];
        double *sum = p->scratch + (size_t)id * p->maxblock;
        for (int k = 0; k < p->nt; k++) {
            const double *gk = p->gp[(size_t)k * p->ulen + j];
            if (!gk)
                continue;
            if (!g) {
                g = gk;
            } else {
                if (!several)
                    memcpy(sum, g, len * sizeof *sum);
                several = 1;
                for (size_t i = 0; i < len; i++)
                    sum[i] += gk[i];
            }
        }
        /* Every union block has a gradient from some member; without one
         * the call would only catch the block up. */
        sgd_lazy_block(lz, b, p->eta, several ? sum : g);
    }
}

static crfp_status grow(sgd_par *p, size_t need)
{
    if (need <= p->ucap)
        return CRFP_OK;
    size_t cap = p->ucap ? p->ucap : 1024;
    while (cap < need)
        cap *= 2;
    uint32_t *ub = realloc(p->ub, cap * sizeof *ub);
    if (!ub)
        return CRFP_ENOMEM;
    p->ub = ub;
    uint64_t *uc = realloc(p->ucum, (cap + 1) * sizeof *uc);
    if (!uc)
        return CRFP_ENOMEM;
    p->ucum = uc;
    p->ucap = cap;
    return CRFP_OK;
}

crfp_status sgd_par_step(sgd_run *r, const size_t *idx, size_t n, double eta, double a,
                         double c, double *loss)
{
    sgd_par *p = r->par;
    const crfp_trainset *ts = r->ts;
    sgd_lazy *lz = &r->lz;
    crfp_status st;
    p->r = r;
    p->idx = idx;
    p->n = n;
    p->eta = eta;
    /* 1. the union */
    if (++p->gen == 0) {
        memset(p->stamp, 0, ts->nblocks * sizeof *p->stamp);
        p->gen = 1;
    }
    p->ulen = 0;
    if ((st = grow(p, 1)) != CRFP_OK)
        goto oom;
    p->ucum[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t *bl;
        size_t nb;
        if ((st = ts->seq_blocks(r->ws, idx[i], &bl, &nb)) != CRFP_OK)
            return st;
        if ((st = grow(p, p->ulen + nb)) != CRFP_OK)
            goto oom;
        for (size_t j = 0; j < nb; j++) {
            uint32_t b = bl[j];
            if (p->stamp[b] == p->gen)
                continue;
            p->stamp[b] = p->gen;
            p->pos[b] = (uint32_t)p->ulen;
            p->ub[p->ulen] = b;
            p->ucum[p->ulen + 1] = p->ucum[p->ulen] + (ts->block_start[b + 1] - ts->block_start[b]);
            p->ulen++;
        }
    }
    /* 2. catch-up, 3. gradients */
    if (lz->l1 || lz->l2) {
        p->phase = PH_CATCHUP;
        crfp_team_run(p->team, phase, p);
    }
    p->phase = PH_GRAD;
    for (int k = 0; k < p->nt; k++)
        p->parts[k].nb = 0;
    crfp_team_run(p->team, phase, p);
    double l = 0;
    for (int k = 0; k < p->nt; k++) {
        if (p->parts[k].st != CRFP_OK)
            return p->parts[k].st;
        l += p->parts[k].loss;
    }
    /* 4. where the gradients lie */
    size_t need = (size_t)p->nt * p->ulen;
    if (need > p->gpcap) {
        const double **gp = realloc(p->gp, need * sizeof *gp);
        if (!gp)
            goto oom;
        p->gp = gp;
        p->gpcap = need;
    }
    memset(p->gp, 0, need * sizeof *p->gp);
    for (int k = 0; k < p->nt; k++) {
        const double *g = p->parts[k].g;
        for (size_t j = 0; j < p->parts[k].nb; j++) {
            uint32_t b = p->parts[k].bl[j];
            if (b >= ts->nblocks || p->stamp[b] != p->gen)
                return crfp_error(r->host, CRFP_EINVAL,
                                  "sgd_l1: the training set's gradient lists block %u, which "
                                  "its seq_blocks did not list",
                                  b);
            p->gp[(size_t)k * p->ulen + p->pos[b]] = g;
            g += ts->block_start[b + 1] - ts->block_start[b];
        }
    }
    /* 5. the update */
    sgd_lazy_advance(lz, a, c);
    p->phase = PH_UPDATE;
    crfp_team_run(p->team, phase, p);
    *loss += l;
    return CRFP_OK;
oom:
    return crfp_error(r->host, CRFP_ENOMEM, "sgd_l1: out of memory for a step's block list");
}
