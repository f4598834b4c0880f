/*
 * bsb.cu: SpMM C = A*B from the bsb format (Fused3S, seed 003; bsb.h), the
 * SpMM stage of the fused attention kernel (kernels/attention.cu) with A's
 * values in place of the softmax's E, built from the same building blocks
 * (bsb_tile.cuh).
 *
 * A thread block per (16-row window, panel of 8 NQ columns of C), windows
 * heaviest first (tc_bsb_window_order). Its warps take the window's TCB
 * pairs in turn (split column, Section 3.3); per pair a warp gathers the
 * 16 rows of B its columns name (fp16, cp.async, a 2-stage ring, zeros for
 * dummy columns), builds its A fragment of the 16 x 16 pair from the
 * bitmaps and the values (bsb.h: lane l's entries are bits 2l and 2l + 1 of
 * each word) and runs mma.m16n8k16 over the panel. The warps' partial
 * tiles are added in shared memory and stored once.
 *
 * Precision: A and B in fp16, fp32 accumulation; each row of A is stored
 * divided by tc_half_scale of its largest magnitude and multiplied back
 * at the store (gpu_internal.h), so values beyond fp16's range work. A
 * pair's unset entries are zeros multiplied by whole gathered rows of B,
 * so an Inf or NaN of B reaches other rows of the window: the variant is
 * marked in variant_spreads, and for a B that is not all finite the plan
 * runs "cuda" instead (kept as that fallback, bench/NOTES.md "Variant
 * pruning"): a warp per row of a window walking the row's set bits on CUDA
 * cores, float32 B, each nonzero's fp16 value times its row's scale, so
 * that C has exactly the non-finite pattern of A B.
 *
 * A bsb without values (the binary default) multiplies a pattern matrix
 * as it is; for a matrix with values, prepare builds its own bsb with
 * values=1 from the CSR.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_fp16.h>

#include "gpu_internal.h"
#include "segments.h"
#include "bsb_tile.cuh"

#define WROWS TC_BSB_H_ROWS
#define STAGES 2
#define MAX_NQ 8                /* panels of at most 64 columns of C */

enum { V_TC, V_CUDA, NVARIANTS };
static const char *const variant_names[NVARIANTS] = { "tc", "cuda" };
static const unsigned char variant_spreads[NVARIANTS] = { 1, 0 };

typedef struct bsb_args {
    const int64_t *tro;
    const int32_t *sptd;
    const uint64_t *bitmap;
    const int64_t *voff;        /* each block's first value */
    const __half *val;          /* fp16, bsb order, each row divided by row_scale */
    const float *row_scale;
    const int32_t *order;       /* windows, heaviest first */
    const __half *B16;          /* ldb halves per row, zeros past n */
    const float *B;             /* "cuda": float32, n per row */
    int64_t ldb;
    float *C;
    int32_t rows, n;
    int panels;
} bsb_args;

/* Lane l's two entries of row gid (half 0) or gid + 8 (half 1) of block b,
   packed as an A-fragment register: its bits 2l, 2l + 1 and their values
   at their places in bsb order. */
static __device__ __forceinline__ uint32_t lane_values(const bsb_args &a, int64_t b, int half)
{
    const int lane = threadIdx.x & 31;
    const uint64_t w0 = a.bitmap[2 * b], word = half ? a.bitmap[2 * b + 1] : w0;
    const unsigned bits = (unsigned)(word >> (2 * lane)) & 3u;
    const int64_t at = a.voff[b] + (half ? __popcll(w0) : 0) +
                       __popcll(word & ((UINT64_C(1) << (2 * lane)) - 1));
    const __half zero = __float2half(0.0f);
    __half2 v;
    v.x = bits & 1 ? a.val[at] : zero;
    v.y = bits & 2 ? a.val[at + (bits & 1)] : zero;
    return *(uint32_t *)&v;
}

template <int NQ> static size_t bsb_smem(int warps)
{
    const size_t loop = (size_t)warps * STAGES * WROWS * 8 * NQ * 2;
    const size_t merge = (size_t)warps * WROWS * 8 * NQ * 4;
    return loop > merge ? loop : merge;
}

