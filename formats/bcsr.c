/*
 * bcsr.c: the `bcsr` format of SMaT (seed 004, Section IV-B, Fig. 1): Block
 * CSR with dense, zero-padded blocks aligned at multiples of the block shape,
 * rowPtr per block row, colIdx per block, values dense per block; plus a
 * bitmap per block of the matrix's own nonzeros (ours: the paper decodes
 * nothing, we must give the matrix back exactly, explicit zeros included).
 * The layout is in bcsr.h; the file layout and its invariants in
 * man/tcf.h5.5.
 *
 * Building is a count pass, a prefix sum and a fill pass over the block
 * rows, each pass on contiguous ranges of block rows in threads. A block
 * row's blocks come out of a merge of its h rows: every row's columns are
 * sorted, so are its block columns (column / w), and taking the smallest
 * next block column among the h rows gives the block row's block columns in
 * increasing order with no sort and no array over the block columns. The
 * ranges write disjoint parts of the arrays, so the result is the same
 * whatever the thread count.
 */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bcsr.h"
#include "fmtutil.h"
#include "threads.h"

extern const tc_format tc_format_bcsr;

static const tc_param_def bcsr_params[] = {
    { "h", "block height in rows; only 16 (the m of mma.m16n8k16 and m16n8k8)", 16, 16, 16, 1 },
    { "w", "block width in columns: 16 (FP16 mma.m16n8k16) or 8 (TF32 mma.m16n8k8)",
      16, 8, 16, 1 },
};
#define NPARAMS ((int)(sizeof bcsr_params / sizeof bcsr_params[0]))

/* Below this many nonzeros a thread costs more than it saves. */
#define PARALLEL_MIN_NNZ (1 << 16)

/* h and w from a complete parameter set; the shapes the kernels have are
   16 x 16 and 16 x 8 (ranges cannot say "8 or 16"): others are refused
   with status `bad`. */
static tc_status bcsr_shape(tc_bcsr *b, const tc_params *p, const char *who, tc_status bad,
                            tc_error *err)
{
    b->h = (int)tc_params_get(p, "h", TC_BCSR_H_ROWS);
    b->w = (int)tc_params_get(p, "w", 16);
    if (b->w != 8 && b->w != 16)
        return tc_error_set(err, bad, "%s: w=%d is not a block width of the kernels (16 for "
                            "FP16 m16n8k16, 8 for TF32 m16n8k8)", who, b->w);
    b->nblockrows = ((int64_t)b->base.rows + b->h - 1) / b->h;
    return TC_OK;
}

static int64_t block_cols(const tc_bcsr *b)
{
    return ((int64_t)b->base.cols + b->w - 1) / b->w;
}

/* log2(w): w is 8 or 16. */
static int width_shift(const tc_bcsr *b)
{
    return b->w == 16 ? 4 : 3;
}

/* The w bits of row r of block blk (bit order in bcsr.h). */
static uint32_t row_bits(const tc_bcsr *b, int64_t blk, int r)
{
    int k = r * b->w;
    uint64_t word = b->bitmap[blk * tc_bcsr_block_words(b) + (k >> 6)];
    return (uint32_t)(word >> (k & 63)) & ((1u << b->w) - 1);
}

static void bcsr_free(tc_fmt *m)
{
    tc_bcsr *b = (tc_bcsr *)m;
    if (!b)
        return;
    free(b->rowPtr);
    free(b->colIdx);
    free(b->values);
    free(b->bitmap);
    free(b);
}

/* ---------------------------------------------------------------- build */

/* A block row's rows, each at its next nonzero not yet put in a block. */
typedef struct merge {
    const tc_csr *a;
    int n, shift;                       /* rows in the block row; log2(w) */
    int64_t pos[TC_BCSR_H_ROWS], end[TC_BCSR_H_ROWS];
    int32_t head[TC_BCSR_H_ROWS];       /* the block column at pos, INT32_MAX
                                           when the row is done */
} merge;

static void merge_head(merge *m, int i)
{
    m->head[i] = m->pos[i] < m->end[i] ? m->a->colidx[m->pos[i]] >> m->shift : INT32_MAX;
}

