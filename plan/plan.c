/*
 * plan.c: creating, reading and freeing plans (tcsparse_plan.h). The steps
 * are in their own files: where to run (device.c), the CPU and GPU planners
 * (cpu.c, gpu.c), plan files and the cache (planfile.c), fp16 safety
 * (precision.c), executing (execute.c), the report (plan_report.c) and
 * tcmul's run protocol (bench.c). SDDMM and attention plans are
 * plan/attention.c's; a tc_plan of those ops forwards to it (here, and in
 * plan_attention.c for the calls that only they have).
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan_internal.h"

void tc_plan_opts_init(tc_plan_opts *o)
{
    memset(o, 0, sizeof *o);
    o->op = TC_OP_SPMM;
    o->device = TC_DEVICE_AUTO;
    o->effort = TC_EFFORT_DEFAULT;
    o->calls = 1;
    o->warmup = 10;
    o->iters = 100;
}

double tc_plan_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

const char *tc_plan_effort_name(tc_effort e)
{
    return e == TC_EFFORT_ESTIMATE     ? "estimate"
           : e == TC_EFFORT_PATIENT    ? "patient"
           : e == TC_EFFORT_EXHAUSTIVE ? "exhaustive"
                                       : "measure";
}

/* Copies an option string into the plan's own buffer (the caller's may go
   away); NULL and "auto" stay NULL. */
static tc_status keep_opt(const char *s, char *buf, size_t len, const char **dst,
                          const char *what, tc_error *err)
{
    if (!s || strcmp(s, "auto") == 0) {
        *dst = NULL;
        return TC_OK;
    }
    if (strlen(s) >= len)
        return tc_error_set(err, TC_ERR_ARG, "plan: %s '%s' is too long", what, s);
    strcpy(buf, s);
    *dst = buf;
    return TC_OK;
}

/* The options checked (names that exist, CPU limits) and kept. */
static tc_status check_opts(tc_plan *p, const tc_plan_opts *o, tc_error *err)
{
    p->o = *o;
    tc_status st;
    if ((st = keep_opt(o->format, p->format_opt, sizeof p->format_opt, &p->o.format, "format",
                       err)) ||
        (st = keep_opt(o->variant, p->variant_opt, sizeof p->variant_opt, &p->o.variant,
                       "variant", err)) ||
        (st = keep_opt(o->order, p->order_opt, sizeof p->order_opt, &p->o.order, "order", err)) ||
        (st = keep_opt(o->accuracy, p->accuracy_opt, sizeof p->accuracy_opt, &p->o.accuracy,
                       "accuracy", err)))
        return st;
    p->o.plan_file = NULL;      /* info.plan_file keeps it */
    p->o.cache_dir = NULL;
    if (o->n < 1)
        return tc_error_set(err, TC_ERR_ARG, "plan: n must be at least 1, not %d", o->n);
    if (p->o.format && !tc_format_find(p->o.format))
        return tc_error_set(err, TC_ERR_ARG, "plan: no format named '%s'", p->o.format);
    if (p->o.order && strcmp(p->o.order, "given") != 0 && !tc_reorder_find(p->o.order))
        return tc_error_set(err, TC_ERR_ARG, "plan: no reordering named '%s'", p->o.order);
    if (p->o.accuracy && tc_tolerance(p->o.accuracy) == 0)
        return tc_error_set(err, TC_ERR_ARG, "plan: accuracy '%s': expected fp32, tf32 or fp16",
                            p->o.accuracy);
    if (o->op == TC_OP_SPMM && o->device == TC_DEVICE_CPU &&
        ((p->o.format && !tc_format_is_canonical(tc_format_find(p->o.format))) || p->o.variant))
        return tc_error_set(err, TC_ERR_ARG, "the CPU runs the csr format only, with no variants");
    if (o->op == TC_OP_SPMM && p->o.variant && !p->o.format)
        return tc_error_set(err, TC_ERR_ARG, "plan: variant '%s' names no format's: give the "
                                             "format too", p->o.variant);
    if (o->warmup < 0 || o->iters < 1)
        return tc_error_set(err, TC_ERR_ARG, "plan: warmup %d, iters %d (need >= 0 and >= 1)",
                            o->warmup, o->iters);
    if (p->o.effort == TC_EFFORT_DEFAULT)
        p->o.effort = o->calls <= 1 && !o->plan_file ? TC_EFFORT_ESTIMATE : TC_EFFORT_MEASURE;
    if (o->calls < 1)
        p->o.calls = 1;
    return TC_OK;
}

