/*
 * bcsr.cu: the GPU kernel of the bcsr format (SMaT, seed 004, Section V),
 * on the arrays of formats/bcsr.h.
 *
 * Work: the block rows, cut into segments (segments.h) of at most `cap`
 * blocks so that a block row far longer than the others (a dense row of a
 * power-law graph) is shared by several thread blocks instead of running
 * alone at the end; cap comes from the blocks per SM of the device present.
 * A thread block takes one segment and one panel of columns of C; its warps
 * split the segment's blocks into consecutive runs, add their partial
 * 16 x panel tiles in shared memory and store the sum once. Block rows with
 * no block get a segment of none, which stores their zeros.
 *
 * Variants (timed by tc_kernel_tune):
 *   "tc"   B converted once per run to fp16 (tc_gpu_to_half), then per
 *          warp a ring of STAGES stages in shared memory (Section V-B's
 *          software pipeline, deeper than its double buffer): block
 *          b + STAGES - 1's 16 x 16 fp16 values (512 bytes, one 16-byte
 *          cp.async per lane) and its 16 rows of B for the panel are fetched
 *          with cp.async while block b's A fragment comes out of shared
 *          memory with one ldmatrix.x4, its B fragments with
 *          ldmatrix.x4.trans, and the mma.m16n8k16 run. 16 x 16 blocks only
 *          (the format's default); select refuses 16 x 8.
 *   "cuda" everything on CUDA cores from float32 B: each block's nonzeros
 *          from its bitmap, one FMA per nonzero and column, any block
 *          shape. It multiplies only real nonzeros, so a NaN or Inf of B
 *          reaches exactly the rows that use it, where "tc" multiplies the
 *          padding zeros of a dense block by whole rows of B (0 * Inf = NaN,
 *          the caution of bcsr.h) and is marked in variant_spreads, so that
 *          tcmul picks "cuda" when B is not all finite.
 *
 * Precision: A and B in fp16, products summed in fp32. SMaT accumulates in
 * fp16 (mma...f16.f16.f16.f16); we accumulate in fp32, which costs nothing
 * on the tensor cores' throughput that matters here (SpMM is bound by
 * memory and latency) and keeps long rows' sums accurate. Each row of A is
 * stored divided by tc_half_scale of its largest magnitude and multiplied
 * back at the store (gpu_internal.h), so values beyond fp16's range work;
 * B is rounded to fp16 as it is (man/tcmul.1), unless the plan gives "tc"
 * max|B| (tc_kplan.b_max, for a B of unknown range): its conversion then
 * multiplies B by the power of two of lib/fp16_scale.h, and the tiles are
 * multiplied back, after the rows' own scales, as they are stored.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cuda_fp16.h>

#include "fp16_scale.h"
#include "gpu_internal.h"
#include "segments.h"
#include "bcsr.h"
#include "mma.cuh"
#include "rowaddr.cuh"

#define BH TC_BCSR_H_ROWS       /* block rows (the MMA's m) */
#define BK 16                   /* "tc": block columns (the MMA's k) */

enum { V_TC, V_CUDA, NVARIANTS };
static const char *const variant_names[NVARIANTS] = { "tc", "cuda" };
static const unsigned char variant_spreads[NVARIANTS] = { 1, 0 };
/* "tc" converts B with the plan's scale (tc_kplan.b_max); "cuda" reads
   float32 B and takes the plan's scaled copies */
static const unsigned char variant_scales_b[NVARIANTS] = { 1, 0 };

/* Warps per thread block: 1 to MAX_WARPS, sized to the matrix (plan_warps). */
#define MAX_WARPS 8
/* "cuda": columns of C per thread block (one per lane). */
#define CUDA_PANEL 32
/* "tc": blocks in flight per warp. */
#define STAGES 4

/* Everything a launch reads, passed by value. */
typedef struct bc_args {
    const tc_seg *seg;
    int panels;                 /* panels of columns of C per segment */
    int w;                      /* block width: 16 or 8 */
    const int32_t *col;         /* block column of each block */
    const __half *val;          /* nblocks * BH * w fp16, row-major per block,
                                   each row divided by its row_scale */
    const uint64_t *bitmap;     /* "cuda": BH * w / 64 words per block */
    const float *row_scale;     /* per row of A */
    const float *B;
    const __half *B16;          /* "tc": B in fp16, ldb16 halves per row */
    int32_t ldb16;              /* bc_select: at most INT32_MAX */
    float *C;
    int32_t rows, cols, n;
    const float *b_max;         /* "tc": max|B| that B16 was scaled by */
} bc_args;

