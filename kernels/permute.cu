/*
 * permute.cu: the device side of a plan's permutation and of its fp16
 * range check (plan/attention.c). A plan that multiplies a reordered
 * matrix gathers the caller's Q, K and V rows into the stored order and
 * O's rows (S's scores) back into the caller's, on the caller's stream, so
 * that device pointers never make a round trip through the host.
 */
#include <stdint.h>

#include "gpu_internal.h"

/* dst row i = src row idx[i], d floats per row: a thread per element, a
   row's elements on consecutive threads so that both sides coalesce. */
__global__ void gather_rows(float *dst, const float *src, const int64_t *idx, int64_t rows,
                            int32_t d)
{
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= rows * d)
        return;
    const int64_t i = e / d, c = e % d;
    dst[e] = src[idx[i] * d + c];
}

tc_status tc_gpu_gather_rows(tc_gpu *g, float *dst, const float *src, const int64_t *idx,
                             int64_t rows, int32_t d, tc_error *err)
{
    const int64_t n = rows * d;
    if (n == 0)
        return TC_OK;
    gather_rows<<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>(dst, src, idx, rows, d);
    return TC_LAUNCHED(err, "gather_rows");
}

/* *first = the least index of an element that is not finite or whose
   magnitude passes limit (left as is when there is none). */
__global__ void find_beyond(const float *x, int64_t n, float limit, unsigned long long *first)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        if (!(fabsf(x[i]) <= limit))    /* NaN fails the comparison too */
            atomicMin(first, (unsigned long long)i);
}

tc_status tc_gpu_find_beyond(tc_gpu *g, const float *x, int64_t n, float limit, int64_t *first,
                             tc_error *err)
{
    *first = -1;
    if (n == 0)
        return TC_OK;
    unsigned long long *dev = NULL, none = ~0ull, at = ~0ull;
    tc_status st = tc_gpu_upload_new(g, &none, sizeof none, (void **)&dev, err);
    if (st == TC_OK) {
        const int64_t blocks = (n + 255) / 256;
        find_beyond<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, g->stream>>>(x, n, limit,
                                                                                   dev);
        st = TC_LAUNCHED(err, "find_beyond");
    }
    if (st == TC_OK)
        st = tc_gpu_download(g, &at, dev, sizeof at, err);
    if (st == TC_OK && at != ~0ull)
        *first = (int64_t)at;
    tc_gpu_free(g, dev);
    return st;
}
