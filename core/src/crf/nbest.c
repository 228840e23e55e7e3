/* crfpipe — exact k-best labellings by list Viterbi: each state keeps its k
 * best partial paths (score, predecessor state, predecessor rank); a state's
 * list is a k-way merge of its predecessors' sorted lists. */
#include <math.h>
#include <stdlib.h>
#include "infer.h"

static crfp_status nb_reserve(crfp_infer *w, size_t T, size_t k)
{
    size_t Y = w->Y;
    if (k > SIZE_MAX / sizeof(double) / Y / (T ? T : 1))
        return CRFP_ENOMEM;
    size_t n = T * Y * k;
    if (n > w->nb_cap) {
        double *s = realloc(w->nb_score, n * sizeof *s);
        if (!s)
            return CRFP_ENOMEM;
        w->nb_score = s;
        uint32_t *p = realloc(w->nb_prev, n * sizeof *p);
        if (!p)
            return CRFP_ENOMEM;
        w->nb_prev = p;
        w->nb_cap = n;
    }
    if (T * Y > w->nb_cnt_cap) {
        uint32_t *c = realloc(w->nb_cnt, T * Y * sizeof *c);
        if (!c)
            return CRFP_ENOMEM;
        w->nb_cnt = c;
        w->nb_cnt_cap = T * Y;
    }
    return CRFP_OK;
}

/* Merge the sorted lists of states 0..Y-1 at position t (plus add[r] when
 * add is not NULL, the transition to the target column) into at most k
 * (score, r·k + rank) pairs.  Ties: lowest predecessor, then lowest rank. */
static uint32_t merge(const crfp_infer *w, size_t t, size_t k, const double *add, size_t stride,
                      double *out_s, uint32_t *out_p)
{
    const uint32_t Y = w->Y;
    uint32_t *head = w->order;
    for (uint32_t r = 0; r < Y; r++)
        head[r] = 0;
    uint32_t n = 0;
    while (n < k) {
        double best = -INFINITY;
        uint32_t arg = UINT32_MAX;
        for (uint32_t r = 0; r < Y; r++) {
            size_t cell = t * Y + r;
            if (head[r] >= w->nb_cnt[cell])
                continue;
            double x = w->nb_score[cell * k + head[r]] + (add ? add[r * stride] : 0.0);
            if (arg == UINT32_MAX || x > best) {
                best = x;
                arg = r;
            }
        }
        if (arg == UINT32_MAX)
            break;
        out_s[n] = best;
        out_p[n] = (uint32_t)(arg * k + head[arg]);
        head[arg]++;
        n++;
    }
    return n;
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
    const size_t YY = (size_t)Y * Y;
    if (k == 0 || Y == 0)
        return CRFP_OK;
    if (T == 0) {
        scores[0] = 0.0;
        *found = 1;
        return CRFP_OK;
    }
    if (k > UINT32_MAX / Y)
        return CRFP_EINVAL;
    crfp_infer_begin(w, theta);
    if (nb_reserve(w, T, k) != CRFP_OK)
        return CRFP_ENOMEM;
    double *s = w->tmp;
    crfp_tview v;
    for (uint32_t t = 0; t < T; t++) {
        crfp_unigram(crf, seq, t, theta, s);
        if (crfp_view_get(w, seq, t, theta, CRFP_VIEW_LOG, &v) != CRFP_OK)
            return CRFP_ENOMEM;
        for (uint32_t c = 0; c < Y; c++) {
            size_t cell = (size_t)t * Y + c;
            double *cs = w->nb_score + cell * k;
            uint32_t *cp = w->nb_prev + cell * k;
            if (t == 0) {
                cs[0] = s[c] + v.L[YY + c];
                cp[0] = UINT32_MAX;
                w->nb_cnt[cell] = 1;
                continue;
            }
            uint32_t n = merge(w, t - 1, k, v.L + c, Y, cs, cp);
            for (uint32_t i = 0; i < n; i++)
                cs[i] += s[c];
            w->nb_cnt[cell] = n;
        }
        crfp_view_release(w, seq, t);
    }
    /* Final merge over the last position, results decoded by backtracking. */
    double *fs = scores;
    uint32_t *fp = malloc(k * sizeof *fp);
    if (!fp)
        return CRFP_ENOMEM;
    uint32_t n = merge(w, T - 1, k, NULL, 0, fs, fp);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t y = fp[j] / (uint32_t)k, rank = fp[j] % (uint32_t)k;
        for (uint32_t t = T; t-- > 0;) {
            out_y[(size_t)j * T + t] = y;
            if (t) {
                uint32_t p = w->nb_prev[((size_t)t * Y + y) * k + rank];
                y = p / (uint32_t)k;
                rank = p % (uint32_t)k;
            }
        }
    }
    free(fp);
    *found = n;
    return CRFP_OK;
}
