/* t_stats: statistics on small matrices worked out by hand, and the tiling
   against a brute-force reference on random matrices of awkward shapes,
   with any thread count. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include "block_count.h"
#include "tcsparse.h"
#include "tap.h"

static void bail(const char *msg)
{
    printf("Bail out! %s\n", msg);
    exit(1);
}

static int is_num(double got, double want, const char *name)
{
    int r = ok(fabs(got - want) <= 1e-12 * (1 + fabs(want)), "%s", name);
    if (!r)
        diag("  got %.17g, want %.17g", got, want);
    return r;
}

/* A matrix from a list of (row, col) entries with values 1, 2, 3, ... (or a
   pattern matrix when pattern is set). */
static tc_csr *from_entries(int32_t rows, int32_t cols, int n, const int32_t (*rc)[2],
                            int pattern)
{
    int32_t *ri = malloc(sizeof(int32_t) * (n + 1)), *ci = malloc(sizeof(int32_t) * (n + 1));
    double *v = malloc(sizeof(double) * (n + 1));
    for (int k = 0; k < n; k++) {
        ri[k] = rc[k][0];
        ci[k] = rc[k][1];
        v[k] = k + 1;
    }
    tc_csr *a;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, pattern ? NULL : v, 1, &err))
        bail(err.msg);
    free(ri);
    free(ci);
    free(v);
    return a;
}

