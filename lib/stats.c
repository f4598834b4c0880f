/* stats.c: the figures tcstat prints: shape, density, symmetry, row and
   column lengths, bandwidth, and the tensor-core tiling of 16-row windows
   with per-window column compaction that Fused3S (seed 003, Section 3.1)
   builds, summarised as in its Tables 6 and 7 (TCB per row window, nnz per
   TCB: mean, CV, deciles).

   Every pass is a count / prefix-sum / fill pass: O(nnz + rows + cols), no
   sort of matrix-sized data, no map. The tiling passes run on contiguous
   ranges of row windows in threads; each range fills its own outputs and
   the caller adds them up in range order with integer arithmetic, so every
   figure is the same whatever the thread count. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "block_count.h"
#include "synergy.h"
#include "tcsparse.h"
#include "threads.h"

/* ---- distributions ------------------------------------------------------ */

/* Nearest-rank position (1-based) of decile k among n sorted values:
   ceil(k n / 10), at least 1, so p0 is the minimum and p100 the maximum. */
static int64_t decile_rank(int k, int64_t n)
{
    int64_t r = (k * n + 9) / 10;
    return r < 1 ? 1 : r;
}

/* Fills what follows from the moments; sd is the population standard
   deviation (sigma in 003's CV = sigma / mu). */
static void dist_moments(tc_dist *d, int64_t n, double mean, double sum_sq_dev)
{
    d->count = n;
    d->mean = mean;
    d->sd = sqrt(sum_sq_dev / (double)n);
    d->cv = mean != 0 ? d->sd / mean : 0;
}

/* Total order with NaN last, so that qsort never sees an inconsistent
   comparison. */
static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

void tc_dist_compute(tc_dist *d, double *values, int64_t n)
{
    memset(d, 0, sizeof *d);
    if (n <= 0)
        return;
    qsort(values, (size_t)n, sizeof *values, cmp_double);
    double sum = 0, dev = 0;
    for (int64_t i = 0; i < n; i++)
        sum += values[i];
    double mean = sum / (double)n;
    for (int64_t i = 0; i < n; i++)
        dev += (values[i] - mean) * (values[i] - mean);
    dist_moments(d, n, mean, dev);
    d->min = values[0];
    d->max = values[n - 1];
    for (int k = 0; k <= 10; k++)
        d->decile[k] = values[decile_rank(k, n) - 1];
}

double tc_csr_row_length_cv(const tc_csr *a)
{
    const double mean = a->rows > 0 ? (double)a->nnz / (double)a->rows : 0;
    double dev = 0;
    for (int32_t i = 0; i < a->rows; i++) {
        const double d = (double)(a->rowptr[i + 1] - a->rowptr[i]) - mean;
        dev += d * d;
    }
    return mean > 0 ? sqrt(dev / (double)a->rows) / mean : 0;
}

tc_status tc_csr_used_cols(const tc_csr *a, int32_t **out, int32_t *count, tc_error *err)
{
    if (out)
        *out = NULL;
    *count = 0;
    /* uses[j]: column j's nonzeros (at most rows, so 32 bits hold it) */
    int32_t *uses = tc_calloc_array(a->cols, sizeof *uses, err);
    if (!uses)
        return TC_ERR_NOMEM;
    for (int64_t k = 0; k < a->nnz; k++)
        uses[a->colidx[k]]++;
    int32_t n = 0, most = 0;
    for (int32_t j = 0; j < a->cols; j++) {
        n += uses[j] > 0;
        most = uses[j] > most ? uses[j] : most;
    }
    /* a counting sort by uses, most first: start[u] is where the columns
       used u times begin; columns of one count stay in increasing order */
    int32_t *list = out && n ? tc_malloc_array(n, sizeof *list, err) : NULL;
    int32_t *start = list ? tc_calloc_array((int64_t)most + 1, sizeof *start, err) : NULL;
    if (out && n && !start) {
        free(list);
        free(uses);
        return TC_ERR_NOMEM;
    }
    for (int32_t j = 0; start && j < a->cols; j++)
        if (uses[j])
            start[uses[j] - 1]++;
    for (int32_t u = most - 1, at = 0; start && u >= 0; u--) {
        const int32_t c = start[u];
        start[u] = at;
        at += c;
    }
    for (int32_t j = 0; start && j < a->cols; j++)
        if (uses[j])
            list[start[uses[j] - 1]++] = j;
    free(start);
    free(uses);
    if (out)
        *out = list;
    *count = n;
    return TC_OK;
}

