/* jaccard.c: the `jaccard` reordering, Sylos Labini's greedy row clustering
   as SMaT uses it (seed 004, Section IV-C) to lower the number of h x w
   BCSR blocks, made scalable.

   The paper's algorithm. A row's pattern is the set of its block columns
   (column / w). The distance of a row to a cluster is the Jaccard distance
   of their patterns, 1 - |P & R| / |P | R|, P the union of the patterns of
   the cluster's rows (the formula was lost from the text; "the ratio of
   padding to the total cluster area" is what it measures when the cluster
   is one block row tall). Greedily: take the first row not in a cluster as
   the seed of a new one, then go through the later rows not in a cluster,
   in order, and merge every row whose distance to the cluster is below
   tau, adding its pattern to P; repeat until every row is in a cluster.
   Only rows move (SMaT's choice: the columns of B stay in place).

   Our choices where the paper is silent or too slow:
    - A cluster stops at h rows, the BCSR block height, so that it can
      become one block row (the paper bounds no cluster; SMaT cuts the
      reordered matrix into fixed blocks of 16 rows).
    - Candidates come from an inverted index, block column -> rows, instead
      of a scan of all later rows: a row that shares no block column with
      P is at distance 1 and never merges (tau <= 1), so only rows in the
      lists of P's block columns can; merging them in increasing row order,
      each tested against P as it is when its turn comes, is exactly the
      paper's scan. The lists are walked together by a heap of cursors,
      each starting past the row last examined when its column is walked.
    - Not every list of P is walked (prefix filtering, Bayardo et al.,
      WWW 2007): a row closer than tau shares at least ceil((1-tau) |P|)
      of P's block columns, so it is in one of any |P| - that + 1 of their
      lists; the shortest lists are walked first. Exact, and at small tau
      it walks few lists.
    - Rows already clustered are marked in a bitmap over list entries, one
      bit each, so that a walk steps over 64 of them at a time. (A
      union-find over the entries, "next entry still in a list", steps
      over each only once, but at 8 bytes an entry for each tau of the
      sweep it was most of the memory: 5.4 GB of 7.7 GB on an R-MAT of
      134M nonzeros, bench/NOTES.md "Reordering at scale".)
    - A row met in the lists is counted as often as it is met: that is
      how many of P's walked block columns it has. With the columns of P
      not walked yet, that bounds what it shares with P from both sides,
      and most rows are decided by the bound alone, without reading
      their pattern (count filtering, as in Bayardo et al.'s All-Pairs,
      WWW 2007, Section 4); the decision is the one the full count makes.
    - A cluster examines at most `candidates` distinct rows: with a dense
      block column every row is a candidate of every cluster, and the
      paper's scan is quadratic. Counting the block columns a row shares
      with P stops as soon as the count decides, at once when the sizes
      alone rule out a distance below tau.
    - Clusters are laid out so that full ones fill whole block rows: the
      clusters of h rows first, in the order of their seeds, then the
      smaller ones in that order, then the empty rows, which belong to no
      block and would only push other rows across block rows.
    - The rows are cut into slices of `slice` rows (131072 by default) and
      a cluster takes rows of its seed's slice only, so that the slices of
      every tau run on threads at once (the taus alone gave at most 5 of
      16 CPUs work, the slowest tau setting the time: bench/NOTES.md,
      "Reordering at scale"); the order does not depend on the thread
      count. A cluster rarely reaches far past its seed: it examines at
      most `candidates` rows, the first ones after the seed in its lists,
      so only clusters near a slice's end change. Measured on R-MAT 2^18:
      3491837 16x16 blocks in one slice, 3486823 in slices of 131072,
      with 24% less CPU time. A matrix of at most `slice` rows (every
      shared matrix) is one slice, the order of the paper's scan.
    - Without tau (tau = 0, which would merge nothing), the clustering is
      done for each tau of SWEEP, in threads, and the order with the fewest
      blocks is kept; the input order when none has fewer blocks than it
      (the paper's conf5_4-8x8, a band matrix the clustering makes worse),
      said in the outcome's note. With tau given, its order is returned,
      with a note when it has more blocks than the input's.

   Cost: O(nnz) to build the patterns and the index; per cluster, a binary
   search per walked block column and at most `candidates` rows examined,
   each O(log |P|) heap steps plus O(|R|) for the distance: O(nnz log) plus
   O(rows * candidates) in the worst case, for each tau of the sweep. No
   array grows with rows * anything. Memory: the patterns and their index
   (8 bytes a block column of a row), per tau of the sweep 1 bit an entry
   of the index and 13 bytes a row, and per thread 4 bytes a block column
   of the matrix. */
