/* crfpipe — typed plugin parameters: parsing and validation of name=value
 * text against a plugin's declaration. */
#include "config.h"
#include "crfpipe/params.h"
#include "../doc/utf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct crfp_params {
    const crfp_param_spec *specs;
    size_t n;
    char **values; /* user text (PATH already resolved); NULL = not set */
    /* The first misuse by a getter (a name never declared, or the wrong
     * type), kept for the host to report after the plugin call: getters
     * cannot fail, and a silent 0 would train with a wrong setting. */
    char misuse[160];
};

static void note_misuse(const crfp_params *p, const char *fmt, const char *name,
                        const char *type)
{
    crfp_params *m = (crfp_params *)p; /* bookkeeping only; the values stay const */
    if (m && !m->misuse[0])
        snprintf(m->misuse, sizeof m->misuse, fmt, name ? name : "(null)", type);
}

const char *crfp_params_misuse(const crfp_params *p)
{
    return p && p->misuse[0] ? p->misuse : NULL;
}

crfp_params *crfp_params_new(const crfp_param_spec *specs, size_t n)
{
    crfp_params *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->specs = specs;
    p->n = specs ? n : 0;
    if (p->n) {
        p->values = calloc(p->n, sizeof *p->values);
        if (!p->values) {
            free(p);
            return NULL;
        }
    }
    return p;
}

void crfp_params_free(crfp_params *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->values[i]);
    free(p->values);
    free(p);
}

static long find(const crfp_params *p, const char *name)
{
    if (!p || !name)
        return -1;
    for (size_t i = 0; i < p->n; i++)
        if (p->specs[i].name && strcmp(p->specs[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* Strict parsers shared by set() (validation) and the getters (defaults).
 * strtoll/strtod alone accept leading blanks and trailing junk; a parameter
 * like "rho1=0.1x" must be refused, not read as 0.1. */
static int parse_int(const char *s, int64_t *out)
{
    if (!*s || isspace((unsigned char)*s))
        return 0;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end || errno == ERANGE)
        return 0;
    *out = (int64_t)v;
    return 1;
}

static int parse_float(const char *s, double *out)
{
    if (!*s || isspace((unsigned char)*s))
        return 0;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
        return 0;
    *out = v;
    return 1;
}

static int parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"true", "yes", "1", "on"};
    static const char *const no[] = {"false", "no", "0", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = 1;
            return 1;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = 0;
            return 1;
        }
    }
    return 0;
}

static const char *type_phrase(crfp_param_type t)
{
    switch (t) {
    case CRFP_PARAM_STRING: return "a string";
    case CRFP_PARAM_INT: return "an integer";
    case CRFP_PARAM_FLOAT: return "a float";
    case CRFP_PARAM_BOOL: return "a boolean (true/false, yes/no, 1/0, on/off)";
    case CRFP_PARAM_PATH: return "a path";
    }
    return "a value";
}

static crfp_status unknown_param(crfp_host *host, const crfp_params *p, const char *where,
                                 const char *name)
{
    size_t len = 1;
    for (size_t i = 0; i < p->n; i++)
        len += strlen(p->specs[i].name) + 2;
    char *known = malloc(len);
    if (!known)
        return crfp_error(host, CRFP_EINVAL, "%s: unknown parameter '%s'", where, name);
    known[0] = '\0';
    for (size_t i = 0; i < p->n; i++) {
        if (i)
            strcat(known, ", ");
        strcat(known, p->specs[i].name);
    }
    crfp_status st = crfp_error(host, CRFP_EINVAL, "%s: unknown parameter '%s' (known: %s)", where,
                                name, p->n ? known : "none");
    free(known);
    return st;
}

