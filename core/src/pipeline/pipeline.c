/* Pipelines: building, loading from XML, and streaming documents through. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <pthread.h>

#include "crfpipe/crfpipe.h"
#include "../host/host_priv.h"
#include "../train/train.h"
#include "../doc/xmlcommon.h"
#include "../train/dist.h"

/* The order a pipeline's stages must follow; equal phases may repeat only
 * where `repeat` says so. */
static int phase_of(crfp_kind k)
{
    switch (k) {
    case CRFP_KIND_READER: return 0;
    case CRFP_KIND_TOKENIZER: return 1;
    case CRFP_KIND_FEATURES: return 2;
    case CRFP_KIND_TAGGER: return 3;
    case CRFP_KIND_WRITER: return 4;
    case CRFP_KIND_TRAINER: return 4;
    }
    return -1;
}

typedef struct stage {
    const crfp_plugin *plugin;
    crfp_params *params;
    crfp_param_spec *merged; /* trainer: common + optimizer parameters */
    char *where;
    void *state;             /* reader/writer/stage state, or extractor */
    char *saved;             /* features: a saved configuration to load, or NULL */
    size_t saved_len;
    char *origin;            /* what `saved` came from, for messages */
} stage;

/* A run in progress, from crfp_pipeline_begin to crfp_pipeline_end: the
 * document stages stay open across the feeds, each feed opens the reader
 * on its input (and a writer on its output, if it has one). */
typedef struct session {
    int active;
    stage rd, wr;                /* the implicit XML reader and writer */
    stage *reader, *writer;
    crfp_trainrun *run;
    crfp_train_stage tstages[16];
    size_t ntrain, opened, inputs;
    int common_out;              /* the writer was opened by begin, on one output */
} session;

struct crfp_pipeline {
    crfp_host *host;
    stage *st;
    size_t n, cap;
    int has[7];  /* stage index + 1 per kind, for the once-only kinds */
    session ss;
};

crfp_pipeline *crfp_pipeline_new(crfp_host *host)
{
    crfp_pipeline *p = calloc(1, sizeof *p);
    if (p)
        p->host = host;
    return p;
}

static void session_close(crfp_pipeline *p);

void crfp_pipeline_free(crfp_pipeline *p)
{
    if (!p)
        return;
    if (p->ss.active)
        session_close(p);
    for (size_t i = 0; i < p->n; i++) {
        crfp_params_free(p->st[i].params);
        free(p->st[i].merged);
        free(p->st[i].where);
        free(p->st[i].saved);
        free(p->st[i].origin);
    }
    free(p->st);
    free(p);
}

int crfp_pipeline_is_training(const crfp_pipeline *p)
{
    return p->has[CRFP_KIND_TRAINER] != 0;
}

const crfp_plugin *crfp_pipeline_plugin(const crfp_pipeline *p, crfp_kind kind)
{
    if ((kind != CRFP_KIND_READER && kind != CRFP_KIND_WRITER && kind != CRFP_KIND_FEATURES &&
         kind != CRFP_KIND_TRAINER) ||
        !p->has[kind])
        return NULL;
    return p->st[p->has[kind] - 1].plugin;
}

/* Trainer stages take the driver's common parameters plus the optimizer's
 * own.  A name declared by both is the same parameter; the optimizer's
 * declaration (of the same type) wins, so that it can give a common
 * parameter the default that suits it (sgd-l1 is an l1 method: its rho1
 * is not 0), with its own help text. */
static crfp_param_spec *merge_specs(const crfp_plugin_descriptor *d, size_t *n)
{
    size_t cap = crfp_train_common_nparams + d->nparams, k = 0;
    crfp_param_spec *m = malloc(cap * sizeof *m);
    if (!m)
        return NULL;
    for (size_t i = 0; i < crfp_train_common_nparams; i++)
        m[k++] = crfp_train_common_params[i];
    for (size_t i = 0; i < d->nparams; i++) {
        size_t j = 0;
        while (j < crfp_train_common_nparams &&
               strcmp(crfp_train_common_params[j].name, d->params[i].name) != 0)
            j++;
        if (j == crfp_train_common_nparams)
            m[k++] = d->params[i];
        else if (d->params[i].type == crfp_train_common_params[j].type)
            m[j] = d->params[i];
    }
    *n = k;
    return m;
}

