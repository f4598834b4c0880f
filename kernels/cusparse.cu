/*
 * cusparse.cu: the baseline kernel, cusparseSpMM on CSR (fp32 values and
 * arithmetic, row-major B and C). Its variants are cuSPARSE's algorithms for
 * CSR; tc_kernel_tune times them and keeps the fastest, which is the "best
 * cuSPARSE" figure every other kernel is compared with (DESIGN.md, GPU).
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

/* Most often fastest first (HACKING.md), so that a plan that times nothing
   (--effort estimate) runs ALG3: the fastest in 319 of 444 rows of
   results/rstile.tsv, hrpb.tsv and rowsplit-order.tsv (default 63, ALG2 57,
   ALG1 5). Listed first, the default algorithm ran ESTIMATE's cuSPARSE
   plans at 0.35-0.8x of ALG3 on the small graphs at n <= 128 (results/
   auto.tsv at 3653b25, bench/NOTES.md, "Auto plans"). */
static const char *const variant_names[] = { "alg3", "default", "alg2", "alg1" };
static const cusparseSpMMAlg_t variant_alg[] = {
    CUSPARSE_SPMM_CSR_ALG3, CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2,
    CUSPARSE_SPMM_CSR_ALG1,
};
#define NVARIANTS ((int)(sizeof variant_alg / sizeof variant_alg[0]))
/* Measured (CUDA 13.0, H200; tests/tcmul-gpu.sh checks it): with an Inf in
   row 0 of B, CSR_ALG1 and CSR_ALG3 give non-finite values in rows of C
   whose A row has no column 0 (ALG3 in most rows of rajat01), the padding
   pitfall of DESIGN.md inside cuSPARSE; the default and ALG2 do not. */
static const unsigned char variant_spreads[] = { 1, 0, 0, 1 };

typedef struct csr_plan {
    tc_kplan base;
    tc_gpu_csr A;
    /* NULL when A has no nonzeros: cuSPARSE is then not called (see run) */
    cusparseSpMatDescr_t matA;
    cusparseDnMatDescr_t matB, matC;
    /* each algorithm has its own external buffer: what preprocessing leaves
       there must survive the other algorithms' runs */
    void *work[NVARIANTS];
    int ready[NVARIANTS];       /* 1: buffer sized, A preprocessed, trial run done */
    /* the algorithm whose analysis of matA is current: the last one
       preprocessed, until another algorithm runs (see csr_select); -1 none */
    int analysed;
} csr_plan;

static const float one = 1.0f, zero = 0.0f;

static cusparseStatus_t spmm(csr_plan *p)
{
    return cusparseSpMM(p->base.gpu->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                        CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->matA, p->matB, &zero, p->matC,
                        CUDA_R_32F, variant_alg[p->base.variant], p->work[p->base.variant]);
}

static void csr_free(tc_kplan *base)
{
    csr_plan *p = (csr_plan *)base;
    if (!p)
        return;
    if (p->matA)
        cusparseDestroySpMat(p->matA);
    if (p->matB)
        cusparseDestroyDnMat(p->matB);
    if (p->matC)
        cusparseDestroyDnMat(p->matC);
    for (int v = 0; v < NVARIANTS; v++)
        tc_gpu_free(p->base.gpu, p->work[v]);
    tc_gpu_csr_free(p->base.gpu, &p->A);
    free(p);
}

/* The descriptors of A and of set 0's B and C (runs repoint B and C). */
static tc_status create_descriptors(csr_plan *p, const tc_gpu_operands *o, tc_error *err)
{
    const cusparseIndexType_t it = p->A.index64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    const int64_t n = o->n;
    tc_status st = TC_CUSPARSE(err, cusparseCreateCsr(&p->matA, p->A.rows, p->A.cols, p->A.nnz,
                                                      p->A.rowptr, p->A.colidx, p->A.val, it, it,
                                                      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseCreateDnMat(&p->matB, o->b_rows, n, n, o->B[0], CUDA_R_32F,
                                                  CUSPARSE_ORDER_ROW));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseCreateDnMat(&p->matC, o->c_rows, n, n, o->C[0], CUDA_R_32F,
                                                  CUSPARSE_ORDER_ROW));
    return st;
}

static tc_status csr_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                             const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)m;   /* CSR is the canonical matrix itself */
    csr_plan *p = (csr_plan *)calloc(1, sizeof *p);
    if (!p)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    p->base.gpu = g;
    p->analysed = -1;
    tc_status st = tc_gpu_csr_upload(g, a, &p->A, err);
    if (st == TC_OK && a->nnz > 0)
        st = create_descriptors(p, o, err);
    if (st != TC_OK) {
        csr_free(&p->base);
        return st;
    }
    p->base.a_bytes = p->A.bytes;
    *out = &p->base;
    return TC_OK;
}

