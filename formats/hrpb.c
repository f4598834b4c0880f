/*
 * hrpb.c: the HRPB format of cuTeSpMM (seed 002, Section 3.2, Figs. 3-5):
 * row panels of TM rows, each panel's active columns compacted to the left
 * and cut into blocks of TK, blocks stored as their active 16 x 4 bricks
 * (a 64-bit pattern each, values in CSC brick order, row-major inside a
 * brick), packed block after block into one byte stream that sizePtr
 * indexes. The layout is in hrpb.h; the file layout and its invariants in
 * man/tcf.h5.5.
 *
 * Where the paper is silent or differs from us:
 * - its blockedRowPtr, activeCols and sizePtr are uint; ours are int64
 *   (offsets grow with the problem) and int32 (columns), and a block's
 *   colPtr and rows are uint8 (a block has at most (TM/16)*(TK/4) = 32
 *   bricks);
 * - Fig. 4 names the fields of a block but not their order in the packed
 *   stream: we put colPtr and rows first (their size is known from TK and
 *   colPtr's last entry), then the patterns 8-byte aligned, then the
 *   values, and round each block up to 16 bytes so that a kernel may load
 *   it with 16-byte copies;
 * - the padding slots of a panel's last block in activeCols are -1 (the
 *   paper does not say), so no padding reads a real row of B;
 * - values are float32 in the stream (the kernel's TF32 input) and also
 *   kept as float64 in `values`, with per-block offsets valuePtr, so that
 *   the format decodes exactly.
 *
 * The build: the panels are independent once their places in the arrays
 * are known, so it is a count pass (each panel's blocks and stream bytes),
 * prefix sums over the panels, and a fill pass, both passes over the
 * panels on threads (synergy.h's tc_panels_run). A panel's value offset is
 * its first row's CSR offset: its blocks hold exactly its nonzeros. The
 * compaction merges the panel's rows (synergy.h): no K-sized scratch.
 */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fmtutil.h"
#include "hrpb.h"

extern const tc_format tc_format_hrpb;

#define DUMMY TC_HRPB_DUMMY_COL
/* Bits of a brick pattern in local column c: bit r*4 + c of every row. */
#define COLUMN_BITS(c) (UINT64_C(0x1111111111111111) << (c))

static const tc_param_def hrpb_params[] = {
    { "TM", "row panel height: 16 or 32 rows (bricks of 16 rows, the m of mma.m16n8k4)",
      16, 16, 32, 1 },
    { "TK", "block width in compacted columns: a multiple of 4 (bricks of 4 columns, the k "
            "of mma.m16n8k4)", 16, 4, 64, 1 },
};
#define NPARAMS ((int)(sizeof hrpb_params / sizeof hrpb_params[0]))

/* TM and TK from a complete parameter set; refused with status `bad`
   unless whole bricks. */
static tc_status hrpb_shape(tc_hrpb *h, const tc_params *p, const char *who, tc_status bad,
                            tc_error *err)
{
    h->tm = (int)tc_params_get(p, "TM", 16);
    h->tk = (int)tc_params_get(p, "TK", 16);
    h->npanels = tc_panel_count(h->base.rows, h->tm);
    return tc_panel_shape_check(h->tm, h->tk, who, bad, err);
}

static int strips_of(const tc_hrpb *h)
{
    return h->tk / TC_BRICK_K;
}

/* The most bricks of a block. */
static int max_bricks(const tc_hrpb *h)
{
    return h->tm / TC_BRICK_M * strips_of(h);
}

static void hrpb_free(tc_fmt *m)
{
    tc_hrpb *h = (tc_hrpb *)m;
    if (!h)
        return;
    free(h->blockedRowPtr);
    free(h->activeCols);
    free(h->sizePtr);
    free(h->packedBlocks);
    free(h->valuePtr);
    free(h->values);
    free(h);
}

