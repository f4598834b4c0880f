/* t_rstile_layout: the host side of the rstile kernels' layout
   (formats/rstile_layout.h), on the CPU. A small matrix worked out by hand
   (its segments, value starts, scales and window index); then, through
   rstile_layout_check (tests/fuzz/rstile_layout_check.c), every awkward
   shape of fmttest.h, residual-heavy and split-window builds and rows whose
   values span 2^-40 .. 2^40 decode back to the matrix; and the check
   itself fails when the format's arrays no longer describe the matrix. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rstile_layout.h"
#include "half.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"
#include "fuzz/rstile_layout_check.h"

static const tc_format *RSTILE;

static tc_rstile *build(const tc_csr *a, const char *params)
{
    return (tc_rstile *)build_fmt(RSTILE, a, params);
}

static void check_layout(const tc_csr *a, const char *params, const char *what)
{
    char why[256] = "";
    tc_rstile *m = build(a, params);
    ok(rstile_layout_check(m, a, why, sizeof why), "%s (%s): the layout decodes to the matrix",
       what, params ? params : "defaults");
    if (why[0])
        diag("%s", why);
    tc_fmt_free(&m->base);
}

/* 40 x 24: window 0 has a TC row 0 of 10 nonzeros (two blocks, values
   1..10) and a one-nonzero row 3 (3 / 4) in a column of no other row,
   which threshold=2 sends to the residual; window 1 (rows 16-31) nothing;
   window 2 (rows 32-39) one residual row 33 (two nonzeros) and nothing
   else. */
static void check_worked_example(void)
{
    int32_t ri[13], ci[13];
    double v[13];
    int k = 0;
    for (int j = 0; j < 10; j++, k++) {
        ri[k] = 0;
        ci[k] = 2 * j;
        v[k] = j + 1;
    }
    ri[k] = 3, ci[k] = 5, v[k++] = 0.75;
    ri[k] = 33, ci[k] = 1, v[k++] = -2;
    ri[k] = 33, ci[k] = 7, v[k++] = 4;
    tc_csr *a = from_coo(40, 24, k, ri, ci, v);
    tc_rstile *m = build(a, "threshold=2,min_density=0");
    tc_error err;
    tc_seg *seg = NULL;
    int64_t nseg = 0, *wb = NULL, *wr = NULL;
    uint8_t *lrow = NULL;
    uint16_t *val = NULL;
    float *scale = NULL;
    int64_t *vstart = tc_rstile_layout_starts(m, &err);
    ok(m->nsegments == 1 && m->nblocks == 2 && m->nres_rows == 2,
       "the example has one segment of two blocks and two residual rows");
    ok(tc_rstile_layout_segments(m, &seg, &nseg, &err) == TC_OK && nseg == 3,
       "three device segments: the format's and two of no blocks");
    ok(seg[0].row0 == 0 && seg[0].block == 0 && seg[0].nblocks == 2 &&
       seg[0].mask == (0xffffu & ~(1u << 3)) && !seg[0].split,
       "window 0's segment writes its rows but the residual row 3");
    ok(seg[1].row0 == 16 && seg[1].nblocks == 0 && seg[1].mask == 0xffff,
       "window 1, without blocks, gets a segment of no blocks writing all 16 rows");
    ok(seg[2].row0 == 32 && seg[2].nblocks == 0 && seg[2].mask == (0xffu & ~(1u << 1)),
       "window 2 writes its 8 rows but the residual row 33");
    ok(vstart && vstart[0] == 0 && vstart[1] == 8 && vstart[2] == 16,
       "blocks of 8 and 2 values start at 0 and 8 (padded to 8)");
    ok(tc_rstile_layout_values(m, vstart, &val, &scale, &err) == TC_OK && val && scale,
       "the values are laid out");
    ok(scale[0] == 0x1p-11f && scale[3] == 1 && scale[1] == 1,
       "row 0's largest, 10, is scaled by 2^-11 into [2^14, 2^15); rows without TC values by 1");
    ok(tc_half_to_float(val[0]) == 2048 && tc_half_to_float(val[9]) == 20480 && val[10] == 0 &&
       val[15] == 0, "values 1 and 10 are stored as 2^11 and 10 * 2^11; the padding is zero");
    ok(tc_rstile_layout_windows(m, &wb, &wr, &lrow, &err) == TC_OK,
       "the window index is built");
    ok(wb[0] == 0 && wb[1] == 2 && wb[2] == 2 && wb[3] == 2 && wr[0] == 0 && wr[1] == 1 &&
       wr[2] == 1 && wr[3] == 3, "window 0 holds both blocks and the first residual nonzero");
    ok(lrow[0] == 3 && lrow[1] == 1 && lrow[2] == 1, "residual rows 3 and 33 are rows 3 and 1 of "
       "their windows");
    free(seg);
    free(vstart);
    free(val);
    free(scale);
    free(wb);
    free(wr);
    free(lrow);
    tc_fmt_free(&m->base);
    tc_csr_free(a);
}

