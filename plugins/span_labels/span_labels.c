/* span_labels — annotations over the text made token labels: GATE's Person
 * and Location, a Mention with a class feature, crfpipe's own Chunk and
 * Entity spans become B-x / I-x / O on the Tokens under them, which is what
 * a sequence tagger trains on and is scored against.  The reverse of the
 * spans the viterbi stage makes of BIO labels; GATE's Learning Framework
 * does the same for its chunking tasks.
 *
 * A tagger-kind stage.  The spans are the annotations of the `types` in the
 * set `span-set` (GATE keeps its gold in "Key"); a span's label type is the
 * annotation type, or its feature `type-feature` when that is given
 * (Entity spans with a `type`: person, location...).  The Tokens are those
 * of `set`.  A token overlapping a span gets B-TYPE (the first) or I-TYPE
 * (`scheme=bio`; `bioes` adds E- and S-, `io` uses I- alone), every other
 * token `outside`; the label is written as the token feature `output`
 * (replacing one of that name), appended to the document's columns and
 * named its default label (metadata default-label), which a trainer given
 * no label takes.
 *
 * Spans are taken by start, the longest first; a span that overlaps one
 * taken (nested or crossing) is left out, as is a span over no token.  A
 * span whose ends fall inside tokens labels the tokens it overlaps, and a
 * span over two sentences continues with I- into the second.  Each of the
 * four is said in a warning naming the document, the span and how many
 * such spans the document has, for the first document that has them: a
 * gold entity lost or cut without a word would make the training data
 * silently wrong.  A span lacking its `type-feature`, or whose type holds
 * a blank, is an error naming it.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

#include "../common/columns.h"

static const crfp_param_spec params[] = {
    {"types", CRFP_PARAM_STRING, "Entity",
     "comma-separated annotation types whose spans become labels (e.g. Person,Location)"},
    {"type-feature", CRFP_PARAM_STRING, "",
     "the span feature holding its label type (e.g. type, class); empty: the annotation type"},
    {"span-set", CRFP_PARAM_STRING, "", "annotation set holding the spans (GATE's gold: Key)"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentence and Token annotations"},
    {"output", CRFP_PARAM_STRING, "label", "token feature receiving the label"},
    {"scheme", CRFP_PARAM_STRING, "bio", "bio (B-, I-), bioes (also E-, S-) or io (I- only)"},
    {"outside", CRFP_PARAM_STRING, "O", "label of the tokens outside every span"},
};

enum { SCHEME_BIO, SCHEME_BIOES, SCHEME_IO };
enum { W_OVERLAP, W_NOTOKEN, W_MISALIGNED, W_SENTENCES, W_NOSET, NWARN };

typedef struct sl {
    crfp_host *host;
    char **types;
    size_t ntypes;
    char *typefeat, *spanset, *set, *output, *outside;
    int scheme;
    atomic_int warned[NWARN];
} sl;

static void sl_close(void *state)
{
    sl *s = state;
    if (!s)
        return;
    for (size_t i = 0; i < s->ntypes; i++)
        free(s->types[i]);
    free(s->types);
    free(s->typefeat);
    free(s->spanset);
    free(s->set);
    free(s->output);
    free(s->outside);
    free(s);
}

static crfp_status sl_open(crfp_host *host, const crfp_params *p, void **state)
{
    const char *scheme = crfp_params_str(p, "scheme"), *types = crfp_params_str(p, "types");
    int sc = strcmp(scheme, "bio") == 0     ? SCHEME_BIO
             : strcmp(scheme, "bioes") == 0 ? SCHEME_BIOES
             : strcmp(scheme, "io") == 0    ? SCHEME_IO
                                            : -1;
    if (sc < 0)
        return crfp_error(host, CRFP_EINVAL, "span_labels: scheme must be bio, bioes or io, not "
                          "'%s'", scheme);
    if (!*crfp_params_str(p, "output") || !*crfp_params_str(p, "outside"))
        return crfp_error(host, CRFP_EINVAL, "span_labels: output and outside must not be empty");
    sl *s = calloc(1, sizeof *s);
    if (!s)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    s->host = host;
    s->scheme = sc;
    for (int k = 0; k < NWARN; k++)
        atomic_init(&s->warned[k], 0);
    if (!(s->typefeat = strdup(crfp_params_str(p, "type-feature"))) ||
        !(s->spanset = strdup(crfp_params_str(p, "span-set"))) ||
        !(s->set = strdup(crfp_params_str(p, "set"))) ||
        !(s->output = strdup(crfp_params_str(p, "output"))) ||
        !(s->outside = strdup(crfp_params_str(p, "outside"))))
        goto nomem;
    if (columns_split(types, &s->types, &s->ntypes) != 0)
        goto nomem;
    if (s->ntypes == 0) {
        sl_close(s);
        return crfp_error(host, CRFP_EINVAL, "span_labels: types names no annotation type");
    }
    *state = s;
    return CRFP_OK;
nomem:
    sl_close(s);
    return crfp_error(host, CRFP_ENOMEM, "out of memory");
}

typedef struct span {
    size_t start, end;
    const crfp_ann *ann;
    const char *type;
} span;

static int by_start_longest(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->ann->id < y->ann->id ? -1 : x->ann->id > y->ann->id;
}

/* First annotation whose end is past off, of n sorted by start that do not
 * overlap one another (tokens, sentences). */
