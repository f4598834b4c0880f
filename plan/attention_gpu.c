/*
 * attention_gpu.c: the GPU half of SDDMM and attention plans: the device
 * opened, the mask's bsb format built when the caller has none, uploaded
 * (tc_attn_prepare), the permutation's indices put on the device, the
 * chosen path tuned once on scratch operands (the fused kernel's warps,
 * cuSPARSE's SpMM algorithm) so that no execute times anything; then each
 * execute on the caller's stream: Q, K, V gathered into the stored order,
 * the kernels, O (S) gathered back into the caller's order, all on the
 * device. The bench times both paths the way tcmul --bench always has.
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "attention_internal.h"
#include "bsb.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static tc_status upload_index(tc_gpu *g, const int64_t *h, int64_t n, int64_t **dev,
                              tc_error *err)
{
    if (!h || n == 0)
        return TC_OK;
    tc_status st = tc_gpu_alloc(g, n * (int64_t)sizeof *h, (void **)dev, err);
    return st ? st : tc_gpu_upload(g, *dev, h, n * (int64_t)sizeof *h, err);
}

/* SDDMM: where the caller's k-th score lies in what the path writes: the
   fused kernel's bsb order (tc_bsb_value_index), or the stored CSR order
   of the unfused one when permuted (else the same place: no index). */
static tc_status score_index(tc_attn_plan *p, const tc_bsb *x, tc_error *err)
{
    if (p->op != TC_OP_SDDMM || p->nnz == 0)
        return TC_OK;
    if (p->path == TC_ATTN_UNFUSED)
        return upload_index(p->gpu, p->s_map, p->nnz, &p->d_s_idx, err);
    int64_t *offset = tc_malloc_array(x->nblocks + 1, sizeof *offset, err);
    int64_t *to_csr = offset ? tc_malloc_array(p->nnz, sizeof *to_csr, err) : NULL;
    int64_t *at = to_csr ? tc_malloc_array(p->nnz, sizeof *at, err) : NULL;
    tc_status st = at ? TC_OK : TC_ERR_NOMEM;
    if (st == TC_OK) {
        tc_bsb_value_index(x, offset, to_csr);
        for (int64_t k = 0; k < p->nnz; k++)
            at[to_csr[k]] = k;
        /* to_csr, no longer needed, becomes the index */
        for (int64_t k = 0; k < p->nnz; k++)
            to_csr[k] = at[p->s_map ? p->s_map[k] : k];
        st = upload_index(p->gpu, to_csr, p->nnz, &p->d_s_idx, err);
    }
    free(offset);
    free(to_csr);
    free(at);
    return st;
}

static tc_status set_variant(tc_attn_plan *p, const char *v, tc_error *err)
{
    static const char *const names[] = { "w1", "w2", "w4", "w8" };
    for (int i = 0; i < 4; i++)
        if (strcmp(v, names[i]) == 0)
            return tc_attn_set_warps(p->attn, 1 << i, err);
    return tc_error_set(err, TC_ERR_ARG, "variant '%s': the fused kernel's are w1, w2, w4, w8 "
                        "(warps per thread block)", v);
}

static int64_t out_len(const tc_attn_plan *p)
{
    return p->op == TC_OP_ATTENTION ? (int64_t)p->rows * p->d : p->nnz;
}

/* The mask, the scratch operands and the indices on the device. */
static tc_status upload(tc_attn_plan *p, const tc_fmt *bsb, const tc_plan_opts *o,
                        tc_error *err)
{
    tc_status st = tc_attn_prepare(p->gpu, bsb, p->stored, p->d, p->scale, p->warmup, p->iters,
                                   &p->attn, err);
    if (st == TC_OK && o->variant)
        st = set_variant(p, o->variant, err);
    const int64_t qkv = ((int64_t)p->rows + 2 * (int64_t)p->cols) * p->d;
    const int64_t out = out_len(p) > (int64_t)p->rows * p->d ? out_len(p)
                                                              : (int64_t)p->rows * p->d;
    if (st == TC_OK)
        st = tc_gpu_alloc(p->gpu, 4 * (qkv ? qkv : 1), (void **)&p->qkv_s, err);
    if (st == TC_OK)
        st = tc_gpu_alloc(p->gpu, 4 * (out ? out : 1), (void **)&p->out_s, err);
    if (st == TC_OK)
        st = upload_index(p->gpu, p->row_n2o, p->rows, &p->d_row_n2o, err);
    if (st == TC_OK)
        st = upload_index(p->gpu, p->row_o2n, p->rows, &p->d_row_o2n, err);
    if (st == TC_OK)
        st = upload_index(p->gpu, p->col_n2o, p->cols, &p->d_col_n2o, err);
    return st == TC_OK ? score_index(p, (const tc_bsb *)bsb, err) : st;
}