/* Preprocessing pays off for ALG1 and ALG3 only (cuSPARSE documentation of
   cusparseSpMM_preprocess); it analyses A once for later runs, but the
   analysis does not survive the other algorithms: measured (CUDA 13.0,
   H100, bench/NOTES.md "Same-kernel comparisons"), a plan's ALG3 tuned a
   second time, after the other algorithms had run and ALG1 had been
   analysed, ran 1.4-2.7x slower from then on. So an algorithm that needs
   the analysis gets it again when selected after another one ran. */
static int needs_analysis(int v)
{
    return variant_alg[v] == CUSPARSE_SPMM_CSR_ALG1 || variant_alg[v] == CUSPARSE_SPMM_CSR_ALG3;
}

static cusparseStatus_t analyse(csr_plan *p, int v)
{
    p->analysed = v;
    return cusparseSpMM_preprocess(p->base.gpu->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                   CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->matA, p->matB,
                                   &zero, p->matC, CUDA_R_32F, variant_alg[v], p->work[v]);
}

/* The first time a variant is selected: its workspace, preprocessing, and
   one trial run on set 0 (later, only its analysis again where another
   algorithm ran since). A status of NOT_SUPPORTED from any of them means
   this algorithm cannot take this matrix or layout; so does any failure of
   the preprocessing or the trial run once the buffer size was accepted
   (measured, CUDA 13.0, H200: CSR_ALG1 on 2.25 billion nonzeros with 64-bit
   indices returns INTERNAL_ERROR from cusparseSpMM, the other algorithms
   run). A fault inside the call still stops the run: the synchronisation
   after it reports the CUDA error. */
static tc_status csr_select(tc_kplan *base, int v, tc_error *err)
{
    csr_plan *p = (csr_plan *)base;
    p->base.variant = v;
    if (!p->matA)
        return TC_OK;
    if (p->ready[v]) {
        if (!needs_analysis(v) || p->analysed == v)
            return TC_OK;
        tc_status st = tc_cusparse_check(analyse(p, v), "cusparseSpMM_preprocess", err);
        const tc_status sync = TC_CUDA(err, cudaStreamSynchronize(base->gpu->stream));
        return st ? st : sync;
    }
    const cusparseSpMMAlg_t alg = variant_alg[v];
    size_t need = 0;
    cusparseStatus_t s = cusparseSpMM_bufferSize(
        base->gpu->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
        p->matA, p->matB, &zero, p->matC, CUDA_R_32F, alg, &need);
    tc_status st = s == CUSPARSE_STATUS_NOT_SUPPORTED
                       ? TC_ERR_UNSUPPORTED
                       : tc_cusparse_check(s, "cusparseSpMM_bufferSize", err);
    if (st == TC_OK && !p->work[v])
        st = tc_gpu_alloc(base->gpu, (int64_t)need, &p->work[v], err);
    if (st == TC_OK && needs_analysis(v)) {
        s = analyse(p, v);
        st = s == CUSPARSE_STATUS_SUCCESS ? TC_OK : TC_ERR_UNSUPPORTED;
    }
    if (st == TC_OK) {
        s = spmm(p);
        st = s == CUSPARSE_STATUS_SUCCESS ? TC_OK : TC_ERR_UNSUPPORTED;
    }
    const tc_status sync = TC_CUDA(err, cudaStreamSynchronize(base->gpu->stream));
    if (sync != TC_OK)
        return sync;
    if (st == TC_ERR_UNSUPPORTED)
        return tc_error_set(err, st, "cuSPARSE %s: not supported here (%s)", variant_names[v],
                            cusparseGetErrorString(s));
    p->ready[v] = st == TC_OK;
    return st;
}

static tc_status csr_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    csr_plan *p = (csr_plan *)base;
    /* cuSPARSE rejects descriptors of an empty A; C = 0 then, written here
       so that no output element is left to chance */
    if (!p->matA)
        return TC_CUDA(err, cudaMemsetAsync(C, 0, (size_t)base->rows * base->n * sizeof(float),
                                            base->gpu->stream));
    if (p->analysed != base->variant)
        p->analysed = -1;
    tc_status st = TC_CUSPARSE(err, cusparseDnMatSetValues(p->matB, (void *)B));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseDnMatSetValues(p->matC, C));
    return st == TC_OK ? tc_cusparse_check(spmm(p), "cusparseSpMM", err) : st;
}

extern "C" const tc_kernel tc_kernel_csr = {
    "csr",
    "cuSPARSE SpMM on CSR (fp32), the fastest of its CSR algorithms",
    "fp32",
    NVARIANTS,
    variant_names,
    variant_spreads,
    csr_prepare,
    csr_select,
    csr_run,
    csr_free,
    NULL,       /* one part: cuSPARSE's own call */
};
