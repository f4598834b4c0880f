/* t_traffic: the common SpMM floor (tc_csr_device_bytes,
   tc_spmm_floor_bytes) and the traffic model (tc_traffic_predict) on cases
   whose bytes are worked out by hand: LRU hits and evictions, windows that
   run at once, aligned column units, a band matrix whose B fits L2 (B read
   once) and a random one whose B does not (about one B row per gathered
   column). */
#include "config.h"
#include <stdlib.h>
#include "tcsparse.h"
#include "tap.h"
#include "testmat.h"

/* The pattern matrix of n (row, column) pairs; the test stops if it
   cannot be built. */
static tc_csr *pattern(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                       const int32_t *ci)
{
    tc_csr *a;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, NULL, 1, &err))
        tap_bail(err.msg);
    return a;
}

/* A pattern matrix from its rows' column lists, each list ended by -1. */
static tc_csr *from_rows(int32_t rows, int32_t cols, const int32_t *lists)
{
    int32_t ri[64], ci[64];
    int n = 0;
    for (int32_t i = 0; i < rows; i++, lists++)
        for (; *lists >= 0; lists++, n++) {
            ri[n] = i;
            ci[n] = *lists;
        }
    return pattern(rows, cols, n, ri, ci);
}

/* The model of a with everything but n, the window and L2 at defaults. */
static tc_traffic predict(const tc_csr *a, int32_t n, int32_t window_rows, int32_t col_unit,
                          int64_t l2_bytes, int32_t inflight_rows)
{
    tc_traffic_params p;
    tc_traffic_defaults(&p, n, 1000);
    p.window_rows = window_rows;
    p.col_unit = col_unit;
    p.l2_bytes = l2_bytes;
    p.inflight_rows = inflight_rows;
    tc_traffic t;
    tc_error err;
    if (tc_traffic_predict(a, &p, &t, &err))
        tap_bail(err.msg);
    return t;
}

static void floor_bytes(void)
{
    /* rows 0..2: {0, 1}, {2, 3}, {0, 1}: 6 nonzeros, 3 x 4 */
    static const int32_t lists[] = { 0, 1, -1, 2, 3, -1, 0, 1, -1 };
    tc_csr *a = from_rows(3, 4, lists);
    is_int(tc_csr_device_bytes(a), 4 * 4 + 6 * 4, "pattern CSR: int32 rowptr and columns only");
    is_int(tc_spmm_floor_bytes(a, 8), 4 * 4 + 6 * 4 + (3 + 4) * 8 * 4,
           "floor at n = 8: A, then B (4 x 8) and C (3 x 8) in float32");
    double v[6] = { 1, 2, 3, 4, 5, 6 };
    a->val = v;
    is_int(tc_csr_device_bytes(a), 4 * 4 + 6 * 8, "with values: float32 values too");
    a->val = NULL;
    tc_csr_free(a);
    /* past 2^31 nonzeros the row pointers are int64; only the shape is read */
    tc_csr big = { .rows = 10, .cols = 10, .nnz = (int64_t)3 << 30 };
    is_int(tc_csr_device_bytes(&big), 11 * 8 + ((int64_t)3 << 30) * 4,
           "past 2^31 nonzeros: int64 row pointers");
}

