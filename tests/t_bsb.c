/* t_bsb: what is particular to the `bsb` format (Fused3S, seed 003
   Section 3.1): its arrays against a slow reading of the rules (each
   window's distinct columns sorted with qsort, place p at local column
   p % 8 of block p / 8, each nonzero's bit at (r % 8) * 8 + c of word
   r / 8, values in bitmap order) on the awkward shapes and the real
   matrices and against a small example worked out by hand, in both
   modes; tro and the window order that tcbsort and the kernels use, the
   figures, and every refusal of validate and of the file reader, with its
   messages. What every format must do (round trip, binary decoding to the
   pattern, SpMM, NaN/Inf, threads, files, edited arrays) is t_formats'. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "bsb.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"

static const tc_format *BSB;
#define GROUP "/formats/bsb"
static const char *const MODES[] = { "values=0", "values=1" };

static tc_bsb *build(const tc_csr *a, const char *params)
{
    return (tc_bsb *)build_fmt(BSB, a, params);
}

static int bit_at(const tc_bsb *x, int64_t b, int r, int c)
{
    return (int)(x->bitmap[2 * b + r / 8] >> (r % 8 * 8 + c) & 1);
}

/* ------------------------------------------------- the paper's rules */

static int by_int32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* The distinct columns of the window's rows [r0, r1), the slow way: all
   its columns, qsort, repeats dropped. */
static int64_t reference_columns(const tc_csr *a, int32_t r0, int32_t r1, int32_t *cols)
{
    int64_t n = 0, d = 0;
    for (int64_t k = a->rowptr[r0]; k < a->rowptr[r1]; k++)
        cols[n++] = a->colidx[k];
    qsort(cols, (size_t)n, sizeof *cols, by_int32);
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || cols[i] != cols[d - 1])
            cols[d++] = cols[i];
    return d;
}

/* Window w's blocks against its reference columns: tro, sptd (dummies
   after the last), each nonzero's bit and value at its place in bitmap
   order, exactly the window's nonzeros as bits. */
static int window_follows(const tc_csr *a, const tc_bsb *x, int64_t w, int32_t *cols)
{
    int32_t r0 = (int32_t)(w * 16), r1 = r0 + 16 < a->rows ? r0 + 16 : a->rows;
    int64_t d = reference_columns(a, r0, r1, cols), b0 = x->tro[w];
    int good = x->tro[w + 1] - b0 == (d + 7) / 8;
    for (int64_t s = 0; good && s < 8 * (x->tro[w + 1] - b0); s++)
        good = x->sptd[8 * b0 + s] == (s < d ? cols[s] : TC_BSB_DUMMY_COL);
    int64_t bits = 0;
    for (int64_t b = b0; good && b < x->tro[w + 1]; b++)
        bits += __builtin_popcountll(x->bitmap[2 * b]) + __builtin_popcountll(x->bitmap[2 * b + 1]);
    good = good && bits == a->rowptr[r1] - a->rowptr[r0];
    for (int32_t r = r0; good && r < r1; r++)
        for (int64_t k = a->rowptr[r]; good && k < a->rowptr[r + 1]; k++) {
            int32_t *at = bsearch(&a->colidx[k], cols, (size_t)d, sizeof *cols, by_int32);
            int64_t p = at - cols, b = b0 + p / 8;
            int lr = r - r0, c = (int)(p % 8);
            good = bit_at(x, b, lr, c);
            if (good && x->values) {
                uint64_t below = (UINT64_C(1) << (lr % 8 * 8 + c)) - 1;
                int64_t v = x->value_offset[b] +
                            (lr >= 8 ? __builtin_popcountll(x->bitmap[2 * b]) : 0) +
                            __builtin_popcountll(x->bitmap[2 * b + lr / 8] & below);
                good = x->values[v] == a->val[k] && signbit(x->values[v]) == signbit(a->val[k]);
            }
        }
    return good;
}

static int follows_paper(const tc_csr *a, const tc_bsb *x)
{
    int32_t *cols = malloc((size_t)(a->nnz + 1) * sizeof *cols);
    int good = x->windows == (a->rows + 15) / 16 && x->tro[0] == 0 &&
               x->nblocks == x->tro[x->windows];
    for (int64_t w = 0; good && w < x->windows; w++)
        if (!(good = window_follows(a, x, w, cols)))
            diag("window %" PRId64 " differs from the reference", w);
    free(cols);
    return good;
}

