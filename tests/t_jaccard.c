/* t_jaccard: the `jaccard` reordering (Sylos Labini's greedy clustering,
   SMaT seed 004 Section IV-C): valid permutations on awkward shapes, the
   same order for any thread count, a scrambled block structure recovered,
   clusters that follow the paper's rule (checked the slow way), the input
   order kept and said when no tau of the sweep beats it, a given tau that
   makes things worse said, the tau chosen by the sweep recorded, and its
   block counts equal to the bcsr format's. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "tcsparse.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"

static const tc_reorder_method *JACCARD;

/* Runs jaccard on a with params (NULL: defaults); bails on failure. */
static tc_perm *run(const tc_csr *a, const char *params, tc_reorder_outcome *out)
{
    tc_params p = { 0 };
    tc_error err;
    tc_perm *perm;
    tc_reorder_outcome mine;
    if ((params && tc_params_parse(&p, params, &err)) ||
        tc_reorder_run_outcome(JACCARD, a, &p, &perm, out ? out : &mine, NULL, &err))
        bail(err.msg);
    return perm;
}

static tc_csr *permuted(const tc_csr *a, const tc_perm *p)
{
    tc_csr *b;
    tc_error err;
    if (tc_csr_permute(a, p, NULL, &b, &err))
        bail(err.msg);
    return b;
}

/* The bcsr format's block count of a (h x w blocks, w = 16 or 8). */
static int64_t bcsr_blocks(const tc_csr *a, int w)
{
    char params[16];
    snprintf(params, sizeof params, "w=%d", w);
    tc_csr pattern = *a;
    pattern.val = NULL;
    tc_fmt *m = build_fmt(tc_format_find("bcsr"), &pattern, params);
    tc_report *r = tc_report_new();
    tc_error err;
    int64_t n = -1;
    if (tc_format_stats_report(m, &pattern, r, &err) == TC_OK)
        for (int i = 0; i < tc_report_count(r); i++)
            if (!strcmp(tc_report_at(r, i)->key, "blocks"))
                n = tc_report_at(r, i)->ival;
    tc_report_free(r);
    tc_fmt_free(m);
    return n;
}

static int64_t blocks_after(const tc_csr *a, const tc_perm *p, int w)
{
    tc_csr *b = permuted(a, p);
    int64_t n = bcsr_blocks(b, w);
    tc_csr_free(b);
    return n;
}

static double used(const tc_reorder_outcome *o, const char *name)
{
    for (int i = 0; i < o->used.n; i++)
        if (!strcmp(o->used.kv[i].name, name))
            return o->used.kv[i].value;
    return NAN;
}

/* ------------------------------------------------------------ shapes */

static void check_shapes(void)
{
    static const char *const params[] = { NULL, "tau=0.5", "tau=1,candidates=1", "w=8,h=7",
                                          "slice=1000", "slice=1" };
    for (size_t i = 0; i < sizeof fmt_shapes / sizeof fmt_shapes[0]; i++) {
        const fmt_shape *s = &fmt_shapes[i];
        tc_csr *a = tap_random_matrix(s->rows, s->cols, s->per_row, s->dense_row, s->dense_col,
                                      s->pattern);
        int valid = 1, no_worse = 1;
        for (int k = 0; k < 6; k++) {
            tc_reorder_outcome o;
            tc_perm *p = run(a, params[k], &o);
            valid &= p->n == a->rows;
            if (k == 0)
                no_worse = blocks_after(a, p, 16) <= bcsr_blocks(a, 16);
            tc_perm_free(p);
        }
        ok(valid, "%s: a permutation of the rows, swept and with tau, candidates, h, w, slice "
           "given",
           s->name);
        ok(no_worse, "%s: the sweep's order has no more 16x16 blocks than the input's", s->name);
        tc_csr_free(a);
    }
}

/* ------------------------------------------------------------ threads */

