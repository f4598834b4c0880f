/*
 * brp.cu: the GPU kernels of the brp format (BRP-SpMM, seed 000, Section
 * IV-D and IV-E), on the arrays of formats/brp.h.
 *
 * A run is two parts, one after the other on the stream:
 *   1. the TC Block part: C is zeroed, then every TC Block Group adds its
 *      16 rows x N product into C with atomics (groups of one row window
 *      run in different thread blocks);
 *   2. the Residual Row part (Alg. 3): each residual row adds its sum into
 *      its row of C, without atomics (one writer per row, after part 1).
 * There are eight variants, timed by tc_kernel_tune; tc, tc-wide and cuda
 * differ in part 1 only, tc-window and the tc-item ones run both parts
 * together:
 *   "tc"      Alg. 2 as the paper writes it: one thread block per group; the
 *             group's g = 4 A tiles of 16 x 8 built in shared memory from
 *             local_id and values (zeros elsewhere), old_col_id staged in
 *             shared memory, B tiles gathered by old_col_id, converted with
 *             cvt.rna.tf32.f32, four mma.m16n8k8 into one C fragment (the
 *             register remapping of Fig. 7(b)), one atomic per fragment
 *             element. Warps cover N in slices of 8 columns.
 *   "tc-wide" the same tensor-core arithmetic reorganised (see
 *             brp_tc_wide_kernel): a warp takes several consecutive groups and
 *             32 columns of N, builds the A fragments in registers, loads B
 *             16 bytes at a time and keeps accumulating while the groups
 *             stay in one window, so that one window's groups cost one
 *             atomic write-back instead of one each.
 *   "cuda"    the same groups on CUDA cores: scalar FMA over the 32 real
 *             nonzeros of each group, never over padding.
 *   "tc-window" tc-wide's tensor-core code with both parts in one launch,
 *             no memset and (almost) no atomics: one thread block per row
 *             window (and 32 columns) multiplies the window's first groups
 *             on tensor cores and its residual rows on CUDA cores, and
 *             stores its 16 rows once; windows of more groups than a block
 *             takes leave the rest to a second launch that adds them
 *             atomically (see brp_window_kernel). This trades the paper's
 *             load balance (every block the same work) for fewer launches
 *             and atomics (bench/NOTES.md says what that gave on H200).
 *   "tc-item", "tc-item8" tc-wide's tensor-core code with both parts in
 *             one launch and the load balanced (see brp_item_kernel): a
 *             thread block of 4 or 8 warps takes one group per warp, a
 *             window's residual nonzeros laid out as groups too (padded
 *             with zeros), the units of several short windows packed into
 *             one block, a long window cut over several blocks that meet in
 *             a workspace tile. No zeroing, no atomics in C, and no block
 *             waits on more than one group's loads and the tile's fix-up.
 *   "tc-item-long", "tc-item8-long" the same, except that on large matrices
 *             the blocks of a long window give each warp up to
 *             TC_ITEM_MAX_SHARE of its groups (items.cuh), so that fewer
 *             blocks go through the workspace.
 * The tensor-core variants multiply the zeros of the A tiles by real rows of
 * B: an Inf or NaN in row j of B gives 0 * Inf = NaN in rows of a window
 * that has a group using column j, although those rows do not use it
 * (the padding pitfall of DESIGN.md). They are marked in variant_spreads so
 * that tcmul picks "cuda" when B is not all finite.
 *
 * The kernels are written for the paper's parameters, h = 16, w = 8, f = 1,
 * g = 4 (32 nonzeros per group, one per local column); prepare refuses
 * other ones. With f = 1, entry e of a TC block is its local column e % w,
 * so each entry goes to its own column (k index) of the tile: the kernels
 * take its row from local_id / w and its k from its position, which is the
 * same tile for any valid file and never lets two entries collide.
 */
#include <stdlib.h>
#include <string.h>

#include "brp.cuh"

static const char *const variant_names[NVARIANTS] = {
    "tc", "tc-wide", "tc-window", "tc-item", "tc-item8", "tc-item-long", "tc-item8-long", "cuda"
};
static const unsigned char variant_spreads[NVARIANTS] = { 1, 1, 1, 1, 1, 1, 1, 0 };
static const char *const part_names[NPARTS] = { "tc_block", "residual_row" };

