/*
 * execute.c: running a plan. A GPU plan's kernel multiplies A in the plan's
 * order with ld = n; around it, on the caller's stream: B's rows gathered
 * into the plan's column order (or just packed when ldb > n, or scaled for
 * fp16, precision.c, where the kernel does not scale it itself) and C's
 * rows scattered back to the caller's order (with the inverse scale). A
 * plan with nothing to do around the kernel runs it on the caller's
 * buffers directly. A CPU plan does the same with host arrays.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

tc_status tc_plan_upload_perm(tc_plan *p, const tc_perm *q, int32_t **dev, tc_error *err)
{
    *dev = NULL;
    if (!q)
        return TC_OK;
    const int64_t bytes = (int64_t)q->n * (int64_t)sizeof **dev;
    tc_status st = tc_gpu_alloc(p->gpu, bytes, (void **)dev, err);
    return st ? st : tc_gpu_upload(p->gpu, *dev, q->new2old, bytes, err);
}

/* The plan's precision and tolerance: those of the variant the kernel
   runs (a forced one, or one the planner did not time, is known only
   here). */
static void set_variant_precision(tc_plan *p)
{
    const char *prec = tc_kernel_variant_precision(p->path.kernel, p->kp->variant);
    snprintf(p->info.precision, sizeof p->info.precision, "%s", prec);
    p->info.tolerance = tc_tolerance(prec);
}

const tc_fmt *tc_plan_stored_fmt(const tc_plan *p, const tc_format *f)
{
    for (int i = 0; p->tcf && !tc_format_is_canonical(f) && strcmp(p->path.order, "given") == 0 &&
                    i < p->tcf->nformats; i++)
        if (tc_fmt_format(p->tcf->formats[i]) == f)
            return p->tcf->formats[i];
    return NULL;
}

/* The chosen kernel prepared on p->a with one operand set of scratch. */
tc_status tc_plan_gpu_ready(tc_plan *p, tc_error *err)
{
    const tc_kernel *k = p->path.kernel;
    float *zero = tc_calloc_array((int64_t)p->a->cols * p->o.n, sizeof *zero, err);
    if (!zero)
        return TC_ERR_NOMEM;
    double t0 = tc_plan_now();
    tc_status st = tc_gpu_operands_alloc(p->gpu, zero, p->a->cols, p->a->rows, p->o.n, 0,
                                         &p->ops, err);
    free(zero);
    p->have_ops = !st;
    const tc_format *f = p->path.format;
    const tc_fmt *m = p->path.format_params.n ? NULL : tc_plan_stored_fmt(p, f);
    if (!st && !m && !tc_format_is_canonical(f)) {
        const double tb = tc_plan_now();
        st = tc_fmt_build(f, p->a, &p->path.format_params, &p->fmt, err);
        p->info.build_s += tc_plan_now() - tb;
        t0 += tc_plan_now() - tb;
        m = p->fmt;
    }
    if (!st)
        st = tc_kernel_prepare(k, p->gpu, m, p->a, &p->ops, &p->kp, err);
    const int forced = p->o.variant ? tc_kernel_variant_find(k, p->o.variant) : -1;
    if (!st && (forced >= 0 || p->path.variant >= 0))
        st = tc_kernel_select(p->kp, forced >= 0 ? forced : p->path.variant, err);
    if (!st)
        st = tc_plan_upload_perm(p, p->row, &p->d_row, err);
    if (!st)
        st = tc_plan_upload_perm(p, p->col, &p->d_col, err);
    if (!st)
        set_variant_precision(p);
    tc_plan_set_b_scaling(p);
    if (!st)
        st = tc_plan_set_nonfinite_guard(p, err);
    if (!st && p->b_scale) {
        const float slots[2] = { p->b_measure ? 0 : (float)p->o.b_max_abs, 0 };
        st = tc_gpu_alloc(p->gpu, sizeof slots, (void **)&p->d_max, err);
        if (!st)
            st = tc_gpu_upload(p->gpu, p->d_max, slots, sizeof slots, err);
    }
    p->info.upload_s += tc_plan_now() - t0;
    if (!st) {
        p->path.variant = p->kp->variant;
        snprintf(p->info.variant, sizeof p->info.variant, "%s", k->variant_names[p->kp->variant]);
        /* the NaN/Inf guard may have chosen another variant */
        set_variant_precision(p);
    }
    /* the kernels' messages name their kernel (and variant) already */
    return st;
}

void tc_plan_gpu_release(tc_plan *p)
{
    if (!p->gpu)
        return;
    tc_kernel_free(p->kp);
    tc_fmt_free(p->fmt);
    if (p->have_ops)
        tc_gpu_operands_free(p->gpu, &p->ops);
    tc_gpu_free(p->gpu, p->d_row);
    tc_gpu_free(p->gpu, p->d_col);
    tc_gpu_free(p->gpu, p->d_max);
    tc_gpu_guard_free(p->gpu, p->guard);
    tc_gpu_close(p->gpu);
    p->gpu = NULL;
}

tc_status tc_plan_measure_b(tc_plan *p, float *d, int *next, const float *B, int64_t ldb,
                            float **at, tc_error *err)
{
    tc_status st = tc_gpu_max_abs(p->gpu, B, p->a->cols, p->o.n, ldb, d + *next,
                                  d + (1 - *next), err);
    if (st == TC_OK) {
        *at = d + *next;
        *next = 1 - *next;
    }
    return st;
}

