/*
 * prefetch.cuh: B asked of L2 as a kernel starts.
 *
 * A short product's time is a chain of dependent loads (a segment, its
 * rows' ends, a chunk of column indices, then the rows of B they name).
 * Over fresh operands, as tcmul and the planner time (kernels/gpu.cu) and
 * as a loop over new inputs runs, B comes from DRAM while A's arrays,
 * read every product, stay in L2: the gathers of B add a DRAM round trip
 * to the chain. A kernel that calls tc_prefetch_l2 first has each thread
 * block ask L2 for its share of B, so that B's DRAM reads overlap the
 * chain's first loads instead of following them. Measured on rowsplit
 * (H200, bench/NOTES.md, "B prefetched into L2"): 4-7% off meshes and
 * sparse graphs at n = 32, but 1-3.5% slower on graphs whose rows of B
 * are each gathered many times, and nothing or a loss on rstile's and
 * hrpb's kernels; so it is a variant that tuning times, not a rule.
 */
#ifndef TC_PREFETCH_CUH
#define TC_PREFETCH_CUH

#include <stdint.h>

#include "gpu_internal.h"

/* Whether B of b_bytes can be prefetched whole and still be in L2 when its
   gathers come: a quarter of L2, the rest left to A's arrays, C's lines
   and the hardware's own choices. */
static inline bool tc_prefetch_fits(const tc_gpu *g, int64_t b_bytes)
{
    return b_bytes <= g->info.l2_bytes / 4;
}

/* This thread block's share of [p, p + bytes), asked of L2 (bytes within
   tc_prefetch_fits): on sm_90 one bulk prefetch by the block's first
   thread, which the copy engine splits, the share's whole 16-byte units
   (the instruction takes no others; a caller's B may start anywhere a
   float may); before sm_90 its 128-byte lines, a thread each. */
static __device__ __forceinline__ void tc_prefetch_l2(const void *p, int64_t bytes)
{
    const int64_t blocks = (int64_t)gridDim.x * gridDim.y;
    const int64_t b = (int64_t)blockIdx.y * gridDim.x + blockIdx.x;
    const int64_t share = ((bytes + blocks - 1) / blocks + 127) / 128 * 128;
    const int64_t lo = b * share;
    const int64_t hi = lo + share < bytes ? lo + share : bytes;
    if (lo >= hi)
        return;
#if __CUDA_ARCH__ >= 900
    const uintptr_t from = ((uintptr_t)p + lo + 15) & ~(uintptr_t)15;
    const uintptr_t to = ((uintptr_t)p + hi) & ~(uintptr_t)15;
    if (threadIdx.x == 0 && from < to)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(from),
                     "r"((unsigned)(to - from)));
#else
    for (int64_t off = lo + (int64_t)threadIdx.x * 128; off < hi; off += (int64_t)blockDim.x * 128)
        asm volatile("prefetch.global.L2 [%0];" ::"l"((const char *)p + off));
#endif
}

#endif
