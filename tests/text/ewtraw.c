/* ewtraw — raw text from a CoNLL-U treebank, and scoring a tokenizer (and
 * tagger) run on that text against the treebank's gold tokens.
 *
 *   ewtraw text [--paragraphs] GOLD.conllu > raw.txt
 *       The `# text` of every sentence, one per line; with --paragraphs the
 *       sentences of a paragraph (`# newpar`, `# newdoc`) joined by a space
 *       and paragraphs separated by a blank line, so that sentence
 *       splitting is the tokenizer's job too.
 *   ewtraw score [--paragraphs] [--surface] [--pos FEATURE] GOLD.conllu RUN.xml
 *       RUN.xml is the crfpipe XML corpus of a text_reader → icu_tokenizer
 *       (→ tagger) run over that raw text; each document's `offset`
 *       metadata places it in the raw text.  Prints token precision,
 *       recall and F1 (a token is correct when its span equals a gold
 *       one's), the tag accuracy on the correct tokens when --pos names
 *       the token feature holding the predicted tag, and with --paragraphs
 *       the sentence F1 (exact spans).
 *
 * Gold tokens are the syntactic words: a multiword token ("don't" = do +
 * n't) whose words spell it exactly gives each word its own span, as
 * Penn-style tokenizers split it.  --surface scores against the surface
 * tokens instead (a multiword token is one), which is UD's "Tokens"
 * figure.  A word whose form cannot be found in the sentence text is
 * counted as unaligned (reported) and stays in the gold count.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crfpipe/crfpipe.h"

typedef struct span {
    size_t s, e;        /* global byte offsets in the raw text */
    char *tag;          /* gold UPOS or predicted tag (may be NULL) */
} span;

typedef struct spans {
    span *v;
    size_t n, cap;
} spans;

static void push(spans *L, size_t s, size_t e, const char *tag)
{
    if (L->n == L->cap) {
        L->cap = L->cap ? 2 * L->cap : 1024;
        L->v = realloc(L->v, L->cap * sizeof *L->v);
        if (!L->v) {
            fprintf(stderr, "ewtraw: out of memory\n");
            exit(2);
        }
    }
    L->v[L->n++] = (span){s, e, tag ? strdup(tag) : NULL};
}

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e;
}

/* --- the treebank ---------------------------------------------------------- */

typedef struct word {
    char form[512];
    char upos[32];
    int range;          /* a multiword token line: covers `nwords` following words */
    int nwords;
} word;

typedef struct gold {
    spans words, surface, sents;
    size_t unaligned;
    FILE *text_out;     /* raw text written here (text mode) */
} gold;

/* Place the tokens of one sentence in its text (starting at global offset
 * base) and record their spans. */
static void place(gold *g, const char *text, size_t base, word *w, size_t nw)
{
    size_t pos = 0, len = strlen(text);
    size_t first = (size_t)-1, last = 0;
    for (size_t i = 0; i < nw; i++) {
        while (pos < len && (text[pos] == ' ' || text[pos] == '\t'))
            pos++;
        const char *f = w[i].form;
        size_t fl = strlen(f);
        size_t at = pos;
        if (strncmp(text + pos, f, fl) != 0) {
            /* look a little further: the text may hold a character the
             * form normalises */
            const char *hit = strstr(text + pos, f);
            if (!hit || (size_t)(hit - text) > pos + 8) {
                g->unaligned++;
                if (w[i].range)
                    i += (size_t)w[i].nwords;
                continue;
            }
            at = (size_t)(hit - text);
        }
        if (first == (size_t)-1)
            first = at;
        last = at + fl;
        push(&g->surface, base + at, base + at + fl, w[i].range ? NULL : w[i].upos);
        if (w[i].range) {
            /* the words of a multiword token: spans when they spell it */
            size_t k = (size_t)w[i].nwords, off = at, ok = 1, sum = 0;
            for (size_t j = 1; j <= k && i + j < nw; j++)
                sum += strlen(w[i + j].form);
            if (sum != fl)
                ok = 0;
            for (size_t j = 1; ok && j <= k && i + j < nw; j++) {
                size_t wl = strlen(w[i + j].form);
                if (strncmp(text + off, w[i + j].form, wl) != 0)
                    ok = 0;
                off += wl;
            }
            off = at;
            for (size_t j = 1; j <= k && i + j < nw; j++) {
                size_t wl = strlen(w[i + j].form);
                if (ok)
                    push(&g->words, base + off, base + off + wl, w[i + j].upos);
                else
                    g->unaligned++;
                off += wl;
            }
            i += k;
        } else {
            push(&g->words, base + at, base + at + fl, w[i].upos);
        }
        pos = at + fl;
    }
    if (first != (size_t)-1)
        push(&g->sents, base + first, base + last, NULL);
}

