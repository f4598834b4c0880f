/* wjaccard_tree.c: stages 4 and 5 of the `wjaccard` reordering (the
   reasons are at the top of wjaccard.c): the minimum spanning forest of
   the kNN graph by Kruskal, and the depth-first walk of each tree, from
   an end of the tree, children by increasing subtree size. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "threads.h"
#include "wjaccard_tree.h"

/* ---- stage 4: the minimum spanning forest ---------------------------------- */

/* Most similar first, then by row pair: a total order, so the forest does
   not depend on how qsort treats ties. */
static int edge_cmp(const void *x, const void *y)
{
    const edge *p = x, *q = y;
    if (p->sim != q->sim)
        return p->sim > q->sim ? -1 : 1;
    if (p->lo != q->lo)
        return p->lo < q->lo ? -1 : 1;
    return (p->hi > q->hi) - (p->hi < q->hi);
}

int32_t tc_component_find(components *cc, int32_t x)
{
    while (cc->parent[x] != x) {
        cc->parent[x] = cc->parent[cc->parent[x]];
        x = cc->parent[x];
    }
    return x;
}

/* The edges, in runs: run j is e[at[j] .. end[j]), sorted by its own
   thread; Kruskal takes them merged, through a heap of run indices
   ordered by their next edge. A single qsort of rows * k edges was the
   longest serial step left (bench/NOTES.md, "Reordering at scale"); the
   merged order is the one qsort gives, edge_cmp being a total order. */
typedef struct runs {
    edge *e;
    int64_t at[TC_MAX_JOBS], end[TC_MAX_JOBS];
    int heap[TC_MAX_JOBS], n;   /* runs not yet empty, min-heap */
} runs;

typedef struct sort_job {
    edge *e;
    int64_t n;
} sort_job;

static void *sort_run(void *arg)
{
    sort_job *j = arg;
    qsort(j->e, (size_t)j->n, sizeof *j->e, edge_cmp);
    return NULL;
}

static int run_before(const runs *r, int i, int j)
{
    return edge_cmp(&r->e[r->at[i]], &r->e[r->at[j]]) < 0;
}

static void runs_sift(runs *r, int i)
{
    for (;;) {
        int l = 2 * i + 1, m = l + 1 < r->n && run_before(r, r->heap[l + 1], r->heap[l]) ? l + 1 : l;
        if (l >= r->n || !run_before(r, r->heap[m], r->heap[i]))
            return;
        int t = r->heap[i];
        r->heap[i] = r->heap[m], r->heap[m] = t;
        i = m;
    }
}

/* Sorts e[0 .. n) in `threads` runs, and readies the merge. */
static void runs_sort(runs *r, edge *e, int64_t n, int threads)
{
    sort_job jobs[TC_MAX_JOBS];
    r->e = e;
    r->n = 0;
    for (int j = 0; j < threads; j++) {
        r->at[j] = n / threads * j + (j < n % threads ? j : n % threads);
        r->end[j] = r->at[j] + n / threads + (j < n % threads);
        jobs[j] = (sort_job){ e + r->at[j], r->end[j] - r->at[j] };
        if (r->at[j] < r->end[j])
            r->heap[r->n++] = j;
    }
    tc_run_jobs(sort_run, jobs, sizeof jobs[0], threads);
    for (int i = r->n / 2 - 1; i >= 0; i--)
        runs_sift(r, i);
}

/* The next edge in merged order, or NULL past the last. */
static const edge *runs_next(runs *r)
{
    if (r->n == 0)
        return NULL;
    int j = r->heap[0];
    const edge *x = &r->e[r->at[j]++];
    if (r->at[j] == r->end[j])
        r->heap[0] = r->heap[--r->n];
    runs_sift(r, 0);
    return x;
}

/* Kruskal over the kNN edges of similarity >= min_sim: *mst gets the m
   edges kept, most similar first (at most rows - 1). */
