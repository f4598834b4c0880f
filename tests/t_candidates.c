/* t_candidates.c: what wjaccard and hmatch share (lib/reorder/candidates.h):
   the candidate map, the rows of a column read about a row, and the
   budgeted walk over a row's or group's columns, by hand. */
#include "config.h"
#include <stdlib.h>
#include "tcsparse.h"
#include "reorder/candidates.h"
#include "tap.h"

/* The pattern transposed, t: column 0 held by rows 0-9, column 1 by rows
   5 and 6, column 2 by rows 1, 3 and 5. */
static tc_csr *columns(void)
{
    static const int32_t col[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 2 },
                         row[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 5, 6, 1, 3, 5 };
    tc_csr *t = NULL;
    tc_error err;
    if (tc_csr_from_coo(&t, 3, 10, 15, col, row, NULL, 1, &err) != TC_OK) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    return t;
}

static void check_span(const tc_csr *t)
{
    int64_t lo, hi;
    int s = tc_column_span(t, 0, 5, 20, &lo, &hi);
    ok(!s && lo == 0 && hi == 10, "span: a column no longer than cap + 1 is read whole");
    s = tc_column_span(t, 0, 5, 4, &lo, &hi);
    ok(s && lo == 3 && hi == 8, "span: a longer one, cap + 1 rows centred on the row (3-7)");
    tc_column_span(t, 0, 0, 4, &lo, &hi);
    ok(lo == 0 && hi == 5, "span: ... moved in at the column's start (0-4)");
    tc_column_span(t, 0, 9, 4, &lo, &hi);
    ok(lo == 5 && hi == 10, "span: ... and at its end (5-9)");
}

/* The columns a walk gives, as "c:lo-hi " each. */
static const char *walked(tc_col_walk *w)
{
    static char buf[128];
    int n = 0, sampled;
    int32_t c;
    int64_t lo, hi;
    buf[0] = '\0';
    while (tc_col_walk_next(w, &c, &lo, &hi, &sampled))
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%d:%lld-%lld%s ", (int)c, (long long)lo,
                      (long long)hi - 1, sampled ? "s" : "");
    return buf;
}

static void check_walk(const tc_csr *t)
{
    static const int32_t row5[] = { 0, 1, 2 }, group[] = { 0, 2 };
    uint64_t *keys = NULL;
    int64_t room = 0;
    tc_cand_map map = { 0 };
    tc_col_walk w;

    /* row 5 of the matrix (in every column of its own, not counted): it
       can meet 4 + 1 + 2 = 7 rows at cap 4 */
    ok(tc_col_walk_start(&w, t, row5, 3, 5, 4, 100, 1, &keys, &room, &map) && !w.over &&
       map.size >= 14, "walk (self): under budget 100, room for 7 candidates");
    is_str(walked(&w), "0:3-7s 1:10-11 2:12-14 ", "walk (self): the columns in order, 0 sampled");
    ok(w.left == 100 - 7, "walk (self): 7 of the budget spent");
    ok(tc_col_walk_start(&w, t, row5, 3, 5, 4, 4, 1, &keys, &room, &map) && w.over,
       "walk (self): over budget 4");
    is_str(walked(&w), "1:10-11 2:12-14 0:5-6s ",
           "walk (self): rarest first (1, 2, 0); the budget left (1) bounds column 0 to 2 rows");
    ok(tc_col_walk_start(&w, t, row5, 3, 5, 4, 3, 1, &keys, &room, &map), "walk (self): budget 3");
    is_str(walked(&w), "1:10-11 2:12-14 ", "walk (self): spent after columns 1 and 2");

    /* a group about row 5 (every entry read counts): 5 + 3 = 8 */
    ok(tc_col_walk_start(&w, t, group, 2, 5, 4, 8, 0, &keys, &room, &map) && !w.over,
       "walk (group): under budget 8");
    is_str(walked(&w), "0:3-7s 2:12-14 ", "walk (group): in order, 0 sampled to cap + 1 rows");
    ok(w.left == 0, "walk (group): all 8 spent");
    ok(tc_col_walk_start(&w, t, group, 2, 5, 4, 6, 0, &keys, &room, &map) && w.over,
       "walk (group): over budget 6");
    is_str(walked(&w), "2:12-14 0:4-6s ",
           "walk (group): rarest first; the 3 left bound column 0 to 3 rows");
    free(keys);
    tc_cand_free(&map);
}

static void check_map(void)
{
    tc_cand_map m = { 0 };
    ok(tc_cand_reserve(&m, 5) && m.size == 16 && m.n == 0, "map: 5 keys, 16 slots (half full)");
    tc_cand *x = tc_cand_at(&m, 7);
    ok(x->key == 7 && x->val == 0 && x->last == -1 && m.n == 1, "map: a new key, val 0, last -1");
    x->val = 2.5;
    tc_cand_at(&m, 3)->val = 1;
    ok(tc_cand_at(&m, 7)->val == 2.5 && m.n == 2, "map: a key met again, the same entry");
    ok(m.e[m.slot[0]].key == 7 && m.e[m.slot[1]].key == 3, "map: slots in the order first met");
    tc_cand_clear(&m);
    ok(m.n == 0 && tc_cand_at(&m, 7)->val == 0, "map: cleared, a key is new again");
    tc_cand_clear(&m);
    ok(tc_cand_reserve(&m, 40) && m.size == 128 && m.e[5].key == -1,
       "map: grows to 40 keys (128 slots, empty)");
    tc_cand_free(&m);
}

int main(void)
{
    tc_csr *t = columns();
    check_span(t);
    check_walk(t);
    check_map();
    tc_csr_free(t);
    return done_testing();
}
