/*
 * spmm_cpu.c: C = A*B in float32 on the CPU (tc_spmm_cpu_f32, and the
 * prepared operand of tc_spmm_cpu_prepare / tc_spmm_cpu_run), and the split
 * of rows over threads that it shares with the float64 reference.
 *
 * Each C row is computed by one thread in chunks of columns: a chunk's
 * partial sums stay in vector registers while the row's nonzeros are walked
 * in stored order, and are written once at the end. Every element is
 * therefore 0 + v1*b1 + v2*b2 + ... in stored order, each product and sum
 * rounded to float32 (never contracted into an FMA: the pragmas below),
 * whatever the chunk, the thread count, the instruction set the clone was
 * built for or the compiler: C is bitwise the same for any of them.
 */
#include <config.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "threads.h"
#include "spmm_rows.h"

/* No FMA contraction of v * b + acc, whatever the flags (GCC contracts by
   default in its GNU modes, Clang within an expression): a fused product
   would round differently on machines with and without FMA. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#else
#pragma STDC FP_CONTRACT OFF
#endif

/* Below this much work (multiply-adds, about half a millisecond on one
   core) one thread is faster than starting several: a thread costs tens of
   microseconds to start, and on a busy machine far more to be scheduled. */
#define SPMM_SERIAL_WORK (1 << 23)

/* One copy of the row kernels per instruction set, picked when the library
   is loaded (GCC's target clones, an ifunc: x86-64 with glibc only). */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__)
#define SPMM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SPMM_CLONES
#endif
#define SPMM_INLINE static inline __attribute__((always_inline))

/* 8 floats, one AVX register: GCC and Clang lower it to whatever vector
   registers the target has (two xmm without AVX). Accumulators are named
   variables, not an array, so that they live in registers. */
#define VW 8
typedef float v8f __attribute__((vector_size(VW * sizeof(float))));
/* The same at any float's address (B and C rows need not be aligned), and
   allowed to alias the floats it is read from and written to. */
typedef float v8f_at __attribute__((vector_size(VW * sizeof(float)), aligned(4), may_alias));
/* The widest chunk, in vectors: 64 columns in 8 accumulators, half the
   registers of AVX2, the other half for B. */
#define MAX_NV 8

struct tc_spmm_cpu_op {
    const tc_csr *a;
    float *val;         /* a's values in float32; NULL for a pattern matrix */
};

enum { VAL_ONE, VAL_F32, VAL_F64 };

typedef struct spmm_ctx {
    const int64_t *rowptr;
    const int32_t *colidx;
    const float *valf;      /* VAL_F32 */
    const double *vald;     /* VAL_F64 */
    const float *B;
    int64_t ldb, ldc;
    float *C;
    int32_t n;
} spmm_ctx;

SPMM_INLINE float value_at(const spmm_ctx *x, int kind, int64_t k)
{
    return kind == VAL_F32 ? x->valf[k] : kind == VAL_F64 ? (float)x->vald[k] : 1.0f;
}

/* acc += v * B's vector u, for u < nv (constant after inlining). Pattern
   matrices add B as it is: 1*b is b, so the sums are those of explicit
   ones. */
#define SPMM_ADD(u, acc)                                                       \
    do {                                                                       \
        if (nv > (u) && kind == VAL_ONE)                                       \
            acc += *(const v8f_at *)(b + VW * (u));                            \
        else if (nv > (u))                                                     \
            acc += v * *(const v8f_at *)(b + VW * (u));                        \
    } while (0)
#define SPMM_STORE(u, acc)                                                     \
    if (nv > (u))                                                              \
        *(v8f_at *)(c + VW * (u)) = acc

/* Columns [0, nv*VW) of one C row (c) from nonzeros [k0, k1); B already
   offset to the chunk's first column. */
SPMM_INLINE void row_chunk(const spmm_ctx *x, int kind, int nv, int64_t k0, int64_t k1,
                           const float *B, float *c)
{
    v8f a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
    v8f a4 = { 0 }, a5 = { 0 }, a6 = { 0 }, a7 = { 0 };
    for (int64_t k = k0; k < k1; k++) {
        const float *b = B + (int64_t)x->colidx[k] * x->ldb;
        const float v = value_at(x, kind, k);
        SPMM_ADD(0, a0);
        SPMM_ADD(1, a1);
        SPMM_ADD(2, a2);
        SPMM_ADD(3, a3);
        SPMM_ADD(4, a4);
        SPMM_ADD(5, a5);
        SPMM_ADD(6, a6);
        SPMM_ADD(7, a7);
    }
    SPMM_STORE(0, a0);
    SPMM_STORE(1, a1);
    SPMM_STORE(2, a2);
    SPMM_STORE(3, a3);
    SPMM_STORE(4, a4);
    SPMM_STORE(5, a5);
    SPMM_STORE(6, a6);
    SPMM_STORE(7, a7);
}

