/* crfpipe CLI — help for every command, option lists, suggestions.
 *
 * A command's help is built as a list of sections of options.  The options
 * the command itself parses are in the tables below; the parameters it
 * hands to a stage (trainer, tagger, writer) are read from that plugin's
 * declaration (crfp_pipeline_stage_params), so the defaults shown are the
 * ones the plugin applies.  The same list answers `--help`, the
 * "did you mean" of an unknown option and the completion script's
 * `crfpipe help --options`.
 */
#include "config.h"
#include "cli.h"
#include "help.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One option: its long name (with dashes), an optional short alias, the
 * value's metavariable (NULL for a flag), its default (NULL: none, or said
 * in the help text) and one line of help (wrapped when printed). */
typedef struct optdoc {
    const char *name;
    const char *alias;
    const char *arg;
    const char *def;
    const char *help;
} optdoc;

/* A titled group of options.  `params` sections list stage parameters
 * given as NAME=VALUE to another option (convert's --reader-param): they
 * are shown but are not options themselves. */
typedef struct section {
    const char *title;
    const char *note;
    optdoc *v;
    size_t n, cap;
    int params;
} section;

enum { MAX_SECTIONS = 24 };

typedef struct helpdoc {
    section s[MAX_SECTIONS];
    size_t ns;
    char **strs;  /* strings built for this help, freed with it */
    size_t nstrs, capstrs;
    crfp_param_spec *specs[MAX_SECTIONS]; /* arrays from crfp_pipeline_stage_params */
    size_t nspecs;
} helpdoc;

typedef struct cmddoc {
    const char *name;
    const char *usage;    /* after "crfpipe NAME " */
    const char *summary;  /* one line, for the command list */
    const char *text;     /* paragraphs printed after the usage */
    const optdoc *opts;
    size_t nopts;
    /* Adds the sections that depend on plugins; CRFP_OK or an error
     * recorded in host. */
    crfp_status (*extra)(crfp_host *host, int argc, char **argv, helpdoc *h);
} cmddoc;

#define N(a) (sizeof(a) / sizeof *(a))

/* --- the options of each command ------------------------------------------ */

static const optdoc global_opts[] = {
    {"--plugin-path", NULL, "DIR", NULL,
     "search DIR for plugins before $CRFPIPE_PLUGIN_PATH, the build tree and the installed "
     "plugin directory (repeatable)"},
    {"--quiet", "-q", NULL, NULL, "no progress lines or bars: warnings and errors only"},
    {"--limit", NULL, "NAME=VALUE", NULL,
     "resource limit (repeatable): xml-node, line, sentence-tokens, regex-time, regex-stack, "
     "model-labels, model-params; VALUE with k, M or G, or unlimited (also $CRFPIPE_LIMITS)"},
    {"--force-special", NULL, NULL, NULL,
     "let -o write into a FIFO, a device or through a symbolic link (otherwise only regular "
     "files and new paths are written)"},
    {"--version", NULL, NULL, NULL, "print the version and the plugin ABI version"},
    {"--help", "-h", NULL, NULL, "print the help of the command (or this text)"},
};

static const optdoc train_opts[] = {
    {"--trainer", NULL, "NAME[,NAME...]", "lbfgs",
     "trainer plugin, or a chain of them: each starts from the previous one's solution, "
     "shrunk to its active features"},
    {"--features", NULL, "NAME", "templates", "features plugin turning tokens into observations"},
    {"--feature-param", NULL, "NAME=VALUE", NULL,
     "a parameter of the features plugin (crfpipe plugins FEATURES), e.g. bigram=wapiti for "
     "the attributes plugin on Wapiti's data (--format wapiti)"},
    {"--template", NULL, "FILE", NULL,
     "feature template file, CRF++/Wapiti syntax (crfpipe-templates(5)); required with the "
     "templates features plugin, unless --init-model alone gives the model's own features "
     "(wapiti train -m)"},
    {"--format", NULL, "FORMAT", NULL,
     "format of TRAIN and of --dev: conll, conllu, xml, crfsuite, wapiti, any of crfpipe plugins "
     "--formats (default: from the file name, else from the content)"},
    {"--spans", NULL, "TYPES", NULL,
     "the gold is annotations over the text, not token labels: the comma-separated "
     "annotation types (e.g. Person,Location of a GATE corpus) become B-/I-/O token labels "
     "(the span_labels stage), in the training and the dev data"},
    {"--span-set", NULL, "SET", "Key", "with --spans: the annotation set holding them"},
    {"--tokenizer", NULL, "NAME", NULL,
     "tokenize TRAIN and --dev first with this tokenizer plugin (e.g. icu_tokenizer): raw "
     "text or XML whose gold is spans (--format markup --spans PER,LOC --span-set \"Original "
     "markups\"); the template's first column then reads each token's string"},
    {"--tokenizer-param", NULL, "NAME=VALUE", NULL,
     "a parameter of the tokenizer (crfpipe plugins TOKENIZER), e.g. locale=de"},
    {"--columns", NULL, "NAMES", NULL,
     "comma-separated column names of a CoNLL input (default: word, col1..colN-2, label)"},
    {"--reader-param", NULL, "NAME=VALUE", NULL,
     "any other parameter of the reader of TRAIN and --dev (crfpipe plugins READER), e.g. "
     "separator=tab for columns holding spaces"},
    {"--report", NULL, "FILE", NULL,
     "plot the objective, the dev error and the active features against iteration and time: "
     "SVG, or PNG when FILE ends in .png; FILE.tsv writes the figures instead, one row per "
     "iteration, for crfpipe plot"},
    {"--path-report", NULL, "FILE", NULL,
     "with --rho1-path: plot the active features and the dev error against rho1 (SVG, or PNG "
     "when FILE ends in .png)"},
    {"--output", "-o", "FILE", NULL,
     "with --rho1-path or --cv-folds: write the path's table (rho1, iterations, active "
     "features, dev error, seconds, model file) or the folds' (errors per fold, their mean and "
     "standard error) to FILE instead of stdout"},
};

