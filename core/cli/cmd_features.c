/* crfpipe features — the observations a features plugin extracts, written
 * as data another program trains on, or for a person to read: the feature
 * extraction step of CRFsuite's workflow, done by crfpipe's templates.
 *
 * Each token becomes a line, its label first (the gold, or nothing), and a
 * blank line ends each sentence:
 *  - crfsuite: CRFsuite's data, `crfsuite learn` trains on it and crfpipe
 *    with --features attributes: TAB-separated attributes, "name:value"
 *    when the value is not 1, ':' and '\' in names and labels escaped
 *    ("\:", "\\").
 *    CRFsuite's label pairs carry no attributes: its transitions are a
 *    template's plain "B" (the one bigram observation that is the same at
 *    every token); any other bigram observation cannot be written, and a
 *    warning counts them (--to wapiti keeps them).
 *  - wapiti: Wapiti's data with its observations given (`wapiti train`
 *    without patterns; crfpipe --format wapiti --features attributes
 *    --feature-param bigram=wapiti): space-separated fields, each an
 *    observation after its kind's letter (u unigram, b bigram, * both)
 *    unless it begins with it (Wapiti's own patterns name them so), the
 *    label last.  It has no values and no escapes: an observation with
 *    a value other than 1 or a blank in it is an error naming it.
 * A sentence's weight (its feature `weight`, CRFsuite's @weight:W) goes
 * before its tokens in CRFsuite's data; Wapiti's has none, and a warning
 * counts the weights left out.  The output appears only when complete. */
#include "config.h"
#include "cli.h"
#include "help.h"
#include "progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 32

enum { TO_CRFSUITE, TO_WAPITI };

typedef struct fx {
    crfp_host *host;
    const crfp_features_vtable *fv;
    void *ex;
    crfp_obsseq *obs;
    crfp_sentbuf *sb;
    FILE *out;
    int to;
    const char *label, *set;
    const char *mcolumns;  /* --model: the columns it was trained on (its metadata) */
    const char *wname;     /* the Sentence feature holding its weight ("": none) */
    size_t unweighted;     /* wapiti: sentences whose weight could not be written */
    /* crfsuite: the bigram observations found at every token so far (a
     * template's plain B is one: CRFsuite's transitions), and all of them
     * counted */
    char **plain;
    size_t nplain, nbigram, ntok, nsent;
} fx;

/* A CRFsuite name: ':' and '\' escaped. */
static void put_cs_name(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == ':' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
}

/* The shortest decimal that reads back as v. */
static void put_value(FILE *f, double v)
{
    char buf[32];
    for (int p = 6; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, f);
}

/* The bigram observations of a token, counted, and the plain candidates
 * kept to those it has too (the first token's all are candidates). */
static crfp_status cs_bigrams(fx *x, const char *const *s, const unsigned char *fl, size_t n)
{
    size_t nb = 0;
    for (size_t k = 0; k < n; k++)
        nb += (fl[k] & CRFP_OBS_BIGRAM) != 0;
    x->nbigram += nb;
    if (x->ntok == 0) {
        if (nb && !(x->plain = calloc(nb, sizeof *x->plain)))
            return crfp_error(x->host, CRFP_ENOMEM, "out of memory");
        for (size_t k = 0; k < n; k++)
            if ((fl[k] & CRFP_OBS_BIGRAM) && !(x->plain[x->nplain++] = strdup(s[k])))
                return crfp_error(x->host, CRFP_ENOMEM, "out of memory");
        return CRFP_OK;
    }
    size_t keep = 0;
    for (size_t c = 0; c < x->nplain; c++) {
        size_t k = 0;
        while (k < n && !((fl[k] & CRFP_OBS_BIGRAM) && strcmp(s[k], x->plain[c]) == 0))
            k++;
        if (k < n)
            x->plain[keep++] = x->plain[c];
        else
            free(x->plain[c]);
    }
    x->nplain = keep;
    return CRFP_OK;
}

/* The bigram observations CRFsuite's data lost: all but those of one
 * observation found at every token, which CRFsuite's transitions stand for. */
static size_t lost_bigrams(const fx *x)
{
    return x->nplain ? x->nbigram - x->ntok : x->nbigram;
}

