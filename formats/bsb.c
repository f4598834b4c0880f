/*
 * bsb.c: the Binary Sparse Block format of Fused3S (seed 003, Section 3.1,
 * Fig. 1): 16-row windows, the all-zero columns of each window removed
 * (the rest compacted in ascending order), 16 x 8 TC blocks with a 128-bit
 * bitmap each; tro, sptd and bitmap as the paper names them. Binary by
 * default, with the matrix's values in bitmap order on request (values=1).
 * The layout is in bsb.h; the file layout and its invariants in
 * man/tcf.h5.5.
 *
 * The compaction of a window is a merge of its (at most 16) rows, which are
 * sorted runs of columns: at each step the smallest column among the rows'
 * heads is the window's next distinct column, and every head on it moves
 * on. That hands out the distinct columns in ascending order with their
 * place (rank), and the rows that hold each, with no sort, no scratch and
 * no column-sized array: O(16) per distinct column. The build runs it
 * twice per window (a count pass for tro, then a fill pass at the offsets
 * the prefix sums give), three times with values (their place in bitmap
 * order needs the finished bitmaps and the blocks' first values). Windows go to threads in
 * chunks in any order; each writes only its own slots, so the arrays do
 * not depend on the thread count.
 */
#include "config.h"
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bsb.h"
#include "fmtutil.h"
#include "threads.h"

extern const tc_format tc_format_bsb;

#define H TC_BSB_H_ROWS
#define W TC_BSB_W_COLS
#define DUMMY TC_BSB_DUMMY_COL

static const tc_param_def bsb_params[] = {
    { "values", "1: also store the matrix's values in bitmap order (for SpMM); 0: binary, "
                "the nonzero pattern only (attention masks, adjacency)", 0, 0, 1, 1 },
};
#define NPARAMS ((int)(sizeof bsb_params / sizeof bsb_params[0]))

static int64_t window_count(int32_t rows)
{
    return ((int64_t)rows + H - 1) / H;
}

/* The rows [*r0, *r1) of window w. */
static void window_rows(int32_t rows, int64_t w, int32_t *r0, int32_t *r1)
{
    int64_t end = (w + 1) * H;
    *r0 = (int32_t)(w * H);
    *r1 = end < rows ? (int32_t)end : rows;
}

/* Values are stored when asked for and the matrix has them (a pattern
   matrix's values are all 1: nothing to store). */
static int wants_values(const tc_fmt *hdr)
{
    return hdr->has_values && tc_params_get(&hdr->params, "values", 0) != 0;
}

static void bsb_free(tc_fmt *m)
{
    tc_bsb *x = (tc_bsb *)m;
    if (!x)
        return;
    free(x->tro);
    free(x->sptd);
    free(x->bitmap);
    free(x->values);
    free(x->value_offset);
    free(x);
}

/* ---------------------------------------------------------- compaction */

/* Called for each distinct column of a window, ascending: its place among
   them, the column, the window's rows holding it (bit r: local row r) and,
   for each of those rows, the index of that nonzero in the CSR arrays. */
typedef void column_fn(void *ctx, int64_t place, int32_t col, unsigned rows,
                       const int64_t k[H]);

/* Merges the rows [r0, r1) as described at the top; returns the number of
   distinct columns. fn may be NULL (counting only). */
static int64_t merge_window(const tc_csr *a, int32_t r0, int32_t r1, column_fn *fn, void *ctx)
{
    int lrow[H], n = 0;
    int64_t at[H], end[H], k[H];
    for (int32_t r = r0; r < r1; r++)
        if (a->rowptr[r] < a->rowptr[r + 1]) {
            lrow[n] = r - r0;
            at[n] = a->rowptr[r];
            end[n++] = a->rowptr[r + 1];
        }
    int64_t place = 0;
    for (; n > 0; place++) {
        int32_t col = a->colidx[at[0]];
        for (int i = 1; i < n; i++)
            col = a->colidx[at[i]] < col ? a->colidx[at[i]] : col;
        unsigned rows = 0;
        for (int i = 0; i < n;) {
            if (a->colidx[at[i]] != col) {
                i++;
                continue;
            }
            rows |= 1u << lrow[i];
            k[lrow[i]] = at[i];
            if (++at[i] < end[i]) {
                i++;
                continue;
            }
            /* row exhausted: the last head takes its slot */
            n--;
            lrow[i] = lrow[n];
            at[i] = at[n];
            end[i] = end[n];
        }
        if (fn)
            fn(ctx, place, col, rows, k);
    }
    return place;
}

