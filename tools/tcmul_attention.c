/*
 * tcmul_attention.c: tcmul --op attention (O = softmax(scale * Q K^T
 * masked by A) V) and --op sddmm (S = scale * Q K^T at A's nonzeros):
 * options, operands, output and printing over the public plan API
 * (tcsparse_plan.h), whose SDDMM and attention plans hold the run
 * protocol: the device, the path, bsb, upload, tuning, the permutation of
 * a reordered A, timing and verification.
 *
 * Operands. Q has A's rows, K and V have A's columns, all d columns;
 * random ones (--dim) are uniform in [-1, 1), drawn in the original order
 * like tcmul's B. They are given to the plan in the original order, and O
 * (S) comes back in it.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "tcmul.h"

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


/* Q, K (and V) in the original order, stacked in *x (float32): from their
   files, or random (drawn stacked, as before the plan API, so that a seed
   gives the same operands). */
static tc_status load_operands(const options *o, const tc_csr *a, int nops, float **x,
                               int32_t *d, tc_error *err)
{
    const int64_t rows[3] = { a->rows, a->cols, a->cols };
    double *src[3] = { NULL, NULL, NULL }, *rnd = NULL;
    *d = o->dim;
    *x = NULL;
    tc_status st = TC_OK;
    for (int i = 0; i < nops && st == TC_OK && o->qkv[0].spec; i++)
        st = read_operand(o, i, (int32_t)rows[i], d, &src[i], err);
    const int64_t total = (rows[0] + (nops - 1) * rows[1]) * *d;
    if (st == TC_OK && !o->qkv[0].spec) {
        if ((rnd = tc_malloc_array(total ? total : 1, sizeof *rnd, err)))
            tc_random_fill(rnd, total, o->seed, -1.0, 1.0);
        else
            st = TC_ERR_NOMEM;
    }
    if (st == TC_OK && !(*x = tc_malloc_array(total ? total : 1, sizeof **x, err)))
        st = TC_ERR_NOMEM;
    for (int i = 0, at = 0; i < nops && st == TC_OK; at += (int)(rows[i] * *d), i++)
        for (int64_t j = 0; j < rows[i] * *d; j++)
            (*x)[at + j] = (float)(src[i] ? src[i][j] : rnd[at + j]);
    for (int i = 0; i < 3; i++)
        free(src[i]);
    free(rnd);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Report and output                                                         */
/* ------------------------------------------------------------------------ */

typedef struct attn_run {
    const tc_csr *a;
    int nops;
    int32_t d;
    double scale;
} attn_run;

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


static tc_status print_report(const options *o, const tool_matrix *in, const attn_run *r,
                              const tc_plan *plan, const tc_compare *c, double tol, int pass,
                              int64_t row, int64_t col, tc_error *err)
{
    tc_report *rep = tc_report_new();
    if (!rep)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_status st = report_input(rep, o, in, r);
    if (!st)
        st = tc_plan_report(plan, rep, err);
    if (!st && o->verify)
        st = tcmul_report_verify(rep, c, tol, pass, row, col);
    if (!st)
        tool_print_reports(stdout, &o->input, &rep, 1, o->style);
    tc_report_free(rep);
    return st ? tc_error_set(err, st, "out of memory") : TC_OK;
}

/* S (in the order of the plan's mask, the original one) as a sparse
   matrix, to .mtx or .tcf.h5. */
static tc_status write_scores(const options *o, const tc_csr *a, const float *out,
                              tc_error *err)
{
    int32_t *ri = tc_malloc_array(a->nnz, sizeof *ri, err);
    double *v = ri ? tc_malloc_array(a->nnz, sizeof *v, err) : NULL;
    tc_status st = v || a->nnz == 0 ? TC_OK : TC_ERR_NOMEM;
    for (int32_t i = 0; st == TC_OK && i < a->rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            ri[k] = i;
            v[k] = out[k];
        }
    tc_csr *s = NULL;
    if (st == TC_OK)
        st = tc_csr_from_coo(&s, a->rows, a->cols, a->nnz, ri, a->colidx, v, 0, err);
    free(ri);
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

int tcmul_attention_warps(const char *name)
{
    static const char *const names[] = { "w1", "w2", "w4", "w8" };
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return 1 << i;
    return 0;
}

static int unfused(const options *o)
{
    return o->path && strcmp(o->path, "unfused") == 0;
}

/* The plan's options from tcmul's: the path by its format (bsb: fused;
   csr: cuSPARSE's unfused pipeline), never the planner's timed choice, so
   that a run is the path asked for; a one-off product, no plan cache. */
static void plan_options(const options *o, int32_t d, tc_plan_opts *po)
{
    tc_plan_opts_init(po);
    po->op = o->op == OP_ATTENTION ? TC_OP_ATTENTION : TC_OP_SDDMM;
    po->n = d;
    po->device = o->device == DEVICE_CPU   ? TC_DEVICE_CPU
                 : o->device == DEVICE_GPU ? TC_DEVICE_GPU
                                           : TC_DEVICE_AUTO;
    po->gpu = o->gpu;
    po->format = unfused(o) ? "csr" : "bsb";
    po->variant = o->variant;
    po->scale = o->scale;
    po->warmup = o->warmup;
    po->iters = o->iters;
    po->cache_dir = "";
}

/* The GPU's options refused for a run on the CPU (asked for, or chosen by
   auto for want of a GPU). */
static void refuse_gpu_options(const options *o)
{
    if (o->bench || o->verify || o->path || o->variant)
        tool_usage_error("--op %s: --bench, --verify, --path and --variant are about the GPU "
                         "paths; the CPU computes the float64 reference itself", op_name(o));
}

/* On stderr: the CPU that auto fell back to, with the reason, as a
   warning (its results and timings are not the GPU's), else the GPU. */
static void say_device(const options *o, const tc_plan *plan, const tc_plan_info *i)
{
    if (i->device == TC_DEVICE_GPU) {
        tool_info("running on GPU %d: %s", o->gpu, i->device_name);
        return;
    }
    if (o->device != DEVICE_AUTO)
        return;
    tc_report *r = tc_report_new();
    const char *why = "";
    const int n = r && !tc_plan_report(plan, r, NULL) ? tc_report_count(r) : 0;
    for (int k = 0; k < n; k++) {
        const tc_report_entry *e = tc_report_at(r, k);
        if (e->is_str && strcmp(e->section, "run") == 0 && strcmp(e->key, "device_why") == 0)
            why = e->str;
    }
    tool_warn("running on the CPU: %s", why);
    tc_report_free(r);
    refuse_gpu_options(o);
}

/* The fp16 check, the operand named by its file. */
static tc_status check_operands(const options *o, const tc_plan *plan, const float *q,
                                const float *k, const float *v, tc_error *err)
{
    int which;
    tc_status st = tc_plan_check_attention(plan, q, k, v, &which, err);
    if (st != TC_OK && which >= 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        st = tc_error_set(err, st, "%s: %s", o->qkv[which].spec ? o->qkv[which].spec : "random",
                          msg);
    }
    return st;
}

int tcmul_attention(const options *o)
{
    if (o->device == DEVICE_CPU)
        refuse_gpu_options(o);
    tc_error err;
    tool_matrix in;
    /* a .tcf.h5's stored bsb is what the fused kernel runs */
    if (tool_load_matrix(o->input, o->device != DEVICE_CPU, &in, &err))
        tool_die(&err);
    attn_run r = { in.a, o->op == OP_ATTENTION ? 3 : 2, 0, 0 };
    float *x = NULL, *out = NULL;
    tc_plan *plan = NULL;
    tc_compare cmp;
    memset(&cmp, 0, sizeof cmp);
    tc_plan_info info;
    memset(&info, 0, sizeof info);
    int64_t row = -1, col = -1;
    int pass = 1;
    tc_status st = load_operands(o, in.a, r.nops, &x, &r.d, &err);
    const float *q = x, *k = q + (int64_t)in.a->rows * r.d;
    const float *v = r.nops == 3 ? k + (int64_t)in.a->cols * r.d : NULL;
    tc_plan_opts po;
    plan_options(o, r.d, &po);
    if (!st)
        st = in.tcf ? tc_plan_create_tcf(in.tcf, &po, &plan, &err)
                    : tc_plan_create(in.a, &po, &plan, &err);
    if (!st) {
        tc_plan_get_info(plan, &info);
        say_device(o, plan, &info);
        r.scale = info.scale;
    }
    const int gpu = !st && info.device == TC_DEVICE_GPU;
    if (gpu && (!unfused(o) || o->bench))
        st = check_operands(o, plan, q, k, v, &err);
    const int64_t len = o->op == OP_ATTENTION ? (int64_t)in.a->rows * r.d : in.a->nnz;
    if (!st && !(out = tc_malloc_array(len ? len : 1, sizeof *out, &err)))
        st = TC_ERR_NOMEM;
    if (!st)
        st = tc_plan_execute_attention_host(plan, q, k, v, out, &err);
    if (!st && o->verify)
        st = tc_plan_verify_attention(plan, q, k, v, out, &cmp, &row, &col, &pass, &err);
    const tc_csr *mask = NULL;
    if (!st && o->output && pass && o->op == OP_SDDMM)
        st = tc_plan_attention_mask(plan, &mask, &err);
    if (!st && o->output && pass)
        st = o->op == OP_ATTENTION ? tcmul_write_floats(o, out, r.a->rows, r.d, NULL, &err)
                                   : write_scores(o, mask, out, &err);
    if (!st && o->bench)
        st = tc_plan_bench_attention(plan, q, k, v, &err);
    if (!st && (o->verify || o->bench))
        st = print_report(o, &in, &r, plan, &cmp, info.tolerance, pass, row, col, &err);
    if (!st && !pass)
        st = tcmul_verify_failed(&cmp, info.precision, &err);
    tc_plan_free(plan);
    tool_matrix_free(&in);
    free(x);
    free(out);
    if (st)
        tool_die(&err);
    return 0;
}