/* ------------------------------------------------------------------------ */
/* Plan                                                                      */
/* ------------------------------------------------------------------------ */

static void brp_free(tc_kplan *base)
{
    brp_plan *p = (brp_plan *)base;
    if (!p)
        return;
    tc_gpu *g = p->base.gpu;
    tc_gpu_free(g, p->win);
    tc_gpu_free(g, p->lid);
    tc_gpu_free(g, p->col);
    tc_gpu_free(g, p->val);
    tc_gpu_free(g, p->res_row);
    tc_gpu_free(g, p->res_off);
    tc_gpu_free(g, p->res_col);
    tc_gpu_free(g, p->res_val);
    tc_gpu_free(g, p->win_grp);
    tc_gpu_free(g, p->win_res);
    tc_gpu_free(g, p->items);
    tc_gpu_free(g, p->rlid);
    tc_gpu_free(g, p->rcol);
    tc_gpu_free(g, p->rval);
    tc_item_sets_free(g, p->isets);
    free(p);
}

/* The format's arrays on the device; values in float32 (none for a pattern
   matrix: the kernels take 1). */
static tc_status upload(brp_plan *p, const tc_brp *m, tc_error *err)
{
    tc_gpu *g = p->base.gpu;
    const int64_t te = p->ngroups * GROUP_NNZ, re = p->nres_nnz;
    tc_status st = tc_gpu_upload_new(g, m->group_window_id, p->ngroups * 4, (void **)&p->win, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->local_id, te, (void **)&p->lid, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->old_col_id, te * 4, (void **)&p->col, err);
    if (st == TC_OK && m->values)
        st = tc_gpu_upload_f32(g, m->values, te, &p->val, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_row_id, p->nres_rows * 4, (void **)&p->res_row, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_row_offset, (p->nres_rows + 1) * 8,
                               (void **)&p->res_off, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(g, m->res_col_id, re * 4, (void **)&p->res_col, err);
    if (st == TC_OK && m->res_values)
        st = tc_gpu_upload_f32(g, m->res_values, re, &p->res_val, err);
    p->base.a_bytes = p->ngroups * 4 + te * (1 + 4 + (m->values ? 4 : 0)) +
                      p->nres_rows * (4 + 8) + 8 + re * (4 + (m->res_values ? 4 : 0));
    return st;
}

/* Where each of the nw row windows' groups and residual rows start (nw + 1
   each, in one array: groups first), from one counting pass over the groups
   and one over the residual rows, both sorted by window. */
static int64_t *window_starts(const brp_plan *p, const tc_brp *m, int64_t nw, tc_error *err)
{
    int64_t *wg = (int64_t *)tc_calloc_array(2 * (nw + 1), sizeof *wg, err);
    if (!wg)
        return NULL;
    int64_t *wr = wg + nw + 1;
    for (int64_t i = 0; i < p->ngroups; i++)
        wg[m->group_window_id[i] + 1]++;
    for (int64_t i = 0; i < p->nres_rows; i++)
        wr[m->res_row_id[i] / BRP_H + 1]++;
    for (int64_t w = 0; w < nw; w++) {
        wg[w + 1] += wg[w];
        wr[w + 1] += wr[w];
    }
    return wg;
}

/* tc-window's index, uploaded beside the format's arrays: where each of the
   nw windows' groups and residual rows start (wg, from window_starts), and
   the later chunks of the long windows. */
static tc_status window_index(brp_plan *p, int64_t nw, const int64_t *wg, tc_error *err)
{
    /* warps per window block: half the mean groups per window, as a power
       of two, so that the typical window is one step of its warps and the
       blocks of sparse windows hold no idle warps (their registers limit
       how many blocks an SM runs) */
    const int64_t half_mean = nw ? ceil_div(ceil_div(p->ngroups, nw), 2) : 1;
    p->window_warps = 1;
    while (p->window_warps < WINDOW_MAX_WARPS && p->window_warps < half_mean)
        p->window_warps *= 2;
    const int64_t per_block = 2 * p->window_warps;
    const int64_t *wr = wg + nw + 1;
    int64_t nitems = 0;
    for (int64_t w = 0; w < nw; w++)
        nitems += wg[w + 1] - wg[w] > per_block ?
                  ceil_div(wg[w + 1] - wg[w] - per_block, REST_CHUNK) : 0;
    int64_t *items = (int64_t *)tc_malloc_array(nitems, sizeof *items, err);
    tc_status st = items ? TC_OK : TC_ERR_NOMEM;
    int64_t k = 0;
    for (int64_t w = 0; w < nw && st == TC_OK; w++)
        for (int64_t g = wg[w] + per_block; g < wg[w + 1]; g += REST_CHUNK)
            items[k++] = g;
    p->nwin = nw;
    p->nitems = nitems;
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, wg, (nw + 1) * 8, (void **)&p->win_grp, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, wr, (nw + 1) * 8, (void **)&p->win_res, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, items, nitems * 8, (void **)&p->items, err);
    free(items);
    return st;
}

