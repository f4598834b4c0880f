/*
 * rstile_item.cu: the rstile variants "tc-item" and "tc-item8" (rstile.cu's
 * opening comment describes them): both parts in one launch of balanced
 * items (items.cuh), their per-window index and their launch.
 */
#include "rstile.cuh"
#include "rstile_frags.cuh"

/* ------------------------------------------------------------------------ */
/* Both parts in balanced items, "tc-item" and its kin                      */
/* ------------------------------------------------------------------------ */

/* Everything an item launch reads (items.cuh). */
typedef struct rs_item_args {
    const void *items;          /* tc_item<W> */
    int panels;                 /* of TC_ITEM_PANEL columns of C */
    int group;                  /* panels per thread block (item_group) */
    int groups;                 /* thread blocks per item: panels / group, rounded up */
    int parts;                  /* bit PART_TC, bit PART_RESIDUAL: what runs */
    const uint64_t *bitmap;
    const int32_t *col;
    const int64_t *vstart;
    const __half *val;          /* NULL: pattern */
    const float *row_scale;     /* NULL: pattern */
    const uint8_t *res_lrow;    /* each residual nonzero's row in its window */
    const int32_t *res_col;
    const float *res_val;       /* NULL: pattern */
    float *ws;
    int *counters;
    const float *B;
    float *C;
    int32_t rows, n;
} rs_item_args;

/* What a lane holds of a pair of TC blocks of one window, whatever the
   columns of C: its A fragments, block b as k = 0..7 and block b + 1 as
   k = 8..15 (a_pair), and the ids of the two local columns 2 tig and
   2 tig + 1 of each block whose rows of B it reads (-1: a dummy column, or
   no second block). */
typedef struct pair_meta {
    uint32_t af[4];
    int2 cc[2];
} pair_meta;

static __device__ __forceinline__ pair_meta pair_load(const rs_item_args &a, int64_t b, bool two)
{
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    pair_meta m = { { 0, 0, 0, 0 }, { make_int2(-1, -1), make_int2(-1, -1) } };
#pragma unroll
    for (int h = 0; h < 2; h++) {
        if (h == 1 && !two)
            break;
        const int64_t blk = b + h;
        const ulonglong2 w = __ldg((const ulonglong2 *)(a.bitmap + 2 * blk));
        const __half *v = a.val ? a.val + __ldg(a.vstart + blk) : NULL;
        m.cc[h] = __ldg((const int2 *)(a.col + blk * BCOLS + 2 * tig));
        m.af[2 * h] = a_pair(w.x, 8 * gid + 2 * tig, 0, v);
        m.af[2 * h + 1] = a_pair(w.y, 8 * gid + 2 * tig, __popcll(w.x), v);
    }
    return m;
}

/* acc += the pair m times the columns [c0, c0 + 32) of the float32 B
   rounded to fp16: one mma.m16n8k16 per 8 columns. B is read 16 bytes at
   a time with columns mapped as in brp.cu's accumulate_group: lane
   (gid, tig) loads columns c0 + 4 gid + q, q = 0..3, of the rows of its two
   local columns of each block, and mma q maps its column gid to
   c0 + 4 gid + q, so that the C fragments end in the layout of tc_acc_row.
   A dummy column's B is zero, never read. */
static __device__ __forceinline__ void pair_mul(const rs_item_args &a, const pair_meta &m,
                                                int32_t c0, bool vec, float acc[4][4])
{
    const int gid = (threadIdx.x & 31) >> 2;
    const b_rows r0 = b_rows_load(a.B, a.n, m.cc[0].x, m.cc[0].y, c0 + 4 * gid, vec);
    const b_rows r1 = b_rows_load(a.B, a.n, m.cc[1].x, m.cc[1].y, c0 + 4 * gid, vec);
    uint32_t b0[4], b1[4];
    b_frags_mapped(r0, b0);
    b_frags_mapped(r1, b1);
#pragma unroll
    for (int q = 0; q < 4; q++)
        tc_mma_m16n8k16_f16(acc[q], m.af, b0[q], b1[q]);
}

/* What lane l holds of a run of count <= 32 residual nonzeros of one window
   from e: nonzero e + l's column, row in the window and value. */
typedef struct res_meta {
    int32_t col;
    int row;
    float val;
    int count;
} res_meta;

static __device__ __forceinline__ res_meta res_load(const rs_item_args &a, int64_t e, int count)
{
    const int lane = threadIdx.x & 31;
    const bool mine = lane < count;
    res_meta m;
    m.col = mine ? __ldg(a.res_col + e + lane) : 0;
    m.row = mine ? __ldg(a.res_lrow + e + lane) : 0;
    m.val = mine && a.res_val ? __ldg(a.res_val + e + lane) : 1.0f;
    m.count = count;
    return m;
}