#include "config.h"
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "reorder.h"
#include "search.h"
#include "threads.h"

extern const tc_reorder_method tc_reorder_jaccard;

static const tc_param_def jaccard_params[] = {
    { "tau", "Jaccard distance below which a row joins a cluster; 0: try each of 0.3 0.5 "
             "0.7 0.8 0.9 and keep the fewest BCSR blocks, or the input order", 0, 0, 1, 0 },
    { "h", "most rows per cluster: the BCSR block height", 16, 1, 1024, 1 },
    { "w", "columns per block column of the row patterns: the BCSR block width", 16, 1, 65536,
      1 },
    { "candidates", "most rows a cluster examines (bounds the time when many rows share a "
                    "block column)", 1024, 1, 1e9, 1 },
    { "slice", "rows per slice: a slice's rows cluster only with each other, and the slices "
               "run on threads at once; 0: one slice", 131072, 0, 2147483647, 1 },
};
#define NPARAMS ((int)(sizeof jaccard_params / sizeof jaccard_params[0]))

static const double SWEEP[] = { 0.3, 0.5, 0.7, 0.8, 0.9 };
#define NSWEEP ((int)(sizeof SWEEP / sizeof SWEEP[0]))

/* Row patterns and their inverted index. */
typedef struct patterns {
    int32_t rows, ncols;        /* rows; block columns ceil(cols / w) */
    int64_t *ptr;               /* rows + 1 */
    int32_t *idx;               /* row r's block columns, ascending: idx[ptr[r] .. ptr[r+1]) */
    int64_t *lptr;              /* ncols + 1 */
    int32_t *lrow;              /* the rows having block column c, ascending:
                                   lrow[lptr[c] .. lptr[c+1]) */
} patterns;

static void patterns_free(patterns *p)
{
    free(p->ptr);
    free(p->idx);
    free(p->lptr);
    free(p->lrow);
}

/* Row r's distinct block columns (its columns are sorted, so are they),
   written to out when not NULL; returns how many. */
static int64_t row_pattern(const tc_csr *a, int32_t r, int w, int32_t *out)
{
    int64_t n = 0;
    int32_t last = -1;
    for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++) {
        int32_t c = a->colidx[k] / w;
        if (c == last)
            continue;
        if (out)
            out[n] = c;
        n++;
        last = c;
    }
    return n;
}

static int64_t list_length(const patterns *p, int32_t c)
{
    return p->lptr[c + 1] - p->lptr[c];
}

/* The patterns (a count pass and a fill pass over the rows), then the
   index (a count pass and a fill pass over the patterns, in row order, so
   that every list is ascending). */
static tc_status patterns_build(const tc_csr *a, int w, patterns *p, tc_error *err)
{
    memset(p, 0, sizeof *p);
    p->rows = a->rows;
    p->ncols = (int32_t)(((int64_t)a->cols + w - 1) / w);
    p->ptr = tc_malloc_array((int64_t)a->rows + 1, sizeof *p->ptr, err);
    p->lptr = p->ptr ? tc_calloc_array((int64_t)p->ncols + 1, sizeof *p->lptr, err) : NULL;
    if (!p->lptr)
        return TC_ERR_NOMEM;
    p->ptr[0] = 0;
    for (int32_t r = 0; r < a->rows; r++)
        p->ptr[r + 1] = p->ptr[r] + row_pattern(a, r, w, NULL);
    int64_t n = p->ptr[a->rows];
    p->idx = tc_malloc_array(n, sizeof *p->idx, err);
    p->lrow = p->idx ? tc_malloc_array(n, sizeof *p->lrow, err) : NULL;
    if (!p->lrow)
        return TC_ERR_NOMEM;
    for (int32_t r = 0; r < a->rows; r++)
        row_pattern(a, r, w, p->idx + p->ptr[r]);
    for (int64_t k = 0; k < n; k++)
        p->lptr[p->idx[k] + 1]++;
    for (int32_t c = 0; c < p->ncols; c++)
        p->lptr[c + 1] += p->lptr[c];
    /* lptr[c] runs ahead as list c fills, ending at lptr[c + 1]; shifted
       back below. */
    for (int32_t r = 0; r < a->rows; r++)
        for (int64_t k = p->ptr[r]; k < p->ptr[r + 1]; k++)
            p->lrow[p->lptr[p->idx[k]]++] = r;
    memmove(p->lptr + 1, p->lptr, (size_t)p->ncols * sizeof *p->lptr);
    p->lptr[0] = 0;
    return TC_OK;
}

