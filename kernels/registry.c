/*
 * registry.c: what every GPU kernel gets done the same way: preparing,
 * choosing a variant, running and timing over the operand sets. Part of
 * the GPU library. The kernels themselves are listed once, by the format
 * registry (formats/format_registry.h), whose entry for a format names its
 * kernel (kernels/NAME.cu defining `const tc_kernel tc_kernel_NAME`);
 * kernels/gpu_api.c expands it, and libtcsparse's tc_kernel_find,
 * tc_kernel_at and tc_kernel_count iterate it (plan/gpucalls.c).
 */
#include <config.h>

#include <string.h>

#include "kernels.h"

int tc_kernel_variant_find(const tc_kernel *k, const char *name)
{
    for (int v = 0; v < k->nvariants; v++)
        if (strcmp(k->variant_names[v], name) == 0)
            return v;
    return -1;
}

tc_status tc_kernel_select(tc_kplan *p, int v, tc_error *err)
{
    if (v < 0 || v >= p->kind->nvariants)
        return tc_error_set(err, TC_ERR_ARG, "kernel %s has no variant %d", p->kind->format, v);
    return p->kind->select(p, v, err);
}

tc_status tc_kernel_prepare(const tc_kernel *k, tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                            const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    if (k->nvariants < 1 || k->nvariants > TC_KERNEL_MAX_VARIANTS)
        return tc_error_set(err, TC_ERR_ARG, "kernel %s: %d variants (1 to %d fit a plan)",
                            k->format, k->nvariants, TC_KERNEL_MAX_VARIANTS);
    tc_kplan *p = NULL;
    tc_status st = k->prepare(g, m, a, o, &p, err);
    if (st != TC_OK)
        return st;
    p->kind = k;
    p->gpu = g;
    p->rows = a->rows;
    p->cols = a->cols;
    p->n = o->n;
    p->nnz = a->nnz;
    for (int v = 0; v < TC_KERNEL_MAX_VARIANTS; v++) {
        p->variant_ms[v] = TC_VARIANT_UNTIMED;
        p->variant_runs[v] = 0;
    }
    st = TC_ERR_UNSUPPORTED;
    for (int v = 0; v < k->nvariants && st == TC_ERR_UNSUPPORTED; v++)
        st = k->select(p, v, err);
    if (st != TC_OK) {
        k->free(p);
        return st;
    }
    *out = p;
    return TC_OK;
}

typedef struct run_ctx {
    tc_kplan *p;
    const tc_gpu_operands *o;
    int part;                   /* -1: the whole run */
} run_ctx;

static tc_status run_set(void *arg, int set, tc_error *err)
{
    run_ctx *c = arg;
    if (c->part < 0)
        return tc_kernel_run(c->p, c->o, set, err);
    return c->p->kind->run_part(c->p, c->part, c->o->B[set], c->o->C[set], err);
}

tc_status tc_kernel_run(tc_kplan *p, const tc_gpu_operands *o, int set, tc_error *err)
{
    return p->kind->run(p, o->B[set], o->C[set], err);
}

tc_status tc_kernel_time(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                         tc_gpu_timing *t, tc_error *err)
{
    run_ctx c = { p, o, -1 };
    return tc_gpu_time(p->gpu, run_set, &c, o->count, warmup, iters, t, err);
}

tc_status tc_kernel_time_part(tc_kplan *p, const tc_gpu_operands *o, int part, int warmup,
                              int iters, tc_gpu_timing *t, tc_error *err)
{
    if (part < 0 || part >= p->nparts || !p->kind->run_part)
        return tc_error_set(err, TC_ERR_ARG, "kernel %s has no part %d", p->kind->format, part);
    run_ctx c = { p, o, part };
    return tc_gpu_time(p->gpu, run_set, &c, o->count, warmup, iters, t, err);
}

tc_status tc_kernel_tune(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                         int finite_b, const char *accuracy, double bar_ms, tc_error *err)
{
    const tc_kernel *k = p->kind;
    int best = -1;
    for (int v = 0; v < k->nvariants; v++) {
        p->variant_runs[v] = 0;
        if (!tc_precision_meets(tc_kernel_variant_precision(k, v), accuracy)) {
            p->variant_ms[v] = TC_VARIANT_INEXACT;
            continue;
        }
        if (!finite_b && k->variant_spreads_nonfinite && k->variant_spreads_nonfinite[v]) {
            p->variant_ms[v] = TC_VARIANT_SKIPPED;
            continue;
        }
        tc_status st = k->select(p, v, err);
        if (st == TC_ERR_UNSUPPORTED) {
            p->variant_ms[v] = TC_VARIANT_UNSUPPORTED;
            continue;
        }
        tc_gpu_timing t;
        run_ctx c = { p, o, -1 };
        if (st == TC_OK)
            st = tc_gpu_time_race(p->gpu, run_set, &c, o->count, warmup, iters, TC_TUNE_FIRST,
                                  bar_ms > 0 ? bar_ms * TC_TUNE_MARGIN : 0, &t, err);
        if (st != TC_OK)
            return tc_error_prefix(err, st, "%s variant %s", k->format, k->variant_names[v]);
        p->variant_ms[v] = t.ms.decile[5];
        p->variant_host_ms[v] = t.host_ms;
        p->variant_runs[v] = t.runs;
        if (best < 0 || tc_loop_ms(p->variant_ms[v], p->variant_host_ms[v]) <
                            tc_loop_ms(p->variant_ms[best], p->variant_host_ms[best]))
            best = v;
    }
    if (best < 0)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "no variant of kernel %s can run this matrix",
                            k->format);
    return k->select(p, best, err);
}

void tc_kernel_free(tc_kplan *p)
{
    if (p)
        p->kind->free(p);
}