static const optdoc plot_opts[] = {
    {"--output", "-o", "FILE", NULL, "the chart: SVG, or PNG when FILE ends in .png (required)"},
    {"--x", NULL, "time|seconds|cpu|iteration", "time",
     "horizontal axis: training time without the dev-set scoring, time with it, training CPU "
     "time (every thread) without it, or iterations"},
    {"--y", NULL, "dev-error|dev-seq-error|train-error|objective|active", "dev-error",
     "vertical axis"},
    {"--log-x", NULL, NULL, NULL,
     "logarithmic horizontal axis, for runs whose times differ by orders of magnitude"},
    {"--x-max", NULL, "X", NULL, "end the curves at X (zoom on their start)"},
    {"--y-max", NULL, "Y", NULL,
     "leave out points above Y (error rates in percent), e.g. the first iterations"},
    {"--title", NULL, "TEXT", NULL, "the chart's title (default: crfpipe plot)"},
};

static const optdoc tag_opts[] = {
    {"-m", NULL, "FILE", NULL,
     "the model: short for the tagger's --model (as in wapiti label -m and crfsuite tag -m)"},
    {"--output", "-o", "FILE", NULL,
     "write FILE, which appears only when the run succeeds (default: stdout)"},
    {"--output-dir", NULL, "DIR", NULL,
     "with several inputs, one output each in DIR, named after the input (see crfpipe run)"},
    {"--format", NULL, "FORMAT", NULL,
     "input format: conll, conllu, xml, crfsuite, wapiti, any of crfpipe plugins --formats "
     "(default: from the file name, else from the content)"},
    {"--to", NULL, "FORMAT", NULL, "output format (default: the input's format)"},
    {"--columns", NULL, "NAMES", NULL, "comma-separated column names of a CoNLL input"},
    {"--reader-param", NULL, "NAME=VALUE", NULL,
     "any other parameter of the input format's reader (crfpipe plugins READER), e.g. "
     "separator=tab for columns holding spaces"},
    {"--tagger", NULL, "NAME", "viterbi", "tagger plugin"},
    {"--tokenizer", NULL, "NAME", NULL,
     "tokenize the input first with this tokenizer plugin (e.g. icu_tokenizer), for raw text "
     "(--format text), XML or HTML (--format markup); the model's first column then reads "
     "each token's string unless --input-columns says otherwise"},
    {"--tokenizer-param", NULL, "NAME=VALUE", NULL,
     "a parameter of the tokenizer (crfpipe plugins TOKENIZER), e.g. locale=de"},
    {"--posteriors", NULL, NULL, NULL,
     "add the marginal of each predicted label (predicted-prob), the sequence "
     "probabilities, and each span's probability that its tokens carry their labels "
     "(feature prob; the tagger's posteriors parameter)"},
    {"--force", NULL, NULL, NULL,
     "forced decoding, as Wapiti's --force: tokens whose gold label (or --force-feature) "
     "holds one of the model's labels keep it, the others are decoded around them; _ or "
     "empty leaves a token free (the tagger's force parameter)"},
    {"--writer-param", NULL, "NAME=VALUE", NULL,
     "any other parameter of the output format's writer (crfpipe plugins WRITER); an option "
     "the tagger and the writer both declare (--scores) goes to both unless this sets it"},
};

static const optdoc eval_opts[] = {
    {"--model", "-m", "FILE", NULL,
     "tag FILE with this model first; the gold label is then the one the model was trained on"},
    {"--label", NULL, "FEATURE", NULL,
     "token feature holding the gold label; in CoNLL-U tagged for several labels, the one "
     "to score (default: found in what crfpipe tag wrote)"},
    {"--guess", NULL, "FEATURE", NULL,
     "token feature holding the predicted label (default: found in what crfpipe tag wrote)"},
    {"--format", NULL, "FORMAT", NULL,
     "input format: conll, conllu, xml, crfsuite, wapiti, any of crfpipe plugins --formats "
     "(default: from the file name, else from the content)"},
    {"--columns", NULL, "NAMES", NULL, "comma-separated column names of a CoNLL input"},
    {"--reader-param", NULL, "NAME=VALUE", NULL,
     "any other parameter of the input format's reader (crfpipe plugins READER), e.g. "
     "separator=tab for columns holding spaces"},
    {"--threads", NULL, "N", "0", "decoding threads with --model (0 = all cores)"},
    {"--decode", NULL, "MODE", "viterbi",
     "with --model: viterbi (the best labelling) or posterior (each token's most probable label)"},
    {"--spans", NULL, "TYPES", NULL,
     "compare two annotation sets by their offsets instead, as GATE's AnnotationDiff: the "
     "comma-separated types of the gold set Key against the default set (correct, partial, "
     "missing, spurious; strict, lenient and average P/R/F1); with --model, against the "
     "spans of the model's labels"},
    {"--diff-param", NULL, "NAME=VALUE", NULL,
     "with --spans: a parameter of the annotation_diff writer (key-set, response-set, "
     "key-types, response-types, feature, key-feature, response-feature; confidence=prob: "
     "precision and recall at 20 confidence thresholds)"},
    {"--tokenizer", NULL, "NAME", NULL,
     "with --model and --spans: tokenize the input first with this tokenizer plugin (e.g. "
     "icu_tokenizer), for gold spans over raw text or XML (--format markup --diff-param "
     "key-set=\"Original markups\"); the model's first column reads each token's string"},
    {"--tokenizer-param", NULL, "NAME=VALUE", NULL,
     "a parameter of the tokenizer (crfpipe plugins TOKENIZER), e.g. locale=de"},
    {"-o", NULL, "FILE", NULL, "write the report to FILE (default: stdout)"},
    {"--report", NULL, "FILE", NULL,
     "plot the confusion matrix as a heat map and per-label precision, recall and F1: SVG, or "
     "PNG when FILE ends in .png"},
};

