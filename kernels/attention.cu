/*
 * attention.cu: sparse attention on the GPU, O = softmax(scale * Q K^T
 * masked by A) V (Fused3S, seed 003), fused in one kernel from the bsb
 * format, and the unfused cuSPARSE pipeline it is measured against; the
 * SDDMM alone (masked scale * Q K^T) by both.
 *
 * Fused kernel (Algorithm 1). Node-parallel (Section 3.2): a thread block
 * per 16-row window, the windows handed out heaviest first
 * (tc_bsb_window_order, the schedule of "row window reordering"). Split
 * column (Section 3.3): the window's TCBs go to the warps by pairs (pair p
 * to warp p mod W), and each warp runs lines 10-21 on its own pairs with
 * its own running max, sum and 16 x d accumulator, so warps never wait on
 * each other inside the loop; at the end the W partial results are merged
 * in shared memory (the rescaling of line 19 applied across warps) and O
 * written once (line 22). Per pair:
 *   - the 16 rows of K and of V its columns name are gathered with
 *     cp.async into the warp's stage of a 2-stage ring, the next pair's
 *     while this one is computed (dummy columns load zeros, never a row);
 *   - SDDMM (line 11): S = Q_i K̂ᵀ as two 16 x 8 tiles, mma.m16n8k16 in
 *     fp16 with fp32 accumulation, Q_i from shared memory (line 4), K̂ᵀ's
 *     fragments by ldmatrix from the staged rows;
 *   - bitmap mask (line 12): a lane's C fragment entries are exactly two
 *     bits of each bitmap word (bsb.h), masked ones become -inf. A set bit
 *     keeps its score whatever its value, 0.0 included;
 *   - online softmax in fp32 (lines 14-16, 19, 21) with exp2 and the scale
 *     folded into log2(e): a row with no nonzero yet keeps max -inf, sum 0
 *     and rescale factor 1, so it never computes -inf - -inf;
 *   - E cast to fp16 into the warp's 16 x 16 tile in shared memory (line
 *     17), read back as an A fragment with ldmatrix;
 *   - SpMM (line 20): O_i += E V̂, mma.m16n8k16 over the d columns, V̂'s
 *     fragments by ldmatrix.trans from the staged rows.
 * K and V are converted to fp16 once per run (Table 5's precisions; they
 * are gathered by many windows), Q as each window reads it, with d padded
 * with zeros to D, the kernel's width (16, 32, 64, 128 or 256): zeros add
 * nothing to a dot product and the padded columns of O are not written. A row with no nonzero gives zeros (its sum is 0: never
 * divided by). The paper's register remapping of Fig. 4 is not needed
 * here: K̂ and V̂ go through shared memory, where the gathers are whole
 * 16-byte rows and the fragments come out of ldmatrix.
 *
 * SDDMM kernel: the same gather and mma on K only, each set bit's score
 * times scale written to S in bsb order (tc_bsb_value_index maps it to CSR
 * order).
 *
 * Unfused pipeline (the baseline): cusparseSDDMM (CSR, fp32) into a
 * device array of nnz scores, a softmax kernel over each CSR row (a warp
 * per row, max-subtracted), then cusparseSpMM (the faster of its default
 * and CSR_ALG2 algorithms on this matrix, row-major V and O). The scores
 * round-trip through global memory, which is what fusion saves.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_fp16.h>

#include "gpu_internal.h"
#include "bsb_tile.cuh"

#define WROWS TC_BSB_H_ROWS     /* rows of a window */
#define STAGES 2                /* pairs in flight per warp */
#define MAX_D 256
#define LOG2E 1.4426950408889634

/* Everything a launch reads, passed by value. */
typedef struct attn_args {
    const int64_t *tro;
    const int32_t *sptd;
    const uint64_t *bitmap;
    const int32_t *order;       /* windows, heaviest first */
    const float *Q;             /* float32, d per row */
    const __half *K, *V;        /* fp16, D halves per row */
    float *O;                   /* rows x d */
    float *S;                   /* SDDMM: one score per nonzero, bsb order */
    const int64_t *offset;      /* SDDMM: each block's first score */
    int32_t rows, d;
    float scale;                /* attention: scale * log2(e); SDDMM: scale */
} attn_args;

/* Shared memory of a thread block: Q_i, then per warp STAGES stages of
   (16 K rows, 16 V rows) and a 16 x 16 E tile; after the loop the same
   bytes hold the warps' partial O, max and sum for the merge. */
template <int NQ> static __host__ __device__ size_t stage_halves(void)
{
    return 2 * WROWS * 8 * NQ;
}
template <int NQ> static __host__ __device__ size_t warp_halves(void)
{
    return STAGES * stage_halves<NQ>() + WROWS * TC_PAIR_COLS;
}
/* Floats between the rows of the warps' partial O in the merge: 8 makes
   the rows of a half-warp's float2 stores fall on distinct banks (without
   them every row of a 128-float width began on the same bank). */
