/*
 * hrpb.cu: the GPU kernel of the hrpb format (cuTeSpMM, seed 002, Algorithm
 * 1 and Section 5), on the arrays of formats/hrpb.h.
 *
 * Work (Section 3.3): the unit is a row panel, or a virtual panel when
 * Section 5's load balancing cut a heavy panel into several (below), times
 * TN = 32 columns of C: one warp, 4 n-tiles of 8 (the paper's warp
 * coarsening: 4 MMAs per brick). The warps of a thread block (WARPS of
 * them) take consecutive units (the team variants, below, share one
 * instead): for N = 128 that is the paper's thread
 * block of one panel and 128 columns; for N <= 32 (one unit per panel) it
 * puts 4 panels in a block, which is the paper's "fewer warps for small N"
 * (N / (4 * 8) warps per panel) without the limit of 32 thread blocks per
 * SM that 1-warp blocks would meet. Each warp walks its panel's blocks in
 * order and keeps its 16 x 32 tile of C in registers (c_frag), written once
 * at the end (Algorithm 1 line 46) with 16-byte stores; only the virtual
 * panels of a split panel add theirs with atomics, into rows that a short
 * launch zeroed first (one thread block per split panel: its rows are
 * contiguous in C). A panel without a block still gets its warps, which
 * write its zeros.
 *
 * Per block (Algorithm 1 lines 14-41): its packed bytes (hrpb.h: colPtr,
 * rows, patterns, float32 values; at most BLOCK_BYTES, 16-byte aligned) are
 * copied to shared memory 16 bytes per lane, coalesced (line 17), and the
 * 16 rows of B of its active columns, the warp's 32 columns of each, next
 * to them (lines 19-22; a dummy column of the panel's last block (-1)
 * fills its row with zeros and reads nothing, so no padding slot reads a
 * row of B). Then for each brick column, its B fragments come out of
 * shared memory (line 27) and its brick's A fragment is decoded from the
 * 64-bit pattern with popc prefix counts: lane L holds a0 = bit L, a1 =
 * bit L + 32 (lines 31-37, hrpb.h); A and B are rounded with
 * cvt.rna.tf32.f32, and 4 mma.m16n8k4 add the brick into c_frag (lines
 * 40-41). With TM = 16 a brick column has one brick at most, always in
 * brick row 0, so its `rows` entry is not read; with TM = 32 (the
 * paper's Section 3.2 allows it, its evaluation runs 16) a warp's tile of
 * C is 32 x 32, and both brick rows of a brick column take the same B
 * fragment: a block's 16 rows of B serve 32 rows of A.
 *
 * Unlike Algorithm 1, each warp stages its own copy of the block and its
 * own 32 columns of B, in its own part of shared memory, so that warps
 * never wait on each other (no __syncthreads): the block's bytes are read
 * once per warp (from L2 after the first), about a quarter of what the warp
 * reads of B.
 *
 * Load balancing (Section 5): Total_thread_blocks is what the panels
 * would take unsplit, and the device holds NUM_SMs * NUM_THREAD_BLK_PER_SM
 * of them at once: the SM count of the GPU present (tc_gpu_get_info) times
 * what cudaOccupancyMaxActiveBlocksPerMultiprocessor says for this
 * variant's kernel with its real block size and shared memory. num_waves
 * = Total_thread_blocks / that; a panel of nb blocks has num_loads = nb /
 * AVG_BLK_ROW_PANEL (Eq. 6, the mean over all panels) and partition_ratio
 * = num_loads / num_waves (Eq. 7), and is cut into that many virtual panels
 * of nearly equal block counts. Where the paper is silent we chose, and
 * measured on the H200 (bench/NOTES.md, "hrpb"):
 *   - num_waves is not rounded up, so that a matrix that does not fill the
 *     device (fewer than one wave) has its panels cut until it does: the
 *     32 panels of 128 blocks of dlmc_transformer ran 2-8x faster so;
 *   - the ratio is rounded to the nearest: with ceil, every panel just
 *     above the mean was cut in two (kim1: all panels 6-7 blocks);
 *   - a virtual panel keeps at least MIN_PIECE blocks: single-block pieces
 *     were 8-55% slower than pieces of 4 or more on dlmc_transformer,
 *     bcsstk17, kim1 and rajat01 (bcsstk13 the exception): every piece
 *     pays its atomics and a first block whose loads nothing overlaps;
 *   - the paper keeps panels in their order (for the reuse of B between
 *     neighbours) and relies on a heavy panel starting early; ours start
 *     the virtual panels of heavy panels (num_loads >= 2) first, in order,
 *     then all the others in order: 3dtube's three panels of 149 blocks
 *     (12 times the mean) otherwise started late and ran alone at the end.
 *
 * Variants (timed by tc_kernel_tune), listed most often fastest first
 * (results/hrpb.tsv at 3099154, 96 rows: tc-wide 36, tc 24, tc-wide-sync
 * 16, tc-team-sync 12, tc-team 5, tc-sync 3; cuda is the NaN/Inf
 * fallback), so that a plan that times nothing runs tc-wide, or tc at
 * N <= 32, where the wide ones are refused:
 *   "tc"      a ring of STAGES blocks per warp: block b + 1's bytes and rows
 *             of B are fetched with cp.async while block b is decoded and
 *             multiplied, and each fetch's metadata (sizePtr, activeCols)
 *             are loaded LEAD blocks ahead of it.
 *   "tc-sync" one stage: each block is fetched, waited for, then
 *             multiplied, as Algorithm 1 orders it (line 22's barrier);
 *             the metadata one block ahead. Half the shared memory of
 *             "tc" and fewer registers, so more warps per SM.
 *   "tc-team", "tc-team-sync"
 *             as "tc" and "tc-sync", but the TEAM_WARPS warps of a thread
 *             block share one unit: each walks a consecutive run of its
 *             blocks (split-K inside the thread block, where the paper's
 *             warps split N), and their tiles are added in shared memory
 *             and stored once, with no atomics. A matrix that does not
 *             fill the device then runs many more warps on much shorter
 *             chains, in one launch: bcsstk13 (126 panels of at most 16
 *             blocks) runs chains of at most 2 blocks, where "tc" cut it
 *             into 230 virtual panels of 4-7 blocks, under two warps per
 *             SM, after a zeroing launch. Section 5 counts their thread
 *             blocks as its units, and their virtual panels keep at least
 *             MIN_PIECE blocks per warp. 8 warps: 16 were 5% faster on
 *             bcsstk13 at N = 32 and 15% slower at N = 128 (H100).
 *   "tc-wide", "tc-wide-sync"
 *             as "tc" and "tc-sync", but a warp takes WIDE_TN = 64 columns
 *             of C (8 n-tiles): each brick's pattern and values are
 *             decoded once for 8 MMAs, not 4, and a block's bytes are
 *             staged by half as many warps. The decode (popc, selects,
 *             TF32 rounding), not the MMAs, is most of a warp's
 *             instructions, and at N >= 64 the kernel is issue-bound: on
 *             the 27-point stencil after hmatch at N = 128 (TM = 32), ncu
 *             counts 73% of issue slots busy, ALU the busiest pipe, and
 *             "tc-wide" runs in 1.19 ms against "tc"'s 1.45 (H100,
 *             bench/NOTES.md, "hrpb at scale"). Twice the registers for C
 *             (fewer warps an SM); refused at N <= 32, where half its
 *             columns would be empty.
 *   "cuda"    CUDA cores, float32: a lane per column of C, 16 sums per
 *             lane; each brick's set bits only, one FMA each. The
 *             tensor-core variants multiply a brick's zeros by its columns'
 *             rows of B (0 * Inf = NaN in rows that do not use that row:
 *             the padding pitfall of DESIGN.md, which the dummy columns
 *             avoid but the zeros inside a brick cannot), so they are
 *             marked in variant_spreads and tcmul runs "cuda" when B is not
 *             all finite.
 * When N is not a multiple of 4, rows of B are not 16-byte aligned: the
 * tensor-core variants then stage B with plain 4-byte loads (no cp.async),
 * and only the block's bytes are in flight ahead.
 *
 * Shapes: TK = 16 (the paper's) and TM = 16 or 32; select refuses others
 * with TC_ERR_UNSUPPORTED. TM = 32 gathers fewer rows of B where a 32-row
 * panel has fewer than twice a 16-row one's columns (rows ordered into
 * bricks of a grid: tcreorder -r hmatch), at twice the registers for C.
 * Precision "tf32": A and B rounded to TF32, products summed in float32.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "gpu_internal.h"
#include "segments.h"
#include "hrpb.h"
#include "mma.cuh"
#include "rowaddr.cuh"

#define BRICK_ROWS TC_SEG_ROWS  /* rows of a brick, and of a segment */
#define TK 16                   /* compacted columns per block */
#define STRIPS (TK / TC_BRICK_K)        /* brick columns per block */
#define TN 32                   /* columns of C per warp (Section 3.3) */
#define WIDE_TN 64              /* the "wide" variants': 8 MMAs a decoded brick */
#define WARPS 4                 /* warps per thread block */
#define TEAM_WARPS 8            /* "tc-team": warps sharing a unit */
#define STAGES 2                /* "tc": blocks in flight per warp */
#define LEAD 2                  /* "tc": steps by which metadata lead fetches */
#define MIN_PIECE 4             /* the fewest blocks of a virtual panel */
/* The largest block of a panel of PR rows: colPtr (5 bytes) and rows
   (PR / 16 * 4) padded to 8, its bricks' patterns, PR * TK values:
   tc_hrpb_block_bytes(16, PR / 16 * 4, PR * 16), 1072 and 2128 bytes. */
