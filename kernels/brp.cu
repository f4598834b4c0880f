/*
 * brp.cu: the GPU kernels of the brp format (BRP-SpMM, seed 000, Section
 * IV-D and IV-E), on the arrays of formats/brp.h.
 *
 * A run is two parts, one after the other on the stream:
 *   1. the TC Block part: C is zeroed, then every TC Block Group adds its
 *      16 rows x N product into C with atomics (groups of one row window
 *      run in different thread blocks);
 *   2. the Residual Row part (Alg. 3): each residual row adds its sum into
 *      its row of C, without atomics (one writer per row, after part 1).
 * There are eight variants, timed by tc_kernel_tune; tc, tc-wide and cuda
 * differ in part 1 only, tc-window and the tc-item ones run both parts
 * together:
 *   "tc"      Alg. 2 as the paper writes it: one thread block per group; the
 *             group's g = 4 A tiles of 16 x 8 built in shared memory from
 *             local_id and values (zeros elsewhere), old_col_id staged in
 *             shared memory, B tiles gathered by old_col_id, converted with
 *             cvt.rna.tf32.f32, four mma.m16n8k8 into one C fragment (the
 *             register remapping of Fig. 7(b)), one atomic per fragment
 *             element. Warps cover N in slices of 8 columns.
 *   "tc-wide" the same tensor-core arithmetic reorganised (see
 *             brp_tc_wide_kernel): a warp takes several consecutive groups and
 *             32 columns of N, builds the A fragments in registers, loads B
 *             16 bytes at a time and keeps accumulating while the groups
 *             stay in one window, so that one window's groups cost one
 *             atomic write-back instead of one each.
 *   "cuda"    the same groups on CUDA cores: scalar FMA over the 32 real
 *             nonzeros of each group, never over padding.
 *   "tc-window" tc-wide's tensor-core code with both parts in one launch,
 *             no memset and (almost) no atomics: one thread block per row
 *             window (and 32 columns) multiplies the window's first groups
 *             on tensor cores and its residual rows on CUDA cores, and
 *             stores its 16 rows once; windows of more groups than a block
 *             takes leave the rest to a second launch that adds them
 *             atomically (see brp_window_kernel). This trades the paper's
 *             load balance (every block the same work) for fewer launches
 *             and atomics (bench/NOTES.md says what that gave on H200).
 *   "tc-item", "tc-item8" tc-wide's tensor-core code with both parts in
 *             one launch and the load balanced (see brp_item_kernel): a
 *             thread block of 4 or 8 warps takes one group per warp, a
 *             window's residual nonzeros laid out as groups too (padded
 *             with zeros), the units of several short windows packed into
 *             one block, a long window cut over several blocks that meet in
 *             a workspace tile. No zeroing, no atomics in C, and no block
 *             waits on more than one group's loads and the tile's fix-up.
 *   "tc-item-long", "tc-item8-long" the same, except that on large matrices
 *             the blocks of a long window give each warp up to
 *             TC_ITEM_MAX_SHARE of its groups (items.cuh), so that fewer
 *             blocks go through the workspace.
 * The tensor-core variants multiply the zeros of the A tiles by real rows of
 * B: an Inf or NaN in row j of B gives 0 * Inf = NaN in rows of a window
 * that has a group using column j, although those rows do not use it
 * (the padding pitfall of DESIGN.md). They are marked in variant_spreads so
 * that tcmul picks "cuda" when B is not all finite.
 *
 * The kernels are written for the paper's parameters, h = 16, w = 8, f = 1,
 * g = 4 (32 nonzeros per group, one per local column); prepare refuses
 * other ones. With f = 1, entry e of a TC block is its local column e % w,
 * so each entry goes to its own column (k index) of the tile: the kernels
 * take its row from local_id / w and its k from its position, which is the
 * same tile for any valid file and never lets two entries collide.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"
#include "brp.h"
#include "mma.cuh"
#include "items.cuh"

/* The parameters the kernels are written for (seed 000, Section IV-A). */
#define BRP_H 16
#define BRP_W 8
#define BRP_G 4
#define GROUP_NNZ (BRP_G * BRP_W)   /* f = 1 */

enum {
    V_TC, V_TC_WIDE, V_TC_WINDOW, V_TC_ITEM, V_TC_ITEM8, V_TC_ITEM_LONG, V_TC_ITEM8_LONG, V_CUDA,
    NVARIANTS
};
static const char *const variant_names[NVARIANTS] = {
    "tc", "tc-wide", "tc-window", "tc-item", "tc-item8", "tc-item-long", "tc-item8-long", "cuda"
};
static const unsigned char variant_spreads[NVARIANTS] = { 1, 1, 1, 1, 1, 1, 1, 0 };
/* The tc-item variants, V_TC_ITEM .. V_TC_ITEM8_LONG, run the item sets of
   items.cuh in its order (tc_item_sets_build). A unit is a group or a
   residual pseudo-group. Neither 4 nor 8 warps per block is best on every
   matrix (bench/NOTES.md): 8 keeps windows of 5-8 units in one block, 4
   packs sparse windows tighter. */

enum { PART_BLOCKS, PART_RESIDUAL, NPARTS };
static const char *const part_names[NPARTS] = { "tc_block", "residual_row" };

/* "tc": at most this many warps per block; each covers slices of 8 columns. */
#define TC_MAX_WARPS 8
/* "tc-wide", "cuda" and tc-window's second launch: warps per block (they
   work independently). */
#define WIDE_WARPS 4
/* "tc-wide": at most this many consecutive groups per warp. */
#define WIDE_MAX_CHUNK 8
/* "tc-window": a block of 1 to WINDOW_MAX_WARPS warps per window (sized to
   the matrix: window_warps) takes its first 2 groups per warp; the groups
   past those are left to warps of REST_CHUNK groups each, which add them
   atomically. */
#define WINDOW_MAX_WARPS 8
#define REST_CHUNK 4
/* The residual kernel's block: threads across N, a few rows per block. */
#define RES_THREADS 256