typedef struct trial {
    tc_attn_plan *p;
    tc_attn_path path;
} trial;

/* One run of a path on the scratch operands, without waiting. */
static tc_status trial_run(void *arg, int set, tc_error *err)
{
    (void)set;
    const trial *t = arg;
    tc_attn_plan *p = t->p;
    const float *q = p->qkv_s, *k = q + (int64_t)p->rows * p->d, *v = k + (int64_t)p->cols * p->d;
    return p->op == TC_OP_ATTENTION ? tc_attn_run(p->attn, t->path, q, k, v, p->out_s, err)
                                    : tc_attn_sddmm(p->attn, t->path, q, k, p->out_s, err);
}

/* The planner's choice at a timing effort: both paths timed on the
   scratch operands, the faster kept, so that auto is never slower than
   cuSPARSE's pipeline beyond timer noise. Each path's first run measures
   its variants, untimed. */
static tc_status measure_paths(tc_attn_plan *p, tc_error *err)
{
    double *ms[2] = { &p->plan_fused_ms, &p->plan_unfused_ms };
    tc_status st = TC_OK;
    for (int i = 0; i < 2 && st == TC_OK; i++) {
        trial t = { p, i ? TC_ATTN_UNFUSED : TC_ATTN_FUSED };
        tc_gpu_timing tm;
        st = trial_run(&t, 0, err);
        if (st == TC_OK)
            st = tc_gpu_time(p->gpu, trial_run, &t, 1, p->warmup, p->iters, &tm, err);
        if (st == TC_OK)
            *ms[i] = tm.ms.decile[5];
    }
    if (st == TC_OK)
        p->path = p->plan_unfused_ms < p->plan_fused_ms ? TC_ATTN_UNFUSED : TC_ATTN_FUSED;
    return st;
}

/* On random scratch operands in the stored order: the chosen path's first
   run, which measures its variants (tc_attn_prepare), so that executes do
   not; or, when the planner chooses at a timing effort, both paths timed. */
static tc_status tune(tc_attn_plan *p, tc_error *err)
{
    const int64_t n = ((int64_t)p->rows + 2 * (int64_t)p->cols) * p->d;
    double *x = tc_malloc_array(n ? n : 1, sizeof *x, err);
    float *f = x ? tc_malloc_array(n ? n : 1, sizeof *f, err) : NULL;
    tc_status st = f ? TC_OK : TC_ERR_NOMEM;
    if (st == TC_OK) {
        tc_random_fill(x, n, 1, -1.0, 1.0);
        for (int64_t i = 0; i < n; i++)
            f[i] = (float)x[i];
        st = tc_gpu_upload(p->gpu, p->qkv_s, f, 4 * n, err);
    }
    trial t = { p, p->path };
    if (st == TC_OK)
        st = p->auto_path && p->measure && p->path == TC_ATTN_FUSED ? measure_paths(p, err)
                                                                    : trial_run(&t, 0, err);
    float one;
    if (st == TC_OK && out_len(p))      /* waits for the run */
        st = tc_gpu_download(p->gpu, &one, p->out_s, sizeof one, err);
    free(x);
    free(f);
    return st;
}

tc_status tc_attn_gpu_create(tc_attn_plan *p, const tc_fmt *bsb, const tc_plan_opts *o,
                             tc_error *err)
{
    const double t0 = now_s();
    tc_status st = tc_gpu_open(o->gpu, &p->gpu, err);
    if (st != TC_OK)
        return st;
    snprintf(p->device_name, sizeof p->device_name, "%s", tc_gpu_get_info(p->gpu)->name);
    p->own_stream = tc_gpu_stream(p->gpu);
    tc_fmt *built = NULL;
    const double t1 = now_s();
    if (!bsb) {
        const tc_params none = { 0 };
        st = tc_fmt_build(tc_format_find("bsb"), p->stored, &none, &built, err);
        bsb = built;
    }
    const double t2 = now_s();
    if (st == TC_OK)
        st = upload(p, bsb, o, err);
    const double t3 = now_s();
    if (st == TC_OK)
        st = tune(p, err);
    const double t4 = now_s();
    tc_fmt_free(built);
    p->build_s = t2 - t1;
    p->upload_s = t3 - t2;
    p->tune_s = t4 - t3;
    p->plan_s = t4 - t0;
    return st;
}

/* ------------------------------------------------------------------------ */
/* Execute                                                                   */
/* ------------------------------------------------------------------------ */

/* Device operands beyond fp16 for the fused path, unless the caller's
   bound vouches for them: named as tc_attn_plan_check names them. */
