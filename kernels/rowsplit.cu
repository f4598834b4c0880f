/*
 * rowsplit.cu: the CUDA-core kernel of the rowsplit format
 * (formats/rowsplit.h), for graphs whose tensor-core blocks are too sparse
 * to pay (one or two nonzeros per 16 x 8 block: dense random graphs,
 * power-law user-item graphs).
 *
 * Ideas from GE-SpMM (coalesced row caching, warp merging), Sputnik and
 * RoDe (cut long rows, pack short ones) and merge-based SpMM (even shares
 * of nonzeros + rows); the code is ours.
 *
 * Work: a group of L lanes (a cooperative-groups tile) takes one segment
 * and one panel of L * V columns of C; each lane owns V consecutive
 * columns (V = 4: a float4 of every row of B it gathers; V = 1: one
 * float). L is the smallest power of two that covers n / V, at most 32,
 * so at n = 32 a warp runs four segments at once (8 lanes each), at
 * n = 128 one, and past 128 the columns go over several panels (grid y).
 * For each 4 L nonzeros of a row the lanes load the columns and values
 * once, 16 bytes a lane, and pass them round through shared memory; then
 * every lane gathers its V columns of those rows of B, UNROLL loads in
 * flight at once, and adds them in float32 FMAs.
 *
 * Rows: a segment's whole rows are stored straight into C (an empty row
 * as zeros), each into the row of C the format says it is (`order` 1:
 * rows stored longest first, rsp_args.rows). A piece of a split row
 * stores its partial sum in a workspace slot, then its lane 0 counts it
 * in on the row's counter (one per row and panel); the piece that arrives
 * last adds the row's slots in piece order and stores the row, and sets
 * the counter back to 0 for the next run. So C is written once per
 * element, nothing zeroes it first, and the sums do not depend on the
 * order the pieces ran in.
 *
 * Precision: fp32 ("half": B in fp16), exact non-finite pattern: only the
 * matrix's own nonzeros are multiplied (no padding), so a NaN or Inf of B
 * reaches the rows that use that row of B and no other. For a B of
 * unknown range the plan measures max|B| (tc_kplan.b_max): the fp16
 * variants then convert B times the power of two that fp16 holds and store
 * C times its inverse (store_c), where the plan would otherwise copy B and
 * C through a scaled scratch each product (plan/execute.c).
 *
 * Variants (timed by tc_kernel_tune):
 *   "vec4"    V = 4: one 16-byte load per lane and nonzero; n a multiple of
 *             4 (select refuses others).
 *   "scalar"  V = 1: any n; four times the lanes per segment up to 32, so
 *             at n <= 32 a warp runs a quarter of "vec4"'s segments (at
 *             n = 32 one against four: no lane waits for the longest of
 *             four segments, which may win where segments' costs differ
 *             much, fill well below 1) for four times the load
 *             instructions; the fallback for n % 4 != 0.
 *   "vec4-prefetch"  vec4, each thread block first asking L2 for its
 *             share of B (prefetch.cuh), where B is at most a quarter of
 *             L2: B's DRAM reads overlap the chain of loads before the
 *             first gathers. 4-7% faster than vec4 on meshes and sparse
 *             graphs at n = 32 (products of 8-25 us), 1-3.5% slower on
 *             graphs whose rows of B are gathered many times each (H200,
 *             bench/NOTES.md, "B prefetched into L2"): so timed, not a
 *             rule.
 *   "half"    vec4's lanes, each gathering 8 bytes (4 halves) of a row of
 *             B converted to fp16 once per run (tc_gpu_to_half_rows, as
 *             rstile's "tc"; only the rows the matrix's nonzeros name,
 *             where it leaves some unused: upload_used; where those
 *             are more than L2 holds, the most used first, kept in L2,
 *             the others gathered evict-first; the kernel launched to
 *             start as the conversion ends, pdl.cuh); A's values and
 *             the sums stay fp32. Half the
 *             bytes a gather: where the kernel is at L2's bandwidth (a
 *             random graph at n = 128: 1.05 -> 1.42x cuSPARSE) it wins;
 *             where the conversion pass is a large share of a short
 *             product (a 1.6M-nonzero graph at n = 32) it loses (H100,
 *             bench/NOTES.md, "B gathered in fp16"). Its precision is fp16
 *             (variant_precision): tuning leaves it out under --accuracy
 *             fp32, and the plan's fp16 safeguards (B's range) apply when
 *             it runs. The fp16 variants are listed last, so that a plan
 *             that times nothing runs an fp32 variant.
 *   "lockstep-half"  half's gathers, but the work as runs of items (a
 *             whole row, or a piece of a split row) taken by a warp, its
 *             32 / L groups of lanes one item each, walking them side by
 *             side to the longest one's end: no row-end test a nonzero
 *             and every branch of the walk the warp's, for lanes idle
 *             past a short item's end. On random graphs of even degree
 *             (every item of a step one length) 22% fewer instructions
 *             than half and 4-18% faster; on power-law graphs no faster
 *             (H200, bench/NOTES.md, "Rows side by side"). Its fp32
 *             twin was slower than vec4 nearly everywhere, so there is
 *             none.
 *
 * Tuning: BLOCK_THREADS below and the format's parameter seg (the cost of
 * a segment: tcconv -p seg=N) are what to change first; UNROLL is tied to
 * walk's reads of shared memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cooperative_groups.h>
#include <cuda_fp16.h>

#include "fp16_scale.h"
#include "gpu_internal.h"
#include "pdl.cuh"
#include "prefetch.cuh"
#include "rowaddr.cuh"
#include "rowsplit.h"

namespace cg = cooperative_groups;

enum { V_VEC4, V_SCALAR, V_VEC4_PREFETCH, V_HALF, V_LOCK_HALF, NVARIANTS };
static const char *const variant_names[NVARIANTS] = { "vec4", "scalar", "vec4-prefetch", "half",
                                                      "lockstep-half" };
static const unsigned char variant_spreads[NVARIANTS] = { 0, 0, 0, 0, 0 };
static const char *const variant_precision[NVARIANTS] = { "fp32", "fp32", "fp32", "fp16",
                                                          "fp16" };
/* the fp16 variants convert B with the plan's scale (tc_kplan.b_max) */
static const unsigned char variant_scales_b[NVARIANTS] = { 0, 0, 0, 1, 1 };

/* Threads per thread block: 128 holds 4 segments at n = 128 and 16 at
   n = 32. Smaller blocks spread a graph that fills the GPU less than a
   wave or two more evenly over the SMs: 256 -> 128 gained 1-3% on all 16
   rows of the generated graphs (H100, bench/NOTES.md, "rowsplit"). */
