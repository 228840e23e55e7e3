/* lm_rescore's models trained from a pronunciation lexicon, read through
 * the lexicon_reader plugin; for the joint model the lexicon is also split
 * into graphemes and labelled by an aligner model (graphemes and aligner
 * plugins), exactly as the tagger's training data was, so that the joint
 * symbols letter|label are those the tagger's candidates carry. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescore.h"

/* A plugin stage opened with name=value parameters (NULL-terminated). */
typedef struct stage {
    const crfp_stage_vtable *v;
    void *state;
} stage;

static crfp_status set_params(crfp_host *host, crfp_params *par, const char *const *kv)
{
    crfp_status st = CRFP_OK;
    for (; kv[0] && st == CRFP_OK; kv += 2)
        st = crfp_params_set(host, par, "lm_rescore", kv[0], kv[1], NULL);
    return st;
}

static crfp_status stage_open(crfp_host *host, const char *name, crfp_kind kind,
                              const char *const *kv, stage *s)
{
    const crfp_plugin *pl;
    crfp_status st = crfp_host_load_kind(host, name, kind, &pl);
    if (st != CRFP_OK)
        return st;
    crfp_params *par = crfp_params_new(pl->desc->params, pl->desc->nparams);
    if (!par)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    if ((st = set_params(host, par, kv)) == CRFP_OK) {
        s->v = pl->desc->vtable;
        if ((st = s->v->open(host, par, &s->state)) != CRFP_OK)
            s->state = NULL;
    }
    crfp_params_free(par);
    return st;
}

static void stage_close(stage *s)
{
    if (s->state)
        s->v->close(s->state);
}

/* Split s at spaces into a growing array of pointers (s is modified). */
static crfp_status split(char *s, const char ***v, size_t *cap, size_t *n)
{
    *n = 0;
    for (char *tok = strtok(s, " "); tok; tok = strtok(NULL, " ")) {
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 32;
            const char **nv = realloc(*v, nc * sizeof *nv);
            if (!nv)
                return CRFP_ENOMEM;
            *v = nv;
            *cap = nc;
        }
        (*v)[(*n)++] = tok;
    }
    return CRFP_OK;
}

static crfp_status add_failed(crfp_host *host, crfp_status st, const char *path, crfp_ann *sent,
                              const char *what)
{
    const char *w = crfp_ann_str(sent, "word");
    return crfp_error(host, st, "%s: entry '%s': %s", path, w ? w : "",
                      st == CRFP_ENOMEM ? "out of memory" : what);
}

