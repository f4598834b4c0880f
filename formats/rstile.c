/*
 * rstile.c: the RS-Tile format of RSH-SpMM (seed 001): the rows split
 * between a TC block part (16-row windows, columns compacted per window,
 * 16 x 8 blocks with a 128-bit bitmap each, Section 3.2) and a CUDA
 * residual part (whole short rows, Section 3.2), by the row partition of
 * Section 3.3.1 (Algorithm 1); windows with many blocks cut into segments
 * for load balance (Section 3.3.3). The layout is in rstile.h; the file
 * layout and its invariants in man/tcf.h5.5.
 *
 * The row partition. Algorithm 1 itself is lost from our copy of the
 * paper; Section 3.3.1 says that rows with more than a threshold of
 * nonzeros go to the TC part directly, and that a shorter row is compared
 * with its window's column set: "if the increment in covered columns is
 * negligible" it goes to the CUDA residual. Read literally, that sends to
 * CUDA the rows whose columns the window already covers, which cost the TC
 * part nothing and fill its blocks, and keeps the rows that open new
 * columns, against the paper's own goal (rows with "weak column-domain
 * overlap with their surrounding row windows" go to CUDA, Section 4.3.2;
 * tile density rises with the threshold, Fig. 14). We follow the goal: a
 * row with 1 to `threshold` nonzeros goes to the residual when most of its
 * columns (strictly more than half) appear in no other row of its window,
 * since each such column would cost the window a TC block column for one
 * nonzero. The other rows are all the other rows of the window, whatever
 * part they end up in, so each row's decision depends on the matrix alone:
 * not on the order rows are scanned in, nor on the decisions for other
 * rows. The test does not depend on the threshold either, so the residual
 * at threshold t is contained in the residual at t + 1.
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
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fmtutil.h"
#include "rstile.h"
#include "threads.h"

extern const tc_format tc_format_rstile;

#define H TC_RSTILE_H_ROWS
#define W TC_RSTILE_W_COLS
#define DUMMY TC_RSTILE_DUMMY_COL

/* Parameter value: chosen from the matrix. */
#define AUTO (-1)
/* Fig. 14's thresholds: 0 .. CURVE_MAX. */
#define CURVE_MAX 8
#define CURVE_N (CURVE_MAX + 1)
/* The automatic threshold (Section 4.3.2, Fig. 14): the smallest t in
   0 .. AUTO_MAX from which neither curve (mean nonzeros per TC block, per
   window with TC blocks) gains more than PLATEAU_GAIN at any threshold up
   to CURVE_MAX: the start of the plateau, which the paper sees at about 4;
   never beyond 6, where the paper sees the CUDA share grow with no gain;
   and never one that sends more than MAX_RESIDUAL_SHARE of the nonzeros
   to the residual (then the largest t within that share: the share only
   grows with t). Any later threshold, not just the next one: a step that
   routes no row (a matrix without rows of one nonzero) or that drops no
   whole block gains nothing, yet the curve may rise after it. The paper
   chooses "adaptively based on matrix size and overall sparsity" without
   saying how: these three numbers are ours. */
#define AUTO_MAX 6
#define PLATEAU_GAIN 0.02
#define MAX_RESIDUAL_SHARE 0.10
/* The automatic split (Section 3.3.3 names no number): segments of at most
   SPLIT_MEAN_FACTOR times the mean TC blocks per window with TC blocks,
   and never fewer than SPLIT_MIN blocks, so that only windows far above
   the mean are cut and each extra segment (one atomic 16-row update of C)
   is paid for by at least SPLIT_MIN blocks of MMAs. */