crfp_status crfp_params_set(crfp_host *host, crfp_params *p, const char *where,
                            const char *name, const char *value, const char *basedir)
{
    if (!where)
        where = "parameters";
    if (!p || !name || !value)
        return crfp_error(host, CRFP_EINVAL, "%s: missing parameter name or value", where);
    long i = find(p, name);
    if (i < 0)
        return unknown_param(host, p, where, name);
    const crfp_param_spec *sp = &p->specs[i];
    int64_t iv;
    double fv;
    int bv;
    int ok = 1;
    switch (sp->type) {
    case CRFP_PARAM_INT: ok = parse_int(value, &iv); break;
    case CRFP_PARAM_FLOAT: ok = parse_float(value, &fv); break;
    case CRFP_PARAM_BOOL: ok = parse_bool(value, &bv); break;
    case CRFP_PARAM_STRING:
    case CRFP_PARAM_PATH: break;
    }
    if (!ok)
        return crfp_error(host, CRFP_EINVAL, "%s: parameter '%s' expects %s, got '%s'", where,
                          name, type_phrase(sp->type), value);
    /* Strings name labels, features, annotation types and the like, which
     * end up in documents and UTF-8 output; a path may be any bytes. */
    size_t bad;
    if (sp->type == CRFP_PARAM_STRING && !crfp_utf8_valid(value, strlen(value), &bad))
        return crfp_error(host, CRFP_EINVAL, "%s: parameter '%s' is not valid UTF-8 (byte %zu)",
                          where, name, bad + 1);
    char *copy;
    if (sp->type == CRFP_PARAM_PATH && value[0] && value[0] != '/' && basedir && basedir[0]) {
        size_t bl = strlen(basedir), vl = strlen(value);
        int slash = basedir[bl - 1] != '/';
        copy = malloc(bl + (size_t)slash + vl + 1);
        if (copy) {
            memcpy(copy, basedir, bl);
            if (slash)
                copy[bl] = '/';
            memcpy(copy + bl + slash, value, vl + 1);
        }
    } else {
        copy = strdup(value);
    }
    if (!copy)
        return crfp_error(host, CRFP_ENOMEM, "%s: out of memory setting '%s'", where, name);
    free(p->values[i]);
    p->values[i] = copy;
    return CRFP_OK;
}

int crfp_params_isset(const crfp_params *p, const char *name)
{
    long i = find(p, name);
    return i >= 0 && p->values[i] != NULL;
}

/* The text in force for `name` (user value, else default), or NULL. */
static const char *text_of(const crfp_params *p, const char *name, crfp_param_type want,
                           int *ok)
{
    static const char *const tn[] = {"string", "int", "float", "bool", "path"};
    long i = find(p, name);
    *ok = 0;
    if (i < 0) {
        note_misuse(p, "asked for parameter '%s', which it never declared%s", name, "");
        return NULL;
    }
    crfp_param_type t = p->specs[i].type;
    int compatible = t == want || ((want == CRFP_PARAM_STRING || want == CRFP_PARAM_PATH) &&
                                   (t == CRFP_PARAM_STRING || t == CRFP_PARAM_PATH));
    if (!compatible) {
        if (want != CRFP_PARAM_STRING)
            note_misuse(p, "read parameter '%s' as %s, not as its declared type", name,
                        (unsigned)want < 5 ? tn[want] : "?");
        return NULL;
    }
    *ok = 1;
    return p->values[i] ? p->values[i] : p->specs[i].defval;
}

const char *crfp_params_str(const crfp_params *p, const char *name)
{
    int ok;
    const char *s = text_of(p, name, CRFP_PARAM_STRING, &ok);
    if (!ok) {
        /* Let callers print any parameter's text, whatever its type. */
        long i = find(p, name);
        if (i < 0)
            return NULL;
        return p->values[i] ? p->values[i] : p->specs[i].defval;
    }
    return s;
}

int64_t crfp_params_int(const crfp_params *p, const char *name)
{
    int ok;
    const char *s = text_of(p, name, CRFP_PARAM_INT, &ok);
    int64_t v = 0;
    if (s && !parse_int(s, &v))
        v = 0;
    return v;
}

double crfp_params_float(const crfp_params *p, const char *name)
{
    int ok;
    const char *s = text_of(p, name, CRFP_PARAM_FLOAT, &ok);
    double v = 0.0;
    if (s && !parse_float(s, &v))
        v = 0.0;
    return v;
}

int crfp_params_bool(const crfp_params *p, const char *name)
{
    int ok;
    const char *s = text_of(p, name, CRFP_PARAM_BOOL, &ok);
    int v = 0;
    if (s && !parse_bool(s, &v))
        v = 0;
    return v;
}

int crfp_params_iter(const crfp_params *p, size_t i, const char **name, const char **value)
{
    if (!p)
        return 0;
    /* `i` counts parameters that have a value, so callers can loop i = 0.. */
    size_t seen = 0;
    for (size_t k = 0; k < p->n; k++) {
        const char *v = p->values[k] ? p->values[k] : p->specs[k].defval;
        if (!v)
            continue;
        if (seen++ == i) {
            if (name)
                *name = p->specs[k].name;
            if (value)
                *value = v;
            return 1;
        }
    }
    return 0;
}

const crfp_param_spec *crfp_params_specs(const crfp_params *p, size_t *n)
{
    if (n)
        *n = p ? p->n : 0;
    return p ? p->specs : NULL;
}

int crfp_params_declares(const crfp_params *p, const char *name)
{
    size_t n;
    const crfp_param_spec *s = p && name ? crfp_params_specs(p, &n) : NULL;
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(s[i].name, name) == 0)
            return 1;
    return 0;
}
