/* candidates.c: the candidate map and the rarest-first order of
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

int tc_rarest_first(const tc_csr *t, const int32_t *cols, int64_t len, uint64_t **keys,
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
