/*
 * fp16_scale.h: the power of two that brings B into fp16's range, shared by
 * the planner (C) and the device code that scales B and C (kernels/
 * permute.cu's copies, fp16.cu's conversion, and the kernels that scale B
 * themselves, kernels.h's variant_scales_b), so all choose the same
 * exponent. It lives in
 * lib/, below both layers.
 *
 * fp16 holds magnitudes from 2^-14 (normal; subnormals to 2^-24) to 65504.
 * A B whose largest magnitude lies outside that range is multiplied by 2^s
 * so that its largest magnitude lies in [2^14, 2^15), the top binade below
 * 65504 (the same target as the fp16 kernels' per-row scaling of A,
 * tc_half_scale); C is multiplied by 2^-s afterwards. Both are exact in
 * float32 (ldexpf) unless C itself over- or underflows float32.
 */
#ifndef TC_FP16_SCALE_H
#define TC_FP16_SCALE_H

#include <math.h>

#ifdef __CUDACC__
#define TC_HD __host__ __device__
#else
#define TC_HD
#endif

#define TC_FP16_MAX 65504.0
#define TC_FP16_MIN_NORMAL 6.103515625e-05  /* 2^-14 */

/* s for a B whose largest magnitude is x: 0 when x is 0, not finite, or
   already within [2^-14, 65504]. */
TC_HD static inline int tc_fp16_b_exponent(double x)
{
    if (!(x > 0) || isinf(x) || (x >= TC_FP16_MIN_NORMAL && x <= TC_FP16_MAX))
        return 0;
    int e;
    frexp(x, &e);       /* x = m 2^e, m in [0.5, 1) */
    return 15 - e;      /* x 2^(15-e) = m 2^15, in [2^14, 2^15) */
}

#ifdef __CUDACC__
/* s for the largest magnitude the device holds at maxabs (measured by
   tc_gpu_max_abs or given), 0 without one (maxabs NULL). */
__device__ static inline int tc_fp16_b_exponent_at(const float *maxabs)
{
    return maxabs ? tc_fp16_b_exponent((double)*maxabs) : 0;
}

/* Two factors whose product is 2^s, s for the max|B| at maxabs (NULL: 1
   and 1), for the kernels that scale B as they round it in their walks:
   (x * f.x) * f.y is ldexpf(x, s) for every element x of that B (s up to
   127 in f.x, which holds it, f.y 1: one rounding, as ldexpf's; past 127,
   where |x| <= max|B| < 2^-112, both scale up and neither overflows nor
   rounds): two multiplies an element instead of a call of ldexpf. */
__device__ static inline float2 tc_fp16_scale_factors(const float *maxabs)
{
    const int s = tc_fp16_b_exponent_at(maxabs);
    const int s1 = s < 127 ? s : 127;
    return make_float2(ldexpf(1.0f, s1), ldexpf(1.0f, s - s1));
}

/* x times the factors f (tc_fp16_scale_factors): ldexpf(x, s). */
__device__ static inline float tc_fp16_scale(float x, float2 f)
{
    return x * f.x * f.y;
}

/* The COUNT sums at x of a product with B16 = B times 2^s (s for the
   max|B| at maxabs), brought back to C's scale: times 2^-s, exact but for
   C's own over- or underflow. For the kernels that scale B themselves
   (kernels.h, variant_scales_b). */
template <int COUNT>
__device__ static inline void tc_fp16_unscale_c(float *x, const float *maxabs)
{
    const int e = -tc_fp16_b_exponent_at(maxabs);
#pragma unroll
    for (int j = 0; j < COUNT; j++)
        x[j] = ldexpf(x[j], e);
}
#endif

#endif
