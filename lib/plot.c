/*
 * plot.c: pictures of a matrix, rendered to RGB pixels (lib/png.c writes
 * them).
 *
 * Geometry, shared by both pictures so that they overlay exactly: the matrix
 * area keeps the matrix's aspect ratio and its longest side is at most
 * opts->size pixels, inside a 1-pixel frame. A matrix larger than that is
 * cut into buckets: index i (row or column) falls in cell floor(i*S/L), S
 * the size and L the longest side, so both axes share one scale. A smaller
 * matrix gets one cell per index and an integer zoom: each cell is drawn as a
 * zoom x zoom square. Everything is computed per cell, then painted.
 *
 * Both pictures stream over the CSR once, a band of cell rows at a time
 * (bands run on several threads; each cell is computed by exactly one
 * thread, so the picture does not depend on the thread count). The
 * decorations around the area (title, axes, colour bar, legend) are
 * lib/figure.c's, from what the picture says about itself (a plot_key).
 */
#include "config.h"
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"
#include "tcsparse.h"
#include "threads.h"

/* ----------------------------------------------------------------- geometry */

/* One axis: index i falls in cell floor(i * num / den), num <= den. */
typedef struct axis {
    int64_t n;              /* rows or columns of the matrix */
    int64_t num, den;
    double ratio;           /* num / den: first guess in axis_cell */
    int32_t cells;
} axis;

typedef struct geometry {
    axis rows, cols;
    int32_t zoom;           /* pixels per cell side */
    int32_t width, height;  /* the whole image, frame included */
} geometry;

/* floor(i * num / den), exactly: a floating-point guess corrected by at most
   one step, because a 64-bit division per nonzero would dominate the spy
   plot's inner loop. */
static inline int64_t axis_cell(const axis *ax, int64_t i)
{
    int64_t c = (int64_t)((double)i * ax->ratio);
    int64_t p = i * ax->num;
    if ((c + 1) * ax->den <= p)
        c++;
    else if (c * ax->den > p)
        c--;
    return c;
}

/* The first index of cell c: ceil(c * den / num), at most n. */
static int64_t axis_first(const axis *ax, int64_t c)
{
    int64_t i = (c * ax->den + ax->num - 1) / ax->num;
    return i < ax->n ? i : ax->n;
}

static void axis_init(axis *ax, int64_t n, int64_t num, int64_t den)
{
    ax->n = n;
    ax->num = num;
    ax->den = den;
    ax->ratio = (double)num / (double)den;
    /* The cell of the last index, not ceil(n * num / den): that could end
       the axis with a cell holding no index at all. */
    ax->cells = n > 0 ? (int32_t)axis_cell(ax, n - 1) + 1 : 0;
}

static tc_status geometry_init(geometry *g, const tc_csr *a, int32_t size, tc_error *err)
{
    if (size < 1 || size > INT32_MAX - 2)
        return tc_error_set(err, TC_ERR_ARG, "picture size must be 1 to %d pixels (got %d)",
                            INT32_MAX - 2, (int)size);
    int64_t longest = a->rows > a->cols ? a->rows : a->cols;
    int64_t num = 1, den = 1;
    g->zoom = 1;
    if (longest > size) {
        num = size;
        den = longest;
    } else if (longest > 0) {
        g->zoom = (int32_t)(size / longest);
    }
    axis_init(&g->rows, a->rows, num, den);
    axis_init(&g->cols, a->cols, num, den);
    g->width = g->cols.cells * g->zoom + 2;
    g->height = g->rows.cells * g->zoom + 2;
    return TC_OK;
}

/* -------------------------------------------------------------------- image */

static uint8_t *pixel(tc_image *img, int64_t x, int64_t y)
{
    return img->rgb + (y * img->width + x) * 3;
}

/* A white image with the frame drawn. */
static tc_status image_new(const geometry *g, tc_image **out, tc_error *err)
{
    tc_image *img;
    tc_status st = plot_image_new(g->width, g->height, &img, err);
    if (st != TC_OK)
        return st;
    for (int64_t x = 0; x < img->width; x++) {
        memcpy(pixel(img, x, 0), PLOT_FRAME, 3);
        memcpy(pixel(img, x, img->height - 1), PLOT_FRAME, 3);
    }
    for (int64_t y = 0; y < img->height; y++) {
        memcpy(pixel(img, 0, y), PLOT_FRAME, 3);
        memcpy(pixel(img, img->width - 1, y), PLOT_FRAME, 3);
    }
    *out = img;
    return TC_OK;
}

