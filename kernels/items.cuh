/*
 * items.cuh: balanced work items for the 16-row window kernels (brp.cu's
 * and rstile.cu's tc-item variants).
 *
 * Each window's work is cut into units of about the same cost (what a unit
 * is, each kernel says: a TC Block Group, a pair of bitmap blocks, a run of
 * residual nonzeros). A thread block of W warps takes one item, each warp
 * one unit, into a 16 x 32 tile of its own in shared memory: the units of
 * several short windows packed into one item, or a share of a long window's
 * units, in which case the window is "split" over several items that meet
 * in a workspace tile (tc_item_fixup). One launch then writes every row of
 * C, without zeroing C first and without atomics in C, and no thread block
 * waits on more than one unit's loads and the fix-up. Items are built once,
 * at prepare time, by tc_item_set_build.
 *
 * A unit's code is payload << 4 | residual << 3 | slot: the payload (the
 * kernel's: where its work starts), whether it is residual work, and its
 * window's place in the item (window w0 + slot).
 */
#ifndef TC_ITEMS_CUH
#define TC_ITEMS_CUH

#include <stdint.h>

#include "gpu_internal.h"

#define TC_ITEM_ROWS 16
/* Columns of C per thread block. */
#define TC_ITEM_PANEL 32
/* A tile's row pitch in shared memory: 36, fewer bank conflicts than 32. */
#define TC_ITEM_PITCH 36
/* Threads that store a tile, one float4 each. */
#define TC_ITEM_TILE_THREADS (TC_ITEM_ROWS * TC_ITEM_PANEL / 4)
/* The most windows packed into one item (each costs the block a pass over
   its tiles): 3 bits of a unit's code. */
#define TC_ITEM_MAX_WINDOWS 8
/* A kernel's item variants: "tc-item", "tc-item8" (4 and 8 warps per
   block, one unit per warp), "tc-item-long", "tc-item8-long" (the same, but
   the items of long windows give each warp up to TC_ITEM_MAX_SHARE units,
   so that fewer items go through the workspace): TC_ITEM_SETS item sets,
   in that order. */
#define TC_ITEM_SETS 4
#define TC_ITEM_MAX_SHARE 4

/* Item set i's warps per block, in the order above. */
static __host__ __device__ constexpr int tc_item_set_warps(int i)
{
    return i % 2 ? 8 : 4;
}

/* Thread blocks per SM of an item kernel of W warps, its launch bounds (so
   at most 64 registers a thread; 85 where LONG compiles the ranged loop
   in). */
static __host__ __device__ constexpr int tc_item_blocks_per_sm(int w, bool long_)
{
    return (long_ ? 24 : 32) / w;
}

/* One thread block's item, W warps. */
template <int W> struct tc_item {
    /* not ranged: each warp's unit code, -1 for none. ranged: the item's
       share of one window, in the kernel's own terms (its warps each take
       several of the window's units) */
    int64_t unit[W];
    int32_t w0;                 /* the first window */
    int16_t nwin;               /* windows w0 .. w0 + nwin - 1 */
    int16_t ranged;
    int32_t parts;              /* items of the window (ranged or split) */
    int32_t split;              /* parts > 1: the window's tile and counter */
};

static __host__ __device__ __forceinline__ int64_t tc_unit_code(int64_t payload, int residual)
{
    return payload << 4 | (int64_t)residual << 3;
}
static __host__ __device__ __forceinline__ int64_t tc_unit_payload(int64_t code)
{
    return code >> 4;
}
static __host__ __device__ __forceinline__ int tc_unit_residual(int64_t code)
{
    return (int)(code >> 3 & 1);
}

/* The items of one variant on the device, with the workspace of its split
   windows (a 16 x 32 tile and a counter per window and panel, zero between
   runs). */
typedef struct tc_item_set {
    int64_t nitem, nsplit;
    void *item;                 /* tc_item<W> */
    float *ws;
    int *counters;
} tc_item_set;

/* ------------------------------------------------------------------------ */
/* Device                                                                    */
/* ------------------------------------------------------------------------ */

/* The four B values of row `row` at columns c..c+3 (those inside B). */
static __device__ __forceinline__ float4 tc_load_b4(const float *__restrict__ B, int64_t row,
                                                    int32_t c, int32_t n, bool vec)
{
    const float *p = B + row * n + c;
    if (vec)    /* n % 4 == 0: the four are 16-byte aligned, all in or all out */
        return c < n ? __ldg((const float4 *)p) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    return make_float4(c < n ? __ldg(p) : 0.0f, c + 1 < n ? __ldg(p + 1) : 0.0f,
                       c + 2 < n ? __ldg(p + 2) : 0.0f, c + 3 < n ? __ldg(p + 3) : 0.0f);
}

/* C[row][c..c+3] += v, for the elements inside C: one vector atomic where
   the hardware has it (sm_90) and the four are aligned. */
