/*
 * rstile_build.c: building the rstile format (rstile.c says what it is):
 * the row partition, the choice of threshold and split, and the arrays.
 *
 * The build: the windows are independent once their places in the arrays
 * are known, so it runs in passes over chunks of windows on several
 * threads: a survey (each window's columns sorted once: the test above,
 * the distinct columns at each candidate threshold, and the window
 * compacted with all its rows), the choice of the threshold and of the
 * split, a count at that threshold, prefix sums over chunks, and a fill
 * (the survey's compaction less the columns that only residual rows have,
 * cut into blocks). Each chunk's place comes from the prefix sums, so the
 * arrays do not depend on the thread count.
 */
#include "config.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fmtutil.h"
#include "rstile_internal.h"
#include "threads.h"

/* ------------------------------------------------- sorting a window */

/* A window's nonzero as a sort key: column, then row within the window,
   so that sorted keys run in column-major order; plus one, so that
   TC_KEY_LOW and TC_KEY_HIGH can frame sorted runs (fmtutil.h). */
static inline uint64_t key_of(int32_t col, int local_row)
{
    return ((uint64_t)col << 4 | (uint64_t)local_row) + 1;
}
static inline int64_t key_col(uint64_t key) { return (int64_t)((key - 1) >> 4); }
static inline int key_row(uint64_t key) { return (int)((key - 1) & (H - 1)); }

/* The keys of the window's rows [r0, r1), sorted and framed; *n of them.
   Each row is already a sorted run; runs are merged pairwise, between keys
   and tmp (room for the window's nonzeros plus two frames a row). Run k
   starts at start[k]. */
static const uint64_t *sort_window(const tc_csr *a, int32_t r0, int32_t r1, uint64_t *keys,
                                   uint64_t *tmp, int64_t *n)
{
    int64_t start[H], len[H], at = 0;
    int runs = 0;
    for (int32_t r = r0; r < r1; r++) {
        int64_t k0 = a->rowptr[r], k1 = a->rowptr[r + 1];
        if (k0 == k1)
            continue;
        keys[at++] = TC_KEY_LOW;
        start[runs] = at;
        len[runs++] = k1 - k0;
        for (int64_t k = k0; k < k1; k++)
            keys[at++] = key_of(a->colidx[k], r - r0);
        keys[at++] = TC_KEY_HIGH;
    }
    if (runs == 0) {
        keys[0] = TC_KEY_LOW;
        keys[1] = TC_KEY_HIGH;
        *n = 0;
        return keys + 1;
    }
    while (runs > 1) {
        int out = 0;
        for (int i = 0; i < runs; i += 2, out++) {
            if (i + 1 < runs) {
                tc_merge_framed(keys + start[i], len[i], keys + start[i + 1], len[i + 1],
                                tmp + start[i]);
                len[i] += len[i + 1];
            } else {
                memcpy(tmp + start[i] - 1, keys + start[i] - 1,
                       (size_t)(len[i] + 2) * sizeof *tmp);
            }
            start[out] = start[i];
            len[out] = len[i];
        }
        runs = out;
        uint64_t *t = keys;
        keys = tmp;
        tmp = t;
    }
    *n = len[0];
    return keys + start[0];
}

/* ---------------------------------------------------- the build passes */

/* What a chunk of windows holds at the chosen threshold (count pass; max
   over its windows for max_blocks), then where it goes (exclusive prefix
   sums, fill pass). */
typedef struct chunk {
    int64_t segments, blocks, tc_nnz, res_rows, res_nnz, windows, max_blocks;
} chunk;

/* Windows are handed to threads in chunks of this many, in any order. */
#define CHUNK_WINDOWS 64
/* Below this many nonzeros a thread costs more than it saves. */
#define PARALLEL_MIN_NNZ (1 << 16)

enum pass { SURVEY, COUNT, FILL };