#define SPLIT_MEAN_FACTOR 4
#define SPLIT_MIN 32
/* Sparse windows (ours; the paper routes rows, not windows): where the TC
   blocks of the whole matrix would hold fewer than min_density nonzeros
   each on average, every window whose own blocks would goes whole to the
   residual, rows of any length. Section 4.3.2's rows of "weak
   column-domain overlap" taken a window at a time: where the rows of a
   window share almost no column, as in lp_nug30 after any reordering (480
   nonzeros over 472 distinct columns a window, 8.1 per block), each row
   of B that a block loads serves one nonzero and costs a sixteenth of the
   block's decode, index loads and MMAs; the residual loads that row once
   for the nonzero, with no decode. 8 per block is the floor for full
   blocks (one nonzero per column); 8.5 lets one column in 16 have a
   second. Measured on an H100 (bench/NOTES.md, rstile step 17): lp_nug30
   sent whole is 1.1-1.2x cuSPARSE against 0.84-1.05x in TC blocks; at 9,
   63% of p2p-Gnutella31 goes (windows of 8.5-9 per block) and it runs
   8-18% slower; at 10-12 the power-law graphs lose up to half their
   speed (deezer_HU, musae_github, twitch_DE, fb100_Cornell5). The test on
   the whole matrix first: a few sparse windows among dense ones cost
   little in TC blocks, but sent whole they are residual rows longer than
   the partition's, whose loads (in tc-item, 32 nonzeros of a warp in
   rounds of 8) outlast the blocks' (pubmed, 2 windows of 126 nonzeros
   sent whole: 24.2 -> 27.5 us at n = 128; email-Enron and ca-CondMat,
   0.1% of their nonzeros: about 6% slower at n = 32). */
#define MIN_DENSITY_DEFAULT 8.5
/* ... unless one of its rows is longer than this: the residual gives a row
   one thread per 4 or 8 columns of C, so that a long row is a chain of
   its length on one thread (email-Enron, whose rows reach 1,383 nonzeros:
   1.08x -> 0.76x cuSPARSE at n = 128 with 1% of its nonzeros sent whole). */
#define WHOLE_ROW_MAX 64

static const tc_param_def rstile_params[] = {
    { "threshold", "rows with at most this many nonzeros may go to the CUDA residual "
                   "(Algorithm 1); -1: chosen from the matrix (Fig. 14)",
      AUTO, AUTO, INT32_MAX, 1 },
    { "split", "most TC blocks per window segment (Section 3.3.3); -1: chosen from the "
               "matrix, 0: windows are never split",
      AUTO, AUTO, INT32_MAX, 1 },
    { "min_density", "where the matrix's TC blocks would hold fewer nonzeros each than "
                     "this, windows whose own would go whole to the CUDA residual; 0: never",
      MIN_DENSITY_DEFAULT, 0, W * H, 0 },
};
#define NPARAMS ((int)(sizeof rstile_params / sizeof rstile_params[0]))

static int64_t window_count(int32_t rows)
{
    return ((int64_t)rows + H - 1) / H;
}

/* The rows [*r0, *r1) of window wi. */
static void window_rows(const tc_csr *a, int64_t wi, int32_t *r0, int32_t *r1)
{
    int64_t end = (wi + 1) * H;
    *r0 = (int32_t)(wi * H);
    *r1 = end < a->rows ? (int32_t)end : a->rows;
}

static int64_t ceil_div(int64_t x, int64_t y)
{
    return (x + y - 1) / y;
}

static void rstile_free(tc_fmt *m)
{
    tc_rstile *x = (tc_rstile *)m;
    if (!x)
        return;
    free(x->row_window_id);
    free(x->row_window_offset);
    free(x->bitmap);
    free(x->col_id);
    free(x->value_offset);
    free(x->values);
    free(x->res_row_id);
    free(x->res_row_offset);
    free(x->res_col_id);
    free(x->res_values);
    free(x);
}

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

/* Figures at each threshold 0 .. CURVE_MAX (Fig. 14): TC blocks, TC
   nonzeros, windows with TC nonzeros, residual rows and nonzeros. */
typedef struct curve {
    int64_t blocks[CURVE_N], tc_nnz[CURVE_N], windows[CURVE_N];
    int64_t res_rows[CURVE_N], res_nnz[CURVE_N];
} curve;

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

static tc_status rstile_build(const tc_csr *a, const tc_params *p, tc_fmt **out, tc_error *err)
{
    tc_rstile *x = calloc(1, sizeof *x);
    if (!x)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_fmt_init(&x->base, &tc_format_rstile, a, p);
    x->threshold = (int)tc_params_get(&x->base.params, "threshold", AUTO);
    tc_status st = build_arrays(a, x, err);
    if (st != TC_OK) {
        rstile_free(&x->base);
        return tc_error_set(err, st, "rstile: out of memory");
    }
    *out = &x->base;
    return TC_OK;
}

/* ------------------------------------------------------------ decoding */

/* Calls fn(ctx, row, column, k) for every TC nonzero in storage order:
   segment after segment, block after block, bit after bit (row-major in
   the block, rstile.h), k counting them, which is its place in values. */
