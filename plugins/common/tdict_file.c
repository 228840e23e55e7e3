/* tdict_file — the tag dictionary's file: written by tdict_save, read
 * (as hostile input: every line checked, errors by line) by tdict_load.
 * See tdict.h. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unicode/utf8.h>

#include "tdict.h"

int tdict_save(const tdict *d, const char *path)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp)
        return ENOMEM;
    snprintf(tmp, pl + 16, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        free(tmp);
        return e;
    }
    fputs("#crfpipe-tagdict 1\n", f);
    for (size_t w = 0; w < d->words.n; w++) {
        const tdict_counts *c = &d->wc[w];
        fputs(d->words.strs[w], f);
        for (uint32_t i = 0; i < c->n; i++)
            fprintf(f, "\t%s\t%lu", d->tags.strs[c->tag[i]], (unsigned long)c->count[i]);
        fputc('\n', f);
    }
    int e = ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e)
        remove(tmp);
    free(tmp);
    return e;
}

static int utf8_ok(const char *s, size_t n)
{
    for (int32_t i = 0; (size_t)i < n;) {
        UChar32 c;
        U8_NEXT(s, i, (int32_t)n, c);
        if (c < 0)
            return 0;
    }
    return 1;
}

/* Largest dictionary file read (a guard against a hostile path such as a
 * device, not a limit any real lexicon reaches). */
#define TDICT_MAX_BYTES ((size_t)1 << 30)

int tdict_load(tdict *d, const char *path, char *err, size_t errsize)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errsize, "%s", strerror(errno));
        return -1;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            if (cap >= TDICT_MAX_BYTES) {
                snprintf(err, errsize, "larger than %zu bytes: not a tag dictionary",
                         TDICT_MAX_BYTES);
                goto fail;
            }
            size_t nc = cap ? 2 * cap : 1 << 20;
            char *nb = realloc(buf, nc);
            if (!nb) {
                snprintf(err, errsize, "out of memory");
                goto fail;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errsize, "%s", strerror(errno ? errno : EIO));
        goto fail;
    }
    fclose(f);
    f = NULL;
    buf[n] = '\0';
    if (tdict_own(d, buf) != 0) { /* from here the dictionary frees it */
        snprintf(err, errsize, "out of memory");
        goto fail;
    }
    static const char header[] = "#crfpipe-tagdict 1\n";
    if (strncmp(buf, header, sizeof header - 1) != 0) {
        /* the two ways an editor breaks a good file get their own words */
        if (strncmp(buf, "#crfpipe-tagdict 1\r\n", 20) == 0)
            snprintf(err, errsize, "line 1: CR LF line ends (a tag dictionary's lines end "
                     "in LF alone)");
        else if (strncmp(buf, "\xef\xbb\xbf#crfpipe-tagdict", 19) == 0)
            snprintf(err, errsize, "line 1: a byte-order mark before the header");
        else
            snprintf(err, errsize, "line 1: not a tag dictionary (no '#crfpipe-tagdict 1' "
                     "header)");
        return -1;
    }
    size_t line = 1;
    for (char *p = buf + sizeof header - 1; p < buf + n;) {
        line++;
        char *e = memchr(p, '\n', (size_t)(buf + n - p));
        if (!e) {
            snprintf(err, errsize, "line %zu: no newline at the end (a truncated file?)", line);
            return -1;
        }
        *e = '\0';
        if (memchr(p, '\0', (size_t)(e - p)) || !utf8_ok(p, (size_t)(e - p))) {
            snprintf(err, errsize, "line %zu: not UTF-8 text", line);
            return -1;
        }
        char *word = p, *tab = strchr(p, '\t');
        if (!tab || tab == word) {
            snprintf(err, errsize, "line %zu: expected 'word TAB tag TAB count ...'", line);
            return -1;
        }
        *tab = '\0';
        if (strtab_find(&d->words, word) >= 0) {
            snprintf(err, errsize, "line %zu: the word '%.64s' is listed twice", line, word);
            return -1;
        }
        for (char *q = tab + 1; q;) {
            char *tag = q, *t2 = strchr(q, '\t');
            if (t2 == tag || !*tag) {
                snprintf(err, errsize, "line %zu: an empty tag", line);
                return -1;
            }
            if (!t2) {
                snprintf(err, errsize, "line %zu: tag '%.64s' without a count", line, tag);
                return -1;
            }
            *t2 = '\0';
            if (strchr(tag, '|')) {
                snprintf(err, errsize, "line %zu: tag '%.64s' has a '|', which joins the tags "
                         "of a class", line, tag);
                return -1;
            }
            char *num = t2 + 1, *end;
            q = strchr(num, '\t');
            if (q)
                *q++ = '\0';
            errno = 0;
            unsigned long long k = strtoull(num, &end, 10);
            if (num[0] < '0' || num[0] > '9' || *end || errno || k == 0 || k > UINT32_MAX) {
                snprintf(err, errsize, "line %zu: count '%.32s' of tag '%.64s' is not an integer "
                         "from 1 to %lu", line, num, tag, (unsigned long)UINT32_MAX);
                return -1;
            }
            if (tdict_add(d, word, tag, (uint32_t)k) != 0) {
                snprintf(err, errsize, "out of memory");
                return -1;
            }
        }
        p = e + 1;
    }
    if (tdict_freeze(d) != 0) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    return 0;
fail:
    if (f)
        fclose(f);
    free(buf);
    return -1;
}

