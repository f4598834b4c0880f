/* t_attn_plan_gpu: SDDMM and attention plans on the GPU, the way a
   program calls them: Q, K, V and the output in the caller's own device
   buffers, the work queued on the caller's own stream (a second tc_gpu's,
   not the plan's). Fused (bsb) and unfused (csr) paths, a mask stored with
   its rows and columns permuted and one that is not: each output, in the
   caller's order, passes tc_attn_plan_verify, and agrees with what the
   host-array execute gives. Operands beyond fp16 are refused on the device by
   the fused path, named. The bench fills the info's times; auto keeps the
   faster path at a timing effort, the unfused one for operands beyond
   fp16. The same through the public calls alone (public_api): a plan
   from a permuted .tcf.h5 on device pointers, verified, and its bench.
   Skipped where there is no CUDA device. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "kernels.h"
#include "attention.h"
#include "tcsparse_plan.h"
#include "tap.h"
#include "testmat.h"
#include "gputest.h"

/* The caller's side: its device, stream and buffers. */
typedef struct caller {
    tc_gpu *g;
    float *Q, *K, *V, *out;
} caller;

static float *put(tc_gpu *g, const float *x, int64_t n)
{
    void *dev;
    tc_error err;
    if (tc_gpu_alloc(g, 4 * (n ? n : 1), &dev, &err) || (n && tc_gpu_upload(g, dev, x, 4 * n, &err)))
        tap_bail(err.msg);
    return dev;
}

/* One plan (op, path) on orig stored as permuted by rp, cp. */
static void one(caller *c, const tc_csr *orig, const tc_csr *stored, const tc_perm *rp,
                const tc_perm *cp, tc_op op, const char *format, const char *what)
{
    const int32_t d = 48;
    const int att = op == TC_OP_ATTENTION;
    const int64_t nq = (int64_t)orig->rows * d, nk = (int64_t)orig->cols * d;
    const int64_t nout = att ? nq : orig->nnz;
    float *Q = tap_random_floats(nq), *K = tap_random_floats(nk), *V = tap_random_floats(nk);
    float *out = malloc(sizeof *out * ((size_t)nout + 1)), *host = malloc(sizeof *host * ((size_t)nout + 1));
    tc_error err;
    c->Q = put(c->g, Q, nq);
    c->K = put(c->g, K, nk);
    c->V = put(c->g, V, nk);
    void *dev;
    if (tc_gpu_alloc(c->g, 4 * (nout ? nout : 1), &dev, &err) ||
        tc_gpu_poison(c->g, dev, 4 * nout, &err))
        tap_bail(err.msg);
    c->out = dev;

    tc_plan_opts o;
    memset(&o, 0, sizeof o);
    o.op = op;
    o.n = d;
    o.device = TC_DEVICE_GPU;
    o.effort = TC_EFFORT_DEFAULT;
    o.format = format;
    o.calls = 100;
    o.warmup = 2;
    o.iters = 5;
    tc_attn_plan *p = NULL;
    if (tc_attn_plan_create(stored, NULL, rp, cp, &o, &p, &err))
        tap_bail(err.msg);
    void *stream = tc_gpu_stream(c->g);
    tc_status st = att ? tc_attn_plan_attention(p, c->Q, c->K, c->V, c->out, stream, &err)
                       : tc_attn_plan_sddmm(p, c->Q, c->K, c->out, stream, &err);
    /* the caller's download runs on its stream, after the plan's work */
    if (st == TC_OK)
        st = tc_gpu_download(c->g, out, c->out, 4 * nout, &err);
    ok(st == TC_OK, "%s: ran on the caller's stream with device pointers", what);
    if (st != TC_OK)
        diag("  %s", err.msg);
    tc_compare cmp;
    int64_t row, col;
    tc_plan_info info;
    tc_attn_plan_info(p, &info);
    st = tc_attn_plan_verify(p, Q, K, att ? V : NULL, out, &cmp, &row, &col, &err);
    ok(st == TC_OK && cmp.nonfinite == 0 && cmp.rel_fro <= info.tolerance,
       "%s: in the caller's order, passes the float64 check (%s, rel_fro %.2e <= %.0e)", what,
       info.precision, cmp.rel_fro, info.tolerance);
    st = tc_attn_plan_execute_host(p, Q, K, att ? V : NULL, host, &err);
    double *wide = malloc(sizeof *wide * ((size_t)nout + 1));
    for (int64_t i = 0; i < nout; i++)
        wide[i] = out[i];
    if (st == TC_OK)
        tc_compare_f32(host, wide, 1, (int32_t)nout, nout, &cmp);
    ok(st == TC_OK && cmp.nonfinite == 0 && cmp.rel_fro <= 1e-6,
       "%s: host arrays give the same output", what);
    free(wide);
    tc_attn_plan_free(p);
    tc_gpu_free(c->g, c->Q);
    tc_gpu_free(c->g, c->K);
    tc_gpu_free(c->g, c->V);
    tc_gpu_free(c->g, c->out);
    free(Q);
    free(K);
    free(V);
    free(out);
    free(host);
}

