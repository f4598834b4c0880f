/* t_wjaccard: the `wjaccard` reordering (lib/reorder/wjaccard.c): its
   parameters and their refusals, valid and deterministic permutations on
   awkward shapes and on any thread count, scrambled block matrices coming
   back to their block count, well ordered matrices kept, isolated rows
   placed, the 2-opt lowering adjacent dissimilarity, the swaps between
   windows lowering blocks, progress reports; rows over the candidate
   budget pairing through their rarest columns first, the same on any
   thread count. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include "tcsparse.h"
#include "reorder/winswap.h"
#include "tap.h"
#include "testmat.h"

static const tc_reorder_method *method(void)
{
    return tc_reorder_find("wjaccard");
}

static tc_csr *from_coo(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                        const int32_t *ci)
{
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, NULL, 1, &err))
        diag("tc_csr_from_coo: %s", err.msg);
    return a;
}

/* wjaccard's order of a with parameters `params` (NULL: defaults), or NULL
   with a diagnostic. */
static tc_perm *order(const tc_csr *a, const char *params, const tc_progress *prog)
{
    tc_params p = { 0 };
    tc_error err;
    tc_perm *perm = NULL;
    if ((params && tc_params_parse(&p, params, &err)) ||
        tc_reorder_run(method(), a, &p, &perm, prog, &err))
        diag("wjaccard %s: %s", params ? params : "", err.msg);
    return perm;
}

/* 16x8 TC blocks of a with its rows in perm's order. */
static int64_t blocks_after(const tc_csr *a, const tc_perm *perm)
{
    tc_csr *b;
    tc_error err;
    if (tc_csr_permute(a, perm, NULL, &b, &err))
        return -1;
    int64_t n = tc_count_tc_blocks(b, 16, 8);
    tc_csr_free(b);
    return n;
}

static void test_parameters(void)
{
    ok(method() != NULL, "wjaccard is registered");
    int n;
    const tc_param_def *d = tc_reorder_params(method(), &n);
    is_int(n, 7, "seven parameters");
    ok(n == 7 && strcmp(d[0].name, "k") == 0 && d[0].def == 8 &&
       strcmp(d[1].name, "cap") == 0 && d[1].def == 256 &&
       strcmp(d[2].name, "budget") == 0 && d[2].def == 65536 &&
       strcmp(d[3].name, "rounds") == 0 && d[3].def == 1 &&
       strcmp(d[4].name, "floor") == 0 && d[4].def == 0.05 &&
       strcmp(d[5].name, "swaps") == 0 && d[5].def == 2 &&
       strcmp(d[6].name, "reach") == 0 && d[6].def == 8,
       "defaults k=8, cap=256, budget=65536, rounds=1, floor=0.05, swaps=2, reach=8");

    static const tap_refusal bad[] = {
        { "kk=3", "wjaccard has no parameter 'kk'" },
        { "k=0", "wjaccard: k=0 is out of range [1, 64]" },
        { "k=65", "wjaccard: k=65 is out of range [1, 64]" },
        { "k=2.5", "wjaccard: k=2.5 must be a whole number" },
        { "cap=0", "wjaccard: cap=0 is out of range [1, 100000]" },
        { "budget=0", "wjaccard: budget=0 is out of range [1, 1000000000]" },
        { "rounds=-1", "wjaccard: rounds=-1 is out of range [0, 100]" },
        { "rounds=101", "wjaccard: rounds=101 is out of range [0, 100]" },
        { "floor=1.5", "wjaccard: floor=1.5 is out of range [0, 1]" },
        { "swaps=-1", "wjaccard: swaps=-1 is out of range [0, 100]" },
        { "reach=0", "wjaccard: reach=0 is out of range [1, 64]" },
        { "reach=65", "wjaccard: reach=65 is out of range [1, 64]" },
        { "reach=1.5", "wjaccard: reach=1.5 must be a whole number" },
    };
    tc_csr *a = tap_random_matrix(40, 30, 3, -1, -1, 1);
    tap_check_refusals(method(), a, bad, sizeof bad / sizeof bad[0]);
    tc_perm *perm = order(a, "k=1,cap=1,budget=1,rounds=0,floor=1,swaps=0,reach=1", NULL);
    ok(perm && perm->n == 40, "extreme values accepted: k=1,cap=1,budget=1,rounds=0,floor=1,"
       "swaps=0,reach=1");
    tc_perm_free(perm);
    perm = order(a, "swaps=100,reach=64", NULL);
    ok(perm && perm->n == 40, "  ... and swaps=100,reach=64");
    tc_perm_free(perm);
    tc_csr_free(a);
}