#define PART_PAD 8
template <int NQ> static size_t attn_smem(int warps)
{
    const size_t loop = 2 * (WROWS * 8 * NQ + warps * warp_halves<NQ>());
    const size_t merge = 4 * (size_t)warps * WROWS * (8 * NQ + PART_PAD + 2);
    return loop > merge ? loop : merge;
}

/* Q_i (rows 16w .. 16w + 15, zeros past the matrix and past d) into
   shared memory in fp16 by the whole thread block: read once per window
   from float32, so Q needs no conversion pass (K and V, gathered by many
   windows, are converted once per run). */
template <int NQ>
static __device__ __forceinline__ void load_q(__half *qs, const attn_args &a, int32_t row0)
{
    for (int e = threadIdx.x; e < WROWS * NQ; e += blockDim.x) {
        const int r = e / NQ, q = e % NQ;
        const float *src = a.Q + (int64_t)(row0 + r) * a.d + 8 * q;
        __align__(16) __half h[8];
        for (int j = 0; j < 8; j++)
            h[j] = __float2half_rn(row0 + r < a.rows && 8 * q + j < a.d ? src[j] : 0.0f);
        *(uint4 *)(qs + r * 8 * NQ + 8 * (q ^ tc_swz<NQ>(r))) = *(const uint4 *)h;
    }
    __syncthreads();
}

/* S = Q_i K̂ᵀ for the pair's two 16 x 8 tiles (s[0]: block b, s[1]: b + 1). */
template <int NQ>
static __device__ __forceinline__ void pair_scores(float s[2][4], const __half *qs,
                                                   const __half *ks)
{
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 4; i++)
            s[t][i] = 0.0f;
#pragma unroll
    for (int kc = 0; kc < NQ / 2; kc++) {
        uint32_t qa[4], kb[4];
        tc_ldmatrix_x4(qa, tc_frag_a_row<NQ>(qs, 2 * kc));
        tc_ldmatrix_x4(kb, tc_frag_bt_row<NQ>(ks, 2 * kc));
        tc_mma_m16n8k16_f16(s[0], qa, kb[0], kb[1]);
        tc_mma_m16n8k16_f16(s[1], qa, kb[2], kb[3]);
    }
}

/* The running state of one warp's rows gid (h = 0) and gid + 8 (h = 1). */
template <int NQ> struct warp_state {
    float m[2];                 /* running max of scale * log2(e) * score */
    float l[2];                 /* this lane's share of the running sum */
    float acc[NQ][4];           /* O_i, C fragments of the d columns */
};

/* Lines 12-20 for one pair whose scores are in s. */
template <int NQ>
static __device__ __forceinline__ void pair_softmax_spmm(warp_state<NQ> &st, float s[2][4],
                                                         const unsigned bits[2][2], float scale,
                                                         __half *es, const __half *vs)
{
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    for (int h = 0; h < 2; h++) {
        float top = -INFINITY;
        for (int t = 0; t < 2; t++)
            for (int i = 0; i < 2; i++) {
                float &x = s[t][2 * h + i];
                x = (bits[t][h] >> i) & 1 ? x * scale : -INFINITY;
                top = fmaxf(top, x);
            }
        top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
        top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 2));
        const float mnew = fmaxf(st.m[h], top);
        /* no nonzero in this row so far: nothing to rescale, and every
           masked entry's weight is 0 */
        const float alpha = mnew == -INFINITY ? 1.0f : exp2f(st.m[h] - mnew);
        float sum = 0.0f;
        for (int t = 0; t < 2; t++)
            for (int i = 0; i < 2; i++) {
                float &x = s[t][2 * h + i];
                x = x == -INFINITY ? 0.0f : exp2f(x - mnew);
                sum += x;
            }
        st.l[h] = st.l[h] * alpha + sum;
        st.m[h] = mnew;
        for (int j = 0; j < NQ; j++) {
            st.acc[j][2 * h] *= alpha;
            st.acc[j][2 * h + 1] *= alpha;
        }
    }
    /* E (line 17): entry (row, column) of the 16 x 16 tile, the pair's
       block 0 in columns 0-7 and block 1 in 8-15; rows of two chunks */
    for (int t = 0; t < 2; t++)
        for (int h = 0; h < 2; h++) {
            const int r = gid + 8 * h, c = 8 * t + 2 * tig;
            *(__half2 *)(es + r * TC_PAIR_COLS + 8 * ((c / 8) ^ tc_swz<2>(r)) + c % 8) =
                __floats2half2_rn(s[t][2 * h], s[t][2 * h + 1]);
        }
    __syncwarp();
    uint32_t ea[4];
    tc_ldmatrix_x4(ea, tc_frag_a_row<2>(es, 0));
    tc_pair_rows_mma<NQ>(st.acc, ea, vs);
}

/* After the loops: the warps' partial results merged (the rescaling of
   line 19 across warps) and O_i written (line 22). Each row's weight for
   each warp, exp2(m_k - max) / sum_k exp2(m_k - max) l_k, is computed
   once per row; the elements then take a weighted sum with no division.
   (Computed per element before, with an integer division by d and a
   float division each: a third of the kernel's instructions on TF18 at
   d = 128, ncu.) */
