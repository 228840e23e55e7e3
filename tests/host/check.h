/* Minimal assertion helpers for the host tests: report every failed check
 * with its line, keep going, and fail the test at the end. */
#ifndef TESTS_HOST_CHECK_H
#define TESTS_HOST_CHECK_H

#include <stdio.h>
#include <string.h>

#define CHECK(fails, cond)                                                        \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            ++*(fails);                                                           \
        }                                                                         \
    } while (0)

/* `hay` contains `needle` (both may be NULL: then false). */
static inline int contains(const char *hay, const char *needle)
{
    return hay && needle && strstr(hay, needle) != NULL;
}

#define CHECK_MSG(fails, host, needle)                                            \
    do {                                                                          \
        if (!contains(crfp_errmsg(host), (needle))) {                             \
            fprintf(stderr, "%s:%d: message '%s' lacks '%s'\n", __FILE__, __LINE__, \
                    crfp_errmsg(host), (needle));                                 \
            ++*(fails);                                                           \
        }                                                                         \
    } while (0)

#endif
