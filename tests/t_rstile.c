/* t_rstile: what is particular to the `rstile` format (RSH-SpMM, seed 001
   Sections 3.2-3.3): its arrays against a slow reading of the rules (the
   row partition, the windows sent whole, the compaction, the bit order,
   the dummy columns, the segments) on the awkward shapes and against a
   small example worked out by hand; the automatic threshold and split
   against their documented rules, with exact decoding and SpMM at the
   thresholds, splits and densities that exercise them; its two parts in
   nnz_part; Fig. 14's table against the plain 16x8 tiling; every refusal
   of validate and of the file reader, with its messages; and the real
   matrices of $TC_SHARED_DATA. What every format must do (round trip,
   SpMM, NaN/Inf, awkward shapes, threads, files, edited arrays) is
   t_formats'. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "rstile.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"

static const tc_format *RSTILE;
#define GROUP "/formats/rstile"

/* The rules as documented (man/tcf.h5.5), restated here. */
#define AUTO_MAX 6
#define PLATEAU_GAIN 0.02
#define MAX_RESIDUAL_SHARE 0.10
#define SPLIT_MEAN_FACTOR 4
#define SPLIT_MIN 32
#define MIN_DENSITY 8.5
#define WHOLE_ROW_MAX 64

static tc_rstile *build(const tc_csr *a, const char *params)
{
    return (tc_rstile *)build_fmt(RSTILE, a, params);
}

/* ------------------------------------------------- the paper's rules */

static int has_entry(const tc_csr *a, int32_t r, int32_t c)
{
    for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
        if (a->colidx[k] == c)
            return 1;
    return 0;
}

static double value_at(const tc_csr *a, int32_t r, int32_t c)
{
    for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
        if (a->colidx[k] == c)
            return a->val ? a->val[k] : 1;
    return NAN;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* The distinct columns of the rows [r0, r1) that res does not mark (the
   window's TC rows), ascending, into L; returns how many. */
static int64_t tc_columns(const tc_csr *a, const uint8_t *res, int32_t r0, int32_t r1,
                          int32_t *L)
{
    int64_t m = 0, u = 0;
    for (int32_t r = r0; r < r1; r++)
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1] && !res[r]; k++)
            L[m++] = a->colidx[k];
    qsort(L, (size_t)m, sizeof *L, cmp_i32);
    for (int64_t i = 0; i < m; i++)
        if (i == 0 || L[i] != L[i - 1])
            L[u++] = L[i];
    return u;
}

/* Window r0 .. r1 - 1 as the window rule sees it: the nonzeros of its TC
   rows (those res does not mark), their blocks (8 distinct columns each,
   L for scratch) and its longest row. */
typedef struct window_fig {
    int64_t tc_nnz, blocks, longest;
} window_fig;

static window_fig window_figures(const tc_csr *a, const uint8_t *res, int32_t r0, int32_t r1,
                                 int32_t *L)
{
    window_fig w = { 0, (tc_columns(a, res, r0, r1, L) + 7) / 8, 0 };
    for (int32_t r = r0; r < r1; r++) {
        int64_t len = a->rowptr[r + 1] - a->rowptr[r];
        w.tc_nnz += res[r] ? 0 : len;
        w.longest = len > w.longest ? len : w.longest;
    }
    return w;
}

/* Where the TC rows (those res does not mark) would fill fewer than d
   nonzeros per block over the whole matrix, marks every non-empty row of
   each window whose own TC rows would, unless a row of the window is
   longer than WHOLE_ROW_MAX. */
static void whole_windows(const tc_csr *a, uint8_t *res, double d)
{
    int32_t *L = malloc((size_t)(a->nnz + 1) * sizeof *L);
    int64_t nwin = (a->rows + 15) / 16, nnz = 0, blocks = 0;
    window_fig *fig = malloc((size_t)(nwin + 1) * sizeof *fig);
    for (int64_t w = 0; w < nwin; w++) {
        int32_t r0 = (int32_t)(w * 16);
        fig[w] = window_figures(a, res, r0, r0 + 16 < a->rows ? r0 + 16 : a->rows, L);
        nnz += fig[w].tc_nnz;
        blocks += fig[w].blocks;
    }
    /* a window's figures read only its own rows, so sending one whole
       leaves the others' as they were */
    const int send = blocks > 0 && (double)nnz < d * (double)blocks;
    for (int64_t w = 0; send && w < nwin; w++) {
        int32_t r0 = (int32_t)(w * 16), r1 = r0 + 16 < a->rows ? r0 + 16 : a->rows;
        if (fig[w].longest <= WHOLE_ROW_MAX && fig[w].blocks > 0 &&
            (double)fig[w].tc_nnz < d * (double)fig[w].blocks)
            for (int32_t r = r0; r < r1; r++)
                res[r] = a->rowptr[r + 1] > a->rowptr[r];
    }
    free(fig);
    free(L);
}

/* res[r] = 1 when row r goes to the residual at threshold t and minimum
   density d, worked out the slow way: 1 to t nonzeros, of which more than
   half lie in a column that no other row of its 16-row window has; then
   the windows sent whole, if any. */
static uint8_t *residual_rows(const tc_csr *a, int64_t t, double d)
{
    uint8_t *res = calloc((size_t)a->rows + 1, 1);
    for (int32_t r = 0; r < a->rows; r++) {
        int64_t len = a->rowptr[r + 1] - a->rowptr[r], shared = 0;
        if (len == 0 || len > t)
            continue;
        int32_t w0 = r - r % 16;
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++) {
            int found = 0;
            for (int32_t o = w0; o < w0 + 16 && o < a->rows && !found; o++)
                found = o != r && has_entry(a, o, a->colidx[k]);
            shared += found;
        }
        res[r] = 2 * shared < len;
    }
    whole_windows(a, res, d);
    return res;
}