/* The empty rows of a are among the rows that go last in original order:
   from the first empty row on, p's order is increasing. */
static int empty_rows_last(const tc_csr *a, const tc_perm *p)
{
    int32_t i = 0;
    while (i < a->rows && a->rowptr[p->new2old[i]] != a->rowptr[p->new2old[i] + 1])
        i++;
    for (i++; i < a->rows; i++)
        if (p->new2old[i] < p->new2old[i - 1])
            return 0;
    return 1;
}

/* Valid, the same twice, and the same on 1, 2 and 7 threads; with empty
   rows, those last. */
static void test_shapes(void)
{
    static const tap_shape shapes[] = {
        { 0, 0, 0, -1, -1, 0 }, { 1, 1, 1, -1, -1, 0 }, { 1, 1, 0, -1, -1, 0 },
        { 2, 2, 1, -1, -1, 0 }, { 17, 9, 2, 3, -1, 0 }, { 9, 17, 3, -1, 4, 1 },
        { 1000, 1000, 3, 0, 999, 1 }, { 5003, 300, 5, 4000, -1, 0 },
        { 4500, 20000, 40, -1, 17, 1 }, { 70001, 70001, 4, 65535, 65536, 0 },
        { 70001, 300, 3, -1, -1, 1 }, { 300, 70001, 30, 2, -1, 0 },
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        tc_csr *a = tap_shape_matrix(&shapes[s], (int)(s % 2));
        tc_perm *p[4];
        tap_orders_on_threads(method(), &shapes[s], a, p);
        ok(tap_same_perm(p[0], p[1]) && tap_same_perm(p[0], p[2]),
           "  ... the same on 1, 2 and 7 threads");
        ok(tap_same_perm(p[2], p[3]), "  ... and again");
        int64_t before = tc_count_tc_blocks(a, 16, 8), after = p[0] ? blocks_after(a, p[0]) : -1;
        ok(after >= 0 && after <= before, "  ... TC blocks %lld -> %lld", (long long)before,
           (long long)after);
        if (shapes[s].holes && p[0])
            ok(tc_perm_is_identity(p[0]) || empty_rows_last(a, p[0]),
               "  ... %s", tc_perm_is_identity(p[0]) ? "the input order kept"
                                                     : "the empty rows last, in order");
        for (int t = 0; t < 4; t++)
            tc_perm_free(p[t]);
        tc_csr_free(a);
    }
}

/* groups x 16 rows, group g owning columns [g * step, g * step + width)
   (modulo the columns, groups * step), each row holding each of its
   group's columns with probability pct / 100 (at least one). Rows in
   group order when scramble is NULL, else row i goes to scramble[i]. */
static tc_csr *block_matrix(int32_t groups, int32_t step, int32_t width, uint32_t pct,
                            const int32_t *scramble)
{
    int32_t rows = groups * 16, cols = groups * step;
    int64_t cap = (int64_t)rows * width, n = 0;
    int32_t *ri = malloc(sizeof(int32_t) * (size_t)cap), *ci = malloc(sizeof(int32_t) * (size_t)cap);
    for (int32_t i = 0; i < rows; i++) {
        int32_t g = i / 16, first = (int32_t)tap_rand((uint32_t)width);
        for (int32_t c = 0; c < width; c++)
            if (c == first || tap_rand(100) < pct) {
                ri[n] = scramble ? scramble[i] : i;
                ci[n++] = (g * step + c) % cols;
            }
    }
    tc_csr *a = from_coo(rows, cols, n, ri, ci);
    free(ri);
    free(ci);
    return a;
}

