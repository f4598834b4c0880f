/* synergy.c: row panels with compacted columns straight off CSR, and the
   TCU-Synergy of cuTeSpMM (seed 002) they give (see synergy.h).

   Compaction. A panel's active columns are the union of its rows' sorted
   column lists; merging the rows through a binary heap of (column, row)
   keys hands out the panel's nonzeros column by column, so each column's
   place among the active ones is a running count: no sort of the panel,
   no array over the columns (a "last seen" stamp per column would be K
   entries a thread), O(log tm) a nonzero.

   Synergy. Section 6.4 classifies a matrix by alpha, "the average fraction
   of nonzeros per column in a brick", which Section 4 defines as the
   density of the packed bricks, nnz_b / (brick_m * brick_k), saying it is
   also the density of a column in a brick "since the HRPB compression
   removes empty columns". The two differ only in the last brick of a
   panel, whose columns past the panel's last active column are padding:
   we count the columns a brick really has, alpha = nnz / (16 * columns of
   active bricks), so that alpha is the mean over those columns of their
   nonzeros / 16, as Section 6.4 reads (a column of an active brick holds
   1 to 16 nonzeros when tm = 16). The density over whole bricks,
   nnz / (64 * bricks), is Section 1's figure and is given beside it. */
#include "config.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "synergy.h"
#include "threads.h"

/* Panels are handed to threads in chunks of this many. */
#define CHUNK_PANELS 64
/* Below this many nonzeros a thread costs more than it saves. */
#define PARALLEL_MIN_NNZ (1 << 16)
/* Heap keys: column << ROW_BITS | row in the panel. */
#define ROW_BITS 5

tc_status tc_panel_shape_check(int tm, int tk, const char *who, tc_status bad, tc_error *err)
{
    if (tm < TC_BRICK_M || tm > TC_PANEL_MAX_TM || tm % TC_BRICK_M != 0)
        return tc_error_set(err, bad, "%s: TM=%d is not a panel height of the kernel (16 or "
                            "32: whole bricks of 16 rows, the m of mma.m16n8k4)", who, tm);
    if (tk < TC_BRICK_K || tk > TC_PANEL_MAX_TK || tk % TC_BRICK_K != 0)
        return tc_error_set(err, bad, "%s: TK=%d is not a block width of the kernel (a multiple "
                            "of 4 from 4 to %d: whole bricks of 4 columns, the k of "
                            "mma.m16n8k4)", who, tk, TC_PANEL_MAX_TK);
    return TC_OK;
}

int64_t tc_panel_count(int32_t rows, int tm)
{
    return ((int64_t)rows + tm - 1) / tm;
}

/* ------------------------------------------------------ the merge */

static uint64_t heap_key(const tc_panel *it, int r)
{
    return (uint64_t)it->a->colidx[it->pos[r]] << ROW_BITS | (uint64_t)r;
}

/* Moves heap[i] down to its place. */
static void sift_down(tc_panel *it, int i)
{
    uint64_t *h = it->heap, x = h[i];
    for (int c; (c = 2 * i + 1) < it->n; i = c) {
        c += c + 1 < it->n && h[c + 1] < h[c];
        if (h[c] >= x)
            break;
        h[i] = h[c];
    }
    h[i] = x;
}

void tc_panel_start(tc_panel *it, const tc_csr *a, int tm, int tk, int64_t p)
{
    int64_t r0 = p * tm, r1 = r0 + tm < a->rows ? r0 + tm : a->rows;
    *it = (tc_panel){ .a = a, .tm = tm, .tk = tk };
    for (int r = 0; r < r1 - r0; r++) {
        it->pos[r] = a->rowptr[r0 + r];
        it->end[r] = a->rowptr[r0 + r + 1];
        if (it->pos[r] < it->end[r])
            it->heap[it->n++] = heap_key(it, r);
    }
    for (int i = it->n / 2 - 1; i >= 0; i--)
        sift_down(it, i);
}

/* Takes the smallest key's nonzero off the heap: its row moves on to its
   next column, or leaves the heap when it has none. */