#define BLOCK_THREADS 128
/* Thread blocks per SM the registers must allow (launch bounds): 8 of 128
   threads caps a thread at 64 registers, half of an SM's 2048 threads
   resident to hide the latency of the gathers of B. nvcc -Xptxas -v:
   no spills on sm_90, 8 bytes in the float4 instances on sm_80. Fewer
   blocks with more registers (more loads in flight per lane) lost on 14
   and 15 of 16 rows (H100, NOTES). */
#define MIN_BLOCKS_PER_SM 8
/* Loads of B rows each lane has in flight: more hides more of the L2 and
   DRAM latency, but a row with fewer nonzeros than UNROLL left runs the
   one-by-one tail, and registers grow by V + 2 per step. walk reads a
   step's indices from shared memory as one int4, so it is 4 there; 8 at
   5 blocks an SM lost (bench/NOTES.md). */
#define UNROLL 4

/* Everything a launch reads, passed by value. */
typedef struct rsp_args {
    const tc_rowsplit_seg *seg;
    int64_t nseg;
    const int64_t *row_ptr;
    const int32_t *rows;        /* the row of C of each stored row; NULL: the same */
    const int32_t *col;
    const float *val;           /* NULL for a pattern matrix (values 1) */
    const float *B;
    const __half *B16;          /* "half": B's rows that A uses in fp16, ld16
                                   halves a row, hubs first (col: rows of it) */
    int32_t ld16;
    int32_t hot;                /* HALF_HUBS: B16's rows gathered to stay in L2 */
    const float *b_max;         /* fp16: max|B| that B16 was scaled by (store_c) */
    float *C;
    float *part;                /* nslots rows of n: split rows' pieces */
    int *arrived;               /* per split row and panel: pieces done */
    int32_t n;
    int64_t b_prefetch;         /* "vec4-prefetch": B's bytes (prefetch.cuh); else 0 */
} rsp_args;

/* V consecutive floats: what a lane owns of a row. */
template <int V> struct lanevec;
template <> struct lanevec<4> {
    float4 x;
    __device__ void zero() { x = make_float4(0.f, 0.f, 0.f, 0.f); }
    __device__ void load(const float *p) { x = __ldg(reinterpret_cast<const float4 *>(p)); }
    __device__ void load_cg(const float *p) { x = __ldcg(reinterpret_cast<const float4 *>(p)); }
    /* four halves (8 bytes) of the fp16 B, as floats; `cold`: a row few
       nonzeros gather, loaded evict-first, so that it does not push the
       hubs' rows out of L2 */
    __device__ void load(const __half *p, bool cold)
    {
        const uint2 *q = reinterpret_cast<const uint2 *>(p);
        const uint2 raw = cold ? __ldcs(q) : __ldg(q);
        const float2 lo = __half22float2(*reinterpret_cast<const __half2 *>(&raw.x));
        const float2 hi = __half22float2(*reinterpret_cast<const __half2 *>(&raw.y));
        x = make_float4(lo.x, lo.y, hi.x, hi.y);
    }
    __device__ void fma(float v, const lanevec &b)
    {
        x.x = fmaf(v, b.x.x, x.x);
        x.y = fmaf(v, b.x.y, x.y);
        x.z = fmaf(v, b.x.z, x.z);
        x.w = fmaf(v, b.x.w, x.w);
    }
    __device__ void add(const lanevec &b)
    {
        x.x += b.x.x;
        x.y += b.x.y;
        x.z += b.x.z;
        x.w += b.x.w;
    }
    /* C is written once and not read again: streaming, so that it does not
       push rows of B out of L2 */
    __device__ void store_cs(float *p) const { __stcs(reinterpret_cast<float4 *>(p), x); }
    __device__ void store_cg(float *p) const { __stcg(reinterpret_cast<float4 *>(p), x); }
};
template <> struct lanevec<1> {
    float x;
    __device__ void zero() { x = 0.f; }
    __device__ void load(const float *p) { x = __ldg(p); }
    __device__ void load_cg(const float *p) { x = __ldcg(p); }
    __device__ void fma(float v, const lanevec &b) { x = fmaf(v, b.x, x); }
    __device__ void add(const lanevec &b) { x += b.x; }
    __device__ void store_cs(float *p) const { __stcs(p, x); }
    __device__ void store_cg(float *p) const { __stcg(p, x); }
};

/* Where a group of lanes is in a segment's rows (the same in every lane):
   acc belongs to row r, which ends before nonzero row_end. The ends of
   rows rbase .. rbase + L - 1 and their rows of C (rows past the
   segment's: never reached) are in the tile's slots of row_ends and
   row_outs, one a lane, so that moving to the next row and storing one
   read shared memory, not global memory. (They were in the lanes'
   registers, passed by shuffles in the divergent code where a row ends;
   shared memory is 3.1% faster in geometric mean, up to 27% on
   HEP-th-new at n = 32, H200, bench/NOTES.md, "The row window through
   shared memory".) A piece has one row, ending at its last nonzero.
   Nonzeros count from the segment's first: a segment holds at most seg
   (<= 65536), so 32 bits do, and the registers they save are what keeps
   the kernel near its launch bounds (MIN_BLOCKS_PER_SM). */
typedef struct rsp_rows {
    int32_t r, rbase, rend;
    int32_t row_end;
} rsp_rows;
/* Each tile's row window, one slot a thread: the end of a row, in the
   segment's nonzeros, and its row of C (with rsp_args.rows). */
__shared__ int32_t row_ends[BLOCK_THREADS], row_outs[BLOCK_THREADS];

/* The first thread of the tile in which this thread is lane `lane`. */
static __device__ __forceinline__ int tile_base(unsigned lane)
{
    return (int)threadIdx.x - (int)lane;
}

/* The slot of the row window that holds row w.r, for lane `lane`. */
static __device__ __forceinline__ int window_slot(const rsp_rows &w, unsigned lane)
{
    return tile_base(lane) + w.r - w.rbase;
}

/* The row of C that stored row `row` is. */
static __device__ __forceinline__ int32_t out_row(const rsp_args &a, int32_t row)
{
    return a.rows ? __ldg(a.rows + row) : row;
}

/* The ends and rows of C of rows rbase .. rbase + L - 1 into the tile's
   slots. */