int crfp_pipeline_stage_accepts(crfp_host *host, const char *plugin, const char *param)
{
    const crfp_plugin *pl;
    if (crfp_host_load(host, plugin, &pl) != CRFP_OK)
        return 0;
    const crfp_plugin_descriptor *d = pl->desc;
    for (size_t i = 0; i < d->nparams; i++)
        if (strcmp(d->params[i].name, param) == 0)
            return 1;
    if (d->kind == CRFP_KIND_TRAINER)
        for (size_t i = 0; i < crfp_train_common_nparams; i++)
            if (strcmp(crfp_train_common_params[i].name, param) == 0)
                return 1;
    return 0;
}

crfp_status crfp_pipeline_stage_params(crfp_host *host, const char *plugin,
                                       crfp_param_spec **specs, size_t *n)
{
    const crfp_plugin *pl;
    crfp_status st = crfp_host_load(host, plugin, &pl);
    if (st != CRFP_OK)
        return st;
    const crfp_plugin_descriptor *d = pl->desc;
    if (d->kind == CRFP_KIND_TRAINER) {
        *specs = merge_specs(d, n);
    } else {
        *n = d->nparams;
        *specs = malloc((d->nparams ? d->nparams : 1) * sizeof **specs);
        if (*specs && d->nparams)
            memcpy(*specs, d->params, d->nparams * sizeof **specs);
    }
    return *specs ? CRFP_OK : crfp_error(host, CRFP_ENOMEM, "out of memory");
}

crfp_status crfp_pipeline_add(crfp_pipeline *p, const char *plugin, const char *where,
                              const char *const *names, const char *const *values, size_t n,
                              const char *basedir)
{
    crfp_host *host = p->host;
    const crfp_plugin *pl;
    crfp_status st = crfp_host_load(host, plugin, &pl);
    if (st != CRFP_OK) {
        crfp_error_wrap(host, st, "%s: stage '%s'", where, plugin);
        return st;
    }
    crfp_kind kind = pl->desc->kind;
    int ph = phase_of(kind);
    if (ph < 0)
        return crfp_error(host, CRFP_EINVAL, "%s: stage '%s': plugin kind %s cannot be a "
                          "pipeline stage", where, plugin, crfp_kind_name(kind));
    if (p->n > 0) {
        crfp_kind prev = p->st[p->n - 1].plugin->desc->kind;
        int once = kind == CRFP_KIND_READER || kind == CRFP_KIND_FEATURES ||
                   kind == CRFP_KIND_WRITER;
        /* Trainers chain: each starts from the previous one's solution.
         * Taggers may come before the features stage: they run on every
         * document before its features are extracted (process_doc, then
         * crfp_train_add), so a training pipeline can give the template
         * what a tagger or a dictionary stage adds (tagdict_build). */
        int chain = kind == CRFP_KIND_TRAINER && prev == CRFP_KIND_TRAINER;
        chain |= kind == CRFP_KIND_FEATURES && prev == CRFP_KIND_TAGGER &&
                 !p->has[CRFP_KIND_FEATURES];
        if (!chain && (phase_of(prev) > ph || (phase_of(prev) == ph && once) ||
                       prev == CRFP_KIND_WRITER || prev == CRFP_KIND_TRAINER))
            return crfp_error(host, CRFP_EINVAL, "%s: stage '%s' (%s) cannot come after a %s "
                              "stage; order: reader? tokenizer* tagger* features? (tagger* "
                              "writer? | trainer+)", where, plugin, crfp_kind_name(kind),
                              crfp_kind_name(prev));
    }
    if (kind == CRFP_KIND_TRAINER && !p->has[CRFP_KIND_FEATURES])
        return crfp_error(host, CRFP_EINVAL, "%s: trainer stage '%s' needs a features stage "
                          "(e.g. templates) before it", where, plugin);
    if (p->n == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 8;
        stage *ns = realloc(p->st, nc * sizeof *ns);
        if (!ns)
            return crfp_error(host, CRFP_ENOMEM, "out of memory");
        p->st = ns;
        p->cap = nc;
    }
    stage *s = &p->st[p->n];
    memset(s, 0, sizeof *s);
    s->plugin = pl;
    if (!(s->where = strdup(where)))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    if (kind == CRFP_KIND_TRAINER) {
        size_t nm;
        if (!(s->merged = merge_specs(pl->desc, &nm)))
            goto nomem;
        s->params = crfp_params_new(s->merged, nm);
    } else {
        s->params = crfp_params_new(pl->desc->params, pl->desc->nparams);
    }
    if (!s->params)
        goto nomem;
    char loc[512];
    snprintf(loc, sizeof loc, "%s: stage '%s'", where, plugin);
    for (size_t i = 0; i < n; i++)
        if ((st = crfp_params_set(host, s->params, loc, names[i], values[i], basedir)) != CRFP_OK)
            goto fail;
    p->has[kind] = (int)p->n + 1;
    p->n++;
    return CRFP_OK;
nomem:
    st = crfp_error(host, CRFP_ENOMEM, "out of memory");
fail:
    crfp_params_free(s->params);
    free(s->merged);
    free(s->where);
    memset(s, 0, sizeof *s);
    return st;
}