/* Loads from the byte stream (no alignment or aliasing assumed). */
static uint64_t load_u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static float load_f32(const uint8_t *p)
{
    float v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The rank of `bit` among the set bits of pattern: where its value is. */
static int bit_rank(uint64_t pattern, int bit)
{
    return __builtin_popcountll(pattern & ((UINT64_C(1) << bit) - 1));
}

/* ---------------------------------------------------------------- build */

/* A block's active bricks in CSC order (hrpb.h), as the stream holds
   them, and where each brick's values start among the block's. */
typedef struct brick_list {
    int nb, nz;
    uint8_t colPtr[TC_PANEL_MAX_STRIPS + 1];
    uint8_t rows[TC_PANEL_MAX_BRICK_ROWS * TC_PANEL_MAX_STRIPS];
    uint64_t patterns[TC_PANEL_MAX_BRICK_ROWS * TC_PANEL_MAX_STRIPS];
    int first[TC_PANEL_MAX_BRICK_ROWS][TC_PANEL_MAX_STRIPS];
} brick_list;

static void list_bricks(const tc_hrpb *h, const tc_panel_block *pb, brick_list *l)
{
    l->nb = l->nz = 0;
    for (int bc = 0; bc < strips_of(h); bc++) {
        l->colPtr[bc] = (uint8_t)l->nb;
        for (int br = 0; br < h->tm / TC_BRICK_M; br++) {
            uint64_t pat = pb->pattern[br][bc];
            if (!pat)
                continue;
            l->rows[l->nb] = (uint8_t)br;
            l->patterns[l->nb++] = pat;
            l->first[br][bc] = l->nz;
            l->nz += __builtin_popcountll(pat);
        }
    }
    l->colPtr[strips_of(h)] = (uint8_t)l->nb;
}

typedef struct build_ctx {
    const tc_csr *a;
    tc_hrpb *h;
    int fill;           /* 0: count each panel's blocks into blockedRowPtr[p + 1]
                           and its bytes into panel_at[p + 1]; 1: write them
                           from blockedRowPtr[p] and panel_at[p] on */
    int64_t *panel_at;  /* npanels + 1: the panels' first bytes, once summed */
} build_ctx;

/* Writes block b at byte `at` of the stream, its values from v0 on: the
   metadata and patterns of l, each nonzero's value at its brick's first
   value plus its bit's rank (hrpb.h), its compacted columns. */
static void write_block(const build_ctx *c, const tc_panel_block *pb, const brick_list *l,
                        int64_t b, int64_t at, int64_t v0)
{
    tc_hrpb *h = c->h;
    int strips = strips_of(h);
    uint8_t *blk = h->packedBlocks + at;
    int64_t va = tc_hrpb_values_at(h->tk, l->nb);
    memset(blk, 0, (size_t)tc_hrpb_block_bytes(h->tk, l->nb, l->nz));
    memcpy(blk, l->colPtr, (size_t)strips + 1);
    memcpy(blk + strips + 1, l->rows, (size_t)l->nb);
    memcpy(blk + tc_hrpb_patterns_at(h->tk, l->nb), l->patterns, (size_t)l->nb * 8);
    for (int i = 0; i < pb->n; i++) {
        int r = pb->place[i] / h->tk, j = pb->place[i] % h->tk;
        int br = r / TC_BRICK_M, bc = j / TC_BRICK_K;
        int bit = r % TC_BRICK_M * TC_BRICK_K + j % TC_BRICK_K;
        int64_t idx = l->first[br][bc] + bit_rank(pb->pattern[br][bc], bit);
        double v = c->a->val ? c->a->val[pb->k[i]] : 1;
        float f = (float)v;
        memcpy(blk + va + 4 * idx, &f, sizeof f);
        if (h->values)
            h->values[v0 + idx] = v;
    }
    for (int j = 0; j < h->tk; j++)
        h->activeCols[b * h->tk + j] = j < pb->ncols ? pb->col[j] : DUMMY;
    h->sizePtr[b] = at;
    h->valuePtr[b] = v0;
}

/* Counts or writes panel p (see build_ctx). */
static void build_panel(void *ctx, int worker, int64_t p)
{
    build_ctx *c = ctx;
    tc_hrpb *h = c->h;
    tc_panel it;
    tc_panel_block pb;
    brick_list l;
    int64_t row0 = p * h->tm;
    int64_t b = c->fill ? h->blockedRowPtr[p] : 0, at = c->fill ? c->panel_at[p] : 0;
    int64_t v = c->a->rowptr[row0];
    tc_panel_start(&it, c->a, h->tm, h->tk, p);
    for (; tc_panel_next_block(&it, &pb); b++) {
        list_bricks(h, &pb, &l);
        if (c->fill)
            write_block(c, &pb, &l, b, at, v);
        at += tc_hrpb_block_bytes(h->tk, l.nb, l.nz);
        v += l.nz;
    }
    if (!c->fill) {
        h->blockedRowPtr[p + 1] = b;
        c->panel_at[p + 1] = at;
    }
}

static void prefix_sum(int64_t *x, int64_t n)
{
    x[0] = 0;
    for (int64_t i = 0; i < n; i++)
        x[i + 1] += x[i];
}

static tc_status alloc_blocks(tc_hrpb *h, int64_t bytes, tc_error *err)
{
    int64_t cols;
    if (tc_mul_overflows(h->nblocks, h->tk, &cols))
        return TC_ERR_NOMEM;
    h->activeCols = tc_malloc_array(cols, sizeof *h->activeCols, err);
    h->sizePtr = tc_malloc_array(h->nblocks + 1, sizeof *h->sizePtr, err);
    h->packedBlocks = tc_malloc_array(bytes, sizeof *h->packedBlocks, err);
    h->valuePtr = tc_malloc_array(h->nblocks + 1, sizeof *h->valuePtr, err);
    if (h->base.has_values)
        h->values = tc_malloc_array(h->base.nnz, sizeof *h->values, err);
    if (!h->activeCols || !h->sizePtr || !h->packedBlocks || !h->valuePtr ||
        (h->base.has_values && !h->values))
        return TC_ERR_NOMEM;
    h->sizePtr[h->nblocks] = bytes;
    h->valuePtr[h->nblocks] = h->base.nnz;
    return TC_OK;
}

/* Count pass, prefix sums over the panels, allocation, fill pass. */
static tc_status build_arrays(const tc_csr *a, tc_hrpb *h, tc_error *err)
{
    build_ctx c = { .a = a, .h = h };
    h->blockedRowPtr = tc_malloc_array(h->npanels + 1, sizeof *h->blockedRowPtr, err);
    c.panel_at = tc_malloc_array(h->npanels + 1, sizeof *c.panel_at, err);
    tc_status st = h->blockedRowPtr && c.panel_at ? TC_OK : TC_ERR_NOMEM;
    if (st == TC_OK) {
        tc_panels_run(a, h->tm, build_panel, &c);
        prefix_sum(h->blockedRowPtr, h->npanels);
        prefix_sum(c.panel_at, h->npanels);
        h->nblocks = h->blockedRowPtr[h->npanels];
        st = alloc_blocks(h, c.panel_at[h->npanels], err);
    }
    if (st == TC_OK) {
        c.fill = 1;
        tc_panels_run(a, h->tm, build_panel, &c);
    }
    free(c.panel_at);
    return st;
}

static tc_status hrpb_build(const tc_csr *a, const tc_params *p, tc_fmt **out, tc_error *err)
{
    tc_hrpb *h = calloc(1, sizeof *h);
    if (!h)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_fmt_init(&h->base, &tc_format_hrpb, a, p);
    tc_status st = hrpb_shape(h, &h->base.params, "hrpb", TC_ERR_ARG, err);
    if (st == TC_OK)
        st = build_arrays(a, h, err);
    if (st != TC_OK) {
        hrpb_free(&h->base);
        return st == TC_ERR_NOMEM ? tc_error_set(err, st, "hrpb: out of memory") : st;
    }
    *out = &h->base;
    return TC_OK;
}

/* ------------------------------------------------------------ decoding */

/* Block b as its packed bytes say (hrpb.h). */
typedef struct block_view {
    const uint8_t *colPtr;      /* strips + 1 */
    const uint8_t *rows;        /* nb */
    const uint8_t *patterns;    /* nb little-endian uint64 */
    const uint8_t *values;      /* float32 */
    int nb;
} block_view;

static block_view view_block(const tc_hrpb *h, int64_t b)
{
    const uint8_t *blk = h->packedBlocks + h->sizePtr[b];
    int nb = blk[strips_of(h)];
    return (block_view){ blk, blk + strips_of(h) + 1, blk + tc_hrpb_patterns_at(h->tk, nb),
                         blk + tc_hrpb_values_at(h->tk, nb), nb };
}

/* A brick's block b and brick column bc: where its columns are named. */
typedef struct brick_at {
    int64_t b;
    int bc;
} brick_at;

/* Calls fn(ctx, at, first row of the brick, pattern, its first value's
   index in values) for every brick, block after block: the order of the
   values. */
typedef void brick_fn(void *ctx, const brick_at *at, int64_t row0, uint64_t pattern, int64_t k);
static void for_each_brick(const tc_hrpb *h, brick_fn *fn, void *ctx)
{
    for (int64_t p = 0; p < h->npanels; p++)
        for (int64_t b = h->blockedRowPtr[p]; b < h->blockedRowPtr[p + 1]; b++) {
            block_view v = view_block(h, b);
            int64_t k = h->valuePtr[b];
            for (int bc = 0; bc < strips_of(h); bc++)
                for (int j = v.colPtr[bc]; j < v.colPtr[bc + 1]; j++) {
                    uint64_t pat = load_u64(v.patterns + 8 * j);
                    brick_at at = { b, bc };
                    fn(ctx, &at, p * h->tm + TC_BRICK_M * v.rows[j], pat, k);
                    k += __builtin_popcountll(pat);
                }
        }
}

/* The matrix column of local column c of the brick at `at`. */
static int32_t brick_col(const tc_hrpb *h, const brick_at *at, int c)
{
    return h->activeCols[at->b * h->tk + at->bc * TC_BRICK_K + c];
}

typedef struct decode_ctx {
    const tc_hrpb *h;
    tc_csr *a;
    int64_t *next;      /* where each row's next nonzero goes */
} decode_ctx;

static void count_brick(void *ctx, const brick_at *at, int64_t row0, uint64_t pattern, int64_t k)
{
    int64_t *count = ctx;
    for (; pattern; pattern &= pattern - 1)
        count[row0 + __builtin_ctzll(pattern) / TC_BRICK_K]++;
}

/* A brick's nonzeros go to the ends of their rows: bricks come in
   increasing column for any one row (blocks in column order, brick
   columns in order, one brick a row in a brick column), so rows fill in
   column order. */
static void decode_brick(void *ctx, const brick_at *at, int64_t row0, uint64_t pattern, int64_t k)
{
    decode_ctx *d = ctx;
    for (; pattern; pattern &= pattern - 1, k++) {
        int bit = __builtin_ctzll(pattern);
        int64_t to = d->next[row0 + bit / TC_BRICK_K]++;
        d->a->colidx[to] = brick_col(d->h, at, bit % TC_BRICK_K);
        if (d->a->val)
            d->a->val[to] = d->h->values[k];
    }
}

/* Exact decode, relying on what validate checks (columns ascending along
   a panel, bits inside the matrix). */
static tc_status hrpb_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    const tc_hrpb *h = (const tc_hrpb *)m;
    tc_csr *a;
    tc_status st = tc_csr_alloc(&a, m->rows, m->cols, m->nnz, m->has_values, err);
    if (st != TC_OK)
        return st;
    for_each_brick(h, count_brick, a->rowptr + 1);
    for (int32_t r = 0; r < a->rows; r++)
        a->rowptr[r + 1] += a->rowptr[r];
    int64_t *next = tc_malloc_array((int64_t)a->rows + 1, sizeof *next, err);
    if (!next) {
        tc_csr_free(a);
        return TC_ERR_NOMEM;
    }
    memcpy(next, a->rowptr, ((size_t)a->rows + 1) * sizeof *next);
    decode_ctx d = { h, a, next };
    for_each_brick(h, decode_brick, &d);
    free(next);
    *out = a;
    return TC_OK;
}

