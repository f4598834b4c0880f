/* t_synergy: the TCU-Synergy figures of cuTeSpMM (seed 002, Sections 4
   and 6.4) that tcstat prints without building the hrpb format: small
   matrices worked out by hand (Table 1's bounds exactly, a panel of rows
   not a multiple of 16, TM = 32), every count against a slow reading of
   the rules (qsort of all nonzeros by panel, column and row) on awkward
   random shapes in several panel shapes, the same figures for any thread
   count, the section of tc_stats_report, and the shapes refused. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include "tcsparse.h"
#include "tap.h"
#include "testmat.h"

static tc_csr *from_coo(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                        const int32_t *ci)
{
    tc_csr *a;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, NULL, 1, &err)) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    return a;
}

static tc_synergy compute(const tc_csr *a, int tm, int tk)
{
    tc_synergy s;
    tc_error err;
    if (tc_synergy_compute(a, tm, tk, &s, &err)) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    return s;
}

/* ------------------------------------------------------- by hand */

/* t_bcsr's and t_hrpb's 20 x 40: (0,0) (0,17) (3,5) (15,39) (16,16)
   (19,0). TM = 16: panel 0 has active columns 0 5 17 39 (one brick of 4
   columns, 4 nonzeros), panel 1 (rows 16-19) has 0 16 (one brick of 2
   columns, 2 nonzeros): alpha = 6 / (16 * 6), bricks 2, beta 1. TM = 32:
   one panel, columns 0 5 16 17 | 39; brick column 0 has a brick in both
   brick rows (rows 0-15: (0,0) (3,5) (0,17); rows 16-31: (16,16) (19,0)),
   brick column 1 one (the column of (15,39) alone: 1 real column): 3
   bricks over 2 brick columns (beta 1.5), columns of active bricks
   4 + 4 + 1 = 9, alpha = 6 / (16 * 9). */
static void check_hand(void)
{
    static const int32_t ri[] = { 0, 0, 3, 15, 16, 19 }, ci[] = { 0, 17, 5, 39, 16, 0 };
    tc_csr *a = from_coo(20, 40, 6, ri, ci);
    tc_synergy s = compute(a, 16, 16);
    ok(s.panels == 2 && s.active_cols == 6 && s.blocks == 2 && s.strips == 2 && s.bricks == 2 &&
       s.brick_cols == 6, "20x40, TM 16: 2 panels, 6 active columns, 2 blocks, 2 bricks");
    ok(s.alpha == 6.0 / 96 && s.oi == 512 * 6.0 / 96 && s.beta == 1 &&
       s.brick_density == 6.0 / 128 && !strcmp(s.level, "low"),
       "20x40, TM 16: alpha 6/96, OI 32, beta 1, brick density 6/128, low");
    s = compute(a, 32, 16);
    ok(s.panels == 1 && s.active_cols == 5 && s.blocks == 1 && s.strips == 2 && s.bricks == 3 &&
       s.brick_cols == 9, "20x40, TM 32: 1 panel, 5 columns, 3 bricks in 2 brick columns");
    ok(s.alpha == 6.0 / 144 && s.beta == 1.5 && s.brick_density == 6.0 / 192,
       "20x40, TM 32: alpha 6/144 (TM 32 dilutes the bricks), beta 1.5");
    s = compute(a, 16, 4);
    ok(s.blocks == 2 && s.bricks == 2 && s.alpha == 6.0 / 96, "20x40, TK 4: the same bricks");
    tc_csr_free(a);
}

/* One panel of 16 rows: column 0 with n0 nonzeros, column 1 with n1
   (none when 0). */
static tc_synergy two_columns(int n0, int n1)
{
    int32_t ri[32], ci[32];
    int n = 0;
    for (int r = 0; r < n0; r++, n++) {
        ri[n] = r;
        ci[n] = 0;
    }
    for (int r = 0; r < n1; r++, n++) {
        ri[n] = 15 - r;
        ci[n] = 1;
    }
    tc_csr *a = from_coo(16, 2, n, ri, ci);
    tc_synergy s = compute(a, 16, 16);
    tc_csr_free(a);
    return s;
}

/* Table 1: low below 12.5%, medium from 12.5% below 25%, high from 25%,
   on the bounds exactly. */
