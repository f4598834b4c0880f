/*
 * rstile_tc.cu: the rstile variants that walk window segments, "tc",
 * "tc-fly", "tc-f32" and "cuda" (rstile.cu's opening comment describes
 * them), with the CUDA residual part and the zero part their launch
 * shares, and their launch.
 */
#include "fp16_scale.h"
#include "rstile.cuh"
#include "rstile_frags.cuh"

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
        const float *row = a.B + (m.col >= 0 ? tc_row_elems(m.col, a.n) : 0) + c0;
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
        const __half *row = a.B16 + (m.col >= 0 ? tc_row_elems(m.col, a.ldb16) : 0) +
                            panel * 8 * NT;
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

/* "tc": one warp, blocks [lo, hi), columns [panel * 8 NT, + 8 NT) of C,
   added into acc: the global -> shared -> register pipeline of Section
   3.3.2, deeper than its double buffer. Block b + STAGES - 1 is fetched with
   cp.async while block b is decoded from its bitmap (popc prefix counts)
   into the A fragment, its B fragments come out of shared memory with
   ldmatrix.trans, and the mma run; the index loads that a fetch needs are
   made one block earlier still, so that no load waits on another inside
   the loop and a warp's first STAGES - 1 blocks cost one round trip. With
   F32 and SCALED ("tc-f32" for a B of unknown range) each element is
   multiplied by 2^s (the factors bsf, lib/fp16_scale.h) as it is rounded. */
template <int NT, bool VAL, bool F32, bool SCALED>
static __device__ void tc_range(const rs_args &a, int64_t lo, int64_t hi, int panel,
                                stage<NT, F32> *stg, float acc[NT][4], float2 bsf)
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
                if constexpr (SCALED)
                    bf[t] = pack_half2(__float2half_rn(tc_fp16_scale(k0[8 * t], bsf)),
                                       __float2half_rn(tc_fp16_scale(k1[8 * t], bsf)));
                else
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
   registers (with SCALED, times 2^s: the factors f). */
