/* crfpipe CLI — output files committed by rename, input streams, options. */
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_fail(crfp_host *host)
{
    const char *msg = crfp_errmsg(host);
    fprintf(stderr, "crfpipe: error: %s\n", *msg ? msg : crfp_status_str(crfp_errcode(host)));
    return CLI_FAIL;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "crfpipe %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'crfpipe help')\n");
    return CLI_USAGE;
}

crfp_status cli_output_open(crfp_host *host, cli_output *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        o->stream.fp = stdout;
        o->stream.name = "<stdout>";
        return CRFP_OK;
    }
    size_t n = strlen(path);
    o->path = strdup(path);
    o->tmp = malloc(n + 16);
    if (!o->path || !o->tmp) {
        free(o->path);
        free(o->tmp);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    memcpy(o->tmp, path, n);
    memcpy(o->tmp + n, ".tmp.XXXXXX", 12);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        crfp_status st = crfp_error(host, CRFP_EIO, "%s: cannot create temporary file: %s", path,
                                    strerror(errno));
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return st;
    }
    o->stream.fp = fdopen(fd, "w");
    if (!o->stream.fp) {
        close(fd);
        unlink(o->tmp);
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
    }
    o->stream.name = o->path;
    return CRFP_OK;
}

crfp_status cli_output_commit(crfp_host *host, cli_output *o)
{
    if (!o->tmp) {
        if (fflush(o->stream.fp) != 0 || ferror(o->stream.fp))
            return crfp_error(host, CRFP_EIO, "<stdout>: write error: %s", strerror(errno));
        return CRFP_OK;
    }
    crfp_status st = CRFP_OK;
    int bad = ferror(o->stream.fp);
    if (fclose(o->stream.fp) != 0 || bad)
        st = crfp_error(host, CRFP_EIO, "%s: write error: %s", o->path, strerror(errno));
    else if (rename(o->tmp, o->path) != 0)
        st = crfp_error(host, CRFP_EIO, "%s: cannot rename into place: %s", o->path,
                        strerror(errno));
    if (st != CRFP_OK)
        unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return st;
}

void cli_output_abort(cli_output *o)
{
    if (o->tmp) {
        if (o->stream.fp)
            fclose(o->stream.fp);
        unlink(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

crfp_status cli_input_open(crfp_host *host, crfp_stream *s, const char *path)
{
    if (!path || strcmp(path, "-") == 0) {
        s->fp = stdin;
        s->name = "<stdin>";
        return CRFP_OK;
    }
    s->fp = fopen(path, "rb");
    s->name = path;
    if (!s->fp)
        return crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
    return CRFP_OK;
}

void cli_input_close(crfp_stream *s)
{
    if (s->fp && s->fp != stdin)
        fclose(s->fp);
    s->fp = NULL;
}

int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, n) != 0)
        return 0;
    if (a[2 + n] == '=') {
        *value = a + 3 + n;
        return 1;
    }
    if (a[2 + n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_usage(cmd, "option --%s needs a value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

/* Which plugin reads `path`: the format named, else the one its extension
 * declares, else whichever reader's probe recognises the file's first
 * bytes, else the default format (CLI_DEFAULT_FORMAT).  The host knows the
 * plugins only through what they declare. */
const char *cli_reader_for(crfp_host *host, const char *fmt, const char *path)
{
    const crfp_plugin *p = NULL;
    if (fmt)
        return crfp_host_find_format(host, CRFP_KIND_READER, fmt, &p) == CRFP_OK
                   ? p->desc->name : NULL;
    if (path && strcmp(path, "-") != 0 &&
        crfp_host_format_for_path(host, CRFP_KIND_READER, path, &p) == CRFP_OK)
        return p->desc->name;
    FILE *f = path && strcmp(path, "-") != 0 ? fopen(path, "rb") : NULL;
    if (f) {
        static char head[65536];
        size_t n = fread(head, 1, sizeof head, f);
        fclose(f);
        int conf = 0;
        if (n && crfp_host_sniff_reader(host, head, n, &p, &conf) == CRFP_OK && conf >= 50) {
            crfp_log(host, CRFP_LOG_INFO, "%s: read as %s (detected from its content; use "
                     "--format to override)", path, crfp_plugin_format(p));
            return p->desc->name;
        }
    }
    return crfp_host_find_format(host, CRFP_KIND_READER, CLI_DEFAULT_FORMAT, &p) == CRFP_OK
               ? p->desc->name : NULL;
}

const char *cli_writer_for(crfp_host *host, const char *fmt, const char *path)
{
    const crfp_plugin *p = NULL;
    if (fmt)
        return crfp_host_find_format(host, CRFP_KIND_WRITER, fmt, &p) == CRFP_OK
                   ? p->desc->name : NULL;
    if (path && crfp_host_format_for_path(host, CRFP_KIND_WRITER, path, &p) == CRFP_OK)
        return p->desc->name;
    return crfp_host_find_format(host, CRFP_KIND_WRITER, CLI_DEFAULT_FORMAT, &p) == CRFP_OK
               ? p->desc->name : NULL;
}

int cli_stage_opt(const char *cmd, int argc, char **argv, int *i, const char **names,
                  const char **values, size_t *n, size_t max)
{
    char *name = argv[*i] + 2, *eq = strchr(name, '=');
    const char *v;
    if (eq) {
        *eq = '\0';
        v = eq + 1;
    } else if (*i + 1 < argc) {
        v = argv[++*i];
    } else {
        cli_usage(cmd, "option --%s needs a value", name);
        return -1;
    }
    if (*n == max) {
        cli_usage(cmd, "too many options");
        return -1;
    }
    names[*n] = name;
    values[(*n)++] = v;
    return 1;
}
