/* columns — see columns.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "columns.h"

static int listed(const char *cols, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = cols; p;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l == n && memcmp(p, name, n) == 0)
            return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

crfp_status columns_extend(crfp_doc *doc, const char *const *names, size_t n)
{
    const char *cols = crfp_doc_meta_str(doc, "columns");
    if (!cols)
        return CRFP_OK;
    size_t len = strlen(cols) + 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(names[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return CRFP_ENOMEM;
    strcpy(s, cols);
    int added = 0;
    for (size_t i = 0; i < n; i++)
        if (!listed(s, names[i])) {
            if (*s)
                strcat(s, ",");
            strcat(s, names[i]);
            added = 1;
        }
    crfp_status st = added ? crfp_doc_meta_set_str(doc, "columns", s) : CRFP_OK;
    free(s);
    return st;
}

char *columns_name(const char *prefix, const char *suffix)
{
    size_t la = strlen(prefix), lb = strlen(suffix);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, prefix, la);
        memcpy(s + la, suffix, lb + 1);
    }
    return s;
}