static void fill_info_head(tc_plan *p, const tc_plan_opts *o)
{
    tc_plan_info *i = &p->info;
    i->op = o->op;
    i->n = o->n;
    i->ms = i->host_ms = i->cusparse_ms = -1;
    snprintf(i->order, sizeof i->order, "given");
    if (o->plan_file)
        snprintf(i->plan_file, sizeof i->plan_file, "%s", o->plan_file);
}

/* Products after which planning has paid back against cuSPARSE. */
static double payback(const tc_plan_info *i)
{
    if (i->plan_s <= 0 || i->reused)
        return 0;
    if (i->ms < 0 || i->cusparse_ms < 0 || i->ms >= i->cusparse_ms)
        return INFINITY;
    return i->plan_s * 1000.0 / (i->cusparse_ms - i->ms);
}

/* p->why: what was chosen and why. */
static void explain(tc_plan *p, const char *device_why)
{
    const tc_plan_info *i = &p->info;
    int timed = 0;
    for (int k = 0; k < p->ncand; k++)
        timed += p->cand[k].pub.ms >= 0;
    char what[256];
    if (i->reused)
        snprintf(what, sizeof what, "reused the stored plan %.200s: nothing tuned", i->plan_file);
    else if (p->o.format && p->o.order && i->device == TC_DEVICE_GPU && timed > 2)
        snprintf(what, sizeof what, "format and order as asked, the fastest of its %d settings "
                 "timed (%s effort)", timed - 1, tc_plan_effort_name(i->effort));
    else if (p->o.format && (p->o.order || i->device == TC_DEVICE_CPU))
        snprintf(what, sizeof what, "format and order as asked");
    else if (i->device == TC_DEVICE_GPU && i->effort == TC_EFFORT_ESTIMATE)
        snprintf(what, sizeof what, "the model's choice (estimate effort: no other format "
                 "timed)");
    else if (timed)
        snprintf(what, sizeof what, "the fastest of %d timed candidates (%s effort)", timed,
                 tc_plan_effort_name(i->effort));
    else if (i->device == TC_DEVICE_CPU)
        snprintf(what, sizeof what, "the CPU's one kernel in the given order, nothing timed "
                 "(%s effort)", tc_plan_effort_name(i->effort));
    else
        snprintf(what, sizeof what, "the model's choice, nothing timed");
    /* a product whose launches take the host longer than the GPU takes to
       run them: a loop of them goes at the host's pace */
    char host[128] = "";
    if (i->device == TC_DEVICE_GPU && i->ms > 0 && i->host_ms > i->ms)
        snprintf(host, sizeof host, "; a loop of products waits on the host (%.1f us to queue "
                 "one, %.1f us on the GPU)", i->host_ms * 1e3, i->ms * 1e3);
    const char *params = i->format_params;
    snprintf(p->why, sizeof p->why, "%s%s%.128s%s on the %s: %s%s; device: %s", i->format,
             params[0] ? " (" : "", params, params[0] ? ")" : "",
             i->device == TC_DEVICE_CPU ? "CPU" : "GPU", what, host,
             device_why[0] ? device_why : "as asked");
}

/* SpMM planning on the caller's matrix in its given order (given, with
   the tcf's permutation in p->row/col when there is one). */
