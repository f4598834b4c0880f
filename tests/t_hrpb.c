/* t_hrpb: what is particular to the `hrpb` format (cuTeSpMM, seed 002
   Section 3.2): its arrays against a slow reading of the rules (each
   panel's distinct columns by qsort, each nonzero's block, brick, bit and
   value place from its column's rank) on the awkward shapes and the real
   matrices and against small examples worked out by hand down to the
   bytes of the packed stream, in several panel shapes; panels of 0, 1,
   15, 16, 17 and 4000 active columns; its figures against tcstat's
   synergy section, memory proportional to the blocks, and every refusal
   of validate and of the file reader, with its messages. What every
   format must do (round trip, SpMM, NaN/Inf, threads, files, edited
   arrays) is t_formats'. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "hrpb.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"

static const tc_format *HRPB;
#define GROUP "/formats/hrpb"
static const char *const SHAPES[] = { "TM=16,TK=16", "TM=32,TK=16", "TM=16,TK=4",
                                      "TM=32,TK=64" };
#define NSHAPES 4

static tc_hrpb *build(const tc_csr *a, const char *params)
{
    return (tc_hrpb *)build_fmt(HRPB, a, params);
}

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static float f32_at(const uint8_t *p)
{
    float v;
    memcpy(&v, p, 4);
    return v;
}

/* ------------------------------------------------- the paper's rules */

typedef struct nz {
    int32_t col, row;   /* row within the panel */
    int64_t k;          /* CSR index */
} nz;

static int by_col_row(const void *x, const void *y)
{
    const nz *a = x, *b = y;
    if (a->col != b->col)
        return (a->col > b->col) - (a->col < b->col);
    return (a->row > b->row) - (a->row < b->row);
}

/* Nonzero e of panel p, of compacted column j, where the rules put it:
   block blockedRowPtr[p] + j / TK, activeCols naming its column, its
   brick (brick row e.row / 16, brick column j % TK / 4) stored with its
   bit, its float64 and float32 values at the brick's first value plus the
   bit's rank. */
static int placed(const tc_csr *a, const tc_hrpb *h, int64_t p, const nz *e, int64_t j)
{
    int64_t b = h->blockedRowPtr[p] + j / h->tk;
    int jj = (int)(j % h->tk), bc = jj / 4, br = e->row / 16, bit = e->row % 16 * 4 + jj % 4;
    if (b >= h->blockedRowPtr[p + 1] || h->activeCols[b * h->tk + jj] != e->col)
        return 0;
    const uint8_t *blk = h->packedBlocks + h->sizePtr[b];
    int nb = blk[h->tk / 4];
    int64_t first = 0;
    for (int i = 0; i < blk[bc]; i++)
        first += __builtin_popcountll(u64_at(blk + tc_hrpb_patterns_at(h->tk, nb) + 8 * i));
    for (int i = blk[bc]; i < blk[bc + 1]; i++) {
        uint64_t pat = u64_at(blk + tc_hrpb_patterns_at(h->tk, nb) + 8 * i);
        if (blk[h->tk / 4 + 1 + i] == br) {
            int64_t at = first + __builtin_popcountll(pat & ((UINT64_C(1) << bit) - 1));
            double v = a->val ? a->val[e->k] : 1;
            return (pat >> bit & 1) && (!h->values || h->values[h->valuePtr[b] + at] == v) &&
                   f32_at(blk + tc_hrpb_values_at(h->tk, nb) + 4 * at) == (float)v;
        }
        first += __builtin_popcountll(pat);
    }
    return 0;
}

/* Panel p against the rules: its nonzeros sorted by column (qsort), each
   at its place, ceil(distinct / TK) blocks, as many bits as nonzeros, the
   slots past its last column dummies. */
