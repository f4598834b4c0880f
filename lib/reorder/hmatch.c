/* hmatch.c: the `hmatch` reordering: 16-row windows built bottom up by
   matching. Rows are paired, the pairs paired, and so on four times
   (1 -> 2 -> 4 -> 8 -> 16 rows), each group with the one that shares the
   most columns with it: the heavy-edge matching that coarsens a graph in
   multilevel partitioning (Karypis and Kumar, SIAM J. Sci. Comput. 20(1),
   1998, Section 4), with "columns shared" as the edge weight. A window
   gathers one row of B per column its rows hold, so each level keeps the
   columns of the merged groups, and with them the gathers, low.

   Why not only wjaccard: its stages join each row to a similar one, a
   chain, and on a mesh the chain is a path. 16 rows of a path hold more
   columns than a compact patch does: on the 27-point stencil a window of
   16 consecutive rows holds 162 columns, a 2x2x4 brick 96. Matching
   merges neighbours in every direction and builds patches
   (bench/NOTES.md, "Windows by matching").

   Each level, over the current groups in order:
    1. Every group lists its `K` best partners: the groups that share a
       column with it, by most shared columns, then the fewest columns of
       their own, then the lower index. Each group alone, in parallel: the
       lists do not depend on the thread count. A column held by more than
       `cap` + 1 rows contributes the cap + 1 rows nearest the group's
       first row, and a group reads at most `budget` rows of its columns
       in all, its columns then taken rarest first (as wjaccard's
       candidates are).
    2. In group order, each group not yet matched takes the first group of
       its list not yet matched (greedy matching). When the whole list is
       taken, it is scored again against the unmatched groups alone; with
       no unmatched group sharing a column it takes the next unmatched
       group in order. The pass is one thread's; the scoring again runs
       ahead on all, for the groups a block ahead of the pass whose lists
       are spent already, and a list made ahead serves while it holds an
       unmatched group (the result does not depend on the thread count).
       While windows are built (the first four levels), a group left with
       none (the last) leaves the matching and goes at the end of the
       order, so that every window but the last is whole and aligned;
       after, it is a group of its own in the next level.
    3. The merged group takes the place of its first member.
   Past the four levels that make the windows, matching goes on (up to
   `levels`, by default until one group is left) over the windows: pairs
   of windows that share columns, then pairs of pairs. The windows do not
   change; their order becomes a hierarchy in which windows that read the
   same rows of B run close together, in L2's reach, where windows in the
   order of their first rows would sweep the matrix and evict the rows of
   B a brick of the grid reads again a sweep later. Last, the order is
   kept only if it gives fewer 16x8 blocks than the input.

   Cost: per level (ceil(log2 rows) of them by default), the rows read in
   step 1 (at most budget per group, about nnz x the rows of a column at
   level 0), a sort of each group's union of columns when it is over
   budget, and 4 x K bytes a group; unions of columns 8 bytes a nonzero at
   most (the previous level's and the next), the inverted index 4 and its
   entries as the level's groups 4 more (map_groups). Step 2's greedy pass
   runs on one thread (bench/NOTES.md, "Reordering at scale", steps 12
   and 13). */
#include "config.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "candidates.h"
#include "reorder.h"
#include "threads.h"

extern const tc_reorder_method tc_reorder_hmatch;

#define WINDOW_LEVELS 4    /* 2^4 = 16 rows: the TC block height */
#define K 8                /* partners a group lists */
#define CHUNK 64           /* groups a worker claims at a time */

static const tc_param_def hmatch_params[] = {
    { "cap", "rows of one column read for a group beside its first row; longer columns are "
             "sampled", 256, 1,
      100000, 1 },
    { "budget", "rows a group reads in all; past it its rarest columns go first", 16384, 1,
      1e9, 1 },
    { "levels", "levels of matching: 4 make the 16-row windows, those after order them", 31,
      4, 31, 1 },
};

/* The groups of one level: group g holds the rows member[start[g] ..
   start[g + 1]) and the columns col[uoff[g] .. uoff[g + 1]), ascending. */
typedef struct level {
    int64_t m;
    int32_t *start;
    int64_t *uoff;
    const int32_t *col;
} level;

