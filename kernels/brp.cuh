/*
 * brp.cuh: what the brp kernel files share (brp.cu: the plan, preparation
 * and selection; brp_kernels.cu: the kernels of every variant and their
 * launches): the parameters and variants, the plan, and the thread blocks
 * of each launch. brp.cu's opening comment describes the design.
 */
#ifndef TC_BRP_CUH
#define TC_BRP_CUH

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"
#include "brp.h"
#include "mma.cuh"
#include "items.cuh"

/* The parameters the kernels are written for (seed 000, Section IV-A). */
#define BRP_H 16
#define BRP_W 8
#define BRP_G 4
#define GROUP_NNZ (BRP_G * BRP_W)   /* f = 1 */

enum { V_TC_ITEM, V_TC_ITEM8, V_TC_ITEM_LONG, V_TC_ITEM8_LONG, V_CUDA, NVARIANTS };
/* The tc-item variants, V_TC_ITEM .. V_TC_ITEM8_LONG, run the item sets of
   items.cuh in its order (tc_item_sets_build). A unit is a group or a
   residual pseudo-group. Neither 4 nor 8 warps per block is best on every
   matrix (bench/NOTES.md): 8 keeps windows of 5-8 units in one block, 4
   packs sparse windows tighter. */

enum { PART_BLOCKS, PART_RESIDUAL, NPARTS };

/* "cuda": warps per block (they work independently). */
#define CUDA_WARPS 4
/* The residual kernel's block: threads across N, a few rows per block. */
#define RES_THREADS 256

typedef struct brp_plan {
    tc_kplan base;
    int64_t ngroups, nres_rows, nres_nnz;
    int32_t *win;               /* group_window_id */
    uint8_t *lid;               /* local_id */
    int32_t *col;               /* old_col_id */
    float *val;                 /* NULL: pattern (every value 1) */
    int32_t *res_row;
    int64_t *res_off;
    int32_t *res_col;
    float *res_val;             /* NULL: pattern */
    /* the tc-item variants: each window's residual nonzeros laid out as
       groups of 32 (local_id, old_col_id, value; the last one padded with
       value 0), and each variant's items */
    int64_t nrgrp;
    uint8_t *rlid;
    int32_t *rcol;
    float *rval;
    tc_item_set isets[TC_ITEM_SETS];   /* tc-item, tc-item8, tc-item-long, tc-item8-long */
} brp_plan;

static inline int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The 32-column panels of C each launch covers, and the blocks of each
   launch for this plan's n (0: nothing to launch). */
static inline int64_t panels(const brp_plan *p)
{
    return ceil_div(p->base.n, 32);
}

static inline int64_t cuda_blocks(const brp_plan *p)
{
    return ceil_div(p->ngroups * panels(p), CUDA_WARPS);
}

static inline int64_t item_blocks(const brp_plan *p, int v)
{
    return p->isets[v - V_TC_ITEM].nitem * panels(p);
}

/* Threads across N in the residual kernel: N rounded up to a warp, at most
   the whole block. */
static inline int res_across(const brp_plan *p)
{
    const int64_t t = ceil_div(p->base.n, 32) * 32;
    return (int)(t < RES_THREADS ? t : RES_THREADS);
}

static inline int64_t res_blocks(const brp_plan *p)
{
    return ceil_div(p->nres_rows, RES_THREADS / res_across(p));
}

static inline int64_t variant_blocks(const brp_plan *p, int v)
{
    return v == V_CUDA ? cuda_blocks(p) : item_blocks(p, v);
}

/* brp_kernels.cu: a run of the plan's variant, whole or one part. */
tc_status brp_run(tc_kplan *base, const float *B, float *C, tc_error *err);
tc_status brp_run_part(tc_kplan *base, int part, const float *B, float *C, tc_error *err);

#endif