typedef struct spmm_ctx {
    const tc_hrpb *h;
    const double *B;
    int64_t ldb, ldc;
    int32_t n;
    double *C;
} spmm_ctx;

/* C rows of the brick += brick x B rows of its columns, as one MMA of the
   kernel does (A operand row-major, zeros where the pattern has no bit),
   skipping the zeros so that an Inf or NaN of B reaches only the rows
   that have a nonzero in its column, as with CSR SpMM. */
static void multiply_brick(void *ctx, const brick_at *at, int64_t row0, uint64_t pattern,
                           int64_t k)
{
    const spmm_ctx *s = ctx;
    const double *vals = s->h->values ? s->h->values + k : NULL;
    for (int r = 0; r < TC_BRICK_M; r++) {
        double *crow = s->C + (row0 + r) * s->ldc;
        for (int c = 0; c < TC_BRICK_K; c++) {
            int bit = r * TC_BRICK_K + c;
            if (!(pattern >> bit & 1))
                continue;
            double v = vals ? vals[bit_rank(pattern, bit)] : 1;
            const double *brow = s->B + (int64_t)brick_col(s->h, at, c) * s->ldb;
            for (int32_t x = 0; x < s->n; x++)
                crow[x] += v * brow[x];
        }
    }
}

static tc_status hrpb_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                               double *C, int64_t ldc, tc_error *err)
{
    const tc_hrpb *h = (const tc_hrpb *)m;
    tc_status st = tc_fmt_spmm_start(m, B, ldb, n, C, ldc, err);
    if (st != TC_OK)
        return st;
    spmm_ctx s = { h, B, ldb, ldc, n, C };
    for_each_brick(h, multiply_brick, &s);
    return TC_OK;
}