typedef struct brp_plan {
    tc_kplan base;
    int64_t ngroups, nres_rows, nres_nnz;
    int32_t *win;               /* group_window_id */
    uint8_t *lid;               /* local_id */
    int32_t *col;               /* old_col_id */
    float *val;                 /* NULL: pattern (every value 1) */
    int32_t *res_row;
    int64_t *res_off;
    int32_t *res_col;
    float *res_val;             /* NULL: pattern */
    int chunk;                  /* tc-wide: groups per warp */
    /* tc-window: per row window, where its groups and its residual rows
       start (nwin + 1 each), and the first group of each chunk of
       REST_CHUNK groups past the first 2 * window_warps of a window */
    int64_t nwin, nitems;
    int64_t *win_grp, *win_res, *items;
    int window_warps;           /* tc-window: warps per window block */
    /* the tc-item variants: each window's residual nonzeros laid out as
       groups of 32 (local_id, old_col_id, value; the last one padded with
       value 0), and each variant's items */
    int64_t nrgrp;
    uint8_t *rlid;
    int32_t *rcol;
    float *rval;
    tc_item_set isets[TC_ITEM_SETS];   /* tc-item, tc-item8, tc-item-long, tc-item8-long */
} brp_plan;

static __device__ __forceinline__ float value_at(const float *__restrict__ val, int64_t e)
{
    return val ? val[e] : 1.0f;
}

/* ------------------------------------------------------------------------ */
/* TC Block part, "tc": Alg. 2                                               */
/* ------------------------------------------------------------------------ */

/* C[row][c] += v, for the elements inside C. */
static __device__ __forceinline__ void add_guarded(float *C, int32_t rows, int32_t n,
                                                   int64_t row, int32_t c, float v)
{
    if (row < rows && c < n)
        atomicAdd(&C[row * n + c], v);
}

/* One thread block per TC Block Group; warp w computes the columns
   [8s, 8s + 8) of the group's 16 rows for s = w, w + warps, ... */
__global__ void brp_tc_kernel(const int32_t *__restrict__ win, const uint8_t *__restrict__ lid,
                              const int32_t *__restrict__ col, const float *__restrict__ val,
                              const float *__restrict__ B, float *C, int32_t rows, int32_t n)
{
    __shared__ float a_tile[BRP_G * BRP_H * BRP_W];     /* g tiles of 16 x 8, row-major */
    __shared__ int32_t col_smem[GROUP_NNZ];
    const int64_t e0 = (int64_t)blockIdx.x * GROUP_NNZ;
    const int tid = threadIdx.x;
    for (int i = tid; i < BRP_G * BRP_H * BRP_W; i += blockDim.x)
        a_tile[i] = 0.0f;
    if (tid < GROUP_NNZ)
        col_smem[tid] = col[e0 + tid];
    __syncthreads();
    if (tid < GROUP_NNZ)
        a_tile[(tid / BRP_W) * BRP_H * BRP_W + (lid[e0 + tid] / BRP_W) * BRP_W + tid % BRP_W] =
            value_at(val, e0 + tid);
    __syncthreads();

    const int lane = tid & 31, gid = lane >> 2, tig = lane & 3;
    uint32_t ra[4 * BRP_G];
#pragma unroll
    for (int b = 0; b < BRP_G; b++) {
        const float *t = a_tile + b * BRP_H * BRP_W;
        ra[4 * b + 0] = tc_tf32(t[gid * BRP_W + tig]);
        ra[4 * b + 1] = tc_tf32(t[(gid + 8) * BRP_W + tig]);
        ra[4 * b + 2] = tc_tf32(t[gid * BRP_W + tig + 4]);
        ra[4 * b + 3] = tc_tf32(t[(gid + 8) * BRP_W + tig + 4]);
    }
    const int64_t row0 = (int64_t)win[blockIdx.x] * BRP_H;
    const int warps = blockDim.x >> 5;
    for (int32_t c0 = (tid >> 5) * 8; c0 < n; c0 += warps * 8) {
        const int32_t c = c0 + gid;     /* the B column this thread loads */
        uint32_t rb[2 * BRP_G];
#pragma unroll
        for (int b = 0; b < BRP_G; b++) {
            rb[2 * b] = tc_tf32(c < n ? B[(int64_t)col_smem[b * BRP_W + tig] * n + c] : 0.0f);
            rb[2 * b + 1] =
                tc_tf32(c < n ? B[(int64_t)col_smem[b * BRP_W + tig + 4] * n + c] : 0.0f);
        }
        /* Fig. 7(b): the g products accumulate into one C fragment */
        float rc[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
#pragma unroll
        for (int b = 0; b < BRP_G; b++)
            tc_mma_m16n8k8_tf32(rc, ra + 4 * b, rb[2 * b], rb[2 * b + 1]);
        const int32_t cc = c0 + 2 * tig;
        add_guarded(C, rows, n, row0 + gid, cc, rc[0]);
        add_guarded(C, rows, n, row0 + gid, cc + 1, rc[1]);
        add_guarded(C, rows, n, row0 + gid + 8, cc, rc[2]);
        add_guarded(C, rows, n, row0 + gid + 8, cc + 1, rc[3]);
    }
}

/* ------------------------------------------------------------------------ */
/* TC Block part, "tc-wide"                                                  */
/* ------------------------------------------------------------------------ */

/* The metadata of one group that a lane needs in tc-wide and tc-window: its
   entries 8 tig .. 8 tig + 7 (see accumulate_group). */
struct group_meta {
    uint2 ids;                  /* local_id, one byte per entry */
    int4 ca, cb;                /* old_col_id */
    float4 va, vb;              /* values */
};

static __device__ __forceinline__ group_meta load_meta(int64_t grp, int tig,
                                                       const uint8_t *__restrict__ lid,
                                                       const int32_t *__restrict__ col,
                                                       const float *__restrict__ val)
{
    const int64_t e = grp * GROUP_NNZ + 8 * tig;
    group_meta m;
    m.ids = __ldg((const uint2 *)(lid + e));
    m.ca = __ldg((const int4 *)(col + e));
    m.cb = __ldg((const int4 *)(col + e + 4));
    m.va = val ? __ldg((const float4 *)(val + e)) : make_float4(1, 1, 1, 1);
    m.vb = val ? __ldg((const float4 *)(val + e + 4)) : make_float4(1, 1, 1, 1);
    return m;
}

/* acc += the group's 16 rows times the 32 columns [c0, c0 + 32) of B, on
   tensor cores; *used gets the rows (bits 0..15) that its entries use.
   Compared with Alg. 2:
   - The 32 entries of a group may go to any k of the 4 mma, one each, with
     the same sum. Lane (gid, tig) takes entries 8 tig .. 8 tig + 7: entry j
     goes to mma j / 2 at k = tig + 4 (j % 2). Its metadata are then 5
     contiguous loads, and the A fragments are built in registers (the lane
     keeps the value where the entry's row is gid or gid + 8), with no shared
     memory and no barrier.
   - B is loaded 16 bytes at a time: the lane takes columns c0 + 4 gid + q,
     q = 0..3, of its entries' rows, and slice q (one mma of n = 8) maps its
     column gid to c0 + 4 gid + q. The C fragment of slice q then holds
     columns c0 + 8 tig + q and c0 + 8 tig + 4 + q: across the four slices,
     each lane owns 8 consecutive columns of rows gid and gid + 8 (acc[q][0]
     is column c0 + 8 tig + q of row gid, acc[q][1] column c0 + 8 tig + 4 + q,
     acc[q][2] and acc[q][3] the same of row gid + 8). */
static __device__ __forceinline__ void accumulate_group(float acc[4][4], uint32_t *used,
                                                        const group_meta &m,
                                                        const float *__restrict__ B, int32_t c0,
                                                        int32_t n, bool vec, int gid)
{
    const int32_t cols[8] = { m.ca.x, m.ca.y, m.ca.z, m.ca.w, m.cb.x, m.cb.y, m.cb.z, m.cb.w };
    const float vals[8] = { m.va.x, m.va.y, m.va.z, m.va.w, m.vb.x, m.vb.y, m.vb.z, m.vb.w };
    uint32_t a[4 * BRP_G];
    float4 b[8];
    uint32_t mine = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        const int r = (((j < 4 ? m.ids.x : m.ids.y) >> (8 * (j % 4))) & 0xff) / BRP_W;
        mine |= 1u << r;
        a[4 * (j / 2) + 2 * (j % 2)] = tc_tf32(r == gid ? vals[j] : 0.0f);
        a[4 * (j / 2) + 2 * (j % 2) + 1] = tc_tf32(r == gid + 8 ? vals[j] : 0.0f);
        b[j] = tc_load_b4(B, cols[j], c0 + 4 * gid, n, vec);
    }
#pragma unroll
    for (int k = 0; k < BRP_G; k++) {
        const float4 lo = b[2 * k], hi = b[2 * k + 1];
        tc_mma_m16n8k8_tf32(acc[0], a + 4 * k, tc_tf32(lo.x), tc_tf32(hi.x));
        tc_mma_m16n8k8_tf32(acc[1], a + 4 * k, tc_tf32(lo.y), tc_tf32(hi.y));
        tc_mma_m16n8k8_tf32(acc[2], a + 4 * k, tc_tf32(lo.z), tc_tf32(hi.z));
        tc_mma_m16n8k8_tf32(acc[3], a + 4 * k, tc_tf32(lo.w), tc_tf32(hi.w));
    }
    *used |= __reduce_or_sync(0xffffffffu, mine);
}