static crfp_status put_token(fx *x, const crfp_doc *doc, size_t s, size_t t, const char *label)
{
    const char *const *strs;
    const unsigned char *flags;
    size_t n;
    crfp_obsseq_get(x->obs, t, &strs, &flags, &n);
    const double *val = crfp_obsseq_values(x->obs, t);
    const char *id = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    if (label && strpbrk(label, x->to == TO_WAPITI ? " \t\r\n\f\v" : "\t\r\n"))
        return crfp_error(x->host, CRFP_EINVAL, "document '%s', sentence %zu, token %zu: the "
                          "label '%.60s' holds a %s, which %s's data cannot hold", id, s + 1,
                          t + 1, label, x->to == TO_WAPITI ? "blank" : "TAB or line break",
                          x->to == TO_WAPITI ? "Wapiti" : "CRFsuite");
    if (x->to == TO_CRFSUITE) {
        crfp_status st = cs_bigrams(x, strs, flags, n);
        if (st != CRFP_OK)
            return st;
        /* CRFsuite reads its label field with the attributes' escapes */
        put_cs_name(x->out, label ? label : "");
        for (size_t k = 0; k < n; k++) {
            if (!(flags[k] & CRFP_OBS_UNIGRAM))
                continue;
            if (strpbrk(strs[k], "\t\r\n"))
                return crfp_error(x->host, CRFP_EINVAL, "document '%s', sentence %zu, token "
                                  "%zu: observation '%.60s' holds a TAB or a line break, which "
                                  "CRFsuite's data cannot hold", id, s + 1, t + 1, strs[k]);
            fputc('\t', x->out);
            put_cs_name(x->out, strs[k]);
            if (val && val[k] != 1.0) {
                fputc(':', x->out);
                put_value(x->out, val[k]);
            }
        }
    } else {
        for (size_t k = 0; k < n; k++) {
            if (strpbrk(strs[k], " \t\r\n\f\v") || !strs[k][0])
                return crfp_error(x->host, CRFP_EINVAL, "document '%s', sentence %zu, token "
                                  "%zu: observation '%.60s' is empty or holds a blank, which "
                                  "Wapiti's data cannot hold", id, s + 1, t + 1, strs[k]);
            if (val && val[k] != 1.0)
                return crfp_error(x->host, CRFP_EINVAL, "document '%s', sentence %zu, token "
                                  "%zu: observation '%.60s' has the value %g: Wapiti's data has "
                                  "no values (--to crfsuite keeps them)", id, s + 1, t + 1,
                                  strs[k], val[k]);
            unsigned f = flags[k] & (CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM);
            const char kind = f == CRFP_OBS_UNIGRAM ? 'u' : f == CRFP_OBS_BIGRAM ? 'b' : '*';
            /* Wapiti's own patterns name their observations after their
             * kind already (u00:..., b01:...): those are written as they
             * are, so that Wapiti (and crfpipe) name them alike */
            if (strs[k][0] != kind)
                fputc(kind, x->out);
            fputs(strs[k], x->out);
            fputc(' ', x->out);
        }
        if (label)
            fputs(label, x->out);
    }
    fputc('\n', x->out);
    return CRFP_OK;
}

/* The weight of sentence s (its feature x->wname, CRFsuite's @weight:W),
 * written before its tokens in CRFsuite's data; Wapiti's data has no
 * sequence weights (counted, for a warning).  Errors: CRFP_EINVAL for a
 * weight that is no number from 0 to CRFP_MAX_SEQ_WEIGHT. */
static crfp_status put_weight(fx *x, const crfp_doc *doc, size_t s, const crfp_ann *sent)
{
    const crfp_value *v = sent && *x->wname ? crfp_ann_get(sent, x->wname) : NULL;
    if (!v)
        return CRFP_OK;
    double w = NAN;
    char *end;
    if (v->type == CRFP_V_FLOAT)
        w = v->u.f;
    else if (v->type == CRFP_V_INT)
        w = (double)v->u.i;
    else if (v->type == CRFP_V_STRING && (w = strtod(v->u.s, &end), end == v->u.s || *end))
        w = NAN;
    if (!(w >= 0.0 && w <= CRFP_MAX_SEQ_WEIGHT))
        return crfp_error(x->host, CRFP_EINVAL, "document '%s', sentence %zu: its %s is not a "
                          "number from 0 to %g", crfp_doc_id(doc) ? crfp_doc_id(doc) : "", s + 1,
                          x->wname, CRFP_MAX_SEQ_WEIGHT);
    if (x->to == TO_WAPITI) {
        x->unweighted += w != 1.0;
        return CRFP_OK;
    }
    fputs("@weight:", x->out);
    put_value(x->out, w);
    fputc('\n', x->out);
    return CRFP_OK;
}

