/* t_rowsplit: what is particular to the `rowsplit` format: its segments
   and the kernel's work list against a slow reading of the rules (every
   nonzero and every row in exactly one segment, or a split row's nonzeros
   in its pieces; the cost of each at most seg; a row split exactly when it
   alone costs more; pieces of nearly equal length) on the awkward shapes,
   several seg, both row orders and the real matrices, and against examples
   worked out by hand; the row order (longest first, stable) and its
   default; its figures; and every refusal of validate and of the file
   reader, with its messages. What every format must do (round trip, SpMM,
   NaN/Inf, threads, files, edited arrays) is t_formats'. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rowsplit.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"

static const tc_format *ROWSPLIT;
#define GROUP "/formats/rowsplit"
static const char *const SEGS[] = { "seg=2,rowcost=1", "seg=3", "seg=17", "seg=2,order=1,rowcost=1",
                                    "seg=17,order=1", "seg=3,order=0", "seg=9,rowcost=8",
                                    "seg=40,rowcost=7,order=1", "seg=5,rowcost=1", NULL };

static tc_rowsplit *build(const tc_csr *a, const char *params)
{
    return (tc_rowsplit *)build_fmt(ROWSPLIT, a, params);
}

/* ------------------------------------------------- the rules, slowly */

/* 1 when m holds a's rows in the order its parameter says: order 0 a
   itself; order 1 longest first, rows of one length in a's order, with
   m->rows saying which row of a each is. */
static int order_right(const tc_csr *a, const tc_rowsplit *m)
{
    if (tc_params_get(&m->base.params, "order", -1) == 0)
        return !m->rows && tc_csr_equal(m->a, a);
    if (tc_params_get(&m->base.params, "order", -1) != 1 || !m->rows || m->rows->n != a->rows)
        return 0;
    for (int32_t i = 0; i < a->rows; i++) {
        const int32_t r = m->rows->new2old[i];
        const int64_t len = a->rowptr[r + 1] - a->rowptr[r];
        if (m->a->rowptr[i + 1] - m->a->rowptr[i] != len ||
            memcmp(m->a->colidx + m->a->rowptr[i], a->colidx + a->rowptr[r],
                   (size_t)len * sizeof *a->colidx) != 0)
            return 0;
        if (i > 0) {
            const int32_t q = m->rows->new2old[i - 1];
            const int64_t prev = a->rowptr[q + 1] - a->rowptr[q];
            if (prev < len || (prev == len && q > r))
                return 0;
        }
    }
    return 1;
}

/* 1 when the cut of m's rows (m->a) by seg follows rowsplit.h: rows in
   order, each whole in one segment when it costs at most seg (len +
   rowcost), packed greedily (a segment is closed only when the next row
   would not fit), else in ceil(len / (seg - rowcost)) pieces of nearly
   equal length; and the work list says the same. */
static int follows_rules(const tc_rowsplit *m)
{
    const tc_csr *a = m->a;
    const int64_t k = m->rowcost;
    tc_rowsplit_work_list w;
    tc_error err;
    if (tc_rowsplit_work(m, &w, &err))
        return 0;
    int good = w.nseg == m->nseg;
    int64_t s = 0, slots = 0, split = 0;
    for (int32_t r = 0; good && r < a->rows;) {
        const int64_t len = a->rowptr[r + 1] - a->rowptr[r];
        if (len + k > m->seg) {
            const int64_t parts = (len + m->seg - k - 1) / (m->seg - k);
            for (int64_t j = 0; good && j < parts; j++, s++) {
                const tc_rowsplit_seg *g = &w.seg[s];
                good = s < w.nseg && m->seg_row[s] == r && g->row0 == r && g->nrows == 1 &&
                       g->nz0 == a->rowptr[r] + len * j / parts &&
                       g->nz1 == a->rowptr[r] + len * (j + 1) / parts && g->nz1 > g->nz0 &&
                       g->nz1 - g->nz0 + k <= m->seg && g->slot == slots + j &&
                       g->first == slots && g->parts == parts && g->counter == split;
            }
            slots += parts;
            split++;
            r++;
            continue;
        }
        /* whole rows from r while they fit */
        int64_t cost = 0;
        int32_t e = r;
        for (; e < a->rows; e++) {
            const int64_t l = a->rowptr[e + 1] - a->rowptr[e];
            if (l + k > m->seg || cost + l + k > m->seg)
                break;
            cost += l + k;
        }
        const tc_rowsplit_seg *g = &w.seg[s];
        good = s < w.nseg && m->seg_row[s] == r && g->row0 == r && g->nrows == e - r &&
               g->nz0 == a->rowptr[r] && g->nz1 == a->rowptr[e] && g->slot == -1 &&
               g->parts == 1;
        s++;
        r = e;
    }
    good = good && s == m->nseg && w.nslots == slots && w.nsplit == split &&
           m->seg_start[m->nseg] == a->nnz;
    tc_rowsplit_work_free(&w);
    return good;
}

