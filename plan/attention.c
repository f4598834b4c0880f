/*
 * attention.c: SDDMM and sparse-attention plans (attention.h): the path
 * chosen from the options, the mask in the caller's order and the maps
 * between it and the stored order, the CPU path (the float64 reference of
 * lib/attention.c on the caller's order, so that it needs no permutation
 * at all), the fp16 range check, verification and the report. The GPU
 * half (device, upload, tuning, the permutation on the device, the bench)
 * is plan/attention_gpu.c.
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "attention_internal.h"

double tc_round_half(double x)
{
    if (!isfinite(x) || x == 0)
        return x;
    int e;
    frexp(x, &e);                               /* |x| = f 2^e, 0.5 <= f < 1 */
    const int q = e - 11 < -24 ? -24 : e - 11;  /* the step at x: 11 bits, or 2^-24 */
    const double r = ldexp(nearbyint(ldexp(x, -q)), q);
    return fabs(r) > TC_HALF_MAX ? copysign(INFINITY, r) : r;
}

/* n2o widened to int64 (what the device gathers index with), and its
   inverse when o2n is not NULL. */
static tc_status widen_perm(const tc_perm *q, int64_t **n2o, int64_t **o2n, tc_error *err)
{
    if (!(*n2o = tc_malloc_array(q->n, sizeof **n2o, err)))
        return TC_ERR_NOMEM;
    if (o2n && !(*o2n = tc_malloc_array(q->n, sizeof **o2n, err)))
        return TC_ERR_NOMEM;
    for (int32_t i = 0; i < q->n; i++) {
        (*n2o)[i] = q->new2old[i];
        if (o2n)
            (*o2n)[i] = q->old2new[i];
    }
    return TC_OK;
}

/* The inverse of q (NULL: the identity on n) as a tc_perm. */
static tc_status inverse(const tc_perm *q, int32_t n, tc_perm **out, tc_error *err)
{
    return q ? tc_perm_from_array(out, n, q->new2old, TC_PERM_OLD2NEW, "permutation", err)
             : tc_perm_identity(out, n, err);
}

/* The mask in the caller's order, and s_map: each of its nonzeros' stored
   CSR place, carried through tc_csr_permute as the values. */
static tc_status caller_order(tc_attn_plan *p, const tc_perm *rp, const tc_perm *cp,
                              tc_error *err)
{
    tc_csr *marked = NULL;
    tc_perm *ri = NULL, *ci = NULL;
    tc_status st = tc_csr_copy(p->stored, &marked, err);
    if (st == TC_OK && !marked->val &&
        !(marked->val = tc_malloc_array(marked->nnz ? marked->nnz : 1, sizeof *marked->val, err)))
        st = TC_ERR_NOMEM;
    for (int64_t k = 0; st == TC_OK && k < marked->nnz; k++)
        marked->val[k] = (double)k;
    if (st == TC_OK)
        st = inverse(rp, p->rows, &ri, err);
    if (st == TC_OK && cp)
        st = inverse(cp, p->cols, &ci, err);
    if (st == TC_OK)
        st = tc_csr_permute(marked, ri, ci, &p->caller, err);
    if (st == TC_OK && !(p->s_map = tc_malloc_array(p->nnz ? p->nnz : 1, sizeof *p->s_map, err)))
        st = TC_ERR_NOMEM;
    for (int64_t k = 0; st == TC_OK && k < p->nnz; k++)
        p->s_map[k] = (int64_t)p->caller->val[k];
    tc_csr_free(marked);
    tc_perm_free(ri);
    tc_perm_free(ci);
    if (st == TC_OK && rp)
        st = widen_perm(rp, &p->row_n2o, &p->row_o2n, err);
    if (st == TC_OK && cp)
        st = widen_perm(cp, &p->col_n2o, NULL, err);
    return st;
}

/* The path opts ask for: format NULL, "auto" or "bsb": the fused kernel;
   "csr": cuSPARSE's unfused pipeline (as "csr" names cuSPARSE for SpMM). */
