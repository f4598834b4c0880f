/*
 * rstile_internal.h: what the files of the rstile format share
 * (rstile.c's opening comment lists them): the rules of the build that the
 * parameters, validation and statistics also state, Fig. 14's curve, the
 * windows, and the format's functions that its registry entry names.
 */
#ifndef TC_RSTILE_INTERNAL_H
#define TC_RSTILE_INTERNAL_H

#include "rstile.h"

extern const tc_format tc_format_rstile;

#define H TC_RSTILE_H_ROWS
#define W TC_RSTILE_W_COLS
#define DUMMY TC_RSTILE_DUMMY_COL

/* Parameter value: chosen from the matrix. */
#define AUTO (-1)
/* Fig. 14's thresholds: 0 .. CURVE_MAX. */
#define CURVE_MAX 8
#define CURVE_N (CURVE_MAX + 1)
/* The automatic threshold (Section 4.3.2, Fig. 14): the smallest t in
   0 .. AUTO_MAX from which neither curve (mean nonzeros per TC block, per
   window with TC blocks) gains more than PLATEAU_GAIN at any threshold up
   to CURVE_MAX: the start of the plateau, which the paper sees at about 4;
   never beyond 6, where the paper sees the CUDA share grow with no gain;
   and never one that sends more than MAX_RESIDUAL_SHARE of the nonzeros
   to the residual (then the largest t within that share: the share only
   grows with t). Any later threshold, not just the next one: a step that
   routes no row (a matrix without rows of one nonzero) or that drops no
   whole block gains nothing, yet the curve may rise after it. The paper
   chooses "adaptively based on matrix size and overall sparsity" without
   saying how: these three numbers are ours. */
#define AUTO_MAX 6
#define PLATEAU_GAIN 0.02
#define MAX_RESIDUAL_SHARE 0.10
/* The automatic split (Section 3.3.3 names no number): segments of at most
   SPLIT_MEAN_FACTOR times the mean TC blocks per window with TC blocks,
   and never fewer than SPLIT_MIN blocks, so that only windows far above
   the mean are cut and each extra segment (one atomic 16-row update of C)
   is paid for by at least SPLIT_MIN blocks of MMAs. */
#define SPLIT_MEAN_FACTOR 4
#define SPLIT_MIN 32
/* Sparse windows (ours; the paper routes rows, not windows): where the TC
   blocks of the whole matrix would hold fewer than min_density nonzeros
   each on average, every window whose own blocks would goes whole to the
   residual, rows of any length. Section 4.3.2's rows of "weak
   column-domain overlap" taken a window at a time: where the rows of a
   window share almost no column, as in lp_nug30 after any reordering (480
   nonzeros over 472 distinct columns a window, 8.1 per block), each row
   of B that a block loads serves one nonzero and costs a sixteenth of the
   block's decode, index loads and MMAs; the residual loads that row once
   for the nonzero, with no decode. 8 per block is the floor for full
   blocks (one nonzero per column); 8.5 lets one column in 16 have a
   second. Measured on an H100 (bench/NOTES.md, rstile step 17): lp_nug30
   sent whole is 1.1-1.2x cuSPARSE against 0.84-1.05x in TC blocks; at 9,
   63% of p2p-Gnutella31 goes (windows of 8.5-9 per block) and it runs
   8-18% slower; at 10-12 the power-law graphs lose up to half their
   speed (deezer_HU, musae_github, twitch_DE, fb100_Cornell5). The test on
   the whole matrix first: a few sparse windows among dense ones cost
   little in TC blocks, but sent whole they are residual rows longer than
   the partition's, whose loads (in tc-item, 32 nonzeros of a warp in
   rounds of 8) outlast the blocks' (pubmed, 2 windows of 126 nonzeros
   sent whole: 24.2 -> 27.5 us at n = 128; email-Enron and ca-CondMat,
   0.1% of their nonzeros: about 6% slower at n = 32). */
#define MIN_DENSITY_DEFAULT 8.5
/* ... unless one of its rows is longer than this: the residual gives a row
   one thread per 4 or 8 columns of C, so that a long row is a chain of
   its length on one thread (email-Enron, whose rows reach 1,383 nonzeros:
   1.08x -> 0.76x cuSPARSE at n = 128 with 1% of its nonzeros sent whole). */
#define WHOLE_ROW_MAX 64

/* Figures at each threshold 0 .. CURVE_MAX (Fig. 14): TC blocks, TC
   nonzeros, windows with TC nonzeros, residual rows and nonzeros. */
typedef struct curve {
    int64_t blocks[CURVE_N], tc_nnz[CURVE_N], windows[CURVE_N];
    int64_t res_rows[CURVE_N], res_nnz[CURVE_N];
} curve;

static inline int64_t window_count(int32_t rows)
{
    return ((int64_t)rows + H - 1) / H;
}

/* The rows [*r0, *r1) of window wi. */
static inline void window_rows(const tc_csr *a, int64_t wi, int32_t *r0, int32_t *r1)
{
    int64_t end = (wi + 1) * H;
    *r0 = (int32_t)(wi * H);
    *r1 = end < a->rows ? (int32_t)end : a->rows;
}

static inline int64_t ceil_div(int64_t x, int64_t y)
{
    return (x + y - 1) / y;
}

/* rstile.c */
void tc_rstile_free(tc_fmt *m);
/* rstile_build.c: the build, and Fig. 14's curve for a (its survey alone) */
tc_status tc_rstile_build(const tc_csr *a, const tc_params *p, tc_fmt **out, tc_error *err);
tc_status tc_rstile_survey(const tc_csr *a, curve *cv, tc_error *err);
/* rstile_decode.c */
tc_status tc_rstile_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err);
tc_status tc_rstile_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n, double *C,
                             int64_t ldc, tc_error *err);
int64_t tc_rstile_bytes(const tc_fmt *m);
tc_status tc_rstile_nnz_part(const tc_fmt *m, const tc_csr *a, uint8_t *part, tc_error *err);
/* rstile_io.c */
tc_status tc_rstile_write_h5(const tc_fmt *m, tc_h5grp *g, tc_error *err);
tc_status tc_rstile_read_h5(tc_h5grp *g, const tc_fmt *hdr, tc_fmt **out, tc_error *err);
/* rstile_validate.c: validate, and the TC rows of the window at row0
   (a bit each; *s: the search's start among the segments, advanced) */
tc_status tc_rstile_validate(const tc_fmt *m, const tc_csr *a, const char *what, tc_error *err);
unsigned tc_rstile_tc_rows_of(const tc_rstile *x, int32_t row0, int64_t *s);
/* rstile_stats.c */
tc_status tc_rstile_stats(const tc_fmt *m, tc_report *r, const char *s, tc_error *err);

#endif
