/* t_plan_attention: SDDMM and attention through the installed API alone
   (tcsparse.h, tcsparse_plan.h), on the CPU, the way tcmul --op attention
   and --op sddmm run them: plans from a .tcf.h5 stored with its rows and
   columns permuted (and its bsb format) by tc_plan_create_tcf, host-array
   execution in the caller's (original) order, bitwise the float64
   reference on the unpermuted matrix; the mask in that order; verification
   passing, and failing on a wrong element placed at the caller's row and
   column; the fp16 check naming the operand; the info's scale; the report's
   run section. Each new call refuses an SpMM plan, and SpMM's calls refuse
   these plans. The GPU half (device pointers, the bench's section) is
   t_attn_plan_gpu. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcsparse.h"
#include "tcsparse_plan.h"
#include "tap.h"
#include "testmat.h"

/* orig stored as tcreorder stores it: /matrix permuted by rows and
   columns, /permutation, and the bsb format; written and read back. */
static tc_tcf *permuted_file(const tc_csr *orig)
{
    tc_error err;
    tc_tcf *f = tc_tcf_new();
    tc_fmt *bsb = NULL;
    const tc_params none = { 0 };
    f->row_perm = tap_shuffled(orig->rows);
    f->col_perm = tap_shuffled(orig->cols);
    if (tc_csr_permute(orig, f->row_perm, f->col_perm, &f->matrix, &err) ||
        tc_fmt_build(tc_format_find("bsb"), f->matrix, &none, &bsb, &err) ||
        tc_tcf_add_format(f, bsb, &err))
        tap_bail(err.msg);
    char path[] = "/tmp/t_plan_attention.XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        tap_bail("mkstemp");
    close(fd);
    const tc_h5_write_opts wo = TC_H5_WRITE_DEFAULTS;
    tc_tcf *back = NULL;
    if (tc_h5_write(path, f, &wo, &err) || tc_h5_read(path, 1, &back, &err))
        tap_bail(err.msg);
    unlink(path);
    tc_tcf_free(f);
    return back;
}

static void opts_for(tc_plan_opts *o, tc_op op, int32_t d)
{
    tc_plan_opts_init(o);
    o->op = op;
    o->n = d;
    o->device = TC_DEVICE_CPU;
}

static const char *run_str(const tc_plan *p, const char *key, char *buf, size_t len)
{
    tc_report *r = tc_report_new();
    tc_error err;
    snprintf(buf, len, "(none)");
    if (!r || tc_plan_report(p, r, &err))
        tap_bail("tc_plan_report");
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        if (e->is_str && strcmp(e->section, "run") == 0 && strcmp(e->key, key) == 0)
            snprintf(buf, len, "%s", e->str);
    }
    tc_report_free(r);
    return buf;
}

/* An element moved: verify fails and names the caller's place of it. */
static void wrong_element(const tc_plan *p, const float *Q, const float *K, const float *V,
                          float *out, int64_t at, int64_t row, int64_t col, const char *what)
{
    tc_compare c;
    int64_t r, k;
    int pass = 1;
    tc_error err;
    out[at] += 1;
    tc_status st = tc_plan_verify_attention(p, Q, K, V, out, &c, &r, &k, &pass, &err);
    ok(st == TC_OK && !pass && c.max_at == at && r == row && k == col,
       "%s: a wrong element fails, found at the caller's (%lld, %lld)", what, (long long)row,
       (long long)col);
    out[at] -= 1;
}