template <int NQ> __global__ void __launch_bounds__(256) bsb_spmm(bsb_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int warps = blockDim.x / 32, w = threadIdx.x / 32;
    const int32_t win = a.order[blockIdx.x / a.panels];
    const int panel = blockIdx.x % a.panels;
    const int64_t b0 = a.tro[win], t = a.tro[win + 1] - b0, pairs = (t + 1) / 2;
    const __half *src = a.B16 + (int64_t)panel * 8 * NQ;
    __half *ring = (__half *)smem + (size_t)w * STAGES * WROWS * 8 * NQ;
    float acc[NQ][4];
    for (int j = 0; j < NQ; j++)
        for (int i = 0; i < 4; i++)
            acc[j][i] = 0.0f;
    int s = 0;
    if (w < pairs)
        tc_pair_gather<NQ>(ring, a.sptd, b0 + 2 * w, 2 * w + 1 < t, src, a.ldb);
    tc_cp_async_commit();
    for (int64_t p = w; p < pairs; p += warps, s ^= 1) {
        if (p + warps < pairs)
            tc_pair_gather<NQ>(ring + (s ^ 1) * WROWS * 8 * NQ, a.sptd, b0 + 2 * (p + warps),
                               2 * (p + warps) + 1 < t, src, a.ldb);
        tc_cp_async_commit();
        const int64_t b = b0 + 2 * p;
        const int second = 2 * p + 1 < t;
        const uint32_t af[4] = { lane_values(a, b, 0), lane_values(a, b, 1),
                                 second ? lane_values(a, b + 1, 0) : 0u,
                                 second ? lane_values(a, b + 1, 1) : 0u };
        tc_cp_async_wait<1>();
        __syncwarp();
        tc_pair_rows_mma<NQ>(acc, af, ring + s * WROWS * 8 * NQ);
        __syncwarp();           /* the stage is refilled next */
    }
    tc_cp_async_wait<0>();
    __syncthreads();            /* every warp is done with its ring */
    float *part = (float *)smem;
    tc_tile_store<NQ>(part + (size_t)w * WROWS * 8 * NQ, 8 * NQ, acc);
    __syncthreads();
    const tc_seg seg = { b0, win * WROWS, (int32_t)t, 0xffffu, 0u };
    tc_seg_store<8 * NQ>(seg, part, panel, a.row_scale, a.C, a.rows, a.n);
}

/* "cuda": warp r of the block is row r of window blockIdx.x; lanes take
   columns of C. Only set bits are read, so a NaN or Inf in row j of B
   reaches exactly the rows of C whose row of A uses column j. */
__global__ void __launch_bounds__(32 * WROWS) bsb_spmm_cuda(bsb_args a)
{
    const int r = threadIdx.x / 32, lane = threadIdx.x & 31;
    const int64_t win = blockIdx.x;
    const int64_t row = win * WROWS + r;
    if (row >= a.rows)
        return;
    const int shift = (r % 8) * 8;
    for (int32_t j0 = 0; j0 < a.n; j0 += 32) {
        const int32_t j = j0 + lane;
        float acc = 0.0f;
        for (int64_t b = a.tro[win]; b < a.tro[win + 1]; b++) {
            const uint64_t w0 = a.bitmap[2 * b], word = r < 8 ? w0 : a.bitmap[2 * b + 1];
            int64_t at = a.voff[b] + (r < 8 ? 0 : __popcll(w0)) +
                         __popcll(word & ((UINT64_C(1) << shift) - 1));
            for (unsigned bits = (unsigned)(word >> shift) & 0xffu; bits; bits &= bits - 1, at++)
                if (j < a.n)
                    acc += __half2float(a.val[at]) *
                           a.B[(int64_t)a.sptd[8 * b + __ffs(bits) - 1] * a.n + j];
        }
        if (j < a.n)
            a.C[row * a.n + j] = acc * a.row_scale[row];
    }
}

/* ------------------------------------------------------------------------ */
/* Host side                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct bsb_plan {
    tc_kplan base;
    bsb_args args;
    int nq, warps;
    int64_t windows;
    tc_fmt *own;                /* the bsb with values built here, or NULL */
    void *dev[7];               /* tro, sptd, bitmap, voff, val, row_scale, order */
    __half *B16;
} bsb_plan;

