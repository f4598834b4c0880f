/*
 * attention.c: the float64 CPU reference of sparse attention, the formula
 * Fused3S computes (seed 003, Algorithm 1): O = softmax(scale * Q K^T
 * masked by A) V, every GPU attention kernel is checked against.
 *
 * Row i of O is the softmax over the structural nonzeros (i, j) of A of the
 * scores s_j = scale * <Q_i, K_j>, applied to the rows V_j. Only A's
 * pattern takes part: a stored nonzero whose value (or score) is 0 is
 * kept, an entry not stored is masked out. A's values do not multiply the
 * scores: the paper's A is binary (Section 3.1: "adjacency matrices and
 * attention masks exhibit binary-valued sparsity", and "Q K^T (.) A" then
 * just masks), and the bsb format the kernels read holds no values by
 * default; a weight per edge would change the softmax's meaning, not just
 * mask it. The softmax subtracts the row's largest score before exp
 * (equation 7), so no exp overflows whatever the scores' size; the
 * largest term is exp(0) = 1, so the sum is at least 1. A row with no
 * nonzero gives a zero row of O, not 0/0.
 *
 * Rows go to threads in chunks; each row is computed by one thread in the
 * order of its stored nonzeros, so O is bitwise the same for any thread
 * count.
 */
#include "config.h"
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "threads.h"

/* Rows handed to a thread at a time. */
#define CHUNK_ROWS 64
/* Below this much work (multiply-adds) one thread is faster. */
#define SERIAL_WORK (1 << 16)

typedef struct attention_job attention_job;
typedef void row_fn(const attention_job *j, int32_t i);

struct attention_job {
    row_fn *row;                /* attention_row or sddmm_row */
    const tc_csr *a;
    const double *Q, *K, *V;
    int32_t d;
    double scale;
    double *O;
    double *score;              /* this thread's: the longest row's length */
    _Atomic int64_t *next;      /* the next chunk of rows, shared */
};

/* scale * <Q_i, K_j> of row i's nonzeros, in its order. */
static double score(const attention_job *j, int32_t i, int64_t k)
{
    const double *q = j->Q + (int64_t)i * j->d, *kr = j->K + (int64_t)j->a->colidx[k] * j->d;
    double dot = 0;
    for (int64_t c = 0; c < j->d; c++)
        dot += q[c] * kr[c];
    return j->scale * dot;
}

/* SDDMM row i: its scores into O, which holds one value per nonzero. */
static void sddmm_row(const attention_job *j, int32_t i)
{
    for (int64_t k = j->a->rowptr[i]; k < j->a->rowptr[i + 1]; k++)
        j->O[k] = score(j, i, k);
}

/* Row i: scores, their maximum, exp(score - max) in place, then the
   weighted sum of V rows divided by the sum of the weights. */
static void attention_row(const attention_job *j, int32_t i)
{
    const tc_csr *a = j->a;
    const int64_t k0 = a->rowptr[i], n = a->rowptr[i + 1] - k0, d = j->d;
    double *o = j->O + i * d, *s = j->score, top = -INFINITY, sum = 0;
    memset(o, 0, (size_t)d * sizeof *o);
    if (n == 0)
        return;
    for (int64_t e = 0; e < n; e++) {
        s[e] = score(j, i, k0 + e);
        top = s[e] > top ? s[e] : top;
    }
    for (int64_t e = 0; e < n; e++) {
        s[e] = exp(s[e] - top);
        sum += s[e];
        const double *vr = j->V + a->colidx[k0 + e] * d;
        for (int64_t c = 0; c < d; c++)
            o[c] += s[e] * vr[c];
    }
    for (int64_t c = 0; c < d; c++)
        o[c] /= sum;
}

static void *attention_worker(void *arg)
{
    const attention_job *j = arg;
    for (;;) {
        int64_t r0 = atomic_fetch_add(j->next, CHUNK_ROWS);
        if (r0 >= j->a->rows)
            return NULL;
        int64_t r1 = r0 + CHUNK_ROWS < j->a->rows ? r0 + CHUNK_ROWS : j->a->rows;
        for (int64_t i = r0; i < r1; i++)
            j->row(j, (int32_t)i);
    }
}

static int attention_threads(const tc_csr *a, int32_t d, int nthreads)
{
    int64_t work;
    if (nthreads <= 0)
        nthreads = tc_default_threads();
    if (!tc_mul_overflows(a->nnz + a->rows, 2 * (int64_t)d, &work) && work < SERIAL_WORK)
        return 1;
    int64_t chunks = ((int64_t)a->rows + CHUNK_ROWS - 1) / CHUNK_ROWS;
    nthreads = nthreads > TC_MAX_JOBS ? TC_MAX_JOBS : nthreads;
    return chunks < nthreads ? (chunks > 0 ? (int)chunks : 1) : nthreads;
}

static int64_t longest_row(const tc_csr *a)
{
    int64_t most = 0;
    for (int32_t i = 0; i < a->rows; i++)
        most = a->rowptr[i + 1] - a->rowptr[i] > most ? a->rowptr[i + 1] - a->rowptr[i] : most;
    return most;
}

/* Rows of a over the threads, each by fn. */
static tc_status run_rows(row_fn *fn, const tc_csr *a, const double *Q, const double *K,
                          const double *V, int32_t d, double scale, double *O, int nthreads,
                          tc_error *err)
{
    int n = attention_threads(a, d, nthreads);
    int64_t most = fn == attention_row ? longest_row(a) : 0;
    attention_job jobs[TC_MAX_JOBS];
    _Atomic int64_t next;
    atomic_init(&next, 0);
    int made = 0;
    for (; made < n; made++) {
        jobs[made] = (attention_job){ fn, a, Q, K, V, d, scale, O, NULL, &next };
        if (most && !(jobs[made].score = tc_malloc_array(most, sizeof *jobs[made].score, err)))
            break;
    }
    if (made == n)
        tc_run_jobs(attention_worker, jobs, sizeof jobs[0], n);
    for (int i = 0; i < made; i++)
        free(jobs[i].score);
    return made == n ? TC_OK : TC_ERR_NOMEM;
}

tc_status tc_attention_ref_f64(const tc_csr *a, const double *Q, const double *K,
                               const double *V, int32_t d, double scale, double *O,
                               int nthreads, tc_error *err)
{
    if (!a || d < 0 || !isfinite(scale) || (!O && a->rows > 0 && d > 0) ||
        (d > 0 && ((!Q && a->rows > 0) || ((!K || !V) && a->cols > 0))))
        return tc_error_set(err, TC_ERR_ARG, "attention: bad arguments (d %d, scale %g)",
                            (int)d, scale);
    return run_rows(attention_row, a, Q, K, V, d, scale, O, nthreads, err);
}

tc_status tc_sddmm_ref_f64(const tc_csr *a, const double *Q, const double *K, int32_t d,
                           double scale, double *S, int nthreads, tc_error *err)
{
    if (!a || d < 0 || !isfinite(scale) || (!S && a->nnz > 0) ||
        (d > 0 && ((!Q && a->rows > 0) || (!K && a->cols > 0))))
        return tc_error_set(err, TC_ERR_ARG, "sddmm: bad arguments (d %d, scale %g)", (int)d,
                            scale);
    return run_rows(sddmm_row, a, Q, K, NULL, d, scale, S, nthreads, err);
}