template <int NQ>
static __device__ void merge_and_store(const warp_state<NQ> &st, float *sm, const attn_args &a,
                                       int32_t row0)
{
    const int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x & 31;
    const int gid = lane >> 2, tig = lane & 3;
    constexpr int D = 8 * NQ, PS = D + PART_PAD;
    float *part = sm, *mx = sm + (size_t)warps * WROWS * PS, *sum = mx + warps * WROWS;
    __syncthreads();            /* every warp is done with its ring */
    for (int h = 0; h < 2; h++) {
        const int r = gid + 8 * h;
        /* a warp that saw no nonzero of the row adds nothing: the merge
           does not read its partial row (max -inf, weight 0) */
        float *row = part + ((size_t)w * WROWS + r) * PS + 2 * tig;
        for (int j = 0; j < NQ && st.m[h] != -INFINITY; j++)
            *(float2 *)(row + 8 * j) = make_float2(st.acc[j][2 * h], st.acc[j][2 * h + 1]);
        float l = st.l[h];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        if (tig == 0) {
            mx[w * WROWS + r] = st.m[h];
            sum[w * WROWS + r] = l;
        }
    }
    __syncthreads();
    /* the weights replace the maxima: 0 for a warp without the row, and
       for every warp of a row with no nonzero (its O row is zeros) */
    if (threadIdx.x < WROWS) {
        const int r = threadIdx.x;
        float top = -INFINITY, den = 0.0f;
        for (int k = 0; k < warps; k++)
            top = fmaxf(top, mx[k * WROWS + r]);
        for (int k = 0; top != -INFINITY && k < warps; k++)
            if (mx[k * WROWS + r] != -INFINITY)
                den += exp2f(mx[k * WROWS + r] - top) * sum[k * WROWS + r];
        for (int k = 0; k < warps; k++) {
            const float m = mx[k * WROWS + r];
            mx[k * WROWS + r] = m != -INFINITY && den > 0.0f ? exp2f(m - top) / den : 0.0f;
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < WROWS * D; e += blockDim.x) {
        const int r = e / D, c = e % D;
        if (c >= a.d || row0 + r >= a.rows)
            continue;
        float o = 0.0f;
        for (int k = 0; k < warps; k++) {
            const float f = mx[k * WROWS + r];
            if (f != 0.0f)
                o += f * part[((size_t)k * WROWS + r) * PS + c];
        }
        a.O[(int64_t)(row0 + r) * a.d + c] = o;
    }
}

/* The window of this thread block (the schedule's blockIdx.x-th) and
   where its Q_i and this warp's ring lie in shared memory. */
template <int NQ> struct window_work {
    int warps, w;               /* the block's warps, this warp */
    int32_t row0;
    int64_t b0, t, pairs;       /* first block, blocks, TCB pairs */
    __half *qs, *ring;
    __device__ window_work(const attn_args &a, unsigned char *smem)
    {
        const int32_t win = a.order[blockIdx.x];
        warps = blockDim.x / 32;
        w = threadIdx.x / 32;
        row0 = win * WROWS;
        b0 = a.tro[win];
        t = a.tro[win + 1] - b0;
        pairs = (t + 1) / 2;
        qs = (__half *)smem;
        ring = qs + WROWS * 8 * NQ + w * warp_halves<NQ>();
    }
};

template <int NQ> __global__ void __launch_bounds__(256) attention_fused(attn_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const window_work<NQ> ww(a, smem);
    const int warps = ww.warps, w = ww.w;
    const int64_t b0 = ww.b0, t = ww.t, pairs = ww.pairs;
    __half *qs = ww.qs, *ring = ww.ring;
    __half *es = ring + STAGES * stage_halves<NQ>();
    warp_state<NQ> st;
    for (int h = 0; h < 2; h++) {
        st.m[h] = -INFINITY;
        st.l[h] = 0.0f;
    }
    for (int j = 0; j < NQ; j++)
        for (int i = 0; i < 4; i++)
            st.acc[j][i] = 0.0f;
    /* the 16 K rows, then the 16 V rows of pair p into stage s */
    auto gather = [&](int64_t p, int s) {
        const int64_t b = b0 + 2 * p;
        const int second = 2 * p + 1 < t;
        __half *kst = ring + s * stage_halves<NQ>();
        tc_pair_gather<NQ>(kst, a.sptd, b, second, a.K, 8 * NQ);
        tc_pair_gather<NQ>(kst + WROWS * 8 * NQ, a.sptd, b, second, a.V, 8 * NQ);
    };
    int s = 0;
    if (w < pairs)
        gather(w, 0);
    tc_cp_async_commit();
    /* Q_i while the first pair's rows are on their way */
    if (pairs > 0)
        load_q<NQ>(qs, a, ww.row0);
    for (int64_t p = w; p < pairs; p += warps, s ^= 1) {
        if (p + warps < pairs)
            gather(p + warps, s ^ 1);
        tc_cp_async_commit();
        tc_cp_async_wait<1>();
        __syncwarp();
        const __half *kst = ring + s * stage_halves<NQ>();
        const int64_t b = b0 + 2 * p;
        const int second = 2 * p + 1 < t;
        unsigned bits[2][2];
        for (int h = 0; h < 2; h++) {
            bits[0][h] = tc_lane_bits(a.bitmap, b, h);
            bits[1][h] = second ? tc_lane_bits(a.bitmap, b + 1, h) : 0u;
        }
        float sc[2][4];
        pair_scores<NQ>(sc, qs, kst);
        pair_softmax_spmm<NQ>(st, sc, bits, a.scale, es, kst + WROWS * 8 * NQ);
        __syncwarp();           /* the stage and E are reused */
    }
    tc_cp_async_wait<0>();
    merge_and_store<NQ>(st, (float *)smem, a, ww.row0);
}

/* The scores of a set bit of block b (its word `half`, its entries i = 0,
   1 in the lane's C fragment) into S at the bit's place in bsb order. */
static __device__ __forceinline__ void put_scores(const attn_args &a, int64_t b, const float c[4])
{
    const int lane = threadIdx.x & 31;
    const uint64_t w0 = a.bitmap[2 * b], w1 = a.bitmap[2 * b + 1];
    for (int h = 0; h < 2; h++) {
        const uint64_t word = h ? w1 : w0;
        int64_t at = a.offset[b] + (h ? __popcll(w0) : 0) +
                     __popcll(word & ((UINT64_C(1) << (2 * lane)) - 1));
        for (int i = 0; i < 2; i++)
            if ((word >> (2 * lane + i)) & 1)
                a.S[at++] = c[2 * h + i] * a.scale;
    }
}

template <int NQ> __global__ void __launch_bounds__(256) sddmm_fused(attn_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const window_work<NQ> ww(a, smem);
    const int warps = ww.warps, w = ww.w;
    const int64_t b0 = ww.b0, t = ww.t, pairs = ww.pairs;
    __half *qs = ww.qs, *ring = ww.ring;
    if (pairs == 0)
        return;
    int s = 0;
    if (w < pairs)
        tc_pair_gather<NQ>(ring, a.sptd, b0 + 2 * w, 2 * w + 1 < t, a.K, 8 * NQ);
    tc_cp_async_commit();
    load_q<NQ>(qs, a, ww.row0);    /* while the first pair's rows arrive */
    for (int64_t p = w; p < pairs; p += warps, s ^= 1) {
        if (p + warps < pairs)
            tc_pair_gather<NQ>(ring + (s ^ 1) * stage_halves<NQ>(), a.sptd, b0 + 2 * (p + warps),
                               2 * (p + warps) + 1 < t, a.K, 8 * NQ);
        tc_cp_async_commit();
        tc_cp_async_wait<1>();
        __syncwarp();
        float sc[2][4];
        pair_scores<NQ>(sc, qs, ring + s * stage_halves<NQ>());
        put_scores(a, b0 + 2 * p, sc[0]);
        if (2 * p + 1 < t)
            put_scores(a, b0 + 2 * p + 1, sc[1]);
        __syncwarp();
    }
    tc_cp_async_wait<0>();
}

/* ------------------------------------------------------------------------ */
/* Unfused: softmax over the rows of a CSR matrix of scores                  */
/* ------------------------------------------------------------------------ */

/* A warp per row: x = exp(scale * x - max) / sum, max-subtracted. */
template <typename I>
__global__ void csr_row_softmax(const I *rowptr, float *val, int32_t rows, float scale)
{
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (row >= rows)
        return;
    const int64_t k0 = rowptr[row], k1 = rowptr[row + 1];
    float top = -INFINITY, sum = 0.0f;
    for (int64_t k = k0 + lane; k < k1; k += 32)
        top = fmaxf(top, val[k] * scale);
    for (int o = 16; o > 0; o /= 2)
        top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, o));
    for (int64_t k = k0 + lane; k < k1; k += 32) {
        const float e = exp2f(val[k] * scale - top);
        val[k] = e;
        sum += e;
    }
    for (int o = 16; o > 0; o /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, o);
    for (int64_t k = k0 + lane; k < k1; k += 32)
        val[k] /= sum;
}

