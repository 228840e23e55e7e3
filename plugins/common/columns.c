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
    return columns_insert(doc, names, n, NULL);
}

crfp_status columns_insert(crfp_doc *doc, const char *const *names, size_t n,
                           const char *before_last)
{
    const char *cols = crfp_doc_meta_str(doc, "columns");
    if (!cols)
        return CRFP_OK;
    /* cols = head + tail: the names go between, tail being the last
     * column when it is before_last, else nothing */
    const char *last = strrchr(cols, ',');
    last = last ? last + 1 : cols;
    size_t head = before_last && strcmp(last, before_last) == 0 ? (size_t)(last - cols)
                                                                : strlen(cols);
    size_t len = strlen(cols) + 2;
    for (size_t i = 0; i < n; i++)
        len += strlen(names[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return CRFP_ENOMEM;
    memcpy(s, cols, head);
    s[head] = '\0';
    int added = 0;
    for (size_t i = 0; i < n; i++)
        if (!listed(cols, names[i]) && !listed(s, names[i])) {
            size_t l = strlen(s);
            if (l && s[l - 1] != ',')
                strcat(s, ",");
            strcat(s, names[i]);
            strcat(s, ",");
            added = 1;
        }
    if (cols[head]) {
        strcat(s, cols + head);
    } else {
        size_t l = strlen(s);
        if (l && s[l - 1] == ',')
            s[l - 1] = '\0';
    }
    crfp_status st = added ? crfp_doc_meta_set_str(doc, "columns", s) : CRFP_OK;
    free(s);
    return st;
}

size_t columns_misc_key(char *buf, size_t cap, const char *prefix, const char *label)
{
    size_t n = strlen(prefix), m = strlen(label);
    if (buf && n + m < cap) {
        memcpy(buf, prefix, n);
        for (size_t i = 0; i < m; i++) {
            unsigned char c = (unsigned char)label[i];
            buf[n + i] = c == '=' || c == '|' || c <= ' ' ? '_'
                         : c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : (char)c;
        }
        buf[n + m] = '\0';
    }
    return n + m;
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

size_t columns_unwritten(const char *cols, int (*known)(void *ud, const char *name, size_t len),
                         void *ud, char *list, size_t cap, size_t *more)
{
    size_t len = 0, n = 0, over = 0;
    if (cap)
        list[0] = '\0';
    for (const char *p = cols, *e; p; p = e ? e + 1 : NULL) {
        e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == 0 || known(ud, p, l))
            continue;
        if (len + l + 3 < cap) {
            len += (size_t)snprintf(list + len, cap - len, "%s%.*s", n ? ", " : "", (int)l, p);
            n++;
        } else {
            over++;
        }
    }
    if (more)
        *more = over;
    return n;
}

int columns_split(const char *csv, char ***items, size_t *n)
{
    for (const char *q = csv, *e; q; q = e ? e + 1 : NULL) {
        e = strchr(q, ',');
        size_t l = e ? (size_t)(e - q) : strlen(q);
        if (l == 0)
            continue;
        char **ni = realloc(*items, (*n + 1) * sizeof *ni);
        if (!ni)
            return -1;
        *items = ni;
        if (!(ni[*n] = strndup(q, l)))
            return -1;
        (*n)++;
    }
    return 0;
}
