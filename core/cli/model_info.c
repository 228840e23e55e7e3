/* crfpipe model info — what a model is, without its weights.
 *
 * The dump's header (labels, features plugin and template, metadata), then
 * what sizes the model: observations and parameters of each kind, the
 * non-zero weights in all and per label, and the weights' range and norms
 * (the ℓ1 norm is what an elastic-net penalty charged; a model whose largest
 * weight is in the hundreds was barely regularised).  One fact per line,
 * tab-separated, so that scripts can pick lines with grep or awk.
 */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct tally {
    size_t active[2];       /* unigram, bigram */
    size_t *per_label;      /* 2 per label: unigram, bigram */
    double min, max, l1, l2;
} tally;

static int count(void *ud, const crfp_crf_weight *w)
{
    tally *t = ud;
    t->active[w->bigram]++;
    t->per_label[2 * (size_t)w->label + (size_t)w->bigram]++;
    if (t->active[0] + t->active[1] == 1 || w->value < t->min)
        t->min = w->value;
    if (t->active[0] + t->active[1] == 1 || w->value > t->max)
        t->max = w->value;
    t->l1 += fabs(w->value);
    t->l2 += w->value * w->value;
    return 0;
}

int cli_model_info(crfp_host *host, int argc, char **argv)
{
    const char *out = NULL, *path = NULL;
    /* argv[0] is "model", argv[1] "info" */
    for (int i = 2; i < argc; i++) {
        int r = cli_model_arg(host, argc, argv, &i, &out, &path);
        if (r >= 0)
            return r;
    }
    if (!path)
        return cli_usage(argv[0], "usage: crfpipe model info [-o OUT] MODEL");

    cli_output o;
    crfp_crf *crf;
    if (cli_model_open(host, out, path, &o, &crf) != CRFP_OK)
        return cli_fail(host);
    uint32_t Y = crfp_crf_nlabels(crf), nobs = crfp_crf_nobs(crf);
    tally t = {{0, 0}, calloc(2 * (size_t)Y + 2, sizeof(size_t)), 0, 0, 0, 0};
    crfp_status st = t.per_label ? CRFP_OK : crfp_error(host, CRFP_ENOMEM, "out of memory");
    if (st == CRFP_OK)
        st = crfp_crf_dump_header(host, crf, o.stream.fp);
    if (st == CRFP_OK) {
        FILE *f = o.stream.fp;
        size_t ublocks = 0, bblocks = 0;
        for (uint32_t ob = 0; ob < nobs; ob++) {
            ublocks += crfp_crf_ublock(crf, ob) != CRFP_NO_BLOCK;
            bblocks += crfp_crf_bblock(crf, ob) != CRFP_NO_BLOCK;
        }
        crfp_crf_foreach_weight(crf, count, &t);
        struct stat sb;
        if (stat(path, &sb) == 0)
            fprintf(f, "file-bytes\t%lld\n", (long long)sb.st_size);
        fprintf(f, "observations\t%u\n", nobs);
        fprintf(f, "observations-unigram\t%zu\n", ublocks);
        fprintf(f, "observations-bigram\t%zu\n", bblocks);
        size_t bsize = (size_t)(Y + 1) * Y;
        fprintf(f, "parameters\t%zu\n", crfp_crf_nparams(crf));
        fprintf(f, "parameters-unigram\t%zu\n", ublocks * Y);
        fprintf(f, "parameters-bigram\t%zu\n", bblocks * bsize);
        fprintf(f, "active\t%zu\n", t.active[0] + t.active[1]);
        fprintf(f, "active-unigram\t%zu\n", t.active[0]);
        fprintf(f, "active-bigram\t%zu\n", t.active[1]);
        /* per label id (the `label` lines above name them): the non-zero
         * unigram weights μ(y,·) and bigram weights λ(·,y,·) into it */
        for (uint32_t y = 0; y < Y; y++)
            fprintf(f, "active-label\t%u\t%zu\t%zu\n", y, t.per_label[2 * (size_t)y],
                    t.per_label[2 * (size_t)y + 1]);
        if (t.active[0] + t.active[1]) {
            fprintf(f, "weight-min\t%.17g\n", t.min);
            fprintf(f, "weight-max\t%.17g\n", t.max);
            fprintf(f, "weight-l1\t%.17g\n", t.l1);
            fprintf(f, "weight-l2\t%.17g\n", sqrt(t.l2));
        }
        st = cli_output_commit(host, &o);
    } else {
        cli_output_abort(&o);
    }
    free(t.per_label);
    crfp_crf_free(crf);
    return st == CRFP_OK ? CLI_OK : cli_fail(host);
}
