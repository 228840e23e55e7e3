/* crfpipe — where the schemas live, loading them, and whole-file RELAX NG
 * validation with every error reported as file:line. */
#include "config.h"
#include "crfpipe/corpus.h"
#include "xmlcommon.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include "crfpipe/alloc.h"

#ifndef CRFP_ABS_BUILDDIR
#define CRFP_ABS_BUILDDIR ""
#endif

/* Only so many errors are kept: a file that is wrong everywhere would
 * otherwise produce a message as large as itself. */
#define MAX_KEPT_ERRORS 20

/* The running program is uninstalled when it lies under the build tree
 * (libtool wrappers exec .libs/lt-* binaries there too). */
static int running_uninstalled(void)
{
    char exe[PATH_MAX], build[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || !*CRFP_ABS_BUILDDIR || !realpath(CRFP_ABS_BUILDDIR, build))
        return 0;
    exe[n] = '\0';
    size_t bl = strlen(build);
    return strncmp(exe, build, bl) == 0 && exe[bl] == '/';
}

const char *crfp_schema_dir(void)
{
    const char *env = getenv("CRFPIPE_SCHEMA_DIR");
    if (env && *env)
        return env;
    if (running_uninstalled())
        return CRFP_ABS_SRCDIR "/schemas";
    return CRFP_PKGDATADIR "/schemas";
}

static void append(crfp_xmlerrs *e, const char *s, size_t n)
{
    if (e->len + n + 2 > e->cap) {
        size_t cap = e->cap ? e->cap : 256;
        while (cap < e->len + n + 2)
            cap *= 2;
        char *p = realloc(e->text, cap);
        if (!p)
            return;
        e->text = p;
        e->cap = cap;
    }
    memcpy(e->text + e->len, s, n);
    e->len += n;
    e->text[e->len] = '\0';
}

void crfp_xmlerrs_handler(void *ud, crfp_xml_err_ptr err)
{
    crfp_xmlerrs *e = ud;
    if (!err || err->level == XML_ERR_WARNING || err->level == XML_ERR_NONE)
        return;
    if (e->count++ >= MAX_KEPT_ERRORS)
        return;
    int line = err->line;
    if (line <= 0 && err->node)
        line = (int)xmlGetLineNo((const xmlNode *)err->node);
    if (line <= 0)
        line = e->fallback_line;
    const char *file = e->name ? e->name : err->file ? err->file : "<input>";
    const char *msg = err->message ? err->message : "error";
    size_t ml = strlen(msg);
    while (ml && (msg[ml - 1] == '\n' || msg[ml - 1] == ' '))
        ml--;
    char head[64];
    if (e->len)
        append(e, "\n", 1);
    append(e, file, strlen(file));
    int hn = line > 0 ? snprintf(head, sizeof head, ":%d: ", line) : snprintf(head, sizeof head, ": ");
    append(e, head, (size_t)hn);
    /* RELAX NG errors name the element in err->str1 only through the
     * message, which is enough. */
    append(e, msg, ml);
}

void crfp_xmlerrs_free(crfp_xmlerrs *e)
{
    free(e->text);
    memset(e, 0, sizeof *e);
}

static crfp_status report(crfp_host *host, crfp_status st, crfp_xmlerrs *e, const char *fallback)
{
    if (!e->text)
        st = crfp_error(host, st, "%s: %s", e->name ? e->name : "<input>", fallback);
    else if (e->count > MAX_KEPT_ERRORS)
        st = crfp_error(host, st, "%s\n(%d more errors)", e->text, e->count - MAX_KEPT_ERRORS);
    else
        st = crfp_error(host, st, "%s", e->text);
    crfp_xmlerrs_free(e);
    return st;
}

/* The schema file read whole: libxml2 would open it with fopen() itself
 * and report a failure to allocate the FILE as "failed to load external
 * entity"; reading it here tells running out of memory from a missing
 * schema.  Schemas are a few kB. */