/* Every sentence of doc: extract, then a line per token. */
static crfp_status put_doc(fx *x, crfp_doc *doc)
{
    crfp_ann **sents;
    size_t ns;
    crfp_status st = crfp_doc_sentences(x->host, doc, x->set, &sents, &ns);
    if (st != CRFP_OK)
        return st;
    const char *id = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    const char *hint = crfp_doc_meta_str(doc, "default-label");
    for (size_t s = 0; s < ns && st == CRFP_OK; s++) {
        const crfp_tokseq *seq;
        if ((st = crfp_sentbuf_fill(x->host, x->sb, doc, x->set, sents[s], &seq, NULL)) !=
            CRFP_OK)
            break;
        if (seq->ntok == 0)
            continue;
        /* the label: --label, else the reader's hint, else the last column */
        const char *lname = x->label ? x->label
                            : hint && crfp_tokseq_col(seq, hint) >= 0 ? hint
                            : seq->ncols >= 2 && crfp_doc_meta_str(doc, "columns")
                                ? seq->colnames[seq->ncols - 1]
                                : NULL;
        int lc = lname ? crfp_tokseq_col(seq, lname) : -1;
        if ((st = put_weight(x, doc, s, sents[s])) != CRFP_OK)
            break;
        if ((st = x->fv->extract(x->ex, seq, x->obs)) != CRFP_OK) {
            crfp_error_wrap(x->host, st, "document '%s', sentence %zu: features", id, s + 1);
            if (x->mcolumns && strstr(crfp_errmsg(x->host), "unknown column name")) {
                char msg[768];
                snprintf(msg, sizeof msg, "%s (the model was trained on the columns %.120s: "
                         "name the input's with --columns)", crfp_errmsg(x->host), x->mcolumns);
                crfp_error(x->host, st, "%s", msg);
            }
            break;
        }
        for (size_t t = 0; t < seq->ntok && st == CRFP_OK; t++, x->ntok++)
            st = put_token(x, doc, s, t,
                           lc >= 0 ? seq->cells[t * seq->ncols + (size_t)lc] : NULL);
        fputc('\n', x->out);
        x->nsent++;
    }
    free(sents);
    return st;
}

/* Read `in` with the reader, write to `outpath`. */
static int run(fx *x, const char *rname, const char **rn, const char **rv, size_t nr,
               const char *in, const char *outpath)
{
    crfp_host *host = x->host;
    const crfp_plugin *rp;
    if (crfp_host_load_kind(host, rname, CRFP_KIND_READER, &rp) != CRFP_OK)
        return cli_fail(host);
    const crfp_reader_vtable *rdv = rp->desc->vtable;
    crfp_params *rpar = crfp_params_new(rp->desc->params, rp->desc->nparams);
    crfp_status st = rpar ? CRFP_OK : crfp_error(host, CRFP_ENOMEM, "out of memory");
    for (size_t i = 0; i < nr && st == CRFP_OK; i++)
        st = crfp_params_set(host, rpar, "features: --reader-param", rn[i], rv[i], NULL);
    crfp_stream sin = {0};
    cli_output out;
    int out_open = 0;
    void *rstate = NULL;
    if (st == CRFP_OK)
        st = cli_input_open(host, &sin, in);
    if (st == CRFP_OK && (st = cli_output_open_over(host, &out, outpath, in)) == CRFP_OK)
        out_open = 1;
    cli_progress *bar = st == CRFP_OK ? cli_progress_start(host, sin.fp, "extracting") : NULL;
    if (st == CRFP_OK)
        st = rdv->open(host, rpar, &sin, &rstate);
    x->out = out_open ? out.stream.fp : NULL;
    while (st == CRFP_OK) {
        crfp_doc *doc = NULL;
        if ((st = rdv->next(rstate, &doc)) != CRFP_OK || !doc)
            break;
        st = put_doc(x, doc);
        if (st == CRFP_OK)
            cli_progress_doc(bar, doc);
        crfp_doc_free(doc);
        if (st == CRFP_OK && x->out && ferror(x->out))
            st = crfp_error(host, CRFP_EIO, "%s: write error", outpath ? outpath : "<stdout>");
        if (st == CRFP_OK && crfp_interrupted(host))
            st = crfp_error(host, CRFP_EINTR, "features: interrupted");
    }
    if (rstate)
        rdv->close(rstate);
    cli_progress_end(bar);
    if (st == CRFP_OK && out_open) {
        out_open = 0;
        st = cli_output_commit(host, &out);
    }
    if (out_open)
        cli_output_abort(&out);
    cli_input_close(&sin);
    crfp_params_free(rpar);
    if (st != CRFP_OK) {
        if (crfp_errcode(host) == CRFP_OK)
            crfp_error_wrap(host, st, "%s", in ? in : "<stdin>");
        return cli_fail(host);
    }
    crfp_log(host, CRFP_LOG_INFO, "features: %zu sentences, %zu tokens", x->nsent, x->ntok);
    if (x->unweighted)
        crfp_log(host, CRFP_LOG_WARN, "features: %zu sentences weighed other than 1 (their %s): "
                 "Wapiti's data has no sequence weights (--to crfsuite writes them)",
                 x->unweighted, x->wname);
    size_t lost = x->to == TO_CRFSUITE ? lost_bigrams(x) : 0;
    if (lost)
        crfp_log(host, CRFP_LOG_WARN, "features: %zu bigram observations not written: "
                 "CRFsuite's label pairs carry no attributes (its transitions stand for one "
                 "plain bigram observation at every token, as a template's 'B'); --to wapiti "
                 "keeps them", lost);
    return CLI_OK;
}