/* Paints cell (cx, cy) on the first pixel row of cell row cy; row_done
   then copies that pixel row over the zoom - 1 rows below it. */
static void put_cell(tc_image *img, const geometry *g, int64_t cx, int64_t cy,
                     const uint8_t rgb[3])
{
    uint8_t *p = pixel(img, 1 + cx * g->zoom, 1 + cy * g->zoom);
    for (int32_t k = 0; k < g->zoom; k++, p += 3)
        memcpy(p, rgb, 3);
}

/* Copies the matrix area of pixel row src over the n pixel rows from dst. */
static void copy_rows(tc_image *img, const geometry *g, int64_t src, int64_t dst, int32_t n)
{
    size_t len = (size_t)g->cols.cells * g->zoom * 3;
    for (int32_t k = 0; k < n; k++)
        memcpy(pixel(img, 1, dst + k), pixel(img, 1, src), len);
}

static void row_done(tc_image *img, const geometry *g, int64_t cy)
{
    copy_rows(img, g, 1 + cy * g->zoom, 2 + cy * g->zoom, g->zoom - 1);
}

/* A grid pixel, only where nothing was drawn: the grid never hides data. */
static void grid_pixel(tc_image *img, int64_t x, int64_t y)
{
    if (!memcmp(pixel(img, x, y), PLOT_WHITE, 3))
        memcpy(pixel(img, x, y), PLOT_GRID, 3);
}

/* The h x w block grid: a line at the first pixel of each block row and
   column; shown when forced, or (auto) when a block spans >= 4 pixels a
   side. */
static void draw_grid(tc_image *img, const geometry *g, const tc_plot_opts *o)
{
    int64_t side = o->block_h < o->block_w ? o->block_h : o->block_w;
    if (o->grid == 0 || (o->grid < 0 && side * g->rows.num * g->zoom < 4 * g->rows.den))
        return;
    for (int64_t r = o->block_h; r < g->rows.n; r += o->block_h) {
        int64_t y = 1 + axis_cell(&g->rows, r) * g->zoom;
        for (int64_t x = 1; x < img->width - 1; x++)
            grid_pixel(img, x, y);
    }
    for (int64_t c = o->block_w; c < g->cols.n; c += o->block_w) {
        int64_t x = 1 + axis_cell(&g->cols, c) * g->zoom;
        for (int64_t y = 1; y < img->height - 1; y++)
            grid_pixel(img, x, y);
    }
}

/* What both pictures start with: the options (defaults when NULL), checked,
   and the geometry. Blocks are limited to INT32_MAX cells because their
   nonzeros are counted in int32. */
static tc_status plot_setup(const tc_csr *a, const tc_plot_opts **o, geometry *g,
                            tc_error *err)
{
    static const tc_plot_opts defaults = TC_PLOT_DEFAULTS;
    if (!*o)
        *o = &defaults;
    if (!a)
        return tc_error_set(err, TC_ERR_ARG, "no matrix to draw");
    int64_t h = (*o)->block_h, w = (*o)->block_w;
    if (h < 1 || w < 1 || h * w > INT32_MAX)
        return tc_error_set(err, TC_ERR_ARG, "bad block shape %dx%d", (int)h, (int)w);
    return geometry_init(g, a, (*o)->size, err);
}

/* ------------------------------------------------------------ thread bands */

/* Below this many nonzeros threads cost more than they save. Beyond
   MAX_THREADS, drawing is bound by memory bandwidth anyway. */
#define PAR_MIN_NNZ (1 << 18)
#define MAX_THREADS 64

typedef void (*band_fn)(void *ctx, int worker, int64_t first, int64_t end);

typedef struct band_pool {
    band_fn fn;
    void *ctx;
    int64_t n, chunk;
    _Atomic int64_t next;
    const tc_progress *progress;    /* reported by worker 0 only: progress
                                       callbacks need not be thread-safe */
} band_pool;

typedef struct band_worker {
    band_pool *pool;
    int id;
} band_worker;

static void *band_run(void *arg)
{
    band_worker *w = arg;
    band_pool *p = w->pool;
    for (;;) {
        int64_t first = atomic_fetch_add(&p->next, p->chunk);
        if (first >= p->n)
            return NULL;
        if (w->id == 0)
            tc_progress_report(p->progress, first, p->n);
        p->fn(p->ctx, w->id, first, first + p->chunk < p->n ? first + p->chunk : p->n);
    }
}

