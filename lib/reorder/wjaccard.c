/* wjaccard.c: the `wjaccard` reordering, RSH-SpMM's locality-aware
   reordering (seed 001, Section 3.4 and its Algorithm 3): rows that share
   columns, counted by a weighted Jaccard similarity, are put next to each
   other so that 16-row windows gather rows with the same columns and need
   fewer 16x8 tensor-core blocks.

   The stages, in the paper's order:
    1. Rows are column-support sets. The similarity of rows u and v is the
       weighted Jaccard J(u, v) = W(u & v) / W(u | v), W(S) the sum of w(c)
       over the columns c of S. The paper's weight formula was lost in the
       text; it says only that w falls with the column's global degree
       deg(c) (rows holding c). We take w(c) = 1 / ln(e + deg(c)): 0.76 for
       a column of one row, 0.22 at 100 rows, 0.11 at 10^4; a slow fall,
       so that hub columns still count, less.
    2. Candidates from an inverted index (the transpose: column -> rows):
       row u is paired with the rows of each of its columns. A column of
       more than `cap` other rows is sampled, not scanned: u is paired with
       the `cap` rows of that column nearest to it in index order (the paper
       does not say how it limits hub columns; this bounds the cost by
       cap * nnz, with a deterministic sample). And a row is paired with
       at most `budget` rows in all, its columns then taken rarest first
       (knn_row says why). A score from a sample misses the shared hub
       columns that were not sampled, so a row that sampled or left out
       any column has its best candidates scored again exactly.
    3. kNN graph: each row keeps its k most similar candidates (ties: lower
       row index). Rows are shared out to $TC_THREADS threads, each row
       computed by one thread alone: the graph is the same whatever their
       number.
    4. Minimum spanning forest of the kNN graph under dissimilarity 1 - J:
       Kruskal, edges by decreasing J (ties: lower row pair), union-find.
    5. "A depth-first traversal of the MST provides an initial
       permutation": each tree is walked depth first, trees in the order
       of their lowest row. The paper says neither where the walk starts
       nor in which order it takes a row's children; both matter. We start
       at an end of the tree (the last row a breadth-first search from its
       lowest row reaches) and take children by increasing subtree size,
       then decreasing J. Taking the most similar child first, the walk
       dives into a big subtree (often another whole cluster, hanging off
       the middle of this one by a weaker edge) and finishes this cluster
       only afterwards, splitting it; small branches first keep clusters
       in one run. Measured on the 32 matrices of the shared collection
       (cap=64): 0.672 of the input's TC blocks (geometric mean) against
       0.689 for the most similar child first; a scrambled block matrix
       comes back to its block count where the other order leaves 20%
       more.
    6. 2-opt: within each prospective 16-row window, a run of rows is
       reversed when that lowers the sum of adjacent dissimilarities
       (Section 3.4). A reversal inside an aligned window cannot change the
       window's rows, so windows are taken twice per round, aligned to 16
       and shifted by 8: the shifted ones move rows across window borders.
       `rounds` such sweeps; each window is improved by best moves until
       none gains (at most WINDOW * WINDOW moves), from a table of its
       pairwise dissimilarities computed once. The windows of one sweep
       are disjoint and each moves only its inner rows: they run in
       parallel and the result is the same whatever the thread count.
    7. Isolated rows, placed last as in the paper so that the 2-opt does
       not move them away again (rows "with no meaningful affinity" are
       "placed near their closest matches"): a row whose every kNN
       similarity is under `floor` takes no part in the forest and is
       placed right after its most similar candidate, when that row is in
       a tree. Rows without any candidate (empty rows, rows whose columns
       no other row has) and rows whose closest match is isolated too go
       last, in their original order: among other rows they would only
       add their columns to a window of unrelated rows; together they fill
       windows of their own. (Stage 8 may move the first kind on.)
    8. Swaps of rows between windows at most `reach` apart, where they
       lower the TC blocks (winswap.c; ours, not the paper's): the chain
       the stages before build is a path on a mesh, and a window of a
       path holds more columns than a compact patch. The rows going last
       stay there.
    9. The order is kept only if it gives fewer 16x8 TC blocks than the
       input order (counted as tcreorder reports them); otherwise the
       input order is returned, and the outcome says so: an already well
       ordered matrix never gets worse.

   Cost: at most min(cap * nnz, budget * rows) candidate pairs (each
   thread accumulates them in a hash map sized by the candidates of the
   row at hand, at most 2 * budget slots), O(rows * k * log(rows * k)) for
   the forest (sorted in one run per thread), linear for the walk, O(rows * WINDOW)
   row intersections per 2-opt round, O(nnz) per sweep of swaps and per
   swap a pair of windows makes (at most 32). */
