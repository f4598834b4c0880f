/*
 * bench.c: tcmul's run protocol in the library (tc_plan_bench,
 * tc_plan_verify). On the GPU: the plan's kernel timed over operand sets
 * rotated through L2 with C poisoned first, each part timed alone, cuSPARSE
 * on the caller's order and cuBLAS on A stored densely timed on the same
 * operands; on the CPU, the product timed with tc_time_cpu. Then C through
 * the plan itself (tc_plan_execute_host), so the C a bench returns is the
 * one a caller gets, permutation and fp16 scaling included.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

/* The copied buffer of the CPU bandwidth figure: well past any CPU cache. */
#define CPU_BANDWIDTH_BYTES ((int64_t)256 << 20)

typedef struct bench_out {
    tc_dist ms;
    int sets, held;
    double bandwidth;
    const char *bandwidth_source;
    int64_t a_bytes;
    double part_ms[TC_KERNEL_MAX_PARTS];
    double plan_ms;             /* GPU: the whole product, caller's order */
    double plan_host_ms;        /* the host's time to queue it */
    double ref_ms[2];           /* cuSPARSE, cuBLAS (-1: not timed) */
    double ref_host_ms;         /* the host's time to queue cuSPARSE's */
    const char *ref_variant[2];
} bench_out;

/* A kernel that runs from CSR (cuSPARSE, cuBLAS) tuned on ops. */
static tc_status time_reference(const tc_plan *p, const tc_kernel *k, const tc_csr *a,
                                const tc_gpu_operands *ops, int warmup, int iters, int finite,
                                double *ms, const char **variant, tc_error *err)
{
    tc_kplan *kp = NULL;
    tc_status st = tc_kernel_prepare(k, p->gpu, NULL, a, ops, &kp, err);
    if (!st)
        st = tc_kernel_tune(kp, ops, warmup, iters, finite, NULL, 0, err);
    if (!st) {
        *ms = kp->variant_ms[kp->variant];
        *variant = k->variant_names[kp->variant];
    }
    tc_kernel_free(kp);
    return st ? tc_error_prefix(err, st, "%s", k == tc_kernel_baseline() ? "baseline" : "dense")
              : TC_OK;
}

/* The caller's A (p->a with the plan's permutations undone), for the
   cuSPARSE baseline in the caller's order. */
static tc_status caller_matrix(const tc_plan *p, tc_csr **out, tc_error *err)
{
    tc_perm *ri = NULL, *ci = NULL;
    tc_status st = TC_OK;
    if (p->row)
        st = tc_perm_from_array(&ri, p->row->n, p->row->old2new, TC_PERM_NEW2OLD, "plan", err);
    if (!st && p->col)
        st = tc_perm_from_array(&ci, p->col->n, p->col->old2new, TC_PERM_NEW2OLD, "plan", err);
    if (!st)
        st = tc_csr_permute(p->a, ri, ci, out, err);
    tc_perm_free(ri);
    tc_perm_free(ci);
    return st;
}

/* B packed to n columns, its rows in the plan's column order when cols is
   p->col (the kernel's operands), as given when cols is NULL (the
   caller's). */
static float *packed_b(const tc_plan *p, const tc_perm *cols, const float *B, int64_t ldb,
                       tc_error *err)
{
    const int32_t n = p->o.n;
    float *b = tc_malloc_array((int64_t)p->a->cols * n, sizeof *b, err);
    for (int32_t j = 0; b && j < p->a->cols; j++)
        memcpy(b + (int64_t)j * n, B + (int64_t)(cols ? cols->new2old[j] : j) * ldb,
               (size_t)n * sizeof *b);
    return b;
}