static const optdoc run_opts[] = {
    {"--input", "-i", "FILE", NULL,
     "input documents (repeatable, as are the files after the pipeline) (default: stdin)"},
    {"--threads", NULL, "N", "0",
     "threads for document stages that can run several documents at once (0 = all cores)"},
    {"--output", "-o", "FILE", NULL,
     "output of every input, which appears only when the run succeeds (default: stdout)"},
    {"--output-dir", NULL, "DIR", NULL,
     "one output per input, in DIR: the input's name with the writer's extension for its own "
     "(written whole as soon as that input is done)"},
};

static const optdoc convert_opts[] = {
    {"--from", NULL, "FORMAT", NULL,
     "input format: conll, conllu, xml, crfsuite, wapiti, any of crfpipe plugins --formats "
     "(default: from the file name, else from the content)"},
    {"--to", NULL, "FORMAT", NULL, "output format (required)"},
    {"--columns", NULL, "NAMES", NULL,
     "comma-separated names of the input's columns with --from conll, of the columns written "
     "with --to conll"},
    {"--output", "-o", "FILE", NULL, "output file, instead of OUT (default: stdout)"},
    {"--reader-param", NULL, "NAME=VALUE", NULL, "a parameter of the input format's reader"},
    {"--writer-param", NULL, "NAME=VALUE", NULL, "a parameter of the output format's writer"},
};

static const optdoc features_opts[] = {
    {"--template", NULL, "FILE", NULL,
     "feature template (CRF++/Wapiti syntax, crfpipe-templates(5)) of the templates plugin"},
    {"--model", NULL, "MODEL", NULL,
     "the features a trained model extracts (its plugin and template), instead of --template; "
     "the label is then the model's"},
    {"--features", NULL, "PLUGIN", "templates", "features plugin"},
    {"--feature-param", NULL, "NAME=VALUE", NULL, "a parameter of the features plugin"},
    {"--to", NULL, "crfsuite|wapiti", "crfsuite",
     "CRFsuite's data (TAB-separated attributes, name:value) or Wapiti's data with its "
     "observations given (u, b or * before each unless it begins with it, the label last)"},
    {"--label", NULL, "FEATURE", NULL,
     "the token feature written as the label, left empty when there is none (default: the "
     "reader's label column, CoNLL-U's upos, else the last of two or more columns)"},
    {"--format", NULL, "FORMAT", NULL,
     "input format (default: from the file name, else from the content)"},
    {"--columns", NULL, "NAMES", NULL, "comma-separated names of a CoNLL input's columns"},
    {"--set", NULL, "NAME", NULL, "annotation set holding the Sentence and Token annotations"},
    {"--weight-feature", NULL, "NAME", "weight",
     "the Sentence feature holding its weight, written as CRFsuite's @weight:W ('': none)"},
    {"--reader-param", NULL, "NAME=VALUE", NULL, "a parameter of the input format's reader"},
    {"--output", "-o", "FILE", NULL, "output file, which appears only when complete (default: "
     "stdout)"},
};

static const optdoc validate_opts[] = {
    {"--schema", NULL, "document|pipeline", NULL,
     "the schema to check against (default: chosen by each file's root element)"},
};

static const optdoc plugins_opts[] = {
    {"--path", NULL, NULL, NULL, "print the plugin search path, one directory per line"},
    {"--names", NULL, NULL, NULL, "print plugin names only, one per line"},
    {"--formats", NULL, NULL, NULL,
     "print the formats readers and writers declare, one per line"},
    {"--kind", NULL, "KIND", NULL,
     "only plugins of this kind: reader, writer, tokenizer, features, trainer, tagger"},
};

static const optdoc model_opts[] = {
    {"--output", "-o", "FILE", NULL,
     "import: the crfpipe model to write (required); export: the CRFsuite model to write "
     "(required); info, top: write FILE, which appears only when complete (default: stdout)"},
    {"-n", NULL, "N", "20", "top: how many weights (0 = all of them, sorted)"},
    {"--order", NULL, "high|low|abs", "high",
     "top: the largest weights first, the most negative first, or the largest in magnitude"},
    {"--kind", NULL, "U|B|any", "any", "top: only unigram (U) or only bigram (B) weights"},
    {"--label", NULL, "LABEL", NULL, "top: only weights into LABEL (the current label of B ones)"},
    {"--observation", NULL, "PREFIX", NULL,
     "top: only observations starting with PREFIX (e.g. a template pattern's name, U02:)"},
};

static const optdoc help_opts[] = {
    {"--commands", NULL, NULL, NULL, "print the command names, one per line"},
    {"--options", NULL, "COMMAND", NULL, "print the options of COMMAND, one per line"},
    {"--global-options", NULL, NULL, NULL, "print the global options, one per line"},
};

/* Options of `crfpipe tag` that go to the writer rather than the tagger
 * (the CoNLL and CoNLL-U writers declare them). */
const char *const cli_tag_writer_opts[] = {"map",       "prediction-to", "keep-gold",
                                           "unrepresentable", "separator", "strict"};
const size_t cli_tag_writer_nopts = N(cli_tag_writer_opts);

static crfp_status train_extra(crfp_host *host, int argc, char **argv, helpdoc *h);
static crfp_status tag_extra(crfp_host *host, int argc, char **argv, helpdoc *h);
static crfp_status convert_extra(crfp_host *host, int argc, char **argv, helpdoc *h);

