/* util.c: overflow-checked allocation, thread count, progress reporting. */
#include "config.h"
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "tcsparse.h"
#include "threads.h"

int tc_mul_overflows(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

static void *alloc_array(int64_t n, size_t sz, int zero, tc_error *err)
{
    int64_t bytes;
    if (n < 0 || tc_mul_overflows(n, (int64_t)sz, &bytes) || (uint64_t)bytes > SIZE_MAX) {
        tc_error_set(err, TC_ERR_NOMEM, "array of %lld elements of %zu bytes is too large",
                     (long long)n, sz);
        return NULL;
    }
    if (bytes == 0)
        bytes = 1; /* a valid, freeable pointer for empty arrays */
    void *p = zero ? calloc(1, (size_t)bytes) : malloc((size_t)bytes);
    if (!p)
        tc_error_set(err, TC_ERR_NOMEM, "out of memory allocating %lld bytes", (long long)bytes);
    return p;
}

void *tc_malloc_array(int64_t n, size_t sz, tc_error *err)
{
    return alloc_array(n, sz, 0, err);
}

void *tc_calloc_array(int64_t n, size_t sz, tc_error *err)
{
    return alloc_array(n, sz, 1, err);
}

const char *tc_version(void)
{
    return TC_VERSION_STRING;
}

int tc_default_threads(void)
{
    const char *env = getenv("TC_THREADS");
    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end == '\0' && n >= 1 && n <= 4096)
            return (int)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (int)(n > 4096 ? 4096 : n) : 1;
}

void tc_progress_report(const tc_progress *p, int64_t done, int64_t total)
{
    if (p && p->fn && total > 0)
        p->fn(p->ctx, done, total);
}

int tc_threads_for(int64_t jobs)
{
    int64_t n = tc_default_threads();
    n = jobs < n ? jobs : n;
    return n < 1 ? 1 : n > TC_MAX_JOBS ? TC_MAX_JOBS : (int)n;
}

void tc_run_jobs(void *(*fn)(void *), void *jobs, size_t size, int n)
{
    pthread_t tid[TC_MAX_JOBS];
    int started[TC_MAX_JOBS] = { 0 };
    for (int k = 1; k < n; k++)
        started[k] = pthread_create(&tid[k], NULL, fn, (char *)jobs + (size_t)k * size) == 0;
    if (n > 0)
        fn(jobs);
    for (int k = 1; k < n; k++) {
        if (started[k])
            pthread_join(tid[k], NULL);
        else
            fn((char *)jobs + (size_t)k * size);
    }
}
