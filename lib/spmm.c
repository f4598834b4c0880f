/*
 * spmm.c: the float64 reference C = A*B that every kernel is checked
 * against (the float32 product is lib/spmm_cpu.c), the comparison and
 * tolerance of those checks, the deterministic random numbers that fill
 * their inputs, and the CPU side of timing (median of wall-clock runs, copy
 * bandwidth).
 *
 * The reference runs rows in parallel with each row computed by one thread
 * in the order of its stored nonzeros, so the result is bitwise the same for
 * any thread count (DESIGN.md: deterministic across thread counts).
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tcsparse.h"
#include "threads.h"
#include "spmm_rows.h"

/* More threads than this gain nothing on any machine we know; the cap keeps
   the per-thread bookkeeping in fixed arrays. */
#define MAX_THREADS 256

typedef struct ref_ctx {
    const tc_csr *a;
    const double *B;
    double *C;
    int64_t ldb, ldc;
    int32_t n;
} ref_ctx;

/* Rows [r0, r1) of the float64 reference: each C row is zeroed, then each
   stored nonzero (in column order) adds value * its B row. Only B rows that
   A's columns name are read, so a NaN or Inf in B reaches exactly the C rows
   that use it. Pattern matrices (val NULL) have implicit values of 1. */
static void ref_rows(const void *ctx, int32_t r0, int32_t r1)
{
    const ref_ctx *x = ctx;
    const tc_csr *a = x->a;
    for (int32_t i = r0; i < r1; i++) {
        double *restrict c = x->C + (int64_t)i * x->ldc;
        memset(c, 0, (size_t)x->n * sizeof *c);
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            const double v = a->val ? a->val[k] : 1;
            const double *restrict b = x->B + (int64_t)a->colidx[k] * x->ldb;
            for (int32_t j = 0; j < x->n; j++)
                c[j] += v * b[j];
        }
    }
}

tc_status tc_spmm_ref_f64(const tc_csr *a, const double *B, int64_t ldb, int32_t n,
                          double *C, int64_t ldc, int nthreads, tc_error *err)
{
    tc_status st = tc_spmm_check_args("tc_spmm_ref_f64", a, B, ldb, n, C, ldc, err);
    if (st != TC_OK)
        return st;
    const ref_ctx x = { a, B, C, ldb, ldc, n };
    tc_spmm_over_rows(a->rowptr, a->rows, n, nthreads, ref_rows, &x);
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                    */
/* ------------------------------------------------------------------------ */

/* Non-finite results agree when both are NaN or both are the same infinity
   (an Inf in B legitimately gives Inf or NaN in the C rows that use it). */
static int nonfinite_agree(double out, double ref)
{
    if (isnan(ref))
        return isnan(out);
    return out == ref;
}

void tc_compare_f32(const float *out, const double *ref, int32_t rows, int32_t n,
                    int64_t ld, tc_compare *c)
{
    double diff2 = 0, ref2 = 0;
    memset(c, 0, sizeof *c);
    c->max_at = -1;
    for (int32_t i = 0; i < rows; i++) {
        for (int32_t j = 0; j < n; j++) {
            const int64_t at = (int64_t)i * ld + j;
            const double o = out[at], r = ref[at];
            if (!isfinite(o) || !isfinite(r)) {
                if (isfinite(r) || !nonfinite_agree(o, r))
                    c->nonfinite++;
                continue;
            }
            const double d = fabs(o - r);
            diff2 += d * d;
            ref2 += r * r;
            if (d > c->max_abs || c->max_at < 0) {
                c->max_abs = d;
                c->max_at = (int64_t)i * n + j;
            }
        }
    }
    c->rel_fro = ref2 > 0 ? sqrt(diff2 / ref2) : sqrt(diff2);
}

double tc_tolerance(const char *precision)
{
    static const struct { const char *name; double tol; } tols[] = {
        { "fp32", 1e-5 }, { "tf32", 2e-3 }, { "fp16", 1e-2 },
    };
    for (size_t i = 0; precision && i < sizeof tols / sizeof tols[0]; i++)
        if (strcmp(precision, tols[i].name) == 0)
            return tols[i].tol;
    return 0;
}

int tc_precision_meets(const char *precision, const char *accuracy)
{
    return !accuracy || (precision && tc_tolerance(precision) <= tc_tolerance(accuracy));
}

/* ------------------------------------------------------------------------ */
/* Random numbers: splitmix64 seeds xoshiro256** (Blackman and Vigna)        */
/* ------------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t xoshiro256ss(uint64_t s[4])
{
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void tc_random_fill(double *x, int64_t n, uint64_t seed, double lo, double hi)
{
    uint64_t s[4];
    for (int i = 0; i < 4; i++)
        s[i] = splitmix64(&seed);
    for (int64_t i = 0; i < n; i++) {
        /* the top 53 bits: every double in [0, 1) on a 2^-53 grid */
        const double u = (double)(xoshiro256ss(s) >> 11) * 0x1.0p-53;
        const double v = lo + (hi - lo) * u;
        x[i] = v < hi ? v : lo;   /* rounding can reach hi; keep [lo, hi) */
    }
}

