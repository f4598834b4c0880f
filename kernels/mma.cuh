/*
 * mma.cuh: inline-PTX helpers for the tensor-core kernels (sm_80 and later).
 *
 * Fragment layout of mma.m16n8k8 with tf32 inputs (PTX ISA, "Matrix
 * Fragments for mma.m16n8k8"), for lane = 4 * gid + tig:
 *   A (16 x 8, row-major): a0 = A[gid][tig],   a1 = A[gid + 8][tig],
 *                          a2 = A[gid][tig + 4], a3 = A[gid + 8][tig + 4]
 *   B (8 x 8, column):     b0 = B[tig][gid],   b1 = B[tig + 4][gid]
 *   C (16 x 8):            c0 = C[gid][2 tig], c1 = C[gid][2 tig + 1],
 *                          c2 = C[gid + 8][2 tig], c3 = C[gid + 8][2 tig + 1]
 */
#ifndef TC_MMA_CUH
#define TC_MMA_CUH

#include <stdint.h>

/* float32 to tf32, rounding to nearest with ties away from zero (the
   conversion BRP-SpMM's Alg. 2 uses, lines 18 and 20). */
static __device__ __forceinline__ uint32_t tc_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

/* c += A * B for one 16 x 8 x 8 tile: a holds the four A registers, b0 and
   b1 the two B registers (layout above), accumulation in float32. */
static __device__ __forceinline__ void tc_mma_m16n8k8_tf32(float c[4], const uint32_t a[4],
                                                           uint32_t b0, uint32_t b1)
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

#endif
