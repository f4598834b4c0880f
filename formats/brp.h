/*
 * brp.h: the in-memory layout of the `brp` format (BRP-SpMM, seed 000,
 * Section IV), shared by formats/brp.c (build, decode, files) and
 * kernels/brp.cu (the GPU kernels), which read the same arrays.
 *
 * Rows are cut into windows of h rows. Inside a window the nonzeros are
 * taken in column-major order (by column, then row) and dealt into local
 * columns of f nonzeros each ("Fixed Non-zero"; a column with more is split
 * over several local columns); w local columns make a TC block of h x w, and
 * g consecutive TC blocks a TC Block Group of g*w*f nonzeros. The nonzeros
 * of a window that cannot fill a whole group (the last ones in column-major
 * order, fewer than g*w*f) go to the Residual Row part, kept as CSR over the
 * rows that have any.
 */
#ifndef TC_BRP_H
#define TC_BRP_H

#include "formats.h"

typedef struct tc_brp {
    tc_fmt base;
    int h, w, f, g;             /* 16, 8, 1, 4 by default (params of base) */
    /* TC Block part: ngroups groups of g*w*f nonzeros each, stored
       contiguously group after group, block after block inside a group,
       local column after local column inside a block. */
    int64_t ngroups;
    int32_t *group_window_id;   /* ngroups: the window of each group, ascending */
    uint8_t *local_id;          /* ngroups*g*w*f: row * w + local column of the
                                   nonzero inside its h x w TC block */
    int32_t *old_col_id;        /* ngroups*g*w*f: its column in the matrix */
    double *values;             /* ngroups*g*w*f, or NULL for a pattern matrix */
    /* Residual Row part: CSR over the nres_rows rows that have residual
       nonzeros, in increasing row order, columns sorted within a row. */
    int64_t nres_rows;
    int32_t *res_row_id;        /* nres_rows */
    int64_t *res_row_offset;    /* nres_rows + 1, res_row_offset[0] = 0 */
    int32_t *res_col_id;        /* res_row_offset[nres_rows] */
    double *res_values;         /* the same count, or NULL (pattern) */
} tc_brp;

/* Nonzeros per TC Block Group: g * w * f. */
static inline int64_t tc_brp_group_nnz(const tc_brp *b)
{
    return (int64_t)b->g * b->w * b->f;
}

#endif