template <int L>
static __device__ __forceinline__ void row_window(const rsp_args &a, const tc_rowsplit_seg &g,
                                                  const rsp_rows &w,
                                                  const cg::thread_block_tile<L> &tile)
{
    const int32_t row = w.rbase + (int32_t)tile.thread_rank();
    const bool in = row < g.row0 + g.nrows;
    const int32_t end = in ? (int32_t)(__ldg(a.row_ptr + row + 1) - g.nz0) : INT32_MAX;
    /* a.rows tested here as well as in out_row: without it each kernel's
       SASS grows by 50-70 instructions (nvcc 13, sm_90); the slot is read
       only with a.rows */
    const int32_t out = in && a.rows ? out_row(a, row) : 0;
    tile.sync();    /* the tile has read the last window */
    row_ends[threadIdx.x] = end;
    row_outs[threadIdx.x] = out;
    tile.sync();
}

template <int L>
static __device__ __forceinline__ rsp_rows rows_start(const rsp_args &a, const tc_rowsplit_seg &g,
                                                     const cg::thread_block_tile<L> &tile)
{
    rsp_rows w = { g.row0, g.row0, g.row0 + g.nrows, (int32_t)(g.nz1 - g.nz0) };
    if (g.slot < 0) {
        row_window<L>(a, g, w, tile);
        w.row_end = row_ends[window_slot(w, tile.thread_rank())];
    }
    return w;
}

/* What the kernels' template parameter H says B is read as: float32 (0),
   the fp16 copy B16 ("half"), or B16 where it overflows the L2 share
   (upload_used): rows from a.hot on gathered evict-first, A read
   evict-first. Two fp16 instances, so that where B16 fits no gather pays
   the test (1-2.5% on three shared graphs at n = 128 with it, H200,
   bench/NOTES.md, "The hubs of B kept in L2"). Either with SCALED: B16 is
   B times 2^s, s from a.b_max (store_c). Instances of their own again:
   the test at each store cost the half kernel 1-2% on shared graphs at
   n = 128 where nothing is scaled (H200, bench/NOTES.md, "fp16
   safeguards at their cost"). */
enum { HALF = 1, HALF_HUBS = 2, SCALED = 4 };

/* acc into C at p: with SCALED (a half instance: 4 columns a lane), times
   2^-s, where B16 is B times 2^s (tc_gpu_to_half_rows): exact, as the
   plan's scaled copies were (plan/execute.c). */
template <int H, int V>
static __device__ __forceinline__ void store_c(const rsp_args &a, float *p, lanevec<V> acc)
{
    if constexpr ((H & SCALED) != 0)
        tc_fp16_unscale_c<4>(&acc.x.x, a.b_max);
    acc.store_cs(p);
}

/* Row w.r is complete (whole rows only): stores it, starts the next. */
template <int L, int V, int H>
static __device__ __forceinline__ void flush_row(const rsp_args &a, const tc_rowsplit_seg &g,
                                                 rsp_rows &w, int32_t col0, bool active,
                                                 lanevec<V> &acc,
                                                 const cg::thread_block_tile<L> &tile)
{
    const int32_t out = a.rows ? row_outs[window_slot(w, tile.thread_rank())] : w.r;
    if (active)
        store_c<H>(a, a.C + tc_row_elems(out, a.n) + col0, acc);
    acc.zero();
    if (++w.r - w.rbase == L) {
        w.rbase = w.r;
        row_window<L>(a, g, w, tile);
    }
    w.row_end = row_ends[window_slot(w, tile.thread_rank())];
}

/* This lane's V columns of row c of B, ld elements a row: from Bl, this
   lane's columns of the float32 B's row 0, or with H from Bh, the same of
   its fp16 copy, whose rows from `hot` on are, with HALF_HUBS, the columns
   of few nonzeros. */
template <int H, int V>
static __device__ __forceinline__ void gather(lanevec<V> &b, const float *Bl, const __half *Bh,
                                              int32_t ld, int32_t hot, int32_t c)
{
    if constexpr (H)
        b.load(Bh + tc_row_elems(c, ld), (H & HALF_HUBS) && c >= hot);
    else
        b.load(Bl + tc_row_elems(c, ld));
}

/* Nonzero k's column and value (val NULL: a pattern, 1) where `in`, else
   0 and 0: each lane's share of lockstep's chunk of L, loaded once,
   coalesced, and passed round by shuffles. */
static __device__ __forceinline__ void load_chunk(const int32_t *col, const float *val, int32_t k,
                                                  bool in, int32_t &c, float &v)
{
    c = 0;
    v = 0.f;
    if (in) {
        c = __ldg(col + k);
        v = val ? __ldg(val + k) : 1.f;
    }
}

/* Elements the device's columns and values hold past the last nonzero
   (upload), so that a chunk's last lane never reads past them. */
#define CHUNK_PAD 3

/* 16 bytes of A, read once: with HALF_HUBS (L2 is to keep B16's hubs)
   evict-first, 1.2% faster on R-MAT 2^22 at n = 128 (H200, bench/NOTES.md,
   "The hubs of B kept in L2"); elsewhere A stays in L2 for the next
   product. */
template <int H, typename T> static __device__ __forceinline__ T load_a(const T *p)
{
    if constexpr ((H & HALF_HUBS) != 0)
        return __ldcs(p);
    return __ldg(p);
}

/* Nonzeros k .. k + 3 (k + the segment's first a multiple of 4: 16-byte
   aligned) where `in`, else zeros: a lane's share of a chunk of 4 L, as
   one 16-byte load of columns and one of values; what it reads past the
   segment (CHUNK_PAD past the matrix at most) is never used. */
template <int H>
static __device__ __forceinline__ void load_chunk4(const int32_t *col, const float *val, int32_t k,
                                                   bool in, int4 &c, float4 &v)
{
    c = make_int4(0, 0, 0, 0);
    v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (in) {
        c = load_a<H>(reinterpret_cast<const int4 *>(col + k));
        v = val ? load_a<H>(reinterpret_cast<const float4 *>(val + k))
                : make_float4(1.f, 1.f, 1.f, 1.f);
    }
}

/* The segment's nonzeros times B, for this lane's V columns
   from col0 (active: inside n), row by row: 4 L column indices and values
   loaded at a time, 16 bytes a lane, whatever rows they belong to, and
   UNROLL rows of B gathered at once; a row is stored as soon as its last
   nonzero is in (empty rows as zeros on the way). At n = 32 a chunk of 32
   takes one or two L2 requests where 4-byte loads of 8 took eight: on
   R-MAT 2^22 (L2 at 84% of its peak) 10% fewer requests, 6.7% less time
   (H200, bench/NOTES.md, "Chunks in 16-byte loads").
   The chunk goes round the tile through the block's shared memory (each
   lane's four slots in its tile's region), and UNROLL (4) indices and
   values are read back as two 16-byte broadcasts (shuffles of the 8-lane
   tiles, which run divergent, each paid ptxas's convergence check): 1.2%
   faster in geometric mean over 33 (matrix, n) pairs, none slower by
   more than 0.3%, though ncu counted the same instructions (H200,
   bench/NOTES.md, "The chunk through shared memory"). */