static void check_threads(void)
{
    tc_csr *a = tap_random_matrix(20001, 3000, 5, 4444, 1234, 1);
    static const char *const threads[] = { "1", "2", "3", "8" };
    /* the sweep's taus on threads; then 21 slices (the last of one row) of
       every tau, in any order on the threads */
    static const char *const params[] = { NULL, "slice=1000" };
    for (int k = 0; k < 2; k++) {
        tc_perm *one = NULL;
        for (int i = 0; i < 4; i++) {
            setenv("TC_THREADS", threads[i], 1);
            tc_perm *p = run(a, params[k], NULL);
            if (!one)
                one = p;
            else {
                ok(!memcmp(one->new2old, p->new2old, (size_t)a->rows * sizeof *p->new2old),
                   "%s TC_THREADS=%s: the same order as one thread",
                   params[k] ? params[k] : "defaults", threads[i]);
                tc_perm_free(p);
            }
        }
        tc_perm_free(one);
    }
    unsetenv("TC_THREADS");
    tc_csr_free(a);
}

/* ------------------------------------------- a scrambled block structure */

/* groups * 16 rows, group g's rows with `per_row` random columns among
   the `span` block columns g*span .. (of 16 columns each), every block
   column of the group hit by each row; rows scrambled. Aligned, it has
   groups * span blocks. */
static tc_csr *scrambled_groups(int32_t groups, int span, int per_row)
{
    int32_t rows = groups * 16, cols = groups * span * 16;
    int64_t n = (int64_t)rows * per_row;
    int32_t *ri = malloc((size_t)n * sizeof *ri), *ci = malloc((size_t)n * sizeof *ci);
    int32_t *shuffle = malloc((size_t)rows * sizeof *shuffle);
    tap_shuffle(shuffle, rows);
    for (int64_t k = 0; k < n; k++) {
        int32_t r = (int32_t)(k / per_row), g = r / 16, j = (int32_t)(k % per_row);
        ri[k] = shuffle[r];
        ci[k] = (g * span + j % span) * 16 + (int32_t)tap_rand(16);
    }
    tc_csr *a = from_coo(rows, cols, n, ri, ci, NULL);
    free(ri);
    free(ci);
    free(shuffle);
    return a;
}

static void check_scrambled(void)
{
    struct { int32_t groups; int span, per_row; } s[] = { { 300, 1, 5 }, { 500, 3, 6 } };
    for (int i = 0; i < 2; i++) {
        tc_csr *a = scrambled_groups(s[i].groups, s[i].span, s[i].per_row);
        int64_t aligned = (int64_t)s[i].groups * s[i].span, before = bcsr_blocks(a, 16);
        tc_reorder_outcome o;
        tc_perm *p = run(a, NULL, &o);
        int64_t after = blocks_after(a, p, 16);
        ok(after * 10 <= aligned * 11 && !o.kept_input,
           "%d groups of 16 rows over %d block columns, scrambled: 16x16 blocks %" PRId64
           " -> %" PRId64 " (within 10%% of %" PRId64 ")", s[i].groups, s[i].span, before,
           after, aligned);
        ok(used(&o, "tau") > 0 && o.note[0] == 0, "  ... the tau chosen recorded (%g), no note",
           used(&o, "tau"));
        tc_perm_free(p);
        tc_csr_free(a);
    }
}

/* ---------------------------------------------------- the paper's rule */

/* The Jaccard distance of row r's block columns to the set `in` of psize
   block columns. */
static double distance(const tc_csr *a, const uint8_t *in, int64_t psize, int32_t r, int w)
{
    int64_t both = 0, nr = 0;
    int32_t last = -1;
    for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++) {
        int32_t c = a->colidx[k] / w;
        if (c == last)
            continue;
        last = c;
        nr++;
        both += in[c];
    }
    return 1 - (double)both / (double)(psize + nr - both);
}

/* With candidates unbounded, on a matrix without empty rows: the order is
   the paper's greedy scan done the slow way, every later row of the
   seed's slice (`slice` rows from a multiple of it; 0: all rows) tested
   against the union in turn, up to h rows, then the full clusters before
   the others, in seed order. */