/* 1 when the lockstep kernel's runs of m for `groups` groups follow
   rowsplit.h: every segment's items once, in order (a piece as -s - 1, a
   whole-row segment as its rows), and steps of `groups` items packed
   greedily into runs of cost at most seg, a step costing its longest
   item plus rowcost. */
static int runs_follow_rules(const tc_rowsplit *m, int groups)
{
    tc_rowsplit_run_list r;
    tc_error err;
    if (tc_rowsplit_runs(m, groups, &r, &err))
        return 0;
    int64_t e = 0;
    int good = 1;
    for (int64_t s = 0; good && s < m->nseg; s++)
        if (tc_rowsplit_is_piece(m, s))
            good = e < r.nitems && r.item[e++] == -s - 1;
        else
            for (int32_t i = m->seg_row[s]; good && i < tc_rowsplit_end_row(m, s); i++)
                good = e < r.nitems && r.item[e++] == i;
    good = good && e == r.nitems && r.run_start[0] == 0 && r.run_start[r.nruns] == r.nitems;
    int64_t cost = 0;
    for (int64_t k = 0, run = 0; good && k < r.nitems; k += groups) {
        int64_t step = 0;
        for (int64_t i = k; i < k + groups && i < r.nitems; i++) {
            const int64_t it = r.item[i];
            const int64_t len = it >= 0 ? m->a->rowptr[it + 1] - m->a->rowptr[it]
                                        : m->seg_start[-it] - m->seg_start[-it - 1];
            step = len > step ? len : step;
        }
        step += m->rowcost;
        const int starts = run < r.nruns && r.run_start[run] == k;
        good = starts == (cost == 0 || cost + step > m->seg);
        if (starts) {
            run++;
            cost = 0;
        }
        cost += step;
        good = good && (k + groups < r.nitems || run == r.nruns);
    }
    tc_rowsplit_runs_free(&r);
    return good;
}

static void check_matrix(const char *name, const tc_csr *a)
{
    for (int i = 0; SEGS[i]; i++) {
        tc_rowsplit *m = build(a, SEGS[i]);
        ok(follows_rules(m) && order_right(a, m),
           "%s, %s: row order, segments and work list follow the rules", name, SEGS[i]);
        ok(runs_follow_rules(m, 1) && runs_follow_rules(m, 4) && runs_follow_rules(m, 32),
           "%s, %s: the lockstep runs for 1, 4 and 32 groups follow the rules", name, SEGS[i]);
        tc_fmt_free(&m->base);
    }
}

/* ------------------------------------------------- by hand */

/* 6 x 8: row 0 holds 5 nonzeros (columns 0-4), row 1 none, row 2 one
   (column 7), row 3 two (1, 6), row 4 none, row 5 one (2); value of
   (r, c) = 10 r + c + 1. Row lengths 5 0 1 2 0 1: coefficient of
   variation 1.1, so order 1 by default. */
static tc_csr *hand_6x8(void)
{
    static const int32_t ri[] = { 0, 0, 0, 0, 0, 2, 3, 3, 5 },
                         ci[] = { 0, 1, 2, 3, 4, 7, 1, 6, 2 };
    double v[9];
    for (int k = 0; k < 9; k++)
        v[k] = 10 * ri[k] + ci[k] + 1;
    return from_coo(6, 8, 9, ri, ci, v);
}

/* Longest first: rows 0 3 2 5 1 4 (lengths 5 2 1 1 0 0). At seg=4 stored
   row 0 is split as before; stored rows 1 (cost 3), 2-3 (2 + 2), 4-5
   (1 + 1); C's rows go back where they belong. */