/* C[window rows][c0 .. c0 + 32) += acc, atomically, for the rows in used. */
static __device__ __forceinline__ void flush_atomic(float *C, const float acc[4][4],
                                                    uint32_t used, int32_t window, int32_t c0,
                                                    int32_t rows, int32_t n, bool vec, int gid,
                                                    int tig)
{
#pragma unroll
    for (int half = 0; half < 2; half++) {
        const int r = gid + 8 * half;
        const int64_t row = (int64_t)window * BRP_H + r;
        if (!(used >> r & 1) || row >= rows)
            continue;
        tc_add4(C, row, c0 + 8 * tig, n, vec, tc_acc_row(acc, half, 0));
        tc_add4(C, row, c0 + 8 * tig + 4, n, vec, tc_acc_row(acc, half, 1));
    }
}

/* Warp `gw` multiplies the groups [chunk * (gw / panels), + chunk) by the 32
   columns [32 p, 32 p + 32) of B, p = gw % panels (accumulate_group). The C
   fragments keep accumulating over the warp's groups while they stay in one
   row window (groups are sorted by window), and only the rows that some
   group of the window uses are written back. The next group's metadata are
   loaded before the current group's B rows, so that their latencies
   overlap. */
__global__ void __launch_bounds__(WIDE_WARPS * 32)
    brp_tc_wide_kernel(int64_t ngroups, int chunk, int panels,
                       const int32_t *__restrict__ win, const uint8_t *__restrict__ lid,
                       const int32_t *__restrict__ col, const float *__restrict__ val,
                       const float *__restrict__ B, float *C, int32_t rows, int32_t n)
{
    const int64_t gw = (int64_t)blockIdx.x * WIDE_WARPS + (threadIdx.x >> 5);
    const int64_t first = gw / panels * chunk;
    if (first >= ngroups)
        return;     /* the whole warp: gw is the same for its lanes */
    const int64_t end = first + chunk < ngroups ? first + chunk : ngroups;
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    const int32_t c0 = (int32_t)(gw % panels) * 32;
    const bool vec = n % 4 == 0;
    float acc[4][4] = {};
    uint32_t used = 0;
    group_meta cur = load_meta(first, tig, lid, col, val);
    for (int64_t grp = first; grp < end; grp++) {
        const group_meta next = grp + 1 < end ? load_meta(grp + 1, tig, lid, col, val) : cur;
        accumulate_group(acc, &used, cur, B, c0, n, vec, gid);
        cur = next;
        const int32_t w = win[grp];
        if (grp + 1 < end && win[grp + 1] == w)
            continue;
        flush_atomic(C, acc, used, w, c0, rows, n, vec, gid, tig);
        for (int q = 0; q < 4; q++)
            for (int i = 0; i < 4; i++)
                acc[q][i] = 0.0f;
        used = 0;
    }
}

/* ------------------------------------------------------------------------ */
/* TC Block and Residual Row parts together, "tc-window"                     */
/* ------------------------------------------------------------------------ */

/* One thread block per row window and 32 columns [c0, c0 + 32) of B: the
   first launch of tc-window, which writes every element of C once, with no
   zeroing before and no atomics in C. The block's warps take the window's
   first 2 x warps groups, warp i groups i and i + warps (accumulate_group),
   then its residual rows i, i + warps, ... on CUDA cores, one column per
   lane (Alg. 3's 1-D tiling within a warp), so that a block waits about as
   long as two groups take, not one per group. The warps' results meet in a
   shared 16 x 32 tile (shared-memory atomics), which the block stores. The
   groups past the first 2 x warps of a window are left to
   brp_window_rest_kernel. Without win_res, the residual rows are left out
   (the TC Block part alone, for run_part). */