static void by_hand(void)
{
    static const int32_t lists[] = { 0, 1, -1, 2, 3, -1, 0, 1, -1 };
    tc_csr *a = from_rows(3, 4, lists);
    /* n = 1: a row of B is 4 bytes. An L2 of 2 rows: rows 2, 3 evict 0, 1,
       which row 2 of A reads again: every gather misses. */
    tc_traffic t = predict(a, 1, 1, 1, 8, 1);
    is_int(t.b_gathers, 6, "one-row windows gather 6 rows of B");
    is_int(t.b_misses, 6, "L2 of 2 rows: all 6 miss");
    is_int(t.b_bytes, 24, "  24 bytes of B");
    is_int(t.a_bytes, 1000, "A's bytes as given");
    is_int(t.c_bytes, 12, "C: 3 rows of 4 bytes");
    is_int(t.dram_bytes, 1000 + 24 + 12, "dram_bytes: A + B + C");
    t = predict(a, 1, 1, 1, 16, 1);
    is_int(t.b_misses, 4, "L2 of 4 rows: B read once (4 misses)");
    t = predict(a, 1, 1, 1, 8, 3);
    is_int(t.b_misses, 4, "L2 of 2 rows, 3 windows at once: row 2 shares row 0's B rows");
    t = predict(a, 1, 1, 1, 8, 2);
    is_int(t.b_misses, 6, "  ... not with 2 at once (row 0 is done when row 2 runs)");
    t = predict(a, 1, 1, 1, 0, 1);
    is_int(t.b_misses, 6, "no L2 at all: every gather misses");
    t = predict(a, 1, 3, 1, 0, 1);
    is_int(t.b_gathers, 4, "one window of 3 rows gathers each of B's rows once");
    is_int(t.b_misses, 4, "  and reads each once");
    t = predict(a, 2, 2, 1, 0, 1);
    is_int(t.b_gathers, 6, "windows of 2 rows: {0,1,2,3} then {0,1}");
    is_int(t.b_gathered_bytes, 6 * 2 * 4, "  6 rows of 8 bytes gathered");
    /* units of 3 columns: {0,1,2} and {3}; row 0 gathers unit 0, row 1
       both, row 2 unit 0 */
    t = predict(a, 1, 1, 3, 0, 1);
    is_int(t.b_gathers, 4, "units of 3 columns: 1 + 2 + 1 gathers");
    is_int(t.b_bytes, 3 * 4 + (3 * 4 + 4) + 3 * 4, "  the last unit holds 1 row of B");
    t = predict(a, 1, 1, 3, 24, 1);
    is_int(t.b_bytes, 16, "  with L2 for two units: B read once, 16 bytes");
    tc_csr_free(a);
}

/* A band matrix: row i holds columns i - half .. i + half. */
static tc_csr *band(int32_t rows, int32_t half)
{
    int64_t n = (int64_t)rows * (2 * half + 1);
    int32_t *ri = malloc((size_t)n * sizeof *ri), *ci = malloc((size_t)n * sizeof *ci);
    int64_t k = 0;
    for (int32_t i = 0; i < rows; i++)
        for (int32_t j = i - half; j <= i + half; j++)
            if (j >= 0 && j < rows) {
                ri[k] = i;
                ci[k++] = j;
            }
    tc_csr *a = pattern(rows, rows, k, ri, ci);
    free(ri);
    free(ci);
    return a;
}

static void at_scale(void)
{
    /* B of a band matrix (5000 x 32 float32, 640 KB) fits the default L2: each
       row of B comes from DRAM once, however many windows gather it */
    tc_csr *a = band(5000, 20);
    tc_traffic t = predict(a, 32, 16, 1, TC_TRAFFIC_L2_BYTES, TC_TRAFFIC_INFLIGHT_ROWS);
    is_int(t.b_bytes, (int64_t)5000 * 32 * 4, "band, B fits L2: B read once");
    ok(t.b_gathers > 2 * 5000, "  though windows gather its rows %.2f times each",
       (double)t.b_gathers / 5000);
    is_int(t.dram_bytes, 1000 + 2 * (int64_t)5000 * 32 * 4, "  dram: A, B once, C once");
    /* the same with an L2 of one window's rows: still once, the windows
       walk down the band */
    t = predict(a, 32, 16, 1, 56 * 32 * 4, 16);
    is_int(t.b_bytes, (int64_t)5000 * 32 * 4, "band, L2 of 56 B rows (a window's): B read once");
    tc_csr_free(a);

    /* random columns: B of 20000 x 32 (2.56 MB) in an L2 of a tenth of it,
       one window at a time: a gathered row is in L2 with chance about 0.1 */
    a = tap_random_matrix(20000, 20000, 16, -1, -1, 1);
    if (!a)
        tap_bail("random matrix");
    t = predict(a, 32, 16, 1, 20000 * 32 * 4 / 10, 16);
    const double miss = (double)t.b_misses / (double)t.b_gathers;
    ok(miss > 0.85 && miss < 0.95, "random, B 10x L2: %.3f of the gathered rows miss", miss);
    ok(t.b_gathers > 16 * 20000 * 9 / 10, "  a window gathers nearly one row of B per nonzero "
       "(%lld gathers, %lld nonzeros)", (long long)t.b_gathers, (long long)a->nnz);
    tc_csr_free(a);
}