static void check_shapes(void)
{
    for (size_t i = 0; i < sizeof fmt_shapes / sizeof fmt_shapes[0]; i++) {
        tc_csr *a = fmt_shape_matrix(&fmt_shapes[i]);
        check_layout(a, NULL, fmt_shapes[i].name);
        tc_csr_free(a);
    }
}

/* Rows of 0..9 nonzeros, so that a threshold sends some to the residual;
   a dense row whose window a small split cuts into many segments. */
static void check_parts(void)
{
    tc_csr *a = tap_random_matrix(333, 900, 4, 100, -1, 0);
    check_layout(a, "threshold=3", "residual rows");
    check_layout(a, "threshold=3,min_density=16", "whole windows to the residual");
    check_layout(a, "split=2", "split windows");
    check_layout(a, "split=0", "windows never split");
    tc_csr_free(a);
}

/* Values from 2^-40 to 2^40 in each row: the per-row scale must bring the
   largest into range and the smallest become fp16 subnormals or zero, as
   the tolerance of the check allows. */
static void check_wide_values(void)
{
    tc_csr *a = tap_random_matrix(200, 300, 12, -1, 7, 0);
    for (int64_t k = 0; k < a->nnz; k++)
        a->val[k] = ldexp(a->val[k], (int)(k % 81) - 40);
    check_layout(a, NULL, "values of 2^-40 .. 2^40");
    tc_csr_free(a);
}

/* The check can fail: a format whose arrays no longer match the matrix
   (one bit of a block moved, one residual row renamed) is caught. */
static void check_the_check(void)
{
    char why[256];
    tc_csr *a = tap_random_matrix(100, 100, 2, -1, -1, 0);
    tc_rstile *m = build(a, "threshold=2");
    /* block 0's first nonzero moved to a place of the block it leaves empty */
    const uint64_t w = m->bitmap[0], first = w & -w, empty = ~w & (w + 1);
    ok(first && empty, "block 0 has a nonzero and an empty place in its first word");
    m->bitmap[0] ^= first | empty;
    ok(!rstile_layout_check(m, a, why, sizeof why), "a moved nonzero is caught: %s", why);
    m->bitmap[0] = w;
    ok(m->nres_rows > 0, "the matrix has residual rows");
    m->res_row_id[0] ^= 1;
    ok(!rstile_layout_check(m, a, why, sizeof why), "a renamed residual row is caught: %s", why);
    m->res_row_id[0] ^= 1;
    ok(rstile_layout_check(m, a, why, sizeof why), "restored, it passes again");
    tc_fmt_free(&m->base);
    tc_csr_free(a);
}

int main(void)
{
    RSTILE = tc_format_find("rstile");
    if (!RSTILE)
        bail("no format rstile");
    check_worked_example();
    check_shapes();
    check_parts();
    check_wide_values();
    check_the_check();
    return done_testing();
}
