/*
 * absmax.cuh: max|B| on the device, for the plan's fp16 scaling
 * (permute.cu, tc_gpu_max_abs) and the NaN/Inf guard (nonfinite.cu).
 * Non-negative floats order as their bit patterns, NaN above Inf, so the
 * largest bit pattern of |x| is max|x|, NaN when there is one, and an
 * atomicMax on the bits combines the threads' shares.
 */
#ifndef TC_ABSMAX_CUH
#define TC_ABSMAX_CUH

#include <math.h>
#include <stdint.h>

__device__ static inline unsigned tc_abs_bits(float x)
{
    return __float_as_uint(fabsf(x));
}

/* The largest |x| bits of this thread's share of elems packed floats
   from x (16-byte aligned: read as float4), the grid striding from
   `first` by `stride` threads. */
__device__ static inline unsigned tc_abs_max_packed(const float *x, int64_t elems, int64_t first,
                                                    int64_t stride)
{
    unsigned m = 0;
    const float4 *x4 = (const float4 *)x;
    for (int64_t e = first; e < elems / 4; e += stride) {
        const float4 v = x4[e];
        m = max(max(m, tc_abs_bits(v.x)),
                max(tc_abs_bits(v.y), max(tc_abs_bits(v.z), tc_abs_bits(v.w))));
    }
    for (int64_t e = elems / 4 * 4 + first; e < elems; e += stride)
        m = max(m, tc_abs_bits(x[e]));
    return m;
}

/* The block's largest m into *out: one atomic a block, none for 0, where
   one a warp queued thousands on one address (every thread of the block
   calls it; blockDim.x a multiple of 32). */
__device__ static inline void tc_abs_max_commit(unsigned m, unsigned *out)
{
    __shared__ unsigned warp_max[32];
    for (int off = 16; off > 0; off /= 2)
        m = max(m, __shfl_down_sync(0xffffffffu, m, off));
    if (threadIdx.x % 32 == 0)
        warp_max[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x >= 32)
        return;
    m = threadIdx.x < blockDim.x / 32 ? warp_max[threadIdx.x] : 0;
    for (int off = 16; off > 0; off /= 2)
        m = max(m, __shfl_down_sync(0xffffffffu, m, off));
    if (threadIdx.x == 0 && m)
        atomicMax(out, m);
}

#endif