template <bool SCALED>
static __device__ __forceinline__ uint32_t b_frag_f32(const rs_args &a, int32_t col0,
                                                      int32_t col1, int32_t c, float2 f)
{
    const bool in = c < a.n;
    float x = in && col0 >= 0 ? a.B[tc_row_elems(col0, a.n) + c] : 0.0f;
    float y = in && col1 >= 0 ? a.B[tc_row_elems(col1, a.n) + c] : 0.0f;
    if constexpr (SCALED) {
        x = tc_fp16_scale(x, f);
        y = tc_fp16_scale(y, f);
    }
    return pack_half2(__float2half_rn(x), __float2half_rn(y));
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
template <int NT, bool VAL, bool SCALED>
static __device__ void fly_range(const rs_args &a, int64_t lo, int64_t hi, int panel,
                                 float acc[NT][4], float2 f)
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
            const b_rows r = b_rows_load(a.B, a.n, m.c0, m.c1, panel * 32 + 4 * gid, vec);
            b_frags_mapped(SCALED ? b_rows_scaled(r, f) : r, bf);
        } else {
            for (int t = 0; t < NT; t++)
                bf[t] = b_frag_f32<SCALED>(a, m.c0, m.c1, panel * 8 * NT + 8 * t + gid, f);
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
            b[k] = col >= 0 && c < a.n ? a.B[tc_row_elems(col, a.n) + c] : 0.0f;
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
static __device__ __forceinline__ uint4 res_b_chunk(const rs_args &a, int32_t col, int32_t c0,
                                                    bool vec)
{
    if (HALF)
        return __ldg((const uint4 *)(a.B16 + tc_row_elems(col, a.ldb16) + c0));
    if (vec)
        return __ldg((const uint4 *)(a.B + tc_row_elems(col, a.n) + c0));
    uint32_t f[4];
    for (int j = 0; j < 4; j++)
        f[j] = c0 + j < a.n ? __float_as_uint(__ldg(a.B + tc_row_elems(col, a.n) + c0 + j)) : 0u;
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
template <int HALF, bool SCALED>
static __device__ void residual_thread(const rs_args &a, int64_t t)
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
    if constexpr (SCALED)
        tc_fp16_unscale_c<W>(acc, a.b_max);
    float *dst = a.C + tc_row_elems(a.res_row[r], a.n) + c0;
    for (int j = 0; j < W; j++)
        if (c0 + j < a.n)
            dst[j] = acc[j];
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
   straight into C instead. SCALED: for a B of unknown range, the
   fragments of B are B times 2^s (s from the plan's max|B|, a.b_max):
   "tc"'s B16 converted so (tc_gpu_to_half_rows), "tc-fly" and "tc-f32"
   multiplying as they round; the sums are multiplied back by 2^-s
   (tc_fp16_unscale_c) before they are stored or added up, after the rows'
   own scales (row_scale), not folded into them: the two powers of two
   together may leave float32's range where each alone does not. In
   instances of their own: a test of a.b_max at the stores, outside the
   walk, made "tc" 2-5% slower where nothing is scaled (H200, lp_nug30 at
   n = 128 0.176 -> 0.184 ms, bcsstk17 0.0208 -> 0.0212; bench/NOTES.md,
   "fp16 safeguards at their cost"). */
template <int MODE, int NT, bool VAL, bool SCALED>
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
        /* tc-fly and tc-f32 scale B themselves; tc's B16 is scaled */
        constexpr bool ROUNDS = SCALED && MODE != V_TC;
        const float2 f = ROUNDS ? tc_fp16_scale_factors(a.b_max) : make_float2(1.0f, 1.0f);
        if constexpr (staged<MODE>()) {
            typedef stage<NT, MODE == V_TC_F32> st;
            st *stg = (st *)(part + tile_floats<MODE, NT>(warps)) + STAGES * w;
            tc_range<NT, VAL, MODE == V_TC_F32, ROUNDS>(a, lo, hi, panel, stg, acc, f);
        } else {
            fly_range<NT, VAL, ROUNDS>(a, lo, hi, panel, acc, f);
        }
        if (VAL)
            tc_frag_scale<NT>(acc, sc);
        if constexpr (SCALED)
            tc_fp16_unscale_c<4 * NT>(&acc[0][0], a.b_max);
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
   reads them when a.val says so); SCALED: a TC mode for a B of unknown
   range, its fragments of B scaled by 2^s (tc_block; the residual of
   tc-fly and tc-f32 reads float32 B as it is and sums in float32, so
   neither scales). Thread blocks below tc_blocks run the TC
   part, the next zero_blocks the zero part, the others the residual part.
   (The residual first was tried, step 17 of bench/NOTES.md: it shortens
   the tail where windows with long rows go whole among TC windows, which
   min_density's test on the whole matrix makes rare, and cost 1-5% where
   the residual is the row partition's short rows.) */
template <int MODE, int NT, bool VAL, bool SCALED>
__global__ void __launch_bounds__(MAX_WARPS * 32) rs_kernel(rs_args a)
{
    extern __shared__ uint4 smem[];
    if (blockIdx.x < a.tc_blocks) {
        tc_block<MODE, NT, VAL, SCALED>(a, blockIdx.x, (char *)smem);
        return;
    }
    if (blockIdx.x < a.tc_blocks + a.zero_blocks) {
        zero_block<panel_width<MODE, NT>()>(a, blockIdx.x - a.tc_blocks);
        return;
    }
    const int64_t t =
        (int64_t)(blockIdx.x - a.tc_blocks - a.zero_blocks) * blockDim.x + threadIdx.x;
    if (t < a.res_threads)
        residual_thread<MODE == V_TC, SCALED && MODE == V_TC>(a, t);
}

/* ------------------------------------------------------------------------ */
/* Arguments and launch                                                      */
/* ------------------------------------------------------------------------ */

rs_args rs_args_for(const rs_plan *p, int v, int parts, const float *B, float *C)
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
    a.ldb16 = (int32_t)p->ldb16;        /* rs_select: it fits */
    a.b_max = p->base.b_max;           /* tc, tc-fly and tc-f32 only (kernels.h) */
    a.C = C;
    a.rows = p->base.rows;
    a.n = p->base.n;
    return a;
}

int64_t rs_grid_of(const rs_plan *p, const rs_args *a, int v)
{
    return a->tc_blocks + a->zero_blocks + ceil_div(a->res_threads, 32 * p->warps[v]);
}

/* The launch, with the shared memory it needs allowed (past 48 KB at
   NT = 8). */
template <int MODE, int NT, bool VAL, bool SCALED = false>
static tc_status launch(const rs_args &a, int warps, unsigned grid, cudaStream_t s, tc_error *err)
{
    const size_t smem = smem_bytes<MODE, NT>(warps);
    tc_status st = tc_gpu_allow_smem((const void *)rs_kernel<MODE, NT, VAL, SCALED>, smem, err);
    if (st != TC_OK)
        return st;
    rs_kernel<MODE, NT, VAL, SCALED><<<grid, 32 * warps, smem, s>>>(a);
    return TC_LAUNCHED(err, "rs_kernel");
}

template <int MODE, bool VAL, bool SCALED>
static tc_status launch_nt(const rs_args &a, int nt, int warps, unsigned grid, cudaStream_t s,
                           tc_error *err)
{
    switch (nt) {
    case 1: return launch<MODE, 1, VAL, SCALED>(a, warps, grid, s, err);
    case 2: return launch<MODE, 2, VAL, SCALED>(a, warps, grid, s, err);
    case 4: return launch<MODE, 4, VAL, SCALED>(a, warps, grid, s, err);
    default: return launch<MODE, 8, VAL, SCALED>(a, warps, grid, s, err);
    }
}

/* tc, tc-fly or tc-f32, specialised to the matrix having values or not,
   and to B being scaled (a.b_max) or not. */
template <int MODE, bool SCALED = false>
static tc_status launch_mode(const rs_args &a, int nt, int warps, unsigned grid, cudaStream_t s,
                             tc_error *err)
{
    if constexpr (!SCALED)
        if (a.b_max)
            return launch_mode<MODE, true>(a, nt, warps, grid, s, err);
    return a.val ? launch_nt<MODE, true, SCALED>(a, nt, warps, grid, s, err)
                 : launch_nt<MODE, false, SCALED>(a, nt, warps, grid, s, err);
}

tc_status rs_run_segments(rs_plan *p, int parts, const float *B, float *C, tc_error *err)
{
    const tc_kplan *b = &p->base;
    cudaStream_t s = b->gpu->stream;
    const rs_args a = rs_args_for(p, b->variant, parts, B, C);
    tc_status st = TC_OK;
    if (b->variant == V_TC)
        st = tc_gpu_to_half_rows(b->gpu, B, p->B16, NULL, b->cols, b->n, p->ldb16, a.b_max, err);
    if (st == TC_OK && a.tc_blocks > 0)
        st = tc_gpu_zero_split(b->gpu, p->seg, p->nsplit, C, b->n, err);
    const int64_t grid = rs_grid_of(p, &a, b->variant);
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
