/* rcm.c: the `rcm` reordering: reverse Cuthill-McKee (Cuthill and McKee,
   1969; reversed as George, 1971, proposed), started in every connected
   component from a pseudo-peripheral vertex found by George and Liu's
   algorithm (FNROOT in "Computer Solution of Large Sparse Positive Definite
   Systems", 1981), neighbours numbered in increasing degree, ties by index.

   The graph. A square matrix is ordered on the pattern of A + A^T without
   the diagonal, the classic choice (SciPy's reverse_cuthill_mckee and
   MATLAB's symrcm order the same graph). A rectangular matrix has no such
   graph; it, and a square one with bipartite=1, is ordered on the bipartite
   graph of A instead (a vertex per row and per column, an edge per nonzero,
   as Reid and Scott, SIAM J. Matrix Anal. Appl. 28(3), 2006, do for
   unsymmetric matrices), and the rows are read off in that order. Either
   way rows that share columns end up close together, which is what puts
   them in the same row window. A*A^T is never formed: one dense column
   makes it rows^2 large.

   The order is applied to rows only: with per-window column compaction the
   number of TC blocks does not depend on the column order.

   Cost: O(rows + cols + nnz) per breadth-first search, and a handful of
   searches per component. Adjacency lists are put in increasing-degree
   order once, by a counting pass, instead of being sorted at every vertex;
   the searches use explicit queues, no recursion. */
#include "config.h"
#include <stdlib.h>
#include "reorder.h"

extern const tc_reorder_method tc_reorder_rcm;

static const tc_param_def rcm_params[] = {
    { "bipartite", "1: bipartite row-column graph (rectangular: always)", 0, 0, 1, 1 },
};

/* An undirected graph without self-loops: the neighbours of v are
   adj[xadj[v] .. xadj[v + 1]), and u is a neighbour of v exactly when v is
   one of u. */
typedef struct graph {
    int32_t n;
    int64_t *xadj;
    int32_t *adj;
} graph;

static int64_t degree(const graph *g, int32_t v)
{
    return g->xadj[v + 1] - g->xadj[v];
}

/* Merges two sorted lists of distinct indices, dropping `skip` and
   repeats, into out (just counting when out is NULL); returns the count. */
static int64_t merge_sorted(const int32_t *x, int64_t nx, const int32_t *y, int64_t ny,
                            int32_t skip, int32_t *out)
{
    int64_t i = 0, j = 0, n = 0;
    int32_t prev = -1;
    while (i < nx || j < ny) {
        int32_t v = j >= ny || (i < nx && x[i] <= y[j]) ? x[i++] : y[j++];
        if (v == skip || v == prev)
            continue;
        if (out)
            out[n] = v;
        n++;
        prev = v;
    }
    return n;
}

/* The transpose of a's pattern (values are not needed). */
static tc_status pattern_transpose(const tc_csr *a, tc_csr **t, tc_error *err)
{
    tc_csr pattern = *a;
    pattern.val = NULL;
    return tc_csr_transpose(&pattern, t, err);
}

/* A + A^T without the diagonal: row i of A merged with row i of A^T, in a
   counting pass and a filling pass. */
static tc_status symmetric_graph(const tc_csr *a, graph *g, tc_error *err)
{
    tc_csr *t;
    tc_status st = pattern_transpose(a, &t, err);
    if (st)
        return st;
    g->n = a->rows;
    g->xadj = tc_malloc_array((int64_t)a->rows + 1, sizeof *g->xadj, err);
    if (g->xadj) {
        g->xadj[0] = 0;
        for (int32_t i = 0; i < a->rows; i++)
            g->xadj[i + 1] = g->xadj[i] +
                merge_sorted(a->colidx + a->rowptr[i], a->rowptr[i + 1] - a->rowptr[i],
                             t->colidx + t->rowptr[i], t->rowptr[i + 1] - t->rowptr[i], i, NULL);
        g->adj = tc_malloc_array(g->xadj[a->rows], sizeof *g->adj, err);
    }
    if (g->adj)
        for (int32_t i = 0; i < a->rows; i++)
            merge_sorted(a->colidx + a->rowptr[i], a->rowptr[i + 1] - a->rowptr[i],
                         t->colidx + t->rowptr[i], t->rowptr[i + 1] - t->rowptr[i], i,
                         g->adj + g->xadj[i]);
    tc_csr_free(t);
    return g->adj ? TC_OK : TC_ERR_NOMEM;
}