/* The number of workers run_bands may use for a matrix of nnz nonzeros. */
static int band_threads(int64_t nnz)
{
    int t = nnz < PAR_MIN_NNZ ? 1 : tc_default_threads();
    return t < 1 ? 1 : t > MAX_THREADS ? MAX_THREADS : t;
}

/* Calls fn over cell rows [0, n) in chunks handed out by an atomic counter,
   on `threads` workers (ids 0..threads-1, the caller being 0). */
static void run_bands(band_fn fn, void *ctx, int64_t n, int threads, const tc_progress *prog)
{
    band_pool pool = { .fn = fn, .ctx = ctx, .n = n, .chunk = n / (8 * threads) + 1,
                       .progress = prog };
    atomic_init(&pool.next, 0);
    band_worker w[MAX_THREADS];
    for (int i = 0; i < threads; i++)
        w[i] = (band_worker){ &pool, i };
    tc_run_jobs(band_run, w, sizeof w[0], threads);
}

/* ---------------------------------------------------------------- spy plot */

typedef struct spy_job {
    const tc_csr *a;
    const geometry *g;
    int64_t *count;         /* cells.rows x cells.cols */
    const uint8_t *part;    /* per nonzero: 1 in the CUDA-core part, or NULL */
    int64_t *second;        /* cells.rows x cells.cols: nonzeros of that part */
} spy_job;

static void spy_band(void *ctx, int worker, int64_t first, int64_t end)
{
    const spy_job *j = ctx;
    /* Local copies: the counts are int64_t too, so the compiler would
       otherwise reload the axis from memory after every increment. */
    const axis rows = j->g->rows, cols = j->g->cols;
    const int64_t *rowptr = j->a->rowptr;
    const int32_t *colidx = j->a->colidx;
    const uint8_t *part = j->part;
    for (int64_t cy = first; cy < end; cy++) {
        int64_t *cnt = j->count + cy * cols.cells;
        int64_t k1 = rowptr[axis_first(&rows, cy + 1)];
        int64_t k = rowptr[axis_first(&rows, cy)];
        if (part) {
            int64_t *sec = j->second + cy * cols.cells;
            for (; k < k1; k++) {
                int64_t c = axis_cell(&cols, colidx[k]);
                cnt[c]++;
                sec[c] += part[k];
            }
        }
        for (; k < k1; k++)
            cnt[axis_cell(&cols, colidx[k])]++;
    }
}

/* Shades each cell by log(1 + count) / log(1 + max count); with parts,
   the blue and orange shades mixed by the share of the second part.
   Returns the max count, the top of the colour scale. */
static int64_t spy_paint(tc_image *img, const geometry *g, const int64_t *count,
                      const int64_t *second)
{
    int64_t ncells = (int64_t)g->rows.cells * g->cols.cells, max = 0;
    for (int64_t i = 0; i < ncells; i++)
        if (count[i] > max)
            max = count[i];
    const plot_key scale = { .max = max };
    uint8_t rgb[3], other[3];
    for (int64_t cy = 0; cy < g->rows.cells; cy++) {
        const int64_t *cnt = count + cy * g->cols.cells;
        for (int64_t cx = 0; cx < g->cols.cells; cx++) {
            if (!cnt[cx])
                continue;
            double t = plot_key_position(&scale, (double)cnt[cx]);
            plot_ramp(PLOT_BLUES, t, rgb);
            if (second) {
                double share = (double)second[cy * g->cols.cells + cx] / (double)cnt[cx];
                plot_ramp(PLOT_ORANGES, t, other);
                for (int k = 0; k < 3; k++)
                    rgb[k] = (uint8_t)lround(rgb[k] + (other[k] - rgb[k]) * share);
            }
            put_cell(img, g, cx, cy, rgb);
        }
        row_done(img, g, cy);
    }
    return max;
}

/* The picture *img with the decorations o asks for around it, in place of
   it. */
static tc_status decorate(tc_image **img, const plot_key *k, const tc_plot_opts *o,
                          tc_error *err)
{
    if (!o->decor)
        return TC_OK;
    tc_image *fig;
    tc_status st = plot_decorate(*img, k, o, &fig, err);
    if (st != TC_OK)
        return st;
    tc_image_free(*img);
    *img = fig;
    return TC_OK;
}

/* The key of a's picture: what the decorations say about it. */
static plot_key key_of(const tc_csr *a, int blocks)
{
    return (plot_key){ .rows = a->rows, .cols = a->cols, .nnz = a->nnz, .blocks = blocks };
}

