/* graphemes — a tokenizer that makes one Token per extended grapheme
 * cluster (ICU character break iterator), so that "é" written as e + U+0301,
 * Devanagari conjunct marks or Hangul syllables are single letters to the
 * G2P tagger.
 *
 * Inside every Sentence of the set (a lexicon entry), or, in a document
 * without Sentences, inside every whitespace-separated word (a Sentence is
 * then added per word so the tagger sees one word per sequence).  White
 * space clusters get no Token.  Each Token has the string feature `letter`:
 * the cluster, case-folded (ICU full case folding) when `fold` is true.
 * The break iterator runs on UTF-8 through UText, so its boundaries are
 * byte offsets and no UTF-16 copy of the text is made. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <unicode/ubrk.h>
#include <unicode/ustring.h>
#include <unicode/utext.h>
#include <unicode/uchar.h>

#include "crfpipe/crfpipe.h"

static const crfp_param_spec params[] = {
    {"fold", CRFP_PARAM_BOOL, "true", "case-fold each grapheme (ICU full case folding)"},
    {"feature", CRFP_PARAM_STRING, "letter", "token feature receiving the grapheme"},
    {"set", CRFP_PARAM_STRING, "", "annotation set of the Sentences and new Tokens"},
};

typedef struct gtok {
    crfp_host *host;
    int fold;
    char *feature, *set;
    UBreakIterator *bi;
    UChar *u16, *f16;      /* folding buffers */
    int32_t ucap, fcap;
    char *u8;
    size_t u8cap;
} gtok;

static void gt_close(void *state)
{
    gtok *g = state;
    if (!g)
        return;
    if (g->bi)
        ubrk_close(g->bi);
    free(g->feature);
    free(g->set);
    free(g->u16);
    free(g->f16);
    free(g->u8);
    free(g);
}

static crfp_status gt_open(crfp_host *host, const crfp_params *p, void **state)
{
    gtok *g = calloc(1, sizeof *g);
    if (!g)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    g->host = host;
    g->fold = crfp_params_bool(p, "fold");
    g->feature = strdup(crfp_params_str(p, "feature"));
    g->set = strdup(crfp_params_str(p, "set"));
    UErrorCode ec = U_ZERO_ERROR;
    /* root locale: grapheme clusters do not depend on the language */
    g->bi = ubrk_open(UBRK_CHARACTER, "", NULL, 0, &ec);
    if (U_FAILURE(ec) || !g->feature || !g->set) {
        gt_close(g);
        return crfp_error(host, U_FAILURE(ec) ? CRFP_EPLUGIN : CRFP_ENOMEM,
                          "graphemes: %s", U_FAILURE(ec) ? u_errorName(ec) : "out of memory");
    }
    *state = g;
    return CRFP_OK;
}

/* The folded UTF-8 form of s[0..n) in g->u8 (owned by g); NULL on error
 * with the message recorded. */
static const char *fold_utf8(gtok *g, const char *s, size_t n)
{
    UErrorCode ec = U_ZERO_ERROR;
    int32_t len = 0;
    if ((int32_t)n + 1 > g->ucap) {
        free(g->u16);
        g->ucap = (int32_t)n + 16;
        if (!(g->u16 = malloc((size_t)g->ucap * sizeof *g->u16)))
            return NULL;
    }
    u_strFromUTF8(g->u16, g->ucap, &len, s, (int32_t)n, &ec);
    if (U_FAILURE(ec))
        return NULL;
    /* full folding may lengthen a string (ß -> ss): up to 3x */
    if (3 * len + 1 > g->fcap) {
        free(g->f16);
        g->fcap = 3 * len + 16;
        if (!(g->f16 = malloc((size_t)g->fcap * sizeof *g->f16)))
            return NULL;
    }
    int32_t fl = u_strFoldCase(g->f16, g->fcap, g->u16, len, U_FOLD_CASE_DEFAULT, &ec);
    if (U_FAILURE(ec))
        return NULL;
    size_t need = (size_t)fl * 3 + 1;
    if (need > g->u8cap) {
        free(g->u8);
        g->u8cap = need + 16;
        if (!(g->u8 = malloc(g->u8cap)))
            return NULL;
    }
    int32_t ol = 0;
    u_strToUTF8(g->u8, (int32_t)g->u8cap, &ol, g->f16, fl, &ec);
    if (U_FAILURE(ec))
        return NULL;
    return g->u8;
}