/* The arrays Sections 3.2-3.3 prescribe for threshold t and split s. */
typedef struct ref {
    int64_t nseg, nblocks, ntc, nres, rnnz, windows;
    int32_t *rwid, *col, *rrow, *rcol;
    int64_t *rwoff, *roff;
    uint64_t *bitmap;
    double *val, *rval;
} ref;

static void ref_free(ref *f)
{
    free(f->rwid);
    free(f->col);
    free(f->rrow);
    free(f->rcol);
    free(f->rwoff);
    free(f->roff);
    free(f->bitmap);
    free(f->val);
    free(f->rval);
}

/* Window r0's TC part: its TC rows' columns sorted and made unique (L),
   cut into blocks of 8 padded with -1, a bit per nonzero at row * 8 +
   (place in L) mod 8, values block by block in bit order. */
static void ref_window(const tc_csr *a, const uint8_t *res, int32_t r0, int32_t *L, ref *f)
{
    int32_t r1 = r0 + 16 < a->rows ? r0 + 16 : a->rows;
    int64_t u = tc_columns(a, res, r0, r1, L), nb = (u + 7) / 8, b0 = f->nblocks;
    for (int64_t j = 0; j < nb * 8; j++)
        f->col[b0 * 8 + j] = j < u ? L[j] : -1;
    for (int32_t r = r0; r < r1; r++)
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1] && !res[r]; k++) {
            int32_t *at = bsearch(&a->colidx[k], L, (size_t)u, sizeof *L, cmp_i32);
            int64_t p = at - L, lr = r - r0;
            f->bitmap[2 * (b0 + p / 8) + lr / 8] |= (uint64_t)1 << (lr % 8 * 8 + p % 8);
        }
    for (int64_t b = b0; b < b0 + nb; b++)
        for (int bit = 0; bit < 128; bit++)
            if (f->bitmap[2 * b + bit / 64] >> (bit % 64) & 1)
                f->val[f->ntc++] = value_at(a, r0 + bit / 8, f->col[b * 8 + bit % 8]);
    f->nblocks += nb;
    f->windows += nb > 0;
}

/* Segments of s blocks at most, as few as can be, of equal sizes (the
   first ones one larger). */
static void ref_segments(int32_t r0, int64_t b0, int64_t nb, int64_t s, ref *f)
{
    int64_t nseg = (nb + s - 1) / s;
    for (int64_t i = 0; i < nseg; i++) {
        f->rwid[f->nseg] = r0;
        f->rwoff[f->nseg++] = b0;
        b0 += nb / nseg + (i < nb % nseg);
    }
}

static ref reference(const tc_csr *a, int64_t t, int64_t s, double d)
{
    ref f = { 0 };
    int64_t n = a->nnz + 1;
    f.rwid = calloc((size_t)n, sizeof *f.rwid);
    f.rwoff = calloc((size_t)n + 1, sizeof *f.rwoff);
    f.col = calloc((size_t)n * 8, sizeof *f.col);
    f.bitmap = calloc((size_t)n * 2, sizeof *f.bitmap);
    f.val = calloc((size_t)n, sizeof *f.val);
    f.rrow = calloc((size_t)a->rows + 1, sizeof *f.rrow);
    f.roff = calloc((size_t)a->rows + 2, sizeof *f.roff);
    f.rcol = calloc((size_t)n, sizeof *f.rcol);
    f.rval = calloc((size_t)n, sizeof *f.rval);
    int32_t *L = malloc((size_t)n * sizeof *L);
    uint8_t *res = residual_rows(a, t, d);
    for (int32_t r0 = 0; r0 < a->rows; r0 += 16) {
        int64_t b0 = f.nblocks;
        ref_window(a, res, r0, L, &f);
        if (s > 0)
            ref_segments(r0, b0, f.nblocks - b0, s, &f);
    }
    f.rwoff[f.nseg] = f.nblocks;
    for (int32_t r = 0; r < a->rows; r++) {
        if (!res[r])
            continue;
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++, f.rnnz++) {
            f.rcol[f.rnnz] = a->colidx[k];
            f.rval[f.rnnz] = a->val ? a->val[k] : 1;
        }
        f.rrow[f.nres++] = r;
        f.roff[f.nres] = f.rnnz;
    }
    free(L);
    free(res);
    return f;
}

static double min_density(const tc_rstile *x)
{
    return tc_params_get(&x->base.params, "min_density", MIN_DENSITY);
}

/* Compares x with the reference for its own threshold, split and minimum
   density; says where, on the first difference. */
