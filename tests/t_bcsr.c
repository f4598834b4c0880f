/* t_bcsr: what is particular to the `bcsr` format (SMaT, seed 004
   Section IV-B): its arrays against a slow reading of the rules (blocks
   aligned on the h x w grid, one per distinct (row / h, column / w) of the
   nonzeros, in block-row then block-column order; each nonzero's bit and
   value at row-major place r*w + c of its block; nothing else) on the
   awkward shapes and the real matrices and against a small example worked
   out by hand, in both block shapes; the paper's figures, memory
   proportional to the stored blocks, and every refusal of validate and of
   the file reader, with its messages. What every format must do (round
   trip, SpMM, NaN/Inf, threads, files, edited arrays) is t_formats'. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "bcsr.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"

static const tc_format *BCSR;
#define GROUP "/formats/bcsr"
static const char *const SHAPES[] = { "w=16", "w=8" };

static tc_bcsr *build(const tc_csr *a, const char *params)
{
    return (tc_bcsr *)build_fmt(BCSR, a, params);
}

static int bit_at(const tc_bcsr *b, int64_t blk, int64_t k)
{
    return (int)(b->bitmap[blk * tc_bcsr_block_words(b) + k / 64] >> (k % 64) & 1);
}

/* ------------------------------------------------- the paper's rules */

typedef struct cell {
    int64_t br, bc;
} cell;

static int by_block(const void *x, const void *y)
{
    const cell *a = x, *b = y;
    return a->br != b->br ? (a->br > b->br) - (a->br < b->br) : (a->bc > b->bc) - (a->bc < b->bc);
}

/* The block list worked out the slow way: every nonzero's (row / h,
   column / w), sorted with qsort, repeats dropped. */
static cell *reference_blocks(const tc_csr *a, int h, int w, int64_t *n)
{
    cell *c = malloc((size_t)(a->nnz + 1) * sizeof *c);
    for (int32_t r = 0; r < a->rows; r++)
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
            c[k] = (cell){ r / h, a->colidx[k] / w };
    qsort(c, (size_t)a->nnz, sizeof *c, by_block);
    *n = 0;
    for (int64_t k = 0; k < a->nnz; k++)
        if (k == 0 || by_block(&c[k], &c[*n - 1]))
            c[(*n)++] = c[k];
    return c;
}

/* b against the rules: rowPtr and colIdx the reference's blocks; every
   nonzero's bit set and its value at its place; exactly nnz bits; every
   other value zero. Says where on the first difference. */
static int follows_paper(const tc_csr *a, const tc_bcsr *b)
{
    int64_t n, area = tc_bcsr_block_area(b);
    cell *c = reference_blocks(a, b->h, b->w, &n);
    int good = b->nblocks == n && b->nblockrows == (a->rows + b->h - 1) / b->h;
    for (int64_t i = 0; good && i < n; i++)
        good = b->colIdx[i] == c[i].bc && b->rowPtr[c[i].br] <= i && i < b->rowPtr[c[i].br + 1];
    if (!good)
        diag("rowPtr / colIdx differ from the reference's %" PRId64 " blocks", n);
    for (int32_t r = 0; good && r < a->rows; r++)
        for (int64_t k = a->rowptr[r]; good && k < a->rowptr[r + 1]; k++) {
            int64_t br = r / b->h, blk = b->rowPtr[br];
            while (blk < b->rowPtr[br + 1] && b->colIdx[blk] != a->colidx[k] / b->w)
                blk++;
            int64_t at = (r % b->h) * b->w + a->colidx[k] % b->w;
            good = blk < b->rowPtr[br + 1] && bit_at(b, blk, at) &&
                   (!a->val || b->values[blk * area + at] == a->val[k]);
            if (!good)
                diag("nonzero (%d, %d) is not at its place", r, a->colidx[k]);
        }
    int64_t bits = 0, nonzero_padding = 0;
    for (int64_t blk = 0; good && blk < b->nblocks; blk++)
        for (int64_t k = 0; k < area; k++) {
            bits += bit_at(b, blk, k);
            nonzero_padding += b->values && !bit_at(b, blk, k) && b->values[blk * area + k] != 0;
        }
    good = good && bits == a->nnz && nonzero_padding == 0 && !b->values == !a->val;
    free(c);
    return good;
}