/* The GPU layout: what the kernel reads (blockedRowPtr, activeCols,
   sizePtr, packedBlocks with float32 values); valuePtr and the float64
   values stay on the host. */
static int64_t hrpb_bytes(const tc_fmt *m)
{
    const tc_hrpb *h = (const tc_hrpb *)m;
    return (h->npanels + 1) * 8 + h->nblocks * h->tk * 4 + (h->nblocks + 1) * 8 +
           h->sizePtr[h->nblocks];
}

/* ------------------------------------------------------------------ files */

static tc_status hrpb_write_h5(const tc_fmt *m, tc_h5grp *g, tc_error *err)
{
    const tc_hrpb *h = (const tc_hrpb *)m;
    tc_status st = tc_h5grp_put(g, "blockedRowPtr", TC_I64, h->npanels + 1, h->blockedRowPtr,
                                err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "activeCols", TC_I32, h->nblocks * h->tk, h->activeCols, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "sizePtr", TC_I64, h->nblocks + 1, h->sizePtr, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "packedBlocks", TC_U8, h->sizePtr[h->nblocks], h->packedBlocks,
                          err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "valuePtr", TC_I64, h->nblocks + 1, h->valuePtr, err);
    if (st == TC_OK && h->values)
        st = tc_h5grp_put(g, "values", TC_F64, m->nnz, h->values, err);
    return st;
}

/* Reads the arrays with the lengths that the header, blockedRowPtr and
   sizePtr imply, each bounded before anything sized by it is allocated:
   every block holds a nonzero, so at most nnz blocks, each of at most
   the bytes of a full block. Contents are checked by hrpb_validate. */