static const cmddoc commands[] = {
    {"train", "[OPTIONS] --template FILE --model FILE TRAIN",
     "train a CRF on a labelled corpus",
     "Train a linear-chain CRF on the labelled corpus TRAIN (a file, or - for stdin) and write "
     "the model.  Options other than those listed under Options go to the trainer stage, "
     "which checks them against its declaration.  One progress line per iteration goes to "
     "stderr unless --quiet; Ctrl-C stops cleanly and saves the last iteration's model.  "
     "With --cv-folds K it cross-validates instead (a table of the folds on stdout), and "
     "--model is then optional.",
     train_opts, N(train_opts), train_extra},
    {"tag", "--model FILE [OPTIONS] [IN...]", "label a corpus with a model",
     "Label every sentence of IN (a file, or - / nothing for stdin; several files are tagged "
     "in one run, the model loaded once) with the model and write "
     "it with the prediction added: a last column for CoNLL files, a Token feature "
     "'predicted' in XML, the label's column in CoNLL-U (gold kept in MISC).  Options not "
     "listed under Options go to the tagger, writer options to the writer.  On a terminal a "
     "progress bar shows bytes, tokens/s and the time left.",
     tag_opts, N(tag_opts), tag_extra},
    {"eval", "[OPTIONS] FILE", "score predictions: accuracy, per-label P/R/F1, chunk F1",
     "Score what crfpipe tag wrote (CoNLL-U with GoldUPOS= or PredictedUPOS= in MISC, XML "
     "recording the tagging run, or columns whose last two are gold and prediction), or, with "
     "--model, tag FILE and score it in one go.  A file with no prediction is an error.",
     eval_opts, N(eval_opts), NULL},
    {"run", "PIPELINE.xml [-i IN] [IN...] [-o OUT | --output-dir DIR]",
     "stream documents through a pipeline file",
     "Run the pipeline described in PIPELINE.xml (crfpipe-pipeline(5)) from IN to OUT.  "
     "Several inputs (a corpus of files) go through one run: the stages and their models are "
     "loaded once, and stages that gather over the corpus (a tag dictionary, an evaluation) "
     "see all of it.  A pipeline ending in a trainer trains on every input and writes no "
     "documents.",
     run_opts, N(run_opts), NULL},
    {"convert", "--to FORMAT [OPTIONS] [IN [OUT]]", "convert between conll, conllu and xml",
     "Read IN (default stdin) with the reader of its format and write OUT (default stdout) "
     "with the writer of --to.  The output appears only when the conversion succeeds.",
     convert_opts, N(convert_opts), convert_extra},
    {"features", "--template FILE | --model MODEL [OPTIONS] [IN]",
     "write the observations a template extracts, as CRFsuite's or Wapiti's data",
     "Extract the observations of every token of IN (default stdin) as crfpipe train does "
     "with the template (or the model's features), and write them as training data: "
     "CRFsuite's, which crfsuite learn and crfpipe --features attributes train on, or "
     "Wapiti's with its observations given (wapiti train without patterns).  Each token is "
     "a line, its label first (CRFsuite) or last (Wapiti), and a blank line ends each "
     "sentence.  CRFsuite's label pairs carry no attributes: a template's plain B is its "
     "transitions, other bigram observations are counted in a warning (--to wapiti keeps "
     "them).  Also a way to see what a template makes of a token.  The output appears only "
     "when complete.",
     features_opts, N(features_opts), NULL},
    {"validate", "[--schema document|pipeline] FILE...", "check XML files against the schemas",
     "Check each XML file against the RELAX NG schema of documents (crfpipe-document(5)) or "
     "pipelines (crfpipe-pipeline(5)), reporting every error as FILE:LINE.",
     validate_opts, N(validate_opts), NULL},
    {"plugins", "[--path | --names | --formats] [--kind KIND] [NAME]",
     "list plugins, or describe one",
     "Without NAME, list every plugin on the search path (name, kind, version, file); with "
     "NAME, its parameters with their types and defaults.",
     plugins_opts, N(plugins_opts), NULL},
    {"plot", "-o OUT [OPTIONS] [NAME=]RUN.tsv...", "overlay the curves of training runs",
     "Draw the curves of several training runs in one chart, e.g. the dev error of every "
     "trainer against its training time.  Each RUN.tsv is a table written by crfpipe train "
     "--report RUN.tsv; NAME= names it in the legend (default: the file name without .tsv).",
     plot_opts, N(plot_opts), NULL},
    {"model", "dump|info|top|import|export [OPTIONS] MODEL",
     "print a model's labels, features and weights, or convert it to or from CRFsuite's "
     "(or from Wapiti's and CRF++'s)",
     "dump prints the labels, the feature configuration, the metadata and every non-zero "
     "weight of MODEL, one line each; info the same without the weights, then the model's "
     "sizes (observations, parameters, non-zero weights in all and per label, the weights' "
     "range and norms); top the weight lines of the dump with the largest weights, filtered "
     "and sorted.  import -o OUT reads a CRFsuite model (crfsuite learn, python-crfsuite, "
     "sklearn-crfsuite) and writes the crfpipe model with the same scores, which tags "
     "CRFsuite data (or attribute tokens) as CRFsuite does, or a Wapiti model (wapiti "
     "train with a pattern file), whose patterns then run in Wapiti's dialect and tag "
     "columns as wapiti label does, or a CRF++ model (crf_learn, binary or -t text), which "
     "tags as crf_test does; export -o OUT writes an "
     "attribute model (--features attributes) without start weights (--all-transitions "
     "false) as a CRFsuite model.",
     model_opts, N(model_opts), NULL},
    {"help", "[COMMAND]", "print the general help, or a command's options",
     "Without COMMAND, the commands and the global options; with it, what crfpipe COMMAND "
     "--help prints.",
     help_opts, N(help_opts), NULL},
};

