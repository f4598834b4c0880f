/*
 * divisor.h: division of 32-bit unsigned integers by a divisor fixed for a
 * whole launch, as a multiply-high, an add and a shift (Granlund and
 * Montgomery, "Division by invariant integers using multiplication", PLDI
 * 1994, Section 4), the magic number computed once on the host.
 *
 * Why: a GPU has no integer divide instruction; n / d and n % d compile to
 * a subroutine of about a dozen dependent instructions (a reciprocal, a
 * conversion, corrections). A thread block that finds its work by dividing
 * its index waits on that before its first load, which on small matrices,
 * where a launch is one short chain of loads, is a visible share of the
 * run (bench/NOTES.md, step 19).
 *
 * C and CUDA: the host computes and tests the divisor (tests/t_divisor.c),
 * the kernels use it.
 */
#ifndef TC_DIVISOR_H
#define TC_DIVISOR_H

#include <stdint.h>

#ifdef __CUDACC__
#define TC_DIVISOR_FN static __host__ __device__ __forceinline__
#else
#define TC_DIVISOR_FN static inline
#endif

/* d (>= 1), its magic multiplier m and shift s: with s = ceil(log2 d) and
   m = floor(2^32 (2^s - d) / d) + 1 (under 2^32, since 2^s - d < d),
   n / d = (mulhi(n, m) + n) >> s for every 32-bit n (the sum taken in 64
   bits). */
typedef struct tc_divisor {
    uint32_t d, m, s;
} tc_divisor;

/* The divisor of d; d must be at least 1. */
TC_DIVISOR_FN tc_divisor tc_divisor_of(uint32_t d)
{
    tc_divisor v;
    uint32_t s = 0;
    while (((uint64_t)1 << s) < d)
        s++;
    v.d = d;
    v.s = s;
    v.m = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << s) - d)) / d + 1);
    return v;
}

/* n / v.d */
TC_DIVISOR_FN uint32_t tc_div(uint32_t n, tc_divisor v)
{
#ifdef __CUDA_ARCH__
    const uint32_t hi = __umulhi(n, v.m);
#else
    const uint32_t hi = (uint32_t)(((uint64_t)n * v.m) >> 32);
#endif
    return (uint32_t)(((uint64_t)hi + n) >> v.s);
}

/* n % v.d, given q = n / v.d */
TC_DIVISOR_FN uint32_t tc_mod(uint32_t n, uint32_t q, tc_divisor v)
{
    return n - q * v.d;
}

#undef TC_DIVISOR_FN
#endif