tc_status tc_plot_spy(const tc_csr *a, const tc_plot_opts *o, tc_image **out,
                      tc_error *err)
{
    geometry g;
    tc_status st = plot_setup(a, &o, &g, err);
    if (st != TC_OK)
        return st;
    int64_t ncells = (int64_t)g.rows.cells * g.cols.cells;
    spy_job job = { .a = a, .g = &g, .part = o->part };
    job.count = tc_calloc_array(ncells, sizeof *job.count, err);
    if (job.count && o->part)
        job.second = tc_calloc_array(ncells, sizeof *job.second, err);
    st = job.count && (job.second || !o->part) ? TC_OK : TC_ERR_NOMEM;
    tc_image *img = NULL;
    if (st == TC_OK)
        st = image_new(&g, &img, err);
    if (st == TC_OK) {
        run_bands(spy_band, &job, g.rows.cells, band_threads(a->nnz), o->progress);
        plot_key k = key_of(a, 0);
        k.parts = o->part != NULL;
        k.max = spy_paint(img, &g, job.count, job.second);
        draw_grid(img, &g, o);
        st = decorate(&img, &k, o, err);
    }
    if (st == TC_OK)
        *out = img;
    else
        tc_image_free(img);
    free(job.count);
    free(job.second);
    return st;
}

/* ------------------------------------------------------- block-density plot */

/* Which blocks of size b a cell shows along one axis: the blocks that start
   inside it, or, in a cell smaller than a block where none starts, the one
   block it lies in. Cells thus partition the blocks when cells are larger
   than blocks, and a block covers all of its cells when they are smaller. */
static void cell_blocks(const axis *ax, int64_t b, int64_t c, int64_t *lo, int64_t *hi)
{
    int64_t i0 = axis_first(ax, c), i1 = axis_first(ax, c + 1);
    *lo = (i0 + b - 1) / b;
    *hi = (i1 + b - 1) / b;
    if (*lo >= *hi) {
        *lo = i0 / b;
        *hi = *lo + 1;
    }
}

/* The cells that show block k along one axis, first to last: the inverse of
   cell_blocks. The cell holding the block's first index shows it (its
   range is not empty: the block starts there); so do the cells after it
   that start inside the block, except a last one where the next block
   starts too (that one shows the next block). */
static void block_cells(const axis *ax, int64_t b, int64_t k, int64_t *first, int64_t *last)
{
    int64_t end = (k + 1) * b < ax->n ? (k + 1) * b : ax->n;
    *first = axis_cell(ax, k * b);
    *last = axis_cell(ax, end - 1);
    if (*last > *first && end < ax->n && axis_cell(ax, end) == *last)
        (*last)--;
}

/* Per worker: nonzeros per block column of the block row being counted (a
   calloc'ed array, of which only the pages of touched block columns are
   ever mapped), the block columns touched, and per cell of the cell row
   the nonzeros and blocks gathered. */
typedef struct block_scratch {
    int32_t *nnz, *touched;
    int64_t *cell_nnz, *cell_blocks;
} block_scratch;

typedef struct block_job {
    const tc_csr *a;
    const geometry *g;
    int32_t h, w;
    block_scratch *scratch;            /* one per worker */
    tc_image *img;
} block_job;

/* Adds the nonzeros of block row br (the aligned h x w tiling) to s by block
   column; returns the number of block columns touched. */
static int64_t count_aligned_blocks(const block_job *j, block_scratch *s, int64_t br)
{
    const tc_csr *a = j->a;
    int64_t r1 = (br + 1) * j->h < a->rows ? (br + 1) * j->h : a->rows, ntouched = 0;
    for (int64_t k = a->rowptr[br * j->h]; k < a->rowptr[r1]; k++) {
        int32_t bc = a->colidx[k] / j->w;
        if (s->nnz[bc]++ == 0)
            s->touched[ntouched++] = bc;
    }
    return ntouched;
}

/* Moves the counted blocks into the cells that show them. */
static void gather_blocks(const block_job *j, block_scratch *s, int64_t ntouched)
{
    for (int64_t t = 0; t < ntouched; t++) {
        int32_t bc = s->touched[t];
        int64_t first, last;
        block_cells(&j->g->cols, j->w, bc, &first, &last);
        for (int64_t cx = first; cx <= last; cx++) {
            s->cell_nnz[cx] += s->nnz[bc];
            s->cell_blocks[cx]++;
        }
        s->nnz[bc] = 0;
    }
}

