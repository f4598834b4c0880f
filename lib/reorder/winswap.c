/* winswap.c: exchanges of rows between 16-row windows at most `reach`
   apart, the last stage of the `wjaccard` reordering.

   Why: the stages before it (seed 001, Section 3.4) order rows so that
   each row sits next to a similar one: a chain. On a mesh the chain is a
   path through the mesh, and 16 consecutive rows of a path hold more
   columns (the path and both of its sides) than a compact patch of 16
   rows does, while it is the columns of a window that make its 16x8
   tensor-core blocks: ceil(columns / 8) of them. 4elt (a 2D mesh) keeps
   6.2 blocks per window after the chain, where compact patches would
   need 4 to 5. The paper says nothing of this; what it counts is blocks.

   The exchange: for windows A and B, the swap of a row of A with a row of
   B that lowers their TC blocks the most (then their distinct columns) is
   made, until no swap lowers either. A window's columns are kept as one
   16-bit mask per column (bit x: row x of the window holds it), so the
   change a swap makes is counted from the masks alone: for row r of A and
   s of B,
     change in A = |s's columns A lacks| - |columns only r holds in A|
                   + |columns only r holds in A that s holds too|
   and the same with A and B exchanged.

   Which pairs: windows d apart, for d = 1 .. `reach`, paired so that
   those of one sweep are disjoint ((0,d), (1,d+1) .. (d-1,2d-1), (2d,3d)
   .., then the same shifted by d), so they run in parallel and the result
   is the same whatever the thread count; all of that `rounds` times.
   Neighbours alone leave rows that belong to a patch two or three windows
   away: on 4elt, 5369 blocks with reach 1, 5030 with reach 8, from 6026
   (two rounds). A pair makes at most MAX_MOVES swaps; each costs
   O(columns of its 32 rows), so a sweep is O(MAX_MOVES * nnz) at worst
   and far less in practice: the rows of a pair reach their best in a few
   swaps. */
#include "config.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "threads.h"
#include "winswap.h"

#define WINDOW 16
#define MAX_MOVES (2 * WINDOW)
#define MASK_BUDGET ((int64_t)1 << 30)  /* bytes of masks, all threads */

typedef uint16_t mask;  /* one bit per row of a window */
_Static_assert(WINDOW <= 16, "a window's rows fit a mask");

/* Rows p[0 .. n) of one window, their columns in m. */
typedef struct window {
    int32_t *p;
    int n;
    mask *m;
    int32_t cols;
} window;

static void mark(const tc_csr *a, window *w, int x, int set)
{
    int32_t r = w->p[x];
    for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; e++) {
        mask *m = &w->m[a->colidx[e]];
        int was = *m != 0;
        *m = set ? (mask)(*m | 1u << x) : (mask)(*m & ~(1u << x));
        w->cols += (*m != 0) - was;
    }
}

/* For the rows of w: only[x] = columns row x alone holds in w; lacks[y] =
   columns row y of o holds that w lacks; both[x][y] = columns row x alone
   holds in w that row y of o holds too. */
static void count_changes(const tc_csr *a, const window *w, const window *o, int only[WINDOW],
                          int lacks[WINDOW], int both[WINDOW][WINDOW])
{
    memset(both, 0, sizeof(int[WINDOW][WINDOW]));
    for (int x = 0; x < w->n; x++) {
        int32_t r = w->p[x];
        only[x] = 0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; e++) {
            int32_t c = a->colidx[e];
            if (w->m[c] != 1u << x)
                continue;
            only[x]++;
            for (unsigned bits = o->m[c]; bits; bits &= bits - 1)
                both[x][__builtin_ctz(bits)]++;
        }
    }
    for (int y = 0; y < o->n; y++) {
        int32_t r = o->p[y];
        lacks[y] = 0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; e++)
            lacks[y] += !w->m[a->colidx[e]];
    }
}

static int64_t blocks(int64_t cols)
{
    return (cols + 7) / 8;
}

/* Makes the best swap between a and b, if one lowers (blocks, columns);
   returns whether it did. */
