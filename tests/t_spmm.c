/* t_spmm: CPU SpMM (float32 and the float64 reference), result comparison,
   tolerances, random numbers and CPU timing. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include "tcsparse.h"
#include "tap.h"
#include "testmat.h"

/* B (cols x n) in float32, and the same values in float64. */
static void random_b(int32_t rows, int32_t n, uint64_t seed, float **bf, double **bd)
{
    int64_t len = (int64_t)rows * n;
    *bd = malloc((size_t)(len > 0 ? len : 1) * sizeof **bd);
    *bf = malloc((size_t)(len > 0 ? len : 1) * sizeof **bf);
    tc_random_fill(*bd, len, seed, -1, 1);
    for (int64_t i = 0; i < len; i++)
        (*bd)[i] = (*bf)[i] = (float)(*bd)[i];
}

static float *poisoned_f32(int64_t len)
{
    float *c = malloc((size_t)(len > 0 ? len : 1) * sizeof *c);
    for (int64_t i = 0; i < len; i++)
        c[i] = NAN;
    return c;
}

/* The float64 reference against a dense triple loop (small matrices):
   checks the reference itself, independently of its CSR walk. */
static double dense_check(const tc_csr *a, const double *B, int32_t n, const double *C)
{
    double worst = 0;
    double *row = calloc((size_t)a->cols + 1, sizeof *row);
    for (int32_t i = 0; i < a->rows; i++) {
        for (int32_t j = 0; j < a->cols; j++)
            row[j] = 0;
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            row[a->colidx[k]] = a->val ? a->val[k] : 1;
        for (int32_t c = 0; c < n; c++) {
            double s = 0;
            for (int32_t j = 0; j < a->cols; j++)
                s += row[j] * B[(int64_t)j * n + c];
            double d = fabs(s - C[(int64_t)i * n + c]);
            worst = d > worst ? d : worst;
        }
    }
    free(row);
    return worst;
}

typedef struct shape {
    const char *name;
    int32_t rows, cols;
    int per_row;
    int32_t dense_row, dense_col;
    int pattern;
} shape;

static void check_shape(const shape *s, int32_t n)
{
    tc_error err;
    tc_csr *a = tap_random_matrix(s->rows, s->cols, s->per_row, s->dense_row, s->dense_col,
                                  s->pattern);
    if (!a) {
        ok(0, "%s: matrix built", s->name);
        return;
    }
    float *bf;
    double *bd;
    random_b(s->cols, n, 99 + (uint64_t)n, &bf, &bd);
    int64_t len = (int64_t)s->rows * n;
    float *c = poisoned_f32(len);
    double *ref = malloc((size_t)(len > 0 ? len : 1) * sizeof *ref);
    int good = tc_spmm_cpu_f32(a, bf, n, n, c, n, 0, &err) == TC_OK &&
               tc_spmm_ref_f64(a, bd, n, n, ref, n, 0, &err) == TC_OK;
    tc_compare cmp;
    tc_compare_f32(c, ref, s->rows, n, n, &cmp);
    ok(good && cmp.nonfinite == 0 && cmp.rel_fro < tc_tolerance("fp32"),
       "%s, n=%d: float32 within tolerance of float64 (%.2g)", s->name, (int)n, cmp.rel_fro);
    if ((int64_t)s->rows * s->cols <= 4000000 && n <= 32) {
        double d = dense_check(a, bd, n, ref);
        ok(d < 1e-12, "%s, n=%d: float64 reference equals the dense product (%.2g)", s->name,
           (int)n, d);
    }
    free(bf);
    free(bd);
    free(c);
    free(ref);
    tc_csr_free(a);
}

/* Bitwise the same C for any thread count (on a matrix whose work, about
   10 million multiply-adds, is past what the library runs on one thread). */
