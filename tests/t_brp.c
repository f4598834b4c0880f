/* t_brp: what is particular to the `brp` format (BRP-SpMM, seed 000
   Section IV): its arrays against a brute-force reading of the paper's
   rules and against a small example worked out by hand, windows at the
   edges of a group, its two parts (nnz_part, the spy plot), and every
   refusal of validate and of the file reader, with its messages. What
   every format must do (round trip, SpMM, NaN/Inf, awkward shapes, threads,
   files, edited arrays) is t_formats'. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "brp.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"

static const tc_format *BRP;
#define GROUP "/formats/brp"

/* 16-row windows holding exactly the given numbers of nonzeros, at
   distinct random places of a 16 x cols band. */
static tc_csr *windows_of(const int *nnz, int nwin, int32_t cols)
{
    int64_t n = 0;
    for (int w = 0; w < nwin; w++)
        n += nnz[w];
    int32_t *ri = malloc((size_t)(n + 1) * sizeof *ri), *ci = malloc((size_t)(n + 1) * sizeof *ci);
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    int32_t *cell = malloc((size_t)16 * cols * sizeof *cell);
    int64_t k = 0;
    for (int w = 0; w < nwin; w++) {
        tap_shuffle(cell, 16 * cols);
        for (int i = 0; i < nnz[w]; i++, k++) {
            ri[k] = 16 * w + cell[i] / cols;
            ci[k] = cell[i] % cols;
            v[k] = k + 0.25;
        }
    }
    tc_csr *a = from_coo(16 * nwin, cols, n, ri, ci, v);
    free(ri);
    free(ci);
    free(v);
    free(cell);
    return a;
}

static tc_brp *build(const tc_csr *a, const char *params)
{
    return (tc_brp *)build_fmt(BRP, a, params);
}

/* ------------------------------------------------- the paper's rules */

typedef struct entry {
    int32_t col, row;
    int64_t k;      /* index in the CSR */
} entry;

static int by_col_row(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    return a->col != b->col ? (a->col > b->col) - (a->col < b->col)
                            : (a->row > b->row) - (a->row < b->row);
}

static int by_row_col(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    return a->row != b->row ? (a->row > b->row) - (a->row < b->row)
                            : (a->col > b->col) - (a->col < b->col);
}

/* Compares b with the arrays Section IV-B/C and Alg. 1 prescribe, worked out
   independently of brp.c: each window's nonzeros sorted by (column, row)
   with qsort, the first floor(n / G) * G dealt in order into groups, entry
   i with local_id = (row mod h) * w + i mod w, the rest sorted back by
   (row, column) into the residual CSR. Returns 0 and says where, on the
   first difference. */
static int follows_paper(const tc_csr *a, const tc_brp *b)
{
    int64_t G = (int64_t)b->g * b->w * b->f, grp = 0, tc = 0, rr = 0, rk = 0;
    entry *e = malloc((size_t)(a->nnz + 1) * sizeof *e);
    int good = b->res_row_offset[0] == 0;
    for (int64_t r0 = 0; good && r0 < a->rows; r0 += b->h) {
        int64_t r1 = r0 + b->h < a->rows ? r0 + b->h : a->rows, n = 0;
        for (int64_t r = r0; r < r1; r++)
            for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
                e[n++] = (entry){ a->colidx[k], (int32_t)r, k };
        qsort(e, (size_t)n, sizeof *e, by_col_row);
        int64_t ntc = n / G * G;
        for (int64_t i = 0; good && i < ntc; i++, tc++) {
            if (i % G == 0)
                good = grp < b->ngroups && b->group_window_id[grp++] == r0 / b->h;
            good = good && b->local_id[tc] == (e[i].row - r0) * b->w + i % b->w &&
                   b->old_col_id[tc] == e[i].col &&
                   (!a->val || b->values[tc] == a->val[e[i].k]);
            if (!good)
                diag("TC entry %" PRId64 " (window %" PRId64 ") differs", tc, r0 / b->h);
        }
        qsort(e + ntc, (size_t)(n - ntc), sizeof *e, by_row_col);
        for (int64_t i = ntc; good && i < n; i++, rk++) {
            if (i == ntc || e[i].row != e[i - 1].row) {
                good = rr < b->nres_rows && b->res_row_id[rr] == e[i].row &&
                       b->res_row_offset[rr] == rk;
                rr++;
            }
            good = good && b->res_col_id[rk] == e[i].col &&
                   (!a->val || b->res_values[rk] == a->val[e[i].k]);
            if (!good)
                diag("residual entry %" PRId64 " (row %d) differs", rk, e[i].row);
        }
    }
    good = good && grp == b->ngroups && rr == b->nres_rows && b->res_row_offset[rr] == rk;
    free(e);
    return good;
}

