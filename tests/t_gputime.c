/* t_gputime: tc_gpu_time's rotation over operand sets. Every run launched
   on a device takes the next set, across timings: a timing that restarted
   at set 0 found the sets the previous timing had just used still in L2
   when they are small, so that tcmul timed the tuned variant and cuSPARSE
   under different caches (bench/NOTES.md, step 20). Also the batches of
   TC_TIMING_BATCH timed runs, and the last set reported; the race that
   stops a timing after its first runs (tc_gpu_time_race). Skipped where
   there is no CUDA device. */
#include "config.h"
#include <math.h>
#include <time.h>
#include "tcsparse.h"
#include "kernels.h"
#include "tap.h"

#define MAX_RUNS 512

/* The sets the runs were given, in launch order. */
typedef struct record {
    int set[MAX_RUNS];
    int n;
} record;

static tc_status record_run(void *ctx, int set, tc_error *err)
{
    record *r = ctx;
    if (r->n == MAX_RUNS)
        return tc_error_set(err, TC_ERR_ARG, "t_gputime: more than %d runs", MAX_RUNS);
    r->set[r->n++] = set;
    return TC_OK;
}

/* A run that launches nothing and keeps the host busy for 0.2 ms. */
static tc_status slow_host_run(void *ctx, int set, tc_error *err)
{
    (void)set;
    (void)err;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) * 1e-6 < 0.2);
    (*(int *)ctx)++;
    return TC_OK;
}

/* The host's time to queue a run is measured apart from the GPU's. */
static void host_time(tc_gpu *g, long *k)
{
    int runs = 0;
    tc_gpu_timing t;
    tc_error err;
    if (!ok(tc_gpu_time(g, slow_host_run, &runs, 1, 1, 9, &t, &err) == TC_OK,
            "a run that keeps the host 0.2 ms: timed")) {
        diag("  %s", err.msg);
        return;
    }
    ok(t.host_ms >= 0.2 && t.host_ms < 50, "  the host's time is its 0.2 ms (%g ms)", t.host_ms);
    *k += runs;
}

/* One timing of warmup + iters runs over `sets` sets; *k counts the runs
   launched on the device so far, as tc_gpu_time does. */
static void timing(tc_gpu *g, int sets, int warmup, int iters, long *k, const char *what)
{
    record r = { { 0 }, 0 };
    tc_gpu_timing t;
    tc_error err;
    const tc_status st = tc_gpu_time(g, record_run, &r, sets, warmup, iters, &t, &err);
    if (!ok(st == TC_OK, "%s: timed", what)) {
        diag("  %s", err.msg);
        return;
    }
    is_int(r.n, warmup + iters, "  every run launched once");
    int rotated = 1;
    for (int i = 0; i < r.n; i++)
        rotated &= r.set[i] == (int)((*k + i) % sets);
    ok(rotated, "  run j of the device takes set j %% %d (first set %d, expected %ld)", sets,
       r.set[0], *k % sets);
    is_int(t.last_set, r.set[r.n - 1], "  last_set is the set of the last run");
    ok(t.ms.decile[5] >= 0 && isfinite(t.ms.decile[5]), "  the median time is a time");
    ok(t.host_ms >= 0 && isfinite(t.host_ms), "  the host's median is a time");
    *k += r.n;
}

/* tc_gpu_time_race: stopped after the first runs where their median is
   over stop_ms, else timed to the end; the rotation goes on either way. */
static void race(tc_gpu *g, int first, int iters, double stop_ms, int want, long *k,
                 const char *what)
{
    record r = { { 0 }, 0 };
    tc_gpu_timing t;
    tc_error err;
    const tc_status st = tc_gpu_time_race(g, record_run, &r, 5, 2, iters, first, stop_ms, &t, &err);
    if (!ok(st == TC_OK, "%s: timed", what)) {
        diag("  %s", err.msg);
        return;
    }
    is_int(t.runs, want, "  the runs timed");
    is_int(r.n, 2 + want, "  the runs launched: the warmup's and those");
    ok(r.set[0] == (int)(*k % 5) && t.last_set == r.set[r.n - 1],
       "  the sets rotate on from the last timing's");
    ok(t.ms.decile[5] >= 0 && isfinite(t.ms.decile[5]), "  the median is a time");
    *k += r.n;
}

int main(void)
{
    tc_gpu *g = NULL;
    tc_error err;
    if (tc_gpu_open(0, &g, &err) != TC_OK)
        skip_all("no CUDA device");
    plan(6 * 6 + 2 + 4 * 5 + 1);
    long k = 0;
    timing(g, 7, 3, 5, &k, "7 sets, from a fresh device");
    timing(g, 7, 3, 5, &k, "7 sets again: continues where the first stopped");
    timing(g, 3, 2, 4, &k, "3 sets in between");
    timing(g, 7, 0, 1, &k, "7 sets, one run, no warmup");
    timing(g, 200, 10, 150, &k, "200 sets, 150 runs in three batches");
    timing(g, 1, 2, 3, &k, "one set");
    host_time(g, &k);
    race(g, 20, 100, 1e-9, 20, &k, "a race lost: stopped after the first 20 of 100");
    race(g, 20, 100, 1e9, 100, &k, "a race not lost: all 100");
    race(g, 20, 100, 0, 100, &k, "no race (stop 0): all 100");
    race(g, 64, 40, 1e-9, 40, &k, "first past iters: all 40");
    record r = { { 0 }, 0 };
    tc_gpu_timing t;
    ok(tc_gpu_time_race(g, record_run, &r, 5, 2, 10, 0, 1, &t, &err) == TC_ERR_ARG && r.n == 0,
       "first 0: refused, nothing run");
    tc_gpu_close(g);
    return done_testing();
}
