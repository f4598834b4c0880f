/* fmtutil.c: what the format implementations share (see fmtutil.h). */
#include "config.h"
#include <inttypes.h>
#include <string.h>

#include "fmtutil.h"

/* ------------------------------------------------------ residual part */

tc_status tc_residual_write(tc_h5grp *g, const tc_residual *r, tc_error *err)
{
    int64_t nnz = r->row_offset[r->nrows];
    tc_status st = tc_h5grp_put(g, "res_row_id", TC_I32, r->nrows, r->row_id, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "res_row_offset", TC_I64, r->nrows + 1, r->row_offset, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "res_col_id", TC_I32, nnz, r->col_id, err);
    if (st == TC_OK && r->values)
        st = tc_h5grp_put(g, "res_values", TC_F64, nnz, r->values, err);
    return st;
}

tc_status tc_residual_read(tc_h5grp *g, int64_t nnz, int has_values, tc_residual *r,
                           tc_error *err)
{
    tc_status st = tc_h5grp_get(g, "res_row_id", TC_I32, &r->nrows, (void **)&r->row_id, 0, err);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "res_row_offset", TC_I64, r->nrows + 1, (void **)&r->row_offset,
                            err);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "res_col_id", TC_I32, nnz, (void **)&r->col_id, err);
    if (st == TC_OK)
        st = tc_fmt_read_values(g, "res_values", nnz, has_values, &r->values, err);
    return st;
}

/* Row i's columns: in range and strictly ascending. */
static tc_status check_residual_row(const tc_residual *r, int64_t i, int32_t cols,
                                    const char *what, tc_error *err)
{
    for (int64_t k = r->row_offset[i]; k < r->row_offset[i + 1]; k++) {
        int32_t c = r->col_id[k];
        if (c < 0 || c >= cols)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_col_id[%" PRId64 "]: column %d is out of range "
                                "(%d columns)", what, k, c, cols);
        if (k > r->row_offset[i] && c <= r->col_id[k - 1])
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_col_id[%" PRId64 "]: column %d after column %d in "
                                "row %d (must be strictly ascending)", what, k, c,
                                r->col_id[k - 1], r->row_id[i]);
    }
    return TC_OK;
}

tc_status tc_residual_check(const tc_residual *r, int64_t nnz, int32_t rows, int32_t cols,
                            const char *what, tc_error *err)
{
    const int64_t *off = r->row_offset;
    if (off[0] != 0)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/res_row_offset[0]: %" PRId64 ", expected 0", what, off[0]);
    for (int64_t i = 0; i < r->nrows; i++) {
        int32_t row = r->row_id[i];
        if (row < 0 || row >= rows)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_row_id[%" PRId64 "]: row %d is out of range (%d rows)",
                                what, i, row, rows);
        if (i > 0 && row <= r->row_id[i - 1])
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_row_id[%" PRId64 "]: row %d after row %d (must be "
                                "strictly ascending)", what, i, row, r->row_id[i - 1]);
        if (off[i + 1] <= off[i] || off[i + 1] > nnz)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_row_offset[%" PRId64 "]: %" PRId64 " after %" PRId64
                                " (must increase, up to %" PRId64 ")", what, i + 1, off[i + 1],
                                off[i], nnz);
        tc_status st = check_residual_row(r, i, cols, what, err);
        if (st != TC_OK)
            return st;
    }
    if (off[r->nrows] != nnz)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/res_row_offset[%" PRId64 "]: %" PRId64 " residual nonzeros, "
                            "expected %" PRId64 " (nnz minus the TC part)", what, r->nrows,
                            off[r->nrows], nnz);
    return TC_OK;
}

void tc_residual_count(const tc_residual *r, int64_t *count)
{
    for (int64_t i = 0; i < r->nrows; i++)
        count[r->row_id[i]] += r->row_offset[i + 1] - r->row_offset[i];
}

void tc_residual_fill(const tc_residual *r, tc_csr *a, int64_t *at)
{
    for (int64_t i = 0; i < r->nrows; i++) {
        int64_t from = r->row_offset[i], n = r->row_offset[i + 1] - from;
        int64_t *to = at + r->row_id[i];
        memcpy(a->colidx + *to, r->col_id + from, (size_t)n * sizeof *a->colidx);
        if (a->val)
            memcpy(a->val + *to, r->values + from, (size_t)n * sizeof *a->val);
        *to += n;
    }
}

void tc_residual_spmm(const tc_residual *r, const double *B, int64_t ldb, int32_t n, double *C,
                      int64_t ldc)
{
    for (int64_t i = 0; i < r->nrows; i++) {
        double *crow = C + (int64_t)r->row_id[i] * ldc;
        for (int64_t k = r->row_offset[i]; k < r->row_offset[i + 1]; k++) {
            double v = r->values ? r->values[k] : 1;
            const double *brow = B + (int64_t)r->col_id[k] * ldb;
            for (int32_t j = 0; j < n; j++)
                crow[j] += v * brow[j];
        }
    }
}

int64_t tc_residual_bytes(const tc_residual *r, int has_values)
{
    int64_t nnz = r->row_offset[r->nrows];
    return r->nrows * 4 + (r->nrows + 1) * 8 + nnz * (4 + (has_values ? 4 : 0));
}

/* ------------------------------------------------------ sorted runs */