/* Beyond fp16 on the device: the fused plan refuses, naming the element. */
static void device_range(caller *c, const tc_csr *a)
{
    const int32_t d = 8;
    float *Q = tap_random_floats((int64_t)a->rows * d), *K = tap_random_floats((int64_t)a->cols * d);
    K[2 * d + 3] = 1e6f;
    tc_error err;
    c->Q = put(c->g, Q, (int64_t)a->rows * d);
    c->K = put(c->g, K, (int64_t)a->cols * d);
    void *dev;
    if (tc_gpu_alloc(c->g, 4 * (a->nnz ? a->nnz : 1), &dev, &err))
        tap_bail(err.msg);
    c->out = dev;
    tc_plan_opts o;
    memset(&o, 0, sizeof o);
    o.op = TC_OP_SDDMM;
    o.n = d;
    o.device = TC_DEVICE_GPU;
    o.format = "bsb";
    tc_attn_plan *p = NULL;
    if (tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err))
        tap_bail(err.msg);
    const tc_status st = tc_attn_plan_sddmm(p, c->Q, c->K, c->out, tc_gpu_stream(c->g), &err);
    ok(st == TC_ERR_INVALID && strncmp(err.msg, "K[2][3] = 1e+06: ", 17) == 0,
       "device operands beyond fp16 refused, named: %s", err.msg);
    tc_attn_plan_free(p);
    tc_gpu_free(c->g, c->Q);
    tc_gpu_free(c->g, c->K);
    tc_gpu_free(c->g, c->out);
    free(Q);
    free(K);
}

static void bench(const tc_csr *a)
{
    const int32_t d = 32;
    float *Q = tap_random_floats((int64_t)a->rows * d), *K = tap_random_floats((int64_t)a->cols * d);
    float *V = tap_random_floats((int64_t)a->cols * d);
    tc_plan_opts o;
    memset(&o, 0, sizeof o);
    o.op = TC_OP_ATTENTION;
    o.n = d;
    o.device = TC_DEVICE_GPU;
    o.warmup = 2;
    o.iters = 5;
    tc_attn_plan *p = NULL;
    tc_error err;
    if (tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err))
        tap_bail(err.msg);
    const tc_status st = tc_attn_plan_bench(p, Q, K, V, &err);
    tc_plan_info info;
    tc_attn_plan_info(p, &info);
    ok(st == TC_OK && info.ms > 0 && info.cusparse_ms > 0 && strcmp(info.format, "bsb") == 0,
       "bench: the fused path %.4f ms, cuSPARSE's %.4f ms", info.ms, info.cusparse_ms);
    tc_attn_plan_free(p);
    free(Q);
    free(K);
    free(V);
}

/* format auto: timed at effort MEASURE, the faster path kept; operands
   beyond fp16 announced by b_max_abs take the unfused path. */
