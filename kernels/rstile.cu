/*
 * rstile.cu: the GPU kernels of the rstile format (RSH-SpMM, seed 001,
 * Section 3.3), on the arrays of formats/rstile.h.
 *
 * One launch computes both parts, each writing rows the other does not touch
 * (Section 3.2, "two kernels handling disjoint portions of the output"). In
 * tc, tc-fly, tc-f32 and cuda, thread blocks below `tc_blocks` run the TC
 * part, the blocks after them the CUDA residual part, a few threads per
 * residual row (the tc-item variants balance the two parts otherwise,
 * below). The TC part works on window segments (the format's, Section
 * 3.3.3), a thread block each: its warps share the segment's blocks, add
 * their partial tiles in shared memory and store the sum once, so that the
 * long windows of dense matrices get many warps without atomics. A TC
 * segment stores every row of its window that is not a residual row (rows
 * without nonzeros get zeros); the windows that hold no TC block but rows
 * outside the residual get segments of no blocks here, so that every row of
 * C is written, ZERO_SEGS of them to a thread block (zero_block). The
 * segments of a window that the format split add their results with
 * atomics into rows a small launch zeroed first; that launch runs only for
 * matrices that have split windows.
 *
 * Variants (timed by tc_kernel_tune):
 *   "tc"     B converted once per run to fp16 (a short launch before the
 *            main one, into a buffer whose rows are padded to the panel
 *            width), then the pipeline of Section 3.3.2, with a ring of
 *            STAGES stages per warp in shared memory instead of two: each
 *            block's 8 rows of B (16 bytes per lane, zero-filled for dummy
 *            columns), values and bitmap are fetched with cp.async
 *            STAGES - 1 blocks ahead, while the current block is decoded
 *            from its bitmap with popc prefix counts into the A fragment in
 *            registers and its B fragments come out of shared memory with
 *            ldmatrix.trans; mma.m16n8k8 in fp16 with fp32 accumulation.
 *            A warp takes 8 to 32 columns of C, 64 past n = 32 on matrices
 *            of many blocks (tiles_for), and pattern matrices get a kernel
 *            that loads no values (VAL). The residual reads the same fp16
 *            B, 16 bytes (8 columns) per thread and nonzero.
 *   "tc-fly" no conversion launch: the B fragments are loaded from the
 *            float32 B straight into registers (16 bytes at a time at 32
 *            columns) and converted there, each block's bitmap and column
 *            ids loaded one block ahead; a warp takes at most 32 columns
 *            (variant_tiles). The residual reads float32 B (4 columns per
 *            thread and nonzero).
 *   "tc-f32" tc's pipeline without its conversion launch: the stages hold
 *            the blocks' rows of the float32 B (twice tc's bytes per
 *            stage), rounded to fp16 as the B fragments are read out of
 *            shared memory (two loads and a conversion per n-tile instead of
 *            a quarter of an ldmatrix.x4). Faster than tc where the
 *            conversion launch is a large share of a short run (H100,
 *            wjaccard order: bcsstk13 at n = 128 10.9 -> 9.3 us, cont-201
 *            at n = 256 129 -> 124), slower where a row of B serves many
 *            blocks and tc's stages, half the bytes, matter (TF18 at n = 256
 *            302 -> 439; lp_nug30 at n = 32 74 -> 84); the residual reads
 *            float32 B as in tc-fly.
 *   "tc-item", "tc-item8" both parts in one launch of balanced items
 *            (items.cuh, rs_item_kernel): a thread block of 4 or 8 warps
 *            takes one unit per warp, a pair of a window's TC blocks (one
 *            mma.m16n8k16 per 8 columns, B read from float32 and rounded in
 *            registers) or up to 32 of a window's residual nonzeros (on
 *            CUDA cores, in float32); the units of short windows are packed
 *            into one item, a long window is cut over several items that
 *            meet in a workspace tile. No zeroing launch, no conversion
 *            launch, no atomics in C, and no warp walks a chain of blocks.
 *            Where the items are many, a thread block takes several panels
 *            of 32 columns, its units loaded once (item_group).
 *   "tc-item-long", "tc-item8-long" the same, except that on large matrices
 *            the items of a long window give each warp up to
 *            TC_ITEM_MAX_SHARE units, so that fewer items go through the
 *            workspace.
 *   "cuda"   everything on CUDA cores from float32 B: each block's nonzeros
 *            from its bitmap, one FMA per nonzero and column. Slow, but it
 *            multiplies only real nonzeros, so a NaN or Inf in B reaches
 *            exactly the rows that use it; the tensor-core variants multiply
 *            the zeros of a tile by whole rows of B (0 * Inf = NaN: the
 *            padding pitfall of DESIGN.md, which the dummy columns avoid but
 *            the zeros inside real columns cannot) and are marked in
 *            variant_spreads, so that tcmul picks "cuda" when B is not all
 *            finite.
 *
 * Precision: A's values and B in fp16, products summed in fp32. fp16 holds
 * magnitudes up to 65504, far less than many matrices' values (stiffness
 * matrices reach 1e10), so each row's TC values are stored divided by a
 * power of two that brings the row's largest to [2^14, 2^15) and the
 * products are multiplied back per row of C (exactly: a power of two); the
 * residual keeps float32 values. B is rounded to fp16 as it is: its
 * magnitudes must stay below 65504 (man/tcmul.1).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cuda_fp16.h>

#include "gpu_internal.h"
#include "rstile_layout.h"
#include "mma.cuh"
#include "segments.h"
#include "items.cuh"

#define WROWS TC_RSTILE_H_ROWS
#define BCOLS TC_RSTILE_W_COLS

enum {
    V_TC, V_TC_FLY, V_TC_F32, V_TC_ITEM, V_TC_ITEM8, V_TC_ITEM_LONG, V_TC_ITEM8_LONG, V_CUDA,
    NVARIANTS
};
static const char *const variant_names[NVARIANTS] = {
    "tc", "tc-fly", "tc-f32", "tc-item", "tc-item8", "tc-item-long", "tc-item8-long", "cuda"
};
static const unsigned char variant_spreads[NVARIANTS] = { 1, 1, 1, 1, 1, 1, 1, 0 };
/* The tc-item variants, V_TC_ITEM .. V_TC_ITEM8_LONG, run the item sets of
   items.cuh in its order (tc_item_sets_build). */

enum { PART_TC, PART_RESIDUAL, NPARTS };
static const char *const part_names[NPARTS] = { "tc_block", "residual" };

/* Warps per thread block of the TC part: 1 to MAX_WARPS, sized to the
   matrix (segment_warps); the residual part's blocks have as many threads. */
#define MAX_WARPS 8
/* "cuda": columns of C per thread block (one per lane). */
#define CUDA_PANEL 32

/* Everything a launch reads, passed by value. */
typedef struct rs_args {
    const tc_seg *seg;
    int64_t tc_blocks;          /* thread blocks of the TC part: segments with
                                   blocks x panels */
    int64_t zero_blocks;        /* then of the zero part: groups of ZERO_SEGS
                                   segments of no blocks x panels */
    int64_t first_zero, nseg;   /* the segments of no blocks: seg[first_zero, nseg) */
    int panels;                 /* panels of columns of C per segment */
    const uint64_t *bitmap;
    const int32_t *col;
    const int64_t *vstart;      /* where each block's values start (padded) */
    const __half *val;          /* NULL: pattern (every value 1) */
    const float *row_scale;     /* per row of A; NULL: pattern (1) */
    const int32_t *res_row;
    const int64_t *res_off;
    const int32_t *res_col;
    const float *res_val;       /* NULL: pattern */
    int64_t res_threads;        /* residual rows x chunks */
    int chunks;                 /* residual threads per row */
    const float *B;
    const __half *B16;          /* "tc": B in fp16, ldb16 halves per row */
    int64_t ldb16;
    float *C;
    int32_t rows, n;
} rs_args;

