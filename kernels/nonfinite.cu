/*
 * nonfinite.cu: a plan's answer to a NaN or Inf in B, all on the device.
 * Some variants multiply the zeros of their blocks by whole rows of B, so
 * a NaN or Inf there reaches C rows that do not use it (kernels.h,
 * variant_spreads_nonfinite). A plan that does not know B's range runs its
 * variant, then the guard: one launch that finds max|B| and, when it is
 * NaN or infinite, writes all of C again from A's CSR (every nonzero of A
 * and no other entry: the exact non-finite pattern). When B is finite
 * (every product but the rare one) the guard reads B once and returns.
 * Nothing waits for the host: the check used to download max|B| before
 * every product, a synchronisation that kept the CPU from queueing the next
 * one (bench/NOTES.md, Python), and it took three launches where this takes
 * one (a launch costs the host 3-5 us on the device we measure on).
 *
 * The scan and the decision need every block's maximum: the launch is
 * cooperative (its blocks are all resident) and the grid synchronises
 * between them. The maximum goes into one of two flags, in turn, so that
 * each launch can zero the other for the next one without a memset.
 */
#include <config.h>

#include <cooperative_groups.h>
#include <math.h>
#include <stdlib.h>

#include "absmax.cuh"
#include "gpu_internal.h"

namespace cg = cooperative_groups;

enum { WARPS = 8, MAX_BLOCKS_PER_SM = 4 };
#define NONFINITE_BITS 0x7f800000u  /* |x|'s bits at or above: Inf or NaN */

struct tc_gpu_guard {
    tc_gpu_csr a;               /* A's CSR in the kernel's order */
    unsigned *flags;            /* two max|B| bit patterns, zero when unused */
    int slot;                   /* the flag the next launch measures into */
    unsigned blocks;            /* a grid whose blocks are all resident */
};

template <typename Index> struct guard_args {
    const Index *rowptr, *colidx;
    const float *val;
    int32_t rows;
    int64_t b_elems;            /* B's cols x n, packed */
    int32_t n;
    const float *B;
    const float *maxabs;        /* max|B| already measured, or NULL */
    unsigned *flag, *other;
    float *C;
};

/* This block's share of max|B| (B 16-byte aligned: the plans pass their
   packed copy or an aligned caller's array), into *flag. */
__device__ static void measure(const float *B, int64_t elems, unsigned *flag)
{
    tc_abs_max_commit(tc_abs_max_packed(B, elems, (int64_t)blockIdx.x * blockDim.x + threadIdx.x,
                                        (int64_t)gridDim.x * blockDim.x),
                      flag);
}

template <typename Index> __global__ static void guard_kernel(guard_args<Index> a)
{
    bool finite;
    if (a.maxabs) {
        finite = isfinite(*a.maxabs);
    } else {
        measure(a.B, a.b_elems, a.flag);
        cg::this_grid().sync();
        finite = __ldcg(a.flag) < NONFINITE_BITS;
        if (blockIdx.x == 0 && threadIdx.x == 0)
            *a.other = 0;
    }
    if (finite)
        return;
    /* a warp per row of C, 32 columns per pass over the row's nonzeros */
    const int lane = threadIdx.x % 32;
    const int64_t warps = (int64_t)gridDim.x * WARPS;
    for (int64_t i = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32; i < a.rows; i += warps)
        for (int32_t c = lane; c < a.n; c += 32) {
            float acc = 0;
            for (Index k = a.rowptr[i]; k < a.rowptr[i + 1]; k++)
                acc += a.val[k] * a.B[(int64_t)a.colidx[k] * a.n + c];
            a.C[i * a.n + c] = acc;
        }
}

template <typename Index> static void *kernel_of(void)
{
    return (void *)guard_kernel<Index>;
}

extern "C" tc_status tc_gpu_guard_new(tc_gpu *g, const tc_csr *a, tc_gpu_guard **out,
                                      tc_error *err)
{
    *out = NULL;
    tc_gpu_guard *q = (tc_gpu_guard *)calloc(1, sizeof *q);
    if (!q)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_status st = tc_gpu_csr_upload(g, a, &q->a, err);
    /* zeroed before any product, whichever stream that is on (the upload
       waits for the copy) */
    const unsigned zero[2] = { 0, 0 };
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, zero, sizeof zero, (void **)&q->flags, err);
    int per_sm = 0;
    if (st == TC_OK)
        st = TC_CUDA(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                              &per_sm, q->a.index64 ? kernel_of<int64_t>() : kernel_of<int32_t>(),
                              32 * WARPS, 0));
    if (st == TC_OK && per_sm < 1)
        st = tc_error_set(err, TC_ERR_CUDA, "the NaN/Inf guard's kernel fits no SM");
    if (st != TC_OK) {
        tc_gpu_guard_free(g, q);
        return st;
    }
    q->blocks = (unsigned)((per_sm < MAX_BLOCKS_PER_SM ? per_sm : MAX_BLOCKS_PER_SM) *
                           g->info.sm_count);
    *out = q;
    return TC_OK;
}

template <typename Index>
static tc_status launch(tc_gpu *g, tc_gpu_guard *q, const float *B, int32_t n,
                        const float *maxabs, float *C, tc_error *err)
{
    guard_args<Index> a = { (const Index *)q->a.rowptr, (const Index *)q->a.colidx, q->a.val,
                            q->a.rows, (int64_t)q->a.cols * n, n, B, maxabs,
                            q->flags + q->slot, q->flags + 1 - q->slot, C };
    if (!maxabs)
        q->slot = 1 - q->slot;
    void *params[] = { &a };
    return TC_CUDA(err, cudaLaunchCooperativeKernel(kernel_of<Index>(), q->blocks, 32 * WARPS,
                                                    params, 0, g->stream));
}

extern "C" tc_status tc_gpu_guard_run(tc_gpu *g, tc_gpu_guard *q, const float *B, int32_t n,
                                      const float *maxabs, float *C, tc_error *err)
{
    if (n == 0 || q->a.rows == 0 || q->a.cols == 0)
        return TC_OK;
    return q->a.index64 ? launch<int64_t>(g, q, B, n, maxabs, C, err)
                        : launch<int32_t>(g, q, B, n, maxabs, C, err);
}

extern "C" void tc_gpu_guard_free(tc_gpu *g, tc_gpu_guard *q)
{
    if (!q)
        return;
    tc_gpu_csr_free(g, &q->a);
    tc_gpu_free(g, q->flags);
    free(q);
}