static tc_status choose_path(tc_attn_plan *p, const tc_plan_opts *o, tc_error *err)
{
    const char *f = o->format;
    p->auto_path = !f || strcmp(f, "auto") == 0;
    if (p->auto_path)
        /* operands beyond fp16 leave cuSPARSE's fp32 pipeline; else the
           fused kernel, unless timing says otherwise (attention_gpu.c) */
        p->path = o->b_max_abs > TC_HALF_MAX ? TC_ATTN_UNFUSED : TC_ATTN_FUSED;
    else if (strcmp(f, "bsb") == 0)
        p->path = TC_ATTN_FUSED;
    else if (strcmp(f, "csr") == 0)
        p->path = TC_ATTN_UNFUSED;
    else
        return tc_error_set(err, TC_ERR_ARG, "%s: the format '%s' has no such kernel; the "
                            "paths are bsb (fused) and csr (cuSPARSE, unfused)",
                            o->op == TC_OP_SDDMM ? "sddmm" : "attention", f);
    if (o->variant && p->path == TC_ATTN_UNFUSED)
        return tc_error_set(err, TC_ERR_ARG, "variant '%s': the unfused path has none; the "
                            "fused kernel's are w1, w2, w4, w8", o->variant);
    if (p->path == TC_ATTN_FUSED && o->b_max_abs > TC_HALF_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "operands up to %g: the fused kernel takes "
                            "fp16 (|x| <= 65504); the unfused path (format csr) computes in fp32",
                            o->b_max_abs);
    return TC_OK;
}

static tc_status check_args(const tc_csr *a, const tc_plan_opts *o, tc_error *err)
{
    if (!a || !o)
        return tc_error_set(err, TC_ERR_ARG, "attention plan: no matrix or no options");
    if (o->op != TC_OP_SDDMM && o->op != TC_OP_ATTENTION)
        return tc_error_set(err, TC_ERR_ARG, "attention plan: op %d is not SDDMM or attention",
                            (int)o->op);
    if (o->n < 1)
        return tc_error_set(err, TC_ERR_ARG, "attention plan: d = %d, expected at least 1",
                            (int)o->n);
    return TC_OK;
}

tc_status tc_attn_plan_create(const tc_csr *a, const tc_fmt *bsb, const tc_perm *row_perm,
                              const tc_perm *col_perm, const tc_plan_opts *o,
                              tc_attn_plan **out, tc_error *err)
{
    *out = NULL;
    tc_status st = check_args(a, o, err);
    if (st != TC_OK)
        return st;
    if ((row_perm && row_perm->n != a->rows) || (col_perm && col_perm->n != a->cols))
        return tc_error_set(err, TC_ERR_ARG, "attention plan: a permutation of %d for a %d x %d "
                            "mask", (int)(row_perm && row_perm->n != a->rows ? row_perm->n
                                                                             : col_perm->n),
                            (int)a->rows, (int)a->cols);
    tc_attn_plan *p = calloc(1, sizeof *p);
    if (!p)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    p->op = o->op;
    p->d = o->n;
    p->rows = a->rows;
    p->cols = a->cols;
    p->nnz = a->nnz;
    p->scale = o->scale ? o->scale : o->op == TC_OP_ATTENTION ? 1.0 / sqrt(o->n) : 1.0;
    /* the default resolved as tc_plan_create resolves it */
    p->effort = o->effort != TC_EFFORT_DEFAULT ? o->effort
                : o->calls <= 1                ? TC_EFFORT_ESTIMATE
                                               : TC_EFFORT_MEASURE;
    p->threads = o->threads;
    p->warmup = o->warmup >= 0 ? o->warmup : 10;
    p->iters = o->iters >= 1 ? o->iters : 100;
    p->b_max_abs = o->b_max_abs;
    p->measure = p->effort >= TC_EFFORT_MEASURE;
    p->plan_fused_ms = p->plan_unfused_ms = -1;
    st = choose_path(p, o, err);
    if (st == TC_OK)
        st = tc_csr_copy(a, &p->stored, err);
    if (st == TC_OK && (row_perm || col_perm))
        st = caller_order(p, row_perm, col_perm, err);
    else if (st == TC_OK)
        p->caller = p->stored;
    /* a GPU when asked for, or for auto when there is one */
    p->device = o->device == TC_DEVICE_CPU ? TC_DEVICE_CPU : TC_DEVICE_GPU;
    if (st == TC_OK && p->device == TC_DEVICE_GPU) {
        st = tc_attn_gpu_create(p, bsb, o, err);
        if (st == TC_ERR_NODEVICE && o->device == TC_DEVICE_AUTO) {
            /* said, as an SpMM plan says it: the CPU's results and times are
               not the GPU's */
            snprintf(p->device_why, sizeof p->device_why, "%s", err ? err->msg : "no GPU");
            tc_attn_gpu_free(p);
            p->device = TC_DEVICE_CPU;
            st = TC_OK;
        }
    }
    if (st == TC_OK && p->device == TC_DEVICE_CPU)
        snprintf(p->device_name, sizeof p->device_name, "cpu");
    if (st != TC_OK) {
        tc_attn_plan_free(p);
        return st;
    }
    *out = p;
    return TC_OK;
}