static int follows_paper(const tc_csr *a, const tc_rstile *x)
{
    ref f = reference(a, x->threshold, x->split, min_density(x));
    int good = 1;
#define SAME(cond, what)                                                                \
    if (good && !(cond)) {                                                              \
        good = 0;                                                                       \
        diag("%s differs", what);                                                       \
    }
    SAME(x->nsegments == f.nseg && same_i32(x->row_window_id, f.rwid, f.nseg), "row_window_id");
    SAME(same_i64(x->row_window_offset, f.rwoff, f.nseg + 1), "row_window_offset");
    SAME(x->nblocks == f.nblocks && !memcmp(x->bitmap, f.bitmap, (size_t)f.nblocks * 16),
         "bitmap");
    SAME(same_i32(x->col_id, f.col, 8 * f.nblocks), "col_id");
    SAME(x->value_offset[x->nblocks] == f.ntc, "number of TC values");
    SAME(!a->val || same_f64(x->values, f.val, f.ntc), "values");
    SAME(x->nres_rows == f.nres && same_i32(x->res_row_id, f.rrow, f.nres), "res_row_id");
    SAME(same_i64(x->res_row_offset, f.roff, f.nres + 1), "res_row_offset");
    SAME(same_i32(x->res_col_id, f.rcol, f.rnnz), "res_col_id");
    SAME(!a->val || same_f64(x->res_values, f.rval, f.rnnz), "res_values");
    for (int64_t b = 0; good && b < x->nblocks; b++)
        SAME(x->value_offset[b + 1] - x->value_offset[b] ==
                 __builtin_popcountll(x->bitmap[2 * b]) +
                     __builtin_popcountll(x->bitmap[2 * b + 1]),
             "value_offset");
#undef SAME
    ref_free(&f);
    return good;
}

/* The automatic threshold by its rule, from the reference at each
   threshold 0..8 with no window sent whole: the smallest t <= 6 from which
   neither mean (nonzeros per TC block, per window with blocks) rises by
   more than 2% up to 8, the residual share kept within 10%. The automatic
   split: 4 times the mean blocks per window with blocks (those left once
   the sparse windows have gone whole), rounded up, at least 32. */
static int follows_auto_rules(const tc_csr *a, const tc_rstile *x)
{
    double tcb[9], win[9], share[9];
    int64_t blocks = 0, windows = 0;
    for (int t = 0; t <= 8; t++) {
        ref f = reference(a, t, 0, 0);
        tcb[t] = f.nblocks ? (double)f.ntc / (double)f.nblocks : 0;
        win[t] = f.windows ? (double)f.ntc / (double)f.windows : 0;
        share[t] = a->nnz ? (double)f.rnnz / (double)a->nnz : 0;
        ref_free(&f);
        if (t == x->threshold) {
            f = reference(a, t, 0, min_density(x));
            blocks = f.nblocks;
            windows = f.windows;
            ref_free(&f);
        }
    }
    int want = 0;
    for (; want < AUTO_MAX && share[want + 1] <= MAX_RESIDUAL_SHARE; want++) {
        int flat = 1;
        for (int u = want + 1; u <= 8; u++)
            flat &= tcb[u] <= tcb[want] * (1 + PLATEAU_GAIN) &&
                    win[u] <= win[want] * (1 + PLATEAU_GAIN);
        if (flat)
            break;
    }
    int64_t split = windows ? (SPLIT_MEAN_FACTOR * blocks + windows - 1) / windows : 0;
    split = split < SPLIT_MIN ? SPLIT_MIN : split;
    if (x->threshold != want || x->split != split)
        diag("threshold %d split %d, the rules say %d and %" PRId64, x->threshold, x->split,
             want, split);
    return x->threshold == want && x->split == split;
}

/* ----------------------------------------------------- one matrix */

/* nnz_part: 1 exactly on the nonzeros of the residual rows. */
static int parts_match(const tc_csr *a, const tc_rstile *x)
{
    uint8_t *part = malloc((size_t)a->nnz + 1), *res = calloc((size_t)a->rows + 1, 1);
    for (int64_t i = 0; i < x->nres_rows; i++)
        res[x->res_row_id[i]] = 1;
    tc_error err;
    int good = tc_fmt_nnz_part(&x->base, a, part, &err) == TC_OK;
    for (int32_t r = 0; good && r < a->rows; r++)
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
            good &= part[k] == res[r];
    free(part);
    free(res);
    return good;
}

/* Validation against the matrix, exact decode, SpMM, parts: for the
   parameters the generic tests do not try. */
static void check_built(const char *name, const tc_csr *a, const tc_rstile *x)
{
    check_decodes(&x->base, a, a, 1e-13, name);
    ok(parts_match(a, x), "%s: nnz_part marks the residual rows", name);
}

/* Everything, the paper's arrays included. */
static void check_matrix(const char *name, const tc_csr *a, const char *params)
{
    tc_rstile *x = build(a, params);
    ok(follows_paper(a, x), "%s (%s): arrays follow Sections 3.2-3.3", name,
       params ? params : "defaults");
    check_built(name, a, x);
    tc_fmt_free(&x->base);
}

/* The paper's arrays and the parts with the defaults (the generic tests
   decode and multiply). */
static void check_rules(const char *name, const tc_csr *a)
{
    tc_rstile *x = build(a, NULL);
    ok(follows_paper(a, x), "%s: arrays follow Sections 3.2-3.3", name);
    ok(parts_match(a, x), "%s: nnz_part marks the residual rows", name);
    tc_fmt_free(&x->base);
}

/* Row i of `rows` has about i mod 10 nonzeros (duplicates summed), plus a
   row of 20 every 37 rows; even windows draw columns from 12 shared ones,
   odd windows from all of them: rows of every length around the
   threshold, both sharing and isolated. */
static tc_csr *short_rows(int32_t rows, int32_t cols, int pattern)
{
    int64_t n = (int64_t)rows * 20;
    int32_t *ri = malloc((size_t)n * sizeof *ri), *ci = malloc((size_t)n * sizeof *ci);
    double *v = malloc((size_t)n * sizeof *v);
    int64_t k = 0;
    for (int32_t i = 0; i < rows; i++) {
        int len = i % 37 == 5 ? 20 : i % 10;
        for (int j = 0; j < len; j++, k++) {
            ri[k] = i;
            ci[k] = i / 16 % 2 ? (int32_t)tap_rand((uint32_t)cols)
                               : (int32_t)((i / 16 * 7 + tap_rand(12)) % (uint32_t)cols);
            v[k] = (double)tap_rand(1000) / 8 - 60;
        }
    }
    tc_csr *a = from_coo(rows, cols, k, ri, ci, pattern ? NULL : v);
    free(ri);
    free(ci);
    free(v);
    return a;
}