/* ----------------------------------------------------- one matrix */

/* nnz_part: 1 exactly on the residual nonzeros, the end of each listed row. */
static int parts_match(const tc_csr *a, const tc_brp *b)
{
    uint8_t *part = malloc((size_t)a->nnz + 1);
    tc_error err;
    int good = tc_fmt_nnz_part(&b->base, a, part, &err) == TC_OK;
    int64_t ones = 0;
    for (int64_t k = 0; good && k < a->nnz; k++)
        ones += part[k];
    good = good && ones == a->nnz - b->ngroups * tc_brp_group_nnz(b);
    for (int64_t i = 0; good && i < b->nres_rows; i++) {
        int32_t r = b->res_row_id[i];
        int64_t first = a->rowptr[r + 1] - (b->res_row_offset[i + 1] - b->res_row_offset[i]);
        good = part[first] == 1 && (first == a->rowptr[r] || part[first - 1] == 0);
    }
    free(part);
    return good;
}

/* What is particular to brp on one matrix: the paper's arrays, and the
   parts. */
static void check_matrix(const char *name, const tc_csr *a, const char *params)
{
    tc_brp *b = build(a, params);
    ok(follows_paper(a, b), "%s: arrays follow Section IV", name);
    ok(parts_match(a, b), "%s: nnz_part marks the residual nonzeros", name);
    tc_fmt_free(&b->base);
}

static void check_windows(void)
{
    /* Windows of exactly 31, 32 and 33 nonzeros: none, one group, one group
       and one residual nonzero; then 63, 64, 65, 0 and 1. */
    int counts[] = { 31, 32, 33, 63, 64, 65, 0, 1 };
    tc_csr *a = windows_of(counts, 8, 64);
    check_matrix("windows of 31, 32, 33, 63, 64, 65, 0, 1 nonzeros", a, NULL);
    tc_brp *b = build(a, NULL);
    int32_t want_gw[] = { 1, 2, 3, 4, 4, 5, 5 };
    int same = b->ngroups == 7;
    for (int i = 0; same && i < 7; i++)
        same = b->group_window_id[i] == want_gw[i];
    ok(same, "31/32/33/63/64/65: groups in windows 1, 2, 3, 4, 4, 5, 5");
    ok(b->res_row_offset[b->nres_rows] == 31 + 1 + 31 + 1 + 1,
       "31/32/33/63/64/65/0/1: 65 residual nonzeros");
    tc_fmt_free(&b->base);
    check_matrix("the same with h=8, w=4, g=2", a, "h=8,w=4,g=2");
    check_matrix("the same with h=1, w=1, g=1", a, "h=1,w=1,g=1");
    check_matrix("the same with h=256, w=1, g=3", a, "h=256,w=1,g=3");
    tc_csr_free(a);
}

/* ------------------------------------------------------- by hand */

