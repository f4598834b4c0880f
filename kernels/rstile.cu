/*
 * rstile.cu: the GPU kernels of the rstile format (RSH-SpMM, seed 001,
 * Section 3.3), on the arrays of formats/rstile.h.
 *
 * One launch computes both parts, each writing rows the other does not touch
 * (Section 3.2, "two kernels handling disjoint portions of the output"). In
 * tc, tc-fly, tc-f32 and cuda, thread blocks below `tc_blocks` run the TC
 * part, the blocks after them the CUDA residual part, a few threads per
 * residual row (the tc-item variants balance the two parts otherwise,
 * below). The TC part works on window segments (the format's, Section
 * 3.3.3), a thread block each: its warps share the segment's blocks, add
 * their partial tiles in shared memory and store the sum once, so that the
 * long windows of dense matrices get many warps without atomics. A TC
 * segment stores every row of its window that is not a residual row (rows
 * without nonzeros get zeros); the windows that hold no TC block but rows
 * outside the residual get segments of no blocks here, so that every row of
 * C is written, ZERO_SEGS of them to a thread block (zero_block). The
 * segments of a window that the format split add their results with
 * atomics into rows a small launch zeroed first; that launch runs only for
 * matrices that have split windows.
 *
 * Variants (timed by tc_kernel_tune), each kept because it won by at least
 * 3% on some matrices in two recorded runs, or, for cuda, because it is the
 * fallback for a B with NaN or Inf (issue 31; bench/NOTES.md, "Variant
 * pruning"). Removed: "tc-item-long" and "tc-item8-long" (brp's ranged
 * items of long windows, kernels/items.cuh), which won no row by 3% in the
 * six recorded runs since the item kernels took their current form
 * (7f2b445 to 1c240d6, 256 rows each), where brp's still do.
 *   "tc"     B converted once per run to fp16 (a short launch before the
 *            main one, into a buffer whose rows are padded to the panel
 *            width), then the pipeline of Section 3.3.2, with a ring of
 *            STAGES stages per warp in shared memory instead of two: each
 *            block's 8 rows of B (16 bytes per lane, zero-filled for dummy
 *            columns), values and bitmap are fetched with cp.async
 *            STAGES - 1 blocks ahead, while the current block is decoded
 *            from its bitmap with popc prefix counts into the A fragment in
 *            registers and its B fragments come out of shared memory with
 *            ldmatrix.trans; mma.m16n8k8 in fp16 with fp32 accumulation.
 *            A warp takes 8 to 32 columns of C, 64 past n = 32 on matrices
 *            of many blocks (tiles_for), and pattern matrices get a kernel
 *            that loads no values (VAL). The residual reads the same fp16
 *            B, 16 bytes (8 columns) per thread and nonzero.
 *   "tc-fly" no conversion launch: the B fragments are loaded from the
 *            float32 B straight into registers (16 bytes at a time at 32
 *            columns) and converted there, each block's bitmap and column
 *            ids loaded one block ahead; a warp takes at most 32 columns
 *            (variant_tiles). The residual reads float32 B (4 columns per
 *            thread and nonzero).
 *   "tc-f32" tc's pipeline without its conversion launch: the stages hold
 *            the blocks' rows of the float32 B (twice tc's bytes per
 *            stage), rounded to fp16 as the B fragments are read out of
 *            shared memory (two loads and a conversion per n-tile instead of
 *            a quarter of an ldmatrix.x4). Faster than tc where the
 *            conversion launch is a large share of a short run (H100,
 *            wjaccard order: bcsstk13 at n = 128 10.9 -> 9.3 us, cont-201
 *            at n = 256 129 -> 124), slower where a row of B serves many
 *            blocks and tc's stages, half the bytes, matter (TF18 at n = 256
 *            302 -> 439; lp_nug30 at n = 32 74 -> 84); the residual reads
 *            float32 B as in tc-fly.
 *   "tc-item", "tc-item8" both parts in one launch of balanced items
 *            (items.cuh, rs_item_kernel): a thread block of 4 or 8 warps
 *            takes one unit per warp, a pair of a window's TC blocks (one
 *            mma.m16n8k16 per 8 columns, B read from float32 and rounded in
 *            registers) or up to 32 of a window's residual nonzeros (on
 *            CUDA cores, in float32); the units of short windows are packed
 *            into one item, a long window is cut over several items that
 *            meet in a workspace tile. No zeroing launch, no conversion
 *            launch, no atomics in C, and no warp walks a chain of blocks.
 *            Where the items are many, a thread block takes several panels
 *            of 32 columns, its units loaded once (item_group).
 *   "cuda"   everything on CUDA cores from float32 B: each block's nonzeros
 *            from its bitmap, one FMA per nonzero and column. Slow, but it
 *            multiplies only real nonzeros, so a NaN or Inf in B reaches
 *            exactly the rows that use it; the tensor-core variants multiply
 *            the zeros of a tile by whole rows of B (0 * Inf = NaN: the
 *            padding pitfall of DESIGN.md, which the dummy columns avoid but
 *            the zeros inside real columns cannot) and are marked in
 *            variant_spreads, so that tcmul picks "cuda" when B is not all
 *            finite.
 *
 * Precision: A's values and B in fp16, products summed in fp32. fp16 holds
 * magnitudes up to 65504, far less than many matrices' values (stiffness
 * matrices reach 1e10), so each row's TC values are stored divided by a
 * power of two that brings the row's largest to [2^14, 2^15) and the
 * products are multiplied back per row of C (exactly: a power of two); the
 * residual keeps float32 values. B is rounded to fp16 as it is: its
 * magnitudes must stay below 65504 (man/tcmul.1), unless the plan gives
 * "tc", "tc-fly" or "tc-f32" max|B| (tc_kplan.b_max, for a B of unknown
 * range): tc's conversion launch then multiplies B by the power of two of
 * lib/fp16_scale.h, tc-fly and tc-f32 multiply its elements as they round
 * them, and the TC tiles (and tc's residual rows, which read the scaled
 * B16) are multiplied back as they are stored.
 */
