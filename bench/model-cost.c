/* model-cost.c: what the planner's model costs on one matrix (bench/NOTES.md,
   "The planner's model"): ESTIMATE planning runs it for a one-off product,
   so its time in the given order must stay small beside the product.

   usage: model-cost FILE [REPEAT]

   Prints one line: rows, nonzeros, then the best wall time in seconds over
   REPEAT runs (default 3) of tc_model_rank in the given order alone
   (orders 0: the counting passes) and with the reorderings it tries
   (orders 1), on $TC_THREADS threads. The read of FILE is not timed. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include "tcsparse.h"
#include "model.h"
#include "bench.h"

static double best_rank_time(const tc_csr *a, int orders, int repeat)
{
    double best = -1;
    for (int r = 0; r < repeat; r++) {
        tc_error err;
        tc_model_candidate *c;
        int n;
        double t0 = bench_now();
        if (tc_model_rank(a, 32, orders, &c, &n, NULL, &err))
            bench_die("model-cost", "tc_model_rank", &err);
        double t = bench_now() - t0;
        free(c);
        best = best < 0 || t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: model-cost FILE [REPEAT]\n");
        return 2;
    }
    int repeat = argc == 3 ? atoi(argv[2]) : 3;
    if (repeat < 1) {
        fprintf(stderr, "model-cost: REPEAT must be a positive integer, not '%s'\n", argv[2]);
        return 2;
    }
    tc_error err;
    tc_csr *a;
    if (tc_mtx_read(argv[1], NULL, &a, NULL, NULL, &err))
        bench_die("model-cost", argv[1], &err);
    printf("%d\t%lld\t%.4f\t%.4f\n", a->rows, (long long)a->nnz, best_rank_time(a, 0, repeat),
           best_rank_time(a, 1, repeat));
    tc_csr_free(a);
    return 0;
}