static void check_classes(void)
{
    static const struct { int n0, n1; const char *level; double alpha; } c[] = {
        { 2, 0, "medium", 2.0 / 16 }, { 1, 0, "low", 1.0 / 16 },  { 4, 0, "high", 4.0 / 16 },
        { 3, 0, "medium", 3.0 / 16 }, { 2, 1, "low", 3.0 / 32 },  { 4, 3, "medium", 7.0 / 32 },
        { 4, 4, "high", 8.0 / 32 },   { 16, 16, "high", 1 },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tc_synergy s = two_columns(c[i].n0, c[i].n1);
        ok(s.alpha == c[i].alpha && !strcmp(s.level, c[i].level) && s.oi == 512 * c[i].alpha,
           "columns of %d and %d nonzeros: alpha %g, %s", c[i].n0, c[i].n1, c[i].alpha,
           c[i].level);
    }
    tc_csr *a = from_coo(40, 7, 0, NULL, NULL);
    tc_synergy s = compute(a, 16, 16);
    ok(s.panels == 3 && s.blocks == 0 && s.bricks == 0 && s.alpha == 0 && s.beta == 0 &&
       !strcmp(s.level, "low"), "no nonzeros: 3 panels, no block, alpha 0, low");
    tc_csr_free(a);
    a = from_coo(0, 0, 0, NULL, NULL);
    s = compute(a, 16, 16);
    ok(s.panels == 0 && s.blocks == 0 && !strcmp(s.level, "low"), "0x0: no panel, low");
    tc_csr_free(a);
}

/* ------------------------------------------------- the slow reading */

typedef struct entry {
    int64_t panel;
    int32_t col, row;
} entry;

static int by_panel_col_row(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->panel != b->panel)
        return a->panel < b->panel ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* Adds panel [e, e + n)'s counts (its entries sorted by column, then
   row) to s: the rank of each column among the panel's distinct ones
   gives its block, brick column and brick row; a brick is counted at its
   first nonzero, which the scan meets in column order (a flag per brick
   of the panel). */
static void reference_panel(const entry *e, int64_t n, int tm, int tk, tc_synergy *s)
{
    int64_t nd = 0;
    for (int64_t i = 0; i < n; i++)
        nd += i == 0 || e[i].col != e[i - 1].col;
    int64_t strips = (nd + 3) / 4, rows = tm / 16;
    char *seen = calloc((size_t)(strips * rows + 1), 1);
    char *strip_seen = calloc((size_t)strips + 1, 1);
    int64_t j = -1;
    for (int64_t i = 0; i < n; i++) {
        j += i == 0 || e[i].col != e[i - 1].col;
        int64_t strip = j / 4, brick = strip * rows + e[i].row / 16;
        if (!seen[brick]) {
            seen[brick] = 1;
            s->bricks++;
            s->brick_cols += nd - 4 * strip < 4 ? nd - 4 * strip : 4;
        }
        if (!strip_seen[strip]) {
            strip_seen[strip] = 1;
            s->strips++;
        }
    }
    s->active_cols += nd;
    s->blocks += (nd + tk - 1) / tk;
    free(seen);
    free(strip_seen);
}

static tc_synergy reference(const tc_csr *a, int tm, int tk)
{
    entry *e = malloc((size_t)(a->nnz + 1) * sizeof *e);
    for (int32_t r = 0; r < a->rows; r++)
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
            e[k] = (entry){ r / tm, a->colidx[k], r % tm };
    qsort(e, (size_t)a->nnz, sizeof *e, by_panel_col_row);
    tc_synergy s = { .tm = tm, .tk = tk, .nnz = a->nnz, .panels = (a->rows + tm - 1) / tm };
    for (int64_t i = 0, end; i < a->nnz; i = end) {
        for (end = i + 1; end < a->nnz && e[end].panel == e[i].panel; end++)
            ;
        reference_panel(e + i, end - i, tm, tk, &s);
    }
    free(e);
    return s;
}

static int same_counts(const tc_synergy *x, const tc_synergy *y)
{
    return x->tm == y->tm && x->tk == y->tk && x->nnz == y->nnz && x->panels == y->panels &&
           x->active_cols == y->active_cols && x->blocks == y->blocks &&
           x->strips == y->strips && x->bricks == y->bricks && x->brick_cols == y->brick_cols;
}

static int same_figures(const tc_synergy *x, const tc_synergy *y)
{
    return same_counts(x, y) && x->alpha == y->alpha && x->oi == y->oi && x->beta == y->beta &&
           x->brick_density == y->brick_density && !strcmp(x->level, y->level);
}

