/* crfpipe fuzz targets — shared set-up (see fuzzhost.h). */
#include "fuzzhost.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static crfp_host *host;
static char tmpdir[256];
static char pathbuf[512];
/* The names fz_file wrote in tmpdir, removed at exit: a fixed list here
 * once missed the files of later targets and left a directory behind at
 * every replay. */
enum { MAX_FILES = 8 };
static char written[MAX_FILES][32];
static size_t nwritten;
static size_t default_line;

static void quiet(void *ud, crfp_log_level level, const char *msg)
{
    (void)ud, (void)level, (void)msg;
}

static void cleanup(void)
{
    /* Only the files this process wrote live there (fz_file names them). */
    if (tmpdir[0]) {
        for (size_t i = 0; i < nwritten; i++) {
            snprintf(pathbuf, sizeof pathbuf, "%s/%s", tmpdir, written[i]);
            unlink(pathbuf);
        }
        rmdir(tmpdir);
    }
    crfp_host_free(host);
    host = NULL;
}

void fz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz oracle failed: %s%s%s\n", what, detail ? ": " : "",
            detail ? detail : "");
    abort();
}

void fz_trace(const char *fmt, ...)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") != NULL;
    if (!verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("    ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

crfp_host *fz_host(void)
{
    if (host)
        return host;
    host = crfp_host_new();
    if (!host)
        fz_fail("set-up", "crfp_host_new");
    crfp_host_set_log(host, quiet, NULL);
    /* One thread: the tagger and trainer must not spawn pools per input. */
    crfp_host_set_threads(host, 1);
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/crfp-fuzz.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir))
        fz_fail("set-up", "mkdtemp");
    atexit(cleanup);
    return host;
}

const void *fz_plugin(const char *name, crfp_kind kind, const char *const *names,
                      const char *const *values, size_t n, crfp_params **params)
{
    crfp_host *h = fz_host();
    const crfp_plugin *pl;
    if (crfp_host_load_kind(h, name, kind, &pl) != CRFP_OK)
        fz_fail("set-up: cannot load plugin", crfp_errmsg(h));
    if (params) {
        *params = crfp_params_new(pl->desc->params, pl->desc->nparams);
        if (!*params)
            fz_fail("set-up", "crfp_params_new");
        for (size_t i = 0; i < n; i++)
            if (crfp_params_set(h, *params, name, names[i], values[i], NULL) != CRFP_OK)
                fz_fail("set-up: parameter refused", crfp_errmsg(h));
    }
    return pl->desc->vtable;
}