/* tc-item's residual pseudo-groups: window w's residual nonzeros (rows
   wr[w] .. wr[w + 1], in order) in runs of GROUP_NNZ laid out as groups
   (local_id row * w, old_col_id, value), the last run of each window padded
   with copies of its first entry of value 0; rstart[w] gets the window's
   first pseudo-group (nw + 1 entries). Uploaded to rlid, rcol, rval. */
static tc_status residual_groups(brp_plan *p, const tc_brp *m, int64_t nw, const int64_t *wr,
                                 int64_t *rstart, tc_error *err)
{
    rstart[0] = 0;
    for (int64_t w = 0; w < nw; w++)
        rstart[w + 1] = rstart[w] + ceil_div(m->res_row_offset[wr[w + 1]] -
                                             m->res_row_offset[wr[w]], GROUP_NNZ);
    p->nrgrp = rstart[nw];
    const int64_t ne = p->nrgrp * GROUP_NNZ;
    uint8_t *lid = (uint8_t *)tc_malloc_array(ne, 1, err);
    int32_t *col = (int32_t *)tc_malloc_array(ne, sizeof *col, err);
    float *val = (float *)tc_malloc_array(ne, sizeof *val, err);
    tc_status st = lid && col && val ? TC_OK : TC_ERR_NOMEM;
    for (int64_t w = 0; w < nw && st == TC_OK; w++) {
        int64_t e = rstart[w] * GROUP_NNZ;
        for (int64_t r = wr[w]; r < wr[w + 1]; r++)
            for (int64_t k = m->res_row_offset[r]; k < m->res_row_offset[r + 1]; k++, e++) {
                lid[e] = (uint8_t)((m->res_row_id[r] - w * BRP_H) * BRP_W);
                col[e] = m->res_col_id[k];
                val[e] = m->res_values ? (float)m->res_values[k] : 1.0f;
            }
        for (const int64_t first = rstart[w] * GROUP_NNZ; e < rstart[w + 1] * GROUP_NNZ; e++) {
            lid[e] = lid[first];
            col[e] = col[first];
            val[e] = 0.0f;
        }
    }
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, lid, ne, (void **)&p->rlid, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, col, ne * 4, (void **)&p->rcol, err);
    if (st == TC_OK)
        st = tc_gpu_upload_new(p->base.gpu, val, ne * 4, (void **)&p->rval, err);
    free(lid);
    free(col);
    free(val);
    return st;
}

/* tc_item_set_build's view of brp's windows: window w's units are its
   groups, wg[w] .., then its residual pseudo-groups, rstart[w] ..; a ranged
   item's unit[0] and unit[1] are its first group and first pseudo-group,
   unit[2] and unit[3] how many of each. */
struct brp_units {
    const int64_t *wg, *rstart;
    int64_t groups(int64_t w) const { return wg[w + 1] - wg[w]; }
    int64_t count(int64_t w) const { return groups(w) + rstart[w + 1] - rstart[w]; }
    int64_t code(int64_t w, int64_t i) const
    {
        const int64_t ng = groups(w);
        return i < ng ? tc_unit_code(wg[w] + i, 0) : tc_unit_code(rstart[w] + i - ng, 1);
    }
    template <int W> void range(tc_item<W> *it, int64_t w, int64_t lo, int64_t hi) const
    {
        const int64_t ng = groups(w), glo = lo < ng ? lo : ng, ghi = hi < ng ? hi : ng;
        it->unit[0] = wg[w] + glo;
        it->unit[1] = rstart[w] + lo - glo;
        it->unit[2] = ghi - glo;
        it->unit[3] = (hi - ghi) - (lo - glo);
    }
};