crfp_status lm_train(crfp_host *host, const crfp_params *p, const char *path, rescore *r)
{
    const crfp_plugin *rp;
    crfp_status st = crfp_host_load_kind(host, "lexicon_reader", CRFP_KIND_READER, &rp);
    if (st != CRFP_OK)
        return st;
    const crfp_reader_vtable *rv = rp->desc->vtable;
    const char *alignment = crfp_params_str(p, "alignment");
    const int joint = r->part[1].lm != NULL;
    crfp_params *rpar = crfp_params_new(rp->desc->params, rp->desc->nparams);
    FILE *fp = NULL;
    void *rs = NULL;
    stage gr = {0}, al = {0};
    char *buf = NULL;
    const char **v = NULL;
    size_t vcap = 0, entries = 0, jentries = 0;
    if (!rpar) {
        st = crfp_error(host, CRFP_ENOMEM, "out of memory");
        goto out;
    }
    const char *rkv[] = {"format", crfp_params_str(p, "lexicon-format"), "stress",
                         crfp_params_bool(p, "stress") ? "true" : "false", NULL};
    if ((st = set_params(host, rpar, rkv)) != CRFP_OK)
        goto out;
    if (joint) {
        const char *gkv[] = {"fold", crfp_params_bool(p, "fold") ? "true" : "false", "feature",
                             r->letter, NULL};
        const char *akv[] = {"model", alignment, "unaligned", "none", "letter", r->letter,
                             "output", "phone", NULL};
        if ((st = stage_open(host, "graphemes", CRFP_KIND_TOKENIZER, gkv, &gr)) != CRFP_OK ||
            (st = stage_open(host, "aligner", CRFP_KIND_TOKENIZER, akv, &al)) != CRFP_OK) {
            crfp_error_wrap(host, st, "the joint model's alignment");
            goto out;
        }
    }
    if (!(fp = fopen(path, "rb"))) {
        st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
        goto out;
    }
    crfp_stream in = {fp, path};
    if ((st = rv->open(host, rpar, &in, &rs)) != CRFP_OK) {
        rs = NULL;
        goto out;
    }
    for (;;) {
        crfp_doc *doc = NULL;
        if ((st = rv->next(rs, &doc)) != CRFP_OK || !doc)
            break;
        if (joint && ((st = gr.v->process(gr.state, doc)) != CRFP_OK ||
                      (st = al.v->process(al.state, doc)) != CRFP_OK)) {
            crfp_doc_free(doc);
            break;
        }
        crfp_annset *set = crfp_doc_annset(doc, "", 0);
        crfp_ann **sents = NULL, **toks = NULL;
        size_t ns = 0, nt = 0, t = 0, len = crfp_doc_length(doc);
        if (set && (st = crfp_annset_select(set, "Sentence", 0, len, &sents, &ns)) == CRFP_OK &&
            joint)
            st = crfp_annset_select(set, "Token", 0, len, &toks, &nt);
        for (size_t s = 0; s < ns && st == CRFP_OK; s++) {
            const char *pron = crfp_ann_str(sents[s], "phonemes");
            size_t n;
            if (pron) {
                free(buf);
                if (!(buf = strdup(pron)) || split(buf, &v, &vcap, &n) != CRFP_OK) {
                    st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                    break;
                }
                if ((st = ngram_add(r->part[0].lm, v, n)) != CRFP_OK) {
                    st = add_failed(host, st, path, sents[s],
                                    "a phoneme the model cannot take (<s>, </s>, or too many "
                                    "distinct phonemes)");
                    break;
                }
                entries++;
            }
            if (!joint)
                continue;
            while (t < nt && toks[t]->start < sents[s]->start)
                t++;
            size_t t0 = t;
            while (t < nt && toks[t]->end <= sents[s]->end)
                t++;
            /* letter|label per grapheme; an entry the aligner left
             * unlabelled is left out */
            size_t need = 1;
            int labelled = t > t0;
            for (size_t u = t0; u < t && labelled; u++) {
                const char *l = crfp_ann_str(toks[u], r->letter), *y = crfp_ann_str(toks[u], "phone");
                labelled = l && y;
                need += labelled ? strlen(l) + strlen(y) + 2 : 0;
            }
            if (!labelled)
                continue;
            free(buf);
            if (!(buf = malloc(need))) {
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                break;
            }
            char *b = buf;
            for (size_t u = t0; u < t; u++)
                b += sprintf(b, "%s%s|%s", u > t0 ? " " : "", crfp_ann_str(toks[u], r->letter),
                             crfp_ann_str(toks[u], "phone"));
            if (split(buf, &v, &vcap, &n) != CRFP_OK) {
                st = crfp_error(host, CRFP_ENOMEM, "out of memory");
                break;
            }
            if ((st = ngram_add(r->part[1].lm, v, n)) != CRFP_OK) {
                st = add_failed(host, st, path, sents[s],
                                "a grapheme or label the joint model cannot take (white space, "
                                "or too many distinct pairs)");
                break;
            }
            jentries++;
        }
        free(sents);
        free(toks);
        crfp_doc_free(doc);
        if (st != CRFP_OK)
            break;
    }
    if (st == CRFP_OK && (!entries || (joint && !jentries)))
        st = crfp_error(host, CRFP_EINVAL, "%s: no %s to train on", path,
                        entries ? "aligned entry" : "pronunciation");
    for (int i = 0; i < 2 && st == CRFP_OK; i++)
        if (r->part[i].lm && (st = ngram_finish(r->part[i].lm)) != CRFP_OK)
            st = crfp_error(host, st, "out of memory");
    if (st == CRFP_OK) {
        crfp_log(host, CRFP_LOG_INFO, "lm_rescore: %zu pronunciations of %s: %zu phoneme %d-grams",
                 entries, path, ngram_count(r->part[0].lm), ngram_order(r->part[0].lm));
        if (joint)
            crfp_log(host, CRFP_LOG_INFO, "lm_rescore: %zu aligned entries: %zu joint %d-grams",
                     jentries, ngram_count(r->part[1].lm), ngram_order(r->part[1].lm));
    }
out:
    if (rs)
        rv->close(rs);
    if (fp)
        fclose(fp);
    stage_close(&gr);
    stage_close(&al);
    crfp_params_free(rpar);
    free(buf);
    free(v);
    return st;
}
