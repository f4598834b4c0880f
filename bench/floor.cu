/*
 * floor.cu: what the shape of a small SpMM costs before any multiply, timed
 * by tcmul's own harness (tc_gpu_time over rotated operand sets: runs queued
 * behind a holding kernel, a CUDA event between consecutive runs; bench/
 * NOTES.md, rstile step 20). For a matrix (.tcf.h5, in its stored order, or
 * Matrix Market) and n = 32 columns of B and C in float32:
 *   - empty:  a kernel of one thread block that does nothing;
 *   - copy:   C = B row by row, a warp per 16 rows, 16 bytes per lane, its
 *             rows read through an index array first (a segment's load);
 *   - chain:  copy with its row indices read through 1 or 2 more dependent
 *             loads of an index array (L2), or 1 or 2 more dependent loads
 *             of B rows (a TC block's rows waiting on the one before);
 *   - gather: the rows of B that the matrix's rstile TC blocks name (the
 *             format built with its defaults: each segment's compacted
 *             columns, 8 per block) summed into the segment's 16 rows of C:
 *             a warp per segment with all its blocks' loads in flight, the
 *             same one block after another, and two warps per segment (as
 *             tc-fly) adding their halves in shared memory.
 * The kernels write C only; nothing is verified (they multiply nothing).
 *
 *   floor MATRIX
 *
 * Prints one TSV row per kernel: name, thread blocks, threads per block,
 * median_us, p10_us, p90_us (of 256 runs after 10 untimed ones).
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gpu_internal.h"
#include "rstile.h"

static const int N = 32, WARMUP = 10, ITERS = 256;

__global__ void empty_kernel() {}

/* Warp w: rows 16 w .. 16 w + 15 of C, lane l their row 4 i + l / 8,
   columns 4 (l % 8) .. + 3; the row of B read through idx, then L2X more
   times through idx2 (both i -> i % b_rows, over the rows of B and C),
   then BX more rows of B, each waiting on the one before. */
