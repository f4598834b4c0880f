/* t_tcbsort: the `tcbsort` reordering (Fused3S, seed 003 Section 3.2).
   On a hand example, the exact order; on awkward shapes and the real
   matrices of $TC_SHARED_DATA: a permutation that moves whole 16-row
   windows, rows in order inside each, the partial last window last; the
   reordered matrix's windows with non-increasing TC block counts and the
   same blocks in all; ties in window order; the same order for any thread
   count. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "bsb.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"

static const tc_reorder_method *TCBSORT;

static tc_perm *order_of(const tc_csr *a)
{
    tc_perm *p;
    tc_error err;
    if (tc_reorder_run(TCBSORT, a, NULL, &p, NULL, &err))
        bail(err.msg);
    return p;
}

/* tro of a (bsb's count). */
static int64_t *tro_of(const tc_csr *a)
{
    int64_t *tro = malloc(sizeof *tro * (size_t)((a->rows + 15) / 16 + 1));
    tc_error err;
    if (tc_bsb_count_tro(a, tro, &err))
        bail(err.msg);
    return tro;
}

/* Each new window of 16 rows is an old window's rows in order; a partial
   last window is the old one, in place. */
static int keeps_windows(const tc_perm *p)
{
    int good = 1;
    for (int32_t i = 0; good && i < p->n; i++) {
        int32_t first = p->new2old[i - i % 16];
        good = first % 16 == 0 && p->new2old[i] == first + i % 16 &&
               (p->n - i > p->n % 16 || p->new2old[i] == i);
    }
    return good;
}

/* The reordered matrix: full windows with non-increasing block counts,
   ties in their old order, the same blocks in all. */
static int sorted_by_blocks(const tc_csr *a, const tc_perm *p)
{
    tc_csr *b;
    tc_error err;
    if (tc_csr_permute(a, p, NULL, &b, &err))
        bail(err.msg);
    int64_t *before = tro_of(a), *after = tro_of(b), windows = (a->rows + 15) / 16;
    int good = after[windows] == before[windows];
    for (int64_t w = 1; good && w < a->rows / 16; w++) {
        int64_t prev = after[w] - after[w - 1], here = after[w + 1] - after[w];
        good = prev > here || (prev == here && p->new2old[16 * (w - 1)] < p->new2old[16 * w]);
    }
    free(before);
    free(after);
    tc_csr_free(b);
    return good;
}

static void check_matrix(const char *name, const tc_csr *a)
{
    tc_perm *p = order_of(a);
    ok(keeps_windows(p), "%s: whole windows move, the partial last one stays", name);
    ok(sorted_by_blocks(a, p), "%s: windows by decreasing TC blocks, ties in order, the same "
       "blocks", name);
    tc_perm_free(p);
}

/* 40 x 64: window 0 (rows 0-15) one block, window 1 three, the partial
   window 2 (rows 32-39) four: 1 0 2 (2 stays last). 48 rows, the third
   window full: 2 1 0. Ties: 64 rows of one nonzero each, all one block:
   the identity. */
static void check_by_hand(void)
{
    int32_t ri[64], ci[64];
    int n = 0;
    ri[n] = 0, ci[n++] = 0;
    for (int c = 0; c < 24; c++)
        ri[n] = 16 + c % 16, ci[n++] = c;
    for (int c = 0; c < 32; c++)
        ri[n] = 32 + c % 8, ci[n++] = c;
    tc_csr *a = from_coo(40, 64, n, ri, ci, NULL);
    tc_perm *p = order_of(a);
    int good = 1;
    for (int32_t i = 0; i < 40; i++)
        good &= p->new2old[i] == (i < 16 ? 16 + i : i < 32 ? i - 16 : i);
    ok(good, "40 rows, blocks 1 3 | 4: windows 1 0, the partial one last");
    tc_perm_free(p);
    tc_csr_free(a);

    a = from_coo(48, 64, n, ri, ci, NULL);
    p = order_of(a);
    good = 1;
    for (int32_t i = 0; i < 48; i++)
        good &= p->new2old[i] == (i < 16 ? 32 + i : i < 32 ? i : i - 32);
    ok(good, "48 rows, blocks 1 3 4: windows 2 1 0");
    tc_perm_free(p);
    tc_csr_free(a);

    for (int i = 0; i < 64; i++)
        ri[i] = i, ci[i] = 63 - i;
    a = from_coo(64, 64, 64, ri, ci, NULL);
    p = order_of(a);
    ok(tc_perm_is_identity(p), "64 rows, every window one block: ties keep the order");
    tc_perm_free(p);
    tc_csr_free(a);
}

static void check_shapes(void)
{
    for (size_t i = 0; i < sizeof fmt_shapes / sizeof fmt_shapes[0]; i++) {
        const fmt_shape *s = &fmt_shapes[i];
        tc_csr *a = tap_random_matrix(s->rows, s->cols, s->per_row, s->dense_row, s->dense_col,
                                      s->pattern);
        check_matrix(s->name, a);
        tc_csr_free(a);
    }
    /* row windows of very different weights: rows of 1 to 600 nonzeros */
    int32_t *ri = malloc(sizeof *ri * 700000), *ci = malloc(sizeof *ci * 700000);
    int64_t n = 0;
    for (int32_t r = 0; r < 4099; r++)
        for (uint32_t k = tap_rand(r % 37 == 0 ? 600 : 20) + 1; k > 0; k--, n++)
            ri[n] = r, ci[n] = (int32_t)tap_rand(3000);
    tc_csr *a = from_coo(4099, 3000, n, ri, ci, NULL);
    check_matrix("4099 rows of 1 to 600 nonzeros", a);
    tc_perm *one;
    const char *threads[] = { "1", "3", "64" };
    setenv("TC_THREADS", "1", 1);
    one = order_of(a);
    for (int i = 1; i < 3; i++) {
        setenv("TC_THREADS", threads[i], 1);
        tc_perm *p = order_of(a);
        ok(same_i32(p->new2old, one->new2old, a->rows), "TC_THREADS=%s: the order of one thread",
           threads[i]);
        tc_perm_free(p);
    }
    unsetenv("TC_THREADS");
    tc_perm_free(one);
    free(ri);
    free(ci);
    tc_csr_free(a);
}

static void check_registry(void)
{
    int n = -1;
    tc_params p = { 0 };
    tc_error err = { 0 };
    tc_perm *perm = NULL;
    ok(tc_reorder_params(TCBSORT, &n) == NULL && n == 0, "tcbsort has no parameters");
    tc_params_parse(&p, "h=8", &err);
    tc_csr *a = tap_random_matrix(20, 20, 2, -1, -1, 1);
    ok(tc_reorder_run(TCBSORT, a, &p, &perm, NULL, &err) == TC_ERR_ARG && !perm,
       "an unknown parameter is refused");
    is_str(err.msg, "tcbsort has no parameter 'h'", "  with the message");
    tc_csr_free(a);
}

static void check_shared_one(const char *name, const tc_csr *a)
{
    check_matrix(name, a);
}

int main(void)
{
    TCBSORT = tc_reorder_find("tcbsort");
    if (!TCBSORT)
        bail("no method tcbsort");
    check_registry();
    check_by_hand();
    check_shapes();
    for_each_shared(check_shared_one);
    return done_testing();
}