static const tc_report_entry *find(const tc_report *r, const char *section, const char *key)
{
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        if (strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

static double fig(const tc_report *r, const char *section, const char *key)
{
    const tc_report_entry *e = find(r, section, key);
    return e && !e->is_str ? e->num : NAN;
}

static const char *fig_str(const tc_report *r, const char *section, const char *key)
{
    const tc_report_entry *e = find(r, section, key);
    return e && e->is_str ? e->str : "(missing)";
}

static tc_report *report_of(const tc_csr *a, int h, int w)
{
    tc_report *r = tc_report_new();
    tc_error err;
    if (tc_stats_report(a, h, w, r, &err))
        bail(err.msg);
    return r;
}

static void test_dist(void)
{
    tc_dist d;
    double ten[] = { 7, 3, 10, 1, 9, 2, 8, 4, 6, 5 };
    tc_dist_compute(&d, ten, 10);
    int deciles_ok = d.decile[0] == 1;
    for (int k = 1; k <= 10; k++)
        deciles_ok &= d.decile[k] == k;
    ok(deciles_ok, "deciles of 1..10 (nearest rank): p0 = 1, p10k = k");
    ok(ten[0] == 1 && ten[9] == 10, "values sorted in place");

    /* 10 20 30 40: rank ceil(4k/10) = 1 1 1 2 2 2 3 3 4 4 4 for k = 0..10;
       mean 25, sd sqrt((225 + 25 + 25 + 225) / 4) = sqrt(125). */
    double four[] = { 40, 10, 30, 20 };
    tc_dist_compute(&d, four, 4);
    const double want[11] = { 10, 10, 10, 20, 20, 20, 30, 30, 40, 40, 40 };
    ok(memcmp(d.decile, want, sizeof want) == 0, "deciles of 4 values");
    is_int(d.count, 4, "count");
    is_num(d.min, 10, "min");
    is_num(d.max, 40, "max");
    is_num(d.mean, 25, "mean");
    is_num(d.sd, sqrt(125), "population sd");
    is_num(d.cv, sqrt(125) / 25, "cv = sd / mean");

    tc_dist_compute(&d, NULL, 0);
    ok(d.count == 0 && d.mean == 0 && d.cv == 0 && d.decile[10] == 0, "empty: all zero");
    double zeros[] = { 0, 0 };
    tc_dist_compute(&d, zeros, 2);
    ok(d.cv == 0 && d.sd == 0, "cv 0 when the mean is 0");
    double with_nan[] = { 3, NAN, 1 };
    tc_dist_compute(&d, with_nan, 3);
    ok(d.min == 1 && with_nan[1] == 3 && isnan(d.max), "NaN sorts last");
}

/*     0 1 2
   0 [ 1 2 . ]
   1 [ . . 3 ]
   2 [ 4 . 5 ]                                                              */
static void test_3x3(void)
{
    static const int32_t e[][2] = { { 0, 0 }, { 0, 1 }, { 1, 2 }, { 2, 0 }, { 2, 2 } };
    tc_csr *a = from_entries(3, 3, 5, e, 0);
    tc_report *r = report_of(a, 16, 8);
    is_num(fig(r, "matrix", "rows"), 3, "3x3: rows");
    is_num(fig(r, "matrix", "cols"), 3, "3x3: cols");
    is_num(fig(r, "matrix", "nnz"), 5, "3x3: nnz");
    is_num(fig(r, "matrix", "density"), 5.0 / 9, "3x3: density 5/9");
    is_str(fig_str(r, "matrix", "field"), "real", "3x3: field");
    is_str(fig_str(r, "matrix", "symmetry"), "general", "3x3: declared symmetry");
    is_str(fig_str(r, "matrix", "pattern_symmetric"), "no", "3x3: (0,1) without (1,0)");
    is_str(fig_str(r, "matrix", "values_symmetric"), "no", "3x3: values not symmetric");
    /* lower: row 2 reaches column 0 (2); upper: rows 0 and 1 reach one to
       the right (1) */
    is_num(fig(r, "matrix", "lower_bandwidth"), 2, "3x3: lower bandwidth 2");
    is_num(fig(r, "matrix", "upper_bandwidth"), 1, "3x3: upper bandwidth 1");
    is_num(fig(r, "matrix", "bandwidth"), 2, "3x3: bandwidth 2");
    /* row lengths 2 1 2: mean 5/3, sd sqrt(2/9); ranks ceil(3k/10) give
       1 for p0..p30 and 2 from p40 */
    is_num(fig(r, "rows", "empty"), 0, "3x3: no empty row");
    is_num(fig(r, "rows", "nnz_min"), 1, "3x3: shortest row");
    is_num(fig(r, "rows", "nnz_max"), 2, "3x3: longest row");
    is_num(fig(r, "rows", "nnz_mean"), 5.0 / 3, "3x3: mean row length");
    is_num(fig(r, "rows", "nnz_sd"), sqrt(2.0 / 9), "3x3: sd of row lengths");
    is_num(fig(r, "rows", "nnz_cv"), sqrt(2.0 / 9) / (5.0 / 3), "3x3: cv of row lengths");
    is_num(fig(r, "rows", "nnz_p30"), 1, "3x3: p30 of row lengths");
    is_num(fig(r, "rows", "nnz_p40"), 2, "3x3: p40 of row lengths");
    /* column lengths 2 1 2 */
    is_num(fig(r, "columns", "empty"), 0, "3x3: no empty column");
    is_num(fig(r, "columns", "nnz_mean"), 5.0 / 3, "3x3: mean column length");
    is_num(fig(r, "columns", "nnz_min"), 1, "3x3: shortest column");
    /* one window, columns {0,1,2}: one block of 5 */
    is_num(fig(r, "tc16x8", "windows"), 1, "3x3: one window");
    is_num(fig(r, "tc16x8", "blocks"), 1, "3x3: one block");
    is_num(fig(r, "tc16x8", "fill"), 5.0 / 128, "3x3: fill 5/128");
    is_num(fig(r, "tc16x8", "nnz_per_tcb_mean"), 5, "3x3: 5 nonzeros per block");
    is_num(fig(r, "tc16x8", "tcb_per_window_p100"), 1, "3x3: 1 block per window");
    tc_report_free(r);

    /* 2x2 blocks: window {0,1} has columns 0 1 | 2: blocks of 2 and 1;
       window {2} has columns 0 2: one block of 2. */
    r = report_of(a, 2, 2);
    ok(find(r, "tc2x2", "blocks") != NULL, "section named after the block shape");
    is_num(fig(r, "tc2x2", "windows"), 2, "3x3 2x2: 2 windows");
    is_num(fig(r, "tc2x2", "blocks"), 3, "3x3 2x2: 3 blocks");
    is_num(fig(r, "tc2x2", "fill"), 5.0 / 12, "3x3 2x2: fill 5/12");
    is_num(fig(r, "tc2x2", "nnz_per_tcb_min"), 1, "3x3 2x2: smallest block 1");
    is_num(fig(r, "tc2x2", "nnz_per_tcb_max"), 2, "3x3 2x2: largest block 2");
    is_num(fig(r, "tc2x2", "tcb_per_window_mean"), 1.5, "3x3 2x2: 1.5 blocks per window");
    tc_report_free(r);
    tc_csr_free(a);
}

static void test_symmetry(void)
{
    /* [2 1 .; 1 . 3; . 3 4] */
    static const int32_t e[][2] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 1, 2 }, { 2, 1 }, { 2, 2 } };
    tc_csr *a = from_entries(3, 3, 6, e, 0);
    double v[] = { 2, 1, 1, 3, 3, 4 };
    memcpy(a->val, v, sizeof v);
    tc_report *r = report_of(a, 16, 8);
    is_str(fig_str(r, "matrix", "pattern_symmetric"), "yes", "symmetric pattern found");
    is_str(fig_str(r, "matrix", "values_symmetric"), "yes", "symmetric values found");
    tc_report_free(r);
    a->val[4] = -3;
    r = report_of(a, 16, 8);
    is_str(fig_str(r, "matrix", "pattern_symmetric"), "yes", "pattern still symmetric");
    is_str(fig_str(r, "matrix", "values_symmetric"), "no", "A(2,1) != A(1,2) seen");
    tc_report_free(r);
    free(a->val);
    a->val = NULL;
    r = report_of(a, 16, 8);
    is_str(fig_str(r, "matrix", "values_symmetric"), "yes", "pattern matrix: values follow");
    tc_report_free(r);
    tc_csr_free(a);

    /* a cycle: every row and column has one entry, yet A != A^T */
    static const int32_t cyc[][2] = { { 0, 1 }, { 1, 2 }, { 2, 0 } };
    a = from_entries(3, 3, 3, cyc, 1);
    r = report_of(a, 16, 8);
    is_str(fig_str(r, "matrix", "pattern_symmetric"), "no", "cyclic pattern is not symmetric");
    tc_report_free(r);
    tc_csr_free(a);
    /* the transpose pattern holds (1,0) but row 0 also has (0,2) */
    static const int32_t extra[][2] = { { 0, 1 }, { 0, 2 }, { 1, 0 } };
    a = from_entries(3, 3, 3, extra, 1);
    r = report_of(a, 16, 8);
    is_str(fig_str(r, "matrix", "pattern_symmetric"), "no", "unmatched (0,2) found at the end");
    tc_report_free(r);
    tc_csr_free(a);
    static const int32_t rect[][2] = { { 0, 0 } };
    a = from_entries(1, 2, 1, rect, 1);
    r = report_of(a, 16, 8);
    is_str(fig_str(r, "matrix", "pattern_symmetric"), "no", "rectangular is never symmetric");
    tc_report_free(r);
    tc_csr_free(a);
}