static void check_thresholds(void)
{
    for (int pattern = 0; pattern < 2; pattern++) {
        tc_csr *a = short_rows(1203, 900, pattern);
        for (int t = 0; t <= 8; t++) {
            char params[64], name[64];
            snprintf(params, sizeof params, "threshold=%d", t);
            snprintf(name, sizeof name, "rows of 0..9%s", pattern ? ", pattern" : "");
            check_matrix(name, a, params);
        }
        check_matrix("rows of 0..9", a, "threshold=3,split=1");
        check_matrix("rows of 0..9", a, "threshold=5,split=2");
        check_matrix("rows of 0..9", a, "threshold=100,split=0");
        check_matrix("rows of 0..9", a, "threshold=2,min_density=12");
        check_matrix("rows of 0..9", a, "min_density=0");
        tc_rstile *x = build(a, NULL);
        ok(follows_auto_rules(a, x), "rows of 0..9%s: automatic threshold and split follow "
           "their rules", pattern ? ", pattern" : "");
        tc_fmt_free(&x->base);
        tc_csr_free(a);
    }
    /* Windows of 10 rows sharing 16 columns and 6 isolated rows of 1, 2
       and 3 nonzeros: 28 columns in 4 blocks, 26 in 4 at threshold 1, 22
       in 3 at 2, 16 in 2 at 3 and after; nonzeros per block 43, 42.5,
       55.3, 80, 80, ...: the plateau starts at 3, with 7% of the nonzeros
       in the residual. */
    static int32_t ri[9000], ci[9000];
    int64_t k = 0;
    for (int32_t i = 0; i < 800; i++) {
        int shared = i % 16 < 10, len = shared ? 16 : 1 + (i % 16 - 10) % 3;
        for (int j = 0; j < len; j++, k++) {
            ri[k] = i;
            ci[k] = shared ? i / 16 * 16 + j : 20000 + i * 3 + j;
        }
    }
    tc_csr *a = from_coo(800, 23000, k, ri, ci, NULL);
    tc_rstile *x = build(a, NULL);
    is_int(x->threshold, 3, "isolated rows of 1, 2, 3 among shared rows of 16: threshold 3");
    ok(follows_auto_rules(a, x), "  which follows the rule");
    check_built("isolated rows among shared ones", a, x);
    tc_fmt_free(&x->base);
    tc_csr_free(a);

    /* A dense row of 70001 in 4376 windows of about 4 blocks (4 times the
       mean is below 32): its window of 8751 blocks cut into 274 segments
       of 31 or 32. */
    a = tap_random_matrix(70001, 70001, 2, 3, -1, 1);
    x = build(a, "min_density=0");
    int64_t longest = 0, shortest = INT64_MAX;
    for (int64_t s = 0; s < x->nsegments && x->row_window_id[s] == 0; s++) {
        int64_t nb = x->row_window_offset[s + 1] - x->row_window_offset[s];
        longest = nb > longest ? nb : longest;
        shortest = nb < shortest ? nb : shortest;
    }
    ok(x->split == 32 && shortest == 31 && longest == 32,
       "a dense row of 70001: its window cut into segments of 31 or 32 blocks");
    tc_fmt_free(&x->base);
    tc_csr_free(a);
}

/* 40 windows of 16 rows of 30 nonzeros; rows of window 3 and 5 of
   WHOLE_ROW_MAX + 1 and WHOLE_ROW_MAX. No two rows share a column, or,
   with dense_odd, the rows of an odd window all take the same 30 columns
   (120 nonzeros per block there). */
static tc_csr *unshared_windows(int dense_odd)
{
    const int32_t rows = 16 * 40;
    static int32_t ri[16 * 40 * 65], ci[16 * 40 * 65];
    int64_t k = 0;
    for (int32_t i = 0; i < rows; i++) {
        int len = i == 16 * 3 ? WHOLE_ROW_MAX + 1 : i == 16 * 5 ? WHOLE_ROW_MAX : 30;
        int shared = dense_odd && i / 16 % 2;
        for (int j = 0; j < len; j++, k++) {
            ri[k] = i;
            ci[k] = shared ? i / 16 * 16 * 65 + j : i * 65 + j;
        }
    }
    return from_coo(rows, rows * 65, k, ri, ci, NULL);
}

/* Windows that share no column (lp_nug30 after any order: every block 8
   nonzeros at most, one per column) go whole, rows of 30 past any
   threshold; a window with a row of WHOLE_ROW_MAX + 1 stays, one with a
   row of WHOLE_ROW_MAX goes; with min_density 0 nothing goes; nor does
   anything where dense windows bring the matrix's blocks to 8.5 nonzeros
   each or more. */