static int panel_follows(const tc_csr *a, const tc_hrpb *h, int64_t p, nz *e)
{
    int64_t r0 = p * h->tm, r1 = r0 + h->tm < a->rows ? r0 + h->tm : a->rows, n = 0, nd = 0;
    for (int64_t r = r0; r < r1; r++)
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
            e[n++] = (nz){ a->colidx[k], (int32_t)(r - r0), k };
    qsort(e, (size_t)n, sizeof *e, by_col_row);
    int good = 1;
    for (int64_t i = 0; i < n && good; i++) {
        nd += i == 0 || e[i].col != e[i - 1].col;
        good = placed(a, h, p, &e[i], nd - 1);
    }
    int64_t b0 = h->blockedRowPtr[p], nb = h->blockedRowPtr[p + 1] - b0, bits = 0, dummies = 0;
    for (int64_t b = b0; b < b0 + nb; b++) {
        const uint8_t *blk = h->packedBlocks + h->sizePtr[b];
        int bricks = blk[h->tk / 4];
        for (int i = 0; i < bricks; i++)
            bits += __builtin_popcountll(u64_at(blk + tc_hrpb_patterns_at(h->tk, bricks) + 8 * i));
        for (int j = 0; j < h->tk; j++)
            dummies += h->activeCols[b * h->tk + j] == TC_HRPB_DUMMY_COL;
    }
    return good && nb == (nd + h->tk - 1) / h->tk && bits == n && dummies == nb * h->tk - nd;
}

static int follows_paper(const tc_csr *a, const tc_hrpb *h)
{
    nz *e = malloc((size_t)(a->nnz + 1) * sizeof *e);
    int good = h->npanels == (a->rows + h->tm - 1) / h->tm && h->sizePtr[0] == 0 &&
               h->valuePtr[h->nblocks] == a->nnz;
    for (int64_t p = 0; good && p < h->npanels; p++) {
        good = panel_follows(a, h, p, e);
        if (!good)
            diag("panel %" PRId64 " breaks the rules", p);
    }
    free(e);
    return good;
}

/* ----------------------------------------------------- one matrix */

/* The rules on one matrix in every panel shape. */
static void check_matrix(const char *name, const tc_csr *a)
{
    for (int k = 0; k < NSHAPES; k++) {
        tc_hrpb *h = build(a, SHAPES[k]);
        ok(follows_paper(a, h), "%s, %s: arrays follow Section 3.2", name, SHAPES[k]);
        tc_fmt_free(&h->base);
    }
}

/* Panels of 0, 1, 15, 16, 17 and 4000 active columns, then a last panel
   of 5 rows (101 rows): panel 5's columns spread over its 16 rows. */
static tc_csr *panel_sizes(int pattern)
{
    static const int ncols[] = { 0, 1, 15, 16, 17, 4000, 3 };
    int32_t ri[4100], ci[4100];
    int64_t n = 0;
    for (int p = 0; p < 7; p++)
        for (int j = 0; j < ncols[p]; j++, n++) {
            ri[n] = p * 16 + (p == 6 ? j : j % 16);
            ci[n] = (j * 7919 + p) % 5000;
        }
    tc_csr *a;
    tc_error err;
    double *v = malloc((size_t)n * sizeof *v);
    tc_random_fill(v, n, 5, -1, 1);
    if (tc_csr_from_coo(&a, 101, 5000, n, ri, ci, pattern ? NULL : v, 1, &err))
        bail(err.msg);
    free(v);
    return a;
}

static void check_panel_sizes(void)
{
    static const int64_t want[] = { 0, 0, 1, 2, 3, 5, 255, 256 };
    tc_csr *a = panel_sizes(0);
    tc_hrpb *h = build(a, NULL);
    ok(h->npanels == 7 && same_i64(h->blockedRowPtr, want, 8),
       "panels of 0, 1, 15, 16, 17, 4000, 3 columns: 0, 1, 1, 1, 2, 250, 1 blocks");
    const int32_t *c = h->activeCols, D = TC_HRPB_DUMMY_COL;
    ok(c[1] == D && c[16 + 14] != D && c[16 + 15] == D && c[2 * 16 + 15] != D && c[4 * 16] != D &&
       c[4 * 16 + 1] == D,
       "dummy slots: after 1, 15 and 17 columns, none after 16");
    tc_fmt_free(&h->base);
    check_matrix("panels of 0..4000 columns", a);
    tc_csr_free(a);
    a = panel_sizes(1);
    check_matrix("panels of 0..4000 columns, pattern", a);
    tc_csr_free(a);
}

/* ------------------------------------------------------- by hand */