static int64_t pattern_size(const patterns *p, int32_t r)
{
    return p->ptr[r + 1] - p->ptr[r];
}

/* The first entry of block column col's list whose row is >= r. */
static int64_t list_find(const patterns *p, int32_t col, int32_t r)
{
    return tc_lower_bound_i32(p->lrow, p->lptr[col], p->lptr[col + 1], r);
}

/* The number of h-row BCSR blocks of the rows taken in `order` (NULL: the
   input order): each block row's distinct block columns, counted with one
   stamp per block column. */
static int64_t count_blocks(const patterns *p, const int32_t *order, int h, int32_t *stamp)
{
    int64_t blocks = 0;
    for (int32_t c = 0; c < p->ncols; c++)
        stamp[c] = -1;
    for (int32_t i = 0; i < p->rows; i++) {
        int32_t r = order ? order[i] : i, g = i / h;
        for (int64_t k = p->ptr[r]; k < p->ptr[r + 1]; k++)
            if (stamp[p->idx[k]] != g) {
                stamp[p->idx[k]] = g;
                blocks++;
            }
    }
    return blocks;
}

/* ------------------------------------------------------------ clustering */

/* A binary min-heap on key. It holds the cursors of a cluster, one per
   list of the index being walked (key: the row at `at`; `end`: the list's
   end), and the block columns of P waiting for a cursor (key: the length
   of their list, `at`: the block column). */
typedef struct item {
    int32_t key;
    int64_t at, end;
} item;

typedef struct heap {
    item *a;
    int64_t n, cap;
} heap;

static tc_status heap_push(heap *h, item x, tc_error *err)
{
    if (h->n == h->cap) {
        int64_t cap = h->cap ? 2 * h->cap : 64;
        item *a = realloc(h->a, (size_t)cap * sizeof *a);
        if (!a)
            return tc_error_set(err, TC_ERR_NOMEM, "jaccard: out of memory");
        h->a = a;
        h->cap = cap;
    }
    int64_t i = h->n++;
    for (; i > 0 && h->a[(i - 1) / 2].key > x.key; i = (i - 1) / 2)
        h->a[i] = h->a[(i - 1) / 2];
    h->a[i] = x;
    return TC_OK;
}

/* Replaces the top with x, or removes it when x is NULL. */
static void heap_replace_top(heap *h, const item *x)
{
    item y = x ? *x : h->a[--h->n];
    int64_t i = 0;
    for (;;) {
        int64_t l = 2 * i + 1, m = l + 1 < h->n && h->a[l + 1].key < h->a[l].key ? l + 1 : l;
        if (l >= h->n || h->a[m].key >= y.key)
            break;
        h->a[i] = h->a[m];
        i = m;
    }
    if (h->n > 0)
        h->a[i] = y;
}

/* One clustering at one tau: what its slices share. Slice s holds rows
   [s * slice, (s + 1) * slice); its rows cluster only with each other,
   so the slices of every tau of the sweep run on threads at once. */
typedef struct clustering {
    const patterns *p;
    double tau;
    int h;
    int64_t candidates;
    int32_t slice;          /* rows per slice */
    int32_t nslices;
    uint64_t *dead;         /* bit per index entry (and one past the end, never
                               set): its row is clustered. A word may hold
                               entries of two slices' rows, set from two
                               threads: atomic */
    uint8_t *done;          /* per row: clustered */
    int32_t *members;       /* the clusters, in seed order; slice s's from
                               position s * slice on */
    int32_t *start;         /* where each cluster begins in members; slice s's
                               from s * (slice + 1) on, ending with its end */
    int32_t *nclusters;     /* per slice */
    int32_t *order;         /* the result, new to old */
    int64_t blocks;         /* its block count */
} clustering;

/* A thread's scratch for growing the clusters of one slice at a time. */
typedef struct walk {
    clustering *c;
    int32_t hi;             /* the end of the slice's rows */
    int32_t *stamp;         /* per block column: the seed of the cluster whose
                               pattern has it (-1: none); back to -1 after
                               each slice */
    heap cursors;           /* the lists walked for the current cluster */
    heap waiting;           /* P's block columns without a cursor */
    int64_t psize;          /* |P| of the current cluster */
    int64_t walked;         /* P's block columns with a cursor (or none left) */
} walk;