/* A partner's score: more shared columns first, then fewer columns of its
   own, then the lower index. */
typedef struct score {
    int32_t shared;
    int64_t size;
    int32_t group;
} score;

static int better(score x, score y)
{
    return x.shared != y.shared ? x.shared > y.shared
         : x.size != y.size     ? x.size < y.size
                                : x.group < y.group;
}

/* What every worker of step 1 (and the rescoring of step 2) reads. */
typedef struct shared_state {
    const tc_csr *t;            /* the pattern transposed: column -> rows */
    const int32_t *member;
    const int32_t *gcol;        /* t's entries as groups at this level (the row's
                                   group, -1 once retired): map_groups */
    const level *lv;
    const unsigned char *taken; /* NULL in step 1 */
    int32_t cap;
    int64_t budget;
} shared_state;

typedef struct worker {
    const shared_state *ss;
    int32_t *list;              /* K entries a group, -1 after the last */
    const int32_t *todo;        /* rescoring ahead: the groups to list, ntodo of
                                   them, into list at (group - lo) x K */
    int64_t ntodo, lo;
    _Atomic int64_t *next;
    const tc_progress *prog;
    int64_t progress_base, progress_total;
    int id;
    tc_cand_map cnt;            /* group -> columns shared (val), the last counted */
    uint64_t *keys;             /* a group's columns, rarest first */
    int64_t room;
    tc_status st;
} worker;

/* Counts, for group g, the columns each other group (not taken) shares
   with it, into wk->cnt. 0 when memory is short. */
static int count_shared(worker *wk, int32_t g)
{
    const shared_state *ss = wk->ss;
    const tc_csr *t = ss->t;
    const level *lv = ss->lv;
    tc_col_walk walk;
    if (!tc_col_walk_start(&walk, t, lv->col + lv->uoff[g], lv->uoff[g + 1] - lv->uoff[g],
                           ss->member[lv->start[g]], ss->cap, ss->budget, 0, &wk->keys,
                           &wk->room, &wk->cnt))
        return 0;
    int32_t c;
    int64_t lo, hi;
    while (tc_col_walk_next(&walk, &c, &lo, &hi, NULL))
        for (int64_t f = lo; f < hi; f++) {
            int32_t h = ss->gcol[f];
            if (h < 0 || h == g || (ss->taken && ss->taken[h]))
                continue;
            tc_cand *x = tc_cand_at(&wk->cnt, h);
            if (x->last != c) {
                x->last = c;
                x->val++;
            }
        }
    return 1;
}

/* Group g's best `k` partners from the counts, into out (-1 after the
   last); the counter is left empty. */
static void best_partners(worker *wk, int32_t *out, int k)
{
    const level *lv = wk->ss->lv;
    score top[K];
    int n = 0;
    for (int64_t q = 0; q < wk->cnt.n; q++) {
        const tc_cand *x = &wk->cnt.e[wk->cnt.slot[q]];
        /* most candidates share fewer columns than the k-th best: they
           are passed over without reading their size (a random read) */
        if (n == k && (int32_t)x->val < top[k - 1].shared)
            continue;
        score s = { (int32_t)x->val, lv->uoff[x->key + 1] - lv->uoff[x->key], x->key };
        if (n == k && !better(s, top[k - 1]))
            continue;
        int i = n < k ? n++ : k - 1;
        for (; i > 0 && better(s, top[i - 1]); i--)
            top[i] = top[i - 1];
        top[i] = s;
    }
    tc_cand_clear(&wk->cnt);
    for (int i = 0; i < k; i++)
        out[i] = i < n ? top[i].group : -1;
}

static void *list_run(void *arg)
{
    worker *wk = arg;
    const int64_t m = wk->ss->lv->m;
    for (int64_t ch; !wk->st && (ch = atomic_fetch_add(wk->next, 1)) * CHUNK < m;) {
        if (wk->id == 0)
            tc_progress_report(wk->prog, wk->progress_base + ch * CHUNK, wk->progress_total);
        for (int64_t g = ch * CHUNK; g < m && g < (ch + 1) * CHUNK && !wk->st; g++) {
            if (!count_shared(wk, (int32_t)g))
                wk->st = TC_ERR_NOMEM;
            else
                best_partners(wk, wk->list + g * K, K);
        }
    }
    return NULL;
}

