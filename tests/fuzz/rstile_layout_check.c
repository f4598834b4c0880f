/*
 * rstile_layout_check.c: rstile_layout_check (rstile_layout_check.h),
 * restating each promise of formats/rstile_layout.h over the format's
 * arrays rather than repeating the layout's own loops.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "half.h"
#include "rstile_layout.h"
#include "rstile_layout_check.h"

#define WROWS TC_RSTILE_H_ROWS
#define BCOLS TC_RSTILE_W_COLS

typedef struct check {
    const tc_rstile *m;
    const tc_csr *a;
    char *why;
    size_t len;
    int failed;
} check;

/* Records the first failure; returns 0 so that callers can `return fail(...)`. */
__attribute__((format(printf, 2, 3))) static int fail(check *c, const char *fmt, ...)
{
    if (!c->failed && c->len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->len, fmt, ap);
        va_end(ap);
    }
    c->failed = 1;
    return 0;
}

static int is_residual(const tc_rstile *m, int32_t row)
{
    for (int64_t i = 0; i < m->nres_rows; i++)
        if (m->res_row_id[i] == row)
            return 1;
    return 0;
}

/* Segments of the format in window row0. */
static int64_t segments_of(const tc_rstile *m, int32_t row0)
{
    int64_t n = 0;
    for (int64_t s = 0; s < m->nsegments; s++)
        n += m->row_window_id[s] == row0;
    return n;
}

static int check_segments(check *c, const tc_seg *seg, int64_t nseg)
{
    const tc_rstile *m = c->m;
    const int32_t rows = m->base.rows;
    int64_t k = 0;
    if (nseg < m->nsegments)
        return fail(c, "%lld segments, fewer than the format's %lld", (long long)nseg,
                    (long long)m->nsegments);
    for (int32_t row0 = 0; row0 < rows; row0 += WROWS) {
        uint32_t want = 0;
        for (int r = 0; r < WROWS && row0 + r < rows; r++)
            want |= (uint32_t)!is_residual(m, row0 + r) << r;
        const int64_t in_format = segments_of(m, row0);
        int64_t found = 0;
        for (int64_t s = 0; s < nseg; s++) {
            if (seg[s].row0 != row0)
                continue;
            found++;
            if (seg[s].mask != want)
                return fail(c, "segment %lld of window %d writes rows %#x, not %#x",
                            (long long)s, row0, seg[s].mask, want);
            if (seg[s].split != (in_format > 1))
                return fail(c, "segment %lld of window %d: split %u with %lld segments",
                            (long long)s, row0, seg[s].split, (long long)in_format);
        }
        const int64_t extra = in_format == 0 && want != 0;
        if (found != in_format + extra)
            return fail(c, "window %d has %lld segments, not %lld", row0, (long long)found,
                        (long long)(in_format + extra));
        k += found;
    }
    if (k != nseg)
        return fail(c, "%lld segments outside the matrix's windows", (long long)(nseg - k));
    for (int64_t s = 0; s < m->nsegments; s++)
        if (seg[s].row0 != m->row_window_id[s] || seg[s].block != m->row_window_offset[s] ||
            seg[s].nblocks != m->row_window_offset[s + 1] - m->row_window_offset[s])
            return fail(c, "segment %lld is not the format's", (long long)s);
    for (int64_t s = m->nsegments; s < nseg; s++)
        if (seg[s].nblocks != 0 || seg[s].block != 0)
            return fail(c, "added segment %lld has blocks", (long long)s);
    return 1;
}

static int check_starts(check *c, const int64_t *vstart)
{
    const tc_rstile *m = c->m;
    if (vstart[0] != 0)
        return fail(c, "the first block's values start at %lld", (long long)vstart[0]);
    for (int64_t b = 0; b < m->nblocks; b++) {
        const int64_t count = m->value_offset[b + 1] - m->value_offset[b];
        const int64_t got = vstart[b + 1] - vstart[b];
        if (got % 8 || got < count || got >= count + 8)
            return fail(c, "block %lld: %lld places for %lld values", (long long)b,
                        (long long)got, (long long)count);
    }
    return 1;
}

/* Where (row, col) is in a, or -1. */
static int64_t entry_of(const tc_csr *a, int32_t row, int32_t col)
{
    int64_t lo = a->rowptr[row], hi = a->rowptr[row + 1];
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (a->colidx[mid] == col)
            return mid;
        if (a->colidx[mid] < col)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* One decoded entry: a must hold it once, with value x within fp16's
   rounding at the row's scale (float32's for the residual part, scale
   0). */
static int decoded(check *c, int *seen, int32_t row, int32_t col, double x, double scale)
{
    const tc_csr *a = c->a;
    const int64_t k = row >= 0 && row < a->rows && col >= 0 && col < a->cols
                      ? entry_of(a, row, col) : -1;
    if (k < 0)
        return fail(c, "(%d, %d) decoded but not in the matrix", row, col);
    if (seen[k]++)
        return fail(c, "(%d, %d) decoded twice", row, col);
    const double want = a->val ? a->val[k] : 1;
    /* 11 significant bits (and a float32 rounding before them), or fp16's
       smallest step at the row's scale */
    const double tol = scale ? 0x1p-10 * fabs(want) + 0x1p-24 * scale : 0x1p-23 * fabs(want);
    if (!(fabs(x - want) <= tol))
        return fail(c, "(%d, %d) decodes to %.17g, not %.17g", row, col, x, want);
    return 1;
}

/* Each row's scale brings its largest TC magnitude (top) to [2^14, 2^15);
   a row without one has scale 1. */