static void pop(tc_panel *it, int r)
{
    if (++it->pos[r] < it->end[r])
        it->heap[0] = heap_key(it, r);
    else
        it->heap[0] = it->heap[--it->n];
    sift_down(it, 0);
}

int tc_panel_next_block(tc_panel *it, tc_panel_block *b)
{
    b->ncols = 0;
    b->n = 0;
    memset(b->pattern, 0, sizeof b->pattern);
    int32_t cur = -1;
    while (it->n > 0) {
        int32_t col = (int32_t)(it->heap[0] >> ROW_BITS);
        int r = (int)(it->heap[0] & ((1u << ROW_BITS) - 1));
        if (col != cur) {
            if (b->ncols == it->tk)
                break;
            cur = col;
            b->col[b->ncols++] = col;
        }
        int j = b->ncols - 1;
        b->pattern[r / TC_BRICK_M][j / TC_BRICK_K] |=
            UINT64_C(1) << (r % TC_BRICK_M * TC_BRICK_K + j % TC_BRICK_K);
        b->k[b->n] = it->pos[r];
        b->place[b->n++] = (uint16_t)(r * it->tk + j);
        pop(it, r);
    }
    return b->ncols > 0;
}

/* ------------------------------------------------------ threads */

typedef struct panels_job {
    const tc_csr *a;
    int64_t npanels;
    void (*fn)(void *ctx, int worker, int64_t p);
    void *ctx;
    int worker;
    _Atomic int64_t *next;      /* the next chunk to take, shared */
} panels_job;

static void *panels_worker(void *arg)
{
    panels_job *j = arg;
    for (;;) {
        int64_t p0 = atomic_fetch_add(j->next, 1) * CHUNK_PANELS;
        if (p0 >= j->npanels)
            return NULL;
        int64_t p1 = p0 + CHUNK_PANELS < j->npanels ? p0 + CHUNK_PANELS : j->npanels;
        for (int64_t p = p0; p < p1; p++)
            j->fn(j->ctx, j->worker, p);
    }
}

void tc_panels_run(const tc_csr *a, int tm, void (*fn)(void *ctx, int worker, int64_t p),
                   void *ctx)
{
    int64_t npanels = tc_panel_count(a->rows, tm);
    int64_t chunks = (npanels + CHUNK_PANELS - 1) / CHUNK_PANELS;
    int64_t n = a->nnz < PARALLEL_MIN_NNZ ? 1 : tc_default_threads();
    n = n > TC_MAX_JOBS ? TC_MAX_JOBS : n > chunks ? chunks : n;
    n = n < 1 ? 1 : n;
    _Atomic int64_t next = 0;
    panels_job jobs[TC_MAX_JOBS];
    for (int k = 0; k < n; k++)
        jobs[k] = (panels_job){ a, npanels, fn, ctx, k, &next };
    tc_run_jobs(panels_worker, jobs, sizeof jobs[0], (int)n);
}

/* ------------------------------------------------------ the figures */

void tc_synergy_add_block(tc_synergy *s, int ncols, const int *strip_bricks)
{
    s->blocks++;
    s->active_cols += ncols;
    for (int j = 0; j * TC_BRICK_K < ncols; j++) {
        int width = ncols - j * TC_BRICK_K < TC_BRICK_K ? ncols - j * TC_BRICK_K : TC_BRICK_K;
        s->strips += strip_bricks[j] > 0;
        s->bricks += strip_bricks[j];
        s->brick_cols += (int64_t)strip_bricks[j] * width;
    }
}

void tc_synergy_add(tc_synergy *s, const tc_synergy *x)
{
    s->active_cols += x->active_cols;
    s->blocks += x->blocks;
    s->strips += x->strips;
    s->bricks += x->bricks;
    s->brick_cols += x->brick_cols;
}

static double ratio(int64_t x, int64_t y)
{
    return y ? (double)x / (double)y : 0;
}

/* Table 1's class, decided in integers so that a matrix exactly on a
   bound is not moved by rounding: alpha >= 1/4 when nnz >= 4 brick_cols,
   >= 1/8 when nnz >= 2 brick_cols. */