typedef struct build_ctx {
    const tc_csr *a;
    tc_rstile *x;           /* NULL for a survey alone (statistics) */
    int64_t windows, nchunks;
    enum pass pass;
    /* Survey results: flag[r] = FLAG_ROW when row r fails the window test
       above (the count pass sets FLAG_WINDOW on sparse windows); the build
       also keeps ncols[wi * ncand + i], the distinct TC columns of window
       wi at candidate threshold i: the forced one (ncand = 1), or each one
       the automatic choice may take, i = 0 .. AUTO_MAX. */
    uint8_t *flag;
    int32_t *ncols;
    int ncand, chosen;      /* chosen: the candidate of the threshold */
    double min_density;     /* of a window's TC blocks, else it goes whole */
    int whole;              /* count pass: send the sparse windows whole */
    /* The survey's compaction of each window with all its rows, for the
       fill: the number of the window's distinct columns, nall[wi], and
       each nonzero's place among them in ascending order, rank[k]. */
    int32_t *rank, *nall;
    int32_t *wblocks;       /* count pass: TC blocks of each window */
    chunk *chunks;
    _Atomic int64_t next;   /* the next chunk to take */
} build_ctx;

typedef struct worker {
    build_ctx *c;
    uint64_t *keys, *tmp;   /* survey: a window's nonzeros plus two frames a
                               row, twice */
    int32_t *place;         /* fill: the TC place of each distinct column of
                               the window, -1 for dropped ones */
    int64_t *cursor;        /* fill: next value of each block */
    curve cv;               /* survey: this worker's windows, summed */
} worker;

/* flag[r]: row r fails the window test (FLAG_ROW; then its length decides)
   or its window goes whole to the residual (FLAG_WINDOW, count pass). */
enum { FLAG_ROW = 1, FLAG_WINDOW = 2 };

/* Row r goes to the residual at threshold t. */
static inline int is_residual(const tc_csr *a, const uint8_t *flag, int32_t r, int64_t t)
{
    return flag[r] == FLAG_WINDOW || (flag[r] && a->rowptr[r + 1] - a->rowptr[r] <= t);
}

/* The window test on the window's sorted keys s[0, n) (framed): for each
   row, how many of its columns also appear in another row of the window
   (a key's neighbours in column-major order share its column exactly
   then; the frames' columns are no column); flag[r] for rows with
   nonzeros of which most are not shared. */
static void window_flags(const tc_csr *a, int32_t r0, int32_t r1, const uint64_t *s, int64_t n,
                         uint8_t *flag)
{
    int64_t shared[H] = { 0 };
    for (int64_t i = 0; i < n; i++) {
        int64_t col = key_col(s[i]);
        shared[key_row(s[i])] += col == key_col(s[i - 1]) || col == key_col(s[i + 1]);
    }
    for (int32_t r = r0; r < r1; r++) {
        int64_t len = a->rowptr[r + 1] - a->rowptr[r];
        flag[r] = len > 0 && 2 * shared[r - r0] < len ? FLAG_ROW : 0;
    }
}

/* The threshold from which each distinct column of the window leaves the
   TC part (the largest length among its rows, when all of them are
   flagged; never otherwise), as a histogram: drop[l] columns leave from
   threshold l (l <= CURVE_MAX), drop[CURVE_N] later or never; the
   histogram thus counts every distinct column. Also counts in *kept the
   columns that stay at threshold t. */
static void column_drops(const tc_csr *a, int32_t r0, const uint8_t *flag, const uint64_t *s,
                         int64_t n, int64_t t, int64_t drop[CURVE_N + 1], int64_t *kept)
{
    int64_t level[H];
    for (int r = 0; r < H; r++) {
        int64_t row = r0 + r;
        level[r] = row < a->rows && flag[row] ? a->rowptr[row + 1] - a->rowptr[row] : INT64_MAX;
    }
    int64_t d = 0;
    *kept = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t l = level[key_row(s[i])];
        d = l > d ? l : d;
        if (key_col(s[i + 1]) != key_col(s[i])) {
            drop[d < CURVE_N ? d : CURVE_N]++;
            *kept += d > t;
            d = 0;
        }
    }
}

/* Records the compaction of the window's sorted keys s[0, n) (framed)
   for the fill (see build_ctx): a row's keys come in column order, which
   is its CSR order. Returns the number of distinct columns. */
