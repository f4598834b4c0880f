/*
 * brp.cu: the GPU kernels of the brp format (BRP-SpMM, seed 000, Section
 * IV-D and IV-E), on the arrays of formats/brp.h.
 *
 * A product has two parts: the TC Block part (each TC Block Group's 16
 * rows x N) and the Residual Row part (Alg. 3, the rows' leftover
 * nonzeros on CUDA cores); tc_kernel_time_part times each alone. There
 * are five variants, timed by tc_kernel_tune; each was kept because it
 * wins by at least 3% on some matrices in two recorded runs, or because
 * it is the fallback for what the others cannot take (issue 31;
 * bench/NOTES.md, "Variant pruning", lists the rows). Every tensor-core
 * variant shares one arithmetic (accumulate_group): lane (gid, tig) takes
 * 8 of a group's entries, builds its A fragments in registers, loads B 16
 * bytes at a time and runs the group's four mma.m16n8k8 (Alg. 2's
 * arithmetic with Fig. 7(b)'s register remapping).
 *   "tc-item", "tc-item8" both parts in one launch, the load balanced
 *             (see brp_item_kernel): a thread block of 4 or 8 warps takes
 *             one group per warp, a window's residual nonzeros laid out as
 *             groups too (padded with zeros), the units of several short
 *             windows packed into one block, a long window cut over
 *             several blocks that meet in a workspace tile. No zeroing, no
 *             atomics in C, and no block waits on more than one group's
 *             loads and the tile's fix-up.
 *   "tc-item-long", "tc-item8-long" the same, except that on large
 *             matrices the blocks of a long window give each warp up to
 *             TC_ITEM_MAX_SHARE of its groups (items.cuh), so that fewer
 *             blocks go through the workspace.
 *   "cuda"    C zeroed, the groups on CUDA cores (scalar FMA over each
 *             group's 32 real nonzeros, never over padding) added with
 *             atomics, then the Residual Row part, each row's sum added by
 *             its one writer: the fallback when B is not all finite.
 * Removed, having won no row of bench/results/brp.tsv at 0006325 (1.7-2.2x
 * slower than the best): the paper's TC Block kernel as written ("tc", a
 * thread block per group, A tiles in shared memory), its register form
 * with one atomic write-back per window ("tc-wide") and a block per row
 * window ("tc-window").
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
    "tc-item", "tc-item8", "tc-item-long", "tc-item8-long", "cuda"
};
static const unsigned char variant_spreads[NVARIANTS] = { 1, 1, 1, 1, 0 };
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
    tc_gpu_free(g, p->rlid);
    tc_gpu_free(g, p->rcol);
    tc_gpu_free(g, p->rval);
    tc_item_sets_free(g, p->isets, TC_ITEM_SETS);
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
    static constexpr bool ranged = true;        /* the -long variants */
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

static tc_status brp_prepare(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                             const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    (void)a;
    tc_kplan *base;
    tc_status st = tc_kplan_new(g, m, "brp", o, sizeof(brp_plan), &base, err);
    if (st != TC_OK)
        return st;
    const tc_brp *b = (const tc_brp *)m;
    if (b->h != BRP_H || b->w != BRP_W || b->f != 1 || b->g != BRP_G) {
        free(base);
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "brp kernel: built with h=%d w=%d f=%d g=%d; the GPU kernels take "
                            "h=16 w=8 f=1 g=4 only (the paper's; rebuild with the defaults)",
                            b->h, b->w, b->f, b->g);
    }
    brp_plan *p = (brp_plan *)base;
    p->ngroups = b->ngroups;
    p->nres_rows = b->nres_rows;
    p->nres_nnz = b->res_row_offset[b->nres_rows];
    p->base.nparts = NPARTS;
    for (int i = 0; i < NPARTS; i++)
        p->base.part_names[i] = part_names[i];
    p->base.part_nnz[PART_BLOCKS] = p->ngroups * GROUP_NNZ;
    p->base.part_nnz[PART_RESIDUAL] = p->nres_nnz;
    const int64_t nw = ceil_div(b->base.rows, BRP_H);
    st = upload(p, b, err);
    int64_t *wg = st == TC_OK ? window_starts(p, b, nw, err) : NULL;
    if (st == TC_OK && !wg)
        st = TC_ERR_NOMEM;
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
    if (variant_blocks(p, v) > INT32_MAX)
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