static void merge_start(merge *m, const tc_csr *a, const tc_bcsr *b, int64_t br)
{
    int64_t r0 = br * b->h, r1 = r0 + b->h < a->rows ? r0 + b->h : a->rows;
    m->a = a;
    m->n = (int)(r1 - r0);
    m->shift = width_shift(b);
    for (int i = 0; i < m->n; i++) {
        m->pos[i] = a->rowptr[r0 + i];
        m->end[i] = a->rowptr[r0 + i + 1];
        merge_head(m, i);
    }
}

/* The smallest block column among the rows' next nonzeros (INT32_MAX when
   the block row is done), and in *rows a bit for each row whose next
   nonzero is in it: two branch-free passes over the heads, cheaper than
   testing every row when blocks hold a nonzero or two. */
static int32_t merge_next(const merge *m, uint32_t *rows)
{
    int32_t best = INT32_MAX;
    uint32_t mask = 0;
    for (int i = 0; i < m->n; i++)
        best = m->head[i] < best ? m->head[i] : best;
    for (int i = 0; i < m->n; i++)
        mask |= (uint32_t)(m->head[i] == best) << i;
    *rows = mask;
    return best;
}

/* Takes the nonzeros of block column J off the given rows; with b, writes
   them into block blk: its bits, and its values (those not written stay
   the zeros of the calloc: the padding). */
static void merge_take(merge *m, int32_t J, uint32_t rows, tc_bcsr *b, int64_t blk)
{
    const tc_csr *a = m->a;
    for (; rows; rows &= rows - 1) {
        int i = __builtin_ctz(rows);
        for (; m->pos[i] < m->end[i] && a->colidx[m->pos[i]] >> m->shift == J; m->pos[i]++) {
            if (!b)
                continue;
            int64_t k = (int64_t)i * b->w + (a->colidx[m->pos[i]] & (b->w - 1));
            b->bitmap[blk * tc_bcsr_block_words(b) + (k >> 6)] |= UINT64_C(1) << (k & 63);
            if (b->values)
                b->values[blk * tc_bcsr_block_area(b) + k] = a->val[m->pos[i]];
        }
        merge_head(m, i);
    }
}

/* A contiguous range of block rows. */
typedef struct build_job {
    const tc_csr *a;
    tc_bcsr *b;
    int64_t br0, br1;
    int fill;       /* 0: count each block row's blocks into rowPtr[br + 1];
                       1: write the blocks from rowPtr[br] on */
} build_job;

static void *build_worker(void *arg)
{
    build_job *j = arg;
    tc_bcsr *b = j->b;
    for (int64_t br = j->br0; br < j->br1; br++) {
        merge m;
        merge_start(&m, j->a, b, br);
        int64_t at = j->fill ? b->rowPtr[br] : 0, n = 0;
        uint32_t rows;
        for (int32_t J; (J = merge_next(&m, &rows)) != INT32_MAX; n++) {
            if (j->fill)
                b->colIdx[at + n] = J;
            merge_take(&m, J, rows, j->fill ? b : NULL, at + n);
        }
        if (!j->fill)
            b->rowPtr[br + 1] = n;
    }
    return NULL;
}

/* The first block row at or after `from` whose first nonzero is at or
   beyond target (nblockrows when none). */