static tc_status device_check(tc_attn_plan *p, const float *Q, const float *K, const float *V,
                              tc_error *err)
{
    static const char *const names[3] = { "Q", "K", "V" };
    if (p->path != TC_ATTN_FUSED || (p->b_max_abs > 0 && p->b_max_abs <= TC_HALF_MAX))
        return TC_OK;
    const float *x[3] = { Q, K, V };
    tc_status st = TC_OK;
    for (int i = 0; i < 3 && x[i] && st == TC_OK; i++) {
        int64_t first;
        float v;
        st = tc_gpu_find_beyond(p->gpu, x[i], (int64_t)(i ? p->cols : p->rows) * p->d,
                                (float)TC_HALF_MAX, &first, err);
        if (st == TC_OK && first >= 0)
            st = tc_gpu_download(p->gpu, &v, x[i] + first, sizeof v, err);
        if (st == TC_OK && first >= 0)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s[%lld][%d] = %g: the fused kernel takes fp16 operands "
                                "(finite, |x| <= 65504); the unfused path computes in fp32",
                                names[i], (long long)(first / p->d), (int)(first % p->d),
                                (double)v);
    }
    return st;
}

/* Q, K, V (caller's order) into the stored order where permuted, the path,
   and the output back into the caller's order: queued, not waited for. */
static tc_status run_permuted(tc_attn_plan *p, const float *Q, const float *K, const float *V,
                              float *out, tc_error *err)
{
    tc_gpu *g = p->gpu;
    const int32_t d = p->d;
    float *qs = p->qkv_s, *ks = qs + (int64_t)p->rows * d, *vs = ks + (int64_t)p->cols * d;
    tc_status st = TC_OK;
    if (p->d_row_n2o) {
        st = tc_gpu_gather_rows64(g, qs, Q, p->d_row_n2o, p->rows, d, err);
        Q = qs;
    }
    if (st == TC_OK && p->d_col_n2o) {
        st = tc_gpu_gather_rows64(g, ks, K, p->d_col_n2o, p->cols, d, err);
        K = ks;
        if (st == TC_OK && V)
            st = tc_gpu_gather_rows64(g, vs, V, p->d_col_n2o, p->cols, d, err);
        V = V ? vs : NULL;
    }
    if (st != TC_OK)
        return st;
    if (p->op == TC_OP_ATTENTION) {
        float *o = p->d_row_o2n ? p->out_s : out;
        st = tc_attn_run(p->attn, p->path, Q, K, V, o, err);
        return st == TC_OK && p->d_row_o2n
                   ? tc_gpu_gather_rows64(g, out, p->out_s, p->d_row_o2n, p->rows, d, err)
                   : st;
    }
    float *s = p->d_s_idx ? p->out_s : out;
    st = tc_attn_sddmm(p->attn, p->path, Q, K, s, err);
    return st == TC_OK && p->d_s_idx
               ? tc_gpu_gather_rows64(g, out, p->out_s, p->d_s_idx, p->nnz, 1, err)
               : st;
}

tc_status tc_attn_gpu_execute(tc_attn_plan *p, const float *Q, const float *K, const float *V,
                              float *out, void *stream, int checked, tc_error *err)
{
    void *saved = NULL;
    tc_status st = tc_gpu_set_stream(p->gpu, stream, &saved, err);
    if (st == TC_OK && !checked)
        st = device_check(p, Q, K, V, err);
    if (st == TC_OK)
        st = run_permuted(p, Q, K, V, out, err);
    tc_error back_err;
    const tc_status back = tc_gpu_set_stream(p->gpu, saved, NULL, &back_err);
    if (st == TC_OK && back != TC_OK) {
        *err = back_err;
        st = back;
    }
    return st;
}