/* The same figures for integer data given as a histogram (count[v] values
   equal to v, 0 <= v < nbins): O(nbins), exact, and the same as
   tc_dist_compute on the expanded values. */
static void dist_from_histogram(tc_dist *d, const int64_t *count, int64_t nbins)
{
    memset(d, 0, sizeof *d);
    int64_t n = 0;
    double sum = 0, dev = 0;
    for (int64_t v = 0; v < nbins; v++) {
        n += count[v];
        sum += (double)count[v] * (double)v;
    }
    if (n == 0)
        return;
    double mean = sum / (double)n;
    int64_t seen = 0;
    int k = 0;
    d->min = -1;
    for (int64_t v = 0; v < nbins; v++) {
        if (!count[v])
            continue;
        if (d->min < 0)
            d->min = (double)v;
        d->max = (double)v;
        dev += (double)count[v] * ((double)v - mean) * ((double)v - mean);
        seen += count[v];
        for (; k <= 10 && decile_rank(k, n) <= seen; k++)
            d->decile[k] = (double)v;
    }
    dist_moments(d, n, mean, dev);
}

/* ---- row windows in threads ---------------------------------------------- */

#define MAX_JOBS 64
/* Below this many nonzeros a thread costs more than it saves. */
#define PARALLEL_MIN_NNZ (1 << 18)
/* Largest h * w: bounds the per-thread nnz-per-block histograms. */
#define MAX_BLOCK_AREA 65536

typedef struct window_range {
    int64_t w0, w1;     /* windows [w0, w1) */
} window_range;

static int64_t window_first_nz(const tc_csr *a, int h, int64_t wi)
{
    int64_t row = wi * h;
    return a->rowptr[row < a->rows ? row : a->rows];
}

/* The first window in [lo, hi) that starts at or after nonzero `target`
   (hi when none does). */
static int64_t window_at_nz(const tc_csr *a, int h, int64_t lo, int64_t hi, int64_t target)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (window_first_nz(a, h, mid) >= target)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Cuts [0, windows) into contiguous ranges of about equal nonzero counts,
   one per thread; returns how many. */
static int split_windows(const tc_csr *a, int h, int64_t windows, window_range *r)
{
    int64_t n = a->nnz < PARALLEL_MIN_NNZ ? 1 : tc_default_threads();
    if (n > MAX_JOBS)
        n = MAX_JOBS;
    if (n > windows)
        n = windows;
    if (n < 1)
        n = 1;
    int64_t start = 0;
    for (int64_t k = 0; k < n; k++) {
        /* nnz * (k + 1) / n without overflow */
        int64_t target = a->nnz / n * (k + 1) + a->nnz % n * (k + 1) / n;
        int64_t end = k < n - 1 ? window_at_nz(a, h, start, windows, target) : windows;
        r[k].w0 = start;
        r[k].w1 = start = end;
    }
    return (int)n;
}

/* ---- TC block count: one stamp pass per window ----------------------------- */

typedef struct count_job {
    const tc_csr *a;
    const int32_t *order;   /* row i of the count is a's row order[i]; NULL: i */
    int h, w;
    int aligned;        /* 1: blocks at multiples of w (BCSR), not compacted */
    window_range r;
    int64_t blocks;     /* -1 when memory was short */
} count_job;

/* A window's distinct columns are counted by stamping each column with the
   window's index in an array of `cols` entries that is never cleared: a
   column is new to the window when its stamp is older. Blocks per window are
   ceil(distinct / w), so no order is needed. Aligned blocks stamp block
   columns (c / w) instead: each distinct one is a block. */
static void *count_worker(void *arg)
{
    count_job *j = arg;
    const tc_csr *a = j->a;
    int32_t *stamp = tc_malloc_array(a->cols, sizeof *stamp, NULL);
    if (!stamp) {
        j->blocks = -1;
        return NULL;
    }
    for (int32_t c = 0; c < a->cols; c++)
        stamp[c] = -1;
    int64_t blocks = 0;
    for (int64_t wi = j->r.w0; wi < j->r.w1; wi++) {
        int64_t distinct = 0, end = (wi + 1) * j->h < a->rows ? (wi + 1) * j->h : a->rows;
        for (int64_t i = wi * j->h; i < end; i++) {
            int32_t r = j->order ? j->order[i] : (int32_t)i;
            for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; e++) {
                int32_t c = j->aligned ? a->colidx[e] / j->w : a->colidx[e];
                if (stamp[c] != (int32_t)wi) {
                    stamp[c] = (int32_t)wi;
                    distinct++;
                }
            }
        }
        blocks += j->aligned ? distinct : (distinct + j->w - 1) / j->w;
    }
    free(stamp);
    j->blocks = blocks;
    return NULL;
}

