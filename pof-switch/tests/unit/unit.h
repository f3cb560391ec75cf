/* A minimal test harness: CHECK counts failures without stopping, RUN names each test. */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>

static int unit_checks, unit_failures;

#define CHECK_MSG(cond, msg)                                                                 \
    do {                                                                                     \
        unit_checks++;                                                                       \
        if (!(cond)) {                                                                       \
            unit_failures++;                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s (%s)\n", __FILE__, __LINE__, #cond, msg); \
        }                                                                                    \
    } while (0)
#define CHECK(cond) CHECK_MSG(cond, "")
#define RUN(fn)                                 \
    do {                                        \
        int before = unit_failures;             \
        fn();                                   \
        fprintf(stderr, "%s %s\n", unit_failures == before ? "ok  " : "FAIL", #fn); \
    } while (0)

static inline int unit_summary(void)
{
    fprintf(stderr, "%d checks, %d failed\n", unit_checks, unit_failures);
    return unit_failures ? 1 : 0;
}

#endif
