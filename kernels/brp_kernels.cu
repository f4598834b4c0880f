/*
 * brp_kernels.cu: the kernels of the brp variants (brp.cu's opening
 * comment describes them) and their launches: the tc-item variants with
 * both parts, the TC Block part of cuda, and the Residual Row part
 * (Alg. 3).
 */
#include "brp.cuh"

static __device__ __forceinline__ float value_at(const float *__restrict__ val, int64_t e)
{
    return val ? val[e] : 1.0f;
}

/* C[row][c] += v, for the elements inside C. */
static __device__ __forceinline__ void add_guarded(float *C, int32_t rows, int32_t n,
                                                   int64_t row, int32_t c, float v)
{
    if (row < rows && c < n)
        atomicAdd(&C[row * n + c], v);
}

/* ------------------------------------------------------------------------ */
/* A group on tensor cores                                                   */
/* ------------------------------------------------------------------------ */

/* The metadata of one group that a lane needs: its entries 8 tig ..
   8 tig + 7 (see accumulate_group). */
struct group_meta {
    uint2 ids;                  /* local_id, one byte per entry */
    int4 ca, cb;                /* old_col_id */
    float4 va, vb;              /* values */
};

static __device__ __forceinline__ group_meta load_meta(int64_t grp, int tig,
                                                       const uint8_t *__restrict__ lid,
                                                       const int32_t *__restrict__ col,
                                                       const float *__restrict__ val)
{
    const int64_t e = grp * GROUP_NNZ + 8 * tig;
    group_meta m;
    m.ids = __ldg((const uint2 *)(lid + e));
    m.ca = __ldg((const int4 *)(col + e));
    m.cb = __ldg((const int4 *)(col + e + 4));
    m.va = val ? __ldg((const float4 *)(val + e)) : make_float4(1, 1, 1, 1);
    m.vb = val ? __ldg((const float4 *)(val + e + 4)) : make_float4(1, 1, 1, 1);
    return m;
}

/* acc += the group's 16 rows times the 32 columns [c0, c0 + 32) of B, on
   tensor cores; *used gets the rows (bits 0..15) that its entries use.
   Compared with Alg. 2:
   - The 32 entries of a group may go to any k of the 4 mma, one each, with
     the same sum. Lane (gid, tig) takes entries 8 tig .. 8 tig + 7: entry j
     goes to mma j / 2 at k = tig + 4 (j % 2). Its metadata are then 5
     contiguous loads, and the A fragments are built in registers (the lane
     keeps the value where the entry's row is gid or gid + 8), with no shared
     memory and no barrier.
   - B is loaded 16 bytes at a time: the lane takes columns c0 + 4 gid + q,
     q = 0..3, of its entries' rows, and slice q (one mma of n = 8) maps its
     column gid to c0 + 4 gid + q. The C fragment of slice q then holds
     columns c0 + 8 tig + q and c0 + 8 tig + 4 + q: across the four slices,
     each lane owns 8 consecutive columns of rows gid and gid + 8 (acc[q][0]
     is column c0 + 8 tig + q of row gid, acc[q][1] column c0 + 8 tig + 4 + q,
     acc[q][2] and acc[q][3] the same of row gid + 8). */
static __device__ __forceinline__ void accumulate_group(float acc[4][4], uint32_t *used,
                                                        const group_meta &m,
                                                        const float *__restrict__ B, int32_t c0,
                                                        int32_t n, bool vec, int gid)
{
    const int32_t cols[8] = { m.ca.x, m.ca.y, m.ca.z, m.ca.w, m.cb.x, m.cb.y, m.cb.z, m.cb.w };
    const float vals[8] = { m.va.x, m.va.y, m.va.z, m.va.w, m.vb.x, m.vb.y, m.vb.z, m.vb.w };
    uint32_t a[4 * BRP_G];
    float4 b[8];
    uint32_t mine = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        const int r = (((j < 4 ? m.ids.x : m.ids.y) >> (8 * (j % 4))) & 0xff) / BRP_W;
        mine |= 1u << r;
        a[4 * (j / 2) + 2 * (j % 2)] = tc_tf32(r == gid ? vals[j] : 0.0f);
        a[4 * (j / 2) + 2 * (j % 2) + 1] = tc_tf32(r == gid + 8 ? vals[j] : 0.0f);
        b[j] = tc_load_b4(B, cols[j], c0 + 4 * gid, n, vec);
    }