static void check_by_hand_longest_first(const tc_csr *a)
{
    tc_rowsplit *m = build(a, "seg=4,order=1,rowcost=1");
    static const int32_t rows[] = { 0, 3, 2, 5, 1, 4 }, seg_row[] = { 0, 0, 1, 2, 4 };
    static const int64_t seg_start[] = { 0, 2, 5, 7, 9, 9 };
    ok(m->rows && same_i32(m->rows->new2old, rows, 6),
       "by hand, order=1: rows stored as 0 3 2 5 1 4");
    ok(m->nseg == 5 && same_i32(m->seg_row, seg_row, 5) && same_i64(m->seg_start, seg_start, 6),
       "by hand, order=1: seg_row = 0 0 1 2 4, seg_start = 0 2 5 7 9 9");
    ok(tc_rowsplit_row(m, 1) == 3 && tc_rowsplit_row(m, 5) == 4,
       "by hand, order=1: stored row 1 is row 3, stored row 5 row 4");
    is_int(tc_fmt_bytes(&m->base), 7 * 8 + 9 * (4 + 4) + 5 * (int64_t)sizeof(tc_rowsplit_seg) +
           6 * 4, "by hand, order=1: bytes of the GPU layout, with the int32 row order");
    tc_csr *back = NULL;
    tc_error err;
    ok(ROWSPLIT->to_csr(&m->base, &back, &err) == TC_OK && tc_csr_equal(back, a),
       "by hand, order=1: decodes to the matrix in its own order");
    tc_csr_free(back);
    tc_fmt_free(&m->base);
}

/* At seg=4 and rowcost=1: row 0 costs 6, split into ceil(5 / 3) = 2
   pieces, nonzeros 0-1 and 2-4; rows 1-2 cost 1 + 2; row 3 (3) does not
   fit after them, row 4 (1) does; row 5 (2) does not. */
