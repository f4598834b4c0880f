/*
 * fp16.cu: what the kernels with fp16 variants (rstile, bcsr, bsb,
 * rowsplit's "half", cuBLAS's, attention) share to bring their operands
 * into half precision (gpu_internal.h).
 */

#include <cuda_fp16.h>

#include "fp16_scale.h"
#include "gpu_internal.h"
#include "pdl.cuh"

/* Thread i: 8 halves of row k = i / (ld / 8) of B16 (a 16-byte store):
   row k of B, or with LISTED the row list[k] names; times 2^s, s from
   maxabs (lib/fp16_scale.h; NULL: as it is). */
template <bool LISTED>
__global__ void to_half(const float *__restrict__ B, __half *B16, int64_t rows, int32_t n,
                        int64_t ld, const int32_t *__restrict__ list, const float *maxabs)
{
    /* a kernel launched to follow this one (pdl.cuh: rowsplit's "half")
       may start once every block of this one has */
    tc_pdl_trigger();
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t per_row = ld / 8;
    if (i >= rows * per_row)
        return;
    const int64_t k = i / per_row;
    const int64_t r = LISTED ? list[k] : k;
    const int32_t c0 = (int32_t)(i % per_row) * 8;
    float v[8];
    for (int j = 0; j < 8; j++)
        v[j] = c0 + j < n ? B[r * n + c0 + j] : 0.0f;
    /* the scaling only where asked: the pass is at the copy rate without */
    if (maxabs) {
        const int s = tc_fp16_b_exponent_at(maxabs);
        for (int j = 0; j < 8; j++)
            v[j] = ldexpf(v[j], s);
    }
    __half h[8];
    for (int j = 0; j < 8; j++)
        h[j] = __float2half_rn(v[j]);
    *(uint4 *)(B16 + k * ld + c0) = *(const uint4 *)h;
}

int64_t tc_half_launch_blocks(int64_t rows, int64_t ld)
{
    return (rows * (ld / 8) + 255) / 256;
}

tc_status tc_gpu_to_half_rows(tc_gpu *g, const float *B, void *B16, const int32_t *list,
                              int64_t count, int32_t n, int64_t ld, const float *maxabs,
                              tc_error *err)
{
    const int64_t grid = tc_half_launch_blocks(count, ld);
    if (grid == 0)
        return TC_OK;
    if (grid > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "converting B (%lld rows) to fp16 is more than one launch takes",
                            (long long)count);
    if (list)
        to_half<true><<<(unsigned)grid, 256, 0, g->stream>>>(B, (__half *)B16, count, n, ld, list,
                                                             maxabs);
    else
        to_half<false><<<(unsigned)grid, 256, 0, g->stream>>>(B, (__half *)B16, count, n, ld, NULL,
                                                              maxabs);
    return TC_LAUNCHED(err, "to_half");
}

tc_status tc_gpu_to_half(tc_gpu *g, const float *B, void *B16, int64_t rows, int32_t n,
                         int64_t ld, tc_error *err)
{
    return tc_gpu_to_half_rows(g, B, B16, NULL, rows, n, ld, NULL, err);
}
