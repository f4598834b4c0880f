/* graphblas-spmm.c: times SuiteSparse:GraphBLAS on C = A*B, the competitor
   of the CPU path in bench/cpu.sh. Built only when configure finds
   GraphBLAS (Debian: libgraphblas-dev).

   usage: graphblas-spmm FILE.tcf.h5 N THREADS WARMUP ITERS

   A is the file's /matrix as a float32 CSR matrix (a pattern matrix as an
   iso matrix of ones, GraphBLAS's own way of holding one), B a full
   row-major float32 cols x N matrix of random values in [-1, 1), and each
   run is GrB_mxm(C, no mask, no accumulator, PLUS_TIMES_FP32, A, B) with
   C waited on, on THREADS threads (GxB_NTHREADS). Prints the median of
   ITERS runs after WARMUP in milliseconds, then the checksum of C (the sum
   of its entries) so that a wrong product shows next to ours. Bad usage
   exits 2, a file or GraphBLAS failure 1. */
#include "config.h"

#include <GraphBLAS.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tcsparse.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void die_grb(const char *what, GrB_Info info)
{
    fprintf(stderr, "graphblas-spmm: %s failed (GrB_Info %d)\n", what, (int)info);
    exit(1);
}

#define CHECK_GRB(call)                                                                      \
    do {                                                                               \
        GrB_Info info_ = (call);                                                       \
        if (info_ != GrB_SUCCESS)                                                      \
            die_grb(#call, info_);                                                     \
    } while (0)

static void *xmalloc(size_t n)
{
    void *p = malloc(n > 0 ? n : 1);
    if (!p) {
        fprintf(stderr, "graphblas-spmm: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* GraphBLAS takes ownership of the arrays it packs: 64-bit row pointers and
   column indices, float32 values (one value when iso). */
static GrB_Matrix pack_csr(const tc_csr *a)
{
    GrB_Matrix A;
    const int64_t nnz = a->nnz;
    GrB_Index *ap = xmalloc(((size_t)a->rows + 1) * sizeof *ap);
    GrB_Index *aj = xmalloc((size_t)nnz * sizeof *aj);
    const int iso = a->val == NULL;
    float *ax = xmalloc((iso ? 1 : (size_t)nnz) * sizeof *ax);
    for (int32_t i = 0; i <= a->rows; i++)
        ap[i] = (GrB_Index)a->rowptr[i];
    for (int64_t k = 0; k < nnz; k++)
        aj[k] = (GrB_Index)a->colidx[k];
    if (iso)
        ax[0] = 1;
    for (int64_t k = 0; !iso && k < nnz; k++)
        ax[k] = (float)a->val[k];
    CHECK_GRB(GrB_Matrix_new(&A, GrB_FP32, (GrB_Index)a->rows, (GrB_Index)a->cols));
    CHECK_GRB(GxB_Matrix_pack_CSR(A, &ap, &aj, (void **)&ax, ((size_t)a->rows + 1) * sizeof *ap,
                            (size_t)(nnz > 0 ? nnz : 1) * sizeof *aj,
                            (iso ? 1 : (size_t)(nnz > 0 ? nnz : 1)) * sizeof *ax, iso, false,
                            NULL));
    return A;
}

static GrB_Matrix full_b(int32_t rows, int32_t n)
{
    GrB_Matrix B;
    const int64_t len = (int64_t)rows * n;
    double *d = xmalloc((size_t)len * sizeof *d);
    float *bx = xmalloc((size_t)len * sizeof *bx);
    tc_random_fill(d, len, 1, -1, 1);
    for (int64_t i = 0; i < len; i++)
        bx[i] = (float)d[i];
    free(d);
    CHECK_GRB(GrB_Matrix_new(&B, GrB_FP32, (GrB_Index)rows, (GrB_Index)n));
    CHECK_GRB(GxB_Matrix_pack_FullR(B, (void **)&bx, (size_t)(len > 0 ? len : 1) * sizeof *bx, false,
                              NULL));
    return B;
}

static int parse_int(const char *s, int lo, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > 1 << 30)
        return 0;
    *out = (int)v;
    return 1;
}

int main(int argc, char **argv)
{
    int n, threads, warmup, iters;
    if (argc != 6 || !parse_int(argv[2], 1, &n) || !parse_int(argv[3], 1, &threads) ||
        !parse_int(argv[4], 0, &warmup) || !parse_int(argv[5], 1, &iters)) {
        fprintf(stderr, "usage: graphblas-spmm FILE.tcf.h5 N THREADS WARMUP ITERS\n");
        return 2;
    }
    tc_error err;
    tc_tcf *f;
    if (tc_h5_read(argv[1], 0, &f, &err) != TC_OK) {
        fprintf(stderr, "graphblas-spmm: %s: %s\n", argv[1], err.msg);
        return 1;
    }
    CHECK_GRB(GrB_init(GrB_NONBLOCKING));
    CHECK_GRB(GxB_Global_Option_set(GxB_NTHREADS, threads));
    GrB_Matrix A = pack_csr(f->matrix), B = full_b(f->matrix->cols, n), C;
    CHECK_GRB(GrB_Matrix_new(&C, GrB_FP32, (GrB_Index)f->matrix->rows, (GrB_Index)n));
    double *t = xmalloc((size_t)iters * sizeof *t);
    for (int i = 0; i < warmup + iters; i++) {
        const double t0 = now_ms();
        CHECK_GRB(GrB_mxm(C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP32, A, B, NULL));
        CHECK_GRB(GrB_Matrix_wait(C, GrB_MATERIALIZE));
        if (i >= warmup)
            t[i - warmup] = now_ms() - t0;
    }
    qsort(t, (size_t)iters, sizeof *t, cmp_double);
    double sum = 0;
    CHECK_GRB(GrB_Matrix_reduce_FP64(&sum, NULL, GrB_PLUS_MONOID_FP64, C, NULL));
    printf("%.6f\t%.9g\n", iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2, sum);
    free(t);
    GrB_Matrix_free(&A);
    GrB_Matrix_free(&B);
    GrB_Matrix_free(&C);
    GrB_finalize();
    tc_tcf_free(f);
    return 0;
}