/* 11 x 12, windows of h = 4 rows, blocks 4 x 4, groups of g = 2 blocks
   (G = 8), value of (r, c) = 100 r + c:
     window 0, rows 0-3: row 0 {1, 5, 9}, row 1 {0, 1, 7}, row 2 {5, 11},
       row 3 {1, 2, 11}: 11 nonzeros, in column-major order (c, r) =
       (0,1) (1,0) (1,1) (1,3) (2,3) (5,0) (5,2) (7,1) | (9,0) (11,2) (11,3):
       one group, the last 3 residual (Fig. 5's w0: columns 1 and 11 split
       over local columns);
     window 1, rows 4-7: row 4 {3}, row 6 {0, 8}, row 7 {4, 10}: 5 nonzeros,
       no group (Fig. 5's w2);
     window 2, rows 8-10: row 9 {0..7}: one group, one row dealt over all
       8 local columns. */
static tc_csr *hand_matrix(void)
{
    static const int32_t rc[][2] = {
        { 0, 1 }, { 0, 5 }, { 0, 9 }, { 1, 0 }, { 1, 1 }, { 1, 7 }, { 2, 5 }, { 2, 11 },
        { 3, 1 }, { 3, 2 }, { 3, 11 }, { 4, 3 }, { 6, 0 }, { 6, 8 }, { 7, 4 }, { 7, 10 },
        { 9, 0 }, { 9, 1 }, { 9, 2 }, { 9, 3 }, { 9, 4 }, { 9, 5 }, { 9, 6 }, { 9, 7 },
    };
    int n = (int)(sizeof rc / sizeof rc[0]);
    int32_t ri[32], ci[32];
    double v[32];
    for (int k = 0; k < n; k++) {
        ri[k] = rc[k][0];
        ci[k] = rc[k][1];
        v[k] = 100 * ri[k] + ci[k];
    }
    return from_coo(11, 12, n, ri, ci, v);
}

static void check_by_hand(void)
{
    tc_csr *a = hand_matrix();
    tc_brp *b = build(a, "h=4,w=4,g=2");
    static const int32_t gw[] = { 0, 2 };
    static const uint8_t lid[] = { 4, 1, 6, 15, 12, 1, 10, 7, 4, 5, 6, 7, 4, 5, 6, 7 };
    static const int32_t col[] = { 0, 1, 1, 1, 2, 5, 5, 7, 0, 1, 2, 3, 4, 5, 6, 7 };
    static const double val[] = { 100, 1, 101, 301, 302, 5, 205, 107,
                                  900, 901, 902, 903, 904, 905, 906, 907 };
    static const int32_t rrow[] = { 0, 2, 3, 4, 6, 7 };
    static const int64_t roff[] = { 0, 1, 2, 3, 4, 6, 8 };
    static const int32_t rcol[] = { 9, 11, 11, 3, 0, 8, 4, 10 };
    static const double rval[] = { 9, 211, 311, 403, 600, 608, 704, 710 };
    is_int(b->ngroups, 2, "by hand: 2 groups");
    ok(same_i32(b->group_window_id, gw, 2), "by hand: group_window_id = 0 2");
    ok(!memcmp(b->local_id, lid, sizeof lid),
       "by hand: local_id = 4 1 6 15 12 1 10 7 | 4 5 6 7 4 5 6 7 (row*w + i mod w)");
    ok(same_i32(b->old_col_id, col, 16), "by hand: old_col_id in column-major order");
    ok(same_f64(b->values, val, 16), "by hand: values follow their nonzeros");
    is_int(b->nres_rows, 6, "by hand: 6 residual rows");
    ok(same_i32(b->res_row_id, rrow, 6), "by hand: res_row_id = 0 2 3 4 6 7");
    ok(same_i64(b->res_row_offset, roff, 7), "by hand: res_row_offset = 0 1 2 3 4 6 8");
    ok(same_i32(b->res_col_id, rcol, 8), "by hand: res_col_id = 9 11 11 3 0 8 4 10");
    ok(same_f64(b->res_values, rval, 8), "by hand: res_values");
    is_int(tc_fmt_bytes(&b->base), 2 * 4 + 16 * 9 + 6 * 4 + 7 * 8 + 8 * 8,
           "by hand: bytes of the GPU layout");
    tc_fmt_free(&b->base);

    /* The paper's sizes: 24 nonzeros, fewer than a group of 32 in the one
       window, are all residual. */
    b = build(a, NULL);
    ok(b->ngroups == 0 && b->nres_rows == 8 && b->res_row_offset[8] == 24,
       "by hand, h=16 w=8 g=4: no group, 8 residual rows");
    tc_fmt_free(&b->base);
    tc_csr_free(a);
}