/* ------------------------------------------------------------------------ */
/* Host side                                                                 */
/* ------------------------------------------------------------------------ */

/* tc_attn.tuned when tc_attn_set_warps fixed the warps */
#define PINNED 2
/* The shared memory a fused thread block may ask for */
#define SMEM_LIMIT (200 * 1024)

struct tc_attn {
    tc_gpu *gpu;
    int32_t rows, cols, d;
    int64_t nnz, windows, nblocks;
    int nq;                     /* D / 8 */
    int warps;                  /* of the fused kernels */
    int tuned;                  /* warps measured for the fused SDDMM (1) or
                                   attention (0); -1: not yet; PINNED: fixed
                                   by tc_attn_set_warps */
    int trial_warmup, trial_iters; /* runs timing each variant */
    double scale;
    /* fused: the bsb arrays, the schedule, the fp16 copy of Q, K, V */
    int64_t *tro, *offset;
    int32_t *sptd, *order;
    uint64_t *bitmap;
    __half *qkv16;
    int64_t fused_bytes;
    /* unfused */
    tc_gpu_csr A;               /* its values: the scores, then E */
    cusparseSpMatDescr_t matS;
    cusparseDnMatDescr_t matQ, matK, matV, matO;
    void *sddmm_work, *spmm_work;
    cusparseSpMMAlg_t spmm_alg;
    const tc_csr *a;            /* the host CSR, uploaded on first use */
    int64_t unfused_bytes;
};