/* Rows scrambled by a random permutation come back to within 10% of the
   block count of the group order: one window per group. Neighbouring
   groups share columns (step < width), so the kNN graph is one tree
   through all groups. */
static void test_scrambled_blocks(int32_t groups, int32_t step, int32_t width, uint32_t pct)
{
    int32_t rows = groups * 16;
    int32_t *scramble = malloc(sizeof(int32_t) * (size_t)rows);
    tap_shuffle(scramble, rows);
    tc_csr *in_order = block_matrix(groups, step, width, pct, NULL);
    int64_t optimal = tc_count_tc_blocks(in_order, 16, 8);
    tc_csr_free(in_order);
    tc_csr *a = block_matrix(groups, step, width, pct, scramble);
    int64_t scrambled = tc_count_tc_blocks(a, 16, 8);
    tc_perm *p = order(a, NULL, NULL);
    int64_t after = p ? blocks_after(a, p) : -1;
    ok(after >= 0 && after * 10 <= optimal * 11,
       "%d groups of 16 rows, %d columns each, %d shared with the next, %u%% dense, scrambled: "
       "%lld blocks, back to %lld (group order: %lld)", groups, width, width - step, pct,
       (long long)scrambled, (long long)after, (long long)optimal);
    ok(scrambled >= 2 * optimal, "  ... the scramble had more than doubled them");
    tc_perm_free(p);
    tc_csr_free(a);
    free(scramble);
}

/* A matrix in its best order stays as it is: the block matrix in group
   order (no order has fewer blocks than one window per group), and a
   matrix of one block per window whose windows draw their columns from
   one small pool, where rows of different windows look alike and the
   walk mixes them: wjaccard notices that its order has more blocks and
   keeps the input's. */
static void test_well_ordered(void)
{
    tc_csr *a = block_matrix(256, 16, 32, 60, NULL);
    tc_perm *p = order(a, NULL, NULL);
    int64_t before = tc_count_tc_blocks(a, 16, 8), after = p ? blocks_after(a, p) : -1;
    ok(after >= 0 && after <= before, "block matrix in group order: %lld blocks, after %lld",
       (long long)before, (long long)after);
    tc_perm_free(p);
    tc_csr_free(a);

    int32_t rows = 4096, n = 0;
    int32_t *ri = malloc(sizeof(int32_t) * (size_t)rows * 4), *ci = malloc(sizeof(int32_t) * (size_t)rows * 4);
    for (int32_t w = 0; w < rows / 16; w++) {
        int32_t cols[12];
        tap_shuffle(cols, 12);
        for (int32_t i = w * 16; i < w * 16 + 16; i++)
            for (int32_t c = 0; c < 3; c++) {
                ri[n] = i;
                ci[n++] = cols[tap_rand(8)];
            }
    }
    a = from_coo(rows, 12, n, ri, ci);
    tc_reorder_outcome out;
    tc_error err;
    p = NULL;
    if (tc_reorder_run_outcome(method(), a, NULL, &p, &out, NULL, &err))
        diag("wjaccard: %s", err.msg);
    before = tc_count_tc_blocks(a, 16, 8);
    ok(before == rows / 16 && p && tc_perm_is_identity(p) && out.kept_input,
       "one block per window (%lld), columns from a pool of 12: the input order kept",
       (long long)before);
    long long found = 0, original = 0;
    char tail = 0;
    ok(sscanf(out.note, "kept the original order: the order found gives %lld 16x8 TC blocks, "
              "the original %lld%c", &found, &original, &tail) == 2 &&
       found >= original && original == before, "  ... and says so: %s", out.note);
    tc_perm_free(p);
    tc_csr_free(a);
    free(ri);
    free(ci);
}

/* Scrambled disjoint groups (their order beats the input's by far, so it
   is kept), then: row x holding 30 columns of its own and one that only
   row m shares (J(x, m) about 0.02, under floor=0.05): right after m. Row
   z holding 30 of its own and one shared with x alone: its closest match
   is isolated, so z goes last, with an empty row and a row of columns no
   other row has, in their original order. The swaps between windows
   leave the rows going last where they are, and may move x away from m
   (it lowers the blocks). */