/* The spy plot with parts, one pixel per entry (a 1-pixel frame around):
   with one nonzero per bucket every pixel is at the dark end of its ramp,
   navy for the tensor-core part and brown for the CUDA-core part. */
static void check_picture(void)
{
    tc_csr *a = hand_matrix();
    tc_brp *b = build(a, "h=4,w=4,g=2");
    tc_plot_opts o = TC_PLOT_DEFAULTS;
    o.size = 12;
    o.grid = 0;
    tc_error err;
    uint8_t *parts = malloc((size_t)a->nnz);
    if (tc_fmt_nnz_part(&b->base, a, parts, &err))
        bail(err.msg);
    o.part = parts;
    tc_image *img = NULL;
    ok(tc_plot_spy(a, &o, &img, &err) == TC_OK && img->width == 14 && img->height == 13,
       "spy plot with parts: 12 x 11 entries in a frame");
    static const struct { int r, c; uint8_t rgb[3]; const char *what; } px[] = {
        { 0, 1, { 8, 48, 107 }, "(0, 1) in a group: navy" },
        { 0, 9, { 127, 39, 4 }, "(0, 9) residual: brown" },
        { 9, 7, { 8, 48, 107 }, "(9, 7) in a group: navy" },
        { 4, 3, { 127, 39, 4 }, "(4, 3), in a window without a group: brown" },
        { 5, 5, { 255, 255, 255 }, "(5, 5) empty: white" },
    };
    for (size_t i = 0; img && i < sizeof px / sizeof px[0]; i++)
        ok(!memcmp(img->rgb + ((size_t)(px[i].r + 1) * img->width + px[i].c + 1) * 3,
                   px[i].rgb, 3), "spy plot with parts: %s", px[i].what);
    tc_image_free(img);
    free(parts);
    tc_fmt *csr;
    if (tc_fmt_build(tc_format_find("csr"), a, NULL, &csr, &err))
        bail(err.msg);
    uint8_t part[24];
    ok(!tc_format_has_parts(tc_format_find("csr")) && tc_format_has_parts(BRP),
       "brp has parts, csr has none");
    ok(tc_fmt_nnz_part(csr, a, part, &err) == TC_ERR_UNSUPPORTED, "csr: no parts");
    is_str(err.msg, "format csr does not split nonzeros between tensor and CUDA cores",
           "  with the message");
    tc_fmt_free(csr);
    tc_fmt_free(&b->base);
    tc_csr_free(a);
}

/* Many chunks of windows, uneven (a dense band and empty stretches), built
   by as many threads as there are: the paper's arrays still. */
static void check_large(void)
{
    tc_csr *a = tap_random_matrix(150001, 9000, 6, 77777, 4500, 0);
    check_matrix("150001 rows", a, NULL);
    tc_csr_free(a);
}

/* ------------------------------------------------------- files */

/* What the reader checks before validation: every dataset present, with
   the length the parameters and the header imply, values exactly when
   has_values says so, h*w within a byte. */
