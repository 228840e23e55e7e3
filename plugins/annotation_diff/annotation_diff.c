/* annotation_diff — two annotation sets compared as GATE's AnnotationDiff
 * and Corpus QA compare them: the gold ("key", GATE keeps it in the set
 * Key) against a system's output ("response", the default set), over the
 * whole stream of documents, by type.  No token is needed: annotations
 * are matched by their offsets, so a tagger is scored against GATE's gold
 * whatever tokenizer made its spans.
 *
 * A writer of format "diff": the report goes to the output at the end.
 * The annotations compared are those of the `types` in each set
 * (`key-types` and `response-types` when the sets differ); an annotation's
 * label is its type, or its `feature` when that is given (`key-feature`,
 * `response-feature` per set): GATE's Person and Location in Key against
 * the tagger's Entity spans by their `label`.  Within a document, a key
 * and a response of one label are
 *   correct   when they cover the same offsets (strict match),
 *   partial   when they overlap otherwise;
 * each annotation is matched once: first every coextensive pair, then
 * overlapping pairs in text order.  A key left unmatched is missing, a
 * response spurious.  Precision and recall are reported strict (partial
 * matches count as wrong), lenient (as right) and their average, with F1,
 * per label and over all of them (micro-averaged), as GATE reports them.
 *
 * With `confidence` (a feature of the responses, e.g. the `prob` that
 * crfpipe tag --posteriors gives each span), the report ends with the
 * strict precision and recall of the responses at or above each of 20
 * thresholds: the curve to choose a confidence cut on (development data).
 * The matching is made once, over all responses; keys are all counted.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

#include "../common/columns.h"

static const crfp_param_spec params[] = {
    {"types", CRFP_PARAM_STRING, "",
     "comma-separated annotation types compared in both sets, e.g. Person,Location"},
    {"key-types", CRFP_PARAM_STRING, "", "the key set's types, when they differ (default: types)"},
    {"response-types", CRFP_PARAM_STRING, "",
     "the response set's types, when they differ (default: types)"},
    {"key-set", CRFP_PARAM_STRING, "Key", "annotation set holding the gold (GATE's Key)"},
    {"response-set", CRFP_PARAM_STRING, "", "annotation set holding the output compared"},
    {"feature", CRFP_PARAM_STRING, "",
     "compare annotations by this feature's value (e.g. label, type) instead of their type"},
    {"key-feature", CRFP_PARAM_STRING, "", "the key set's feature, when it differs"},
    {"response-feature", CRFP_PARAM_STRING, "", "the response set's feature, when it differs"},
    {"confidence", CRFP_PARAM_STRING, "",
     "a response feature holding its confidence (e.g. prob, from tag --posteriors): adds "
     "strict precision and recall at 20 thresholds"},
};

#define NTHRESH 20   /* thresholds 0, 0.05, ..., 0.95 */

/* What is compared on one side: a set, its types, the feature naming the
 * label (empty: the type). */
typedef struct side {
    char *set, *feature;
    char **types;
    size_t ntypes;
} side;

typedef struct counts {
    char *label;
    size_t correct, partial, missing, spurious;
} counts;

typedef struct diff {
    crfp_host *host;
    crfp_stream *out;
    side key, resp;
    counts *by;       /* per label, in order of first appearance */
    size_t nby, capby;
    size_t ndocs;
    char *conf;       /* confidence feature, NULL when none */
    size_t keys, kept[NTHRESH], right[NTHRESH];  /* the curve's counts */
} diff;

static void side_free(side *x)
{
    for (size_t i = 0; i < x->ntypes; i++)
        free(x->types[i]);
    free(x->types);
    free(x->set);
    free(x->feature);
}

static void df_close(void *state)
{
    diff *d = state;
    if (!d)
        return;
    side_free(&d->key);
    side_free(&d->resp);
    free(d->conf);
    for (size_t i = 0; i < d->nby; i++)
        free(d->by[i].label);
    free(d->by);
    free(d);
}

/* One side from its parameters (PREFIX-types over types, likewise the
 * feature).  -1 when out of memory, 1 when it has no type. */
static int side_init(side *x, const crfp_params *p, const char *prefix)
{
    char name[32];
    snprintf(name, sizeof name, "%s-types", prefix);
    const char *types = crfp_params_str(p, name);
    if (!*types)
        types = crfp_params_str(p, "types");
    snprintf(name, sizeof name, "%s-feature", prefix);
    const char *feat = crfp_params_str(p, name);
    if (!*feat)
        feat = crfp_params_str(p, "feature");
    snprintf(name, sizeof name, "%s-set", prefix);
    if (!(x->set = strdup(crfp_params_str(p, name))) || !(x->feature = strdup(feat)))
        return -1;
    if (columns_split(types, &x->types, &x->ntypes) != 0)
        return -1;
    return x->ntypes == 0;
}

