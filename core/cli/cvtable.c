/* The table of a cross-validation: one row per fold, then the mean of each
 * column and the standard error of the error rates over the folds, the
 * figure to compare two settings by (cvtable.h). */
#include "config.h"
#include "cvtable.h"
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cli_cv_table {
    crfp_host *host;
    char *path;
    crfp_train_fold *folds;
    size_t n, cap;
    int nomem;
    cli_output out; /* opened before training, written at the end */
    int opened;
};

static void observe_fold(void *ud, const crfp_train_fold *f)
{
    cli_cv_table *t = ud;
    static const crfp_train_fold zero;
    if (!cli_append_observed((void **)&t->folds, &t->n, &t->cap, sizeof *t->folds, &zero, f,
                             f->size))
        t->nomem = 1; /* an observer may not report errors: finish does */
}

cli_cv_table *cli_cv_table_start(crfp_host *host, const char *path)
{
    cli_cv_table *t = calloc(1, sizeof *t);
    if (!t || (path && !(t->path = strdup(path)))) {
        free(t);
        crfp_error(host, CRFP_ENOMEM, "out of memory");
        return NULL;
    }
    t->host = host;
    /* opened now, so that an -o that cannot be written fails before the
     * folds train rather than after them (the file appears at the end) */
    /* rank 0 alone would write (cross-validation refuses MPI jobs anyway) */
    crfp_status st = crfp_dist_rank() == 0 ? cli_output_open(host, &t->out, t->path) : CRFP_OK;
    if (st != CRFP_OK) {
        if (t->path)
            crfp_error_wrap(host, st, "-o");
        free(t->path);
        free(t);
        return NULL;
    }
    t->opened = crfp_dist_rank() == 0;
    crfp_host_set_fold_observer(host, observe_fold, t);
    return t;
}

static double rate(size_t errors, size_t of)
{
    return of ? 100.0 * (double)errors / (double)of : NAN;
}

static crfp_status write_table(cli_cv_table *t)
{
    FILE *f = t->out.stream.fp;
    fprintf(f, "fold\ttrain_sentences\theldout_sentences\theldout_tokens\titerations\tactive\t"
               "token_error_pct\tseq_error_pct\tchunk_precision\tchunk_recall\tchunk_f1\t"
               "seconds\tcpu_seconds\n");
    /* the means of iterations, active, the two error rates, the three chunk
     * figures, seconds, CPU seconds; the squares of the rates and of F1 */
    enum { NV = 9 };
    double sum[NV] = {0}, sq[3] = {0};
    for (size_t i = 0; i < t->n; i++) {
        const crfp_train_fold *d = &t->folds[i];
        double te = rate(d->token_errors, d->heldout_tokens),
               se = rate(d->seq_errors, d->heldout_seqs), p = NAN, r = NAN, f1 = NAN;
        if (d->chunked) {
            /* conlleval's figures: 0 where nothing was found or expected */
            p = d->chunks_guessed ? rate(d->chunks_correct, d->chunks_guessed) : 0;
            r = d->chunks_gold ? rate(d->chunks_correct, d->chunks_gold) : 0;
            f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
        }
        fprintf(f, "%zu\t%zu\t%zu\t%zu\t%d\t%zu\t%.3f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f%s\n",
                d->index + 1, d->train_seqs, d->heldout_seqs, d->heldout_tokens, d->iterations,
                d->active, te, se, p, r, f1, d->seconds, d->cpu_seconds,
                d->interrupted ? "\t(interrupted)" : "");
        double v[NV] = {(double)d->iterations, (double)d->active, te, se, p, r, f1, d->seconds,
                        d->cpu_seconds};
        for (int k = 0; k < NV; k++)
            sum[k] += v[k];
        sq[0] += te * te;
        sq[1] += se * se;
        sq[2] += f1 * f1;
    }
    if (t->n) {
        double n = (double)t->n, m[NV];
        for (int k = 0; k < NV; k++)
            m[k] = sum[k] / n;
        fprintf(f, "mean\t\t\t\t%.1f\t%.0f\t%.3f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", m[0],
                m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
        /* the standard error of the mean over the folds: how far two
         * settings' means must lie apart to tell them apart */
        double se[3];
        const double *mean_of[3] = {&m[2], &m[3], &m[6]};
        for (int k = 0; k < 3; k++) {
            double var = t->n > 1 ? (sq[k] - n * *mean_of[k] * *mean_of[k]) / (n - 1) : NAN;
            se[k] = isnan(*mean_of[k]) ? NAN : sqrt((var > 0 ? var : 0) / n);
        }
        fprintf(f, "stderr\t\t\t\t\t\t%.3f\t%.2f\t\t\t%.2f\t\t\n", se[0], se[1], se[2]);
    }
    /* a write error (a full disk) is found, and the file removed, here */
    t->opened = 0;
    return cli_output_commit(t->host, &t->out);
}

crfp_status cli_cv_table_finish(cli_cv_table *t, int failed)
{
    crfp_host_set_fold_observer(t->host, NULL, NULL);
    crfp_status st = CRFP_OK;
    if (t->nomem)
        st = crfp_error(t->host, CRFP_ENOMEM, "out of memory recording the folds");
    else if (t->opened && (!failed || t->n > 0))
        st = write_table(t);
    if (t->opened)
        cli_output_abort(&t->out);
    free(t->folds);
    free(t->path);
    free(t);
    return st;
}