static void check_by_hand(void)
{
    tc_csr *a = hand_6x8();
    tc_rowsplit *m = build(a, "seg=4,order=0,rowcost=1");
    static const int32_t seg_row[] = { 0, 0, 1, 3, 5 };
    static const int64_t seg_start[] = { 0, 2, 5, 6, 8, 9 };
    ok(m->nseg == 5 && same_i32(m->seg_row, seg_row, 5) && same_i64(m->seg_start, seg_start, 6),
       "by hand, seg=4: seg_row = 0 0 1 3 5, seg_start = 0 2 5 6 8 9");
    ok(tc_rowsplit_is_piece(m, 0) && tc_rowsplit_is_piece(m, 1) && !tc_rowsplit_is_piece(m, 2) &&
       !tc_rowsplit_is_piece(m, 4), "by hand: segments 0 and 1 are pieces of row 0, 2-4 not");
    ok(tc_rowsplit_end_row(m, 0) == 1 && tc_rowsplit_end_row(m, 1) == 1 &&
       tc_rowsplit_end_row(m, 2) == 3 && tc_rowsplit_end_row(m, 3) == 5 &&
       tc_rowsplit_end_row(m, 4) == 6, "by hand: segments end before rows 1 1 3 5 6");
    tc_rowsplit_work_list w;
    tc_error err;
    ok(tc_rowsplit_work(m, &w, &err) == TC_OK && w.nseg == 5 && w.nslots == 2 && w.nsplit == 1,
       "by hand: work list of 5 segments, 2 workspace slots, 1 split row");
    const tc_rowsplit_seg *g = w.seg;
    ok(g[0].nz0 == 0 && g[0].nz1 == 2 && g[0].slot == 0 && g[0].first == 0 && g[0].parts == 2 &&
       g[0].counter == 0 && g[1].nz0 == 2 && g[1].nz1 == 5 && g[1].slot == 1 &&
       g[1].first == 0 && g[1].parts == 2 && g[1].counter == 0,
       "by hand: the pieces of row 0 take slots 0 and 1 and counter 0");
    ok(g[2].row0 == 1 && g[2].nrows == 2 && g[2].slot == -1 && g[3].row0 == 3 &&
       g[3].nrows == 2 && g[3].nz0 == 6 && g[3].nz1 == 8 && g[4].row0 == 5 && g[4].nrows == 1 &&
       g[4].parts == 1, "by hand: whole rows 1-2, 3-4 (4 empty) and 5");
    tc_rowsplit_work_free(&w);
    /* lockstep items: the pieces -1 -2 (2 and 3 nonzeros), rows 1-5 (0 1
       2 0 1); steps of 2 cost 4, 2, 3, 2, no two of which fit seg=4 */
    tc_rowsplit_run_list r;
    static const int32_t items[] = { -1, -2, 1, 2, 3, 4, 5 };
    static const int64_t starts[] = { 0, 2, 4, 6, 7 };
    ok(tc_rowsplit_runs(m, 2, &r, &err) == TC_OK && r.nitems == 7 &&
       same_i32(r.item, items, 7) && r.nruns == 4 && same_i64(r.run_start, starts, 5),
       "by hand: lockstep items -1 -2 1 2 3 4 5, runs of 2 groups from items 0 2 4 6");
    tc_rowsplit_runs_free(&r);
    is_int(tc_fmt_bytes(&m->base), 7 * 8 + 9 * (4 + 4) + 5 * (int64_t)sizeof(tc_rowsplit_seg),
           "by hand: bytes of the GPU layout (int64 row_ptr, int32 col_id, float values, work "
           "list)");
    tc_fmt_free(&m->base);

    /* the defaults: rowcost 2, seg ceil(1.3 x 3.5) = 5, longest first
       (stored rows of 5 2 1 1 0 0): row 0 (cost 7) in ceil(5 / 3) = 2
       pieces; stored row 1 (4) alone, as 2 (3) is, then 3 and 4 (3 + 2),
       5 (2) */
    m = build(a, NULL);
    static const int32_t def_row[] = { 0, 0, 1, 2, 3, 5 };
    static const int64_t def_start[] = { 0, 2, 5, 7, 8, 9, 9 };
    ok(m->seg == 5 && m->rowcost == 2 && tc_params_get(&m->base.params, "seg", 0) == 5 &&
       tc_params_get(&m->base.params, "rowcost", 0) == 2 &&
       tc_params_get(&m->base.params, "order", -1) == 1 && m->nseg == 6 &&
       same_i32(m->seg_row, def_row, 6) && same_i64(m->seg_start, def_start, 7),
       "by hand, defaults: rowcost=2, seg=5 (1.3 x the mean cost 3.5), order=1, stored; "
       "seg_row = 0 0 1 2 3 5");
    ok(follows_rules(m), "  and the cut follows the rules");
    tc_fmt_free(&m->base);
    check_by_hand_longest_first(a);
    tc_csr_free(a);
}

/* seg not given: 1.3 times the mean cost of a row, kept between 128 and
   the cost (nonzeros + 2 x rows, rowcost's default) over 8192. Three rows
   of 200 (cost 202): ceil(262.6) = 263, but 128 on a matrix this small,
   each row in 2; 12000 such rows (cost 2.42M, over 8192: 296): 263, no
   row cut; 1200 rows of 2000: 294, cost over 8192; a row of 200 among
   nine of one nonzero (cost 229, mean 22.9): ceil(29.77) = 30, the long
   row cut in ceil(200 / 28) = 8; 262144 rows of one (cost 786432): 96;
   600000 (cost 1.8M): 128. At rowcost=1, 409600 rows of one (cost
   819200): 100. Asked for, seg is kept. */
static tc_csr *rows_of(int32_t rows, const int32_t *len)
{
    int64_t n = 0;
    int32_t cols = 200;
    for (int32_t i = 0; i < rows; i++) {
        n += len[i];
        cols = len[i] > cols ? len[i] : cols;
    }
    int32_t *ri = malloc((size_t)n * sizeof *ri), *ci = malloc((size_t)n * sizeof *ci);
    double *v = malloc((size_t)n * sizeof *v);
    int64_t k = 0;
    for (int32_t i = 0; i < rows; i++)
        for (int32_t j = 0; j < len[i]; j++, k++) {
            ri[k] = i;
            ci[k] = j;
            v[k] = 1 + j;
        }
    tc_csr *a = from_coo(rows, cols, n, ri, ci, v);
    free(ri);
    free(ci);
    free(v);
    return a;
}

/* rows rows of length nonzeros each, built with params: the default seg
   is want. */
