/*
 * rstile_frags.cuh: the device pieces of rstile's mma fragments that both
 * kernel families use (rstile_tc.cu's tc and tc-fly, rstile_item.cu's
 * tc-item): packing halves, an A fragment register from a block's bitmap,
 * and B fragments from two rows of the float32 B.
 */
#ifndef TC_RSTILE_FRAGS_CUH
#define TC_RSTILE_FRAGS_CUH

#include "fp16_scale.h"
#include "rstile.cuh"

static __device__ __forceinline__ uint32_t pack_half2(__half lo, __half hi)
{
    return (uint32_t)__half_as_ushort(lo) | ((uint32_t)__half_as_ushort(hi) << 16);
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

/* r times the factors f of 2^s (lib/fp16_scale.h, tc_fp16_scale), for a
   kernel that scales B as it rounds it. */
static __device__ __forceinline__ b_rows b_rows_scaled(b_rows r, float2 f)
{
    r.x = make_float4(tc_fp16_scale(r.x.x, f), tc_fp16_scale(r.x.y, f), tc_fp16_scale(r.x.z, f),
                      tc_fp16_scale(r.x.w, f));
    r.y = make_float4(tc_fp16_scale(r.y.x, f), tc_fp16_scale(r.y.y, f), tc_fp16_scale(r.y.z, f),
                      tc_fp16_scale(r.y.w, f));
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

#endif