static void check_whole_windows(void)
{
    const int32_t rows = 16 * 40;
    tc_csr *a = unshared_windows(0);
    tc_rstile *x = build(a, NULL);
    int64_t longest = 0;
    for (int64_t i = 0; i < x->nres_rows; i++) {
        int64_t len = x->res_row_offset[i + 1] - x->res_row_offset[i];
        longest = len > longest ? len : longest;
    }
    ok(x->nres_rows == rows - 16 && x->nsegments == 1 && x->row_window_id[0] == 16 * 3 &&
       longest == WHOLE_ROW_MAX, "windows sharing no column: sent whole (rows of 30 and %d), "
       "except the one with a row of %d", WHOLE_ROW_MAX, WHOLE_ROW_MAX + 1);
    ok(follows_paper(a, x), "windows sharing no column: arrays follow the rules");
    check_built("windows sharing no column", a, x);
    tc_fmt_free(&x->base);
    check_matrix("windows sharing no column", a, "threshold=3,min_density=0");
    check_matrix("windows sharing no column", a, "split=2,min_density=8.01");
    x = build(a, "min_density=0");
    ok(x->nres_rows == 0, "windows sharing no column, min_density 0: no residual row");
    tc_fmt_free(&x->base);
    tc_csr_free(a);

    a = unshared_windows(1);
    x = build(a, NULL);
    ok(x->nres_rows == 0, "sparse windows among dense ones (the matrix above 8.5 per block): "
       "none sent whole");
    ok(follows_paper(a, x), "  arrays follow the rules");
    tc_fmt_free(&x->base);
    check_matrix("sparse windows among dense ones", a, "min_density=20");
    tc_csr_free(a);
}

/* ------------------------------------------------------- by hand */

/* 20 x 20, value of (r, c) = 100 r + c:
     window 0 (rows 0-15): row 0 {0..9}, row 1 {1, 3} (both columns
       shared), row 2 {11} (isolated), row 3 {2, 12, 13} (one of three
       shared), row 4 {9, 14} (one of two shared: not most isolated);
     window 1 (rows 16-19): row 16 {17} and row 17 {18, 19} (isolated), row
       19 {0..15}.
   At threshold 2, rows 2, 16 and 17 go to the residual; row 3, isolated
   but of 3 nonzeros, stays. Window 0 keeps columns 0..9, 12, 13, 14:
   blocks {0..7} and {8, 9, 12, 13, 14, -1, -1, -1}; window 1 blocks {0..7}
   and {8..15}, all in local row 3. */
static tc_csr *hand_matrix(void)
{
    int32_t ri[64], ci[64];
    double v[64];
    int n = 0;
    static const int32_t rc[][2] = { { 1, 1 }, { 1, 3 }, { 2, 11 }, { 3, 2 }, { 3, 12 },
                                     { 3, 13 }, { 4, 9 }, { 4, 14 }, { 16, 17 }, { 17, 18 },
                                     { 17, 19 } };
    for (int c = 0; c < 10; c++, n++) {
        ri[n] = 0;
        ci[n] = c;
    }
    for (size_t i = 0; i < sizeof rc / sizeof rc[0]; i++, n++) {
        ri[n] = rc[i][0];
        ci[n] = rc[i][1];
    }
    for (int c = 0; c < 16; c++, n++) {
        ri[n] = 19;
        ci[n] = c;
    }
    for (int k = 0; k < n; k++)
        v[k] = 100 * ri[k] + ci[k];
    return from_coo(20, 20, n, ri, ci, v);
}