/* Rows are vertices 0 .. rows-1, column j is vertex rows + j; row i's
   neighbours are its columns (A), column j's its rows (A^T). */
static tc_status bipartite_graph(const tc_csr *a, graph *g, tc_error *err)
{
    int64_t n = (int64_t)a->rows + a->cols, edges;
    if (n > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rcm: %d rows + %d columns are more vertices than a graph can "
                            "have (2^31 - 1)", a->rows, a->cols);
    if (tc_mul_overflows(a->nnz, 2, &edges))
        return tc_error_set(err, TC_ERR_NOMEM, "rcm: %lld nonzeros are too many",
                            (long long)a->nnz);
    tc_csr *t;
    tc_status st = pattern_transpose(a, &t, err);
    if (st)
        return st;
    g->n = (int32_t)n;
    g->xadj = tc_malloc_array(n + 1, sizeof *g->xadj, err);
    g->adj = g->xadj ? tc_malloc_array(edges, sizeof *g->adj, err) : NULL;
    if (g->adj) {
        for (int32_t i = 0; i < a->rows; i++)
            g->xadj[i] = a->rowptr[i];
        for (int32_t j = 0; j <= a->cols; j++)
            g->xadj[a->rows + j] = a->nnz + t->rowptr[j];
        for (int64_t e = 0; e < a->nnz; e++) {
            g->adj[e] = a->rows + a->colidx[e];
            g->adj[a->nnz + e] = t->colidx[e];
        }
    }
    tc_csr_free(t);
    return g->adj ? TC_OK : TC_ERR_NOMEM;
}

/* Rewrites every adjacency list in increasing (degree, index) order of the
   neighbours: vertices, taken in that order by a stable counting sort on
   degree, append themselves to their neighbours' lists. O(n + edges). */
static tc_status order_by_degree(graph *g, tc_error *err)
{
    int64_t maxdeg = 0;
    for (int32_t v = 0; v < g->n; v++)
        maxdeg = degree(g, v) > maxdeg ? degree(g, v) : maxdeg;
    int64_t *next = tc_calloc_array(maxdeg + 1, sizeof *next, err);
    int32_t *by_degree = next ? tc_malloc_array(g->n, sizeof *by_degree, err) : NULL;
    int64_t *fill = by_degree ? tc_malloc_array(g->n, sizeof *fill, err) : NULL;
    int32_t *adj = fill ? tc_malloc_array(g->xadj[g->n], sizeof *adj, err) : NULL;
    if (adj) {
        for (int32_t v = 0; v < g->n; v++)
            next[degree(g, v)]++;
        int64_t at = 0;
        for (int64_t d = 0; d <= maxdeg; d++) {
            int64_t k = next[d];
            next[d] = at;
            at += k;
        }
        for (int32_t v = 0; v < g->n; v++)
            by_degree[next[degree(g, v)]++] = v;
        for (int32_t v = 0; v < g->n; v++)
            fill[v] = g->xadj[v];
        for (int32_t k = 0; k < g->n; k++) {
            int32_t u = by_degree[k];
            for (int64_t e = g->xadj[u]; e < g->xadj[u + 1]; e++)
                adj[fill[g->adj[e]]++] = u;
        }
        free(g->adj);
        g->adj = adj;
    }
    free(next);
    free(by_degree);
    free(fill);
    return adj ? TC_OK : TC_ERR_NOMEM;
}

/* Breadth-first search from root through its component: leaves the
   vertices in queue[0 .. *count) level by level and returns the number of
   levels, the last one starting at queue[*last]. seen[] is all zero before
   and after. */