#define BLOCK_BYTES(PR) \
    (((STRIPS + 1 + (PR) / BRICK_ROWS * STRIPS + 7) / 8 * 8 + 8 * ((PR) / BRICK_ROWS * STRIPS) + \
      4 * (PR) * TK + 15) / 16 * 16)
/* Row pitch of a stage's B (floats) for a warp of W columns: the 8 lanes
   of a quarter warp read 16 bytes each at row tig, column 4 gid (+ 32)
   (multiply); a pitch of 8 mod 32 banks puts them in 8 different 16-byte
   bank groups. */
#define B_PITCH(W) ((W) + 8)

enum { V_WIDE, V_TC, V_WIDE_SYNC, V_TEAM_SYNC, V_TEAM, V_TC_SYNC, V_CUDA, NVARIANTS };
static const char *const variant_names[NVARIANTS] = { "tc-wide", "tc",      "tc-wide-sync",
                                                      "tc-team-sync", "tc-team", "tc-sync",
                                                      "cuda" };
static const unsigned char variant_spreads[NVARIANTS] = { 1, 1, 1, 1, 1, 1, 0 };

/* Everything a launch reads, passed by value. */
typedef struct hr_args {
    const tc_seg *seg;
    int64_t units;              /* virtual panels * tiles */
    int tiles;                  /* the variant's tiles of C: ceil(N / its warp's columns) */
    const int64_t *sizePtr;
    const int32_t *activeCols;
    const uint8_t *packed;
    const float *B;
    float *C;
    int32_t rows;
    int32_t n;
} hr_args;

