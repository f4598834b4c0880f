/* candidates.c: the candidate map and the budgeted column walk of
   candidates.h. */
#include "config.h"
#include <stdlib.h>
#include "candidates.h"

int tc_cand_reserve(tc_cand_map *m, int64_t need)
{
    int64_t size = 16;
    while (size < 2 * need)
        size *= 2;
    if (size <= m->size)
        return 1;
    free(m->e);
    free(m->slot);
    m->e = tc_malloc_array(size, sizeof *m->e, NULL);
    m->slot = tc_malloc_array(size / 2, sizeof *m->slot, NULL);
    m->size = m->e && m->slot ? size : 0;
    for (int64_t s = 0; s < m->size; s++)
        m->e[s].key = -1;
    return m->size > 0;
}

void tc_cand_clear(tc_cand_map *m)
{
    for (int64_t k = 0; k < m->n; k++)
        m->e[m->slot[k]].key = -1;
    m->n = 0;
}

void tc_cand_free(tc_cand_map *m)
{
    free(m->e);
    free(m->slot);
}

static int key_cmp(const void *x, const void *y)
{
    uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
    return (p > q) - (p < q);
}

/* cols[0 .. len) into (*keys)[0 .. len) as (degree << 32 | column), rarest
   first (ties: the lower column), degrees from t; *keys grows as needed
   (*room entries). 0 when memory is short. */
static int rarest_first(const tc_csr *t, const int32_t *cols, int64_t len, uint64_t **keys,
                        int64_t *room)
{
    if (len > *room) {
        free(*keys);
        *keys = tc_malloc_array(len, sizeof **keys, NULL);
        *room = *keys ? len : 0;
        if (!*keys)
            return 0;
    }
    for (int64_t i = 0; i < len; i++) {
        uint64_t degree = (uint64_t)(t->rowptr[cols[i] + 1] - t->rowptr[cols[i]]);
        (*keys)[i] = degree << 32 | (uint32_t)cols[i];
    }
    qsort(*keys, (size_t)len, sizeof **keys, key_cmp);
    return 1;
}

int tc_col_walk_start(tc_col_walk *w, const tc_csr *t, const int32_t *cols, int64_t len,
                      int32_t at, int32_t cap, int64_t budget, int self, uint64_t **keys,
                      int64_t *room, tc_cand_map *map)
{
    const int64_t most = (int64_t)cap + 1 - self;     /* the most a column counts */
    int64_t need = 0;
    for (int64_t i = 0; i < len; i++) {
        const int64_t rows = t->rowptr[cols[i] + 1] - t->rowptr[cols[i]] - self;
        need += rows < most ? rows : most;
    }
    *w = (tc_col_walk){ .t = t, .cols = cols, .len = len, .left = budget, .at = at, .cap = cap,
                        .self = self, .over = need > budget };
    if (w->over && !rarest_first(t, cols, len, keys, room))
        return 0;
    w->keys = w->over ? *keys : NULL;
    return tc_cand_reserve(map, w->over ? budget : need);
}
