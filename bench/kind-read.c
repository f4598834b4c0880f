/* kind-read.c: times tc_matrix_read on one file read as a given kind (run
   by bench/edgelist-read.sh), so that Matrix Market and an edge list of
   the same matrix are read through the same call, side by side.

   usage: kind-read KIND FILE [REPEAT]

   Prints one line: file bytes, stored nonzeros of the matrix read, and the
   best wall time in seconds over REPEAT runs (default 5) of the whole read
   (parse and CSR build, single-threaded). Every run gets fresh memory, as
   a tool reading one file does (bench/mtx-read.c says why). */
#include "config.h"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "tcsparse.h"
#include "bench.h"

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: kind-read KIND FILE [REPEAT]\n");
        return 2;
    }
    const tc_matrix_kind *kind = tc_matrix_kind_find(argv[1]);
    int repeat = argc > 3 ? atoi(argv[3]) : 5;
    struct stat sb;
    if (!kind || repeat < 1 || stat(argv[2], &sb) != 0)
        bench_die("kind-read", "no such kind, file or repeat count", NULL);
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    double best = 0;
    int64_t nnz = 0;
    for (int r = 0; r < repeat; r++) {
        tc_matrix_file m;
        tc_error err;
        double t0 = bench_now();
        if (tc_matrix_read(argv[2], kind, NULL, &m, &err))
            bench_die("kind-read", argv[2], &err);
        double t = bench_now() - t0;
        nnz = m.a->nnz;
        tc_matrix_file_clear(&m);
        if (r == 0 || t < best)
            best = t;
    }
    printf("%lld\t%lld\t%.4f\n", (long long)sb.st_size, (long long)nnz, best);
    return 0;
}