#include <stdlib.h>
#include <string.h>

#include "rstile.cuh"

static const char *const variant_names[NVARIANTS] = {
    "tc", "tc-fly", "tc-f32", "tc-item", "tc-item8", "cuda"
};
static const unsigned char variant_spreads[NVARIANTS] = { 1, 1, 1, 1, 1, 0 };
/* "tc" converts B with the plan's scale (tc_kplan.b_max) in its conversion
   launch, "tc-fly" and "tc-f32" multiply as they round it in their walks
   (instances of their own); the item variants and "cuda" take copies of B
   and C that the plan scales */
static const unsigned char variant_scales_b[NVARIANTS] = { 1, 1, 1, 0, 0, 0 };

static const char *const part_names[NPARTS] = { "tc_block", "residual" };

/* Columns per TC warp: n rounded up to 8, 16 or 32, and 64 past 32 when
   the matrix has at least 16 TC blocks per SM: the block's decode, index
   loads and cp.async issue then serve 8 mma instead of 4 (tc at n = 256:
   TF18 458 -> 354 us, fb100_Cornell5 238 -> 160 on an H100). Below that
   the kernel is a short wave whose time is its longest warp's chain of
   blocks, which wider panels lengthen (bcsstk13's 1,938 blocks: 13.4 ->
   15.1 us). */
static int tiles_for(int32_t n, int64_t nblocks, int sm_count)
{
    if (n > 32 && nblocks >= 16 * (int64_t)sm_count)
        return 8;
    return n <= 8 ? 1 : n <= 16 ? 2 : 4;
}

/* Variant v's n-tiles per TC warp: as tiles_for says, except that tc-fly
   takes 32 columns at most. Its B fragments come straight from the
   float32 B in global memory, 16 loads per lane and block at 64 columns,
   and panels of 32 give twice the thread blocks: with 64 it was slower on
   every matrix of step 18 (bench/NOTES.md; H100: ca-CondMat at n = 128
   43.8 -> 23.3 us with 32, musae_github 82.6 -> 65.1; email-Enron at
   n = 64 70.8 -> 29.6; wiki-Vote at n = 256 40.4 -> 24.4). */
static int variant_tiles(int v, int32_t n, int64_t nblocks, int sm_count)
{
    const int nt = tiles_for(n, nblocks, sm_count);
    return v == V_TC_FLY && nt > 4 ? 4 : nt;
}

static tc_status run_parts(rs_plan *p, int parts, const float *B, float *C, tc_error *err)
{
    if (rs_is_item(p->base.variant))
        return rs_run_items(p, parts, B, C, err);
    return rs_run_segments(p, parts, B, C, err);
}

static tc_status rs_run(tc_kplan *base, const float *B, float *C, tc_error *err)
{
    return run_parts((rs_plan *)base, (1 << PART_TC) | (1 << PART_RESIDUAL), B, C, err);
}

static tc_status rs_run_part(tc_kplan *base, int part, const float *B, float *C, tc_error *err)
{
    return run_parts((rs_plan *)base, 1 << part, B, C, err);
}