static const float one = 1.0f, zero = 0.0f;

void tc_attn_free(tc_attn *p)
{
    if (!p)
        return;
    tc_gpu *g = p->gpu;
    tc_gpu_free(g, p->tro);
    tc_gpu_free(g, p->offset);
    tc_gpu_free(g, p->sptd);
    tc_gpu_free(g, p->order);
    tc_gpu_free(g, p->bitmap);
    tc_gpu_free(g, p->qkv16);
    if (p->matS)
        cusparseDestroySpMat(p->matS);
    if (p->matQ)
        cusparseDestroyDnMat(p->matQ);
    if (p->matK)
        cusparseDestroyDnMat(p->matK);
    if (p->matV)
        cusparseDestroyDnMat(p->matV);
    if (p->matO)
        cusparseDestroyDnMat(p->matO);
    tc_gpu_free(g, p->sddmm_work);
    tc_gpu_free(g, p->spmm_work);
    tc_gpu_csr_free(g, &p->A);
    free(p);
}

/* The kernel width for d: the smallest of 16, 32, 64, 128, 256 that holds
   it (NQ = D / 8 chunks of 16 bytes per row). */
static int width_chunks(int32_t d)
{
    int nq = 2;
    while (8 * nq < d)
        nq *= 2;
    return nq;
}

static size_t smem_for(int nq, int warps)
{
    switch (nq) {
    case 2: return attn_smem<2>(warps);
    case 4: return attn_smem<4>(warps);
    case 8: return attn_smem<8>(warps);
    case 16: return attn_smem<16>(warps);
    default: return attn_smem<32>(warps);
    }
}

static tc_status upload_bsb(tc_attn *p, const tc_bsb *x, tc_error *err)
{
    int64_t *order = (int64_t *)tc_malloc_array(x->windows, sizeof *order, err);
    int32_t *order32 = order ? (int32_t *)tc_malloc_array(x->windows, sizeof *order32, err) : NULL;
    int64_t *offset = order32 ? (int64_t *)tc_malloc_array(x->nblocks + 1, sizeof *offset, err)
                              : NULL;
    tc_status st = offset ? TC_OK : TC_ERR_NOMEM;
    if (st == TC_OK)
        st = tc_bsb_window_order(x->tro, x->windows, order, err);
    if (st == TC_OK) {
        for (int64_t i = 0; i < x->windows; i++)
            order32[i] = (int32_t)order[i];
        tc_bsb_value_index(x, offset, NULL);
    }
    const int64_t tro_b = (x->windows + 1) * 8, sptd_b = x->nblocks * TC_BSB_W_COLS * 4;
    const int64_t bitmap_b = x->nblocks * 16, order_b = x->windows * 4;
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->gpu, x->tro, tro_b, (void **)&p->tro, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->gpu, x->sptd, sptd_b, (void **)&p->sptd, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->gpu, x->bitmap, bitmap_b, (void **)&p->bitmap, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->gpu, order32, order_b, (void **)&p->order, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->gpu, offset, (x->nblocks + 1) * 8, (void **)&p->offset, err);
    p->fused_bytes = tro_b + sptd_b + bitmap_b + order_b + (x->nblocks + 1) * 8;
    free(order);
    free(order32);
    free(offset);
    return st;
}

tc_status tc_attn_prepare(tc_gpu *g, const tc_fmt *mask, const tc_csr *a, int32_t d,
                          double scale, int warmup, int iters, tc_attn **out, tc_error *err)
{
    *out = NULL;
    if (!mask || strcmp(tc_format_name(tc_fmt_format(mask)), "bsb") != 0)
        return tc_error_set(err, TC_ERR_ARG, "attention: the mask must be in the bsb format");
    if (d < 1 || d > MAX_D)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "attention: d = %d, the fused kernel takes 1 to %d columns", d, MAX_D);
    const tc_bsb *x = (const tc_bsb *)mask;
    if (x->windows > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "attention: %lld row windows, more than "
                            "one launch takes", (long long)x->windows);
    tc_attn *p = (tc_attn *)calloc(1, sizeof *p);
    if (!p)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    p->gpu = g;
    p->a = a;
    p->rows = a->rows;
    p->cols = a->cols;
    p->nnz = a->nnz;
    p->d = d;
    p->scale = scale;
    p->windows = x->windows;
    p->nblocks = x->nblocks;
    p->nq = width_chunks(d);
    p->warps = 2;
    p->tuned = -1;
    p->trial_warmup = warmup;
    p->trial_iters = iters;
    const int64_t halves = 2 * (int64_t)a->cols * 8 * p->nq;
    tc_status st = upload_bsb(p, x, err);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, halves * 2, (void **)&p->qkv16, err);
    p->fused_bytes += halves * 2;
    if (st != TC_OK) {
        tc_attn_free(p);
        return st;
    }
    *out = p;
    return TC_OK;
}

