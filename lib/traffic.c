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
 *
 * B's elements count at the bytes the kernel gathers: 4 for float32, 2 for
 * the fp16 variants that convert B first (rstile's and bcsr's "tc", bsb),
 * whose conversion pass reads B in float32 and writes it in fp16 once per
 * product: all of B, or with convert_used only the rows A's nonzeros name
 * (rowsplit's "half", which gathers no other). That kernel also keeps the
 * rows of the most used columns, as many as L2 holds, there and gathers
 * the others evict-first (kernels/rowsplit.cu, upload_used): with
 * convert_used the LRU holds those hub rows alone, and another row is a
 * hit only while a window in flight shares it. Checked against ncu on the
 * H100 (bench/NOTES.md, "First measurements"): without the pass and the
 * halved gathers, the model gave 0.60-0.86 of the bytes those variants
 * move on stencils and up to 1.36 times them on R-MAT graphs at n = 128;
 * with them, 0.84-1.07.
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
    p->b_elem_bytes = 4;
    p->convert_used = 0;
}

/* One unit of B: the window that last gathered it, and its place in the
   LRU, a doubly linked list through prev/next, most recent first (entry
   `units` is the list's head and tail sentinel). One 16-byte entry, so
   that a gather touches one cache line of its own (the model runs at
   random over tens of millions of units). */
typedef struct unit {
    int32_t last;               /* -1: never gathered */
    int32_t prev, next;
    int32_t held;               /* in the LRU; -1: never (not a hub) */
} unit;

/* How many nonzeros ahead the walk prefetches a unit's entry. */
#define PREFETCH_AHEAD 16

typedef struct lru {
    unit *u;
    int64_t size, capacity;
    int32_t sentinel;
} lru;

static void lru_unlink(lru *l, int32_t x)
{
    unit *u = l->u;
    u[u[x].prev].next = u[x].next;
    u[u[x].next].prev = u[x].prev;
}

/* x becomes the most recent; the least recent leaves past the capacity. */
static void lru_touch(lru *l, int32_t x)
{
    unit *u = l->u;
    const int32_t s = l->sentinel;
    if (l->capacity == 0 || u[s].next == x)
        return;
    if (u[x].held) {
        lru_unlink(l, x);
    } else {
        u[x].held = 1;
        l->size++;
    }
    u[x].next = u[s].next;
    u[x].prev = s;
    u[u[s].next].prev = x;
    u[s].next = x;
    if (l->size > l->capacity) {
        const int32_t old = u[s].prev;
        lru_unlink(l, old);
        u[old].held = 0;
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
    if (p->b_elem_bytes != 4 && p->b_elem_bytes != 2)
        return tc_error_set(err, TC_ERR_ARG, "traffic model: b_elem_bytes is %d, not 4 "
                                             "(float32) or 2 (fp16)", (int)p->b_elem_bytes);
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
    const int64_t row_bytes = (int64_t)p->n * p->b_elem_bytes;
    const int64_t unit_bytes = (int64_t)p->col_unit * row_bytes;
    /* windows in flight at once, at least the one running */
    const int64_t inflight = p->inflight_rows / p->window_rows > 1
                                 ? p->inflight_rows / p->window_rows : 1;
    lru l = { .capacity = p->l2_bytes / unit_bytes, .sentinel = units };
    if (l.capacity > units)
        l.capacity = units;
    l.u = tc_malloc_array((int64_t)units + 1, sizeof *l.u, err);
    if (!l.u)
        return TC_ERR_NOMEM;
    /* convert_used: the rows converted, most used first; the first that
       fit the LRU are the hubs, the only units it holds */
    const int used_only = p->b_elem_bytes == 2 && p->convert_used;
    const int hubs = used_only && p->col_unit == 1;
    int32_t converted = a->cols, *used = NULL;
    if (used_only && (st = tc_csr_used_cols(a, hubs ? &used : NULL, &converted, err))) {
        free(l.u);
        return st;
    }
    for (int32_t x = 0; x <= units; x++)
        l.u[x] = (unit){ .last = -1, .prev = units, .next = units, .held = hubs ? -1 : 0 };
    for (int32_t k = 0; hubs && k < converted && k < l.capacity; k++)
        l.u[used[k]].held = 0;
    free(used);
    /* the last unit may hold fewer than col_unit rows of B */
    const int64_t last_bytes = ((int64_t)a->cols - ((int64_t)units - 1) * p->col_unit) * row_bytes;
    int64_t gathers = 0, misses = 0, gathered_bytes = 0, miss_bytes = 0;
    const int64_t windows = ((int64_t)a->rows + p->window_rows - 1) / p->window_rows;
    for (int64_t w = 0; w < windows; w++) {
        const int64_t r0 = w * p->window_rows;
        const int64_t r1 = r0 + p->window_rows < a->rows ? r0 + p->window_rows : a->rows;
        const int64_t end = a->rowptr[r1];
        for (int64_t k = a->rowptr[r0]; k < end; k++) {
            /* the units are visited at random: ask for one a few
               nonzeros ahead (measured: about 1.5x faster on an R-MAT) */
            if (k + PREFETCH_AHEAD < a->nnz)
                __builtin_prefetch(&l.u[a->colidx[k + PREFETCH_AHEAD] / p->col_unit]);
            const int32_t x = a->colidx[k] / p->col_unit;
            unit *u = &l.u[x];
            if (u->last == w)
                continue;           /* the window gathers each unit once */
            const int64_t bytes = x == units - 1 ? last_bytes : unit_bytes;
            const int miss = u->held <= 0 && (u->last < 0 || w - u->last >= inflight);
            gathers++;
            gathered_bytes += bytes;
            misses += miss;
            miss_bytes += miss ? bytes : 0;
            u->last = (int32_t)w;
            if (u->held >= 0)
                lru_touch(&l, x);
        }
    }
    out->unit_bytes = unit_bytes;
    out->b_gathers = gathers;
    out->b_misses = misses;
    out->b_gathered_bytes = gathered_bytes;
    out->a_bytes = p->a_bytes;
    out->b_bytes = miss_bytes;
    out->c_bytes = (int64_t)a->rows * p->n * (int64_t)sizeof(float);
    free(l.u);
    out->b_convert_bytes = p->b_elem_bytes == 2
                               ? (int64_t)converted * p->n * (int64_t)(sizeof(float) + 2)
                               : 0;
    out->dram_bytes = out->a_bytes + out->b_convert_bytes + out->b_bytes + out->c_bytes;
    return TC_OK;
}