static void rs_free(tc_kplan *base)
{
    rs_plan *p = (rs_plan *)base;
    if (!p)
        return;
    tc_gpu *g = p->base.gpu;
    tc_gpu_free(g, p->seg);
    tc_gpu_free(g, p->bitmap);
    tc_gpu_free(g, p->col);
    tc_gpu_free(g, p->vstart);
    tc_gpu_free(g, p->val);
    tc_gpu_free(g, p->row_scale);
    tc_gpu_free(g, p->res_row);
    tc_gpu_free(g, p->res_off);
    tc_gpu_free(g, p->res_col);
    tc_gpu_free(g, p->res_val);
    tc_gpu_free(g, p->B16);
    tc_gpu_free(g, p->res_lrow);
    tc_item_sets_free(g, p->isets, RS_ITEM_SETS);
    free(p);
}

/* ---- host-side preparation (the arrays: formats/rstile_layout.c) ---- */

/* The device segments (tc_rstile_layout_segments) in tc_segs_order's
   order, which puts those of no blocks last (*nzero of them). */
static tc_status build_segments(const tc_rstile *m, tc_seg **out, int64_t *nseg, int64_t *nsplit,
                                int64_t *nzero, tc_error *err)
{
    tc_seg *seg;
    int64_t k;
    tc_status st = tc_rstile_layout_segments(m, &seg, &k, err);
    if (st != TC_OK)
        return st;
    tc_segs_order(seg, k, nsplit);
    *nzero = 0;
    while (*nzero < k - *nsplit && seg[k - 1 - *nzero].nblocks == 0)
        ++*nzero;
    *out = seg;
    *nseg = k;
    return TC_OK;
}

/* Warps per TC thread block: a power of two, about the mean blocks per
   segment over `run` (so that each warp's run is about `run` blocks long,
   its pipeline has something to overlap and its fixed costs, the pipeline's
   first fetches and the tile's store, are shared by that many blocks, while
   long windows get many warps), between 1 and MAX_WARPS. */
static int segment_warps(const tc_rstile *m, int run)
{
    const int64_t per = m->nsegments ? ceil_div(ceil_div(m->nblocks, m->nsegments), run) : 1;
    int w = 1;
    while (w < MAX_WARPS && 2 * w <= per)
        w *= 2;
    return w;
}

/* Blocks per warp's run (segment_warps) in variant v's TC part, from its
   grid per SM: the thread blocks of its TC and zero parts (the segments
   with blocks, and the groups of those without, times its panels).
   - Under 3 per SM, runs of 1: the device is mostly idle, and a warp's
     chain of blocks is the launch's time, so a window's blocks go to as
     many warps as it has (H100, step 18 of bench/NOTES.md, at n = 32:
     1138_bus, 72 thread blocks, tc-f32 6.9 -> 5.8 us and tc-fly 9.8 ->
     6.8; bcsstk13, 126, tc-f32 7.5 -> 7.0; citeseer, 182, 8.6 -> 6.9;
     1138_bus at n = 128, 288 (2.2 per SM), 7.2 -> 6.4; and slower from
     3.8 per SM: bcsstk13 at n = 128, 504, 9.4 -> 10.1; 4elt at n = 32,
     976, 8.3 -> 9.1).
   - tc and tc-f32 where a block serves 8 mma (NT = 8), the grid has two
     panels per segment or more and 16 thread blocks per SM or more: runs
     of 8, half the warps, whose fixed costs (the pipeline's first fetches,
     the tile's store) are then shared by more blocks (step 16, at n = 256:
     musae_github 137 -> 123 us, twitch_DE 59 -> 52; and slower with fewer
     thread blocks: wiki-Vote at n = 256, 1,628, 27 -> 29 us). Not with one
     panel (step 18: gupta2 at n = 64, tc 54.9 -> 58.2 us) nor at NT = 4
     (musae_github at n = 32, tc 23.8 -> 29.4). tc-fly and cuda, whose
     warps wait on each block's B in turn, keep runs of 4 there
     (email-Enron at n = 256, step 13: 92 -> 98 us).
   - Else runs of 4. */
static int run_for(const rs_plan *p, int v)
{
    const int64_t sms = tc_gpu_get_info(p->base.gpu)->sm_count;
    const rs_args a = rs_args_for(p, v, 1 << PART_TC, NULL, NULL);
    const int64_t grid = a.tc_blocks + a.zero_blocks;
    if (grid < 3 * sms)
        return 1;
    if ((v == V_TC || v == V_TC_F32) && p->nt[v] == 8 && a.panels > 1 && grid >= 16 * sms)
        return 8;
    return 4;
}

