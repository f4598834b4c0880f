/*
 * half.c: binary16 on the host (half.h), by integer arithmetic on the
 * float's bits so that the result does not depend on the compiler's or the
 * CPU's support for _Float16.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "half.h"

#define F32_INF 0x7f800000u
#define F32_HALF_OVERFLOW 0x477ff000u   /* 65520 = 65504 + half a step: rounds to Inf */
#define F32_HALF_MIN_NORMAL 0x38800000u /* 2^-14 */
#define F32_HALF_ZERO_BELOW 0x33000001u /* just above 2^-25 (a tie, to even 0) */
#define HALF_INF 0x7c00u
#define HALF_NAN 0x7fffu

/* q >> shift rounded to nearest, ties to even (1 <= shift <= 31). */
static uint32_t shift_round(uint32_t q, unsigned shift)
{
    const uint32_t kept = q >> shift, rest = q & ((1u << shift) - 1), half = 1u << (shift - 1);
    return kept + (rest > half || (rest == half && (kept & 1)));
}

uint16_t tc_half_from_float(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    const uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a > F32_INF)
        return HALF_NAN;
    if (a >= F32_HALF_OVERFLOW)
        return (uint16_t)(sign | HALF_INF);
    if (a >= F32_HALF_MIN_NORMAL)
        /* rebias the exponent (127 -> 15) and drop 13 mantissa bits; a
           carry out of the mantissa goes into the exponent, as it must */
        return (uint16_t)(sign | shift_round(a - ((127u - 15u) << 23), 13));
    if (a < F32_HALF_ZERO_BELOW)
        return (uint16_t)sign;
    /* subnormal half: the value in units of 2^-24 is the full mantissa
       (with its implicit bit) times 2^(e + 1), e = 2^-25 .. 2^-15's exponent */
    const int e = (int)(a >> 23) - 127;
    return (uint16_t)(sign | shift_round((a & 0x7fffffu) | 0x800000u, (unsigned)(-(e + 1))));
}

float tc_half_to_float(uint16_t h)
{
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0x1f)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexpf((float)m, -24);
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return h & 0x8000 ? -v : v;
}

double tc_half_scale(double x)
{
    if (!(x > 0) || !isfinite(x))
        return 1.0;
    int e;
    frexp(x, &e);               /* x = f 2^e, 0.5 <= f < 1 */
    return ldexp(1.0, e - 15);
}