template <int L, int V, int H>
static __device__ __forceinline__ void walk(const rsp_args &a, const tc_rowsplit_seg &g,
                                            int32_t col0, bool active, rsp_rows &w,
                                            lanevec<V> &acc,
                                            const cg::thread_block_tile<L> &tile)
{
    const int lane = (int)tile.thread_rank();
    const int32_t *col = a.col + g.nz0;
    const float *val = a.val ? a.val + g.nz0 : NULL;
    const int32_t len = (int32_t)(g.nz1 - g.nz0);
    /* Every lane gathers and adds, one past n (not active) its rows' first
       columns into a sum that is never stored: no branch around a step's
       gathers. 1% faster in geometric mean over 40 (graph, n, variant)
       runs, half at n = 128 by 2%, none slower by more than 1.4% (H200,
       bench/NOTES.md, "No branch around the gathers"). */
    const int32_t colg = active ? col0 : 0;
    const float *Bl = a.B + colg;
    const __half *Bh = H ? a.B16 + colg : NULL;
    const int32_t ld = H ? a.ld16 : a.n;
    static_assert(UNROLL == 4, "the chunk is read from shared memory 4 at a time");
    /* A tile's chunk at tile_base / L * (4 L + 4): the 16 bytes between
       regions put the four 8-lane tiles of a warp on different banks when
       they read their steps (4 L apart, all four would be on the same 4). */
    constexpr int region = 4 * L + 4;
    __shared__ __align__(16) int32_t s_col[BLOCK_THREADS / L * region];
    __shared__ __align__(16) float s_val[BLOCK_THREADS / L * region];
    const int base = tile_base(lane) / L * region;
    /* The segment starts `first` nonzeros past a 16-byte boundary: the
       first chunk is loaded from the boundary, its slots before the
       segment dropped as the lanes store it (one by one there). */
    const int32_t first = (int32_t)(g.nz0 & 3);
    for (int32_t k0 = 0; k0 < len;) {
        const int32_t skip = k0 == 0 ? first : 0;
        const int m = min(4 * L - skip, len - k0);
        int4 c;
        float4 v;
        load_chunk4<H>(col, val, k0 - skip + 4 * lane, 4 * lane < m + skip, c, v);
        tile.sync();    /* the tile has read the last chunk */
        if (skip == 0) {
            *reinterpret_cast<int4 *>(s_col + base + 4 * lane) = c;
            *reinterpret_cast<float4 *>(s_val + base + 4 * lane) = v;
        } else {
            const int32_t cs[4] = { c.x, c.y, c.z, c.w };
            const float vs[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int e = 4 * lane + i - skip;
                if (e >= 0) {
                    s_col[base + e] = cs[i];
                    s_val[base + e] = vs[i];
                }
            }
        }
        tile.sync();
        int j = 0;
        for (; j + UNROLL <= m; j += UNROLL) {
            lanevec<V> b[UNROLL];
            /* base + j is a multiple of 4: 16-byte reads */
            const int4 c4 = *reinterpret_cast<const int4 *>(s_col + base + j);
            const float4 v4 = *reinterpret_cast<const float4 *>(s_val + base + j);
            const int32_t cj[UNROLL] = { c4.x, c4.y, c4.z, c4.w };
            const float vj[UNROLL] = { v4.x, v4.y, v4.z, v4.w };
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                gather<H, V>(b[u], Bl, Bh, ld, a.hot, cj[u]);
            /* Where no row of the lanes running together ends inside the
               step, the FMAs alone, with no row-end test a nonzero. Voted,
               so that the warp takes one side: with each group's own test
               a warp whose groups disagree runs both (0.7% at vec4 n = 32
               against the vote's 1.3%). With the vote: ncu 12-14% fewer
               instructions at n = 32, and in geometric mean 1.3% faster
               for vec4 at n = 32, 4.3% for half at 128, 8.7% for scalar
               at 32 (H200, bench/NOTES.md, "One row-end test a step,
               voted"). */
            if (__all_sync(__activemask(), k0 + j + UNROLL - 1 < w.row_end)) {
#pragma unroll
                for (int u = 0; u < UNROLL; u++)
                    acc.fma(vj[u], b[u]);
                continue;
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                while (k0 + j + u == w.row_end)
                    flush_row<L, V, H>(a, g, w, col0, active, acc, tile);
                acc.fma(vj[u], b[u]);
            }
        }
        for (; j < m; j++) {
            const int32_t cj = s_col[base + j];
            const float vj = s_val[base + j];
            lanevec<V> b;
            gather<H, V>(b, Bl, Bh, ld, a.hot, cj);
            while (k0 + j == w.row_end)
                flush_row<L, V, H>(a, g, w, col0, active, acc, tile);
            acc.fma(vj, b);
        }
        k0 += m;
    }
}

/* A piece of a split row: its partial into its slot; the last piece of the
   row (for this panel) to arrive adds the slots in order and stores C. */
template <int L, int V, int H>
static __device__ __forceinline__ void finish_piece(const rsp_args &a,
                                                    const cg::thread_block_tile<L> &tile,
                                                    const tc_rowsplit_seg &g, int32_t col0,
                                                    bool active, const lanevec<V> &acc)
{
    if (active)
        acc.store_cg(a.part + (int64_t)g.slot * a.n + col0);
    __threadfence();
    tile.sync();
    int *counter = a.arrived + (int64_t)g.counter * gridDim.y + blockIdx.y;
    int last = 0;
    if (tile.thread_rank() == 0)
        last = atomicAdd(counter, 1) == g.parts - 1;
    if (!tile.shfl(last, 0))
        return;
    __threadfence();
    if (active) {
        lanevec<V> sum, p;
        sum.zero();
        for (int32_t s = g.first; s < g.first + g.parts; s++) {
            p.load_cg(a.part + (int64_t)s * a.n + col0);
            sum.add(p);
        }
        store_c<H>(a, a.C + tc_row_elems(out_row(a, g.row0), a.n) + col0, sum);
    }
    if (tile.thread_rank() == 0)
        *counter = 0;
}

