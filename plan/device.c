/*
 * device.c: where a plan runs (TC_DEVICE_AUTO), judged end to end.
 *
 * A one-off product on the GPU pays CUDA's start-up, the upload of A and
 * the tuning of the kernel's variants: measured on the H100 machine with
 * `tcmul -o C.h5 --cols 64` on real matrices of 0.1-4.2M nonzeros, 0.47 to
 * 1.14 s, against 0.11 to 0.21 s for the whole run with --device cpu. So
 * the CPU is chosen, without opening the GPU, when its estimated time is
 * below the GPU's fixed cost; with more calls to come the two totals
 * (calls times a product, plus the GPU's set-up) are weighed.
 */
#include <config.h>

#include <string.h>

#include "plan_internal.h"

/* Products (nonzeros times n) per second of tc_spmm_cpu_f32 on one thread:
   measured on this project's 2-core build machine with `tcmul --device cpu
   --bench --cols 64 --warmup 1 --iters 5` and TC_THREADS=1: TF18 (1.6M
   nonzeros) 0.86e9, gupta2 (4.2M) 1.59e9, cora (13k, in cache) 2.7e9. The
   geometric mean of the two large ones; threads are taken to scale it
   linearly, which overstates the CPU a little on many threads. */
#define CPU_PRODUCTS_PER_THREAD_S 1.17e9
/* The GPU's fixed cost of a first product (s): the low end of the measured
   0.47 s, less the product itself. */
#define GPU_FIXED_S 0.4
/* Products per second of cuSPARSE's SpMM on an H100/H200 at n >= 32
   (bench/results/cusparse-baseline.tsv: 1.3e12 to 2.2e12 on matrices past
   a million nonzeros), taken low. */
#define GPU_PRODUCTS_PER_S 1.0e12

double tc_plan_cpu_estimate_ms(const tc_csr *a, int32_t n, int threads)
{
    if (threads <= 0)
        threads = tc_default_threads();
    return (double)a->nnz * n / (CPU_PRODUCTS_PER_THREAD_S * threads) * 1000.0;
}

static void set_cpu(tc_plan *p)
{
    p->info.device = TC_DEVICE_CPU;
    snprintf(p->info.device_name, sizeof p->info.device_name, "cpu");
}

static tc_status open_gpu(tc_plan *p, tc_error *err)
{
    tc_status st = tc_gpu_open(p->o.gpu, &p->gpu, err);
    if (st)
        return st;
    p->info.device = TC_DEVICE_GPU;
    snprintf(p->info.device_name, sizeof p->info.device_name, "%s", tc_gpu_get_info(p->gpu)->name);
    return TC_OK;
}

/* Auto with the csr format allowed: 1 when the CPU's estimate beats the
   GPU's, with the figures in why. */
static int cpu_wins(const tc_plan *p, const tc_csr *a, char *why, size_t len)
{
    const double cpu_s = tc_plan_cpu_estimate_ms(a, p->o.n, p->o.threads) / 1000.0;
    const double gpu_s = (double)a->nnz * p->o.n / GPU_PRODUCTS_PER_S;
    const double calls = (double)p->o.calls;
    if (calls <= 1) {
        snprintf(why, len, "a one-off product: the CPU's estimated %.3g s is %s the GPU's fixed "
                 "cost of about %.2g s (CUDA start-up, upload, tuning)", cpu_s,
                 cpu_s < GPU_FIXED_S ? "below" : "above", GPU_FIXED_S);
        return cpu_s < GPU_FIXED_S;
    }
    const double cpu_total = calls * cpu_s, gpu_total = GPU_FIXED_S + calls * gpu_s;
    snprintf(why, len, "%.0f calls: the CPU's estimated %.3g s against the GPU's %.3g s (%.2g s "
             "set-up, %.3g s a product)", calls, cpu_total, gpu_total, GPU_FIXED_S, gpu_s);
    return cpu_total <= gpu_total;
}

tc_status tc_plan_choose_device(tc_plan *p, char *why, size_t whylen, tc_error *err)
{
    why[0] = '\0';
    if (p->o.device == TC_DEVICE_CPU) {
        set_cpu(p);
        return TC_OK;
    }
    if (p->o.device == TC_DEVICE_GPU)
        return open_gpu(p, err);
    /* auto: a forced tensor-core format or variant runs on the GPU only */
    const int gpu_only =
        (p->o.format && !tc_format_is_canonical(tc_format_find(p->o.format))) || p->o.variant;
    if (!gpu_only && cpu_wins(p, p->given, why, whylen)) {
        set_cpu(p);
        return TC_OK;
    }
    tc_error e;
    tc_status st = open_gpu(p, &e);
    if (st == TC_ERR_NODEVICE && !gpu_only) {
        snprintf(why, whylen, "%s", e.msg);
        set_cpu(p);
        return TC_OK;
    }
    if (st == TC_ERR_NODEVICE)
        return tc_error_set(err, TC_ERR_ARG, "the CPU runs the csr format only, with no "
                                             "variants (%s)", e.msg);
    if (st && err)
        *err = e;
    return st;
}