static tc_status read_arrays(tc_h5grp *g, tc_hrpb *h, tc_error *err)
{
    const char *path = tc_h5grp_path(g);
    tc_status st = tc_h5grp_get_n(g, "blockedRowPtr", TC_I64, h->npanels + 1,
                                  (void **)&h->blockedRowPtr, err);
    if (st != TC_OK)
        return st;
    h->nblocks = h->blockedRowPtr[h->npanels];
    if (h->nblocks < 0 || h->nblocks > h->base.nnz)
        return tc_error_set(err, TC_ERR_FORMAT, "%s/blockedRowPtr[%" PRId64 "]: %" PRId64
                            " blocks, expected 0 to %" PRId64 " (every block holds a nonzero)",
                            path, h->npanels, h->nblocks, h->base.nnz);
    st = tc_h5grp_get_n(g, "activeCols", TC_I32, h->nblocks * h->tk, (void **)&h->activeCols,
                        err);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "sizePtr", TC_I64, h->nblocks + 1, (void **)&h->sizePtr, err);
    if (st != TC_OK)
        return st;
    int64_t bytes = h->sizePtr[h->nblocks],
            most = h->nblocks * tc_hrpb_block_bytes(h->tk, max_bricks(h), (int64_t)h->tm * h->tk);
    if (bytes < 0 || bytes > most)
        return tc_error_set(err, TC_ERR_FORMAT, "%s/sizePtr[%" PRId64 "]: %" PRId64 " bytes, "
                            "expected 0 to %" PRId64 " (%" PRId64 " full blocks)", path,
                            h->nblocks, bytes, most, h->nblocks);
    st = tc_h5grp_get_n(g, "packedBlocks", TC_U8, bytes, (void **)&h->packedBlocks, err);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "valuePtr", TC_I64, h->nblocks + 1, (void **)&h->valuePtr, err);
    if (st == TC_OK)
        st = tc_fmt_read_values(g, "values", h->base.nnz, h->base.has_values, &h->values, err);
    return st;
}

static tc_status hrpb_read_h5(tc_h5grp *g, const tc_fmt *hdr, tc_fmt **out, tc_error *err)
{
    tc_hrpb *h = calloc(1, sizeof *h);
    if (!h)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    h->base = *hdr;
    tc_status st = hrpb_shape(h, &hdr->params, tc_h5grp_path(g), TC_ERR_FORMAT, err);
    if (st == TC_OK)
        st = read_arrays(g, h, err);
    if (st != TC_OK) {
        hrpb_free(&h->base);
        return st;
    }
    *out = &h->base;
    return TC_OK;
}

/* ------------------------------------------------------------ validation */

/* An offset array x[0 .. n]: from 0, never decreasing, ending at last
   (`of` says what last counts). */
static tc_status check_offsets(const int64_t *x, int64_t n, int64_t last, const char *name,
                               const char *of, const char *what, tc_error *err)
{
    if (x[0] != 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s/%s[0]: %" PRId64 ", expected 0", what, name,
                            x[0]);
    for (int64_t i = 0; i < n; i++)
        if (x[i + 1] < x[i] || x[i + 1] > last)
            return tc_error_set(err, TC_ERR_INVALID, "%s/%s[%" PRId64 "]: %" PRId64 " after %"
                                PRId64 " (must not decrease, up to %" PRId64 ")", what, name,
                                i + 1, x[i + 1], x[i], last);
    if (x[n] != last)
        return tc_error_set(err, TC_ERR_INVALID, "%s/%s[%" PRId64 "]: %" PRId64 ", expected %"
                            PRId64 " (%s)", what, name, n, x[n], last, of);
    return TC_OK;
}

/* The three offset arrays. The stream's length is sizePtr's own last
   entry (it was read with that length). */
static tc_status check_pointers(const tc_hrpb *h, const char *what, tc_error *err)
{
    tc_status st = check_offsets(h->blockedRowPtr, h->npanels, h->nblocks, "blockedRowPtr",
                                 "the number of blocks", what, err);
    if (st == TC_OK)
        st = check_offsets(h->sizePtr, h->nblocks, h->sizePtr[h->nblocks], "sizePtr",
                           "the bytes of packedBlocks", what, err);
    if (st == TC_OK)
        st = check_offsets(h->valuePtr, h->nblocks, h->base.nnz, "valuePtr",
                           "the nonzeros of the matrix", what, err);
    return st;
}

/* Block b's size: a multiple of 16 that holds its colPtr. */
static tc_status check_size(const tc_hrpb *h, int64_t b, const char *what, tc_error *err)
{
    int64_t size = h->sizePtr[b + 1] - h->sizePtr[b];
    if (size % TC_HRPB_ALIGN != 0 || size < tc_hrpb_block_bytes(h->tk, 0, 0))
        return tc_error_set(err, TC_ERR_INVALID, "%s/sizePtr[%" PRId64 "]: %" PRId64 " after %"
                            PRId64 " (block %" PRId64 " of %" PRId64 " bytes: at least %" PRId64
                            " and a multiple of %d)", what, b + 1, h->sizePtr[b + 1],
                            h->sizePtr[b], b, size, tc_hrpb_block_bytes(h->tk, 0, 0),
                            TC_HRPB_ALIGN);
    return TC_OK;
}