/* tile += the run m times the columns [c0, c0 + 32) of B, on CUDA cores in
   float32: each nonzero in turn is broadcast and lane l adds its product at
   column c0 + l of the nonzero's row (128 contiguous bytes of B per
   nonzero; the loads of 8 nonzeros are in flight together). */
static __device__ __forceinline__ void res_mul(const rs_item_args &a, const res_meta &m,
                                               int32_t c0, float (*tile)[TC_ITEM_PITCH])
{
    const int lane = threadIdx.x & 31;
    const bool in = c0 + lane < a.n;
    for (int j = 0; j < m.count; j += 8) {
        float b[8];
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int32_t c = __shfl_sync(0xffffffffu, m.col, j + q);
            b[q] = j + q < m.count && in ? __ldg(a.B + tc_row_elems(c, a.n) + c0 + lane) : 0.0f;
        }
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int r = __shfl_sync(0xffffffffu, m.row, j + q);
            const float v = __shfl_sync(0xffffffffu, m.val, j + q);
            if (j + q < m.count)
                tile[r][lane] = fmaf(v, b[q], tile[r][lane]);
        }
    }
}

/* The end of a panel, by every thread of the block once each warp has
   its tile: the tiles added up per window and stored (tc_item_finish), and,
   when another panel follows, the barrier after which the tiles may be
   overwritten. */
template <int W>
static __device__ __forceinline__ void panel_end(const rs_item_args &a, const tc_item<W> *it,
                                                 float (*tile)[TC_ITEM_ROWS][TC_ITEM_PITCH],
                                                 const int *s_win, int *s_last, int p, bool more)
{
    __syncthreads();
    tc_item_finish<W>(it, tile, s_win, s_last, a.ws, a.counters, a.panels, p, a.C, a.rows, a.n);
    if (more)
        __syncthreads();
}

/* Block `b` multiplies item b / groups by the panels of 32 columns
   [32 p, 32 p + 32) of B, p = g * group .. g * group + group - 1 (those
   below panels), g = b % groups: a block takes several panels of its item
   where the items are many enough to fill the device without one block per
   panel (item_group), so that it reads the item, its bitmaps, column ids
   and values once, and finds them in registers for every panel after the
   first (their loads are a chain of three round trips before any B; only
   the loads of B are left per panel). A unit is a pair of TC blocks of one
   window (payload: first block << 1 | second block present), or up to 32
   of a window's residual nonzeros (payload: first << 5 | count - 1). Each
   warp multiplies its unit: a TC pair on tensor cores into C fragments,
   each row scaled back (row_scale: the TC values' scale, loaded with the
   unit) and put into the warp's tile, or a residual run, unscaled, added
   into that tile on CUDA cores; tc_item_finish adds the tiles up per
   window and stores them. `parts` leaves either part out (run_part). */
template <int W>
__global__ void __launch_bounds__(W * 32, tc_item_blocks_per_sm(W, false))
    rs_item_kernel(rs_item_args a)
{
    __shared__ __align__(16) float tile[W][TC_ITEM_ROWS][TC_ITEM_PITCH];
    __shared__ int s_win[W], s_last;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const tc_item<W> *it = (const tc_item<W> *)a.items + blockIdx.x / a.groups;
    const int p0 = (int)(blockIdx.x % a.groups) * a.group, p1 = min(p0 + a.group, a.panels);
    const bool vec = a.n % 4 == 0, tc = (a.parts >> PART_TC) & 1,
               res = (a.parts >> PART_RESIDUAL) & 1;
    const int64_t u = it->unit[warp], pl = tc_unit_payload(u);
    const bool is_res = u >= 0 && tc_unit_residual(u);
    const bool do_pair = u >= 0 && !is_res && tc, do_res = is_res && res;
    pair_meta pm = {};
    res_meta rm = {};
    float2 sc = make_float2(1.0f, 1.0f);
    if (do_pair) {
        pm = pair_load(a, pl >> 1, pl & 1);
        sc = tc_frag_scales(a.row_scale, ((int64_t)it->w0 + (u & 7)) * TC_ITEM_ROWS, a.rows);
    }
    if (do_res)
        rm = res_load(a, pl >> 5, (int)(pl & 31) + 1);
    if (lane == 0)
        s_win[warp] = u >= 0 ? (int)(u & 7) : -1;
    for (int p = p0; p < p1; p++) {
        const int32_t c0 = p * TC_ITEM_PANEL;
        float acc[4][4] = {};
        if (do_pair) {
            pair_mul(a, pm, c0, vec, acc);
            tc_frag_scale<4>(acc, sc);
        }
        tc_acc_tile_put(&tile[warp][0][0], TC_ITEM_PITCH, acc);
        __syncwarp();
        if (do_res)
            res_mul(a, rm, c0, tile[warp]);
        panel_end<W>(a, it, tile, s_win, &s_last, p, p + 1 < p1);
    }
}

