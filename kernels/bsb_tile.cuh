/*
 * bsb_tile.cuh: the warp-level building blocks of the kernels that read
 * the bsb format (formats/bsb.h): the fused attention and SDDMM of
 * kernels/attention.cu and the SpMM of kernels/bsb.cu.
 *
 * A warp works on a pair of TCBs of a row window at a time: 16 compacted
 * columns, the k = 16 of one mma.m16n8k16 (bsb.h: "k = two consecutive
 * blocks of a window"). The dense rows those columns name (rows of K and V
 * in attention, of B in SpMM) are gathered into shared memory as 16 rows
 * of NQ 16-byte chunks of fp16 (8 * NQ halves), chunk q of row c at slot
 * q ^ tc_swz<NQ>(c) so that ldmatrix reads them without bank conflicts.
 */
#ifndef TC_BSB_TILE_CUH
#define TC_BSB_TILE_CUH

#include <cuda_fp16.h>

#include "bsb.h"
#include "mma.cuh"

#define TC_PAIR_COLS (2 * TC_BSB_W_COLS)  /* compacted columns of a TCB pair */

/* The sptd entry of column c (0..15) of the pair starting at block b, or
   the dummy column when the pair's second block does not exist. */
static __device__ __forceinline__ int32_t tc_pair_col(const int32_t *sptd, int64_t b, int second,
                                                      int c)
{
    return c < TC_BSB_W_COLS || second ? sptd[b * TC_BSB_W_COLS + c] : TC_BSB_DUMMY_COL;
}

/* Each lane of the warp issues its share of cp.async copies of 8 * NQ
   halves of the 16 rows src + col * ld named by the pair's columns into
   dst; a dummy column's row is zeros (cp.async with source size 0), so
   padding never reads src. The caller commits. Called by the whole warp.
   Each chunk needs its row's column: for rows of 16 chunks or more (8 or
   more chunks per lane) each lane loads one of the 16 columns once and
   hands it by shuffle to the lanes that copy its row; for shorter rows
   each chunk loads it. Measured on the H200 (ncu had counted 4.5 of each
   32-byte sector of those loads used): the shuffles took the attention
   kernel at d = 128 3-10% faster on 10 matrices, but at d = 64 and in the
   bsb SpMM at n = 32 cost the hub-heavy graphs up to 7%. */
template <int NQ>
static __device__ __forceinline__ void tc_pair_gather(__half *dst, const int32_t *sptd, int64_t b,
                                                      int second, const __half *src, int64_t ld)
{
    constexpr bool shuffle = NQ >= 16;
    static_assert(TC_PAIR_COLS * NQ % 32 == 0, "every lane takes part in each shuffle");
    const int lane = threadIdx.x & 31;
    const int32_t mine = shuffle ? tc_pair_col(sptd, b, second, lane % TC_PAIR_COLS) : 0;
    for (int e = lane; e < TC_PAIR_COLS * NQ; e += 32) {
        const int r = e / NQ, q = e % NQ;
        const int32_t col = shuffle ? __shfl_sync(0xffffffffu, mine, r)
                                    : tc_pair_col(sptd, b, second, r);
        const __half *from = src + (int64_t)(col < 0 ? 0 : col) * ld + 8 * q;
        tc_cp_async16(dst + r * 8 * NQ + 8 * (q ^ tc_swz<NQ>(r)), from, col >= 0);
    }
}

/* The address lane gives ldmatrix.x4 for the A fragment of a 16 x 16 tile
   (chunks q0, q0 + 1 of rows 0-15 of a swizzled tile of NQ chunks per
   row): matrices rows 0-7 | 8-15 of chunk q0, then of chunk q0 + 1. The
   same addresses with ldmatrix.x4.trans give the B fragments of two n-tiles
   (chunks q0, q0 + 1) when the rows are k. */
template <int NQ>
static __device__ __forceinline__ const __half *tc_frag_a_row(const __half *tile, int q0)
{
    const int lane = threadIdx.x & 31;
    const int r = (lane & 7) + ((lane >> 3) & 1) * 8, q = q0 + (lane >> 4);
    return tile + r * 8 * NQ + 8 * (q ^ tc_swz<NQ>(r));
}

/* The address lane gives ldmatrix.x4 (not transposed) for the B fragments
   of two n-tiles of an mma.m16n8k16 whose B is the transpose of 16 stored
   rows (B[k][n] = rows[n][k]: K̂ᵀ in SDDMM): matrices rows 0-7 of chunk q0,
   rows 0-7 of q0 + 1, rows 8-15 of q0, rows 8-15 of q0 + 1, so that r[0],
   r[1] are b0, b1 of n-tile 0 (rows 0-7) and r[2], r[3] of n-tile 1. */
template <int NQ>
static __device__ __forceinline__ const __half *tc_frag_bt_row(const __half *tile, int q0)
{
    const int lane = threadIdx.x & 31;
    const int r = (lane & 7) + (lane >> 4) * 8, q = q0 + ((lane >> 3) & 1);
    return tile + r * 8 * NQ + 8 * (q ^ tc_swz<NQ>(r));
}

/* acc[j] (n-tile j: columns 8j .. 8j + 7) += A * rows, A the 16 x 16 fp16
   fragment a, rows the 16 gathered rows (k) of 8 * NQ columns. */
template <int NQ>
static __device__ __forceinline__ void tc_pair_rows_mma(float acc[NQ][4], const uint32_t a[4],
                                                        const __half *rows)
{
#pragma unroll
    for (int j = 0; j < NQ; j += 2) {
        uint32_t b[4];
        tc_ldmatrix_x4_trans(b, tc_frag_a_row<NQ>(rows, j));
        tc_mma_m16n8k16_f16(acc[j], a, b[0], b[1]);
        tc_mma_m16n8k16_f16(acc[j + 1], a, b[2], b[3]);
    }
}

/* The two bits of lane 4 gid + tig in row gid (half 0) or gid + 8 (half 1)
   of block b: entries (row, 2 tig) and (row, 2 tig + 1), which are the
   lane's c0 c1 (half 0) or c2 c3 (half 1) of an m16n8 C fragment (bsb.h). */
static __device__ __forceinline__ unsigned tc_lane_bits(const uint64_t *bitmap, int64_t b,
                                                        int half)
{
    const int lane = threadIdx.x & 31;
    return (unsigned)(bitmap[2 * b + half] >> (2 * lane)) & 3u;
}

#endif