static void bsb_free_plan(tc_kplan *base)
{
    bsb_plan *p = (bsb_plan *)base;
    if (!p)
        return;
    for (int i = 0; i < 7; i++)
        tc_gpu_free(base->gpu, p->dev[i]);
    tc_gpu_free(base->gpu, p->B16);
    tc_fmt_free(p->own);
    free(p);
}

/* The panel width for n: the smallest of 16, 32, 64 columns holding it,
   else 64 (NQ 16-byte chunks of halves). */
static int panel_chunks(int32_t n)
{
    int nq = 2;
    while (nq < MAX_NQ && 8 * nq < n)
        nq *= 2;
    return nq;
}

/* fp16 values in bsb order, each divided by its row's scale (the largest
   magnitude of the row in a, tc_half_scale). */
static tc_status half_values(const tc_bsb *x, const tc_csr *a, __half **val, float **scale,
                             tc_error *err)
{
    *val = (__half *)tc_malloc_array(x->base.nnz, sizeof **val, err);
    *scale = (float *)tc_malloc_array(a->rows, sizeof **scale, err);
    if ((!*val && x->base.nnz) || (!*scale && a->rows))
        return TC_ERR_NOMEM;
    for (int32_t i = 0; i < a->rows; i++) {
        double top = 0;
        for (int64_t k = a->rowptr[i]; a->val && k < a->rowptr[i + 1]; k++)
            top = fabs(a->val[k]) > top ? fabs(a->val[k]) : top;
        (*scale)[i] = (float)tc_half_scale(a->val ? top : 1.0);
    }
    int64_t at = 0;
    for (int64_t w = 0; w < x->windows; w++)
        for (int64_t b = x->tro[w]; b < x->tro[w + 1]; b++)
            for (int h = 0; h < 2; h++)
                for (uint64_t bits = x->bitmap[2 * b + h]; bits; bits &= bits - 1, at++) {
                    const int32_t row = (int32_t)(WROWS * w + 8 * h + __builtin_ctzll(bits) / 8);
                    const double v = x->values ? x->values[at] : 1.0;
                    (*val)[at] = __float2half_rn((float)(v / (*scale)[row]));
                }
    return TC_OK;
}

static tc_status upload_arrays(bsb_plan *p, const tc_bsb *x, const tc_csr *a, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    int64_t *voff = (int64_t *)tc_malloc_array(x->nblocks + 1, sizeof *voff, err);
    int64_t *order = (int64_t *)tc_malloc_array(x->windows, sizeof *order, err);
    int32_t *order32 = (int32_t *)tc_malloc_array(x->windows, sizeof *order32, err);
    __half *val = NULL;
    float *scale = NULL;
    tc_status st = voff && ((order && order32) || !x->windows)
                       ? TC_OK
                       : TC_ERR_NOMEM;
    if (st == TC_OK)
        st = half_values(x, a, &val, &scale, err);
    if (st == TC_OK)
        st = tc_bsb_window_order(x->tro, x->windows, order, err);
    if (st == TC_OK) {
        tc_bsb_value_index(x, voff, NULL);
        for (int64_t i = 0; i < x->windows; i++)
            order32[i] = (int32_t)order[i];
    }
    const void *host[7] = { x->tro, x->sptd, x->bitmap, voff, val, scale, order32 };
    const int64_t bytes[7] = { (x->windows + 1) * 8, x->nblocks * TC_BSB_W_COLS * 4,
                               x->nblocks * 16, (x->nblocks + 1) * 8, x->base.nnz * 2,
                               (int64_t)a->rows * 4, x->windows * 4 };
    p->base.a_bytes = 0;
    for (int i = 0; i < 7 && st == TC_OK; i++) {
        st = tc_gpu_upload_new(g, host[i], bytes[i], &p->dev[i], err);
        p->base.a_bytes += bytes[i];
    }
    free(voff);
    free(order);
    free(order32);
    free(val);
    free(scale);
    return st;
}

/* The bsb to multiply: m itself, or, when m is binary and a has values,
   one built with values. */