/* Bit of entry (local row r, local column c) in its word (bsb.h). */
static inline int bit_of(int r, int c)
{
    return r % 8 * W + c;
}

/* Where fill_column and place_values write: the window's first block. */
typedef struct fill_ctx {
    tc_bsb *x;
    const tc_csr *a;
    int64_t b0;
} fill_ctx;

/* Column place p is local column p % 8 of block b0 + p / 8 (Section 3.1,
   step 3): names it in sptd and sets its rows' bits. */
static void fill_column(void *ctx, int64_t p, int32_t col, unsigned rows, const int64_t k[H])
{
    fill_ctx *f = ctx;
    uint64_t *words = f->x->bitmap + 2 * (f->b0 + p / W);
    f->x->sptd[f->b0 * W + p] = col;
    for (int r = 0; r < H; r++)
        if (rows >> r & 1)
            words[r / 8] |= UINT64_C(1) << bit_of(r, (int)(p % W));
}

/* The value of each nonzero at its place in bitmap order: its block's
   first value plus the bits before it (the whole first word for a row of
   the second). */
static void place_values(void *ctx, int64_t p, int32_t col, unsigned rows, const int64_t k[H])
{
    fill_ctx *f = ctx;
    int64_t b = f->b0 + p / W;
    const uint64_t *words = f->x->bitmap + 2 * b;
    for (int r = 0; r < H; r++) {
        if (!(rows >> r & 1))
            continue;
        uint64_t below = (UINT64_C(1) << bit_of(r, (int)(p % W))) - 1;
        int64_t at = f->x->value_offset[b] + (r >= 8 ? __builtin_popcountll(words[0]) : 0) +
                     __builtin_popcountll(words[r / 8] & below);
        f->x->values[at] = f->a->val[k[r]];
    }
}

/* Window w's blocks, from tro[w] on: every slot dummy and every bit clear
   first, so that the trailing slots of the last block stay dummies. */
static void fill_window(tc_bsb *x, const tc_csr *a, int64_t w)
{
    int32_t r0, r1;
    window_rows(a->rows, w, &r0, &r1);
    fill_ctx f = { x, a, x->tro[w] };
    int64_t nb = x->tro[w + 1] - f.b0;
    for (int64_t s = 0; s < nb * W; s++)
        x->sptd[f.b0 * W + s] = DUMMY;
    memset(x->bitmap + 2 * f.b0, 0, (size_t)(2 * nb) * sizeof *x->bitmap);
    merge_window(a, r0, r1, fill_column, &f);
}

/* Window w's values, once every bitmap and value_offset is written. */
static void fill_values(tc_bsb *x, const tc_csr *a, int64_t w)
{
    int32_t r0, r1;
    window_rows(a->rows, w, &r0, &r1);
    fill_ctx f = { x, a, x->tro[w] };
    merge_window(a, r0, r1, place_values, &f);
}

/* ------------------------------------------------------ build passes */

/* Windows are handed to threads in chunks of this many, in any order. */
#define CHUNK_WINDOWS 64
/* Below this many nonzeros a thread costs more than it saves. */
#define PARALLEL_MIN_NNZ (1 << 16)

enum pass_kind { COUNT, FILL, VALUES };

typedef struct pass {
    const tc_csr *a;
    enum pass_kind kind;
    tc_bsb *x;              /* FILL and VALUES write it */
    int64_t *tro;           /* COUNT writes each window's blocks at [w + 1] */
    int64_t windows, nchunks;
    _Atomic int64_t next;   /* the next chunk to take */
} pass;