static tc_status plan_spmm(tc_plan *p, const tc_csr *given, const tc_plan_opts *o,
                           tc_error *err)
{
    const double t0 = tc_plan_now();
    tc_plan_progress_start(p);
    char *why = p->device_why;
    tc_status st = tc_plan_choose_device(p, why, sizeof p->device_why, err);
    int found = 0;
    if (!st) {
        p->o.plan_file = o->plan_file;
        p->o.cache_dir = o->cache_dir;
        st = tc_plan_lookup(p, given, &found, err);
    }
    if (!st)
        st = p->info.device == TC_DEVICE_CPU ? tc_plan_cpu(p, given, found, err)
                                             : tc_plan_gpu(p, given, found, err);
    tc_plan_forget_orders(p);
    if (!st)
        tc_plan_progress_step(p, 1, 1);
    if (!st)
        explain(p, why);
    p->info.plan_s = tc_plan_now() - t0;
    p->info.payback_calls = payback(&p->info);
    if (!st && why[0])
        tc_plan_add_cand(p, p->info.device == TC_DEVICE_CPU ? TC_DEVICE_GPU : TC_DEVICE_CPU,
                         "given", "csr", NULL, "", "", 0, -1, why);
    if (!st && !found && p->o.effort != TC_EFFORT_ESTIMATE)
        st = tc_plan_store(p, err);
    /* the caller's pointers, which need not outlive planning */
    p->o.plan_file = NULL;
    p->o.cache_dir = NULL;
    p->o.progress = NULL;
    return st;
}

static tc_status create(const tc_csr *a, const tc_tcf *f, const tc_plan_opts *o, tc_plan **out,
                        tc_error *err)
{
    *out = NULL;
    if (!a || !o)
        return tc_error_set(err, TC_ERR_ARG, "plan: no matrix or no options");
    tc_plan *p = calloc(1, sizeof *p);
    if (!p)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    fill_info_head(p, o);
    for (int v = 0; v < TC_KERNEL_MAX_VARIANTS; v++)
        p->variant_ms[v] = TC_VARIANT_UNTIMED;
    tc_status st = check_opts(p, o, err);
    p->info.effort = p->o.effort;   /* the default resolved */
    if (!st && o->op != TC_OP_SPMM) {
        const tc_fmt *bsb = NULL;
        for (int i = 0; f && i < f->nformats; i++)
            if (strcmp(tc_format_name(tc_fmt_format(f->formats[i])), "bsb") == 0)
                bsb = f->formats[i];
        st = tc_attn_plan_create(a, bsb, f ? f->row_perm : NULL, f ? f->col_perm : NULL, o,
                                 &p->attn, err);
    } else if (!st) {
        p->tcf = f;
        p->given = a;
        if (f && f->row_perm)
            st = tc_perm_from_array(&p->given_row, f->row_perm->n, f->row_perm->new2old,
                                    TC_PERM_NEW2OLD, "/permutation", err);
        if (!st && f && f->col_perm)
            st = tc_perm_from_array(&p->given_col, f->col_perm->n, f->col_perm->new2old,
                                    TC_PERM_NEW2OLD, "/permutation", err);
        if (!st)
            st = plan_spmm(p, a, o, err);
        p->tcf = NULL;
        p->given = NULL;
    }
    if (st) {
        tc_plan_free(p);
        return st;
    }
    *out = p;
    return TC_OK;
}

tc_status tc_plan_create(const tc_csr *a, const tc_plan_opts *o, tc_plan **out, tc_error *err)
{
    return create(a, NULL, o, out, err);
}

tc_status tc_plan_create_tcf(const tc_tcf *f, const tc_plan_opts *o, tc_plan **out,
                             tc_error *err)
{
    if (!f)
        return tc_error_set(err, TC_ERR_ARG, "plan: no .tcf.h5");
    return create(f->matrix, f, o, out, err);
}

tc_status tc_plan_execute(tc_plan *p, const float *B, int64_t ldb, float *C, int64_t ldc,
                          void *stream, tc_error *err)
{
    if (p->attn)
        return tc_error_set(err, TC_ERR_ARG, "plan: an SDDMM or attention plan: use "
                                             "tc_plan_sddmm or tc_plan_attention, or "
                                             "tc_plan_execute_attention_host");
    if (ldb < p->info.n || ldc < p->info.n)
        return tc_error_set(err, TC_ERR_ARG, "plan: ldb %lld and ldc %lld must be at least n = %d",
                            (long long)ldb, (long long)ldc, p->info.n);
    if (p->info.device == TC_DEVICE_CPU) {
        if (stream)
            return tc_error_set(err, TC_ERR_ARG, "plan: a CPU plan takes no stream");
        return tc_plan_execute_cpu(p, B, ldb, C, ldc, err);
    }
    return tc_plan_execute_gpu(p, B, ldb, C, ldc, stream, err);
}