static int same_side(const side *a, const side *b)
{
    if (strcmp(a->set, b->set) != 0 || strcmp(a->feature, b->feature) != 0 ||
        a->ntypes != b->ntypes)
        return 0;
    for (size_t i = 0; i < a->ntypes; i++)
        if (strcmp(a->types[i], b->types[i]) != 0)
            return 0;
    return 1;
}

static crfp_status df_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    diff *d = calloc(1, sizeof *d);
    if (!d)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    d->host = host;
    d->out = out;
    int rk = side_init(&d->key, p, "key"), rr = rk < 0 ? -1 : side_init(&d->resp, p, "response");
    if (rk < 0 || rr < 0) {
        df_close(d);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    if (rk || rr) {
        df_close(d);
        return crfp_error(host, CRFP_EINVAL, "annotation_diff: no annotation type to compare in "
                          "the %s set: give types (e.g. Person,Location), or key-types and "
                          "response-types", rk ? "key" : "response");
    }
    const char *conf = crfp_params_str(p, "confidence");
    if (*conf && !(d->conf = strdup(conf))) {
        df_close(d);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    if (same_side(&d->key, &d->resp)) {
        df_close(d);
        return crfp_error(host, CRFP_EINVAL, "annotation_diff: the key and the response are "
                          "the same annotations of set '%s': each would match itself",
                          crfp_params_str(p, "key-set"));
    }
    *state = d;
    return CRFP_OK;
}

/* One annotation compared: its span and label, whether it is matched (and
 * strictly), and a response's confidence. */
typedef struct item {
    size_t start, end;
    const char *label;
    int matched, strict;
    double conf;
    const crfp_ann *ann;
} item;

static int by_span(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return strcmp(x->label, y->label);
}

/* The counts of a label, added when first seen; NULL when out of memory. */
static counts *counts_of(diff *d, const char *label)
{
    for (size_t i = 0; i < d->nby; i++)
        if (strcmp(d->by[i].label, label) == 0)
            return &d->by[i];
    if (d->nby == d->capby) {
        size_t nc = d->capby ? 2 * d->capby : 16;
        counts *nb = realloc(d->by, nc * sizeof *nb);
        if (!nb)
            return NULL;
        d->by = nb;
        d->capby = nc;
    }
    counts *c = &d->by[d->nby];
    memset(c, 0, sizeof *c);
    if (!(c->label = strdup(label)))
        return NULL;
    d->nby++;
    return c;
}

/* The annotations of the compared types in set `name`, sorted; a
 * missing set has none.  An annotation without the feature compared gets
 * the label "" (it matches nothing of another label). */
static crfp_status collect(diff *d, crfp_doc *doc, const side *x, item **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    crfp_annset *set = crfp_doc_annset(doc, x->set, 0);
    size_t len = crfp_doc_length(doc);
    for (size_t k = 0; set && k < x->ntypes; k++) {
        crfp_ann **a = NULL;
        size_t na = 0;
        if (crfp_annset_select(set, x->types[k], 0, len, &a, &na) != CRFP_OK)
            return crfp_error(d->host, CRFP_ENOMEM, "out of memory");
        if (na == 0)
            continue;
        item *ni = realloc(*out, (*n + na) * sizeof *ni);
        if (!ni) {
            free(a);
            return crfp_error(d->host, CRFP_ENOMEM, "out of memory");
        }
        *out = ni;
        for (size_t i = 0; i < na; i++) {
            const char *l = *x->feature ? crfp_ann_str(a[i], x->feature) : a[i]->type;
            ni[(*n)++] = (item){a[i]->start, a[i]->end, l ? l : "", 0, 0, 1.0, a[i]};
        }
        free(a);
    }
    if (*n)
        qsort(*out, *n, sizeof **out, by_span);
    return CRFP_OK;
}

/* A response's confidence into the curve's counts; one without it, or
 * with a value that is not a number in [0, 1], is an error naming it. */
static crfp_status add_confidence(diff *d, const crfp_doc *doc, const item *r)
{
    const crfp_value *v = crfp_ann_get(r->ann, d->conf);
    double c = -1.0;
    char *end = NULL;
    if (v && v->type == CRFP_V_STRING) {
        c = strtod(v->u.s, &end);
        if (end == v->u.s || *end)
            c = -1.0;
    } else if (v && v->type == CRFP_V_FLOAT) {
        c = v->u.f;
    } else if (v && v->type == CRFP_V_INT) {
        c = (double)v->u.i;
    }
    if (!(c >= 0.0 && c <= 1.0))
        return crfp_error(d->host, CRFP_EINVAL, "annotation_diff: document '%s': %s at %zu..%zu "
                          "has %s '%s' feature in [0, 1] (tag with --posteriors for a span's "
                          "prob)", crfp_doc_id(doc) ? crfp_doc_id(doc) : "", r->ann->type,
                          r->start, r->end, v ? "no number for its" : "no", d->conf);
    for (int k = 0; k < NTHRESH && c >= k / (double)NTHRESH - 1e-12; k++) {
        d->kept[k]++;
        d->right[k] += r->strict != 0;
    }
    return CRFP_OK;
}

static int by_label_span(const void *a, const void *b)
{
    const item *x = *(const item *const *)a, *y = *(const item *const *)b;
    int c = strcmp(x->label, y->label);
    if (c)
        return c;
    return x->start != y->start ? (x->start < y->start ? -1 : 1)
                                : x->end != y->end ? (x->end < y->end ? -1 : 1) : 0;
}

/* Partial matches: each key left, in text order, takes the first response
 * left of its label that overlaps it.  Keys and responses are sorted by
 * label, then start; one index h walks the responses once.  A response
 * passed is matched, of an earlier label, or ends before the key being
 * matched starts (so before every later key of its label, which starts no
 * earlier); the first one not passed then overlaps the key if any does.
 * Nested or piled-up spans so cost linear time, not the product of their
 * counts. */
static crfp_status match_partial(diff *d, item *key, size_t nk, item *resp, size_t nr)
{
    item **ks = malloc((nk + 1) * sizeof *ks), **rs = malloc((nr + 1) * sizeof *rs);
    size_t nks = 0, nrs = 0, h = 0;
    crfp_status st = CRFP_OK;
    if (!ks || !rs) {
        st = crfp_error(d->host, CRFP_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nk; i++)
        if (!key[i].matched)
            ks[nks++] = &key[i];
    for (size_t j = 0; j < nr; j++)
        if (!resp[j].matched)
            rs[nrs++] = &resp[j];
    if (nks > 1)
        qsort(ks, nks, sizeof *ks, by_label_span);
    if (nrs > 1)
        qsort(rs, nrs, sizeof *rs, by_label_span);
    for (size_t i = 0; i < nks; i++) {
        item *k = ks[i];
        int c;
        while (h < nrs && ((c = strcmp(rs[h]->label, k->label)) < 0 ||
                           (c == 0 && rs[h]->end <= k->start)))
            h++;
        if (h == nrs || strcmp(rs[h]->label, k->label) != 0 || rs[h]->start >= k->end)
            continue;
        counts *ct = counts_of(d, k->label);
        if (!ct) {
            st = crfp_error(d->host, CRFP_ENOMEM, "out of memory");
            break;
        }
        ct->partial++;
        k->matched = rs[h++]->matched = 1;
    }
out:
    free(ks);
    free(rs);
    return st;
}

static crfp_status df_write(void *state, const crfp_doc *cdoc)
{
    diff *d = state;
    crfp_doc *doc = (crfp_doc *)cdoc;   /* only read */
    item *key = NULL, *resp = NULL;
    size_t nk = 0, nr = 0;
    crfp_status st = collect(d, doc, &d->key, &key, &nk);
    if (st == CRFP_OK)
        st = collect(d, doc, &d->resp, &resp, &nr);
    d->ndocs++;
    /* strict: coextensive pairs of one label, by a merge of the sorted lists */
    for (size_t i = 0, j = 0; st == CRFP_OK && i < nk && j < nr;) {
        int c = by_span(&key[i], &resp[j]);
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            counts *ct = counts_of(d, key[i].label);
            if (!ct)
                st = crfp_error(d->host, CRFP_ENOMEM, "out of memory");
            else
                ct->correct++;
            resp[j].strict = 1;
            key[i++].matched = resp[j++].matched = 1;
        }
    }
    if (st == CRFP_OK)
        st = match_partial(d, key, nk, resp, nr);
    for (size_t i = 0; st == CRFP_OK && i < nk; i++)
        if (!key[i].matched) {
            counts *ct = counts_of(d, key[i].label);
            if (!ct)
                st = crfp_error(d->host, CRFP_ENOMEM, "out of memory");
            else
                ct->missing++;
        }
    d->keys += nk;
    for (size_t j = 0; st == CRFP_OK && d->conf && j < nr; j++)
        st = add_confidence(d, doc, &resp[j]);
    for (size_t j = 0; st == CRFP_OK && j < nr; j++)
        if (!resp[j].matched) {
            counts *ct = counts_of(d, resp[j].label);
            if (!ct)
                st = crfp_error(d->host, CRFP_ENOMEM, "out of memory");
            else
                ct->spurious++;
        }
    free(key);
    free(resp);
    return st;
}

static double ratio(double a, double b)
{
    return b > 0 ? 100.0 * a / b : 0.0;
}

static double f1(double p, double r)
{
    return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

static void row(FILE *f, const char *label, const counts *c)
{
    double cs = (double)c->correct, pa = (double)c->partial;
    double resp = cs + pa + (double)c->spurious, key = cs + pa + (double)c->missing;
    double ps = ratio(cs, resp), rs = ratio(cs, key);
    double pl = ratio(cs + pa, resp), rl = ratio(cs + pa, key);
    fprintf(f, "%-16s %7zu %7zu %7zu %8zu   %6.2f %6.2f %6.2f   %6.2f %6.2f %6.2f   %6.2f %6.2f %6.2f\n",
            label, c->correct, c->partial, c->missing, c->spurious, ps, rs, f1(ps, rs), pl, rl,
            f1(pl, rl), (ps + pl) / 2, (rs + rl) / 2, (f1(ps, rs) + f1(pl, rl)) / 2);
}

static int by_label(const void *a, const void *b)
{
    return strcmp(((const counts *)a)->label, ((const counts *)b)->label);
}

static crfp_status df_finish(void *state)
{
    diff *d = state;
    FILE *f = d->out->fp;
    if (d->nby > 1)   /* (never a NULL base, even for none) */
        qsort(d->by, d->nby, sizeof *d->by, by_label);
    counts all = {(char *)"overall", 0, 0, 0, 0};
    for (size_t i = 0; i < d->nby; i++) {
        all.correct += d->by[i].correct;
        all.partial += d->by[i].partial;
        all.missing += d->by[i].missing;
        all.spurious += d->by[i].spurious;
    }
    fprintf(f, "annotation diff: key set '%s', response set '%s', %zu document%s\n", d->key.set,
            d->resp.set, d->ndocs, d->ndocs == 1 ? "" : "s");
    fprintf(f, "%-16s %7s %7s %7s %8s   %-20s   %-20s   %s\n", "", "", "", "", "", "strict",
            "lenient", "average");
    fprintf(f, "%-16s %7s %7s %7s %8s   %6s %6s %6s   %6s %6s %6s   %6s %6s %6s\n", "label",
            "correct", "partial", "missing", "spurious", "P", "R", "F1", "P", "R", "F1", "P", "R",
            "F1");
    for (size_t i = 0; i < d->nby; i++)
        row(f, *d->by[i].label ? d->by[i].label : "(no label)", &d->by[i]);
    row(f, "overall", &all);
    if (d->conf) {
        fprintf(f, "\nstrict precision and recall of the responses with %s >= threshold (%zu "
                "keys):\n%9s %9s %8s %7s %7s %7s\n", d->conf, d->keys, "threshold", "responses",
                "correct", "P", "R", "F1");
        for (int k = 0; k < NTHRESH; k++) {
            double p = ratio((double)d->right[k], (double)d->kept[k]);
            double r = ratio((double)d->right[k], (double)d->keys);
            fprintf(f, "%9.2f %9zu %8zu %7.2f %7.2f %7.2f\n", k / (double)NTHRESH, d->kept[k],
                    d->right[k], p, r, f1(p, r));
        }
    }
    if (fflush(f) != 0 || ferror(f))
        return crfp_error(d->host, CRFP_EIO, "%s: write error", d->out->name);
    return CRFP_OK;
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = df_open,
    .write = df_write,
    .finish = df_finish,
    .close = df_close,
};

static const char *const formats[] = {"diff", NULL};

CRFP_PLUGIN_DEFINE(annotation_diff) = {
    CRFP_PLUGIN_ABI,
    .name = "annotation_diff",
    .kind = CRFP_KIND_WRITER,
    .version = "1.0",
    .description = "two annotation sets compared as GATE's AnnotationDiff: correct, partial, "
                   "missing, spurious; strict, lenient and average precision, recall and F1",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
};