/* ------------------------------------------------------------------------ */
/* "tc"                                                                      */
/* ------------------------------------------------------------------------ */

/* One stage: a block's values (16 rows of two 16-byte chunks) and its 16
   rows of B for the panel (NT chunks each), both swizzled (tc_swz). */
template <int NT> struct stage {
    uint4 a[BH * 2];
    uint4 b[BK * NT];
};

/* Starts copying block blk (block column J) into st, one cp.async group:
   lane l its values' chunk l; lanes l, l + 32 B's chunks l, l + 32 (row
   k = chunk / NT of the block's rows of B, chunk q = chunk % NT of the
   panel), zeros for rows of B past the matrix's last column. */
template <int NT>
static __device__ __forceinline__ void fetch(const bc_args &a, stage<NT> *st, int64_t blk,
                                             int32_t J, int panel, int lane)
{
    const int r = lane >> 1, q = lane & 1;
    tc_cp_async16(&st->a[2 * r + (q ^ tc_swz<2>(r))], a.val + blk * (BH * BK) + 8 * lane, 1);
    for (int i = lane; i < BK * NT; i += 32) {
        const int k = i / NT, c = i % NT;
        const int64_t row = (int64_t)J * BK + k;
        const bool in = row < a.cols;
        const __half *src =
            a.B16 + (in ? tc_row_elems((int32_t)row, a.ldb16) : 0) + panel * 8 * NT + 8 * c;
        tc_cp_async16(&st->b[k * NT + (c ^ tc_swz<NT>(k))], src, in);
    }
    tc_cp_async_commit();
}

/* acc[t] += block * B's columns [8 t, 8 t + 8) of the panel: the A
   fragment of mma.m16n8k16 is the four 8 x 8 quarters of the block (lanes
   8m .. 8m + 7 address rows of quarter m: rows 0-7 | 8-15 of columns 0-7,
   then of columns 8-15); each ldmatrix.x4.trans gives the B fragments of
   two n-tiles (quarter m: n-tile t0 + m / 2, k rows 8 (m % 2) ..). */
template <int NT>
static __device__ __forceinline__ void multiply(const stage<NT> *cur, int lane, float acc[NT][4])
{
    uint32_t af[4];
    const int ar = (lane & 7) + 8 * ((lane >> 3) & 1), aq = lane >> 4;
    tc_ldmatrix_x4(af, &cur->a[2 * ar + (aq ^ tc_swz<2>(ar))]);
    const int m = lane >> 3, k = 8 * (m & 1) + (lane & 7);
    for (int t0 = 0; t0 < NT; t0 += 2) {
        uint32_t bf[4];
        const int t = min(t0 + (m >> 1), NT - 1);
        tc_ldmatrix_x4_trans(bf, &cur->b[k * NT + (t ^ tc_swz<NT>(k))]);
        tc_mma_m16n8k16_f16(acc[t0], af, bf[0], bf[1]);
        if (t0 + 1 < NT)
            tc_mma_m16n8k16_f16(acc[t0 + 1], af, bf[2], bf[3]);
    }
}

/* One warp: blocks [lo, hi), the panel's columns, added into acc. Block
   b + STAGES - 1 is fetched while block b is multiplied; its block column
   is read one block earlier still, so that no load waits on another inside
   the loop. */
template <int NT>
static __device__ void tc_range(const bc_args &a, int64_t lo, int64_t hi, int panel,
                                stage<NT> *stg, float acc[NT][4])
{
    const int lane = threadIdx.x & 31;
    for (int j = 0; j < STAGES - 1; j++) {
        if (lo + j < hi)
            fetch<NT>(a, &stg[j], lo + j, a.col[lo + j], panel, lane);
        else
            tc_cp_async_commit();
    }
    int32_t next = lo + STAGES - 1 < hi ? a.col[lo + STAGES - 1] : 0;
    for (int64_t b = lo; b < hi; b++) {
        const int64_t f = b + STAGES - 1;
        if (f < hi)
            fetch<NT>(a, &stg[(f - lo) % STAGES], f, next, panel, lane);
        else
            tc_cp_async_commit();
        if (f + 1 < hi)
            next = a.col[f + 1];
        tc_cp_async_wait<STAGES - 1>();
        __syncwarp();
        multiply<NT>(&stg[(b - lo) % STAGES], lane, acc);
        __syncwarp();           /* this stage is refilled at the next iteration */
    }
    tc_cp_async_wait<0>();
}

