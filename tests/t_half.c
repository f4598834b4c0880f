/* t_half: binary16 on the host (lib/half.h). Every one of the 65,536 bit
   patterns goes to a float and back unchanged (NaNs to 0x7fff); every
   point halfway between two neighbouring finite halves rounds to the
   even one, and a float step either side of it to the nearer; the edges:
   overflow at 65520, zero below 2^-25, signed zeros and infinities; and
   tc_half_scale's power of two for a row's largest magnitude. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include "tcsparse.h"
#include "half.h"
#include "tap.h"

static int is_nan_bits(unsigned h)
{
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

static void check_round_trip(void)
{
    int bad = 0;
    for (unsigned h = 0; h < 0x10000; h++) {
        const uint16_t back = tc_half_from_float(tc_half_to_float((uint16_t)h));
        bad += back != (is_nan_bits(h) ? 0x7fff : h);
    }
    ok(bad == 0, "every half goes to a float and back unchanged (%d differ)", bad);
}

/* Between the positive finite halves h and h + 1 (same sign, so the next
   magnitude): the midpoint goes to the even one, a float step below it to
   h, above it to h + 1. */
static void check_midpoints(void)
{
    int bad = 0;
    for (unsigned h = 0; h < 0x7bff; h++) {
        const float lo = tc_half_to_float((uint16_t)h), hi = tc_half_to_float((uint16_t)(h + 1));
        const float mid = (float)(((double)lo + hi) / 2);
        const unsigned even = h & 1 ? h + 1 : h;
        bad += tc_half_from_float(mid) != even;
        bad += tc_half_from_float(nextafterf(mid, 0)) != h;
        bad += tc_half_from_float(nextafterf(mid, INFINITY)) != h + 1;
        bad += tc_half_from_float(-mid) != (even | 0x8000);
    }
    ok(bad == 0, "halfway points round to even, the floats beside them to the nearer (%d wrong)",
       bad);
}

static void check_edges(void)
{
    ok(tc_half_from_float(65504.0f) == 0x7bff, "65504 is the largest half");
    ok(tc_half_from_float(nextafterf(65520.0f, 0)) == 0x7bff, "just below 65520: 65504");
    ok(tc_half_from_float(65520.0f) == 0x7c00, "65520 rounds to infinity");
    ok(tc_half_from_float(-1e30f) == 0xfc00, "a large negative float: minus infinity");
    ok(tc_half_from_float(INFINITY) == 0x7c00 && tc_half_from_float(-INFINITY) == 0xfc00,
       "infinities keep their sign");
    ok(tc_half_from_float(NAN) == 0x7fff && tc_half_from_float(-NAN) == 0x7fff,
       "a NaN is 0x7fff");
    ok(tc_half_from_float(-0.0f) == 0x8000 && tc_half_from_float(0.0f) == 0,
       "zeros keep their sign");
    ok(tc_half_from_float(0x1p-25f) == 0, "2^-25 ties to zero");
    ok(tc_half_from_float(nextafterf(0x1p-25f, 1)) == 1, "above 2^-25: the smallest half");
    ok(tc_half_from_float(0x1p-14f) == 0x0400, "2^-14: the smallest normal half");
    ok(tc_half_from_float(nextafterf(0x1p-14f, 0)) == 0x0400,
       "just below 2^-14 rounds up into the normals");
    ok(tc_half_to_float(0x3c00) == 1.0f && tc_half_to_float(0xc000) == -2.0f &&
       tc_half_to_float(0x0001) == 0x1p-24f, "1, -2 and the smallest subnormal decode");
}

static void check_scale(void)
{
    ok(tc_half_scale(1e10) == 0x1p19, "1e10 (2^33.2) is scaled by 2^19 into [2^14, 2^15)");
    ok(tc_half_scale(0x1p14) == 1 && tc_half_scale(0x1p15) == 2,
       "2^14 stays, 2^15 is halved");
    ok(tc_half_scale(3e-9) == 0x1p-43, "3e-9 is scaled up by 2^43");
    ok(tc_half_scale(0) == 1 && tc_half_scale(INFINITY) == 1 && tc_half_scale(NAN) == 1,
       "0, Inf and NaN get 1");
}

int main(void)
{
    check_round_trip();
    check_midpoints();
    check_edges();
    check_scale();
    return done_testing();
}