/* Where a block's patterns start: hrpb.h's tc_hrpb_patterns_at(TK, nb),
   which the device cannot call. */
static __device__ __forceinline__ int patterns_at(int nb)
{
    return (STRIPS + 1 + nb + 7) / 8 * 8;
}

/* ------------------------------------------------------------------------ */
/* "tc", "tc-sync"                                                           */
/* ------------------------------------------------------------------------ */

/* One stage of a warp's ring: a block's bytes (PR rows) and its 16 rows
   of B (the warp's W columns). */
template <int PR, int W> struct stage {
    uint4 a[BLOCK_BYTES(PR) / 16];
    float b[TK * B_PITCH(W)];
};

/* What a fetch reads from global memory before it can start: where the
   block's bytes are, their 16-byte chunks, and, in lane L, the matrix
   column of compacted column L % 16. */
struct meta {
    int64_t at;
    int chunks;
    int32_t col;
};

static __device__ __forceinline__ meta meta_of(const hr_args &a, int64_t blk, int lane)
{
    const int64_t at = a.sizePtr[blk];
    return { at, (int)((a.sizePtr[blk + 1] - at) / 16),
             a.activeCols[blk * TK + (lane & (TK - 1))] };
}

/* Starts copying block m into st (one cp.async group): its bytes, lane l
   the 16-byte chunks l, l + 32, ...; then B's rows. VEC (N % 4 == 0): 16
   rows of W / 4 chunks, chunk q = l + 32 j of them the one of lane l;
   else lane l columns l, l + 32, ... of each row, loaded now. Columns at
   or past N, and dummy columns, are zeros. */
template <int PR, int W, bool VEC>
static __device__ __forceinline__ void fetch(const hr_args &a, const meta &m, stage<PR, W> *st,
                                             int32_t tile0, int lane)
{
    const uint4 *src = (const uint4 *)(a.packed + m.at);
#pragma unroll
    for (int j = 0; j < (BLOCK_BYTES(PR) / 16 + 31) / 32; j++)
        if (lane + 32 * j < m.chunks)
            tc_cp_async16(&st->a[lane + 32 * j], src + lane + 32 * j, 1);
    if (VEC) {
#pragma unroll
        for (int j = 0; j < TK * W / 4 / 32; j++) {
            const int q = lane + 32 * j, k = q / (W / 4), c = 4 * (q % (W / 4));
            const int32_t col = __shfl_sync(0xffffffffu, m.col, k);
            const bool in = col != TC_HRPB_DUMMY_COL && tile0 + c < a.n;
            tc_cp_async16(&st->b[k * B_PITCH(W) + c],
                          a.B + (in ? tc_row_elems(col, a.n) + tile0 + c : 0), in);
        }
    } else {
#pragma unroll
        for (int k = 0; k < TK; k++) {
            const int32_t col = __shfl_sync(0xffffffffu, m.col, k);
#pragma unroll
            for (int c = lane; c < W; c += 32) {
                const bool in = col != TC_HRPB_DUMMY_COL && tile0 + c < a.n;
                st->b[k * B_PITCH(W) + c] =
                    in ? __ldg(a.B + tc_row_elems(col, a.n) + tile0 + c) : 0.0f;
            }
        }
    }
    tc_cp_async_commit();
}

/* acc += the block in st times its rows of B (Algorithm 1 lines 23-41).
   - The pattern's 32-bit halves: lane L's a0 is bit L of the low one, its
     a1 bit L of the high one, so the prefix counts are popc of the halves
     under (1 << L) - 1. Both values are read whatever the bits (an index
     past the brick's values stays inside the stage) and replaced by 0
     where the bit is clear, so that no lane branches.
   - n-tile t of the warp takes the tile's columns 4 j + t (j = 0..7): lane
     (gid, tig) then needs columns 4 gid .. 4 gid + 3 of B row 4 bc + tig,
     one 16-byte load, and its C fragments end up holding 8 consecutive
     columns of each of its two rows (store_tile). W = 64: the same for
     columns 32 .. 63, into acc[h][4 .. 7]: a brick decoded once for 8
     MMAs, not 4 (a warp per 64 columns where N allows).
   - PR = 32: a brick column holds a brick in brick row 0, 1 or both (its
     `rows` bytes say which), and both take the same B fragment: acc[h]
     is brick row h's. The rows of B a block gathers serve 32 rows of A,
     not 16: where a 32-row panel's columns are fewer than twice a 16-row
     one's (a brick of a 3-D grid's rows), fewer gathers in all. */