/* ------------------------------------------------------------------------ */
/* Shared pieces                                                             */
/* ------------------------------------------------------------------------ */

static __device__ __forceinline__ uint32_t pack_half2(__half lo, __half hi)
{
    return (uint32_t)__half_as_ushort(lo) | ((uint32_t)__half_as_ushort(hi) << 16);
}

static __device__ __forceinline__ float value_at(const __half *__restrict__ val, int64_t e)
{
    return val ? __half2float(val[e]) : 1.0f;
}

/* ------------------------------------------------------------------------ */
/* TC part, "tc", "tc-f32" and "tc-fly"                                      */
/* ------------------------------------------------------------------------ */

/* "tc" and "tc-f32" stage each block in shared memory before they multiply
   it, in a ring of STAGES per warp; blocks are fetched STAGES - 1 ahead. */
#define STAGES 4

/* Chunks of 16 bytes of data in a stage's row of B: the 8 NT columns of
   the panel in fp16 ("tc": NT chunks, swizzled: tc_swz) or in float32
   ("tc-f32": 2 NT chunks). */
template <int NT, bool F32> static __host__ __device__ constexpr int data_chunks()
{
    return F32 ? 2 * NT : NT;
}

/* The row's chunks in the stage: tc-f32's rows have one of padding, so that
   the lanes reading the column of an n-tile in rows 2 tig and 2 tig + 1,
   their fragment's k, fall in 32 different banks (row 2 tig starts 8 NT + 4
   words times 2 tig in, a different multiple of 8 banks for each tig, and
   gid adds 0..7). */
template <int NT, bool F32> static __host__ __device__ constexpr int row_chunks()
{
    return data_chunks<NT, F32>() + (F32 ? 1 : 0);
}

/* One stage: the 8 rows of B of a block, its values and its bitmap. */
template <int NT, bool F32> struct stage {
    uint4 b[BCOLS * row_chunks<NT, F32>()];
    uint4 v[WROWS * BCOLS / 8];
    uint64_t bitmap[2];
};

/* Lanes per column of a block when a stage's rows of B are fetched: each
   lane copies its share of the row's chunks of data, 4 lanes a row where
   there are 4 chunks or more (two chunks each at NT = 8 in fp16, the 64
   columns of a panel at n > 32). */
template <int NT, bool F32> static __device__ __forceinline__ constexpr int lanes_per_col()
{
    return data_chunks<NT, F32>() < 4 ? data_chunks<NT, F32>() : 4;
}

/* What a lane needs to start fetching block b: its column id (lanes below
   8 lanes_per_col: column lane / lanes_per_col of the block), where the
   block's values start and how many there are (padded: a multiple of 8). */
typedef struct fetch_meta {
    int32_t col, nv;
    int64_t v0;
} fetch_meta;

template <int NT, bool VAL, bool F32>
static __device__ __forceinline__ fetch_meta meta_of(const rs_args &a, int64_t b, int lane)
{
    constexpr int L = lanes_per_col<NT, F32>();
    const int cl = lane < BCOLS * L ? lane / L : 0;
    fetch_meta m = { a.col[b * BCOLS + cl], 0, 0 };
    if (VAL) {
        m.v0 = a.vstart[b];
        m.nv = (int32_t)(a.vstart[b + 1] - m.v0);
    }
    return m;
}

/* Starts copying block b into st (one cp.async group): its rows of B
   (columns [panel * 8 NT, + 8 NT) of the fp16 B, or with F32 of the
   float32 B, 16 bytes at a time where n % 4 == 0 and 4 where not; zeros for
   dummy columns, whose col is -1, and past n), its values and its bitmap. */
template <int NT, bool VAL, bool F32>
static __device__ __forceinline__ void fetch(const rs_args &a, stage<NT, F32> *st, int64_t b,
                                             const fetch_meta &m, int panel, int lane)
{
    constexpr int L = lanes_per_col<NT, F32>();
    const int c = lane / L;
    if (F32 && lane < BCOLS * L) {
        const int32_t c0 = panel * 8 * NT;
        const float *row = a.B + (m.col >= 0 ? (int64_t)m.col * a.n : 0) + c0;
        const bool aligned = a.n % 4 == 0;
#pragma unroll
        for (int q = lane % L; q < data_chunks<NT, F32>(); q += L) {
            uint4 *dst = &st->b[c * row_chunks<NT, F32>() + q];
            if (aligned) {
                const bool in = m.col >= 0 && c0 + 4 * q < a.n;
                tc_cp_async16(dst, in ? row + 4 * q : row, in);
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const bool in = m.col >= 0 && c0 + 4 * q + j < a.n;
                    tc_cp_async4((float *)dst + j, in ? row + 4 * q + j : row, in);
                }
            }
        }
    } else if (!F32 && lane < BCOLS * L) {
        const __half *row = a.B16 + (m.col >= 0 ? (int64_t)m.col * a.ldb16 : 0) +
                            (int64_t)panel * 8 * NT;
#pragma unroll
        for (int q = lane % L; q < NT; q += L)
            tc_cp_async16(&st->b[c * NT + (q ^ tc_swz<NT>(c))], row + 8 * q, m.col >= 0);
    }
    if (VAL && lane < WROWS * BCOLS / 8 && 8 * lane < m.nv)
        tc_cp_async16(&st->v[lane], a.val + m.v0 + 8 * lane, 1);
    if (lane == 31)
        tc_cp_async16(st->bitmap, a.bitmap + 2 * b, 1);
    tc_cp_async_commit();
}

/* The two A elements of one fragment register: row word w of a block's
   bitmap (8 rows, row-major), bits k and k + 1 (k = 8 r + 2 tig), their
   values at `before` (the set bits of the block's earlier words) plus the
   set bits of w below k (Section 3.3.2: popc prefix counts). */
static __device__ __forceinline__ uint32_t a_pair(uint64_t w, int k, int before,
                                                  const __half *v)
{
    /* in 32-bit halves: rows 0-3 in the low word, 4-7 in the high one
       (64-bit shifts by a variable cost several instructions each) */
    const uint32_t low = (uint32_t)w, word = k < 32 ? low : (uint32_t)(w >> 32);
    const int sh = k & 31;
    const int i = before + (k < 32 ? 0 : __popc(low)) + __popc(word & ((1u << sh) - 1));
    const __half zero = __float2half(0.0f), one = __float2half(1.0f);
    const int b0 = (int)(word >> sh) & 1, b1 = (int)(word >> (sh + 1)) & 1;
    const __half lo = b0 ? (v ? v[i] : one) : zero;
    const __half hi = b1 ? (v ? v[i + b0] : one) : zero;
    return pack_half2(lo, hi);
}

