/* t_hmatch: the `hmatch` reordering (lib/reorder/hmatch.c): its parameters
   and their refusals; valid permutations, the same on any thread count,
   on awkward shapes (no rows, one row, empty rows, a dense row or column,
   past 65535 rows, row counts that leave groups alone at every level);
   3-D stencils in their natural order and scrambled, where matching
   builds compact windows (fewer blocks than the natural order by the
   margins a 2x2x4 brick gives); the budget and the cap on hub columns;
   a matrix in its best order kept, and the note saying so; progress. */
#include "config.h"
#include <stdlib.h>
#include "tcsparse.h"
#include "block_count.h"
#include "tap.h"
#include "testmat.h"

static const tc_reorder_method *method(void)
{
    return tc_reorder_find("hmatch");
}

/* hmatch's order of a with `params` (NULL: defaults), or NULL with a
   diagnostic; the outcome into *out when out is not NULL. */
static tc_perm *order_of(const tc_csr *a, const char *params, tc_reorder_outcome *out,
                         const tc_progress *prog)
{
    tc_params p = { 0 };
    tc_error err;
    tc_perm *perm = NULL;
    tc_reorder_outcome none;
    if ((params && tc_params_parse(&p, params, &err)) ||
        tc_reorder_run_outcome(method(), a, &p, &perm, out ? out : &none, prog, &err))
        diag("hmatch %s: %s", params ? params : "", err.msg);
    return perm;
}

static int64_t blocks_in(const tc_csr *a, const tc_perm *p)
{
    return p ? tc_count_tc_blocks_in_order(a, p->new2old, 16, 8) : -1;
}

static void test_parameters(void)
{
    ok(method() != NULL, "hmatch is registered");
    int n;
    const tc_param_def *d = tc_reorder_params(method(), &n);
    ok(n == 3 && strcmp(d[0].name, "cap") == 0 && d[0].def == 256 &&
       strcmp(d[1].name, "budget") == 0 && d[1].def == 16384 &&
       strcmp(d[2].name, "levels") == 0 && d[2].def == 31,
       "three parameters, cap=256, budget=16384, levels=31");
    static const tap_refusal bad[] = {
        { "k=3", "hmatch has no parameter 'k'" },
        { "cap=0", "hmatch: cap=0 is out of range [1, 100000]" },
        { "cap=2.5", "hmatch: cap=2.5 must be a whole number" },
        { "budget=0", "hmatch: budget=0 is out of range [1, 1000000000]" },
        { "levels=3", "hmatch: levels=3 is out of range [4, 31]" },
        { "levels=32", "hmatch: levels=32 is out of range [4, 31]" },
    };
    tc_csr *a = tap_random_matrix(40, 30, 3, -1, -1, 1);
    tap_check_refusals(method(), a, bad, sizeof bad / sizeof bad[0]);
    tc_perm *perm = order_of(a, "cap=1,budget=1,levels=4", NULL, NULL);
    ok(perm && perm->n == 40, "extreme values accepted: cap=1,budget=1,levels=4");
    tc_perm_free(perm);
    tc_csr_free(a);
}

/* Valid, the same on 1, 2 and 7 threads and again, never more blocks. Row
   counts of 16k + 15 leave a group alone at every level. */
static void test_shapes(void)
{
    static const tap_shape shapes[] = {
        { 0, 0, 0, -1, -1, 0 }, { 1, 1, 1, -1, -1, 0 }, { 1, 1, 0, -1, -1, 0 },
        { 2, 2, 1, -1, -1, 0 }, { 17, 9, 2, 3, -1, 0 }, { 9, 17, 3, -1, 4, 1 },
        { 31, 31, 3, -1, -1, 0 }, { 1023, 1023, 3, 0, 1022, 1 }, { 5003, 300, 5, 4000, -1, 0 },
        { 4500, 20000, 40, -1, 17, 1 }, { 70001, 70001, 4, 65535, 65536, 0 },
        { 70015, 300, 3, -1, -1, 1 }, { 300, 70001, 30, 2, -1, 0 },
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        tc_csr *a = tap_shape_matrix(&shapes[s], (int)(s % 2));
        tc_perm *p[4];
        tap_orders_on_threads(method(), &shapes[s], a, p);
        ok(tap_same_perm(p[0], p[1]) && tap_same_perm(p[0], p[2]) && tap_same_perm(p[0], p[3]),
           "  ... the same on 1, 2 and 7 threads, and again");
        int64_t before = tc_count_tc_blocks(a, 16, 8), after = blocks_in(a, p[0]);
        ok(after >= 0 && after <= before, "  ... TC blocks %lld -> %lld", (long long)before,
           (long long)after);
        for (int t = 0; t < 4; t++)
            tc_perm_free(p[t]);
        tc_csr_free(a);
    }
}