/* ------------------------------------------------------------------------ */
/* "cuda"                                                                    */
/* ------------------------------------------------------------------------ */

/* One warp: blocks [lo, hi), column panel * 32 + lane of C, added into acc
   (one per row of the block row). Only the bitmap's nonzeros are
   multiplied: value (r, c) of a block is at r * w + c (dense), as is its
   bit. */
static __device__ void cuda_range(const bc_args &a, int64_t lo, int64_t hi, int panel,
                                  float acc[BH])
{
    const int32_t c = panel * CUDA_PANEL + (threadIdx.x & 31);
    const int words = BH * a.w / 64;
    for (int64_t blk = lo; blk < hi; blk++) {
        const int64_t col0 = (int64_t)a.col[blk] * a.w;
        const __half *v = a.val + blk * BH * a.w;
        for (int wd = 0; wd < words; wd++) {
            uint64_t bits = a.bitmap[blk * words + wd];
            while (bits) {
                const int k = 64 * wd + __ffsll((long long)bits) - 1;
                bits &= bits - 1;
                const int r = k / a.w;
                const float x = c < a.n ? a.B[(col0 + k % a.w) * a.n + c] : 0.0f;
                acc[r] = fmaf(__half2float(v[k]), x, acc[r]);
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* The launch                                                                */
/* ------------------------------------------------------------------------ */

template <int MODE, int NT> static __host__ __device__ constexpr int panel_width()
{
    return MODE == V_CUDA ? CUDA_PANEL : 8 * NT;
}

/* Dynamic shared memory of a thread block of `warps` warps: the stages of
   "tc" (whose room the partial tiles reuse once every warp is done), or the
   partial 16 x 32 tiles of "cuda". */
template <int MODE, int NT> static __host__ __device__ constexpr size_t smem_bytes(int warps)
{
    return (size_t)warps * (MODE == V_TC ? STAGES * sizeof(stage<NT>)
                                         : BH * CUDA_PANEL * sizeof(float));
}

/* Thread block u: segment u / panels, panel u % panels. SCALED: "tc" for
   a B of unknown range, B16 being B times 2^s (a.b_max): each warp's
   fragments are multiplied by their rows' scales and then by 2^-s before
   they are added up, in that order (the order of the plan's copies, whose
   C is scaled back after the kernel: the two powers of two together may
   leave float32's range where each alone does not), so that the store
   scales no more. Instances of their own, as rstile's (bench/NOTES.md,
   "fp16 safeguards at their cost"). */
template <int MODE, int NT, bool SCALED>
__global__ void __launch_bounds__(MAX_WARPS * 32) bc_kernel(bc_args a)
{
    constexpr int PW = panel_width<MODE, NT>();
    extern __shared__ uint4 smem[];
    const int w = threadIdx.x / 32, lane = threadIdx.x & 31;
    const tc_seg s = a.seg[blockIdx.x / a.panels];
    const int panel = (int)(blockIdx.x % a.panels);
    int64_t lo, hi;
    tc_seg_warp_range(s, &lo, &hi);
    float *part = (float *)smem;                            /* [warps][16][PW] */
    float *mine = part + (size_t)w * BH * PW;
    if constexpr (MODE == V_CUDA) {
        float acc[BH];
        for (int r = 0; r < BH; r++)
            acc[r] = 0.0f;
        cuda_range(a, lo, hi, panel, acc);
        for (int r = 0; r < BH; r++)
            mine[r * PW + lane] = acc[r];
    } else {
        float acc[NT][4];
        for (int t = 0; t < NT; t++)
            acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;
        tc_range<NT>(a, lo, hi, panel, (stage<NT> *)smem + STAGES * w, acc);
        if constexpr (SCALED) {
            tc_frag_scale<NT>(acc, tc_frag_scales(a.row_scale, s.row0, a.rows));
            tc_fp16_unscale_c<4 * NT>(&acc[0][0], a.b_max);
        }
        __syncthreads();        /* every warp is done with the stages */
        tc_tile_store<NT>(mine, PW, acc);
    }
    __syncthreads();
    tc_seg_store<PW>(s, part, panel, SCALED ? NULL : a.row_scale, a.C, a.rows, a.n);
}

/* ------------------------------------------------------------------------ */
/* Plan                                                                      */
/* ------------------------------------------------------------------------ */

typedef struct bc_plan {
    tc_kplan base;
    int w;                      /* the format's block width */
    int64_t nseg;
    tc_seg *seg;
    int64_t nsplit;             /* segments of split block rows, first in seg */
    int32_t *col;
    __half *val;
    uint64_t *bitmap;
    float *row_scale;
    __half *B16;
    int64_t ldb16;
    int nt;                     /* "tc": n-tiles of 8 columns per warp */
    int warps;                  /* warps per thread block */
} bc_plan;

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* n-tiles per "tc" warp: n rounded up to 8, 16 or 32 columns. */
static int tiles_for(int32_t n)
{
    return n <= 8 ? 1 : n <= 16 ? 2 : 4;
}

static bc_args args_for(const bc_plan *p, int v, const float *B, float *C)
{
    bc_args a;
    memset(&a, 0, sizeof a);
    a.seg = p->seg;
    a.panels = (int)ceil_div(p->base.n, v == V_CUDA ? CUDA_PANEL : 8 * p->nt);
    a.w = p->w;
    a.col = p->col;
    a.val = p->val;
    a.bitmap = p->bitmap;
    a.row_scale = p->row_scale;
    a.B = B;
    a.B16 = p->B16;
    a.ldb16 = (int32_t)p->ldb16;        /* bc_select: it fits */
    a.b_max = p->base.b_max;           /* "tc" only (kernels.h) */
    a.C = C;
    a.rows = p->base.rows;
    a.cols = p->base.cols;
    a.n = p->base.n;
    return a;
}

template <int MODE, int NT> static void launch(const bc_args &a, int warps, unsigned grid,
                                               cudaStream_t s)
{
    if constexpr (MODE == V_TC)
        if (a.b_max) {
            bc_kernel<MODE, NT, true><<<grid, 32 * warps, smem_bytes<MODE, NT>(warps), s>>>(a);
            return;
        }
    bc_kernel<MODE, NT, false><<<grid, 32 * warps, smem_bytes<MODE, NT>(warps), s>>>(a);
}

static tc_status bc_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    bc_plan *p = (bc_plan *)base;
    cudaStream_t s = base->gpu->stream;
    const bc_args a = args_for(p, base->variant, B, C);
    const int64_t grid = p->nseg * a.panels;
    tc_status st = TC_OK;
    if (base->variant == V_TC)
        st = tc_gpu_to_half_rows(base->gpu, B, p->B16, NULL, base->cols, base->n, p->ldb16,
                                 a.b_max, err);
    if (st == TC_OK)
        st = tc_gpu_zero_split(base->gpu, p->seg, p->nsplit, C, base->n, err);
    if (st != TC_OK || grid == 0)
        return st;
    if (base->variant == V_CUDA)
        launch<V_CUDA, 1>(a, p->warps, (unsigned)grid, s);
    else if (p->nt == 1)
        launch<V_TC, 1>(a, p->warps, (unsigned)grid, s);
    else if (p->nt == 2)
        launch<V_TC, 2>(a, p->warps, (unsigned)grid, s);
    else
        launch<V_TC, 4>(a, p->warps, (unsigned)grid, s);
    return TC_LAUNCHED(err, "bc_kernel");
}

static void bc_free(tc_kplan *base)
{
    bc_plan *p = (bc_plan *)base;
    if (!p)
        return;
    tc_gpu *g = p->base.gpu;
    tc_gpu_free(g, p->seg);
    tc_gpu_free(g, p->col);
    tc_gpu_free(g, p->val);
    tc_gpu_free(g, p->bitmap);
    tc_gpu_free(g, p->row_scale);
    tc_gpu_free(g, p->B16);
    free(p);
}

/* ---- host-side preparation ---- */

/* Warps per thread block: a power of two, about a quarter of the mean
   blocks per non-empty block row (so that each warp's run is a few blocks
   long and its pipeline has something to overlap), 1 to MAX_WARPS. */
static int plan_warps(const tc_bcsr *m)
{
    int64_t nonempty = 0;
    for (int64_t i = 0; i < m->nblockrows; i++)
        nonempty += m->rowPtr[i + 1] > m->rowPtr[i];
    const int64_t quarter = nonempty ? ceil_div(ceil_div(m->nblocks, nonempty), 4) : 1;
    int w = 1;
    while (w < MAX_WARPS && 2 * w <= quarter)
        w *= 2;
    return w;
}

/* The longest segment: an even share of the blocks over twice the thread
   blocks the device holds at once (four per SM: 48 KB of stages each, of
   the SM's 228 KB), so that no block row outlasts the others by more than
   a fraction of a wave; at least 4 blocks per warp, so the pipeline fills. */
static int64_t segment_cap(const tc_bcsr *m, const tc_gpu *g, int warps)
{
    const int64_t resident = 4 * (int64_t)tc_gpu_get_info(g)->sm_count;
    const int64_t share = ceil_div(m->nblocks, 2 * resident);
    return share > 4 * warps ? share : 4 * warps;
}

/* The segments: each block row cut into ceil(blocks / cap) nearly equal
   runs (one, of no blocks, for an empty block row), in tc_segs_order's
   order. */
static tc_status build_segments(const tc_bcsr *m, int64_t cap, tc_seg **out, int64_t *nseg,
                                int64_t *nsplit, tc_error *err)
{
    int64_t n = 0;
    for (int64_t i = 0; i < m->nblockrows; i++)
        n += ceil_div(m->rowPtr[i + 1] - m->rowPtr[i], cap) + (m->rowPtr[i + 1] == m->rowPtr[i]);
    tc_seg *seg = (tc_seg *)tc_malloc_array(n + 1, sizeof *seg, err);
    if (!seg)
        return TC_ERR_NOMEM;
    int64_t k = 0;
    for (int64_t i = 0; i < m->nblockrows; i++) {
        const int64_t lo = m->rowPtr[i], nb = m->rowPtr[i + 1] - lo;
        const int64_t pieces = nb ? ceil_div(nb, cap) : 1;
        const int32_t row0 = (int32_t)(i * BH);
        const int valid = m->base.rows - row0 < BH ? m->base.rows - row0 : BH;
        const uint32_t mask = (1u << valid) - 1;
        for (int64_t j = 0; j < pieces; j++) {
            const int64_t b0 = lo + nb * j / pieces, b1 = lo + nb * (j + 1) / pieces;
            seg[k++] = (tc_seg){ b0, row0, (int32_t)(b1 - b0), mask, (uint32_t)(pieces > 1) };
        }
    }
    tc_segs_order(seg, k, nsplit);
    *out = seg;
    *nseg = k;
    return TC_OK;
}

/* The values in fp16, each row divided by its scale (tc_half_scale of its
   largest magnitude, row_scale), block after block as in the format; a
   pattern matrix gets 1 at its bitmap's bits and scale 1. */
static tc_status half_values(const tc_bcsr *m, __half **val, float **row_scale, tc_error *err)
{
    const int64_t area = tc_bcsr_block_area(m), words = tc_bcsr_block_words(m);
    double *scale = (double *)tc_calloc_array((int64_t)m->base.rows + 1, sizeof *scale, err);
    __half *h = (__half *)tc_malloc_array(m->nblocks * area + 1, sizeof *h, err);
    float *rs = (float *)tc_malloc_array((int64_t)m->base.rows + 1, sizeof *rs, err);
    if (!scale || !h || !rs) {
        free(scale);
        free(h);
        free(rs);
        return TC_ERR_NOMEM;
    }
    for (int64_t i = 0; i < m->nblockrows; i++)
        for (int64_t b = m->rowPtr[i]; b < m->rowPtr[i + 1]; b++)
            for (int64_t k = 0; k < area; k++) {
                const int32_t row = (int32_t)(i * BH + k / m->w);
                if (m->values && row < m->base.rows)
                    scale[row] = fmax(scale[row], fabs(m->values[b * area + k]));
            }
    for (int32_t r = 0; r < m->base.rows; r++) {
        scale[r] = tc_half_scale(scale[r]);
        rs[r] = (float)scale[r];
    }
    for (int64_t i = 0; i < m->nblockrows; i++)
        for (int64_t b = m->rowPtr[i]; b < m->rowPtr[i + 1]; b++)
            for (int64_t k = 0; k < area; k++) {
                const int32_t row = (int32_t)(i * BH + k / m->w);
                const int bit = (int)((m->bitmap[b * words + k / 64] >> (k % 64)) & 1);
                const double s = row < m->base.rows ? scale[row] : 1.0;
                const double v = m->values ? m->values[b * area + k] / s : bit;
                h[b * area + k] = __float2half_rn((float)v);
            }
    free(scale);
    *val = h;
    *row_scale = rs;
    return TC_OK;
}

static tc_status upload(bc_plan *p, const tc_bcsr *m, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    const int64_t area = tc_bcsr_block_area(m);
    tc_seg *seg = NULL;
    __half *val = NULL;
    float *row_scale = NULL;
    tc_status st = build_segments(m, segment_cap(m, g, p->warps), &seg, &p->nseg, &p->nsplit,
                                  err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, seg, p->nseg * (int64_t)sizeof *seg, (void **)&p->seg, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->colIdx, m->nblocks * 4, (void **)&p->col, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->bitmap, m->nblocks * tc_bcsr_block_words(m) * 8,
                               (void **)&p->bitmap, err);
    if (st == TC_OK)
        st = half_values(m, &val, &row_scale, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, val, m->nblocks * area * 2, (void **)&p->val, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, row_scale, (int64_t)m->base.rows * 4, (void **)&p->row_scale,
                               err);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, (int64_t)m->base.cols * p->ldb16 * 2, (void **)&p->B16, err);
    /* what "tc" reads of A per run (the bitmap is "cuda"'s alone) */
    p->base.a_bytes = p->nseg * (int64_t)sizeof *seg + m->nblocks * (4 + area * 2) +
                      (int64_t)m->base.rows * 4;
    free(seg);
    free(val);
    free(row_scale);
    return st;
}

static tc_status bc_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                            const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)a;
    tc_kplan *base;
    tc_status st = tc_kplan_new(g, m, "bcsr", o, sizeof(bc_plan), &base, err);
    if (st != TC_OK)
        return st;
    const tc_bcsr *b = (const tc_bcsr *)m;
    bc_plan *p = (bc_plan *)base;
    p->w = b->w;
    p->nt = tiles_for(o->n);
    p->ldb16 = ceil_div(o->n, 8 * p->nt) * 8 * p->nt;
    p->warps = plan_warps(b);
    st = upload(p, b, err);
    if (st != TC_OK) {
        bc_free(&p->base);
        return st;
    }
    *out = &p->base;
    return TC_OK;
}

