/*
 * tcmul.h: what tcmul's files share: its options, the dense operands' I/O,
 * and the operations other than SpMM (tcmul_attention.c: --op attention
 * and --op sddmm).
 */
#ifndef TCMUL_H
#define TCMUL_H

#include "common.h"
#include "kernels.h"
#include "tcsparse_plan.h"

typedef enum { DEVICE_AUTO, DEVICE_CPU, DEVICE_GPU } device_kind;
typedef enum { OP_SPMM, OP_ATTENTION, OP_SDDMM } tcmul_op;

/* A dense operand named FILE[:DATASET]. */
typedef struct dense_spec {
    const char *spec;           /* as given */
    char path[4096];
    const char *dataset;        /* NULL: the default dataset, or Matrix Market */
} dense_spec;

typedef struct options {
    tcmul_op op;
    const char *input, *output, *format, *variant;
    dense_spec b;               /* -B (spec NULL: random) */
    dense_spec qkv[3];          /* --op attention: Q, K, V; sddmm: Q, K
                                   (spec NULL: random) */
    char out_path[4096];        /* -o's file */
    const char *out_dataset;    /* -o's HDF5 dataset; NULL: Matrix Market */
    int out_sparse;             /* --op sddmm: -o names a .tcf.h5 (else .mtx) */
    int32_t cols;               /* random B of this many columns; 0: -B */
    int32_t dim;                /* --dim: random Q, K, V of this many columns */
    double scale;               /* --scale; 0: the operation's default */
    const char *path;           /* --path: "fused" or "unfused" (NULL: fused) */
    uint64_t seed;
    device_kind device;
    int gpu, list_devices;
    int verify, bench, warmup, iters, dense;
    /* --op spmm's plan: --effort (TC_EFFORT_DEFAULT: the library's), --plan,
       --no-plan-cache, --accuracy, --calls (0: 1, or many with --bench),
       --order */
    tc_effort effort;
    const char *plan_file, *accuracy, *order;
    int no_plan_cache;
    int64_t calls;
    double bandwidth;           /* GB/s; 0: measure */
    tool_out_style style;
} options;

/* tcmul_io.c: a dense matrix from spec: an HDF5 dataset (spec's, else default_dataset)
   or a Matrix Market array file. */
tc_status tcmul_read_dense(const dense_spec *spec, const char *default_dataset, int32_t *rows,
                           int32_t *cols, double **data, tc_error *err);

/* Writes rows x n values to -o (HDF5 dataset as float32, or Matrix Market
   array), with row_ids (A's labels, or NULL) beside an HDF5 dataset. */
tc_status tcmul_write_dense(const options *o, const double *c, int32_t rows, int32_t n,
                            const tc_labels *row_ids, tc_error *err);
/* The same from float32 values (C or O, already in the caller's order:
   the plan undid any permutation, so row i is A's original row i). */
tc_status tcmul_write_floats(const options *o, const float *x, int32_t rows, int32_t n,
                             const tc_labels *row_ids, tc_error *err);

/* The verify section: tolerance, errors, where the largest is (row, col,
   or -1), non-finite count, pass or FAIL. */
tc_status tcmul_report_verify(tc_report *rep, const tc_compare *c, double tol, int pass,
                              int64_t row, int64_t col);
/* The error of a failed check (TC_ERR_VERIFY), with its figures. */
tc_status tcmul_verify_failed(const tc_compare *c, const char *precision, tc_error *err);

/* --op spmm (tcmul_spmm.c): the whole run over the plan API after the
   options were parsed. Returns the exit status. */
int tcmul_spmm(const options *o);

/* --op attention and --op sddmm (tcmul_attention.c): the whole run over
   the plan API after the options were parsed. Returns the exit status. */
int tcmul_attention(const options *o);
/* The warps per thread block --variant NAME fixes for the fused attention
   and SDDMM kernels (w1, w2, w4, w8), or 0 for any other NAME. */
int tcmul_attention_warps(const char *name);

#endif
