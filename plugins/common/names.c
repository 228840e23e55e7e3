/* names — see names.h. */
#include "config.h"
#include "names.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crfpipe/crfpipe.h"

char **names_split(const char *s, int keep_empty)
{
    size_t n = 1;
    for (const char *c = s; *c; c++)
        n += *c == ',';
    char **l = calloc(n + 1, sizeof *l);
    if (!l)
        return NULL;
    size_t k = 0;
    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *b = p;
        if (!keep_empty) {
            while (len && (*b == ' ' || *b == '\t'))
                b++, len--;
            while (len && (b[len - 1] == ' ' || b[len - 1] == '\t'))
                len--;
        }
        if ((len || keep_empty) && !(l[k++] = strndup(b, len))) {
            names_free(l);
            return NULL;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return l;
}

void names_free(char **list)
{
    for (size_t i = 0; list && list[i]; i++)
        free(list[i]);
    free(list);
}

int names_has(char *const *list, const char *name, int nocase)
{
    for (size_t i = 0; list && list[i]; i++)
        if ((nocase ? strcasecmp(list[i], name) : strcmp(list[i], name)) == 0)
            return 1;
    return 0;
}

char *names_docid(const char *stream_name)
{
    const char *name = stream_name ? stream_name : "input";
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    size_t n = strlen(base);
    if (*base == '<' && n >= 2 && base[n - 1] == '>')
        return strndup(base + 1, n - 2);
    return crfp_utf8_repair(base);
}