/* ------------------------------------------------------------------------ */
/* Items and launch                                                          */
/* ------------------------------------------------------------------------ */

static int64_t item_panels(const rs_plan *p)
{
    return ceil_div(p->base.n, TC_ITEM_PANEL);
}

/* Panels per thread block of an item variant of W warps: all of them when
   the items alone give the device two waves of blocks (each item's
   metadata is then read once, rs_item_kernel), else as few as still give
   the device two waves of blocks, one at the least. */
static int item_group(const rs_plan *p, int64_t nitem, int w)
{
    const int64_t panels = item_panels(p);
    const int64_t want =
        2 * (int64_t)tc_gpu_get_info(p->base.gpu)->sm_count * tc_item_blocks_per_sm(w, false);
    const int64_t groups = nitem >= want ? 1 : ceil_div(want, nitem > 0 ? nitem : 1);
    return (int)ceil_div(panels, groups < panels ? groups : panels);
}

/* A tc-item variant's thread blocks: its items times their groups of
   panels. */
static int64_t item_grid(const rs_plan *p, int64_t nitem, int group)
{
    return nitem * ceil_div(item_panels(p), group);
}

/* A tc-item variant, W warps per block: one launch writes all of C. */
template <int W>
static tc_status run_item(rs_plan *p, const tc_item_set *s, int parts, const float *B, float *C,
                          tc_error *err)
{
    if (s->nitem == 0)
        return TC_OK;
    const int group = item_group(p, s->nitem, W);
    rs_item_args a = { s->item, (int)item_panels(p), group,
                       (int)ceil_div(item_panels(p), group), parts, p->bitmap, p->col,
                       p->vstart, p->val, p->row_scale, p->res_lrow, p->res_col, p->res_val,
                       s->ws, s->counters, B, C, p->base.rows, p->base.n };
    const unsigned grid = (unsigned)item_grid(p, s->nitem, group);
    rs_item_kernel<W><<<grid, W * 32, 0, p->base.gpu->stream>>>(a);
    return TC_LAUNCHED(err, "rs_item_kernel");
}

tc_status rs_run_items(rs_plan *p, int parts, const float *B, float *C, tc_error *err)
{
    if (p->base.variant == V_TC_ITEM)
        return run_item<4>(p, &p->isets[0], parts, B, C, err);
    return run_item<8>(p, &p->isets[1], parts, B, C, err);     /* tc-item8 */
}

int64_t rs_item_grid_of(const rs_plan *p, int v)
{
    const int set = v - V_TC_ITEM;
    const int64_t nitem = p->isets[set].nitem;
    return item_grid(p, nitem, item_group(p, nitem, tc_item_set_warps(set)));
}

/* tc_item_set_build's view of rstile's windows: window w's units are the
   pairs of its TC blocks, wb[w] .. wb[w + 1], then the runs of 32 of its
   residual nonzeros, wr[w] .. wr[w + 1] (rs_item_kernel says what their
   codes hold). */
struct rs_units {
    static constexpr bool ranged = false;       /* no -long variants */
    const int64_t *wb, *wr;
    int64_t pairs(int64_t w) const { return (wb[w + 1] - wb[w] + 1) / 2; }
    int64_t count(int64_t w) const { return pairs(w) + ceil_div(wr[w + 1] - wr[w], 32); }
    int64_t code(int64_t w, int64_t i) const
    {
        const int64_t np = pairs(w);
        if (i < np) {
            const int64_t b = wb[w] + 2 * i;
            return tc_unit_code(b << 1 | (b + 1 < wb[w + 1]), 0);
        }
        const int64_t e = wr[w] + 32 * (i - np), left = wr[w + 1] - e;
        return tc_unit_code(e << 5 | ((left < 32 ? left : 32) - 1), 1);
    }
};

/* The tc-item variants' data: each window's first TC block (wb) and first
   residual nonzero (wr), each residual nonzero's row in its window
   (uploaded to res_lrow), and each variant's items (isets in enum order). */
tc_status rs_items_index(rs_plan *p, const tc_rstile *m, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    const int64_t nw = ceil_div(m->base.rows, WROWS), nr = m->res_row_offset[m->nres_rows];
    int64_t *wb, *wr;
    uint8_t *lrow;
    tc_status st = tc_rstile_layout_windows(m, &wb, &wr, &lrow, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, lrow, nr, (void **)&p->res_lrow, err);
    const rs_units u = { wb, wr };
    if (st == TC_OK)
        st = tc_item_sets_build(g, p->isets, nw, item_panels(p), u, err);
    free(wb);
    free(wr);
    free(lrow);
    return st;
}
