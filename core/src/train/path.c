/* Regularisation paths (the common trainer parameter rho1-path; see
 * trainrun.h and crfp_train_finish in train.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainrun.h"
#include "dist.h"

/* --- regularisation path: the parts checked before any data is read ------ */

enum { PATH_MAX_POINTS = 1000 };

/* The values of rho1-path `spec` ("2,1,0.5"), in the user's order, into
 * *vals (malloc'd, caller frees) and *n >= 1.  Errors: CRFP_EINVAL naming
 * the bad item (not a number, negative, not finite, repeated: two points
 * would write the same model file), CRFP_ENOMEM. */
static crfp_status parse_path(crfp_host *host, const char *spec, double **vals, size_t *n)
{
    size_t cap = 1;
    for (const char *c = spec; *c; c++)
        cap += *c == ',';
    if (cap > PATH_MAX_POINTS)
        return crfp_error(host, CRFP_EINVAL, "rho1-path: %zu values; at most %d", cap,
                          PATH_MAX_POINTS);
    double *v = malloc(cap * sizeof *v);
    if (!v)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    size_t k = 0;
    const char *p = spec;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[64], *stop;
        if (len == 0 || len >= sizeof item) {
            free(v);
            return crfp_error(host, CRFP_EINVAL, "rho1-path '%s': %s", spec,
                              len ? "a value is too long" : "an empty value (write e.g. "
                              "2,1,0.5,0.25,0.1)");
        }
        memcpy(item, p, len);
        item[len] = '\0';
        errno = 0;
        double x = strtod(item, &stop);
        if (stop == item || *stop || errno == ERANGE || !isfinite(x) || x < 0) {
            free(v);
            return crfp_error(host, CRFP_EINVAL, "rho1-path '%s': '%s' is not a finite l1 "
                              "weight >= 0", spec, item);
        }
        /* Model names are written with %g: values that print alike
         * would overwrite each other's file. */
        char a[32], b[32];
        snprintf(a, sizeof a, "%g", x);
        for (size_t j = 0; j < k; j++) {
            snprintf(b, sizeof b, "%g", v[j]);
            if (strcmp(a, b) == 0) {
                free(v);
                return crfp_error(host, CRFP_EINVAL, "rho1-path '%s': %s appears twice", spec,
                                  a);
            }
        }
        v[k++] = x;
        if (!end)
            break;
        p = end + 1;
    }
    *vals = v;
    *n = k;
    return CRFP_OK;
}

/* The model file of path point rho1: MODEL.rho1-V, V printed with %g.
 * malloc'd; NULL when out of memory. */
static char *point_model(const char *model, double rho1)
{
    size_t len = strlen(model) + 48;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s.rho1-%g", model, rho1);
    return s;
}

/* Whether a path can run with these stages, before any data is read. */
crfp_status crfp_train_check_path(crfp_host *host, const crfp_train_stage *stages, size_t n,
                              const char *spec)
{
    const crfp_plugin_descriptor *d = stages[0].plugin->desc;
    if (n > 1)
        return crfp_error(host, CRFP_EINVAL, "rho1-path: a regularisation path trains one "
                          "trainer, not a chain (%s, %s...): the shrinking between stages "
                          "would freeze the features a smaller rho1 needs",
                          d->name, stages[1].plugin->desc->name);
    /* The trainer says whether it handles l1: rho1 is a parameter every
     * trainer receives, so its declaration alone cannot tell. */
    if (!(d->flags & CRFP_PLUGIN_TRAINER_L1))
        return crfp_error(host, CRFP_EINVAL, "rho1-path: trainer '%s' does not support the l1 "
                          "penalty (it does not declare it); a regularisation path needs a "
                          "trainer that does (crfpipe plugins --kind trainer; crfpipe plugins "
                          "NAME says \"l1: yes\")", d->name);
    const crfp_params *sp = stages[0].params;
    if (crfp_params_isset(sp, "rho1"))
        return crfp_error(host, CRFP_EINVAL, "rho1 and rho1-path exclude each other: the "
                          "path sets rho1 for each of its points");
    if (crfp_params_isset(sp, "checkpoint") || crfp_params_isset(sp, "resume"))
        return crfp_error(host, CRFP_EINVAL, "checkpoints are not available with rho1-path");
    double *vals;
    size_t nv;
    crfp_status st = parse_path(host, spec, &vals, &nv);
    if (st != CRFP_OK)
        return st;
    const char *model = crfp_params_str(sp, "model");
    for (size_t i = 0; model && i < nv && st == CRFP_OK; i++) {
        char *mp = point_model(model, vals[i]);
        st = mp ? crfp_crf_check_save_path(host, mp) : crfp_error(host, CRFP_ENOMEM,
                                                                   "out of memory");
        if (st != CRFP_OK && mp)
            crfp_error_wrap(host, st, "rho1-path, point rho1 = %g", vals[i]);
        free(mp);
    }
    free(vals);
    return st;
}

/* A copy of `base` (the user's settings only, so that "isset" still means
 * what the user set) with rho1 = `rho1`, in *out (caller frees).  Errors:
 * CRFP_ENOMEM, those of crfp_params_set. */
static crfp_status point_params(crfp_host *host, const crfp_params *base, double rho1,
                                crfp_params **out)
{
    size_t ns;
    const crfp_param_spec *specs = crfp_params_specs(base, &ns);
    crfp_params *p = crfp_params_new(specs, ns);
    if (!p)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    crfp_status st = CRFP_OK;
    const char *name, *value;
    for (size_t i = 0; st == CRFP_OK && crfp_params_iter(base, i, &name, &value); i++)
        if (crfp_params_isset(base, name))
            st = crfp_params_set(host, p, "rho1-path", name, value, NULL);
    char buf[32];
    snprintf(buf, sizeof buf, "%.17g", rho1);
    if (st == CRFP_OK)
        st = crfp_params_set(host, p, "rho1-path", "rho1", buf, NULL);
    if (st != CRFP_OK) {
        crfp_params_free(p);
        return st;
    }
    *out = p;
    return CRFP_OK;
}

