/*
 * cpu.c: the CPU planner. The CPU has one kernel, tc_spmm_cpu_f32 on CSR
 * (fp32), so what a plan chooses there is the row order: ESTIMATE keeps the
 * given order and predicts from the measured throughput (device.c);
 * MEASURE times the given order; PATIENT (or order "auto" with a timed
 * effort) also every reordering of the registry, since an order that
 * keeps B's rows in cache can pay on the CPU too.
 *
 * A product on the CPU is long and steady (tenths of a second on a large
 * matrix), so planning times 1 untimed and at most 5 timed runs of each
 * order rather than the GPU's warmup and iters.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

#define CPU_PLAN_WARMUP 1
#define CPU_PLAN_ITERS 5

typedef struct cpu_timing {
    const tc_csr *a;
    const float *B;
    float *C;
    int32_t n;
    int threads;
} cpu_timing;

static tc_status cpu_once(void *arg, tc_error *err)
{
    const cpu_timing *t = arg;
    return tc_spmm_cpu_f32(t->a, t->B, t->n, t->n, t->C, t->n, t->threads, err);
}

/* The median of the CPU kernel on p->a with a random B. */
static tc_status time_order(tc_plan *p, double *ms, tc_error *err)
{
    const int64_t nb = (int64_t)p->a->cols * p->o.n, nc = (int64_t)p->a->rows * p->o.n;
    double *bd = tc_malloc_array(nb, sizeof *bd, err);
    float *B = bd ? tc_malloc_array(nb, sizeof *B, err) : NULL;
    float *C = B ? tc_malloc_array(nc, sizeof *C, err) : NULL;
    tc_status st = C ? TC_OK : TC_ERR_NOMEM;
    if (!st) {
        tc_random_fill(bd, nb, 1, -1.0, 1.0);
        for (int64_t i = 0; i < nb; i++)
            B[i] = (float)bd[i];
        cpu_timing t = { p->a, B, C, p->o.n, p->o.threads };
        tc_dist d;
        const double t0 = tc_plan_now();
        st = tc_time_cpu(cpu_once, &t, p->o.warmup < CPU_PLAN_WARMUP ? p->o.warmup : CPU_PLAN_WARMUP,
                         p->o.iters < CPU_PLAN_ITERS ? p->o.iters : CPU_PLAN_ITERS, &d, err);
        p->info.tune_s += tc_plan_now() - t0;
        *ms = d.decile[5];
    }
    free(bd);
    free(B);
    free(C);
    return st;
}

static void set_path(tc_plan *p)
{
    p->path.format = tc_format_find("csr");
    p->path.kernel = NULL;
    p->path.variant = 0;
    tc_plan_info *i = &p->info;
    snprintf(i->order, sizeof i->order, "%s", p->path.order);
    snprintf(i->format, sizeof i->format, "csr");
    snprintf(i->variant, sizeof i->variant, "rows");
    snprintf(i->precision, sizeof i->precision, "fp32");
    i->tolerance = tc_tolerance("fp32");
    i->b_scaled = 0;
}

tc_status tc_plan_cpu(tc_plan *p, const tc_csr *given, int reuse, tc_error *err)
{
    if (reuse) {
        tc_status st = tc_plan_set_order(p, given, p->path.order, &p->path.order_params, err);
        set_path(p);
        return st;
    }
    const char *orders[32] = { p->o.order ? p->o.order : "given" };
    int norders = 1;
    const int timed = p->o.effort != TC_EFFORT_ESTIMATE;
    if (!p->o.order && p->o.effort >= TC_EFFORT_PATIENT)
        norders += tc_plan_orders(orders + 1, 31);
    const double est = tc_plan_cpu_estimate_ms(given, p->o.n, p->o.threads);
    double best = INFINITY;
    int best_i = 0;
    tc_status st = TC_OK;
    for (int i = 0; i < norders && !st; i++) {
        double ms = -1;
        tc_plan_progress_step(p, (double)i / norders, (double)(i + 1) / norders);
        st = tc_plan_set_order(p, given, orders[i], NULL, err);
        if (!st && timed)
            st = time_order(p, &ms, err);
        plan_cand *c = st ? NULL
                          : tc_plan_add_cand(p, TC_DEVICE_CPU, orders[i], "csr", NULL, "rows",
                                             "fp32", 0, ms, timed ? "" : "not timed (estimate)");
        if (c && strcmp(orders[i], "given") == 0)
            c->predicted_ms = est;
        if (!st && timed && ms < best)
            best = ms, best_i = i;
    }
    /* the best order again (the loop left the last one in place) */
    if (!st && best_i != norders - 1)
        st = tc_plan_set_order(p, given, orders[best_i], NULL, err);
    if (st)
        return st;
    set_path(p);
    p->info.ms = timed ? best : -1;
    p->info.predicted_speedup = 0;
    tc_plan_sort_cands(p);
    return TC_OK;
}