static void attention(const tc_tcf *f, const tc_csr *orig)
{
    const int32_t d = 6;
    const int64_t nq = (int64_t)orig->rows * d, nk = (int64_t)orig->cols * d;
    float *Q = tap_random_floats(nq), *K = tap_random_floats(nk), *V = tap_random_floats(nk);
    double *q = tap_widen(Q, nq), *k = tap_widen(K, nk), *v = tap_widen(V, nk);
    double *ref = malloc(sizeof *ref * ((size_t)nq + 1));
    float *O = malloc(sizeof *O * ((size_t)nq + 1));
    tc_plan_opts o;
    tc_plan *p = NULL;
    tc_error err;
    opts_for(&o, TC_OP_ATTENTION, d);
    if (tc_plan_create_tcf(f, &o, &p, &err))
        tap_bail(err.msg);
    tc_plan_info info;
    tc_plan_get_info(p, &info);
    ok(info.op == TC_OP_ATTENTION && info.device == TC_DEVICE_CPU &&
           fabs(info.scale - 1 / sqrt(d)) < 1e-15,
       "attention: a CPU plan from the .tcf.h5, scale 1/sqrt(d) in the info");
    if (tc_attention_ref_f64(orig, q, k, v, d, 1 / sqrt(d), ref, 1, &err))
        tap_bail(err.msg);
    tc_status st = tc_plan_execute_attention_host(p, Q, K, V, O, &err);
    ok(st == TC_OK && tap_same_f32(O, ref, nq),
       "attention: O in the file's original order, bitwise the reference on the original");
    tc_compare c;
    int64_t r, col;
    int pass = 0;
    st = tc_plan_verify_attention(p, Q, K, V, O, &c, &r, &col, &pass, &err);
    ok(st == TC_OK && pass && c.nonfinite == 0,
       "attention: verify passes (rel_fro %.1e <= %.0e)", c.rel_fro, info.tolerance);
    wrong_element(p, Q, K, V, O, 3 * d + 2, 3, 2, "attention");
    int which = 7;
    ok(tc_plan_check_attention(p, Q, K, V, &which, &err) == TC_OK && which == -1,
       "attention: operands within fp16 pass the check");
    V[5] = 1e6f;
    st = tc_plan_check_attention(p, Q, K, V, &which, &err);
    ok(st == TC_ERR_INVALID && which == 2 && strncmp(err.msg, "V[0][5] = 1e+06", 15) == 0,
       "attention: V beyond fp16 named (%s)", err.msg);
    char buf[1100];
    is_str(run_str(p, "device", buf, sizeof buf), "cpu", "attention: the report's run.device");
    is_str(run_str(p, "device_why", buf, sizeof buf), "",
           "attention: run.device_why empty: the CPU as asked");
    is_int(tc_plan_bench_attention(p, Q, K, V, &err), TC_ERR_ARG,
           "attention: the bench refuses a CPU plan: nothing to time");
    /* SpMM's calls refuse it */
    is_int(tc_plan_execute_host(p, Q, d, O, d, &err), TC_ERR_ARG,
           "tc_plan_execute_host refuses an attention plan");
    ok(tc_plan_verify(p, Q, d, O, d, &c, &pass, &err) == TC_ERR_ARG,
       "tc_plan_verify refuses an attention plan");
    ok(tc_plan_bench(p, Q, d, 0, 1, 0, 0, O, d, NULL, &err) == TC_ERR_ARG,
       "tc_plan_bench refuses an attention plan");
    is_int(tc_plan_sddmm(p, Q, K, O, NULL, &err), TC_ERR_ARG,
           "tc_plan_sddmm refuses an attention plan");
    tc_plan_free(p);
    free(Q);
    free(K);
    free(V);
    free(q);
    free(k);
    free(v);
    free(ref);
    free(O);
}