tc_status tc_spanning_forest(const knn *g, int32_t rows, double min_sim, int threads,
                              components *cc, edge **mst, int64_t *m, tc_error *err)
{
    int64_t slots = (int64_t)rows * g->k, n = 0;
    edge *e = tc_malloc_array(slots, sizeof *e, err);
    *mst = e ? tc_malloc_array(rows, sizeof **mst, err) : NULL;
    cc->parent = *mst ? tc_malloc_array(rows, sizeof *cc->parent, err) : NULL;
    cc->size = cc->parent ? tc_malloc_array(rows, sizeof *cc->size, err) : NULL;
    if (!cc->size) {
        free(e);
        return TC_ERR_NOMEM;
    }
    for (int64_t s = 0; s < slots; s++) {
        int32_t u = (int32_t)(s / g->k), v = g->nbr[s];
        if (v >= 0 && g->sim[s] >= min_sim)
            e[n++] = (edge){ g->sim[s], u < v ? u : v, u < v ? v : u };
    }
    runs r;
    runs_sort(&r, e, n, threads);
    for (int32_t i = 0; i < rows; i++) {
        cc->parent[i] = i;
        cc->size[i] = 1;
    }
    *m = 0;
    for (const edge *x; (x = runs_next(&r)) != NULL;) {
        int32_t p = tc_component_find(cc, x->lo), q = tc_component_find(cc, x->hi);
        if (p == q)
            continue;
        if (cc->size[p] < cc->size[q]) {
            int32_t t = p;
            p = q, q = t;
        }
        cc->parent[q] = p;
        cc->size[p] += cc->size[q];
        (*mst)[(*m)++] = *x;
    }
    free(e);
    return TC_OK;
}

/* ---- stage 5: depth-first order of every tree ------------------------------- */

/* The forest: neighbours of v in adj[xadj[v] .. xadj[v + 1]); once rooted,
   parent[v] (a root is its own parent, -1 before rooting), subtree sizes,
   and the children of v in kids[kid_at[v] .. kid_at[v + 1]), in the order
   the walk takes them. */
typedef struct forest {
    int64_t *xadj, *kid_at;
    int32_t *adj, *kids, *parent, *size;
} forest;

static void forest_free(forest *f)
{
    free(f->xadj);
    free(f->kid_at);
    free(f->adj);
    free(f->kids);
    free(f->parent);
    free(f->size);
}

/* Adjacency lists by a count / prefix-sum / fill pass over the edges. */
static tc_status forest_init(forest *f, const edge *mst, int64_t m, int32_t rows, tc_error *err)
{
    memset(f, 0, sizeof *f);
    f->xadj = tc_calloc_array((int64_t)rows + 1, sizeof *f->xadj, err);
    f->kid_at = f->xadj ? tc_calloc_array((int64_t)rows + 1, sizeof *f->kid_at, err) : NULL;
    f->adj = f->kid_at ? tc_malloc_array(2 * m, sizeof *f->adj, err) : NULL;
    f->kids = f->adj ? tc_malloc_array(m, sizeof *f->kids, err) : NULL;
    f->parent = f->kids ? tc_malloc_array(rows, sizeof *f->parent, err) : NULL;
    f->size = f->parent ? tc_malloc_array(rows, sizeof *f->size, err) : NULL;
    if (!f->size)
        return TC_ERR_NOMEM;
    for (int64_t i = 0; i < m; i++) {
        f->xadj[mst[i].lo + 1]++;
        f->xadj[mst[i].hi + 1]++;
    }
    for (int32_t v = 0; v < rows; v++) {
        f->xadj[v + 1] += f->xadj[v];
        f->parent[v] = -1;
        f->size[v] = 1;
    }
    for (int64_t i = 0; i < m; i++) {
        f->adj[f->xadj[mst[i].lo]++] = mst[i].hi;
        f->adj[f->xadj[mst[i].hi]++] = mst[i].lo;
    }
    memmove(f->xadj + 1, f->xadj, (size_t)rows * sizeof *f->xadj);
    f->xadj[0] = 0;
    return TC_OK;
}

/* Breadth first from root through its tree, setting parent[]; the rows
   reached go to queue[], the count is returned. */
static int64_t tree_bfs(forest *f, int32_t root, int32_t *queue)
{
    int64_t head = 0, tail = 0;
    queue[tail++] = root;
    f->parent[root] = root;
    while (head < tail) {
        int32_t v = queue[head++];
        for (int64_t e = f->xadj[v]; e < f->xadj[v + 1]; e++)
            if (f->adj[e] != f->parent[v]) {
                f->parent[f->adj[e]] = v;
                queue[tail++] = f->adj[e];
            }
    }
    return tail;
}

/* Roots every tree of two rows or more, taken in the order of their lowest
   row, at the last row that a breadth-first search from that lowest row
   reaches: an end of the tree (the paper does not say where the walk
   starts; from an end, the walk runs to the other end instead of
   leaving both halves of the tree around its start). roots[] gets the
   roots, *n their number; subtree sizes are computed. queue has room for
   every row. */