static int64_t record_ranks(const tc_csr *a, int32_t r0, const uint64_t *s, int64_t n,
                            int32_t *rank)
{
    int64_t next[H], j = -1;
    for (int r = 0; r < H; r++)
        next[r] = r0 + r < a->rows ? a->rowptr[r0 + r] : 0;
    for (int64_t i = 0; i < n; i++) {
        j += key_col(s[i]) != key_col(s[i - 1]);
        rank[next[key_row(s[i])]++] = (int32_t)j;
    }
    return j + 1;
}

/* Adds the figures of the window's rows [r0, r1) at every threshold of
   the curve to cv, from its histogram of column drops; with ncols, keeps
   its distinct TC columns at thresholds 0 .. AUTO_MAX there. */
static void curve_window(const tc_csr *a, int32_t r0, int32_t r1, const uint8_t *flag,
                         const int64_t drop[CURVE_N + 1], curve *cv, int32_t *ncols)
{
    int64_t cols = 0, nnz = a->rowptr[r1] - a->rowptr[r0], res_rows = 0, res_nnz = 0;
    for (int l = 0; l <= CURVE_N; l++)
        cols += drop[l];
    for (int t = 0; t <= CURVE_MAX; t++) {
        cols -= drop[t];
        for (int32_t r = r0; r < r1; r++) {
            int64_t len = a->rowptr[r + 1] - a->rowptr[r];
            res_rows += flag[r] && len == t;
            res_nnz += flag[r] && len == t ? len : 0;
        }
        cv->blocks[t] += ceil_div(cols, W);
        cv->tc_nnz[t] += nnz - res_nnz;
        cv->windows[t] += nnz > res_nnz;
        cv->res_rows[t] += res_rows;
        cv->res_nnz[t] += res_nnz;
        if (ncols && t <= AUTO_MAX)
            ncols[t] = (int32_t)cols;
    }
}

/* Surveys window wi: the test of every row, the window's figures at every
   threshold of the curve and, for the build, its distinct TC columns at
   each candidate threshold and its compaction. */
static void survey_window(worker *wk, int64_t wi)
{
    build_ctx *c = wk->c;
    const tc_csr *a = c->a;
    int32_t r0, r1;
    window_rows(a, wi, &r0, &r1);
    int64_t n, drop[CURVE_N + 1] = { 0 }, kept;
    const uint64_t *s = sort_window(a, r0, r1, wk->keys, wk->tmp, &n);
    window_flags(a, r0, r1, s, n, c->flag);
    int forced = c->x && c->x->threshold != AUTO;
    column_drops(a, r0, c->flag, s, n, forced ? c->x->threshold : 0, drop, &kept);
    curve_window(a, r0, r1, c->flag, drop, &wk->cv,
                 c->x && !forced ? c->ncols + wi * c->ncand : NULL);
    if (c->x && forced)
        c->ncols[wi] = (int32_t)kept;
    if (c->x)
        c->nall[wi] = (int32_t)record_ranks(a, r0, s, n, c->rank);
}

/* Window wi's rows [r0, r1) with nb TC blocks at the chosen threshold go
   whole to the residual (see MIN_DENSITY_DEFAULT), in the count pass that
   sends sparse windows (c->whole): their TC nonzeros are fewer than
   min_density per block, and none of the rows is longer than
   WHOLE_ROW_MAX. */
static int sparse_window(const build_ctx *c, int32_t r0, int32_t r1, int64_t nb)
{
    if (!c->whole || nb == 0)
        return 0;
    const tc_csr *a = c->a;
    int64_t n = 0;
    for (int32_t r = r0; r < r1; r++) {
        int64_t len = a->rowptr[r + 1] - a->rowptr[r];
        if (len > WHOLE_ROW_MAX)
            return 0;
        n += is_residual(a, c->flag, r, c->x->threshold) ? 0 : len;
    }
    return (double)n < c->min_density * (double)nb;
}

/* Counts window wi at the chosen threshold into *ch; with c->whole, a
   sparse window (see MIN_DENSITY_DEFAULT) has its rows flagged for the
   residual first. */