static void *run_pass_worker(void *arg)
{
    pass *p = *(pass **)arg;
    for (;;) {
        int64_t c = atomic_fetch_add(&p->next, 1);
        if (c >= p->nchunks)
            return NULL;
        int64_t w1 = (c + 1) * CHUNK_WINDOWS < p->windows ? (c + 1) * CHUNK_WINDOWS : p->windows;
        for (int64_t w = c * CHUNK_WINDOWS; w < w1; w++) {
            int32_t r0, r1;
            window_rows(p->a->rows, w, &r0, &r1);
            if (p->kind == COUNT)
                p->tro[w + 1] = (merge_window(p->a, r0, r1, NULL, NULL) + W - 1) / W;
            else if (p->kind == FILL)
                fill_window(p->x, p->a, w);
            else
                fill_values(p->x, p->a, w);
        }
    }
}

/* Runs a pass over every window. */
static void run_pass(const tc_csr *a, enum pass_kind kind, tc_bsb *x, int64_t *tro)
{
    pass p = { .a = a, .kind = kind, .x = x, .tro = tro, .windows = window_count(a->rows) };
    p.nchunks = (p.windows + CHUNK_WINDOWS - 1) / CHUNK_WINDOWS;
    atomic_init(&p.next, 0);
    int64_t n = a->nnz < PARALLEL_MIN_NNZ ? 1 : tc_default_threads();
    n = n > TC_MAX_JOBS ? TC_MAX_JOBS : n > p.nchunks ? p.nchunks : n;
    n = n < 1 ? 1 : n;
    pass *jobs[TC_MAX_JOBS];
    for (int64_t i = 0; i < n; i++)
        jobs[i] = &p;
    tc_run_jobs(run_pass_worker, jobs, sizeof jobs[0], (int)n);
}

tc_status tc_bsb_count_tro(const tc_csr *a, int64_t *tro, tc_error *err)
{
    if (!a || !tro)
        return tc_error_set(err, TC_ERR_ARG, "bsb: no matrix or no tro array");
    run_pass(a, COUNT, NULL, tro);
    int64_t windows = window_count(a->rows);
    tro[0] = 0;
    for (int64_t w = 0; w < windows; w++)
        tro[w + 1] += tro[w];
    return TC_OK;
}

tc_status tc_bsb_window_order(const int64_t *tro, int64_t n, int64_t *order, tc_error *err)
{
    int64_t most = 0;
    for (int64_t w = 0; w < n; w++)
        most = tro[w + 1] - tro[w] > most ? tro[w + 1] - tro[w] : most;
    int64_t *next = tc_calloc_array(most + 1, sizeof *next, err);
    if (!next)
        return TC_ERR_NOMEM;
    for (int64_t w = 0; w < n; w++)
        next[tro[w + 1] - tro[w]]++;
    /* Exclusive prefix sum from the largest count down: next[t] is where
       the first window of t blocks goes. */
    for (int64_t t = most, at = 0; t >= 0; t--) {
        int64_t c = next[t];
        next[t] = at;
        at += c;
    }
    for (int64_t w = 0; w < n; w++)
        order[next[tro[w + 1] - tro[w]]++] = w;
    free(next);
    return TC_OK;
}

/* The blocks' prefix popcounts: offset[b] is block b's first nonzero in
   bsb order (nblocks + 1 entries). */
static void prefix_popcounts(const tc_bsb *x, int64_t *offset)
{
    offset[0] = 0;
    for (int64_t b = 0; b < x->nblocks; b++)
        offset[b + 1] = offset[b] + __builtin_popcountll(x->bitmap[2 * b]) +
                        __builtin_popcountll(x->bitmap[2 * b + 1]);
}

static tc_status derive_value_offset(tc_bsb *x, tc_error *err)
{
    x->value_offset = tc_malloc_array(x->nblocks + 1, sizeof *x->value_offset, err);
    if (!x->value_offset)
        return TC_ERR_NOMEM;
    prefix_popcounts(x, x->value_offset);
    return TC_OK;
}