/* Token and sentence error rates of the current weights on the dev set
 * (NaN without one).  Collective in a distributed run.  Errors: those of
 * crfp_crf_errors and of the sum over ranks. */
static crfp_status dev_errors(crfp_trainrun *r, double *tok, double *seq)
{
    *tok = *seq = NAN;
    if (r->total[2] == 0)
        return CRFP_OK;
    size_t te = 0, se = 0;
    crfp_status st = crfp_crf_errors(r->crf, r->dev, crfp_crf_weights_const(r->crf), r->team,
                                     &te, &se);
    uint64_t c[2] = {te, se};
    if ((st = crfp_dist_sum_counts(r->host, st, c, 2)) != CRFP_OK)
        return crfp_error(r->host, st, "dev-set evaluation: %s", crfp_errmsg(r->host));
    *tok = (double)c[0] / (double)r->total[3];
    *seq = (double)c[1] / (double)r->total[2];
    return CRFP_OK;
}

/* The regularisation path (Sokolovska et al. 2010, section 7): one
 * training per value of rho1-path, in the order given, each starting from
 * the previous point's weights -- the model's weight vector is simply not
 * reset between points, as a chained trainer continues from its
 * predecessor's.  With decreasing values each point starts from a sparser
 * solution close to its own, which is what makes a path cheap.  Each point
 * is saved to MODEL.rho1-V and reported to the path observer; MODEL gets
 * the point of lowest dev error (the last one without a dev set). */
crfp_status crfp_train_run_path(crfp_trainrun *r, const char *spec, const char *trainers,
                            const struct timespec *tall)
{
    crfp_host *host = r->host;
    double *vals;
    size_t n;
    /* again, for drivers that did not call crfp_train_check_models */
    crfp_status st = crfp_train_check_path(host, r->stages, r->nstages, spec);
    if (st != CRFP_OK || (st = parse_path(host, spec, &vals, &n)) != CRFP_OK)
        return st;
    const crfp_params *base = r->stages[0].params;
    const char *model = crfp_params_str(base, "model");
    double best = INFINITY, stopped = NAN;
    crfp_status tst = CRFP_OK;
    r->npoints = n;
    /* every point trains the same seen label pairs, when asked */
    uint64_t *seen;
    if ((st = crfp_train_seen_mask(r, &seen)) != CRFP_OK) {
        free(vals);
        return st;
    }
    for (size_t i = 0; i < n && tst == CRFP_OK && st == CRFP_OK; i++) {
        crfp_params *pp = NULL;
        char *mp = point_model(model, vals[i]);
        if (!mp) {
            st = crfp_error(host, CRFP_ENOMEM, "out of memory");
            break;
        }
        if ((st = point_params(host, base, vals[i], &pp)) != CRFP_OK) {
            free(mp);
            break;
        }
        r->stages[0].params = pp;
        r->point = i;
        crfp_log(host, CRFP_LOG_INFO, "path point %zu/%zu: rho1 = %g%s", i + 1, n, vals[i],
                 i ? ", warm start from the previous point" : "");
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        double c0 = crfp_train_cpu();
        tst = crfp_train_run_stage(r, 0, seen);
        if (tst == CRFP_EINTR)
            stopped = vals[i];
        double dtok = NAN, dseq = NAN;
        if (tst != CRFP_OK && tst != CRFP_EINTR)
            st = tst;
        else
            st = dev_errors(r, &dtok, &dseq);
        if (st == CRFP_OK)
            st = crfp_train_save(r, mp, trainers);
        /* MODEL: the best point so far on the dev set, else the last. */
        int keep = r->total[2] ? dtok < best : (i + 1 == n || tst == CRFP_EINTR);
        if (st == CRFP_OK && keep) {
            best = dtok;
            st = crfp_train_save(r, model, trainers);
        }
        if (st == CRFP_OK) {
            crfp_train_point pt = {sizeof pt, i, n, vals[i], r->last_iter, r->objective,
                                   crfp_crf_active(r->crf), crfp_crf_nparams(r->crf), dtok,
                                   dseq, crfp_train_elapsed(&t0), crfp_train_cpu() - c0, mp,
                                   tst == CRFP_EINTR};
            char dev[48] = "";
            if (r->total[2])
                snprintf(dev, sizeof dev, ", dev error %.3f%%", 100.0 * dtok);
            crfp_log(host, CRFP_LOG_INFO, "rho1 = %g: %d iterations, %zu active features%s, "
                     "%.1f s (%.1f s CPU)", vals[i], pt.iterations, pt.active, dev, pt.seconds,
                     pt.cpu_seconds);
            crfp_host_observe_point(host, &pt);
        }
        r->stages[0].params = base;
        r->cur = 0;
        crfp_params_free(pp);
        free(mp);
    }
    free(vals);
    free(seen);
    if (st != CRFP_OK)
        return st;
    crfp_dist_report(host, r->train, r->crf);
    crfp_log(host, CRFP_LOG_INFO, "trained: %d iterations in %.1f s, objective %.6e, %zu active "
             "features of %zu", r->total_iter, crfp_train_elapsed(tall), r->objective,
             crfp_crf_active(r->crf), crfp_crf_nparams(r->crf));
    if (tst == CRFP_EINTR)
        return crfp_error(host, CRFP_EINTR, "interrupted at iteration %d of path point "
                          "rho1 = %g; its model and those before it are saved", r->last_iter,
                          stopped);
    return CRFP_OK;
}