/* The first entry in [e, end) whose row is not clustered, else end. */
static int64_t live_at(const uint64_t *dead, int64_t e, int64_t end)
{
    if (e >= end)
        return end;
    int64_t word = e >> 6;
    uint64_t live = ~__atomic_load_n(&dead[word], __ATOMIC_RELAXED) & (~(uint64_t)0 << (e & 63));
    while (!live && ++word * 64 < end)
        live = ~__atomic_load_n(&dead[word], __ATOMIC_RELAXED);
    int64_t at = live ? word * 64 + __builtin_ctzll(live) : end;
    return at < end ? at : end;
}

/* A cursor on block column col's list, at its first live row after
   `after` (none when the slice has no such row). */
static tc_status add_cursor(walk *w, int32_t col, int32_t after, tc_error *err)
{
    const patterns *p = w->c->p;
    int64_t end = w->hi == p->rows ? p->lptr[col + 1] : list_find(p, col, w->hi);
    int64_t at = live_at(w->c->dead, list_find(p, col, after + 1), end);
    return at < end ? heap_push(&w->cursors, (item){ p->lrow[at], at, end }, err) : TC_OK;
}

/* How many of P's block columns a row closer than tau must share with P's
   walked ones, for any choice of them, to be found: a distance below tau
   is a similarity above t = 1 - tau, which needs |P & R| >= t |P|, so R
   meets every set of |P| - ceil(t |P|) + 1 columns of P (prefix filtering,
   Bayardo et al., WWW 2007). Rounded up, so that a rounding error can only
   walk more. */
static int64_t must_walk(const walk *w)
{
    int64_t shared = (int64_t)ceil((1 - w->c->tau) * (double)w->psize - 1e-9);
    int64_t n = w->psize - shared + 1;
    return n < 1 ? 1 : n > w->psize ? w->psize : n;
}

/* Row r joins the cluster of `seed`: it leaves the index, and its block
   columns new to P join P, waiting; then the rarest waiting ones get
   cursors past r until enough of P is walked (must_walk): rare columns
   have short lists, so few rows are examined in vain. */
static tc_status take(walk *w, int32_t seed, int32_t r, tc_error *err)
{
    const patterns *p = w->c->p;
    tc_status st = TC_OK;
    w->c->done[r] = 1;
    for (int64_t k = p->ptr[r]; k < p->ptr[r + 1] && st == TC_OK; k++) {
        int32_t col = p->idx[k];
        int64_t e = list_find(p, col, r);
        __atomic_fetch_or(&w->c->dead[e >> 6], (uint64_t)1 << (e & 63), __ATOMIC_RELAXED);
        if (w->stamp[col] == seed)
            continue;
        w->stamp[col] = seed;
        w->psize++;
        st = heap_push(&w->waiting, (item){ (int32_t)list_length(p, col), col, 0 }, err);
    }
    for (; st == TC_OK && w->walked < must_walk(w) && w->waiting.n > 0; w->walked++) {
        int32_t col = (int32_t)w->waiting.a[0].at;
        heap_replace_top(&w->waiting, NULL);
        st = add_cursor(w, col, r, err);
    }
    return st;
}

/* 1 - i / (np + nr - i): the Jaccard distance of P (np block columns) and
   R (nr), i of them shared. */
static double jaccard_distance(double np, double nr, double i)
{
    return 1 - i / (np + nr - i);
}

/* The fewest shared block columns i that bring the distance of P (np
   block columns) and R (nr) below tau, or min(np, nr) + 1 when none does.
   The distance falls as i grows; the closed form
   i > (1 - tau)(np + nr) / (2 - tau) is only a first guess, corrected with
   the very expression joins() would evaluate, so that every decision is
   the one the full count would give. */
static int64_t shared_needed(double tau, int64_t np, int64_t nr)
{
    int64_t most = np < nr ? np : nr;
    int64_t i = (int64_t)((1 - tau) * (double)(np + nr) / (2 - tau));
    i = i < 0 ? 0 : i > most + 1 ? most + 1 : i;
    while (i > 0 && jaccard_distance((double)np, (double)nr, (double)(i - 1)) < tau)
        i--;
    while (i <= most && !(jaccard_distance((double)np, (double)nr, (double)i) < tau))
        i++;
    return i;
}

