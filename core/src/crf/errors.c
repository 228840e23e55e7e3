/* crfpipe — Viterbi error counts over a labelled dataset, on the host's
 * thread team (a dev-set evaluation per training iteration). */
#include <stdlib.h>
#include "infer.h"
#include "partition.h"

typedef struct errjob {
    const crfp_crf *crf;
    const crfp_dataset *ds;
    const double *theta;
    const size_t *cut;
    size_t *tok, *seq;  /* per member */
    crfp_status *st;    /* per member */
} errjob;

static void err_member(void *arg, int id, int n)
{
    (void)n;
    errjob *j = arg;
    crfp_infer *w = crfp_infer_new(j->crf);
    uint32_t *y = NULL;
    size_t ycap = 0, tok = 0, nseq = 0;
    crfp_status st = w ? CRFP_OK : CRFP_ENOMEM;
    if (w)
        crfp_infer_epoch(w);
    for (size_t i = j->cut[id]; i < j->cut[id + 1] && st == CRFP_OK; i++) {
        const crfp_seq *seq = crfp_dataset_get(j->ds, i);
        if (seq->T > ycap) {
            uint32_t *ny = realloc(y, (size_t)seq->T * sizeof *ny);
            if (!ny) {
                st = CRFP_ENOMEM;
                break;
            }
            y = ny;
            ycap = seq->T;
        }
        if ((st = crfp_viterbi_run(w, seq, j->theta, y, NULL)) != CRFP_OK)
            break;
        size_t e = 0;
        for (uint32_t t = 0; t < seq->T; t++)
            e += y[t] != seq->y[t];
        tok += e;
        nseq += e != 0;
    }
    free(y);
    crfp_infer_free(w);
    j->tok[id] = tok;
    j->seq[id] = nseq;
    j->st[id] = st;
}

crfp_status crfp_crf_errors(const crfp_crf *crf, const crfp_dataset *ds, const double *theta,
                            crfp_team *team, size_t *tok_err, size_t *seq_err)
{
    if (!crf || !ds || !theta || !tok_err || !seq_err)
        return CRFP_EINVAL;
    *tok_err = *seq_err = 0;
    for (size_t i = 0; i < crfp_dataset_size(ds); i++) {
        const crfp_seq *seq = crfp_dataset_get(ds, i);
        if (!seq->y && seq->T)
            return CRFP_EINVAL;
        crfp_status st = crfp_seq_check(NULL, crf, seq);
        if (st != CRFP_OK)
            return st;
    }
    int n = crfp_team_size(team);
    size_t *cut = malloc(((size_t)n + 1) * sizeof *cut);
    size_t *tok = calloc((size_t)n, sizeof *tok), *nseq = calloc((size_t)n, sizeof *nseq);
    crfp_status *sts = calloc((size_t)n, sizeof *sts);
    crfp_status st = CRFP_OK;
    if (!cut || !tok || !nseq || !sts) {
        st = CRFP_ENOMEM;
    } else {
        crfp_partition(ds, n, cut);
        errjob j = {crf, ds, theta, cut, tok, nseq, sts};
        crfp_team_run(team, err_member, &j);
        for (int i = 0; i < n; i++) {
            if (sts[i] != CRFP_OK && st == CRFP_OK)
                st = sts[i];
            *tok_err += tok[i];
            *seq_err += nseq[i];
        }
    }
    free(cut);
    free(tok);
    free(nseq);
    free(sts);
    return st;
}