static void test_degenerate(void)
{
    tc_csr *a = from_entries(0, 0, 0, NULL, 0);
    tc_report *r = report_of(a, 16, 8);
    is_num(fig(r, "matrix", "density"), 0, "0x0: density 0");
    is_num(fig(r, "matrix", "bandwidth"), 0, "0x0: bandwidth 0");
    is_num(fig(r, "rows", "nnz_mean"), 0, "0x0: mean row length 0");
    is_num(fig(r, "tc16x8", "windows"), 0, "0x0: no window");
    is_num(fig(r, "tc16x8", "blocks"), 0, "0x0: no block");
    is_num(fig(r, "tc16x8", "fill"), 0, "0x0: fill 0");
    tc_report_free(r);
    tc_csr_free(a);

    a = from_entries(5, 7, 0, NULL, 1);
    r = report_of(a, 16, 8);
    is_num(fig(r, "rows", "empty"), 5, "5x7 empty: 5 empty rows");
    is_num(fig(r, "columns", "empty"), 7, "5x7 empty: 7 empty columns");
    is_num(fig(r, "tc16x8", "windows"), 1, "5x7 empty: one window");
    is_num(fig(r, "tc16x8", "empty_windows"), 1, "5x7 empty: it is empty");
    is_num(fig(r, "tc16x8", "tcb_per_window_mean"), 0, "5x7 empty: no non-empty window");
    is_str(fig_str(r, "matrix", "pattern_symmetric"), "no", "5x7 empty: not square");
    tc_report_free(r);
    tc_csr_free(a);

    static const int32_t one[][2] = { { 0, 0 } };
    a = from_entries(1, 1, 1, one, 0);
    r = report_of(a, 16, 8);
    is_num(fig(r, "matrix", "density"), 1, "1x1: density 1");
    is_str(fig_str(r, "matrix", "values_symmetric"), "yes", "1x1: symmetric");
    is_num(fig(r, "tc16x8", "blocks"), 1, "1x1: one block");
    is_num(fig(r, "tc16x8", "fill"), 1.0 / 128, "1x1: fill 1/128");
    is_num(fig(r, "tc16x8", "nnz_per_tcb_cv"), 0, "1x1: cv 0");
    tc_report_free(r);
    tc_csr_free(a);

    /* 4x5, rows 1 and 3 empty, columns 0, 2 and 4 empty:
       row 0: (0,1) (0,3); row 2: (2,3) */
    static const int32_t holes[][2] = { { 0, 1 }, { 0, 3 }, { 2, 3 } };
    a = from_entries(4, 5, 3, holes, 1);
    r = report_of(a, 16, 8);
    is_num(fig(r, "rows", "empty"), 2, "holes: 2 empty rows");
    is_num(fig(r, "rows", "nnz_min"), 0, "holes: shortest row 0");
    is_num(fig(r, "rows", "nnz_p50"), 0, "holes: median row 0 (lengths 0 0 1 2)");
    is_num(fig(r, "rows", "nnz_p60"), 1, "holes: p60 row 1 (rank 3)");
    is_num(fig(r, "columns", "empty"), 3, "holes: 3 empty columns");
    is_num(fig(r, "columns", "nnz_max"), 2, "holes: column 3 has 2");
    is_num(fig(r, "matrix", "upper_bandwidth"), 3, "holes: upper bandwidth 3 (0,3)");
    is_num(fig(r, "matrix", "lower_bandwidth"), 0, "holes: lower bandwidth 0");
    is_num(fig(r, "tc16x8", "blocks"), 1, "holes: columns {1,3}: one block");
    tc_report_free(r);
    tc_csr_free(a);

    tc_tiling_stats t;
    tc_error err;
    is_int(tc_tiling_stats_compute(a = from_entries(1, 1, 0, NULL, 1), 0, 8, &t, &err), TC_ERR_ARG,
           "block height 0 refused");
    is_str(err.msg, "bad TC block shape 0x8 (h, w >= 1, h * w <= 65536)", "its message");
    is_int(tc_count_tc_blocks(a, 16, 0), -1, "count: width 0 refused");
    tc_csr_free(a);
}

