/* spmm_rows.h: how the CPU products (lib/spmm_cpu.c, lib/spmm.c) split a
   CSR matrix's rows over threads. Internal to the library; not installed. */
#ifndef TC_SPMM_ROWS_H
#define TC_SPMM_ROWS_H

#include <stdint.h>

#include "tcsparse.h"

/* Rows [r0, r1) of one product; ctx is the caller's. */
typedef void (*tc_spmm_rows_fn)(const void *ctx, int32_t r0, int32_t r1);

/* Runs fn over every row of a rows-row matrix with row pointers rowptr, in
   contiguous ranges of about equal work (a row costs its nonzeros plus one;
   8 ranges a thread, each taken by the next thread free) on as many threads
   as pay for n columns of B (nthreads <= 0: tc_default_threads()). Each row
   is in exactly one range, so a product that sums each row in stored order
   is bitwise the same for any count. */
void tc_spmm_over_rows(const int64_t *rowptr, int32_t rows, int32_t n, int nthreads,
                       tc_spmm_rows_fn fn, const void *ctx);

/* TC_ERR_ARG naming fn unless a, B (when a has columns) and C are there and
   0 <= n <= ldb, ldc. */
tc_status tc_spmm_check_args(const char *fn, const tc_csr *a, const void *B, int64_t ldb,
                             int32_t n, const void *C, int64_t ldc, tc_error *err);

#endif
