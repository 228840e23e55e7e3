/* crfpipe CLI — input format detection from content.
 *
 * When neither --format nor the file name says which format an input is
 * in, the first 64 KiB are shown to every reader's probe (plugin ABI 2.1,
 * crfp_host_sniff_reader) and the most confident one reads it.  The program
 * remembers what it assumed, so that an error about that file can say so:
 * a user whose "out.txt" is read as CoNLL-U learns why.  One command runs
 * per process, so the remembered answer is the program's, not the
 * library's.
 */
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SNIFF_MAX (64 * 1024)

static char *sniffed_path;
static char sniffed_fmt[32];

static void sniff_forget(void)
{
    free(sniffed_path);
    sniffed_path = NULL;
}

crfp_status cli_sniff_reader(crfp_host *host, const char *path, const char **name)
{
    *name = NULL;
    if (!path || strcmp(path, "-") == 0)
        return CRFP_OK;   /* stdin cannot be read twice */
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return CRFP_OK;   /* the reader reports a missing file itself */
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOMEM ? crfp_error(host, CRFP_ENOMEM, "%s: out of memory", path)
                               : CRFP_OK;
    char *buf = malloc(SNIFF_MAX);
    size_t len = buf ? fread(buf, 1, SNIFF_MAX, f) : 0;
    fclose(f);
    if (!buf)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory reading its first bytes", path);
    const crfp_plugin *p = NULL;
    int conf = 0;
    crfp_status st = len ? crfp_host_sniff_reader(host, buf, len, &p, &conf) : CRFP_ENOTFOUND;
    free(buf);
    if (st != CRFP_OK && st != CRFP_ENOTFOUND)
        return st;
    if (st != CRFP_OK)
        p = NULL;
    if (!sniffed_path)
        atexit(sniff_forget);
    free(sniffed_path);
    /* Without the copy the note is left out; the answer stands. */
    sniffed_path = strdup(path);
    snprintf(sniffed_fmt, sizeof sniffed_fmt, "%s", p ? crfp_plugin_format(p) : "");
    *name = p ? p->desc->name : NULL;
    return CRFP_OK;
}

const char *cli_sniff_note(const char *msg)
{
    static char note[160];
    if (!sniffed_path || !msg || !strstr(msg, sniffed_path))
        return "";
    if (!sniffed_fmt[0])
        return " (read as " CLI_DEFAULT_FORMAT ", the default: its content looks like no known "
               "format; use --format to say which)";
    const char *pretty = strcmp(sniffed_fmt, "conllu") == 0  ? "CoNLL-U"
                         : strcmp(sniffed_fmt, "conll") == 0 ? "CoNLL columns"
                         : strcmp(sniffed_fmt, "xml") == 0   ? "crfpipe XML"
                                                             : sniffed_fmt;
    snprintf(note, sizeof note, " (read as %s, detected from its content; use --format to override)",
             pretty);
    return note;
}