static void check_bad_files(void)
{
    tc_csr *a = hand_matrix();
    static const uint8_t lid[15] = { 0 };
    static const int32_t four[4] = { 0, 1, 2, 2 }, nine[9] = { 0 };
    const char *p = fmt_file(a, build_fmt(BRP, a, "h=4,w=4,g=2"), 0);
    put_dataset(p, GROUP, "local_id", H5T_NATIVE_UINT8, 15, lid);
    read_refused(p, GROUP, TC_ERR_FORMAT, "local_id of 15", "/local_id: expected 16 entries, found 15");
    p = fmt_file(a, build_fmt(BRP, a, "h=4,w=4,g=2"), 0);
    put_dataset(p, GROUP, "group_window_id", H5T_NATIVE_INT32, 4, four);
    read_refused(p, GROUP, TC_ERR_FORMAT, "4 groups of 8 in 24 nonzeros",
                 "/group_window_id: 4 groups of 8 nonzeros exceed the 24 nonzeros of the matrix");
    p = fmt_file(a, build_fmt(BRP, a, "h=4,w=4,g=2"), 0);
    put_dataset(p, GROUP, "res_col_id", H5T_NATIVE_INT32, 9, nine);
    read_refused(p, GROUP, TC_ERR_FORMAT, "res_col_id of 9", "/res_col_id: expected 8 entries, found 9");
    p = fmt_file(a, build_fmt(BRP, a, "h=4,w=4,g=2"), 0);
    put_dataset(p, GROUP, "res_row_id", H5T_NATIVE_INT32, 4, four);
    read_refused(p, GROUP, TC_ERR_FORMAT, "res_row_id of 4", "/res_row_offset: expected 5 entries, found 7");
    p = fmt_file(a, build_fmt(BRP, a, "h=4,w=4,g=2"), 0);
    put_dataset(p, GROUP, "res_row_offset", 0, 0, NULL);
    read_refused(p, GROUP, TC_ERR_FORMAT, "no res_row_offset", "/res_row_offset: no such dataset");
    p = fmt_file(a, build_fmt(BRP, a, "h=4,w=4,g=2"), 0);
    put_dataset(p, GROUP, "values", 0, 0, NULL);
    read_refused(p, GROUP, TC_ERR_FORMAT, "no values", "/values: no such dataset");
    p = fmt_file(a, build_fmt(BRP, a, "h=4,w=4,g=2"), 0);
    put_attr(p, GROUP, "h", 1, 32);
    put_attr(p, GROUP, "w", 1, 16);
    read_refused(p, GROUP, TC_ERR_FORMAT, "h=32, w=16", ": h*w = 512 exceeds 256 (local_id is one byte)");
    tc_csr_free(a);
}

/* ------------------------------------------------------- validation */

/* validate's message after one change to b, then the change undone. */
#define REFUSED(lvalue, bad, want) \
    FMT_REFUSED_LABEL(BRP, &b->base, a, "m.tcf.h5: " GROUP, #lvalue " = " #bad, lvalue, bad, \
                      want)