static void auto_path(const tc_csr *a)
{
    tc_plan_opts o;
    memset(&o, 0, sizeof o);
    o.op = TC_OP_ATTENTION;
    o.n = 64;
    o.device = TC_DEVICE_GPU;
    o.effort = TC_EFFORT_MEASURE;
    o.warmup = 2;
    o.iters = 5;
    tc_attn_plan *p = NULL;
    tc_error err;
    tc_plan_info info;
    if (tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err))
        tap_bail(err.msg);
    tc_attn_plan_info(p, &info);
    ok(info.ms > 0 && info.cusparse_ms > 0 && info.ms <= info.cusparse_ms &&
           strcmp(info.format, info.ms < info.cusparse_ms ? "bsb" : "csr") == 0,
       "auto at MEASURE: %s kept, %.4f ms against cuSPARSE's %.4f ms", info.format, info.ms,
       info.cusparse_ms);
    tc_attn_plan_free(p);
    o.effort = TC_EFFORT_ESTIMATE;
    o.b_max_abs = 1e6;
    if (tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err))
        tap_bail(err.msg);
    tc_attn_plan_info(p, &info);
    ok(strcmp(info.format, "csr") == 0 && strcmp(info.precision, "fp32") == 0 && info.ms == -1,
       "auto with operands up to 1e6: the unfused fp32 path, untimed at ESTIMATE");
    tc_attn_plan_free(p);
}

static double report_num(const tc_plan *p, const char *section, const char *key)
{
    tc_report *r = tc_report_new();
    double v = NAN;
    tc_error err;
    if (!r || tc_plan_report(p, r, &err))
        tap_bail("tc_plan_report");
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        if (!e->is_str && strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0)
            v = e->num;
    }
    tc_report_free(r);
    return v;
}

/* What a program does with the installed header alone (tcsparse_plan.h;
   kernels.h here only gives the caller its device buffers and stream):
   a plan from a .tcf.h5 stored permuted with its bsb format, run on
   device pointers on the caller's stream, the output in the caller's
   order passing tc_plan_verify_attention and agreeing with
   tc_plan_execute_attention_host; the bench's figures in the info and the
   report's "bench" section. */