/* ----------------------------------------------------- one matrix */

/* The rules on one matrix in both block shapes, and the block count
   tc_count_bcsr_blocks predicts. */
static void check_matrix(const char *name, const tc_csr *a)
{
    for (int k = 0; k < 2; k++) {
        tc_bcsr *b = build(a, SHAPES[k]);
        ok(follows_paper(a, b), "%s, %s: arrays follow Section IV-B", name, SHAPES[k]);
        ok(tc_count_bcsr_blocks(a, b->h, b->w) == b->nblocks,
           "%s, %s: tc_count_bcsr_blocks gives the format's block count", name, SHAPES[k]);
        tc_fmt_free(&b->base);
    }
}

/* ------------------------------------------------------- by hand */

/* 20 x 40, value of (r, c) = 100 r + c + 1 but (3, 5), an explicit zero:
     (0, 0) (0, 17) (3, 5)=0 (15, 39) (16, 16) (19, 0).
   16 x 16: block row 0 has block columns 0 {(0,0), (3,5)}, 1 {(0,17)},
   2 {(15,39): rows past 20 and columns past 40 are padding}; block row 1
   (rows 16-19) has 0 {(19,0)} and 1 {(16,16)}. 16 x 8: block columns 0,
   2, 4 and 0, 2.
   The matrix is fmttest.h's fmt_hand_20x40. */

/* Block blk has exactly the bits `bits` (place, value), nothing else. */
static int block_is(const tc_bcsr *b, int64_t blk, const int64_t *bits, const double *vals,
                    int n)
{
    int64_t area = tc_bcsr_block_area(b), set = 0;
    for (int64_t k = 0; k < area; k++)
        set += bit_at(b, blk, k);
    int good = set == n;
    for (int i = 0; i < n; i++)
        good = good && bit_at(b, blk, bits[i]) && b->values[blk * area + bits[i]] == vals[i];
    return good;
}