static void check_by_hand(void)
{
    tc_csr *a = hand_matrix();
    tc_rstile *x = build(a, "threshold=2,min_density=0");
    static const int32_t rwid[] = { 0, 16 };
    static const int64_t rwoff[] = { 0, 2, 4 };
    static const uint64_t bitmap[] = { 0x04000aff, 0, 0x120c000003, 0, 0xff000000, 0,
                                       0xff000000, 0 };
    static const int32_t col[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, -1, -1, -1,
                                   0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
    static const double val[] = { 0, 1, 2, 3, 4, 5, 6, 7, 101, 103, 302,
                                  8, 9, 312, 313, 409, 414,
                                  1900, 1901, 1902, 1903, 1904, 1905, 1906, 1907,
                                  1908, 1909, 1910, 1911, 1912, 1913, 1914, 1915 };
    static const int64_t voff[] = { 0, 11, 17, 25, 33 };
    static const int32_t rrow[] = { 2, 16, 17 };
    static const int64_t roff[] = { 0, 1, 2, 4 };
    static const int32_t rcol[] = { 11, 17, 18, 19 };
    static const double rval[] = { 211, 1617, 1718, 1719 };
    is_int(x->threshold, 2, "by hand: threshold 2");
    is_int(x->split, 32, "by hand: split 32 (the least automatic one)");
    ok(x->nsegments == 2 && same_i32(x->row_window_id, rwid, 2),
       "by hand: row_window_id = 0 16 (first rows of the windows)");
    ok(same_i64(x->row_window_offset, rwoff, 3), "by hand: row_window_offset = 0 2 4");
    ok(x->nblocks == 4 && !memcmp(x->bitmap, bitmap, sizeof bitmap),
       "by hand: bitmap, row r local column c at bit 8r + c of word r / 8");
    ok(same_i32(x->col_id, col, 32), "by hand: col_id, the last block of window 0 padded "
       "with -1");
    ok(same_f64(x->values, val, 33), "by hand: values in bitmap order");
    ok(same_i64(x->value_offset, voff, 5), "by hand: value_offset = 0 11 17 25 33");
    ok(x->nres_rows == 3 && same_i32(x->res_row_id, rrow, 3), "by hand: res_row_id = 2 16 17");
    ok(same_i64(x->res_row_offset, roff, 4), "by hand: res_row_offset = 0 1 2 4");
    ok(same_i32(x->res_col_id, rcol, 4), "by hand: res_col_id = 11 17 18 19");
    ok(same_f64(x->res_values, rval, 4), "by hand: res_values");
    is_int(tc_fmt_bytes(&x->base), 2 * 4 + 3 * 8 + 4 * 48 + 5 * 8 + 33 * 4 + 3 * 4 + 4 * 8 + 4 * 8,
           "by hand: bytes of the GPU layout");
    tc_fmt_free(&x->base);

    x = build(a, "threshold=3,split=1,min_density=0");
    static const int32_t rwid1[] = { 0, 0, 16, 16 };
    static const int32_t col3[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 14, -1, -1, -1, -1, -1 };
    static const int32_t rrow3[] = { 2, 3, 16, 17 };
    ok(x->nsegments == 4 && same_i32(x->row_window_id, rwid1, 4),
       "by hand, threshold 3, split 1: a segment per block, row_window_id = 0 0 16 16");
    ok(same_i32(x->col_id, col3, 16) && x->bitmap[2] == 0x0600000003,
       "by hand, threshold 3: row 3 leaves, and columns 12 and 13 with it");
    ok(x->nres_rows == 4 && same_i32(x->res_row_id, rrow3, 4),
       "by hand, threshold 3: res_row_id = 2 3 16 17");
    tc_fmt_free(&x->base);

    x = build(a, "threshold=0,min_density=0");
    ok(x->nres_rows == 0 && x->nblocks == 5, "by hand, threshold 0: no residual, 5 blocks");
    tc_fmt_free(&x->base);

    /* The default min_density 8.5: the matrix's TC rows fill 33 nonzeros in
       4 blocks, fewer than 8.5 each, so sparse windows go whole: window 0
       keeps 17 nonzeros in 2 blocks, 8.5 each, not fewer; window 1 keeps
       row 19 alone, 16 nonzeros in 2 blocks, and goes whole, row 19 past
       the threshold. At 9 both go; at 8.25 (the matrix's own), none. */
    x = build(a, "threshold=2");
    static const int32_t rrow8[] = { 2, 16, 17, 19 };
    ok(x->nsegments == 1 && x->nblocks == 2 && x->nres_rows == 4 &&
       same_i32(x->res_row_id, rrow8, 4) && x->res_row_offset[4] - x->res_row_offset[3] == 16,
       "by hand, min_density 8.5: window 1 sent whole (row 19 of 16 nonzeros), window 0 at "
       "8.5 kept");
    ok(follows_paper(a, x), "by hand, min_density 8.5: arrays follow the rules");
    check_built("by hand, min_density 8.5", a, x);
    tc_fmt_free(&x->base);
    x = build(a, "threshold=2,min_density=9");
    ok(x->nblocks == 0 && x->nsegments == 0 && x->nres_rows == 8,
       "by hand, min_density 9: both windows sent whole, 8 residual rows, no block");
    check_built("by hand, min_density 9", a, x);
    tc_fmt_free(&x->base);
    x = build(a, "threshold=2,min_density=8.25");
    ok(x->nblocks == 4 && x->nres_rows == 3, "by hand, min_density 8.25: the matrix's blocks "
       "hold 8.25 each, not fewer: no window sent whole");
    tc_fmt_free(&x->base);
    tc_csr_free(a);
}

/* ------------------------------------------------- Fig. 14's table */

/* The figure `key` of section format.rstile in r (NAN when absent). */
static double figure(const tc_report *r, const char *key)
{
    return fmt_figure(r, "format.rstile", key);
}

static int close_to(double x, double y)
{
    return fabs(x - y) <= 1e-12 * fmax(1, fabs(y));
}

/* The table at threshold 0 is the plain 16x8 tiling (no residual); at
   each forced threshold it gives the built format's own figures. */
static void check_table(const char *name, const tc_csr *a)
{
    tc_error err;
    tc_tiling_stats ts;
    if (tc_tiling_stats_compute(a, 16, 8, &ts, &err))
        bail(err.msg);
    int good = 1;
    for (int t = 0; t <= 8; t++) {
        char params[32], key[32];
        snprintf(params, sizeof params, "threshold=%d,min_density=0", t);
        tc_rstile *x = build(a, params);
        tc_report *r = tc_report_new();
        if (tc_format_stats_report(&x->base, a, r, &err))
            bail(err.msg);
        snprintf(key, sizeof key, "nnz_per_tcb_t%d", t);
        double tcb = figure(r, key);
        snprintf(key, sizeof key, "nnz_per_window_t%d", t);
        double win = figure(r, key);
        snprintf(key, sizeof key, "residual_rows_t%d", t);
        double rows = figure(r, key);
        snprintf(key, sizeof key, "residual_share_t%d", t);
        double share = figure(r, key);
        good &= close_to(tcb, figure(r, "nnz_per_tcb")) &&
                close_to(win, figure(r, "nnz_per_window")) &&
                rows == figure(r, "residual_rows") && close_to(share, figure(r, "residual_share"));
        if (t == 0)
            good &= close_to(tcb, ts.nnz_per_block.mean) && ts.blocks == x->nblocks;
        tc_report_free(r);
        tc_fmt_free(&x->base);
    }
    ok(good, "%s: Fig. 14's table: the 16x8 tiling at 0, the format's figures at 0..8", name);
}

/* ------------------------------------------------------- files */

/* What the reader checks before validation: every dataset present, with
   the length the segments, the bitmaps and the header imply, values
   exactly when has_values says so, the resolved attributes. */
static void check_bad_files(void)
{
    static const int32_t ids[80] = { 0 };
    static const int64_t off3[3] = { 0, 2, 61 }, off2[2] = { 0, 4 };
    static const uint64_t full[8] = { ~0ull, ~0ull, 0, 0, 0, 0, 0, 0 }, seven[7] = { 0 };
    /* The hand example at threshold 2 with one dataset replaced (or
       removed: data NULL), or one attribute set (or removed: attr_set 0). */
    static const struct {
        const char *what, *name;
        int type;           /* of the dataset: an index in types[] */
        hsize_t n;
        const void *data;
        int attr_set;
        int64_t attr;
        tc_status st;
        const char *want;
    } bad[] = {
        { "80 segments", "row_window_id", 0, 80, ids, 0, 0, TC_ERR_FORMAT,
          "/row_window_id: 80 segments exceed the 37 nonzeros of the matrix" },
        { "row_window_offset of 2", "row_window_offset", 1, 2, off2, 0, 0, TC_ERR_FORMAT,
          "/row_window_offset: expected 3 entries, found 2" },
        { "61 blocks", "row_window_offset", 1, 3, off3, 0, 0, TC_ERR_FORMAT,
          "/row_window_offset[2]: 61 blocks, expected 0 to 37 (at most one per nonzero)" },
        { "bitmap of 7", "bitmap", 2, 7, seven, 0, 0, TC_ERR_FORMAT,
          "/bitmap: expected 8 entries, found 7" },
        { "128 bits set", "bitmap", 2, 8, full, 0, 0, TC_ERR_FORMAT,
          "/bitmap: 128 bits set, more than the 37 nonzeros of the matrix" },
        { "col_id of 31", "col_id", 0, 31, ids, 0, 0, TC_ERR_FORMAT,
          "/col_id: expected 32 entries, found 31" },
        { "no values", "values", 0, 0, NULL, 0, 0, TC_ERR_FORMAT, "/values: no such dataset" },
        { "res_col_id of 5", "res_col_id", 0, 5, ids, 0, 0, TC_ERR_FORMAT,
          "/res_col_id: expected 4 entries, found 5" },
        { "no resolved_threshold", "resolved_threshold", 0, 0, NULL, 0, 0, TC_ERR_FORMAT,
          ": missing attribute resolved_threshold" },
        { "resolved_split = -4", "resolved_split", 0, 0, NULL, 1, -4, TC_ERR_FORMAT,
          "/resolved_split: -4 is out of range (0 to 2147483647)" },
        { "resolved_threshold = 3 under threshold=2", "resolved_threshold", 0, 0, NULL, 1, 3,
          TC_ERR_INVALID, "/resolved_threshold: 3, expected 2 (the threshold parameter)" },
    };
    const hid_t types[] = { H5T_NATIVE_INT32, H5T_NATIVE_INT64, H5T_NATIVE_UINT64 };
    tc_csr *a = hand_matrix();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = fmt_file(a, build_fmt(RSTILE, a, "threshold=2,min_density=0"), 0);
        if (!strncmp(bad[i].name, "resolved_", 9))
            put_attr(p, GROUP, bad[i].name, bad[i].attr_set, bad[i].attr);
        else
            put_dataset(p, GROUP, bad[i].name, types[bad[i].type], bad[i].n, bad[i].data);
        read_refused(p, GROUP, bad[i].st, bad[i].what, bad[i].want);
    }
    tc_csr_free(a);
}