/* Whether row r, met in `seen` of the walked lists of P (so it has
   exactly `seen` of P's walked block columns), is closer than tau to the
   cluster of `seed`. What it shares with P is seen plus what it has of
   P's columns not walked yet, the w->waiting.n columns of the waiting
   heap: decided by these bounds when they suffice, else by counting the
   block columns it shares with P, stopping as soon as the count reaches
   what is needed or can no longer reach it. */
static int joins(const walk *w, int32_t seed, int32_t r, int64_t seen)
{
    const patterns *p = w->c->p;
    int64_t nr = pattern_size(p, r), need = shared_needed(w->c->tau, w->psize, nr), i = 0;
    int64_t unseen = nr - seen < w->waiting.n ? nr - seen : w->waiting.n;
    if (need > nr || need > w->psize || seen + unseen < need)
        return 0;
    if (seen >= need)
        return 1;
    for (int64_t k = p->ptr[r], end = p->ptr[r + 1]; i < need && i + (end - k) >= need; k++)
        i += w->stamp[p->idx[k]] == seed;
    return i >= need;
}

/* Grows the cluster of `seed` (already taken) into members[0 ..), up to h
   rows, walking the lists of P's walked columns in increasing row; returns
   its size, or -1 when memory ran out. */
static int64_t grow(walk *w, int32_t seed, int32_t *members, tc_error *err)
{
    const clustering *c = w->c;
    int64_t size = 1, examined = 0;
    members[0] = seed;
    while (size < c->h && examined < c->candidates && w->cursors.n > 0) {
        int32_t r = w->cursors.a[0].key;
        int64_t seen = 0;
        /* every cursor at r moves on: one per walked list that holds r */
        while (w->cursors.n > 0 && w->cursors.a[0].key == r) {
            item top = w->cursors.a[0];
            top.at = live_at(c->dead, top.at + 1, top.end);
            if (top.at < top.end)
                top.key = c->p->lrow[top.at];
            heap_replace_top(&w->cursors, top.at < top.end ? &top : NULL);
            seen++;
        }
        examined++;
        if (!joins(w, seed, r, seen))
            continue;
        if (take(w, seed, r, err))
            return -1;
        members[size++] = r;
    }
    return size;
}

/* The clusters of slice s, seed by seed, into c->members and c->start;
   w->stamp back to -1 after. */
static tc_status cluster_slice(walk *w, int32_t s, tc_error *err)
{
    clustering *c = w->c;
    const patterns *p = c->p;
    int32_t lo = s * c->slice;
    int32_t *start = c->start + (int64_t)s * (c->slice + 1), at = lo, n = 0;
    w->hi = p->rows - lo > c->slice ? lo + c->slice : p->rows;
    tc_status st = TC_OK;
    for (int32_t seed = lo; seed < w->hi && st == TC_OK; seed++) {
        if (c->done[seed] || pattern_size(p, seed) == 0)
            continue;
        w->psize = w->walked = w->cursors.n = w->waiting.n = 0;
        int64_t size = take(w, seed, seed, err) ? -1 : grow(w, seed, c->members + at, err);
        if (size < 0)
            st = TC_ERR_NOMEM;
        start[n++] = at;
        at += (int32_t)(size < 0 ? 0 : size);
    }
    start[n] = at;
    c->nclusters[s] = n;
    for (int64_t k = p->ptr[lo]; k < p->ptr[w->hi]; k++)
        w->stamp[p->idx[k]] = -1;
    return st;
}

/* c->order from the clusters of every slice (see the top of the file:
   full clusters, then the others, then the empty rows), and its block
   count, with stamp as scratch. */
static void lay_out(clustering *c, int32_t *stamp)
{
    const patterns *p = c->p;
    int64_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int32_t s = 0; s < c->nslices; s++) {
            const int32_t *start = c->start + (int64_t)s * (c->slice + 1);
            for (int32_t i = 0; i < c->nclusters[s]; i++) {
                int32_t n = start[i + 1] - start[i];
                if ((n == c->h) == (pass == 0))
                    for (int32_t j = 0; j < n; j++)
                        c->order[k++] = c->members[start[i] + j];
            }
        }
    for (int32_t r = 0; r < p->rows; r++)
        if (pattern_size(p, r) == 0)
            c->order[k++] = r;
    c->blocks = count_blocks(p, c->order, c->h, stamp);
}