const tc_csr *tc_attn_plan_mask(const tc_attn_plan *p)
{
    return p->caller;
}

double tc_attn_plan_scale(const tc_attn_plan *p)
{
    return p->scale;
}

/* ------------------------------------------------------------------------ */
/* The CPU: the float64 reference on the caller's order                      */
/* ------------------------------------------------------------------------ */

/* Q, K (and V) widened, rounded to fp16 when `rounded`, stacked. */
static double *widen(const tc_attn_plan *p, const float *Q, const float *K, const float *V,
                     int rounded, tc_error *err)
{
    const int64_t nq = (int64_t)p->rows * p->d, nk = (int64_t)p->cols * p->d;
    double *x = tc_malloc_array(nq + 2 * nk ? nq + 2 * nk : 1, sizeof *x, err);
    if (!x)
        return NULL;
    const float *src[3] = { Q, K, V };
    const int64_t len[3] = { nq, nk, V ? nk : 0 };
    for (int i = 0; i < 3; i++) {
        double *dst = x + (i ? nq + (i - 1) * nk : 0);
        for (int64_t j = 0; j < len[i]; j++)
            dst[j] = rounded ? tc_round_half(src[i][j]) : src[i][j];
    }
    return x;
}

/* The reference (O or S, caller's order) on the operands as the path takes
   them. */
static tc_status reference(const tc_attn_plan *p, const float *Q, const float *K, const float *V,
                           int rounded, double *ref, tc_error *err)
{
    double *x = widen(p, Q, K, V, rounded, err);
    if (!x)
        return TC_ERR_NOMEM;
    const double *k = x + (int64_t)p->rows * p->d, *v = k + (int64_t)p->cols * p->d;
    tc_status st = p->op == TC_OP_ATTENTION
                       ? tc_attention_ref_f64(p->caller, x, k, v, p->d, p->scale, ref,
                                              p->threads, err)
                       : tc_sddmm_ref_f64(p->caller, x, k, p->d, p->scale, ref, p->threads, err);
    free(x);
    return st;
}

static int64_t out_len(const tc_attn_plan *p)
{
    return p->op == TC_OP_ATTENTION ? (int64_t)p->rows * p->d : p->nnz;
}

static tc_status cpu_execute(const tc_attn_plan *p, const float *Q, const float *K,
                             const float *V, float *out, tc_error *err)
{
    const int64_t n = out_len(p);
    double *ref = tc_malloc_array(n ? n : 1, sizeof *ref, err);
    if (!ref)
        return TC_ERR_NOMEM;
    tc_status st = reference(p, Q, K, V, 0, ref, err);
    for (int64_t i = 0; st == TC_OK && i < n; i++)
        out[i] = (float)ref[i];
    free(ref);
    return st;
}