__global__ void __launch_bounds__(WINDOW_MAX_WARPS * 32)
    brp_window_kernel(int panels, const int64_t *__restrict__ win_grp,
                      const int64_t *__restrict__ win_res, const uint8_t *__restrict__ lid,
                      const int32_t *__restrict__ col, const float *__restrict__ val,
                      const int32_t *__restrict__ res_row, const int64_t *__restrict__ res_off,
                      const int32_t *__restrict__ res_col, const float *__restrict__ res_val,
                      const float *__restrict__ B, float *C, int32_t rows, int32_t n)
{
    __shared__ float tile[BRP_H][33];   /* 33: a fragment's lanes hit 32 banks */
    const int64_t w = blockIdx.x / panels;
    const int32_t c0 = (int32_t)(blockIdx.x % panels) * 32;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, gid = lane >> 2, tig = lane & 3;
    const int warps = blockDim.x >> 5;
    for (int i = tid; i < BRP_H * 32; i += blockDim.x)
        tile[i / 32][i % 32] = 0.0f;
    const int64_t first = win_grp[w];
    const int64_t end = first + 2 * warps < win_grp[w + 1] ? first + 2 * warps : win_grp[w + 1];
    const bool vec = n % 4 == 0;
    float acc[4][4] = {};
    uint32_t used = 0;
    for (int64_t g = first + warp; g < end; g += warps)
        accumulate_group(acc, &used, load_meta(g, tig, lid, col, val), B, c0, n, vec, gid);
    __syncthreads();    /* the tile is zero */
    if (used) {
#pragma unroll
        for (int half = 0; half < 2; half++)
#pragma unroll
            for (int q = 0; q < 4; q++) {
                atomicAdd(&tile[gid + 8 * half][8 * tig + q], acc[q][2 * half]);
                atomicAdd(&tile[gid + 8 * half][8 * tig + 4 + q], acc[q][2 * half + 1]);
            }
    }
    const int32_t c = c0 + lane;
    for (int64_t i = win_res ? win_res[w] + warp : 0; win_res && i < win_res[w + 1] && c < n;
         i += warps) {
        float sum = 0.0f;
        for (int64_t k = res_off[i]; k < res_off[i + 1]; k++)
            sum = fmaf(value_at(res_val, k), __ldg(&B[(int64_t)res_col[k] * n + c]), sum);
        atomicAdd(&tile[res_row[i] - (int32_t)(w * BRP_H)][lane], sum);
    }
    __syncthreads();
    for (int i = tid; i < BRP_H * 32; i += blockDim.x) {
        const int64_t row = w * BRP_H + i / 32;
        const int32_t cc = c0 + i % 32;
        if (row < rows && cc < n)
            C[row * n + cc] = tile[i / 32][i % 32];
    }
}

/* The second launch of tc-window, only for windows of more than
   2 * window_warps groups: warp `gw` adds groups [items[i], + REST_CHUNK) of
   one window, i = gw / panels, times the 32 columns [32 p, 32 p + 32) of B,
   p = gw % panels, atomically into the rows they use. */
__global__ void __launch_bounds__(WIDE_WARPS * 32)
    brp_window_rest_kernel(int64_t nitems, const int64_t *__restrict__ items, int panels,
                           const int64_t *__restrict__ win_grp, const int32_t *__restrict__ win,
                           const uint8_t *__restrict__ lid, const int32_t *__restrict__ col,
                           const float *__restrict__ val, const float *__restrict__ B, float *C,
                           int32_t rows, int32_t n)
{
    const int64_t gw = (int64_t)blockIdx.x * WIDE_WARPS + (threadIdx.x >> 5);
    const int64_t item = gw / panels;
    if (item >= nitems)
        return;
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    const int32_t c0 = (int32_t)(gw % panels) * 32;
    const bool vec = n % 4 == 0;
    const int64_t first = items[item];
    const int32_t w = win[first];
    const int64_t end = first + REST_CHUNK < win_grp[w + 1] ? first + REST_CHUNK : win_grp[w + 1];
    float acc[4][4] = {};
    uint32_t used = 0;
    group_meta cur = load_meta(first, tig, lid, col, val);
    for (int64_t grp = first; grp < end; grp++) {
        const group_meta next = grp + 1 < end ? load_meta(grp + 1, tig, lid, col, val) : cur;
        accumulate_group(acc, &used, cur, B, c0, n, vec, gid);
        cur = next;
    }
    flush_atomic(C, acc, used, w, c0, rows, n, vec, gid, tig);
}

/* ------------------------------------------------------------------------ */
/* TC Block and Residual Row parts together, balanced: "tc-item"             */
/* ------------------------------------------------------------------------ */

/* Block `b` multiplies item b / panels by the 32 columns [32 p, 32 p + 32)
   of B, p = b % panels: each warp its unit, or its units i, i + W, ... of a
   ranged item (accumulate_group; a residual pseudo-group's padding has
   value 0), into a tile of its own in shared memory, which tc_item_finish
   adds up per window and stores (items.cuh). Every unit is one chain of
   loads (item, metadata, B) with all of the item's units in flight at
   once, and every row of C is written by this one launch, with no zeroing
   before and no atomics in C. Without `residual`, the residual
   pseudo-groups are left out (the TC Block part alone, for run_part). LONG
   (the -long variants) compiles the ranged loop in; without it the kernel
   keeps 64 registers, 32 warps per SM. */
template <int W, bool LONG>
__global__ void __launch_bounds__(W * 32, tc_item_blocks_per_sm(W, LONG))
    brp_item_kernel(int panels, const tc_item<W> *__restrict__ items,
                    const uint8_t *__restrict__ lid, const int32_t *__restrict__ col,
                    const float *__restrict__ val, const uint8_t *__restrict__ rlid,
                    const int32_t *__restrict__ rcol, const float *__restrict__ rval,
                    int residual, float *ws, int *counters, const float *__restrict__ B,
                    float *C, int32_t rows, int32_t n)
{
    __shared__ __align__(16) float tile[W][TC_ITEM_ROWS][TC_ITEM_PITCH];
    __shared__ int s_win[W], s_last;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, gid = lane >> 2, tig = lane & 3;
    const tc_item<W> *it = items + blockIdx.x / panels;
    const int p = (int)(blockIdx.x % panels);
    const int32_t c0 = p * 32;
    const bool vec = n % 4 == 0;
    float acc[4][4] = {};
    uint32_t used = 0;
    int slot = 0;
    if (LONG && it->ranged) {
        const int64_t g0 = it->unit[0], r0 = it->unit[1];
        const int ng = (int)it->unit[2], nu = ng + (residual ? (int)it->unit[3] : 0);
#pragma unroll 1
        for (int i = warp; i < nu; i += W)
            accumulate_group(acc, &used,
                             i < ng ? load_meta(g0 + i, tig, lid, col, val) :
                                      load_meta(r0 + i - ng, tig, rlid, rcol, rval),
                             B, c0, n, vec, gid);
    } else {
        const int64_t u = it->unit[warp], g = tc_unit_payload(u);
        const bool res = u >= 0 && tc_unit_residual(u);
        if (u >= 0 && (residual || !res))
            accumulate_group(acc, &used,
                             res ? load_meta(g, tig, rlid, rcol, rval) :
                                   load_meta(g, tig, lid, col, val), B, c0, n, vec, gid);
        slot = u >= 0 ? (int)(u & 7) : -1;
    }
    tc_acc_tile_put(&tile[warp][0][0], TC_ITEM_PITCH, acc);
    if (lane == 0)
        s_win[warp] = slot;
    __syncthreads();
    tc_item_finish<W>(it, tile, s_win, &s_last, ws, counters, panels, p, C, rows, n);
}