static void check_threads(void)
{
    tc_error err;
    tc_csr *a = tap_random_matrix(30001, 2000, 9, 1500, 17, 0);
    const int32_t n = 33;
    float *bf;
    double *bd;
    random_b(a->cols, n, 6, &bf, &bd);
    int64_t len = (int64_t)a->rows * n;
    float *c1 = poisoned_f32(len);
    tc_spmm_cpu_f32(a, bf, n, n, c1, n, 1, &err);
    int counts[] = { 2, 3, 7, 64, 1000 };
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        float *ct = poisoned_f32(len);
        tc_spmm_cpu_f32(a, bf, n, n, ct, n, counts[t], &err);
        ok(memcmp(c1, ct, (size_t)len * sizeof *ct) == 0,
           "float32 result bitwise the same with 1 and %d threads", counts[t]);
        free(ct);
    }
    double *r1 = malloc((size_t)len * sizeof *r1), *r7 = malloc((size_t)len * sizeof *r7);
    tc_spmm_ref_f64(a, bd, n, n, r1, n, 1, &err);
    tc_spmm_ref_f64(a, bd, n, n, r7, n, 7, &err);
    ok(memcmp(r1, r7, (size_t)len * sizeof *r1) == 0,
       "float64 reference bitwise the same with 1 and 7 threads");
    free(r1);
    free(r7);
    free(c1);
    free(bf);
    free(bd);
    tc_csr_free(a);
}

/* Leading dimensions larger than n: the columns past n are left alone. */
static void check_leading_dims(void)
{
    tc_error err;
    tc_csr *a = tap_random_matrix(50, 40, 4, -1, -1, 0);
    const int32_t n = 5, ldb = 9, ldc = 8;
    float *b = malloc(40 * ldb * sizeof *b);
    double *bd = malloc(40 * ldb * sizeof *bd);
    tc_random_fill(bd, 40 * ldb, 3, -1, 1);
    for (int i = 0; i < 40 * ldb; i++)
        bd[i] = b[i] = (float)bd[i];
    float *c = poisoned_f32(50 * ldc);
    double *ref = malloc(50 * ldc * sizeof *ref);
    tc_spmm_cpu_f32(a, b, ldb, n, c, ldc, 2, &err);
    tc_spmm_ref_f64(a, bd, ldb, n, ref, ldc, 2, &err);
    int beyond_untouched = 1;
    for (int i = 0; i < 50; i++)
        for (int j = n; j < ldc; j++)
            beyond_untouched &= isnan(c[i * ldc + j]);
    tc_compare cmp;
    tc_compare_f32(c, ref, 50, n, ldc, &cmp);
    ok(cmp.nonfinite == 0 && cmp.rel_fro < 1e-6 && beyond_untouched,
       "ldb and ldc larger than n: the n columns right, the rest untouched");
    free(b);
    free(bd);
    free(c);
    free(ref);
    tc_csr_free(a);
}

/* An Inf in row 0 of B reaches exactly the C rows whose A row has column 0. */
static void check_inf_row0(void)
{
    tc_error err;
    tc_csr *a = tap_random_matrix(400, 300, 3, -1, -1, 0);
    const int32_t n = 7;
    float *bf;
    double *bd;
    random_b(a->cols, n, 22, &bf, &bd);
    for (int j = 0; j < n; j++)
        bf[j] = (float)(bd[j] = INFINITY);
    float *c = poisoned_f32((int64_t)a->rows * n);
    double *ref = malloc((size_t)a->rows * n * sizeof *ref);
    tc_spmm_cpu_f32(a, bf, n, n, c, n, 4, &err);
    tc_spmm_ref_f64(a, bd, n, n, ref, n, 4, &err);
    int users = 0, spread = 0, missed = 0;
    for (int32_t i = 0; i < a->rows; i++) {
        int uses = a->rowptr[i + 1] > a->rowptr[i] && a->colidx[a->rowptr[i]] == 0;
        users += uses;
        for (int j = 0; j < n; j++) {
            spread += !uses && !isfinite(c[i * n + j]);
            missed += uses && isfinite(c[i * n + j]);
        }
    }
    tc_compare cmp;
    tc_compare_f32(c, ref, a->rows, n, n, &cmp);
    ok(users > 0 && spread == 0 && missed == 0,
       "Inf in B row 0 reaches the %d rows that use column 0 and no other", users);
    ok(cmp.nonfinite == 0 && cmp.rel_fro < 1e-6,
       "and the comparison accepts the matching infinities");
    free(bf);
    free(bd);
    free(c);
    free(ref);
    tc_csr_free(a);
}

