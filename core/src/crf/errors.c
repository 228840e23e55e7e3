/* crfpipe — Viterbi error counts over a labelled dataset, split over
 * threads like the objective (a dev-set evaluation per training iteration). */
#include <pthread.h>
#include <stdlib.h>
#include "infer.h"
#include "partition.h"

typedef struct errjob {
    const crfp_crf *crf;
    const crfp_dataset *ds;
    const double *theta;
    size_t s0, s1;
    size_t tok, seq;
    crfp_status st;
} errjob;

static void *err_main(void *arg)
{
    errjob *j = arg;
    crfp_infer *w = crfp_infer_new(j->crf);
    uint32_t *y = NULL;
    size_t ycap = 0;
    j->st = w ? CRFP_OK : CRFP_ENOMEM;
    if (w)
        crfp_infer_epoch(w);
    for (size_t i = j->s0; i < j->s1 && j->st == CRFP_OK; i++) {
        const crfp_seq *seq = crfp_dataset_get(j->ds, i);
        if (seq->T > ycap) {
            uint32_t *ny = realloc(y, (size_t)seq->T * sizeof *ny);
            if (!ny) {
                j->st = CRFP_ENOMEM;
                break;
            }
            y = ny;
            ycap = seq->T;
        }
        j->st = crfp_viterbi_run(w, seq, j->theta, y, NULL);
        if (j->st != CRFP_OK)
            break;
        size_t e = 0;
        for (uint32_t t = 0; t < seq->T; t++)
            e += y[t] != seq->y[t];
        j->tok += e;
        j->seq += e != 0;
    }
    free(y);
    crfp_infer_free(w);
    return NULL;
}

crfp_status crfp_crf_errors(const crfp_crf *crf, const crfp_dataset *ds, const double *theta,
                            int nthreads, size_t *tok_err, size_t *seq_err)
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
    int n = nthreads > 0 ? nthreads : crfp_ncpus();
    if ((size_t)n > crfp_dataset_size(ds))
        n = crfp_dataset_size(ds) ? (int)crfp_dataset_size(ds) : 1;
    errjob *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    size_t *cut = malloc(((size_t)n + 1) * sizeof *cut);
    if (!jobs || !th || !cut) {
        free(jobs);
        free(th);
        free(cut);
        return CRFP_ENOMEM;
    }
    crfp_partition(ds, n, cut);
    int started = 0;
    crfp_status st = CRFP_OK;
    for (int i = 0; i < n; i++) {
        jobs[i] = (errjob){crf, ds, theta, cut[i], cut[i + 1], 0, 0, CRFP_OK};
        if (i > 0) {
            if (pthread_create(&th[i], NULL, err_main, &jobs[i]) != 0) {
                st = CRFP_ENOMEM;
                break;
            }
            started = i;
        }
    }
    if (st == CRFP_OK)
        err_main(&jobs[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < n && st == CRFP_OK; i++) {
        if (jobs[i].st != CRFP_OK)
            st = jobs[i].st;
        *tok_err += jobs[i].tok;
        *seq_err += jobs[i].seq;
    }
    free(jobs);
    free(th);
    free(cut);
    return st;
}