template <int PR, int W>
static __device__ __forceinline__ void multiply(const stage<PR, W> *st, int lane,
                                                float acc[PR / BRICK_ROWS][W / 8][4])
{
    const uint8_t *blk = (const uint8_t *)st->a;
    const int gid = lane >> 2, tig = lane & 3;
    const uint64_t head = *(const uint64_t *)blk;       /* colPtr[0 .. STRIPS] */
    const int nb = (int)(head >> (8 * STRIPS)) & 0xff, pa = patterns_at(nb);
    const uint8_t *brick_row = blk + STRIPS + 1;
    const uint2 *pattern = (const uint2 *)(blk + pa);
    const float *value = (const float *)(blk + pa + 8 * nb);
    const uint32_t below = (1u << lane) - 1;
    int offset = 0;             /* nnz_offset: the brick's first value */
#pragma unroll
    for (int bc = 0; bc < STRIPS; bc++) {
        int j = (int)(head >> (8 * bc)) & 0xff;
        const int end = (int)(head >> (8 * bc + 8)) & 0xff;
        if (j == end)
            continue;
        uint32_t bf[W / 8];     /* n-tile t's B fragment */
#pragma unroll
        for (int q = 0; q < W / 32; q++) {
            const float4 b =
                *(const float4 *)&st->b[(TC_BRICK_K * bc + tig) * B_PITCH(W) + 32 * q + 4 * gid];
            bf[4 * q] = tc_tf32(b.x);
            bf[4 * q + 1] = tc_tf32(b.y);
            bf[4 * q + 2] = tc_tf32(b.z);
            bf[4 * q + 3] = tc_tf32(b.w);
        }
#pragma unroll
        for (int h = 0; h < PR / BRICK_ROWS; h++) {
            if (PR > BRICK_ROWS && (j == end || brick_row[j] != h))
                continue;
            const uint2 p = pattern[j++];
            const int low = __popc(p.x);
            const float v0 = value[offset + __popc(p.x & below)];
            const float v1 = value[offset + low + __popc(p.y & below)];
            const uint32_t a0 = tc_tf32((p.x >> lane) & 1 ? v0 : 0.0f);
            const uint32_t a1 = tc_tf32((p.y >> lane) & 1 ? v1 : 0.0f);
            offset += low + __popc(p.y);
#pragma unroll
            for (int t = 0; t < W / 8; t++)
                tc_mma_m16n8k4_tf32(acc[h][t], a0, a1, bf[t]);
        }
    }
}

/* The warp's ring over blocks [lo, hi): block f is fetched at step f (the
   first S - 1 before any multiply), block b multiplied at step b + S - 1
   once its group has landed; the metadata of block f are read at step
   f - D into a queue of D, so that a fetch does not wait on a load that
   was issued only one short step before. */
template <int S, int D, bool VEC, int PR, int W>
static __device__ void tc_range(const hr_args &a, int64_t lo, int64_t hi, int32_t tile0,
                                stage<PR, W> *ring, float acc[PR / BRICK_ROWS][W / 8][4])
{
    const int lane = threadIdx.x & 31;
    meta q[D];
#pragma unroll
    for (int i = 0; i < D; i++)
        q[i] = lo + i < hi ? meta_of(a, lo + i, lane) : meta{ 0, 0, 0 };
    int fs = 0, bs = 0;         /* the stages of the next fetch and multiply */
    int64_t f = lo;
    for (int64_t b = lo - (S - 1); b < hi; b++, f++) {
        if (f < hi) {
            const meta m = q[0];
#pragma unroll
            for (int i = 0; i + 1 < D; i++)
                q[i] = q[i + 1];
            if (f + D < hi)
                q[D - 1] = meta_of(a, f + D, lane);
            fetch<PR, W, VEC>(a, m, &ring[fs], tile0, lane);
            fs = fs + 1 == S ? 0 : fs + 1;
        } else {
            tc_cp_async_commit();
        }
        if (b < lo)
            continue;
        tc_cp_async_wait<S - 1>();
        __syncwarp();
        multiply(&ring[bs], lane, acc);
        bs = bs + 1 == S ? 0 : bs + 1;
        __syncwarp();           /* this stage is refilled S - 1 steps on */
    }
    tc_cp_async_wait<0>();
}

/* The warp's PR x W tile of C from multiply's fragments: in brick row
   br's (acc[br]) 32 columns from 32 q (acc[br][4 q ..]), lane (gid, tig)
   holds columns tile0 + 32 q + 8 tig + 4 h + t of row 16 br + gid
   (acc[br][4 q + t][h]) and of row 16 br + gid + 8 (acc[br][4 q + t][2 + h]),
   t = 0..3, h = 0, 1. */
