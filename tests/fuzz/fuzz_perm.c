/*
 * fuzz_perm.c: libFuzzer target for the permutation-file parser
 * (lib/perm.c). The input is the file itself, read from memory by
 * tc_perm_read_mem (the same parser as tc_perm_read). It is read with any
 * length accepted and, when that gives a permutation of n entries, again
 * with n expected in the other convention and with n - 1 and n + 1
 * expected (both must be refused).
 *
 * What must hold: an accepted permutation is a bijection whose two
 * directions are each other's inverse, and a refusal names the input
 * ("fuzz.perm:...").
 */
#include "config.h"

#include "tcsparse.h"
#include "fuzz.h"

#define NAME "fuzz.perm"

static void check_bijection(const tc_perm *p)
{
    for (int32_t i = 0; i < p->n; i++) {
        int32_t j = p->new2old[i];
        if (j < 0 || j >= p->n || p->old2new[j] != i)
            fuzz_fail("entry %d: new2old %d is not inverted by old2new", i, j);
    }
}

/* Reads with n_expected; 1 when accepted (*n set), 0 when refused. */
static int read_as(const uint8_t *data, size_t size, int32_t n_expected,
                   tc_perm_convention conv, int32_t *n)
{
    tc_perm *p;
    tc_error err;
    if (tc_perm_read_mem(data, size, NAME, n_expected, conv, &p, &err) != TC_OK) {
        fuzz_check_message(err.msg, NAME);
        return 0;
    }
    check_bijection(p);
    if (n_expected >= 0 && p->n != n_expected)
        fuzz_fail("%d entries read, %d expected", p->n, n_expected);
    *n = p->n;
    tc_perm_free(p);
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t n, m;
    if (!read_as(data, size, -1, TC_PERM_NEW2OLD, &n))
        return 0;
    if (!read_as(data, size, n, TC_PERM_OLD2NEW, &m))
        fuzz_fail("refused with its own length %d expected", n);
    if (n > 0 && read_as(data, size, n - 1, TC_PERM_NEW2OLD, &m))
        fuzz_fail("%d entries accepted where %d were expected", n, n - 1);
    if (read_as(data, size, n + 1, TC_PERM_NEW2OLD, &m))
        fuzz_fail("%d entries accepted where %d were expected", n, n + 1);
    return 0;
}