static int check_scales(check *c, const double *top, const float *row_scale)
{
    for (int32_t r = 0; r < c->m->base.rows; r++) {
        const double q = top[r] / row_scale[r];
        if (top[r] > 0 ? !(q >= 0x1p14 && q < 0x1p15) : row_scale[r] != 1)
            return fail(c, "row %d: largest TC magnitude %g at scale %g", r, top[r],
                        row_scale[r]);
    }
    return 1;
}

static int check_values(check *c, const int64_t *vstart, const uint16_t *val,
                        const float *row_scale)
{
    const tc_rstile *m = c->m;
    const int pattern = !m->values;
    if (pattern && (val || row_scale))
        return fail(c, "a pattern matrix got values");
    if (!pattern && (!val || !row_scale))
        return fail(c, "a matrix with values got none");
    int *seen = calloc((size_t)c->a->nnz + 1, sizeof *seen);
    double *top = calloc((size_t)m->base.rows + 1, sizeof *top);
    if (!seen || !top)
        fail(c, "out of memory");
    for (int64_t s = 0; s < m->nsegments && !c->failed; s++)
        for (int64_t b = m->row_window_offset[s]; b < m->row_window_offset[s + 1]; b++) {
            int64_t d = vstart[b], v = m->value_offset[b];
            for (int bit = 0; bit < WROWS * BCOLS && !c->failed; bit++) {
                if (!((m->bitmap[2 * b + bit / 64] >> (bit % 64)) & 1))
                    continue;
                const int32_t row = m->row_window_id[s] + bit / BCOLS;
                const double sc = pattern ? 1 : row_scale[row];
                const double x = pattern ? 1 : (double)tc_half_to_float(val[d++]) * sc;
                if (!pattern)
                    top[row] = fmax(top[row], fabs(m->values[v++]));
                decoded(c, seen, row, m->col_id[BCOLS * b + bit % BCOLS], x, sc);
            }
            for (; !pattern && d < vstart[b + 1] && !c->failed; d++)
                if (val[d] != 0)
                    fail(c, "block %lld's padding holds %#x", (long long)b, val[d]);
        }
    for (int64_t i = 0; i < m->nres_rows && !c->failed; i++)
        for (int64_t e = m->res_row_offset[i]; e < m->res_row_offset[i + 1] && !c->failed; e++)
            decoded(c, seen, m->res_row_id[i], m->res_col_id[e],
                    m->res_values ? (float)m->res_values[e] : 1, 0);
    for (int64_t k = 0; k < c->a->nnz && !c->failed; k++)
        if (!seen[k])
            fail(c, "entry %lld of the matrix is not decoded", (long long)k);
    if (!c->failed && !pattern)
        check_scales(c, top, row_scale);
    free(seen);
    free(top);
    return !c->failed;
}

static int check_windows(check *c, const int64_t *wb, const int64_t *wr, const uint8_t *lrow)
{
    const tc_rstile *m = c->m;
    const int64_t nw = (m->base.rows + WROWS - 1) / WROWS;
    if (wb[0] != 0 || wb[nw] != m->nblocks || wr[0] != 0 ||
        wr[nw] != m->res_row_offset[m->nres_rows])
        return fail(c, "the window index does not span the blocks and residual nonzeros");
    for (int64_t s = 0; s < m->nsegments; s++) {
        const int64_t w = m->row_window_id[s] / WROWS;
        if (m->row_window_offset[s] < wb[w] || m->row_window_offset[s + 1] > wb[w + 1])
            return fail(c, "segment %lld's blocks are outside window %lld's", (long long)s,
                        (long long)w);
    }
    for (int64_t i = 0; i < m->nres_rows; i++) {
        const int64_t w = m->res_row_id[i] / WROWS;
        if (m->res_row_offset[i] < wr[w] || m->res_row_offset[i + 1] > wr[w + 1])
            return fail(c, "residual row %d's nonzeros are outside window %lld's",
                        m->res_row_id[i], (long long)w);
        for (int64_t e = m->res_row_offset[i]; e < m->res_row_offset[i + 1]; e++)
            if (lrow[e] != m->res_row_id[i] % WROWS)
                return fail(c, "residual nonzero %lld: row %d in its window, not %d",
                            (long long)e, lrow[e], m->res_row_id[i] % WROWS);
    }
    return 1;
}

int rstile_layout_check(const tc_rstile *m, const tc_csr *a, char *why, size_t len)
{
    check c = { m, a, why, len, 0 };
    tc_error err;
    tc_seg *seg = NULL;
    int64_t nseg = 0, *vstart = NULL, *wb = NULL, *wr = NULL;
    uint16_t *val = NULL;
    float *row_scale = NULL;
    uint8_t *lrow = NULL;
    if (tc_rstile_layout_segments(m, &seg, &nseg, &err) != TC_OK ||
        !(vstart = tc_rstile_layout_starts(m, &err)) ||
        tc_rstile_layout_values(m, vstart, &val, &row_scale, &err) != TC_OK ||
        tc_rstile_layout_windows(m, &wb, &wr, &lrow, &err) != TC_OK)
        fail(&c, "%s", err.msg);
    else if (check_segments(&c, seg, nseg) && check_starts(&c, vstart) &&
             check_values(&c, vstart, val, row_scale))
        check_windows(&c, wb, wr, lrow);
    free(seg);
    free(vstart);
    free(val);
    free(row_scale);
    free(wb);
    free(wr);
    free(lrow);
    return !c.failed;
}