static int64_t level_structure(const graph *g, int32_t root, int32_t *queue, uint8_t *seen,
                               int64_t *count, int64_t *last)
{
    int64_t head = 0, tail = 0, levels = 0;
    queue[tail++] = root;
    seen[root] = 1;
    while (head < tail) {
        int64_t end = tail;
        *last = head;
        levels++;
        for (; head < end; head++) {
            int32_t v = queue[head];
            for (int64_t e = g->xadj[v]; e < g->xadj[v + 1]; e++)
                if (!seen[g->adj[e]]) {
                    seen[g->adj[e]] = 1;
                    queue[tail++] = g->adj[e];
                }
        }
    }
    *count = tail;
    for (int64_t k = 0; k < tail; k++)
        seen[queue[k]] = 0;
    return levels;
}

/* George and Liu: from the vertex of smallest degree (ties: lowest index)
   in the last level of the current root's level structure, search again;
   while that gives more levels, it becomes the root. Ends at a vertex of
   nearly maximal eccentricity, whose level structure is deep and narrow. */
static int32_t pseudo_peripheral(const graph *g, int32_t start, int32_t *queue, uint8_t *seen)
{
    int64_t count, last;
    int32_t root = start;
    int64_t levels = level_structure(g, root, queue, seen, &count, &last);
    for (;;) {
        int32_t x = queue[last];
        for (int64_t k = last + 1; k < count; k++) {
            int32_t v = queue[k];
            if (degree(g, v) < degree(g, x) || (degree(g, v) == degree(g, x) && v < x))
                x = v;
        }
        int64_t deeper = level_structure(g, x, queue, seen, &count, &last);
        if (deeper <= levels)
            return root;
        root = x;
        levels = deeper;
    }
}

/* Cuthill-McKee: components in order of their lowest vertex, each numbered
   breadth-first from its pseudo-peripheral root, a vertex's unnumbered
   neighbours in increasing degree (their lists are in that order). `order`
   is the queue itself. */
static tc_status cuthill_mckee(const graph *g, int32_t *order, const tc_progress *prog,
                               tc_error *err)
{
    int32_t *queue = tc_malloc_array(g->n, sizeof *queue, err);
    uint8_t *seen = queue ? tc_calloc_array(g->n, 1, err) : NULL;
    uint8_t *numbered = seen ? tc_calloc_array(g->n, 1, err) : NULL;
    if (numbered) {
        int64_t pos = 0;
        for (int32_t s = 0; s < g->n; s++) {
            if (numbered[s])
                continue;
            int32_t root = pseudo_peripheral(g, s, queue, seen);
            int64_t head = pos;
            order[pos++] = root;
            numbered[root] = 1;
            for (; head < pos; head++) {
                int32_t v = order[head];
                for (int64_t e = g->xadj[v]; e < g->xadj[v + 1]; e++)
                    if (!numbered[g->adj[e]]) {
                        numbered[g->adj[e]] = 1;
                        order[pos++] = g->adj[e];
                    }
            }
            tc_progress_report(prog, pos, g->n);
        }
    }
    free(queue);
    free(seen);
    free(numbered);
    return numbered ? TC_OK : TC_ERR_NOMEM;
}

static tc_status rcm_run(const tc_csr *a, const tc_params *p, int32_t *new2old,
                         const tc_progress *prog, tc_error *err)
{
    int bipartite = a->rows != a->cols || tc_reorder_param(&tc_reorder_rcm, p, "bipartite") != 0;
    graph g = { 0 };
    tc_status st = bipartite ? bipartite_graph(a, &g, err) : symmetric_graph(a, &g, err);
    if (!st)
        st = order_by_degree(&g, err);
    int32_t *order = st ? NULL : tc_malloc_array(g.n, sizeof *order, err);
    if (!st && !order)
        st = TC_ERR_NOMEM;
    if (!st)
        st = cuthill_mckee(&g, order, prog, err);
    if (!st) {
        /* Reversed; in the bipartite graph, row vertices only. */
        int32_t k = 0;
        for (int64_t i = (int64_t)g.n - 1; i >= 0; i--)
            if (order[i] < a->rows)
                new2old[k++] = order[i];
    }
    free(order);
    free(g.xadj);
    free(g.adj);
    return st;
}

const tc_reorder_method tc_reorder_rcm = {
    .name = "rcm",
    .description = "reverse Cuthill-McKee on A+A^T, George-Liu start nodes",
    .params = rcm_params,
    .nparams = 1,
    .run = rcm_run,
};