crfp_status crfp_pipeline_add_saved_features(crfp_pipeline *p, const char *plugin,
                                             const char *where, const char *config, size_t len,
                                             const char *origin)
{
    if (!p || !plugin || !where || (!config && len) || !origin)
        return p ? crfp_error(p->host, CRFP_EINVAL, "pipeline: NULL argument") : CRFP_EINVAL;
    const crfp_plugin *pl;
    crfp_status st = crfp_host_load(p->host, plugin, &pl);
    if (st != CRFP_OK)
        return crfp_error_wrap(p->host, st, "%s: stage '%s'", where, plugin);
    if (pl->desc->kind != CRFP_KIND_FEATURES)
        return crfp_error(p->host, CRFP_EINVAL, "%s: '%s' is a %s plugin, not a features plugin",
                          where, plugin, crfp_kind_name(pl->desc->kind));
    char *saved = malloc(len + 1), *org = strdup(origin);
    if (!saved || !org) {
        free(saved);
        free(org);
        return crfp_error(p->host, CRFP_ENOMEM, "out of memory");
    }
    if (len)
        memcpy(saved, config, len);
    saved[len] = '\0';
    if ((st = crfp_pipeline_add(p, plugin, where, NULL, NULL, 0, NULL)) != CRFP_OK) {
        free(saved);
        free(org);
        return st;
    }
    stage *s = &p->st[p->n - 1];
    s->saved = saved;
    s->saved_len = len;
    s->origin = org;
    return CRFP_OK;
}

/* --- loading a pipeline file --------------------------------------------- */

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    size_t n = (size_t)(slash - path);
    char *d = malloc(n + 2);
    if (d) {
        memcpy(d, path, n ? n : 1);
        d[n ? n : 1] = '\0';
    }
    return d;
}

crfp_status crfp_pipeline_load(crfp_host *host, const char *path, crfp_pipeline **out)
{
    *out = NULL;
    /* One parse, validated: what is walked below is what the schema saw. */
    xmlDocPtr doc;
    crfp_status st = crfp_xml_load_valid(host, path, "pipeline.rng", &doc);
    if (st != CRFP_OK)
        return st;
    crfp_pipeline *p = crfp_pipeline_new(host);
    char *base = dir_of(path);
    if (!p || !base) {
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        goto done;
    }
    xmlNodePtr root = xmlDocGetRootElement(doc);
    for (xmlNodePtr n = root ? root->children : NULL; n && st == CRFP_OK; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || xmlStrcmp(n->name, BAD_CAST "stage") != 0)
            continue;
        /* The schema made these attributes present: NULL from xmlGetProp
         * means that copying one ran out of memory. */
        xmlChar *plugin = xmlGetProp(n, BAD_CAST "plugin");
        const char *names[64], *values[64];
        xmlChar *owned[128];
        size_t np = 0, no = 0;
        char where[600];
        snprintf(where, sizeof where, "%s:%ld", path, xmlGetLineNo(n));
        for (xmlNodePtr c = n->children; c; c = c->next) {
            if (c->type != XML_ELEMENT_NODE || xmlStrcmp(c->name, BAD_CAST "param") != 0)
                continue;
            if (np == 64) {
                st = crfp_error(host, CRFP_EINVAL, "%s: too many parameters", where);
                break;
            }
            xmlChar *nm = xmlGetProp(c, BAD_CAST "name"), *v = xmlGetProp(c, BAD_CAST "value");
            owned[no++] = nm;
            owned[no++] = v;
            if (!nm || !v) {
                st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory", where);
                break;
            }
            names[np] = (const char *)nm;
            values[np++] = (const char *)v;
        }
        if (st == CRFP_OK && !plugin)
            st = crfp_error(host, CRFP_ENOMEM, "%s: out of memory", where);
        if (st == CRFP_OK)
            st = crfp_pipeline_add(p, (const char *)plugin, where, names, values, np, base);
        for (size_t i = 0; i < no; i++)
            xmlFree(owned[i]);
        xmlFree(plugin);
    }