static int64_t window_count(const tc_csr *a, int h)
{
    return ((int64_t)a->rows + h - 1) / h;
}

/* With an order, the ranges are cut by a's nonzeros in its own order: as
   even as any guess, and the count does not depend on them. */
static int64_t count_blocks(const tc_csr *a, const int32_t *order, int h, int w, int aligned)
{
    if (!a || h < 1 || w < 1)
        return -1;
    window_range r[MAX_JOBS];
    count_job jobs[MAX_JOBS];
    int n = split_windows(a, h, window_count(a, h), r);
    for (int k = 0; k < n; k++)
        jobs[k] = (count_job){ .a = a, .order = order, .h = h, .w = w, .aligned = aligned,
                               .r = r[k] };
    tc_run_jobs(count_worker, jobs, sizeof jobs[0], n);
    int64_t blocks = 0;
    for (int k = 0; k < n; k++) {
        if (jobs[k].blocks < 0)
            return -1;
        blocks += jobs[k].blocks;
    }
    return blocks;
}

int64_t tc_count_tc_blocks(const tc_csr *a, int h, int w)
{
    return count_blocks(a, NULL, h, w, 0);
}

int64_t tc_count_tc_blocks_in_order(const tc_csr *a, const int32_t *new2old, int h, int w)
{
    return count_blocks(a, new2old, h, w, 0);
}

int64_t tc_count_bcsr_blocks(const tc_csr *a, int h, int w)
{
    return count_blocks(a, NULL, h, w, 1);
}

/* ---- full tiling: a column sweep per range of windows ---------------------- */

typedef struct tiling_job {
    const tc_csr *a;
    int h, w;
    window_range r;
    int32_t *blocks_per_window; /* shared; this job writes [r.w0, r.w1) */
    int64_t *nnz_hist;          /* private: blocks holding v nonzeros, v <= h*w */
    tc_status st;
} tiling_job;

/* A window's block b holds its compacted columns b*w .. b*w+w-1, so a
   column's block depends on its rank among the window's distinct columns,
   which a stamp does not give. Visiting the range's nonzeros column by
   column, in increasing column order, hands every window its distinct
   columns in sorted order: a per-window counter then gives each column's
   rank, with no sort. The column-major view of the range is built with one
   count / prefix-sum / fill pass and records only each nonzero's window. */
static void tiling_sweep(tiling_job *j, int64_t *colptr, int32_t *win, int32_t *last,
                         int32_t *ncol, int32_t *bnnz)
{
    const tc_csr *a = j->a;
    int64_t nz0 = window_first_nz(a, j->h, j->r.w0);
    int64_t r0 = j->r.w0 * j->h, r1 = j->r.w1 * j->h < a->rows ? j->r.w1 * j->h : a->rows;
    for (int64_t e = nz0; e < a->rowptr[r1]; e++)
        colptr[a->colidx[e] + 1]++;
    for (int32_t c = 0; c < a->cols; c++)
        colptr[c + 1] += colptr[c];
    for (int64_t i = r0; i < r1; i++) {
        int32_t lw = (int32_t)((i - r0) / j->h);
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
            win[colptr[a->colidx[e]]++] = lw;
    }
    /* colptr[c] now ends column c: shift back to starts. */
    memmove(colptr + 1, colptr, (size_t)a->cols * sizeof *colptr);
    colptr[0] = 0;

    int64_t nw = j->r.w1 - j->r.w0;
    for (int64_t lw = 0; lw < nw; lw++)
        last[lw] = -1;
    for (int32_t c = 0; c < a->cols; c++)
        for (int64_t e = colptr[c]; e < colptr[c + 1]; e++) {
            int32_t lw = win[e];
            if (last[lw] != c) {
                last[lw] = c;
                if (ncol[lw] % j->w == 0) {     /* column opens a new block */
                    if (ncol[lw])
                        j->nnz_hist[bnnz[lw]]++;
                    bnnz[lw] = 0;
                }
                ncol[lw]++;
            }
            bnnz[lw]++;
        }
    for (int64_t lw = 0; lw < nw; lw++) {
        if (ncol[lw])
            j->nnz_hist[bnnz[lw]]++;
        j->blocks_per_window[j->r.w0 + lw] = (ncol[lw] + j->w - 1) / j->w;
    }
}

