/* placement.c: how far apart two timings of one kernel on one matrix are
   (bench/NOTES.md, "Same-kernel comparisons"). A plan that chose cuSPARSE
   is compared with cuSPARSE: this measures what such a comparison can show
   besides the plan.

   usage: placement [-w WARMUP] [-i ITERS] [-r ROUNDS] MATRIX N...

   For each n: cuSPARSE (its fastest CSR algorithm, tuned on the first
   copy) on two device copies of MATRIX uploaded one after the other, both
   running that algorithm on the same rotated operand sets, timed in ROUNDS
   alternating rounds of ITERS / ROUNDS runs (first copy, second copy, the
   first copy again); each figure is the median of the rounds' medians.
   Prints one TSV row per n (no header):
     matrix n variant first_ms second_ms first_again_ms
     second_vs_first first_again_vs_first
   The last two: a placement effect (two copies) against the timer's own
   spread (one copy, timed twice). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "kernels.h"
#include "bench.h"

enum { MAX_ROUNDS = 64, COPIES = 2 };

static void usage(void)
{
    fprintf(stderr, "usage: placement [-w WARMUP] [-i ITERS] [-r ROUNDS] MATRIX N...\n");
    exit(2);
}

static int parse_count(const char *what, const char *s, int lo, int hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "placement: bad %s '%s' (expected %d to %d)\n", what, s, lo, hi);
        exit(2);
    }
    return (int)v;
}

static double median_of(double *x, int n)
{
    tc_dist d;
    tc_dist_compute(&d, x, n);
    return d.decile[5];
}

/* One n: the three figures of the row. */
static void measure(tc_gpu *g, const tc_csr *a, int32_t n, int warmup, int iters, int rounds,
                    double ms[3], const char **variant)
{
    tc_error err;
    float *b = malloc((size_t)a->cols * n * sizeof *b);
    if (!b)
        bench_die("placement", "B", NULL);
    srand(1);
    for (int64_t i = 0; i < (int64_t)a->cols * n; i++)
        b[i] = (float)rand() / RAND_MAX * 2 - 1;
    tc_gpu_operands ops;
    if (tc_gpu_operands_alloc(g, b, a->cols, a->rows, n, 1, &ops, &err))
        bench_die("placement", "operands", &err);
    free(b);
    tc_kplan *copy[COPIES];
    for (int c = 0; c < COPIES; c++)
        if (tc_kernel_prepare(tc_kernel_baseline(), g, NULL, a, &ops, &copy[c], &err))
            bench_die("placement", "cuSPARSE", &err);
    if (tc_kernel_tune(copy[0], &ops, warmup, iters, 1, NULL, 0, &err) ||
        tc_kernel_select(copy[1], copy[0]->variant, &err))
        bench_die("placement", "cuSPARSE", &err);
    *variant = tc_kernel_baseline()->variant_names[copy[0]->variant];
    double r[3][MAX_ROUNDS];
    for (int i = 0; i < rounds; i++)
        for (int k = 0; k < 3; k++) {
            tc_gpu_timing t;
            if (tc_kernel_time(copy[k == 1], &ops, warmup, iters / rounds, &t, &err))
                bench_die("placement", "timing", &err);
            r[k][i] = t.ms.decile[5];
        }
    for (int k = 0; k < 3; k++)
        ms[k] = median_of(r[k], rounds);
    for (int c = 0; c < COPIES; c++)
        tc_kernel_free(copy[c]);
    tc_gpu_operands_free(g, &ops);
}

int main(int argc, char **argv)
{
    int warmup = 10, iters = 100, rounds = 5, c;
    while ((c = getopt(argc, argv, "w:i:r:")) != -1)
        switch (c) {
        case 'w': warmup = parse_count("warmup", optarg, 0, 1000000); break;
        case 'i': iters = parse_count("iters", optarg, 1, 1000000); break;
        case 'r': rounds = parse_count("rounds", optarg, 1, MAX_ROUNDS); break;
        default: usage();
        }
    if (argc - optind < 2 || argc - optind > 65 || iters < rounds)
        usage();
    int32_t ns[64];
    int count = 0;
    for (int i = optind + 1; i < argc; i++)
        ns[count++] = parse_count("n", argv[i], 1, 4096);
    const char *path = argv[optind];
    tc_error err;
    tc_csr *a;
    if (tc_mtx_read(path, NULL, &a, NULL, NULL, &err))
        bench_die("placement", path, &err);
    tc_gpu *g;
    if (tc_gpu_open(0, &g, &err))
        bench_die("placement", "GPU", &err);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (int i = 0; i < count; i++) {
        double ms[3];
        const char *variant;
        measure(g, a, ns[i], warmup, iters, rounds, ms, &variant);
        printf("%.*s\t%d\t%s\t%.6f\t%.6f\t%.6f\t%.4f\t%.4f\n",
               (int)(strcspn(base, ".")), base, ns[i], variant, ms[0], ms[1], ms[2],
               ms[0] / ms[1], ms[0] / ms[2]);
    }
    tc_gpu_close(g);
    tc_csr_free(a);
    return 0;
}
