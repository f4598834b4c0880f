/*
 * rstile_validate.c: the checks of an rstile format read from a file
 * (bounds and consistency, man/tcf.h5.5), and against its matrix.
 */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>

#include "fmtutil.h"
#include "rstile_internal.h"

/* ------------------------------------------------------------ validation */

/* The resolved threshold and split against the parameters they were
   resolved from. */
static tc_status check_resolved(const tc_rstile *x, const char *what, tc_error *err)
{
    int t = (int)tc_params_get(&x->base.params, "threshold", AUTO);
    int s = (int)tc_params_get(&x->base.params, "split", AUTO);
    if (t == AUTO && (x->threshold < 0 || x->threshold > AUTO_MAX))
        return tc_error_set(err, TC_ERR_INVALID, "%s/resolved_threshold: %d, expected 0 to %d "
                            "(threshold -1: chosen from the matrix)", what, x->threshold,
                            AUTO_MAX);
    if (t != AUTO && x->threshold != t)
        return tc_error_set(err, TC_ERR_INVALID, "%s/resolved_threshold: %d, expected %d (the "
                            "threshold parameter)", what, x->threshold, t);
    if (s == AUTO && x->split < SPLIT_MIN)
        return tc_error_set(err, TC_ERR_INVALID, "%s/resolved_split: %d, expected at least %d "
                            "(split -1: chosen from the matrix)", what, x->split, SPLIT_MIN);
    if ((s > 0 && x->split != s) || x->split < 1)
        return tc_error_set(err, TC_ERR_INVALID, "%s/resolved_split: %d, expected %d (the split "
                            "parameter)", what, x->split, s > 0 ? s : 1);
    return TC_OK;
}

/* The segments: each at the first row of a window inside the matrix,
   windows ascending (a window's segments consecutive, and only one when
   split is 0), each of 1 to split blocks, from block 0 to the last. */
static tc_status check_segments(const tc_rstile *x, const char *what, tc_error *err)
{
    const int64_t *off = x->row_window_offset;
    const int never_split = tc_params_get(&x->base.params, "split", AUTO) == 0;
    if (off[0] != 0)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/row_window_offset[0]: %" PRId64 ", expected 0", what, off[0]);
    for (int64_t s = 0; s < x->nsegments; s++) {
        int32_t row = x->row_window_id[s], prev = s > 0 ? x->row_window_id[s - 1] : -1;
        if (row < 0 || row >= x->base.rows || row % H != 0)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/row_window_id[%" PRId64 "]: %d is not the first row of a "
                                "window (a multiple of %d below %d)", what, s, row, H,
                                x->base.rows);
        if (row < prev || (never_split && row == prev))
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/row_window_id[%" PRId64 "]: window at row %d after window at "
                                "row %d (must be %s)", what, s, row, prev,
                                never_split ? "strictly ascending: split is 0" : "ascending");
        if (off[s + 1] <= off[s] || off[s + 1] - off[s] > x->split)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/row_window_offset[%" PRId64 "]: %" PRId64 " after %" PRId64
                                " (a segment holds 1 to %d blocks)", what, s + 1, off[s + 1],
                                off[s], x->split);
    }
    if (off[x->nsegments] != x->nblocks)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/row_window_offset[%" PRId64 "]: %" PRId64 ", expected %" PRId64
                            " blocks", what, x->nsegments, off[x->nsegments], x->nblocks);
    return TC_OK;
}

/* The bits of local column j of a block's bitmap word (rstile.h). */
#define COLUMN_BITS(j) (UINT64_C(0x0101010101010101) << (j))

/* The rows (bit r: row r of the window) that block b has nonzeros in. */
static unsigned block_rows(const tc_rstile *x, int64_t b)
{
    unsigned rows = 0;
    for (int r = 0; r < H; r++)
        rows |= (unsigned)((x->bitmap[2 * b + r / 8] >> (r % 8 * W) & 0xff) != 0) << r;
    return rows;
}

/* Local column j of block b, the last block of its window when last:
   a column in range, above the window's previous one (*prev), with a
   nonzero; or a dummy column, only in the last block's trailing slots
   (never the first: a block has a column), with no nonzero. */
static tc_status check_column(const tc_rstile *x, int64_t b, int j, int last, int64_t *prev,
                              const char *what, tc_error *err)
{
    int64_t at = b * W + j;
    int32_t col = x->col_id[at];
    uint64_t bits = (x->bitmap[2 * b] | x->bitmap[2 * b + 1]) & COLUMN_BITS(j);
    if (col == DUMMY) {
        if (!last || j == 0)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/col_id[%" PRId64 "]: dummy column %d outside the trailing "
                                "slots of its window's last block", what, at, DUMMY);
        if (bits)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/bitmap[%" PRId64 "]: a nonzero in dummy column %d of block %"
                                PRId64, what, 2 * b + !(x->bitmap[2 * b] & COLUMN_BITS(j)), j, b);
        *prev = INT64_MAX;
        return TC_OK;
    }
    if (col < 0 || col >= x->base.cols)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/col_id[%" PRId64 "]: column %d is out of range (%d columns)",
                            what, at, col, x->base.cols);
    if (col <= *prev)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/col_id[%" PRId64 "]: column %d after %s %" PRId64 " in its window "
                            "(must be strictly ascending, dummies last)", what, at, col,
                            *prev == INT64_MAX ? "dummy column" : "column",
                            *prev == INT64_MAX ? (int64_t)DUMMY : *prev);
    if (!bits)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/bitmap[%" PRId64 "]: column %d (local column %d of block %" PRId64
                            ") has no nonzero", what, 2 * b, col, j, b);
    *prev = col;
    return TC_OK;
}