/* The extractor: a model's, or the features plugin's built from its
 * parameters. */
static crfp_status make_extractor(fx *x, const char *model, const char *features,
                                  const char **fn, const char **fvv, size_t nf, crfp_crf **crf)
{
    crfp_host *host = x->host;
    const crfp_plugin *pl;
    crfp_status st;
    if (model) {
        if ((st = crfp_crf_load(host, model, crf)) != CRFP_OK)
            return st;
        const char *name = crfp_crf_features_plugin(*crf);
        size_t len;
        const char *text = crfp_crf_features_config(*crf, &len);
        if (!name || !text)
            return crfp_error(host, CRFP_EINVAL, "%s: the model records no features plugin",
                              model);
        if ((st = crfp_host_load_kind(host, name, CRFP_KIND_FEATURES, &pl)) != CRFP_OK)
            return st;
        x->fv = pl->desc->vtable;
        return x->fv->load(host, text, len, model, &x->ex);
    }
    if ((st = crfp_host_load_kind(host, features, CRFP_KIND_FEATURES, &pl)) != CRFP_OK)
        return st;
    x->fv = pl->desc->vtable;
    crfp_params *p = crfp_params_new(pl->desc->params, pl->desc->nparams);
    if (!p)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    st = CRFP_OK;
    for (size_t i = 0; i < nf && st == CRFP_OK; i++)
        st = crfp_params_set(host, p, "features: --feature-param", fn[i], fvv[i], NULL);
    if (st == CRFP_OK)
        st = x->fv->create(host, p, &x->ex);
    crfp_params_free(p);
    return st;
}