/* ------------------------------------------------------------------------ */
/* TC Block part, "cuda"                                                     */
/* ------------------------------------------------------------------------ */

/* Warp `gw` multiplies group gw / panels by the 32 columns [32 p, 32 p + 32)
   of B, p = gw % panels, one column per lane. The group's entries are first
   ordered by row (ballots), so that each row's sum ends in one atomic. */
__global__ void __launch_bounds__(WIDE_WARPS * 32)
    brp_cuda_kernel(int64_t ngroups, int panels, const int32_t *__restrict__ win,
                    const uint8_t *__restrict__ lid, const int32_t *__restrict__ col,
                    const float *__restrict__ val, const float *__restrict__ B, float *C,
                    int32_t rows, int32_t n)
{
    __shared__ int s_row[WIDE_WARPS][GROUP_NNZ + 1];
    __shared__ int32_t s_col[WIDE_WARPS][GROUP_NNZ];
    __shared__ float s_val[WIDE_WARPS][GROUP_NNZ];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t gw = (int64_t)blockIdx.x * WIDE_WARPS + warp;
    const int64_t grp = gw / panels;
    if (grp >= ngroups)
        return;
    const int64_t e = grp * GROUP_NNZ + lane;
    const int r = lid[e] / BRP_W;
    /* stable rank of this entry by row */
    int pos = 0;
#pragma unroll
    for (int rr = 0; rr < BRP_H; rr++) {
        const uint32_t m = __ballot_sync(0xffffffffu, r == rr);
        if (rr < r)
            pos += __popc(m);
        else if (rr == r)
            pos += __popc(m & ((1u << lane) - 1));
    }
    s_row[warp][pos] = r;
    s_col[warp][pos] = col[e];
    s_val[warp][pos] = value_at(val, e);
    if (lane == 0)
        s_row[warp][GROUP_NNZ] = -1;    /* ends the last row's run */
    __syncwarp();
    const int32_t c = (int32_t)(gw % panels) * 32 + lane;
    float bv[GROUP_NNZ];
#pragma unroll
    for (int i = 0; i < GROUP_NNZ; i++)
        bv[i] = c < n ? __ldg(&B[(int64_t)s_col[warp][i] * n + c]) : 0.0f;
    const int64_t row0 = (int64_t)win[grp] * BRP_H;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < GROUP_NNZ; i++) {
        sum = fmaf(s_val[warp][i], bv[i], sum);
        if (s_row[warp][i + 1] != s_row[warp][i]) {
            add_guarded(C, rows, n, row0 + s_row[warp][i], c, sum);
            sum = 0.0f;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Residual Row part: Alg. 3                                                 */
/* ------------------------------------------------------------------------ */

/* 1-D tiling (Sputnik, as Alg. 3): `across` threads take one column each of
   one residual row, RES_THREADS / across rows per block; the entries of the
   block's rows are staged in shared memory a block-full at a time and
   reused by every column. C[row] += the row's sum: the TC Block part has
   finished, and no other thread writes this row. */
__global__ void __launch_bounds__(RES_THREADS)
    brp_residual_kernel(int64_t nres, int across, const int32_t *__restrict__ res_row,
                        const int64_t *__restrict__ res_off, const int32_t *__restrict__ res_col,
                        const float *__restrict__ res_val, const float *__restrict__ B, float *C,
                        int32_t n)
{
    __shared__ int32_t s_col[RES_THREADS];
    __shared__ float s_val[RES_THREADS];
    const int per_block = RES_THREADS / across;
    const int tid = threadIdx.x, slot = tid / across, t = tid % across;
    const int64_t first = (int64_t)blockIdx.x * per_block;
    const int64_t last = first + per_block < nres ? first + per_block : nres;
    const int64_t i = first + slot;     /* this thread's residual row, if < last */
    const int64_t begin = res_off[first], end = res_off[last];
    const int64_t my_begin = i < last ? res_off[i] : 0, my_end = i < last ? res_off[i + 1] : 0;
    for (int32_t c0 = 0; c0 < n; c0 += across) {
        const int32_t c = c0 + t;
        float sum = 0.0f;
        for (int64_t s0 = begin; s0 < end; s0 += RES_THREADS) {
            if (s0 + tid < end) {
                s_col[tid] = res_col[s0 + tid];
                s_val[tid] = value_at(res_val, s0 + tid);
            }
            __syncthreads();
            const int64_t lo = my_begin > s0 ? my_begin : s0;
            const int64_t hi = my_end < s0 + RES_THREADS ? my_end : s0 + RES_THREADS;
            if (c < n)
                for (int64_t k = lo; k < hi; k++)
                    sum = fmaf(s_val[k - s0], __ldg(&B[(int64_t)s_col[k - s0] * n + c]), sum);
            __syncthreads();
        }
        if (i < last && c < n)
            C[(int64_t)res_row[i] * n + c] += sum;
    }
}

/* ------------------------------------------------------------------------ */
/* Launches                                                                  */
/* ------------------------------------------------------------------------ */

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Blocks of each launch for this plan's n (0: nothing to launch). */
static int64_t tc_blocks(const brp_plan *p)
{
    return p->ngroups;
}

static int tc_threads(const brp_plan *p)
{
    const int64_t slices = ceil_div(p->base.n, 8);
    return 32 * (int)(slices < TC_MAX_WARPS ? slices : TC_MAX_WARPS);
}

static int64_t panels(const brp_plan *p)
{
    return ceil_div(p->base.n, 32);
}

static int64_t wide_blocks(const brp_plan *p)
{
    return ceil_div(ceil_div(p->ngroups, p->chunk) * panels(p), WIDE_WARPS);
}

static int64_t cuda_blocks(const brp_plan *p)
{
    return ceil_div(p->ngroups * panels(p), WIDE_WARPS);
}

/* tc-window: blocks of its first launch (one per window and panel), and of
   its second. */
static int64_t window_blocks(const brp_plan *p)
{
    return p->nwin * panels(p);
}

static int64_t rest_blocks(const brp_plan *p)
{
    return ceil_div(p->nitems * panels(p), WIDE_WARPS);
}

static int64_t item_blocks(const brp_plan *p, int v)
{
    return p->isets[v - V_TC_ITEM].nitem * panels(p);
}

/* Threads across N in the residual kernel: N rounded up to a warp, at most
   the whole block. */
static int res_across(const brp_plan *p)
{
    const int64_t t = ceil_div(p->base.n, 32) * 32;
    return (int)(t < RES_THREADS ? t : RES_THREADS);
}

static int64_t res_blocks(const brp_plan *p)
{
    return ceil_div(p->nres_rows, RES_THREADS / res_across(p));
}

static int64_t variant_blocks(const brp_plan *p, int v)
{
    switch (v) {
    case V_TC: return tc_blocks(p);
    case V_TC_WIDE: return wide_blocks(p);
    case V_TC_WINDOW: return window_blocks(p);
    case V_TC_ITEM:
    case V_TC_ITEM8:
    case V_TC_ITEM_LONG:
    case V_TC_ITEM8_LONG: return item_blocks(p, v);
    default: return cuda_blocks(p);
    }
}

/* C = 0, then the TC Block part of tc, tc-wide or cuda adds into it. */
static tc_status run_blocks(brp_plan *p, const float *B, float *C, tc_error *err)
{
    const tc_kplan *b = &p->base;
    cudaStream_t s = b->gpu->stream;
    tc_status st = TC_CUDA(err, cudaMemsetAsync(C, 0, (size_t)b->rows * b->n * sizeof(float), s));
    if (st != TC_OK || p->ngroups == 0)
        return st;
    const unsigned grid = (unsigned)variant_blocks(p, b->variant);
    switch (b->variant) {
    case V_TC:
        brp_tc_kernel<<<grid, tc_threads(p), 0, s>>>(p->win, p->lid, p->col, p->val, B, C,
                                                      b->rows, b->n);
        return TC_LAUNCHED(err, "brp_tc_kernel");
    case V_TC_WIDE:
        brp_tc_wide_kernel<<<grid, WIDE_WARPS * 32, 0, s>>>(p->ngroups, p->chunk, (int)panels(p),
                                                            p->win, p->lid, p->col, p->val, B, C,
                                                            b->rows, b->n);
        return TC_LAUNCHED(err, "brp_tc_wide_kernel");
    default:
        brp_cuda_kernel<<<grid, WIDE_WARPS * 32, 0, s>>>(p->ngroups, (int)panels(p), p->win,
                                                         p->lid, p->col, p->val, B, C, b->rows,
                                                         b->n);
        return TC_LAUNCHED(err, "brp_cuda_kernel");
    }
}

/* tc-window: the first launch writes all of C (the residual rows too, unless
   `residual` is 0), the second adds the later chunks of long windows. */
static tc_status run_window(brp_plan *p, const float *B, float *C, int residual, tc_error *err)
{
    const tc_kplan *b = &p->base;
    cudaStream_t s = b->gpu->stream;
    const int pn = (int)panels(p);
    if (p->nwin == 0)
        return TC_OK;
    brp_window_kernel<<<(unsigned)window_blocks(p), p->window_warps * 32, 0, s>>>(
        pn, p->win_grp, residual ? p->win_res : NULL, p->lid, p->col, p->val, p->res_row,
        p->res_off, p->res_col, p->res_val, B, C, b->rows, b->n);
    tc_status st = TC_LAUNCHED(err, "brp_window_kernel");
    if (st != TC_OK || p->nitems == 0)
        return st;
    brp_window_rest_kernel<<<(unsigned)rest_blocks(p), WIDE_WARPS * 32, 0, s>>>(
        p->nitems, p->items, pn, p->win_grp, p->win, p->lid, p->col, p->val, B, C, b->rows, b->n);
    return TC_LAUNCHED(err, "brp_window_rest_kernel");
}

/* A tc-item variant, W warps per block: one launch writes all of C (the
   residual rows too, unless `residual` is 0). */
template <int W, bool LONG>
static tc_status run_item(brp_plan *p, const tc_item_set *s, const float *B, float *C,
                          int residual, tc_error *err)
{
    const tc_kplan *b = &p->base;
    if (s->nitem == 0)
        return TC_OK;
    brp_item_kernel<W, LONG><<<(unsigned)(s->nitem * panels(p)), W * 32, 0, b->gpu->stream>>>(
        (int)panels(p), (const tc_item<W> *)s->item, p->lid, p->col, p->val, p->rlid, p->rcol,
        p->rval, residual, s->ws, s->counters, B, C, b->rows, b->n);
    return TC_LAUNCHED(err, "brp_item_kernel");
}

static tc_status run_residual(brp_plan *p, const float *B, float *C, tc_error *err)
{
    if (p->nres_rows == 0)
        return TC_OK;
    brp_residual_kernel<<<(unsigned)res_blocks(p), RES_THREADS, 0, p->base.gpu->stream>>>(
        p->nres_rows, res_across(p), p->res_row, p->res_off, p->res_col, p->res_val, B, C,
        p->base.n);
    return TC_LAUNCHED(err, "brp_residual_kernel");
}

/* The TC Block part (which writes all of C) with or without the residual
   rows: tc-window and tc-item run them inside their launch, the others
   leave them to run_residual. */
static tc_status run_tc_part(brp_plan *p, const float *B, float *C, int residual,
                             tc_error *err)
{
    switch (p->base.variant) {
    case V_TC_WINDOW: return run_window(p, B, C, residual, err);
    case V_TC_ITEM: return run_item<4, false>(p, &p->isets[0], B, C, residual, err);
    case V_TC_ITEM8: return run_item<8, false>(p, &p->isets[1], B, C, residual, err);
    case V_TC_ITEM_LONG: return run_item<4, true>(p, &p->isets[2], B, C, residual, err);
    case V_TC_ITEM8_LONG: return run_item<8, true>(p, &p->isets[3], B, C, residual, err);
    default: return run_blocks(p, B, C, err);
    }
}

/* The TC Block part (which writes all of C) or the Residual Row part (which
   adds into it) alone. */
static tc_status brp_run_part(tc_kplan *base, int part, const float *B, float *C,
                              tc_error *err)
{
    brp_plan *p = (brp_plan *)base;
    if (part == PART_RESIDUAL)
        return run_residual(p, B, C, err);
    return run_tc_part(p, B, C, 0, err);
}

static tc_status brp_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    brp_plan *p = (brp_plan *)base;
    const int v = base->variant;
    tc_status st = run_tc_part(p, B, C, 1, err);
    if (v == V_TC_WINDOW || (v >= V_TC_ITEM && v <= V_TC_ITEM8_LONG))
        return st;      /* the residual rows ran inside the launch */
    return st == TC_OK ? run_residual(p, B, C, err) : st;
}

/* ------------------------------------------------------------------------ */
/* Plan                                                                      */
/* ------------------------------------------------------------------------ */

static void brp_free(tc_kplan *base)
{
    brp_plan *p = (brp_plan *)base;
    if (!p)
        return;
    tc_gpu *g = p->base.gpu;
    tc_gpu_free(g, p->win);
    tc_gpu_free(g, p->lid);
    tc_gpu_free(g, p->col);
    tc_gpu_free(g, p->val);
    tc_gpu_free(g, p->res_row);
    tc_gpu_free(g, p->res_off);
    tc_gpu_free(g, p->res_col);
    tc_gpu_free(g, p->res_val);
    tc_gpu_free(g, p->win_grp);
    tc_gpu_free(g, p->win_res);
    tc_gpu_free(g, p->items);
    tc_gpu_free(g, p->rlid);
    tc_gpu_free(g, p->rcol);
    tc_gpu_free(g, p->rval);
    tc_item_sets_free(g, p->isets);
    free(p);
}

/* The format's arrays on the device; values in float32 (none for a pattern
   matrix: the kernels take 1). */
static tc_status upload(brp_plan *p, const tc_brp *m, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    const int64_t te = p->ngroups * GROUP_NNZ, re = p->nres_nnz;
    tc_status st = tc_gpu_upload_new(g, m->group_window_id, p->ngroups * 4, (void **)&p->win, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->local_id, te, (void **)&p->lid, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->old_col_id, te * 4, (void **)&p->col, err);
    if (st == TC_OK && m->values)
        st = tc_gpu_upload_f32(g, m->values, te, &p->val, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_row_id, p->nres_rows * 4, (void **)&p->res_row, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_row_offset, (p->nres_rows + 1) * 8,
                               (void **)&p->res_off, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_col_id, re * 4, (void **)&p->res_col, err);
    if (st == TC_OK && m->res_values)
        st = tc_gpu_upload_f32(g, m->res_values, re, &p->res_val, err);
    p->base.a_bytes = p->ngroups * 4 + te * (1 + 4 + (m->values ? 4 : 0)) +
                      p->nres_rows * (4 + 8) + 8 + re * (4 + (m->res_values ? 4 : 0));
    return st;
}

/* Where each of the nw row windows' groups and residual rows start (nw + 1
   each, in one array: groups first), from one counting pass over the groups
   and one over the residual rows, both sorted by window. */
static int64_t *window_starts(const brp_plan *p, const tc_brp *m, int64_t nw, tc_error *err)
{
    int64_t *wg = (int64_t *)tc_calloc_array(2 * (nw + 1), sizeof *wg, err);
    if (!wg)
        return NULL;
    int64_t *wr = wg + nw + 1;
    for (int64_t i = 0; i < p->ngroups; i++)
        wg[m->group_window_id[i] + 1]++;
    for (int64_t i = 0; i < p->nres_rows; i++)
        wr[m->res_row_id[i] / BRP_H + 1]++;
    for (int64_t w = 0; w < nw; w++) {
        wg[w + 1] += wg[w];
        wr[w + 1] += wr[w];
    }
    return wg;
}

/* tc-window's index, uploaded beside the format's arrays: where each of the
   nw windows' groups and residual rows start (wg, from window_starts), and
   the later chunks of the long windows. */
static tc_status window_index(brp_plan *p, int64_t nw, const int64_t *wg, tc_error *err)
{
    /* warps per window block: half the mean groups per window, as a power
       of two, so that the typical window is one step of its warps and the
       blocks of sparse windows hold no idle warps (their registers limit
       how many blocks an SM runs) */
    const int64_t half_mean = nw ? ceil_div(ceil_div(p->ngroups, nw), 2) : 1;
    p->window_warps = 1;
    while (p->window_warps < WINDOW_MAX_WARPS && p->window_warps < half_mean)
        p->window_warps *= 2;
    const int64_t per_block = 2 * p->window_warps;
    const int64_t *wr = wg + nw + 1;
    int64_t nitems = 0;
    for (int64_t w = 0; w < nw; w++)
        nitems += wg[w + 1] - wg[w] > per_block ?
                  ceil_div(wg[w + 1] - wg[w] - per_block, REST_CHUNK) : 0;
    int64_t *items = (int64_t *)tc_malloc_array(nitems, sizeof *items, err);
    tc_status st = items ? TC_OK : TC_ERR_NOMEM;
    int64_t k = 0;
    for (int64_t w = 0; w < nw && st == TC_OK; w++)
        for (int64_t g = wg[w] + per_block; g < wg[w + 1]; g += REST_CHUNK)
            items[k++] = g;
    p->nwin = nw;
    p->nitems = nitems;
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, wg, (nw + 1) * 8, (void **)&p->win_grp, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, wr, (nw + 1) * 8, (void **)&p->win_res, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, items, nitems * 8, (void **)&p->items, err);
    free(items);
    return st;
}