/* The last r < VW columns, one at a time: reading a whole vector there
   could run past the end of B. */
SPMM_INLINE void row_tail(const spmm_ctx *x, int kind, int r, int64_t k0, int64_t k1,
                          const float *B, float *c)
{
    float acc[VW] = { 0 };
    for (int64_t k = k0; k < k1; k++) {
        const float *b = B + (int64_t)x->colidx[k] * x->ldb;
        const float v = value_at(x, kind, k);
        for (int j = 0; j < r; j++)
            acc[j] += v * b[j];
    }
    memcpy(c, acc, (size_t)r * sizeof *acc);
}

SPMM_INLINE void rows_of_kind(const spmm_ctx *x, int kind, int32_t r0, int32_t r1)
{
    const int32_t n = x->n;
    for (int32_t i = r0; i < r1; i++) {
        const int64_t k0 = x->rowptr[i], k1 = x->rowptr[i + 1];
        float *c = x->C + (int64_t)i * x->ldc;
        int32_t j = 0;
        for (; j + MAX_NV * VW <= n; j += MAX_NV * VW)
            row_chunk(x, kind, MAX_NV, k0, k1, x->B + j, c + j);
        /* what is left, below 64 columns: 32, 16 and 8 in one chunk each
           (written out, so that each chunk's width is a constant) */
        if (n - j >= 4 * VW) {
            row_chunk(x, kind, 4, k0, k1, x->B + j, c + j);
            j += 4 * VW;
        }
        if (n - j >= 2 * VW) {
            row_chunk(x, kind, 2, k0, k1, x->B + j, c + j);
            j += 2 * VW;
        }
        if (n - j >= VW) {
            row_chunk(x, kind, 1, k0, k1, x->B + j, c + j);
            j += VW;
        }
        if (j < n)
            row_tail(x, kind, n - j, k0, k1, x->B + j, c + j);
    }
}

SPMM_CLONES static void rows_one(const void *ctx, int32_t r0, int32_t r1)
{
    rows_of_kind(ctx, VAL_ONE, r0, r1);
}

SPMM_CLONES static void rows_f32(const void *ctx, int32_t r0, int32_t r1)
{
    rows_of_kind(ctx, VAL_F32, r0, r1);
}

SPMM_CLONES static void rows_f64(const void *ctx, int32_t r0, int32_t r1)
{
    rows_of_kind(ctx, VAL_F64, r0, r1);
}

/* ------------------------------------------------------------------------ */
/* Rows over threads                                                         */
/* ------------------------------------------------------------------------ */

/* Pieces of work per thread: threads take the next piece when done with
   one, so that a thread the machine runs slower (other work, a busier
   core) takes fewer, instead of the product waiting for its share. Which
   thread computes a row never changes the row's result. */
#define PIECES_PER_THREAD 8

typedef struct rows_work {
    tc_spmm_rows_fn fn;
    const void *ctx;
    const int64_t *rowptr;
    int32_t rows;
    int64_t total;          /* rowptr[rows] + rows */
    int pieces;
    atomic_int next;        /* the next piece to take */
} rows_work;

/* The first row r with rowptr[r] + r >= target: rowptr[r] + r, strictly
   increasing, is the work before row r. */