static void check_refusals(void)
{
    tc_csr *a = hand_matrix();
    tc_brp *b = build(a, "h=4,w=4,g=2");
    tc_error err;
    ok(BRP->validate(&b->base, a, "m", &err) == TC_OK, "the hand example validates");
    REFUSED(b->group_window_id[1], 3,
            "m.tcf.h5: /formats/brp/group_window_id[1]: window 3 is out of range "
            "(3 windows of 4 rows)");
    REFUSED(b->group_window_id[1], -1,
            "m.tcf.h5: /formats/brp/group_window_id[1]: window -1 is out of range "
            "(3 windows of 4 rows)");
    REFUSED(b->group_window_id[0], 2,
            "m.tcf.h5: /formats/brp/local_id[3]: row 11 of window 2 is outside the matrix "
            "(11 rows)");
    b->group_window_id[0] = 1;
    REFUSED(b->group_window_id[1], 0,
            "m.tcf.h5: /formats/brp/group_window_id[1]: window 0 after window 1 (must be "
            "ascending)");
    b->group_window_id[0] = 0;
    REFUSED(b->local_id[3], 16, "m.tcf.h5: /formats/brp/local_id[3]: 16 is not below h*w = 16");
    REFUSED(b->local_id[0], 5,
            "m.tcf.h5: /formats/brp/local_id[0]: local column 1, expected 0 (one nonzero per "
            "local column, in order)");
    REFUSED(b->old_col_id[2], 12,
            "m.tcf.h5: /formats/brp/old_col_id[2]: column 12 is out of range (12 columns)");
    REFUSED(b->old_col_id[2], -3,
            "m.tcf.h5: /formats/brp/old_col_id[2]: column -3 is out of range (12 columns)");
    REFUSED(b->old_col_id[2], 0,
            "m.tcf.h5: /formats/brp/old_col_id[2]: column 0 row 1 does not follow column 1 "
            "row 0 (a window's TC nonzeros are in column-major order)");
    REFUSED(b->res_row_id[0], 11,
            "m.tcf.h5: /formats/brp/res_row_id[0]: row 11 is out of range (11 rows)");
    REFUSED(b->res_row_id[1], 0,
            "m.tcf.h5: /formats/brp/res_row_id[1]: row 0 after row 0 (must be strictly "
            "ascending)");
    REFUSED(b->res_row_offset[0], 1,
            "m.tcf.h5: /formats/brp/res_row_offset[0]: 1, expected 0");
    REFUSED(b->res_row_offset[2], 1,
            "m.tcf.h5: /formats/brp/res_row_offset[2]: 1 after 1 (must increase, up to 8)");
    REFUSED(b->res_row_offset[5], 9,
            "m.tcf.h5: /formats/brp/res_row_offset[5]: 9 after 4 (must increase, up to 8)");
    REFUSED(b->res_row_offset[6], 7,
            "m.tcf.h5: /formats/brp/res_row_offset[6]: 7 residual nonzeros, expected 8 (nnz "
            "minus the TC part)");
    REFUSED(b->res_col_id[0], 12,
            "m.tcf.h5: /formats/brp/res_col_id[0]: column 12 is out of range (12 columns)");
    REFUSED(b->res_col_id[5], 0,
            "m.tcf.h5: /formats/brp/res_col_id[5]: column 0 after column 0 in row 6 (must be "
            "strictly ascending)");
    REFUSED(b->res_col_id[0], 7,
            "m.tcf.h5: /formats/brp/res_col_id[0]: column 7 row 0 comes before the last TC "
            "nonzero of window 0 (column 7) in column-major order");
    REFUSED(b->values[3], 0.5, "m.tcf.h5: /formats/brp: does not encode /matrix (row 3 differs)");
    REFUSED(b->res_values[7], 0.5,
            "m.tcf.h5: /formats/brp: does not encode /matrix (row 7 differs)");
    REFUSED(b->values, NULL, "m.tcf.h5: /formats/brp/values: absent, but has_values is 1");
    REFUSED(b->res_values, NULL,
            "m.tcf.h5: /formats/brp/res_values: absent, but has_values is 1");
    other_matrix_refused(BRP, &b->base, a, "m: does not encode /matrix (11x12, 24 nonzeros, "
                         "has_values 1, against 11x13, 24, 1)");
    tc_fmt_free(&b->base);

    /* A window whose residual would fill a group: window 0's 11 nonzeros
       stored as residual under g=4 (G = 16), then read as g=2 (G = 8). */
    b = build(a, "h=4,w=4,g=4");
    REFUSED(b->g, 2,
            "m.tcf.h5: /formats/brp/res_row_offset: window 0 has 8 residual nonzeros, not "
            "fewer than g*w*f = 8");
    tc_fmt_free(&b->base);

    build_refused(BRP, a, "h=32,w=16", "brp: h*w = 512 exceeds 256 (local_id is one byte)");
    tc_csr_free(a);
}

/* ------------------------------------------------------- real matrices */

static void check_shared_one(const char *name, const tc_csr *a)
{
    check_matrix(name, a, NULL);
    tc_brp *b = build(a, NULL);
    diag("%s: %" PRId64 " nonzeros, TC part %.1f%%, %" PRId64 " residual rows", name, a->nnz,
         a->nnz ? 100.0 * (double)(b->ngroups * tc_brp_group_nnz(b)) / (double)a->nnz : 0,
         b->nres_rows);
    tc_fmt_free(&b->base);
}

int main(void)
{
    BRP = tc_format_find("brp");
    if (!BRP)
        bail("no format brp");
    check_by_hand();
    check_picture();
    check_windows();
    check_large();
    check_refusals();
    check_bad_files();
    for_each_shared(check_shared_one);
    return done_testing();
}
