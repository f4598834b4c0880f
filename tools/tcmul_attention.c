/*
 * tcmul_attention.c: tcmul --op attention (O = softmax(scale * Q K^T
 * masked by A) V) and --op sddmm (S = scale * Q K^T at A's nonzeros), the
 * operations of Fused3S (seed 003), on the GPU from the bsb format
 * (kernels/attention.cu) or on the CPU from the float64 reference
 * (lib/attention.c).
 *
 * Operands. Q has A's rows, K and V have A's columns, all d columns;
 * random ones (--dim) are uniform in [-1, 1), drawn in the original order
 * like tcmul's B. When A was reordered, Q takes A's row order and K, V its
 * column order, and O (S) comes back in the original order.
 *
 * Precision. The fused kernel takes Q, K and V in fp16 (the paper's Table
 * 5), so its inputs must be finite and within fp16's range (checked, with
 * the offending element named). Its reference takes the same rounded
 * values: what is checked is the kernel's arithmetic (fp32 scores,
 * softmax and accumulation, E in fp16), not the rounding of the inputs,
 * which with Q and K scaled by 30 would move the scores by more than any
 * tolerance. The unfused path computes in fp32 and is checked against the
 * unrounded inputs.
 */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tcmul.h"
#include "bsb.h"

#define HALF_MAX 65504.0

/* x rounded to the nearest fp16 value (ties to even; subnormals below
   2^-14 in steps of 2^-24; beyond the largest finite half, infinity). */
static double round_half(double x)
{
    if (!isfinite(x) || x == 0)
        return x;
    int e;
    frexp(x, &e);                               /* |x| = f 2^e, 0.5 <= f < 1 */
    const int q = e - 11 < -24 ? -24 : e - 11;  /* the step at x: 11 bits, or 2^-24 */
    const double r = ldexp(nearbyint(ldexp(x, -q)), q);
    return fabs(r) > HALF_MAX ? copysign(INFINITY, r) : r;
}

/* The run: operands, results and figures. */
typedef struct attn_run {
    const tc_csr *a;
    int32_t d;
    double scale;
    int64_t q_rows, kv_rows;    /* rows of Q; of K and of V */
    int nops;                   /* operands stacked: 3 (Q, K, V) or 2 (Q, K) */
    double *qkv;                /* stacked, stored order, float64 */
    float *qkv32;
    float *out;                 /* O (rows x d) or S (nnz, CSR order) */
    int64_t out_len;
    char device[300];
    const char *implementation, *precision;
    int warps, width;
    tc_dist fused_ms, unfused_ms;
    int sets;
    int64_t fused_bytes, unfused_bytes, operand_bytes;
} attn_run;

static const char *op_name(const options *o)
{
    return o->op == OP_ATTENTION ? "attention" : "sddmm";
}

/* ------------------------------------------------------------------------ */
/* Operands                                                                  */
/* ------------------------------------------------------------------------ */

/* Operand i (Q, K or V) from its file, rows x d; d is fixed by Q. */
static tc_status read_operand(const options *o, int i, int32_t rows, int32_t *d, double **x,
                              tc_error *err)
{
    static const char *const names[3] = { "Q", "K", "V" }, *const dsets[3] = { "/Q", "/K", "/V" };
    int32_t r, c;
    tc_status st = tcmul_read_dense(&o->qkv[i], dsets[i], &r, &c, x, err);
    if (st == TC_OK && r != rows)
        st = tc_error_set(err, TC_ERR_INVALID, "%s: %s has %d rows, but A (%s) has %d %s",
                          o->qkv[i].spec, names[i], r, o->input, rows, i ? "columns" : "rows");
    else if (st == TC_OK && *d && c != *d)
        st = tc_error_set(err, TC_ERR_INVALID, "%s: %s has %d columns, but Q has %d",
                          o->qkv[i].spec, names[i], c, *d);
    else if (st == TC_OK && c < 1)
        st = tc_error_set(err, TC_ERR_INVALID, "%s: %s has no columns", o->qkv[i].spec,
                          names[i]);
    if (st == TC_OK)
        *d = c;
    else {
        free(*x);
        *x = NULL;
    }
    return st;
}