static void sddmm(const tc_tcf *f, const tc_csr *orig)
{
    const int32_t d = 5;
    const int64_t nq = (int64_t)orig->rows * d, nk = (int64_t)orig->cols * d;
    float *Q = tap_random_floats(nq), *K = tap_random_floats(nk);
    double *q = tap_widen(Q, nq), *k = tap_widen(K, nk);
    double *ref = malloc(sizeof *ref * ((size_t)orig->nnz + 1));
    float *S = malloc(sizeof *S * ((size_t)orig->nnz + 1));
    tc_plan_opts o;
    tc_plan *p = NULL;
    tc_error err;
    opts_for(&o, TC_OP_SDDMM, d);
    o.scale = 0.25;
    if (tc_plan_create_tcf(f, &o, &p, &err))
        tap_bail(err.msg);
    tc_plan_info info;
    tc_plan_get_info(p, &info);
    ok(info.op == TC_OP_SDDMM && info.scale == 0.25, "sddmm: the info's scale is the option's");
    const tc_csr *mask = NULL;
    tc_status st = tc_plan_attention_mask(p, &mask, &err);
    ok(st == TC_OK && tap_same_pattern(mask, orig),
       "sddmm: the mask is the file's matrix in its original order");
    if (tc_sddmm_ref_f64(orig, q, k, d, 0.25, ref, 1, &err))
        tap_bail(err.msg);
    /* V is not read for an SDDMM plan */
    st = tc_plan_execute_attention_host(p, Q, K, NULL, S, &err);
    ok(st == TC_OK && tap_same_f32(S, ref, orig->nnz),
       "sddmm: S in the original CSR order, bitwise the reference on the original");
    tc_compare c;
    int64_t r, col;
    int pass = 0;
    st = tc_plan_verify_attention(p, Q, K, NULL, S, &c, &r, &col, &pass, &err);
    ok(st == TC_OK && pass, "sddmm: verify passes");
    const int64_t at = orig->nnz / 2;
    int32_t row = 0;
    while (orig->rowptr[row + 1] <= at)
        row++;
    wrong_element(p, Q, K, NULL, S, at, row, orig->colidx[at], "sddmm");
    int which;
    Q[7] = NAN;
    st = tc_plan_check_attention(p, Q, K, NULL, &which, &err);
    ok(st == TC_ERR_INVALID && which == 0, "sddmm: a NaN in Q named (%s)", err.msg);
    is_int(tc_plan_attention(p, Q, K, K, S, NULL, &err), TC_ERR_ARG,
           "tc_plan_attention refuses an SDDMM plan");
    tc_plan_free(p);
    free(Q);
    free(K);
    free(q);
    free(k);
    free(ref);
    free(S);
}

static void refused(tc_status st, const tc_error *err, const char *name)
{
    ok(st == TC_ERR_ARG && strstr(err->msg, name) && strstr(err->msg, "not an SpMM plan"),
       "%s refuses an SpMM plan: %s", name, err->msg);
}

/* Each call above refuses an SpMM plan, naming itself, its outputs
   emptied. */
static void spmm_refused(const tc_csr *a)
{
    tc_plan_opts o;
    tc_plan *p = NULL;
    tc_error err;
    opts_for(&o, TC_OP_SPMM, 4);
    if (tc_plan_create(a, &o, &p, &err))
        tap_bail(err.msg);
    float *x = calloc((size_t)(a->rows + a->cols) * 4 + (size_t)a->nnz + 1, sizeof *x);
    tc_compare c;
    int64_t r = 7, col = 7;
    int pass = 1, which = 7;
    const tc_csr *mask = a;
    refused(tc_plan_execute_attention_host(p, x, x, x, x, &err), &err,
            "tc_plan_execute_attention_host");
    refused(tc_plan_attention_mask(p, &mask, &err), &err, "tc_plan_attention_mask");
    refused(tc_plan_check_attention(p, x, x, x, &which, &err), &err, "tc_plan_check_attention");
    refused(tc_plan_verify_attention(p, x, x, x, x, &c, &r, &col, &pass, &err), &err,
            "tc_plan_verify_attention");
    refused(tc_plan_bench_attention(p, x, x, x, &err), &err, "tc_plan_bench_attention");
    ok(mask == NULL && which == -1 && pass == 0 && r == -1 && col == -1,
       "... leaving their outputs empty");
    tc_plan_free(p);
    free(x);
}

int main(void)
{
    tc_csr *orig = tap_random_matrix(203, 171, 4, 17, 40, 0);
    if (!orig)
        tap_bail("matrix");
    tc_tcf *f = permuted_file(orig);
    ok(f->row_perm && f->col_perm && f->nformats == 1,
       "the .tcf.h5 holds its permutations and its bsb format");
    attention(f, orig);
    sddmm(f, orig);
    spmm_refused(orig);
    tc_tcf_free(f);
    tc_csr_free(orig);
    return done_testing();
}
