/* t_gpuload: the GPU side through libtcsparse's trampolines (plan/gpuload.c,
   plan/gpucalls.c, plan/kernelcalls.c). With CUDA, the GPU library loads
   (beside libtcsparse in the build tree; no driver needed to load it) and
   its kernels are the format registry's: tc_kernel_at in registry order,
   tc_kernel_for(format i) the entry's kernel, cuSPARSE the csr format's,
   cuBLAS no format's; several threads asking at once all get the one
   table. Without CUDA, every call that needs the GPU fails with
   TC_ERR_NODEVICE and says so, the lookups find nothing, and the
   functions that free do nothing. With CUDA, too: every variant's
   precision is known and no more exact than its kernel's. */
#include "config.h"
#include <pthread.h>
#include <string.h>
#include "tcsparse.h"
#include "kernels.h"
#include "tap.h"

#define THREADS 8

static void *count_kernels(void *arg)
{
    *(int *)arg = tc_kernel_count();
    return NULL;
}

/* tc_kernel_count from THREADS threads started together, before anything
   else of the GPU side ran: one of them loads, the others wait for it
   (pthread_once) and see the same table. The count they agree on, else -1. */
static int concurrent_counts(void)
{
    pthread_t t[THREADS];
    int got[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, count_kernels, &got[i]);
    int same = 1;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        same &= got[i] == got[0];
    }
    return same ? got[0] : -1;
}

#ifdef HAVE_CUDA
static void registry_kernels(int counted)
{
    int with_kernel = 0, in_order = 1, named = 1;
    for (int i = 0; i < tc_format_count(); i++) {
        const tc_format *f = tc_format_at(i);
        const tc_kernel *k = tc_kernel_for(f);
        if (!k)
            continue;
        named &= strcmp(k->format, tc_format_name(f)) == 0 &&
                 tc_kernel_find(tc_format_name(f)) == k;
        in_order &= tc_kernel_at(with_kernel) == k;
        with_kernel++;
    }
    ok(with_kernel > 1, "%d formats of %d have a kernel", with_kernel, tc_format_count());
    is_int(tc_kernel_count(), with_kernel, "tc_kernel_count counts them");
    ok(in_order, "tc_kernel_at lists them in format registry order");
    ok(named, "each format's kernel multiplies that format, and tc_kernel_find finds it");
    ok(tc_kernel_at(with_kernel) == NULL && tc_kernel_at(-1) == NULL,
       "tc_kernel_at past either end: NULL");
    ok(tc_kernel_baseline() && tc_kernel_baseline() == tc_kernel_find("csr"),
       "cuSPARSE is the csr format's kernel");
    const tc_kernel *dense = tc_kernel_dense();
    int a_format = 0;
    for (int i = 0; dense && i < tc_kernel_count(); i++)
        a_format |= tc_kernel_at(i) == dense;
    ok(dense && !a_format, "cuBLAS is reachable and is no format's kernel");
    ok(tc_kernel_find("nosuch") == NULL && tc_kernel_for(NULL) == NULL,
       "no kernel for an unknown format");
    is_int(counted, with_kernel, "threads loading at once all counted them");
    /* precision per variant: each a known one, none more exact than its
       kernel's (which --accuracy filters kernels by); rowsplit's half fp16
       under an fp32 kernel */
    int known = 1, bounded = 1;
    for (int i = 0; i < tc_kernel_count(); i++) {
        const tc_kernel *k = tc_kernel_at(i);
        for (int v = 0; v < k->nvariants; v++) {
            const char *prec = tc_kernel_variant_precision(k, v);
            known &= tc_tolerance(prec) > 0;
            bounded &= tc_precision_meets(k->precision, prec);
        }
    }
    ok(known && bounded, "every variant's precision is known and no more exact than its "
       "kernel's");
    const tc_kernel *rs = tc_kernel_find("rowsplit");
    const int half = rs ? tc_kernel_variant_find(rs, "half") : -1,
              lock = rs ? tc_kernel_variant_find(rs, "lockstep-half") : -1;
    ok(rs && strcmp(rs->precision, "fp32") == 0 && half == rs->nvariants - 2 &&
           lock == rs->nvariants - 1 &&
           strcmp(tc_kernel_variant_precision(rs, half), "fp16") == 0 &&
           strcmp(tc_kernel_variant_precision(rs, lock), "fp16") == 0 &&
           strcmp(tc_kernel_variant_precision(rs, 0), "fp32") == 0 &&
           strcmp(tc_kernel_variant_precision(rs, -1), "fp32") == 0,
       "rowsplit: fp32, its last variants half and lockstep-half fp16 (an untimed plan runs an "
       "fp32 one), a variant out of range the kernel's");
}
#else
static void nothing_loaded(int counted)
{
    const char *why = "no CUDA device: tcsparse was built without CUDA";
    tc_error err;
    tc_gpu *g = (tc_gpu *)&err;
    tc_status st = tc_gpu_open(0, &g, &err);
    ok(st == TC_ERR_NODEVICE && g == NULL, "tc_gpu_open: TC_ERR_NODEVICE, no device");
    is_str(err.msg, why, "  and why");
    tc_gpu_info *list = (tc_gpu_info *)&err;
    int n = -1;
    st = tc_gpu_list(&list, &n, &err);
    ok(st == TC_ERR_NODEVICE && list == NULL && n == 0, "tc_gpu_list: none, TC_ERR_NODEVICE");
    tc_kplan *p = (tc_kplan *)&err;
    st = tc_kernel_prepare(NULL, NULL, NULL, NULL, NULL, &p, &err);
    ok(st == TC_ERR_NODEVICE && p == NULL, "tc_kernel_prepare: TC_ERR_NODEVICE");
    tc_attn *at = (tc_attn *)&err;
    st = tc_attn_prepare(NULL, NULL, NULL, 16, 1, 1, 1, &at, &err);
    ok(st == TC_ERR_NODEVICE && at == NULL, "tc_attn_prepare: TC_ERR_NODEVICE");
    ok(tc_kernel_count() == 0 && tc_kernel_at(0) == NULL && tc_kernel_find("csr") == NULL &&
           tc_kernel_baseline() == NULL && tc_kernel_dense() == NULL,
       "no kernels, no cuSPARSE, no cuBLAS");
    /* Given objects no GPU library made, the freeing calls must not touch
       them: nothing was loaded that could have made one. */
    tc_gpu_close((tc_gpu *)&err);
    tc_gpu_free((tc_gpu *)&err, &err);
    tc_kernel_free((tc_kplan *)&err);
    tc_attn_free((tc_attn *)&err);
    ok(tc_gpu_get_info((tc_gpu *)&err) == NULL && tc_attn_width((tc_attn *)&err) == 0,
       "the functions that free or read do nothing");
    is_int(counted, 0, "threads asking at once all counted no kernel");
}
#endif

int main(void)
{
    int counted = concurrent_counts();
#ifdef HAVE_CUDA
    registry_kernels(counted);
#else
    nothing_loaded(counted);
#endif
    return done_testing();
}