typedef void tc_visit(void *ctx, int64_t row, int32_t col, int64_t k);
static void visit_tc(const tc_rstile *x, tc_visit *fn, void *ctx)
{
    int64_t k = 0;
    for (int64_t s = 0; s < x->nsegments; s++) {
        int64_t row0 = x->row_window_id[s];
        for (int64_t b = x->row_window_offset[s]; b < x->row_window_offset[s + 1]; b++)
            for (int half = 0; half < 2; half++)
                for (uint64_t bits = x->bitmap[2 * b + half]; bits; bits &= bits - 1) {
                    int bit = __builtin_ctzll(bits);
                    fn(ctx, row0 + half * 8 + bit / W, x->col_id[b * W + bit % W], k++);
                }
    }
}

static void count_row(void *ctx, int64_t row, int32_t col, int64_t k)
{
    ((int64_t *)ctx)[row]++;
}

typedef struct decode_ctx {
    tc_csr *a;
    int64_t *at;            /* where each row's next nonzero goes */
    const double *values;
} decode_ctx;

static void decode_one(void *ctx, int64_t row, int32_t col, int64_t k)
{
    decode_ctx *d = ctx;
    int64_t at = d->at[row]++;
    d->a->colidx[at] = col;
    if (d->a->val)
        d->a->val[at] = d->values[k];
}

/* Exact decode. A window's columns ascend across its blocks, so a TC row's
   nonzeros come out in column order; a residual row is stored whole and
   in no TC block (both checked by validate). */
static tc_status rstile_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    const tc_residual res = TC_RESIDUAL_OF(x);
    tc_csr *a;
    tc_status st = tc_csr_alloc(&a, m->rows, m->cols, m->nnz, m->has_values, err);
    if (st != TC_OK)
        return st;
    int64_t *rp = a->rowptr;
    visit_tc(x, count_row, rp + 1);
    tc_residual_count(&res, rp + 1);
    for (int32_t r = 0; r < a->rows; r++)
        rp[r + 1] += rp[r];
    /* rp[r] runs ahead as row r fills, ending at rp[r + 1]; shifted back
       below. */
    decode_ctx d = { a, rp, x->values };
    visit_tc(x, decode_one, &d);
    tc_residual_fill(&res, a, rp);
    memmove(rp + 1, rp, (size_t)a->rows * sizeof *rp);
    rp[0] = 0;
    *out = a;
    return TC_OK;
}

/* C = A*B straight from the two parts, as the kernels compute it: every
   TC nonzero from its block's bitmap, column id and value, then the
   residual rows. */
static tc_status rstile_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                                 double *C, int64_t ldc, tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    tc_status st = tc_fmt_spmm_start(m, B, ldb, n, C, ldc, err);
    if (st != TC_OK)
        return st;
    tc_spmm_step p = { B, x->values, ldb, ldc, n, C };
    visit_tc(x, tc_spmm_step_one, &p);
    const tc_residual res = TC_RESIDUAL_OF(x);
    tc_residual_spmm(&res, B, ldb, n, C, ldc);
    return TC_OK;
}

/* The GPU layout: int32 row_window_id, int64 row_window_offset, two uint64
   bitmap words, 8 int32 column ids and an int64 value offset per block,
   float32 values (as csr and brp are counted); the residual part. */
static int64_t rstile_bytes(const tc_fmt *m)
{
    const tc_rstile *x = (const tc_rstile *)m;
    const tc_residual res = TC_RESIDUAL_OF(x);
    int64_t ntc = x->value_offset[x->nblocks];
    return x->nsegments * 4 + (x->nsegments + 1) * 8 + x->nblocks * (2 * 8 + W * 4) +
           (x->nblocks + 1) * 8 + ntc * (m->has_values ? 4 : 0) +
           tc_residual_bytes(&res, m->has_values);
}