/* Read the treebank; build the raw text (written to g->text_out when not
 * NULL) and the gold spans. */
static void read_gold(const char *path, int paragraphs, gold *g)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "ewtraw: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    char *text = NULL;
    word *w = NULL;
    size_t nw = 0, capw = 0;
    size_t offset = 0;          /* bytes of raw text so far */
    int newpar = 1, first_sent = 1;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (strncmp(line, "# text = ", 9) == 0) {
            free(text);
            text = strdup(line + 9);
            continue;
        }
        if (strncmp(line, "# newpar", 8) == 0 || strncmp(line, "# newdoc", 8) == 0) {
            newpar = 1;
            continue;
        }
        if (line[0] == '#')
            continue;
        if (n == 0) {
            if (!text || !nw)
                continue;
            /* the separator before this sentence */
            const char *sep = "";
            if (!first_sent)
                sep = !paragraphs ? "" : newpar ? "\n\n" : " ";
            if (g->text_out)
                fputs(sep, g->text_out);
            offset += strlen(sep);
            place(g, text, offset, w, nw);
            if (g->text_out) {
                fputs(text, g->text_out);
                if (!paragraphs)
                    fputc('\n', g->text_out);
            }
            offset += strlen(text) + (paragraphs ? 0 : 1);
            first_sent = 0;
            newpar = 0;
            nw = 0;
            free(text);
            text = NULL;
            continue;
        }
        char *f[10];
        size_t k = 0;
        for (char *p = line; k < 10; k++) {
            f[k] = p;
            char *tab = strchr(p, '\t');
            if (!tab) {
                k++;
                break;
            }
            *tab = '\0';
            p = tab + 1;
        }
        if (k < 4)
            continue;
        if (strchr(f[0], '.'))
            continue;   /* empty nodes have no surface */
        if (nw == capw) {
            capw = capw ? 2 * capw : 64;
            w = realloc(w, capw * sizeof *w);
            if (!w)
                exit(2);
        }
        word *x = &w[nw++];
        memset(x, 0, sizeof *x);
        snprintf(x->form, sizeof x->form, "%s", f[1]);
        snprintf(x->upos, sizeof x->upos, "%s", f[3]);
        char *dash = strchr(f[0], '-');
        if (dash) {
            x->range = 1;
            x->nwords = atoi(dash + 1) - atoi(f[0]) + 1;
        }
    }
    if (paragraphs && g->text_out && !first_sent)
        fputc('\n', g->text_out);
    free(line);
    free(text);
    free(w);
    fclose(fp);
}

/* --- the run ------------------------------------------------------------------ */

static void read_run(const char *path, const char *posfeat, spans *toks, spans *sents)
{
    crfp_host *host = crfp_host_new();
    FILE *fp = fopen(path, "rb");
    if (!host || !fp) {
        fprintf(stderr, "ewtraw: %s: %s\n", path, fp ? "out of memory" : strerror(errno));
        exit(2);
    }
    crfp_stream in = {fp, path};
    crfp_xml_reader *r;
    if (crfp_xml_reader_open(host, &in, 0, &r) != CRFP_OK) {
        fprintf(stderr, "ewtraw: %s\n", crfp_errmsg(host));
        exit(2);
    }
    for (;;) {
        crfp_doc *doc;
        if (crfp_xml_reader_next(r, &doc) != CRFP_OK) {
            fprintf(stderr, "ewtraw: %s\n", crfp_errmsg(host));
            exit(2);
        }
        if (!doc)
            break;
        const crfp_value *ov = crfp_doc_meta_get(doc, "offset");
        size_t base = ov && ov->type == CRFP_V_INT ? (size_t)ov->u.i : 0;
        crfp_annset *set = crfp_doc_annset(doc, "", 0);
        for (size_t i = 0; set && i < crfp_annset_size(set); i++) {
            crfp_ann *a = crfp_annset_get(set, i);
            int is_tok = strcmp(a->type, "Token") == 0;
            if (!is_tok && strcmp(a->type, "Sentence") != 0)
                continue;
            size_t bs, be;
            if (crfp_doc_to_byte(doc, a->start, &bs) != CRFP_OK ||
                crfp_doc_to_byte(doc, a->end, &be) != CRFP_OK) {
                fprintf(stderr, "ewtraw: %s: bad offsets\n", path);
                exit(2);
            }
            if (is_tok)
                push(toks, base + bs, base + be, posfeat ? crfp_ann_str(a, posfeat) : NULL);
            else
                push(sents, base + bs, base + be, NULL);
        }
        crfp_doc_free(doc);
    }
    crfp_xml_reader_close(r);
    fclose(fp);
    crfp_host_free(host);
}