/* "tc": one warp, blocks [lo, hi), columns [panel * 8 NT, + 8 NT) of C,
   added into acc: the global -> shared -> register pipeline of Section
   3.3.2, deeper than its double buffer. Block b + STAGES - 1 is fetched with
   cp.async while block b is decoded from its bitmap (popc prefix counts)
   into the A fragment, its B fragments come out of shared memory with
   ldmatrix.trans, and the mma run; the index loads that a fetch needs are
   made one block earlier still, so that no load waits on another inside
   the loop and a warp's first STAGES - 1 blocks cost one round trip. */
template <int NT, bool VAL, bool F32>
static __device__ void tc_range(const rs_args &a, int64_t lo, int64_t hi, int panel,
                                stage<NT, F32> *stg, float acc[NT][4])
{
    static_assert((STAGES & (STAGES - 1)) == 0, "tc: the ring is indexed with a mask");
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    const int count = (int)(hi - lo);   /* a warp's run: 32-bit indices inside it */
    fetch_meta ahead[STAGES - 1];
    for (int j = 0; j < STAGES - 1; j++)
        if (j < count)
            ahead[j] = meta_of<NT, VAL, F32>(a, lo + j, lane);
    for (int j = 0; j < STAGES - 1; j++) {
        if (j < count)
            fetch<NT, VAL, F32>(a, &stg[j], lo + j, ahead[j], panel, lane);
        else
            tc_cp_async_commit();
    }
    fetch_meta next;
    if (STAGES - 1 < count)
        next = meta_of<NT, VAL, F32>(a, lo + STAGES - 1, lane);
    for (int j = 0; j < count; j++) {
        const int f = j + STAGES - 1;
        if (f < count)
            fetch<NT, VAL, F32>(a, &stg[f & (STAGES - 1)], lo + f, next, panel, lane);
        else
            tc_cp_async_commit();
        if (f + 1 < count)
            next = meta_of<NT, VAL, F32>(a, lo + f + 1, lane);
        tc_cp_async_wait<STAGES - 1>();
        __syncwarp();
        const stage<NT, F32> *cur = &stg[j & (STAGES - 1)];
        const uint64_t w0 = cur->bitmap[0], w1 = cur->bitmap[1];
        const __half *v = VAL ? (const __half *)cur->v : NULL;
        const uint32_t a0 = a_pair(w0, 8 * gid + 2 * tig, 0, v);
        const uint32_t a1 = a_pair(w1, 8 * gid + 2 * tig, __popcll(w0), v);
        uint32_t bf[NT < 4 ? 4 : NT];
        if (F32) {
            /* the fragment's k = 2 tig, 2 tig + 1 (rows), n = gid, rounded */
            constexpr int P = 4 * row_chunks<NT, F32>();
            const float *k0 = (const float *)cur->b + 2 * tig * P + gid, *k1 = k0 + P;
#pragma unroll
            for (int t = 0; t < NT; t++)
                bf[t] = pack_half2(__float2half_rn(k0[8 * t]), __float2half_rn(k1[8 * t]));
        } else {
            const int r = lane & 7, m = (lane >> 3) % NT;
#pragma unroll
            for (int h = 0; h < NT; h += 4)     /* n-tiles h .. h + 3 */
                tc_ldmatrix_x4_trans(&bf[h], &cur->b[r * NT + ((m + h) ^ tc_swz<NT>(r))]);
        }
        for (int t = 0; t < NT; t++)
            tc_mma_m16n8k8_f16(acc[t], a0, a1, bf[t]);
        __syncwarp();           /* this stage is refilled at the next iteration */
    }
}

/* "tc-fly": the same tile walk without staging: the A values read from
   global memory, each B fragment loaded from the float32 B and converted in
   registers. */
static __device__ __forceinline__ uint32_t b_frag_f32(const rs_args &a, int32_t col0,
                                                      int32_t col1, int32_t c)
{
    const bool in = c < a.n;
    const float x = in && col0 >= 0 ? a.B[(int64_t)col0 * a.n + c] : 0.0f;
    const float y = in && col1 >= 0 ? a.B[(int64_t)col1 * a.n + c] : 0.0f;
    return pack_half2(__float2half_rn(x), __float2half_rn(y));
}

/* Two rows of B, col0 and col1, at the lane's four columns c .. c + 3 of
   the panel (items.cuh's tc_load_b4: 16 bytes at a time when vec); a dummy
   column (< 0) reads nothing and gives zeros. Loading and packing are two
   steps so that pair_mul issues all its loads before its first conversion:
   the item kernels were 4-5% slower with each pair of rows packed as soon
   as it was loaded (bench/NOTES.md, step 19). */
typedef struct b_rows {
    float4 x, y;
} b_rows;

static __device__ __forceinline__ b_rows b_rows_load(const float *__restrict__ B, int32_t n,
                                                     int32_t col0, int32_t col1, int32_t c,
                                                     bool vec)
{
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    b_rows r;
    r.x = col0 >= 0 ? tc_load_b4(B, col0, c, n, vec) : zero;
    r.y = col1 >= 0 ? tc_load_b4(B, col1, c, n, vec) : zero;
    return r;
}

/* The four fp16 B fragments of r in tc_acc_row's mapping: fragment q holds
   column c + q of the two rows. */
static __device__ __forceinline__ void b_frags_mapped(const b_rows &r, uint32_t bf[4])
{
    bf[0] = pack_half2(__float2half_rn(r.x.x), __float2half_rn(r.y.x));
    bf[1] = pack_half2(__float2half_rn(r.x.y), __float2half_rn(r.y.y));
    bf[2] = pack_half2(__float2half_rn(r.x.z), __float2half_rn(r.y.z));
    bf[3] = pack_half2(__float2half_rn(r.x.w), __float2half_rn(r.y.w));
}

/* What tc-fly reads of block b before the block's values and B: its
   bitmap, where its values start, and the lane's two column ids. */
typedef struct fly_meta {
    uint64_t w0, w1;
    int64_t v0;
    int32_t c0, c1;
} fly_meta;

template <bool VAL>
static __device__ __forceinline__ fly_meta fly_meta_of(const rs_args &a, int64_t b, int tig)
{
    fly_meta m;
    m.w0 = a.bitmap[2 * b];
    m.w1 = a.bitmap[2 * b + 1];
    m.v0 = VAL ? a.vstart[b] : 0;
    m.c0 = a.col[b * BCOLS + 2 * tig];
    m.c1 = a.col[b * BCOLS + 2 * tig + 1];
    return m;
}

/* Block b's metadata comes one block ahead: its loads are issued before
   block b - 1's loads of B and values, and have arrived when block b needs
   them, so that a block waits on one round trip instead of two. At NT = 4
   (32 columns) the rows of B are read 16 bytes at a time: lane (gid, tig)
   loads columns 4 gid .. 4 gid + 3 of the panel in its two rows, and n-tile
   q takes column 4 gid + q as its column gid, so that acc ends in the
   layout of mma.cuh's tc_acc_row (2 loads per lane and block instead of
   8; tc_block stores it so). */