static int64_t block_row_at_nz(const tc_csr *a, const tc_bcsr *b, int64_t from, int64_t target)
{
    int64_t lo = from, hi = b->nblockrows;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a->rowptr[mid * b->h] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Cuts the block rows into ranges of about equal nonzero counts, one per
   thread; returns how many. */
static int split_block_rows(const tc_csr *a, tc_bcsr *b, build_job *jobs)
{
    int64_t n = a->nnz < PARALLEL_MIN_NNZ ? 1 : tc_default_threads();
    n = n > TC_MAX_JOBS ? TC_MAX_JOBS : n;
    n = n > b->nblockrows ? b->nblockrows : n;
    n = n < 1 ? 1 : n;
    int64_t start = 0;
    for (int64_t k = 0; k < n; k++) {
        /* nnz * (k + 1) / n without overflow */
        int64_t target = a->nnz / n * (k + 1) + a->nnz % n * (k + 1) / n;
        int64_t end = k < n - 1 ? block_row_at_nz(a, b, start, target) : b->nblockrows;
        jobs[k] = (build_job){ .a = a, .b = b, .br0 = start, .br1 = end };
        start = end;
    }
    return (int)n;
}

static tc_status alloc_blocks(tc_bcsr *b, tc_error *err)
{
    int64_t words, area;
    if (tc_mul_overflows(b->nblocks, tc_bcsr_block_words(b), &words) ||
        tc_mul_overflows(b->nblocks, tc_bcsr_block_area(b), &area))
        return TC_ERR_NOMEM;
    b->colIdx = tc_malloc_array(b->nblocks, sizeof *b->colIdx, err);
    b->bitmap = tc_calloc_array(words, sizeof *b->bitmap, err);
    if (b->base.has_values)
        b->values = tc_calloc_array(area, sizeof *b->values, err);
    return b->colIdx && b->bitmap && (b->values || !b->base.has_values) ? TC_OK : TC_ERR_NOMEM;
}

/* Count pass, prefix sum over the block rows, allocation, fill pass. */
static tc_status build_arrays(const tc_csr *a, tc_bcsr *b, tc_error *err)
{
    b->rowPtr = tc_malloc_array(b->nblockrows + 1, sizeof *b->rowPtr, err);
    if (!b->rowPtr)
        return TC_ERR_NOMEM;
    build_job jobs[TC_MAX_JOBS];
    int n = split_block_rows(a, b, jobs);
    tc_run_jobs(build_worker, jobs, sizeof jobs[0], n);
    b->rowPtr[0] = 0;
    for (int64_t br = 0; br < b->nblockrows; br++)
        b->rowPtr[br + 1] += b->rowPtr[br];
    b->nblocks = b->rowPtr[b->nblockrows];
    tc_status st = alloc_blocks(b, err);
    if (st != TC_OK)
        return st;
    for (int k = 0; k < n; k++)
        jobs[k].fill = 1;
    tc_run_jobs(build_worker, jobs, sizeof jobs[0], n);
    return TC_OK;
}

static tc_status bcsr_build(const tc_csr *a, const tc_params *p, tc_fmt **out, tc_error *err)
{
    tc_bcsr *b = calloc(1, sizeof *b);
    if (!b)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_fmt_init(&b->base, &tc_format_bcsr, a, p);
    tc_status st = bcsr_shape(b, &b->base.params, "bcsr", TC_ERR_ARG, err);
    if (st == TC_OK)
        st = build_arrays(a, b, err);
    if (st != TC_OK) {
        bcsr_free(&b->base);
        return st == TC_ERR_NOMEM ? tc_error_set(err, st, "bcsr: out of memory") : st;
    }
    *out = &b->base;
    return TC_OK;
}

/* ------------------------------------------------------------ decoding */

/* Reads one matrix row's nonzeros, in increasing column, off the bitmaps of
   its block row's blocks. */
typedef struct row_reader {
    const tc_bcsr *b;
    int r;                  /* the row within its block row */
    int64_t blk, end;       /* the block being read; the block row's end */
    uint32_t bits;          /* its bits of the row not read yet */
} row_reader;

static void reader_start(row_reader *rd, const tc_bcsr *b, int32_t row)
{
    int64_t br = row / b->h;
    *rd = (row_reader){ .b = b, .r = (int)(row % b->h), .blk = b->rowPtr[br] - 1,
                        .end = b->rowPtr[br + 1], .bits = 0 };
}

/* The next nonzero: its column and the index of its entry in values;
   0 when the row is done. */
static int reader_next(row_reader *rd, int32_t *col, int64_t *at)
{
    const tc_bcsr *b = rd->b;
    while (!rd->bits) {
        if (++rd->blk >= rd->end)
            return 0;
        rd->bits = row_bits(b, rd->blk, rd->r);
    }
    int c = __builtin_ctz(rd->bits);
    rd->bits &= rd->bits - 1;
    *col = rd->b->colIdx[rd->blk] * b->w + c;
    *at = rd->blk * tc_bcsr_block_area(b) + (int64_t)rd->r * b->w + c;
    return 1;
}

/* Exact decode: the bitmap's nonzeros, row by row. Relies on what validate
   checks (bits inside the matrix, block columns increasing), so that rows
   come out with their columns sorted. */
static tc_status bcsr_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    const tc_bcsr *b = (const tc_bcsr *)m;
    tc_csr *a;
    tc_status st = tc_csr_alloc(&a, m->rows, m->cols, m->nnz, m->has_values, err);
    if (st != TC_OK)
        return st;
    for (int32_t r = 0; r < m->rows; r++) {
        row_reader rd;
        reader_start(&rd, b, r);
        int64_t k = a->rowptr[r];
        int32_t col;
        for (int64_t at; reader_next(&rd, &col, &at); k++) {
            a->colidx[k] = col;
            if (a->val)
                a->val[k] = b->values[at];
        }
        a->rowptr[r + 1] = k;
    }
    *out = a;
    return TC_OK;
}