static void check_by_hand(void)
{
    tc_csr *a = fmt_hand_20x40();
    tc_bcsr *b = build(a, NULL);
    static const int64_t rp[] = { 0, 3, 5 };
    static const int32_t ci16[] = { 0, 1, 2, 0, 1 }, ci8[] = { 0, 2, 4, 0, 2 };
    is_int(b->h * 100 + b->w, 1616, "by hand: 16 x 16 by default");
    ok(b->nblockrows == 2 && b->nblocks == 5 && same_i64(b->rowPtr, rp, 3),
       "by hand, 16x16: rowPtr = 0 3 5");
    ok(same_i32(b->colIdx, ci16, 5), "by hand, 16x16: colIdx = 0 1 2 | 0 1");
    ok(block_is(b, 0, (int64_t[]){ 0, 3 * 16 + 5 }, (double[]){ 1, 0 }, 2) &&
       block_is(b, 1, (int64_t[]){ 1 }, (double[]){ 18 }, 1) &&
       block_is(b, 2, (int64_t[]){ 15 * 16 + 7 }, (double[]){ 1540 }, 1) &&
       block_is(b, 3, (int64_t[]){ 3 * 16 }, (double[]){ 1901 }, 1) &&
       block_is(b, 4, (int64_t[]){ 0 }, (double[]){ 1617 }, 1),
       "by hand, 16x16: bits at r*16 + c, values row-major, (3, 5) = 0 a nonzero");
    ok(b->bitmap[2 * 4 + 3] == UINT64_C(1) << 55 && b->bitmap[0] == (UINT64_C(1) | UINT64_C(1) << 53),
       "by hand, 16x16: bit 247 is bit 55 of the block's 4th word, bits 0 and 53 of the 1st");
    is_int(tc_fmt_bytes(&b->base), 3 * 8 + 5 * (4 + 256 * 2),
           "by hand, 16x16: bytes of the GPU layout (int64 rowPtr, int32 colIdx, half values)");
    tc_fmt_free(&b->base);

    b = build(a, "w=8");
    ok(b->nblocks == 5 && same_i64(b->rowPtr, rp, 3) && same_i32(b->colIdx, ci8, 5),
       "by hand, 16x8: rowPtr = 0 3 5, colIdx = 0 2 4 | 0 2");
    ok(block_is(b, 0, (int64_t[]){ 0, 3 * 8 + 5 }, (double[]){ 1, 0 }, 2) &&
       block_is(b, 1, (int64_t[]){ 1 }, (double[]){ 18 }, 1) &&
       block_is(b, 2, (int64_t[]){ 127 }, (double[]){ 1540 }, 1) &&
       block_is(b, 3, (int64_t[]){ 24 }, (double[]){ 1901 }, 1) &&
       block_is(b, 4, (int64_t[]){ 0 }, (double[]){ 1617 }, 1),
       "by hand, 16x8: bits at r*8 + c");
    ok(b->bitmap[2 * 2 + 1] == UINT64_C(1) << 63, "by hand, 16x8: bit 127 is bit 63 of word 2");
    is_int(tc_fmt_bytes(&b->base), 3 * 8 + 5 * (4 + 128 * 4),
           "by hand, 16x8: bytes of the GPU layout (float values for TF32)");
    tc_fmt_free(&b->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------ figures */

/* A figure of the format's own section of a tcstat report. */
static double figure(const tc_report *r, const char *key)
{
    return fmt_figure(r, "format.bcsr", key);
}

static void check_stats(void)
{
    tc_csr *a = fmt_hand_20x40();
    tc_bcsr *b = build(a, NULL);
    tc_report *r = tc_report_new();
    tc_error err;
    ok(tc_format_stats_report(&b->base, a, r, &err) == TC_OK, "stats of the hand example");
    ok(figure(r, "blocks") == 5 && figure(r, "blocks_min") == 1 && figure(r, "block_rows") == 2 &&
       figure(r, "empty_block_rows") == 0, "blocks 5, at least 1, 2 block rows, none empty");
    ok(figure(r, "blocks_per_block_row_mean") == 2.5 && figure(r, "blocks_per_block_row_sd") == 0.5 &&
       figure(r, "blocks_per_block_row_max") == 3, "blocks per block row: mean 2.5, sd 0.5, max 3");
    ok(fabs(figure(r, "fill") - 6.0 / (5 * 256)) < 1e-15, "fill = 6 / (5 * 256)");
    tc_report_free(r);
    tc_fmt_free(&b->base);
    tc_csr_free(a);

    /* No nonzeros in 100 rows: 7 block rows, all empty. */
    a = tap_random_matrix(100, 64, 0, -1, -1, 1);
    b = build(a, NULL);
    r = tc_report_new();
    ok(tc_format_stats_report(&b->base, a, r, &err) == TC_OK && figure(r, "blocks") == 0 &&
       figure(r, "empty_block_rows") == 7 && figure(r, "fill") == 0,
       "no nonzeros: 0 blocks, 7 empty block rows, fill 0");
    tc_report_free(r);
    tc_fmt_free(&b->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------- memory */

/* A matrix of 2^31 - 1 columns (134 million block columns), 10^6 rows and
   a few nonzeros: built from arrays of the stored blocks and the block
   rows only. */
static void check_memory(void)
{
    static const int32_t ri[] = { 0, 999999, 500000, 17 }, ci[] = { 0, INT32_MAX - 1, 12345678, 15 };
    tc_csr *a = from_coo(1000000, INT32_MAX, 4, ri, ci, NULL);
    tc_bcsr *b = build(a, NULL);
    ok(b->nblocks == 4 && b->nblockrows == 62500 && follows_paper(a, b) &&
       tc_fmt_bytes(&b->base) == 62501 * 8 + 4 * (4 + 512),
       "10^6 x (2^31 - 1), 4 nonzeros: 4 blocks, memory of 62501 block rows and 4 blocks");
    tc_fmt_free(&b->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------- files */

static const char *hand_file(const tc_csr *a)
{
    return fmt_file(a, build_fmt(BCSR, a, NULL), 0);
}

/* What the reader checks before validation: every dataset present, with
   the length the header and colIdx imply, values exactly when has_values
   says so, a block shape of the kernels. */
static void check_bad_files(void)
{
    tc_csr *a = fmt_hand_20x40();
    static const int64_t rp4[4] = { 0 };
    static const int32_t seven[7] = { 0 }, four[4] = { 0, 1, 2, 0 };
    static const uint64_t words[19] = { 0 };
    static const double val[1280] = { 0 };
    const char *p = hand_file(a);
    put_dataset(p, GROUP, "rowPtr", H5T_NATIVE_INT64, 4, rp4);
    read_refused(p, GROUP, TC_ERR_FORMAT, "rowPtr of 4", "/rowPtr: expected 3 entries, found 4");
    p = hand_file(a);
    put_dataset(p, GROUP, "colIdx", H5T_NATIVE_INT32, 7, seven);
    read_refused(p, GROUP, TC_ERR_FORMAT, "7 blocks for 6 nonzeros",
                 "/colIdx: 7 blocks, more than the 6 nonzeros of the matrix (every stored block "
                 "holds one)");
    p = hand_file(a);
    put_dataset(p, GROUP, "colIdx", H5T_NATIVE_INT32, 4, four);
    read_refused(p, GROUP, TC_ERR_FORMAT, "colIdx of 4: bitmap too long",
                 "/bitmap: expected 16 entries, found 20");
    p = hand_file(a);
    put_dataset(p, GROUP, "bitmap", H5T_NATIVE_UINT64, 19, words);
    read_refused(p, GROUP, TC_ERR_FORMAT, "bitmap of 19", "/bitmap: expected 20 entries, found 19");
    p = hand_file(a);
    put_dataset(p, GROUP, "values", H5T_NATIVE_DOUBLE, 1280 - 1, val);
    read_refused(p, GROUP, TC_ERR_FORMAT, "values of 1279",
                 "/values: expected 1280 entries, found 1279");
    p = hand_file(a);
    put_dataset(p, GROUP, "values", 0, 0, NULL);
    read_refused(p, GROUP, TC_ERR_FORMAT, "no values", "/values: no such dataset");
    p = hand_file(a);
    put_dataset(p, GROUP, "colIdx", 0, 0, NULL);
    read_refused(p, GROUP, TC_ERR_FORMAT, "no colIdx", "/colIdx: no such dataset");
    p = hand_file(a);
    put_attr(p, GROUP, "w", 1, 12);
    read_refused(p, GROUP, TC_ERR_FORMAT, "w=12",
                 ": w=12 is not a block width of the kernels (16 for FP16 m16n8k16, 8 for TF32 "
                 "m16n8k8)");
    tc_csr_free(a);
}

/* ------------------------------------------------------- validation */

#define REFUSED(lvalue, bad, want) \
    FMT_REFUSED(BCSR, &b->base, a, "m.tcf.h5: " GROUP, lvalue, bad, want)

static void check_refusals(void)
{
    tc_csr *a = fmt_hand_20x40();
    tc_bcsr *b = build(a, NULL);
    tc_error err;
    ok(BCSR->validate(&b->base, a, "m", &err) == TC_OK, "the hand example validates");
    REFUSED(b->rowPtr[0], 1, "m.tcf.h5: /formats/bcsr/rowPtr[0]: 1, expected 0");
    REFUSED(b->rowPtr[1], 6,
            "m.tcf.h5: /formats/bcsr/rowPtr[1]: 6 after 0 (must not decrease, up to 5)");
    REFUSED(b->rowPtr[2], 2,
            "m.tcf.h5: /formats/bcsr/rowPtr[2]: 2 after 3 (must not decrease, up to 5)");
    REFUSED(b->rowPtr[2], 4,
            "m.tcf.h5: /formats/bcsr/rowPtr[2]: 4, expected 5 (the number of blocks)");
    REFUSED(b->colIdx[2], 3,
            "m.tcf.h5: /formats/bcsr/colIdx[2]: block column 3 is out of range (3 block "
            "columns of 16)");
    REFUSED(b->colIdx[0], -1,
            "m.tcf.h5: /formats/bcsr/colIdx[0]: block column -1 is out of range (3 block "
            "columns of 16)");
    REFUSED(b->colIdx[1], 0,
            "m.tcf.h5: /formats/bcsr/colIdx[1]: block column 0 after 0 in block row 0 (must be "
            "strictly increasing)");
    REFUSED(b->colIdx[4], 0,
            "m.tcf.h5: /formats/bcsr/colIdx[4]: block column 0 after 0 in block row 1 (must be "
            "strictly increasing)");
    REFUSED(b->bitmap[1 * 4], 0,
            "m.tcf.h5: /formats/bcsr/bitmap: block 1 has no nonzero (only nonzero blocks are "
            "stored)");
    /* block 2 is block column 2 (columns 32-47 of 40): bit 8 of row 0 is
       column 40 */
    REFUSED(b->bitmap[2 * 4], UINT64_C(1) << 8,
            "m.tcf.h5: /formats/bcsr/bitmap: block 2 (block row 0, block column 2) has bits "
            "outside the 20x40 matrix");
    /* block 3 is block row 1 (rows 16-19 of 20): row 4 of it is row 20 */
    REFUSED(b->bitmap[3 * 4 + 1], UINT64_C(1),
            "m.tcf.h5: /formats/bcsr/bitmap: block 3 (block row 1, block column 0) has bits "
            "outside the 20x40 matrix");
    REFUSED(b->bitmap[4 * 4], UINT64_C(3),
            "m.tcf.h5: /formats/bcsr/bitmap: 7 bits set, expected 6 (the nonzeros of the "
            "matrix)");
    REFUSED(b->values[1 * 256 + 2], 0.5,
            "m.tcf.h5: /formats/bcsr/values[258]: 0.5 in padding (bit clear), expected 0");
    REFUSED(b->values[1 * 256 + 1], 0.5,
            "m.tcf.h5: /formats/bcsr: does not encode /matrix (row 0 differs)");
    REFUSED(b->colIdx[4], 2, "m.tcf.h5: /formats/bcsr: does not encode /matrix (row 16 differs)");
    REFUSED(b->values, NULL, "m.tcf.h5: /formats/bcsr/values: absent, but has_values is 1");
    other_matrix_refused(BCSR, &b->base, a, "m: does not encode /matrix (20x40, 6 nonzeros, "
                         "has_values 1, against 20x41, 6, 1)");
    tc_fmt_free(&b->base);

    build_refused(BCSR, a, "w=12", "bcsr: w=12 is not a block width of the kernels (16 for "
                  "FP16 m16n8k16, 8 for TF32 m16n8k8)");
    tc_csr_free(a);
}

/* ------------------------------------------------------- real matrices */

static void check_shared_one(const char *name, const tc_csr *a)
{
    check_matrix(name, a);
    tc_bcsr *b = build(a, NULL);
    diag("%s: %" PRId64 " nonzeros, %" PRId64 " blocks of 16x16, fill %.3f", name, a->nnz,
         b->nblocks, b->nblocks ? (double)a->nnz / (double)(b->nblocks * 256) : 0);
    tc_fmt_free(&b->base);
}

int main(void)
{
    BCSR = tc_format_find("bcsr");
    if (!BCSR)
        bail("no format bcsr");
    check_by_hand();
    check_stats();
    for_each_shape(check_matrix);
    check_memory();
    check_bad_files();
    check_refusals();
    for_each_shared(check_shared_one);
    return done_testing();
}
