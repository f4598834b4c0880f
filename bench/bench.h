/* bench.h: what the bench/ drivers share: a monotonic clock and the way
   they give up. */
#ifndef TC_BENCH_H
#define TC_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tcsparse.h"

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "prog: what[: err]" on stderr, exit 1. */
static inline void bench_die(const char *prog, const char *what, const tc_error *err)
{
    fprintf(stderr, "%s: %s%s%s\n", prog, what, err ? ": " : "", err ? err->msg : "");
    exit(1);
}

#endif