/* tc-item's residual pseudo-groups: window w's residual nonzeros (rows
   wr[w] .. wr[w + 1], in order) in runs of GROUP_NNZ laid out as groups
   (local_id row * w, old_col_id, value), the last run of each window padded
   with copies of its first entry of value 0; rstart[w] gets the window's
   first pseudo-group (nw + 1 entries). Uploaded to rlid, rcol, rval. */
static tc_status residual_groups(brp_plan *p, const tc_brp *m, int64_t nw, const int64_t *wr,
                                 int64_t *rstart, tc_error *err)
{
    rstart[0] = 0;
    for (int64_t w = 0; w < nw; w++)
        rstart[w + 1] = rstart[w] + ceil_div(m->res_row_offset[wr[w + 1]] -
                                             m->res_row_offset[wr[w]], GROUP_NNZ);
    p->nrgrp = rstart[nw];
    const int64_t ne = p->nrgrp * GROUP_NNZ;
    uint8_t *lid = (uint8_t *)tc_malloc_array(ne, 1, err);
    int32_t *col = (int32_t *)tc_malloc_array(ne, sizeof *col, err);
    float *val = (float *)tc_malloc_array(ne, sizeof *val, err);
    tc_status st = lid && col && val ? TC_OK : TC_ERR_NOMEM;
    for (int64_t w = 0; w < nw && st == TC_OK; w++) {
        int64_t e = rstart[w] * GROUP_NNZ;
        for (int64_t r = wr[w]; r < wr[w + 1]; r++)
            for (int64_t k = m->res_row_offset[r]; k < m->res_row_offset[r + 1]; k++, e++) {
                lid[e] = (uint8_t)((m->res_row_id[r] - w * BRP_H) * BRP_W);
                col[e] = m->res_col_id[k];
                val[e] = m->res_values ? (float)m->res_values[k] : 1.0f;
            }
        for (const int64_t first = rstart[w] * GROUP_NNZ; e < rstart[w + 1] * GROUP_NNZ; e++) {
            lid[e] = lid[first];
            col[e] = col[first];
            val[e] = 0.0f;
        }
    }
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, lid, ne, (void **)&p->rlid, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, col, ne * 4, (void **)&p->rcol, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, val, ne * 4, (void **)&p->rval, err);
    free(lid);
    free(col);
    free(val);
    return st;
}