#include "config.h"
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "candidates.h"
#include "reorder.h"
#include "search.h"
#include "threads.h"
#include "winswap.h"
#include "wjaccard_tree.h"

extern const tc_reorder_method tc_reorder_wjaccard;

#define MAX_K 64           /* most neighbours a row keeps */
#define WINDOW 16          /* rows per window: the TC block height */
#define CHUNK_ROWS 64      /* rows a kNN worker claims at a time */
#define MIN_PARALLEL 4096  /* fewer rows: one thread */
#define BUDGET 65536       /* default candidate pairs per row (stage 2) */

static const tc_param_def wjaccard_params[] = {
    { "k", "neighbours kept per row in the kNN graph", 8, 1, MAX_K, 1 },
    { "cap", "rows of one column paired with a row; longer columns are sampled", 256, 1,
      100000, 1 },
    { "budget", "candidate pairs one row accumulates at most; past it its rarest columns "
                "go first", BUDGET, 1, 1e9, 1 },
    { "rounds", "2-opt sweeps over the 16-row windows", 1, 0, 100, 1 },
    { "floor", "weighted Jaccard under which a row is isolated", 0.05, 0, 1, 0 },
    { "swaps", "rounds of row swaps between windows", 2, 0, 100, 1 },
    { "reach", "farthest apart two windows swapping rows are, in windows", 8, 1, 64, 1 },
};

/* ---- the similarity -------------------------------------------------------- */

/* The matrix seen as rows of columns and columns of rows, with the weights
   of stage 1. */
typedef struct problem {
    const tc_csr *a;
    tc_csr *t;          /* a's pattern transposed: the inverted index */
    double *w;          /* w[c], column weight */
    double *rw;         /* rw[i] = W(row i) */
} problem;

static tc_status problem_init(problem *pb, const tc_csr *a, tc_error *err)
{
    memset(pb, 0, sizeof *pb);
    pb->a = a;
    tc_csr pattern = *a;
    pattern.val = NULL;
    tc_status st = tc_csr_transpose(&pattern, &pb->t, err);
    if (st)
        return st;
    pb->w = tc_malloc_array(a->cols, sizeof *pb->w, err);
    pb->rw = pb->w ? tc_malloc_array(a->rows, sizeof *pb->rw, err) : NULL;
    if (!pb->rw)
        return TC_ERR_NOMEM;
    for (int32_t c = 0; c < a->cols; c++)
        pb->w[c] = 1 / log(M_E + (double)(pb->t->rowptr[c + 1] - pb->t->rowptr[c]));
    for (int32_t i = 0; i < a->rows; i++) {
        double s = 0;
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
            s += pb->w[a->colidx[e]];
        pb->rw[i] = s;
    }
    return TC_OK;
}

static void problem_free(problem *pb)
{
    tc_csr_free(pb->t);
    free(pb->w);
    free(pb->rw);
}

/* The weight of the columns in both sorted lists, x the shorter: each of
   x searched in y. */
static double shared_by_search(const double *w, const int32_t *x, int64_t nx, const int32_t *y,
                               int64_t ny)
{
    double s = 0;
    for (int64_t i = 0, j = 0; i < nx && j < ny; i++) {
        j = tc_lower_bound_i32(y, j, ny, x[i]);
        if (j < ny && y[j] == x[i])
            s += w[x[i]];
    }
    return s;
}

/* The same by merging the lists. */
static double shared_by_merge(const double *w, const int32_t *x, int64_t nx, const int32_t *y,
                              int64_t ny)
{
    double s = 0;
    for (int64_t i = 0, j = 0; i < nx && j < ny;) {
        if (x[i] < y[j]) {
            i++;
        } else if (x[i] > y[j]) {
            j++;
        } else {
            s += w[x[i]];
            i++, j++;
        }
    }
    return s;
}