/* C = A*B from the blocks, row by row, summing the bitmap's nonzeros in
   increasing column as CSR SpMM does: the same result, an Inf or NaN of B
   included (the GPU kernel multiplies the padding too; see bcsr.h). */
static tc_status bcsr_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                               double *C, int64_t ldc, tc_error *err)
{
    const tc_bcsr *b = (const tc_bcsr *)m;
    tc_status st = tc_fmt_spmm_start(m, B, ldb, n, C, ldc, err);
    if (st != TC_OK)
        return st;
    for (int32_t r = 0; r < m->rows; r++) {
        double *crow = C + r * ldc;
        row_reader rd;
        reader_start(&rd, b, r);
        int32_t col;
        for (int64_t at; reader_next(&rd, &col, &at);) {
            double v = b->values ? b->values[at] : 1;
            const double *brow = B + (int64_t)col * ldb;
            for (int32_t j = 0; j < n; j++)
                crow[j] += v * brow[j];
        }
    }
    return TC_OK;
}

/* The GPU layout of SMaT's kernel: int64 rowPtr, int32 colIdx, and dense
   values in its precision, half for 16 x 16 (FP16) and float for 16 x 8
   (TF32), a pattern matrix's ones included; no bitmap. (kernels/bcsr.cu
   keeps half for both shapes and uploads the bitmap for its CUDA-core
   variant.) */
static int64_t bcsr_bytes(const tc_fmt *m)
{
    const tc_bcsr *b = (const tc_bcsr *)m;
    int64_t elem = b->w == 16 ? 2 : 4;
    return (b->nblockrows + 1) * 8 + b->nblocks * (4 + tc_bcsr_block_area(b) * elem);
}

/* ------------------------------------------------------------------ files */

static tc_status bcsr_write_h5(const tc_fmt *m, tc_h5grp *g, tc_error *err)
{
    const tc_bcsr *b = (const tc_bcsr *)m;
    tc_status st = tc_h5grp_put(g, "rowPtr", TC_I64, b->nblockrows + 1, b->rowPtr, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "colIdx", TC_I32, b->nblocks, b->colIdx, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "bitmap", TC_U64, b->nblocks * tc_bcsr_block_words(b), b->bitmap,
                          err);
    if (st == TC_OK && b->values)
        st = tc_h5grp_put(g, "values", TC_F64, b->nblocks * tc_bcsr_block_area(b), b->values,
                          err);
    return st;
}

/* Reads the arrays with the lengths the header and colIdx imply; their
   contents are checked by bcsr_validate. Every stored block holds a
   nonzero, so there are at most nnz blocks: that bounds the sizes of
   bitmap and values before they are computed. */
static tc_status read_arrays(tc_h5grp *g, tc_bcsr *b, tc_error *err)
{
    tc_status st = tc_h5grp_get_n(g, "rowPtr", TC_I64, b->nblockrows + 1, (void **)&b->rowPtr,
                                  err);
    if (st == TC_OK)
        st = tc_h5grp_get(g, "colIdx", TC_I32, &b->nblocks, (void **)&b->colIdx, 0, err);
    if (st != TC_OK)
        return st;
    if (b->nblocks > b->base.nnz)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s/colIdx: %" PRId64 " blocks, more than the %" PRId64
                            " nonzeros of the matrix (every stored block holds one)",
                            tc_h5grp_path(g), b->nblocks, b->base.nnz);
    st = tc_h5grp_get_n(g, "bitmap", TC_U64, b->nblocks * tc_bcsr_block_words(b),
                        (void **)&b->bitmap, err);
    if (st == TC_OK)
        st = tc_fmt_read_values(g, "values", b->nblocks * tc_bcsr_block_area(b),
                                b->base.has_values, &b->values, err);
    return st;
}