/* colPtr of block b: from 0, never decreasing, at most max_bricks, and its
   metadata inside the block. */
static tc_status check_col_ptr(const tc_hrpb *h, int64_t b, const char *what, tc_error *err)
{
    const uint8_t *cp = h->packedBlocks + h->sizePtr[b];
    int64_t size = h->sizePtr[b + 1] - h->sizePtr[b];
    for (int bc = 0; bc <= strips_of(h); bc++) {
        int prev = bc ? cp[bc - 1] : 0;
        if (cp[bc] < prev || cp[bc] > max_bricks(h) || (bc == 0 && cp[0] != 0))
            return tc_error_set(err, TC_ERR_INVALID, "%s/packedBlocks[%" PRId64 "]: colPtr[%d] "
                                "of block %" PRId64 " is %d after %d (from 0, never decreasing, "
                                "at most %d bricks)", what, h->sizePtr[b] + bc, bc, b, cp[bc],
                                prev, max_bricks(h));
    }
    int nb = cp[strips_of(h)];
    if (tc_hrpb_values_at(h->tk, nb) > size)
        return tc_error_set(err, TC_ERR_INVALID, "%s/sizePtr[%" PRId64 "]: block %" PRId64 " of %"
                            PRId64 " bytes cannot hold its %d bricks", what, b + 1, b, size, nb);
    return TC_OK;
}

/* The bits of a brick at row0 that lie in rows of the matrix. */
static uint64_t inside_bits(const tc_hrpb *h, int64_t row0)
{
    int64_t rows = h->base.rows - row0;
    return rows >= TC_BRICK_M ? UINT64_MAX
         : rows <= 0          ? 0
                              : (UINT64_C(1) << (rows * TC_BRICK_K)) - 1;
}

/* Brick j of block b in panel p: its brick row in range and above the
   previous one of its brick column (prev, -1 for none), its pattern not
   0 and with no bit in a row past the matrix. */
static tc_status check_brick(const tc_hrpb *h, int64_t p, int64_t b, int j, int prev,
                             const char *what, tc_error *err)
{
    block_view v = view_block(h, b);
    int br = v.rows[j];
    uint64_t pat = load_u64(v.patterns + 8 * j);
    int64_t row0 = p * h->tm + TC_BRICK_M * br, at = v.patterns + 8 * j - h->packedBlocks;
    if (br >= h->tm / TC_BRICK_M || br <= prev)
        return tc_error_set(err, TC_ERR_INVALID, "%s/packedBlocks[%" PRId64 "]: rows[%d] of "
                            "block %" PRId64 " is brick row %d (below %d, increasing in its "
                            "brick column)", what, v.rows + j - h->packedBlocks, j, b, br,
                            h->tm / TC_BRICK_M);
    if (pat == 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s/packedBlocks[%" PRId64 "]: patterns[%d] of "
                            "block %" PRId64 " is 0 (only active bricks are stored)", what, at,
                            j, b);
    uint64_t outside = pat & ~inside_bits(h, row0);
    if (outside)
        return tc_error_set(err, TC_ERR_INVALID, "%s/packedBlocks[%" PRId64 "]: patterns[%d] of "
                            "block %" PRId64 " has a nonzero in row %" PRId64 ", outside the "
                            "matrix (%d rows)", what, at, j, b,
                            row0 + __builtin_ctzll(outside) / TC_BRICK_K, h->base.rows);
    return TC_OK;
}

/* The bricks of block b in panel p (check_brick). Sets *nz to the block's
   nonzeros and used[j] to the bits of its compacted column j. */
static tc_status check_bricks(const tc_hrpb *h, int64_t p, int64_t b, int64_t *nz,
                              uint64_t *used, const char *what, tc_error *err)
{
    block_view v = view_block(h, b);
    *nz = 0;
    for (int bc = 0; bc < strips_of(h); bc++)
        for (int j = v.colPtr[bc]; j < v.colPtr[bc + 1]; j++) {
            int prev = j > v.colPtr[bc] ? v.rows[j - 1] : -1;
            tc_status st = check_brick(h, p, b, j, prev, what, err);
            if (st != TC_OK)
                return st;
            uint64_t pat = load_u64(v.patterns + 8 * j);
            for (int c = 0; c < TC_BRICK_K; c++)
                used[bc * TC_BRICK_K + c] |= pat & COLUMN_BITS(c);
            *nz += __builtin_popcountll(pat);
        }
    return TC_OK;
}

/* Block b's sizes against its contents: valuePtr's step its nonzeros,
   sizePtr's step the bytes its bricks and nonzeros take. */
