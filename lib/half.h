/*
 * half.h: IEEE binary16 (fp16) on the host, for the re-layouts that put a
 * matrix's values in the form the fp16 kernels read (formats/rstile_layout.c)
 * and for their tests. Plain C, so that the CPU tests and fuzzers reach
 * the conversions the GPU side relies on.
 */
#ifndef TC_HALF_H
#define TC_HALF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x rounded to the nearest binary16, ties to even, as the bits CUDA's
   __float2half_rn gives: past the largest half (65504) by half a step or
   more, an infinity of x's sign; a NaN, 0x7fff. */
uint16_t tc_half_from_float(float x);
/* The binary16 bits h as a float (exact: every half is a float). */
float tc_half_to_float(uint16_t h);

/* fp16 holds magnitudes up to 65504, far less than many matrices' values
   (stiffness matrices reach 1e10), so the fp16 kernels store each row of A
   divided by tc_half_scale(its largest magnitude): the power of two 2^e
   with 2^14 <= x / 2^e < 2^15 (1 for 0 or a non-finite x), and multiply
   the row's sums back, exactly. */
double tc_half_scale(double x);

#ifdef __cplusplus
}
#endif

#endif
