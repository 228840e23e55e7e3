/* The check macro of the C tests: on failure print file:line, the condition
 * and a message, count it, and stop after 20 so that a broken invariant in a
 * loop does not flood the log.  main() returns test_failures ? 1 : 0. */
#ifndef CRFP_TESTCHECK_H
#define CRFP_TESTCHECK_H

#include <stdio.h>
#include <stdlib.h>

static int test_failures __attribute__((unused));

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
            if (++test_failures > 20)                                                     \
                exit(1);                                                                  \
        }                                                                                 \
    } while (0)

#endif