/* The smallest half is taken from the front while the largest half is
   taken from the back: two independent chains of loads and compares, so
   that one runs while the other waits. Keys are distinct, so the halves do
   not overlap, and the frames stop each chain at the end of its run. The
   selects compile to conditional moves: the comparisons are
   unpredictable. */
void tc_merge_framed(const uint64_t *x, int64_t nx, const uint64_t *y, int64_t ny,
                     uint64_t *out)
{
    int64_t n = nx + ny;
    const uint64_t *fx = x, *fy = y, *bx = x + nx - 1, *by = y + ny - 1;
    uint64_t *fo = out, *bo = out + n - 1;
    for (int64_t k = n / 2; k > 0; k--) {
        uint64_t p = *fx, q = *fy, u = *bx, v = *by;
        int front_y = q < p, back_x = u > v;
        *fo++ = front_y ? q : p;
        fx += !front_y;
        fy += front_y;
        *bo-- = back_x ? u : v;
        bx -= back_x;
        by -= !back_x;
    }
    if (n & 1)
        *fo = *fx < *fy ? *fx : *fy;
    out[-1] = TC_KEY_LOW;
    out[n] = TC_KEY_HIGH;
}

/* ------------------------------------------------------------ values */

tc_status tc_fmt_read_values(tc_h5grp *g, const char *name, int64_t n, int has_values,
                             double **out, tc_error *err)
{
    *out = NULL;
    if (has_values)
        return tc_h5grp_get_n(g, name, TC_F64, n, (void **)out, err);
    if (tc_h5grp_has(g, name))
        return tc_error_set(err, TC_ERR_FORMAT, "%s/%s: present, but has_values is 0",
                            tc_h5grp_path(g), name);
    return TC_OK;
}

tc_status tc_fmt_check_values(const tc_fmt *m, const double *v, const char *name,
                              const char *what, tc_error *err)
{
    if ((v != NULL) == (m->has_values != 0))
        return TC_OK;
    return tc_error_set(err, TC_ERR_INVALID, "%s/%s: %s, but has_values is %d", what, name,
                        v ? "present" : "absent", m->has_values);
}

/* ------------------------------------------------- against /matrix */

/* The first row where x and y, of the same shape and nonzero count, differ
   (x->rows when none does). */
static int32_t first_difference(const tc_csr *x, const tc_csr *y)
{
    int32_t r = 0;
    for (; r < x->rows; r++) {
        int64_t k = x->rowptr[r], n = x->rowptr[r + 1] - k;
        if (y->rowptr[r + 1] != x->rowptr[r + 1] ||
            memcmp(x->colidx + k, y->colidx + k, (size_t)n * sizeof *x->colidx) ||
            (x->val && memcmp(x->val + k, y->val + k, (size_t)n * sizeof *x->val)))
            break;
    }
    return r;
}

tc_status tc_fmt_check_decodes(const tc_fmt *m, const tc_csr *a, const char *what,
                               tc_error *err)
{
    if (a->rows != m->rows || a->cols != m->cols || a->nnz != m->nnz ||
        (a->val != NULL) != (m->has_values != 0))
        return tc_error_set(err, TC_ERR_INVALID, "%s: does not encode /matrix (%dx%d, %" PRId64
                            " nonzeros, has_values %d, against %dx%d, %" PRId64 ", %d)", what,
                            m->rows, m->cols, m->nnz, m->has_values, a->rows, a->cols, a->nnz,
                            a->val != NULL);
    tc_csr *got;
    tc_status st = m->kind->to_csr(m, &got, err);
    if (st != TC_OK)
        return st;
    if (!tc_csr_equal(got, a))
        st = tc_error_set(err, TC_ERR_INVALID, "%s: does not encode /matrix (row %d differs)",
                          what, first_difference(got, a));
    tc_csr_free(got);
    return st;
}

tc_status tc_fmt_spmm_start(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                            double *C, int64_t ldc, tc_error *err)
{
    if (n < 0 || ldb < n || ldc < n || !C || (!B && m->cols > 0))
        return tc_error_set(err, TC_ERR_ARG, "%s: bad SpMM arguments (n %d, ldb %" PRId64
                            ", ldc %" PRId64 ")", tc_format_name(tc_fmt_format(m)), (int)n, ldb,
                            ldc);
    for (int32_t r = 0; r < m->rows; r++)
        memset(C + r * ldc, 0, (size_t)n * sizeof *C);
    return TC_OK;
}

void tc_spmm_step_one(void *ctx, int64_t row, int32_t col, int64_t k)
{
    const tc_spmm_step *p = ctx;
    const double v = p->values ? p->values[k] : 1;
    const double *brow = p->B + (int64_t)col * p->ldb;
    double *crow = p->C + row * p->ldc;
    for (int32_t j = 0; j < p->n; j++)
        crow[j] += v * brow[j];
}

double tc_fmt_ratio(int64_t x, int64_t y)
{
    return y ? (double)x / (double)y : 0;
}

tc_status tc_fmt_report_figures(tc_report *r, const char *s, const tc_fmt_figure *f, size_t n)
{
    tc_status st = TC_OK;
    for (size_t i = 0; i < n && st == TC_OK; i++)
        st = f[i].is_int ? tc_report_int(r, s, f[i].key, f[i].i, f[i].help)
                         : tc_report_num(r, s, f[i].key, f[i].v, f[i].help);
    return st;
}