static size_t first_after(crfp_ann *const *toks, size_t n, size_t off)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (toks[mid]->end <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One warning of kind k for the run: the first document with such spans,
 * with their count there and the first of them. */
static void warn_once(sl *s, int k, const crfp_doc *doc, size_t count, const span *first)
{
    static const char *const what[W_NOSET] = {
        "overlapping a span taken before (nested or crossing): left out",
        "over no token: left out",
        "with an end inside a token: the tokens it overlaps are labelled",
        "over two sentences or more: labelled on, the next sentence starting with I-"};
    if (count == 0 || atomic_exchange(&s->warned[k], 1))
        return;
    crfp_log(s->host, CRFP_LOG_WARN, "span_labels: document '%s': %zu span%s %s (the first: %s "
             "'%.60s' at %zu..%zu); further documents are not reported",
             crfp_doc_id(doc) ? crfp_doc_id(doc) : "", count, count == 1 ? "" : "s", what[k],
             first->ann->type, first->type, first->start, first->end);
}

static crfp_status set_label(sl *s, crfp_doc *doc, crfp_ann *tok, const char *prefix,
                             const char *type, char **buf, size_t *cap)
{
    size_t need = strlen(prefix) + strlen(type) + 1;
    if (need > *cap) {
        char *nb = realloc(*buf, need);
        if (!nb)
            return crfp_error(s->host, CRFP_ENOMEM, "out of memory");
        *buf = nb;
        *cap = need;
    }
    strcpy(*buf, prefix);
    strcat(*buf, type);
    crfp_status st = crfp_ann_set_str(doc, tok, s->output, *buf);
    return st == CRFP_OK ? st : crfp_error(s->host, st, "out of memory");
}

static crfp_status sl_process(void *state, crfp_doc *doc)
{
    sl *s = state;
    crfp_annset *tset = crfp_doc_annset(doc, s->set, 0);
    if (!tset)
        return CRFP_OK;
    size_t len = crfp_doc_length(doc), nt = 0, nsent = 0, nsp = 0;
    crfp_ann **toks = NULL, **sents = NULL;
    span *sp = NULL;
    char *buf = NULL;
    size_t cap = 0;
    const char *id = crfp_doc_id(doc) ? crfp_doc_id(doc) : "";
    crfp_status st = crfp_annset_select(tset, "Token", 0, len, &toks, &nt);
    if (st == CRFP_OK)
        st = crfp_annset_select(tset, "Sentence", 0, len, &sents, &nsent);
    if (st != CRFP_OK) {
        st = crfp_error(s->host, st, "out of memory");
        goto out;
    }
    /* the spans of every type */
    crfp_annset *sset = crfp_doc_annset(doc, s->spanset, 0);
    if (!sset && !atomic_exchange(&s->warned[W_NOSET], 1)) {
        /* a set misnamed would label every token O without a word */
        char sets[200] = "";
        size_t ls = 0, ns = crfp_doc_annset_count(doc);
        for (size_t k = 0; k < ns && ls + 4 < sizeof sets; k++)
            ls += (size_t)snprintf(sets + ls, sizeof sets - ls, "%s'%s'", k ? ", " : "",
                                   crfp_annset_name(crfp_doc_annset_at(doc, k)));
        crfp_log(s->host, CRFP_LOG_WARN, "span_labels: document '%s' has no annotation set '%s' "
                 "(it has %s): its tokens are all %s; further documents are not reported", id,
                 s->spanset, *sets ? sets : "none", s->outside);
    }
    for (size_t k = 0; sset && k < s->ntypes && st == CRFP_OK; k++) {
        crfp_ann **a = NULL;
        size_t na = 0;
        if ((st = crfp_annset_select(sset, s->types[k], 0, len, &a, &na)) != CRFP_OK) {
            st = crfp_error(s->host, st, "out of memory");
            break;
        }
        if (na == 0)
            continue;
        span *ns = realloc(sp, (nsp + na) * sizeof *ns);
        if (!ns) {
            free(a);
            st = crfp_error(s->host, CRFP_ENOMEM, "out of memory");
            break;
        }
        sp = ns;
        for (size_t i = 0; i < na && st == CRFP_OK; i++) {
            const char *type = *s->typefeat ? crfp_ann_str(a[i], s->typefeat) : a[i]->type;
            if (!type || !*type || strpbrk(type, " \t\r\n"))
                st = crfp_error(s->host, CRFP_EINVAL, "span_labels: document '%s': %s at "
                                "%zu..%zu has %s '%s' feature: a label type must be a non-empty "
                                "name without blanks", id, a[i]->type, a[i]->start, a[i]->end,
                                type ? "a bad" : "no", *s->typefeat ? s->typefeat : "type");
            sp[nsp++] = (span){a[i]->start, a[i]->end, a[i], type};
        }
        free(a);
    }
    if (st != CRFP_OK)
        goto out;
    if (nsp > 1)   /* (qsort must not be given a NULL base, even for none) */
        qsort(sp, nsp, sizeof *sp, by_start_longest);
    for (size_t i = 0; i < nt && st == CRFP_OK; i++)
        st = crfp_ann_set_str(doc, toks[i], s->output, s->outside);
    if (st != CRFP_OK) {
        st = crfp_error(s->host, st, "out of memory");
        goto out;
    }
    size_t count[NWARN] = {0}, taken_end = 0, last_tok = 0;
    int any = 0;
    const span *first[NWARN] = {NULL};
    for (size_t i = 0; i < nsp && st == CRFP_OK; i++) {
        const span *x = &sp[i];
        size_t a = first_after(toks, nt, x->start), b = a;
        int k = -1;
        /* overlap is decided before the span's tokens are counted: spans
         * piled over one another then cost nothing each */
        if (any && (x->start < taken_end ||
                    (a < nt && a <= last_tok && toks[a]->start < x->end)))
            k = W_OVERLAP;
        else {
            while (b < nt && toks[b]->start < x->end)
                b++;
            if (b == a)
                k = W_NOTOKEN;
        }
        if (k >= 0) {
            if (!count[k]++)
                first[k] = x;
            continue;
        }
        if ((toks[a]->start < x->start || toks[b - 1]->end > x->end) && !count[W_MISALIGNED]++)
            first[W_MISALIGNED] = x;
        size_t si = first_after(sents, nsent, toks[a]->start);
        if (si < nsent && toks[b - 1]->end > sents[si]->end && !count[W_SENTENCES]++)
            first[W_SENTENCES] = x;
        any = 1;
        taken_end = x->end;
        last_tok = b - 1;
        for (size_t t = a; t < b && st == CRFP_OK; t++) {
            const char *pre = "I-";
            if (s->scheme != SCHEME_IO && t == a)
                pre = s->scheme == SCHEME_BIOES && b - a == 1 ? "S-" : "B-";
            else if (s->scheme == SCHEME_BIOES && t == b - 1)
                pre = "E-";
            st = set_label(s, doc, toks[t], pre, x->type, &buf, &cap);
        }
    }
    for (int k = 0; k < W_NOSET && st == CRFP_OK; k++)
        warn_once(s, k, doc, count[k], first[k]);
    if (st == CRFP_OK) {
        /* the label a trainer takes when none is named */
        const char *names[1] = {s->output};
        if ((st = columns_extend(doc, names, 1)) != CRFP_OK ||
            (st = crfp_doc_meta_set_str(doc, "default-label", s->output)) != CRFP_OK)
            st = crfp_error(s->host, st, "out of memory");
    }
out:
    free(toks);
    free(sents);
    free(sp);
    free(buf);
    return st;
}

static const crfp_stage_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = sl_open,
    .process = sl_process,
    .close = sl_close,
    .process_concurrent = sl_process,
};

CRFP_PLUGIN_DEFINE(span_labels) = {
    CRFP_PLUGIN_ABI,
    .name = "span_labels",
    .kind = CRFP_KIND_TAGGER,
    .version = "1.0",
    .description = "annotation spans (GATE's Person, Location; Entity, Chunk) as B-/I-/O token "
                   "labels to train and score on",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