tc_status tc_plan_sddmm(tc_plan *p, const float *Q, const float *K, float *S, void *stream,
                        tc_error *err)
{
    if (!p->attn)
        return tc_error_set(err, TC_ERR_ARG, "plan: not an SDDMM plan");
    return tc_attn_plan_sddmm(p->attn, Q, K, S, stream, err);
}

tc_status tc_plan_attention(tc_plan *p, const float *Q, const float *K, const float *V,
                            float *O, void *stream, tc_error *err)
{
    if (!p->attn)
        return tc_error_set(err, TC_ERR_ARG, "plan: not an attention plan");
    return tc_attn_plan_attention(p->attn, Q, K, V, O, stream, err);
}

void tc_plan_get_info(const tc_plan *p, tc_plan_info *out)
{
    /* an attention plan's figures change after create (its bench) */
    if (p->attn)
        tc_attn_plan_info(p->attn, out);
    else
        *out = p->info;
}

int tc_plan_candidate_count(const tc_plan *p)
{
    return p->ncand;
}

const tc_plan_candidate *tc_plan_candidate_at(const tc_plan *p, int i)
{
    return i >= 0 && i < p->ncand ? &p->cand[i].pub : NULL;
}

/* c's public strings are its own (again, after a move). */
static void point_strings(plan_cand *c)
{
    c->pub.order = c->order;
    c->pub.format = c->format;
    c->pub.format_params = c->format_params;
    c->pub.variant = c->variant;
    c->pub.precision = c->precision;
    c->pub.note = c->note;
}

plan_cand *tc_plan_add_cand(tc_plan *p, tc_device dev, const char *order, const char *format,
                            const char *format_params, const char *variant,
                            const char *precision, double predicted, double ms,
                            const char *note)
{
    if (p->ncand == (int)(sizeof p->cand / sizeof p->cand[0]))
        return NULL;
    plan_cand *c = &p->cand[p->ncand++];
    snprintf(c->order, sizeof c->order, "%s", order);
    snprintf(c->format, sizeof c->format, "%s", format);
    snprintf(c->format_params, sizeof c->format_params, "%s", format_params ? format_params : "");
    snprintf(c->variant, sizeof c->variant, "%s", variant);
    snprintf(c->precision, sizeof c->precision, "%s", precision);
    snprintf(c->note, sizeof c->note, "%s", note ? note : "");
    point_strings(c);
    c->pub.device = dev;
    c->pub.predicted_speedup = predicted;
    c->pub.ms = ms;
    c->pub.host_ms = 0;
    c->predicted_ms = -1;
    return c;
}

/* Measured before unmeasured, faster in a loop of products first; then by
   predicted speedup. */
static int cand_cmp(const void *x, const void *y)
{
    const tc_plan_candidate *a = &((const plan_cand *)x)->pub, *b = &((const plan_cand *)y)->pub;
    if ((a->ms >= 0) != (b->ms >= 0))
        return a->ms >= 0 ? -1 : 1;
    const double la = tc_loop_ms(a->ms, a->host_ms), lb = tc_loop_ms(b->ms, b->host_ms);
    if (a->ms >= 0 && la != lb)
        return la < lb ? -1 : 1;
    return a->predicted_speedup > b->predicted_speedup   ? -1
           : a->predicted_speedup < b->predicted_speedup ? 1
                                                         : 0;
}

void tc_plan_sort_cands(tc_plan *p)
{
    qsort(p->cand, (size_t)p->ncand, sizeof p->cand[0], cand_cmp);
    /* the strings moved with their structs: point at them again */
    for (int i = 0; i < p->ncand; i++)
        point_strings(&p->cand[i]);
}

void tc_plan_free(tc_plan *p)
{
    if (!p)
        return;
    tc_attn_plan_free(p->attn);
    tc_plan_gpu_release(p);
    tc_spmm_cpu_op_free(p->cpu_op);
    tc_plan_forget_orders(p);
    tc_csr_free(p->a);
    tc_perm_free(p->row);
    tc_perm_free(p->col);
    tc_perm_free(p->given_row);
    tc_perm_free(p->given_col);
    free(p->key);
    free(p);
}