static int all_finite(const float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

typedef struct plan_run {
    tc_plan *p;
    const tc_gpu_operands *ops;
} plan_run;

/* One product as tc_plan_execute runs it (B gathered and scaled, the
   kernel, C scattered back), on the plan's own stream. */
static tc_status run_plan(void *arg, int set, tc_error *err)
{
    const plan_run *c = arg;
    return tc_plan_execute_gpu(c->p, c->ops->B[set], c->p->o.n, c->ops->C[set], c->p->o.n,
                               tc_gpu_stream(c->p->gpu), err);
}

/* The kernel alone in the plan's order, its parts, and cuBLAS. */
static tc_status bench_kernel(tc_plan *p, const float *B, int64_t ldb, int warmup, int iters,
                              unsigned flags, int finite, bench_out *b, tc_error *err)
{
    float *pb = packed_b(p, p->col, B, ldb, err);
    if (!pb)
        return TC_ERR_NOMEM;
    tc_gpu_operands ops;
    tc_status st = tc_gpu_operands_alloc(p->gpu, pb, p->a->cols, p->a->rows, p->o.n, 1, &ops, err);
    free(pb);
    if (st)
        return st;
    tc_gpu_timing t;
    st = tc_gpu_operands_poison(p->gpu, &ops, err);
    if (!st)
        st = tc_kernel_time(p->kp, &ops, warmup, iters, &t, err);
    if (!st) {
        b->ms = t.ms;
        b->held = t.held;
        b->sets = ops.count;
        b->a_bytes = p->kp->a_bytes;
    }
    if (!st && b->bandwidth <= 0) {
        b->bandwidth_source = "measured (device-to-device copy)";
        st = tc_gpu_copy_bandwidth(p->gpu, &b->bandwidth, err);
    }
    for (int i = 0; i < p->kp->nparts && !st; i++) {
        st = tc_kernel_time_part(p->kp, &ops, i, warmup, iters, &t, err);
        b->part_ms[i] = t.ms.decile[5];
    }
    if (!st && (flags & TC_BENCH_DENSE))
        st = time_reference(p, tc_kernel_dense(), p->a, &ops, warmup, iters, finite, &b->ref_ms[1],
                            &b->ref_variant[1], err);
    tc_gpu_operands_free(p->gpu, &ops);
    return st;
}

/* Rounds of alternating timings in bench_caller: the plan and cuSPARSE are
   each timed in every round and their medians are the medians of their
   rounds', so that a drift of the GPU's state over the run (clocks, L2,
   the host) falls on both alike. */
#define ROUNDS 5

/* cuSPARSE on the caller's matrix, tuned on ops: its own upload of A, or,
   when the plan is cuSPARSE itself in the caller's order, the plan's
   kernel with its fastest algorithm selected for each baseline round.
   Two uploads of one matrix time 1-3% apart with a sign that holds from
   run to run (bench/placement, bench/NOTES.md "Same-kernel comparisons"):
   the placement of the arrays, which would be charged to the plan. */
typedef struct baseline {
    tc_kplan *own;              /* NULL: the plan's kernel is the baseline */
    tc_kplan *kp;
    int variant, plan_variant;
} baseline;

static tc_status baseline_prepare(tc_plan *p, const tc_gpu_operands *ops, int warmup, int iters,
                                  int finite, baseline *b, tc_error *err)
{
    memset(b, 0, sizeof *b);
    tc_status st = TC_OK;
    if (!p->row && !p->col && p->kp->kind == tc_kernel_baseline()) {
        b->kp = p->kp;
        b->plan_variant = p->kp->variant;
        /* an algorithm's first select runs once on the operands of the last
           run, which may be a caller's buffers long freed: make them ops */
        st = tc_kernel_run(p->kp, ops, 0, err);
    } else {
        tc_csr *ca = NULL;
        if (p->row || p->col)
            st = caller_matrix(p, &ca, err);
        if (!st)
            st = tc_kernel_prepare(tc_kernel_baseline(), p->gpu, NULL, ca ? ca : p->a, ops,
                                   &b->own, err);
        tc_csr_free(ca);
        b->kp = b->own;
    }
    if (!st)
        st = tc_kernel_tune(b->kp, ops, warmup, iters, finite, NULL, 0, err);
    if (!st)
        b->variant = b->kp->variant;
    if (!st && !b->own)
        st = tc_kernel_select(p->kp, b->plan_variant, err);
    return st;
}

/* One round of the baseline, the plan's variant restored after it. */
static tc_status baseline_time(tc_plan *p, baseline *b, const tc_gpu_operands *ops, int warmup,
                               int iters, tc_gpu_timing *t, tc_error *err)
{
    tc_status st = b->own ? TC_OK : tc_kernel_select(b->kp, b->variant, err);
    if (!st)
        st = tc_kernel_time(b->kp, ops, warmup, iters, t, err);
    if (!st && !b->own)
        st = tc_kernel_select(p->kp, b->plan_variant, err);
    return st;
}

/* The median of the n values (reordered). */
static double median_of(double *values, int n)
{
    tc_dist d;
    tc_dist_compute(&d, values, n);
    return d.decile[5];
}

/* On operand sets in the caller's order: the whole product as the caller
   gets it, and cuSPARSE (its fastest algorithm, tuned first) on the
   caller's own matrix, timed in alternating rounds in the same run. */
static tc_status bench_caller(tc_plan *p, const float *B, int64_t ldb, int warmup, int iters,
                              int finite, bench_out *b, tc_error *err)
{
    float *cb = packed_b(p, NULL, B, ldb, err);
    if (!cb)
        return TC_ERR_NOMEM;
    tc_gpu_operands ops;
    tc_status st = tc_gpu_operands_alloc(p->gpu, cb, p->a->cols, p->a->rows, p->o.n, 1, &ops, err);
    free(cb);
    if (st)
        return st;
    baseline ref;
    st = baseline_prepare(p, &ops, warmup, iters, finite, &ref, err);
    if (!st)
        st = tc_gpu_operands_poison(p->gpu, &ops, err);
    const int rounds = iters >= ROUNDS ? ROUNDS : 1;
    double plan_ms[ROUNDS], ref_ms[ROUNDS], plan_host[ROUNDS], ref_host[ROUNDS];
    plan_run c = { p, &ops };
    for (int i = 0; i < rounds && !st; i++) {
        tc_gpu_timing t;
        st = tc_gpu_time(p->gpu, run_plan, &c, ops.count, warmup, iters / rounds, &t, err);
        plan_ms[i] = t.ms.decile[5];
        plan_host[i] = t.host_ms;
        if (!st)
            st = baseline_time(p, &ref, &ops, warmup, iters / rounds, &t, err);
        ref_ms[i] = t.ms.decile[5];
        ref_host[i] = t.host_ms;
    }
    if (!st) {
        b->plan_ms = median_of(plan_ms, rounds);
        b->plan_host_ms = median_of(plan_host, rounds);
        b->ref_ms[0] = median_of(ref_ms, rounds);
        b->ref_host_ms = median_of(ref_host, rounds);
        b->ref_variant[0] = tc_kernel_baseline()->variant_names[ref.variant];
    }
    tc_kernel_free(ref.own);
    tc_gpu_operands_free(p->gpu, &ops);
    return st;
}

static tc_status bench_gpu(tc_plan *p, const float *B, int64_t ldb, int warmup, int iters,
                           unsigned flags, bench_out *b, tc_error *err)
{
    int finite = 1;
    for (int32_t j = 0; finite && j < p->a->cols; j++)
        finite = all_finite(B + (int64_t)j * ldb, p->o.n);
    tc_status st = bench_kernel(p, B, ldb, warmup, iters, flags, finite, b, err);
    return st ? st : bench_caller(p, B, ldb, warmup, iters, finite, b, err);
}

typedef struct cpu_run {
    tc_plan *p;
    const float *B;
    int64_t ldb;
    float *C;
    int64_t ldc;
} cpu_run;

static tc_status cpu_once(void *arg, tc_error *err)
{
    const cpu_run *c = arg;
    return tc_plan_execute_cpu(c->p, c->B, c->ldb, c->C, c->ldc, err);
}

static tc_status bench_cpu(tc_plan *p, const float *B, int64_t ldb, int warmup, int iters,
                           float *C, int64_t ldc, bench_out *b, tc_error *err)
{
    const tc_csr *a = p->a;
    /* what each run reads of A (path_bytes): int64 row pointers, int32
       columns, float64 values */
    b->a_bytes = ((int64_t)a->rows + 1) * 8 + a->nnz * (a->val ? 12 : 4);
    cpu_run c = { p, B, ldb, C, ldc };
    tc_status st = tc_time_cpu(cpu_once, &c, warmup, iters, &b->ms, err);
    if (!st && b->bandwidth <= 0) {
        b->bandwidth_source = "measured (copy)";
        st = tc_cpu_copy_bandwidth(CPU_BANDWIDTH_BYTES, p->o.threads, &b->bandwidth, err);
    }
    return st;
}

static tc_status report_reference(tc_report *r, const char *section, double ms,
                                  const char *variant, double med, const char *what)
{
    tc_status st;
    (void)((st = tc_report_num(r, section, "median_ms", ms, what)) ||
           (st = tc_report_str(r, section, "variant", variant, NULL)) ||
           (st = tc_report_num(r, section, "speedup", ms / med, NULL)));
    return st;
}

/* Each part's nonzeros and time, and their shares (the time share is of
   the parts' medians summed, each part timed alone). */
static tc_status report_parts(tc_report *r, const tc_kplan *kp, const bench_out *b, int64_t nnz)
{
    double total = 0;
    for (int i = 0; i < kp->nparts; i++)
        total += b->part_ms[i];
    tc_status st = TC_OK;
    for (int i = 0; i < kp->nparts && !st; i++) {
        char k[4][64];
        snprintf(k[0], sizeof k[0], "%s_nnz", kp->part_names[i]);
        snprintf(k[1], sizeof k[1], "%s_nnz_share", kp->part_names[i]);
        snprintf(k[2], sizeof k[2], "%s_ms", kp->part_names[i]);
        snprintf(k[3], sizeof k[3], "%s_time_share", kp->part_names[i]);
        (void)((st = tc_report_int(r, "parts", k[0], kp->part_nnz[i], NULL)) ||
               (st = tc_report_num(r, "parts", k[1], nnz ? (double)kp->part_nnz[i] / nnz : 0,
                                   NULL)) ||
               (st = tc_report_num(r, "parts", k[2], b->part_ms[i], "median, the part alone")) ||
               (st = tc_report_num(r, "parts", k[3], total > 0 ? b->part_ms[i] / total : 0,
                                   NULL)));
    }
    return st;
}

static tc_status report_bench(const tc_plan *p, int warmup, int iters, const bench_out *b,
                              tc_report *r)
{
    const double med = b->ms.decile[5];
    const tc_csr *a = p->a;
    const double flops = 2.0 * (double)a->nnz * p->o.n;
    /* the floor is the matrix's, the same for every path: a format larger
       than CSR pays for its bytes in floor_fraction; path_bytes is what
       this path's own arrays would move */
    const double bytes = (double)tc_spmm_floor_bytes(a, p->o.n);
    const double path_bytes = (double)b->a_bytes + 4.0 * p->o.n * ((double)a->rows + a->cols);
    const double floor_ms = bytes / (b->bandwidth * 1e6);
    tc_status st;
    (void)((st = tc_report_int(r, "bench", "warmup", warmup, "untimed runs")) ||
           (st = tc_report_int(r, "bench", "iters", iters, "timed runs")) ||
           (st = tc_report_num(r, "bench", "median_ms", med, NULL)) ||
           (st = tc_report_num(r, "bench", "min_ms", b->ms.min, NULL)) ||
           (st = tc_report_num(r, "bench", "max_ms", b->ms.max, NULL)) ||
           (st = tc_report_num(r, "bench", "gflops", flops / (med * 1e6), "2*nnz*n / median")) ||
           (st = tc_report_num(r, "bench", "floor_bytes", bytes,
                               "A as CSR (int32 indices, float32 values), B and C in float32, "
                               "each moved once: the same for every path")) ||
           (st = tc_report_num(r, "bench", "path_bytes", path_bytes,
                               "this path's own arrays of A, B and C in float32, each once")) ||
           (st = tc_report_num(r, "bench", "bandwidth_gbs", b->bandwidth, b->bandwidth_source)) ||
           (st = tc_report_num(r, "bench", "floor_ms", floor_ms, "floor_bytes / bandwidth")) ||
           (st = tc_report_num(r, "bench", "floor_fraction", floor_ms / med,
                               "floor_ms / median_ms")));
    if (!st && p->gpu)
        (void)((st = tc_report_int(r, "bench", "operand_sets", b->sets,
                                    "B/C sets rotated so that they are not timed from L2")) ||
               (st = tc_report_str(r, "bench", "launch_gaps_hidden", b->held ? "yes" : "no",
                                   "runs queued behind a holding kernel")));
    if (!st && p->gpu)
        (void)((st = tc_report_num(r, "bench", "plan_ms", b->plan_ms,
                                   "median of the whole product as tc_plan_execute gives it: B "
                                   "gathered and scaled, the kernel, C scattered back (caller's "
                                   "order)")) ||
               (st = tc_report_num(r, "bench", "plan_host_ms", b->plan_host_ms,
                                   "median time the host takes to queue that product (its "
                                   "launches), which plan_ms leaves out: a loop of products "
                                   "goes at the larger of the two")));
    if (!st && b->ref_variant[0])
        st = report_reference(r, "baseline", b->ref_ms[0], b->ref_variant[0], med,
                              "cuSPARSE, fastest CSR algorithm, the caller's matrix and operands");
    if (!st && b->ref_variant[0] && p->gpu)
        st = tc_report_num(r, "baseline", "host_ms", b->ref_host_ms,
                           "median time the host takes to queue cuSPARSE's product");
    if (!st && b->ref_variant[0] && p->gpu)
        st = tc_report_num(r, "baseline", "plan_speedup", b->ref_ms[0] / b->plan_ms,
                           "cuSPARSE's median over plan_ms");
    if (!st && b->ref_variant[1])
        st = report_reference(r, "dense", b->ref_ms[1], b->ref_variant[1], med,
                              "cuBLAS GEMM on A stored densely, same operands");
    if (!st && p->gpu && p->kp->nparts)
        st = report_parts(r, p->kp, b, a->nnz);
    return st;
}

tc_status tc_plan_bench(tc_plan *p, const float *B, int64_t ldb, int warmup, int iters,
                        unsigned flags, double bandwidth_gbs, float *C, int64_t ldc,
                        tc_report *r, tc_error *err)
{
    if (p->attn)
        return tc_error_set(err, TC_ERR_ARG, "plan: tc_plan_bench times SpMM plans");
    if (warmup < 0 || iters < 1 || ldb < p->o.n || ldc < p->o.n)
        return tc_error_set(err, TC_ERR_ARG, "plan: bench needs warmup >= 0, iters >= 1 and "
                                             "ldb, ldc >= n");
    if ((flags & TC_BENCH_DENSE) && !p->gpu)
        return tc_error_set(err, TC_ERR_ARG, "--dense: cuBLAS runs on the GPU, and the plan "
                                             "runs on the CPU");
    bench_out b;
    memset(&b, 0, sizeof b);
    b.bandwidth = bandwidth_gbs;
    b.bandwidth_source = "given";
    tc_status st = p->gpu ? bench_gpu(p, B, ldb, warmup, iters, flags, &b, err)
                          : bench_cpu(p, B, ldb, warmup, iters, C, ldc, &b, err);
    /* the CPU's last timed run wrote C; the GPU's C comes through the plan */
    if (!st && p->gpu)
        st = tc_plan_execute_host(p, B, ldb, C, ldc, err);
    if (!st && r && report_bench(p, warmup, iters, &b, r))
        st = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    return st;
}

tc_status tc_plan_verify(const tc_plan *p, const float *B, int64_t ldb, const float *C,
                         int64_t ldc, tc_compare *out, int *pass, tc_error *err)
{
    if (p->attn)
        return tc_error_set(err, TC_ERR_ARG, "plan: tc_plan_verify checks SpMM plans");
    const tc_csr *a = p->a;
    const int32_t n = p->o.n;
    double *bd = tc_malloc_array((int64_t)a->cols * n, sizeof *bd, err);
    double *ref = bd ? tc_malloc_array((int64_t)a->rows * n, sizeof *ref, err) : NULL;
    double *back = ref ? tc_malloc_array((int64_t)a->rows * n, sizeof *back, err) : NULL;
    float *packed = back ? tc_malloc_array((int64_t)a->rows * n, sizeof *packed, err) : NULL;
    tc_status st = packed ? TC_OK : TC_ERR_NOMEM;
    for (int32_t j = 0; !st && j < a->cols; j++) {
        const float *src = B + (int64_t)(p->col ? p->col->new2old[j] : j) * ldb;
        for (int32_t k = 0; k < n; k++)
            bd[(int64_t)j * n + k] = src[k];
    }
    if (!st)
        st = tc_spmm_ref_f64(a, bd, n, n, ref, n, p->o.threads, err);
    for (int32_t i = 0; !st && i < a->rows; i++) {
        const int64_t to = p->row ? p->row->new2old[i] : i;
        memcpy(back + to * n, ref + (int64_t)i * n, (size_t)n * sizeof *back);
        memcpy(packed + (int64_t)i * n, C + (int64_t)i * ldc, (size_t)n * sizeof *packed);
    }
    if (!st) {
        tc_compare_f32(packed, back, a->rows, n, n, out);
        *pass = out->nonfinite == 0 && out->rel_fro <= p->info.tolerance;
    }
    free(bd);
    free(ref);
    free(back);
    free(packed);
    return st;
}