static tc_status check_counts(const tc_hrpb *h, int64_t b, int nb, int64_t nz, const char *what,
                              tc_error *err)
{
    int64_t want = tc_hrpb_block_bytes(h->tk, nb, nz);
    if (h->valuePtr[b + 1] - h->valuePtr[b] != nz)
        return tc_error_set(err, TC_ERR_INVALID, "%s/valuePtr[%" PRId64 "]: %" PRId64 " after %"
                            PRId64 ", expected %" PRId64 " (block %" PRId64 " has %" PRId64
                            " nonzeros)", what, b + 1, h->valuePtr[b + 1], h->valuePtr[b],
                            h->valuePtr[b] + nz, b, nz);
    if (h->sizePtr[b + 1] - h->sizePtr[b] != want)
        return tc_error_set(err, TC_ERR_INVALID, "%s/sizePtr[%" PRId64 "]: %" PRId64 " after %"
                            PRId64 ", expected %" PRId64 " (block %" PRId64 ": %d bricks, %"
                            PRId64 " nonzeros)", what, b + 1, h->sizePtr[b + 1], h->sizePtr[b],
                            h->sizePtr[b] + want, b, nb, nz);
    return TC_OK;
}

/* The first nonzero byte of x[from, to), or to. */
static int64_t nonzero_byte(const uint8_t *x, int64_t from, int64_t to)
{
    while (from < to && x[from] == 0)
        from++;
    return from;
}

/* The bytes of block b that are neither metadata, patterns nor values
   (after its rows, after its values) are zero, and its float32 values are
   its float64 ones rounded (ones for a pattern matrix). */
static tc_status check_stream(const tc_hrpb *h, int64_t b, int nb, const char *what,
                              tc_error *err)
{
    block_view v = view_block(h, b);
    const uint8_t *blk = h->packedBlocks + h->sizePtr[b];
    int64_t nz = h->valuePtr[b + 1] - h->valuePtr[b], size = h->sizePtr[b + 1] - h->sizePtr[b];
    int64_t i = nonzero_byte(blk, strips_of(h) + 1 + nb, v.patterns - blk);
    if (i == v.patterns - blk)
        i = nonzero_byte(blk, v.values - blk + 4 * nz, size);
    if (i < size)
        return tc_error_set(err, TC_ERR_INVALID, "%s/packedBlocks[%" PRId64 "]: %d in the "
                            "padding of block %" PRId64 ", expected 0", what, h->sizePtr[b] + i,
                            blk[i], b);
    for (int64_t k = 0; k < nz; k++) {
        float want = h->values ? (float)h->values[h->valuePtr[b] + k] : 1.0f;
        float got = load_f32(v.values + 4 * k);
        if (memcmp(&got, &want, sizeof got) != 0)
            return tc_error_set(err, TC_ERR_INVALID, "%s/packedBlocks[%" PRId64 "]: float32 "
                                "value %g of block %" PRId64 ", expected %g (%s as float32)",
                                what, v.values + 4 * k - h->packedBlocks, (double)got, b,
                                (double)want, h->values ? "values" : "1");
    }
    return TC_OK;
}

/* Compacted column j of block b, the last of its panel when last, with
   the bits `used` in it: a column in range, above the panel's previous
   one (*prev), with a nonzero; or a dummy, only in the last block's
   trailing slots (never the first), with none. */
static tc_status check_active_col(const tc_hrpb *h, int64_t b, int j, int last, uint64_t used,
                                  int64_t *prev, const char *what, tc_error *err)
{
    int64_t at = b * h->tk + j;
    int32_t col = h->activeCols[at];
    if (col == DUMMY) {
        if (!last || j == 0 || used)
            return tc_error_set(err, TC_ERR_INVALID, "%s/activeCols[%" PRId64 "]: dummy column "
                                "%d %s", what, at, DUMMY, used ? "holds nonzeros" : "outside "
                                "the trailing slots of its panel's last block");
        *prev = INT64_MAX;
        return TC_OK;
    }
    if (col < 0 || col >= h->base.cols)
        return tc_error_set(err, TC_ERR_INVALID, "%s/activeCols[%" PRId64 "]: column %d is out "
                            "of range (%d columns)", what, at, col, h->base.cols);
    if (col <= *prev)
        return tc_error_set(err, TC_ERR_INVALID, "%s/activeCols[%" PRId64 "]: column %d after %s"
                            " in its panel (must be strictly ascending, dummies last)", what,
                            at, col,
                            *prev == INT64_MAX ? "a dummy column" : "a column not below it");
    if (!used)
        return tc_error_set(err, TC_ERR_INVALID, "%s/activeCols[%" PRId64 "]: column %d has no "
                            "nonzero in block %" PRId64 " (only active columns are kept)", what,
                            at, col, b);
    *prev = col;
    return TC_OK;
}

/* Block b of panel p (the panel's last block when last): its size,
   metadata, bricks, counts, stream and columns; *prev is the panel's
   last column so far. */