static void test_isolated(void)
{
    int32_t groups = 64, rows = groups * 16 + 4, cols = groups * 16 + 70;
    int32_t *scramble = malloc(sizeof(int32_t) * (size_t)(rows - 4));
    tap_shuffle(scramble, rows - 4);
    int64_t cap = (int64_t)(rows - 4) * 16 + 80, n = 0;
    int32_t *ri = malloc(sizeof(int32_t) * (size_t)cap), *ci = malloc(sizeof(int32_t) * (size_t)cap);
    for (int32_t i = 0; i < rows - 4; i++)
        for (int32_t c = 0; c < 16; c++)
            if (c == 0 || tap_rand(100) < 70) {
                ri[n] = scramble[i];
                ci[n++] = i / 16 * 16 + c;
            }
    /* the extra rows, in original order: empty, unique, x, z */
    int32_t empty = rows - 4, unique = rows - 3, x = rows - 2, z = rows - 1, m = scramble[100];
    int32_t fresh = groups * 16;
    for (int32_t c = 0; c < 5; c++, n++)
        ri[n] = unique, ci[n] = fresh++;
    for (int32_t c = 0; c < 30; c++, n++)
        ri[n] = x, ci[n] = fresh++;
    for (int32_t c = 0; c < 30; c++, n++)
        ri[n] = z, ci[n] = fresh++;
    ri[n] = x, ci[n++] = fresh;             /* x and m share one column */
    ri[n] = m, ci[n++] = fresh++;
    ri[n] = x, ci[n++] = fresh;             /* x and z share one column */
    ri[n] = z, ci[n++] = fresh++;
    tc_csr *a = from_coo(rows, cols, n, ri, ci);
    tc_perm *p = order(a, "swaps=0", NULL);
    ok(p && p->old2new[x] == p->old2new[m] + 1, "a row under the floor comes right after its "
       "closest match (new rows %d and %d)", p ? p->old2new[m] : -1, p ? p->old2new[x] : -1);
    ok(p && p->new2old[rows - 3] == empty && p->new2old[rows - 2] == unique &&
       p->new2old[rows - 1] == z, "rows without a match in the order go last, in original order");
    int64_t unswapped = p ? blocks_after(a, p) : -1;
    tc_perm_free(p);
    p = order(a, NULL, NULL);
    ok(p && p->new2old[rows - 3] == empty && p->new2old[rows - 2] == unique &&
       p->new2old[rows - 1] == z, "  ... and stay there when the windows swap rows");
    ok(p && blocks_after(a, p) <= unswapped, "  ... which may move the row under the floor, to "
       "fewer blocks: %lld, from %lld", p ? (long long)blocks_after(a, p) : -1LL,
       (long long)unswapped);
    tc_perm_free(p);
    p = order(a, "floor=0", NULL);
    ok(p && p->old2new[x] < rows - 3 && p->new2old[rows - 2] == empty &&
       p->new2old[rows - 1] == unique, "floor=0: x and z join the tree, the rows without "
       "candidates still go last");
    tc_perm_free(p);
    tc_csr_free(a);
    free(scramble);
    free(ri);
    free(ci);
}

/* The weighted Jaccard of the two rows, computed here the plain way: the
   weight 1 / ln(e + degree) of the man page. */
static double reference_dissimilarity(const tc_csr *a, const int64_t *degree, int32_t u,
                                      int32_t v)
{
    double shared = 0, all = 0;
    int64_t i = a->rowptr[u], j = a->rowptr[v];
    while (i < a->rowptr[u + 1] || j < a->rowptr[v + 1]) {
        int32_t cu = i < a->rowptr[u + 1] ? a->colidx[i] : INT32_MAX;
        int32_t cv = j < a->rowptr[v + 1] ? a->colidx[j] : INT32_MAX;
        int32_t c = cu < cv ? cu : cv;
        double w = 1 / log(M_E + (double)degree[c]);
        all += w;
        shared += cu == cv ? w : 0;
        i += cu == c, j += cv == c;
    }
    return all > 0 ? 1 - shared / all : 1;
}