static tc_status alloc_arrays(tc_bsb *x, tc_error *err)
{
    x->nblocks = x->tro[x->windows];
    x->sptd = tc_malloc_array(W * x->nblocks, sizeof *x->sptd, err);
    x->bitmap = tc_malloc_array(2 * x->nblocks, sizeof *x->bitmap, err);
    if (!x->sptd || !x->bitmap)
        return TC_ERR_NOMEM;
    if (wants_values(&x->base))
        x->values = tc_malloc_array(x->base.nnz, sizeof *x->values, err);
    return x->values || !wants_values(&x->base) ? TC_OK : TC_ERR_NOMEM;
}

static tc_status bsb_build(const tc_csr *a, const tc_params *p, tc_fmt **out, tc_error *err)
{
    tc_bsb *x = calloc(1, sizeof *x);
    if (!x)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_fmt_init(&x->base, &tc_format_bsb, a, p);
    x->windows = window_count(a->rows);
    x->tro = tc_malloc_array(x->windows + 1, sizeof *x->tro, err);
    tc_status st = x->tro ? tc_bsb_count_tro(a, x->tro, err) : TC_ERR_NOMEM;
    if (st == TC_OK)
        st = alloc_arrays(x, err);
    if (st == TC_OK)
        run_pass(a, FILL, x, NULL);
    /* The values' places need every block's first value (a prefix over
       all blocks), so they are a pass of their own. */
    if (st == TC_OK && x->values)
        st = derive_value_offset(x, err);
    if (st == TC_OK && x->values)
        run_pass(a, VALUES, x, NULL);
    if (st != TC_OK) {
        bsb_free(&x->base);
        return tc_error_set(err, st, "bsb: out of memory");
    }
    *out = &x->base;
    return TC_OK;
}

/* ------------------------------------------------------------ decoding */

/* Called for every nonzero in CSR order: row by row, each row's columns
   ascending; k is its place in values (-1 when binary). */
typedef void nz_fn(void *ctx, int64_t row, int32_t col, int64_t k);

/* Row r of window w takes, block after block, the bits of its byte of the
   block's word: the columns come out ascending because sptd ascends across
   a window's blocks (checked by validate), so the nonzeros are visited in
   CSR order. k is the nonzero's place in bsb order (block after block,
   ascending bit) from offset, the blocks' prefix popcounts; -1 when offset
   is NULL. */
static void visit_nonzeros(const tc_bsb *x, const int64_t *offset, nz_fn *fn, void *ctx)
{
    for (int64_t w = 0; w < x->windows; w++) {
        int32_t r0, r1;
        window_rows(x->base.rows, w, &r0, &r1);
        for (int r = 0; r < r1 - r0; r++)
            for (int64_t b = x->tro[w]; b < x->tro[w + 1]; b++) {
                uint64_t word = x->bitmap[2 * b + r / 8];
                int shift = bit_of(r, 0);
                int64_t k = offset ? offset[b] +
                                         (r >= 8 ? __builtin_popcountll(x->bitmap[2 * b]) : 0) +
                                         __builtin_popcountll(word & ((UINT64_C(1) << shift) - 1))
                                   : -1;
                for (unsigned bits = (unsigned)(word >> shift & 0xff); bits; bits &= bits - 1)
                    fn(ctx, r0 + r, x->sptd[b * W + __builtin_ctz(bits)], offset ? k++ : -1);
            }
    }
}

typedef struct index_ctx {
    int64_t *to_csr;
    int64_t at;
} index_ctx;

static void index_one(void *ctx, int64_t row, int32_t col, int64_t k)
{
    (void)row;
    (void)col;
    index_ctx *c = ctx;
    c->to_csr[k] = c->at++;
}

void tc_bsb_value_index(const tc_bsb *x, int64_t *offset, int64_t *to_csr)
{
    prefix_popcounts(x, offset);
    if (!to_csr)
        return;
    index_ctx c = { to_csr, 0 };
    visit_nonzeros(x, offset, index_one, &c);
}