static __device__ __forceinline__ void tc_add4(float *C, int64_t row, int32_t c, int32_t n,
                                               bool vec, float4 v)
{
    float *p = C + row * n + c;
#if __CUDA_ARCH__ >= 900
    if (vec) {
        if (c < n)
            atomicAdd((float4 *)p, v);
        return;
    }
#endif
    const float x[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int i = 0; i < 4; i++)
        if (c + i < n)
            atomicAdd(p + i, x[i]);
}

/* C[row][c..c+3] = v, for the elements inside C. */
static __device__ __forceinline__ void tc_store4(float *C, int64_t row, int32_t c, int32_t n,
                                                 bool vec, float4 v)
{
    float *p = C + row * n + c;
    if (vec) {
        if (c < n)
            *(float4 *)p = v;
        return;
    }
    const float x[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int i = 0; i < 4; i++)
        if (c + i < n)
            p[i] = x[i];
}

/* The end of an item of a split window, called by every thread of the
   block; those `active` hold elements [r][c4 .. c4 + 3] of the window's
   tile (sum: the item's part). The part is added into the window's
   workspace tile (this panel's), and the item that finds all the others
   done stores the tile into C and leaves the tile and the counter zero for
   the next run. Ordering: the block's adds come before its barrier, and
   one thread fences and counts after it (fence cumulativity in PTX's
   memory model: what the barrier ordered before the fence is visible at
   GPU scope before the count, as in CUTLASS's semaphore release), so the
   block waits on one fence instead of one per thread; the last item
   fences again before it reads the tile. */
static __device__ __forceinline__ void tc_item_fixup(float *tile, int *counter, int parts,
                                                     bool active, float4 sum, int r, int c4,
                                                     float *C, int64_t row, int32_t c0,
                                                     int32_t rows, int32_t n, bool vec,
                                                     int *s_last)
{
    float *t = tile + r * TC_ITEM_PANEL + c4;
    if (active)
        tc_add4(tile, r, c4, TC_ITEM_PANEL, true, sum);  /* 16-byte aligned */
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        *s_last = atomicAdd(counter, 1) == parts - 1;
    }
    __syncthreads();
    if (!*s_last || !active)
        return;
    __threadfence();
    const float4 total = __ldcg((const float4 *)t);
    if (row < rows)
        tc_store4(C, row, c0 + c4, n, vec, total);
    *(float4 *)t = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (threadIdx.x == 0)
        *counter = 0;
}

/* The end of every item, called by every thread of the block after each
   warp has put its unit's 16 x 32 tile in tile[warp] and slot[warp] says
   which of the item's windows it belongs to (-1: none): thread t <
   TC_ITEM_TILE_THREADS sums element [t / 8][4 (t % 8) .. + 3] of each
   window over that window's warps and stores it into C's columns
   [32 p, 32 p + 32), or adds it through tc_item_fixup when the window is
   split. (A kernel whose values were scaled scales its fragments back
   before they reach the tiles: tc_frag_scale.) */
template <int W>
static __device__ __forceinline__ void tc_item_finish(const tc_item<W> *it,
                                                      float (*tile)[TC_ITEM_ROWS][TC_ITEM_PITCH],
                                                      const int *slot, int *s_last, float *ws,
                                                      int *counters, int panels, int p,
                                                      float *C, int32_t rows, int32_t n)
{
    static_assert(W * 32 >= TC_ITEM_TILE_THREADS, "tc-item: a thread per float4 of a tile");
    const int tid = threadIdx.x;
    const bool active = tid < TC_ITEM_TILE_THREADS, vec = n % 4 == 0;
    const int r = tid / 8 % TC_ITEM_ROWS, c4 = 4 * (tid % 8);
    const int32_t c0 = p * TC_ITEM_PANEL, w0 = it->w0, nwin = it->nwin, parts = it->parts;
    for (int j = 0; j < nwin; j++) {
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int k = 0; k < W; k++)
            if (active && slot[k] == j) {
                const float4 t = *(const float4 *)&tile[k][r][c4];
                sum.x += t.x;
                sum.y += t.y;
                sum.z += t.z;
                sum.w += t.w;
            }
        const int64_t row = (int64_t)(w0 + j) * TC_ITEM_ROWS + r;
        if (parts > 1)
            tc_item_fixup(ws + ((int64_t)it->split * panels + p) * TC_ITEM_ROWS * TC_ITEM_PANEL,
                          counters + (int64_t)it->split * panels + p, parts, active, sum, r, c4,
                          C, row, c0, rows, n, vec, s_last);
        else if (active && row < rows)
            tc_store4(C, row, c0 + c4, n, vec, sum);
    }
}

/* ------------------------------------------------------------------------ */
/* Host                                                                      */
/* ------------------------------------------------------------------------ */

/* A new item starting at window w, of no units yet. */
template <int W>
static void tc_item_start(tc_item<W> *it, int64_t w, int64_t parts, int64_t split)
{
    for (int i = 0; i < W; i++)
        it->unit[i] = -1;
    it->w0 = (int32_t)w;
    it->nwin = 0;
    it->ranged = 0;
    it->parts = (int32_t)parts;
    it->split = (int32_t)split;
}