template <int L, int V, int H>
__global__ void __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS_PER_SM) rowsplit_kernel(rsp_args a)
{
    const cg::thread_block_tile<L> tile = cg::tiled_partition<L>(cg::this_thread_block());
    if constexpr (H == 0)
        if (a.b_prefetch > 0)
            tc_prefetch_l2(a.B, a.b_prefetch);
    const int64_t s = ((int64_t)blockIdx.x * BLOCK_THREADS + threadIdx.x) / L;
    if (s >= a.nseg)
        return;                 /* the whole tile: s is the tile's */
    const int32_t col0 = ((int32_t)blockIdx.y * L + (int32_t)tile.thread_rank()) * V;
    const bool active = col0 < a.n;     /* V = 4: n % 4 == 0, so col0 + 3 < n */
    const tc_rowsplit_seg g = a.seg[s];
    rsp_rows w = rows_start<L>(a, g, tile);
    /* fp16: launched as a dependent of the conversion of B (rsp_run), so
       that its segment and first rows are read while that ends; B16, C and
       the workspace only past here */
    if constexpr (H != 0)
        tc_pdl_wait();
    lanevec<V> acc;
    acc.zero();
    walk<L, V, H>(a, g, col0, active, w, acc, tile);
    if (g.slot >= 0)
        finish_piece<L, V, H>(a, tile, g, col0, active, acc);
    else
        while (w.r < w.rend)    /* the last row, and empty rows after it */
            flush_row<L, V, H>(a, g, w, col0, active, acc, tile);
}

/* "lockstep": the segments as items in runs (rowsplit.h, tc_rowsplit_runs). */
typedef struct rsp_runs {
    const int32_t *item;
    const int64_t *run_start;
    int64_t nruns;
} rsp_runs;

#define FULL_WARP 0xffffffffu

/* Run `run` by the whole warp: its G groups of L lanes take its items G
   at a time, one each, and walk them side by side to the longest one's
   end (the others' lanes gather nothing past their own), so that the walk's
   branches are the warp's and no nonzero tests for a row's end; when the
   step ends each group stores its row, or its piece as finish_piece does.
   Rows longest first make the G rows of a step about as long as each
   other, and a split row's pieces are. */
template <int L, int V, int H>
static __device__ __forceinline__ void lockstep_run(const rsp_args &a, const rsp_runs &r,
                                                    int64_t run)
{
    constexpr int G = 32 / L;
    const int lane = (int)(threadIdx.x % L);
    const int grp = (int)(threadIdx.x % 32) / L;
    const int32_t col0 = ((int32_t)blockIdx.y * L + lane) * V;
    const bool active = col0 < a.n;
    const float *Bl = a.B + col0;
    const __half *Bh = H ? a.B16 + col0 : NULL;
    const int32_t ld = H ? a.ld16 : a.n;
    const int64_t e1 = __ldg(r.run_start + run + 1);
    for (int64_t e = __ldg(r.run_start + run) + grp; e - grp < e1; e += G) {
        const bool valid = e < e1;
        int32_t item = 0, len = 0;
        int64_t nz0 = 0;
        if (valid) {
            item = __ldg(r.item + e);
            if (item >= 0) {
                nz0 = __ldg(a.row_ptr + item);
                len = (int32_t)(__ldg(a.row_ptr + item + 1) - nz0);
            } else {
                nz0 = a.seg[-(int64_t)item - 1].nz0;
                len = (int32_t)(a.seg[-(int64_t)item - 1].nz1 - nz0);
            }
        }
        const int32_t steps = G > 1 ? __reduce_max_sync(FULL_WARP, len) : len;
        const int32_t *col = a.col + nz0;
        const float *val = a.val ? a.val + nz0 : NULL;
        lanevec<V> acc;
        acc.zero();
        for (int32_t k0 = 0; k0 < steps; k0 += L) {
            const int m = min(L, len - k0);     /* this group's; <= 0 past its row */
            int32_t c;
            float v;
            load_chunk(col, val, k0 + lane, lane < m, c, v);
            const int mm = min(L, steps - k0);  /* the warp's */
            int j = 0;
            for (; j + UNROLL <= mm; j += UNROLL) {
                int32_t cj[UNROLL];
                float vj[UNROLL];
                lanevec<V> b[UNROLL];
#pragma unroll
                for (int u = 0; u < UNROLL; u++) {
                    cj[u] = __shfl_sync(FULL_WARP, c, j + u, L);
                    vj[u] = __shfl_sync(FULL_WARP, v, j + u, L);
                }
#pragma unroll
                for (int u = 0; u < UNROLL; u++)
                    if (active && j + u < m)
                        gather<H, V>(b[u], Bl, Bh, ld, a.hot, cj[u]);
#pragma unroll
                for (int u = 0; u < UNROLL; u++)
                    if (active && j + u < m)
                        acc.fma(vj[u], b[u]);
            }
            for (; j < mm; j++) {
                const int32_t cj = __shfl_sync(FULL_WARP, c, j, L);
                const float vj = __shfl_sync(FULL_WARP, v, j, L);
                if (active && j < m) {
                    lanevec<V> b;
                    gather<H, V>(b, Bl, Bh, ld, a.hot, cj);
                    acc.fma(vj, b);
                }
            }
        }
        if (valid && item >= 0 && active)
            store_c<H>(a, a.C + tc_row_elems(out_row(a, item), a.n) + col0, acc);
        if (valid && item < 0) {
            const cg::thread_block_tile<L> tile =
                cg::tiled_partition<L>(cg::this_thread_block());
            finish_piece<L, V, H>(a, tile, a.seg[-(int64_t)item - 1], col0, active, acc);
        }
    }
}

template <int L, int V, int H>
__global__ void __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS_PER_SM)
    rowsplit_lockstep_kernel(rsp_args a, rsp_runs r)
{
    const int64_t run = ((int64_t)blockIdx.x * BLOCK_THREADS + threadIdx.x) / 32;
    if (run < r.nruns)          /* the whole warp: run is the warp's */
        lockstep_run<L, V, H>(a, r, run);
}

/* ---- host side ---- */

typedef struct rsp_plan {
    tc_kplan base;
    tc_rowsplit_seg *seg;
    int64_t nseg;
    int64_t *row_ptr;
    int32_t *rows;              /* order 1: each stored row's row of C */
    int32_t *col;
    float *val;
    float *part;
    int *arrived;
    int64_t nnz;
    __half *B16;                /* "half": B converted each run; allocated when
                                   the variant is first selected */
    int64_t ld16;               /* its row length: n rounded up to 8 */
    int32_t nused;              /* the rows of B "half" converts: the
                                   columns A uses (cols: all of B) */
    int32_t *used;              /* which, most used first, the rows of B16
                                   (NULL: B's first nused rows, in order) */
    int32_t *rank;              /* with used: each column's row of B16, until
                                   col16 is made from it */
    int32_t *col16;             /* with used: A's columns as rows of B16,
                                   made when "half" is first selected */
    int32_t hot;                /* B16's rows that fit the L2 share (HOT_SHARE) */
    int32_t *item;              /* "lockstep": the segments' items in runs */
    int64_t *run_start;         /* (tc_rowsplit_runs) */
    int64_t nruns;
    char no_lockstep[160];      /* why they could not be laid out ("": they were) */
} rsp_plan;