/* The fp16 variants: B converted once (read in float32, written in fp16),
   then gathered at 2 bytes an element, so L2 holds twice the rows. */
static void half_b(void)
{
    static const int32_t lists[] = { 0, 1, -1, 2, 3, -1, 0, 1, -1 };
    tc_csr *a = from_rows(3, 4, lists);
    tc_traffic_params p;
    tc_traffic_defaults(&p, 1, 1000);
    p.l2_bytes = 8;
    p.inflight_rows = 1;
    p.b_elem_bytes = 2;
    tc_traffic t;
    tc_error err;
    if (tc_traffic_predict(a, &p, &t, &err))
        tap_bail(err.msg);
    is_int(t.b_misses, 4, "fp16, L2 of 8 bytes: 4 rows of B fit, read once (float32: 6 misses)");
    is_int(t.b_bytes, 4 * 2, "  2 bytes a row of B at n = 1");
    is_int(t.b_convert_bytes, 4 * (4 + 2), "  the conversion: B read in float32, written in fp16");
    is_int(t.dram_bytes, 1000 + 24 + 8 + 12, "  dram_bytes: A + conversion + B + C (float32)");
    tc_csr_free(a);

    a = band(5000, 20);
    tc_traffic_defaults(&p, 32, 1000);
    p.window_rows = 16;
    p.b_elem_bytes = 2;
    if (tc_traffic_predict(a, &p, &t, &err))
        tap_bail(err.msg);
    is_int(t.dram_bytes, 1000 + (int64_t)5000 * 32 * (6 + 2) + (int64_t)5000 * 32 * 4,
           "band in fp16: A, the conversion, B once at 2 bytes, C");
    tc_csr_free(a);

    /* convert_used: only the rows A's nonzeros name are converted (3 of
       6 columns used, column 5 twice); without it all 6; float32 B has no
       conversion either way */
    static const int32_t sparse_cols[] = { 1, 5, -1, 5, -1, 3, -1 };
    a = from_rows(3, 6, sparse_cols);
    tc_traffic_defaults(&p, 8, 0);
    p.b_elem_bytes = 2;
    p.convert_used = 1;
    if (tc_traffic_predict(a, &p, &t, &err))
        tap_bail(err.msg);
    is_int(t.b_convert_bytes, 3 * 8 * (4 + 2), "convert_used: the 3 rows of B A uses converted");
    p.convert_used = 0;
    if (tc_traffic_predict(a, &p, &t, &err))
        tap_bail(err.msg);
    is_int(t.b_convert_bytes, 6 * 8 * (4 + 2), "  without it: all 6 rows");
    p.b_elem_bytes = 4;
    p.convert_used = 1;
    if (tc_traffic_predict(a, &p, &t, &err))
        tap_bail(err.msg);
    is_int(t.b_convert_bytes, 0, "  float32 B: no conversion, convert_used or not");
    tc_csr_free(a);

    /* convert_used in fp16 keeps only the hubs in L2: rows {0 1} {0} {1}
       {0}, an L2 of one row of B, one row in flight. Column 0 (3 uses) is
       the hub: it misses once; column 1 is gathered evict-first, a miss
       each time (3 of 5). The plain LRU swaps the two: 5 of 5. */
    static const int32_t hub_cols[] = { 0, 1, -1, 0, -1, 1, -1, 0, -1 };
    a = from_rows(4, 4, hub_cols);
    tc_traffic_defaults(&p, 8, 0);
    p.b_elem_bytes = 2;
    p.l2_bytes = 8 * 2;
    p.inflight_rows = 1;
    p.convert_used = 1;
    if (tc_traffic_predict(a, &p, &t, &err))
        tap_bail(err.msg);
    ok(t.b_gathers == 5 && t.b_misses == 3, "convert_used: the hub kept, the other row gathered "
       "evict-first: 3 misses of 5 gathers (got %lld of %lld)", (long long)t.b_misses,
       (long long)t.b_gathers);
    p.convert_used = 0;
    if (tc_traffic_predict(a, &p, &t, &err))
        tap_bail(err.msg);
    ok(t.b_gathers == 5 && t.b_misses == 5, "  without it the LRU swaps the two rows: 5 of 5 "
       "(got %lld)", (long long)t.b_misses);
    tc_csr_free(a);

    /* the random matrix of at_scale with the same L2, a fifth of fp16 B */
    a = tap_random_matrix(20000, 20000, 16, -1, -1, 1);
    if (!a)
        tap_bail("random matrix");
    tc_traffic_defaults(&p, 32, 1000);
    p.window_rows = 16;
    p.l2_bytes = 20000 * 32 * 4 / 10;
    p.inflight_rows = 16;
    p.b_elem_bytes = 2;
    if (tc_traffic_predict(a, &p, &t, &err))
        tap_bail(err.msg);
    const double miss = (double)t.b_misses / (double)t.b_gathers;
    ok(miss > 0.75 && miss < 0.85, "random in fp16, L2 a fifth of B: %.3f miss", miss);
    tc_csr_free(a);
}

