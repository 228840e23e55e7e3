/* crfpipe — looking formats up among the plugins that declare them. */
#include "config.h"
#include "crfpipe/host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The modules a scan could not load: how many, and the first one's
 * message, for an "unknown format" that one of them may have declared (a
 * broken conll_reader.so first on the path hides the good one). */
typedef struct skipped {
    size_t n;
    char first[320];
} skipped;

static void note_skipped(void *ud, const char *file, const char *msg)
{
    skipped *k = ud;
    if (k->n++ == 0)
        snprintf(k->first, sizeof k->first, "%s%s%s", strncmp(msg, file, strlen(file)) ? file : "",
                 strncmp(msg, file, strlen(file)) ? ": " : "", msg);
}

/* Every plugin on the search path; modules that fail to load are skipped
 * and counted in *k (may be NULL; `crfpipe plugins` lists them). */
static crfp_status all_plugins(crfp_host *host, const crfp_plugin *const **list, size_t *n,
                               skipped *k)
{
    const crfp_plugin **l;
    crfp_status st = crfp_host_scan(host, &l, n, k ? note_skipped : NULL, k);
    *list = l;
    return st;
}

size_t crfp_plugin_ext_match(const crfp_plugin *p, const char *path)
{
    size_t best = 0, plen = path ? strlen(path) : 0;
    for (const char *const *e = p && p->desc->extensions ? p->desc->extensions : NULL; e && *e; e++) {
        size_t el = strlen(*e);
        if (el > best && el < plen && strcasecmp(path + plen - el, *e) == 0)
            best = el;
    }
    return best;
}

const char *crfp_plugin_format(const crfp_plugin *p)
{
    return p && p->desc->formats && p->desc->formats[0] ? p->desc->formats[0] : "";
}

crfp_status crfp_host_find_format(crfp_host *host, crfp_kind kind, const char *format,
                                  const crfp_plugin **out)
{
    const crfp_plugin *const *list;
    size_t n;
    *out = NULL;
    skipped bad = {0};
    crfp_status st = all_plugins(host, &list, &n, &bad);
    if (st != CRFP_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        const crfp_plugin_descriptor *d = list[i]->desc;
        if (d->kind != kind || !d->formats)
            continue;
        for (const char *const *f = d->formats; *f; f++)
            if (strcmp(*f, format) == 0) {
                *out = list[i];
                return CRFP_OK;
            }
    }
    char known[512] = "";
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const crfp_plugin_descriptor *d = list[i]->desc;
        if (d->kind != kind || !d->formats)
            continue;
        for (const char *const *f = d->formats; *f && k + strlen(*f) + 3 < sizeof known; f++) {
            k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", k ? ", " : "", *f);
        }
    }
    return crfp_error(host, CRFP_ENOTFOUND, "unknown %s format '%s' (known: %s)%s%s%s",
                      kind == CRFP_KIND_READER ? "input" : "output", format,
                      k ? known : "none; no reader or writer plugins found",
                      bad.n ? "; a module that could not be loaded may declare it: " : "",
                      bad.first, bad.n > 1 ? " (and more: crfpipe plugins lists them)" : "");
}

crfp_status crfp_host_format_for_path(crfp_host *host, crfp_kind kind, const char *path,
                                      const crfp_plugin **out)
{
    const crfp_plugin *const *list;
    size_t n, best = 0;
    *out = NULL;
    if (!path)
        return CRFP_ENOTFOUND;
    crfp_status st = all_plugins(host, &list, &n, NULL);
    if (st != CRFP_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        size_t el = list[i]->desc->kind == kind ? crfp_plugin_ext_match(list[i], path) : 0;
        if (el > best) {
            best = el;
            *out = list[i];
        }
    }
    return *out ? CRFP_OK : CRFP_ENOTFOUND;
}

crfp_status crfp_host_sniff_reader(crfp_host *host, const char *head, size_t len,
                                   const crfp_plugin **out, int *confidence)
{
    const crfp_plugin *const *list;
    size_t n;
    int best = 0;
    *out = NULL;
    crfp_status st = all_plugins(host, &list, &n, NULL);
    if (st != CRFP_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        const crfp_plugin_descriptor *d = list[i]->desc;
        if (d->kind != CRFP_KIND_READER)
            continue;
        const crfp_reader_vtable *rv = d->vtable;
        if (!CRFP_VT_HAS(rv, crfp_reader_vtable, probe))
            continue;
        int c = rv->probe(head, len);
        if (c > best) {
            best = c > 100 ? 100 : c;
            *out = list[i];
        }
    }
    if (confidence)
        *confidence = best;
    return *out ? CRFP_OK : CRFP_ENOTFOUND;
}