/* W(u & v): the weights of the shared columns, added in increasing column
   order whichever way the rows are met (so J(u, v) == J(v, u) bit for
   bit). A short row against a much longer one is searched, not merged. */
static double shared_weight(const problem *pb, int32_t u, int32_t v)
{
    const tc_csr *a = pb->a;
    int64_t nu = a->rowptr[u + 1] - a->rowptr[u], nv = a->rowptr[v + 1] - a->rowptr[v];
    if (nu > nv)
        return shared_weight(pb, v, u);
    const int32_t *x = a->colidx + a->rowptr[u], *y = a->colidx + a->rowptr[v];
    return nv > 16 * nu ? shared_by_search(pb->w, x, nu, y, nv)
                        : shared_by_merge(pb->w, x, nu, y, nv);
}

/* J from the shared weight. */
static double jaccard_of(const problem *pb, int32_t u, int32_t v, double shared)
{
    double all = pb->rw[u] + pb->rw[v] - shared;
    return all > 0 ? shared / all : 0;
}

static double dissimilarity(const problem *pb, int32_t u, int32_t v)
{
    return 1 - jaccard_of(pb, u, v, shared_weight(pb, u, v));
}

/* ---- stages 2 and 3: candidates and the kNN graph ---------------------------- */

/* Work shared by the threads of a parallel stage: items [0, n) handed out
   one at a time; worker 0 (the calling thread) reports progress, as
   `base + item * scale` out of `total`. */
typedef struct pool {
    _Atomic int64_t next;
    int64_t n;
    const tc_progress *prog;
    int64_t base, scale, total;
} pool;

static int64_t pool_take(pool *p, int worker)
{
    int64_t item = atomic_fetch_add(&p->next, 1);
    if (worker == 0 && item < p->n)
        tc_progress_report(p->prog, p->base + item * p->scale, p->total);
    return item;
}

typedef struct knn_worker {
    const problem *pb;
    knn *g;
    int32_t cap;
    int64_t budget;
    pool *work;         /* items: chunks of CHUNK_ROWS rows */
    int id;
    tc_cand_map acc;
    uint64_t *keys;     /* a row's columns, rarest first, when over budget */
    int64_t room;       /* entries of keys */
    tc_status st;
} knn_worker;

/* s for row v ranks before s2 for row v2: more similar, then lower index. */
static int ranks_before(double s, int32_t v, double s2, int32_t v2)
{
    return s > s2 || (s == s2 && v < v2);
}

/* Inserts (v, s) into nbr/sim[0 .. *n), kept in rank order and at most k
   long. */
static void top_insert(int32_t *nbr, double *sim, int *n, int k, int32_t v, double s)
{
    if (*n == k && !ranks_before(s, v, sim[k - 1], nbr[k - 1]))
        return;
    int i = *n < k ? (*n)++ : k - 1;
    for (; i > 0 && ranks_before(s, v, sim[i - 1], nbr[i - 1]); i--) {
        nbr[i] = nbr[i - 1];
        sim[i] = sim[i - 1];
    }
    nbr[i] = v;
    sim[i] = s;
}

/* Row u's k best candidates: scores accumulated over its columns' rows
   (stage 2), the best k kept (stage 3); scored again exactly when a column
   was sampled or left out.

   A row pairs with at most `budget` candidates in all: past that, its
   columns are taken rarest first and the budget, not cap, bounds the
   last ones, the rest being left out. The paper asks only that the
   inverted index limit "similarity evaluation to structurally relevant
   row pairs" (Section 3.4); rare columns weigh the most in J (stage 1)
   and pair the fewest rows, as prefix filtering walks the rarest
   features first (Bayardo et al., WWW 2007, Section 4). Without a budget
   a row of a power-law graph pairs with cap rows of each of its hub
   columns: cap * nnz pairs, 34G on an R-MAT of 134M nonzeros, and a map
   sized by the rows met (bench/NOTES.md, "Reordering at scale"). */