/* Tokens for the bytes [b0, b1) of the text. */
static crfp_status segment(gtok *g, crfp_doc *doc, crfp_annset *set, const char *text,
                           size_t b0, size_t b1)
{
    UErrorCode ec = U_ZERO_ERROR;
    UText *ut = utext_openUTF8(NULL, text + b0, (int64_t)(b1 - b0), &ec);
    if (U_FAILURE(ec))
        return crfp_error(g->host, CRFP_EUTF8, "graphemes: %s", u_errorName(ec));
    ubrk_setUText(g->bi, ut, &ec);
    crfp_status st = CRFP_OK;
    if (U_FAILURE(ec)) {
        st = crfp_error(g->host, CRFP_EPLUGIN, "graphemes: %s", u_errorName(ec));
        goto out;
    }
    int32_t a = ubrk_first(g->bi);
    for (int32_t b = ubrk_next(g->bi); b != UBRK_DONE && st == CRFP_OK;
         a = b, b = ubrk_next(g->bi)) {
        const char *c = text + b0 + a;
        size_t n = (size_t)(b - a);
        /* white space (any Unicode space) is no letter */
        UChar32 cp;
        int32_t i = 0;
        U8_NEXT(c, i, (int32_t)n, cp);
        if (u_isUWhiteSpace(cp))
            continue;
        size_t s, e;
        crfp_ann *tok;
        if ((st = crfp_doc_from_byte(doc, b0 + (size_t)a, &s)) != CRFP_OK ||
            (st = crfp_doc_from_byte(doc, b0 + (size_t)b, &e)) != CRFP_OK ||
            (st = crfp_annset_add(g->host, doc, set, "Token", s, e, &tok)) != CRFP_OK)
            break;
        if (g->fold) {
            const char *f = fold_utf8(g, c, n);
            if (!f) {
                st = crfp_error(g->host, CRFP_ENOMEM, "graphemes: case folding failed");
                break;
            }
            st = crfp_ann_set_str(doc, tok, g->feature, f);
        } else {
            char small[64];
            char *cp8 = n < sizeof small ? small : malloc(n + 1);
            if (!cp8) {
                st = crfp_error(g->host, CRFP_ENOMEM, "out of memory");
                break;
            }
            memcpy(cp8, c, n);
            cp8[n] = '\0';
            st = crfp_ann_set_str(doc, tok, g->feature, cp8);
            if (cp8 != small)
                free(cp8);
        }
    }
out:
    utext_close(ut);
    return st;
}

static crfp_status gt_process(void *state, crfp_doc *doc)
{
    gtok *g = state;
    size_t tlen;
    const char *text = crfp_doc_text(doc, &tlen);
    crfp_annset *set = crfp_doc_annset(doc, g->set, 1);
    if (!set)
        return crfp_error(g->host, CRFP_ENOMEM, "out of memory");
    crfp_ann **sents = NULL;
    size_t ns = 0;
    crfp_status st = crfp_annset_select(set, "Sentence", 0, crfp_doc_length(doc), &sents, &ns);
    if (st != CRFP_OK)
        return st;
    if (ns > 0) {
        for (size_t i = 0; i < ns && st == CRFP_OK; i++) {
            size_t b0, b1;
            if ((st = crfp_doc_to_byte(doc, sents[i]->start, &b0)) == CRFP_OK &&
                (st = crfp_doc_to_byte(doc, sents[i]->end, &b1)) == CRFP_OK)
                st = segment(g, doc, set, text, b0, b1);
        }
        free(sents);
    } else {
        /* plain text: one Sentence per whitespace-separated word (ASCII
         * blanks and line ends; the grapheme pass skips other spaces) */
        size_t i = 0;
        while (i < tlen && st == CRFP_OK) {
            while (i < tlen && strchr(" \t\r\n\f\v", text[i]))
                i++;
            size_t j = i;
            while (j < tlen && !strchr(" \t\r\n\f\v", text[j]))
                j++;
            if (j > i) {
                size_t s, e;
                crfp_ann *sa;
                if ((st = crfp_doc_from_byte(doc, i, &s)) == CRFP_OK &&
                    (st = crfp_doc_from_byte(doc, j, &e)) == CRFP_OK &&
                    (st = crfp_annset_add(g->host, doc, set, "Sentence", s, e, &sa)) == CRFP_OK)
                    st = segment(g, doc, set, text, i, j);
            }
            i = j;
        }
    }
    if (st == CRFP_OK) {
        const char *names[] = {"fold", "feature"};
        const char *vals[] = {g->fold ? "true" : "false", g->feature};
        st = crfp_annset_add_processor(doc, set, "graphemes", "1.0", names, vals, 2);
    }
    return st;
}

static const crfp_stage_vtable vtable = {
    .size = CRFP_VTABLE_SIZE(crfp_stage_vtable),
    .open = gt_open,
    .process = gt_process,
    .close = gt_close,
};

CRFP_PLUGIN_DEFINE(graphemes) = {
    CRFP_PLUGIN_ABI,
    .name = "graphemes",
    .kind = CRFP_KIND_TOKENIZER,
    .version = "1.0",
    .description = "one Token per extended grapheme cluster (ICU), optionally case-folded",
    .params = params,
    .nparams = sizeof params / sizeof *params,
    .vtable = &vtable,
};
