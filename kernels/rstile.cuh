/*
 * rstile.cuh: what the rstile kernel files share (rstile.cu: the plan,
 * preparation and selection; rstile_tc.cu: the segment-walking variants
 * tc, tc-fly, tc-f32 and cuda with the residual and zero parts;
 * rstile_item.cu: the tc-item variants): the variants, the arguments of a
 * launch and the plan. rstile.cu's opening comment describes the design.
 */
#ifndef TC_RSTILE_CUH
#define TC_RSTILE_CUH

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cuda_fp16.h>

#include "gpu_internal.h"
#include "rstile_layout.h"
#include "mma.cuh"
#include "rowaddr.cuh"
#include "segments.h"
#include "items.cuh"

#define WROWS TC_RSTILE_H_ROWS
#define BCOLS TC_RSTILE_W_COLS

enum { V_TC, V_TC_FLY, V_TC_F32, V_TC_ITEM, V_TC_ITEM8, V_CUDA, NVARIANTS };
/* The tc-item variants, V_TC_ITEM and V_TC_ITEM8, run the first two item
   sets of items.cuh (tc_item_sets_build; rstile has no -long variants). */
#define RS_ITEM_SETS 2

enum { PART_TC, PART_RESIDUAL, NPARTS };

/* Warps per thread block of the TC part: 1 to MAX_WARPS, sized to the
   matrix (segment_warps); the residual part's blocks have as many threads. */
#define MAX_WARPS 8
/* "cuda": columns of C per thread block (one per lane). */
#define CUDA_PANEL 32

/* Everything a launch reads, passed by value. */
typedef struct rs_args {
    const tc_seg *seg;
    int64_t tc_blocks;          /* thread blocks of the TC part: segments with
                                   blocks x panels */
    int64_t zero_blocks;        /* then of the zero part: groups of ZERO_SEGS
                                   segments of no blocks x panels */
    int64_t first_zero, nseg;   /* the segments of no blocks: seg[first_zero, nseg) */
    int panels;                 /* panels of columns of C per segment */
    const uint64_t *bitmap;
    const int32_t *col;
    const int64_t *vstart;      /* where each block's values start (padded) */
    const __half *val;          /* NULL: pattern (every value 1) */
    const float *row_scale;     /* per row of A; NULL: pattern (1) */
    const int32_t *res_row;
    const int64_t *res_off;
    const int32_t *res_col;
    const float *res_val;       /* NULL: pattern */
    int64_t res_threads;        /* residual rows x chunks */
    int chunks;                 /* residual threads per row */
    const float *B;
    const __half *B16;          /* "tc": B in fp16, ldb16 halves per row */
    int32_t ldb16;              /* rs_select: at most INT32_MAX */
    const float *b_max;         /* "tc": max|B| that B16 was scaled by
                                   (tc_kplan.b_max; NULL: B16 is B) */
    float *C;
    int32_t rows, n;
} rs_args;

static inline bool rs_is_item(int v)
{
    return v == V_TC_ITEM || v == V_TC_ITEM8;
}

typedef struct rs_plan {
    tc_kplan base;
    int64_t nseg;               /* device segments (with the empty ones) */
    tc_seg *seg;
    int64_t nsplit;             /* segments of split windows, first in seg */
    int64_t nzero;              /* segments of no blocks, last in seg */
    uint64_t *bitmap;
    int32_t *col;
    int64_t *vstart;
    __half *val;
    float *row_scale;
    int64_t nres_rows;
    int32_t *res_row;
    int64_t *res_off;
    int32_t *res_col;
    float *res_val;
    __half *B16;
    int64_t ldb16;
    /* tc, tc-fly, tc-f32 and cuda: n-tiles of 8 columns per TC warp
       (variant_tiles), warps per thread block (segment_warps) */
    int nt[NVARIANTS];
    int warps[NVARIANTS];
    /* the tc-item variants: each residual nonzero's row in its window, and
       each variant's items */
    uint8_t *res_lrow;
    tc_item_set isets[RS_ITEM_SETS];    /* tc-item, tc-item8 */
} rs_plan;

static inline int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Panels of variant v's TC warp (8 nt columns of C) per segment. */
static inline int64_t tc_panels(const rs_plan *p, int v)
{
    return ceil_div(p->base.n, 8 * p->nt[v]);
}

/* rstile_tc.cu: the arguments of variant v (tc, tc-fly, tc-f32, cuda);
   `parts` selects what runs (bit PART_TC, bit PART_RESIDUAL). */
rs_args rs_args_for(const rs_plan *p, int v, int parts, const float *B, float *C);
/* The thread blocks of variant v's launch with arguments a. */
int64_t rs_grid_of(const rs_plan *p, const rs_args *a, int v);
/* Runs the plan's variant (tc, tc-fly, tc-f32 or cuda) on `parts`. */
tc_status rs_run_segments(rs_plan *p, int parts, const float *B, float *C, tc_error *err);

/* rstile_item.cu: the tc-item variants' data (the window index, res_lrow
   and the item sets), their thread blocks, and their run. */
tc_status rs_items_index(rs_plan *p, const tc_rstile *m, tc_error *err);
int64_t rs_item_grid_of(const rs_plan *p, int v);
tc_status rs_run_items(rs_plan *p, int parts, const float *B, float *C, tc_error *err);

#endif