static void knn_row(knn_worker *wk, int32_t u)
{
    const problem *pb = wk->pb;
    const tc_csr *a = pb->a, *t = pb->t;
    int k = wk->g->k;
    int32_t *nbr = wk->g->nbr + (int64_t)u * k;
    double *sim = wk->g->sim + (int64_t)u * k;
    tc_cand_map *m = &wk->acc;
    tc_col_walk walk;
    if (!tc_col_walk_start(&walk, t, a->colidx + a->rowptr[u], a->rowptr[u + 1] - a->rowptr[u],
                           u, wk->cap, wk->budget, 1, &wk->keys, &wk->room, m)) {
        wk->st = TC_ERR_NOMEM;
        return;
    }
    int sampled = walk.over, n = 0, one;
    int32_t c;
    int64_t lo, hi;
    while (tc_col_walk_next(&walk, &c, &lo, &hi, &one)) {
        sampled |= one;
        for (int64_t f = lo; f < hi; f++)
            if (t->colidx[f] != u)
                tc_cand_at(m, t->colidx[f])->val += pb->w[c];
    }
    /* J(u, v) = S / (W(u) + W(v) - S) <= S / W(u), as W(v) >= S: once k
       are kept, a candidate whose bound is under the k-th J cannot enter
       and W(v), a cache miss per candidate, is not read (a margin covers
       rounding: S and W(v) are sums taken in different orders) */
    double bound_scale = pb->rw[u] > 0 ? (1 + 1e-9) / pb->rw[u] : 0;
    for (int64_t q = 0; q < m->n; q++) {
        const tc_cand *x = &m->e[m->slot[q]];
        if (n == k && x->val * bound_scale < sim[k - 1])
            continue;
        top_insert(nbr, sim, &n, k, x->key, jaccard_of(pb, u, x->key, x->val));
    }
    tc_cand_clear(m);
    if (sampled) {
        int32_t v[MAX_K];
        int kept = n;
        memcpy(v, nbr, (size_t)kept * sizeof *v);
        n = 0;
        for (int i = 0; i < kept; i++)
            top_insert(nbr, sim, &n, k, v[i], jaccard_of(pb, u, v[i], shared_weight(pb, u, v[i])));
    }
    for (int i = n; i < k; i++) {
        nbr[i] = -1;
        sim[i] = 0;
    }
}

static void *knn_run(void *arg)
{
    knn_worker *wk = arg;
    int32_t rows = wk->pb->a->rows;
    for (int64_t ch; !wk->st && (ch = pool_take(wk->work, wk->id)) < wk->work->n;) {
        int64_t end = (ch + 1) * CHUNK_ROWS < rows ? (ch + 1) * CHUNK_ROWS : rows;
        for (int64_t u = ch * CHUNK_ROWS; u < end && !wk->st; u++)
            knn_row(wk, (int32_t)u);
    }
    return NULL;
}

/* The threads a stage over `rows` rows uses. */
static int thread_count(int32_t rows)
{
    int n = rows < MIN_PARALLEL ? 1 : tc_default_threads();
    return n < 1 ? 1 : n > TC_MAX_JOBS ? TC_MAX_JOBS : n;
}

static tc_status knn_build(const problem *pb, knn *g, int32_t cap, int64_t budget, pool *work,
                           tc_error *err)
{
    int32_t rows = pb->a->rows;
    g->nbr = tc_malloc_array((int64_t)rows * g->k, sizeof *g->nbr, err);
    g->sim = g->nbr ? tc_malloc_array((int64_t)rows * g->k, sizeof *g->sim, err) : NULL;
    if (!g->sim)
        return TC_ERR_NOMEM;
    knn_worker wk[TC_MAX_JOBS];
    int n = thread_count(rows);
    work->n = ((int64_t)rows + CHUNK_ROWS - 1) / CHUNK_ROWS;
    work->scale = CHUNK_ROWS;
    for (int i = 0; i < n; i++)
        wk[i] = (knn_worker){ .pb = pb, .g = g, .cap = cap, .budget = budget, .work = work,
                              .id = i };
    tc_run_jobs(knn_run, wk, sizeof wk[0], n);
    tc_status st = TC_OK;
    for (int i = 0; i < n; i++) {
        if (wk[i].st)
            st = wk[i].st;
        tc_cand_free(&wk[i].acc);
        free(wk[i].keys);
    }
    if (st)
        return tc_error_set(err, st, "wjaccard: out of memory for the candidates of a %d x %d "
                            "matrix", pb->a->rows, pb->a->cols);
    return TC_OK;
}

/* ---- stage 6: 2-opt inside the windows -------------------------------------- */