template <int L2X, int BX>
__global__ void chain_copy(const int *idx, const int *idx2, const float *B, float *C, int rows,
                           int b_rows)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    const int row = w * 16 + lane / 8, q = lane % 8;
    int src[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        src[i] = row + 4 * i < rows ? idx[row + 4 * i] : -1;
#pragma unroll
    for (int x = 0; x < L2X; x++)
#pragma unroll
        for (int i = 0; i < 4; i++)
            src[i] = src[i] >= 0 ? idx2[src[i]] : -1;
    float4 v[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        v[i] = src[i] >= 0 ? *(const float4 *)(B + (size_t)src[i] * N + 4 * q)
                           : make_float4(0, 0, 0, 0);
#pragma unroll
    for (int x = 0; x < BX; x++) {
        const int dep = __float_as_int(v[0].x) & 0;    /* 0, once v[0] is in */
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int r = src[i] >= 0 ? (src[i] + 7919 * (x + 1) + dep) % b_rows : -1;
            const float4 u = r >= 0 ? *(const float4 *)(B + (size_t)r * N + 4 * q)
                                    : make_float4(0, 0, 0, 0);
            v[i].x += u.x, v[i].y += u.y, v[i].z += u.z, v[i].w += u.w;
        }
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        if (row + 4 * i < rows)
            *(float4 *)(C + (size_t)(row + 4 * i) * N + 4 * q) = v[i];
}

/* Segment k's blocks woff[k] .. woff[k + 1], 8 column ids each (-1:
   padding), into rows row0[k] .. row0[k] + 15 of C (the segments of a
   split window write the same rows: nothing here is verified). MODE 0: a
   warp per segment, all its blocks' rows in flight (MAX_BLOCKS at a
   time); 1: the same, one block after another; 2: two warps per segment,
   a half of its blocks each, added in shared memory. Lane l reads rows
   l / 8 and l / 8 + 4 of each block at columns 4 (l % 8) .. + 3. */
#define MAX_BLOCKS 16
template <int MODE>
__global__ void gather(const int *woff, const int *row0, const int *cols, const float *B, float *C,
                       int rows, int nseg)
{
    __shared__ float4 half[32][2];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const int seg = MODE == 2 ? blockIdx.x : blockIdx.x * (blockDim.x >> 5) + wib;
    if (seg >= nseg)
        return;
    int b0 = woff[seg], b1 = woff[seg + 1];
    if (MODE == 2) {
        const int mid = (b0 + b1 + 1) / 2;
        if (wib == 0)
            b1 = mid;
        else
            b0 = mid;
    }
    const int r = lane >> 3, q = lane & 7;
    float4 acc[2] = { make_float4(0, 0, 0, 0), make_float4(0, 0, 0, 0) };
    if (MODE == 1) {
        int dep = 0;
        for (int b = b0; b < b1; b++) {
            const int c0 = cols[b * 8 + r], c1 = cols[b * 8 + r + 4];
            const float4 x = c0 >= 0 ? *(const float4 *)(B + (size_t)(c0 + dep) * N + 4 * q)
                                     : make_float4(0, 0, 0, 0);
            const float4 y = c1 >= 0 ? *(const float4 *)(B + (size_t)(c1 + dep) * N + 4 * q)
                                     : make_float4(0, 0, 0, 0);
            acc[0].x += x.x, acc[0].y += x.y, acc[0].z += x.z, acc[0].w += x.w;
            acc[1].x += y.x, acc[1].y += y.y, acc[1].z += y.z, acc[1].w += y.w;
            dep = __float_as_int(x.x) & 0;
        }
    } else {
        for (int k0 = b0; k0 < b1; k0 += MAX_BLOCKS) {
            int c[2 * MAX_BLOCKS];
#pragma unroll
            for (int k = 0; k < MAX_BLOCKS; k++) {
                c[2 * k] = k0 + k < b1 ? cols[(k0 + k) * 8 + r] : -1;
                c[2 * k + 1] = k0 + k < b1 ? cols[(k0 + k) * 8 + r + 4] : -1;
            }
            float4 v[2 * MAX_BLOCKS];
#pragma unroll
            for (int k = 0; k < 2 * MAX_BLOCKS; k++)
                v[k] = c[k] >= 0 ? *(const float4 *)(B + (size_t)c[k] * N + 4 * q)
                                 : make_float4(0, 0, 0, 0);
#pragma unroll
            for (int k = 0; k < 2 * MAX_BLOCKS; k++) {
                float4 &a = acc[k & 1];
                a.x += v[k].x, a.y += v[k].y, a.z += v[k].z, a.w += v[k].w;
            }
        }
    }
    if (MODE == 2) {
        if (wib == 1)
            half[lane][0] = acc[0], half[lane][1] = acc[1];
        __syncthreads();
        if (wib == 1)
            return;
        acc[0].x += half[lane][0].x, acc[1].x += half[lane][1].x;
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const int row = row0[seg] + r + 4 * j;
        if (row < rows)
            *(float4 *)(C + (size_t)row * N + 4 * q) = acc[j & 1];
    }
}

/* One kernel's launch on operand set `set` (tc_gpu_time's run). */
typedef struct floor_run {
    tc_gpu *g;
    const tc_gpu_operands *o;
    int kind, grid, block, rows, b_rows, nseg;
    const int *idx, *woff, *row0, *cols;
} floor_run;

static tc_status launch(void *ctx, int set, tc_error *err)
{
    const floor_run *r = (const floor_run *)ctx;
    const float *b = r->o->B[set];
    float *c = r->o->C[set];
    const cudaStream_t s = r->g->stream;
    const int n = r->grid, t = r->block;
    switch (r->kind) {
    case 0: empty_kernel<<<1, 32, 0, s>>>(); break;
    case 1: chain_copy<0, 0><<<n, t, 0, s>>>(r->idx, r->idx, b, c, r->rows, r->b_rows); break;
    case 2: chain_copy<1, 0><<<n, t, 0, s>>>(r->idx, r->idx, b, c, r->rows, r->b_rows); break;
    case 3: chain_copy<2, 0><<<n, t, 0, s>>>(r->idx, r->idx, b, c, r->rows, r->b_rows); break;
    case 4: chain_copy<0, 1><<<n, t, 0, s>>>(r->idx, r->idx, b, c, r->rows, r->b_rows); break;
    case 5: chain_copy<0, 2><<<n, t, 0, s>>>(r->idx, r->idx, b, c, r->rows, r->b_rows); break;
    case 6: gather<0><<<n, t, 0, s>>>(r->woff, r->row0, r->cols, b, c, r->rows, r->nseg); break;
    case 7: gather<1><<<n, t, 0, s>>>(r->woff, r->row0, r->cols, b, c, r->rows, r->nseg); break;
    default: gather<2><<<n, t, 0, s>>>(r->woff, r->row0, r->cols, b, c, r->rows, r->nseg);
    }
    return TC_CUDA(err, cudaGetLastError());
}

/* A new device copy of the count ints at src (never a null array). */
static tc_status upload(tc_gpu *g, const int32_t *src, int64_t count, int **dev, tc_error *err)
{
    tc_status st = tc_gpu_alloc(g, 4 * (count > 0 ? count : 1), (void **)dev, err);
    return st == TC_OK && count > 0 ? tc_gpu_upload(g, *dev, src, 4 * count, err) : st;
}

static tc_status read_matrix(const char *path, tc_csr **a, tc_tcf **tcf, tc_error *err)
{
    if (!tc_h5_is_hdf5(path))
        return tc_mtx_read(path, NULL, a, NULL, NULL, err);
    tc_status st = tc_h5_read(path, 0, tcf, err);
    if (st == TC_OK)
        *a = (*tcf)->matrix;
    return st;
}

static tc_status run(const char *path, tc_error *err)
{
    tc_csr *a = NULL;
    tc_tcf *tcf = NULL;
    tc_fmt *fmt = NULL;
    tc_gpu *g = NULL;
    tc_gpu_operands o = {};
    int *idx = NULL, *woff = NULL, *row0 = NULL, *cols = NULL;
    tc_params none = {};
    tc_status st = read_matrix(path, &a, &tcf, err);
    if (st == TC_OK)
        st = tc_fmt_build(tc_format_find("rstile"), a, &none, &fmt, err);
    if (st == TC_OK)
        st = tc_gpu_open(0, &g, err);
    const tc_rstile *rs = (const tc_rstile *)fmt;
    std::vector<int> ident(a && a->cols > 0 ? std::max(a->rows, a->cols) : 0), seg_off;
    for (size_t i = 0; i < ident.size(); i++)
        ident[i] = (int)(i % a->cols);
    for (int64_t k = 0; st == TC_OK && k <= rs->nsegments; k++)
        seg_off.push_back((int)rs->row_window_offset[k]);
    if (st == TC_OK)
        st = tc_gpu_operands_alloc(g, std::vector<float>((size_t)a->cols * N).data(), a->cols,
                                   a->rows, N, 1, &o, err);
    if (st == TC_OK)
        st = upload(g, ident.data(), (int64_t)ident.size(), &idx, err);
    if (st == TC_OK)
        st = upload(g, seg_off.data(), (int64_t)seg_off.size(), &woff, err);
    if (st == TC_OK)
        st = upload(g, rs->row_window_id, rs->nsegments, &row0, err);
    if (st == TC_OK)
        st = upload(g, rs->col_id, rs->nblocks * 8, &cols, err);
    /* no copy without rows of B to copy from */
    const int warps = a && a->cols > 0 ? (int)((a->rows + 15) / 16) : 0;
    const int nseg = (int)(rs ? rs->nsegments : 0);
    const struct {
        const char *name;
        int grid, block;
    } ks[] = {
        { "empty", 1, 32 },
        { "copy", warps, 32 },
        { "copy, 1 more index load", warps, 32 },
        { "copy, 2 more index loads", warps, 32 },
        { "copy, 1 more dependent row of B", warps, 32 },
        { "copy, 2 more dependent rows of B", warps, 32 },
        { "gather, a warp per segment, all in flight", nseg, 32 },
        { "gather, a warp per segment, one block after another", nseg, 32 },
        { "gather, two warps per segment, halves in shared memory", nseg, 64 },
    };
    for (int k = 0; st == TC_OK && k < (int)(sizeof ks / sizeof ks[0]); k++) {
        floor_run r = { g, &o, k, ks[k].grid, ks[k].block, a->rows, a->cols, nseg,
                        idx, woff, row0, cols };
        tc_gpu_timing t;
        if (r.grid == 0)
            continue;
        st = tc_gpu_time(g, launch, &r, o.count, WARMUP, ITERS, &t, err);
        if (st == TC_OK)
            printf("%s\t%d\t%d\t%.3f\t%.3f\t%.3f\n", ks[k].name, r.grid, r.block,
                   1e3 * t.ms.decile[5], 1e3 * t.ms.decile[1], 1e3 * t.ms.decile[9]);
    }
    if (g) {
        tc_gpu_free(g, idx);
        tc_gpu_free(g, woff);
        tc_gpu_free(g, row0);
        tc_gpu_free(g, cols);
        tc_gpu_operands_free(g, &o);
        tc_gpu_close(g);
    }
    tc_fmt_free(fmt);
    if (tcf)
        tc_tcf_free(tcf);
    else
        tc_csr_free(a);
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: floor MATRIX\n");
        return 2;
    }
    tc_error err;
    if (run(argv[1], &err) != TC_OK) {
        fprintf(stderr, "floor: %s: %s\n", argv[1], err.msg);
        return 1;
    }
    return 0;
}