/* Exact-span matches between two sorted lists; with tags, how many of the
 * matches agree. */
static size_t match(const spans *gold, const spans *pred, size_t *tagged, size_t *tag_ok)
{
    size_t i = 0, j = 0, m = 0;
    *tagged = *tag_ok = 0;
    while (i < gold->n && j < pred->n) {
        int c = cmp_span(&gold->v[i], &pred->v[j]);
        if (c < 0) {
            i++;
        } else if (c > 0) {
            j++;
        } else {
            m++;
            if (gold->v[i].tag && pred->v[j].tag) {
                (*tagged)++;
                *tag_ok += strcmp(gold->v[i].tag, pred->v[j].tag) == 0;
            }
            i++;
            j++;
        }
    }
    return m;
}

static void prf(const char *what, size_t m, size_t ng, size_t np)
{
    double p = np ? 100.0 * (double)m / (double)np : 0, r = ng ? 100.0 * (double)m / (double)ng : 0;
    double f = p + r > 0 ? 2 * p * r / (p + r) : 0;
    printf("%-10s gold %zu  predicted %zu  correct %zu  P %.2f  R %.2f  F1 %.2f\n", what, ng, np,
           m, p, r, f);
}

static void free_spans(spans *L)
{
    for (size_t i = 0; i < L->n; i++)
        free(L->v[i].tag);
    free(L->v);
}

static int usage(void)
{
    fprintf(stderr, "usage: ewtraw text [--paragraphs] GOLD.conllu\n"
                    "       ewtraw score [--paragraphs] [--surface] [--pos FEATURE] GOLD.conllu "
                    "RUN.xml\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    int paragraphs = 0, surface = 0;
    const char *pos = NULL, *args[2] = {NULL, NULL};
    size_t na = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--paragraphs") == 0)
            paragraphs = 1;
        else if (strcmp(argv[i], "--surface") == 0)
            surface = 1;
        else if (strcmp(argv[i], "--pos") == 0 && i + 1 < argc)
            pos = argv[++i];
        else if (na < 2)
            args[na++] = argv[i];
        else
            return usage();
    }
    gold g;
    memset(&g, 0, sizeof g);
    if (strcmp(argv[1], "text") == 0) {
        if (na != 1)
            return usage();
        g.text_out = stdout;
        read_gold(args[0], paragraphs, &g);
        return 0;
    }
    if (strcmp(argv[1], "score") != 0 || na != 2)
        return usage();
    read_gold(args[0], paragraphs, &g);
    spans toks = {0}, sents = {0};
    read_run(args[1], pos, &toks, &sents);
    spans *ref = surface ? &g.surface : &g.words;
    qsort(ref->v, ref->n, sizeof *ref->v, cmp_span);
    qsort(toks.v, toks.n, sizeof *toks.v, cmp_span);
    qsort(g.sents.v, g.sents.n, sizeof *g.sents.v, cmp_span);
    qsort(sents.v, sents.n, sizeof *sents.v, cmp_span);
    size_t tagged, ok;
    size_t m = match(ref, &toks, &tagged, &ok);
    prf(surface ? "tokens" : "words", m, ref->n, toks.n);
    if (pos)
        printf("%-10s on %zu matched tokens: %zu correct, accuracy %.2f%%\n", pos, tagged, ok,
               tagged ? 100.0 * (double)ok / (double)tagged : 0);
    if (paragraphs) {
        size_t t2, o2;
        size_t ms = match(&g.sents, &sents, &t2, &o2);
        prf("sentences", ms, g.sents.n, sents.n);
    }
    if (g.unaligned)
        printf("(%zu gold words could not be placed in their sentence text)\n", g.unaligned);
    free_spans(&g.words);
    free_spans(&g.surface);
    free_spans(&g.sents);
    free_spans(&toks);
    free_spans(&sents);
    return 0;
}