/* The 7- or 27-point stencil of an nx^3 grid, row (z * nx + y) * nx + x;
   with scramble, row i of that order goes to scramble[i]. */
static tc_csr *stencil(int32_t nx, int points, const int32_t *scramble)
{
    int32_t rows = nx * nx * nx;
    int32_t *ri = malloc(sizeof(int32_t) * (size_t)rows * 27);
    int32_t *ci = malloc(sizeof(int32_t) * (size_t)rows * 27);
    int64_t n = 0;
    for (int32_t z = 0; z < nx; z++)
        for (int32_t y = 0; y < nx; y++)
            for (int32_t x = 0; x < nx; x++)
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int32_t X = x + dx, Y = y + dy, Z = z + dz;
                            if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= nx || Z >= nx ||
                                (points == 7 && abs(dx) + abs(dy) + abs(dz) > 1))
                                continue;
                            int32_t i = (z * nx + y) * nx + x;
                            ri[n] = scramble ? scramble[i] : i;
                            ci[n++] = (Z * nx + Y) * nx + X;
                        }
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, rows, n, ri, ci, NULL, 1, &err))
        diag("tc_csr_from_coo: %s", err.msg);
    free(ri);
    free(ci);
    return a;
}

/* The blocks of the 2x2x4 bricks order, 16 rows a window: the compact
   patch matching should find. */
static int64_t brick_blocks(const tc_csr *a, int32_t nx)
{
    int32_t *o = malloc(sizeof(int32_t) * (size_t)a->rows), n = 0;
    for (int32_t Z = 0; Z < nx; Z += 4)
        for (int32_t Y = 0; Y < nx; Y += 2)
            for (int32_t X = 0; X < nx; X += 2)
                for (int32_t z = Z; z < Z + 4; z++)
                    for (int32_t y = Y; y < Y + 2; y++)
                        for (int32_t x = X; x < X + 2; x++)
                            o[n++] = (z * nx + y) * nx + x;
    int64_t b = tc_count_tc_blocks_in_order(a, o, 16, 8);
    free(o);
    return b;
}

/* Stencils of a 16^3 grid: natural order, hmatch's, the bricks'. Matching
   comes within 5% of the bricks and far below the natural order (16 rows
   of a line hold 1.7x the columns of a brick on the 27-point stencil).
   Scrambled, it still cuts the blocks by more than 40%, but ties between
   equally good partners then fall in random directions and the windows
   are less compact (8% over the bricks on the 7-point stencil, 27% on the
   27-point one); in natural order the ties run along the grid. */
static void test_stencils(void)
{
    const int32_t nx = 16, rows = nx * nx * nx;
    int32_t *scramble = malloc(sizeof(int32_t) * (size_t)rows);
    tap_shuffle(scramble, rows);
    for (int points = 7; points <= 27; points += 20) {
        tc_csr *a = stencil(nx, points, NULL);
        tc_perm *p = order_of(a, NULL, NULL, NULL);
        int64_t natural = tc_count_tc_blocks(a, 16, 8), brick = brick_blocks(a, nx);
        int64_t after = blocks_in(a, p);
        ok(after > 0 && after * 100 <= brick * 105,
           "%d-point stencil of 16^3: %lld blocks in natural order, hmatch %lld, 2x2x4 bricks %lld",
           points, (long long)natural, (long long)after, (long long)brick);
        ok(after * 10 <= natural * 7, "  ... under 0.7 of the natural order's");
        tc_perm_free(p);
        tc_csr_free(a);

        a = stencil(nx, points, scramble);
        int64_t scrambled = tc_count_tc_blocks(a, 16, 8);
        p = order_of(a, NULL, NULL, NULL);
        int64_t back = blocks_in(a, p);
        ok(back > 0 && back * 100 <= brick * 130 && back * 10 <= scrambled * 6,
           "  ... scrambled (%lld blocks): hmatch %lld, within 30%% of the bricks",
           (long long)scrambled, (long long)back);
        tc_perm_free(p);
        tc_csr_free(a);
    }
    free(scramble);
}

