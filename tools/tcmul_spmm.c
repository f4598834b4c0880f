/*
 * tcmul_spmm.c: --op spmm, options and printing over the plan API
 * (tcsparse_plan.h): the plan chooses where and how, tc_plan_bench and
 * tc_plan_verify run tcmul's protocol, and this file reads B, writes C and
 * prints the report. B and C are in the user's order throughout: a plan
 * of a reordered .tcf.h5 applies and undoes the permutation itself.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tcmul.h"

/* B (cols x n, the original order) from -B or drawn with --seed. */
static tc_status load_b(const options *o, const tc_csr *a, int32_t *ncols, float **out,
                        tc_error *err)
{
    int32_t rows = a->cols, n = o->cols;
    double *b = NULL;
    tc_status st = TC_OK;
    if (o->b.spec) {
        st = tcmul_read_dense(&o->b, "/B", &rows, &n, &b, err);
        if (!st && rows != a->cols)
            st = tc_error_set(err, TC_ERR_INVALID, "%s: B has %d rows, but A (%s) has %d columns",
                              o->b.spec, rows, o->input, a->cols);
        if (!st && n < 1)
            st = tc_error_set(err, TC_ERR_INVALID, "%s: B has no columns", o->b.spec);
    } else if ((b = tc_malloc_array((int64_t)rows * n, sizeof *b, err))) {
        tc_random_fill(b, (int64_t)rows * n, o->seed, -1.0, 1.0);
    } else {
        st = TC_ERR_NOMEM;
    }
    float *f = st ? NULL : tc_malloc_array((int64_t)rows * n, sizeof *f, err);
    if (!st && !f)
        st = TC_ERR_NOMEM;
    for (int64_t i = 0; !st && i < (int64_t)rows * n; i++)
        f[i] = (float)b[i];
    free(b);
    *ncols = n;
    *out = f;
    return st;
}

/* The largest |B|: the plan then need not measure it on the device, and
   knows whether B holds a NaN or Inf (NaN or INFINITY here), which some
   variants spread (0 for an all-zero B: unknown). */
static double max_abs(const float *B, int64_t len)
{
    double m = 0;
    for (int64_t i = 0; i < len; i++) {
        if (isnan(B[i]))
            return NAN;
        if (fabs(B[i]) > m)
            m = fabs(B[i]);
    }
    return m;
}

static tc_plan_opts plan_opts(const options *o, int32_t n, double b_max_abs)
{
    tc_plan_opts po;
    tc_plan_opts_init(&po);
    po.n = n;
    po.device = o->device == DEVICE_CPU ? TC_DEVICE_CPU
                : o->device == DEVICE_GPU ? TC_DEVICE_GPU
                                          : TC_DEVICE_AUTO;
    po.gpu = o->gpu;
    po.effort = o->effort;
    po.format = o->format;
    po.variant = o->variant;
    po.order = o->order;
    po.accuracy = o->accuracy;
    /* --bench multiplies warmup + iters times, and more for the references */
    po.calls = o->calls ? o->calls : o->bench ? 1 + o->warmup + o->iters : 1;
    po.warmup = o->warmup;
    po.iters = o->iters;
    po.plan_file = o->plan_file;
    po.cache_dir = o->no_plan_cache ? "" : NULL;
    po.b_max_abs = b_max_abs;
    return po;
}

/* A string of the plan's report section ("" when absent). */
static const char *plan_str(const tc_report *rep, const char *key)
{
    for (int k = 0; k < tc_report_count(rep); k++) {
        const tc_report_entry *e = tc_report_at(rep, k);
        if (e->is_str && strcmp(e->section, "plan") == 0 && strcmp(e->key, key) == 0)
            return e->str;
    }
    return "";
}

/* On stderr: the CPU chosen by auto, with the reason, as a warning (its
   results and timings are not the GPU's); with -v, what the plan chose
   and why, and a stale stored plan. */
static void say_plan(const options *o, const tc_plan *p)
{
    tc_plan_info i;
    tc_plan_get_info(p, &i);
    tc_report *r = tc_report_new();
    if (!r || tc_plan_report(p, r, NULL)) {
        tc_report_free(r);
        return;
    }
    if (o->device == DEVICE_AUTO && i.device == TC_DEVICE_CPU)
        tool_warn("running on the CPU: %s", plan_str(r, "device_why"));
    tool_info("plan: %s %s in order %s (%s): %s", i.format, i.variant, i.order, i.precision,
              plan_str(r, "why"));
    if (i.stale[0])
        tool_info("plan: a stored plan was stale: %s", i.stale);
    tc_report_free(r);
}

static tc_status report_input(tc_report *rep, const options *o, const tool_matrix *in,
                              int32_t n)
{
    char b[1024];
    if (o->b.spec)
        snprintf(b, sizeof b, "%s", o->b.spec);
    else
        snprintf(b, sizeof b, "random, seed %llu", (unsigned long long)o->seed);
    tc_status st;
    (void)((st = tc_report_str(rep, "input", "matrix", o->input, NULL)) ||
           (st = tc_report_int(rep, "input", "rows", in->a->rows, NULL)) ||
           (st = tc_report_int(rep, "input", "cols", in->a->cols, NULL)) ||
           (st = tc_report_int(rep, "input", "nnz", in->a->nnz, NULL)) ||
           (st = tc_report_int(rep, "input", "n", n, "columns of B and C")) ||
           (st = tc_report_str(rep, "input", "B", b, NULL)) ||
           (st = tc_report_str(rep, "input", "reordered",
                               in->tcf && (in->tcf->row_perm || in->tcf->col_perm) ? "yes" : "no",
                               "C is given in the original row order")));
    return st;
}

