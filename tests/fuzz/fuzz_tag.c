/* Fuzz target: tagging hostile documents with every option of the viterbi
 * stage (n-best lists, posteriors, marginals, posterior decoding, spans and
 * their probabilities, label bias, input columns).
 *
 * The input's first line sets the stage's parameters, "name=value" pairs
 * separated by ';' (model, threads and set are the target's own and are
 * skipped); the rest is a CoNLL file (word, pos, label, or any other
 * width: columns named by position) that conll_reader reads, viterbi tags
 * and xml_writer writes.  The template reads the POS column by its name,
 * which the model's columns give a file named by position (ABI 2.8).  The
 * model is trained once per process on the hand-written corpus below (BIO
 * chunk labels), so that every input tags with the same weights.
 *
 * A run must end in a written corpus or an error with a message, never a
 * crash, a hang or a leak.  Oracles on the corpus read back (xml_reader),
 * with the tagging run's parameters taken from its recorded processor:
 *   - every token's prediction is one of the model's labels;
 *   - with posteriors, its probability is in [0, 1];
 *   - with marginals N, the features OUTPUT-marginal-1..min(N, labels)
 *     are LABEL/P with distinct labels, P non-increasing (with
 *     marginals-order=label: the labels in the model's order instead),
 *     summing to at most 1 (to 1 when they are all the labels); the
 *     predicted label's P is its posterior probability, and with
 *     decode=posterior the first label is the prediction;
 *   - with token-scores, each token's OUTPUT-score is a finite number, and
 *     under decode=posterior its label's marginal: in [0, 1], and its
 *     posterior probability when posteriors are given too;
 *   - with posteriors, each span's prob is in (0, 1] and at most the
 *     posterior probability of each of its tokens (a joint probability is
 *     never above a marginal of it);
 *   - with force, a token whose force feature holds a label of the model
 *     is predicted that label, with probability 1 under posteriors;
 *   - the results print as Wapiti (wapiti_writer scores=true), CRFsuite
 *     (crfsuite_writer probability, marginal, marginal-all) and CRF++
 *     (crfpp_writer verbose=2) print them, or the writer says what is
 *     missing; when the run gave what a writer needs (scores and
 *     token-scores; scores, posteriors and marginals in label order;
 *     posteriors and every label's marginal), it must succeed, unless a
 *     cell holds what the format cannot (a carriage return read as part
 *     of a word), which the message says. */
#include "fuzzhost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Written for this target: a dozen short sentences in the CoNLL-2000
 * layout (word, POS, BIO chunk), made up, not from any corpus. */
static const char train_text[] =
    "The DT B-NP\ncat NN I-NP\nsat VBD B-VP\non IN B-PP\nthe DT B-NP\nmat NN I-NP\n. . O\n\n"
    "A DT B-NP\nbig JJ I-NP\ndog NN I-NP\nhas VBZ B-VP\nbeen VBN I-VP\nbarking VBG I-VP\n. . O\n\n"
    "She PRP B-NP\nwill MD B-VP\nvisit VB I-VP\nold JJ B-NP\nfriends NNS I-NP\nin IN B-PP\n"
    "Paris NNP B-NP\n. . O\n\n"
    "Prices NNS B-NP\nrose VBD B-VP\nsharply RB O\nlast JJ B-NP\nweek NN I-NP\n. . O\n\n"
    "We PRP B-NP\nsaw VBD B-VP\nthree CD B-NP\nred JJ I-NP\nbirds NNS I-NP\n. . O\n\n"
    "The DT B-NP\ncompany NN I-NP\nsaid VBD B-VP\nit PRP B-NP\nwould MD B-VP\ngrow VB I-VP\n"
    ". . O\n\n"
    "John NNP B-NP\nSmith NNP I-NP\nlikes VBZ B-VP\ngreen JJ B-NP\ntea NN I-NP\n. . O\n\n"
    "They PRP B-NP\nare VBP B-VP\nworking VBG I-VP\non IN B-PP\na DT B-NP\nnew JJ I-NP\n"
    "plan NN I-NP\n. . O\n\n"
    "Its PRP$ B-NP\nshares NNS I-NP\nfell VBD B-VP\nto TO B-PP\n10 CD B-NP\ndollars NNS I-NP\n"
    ". . O\n\n"
    "Mary NNP B-NP\nand CC O\nTom NNP B-NP\nleft VBD B-VP\nearly RB O\n. . O\n\n";

static const char template_text[] =
    "U00:%x[-1,0]\nU01:%x[0,0]\nU02:%x[1,0]\nU03:%x[0,pos]\nU04:%x[-1,1]/%x[0,1]\nB\n";