done:
    xmlFreeDoc(doc);
    free(base);
    if (st != CRFP_OK) {
        crfp_pipeline_free(p);
        return st;
    }
    *out = p;
    return CRFP_OK;
}

/* --- running ---------------------------------------------------------------- */

/* Default reader/writer when the pipeline names none. */
static crfp_status implicit_stage(crfp_pipeline *p, const char *plugin, stage *s)
{
    memset(s, 0, sizeof *s);
    crfp_status st = crfp_host_load(p->host, plugin, &s->plugin);
    if (st != CRFP_OK)
        return st;
    s->params = crfp_params_new(s->plugin->desc->params, s->plugin->desc->nparams);
    if (!s->params)
        return crfp_error(p->host, CRFP_ENOMEM, "out of memory");
    return CRFP_OK;
}

/* A plugin that asked its parameter set for something it never declared
 * fails its stage (getters cannot return errors themselves). */
static crfp_status check_misuse(crfp_host *host, const stage *s)
{
    const char *m = crfp_params_misuse(s->params);
    if (!m)
        return CRFP_OK;
    return crfp_error(host, CRFP_EPLUGIN, "%s: stage '%s': plugin %s", s->where,
                      s->plugin->desc->name, m);
}

/* Open the session's writer on `out`. */
static crfp_status open_writer(crfp_pipeline *p, crfp_stream *out)
{
    stage *w = p->ss.writer;
    const crfp_writer_vtable *wv = w->plugin->desc->vtable;
    crfp_status st = wv->open(p->host, w->params, out, &w->state);
    if (st != CRFP_OK) {
        w->state = NULL;
        crfp_error_wrap(p->host, st, "%s", out->name);
    }
    return st;
}

/* Run a document through the tokenizer and tagger stages, in order. */
static crfp_status process_doc(crfp_pipeline *p, crfp_doc *doc)
{
    crfp_status st = CRFP_OK;
    for (size_t i = 0; i < p->n && st == CRFP_OK; i++) {
        stage *s = &p->st[i];
        crfp_kind k = s->plugin->desc->kind;
        if (k != CRFP_KIND_TOKENIZER && k != CRFP_KIND_TAGGER)
            continue;
        const crfp_stage_vtable *sv = s->plugin->desc->vtable;
        if ((st = sv->process(s->state, doc)) != CRFP_OK)
            crfp_error_wrap(p->host, st, "%s: stage '%s'", s->where, s->plugin->desc->name);
    }
    return st;
}

/* --- documents in parallel -------------------------------------------------
 * When every document stage can process documents concurrently (ABI 2.2
 * process_concurrent) and the host's team has more than one member, the
 * stream runs as one job on the team: each member in turn reads the next
 * document (a reader's bounded batch), runs the stages over one already
 * read, or writes the next one in input order, whichever is possible, in
 * that order of preference (writing frees room, processing is the work,
 * reading keeps the others fed).  At most `W` documents are in flight, so
 * memory stays bounded, and reading and writing overlap the processing
 * instead of waiting for it. */

enum { SL_EMPTY, SL_READ, SL_BUSY, SL_DONE };

typedef struct pslot {
    crfp_doc *doc;
    int state;
} pslot;

typedef struct pjob {
    crfp_pipeline *p;
    const crfp_reader_vtable *rv;
    void *rstate;
    const crfp_writer_vtable *wv;
    void *wstate;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pslot *ring;
    size_t W;
    size_t nread, nnext, nwritten; /* documents read, handed out, written */
    int reading, writing, eof;
    /* the failure of the earliest document, which is what a serial run
     * would have reported */
    int failed;
    size_t fail_seq;
    crfp_status fail_st;
    char *fail_msg;
} pjob;

static int all_concurrent(const crfp_pipeline *p)
{
    int n = 0;
    for (size_t i = 0; i < p->n; i++) {
        crfp_kind k = p->st[i].plugin->desc->kind;
        if (k != CRFP_KIND_TOKENIZER && k != CRFP_KIND_TAGGER)
            continue;
        const crfp_stage_vtable *sv = p->st[i].plugin->desc->vtable;
        if (!CRFP_VT_HAS(sv, crfp_stage_vtable, process_concurrent))
            return 0;
        n++;
    }
    return n > 0;
}