template <int PR, int W, bool VEC>
static __device__ __forceinline__ void store_tile(const tc_seg &s, const hr_args &a,
                                                  int32_t tile0, int lane,
                                                  const float acc[PR / BRICK_ROWS][W / 8][4])
{
    const int gid = lane >> 2, tig = lane & 3;
#pragma unroll
    for (int br = 0; br < PR / BRICK_ROWS; br++)
#pragma unroll
        for (int q = 0; q < W / 32; q++)
#pragma unroll
            for (int e = 0; e < 4; e++) /* row gid + 8 (e / 2), h = e % 2 */
                tc_seg_putv(s, a.C, a.n, BRICK_ROWS * br + gid + 8 * (e >> 1),
                            tile0 + 32 * q + 8 * tig + 4 * (e & 1),
                            tc_acc_row(acc[br] + 4 * q, e >> 1, e & 1), VEC);
}

/* ------------------------------------------------------------------------ */
/* "cuda"                                                                    */
/* ------------------------------------------------------------------------ */

/* acc[r] += row r of blocks [lo, hi) times column c of B: each brick's set
   bits only (bit 4 r + j of brick row br's brick: row 16 br + r, its brick
   column's compacted column j), values in the bits' order. */
template <int PR>
static __device__ void cuda_range(const hr_args &a, int64_t lo, int64_t hi, int32_t c,
                                  float acc[PR])
{
    const bool in = c < a.n;
    for (int64_t b = lo; b < hi; b++) {
        const uint8_t *blk = a.packed + a.sizePtr[b];
        const int nb = blk[STRIPS], pa = patterns_at(nb);
        const uint8_t *brick_row = blk + STRIPS + 1;
        const uint64_t *pattern = (const uint64_t *)(blk + pa);
        const float *value = (const float *)(blk + pa + 8 * nb);
        int offset = 0;
        for (int bc = 0; bc < STRIPS; bc++) {
            int k = blk[bc];
            const int end = blk[bc + 1];
            if (k == end)
                continue;
            float x[TC_BRICK_K];
#pragma unroll
            for (int j = 0; j < TC_BRICK_K; j++) {
                const int32_t col = a.activeCols[b * TK + TC_BRICK_K * bc + j];
                x[j] = in && col != TC_HRPB_DUMMY_COL ? a.B[tc_row_elems(col, a.n) + c] : 0.0f;
            }
#pragma unroll
            for (int br = 0; br < PR / BRICK_ROWS; br++) {
                if (PR > BRICK_ROWS && (k == end || brick_row[k] != br))
                    continue;
                const uint64_t p = pattern[k++];
#pragma unroll
                for (int r = 0; r < BRICK_ROWS; r++)
#pragma unroll
                    for (int j = 0; j < TC_BRICK_K; j++)
                        if ((p >> (TC_BRICK_K * r + j)) & 1)
                            acc[BRICK_ROWS * br + r] =
                                fmaf(value[offset++], x[j], acc[BRICK_ROWS * br + r]);
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* The launch                                                                */
/* ------------------------------------------------------------------------ */

/* Warp w of thread block u: unit i = u * WARPS + w, which is the W
   columns of C from (i % tiles) * W of virtual panel i / tiles. S:
   stages, D: metadata lead (0, 0 for "cuda"); PR: the panels' rows. */
template <int S, int D, bool VEC, int PR, int W>
__global__ void __launch_bounds__(WARPS * 32) hr_kernel(hr_args a)
{
    extern __shared__ uint4 smem[];
    const int w = threadIdx.x / 32, lane = threadIdx.x & 31;
    const int64_t unit = (int64_t)blockIdx.x * WARPS + w;
    if (unit >= a.units)
        return;
    const tc_seg s = a.seg[unit / a.tiles];
    const int32_t tile0 = (int32_t)(unit % a.tiles) * W;
    if constexpr (S == 0) {
        float acc[PR];
#pragma unroll
        for (int r = 0; r < PR; r++)
            acc[r] = 0.0f;
        cuda_range<PR>(a, s.block, s.block + s.nblocks, tile0 + lane, acc);
#pragma unroll
        for (int r = 0; r < PR; r++)
            tc_seg_put(s, a.C, a.n, r, tile0 + lane, acc[r]);
    } else {
        float acc[PR / BRICK_ROWS][W / 8][4] = {};
        tc_range<S, D, VEC, PR, W>(a, s.block, s.block + s.nblocks, tile0,
                                   (stage<PR, W> *)smem + S * w, acc);
        store_tile<PR, W, VEC>(s, a, tile0, lane, acc);
    }
}

/* Warp w of the thread block takes a run of unit blockIdx.x's blocks
   (tc_seg_warp_range); the TEAM_WARPS 16 x TN tiles of each brick row are
   then added up in shared memory, where the rings were, and stored once
   (tc_seg_store, on the segment's rows from that brick row's). */
template <int S, int D, bool VEC, int PR>
__global__ void __launch_bounds__(TEAM_WARPS * 32) hr_team_kernel(hr_args a)
{
    extern __shared__ uint4 smem[];
    const int w = threadIdx.x / 32;
    const tc_seg s = a.seg[blockIdx.x / a.tiles];
    const int tile = (int)(blockIdx.x % a.tiles);
    int64_t lo, hi;
    tc_seg_warp_range(s, &lo, &hi);
    float acc[PR / BRICK_ROWS][TN / 8][4] = {};
    tc_range<S, D, VEC, PR, TN>(a, lo, hi, tile * TN, (stage<PR, TN> *)smem + S * w, acc);
    float *part = (float *)smem;
#pragma unroll
    for (int br = 0; br < PR / BRICK_ROWS; br++) {
        __syncthreads();        /* the rings, or the brick row before, are done with */
        tc_acc_tile_put(part + w * BRICK_ROWS * TN, TN, acc[br]);
        __syncthreads();
        tc_seg rows = s;
        rows.row0 += BRICK_ROWS * br;
        rows.mask >>= BRICK_ROWS * br;
        tc_seg_store<TN>(rows, part, tile, NULL, a.C, a.rows, a.n);
    }
}

static int stages_of(int v)
{
    return v == V_TC || v == V_TEAM || v == V_WIDE                ? STAGES
         : v == V_TC_SYNC || v == V_TEAM_SYNC || v == V_WIDE_SYNC ? 1
                                                                  : 0;
}

/* Columns of C a warp of variant v takes. */
static int warp_cols(int v)
{
    return v == V_WIDE || v == V_WIDE_SYNC ? WIDE_TN : TN;
}

/* The variant's warps of a thread block share one unit ("tc-team",
   "tc-team-sync") rather than take one each. */
static bool team(int v)
{
    return v == V_TEAM || v == V_TEAM_SYNC;
}

typedef void (*kernel_fn)(hr_args);

template <int PR>
static kernel_fn kernel_rows(int v, bool vec)
{
    if (v == V_TC)
        return vec ? hr_kernel<STAGES, LEAD, true, PR, TN> : hr_kernel<STAGES, LEAD, false, PR, TN>;
    if (v == V_TC_SYNC)
        return vec ? hr_kernel<1, 1, true, PR, TN> : hr_kernel<1, 1, false, PR, TN>;
    if (v == V_WIDE)
        return vec ? hr_kernel<STAGES, LEAD, true, PR, WIDE_TN>
                   : hr_kernel<STAGES, LEAD, false, PR, WIDE_TN>;
    if (v == V_WIDE_SYNC)
        return vec ? hr_kernel<1, 1, true, PR, WIDE_TN> : hr_kernel<1, 1, false, PR, WIDE_TN>;
    if (v == V_TEAM)
        return vec ? hr_team_kernel<STAGES, LEAD, true, PR>
                   : hr_team_kernel<STAGES, LEAD, false, PR>;
    if (v == V_TEAM_SYNC)
        return vec ? hr_team_kernel<1, 1, true, PR> : hr_team_kernel<1, 1, false, PR>;
    return hr_kernel<0, 0, false, PR, TN>;
}

/* The kernel of variant v for N (VEC when N % 4 == 0) and panels of tm
   rows (16 or 32). */
static kernel_fn kernel_of(int v, int32_t n, int tm)
{
    return tm == 2 * BRICK_ROWS ? kernel_rows<2 * BRICK_ROWS>(v, n % 4 == 0)
                                : kernel_rows<BRICK_ROWS>(v, n % 4 == 0);
}

/* The team kernels add their warps' tiles, a brick row at a time, where
   the rings were. */
static_assert(sizeof(stage<BRICK_ROWS, TN>) >= BRICK_ROWS * TN * sizeof(float),
              "a ring holds a warp's tile of C");

static int warps_of(int v)
{
    return team(v) ? TEAM_WARPS : WARPS;
}

/* A stage of variant v for panels of PR rows. */
template <int PR>
static size_t stage_bytes(int v)
{
    return warp_cols(v) == WIDE_TN ? sizeof(stage<PR, WIDE_TN>) : sizeof(stage<PR, TN>);
}

static size_t smem_of(int v, int tm)
{
    const size_t st = tm == 2 * BRICK_ROWS ? stage_bytes<2 * BRICK_ROWS>(v)
                                           : stage_bytes<BRICK_ROWS>(v);
    return (size_t)warps_of(v) * (size_t)stages_of(v) * st;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Thread blocks for `units` units of variant v. */
static int64_t grid_of(int v, int64_t units)
{
    return team(v) ? units : ceil_div(units, WARPS);
}

/* The fewest blocks of a virtual panel of variant v: MIN_PIECE per warp
   that walks it. */
static int64_t min_piece(int v)
{
    return team(v) ? TEAM_WARPS * MIN_PIECE : MIN_PIECE;
}

/* ------------------------------------------------------------------------ */
/* Plan                                                                      */
/* ------------------------------------------------------------------------ */

/* Zeroes the rows of split panel blockIdx.x (tm rows), which its virtual
   panels add into: its valid rows, contiguous in C from row
   row0[blockIdx.x]. */
__global__ void zero_panels(const int32_t *row0, int tm, int32_t rows, float *C, int32_t n)
{
    const int32_t r0 = row0[blockIdx.x];
    float *c = C + (int64_t)r0 * n;
    const int64_t count = (int64_t)min(tm, rows - r0) * n;
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x)
        c[i] = 0.0f;
}

#define ZERO_THREADS 256

/* ------------------------------------------------------------------------ */
/* Plan                                                                      */
/* ------------------------------------------------------------------------ */

/* A variant's work (their occupancies differ, so do their splits). */
typedef struct hr_work {
    tc_seg *seg;                /* the virtual panels, in panel order */
    int64_t nseg;
    int32_t *split_row0;        /* the first rows of the split panels */
    int64_t nsplit;
} hr_work;

typedef struct hr_plan {
    tc_kplan base;
    int tm, tk;
    int32_t *activeCols;
    int64_t *sizePtr;
    uint8_t *packed;
    hr_work work[NVARIANTS];
} hr_plan;

/* Variant v's tiles of C: ceil(N / its warp's columns). */
static int tiles_of(const hr_plan *p, int v)
{
    return (int)ceil_div(p->base.n, warp_cols(v));
}

static hr_args args_for(const hr_plan *p, const float *B, float *C)
{
    const hr_work *w = &p->work[p->base.variant];
    const int tiles = tiles_of(p, p->base.variant);
    return hr_args{ w->seg,         w->nseg * tiles, tiles,          p->sizePtr,
                    p->activeCols, p->packed,          B,               C,
                    p->base.rows,  p->base.n };
}

static tc_status hr_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    hr_plan *p = (hr_plan *)base;
    const int v = base->variant;
    const hr_work *w = &p->work[v];
    cudaStream_t s = base->gpu->stream;
    if (w->nsplit) {
        zero_panels<<<(unsigned)w->nsplit, ZERO_THREADS, 0, s>>>(w->split_row0, p->tm,
                                                                base->rows, C, base->n);
        tc_status st = TC_LAUNCHED(err, "zero_panels");
        if (st != TC_OK)
            return st;
    }
    const int64_t grid = grid_of(v, w->nseg * tiles_of(p, v));
    if (grid == 0)
        return TC_OK;
    kernel_of(v, base->n, p->tm)<<<(unsigned)grid, 32 * warps_of(v), smem_of(v, p->tm), s>>>(
        args_for(p, B, C));
    return TC_LAUNCHED(err, "hr_kernel");
}

static void hr_free(tc_kplan *base)
{
    hr_plan *p = (hr_plan *)base;
    if (!p)
        return;
    tc_gpu *g = p->base.gpu;
    tc_gpu_free(g, p->activeCols);
    tc_gpu_free(g, p->sizePtr);
    tc_gpu_free(g, p->packed);
    for (int v = 0; v < NVARIANTS; v++) {
        tc_gpu_free(g, p->work[v].seg);
        tc_gpu_free(g, p->work[v].split_row0);
    }
    free(p);
}

/* ---- host-side preparation ---- */

/* The blocks a virtual panel should hold (Section 5, above): num_waves
   times AVG_BLK_ROW_PANEL, from the thread blocks variant v's kernel keeps
   resident on the device present. */
static tc_status panel_share(const hr_plan *p, const tc_hrpb *h, int v, double *share,
                             tc_error *err)
{
    int per_sm = 0;
    tc_status st = TC_CUDA(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                    &per_sm, kernel_of(v, p->base.n, p->tm), 32 * warps_of(v),
                                    smem_of(v, p->tm)));
    if (st != TC_OK)
        return st;
    const int64_t resident = (int64_t)tc_gpu_get_info(p->base.gpu)->sm_count * per_sm;
    if (resident < 1)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "hrpb kernel %s: no thread block fits on an SM", variant_names[v]);
    const double waves = (double)grid_of(v, h->npanels * tiles_of(p, v)) / (double)resident;
    *share = waves * (double)h->nblocks / (double)h->npanels;
    return TC_OK;
}

/* Panel p's virtual panels: its partition_ratio rounded to the nearest (a
   panel just above its share stays whole), at least one, at most one per
   `least` blocks. */
static int64_t pieces_of(const tc_hrpb *h, int64_t p, double share, int64_t least)
{
    const int64_t nb = h->blockedRowPtr[p + 1] - h->blockedRowPtr[p];
    const int64_t most = nb / least;
    const double k = floor((double)nb / share + 0.5);
    return most <= 1 || k <= 1 ? 1 : k >= (double)most ? most : (int64_t)k;
}

/* Panel p is heavy: at least twice AVG_BLK_ROW_PANEL (num_loads >= 2). */
static int heavy(const tc_hrpb *h, int64_t p)
{
    return (h->blockedRowPtr[p + 1] - h->blockedRowPtr[p]) * h->npanels >= 2 * h->nblocks;
}

/* Variant v's virtual panels (heavy panels' first, then the others, each
   in panel order) and split panels: a count pass, then a fill pass. */
static tc_status build_work(hr_plan *p, const tc_hrpb *h, int v, tc_error *err)
{
    hr_work *w = &p->work[v];
    double share = 1;
    /* the team kernels' rings pass the 48 KB a launch gets unasked;
       allowed before the occupancy query, which counts with it */
    tc_status st =
        tc_gpu_allow_smem((const void *)kernel_of(v, p->base.n, p->tm), smem_of(v, p->tm), err);
    if (st == TC_OK && h->npanels)
        st = panel_share(p, h, v, &share, err);
    if (st != TC_OK)
        return st;
    int64_t total = 0, nheavy = 0, nsplit = 0;
    for (int64_t i = 0; i < h->npanels; i++) {
        const int64_t k = pieces_of(h, i, share, min_piece(v));
        total += k;
        nheavy += heavy(h, i) ? k : 0;
        nsplit += k > 1;
    }
    tc_seg *seg = (tc_seg *)tc_malloc_array(total, sizeof *seg, err);
    int32_t *split = (int32_t *)tc_malloc_array(nsplit, sizeof *split, err);
    if (!seg || !split) {
        free(seg);
        free(split);
        return TC_ERR_NOMEM;
    }
    int64_t at_heavy = 0, at_light = nheavy, ns = 0;
    for (int64_t i = 0; i < h->npanels; i++) {
        const int64_t lo = h->blockedRowPtr[i], nb = h->blockedRowPtr[i + 1] - lo;
        const int64_t k = pieces_of(h, i, share, min_piece(v));
        const int32_t row0 = (int32_t)(i * p->tm);
        const int valid = h->base.rows - row0 < p->tm ? h->base.rows - row0 : p->tm;
        const uint32_t mask = valid == 32 ? 0xffffffffu : (1u << valid) - 1;
        int64_t *at = heavy(h, i) ? &at_heavy : &at_light;
        for (int64_t j = 0; j < k; j++)
            seg[(*at)++] = tc_seg{ lo + nb * j / k, row0, (int32_t)(nb * (j + 1) / k - nb * j / k),
                                   mask, (uint32_t)(k > 1) };
        if (k > 1)
            split[ns++] = row0;
    }
    st = tc_gpu_upload_new(p->base.gpu, seg, total * (int64_t)sizeof *seg, (void **)&w->seg, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, split, nsplit * 4, (void **)&w->split_row0, err);
    free(seg);
    free(split);
    w->nseg = total;
    w->nsplit = nsplit;
    return st;
}

/* The panel shapes the kernels are written for: TK = 16, panels of one or
   two brick rows. */
static bool shape_runs(const hr_plan *p)
{
    return p->tk == TK && (p->tm == BRICK_ROWS || p->tm == 2 * BRICK_ROWS);
}

/* Variant v has columns for all its lanes at N: the wide variants past
   TN only (at N <= TN half a warp's columns would be empty). */
static bool cols_run(const hr_plan *p, int v)
{
    return warp_cols(v) != WIDE_TN || p->base.n > TN;
}

static tc_status upload(hr_plan *p, const tc_hrpb *h, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    const int64_t bytes = h->sizePtr[h->nblocks];
    tc_status st = tc_gpu_upload_new(g, h->activeCols, h->nblocks * h->tk * 4,
                                     (void **)&p->activeCols, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, h->sizePtr, (h->nblocks + 1) * 8, (void **)&p->sizePtr, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, h->packedBlocks, bytes, (void **)&p->packed, err);
    /* work for what hr_select takes only: the shapes the kernels are
       written for, each variant where its columns run */
    for (int v = 0; st == TC_OK && shape_runs(p) && v < NVARIANTS; v++)
        if (cols_run(p, v))
            st = build_work(p, h, v, err);
    p->base.a_bytes = bytes + h->nblocks * h->tk * 4 + (h->nblocks + 1) * 8 +
                      p->work[V_TC].nseg * (int64_t)sizeof(tc_seg) + p->work[V_TC].nsplit * 4;
    return st;
}

static tc_status hr_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                            const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)a;
    tc_kplan *base;
    tc_status st = tc_kplan_new(g, m, "hrpb", o, sizeof(hr_plan), &base, err);
    if (st != TC_OK)
        return st;
    const tc_hrpb *h = (const tc_hrpb *)m;
    hr_plan *p = (hr_plan *)base;
    p->tm = h->tm;
    p->tk = h->tk;
    st = upload(p, h, err);
    if (st != TC_OK) {
        hr_free(&p->base);
        return st;
    }
    *out = &p->base;
    return TC_OK;
}