static const char *const model_labels[] = {"B-NP", "I-NP", "B-VP", "I-VP", "B-PP", "O"};
#define NLABELS (sizeof model_labels / sizeof model_labels[0])

static char model_path[512];
/* each of model_labels' id in the trained model (its label order) */
static int64_t label_id[NLABELS];

static int is_label(const char *s)
{
    for (size_t i = 0; i < NLABELS; i++)
        if (s && strcmp(s, model_labels[i]) == 0)
            return 1;
    return 0;
}

static void train_model(void)
{
    crfp_host *h = fz_host();
    const char *tpl0 = fz_file("tag.tpl", (const uint8_t *)template_text, strlen(template_text));
    char tpl[512];
    snprintf(tpl, sizeof tpl, "%s", tpl0);
    snprintf(model_path, sizeof model_path, "%s", fz_file("tag.model", NULL, 0));
    crfp_pipeline *p = crfp_pipeline_new(h);
    const char *rn[] = {"columns"}, *rv[] = {"word,pos,label"};
    const char *fn[] = {"template"}, *fvv[] = {tpl};
    const char *tn[] = {"model", "max-iter", "threads"}, *tv[] = {model_path, "40", "1"};
    if (!p || crfp_pipeline_add(p, "conll_reader", "set-up", rn, rv, 1, NULL) != CRFP_OK ||
        crfp_pipeline_add(p, "templates", "set-up", fn, fvv, 1, NULL) != CRFP_OK ||
        crfp_pipeline_add(p, "lbfgs", "set-up", tn, tv, 3, NULL) != CRFP_OK)
        fz_fail("set-up: the training pipeline", crfp_errmsg(h));
    FILE *f = fz_memstream_in((const uint8_t *)train_text, strlen(train_text));
    crfp_stream in = {f, "train"};
    if (crfp_pipeline_run(p, &in, NULL) != CRFP_OK)
        fz_fail("set-up: training", crfp_errmsg(h));
    fclose(f);
    crfp_pipeline_free(p);
    crfp_crf *crf = NULL;
    if (crfp_crf_load(h, model_path, &crf) != CRFP_OK)
        fz_fail("set-up: loading the model", crfp_errmsg(h));
    for (size_t i = 0; i < NLABELS; i++)
        if ((label_id[i] = crfp_crf_label_id(crf, model_labels[i])) < 0)
            fz_fail("set-up: a label the model lacks", model_labels[i]);
    crfp_crf_free(crf);
}

/* The value of parameter `name` the tagging run recorded, or def. */
static const char *recorded(const crfp_processor *pr, const char *name, const char *def)
{
    for (size_t k = 0; k < pr->nparams; k++)
        if (strcmp(pr->param_names[k], name) == 0)
            return pr->param_values[k];
    return def;
}

static double number(const char *s, const char *what)
{
    char *end;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || end == s || *end || !(v >= 0.0 && v <= 1.0))
        fz_fail(what, s ? s : "(missing)");
    return v;
}

/* The outputs a tagging run recorded that the token oracles look at. */
typedef struct run_opts {
    const char *out, *force;
    int post, decpost, by_label, tokscores;
    size_t R;
} run_opts;