static void count_window(build_ctx *c, int64_t wi, chunk *ch)
{
    const tc_csr *a = c->a;
    int32_t r0, r1;
    window_rows(a, wi, &r0, &r1);
    int64_t nb = ceil_div(c->ncols[wi * c->ncand + c->chosen], W);
    if (sparse_window(c, r0, r1, nb)) {
        for (int32_t r = r0; r < r1; r++)
            c->flag[r] = a->rowptr[r + 1] > a->rowptr[r] ? FLAG_WINDOW : 0;
        nb = 0;
    }
    c->wblocks[wi] = (int32_t)nb;
    for (int32_t r = r0; r < r1; r++) {
        int64_t len = a->rowptr[r + 1] - a->rowptr[r];
        int res = is_residual(a, c->flag, r, c->x->threshold);
        ch->res_rows += res;
        ch->res_nnz += res ? len : 0;
        ch->tc_nnz += res ? 0 : len;
    }
    ch->blocks += nb;
    ch->windows += nb > 0;
    ch->max_blocks = nb > ch->max_blocks ? nb : ch->max_blocks;
}

/* Where fill_window writes: the next segment, block, value and residual
   row and nonzero. */
typedef struct fill_at {
    int64_t segment, block, value, res_row, res_nnz;
} fill_at;

/* The window's TC columns at the chosen threshold: its distinct columns
   less those that only its residual rows have. place[j] = the place of
   its j-th distinct column among them, or -1. Rows: the TC rows (bit r -
   r0). */
static void tc_places(const build_ctx *c, int32_t r0, int32_t r1, unsigned rows, int64_t nall,
                      int32_t *place)
{
    const tc_csr *a = c->a;
    for (int64_t j = 0; j < nall; j++)
        place[j] = 0;
    for (int32_t r = r0; r < r1; r++) {
        if (!(rows >> (r - r0) & 1))
            continue;
        for (int64_t k = a->rowptr[r], end = a->rowptr[r + 1]; k < end; k++)
            place[c->rank[k]] = 1;
    }
    int32_t m = 0;
    for (int64_t j = 0; j < nall; j++)
        place[j] = place[j] ? m++ : -1;
}

/* Writes the window's TC blocks from block b0 on (Section 3.2): TC column
   place p is local column p mod 8 of block p / 8, the trailing slots of
   the last block dummy columns; each nonzero of a TC row sets bit row * 8
   + local column (rstile.h) and names its column (again, when a column
   has several). */
static void fill_blocks(const build_ctx *c, int32_t r0, int32_t r1, unsigned rows,
                        const int32_t *place, int64_t b0, int64_t nb)
{
    const tc_csr *a = c->a;
    tc_rstile *x = c->x;
    int32_t *col = x->col_id + b0 * W;
    for (int64_t k = 0; k < nb * W; k++)
        col[k] = DUMMY;
    memset(x->bitmap + 2 * b0, 0, (size_t)(2 * nb) * sizeof *x->bitmap);
    for (int32_t r = r0; r < r1; r++) {
        int lr = r - r0;
        if (!(rows >> lr & 1))
            continue;
        for (int64_t k = a->rowptr[r], end = a->rowptr[r + 1]; k < end; k++) {
            int32_t p = place[c->rank[k]];
            col[p] = a->colidx[k];
            x->bitmap[2 * (b0 + p / W) + lr / 8] |= (uint64_t)1 << (lr % 8 * W + p % W);
        }
    }
}

/* The values of the window's TC rows, in bitmap order: taking rows in
   order and each row's nonzeros in column order puts every block's values
   in row-major order, the order of its bits. */
static void fill_values(const worker *wk, int32_t r0, int32_t r1, unsigned rows, int64_t b0,
                        int64_t nb)
{
    const build_ctx *c = wk->c;
    const tc_csr *a = c->a;
    tc_rstile *x = c->x;
    for (int64_t b = 0; b < nb; b++)
        wk->cursor[b] = x->value_offset[b0 + b];
    for (int32_t r = r0; r < r1; r++) {
        if (!(rows >> (r - r0) & 1))
            continue;
        for (int64_t k = a->rowptr[r], end = a->rowptr[r + 1]; k < end; k++)
            x->values[wk->cursor[wk->place[c->rank[k]] / W]++] = a->val[k];
    }
}

