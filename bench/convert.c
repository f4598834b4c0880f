/* convert.c: times tc_fmt_build, CSR -> a tensor-core format, on one
   matrix (run by bench/convert.sh).

   usage: convert FORMAT FILE [REPEAT]

   Reads FILE (.mtx, .mtx.gz), then builds FORMAT from its CSR REPEAT times
   (default 5) with default parameters, on $TC_THREADS threads (the
   library's default: all CPUs), and prints one line: the stored nonzeros
   and the best wall time of the build alone, in seconds. Each build is
   freed before the next.

   Every build gets fresh memory, as a tool converting one file does: a
   fixed M_MMAP_THRESHOLD makes glibc map large blocks on malloc and unmap
   them on free, instead of handing the next build pages the previous one
   already faulted in. */
#include "config.h"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include "tcsparse.h"
#include "bench.h"

static void die(const char *what, const tc_error *err)
{
    bench_die("convert", what, err);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: convert FORMAT FILE [REPEAT]\n");
        return 2;
    }
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    const tc_format *f = tc_format_find(argv[1]);
    int repeat = argc > 3 ? atoi(argv[3]) : 5;
    if (!f || repeat < 1)
        die("unknown format, or REPEAT < 1", NULL);
    tc_error err;
    tc_csr *a;
    if (tc_mtx_read(argv[2], NULL, &a, NULL, NULL, &err))
        die("read", &err);
    double best = 1e300;
    for (int r = 0; r < repeat; r++) {
        tc_fmt *m;
        double t0 = bench_now();
        if (tc_fmt_build(f, a, NULL, &m, &err))
            die("build", &err);
        double t = bench_now() - t0;
        best = t < best ? t : best;
        tc_fmt_free(m);
    }
    printf("%lld %.6f\n", (long long)a->nnz, best);
    tc_csr_free(a);
    return 0;
}