/* The bits set in all blocks. */
static int64_t bits_set(const tc_bsb *x)
{
    int64_t n = 0;
    for (int64_t i = 0; i < 2 * x->nblocks; i++)
        n += __builtin_popcountll(x->bitmap[i]);
    return n;
}

typedef struct decode_ctx {
    tc_csr *a;
    const double *values;
    int64_t at;
} decode_ctx;

static void decode_one(void *ctx, int64_t row, int32_t col, int64_t k)
{
    decode_ctx *d = ctx;
    d->a->colidx[d->at] = col;
    if (d->values)
        d->a->val[d->at] = d->values[k];
    d->a->rowptr[row + 1] = ++d->at;
}

/* Exact decode: the matrix with its values, or its pattern when binary
   (every value 1). Rows are written in order; rowptr of an empty row is
   carried forward from the row before. */
static tc_status bsb_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    const tc_bsb *x = (const tc_bsb *)m;
    int64_t bits = bits_set(x);
    if (bits != m->nnz)
        return tc_error_set(err, TC_ERR_INVALID, "bsb: %" PRId64 " bits set, expected %" PRId64
                            " (the nonzeros of the matrix)", bits, m->nnz);
    tc_csr *a;
    tc_status st = tc_csr_alloc(&a, m->rows, m->cols, m->nnz, x->values != NULL, err);
    if (st != TC_OK)
        return st;
    decode_ctx d = { a, x->values, 0 };
    visit_nonzeros(x, x->value_offset, decode_one, &d);
    for (int32_t r = 0; r < a->rows; r++)
        a->rowptr[r + 1] = a->rowptr[r + 1] > a->rowptr[r] ? a->rowptr[r + 1] : a->rowptr[r];
    *out = a;
    return TC_OK;
}

/* C = A*B from the blocks: each set bit multiplies the B row its sptd
   names (1 when binary, its value otherwise). Dummy slots have no bit, so
   they never read B. */
static tc_status bsb_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                              double *C, int64_t ldc, tc_error *err)
{
    const tc_bsb *x = (const tc_bsb *)m;
    tc_status st = tc_fmt_spmm_start(m, B, ldb, n, C, ldc, err);
    if (st != TC_OK)
        return st;
    tc_spmm_step p = { B, x->values, ldb, ldc, n, C };
    visit_nonzeros(x, x->value_offset, tc_spmm_step_one, &p);
    return TC_OK;
}

/* The GPU layout: int64 tro, 8 int32 sptd entries and two uint64 bitmap
   words per block; with values, float32 values and an int64 value offset
   per block (as rstile's are counted). */
static int64_t bsb_bytes(const tc_fmt *m)
{
    const tc_bsb *x = (const tc_bsb *)m;
    int64_t bytes = (x->windows + 1) * 8 + x->nblocks * (W * 4 + 2 * 8);
    return x->values ? bytes + m->nnz * 4 + (x->nblocks + 1) * 8 : bytes;
}

/* ------------------------------------------------------------------ files */

static tc_status bsb_write_h5(const tc_fmt *m, tc_h5grp *g, tc_error *err)
{
    const tc_bsb *x = (const tc_bsb *)m;
    tc_status st = tc_h5grp_put(g, "tro", TC_I64, x->windows + 1, x->tro, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "sptd", TC_I32, W * x->nblocks, x->sptd, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "bitmap", TC_U64, 2 * x->nblocks, x->bitmap, err);
    if (st == TC_OK && x->values)
        st = tc_h5grp_put(g, "values", TC_F64, m->nnz, x->values, err);
    return st;
}

/* values: nnz entries exactly when the format stores them, absent
   otherwise. */