static tc_status bcsr_read_h5(tc_h5grp *g, const tc_fmt *hdr, tc_fmt **out, tc_error *err)
{
    tc_bcsr *b = calloc(1, sizeof *b);
    if (!b)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    b->base = *hdr;
    tc_status st = bcsr_shape(b, &hdr->params, tc_h5grp_path(g), TC_ERR_FORMAT, err);
    if (st == TC_OK)
        st = read_arrays(g, b, err);
    if (st != TC_OK) {
        bcsr_free(&b->base);
        return st;
    }
    *out = &b->base;
    return TC_OK;
}

/* ------------------------------------------------------------ validation */

/* rowPtr: from 0, non-decreasing, ending at the number of blocks. */
static tc_status check_row_ptr(const tc_bcsr *b, const char *what, tc_error *err)
{
    const int64_t *p = b->rowPtr;
    if (p[0] != 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s/rowPtr[0]: %" PRId64 ", expected 0", what,
                            p[0]);
    for (int64_t br = 0; br < b->nblockrows; br++)
        if (p[br + 1] < p[br] || p[br + 1] > b->nblocks)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/rowPtr[%" PRId64 "]: %" PRId64 " after %" PRId64
                                " (must not decrease, up to %" PRId64 ")", what, br + 1,
                                p[br + 1], p[br], b->nblocks);
    if (p[b->nblockrows] != b->nblocks)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/rowPtr[%" PRId64 "]: %" PRId64 ", expected %" PRId64
                            " (the number of blocks)", what, b->nblockrows, p[b->nblockrows],
                            b->nblocks);
    return TC_OK;
}

/* The bits of block blk, of block row br, that lie outside the matrix:
   rows past the last row, columns past the last column. */
static int64_t bits_outside(const tc_bcsr *b, int64_t br, int64_t blk)
{
    int64_t rows = b->base.rows - br * b->h, cols = b->base.cols - (int64_t)b->colIdx[blk] * b->w;
    uint32_t inside = cols >= b->w ? (1u << b->w) - 1 : (1u << cols) - 1;
    int64_t out = 0;
    for (int r = 0; r < b->h; r++)
        out += __builtin_popcount(row_bits(b, blk, r) & (r < rows ? ~inside : ~0u));
    return out;
}

/* Block blk of block row br: its block column in range and after the
   previous one of the row, at least one bit, no bit outside the matrix,
   padding values zero. Adds its bits to *bits. */
static tc_status check_block(const tc_bcsr *b, int64_t br, int64_t blk, int64_t *bits,
                             const char *what, tc_error *err)
{
    int32_t J = b->colIdx[blk];
    if (J < 0 || J >= block_cols(b))
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/colIdx[%" PRId64 "]: block column %d is out of range (%" PRId64
                            " block columns of %d)", what, blk, J, block_cols(b), b->w);
    if (blk > b->rowPtr[br] && J <= b->colIdx[blk - 1])
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/colIdx[%" PRId64 "]: block column %d after %d in block row %"
                            PRId64 " (must be strictly increasing)", what, blk, J,
                            b->colIdx[blk - 1], br);
    int64_t n = 0, words = tc_bcsr_block_words(b);
    for (int64_t k = 0; k < words; k++)
        n += __builtin_popcountll(b->bitmap[blk * words + k]);
    if (n == 0)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/bitmap: block %" PRId64 " has no nonzero (only nonzero blocks "
                            "are stored)", what, blk);
    if (bits_outside(b, br, blk))
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/bitmap: block %" PRId64 " (block row %" PRId64 ", block column "
                            "%d) has bits outside the %dx%d matrix", what, blk, br, J,
                            b->base.rows, b->base.cols);
    for (int64_t k = 0; b->values && k < tc_bcsr_block_area(b); k++) {
        int64_t at = blk * tc_bcsr_block_area(b) + k;
        if (!(b->bitmap[blk * words + (k >> 6)] >> (k & 63) & 1) && b->values[at] != 0)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/values[%" PRId64 "]: %g in padding (bit clear), expected 0",
                                what, at, b->values[at]);
    }
    *bits += n;
    return TC_OK;
}

