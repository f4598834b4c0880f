/*
 * rstile.c: the RS-Tile format of RSH-SpMM (seed 001): the rows split
 * between a TC block part (16-row windows, columns compacted per window,
 * 16 x 8 blocks with a 128-bit bitmap each, Section 3.2) and a CUDA
 * residual part (whole short rows, Section 3.2), by the row partition of
 * Section 3.3.1 (Algorithm 1); windows with many blocks cut into segments
 * for load balance (Section 3.3.3). The layout is in rstile.h; the file
 * layout and its invariants in man/tcf.h5.5.
 *
 * The row partition. Algorithm 1 itself is lost from our copy of the
 * paper; Section 3.3.1 says that rows with more than a threshold of
 * nonzeros go to the TC part directly, and that a shorter row is compared
 * with its window's column set: "if the increment in covered columns is
 * negligible" it goes to the CUDA residual. Read literally, that sends to
 * CUDA the rows whose columns the window already covers, which cost the TC
 * part nothing and fill its blocks, and keeps the rows that open new
 * columns, against the paper's own goal (rows with "weak column-domain
 * overlap with their surrounding row windows" go to CUDA, Section 4.3.2;
 * tile density rises with the threshold, Fig. 14). We follow the goal: a
 * row with 1 to `threshold` nonzeros goes to the residual when most of its
 * columns (strictly more than half) appear in no other row of its window,
 * since each such column would cost the window a TC block column for one
 * nonzero. The other rows are all the other rows of the window, whatever
 * part they end up in, so each row's decision depends on the matrix alone:
 * not on the order rows are scanned in, nor on the decisions for other
 * rows. The test does not depend on the threshold either, so the residual
 * at threshold t is contained in the residual at t + 1.
 *
 *
 * The format is one file per job: rstile_build.c (the partition and the
 * build), rstile_decode.c (decoding and the reference SpMM), rstile_io.c
 * (its datasets), rstile_validate.c, rstile_stats.c; rstile_internal.h
 * holds the rules they share. This file: the parameters and the registry
 * entry.
 */
#include "config.h"
#include <stdlib.h>

#include "rstile_internal.h"

static const tc_param_def rstile_params[] = {
    { "threshold", "rows with at most this many nonzeros may go to the CUDA residual "
                   "(Algorithm 1); -1: chosen from the matrix (Fig. 14)",
      AUTO, AUTO, INT32_MAX, 1 },
    { "split", "most TC blocks per window segment (Section 3.3.3); -1: chosen from the "
               "matrix, 0: windows are never split",
      AUTO, AUTO, INT32_MAX, 1 },
    { "min_density", "where the matrix's TC blocks would hold fewer nonzeros each than "
                     "this, windows whose own would go whole to the CUDA residual; 0: never",
      MIN_DENSITY_DEFAULT, 0, W * H, 0 },
};
#define NPARAMS ((int)(sizeof rstile_params / sizeof rstile_params[0]))

void tc_rstile_free(tc_fmt *m)
{
    tc_rstile *x = (tc_rstile *)m;
    if (!x)
        return;
    free(x->row_window_id);
    free(x->row_window_offset);
    free(x->bitmap);
    free(x->col_id);
    free(x->value_offset);
    free(x->values);
    free(x->res_row_id);
    free(x->res_row_offset);
    free(x->res_col_id);
    free(x->res_values);
    free(x);
}

/* 16-row windows of compacted columns: each column one row of B. */
static void rstile_window_shape(const tc_fmt *m, int32_t *window_rows, int32_t *col_unit)
{
    (void)m;
    *window_rows = TC_RSTILE_H_ROWS;
    *col_unit = 1;
}

const tc_format tc_format_rstile = {
    .name = "rstile",
    .description = "RSH-SpMM RS-Tile: 16x8 bitmap TC blocks of compacted row windows for "
                   "tensor cores, short isolated rows for CUDA cores",
    .params = rstile_params,
    .nparams = NPARAMS,
    .canonical = 0,
    .build = tc_rstile_build,
    .to_csr = tc_rstile_to_csr,
    .spmm_ref = tc_rstile_spmm_ref,
    .bytes = tc_rstile_bytes,
    .write_h5 = tc_rstile_write_h5,
    .read_h5 = tc_rstile_read_h5,
    .validate = tc_rstile_validate,
    .stats = tc_rstile_stats,
    .nnz_part = tc_rstile_nnz_part,
    .window_shape = rstile_window_shape,
    .free = tc_rstile_free,
};