static crfp_status read_schema(crfp_host *host, const char *path, char **buf, size_t *len)
{
    *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOMEM ? crfp_error(host, CRFP_ENOMEM, "schema %s: out of memory", path)
                               : crfp_error(host, errno == ENOENT ? CRFP_ENOTFOUND : CRFP_EIO,
                                            "schema %s: %s (set CRFPIPE_SCHEMA_DIR?)", path,
                                            strerror(errno));
    size_t cap = 16384, n = 0;
    char *b = malloc(cap);
    crfp_status st = b ? CRFP_OK : crfp_error(host, CRFP_ENOMEM, "schema %s: out of memory", path);
    while (st == CRFP_OK) {
        if (n == cap) {
            char *nb = cap < ((size_t)1 << 24) ? realloc(b, cap * 2) : NULL;
            if (!nb) {
                st = crfp_error(host, CRFP_ENOMEM, "schema %s: out of memory", path);
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                st = crfp_error(host, CRFP_EIO, "schema %s: read error", path);
            break;
        }
    }
    fclose(f);
    if (st != CRFP_OK) {
        free(b);
        return st;
    }
    *buf = b;
    *len = n;
    return CRFP_OK;
}

crfp_status crfp_rng_load(crfp_host *host, const char *name, xmlRelaxNGPtr *out)
{
    *out = NULL;
    const char *dir = crfp_schema_dir();
    size_t nl = strlen(name);
    int ext = nl >= 4 && strcmp(name + nl - 4, ".rng") == 0;
    size_t need = strlen(dir) + nl + 8;
    char *path = malloc(need);
    if (!path)
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    snprintf(path, need, "%s/%s%s", dir, name, ext ? "" : ".rng");
    char *text;
    size_t len = 0;
    crfp_status st = read_schema(host, path, &text, &len);
    if (st != CRFP_OK) {
        free(path);
        return st;
    }
    /* libxml2 2.9 crashes when an allocation fails while it compiles a
     * schema (its XML Schema datatype tables, facet regexps): it runs in a
     * reserve section, and a compilation that ran out is thrown away. */
    crfp_reserve_section rs;
    if (crfp_reserve_enter(&rs) != CRFP_OK) {
        free(text);
        st = crfp_error(host, CRFP_ENOMEM, "schema %s: out of memory", path);
        free(path);
        return st;
    }
    crfp_xmlerrs e = {.name = path};
    xmlRelaxNGPtr rng = NULL;
    xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewMemParserCtxt(text, (int)len);
    if (pc) {
        xmlRelaxNGSetParserStructuredErrors(pc, crfp_xmlerrs_handler, &e);
        rng = xmlRelaxNGParse(pc);
        xmlRelaxNGFreeParserCtxt(pc);
    }
    int ran_out = crfp_reserve_leave(&rs);
    free(text);
    if (ran_out || !pc) {
        if (rng)
            xmlRelaxNGFree(rng);
        crfp_xmlerrs_free(&e);
        st = crfp_error(host, CRFP_ENOMEM, "schema %s: out of memory compiling it", path);
    } else if (!rng) {
        st = report(host, CRFP_EPARSE, &e, "cannot compile the schema");
    } else {
        *out = rng;
    }
    crfp_xmlerrs_free(&e);
    free(path);
    return st;
}

#if LIBXML_VERSION < 21300
/* Before libxml2 2.13 a parser context has no error-handler setter; its SAX
 * serror slot is the per-context route, called with the context itself. */
static void parser_error_relay(void *ctx, crfp_xml_err_ptr err)
{
    xmlParserCtxtPtr c = ctx;
    crfp_xmlerrs_handler(c->_private, err);
}
#endif

static int io_read(void *ctx, char *buf, int len)
{
    FILE *f = ctx;
    size_t n = fread(buf, 1, len > 0 ? (size_t)len : 0, f);
    return n == 0 && ferror(f) ? -1 : (int)n;
}

static int io_close(void *ctx)
{
    (void)ctx; /* the caller closes its FILE */
    return 0;
}

/* Parse the open file `f` (named path) into a tree.  The parse runs in a
 * reserve section, so that running out of memory is told apart from
 * malformed XML (and cannot reach libxml2 code that mishandles it): *oom
 * is then set and NULL returned. */
static xmlDocPtr parse_file(FILE *f, const char *path, int options, crfp_xmlerrs *e, int *oom)
{
    *oom = 0;
    crfp_reserve_section rs;
    if (crfp_reserve_enter(&rs) != CRFP_OK) {
        *oom = 1;
        return NULL;
    }
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    xmlDocPtr doc = NULL;
    if (ctxt) {
#if LIBXML_VERSION >= 21300
        xmlCtxtSetErrorHandler(ctxt, crfp_xmlerrs_handler, e);
#else
        ctxt->_private = e;
        ctxt->sax->serror = parser_error_relay;
#endif
        doc = xmlCtxtReadIO(ctxt, io_read, io_close, f, path, NULL, options);
        if (doc && !ctxt->wellFormed) {
            xmlFreeDoc(doc);
            doc = NULL;
        }
        if (ctxt->errNo == XML_ERR_NO_MEMORY)
            *oom = 1;
        xmlFreeParserCtxt(ctxt);
    }
    if (crfp_reserve_leave(&rs) || !ctxt)
        *oom = 1;
    if (*oom && doc) {
        xmlFreeDoc(doc);
        doc = NULL;
    }
    return doc;
}

/* The prolog of the file, scanned as the reader does it, so that a DOCTYPE
 * is refused before libxml2 could expand its entities. */
static crfp_status check_prolog(crfp_host *host, const char *path, FILE *f)
{
    crfp_prolog p = {0};
    unsigned char buf[4096];
    size_t n;
    while (p.verdict == CRFP_PROLOG_PENDING && (n = fread(buf, 1, sizeof buf, f)) > 0)
        crfp_prolog_feed(&p, buf, n);
    if (ferror(f))
        return crfp_error(host, CRFP_EIO, "%s: read error", path);
    return p.verdict > CRFP_PROLOG_OK ? crfp_prolog_error(host, &p, path) : CRFP_OK;
}

/* The checks the streaming reader makes beyond the schema (offsets in range
 * and on character boundaries, distinct ids, references, node sizes): a
 * file `validate` accepts is one the reader accepts. */
static crfp_status check_like_reader(crfp_host *host, const char *path)
{
    crfp_stream in = {.fp = fopen(path, "rb"), .name = path};
    if (!in.fp)
        return crfp_error(host, errno == ENOMEM ? CRFP_ENOMEM : CRFP_EIO, "%s: %s", path,
                          errno == ENOMEM ? "out of memory" : strerror(errno));
    crfp_xml_reader *r;
    crfp_status st = crfp_xml_reader_open(host, &in, 0, &r);
    while (st == CRFP_OK) {
        crfp_doc *doc;
        if ((st = crfp_xml_reader_next(r, &doc)) != CRFP_OK || !doc)
            break;
        crfp_doc_free(doc);
    }
    crfp_xml_reader_close(r);
    fclose(in.fp);
    return st;
}

crfp_status crfp_xml_load_valid(crfp_host *host, const char *path, const char *schema,
                                xmlDocPtr *out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return crfp_error(host, errno == ENOMEM ? CRFP_ENOMEM : CRFP_EIO, "%s: %s", path,
                          errno == ENOMEM ? "out of memory" : strerror(errno));
    crfp_status st = check_prolog(host, path, f);
    if (st == CRFP_OK && fseek(f, 0, SEEK_SET) != 0)
        st = crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
    if (st != CRFP_OK) {
        fclose(f);
        return st;
    }
    crfp_xmlerrs e = {.name = path};
    int oom;
    xmlDocPtr doc = parse_file(f, path, crfp_xml_parse_options(host), &e, &oom);
    int rerr = ferror(f);
    fclose(f);
    if (!doc) {
        if (oom) {
            crfp_xmlerrs_free(&e);
            return crfp_error(host, CRFP_ENOMEM, "%s: out of memory parsing it", path);
        }
        if (rerr) {
            crfp_xmlerrs_free(&e);
            return crfp_error(host, CRFP_EIO, "%s: read error", path);
        }
        /* libxml2's own 10 MB node limit: say which limit and how to raise it. */
        if (e.text && (strstr(e.text, "too long") || strstr(e.text, "huge text node"))) {
            crfp_xmlerrs_free(&e);
            return crfp_xml_node_error(host, path, 0, "a text node or attribute value", 0);
        }
        return report(host, CRFP_EPARSE, &e, "not well-formed XML");
    }
    crfp_xmlerrs_free(&e);
    e.name = path;

    if (!schema) {
        xmlNodePtr root = xmlDocGetRootElement(doc);
        schema = root && xmlStrEqual(root->name, BAD_CAST "pipeline") ? "pipeline.rng"
                                                                       : "document.rng";
    }
    xmlRelaxNGPtr rng;
    if ((st = crfp_rng_load(host, schema, &rng)) != CRFP_OK) {
        xmlFreeDoc(doc);
        return st;
    }
    /* Validation, too, dereferences failed allocations in libxml2 2.9. */
    crfp_reserve_section rs;
    if (crfp_reserve_enter(&rs) != CRFP_OK) {
        xmlRelaxNGFree(rng);
        xmlFreeDoc(doc);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory validating it", path);
    }
    int r = -1;
    xmlRelaxNGValidCtxtPtr vc = xmlRelaxNGNewValidCtxt(rng);
    if (vc) {
        xmlRelaxNGSetValidStructuredErrors(vc, crfp_xmlerrs_handler, &e);
        r = xmlRelaxNGValidateDoc(vc, doc);
        xmlRelaxNGFreeValidCtxt(vc);
    }
    int ran_out = crfp_reserve_leave(&rs);
    xmlRelaxNGFree(rng);
    if (ran_out || !vc) {
        xmlFreeDoc(doc);
        crfp_xmlerrs_free(&e);
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory validating it", path);
    }
    if (r != 0) {
        xmlFreeDoc(doc);
        return report(host, CRFP_ESCHEMA, &e, "does not match the schema");
    }
    crfp_xmlerrs_free(&e);
    *out = doc;
    return CRFP_OK;
}

crfp_status crfp_xml_validate_file(crfp_host *host, const char *path, const char *schema)
{
    xmlDocPtr doc;
    crfp_status st = crfp_xml_load_valid(host, path, schema, &doc);
    if (st != CRFP_OK)
        return st;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    int is_corpus = root && xmlStrEqual(root->name, BAD_CAST "corpus") &&
                    (!schema || strncmp(schema, "document", 8) == 0);
    xmlFreeDoc(doc);
    return is_corpus ? check_like_reader(host, path) : CRFP_OK;
}

/* --- prolog scanning and node limits ---------------------------------------- */

enum {
    PS_TEXT, PS_LT, PS_PI, PS_PI_Q, PS_BANG, PS_CDASH, PS_COMMENT, PS_C1, PS_C2, PS_DONE
};

int crfp_prolog_feed(crfp_prolog *p, const unsigned char *s, size_t n)
{
    if (p->line == 0)
        p->line = 1;
    for (size_t i = 0; i < n && p->verdict == CRFP_PROLOG_PENDING; i++, p->pos++) {
        unsigned c = s[i];
        if (c == '\n')
            p->line++;
        switch (p->state) {
        case PS_TEXT:
            if (c == '<')
                p->state = PS_LT;
            else if (c == 0 || ((c == 0xFE || c == 0xFF) && p->pos < 2))
                /* UTF-16/32 (a BOM or a NUL byte): the scan cannot follow it,
                 * and the corpus format is UTF-8 only. */
                p->verdict = CRFP_PROLOG_ENCODING;
            else if (!(c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
                       (p->pos < 3 && (c == 0xEF || c == 0xBB || c == 0xBF))))
                p->verdict = CRFP_PROLOG_OK; /* junk: libxml2 reports it */
            break;
        case PS_LT:
            p->state = c == '?' ? PS_PI : c == '!' ? PS_BANG : PS_DONE;
            if (p->state == PS_DONE)
                p->verdict = CRFP_PROLOG_OK; /* the root element */
            break;
        case PS_PI:
            if (c == '?')
                p->state = PS_PI_Q;
            break;
        case PS_PI_Q:
            p->state = c == '>' ? PS_TEXT : c == '?' ? PS_PI_Q : PS_PI;
            break;
        case PS_BANG:
            if (c == '-')
                p->state = PS_CDASH;
            else
                p->verdict = c == 'D' ? CRFP_PROLOG_DOCTYPE : CRFP_PROLOG_OK;
            break;
        case PS_CDASH:
            p->state = PS_COMMENT;
            if (c != '-')
                p->verdict = CRFP_PROLOG_OK; /* malformed: libxml2 reports it */
            break;
        case PS_COMMENT:
            if (c == '-')
                p->state = PS_C1;
            break;
        case PS_C1:
            p->state = c == '-' ? PS_C2 : PS_COMMENT;
            break;
        case PS_C2:
            p->state = c == '>' ? PS_TEXT : c == '-' ? PS_C2 : PS_COMMENT;
            break;
        default:
            p->verdict = CRFP_PROLOG_OK;
            break;
        }
    }
    return p->verdict;
}

crfp_status crfp_prolog_error(crfp_host *host, const crfp_prolog *p, const char *name)
{
    if (p->verdict == CRFP_PROLOG_ENCODING)
        return crfp_error(host, CRFP_EPARSE,
                          "%s:%d: not UTF-8 (a byte-order mark or NUL byte): corpora and "
                          "pipelines must be UTF-8",
                          name, p->line);
    return crfp_error(host, CRFP_EPARSE,
                      "%s:%d: a DOCTYPE is not allowed (DTDs and entity declarations are "
                      "refused before parsing)",
                      name, p->line);
}

int crfp_xml_parse_options(const crfp_host *host)
{
    size_t lim = crfp_host_limit(host, CRFP_LIMIT_XML_NODE);
    int opts = XML_PARSE_NONET | XML_PARSE_BIG_LINES;
    if (lim == 0 || lim > CRFP_LIBXML_NODE_MAX)
        opts |= XML_PARSE_HUGE;
    return opts;
}

crfp_status crfp_xml_node_error(crfp_host *host, const char *name, int line, const char *what,
                                size_t len)
{
    size_t lim = crfp_host_limit(host, CRFP_LIMIT_XML_NODE);
    char size[48] = "";
    if (len)
        snprintf(size, sizeof size, " of %zu bytes", len);
    char at[24] = "";
    if (line > 0)
        snprintf(at, sizeof at, ":%d", line);
    return crfp_error(host, CRFP_EPARSE,
                      "%s%s: %s%s exceeds the limit xml-node=%zu bytes (raise it with "
                      "--limit xml-node=N or CRFPIPE_LIMITS=xml-node=N; 0 = unlimited)",
                      name, at, what, size, lim ? lim : CRFP_LIBXML_NODE_MAX);
}

int crfp_xml_is_huge_error(crfp_xml_err_ptr err)
{
    const char *m = err ? err->message : NULL;
    return m && (strstr(m, "huge text node") || strstr(m, "length too long") ||
                 strstr(m, "Huge input lookup") || strstr(m, "too long"));
}