/* ----------------------------------------------------- one matrix */

/* The rules on one matrix in both modes. */
static void check_matrix(const char *name, const tc_csr *a)
{
    for (int k = 0; k < 2; k++) {
        tc_bsb *x = build(a, MODES[k]);
        ok(follows_paper(a, x), "%s, %s: arrays follow Section 3.1", name, MODES[k]);
        ok(!x->values == !(a->val && k == 1), "%s, %s: values stored exactly when asked for "
           "and the matrix has them", name, MODES[k]);
        tc_fmt_free(&x->base);
    }
}

/* ------------------------------------------------------- by hand */

/* 20 x 20, value of (r, c) = 100 r + c + 1 but (2, 5), an explicit zero.
   Window 0 (rows 0-15): columns 0 1 3 5 7 8 10 12 | 19, two blocks, the
   second with 7 dummy slots; window 1 (rows 16-19): columns 2 4, one
   block. */
static tc_csr *hand_matrix(void)
{
    static const int32_t ri[] = { 0, 0, 1, 2, 3, 4, 5, 8, 9, 15, 16, 19, 19 },
                         ci[] = { 0, 3, 3, 5, 7, 8, 10, 12, 1, 19, 2, 2, 4 };
    double v[13];
    for (int k = 0; k < 13; k++)
        v[k] = 100 * ri[k] + ci[k] + 1;
    v[3] = 0;
    return from_coo(20, 20, 13, ri, ci, v);
}

#define B(n) (UINT64_C(1) << (n))
static const uint64_t HAND_BITMAP[6] = {
    B(0) | B(2) | B(10) | B(19) | B(28) | B(37) | B(46), B(7) | B(9),  /* block 0 */
    0, B(56),                                                      /* (15, 19): row 15 */
    B(0) | B(24) | B(25), 0,                                       /* rows 16 and 19 */
};

static void check_by_hand(void)
{
    tc_csr *a = hand_matrix();
    tc_bsb *x = build(a, NULL);
    static const int64_t tro[] = { 0, 2, 3 }, vo[] = { 0, 9, 10, 13 };
    static const int32_t sptd[] = { 0, 1, 3, 5, 7, 8, 10, 12, 19, -1, -1, -1, -1, -1, -1, -1,
                                    2, 4, -1, -1, -1, -1, -1, -1 };
    static const double vals[] = { 1, 4, 104, 0, 308, 409, 511, 813, 902, 1520, 1603, 1903, 1905 };
    ok(x->windows == 2 && x->nblocks == 3 && same_i64(x->tro, tro, 3), "by hand: tro = 0 2 3");
    ok(same_i32(x->sptd, sptd, 24), "by hand: sptd = 0 1 3 5 7 8 10 12 | 19 -1 x7 | 2 4 -1 x6");
    ok(!memcmp(x->bitmap, HAND_BITMAP, sizeof HAND_BITMAP),
       "by hand: bit (r %% 8) * 8 + c of word r / 8");
    ok(!x->values && !x->value_offset, "by hand: binary by default, no values");
    is_int(tc_fmt_bytes(&x->base), 3 * 8 + 3 * (32 + 16),
           "by hand: bytes of the GPU layout (int64 tro, int32 sptd, 128-bit bitmaps)");
    tc_csr *back;
    tc_error err;
    ok(tc_fmt_to_csr(&x->base, &back, &err) == TC_OK && !back->val && back->nnz == 13 &&
       back->field == TC_FIELD_PATTERN, "by hand, binary: decodes to the 13 nonzeros' pattern");
    tc_csr_free(back);
    tc_fmt_free(&x->base);

    x = build(a, "values=1");
    ok(same_i32(x->sptd, sptd, 24) && !memcmp(x->bitmap, HAND_BITMAP, sizeof HAND_BITMAP),
       "by hand, values=1: the same tro, sptd and bitmap");
    ok(same_f64(x->values, vals, 13) && same_i64(x->value_offset, vo, 4),
       "by hand, values=1: values in bitmap order (0 at (2, 5) kept), value_offset 0 9 10 13");
    is_int(tc_fmt_bytes(&x->base), 3 * 8 + 3 * (32 + 16) + 13 * 4 + 4 * 8,
           "by hand, values=1: plus float32 values and int64 value offsets");
    ok(tc_fmt_to_csr(&x->base, &back, &err) == TC_OK && tc_csr_equal(back, a),
       "by hand, values=1: decodes to the matrix exactly");
    tc_csr_free(back);
    tc_fmt_free(&x->base);
    tc_csr_free(a);
}

