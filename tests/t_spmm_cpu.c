/* t_spmm_cpu: the float32 CPU product's code paths (lib/spmm_cpu.c): the
   64-, 32-, 16- and 8-column chunks and the scalar tail for every n, float64,
   float32 (prepared) and pattern values, long rows, many rows, leading
   dimensions, NaN and Inf in B, and thread counts. Each C is checked
   bitwise against the plain float32 sum in stored order, the contract of
   tc_spmm_cpu_f32 (lib/tcsparse.h). */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include "tcsparse.h"
#include "tap.h"
#include "testmat.h"

/* C = A*B the plain way: each element 0 + v1*b1 + v2*b2 ... in stored
   order, in float32 (the tests are ISO C: no FMA contraction). */
static void plain_f32(const tc_csr *a, const float *B, int64_t ldb, int32_t n, float *C,
                      int64_t ldc)
{
    for (int32_t i = 0; i < a->rows; i++)
        for (int32_t j = 0; j < n; j++) {
            float s = 0;
            for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
                const float v = a->val ? (float)a->val[k] : 1.0f;
                s += v * B[(int64_t)a->colidx[k] * ldb + j];
            }
            C[(int64_t)i * ldc + j] = s;
        }
}

static float *random_f32(int64_t len, uint64_t seed)
{
    double *d = malloc((size_t)(len > 0 ? len : 1) * sizeof *d);
    float *f = malloc((size_t)(len > 0 ? len : 1) * sizeof *f);
    tc_random_fill(d, len, seed, -1, 1);
    for (int64_t i = 0; i < len; i++)
        f[i] = (float)d[i];
    free(d);
    return f;
}

static float *filled(int64_t len, float x)
{
    float *c = malloc((size_t)(len > 0 ? len : 1) * sizeof *c);
    for (int64_t i = 0; i < len; i++)
        c[i] = x;
    return c;
}

/* Bitwise equality where both are numbers, and NaN where the other is NaN
   (NaN payloads may differ). Returns the count of differing elements of
   the rows x n block. */
static int64_t differ(const float *x, const float *y, int32_t rows, int32_t n, int64_t ld)
{
    int64_t bad = 0;
    for (int32_t i = 0; i < rows; i++)
        for (int32_t j = 0; j < n; j++) {
            const float p = x[(int64_t)i * ld + j], q = y[(int64_t)i * ld + j];
            bad += isnan(p) ? !isnan(q) : memcmp(&p, &q, sizeof p) != 0;
        }
    return bad;
}

/* Both entry points with `threads` threads against the plain sum, with
   leading dimensions ldb = n + pad, ldc = n + pad whose extra columns must
   stay untouched. */
static void check_paths(const char *what, const tc_csr *a, int32_t n, int pad, int threads)
{
    tc_error err;
    const int64_t ldb = n + pad, ldc = n + pad, len = (int64_t)a->rows * ldc;
    float *B = random_f32((int64_t)a->cols * ldb, 7 + (uint64_t)n);
    float *want = filled(len, -7), *c1 = filled(len, -7), *c2 = filled(len, -7);
    plain_f32(a, B, ldb, n, want, ldc);
    tc_spmm_cpu_op *op = NULL;
    int good = tc_spmm_cpu_f32(a, B, ldb, n, c1, ldc, threads, &err) == TC_OK &&
               tc_spmm_cpu_prepare(a, &op, &err) == TC_OK &&
               tc_spmm_cpu_run(op, B, ldb, n, c2, ldc, threads, &err) == TC_OK;
    ok(good && differ(c1, want, a->rows, n + pad, ldc) == 0 &&
           differ(c2, want, a->rows, n + pad, ldc) == 0,
       "%s, n=%d%s, %d thread(s): both entry points bitwise the plain float32 sum", what,
       (int)n, pad ? " (ldb, ldc = n+3, the rest untouched)" : "", threads);
    tc_spmm_cpu_op_free(op);
    free(B);
    free(want);
    free(c1);
    free(c2);
}

/* Every chunk combination: n = 1..9, around 16, 32, 64, and past 128. */
static void check_widths(void)
{
    tc_csr *real = tap_random_matrix(300, 200, 6, 5, 9, 0);
    tc_csr *pattern = tap_random_matrix(300, 200, 6, 5, 9, 1);
    const int32_t ns[] = { 1, 2, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 56, 63, 64, 65,
                           96, 120, 127, 128, 129, 200, 256, 257 };
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        check_paths("real 300x200", real, ns[i], 0, 2);
        check_paths("pattern 300x200", pattern, ns[i], 0, 1);
    }
    check_paths("real 300x200", real, 77, 3, 3);
    check_paths("pattern 300x200", pattern, 5, 3, 1);
    tc_csr_free(real);
    tc_csr_free(pattern);
}

/* Rows longer than 1024 and than 65535 nonzeros, matrices of more than
   65535 rows, and a matrix with no nonzero. */
