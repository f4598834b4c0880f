/* mtx-read.c: times tc_mtx_read on one Matrix Market file (run by
   bench/mtx-read.sh).

   usage: mtx-read FILE [REPEAT]

   Prints one line: file bytes, entries listed in the file, stored nonzeros
   of the expanded CSR, then the best wall time in seconds over REPEAT runs
   (default 5) of (1) tc_mtx_read, the whole read, and (2) tc_csr_from_coo_sym
   alone on the triplets the reader hands it, so that the parse time is
   (1) - (2). The reader hands over the entries as the file lists them (one
   triangle of a symmetric file: the CSR build adds the mirrors); that
   order is rebuilt here for a file that lists its entries column by
   column, as the SuiteSparse files measured do (checked: the rebuilt CSR
   equals the read one).

   Every run gets fresh memory, as a tool reading one file does: glibc
   would otherwise keep the large blocks freed by one run in its heap and
   hand them, already paged in, to the next, hiding the page faults that
   a first read pays (a fixed M_MMAP_THRESHOLD turns that off: large
   blocks are mapped on malloc and unmapped on free). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
#include <sys/stat.h>
#include "tcsparse.h"
#include "bench.h"

static void die(const char *what, const tc_error *err)
{
    bench_die("mtx-read", what, err);
}

typedef struct triplets {
    int64_t n;
    int32_t *ri, *ci;
    double *v;
} triplets;

/* The entries of a's lower triangle (all of a when general), column by
   column. */
static void file_order(const tc_csr *a, triplets *t)
{
    tc_error err;
    tc_csr *at;
    if (tc_csr_transpose(a, &at, &err))
        die("transpose", &err);
    int sym = a->symmetry != TC_SYM_GENERAL;
    t->ri = malloc((size_t)a->nnz * sizeof *t->ri);
    t->ci = malloc((size_t)a->nnz * sizeof *t->ci);
    t->v = a->val ? malloc((size_t)a->nnz * sizeof *t->v) : NULL;
    if (!t->ri || !t->ci || (a->val && !t->v))
        die("out of memory", NULL);
    t->n = 0;
    for (int32_t j = 0; j < at->rows; j++)
        for (int64_t p = at->rowptr[j]; p < at->rowptr[j + 1]; p++) {
            int32_t i = at->colidx[p];
            if (sym && i < j)
                continue;
            t->ri[t->n] = i;
            t->ci[t->n] = j;
            if (t->v)
                t->v[t->n] = at->val[p];
            t->n++;
        }
    tc_csr_free(at);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: mtx-read FILE [REPEAT]\n");
        return 2;
    }
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    const char *path = argv[1];
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    struct stat st;
    if (stat(path, &st) != 0 || repeat < 1)
        die("cannot stat the file, or REPEAT < 1", NULL);

    tc_error err;
    tc_csr *a = NULL;
    tc_mtx_info info;
    double best_read = 1e300;
    for (int r = 0; r < repeat; r++) {
        tc_csr_free(a);
        double t0 = bench_now();
        if (tc_mtx_read(path, NULL, &a, &info, NULL, &err))
            die("read", &err);
        double t = bench_now() - t0;
        best_read = t < best_read ? t : best_read;
        tc_mtx_info_clear(&info);
    }

    triplets t;
    file_order(a, &t);
    double best_coo = 1e300;
    for (int r = 0; r < repeat; r++) {
        tc_csr *b;
        double t0 = bench_now();
        if (tc_csr_from_coo_sym(&b, a->rows, a->cols, t.n, t.ri, t.ci, t.v, a->symmetry, 1,
                                &err))
            die("tc_csr_from_coo_sym", &err);
        double el = bench_now() - t0;
        best_coo = el < best_coo ? el : best_coo;
        b->field = a->field;
        if (!tc_csr_equal(a, b))
            die("the rebuilt triplets do not give the matrix read", NULL);
        tc_csr_free(b);
    }
    printf("%lld %lld %lld %.6f %.6f\n", (long long)st.st_size, (long long)info.entries,
           (long long)a->nnz, best_read, best_coo);
    free(t.ri);
    free(t.ci);
    free(t.v);
    tc_csr_free(a);
    return 0;
}