/* tc_item_set_build's view of brp's windows: window w's units are its
   groups, wg[w] .., then its residual pseudo-groups, rstart[w] ..; a ranged
   item's unit[0] and unit[1] are its first group and first pseudo-group,
   unit[2] and unit[3] how many of each. */
struct brp_units {
    const int64_t *wg, *rstart;
    int64_t groups(int64_t w) const { return wg[w + 1] - wg[w]; }
    int64_t count(int64_t w) const { return groups(w) + rstart[w + 1] - rstart[w]; }
    int64_t code(int64_t w, int64_t i) const
    {
        const int64_t ng = groups(w);
        return i < ng ? tc_unit_code(wg[w] + i, 0) : tc_unit_code(rstart[w] + i - ng, 1);
    }
    template <int W> void range(tc_item<W> *it, int64_t w, int64_t lo, int64_t hi) const
    {
        const int64_t ng = groups(w), glo = lo < ng ? lo : ng, ghi = hi < ng ? hi : ng;
        it->unit[0] = wg[w] + glo;
        it->unit[1] = rstart[w] + lo - glo;
        it->unit[2] = ghi - glo;
        it->unit[3] = (hi - ghi) - (lo - glo);
    }
};

/* The tc-item variants' data, from the nw windows' starts (wg): the
   residual pseudo-groups, and each variant's items (isets in enum order). */