/* Step 1: list[g * K ..] for every group. */
static tc_status list_partners(const shared_state *ss, int32_t *list, const tc_progress *prog,
                               int64_t progress_base, int64_t progress_total, tc_error *err)
{
    _Atomic int64_t next;
    atomic_init(&next, 0);
    worker wk[TC_MAX_JOBS];
    int n = tc_threads_for((ss->lv->m + CHUNK - 1) / CHUNK);
    for (int i = 0; i < n; i++)
        wk[i] = (worker){ .ss = ss, .list = list, .next = &next, .prog = prog,
                          .progress_base = progress_base, .progress_total = progress_total,
                          .id = i };
    tc_run_jobs(list_run, wk, sizeof wk[0], n);
    tc_status st = TC_OK;
    for (int i = 0; i < n; i++) {
        if (wk[i].st)
            st = wk[i].st;
        tc_cand_free(&wk[i].cnt);
        free(wk[i].keys);
    }
    return st ? tc_error_set(err, st, "hmatch: out of memory listing partners") : TC_OK;
}

/* Group g's listed partners, all taken: step 1 found K (there may be more),
   and every one is matched already. */
static int list_spent(const int32_t *list, const unsigned char *taken, int64_t g)
{
    if (list[g * K + K - 1] < 0)
        return 0;
    for (int i = 0; i < K; i++)
        if (!taken[list[g * K + i]])
            return 0;
    return 1;
}

#define NOT_LISTED (-2)     /* relist: the group was not rescored ahead */
/* Groups whose rescoring step 2 runs ahead, on all threads, before its
   greedy pass reaches them: a 256th of the level's, from 256 to AHEAD.
   Only the groups whose lists are spent when a block starts are rescored
   ahead, so a block must be short beside the level; on R-MAT 2^20 a 64th
   left 7,760 of 128,496 rescorings on the one thread at level 0, a 256th
   2,087 (bench/NOTES.md, "Reordering at scale", step 13). */
#define AHEAD 16384
#define AHEAD_MIN 256
#define RELIST_MIN 4        /* groups a thread, or none are rescored ahead */

static int64_t ahead_groups(int64_t m)
{
    return m / 256 < AHEAD_MIN ? AHEAD_MIN : m / 256 > AHEAD ? AHEAD : m / 256;
}

/* Rescoring ahead: each group of the todo list (one at a time: each is
   a walk of up to `budget` rows), its K best partners among the groups
   untaken now. */
static void *relist_run(void *arg)
{
    worker *wk = arg;
    for (int64_t i; !wk->st && (i = atomic_fetch_add(wk->next, 1)) < wk->ntodo;) {
        const int32_t g = wk->todo[i];
        if (!count_shared(wk, g))
            wk->st = TC_ERR_NOMEM;
        else
            best_partners(wk, wk->list + (g - wk->lo) * K, K);
    }
    return NULL;
}

/* Rescores ahead the groups of [b0, b1) untaken and with their lists
   spent as the groups stand now (into relist; the others NOT_LISTED), on
   the nw workers wk. */
static tc_status relist_block(worker *wk, int nw, const int32_t *list,
                              const unsigned char *taken, int64_t b0, int64_t b1,
                              int32_t *relist, int32_t *todo)
{
    int64_t ntodo = 0;
    for (int64_t g = b0; g < b1; g++) {
        relist[(g - b0) * K] = NOT_LISTED;
        if (!taken[g] && list_spent(list, taken, g))
            todo[ntodo++] = (int32_t)g;
    }
    /* a few are left to the greedy pass: starting the threads costs more */
    if (ntodo < RELIST_MIN * (int64_t)nw)
        return TC_OK;
    _Atomic int64_t next;
    atomic_init(&next, 0);
    for (int i = 0; i < nw; i++)
        wk[i].todo = todo, wk[i].ntodo = ntodo, wk[i].lo = b0, wk[i].next = &next;
    tc_run_jobs(relist_run, wk, sizeof wk[0], nw);
    tc_status st = TC_OK;
    for (int i = 0; i < nw; i++)
        if (wk[i].st)
            st = wk[i].st;
    return st;
}