static tc_status execute(tc_attn_plan *p, const float *Q, const float *K, const float *V,
                         float *out, void *stream, tc_error *err)
{
    if (!Q || !K || (p->op == TC_OP_ATTENTION && !V) || (!out && out_len(p)))
        return tc_error_set(err, TC_ERR_ARG, "%s: an operand or the output is NULL",
                            p->op == TC_OP_ATTENTION ? "attention" : "sddmm");
    if (p->device == TC_DEVICE_GPU)
        return tc_attn_gpu_execute(p, Q, K, V, out, stream, 0, err);
    if (stream)
        return tc_error_set(err, TC_ERR_ARG, "a CPU plan takes host arrays and no stream");
    return cpu_execute(p, Q, K, V, out, err);
}

static tc_status op_is(const tc_attn_plan *p, tc_op op, tc_error *err)
{
    return p->op == op ? TC_OK
                       : tc_error_set(err, TC_ERR_ARG, "this plan is for %s, not %s",
                                      p->op == TC_OP_SDDMM ? "the SDDMM" : "attention",
                                      op == TC_OP_SDDMM ? "the SDDMM" : "attention");
}

tc_status tc_attn_plan_sddmm(tc_attn_plan *p, const float *Q, const float *K, float *S,
                             void *stream, tc_error *err)
{
    tc_status st = op_is(p, TC_OP_SDDMM, err);
    return st ? st : execute(p, Q, K, NULL, S, stream, err);
}

tc_status tc_attn_plan_attention(tc_attn_plan *p, const float *Q, const float *K,
                                 const float *V, float *O, void *stream, tc_error *err)
{
    tc_status st = op_is(p, TC_OP_ATTENTION, err);
    return st ? st : execute(p, Q, K, V, O, stream, err);
}