static int follows_paper(const tc_csr *a, const tc_perm *p, double tau, int h, int w,
                         int32_t slice)
{
    int32_t ncols = (a->cols + w - 1) / w, at = 0;
    uint8_t *done = calloc((size_t)a->rows, 1), *in = calloc((size_t)ncols + 1, 1);
    int32_t *full = malloc((size_t)a->rows * sizeof *full), *rest = malloc((size_t)a->rows * sizeof *rest);
    int32_t nfull = 0, nrest = 0;
    for (int32_t seed = 0; seed < a->rows; seed++) {
        if (done[seed])
            continue;
        int32_t members[64], n = 0;
        int64_t psize = 0;
        memset(in, 0, (size_t)ncols);
        int32_t end = slice && a->rows - seed / slice * slice > slice ? (seed / slice + 1) * slice
                                                                      : a->rows;
        for (int32_t r = seed; r < end && n < h; r++) {
            if (done[r] || (r > seed && !(distance(a, in, psize, r, w) < tau)))
                continue;
            done[r] = 1;
            members[n++] = r;
            for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
                if (!in[a->colidx[k] / w]) {
                    in[a->colidx[k] / w] = 1;
                    psize++;
                }
        }
        for (int32_t j = 0; j < n; j++)
            *(n == h ? &full[nfull++] : &rest[nrest++]) = members[j];
    }
    int good = 1;
    for (int32_t i = 0; i < nfull; i++)
        good &= p->new2old[at++] == full[i];
    for (int32_t i = 0; i < nrest; i++)
        good &= p->new2old[at++] == rest[i];
    free(done);
    free(in);
    free(full);
    free(rest);
    return good;
}

static void check_rule(void)
{
    /* every row non-empty: 3 random columns */
    tc_csr *a = tap_random_matrix(1500, 600, 3, -1, -1, 1);
    static const struct { const char *params; double tau; int hw; int32_t slice; } cases[] = {
        { "tau=0.9", 0.9, 16, 0 },
        { "tau=0.6", 0.6, 16, 0 },
        { "tau=0.95,h=8,w=8", 0.95, 8, 0 },
        /* 5 whole slices and one of 220 rows; rows cluster only within theirs */
        { "tau=0.9,slice=256", 0.9, 16, 256 },
        { "tau=0.6,slice=1499", 0.6, 16, 1499 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char p[64];
        snprintf(p, sizeof p, "%s,candidates=1000000", cases[i].params);
        tc_perm *perm = run(a, p, NULL);
        ok(follows_paper(a, perm, cases[i].tau, cases[i].hw, cases[i].hw, cases[i].slice),
           "%s: the paper's greedy scan, done the slow way", cases[i].params);
        tc_perm_free(perm);
    }
    /* the same scan through slices is another order (the test can fail) */
    tc_perm *whole = run(a, "tau=0.9,candidates=1000000", NULL);
    ok(!follows_paper(a, whole, 0.9, 16, 16, 256), "slices of 256 rows: another order than one slice");
    tc_perm_free(whole);
    tc_csr_free(a);
}

/* ------------------------------------------------ already well ordered */

/* An n x n band of half-width k: aligned block rows are hard to beat. */
static tc_csr *band(int32_t n, int32_t k)
{
    int64_t m = 0;
    int32_t *ri = malloc((size_t)n * (2 * k + 1) * sizeof *ri), *ci = malloc((size_t)n * (2 * k + 1) * sizeof *ci);
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i - k; j <= i + k; j++)
            if (j >= 0 && j < n) {
                ri[m] = i;
                ci[m++] = j;
            }
    tc_csr *a = from_coo(n, n, m, ri, ci, NULL);
    free(ri);
    free(ci);
    return a;
}