/* Which nonzeros of a lie in which part: residual rows are whole rows. */
static tc_status rstile_nnz_part(const tc_fmt *m, const tc_csr *a, uint8_t *part, tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    if (a->rows != m->rows || a->cols != m->cols || a->nnz != m->nnz)
        return tc_error_set(err, TC_ERR_ARG,
                            "rstile: the matrix is not the one the format encodes");
    memset(part, 0, (size_t)a->nnz);
    for (int64_t i = 0; i < x->nres_rows; i++) {
        int32_t r = x->res_row_id[i];
        int64_t n = x->res_row_offset[i + 1] - x->res_row_offset[i];
        if (n != a->rowptr[r + 1] - a->rowptr[r])
            return tc_error_set(err, TC_ERR_ARG,
                                "rstile: row %d has %" PRId64 " nonzeros, its residual part %"
                                PRId64 " (not the matrix the format encodes)", r,
                                a->rowptr[r + 1] - a->rowptr[r], n);
        memset(part + a->rowptr[r], 1, (size_t)n);
    }
    return TC_OK;
}

/* ------------------------------------------------------------------ files */

static tc_status rstile_write_h5(const tc_fmt *m, tc_h5grp *g, tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    const tc_residual res = TC_RESIDUAL_OF(x);
    int64_t ntc = x->value_offset[x->nblocks];
    tc_status st = tc_h5grp_put(g, "row_window_id", TC_I32, x->nsegments, x->row_window_id, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "row_window_offset", TC_I64, x->nsegments + 1, x->row_window_offset,
                          err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "bitmap", TC_U64, 2 * x->nblocks, x->bitmap, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "col_id", TC_I32, W * x->nblocks, x->col_id, err);
    if (st == TC_OK && x->values)
        st = tc_h5grp_put(g, "values", TC_F64, ntc, x->values, err);
    if (st == TC_OK)
        st = tc_residual_write(g, &res, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(g, "resolved_threshold", x->threshold, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(g, "resolved_split", x->split, err);
    return st;
}

/* value_offset from the bitmaps: their prefix popcounts. */
static tc_status derive_value_offset(tc_rstile *x, tc_error *err)
{
    x->value_offset = tc_malloc_array(x->nblocks + 1, sizeof *x->value_offset, err);
    if (!x->value_offset)
        return TC_ERR_NOMEM;
    x->value_offset[0] = 0;
    for (int64_t b = 0; b < x->nblocks; b++)
        x->value_offset[b + 1] = x->value_offset[b] + __builtin_popcountll(x->bitmap[2 * b]) +
                                 __builtin_popcountll(x->bitmap[2 * b + 1]);
    return TC_OK;
}

/* The TC part's arrays, with the lengths that the segments and the bitmaps
   imply, each bounded by the matrix's nonzeros before anything that
   depends on it is allocated; contents are checked by rstile_validate. */
static tc_status read_tc_part(tc_h5grp *g, tc_rstile *x, tc_error *err)
{
    const int64_t nnz = x->base.nnz;
    tc_status st = tc_h5grp_get(g, "row_window_id", TC_I32, &x->nsegments,
                                (void **)&x->row_window_id, 0, err);
    if (st == TC_OK && x->nsegments > nnz)
        return tc_error_set(err, TC_ERR_FORMAT, "%s/row_window_id: %" PRId64 " segments exceed "
                            "the %" PRId64 " nonzeros of the matrix", tc_h5grp_path(g),
                            x->nsegments, nnz);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "row_window_offset", TC_I64, x->nsegments + 1,
                            (void **)&x->row_window_offset, err);
    if (st != TC_OK)
        return st;
    x->nblocks = x->row_window_offset[x->nsegments];
    if (x->nblocks < 0 || x->nblocks > nnz)
        return tc_error_set(err, TC_ERR_FORMAT, "%s/row_window_offset[%" PRId64 "]: %" PRId64
                            " blocks, expected 0 to %" PRId64 " (at most one per nonzero)",
                            tc_h5grp_path(g), x->nsegments, x->nblocks, nnz);
    st = tc_h5grp_get_n(g, "bitmap", TC_U64, 2 * x->nblocks, (void **)&x->bitmap, err);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "col_id", TC_I32, W * x->nblocks, (void **)&x->col_id, err);
    if (st == TC_OK)
        st = derive_value_offset(x, err);
    if (st != TC_OK)
        return st;
    int64_t ntc = x->value_offset[x->nblocks];
    if (ntc > nnz)
        return tc_error_set(err, TC_ERR_FORMAT, "%s/bitmap: %" PRId64 " bits set, more than the %"
                            PRId64 " nonzeros of the matrix", tc_h5grp_path(g), ntc, nnz);
    return tc_fmt_read_values(g, "values", ntc, x->base.has_values, &x->values, err);
}