/* TM = 16 or 32 and TK = 16 (the paper's) only; the wide variants past
   n = 32 only; a variant runs when its grid fits in one launch. */
static tc_status hr_select(tc_kplan *base, int v, tc_error *err)
{
    hr_plan *p = (hr_plan *)base;
    if (!shape_runs(p))
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "hrpb kernel: needs TM = 16 or 32 and TK = 16 (the paper's), the "
                            "matrix has TM = %d, TK = %d (convert with -p TM=16,TK=16)",
                            p->tm, p->tk);
    if (!cols_run(p, v))
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "hrpb kernel %s: needs n > %d (a warp takes %d columns), n is %d",
                            variant_names[v], TN, WIDE_TN, (int)base->n);
    const int64_t grid = grid_of(v, p->work[v].nseg * tiles_of(p, v));
    if (grid > INT32_MAX || p->work[v].nsplit > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "hrpb kernel %s: %lld thread blocks is more than one launch takes",
                            variant_names[v], (long long)grid);
    base->variant = v;
    return TC_OK;
}

extern "C" const tc_kernel tc_kernel_hrpb = {
    "hrpb",
    "cuTeSpMM: row panels of 16x4 bricks with 64-bit patterns on tensor cores (tf32 "
    "mma.m16n8k4, popc decode, cp.async ring), heavy panels split by GPU waves",
    "tf32",
    NVARIANTS,
    variant_names,
    variant_spreads,
    hr_prepare,
    hr_select,
    hr_run,
    hr_free,
    NULL,
};