static const cmddoc *find_cmd(const char *name)
{
    for (size_t i = 0; i < N(commands); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* --- building ------------------------------------------------------------- */

static void helpdoc_free(helpdoc *h)
{
    for (size_t i = 0; i < h->ns; i++)
        free(h->s[i].v);
    for (size_t i = 0; i < h->nstrs; i++)
        free(h->strs[i]);
    free(h->strs);
    for (size_t i = 0; i < h->nspecs; i++)
        free(h->specs[i]);
    memset(h, 0, sizeof *h);
}

/* Keep a string built for this help; NULL when out of memory. */
static const char *keep(helpdoc *h, char *s)
{
    if (!s)
        return NULL;
    if (h->nstrs == h->capstrs) {
        size_t nc = h->capstrs ? 2 * h->capstrs : 32;
        char **ns = realloc(h->strs, nc * sizeof *ns);
        if (!ns) {
            free(s);
            return NULL;
        }
        h->strs = ns;
        h->capstrs = nc;
    }
    return h->strs[h->nstrs++] = s;
}

static const char *keepf(helpdoc *h, const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a, b ? b : "");
    return keep(h, s);
}

static section *add_section(helpdoc *h, const char *title, const char *note)
{
    if (h->ns == MAX_SECTIONS)
        return NULL;
    section *s = &h->s[h->ns++];
    memset(s, 0, sizeof *s);
    s->title = title;
    s->note = note;
    return s;
}

static crfp_status add_opt(section *s, const optdoc *o)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 16;
        optdoc *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return CRFP_ENOMEM;
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = *o;
    return CRFP_OK;
}

static crfp_status add_table(helpdoc *h, const char *title, const optdoc *t, size_t n)
{
    section *s = add_section(h, title, NULL);
    if (!s)
        return CRFP_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (add_opt(s, &t[i]) != CRFP_OK)
            return CRFP_ENOMEM;
    return CRFP_OK;
}

static const char *metavar(crfp_param_type t)
{
    switch (t) {
    case CRFP_PARAM_INT: return "N";
    case CRFP_PARAM_FLOAT: return "X";
    case CRFP_PARAM_BOOL: return "BOOL";
    case CRFP_PARAM_PATH: return "FILE";
    case CRFP_PARAM_STRING: break;
    }
    return "VALUE";
}

/* Whether `text` mentions a default (case-insensitive): plugins that
 * explain theirs in words ("default: last column") keep their wording. */
static int says_default(const char *text)
{
    for (const char *p = text; *p; p++)
        if (strncasecmp(p, "default", 7) == 0)
            return 1;
    return 0;
}

/* The option a stage parameter becomes: --NAME VALUE, its default taken
 * from the declaration ("" shown as ""), unless the help text already
 * says what the default means. */
static crfp_status add_spec(helpdoc *h, section *s, const crfp_param_spec *p, int as_param)
{
    optdoc o = {0};
    o.name = as_param ? p->name : keepf(h, "--%s", p->name, NULL);
    if (!o.name)
        return CRFP_ENOMEM;
    o.arg = metavar(p->type);
    o.help = p->help ? p->help : "";
    if (p->defval && !says_default(o.help))
        o.def = *p->defval ? p->defval : "\"\"";
    return add_opt(s, &o);
}

static int table_has(const optdoc *t, size_t n, const char *pname)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(t[i].name, "--", 2) == 0 && strcmp(t[i].name + 2, pname) == 0)
            return 1;
    return 0;
}

/* The value of option --name in argv (either form), else dflt. */
static const char *argv_value(int argc, char **argv, const char *name, const char *dflt)
{
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0)
            continue;
        if (a[2 + n] == '=')
            return a + 3 + n;
        if (a[2 + n] == '\0' && i + 1 < argc)
            return argv[i + 1];
    }
    return dflt;
}

static crfp_status stage_specs(crfp_host *host, helpdoc *h, const char *plugin,
                               crfp_param_spec **specs, size_t *n)
{
    if (h->nspecs == MAX_SECTIONS)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    crfp_status st = crfp_pipeline_stage_params(host, plugin, specs, n);
    if (st == CRFP_OK)
        h->specs[h->nspecs++] = *specs;
    return st;
}

static crfp_status train_extra(crfp_host *host, int argc, char **argv, helpdoc *h)
{
    const char *list = argv_value(argc, argv, "trainer", "lbfgs");
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    char *names[16];
    size_t nt = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && nt < 16;
         tok = strtok_r(NULL, ",", &save))
        names[nt++] = tok;
    /* Each trainer's own declaration goes in its section; the parameters
     * every trainer stage takes go once in a common one, with the common
     * default (a trainer that redeclares one shows its own in its
     * section, and that is the value it gets). */
    section *common = add_section(h, "Options of every trainer", NULL);
    if (!common)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    if (nt > 1)
        common->note = "In a chain, --NAME.PARAM (or --N.PARAM, N counting from 1) sets PARAM "
                       "for trainer NAME alone; a plain --PARAM goes to every trainer that "
                       "declares it.  --model is the last trainer's, --init-model the first's.";
    for (size_t k = 0; k < nt; k++) {
        const crfp_plugin *pl;
        crfp_param_spec *specs;
        size_t n;
        crfp_status st = crfp_host_load_kind(host, names[k], CRFP_KIND_TRAINER, &pl);
        if (st == CRFP_OK)
            st = stage_specs(host, h, names[k], &specs, &n);
        if (st != CRFP_OK)
            return crfp_error_prefix(host, "--trainer %s", names[k]);
        const crfp_plugin_descriptor *d = pl->desc;
        const char *title = keepf(h, "Options of trainer %s (crfpipe plugins %s)", d->name,
                                  d->name);
        section *own = title ? add_section(h, title, NULL) : NULL;
        if (!own)
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
            int declared = 0;
            for (size_t j = 0; j < d->nparams && !declared; j++)
                declared = strcmp(d->params[j].name, specs[i].name) == 0;
            int seen = 0;
            for (size_t j = 0; j < common->n && !seen; j++)
                seen = strcmp(common->v[j].name + 2, specs[i].name) == 0;
            if (declared)
                st = add_spec(h, own, &specs[i], 0);
            else if (!seen)
                st = add_spec(h, common, &specs[i], 0);
            if (st != CRFP_OK)
                return crfp_error(host, CRFP_ENOMEM, "out of memory");
        }
    }
    return CRFP_OK;
}