int tc_attn_warps(const tc_attn *p)
{
    return p->warps;
}

tc_status tc_attn_set_warps(tc_attn *p, int warps, tc_error *err)
{
    if (warps != 1 && warps != 2 && warps != 4 && warps != 8)
        return tc_error_set(err, TC_ERR_ARG, "attention: %d warps per thread block; the fused "
                            "kernels take 1, 2, 4 or 8", warps);
    if (smem_for(p->nq, warps) > SMEM_LIMIT)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "attention: %d warps per thread block need "
                            "%zu bytes of shared memory at d = %d, more than %d KB", warps,
                            smem_for(p->nq, warps), (int)p->d, SMEM_LIMIT / 1024);
    p->warps = warps;
    p->tuned = PINNED;
    return TC_OK;
}

int tc_attn_width(const tc_attn *p)
{
    return 8 * p->nq;
}

/* K (and V unless NULL) into the fp16 copy, D halves per row, V's after
   K's. */
static tc_status kv_to_half(tc_attn *p, const float *K, const float *V, tc_error *err)
{
    const int64_t ld = 8 * p->nq;
    tc_status st = tc_gpu_to_half(p->gpu, K, p->qkv16, p->cols, p->d, ld, err);
    if (st == TC_OK && V)
        st = tc_gpu_to_half(p->gpu, V, p->qkv16 + (int64_t)p->cols * ld, p->cols, p->d, ld, err);
    return st;
}

static attn_args fused_args(const tc_attn *p, const float *Q)
{
    attn_args a;
    memset(&a, 0, sizeof a);
    const int64_t ld = 8 * p->nq;
    a.tro = p->tro;
    a.sptd = p->sptd;
    a.bitmap = p->bitmap;
    a.order = p->order;
    a.offset = p->offset;
    a.Q = Q;
    a.K = p->qkv16;
    a.V = a.K + (int64_t)p->cols * ld;
    a.rows = p->rows;
    a.d = p->d;
    return a;
}

template <int NQ>
static tc_status launch(const tc_attn *p, int sddmm, const attn_args &a, tc_error *err)
{
    const size_t smem = attn_smem<NQ>(p->warps);
    void (*k)(attn_args) = sddmm ? sddmm_fused<NQ> : attention_fused<NQ>;
    tc_status st = tc_gpu_allow_smem((const void *)k, smem, err);
    if (st != TC_OK || p->windows == 0)
        return st;
    k<<<(unsigned)p->windows, 32 * p->warps, smem, p->gpu->stream>>>(a);
    return TC_LAUNCHED(err, sddmm ? "sddmm_fused" : "attention_fused");
}

static tc_status launch_width(const tc_attn *p, int sddmm, const attn_args &a, tc_error *err)
{
    switch (p->nq) {
    case 2: return launch<2>(p, sddmm, a, err);
    case 4: return launch<4>(p, sddmm, a, err);
    case 8: return launch<8>(p, sddmm, a, err);
    case 16: return launch<16>(p, sddmm, a, err);
    default: return launch<32>(p, sddmm, a, err);
    }
}

/* E V into O by cusparseSpMM with p->spmm_alg. */
static tc_status unfused_spmm(tc_attn *p, const float *V, float *O, tc_error *err)
{
    tc_status st = TC_CUSPARSE(err, cusparseDnMatSetValues(p->matV, (void *)V));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseDnMatSetValues(p->matO, O));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseSpMM(p->gpu->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->matS,
                                           p->matV, &zero, p->matO, CUDA_R_32F, p->spmm_alg,
                                           p->spmm_work));
    return st;
}

static const cusparseSpMMAlg_t spmm_algs[] = { CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2 };
#define NALGS ((int)(sizeof spmm_algs / sizeof spmm_algs[0]))

typedef struct spmm_trial {
    tc_attn *p;
    const float *V;
    float *O;
} spmm_trial;

static tc_status spmm_trial_run(void *ctx, int set, tc_error *err)
{
    (void)set;
    spmm_trial *t = (spmm_trial *)ctx;
    return unfused_spmm(t->p, t->V, t->O, err);
}

/* The SpMM algorithms that take row-major V and O, each timed on the
   pipeline's own operands (the values do not matter to the time): the
   faster is kept, so that the baseline is cuSPARSE at its best here. One
   workspace, the larger of theirs. */
