/*
 * traffic.c: the bytes an SpMM C = A*B moves through DRAM.
 *
 * tc_spmm_floor_bytes is the floor every path is measured against (tcmul
 * --bench): A as the GPU's CSR, B and C in float32, each moved once. It
 * depends on the matrix and n only, so that a path whose own format is
 * larger (padding, per-block metadata) pays for it in its fraction instead
 * of dividing by its own bytes and looking closer to the floor.
 *
 * tc_traffic_predict is the traffic model of bench/NOTES.md ("Traffic
 * model"): A's bytes in the format read once, C written once, and B as the
 * rows that each row window gathers, less those that L2 still holds from an
 * earlier window. L2 is an LRU of B's gathered units (a row of B, or the
 * aligned group of col_unit rows a block column covers) visited in
 * row-window order, the order the kernels' thread blocks are launched in;
 * the windows that run at once share what any of them fetched, whether or
 * not it would still be in the LRU. One pass over A's nonzeros, with
 * memory for a few integers per unit of B.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>

#include "tcsparse.h"

int64_t tc_csr_device_bytes(const tc_csr *a)
{
    const int64_t ptr = a->nnz > INT32_MAX ? 8 : 4;
    return ((int64_t)a->rows + 1) * ptr + a->nnz * (4 + (a->val ? 4 : 0));
}

int64_t tc_spmm_floor_bytes(const tc_csr *a, int32_t n)
{
    return tc_csr_device_bytes(a) + ((int64_t)a->rows + a->cols) * n * (int64_t)sizeof(float);
}

void tc_traffic_defaults(tc_traffic_params *p, int32_t n, int64_t a_bytes)
{
    p->n = n;
    p->window_rows = 1;
    p->col_unit = 1;
    p->a_bytes = a_bytes;
    p->l2_bytes = TC_TRAFFIC_L2_BYTES;
    p->inflight_rows = TC_TRAFFIC_INFLIGHT_ROWS;
}

/* The LRU of B's units in L2: a doubly linked list through prev/next
   (index `units` is the list's head and tail sentinel), most recent first. */
typedef struct lru {
    int32_t *prev, *next;
    uint8_t *held;
    int64_t size, capacity;
    int32_t sentinel;
} lru;

static void lru_unlink(lru *l, int32_t u)
{
    l->next[l->prev[u]] = l->next[u];
    l->prev[l->next[u]] = l->prev[u];
}

/* u becomes the most recent; the least recent leave past the capacity. */
static void lru_touch(lru *l, int32_t u)
{
    if (l->capacity == 0)
        return;
    if (l->held[u]) {
        lru_unlink(l, u);
    } else {
        l->held[u] = 1;
        l->size++;
    }
    const int32_t s = l->sentinel;
    l->next[u] = l->next[s];
    l->prev[u] = s;
    l->prev[l->next[s]] = u;
    l->next[s] = u;
    if (l->size > l->capacity) {
        const int32_t old = l->prev[s];
        lru_unlink(l, old);
        l->held[old] = 0;
        l->size--;
    }
}

static tc_status check_params(const tc_csr *a, const tc_traffic_params *p, tc_error *err)
{
    if (p->n < 1 || p->window_rows < 1 || p->col_unit < 1 || p->a_bytes < 0 || p->l2_bytes < 0 ||
        p->inflight_rows < 1)
        return tc_error_set(err, TC_ERR_ARG, "traffic model: n, window_rows, col_unit and "
                                             "inflight_rows must be at least 1, a_bytes and "
                                             "l2_bytes at least 0");
    if ((int64_t)a->cols / p->col_unit + 1 >= INT32_MAX)
        return tc_error_set(err, TC_ERR_ARG, "traffic model: more units of B than int32 holds");
    return TC_OK;
}

tc_status tc_traffic_predict(const tc_csr *a, const tc_traffic_params *p, tc_traffic *out,
                             tc_error *err)
{
    tc_status st = check_params(a, p, err);
    if (st)
        return st;
    const int32_t units = (int32_t)(((int64_t)a->cols + p->col_unit - 1) / p->col_unit);
    const int64_t unit_bytes = (int64_t)p->col_unit * p->n * (int64_t)sizeof(float);
    /* windows in flight at once, at least the one running */
    const int64_t inflight = p->inflight_rows / p->window_rows > 1
                                 ? p->inflight_rows / p->window_rows : 1;
    lru l = { .capacity = p->l2_bytes / unit_bytes, .sentinel = units };
    if (l.capacity > units)
        l.capacity = units;
    int32_t *last = tc_malloc_array(units, sizeof *last, err);   /* window of last gather */
    l.prev = last ? tc_malloc_array((int64_t)units + 1, sizeof *l.prev, err) : NULL;
    l.next = l.prev ? tc_malloc_array((int64_t)units + 1, sizeof *l.next, err) : NULL;
    l.held = l.next ? tc_calloc_array(units, 1, err) : NULL;
    if (!l.held) {
        st = TC_ERR_NOMEM;
        goto done;
    }
    for (int32_t u = 0; u < units; u++)
        last[u] = -1;
    l.prev[units] = l.next[units] = units;
    const int64_t row_bytes = (int64_t)p->n * (int64_t)sizeof(float);
    /* the last unit may hold fewer than col_unit rows of B */
    const int64_t last_bytes = ((int64_t)a->cols - ((int64_t)units - 1) * p->col_unit) * row_bytes;
    int64_t gathers = 0, misses = 0, gathered_bytes = 0, miss_bytes = 0;
    const int64_t windows = ((int64_t)a->rows + p->window_rows - 1) / p->window_rows;
    for (int64_t w = 0; w < windows; w++) {
        const int64_t r0 = w * p->window_rows;
        const int64_t r1 = r0 + p->window_rows < a->rows ? r0 + p->window_rows : a->rows;
        for (int64_t k = a->rowptr[r0]; k < a->rowptr[r1]; k++) {
            const int32_t u = a->colidx[k] / p->col_unit;
            if (last[u] == w)
                continue;           /* the window gathers each unit once */
            const int64_t bytes = u == units - 1 ? last_bytes : unit_bytes;
            const int miss = !l.held[u] && (last[u] < 0 || w - last[u] >= inflight);
            gathers++;
            gathered_bytes += bytes;
            misses += miss;
            miss_bytes += miss ? bytes : 0;
            last[u] = (int32_t)w;
            lru_touch(&l, u);
        }
    }
    out->unit_bytes = unit_bytes;
    out->b_gathers = gathers;
    out->b_misses = misses;
    out->b_gathered_bytes = gathered_bytes;
    out->a_bytes = p->a_bytes;
    out->b_bytes = miss_bytes;
    out->c_bytes = (int64_t)a->rows * p->n * (int64_t)sizeof(float);
    out->dram_bytes = out->a_bytes + out->b_bytes + out->c_bytes;
done:
    free(last);
    free(l.prev);
    free(l.next);
    free(l.held);
    return st;
}