template <int NT, bool VAL>
static __device__ void fly_range(const rs_args &a, int64_t lo, int64_t hi, int panel,
                                 float acc[NT][4])
{
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    const bool vec = a.n % 4 == 0;
    if (lo >= hi)
        return;
    fly_meta m = fly_meta_of<VAL>(a, lo, tig);
    for (int64_t b = lo; b < hi; b++) {
        const fly_meta next = b + 1 < hi ? fly_meta_of<VAL>(a, b + 1, tig) : m;
        uint32_t bf[NT];
        if constexpr (NT == 4) {
            b_frags_mapped(b_rows_load(a.B, a.n, m.c0, m.c1, panel * 32 + 4 * gid, vec), bf);
        } else {
            for (int t = 0; t < NT; t++)
                bf[t] = b_frag_f32(a, m.c0, m.c1, panel * 8 * NT + 8 * t + gid);
        }
        const __half *v = VAL ? a.val + m.v0 : NULL;
        const uint32_t a0 = a_pair(m.w0, 8 * gid + 2 * tig, 0, v);
        const uint32_t a1 = a_pair(m.w1, 8 * gid + 2 * tig, __popcll(m.w0), v);
        for (int t = 0; t < NT; t++)
            tc_mma_m16n8k8_f16(acc[t], a0, a1, bf[t]);
        m = next;
    }
}

/* ------------------------------------------------------------------------ */
/* TC part on CUDA cores, "cuda"                                             */
/* ------------------------------------------------------------------------ */

/* One warp: blocks [lo, hi), column panel * 32 + lane of C, added into
   acc (one per row of the window). Only the set bits of each block are
   multiplied. */