/* Every lane l of a warp reads bits 2l and 2l + 1 of each word: the C
   fragment entries (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1) (word 0,
   + 8 rows for word 1), as bsb.h promises the kernels. */
static void check_fragment_order(void)
{
    tc_csr *a = hand_matrix();
    tc_bsb *x = build(a, NULL);
    int good = 1;
    for (int64_t b = 0; b < x->nblocks; b++)
        for (int lane = 0; lane < 32; lane++)
            for (int half = 0; half < 2; half++)
                for (int j = 0; j < 2; j++) {
                    int r = lane / 4 + 8 * half, c = 2 * (lane % 4) + j;
                    good &= (int)(x->bitmap[2 * b + half] >> (2 * lane + j) & 1) == bit_at(x, b, r, c);
                }
    ok(good, "lane l's bits 2l, 2l+1 of word h are its m16n8 C fragment entries");
    tc_fmt_free(&x->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------ tro, order */

static void check_tro_and_order(void)
{
    tc_csr *a = tap_random_matrix(3001, 2000, 5, 1700, 3, 1);
    int64_t *tro = malloc(sizeof *tro * 189), *order = malloc(sizeof *order * 188);
    tc_error err;
    tc_bsb *x = build(a, NULL);
    tc_tiling_stats t;
    ok(tc_bsb_count_tro(a, tro, &err) == TC_OK && same_i64(tro, x->tro, 189),
       "tc_bsb_count_tro: the build's tro");
    ok(tc_tiling_stats_compute(a, 16, 8, &t, &err) == TC_OK && t.blocks == x->nblocks,
       "the same block count as tcstat's 16x8 tiling (%" PRId64 ")", x->nblocks);
    int good = tc_bsb_window_order(tro, 188, order, &err) == TC_OK;
    for (int64_t i = 1; good && i < 188; i++) {
        int64_t tp = tro[order[i - 1] + 1] - tro[order[i - 1]], tn = tro[order[i] + 1] - tro[order[i]];
        good = tp > tn || (tp == tn && order[i - 1] < order[i]);
    }
    ok(good && order[0] == 1700 / 16, "window order: decreasing counts, ties by index, the "
       "dense row's window first");
    static const int64_t hand[] = { 0, 2, 2, 5, 6, 9 }, want[] = { 2, 4, 0, 3, 1 };
    ok(tc_bsb_window_order(hand, 5, order, &err) == TC_OK && same_i64(order, want, 5),
       "window order of counts 2 0 3 1 3: 2 4 0 3 1");
    free(tro);
    free(order);
    tc_fmt_free(&x->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------ figures */

/* A figure of the format's own section of a tcstat report. */
static double figure(const tc_report *r, const char *key)
{
    return fmt_figure(r, "format.bsb", key);
}

static void check_stats(void)
{
    tc_csr *a = hand_matrix();
    tc_bsb *x = build(a, NULL);
    tc_report *r = tc_report_new();
    tc_error err;
    ok(tc_format_stats_report(&x->base, a, r, &err) == TC_OK, "stats of the hand example");
    ok(figure(r, "windows") == 2 && figure(r, "empty_windows") == 0 && figure(r, "blocks") == 3 &&
       figure(r, "tcb_per_window_max") == 2 && figure(r, "tcb_per_window_mean") == 1.5 &&
       figure(r, "dummy_columns") == 13 && figure(r, "values") == 0,
       "2 windows, 3 blocks, at most 2 a window, mean 1.5, 13 dummy slots, binary");
    ok(figure(r, "nnz_per_tcb") == 13.0 / 3 && figure(r, "fill") == 13.0 / 384,
       "13 / 3 nonzeros a block, fill 13 / 384");
    /* Table 3: 32 (N/r + b c) + b r c bits = 32 (2 + 24) + 384 = 1216 bits;
       CSR 32 (20 + 26) = 1472 bits */
    ok(figure(r, "table3_bytes") == 152 && figure(r, "table3_vs_csr") == 1216.0 / 1472,
       "Table 3: 152 bytes, 0.826 of CSR's");
    ok(figure(r, "bytes") == 168, "bytes of the GPU layout: 168");
    tc_report_free(r);
    tc_fmt_free(&x->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------- files */

static const char *hand_file(const tc_csr *a, const char *params)
{
    return fmt_file(a, build_fmt(BSB, a, params), 0);
}

/* What the reader checks before validation: every dataset present, with
   the length the header and tro imply, values exactly when stored. */
static void check_bad_files(void)
{
    tc_csr *a = hand_matrix();
    static const int64_t tro4[4] = { 0 }, tro14[3] = { 0, 2, 14 }, tro_neg[3] = { 0, 2, -1 };
    static const int32_t sptd[25] = { 0 };
    static const uint64_t words[7] = { 0 };
    static const double val[13] = { 0 };
    const char *p = hand_file(a, NULL);
    put_dataset(p, GROUP, "tro", H5T_NATIVE_INT64, 4, tro4);
    read_refused(p, GROUP, TC_ERR_FORMAT, "tro of 4", "/tro: expected 3 entries, found 4");
    p = hand_file(a, NULL);
    put_dataset(p, GROUP, "tro", H5T_NATIVE_INT64, 3, tro14);
    read_refused(p, GROUP, TC_ERR_FORMAT, "14 blocks for 13 nonzeros",
                 "/tro[2]: 14 blocks, expected 0 to 13 (at most one per nonzero)");
    p = hand_file(a, NULL);
    put_dataset(p, GROUP, "tro", H5T_NATIVE_INT64, 3, tro_neg);
    read_refused(p, GROUP, TC_ERR_FORMAT, "-1 blocks",
                 "/tro[2]: -1 blocks, expected 0 to 13 (at most one per nonzero)");
    p = hand_file(a, NULL);
    put_dataset(p, GROUP, "sptd", H5T_NATIVE_INT32, 25, sptd);
    read_refused(p, GROUP, TC_ERR_FORMAT, "sptd of 25", "/sptd: expected 24 entries, found 25");
    p = hand_file(a, NULL);
    put_dataset(p, GROUP, "bitmap", H5T_NATIVE_UINT64, 7, words);
    read_refused(p, GROUP, TC_ERR_FORMAT, "bitmap of 7", "/bitmap: expected 6 entries, found 7");
    p = hand_file(a, NULL);
    put_dataset(p, GROUP, "tro", 0, 0, NULL);
    read_refused(p, GROUP, TC_ERR_FORMAT, "no tro", "/tro: no such dataset");
    p = hand_file(a, NULL);
    put_dataset(p, GROUP, "values", H5T_NATIVE_DOUBLE, 13, val);
    read_refused(p, GROUP, TC_ERR_FORMAT, "values in a binary bsb",
                 "/values: present, but the format is binary (values=0, has_values 1)");
    p = hand_file(a, "values=1");
    put_dataset(p, GROUP, "values", 0, 0, NULL);
    read_refused(p, GROUP, TC_ERR_FORMAT, "no values with values=1", "/values: no such dataset");
    p = hand_file(a, "values=1");
    put_dataset(p, GROUP, "values", H5T_NATIVE_DOUBLE, 12, val);
    read_refused(p, GROUP, TC_ERR_FORMAT, "values of 12",
                 "/values: expected 13 entries, found 12");
    p = hand_file(a, NULL);
    put_attr(p, GROUP, "values", 1, 2);
    read_refused(p, GROUP, TC_ERR_FORMAT, "values=2", ": values=2 is out of range [0, 1]");
    tc_csr_free(a);
}

/* ------------------------------------------------------- validation */

#define REFUSED(lvalue, bad, want) \
    FMT_REFUSED(BSB, &x->base, a, "m.tcf.h5: " GROUP, lvalue, bad, want)
#define M "m.tcf.h5: /formats/bsb"

static void check_refusals(void)
{
    tc_csr *a = hand_matrix();
    tc_bsb *x = build(a, "values=1");
    tc_error err;
    ok(BSB->validate(&x->base, a, "m", &err) == TC_OK, "the hand example validates");
    REFUSED(x->tro[0], 1, M "/tro[0]: 1, expected 0");
    REFUSED(x->tro[1], 4, M "/tro[2]: 3 after 4 (must not decrease)");
    REFUSED(x->nblocks, 2, M "/tro[2]: 3, expected 2 (the number of blocks)");
    REFUSED(x->sptd[3], 20, M "/sptd[3]: column 20 is out of range (20 columns)");
    REFUSED(x->sptd[0], -2, M "/sptd[0]: column -2 is out of range (20 columns)");
    REFUSED(x->sptd[2], 1, M "/sptd[2]: column 1 after column 1 in window 0 (must be strictly "
            "ascending)");
    REFUSED(x->sptd[17], 1, M "/sptd[17]: column 1 after column 2 in window 1 (must be "
            "strictly ascending)");
    REFUSED(x->sptd[7], -1, M "/sptd[7]: the dummy column -1 outside slots 1-7 of window 0's "
            "last block");
    REFUSED(x->sptd[8], -1, M "/sptd[8]: the dummy column -1 outside slots 1-7 of window 0's "
            "last block");
    REFUSED(x->sptd[10], 19, M "/sptd[10]: column 19 after a dummy in window 0 (dummies come "
            "last)");
    REFUSED(x->sptd[9], 19, M "/sptd[9]: column 19 after column 19 in window 0 (must be "
            "strictly ascending)");
    /* (15, 19) moved to the dummy slot 1 of block 1 */
    REFUSED(x->bitmap[3], B(56) | B(57), M "/bitmap: block 1 has a nonzero in its dummy "
            "column 1");
    /* (8, 12) dropped: column 12 of block 0 has no bit left */
    REFUSED(x->bitmap[1], B(9), M "/bitmap: block 0 has no nonzero in column 12 (local column 7)");
    /* window 1 has rows 16-19: local row 4 is row 20 */
    REFUSED(x->bitmap[4], HAND_BITMAP[4] | B(32),
            M "/bitmap: block 2 has bits in rows past the 20 rows of the matrix");
    REFUSED(x->bitmap[5], B(1), M "/bitmap: block 2 has bits in rows past the 20 rows of the "
            "matrix");
    REFUSED(x->bitmap[0], HAND_BITMAP[0] | B(3), M "/bitmap: 14 bits set, expected 13 (the "
            "nonzeros of the matrix)");
    REFUSED(x->bitmap[0], HAND_BITMAP[0] ^ B(2) ^ B(3),
            M ": does not encode /matrix (row 0 differs)");
    REFUSED(x->sptd[17], 3, M ": does not encode /matrix (row 19 differs)");
    REFUSED(x->values[3], 0.5, M ": does not encode /matrix (row 2 differs)");
    REFUSED(x->values[3], -0.0, M ": does not encode /matrix (row 2 differs)");
    REFUSED(x->values, NULL, M "/values: absent, but values=1 and has_values is 1");
    other_matrix_refused(BSB, &x->base, a, "m: does not encode /matrix (20x20, 13 nonzeros, "
                         "has_values 1, against 20x21, 13, 1)");
    tc_fmt_free(&x->base);

    /* binary: the pattern is compared, the values are not there */
    x = build(a, NULL);
    double one = 1;
    REFUSED(x->values, &one, M "/values: present, but values=0 and has_values is 1");
    REFUSED(x->sptd[16], 0, M ": does not encode /matrix (row 16 differs)");
    a->val[0] = 42;
    ok(BSB->validate(&x->base, a, "m", &err) == TC_OK, "binary: other values, same pattern: "
       "valid");
    tc_fmt_free(&x->base);
    build_refused(BSB, a, "h=8", "bsb has no parameter 'h'");
    tc_csr_free(a);
}

/* ------------------------------------------------------- real matrices */

static void check_shared_one(const char *name, const tc_csr *a)
{
    check_matrix(name, a);
    tc_bsb *x = build(a, NULL);
    diag("%s: %" PRId64 " nonzeros, %" PRId64 " TCBs of 16x8, %.2f nonzeros a TCB, %" PRId64
         " bytes binary", name, a->nnz, x->nblocks,
         x->nblocks ? (double)a->nnz / (double)x->nblocks : 0, tc_fmt_bytes(&x->base));
    tc_fmt_free(&x->base);
}

int main(void)
{
    BSB = tc_format_find("bsb");
    if (!BSB)
        bail("no format bsb");
    check_by_hand();
    check_fragment_order();
    check_tro_and_order();
    check_stats();
    for_each_shape(check_matrix);
    check_bad_files();
    check_refusals();
    for_each_shared(check_shared_one);
    return done_testing();
}