static void check_token(const crfp_ann *a, const run_opts *o)
{
    const char *out = o->out, *force = o->force;
    int post = o->post, decpost = o->decpost;
    size_t R = o->R;
    char name[300];
    const char *pred = crfp_ann_str(a, out);
    if (!is_label(pred))
        fz_fail("a prediction that is no label of the model", pred ? pred : "(missing)");
    snprintf(name, sizeof name, "%s-prob", out);
    const char *ps = post ? crfp_ann_str(a, name) : NULL;
    if (post)
        (void)number(ps, "predicted-prob outside [0, 1]");
    const char *kept = force ? crfp_ann_str(a, force) : NULL;
    if (is_label(kept) && (strcmp(pred, kept) != 0 || (post && strcmp(ps, "1.000000") != 0)))
        fz_fail("a forced token did not keep its label with certainty", kept);
    if (o->tokscores) {
        snprintf(name, sizeof name, "%s-score", out);
        const char *ts = crfp_ann_str(a, name);
        char *end;
        double v = ts ? strtod(ts, &end) : NAN;
        if (!ts || end == ts || *end || !isfinite(v))
            fz_fail("a token score that is not a finite number", ts ? ts : "(missing)");
        if (decpost && (number(ts, "a posterior token score outside [0, 1]") < 0.0 ||
                        (post && strcmp(ts, ps) != 0)))
            fz_fail("a posterior token score that is not the label's marginal", ts);
    }
    double sum = 0.0, last = 2.0;
    size_t lastlab = 0;
    char seen[NLABELS] = {0};
    for (size_t r = 1; r <= R; r++) {
        snprintf(name, sizeof name, "%s-marginal-%zu", out, r);
        const char *m = crfp_ann_str(a, name);
        const char *slash = m ? strrchr(m, '/') : NULL;
        if (!slash)
            fz_fail("a marginal that is not LABEL/P", m ? m : "(missing)");
        size_t i = 0;
        while (i < NLABELS && !(strlen(model_labels[i]) == (size_t)(slash - m) &&
                                strncmp(model_labels[i], m, (size_t)(slash - m)) == 0))
            i++;
        if (i == NLABELS || seen[i]++)
            fz_fail("a marginal of an unknown or repeated label", m);
        double v = number(slash + 1, "a marginal outside [0, 1]");
        if (!o->by_label && v > last)
            fz_fail("marginals not in descending order", m);
        if (o->by_label && r > 1 && label_id[i] <= label_id[lastlab])
            fz_fail("marginals not in the model's label order", m);
        lastlab = i;
        last = v;
        sum += v;
        if (post && strcmp(model_labels[i], pred) == 0 && strcmp(slash + 1, ps) != 0)
            fz_fail("the predicted label's marginal is not its posterior", m);
        if (r == 1 && decpost && !o->by_label && strcmp(model_labels[i], pred) != 0)
            fz_fail("posterior decoding did not take the most probable label", m);
    }
    if (sum > 1.0 + 1e-5 * (double)R || (R == NLABELS && sum < 1.0 - 1e-5 * (double)R))
        fz_fail("marginals do not sum as probabilities", crfp_ann_str(a, out));
}

/* doc written by WRITER with the n parameters names=values: CRFP_OK, or
 * an error that says why. */
static crfp_status write_as(const char *writer, const char *const *names,
                            const char *const *values, size_t n, const crfp_doc *doc)
{
    crfp_params *wp;
    const crfp_writer_vtable *wr = fz_plugin(writer, CRFP_KIND_WRITER, names, values, n, &wp);
    char *buf = NULL;
    size_t len = 0;
    crfp_error_clear(fz_host());
    crfp_status st = fz_write_with(wr, wp, (crfp_doc *const *)&doc, 1, &buf, &len);
    free(buf);
    crfp_params_free(wp);
    return st;
}

/* A writer's failure that is no fault: the document holds what the
 * format has no room for, and the message says so. */
static int unrepresentable(void)
{
    return strstr(crfp_errmsg(fz_host()), " holds a ") != NULL;
}

static void check_writers(const crfp_doc *d, const run_opts *o, int scores)
{
    static const char *const wn[] = {"scores"}, *const wv[] = {"true"};
    static const char *const cn[] = {"probability", "marginal", "marginal-all"},
                             *const cv[] = {"true", "true", "true"};
    if (strcmp(o->out, "predicted") != 0)
        return;   /* the writers read the default output; a renamed one is not theirs */
    crfp_status st = write_as("wapiti_writer", wn, wv, 1, d);
    if (st != CRFP_OK && scores && o->tokscores && !unrepresentable())
        fz_fail("Wapiti's output of a run with scores and token-scores failed",
                crfp_errmsg(fz_host()));
    st = write_as("crfsuite_writer", cn, cv, 3, d);
    if (st != CRFP_OK && scores && o->post && o->R > 0 && o->by_label && !unrepresentable())
        fz_fail("CRFsuite's output of a run with scores, posteriors and marginals failed",
                crfp_errmsg(fz_host()));
    static const char *const pn[] = {"verbose"}, *const pv[] = {"2"};
    st = write_as("crfpp_writer", pn, pv, 1, d);
    if (st != CRFP_OK && o->post && o->R >= NLABELS && !unrepresentable())
        fz_fail("CRF++'s output of a run with posteriors and every marginal failed",
                crfp_errmsg(fz_host()));
    crfp_error_clear(fz_host());
}