/* ------------------------------------------------------------------------ */
/* Timing on the CPU                                                         */
/* ------------------------------------------------------------------------ */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

tc_status tc_time_cpu(tc_timed_fn fn, void *ctx, int warmup, int iters, tc_dist *ms,
                      tc_error *err)
{
    if (iters < 1 || warmup < 0)
        return tc_error_set(err, TC_ERR_ARG, "tc_time_cpu: need iters >= 1 and warmup >= 0");
    double *t = tc_malloc_array(iters, sizeof *t, err);
    if (!t)
        return TC_ERR_NOMEM;
    tc_status st = TC_OK;
    for (int i = 0; i < warmup + iters && st == TC_OK; i++) {
        const double t0 = now_ms();
        st = fn(ctx, err);
        if (i >= warmup)
            t[i - warmup] = now_ms() - t0;
    }
    if (st == TC_OK)
        tc_dist_compute(ms, t, iters);
    free(t);
    return st;
}

typedef struct copy_job {
    char *dst;
    const char *src;
    size_t len;
} copy_job;

static void *copy_job_run(void *arg)
{
    copy_job *j = arg;
    memcpy(j->dst, j->src, j->len);
    return NULL;
}

typedef struct copy_ctx {
    char *dst, *src;
    int64_t bytes;
    int nthreads;
} copy_ctx;

/* One copy of the whole buffer, cut into one slice per thread. */
static tc_status copy_once(void *arg, tc_error *err)
{
    copy_ctx *c = arg;
    copy_job jobs[MAX_THREADS];
    const int64_t slice = c->bytes / c->nthreads;
    for (int t = 0; t < c->nthreads; t++) {
        const int64_t off = slice * t;
        jobs[t] = (copy_job){ c->dst + off, c->src + off,
                              (size_t)(t == c->nthreads - 1 ? c->bytes - off : slice) };
    }
    tc_run_jobs(copy_job_run, jobs, sizeof jobs[0], c->nthreads);
    return TC_OK;
}

tc_status tc_cpu_copy_bandwidth(int64_t bytes, int nthreads, double *gbs, tc_error *err)
{
    copy_ctx c = { NULL, NULL, bytes, nthreads > 0 ? nthreads : tc_default_threads() };
    if (c.nthreads > MAX_THREADS)
        c.nthreads = MAX_THREADS;
    if (bytes < c.nthreads)
        return tc_error_set(err, TC_ERR_ARG, "tc_cpu_copy_bandwidth: %lld bytes is too few",
                            (long long)bytes);
    c.src = tc_malloc_array(bytes, 1, err);
    c.dst = c.src ? tc_malloc_array(bytes, 1, err) : NULL;
    tc_status st = TC_ERR_NOMEM;
    if (c.dst) {
        /* touch both buffers so that page faults stay out of the timing */
        memset(c.src, 1, (size_t)bytes);
        memset(c.dst, 0, (size_t)bytes);
        tc_dist ms;
        st = tc_time_cpu(copy_once, &c, 1, 5, &ms, err);
        /* bytes read plus bytes written (METHOD.md) */
        if (st == TC_OK)
            *gbs = 2.0 * (double)bytes / (ms.decile[5] * 1e6);
    }
    free(c.src);
    free(c.dst);
    return st;
}