static int best_swap(const tc_csr *a, window *wa, window *wb)
{
    int onlyA[WINDOW], lacksA[WINDOW], bothA[WINDOW][WINDOW];
    int onlyB[WINDOW], lacksB[WINDOW], bothB[WINDOW][WINDOW];
    count_changes(a, wa, wb, onlyA, lacksA, bothA);
    count_changes(a, wb, wa, onlyB, lacksB, bothB);
    int64_t now = blocks(wa->cols) + blocks(wb->cols);
    int64_t best_blocks = 0, best_cols = 0;
    int bx = -1, by = -1;
    for (int x = 0; x < wa->n; x++)
        for (int y = 0; y < wb->n; y++) {
            int64_t da = lacksA[y] - onlyA[x] + bothA[x][y];
            int64_t db = lacksB[x] - onlyB[y] + bothB[y][x];
            int64_t dblocks = blocks(wa->cols + da) + blocks(wb->cols + db) - now;
            if (dblocks < best_blocks || (dblocks == best_blocks && da + db < best_cols)) {
                best_blocks = dblocks, best_cols = da + db;
                bx = x, by = y;
            }
        }
    if (bx < 0)
        return 0;
    mark(a, wa, bx, 0);
    mark(a, wb, by, 0);
    int32_t r = wa->p[bx];
    wa->p[bx] = wb->p[by];
    wb->p[by] = r;
    mark(a, wa, bx, 1);
    mark(a, wb, by, 1);
    return 1;
}

static void mark_all(const tc_csr *a, window *w, int set)
{
    for (int x = 0; x < w->n; x++)
        mark(a, w, x, set);
}

/* Swaps rows between the full window p[0 .. WINDOW) and q[0 .. nq), with
   ma and mb all zero on entry and on return. */
static void improve_pair(const tc_csr *a, int32_t *p, int32_t *q, int nq, mask *ma, mask *mb)
{
    window wa = { p, WINDOW, ma, 0 }, wb = { q, nq, mb, 0 };
    mark_all(a, &wa, 1);
    mark_all(a, &wb, 1);
    for (int moves = 0; moves < MAX_MOVES && best_swap(a, &wa, &wb); moves++)
        ;
    mark_all(a, &wa, 0);
    mark_all(a, &wb, 0);
}

typedef struct swap_worker {
    const tc_csr *a;
    int32_t *order;
    int64_t n, dist, shift;  /* pair k: the windows pair_of(k) and + dist */
    _Atomic int64_t *next;
    int64_t pairs;
    mask *ma, *mb;
} swap_worker;

/* The first window of pair k of the sweep at distance d, shifted by shift
   (0 or d): pairs (j, j + d) for j < d, then the same 2d windows on. */
static int64_t pair_of(int64_t k, int64_t d, int64_t shift)
{
    return shift + k / d * 2 * d + k % d;
}

static void *swap_run(void *arg)
{
    swap_worker *wk = arg;
    for (int64_t k; (k = atomic_fetch_add(wk->next, 1)) < wk->pairs;) {
        int64_t first = pair_of(k, wk->dist, wk->shift) * WINDOW;
        int64_t second = first + wk->dist * WINDOW;
        if (second >= wk->n)
            continue;
        int64_t len = wk->n - second < WINDOW ? wk->n - second : WINDOW;
        improve_pair(wk->a, wk->order + first, wk->order + second, (int)len, wk->ma, wk->mb);
    }
    return NULL;
}

tc_status tc_window_swaps(const tc_csr *a, int32_t *new2old, int64_t n, int rounds, int reach,
                          int threads, tc_error *err)
{
    int64_t windows = (n + WINDOW - 1) / WINDOW;
    /* each thread holds two masks per column: no more threads than keep
       them all under MASK_BUDGET (the result is the same on any number) */
    int64_t per_thread = 2 * ((int64_t)a->cols + 1) * (int64_t)sizeof(mask);
    if (threads > 1 && threads > MASK_BUDGET / per_thread)
        threads = MASK_BUDGET / per_thread > 1 ? (int)(MASK_BUDGET / per_thread) : 1;
    swap_worker wk[TC_MAX_JOBS];
    tc_status st = TC_OK;
    int made = 0;
    for (; made < threads; made++) {
        /* a mask per column for each window of a pair (+ 1: never empty) */
        wk[made].ma = tc_calloc_array(2 * ((int64_t)a->cols + 1), sizeof(mask), err);
        if (!wk[made].ma) {
            st = TC_ERR_NOMEM;
            break;
        }
        wk[made].mb = wk[made].ma + a->cols + 1;
    }
    for (int64_t sweep = 0; !st && sweep < 2 * (int64_t)rounds * reach; sweep++) {
        int64_t dist = 1 + sweep / 2 % reach, shift = sweep % 2 * dist;
        if (dist >= windows)
            continue;
        _Atomic int64_t next;
        atomic_init(&next, 0);
        for (int i = 0; i < threads; i++) {
            wk[i].a = a, wk[i].order = new2old, wk[i].n = n;
            wk[i].dist = dist, wk[i].shift = shift;
            /* every pair of the sweep, some past the last window */
            wk[i].next = &next, wk[i].pairs = (windows - shift + 2 * dist - 1) / (2 * dist) * dist;
        }
        tc_run_jobs(swap_run, wk, sizeof wk[0], threads);
    }
    for (int i = 0; i < made; i++)
        free(wk[i].ma);
    return st;
}