/* An attribute that must hold an int in 0 .. INT32_MAX. */
static tc_status read_count_attr(tc_h5grp *g, const char *name, int *out, tc_error *err)
{
    int64_t v;
    tc_status st = tc_h5grp_get_attr_i64(g, name, &v, err);
    if (st == TC_OK && (v < 0 || v > INT32_MAX))
        st = tc_error_set(err, TC_ERR_FORMAT, "%s/%s: %" PRId64 " is out of range (0 to %d)",
                          tc_h5grp_path(g), name, v, INT32_MAX);
    if (st == TC_OK)
        *out = (int)v;
    return st;
}

static tc_status rstile_read_h5(tc_h5grp *g, const tc_fmt *hdr, tc_fmt **out, tc_error *err)
{
    tc_rstile *x = calloc(1, sizeof *x);
    if (!x)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    x->base = *hdr;
    tc_residual res = { 0 };
    tc_status st = read_count_attr(g, "resolved_threshold", &x->threshold, err);
    if (st == TC_OK)
        st = read_count_attr(g, "resolved_split", &x->split, err);
    if (st == TC_OK)
        st = read_tc_part(g, x, err);
    if (st == TC_OK)
        st = tc_residual_read(g, hdr->nnz - x->value_offset[x->nblocks], hdr->has_values, &res,
                              err);
    x->nres_rows = res.nrows;
    x->res_row_id = res.row_id;
    x->res_row_offset = res.row_offset;
    x->res_col_id = res.col_id;
    x->res_values = res.values;
    if (st != TC_OK) {
        rstile_free(&x->base);
        return st;
    }
    *out = &x->base;
    return TC_OK;
}

/* ------------------------------------------------------------ validation */

/* The resolved threshold and split against the parameters they were
   resolved from. */
static tc_status check_resolved(const tc_rstile *x, const char *what, tc_error *err)
{
    int t = (int)tc_params_get(&x->base.params, "threshold", AUTO);
    int s = (int)tc_params_get(&x->base.params, "split", AUTO);
    if (t == AUTO && (x->threshold < 0 || x->threshold > AUTO_MAX))
        return tc_error_set(err, TC_ERR_INVALID, "%s/resolved_threshold: %d, expected 0 to %d "
                            "(threshold -1: chosen from the matrix)", what, x->threshold,
                            AUTO_MAX);
    if (t != AUTO && x->threshold != t)
        return tc_error_set(err, TC_ERR_INVALID, "%s/resolved_threshold: %d, expected %d (the "
                            "threshold parameter)", what, x->threshold, t);
    if (s == AUTO && x->split < SPLIT_MIN)
        return tc_error_set(err, TC_ERR_INVALID, "%s/resolved_split: %d, expected at least %d "
                            "(split -1: chosen from the matrix)", what, x->split, SPLIT_MIN);
    if ((s > 0 && x->split != s) || x->split < 1)
        return tc_error_set(err, TC_ERR_INVALID, "%s/resolved_split: %d, expected %d (the split "
                            "parameter)", what, x->split, s > 0 ? s : 1);
    return TC_OK;
}

/* The segments: each at the first row of a window inside the matrix,
   windows ascending (a window's segments consecutive, and only one when
   split is 0), each of 1 to split blocks, from block 0 to the last. */
static tc_status check_segments(const tc_rstile *x, const char *what, tc_error *err)
{
    const int64_t *off = x->row_window_offset;
    const int never_split = tc_params_get(&x->base.params, "split", AUTO) == 0;
    if (off[0] != 0)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/row_window_offset[0]: %" PRId64 ", expected 0", what, off[0]);
    for (int64_t s = 0; s < x->nsegments; s++) {
        int32_t row = x->row_window_id[s], prev = s > 0 ? x->row_window_id[s - 1] : -1;
        if (row < 0 || row >= x->base.rows || row % H != 0)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/row_window_id[%" PRId64 "]: %d is not the first row of a "
                                "window (a multiple of %d below %d)", what, s, row, H,
                                x->base.rows);
        if (row < prev || (never_split && row == prev))
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/row_window_id[%" PRId64 "]: window at row %d after window at "
                                "row %d (must be %s)", what, s, row, prev,
                                never_split ? "strictly ascending: split is 0" : "ascending");
        if (off[s + 1] <= off[s] || off[s + 1] - off[s] > x->split)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/row_window_offset[%" PRId64 "]: %" PRId64 " after %" PRId64
                                " (a segment holds 1 to %d blocks)", what, s + 1, off[s + 1],
                                off[s], x->split);
    }
    if (off[x->nsegments] != x->nblocks)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/row_window_offset[%" PRId64 "]: %" PRId64 ", expected %" PRId64
                            " blocks", what, x->nsegments, off[x->nsegments], x->nblocks);
    return TC_OK;
}