static int32_t split_row(const int64_t *rowptr, int32_t rows, int64_t target)
{
    int32_t lo = 0, hi = rows;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (rowptr[mid] + mid < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Where piece p starts: the row at p/pieces of the work. */
static int32_t piece_start(const rows_work *w, int p)
{
    if (p >= w->pieces)
        return w->rows;
    const int64_t target = w->total / w->pieces * p + w->total % w->pieces * p / w->pieces;
    return split_row(w->rowptr, w->rows, target);
}

static void *rows_worker(void *arg)
{
    rows_work *w = *(rows_work **)arg;
    for (int p; (p = atomic_fetch_add(&w->next, 1)) < w->pieces;) {
        const int32_t r0 = piece_start(w, p), r1 = piece_start(w, p + 1);
        if (r0 < r1)
            w->fn(w->ctx, r0, r1);
    }
    return NULL;
}

static int pick_threads(int64_t work_rows, int32_t rows, int32_t n, int nthreads)
{
    if (nthreads <= 0)
        nthreads = tc_default_threads();
    int64_t work;
    if (tc_mul_overflows(work_rows, n, &work) == 0 && work < SPMM_SERIAL_WORK)
        return 1;
    if (nthreads > TC_MAX_JOBS)
        nthreads = TC_MAX_JOBS;
    if (nthreads > rows)
        nthreads = rows > 0 ? rows : 1;
    return nthreads;
}

void tc_spmm_over_rows(const int64_t *rowptr, int32_t rows, int32_t n, int nthreads,
                       tc_spmm_rows_fn fn, const void *ctx)
{
    rows_work w = { fn, ctx, rowptr, rows, rowptr[rows] + rows, 1, 0 };
    const int nt = pick_threads(w.total, rows, n, nthreads);
    if (nt == 1) {
        fn(ctx, 0, rows);
        return;
    }
    w.pieces = rows / nt >= PIECES_PER_THREAD ? nt * PIECES_PER_THREAD : nt;
    atomic_init(&w.next, 0);
    rows_work *jobs[TC_MAX_JOBS];
    for (int t = 0; t < nt; t++)
        jobs[t] = &w;
    tc_run_jobs(rows_worker, jobs, sizeof jobs[0], nt);
}

tc_status tc_spmm_check_args(const char *fn, const tc_csr *a, const void *B, int64_t ldb,
                             int32_t n, const void *C, int64_t ldc, tc_error *err)
{
    if (!a || !C || (!B && a->cols > 0) || n < 0 || ldb < n || ldc < n)
        return tc_error_set(err, TC_ERR_ARG,
                            "%s: bad arguments (n %d, ldb %lld, ldc %lld)", fn, (int)n,
                            (long long)ldb, (long long)ldc);
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

static void run_rows(const tc_csr *a, const float *valf, const float *B, int64_t ldb,
                     int32_t n, float *C, int64_t ldc, int nthreads)
{
    const spmm_ctx x = { a->rowptr, a->colidx, valf, a->val, B, ldb, ldc, C, n };
    tc_spmm_rows_fn fn = valf ? rows_f32 : a->val ? rows_f64 : rows_one;
    tc_spmm_over_rows(a->rowptr, a->rows, n, nthreads, fn, &x);
}

tc_status tc_spmm_cpu_f32(const tc_csr *a, const float *B, int64_t ldb, int32_t n,
                          float *C, int64_t ldc, int nthreads, tc_error *err)
{
    tc_status st = tc_spmm_check_args("tc_spmm_cpu_f32", a, B, ldb, n, C, ldc, err);
    if (st == TC_OK)
        run_rows(a, NULL, B, ldb, n, C, ldc, nthreads);
    return st;
}

tc_status tc_spmm_cpu_prepare(const tc_csr *a, tc_spmm_cpu_op **out, tc_error *err)
{
    *out = NULL;
    if (!a)
        return tc_error_set(err, TC_ERR_ARG, "tc_spmm_cpu_prepare: no matrix");
    tc_spmm_cpu_op *op = tc_malloc_array(1, sizeof *op, err);
    if (!op)
        return TC_ERR_NOMEM;
    op->a = a;
    op->val = NULL;
    if (a->val) {
        op->val = tc_malloc_array(a->nnz > 0 ? a->nnz : 1, sizeof *op->val, err);
        if (!op->val) {
            free(op);
            return TC_ERR_NOMEM;
        }
        for (int64_t k = 0; k < a->nnz; k++)
            op->val[k] = (float)a->val[k];
    }
    *out = op;
    return TC_OK;
}

tc_status tc_spmm_cpu_run(const tc_spmm_cpu_op *op, const float *B, int64_t ldb, int32_t n,
                          float *C, int64_t ldc, int nthreads, tc_error *err)
{
    if (!op)
        return tc_error_set(err, TC_ERR_ARG, "tc_spmm_cpu_run: no prepared operand");
    tc_status st = tc_spmm_check_args("tc_spmm_cpu_run", op->a, B, ldb, n, C, ldc, err);
    if (st == TC_OK)
        run_rows(op->a, op->val, B, ldb, n, C, ldc, nthreads);
    return st;
}

void tc_spmm_cpu_op_free(tc_spmm_cpu_op *op)
{
    if (op) {
        free(op->val);
        free(op);
    }
}
