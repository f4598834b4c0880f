/*
 * rstile_io.c: the rstile format's datasets in a .tcf.h5 (man/tcf.h5.5),
 * written and read back; rstile_validate.c checks what was read.
 */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>

#include "fmtutil.h"
#include "rstile_internal.h"

/* ------------------------------------------------------------------ files */

tc_status tc_rstile_write_h5(const tc_fmt *m, tc_h5grp *g, tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    const tc_residual res = TC_RESIDUAL_OF(x);
    int64_t ntc = x->value_offset[x->nblocks];
    tc_status st = tc_h5grp_put(g, "row_window_id", TC_I32, x->nsegments, x->row_window_id, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "row_window_offset", TC_I64, x->nsegments + 1, x->row_window_offset,
                          err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "bitmap", TC_U64, 2 * x->nblocks, x->bitmap, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "col_id", TC_I32, W * x->nblocks, x->col_id, err);
    if (st == TC_OK && x->values)
        st = tc_h5grp_put(g, "values", TC_F64, ntc, x->values, err);
    if (st == TC_OK)
        st = tc_residual_write(g, &res, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(g, "resolved_threshold", x->threshold, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(g, "resolved_split", x->split, err);
    return st;
}

/* value_offset from the bitmaps: their prefix popcounts. */
static tc_status derive_value_offset(tc_rstile *x, tc_error *err)
{
    x->value_offset = tc_malloc_array(x->nblocks + 1, sizeof *x->value_offset, err);
    if (!x->value_offset)
        return TC_ERR_NOMEM;
    x->value_offset[0] = 0;
    for (int64_t b = 0; b < x->nblocks; b++)
        x->value_offset[b + 1] = x->value_offset[b] + __builtin_popcountll(x->bitmap[2 * b]) +
                                 __builtin_popcountll(x->bitmap[2 * b + 1]);
    return TC_OK;
}

/* The TC part's arrays, with the lengths that the segments and the bitmaps
   imply, each bounded by the matrix's nonzeros before anything that
   depends on it is allocated; contents are checked by tc_rstile_validate. */
static tc_status read_tc_part(tc_h5grp *g, tc_rstile *x, tc_error *err)
{
    const int64_t nnz = x->base.nnz;
    tc_status st = tc_h5grp_get(g, "row_window_id", TC_I32, &x->nsegments,
                                (void **)&x->row_window_id, 0, err);
    if (st == TC_OK && x->nsegments > nnz)
        return tc_error_set(err, TC_ERR_FORMAT, "%s/row_window_id: %" PRId64 " segments exceed "
                            "the %" PRId64 " nonzeros of the matrix", tc_h5grp_path(g),
                            x->nsegments, nnz);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "row_window_offset", TC_I64, x->nsegments + 1,
                            (void **)&x->row_window_offset, err);
    if (st != TC_OK)
        return st;
    x->nblocks = x->row_window_offset[x->nsegments];
    if (x->nblocks < 0 || x->nblocks > nnz)
        return tc_error_set(err, TC_ERR_FORMAT, "%s/row_window_offset[%" PRId64 "]: %" PRId64
                            " blocks, expected 0 to %" PRId64 " (at most one per nonzero)",
                            tc_h5grp_path(g), x->nsegments, x->nblocks, nnz);
    st = tc_h5grp_get_n(g, "bitmap", TC_U64, 2 * x->nblocks, (void **)&x->bitmap, err);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "col_id", TC_I32, W * x->nblocks, (void **)&x->col_id, err);
    if (st == TC_OK)
        st = derive_value_offset(x, err);
    if (st != TC_OK)
        return st;
    int64_t ntc = x->value_offset[x->nblocks];
    if (ntc > nnz)
        return tc_error_set(err, TC_ERR_FORMAT, "%s/bitmap: %" PRId64 " bits set, more than the %"
                            PRId64 " nonzeros of the matrix", tc_h5grp_path(g), ntc, nnz);
    return tc_fmt_read_values(g, "values", ntc, x->base.has_values, &x->values, err);
}

/* An attribute that must hold an int in 0 .. INT32_MAX. */
static tc_status read_count_attr(tc_h5grp *g, const char *name, int *out, tc_error *err)
{
    int64_t v;
    tc_status st = tc_h5grp_get_attr_i64(g, name, &v, err);
    if (st == TC_OK && (v < 0 || v > INT32_MAX))
        st = tc_error_set(err, TC_ERR_FORMAT, "%s/%s: %" PRId64 " is out of range (0 to %d)",
                          tc_h5grp_path(g), name, v, INT32_MAX);
    if (st == TC_OK)
        *out = (int)v;
    return st;
}

tc_status tc_rstile_read_h5(tc_h5grp *g, const tc_fmt *hdr, tc_fmt **out, tc_error *err)
{
    tc_rstile *x = calloc(1, sizeof *x);
    if (!x)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    x->base = *hdr;
    tc_residual res = { 0 };
    tc_status st = read_count_attr(g, "resolved_threshold", &x->threshold, err);
    if (st == TC_OK)
        st = read_count_attr(g, "resolved_split", &x->split, err);
    if (st == TC_OK)
        st = read_tc_part(g, x, err);
    if (st == TC_OK)
        st = tc_residual_read(g, hdr->nnz - x->value_offset[x->nblocks], hdr->has_values, &res,
                              err);
    x->nres_rows = res.nrows;
    x->res_row_id = res.row_id;
    x->res_row_offset = res.row_offset;
    x->res_col_id = res.col_id;
    x->res_values = res.values;
    if (st != TC_OK) {
        tc_rstile_free(&x->base);
        return st;
    }
    *out = &x->base;
    return TC_OK;
}