/* The 17x9 example, 16x8 tiling:
     rows 0..15: (i, i mod 9);  row 3 also every column 0..8;  row 16: (16,2) (16,5)
   Window 0 (rows 0..15) uses all 9 columns. Column counts there: columns
   0..6 have rows c and c+9, columns 7 and 8 one row each; row 3 adds one to
   every column but 3: 3 3 3 2 3 3 3 2 2 (24). Compacted columns 0..7 make
   block 0 (22 nonzeros), column 8 block 1 (2). Window 1 (row 16) has
   columns {2,5}: one block of 2. So 2 windows, 3 blocks, 26 nonzeros, fill
   26 / (3 * 128); nnz per TCB 22 2 2 (mean 26/3; ranks ceil(3k/10): p0..p60
   = 2, p70..p100 = 22); TCB per window 2 1 (mean 1.5, sd 0.5, cv 1/3; ranks
   ceil(2k/10): p0..p50 = 1, p60..p100 = 2). With 16x4 blocks window 0 cuts
   into columns 0..3 (11), 4..7 (11) and 8 (2): 4 blocks of 11 11 2 2. */
static void test_17x9(void)
{
    int32_t e[32][2];
    int n = 0;
    for (int i = 0; i < 16; i++) {
        e[n][0] = i;
        e[n++][1] = i % 9;
    }
    for (int c = 0; c < 9; c++)
        if (c != 3) {
            e[n][0] = 3;
            e[n++][1] = c;
        }
    e[n][0] = 16;
    e[n++][1] = 2;
    e[n][0] = 16;
    e[n++][1] = 5;
    tc_csr *a = from_entries(17, 9, n, (const int32_t(*)[2])e, 1);
    is_int(a->nnz, 26, "17x9: 26 nonzeros");
    tc_tiling_stats t;
    tc_error err;
    ok(tc_tiling_stats_compute(a, 16, 8, &t, &err) == TC_OK, "17x9: tiling computed");
    is_int(t.windows, 2, "17x9: 2 windows");
    is_int(t.empty_windows, 0, "17x9: none empty");
    is_int(t.blocks, 3, "17x9: 3 blocks");
    is_num(t.fill, 26.0 / 384, "17x9: fill 26/384");
    is_num(t.nnz_per_block.min, 2, "17x9: smallest block 2");
    is_num(t.nnz_per_block.max, 22, "17x9: largest block 22");
    is_num(t.nnz_per_block.mean, 26.0 / 3, "17x9: mean nnz per block 26/3");
    is_num(t.nnz_per_block.decile[6], 2, "17x9: nnz per block p60 = 2");
    is_num(t.nnz_per_block.decile[7], 22, "17x9: nnz per block p70 = 22");
    is_num(t.blocks_per_window.mean, 1.5, "17x9: 1.5 blocks per window");
    is_num(t.blocks_per_window.sd, 0.5, "17x9: sd 0.5");
    is_num(t.blocks_per_window.cv, 1.0 / 3, "17x9: cv 1/3");
    is_num(t.blocks_per_window.decile[5], 1, "17x9: blocks per window p50 = 1");
    is_num(t.blocks_per_window.decile[6], 2, "17x9: blocks per window p60 = 2");
    is_int(tc_count_tc_blocks(a, 16, 8), 3, "17x9: count agrees");
    ok(tc_tiling_stats_compute(a, 16, 4, &t, &err) == TC_OK && t.blocks == 4 &&
           t.nnz_per_block.max == 11 && t.nnz_per_block.decile[5] == 2 &&
           t.nnz_per_block.decile[6] == 11,
       "17x9 16x4: blocks of 11 11 2 2");
    tc_report *r = report_of(a, 16, 8);
    is_num(fig(r, "rows", "nnz_max"), 9, "17x9: the full row");
    is_num(fig(r, "rows", "nnz_mean"), 26.0 / 17, "17x9: mean row length 26/17");
    tc_report_free(r);
    tc_csr_free(a);
}