static void check_default_seg_spread(int32_t rows, int32_t length, const char *params,
                                     int32_t want, const char *what)
{
    int32_t *len = malloc((size_t)rows * sizeof *len);
    for (int32_t i = 0; i < rows; i++)
        len[i] = length;
    tc_csr *a = rows_of(rows, len);
    free(len);
    tc_rowsplit *m = build(a, params);
    ok(m->seg == want && tc_params_get(&m->base.params, "seg", 0) == want && follows_rules(m),
       "default seg, %s; the cut follows the rules", what);
    tc_fmt_free(&m->base);
    tc_csr_free(a);
}

static void check_default_seg(void)
{
    static const int32_t even[3] = { 200, 200, 200 },
                         one_long[10] = { 1, 1, 1, 1, 200, 1, 1, 1, 1, 1 };
    tc_csr *a = rows_of(3, even);
    tc_rowsplit *m = build(a, NULL);
    ok(m->seg == 128 && m->nseg == 6 && tc_params_get(&m->base.params, "seg", 0) == 128,
       "default seg, three rows of 200: 128 (a small matrix), stored; each row in 2");
    ok(tc_params_get(&m->base.params, "order", -1) == 0 && !m->rows,
       "default order, rows of one length: 0 (stored)");
    tc_fmt_free(&m->base);
    m = build(a, "seg=300");
    ok(m->seg == 300 && m->nseg == 3, "seg=300 asked for, rows of 200: kept, 3 whole rows");
    tc_fmt_free(&m->base);
    tc_csr_free(a);
    a = rows_of(10, one_long);
    m = build(a, "order=0");
    ok(m->seg == 30 && m->nseg == 10 && m->seg_row[1] == 4 && m->seg_row[8] == 4 &&
       m->seg_row[9] == 5,
       "default seg, one row of 200 among rows of 1: 30 (1.3 x the mean cost), that row in 8 "
       "pieces");
    ok(follows_rules(m), "  and the cut follows the rules");
    tc_fmt_free(&m->base);
    m = build(a, NULL);
    ok(tc_params_get(&m->base.params, "order", -1) == 1 && m->rows &&
       m->rows->new2old[0] == 4 && m->nseg == 9,
       "default order, one row of 200 among rows of 1 (variation 3): 1, that row first");
    ok(follows_rules(m) && order_right(a, m), "  and the order and the cut follow the rules");
    tc_fmt_free(&m->base);
    tc_csr_free(a);
    static const int32_t cv096[4] = { 1, 1, 1, 6 }, cv087[4] = { 1, 1, 1, 5 };
    a = rows_of(4, cv096);
    m = build(a, NULL);
    ok(m->rows && m->rows->new2old[0] == 3,
       "default order, rows of 1 1 1 6 (variation 0.96, past 0.9): longest first");
    tc_fmt_free(&m->base);
    tc_csr_free(a);
    a = rows_of(4, cv087);
    m = build(a, NULL);
    ok(!m->rows && tc_params_get(&m->base.params, "order", -1) == 0,
       "default order, rows of 1 1 1 5 (variation 0.87): the matrix's");
    tc_fmt_free(&m->base);
    tc_csr_free(a);
    a = rows_of(0, NULL);
    m = build(a, NULL);
    ok(m->seg == 3 && m->nseg == 0,
       "default seg, no rows: 3 (the least above rowcost 2), no segments");
    tc_fmt_free(&m->base);
    tc_csr_free(a);
    check_default_seg_spread(12000, 200, NULL, 263,
                             "12000 rows of 200: 263 (1.3 x 202), no row cut");
    check_default_seg_spread(1200, 2000, NULL, 294, "1200 rows of 2000: 294 (cost / 8192)");
    check_default_seg_spread(262144, 1, NULL, 96,
                             "262144 rows of 1 (cost 786432): 786432 / 8192 = 96");
    check_default_seg_spread(409600, 1, "rowcost=1", 100,
                             "409600 rows of 1 at rowcost=1 (cost 819200): 100");
    check_default_seg_spread(600000, 1, NULL, 128, "600000 rows of 1 (cost 1.8M): 128");
}

/* ------------------------------------------------------ figures */

