/* Fuzz target: the tag dictionary file loader of the tagdict plugins
 * (tdict_load, plugins/common/tdict.c), compiled in.
 *
 * The input is written to a temporary file and loaded.  It must give a
 * dictionary or an error of the form "line N: ..." (or a size refusal),
 * never a crash, a hang or a leak.  Oracles on a loaded dictionary:
 *   - saving it and loading the saved file gives a dictionary that saves
 *     to the same bytes (save is a fixed point of load after one round);
 *   - every word of the saved file looks up to a class of sorted tags
 *     joined by '|', whose tags are the word's, and to a commonest tag
 *     among them; a word never listed looks up to the unknown value;
 *   - the class of a word's lowercase contains every tag of the word.
 */
#include "fuzzhost.h"

#include "../../plugins/common/tdict.h"

#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fz_fail("set-up", "cannot reopen a saved dictionary");
    char *buf = NULL;
    size_t cap = 0;
    *n = 0;
    for (;;) {
        if (*n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            if (!(buf = realloc(buf, cap)))
                fz_fail("set-up", "out of memory");
        }
        size_t got = fread(buf + *n, 1, cap - *n - 1, f);
        *n += got;
        if (!got)
            break;
    }
    fclose(f);
    buf[*n] = '\0';
    return buf;
}

static int has_tag(const char *cls, const char *tag)
{
    size_t l = strlen(tag);
    for (const char *p = cls; p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == l && memcmp(p, tag, l) == 0)
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* Check the lookups of every word line of the saved text. */
static void check_lookups(const tdict *d, char *text)
{
    tdict_scratch s = {0};
    const char *amb, *lc, *top;
    if (tdict_lookup(d, "\x01never a word", "UNK?", &s, &amb, &lc, &top) != 0 ||
        strcmp(amb, "UNK?") || strcmp(top, "UNK?"))
        fz_fail("tdict_lookup", "an unlisted word is not unknown");
    char *line = strchr(text, '\n');
    for (line = line ? line + 1 : NULL; line && *line;) {
        char *end = strchr(line, '\n');
        if (!end)
            fz_fail("tdict_save", "a line without a newline");
        *end = '\0';
        char *word = line, *tab = strchr(line, '\t');
        if (!tab)
            fz_fail("tdict_save", "a line without a tag");
        *tab = '\0';
        if (tdict_lookup(d, word, "UNK?", &s, &amb, &lc, &top) != 0)
            fz_fail("tdict_lookup", "failed on a listed word");
        /* the saved tags, in order, each in the class, the class sorted */
        size_t ntags = 0, clen = 1;
        unsigned long best = 0;
        const char *first_best = NULL;
        for (char *q = tab + 1; q;) {
            char *t2 = strchr(q, '\t');
            if (!t2)
                fz_fail("tdict_save", "a tag without a count");
            *t2 = '\0';
            char *num = t2 + 1, *next = strchr(num, '\t');
            if (next)
                *next = '\0';
            unsigned long k = strtoul(num, NULL, 10);
            if ((amb[0] != '|' && !has_tag(amb, q)) || (lc[0] != '|' && !has_tag(lc, q)))
                fz_fail("tdict_lookup", "a tag of the word missing from its class");
            if (k > best) {
                best = k;
                first_best = q;
            }
            ntags++;
            clen += strlen(q) + 1;
            q = next ? next + 1 : NULL;
        }
        size_t bars = 0;
        for (const char *p = amb; *p; p++)
            bars += *p == '|';
        int many = strncmp(amb, "|many:", 6) == 0;
        if (many != (clen > TDICT_CLASS_MAX) ||
            (many ? strtoul(amb + 6, NULL, 10) != ntags : bars + 1 != ntags))
            fz_fail("tdict_lookup", "a class with more or fewer tags than the word has");
        for (const char *p = many ? NULL : amb, *prev = NULL; p;) {
            const char *bar = strchr(p, '|');
            size_t n = bar ? (size_t)(bar - p) : strlen(p);
            if (prev) {
                size_t pn = (size_t)(p - 1 - prev);
                int c = memcmp(prev, p, pn < n ? pn : n);
                if (c > 0 || (c == 0 && pn > n))
                    fz_fail("tdict_lookup", "a class not sorted");
            }
            prev = p;
            p = bar ? bar + 1 : NULL;
        }
        if (!first_best || strcmp(top, first_best))
            fz_fail("tdict_lookup", "the commonest tag is not the first with the most counts");
        line = end + 1;
    }
    tdict_scratch_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the loader keeps the whole file: beyond 1 MiB an input only costs time */
    if (size > (1u << 20))
        return 0;
    static UCaseMap *lower;
    if (!lower) {
        UErrorCode err = U_ZERO_ERROR;
        lower = ucasemap_open("", 0, &err);
        if (U_FAILURE(err))
            fz_fail("set-up", "ICU lowercasing");
    }
    const char *path = fz_file("dict", data, size);
    tdict d;
    tdict_init(&d, lower);
    char msg[256];
    if (tdict_load(&d, path, msg, sizeof msg) != 0) {
        fz_trace("%s", msg);
        if (strncmp(msg, "line ", 5) != 0)
            fz_fail("tdict_load's message names no line", msg);
        tdict_free(&d);
        return 0;
    }
    fz_trace("loaded: %zu words, %zu tags", d.words.n, d.tags.n);
    const char *saved = fz_file("saved", (const uint8_t *)"", 0);
    if (tdict_save(&d, saved) != 0)
        fz_fail("tdict_save", "cannot write the loaded dictionary");
    size_t n1;
    char *text1 = slurp(saved, &n1);
    tdict d2;
    tdict_init(&d2, lower);
    if (tdict_load(&d2, saved, msg, sizeof msg) != 0)
        fz_fail("tdict_load refused what tdict_save wrote", msg);
    if (tdict_save(&d2, saved) != 0)
        fz_fail("tdict_save", "cannot write the reloaded dictionary");
    size_t n2;
    char *text2 = slurp(saved, &n2);
    if (n1 != n2 || memcmp(text1, text2, n1) != 0)
        fz_fail("tdict_save", "save(load(save)) differs from save");
    check_lookups(&d2, text1);
    free(text1);
    free(text2);
    tdict_free(&d2);
    tdict_free(&d);
    return 0;
}