static tc_status upload(rs_plan *p, const tc_rstile *m, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    const int64_t nr = m->res_row_offset[m->nres_rows];
    tc_seg *seg = NULL;
    uint16_t *val = NULL;
    float *row_scale = NULL;
    int64_t *vstart = tc_rstile_layout_starts(m, err);
    if (!vstart)
        return TC_ERR_NOMEM;
    const int64_t nv = vstart[m->nblocks];
    tc_status st = build_segments(m, &seg, &p->nseg, &p->nsplit, &p->nzero, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, seg, p->nseg * (int64_t)sizeof *seg, (void **)&p->seg, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->bitmap, m->nblocks * 16, (void **)&p->bitmap, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->col_id, m->nblocks * BCOLS * 4, (void **)&p->col, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, vstart, (m->nblocks + 1) * 8, (void **)&p->vstart, err);
    if (st == TC_OK)
        st = tc_rstile_layout_values(m, vstart, &val, &row_scale, err);
    if (st == TC_OK && val)
        st = tc_gpu_upload_new(g, val, nv * 2, (void **)&p->val, err);
    if (st == TC_OK && row_scale)
        st = tc_gpu_upload_new(g, row_scale, (int64_t)m->base.rows * 4, (void **)&p->row_scale,
                               err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_row_id, m->nres_rows * 4, (void **)&p->res_row, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_row_offset, (m->nres_rows + 1) * 8,
                               (void **)&p->res_off, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_col_id, nr * 4, (void **)&p->res_col, err);
    if (st == TC_OK && m->res_values)
        st = tc_gpu_upload_f32(g, m->res_values, nr, &p->res_val, err);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, (int64_t)m->base.cols * p->ldb16 * 2, (void **)&p->B16, err);
    p->base.a_bytes = p->nseg * (int64_t)sizeof *seg + m->nblocks * (16 + BCOLS * 4 + 8) +
                      (val ? nv * 2 + (int64_t)m->base.rows * 4 : 0) + m->nres_rows * (4 + 8) +
                      8 + nr * (4 + (m->res_values ? 4 : 0));
    free(vstart);
    free(seg);
    free(val);
    free(row_scale);
    return st;
}


static tc_status rs_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                            const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)a;
    tc_kplan *base;
    tc_status st = tc_kplan_new(g, m, "rstile", o, sizeof(rs_plan), &base, err);
    if (st != TC_OK)
        return st;
    const tc_rstile *r = (const tc_rstile *)m;
    rs_plan *p = (rs_plan *)base;
    for (int v = 0; v < NVARIANTS; v++)
        p->nt[v] = variant_tiles(v, o->n, r->nblocks, tc_gpu_get_info(g)->sm_count);
    p->ldb16 = tc_panels(p, V_TC) * 8 * p->nt[V_TC];
    p->nres_rows = r->nres_rows;
    p->base.nparts = NPARTS;
    for (int i = 0; i < NPARTS; i++)
        p->base.part_names[i] = part_names[i];
    p->base.part_nnz[PART_TC] = r->value_offset[r->nblocks];
    p->base.part_nnz[PART_RESIDUAL] = r->res_row_offset[r->nres_rows];
    st = upload(p, r, err);
    for (int v = 0; v < NVARIANTS && st == TC_OK; v++)
        p->warps[v] = segment_warps(r, run_for(p, v));
    if (st == TC_OK)
        st = rs_items_index(p, r, err);
    if (st != TC_OK) {
        rs_free(&p->base);
        return st;
    }
    *out = &p->base;
    return TC_OK;
}

/* A variant runs when its grids fit in one launch. */
static tc_status rs_select(tc_kplan *base, int v, tc_error *err)
{
    rs_plan *p = (rs_plan *)base;
    const rs_args a = rs_args_for(p, v, (1 << PART_TC) | (1 << PART_RESIDUAL), NULL, NULL);
    int64_t grid = rs_grid_of(p, &a, v);
    if (rs_is_item(v))
        grid = rs_item_grid_of(p, v);
    if (grid > INT32_MAX || tc_half_launch_blocks(base->cols, p->ldb16) > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rstile kernel %s: %lld thread blocks is more than one launch takes",
                            variant_names[v], (long long)grid);
    if (p->ldb16 > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rstile kernel %s: a row of the fp16 B of %lld halves is more than "
                            "2^31 - 1", variant_names[v], (long long)p->ldb16);
    base->variant = v;
    return TC_OK;
}

extern "C" const tc_kernel tc_kernel_rstile = {
    "rstile",
    "RSH-SpMM: bitmap TC blocks on tensor cores (fp16 mma.m16n8k8, cp.async double buffer), "
    "short rows on CUDA cores",
    "fp16",
    NVARIANTS,
    variant_names,
    variant_spreads,
    rs_prepare,
    rs_select,
    rs_run,
    rs_free,
    rs_run_part,
    NULL,
    variant_scales_b,
};