/* The bits of local column j of a block's bitmap word (rstile.h). */
#define COLUMN_BITS(j) (UINT64_C(0x0101010101010101) << (j))

/* The rows (bit r: row r of the window) that block b has nonzeros in. */
static unsigned block_rows(const tc_rstile *x, int64_t b)
{
    unsigned rows = 0;
    for (int r = 0; r < H; r++)
        rows |= (unsigned)((x->bitmap[2 * b + r / 8] >> (r % 8 * W) & 0xff) != 0) << r;
    return rows;
}

/* Local column j of block b, the last block of its window when last:
   a column in range, above the window's previous one (*prev), with a
   nonzero; or a dummy column, only in the last block's trailing slots
   (never the first: a block has a column), with no nonzero. */
static tc_status check_column(const tc_rstile *x, int64_t b, int j, int last, int64_t *prev,
                              const char *what, tc_error *err)
{
    int64_t at = b * W + j;
    int32_t col = x->col_id[at];
    uint64_t bits = (x->bitmap[2 * b] | x->bitmap[2 * b + 1]) & COLUMN_BITS(j);
    if (col == DUMMY) {
        if (!last || j == 0)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/col_id[%" PRId64 "]: dummy column %d outside the trailing "
                                "slots of its window's last block", what, at, DUMMY);
        if (bits)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/bitmap[%" PRId64 "]: a nonzero in dummy column %d of block %"
                                PRId64, what, 2 * b + !(x->bitmap[2 * b] & COLUMN_BITS(j)), j, b);
        *prev = INT64_MAX;
        return TC_OK;
    }
    if (col < 0 || col >= x->base.cols)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/col_id[%" PRId64 "]: column %d is out of range (%d columns)",
                            what, at, col, x->base.cols);
    if (col <= *prev)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/col_id[%" PRId64 "]: column %d after %s %" PRId64 " in its window "
                            "(must be strictly ascending, dummies last)", what, at, col,
                            *prev == INT64_MAX ? "dummy column" : "column",
                            *prev == INT64_MAX ? (int64_t)DUMMY : *prev);
    if (!bits)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s/bitmap[%" PRId64 "]: column %d (local column %d of block %" PRId64
                            ") has no nonzero", what, 2 * b, col, j, b);
    *prev = col;
    return TC_OK;
}

/* The blocks [b0, b1) of the window at row0: their columns, and no
   nonzero in a row past the matrix. */
static tc_status check_window(const tc_rstile *x, int64_t b0, int64_t b1, int32_t row0,
                              const char *what, tc_error *err)
{
    int64_t prev = -1;
    int inside = x->base.rows - row0 < H ? x->base.rows - row0 : H;
    for (int64_t b = b0; b < b1; b++) {
        for (int j = 0; j < W; j++) {
            tc_status st = check_column(x, b, j, b == b1 - 1, &prev, what, err);
            if (st != TC_OK)
                return st;
        }
        unsigned outside = block_rows(x, b) >> inside;
        int r = inside + (outside ? __builtin_ctz(outside) : 0);
        if (outside)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/bitmap[%" PRId64 "]: a nonzero in row %d, outside the matrix "
                                "(%d rows)", what, 2 * b + r / 8, row0 + r, x->base.rows);
    }
    return TC_OK;
}

/* Every window's blocks (segments checked first). */
static tc_status check_blocks(const tc_rstile *x, const char *what, tc_error *err)
{
    for (int64_t s = 0, e; s < x->nsegments; s = e) {
        for (e = s + 1; e < x->nsegments && x->row_window_id[e] == x->row_window_id[s]; e++)
            ;
        tc_status st = check_window(x, x->row_window_offset[s], x->row_window_offset[e],
                                    x->row_window_id[s], what, err);
        if (st != TC_OK)
            return st;
    }
    return TC_OK;
}

/* The rows of the window at row0 that have TC nonzeros, from segment *s on
   (advanced past the windows before it). */