static void check_sizes(void)
{
    tc_csr *a = tap_random_matrix(5, 70000, 3, 2, -1, 0);
    check_paths("a row of 70000 nonzeros", a, 33, 0, 2);
    tc_csr_free(a);
    a = tap_random_matrix(40, 1500, 2, 30, 7, 1);
    check_paths("a row of 1500 nonzeros, pattern", a, 64, 0, 4);
    tc_csr_free(a);
    a = tap_random_matrix(70001, 300, 2, 65536, 1, 0);
    check_paths("70001 rows", a, 40, 0, 3);
    tc_csr_free(a);
    a = tap_random_matrix(1025, 1030, 1, 1024, -1, 1);
    check_paths("1025 rows, row 1024 dense", a, 16, 0, 2);
    tc_csr_free(a);
    a = tap_random_matrix(9, 4, 0, -1, -1, 0);
    check_paths("no nonzero", a, 20, 0, 2);
    tc_csr_free(a);
}

/* Threads 1..4 (and more than rows) give the same bits, for the chunked
   widths and the tail, on a matrix whose work at these n (8.8 to 57 million
   multiply-adds) is past what the library runs on one thread. */
static void check_threads(void)
{
    tc_error err;
    tc_csr *a = tap_random_matrix(20001, 3000, 20, 2000, 11, 0);
    const int32_t ns[] = { 21, 64, 136 };
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        const int32_t n = ns[t];
        const int64_t len = (int64_t)a->rows * n;
        float *B = random_f32((int64_t)a->cols * n, 3);
        float *c1 = filled(len, NAN);
        tc_spmm_cpu_f32(a, B, n, n, c1, n, 1, &err);
        int same = 1;
        const int counts[] = { 2, 3, 4, 5000 };
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            float *ct = filled(len, NAN);
            tc_spmm_cpu_f32(a, B, n, n, ct, n, counts[i], &err);
            same &= memcmp(c1, ct, (size_t)len * sizeof *ct) == 0;
            free(ct);
        }
        ok(same, "n=%d: C bitwise the same with 1, 2, 3, 4 and 5000 threads", (int)n);
        free(B);
        free(c1);
    }
    tc_csr_free(a);
}

/* A NaN in one B row and an Inf in another reach exactly the C rows whose A
   row names them, in every chunk and in the tail. */
static void check_nonfinite(int32_t n, int pattern)
{
    tc_error err;
    tc_csr *a = tap_random_matrix(2000, 500, 3, -1, -1, pattern);
    const int32_t nan_row = 17, inf_row = 401;
    float *B = random_f32((int64_t)a->cols * n, 5);
    for (int32_t j = 0; j < n; j++) {
        B[(int64_t)nan_row * n + j] = NAN;
        B[(int64_t)inf_row * n + j] = j % 2 ? INFINITY : -INFINITY;
    }
    tc_spmm_cpu_op *op = NULL;
    float *c = filled((int64_t)a->rows * n, 0);
    int good = tc_spmm_cpu_prepare(a, &op, &err) == TC_OK &&
               tc_spmm_cpu_run(op, B, n, n, c, n, 2, &err) == TC_OK;
    int64_t users = 0, wrong = 0;
    for (int32_t i = 0; i < a->rows; i++) {
        int uses = 0;
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            uses |= a->colidx[k] == nan_row || a->colidx[k] == inf_row;
        users += uses;
        for (int32_t j = 0; j < n; j++)
            wrong += uses == !!isfinite(c[(int64_t)i * n + j]);
    }
    ok(good && users > 0 && wrong == 0,
       "n=%d%s: NaN and Inf B rows reach the %lld C rows that use them, all their columns, "
       "and no other",
       (int)n, pattern ? ", pattern" : "", (long long)users);
    tc_spmm_cpu_op_free(op);
    free(B);
    free(c);
    tc_csr_free(a);
}

static void check_args(void)
{
    tc_error err;
    tc_csr *a = tap_random_matrix(4, 4, 1, -1, -1, 0);
    tc_spmm_cpu_op *op = (tc_spmm_cpu_op *)&err;
    float b[16] = { 0 }, c[16];
    is_int(tc_spmm_cpu_prepare(NULL, &op, &err), TC_ERR_ARG, "prepare: no matrix refused");
    ok(op == NULL, "prepare: the operand is NULL after a refusal");
    is_int(tc_spmm_cpu_run(NULL, b, 4, 4, c, 4, 1, &err), TC_ERR_ARG,
           "run: no operand refused");
    is_int(tc_spmm_cpu_prepare(a, &op, &err), TC_OK, "prepare: a real matrix");
    is_int(tc_spmm_cpu_run(op, b, 3, 4, c, 4, 1, &err), TC_ERR_ARG, "run: ldb < n refused");
    is_int(tc_spmm_cpu_run(op, b, 4, 4, NULL, 4, 1, &err), TC_ERR_ARG, "run: no C refused");
    tc_spmm_cpu_op_free(op);
    tc_spmm_cpu_op_free(NULL);
    tc_csr_free(a);
}

int main(void)
{
    check_widths();
    check_sizes();
    check_threads();
    const int32_t ns[] = { 1, 9, 40, 100 };
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        check_nonfinite(ns[i], 0);
        check_nonfinite(ns[i], 1);
    }
    check_args();
    return done_testing();
}