static tc_status read_values(tc_h5grp *g, tc_bsb *x, tc_error *err)
{
    if (wants_values(&x->base)) {
        tc_status st = tc_h5grp_get_n(g, "values", TC_F64, x->base.nnz, (void **)&x->values, err);
        return st == TC_OK ? derive_value_offset(x, err) : st;
    }
    if (tc_h5grp_has(g, "values"))
        return tc_error_set(err, TC_ERR_FORMAT, "%s/values: present, but the format is binary "
                            "(values=%g, has_values %d)", tc_h5grp_path(g),
                            tc_params_get(&x->base.params, "values", 0), x->base.has_values);
    return TC_OK;
}

/* tro of the length the header implies, its last entry (the block count)
   bounded by the nonzeros before anything is allocated from it, then the
   arrays of that many blocks; contents are checked by bsb_validate. */
static tc_status bsb_read_h5(tc_h5grp *g, const tc_fmt *hdr, tc_fmt **out, tc_error *err)
{
    tc_bsb *x = calloc(1, sizeof *x);
    if (!x)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    x->base = *hdr;
    x->windows = window_count(hdr->rows);
    tc_status st = tc_h5grp_get_n(g, "tro", TC_I64, x->windows + 1, (void **)&x->tro, err);
    if (st == TC_OK) {
        x->nblocks = x->tro[x->windows];
        if (x->nblocks < 0 || x->nblocks > hdr->nnz)
            st = tc_error_set(err, TC_ERR_FORMAT, "%s/tro[%" PRId64 "]: %" PRId64 " blocks, "
                              "expected 0 to %" PRId64 " (at most one per nonzero)",
                              tc_h5grp_path(g), x->windows, x->nblocks, hdr->nnz);
    }
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "sptd", TC_I32, W * x->nblocks, (void **)&x->sptd, err);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "bitmap", TC_U64, 2 * x->nblocks, (void **)&x->bitmap, err);
    if (st == TC_OK)
        st = read_values(g, x, err);
    if (st != TC_OK) {
        bsb_free(&x->base);
        return st;
    }
    *out = &x->base;
    return TC_OK;
}

/* ------------------------------------------------------------ validation */

static tc_status check_values(const tc_bsb *x, const char *what, tc_error *err)
{
    int want = wants_values(&x->base);
    if ((x->values != NULL) == want)
        return TC_OK;
    return tc_error_set(err, TC_ERR_INVALID, "%s/values: %s, but values=%g and has_values is %d",
                        what, x->values ? "present" : "absent",
                        tc_params_get(&x->base.params, "values", 0), x->base.has_values);
}

static tc_status check_tro(const tc_bsb *x, const char *what, tc_error *err)
{
    if (x->tro[0] != 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s/tro[0]: %" PRId64 ", expected 0", what,
                            x->tro[0]);
    for (int64_t w = 0; w < x->windows; w++)
        if (x->tro[w + 1] < x->tro[w])
            return tc_error_set(err, TC_ERR_INVALID, "%s/tro[%" PRId64 "]: %" PRId64 " after %"
                                PRId64 " (must not decrease)", what, w + 1, x->tro[w + 1],
                                x->tro[w]);
    if (x->tro[x->windows] != x->nblocks)
        return tc_error_set(err, TC_ERR_INVALID, "%s/tro[%" PRId64 "]: %" PRId64 ", expected %"
                            PRId64 " (the number of blocks)", what, x->windows,
                            x->tro[x->windows], x->nblocks);
    return TC_OK;
}

/* The bits of local column c of block b, both words folded into one byte
   per row pair (0 when the column has no nonzero). */
static uint64_t column_bits(const tc_bsb *x, int64_t b, int c)
{
    return (x->bitmap[2 * b] | x->bitmap[2 * b + 1]) & (UINT64_C(0x0101010101010101) << c);
}

/* Slot s (0 .. 8t-1) of window w, which has t blocks from b0 on: a column
   in range, above the window's previous one (*prev, INT64_MAX after a
   dummy), with a bit; or a dummy, only in the last block's slots 1-7,
   without a bit. */