/* ------------------------------------------------------- validation */

/* validate's message after one change to x, then the change undone. */
#define REFUSED(lvalue, bad, want) \
    FMT_REFUSED_LABEL(RSTILE, &x->base, a, "m.tcf.h5: " GROUP, #lvalue " = " #bad, lvalue, bad, \
                      want)
#define M "m.tcf.h5: " GROUP

static void check_refusals(void)
{
    tc_csr *a = hand_matrix();
    tc_rstile *x = build(a, "threshold=2,min_density=0");
    tc_error err;
    ok(RSTILE->validate(&x->base, a, "m", &err) == TC_OK, "the hand example validates");
    REFUSED(x->threshold, 7, M "/resolved_threshold: 7, expected 2 (the threshold parameter)");
    REFUSED(x->split, 31, M "/resolved_split: 31, expected at least 32 (split -1: chosen from "
            "the matrix)");
    REFUSED(x->row_window_offset[0], 1, M "/row_window_offset[0]: 1, expected 0");
    REFUSED(x->row_window_id[1], 17, M "/row_window_id[1]: 17 is not the first row of a window "
            "(a multiple of 16 below 20)");
    REFUSED(x->row_window_id[1], 32, M "/row_window_id[1]: 32 is not the first row of a window "
            "(a multiple of 16 below 20)");
    REFUSED(x->row_window_offset[1], 0, M "/row_window_offset[1]: 0 after 0 (a segment holds 1 "
            "to 32 blocks)");
    REFUSED(x->row_window_offset[1], 5, M "/row_window_offset[2]: 4 after 5 (a segment holds 1 "
            "to 32 blocks)");
    REFUSED(x->col_id[3], 20, M "/col_id[3]: column 20 is out of range (20 columns)");
    REFUSED(x->col_id[3], 2, M "/col_id[3]: column 2 after column 2 in its window (must be "
            "strictly ascending, dummies last)");
    REFUSED(x->col_id[7], -1, M "/col_id[7]: dummy column -1 outside the trailing slots of its "
            "window's last block");
    REFUSED(x->col_id[8], -1, M "/col_id[8]: dummy column -1 outside the trailing slots of its "
            "window's last block");
    REFUSED(x->col_id[14], 18, M "/col_id[14]: column 18 after dummy column -1 in its window "
            "(must be strictly ascending, dummies last)");
    REFUSED(x->col_id[16], 5, M "/col_id[17]: column 1 after column 5 in its window (must be "
            "strictly ascending, dummies last)");
    REFUSED(x->bitmap[2], 0x0c000003, M "/bitmap[2]: column 14 (local column 4 of block 1) has "
            "no nonzero");
    REFUSED(x->bitmap[2], 0x120c0000e3, M "/bitmap[2]: a nonzero in dummy column 5 of block 1");
    REFUSED(x->bitmap[7], 1, M "/bitmap[7]: a nonzero in row 24, outside the matrix (20 rows)");
    REFUSED(x->bitmap[6], 0x01ff000000, M "/bitmap[6]: a nonzero in row 20, outside the matrix "
            "(20 rows)");
    REFUSED(x->res_row_id[0], 4, M "/res_row_id[0]: row 4 also has nonzeros in the TC part");
    REFUSED(x->res_row_id[2], 20, M "/res_row_id[2]: row 20 is out of range (20 rows)");
    REFUSED(x->res_row_id[1], 2, M "/res_row_id[1]: row 2 after row 2 (must be strictly "
            "ascending)");
    REFUSED(x->res_row_offset[3], 3, M "/res_row_offset[3]: 3 residual nonzeros, expected 4 (nnz "
            "minus the TC part)");
    REFUSED(x->res_row_offset[2], 1, M "/res_row_offset[2]: 1 after 1 (must increase, up to 4)");
    REFUSED(x->res_col_id[3], 18, M "/res_col_id[3]: column 18 after column 18 in row 17 (must "
            "be strictly ascending)");
    REFUSED(x->res_col_id[0], 20, M "/res_col_id[0]: column 20 is out of range (20 columns)");
    REFUSED(x->values[3], 0.5, M ": does not encode /matrix (row 0 differs)");
    REFUSED(x->res_values[3], 0.5, M ": does not encode /matrix (row 17 differs)");
    REFUSED(x->values, NULL, M "/values: absent, but has_values is 1");
    REFUSED(x->res_values, NULL, M "/res_values: absent, but has_values is 1");
    tc_fmt_free(&x->base);

    /* Row 17 (2 nonzeros) read under threshold 1. */
    x = build(a, "threshold=2,min_density=0");
    x->base.params.kv[0].value = 1;
    REFUSED(x->threshold, 1, M "/res_row_offset[3]: row 17 has 2 nonzeros, more than the "
            "threshold 1 (min_density is 0)");
    tc_fmt_free(&x->base);
    /* Row 2 (1 nonzero) read under threshold 0, its window 0 in the TC
       part; window 1, sent whole, keeps its rows longer than 0. */
    x = build(a, "threshold=2");
    x->base.params.kv[0].value = 0;
    REFUSED(x->threshold, 0, M "/res_row_offset[1]: row 2 has 1 nonzeros, more than the "
            "threshold 0, and its window has TC rows");
    tc_fmt_free(&x->base);
    x = build(a, "threshold=2,split=1,min_density=0");
    REFUSED(x->row_window_id[0], 16, M "/row_window_id[1]: window at row 0 after window at row "
            "16 (must be ascending)");
    REFUSED(x->split, 2, M "/resolved_split: 2, expected 1 (the split parameter)");
    x->base.params.kv[1].value = 0;
    REFUSED(x->split, 2, M "/row_window_id[1]: window at row 0 after window at row 0 (must be "
            "strictly ascending: split is 0)");
    tc_fmt_free(&x->base);
    x = build(a, "threshold=2,split=0,min_density=0");
    ok(x->split == 2 && x->nsegments == 2, "split=0: no window split, resolved split 2 (the "
       "largest window)");
    x->base.params.kv[0].value = -1;
    REFUSED(x->threshold, 7, M "/resolved_threshold: 7, expected 0 to 6 (threshold -1: chosen "
            "from the matrix)");
    tc_fmt_free(&x->base);

    x = build(a, "threshold=2,min_density=0");
    other_matrix_refused(RSTILE, &x->base, a, "m: does not encode /matrix (20x20, 37 nonzeros, "
                         "has_values 1, against 20x21, 37, 1)");
    tc_csr *wider;
    if (tc_csr_copy(a, &wider, &err))
        bail(err.msg);
    wider->cols = 21;
    uint8_t part[40];
    ok(tc_fmt_nnz_part(&x->base, wider, part, &err) == TC_ERR_ARG, "nnz_part refuses another "
       "matrix");
    tc_fmt_free(&x->base);
    tc_csr_free(wider);
    tc_csr_free(a);
}