static tc_status pick_spmm_alg(tc_attn *p, const float *V, float *O, tc_error *err)
{
    size_t most = 0;
    for (int i = 0; i < NALGS; i++) {
        size_t need = 0;
        tc_status st = TC_CUSPARSE(err, cusparseSpMM_bufferSize(
                                            p->gpu->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                            CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->matS,
                                            p->matV, &zero, p->matO, CUDA_R_32F, spmm_algs[i],
                                            &need));
        if (st != TC_OK)
            return st;
        most = need > most ? need : most;
    }
    tc_status st = tc_gpu_alloc(p->gpu, (int64_t)most, &p->spmm_work, err);
    p->unfused_bytes += (int64_t)most;
    double best = INFINITY;
    cusparseSpMMAlg_t pick = spmm_algs[0];
    spmm_trial t = { p, V, O };
    for (int i = 0; i < NALGS && st == TC_OK; i++) {
        tc_gpu_timing tm;
        p->spmm_alg = spmm_algs[i];
        st = tc_gpu_time(p->gpu, spmm_trial_run, &t, 1, p->trial_warmup, p->trial_iters, &tm,
                         err);
        if (st == TC_OK && tm.ms.decile[5] < best) {
            best = tm.ms.decile[5];
            pick = spmm_algs[i];
        }
    }
    p->spmm_alg = pick;
    return st;
}

/* The unfused SDDMM, once: A's CSR uploaded (its values array then holds
   the scores), Q and K as the dense operands (K transposed), the
   workspace, cuSPARSE's preprocessing. */
static tc_status prepare_sddmm(tc_attn *p, const float *Q, const float *K, tc_error *err)
{
    if (p->matS)
        return TC_OK;
    tc_gpu *g = p->gpu;
    tc_status st = tc_gpu_csr_upload(g, p->a, &p->A, err);
    if (st != TC_OK)
        return st;
    const cusparseIndexType_t it = p->A.index64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    st = TC_CUSPARSE(err, cusparseCreateCsr(&p->matS, p->rows, p->cols, p->nnz, p->A.rowptr,
                                            p->A.colidx, p->A.val, it, it,
                                            CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseCreateDnMat(&p->matQ, p->rows, p->d, p->d, (void *)Q, CUDA_R_32F,
                                                  CUSPARSE_ORDER_ROW));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseCreateDnMat(&p->matK, p->cols, p->d, p->d, (void *)K, CUDA_R_32F,
                                                  CUSPARSE_ORDER_ROW));
    size_t need = 0;
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseSDDMM_bufferSize(
                                  g->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  CUSPARSE_OPERATION_TRANSPOSE, &one, p->matQ, p->matK, &zero,
                                  p->matS, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, &need));
    if (st == TC_OK)
        st = tc_gpu_alloc(g, (int64_t)need, &p->sddmm_work, err);
    p->unfused_bytes += p->A.bytes + (int64_t)need;
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseSDDMM_preprocess(
                                  g->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  CUSPARSE_OPERATION_TRANSPOSE, &one, p->matQ, p->matK, &zero,
                                  p->matS, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, p->sddmm_work));
    return st;
}

/* The unfused SpMM, once (after prepare_sddmm): V and O as its dense
   operands, its algorithm and workspace. */
static tc_status prepare_spmm(tc_attn *p, const float *V, float *O, tc_error *err)
{
    if (p->matV)
        return TC_OK;
    tc_status st = TC_CUSPARSE(err, cusparseCreateDnMat(&p->matV, p->cols, p->d, p->d, (void *)V,
                                                        CUDA_R_32F, CUSPARSE_ORDER_ROW));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseCreateDnMat(&p->matO, p->rows, p->d, p->d, O, CUDA_R_32F,
                                                  CUSPARSE_ORDER_ROW));
    return st == TC_OK ? pick_spmm_alg(p, V, O, err) : st;
}

/* The scores alpha * Q K^T of A's nonzeros into A's values. */
static tc_status unfused_sddmm(tc_attn *p, const float *Q, const float *K, float alpha,
                               tc_error *err)
{
    tc_status st = TC_CUSPARSE(err, cusparseDnMatSetValues(p->matQ, (void *)Q));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseDnMatSetValues(p->matK, (void *)K));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseSDDMM(p->gpu->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                            CUSPARSE_OPERATION_TRANSPOSE, &alpha, p->matQ, p->matK,
                                            &zero, p->matS, CUDA_R_32F,
                                            CUSPARSE_SDDMM_ALG_DEFAULT, p->sddmm_work));
    return st;
}

static tc_status unfused_softmax(tc_attn *p, tc_error *err)
{
    const unsigned grid = (unsigned)(((int64_t)p->rows * 32 + 255) / 256);
    const float s = (float)(p->scale * LOG2E);
    if (p->A.index64)
        csr_row_softmax<int64_t><<<grid, 256, 0, p->gpu->stream>>>((const int64_t *)p->A.rowptr,
                                                                   p->A.val, p->rows, s);
    else
        csr_row_softmax<int32_t><<<grid, 256, 0, p->gpu->stream>>>((const int32_t *)p->A.rowptr,
                                                                   p->A.val, p->rows, s);
    return TC_LAUNCHED(err, "csr_row_softmax");
}