static void check_compare(void)
{
    tc_compare c;
    const float out1[] = { 1, 2, 3, 4 };
    const double ref1[] = { 1, 2.5, 3, 4 };
    tc_compare_f32(out1, ref1, 2, 2, 2, &c);
    ok(fabs(c.rel_fro - 0.5 / sqrt(1 + 6.25 + 9 + 16)) < 1e-15 && c.max_abs == 0.5 &&
           c.max_at == 1 && c.nonfinite == 0,
       "hand case: relative Frobenius, max error and where");

    const double zero[] = { 0, 0, 0, 0 };
    tc_compare_f32(out1, zero, 2, 2, 2, &c);
    ok(fabs(c.rel_fro - sqrt(30)) < 1e-12 && c.max_abs == 4 && c.max_at == 3,
       "reference of zeros: absolute Frobenius error");

    /* leading dimension 3: the third column is not looked at */
    const float out2[] = { 1, 2, NAN, 3, 5, NAN };
    const double ref2[] = { 1, 2, 0, 3, 4, 0 };
    tc_compare_f32(out2, ref2, 2, 2, 3, &c);
    ok(c.max_abs == 1 && c.max_at == 3 && c.nonfinite == 0,
       "leading dimension: elements past n ignored, index is i*n+j");

    const float nan_out[] = { 1, NAN };
    const double fine[] = { 1, 2 };
    tc_compare_f32(nan_out, fine, 1, 2, 2, &c);
    ok(c.nonfinite == 1 && c.rel_fro == 0, "NaN where the reference is finite is counted");

    const float inf_out[] = { INFINITY, -INFINITY, NAN, 1, INFINITY, NAN };
    const double inf_ref[] = { INFINITY, INFINITY, NAN, INFINITY, NAN, INFINITY };
    tc_compare_f32(inf_out, inf_ref, 1, 6, 6, &c);
    ok(c.nonfinite == 4,
       "non-finite agreement: same Inf and NaN/NaN pass; sign, kind or finite mismatches count");

    const float all_nan[] = { NAN, NAN };
    tc_compare_f32(all_nan, fine, 1, 2, 2, &c);
    ok(c.nonfinite == 2 && c.max_at == -1, "all-NaN output: every element counted, no max");
}

typedef struct counter {
    int calls, fail_at;
} counter;

static tc_status count_call(void *arg, tc_error *err)
{
    counter *c = arg;
    if (++c->calls == c->fail_at)
        return tc_error_set(err, TC_ERR_IO, "failed at call %d", c->calls);
    return TC_OK;
}

static void check_timing(void)
{
    tc_error err;
    tc_dist ms;
    counter c = { 0, 0 };
    ok(tc_time_cpu(count_call, &c, 3, 11, &ms, &err) == TC_OK && c.calls == 14 &&
           ms.count == 11 && ms.min >= 0 && ms.min <= ms.decile[5] && ms.decile[5] <= ms.max,
       "tc_time_cpu: warmup + iters calls, distribution of iters times");
    counter f = { 0, 5 };
    ok(tc_time_cpu(count_call, &f, 3, 11, &ms, &err) == TC_ERR_IO && f.calls == 5,
       "tc_time_cpu stops at the first error");
    is_int(tc_time_cpu(count_call, &c, 0, 0, &ms, &err), TC_ERR_ARG, "tc_time_cpu: iters 0");
    double gbs = 0;
    tc_status st = tc_cpu_copy_bandwidth(8 << 20, 2, &gbs, &err);
    ok(st == TC_OK && gbs > 0.01 && gbs < 1e5, "copy bandwidth measured (%.1f GB/s)", gbs);
}