static void root_trees(forest *f, int32_t rows, int32_t *roots, int32_t *n, int32_t *queue)
{
    int64_t at = 0;
    *n = 0;
    for (int32_t r = 0; r < rows; r++) {
        if (f->parent[r] >= 0 || f->xadj[r] == f->xadj[r + 1])
            continue;
        int64_t len = tree_bfs(f, r, queue + at);
        roots[(*n)++] = queue[at + len - 1];
        tree_bfs(f, queue[at + len - 1], queue + at);
        at += len;
    }
    /* queue: every tree breadth first from its root, parents before
       children, so sizes add up from the end */
    for (int64_t i = at - 1; i >= 0; i--)
        if (f->parent[queue[i]] != queue[i])
            f->size[f->parent[queue[i]]] += f->size[queue[i]];
}

/* The children of each row in walk order: smaller subtree first, then
   more similar edge first. Where the paper's walk would descend into a
   big subtree (often a whole other cluster, reached through a weaker
   edge) and come back to finish the current cluster afterwards, this one
   finishes the small branches first and leaves the big subtree for last:
   clusters stay in one run. Two stable counting sorts of the tree edges
   (given most similar first): by the child's subtree size, then by parent. */
static tc_status order_children(forest *f, const edge *mst, int64_t m, int32_t rows,
                                tc_error *err)
{
    int32_t *child = tc_malloc_array(m, sizeof *child, err);
    int32_t *by_size = child ? tc_malloc_array(m, sizeof *by_size, err) : NULL;
    int64_t *next = by_size ? tc_calloc_array((int64_t)rows + 1, sizeof *next, err) : NULL;
    if (next) {
        for (int64_t i = 0; i < m; i++) {
            child[i] = f->parent[mst[i].lo] == mst[i].hi ? mst[i].lo : mst[i].hi;
            next[f->size[child[i]]]++;
        }
        int64_t at = 0;
        for (int32_t s = 0; s <= rows; s++) {
            int64_t c = next[s];
            next[s] = at;
            at += c;
        }
        for (int64_t i = 0; i < m; i++)
            by_size[next[f->size[child[i]]]++] = child[i];
        for (int64_t i = 0; i < m; i++)
            f->kid_at[f->parent[by_size[i]] + 1]++;
        for (int32_t v = 0; v < rows; v++)
            f->kid_at[v + 1] += f->kid_at[v];
        for (int64_t i = 0; i < m; i++)
            f->kids[f->kid_at[f->parent[by_size[i]]]++] = by_size[i];
        memmove(f->kid_at + 1, f->kid_at, (size_t)rows * sizeof *f->kid_at);
        f->kid_at[0] = 0;
    }
    free(child);
    free(by_size);
    free(next);
    return next ? TC_OK : TC_ERR_NOMEM;
}

/* Appends root's tree to out[*at ..] in depth-first preorder; stack has
   room for every row of the tree. */
static void walk(const forest *f, int32_t root, int32_t *stack, int32_t *out, int64_t *at)
{
    int64_t depth = 0;
    stack[depth++] = root;
    while (depth > 0) {
        int32_t v = stack[--depth];
        out[(*at)++] = v;
        for (int64_t e = f->kid_at[v + 1] - 1; e >= f->kid_at[v]; e--)
            stack[depth++] = f->kids[e];   /* the first child is popped first */
    }
}

/* The rows of all trees in walk order: walked[0 .. *n). */
tc_status tc_tree_order(const edge *mst, int64_t m, int32_t rows, int32_t *walked, int64_t *n,
                        tc_error *err)
{
    forest f;
    int32_t *roots = NULL, *scratch = NULL, nroots;
    tc_status st = forest_init(&f, mst, m, rows, err);
    if (!st) {
        roots = tc_malloc_array(rows, sizeof *roots, err);
        scratch = roots ? tc_malloc_array(rows, sizeof *scratch, err) : NULL;
        st = scratch ? TC_OK : TC_ERR_NOMEM;
    }
    if (!st) {
        root_trees(&f, rows, roots, &nroots, scratch);
        st = order_children(&f, mst, m, rows, err);
    }
    *n = 0;
    for (int32_t i = 0; !st && i < nroots; i++)
        walk(&f, roots[i], scratch, walked, n);
    free(roots);
    free(scratch);
    forest_free(&f);
    return st;
}