/* Writer options of crfpipe tag, with the declaration of the first writer
 * (conllu, then conll) that has them. */
/* The reader's (--from, --format) or writer's (--to) parameters, when
 * the command line names its format: a section "Parameters of KIND NAME,
 * given as --reader-param / --writer-param NAME=VALUE". */
static const struct format_end {
    const char *opt, *param;
    crfp_kind kind;
} format_ends[] = {{"from", "--reader-param", CRFP_KIND_READER},
                   {"format", "--reader-param", CRFP_KIND_READER},
                   {"to", "--writer-param", CRFP_KIND_WRITER}};

static crfp_status format_params(crfp_host *host, int argc, char **argv, helpdoc *h,
                                 const struct format_end *e)
{
    const char *fmt = argv_value(argc, argv, e->opt, NULL);
    if (!fmt)
        return CRFP_OK;
    const crfp_plugin *pl;
    if (crfp_host_find_format(host, e->kind, fmt, &pl) != CRFP_OK)
        return crfp_error_prefix(host, "--%s", e->opt);
    const crfp_plugin_descriptor *d = pl->desc;
    char t[160];
    snprintf(t, sizeof t, "Parameters of %s %s, given as %s NAME=VALUE", crfp_kind_name(d->kind),
             d->name, e->param);
    const char *title = keep(h, strdup(t));
    section *s = title ? add_section(h, title, NULL) : NULL;
    if (!s)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    s->params = 1;
    for (size_t i = 0; i < d->nparams; i++)
        if (add_spec(h, s, &d->params[i], 1) != CRFP_OK)
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
    return CRFP_OK;
}

static crfp_status tag_writer_section(crfp_host *host, helpdoc *h)
{
    section *s = add_section(h, "Writer options (CoNLL and CoNLL-U output)",
                             "Other writers' parameters: --writer-param NAME=VALUE.");
    if (!s)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    static const char *const fmts[] = {"conllu", "conll"};
    for (size_t k = 0; k < cli_tag_writer_nopts; k++) {
        for (size_t f = 0; f < N(fmts); f++) {
            const crfp_plugin *pl;
            if (crfp_host_find_format(host, CRFP_KIND_WRITER, fmts[f], &pl) != CRFP_OK)
                continue;
            const crfp_plugin_descriptor *d = pl->desc;
            size_t i = 0;
            while (i < d->nparams && strcmp(d->params[i].name, cli_tag_writer_opts[k]) != 0)
                i++;
            if (i < d->nparams) {
                if (add_spec(h, s, &d->params[i], 0) != CRFP_OK)
                    return crfp_error(host, CRFP_ENOMEM, "out of memory");
                break;
            }
        }
    }
    crfp_error_clear(host);
    return CRFP_OK;
}

static crfp_status tag_extra(crfp_host *host, int argc, char **argv, helpdoc *h)
{
    const char *tagger = argv_value(argc, argv, "tagger", "viterbi");
    crfp_param_spec *specs;
    size_t n;
    const crfp_plugin *pl;
    crfp_status st = crfp_host_load_kind(host, tagger, CRFP_KIND_TAGGER, &pl);
    if (st == CRFP_OK)
        st = stage_specs(host, h, tagger, &specs, &n);
    if (st != CRFP_OK)
        return crfp_error_prefix(host, "--tagger %s", tagger);
    const char *title = keepf(h, "Options of tagger %s (crfpipe plugins %s)", tagger, tagger);
    section *s = title ? add_section(h, title, NULL) : NULL;
    if (!s)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        /* crfpipe tag's own --output (the file), --posteriors and --force
         * (flags) take the place of the tagger's parameters of those names. */
        if (table_has(tag_opts, N(tag_opts), specs[i].name))
            continue;
        if (add_spec(h, s, &specs[i], 0) != CRFP_OK)
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    st = tag_writer_section(host, h);
    for (size_t e = 1; e < N(format_ends) && st == CRFP_OK; e++)
        st = format_params(host, argc, argv, h, &format_ends[e]);
    return st;
}

static crfp_status convert_extra(crfp_host *host, int argc, char **argv, helpdoc *h)
{
    crfp_status st = format_params(host, argc, argv, h, &format_ends[0]);
    return st == CRFP_OK ? format_params(host, argc, argv, h, &format_ends[2]) : st;
}

/* The whole help of a command; on failure the message is in host. */
static crfp_status build(crfp_host *host, const cmddoc *c, int argc, char **argv, helpdoc *h)
{
    memset(h, 0, sizeof *h);
    crfp_status st = CRFP_OK;
    if (c->nopts)
        st = add_table(h, "Options", c->opts, c->nopts);
    if (st == CRFP_OK && c->extra)
        st = c->extra(host, argc, argv, h);
    else if (st != CRFP_OK)
        st = crfp_error(host, st, "out of memory");
    if (st == CRFP_OK && add_table(h, "Global options (crfpipe --help)", global_opts,
                                   N(global_opts)) != CRFP_OK)
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
    if (st != CRFP_OK)
        helpdoc_free(h);
    return st;
}

/* --- printing ------------------------------------------------------------- */

enum { WIDTH = 79, HELPCOL = 24 };