tc_status tc_attn_plan_execute_host(tc_attn_plan *p, const float *Q, const float *K,
                                    const float *V, float *out, tc_error *err)
{
    if (p->device == TC_DEVICE_CPU)
        return execute(p, Q, K, p->op == TC_OP_ATTENTION ? V : NULL, out, NULL, err);
    return tc_attn_gpu_execute_host(p, Q, K, p->op == TC_OP_ATTENTION ? V : NULL, out, err);
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                    */
/* ------------------------------------------------------------------------ */

tc_status tc_attn_plan_check(const tc_attn_plan *p, const float *Q, const float *K,
                             const float *V, int *which, tc_error *err)
{
    static const char *const names[3] = { "Q", "K", "V" };
    const float *x[3] = { Q, K, p->op == TC_OP_ATTENTION ? V : NULL };
    *which = -1;
    for (int i = 0; i < 3 && x[i]; i++) {
        const int64_t n = (int64_t)(i ? p->cols : p->rows) * p->d;
        for (int64_t j = 0; j < n; j++)
            if (!(fabs(x[i][j]) <= TC_HALF_MAX)) {
                *which = i;
                return tc_error_set(err, TC_ERR_INVALID,
                                    "%s[%lld][%d] = %g: the fused kernel takes fp16 operands "
                                    "(finite, |x| <= 65504); the unfused path computes in fp32",
                                    names[i], (long long)(j / p->d), (int)(j % p->d),
                                    (double)x[i][j]);
            }
    }
    return TC_OK;
}

tc_status tc_attn_plan_verify(const tc_attn_plan *p, const float *Q, const float *K,
                              const float *V, const float *out, tc_compare *c, int64_t *row,
                              int64_t *col, tc_error *err)
{
    const int64_t n = out_len(p);
    double *ref = tc_malloc_array(n ? n : 1, sizeof *ref, err);
    if (!ref)
        return TC_ERR_NOMEM;
    const int rounded = p->device == TC_DEVICE_GPU && p->path == TC_ATTN_FUSED;
    tc_status st = reference(p, Q, K, p->op == TC_OP_ATTENTION ? V : NULL, rounded, ref, err);
    if (st == TC_OK && p->op == TC_OP_ATTENTION)
        tc_compare_f32(out, ref, p->rows, p->d, p->d, c);
    else if (st == TC_OK)
        tc_compare_f32(out, ref, 1, (int32_t)n, n, c);
    free(ref);
    *row = *col = -1;
    const int64_t at = st == TC_OK ? c->max_at : -1;
    if (at >= 0 && p->op == TC_OP_ATTENTION) {
        *row = at / p->d;
        *col = at % p->d;
    } else if (at >= 0) {
        int64_t lo = 0, hi = p->rows;       /* the row whose nonzeros hold at */
        while (hi - lo > 1) {
            const int64_t mid = (lo + hi) / 2;
            *(p->caller->rowptr[mid] <= at ? &lo : &hi) = mid;
        }
        *row = lo;
        *col = p->caller->colidx[at];
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* Info and report                                                           */
/* ------------------------------------------------------------------------ */

static const char *precision(const tc_attn_plan *p)
{
    return p->device == TC_DEVICE_CPU ? "fp64" : p->path == TC_ATTN_FUSED ? "fp16" : "fp32";
}

void tc_attn_plan_info(const tc_attn_plan *p, tc_plan_info *out)
{
    memset(out, 0, sizeof *out);
    const int gpu = p->device == TC_DEVICE_GPU, fused = gpu && p->path == TC_ATTN_FUSED;
    out->op = p->op;
    out->n = p->d;
    out->device = p->device;
    snprintf(out->device_name, sizeof out->device_name, "%s", p->device_name);
    out->effort = p->effort;
    out->scale = p->scale;
    snprintf(out->order, sizeof out->order, "%s", p->caller != p->stored ? "stored" : "given");
    snprintf(out->format, sizeof out->format, "%s", fused ? "bsb" : "csr");
    if (fused)
        snprintf(out->variant, sizeof out->variant, "w%d", tc_attn_warps(p->attn));
    snprintf(out->precision, sizeof out->precision, "%s", precision(p));
    /* the CPU computes in float64 and returns float32, which fp32's bound
       holds (fp64 has none: tc_tolerance's 0 would fail every check) */
    out->tolerance = tc_tolerance(gpu ? out->precision : "fp32");
    /* the bench's figures (on the caller's operands), else planning's */
    const double fused_ms = p->benched ? p->fused_ms.decile[5] : p->plan_fused_ms;
    out->cusparse_ms = p->benched ? p->unfused_ms.decile[5] : p->plan_unfused_ms;
    out->ms = fused ? fused_ms : out->cusparse_ms;
    out->build_s = p->build_s;
    out->upload_s = p->upload_s;
    out->tune_s = p->tune_s;
    out->plan_s = p->plan_s;
    /* the planning pays back what each product saves against cuSPARSE;
       unknown (NAN) until both paths were timed */
    const int timed = out->ms > 0 && out->cusparse_ms > 0;
    const double saved_s = timed ? (out->cusparse_ms - out->ms) / 1e3 : NAN;
    out->payback_calls = !gpu                  ? 0
                         : !timed              ? NAN
                         : p->plan_s == 0      ? 0
                         : saved_s > 0         ? ceil(p->plan_s / saved_s)
                                               : INFINITY;
}

static const char *kernel_name(const tc_attn_plan *p)
{
    const int att = p->op == TC_OP_ATTENTION;
    if (p->device == TC_DEVICE_CPU)
        return "float64 reference (lib/attention.c)";
    if (p->path == TC_ATTN_FUSED)
        return att ? "fused bsb kernel (Fused3S), fp16 mma, fp32 softmax"
                   : "bsb SDDMM kernel, fp16 mma, fp32 scores";
    return att ? "cuSPARSE SDDMM, row softmax, cuSPARSE SpMM (fp32)" : "cuSPARSE SDDMM (fp32)";
}

static tc_status report_bench(const tc_attn_plan *p, tc_report *rep)
{
    const double fused = p->fused_ms.decile[5], unfused = p->unfused_ms.decile[5];
    /* multiply-adds of the two products (SDDMM, and SpMM for attention) */
    const double flops = 2.0 * (double)p->nnz * p->d * (p->op == TC_OP_ATTENTION ? 2 : 1);
    tc_status st;
    (void)((st = tc_report_int(rep, "bench", "warmup", p->warmup, "untimed runs")) ||
           (st = tc_report_int(rep, "bench", "iters", p->iters, "timed runs")) ||
           (st = tc_report_int(rep, "bench", "operand_sets", p->sets,
                               "operand sets rotated so that they are not timed from L2")) ||
           (st = tc_report_num(rep, "bench", "fused_ms", fused, "median, fused kernel")) ||
           (st = tc_report_num(rep, "bench", "fused_min_ms", p->fused_ms.min, NULL)) ||
           (st = tc_report_num(rep, "bench", "fused_gflops", flops / (fused * 1e6),
                               "2 nnz d per product / median")) ||
           (st = tc_report_num(rep, "bench", "unfused_ms", unfused,
                               "median, cuSPARSE pipeline, same operands")) ||
           (st = tc_report_num(rep, "bench", "unfused_min_ms", p->unfused_ms.min, NULL)) ||
           (st = tc_report_num(rep, "bench", "speedup", unfused / fused, "unfused / fused")));
    return st;
}

static tc_status report_memory(const tc_attn_plan *p, tc_report *rep)
{
    const int att = p->op == TC_OP_ATTENTION;
    const int64_t total = (int64_t)p->rows + (att ? 2 : 1) * (int64_t)p->cols;
    const int64_t operands = 4 * (total * p->d + (att ? (int64_t)p->rows * p->d : p->nnz));
    const int64_t fused = tc_attn_device_bytes(p->attn, TC_ATTN_FUSED);
    const int64_t unfused = tc_attn_device_bytes(p->attn, TC_ATTN_UNFUSED);
    tc_status st;
    (void)((st = tc_report_int(rep, "memory", "operand_bytes", operands,
                               "Q, K, V and the output, float32, one set")) ||
           (st = tc_report_int(rep, "memory", "fused_bytes", fused,
                               "bsb arrays, schedule, fp16 K and V")) ||
           (st = tc_report_int(rep, "memory", "fused_peak_bytes", fused + operands, NULL)));
    if (st == TC_OK && unfused)
        (void)((st = tc_report_int(rep, "memory", "unfused_bytes", unfused,
                                   "CSR with nnz scores, cuSPARSE workspaces")) ||
               (st = tc_report_int(rep, "memory", "unfused_peak_bytes", unfused + operands,
                                   NULL)));
    return st;
}

tc_status tc_attn_plan_report(const tc_attn_plan *p, tc_report *rep, tc_error *err)
{
    const int gpu = p->device == TC_DEVICE_GPU;
    tc_status st;
    (void)((st = tc_report_str(rep, "run", "device", p->device_name, NULL)) ||
           (st = tc_report_str(rep, "run", "path",
                               !gpu                       ? "reference"
                               : p->path == TC_ATTN_FUSED ? "fused"
                                                          : "unfused",
                               NULL)) ||
           (st = tc_report_str(rep, "run", "kernel", kernel_name(p), NULL)) ||
           (st = tc_report_str(rep, "run", "precision", precision(p), NULL)) ||
           (st = tc_report_str(rep, "run", "device_why", p->device_why,
                               "why this device (\"\": as asked)")));
    if (st == TC_OK && gpu)
        (void)((st = tc_report_int(rep, "run", "warps", tc_attn_warps(p->attn),
                                   "per thread block of the fused kernel")) ||
               (st = tc_report_int(rep, "run", "width", tc_attn_width(p->attn),
                                   "d padded to the kernel's")));
    if (st == TC_OK && p->benched)
        st = report_bench(p, rep);
    if (st == TC_OK && gpu)
        st = report_memory(p, rep);
    return st ? tc_error_set(err, st, "out of memory") : TC_OK;
}

void tc_attn_plan_free(tc_attn_plan *p)
{
    if (!p)
        return;
    tc_attn_gpu_free(p);
    if (p->caller != p->stored)
        tc_csr_free(p->caller);
    tc_csr_free(p->stored);
    free(p->row_n2o);
    free(p->row_o2n);
    free(p->col_n2o);
    free(p->s_map);
    free(p);
}