/* Group g's partner when its list is spent: the best untaken group
   sharing a column with it, -1 when none does. From the list made ahead
   (r; NULL: none) where it still holds an untaken group: the groups
   untaken now are a subset of those it ranked, so its first untaken one
   is the best untaken one; else rescored here. */
static tc_status rescore(worker *one, const int32_t *r, int32_t g, int32_t *p)
{
    const unsigned char *taken = one->ss->taken;
    *p = -1;
    if (r && r[0] != NOT_LISTED) {
        for (int i = 0; i < K && r[i] >= 0; i++)
            if (!taken[r[i]]) {
                *p = r[i];
                return TC_OK;
            }
        if (r[K - 1] < 0)   /* it ranked every group sharing a column */
            return TC_OK;
    }
    if (!count_shared(one, g))
        return TC_ERR_NOMEM;
    best_partners(one, p, 1);
    return TC_OK;
}

/* Step 2: partner[g] for every group (g itself: left alone). The greedy
   pass is one thread's; the rescoring of the groups it will reach next
   runs ahead on all (relist_run), ahead_groups at a time. */
static tc_status match(shared_state *ss, const int32_t *list, int32_t *partner, tc_error *err)
{
    const int64_t m = ss->lv->m;
    unsigned char *taken = tc_calloc_array(m, 1, err);
    int32_t *relist = taken ? tc_malloc_array(AHEAD * K, sizeof *relist, err) : NULL;
    int32_t *todo = relist ? tc_malloc_array(AHEAD, sizeof *todo, err) : NULL;
    if (!todo) {
        free(relist);
        free(taken);
        return TC_ERR_NOMEM;
    }
    worker one = { .ss = ss };
    worker wk[TC_MAX_JOBS];
    const int nw = tc_threads_for(AHEAD);
    for (int i = 0; i < nw; i++)
        wk[i] = (worker){ .ss = ss, .list = relist, .id = i };
    ss->taken = taken;
    tc_status st = TC_OK;
    int64_t next = 0;   /* no group before it is unmatched but the one at hand */
    const int64_t ahead = ahead_groups(m);
    for (int64_t b0 = 0; b0 < m && !st; b0 += ahead) {
        const int64_t b1 = m - b0 < ahead ? m : b0 + ahead;
        /* on one thread, rescoring ahead would only add the lists that
           go stale before their group is reached */
        if (nw > 1)
            st = relist_block(wk, nw, list, taken, b0, b1, relist, todo);
        for (int64_t g = b0; g < b1 && !st; g++) {
            if (taken[g])
                continue;
            taken[g] = 1;
            int32_t p = -1;
            for (int i = 0; i < K && list[g * K + i] >= 0 && p < 0; i++)
                if (!taken[list[g * K + i]])
                    p = list[g * K + i];
            if (p < 0 && list[g * K + K - 1] >= 0)
                st = rescore(&one, nw > 1 ? relist + (g - b0) * K : NULL, (int32_t)g, &p);
            if (p < 0) {
                for (next = next > g ? next : g + 1; next < m && taken[next]; next++)
                    ;
                p = next < m ? (int32_t)next : (int32_t)g;
            }
            taken[p] = 1;
            partner[g] = p;
            partner[p] = (int32_t)g;
        }
    }
    if (st)
        tc_error_set(err, st, "hmatch: out of memory matching");
    ss->taken = NULL;
    for (int i = 0; i < nw; i++) {
        tc_cand_free(&wk[i].cnt);
        free(wk[i].keys);
    }
    tc_cand_free(&one.cnt);
    free(one.keys);
    free(todo);
    free(relist);
    free(taken);
    return st;
}

/* gcol = group_of of every entry of t, in parallel: the walks of step 1
   read a group per entry, some budget / (nonzeros a row) times each
   entry a level, and through group_of each was a random read of an array
   of rows (16 MB at 4M rows); this pass reads it once an entry. */
typedef struct map_job {
    const int32_t *rowidx, *group_of;
    int32_t *gcol;
    int64_t lo, hi;
} map_job;