static crfp_status process_doc_concurrent(crfp_pipeline *p, crfp_doc *doc)
{
    crfp_status st = CRFP_OK;
    for (size_t i = 0; i < p->n && st == CRFP_OK; i++) {
        stage *s = &p->st[i];
        crfp_kind k = s->plugin->desc->kind;
        if (k != CRFP_KIND_TOKENIZER && k != CRFP_KIND_TAGGER)
            continue;
        const crfp_stage_vtable *sv = s->plugin->desc->vtable;
        if ((st = sv->process_concurrent(s->state, doc)) != CRFP_OK)
            crfp_error_wrap(p->host, st, "%s: stage '%s'", s->where, s->plugin->desc->name);
    }
    return st;
}

/* Called with j->mu held; the message is the calling thread's. */
static void pjob_fail(pjob *j, size_t seq, crfp_status st)
{
    if (j->failed && j->fail_seq <= seq)
        return;
    const char *m = crfp_errmsg(j->p->host);
    char *copy = strdup(*m ? m : crfp_status_str(st));
    if (!copy && j->failed)
        return;
    free(j->fail_msg);
    j->fail_msg = copy;
    j->failed = 1;
    j->fail_seq = seq;
    j->fail_st = st;
}

static void pjob_member(void *arg, int id, int n)
{
    (void)id;
    (void)n;
    pjob *j = arg;
    crfp_host *host = j->p->host;
    crfp_errslot slot = {0};
    crfp_host_errslot(host, &slot);
    pthread_mutex_lock(&j->mu);
    while (!j->failed) {
        pslot *w = &j->ring[j->nwritten % j->W];
        if (!j->writing && j->nwritten < j->nread && w->state == SL_DONE) {
            size_t seq = j->nwritten;
            crfp_doc *doc = w->doc;
            j->writing = 1;
            pthread_mutex_unlock(&j->mu);
            crfp_status st = j->wv->write(j->wstate, doc);
            /* one writer at a time: the progress display sees documents in
             * order, from whichever member writes them */
            if (st == CRFP_OK)
                crfp_host_observe_doc(host, doc);
            crfp_doc_free(doc);
            pthread_mutex_lock(&j->mu);
            w->doc = NULL;
            w->state = SL_EMPTY;
            j->nwritten++;
            j->writing = 0;
            if (st != CRFP_OK)
                pjob_fail(j, seq, st);
            pthread_cond_broadcast(&j->cv);
            continue;
        }
        if (j->nnext < j->nread) {
            size_t seq = j->nnext++;
            pslot *s = &j->ring[seq % j->W];
            s->state = SL_BUSY;
            pthread_mutex_unlock(&j->mu);
            crfp_status st = process_doc_concurrent(j->p, s->doc);
            pthread_mutex_lock(&j->mu);
            s->state = SL_DONE;
            if (st != CRFP_OK)
                pjob_fail(j, seq, st);
            pthread_cond_broadcast(&j->cv);
            continue;
        }
        if (!j->reading && !j->eof && j->nread - j->nwritten < j->W) {
            size_t seq = j->nread;
            j->reading = 1;
            pthread_mutex_unlock(&j->mu);
            crfp_doc *doc = NULL;
            crfp_status st = j->rv->next(j->rstate, &doc);
            if (st == CRFP_OK && doc && crfp_interrupted(host)) {
                crfp_doc_free(doc);
                doc = NULL;
                st = crfp_error(host, CRFP_EINTR, "interrupted");
            }
            pthread_mutex_lock(&j->mu);
            j->reading = 0;
            if (st != CRFP_OK) {
                pjob_fail(j, seq, st);
            } else if (!doc) {
                j->eof = 1;
            } else {
                j->ring[seq % j->W].doc = doc;
                j->ring[seq % j->W].state = SL_READ;
                j->nread++;
            }
            pthread_cond_broadcast(&j->cv);
            continue;
        }
        if (j->eof && j->nwritten == j->nread)
            break;
        pthread_cond_wait(&j->cv, &j->mu);
    }
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    crfp_host_errslot(host, NULL);
    free(slot.msg);
}

