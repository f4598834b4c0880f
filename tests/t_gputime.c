/* t_gputime: tc_gpu_time's rotation over operand sets. Every run launched
   on a device takes the next set, across timings: a timing that restarted
   at set 0 found the sets the previous timing had just used still in L2
   when they are small, so that tcmul timed the tuned variant and cuSPARSE
   under different caches (bench/NOTES.md, step 20). Also the batches of
   TC_TIMING_BATCH timed runs, and the last set reported. Skipped where
   there is no CUDA device. */
#include "config.h"
#include <math.h>
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
    *k += r.n;
}

int main(void)
{
    tc_gpu *g = NULL;
    tc_error err;
    if (tc_gpu_open(0, &g, &err) != TC_OK)
        skip_all("no CUDA device");
    plan(5 * 6);
    long k = 0;
    timing(g, 7, 3, 5, &k, "7 sets, from a fresh device");
    timing(g, 7, 3, 5, &k, "7 sets again: continues where the first stopped");
    timing(g, 3, 2, 4, &k, "3 sets in between");
    timing(g, 7, 0, 1, &k, "7 sets, one run, no warmup");
    timing(g, 200, 10, 150, &k, "200 sets, 150 runs in three batches");
    timing(g, 1, 2, 3, &k, "one set");
    tc_gpu_close(g);
    return done_testing();
}
