/* sgd tests — a toy training set: block-sparse logistic regression seen
 * through the crfp_trainset interface.  Sequence i touches a few blocks and
 * has loss log(1 + exp(-y_i·x_i·θ)) over the weights of those blocks, so,
 * as with the CRF engine, its gradient is zero outside its blocks.  Small
 * enough to compute the full dense gradient for a reference. */
#ifndef SGD_TOYSET_H
#define SGD_TOYSET_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crfpipe/crfpipe.h"

#include "../testcheck.h"

#define TOY_MAXB 4 /* blocks per sequence */

typedef struct toy {
    crfp_trainset ts;
    size_t nseq, nblocks, dim;
    uint64_t *start;        /* nblocks + 1 */
    uint32_t (*blk)[TOY_MAXB];
    size_t *nblk;
    double *x;              /* nseq × dim, zero outside the sequence's blocks */
    double *y;              /* ±1 */
} toy;

struct crfp_tsws {
    toy *t;
    uint32_t blocks[64];
    double g[4096];
    unsigned char seen[256];
};

static uint64_t toy_rng_state = 88172645463325252ULL;
static inline double toy_unif(void)
{
    toy_rng_state ^= toy_rng_state << 13;
    toy_rng_state ^= toy_rng_state >> 7;
    toy_rng_state ^= toy_rng_state << 17;
    return (double)(toy_rng_state >> 11) / 9007199254740992.0;
}

static inline crfp_status toy_ws_new(void *ud, crfp_tsws **ws)
{
    *ws = calloc(1, sizeof **ws);
    if (!*ws)
        return CRFP_ENOMEM;
    (*ws)->t = ud;
    return CRFP_OK;
}
static inline void toy_ws_free(crfp_tsws *ws) { free(ws); }

static inline crfp_status toy_seq_blocks(crfp_tsws *ws, size_t i, const uint32_t **blocks, size_t *n)
{
    *blocks = ws->t->blk[i];
    *n = ws->t->nblk[i];
    return CRFP_OK;
}

static inline double toy_margin(const toy *t, size_t i, const double *theta)
{
    double m = 0;
    for (size_t k = 0; k < t->dim; k++)
        m += t->x[i * t->dim + k] * theta[k];
    return t->y[i] * m;
}

/* log(1 + e^-m) and its derivative in m, -1/(1 + e^m), computed stably. */
static inline double toy_loss(double m) { return m > 0 ? log1p(exp(-m)) : -m + log1p(exp(m)); }
static inline double toy_dloss(double m) { return -1.0 / (1.0 + exp(m)); }

static inline crfp_status toy_seq_grad_sparse(crfp_tsws *ws, const double *theta, const size_t *idx,
                                       size_t n, const uint32_t **blocks, size_t *nblocks,
                                       const double **gblk, double *loss)
{
    toy *t = ws->t;
    size_t nb = 0;
    memset(ws->seen, 0, sizeof ws->seen);
    for (size_t j = 0; j < n; j++)
        for (size_t b = 0; b < t->nblk[idx[j]]; b++) {
            uint32_t bl = t->blk[idx[j]][b];
            if (!ws->seen[bl]) {
                ws->seen[bl] = 1;
                ws->blocks[nb++] = bl;
            }
        }
    size_t len = 0;
    for (size_t b = 0; b < nb; b++)
        len += t->start[ws->blocks[b] + 1] - t->start[ws->blocks[b]];
    memset(ws->g, 0, len * sizeof *ws->g);
    for (size_t j = 0; j < n; j++) {
        size_t i = idx[j];
        double m = toy_margin(t, i, theta), d = toy_dloss(m) * t->y[i];
        *loss += toy_loss(m);
        for (size_t b = 0, at = 0; b < nb; b++) {
            uint32_t bl = ws->blocks[b];
            for (uint64_t k = t->start[bl]; k < t->start[bl + 1]; k++)
                ws->g[at++] += d * t->x[i * t->dim + k];
        }
    }
    *blocks = ws->blocks;
    *nblocks = nb;
    *gblk = ws->g;
    return CRFP_OK;
}

/* The dense gradient of the sequences idx[0..n) (for the references). */
static inline void toy_dense_grad(const toy *t, const double *theta, const size_t *idx, size_t n,
                           double *g, double *loss)
{
    memset(g, 0, t->dim * sizeof *g);
    for (size_t j = 0; j < n; j++) {
        size_t i = idx[j];
        double m = toy_margin(t, i, theta), d = toy_dloss(m) * t->y[i];
        if (loss)
            *loss += toy_loss(m);
        for (size_t k = 0; k < t->dim; k++)
            g[k] += d * t->x[i * t->dim + k];
    }
}

/* A toy of nseq sequences over nblocks blocks of lengths 1, 2, 3, 1, 2, ...;
 * labels drawn from a planted weight vector, with noise. */
static inline void toy_init(toy *t, size_t nseq, size_t nblocks, double rho1, double rho2)
{
    memset(t, 0, sizeof *t);
    t->nseq = nseq;
    t->nblocks = nblocks;
    t->start = malloc((nblocks + 1) * sizeof *t->start);
    t->start[0] = 0;
    for (size_t b = 0; b < nblocks; b++)
        t->start[b + 1] = t->start[b] + 1 + b % 3;
    t->dim = t->start[nblocks];
    t->blk = malloc(nseq * sizeof *t->blk);
    t->nblk = malloc(nseq * sizeof *t->nblk);
    t->x = calloc(nseq * t->dim, sizeof *t->x);
    t->y = malloc(nseq * sizeof *t->y);
    for (size_t i = 0; i < nseq; i++) {
        size_t nb = 1 + (size_t)(toy_unif() * TOY_MAXB);
        t->nblk[i] = 0;
        for (size_t j = 0; j < nb; j++) {
            uint32_t b = (uint32_t)(toy_unif() * (double)nblocks);
            int dup = 0;
            for (size_t k = 0; k < t->nblk[i]; k++)
                dup |= t->blk[i][k] == b;
            if (!dup)
                t->blk[i][t->nblk[i]++] = b;
        }
        double m = 0;
        for (size_t j = 0; j < t->nblk[i]; j++)
            for (uint64_t k = t->start[t->blk[i][j]]; k < t->start[t->blk[i][j] + 1]; k++) {
                double v = 2 * toy_unif() - 1;
                t->x[i * t->dim + k] = v;
                m += v * (k % 2 ? 1.0 : -0.5);
            }
        t->y[i] = (m > 0) == (toy_unif() < 0.8) ? 1.0 : -1.0;
    }
    crfp_trainset *ts = &t->ts;
    ts->size = sizeof *ts;
    ts->caps = CRFP_TS_SEQUENCE;
    ts->nseq = nseq;
    ts->ntok = nseq;
    ts->dim = t->dim;
    ts->nlabels = 2;
    ts->nblocks = nblocks;
    ts->block_start = t->start;
    ts->rho1 = rho1;
    ts->rho2 = rho2;
    ts->ud = t;
    ts->ws_new = toy_ws_new;
    ts->ws_free = toy_ws_free;
    ts->seq_blocks = toy_seq_blocks;
    ts->seq_grad_sparse = toy_seq_grad_sparse;
}

static inline void toy_free(toy *t)
{
    free(t->start);
    free(t->blk);
    free(t->nblk);
    free(t->x);
    free(t->y);
}

#endif