static void *map_run(void *arg)
{
    const map_job *j = arg;
    for (int64_t f = j->lo; f < j->hi; f++)
        j->gcol[f] = j->group_of[j->rowidx[f]];
    return NULL;
}

static void map_groups(const tc_csr *t, const int32_t *group_of, int32_t *gcol)
{
    const int64_t nnz = t->rowptr[t->rows];
    map_job jobs[TC_MAX_JOBS];
    const int n = tc_threads_for(nnz / 65536 + 1);
    for (int i = 0; i < n; i++)
        jobs[i] = (map_job){ t->colidx, group_of, gcol, nnz * i / n, nnz * (i + 1) / n };
    tc_run_jobs(map_run, jobs, sizeof jobs[0], n);
}

/* The sorted union of two sorted runs into out; returns its length. */
static int64_t merge_union(const int32_t *x, int64_t nx, const int32_t *y, int64_t ny,
                           int32_t *out)
{
    int64_t i = 0, j = 0, n = 0;
    while (i < nx && j < ny)
        out[n++] = x[i] < y[j] ? x[i++] : x[i] > y[j] ? y[j++] : (j++, x[i++]);
    while (i < nx)
        out[n++] = x[i++];
    while (j < ny)
        out[n++] = y[j++];
    return n;
}

/* Step 3: the next level from the matching, into `next` (its arrays
   allocated): members into member2, unions into col2 (as long as the
   current ones, at most). A group left alone appends its rows to
   retired[*nretired ..) while windows are being built (`retire`), and is
   a group of its own in the next level after. */
static void merge_level(const level *lv, const int32_t *member, const int32_t *partner,
                        int retire, int32_t *member2, int32_t *col2, level *next,
                        int32_t *group_of, int32_t *retired, int64_t *nretired)
{
    int64_t m2 = 0, at = 0, cat = 0;
    for (int64_t g = 0; g < lv->m; g++) {
        int64_t p = partner[g];
        const int32_t *gm = member + lv->start[g];
        int64_t gn = lv->start[g + 1] - lv->start[g];
        if (p < g)
            continue;
        if (p == g && retire) {
            for (int64_t i = 0; i < gn; i++) {
                retired[(*nretired)++] = gm[i];
                group_of[gm[i]] = -1;
            }
            continue;
        }
        const int32_t *pm = member + lv->start[p];
        int64_t pn = p == g ? 0 : lv->start[p + 1] - lv->start[p];
        next->start[m2] = (int32_t)at;
        next->uoff[m2] = cat;
        memcpy(member2 + at, gm, (size_t)gn * sizeof *gm);
        memcpy(member2 + at + gn, pm, (size_t)pn * sizeof *pm);
        for (int64_t i = 0; i < gn + pn; i++)
            group_of[member2[at + i]] = (int32_t)m2;
        at += gn + pn;
        cat += merge_union(lv->col + lv->uoff[g], lv->uoff[g + 1] - lv->uoff[g],
                           lv->col + lv->uoff[p], p == g ? 0 : lv->uoff[p + 1] - lv->uoff[p],
                           col2 + cat);
        m2++;
    }
    next->m = m2;
    next->start[m2] = (int32_t)at;
    next->uoff[m2] = cat;
    next->col = col2;
}