/* The segments of a window of nb blocks from block b0 on (Section 3.3.3):
   as few as hold at most `split` blocks each, of sizes as equal as can
   be. */
static void fill_segments(tc_rstile *x, int64_t wi, int64_t nb, int64_t b0, int64_t *seg)
{
    int64_t nseg = ceil_div(nb, x->split);
    for (int64_t i = 0; i < nseg; i++, (*seg)++) {
        x->row_window_id[*seg] = (int32_t)(wi * H);
        x->row_window_offset[*seg] = b0;
        b0 += nb / nseg + (i < nb % nseg);
    }
}

/* Window wi's residual rows, whole, from at's residual row and nonzero
   on. */
static void fill_residual(const build_ctx *c, int32_t r0, int32_t r1, fill_at *at)
{
    const tc_csr *a = c->a;
    tc_rstile *x = c->x;
    for (int32_t r = r0; r < r1; r++) {
        if (!is_residual(a, c->flag, r, x->threshold))
            continue;
        int64_t from = a->rowptr[r], n = a->rowptr[r + 1] - from;
        memcpy(x->res_col_id + at->res_nnz, a->colidx + from, (size_t)n * sizeof *a->colidx);
        if (x->res_values)
            memcpy(x->res_values + at->res_nnz, a->val + from, (size_t)n * sizeof *a->val);
        at->res_nnz += n;
        x->res_row_id[at->res_row] = r;
        x->res_row_offset[++at->res_row] = at->res_nnz;
    }
}

/* Writes window wi: its TC blocks, their values and segments, its residual
   rows. */
static void fill_window(worker *wk, int64_t wi, fill_at *at)
{
    build_ctx *c = wk->c;
    const tc_csr *a = c->a;
    tc_rstile *x = c->x;
    int32_t r0, r1;
    window_rows(a, wi, &r0, &r1);
    unsigned rows = 0;
    for (int32_t r = r0; r < r1; r++)
        rows |= (unsigned)!is_residual(a, c->flag, r, x->threshold) << (r - r0);
    int64_t nb = c->wblocks[wi];
    tc_places(c, r0, r1, rows, c->nall[wi], wk->place);
    fill_blocks(c, r0, r1, rows, wk->place, at->block, nb);
    for (int64_t b = at->block; b < at->block + nb; b++) {
        x->value_offset[b] = at->value;
        at->value += __builtin_popcountll(x->bitmap[2 * b]) +
                     __builtin_popcountll(x->bitmap[2 * b + 1]);
    }
    if (x->values)
        fill_values(wk, r0, r1, rows, at->block, nb);
    fill_segments(x, wi, nb, at->block, &at->segment);
    at->block += nb;
    fill_residual(c, r0, r1, at);
}

/* The window after the last one of chunk ci. */
static int64_t chunk_end(const build_ctx *c, int64_t ci)
{
    int64_t end = (ci + 1) * CHUNK_WINDOWS;
    return end < c->windows ? end : c->windows;
}

static void run_chunk(worker *wk, int64_t ci)
{
    build_ctx *c = wk->c;
    int64_t w0 = ci * CHUNK_WINDOWS, w1 = chunk_end(c, ci);
    if (c->pass == SURVEY) {
        for (int64_t wi = w0; wi < w1; wi++)
            survey_window(wk, wi);
        return;
    }
    /* the chunks exist from the count pass on */
    chunk *ch = &c->chunks[ci];
    if (c->pass == COUNT) {
        for (int64_t wi = w0; wi < w1; wi++)
            count_window(c, wi, ch);
    } else {
        fill_at at = { ch->segments, ch->blocks, ch->tc_nnz, ch->res_rows, ch->res_nnz };
        for (int64_t wi = w0; wi < w1; wi++)
            fill_window(wk, wi, &at);
    }
}

static void *run_worker(void *arg)
{
    worker *wk = arg;
    for (;;) {
        int64_t ci = atomic_fetch_add(&wk->c->next, 1);
        if (ci >= wk->c->nchunks)
            return NULL;
        run_chunk(wk, ci);
    }
}