static void bad_params(void)
{
    static const int32_t lists[] = { 0, -1 };
    tc_csr *a = from_rows(1, 1, lists);
    tc_traffic_params p;
    tc_traffic t;
    tc_error err;
    tc_traffic_defaults(&p, 0, 0);
    ok(tc_traffic_predict(a, &p, &t, &err) == TC_ERR_ARG, "n = 0: TC_ERR_ARG (%s)", err.msg);
    tc_traffic_defaults(&p, 4, 0);
    p.col_unit = 0;
    ok(tc_traffic_predict(a, &p, &t, &err) == TC_ERR_ARG, "col_unit = 0: TC_ERR_ARG");
    tc_traffic_defaults(&p, 4, -1);
    ok(tc_traffic_predict(a, &p, &t, &err) == TC_ERR_ARG, "a_bytes < 0: TC_ERR_ARG");
    tc_traffic_defaults(&p, 4, 0);
    p.b_elem_bytes = 3;
    ok(tc_traffic_predict(a, &p, &t, &err) == TC_ERR_ARG, "b_elem_bytes = 3: TC_ERR_ARG (%s)",
       err.msg);
    tc_csr_free(a);
    /* only the shape is read before the units are counted */
    tc_csr wide = { .rows = 0, .cols = INT32_MAX };
    tc_traffic_defaults(&p, 4, 0);
    ok(tc_traffic_predict(&wide, &p, &t, &err) == TC_ERR_ARG,
       "more units of B than int32 indexes: TC_ERR_ARG (%s)", err.msg);
    int64_t rowptr[1] = { 0 };
    tc_csr empty = { .rows = 0, .cols = 5, .rowptr = rowptr };
    ok(tc_traffic_predict(&empty, &p, &t, &err) == TC_OK && t.b_gathers == 0 && t.dram_bytes == 0,
       "no rows: nothing gathered, nothing moved");
}

int main(void)
{
    floor_bytes();
    by_hand();
    at_scale();
    half_b();
    bad_params();
    return done_testing();
}
