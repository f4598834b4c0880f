/*
 * precision.c: a plan never returns a silently wrong C because of fp16.
 *
 * A: the fp16 kernels divide each row of A by a power of two that brings
 * its largest magnitude into [2^14, 2^15) (kernels/fp16.cu, tc_half_scale),
 * so no value of A overflows fp16. A value more than 2^38 below its row's
 * largest falls below fp16's subnormals and is lost, but what it would add
 * is below fp16's rounding of that row's largest term (the kernels' error
 * bound is relative to |A||B|), so A never rules the fp16 paths out
 * (bcsstk13's rows span 2^40 and pass --verify on every fp16 kernel).
 *
 * B: the fp16 kernels round B as it is, so a B past 65504 becomes Inf and
 * one below 2^-14 loses its precision. Unless the caller states max|B|
 * (opts.b_max_abs) within that range, each execute measures max|B| on the
 * device and B is multiplied by the power of two of lib/fp16_scale.h into
 * a scratch buffer, C by its inverse: exact. A variant that converts B to
 * fp16 itself may take the scale instead (kernels.h, variant_scales_b:
 * rowsplit's fp16 variants, rstile's tc, tc-fly and tc-f32, bcsr's tc),
 * and then only max|B| is measured around it.
 *
 * NaN and Inf: some variants multiply padding zeros by B's rows, so a NaN or
 * Inf of B reaches C rows that do not use it (kernels.h,
 * variant_spreads_nonfinite). A caller who says B holds one (b_max_abs NaN
 * or infinite) gets a plan tuned without those variants (an untimed plan:
 * the first of them); one who says nothing gets the fastest, and each
 * execute runs, after the variant, the guard of kernels/nonfinite.cu: one
 * launch that measures max|B| and redoes C from A's CSR when it is not
 * finite, so that no execute waits for the host. The price is A's CSR kept
 * on the device too.
 */
#include <config.h>

#include <math.h>
#include <string.h>

#include "fp16_scale.h"
#include "plan_internal.h"

/* TC_SAFE_MEASURE and TC_SAFE_SCALE for a kernel of this precision. */
static int scaling(const char *precision, double given)
{
    if (strcmp(precision, "fp16") != 0 || (given > 0 && tc_fp16_b_exponent(given) == 0))
        return 0;
    return TC_SAFE_SCALE | (given > 0 ? 0 : TC_SAFE_MEASURE);
}

void tc_plan_set_b_scaling(tc_plan *p)
{
    const int s = scaling(p->info.precision, p->o.b_max_abs);
    p->b_scale = (s & TC_SAFE_SCALE) != 0;
    p->b_measure = (s & TC_SAFE_MEASURE) != 0;
    p->info.b_scaled = p->b_scale;
}

int tc_plan_b_finite(const tc_plan *p)
{
    return !isnan(p->o.b_max_abs) && !isinf(p->o.b_max_abs);
}

static int spreads(const tc_kernel *k, int v)
{
    return k->variant_spreads_nonfinite && k->variant_spreads_nonfinite[v];
}

/* 1 when variant v of k spreads NaN/Inf and the options leave B's range
   open (not stated, not a forced variant, which runs as it is). */
static int range_open(const tc_plan *p, const tc_kernel *k, int v)
{
    const double given = p->o.b_max_abs;
    return spreads(k, v) && !(given > 0 && isfinite(given)) && !p->o.variant;
}

int tc_plan_safeguards(const tc_plan *p, const tc_kernel *k, int v)
{
    const int s = scaling(tc_kernel_variant_precision(k, v), p->o.b_max_abs);
    /* a variant that scales B itself needs no scaled copies around it */
    return (tc_kernel_scales_b(k, v) ? s & ~TC_SAFE_SCALE : s) |
           (range_open(p, k, v) && tc_plan_b_finite(p) ? TC_SAFE_GUARD : 0);
}

tc_status tc_plan_set_nonfinite_guard(tc_plan *p, tc_error *err)
{
    const tc_kernel *k = p->path.kernel;
    if (!range_open(p, k, p->kp->variant))
        return TC_OK;
    if (tc_plan_b_finite(p))
        return tc_gpu_guard_new(p->gpu, p->a, &p->guard, err);
    int best = -1;
    const double *ms = p->variant_ms, *host = p->variant_host_ms;
    for (int i = 0; i < k->nvariants; i++)
        if (!spreads(k, i) && ms[i] != TC_VARIANT_UNSUPPORTED && ms[i] != TC_VARIANT_INEXACT &&
            (best < 0 || (ms[i] >= 0 && (ms[best] < 0 || tc_loop_ms(ms[i], host[i]) <
                                                             tc_loop_ms(ms[best], host[best])))))
            best = i;
    if (best < 0)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "%s: every variant spreads a NaN or Inf of B to other rows",
                            k->format);
    return tc_kernel_select(p->kp, best, err);
}