static void public_api(caller *c, const tc_csr *orig, const tc_csr *stored, const tc_perm *rp,
                       const tc_perm *cp, tc_op op)
{
    const char *what = op == TC_OP_ATTENTION ? "public API, attention" : "public API, sddmm";
    const int32_t d = 32;
    const int att = op == TC_OP_ATTENTION;
    const int64_t nq = (int64_t)orig->rows * d, nk = (int64_t)orig->cols * d;
    const int64_t nout = att ? nq : orig->nnz;
    tc_error err;
    tc_tcf *f = tc_tcf_new();
    tc_fmt *bsb = NULL;
    const tc_params none = { 0 };
    if (tc_csr_copy(stored, &f->matrix, &err) ||
        tc_perm_from_array(&f->row_perm, rp->n, rp->new2old, TC_PERM_NEW2OLD, "row", &err) ||
        tc_perm_from_array(&f->col_perm, cp->n, cp->new2old, TC_PERM_NEW2OLD, "col", &err) ||
        tc_fmt_build(tc_format_find("bsb"), f->matrix, &none, &bsb, &err) ||
        tc_tcf_add_format(f, bsb, &err))
        tap_bail(err.msg);
    float *Q = tap_random_floats(nq), *K = tap_random_floats(nk), *V = tap_random_floats(nk);
    float *out = malloc(sizeof *out * ((size_t)nout + 1));
    float *host = malloc(sizeof *host * ((size_t)nout + 1));
    c->Q = put(c->g, Q, nq);
    c->K = put(c->g, K, nk);
    c->V = put(c->g, V, nk);
    void *dev;
    if (tc_gpu_alloc(c->g, 4 * (nout ? nout : 1), &dev, &err) ||
        tc_gpu_poison(c->g, dev, 4 * nout, &err))
        tap_bail(err.msg);
    c->out = dev;
    tc_plan_opts o;
    tc_plan_opts_init(&o);
    o.op = op;
    o.n = d;
    o.device = TC_DEVICE_GPU;
    o.format = "bsb";
    o.warmup = 2;
    o.iters = 5;
    tc_plan *p = NULL;
    if (tc_plan_create_tcf(f, &o, &p, &err))
        tap_bail(err.msg);
    void *stream = tc_gpu_stream(c->g);
    tc_status st = att ? tc_plan_attention(p, c->Q, c->K, c->V, c->out, stream, &err)
                       : tc_plan_sddmm(p, c->Q, c->K, c->out, stream, &err);
    if (st == TC_OK)
        st = tc_gpu_download(c->g, out, c->out, 4 * nout, &err);
    ok(st == TC_OK, "%s: ran on the caller's stream with device pointers", what);
    if (st != TC_OK)
        diag("  %s", err.msg);
    tc_compare cmp;
    int64_t row, col;
    int pass = 0;
    tc_plan_info info;
    tc_plan_get_info(p, &info);
    st = tc_plan_verify_attention(p, Q, K, att ? V : NULL, out, &cmp, &row, &col, &pass, &err);
    ok(st == TC_OK && pass && strcmp(info.format, "bsb") == 0,
       "%s: the fused path's output in the caller's order passes the float64 check "
       "(rel_fro %.2e <= %.0e)", what, cmp.rel_fro, info.tolerance);
    st = tc_plan_execute_attention_host(p, Q, K, att ? V : NULL, host, &err);
    double *wide = malloc(sizeof *wide * ((size_t)nout + 1));
    for (int64_t i = 0; i < nout; i++)
        wide[i] = out[i];
    if (st == TC_OK)
        tc_compare_f32(host, wide, 1, (int32_t)nout, nout, &cmp);
    ok(st == TC_OK && cmp.nonfinite == 0 && cmp.rel_fro <= 1e-6,
       "%s: host arrays give the same output", what);
    free(wide);
    st = tc_plan_bench_attention(p, Q, K, att ? V : NULL, &err);
    tc_plan_get_info(p, &info);
    ok(st == TC_OK && info.ms > 0 && info.cusparse_ms > 0 &&
           report_num(p, "bench", "fused_ms") == info.ms &&
           report_num(p, "bench", "unfused_ms") == info.cusparse_ms,
       "%s: the bench's medians in the info and the report's bench section (%.4f, %.4f ms)",
       what, info.ms, info.cusparse_ms);
    tc_plan_free(p);
    tc_tcf_free(f);
    tc_gpu_free(c->g, c->Q);
    tc_gpu_free(c->g, c->K);
    tc_gpu_free(c->g, c->V);
    tc_gpu_free(c->g, c->out);
    free(Q);
    free(K);
    free(V);
    free(out);
    free(host);
}

int main(void)
{
    tap_need_gpu();
    tc_error err;
    caller c;
    memset(&c, 0, sizeof c);
    if (tc_gpu_open(0, &c.g, &err))
        tap_bail(err.msg);
    tc_csr *a = tap_random_matrix(301, 211, 6, 17, 40, 1);
    tc_perm *rp = tap_shuffled(a->rows), *cp = tap_shuffled(a->cols);
    tc_csr *stored = NULL;
    if (tc_csr_permute(a, rp, cp, &stored, &err))
        tap_bail(err.msg);
    static const tc_op ops[2] = { TC_OP_ATTENTION, TC_OP_SDDMM };
    static const char *const formats[2] = { "bsb", "csr" };
    for (int i = 0; i < 2; i++)
        for (int f = 0; f < 2; f++) {
            char what[128];
            snprintf(what, sizeof what, "%s %s, permuted", i ? "sddmm" : "attention",
                     formats[f]);
            one(&c, a, stored, rp, cp, ops[i], formats[f], what);
            snprintf(what, sizeof what, "%s %s, given order", i ? "sddmm" : "attention",
                     formats[f]);
            one(&c, a, a, NULL, NULL, ops[i], formats[f], what);
        }
    public_api(&c, a, stored, rp, cp, TC_OP_ATTENTION);
    public_api(&c, a, stored, rp, cp, TC_OP_SDDMM);
    device_range(&c, a);
    bench(a);
    auto_path(a);
    tc_csr_free(stored);
    tc_csr_free(a);
    tc_perm_free(rp);
    tc_perm_free(cp);
    tc_gpu_close(c.g);
    return done_testing();
}