int cmd_features(crfp_host *host, int argc, char **argv)
{
    const char *cmd = argv[0], *features = "templates", *tpl = NULL, *model = NULL;
    const char *format = NULL, *columns = NULL, *to = "crfsuite", *outpath = NULL, *in = NULL;
    const char *v, *rn[MAXP], *rv[MAXP], *fn[MAXP], *fvv[MAXP];
    size_t nr = 0, nf = 0;
    int features_set = 0;
    fx x = {.host = host, .wname = "weight"};
    if (cli_wants_help(argc, argv))
        return cli_help(host, argc, argv);
    for (int i = 1; i < argc; i++) {
        int r;
        if ((r = cli_opt(cmd, argc, argv, &i, "template", &v)) != 0)
            tpl = v;
        else if ((r = cli_opt(cmd, argc, argv, &i, "features", &v)) != 0)
            features = v, features_set = 1;
        else if ((r = cli_opt(cmd, argc, argv, &i, "model", &v)) != 0)
            model = v;
        else if ((r = cli_opt(cmd, argc, argv, &i, "format", &v)) != 0)
            format = v;
        else if ((r = cli_opt(cmd, argc, argv, &i, "columns", &v)) != 0)
            columns = v;
        else if ((r = cli_opt(cmd, argc, argv, &i, "label", &v)) != 0)
            x.label = v;
        else if ((r = cli_opt(cmd, argc, argv, &i, "set", &v)) != 0)
            x.set = v;
        else if ((r = cli_opt(cmd, argc, argv, &i, "weight-feature", &v)) != 0)
            x.wname = v;
        else if ((r = cli_opt(cmd, argc, argv, &i, "to", &v)) != 0)
            to = v;
        else if ((r = cli_opt(cmd, argc, argv, &i, "output", &v)) != 0)
            outpath = v;
        else if ((r = cli_opt(cmd, argc, argv, &i, "reader-param", &v)) != 0) {
            if (r > 0)
                r = cli_param_pair(cmd, "reader-param", (char *)v, rn, rv, &nr, MAXP - 1);
        } else if ((r = cli_opt(cmd, argc, argv, &i, "feature-param", &v)) != 0) {
            if (r > 0)
                r = cli_param_pair(cmd, "feature-param", (char *)v, fn, fvv, &nf, MAXP - 1);
        } else if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                return cli_usage(cmd, "-o needs a file");
            outpath = argv[++i];
            r = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_unknown_option(host, argc, argv, argv[i]);
        } else if (!in) {
            in = argv[i];
            r = 1;
        } else {
            return cli_usage(cmd, "unexpected argument '%s' (one input: a file or stdin)",
                             argv[i]);
        }
        if (r < 0)
            return CLI_USAGE;
    }
    if (strcmp(to, "crfsuite") == 0)
        x.to = TO_CRFSUITE;
    else if (strcmp(to, "wapiti") == 0)
        x.to = TO_WAPITI;
    else
        return cli_usage(cmd, "--to must be crfsuite or wapiti, not '%s'", to);
    if (model && (tpl || features_set || nf))
        return cli_usage(cmd, "--model brings its own features: give it without --template, "
                              "--features or --feature-param");
    if (!model && !tpl && strcmp(features, "templates") == 0)
        return cli_usage(cmd, "--template FILE is required (or --model MODEL, or --features "
                              "PLUGIN)");
    if (tpl)
        fn[nf] = "template", fvv[nf++] = tpl;
    const char *rname;
    if (cli_reader_for(host, format, in, &rname) != CRFP_OK)
        return cli_lookup_fail(host, cmd);
    if (columns) {
        const crfp_plugin *rp;
        if (crfp_host_load(host, rname, &rp) != CRFP_OK)
            return cli_fail(host);
        if (strcmp(crfp_plugin_format(rp), "conll") != 0)
            return cli_usage(cmd, "--columns names the columns of CoNLL input, not of %s",
                             crfp_plugin_format(rp));
        rn[nr] = "columns", rv[nr++] = columns;
    }
    crfp_crf *crf = NULL;
    char *mlabel = NULL;
    int rc;
    if (make_extractor(&x, model, features, fn, fvv, nf, &crf) != CRFP_OK ||
        (model && !x.label && cli_model_label(host, model, &mlabel) != CRFP_OK)) {
        rc = cli_fail(host);
    } else if (!(x.obs = crfp_obsseq_new()) || !(x.sb = crfp_sentbuf_new()) ||
               /* columns named by position take the model's names, as in tag */
               crfp_sentbuf_read_as(x.sb, crf ? crfp_crf_meta(crf, "columns") : NULL) !=
                   CRFP_OK) {
        crfp_error(host, CRFP_ENOMEM, "out of memory");
        rc = cli_fail(host);
    } else {
        if (mlabel)
            x.label = mlabel;
        x.mcolumns = crf ? crfp_crf_meta(crf, "columns") : NULL;
        rc = run(&x, rname, rn, rv, nr, in, outpath);
    }
    if (x.ex)
        x.fv->free(x.ex);
    crfp_obsseq_free(x.obs);
    crfp_sentbuf_free(x.sb);
    crfp_crf_free(crf);
    free(mlabel);
    for (size_t c = 0; c < x.nplain; c++)
        free(x.plain[c]);
    free(x.plain);
    return rc;
}
