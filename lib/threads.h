/* threads.h: the one way the library runs work on several threads.
   Internal to the library; not installed. */
#ifndef TC_THREADS_H
#define TC_THREADS_H

#include <stddef.h>
#include <stdint.h>

/* Runs fn(jobs + k * size) for every k in [0, n): jobs 1.. on new threads,
   job 0 on the caller, and returns when all are done. A job whose thread
   cannot be created runs on the caller instead: same result, just slower.
   n is at most TC_MAX_JOBS. */
#define TC_MAX_JOBS 256
void tc_run_jobs(void *(*fn)(void *), void *jobs, size_t size, int n);

/* How many threads to run `jobs` pieces of work on: tc_default_threads(),
   but no more than the pieces or TC_MAX_JOBS, and at least 1. */
int tc_threads_for(int64_t jobs);

#endif