static double adjacent_dissimilarity(const tc_csr *a, const tc_perm *p)
{
    int64_t *degree = calloc((size_t)a->cols + 1, sizeof *degree);
    for (int64_t e = 0; e < a->nnz; e++)
        degree[a->colidx[e]]++;
    double sum = 0;
    for (int32_t i = 1; i < a->rows; i++)
        sum += reference_dissimilarity(a, degree, p->new2old[i - 1], p->new2old[i]);
    free(degree);
    return sum;
}

/* 2-opt rounds lower the sum of adjacent dissimilarities, and more rounds
   do not raise it (without the swaps between windows, which do not look at
   adjacent rows). */
static void test_two_opt(void)
{
    int32_t *scramble = malloc(sizeof(int32_t) * 8192);
    tap_shuffle(scramble, 8192);
    tc_csr *a = block_matrix(512, 8, 24, 40, scramble);
    tc_perm *p0 = order(a, "rounds=0,swaps=0", NULL), *p1 = order(a, "rounds=1,swaps=0", NULL);
    tc_perm *p3 = order(a, "rounds=3,swaps=0", NULL);
    double s0 = adjacent_dissimilarity(a, p0), s1 = adjacent_dissimilarity(a, p1);
    double s3 = adjacent_dissimilarity(a, p3);
    ok(!tc_perm_is_identity(p0) && s1 < s0 && s3 <= s1,
       "2-opt: adjacent dissimilarity %.2f without, %.2f after 1 round, %.2f after 3", s0, s1,
       s3);
    tc_perm_free(p0);
    tc_perm_free(p1);
    tc_perm_free(p3);
    tc_csr_free(a);
    free(scramble);
}

/* The 5-point stencil of a side x side grid, rows in a random order. */
static tc_csr *grid(int32_t side)
{
    int32_t rows = side * side;
    int32_t *scramble = malloc(sizeof(int32_t) * (size_t)rows);
    int32_t *ri = malloc(sizeof(int32_t) * (size_t)rows * 5), *ci = malloc(sizeof(int32_t) * (size_t)rows * 5);
    tap_shuffle(scramble, rows);
    int64_t n = 0;
    for (int32_t y = 0; y < side; y++)
        for (int32_t x = 0; x < side; x++) {
            static const int dx[5] = { 0, -1, 1, 0, 0 }, dy[5] = { 0, 0, 0, -1, 1 };
            for (int k = 0; k < 5; k++)
                if (x + dx[k] >= 0 && x + dx[k] < side && y + dy[k] >= 0 && y + dy[k] < side) {
                    ri[n] = scramble[y * side + x];
                    ci[n++] = (y + dy[k]) * side + x + dx[k];
                }
        }
    tc_csr *a = from_coo(rows, rows, n, ri, ci);
    free(scramble);
    free(ri);
    free(ci);
    return a;
}

/* Swaps counted right: window A is 15 rows of column 0 and row r of
   columns 1 and 2, window B 15 rows of column 3 and row s of columns 0
   and 2: 6 columns. Swapping s with r (A keeps column 2, which s holds
   too; loses 1) or with a row of column 0 (B no longer needs 0 and 2
   but for that row's 0) gives 5. A count that took a column the incoming
   row shares with the outgoing one's own for a change on both sides saw
   no gain in either and left 6. */
