/* crfpipe — a model as text: the dump, and the walk over its weights that
 * the dump, `crfpipe model top|info` and the Python bindings share.
 *
 * Strings come from the data (observations hold token text, labels and
 * metadata may come from XML attributes), so they may hold tabs or line
 * breaks; the dump escapes them so that every line still has its fields.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "crf_impl.h"

/* s[0..len) with backslash, tab, line feed and carriage return written
 * \\ \t \n \r and other control bytes \xHH: a field without separators. */
static void put_escaped(FILE *out, const char *s, size_t len)
{
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f && c != '\\')
            continue;
        /* the plain run before it in one write */
        fwrite(s + from, 1, i - from, out);
        from = i + 1;
        if (c == '\\')
            fputs("\\\\", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\r')
            fputs("\\r", out);
        else
            fprintf(out, "\\x%02x", c);
    }
    fwrite(s + from, 1, len - from, out);
}

static void put_label(FILE *out, const crfp_crf *crf, uint32_t y)
{
    if (y == crf->Y) {
        fputs("<start>", out);
        return;
    }
    size_t len;
    const char *s = crfp_dict_str(&crf->labels, y, &len);
    put_escaped(out, s, len);
}

int crfp_crf_foreach_weight(const crfp_crf *crf,
                            int (*fn)(void *ud, const crfp_crf_weight *w), void *ud)
{
    if (!crf || !crf->final)
        return 0;
    uint32_t Y = crf->Y;
    for (uint32_t o = 0; o < crf->obs.n; o++) {
        if (crf->ublk[o] != CRFP_NO_BLOCK) {
            const double *w = crf->w + crf->ublk[o];
            for (uint32_t y = 0; y < Y; y++) {
                int r;
                if (w[y] != 0.0 &&
                    (r = fn(ud, &(crfp_crf_weight){0, o, Y, y, w[y]})) != 0)
                    return r;
            }
        }
        if (crf->bblk[o] != CRFP_NO_BLOCK) {
            const double *w = crf->w + crf->bblk[o];
            for (uint32_t p = 0; p <= Y; p++)
                for (uint32_t y = 0; y < Y; y++) {
                    double v = w[(size_t)p * Y + y];
                    int r;
                    if (v != 0.0 && (r = fn(ud, &(crfp_crf_weight){1, o, p, y, v})) != 0)
                        return r;
                }
        }
    }
    return 0;
}

void crfp_crf_write_weight(const crfp_crf *crf, const crfp_crf_weight *w, FILE *out)
{
    size_t len;
    const char *s = crfp_dict_str(&crf->obs, w->obs, &len);
    fputs(w->bigram ? "B\t" : "U\t", out);
    put_escaped(out, s, len);
    fputc('\t', out);
    if (w->bigram) {
        put_label(out, crf, w->prev);
        fputc('\t', out);
    }
    put_label(out, crf, w->label);
    fprintf(out, "\t%.17g\n", w->value);
}

typedef struct dump_to {
    const crfp_crf *crf;
    FILE *out;
} dump_to;

static int write_one(void *ud, const crfp_crf_weight *w)
{
    const dump_to *d = ud;
    crfp_crf_write_weight(d->crf, w, d->out);
    return 0;
}

crfp_status crfp_crf_dump_header(crfp_host *host, const crfp_crf *crf, FILE *out)
{
    if (!crf || !out || !crf->final)
        return crfp_error(host, CRFP_EINVAL, "crf: dump: no finalized model");
    fprintf(out, "labels\t%u\n", crf->Y);
    for (uint32_t y = 0; y < crf->Y; y++) {
        fprintf(out, "label\t%u\t", y);
        put_label(out, crf, y);
        fputc('\n', out);
    }
    /* the plugin's name comes from the model file, hostile input */
    fputs("features\t", out);
    if (crf->fplugin)
        put_escaped(out, crf->fplugin, strlen(crf->fplugin));
    else
        fputc('-', out);
    fputc('\n', out);
    /* the configuration is given by its length, so it is written as it is */
    fprintf(out, "config\t%zu\n", crf->fplugin ? crf->fconfig_len : (size_t)0);
    if (crf->fplugin && crf->fconfig_len) {
        fwrite(crf->fconfig, 1, crf->fconfig_len, out);
        if (crf->fconfig[crf->fconfig_len - 1] != '\n')
            fputc('\n', out);
    }
    for (size_t i = 0; i < crf->nmeta; i++) {
        fputs("meta\t", out);
        put_escaped(out, crf->meta_k[i], strlen(crf->meta_k[i]));
        fputc('\t', out);
        put_escaped(out, crf->meta_v[i], strlen(crf->meta_v[i]));
        fputc('\n', out);
    }
    if (fflush(out) != 0 || ferror(out))
        return crfp_error(host, CRFP_EIO, "crf: dump: write error: %s", strerror(errno));
    return CRFP_OK;
}

crfp_status crfp_crf_dump(crfp_host *host, const crfp_crf *crf, FILE *out)
{
    crfp_status st = crfp_crf_dump_header(host, crf, out);
    if (st != CRFP_OK)
        return st;
    crfp_crf_foreach_weight(crf, write_one, &(dump_to){crf, out});
    if (fflush(out) != 0 || ferror(out))
        return crfp_error(host, CRFP_EIO, "crf: dump: write error: %s", strerror(errno));
    return CRFP_OK;
}
