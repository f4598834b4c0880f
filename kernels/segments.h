/*
 * segments.h: the unit of work of the block-row kernels (rstile.cu,
 * bcsr.cu): a run of consecutive tensor-core blocks of one 16-row window,
 * multiplied by one thread block, which stores the window's rows of C once.
 *
 * A window whose blocks are too many for one thread block is cut into
 * several segments (split); they add their sums into C rows that
 * tc_gpu_zero_split zeroed first, so that no two thread blocks race on a
 * store. Segments are ordered split ones first (the zeroing launch takes
 * them as a prefix), each group longest first, so that the longest start
 * first and the short ones fill in behind them.
 */
#ifndef TC_SEGMENTS_H
#define TC_SEGMENTS_H

#include "gpu_internal.h"
#include "mma.cuh"
#include "segment.h"

/* Sorts seg[0..n) into the order above; *nsplit gets the split ones' count. */
void tc_segs_order(tc_seg *seg, int64_t n, int64_t *nsplit);

/* On g's stream: zeroes the rows (mask bits) of the first nsplit segments
   in C (n columns). Nothing to do when nsplit is 0. */
tc_status tc_gpu_zero_split(tc_gpu *g, const tc_seg *seg, int64_t nsplit, float *C, int32_t n,
                            tc_error *err);

/* Stores (or, for a split window, adds) v into C[row0 + r][c] (C has n
   columns) when the segment writes that row and c < n. */
static __device__ __forceinline__ void tc_seg_put(const tc_seg &s, float *C, int32_t n, int r,
                                                  int32_t c, float v)
{
    if (!((s.mask >> r) & 1) || c >= n)
        return;
    float *dst = &C[(int64_t)(s.row0 + r) * n + c];
    if (s.split)
        atomicAdd(dst, v);
    else
        *dst = v;
}

/* Stores (or, for a split window, adds) the K = 2 or 4 floats of v (float2
   or float4) into C[row0 + r][c .. c + K) when the segment writes that row.
   vec: n % K == 0 and c % K == 0, so that the K are aligned and all inside C
   or all past it, and go in one access; else one by one (tc_seg_put). */
template <typename V>
static __device__ __forceinline__ void tc_seg_putv(const tc_seg &s, float *C, int32_t n, int r,
                                                   int32_t c, V v, bool vec)
{
    constexpr int K = sizeof(V) / sizeof(float);
    const float *e = (const float *)&v;
    if (!vec) {
#pragma unroll
        for (int k = 0; k < K; k++)
            tc_seg_put(s, C, n, r, c + k, e[k]);
        return;
    }
    if (!((s.mask >> r) & 1) || c >= n)
        return;
    V *dst = (V *)&C[(int64_t)(s.row0 + r) * n + c];
    if (!s.split) {
        *dst = v;
        return;
    }
#if __CUDA_ARCH__ >= 900
    atomicAdd(dst, v);
#else
#pragma unroll
    for (int k = 0; k < K; k++)
        atomicAdd((float *)dst + k, e[k]);
#endif
}

/* The thread block's warps split the segment's blocks into consecutive
   runs, one each: warp w's is [*lo, *hi). */
static __device__ __forceinline__ void tc_seg_warp_range(const tc_seg &s, int64_t *lo,
                                                         int64_t *hi)
{
    const int warps = blockDim.x / 32, w = threadIdx.x / 32;
    const int64_t per = (s.nblocks + warps - 1) / warps;
    *lo = min(s.block + w * per, s.block + s.nblocks);
    *hi = min(*lo + per, s.block + s.nblocks);
}

/* A warp's NT mma C fragments (16 x 8 each, side by side) into its
   16 x pw tile `mine` in shared memory. */
