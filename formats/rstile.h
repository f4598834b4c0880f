/*
 * rstile.h: the in-memory layout of the `rstile` format (RS-Tile of
 * RSH-SpMM, seed 001, Sections 3.2-3.3), shared by formats/rstile.c (build,
 * decode, files) and kernels/rstile.cu (the GPU kernels), which read the same
 * arrays.
 *
 * The rows are cut into windows of 16 consecutive rows (row window w holds
 * rows 16w .. 16w+15). Each row goes to exactly one of two parts:
 *
 * - the CUDA residual part: short rows (at most `threshold` nonzeros) whose
 *   columns would mostly add new columns to their window (Algorithm 1,
 *   Section 3.3.1), and, where the matrix's TC blocks would hold fewer
 *   than `min_density` nonzeros each, every row of the windows whose own
 *   would (none of whose rows is longer than 64; formats/rstile.c); stored
 *   whole, as a CSR over the rows that are in it;
 * - the TC block part: every other row. In each window the distinct columns
 *   of its TC rows are collected in ascending order ("compacted") and cut
 *   into TC blocks of 8 of them: a block is the 16 x 8 tile of the window's
 *   rows and those 8 columns, with a 128-bit bitmap of its nonzeros. The
 *   last block of a window may have fewer than 8 columns; its unused column
 *   slots hold the dummy column -1 and no bit (never a real column: the
 *   kernel loads zeros for them, so a NaN or Inf in any row of B cannot leak
 *   in through padding).
 *
 * A window with many blocks ("super-long", Section 3.3.3) is cut into
 * segments of at most `split` consecutive blocks, each one entry of
 * row_window_id / row_window_offset; the segments of one window share its
 * row_window_id, and the kernel adds their results with atomics. Windows
 * with no TC nonzero have no entry.
 *
 * Bit order: bit r*8 + c of a block (row r = 0..15 of the window, local
 * column c = 0..7) is bit (r*8 + c) & 63 of bitmap[2*b + (r >= 8)]: rows 0-7
 * in the first word, rows 8-15 in the second, row-major inside each. The
 * block's values are in the same order (ascending bit index, i.e. row-major),
 * value_offset[b] .. value_offset[b+1].
 */
#ifndef TC_RSTILE_H
#define TC_RSTILE_H

#include "formats.h"

#define TC_RSTILE_H_ROWS 16     /* rows per row window (TC block height) */
#define TC_RSTILE_W_COLS 8      /* columns per TC block */
#define TC_RSTILE_DUMMY_COL (-1)

typedef struct tc_rstile {
    tc_fmt base;
    int threshold;              /* the nnz threshold used (resolved from "auto") */
    int split;                  /* the most blocks per segment (resolved) */
    /* TC block part */
    int64_t nsegments;          /* window segments (entries below) */
    int32_t *row_window_id;     /* nsegments: first row of the segment's window
                                   (a multiple of 16), non-decreasing */
    int64_t *row_window_offset; /* nsegments + 1: first TC block of each
                                   segment; [0] = 0, [nsegments] = nblocks */
    int64_t nblocks;
    uint64_t *bitmap;           /* 2 * nblocks, bit order above */
    int32_t *col_id;            /* 8 * nblocks: original column of each local
                                   column, TC_RSTILE_DUMMY_COL for padding;
                                   ascending inside a window across its blocks */
    int64_t *value_offset;      /* nblocks + 1: prefix popcounts of the bitmaps
                                   (derived; not stored in files) */
    double *values;             /* value_offset[nblocks], bitmap order, or NULL
                                   for a pattern matrix */
    /* CUDA residual part: CSR over the nres_rows residual rows (whole rows),
       ascending row order, columns sorted within a row; empty rows are in
       neither part. */
    int64_t nres_rows;
    int32_t *res_row_id;        /* nres_rows */
    int64_t *res_row_offset;    /* nres_rows + 1, [0] = 0 */
    int32_t *res_col_id;        /* res_row_offset[nres_rows] */
    double *res_values;         /* the same count, or NULL (pattern) */
} tc_rstile;

#endif