static bool is_half(int v)
{
    return v == V_HALF || v == V_LOCK_HALF;
}

static bool is_lockstep(int v)
{
    return v == V_LOCK_HALF;
}

/* Columns per lane of variant v. */
static int lane_cols(int v)
{
    return v == V_SCALAR ? 1 : 4;
}

/* Lanes per segment: the least power of two covering n / V, at most 32. */
static int tile_lanes(int32_t n, int v)
{
    const int32_t need = (n + lane_cols(v) - 1) / lane_cols(v);
    int l = 1;
    while (l < 32 && l < need)
        l *= 2;
    return l;
}

static int64_t panels(int32_t n, int v)
{
    const int64_t w = (int64_t)tile_lanes(n, v) * lane_cols(v);
    return (n + w - 1) / w;
}

typedef void (*rsp_kernel_fn)(rsp_args);
typedef void (*rsp_lockstep_fn)(rsp_args, rsp_runs);

/* The kernels' instances, named by lanes a row (L) and what B is read as
   (H): the walk of V columns a lane, and lockstep's (V = 4, fp16 only). */
template <int V> struct walk_instances {
    typedef rsp_kernel_fn fn;
    template <int L, int H> static fn at() { return rowsplit_kernel<L, V, H>; }
};
struct lockstep_instances {
    typedef rsp_lockstep_fn fn;
    template <int L, int H> static fn at() { return rowsplit_lockstep_kernel<L, 4, H>; }
};

/* K's instance for `lanes` lanes a row. */
template <typename K, int H> static typename K::fn at_lanes(int lanes)
{
    switch (lanes) {
    case 1: return K::template at<1, H>();
    case 2: return K::template at<2, H>();
    case 4: return K::template at<4, H>();
    case 8: return K::template at<8, H>();
    case 16: return K::template at<16, H>();
    default: return K::template at<32, H>();
    }
}

/* The same for fp16 instance h: HALF or HALF_HUBS, with or without
   SCALED. */
template <typename K> static typename K::fn at_half(int lanes, int h)
{
    switch (h) {
    case HALF: return at_lanes<K, HALF>(lanes);
    case HALF_HUBS: return at_lanes<K, HALF_HUBS>(lanes);
    case HALF | SCALED: return at_lanes<K, HALF | SCALED>(lanes);
    default: return at_lanes<K, HALF_HUBS | SCALED>(lanes);
    }
}

/* The instance variant v runs at n (not "lockstep"); h, for "half" (at_half). */
static rsp_kernel_fn kernel_of(int32_t n, int v, int h)
{
    const int lanes = tile_lanes(n, v);
    if (v == V_HALF)
        return at_half<walk_instances<4>>(lanes, h);
    return v == V_VEC4 || v == V_VEC4_PREFETCH ? at_lanes<walk_instances<4>, 0>(lanes)
                       : at_lanes<walk_instances<1>, 0>(lanes);
}

/* B's bytes: the matrix's columns x n floats. */
static int64_t b_bytes(const tc_kplan *base)
{
    return (int64_t)base->cols * base->n * (int64_t)sizeof(float);
}

static int64_t blocks_of(int64_t items, int lanes)
{
    return (items * lanes + BLOCK_THREADS - 1) / BLOCK_THREADS;
}

/* A segment a group of lanes, or a run a warp ("lockstep"). */
static int64_t grid_x(const rsp_plan *p, int v)
{
    if (is_lockstep(v))
        return blocks_of(p->nruns, 32);
    return blocks_of(p->nseg, tile_lanes(p->base.n, v));
}

static tc_status rsp_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    rsp_plan *p = (rsp_plan *)base;
    const int v = base->variant;
    const int32_t *col = is_half(v) && p->col16 ? p->col16 : p->col;
    const float *b_max = base->b_max;   /* fp16 variants only (kernels.h) */
    /* the fp16 instance: hubs where B16 overflows the L2 share, scaled
       where the plan gives max|B| */
    const int h = (p->hot < p->nused ? HALF_HUBS : HALF) | (b_max ? SCALED : 0);
    const rsp_args a = { p->seg, p->nseg, p->row_ptr, p->rows, col, p->val, B, p->B16,
                        (int32_t)p->ld16 /* rsp_select: it fits */, p->hot, b_max, C,
                        p->part, p->arrived, base->n, v == V_VEC4_PREFETCH ? b_bytes(base) : 0 };
    const dim3 grid((unsigned)grid_x(p, v), (unsigned)panels(base->n, v));
    if (p->nseg == 0)
        return TC_OK;
    if (is_half(v)) {
        tc_status st = tc_gpu_to_half_rows(base->gpu, B, p->B16, p->used, p->nused, base->n,
                                           p->ld16, b_max, err);
        if (st != TC_OK)
            return st;
    }
    if (is_lockstep(v)) {
        const rsp_runs r = { p->item, p->run_start, p->nruns };
        const int lanes = tile_lanes(base->n, v);
        at_half<lockstep_instances>(lanes, h)<<<grid, BLOCK_THREADS, 0, base->gpu->stream>>>(a, r);
        return TC_LAUNCHED(err, "rowsplit_lockstep_kernel");
    }
    /* "half" starts as its conversion ends (pdl.cuh): 1-2.7 us off
       products of 8-820 us, 6% in geometric mean over 18 and 1% slower on
       one (H200, bench/NOTES.md, "The half kernel launched as the
       conversion ends") */
    if (is_half(v))
        return tc_launch_dependent(base->gpu, "rowsplit_kernel", kernel_of(base->n, v, h), grid,
                                   dim3(BLOCK_THREADS), err, a);
    kernel_of(base->n, v, h)<<<grid, BLOCK_THREADS, 0, base->gpu->stream>>>(a);
    return TC_LAUNCHED(err, "rowsplit_kernel");
}

static void rsp_free(tc_kplan *base)
{
    rsp_plan *p = (rsp_plan *)base;
    if (!p)
        return;
    tc_gpu *g = p->base.gpu;
    tc_gpu_free(g, p->seg);
    tc_gpu_free(g, p->row_ptr);
    tc_gpu_free(g, p->rows);
    tc_gpu_free(g, p->col);
    tc_gpu_free(g, p->val);
    tc_gpu_free(g, p->part);
    tc_gpu_free(g, p->arrived);
    tc_gpu_free(g, p->B16);
    tc_gpu_free(g, p->used);
    tc_gpu_free(g, p->rank);
    tc_gpu_free(g, p->col16);
    tc_gpu_free(g, p->item);
    tc_gpu_free(g, p->run_start);
    free(p);
}