static tc_status run_unfused(tc_attn *p, const float *Q, const float *K, const float *V,
                             float *O, tc_error *err)
{
    if (p->nnz == 0)
        return TC_CUDA(err, cudaMemsetAsync(O, 0, (size_t)p->rows * p->d * sizeof(float),
                                            p->gpu->stream));
    tc_status st = prepare_sddmm(p, Q, K, err);
    if (st == TC_OK)
        st = prepare_spmm(p, V, O, err);
    if (st == TC_OK)
        st = unfused_sddmm(p, Q, K, 1.0f, err);
    if (st == TC_OK)
        st = unfused_softmax(p, err);
    if (st == TC_OK)
        st = unfused_spmm(p, V, O, err);
    return st;
}

/* The fused kernel (the SDDMM's or attention's) with the plan's warps,
   after K (and V) were converted. */
static tc_status fused_launch(tc_attn *p, int sddmm, const float *Q, float *out, tc_error *err)
{
    attn_args a = fused_args(p, Q);
    if (sddmm)
        a.S = out;
    else
        a.O = out;
    a.scale = (float)(sddmm ? p->scale : p->scale * LOG2E);
    return launch_width(p, sddmm, a, err);
}

typedef struct warp_trial {
    tc_attn *p;
    int sddmm;
    const float *Q;
    float *out;
} warp_trial;

static tc_status warp_trial_run(void *ctx, int set, tc_error *err)
{
    (void)set;
    warp_trial *t = (warp_trial *)ctx;
    return fused_launch(t->p, t->sddmm, t->Q, t->out, err);
}

/* Warps per thread block, measured on the first run: 1, 2, 4 and 8
   where their shared memory fits in SMEM_LIMIT, each timed over the
   plan's trial runs, the fastest kept (tc_attn_set_warps fixes them
   instead). No rule of thumb chose well across the set: more warps
   shorten the heaviest windows of a power-law graph (rajat01 at d = 128:
   0.59x the unfused path with 2 warps, 1.16x with 4) while fewer leave
   shared memory for more thread blocks per SM, which matters when every
   window is light (TF18 at d = 128: 0.80x with 4 warps, 0.94x with 2). */
static tc_status tune_warps(tc_attn *p, int sddmm, const float *Q, float *out, tc_error *err)
{
    if (p->tuned == sddmm || p->tuned == PINNED || p->windows == 0)
        return TC_OK;
    warp_trial t = { p, sddmm, Q, out };
    double best = INFINITY;
    int pick = 1;
    tc_status st = TC_OK;
    for (int w = 1; w <= 8 && st == TC_OK && smem_for(p->nq, w) <= SMEM_LIMIT; w *= 2) {
        tc_gpu_timing tm;
        p->warps = w;
        st = tc_gpu_time(p->gpu, warp_trial_run, &t, 1, p->trial_warmup, p->trial_iters, &tm,
                         err);
        if (st == TC_OK && tm.ms.decile[5] < best) {
            best = tm.ms.decile[5];
            pick = w;
        }
    }
    p->warps = pick;
    p->tuned = st == TC_OK ? sddmm : -1;
    return st;
}

tc_status tc_attn_run(tc_attn *p, tc_attn_path path, const float *Q, const float *K,
                      const float *V, float *O, tc_error *err)
{
    if (path == TC_ATTN_UNFUSED)
        return run_unfused(p, Q, K, V, O, err);
    tc_status st = kv_to_half(p, K, V, err);
    if (st == TC_OK)
        st = tune_warps(p, 0, Q, O, err);
    return st == TC_OK ? fused_launch(p, 0, Q, O, err) : st;
}

tc_status tc_attn_sddmm(tc_attn *p, tc_attn_path path, const float *Q, const float *K, float *S,
                        tc_error *err)
{
    if (p->nnz == 0)
        return TC_OK;
    if (path == TC_ATTN_UNFUSED) {
        /* the pipeline's own CSR values array holds the scores; copied
           out so that S is the caller's */
        tc_status st = prepare_sddmm(p, Q, K, err);
        if (st == TC_OK)
            st = unfused_sddmm(p, Q, K, (float)p->scale, err);
        if (st == TC_OK)
            st = TC_CUDA(err, cudaMemcpyAsync(S, p->A.val, (size_t)p->nnz * sizeof(float),
                                              cudaMemcpyDeviceToDevice, p->gpu->stream));
        return st;
    }
    tc_status st = kv_to_half(p, K, NULL, err);
    if (st == TC_OK)
        st = tune_warps(p, 1, Q, S, err);
    return st == TC_OK ? fused_launch(p, 1, Q, S, err) : st;
}

int64_t tc_attn_device_bytes(const tc_attn *p, tc_attn_path path)
{
    return path == TC_ATTN_FUSED ? p->fused_bytes : p->unfused_bytes;
}