static void check_stats(void)
{
    tc_csr *a = hand_6x8();
    tc_rowsplit *m = build(a, "seg=4,order=0,rowcost=1");
    tc_report *r = tc_report_new();
    tc_error err;
    ok(tc_format_stats_report(&m->base, a, r, &err) == TC_OK, "stats of the hand example");
    const char *s = "format.rowsplit";
    ok(fmt_figure(r, s, "segments") == 5 && fmt_figure(r, s, "split_rows") == 1 &&
       fmt_figure(r, s, "pieces") == 2, "5 segments, 1 split row in 2 pieces");
    ok(fmt_figure(r, s, "cost_mean") == 16.0 / 5 && fmt_figure(r, s, "cost_max") == 4 &&
       fmt_figure(r, s, "fill") == 16.0 / 20, "costs 3 4 3 4 2: mean 3.2, max 4, fill 0.8");
    tc_report_free(r);
    tc_fmt_free(&m->base);
    /* rowcost 2 at seg 5: pieces 0-1 and 2-4 of row 0 (4, 5), rows 1-2
       (2 + 3), row 3 (4), rows 4-5 (2 + 3) */
    m = build(a, "seg=5,order=0,rowcost=2");
    r = tc_report_new();
    ok(tc_format_stats_report(&m->base, a, r, &err) == TC_OK && m->nseg == 5 &&
       fmt_figure(r, s, "cost_mean") == 23.0 / 5 && fmt_figure(r, s, "cost_max") == 5 &&
       fmt_figure(r, s, "fill") == 23.0 / 25,
       "rowcost=2, seg=5: costs 4 5 5 4 5: mean 4.6, max 5, fill 0.92");
    tc_report_free(r);
    tc_fmt_free(&m->base);
    tc_csr_free(a);
}

/* ------------------------------------------------------ files */

static const char *hand_file(const tc_csr *a, const char *params)
{
    return fmt_file(a, build_fmt(ROWSPLIT, a, params), 0);
}

/* The hand example's file with params, its dataset `name` replaced (type
   0: removed), refused by the reader with st and want. */
static void tampered(const tc_csr *a, const char *params, const char *name, hid_t type,
                     hsize_t n, const void *data, tc_status st, const char *what,
                     const char *want)
{
    const char *p = hand_file(a, params);
    put_dataset(p, GROUP, name, type, n, data);
    read_refused(p, GROUP, st, what, want);
}

/* What the reader checks before validation: every dataset present, with
   the length the header and seg_row imply, values exactly when has_values
   says so, row_order (order=1) a permutation, no more segments than rows
   + nonzeros. */