/* The most nonzeros of a window. */
static int64_t max_window_nnz(const tc_csr *a)
{
    int64_t most = 0;
    for (int64_t wi = 0; wi < window_count(a->rows); wi++) {
        int32_t r0, r1;
        window_rows(a, wi, &r0, &r1);
        int64_t n = a->rowptr[r1] - a->rowptr[r0];
        most = n > most ? n : most;
    }
    return most;
}

/* Workers for c, with the survey's scratch (and, with fill, the fill's);
   returns how many, 0 when memory is short. */
static int workers_new(build_ctx *c, worker *wk, int fill, tc_error *err)
{
    int64_t n = c->a->nnz < PARALLEL_MIN_NNZ ? 1 : tc_default_threads();
    n = n > TC_MAX_JOBS ? TC_MAX_JOBS : n > c->nchunks ? c->nchunks : n;
    n = n < 1 ? 1 : n;
    int64_t most = max_window_nnz(c->a);
    int good = 1;
    for (int i = 0; i < n; i++) {
        wk[i] = (worker){ .c = c };
        wk[i].keys = tc_malloc_array(most + 2 * H, sizeof *wk[i].keys, err);
        wk[i].tmp = tc_malloc_array(most + 2 * H, sizeof *wk[i].tmp, err);
        good &= wk[i].keys && wk[i].tmp;
        if (fill) {
            wk[i].place = tc_malloc_array(most, sizeof *wk[i].place, err);
            wk[i].cursor = tc_malloc_array(ceil_div(most, W), sizeof *wk[i].cursor, err);
            good &= wk[i].place && wk[i].cursor;
        }
    }
    return good ? (int)n : 0;
}

static void workers_free(worker *wk, int n)
{
    for (int i = 0; i < n; i++) {
        free(wk[i].keys);
        free(wk[i].tmp);
        free(wk[i].place);
        free(wk[i].cursor);
    }
}

/* Runs pass p over every chunk on n workers. */
static void run_pass(build_ctx *c, worker *wk, int n, enum pass p)
{
    c->pass = p;
    atomic_store(&c->next, 0);
    tc_run_jobs(run_worker, wk, sizeof *wk, n);
}

/* The workers' curves, summed (integers: the same whatever the split of
   the windows between workers). */
static void curve_sum(const worker *wk, int n, curve *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++)
        for (int t = 0; t < CURVE_N; t++) {
            out->blocks[t] += wk[i].cv.blocks[t];
            out->tc_nnz[t] += wk[i].cv.tc_nnz[t];
            out->windows[t] += wk[i].cv.windows[t];
            out->res_rows[t] += wk[i].cv.res_rows[t];
            out->res_nnz[t] += wk[i].cv.res_nnz[t];
        }
}

/* No threshold after t up to CURVE_MAX raises either curve by more than
   PLATEAU_GAIN over its value at t. */
static int plateau_from(const curve *cv, int t)
{
    double tcb = tc_fmt_ratio(cv->tc_nnz[t], cv->blocks[t]), win = tc_fmt_ratio(cv->tc_nnz[t], cv->windows[t]);
    for (int u = t + 1; u <= CURVE_MAX; u++)
        if (tc_fmt_ratio(cv->tc_nnz[u], cv->blocks[u]) > tcb * (1 + PLATEAU_GAIN) ||
            tc_fmt_ratio(cv->tc_nnz[u], cv->windows[u]) > win * (1 + PLATEAU_GAIN))
            return 0;
    return 1;
}

/* The automatic threshold (see AUTO_MAX). */
static int auto_threshold(const curve *cv, int64_t nnz)
{
    int t = 0;
    while (t < AUTO_MAX && !plateau_from(cv, t) &&
           tc_fmt_ratio(cv->res_nnz[t + 1], nnz) <= MAX_RESIDUAL_SHARE)
        t++;
    return t;
}

/* The split (see SPLIT_MEAN_FACTOR), from the blocks at the chosen
   threshold: total, windows with blocks, most in one window. */