template <int NT>
static __device__ __forceinline__ void tc_tile_store(float *mine, int pw, const float acc[NT][4])
{
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    for (int t = 0; t < NT; t++) {
        const int c = 8 * t + 2 * tig;
        mine[gid * pw + c] = acc[t][0];
        mine[gid * pw + c + 1] = acc[t][1];
        mine[(gid + 8) * pw + c] = acc[t][2];
        mine[(gid + 8) * pw + c + 1] = acc[t][3];
    }
}

/* A warp's mma C fragments, already scaled (tc_frag_scale), put straight
   into C at columns c0 .. of its rows below `rows`: what a thread block of
   one warp does instead of tc_tile_store and tc_seg_store, with no tile in
   shared memory and no barrier. NT fragments laid out as tc_tile_store
   says, two floats at a time where n is even; or (MAPPED) four whose
   columns were mapped as mma.cuh's tc_acc_row says, lane (gid, tig)
   holding columns 8 tig .. 8 tig + 7 of rows gid and gid + 8, 16 bytes at
   a time where n % 4 == 0. */
template <int NT, bool MAPPED>
static __device__ __forceinline__ void tc_seg_store_frags(const tc_seg &s, const float acc[NT][4],
                                                          int32_t c0, float *C, int32_t rows,
                                                          int32_t n)
{
    static_assert(!MAPPED || NT == 4, "tc_seg_store_frags: tc_acc_row's layout is 4 fragments");
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    const bool vec = n % (MAPPED ? 4 : 2) == 0;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int r = gid + 8 * h;
        if (s.row0 + r >= rows)
            continue;
        if constexpr (MAPPED) {
            tc_seg_putv(s, C, n, r, c0 + 8 * tig, tc_acc_row(acc, h, 0), vec);
            tc_seg_putv(s, C, n, r, c0 + 8 * tig + 4, tc_acc_row(acc, h, 1), vec);
        } else {
#pragma unroll
            for (int t = 0; t < NT; t++) {
                const float2 v = make_float2(acc[t][2 * h], acc[t][2 * h + 1]);
                tc_seg_putv(s, C, n, r, c0 + 8 * t + 2 * tig, v, vec);
            }
        }
    }
}

/* After __syncthreads: the warps' 16 x PW tiles in `part` ([warps][16][PW])
   added up, each row times its scale (row_scale[row], 1 when NULL), and put
   (tc_seg_putv) at columns panel * PW .. of C's rows below `rows`. Each
   thread takes four consecutive columns of a row at a time (16-byte loads
   and, where n % 4 == 0, stores), and PW is a constant, so that the row and
   column of a quad are a shift and a mask (one float a step, with PW a
   run-time divisor, made this store as long as a warp's multiply loop:
   rstile step 15 in bench/NOTES.md). */
template <int PW>
static __device__ __forceinline__ void tc_seg_store(const tc_seg &s, const float *part, int panel,
                                                    const float *row_scale, float *C,
                                                    int32_t rows, int32_t n)
{
    static_assert(PW % 4 == 0, "tc_seg_store: the tile's rows are stored in quads");
    constexpr int Q = PW / 4;
    const int warps = blockDim.x / 32;
    const float4 *quad = (const float4 *)part;
    const bool vec = n % 4 == 0;
    for (int q = threadIdx.x; q < TC_SEG_ROWS * Q; q += blockDim.x) {
        const int r = q / Q;
        if (s.row0 + r >= rows || !((s.mask >> r) & 1))
            continue;
        float4 sum = quad[q];
        for (int k = 1; k < warps; k++) {
            const float4 t = quad[(size_t)k * TC_SEG_ROWS * Q + q];
            sum.x += t.x;
            sum.y += t.y;
            sum.z += t.z;
            sum.w += t.w;
        }
        const float sc = row_scale ? row_scale[s.row0 + r] : 1.0f;
        sum.x *= sc;
        sum.y *= sc;
        sum.z *= sc;
        sum.w *= sc;
        tc_seg_putv(s, C, n, r, panel * PW + 4 * (q % Q), sum, vec);
    }
}

#endif
