/* Assertions for the document-model tests: report file:line and keep going
 * so that one run shows every failure; main returns the failure count. */
#ifndef DOCCHECK_H
#define DOCCHECK_H

#include <stdio.h>
#include <string.h>

static int doc_failures;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            doc_failures++;                                                        \
        }                                                                          \
    } while (0)

#define CHECK_ST(expr, want)                                                        \
    do {                                                                            \
        crfp_status got_ = (expr);                                                  \
        if (got_ != (want)) {                                                       \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, \
                    #expr, crfp_status_str(got_), crfp_status_str(want));           \
            doc_failures++;                                                         \
        }                                                                           \
    } while (0)

#define CHECK_STR(a, b)                                                             \
    do {                                                                            \
        const char *a_ = (a), *b_ = (b);                                            \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                    \
            fprintf(stderr, "%s:%d: '%s' != '%s'\n", __FILE__, __LINE__,            \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");                        \
            doc_failures++;                                                         \
        }                                                                           \
    } while (0)

#define CHECK_MSG(host, sub)                                                        \
    do {                                                                            \
        const char *m_ = crfp_errmsg(host);                                         \
        if (!strstr(m_, (sub))) {                                                   \
            fprintf(stderr, "%s:%d: message '%s' lacks '%s'\n", __FILE__, __LINE__, m_, \
                    (sub));                                                         \
            doc_failures++;                                                         \
        }                                                                           \
    } while (0)

#endif