static int choose_split(int param, int64_t blocks, int64_t windows, int64_t max_blocks)
{
    int64_t s = param > 0 ? param
              : param == 0 ? max_blocks
              : windows ? ceil_div(SPLIT_MEAN_FACTOR * blocks, windows) : 0;
    s = param == AUTO && s < SPLIT_MIN ? SPLIT_MIN : s;
    return s < 1 ? 1 : s > INT32_MAX ? INT32_MAX : (int)s;
}

/* The threshold, forced or chosen from the survey's curve, and its
   candidate. */
static void resolve_threshold(build_ctx *c, const curve *cv)
{
    c->chosen = 0;
    if (c->x->threshold == AUTO)
        c->x->threshold = c->chosen = auto_threshold(cv, c->a->nnz);
}

/* *sum += *ch (the larger max_blocks). */
static void chunk_add(chunk *sum, const chunk *ch)
{
    sum->segments += ch->segments;
    sum->blocks += ch->blocks;
    sum->tc_nnz += ch->tc_nnz;
    sum->res_rows += ch->res_rows;
    sum->res_nnz += ch->res_nnz;
    sum->windows += ch->windows;
    sum->max_blocks = ch->max_blocks > sum->max_blocks ? ch->max_blocks : sum->max_blocks;
}

/* The count pass's totals. */
static chunk chunks_total(const build_ctx *c)
{
    chunk t = { 0 };
    for (int64_t ci = 0; ci < c->nchunks; ci++)
        chunk_add(&t, &c->chunks[ci]);
    return t;
}

/* Counts every window; where the matrix's TC blocks hold fewer than
   min_density nonzeros each, counts again with the sparse windows sent
   whole (see MIN_DENSITY_DEFAULT). */
static void count_windows(build_ctx *c, worker *wk, int n)
{
    run_pass(c, wk, n, COUNT);
    chunk t = chunks_total(c);
    if (t.blocks == 0 || (double)t.tc_nnz >= c->min_density * (double)t.blocks)
        return;
    memset(c->chunks, 0, (size_t)c->nchunks * sizeof *c->chunks);
    c->whole = 1;
    run_pass(c, wk, n, COUNT);
}

/* The split, from the count pass's totals. */
static void resolve_split(build_ctx *c)
{
    chunk t = chunks_total(c);
    c->x->split = choose_split((int)tc_params_get(&c->x->base.params, "split", AUTO), t.blocks,
                               t.windows, t.max_blocks);
}

/* Turns the chunks' counts into their first segment, block, value,
   residual row and nonzero; segments counted here, now that the split is
   known. Returns the totals. */
static chunk chunk_offsets(build_ctx *c)
{
    chunk sum = { 0 };
    for (int64_t ci = 0; ci < c->nchunks; ci++) {
        chunk here = c->chunks[ci];
        for (int64_t wi = ci * CHUNK_WINDOWS; wi < chunk_end(c, ci); wi++)
            here.segments += ceil_div(c->wblocks[wi], c->x->split);
        c->chunks[ci] = sum;
        chunk_add(&sum, &here);
    }
    return sum;
}

static tc_status alloc_arrays(tc_rstile *x, chunk total, int values, tc_error *err)
{
    x->nsegments = total.segments;
    x->nblocks = total.blocks;
    x->nres_rows = total.res_rows;
    x->row_window_id = tc_malloc_array(total.segments, sizeof *x->row_window_id, err);
    x->row_window_offset = tc_malloc_array(total.segments + 1, sizeof *x->row_window_offset, err);
    x->bitmap = tc_malloc_array(2 * total.blocks, sizeof *x->bitmap, err);
    x->col_id = tc_malloc_array(W * total.blocks, sizeof *x->col_id, err);
    x->value_offset = tc_malloc_array(total.blocks + 1, sizeof *x->value_offset, err);
    x->res_row_id = tc_malloc_array(total.res_rows, sizeof *x->res_row_id, err);
    x->res_row_offset = tc_malloc_array(total.res_rows + 1, sizeof *x->res_row_offset, err);
    x->res_col_id = tc_malloc_array(total.res_nnz, sizeof *x->res_col_id, err);
    if (values) {
        x->values = tc_malloc_array(total.tc_nnz, sizeof *x->values, err);
        x->res_values = tc_malloc_array(total.res_nnz, sizeof *x->res_values, err);
    }
    if (!x->row_window_id || !x->row_window_offset || !x->bitmap || !x->col_id ||
        !x->value_offset || !x->res_row_id || !x->res_row_offset || !x->res_col_id ||
        (values && (!x->values || !x->res_values)))
        return TC_ERR_NOMEM;
    x->row_window_offset[total.segments] = total.blocks;
    x->value_offset[total.blocks] = total.tc_nnz;
    x->res_row_offset[0] = 0;
    return TC_OK;
}