const char *fz_file(const char *name, const uint8_t *data, size_t size)
{
    fz_host();
    size_t i = 0;
    while (i < nwritten && strcmp(written[i], name) != 0)
        i++;
    if (i == nwritten) {
        if (nwritten == MAX_FILES || strlen(name) >= sizeof written[0])
            fz_fail("set-up: too many or too long temporary file names", name);
        strcpy(written[nwritten++], name);
    }
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", tmpdir, name);
    FILE *f = fopen(pathbuf, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fz_fail("set-up: cannot write", pathbuf);
    return pathbuf;
}

FILE *fz_memstream_in(const uint8_t *data, size_t size)
{
    FILE *f = size ? fmemopen((void *)data, size, "rb") : fopen("/dev/null", "rb");
    if (!f)
        fz_fail("set-up", "fmemopen");
    return f;
}

crfp_status fz_read_docs(const crfp_reader_vtable *rd, const crfp_params *rp, FILE *fp,
                         const char *name, crfp_doc **docs, size_t max, size_t *n)
{
    crfp_stream in = {fp, name};
    void *state = NULL;
    *n = 0;
    crfp_status st = rd->open(fz_host(), rp, &in, &state);
    if (st != CRFP_OK)
        return st;
    for (;;) {
        crfp_doc *d = NULL;
        st = rd->next(state, &d);
        if (st != CRFP_OK || !d)
            break;
        if (*n == max) {
            crfp_doc_free(d);
            break;
        }
        docs[(*n)++] = d;
    }
    rd->close(state);
    return st;
}

crfp_status fz_read_lines(const crfp_reader_vtable *rd, const crfp_params *rp,
                          const uint8_t *text, size_t tlen, const char *name, int small,
                          crfp_doc **docs, size_t max, size_t *n)
{
    FILE *fp = fz_memstream_in(text, tlen);
    crfp_status st = fz_read_docs(rd, rp, fp, name, docs, max, n);
    fclose(fp);
    if (st != CRFP_OK && !crfp_errmsg(fz_host())[0])
        fz_fail("reader failed without a message", crfp_status_str(st));
    if (small && fz_longest_line(text, tlen) > 41 && st == CRFP_OK && *n < max)
        fz_fail("line limit", "a line over the limit was read without an error");
    return st;
}

crfp_status fz_write_docs(const char *writer, crfp_doc *const *docs, size_t n, char **buf,
                          size_t *len)
{
    /* one writer per process: the targets use one each */
    static const crfp_writer_vtable *wr;
    static crfp_params *wp;
    if (!wr)
        wr = fz_plugin(writer, CRFP_KIND_WRITER, NULL, NULL, 0, &wp);
    return fz_write_with(wr, wp, docs, n, buf, len);
}

crfp_status fz_write_with(const crfp_writer_vtable *wr, const crfp_params *wp,
                          crfp_doc *const *docs, size_t n, char **buf, size_t *len)
{
    crfp_host *h = fz_host();
    *buf = NULL;
    *len = 0;
    FILE *out = open_memstream(buf, len);
    if (!out)
        fz_fail("set-up", "open_memstream");
    crfp_stream os = {out, "fuzz.out"};
    void *ws = NULL;
    crfp_status st = wr->open(h, wp, &os, &ws);
    for (size_t i = 0; i < n && st == CRFP_OK; i++)
        st = wr->write(ws, docs[i]);
    if (st == CRFP_OK)
        st = wr->finish(ws);
    if (ws)
        wr->close(ws);
    fclose(out);
    if (st != CRFP_OK && !crfp_errmsg(h)[0])
        fz_fail("writer failed without a message", crfp_status_str(st));
    return st;
}

void fz_extract_attrs(const crfp_features_vtable *fx, void *ex, crfp_doc *doc)
{
    static const char *const colnames[] = {"attrs"};
    crfp_annset *set = crfp_doc_annset(doc, "", 0);
    crfp_ann **sen = NULL;
    size_t ns = 0;
    if (crfp_annset_select(set, "Sentence", 0, crfp_doc_length(doc), &sen, &ns) != CRFP_OK)
        fz_fail("select", crfp_errmsg(fz_host()));
    for (size_t i = 0; i < ns; i++) {
        crfp_ann **tok = NULL;
        size_t nt = 0;
        if (crfp_annset_select(set, "Token", sen[i]->start, sen[i]->end, &tok, &nt) != CRFP_OK)
            fz_fail("select", crfp_errmsg(fz_host()));
        const char **cells = malloc((nt ? nt : 1) * sizeof *cells);
        crfp_obsseq *o = crfp_obsseq_new();
        if (!cells || !o)
            fz_fail("set-up", "out of memory");
        for (size_t t = 0; t < nt; t++)
            cells[t] = crfp_ann_str(tok[t], "attrs");
        crfp_tokseq seq = {nt, 1, colnames, cells};
        if (fx->extract(ex, &seq, o) != CRFP_OK)
            fz_fail("attributes", crfp_errmsg(fz_host()));
        if (crfp_obsseq_ntok(o) != nt)
            fz_fail("attributes", "not one observation list per Token");
        crfp_obsseq_free(o);
        free(cells);
        free(tok);
    }
    free(sen);
}

void fz_line_limit(size_t bytes)
{
    crfp_host *h = fz_host();
    if (!default_line)
        default_line = crfp_host_limit(h, CRFP_LIMIT_LINE);
    char spec[64];
    snprintf(spec, sizeof spec, "line=%zu", bytes == FZ_DEFAULT_LINE ? default_line : bytes);
    if (crfp_host_set_limits(h, spec) != CRFP_OK)
        fz_fail("set-up: limit refused", crfp_errmsg(h));
}

size_t fz_longest_line(const uint8_t *d, size_t n)
{
    size_t len = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        len = d[i] == '\n' ? 0 : len + 1;
        if (len > longest)
            longest = len;
    }
    return longest;
}