/* Print `text` wrapped to WIDTH, every line but the first indented by
 * `indent` columns; the first line starts at column `col`. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
    const char *p = text;
    int first = 1;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *w = p;
        while (*p && *p != ' ')
            p++;
        int len = (int)(p - w);
        if (len == 0)
            break;
        if (!first && col + 1 + len > WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
            first = 1;
        }
        fprintf(f, "%s%.*s", first ? "" : " ", len, w);
        col += len + (first ? 0 : 1);
        first = 0;
    }
    fputc('\n', f);
}

static void print_opt(FILE *f, const optdoc *o, int params)
{
    char head[160];
    if (params)
        snprintf(head, sizeof head, "  %s=%s", o->name, o->arg ? o->arg : "");
    else
        snprintf(head, sizeof head, "  %s%s%s%s%s", o->alias ? o->alias : "",
                 o->alias ? ", " : "", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    fputs(head, f);
    int col = (int)strlen(head);
    if (col + 2 > HELPCOL) {
        fprintf(f, "\n%*s", HELPCOL, "");
    } else {
        fprintf(f, "%*s", HELPCOL - col, "");
    }
    char text[1024];
    if (o->def)
        snprintf(text, sizeof text, "%s (default: %s)", o->help, o->def);
    else
        snprintf(text, sizeof text, "%s", o->help);
    wrap(f, text, HELPCOL, HELPCOL);
}

static void print_help(FILE *f, const cmddoc *c, const helpdoc *h)
{
    fprintf(f, "usage: crfpipe %s %s\n\n", c->name, c->usage);
    wrap(f, c->text, 0, 0);
    for (size_t i = 0; i < h->ns; i++) {
        const section *s = &h->s[i];
        if (s->n == 0)
            continue;
        fprintf(f, "\n%s:\n", s->title);
        if (s->note) {
            fputs("  ", f);
            wrap(f, s->note, 2, 2);
        }
        for (size_t k = 0; k < s->n; k++)
            print_opt(f, &s->v[k], s->params);
    }
    fprintf(f, "\nSee crfpipe-%s(1).\n", c->name);
}

void cli_help_general(FILE *f)
{
    fprintf(f, "usage: crfpipe [GLOBAL OPTIONS] COMMAND [ARGS]\n\n"
               "A text pipeline around a sparse linear-chain CRF: readers, writers, features,\n"
               "trainers and taggers are plugins.\n\nCommands:\n");
    for (size_t i = 0; i < N(commands); i++)
        fprintf(f, "  %-10s  %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nGlobal options (anywhere on the line):\n");
    for (size_t i = 0; i < N(global_opts); i++)
        print_opt(f, &global_opts[i], 0);
    fprintf(f, "\nEnvironment: CRFPIPE_PLUGIN_PATH (':'-separated plugin directories),\n"
               "CRFPIPE_LIMITS (as --limit, e.g. \"line=4M,regex-time=5000\"), CRFPIPE_PROGRESS\n"
               "(always or never: the progress bar regardless of the terminal).\n\n"
               "'crfpipe COMMAND --help' or 'crfpipe help COMMAND' lists a command's options;\n"
               "see crfpipe(1) and crfpipe-COMMAND(1).\n");
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    }
    return 0;
}

int cli_help(crfp_host *host, int argc, char **argv)
{
    const cmddoc *c = find_cmd(argv[0]);
    if (!c) {
        fprintf(stderr, "crfpipe: unknown command '%s'%s\n", argv[0],
                cli_suggest_command(argv[0]));
        return CLI_USAGE;
    }
    helpdoc h;
    if (build(host, c, argc, argv, &h) != CRFP_OK)
        return cli_fail(host);
    print_help(stdout, c, &h);
    helpdoc_free(&h);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "crfpipe: error: <stdout>: write error\n");
        return CLI_FAIL;
    }
    return CLI_OK;
}

static void print_names(FILE *f, const optdoc *o)
{
    fprintf(f, "%s\n", o->name);
    if (o->alias)
        fprintf(f, "%s\n", o->alias);
}

int cli_help_main(crfp_host *host, int argc, char **argv)
{
    if (argc < 2) {
        cli_help_general(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--commands") == 0) {
        for (size_t i = 0; i < N(commands); i++)
            printf("%s\n", commands[i].name);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--global-options") == 0) {
        for (size_t i = 0; i < N(global_opts); i++)
            print_names(stdout, &global_opts[i]);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--options") == 0) {
        if (argc < 3)
            return cli_usage("help", "--options needs a command name");
        const cmddoc *c = find_cmd(argv[2]);
        if (!c)
            return cli_usage("help", "unknown command '%s'%s", argv[2],
                             cli_suggest_command(argv[2]));
        helpdoc h;
        if (build(host, c, argc - 2, argv + 2, &h) != CRFP_OK)
            return cli_fail(host);
        /* The command's own options only: the global ones are listed by
         * --global-options. */
        for (size_t i = 0; i + 1 < h.ns; i++)
            for (size_t k = 0; !h.s[i].params && k < h.s[i].n; k++)
                print_names(stdout, &h.s[i].v[k]);
        helpdoc_free(&h);
        return CLI_OK;
    }
    if (argv[1][0] == '-' && strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-h") != 0)
        return cli_unknown_option(host, argc, argv, argv[1]);
    if (argv[1][0] == '-')
        return cli_help(host, argc, argv);
    return cli_help(host, argc - 1, argv + 1);
}

/* --- suggestions ---------------------------------------------------------- */