/* ---- random matrices against a brute-force tiling -------------------------- */


/* nnz random entries, plus a dense row and a dense column when asked. */
static tc_csr *random_matrix(int32_t rows, int32_t cols, int64_t nnz, int dense)
{
    int64_t cap = nnz + (dense ? (int64_t)rows + cols : 0) + 1;
    int32_t *ri = malloc(sizeof(int32_t) * cap), *ci = malloc(sizeof(int32_t) * cap);
    int64_t n = 0;
    for (; n < nnz && rows && cols; n++) {
        ri[n] = (int32_t)tap_rand((uint32_t)rows);
        /* clustered columns, so that windows share some */
        ci[n] = (int32_t)((ri[n] / 3 + tap_rand(64)) % cols);
        if (tap_rand(4) == 0)
            ci[n] = (int32_t)tap_rand((uint32_t)cols);
    }
    if (dense && rows && cols) {
        for (int32_t c = 0; c < cols; c++, n++) {
            ri[n] = rows / 2;
            ci[n] = c;
        }
        for (int32_t i = 0; i < rows; i++, n++) {
            ri[n] = i;
            ci[n] = cols - 1;
        }
    }
    tc_csr *a;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, NULL, 1, &err))
        bail(err.msg);
    free(ri);
    free(ci);
    return a;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* The obvious way: gather each window's columns, sort them, cut the sorted
   distinct columns into groups of w, count the nonzeros of each group.
   Returns the histogram of nnz per block (h*w + 1 bins) and the blocks. */
static int64_t brute_tiling(const tc_csr *a, int h, int w, int64_t *hist)
{
    int64_t blocks = 0;
    int32_t *cols = malloc(sizeof(int32_t) * (a->nnz + 1));
    for (int64_t r0 = 0; r0 < a->rows; r0 += h) {
        int64_t r1 = r0 + h < a->rows ? r0 + h : a->rows, n = 0;
        for (int64_t e = a->rowptr[r0]; e < a->rowptr[r1]; e++)
            cols[n++] = a->colidx[e];
        qsort(cols, (size_t)n, sizeof *cols, cmp_i32);
        int64_t distinct = 0, in_block = 0;
        for (int64_t k = 0; k < n; k++) {
            if (k == 0 || cols[k] != cols[k - 1]) {
                if (distinct % w == 0) {
                    if (distinct)
                        hist[in_block]++;
                    in_block = 0;
                    blocks++;
                }
                distinct++;
            }
            in_block++;
        }
        if (n)
            hist[in_block]++;
    }
    free(cols);
    return blocks;
}

/* Equal up to the rounding of the sums (a histogram adds v * count, a list
   adds v count times). */