static void check_random(void)
{
    double a[1000], b[1000], c[1000];
    tc_random_fill(a, 1000, 42, -1, 1);
    tc_random_fill(b, 1000, 42, -1, 1);
    tc_random_fill(c, 1000, 43, -1, 1);
    ok(memcmp(a, b, sizeof a) == 0, "random fill: the same seed gives the same numbers");
    ok(memcmp(a, c, sizeof a) != 0, "random fill: another seed gives others");
    double lo = 1, hi = -1, sum = 0;
    for (int i = 0; i < 1000; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
        sum += a[i];
    }
    ok(lo >= -1 && hi < 1 && lo < -0.9 && hi > 0.9 && fabs(sum / 1000) < 0.1,
       "random fill: in [-1, 1), spread over it, mean near 0");
    /* the same on every platform: splitmix64 + xoshiro256** with seed 0 */
    double first;
    tc_random_fill(&first, 1, 0, 0, 1);
    ok(first >= 0 && first < 1, "random fill: seed 0 works");
}

static void check_args(void)
{
    tc_error err;
    tc_csr *a = tap_random_matrix(4, 4, 1, -1, -1, 0);
    float b[16] = { 0 }, c[16];
    double bd[16] = { 0 }, cd[16];
    is_int(tc_spmm_cpu_f32(a, b, 4, -1, c, 4, 1, &err), TC_ERR_ARG, "negative n refused");
    is_int(tc_spmm_cpu_f32(a, b, 2, 4, c, 4, 1, &err), TC_ERR_ARG, "ldb < n refused");
    is_int(tc_spmm_ref_f64(a, bd, 4, 4, cd, 3, 1, &err), TC_ERR_ARG, "ldc < n refused");
    is_int(tc_spmm_ref_f64(NULL, bd, 4, 4, cd, 4, 1, &err), TC_ERR_ARG, "no matrix refused");
    tc_csr_free(a);
}

int main(void)
{
    const shape shapes[] = {
        { "1x1", 1, 1, 1, -1, -1, 0 },
        { "empty 5x3", 5, 3, 0, -1, -1, 0 },
        { "17x13 pattern", 17, 13, 3, -1, -1, 1 },
        { "1025x700 with a dense row", 1025, 700, 5, 3, -1, 0 },
        { "1100x900 with a dense column, pattern", 1100, 900, 2, -1, 0, 1 },
        { "9x5000 with a 5000-nnz row", 9, 5000, 40, 4, -1, 0 },
        { "70001x64 (> 65535 rows)", 70001, 64, 2, 70000, -1, 0 },
        { "300x300 rows of ~300 nnz", 300, 300, 300, -1, -1, 0 },
    };
    const int32_t ns[] = { 1, 7, 32, 257 };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
            check_shape(&shapes[s], ns[k]);
    check_threads();
    check_leading_dims();
    check_inf_row0();
    check_compare();
    is_int(tc_tolerance("fp32") == 1e-5 && tc_tolerance("tf32") == 2e-3 &&
               tc_tolerance("fp16") == 1e-2,
           1, "tolerances of DESIGN.md");
    is_int(tc_tolerance("int8") == 0 && tc_tolerance(NULL) == 0, 1, "unknown precision: 0");
    ok(tc_precision_meets("fp32", "fp16") && tc_precision_meets("fp32", "fp32") &&
           !tc_precision_meets("fp16", "fp32") && !tc_precision_meets("tf32", "fp32") &&
           tc_precision_meets("fp16", NULL) && tc_precision_meets(NULL, NULL) &&
           !tc_precision_meets(NULL, "fp16"),
       "tc_precision_meets: as exact or more; any without an accuracy; an unknown one none");
    check_timing();
    check_random();
    check_args();
    return done_testing();
}