static void check_kept(void)
{
    tc_csr *a = band(1000, 10);
    tc_reorder_outcome o;
    tc_perm *p = run(a, NULL, &o);
    ok(o.kept_input && tc_perm_is_identity(p), "band of half-width 10: the input order kept");
    is_str(o.note, "kept the original order: no tau of 0.3 0.5 0.7 0.8 0.9 reduced the 16x16 "
           "BCSR block count (187; the best, tau=0.3, gives 187)", "  ... and said");
    is_int(bcsr_blocks(a, 16), 187, "  ... 187 the bcsr format's count");
    ok(used(&o, "tau") == 0, "  ... tau recorded as 0 (the sweep, none chosen)");
    tc_perm_free(p);

    p = run(a, "tau=0.5", &o);
    ok(!o.kept_input && !tc_perm_is_identity(p), "tau=0.5 given: its order, though worse");
    is_str(o.note, "tau=0.5 gives more 16x16 BCSR blocks than the original order (188 > 187)",
           "  ... and said");
    is_int(blocks_after(a, p, 16), 188, "  ... 188 the bcsr format's count");
    ok(used(&o, "tau") == 0.5, "  ... tau recorded as given");
    tc_perm_free(p);

    p = run(a, "tau=0.3", &o);
    is_str(o.note, "", "tau=0.3 given, as good as the input: no note");
    tc_perm_free(p);
    tc_csr_free(a);

    /* The same band with 16x8 blocks: the note names the shape. */
    a = band(1000, 10);
    p = run(a, "w=8", &o);
    int64_t before = bcsr_blocks(a, 8);
    ok(o.kept_input ? tc_perm_is_identity(p) && strstr(o.note, "16x8 BCSR block count")
                    : blocks_after(a, p, 8) < before,
       "w=8: blocks counted in 16x8 (%s)", o.kept_input ? "kept" : "fewer");
    tc_perm_free(p);
    tc_csr_free(a);
}

/* The sweep's block counts are the bcsr format's, with w = 8 too. */
static void check_counts(void)
{
    tc_csr *a = tap_random_matrix(3000, 2000, 4, -1, -1, 0);
    for (int w = 8; w <= 16; w += 8) {
        char params[32];
        snprintf(params, sizeof params, "w=%d", w);
        tc_reorder_outcome o;
        tc_perm *p = run(a, params, &o);
        int64_t before = bcsr_blocks(a, w), after = blocks_after(a, p, w);
        ok(after < before && !o.kept_input, "random 3000 x 2000, 16x%d blocks: %" PRId64
           " -> %" PRId64, w, before, after);
        tc_perm_free(p);
    }
    tc_csr_free(a);
}

/* --------------------------------------------------------- refusals */

static void check_refusals(void)
{
    tc_csr *a = band(20, 1);
    tc_params p = { 0 };
    tc_error err;
    tc_perm *perm = NULL;
    tc_reorder_outcome o;
    tc_params_parse(&p, "tau=1.5", &err);
    ok(tc_reorder_run_outcome(JACCARD, a, &p, &perm, &o, NULL, &err) == TC_ERR_ARG && !perm,
       "tau=1.5 refused");
    is_str(err.msg, "jaccard: tau=1.5 is out of range [0, 1]", "  with the message");
    p.n = 0;
    tc_params_parse(&p, "h=0", &err);
    tc_reorder_run_outcome(JACCARD, a, &p, &perm, &o, NULL, &err);
    is_str(err.msg, "jaccard: h=0 is out of range [1, 1024]", "h=0 refused");
    p.n = 0;
    tc_params_parse(&p, "candidates=2.5", &err);
    tc_reorder_run_outcome(JACCARD, a, &p, &perm, &o, NULL, &err);
    ok(perm == NULL, "candidates=2.5 refused (a whole number)");
    p.n = 0;
    tc_params_parse(&p, "slice=-1", &err);
    tc_reorder_run_outcome(JACCARD, a, &p, &perm, &o, NULL, &err);
    is_str(err.msg, "jaccard: slice=-1 is out of range [0, 2147483647]", "slice=-1 refused");
    tc_csr_free(a);
}

/* ------------------------------------------------------ real matrices */

static void check_shared_one(const char *name, const tc_csr *a)
{
    if (a->nnz > 250000)
        return;     /* the larger ones are timed by bench/reorder.sh */
    tc_reorder_outcome o;
    tc_perm *p = run(a, NULL, &o);
    int64_t before = bcsr_blocks(a, 16), after = blocks_after(a, p, 16);
    ok(o.kept_input ? after == before && tc_perm_is_identity(p) : after < before,
       "%s: 16x16 blocks %" PRId64 " -> %" PRId64 "%s", name, before, after,
       o.kept_input ? " (input order kept)" : "");
    tc_perm_free(p);
}

int main(void)
{
    JACCARD = tc_reorder_find("jaccard");
    if (!JACCARD)
        bail("no method jaccard");
    check_refusals();
    check_shapes();
    check_threads();
    check_scrambled();
    check_rule();
    check_kept();
    check_counts();
    for_each_shared(check_shared_one);
    return done_testing();
}