static int same_dist(const tc_dist *x, const tc_dist *y)
{
    int same = x->count == y->count && x->min == y->min && x->max == y->max &&
               memcmp(x->decile, y->decile, sizeof x->decile) == 0;
    same &= fabs(x->mean - y->mean) <= 1e-12 * y->mean && fabs(x->sd - y->sd) <= 1e-9 * y->sd &&
            fabs(x->cv - y->cv) <= 1e-9 * y->cv;
    if (!same)
        diag("count %lld/%lld min %g/%g max %g/%g mean %.17g/%.17g sd %.17g/%.17g",
             (long long)x->count, (long long)y->count, x->min, y->min, x->max, y->max, x->mean,
             y->mean, x->sd, y->sd);
    return same;
}

static void check_random(int32_t rows, int32_t cols, int64_t nnz, int dense, int h, int w)
{
    tc_csr *a = random_matrix(rows, cols, nnz, dense);
    int64_t *hist = calloc((size_t)h * w + 1, sizeof *hist);
    int64_t want = brute_tiling(a, h, w, hist);
    tc_dist ref;
    int64_t count = 0;
    for (int64_t v = 0; v <= (int64_t)h * w; v++)
        count += hist[v];
    double *vals = malloc(sizeof(double) * (count + 1));
    int64_t n = 0;
    for (int64_t v = 0; v <= (int64_t)h * w; v++)
        for (int64_t k = 0; k < hist[v]; k++)
            vals[n++] = (double)v;
    tc_dist_compute(&ref, vals, n);

    static const char *threads[] = { "1", "2", "3", "7" };
    tc_tiling_stats first;
    int same = 1, match = 1;
    for (int i = 0; i < 4; i++) {
        setenv("TC_THREADS", threads[i], 1);
        tc_tiling_stats t;
        tc_error err;
        if (tc_tiling_stats_compute(a, h, w, &t, &err))
            bail(err.msg);
        if (i == 0)
            first = t;
        same &= memcmp(&t, &first, sizeof t) == 0;
        match &= t.blocks == want && tc_count_tc_blocks(a, h, w) == want &&
                 same_dist(&t.nnz_per_block, &ref);
    }
    unsetenv("TC_THREADS");
    ok(match, "%dx%d, %lld nnz%s, %dx%d blocks: %lld blocks and nnz per block as brute force",
       rows, cols, (long long)a->nnz, dense ? " + dense row/col" : "", h, w, (long long)want);
    ok(same, "  ... identical with 1, 2, 3 and 7 threads");
    free(vals);
    free(hist);
    tc_csr_free(a);
}

/* The block count under an order is the count of the permuted copy, for
   a shuffled order and the reversed one, on 1 and 3 threads. */
static void check_in_order(int32_t rows, int32_t cols, int64_t nnz, int dense)
{
    tc_csr *a = random_matrix(rows, cols, nnz, dense);
    int32_t *order[2] = { malloc(sizeof(int32_t) * (rows + 1)),
                          malloc(sizeof(int32_t) * (rows + 1)) };
    for (int32_t i = 0; i < rows; i++) {
        order[0][i] = i;
        order[1][i] = rows - 1 - i;
    }
    for (int32_t i = rows - 1; i > 0; i--) {
        int32_t j = (int32_t)tap_rand((uint32_t)i + 1), t = order[0][i];
        order[0][i] = order[0][j], order[0][j] = t;
    }
    int match = 1;
    for (int o = 0; o < 2; o++) {
        tc_perm *p;
        tc_csr *b;
        tc_error err;
        if (tc_perm_from_array(&p, rows, order[o], TC_PERM_NEW2OLD, "test", &err) ||
            tc_csr_permute(a, p, NULL, &b, &err))
            bail(err.msg);
        int64_t want = tc_count_tc_blocks(b, 16, 8);
        setenv("TC_THREADS", "1", 1);
        match &= tc_count_tc_blocks_in_order(a, order[o], 16, 8) == want;
        setenv("TC_THREADS", "3", 1);
        match &= tc_count_tc_blocks_in_order(a, order[o], 16, 8) == want;
        unsetenv("TC_THREADS");
        tc_perm_free(p);
        tc_csr_free(b);
    }
    ok(match, "%dx%d, %lld entries%s: blocks under a shuffled and a reversed order are "
       "those of the permuted copies", rows, cols, (long long)nnz, dense ? ", dense" : "");
    free(order[0]);
    free(order[1]);
    tc_csr_free(a);
}

