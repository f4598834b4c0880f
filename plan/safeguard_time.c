/*
 * safeguard_time.c: what a candidate's safeguards cost each product, so
 * that the planner compares what the caller will see. A plan that does
 * not know B's range runs, besides its kernel, max|B| measured on the
 * device and B and C scaled through scratch (fp16 kernels that do not
 * scale B themselves, precision.c) and the NaN/Inf guard (kernels that
 * spread them, kernels/nonfinite.cu).
 * Charged nothing, an fp16 path was chosen for Python callers (who state
 * no range) that ran 1.1-1.9x slower than cuSPARSE there (bench/NOTES.md,
 * Python): tcmul states B's range, so its figures never showed it.
 */
#include <config.h>

#include <string.h>

#include "plan_internal.h"

enum { MOVED_B = 8, MOVED_C = 16 };

void tc_safeguard_timer_init(tc_safeguard_timer *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < 32; i++)
        t->cost[i].ms = -1;
}

typedef struct run_ctx {
    tc_plan *p;
    tc_safeguard_timer *t;
    const tc_gpu_operands *ops;
    int what;
} run_ctx;

/* What execute.c's gpu_run does around the kernel, on set `set`. */
static tc_status run(void *arg, int set, tc_error *err)
{
    const run_ctx *x = arg;
    tc_gpu *g = x->p->gpu;
    const int32_t n = x->p->o.n, rows = x->p->a->rows, cols = x->p->a->cols;
    const float *B = x->ops->B[set];
    tc_status st = TC_OK;
    float *max = x->t->d_max;
    if (x->what & TC_SAFE_MEASURE)
        st = tc_plan_measure_b(x->p, x->t->d_max, &x->t->max_next, B, n, &max, err);
    if (!st && (x->what & TC_SAFE_SCALE) && !(x->what & MOVED_B))
        st = tc_gpu_gather_rows(g, B, n, NULL, cols, n, max, x->t->b, n, err);
    if (!st && (x->what & TC_SAFE_SCALE) && !(x->what & MOVED_C))
        st = tc_gpu_scatter_rows(g, x->ops->C[set], n, NULL, rows, n, max, x->t->c, n, err);
    /* B is finite here: the guard measures it and returns */
    if (!st && (x->what & TC_SAFE_GUARD))
        st = tc_gpu_guard_run(g, x->t->guard, B, n, x->what & TC_SAFE_MEASURE ? max : NULL,
                              x->t->c, err);
    return st;
}

/* The scratch a combination needs, allocated on first use. */
static tc_status ready(tc_plan *p, tc_safeguard_timer *t, int what, tc_error *err)
{
    const int64_t n = p->o.n;
    tc_status st = TC_OK;
    if (what & (TC_SAFE_MEASURE | TC_SAFE_SCALE) && !t->d_max) {
        /* tc_plan_measure_b's two slots; 0 scales by 2^0 where nothing
           is measured */
        const float zeros[2] = { 0, 0 };
        st = tc_gpu_alloc(p->gpu, sizeof zeros, (void **)&t->d_max, err);
        if (!st)
            st = tc_gpu_upload(p->gpu, t->d_max, zeros, sizeof zeros, err);
    }
    if (!st && (what & TC_SAFE_SCALE) && !t->b)
        st = tc_gpu_alloc(p->gpu, p->a->cols * n * 4, (void **)&t->b, err);
    if (!st && (what & (TC_SAFE_SCALE | TC_SAFE_GUARD)) && !t->c)
        st = tc_gpu_alloc(p->gpu, p->a->rows * n * 4, (void **)&t->c, err);
    if (!st && (what & TC_SAFE_GUARD) && !t->guard)
        st = tc_gpu_guard_new(p->gpu, p->a, &t->guard, err);
    return st;
}

tc_status tc_safeguard_time(tc_plan *p, tc_safeguard_timer *t, const tc_kernel *k, int v,
                            const tc_gpu_operands *ops, tc_cost *cost, tc_error *err)
{
    const int safe = tc_plan_safeguards(p, k, v);
    const int what = safe | (p->col ? MOVED_B : 0) | (p->row ? MOVED_C : 0);
    *cost = (tc_cost){ 0, 0 };
    if (!safe || t->cost[what].ms >= 0) {
        if (safe)
            *cost = t->cost[what];
        return TC_OK;
    }
    tc_status st = ready(p, t, what, err);
    run_ctx x = { p, t, ops, what };
    tc_gpu_timing timing;
    if (!st)
        st = tc_gpu_time(p->gpu, run, &x, ops->count, p->o.warmup, p->o.iters, &timing, err);
    if (!st)
        *cost = t->cost[what] = (tc_cost){ timing.ms.decile[5], timing.host_ms };
    return st;
}

void tc_safeguard_timer_free(tc_plan *p, tc_safeguard_timer *t)
{
    tc_gpu_free(p->gpu, t->d_max);
    tc_gpu_free(p->gpu, t->b);
    tc_gpu_free(p->gpu, t->c);
    tc_gpu_guard_free(p->gpu, t->guard);
    tc_safeguard_timer_init(t);
}