/* The items of nw windows (total units in all), W warps per block,
   uploaded with the workspace into s (panels: of 32 columns of C). `u`
   says what the units are:
   u.count(w), window w's units; u.code(w, i), its unit i's code (without the
   slot); where Units::ranged, u.range(it, w, lo, hi), with share > 1 only,
   makes `it` the ranged item of window w's units [lo, hi). A window of more than W units is cut
   into items of as equal shares as can be, of up to W units (one per warp)
   or, with share > 1, ranged items of up to W x share units; shorter
   windows are packed in order into items of up to W units and
   TC_ITEM_MAX_WINDOWS windows (a window of no units takes none, its item
   writes its rows' zeros). */
template <int W, class Units>
static tc_status tc_item_set_build(tc_gpu *g, tc_item_set *s, int64_t nw, int64_t total,
                                   int64_t panels, int share, const Units &u, tc_error *err)
{
    /* each window adds at most one item, or one per W of its units */
    const int64_t most = nw + (total + W - 1) / W;
    tc_item<W> *items = (tc_item<W> *)tc_malloc_array(most, sizeof *items, err);
    if (!items)
        return TC_ERR_NOMEM;
    int64_t k = -1, nsplit = 0;
    int fill = 0;   /* units in item k */
    for (int64_t w = 0; w < nw; w++) {
        const int64_t units = u.count(w);
        if (units <= W) {
            if (k < 0 || items[k].parts > 1 || items[k].ranged || fill + units > W ||
                items[k].nwin == TC_ITEM_MAX_WINDOWS) {
                tc_item_start(&items[++k], w, 1, -1);
                fill = 0;
            }
            const int64_t slot = w - items[k].w0;
            for (int64_t i = 0; i < units; i++)
                items[k].unit[fill++] = u.code(w, i) | slot;
            items[k].nwin++;
            continue;
        }
        const int64_t parts = (units + (int64_t)W * share - 1) / ((int64_t)W * share);
        for (int64_t j = 0; j < parts; j++) {
            const int64_t lo = j * units / parts, hi = (j + 1) * units / parts;
            tc_item<W> *it = &items[++k];
            tc_item_start(it, w, parts, parts > 1 ? nsplit : -1);
            it->nwin = 1;
            if constexpr (Units::ranged) {
                if (share > 1) {
                    it->ranged = 1;
                    u.range(it, w, lo, hi);
                    continue;
                }
            }
            for (int64_t i = lo; i < hi; i++)
                it->unit[i - lo] = u.code(w, i);
        }
        nsplit += parts > 1;
    }
    s->nitem = k + 1;
    s->nsplit = nsplit;
    const int64_t tiles = nsplit * panels, tile_bytes = TC_ITEM_ROWS * TC_ITEM_PANEL * 4;
    tc_status st = tc_gpu_upload_new(g, items, s->nitem * (int64_t)sizeof *items, &s->item, err);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, tiles * tile_bytes, (void **)&s->ws, err);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, tiles * 4, (void **)&s->counters, err);
    if (st == TC_OK && tiles)
        st = TC_CUDA(err, cudaMemsetAsync(s->ws, 0, (size_t)(tiles * tile_bytes), g->stream));
    if (st == TC_OK && tiles)
        st = TC_CUDA(err, cudaMemsetAsync(s->counters, 0, (size_t)tiles * 4, g->stream));
    free(items);
    return st;
}

/* The item sets of nw windows (see tc_item_set_build), in the order above:
   all TC_ITEM_SETS where Units::ranged (the kernel has -long variants),
   else the first two. The -long sets' share: as many units per warp as still
   leave about two waves of 32 warps per SM on the device (more mean fewer
   items, each of which waits on the workspace), between 1 and
   TC_ITEM_MAX_SHARE. */
template <class Units>
static tc_status tc_item_sets_build(tc_gpu *g, tc_item_set *sets, int64_t nw,
                                    int64_t panels, const Units &u, tc_error *err)
{
    int64_t units = 0;
    for (int64_t w = 0; w < nw; w++)
        units += u.count(w);
    const int64_t c = units * panels / ((int64_t)tc_gpu_get_info(g)->sm_count * 64);
    const int share = c < 1 ? 1 : c > TC_ITEM_MAX_SHARE ? TC_ITEM_MAX_SHARE : (int)c;
    tc_status st = tc_item_set_build<4>(g, &sets[0], nw, units, panels, 1, u, err);
    if (st == TC_OK)
        st = tc_item_set_build<8>(g, &sets[1], nw, units, panels, 1, u, err);
    if constexpr (Units::ranged) {
        if (st == TC_OK)
            st = tc_item_set_build<4>(g, &sets[2], nw, units, panels, share, u, err);
        if (st == TC_OK)
            st = tc_item_set_build<8>(g, &sets[3], nw, units, panels, share, u, err);
    }
    return st;
}

/* Frees the first nsets sets (those tc_item_sets_build filled). */
static void tc_item_sets_free(tc_gpu *g, tc_item_set *sets, int nsets)
{
    for (int i = 0; i < nsets; i++) {
        tc_gpu_free(g, sets[i].item);
        tc_gpu_free(g, sets[i].ws);
        tc_gpu_free(g, sets[i].counters);
    }
}

#endif