static void clustering_free(clustering *c)
{
    free(c->dead);
    free(c->done);
    free(c->members);
    free(c->start);
    free(c->nclusters);
    free(c->order);
}

static tc_status clustering_alloc(clustering *c, tc_error *err)
{
    const patterns *p = c->p;
    c->nslices = p->rows ? (int32_t)(((int64_t)p->rows + c->slice - 1) / c->slice) : 0;
    c->dead = tc_calloc_array(p->ptr[p->rows] / 64 + 1, sizeof *c->dead, err);
    c->done = tc_calloc_array(p->rows, 1, err);
    c->members = tc_malloc_array(p->rows, sizeof *c->members, err);
    c->start = tc_malloc_array((int64_t)c->nslices * (c->slice + 1), sizeof *c->start, err);
    c->nclusters = tc_calloc_array(c->nslices, sizeof *c->nclusters, err);
    c->order = tc_malloc_array(p->rows, sizeof *c->order, err);
    return c->dead && c->done && c->members && (c->start || !c->nslices) &&
           (c->nclusters || !c->nslices) && c->order ? TC_OK : TC_ERR_NOMEM;
}

/* ------------------------------------------------------------- threads */

/* The clusterings of the runs, shared out over threads: every (run,
   slice) is a job, taken in turn from `next`; then each run's layout. A
   job's result does not depend on which thread runs it, or when. */
typedef struct cluster_worker {
    clustering *runs;
    int nruns;
    int64_t njobs;
    _Atomic int64_t *next, *finished;
    walk w;
    tc_status st;
    tc_error err;
    const tc_progress *prog;    /* worker 0 only: it runs on the calling thread */
} cluster_worker;

static void *cluster_jobs(void *arg)
{
    cluster_worker *k = arg;
    for (int64_t j; k->st == TC_OK && (j = atomic_fetch_add(k->next, 1)) < k->njobs;) {
        clustering *c = &k->runs[j % k->nruns];
        k->w.c = c;
        k->st = cluster_slice(&k->w, (int32_t)(j / k->nruns), &k->err);
        int64_t finished = atomic_fetch_add(k->finished, 1) + 1;
        tc_progress_report(k->prog, finished, k->njobs);
    }
    return NULL;
}

static void *lay_out_runs(void *arg)
{
    cluster_worker *k = arg;
    for (int64_t j; (j = atomic_fetch_add(k->next, 1)) < k->nruns;)
        lay_out(&k->runs[j], k->w.stamp);
    return NULL;
}

/* Clusters every run (each with its arrays allocated) and lays each out. */
static tc_status cluster_runs(clustering *runs, int nruns, const tc_progress *prog,
                              tc_error *err)
{
    const patterns *p = runs[0].p;
    int64_t njobs = (int64_t)nruns * runs[0].nslices;
    int n = tc_threads_for(njobs);
    cluster_worker *wk = tc_calloc_array(n, sizeof *wk, err);
    _Atomic int64_t next = 0, finished = 0;
    tc_status st = wk ? TC_OK : TC_ERR_NOMEM;
    for (int i = 0; i < n && st == TC_OK; i++) {
        wk[i] = (cluster_worker){ .runs = runs, .nruns = nruns, .njobs = njobs, .next = &next,
                                  .finished = &finished, .prog = i ? NULL : prog };
        wk[i].w.stamp = tc_malloc_array(p->ncols, sizeof *wk[i].w.stamp, err);
        if (!wk[i].w.stamp)
            st = TC_ERR_NOMEM;
        for (int32_t col = 0; col < p->ncols && st == TC_OK; col++)
            wk[i].w.stamp[col] = -1;
    }
    if (st == TC_OK)
        tc_run_jobs(cluster_jobs, wk, sizeof wk[0], n);
    for (int i = 0; i < n && st == TC_OK; i++)
        if (wk[i].st) {
            *err = wk[i].err;
            st = wk[i].st;
        }
    if (st == TC_OK) {
        next = 0;
        tc_run_jobs(lay_out_runs, wk, sizeof wk[0], n < nruns ? n : nruns);
    }
    for (int i = 0; wk && i < n; i++) {
        free(wk[i].w.stamp);
        free(wk[i].w.cursors.a);
        free(wk[i].w.waiting.a);
    }
    free(wk);
    return st == TC_ERR_NOMEM ? tc_error_set(err, st, "jaccard: out of memory") : st;
}