/* The tc-item variants' data, from the nw windows' starts (wg): the
   residual pseudo-groups, and each variant's items (isets in enum order). */
static tc_status items_index(brp_plan *p, const tc_brp *m, int64_t nw, const int64_t *wg,
                             tc_error *err)
{
    int64_t *rstart = (int64_t *)tc_malloc_array(nw + 1, sizeof *rstart, err);
    tc_status st = rstart ? residual_groups(p, m, nw, wg + nw + 1, rstart, err) : TC_ERR_NOMEM;
    const brp_units u = { wg, rstart };
    if (st == TC_OK)
        st = tc_item_sets_build(p->base.gpu, p->isets, nw, panels(p), u, err);
    free(rstart);
    return st;
}

/* Groups per warp in tc-wide: as many as still leave two full waves of warps
   on the device (more merge more atomics, fewer keep more loads in flight),
   between 1 and WIDE_MAX_CHUNK. */
static int wide_chunk(const brp_plan *p, const tc_gpu_info *info)
{
    const int64_t resident = (int64_t)info->sm_count * 64;     /* warps */
    const int64_t c = p->ngroups * panels(p) / (2 * resident);
    return c < 1 ? 1 : c > WIDE_MAX_CHUNK ? WIDE_MAX_CHUNK : (int)c;
}

static tc_status brp_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                             const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)a;
    if (!m || strcmp(tc_format_name(tc_fmt_format(m)), "brp") != 0)
        return tc_error_set(err, TC_ERR_ARG, "brp kernel: the matrix is not in the brp format");
    const tc_brp *b = (const tc_brp *)m;
    if (b->h != BRP_H || b->w != BRP_W || b->f != 1 || b->g != BRP_G)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "brp kernel: built with h=%d w=%d f=%d g=%d; the GPU kernels take "
                            "h=16 w=8 f=1 g=4 only (the paper's; rebuild with the defaults)",
                            b->h, b->w, b->f, b->g);
    brp_plan *p = (brp_plan *)calloc(1, sizeof *p);
    if (!p)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    p->base.gpu = g;
    p->base.n = o->n;
    p->ngroups = b->ngroups;
    p->nres_rows = b->nres_rows;
    p->nres_nnz = b->res_row_offset[b->nres_rows];
    p->chunk = wide_chunk(p, tc_gpu_get_info(g));
    p->base.nparts = NPARTS;
    for (int i = 0; i < NPARTS; i++)
        p->base.part_names[i] = part_names[i];
    p->base.part_nnz[PART_BLOCKS] = p->ngroups * GROUP_NNZ;
    p->base.part_nnz[PART_RESIDUAL] = p->nres_nnz;
    const int64_t nw = ceil_div(b->base.rows, BRP_H);
    tc_status st = upload(p, b, err);
    int64_t *wg = st == TC_OK ? window_starts(p, b, nw, err) : NULL;
    if (st == TC_OK && !wg)
        st = TC_ERR_NOMEM;
    if (st == TC_OK)
        st = window_index(p, nw, wg, err);
    if (st == TC_OK)
        st = items_index(p, b, nw, wg, err);
    free(wg);
    if (st == TC_OK && res_blocks(p) > INT32_MAX)
        st = tc_error_set(err, TC_ERR_UNSUPPORTED, "brp kernel: %lld residual rows is too many",
                          (long long)p->nres_rows);
    if (st != TC_OK) {
        brp_free(&p->base);
        return st;
    }
    *out = &p->base;
    return TC_OK;
}

/* A variant runs when its grid fits in one launch. */
static tc_status brp_select(tc_kplan *base, int v, tc_error *err)
{
    brp_plan *p = (brp_plan *)base;
    if (variant_blocks(p, v) > INT32_MAX ||
        (v == V_TC_WINDOW && rest_blocks(p) > INT32_MAX))
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "brp kernel %s: %lld thread blocks is more than one launch takes",
                            variant_names[v], (long long)variant_blocks(p, v));
    base->variant = v;
    return TC_OK;
}

extern "C" const tc_kernel tc_kernel_brp = {
    "brp",
    "BRP-SpMM: TC Block Groups on tensor cores (TF32 mma.m16n8k8), Residual Rows on CUDA cores",
    "tf32",
    NVARIANTS,
    variant_names,
    variant_spreads,
    brp_prepare,
    brp_select,
    brp_run,
    brp_free,
    brp_run_part,
};
