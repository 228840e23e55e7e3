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
    if (access(path, R_OK) != 0) {
        crfp_status st = crfp_error(host, CRFP_ENOTFOUND,
                                    "schema %s: %s (set CRFPIPE_SCHEMA_DIR?)", path,
                                    strerror(errno));
        free(path);
        return st;
    }
    crfp_xmlerrs e = {.name = path};
    xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewParserCtxt(path);
    if (!pc) {
        free(path);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    xmlRelaxNGSetParserStructuredErrors(pc, crfp_xmlerrs_handler, &e);
    xmlRelaxNGPtr rng = xmlRelaxNGParse(pc);
    xmlRelaxNGFreeParserCtxt(pc);
    crfp_status st = CRFP_OK;
    if (!rng) {
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

static xmlDocPtr parse_file(const char *path, crfp_xmlerrs *e)
{
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return NULL;
#if LIBXML_VERSION >= 21300
    xmlCtxtSetErrorHandler(ctxt, crfp_xmlerrs_handler, e);
#else
    ctxt->_private = e;
    ctxt->sax->serror = parser_error_relay;
#endif
    xmlDocPtr doc = xmlCtxtReadFile(ctxt, path, NULL,
                                    XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_HUGE);
    if (doc && !ctxt->wellFormed) {
        xmlFreeDoc(doc);
        doc = NULL;
    }
    xmlFreeParserCtxt(ctxt);
    return doc;
}

crfp_status crfp_xml_validate_file(crfp_host *host, const char *path, const char *schema)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return crfp_error(host, CRFP_EIO, "%s: %s", path, strerror(errno));
    fclose(f);

    crfp_xmlerrs e = {.name = path};
    xmlDocPtr doc = parse_file(path, &e);
    if (!doc)
        return report(host, CRFP_EPARSE, &e, "not well-formed XML");
    crfp_xmlerrs_free(&e);
    e.name = path;

    if (!schema) {
        xmlNodePtr root = xmlDocGetRootElement(doc);
        schema = root && xmlStrEqual(root->name, BAD_CAST "pipeline") ? "pipeline.rng"
                                                                       : "document.rng";
    }
    xmlRelaxNGPtr rng;
    crfp_status st = crfp_rng_load(host, schema, &rng);
    if (st != CRFP_OK) {
        xmlFreeDoc(doc);
        return st;
    }
    xmlRelaxNGValidCtxtPtr vc = xmlRelaxNGNewValidCtxt(rng);
    if (!vc) {
        xmlRelaxNGFree(rng);
        xmlFreeDoc(doc);
        return crfp_error(host, CRFP_ENOMEM, "out of memory");
    }
    xmlRelaxNGSetValidStructuredErrors(vc, crfp_xmlerrs_handler, &e);
    int r = xmlRelaxNGValidateDoc(vc, doc);
    xmlRelaxNGFreeValidCtxt(vc);
    xmlRelaxNGFree(rng);
    xmlFreeDoc(doc);
    if (r == 0) {
        crfp_xmlerrs_free(&e);
        return CRFP_OK;
    }
    return report(host, CRFP_ESCHEMA, &e, "does not match the schema");
}