/* 20 x 40, value of (r, c) = 100 r + c + 1 but (3, 5), an explicit zero:
     (0, 0) (0, 17) (3, 5)=0 (15, 39) (16, 16) (19, 0).
   TM 16: panel 0 has active columns 0 5 17 39, one block, one brick
   (bits 0, 13, 2, 63: r*4 + c with c the compacted column), values
   row-major 1 18 0 1540; panel 1 (rows 16-19) has 0 16, one brick with
   (16,16) at bit 1 and (19,0) at bit 12, values 1617 1901. Each block:
   colPtr 0 1 1 1 1, rows 0, two zero bytes, the pattern at byte 8, the
   values at byte 16; 32 bytes (4 or 2 values, rounded up to 16).
   The matrix is fmttest.h's fmt_hand_20x40. */

/* The stream holds exactly `want` (n bytes, then zeros to the end) from
   byte `at`, with float32 values vals (nv of them) at byte `va`. */
static int stream_is(const tc_hrpb *h, int64_t at, const uint8_t *want, int n, int64_t va,
                     const float *vals, int nv)
{
    int good = memcmp(h->packedBlocks + at, want, (size_t)n) == 0;
    for (int i = 0; i < nv; i++)
        good = good && f32_at(h->packedBlocks + at + va + 4 * i) == vals[i];
    return good;
}