/* "tc" needs 16 x 16 blocks; a variant runs when its grids fit in one
   launch. */
static tc_status bc_select(tc_kplan *base, int v, tc_error *err)
{
    bc_plan *p = (bc_plan *)base;
    if (v == V_TC && p->w != BK)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "bcsr kernel tc: needs 16 x 16 blocks (mma.m16n8k16), the matrix has "
                            "16 x %d (convert with -p w=16)",
                            p->w);
    const bc_args a = args_for(p, v, NULL, NULL);
    if (p->nseg * a.panels > INT32_MAX || tc_half_launch_blocks(base->cols, p->ldb16) > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "bcsr kernel %s: %lld thread blocks is more than one launch takes",
                            variant_names[v], (long long)(p->nseg * a.panels));
    if (p->ldb16 > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "bcsr kernel %s: a row of the fp16 B of %lld halves is more than "
                            "2^31 - 1", variant_names[v], (long long)p->ldb16);
    base->variant = v;
    return TC_OK;
}

extern "C" const tc_kernel tc_kernel_bcsr = {
    "bcsr",
    "SMaT: dense 16x16 blocks on tensor cores (fp16 mma.m16n8k16, fp32 accumulation, "
    "cp.async pipeline, ldmatrix)",
    "fp16",
    NVARIANTS,
    variant_names,
    variant_spreads,
    bc_prepare,
    bc_select,
    bc_run,
    bc_free,
    NULL,
    NULL,
    variant_scales_b,
};