/* Improves the run p[0 .. len) (len <= WINDOW) by reversals p[i .. j],
   0 < i < j < len - 1: the ends stay, so the edges to the neighbouring
   windows do not change and windows improved side by side do not meet.
   Best move first, until none lowers the sum of adjacent dissimilarities. */
static void improve_window(const problem *pb, int32_t *p, int len)
{
    double d[WINDOW][WINDOW];
    int loc[WINDOW];
    for (int x = 0; x < len; x++) {
        loc[x] = x;
        d[x][x] = 0;
        for (int y = x + 1; y < len; y++)
            d[x][y] = d[y][x] = dissimilarity(pb, p[x], p[y]);
    }
    for (int moves = 0; moves < WINDOW * WINDOW; moves++) {
        double best = 1e-12;
        int bi = 0, bj = 0;
        for (int i = 1; i < len - 2; i++)
            for (int j = i + 1; j < len - 1; j++) {
                double gain = d[loc[i - 1]][loc[i]] + d[loc[j]][loc[j + 1]] -
                              d[loc[i - 1]][loc[j]] - d[loc[i]][loc[j + 1]];
                if (gain > best) {
                    best = gain;
                    bi = i, bj = j;
                }
            }
        if (!bi)
            break;
        for (int i = bi, j = bj; i < j; i++, j--) {
            int tmp = loc[i];
            loc[i] = loc[j], loc[j] = tmp;
        }
    }
    int32_t rows[WINDOW];
    for (int x = 0; x < len; x++)
        rows[x] = p[loc[x]];
    memcpy(p, rows, (size_t)len * sizeof *p);
}

typedef struct opt_worker {
    const problem *pb;
    int32_t *order;
    int64_t n, offset;  /* windows start at offset + WINDOW * item */
    pool *work;
    int id;
} opt_worker;

static void *opt_run(void *arg)
{
    opt_worker *wk = arg;
    for (int64_t item; (item = pool_take(wk->work, wk->id)) < wk->work->n;) {
        int64_t start = wk->offset + item * WINDOW;
        int64_t len = wk->n - start < WINDOW ? wk->n - start : WINDOW;
        improve_window(wk->pb, wk->order + start, (int)len);
    }
    return NULL;
}

/* `rounds` sweeps over order[0 .. n), each over the aligned windows and then
   over the windows shifted by half a window. Progress is reported from
   progress->base on, n units a round. */
static void two_opt(const problem *pb, int32_t *order, int64_t n, int rounds, pool *progress)
{
    opt_worker wk[TC_MAX_JOBS];
    int threads = thread_count((int32_t)n);
    for (int r = 0; r < 2 * rounds; r++) {
        int64_t offset = r % 2 ? WINDOW / 2 : 0;
        pool work = { .n = n > offset ? (n - offset + WINDOW - 1) / WINDOW : 0,
                      .prog = progress->prog, .base = progress->base + r * (n / 2),
                      .scale = WINDOW / 2, .total = progress->total };
        atomic_init(&work.next, 0);
        for (int i = 0; i < threads; i++)
            wk[i] = (opt_worker){ .pb = pb, .order = order, .n = n, .offset = offset,
                                  .work = &work, .id = i };
        tc_run_jobs(opt_run, wk, sizeof wk[0], threads);
    }
}

/* ---- stage 7: the order, with the isolated rows placed --------------------- */

/* Where row r goes: -1 in the walk of its tree (two rows or more); else
   right after the row returned (its most similar candidate, when that
   one is in a tree); else -2: last. */
static int32_t anchor_of(components *cc, const knn *g, int32_t r)
{
    if (cc->size[tc_component_find(cc, r)] > 1)
        return -1;
    int32_t best = g->nbr[(int64_t)r * g->k];
    return best >= 0 && cc->size[tc_component_find(cc, best)] > 1 ? best : -2;
}

/* Fills new2old: the walked rows, every one followed by the isolated rows
   anchored to it (in original order), then the rows going last, in
   original order; *placed counts the rows before those. */
