/* Fuzz target: the aligner plugin's model file (the grapheme-to-phoneme
 * alignment model that `aligner` saves and loads, and that lm_rescore's
 * joint model loads through it).
 *
 * The input is written to a temporary file and opened as the aligner's
 * `model`.  It must load or give an error with a message, never crash,
 * leak or hang.  Oracle on a model that loads: aligning a fixed entry
 * ("cabbage", K AE1 B IH0 JH, as the graphemes tokenizer would present it)
 * succeeds and labels every letter, and the labels are a segmentation of
 * the pronunciation: reading them in order, ':' splitting a chunk and '_'
 * standing for no phoneme, gives the phonemes back. */
#include "fuzzhost.h"

#include <stdlib.h>
#include <string.h>

static const char word[] = "cabbage";
static const char *const phonemes[] = {"K", "AE1", "B", "IH0", "JH"};
#define NPH (sizeof phonemes / sizeof *phonemes)

/* The entry as lexicon_reader and graphemes would give it. */
static crfp_doc *entry_doc(void)
{
    crfp_host *h = fz_host();
    crfp_doc *d = crfp_doc_new("fuzz");
    crfp_annset *set;
    crfp_ann *a;
    if (!d || crfp_doc_set_text(h, d, word, strlen(word)) != CRFP_OK ||
        !(set = crfp_doc_annset(d, "", 1)) ||
        crfp_annset_add(h, d, set, "Sentence", 0, strlen(word), &a) != CRFP_OK ||
        crfp_ann_set_str(d, a, "word", word) != CRFP_OK ||
        crfp_ann_set_str(d, a, "phonemes", "K AE1 B IH0 JH") != CRFP_OK)
        fz_fail("set-up", "cannot build the entry");
    for (size_t i = 0; word[i]; i++) {
        char letter[2] = {word[i], 0};
        if (crfp_annset_add(h, d, set, "Token", i, i + 1, &a) != CRFP_OK ||
            crfp_ann_set_str(d, a, "letter", letter) != CRFP_OK)
            fz_fail("set-up", "cannot build the entry's tokens");
    }
    return d;
}

/* The labels of the entry's letters must spell its phonemes. */
static void check_labels(crfp_doc *d)
{
    crfp_annset *set = crfp_doc_annset(d, "", 0);
    crfp_ann **tok = NULL;
    size_t nt = 0, k = 0;
    if (!set || crfp_annset_select(set, "Token", 0, strlen(word), &tok, &nt) != CRFP_OK ||
        nt != strlen(word))
        fz_fail("aligner", "the entry's tokens are gone");
    for (size_t i = 0; i < nt; i++) {
        const char *l = crfp_ann_str(tok[i], "phone");
        if (!l)
            fz_fail("aligner", "a letter has no label");
        if (strcmp(l, "_") == 0)
            continue;
        for (const char *p = l;;) {
            size_t n = strcspn(p, ":");
            if (k == NPH || strlen(phonemes[k]) != n || memcmp(p, phonemes[k], n) != 0)
                fz_fail("aligner", "the labels do not spell the pronunciation");
            k++;
            if (!p[n])
                break;
            p += n + 1;
        }
    }
    if (k != NPH)
        fz_fail("aligner", "the labels leave phonemes out");
    free(tok);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crfp_host *h = fz_host();
    static const crfp_stage_vtable *al;
    static crfp_params *params;
    const char *path = fz_file("model.align", data, size);
    if (!al) {
        const char *names[] = {"model"}, *values[] = {path};
        al = fz_plugin("aligner", CRFP_KIND_TOKENIZER, names, values, 1, &params);
    }
    void *state = NULL;
    crfp_status st = al->open(h, params, &state);
    if (st != CRFP_OK) {
        if (!crfp_errmsg(h)[0])
            fz_fail("aligner open failed without a message", crfp_status_str(st));
        fz_trace("refused: %s", crfp_errmsg(h));
        crfp_error_clear(h);
        return 0;
    }
    crfp_doc *d = entry_doc();
    st = al->process(state, d);
    if (st != CRFP_OK)
        fz_fail("aligning with a loaded model", crfp_errmsg(h));
    check_labels(d);
    fz_trace("loaded; the entry aligned");
    crfp_doc_free(d);
    if (al->finish && al->finish(state) != CRFP_OK)
        fz_fail("aligner finish", crfp_errmsg(h));
    al->close(state);
    crfp_error_clear(h);
    return 0;
}