/* "lockstep"'s items and runs, for warps of groups of lanes as wide as
   the float4 variants' at this n (4-5% more device memory than the
   format's arrays on a power-law graph). Where they cannot be laid out
   (segments past 2^31, no host or device memory) lockstep-half is a
   variant that cannot run here, not an error: the reason is kept for
   rsp_select, a failed cudaMalloc's error taken back. */
static void upload_runs(rsp_plan *p, const tc_rowsplit *m)
{
    tc_gpu *g = p->base.gpu;
    tc_rowsplit_run_list r;
    tc_error err;
    tc_status st = tc_rowsplit_runs(m, 32 / tile_lanes(p->base.n, V_LOCK_HALF), &r, &err);
    if (st == TC_OK && r.nitems)
        st = tc_gpu_upload_new(g, r.item, r.nitems * 4, (void **)&p->item, &err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, r.run_start, (r.nruns + 1) * 8, (void **)&p->run_start, &err);
    p->nruns = r.nruns;
    tc_rowsplit_runs_free(&r);
    if (st == TC_OK)
        return;
    (void)cudaGetLastError();
    tc_gpu_free(g, p->item);
    tc_gpu_free(g, p->run_start);
    p->item = NULL;
    p->run_start = NULL;
    p->nruns = 0;
    snprintf(p->no_lockstep, sizeof p->no_lockstep, "%.150s", err.msg);
}

/* The share of L2 that B16's hubs take: half of it. H100's L2 is two
   halves that each keep their own copy of what the SMs of the other read,
   and ncu's DRAM bytes on the R-MATs matched an LRU of half the L2 best
   (bench/NOTES.md, "The model's L2: 25 MB by default"); on R-MAT 2^22 at
   n = 128 a quarter, a half and three quarters of the H200's L2 gave
   3.72, 3.61 and 3.63 ms, and at n = 32 those and the whole L2 1.195,
   1.171, 1.187 and 1.197 ms ("The hubs of B kept in L2"). */
#define HOT_SHARE 2

static int ascending(const void *x, const void *y)
{
    const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* The rows of B that "half" converts: where A leaves columns unused, or
   where they are more than L2 holds, the columns A uses, and B16 those
   rows only (row k of B16 is B's row used[k], col16 A's columns as such
   rows). Where they are more than the L2 share, the most used first: the
   first `hot` rows, the hubs, fill the share, their gathers load
   normally, the others evict-first (lanevec<4>::load), so that a row of B
   that one or two nonzeros gather does not push a hub out. Where they
   fit, in B's own order. On an R-MAT of 2^22 rows (Graph500's
   parameters) 52% of the columns are empty: converting all of B was
   about a fifth of the product's time at n = 128 (bench/NOTES.md, "Only
   the rows of B that A uses"); and there the hubs kept in L2 took the
   kernel's DRAM reads from 7.03 to 5.69 GB, the product 3.3% faster, 4.5%
   with A read evict-first too (load_a; H200, "The hubs of B kept in
   L2"). Otherwise B16 is all of B in order, gathered by col. */
static tc_status upload_used(rsp_plan *p, const tc_rowsplit *m, tc_error *err)
{
    int32_t *list = NULL, *rank = NULL;
    tc_status st = tc_csr_used_cols(m->a, &list, &p->nused, err);
    const int64_t share = p->base.gpu->info.l2_bytes / HOT_SHARE / (p->ld16 * 2);
    p->hot = (int32_t)(share < p->nused ? share : p->nused);
    const int32_t cols = m->a->cols;
    if (st == TC_OK && p->hot == p->nused && p->nused > 1)
        qsort(list, (size_t)p->nused, sizeof *list, ascending);
    if (st == TC_OK && p->nused > 0 && (p->nused < cols || p->hot < p->nused)) {
        /* an unused column's entry (0) is never read: col16 maps A's */
        rank = (int32_t *)tc_calloc_array(cols, sizeof *rank, err);
        st = rank ? TC_OK : TC_ERR_NOMEM;
        for (int32_t k = 0; rank && k < p->nused; k++)
            rank[list[k]] = k;
    }
    if (st == TC_OK && rank)
        st = tc_gpu_upload_new(p->base.gpu, list, (int64_t)p->nused * 4, (void **)&p->used,
                               err);
    if (st == TC_OK && rank)
        st = tc_gpu_upload_new(p->base.gpu, rank, (int64_t)cols * 4, (void **)&p->rank, err);
    free(rank);
    free(list);
    return st;
}

/* The work list, A's arrays (with the row order), the workspace (a row
   of n per piece) and the counters (per split row and panel of the
   variant with the most panels, "scalar"), zeroed once here: the last
   piece of each run zeroes its own; then "lockstep"'s items. */
static tc_status upload(rsp_plan *p, const tc_rowsplit *m, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    const int32_t n = p->base.n;
    tc_rowsplit_work_list w;
    tc_status st = tc_rowsplit_work(m, &w, err);
    if (st != TC_OK)
        return st;
    p->nseg = w.nseg;
    p->nnz = m->base.nnz;
    const int64_t counters = (int64_t)w.nsplit * panels(n, V_SCALAR);
    int *zeros = (int *)tc_calloc_array(counters + 1, sizeof *zeros, err);
    st = zeros ? TC_OK : TC_ERR_NOMEM;
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, w.seg, w.nseg * (int64_t)sizeof *w.seg, (void **)&p->seg, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->a->rowptr, ((int64_t)m->base.rows + 1) * 8,
                               (void **)&p->row_ptr, err);
    if (st == TC_OK && m->rows)
        st = tc_gpu_upload_new(g, m->rows->new2old, (int64_t)m->base.rows * 4,
                               (void **)&p->rows, err);
    /* CHUNK_PAD elements past the last nonzero: walk's 16-byte chunk loads */
    if (st == TC_OK)
        st = tc_gpu_upload_padded(g, m->a->colidx, m->base.nnz * 4, CHUNK_PAD * 4,
                                  (void **)&p->col, err);
    if (st == TC_OK && m->a->val)
        st = tc_gpu_upload_f32_padded(g, m->a->val, m->base.nnz, CHUNK_PAD, &p->val, err);
    if (st == TC_OK && w.nslots)
        st = tc_gpu_alloc(g, (int64_t)w.nslots * n * 4, (void **)&p->part, err);
    if (st == TC_OK && counters)
        st = tc_gpu_upload_new(g, zeros, counters * (int64_t)sizeof *zeros, (void **)&p->arrived,
                               err);
    free(zeros);
    if (st == TC_OK)
        st = upload_used(p, m, err);
    if (st == TC_OK)
        upload_runs(p, m);
    tc_rowsplit_work_free(&w);
    return st;
}