int cli_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)
        return 100;
    /* optimal string alignment: three rows of the dynamic programme */
    int rows[3][65];
    int *pp = rows[0], *p = rows[1], *c = rows[2];
    for (size_t j = 0; j <= m; j++)
        p[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        c[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = p[j] + 1;
            if (c[j - 1] + 1 < v)
                v = c[j - 1] + 1;
            if (p[j - 1] + cost < v)
                v = p[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            c[j] = v;
        }
        int *t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[m] > 100 ? 100 : p[m];
}

/* Whether `cand` is close enough to `typed` to be offered: a few edits
 * (more for longer names), or `typed` is an unambiguous-looking prefix. */
static int close_enough(const char *typed, const char *cand, int d)
{
    size_t n = strlen(typed);
    int limit = n <= 3 ? 1 : n <= 7 ? 2 : 3;
    return d <= limit || (n >= 3 && strncmp(cand, typed, n) == 0);
}

/* The nearest of names[0..n) to typed (NULL when none is close); on equal
 * distance the first listed wins. */
static const char *nearest(const char *typed, const char *const *names, size_t n)
{
    const char *best = NULL;
    int bd = 1000;
    for (size_t i = 0; i < n; i++) {
        int d = cli_edit_distance(typed, names[i]);
        /* a prefix is as good as one edit */
        if (strlen(typed) >= 3 && strncmp(names[i], typed, strlen(typed)) == 0 && d > 1)
            d = 1;
        if (d < bd && close_enough(typed, names[i], d)) {
            bd = d;
            best = names[i];
        }
    }
    return best;
}

const char *cli_suggest_command(const char *name)
{
    static char buf[96];
    const char *names[N(commands)];
    for (size_t i = 0; i < N(commands); i++)
        names[i] = commands[i].name;
    const char *b = nearest(name, names, N(commands));
    if (!b)
        return "";
    snprintf(buf, sizeof buf, " (did you mean '%s'?)", b);
    return buf;
}

const char *cli_foreign_hint(const cli_foreign *table, size_t n, const char *arg)
{
    size_t len = strcspn(arg, "=");
    for (size_t k = 0; k < n; k++)
        if (strlen(table[k].opt) == len && strncmp(arg, table[k].opt, len) == 0)
            return table[k].hint;
    return NULL;
}

int cli_unknown_option(crfp_host *host, int argc, char **argv, const char *opt)
{
    char typed[128];
    snprintf(typed, sizeof typed, "%s", opt);
    char *eq = strchr(typed, '=');
    if (eq)
        *eq = '\0';
    const char *best = NULL;
    const cmddoc *c = find_cmd(argv[0]);
    helpdoc h;
    /* The help of a command whose plugins cannot be loaded still has its
     * static options to offer. */
    if (c && build(host, c, argc, argv, &h) != CRFP_OK) {
        crfp_error_clear(host);
        memset(&h, 0, sizeof h);
        if (c->nopts)
            add_table(&h, "Options", c->opts, c->nopts);
        add_table(&h, "Global", global_opts, N(global_opts));
    }
    if (c) {
        size_t n = 0;
        for (size_t i = 0; i < h.ns; i++)
            n += h.s[i].params ? 0 : 2 * h.s[i].n;
        const char **names = malloc((n + 1) * sizeof *names);
        if (names) {
            size_t k = 0;
            for (size_t i = 0; i < h.ns; i++)
                for (size_t j = 0; !h.s[i].params && j < h.s[i].n; j++) {
                    names[k++] = h.s[i].v[j].name;
                    if (h.s[i].v[j].alias)
                        names[k++] = h.s[i].v[j].alias;
                }
            /* compare without the dashes, so that "-template" finds
             * "--template", and without a trainer prefix ("--lbfgs.histroy"
             * is "--lbfgs." + the nearest of "histroy") */
            const char *t = typed;
            while (*t == '-')
                t++;
            const char *dot = strchr(t, '.');
            size_t prefix = dot ? (size_t)(dot + 1 - t) : 0;
            t += prefix;
            const char **bare = malloc((k + 1) * sizeof *bare);
            if (bare) {
                for (size_t i = 0; i < k; i++) {
                    bare[i] = names[i];
                    while (*bare[i] == '-')
                        bare[i]++;
                }
                const char *b = nearest(t, bare, k);
                for (size_t i = 0; b && i < k; i++)
                    if (bare[i] == b)
                        best = names[i];
                free(bare);
            }
            /* best points into h or the static tables: print before freeing */
            fprintf(stderr, "crfpipe %s: unknown option '%s'", argv[0], typed);
            if (best && prefix && strncmp(best, "--", 2) == 0)
                fprintf(stderr, "; did you mean '--%.*s%s'?", (int)prefix,
                        typed + strspn(typed, "-"), best + 2);
            else if (best)
                fprintf(stderr, "; did you mean '%s'?", best);
            fprintf(stderr, "\n(see 'crfpipe %s --help')\n", argv[0]);
            free(names);
            helpdoc_free(&h);
            return CLI_USAGE;
        }
        helpdoc_free(&h);
    }
    fprintf(stderr, "crfpipe %s: unknown option '%s'\n(see 'crfpipe %s --help')\n", argv[0], typed,
            argv[0]);
    return CLI_USAGE;
}

const char *cli_suggest_plugin(crfp_host *host, int kind, const char *name)
{
    static char buf[160];
    const crfp_plugin **list;
    size_t n;
    /* Scanning loads every module; its failures are not this error. */
    crfp_status saved = crfp_errcode(host);
    char *msg = strdup(crfp_errmsg(host));
    buf[0] = '\0';
    if (crfp_host_scan(host, &list, &n, NULL, NULL) == CRFP_OK && n > 0) {
        const char **names = malloc(n * sizeof *names);
        size_t k = 0;
        for (size_t i = 0; names && i < n; i++)
            if (kind == 0 || (int)list[i]->desc->kind == kind)
                names[k++] = list[i]->desc->name;
        const char *b = names ? nearest(name, names, k) : NULL;
        if (b)
            snprintf(buf, sizeof buf, " (did you mean '%s'?)", b);
        free(names);
    }
    if (msg)
        crfp_error(host, saved, "%s", msg);
    free(msg);
    return buf;
}