/* Survey, threshold, count, split, prefix sums, allocation, fill. */
static tc_status build_arrays(const tc_csr *a, tc_rstile *x, tc_error *err)
{
    build_ctx c = { .a = a, .x = x, .windows = window_count(a->rows) };
    c.nchunks = ceil_div(c.windows, CHUNK_WINDOWS);
    c.ncand = x->threshold == AUTO ? AUTO_MAX + 1 : 1;
    c.min_density = tc_params_get(&x->base.params, "min_density", MIN_DENSITY_DEFAULT);
    c.flag = tc_malloc_array(a->rows, sizeof *c.flag, err);
    c.ncols = tc_malloc_array(c.windows * c.ncand, sizeof *c.ncols, err);
    c.wblocks = tc_malloc_array(c.windows, sizeof *c.wblocks, err);
    c.chunks = tc_calloc_array(c.nchunks, sizeof *c.chunks, err);
    c.rank = tc_malloc_array(a->nnz, sizeof *c.rank, err);
    c.nall = tc_malloc_array(c.windows, sizeof *c.nall, err);
    worker wk[TC_MAX_JOBS];
    int n = c.flag && c.ncols && c.wblocks && c.chunks && c.rank && c.nall
                ? workers_new(&c, wk, 1, err)
                : 0;
    tc_status st = n ? TC_OK : TC_ERR_NOMEM;
    if (st == TC_OK) {
        curve cv;
        run_pass(&c, wk, n, SURVEY);
        curve_sum(wk, n, &cv);
        resolve_threshold(&c, &cv);
        count_windows(&c, wk, n);
        resolve_split(&c);
        st = alloc_arrays(x, chunk_offsets(&c), a->val != NULL, err);
    }
    if (st == TC_OK)
        run_pass(&c, wk, n, FILL);
    workers_free(wk, n);
    free(c.flag);
    free(c.ncols);
    free(c.wblocks);
    free(c.chunks);
    free(c.rank);
    free(c.nall);
    return st;
}

tc_status tc_rstile_build(const tc_csr *a, const tc_params *p, tc_fmt **out, tc_error *err)
{
    tc_rstile *x = calloc(1, sizeof *x);
    if (!x)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_fmt_init(&x->base, &tc_format_rstile, a, p);
    x->threshold = (int)tc_params_get(&x->base.params, "threshold", AUTO);
    tc_status st = build_arrays(a, x, err);
    if (st != TC_OK) {
        tc_rstile_free(&x->base);
        return tc_error_set(err, st, "rstile: out of memory");
    }
    *out = &x->base;
    return TC_OK;
}


/* Fig. 14's curve for a: the build's survey alone. */
tc_status tc_rstile_survey(const tc_csr *a, curve *cv, tc_error *err)
{
    build_ctx c = { .a = a, .windows = window_count(a->rows) };
    c.nchunks = ceil_div(c.windows, CHUNK_WINDOWS);
    c.flag = tc_malloc_array(a->rows, sizeof *c.flag, err);
    worker wk[TC_MAX_JOBS];
    int n = c.flag ? workers_new(&c, wk, 0, err) : 0;
    if (n) {
        run_pass(&c, wk, n, SURVEY);
        curve_sum(wk, n, cv);
    }
    workers_free(wk, n);
    free(c.flag);
    return n ? TC_OK : TC_ERR_NOMEM;
}