static void *tiling_worker(void *arg)
{
    tiling_job *j = arg;
    const tc_csr *a = j->a;
    int64_t nw = j->r.w1 - j->r.w0;
    int64_t nz = window_first_nz(a, j->h, j->r.w1) - window_first_nz(a, j->h, j->r.w0);
    int64_t *colptr = tc_calloc_array((int64_t)a->cols + 1, sizeof *colptr, NULL);
    int32_t *win = tc_malloc_array(nz, sizeof *win, NULL);
    int32_t *last = tc_malloc_array(nw, sizeof *last, NULL);
    int32_t *ncol = tc_calloc_array(nw, sizeof *ncol, NULL);
    int32_t *bnnz = tc_calloc_array(nw, sizeof *bnnz, NULL);
    j->st = colptr && win && last && ncol && bnnz ? TC_OK : TC_ERR_NOMEM;
    if (!j->st)
        tiling_sweep(j, colptr, win, last, ncol, bnnz);
    free(colptr);
    free(win);
    free(last);
    free(ncol);
    free(bnnz);
    return NULL;
}

/* Runs the sweep; fills out and the per-window block counts. */
static tc_status tiling_run(const tc_csr *a, int h, int w, tc_tiling_stats *out,
                            int32_t *bpw, int64_t *nnz_hist, tc_error *err)
{
    window_range r[MAX_JOBS];
    tiling_job jobs[MAX_JOBS];
    int64_t area = (int64_t)h * w;
    int n = split_windows(a, h, out->windows, r);
    int64_t *hists = tc_calloc_array(n * (area + 1), sizeof *hists, err);
    if (!hists)
        return TC_ERR_NOMEM;
    for (int k = 0; k < n; k++)
        jobs[k] = (tiling_job){ .a = a, .h = h, .w = w, .r = r[k], .blocks_per_window = bpw,
                                .nnz_hist = hists + k * (area + 1) };
    tc_run_jobs(tiling_worker, jobs, sizeof jobs[0], n);
    tc_status st = TC_OK;
    for (int k = 0; k < n; k++) {
        if (jobs[k].st)
            st = tc_error_set(err, jobs[k].st, "out of memory tiling a %d x %d matrix",
                              a->rows, a->cols);
        for (int64_t v = 0; v <= area; v++)
            nnz_hist[v] += jobs[k].nnz_hist[v];
    }
    free(hists);
    return st;
}

tc_status tc_tiling_stats_compute(const tc_csr *a, int h, int w, tc_tiling_stats *out,
                                  tc_error *err)
{
    memset(out, 0, sizeof *out);
    if (h < 1 || w < 1 || (int64_t)h * w > MAX_BLOCK_AREA)
        return tc_error_set(err, TC_ERR_ARG, "bad TC block shape %dx%d (h, w >= 1, h * w <= %d)",
                            h, w, MAX_BLOCK_AREA);
    out->h = h;
    out->w = w;
    out->windows = window_count(a, h);
    int64_t area = (int64_t)h * w;
    int32_t *bpw = tc_malloc_array(out->windows, sizeof *bpw, err);
    int64_t *nnz_hist = bpw ? tc_calloc_array(area + 1, sizeof *nnz_hist, err) : NULL;
    tc_status st = nnz_hist ? tiling_run(a, h, w, out, bpw, nnz_hist, err) : TC_ERR_NOMEM;
    /* Blocks per window, over non-empty windows (003 Table 7): a histogram
       up to the largest count. */
    int32_t maxb = 0;
    for (int64_t i = 0; !st && i < out->windows; i++) {
        out->blocks += bpw[i];
        out->empty_windows += bpw[i] == 0;
        maxb = bpw[i] > maxb ? bpw[i] : maxb;
    }
    int64_t *bhist = st ? NULL : tc_calloc_array((int64_t)maxb + 1, sizeof *bhist, err);
    if (!st && !bhist)
        st = TC_ERR_NOMEM;
    if (!st) {
        for (int64_t i = 0; i < out->windows; i++)
            bhist[bpw[i]]++;
        bhist[0] = 0;
        dist_from_histogram(&out->blocks_per_window, bhist, (int64_t)maxb + 1);
        dist_from_histogram(&out->nnz_per_block, nnz_hist, area + 1);
        out->fill = out->blocks ? (double)a->nnz / ((double)out->blocks * (double)area) : 0;
    }
    free(bhist);
    free(nnz_hist);
    free(bpw);
    return st;
}

