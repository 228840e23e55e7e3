/* lexicon_writer — one line per word: `word P1 P2 ...` (CMUdict style) or
 * `word<TAB>P1 P2 ...` (tsv).  The word is the Sentence's `word` feature,
 * else the text it covers; the pronunciation is its `feature` (default
 * `pronunciation`, what the phonemes stage writes), else `phonemes`. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

static const crfp_param_spec params[] = {
    {"feature", CRFP_PARAM_STRING, "pronunciation", "Sentence feature with the phonemes"},
    {"separator", CRFP_PARAM_STRING, "space", "space (CMUdict) or tab"},
    {"set", CRFP_PARAM_STRING, "", "annotation set with the Sentences"},
};

typedef struct lw {
    crfp_host *host;
    crfp_stream *out;
    const crfp_params *p;
    char sep;
} lw;

static crfp_status lw_open(crfp_host *host, const crfp_params *p, crfp_stream *out, void **state)
{
    const char *s = crfp_params_str(p, "separator");
    if (strcmp(s, "space") != 0 && strcmp(s, "tab") != 0)
        return crfp_error(host, CRFP_EINVAL, "parameter 'separator': '%s' is not space or tab",
                          s);
    lw *w = calloc(1, sizeof *w);
    if (!w)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    w->host = host;
    w->out = out;
    w->p = p;
    w->sep = s[0] == 't' ? '\t' : ' ';
    *state = w;
    return CRFP_OK;
}

static crfp_status lw_write(void *state, const crfp_doc *cdoc)
{
    lw *w = state;
    crfp_doc *doc = (crfp_doc *)cdoc;   /* only read */
    crfp_annset *set = crfp_doc_annset(doc, crfp_params_str(w->p, "set"), 0);
    if (!set)
        return CRFP_OK;
    const char *feat = crfp_params_str(w->p, "feature");
    crfp_ann **sents = NULL;
    size_t ns = 0;
    crfp_status st = crfp_annset_select(set, "Sentence", 0, crfp_doc_length(doc), &sents, &ns);
    const char *text = crfp_doc_text(doc, NULL);
    for (size_t i = 0; i < ns && st == CRFP_OK; i++) {
        const char *word = crfp_ann_str(sents[i], "word");
        const char *pron = crfp_ann_str(sents[i], feat);
        if (!pron)
            pron = crfp_ann_str(sents[i], "phonemes");
        if (!pron) {
            st = crfp_error(w->host, CRFP_ENOTFOUND, "document '%s', word %zu: no '%s' feature "
                            "(run the phonemes stage first)",
                            crfp_doc_id(doc) ? crfp_doc_id(doc) : "", i + 1, feat);
            break;
        }
        if (word) {
            fputs(word, w->out->fp);
        } else {
            size_t b0, b1;
            if ((st = crfp_doc_to_byte(doc, sents[i]->start, &b0)) != CRFP_OK ||
                (st = crfp_doc_to_byte(doc, sents[i]->end, &b1)) != CRFP_OK)
                break;
            fwrite(text + b0, 1, b1 - b0, w->out->fp);
        }
        fputc(w->sep, w->out->fp);
        fputs(pron, w->out->fp);
        fputc('\n', w->out->fp);
    }
    free(sents);
    if (st == CRFP_ENOMEM && !crfp_errmsg(w->host)[0])   /* the selection records none */
        st = crfp_error(w->host, st, "out of memory");
    if (st == CRFP_OK && ferror(w->out->fp))
        st = crfp_error(w->host, CRFP_EIO, "%s: write error", w->out->name);
    return st;
}

static crfp_status lw_finish(void *state)
{
    lw *w = state;
    if (fflush(w->out->fp) != 0)
        return crfp_error(w->host, CRFP_EIO, "%s: write error", w->out->name);
    return CRFP_OK;
}

static void lw_close(void *state)
{
    free(state);
}

static const crfp_writer_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_writer_vtable),
    .open = lw_open,
    .write = lw_write,
    .finish = lw_finish,
    .close = lw_close,
};

static const char *const formats[] = {"lexicon", "cmudict", NULL};
static const char *const extensions[] = {".dict", ".lex", NULL};

CRFP_PLUGIN_DEFINE(lexicon_writer) = {
    CRFP_PLUGIN_ABI,
    .name = "lexicon_writer",
    .kind = CRFP_KIND_WRITER,
    .version = "1.0",
    .description = "words and their (predicted) pronunciations, CMUdict or tab-separated",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
    .formats = formats,
    .extensions = extensions,
};