/* The blocks [b0, b1) of the window at row0: their columns, and no
   nonzero in a row past the matrix. */
static tc_status check_window(const tc_rstile *x, int64_t b0, int64_t b1, int32_t row0,
                              const char *what, tc_error *err)
{
    int64_t prev = -1;
    int inside = x->base.rows - row0 < H ? x->base.rows - row0 : H;
    for (int64_t b = b0; b < b1; b++) {
        for (int j = 0; j < W; j++) {
            tc_status st = check_column(x, b, j, b == b1 - 1, &prev, what, err);
            if (st != TC_OK)
                return st;
        }
        unsigned outside = block_rows(x, b) >> inside;
        int r = inside + (outside ? __builtin_ctz(outside) : 0);
        if (outside)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/bitmap[%" PRId64 "]: a nonzero in row %d, outside the matrix "
                                "(%d rows)", what, 2 * b + r / 8, row0 + r, x->base.rows);
    }
    return TC_OK;
}

/* Every window's blocks (segments checked first). */
static tc_status check_blocks(const tc_rstile *x, const char *what, tc_error *err)
{
    for (int64_t s = 0, e; s < x->nsegments; s = e) {
        for (e = s + 1; e < x->nsegments && x->row_window_id[e] == x->row_window_id[s]; e++)
            ;
        tc_status st = check_window(x, x->row_window_offset[s], x->row_window_offset[e],
                                    x->row_window_id[s], what, err);
        if (st != TC_OK)
            return st;
    }
    return TC_OK;
}

/* The rows of the window at row0 that have TC nonzeros, from segment *s on
   (advanced past the windows before it). */
unsigned tc_rstile_tc_rows_of(const tc_rstile *x, int32_t row0, int64_t *s)
{
    unsigned rows = 0;
    while (*s < x->nsegments && x->row_window_id[*s] < row0)
        (*s)++;
    for (int64_t e = *s; e < x->nsegments && x->row_window_id[e] == row0; e++)
        for (int64_t b = x->row_window_offset[e]; b < x->row_window_offset[e + 1]; b++)
            rows |= block_rows(x, b);
    return rows;
}

/* The residual rows against the partition (Section 3.3.1): none in the TC
   part, and at most threshold nonzeros each, except in a window that went
   whole to the residual (no TC row; only where min_density is not 0). */
static tc_status check_partition(const tc_rstile *x, const char *what, tc_error *err)
{
    const int whole = tc_params_get(&x->base.params, "min_density", MIN_DENSITY_DEFAULT) > 0;
    int64_t s = 0;
    int32_t window = -1;
    unsigned tc_rows = 0;
    for (int64_t i = 0; i < x->nres_rows; i++) {
        int32_t r = x->res_row_id[i];
        int64_t n = x->res_row_offset[i + 1] - x->res_row_offset[i];
        if (r - r % H != window) {
            window = r - r % H;
            tc_rows = tc_rstile_tc_rows_of(x, window, &s);
        }
        if (n > x->threshold && (!whole || tc_rows))
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_row_offset[%" PRId64 "]: row %d has %" PRId64 " nonzeros, "
                                "more than the threshold %d%s", what, i + 1, r, n, x->threshold,
                                whole ? ", and its window has TC rows" : " (min_density is 0)");
        if (tc_rows >> (r % H) & 1)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_row_id[%" PRId64 "]: row %d also has nonzeros in the TC "
                                "part", what, i, r);
    }
    return TC_OK;
}

tc_status tc_rstile_validate(const tc_fmt *m, const tc_csr *a, const char *what,
                                 tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    const tc_residual res = TC_RESIDUAL_OF(x);
    tc_status st = tc_fmt_check_values(m, x->values, "values", what, err);
    if (st == TC_OK)
        st = tc_fmt_check_values(m, x->res_values, "res_values", what, err);
    if (st == TC_OK)
        st = check_resolved(x, what, err);
    if (st == TC_OK)
        st = check_segments(x, what, err);
    if (st == TC_OK)
        st = check_blocks(x, what, err);
    if (st == TC_OK)
        st = tc_residual_check(&res, m->nnz - x->value_offset[x->nblocks], m->rows, m->cols,
                               what, err);
    if (st == TC_OK)
        st = check_partition(x, what, err);
    if (st == TC_OK && a)
        st = tc_fmt_check_decodes(m, a, what, err);
    return st;
}
