/* candidates.h: what the reorderings that pair rows through their columns
   share (wjaccard's kNN candidates, hmatch's partners): a map of the
   candidates met, the rows of a column that are read, and the budgeted
   walk over a row's or group's columns, rarest first past the budget.
   Internal to the library; not installed. */
#ifndef TC_CANDIDATES_H
#define TC_CANDIDATES_H

#include <stdint.h>
#include "search.h"
#include "tcsparse.h"

/* An open-addressing map key (a row or a group) -> figures, for one row's
   or group's candidates at a time (key and figures side by side: one
   cache line per probe); slot[0 .. n) lists the slots filled, in the
   order their keys were first met. */
typedef struct tc_cand {
    int32_t key;        /* -1: empty */
    int32_t last;       /* the caller's: hmatch's last column counted */
    double val;         /* the caller's: wjaccard's weight, hmatch's count */
} tc_cand;

typedef struct tc_cand_map {
    tc_cand *e;
    int64_t *slot;
    int64_t size, n;    /* size: a power of two */
} tc_cand_map;

/* Makes room for up to `need` keys, at most half full. The map is empty
   before and after. 0 when memory is short. */
int tc_cand_reserve(tc_cand_map *m, int64_t need);

/* key's entry, added with val 0 and last -1 when new. */
static inline tc_cand *tc_cand_at(tc_cand_map *m, int32_t key)
{
    uint32_t mask = (uint32_t)(m->size - 1), s = ((uint32_t)key * 2654435761u) & mask;
    while (m->e[s].key != key && m->e[s].key != -1)
        s = (s + 1) & mask;
    if (m->e[s].key == -1) {
        m->e[s] = (tc_cand){ key, -1, 0 };
        m->slot[m->n++] = s;
    }
    return &m->e[s];
}

void tc_cand_clear(tc_cand_map *m);
void tc_cand_free(tc_cand_map *m);

/* The rows of column c (t: the pattern transposed) read for row u,
   t->colidx[*lo .. *hi), u among them when it holds c: the whole column,
   or the cap + 1 entries centred on u when the column is longer (a
   deterministic sample of a hub column). Returns 1 when sampled. */
static inline int tc_column_span(const tc_csr *t, int32_t c, int32_t u, int32_t cap,
                                 int64_t *lo, int64_t *hi)
{
    int64_t b = t->rowptr[c], e = t->rowptr[c + 1];
    if (e - b <= (int64_t)cap + 1) {
        *lo = b, *hi = e;
        return 0;
    }
    int64_t first = tc_lower_bound_i32(t->colidx, b, e, u) - cap / 2;
    first = first < b ? b : first + cap + 1 > e ? e - cap - 1 : first;
    *lo = first, *hi = first + cap + 1;
    return 1;
}

/* A budgeted walk over the columns of one row or group, reading the rows
   of each (tc_column_span): at most `budget` entries in all; when its
   columns hold more, they go rarest first and the budget, not cap, bounds
   the last ones read (wjaccard.c, knn_row, says why). self: 1 when the
   row walked is in every one of its columns and is not counted
   (wjaccard's row), 0 when every entry read counts (hmatch's group). */
typedef struct tc_col_walk {
    const tc_csr *t;
    const int32_t *cols;
    const uint64_t *keys;       /* over budget: the columns rarest first */
    int64_t len, i, left;
    int32_t at, cap;
    int self, over;
} tc_col_walk;

/* Starts the walk of cols[0 .. len) about row `at` (t: the pattern
   transposed) and makes room in map for every candidate it can meet;
   keys and room: the caller's buffer for the rarest-first order, kept
   from walk to walk. 0 when memory is short. */
int tc_col_walk_start(tc_col_walk *w, const tc_csr *t, const int32_t *cols, int64_t len,
                      int32_t at, int32_t cap, int64_t budget, int self, uint64_t **keys,
                      int64_t *room, tc_cand_map *map);

/* The walk's next column *c and the rows read of it, t->colidx[*lo ..
   *hi); 0 when the walk is done. *sampled (unless NULL): the column was
   longer than what was read. */
static inline int tc_col_walk_next(tc_col_walk *w, int32_t *c, int64_t *lo, int64_t *hi,
                                   int *sampled)
{
    if (w->i >= w->len || w->left <= 0)
        return 0;
    *c = w->over ? (int32_t)(uint32_t)w->keys[w->i] : w->cols[w->i];
    w->i++;
    const int64_t most = w->left - 1 + w->self;
    const int s = tc_column_span(w->t, *c, w->at, most < w->cap ? (int32_t)most : w->cap, lo, hi);
    if (sampled)
        *sampled = s;
    w->left -= *hi - *lo - w->self;
    return 1;
}

#endif