static unsigned tc_rows_of(const tc_rstile *x, int32_t row0, int64_t *s)
{
    unsigned rows = 0;
    while (*s < x->nsegments && x->row_window_id[*s] < row0)
        (*s)++;
    for (int64_t e = *s; e < x->nsegments && x->row_window_id[e] == row0; e++)
        for (int64_t b = x->row_window_offset[e]; b < x->row_window_offset[e + 1]; b++)
            rows |= block_rows(x, b);
    return rows;
}

/* The residual rows against the partition (Section 3.3.1): none in the TC
   part, and at most threshold nonzeros each, except in a window that went
   whole to the residual (no TC row; only where min_density is not 0). */
static tc_status check_partition(const tc_rstile *x, const char *what, tc_error *err)
{
    const int whole = tc_params_get(&x->base.params, "min_density", MIN_DENSITY_DEFAULT) > 0;
    int64_t s = 0;
    int32_t window = -1;
    unsigned tc_rows = 0;
    for (int64_t i = 0; i < x->nres_rows; i++) {
        int32_t r = x->res_row_id[i];
        int64_t n = x->res_row_offset[i + 1] - x->res_row_offset[i];
        if (r - r % H != window) {
            window = r - r % H;
            tc_rows = tc_rows_of(x, window, &s);
        }
        if (n > x->threshold && (!whole || tc_rows))
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_row_offset[%" PRId64 "]: row %d has %" PRId64 " nonzeros, "
                                "more than the threshold %d%s", what, i + 1, r, n, x->threshold,
                                whole ? ", and its window has TC rows" : " (min_density is 0)");
        if (tc_rows >> (r % H) & 1)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_row_id[%" PRId64 "]: row %d also has nonzeros in the TC "
                                "part", what, i, r);
    }
    return TC_OK;
}

static tc_status rstile_validate(const tc_fmt *m, const tc_csr *a, const char *what,
                                 tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    const tc_residual res = TC_RESIDUAL_OF(x);
    tc_status st = tc_fmt_check_values(m, x->values, "values", what, err);
    if (st == TC_OK)
        st = tc_fmt_check_values(m, x->res_values, "res_values", what, err);
    if (st == TC_OK)
        st = check_resolved(x, what, err);
    if (st == TC_OK)
        st = check_segments(x, what, err);
    if (st == TC_OK)
        st = check_blocks(x, what, err);
    if (st == TC_OK)
        st = tc_residual_check(&res, m->nnz - x->value_offset[x->nblocks], m->rows, m->cols,
                               what, err);
    if (st == TC_OK)
        st = check_partition(x, what, err);
    if (st == TC_OK && a)
        st = tc_fmt_check_decodes(m, a, what, err);
    return st;
}

/* ------------------------------------------------------------- statistics */

/* Fig. 14's curve for a: the build's survey alone. */
static tc_status survey_curve(const tc_csr *a, curve *cv, tc_error *err)
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

/* Fig. 14 as a table: each curve over thresholds 0 .. CURVE_MAX, keys
   NAME_tT (as distributions are NAME_pK). */
static tc_status report_curve(const curve *cv, int64_t nnz, tc_report *r, const char *s)
{
    static const char *const names[] = { "nnz_per_tcb", "nnz_per_window", "residual_rows",
                                         "residual_share" };
    static const char *const helps[] = {
        "mean nonzeros per TC block", "mean nonzeros per row window with TC blocks",
        "rows in the CUDA residual", "share of nonzeros in the CUDA residual",
    };
    tc_status st = TC_OK;
    for (int f = 0; f < 4; f++)
        for (int t = 0; t <= CURVE_MAX && st == TC_OK; t++) {
            char key[64], help[160];
            snprintf(key, sizeof key, "%s_t%d", names[f], t);
            snprintf(help, sizeof help, "%s at threshold %d (001 Fig. 14)", helps[f], t);
            double v = f == 0 ? tc_fmt_ratio(cv->tc_nnz[t], cv->blocks[t])
                     : f == 1 ? tc_fmt_ratio(cv->tc_nnz[t], cv->windows[t])
                     : f == 3 ? tc_fmt_ratio(cv->res_nnz[t], nnz) : 0;
            st = f == 2 ? tc_report_int(r, s, key, cv->res_rows[t], help)
                        : tc_report_num(r, s, key, v, help);
        }
    return st;
}

/* Windows with residual rows and no TC row: those sent whole (see
   MIN_DENSITY_DEFAULT) and those whose every row went by the row
   partition. */
