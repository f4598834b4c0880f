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

#define TC_SEG_ROWS 16

typedef struct tc_seg {
    int64_t block;              /* first block */
    int32_t row0;               /* the window's first row */
    int32_t nblocks;
    uint32_t mask;              /* bit r: the segment writes row row0 + r */
    uint32_t split;             /* 1: the window has several segments */
} tc_seg;

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

/* After __syncthreads: the warps' 16 x pw tiles in `part` ([warps][16][pw])
   added up, each row times its scale (row_scale[row], 1 when NULL), and put
   (tc_seg_put) at columns panel * pw .. of C's rows below `rows`. */
static __device__ __forceinline__ void tc_seg_store(const tc_seg &s, const float *part, int pw,
                                                    int panel, const float *row_scale,
                                                    float *C, int32_t rows, int32_t n)
{
    const int warps = blockDim.x / 32;
    for (int e = threadIdx.x; e < TC_SEG_ROWS * pw; e += blockDim.x) {
        float sum = 0.0f;
        for (int k = 0; k < warps; k++)
            sum += part[(size_t)k * TC_SEG_ROWS * pw + e];
        const int r = e / pw;
        if (s.row0 + r < rows)
            tc_seg_put(s, C, n, r, panel * pw + e % pw,
                       sum * (row_scale ? row_scale[s.row0 + r] : 1.0f));
    }
}

#endif