static tc_status check_slot(const tc_bsb *x, int64_t w, int64_t s, int64_t *prev,
                            const char *what, tc_error *err)
{
    int64_t b0 = x->tro[w], last = 8 * (x->tro[w + 1] - b0), at = b0 * W + s;
    int32_t col = x->sptd[at];
    uint64_t bits = column_bits(x, b0 + s / W, (int)(s % W));
    if (col == DUMMY && s <= last - W)
        return tc_error_set(err, TC_ERR_INVALID, "%s/sptd[%" PRId64 "]: the dummy column %d "
                            "outside slots 1-7 of window %" PRId64 "'s last block", what, at,
                            DUMMY, w);
    if (col == DUMMY && bits)
        return tc_error_set(err, TC_ERR_INVALID, "%s/bitmap: block %" PRId64 " has a nonzero "
                            "in its dummy column %d", what, b0 + s / W, (int)(s % W));
    if (col == DUMMY) {
        *prev = INT64_MAX;
        return TC_OK;
    }
    if (col < 0 || col >= x->base.cols)
        return tc_error_set(err, TC_ERR_INVALID, "%s/sptd[%" PRId64 "]: column %d is out of "
                            "range (%d columns)", what, at, col, x->base.cols);
    if (*prev == INT64_MAX)
        return tc_error_set(err, TC_ERR_INVALID, "%s/sptd[%" PRId64 "]: column %d after a "
                            "dummy in window %" PRId64 " (dummies come last)", what, at, col, w);
    if (col <= *prev)
        return tc_error_set(err, TC_ERR_INVALID, "%s/sptd[%" PRId64 "]: column %d after column %"
                            PRId64 " in window %" PRId64 " (must be strictly ascending)", what,
                            at, col, *prev, w);
    if (!bits)
        return tc_error_set(err, TC_ERR_INVALID, "%s/bitmap: block %" PRId64 " has no nonzero "
                            "in column %d (local column %d)", what, b0 + s / W, col,
                            (int)(s % W));
    *prev = col;
    return TC_OK;
}

/* Window w: its slots, and no bit in a row past the matrix. */
static tc_status check_window(const tc_bsb *x, int64_t w, const char *what, tc_error *err)
{
    int64_t prev = -1, nslots = W * (x->tro[w + 1] - x->tro[w]);
    for (int64_t s = 0; s < nslots; s++) {
        tc_status st = check_slot(x, w, s, &prev, what, err);
        if (st != TC_OK)
            return st;
    }
    int32_t r0, r1;
    window_rows(x->base.rows, w, &r0, &r1);
    for (int64_t b = x->tro[w]; b < x->tro[w + 1] && r1 - r0 < H; b++) {
        int inside = r1 - r0;
        uint64_t outside = inside >= 8 ? x->bitmap[2 * b + 1] >> bit_of(inside, 0)
                                       : x->bitmap[2 * b] >> bit_of(inside, 0) | x->bitmap[2 * b + 1];
        if (outside)
            return tc_error_set(err, TC_ERR_INVALID, "%s/bitmap: block %" PRId64 " has bits in "
                                "rows past the %d rows of the matrix", what, b, x->base.rows);
    }
    return TC_OK;
}

static tc_status bsb_validate(const tc_fmt *m, const tc_csr *a, const char *what, tc_error *err)
{
    const tc_bsb *x = (const tc_bsb *)m;
    tc_status st = check_values(x, what, err);
    if (st == TC_OK)
        st = check_tro(x, what, err);
    for (int64_t w = 0; st == TC_OK && w < x->windows; w++)
        st = check_window(x, w, what, err);
    int64_t bits = st == TC_OK ? bits_set(x) : 0;
    if (st == TC_OK && bits != m->nnz)
        st = tc_error_set(err, TC_ERR_INVALID, "%s/bitmap: %" PRId64 " bits set, expected %"
                          PRId64 " (the nonzeros of the matrix)", what, bits, m->nnz);
    if (st != TC_OK || !a || x->values)
        return st == TC_OK && a ? tc_fmt_check_decodes(m, a, what, err) : st;
    /* Binary: it decodes to the pattern of /matrix, so both are compared
       as patterns. */
    tc_csr pattern = *a;
    tc_bsb binary = *x;
    pattern.val = NULL;
    binary.base.has_values = 0;
    return tc_fmt_check_decodes(&binary.base, &pattern, what, err);
}