static const char *synergy_level(const tc_synergy *s)
{
    if (s->brick_cols == 0)
        return "low";
    return s->nnz >= 4 * s->brick_cols ? "high" : s->nnz >= 2 * s->brick_cols ? "medium" : "low";
}

void tc_synergy_finish(tc_synergy *s)
{
    s->alpha = ratio(s->nnz, (int64_t)TC_BRICK_M * s->brick_cols);
    s->oi = 512 * s->alpha;
    s->beta = ratio(s->bricks, s->strips);
    s->brick_density = ratio(s->nnz, (int64_t)TC_BRICK_M * TC_BRICK_K * s->bricks);
    s->level = synergy_level(s);
}

typedef struct synergy_job {
    const tc_csr *a;
    int tm, tk;
    tc_synergy *part;       /* one per worker */
} synergy_job;

static void count_panel(void *ctx, int worker, int64_t p)
{
    synergy_job *j = ctx;
    tc_panel it;
    tc_panel_block b;
    tc_panel_start(&it, j->a, j->tm, j->tk, p);
    while (tc_panel_next_block(&it, &b)) {
        int strip_bricks[TC_PANEL_MAX_STRIPS] = { 0 };
        for (int br = 0; br < j->tm / TC_BRICK_M; br++)
            for (int s = 0; s * TC_BRICK_K < b.ncols; s++)
                strip_bricks[s] += b.pattern[br][s] != 0;
        tc_synergy_add_block(&j->part[worker], b.ncols, strip_bricks);
    }
}

tc_status tc_synergy_compute(const tc_csr *a, int tm, int tk, tc_synergy *out, tc_error *err)
{
    memset(out, 0, sizeof *out);
    tc_status st = tc_panel_shape_check(tm, tk, "synergy", TC_ERR_ARG, err);
    if (st != TC_OK)
        return st;
    synergy_job j = { a, tm, tk, tc_calloc_array(TC_MAX_JOBS, sizeof *j.part, err) };
    if (!j.part)
        return TC_ERR_NOMEM;
    tc_panels_run(a, tm, count_panel, &j);
    out->tm = tm;
    out->tk = tk;
    out->nnz = a->nnz;
    out->panels = tc_panel_count(a->rows, tm);
    for (int k = 0; k < TC_MAX_JOBS; k++)
        tc_synergy_add(out, &j.part[k]);
    free(j.part);
    tc_synergy_finish(out);
    return TC_OK;
}

tc_status tc_synergy_report(const tc_synergy *s, tc_report *r, const char *section)
{
    tc_status st = tc_report_int(r, section, "panels", s->panels, "row panels of TM rows");
    if (!st)
        st = tc_report_int(r, section, "active_cols", s->active_cols,
                           "columns with a nonzero, summed over panels (ActiveColIdx)");
    if (!st)
        st = tc_report_int(r, section, "blocks", s->blocks, "TM x TK blocks of compacted columns");
    if (!st)
        st = tc_report_int(r, section, "bricks", s->bricks, "active 16x4 bricks");
    if (!st)
        st = tc_report_num(r, section, "beta", s->beta,
                           "active bricks per brick column of a block (002 Eq. 5)");
    if (!st)
        st = tc_report_num(r, section, "brick_density", s->brick_density,
                           "nnz / (64 * bricks): density of the active bricks");
    if (!st)
        st = tc_report_num(r, section, "alpha", s->alpha,
                           "nnz / (16 * columns of active bricks): TCU-Synergy (002 Sec. 6.4)");
    if (!st)
        st = tc_report_num(r, section, "oi", s->oi, "512 * alpha: modeled OI_shmem (002 Eq. 4)");
    if (!st)
        st = tc_report_str(r, section, "class", s->level,
                           "synergy: low < 12.5% <= medium < 25% <= high (002 Table 1)");
    return st;
}

tc_status tc_synergy_section(const tc_csr *a, tc_report *r, tc_error *err)
{
    tc_synergy s;
    tc_status st = tc_synergy_compute(a, TC_BRICK_M, 16, &s, err);
    if (st == TC_OK && tc_synergy_report(&s, r, "synergy") != TC_OK)
        st = tc_error_set(err, TC_ERR_NOMEM, "out of memory filling the report");
    return st;
}