static __device__ void cuda_range(const rs_args &a, int64_t lo, int64_t hi, int panel,
                                  float acc[WROWS])
{
    const int32_t c = panel * CUDA_PANEL + (threadIdx.x & 31);
    for (int64_t blk = lo; blk < hi; blk++) {
        int64_t v = a.vstart[blk];
        float b[BCOLS];
        for (int k = 0; k < BCOLS; k++) {
            const int32_t col = a.col[blk * BCOLS + k];
            b[k] = col >= 0 && c < a.n ? a.B[(int64_t)col * a.n + c] : 0.0f;
        }
        for (int h = 0; h < 2; h++) {
            const uint64_t w = a.bitmap[2 * blk + h];
            for (int r = 0; r < 8; r++)
                for (int k = 0; k < BCOLS; k++)
                    if ((w >> (8 * r + k)) & 1)
                        acc[8 * h + r] = fmaf(value_at(a.val, v++), b[k], acc[8 * h + r]);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* CUDA residual part                                                        */
/* ------------------------------------------------------------------------ */

/* Nonzeros of a residual row whose loads of B a thread has in flight at once:
   the loads of a row's nonzeros are independent, and one at a time a thread
   waits a round trip per nonzero (lp_nug30's rows of 30 unshared columns). */
#define RES_BATCH 4

/* W columns of C from column c0 of row col of B: 8 halves of the fp16 B
   (HALF) or 4 floats of the float32 B, those at n and beyond zero. */
template <int HALF>
static __device__ __forceinline__ uint4 res_b_chunk(const rs_args &a, int64_t col, int32_t c0,
                                                    bool vec)
{
    if (HALF)
        return __ldg((const uint4 *)(a.B16 + col * a.ldb16 + c0));
    if (vec)
        return __ldg((const uint4 *)(a.B + col * a.n + c0));
    uint32_t f[4];
    for (int j = 0; j < 4; j++)
        f[j] = c0 + j < a.n ? __float_as_uint(__ldg(a.B + col * a.n + c0 + j)) : 0u;
    return make_uint4(f[0], f[1], f[2], f[3]);
}

template <int HALF>
static __device__ __forceinline__ void res_b_fma(float v, uint4 raw, float *acc)
{
    if (HALF) {
        const __half2 *h = (const __half2 *)&raw;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const float2 f = __half22float2(h[j]);
            acc[2 * j] = fmaf(v, f.x, acc[2 * j]);
            acc[2 * j + 1] = fmaf(v, f.y, acc[2 * j + 1]);
        }
    } else {
        const float *f = (const float *)&raw;
#pragma unroll
        for (int j = 0; j < 4; j++)
            acc[j] = fmaf(v, f[j], acc[j]);
    }
}

/* Thread t: residual row t / chunks, columns [W (t % chunks), + W) of C,
   W = 8 from fp16 B (B16) or 4 from float32 B; the whole row's sum, stored
   once (one writer per residual row). The row's nonzeros go RES_BATCH at a
   time: their columns and values, then all their loads of B, then the
   products (the batch past the row's end loads nothing and adds zeros). */
template <int HALF> static __device__ void residual_thread(const rs_args &a, int64_t t)
{
    constexpr int W = HALF ? 8 : 4;
    const int64_t r = t / a.chunks;
    const int32_t c0 = (int32_t)(t % a.chunks) * W;
    float acc[W];
    for (int j = 0; j < W; j++)
        acc[j] = 0.0f;
    const bool vec = a.n % 4 == 0;
    const int64_t end = a.res_off[r + 1];
    for (int64_t e = a.res_off[r]; e < end; e += RES_BATCH) {
        int64_t col[RES_BATCH];
        float v[RES_BATCH];
        uint4 raw[RES_BATCH];
#pragma unroll
        for (int q = 0; q < RES_BATCH; q++) {
            const bool in = e + q < end;
            col[q] = in ? __ldg(a.res_col + e + q) : -1;
            v[q] = !in ? 0.0f : a.res_val ? __ldg(a.res_val + e + q) : 1.0f;
        }
#pragma unroll
        for (int q = 0; q < RES_BATCH; q++)
            raw[q] = col[q] >= 0 ? res_b_chunk<HALF>(a, col[q], c0, vec) : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int q = 0; q < RES_BATCH; q++)
            res_b_fma<HALF>(v[q], raw[q], acc);
    }
    float *dst = a.C + (int64_t)a.res_row[r] * a.n + c0;
    for (int j = 0; j < W; j++)
        if (c0 + j < a.n)
            dst[j] = acc[j];
}

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
            b[q] = j + q < m.count && in ? __ldg(a.B + (int64_t)c * a.n + c0 + lane) : 0.0f;
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
   warp multiplies its unit, or, in a ranged item (LONG: the -long
   variants), the pairs j = warp, warp + W, ... of the item's unit[1]
   blocks from unit[0] and the runs of 32 of its unit[3] residual nonzeros
   from unit[2] (reloaded for every panel: too many to hold): the TC pairs on
   tensor cores into C fragments, each row scaled back (row_scale: the TC
   values' scale, loaded with the unit) and put into the warp's tile, then
   the residual nonzeros, unscaled, added into that tile on CUDA cores;
   tc_item_finish adds the tiles up per window and stores them. `parts`
   leaves either part out (run_part). */
template <int W, bool LONG>
__global__ void __launch_bounds__(W * 32, tc_item_blocks_per_sm(W, LONG))
    rs_item_kernel(rs_item_args a)
{
    __shared__ __align__(16) float tile[W][TC_ITEM_ROWS][TC_ITEM_PITCH];
    __shared__ int s_win[W], s_last;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const tc_item<W> *it = (const tc_item<W> *)a.items + blockIdx.x / a.groups;
    const int p0 = (int)(blockIdx.x % a.groups) * a.group, p1 = min(p0 + a.group, a.panels);
    const bool vec = a.n % 4 == 0, tc = (a.parts >> PART_TC) & 1,
               res = (a.parts >> PART_RESIDUAL) & 1;
    if (LONG && it->ranged) {
        const int64_t nb = tc ? it->unit[1] : 0, nr = res ? it->unit[3] : 0;
        const float2 sc = tc_frag_scales(a.row_scale, (int64_t)it->w0 * TC_ITEM_ROWS, a.rows);
        if (lane == 0)
            s_win[warp] = 0;
        for (int p = p0; p < p1; p++) {
            const int32_t c0 = p * TC_ITEM_PANEL;
            float acc[4][4] = {};
#pragma unroll 1
            for (int64_t j = 2 * warp; j < nb; j += 2 * W)
                pair_mul(a, pair_load(a, it->unit[0] + j, j + 1 < nb), c0, vec, acc);
            tc_frag_scale<4>(acc, sc);
            tc_acc_tile_put(&tile[warp][0][0], TC_ITEM_PITCH, acc);
            __syncwarp();
#pragma unroll 1
            for (int64_t j = 32 * warp; j < nr; j += 32 * W)
                res_mul(a, res_load(a, it->unit[2] + j, (int)min((int64_t)32, nr - j)), c0,
                        tile[warp]);
            panel_end<W>(a, it, tile, s_win, &s_last, p, p + 1 < p1);
        }
        return;
    }
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
/* The launch                                                                */
/* ------------------------------------------------------------------------ */

/* Columns of C per TC thread block. */
template <int MODE, int NT> static __host__ __device__ constexpr int panel_width()
{
    return MODE == V_CUDA ? CUDA_PANEL : 8 * NT;
}

/* Floats of the warps' partial 16 x panel tiles in shared memory: none for
   a tensor-core thread block of one warp, which puts its fragments
   straight into C (tc_seg_store_frags). */
template <int MODE, int NT> static __host__ __device__ constexpr size_t tile_floats(int warps)
{
    return MODE != V_CUDA && warps == 1 ? 0 : (size_t)warps * WROWS * panel_width<MODE, NT>();
}

/* The modes that stage blocks in shared memory, and in which precision. */
template <int MODE> static __host__ __device__ constexpr bool staged()
{
    return MODE == V_TC || MODE == V_TC_F32;
}

/* Dynamic shared memory of a TC thread block of `warps` warps: the tiles,
   and for "tc" and "tc-f32" each warp's ring of stages after them. */
template <int MODE, int NT> static __host__ __device__ constexpr size_t smem_bytes(int warps)
{
    return tile_floats<MODE, NT>(warps) * sizeof(float) +
           (staged<MODE>() ? (size_t)warps * STAGES * sizeof(stage<NT, MODE == V_TC_F32>) : 0);
}

/* Thread block u of the TC part: segment u / panels, panel u % panels. Its
   warps split the segment's blocks into consecutive runs (so that a long
   window is multiplied by several warps at once), each adding into its own
   tile in shared memory; the tiles are added up and the block stores the
   sum once. A tensor-core thread block of one warp puts its fragments
   straight into C instead. */
template <int MODE, int NT, bool VAL>
static __device__ void tc_block(const rs_args &a, int64_t u, char *smem)
{
    constexpr int PW = panel_width<MODE, NT>();
    const int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x & 31;
    const tc_seg s = a.seg[u / a.panels];
    const int panel = (int)(u % a.panels);
    int64_t lo, hi;
    tc_seg_warp_range(s, &lo, &hi);
    float *part = (float *)smem;                            /* [warps][16][PW] */
    float *mine = part + (size_t)w * WROWS * PW;
    if constexpr (MODE == V_CUDA) {
        float acc[WROWS];
        for (int r = 0; r < WROWS; r++)
            acc[r] = 0.0f;
        cuda_range(a, lo, hi, panel, acc);
        for (int r = 0; r < WROWS; r++)
            mine[r * PW + lane] = acc[r];
    } else {
        float acc[NT][4];
        for (int t = 0; t < NT; t++)
            acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;
        const float2 sc = tc_frag_scales(VAL ? a.row_scale : NULL, s.row0, a.rows);
        if constexpr (staged<MODE>()) {
            typedef stage<NT, MODE == V_TC_F32> st;
            st *stg = (st *)(part + tile_floats<MODE, NT>(warps)) + STAGES * w;
            tc_range<NT, VAL, MODE == V_TC_F32>(a, lo, hi, panel, stg, acc);
        } else {
            fly_range<NT, VAL>(a, lo, hi, panel, acc);
        }
        if (VAL)
            tc_frag_scale<NT>(acc, sc);
        /* tc-fly's 32 columns come in tc_acc_row's layout (fly_range) */
        constexpr bool ROWS = MODE == V_TC_FLY && NT == 4;
        if (warps == 1) {
            tc_seg_store_frags<NT, ROWS>(s, acc, panel * PW, a.C, a.rows, a.n);
            return;
        }
        if constexpr (ROWS)
            tc_acc_tile_put(mine, PW, acc);
        else
            tc_tile_store<NT>(mine, PW, acc);
    }
    __syncthreads();
    /* the tensor-core modes scaled their fragments already */
    tc_seg_store<PW>(s, part, panel, MODE == V_CUDA ? a.row_scale : NULL, a.C, a.rows, a.n);
}

/* Segments of no blocks per thread block of the zero part. */
#define ZERO_SEGS 8

/* Thread block z of the zero part: panel z % panels (PW columns) of the
   segments of no blocks seg[first_zero + ZERO_SEGS (z / panels), +
   ZERO_SEGS), windows whose rows outside the residual are all empty: zeros
   in those rows of C. A thread block per such window, sized (warps, shared
   memory) for the TC part, made them most of the grid where many rows are
   empty (p2p-Gnutella31 after wjaccard: 2,891 of 3,912 segments), each
   holding a TC block's slot on its SM to store 2 KB. Lane j of every warp
   reads segment j of the group, so that no thread waits on a load per
   segment, and warp w stores segments w, w + warps, ... (no shared
   memory: it would be reserved for every thread block of the launch). */
template <int PW> static __device__ void zero_block(const rs_args &a, int64_t z)
{
    constexpr int Q = PW / 4;
    static_assert(ZERO_SEGS <= 32, "zero_block: a lane per segment of the group");
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int panel = (int)(z % a.panels);
    const int64_t k0 = a.first_zero + z / a.panels * ZERO_SEGS;
    const int count = (int)min((int64_t)ZERO_SEGS, a.nseg - k0);
    int32_t row0 = 0;
    uint32_t mask = 0;
    if (lane < count) {
        row0 = a.seg[k0 + lane].row0;
        mask = a.seg[k0 + lane].mask;
    }
    const bool vec = a.n % 4 == 0;
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int k = warp; k < count; k += warps) {
        const tc_seg g = { 0, __shfl_sync(0xffffffffu, row0, k), 0,
                           __shfl_sync(0xffffffffu, mask, k), 0 };
        for (int q = lane; q < TC_SEG_ROWS * Q; q += 32)
            tc_seg_putv(g, a.C, a.n, q / Q, panel * PW + 4 * (q % Q), zero, vec);
    }
}

/* MODE: V_TC, V_TC_FLY, V_TC_F32 or V_CUDA; NT: n-tiles of 8 columns per
   TC block (1 for V_CUDA, whose blocks take CUDA_PANEL columns); VAL: the
   TC values are read (false: a pattern matrix, every value 1, so that tc,
   tc-fly and tc-f32 load no value offsets and no values at all; V_CUDA
   reads them when a.val says so). Thread blocks below tc_blocks run the TC
   part, the next zero_blocks the zero part, the others the residual part.
   (The residual first was tried, step 17 of bench/NOTES.md: it shortens
   the tail where windows with long rows go whole among TC windows, which
   min_density's test on the whole matrix makes rare, and cost 1-5% where
   the residual is the row partition's short rows.) */
template <int MODE, int NT, bool VAL>
__global__ void __launch_bounds__(MAX_WARPS * 32) rs_kernel(rs_args a)
{
    extern __shared__ uint4 smem[];
    if (blockIdx.x < a.tc_blocks) {
        tc_block<MODE, NT, VAL>(a, blockIdx.x, (char *)smem);
        return;
    }
    if (blockIdx.x < a.tc_blocks + a.zero_blocks) {
        zero_block<panel_width<MODE, NT>()>(a, blockIdx.x - a.tc_blocks);
        return;
    }
    const int64_t t =
        (int64_t)(blockIdx.x - a.tc_blocks - a.zero_blocks) * blockDim.x + threadIdx.x;
    if (t < a.res_threads)
        residual_thread<MODE == V_TC>(a, t);
}

/* ------------------------------------------------------------------------ */
/* Plan                                                                      */
/* ------------------------------------------------------------------------ */

typedef struct rs_plan {
    tc_kplan base;
    int64_t nseg;               /* device segments (with the empty ones) */
    tc_seg *seg;
    int64_t nsplit;             /* segments of split windows, first in seg */
    int64_t nzero;              /* segments of no blocks, last in seg */
    uint64_t *bitmap;
    int32_t *col;
    int64_t *vstart;
    __half *val;
    float *row_scale;
    int64_t nres_rows;
    int32_t *res_row;
    int64_t *res_off;
    int32_t *res_col;
    float *res_val;
    __half *B16;
    int64_t ldb16;
    /* tc, tc-fly, tc-f32 and cuda: n-tiles of 8 columns per TC warp
       (variant_tiles), warps per thread block (segment_warps) */
    int nt[NVARIANTS];
    int warps[NVARIANTS];
    /* the tc-item variants: each residual nonzero's row in its window, and
       each variant's items */
    uint8_t *res_lrow;
    tc_item_set isets[TC_ITEM_SETS];    /* tc-item, tc-item8, tc-item-long, tc-item8-long */
} rs_plan;

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Columns per TC warp: n rounded up to 8, 16 or 32, and 64 past 32 when
   the matrix has at least 16 TC blocks per SM: the block's decode, index
   loads and cp.async issue then serve 8 mma instead of 4 (tc at n = 256:
   TF18 458 -> 354 us, fb100_Cornell5 238 -> 160 on an H100). Below that
   the kernel is a short wave whose time is its longest warp's chain of
   blocks, which wider panels lengthen (bcsstk13's 1,938 blocks: 13.4 ->
   15.1 us). */
static int tiles_for(int32_t n, int64_t nblocks, int sm_count)
{
    if (n > 32 && nblocks >= 16 * (int64_t)sm_count)
        return 8;
    return n <= 8 ? 1 : n <= 16 ? 2 : 4;
}

/* Variant v's n-tiles per TC warp: as tiles_for says, except that tc-fly
   takes 32 columns at most. Its B fragments come straight from the
   float32 B in global memory, 16 loads per lane and block at 64 columns,
   and panels of 32 give twice the thread blocks: with 64 it was slower on
   every matrix of step 18 (bench/NOTES.md; H100: ca-CondMat at n = 128
   43.8 -> 23.3 us with 32, musae_github 82.6 -> 65.1; email-Enron at
   n = 64 70.8 -> 29.6; wiki-Vote at n = 256 40.4 -> 24.4). */
static int variant_tiles(int v, int32_t n, int64_t nblocks, int sm_count)
{
    const int nt = tiles_for(n, nblocks, sm_count);
    return v == V_TC_FLY && nt > 4 ? 4 : nt;
}

/* Panels of variant v's TC warp (8 nt columns of C) per segment. */
static int64_t tc_panels(const rs_plan *p, int v)
{
    return ceil_div(p->base.n, 8 * p->nt[v]);
}

/* The arguments of variant v; `parts` selects what runs (bit PART_TC,
   bit PART_RESIDUAL). */
static rs_args args_for(const rs_plan *p, int v, int parts, const float *B, float *C)
{
    rs_args a;
    memset(&a, 0, sizeof a);
    a.panels = (int)(v == V_CUDA ? ceil_div(p->base.n, CUDA_PANEL) : tc_panels(p, v));
    if ((parts >> PART_TC) & 1) {
        a.tc_blocks = (p->nseg - p->nzero) * a.panels;
        a.zero_blocks = ceil_div(p->nzero, ZERO_SEGS) * a.panels;
    }
    a.first_zero = p->nseg - p->nzero;
    a.nseg = p->nseg;
    a.seg = p->seg;
    a.bitmap = p->bitmap;
    a.col = p->col;
    a.vstart = p->vstart;
    a.val = p->val;
    a.row_scale = p->row_scale;
    a.res_row = p->res_row;
    a.res_off = p->res_off;
    a.res_col = p->res_col;
    a.res_val = p->res_val;
    a.chunks = (int)ceil_div(p->base.n, v == V_TC ? 8 : 4);
    a.res_threads = (parts >> PART_RESIDUAL) & 1 ? p->nres_rows * a.chunks : 0;
    a.B = B;
    a.B16 = p->B16;
    a.ldb16 = p->ldb16;
    a.C = C;
    a.rows = p->base.rows;
    a.n = p->base.n;
    return a;
}

static int64_t grid_of(const rs_plan *p, const rs_args *a, int v)
{
    return a->tc_blocks + a->zero_blocks + ceil_div(a->res_threads, 32 * p->warps[v]);
}

/* The launch, with the shared memory it needs allowed (past 48 KB at
   NT = 8). */
template <int MODE, int NT, bool VAL>
static tc_status launch(const rs_args &a, int warps, unsigned grid, cudaStream_t s, tc_error *err)
{
    const size_t smem = smem_bytes<MODE, NT>(warps);
    tc_status st = TC_CUDA(err, cudaFuncSetAttribute(rs_kernel<MODE, NT, VAL>,
                                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     (int)smem));
    if (st != TC_OK)
        return st;
    rs_kernel<MODE, NT, VAL><<<grid, 32 * warps, smem, s>>>(a);
    return TC_LAUNCHED(err, "rs_kernel");
}

template <int MODE, bool VAL>
static tc_status launch_nt(const rs_args &a, int nt, int warps, unsigned grid, cudaStream_t s,
                           tc_error *err)
{
    switch (nt) {
    case 1: return launch<MODE, 1, VAL>(a, warps, grid, s, err);
    case 2: return launch<MODE, 2, VAL>(a, warps, grid, s, err);
    case 4: return launch<MODE, 4, VAL>(a, warps, grid, s, err);
    default: return launch<MODE, 8, VAL>(a, warps, grid, s, err);
    }
}

/* tc, tc-fly or tc-f32, specialised to the matrix having values or not. */
template <int MODE>
static tc_status launch_mode(const rs_args &a, int nt, int warps, unsigned grid, cudaStream_t s,
                             tc_error *err)
{
    return a.val ? launch_nt<MODE, true>(a, nt, warps, grid, s, err)
                 : launch_nt<MODE, false>(a, nt, warps, grid, s, err);
}

static int64_t item_panels(const rs_plan *p)
{
    return ceil_div(p->base.n, TC_ITEM_PANEL);
}

/* Panels per thread block of an item variant of W warps: all of them when
   the items alone give the device two waves of blocks (each item's
   metadata is then read once, rs_item_kernel), else as few as still give
   the device two waves of blocks, one at the least. One in the -long
   variants: their share of units per warp was sized for a block per panel
   (tc_item_sets_build), and their ranged items reload their units for
   every panel anyway. */
static int item_group(const rs_plan *p, int64_t nitem, int w, bool long_)
{
    if (long_)
        return 1;
    const int64_t panels = item_panels(p);
    const int64_t want =
        2 * (int64_t)tc_gpu_get_info(p->base.gpu)->sm_count * tc_item_blocks_per_sm(w, long_);
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
template <int W, bool LONG>
static tc_status run_item(rs_plan *p, const tc_item_set *s, int parts, const float *B, float *C,
                          tc_error *err)
{
    if (s->nitem == 0)
        return TC_OK;
    const int group = item_group(p, s->nitem, W, LONG);
    rs_item_args a = { s->item, (int)item_panels(p), group,
                       (int)ceil_div(item_panels(p), group), parts, p->bitmap, p->col,
                       p->vstart, p->val, p->row_scale, p->res_lrow, p->res_col, p->res_val,
                       s->ws, s->counters, B, C, p->base.rows, p->base.n };
    const unsigned grid = (unsigned)item_grid(p, s->nitem, group);
    rs_item_kernel<W, LONG><<<grid, W * 32, 0, p->base.gpu->stream>>>(a);
    return TC_LAUNCHED(err, "rs_item_kernel");
}

static tc_status run_parts(rs_plan *p, int parts, const float *B, float *C, tc_error *err)
{
    const tc_kplan *b = &p->base;
    switch (b->variant) {
    case V_TC_ITEM: return run_item<4, false>(p, &p->isets[0], parts, B, C, err);
    case V_TC_ITEM8: return run_item<8, false>(p, &p->isets[1], parts, B, C, err);
    case V_TC_ITEM_LONG: return run_item<4, true>(p, &p->isets[2], parts, B, C, err);
    case V_TC_ITEM8_LONG: return run_item<8, true>(p, &p->isets[3], parts, B, C, err);
    default: break;
    }
    cudaStream_t s = b->gpu->stream;
    const rs_args a = args_for(p, b->variant, parts, B, C);
    tc_status st = TC_OK;
    if (b->variant == V_TC)
        st = tc_gpu_to_half(b->gpu, B, p->B16, b->cols, b->n, p->ldb16, err);
    if (st == TC_OK && a.tc_blocks > 0)
        st = tc_gpu_zero_split(b->gpu, p->seg, p->nsplit, C, b->n, err);
    const int64_t grid = grid_of(p, &a, b->variant);
    if (st != TC_OK || grid == 0)
        return st;
    const int v = b->variant, nt = p->nt[v], warps = p->warps[v];
    switch (v) {
    case V_TC: return launch_mode<V_TC>(a, nt, warps, (unsigned)grid, s, err);
    case V_TC_FLY: return launch_mode<V_TC_FLY>(a, nt, warps, (unsigned)grid, s, err);
    case V_TC_F32: return launch_mode<V_TC_F32>(a, nt, warps, (unsigned)grid, s, err);
    default: return launch<V_CUDA, 1, true>(a, warps, (unsigned)grid, s, err);
    }
}

static tc_status rs_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    return run_parts((rs_plan *)base, (1 << PART_TC) | (1 << PART_RESIDUAL), B, C, err);
}

static tc_status rs_run_part(tc_kplan *base, int part, const float *B, float *C, tc_error *err)
{
    return run_parts((rs_plan *)base, 1 << part, B, C, err);
}

static void rs_free(tc_kplan *base)
{
    rs_plan *p = (rs_plan *)base;
    if (!p)
        return;
    tc_gpu *g = p->base.gpu;
    tc_gpu_free(g, p->seg);
    tc_gpu_free(g, p->bitmap);
    tc_gpu_free(g, p->col);
    tc_gpu_free(g, p->vstart);
    tc_gpu_free(g, p->val);
    tc_gpu_free(g, p->row_scale);
    tc_gpu_free(g, p->res_row);
    tc_gpu_free(g, p->res_off);
    tc_gpu_free(g, p->res_col);
    tc_gpu_free(g, p->res_val);
    tc_gpu_free(g, p->B16);
    tc_gpu_free(g, p->res_lrow);
    tc_item_sets_free(g, p->isets);
    free(p);
}

/* ---- host-side preparation (the arrays: formats/rstile_layout.c) ---- */

/* The device segments (tc_rstile_layout_segments) in tc_segs_order's
   order, which puts those of no blocks last (*nzero of them). */
static tc_status build_segments(const tc_rstile *m, tc_seg **out, int64_t *nseg, int64_t *nsplit,
                                int64_t *nzero, tc_error *err)
{
    tc_seg *seg;
    int64_t k;
    tc_status st = tc_rstile_layout_segments(m, &seg, &k, err);
    if (st != TC_OK)
        return st;
    tc_segs_order(seg, k, nsplit);
    *nzero = 0;
    while (*nzero < k - *nsplit && seg[k - 1 - *nzero].nblocks == 0)
        ++*nzero;
    *out = seg;
    *nseg = k;
    return TC_OK;
}

/* Warps per TC thread block: a power of two, about the mean blocks per
   segment over `run` (so that each warp's run is about `run` blocks long,
   its pipeline has something to overlap and its fixed costs, the pipeline's
   first fetches and the tile's store, are shared by that many blocks, while
   long windows get many warps), between 1 and MAX_WARPS. */
static int segment_warps(const tc_rstile *m, int run)
{
    const int64_t per = m->nsegments ? ceil_div(ceil_div(m->nblocks, m->nsegments), run) : 1;
    int w = 1;
    while (w < MAX_WARPS && 2 * w <= per)
        w *= 2;
    return w;
}

/* Blocks per warp's run (segment_warps) in variant v's TC part, from its
   grid per SM: the thread blocks of its TC and zero parts (the segments
   with blocks, and the groups of those without, times its panels).
   - Under 3 per SM, runs of 1: the device is mostly idle, and a warp's
     chain of blocks is the launch's time, so a window's blocks go to as
     many warps as it has (H100, step 18 of bench/NOTES.md, at n = 32:
     1138_bus, 72 thread blocks, tc-f32 6.9 -> 5.8 us and tc-fly 9.8 ->
     6.8; bcsstk13, 126, tc-f32 7.5 -> 7.0; citeseer, 182, 8.6 -> 6.9;
     1138_bus at n = 128, 288 (2.2 per SM), 7.2 -> 6.4; and slower from
     3.8 per SM: bcsstk13 at n = 128, 504, 9.4 -> 10.1; 4elt at n = 32,
     976, 8.3 -> 9.1).
   - tc and tc-f32 where a block serves 8 mma (NT = 8), the grid has two
     panels per segment or more and 16 thread blocks per SM or more: runs
     of 8, half the warps, whose fixed costs (the pipeline's first fetches,
     the tile's store) are then shared by more blocks (step 16, at n = 256:
     musae_github 137 -> 123 us, twitch_DE 59 -> 52; and slower with fewer
     thread blocks: wiki-Vote at n = 256, 1,628, 27 -> 29 us). Not with one
     panel (step 18: gupta2 at n = 64, tc 54.9 -> 58.2 us) nor at NT = 4
     (musae_github at n = 32, tc 23.8 -> 29.4). tc-fly and cuda, whose
     warps wait on each block's B in turn, keep runs of 4 there
     (email-Enron at n = 256, step 13: 92 -> 98 us).
   - Else runs of 4. */
static int run_for(const rs_plan *p, int v)
{
    const int64_t sms = tc_gpu_get_info(p->base.gpu)->sm_count;
    const rs_args a = args_for(p, v, 1 << PART_TC, NULL, NULL);
    const int64_t grid = a.tc_blocks + a.zero_blocks;
    if (grid < 3 * sms)
        return 1;
    if ((v == V_TC || v == V_TC_F32) && p->nt[v] == 8 && a.panels > 1 && grid >= 16 * sms)
        return 8;
    return 4;
}

static tc_status upload(rs_plan *p, const tc_rstile *m, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    const int64_t nr = m->res_row_offset[m->nres_rows];
    tc_seg *seg = NULL;
    uint16_t *val = NULL;
    float *row_scale = NULL;
    int64_t *vstart = tc_rstile_layout_starts(m, err);
    if (!vstart)
        return TC_ERR_NOMEM;
    const int64_t nv = vstart[m->nblocks];
    tc_status st = build_segments(m, &seg, &p->nseg, &p->nsplit, &p->nzero, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, seg, p->nseg * (int64_t)sizeof *seg, (void **)&p->seg, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->bitmap, m->nblocks * 16, (void **)&p->bitmap, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->col_id, m->nblocks * BCOLS * 4, (void **)&p->col, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, vstart, (m->nblocks + 1) * 8, (void **)&p->vstart, err);
    if (st == TC_OK)
        st = tc_rstile_layout_values(m, vstart, &val, &row_scale, err);
    if (st == TC_OK && val)
        st = tc_gpu_upload_new(g, val, nv * 2, (void **)&p->val, err);
    if (st == TC_OK && row_scale)
        st = tc_gpu_upload_new(g, row_scale, (int64_t)m->base.rows * 4, (void **)&p->row_scale,
                               err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_row_id, m->nres_rows * 4, (void **)&p->res_row, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_row_offset, (m->nres_rows + 1) * 8,
                               (void **)&p->res_off, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_col_id, nr * 4, (void **)&p->res_col, err);
    if (st == TC_OK && m->res_values)
        st = tc_gpu_upload_f32(g, m->res_values, nr, &p->res_val, err);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, (int64_t)m->base.cols * p->ldb16 * 2, (void **)&p->B16, err);
    p->base.a_bytes = p->nseg * (int64_t)sizeof *seg + m->nblocks * (16 + BCOLS * 4 + 8) +
                      (val ? nv * 2 + (int64_t)m->base.rows * 4 : 0) + m->nres_rows * (4 + 8) +
                      8 + nr * (4 + (m->res_values ? 4 : 0));
    free(vstart);
    free(seg);
    free(val);
    free(row_scale);
    return st;
}

/* tc_item_set_build's view of rstile's windows: window w's units are the
   pairs of its TC blocks, wb[w] .. wb[w + 1], then the runs of 32 of its
   residual nonzeros, wr[w] .. wr[w + 1] (rs_item_kernel says what their
   codes and ranged items hold). */
struct rs_units {
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
    template <int W> void range(tc_item<W> *it, int64_t w, int64_t lo, int64_t hi) const
    {
        const int64_t np = pairs(w), plo = lo < np ? lo : np, phi = hi < np ? hi : np;
        const int64_t b0 = wb[w] + 2 * plo, b1 = wb[w] + 2 * phi;
        const int64_t e0 = wr[w] + 32 * (lo - plo), e1 = wr[w] + 32 * (hi - phi);
        it->unit[0] = b0;
        it->unit[1] = (b1 < wb[w + 1] ? b1 : wb[w + 1]) - b0;
        it->unit[2] = e0;
        it->unit[3] = e1 > e0 ? (e1 < wr[w + 1] ? e1 : wr[w + 1]) - e0 : 0;
    }
};

/* The tc-item variants' data: each window's first TC block (wb) and first
   residual nonzero (wr), each residual nonzero's row in its window
   (uploaded to res_lrow), and each variant's items (isets in enum order). */
static tc_status items_index(rs_plan *p, const tc_rstile *m, tc_error *err)
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

static tc_status rs_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                            const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)a;
    if (!m || strcmp(tc_format_name(tc_fmt_format(m)), "rstile") != 0)
        return tc_error_set(err, TC_ERR_ARG,
                            "rstile kernel: the matrix is not in the rstile format");
    const tc_rstile *r = (const tc_rstile *)m;
    rs_plan *p = (rs_plan *)calloc(1, sizeof *p);
    if (!p)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    p->base.gpu = g;
    p->base.n = o->n;
    p->base.rows = r->base.rows;
    p->base.cols = r->base.cols;
    for (int v = 0; v < NVARIANTS; v++)
        p->nt[v] = variant_tiles(v, o->n, r->nblocks, tc_gpu_get_info(g)->sm_count);
    p->ldb16 = tc_panels(p, V_TC) * 8 * p->nt[V_TC];
    p->nres_rows = r->nres_rows;
    p->base.nparts = NPARTS;
    for (int i = 0; i < NPARTS; i++)
        p->base.part_names[i] = part_names[i];
    p->base.part_nnz[PART_TC] = r->value_offset[r->nblocks];
    p->base.part_nnz[PART_RESIDUAL] = r->res_row_offset[r->nres_rows];
    tc_status st = upload(p, r, err);
    for (int v = 0; v < NVARIANTS && st == TC_OK; v++)
        p->warps[v] = segment_warps(r, run_for(p, v));
    if (st == TC_OK)
        st = items_index(p, r, err);
    if (st != TC_OK) {
        rs_free(&p->base);
        return st;
    }
    *out = &p->base;
    return TC_OK;
}