static void test_swap_count(void)
{
    int32_t ri[34], ci[34], n = 0, r = 15, s_row = 31;
    for (int32_t i = 0; i < 32; i++) {
        ri[n] = i;
        ci[n++] = i == r ? 1 : i == s_row ? 0 : i < 16 ? 0 : 3;
    }
    ri[n] = r, ci[n++] = 2;
    ri[n] = s_row, ci[n++] = 2;
    tc_csr *a = from_coo(32, 4, n, ri, ci);
    int32_t order[32];
    for (int32_t i = 0; i < 32; i++)
        order[i] = i;
    tc_error err;
    tc_status st = tc_window_swaps(a, order, 32, 1, 1, 1, &err);
    int cols = 0;
    for (int w = 0; w < 2; w++) {
        int held[4] = { 0 };
        for (int i = 16 * w; i < 16 * w + 16; i++)
            for (int64_t e = a->rowptr[order[i]]; e < a->rowptr[order[i] + 1]; e++)
                held[a->colidx[e]] = 1;
        cols += held[0] + held[1] + held[2] + held[3];
    }
    ok(st == TC_OK && cols == 5, "two windows of 6 columns in all: %d after the swaps", cols);
    tc_csr_free(a);
}

/* The swaps between windows never add blocks (each swap lowers its two
   windows' count or keeps it), and on a mesh, where the walk leaves paths,
   they take blocks away; a farther reach takes more. */
static void test_window_swaps(void)
{
    for (int s = 0; s < 4; s++) {
        tc_csr *a = tap_random_matrix(3000 + 777 * s, 2000, 2 + 3 * s, s == 1 ? 5 : -1,
                                      s == 2 ? 7 : -1, s % 2);
        tc_perm *p0 = order(a, "swaps=0", NULL), *p = order(a, NULL, NULL);
        int64_t b0 = p0 ? blocks_after(a, p0) : -1, b = p ? blocks_after(a, p) : -1;
        ok(b >= 0 && b0 >= 0 && b <= b0, "random %dx%d, %d a row: %lld blocks without swaps, "
           "%lld with", a->rows, a->cols, 2 + 3 * s, (long long)b0, (long long)b);
        tc_perm_free(p0);
        tc_perm_free(p);
        tc_csr_free(a);
    }
    tc_csr *a = grid(64);
    tc_perm *p0 = order(a, "swaps=0", NULL), *p1 = order(a, "reach=1", NULL);
    tc_perm *p = order(a, NULL, NULL);
    int64_t b0 = p0 ? blocks_after(a, p0) : -1, b1 = p1 ? blocks_after(a, p1) : -1;
    int64_t b = p ? blocks_after(a, p) : -1;
    ok(b0 > 0 && b1 > 0 && b > 0 && b1 * 100 <= b0 * 95 && b < b1,
       "64x64 grid: %lld blocks without swaps, %lld with reach=1, %lld with reach=8",
       (long long)b0, (long long)b1, (long long)b);
    tc_perm_free(p0);
    tc_perm_free(p1);
    tc_perm_free(p);
    tc_csr_free(a);
}

static void test_progress(void)
{
    tc_csr *a = tap_random_matrix(20000, 20000, 8, -1, -1, 1);
    tap_progress_log l = { 0, 0, 0, 1, 1 };
    tc_progress prog = { tap_log_progress, &l };
    setenv("TC_THREADS", "2", 1);
    tc_perm *p = order(a, NULL, &prog);
    unsetenv("TC_THREADS");
    ok(p && l.calls > 10 && l.monotone && l.same_total && l.last == l.total,
       "progress: %lld reports, rising to their total", (long long)l.calls);
    tc_perm_free(p);
    tc_csr_free(a);
}

/* A power-law pattern (rows x cols, about 8 a row): column
   cols * u^4 for u uniform, so that the first columns hold most rows, and
   one row in 512 holds 600 columns; a fixed LCG, so the same every run. */
static tc_csr *power_law(int32_t rows, int32_t cols)
{
    int64_t cap = (int64_t)rows * 16 + rows / 512 * 600 + 600, n = 0;
    int32_t *ri = malloc(sizeof *ri * (size_t)cap), *ci = malloc(sizeof *ci * (size_t)cap);
    uint64_t x = 12345;
    for (int32_t r = 0; r < rows; r++) {
        int len = r % 512 == 7 ? 600 : 2 + (int)(r * 2654435761u >> 29);
        for (int j = 0; j < len; j++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            double u = (double)(x >> 11) / (double)(1ull << 53);
            ri[n] = r;
            ci[n++] = (int32_t)(cols * u * u * u * u);
        }
    }
    tc_csr *a = from_coo(rows, cols, n, ri, ci);
    free(ri);
    free(ci);
    return a;
}