#pragma unroll
    for (int k = 0; k < BRP_G; k++) {
        const float4 lo = b[2 * k], hi = b[2 * k + 1];
        tc_mma_m16n8k8_tf32(acc[0], a + 4 * k, tc_tf32(lo.x), tc_tf32(hi.x));
        tc_mma_m16n8k8_tf32(acc[1], a + 4 * k, tc_tf32(lo.y), tc_tf32(hi.y));
        tc_mma_m16n8k8_tf32(acc[2], a + 4 * k, tc_tf32(lo.z), tc_tf32(hi.z));
        tc_mma_m16n8k8_tf32(acc[3], a + 4 * k, tc_tf32(lo.w), tc_tf32(hi.w));
    }
    *used |= __reduce_or_sync(0xffffffffu, mine);
}

/* ------------------------------------------------------------------------ */
/* TC Block and Residual Row parts together, balanced: "tc-item"             */
/* ------------------------------------------------------------------------ */

/* Block `b` multiplies item b / panels by the 32 columns [32 p, 32 p + 32)
   of B, p = b % panels: each warp its unit, or its units i, i + W, ... of a
   ranged item (accumulate_group; a residual pseudo-group's padding has
   value 0), into a tile of its own in shared memory, which tc_item_finish
   adds up per window and stores (items.cuh). Every unit is one chain of
   loads (item, metadata, B) with all of the item's units in flight at
   once, and every row of C is written by this one launch, with no zeroing
   before and no atomics in C. Without `residual`, the residual
   pseudo-groups are left out (the TC Block part alone, for run_part). LONG
   (the -long variants) compiles the ranged loop in; without it the kernel
   keeps 64 registers, 32 warps per SM. */
template <int W, bool LONG>
__global__ void __launch_bounds__(W * 32, tc_item_blocks_per_sm(W, LONG))
    brp_item_kernel(int panels, const tc_item<W> *__restrict__ items,
                    const uint8_t *__restrict__ lid, const int32_t *__restrict__ col,
                    const float *__restrict__ val, const uint8_t *__restrict__ rlid,
                    const int32_t *__restrict__ rcol, const float *__restrict__ rval,
                    int residual, float *ws, int *counters, const float *__restrict__ B,
                    float *C, int32_t rows, int32_t n)
{
    __shared__ __align__(16) float tile[W][TC_ITEM_ROWS][TC_ITEM_PITCH];
    __shared__ int s_win[W], s_last;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, gid = lane >> 2, tig = lane & 3;
    const tc_item<W> *it = items + blockIdx.x / panels;
    const int p = (int)(blockIdx.x % panels);
    const int32_t c0 = p * 32;
    const bool vec = n % 4 == 0;
    float acc[4][4] = {};
    uint32_t used = 0;
    int slot = 0;
    if (LONG && it->ranged) {
        const int64_t g0 = it->unit[0], r0 = it->unit[1];
        const int ng = (int)it->unit[2], nu = ng + (residual ? (int)it->unit[3] : 0);
#pragma unroll 1
        for (int i = warp; i < nu; i += W)
            accumulate_group(acc, &used,
                             i < ng ? load_meta(g0 + i, tig, lid, col, val) :
                                      load_meta(r0 + i - ng, tig, rlid, rcol, rval),
                             B, c0, n, vec, gid);
    } else {
        const int64_t u = it->unit[warp], g = tc_unit_payload(u);
        const bool res = u >= 0 && tc_unit_residual(u);
        if (u >= 0 && (residual || !res))
            accumulate_group(acc, &used,
                             res ? load_meta(g, tig, rlid, rcol, rval) :
                                   load_meta(g, tig, lid, col, val), B, c0, n, vec, gid);
        slot = u >= 0 ? (int)(u & 7) : -1;
    }
    tc_acc_tile_put(&tile[warp][0][0], TC_ITEM_PITCH, acc);
    if (lane == 0)
        s_win[warp] = slot;
    __syncthreads();
    tc_item_finish<W>(it, tile, s_win, &s_last, ws, counters, panels, p, C, rows, n);
}

/* ------------------------------------------------------------------------ */
/* TC Block part, "cuda"                                                     */
/* ------------------------------------------------------------------------ */

