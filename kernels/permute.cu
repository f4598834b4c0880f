/*
 * permute.cu: what a plan does to B and C around a kernel (plan/execute.c):
 * rows gathered into the plan's order (B) and scattered back to the
 * caller's (C), leading dimensions packed to n, and B scaled by a power of
 * two that fp16 holds (lib/fp16_scale.h) with C scaled back. All of it on
 * g's stream without waiting, so that a caller's stream sees one ordered
 * sequence of work.
 */
#include <config.h>

#include <stdint.h>

#include "absmax.cuh"
#include "fp16_scale.h"
#include "gpu_internal.h"

/* One thread per element; blockIdx.y strides rows so long matrices fit the
   grid. scatter 0: dst[i] = src[idx[i]]; 1: dst[idx[i]] = src[i]. */
__global__ static void move_rows(const float *src, int64_t lds, const int32_t *idx,
                                 int64_t rows, int32_t n, const float *maxabs, int inverse,
                                 int scatter, float *dst, int64_t ldd)
{
    const int s = (inverse ? -1 : 1) * tc_fp16_b_exponent_at(maxabs);
    for (int64_t i = blockIdx.y; i < rows; i += gridDim.y) {
        const int64_t from = idx && !scatter ? idx[i] : i;
        const int64_t to = idx && scatter ? idx[i] : i;
        for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n;
             k += gridDim.x * blockDim.x)
            dst[to * ldd + k] = ldexpf(src[from * lds + k], s);
    }
}

static tc_status launch_move(tc_gpu *g, const float *src, int64_t lds, const int32_t *idx,
                             int64_t rows, int32_t n, const float *maxabs, int inverse,
                             int scatter, float *dst, int64_t ldd, tc_error *err)
{
    if (rows == 0 || n == 0)
        return TC_OK;
    const int threads = n >= 128 ? 128 : 32;
    const unsigned gx = (unsigned)((n + threads - 1) / threads > 8 ? 8 : (n + threads - 1) / threads);
    const unsigned gy = (unsigned)(rows < 65535 ? rows : 65535);
    move_rows<<<dim3(gx, gy), threads, 0, g->stream>>>(src, lds, idx, rows, n, maxabs, inverse,
                                                       scatter, dst, ldd);
    return TC_LAUNCHED(err, "move_rows");
}

extern "C" tc_status tc_gpu_gather_rows(tc_gpu *g, const float *src, int64_t lds,
                                        const int32_t *idx, int64_t rows, int32_t n,
                                        const float *maxabs, float *dst, int64_t ldd,
                                        tc_error *err)
{
    return launch_move(g, src, lds, idx, rows, n, maxabs, 0, 0, dst, ldd, err);
}

extern "C" tc_status tc_gpu_scatter_rows(tc_gpu *g, const float *src, int64_t lds,
                                         const int32_t *idx, int64_t rows, int32_t n,
                                         const float *maxabs, float *dst, int64_t ldd,
                                         tc_error *err)
{
    return launch_move(g, src, lds, idx, rows, n, maxabs, 1, 1, dst, ldd, err);
}

/* max|x| into *out (absmax.cuh): packed and 16-byte aligned, as float4
   over the whole array; otherwise row by row (blockIdx.y strides rows), so
   that no element's index is divided. *other (not NULL) zeroed. */
__global__ static void max_abs_kernel(const float *x, int64_t rows, int32_t n, int64_t ld,
                                      unsigned *out, unsigned *other)
{
    if (other && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
        *other = 0;
    unsigned m = 0;
    if (ld == n && (uintptr_t)x % 16 == 0) {
        const int64_t threads = (int64_t)gridDim.x * gridDim.y * blockDim.x;
        const int64_t first =
            ((int64_t)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
        m = tc_abs_max_packed(x, rows * n, first, threads);
    } else {
        for (int64_t i = blockIdx.y; i < rows; i += gridDim.y)
            for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n;
                 k += gridDim.x * blockDim.x)
                m = max(m, tc_abs_bits(x[i * ld + k]));
    }
    tc_abs_max_commit(m, out);
}

/* Blocks enough to keep every SM's loads in flight (8 blocks of 256
   threads each) and no more: each ends in one atomic on *out. One block
   for an empty x, which still zeroes *other. */
extern "C" tc_status tc_gpu_max_abs(tc_gpu *g, const float *x, int64_t rows, int32_t n,
                                    int64_t ld, float *out, float *other, tc_error *err)
{
    if (!other) {
        tc_status st = TC_CUDA(err, cudaMemsetAsync(out, 0, sizeof *out, g->stream));
        if (st != TC_OK)
            return st;
    }
    const int64_t fill = (int64_t)g->info.sm_count * 8;
    const int64_t gx = n <= 256 ? 1 : (n + 255) / 256 < 8 ? (n + 255) / 256 : 8;
    const int64_t blocks = (rows * n + 1023) / 1024;   /* a float4 a thread */
    const int64_t gy = (blocks < fill ? blocks : fill) / gx;
    const dim3 grid((unsigned)gx, (unsigned)(gy > 0 ? gy : 1));
    max_abs_kernel<<<grid, 256, 0, g->stream>>>(x, rows, n, ld, (unsigned *)out,
                                                (unsigned *)other);
    return TC_LAUNCHED(err, "max_abs_kernel");
}

extern "C" tc_status tc_gpu_set_stream(tc_gpu *g, void *stream, void **previous, tc_error *err)
{
    if (previous)
        *previous = (void *)g->stream;
    g->stream = (cudaStream_t)stream;
    return TC_CUSPARSE(err, cusparseSetStream(g->sparse, g->stream));
}

/* ---------------------------------------------------------------------- */
/* The attention plan's (plan/attention_gpu.c): Q, K, V and O rows, and S's
   scores, moved by index maps that may pass 2^31 entries (one per nonzero),
   and the fp16 range check of its operands. */

/* dst row i = src row idx[i], d floats per row: a thread per element, a
   row's elements on consecutive threads so that both sides coalesce. */
__global__ static void gather_rows64(float *dst, const float *src, const int64_t *idx, int64_t rows,
                            int32_t d)
{
    const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= rows * d)
        return;
    const int64_t i = e / d, c = e % d;
    dst[e] = src[idx[i] * d + c];
}

extern "C" tc_status tc_gpu_gather_rows64(tc_gpu *g, float *dst, const float *src, const int64_t *idx,
                             int64_t rows, int32_t d, tc_error *err)
{
    const int64_t n = rows * d;
    if (n == 0)
        return TC_OK;
    gather_rows64<<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>(dst, src, idx, rows, d);
    return TC_LAUNCHED(err, "gather_rows64");
}

/* *first = the least index of an element that is not finite or whose
   magnitude passes limit (left as is when there is none). */
__global__ static void find_beyond(const float *x, int64_t n, float limit, unsigned long long *first)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        if (!(fabsf(x[i]) <= limit))    /* NaN fails the comparison too */
            atomicMin(first, (unsigned long long)i);
}

extern "C" tc_status tc_gpu_find_beyond(tc_gpu *g, const float *x, int64_t n, float limit, int64_t *first,
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