static tc_status hmatch_run(const tc_csr *a, const tc_params *p, int32_t *new2old,
                            tc_reorder_outcome *out, const tc_progress *prog, tc_error *err)
{
    const tc_reorder_method *me = &tc_reorder_hmatch;
    const int32_t rows = a->rows;
    const int64_t nnz = a->rowptr[rows];
    tc_csr pattern = *a, *t = NULL;
    pattern.val = NULL;
    tc_status st = tc_csr_transpose(&pattern, &t, err);
    if (st)
        return st;
    /* two of each: this level's and the next's (the unions of columns
       allocated as they are first written, below) */
    int32_t *group_of = tc_malloc_array(rows, sizeof *group_of, err);
    int32_t *member[2] = { NULL, NULL }, *col[2] = { NULL, NULL }, *start[2] = { NULL, NULL };
    int64_t *uoff[2] = { NULL, NULL };
    int ok = group_of != NULL;
    for (int i = 0; i < 2 && ok; i++)
        ok = (member[i] = tc_malloc_array(rows, sizeof *member[i], err)) &&
             (start[i] = tc_malloc_array((int64_t)rows + 1, sizeof *start[i], err)) &&
             (uoff[i] = tc_malloc_array((int64_t)rows + 1, sizeof *uoff[i], err));
    /* level 0's groups are the rows: t's own entries */
    int32_t *gcol = ok ? tc_malloc_array(nnz > 0 ? nnz : 1, sizeof *gcol, err) : NULL;
    int32_t *partner = gcol ? tc_malloc_array(rows, sizeof *partner, err) : NULL;
    int32_t *list = partner ? tc_malloc_array((int64_t)rows * K, sizeof *list, err) : NULL;
    if (!list) {
        st = TC_ERR_NOMEM;
        goto done;
    }
    /* level 0: every row a group of its own, its columns its union */
    level lv = { .m = rows, .start = start[0], .uoff = uoff[0], .col = a->colidx };
    for (int32_t r = 0; r < rows; r++) {
        group_of[r] = member[0][r] = lv.start[r] = r;
        lv.uoff[r] = a->rowptr[r];
    }
    lv.start[rows] = rows;
    lv.uoff[rows] = nnz;
    shared_state ss = { .t = t, .member = member[0], .gcol = t->colidx, .lv = &lv,
                        .cap = (int32_t)tc_reorder_param(me, p, "cap"),
                        .budget = (int64_t)tc_reorder_param(me, p, "budget") };
    /* at most one group is left alone a level, of 2^l rows: 15 rows */
    int32_t retired[(1 << WINDOW_LEVELS) - 1];
    int64_t nretired = 0;
    /* every level pairs all groups but one at most: ceil(log2(rows)) levels
       make one group */
    int levels = (int)tc_reorder_param(me, p, "levels"), needed = 0;
    while (needed < levels && ((int64_t)1 << needed) < rows)
        needed++;
    const int64_t total = (int64_t)rows * (needed > 0 ? needed : 1);
    int l = 0;
    for (; l < levels && lv.m > 1; l++) {
        const int cur = l % 2;
        /* the groups of a level past the first (not after the last level:
           no walk reads them) */
        if (l > 0) {
            map_groups(t, group_of, gcol);
            ss.gcol = gcol;
        }
        st = list_partners(&ss, list, prog, (int64_t)l * rows, total, err);
        if (!st)
            st = match(&ss, list, partner, err);
        if (st)
            goto done;
        /* a level's unions hold no more columns than the level before's:
           the first write sizes the buffer for every later one (level 0's
           are a's own rows, col[0] is first written at level 1) */
        if (!col[!cur] && !(col[!cur] = tc_malloc_array(lv.uoff[lv.m] > 0 ? lv.uoff[lv.m] : 1,
                                                        sizeof *col[!cur], err))) {
            st = TC_ERR_NOMEM;
            goto done;
        }
        level next = { .start = start[!cur], .uoff = uoff[!cur] };
        merge_level(&lv, member[cur], partner, l < WINDOW_LEVELS, member[!cur], col[!cur], &next,
                    group_of, retired, &nretired);
        lv = next;
        ss.member = member[!cur];
    }
    memcpy(new2old, member[l % 2], (size_t)lv.start[lv.m] * sizeof *new2old);
    memcpy(new2old + lv.start[lv.m], retired, (size_t)nretired * sizeof *retired);
    st = tc_reorder_keep_if_fewer_blocks(me, a, new2old, out, err);
    if (!st)
        tc_progress_report(prog, total, total);
done:
    tc_csr_free(t);
    free(group_of);
    free(gcol);
    for (int i = 0; i < 2; i++) {
        free(member[i]);
        free(col[i]);
        free(start[i]);
        free(uoff[i]);
    }
    free(partner);
    free(list);
    return st;
}

const tc_reorder_method tc_reorder_hmatch = {
    .name = "hmatch",
    .description = "16-row windows by matching: rows paired, then pairs, four times, each "
                   "with the group sharing the most columns; the windows ordered the same way",
    .params = hmatch_params,
    .nparams = (int)(sizeof hmatch_params / sizeof hmatch_params[0]),
    .run_outcome = hmatch_run,
};