static void check_reference(void)
{
    static const struct {
        const char *name;
        int32_t rows, cols;
        int per_row;
        int32_t dr, dc;
    } m[] = {
        { "1x1", 1, 1, 1, -1, -1 },
        { "1000x777", 1000, 777, 9, -1, -1 },
        { "a dense row of 5000", 40, 5000, 2, 17, -1 },
        { "a dense column", 3001, 60, 3, -1, 59 },
        { "dense row and column", 1025, 4099, 40, 1024, 0 },
        { "70001 rows", 70001, 500, 3, -1, -1 },
        { "clustered 2000x64", 2000, 64, 20, -1, -1 },
    };
    static const int shapes[][2] = { { 16, 16 }, { 32, 16 }, { 16, 4 }, { 32, 64 } };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        tc_csr *a = tap_random_matrix(m[i].rows, m[i].cols, m[i].per_row, m[i].dr, m[i].dc, 1);
        for (int k = 0; k < 4; k++) {
            tc_synergy got = compute(a, shapes[k][0], shapes[k][1]);
            tc_synergy want = reference(a, shapes[k][0], shapes[k][1]);
            ok(same_counts(&got, &want), "%s, %dx%d: the counts of the slow reading", m[i].name,
               shapes[k][0], shapes[k][1]);
            if (!same_counts(&got, &want))
                diag("got %" PRId64 " cols %" PRId64 " blocks %" PRId64 " bricks %" PRId64
                     " brick columns; want %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64,
                     got.active_cols, got.blocks, got.bricks, got.brick_cols, want.active_cols,
                     want.blocks, want.bricks, want.brick_cols);
        }
        tc_csr_free(a);
    }
}

static void check_threads(void)
{
    tc_csr *a = tap_random_matrix(70001, 3001, 5, 4000, 17, 0);
    setenv("TC_THREADS", "1", 1);
    tc_synergy one = compute(a, 16, 16);
    const char *threads[] = { "2", "3", "64" };
    for (int i = 0; i < 3; i++) {
        setenv("TC_THREADS", threads[i], 1);
        tc_synergy s = compute(a, 16, 16);
        ok(same_figures(&s, &one), "TC_THREADS=%s: the same figures as one thread", threads[i]);
    }
    unsetenv("TC_THREADS");
    tc_csr_free(a);
}

/* ------------------------------------------------- the report */

static void check_section(void)
{
    static const int32_t ri[] = { 0, 0, 3, 15, 16, 19 }, ci[] = { 0, 17, 5, 39, 16, 0 };
    static const char *const keys[] = { "panels", "active_cols", "blocks", "bricks", "beta",
                                        "brick_density", "alpha", "oi", "class" };
    tc_csr *a = from_coo(20, 40, 6, ri, ci);
    tc_report *r = tc_report_new();
    tc_error err;
    ok(tc_stats_report(a, 16, 8, r, &err) == TC_OK, "tc_stats_report");
    int first = -1, n = tc_report_count(r), good = 1;
    for (int i = 0; i < n && first < 0; i++)
        if (!strcmp(tc_report_at(r, i)->section, "synergy"))
            first = i;
    for (int k = 0; k < 9 && good; k++)
        good = first >= 0 && first + k < n && !strcmp(tc_report_at(r, first + k)->key, keys[k]) &&
               !strcmp(tc_report_at(r, first + k)->section, "synergy");
    ok(good && first + 9 == n, "section synergy last: panels .. class, in order");
    ok(good && tc_report_at(r, first + 6)->num == 6.0 / 96 &&
       !strcmp(tc_report_at(r, first + 8)->str, "low") && tc_report_at(r, first + 3)->ival == 2,
       "section synergy: TM 16, TK 16 (alpha 6/96, 2 bricks, low)");
    tc_report_free(r);
    tc_csr_free(a);
}

static void check_refused(void)
{
    tc_csr *a = from_coo(3, 3, 0, NULL, NULL);
    tc_synergy s;
    tc_error err;
    ok(tc_synergy_compute(a, 24, 16, &s, &err) == TC_ERR_ARG, "TM 24 refused");
    is_str(err.msg, "synergy: TM=24 is not a panel height of the kernel (16 or 32: whole bricks "
           "of 16 rows, the m of mma.m16n8k4)", "  with the message");
    ok(tc_synergy_compute(a, 16, 6, &s, &err) == TC_ERR_ARG, "TK 6 refused");
    is_str(err.msg, "synergy: TK=6 is not a block width of the kernel (a multiple of 4 from 4 to "
           "64: whole bricks of 4 columns, the k of mma.m16n8k4)", "  with the message");
    ok(tc_synergy_compute(a, 16, 68, &s, &err) == TC_ERR_ARG, "TK 68 refused");
    tc_csr_free(a);
}

int main(void)
{
    check_hand();
    check_classes();
    check_reference();
    check_threads();
    check_section();
    check_refused();
    return done_testing();
}
