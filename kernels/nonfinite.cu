/*
 * nonfinite.cu: the plans' answer to a NaN or Inf in B without a host round
 * trip. Some variants multiply the zeros of their blocks by whole rows of
 * B, so a NaN or Inf there reaches C rows that do not use it (kernels.h,
 * variant_spreads_nonfinite). A plan that does not know B's range runs its
 * variant, then this kernel, which reads max|B| from the device
 * (tc_gpu_max_abs) and, when it is NaN or infinite, writes all of C again
 * from A's CSR: every nonzero of A and no other entry, so the exact
 * non-finite pattern. When B is finite (every product but the rare one)
 * its blocks return at once, and nothing waits for the host: the check
 * used to download max|B| on every product, a synchronisation that kept
 * the CPU from queueing the next (bench/NOTES.md, Python).
 */
#include <config.h>

#include <math.h>

#include "gpu_internal.h"

enum { WARPS = 8, BLOCKS_PER_SM = 4 };

/* A warp per row of C, rows strided over a grid that the GPU holds at once
   (a grid of one block per row would make the finite case cost a launch
   of `rows` blocks); 32 columns of the row per pass over its nonzeros. */
template <typename Index>
__global__ static void spmm_csr_if_nonfinite(const Index *rowptr, const Index *colidx,
                                             const float *val, int32_t rows, int32_t n,
                                             const float *B, const float *maxabs, float *C)
{
    if (isfinite(*maxabs))
        return;
    const int lane = threadIdx.x % 32;
    const int64_t warps = (int64_t)gridDim.x * WARPS;
    for (int64_t i = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32; i < rows; i += warps)
        for (int32_t c = lane; c < n; c += 32) {
            float acc = 0;
            for (Index k = rowptr[i]; k < rowptr[i + 1]; k++)
                acc += val[k] * B[(int64_t)colidx[k] * n + c];
            C[i * n + c] = acc;
        }
}

extern "C" tc_status tc_gpu_spmm_csr_if_nonfinite(tc_gpu *g, const tc_gpu_csr *a, const float *B,
                                                  int32_t n, const float *maxabs, float *C,
                                                  tc_error *err)
{
    if (a->rows == 0 || n == 0)
        return TC_OK;
    const int64_t wanted = ((int64_t)a->rows + WARPS - 1) / WARPS;
    const int64_t held = (int64_t)g->info.sm_count * BLOCKS_PER_SM;
    const unsigned blocks = (unsigned)(wanted < held ? wanted : held);
    if (a->index64)
        spmm_csr_if_nonfinite<int64_t><<<blocks, 32 * WARPS, 0, g->stream>>>(
            (const int64_t *)a->rowptr, (const int64_t *)a->colidx, a->val, a->rows, n, B, maxabs,
            C);
    else
        spmm_csr_if_nonfinite<int32_t><<<blocks, 32 * WARPS, 0, g->stream>>>(
            (const int32_t *)a->rowptr, (const int32_t *)a->colidx, a->val, a->rows, n, B, maxabs,
            C);
    return TC_LAUNCHED(err, "spmm_csr_if_nonfinite");
}