/* C = A*B on the GPU's current stream. */
static tc_status gpu_run(tc_plan *p, const float *B, int64_t ldb, float *C, int64_t ldc,
                         tc_error *err)
{
    const int32_t n = p->o.n;
    /* B scaled into fp16's range by the kernel as it converts B (and C
       back), or through the plan's copies of B and C */
    float *max = p->d_max;
    tc_status st = p->b_measure ? tc_plan_measure_b(p, p->d_max, &p->max_next, B, ldb, &max, err)
                                : TC_OK;
    const int in_kernel = p->b_scale && tc_kernel_scales_b(p->kp->kind, p->kp->variant);
    const float *copy_scale = p->b_scale && !in_kernel ? max : NULL;
    /* the kernels read B and write C in 16-byte pieces where n allows
       (rstile, brp); a caller's pointer into the middle of an array need
       not be aligned so: such operands go through the plan's own */
    const int b_moves = p->d_col || ldb != n || copy_scale || (uintptr_t)B % 16;
    const int c_moves = p->d_row || ldc != n || copy_scale || (uintptr_t)C % 16;
    const float *kb = b_moves ? p->ops.B[0] : B;
    float *kc = c_moves ? p->ops.C[0] : C;
    if (!st && b_moves)
        st = tc_gpu_gather_rows(p->gpu, B, ldb, p->d_col, p->a->cols, n, copy_scale,
                                p->ops.B[0], n, err);
    p->kp->b_max = in_kernel ? max : NULL;
    if (!st)
        st = p->kp->kind->run(p->kp, kb, kc, err);
    p->kp->b_max = NULL;
    if (!st && p->guard)
        st = tc_gpu_guard_run(p->gpu, p->guard, kb, n, p->b_measure ? max : NULL, kc, err);
    if (!st && c_moves)
        st = tc_gpu_scatter_rows(p->gpu, kc, n, p->d_row, p->a->rows, n, copy_scale, C, ldc,
                                 err);
    return st;
}

tc_status tc_plan_execute_gpu(tc_plan *p, const float *B, int64_t ldb, float *C, int64_t ldc,
                              void *stream, tc_error *err)
{
    void *own = NULL;
    tc_status st = tc_gpu_set_stream(p->gpu, stream, &own, err);
    if (st)
        return st;
    st = gpu_run(p, B, ldb, C, ldc, err);
    tc_error e2;
    const tc_status back = tc_gpu_set_stream(p->gpu, own, NULL, &e2);
    if (!st && back && err)
        *err = e2;
    return st ? st : back;
}

/* The CPU: B's rows into the plan's column order, C's back. */
tc_status tc_plan_execute_cpu(tc_plan *p, const float *B, int64_t ldb, float *C, int64_t ldc,
                              tc_error *err)
{
    const int32_t n = p->o.n;
    const tc_csr *a = p->a;
    float *pb = NULL, *pc = NULL;
    if (p->col && !(pb = tc_malloc_array((int64_t)a->cols * n, sizeof *pb, err)))
        return TC_ERR_NOMEM;
    if (p->row && !(pc = tc_malloc_array((int64_t)a->rows * n, sizeof *pc, err))) {
        free(pb);
        return TC_ERR_NOMEM;
    }
    for (int32_t j = 0; pb && j < a->cols; j++)
        memcpy(pb + (int64_t)j * n, B + (int64_t)p->col->new2old[j] * ldb, (size_t)n * sizeof *pb);
    /* the float32 copy of A's values is made once, on the first product */
    tc_status st = p->cpu_op ? TC_OK : tc_spmm_cpu_prepare(a, &p->cpu_op, err);
    if (!st)
        st = tc_spmm_cpu_run(p->cpu_op, pb ? pb : B, pb ? n : ldb, n, pc ? pc : C, pc ? n : ldc,
                             p->o.threads, err);
    for (int32_t i = 0; !st && pc && i < a->rows; i++)
        memcpy(C + (int64_t)p->row->new2old[i] * ldc, pc + (int64_t)i * n, (size_t)n * sizeof *pc);
    free(pb);
    free(pc);
    return st;
}

/* Bytes of a rows x n array with leading dimension ld (the last row's
   padding need not exist). */
static int64_t span_bytes(int64_t rows, int32_t n, int64_t ld)
{
    return rows ? ((rows - 1) * ld + n) * (int64_t)sizeof(float) : 0;
}

tc_status tc_plan_execute_host(tc_plan *p, const float *B, int64_t ldb, float *C, int64_t ldc,
                               tc_error *err)
{
    if (p->attn || p->info.device == TC_DEVICE_CPU || ldb < p->o.n || ldc < p->o.n)
        return tc_plan_execute(p, B, ldb, C, ldc, NULL, err);
    const int32_t n = p->o.n;
    const int64_t bb = span_bytes(p->a->cols, n, ldb), cb = span_bytes(p->a->rows, n, n);
    /* C comes back packed: the caller's padding columns are left alone */
    float *packed = ldc == n ? C : tc_malloc_array((int64_t)p->a->rows * n, sizeof *packed, err);
    if (!packed)
        return TC_ERR_NOMEM;
    float *dB = NULL, *dC = NULL;
    tc_status st = tc_gpu_alloc(p->gpu, bb, (void **)&dB, err);
    if (!st)
        st = tc_gpu_alloc(p->gpu, cb, (void **)&dC, err);
    if (!st)
        st = tc_gpu_upload(p->gpu, dB, B, bb, err);
    /* on the plan's own stream, which the download below waits for */
    if (!st)
        st = gpu_run(p, dB, ldb, dC, n, err);
    if (!st)
        st = tc_gpu_download(p->gpu, packed, dC, cb, err);
    for (int32_t i = 0; !st && packed != C && i < p->a->rows; i++)
        memcpy(C + (int64_t)i * ldc, packed + (int64_t)i * n, (size_t)n * sizeof *C);
    if (packed != C)
        free(packed);
    tc_gpu_free(p->gpu, dB);
    tc_gpu_free(p->gpu, dC);
    return st;
}
