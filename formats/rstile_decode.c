/*
 * rstile_decode.c: reading the rstile format back: exact decoding to CSR,
 * the CPU reference SpMM from its own arrays, its size, and which part
 * each nonzero is in.
 */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fmtutil.h"
#include "rstile_internal.h"

/* ------------------------------------------------------------ decoding */

/* Calls fn(ctx, row, column, k) for every TC nonzero in storage order:
   segment after segment, block after block, bit after bit (row-major in
   the block, rstile.h), k counting them, which is its place in values. */
typedef void tc_visit(void *ctx, int64_t row, int32_t col, int64_t k);
static void visit_tc(const tc_rstile *x, tc_visit *fn, void *ctx)
{
    int64_t k = 0;
    for (int64_t s = 0; s < x->nsegments; s++) {
        int64_t row0 = x->row_window_id[s];
        for (int64_t b = x->row_window_offset[s]; b < x->row_window_offset[s + 1]; b++)
            for (int half = 0; half < 2; half++)
                for (uint64_t bits = x->bitmap[2 * b + half]; bits; bits &= bits - 1) {
                    int bit = __builtin_ctzll(bits);
                    fn(ctx, row0 + half * 8 + bit / W, x->col_id[b * W + bit % W], k++);
                }
    }
}

static void count_row(void *ctx, int64_t row, int32_t col, int64_t k)
{
    ((int64_t *)ctx)[row]++;
}

typedef struct decode_ctx {
    tc_csr *a;
    int64_t *at;            /* where each row's next nonzero goes */
    const double *values;
} decode_ctx;

static void decode_one(void *ctx, int64_t row, int32_t col, int64_t k)
{
    decode_ctx *d = ctx;
    int64_t at = d->at[row]++;
    d->a->colidx[at] = col;
    if (d->a->val)
        d->a->val[at] = d->values[k];
}

/* Exact decode. A window's columns ascend across its blocks, so a TC row's
   nonzeros come out in column order; a residual row is stored whole and
   in no TC block (both checked by validate). */
tc_status tc_rstile_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    const tc_residual res = TC_RESIDUAL_OF(x);
    tc_csr *a;
    tc_status st = tc_csr_alloc(&a, m->rows, m->cols, m->nnz, m->has_values, err);
    if (st != TC_OK)
        return st;
    int64_t *rp = a->rowptr;
    visit_tc(x, count_row, rp + 1);
    tc_residual_count(&res, rp + 1);
    for (int32_t r = 0; r < a->rows; r++)
        rp[r + 1] += rp[r];
    /* rp[r] runs ahead as row r fills, ending at rp[r + 1]; shifted back
       below. */
    decode_ctx d = { a, rp, x->values };
    visit_tc(x, decode_one, &d);
    tc_residual_fill(&res, a, rp);
    memmove(rp + 1, rp, (size_t)a->rows * sizeof *rp);
    rp[0] = 0;
    *out = a;
    return TC_OK;
}

/* C = A*B straight from the two parts, as the kernels compute it: every
   TC nonzero from its block's bitmap, column id and value, then the
   residual rows. */
tc_status tc_rstile_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                                 double *C, int64_t ldc, tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    tc_status st = tc_fmt_spmm_start(m, B, ldb, n, C, ldc, err);
    if (st != TC_OK)
        return st;
    tc_spmm_step p = { B, x->values, ldb, ldc, n, C };
    visit_tc(x, tc_spmm_step_one, &p);
    const tc_residual res = TC_RESIDUAL_OF(x);
    tc_residual_spmm(&res, B, ldb, n, C, ldc);
    return TC_OK;
}

/* The GPU layout: int32 row_window_id, int64 row_window_offset, two uint64
   bitmap words, 8 int32 column ids and an int64 value offset per block,
   float32 values (as csr and brp are counted); the residual part. */
int64_t tc_rstile_bytes(const tc_fmt *m)
{
    const tc_rstile *x = (const tc_rstile *)m;
    const tc_residual res = TC_RESIDUAL_OF(x);
    int64_t ntc = x->value_offset[x->nblocks];
    return x->nsegments * 4 + (x->nsegments + 1) * 8 + x->nblocks * (2 * 8 + W * 4) +
           (x->nblocks + 1) * 8 + ntc * (m->has_values ? 4 : 0) +
           tc_residual_bytes(&res, m->has_values);
}

/* Which nonzeros of a lie in which part: residual rows are whole rows. */
tc_status tc_rstile_nnz_part(const tc_fmt *m, const tc_csr *a, uint8_t *part, tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    if (a->rows != m->rows || a->cols != m->cols || a->nnz != m->nnz)
        return tc_error_set(err, TC_ERR_ARG,
                            "rstile: the matrix is not the one the format encodes");
    memset(part, 0, (size_t)a->nnz);
    for (int64_t i = 0; i < x->nres_rows; i++) {
        int32_t r = x->res_row_id[i];
        int64_t n = x->res_row_offset[i + 1] - x->res_row_offset[i];
        if (n != a->rowptr[r + 1] - a->rowptr[r])
            return tc_error_set(err, TC_ERR_ARG,
                                "rstile: row %d has %" PRId64 " nonzeros, its residual part %"
                                PRId64 " (not the matrix the format encodes)", r,
                                a->rowptr[r + 1] - a->rowptr[r], n);
        memset(part + a->rowptr[r], 1, (size_t)n);
    }
    return TC_OK;
}