/* A variant runs when its grids fit in one launch. */
static tc_status rs_select(tc_kplan *base, int v, tc_error *err)
{
    rs_plan *p = (rs_plan *)base;
    const rs_args a = args_for(p, v, (1 << PART_TC) | (1 << PART_RESIDUAL), NULL, NULL);
    const bool item = v >= V_TC_ITEM && v <= V_TC_ITEM8_LONG;
    int64_t grid = grid_of(p, &a, v);
    if (item) {
        const int set = v - V_TC_ITEM;
        const int64_t nitem = p->isets[set].nitem;
        grid = item_grid(p, nitem,
                         item_group(p, nitem, tc_item_set_warps(set), tc_item_set_long(set)));
    }
    if (grid > INT32_MAX || tc_half_launch_blocks(base->cols, p->ldb16) > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rstile kernel %s: %lld thread blocks is more than one launch takes",
                            variant_names[v], (long long)grid);
    base->variant = v;
    return TC_OK;
}

extern "C" const tc_kernel tc_kernel_rstile = {
    "rstile",
    "RSH-SpMM: bitmap TC blocks on tensor cores (fp16 mma.m16n8k8, cp.async double buffer), "
    "short rows on CUDA cores",
    "fp16",
    NVARIANTS,
    variant_names,
    variant_spreads,
    rs_prepare,
    rs_select,
    rs_run,
    rs_free,
    rs_run_part,
};