/* tc_csr_used_cols: the columns holding a nonzero, most nonzeros first and
   ties in increasing order, on a 4 x 9 whose columns 0, 3, 4 and 8 are
   empty (column 5 used twice, one row empty); the count alone with out
   NULL; none on a matrix without nonzeros; and a random matrix against a
   brute force: every used column once, counts never rising, ties in
   increasing order. */
static void test_used_cols(void)
{
    static const int32_t rc[][2] = { { 0, 5 }, { 0, 1 }, { 2, 7 }, { 2, 5 }, { 3, 2 },
                                     { 3, 6 } };
    tc_csr *a = from_entries(4, 9, 6, rc, 0);
    int32_t *cols = NULL, n = -1;
    tc_error err;
    tc_status st = tc_csr_used_cols(a, &cols, &n, &err);
    is_int(st, TC_OK, "used columns of a 4 x 9");
    is_int(n, 5, "used columns of a 4 x 9: 5 of 9");
    ok(cols && cols[0] == 5 && cols[1] == 1 && cols[2] == 2 && cols[3] == 6 && cols[4] == 7,
       "used columns of a 4 x 9: 5 (twice), then 1 2 6 7");
    free(cols);
    n = -1;
    is_int(tc_csr_used_cols(a, NULL, &n, &err), TC_OK, "the count alone (out NULL)");
    is_int(n, 5, "the count alone: 5");
    tc_csr_free(a);
    a = from_entries(3, 4, 0, rc, 0);
    cols = (int32_t *)&n;
    st = tc_csr_used_cols(a, &cols, &n, &err);
    ok(st == TC_OK && n == 0 && cols == NULL, "no nonzeros: no used columns, the list NULL");
    tc_csr_free(a);

    /* columns drawn as the square of a uniform: counts from 0 to dozens */
    const int32_t rows = 300, ncols = 5000;
    const int m = 9000;
    int32_t(*rnd)[2] = malloc(sizeof *rnd * m);
    int32_t *uses = calloc(ncols, sizeof *uses);
    uint64_t x = 88172645463325252ULL;
    for (int k = 0; k < m; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const double u = (double)(x >> 11) / 9007199254740992.0;
        rnd[k][0] = (int32_t)(x % rows);
        rnd[k][1] = (int32_t)(u * u * ncols);
    }
    a = from_entries(rows, ncols, m, rnd, 1);
    /* repeated entries are merged: count the nonzeros it kept */
    for (int64_t k = 0; k < a->nnz; k++)
        uses[a->colidx[k]]++;
    int32_t wn = 0;
    for (int32_t j = 0; j < ncols; j++)
        wn += uses[j] > 0;
    st = tc_csr_used_cols(a, &cols, &n, &err);
    int bad = st != TC_OK || n != wn;
    unsigned char *seen = calloc(ncols, 1);
    for (int32_t i = 0; !bad && i < n; i++) {
        const int32_t j = cols[i];
        bad = j < 0 || j >= ncols || !uses[j] || seen[j];
        if (!bad && i > 0)
            bad = uses[cols[i - 1]] < uses[j] ||
                  (uses[cols[i - 1]] == uses[j] && cols[i - 1] >= j);
        if (!bad)
            seen[j] = 1;
    }
    ok(!bad, "300 x 5000, %lld nonzeros: the %d used columns once each, most used (%d) "
       "first, ties in order", (long long)a->nnz, (int)wn, n > 0 && !bad ? (int)uses[cols[0]] : -1);
    free(seen);
    free(cols);
    free(uses);
    free(rnd);
    tc_csr_free(a);
}

int main(void)
{
    test_used_cols();
    test_dist();
    test_3x3();
    test_symmetry();
    test_degenerate();
    test_17x9();
    check_random(1, 1, 1, 0, 16, 8);
    check_random(17, 9, 40, 1, 16, 8);
    check_random(1000, 3, 2000, 0, 16, 8);
    check_random(3, 1000, 2000, 1, 16, 8);
    check_random(1031, 517, 20000, 1, 16, 8);
    check_random(1031, 517, 20000, 0, 7, 3);
    check_random(70001, 5003, 400000, 1, 16, 8);
    check_random(70001, 70001, 600000, 0, 8, 16);
    check_random(5000, 100000, 300000, 1, 256, 256);
    check_in_order(1, 1, 1, 0);
    check_in_order(1031, 517, 20000, 1);
    check_in_order(70001, 5003, 400000, 1);
    return done_testing();
}
