/* t_divisor: kernels/divisor.h's division by an invariant divisor equals
   the hardware's / and % for divisors and dividends at every edge (powers
   of two and their neighbours, the largest 32-bit values) and at random. */
#include "config.h"
#include "divisor.h"
#include "tap.h"

/* Whether tc_div and tc_mod agree with / and % for d and n. */
static int agrees(uint32_t d, uint32_t n)
{
    const tc_divisor v = tc_divisor_of(d);
    const uint32_t q = tc_div(n, v);
    return q == n / d && tc_mod(n, q, v) == n % d;
}

/* 1 if they disagree for d and some n at the edges (the first such n in
   *bad_n), else 0. */
static int edge_failure(uint32_t d, uint32_t *bad_n)
{
    const uint32_t big = UINT32_MAX;
    const uint32_t ns[] = { 0, 1, 2, d - 1, d, d + 1, 2 * d - 1, 2 * d, big, big - 1,
                            big - d, big / d * d, big / d * d - 1, 1u << 31, (1u << 31) - 1,
                            (1u << 31) + 1 };
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        if (!agrees(d, ns[i])) {
            *bad_n = ns[i];
            return 1;
        }
    return 0;
}

static void report(int failed, uint32_t d, uint32_t n, const char *what)
{
    ok(!failed, "%s", what);
    if (failed)
        diag("first disagreement: d = %" PRIu32 ", n = %" PRIu32, d, n);
}

int main(void)
{
    uint32_t bad_n = 0, bad_d = 0;
    int failed = 0;

    /* every divisor up to 2^16, each at its edges and at 64 random n */
    for (uint32_t d = 1; d <= 1u << 16 && !failed; d++) {
        failed = edge_failure(d, &bad_n);
        for (int k = 0; k < 64 && !failed; k++) {
            const uint32_t n = (uint32_t)tap_rand64();
            if (!agrees(d, n)) {
                failed = 1;
                bad_n = n;
            }
        }
        bad_d = d;
    }
    report(failed, bad_d, bad_n, "d = 1 .. 65536: n / d and n % d exact");

    /* every power of two and its two neighbours, up to 2^32 - 1 */
    failed = 0;
    for (int e = 1; e < 32 && !failed; e++)
        for (int64_t off = -1; off <= 1 && !failed; off++) {
            bad_d = (uint32_t)(((int64_t)1 << e) + off);
            failed = edge_failure(bad_d, &bad_n);
        }
    if (!failed) {
        bad_d = UINT32_MAX;
        failed = edge_failure(bad_d, &bad_n);
    }
    report(failed, bad_d, bad_n, "2^e - 1, 2^e, 2^e + 1 and 2^32 - 1 as divisors: exact");

    /* a million random divisors and dividends, divisors of every size */
    failed = 0;
    for (int k = 0; k < 1000000 && !failed; k++) {
        const uint64_t r = tap_rand64();
        const uint32_t d = (uint32_t)(r >> 32) >> (r % 32);
        bad_d = d ? d : 1;
        bad_n = (uint32_t)tap_rand64();
        failed = !agrees(bad_d, bad_n);
    }
    report(failed, bad_d, bad_n, "a million random divisors and dividends: exact");

    const tc_divisor one = tc_divisor_of(1);
    ok(one.s == 0 && tc_div(UINT32_MAX, one) == UINT32_MAX, "d = 1: no shift, n / 1 = n");
    const tc_divisor p = tc_divisor_of(1u << 20);
    ok(p.s == 20 && p.m == 1, "d = 2^20: shift 20, multiplier 1 (a plain shift)");
    return done_testing();
}