static tc_status place_rows(components *cc, const knn *g, const int32_t *walked, int64_t n,
                            int32_t rows, int32_t *new2old, int64_t *placed, tc_error *err)
{
    /* rows anchored to x: anchored[after[x] .. after[x + 1]) */
    int64_t *after = tc_calloc_array((int64_t)rows + 1, sizeof *after, err);
    int32_t *anchored = after ? tc_malloc_array(rows, sizeof *anchored, err) : NULL;
    if (!anchored) {
        free(after);
        return TC_ERR_NOMEM;
    }
    for (int32_t r = 0; r < rows; r++) {
        int32_t x = anchor_of(cc, g, r);
        if (x >= 0)
            after[x + 1]++;
    }
    for (int32_t x = 0; x < rows; x++)
        after[x + 1] += after[x];
    for (int32_t r = 0; r < rows; r++) {
        int32_t x = anchor_of(cc, g, r);
        if (x >= 0)
            anchored[after[x]++] = r;
    }
    memmove(after + 1, after, (size_t)rows * sizeof *after);
    after[0] = 0;
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        new2old[at++] = walked[i];
        for (int64_t j = after[walked[i]]; j < after[walked[i] + 1]; j++)
            new2old[at++] = anchored[j];
    }
    *placed = at;
    for (int32_t r = 0; r < rows; r++)
        if (anchor_of(cc, g, r) == -2)
            new2old[at++] = r;
    free(after);
    free(anchored);
    return TC_OK;
}

/* ---- the method ------------------------------------------------------------- */

static tc_status wjaccard_run(const tc_csr *a, const tc_params *p, int32_t *new2old,
                              tc_reorder_outcome *out, const tc_progress *prog, tc_error *err)
{
    const tc_reorder_method *m = &tc_reorder_wjaccard;
    knn g = { .k = (int)tc_reorder_param(m, p, "k") };
    int32_t cap = (int32_t)tc_reorder_param(m, p, "cap");
    int64_t budget = (int64_t)tc_reorder_param(m, p, "budget");
    int rounds = (int)tc_reorder_param(m, p, "rounds");
    double min_sim = tc_reorder_param(m, p, "floor");
    int swaps = (int)tc_reorder_param(m, p, "swaps");
    int reach = (int)tc_reorder_param(m, p, "reach");
    /* progress: rows units for the kNN graph, rows for the order, rows per
       2-opt round */
    pool work = { .prog = prog, .total = (int64_t)a->rows * (2 + rounds) };
    atomic_init(&work.next, 0);
    problem pb;
    components cc = { 0 };
    edge *mst = NULL;
    int32_t *walked = NULL;
    int64_t nmst = 0, nwalked = 0, nplaced = 0;
    tc_status st = problem_init(&pb, a, err);
    if (!st)
        st = knn_build(&pb, &g, cap, budget, &work, err);
    /* the inverted index serves the candidates only: 4 bytes a nonzero
       less for the stages after */
    tc_csr_free(pb.t);
    pb.t = NULL;
    if (!st)
        st = tc_spanning_forest(&g, a->rows, min_sim, thread_count(a->rows), &cc, &mst, &nmst, err);
    if (!st && !(walked = tc_malloc_array(a->rows, sizeof *walked, err)))
        st = TC_ERR_NOMEM;
    if (!st)
        st = tc_tree_order(mst, nmst, a->rows, walked, &nwalked, err);
    if (!st) {
        work.base = 2 * (int64_t)a->rows;
        tc_progress_report(prog, work.base, work.total);
        two_opt(&pb, walked, nwalked, rounds, &work);
        st = place_rows(&cc, &g, walked, nwalked, a->rows, new2old, &nplaced, err);
    }
    if (!st)
        st = tc_window_swaps(a, new2old, nplaced, swaps, reach, thread_count(a->rows), err);
    if (!st)
        st = tc_reorder_keep_if_fewer_blocks(m, a, new2old, out, err);
    if (!st)
        tc_progress_report(prog, work.total, work.total);
    free(walked);
    free(mst);
    free(cc.parent);
    free(cc.size);
    free(g.nbr);
    free(g.sim);
    problem_free(&pb);
    return st;
}

const tc_reorder_method tc_reorder_wjaccard = {
    .name = "wjaccard",
    .description = "weighted Jaccard kNN graph, MST, depth-first order, 2-opt, window swaps "
                   "(RSH-SpMM)",
    .params = wjaccard_params,
    .nparams = (int)(sizeof wjaccard_params / sizeof wjaccard_params[0]),
    .run_outcome = wjaccard_run,
};