static void check_bad_files(void)
{
    tc_csr *a = hand_6x8();
    static const int32_t rows16[16] = { 0 };
    static const int64_t zeros8[8] = { 0 };
    const char *given = "seg=4,order=0,rowcost=1", *longest = "seg=4,order=1,rowcost=1";
    static const int32_t twice[6] = { 0, 3, 2, 5, 1, 3 };
    tampered(a, given, "seg_row", H5T_NATIVE_INT32, 16, rows16, TC_ERR_FORMAT,
             "16 segments for 6 rows and 9 nonzeros", "/seg_row: 16 segments, more than rows + "
             "nonzeros (15: each segment holds a row or a nonzero)");
    tampered(a, given, "seg_start", H5T_NATIVE_INT64, 5, zeros8, TC_ERR_FORMAT, "seg_start of 5",
             "/seg_start: expected 6 entries, found 5");
    tampered(a, given, "row_ptr", H5T_NATIVE_INT64, 8, zeros8, TC_ERR_FORMAT, "row_ptr of 8",
             "/row_ptr: expected 7 entries, found 8");
    tampered(a, given, "values", 0, 0, NULL, TC_ERR_FORMAT, "no values",
             "/values: no such dataset");
    tampered(a, given, "seg_row", 0, 0, NULL, TC_ERR_FORMAT, "no seg_row",
             "/seg_row: no such dataset");
    tampered(a, longest, "row_order", 0, 0, NULL, TC_ERR_FORMAT, "order=1, no row_order",
             "/row_order: no such dataset");
    tampered(a, longest, "row_order", H5T_NATIVE_INT32, 5, twice, TC_ERR_FORMAT,
             "row_order of 5", "/row_order: expected 6 entries, found 5");
    tampered(a, longest, "row_order", H5T_NATIVE_INT32, 6, twice, TC_ERR_INVALID,
             "row_order with row 3 twice", "/row_order: index 3 appears twice (entries 1 and 5): "
             "not a permutation");
    /* rowcost: a file from before it has none and was cut at 1, which it
       reads as; a file cut at 2 without it (what a tcsparse from before
       the parameter sees, ignoring attributes it does not know) reads as
       1 and holds there; one out of range, or not under seg, is the file's
       fault */
    const char *p = hand_file(a, "seg=4,order=0,rowcost=1");
    put_attr(p, GROUP, "rowcost", 0, 0);
    tc_tcf *t = NULL;
    tc_error err;
    ok(tc_h5_read(p, 1, &t, &err) == TC_OK && t->nformats == 1 &&
           ((const tc_rowsplit *)t->formats[0])->rowcost == 1 &&
           ((const tc_rowsplit *)t->formats[0])->seg == 4,
       "a file without rowcost (cut at 1 before there was one): read as rowcost 1, validated");
    tc_tcf_free(t);
    remove(p);
    p = hand_file(a, "seg=5,order=0");
    put_attr(p, GROUP, "rowcost", 0, 0);
    put_attr(p, GROUP, "zzz", 1, 1);
    t = NULL;
    ok(tc_h5_read(p, 1, &t, &err) == TC_OK && t->nformats == 1 &&
           ((const tc_rowsplit *)t->formats[0])->rowcost == 1,
       "a file cut at rowcost 2, the attribute removed and one it does not know added: read "
       "as rowcost 1, validated");
    tc_tcf_free(t);
    remove(p);
    p = hand_file(a, given);
    put_attr(p, GROUP, "rowcost", 1, 0);
    read_refused(p, GROUP, TC_ERR_FORMAT, "rowcost=0", ": rowcost=0 is out of range [1, 64]");
    p = hand_file(a, given);
    put_attr(p, GROUP, "rowcost", 1, 4);
    read_refused(p, GROUP, TC_ERR_INVALID, "rowcost=4 at seg=4",
                 ": seg=4 is not more than rowcost=4 (a piece of a split row costs its row and a "
                 "nonzero at least)");
    tc_csr_free(a);
}

/* ------------------------------------------------------- validation */

#define WHAT "m.tcf.h5: " GROUP
#define REFUSED(lvalue, bad, want) FMT_REFUSED(ROWSPLIT, &m->base, a, WHAT, lvalue, bad, want)

static void check_refusals(void)
{
    tc_csr *a = hand_6x8();
    tc_rowsplit *m = build(a, "seg=4,order=0,rowcost=1");
    tc_error err;
    ok(ROWSPLIT->validate(&m->base, a, "m", &err) == TC_OK, "the hand example validates");
    REFUSED(m->seg_row[0], 1, WHAT "/seg_row[0]: row 1 after row 0 (from 0, not decreasing, "
            "below 6)");
    REFUSED(m->seg_row[3], 0, WHAT "/seg_row[3]: row 0 after row 1 (from 0, not decreasing, "
            "below 6)");
    REFUSED(m->seg_row[4], 6, WHAT "/seg_row[4]: row 6 after row 3 (from 0, not decreasing, "
            "below 6)");
    REFUSED(m->seg_row[2], 2, WHAT "/seg_row[1]: row 0 is split, so the next segment must start "
            "at row 1, not 2");
    REFUSED(m->seg_start[0], 1, WHAT "/seg_start: runs from 1 to 9, expected 0 to 9 (the "
            "nonzeros)");
    REFUSED(m->seg_start[3], 4, WHAT "/seg_start[3]: 4 after 5 (must not decrease)");
    REFUSED(m->seg_start[1], 0, WHAT "/seg_start[0]: piece 0 .. 0 of split row 0 is empty or "
            "outside its nonzeros 0 .. 5");
    REFUSED(m->seg_start[2], 4, WHAT "/seg_start[2]: nonzeros 4 .. 6 for rows 1 .. 2, expected "
            "5 .. 6");
    REFUSED(m->seg, 3, WHAT "/seg_start[1]: segment costs 4 (nonzeros + 1 x rows), more than "
            "seg=3");
    REFUSED(m->rowcost, 3, WHAT "/seg_start[0]: segment costs 5 (nonzeros + 3 x rows), more "
            "than seg=4");
    REFUSED(m->rowcost, 4, WHAT ": seg=4 is not more than rowcost=4 (a piece of a split row "
            "costs its row and a nonzero at least)");
    REFUSED(m->a->colidx[4], 9, WHAT "/row_ptr, col_id: row 0: column index 9 outside 0..7");
    REFUSED(m->a->rowptr[2], 4, WHAT "/row_ptr, col_id: row pointers not monotone at row 1 (5 "
            "then 4, nnz 9)");
    REFUSED(m->a->val[3], 0.5, WHAT ": does not encode /matrix (row 0 differs)");
    REFUSED(m->a->val, NULL, WHAT "/values: absent, but has_values is 1");
    other_matrix_refused(ROWSPLIT, &m->base, a, "m: does not encode /matrix (6x8, 9 nonzeros, "
                         "has_values 1, against 6x9, 9, 1)");
    tc_fmt_free(&m->base);

    build_refused(ROWSPLIT, a, "seg=1", "rowsplit: seg=1 is out of range [2, 65536]");
    build_refused(ROWSPLIT, a, "order=2", "rowsplit: order=2 is out of range [0, 1]");
    build_refused(ROWSPLIT, a, "rowcost=0", "rowsplit: rowcost=0 is out of range [1, 64]");
    build_refused(ROWSPLIT, a, "seg=2", "rowsplit: seg=2 must be more than rowcost=2 (a piece "
                  "of a split row costs its row and a nonzero at least)");
    build_refused(ROWSPLIT, a, "seg=8,rowcost=8", "rowsplit: seg=8 must be more than rowcost=8 "
                  "(a piece of a split row costs its row and a nonzero at least)");
    tc_csr_free(a);
}