/* Colours each cell of row cy by log(mean nnz per block) / log(h*w): one
   nonzero per block is the dark end, full blocks the bright end. */
static void paint_block_row(const block_job *j, block_scratch *s, int64_t cy)
{
    const plot_key scale = { .blocks = 1, .max = (int64_t)j->h * j->w };
    uint8_t rgb[3];
    for (int64_t cx = 0; cx < j->g->cols.cells; cx++) {
        if (!s->cell_blocks[cx])
            continue;
        double mean = (double)s->cell_nnz[cx] / (double)s->cell_blocks[cx];
        plot_ramp(PLOT_VIRIDIS, plot_key_position(&scale, mean), rgb);
        put_cell(j->img, j->g, cx, cy, rgb);
        s->cell_nnz[cx] = s->cell_blocks[cx] = 0;
    }
    row_done(j->img, j->g, cy);
}

static void blocks_band(void *ctx, int worker, int64_t first, int64_t end)
{
    const block_job *j = ctx;
    block_scratch *s = &j->scratch[worker];
    int64_t prev_lo = -1, prev_hi = -1;
    for (int64_t cy = first; cy < end; cy++) {
        int64_t lo, hi;
        cell_blocks(&j->g->rows, j->h, cy, &lo, &hi);
        if (lo == prev_lo && hi == prev_hi) {
            /* The same block row as the cell row above, drawn by this worker
               just before: copy its pixels instead of counting again. */
            copy_rows(j->img, j->g, 1 + (cy - 1) * j->g->zoom, 1 + cy * j->g->zoom, j->g->zoom);
            continue;
        }
        for (int64_t br = lo; br < hi; br++)
            gather_blocks(j, s, count_aligned_blocks(j, s, br));
        paint_block_row(j, s, cy);
        prev_lo = lo;
        prev_hi = hi;
    }
}

static void free_scratch(block_job *j, int n)
{
    for (int i = 0; i < n && j->scratch; i++) {
        free(j->scratch[i].nnz);
        free(j->scratch[i].touched);
        free(j->scratch[i].cell_nnz);
        free(j->scratch[i].cell_blocks);
    }
    free(j->scratch);
}

static tc_status alloc_scratch(block_job *j, int n, int64_t nbc, tc_error *err)
{
    j->scratch = calloc((size_t)n, sizeof *j->scratch);
    if (!j->scratch)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory for the block picture");
    int64_t cw = j->g->cols.cells;
    for (int i = 0; i < n; i++) {
        block_scratch *s = &j->scratch[i];
        s->nnz = tc_calloc_array(nbc, sizeof *s->nnz, err);
        s->touched = tc_malloc_array(nbc, sizeof *s->touched, err);
        s->cell_nnz = tc_calloc_array(cw, sizeof *s->cell_nnz, err);
        s->cell_blocks = tc_calloc_array(cw, sizeof *s->cell_blocks, err);
        if (!s->nnz || !s->touched || !s->cell_nnz || !s->cell_blocks)
            return TC_ERR_NOMEM;
    }
    return TC_OK;
}

tc_status tc_plot_blocks(const tc_csr *a, const tc_plot_opts *o, tc_image **out,
                         tc_error *err)
{
    geometry g;
    tc_status st = plot_setup(a, &o, &g, err);
    if (st != TC_OK)
        return st;
    int threads = band_threads(a->nnz);
    int64_t nbc = ((int64_t)a->cols + o->block_w - 1) / o->block_w;
    block_job job = { .a = a, .g = &g, .h = o->block_h, .w = o->block_w };
    st = alloc_scratch(&job, threads, nbc, err);
    if (st == TC_OK)
        st = image_new(&g, &job.img, err);
    if (st == TC_OK) {
        run_bands(blocks_band, &job, g.rows.cells, threads, o->progress);
        draw_grid(job.img, &g, o);
        plot_key k = key_of(a, 1);
        k.max = (int64_t)o->block_h * o->block_w;
        k.block_h = o->block_h;
        k.block_w = o->block_w;
        k.nblocks = o->decor & TC_PLOT_TITLE ? tc_count_bcsr_blocks(a, o->block_h, o->block_w) : 0;
        st = k.nblocks < 0 ? tc_error_set(err, TC_ERR_NOMEM, "out of memory counting blocks")
                           : decorate(&job.img, &k, o, err);
    }
    if (st == TC_OK)
        *out = job.img;
    else
        tc_image_free(job.img);
    free_scratch(&job, threads);
    return st;
}
