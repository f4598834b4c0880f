/*
 * cublas.cu: the dense reference, cuBLAS GEMM on A stored densely with its
 * zeros, in the fp16 kernels' precision (fp16 A and B, fp32 accumulation,
 * fp32 C, on tensor cores). SMaT (seed 004, Section VI-C) asks at which
 * density a sparse kernel stops beating dense GEMM on the matrix padded
 * with zeros; tcmul --bench --dense times this next to the kernel.
 *
 * A is scattered into the dense array on the device from its CSR (rows x
 * lda halves, lda = cols rounded up to 8 so that cuBLAS keeps its tensor
 * core paths); each run converts B to fp16 (as the fp16 kernels' runs do)
 * and calls cublasGemmEx. cuBLAS is column-major: the row-major C = A*B is
 * the column-major C^T = B^T A^T, which is what is asked of it. It is a
 * timing reference: values beyond fp16's range are not scaled (they do not
 * change the time), and a zero of A times an Inf of B gives NaN (marked in
 * variant_spreads).
 */
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include "gpu_internal.h"

static const char *const variant_names[] = { "fp16" };
static const unsigned char variant_spreads[] = { 1 };

typedef struct dense_plan {
    tc_kplan base;
    cublasHandle_t handle;
    __half *A16;                /* rows x lda */
    int64_t lda;
    __half *B16;                /* cols x ldb */
    int64_t ldb;
} dense_plan;

static tc_status cublas_check(cublasStatus_t s, const char *call, tc_error *err)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return TC_OK;
    return tc_error_set(err, TC_ERR_CUDA, "%s: %s", call, cublasGetStatusString(s));
}

static int64_t round8(int64_t x)
{
    return (x + 7) / 8 * 8;
}

/* Thread i: nonzero i of the CSR into the dense A16 (zeroed before). */
template <typename I>
__global__ void scatter(const I *rowptr, const I *colidx, const float *val, int32_t rows,
                        int64_t nnz, __half *A16, int64_t lda)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nnz)
        return;
    int32_t lo = 0, hi = rows;  /* the row holding nonzero i: rowptr[r] <= i < rowptr[r + 1] */
    while (hi - lo > 1) {
        const int32_t mid = lo + (hi - lo) / 2;
        if ((int64_t)rowptr[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    A16[(int64_t)lo * lda + colidx[i]] = __float2half_rn(val[i]);
}

static tc_status densify(dense_plan *p, const tc_csr *a, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    tc_gpu_csr d;
    const int64_t blocks = (a->nnz + 255) / 256;
    if (blocks > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "dense reference: %lld nonzeros is more "
                            "than one launch takes", (long long)a->nnz);
    tc_status st = TC_CUDA(err, cudaMemsetAsync(p->A16, 0, (size_t)(a->rows * p->lda * 2),
                                                g->stream));
    if (st == TC_OK && a->nnz > 0) {
        st = tc_gpu_csr_upload(g, a, &d, err);
        if (st != TC_OK)
            return st;
        if (d.index64)
            scatter<int64_t><<<(unsigned)blocks, 256, 0, g->stream>>>(
                (const int64_t *)d.rowptr, (const int64_t *)d.colidx, d.val, a->rows, a->nnz,
                p->A16, p->lda);
        else
            scatter<int32_t><<<(unsigned)blocks, 256, 0, g->stream>>>(
                (const int32_t *)d.rowptr, (const int32_t *)d.colidx, d.val, a->rows, a->nnz,
                p->A16, p->lda);
        st = TC_LAUNCHED(err, "scatter");
        if (st == TC_OK)
            st = TC_CUDA(err, cudaStreamSynchronize(g->stream));
        tc_gpu_csr_free(g, &d);
    }
    return st;
}

static void dense_free(tc_kplan *base)
{
    dense_plan *p = (dense_plan *)base;
    if (!p)
        return;
    if (p->handle)
        cublasDestroy(p->handle);
    tc_gpu_free(p->base.gpu, p->A16);
    tc_gpu_free(p->base.gpu, p->B16);
    free(p);
}

/* The dense A and B take 2 (rows x lda + cols x ldb) bytes: refused when
   that is more than half the device's free memory (the operand sets need
   the rest). */
static tc_status dense_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                               const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)m;
    dense_plan *p = (dense_plan *)calloc(1, sizeof *p);
    if (!p)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    p->base.gpu = g;
    p->base.rows = a->rows;
    p->base.cols = a->cols;
    p->base.n = o->n;
    p->lda = round8(a->cols);
    p->ldb = round8(o->n);
    const int64_t need = 2 * ((int64_t)a->rows * p->lda + (int64_t)a->cols * p->ldb);
    size_t mfree = 0, mtotal = 0;
    tc_status st = TC_CUDA(err, cudaMemGetInfo(&mfree, &mtotal));
    if (st == TC_OK && need > (int64_t)(mfree / 2))
        st = tc_error_set(err, TC_ERR_UNSUPPORTED,
                          "dense reference: A stored densely (%d x %d, fp16) and B need %.1f GB, "
                          "more than half the %.1f GB free on the device",
                          a->rows, a->cols, need / 1e9, mfree / 1e9);
    if (st == TC_OK)
        st = cublas_check(cublasCreate(&p->handle), "cublasCreate", err);
    if (st == TC_OK)
        st = cublas_check(cublasSetStream(p->handle, g->stream), "cublasSetStream", err);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, (int64_t)a->rows * p->lda * 2, (void **)&p->A16, err);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, (int64_t)a->cols * p->ldb * 2, (void **)&p->B16, err);
    if (st == TC_OK)
        st = densify(p, a, err);
    if (st != TC_OK) {
        dense_free(&p->base);
        return st;
    }
    p->base.a_bytes = (int64_t)a->rows * p->lda * 2;
    *out = &p->base;
    return TC_OK;
}

static tc_status dense_select(tc_kplan *base, int v, tc_error *err)
{
    (void)err;
    base->variant = v;
    return TC_OK;
}

static tc_status dense_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    dense_plan *p = (dense_plan *)base;
    const int32_t rows = base->rows, cols = base->cols, n = base->n;
    if (rows == 0 || n == 0)
        return TC_OK;
    if (cols == 0)
        return TC_CUDA(err, cudaMemsetAsync(C, 0, (size_t)rows * n * sizeof(float),
                                            base->gpu->stream));
    const float one = 1.0f, zero = 0.0f;
    tc_status st = tc_gpu_to_half(base->gpu, B, p->B16, cols, n, p->ldb, err);
    if (st == TC_OK)
        st = cublas_check(cublasGemmEx(p->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, rows, cols, &one,
                                       p->B16, CUDA_R_16F, (int)p->ldb, p->A16, CUDA_R_16F,
                                       (int)p->lda, &zero, C, CUDA_R_32F, n,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                          "cublasGemmEx", err);
    return st;
}

extern "C" const tc_kernel tc_kernel_gemm = {
    "dense",
    "cuBLAS GEMM on A stored densely (fp16 in, fp32 accumulation, tensor cores)",
    "fp16",
    1,
    variant_names,
    variant_spreads,
    dense_prepare,
    dense_select,
    dense_run,
    dense_free,
    NULL,
};