/* ---- whole-matrix figures ----------------------------------------------- */

/* A report being filled: the first failure is kept, later calls do nothing. */
typedef struct builder {
    tc_report *r;
    const char *section;
    tc_status st;
} builder;

static void put_int(builder *b, const char *key, int64_t v, const char *help)
{
    if (!b->st)
        b->st = tc_report_int(b->r, b->section, key, v, help);
}

static void put_num(builder *b, const char *key, double v, const char *help)
{
    if (!b->st)
        b->st = tc_report_num(b->r, b->section, key, v, help);
}

static void put_str(builder *b, const char *key, const char *v, const char *help)
{
    if (!b->st)
        b->st = tc_report_str(b->r, b->section, key, v, help);
}

/* PREFIX_min, _max, _mean, _sd, _cv, _p0 .. _p100 of d, helped by `what`. */
static void put_dist(builder *b, const char *prefix, const char *what, const tc_dist *d)
{
    static const struct { const char *name, *help; } moments[] = {
        { "min", "minimum" }, { "max", "maximum" }, { "mean", "mean" },
        { "sd", "standard deviation" }, { "cv", "coefficient of variation (sd / mean)" },
    };
    const double values[] = { d->min, d->max, d->mean, d->sd, d->cv };
    char key[64], help[160];
    for (int i = 0; i < 5; i++) {
        snprintf(key, sizeof key, "%s_%s", prefix, moments[i].name);
        snprintf(help, sizeof help, "%s: %s", what, moments[i].help);
        put_num(b, key, values[i], help);
    }
    for (int k = 0; k <= 10; k++) {
        snprintf(key, sizeof key, "%s_p%d", prefix, 10 * k);
        snprintf(help, sizeof help, "%s: %dth percentile (nearest rank)", what, 10 * k);
        put_num(b, key, d->decile[k], help);
    }
}

/* Sweeping rows in increasing order meets column j's entries (i, j) in
   increasing i. A = A^T exactly when those meet row j's entries in order:
   one cursor per row checks it in a single O(nnz) pass, no transpose. */
static tc_status check_symmetry(const tc_csr *a, int *pattern, int *values, tc_error *err)
{
    *pattern = *values = 0;
    if (a->rows != a->cols)
        return TC_OK;
    int64_t *cur = tc_malloc_array(a->rows, sizeof *cur, err);
    if (!cur)
        return TC_ERR_NOMEM;
    memcpy(cur, a->rowptr, (size_t)a->rows * sizeof *cur);
    int same_pattern = 1, same_values = 1;
    for (int32_t i = 0; i < a->rows && same_pattern; i++)
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
            int32_t j = a->colidx[e];
            int64_t t = cur[j]++;
            if (t >= a->rowptr[j + 1] || a->colidx[t] != i) {
                same_pattern = 0;
                break;
            }
            if (a->val && a->val[t] != a->val[e])
                same_values = 0;
        }
    for (int32_t j = 0; j < a->rows && same_pattern; j++)
        same_pattern = cur[j] == a->rowptr[j + 1];
    free(cur);
    *pattern = same_pattern;
    *values = same_pattern && same_values;
    return TC_OK;
}

static tc_status report_matrix(const tc_csr *a, builder *b, tc_error *err)
{
    int pattern_sym, values_sym;
    tc_status st = check_symmetry(a, &pattern_sym, &values_sym, err);
    if (st)
        return st;
    int64_t lower = 0, upper = 0;
    for (int32_t i = 0; i < a->rows; i++) {
        if (a->rowptr[i] == a->rowptr[i + 1])
            continue;
        int64_t lo = (int64_t)i - a->colidx[a->rowptr[i]];
        int64_t up = (int64_t)a->colidx[a->rowptr[i + 1] - 1] - i;
        lower = lo > lower ? lo : lower;
        upper = up > upper ? up : upper;
    }
    double cells = (double)a->rows * (double)a->cols;
    b->section = "matrix";
    put_int(b, "rows", a->rows, "number of rows");
    put_int(b, "cols", a->cols, "number of columns");
    put_int(b, "nnz", a->nnz, "stored nonzeros (symmetric sources expanded)");
    put_num(b, "density", cells > 0 ? (double)a->nnz / cells : 0, "nnz / (rows * cols)");
    put_str(b, "field", tc_field_name(a->field), "value type of the source");
    put_str(b, "symmetry", tc_symmetry_name(a->symmetry), "symmetry declared by the source");
    put_str(b, "pattern_symmetric", pattern_sym ? "yes" : "no",
            "A(i,j) stored exactly when A(j,i) is");
    put_str(b, "values_symmetric", values_sym ? "yes" : "no", "A(i,j) == A(j,i) everywhere");
    put_int(b, "bandwidth", lower > upper ? lower : upper, "max |i - j| over nonzeros");
    put_int(b, "lower_bandwidth", lower, "max i - j over nonzeros below the diagonal");
    put_int(b, "upper_bandwidth", upper, "max j - i over nonzeros above the diagonal");
    return b->st;
}