static tc_status report_run(tc_report *rep, const tc_plan_info *i)
{
    const tc_kernel *k = i->device == TC_DEVICE_GPU ? tc_kernel_find(i->format) : NULL;
    tc_status st;
    (void)((st = tc_report_str(rep, "run", "device", i->device_name, NULL)) ||
           (st = tc_report_str(rep, "run", "format", i->format, NULL)) ||
           (st = tc_report_str(rep, "run", "kernel",
                               k ? k->description : "threaded CSR SpMM (fp32)", NULL)) ||
           (st = tc_report_str(rep, "run", "precision", i->precision, NULL)) ||
           (st = tc_report_str(rep, "run", "variant", i->variant, NULL)));
    if (!st && i->device == TC_DEVICE_CPU)
        st = tc_report_int(rep, "run", "threads", tc_default_threads(), NULL);
    return st;
}

/* Appends the entries of src to dst (the bench's sections after verify's). */
static tc_status append(tc_report *dst, const tc_report *src)
{
    tc_status st = TC_OK;
    for (int k = 0; k < tc_report_count(src) && !st; k++) {
        const tc_report_entry *e = tc_report_at(src, k);
        st = e->is_str   ? tc_report_str(dst, e->section, e->key, e->str, e->help)
             : e->is_int ? tc_report_int(dst, e->section, e->key, e->ival, e->help)
                         : tc_report_num(dst, e->section, e->key, e->num, e->help);
    }
    return st;
}

static tc_status print_report(const options *o, const tool_matrix *in, const tc_plan *p,
                              const tc_report *bench, const tc_compare *c, int pass,
                              tc_error *err)
{
    tc_plan_info i;
    tc_plan_get_info(p, &i);
    tc_report *rep = tc_report_new();
    if (!rep)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_status st = report_input(rep, o, in, i.n);
    if (!st)
        st = report_run(rep, &i);
    if (!st)
        st = tc_plan_report(p, rep, err);
    const int64_t at = c->max_at;
    if (!st && o->verify)
        st = tcmul_report_verify(rep, c, i.tolerance, pass, at < 0 ? -1 : at / i.n,
                                 at < 0 ? -1 : at % i.n);
    if (!st)
        st = append(rep, bench);
    if (!st)
        tool_print_reports(stdout, &o->input, &rep, 1, o->style);
    tc_report_free(rep);
    return st == TC_ERR_NOMEM ? tc_error_set(err, st, "out of memory") : st;
}

/* Plans, multiplies (or benches), verifies, writes and reports. */
static tc_status run(const options *o, const tool_matrix *in, const float *B, int32_t n,
                     float *C, tc_error *err)
{
    tc_plan_opts po = plan_opts(o, n, max_abs(B, (int64_t)in->a->cols * n));
    tc_plan *p = NULL;
    tc_report *bench = tc_report_new();
    tc_compare cmp;
    memset(&cmp, 0, sizeof cmp);
    cmp.max_at = -1;
    int pass = 1;
    tc_status st = bench ? TC_OK : tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    if (!st) {
        /* a patient plan of a large matrix runs reorderings and times
           dozens of candidates: a bar on a terminal */
        po.progress = tool_progress("planning");
        st = in->tcf ? tc_plan_create_tcf(in->tcf, &po, &p, err)
                     : tc_plan_create(in->a, &po, &p, err);
        tool_progress_end();
    }
    if (!st)
        say_plan(o, p);
    if (!st && o->bench)
        st = tc_plan_bench(p, B, n, o->warmup, o->iters, o->dense ? TC_BENCH_DENSE : 0,
                           o->bandwidth, C, n, bench, err);
    else if (!st)
        st = tc_plan_execute_host(p, B, n, C, n, err);
    if (!st && o->verify)
        st = tc_plan_verify(p, B, n, C, n, &cmp, &pass, err);
    if (!st && o->output && pass)
        st = tcmul_write_floats(o, C, in->a->rows, n, in->labels, err);
    if (!st && (o->verify || o->bench))
        st = print_report(o, in, p, bench, &cmp, pass, err);
    if (!st && !pass) {
        tc_plan_info i;
        tc_plan_get_info(p, &i);
        st = tcmul_verify_failed(&cmp, i.precision, err);
    }
    tc_report_free(bench);
    tc_plan_free(p);
    return st;
}

int tcmul_spmm(const options *o)
{
    tc_error err;
    tool_matrix in;
    /* a .tcf.h5's stored formats serve the GPU's candidates as built */
    if (tool_load_matrix(o->input, o->device != DEVICE_CPU, &in, &err))
        tool_die(&err);
    float *B = NULL, *C = NULL;
    int32_t n = 0;
    tc_status st = load_b(o, in.a, &n, &B, &err);
    if (!st && !(C = tc_malloc_array((int64_t)in.a->rows * n, sizeof *C, &err)))
        st = TC_ERR_NOMEM;
    if (!st)
        st = run(o, &in, B, n, C, &err);
    tool_matrix_free(&in);
    free(B);
    free(C);
    if (st)
        tool_die(&err);
    return 0;
}