static tc_status bcsr_validate(const tc_fmt *m, const tc_csr *a, const char *what,
                               tc_error *err)
{
    const tc_bcsr *b = (const tc_bcsr *)m;
    tc_status st = tc_fmt_check_values(m, b->values, "values", what, err);
    if (st == TC_OK)
        st = check_row_ptr(b, what, err);
    int64_t bits = 0;
    for (int64_t br = 0; st == TC_OK && br < b->nblockrows; br++)
        for (int64_t blk = b->rowPtr[br]; st == TC_OK && blk < b->rowPtr[br + 1]; blk++)
            st = check_block(b, br, blk, &bits, what, err);
    if (st == TC_OK && bits != m->nnz)
        st = tc_error_set(err, TC_ERR_INVALID,
                          "%s/bitmap: %" PRId64 " bits set, expected %" PRId64
                          " (the nonzeros of the matrix)", what, bits, m->nnz);
    return st == TC_OK && a ? tc_fmt_check_decodes(m, a, what, err) : st;
}

/* ------------------------------------------------------------- statistics */

/* The paper's figures (Fig. 3, the mip1 and dc2 discussion of Section
   VI-A): the block count against its lower bound ceil(nnz / (h*w)) (Eq. 2:
   every block full), blocks per block row (mean, standard deviation, over
   all block rows), and the fill ratio nnz / (blocks * h*w). */
static tc_status bcsr_stats(const tc_fmt *m, tc_report *r, const char *s, tc_error *err)
{
    const tc_bcsr *b = (const tc_bcsr *)m;
    int64_t area = tc_bcsr_block_area(b), empty = 0;
    double *per_row = tc_malloc_array(b->nblockrows, sizeof *per_row, err);
    if (!per_row)
        return TC_ERR_NOMEM;
    for (int64_t br = 0; br < b->nblockrows; br++) {
        per_row[br] = (double)(b->rowPtr[br + 1] - b->rowPtr[br]);
        empty += b->rowPtr[br + 1] == b->rowPtr[br];
    }
    tc_dist d;
    tc_dist_compute(&d, per_row, b->nblockrows);
    free(per_row);
    tc_status st = tc_report_int(r, s, "blocks", b->nblocks, "nonzero h x w blocks stored");
    if (!st)
        st = tc_report_int(r, s, "blocks_min", (m->nnz + area - 1) / area,
                           "fewest blocks the nonzeros could fill: ceil(nnz / (h*w)) (004 Eq. 2)");
    if (!st)
        st = tc_report_int(r, s, "block_rows", b->nblockrows, "block rows of h rows");
    if (!st)
        st = tc_report_int(r, s, "empty_block_rows", empty, "block rows without a block");
    if (!st)
        st = tc_report_num(r, s, "blocks_per_block_row_mean", d.mean,
                           "blocks per block row, mean over all block rows (004 Fig. 3)");
    if (!st)
        st = tc_report_num(r, s, "blocks_per_block_row_sd", d.sd,
                           "blocks per block row, standard deviation");
    if (!st)
        st = tc_report_int(r, s, "blocks_per_block_row_max", (int64_t)d.max,
                           "blocks in the fullest block row");
    if (!st)
        st = tc_report_num(r, s, "fill", b->nblocks ? (double)m->nnz / (double)(b->nblocks * area) : 0,
                           "nonzeros / (blocks * h*w): the share of stored entries that are nonzeros");
    return st;
}

/* Blocks aligned on the grid of w columns: each gathers all w rows of B. */
static void bcsr_window_shape(const tc_fmt *m, int32_t *window_rows, int32_t *col_unit)
{
    const tc_bcsr *b = (const tc_bcsr *)m;
    *window_rows = b->h;
    *col_unit = b->w;
}

const tc_format tc_format_bcsr = {
    .name = "bcsr",
    .description = "SMaT block CSR: dense zero-padded h x w blocks aligned on the block grid, "
                   "for FP16 (16x16) or TF32 (16x8) tensor cores",
    .params = bcsr_params,
    .nparams = NPARAMS,
    .canonical = 0,
    .build = bcsr_build,
    .to_csr = bcsr_to_csr,
    .spmm_ref = bcsr_spmm_ref,
    .bytes = bcsr_bytes,
    .write_h5 = bcsr_write_h5,
    .read_h5 = bcsr_read_h5,
    .validate = bcsr_validate,
    .stats = bcsr_stats,
    .nnz_part = NULL,
    .window_shape = bcsr_window_shape,
    .free = bcsr_free,
};