tc_status tc_attn_gpu_execute_host(tc_attn_plan *p, const float *Q, const float *K,
                                   const float *V, float *out, tc_error *err)
{
    int which;
    tc_status st = p->path == TC_ATTN_FUSED ? tc_attn_plan_check(p, Q, K, V, &which, err) : TC_OK;
    if (st != TC_OK)
        return st;
    const int64_t nq = (int64_t)p->rows * p->d, nk = (int64_t)p->cols * p->d;
    const int64_t nv = V ? nk : 0, nout = out_len(p), n = nq + nk + nv + nout;
    float *dev = NULL;
    st = tc_gpu_alloc(p->gpu, 4 * (n ? n : 1), (void **)&dev, err);
    float *dq = dev, *dk = dq + nq, *dv = dk + nk, *dout = dv + nv;
    if (st == TC_OK)
        st = tc_gpu_upload(p->gpu, dq, Q, 4 * nq, err);
    if (st == TC_OK)
        st = tc_gpu_upload(p->gpu, dk, K, 4 * nk, err);
    if (st == TC_OK && V)
        st = tc_gpu_upload(p->gpu, dv, V, 4 * nv, err);
    /* an element the path leaves unwritten is a NaN, which fails a check */
    if (st == TC_OK)
        st = tc_gpu_poison(p->gpu, dout, 4 * nout, err);
    if (st == TC_OK)
        st = tc_attn_gpu_execute(p, dq, dk, V ? dv : NULL, dout, p->own_stream, 1, err);
    if (st == TC_OK)
        st = tc_gpu_download(p->gpu, out, dout, 4 * nout, err);
    tc_gpu_free(p->gpu, dev);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Bench                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct bench_ctx {
    tc_attn_plan *p;
    tc_attn_path path;
    const tc_gpu_operands *ops;
} bench_ctx;

static tc_status bench_once(void *arg, int set, tc_error *err)
{
    const bench_ctx *c = arg;
    tc_attn_plan *p = c->p;
    const float *q = c->ops->B[set], *k = q + (int64_t)p->rows * p->d;
    const float *v = k + (int64_t)p->cols * p->d;
    return p->op == TC_OP_ATTENTION ? tc_attn_run(p->attn, c->path, q, k, v, c->ops->C[set], err)
                                    : tc_attn_sddmm(p->attn, c->path, q, k, p->out_s, err);
}

/* Q, K (and V) stacked in the stored order on the host. */
static float *stack_stored(const tc_attn_plan *p, const float *Q, const float *K,
                           const float *V, int32_t *total, tc_error *err)
{
    const int nops = p->op == TC_OP_ATTENTION ? 3 : 2;
    *total = p->rows + (nops - 1) * p->cols;
    const int64_t n = (int64_t)*total * p->d;
    float *x = tc_malloc_array(n ? n : 1, sizeof *x, err);
    const float *src[3] = { Q, K, V };
    for (int i = 0, at = 0; x && i < nops; at += i ? p->cols : p->rows, i++) {
        const int64_t *n2o = i ? p->col_n2o : p->row_n2o;
        for (int64_t j = 0; j < (i ? p->cols : p->rows); j++)
            memcpy(x + (at + j) * p->d, src[i] + (n2o ? n2o[j] : j) * p->d,
                   (size_t)p->d * sizeof *x);
    }
    return x;
}

tc_status tc_attn_plan_bench(tc_attn_plan *p, const float *Q, const float *K, const float *V,
                             tc_error *err)
{
    if (p->device != TC_DEVICE_GPU)
        return tc_error_set(err, TC_ERR_ARG, "bench: a CPU plan has no GPU paths to time");
    int which;
    tc_status st = tc_attn_plan_check(p, Q, K, V, &which, err);  /* both paths run */
    int32_t total = 0;
    float *x = st == TC_OK ? stack_stored(p, Q, K, V, &total, err) : NULL;
    if (st == TC_OK && !x)
        st = TC_ERR_NOMEM;
    tc_gpu_operands ops;
    memset(&ops, 0, sizeof ops);
    const int att = p->op == TC_OP_ATTENTION;
    /* attention's operand sets rotate (tcmul's B and C do); the SDDMM's
       scores are one array */
    if (st == TC_OK)
        st = tc_gpu_operands_alloc(p->gpu, x, total, att ? p->rows : 1, p->d, att, &ops, err);
    bench_ctx c = { p, TC_ATTN_FUSED, &ops };
    tc_dist *ms[2] = { &p->fused_ms, &p->unfused_ms };
    for (int i = 0; i < 2 && st == TC_OK; i++) {
        tc_gpu_timing t;
        c.path = i ? TC_ATTN_UNFUSED : TC_ATTN_FUSED;
        st = bench_once(&c, 0, err);    /* a path's first run tunes it, untimed */
        if (st == TC_OK)
            st = tc_gpu_time(p->gpu, bench_once, &c, ops.count, p->warmup, p->iters, &t, err);
        if (st == TC_OK)
            *ms[i] = t.ms;
    }
    p->sets = ops.count;
    p->benched = st == TC_OK;
    tc_gpu_operands_free(p->gpu, &ops);
    free(x);
    return st;
}

void tc_attn_gpu_free(tc_attn_plan *p)
{
    if (!p->gpu)
        return;
    tc_attn_free(p->attn);
    tc_gpu_free(p->gpu, p->qkv_s);
    tc_gpu_free(p->gpu, p->out_s);
    tc_gpu_free(p->gpu, p->d_row_n2o);
    tc_gpu_free(p->gpu, p->d_row_o2n);
    tc_gpu_free(p->gpu, p->d_col_n2o);
    tc_gpu_free(p->gpu, p->d_s_idx);
    tc_gpu_close(p->gpu);
    p->gpu = NULL;
    p->attn = NULL;
    p->qkv_s = p->out_s = NULL;
    p->d_row_n2o = p->d_row_o2n = p->d_col_n2o = p->d_s_idx = NULL;
}