char *fz_model_dump(crfp_crf *crf, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        fz_fail("set-up", "open_memstream");
    if (crfp_crf_dump(fz_host(), crf, f) != CRFP_OK)
        fz_fail("dump of a model", crfp_errmsg(fz_host()));
    fclose(f);
    return buf;
}

int fz_imported(crfp_status st)
{
    crfp_host *h = fz_host();
    fz_trace("%s", st == CRFP_OK ? "imported" : crfp_errmsg(h));
    if (st == CRFP_OK)
        return 1;
    if (st != CRFP_EFORMAT)
        fz_fail("import failed with an unexpected status", crfp_errmsg(h));
    crfp_error_clear(h);
    return 0;
}

void fz_template_config(crfp_crf *crf, const char *path)
{
    static const char *const colnames[] = {"word", "pos"};
    static const char *const cells[] = {
        "Ünïcödé", "NNP",
        "",        NULL,
        "a.b*c(9", "[",
        "東京😀",  "NN",
    };
    static const crfp_tokseq sent = {4, 2, colnames, cells};
    crfp_host *h = fz_host();
    const char *names[] = {"template"}, *values[] = {"unused"};
    crfp_params *params;
    const crfp_features_vtable *vt =
        fz_plugin("templates", CRFP_KIND_FEATURES, names, values, 1, &params);
    crfp_params_free(params);
    size_t clen;
    const char *cfg = crfp_crf_features_config(crf, &clen);
    void *ex = NULL;
    crfp_status st = vt->load(h, cfg, clen, path, &ex);
    fz_trace("template: %s", st == CRFP_OK ? "loads" : crfp_errmsg(h));
    if (st == CRFP_OK) {
        crfp_obsseq *o = crfp_obsseq_new();
        if (!o)
            fz_fail("set-up", "crfp_obsseq_new");
        st = vt->extract(ex, &sent, o);
        fz_trace("extract: %s", crfp_status_str(st));
        if (st != CRFP_OK && st != CRFP_EPARSE)
            fz_fail("extract failed with an unexpected status", crfp_errmsg(h));
        crfp_obsseq_free(o);
        vt->free(ex);
    } else if (st != CRFP_EPARSE || !crfp_errmsg(h)[0]) {
        fz_fail("the template failed without a parse error", crfp_errmsg(h));
    }
    crfp_error_clear(h);
}

void fz_model_roundtrip(crfp_crf *crf, const char *path, char *d1, size_t len1,
                        const char *what)
{
    crfp_host *h = fz_host();
    char resaved[600], msg[160];
    snprintf(resaved, sizeof resaved, "%s.re", path);
    snprintf(msg, sizeof msg, "saving %s", what);
    if (crfp_crf_save(h, crf, resaved) != CRFP_OK)
        fz_fail(msg, crfp_errmsg(h));
    crfp_crf_free(crf);
    crf = NULL;
    snprintf(msg, sizeof msg, "loading %s saved", what);
    if (crfp_crf_load(h, resaved, &crf) != CRFP_OK)
        fz_fail(msg, crfp_errmsg(h));
    remove(resaved);
    size_t len2;
    char *d2 = fz_model_dump(crf, &len2);
    if (len1 != len2 || memcmp(d1, d2, len1) != 0)
        fz_fail("save/load", "the dumps differ");
    free(d1);
    free(d2);
    crfp_crf_free(crf);
}