/* ------------------------------------------------------------------- run */

static void identity(int32_t *new2old, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        new2old[i] = i;
}

/* The swept taus, for messages: "0.1 0.3 0.5 0.7 0.9". */
static void sweep_text(char *buf, size_t len)
{
    size_t at = 0;
    for (int i = 0; i < NSWEEP && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%g", i ? " " : "", SWEEP[i]);
}

/* Chooses between the sweep's best order and the input's, and says so. */
static void choose(const clustering *best, int64_t before, int h, int w, int32_t *new2old,
                   tc_reorder_outcome *out)
{
    if (best->blocks < before) {
        memcpy(new2old, best->order, (size_t)best->p->rows * sizeof *new2old);
        tc_reorder_choose(out, "tau", best->tau);
        return;
    }
    char taus[64];
    sweep_text(taus, sizeof taus);
    identity(new2old, best->p->rows);
    out->kept_input = 1;
    snprintf(out->note, sizeof out->note,
             "kept the original order: no tau of %s reduced the %dx%d BCSR block count "
             "(%lld; the best, tau=%g, gives %lld)", taus, h, w, (long long)before, best->tau,
             (long long)best->blocks);
}

static tc_status jaccard_run(const tc_csr *a, const tc_params *prm, int32_t *new2old,
                             tc_reorder_outcome *out, const tc_progress *prog, tc_error *err)
{
    const tc_reorder_method *m = &tc_reorder_jaccard;
    double tau = tc_reorder_param(m, prm, "tau");
    int h = (int)tc_reorder_param(m, prm, "h"), w = (int)tc_reorder_param(m, prm, "w");
    int64_t candidates = (int64_t)tc_reorder_param(m, prm, "candidates");
    int64_t rows_per_slice = (int64_t)tc_reorder_param(m, prm, "slice");
    patterns p;
    tc_status st = patterns_build(a, w, &p, err);
    if (st) {
        patterns_free(&p);
        return tc_error_set(err, st, "jaccard: out of memory");
    }
    clustering runs[NSWEEP];
    int nruns = tau > 0 ? 1 : NSWEEP, best = 0;
    int32_t slice = rows_per_slice == 0 || rows_per_slice > a->rows ? a->rows
                                                                     : (int32_t)rows_per_slice;
    for (int i = 0; i < nruns; i++)
        runs[i] = (clustering){ .p = &p, .tau = tau > 0 ? tau : SWEEP[i], .h = h,
                                .candidates = candidates, .slice = slice ? slice : 1 };
    for (int i = 0; i < nruns && st == TC_OK; i++)
        st = clustering_alloc(&runs[i], err) ? tc_error_set(err, TC_ERR_NOMEM,
                                                            "jaccard: out of memory") : TC_OK;
    if (st == TC_OK)
        st = cluster_runs(runs, nruns, prog, err);
    for (int i = 1; i < nruns && st == TC_OK; i++)
        if (runs[i].blocks < runs[best].blocks)
            best = i;
    int64_t before = 0;
    int32_t *stamp = st == TC_OK ? tc_malloc_array(p.ncols, sizeof *stamp, err) : NULL;
    if (st == TC_OK && !stamp)
        st = tc_error_set(err, TC_ERR_NOMEM, "jaccard: out of memory");
    if (st == TC_OK)
        before = count_blocks(&p, NULL, h, stamp);
    free(stamp);
    if (st == TC_OK && tau > 0) {
        memcpy(new2old, runs[0].order, (size_t)a->rows * sizeof *new2old);
        if (runs[0].blocks > before)
            snprintf(out->note, sizeof out->note,
                     "tau=%g gives more %dx%d BCSR blocks than the original order (%lld > %lld)",
                     tau, h, w, (long long)runs[0].blocks, (long long)before);
    } else if (st == TC_OK) {
        choose(&runs[best], before, h, w, new2old, out);
    }
    for (int i = 0; i < nruns; i++)
        clustering_free(&runs[i]);
    patterns_free(&p);
    return st;
}

const tc_reorder_method tc_reorder_jaccard = {
    .name = "jaccard",
    .description = "Sylos Labini's greedy Jaccard row clustering into BCSR block rows (SMaT)",
    .params = jaccard_params,
    .nparams = NPARAMS,
    .run_outcome = jaccard_run,
};