/* Read, process and write the whole stream on the team. */
static crfp_status run_parallel(crfp_pipeline *p, crfp_team *team, stage *reader, stage *writer)
{
    crfp_host *host = p->host;
    pjob j;
    memset(&j, 0, sizeof j);
    j.p = p;
    j.rv = reader->plugin->desc->vtable;
    j.rstate = reader->state;
    j.wv = writer->plugin->desc->vtable;
    j.wstate = writer->state;
    /* Two documents per member keep everyone busy while one is read and
     * one written; more would only hold memory. */
    j.W = 2 * (size_t)crfp_team_size(team) + 2;
    if (!(j.ring = calloc(j.W, sizeof *j.ring)))
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    if (pthread_mutex_init(&j.mu, NULL) != 0) {
        free(j.ring);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    if (pthread_cond_init(&j.cv, NULL) != 0) {
        pthread_mutex_destroy(&j.mu);
        free(j.ring);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    crfp_team_run(team, pjob_member, &j);
    for (size_t i = 0; i < j.W; i++)
        crfp_doc_free(j.ring[i].doc);
    crfp_status st = CRFP_OK;
    if (j.failed)
        st = crfp_error(host, j.fail_st, "%s", j.fail_msg ? j.fail_msg : crfp_status_str(j.fail_st));
    free(j.fail_msg);
    pthread_cond_destroy(&j.cv);
    pthread_mutex_destroy(&j.mu);
    free(j.ring);
    return st;
}

/* The dev set is read by the training input's own reader (same
 * parameters) and goes through the same tokenizer and tagger stages, so
 * that it is seen exactly as the training data is. */
static crfp_status feed_dev(crfp_pipeline *p, stage *reader, crfp_trainrun *run)
{
    crfp_host *host = p->host;
    const char *path = crfp_train_param(run, "dev");
    if (!path)
        return CRFP_OK;
    const crfp_reader_vtable *rv = reader->plugin->desc->vtable;
    crfp_stream in = {fopen(path, "rb"), path};
    if (!in.fp)
        return crfp_error(host, errno == ENOMEM ? CRFP_ENOMEM : CRFP_EIO, "%s: %s", path,
                          errno == ENOMEM ? "out of memory opening it" : strerror(errno));
    void *state = NULL;
    /* In a distributed run each rank reads its share of the dev set. */
    crfp_shard shard;
    crfp_status st = crfp_shard_open(host, reader->plugin, &in, &shard);
    crfp_train_set_cut(run, 1, shard.cut);
    if (st == CRFP_OK)
        st = rv->open(host, reader->params, &shard.stream, &state);
    if (st != CRFP_OK)
        crfp_error_wrap(host, st, "%s", path);
    while (st == CRFP_OK) {
        crfp_doc *doc = NULL;
        if ((st = rv->next(state, &doc)) != CRFP_OK || !doc)
            break;
        st = process_doc(p, doc);
        if (st == CRFP_OK)
            st = crfp_train_add_dev(run, doc, path);
        crfp_doc_free(doc);
    }
    if (state)
        rv->close(state);
    crfp_shard_close(&shard);
    fclose(in.fp);
    return st;
}

/* Close what begin and the feeds opened, in the reverse order; safe on a
 * session that failed half-way. */
static void session_close(crfp_pipeline *p)
{
    session *ss = &p->ss;
    crfp_train_free(ss->run);
    ss->run = NULL;
    if (ss->writer && ss->writer->state) {
        const crfp_writer_vtable *wv = ss->writer->plugin->desc->vtable;
        wv->close(ss->writer->state);
        ss->writer->state = NULL;
    }
    for (size_t i = 0; i < ss->opened && i < p->n; i++) {
        stage *s = &p->st[i];
        crfp_kind k = s->plugin->desc->kind;
        /* The reader and writer stages are closed on their own (their
         * state must survive this loop, or the reader is never closed). */
        if (!s->state)
            continue;
        if (k == CRFP_KIND_TOKENIZER || k == CRFP_KIND_TAGGER)
            ((const crfp_stage_vtable *)s->plugin->desc->vtable)->close(s->state);
        else if (k == CRFP_KIND_FEATURES)
            ((const crfp_features_vtable *)s->plugin->desc->vtable)->free(s->state);
        else
            continue;
        s->state = NULL;
    }
    crfp_params_free(ss->rd.params);
    crfp_params_free(ss->wr.params);
    memset(ss, 0, sizeof *ss);
}

crfp_status crfp_pipeline_begin(crfp_pipeline *p, crfp_stream *out)
{
    crfp_host *host = p->host;
    session *ss = &p->ss;
    if (ss->active)
        return crfp_error(host, CRFP_EINVAL, "pipeline: begin while a run is open");
    memset(ss, 0, sizeof *ss);
    ss->active = 1;
    ss->reader = p->has[CRFP_KIND_READER] ? &p->st[p->has[CRFP_KIND_READER] - 1] : NULL;
    ss->writer = p->has[CRFP_KIND_WRITER] ? &p->st[p->has[CRFP_KIND_WRITER] - 1] : NULL;
    stage *features = p->has[CRFP_KIND_FEATURES] ? &p->st[p->has[CRFP_KIND_FEATURES] - 1] : NULL;
    stage *trainer = p->has[CRFP_KIND_TRAINER] ? &p->st[p->has[CRFP_KIND_TRAINER] - 1] : NULL;
    crfp_status st = CRFP_OK;

    if (trainer) {
        for (size_t i = 0; i < p->n; i++) {
            if (p->st[i].plugin->desc->kind != CRFP_KIND_TRAINER)
                continue;
            if (ss->ntrain == sizeof ss->tstages / sizeof *ss->tstages) {
                st = crfp_error(host, CRFP_EINVAL, "%s: more than %zu chained trainers",
                                p->st[i].where, ss->ntrain);
                goto fail;
            }
            ss->tstages[ss->ntrain++] = (crfp_train_stage){p->st[i].plugin, p->st[i].params};
        }
        /* cross-validation alone reports its folds and needs no model */
        if (!crfp_params_str(trainer->params, "model") &&
            crfp_params_int(trainer->params, "cv-folds") == 0) {
            st = crfp_error(host, CRFP_EINVAL, "%s: stage '%s': parameter 'model' is required%s",
                            trainer->where, trainer->plugin->desc->name,
                            ss->ntrain > 1 ? " on the last trainer" : "");
            goto fail;
        }
        /* Before reading anything: a model that cannot be written would
         * otherwise lose the whole run at its end. */
        if ((st = crfp_train_check_models(host, ss->tstages, ss->ntrain)) != CRFP_OK)
            goto fail;
    }
    /* Without a reader or writer stage, documents come and go as XML. */
    if (!ss->reader) {
        const crfp_plugin *pl;
        if ((st = crfp_host_find_format(host, CRFP_KIND_READER, "xml", &pl)) != CRFP_OK ||
            (st = implicit_stage(p, pl->desc->name, &ss->rd)) != CRFP_OK)
            goto fail;
        ss->reader = &ss->rd;
    }
    if (!ss->writer && !trainer) {
        const crfp_plugin *pl;
        if ((st = crfp_host_find_format(host, CRFP_KIND_WRITER, "xml", &pl)) != CRFP_OK ||
            (st = implicit_stage(p, pl->desc->name, &ss->wr)) != CRFP_OK)
            goto fail;
        ss->writer = &ss->wr;
    }
    /* Open document stages in order; remember how many to close. */
    for (ss->opened = 0; ss->opened < p->n; ss->opened++) {
        stage *s = &p->st[ss->opened];
        crfp_kind k = s->plugin->desc->kind;
        if (k == CRFP_KIND_TOKENIZER || k == CRFP_KIND_TAGGER) {
            const crfp_stage_vtable *sv = s->plugin->desc->vtable;
            st = sv->open(host, s->params, &s->state);
        } else if (k == CRFP_KIND_FEATURES) {
            const crfp_features_vtable *fv = s->plugin->desc->vtable;
            st = s->saved ? fv->load(host, s->saved, s->saved_len, s->origin, &s->state)
                          : fv->create(host, s->params, &s->state);
        }
        if (st != CRFP_OK) {
            s->state = NULL;
            crfp_error_wrap(host, st, "%s: stage '%s'", s->where, s->plugin->desc->name);
            goto fail;
        }
        if ((st = check_misuse(host, s)) != CRFP_OK)
            goto fail;
    }
    if (ss->writer && out && (st = open_writer(p, out)) != CRFP_OK)
        goto fail;
    ss->common_out = out != NULL;
    if (trainer &&
        (st = crfp_train_open(host, ss->tstages, ss->ntrain, features->plugin, features->state,
                              &ss->run)) != CRFP_OK)
        goto fail;
    return CRFP_OK;
fail:
    session_close(p);
    return st;
}

crfp_status crfp_pipeline_feed(crfp_pipeline *p, crfp_stream *in, crfp_stream *out)
{
    crfp_host *host = p->host;
    session *ss = &p->ss;
    if (!ss->active)
        return crfp_error(host, CRFP_EINVAL, "pipeline: feed without begin");
    if (!ss->run && !out && !ss->common_out)
        return crfp_error(host, CRFP_EINVAL, "pipeline: documents with nowhere to go: give the "
                          "feed an output, or begin one");
    stage *reader = ss->reader;
    const crfp_reader_vtable *rv = reader->plugin->desc->vtable;
    crfp_shard shard = {{NULL, NULL}, NULL, 1, 0, 0};
    crfp_status st = CRFP_OK;
    int own_writer = out && ss->writer && !ss->common_out;
    if (ss->run) {
        /* a distributed run shares out one input; several are not cut */
        if (ss->inputs > 0 && crfp_dist_size() > 1) {
            st = crfp_error(host, CRFP_EINVAL, "%s: a distributed training run reads one "
                            "input (join the files into one)", in->name);
            goto out;
        }
        if ((st = crfp_shard_open(host, reader->plugin, in, &shard)) != CRFP_OK)
            goto out;
        in = &shard.stream;
        crfp_train_set_cut(ss->run, 0, shard.cut);
        if ((st = crfp_train_set_source(ss->run, in->name)) != CRFP_OK)
            goto out;
    }
    ss->inputs++;
    if ((st = rv->open(host, reader->params, in, &reader->state)) != CRFP_OK) {
        reader->state = NULL;
        crfp_error_wrap(host, st, "%s", in->name);
        goto out;
    }
    if (own_writer && (st = open_writer(p, out)) != CRFP_OK)
        goto out;
    stage *writer = ss->run ? NULL : ss->writer;
    crfp_team *team = writer && all_concurrent(p) ? crfp_host_team(host) : NULL;
    if (team && crfp_team_size(team) > 1) {
        st = run_parallel(p, team, reader, writer);
    } else {
        for (;;) {
            crfp_doc *doc = NULL;
            if ((st = rv->next(reader->state, &doc)) != CRFP_OK || !doc)
                break;
            st = process_doc(p, doc);
            if (st == CRFP_OK && writer) {
                const crfp_writer_vtable *wv = writer->plugin->desc->vtable;
                st = wv->write(writer->state, doc);
            }
            if (st == CRFP_OK && ss->run)
                st = crfp_train_add(ss->run, doc);
            if (st == CRFP_OK)
                crfp_host_observe_doc(host, doc);
            crfp_doc_free(doc);
            if (st == CRFP_OK && crfp_interrupted(host) && !ss->run)
                st = crfp_error(host, CRFP_EINTR, "interrupted");
            if (st != CRFP_OK)
                break;
        }
    }
    if (st == CRFP_OK && own_writer) {
        const crfp_writer_vtable *wv = writer->plugin->desc->vtable;
        st = wv->finish(writer->state);
    }
out:
    if (own_writer && ss->writer->state) {
        const crfp_writer_vtable *wv = ss->writer->plugin->desc->vtable;
        wv->close(ss->writer->state);
        ss->writer->state = NULL;
    }
    if (reader->state) {
        rv->close(reader->state);
        reader->state = NULL;
    }
    crfp_shard_close(&shard);
    return st;
}

crfp_status crfp_pipeline_end(crfp_pipeline *p, int finish)
{
    crfp_host *host = p->host;
    session *ss = &p->ss;
    if (!ss->active)
        return finish ? crfp_error(host, CRFP_EINVAL, "pipeline: end without begin") : CRFP_OK;
    crfp_status st = CRFP_OK;
    /* the end of the corpus: stages that gather over it write their results */
    for (size_t i = 0; finish && i < p->n && st == CRFP_OK; i++) {
        stage *s = &p->st[i];
        crfp_kind k = s->plugin->desc->kind;
        const crfp_stage_vtable *sv = s->plugin->desc->vtable;
        if ((k == CRFP_KIND_TOKENIZER || k == CRFP_KIND_TAGGER) && sv->finish)
            if ((st = sv->finish(s->state)) != CRFP_OK)
                crfp_error_wrap(host, st, "%s: stage '%s'", s->where, s->plugin->desc->name);
    }
    if (finish && st == CRFP_OK && ss->common_out && ss->writer && ss->writer->state) {
        const crfp_writer_vtable *wv = ss->writer->plugin->desc->vtable;
        st = wv->finish(ss->writer->state);
    }
    if (finish && st == CRFP_OK && ss->run)
        st = crfp_train_inputs_done(ss->run);
    if (finish && st == CRFP_OK && ss->run)
        st = feed_dev(p, ss->reader, ss->run);
    if (finish && st == CRFP_OK && ss->run)
        st = crfp_train_finish(ss->run);
    session_close(p);
    return st;
}

crfp_status crfp_pipeline_run(crfp_pipeline *p, crfp_stream *in, crfp_stream *out)
{
    crfp_status st = crfp_pipeline_begin(p, p->has[CRFP_KIND_TRAINER] ? NULL : out);
    if (st != CRFP_OK)
        return st;
    if ((st = crfp_pipeline_feed(p, in, NULL)) != CRFP_OK) {
        crfp_pipeline_end(p, 0);
        return st;
    }
    return crfp_pipeline_end(p, 1);
}