/* ------------------------------------------------------- real matrices */

static void check_shared_one(const char *name, const tc_csr *a)
{
    check_rules(name, a);
    tc_rstile *x = build(a, NULL);
    diag("%s: %" PRId64 " nonzeros, threshold %d, split %d, %" PRId64 " blocks (%" PRId64
         " segments), residual %.1f%% of nonzeros in %" PRId64 " rows", name, a->nnz,
         x->threshold, x->split, x->nblocks, x->nsegments,
         a->nnz ? 100.0 * (double)x->res_row_offset[x->nres_rows] / (double)a->nnz : 0,
         x->nres_rows);
    tc_fmt_free(&x->base);
    if (a->nnz < 300000)
        check_table(name, a);
}

int main(void)
{
    RSTILE = tc_format_find("rstile");
    if (!RSTILE)
        bail("no format rstile");
    check_by_hand();
    for_each_shape(check_rules);
    check_thresholds();
    check_whole_windows();
    tc_csr *a = short_rows(3000, 2000, 0);
    check_table("rows of 0..9", a);
    tc_csr_free(a);
    a = short_rows(150001, 4500, 0);
    check_rules("150001 rows of 0..9 and 20", a);
    tc_csr_free(a);
    check_refusals();
    check_bad_files();
    for_each_shared(check_shared_one);
    return done_testing();
}