/* On a power-law pattern nearly every row is over a small budget: the
   order is still a permutation, the same on 1, 2, 3 and 8 threads (the
   kNN rows, the sorted runs of the forest's edges, the windows), and no
   worse than the input's. */
static void test_budget_threads(void)
{
    tc_csr *a = power_law(9000, 6000);
    static const char *params[2] = { "budget=64", NULL };
    for (int q = 0; q < 2; q++) {
        static const char *threads[4] = { "1", "2", "3", "8" };
        tc_perm *p[4];
        for (int t = 0; t < 4; t++) {
            setenv("TC_THREADS", threads[t], 1);
            p[t] = order(a, params[q], NULL);
        }
        unsetenv("TC_THREADS");
        ok(p[0] && p[0]->n == a->rows, "power law 9000x6000, %lld nonzeros, %s: a permutation",
           (long long)a->nnz, params[q] ? params[q] : "defaults");
        ok(tap_same_perm(p[0], p[1]) && tap_same_perm(p[0], p[2]) && tap_same_perm(p[0], p[3]),
           "  ... the same on 1, 2, 3 and 8 threads");
        int64_t before = tc_count_tc_blocks(a, 16, 8), after = p[0] ? blocks_after(a, p[0]) : -1;
        ok(after >= 0 && after <= before, "  ... TC blocks %lld -> %lld", (long long)before,
           (long long)after);
        for (int t = 0; t < 4; t++)
            tc_perm_free(p[t]);
    }
    tc_csr_free(a);
}

/* Rows 2i and 2i + 1 share one private column, and every row holds the
   HUBS hub columns, which come first in column order. With cap=64 and
   budget=64 a row could pair through one hub column only; taken rarest
   first, its private column comes before the hubs and finds its twin.
   The twins are scattered over the input (row 2i + 1 is stored
   PAIRS rows away), and each pair ends in one 16-row window. */
#define PAIRS 2048
#define HUBS 20
static void test_rarest_first(void)
{
    int64_t n = 0;
    int32_t *ri = malloc(sizeof *ri * 2 * PAIRS * (HUBS + 1));
    int32_t *ci = malloc(sizeof *ci * 2 * PAIRS * (HUBS + 1));
    for (int32_t i = 0; i < PAIRS; i++)
        for (int twin = 0; twin < 2; twin++) {
            int32_t r = i + twin * PAIRS;
            for (int32_t h = 0; h < HUBS; h++) {
                ri[n] = r;
                ci[n++] = h;
            }
            ri[n] = r;
            ci[n++] = HUBS + i;
        }
    tc_csr *a = from_coo(2 * PAIRS, HUBS + PAIRS, n, ri, ci);
    free(ri);
    free(ci);
    tc_perm *p = order(a, "cap=64,budget=64", NULL);
    int32_t *window = malloc(sizeof *window * 2 * PAIRS);
    int together = 0;
    if (p) {
        for (int32_t i = 0; i < p->n; i++)
            window[p->new2old[i]] = i / 16;
        for (int32_t i = 0; i < PAIRS; i++)
            together += window[i] == window[i + PAIRS];
    }
    ok(together == PAIRS, "%d pairs sharing a rare column under %d hub columns, cap=64, "
       "budget=64: %d of them in one window, all wanted", PAIRS, HUBS, together);
    free(window);
    tc_perm_free(p);
    tc_csr_free(a);
}

int main(void)
{
    test_parameters();
    test_shapes();
    test_scrambled_blocks(64, 16, 16, 70);
    test_scrambled_blocks(256, 16, 32, 60);
    test_scrambled_blocks(256, 12, 24, 70);
    test_scrambled_blocks(1024, 16, 24, 50);
    test_well_ordered();
    test_isolated();
    test_two_opt();
    test_swap_count();
    test_window_swaps();
    test_progress();
    test_budget_threads();
    test_rarest_first();
    return done_testing();
}
