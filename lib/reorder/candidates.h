/* candidates.h: what the reorderings that pair rows through their columns
   share (wjaccard's kNN candidates, hmatch's partners): a map of the
   candidates met, the rows of a column that are read, and a row's or
   group's columns taken rarest first. Internal to the library; not
   installed. */
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

/* cols[0 .. len) into (*keys)[0 .. len) as (degree << 32 | column), rarest
   first (ties: the lower column), degrees from t; *keys grows as needed
   (*room entries). 0 when memory is short. */
int tc_rarest_first(const tc_csr *t, const int32_t *cols, int64_t len, uint64_t **keys,
                    int64_t *room);

#endif