static tc_status valued_bsb(bsb_plan *p, const tc_fmt *m, const tc_csr *a, const tc_bsb **x,
                            tc_error *err)
{
    *x = (const tc_bsb *)m;
    if ((*x)->values || !a->val)
        return TC_OK;
    tc_params params = { 0 };
    tc_status st = tc_params_parse(&params, "values=1", err);
    if (st == TC_OK)
        st = tc_fmt_build(tc_fmt_format(m), a, &params, &p->own, err);
    if (st == TC_OK)
        *x = (const tc_bsb *)p->own;
    return st;
}

static tc_status bsb_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                             const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    tc_kplan *base;
    tc_status st = tc_kplan_new(g, m, "bsb", o, sizeof(bsb_plan), &base, err);
    if (st != TC_OK)
        return st;
    bsb_plan *p = (bsb_plan *)base;
    const tc_bsb *x = NULL;
    st = valued_bsb(p, m, a, &x, err);
    if (st == TC_OK)
        st = upload_arrays(p, x, a, err);
    p->nq = panel_chunks(o->n);
    const int panels = (o->n + 8 * p->nq - 1) / (8 * p->nq);
    const int64_t ldb = (int64_t)panels * 8 * p->nq;
    if (st == TC_OK && x->windows * panels > INT32_MAX)
        st = tc_error_set(err, TC_ERR_UNSUPPORTED, "bsb: %lld windows x %d panels, more than "
                          "one launch takes", (long long)x->windows, panels);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, (int64_t)a->cols * ldb * 2, (void **)&p->B16, err);
    if (st != TC_OK) {
        bsb_free_plan(&p->base);
        return st;
    }
    /* as many warps as a typical window has TCB pairs, 2 to 8 */
    const int64_t busy = x->windows ? x->nblocks / x->windows : 0;
    for (p->warps = 2; p->warps < 8 && 2 * p->warps < busy; p->warps *= 2)
        ;
    p->windows = x->windows;
    bsb_args *ar = &p->args;
    ar->tro = (const int64_t *)p->dev[0];
    ar->sptd = (const int32_t *)p->dev[1];
    ar->bitmap = (const uint64_t *)p->dev[2];
    ar->voff = (const int64_t *)p->dev[3];
    ar->val = (const __half *)p->dev[4];
    ar->row_scale = (const float *)p->dev[5];
    ar->order = (const int32_t *)p->dev[6];
    ar->B16 = p->B16;
    ar->ldb = ldb;
    ar->rows = a->rows;
    ar->n = o->n;
    ar->panels = panels;
    *out = &p->base;
    return TC_OK;
}

static tc_status bsb_select(tc_kplan *base, int v, tc_error *err)
{
    (void)err;
    base->variant = v;
    return TC_OK;
}

template <int NQ> static tc_status launch(bsb_plan *p, tc_error *err)
{
    const size_t smem = bsb_smem<NQ>(p->warps);
    tc_status st = tc_gpu_allow_smem((const void *)bsb_spmm<NQ>, smem, err);
    if (st != TC_OK || p->windows == 0)
        return st;
    bsb_spmm<NQ><<<(unsigned)(p->windows * p->args.panels), 32 * p->warps, smem,
                   p->base.gpu->stream>>>(p->args);
    return TC_LAUNCHED(err, "bsb_spmm");
}

static tc_status bsb_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    bsb_plan *p = (bsb_plan *)base;
    p->args.C = C;
    if (base->variant == V_CUDA) {
        p->args.B = B;
        if (p->windows == 0)
            return TC_OK;
        bsb_spmm_cuda<<<(unsigned)p->windows, 32 * WROWS, 0, base->gpu->stream>>>(p->args);
        return TC_LAUNCHED(err, "bsb_spmm_cuda");
    }
    tc_status st = tc_gpu_to_half(base->gpu, B, p->B16, base->cols, base->n, p->args.ldb, err);
    if (st != TC_OK)
        return st;
    return p->nq == 2 ? launch<2>(p, err) : p->nq == 4 ? launch<4>(p, err) : launch<8>(p, err);
}

extern "C" const tc_kernel tc_kernel_bsb = {
    "bsb",
    "bsb SpMM (Fused3S's SpMM stage): fp16 mma.m16n8k16 over TCB pairs, fp32 accumulation",
    "fp16",
    NVARIANTS,
    variant_names,
    variant_spreads,
    bsb_prepare,
    bsb_select,
    bsb_run,
    bsb_free_plan,
    NULL,
};