/* A column in every row, with cap and budget at their least: hub columns
   sampled, the order still valid and deterministic; with a generous
   budget, the stencil's order does not depend on it. */
static void test_budget(void)
{
    tc_csr *a = tap_random_matrix(5000, 5000, 6, -1, 7, 1);
    setenv("TC_THREADS", "1", 1);
    tc_perm *one = order_of(a, "cap=1,budget=1", NULL, NULL);
    setenv("TC_THREADS", "5", 1);
    tc_perm *five = order_of(a, "cap=1,budget=1", NULL, NULL);
    unsetenv("TC_THREADS");
    ok(one && one->n == 5000 && tap_same_perm(one, five),
       "a dense column, cap=1,budget=1: a permutation, the same on 1 and 5 threads");
    tc_perm *capped = order_of(a, "cap=8", NULL, NULL), *full = order_of(a, NULL, NULL, NULL);
    ok(capped && full && blocks_in(a, capped) <= tc_count_tc_blocks(a, 16, 8),
       "  ... cap=8: %lld blocks, the defaults %lld, the input %lld",
       (long long)blocks_in(a, capped), (long long)blocks_in(a, full),
       (long long)tc_count_tc_blocks(a, 16, 8));
    tc_perm_free(one);
    tc_perm_free(five);
    tc_perm_free(capped);
    tc_perm_free(full);
    tc_csr_free(a);

    a = stencil(12, 27, NULL);
    tc_perm *x = order_of(a, NULL, NULL, NULL), *y = order_of(a, "budget=1000000", NULL, NULL);
    ok(tap_same_perm(x, y), "27-point stencil: the same order with budget=1000000 (no group reaches "
       "the default)");
    tc_perm_free(x);
    tc_perm_free(y);
    tc_csr_free(a);
}

/* One block per window, every window's rows holding columns of a pool of
   12, all 16 rows alike: no order has fewer blocks, and the note says the
   input order was kept. */
static void test_kept(void)
{
    int32_t rows = 4096, n = 0;
    int32_t *ri = malloc(sizeof(int32_t) * (size_t)rows * 3);
    int32_t *ci = malloc(sizeof(int32_t) * (size_t)rows * 3);
    for (int32_t w = 0; w < rows / 16; w++) {
        int32_t cols[12];
        tap_shuffle(cols, 12);
        for (int32_t i = w * 16; i < w * 16 + 16; i++)
            for (int32_t c = 0; c < 3; c++) {
                ri[n] = i;
                ci[n++] = cols[tap_rand(8)];
            }
    }
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, 12, n, ri, ci, NULL, 1, &err))
        diag("tc_csr_from_coo: %s", err.msg);
    tc_reorder_outcome out;
    tc_perm *p = order_of(a, NULL, &out, NULL);
    int64_t before = tc_count_tc_blocks(a, 16, 8);
    ok(before == rows / 16 && p && tc_perm_is_identity(p) && out.kept_input,
       "one block per window (%lld): the input order kept", (long long)before);
    long long found = 0, original = 0;
    ok(sscanf(out.note, "kept the original order: the order found gives %lld 16x8 TC blocks, "
              "the original %lld", &found, &original) == 2 && found >= original &&
       original == before, "  ... and says so: %s", out.note);
    tc_perm_free(p);
    tc_csr_free(a);
    free(ri);
    free(ci);
}

static void test_progress(void)
{
    tc_csr *a = stencil(20, 7, NULL);
    tap_progress_log s = { 0, 0, 0, 1, 1 };
    tc_progress prog = { tap_log_progress, &s };
    tc_perm *p = order_of(a, NULL, NULL, &prog);
    ok(p && s.calls > 13 && s.monotone && s.last == s.total && s.total == 13 * 8000,
       "progress: %lld reports, never back, ending at %lld of %lld (13 levels, 2^13 >= 8000 "
       "rows, x 8000 rows)",
       (long long)s.calls, (long long)s.last, (long long)s.total);
    tc_perm_free(p);
    tc_csr_free(a);
}

int main(void)
{
    test_parameters();
    test_shapes();
    test_stencils();
    test_budget();
    test_kept();
    test_progress();
    return done_testing();
}