/* Q, K (and V) in the stored order, stacked: Q's rows follow A's row
   permutation, K's and V's its column permutation. */
static tc_status load_operands(const options *o, const tool_matrix *in, attn_run *r,
                               tc_error *err)
{
    const tc_perm *rp = in->tcf ? in->tcf->row_perm : NULL;
    const tc_perm *cp = in->tcf ? in->tcf->col_perm : NULL;
    const int64_t rows[3] = { r->a->rows, r->a->cols, r->a->cols };
    double *src[3] = { NULL, NULL, NULL };
    int32_t d = o->dim;
    tc_status st = TC_OK;
    r->q_rows = rows[0];
    r->kv_rows = rows[1];
    for (int i = 0; i < r->nops && st == TC_OK && o->qkv[0].spec; i++)
        st = read_operand(o, i, (int32_t)rows[i], &d, &src[i], err);
    const int64_t total = r->q_rows + (r->nops - 1) * r->kv_rows;
    if (st == TC_OK && !(r->qkv = tc_malloc_array(total * d, sizeof *r->qkv, err)))
        st = TC_ERR_NOMEM;
    if (st == TC_OK && !o->qkv[0].spec)
        tc_random_fill(r->qkv, total * d, o->seed, -1.0, 1.0);
    for (int i = 0, at = 0; i < r->nops && st == TC_OK; at += (int)rows[i], i++) {
        const tc_perm *p = i ? cp : rp;
        double *part = r->qkv + (int64_t)at * d;
        if (src[i]) {
            for (int64_t j = 0; j < rows[i]; j++)
                memcpy(part + j * d, src[i] + (int64_t)(p ? p->new2old[j] : j) * d,
                       (size_t)d * sizeof *part);
        } else if (p) {
            /* random operands were drawn in the original order */
            double *orig = tc_malloc_array(rows[i] * d, sizeof *orig, err);
            if (!orig) {
                st = TC_ERR_NOMEM;
                break;
            }
            memcpy(orig, part, (size_t)(rows[i] * d) * sizeof *orig);
            for (int64_t j = 0; j < rows[i]; j++)
                memcpy(part + j * d, orig + (int64_t)p->new2old[j] * d, (size_t)d * sizeof *part);
            free(orig);
        }
    }
    for (int i = 0; i < 3; i++)
        free(src[i]);
    r->d = d;
    return st;
}

/* The fused kernel's inputs are fp16: every value finite and within its
   range, else an error naming the operand, row and column (original
   numbering). */