static tc_status items_index(brp_plan *p, const tc_brp *m, int64_t nw, const int64_t *wg,
                             tc_error *err)
{
    int64_t *rstart = (int64_t *)tc_malloc_array(nw + 1, sizeof *rstart, err);
    tc_status st = rstart ? residual_groups(p, m, nw, wg + nw + 1, rstart, err) : TC_ERR_NOMEM;
    const brp_units u = { wg, rstart };
    if (st == TC_OK)
        st = tc_item_sets_build(p->base.gpu, p->isets, nw, panels(p), u, err);
    free(rstart);
    return st;
}

/* Groups per warp in tc-wide: as many as still leave two full waves of warps
   on the device (more merge more atomics, fewer keep more loads in flight),
   between 1 and WIDE_MAX_CHUNK. */
static int wide_chunk(const brp_plan *p, const tc_gpu_info *info)
{
    const int64_t resident = (int64_t)info->sm_count * 64;     /* warps */
    const int64_t c = p->ngroups * panels(p) / (2 * resident);
    return c < 1 ? 1 : c > WIDE_MAX_CHUNK ? WIDE_MAX_CHUNK : (int)c;
}

static tc_status brp_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                             const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)a;
    if (!m || strcmp(tc_format_name(tc_fmt_format(m)), "brp") != 0)
        return tc_error_set(err, TC_ERR_ARG, "brp kernel: the matrix is not in the brp format");
    const tc_brp *b = (const tc_brp *)m;
    if (b->h != BRP_H || b->w != BRP_W || b->f != 1 || b->g != BRP_G)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "brp kernel: built with h=%d w=%d f=%d g=%d; the GPU kernels take "
                            "h=16 w=8 f=1 g=4 only (the paper's; rebuild with the defaults)",
                            b->h, b->w, b->f, b->g);
    brp_plan *p = (brp_plan *)calloc(1, sizeof *p);
    if (!p)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    p->base.gpu = g;
    p->base.n = o->n;
    p->ngroups = b->ngroups;
    p->nres_rows = b->nres_rows;
    p->nres_nnz = b->res_row_offset[b->nres_rows];
    p->chunk = wide_chunk(p, tc_gpu_get_info(g));
    p->base.nparts = NPARTS;
    for (int i = 0; i < NPARTS; i++)
        p->base.part_names[i] = part_names[i];
    p->base.part_nnz[PART_BLOCKS] = p->ngroups * GROUP_NNZ;
    p->base.part_nnz[PART_RESIDUAL] = p->nres_nnz;
    const int64_t nw = ceil_div(b->base.rows, BRP_H);
    tc_status st = upload(p, b, err);
    int64_t *wg = st == TC_OK ? window_starts(p, b, nw, err) : NULL;
    if (st == TC_OK && !wg)
        st = TC_ERR_NOMEM;
    if (st == TC_OK)
        st = window_index(p, nw, wg, err);
    if (st == TC_OK)
        st = items_index(p, b, nw, wg, err);
    free(wg);
    if (st == TC_OK && res_blocks(p) > INT32_MAX)
        st = tc_error_set(err, TC_ERR_UNSUPPORTED, "brp kernel: %lld residual rows is too many",
                          (long long)p->nres_rows);
    if (st != TC_OK) {
        brp_free(&p->base);
        return st;
    }
    *out = &p->base;
    return TC_OK;
}

/* A variant runs when its grid fits in one launch. */
static tc_status brp_select(tc_kplan *base, int v, tc_error *err)
{
    brp_plan *p = (brp_plan *)base;
    if (variant_blocks(p, v) > INT32_MAX ||
        (v == V_TC_WINDOW && rest_blocks(p) > INT32_MAX))
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "brp kernel %s: %lld thread blocks is more than one launch takes",
                            variant_names[v], (long long)variant_blocks(p, v));
    base->variant = v;
    return TC_OK;
}

extern "C" const tc_kernel tc_kernel_brp = {
    "brp",
    "BRP-SpMM: TC Block Groups on tensor cores (TF32 mma.m16n8k8), Residual Rows on CUDA cores",
    "tf32",
    NVARIANTS,
    variant_names,
    variant_spreads,
    brp_prepare,
    brp_select,
    brp_run,
    brp_free,
    brp_run_part,
};
