/* crfpipe CLI — input format detection from content.
 *
 * Used when an input's name says nothing about its format (out.txt,
 * test.out): the first 64 KiB are read and each reader's rules give a
 * confidence from 0 to 100; the most confident wins, CoNLL on a tie since
 * it was the default before detection existed (and when nothing matches).
 *
 * TEMPORARY DISPATCH: the same rules live in each reader plugin as a
 * static PLUGIN_probe(buf, len) function, which the reader vtable of plugin
 * ABI 2.1 will expose; until then the CLI cannot reach them (they are
 * static in modules loaded at run time), so they are repeated here.  Keep
 * the two copies in step: plugins/conll_reader/conll_reader.c,
 * plugins/conllu_reader/conllu_reader.c, plugins/xml_reader/xml_reader.c.
 *
 * The rules only look at structure, never at labels:
 *   xml     optional BOM and blanks, then '<'; 100 when the first element is
 *           crfpipe's <corpus>, 60 for other XML (the reader then explains).
 *   conllu  every complete non-blank line is a '#' comment or 10
 *           tab-separated fields whose first is an ID (n, n-m, n.k): 95 with
 *           a comment, 90 without; 40 when at most one line in five breaks
 *           the rule (a damaged CoNLL-U file), else 0.
 *   conll   every complete non-blank line splits on blanks into the same
 *           number of fields (a -DOCSTART- line may be anything): 80 with
 *           a -DOCSTART- line, 50 otherwise; 0 when field counts differ.
 * The last line of a full 64 KiB buffer may be cut short and is ignored.
 */
#include "config.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SNIFF_MAX (64 * 1024)

/* Next line of buf[*at, len) in [*b, *e) (no terminator, CR dropped);
 * 0 at the end.  *complete says whether it ended in '\n'. */
static int next_line(const char *buf, size_t len, size_t *at, size_t *b, size_t *e,
                     int *complete)
{
    if (*at >= len)
        return 0;
    *b = *at;
    const char *nl = memchr(buf + *at, '\n', len - *at);
    *e = nl ? (size_t)(nl - buf) : len;
    *complete = nl != NULL;
    *at = nl ? *e + 1 : len;
    if (*e > *b && buf[*e - 1] == '\r')
        (*e)--;
    return 1;
}

static int blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

/* A CoNLL-U ID: n, n-m or n.k (digits). */
static int conllu_id(const char *s, size_t n)
{
    size_t i = 0, d = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, d++;
    if (!d)
        return 0;
    if (i == n)
        return 1;
    if (s[i] != '-' && s[i] != '.')
        return 0;
    size_t j = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i == n && i > j;
}

static int probe_xml(const char *buf, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    if (i >= len || buf[i] != '<')
        return 0;
    /* the first element: skip the declaration, comments, processing
     * instructions and the doctype */
    while (i < len) {
        const char *lt = memchr(buf + i, '<', len - i);
        if (!lt)
            break;
        i = (size_t)(lt - buf) + 1;
        if (i < len && (buf[i] == '?' || buf[i] == '!'))
            continue;
        size_t j = i;
        while (j < len && buf[j] != '>' && buf[j] != ' ' && buf[j] != '\t' && buf[j] != '\n' &&
               buf[j] != '\r' && buf[j] != '/')
            j++;
        const char *colon = memchr(buf + i, ':', j - i);
        size_t k = colon ? (size_t)(colon - buf) + 1 : i;   /* prefix:corpus */
        return j - k == 6 && memcmp(buf + k, "corpus", 6) == 0 ? 100 : 60;
    }
    return 60;
}

static int probe_conllu(const char *buf, size_t len)
{
    size_t at = 0, b, e;
    int complete, comments = 0, words = 0, bad = 0;
    while (next_line(buf, len, &at, &b, &e, &complete)) {
        if (!complete && len >= SNIFF_MAX)
            break;
        if (blank_line(buf + b, e - b))
            continue;
        if (buf[b] == '#') {
            comments = 1;
            continue;
        }
        size_t fields = 1, first = e;
        for (size_t i = b; i < e; i++)
            if (buf[i] == '\t') {
                if (fields == 1)
                    first = i;
                fields++;
            }
        if (fields != 10 || !conllu_id(buf + b, first - b))
            bad++;
        else
            words++;
    }
    /* A few broken lines in what is clearly CoNLL-U: still CoNLL-U, so
     * that its reader reports them in its own terms. */
    if (!words || words < 4 * bad)
        return 0;
    return bad ? 40 : comments ? 95 : 90;
}

static int probe_conll(const char *buf, size_t len)
{
    size_t at = 0, b, e, want = 0;
    int complete, docstart = 0, lines = 0;
    while (next_line(buf, len, &at, &b, &e, &complete)) {
        if (!complete && len >= SNIFF_MAX)
            break;
        if (blank_line(buf + b, e - b))
            continue;
        size_t i = b;
        while (i < e && (buf[i] == ' ' || buf[i] == '\t'))
            i++;
        if (e - i >= 10 && memcmp(buf + i, "-DOCSTART-", 10) == 0) {
            docstart = 1;
            continue;
        }
        size_t fields = 0;
        for (int in = 0; i < e; i++) {
            int sep = buf[i] == ' ' || buf[i] == '\t';
            if (!sep && !in)
                fields++;
            in = !sep;
        }
        if (want && fields != want)
            return 0;
        want = fields;
        lines++;
    }
    return lines ? (docstart ? 80 : 50) : 0;
}

/* The last detection, for cli_sniff_note. */
static char *sniffed_path;
static const char *sniffed_fmt;

static void sniff_forget(void)
{
    free(sniffed_path);
    sniffed_path = NULL;
}

const char *cli_sniff_reader(const char *path)
{
    if (!path || strcmp(path, "-") == 0)
        return NULL;   /* stdin cannot be read twice */
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return NULL;   /* the reader reports a missing file itself */
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(SNIFF_MAX);
    size_t len = buf ? fread(buf, 1, SNIFF_MAX, f) : 0;
    fclose(f);
    if (!buf || len == 0) {
        free(buf);
        return NULL;
    }
    static const char *const names[] = {"conll", "conllu", "xml"};
    int score[3] = {probe_conll(buf, len), probe_conllu(buf, len), probe_xml(buf, len)};
    free(buf);
    int best = 0;
    for (int k = 1; k < 3; k++)
        if (score[k] > score[best])
            best = k;
    if (!sniffed_path)
        atexit(sniff_forget);
    free(sniffed_path);
    sniffed_path = strdup(path);
    /* Nothing matched: the caller's default (CoNLL columns), said so in
     * the note. */
    sniffed_fmt = score[best] ? names[best] : NULL;
    return sniffed_fmt;
}

const char *cli_sniff_note(const char *msg)
{
    static char note[128];
    if (!sniffed_path || !msg || !strstr(msg, sniffed_path))
        return "";
    if (!sniffed_fmt)
        return " (read as CoNLL columns, the default: its content looks like no known format; "
               "use --format to say which)";
    const char *pretty = strcmp(sniffed_fmt, "conllu") == 0  ? "CoNLL-U"
                         : strcmp(sniffed_fmt, "conll") == 0 ? "CoNLL columns"
                                                             : "crfpipe XML";
    snprintf(note, sizeof note, " (read as %s, detected from its content; use --format to override)",
             pretty);
    return note;
}
