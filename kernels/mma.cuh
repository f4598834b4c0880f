/*
 * mma.cuh: inline-PTX helpers for the tensor-core kernels (sm_80 and later):
 * mma.sync in tf32 and fp16, cp.async and ldmatrix.
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

/* Four mma C fragments (16 x 8 each, acc[q]) whose columns were mapped so
   that lane (gid, tig) holds columns 8 tig .. 8 tig + 7 of rows gid and
   gid + 8 (fragment q: columns 8 tig + q and 8 tig + 4 + q; brp.cu's
   accumulate_group, hrpb.cu's multiply and rstile.cu's pair_mul map B
   that way to load it 16 bytes at a time): those of row gid (half 0) or
   gid + 8 (half 1), as two float4 (columns + 0..3 and + 4..7). */
static __device__ __forceinline__ float4 tc_acc_row(const float acc[4][4], int half, int part)
{
    const int i = 2 * half + part;
    return make_float4(acc[0][i], acc[1][i], acc[2][i], acc[3][i]);
}

/* Such fragments into a warp's 16 x 32 tile (row pitch `pitch` floats, a
   multiple of 4) in shared memory. */
static __device__ __forceinline__ void tc_acc_tile_put(float *tile, int pitch,
                                                       const float acc[4][4])
{
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
#pragma unroll
    for (int half = 0; half < 2; half++) {
        *(float4 *)&tile[(gid + 8 * half) * pitch + 8 * tig] = tc_acc_row(acc, half, 0);
        *(float4 *)&tile[(gid + 8 * half) * pitch + 8 * tig + 4] = tc_acc_row(acc, half, 1);
    }
}

/* The scales of the two rows whose C fragment elements lane (gid, tig)
   holds, row0 + gid and row0 + gid + 8: row_scale[row], 1 where row_scale
   is NULL or the row is past `rows`. A kernel loads them before its
   multiply and applies them to its fragments after it (tc_frag_scale), so
   that their round trip overlaps the multiply instead of being the last
   one before the store (rstile step 18 in bench/NOTES.md). */
static __device__ __forceinline__ float2 tc_frag_scales(const float *__restrict__ row_scale,
                                                        int64_t row0, int32_t rows)
{
    const int64_t r = row0 + ((threadIdx.x & 31) >> 2);
    if (!row_scale)
        return make_float2(1.0f, 1.0f);
    return make_float2(r < rows ? __ldg(row_scale + r) : 1.0f,
                       r + 8 < rows ? __ldg(row_scale + r + 8) : 1.0f);
}

/* NT C fragments (layout above), each row times its scale (sc.x: row gid,
   sc.y: row gid + 8). Exact where the scales are powers of two, so that the
   partial tiles scaled before they are added up sum to what the sum scaled
   after would be. */
template <int NT>
static __device__ __forceinline__ void tc_frag_scale(float acc[NT][4], float2 sc)
{
#pragma unroll
    for (int t = 0; t < NT; t++) {
        acc[t][0] *= sc.x;
        acc[t][1] *= sc.x;
        acc[t][2] *= sc.y;
        acc[t][3] *= sc.y;
    }
}

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

/* c += A * B for one 16 x 8 x 4 tile with tf32 inputs (PTX ISA, "Matrix
   Fragments for mma.m16n8k4", .tf32), lane = 4 gid + tig:
     A (16 x 4, row-major): a0 = A[gid][tig], a1 = A[gid + 8][tig]
     B (4 x 8, column):     b0 = B[tig][gid]
     C (16 x 8): as for m16n8k8 above. */