/* segs=N: the least seg whose cut has at most N segments, stored as the
   file's seg beside segs; past what even seg 2 gives, seg 2; below what
   the largest seg gives, the largest; the rows' order (longest first)
   counted, as the cut is. */
static void check_segs(void)
{
    tc_csr *a = tap_random_matrix(5000, 4000, 12, 9, 31, 0);
    const char *orders[] = { "order=0", "order=1" };
    for (int o = 0; a && o < 2; o++)
        for (int64_t most = 100; most <= 20000; most *= 3) {
            char params[64];
            snprintf(params, sizeof params, "segs=%lld,%s", (long long)most, orders[o]);
            tc_rowsplit *m = build(a, params);
            if (!ok(m != NULL, "%s: built", params))
                continue;
            const int32_t seg = m->seg;
            ok(m->nseg <= most && tc_params_get(&m->base.params, "seg", -1) == seg &&
                   tc_params_get(&m->base.params, "segs", -1) == (double)most,
               "%s: %lld segments at seg=%d, seg and segs stored", params, (long long)m->nseg,
               (int)seg);
            if (seg > m->rowcost + 1) {
                snprintf(params, sizeof params, "seg=%d,%s", (int)seg - 1, orders[o]);
                tc_rowsplit *less = build(a, params);
                ok(less && less->nseg > most, "... seg=%d would cut %lld: more than %lld",
                   (int)seg - 1, less ? (long long)less->nseg : -1LL, (long long)most);
                tc_fmt_free(less ? &less->base : NULL);
            }
            tc_fmt_free(&m->base);
        }
    tc_rowsplit *all = a ? build(a, "segs=1000000000") : NULL;
    ok(all && all->seg == 3, "segs past every cut: seg 3, the least above rowcost 2");
    tc_rowsplit *one = a ? build(a, "segs=1") : NULL;
    ok(one && one->seg == 65536 && one->nseg > 1,
       "segs=1, which no seg reaches on 5000 rows: the largest seg, 65536 (%lld segments)",
       one ? (long long)one->nseg : -1LL);
    tc_fmt_free(all ? &all->base : NULL);
    tc_fmt_free(one ? &one->base : NULL);
    tc_csr_free(a);
}

int main(void)
{
    ROWSPLIT = tc_format_find("rowsplit");
    if (!ROWSPLIT)
        bail("no format rowsplit");
    check_by_hand();
    check_default_seg();
    check_segs();
    check_stats();
    for_each_shape(check_matrix);
    check_bad_files();
    check_refusals();
    for_each_shared(check_matrix);
    return done_testing();
}