/* Warp `gw` multiplies group gw / panels by the 32 columns [32 p, 32 p + 32)
   of B, p = gw % panels, one column per lane. The group's entries are first
   ordered by row (ballots), so that each row's sum ends in one atomic. */
__global__ void __launch_bounds__(CUDA_WARPS * 32)
    brp_cuda_kernel(int64_t ngroups, int panels, const int32_t *__restrict__ win,
                    const uint8_t *__restrict__ lid, const int32_t *__restrict__ col,
                    const float *__restrict__ val, const float *__restrict__ B, float *C,
                    int32_t rows, int32_t n)
{
    __shared__ int s_row[CUDA_WARPS][GROUP_NNZ + 1];
    __shared__ int32_t s_col[CUDA_WARPS][GROUP_NNZ];
    __shared__ float s_val[CUDA_WARPS][GROUP_NNZ];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t gw = (int64_t)blockIdx.x * CUDA_WARPS + warp;
    const int64_t grp = gw / panels;
    if (grp >= ngroups)
        return;
    const int64_t e = grp * GROUP_NNZ + lane;
    const int r = lid[e] / BRP_W;
    /* stable rank of this entry by row */
    int pos = 0;
#pragma unroll
    for (int rr = 0; rr < BRP_H; rr++) {
        const uint32_t m = __ballot_sync(0xffffffffu, r == rr);
        if (rr < r)
            pos += __popc(m);
        else if (rr == r)
            pos += __popc(m & ((1u << lane) - 1));
    }
    s_row[warp][pos] = r;
    s_col[warp][pos] = col[e];
    s_val[warp][pos] = value_at(val, e);
    if (lane == 0)
        s_row[warp][GROUP_NNZ] = -1;    /* ends the last row's run */
    __syncwarp();
    const int32_t c = (int32_t)(gw % panels) * 32 + lane;
    float bv[GROUP_NNZ];
#pragma unroll
    for (int i = 0; i < GROUP_NNZ; i++)
        bv[i] = c < n ? __ldg(&B[(int64_t)s_col[warp][i] * n + c]) : 0.0f;
    const int64_t row0 = (int64_t)win[grp] * BRP_H;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < GROUP_NNZ; i++) {
        sum = fmaf(s_val[warp][i], bv[i], sum);
        if (s_row[warp][i + 1] != s_row[warp][i]) {
            add_guarded(C, rows, n, row0 + s_row[warp][i], c, sum);
            sum = 0.0f;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Residual Row part: Alg. 3                                                 */
/* ------------------------------------------------------------------------ */

/* 1-D tiling (Sputnik, as Alg. 3): `across` threads take one column each of
   one residual row, RES_THREADS / across rows per block; the entries of the
   block's rows are staged in shared memory a block-full at a time and
   reused by every column. C[row] += the row's sum: the TC Block part has
   finished, and no other thread writes this row. */
__global__ void __launch_bounds__(RES_THREADS)
    brp_residual_kernel(int64_t nres, int across, const int32_t *__restrict__ res_row,
                        const int64_t *__restrict__ res_off, const int32_t *__restrict__ res_col,
                        const float *__restrict__ res_val, const float *__restrict__ B, float *C,
                        int32_t n)
{
    __shared__ int32_t s_col[RES_THREADS];
    __shared__ float s_val[RES_THREADS];
    const int per_block = RES_THREADS / across;
    const int tid = threadIdx.x, slot = tid / across, t = tid % across;
    const int64_t first = (int64_t)blockIdx.x * per_block;
    const int64_t last = first + per_block < nres ? first + per_block : nres;
    const int64_t i = first + slot;     /* this thread's residual row, if < last */
    const int64_t begin = res_off[first], end = res_off[last];
    const int64_t my_begin = i < last ? res_off[i] : 0, my_end = i < last ? res_off[i + 1] : 0;
    for (int32_t c0 = 0; c0 < n; c0 += across) {
        const int32_t c = c0 + t;
        float sum = 0.0f;
        for (int64_t s0 = begin; s0 < end; s0 += RES_THREADS) {
            if (s0 + tid < end) {
                s_col[tid] = res_col[s0 + tid];
                s_val[tid] = value_at(res_val, s0 + tid);
            }
            __syncthreads();
            const int64_t lo = my_begin > s0 ? my_begin : s0;
            const int64_t hi = my_end < s0 + RES_THREADS ? my_end : s0 + RES_THREADS;
            if (c < n)
                for (int64_t k = lo; k < hi; k++)
                    sum = fmaf(s_val[k - s0], __ldg(&B[(int64_t)s_col[k - s0] * n + c]), sum);
            __syncthreads();
        }
        if (i < last && c < n)
            C[(int64_t)res_row[i] * n + c] += sum;
    }
}

/* ------------------------------------------------------------------------ */
/* Launches                                                                  */
/* ------------------------------------------------------------------------ */

/* C = 0, then the TC Block part of cuda adds into it. */
static tc_status run_blocks(brp_plan *p, const float *B, float *C, tc_error *err)
{
    const tc_kplan *b = &p->base;
    cudaStream_t s = b->gpu->stream;
    tc_status st = TC_CUDA(err, cudaMemsetAsync(C, 0, (size_t)b->rows * b->n * sizeof(float), s));
    if (st != TC_OK || p->ngroups == 0)
        return st;
    brp_cuda_kernel<<<(unsigned)cuda_blocks(p), CUDA_WARPS * 32, 0, s>>>(
        p->ngroups, (int)panels(p), p->win, p->lid, p->col, p->val, B, C, b->rows, b->n);
    return TC_LAUNCHED(err, "brp_cuda_kernel");
}

/* A tc-item variant, W warps per block: one launch writes all of C (the
   residual rows too, unless `residual` is 0). */
template <int W, bool LONG>
static tc_status run_item(brp_plan *p, const tc_item_set *s, const float *B, float *C,
                          int residual, tc_error *err)
{
    const tc_kplan *b = &p->base;
    if (s->nitem == 0)
        return TC_OK;
    brp_item_kernel<W, LONG><<<(unsigned)(s->nitem * panels(p)), W * 32, 0, b->gpu->stream>>>(
        (int)panels(p), (const tc_item<W> *)s->item, p->lid, p->col, p->val, p->rlid, p->rcol,
        p->rval, residual, s->ws, s->counters, B, C, b->rows, b->n);
    return TC_LAUNCHED(err, "brp_item_kernel");
}

static tc_status run_residual(brp_plan *p, const float *B, float *C, tc_error *err)
{
    if (p->nres_rows == 0)
        return TC_OK;
    brp_residual_kernel<<<(unsigned)res_blocks(p), RES_THREADS, 0, p->base.gpu->stream>>>(
        p->nres_rows, res_across(p), p->res_row, p->res_off, p->res_col, p->res_val, B, C,
        p->base.n);
    return TC_LAUNCHED(err, "brp_residual_kernel");
}

/* The TC Block part (which writes all of C) with or without the residual
   rows: the tc-item variants run them inside their launch, cuda leaves
   them to run_residual. */
static tc_status run_tc_part(brp_plan *p, const float *B, float *C, int residual,
                             tc_error *err)
{
    switch (p->base.variant) {
    case V_TC_ITEM: return run_item<4, false>(p, &p->isets[0], B, C, residual, err);
    case V_TC_ITEM8: return run_item<8, false>(p, &p->isets[1], B, C, residual, err);
    case V_TC_ITEM_LONG: return run_item<4, true>(p, &p->isets[2], B, C, residual, err);
    case V_TC_ITEM8_LONG: return run_item<8, true>(p, &p->isets[3], B, C, residual, err);
    default: return run_blocks(p, B, C, err);
    }
}

/* The TC Block part (which writes all of C) or the Residual Row part (which
   adds into it) alone. */
tc_status brp_run_part(tc_kplan *base, int part, const float *B, float *C,
                              tc_error *err)
{
    brp_plan *p = (brp_plan *)base;
    if (part == PART_RESIDUAL)
        return run_residual(p, B, C, err);
    return run_tc_part(p, B, C, 0, err);
}

tc_status brp_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    brp_plan *p = (brp_plan *)base;
    const int v = base->variant;
    tc_status st = run_tc_part(p, B, C, 1, err);
    if (v != V_CUDA)
        return st;      /* the residual rows ran inside the launch */
    return st == TC_OK ? run_residual(p, B, C, err) : st;
}