static __device__ __forceinline__ void tc_mma_m16n8k4_tf32(float c[4], uint32_t a0, uint32_t a1,
                                                           uint32_t b0)
{
    asm("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(b0));
}

/* c += A * B for one 16 x 8 x 8 tile in fp16 with float32 accumulation
   (PTX ISA, "Matrix Fragments for mma.m16n8k8", .f16), lane = 4 gid + tig:
     A (16 x 8, row-major): a0 = A[gid][2 tig .. 2 tig + 1],
                            a1 = A[gid + 8][2 tig .. 2 tig + 1]
     B (8 x 8, column):     b0 = B[2 tig .. 2 tig + 1][gid]
     C (16 x 8): as for tf32 above.
   Each register holds two halves, the lower column (or k) in the low half. */
static __device__ __forceinline__ void tc_mma_m16n8k8_f16(float c[4], uint32_t a0, uint32_t a1,
                                                          uint32_t b0)
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(b0));
}

/* c += A * B for one 16 x 8 x 16 tile in fp16 with float32 accumulation
   (PTX ISA, "Matrix Fragments for mma.m16n8k16", .f16), lane = 4 gid + tig:
     A (16 x 16, row-major): a0 = A[gid][2 tig .. 2 tig + 1],
                             a1 = A[gid + 8][2 tig .. 2 tig + 1],
                             a2 = A[gid][2 tig + 8 .. 2 tig + 9],
                             a3 = A[gid + 8][2 tig + 8 .. 2 tig + 9]
     B (16 x 8, column):     b0 = B[2 tig .. 2 tig + 1][gid],
                             b1 = B[2 tig + 8 .. 2 tig + 9][gid]
     C (16 x 8): as for tf32 above. */
static __device__ __forceinline__ void tc_mma_m16n8k16_f16(float c[4], const uint32_t a[4],
                                                           uint32_t b0, uint32_t b1)
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* Copies 16 bytes from global to shared memory asynchronously (cp.async,
   sm_80); with `valid` 0 nothing is read and the 16 bytes are zeroed (the
   source size operand is 0), so src must then only be a valid address. */
static __device__ __forceinline__ void tc_cp_async16(void *smem, const void *src, int valid)
{
    const uint32_t dst = (uint32_t)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
                 "r"(valid ? 16 : 0)
                 : "memory");
}

/* The same for 4 bytes (.ca: copies under 16 bytes go through L1). */
static __device__ __forceinline__ void tc_cp_async4(void *smem, const void *src, int valid)
{
    const uint32_t dst = (uint32_t)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src),
                 "r"(valid ? 4 : 0)
                 : "memory");
}

static __device__ __forceinline__ void tc_cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Waits until at most `pending` committed groups of this thread are still
   in flight. */
template <int pending> static __device__ __forceinline__ void tc_cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;" ::"n"(pending) : "memory");
}

/* ldmatrix.x4.trans: four 8 x 8 matrices of halves from shared memory,
   lanes 8m .. 8m + 7 giving the addresses of the 8 rows of matrix m; lane
   4 gid + tig receives in r[m] the elements (2 tig, gid) and (2 tig + 1,
   gid) of matrix m, which is the B fragment of mma.m16n8k8.f16 when the
   matrix holds B[k][n] row-major by k. */
static __device__ __forceinline__ void tc_ldmatrix_x4_trans(uint32_t r[4], const void *row)
{
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a));
}

/* ldmatrix.x4 (not transposed): lane 4 gid + tig receives in r[m] the
   elements (gid, 2 tig) and (gid, 2 tig + 1) of matrix m, which for the four
   8 x 8 quarters of a row-major 16 x 16 A (rows 0-7 | 8-15 of columns 0-7,
   then of columns 8-15) is the A fragment of mma.m16n8k16.f16. */
static __device__ __forceinline__ void tc_ldmatrix_x4(uint32_t r[4], const void *row)
{
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a));
}

/* Shared-memory rows of NT 16-byte chunks (NT a power of two): chunk q of
   row c is stored at slot q ^ tc_swz<NT>(c), so that the eight rows one
   ldmatrix phase reads (consecutive c, same q) fall in eight different
   16-byte bank groups of a 128-byte line. */
template <int NT> static __device__ __forceinline__ int tc_swz(int c)
{
    return NT >= 8 ? c & 7 : (c / (8 / (NT < 8 ? NT : 8))) & (NT - 1);
}

#endif