static tc_status report_rows(const tc_csr *a, builder *b, tc_error *err)
{
    int64_t maxlen = 0, empty = 0;
    for (int32_t i = 0; i < a->rows; i++) {
        int64_t len = a->rowptr[i + 1] - a->rowptr[i];
        maxlen = len > maxlen ? len : maxlen;
        empty += len == 0;
    }
    int64_t *hist = tc_calloc_array(maxlen + 1, sizeof *hist, err);
    if (!hist)
        return TC_ERR_NOMEM;
    for (int32_t i = 0; i < a->rows; i++)
        hist[a->rowptr[i + 1] - a->rowptr[i]]++;
    tc_dist d;
    dist_from_histogram(&d, hist, maxlen + 1);
    free(hist);
    b->section = "rows";
    put_int(b, "empty", empty, "rows without nonzeros");
    put_dist(b, "nnz", "nonzeros per row", &d);
    return b->st;
}

static tc_status report_columns(const tc_csr *a, builder *b, tc_error *err)
{
    int32_t *len = tc_calloc_array(a->cols, sizeof *len, err);
    if (!len)
        return TC_ERR_NOMEM;
    for (int64_t e = 0; e < a->nnz; e++)
        len[a->colidx[e]]++;
    int32_t maxlen = 0;
    int64_t empty = 0;
    for (int32_t c = 0; c < a->cols; c++) {
        maxlen = len[c] > maxlen ? len[c] : maxlen;
        empty += len[c] == 0;
    }
    int64_t *hist = tc_calloc_array((int64_t)maxlen + 1, sizeof *hist, err);
    if (!hist) {
        free(len);
        return TC_ERR_NOMEM;
    }
    for (int32_t c = 0; c < a->cols; c++)
        hist[len[c]]++;
    tc_dist d;
    dist_from_histogram(&d, hist, (int64_t)maxlen + 1);
    free(hist);
    free(len);
    b->section = "columns";
    put_int(b, "empty", empty, "columns without nonzeros");
    put_dist(b, "nnz", "nonzeros per column", &d);
    return b->st;
}

static tc_status report_tiling(const tc_csr *a, int h, int w, builder *b, tc_error *err)
{
    tc_tiling_stats t;
    tc_status st = tc_tiling_stats_compute(a, h, w, &t, err);
    if (st)
        return st;
    char section[32];
    snprintf(section, sizeof section, "tc%dx%d", h, w);
    b->section = section;
    put_int(b, "windows", t.windows, "row windows of h rows: ceil(rows / h)");
    put_int(b, "empty_windows", t.empty_windows, "row windows without nonzeros");
    put_int(b, "blocks", t.blocks, "TC blocks (TCB) after per-window column compaction");
    put_num(b, "fill", t.fill, "nnz / (blocks * h * w)");
    put_dist(b, "tcb_per_window", "TC blocks per non-empty row window", &t.blocks_per_window);
    put_dist(b, "nnz_per_tcb", "nonzeros per TC block", &t.nnz_per_block);
    b->section = NULL;  /* `section` goes out of scope */
    return b->st;
}

tc_status tc_stats_report(const tc_csr *a, int h, int w, tc_report *r, tc_error *err)
{
    builder b = { .r = r };
    tc_status st = report_matrix(a, &b, err);
    if (!st)
        st = report_rows(a, &b, err);
    if (!st)
        st = report_columns(a, &b, err);
    if (!st)
        st = report_tiling(a, h, w, &b, err);
    if (!st)
        st = tc_synergy_section(a, r, err);
    if (st == TC_ERR_NOMEM && b.st)
        tc_error_set(err, st, "out of memory filling the report");
    return st;
}