static int64_t residual_windows(const tc_rstile *x)
{
    int64_t n = 0, s = 0;
    for (int64_t i = 0; i < x->nres_rows; i++) {
        int32_t row0 = x->res_row_id[i] - x->res_row_id[i] % H;
        if (i == 0 || x->res_row_id[i - 1] < row0)
            n += tc_rows_of(x, row0, &s) == 0;
    }
    return n;
}

static tc_status rstile_stats(const tc_fmt *m, tc_report *r, const char *s, tc_error *err)
{
    const tc_rstile *x = (const tc_rstile *)m;
    int64_t ntc = x->value_offset[x->nblocks], tc_windows = 0, split_windows = 0, most = 0;
    for (int64_t i = 0; i < x->nsegments; i++) {
        int first = i == 0 || x->row_window_id[i] != x->row_window_id[i - 1];
        int64_t nb = x->row_window_offset[i + 1] - x->row_window_offset[i];
        tc_windows += first;
        split_windows += !first && (i < 2 || x->row_window_id[i - 2] != x->row_window_id[i]);
        most = nb > most ? nb : most;
    }
    const double density = tc_params_get(&m->params, "min_density", MIN_DENSITY_DEFAULT);
    const tc_fmt_figure f[] = {
        { "threshold", "nnz threshold of the row partition (Algorithm 1)", 1, x->threshold, 0 },
        { "min_density", "nonzeros per TC block below which a window goes whole to the residual "
                         "(where the matrix's blocks fall below it too)", 0, 0, density },
        { "split", "most TC blocks per window segment (Section 3.3.3)", 1, x->split, 0 },
        { "windows", "row windows of 16 rows", 1, window_count(m->rows), 0 },
        { "tc_windows", "row windows with TC blocks", 1, tc_windows, 0 },
        { "residual_windows", "row windows with residual rows and no TC block", 1,
          residual_windows(x), 0 },
        { "segments", "window segments (a split window has several)", 1, x->nsegments, 0 },
        { "split_windows", "row windows cut into several segments", 1, split_windows, 0 },
        { "segment_blocks_max", "TC blocks of the largest segment", 1, most, 0 },
        { "blocks", "TC blocks of 16x8", 1, x->nblocks, 0 },
        { "tc_nnz", "nonzeros in the TC block part (tensor cores)", 1, ntc, 0 },
        { "tc_share", "share of nonzeros in the TC block part", 0, 0, tc_fmt_ratio(ntc, m->nnz) },
        { "residual_rows", "rows in the CUDA residual part", 1, x->nres_rows, 0 },
        { "residual_nnz", "nonzeros in the CUDA residual part", 1, m->nnz - ntc, 0 },
        { "residual_share", "share of nonzeros in the CUDA residual part", 0, 0,
          tc_fmt_ratio(m->nnz - ntc, m->nnz) },
        { "nnz_per_tcb", "mean nonzeros per TC block", 0, 0, tc_fmt_ratio(ntc, x->nblocks) },
        { "nnz_per_window", "mean nonzeros per row window with TC blocks", 0, 0,
          tc_fmt_ratio(ntc, tc_windows) },
    };
    tc_status st = tc_fmt_report_figures(r, s, f, sizeof f / sizeof f[0]);
    tc_csr *a = NULL;
    curve cv;
    if (st == TC_OK)
        st = rstile_to_csr(m, &a, err);
    if (st == TC_OK)
        st = survey_curve(a, &cv, err);
    if (st == TC_OK)
        st = report_curve(&cv, m->nnz, r, s);
    tc_csr_free(a);
    return st;
}

const tc_format tc_format_rstile = {
    .name = "rstile",
    .description = "RSH-SpMM RS-Tile: 16x8 bitmap TC blocks of compacted row windows for "
                   "tensor cores, short isolated rows for CUDA cores",
    .params = rstile_params,
    .nparams = NPARAMS,
    .canonical = 0,
    .build = rstile_build,
    .to_csr = rstile_to_csr,
    .spmm_ref = rstile_spmm_ref,
    .bytes = rstile_bytes,
    .write_h5 = rstile_write_h5,
    .read_h5 = rstile_read_h5,
    .validate = rstile_validate,
    .stats = rstile_stats,
    .nnz_part = rstile_nnz_part,
    .free = rstile_free,
};
