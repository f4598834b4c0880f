/*
 * rowaddr.cuh: where row r of a row-major operand starts, for the kernels
 * that gather rows of B (and store rows of C) by index.
 *
 * Written in C, `B + (int64_t)r * n` with a 32-bit n becomes, once nvcc
 * has hoisted the widening of n out of a loop, a 64 x 64-bit multiply per
 * row: SHF, three IMADs and the carries, seven SASS instructions where one
 * mul.wide.s32 does (the SASS of rowsplit's float4 kernel, bench/NOTES.md,
 * "rowsplit": 19% of its instructions). tc_row_elems is that one
 * instruction, for every gather of a row whose index and row length are
 * 32-bit.
 */
#ifndef TC_ROWADDR_CUH
#define TC_ROWADDR_CUH

#include <stdint.h>

/* r * ld as 64 bits, from two 32-bit factors (mul.wide.s32). */
static __device__ __forceinline__ int64_t tc_row_elems(int32_t r, int32_t ld)
{
    int64_t e;
    asm("mul.wide.s32 %0, %1, %2;" : "=l"(e) : "r"(r), "r"(ld));
    return e;
}

#endif