static tc_status check_block(const tc_hrpb *h, int64_t p, int64_t b, int last, int64_t *prev,
                             const char *what, tc_error *err)
{
    uint64_t used[TC_PANEL_MAX_TK] = { 0 };
    int64_t nz = 0;
    tc_status st = check_size(h, b, what, err);
    if (st == TC_OK)
        st = check_col_ptr(h, b, what, err);
    if (st == TC_OK)
        st = check_bricks(h, p, b, &nz, used, what, err);
    int nb = st == TC_OK ? view_block(h, b).nb : 0;
    if (st == TC_OK)
        st = check_counts(h, b, nb, nz, what, err);
    if (st == TC_OK)
        st = check_stream(h, b, nb, what, err);
    for (int j = 0; st == TC_OK && j < h->tk; j++)
        st = check_active_col(h, b, j, last, used[j], prev, what, err);
    return st;
}

static tc_status hrpb_validate(const tc_fmt *m, const tc_csr *a, const char *what,
                               tc_error *err)
{
    const tc_hrpb *h = (const tc_hrpb *)m;
    tc_status st = tc_fmt_check_values(m, h->values, "values", what, err);
    if (st == TC_OK)
        st = check_pointers(h, what, err);
    for (int64_t p = 0; st == TC_OK && p < h->npanels; p++) {
        int64_t prev = -1, end = h->blockedRowPtr[p + 1];
        for (int64_t b = h->blockedRowPtr[p]; st == TC_OK && b < end; b++)
            st = check_block(h, p, b, b == end - 1, &prev, what, err);
    }
    return st == TC_OK && a ? tc_fmt_check_decodes(m, a, what, err) : st;
}

/* ------------------------------------------------------------- statistics */

/* The counts of tc_synergy from the format's own arrays: each block's
   compacted columns (its slots that are not dummies) and bricks per brick
   column (colPtr's steps). */
static void count_synergy(const tc_hrpb *h, tc_synergy *s)
{
    *s = (tc_synergy){ .tm = h->tm, .tk = h->tk, .nnz = h->base.nnz, .panels = h->npanels };
    for (int64_t b = 0; b < h->nblocks; b++) {
        block_view v = view_block(h, b);
        int ncols = 0, strip_bricks[TC_PANEL_MAX_STRIPS];
        for (int j = 0; j < h->tk; j++)
            ncols += h->activeCols[b * h->tk + j] != DUMMY;
        for (int bc = 0; bc < strips_of(h); bc++)
            strip_bricks[bc] = v.colPtr[bc + 1] - v.colPtr[bc];
        tc_synergy_add_block(s, ncols, strip_bricks);
    }
    tc_synergy_finish(s);
}

/* The synergy figures (the keys of tcstat's section "synergy", at the
   format's TM and TK), then the panels' load (Section 5: blocks per
   panel, against which heavy panels are split). */
static tc_status hrpb_stats(const tc_fmt *m, tc_report *r, const char *s, tc_error *err)
{
    const tc_hrpb *h = (const tc_hrpb *)m;
    tc_synergy sy;
    count_synergy(h, &sy);
    int64_t empty = 0, most = 0;
    for (int64_t p = 0; p < h->npanels; p++) {
        int64_t n = h->blockedRowPtr[p + 1] - h->blockedRowPtr[p];
        empty += n == 0;
        most = n > most ? n : most;
    }
    tc_status st = tc_synergy_report(&sy, r, s);
    if (!st)
        st = tc_report_int(r, s, "empty_panels", empty, "row panels without a block");
    if (!st)
        st = tc_report_num(r, s, "blocks_per_panel_mean",
                           h->npanels ? (double)h->nblocks / (double)h->npanels : 0,
                           "blocks per row panel, mean over all panels (002 Eq. 6)");
    if (!st)
        st = tc_report_int(r, s, "blocks_per_panel_max", most, "blocks of the heaviest panel");
    return st;
}

/* Panels of TM rows with compacted columns: each column one row of B. */
static void hrpb_window_shape(const tc_fmt *m, int32_t *window_rows, int32_t *col_unit)
{
    *window_rows = ((const tc_hrpb *)m)->tm;
    *col_unit = 1;
}

const tc_format tc_format_hrpb = {
    .name = "hrpb",
    .description = "cuTeSpMM HRPB: row panels with compacted columns, blocks of 16x4 bricks "
                   "with 64-bit patterns, packed for TF32 tensor cores",
    .params = hrpb_params,
    .nparams = NPARAMS,
    .canonical = 0,
    .build = hrpb_build,
    .to_csr = hrpb_to_csr,
    .spmm_ref = hrpb_spmm_ref,
    .bytes = hrpb_bytes,
    .write_h5 = hrpb_write_h5,
    .read_h5 = hrpb_read_h5,
    .validate = hrpb_validate,
    .stats = hrpb_stats,
    .nnz_part = NULL,
    .window_shape = hrpb_window_shape,
    .free = hrpb_free,
};