static tc_status rsp_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                            const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)a;
    tc_kplan *base;
    tc_status st = tc_kplan_new(g, m, "rowsplit", o, sizeof(rsp_plan), &base, err);
    if (st != TC_OK)
        return st;
    rsp_plan *p = (rsp_plan *)base;
    p->base.a_bytes = tc_fmt_bytes(m);
    p->ld16 = ((int64_t)o->n + 7) / 8 * 8;
    st = upload(p, (const tc_rowsplit *)m, err);
    if (st != TC_OK) {
        rsp_free(&p->base);
        return st;
    }
    *out = &p->base;
    return TC_OK;
}

/* out[k]: column col[k]'s row of B16 (rank), for the nnz nonzeros; the
   CHUNK_PAD elements after them 0, as col's. */
__global__ void rows_of_b16(const int32_t *__restrict__ col, const int32_t *__restrict__ rank,
                            int32_t *out, int64_t nnz)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz + CHUNK_PAD)
        out[k] = k < nnz ? rank[col[k]] : 0;
}

/* col16 from col and rank, which is then freed. */
static tc_status make_col16(rsp_plan *p, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    const int64_t count = p->nnz + CHUNK_PAD, grid = (count + 255) / 256;
    if (grid > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rowsplit kernel half: %lld nonzeros are more than one launch takes",
                            (long long)p->nnz);
    if (tc_gpu_alloc(g, count * 4, (void **)&p->col16, err) != TC_OK) {
        (void)cudaGetLastError();
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rowsplit kernel half: no device memory for A's columns as rows "
                            "of B in fp16 (%lld bytes)", (long long)(count * 4));
    }
    rows_of_b16<<<(unsigned)grid, 256, 0, g->stream>>>(p->col, p->rank, p->col16, p->nnz);
    tc_status st = TC_LAUNCHED(err, "rows_of_b16");
    if (st != TC_OK) {
        tc_gpu_free(g, p->col16);
        p->col16 = NULL;
        return st;
    }
    tc_gpu_free(g, p->rank);
    p->rank = NULL;
    return TC_OK;
}

/* "vec4" and "half" need n % 4 == 0 (16- and 8-byte pieces of a row of
   B), "vec4-prefetch" also a B that L2 keeps (tc_prefetch_fits); every
   variant needs its grid to fit one launch, "half" its B16 (only
   allocated for such n) one conversion launch. */
static tc_status rsp_select(tc_kplan *base, int v, tc_error *err)
{
    rsp_plan *p = (rsp_plan *)base;
    if (is_lockstep(v) && p->no_lockstep[0])
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "rowsplit kernel %s: %s", variant_names[v],
                            p->no_lockstep);
    if (v != V_SCALAR && base->n % 4 != 0)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rowsplit kernel %s: needs n a multiple of 4 (%s), n is %d",
                            variant_names[v],
                            is_half(v) ? "8-byte pieces of fp16 rows of B" : "float4 rows of B",
                            (int)base->n);
    if (v == V_VEC4_PREFETCH && !tc_prefetch_fits(base->gpu, b_bytes(base)))
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rowsplit kernel vec4-prefetch: B (%lld bytes) is more than a "
                            "quarter of the L2 (%lld bytes), where its prefetched lines would "
                            "not stay until their gathers",
                            (long long)b_bytes(base), (long long)base->gpu->info.l2_bytes);
    if (grid_x(p, v) > INT32_MAX || panels(base->n, v) > 65535 ||
        (is_half(v) && (p->ld16 > INT32_MAX ||
                         tc_half_launch_blocks(p->nused, p->ld16) > INT32_MAX)))
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rowsplit kernel %s: %lld x %lld thread blocks is more than one "
                            "launch takes", variant_names[v], (long long)grid_x(p, v),
                            (long long)panels(base->n, v));
    /* B16 on first use: a plan that never runs "half" (--accuracy fp32,
       another variant faster) never holds it. Without room, half is a
       variant that cannot run here, not an error: the failed cudaMalloc's
       error is taken back, so that the next launch check does not report
       it. */
    const int64_t b16_bytes = (int64_t)p->nused * p->ld16 * 2;
    if (is_half(v) && !p->B16 &&
        tc_gpu_alloc(base->gpu, b16_bytes, (void **)&p->B16, err) != TC_OK) {
        (void)cudaGetLastError();
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rowsplit kernel half: no device memory for B in fp16 (%lld bytes)",
                            (long long)b16_bytes);
    }
    if (is_half(v) && p->rank) {
        tc_status st = make_col16(p, err);
        if (st != TC_OK)
            return st;
    }
    base->variant = v;
    return TC_OK;
}

/* vec4's groups of lanes resident in one wave at n: the blocks an SM
   keeps (the occupancy the device reports for the instance, at least
   MIN_BLOCKS_PER_SM by its launch bounds) times the SMs times the groups
   a block holds. On an H200 at n = 32, 132 x 8 x 16 = 16,896: a cut of
   bipartite 71000 at 0.996 of it ran 1.088x cuSPARSE, at 0.888 (its
   default) 1.02x, just past it 20-25% slower (bench/NOTES.md, "Segments
   to just under a whole wave, again"). */
static int64_t rsp_wave_items(const tc_gpu_info *info, int32_t n)
{
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_of(n, V_VEC4, 0),
                                                      BLOCK_THREADS, 0) != cudaSuccess ||
        blocks < MIN_BLOCKS_PER_SM) {
        (void)cudaGetLastError();
        blocks = MIN_BLOCKS_PER_SM;
    }
    return (int64_t)info->sm_count * blocks * (BLOCK_THREADS / tile_lanes(n, V_VEC4));
}

extern "C" const tc_kernel tc_kernel_rowsplit = {
    "rowsplit",
    "CUDA cores: segments of about equal cost per group of lanes, float4 rows of B (or "
    "fp16 rows, \"half\"), long rows split and summed in a workspace (fp32 sums)",
    "fp32",
    NVARIANTS,
    variant_names,
    variant_spreads,
    rsp_prepare,
    rsp_select,
    rsp_run,
    rsp_free,
    NULL,
    variant_precision,
    variant_scales_b,
    rsp_wave_items,
};
