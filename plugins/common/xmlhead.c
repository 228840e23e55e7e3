/* xmlhead — see xmlhead.h. */
#include "config.h"
#include "xmlhead.h"

#include <string.h>

int xmlhead_root(const char *buf, size_t len, size_t *at, size_t *n)
{
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    if (i >= len || buf[i] != '<')
        return 0;
    /* skip what starts <? or <! (a '<' inside a comment may be taken for
     * an element: this is a guess at a format, not a parse) */
    while (i < len) {
        const char *lt = memchr(buf + i, '<', len - i);
        if (!lt)
            return -1;
        i = (size_t)(lt - buf) + 1;
        if (i < len && (buf[i] == '?' || buf[i] == '!'))
            continue;
        size_t j = i;
        while (j < len && buf[j] != '>' && buf[j] != ' ' && buf[j] != '\t' && buf[j] != '\n' &&
               buf[j] != '\r' && buf[j] != '/')
            j++;
        *at = i;
        *n = j - i;
        return 1;
    }
    return -1;
}