/* ------------------------------------------------------------- statistics */

/* Table 3 (003): BSB takes 32 (N / r + b c) + b r c bits (32-bit tro
   and sptd, the bitmap), CSR 32 (N + 2 z) (32-bit row pointers, column
   indices and values); with our int64 tro and optional values, `bytes`
   differs a little, so the paper's own formula is reported beside it. */
static tc_status bsb_stats(const tc_fmt *m, tc_report *r, const char *s, tc_error *err)
{
    const tc_bsb *x = (const tc_bsb *)m;
    int64_t empty = 0, most = 0, dummies = 0;
    for (int64_t w = 0; w < x->windows; w++) {
        int64_t t = x->tro[w + 1] - x->tro[w];
        empty += t == 0;
        most = t > most ? t : most;
    }
    for (int64_t i = 0; i < W * x->nblocks; i++)
        dummies += x->sptd[i] == DUMMY;
    int64_t paper = 4 * x->windows + x->nblocks * (W * 4 + H * W / 8);
    int64_t paper_csr = 4 * ((int64_t)m->rows + 2 * m->nnz);
    const tc_fmt_figure f[] = {
        { "values", "1: values stored in bitmap order; 0: binary", 1, x->values != NULL, 0 },
        { "windows", "row windows of 16 rows", 1, x->windows, 0 },
        { "empty_windows", "row windows without nonzeros", 1, empty, 0 },
        { "blocks", "TC blocks (TCB) of 16x8 after per-window column compaction", 1,
          x->nblocks, 0 },
        { "tcb_per_window_max", "most TC blocks of a row window", 1, most, 0 },
        { "tcb_per_window_mean", "mean TC blocks per non-empty row window (003 Table 6)", 0, 0,
          tc_fmt_ratio(x->nblocks, x->windows - empty) },
        { "nnz_per_tcb", "mean nonzeros per TC block (003 Table 6)", 0, 0,
          tc_fmt_ratio(m->nnz, x->nblocks) },
        { "fill", "nnz / (blocks * 128)", 0, 0, tc_fmt_ratio(m->nnz, x->nblocks * H * W) },
        { "dummy_columns", "padding slots of the windows' last blocks (sptd -1)", 1, dummies, 0 },
        { "table3_bytes", "bytes by 003 Table 3's formula: 32-bit tro and sptd, 128-bit bitmaps",
          1, paper, 0 },
        { "table3_vs_csr", "table3_bytes relative to Table 3's CSR, 32 (N + 2 nnz) bits", 0, 0,
          tc_fmt_ratio(paper, paper_csr) },
    };
    tc_status st = tc_fmt_report_figures(r, s, f, sizeof f / sizeof f[0]);
    if (st != TC_OK)
        return tc_error_set(err, st, "out of memory");
    return TC_OK;
}

/* 16-row windows of compacted columns: each column one row of B. */
static void bsb_window_shape(const tc_fmt *m, int32_t *window_rows, int32_t *col_unit)
{
    (void)m;
    *window_rows = TC_BSB_H_ROWS;
    *col_unit = 1;
}

const tc_format tc_format_bsb = {
    .name = "bsb",
    .description = "Fused3S Binary Sparse Block: compacted 16-row windows in 16x8 TC blocks "
                   "of 128-bit bitmaps (tro, sptd, bitmap); binary unless values=1",
    .params = bsb_params,
    .nparams = NPARAMS,
    .canonical = 0,
    .build = bsb_build,
    .to_csr = bsb_to_csr,
    .spmm_ref = bsb_spmm_ref,
    .bytes = bsb_bytes,
    .write_h5 = bsb_write_h5,
    .read_h5 = bsb_read_h5,
    .validate = bsb_validate,
    .stats = bsb_stats,
    .nnz_part = NULL,
    .window_shape = bsb_window_shape,
    .free = bsb_free,
};