static void check_doc(crfp_doc *d)
{
    crfp_annset *set = crfp_doc_annset(d, "", 0);
    size_t np = 0;
    const crfp_processor *prs = set ? crfp_annset_processors(set, &np) : NULL, *pr = NULL;
    for (size_t i = 0; i < np; i++)
        if (strcmp(prs[i].plugin, "viterbi") == 0)
            pr = &prs[i];
    if (!pr)
        return;   /* nothing tagged: a document without tokens */
    run_opts o = {
        .out = recorded(pr, "output", "predicted"),
        .force = recorded(pr, "force-feature", NULL),
        .post = strcmp(recorded(pr, "posteriors", "false"), "true") == 0,
        .decpost = strcmp(recorded(pr, "decode", "viterbi"), "posterior") == 0,
        .by_label = strcmp(recorded(pr, "marginals-order", "rank"), "label") == 0,
        .tokscores = strcmp(recorded(pr, "token-scores", "false"), "true") == 0,
        .R = (size_t)strtoul(recorded(pr, "marginals", "0"), NULL, 10),
    };
    const char *out = o.out;
    int post = o.post;
    crfp_ann **all = NULL;
    size_t n = 0;
    if (crfp_annset_select(set, NULL, 0, crfp_doc_length(d), &all, &n) != CRFP_OK)
        fz_fail("set-up", "out of memory");
    char name[300];
    snprintf(name, sizeof name, "%s-prob", out);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i]->type, "Token") == 0)
            check_token(all[i], &o);
    for (size_t i = 0; i < n && post; i++) {
        const char *sp = strcmp(all[i]->type, "Token") ? crfp_ann_str(all[i], "prob") : NULL;
        if (!sp)
            continue;
        double v = number(sp, "a span probability outside [0, 1]");
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            if (strcmp(all[j]->type, "Token") == 0 && all[j]->start >= all[i]->start &&
                all[j]->end <= all[i]->end) {
                k++;
                if (v > strtod(crfp_ann_str(all[j], name), NULL) + 1e-6)
                    fz_fail("a span more probable than one of its tokens", sp);
            }
        if (k == 0 || v <= 0.0)
            fz_fail("a span without tokens, or of probability 0", sp);
    }
    free(all);
    check_writers(d, &o, strcmp(recorded(pr, "scores", "false"), "true") == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    if (!model_path[0])
        train_model();
    /* The parameters: the first line, at most 64 pairs. */
    const uint8_t *nl = memchr(data, '\n', size);
    size_t hl = nl ? (size_t)(nl - data) : size;
    char *head = malloc(hl + 1);
    if (!head)
        fz_fail("set-up", "out of memory");
    memcpy(head, data, hl);
    head[hl] = '\0';
    const char *names[67] = {"model", "threads"}, *values[67] = {model_path, "1"};
    size_t np = 2;
    for (char *save = NULL, *pair = strtok_r(head, ";", &save); pair && np < 66;
         pair = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(pair, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (!strcmp(pair, "model") || !strcmp(pair, "threads") || !strcmp(pair, "set"))
            continue;
        names[np] = pair;
        values[np++] = eq + 1;
    }
    /* The reader names the columns by position (word, col1, label): a file
     * of other widths reads too, and input-columns may remap them. */
    crfp_pipeline *p = crfp_pipeline_new(h);
    crfp_status st = p ? CRFP_OK : CRFP_ENOMEM;
    if (st == CRFP_OK)
        st = crfp_pipeline_add(p, "conll_reader", "fuzz", NULL, NULL, 0, NULL);
    if (st == CRFP_OK)
        st = crfp_pipeline_add(p, "viterbi", "fuzz", names, values, np, NULL);
    if (st == CRFP_OK)
        st = crfp_pipeline_add(p, "xml_writer", "fuzz", NULL, NULL, 0, NULL);
    FILE *out = NULL;
    if (st == CRFP_OK) {
        const uint8_t *body = nl ? nl + 1 : data + size;
        FILE *f = fz_memstream_in(body, (size_t)(data + size - body));
        out = tmpfile();
        if (!out)
            fz_fail("set-up", "tmpfile");
        crfp_stream in = {f, "input"}, os = {out, "output"};
        st = crfp_pipeline_run(p, &in, &os);
        fclose(f);
    }
    fz_trace("%s", st == CRFP_OK ? "tagged" : crfp_errmsg(h));
    if (st != CRFP_OK && !crfp_errmsg(h)[0])
        fz_fail("a run failed without a message", crfp_status_str(st));
    if (st == CRFP_OK) {
        /* What was written reads back, and holds what the options promise. */
        crfp_params *xp;
        const crfp_reader_vtable *xr = fz_plugin("xml_reader", CRFP_KIND_READER, NULL, NULL, 0, &xp);
        rewind(out);
        crfp_doc *docs[64];
        size_t nd = 0;
        if (fz_read_docs(xr, xp, out, "output", docs, 64, &nd) != CRFP_OK)
            fz_fail("the tagged corpus does not read back", crfp_errmsg(h));
        for (size_t i = 0; i < nd; i++) {
            check_doc(docs[i]);
            crfp_doc_free(docs[i]);
        }
        crfp_params_free(xp);
    }
    if (out)
        fclose(out);
    crfp_pipeline_free(p);
    crfp_error_clear(h);
    free(head);
    return 0;
}