static void check_by_hand(void)
{
    tc_csr *a = fmt_hand_20x40();
    tc_hrpb *h = build(a, NULL);
    static const int64_t brp[] = { 0, 1, 2 }, sp[] = { 0, 32, 64 }, vp[] = { 0, 4, 6 };
    int32_t cols[32];
    for (int j = 0; j < 32; j++)
        cols[j] = TC_HRPB_DUMMY_COL;
    memcpy(cols, (int32_t[]){ 0, 5, 17, 39 }, 4 * sizeof *cols);
    memcpy(cols + 16, (int32_t[]){ 0, 16 }, 2 * sizeof *cols);
    is_int(h->tm * 100 + h->tk, 1616, "by hand: TM 16, TK 16 by default");
    ok(h->npanels == 2 && h->nblocks == 2 && same_i64(h->blockedRowPtr, brp, 3),
       "by hand: blockedRowPtr = 0 1 2");
    ok(same_i32(h->activeCols, cols, 32), "by hand: activeCols = 0 5 17 39 -1.. | 0 16 -1..");
    ok(same_i64(h->sizePtr, sp, 3) && same_i64(h->valuePtr, vp, 3),
       "by hand: sizePtr = 0 32 64, valuePtr = 0 4 6");
    uint64_t p0 = UINT64_C(1) | UINT64_C(1) << 2 | UINT64_C(1) << 13 | UINT64_C(1) << 63;
    uint64_t p1 = UINT64_C(1) << 1 | UINT64_C(1) << 12;
    uint8_t b0[16] = { 0, 1, 1, 1, 1, 0, 0, 0 }, b1[16] = { 0, 1, 1, 1, 1, 0, 0, 0 };
    memcpy(b0 + 8, &p0, 8);
    memcpy(b1 + 8, &p1, 8);
    ok(stream_is(h, 0, b0, 16, 16, (float[]){ 1, 18, 0, 1540 }, 4) &&
       stream_is(h, 32, b1, 16, 16, (float[]){ 1617, 1901 }, 2) &&
       h->packedBlocks[32 + 24] == 0 && h->packedBlocks[63] == 0,
       "by hand: packed blocks: colPtr, rows, padding, pattern (bit r*4 + c), values row-major");
    ok(same_f64(h->values, (double[]){ 1, 18, 0, 1540, 1617, 1901 }, 6),
       "by hand: values in the stream's order, (3, 5) = 0 a nonzero");
    is_int(tc_fmt_bytes(&h->base), 3 * 8 + 2 * 16 * 4 + 3 * 8 + 64,
           "by hand: bytes of the GPU layout (blockedRowPtr, activeCols, sizePtr, stream)");
    tc_fmt_free(&h->base);

    /* TM 32: one panel, columns 0 5 16 17 | 39. Brick column 0: brick row
       0 {(0,0) bit 0, (0,17) bit 3, (3,5) bit 13}, brick row 1 {(16,16)
       bit 2, (19,0) bit 12}; brick column 1: brick row 0 {(15,39) bit 60}.
       colPtr 0 2 3 3 3, rows 0 1 0, patterns at 8, values at 32: 56 bytes,
       64 with the padding. */
    h = build(a, "TM=32");
    static const int64_t brp32[] = { 0, 1 }, sp32[] = { 0, 64 };
    uint64_t q[3] = { UINT64_C(1) | UINT64_C(1) << 3 | UINT64_C(1) << 13,
                      UINT64_C(1) << 2 | UINT64_C(1) << 12, UINT64_C(1) << 60 };
    uint8_t b[32] = { 0, 2, 3, 3, 3, 0, 1, 0 };
    memcpy(b + 8, q, sizeof q);
    ok(h->npanels == 1 && same_i64(h->blockedRowPtr, brp32, 2) && same_i64(h->sizePtr, sp32, 2) &&
       same_i32(h->activeCols, (int32_t[]){ 0, 5, 16, 17, 39, -1 }, 6),
       "by hand, TM 32: one panel, one block, columns 0 5 16 17 39");
    ok(stream_is(h, 0, b, 32, 32, (float[]){ 1, 18, 0, 1617, 1901, 1540 }, 6),
       "by hand, TM 32: colPtr 0 2 3 3 3, rows 0 1 0, three patterns, CSC values");
    tc_fmt_free(&h->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------ figures */

static double figure(const tc_report *r, const char *section, const char *key)
{
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        if (strcmp(e->section, section) || strcmp(e->key, key))
            continue;
        if (!e->is_str)
            return e->num;
        return !strcmp(e->str, "low") ? 1 : !strcmp(e->str, "medium") ? 2 : 3;
    }
    return NAN;
}

/* The format's figures against tcstat's synergy section (built at TM 16,
   TK 16, the section's shape): every key the same. */
static int stats_agree(const tc_csr *a, const tc_fmt *m)
{
    static const char *const keys[] = { "panels", "active_cols", "blocks", "bricks", "beta",
                                        "brick_density", "alpha", "oi", "class" };
    tc_report *r = tc_report_new();
    tc_error err;
    int good = tc_format_stats_report(m, a, r, &err) == TC_OK &&
               tc_stats_report(a, 16, 8, r, &err) == TC_OK;
    for (int i = 0; good && i < 9; i++)
        good = figure(r, "synergy", keys[i]) == figure(r, "format.hrpb", keys[i]);
    tc_report_free(r);
    return good;
}

static void check_stats(void)
{
    tc_csr *a = fmt_hand_20x40();
    tc_hrpb *h = build(a, NULL);
    tc_report *r = tc_report_new();
    tc_error err;
    ok(tc_format_stats_report(&h->base, a, r, &err) == TC_OK, "stats of the hand example");
    const char *s = "format.hrpb";
    ok(figure(r, s, "panels") == 2 && figure(r, s, "active_cols") == 6 &&
       figure(r, s, "blocks") == 2 && figure(r, s, "bricks") == 2 && figure(r, s, "beta") == 1,
       "2 panels, 6 active columns, 2 blocks, 2 bricks, beta 1");
    ok(figure(r, s, "alpha") == 6.0 / 96 && figure(r, s, "oi") == 32 &&
       figure(r, s, "brick_density") == 6.0 / 128 && figure(r, s, "class") == 1,
       "alpha 6 / (16 * 6), OI 32, brick density 6/128, low");
    ok(figure(r, s, "empty_panels") == 0 && figure(r, s, "blocks_per_panel_mean") == 1 &&
       figure(r, s, "blocks_per_panel_max") == 1, "blocks per panel: mean 1, max 1, none empty");
    ok(stats_agree(a, &h->base), "the same figures as tcstat's synergy section");
    tc_report_free(r);
    tc_fmt_free(&h->base);

    h = build(a, "TM=32");
    r = tc_report_new();
    ok(tc_format_stats_report(&h->base, a, r, &err) == TC_OK && figure(r, s, "bricks") == 3 &&
       figure(r, s, "beta") == 1.5 && figure(r, s, "alpha") == 6.0 / 144,
       "TM 32: 3 bricks, beta 1.5, alpha 6 / (16 * 9)");
    tc_synergy sy;
    ok(tc_synergy_compute(a, 32, 16, &sy, &err) == TC_OK && sy.alpha == 6.0 / 144 &&
       sy.beta == 1.5, "  as tc_synergy_compute at TM 32 gives them");
    tc_report_free(r);
    tc_fmt_free(&h->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------- memory */

/* 2^31 - 1 columns and 10^6 rows, 4 nonzeros: nothing sized by the
   columns, the panels' arrays only. */
static void check_memory(void)
{
    static const int32_t ri[] = { 0, 999999, 500000, 17 };
    static const int32_t ci[] = { 0, INT32_MAX - 1, 12345678, 15 };
    tc_csr *a = from_coo(1000000, INT32_MAX, 4, ri, ci, NULL);
    tc_hrpb *h = build(a, NULL);
    ok(h->nblocks == 4 && h->npanels == 62500 && follows_paper(a, h) &&
       tc_fmt_bytes(&h->base) == 62501 * 8 + 4 * 64 + 5 * 8 + 4 * 32,
       "10^6 x (2^31 - 1), 4 nonzeros: 4 blocks, memory of 62501 panels and 4 blocks");
    tc_fmt_free(&h->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------- files */

static const char *hand_file(const tc_csr *a)
{
    return fmt_file(a, build_fmt(HRPB, a, NULL), 0);
}

/* What the reader checks before validation: every dataset present, with
   the length the header, blockedRowPtr and sizePtr imply, the counts they
   imply bounded, values exactly when has_values says so, a panel shape of
   the kernel. */
static void check_bad_files(void)
{
    tc_csr *a = fmt_hand_20x40();
    static const int64_t four[4] = { 0 }, many[3] = { 0, 1, 7 }, big[3] = { 0, 32, 100000 };
    static const int32_t cols[31] = { 0 };
    static const uint8_t bytes[63] = { 0 };
    static const double val[5] = { 0 };
    const char *p = hand_file(a);
    put_dataset(p, GROUP, "blockedRowPtr", H5T_NATIVE_INT64, 4, four);
    read_refused(p, GROUP, TC_ERR_FORMAT, "blockedRowPtr of 4",
                 "/blockedRowPtr: expected 3 entries, found 4");
    p = hand_file(a);
    put_dataset(p, GROUP, "blockedRowPtr", H5T_NATIVE_INT64, 3, many);
    read_refused(p, GROUP, TC_ERR_FORMAT, "7 blocks for 6 nonzeros",
                 "/blockedRowPtr[2]: 7 blocks, expected 0 to 6 (every block holds a nonzero)");
    p = hand_file(a);
    put_dataset(p, GROUP, "activeCols", H5T_NATIVE_INT32, 31, cols);
    read_refused(p, GROUP, TC_ERR_FORMAT, "activeCols of 31",
                 "/activeCols: expected 32 entries, found 31");
    p = hand_file(a);
    put_dataset(p, GROUP, "sizePtr", H5T_NATIVE_INT64, 3, big);
    read_refused(p, GROUP, TC_ERR_FORMAT, "sizePtr claiming 100000 bytes",
                 "/sizePtr[2]: 100000 bytes, expected 0 to 2144 (2 full blocks)");
    p = hand_file(a);
    put_dataset(p, GROUP, "packedBlocks", H5T_NATIVE_UINT8, 63, bytes);
    read_refused(p, GROUP, TC_ERR_FORMAT, "packedBlocks of 63",
                 "/packedBlocks: expected 64 entries, found 63");
    p = hand_file(a);
    put_dataset(p, GROUP, "valuePtr", 0, 0, NULL);
    read_refused(p, GROUP, TC_ERR_FORMAT, "no valuePtr", "/valuePtr: no such dataset");
    p = hand_file(a);
    put_dataset(p, GROUP, "values", H5T_NATIVE_DOUBLE, 5, val);
    read_refused(p, GROUP, TC_ERR_FORMAT, "values of 5", "/values: expected 6 entries, found 5");
    p = hand_file(a);
    put_attr(p, GROUP, "TM", 1, 24);
    read_refused(p, GROUP, TC_ERR_FORMAT, "TM=24",
                 ": TM=24 is not a panel height of the kernel (16 or 32: whole bricks of 16 "
                 "rows, the m of mma.m16n8k4)");
    p = hand_file(a);
    put_attr(p, GROUP, "TK", 1, 6);
    read_refused(p, GROUP, TC_ERR_FORMAT, "TK=6",
                 ": TK=6 is not a block width of the kernel (a multiple of 4 from 4 to 64: "
                 "whole bricks of 4 columns, the k of mma.m16n8k4)");
    tc_csr_free(a);
}

/* ------------------------------------------------------- validation */

#define W "m.tcf.h5: " GROUP
#define REFUSED(lvalue, bad, want) FMT_REFUSED(HRPB, &h->base, a, W, lvalue, bad, want)

/* Byte offsets in the hand example's stream (see check_by_hand): block 0
   at 0 (colPtr 0-4, rows 5, padding 6-7, pattern 8-15, values 16-31),
   block 1 at 32 (the same, values 48-55, padding 56-63). */
static void check_refusals(void)
{
    tc_csr *a = fmt_hand_20x40();
    tc_hrpb *h = build(a, NULL);
    uint8_t *s = h->packedBlocks;
    tc_error err;
    ok(HRPB->validate(&h->base, a, "m", &err) == TC_OK, "the hand example validates");
    REFUSED(h->blockedRowPtr[0], 1, W "/blockedRowPtr[0]: 1, expected 0");
    REFUSED(h->blockedRowPtr[1], 3, W "/blockedRowPtr[1]: 3 after 0 (must not decrease, up to 2)");
    REFUSED(h->blockedRowPtr[2], 1, W "/blockedRowPtr[2]: 1, expected 2 (the number of blocks)");
    REFUSED(h->sizePtr[1], 70, W "/sizePtr[1]: 70 after 0 (must not decrease, up to 64)");
    REFUSED(h->sizePtr[1], 24, W "/sizePtr[1]: 24 after 0 (block 0 of 24 bytes: at least 16 and "
            "a multiple of 16)");
    REFUSED(h->sizePtr[1], 16, W "/sizePtr[1]: 16 after 0, expected 32 (block 0: 1 bricks, 4 "
            "nonzeros)");
    REFUSED(h->sizePtr[1], 48, W "/sizePtr[1]: 48 after 0, expected 32 (block 0: 1 bricks, 4 "
            "nonzeros)");
    REFUSED(h->valuePtr[1], 3, W "/valuePtr[1]: 3 after 0, expected 4 (block 0 has 4 nonzeros)");
    REFUSED(h->valuePtr[2], 7, W "/valuePtr[2]: 7 after 4 (must not decrease, up to 6)");
    REFUSED(s[0], 1, W "/packedBlocks[0]: colPtr[0] of block 0 is 1 after 0 (from 0, never "
            "decreasing, at most 4 bricks)");
    REFUSED(s[2], 0, W "/packedBlocks[2]: colPtr[2] of block 0 is 0 after 1 (from 0, never "
            "decreasing, at most 4 bricks)");
    REFUSED(s[4], 4, W "/sizePtr[1]: block 0 of 32 bytes cannot hold its 4 bricks");
    REFUSED(s[4], 5, W "/packedBlocks[4]: colPtr[4] of block 0 is 5 after 1 (from 0, never "
            "decreasing, at most 4 bricks)");
    REFUSED(s[5], 1, W "/packedBlocks[5]: rows[0] of block 0 is brick row 1 (below 1, increasing "
            "in its brick column)");
    REFUSED(*(uint64_t *)(s + 8), 0, W "/packedBlocks[8]: patterns[0] of block 0 is 0 (only "
            "active bricks are stored)");
    REFUSED(s[32 + 10], 1, W "/packedBlocks[40]: patterns[0] of block 1 has a nonzero in row 20, "
            "outside the matrix (20 rows)");
    REFUSED(s[32 + 8], 0x12, W "/valuePtr[2]: 6 after 4, expected 7 (block 1 has 3 nonzeros)");
    REFUSED(s[8], 0, W "/valuePtr[1]: 4 after 0, expected 2 (block 0 has 2 nonzeros)");
    REFUSED(s[6], 7, W "/packedBlocks[6]: 7 in the padding of block 0, expected 0");
    REFUSED(s[63], 1, W "/packedBlocks[63]: 1 in the padding of block 1, expected 0");
    REFUSED(s[16 + 3], 0x40, W "/packedBlocks[16]: float32 value 4 of block 0, expected 1 (values "
            "as float32)");
    REFUSED(h->activeCols[1], 40, W "/activeCols[1]: column 40 is out of range (40 columns)");
    REFUSED(h->activeCols[2], 5, W "/activeCols[2]: column 5 after a column not below it in its "
            "panel (must be strictly ascending, dummies last)");
    REFUSED(h->activeCols[4], 7, W "/activeCols[4]: column 7 after a column not below it in its "
            "panel (must be strictly ascending, dummies last)");
    REFUSED(h->activeCols[3], -1, W "/activeCols[3]: dummy column -1 holds nonzeros");
    REFUSED(h->activeCols[5], 100, W "/activeCols[5]: column 100 is out of range (40 columns)");
    REFUSED(h->activeCols[5], 38, W "/activeCols[5]: column 38 after a dummy column in its panel "
            "(must be strictly ascending, dummies last)");
    REFUSED(h->activeCols[3], 38, W ": does not encode /matrix (row 15 differs)");
    REFUSED(h->values[1], 0.5, W "/packedBlocks[20]: float32 value 18 of block 0, expected 0.5 "
            "(values as float32)");
    REFUSED(h->values, NULL, W "/values: absent, but has_values is 1");
    tc_fmt_free(&h->base);

    /* the bits of a block's columns: slot 4 of block 0 filled and used */
    h = build(a, NULL);
    h->activeCols[4] = 39;
    h->activeCols[3] = 38;
    ok(HRPB->validate(&h->base, a, "m", &err) == TC_ERR_INVALID, "refused: a column without "
       "nonzeros");
    is_str(err.msg, "m/activeCols[4]: column 39 has no nonzero in block 0 (only active columns "
           "are kept)", "  with the message");
    tc_fmt_free(&h->base);

    /* TM 32: two bricks in brick column 0, whose rows must increase */
    h = build(a, "TM=32");
    s = h->packedBlocks;
    REFUSED(s[6], 0, W "/packedBlocks[6]: rows[1] of block 0 is brick row 0 (below 2, increasing "
            "in its brick column)");
    REFUSED(s[16 + 7], 0x80, W "/packedBlocks[16]: patterns[1] of block 0 has a nonzero in row "
            "31, outside the matrix (20 rows)");
    tc_fmt_free(&h->base);

    h = build(a, NULL);
    other_matrix_refused(HRPB, &h->base, a, "m: does not encode /matrix (20x40, 6 nonzeros, "
                         "has_values 1, against 20x41, 6, 1)");
    tc_fmt_free(&h->base);

    build_refused(HRPB, a, "TM=24", "hrpb: TM=24 is not a panel height of the kernel (16 or 32: "
                  "whole bricks of 16 rows, the m of mma.m16n8k4)");
    build_refused(HRPB, a, "TK=6", "hrpb: TK=6 is not a block width of the kernel (a multiple "
                  "of 4 from 4 to 64: whole bricks of 4 columns, the k of mma.m16n8k4)");
    tc_csr_free(a);
}

/* ------------------------------------------------------- real matrices */

static void check_shared_one(const char *name, const tc_csr *a)
{
    check_matrix(name, a);
    tc_hrpb *h = build(a, NULL);
    ok(stats_agree(a, &h->base), "%s: the format's figures are tcstat's synergy section", name);
    tc_synergy s;
    tc_error err;
    if (tc_synergy_compute(a, 16, 16, &s, &err))
        bail(err.msg);
    diag("%s: %" PRId64 " nonzeros, %" PRId64 " blocks, %" PRId64 " bricks, alpha %.4f, %s",
         name, a->nnz, h->nblocks, s.bricks, s.alpha, s.level);
    tc_fmt_free(&h->base);
}

int main(void)
{
    HRPB = tc_format_find("hrpb");
    if (!HRPB)
        bail("no format hrpb");
    check_by_hand();
    check_stats();
    check_panel_sizes();
    for_each_shape(check_matrix);
    check_memory();
    check_bad_files();
    check_refusals();
    for_each_shared(check_shared_one);
    return done_testing();
}