static tc_status check_half_range(const options *o, const tool_matrix *in, const attn_run *r,
                                  tc_error *err)
{
    static const char *const names[3] = { "Q", "K", "V" };
    const tc_perm *rp = in->tcf ? in->tcf->row_perm : NULL;
    const tc_perm *cp = in->tcf ? in->tcf->col_perm : NULL;
    int64_t at = 0;
    for (int i = 0; i < r->nops; i++) {
        const int64_t rows = i ? r->kv_rows : r->q_rows;
        const tc_perm *p = i ? cp : rp;
        for (int64_t j = 0; j < rows; j++, at++)
            for (int32_t c = 0; c < r->d; c++) {
                const double x = r->qkv[at * r->d + c];
                if (isfinite(x) && fabs(x) <= HALF_MAX)
                    continue;
                return tc_error_set(err, TC_ERR_INVALID,
                                    "%s: %s[%lld][%d] = %g: the fused kernel takes fp16 operands "
                                    "(finite, |x| <= 65504); --path unfused computes in fp32",
                                    o->qkv[i].spec ? o->qkv[i].spec : "random", names[i],
                                    (long long)(p ? p->new2old[j] : j), c, x);
            }
    }
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Runs                                                                      */
/* ------------------------------------------------------------------------ */

/* The reference on the operands as the path took them (rounded to fp16 for
   the fused kernel): O (rows x d) or S (nnz, CSR order). */
static tc_status reference(const options *o, const attn_run *r, int rounded, double *ref,
                           tc_error *err)
{
    const int64_t total = r->q_rows + (r->nops - 1) * r->kv_rows;
    double *x = r->qkv;
    if (rounded) {
        if (!(x = tc_malloc_array(total * r->d, sizeof *x, err)))
            return TC_ERR_NOMEM;
        for (int64_t i = 0; i < total * r->d; i++)
            x[i] = round_half(r->qkv[i]);
    }
    const double *K = x + r->q_rows * r->d, *V = K + r->kv_rows * r->d;
    /* 0 threads: the library's default, $TC_THREADS, which --threads sets */
    tc_status st = o->op == OP_ATTENTION
                       ? tc_attention_ref_f64(r->a, x, K, V, r->d, r->scale, ref, 0, err)
                       : tc_sddmm_ref_f64(r->a, x, K, r->d, r->scale, ref, 0, err);
    if (x != r->qkv)
        free(x);
    return st;
}

typedef struct gpu_ctx {
    tc_attn *plan;
    const options *o;
    tc_attn_path path;
    tc_gpu_operands *ops;
    float *S;                   /* sddmm: the scores (one set) */
} gpu_ctx;

static tc_status gpu_once(void *arg, int set, tc_error *err)
{
    gpu_ctx *c = arg;
    return c->o->op == OP_ATTENTION
               ? tc_attn_run(c->plan, c->path, c->ops->B[set], c->ops->C[set], err)
               : tc_attn_sddmm(c->plan, c->path, c->ops->B[set], c->S, err);
}

/* The fused SDDMM's scores (bsb order) into CSR order. */
static tc_status scores_to_csr(const tc_bsb *mask, const float *bsb_order, float *csr,
                               tc_error *err)
{
    int64_t *offset = tc_malloc_array(mask->nblocks + 1, sizeof *offset, err);
    int64_t *to_csr = offset ? tc_malloc_array(mask->base.nnz, sizeof *to_csr, err) : NULL;
    if (!to_csr && mask->base.nnz) {
        free(offset);
        return TC_ERR_NOMEM;
    }
    tc_bsb_value_index(mask, offset, to_csr);
    for (int64_t k = 0; k < mask->base.nnz; k++)
        csr[to_csr[k]] = bsb_order[k];
    free(offset);
    free(to_csr);
    return TC_OK;
}

/* One run of the chosen path on set 0 after its output was poisoned, the
   output brought back (S in CSR order). */
static tc_status gpu_result(gpu_ctx *c, tc_gpu *g, const tc_bsb *mask, attn_run *r,
                            tc_error *err)
{
    const int att = c->o->op == OP_ATTENTION;
    float *dev = att ? c->ops->C[0] : c->S;
    tc_status st = tc_gpu_poison(g, dev, r->out_len * (int64_t)sizeof(float), err);
    if (st == TC_OK)
        st = gpu_once(c, 0, err);
    if (att || c->path == TC_ATTN_UNFUSED)
        return st ? st : tc_gpu_download(g, r->out, dev, r->out_len * (int64_t)sizeof(float), err);
    float *raw = st ? NULL : tc_malloc_array(r->out_len, sizeof *raw, err);
    if (!st && !raw && r->out_len)
        st = TC_ERR_NOMEM;
    if (!st)
        st = tc_gpu_download(g, raw, dev, r->out_len * (int64_t)sizeof *raw, err);
    if (!st)
        st = scores_to_csr(mask, raw, r->out, err);
    free(raw);
    return st;
}

/* Both paths timed on the same operands (--bench). */
static tc_status gpu_bench(gpu_ctx *c, tc_gpu *g, attn_run *r, tc_error *err)
{
    tc_gpu_timing t;
    const tc_attn_path chosen = c->path;
    c->path = TC_ATTN_FUSED;
    tc_status st = tc_gpu_time(g, gpu_once, c, c->ops->count, c->o->warmup, c->o->iters, &t, err);
    r->fused_ms = t.ms;
    c->path = TC_ATTN_UNFUSED;
    if (st == TC_OK)
        st = tc_gpu_time(g, gpu_once, c, c->ops->count, c->o->warmup, c->o->iters, &t, err);
    r->unfused_ms = t.ms;
    c->path = chosen;
    return st;
}

static tc_status run_gpu(const options *o, const tool_matrix *in, tc_gpu *g, const tc_fmt *mask,
                         attn_run *r, tc_error *err)
{
    const int att = o->op == OP_ATTENTION;
    const int64_t total = r->q_rows + (r->nops - 1) * r->kv_rows;
    snprintf(r->device, sizeof r->device, "%s", tc_gpu_get_info(g)->name);
    r->implementation = o->path == TC_ATTN_FUSED
                            ? (att ? "fused bsb kernel (Fused3S), fp16 mma, fp32 softmax"
                                   : "bsb SDDMM kernel, fp16 mma, fp32 scores")
                            : (att ? "cuSPARSE SDDMM, row softmax, cuSPARSE SpMM (fp32)"
                                   : "cuSPARSE SDDMM (fp32)");
    r->precision = o->path == TC_ATTN_FUSED ? "fp16" : "fp32";
    tc_attn *plan = NULL;
    tc_gpu_operands ops;
    memset(&ops, 0, sizeof ops);
    gpu_ctx c = { NULL, o, o->path, &ops, NULL };
    tc_status st = o->path == TC_ATTN_FUSED || o->bench ? check_half_range(o, in, r, err) : TC_OK;
    if (st == TC_OK && !(r->qkv32 = tc_malloc_array(total * r->d, sizeof *r->qkv32, err)))
        st = TC_ERR_NOMEM;
    for (int64_t i = 0; st == TC_OK && i < total * r->d; i++)
        r->qkv32[i] = (float)r->qkv[i];
    if (st == TC_OK)
        st = tc_attn_prepare(g, mask, r->a, r->d, r->scale, o->warmup, o->iters, &plan, err);
    if (st == TC_OK && o->variant)
        st = tc_attn_set_warps(plan, tcmul_attention_warps(o->variant), err);
    c.plan = plan;
    /* attention's operand sets rotate under --bench (tcmul's B and C do);
       the SDDMM's scores are one array */
    if (st == TC_OK)
        st = tc_gpu_operands_alloc(g, r->qkv32, (int32_t)total, att ? r->a->rows : 1, r->d,
                                   att && o->bench, &ops, err);
    if (st == TC_OK && !att)
        st = tc_gpu_alloc(g, r->out_len * (int64_t)sizeof(float), (void **)&c.S, err);
    if (st == TC_OK)
        st = gpu_result(&c, g, (const tc_bsb *)mask, r, err);
    if (st == TC_OK && o->bench)
        st = gpu_bench(&c, g, r, err);
    if (st == TC_OK) {
        r->warps = tc_attn_warps(plan);
        r->width = tc_attn_width(plan);
        r->sets = ops.count;
        r->fused_bytes = tc_attn_device_bytes(plan, TC_ATTN_FUSED);
        r->unfused_bytes = tc_attn_device_bytes(plan, TC_ATTN_UNFUSED);
        r->operand_bytes = 4 * (total * r->d + (att ? (int64_t)r->a->rows * r->d : r->out_len));
    }
    tc_gpu_free(g, c.S);
    tc_gpu_operands_free(g, &ops);
    tc_attn_free(plan);
    return st;
}

/* The CPU computes the float64 reference itself. */
static tc_status run_cpu(const options *o, attn_run *r, tc_error *err)
{
    snprintf(r->device, sizeof r->device, "cpu");
    r->implementation = "float64 reference (lib/attention.c)";
    r->precision = "fp64";
    double *ref = tc_malloc_array(r->out_len, sizeof *ref, err);
    if (!ref && r->out_len)
        return TC_ERR_NOMEM;
    tc_status st = reference(o, r, 0, ref, err);
    for (int64_t i = 0; st == TC_OK && i < r->out_len; i++)
        r->out[i] = (float)ref[i];
    free(ref);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Report and output                                                         */
/* ------------------------------------------------------------------------ */

static tc_status report_input(tc_report *rep, const options *o, const tool_matrix *in,
                              const attn_run *r)
{
    char src[3 * 1100] = "";
    if (!o->qkv[0].spec)
        snprintf(src, sizeof src, "random, seed %llu", (unsigned long long)o->seed);
    for (int i = 0; i < r->nops && o->qkv[0].spec; i++)
        snprintf(src + strlen(src), sizeof src - strlen(src), "%s%s", i ? " " : "",
                 o->qkv[i].spec);
    tc_status st;
    (void)((st = tc_report_str(rep, "input", "matrix", o->input, NULL)) ||
           (st = tc_report_str(rep, "input", "op", op_name(o), NULL)) ||
           (st = tc_report_int(rep, "input", "rows", r->a->rows, NULL)) ||
           (st = tc_report_int(rep, "input", "cols", r->a->cols, NULL)) ||
           (st = tc_report_int(rep, "input", "nnz", r->a->nnz, NULL)) ||
           (st = tc_report_int(rep, "input", "d", r->d, "columns of Q, K, V")) ||
           (st = tc_report_str(rep, "input", "operands", src, r->nops == 3 ? "Q K V" : "Q K")) ||
           (st = tc_report_num(rep, "input", "scale", r->scale, NULL)) ||
           (st = tc_report_str(rep, "input", "reordered",
                               in->tcf && (in->tcf->row_perm || in->tcf->col_perm) ? "yes" : "no",
                               "the output is given in the original order")));
    return st;
}

static tc_status report_run(tc_report *rep, const options *o, const attn_run *r)
{
    tc_status st;
    (void)((st = tc_report_str(rep, "run", "device", r->device, NULL)) ||
           (st = tc_report_str(rep, "run", "path",
                               strcmp(r->device, "cpu") == 0       ? "reference"
                               : o->path == TC_ATTN_FUSED ? "fused"
                                                          : "unfused",
                               NULL)) ||
           (st = tc_report_str(rep, "run", "kernel", r->implementation, NULL)) ||
           (st = tc_report_str(rep, "run", "precision", r->precision, NULL)));
    if (st == TC_OK && r->width)
        (void)((st = tc_report_int(rep, "run", "warps", r->warps,
                                   "per thread block of the fused kernel")) ||
               (st = tc_report_int(rep, "run", "width", r->width, "d padded to the kernel's")));
    return st;
}

/* Where the largest error is, in the original numbering: the row and
   column of O, or of S's nonzero. */
static void error_place(const options *o, const tool_matrix *in, const attn_run *r, int64_t at,
                        int64_t *row, int64_t *col)
{
    *row = *col = -1;
    if (at < 0)
        return;
    if (o->op == OP_ATTENTION) {
        *row = tcmul_original(in, at / r->d, 0);
        *col = at % r->d;
        return;
    }
    int64_t lo = 0, hi = r->a->rows;    /* the row whose nonzeros hold at */
    while (hi - lo > 1) {
        const int64_t mid = (lo + hi) / 2;
        *(r->a->rowptr[mid] <= at ? &lo : &hi) = mid;
    }
    *row = tcmul_original(in, lo, 0);
    *col = tcmul_original(in, r->a->colidx[at], 1);
}

static tc_status report_bench(tc_report *rep, const options *o, const attn_run *r)
{
    const double fused = r->fused_ms.decile[5], unfused = r->unfused_ms.decile[5];
    /* multiply-adds of the two products (SDDMM, and SpMM for attention) */
    const double flops = 2.0 * (double)r->a->nnz * r->d * (o->op == OP_ATTENTION ? 2 : 1);
    tc_status st;
    (void)((st = tc_report_int(rep, "bench", "warmup", o->warmup, "untimed runs")) ||
           (st = tc_report_int(rep, "bench", "iters", o->iters, "timed runs")) ||
           (st = tc_report_int(rep, "bench", "operand_sets", r->sets,
                               "operand sets rotated so that they are not timed from L2")) ||
           (st = tc_report_num(rep, "bench", "fused_ms", fused, "median, fused kernel")) ||
           (st = tc_report_num(rep, "bench", "fused_min_ms", r->fused_ms.min, NULL)) ||
           (st = tc_report_num(rep, "bench", "fused_gflops", flops / (fused * 1e6),
                               "2 nnz d per product / median")) ||
           (st = tc_report_num(rep, "bench", "unfused_ms", unfused,
                               "median, cuSPARSE pipeline, same operands")) ||
           (st = tc_report_num(rep, "bench", "unfused_min_ms", r->unfused_ms.min, NULL)) ||
           (st = tc_report_num(rep, "bench", "speedup", unfused / fused, "unfused / fused")));
    return st;
}

static tc_status report_memory(tc_report *rep, const attn_run *r)
{
    tc_status st;
    (void)((st = tc_report_int(rep, "memory", "operand_bytes", r->operand_bytes,
                               "Q, K, V and the output, float32, one set")) ||
           (st = tc_report_int(rep, "memory", "fused_bytes", r->fused_bytes,
                               "bsb arrays, schedule, fp16 K and V")) ||
           (st = tc_report_int(rep, "memory", "fused_peak_bytes", r->fused_bytes + r->operand_bytes,
                               NULL)));
    if (st == TC_OK && r->unfused_bytes)
        (void)((st = tc_report_int(rep, "memory", "unfused_bytes", r->unfused_bytes,
                                   "CSR with nnz scores, cuSPARSE workspaces")) ||
               (st = tc_report_int(rep, "memory", "unfused_peak_bytes",
                                   r->unfused_bytes + r->operand_bytes, NULL)));
    return st;
}

static tc_status print_report(const options *o, const tool_matrix *in, const attn_run *r,
                              const tc_compare *c, int pass)
{
    tc_report *rep = tc_report_new();
    if (!rep)
        return TC_ERR_NOMEM;
    tc_status st = report_input(rep, o, in, r);
    if (!st)
        st = report_run(rep, o, r);
    int64_t row, col;
    error_place(o, in, r, c->max_at, &row, &col);
    if (!st && o->verify)
        st = tcmul_report_verify(rep, c, tc_tolerance(r->precision), pass, row, col);
    if (!st && o->bench)
        st = report_bench(rep, o, r);
    if (!st && r->width)
        st = report_memory(rep, r);
    if (!st)
        tool_print_reports(stdout, &o->input, &rep, 1, o->style);
    tc_report_free(rep);
    return st;
}

/* S as a sparse matrix in the original order, to .mtx or .tcf.h5. */
static tc_status write_scores(const options *o, const tool_matrix *in, const attn_run *r,
                              tc_error *err)
{
    const tc_csr *a = r->a;
    const tc_perm *rp = in->tcf ? in->tcf->row_perm : NULL;
    const tc_perm *cp = in->tcf ? in->tcf->col_perm : NULL;
    int32_t *ri = tc_malloc_array(a->nnz, sizeof *ri, err);
    int32_t *ci = ri ? tc_malloc_array(a->nnz, sizeof *ci, err) : NULL;
    double *v = ci ? tc_malloc_array(a->nnz, sizeof *v, err) : NULL;
    tc_status st = v || a->nnz == 0 ? TC_OK : TC_ERR_NOMEM;
    for (int32_t i = 0; st == TC_OK && i < a->rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            ri[k] = rp ? rp->new2old[i] : i;
            ci[k] = cp ? cp->new2old[a->colidx[k]] : a->colidx[k];
            v[k] = r->out[k];
        }
    tc_csr *s = NULL;
    if (st == TC_OK)
        st = tc_csr_from_coo(&s, a->rows, a->cols, a->nnz, ri, ci, v, 0, err);
    free(ri);
    free(ci);
    free(v);
    if (st == TC_OK && !o->out_sparse)
        st = tc_mtx_write(o->out_path, s, TC_SYM_GENERAL, "scale * Q K^T at the nonzeros of A",
                          err);
    if (st == TC_OK && o->out_sparse) {
        tc_tcf *f = tc_tcf_new();
        if (!f)
            st = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        if (st == TC_OK) {
            f->matrix = s;
            s = NULL;
            st = tc_provenance_set(&f->prov, tool_argc(), tool_argv(), o->input, err);
        }
        const tc_h5_write_opts wo = TC_H5_WRITE_DEFAULTS;
        if (st == TC_OK)
            st = tc_h5_write(o->out_path, f, &wo, err);
        tc_tcf_free(f);
    }
    tc_csr_free(s);
    if (st == TC_OK)
        tool_info("wrote %s: %d x %d, %lld scores", o->output, a->rows, a->cols,
                  (long long)a->nnz);
    return st;
}

/* ------------------------------------------------------------------------ */

static tc_status verify(const options *o, const attn_run *r, int on_gpu, tc_compare *c,
                        tc_error *err)
{
    double *ref = tc_malloc_array(r->out_len, sizeof *ref, err);
    if (!ref && r->out_len)
        return TC_ERR_NOMEM;
    tc_status st = reference(o, r, on_gpu && o->path == TC_ATTN_FUSED, ref, err);
    if (st == TC_OK && o->op == OP_ATTENTION)
        tc_compare_f32(r->out, ref, r->a->rows, r->d, r->d, c);
    else if (st == TC_OK)
        tc_compare_f32(r->out, ref, 1, (int32_t)r->out_len, r->out_len, c);
    free(ref);
    return st;
}

int tcmul_attention_warps(const char *name)
{
    static const char *const names[] = { "w1", "w2", "w4", "w8" };
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return 1 << i;
    return 0;
}

int tcmul_attention(const options *o, tc_gpu *g)
{
    if (!g && (o->bench || o->verify || o->path || o->variant))
        tool_usage_error("--op %s: --bench, --verify, --path and --variant are about the GPU "
                         "paths; the CPU computes the float64 reference itself", op_name(o));
    tc_error err;
    tool_matrix in;
    if (tool_load_matrix(o->input, g != NULL, &in, &err))
        tool_die(&err);
    attn_run r;
    memset(&r, 0, sizeof r);
    r.a = in.a;
    r.nops = o->op == OP_ATTENTION ? 3 : 2;
    const tc_fmt *mask = NULL;
    tc_fmt *built = NULL;
    tc_compare cmp;
    memset(&cmp, 0, sizeof cmp);
    int pass = 1;
    tc_status st = load_operands(o, &in, &r, &err);
    r.scale = o->scale ? o->scale : o->op == OP_ATTENTION ? 1.0 / sqrt(r.d) : 1.0;
    r.out_len = o->op == OP_ATTENTION ? (int64_t)r.a->rows * r.d : r.a->nnz;
    if (!st && !(r.out = tc_malloc_array(r.out_len ? r.out_len : 1, sizeof *r.out, &err)))
        st = TC_ERR_NOMEM;
    if (!st && g)
        st = tcmul_kernel_fmt(tc_format_find("bsb"), &in, &mask, &built, &err);
    if (!st)
        st = g ? run_gpu(o, &in, g, mask, &r, &err) : run_cpu(o, &r, &err);
    if (!st && o->verify) {
        st = verify(o, &r, g != NULL, &cmp, &err);
        pass = !st && cmp.nonfinite == 0 && cmp.rel_fro <= tc_tolerance(r.precision);
    }
    if (!st && o->output && pass)
        st = o->op == OP_ATTENTION ? tcmul_write_rows(o, &in, r.out, r.a->rows, r.d, &err)
                                   : write_scores(o, &in, &r, &err);
    if (!st && (o->verify || o->bench))
        st = print_report(o, &in, &r, &cmp, pass);
    if (!st && !pass)
        st = tcmul_verify_failed(&cmp, r.precision, &err);
    tc_gpu_close(g);
    tc_fmt_free(built);
    tool_matrix_free(&in);
    free(r.qkv);
    free(r.qkv32);
    free(r.out);
    if (st)
        tool_die(&err);
    return 0;
}
