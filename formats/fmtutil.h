/*
 * fmtutil.h: what the format implementations share (formats/fmtutil.c):
 * the residual-row part of the formats that split a matrix between tensor
 * cores and CUDA cores (brp's Residual Row part, rstile's CUDA residual
 * part: the same arrays under the same names), the merge of sorted runs
 * of keys that their builds sort windows with, values datasets that a
 * pattern matrix omits, and the final check of a format read from a file
 * against /matrix.
 */
#ifndef TC_FMTUTIL_H
#define TC_FMTUTIL_H

#include "formats.h"

/* A residual part: a CSR over the nrows rows that have residual nonzeros,
   strictly ascending, columns strictly ascending within a row. A format
   keeps these arrays as its own res_* fields; TC_RESIDUAL_OF(x) views them
   (x a pointer to a format with fields nres_rows, res_row_id,
   res_row_offset, res_col_id, res_values). */
typedef struct tc_residual {
    int64_t nrows;
    int32_t *row_id;        /* nrows */
    int64_t *row_offset;    /* nrows + 1, row_offset[0] = 0 */
    int32_t *col_id;        /* row_offset[nrows] */
    double *values;         /* the same count, or NULL (pattern) */
} tc_residual;
#define TC_RESIDUAL_OF(x)                                                               \
    ((tc_residual){ (x)->nres_rows, (x)->res_row_id, (x)->res_row_offset, (x)->res_col_id, \
                    (x)->res_values })

/* Datasets res_row_id, res_row_offset, res_col_id and (with values)
   res_values. */
tc_status tc_residual_write(tc_h5grp *g, const tc_residual *r, tc_error *err);
/* Reads them, res_col_id and res_values of exactly nnz entries, values
   exactly when has_values; on failure what was read is in *r (free it
   with the format). Contents are checked by tc_residual_check. */
tc_status tc_residual_read(tc_h5grp *g, int64_t nnz, int has_values, tc_residual *r,
                           tc_error *err);
/* Rows in range and strictly ascending, offsets from 0, strictly
   increasing (a listed row has a nonzero) and ending at nnz, columns in
   range and strictly ascending within a row. `what` names the group. */
tc_status tc_residual_check(const tc_residual *r, int64_t nnz, int32_t rows, int32_t cols,
                            const char *what, tc_error *err);
/* For a decode into CSR: adds each listed row's length to count[row]. */
void tc_residual_count(const tc_residual *r, int64_t *count);
/* Copies each listed row to a's arrays from at[row] on, advancing at[row]. */
void tc_residual_fill(const tc_residual *r, tc_csr *a, int64_t *at);
/* C += the residual part times B (n columns; row-major, ldb and ldc). */
void tc_residual_spmm(const tc_residual *r, const double *B, int64_t ldb, int32_t n, double *C,
                      int64_t ldc);
/* The GPU layout: int32 row ids and columns, int64 offsets, float32
   values. */
int64_t tc_residual_bytes(const tc_residual *r, int has_values);

/* Sorted runs of distinct keys, framed by TC_KEY_LOW before and
   TC_KEY_HIGH after (every key strictly between), which spare merges
   their bounds checks. */
#define TC_KEY_LOW 0
#define TC_KEY_HIGH UINT64_MAX
/* Merges the framed runs x[0, nx) and y[0, ny) into out[0, nx + ny) and
   frames it (out[-1] and out[nx + ny] are written). */
void tc_merge_framed(const uint64_t *x, int64_t nx, const uint64_t *y, int64_t ny,
                     uint64_t *out);

/* x / y, 0 when y is 0 (the means and shares of format figures). */
double tc_fmt_ratio(int64_t x, int64_t y);

/* One figure of a format's stats: an integer (is_int) or a number. */
typedef struct tc_fmt_figure {
    const char *key, *help;
    int is_int;
    int64_t i;
    double v;
} tc_fmt_figure;
/* Puts the n figures f into section s of r. */
tc_status tc_fmt_report_figures(tc_report *r, const char *s, const tc_fmt_figure *f, size_t n);

/* The start of every spmm_ref: the arguments checked (TC_ERR_ARG "NAME:
   bad SpMM arguments (...)") and C's rows zeroed. */
tc_status tc_fmt_spmm_start(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                            double *C, int64_t ldc, tc_error *err);

/* C[row] += value * B[col] for one nonzero (value values[k], 1 when values
   is NULL): the step of the spmm_ref of a format that walks its nonzeros
   with a visitor; ctx is a tc_spmm_step. */
typedef struct tc_spmm_step {
    const double *B, *values;
    int64_t ldb, ldc;
    int32_t n;
    double *C;
} tc_spmm_step;
void tc_spmm_step_one(void *ctx, int64_t row, int32_t col, int64_t k);

/* A float64 values dataset of n entries, present exactly when has_values
   (*out NULL when absent). */
tc_status tc_fmt_read_values(tc_h5grp *g, const char *name, int64_t n, int has_values,
                             double **out, tc_error *err);
/* A values array, present exactly when m has values. */
tc_status tc_fmt_check_values(const tc_fmt *m, const double *v, const char *name,
                              const char *what, tc_error *err);
/* m decodes (to_csr) to exactly a: same shape, nonzeros and values, or
   "WHAT: does not encode /matrix (...)" naming the first row that
   differs. */
tc_status tc_fmt_check_decodes(const tc_fmt *m, const tc_csr *a, const char *what,
                               tc_error *err);

#endif
