/*
 * brp.c: the `brp` format of BRP-SpMM (seed 000, Section IV): the rows cut
 * into windows of h rows; in each window the nonzeros taken in column-major
 * order (by column, then row) and dealt into TC blocks of h x w with exactly
 * f = 1 nonzero per local column ("Fixed Non-zero", IV-B a), g blocks making
 * a TC Block Group of G = g*w*f nonzeros (IV-B b); the last nnz_w mod G
 * nonzeros of the window, which cannot fill a whole group, go to the
 * Residual Row part, a CSR over the rows that have any (IV-C). The layout
 * is in brp.h; the file layout and its invariants in man/tcf.h5.5.
 *
 * One consequence shapes the whole file: a row's columns are sorted, so the
 * nonzeros of a row that come last in the window's column-major order are
 * the last ones of the row. The residual of every row is therefore the end
 * of its CSR row, already in row-major order (Alg. 1's second sort, line 38,
 * is not needed), and the TC part of the row is the rest.
 *
 * Only f = 1, the paper's only setting: the kernel gathers one row of B per
 * local column (old_col_id), so the f nonzeros of a local column must share
 * their original column, and a window's column with, say, 3 nonzeros
 * cannot be dealt into local columns of f = 2 without padding, which the
 * Fixed Non-zero rule excludes. The parameter exists (range [1, 1]) so that
 * files say what they hold.
 */
#include "config.h"
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "brp.h"
#include "fmtutil.h"
#include "threads.h"

extern const tc_format tc_format_brp;

/* local_id is one byte: h * w <= 256. */
#define MAX_BLOCK_AREA 256

static const tc_param_def brp_params[] = {
    { "h", "rows per row window (TC block height); h*w <= 256", 16, 1, 256, 1 },
    { "w", "local columns per TC block (TC block width); h*w <= 256", 8, 1, 256, 1 },
    { "f", "nonzeros per local column (Fixed Non-zero); only 1 is defined", 1, 1, 1, 1 },
    { "g", "TC blocks per TC Block Group", 4, 1, 256, 1 },
};
#define NPARAMS ((int)(sizeof brp_params / sizeof brp_params[0]))

/* h, w, f, g from a complete parameter set, and the one constraint between
   them that ranges cannot express (refused with status `bad`). */
static tc_status brp_shape(tc_brp *b, const tc_params *p, const char *who, tc_status bad,
                           tc_error *err)
{
    b->h = (int)tc_params_get(p, "h", 16);
    b->w = (int)tc_params_get(p, "w", 8);
    b->f = (int)tc_params_get(p, "f", 1);
    b->g = (int)tc_params_get(p, "g", 4);
    if (b->h * b->w > MAX_BLOCK_AREA)
        return tc_error_set(err, bad, "%s: h*w = %d exceeds %d (local_id is one byte)", who,
                            b->h * b->w, MAX_BLOCK_AREA);
    return TC_OK;
}

static int64_t window_count(int32_t rows, int h)
{
    return ((int64_t)rows + h - 1) / h;
}

static void brp_free(tc_fmt *m)
{
    tc_brp *b = (tc_brp *)m;
    if (!b)
        return;
    free(b->group_window_id);
    free(b->local_id);
    free(b->old_col_id);
    free(b->values);
    free(b->res_row_id);
    free(b->res_row_offset);
    free(b->res_col_id);
    free(b->res_values);
    free(b);
}

/* ---------------------------------------------------------------- build */

/* Windows are handed to threads in chunks of this many, in any order; each
   chunk's place in the arrays comes from a prefix sum over chunks, so the
   result does not depend on the thread count. */
#define CHUNK_WINDOWS 64
/* Below this many nonzeros a thread costs more than it saves. */
#define PARALLEL_MIN_NNZ (1 << 16)

/* What a chunk of windows holds (count pass), then where it goes (the
   exclusive prefix sums, fill pass). */
typedef struct chunk {
    int64_t groups, res_nnz, res_rows;
} chunk;

typedef struct build_ctx {
    const tc_csr *a;
    tc_brp *b;
    int64_t G;              /* nonzeros per group */
    int64_t windows, nchunks;
    chunk *chunks;
    _Atomic int64_t next;   /* the next chunk to take */
    int fill;               /* 0: count pass, 1: fill pass */
} build_ctx;

typedef struct build_worker {
    build_ctx *c;
    uint64_t *keys, *tmp;   /* fill pass: room for max_tc keys in h framed runs */
    int64_t max_tc;         /* count pass: the most TC nonzeros of a window */
} build_worker;

/* The rows [*r0, *r1) of window wi. */
static void window_rows(const tc_csr *a, int h, int64_t wi, int32_t *r0, int32_t *r1)
{
    int64_t end = (wi + 1) * h;
    *r0 = (int32_t)(wi * h);
    *r1 = end < a->rows ? (int32_t)end : a->rows;
}

/* The sort key of a window's nonzero in column-major order: column, then
   row within the window (h <= 256), plus one, so that TC_KEY_LOW and
   TC_KEY_HIGH can frame sorted runs (fmtutil.h). */
static inline uint64_t cm_key(int32_t col, int64_t local_row)
{
    return ((uint64_t)col << 8 | (uint64_t)local_row) + 1;
}
static inline int key_row(uint64_t key) { return (int)((key - 1) & 255); }
static inline int32_t key_col(uint64_t key) { return (int32_t)((key - 1) >> 8); }

/* Splits window wi (Section IV-B): of its nnz_w nonzeros in column-major
   order the first floor(nnz_w / G) * G are the TC part, the rest the
   residual. Sets tc_len[r] to the number of TC nonzeros of the window's
   row r, which are the first ones of the row (see the top of the file),
   and returns the number of rows with residual nonzeros. The residual,
   fewer than G nonzeros, is peeled from the back: each step takes the
   largest (column, row) among the rows' remaining last nonzeros. */
static int window_split(const tc_csr *a, int h, int64_t G, int64_t wi, int64_t *tc_len)
{
    int32_t r0, r1;
    window_rows(a, h, wi, &r0, &r1);
    const int64_t *rp = a->rowptr;
    int64_t nnz = rp[r1] - rp[r0], res = nnz % G;
    int no_group = res == nnz;  /* then every nonzero is residual */
    for (int32_t r = r0; r < r1; r++)
        tc_len[r - r0] = no_group ? 0 : rp[r + 1] - rp[r];
    for (int64_t k = no_group ? 0 : res; k > 0; k--) {
        int best = -1;
        uint64_t best_key = 0;
        for (int r = 0; r < r1 - r0; r++) {
            if (tc_len[r] == 0)
                continue;
            uint64_t key = cm_key(a->colidx[rp[r0 + r] + tc_len[r] - 1], r);
            if (best < 0 || key > best_key) {
                best = r;
                best_key = key;
            }
        }
        tc_len[best]--;
    }
    int rows = 0;
    for (int32_t r = r0; r < r1; r++)
        rows += tc_len[r - r0] < rp[r + 1] - rp[r];
    return rows;
}

/* Sorts the window's TC nonzeros into column-major order, all but the
   last merge: each row's TC nonzeros are already a sorted run, so runs
   are merged pairwise until at most two remain, which fill_groups merges
   as it writes them. Run k starts at bound[k] + 2k + 1 (room for its
   frame). Sets x, nx and y, ny to the two runs (y empty when one). */
static void window_sort(const tc_csr *a, int32_t r0, int32_t r1, const int64_t *tc_len,
                        uint64_t *keys, uint64_t *tmp, const uint64_t **x, int64_t *nx,
                        const uint64_t **y, int64_t *ny)
{
    static const uint64_t empty[2] = { TC_KEY_LOW, TC_KEY_HIGH };
    int64_t bound[MAX_BLOCK_AREA + 1];
    int runs = 0;
    bound[0] = 0;
    for (int32_t r = r0; r < r1; r++) {
        int64_t n = tc_len[r - r0];
        if (n == 0)
            continue;
        const int32_t *col = a->colidx + a->rowptr[r];
        uint64_t *k = keys + bound[runs] + 2 * runs + 1;
        k[-1] = TC_KEY_LOW;
        for (int64_t i = 0; i < n; i++)
            k[i] = cm_key(col[i], r - r0);
        k[n] = TC_KEY_HIGH;
        bound[runs + 1] = bound[runs] + n;
        runs++;
    }
    while (runs > 2) {
        int out = 0;
        /* bound[] is rewritten in place: entry out <= i is written only
           after entries i .. i + 2 were read. */
        for (int i = 0; i < runs; i += 2, out++) {
            int64_t lo = bound[i], mid = bound[i + 1];
            uint64_t *dst = tmp + lo + 2 * out + 1;
            if (i + 1 < runs)
                tc_merge_framed(keys + lo + 2 * i + 1, mid - lo, keys + mid + 2 * i + 3,
                       bound[i + 2] - mid, dst);
            else
                memcpy(dst - 1, keys + lo + 2 * i, (size_t)(mid - lo + 2) * sizeof *dst);
            bound[out] = lo;
        }
        bound[out] = bound[runs];
        runs = out;
        uint64_t *t = keys;
        keys = tmp;
        tmp = t;
    }
    *x = keys + 1;
    *nx = bound[1];
    *y = runs == 2 ? keys + bound[1] + 3 : empty + 1;
    *ny = runs == 2 ? bound[2] - bound[1] : 0;
}

/* Where fill_groups writes a window's TC nonzeros: entry i of the window
   goes to lid[i], col[i] and val[i] (NULL for a pattern matrix). */
typedef struct group_out {
    uint8_t *lid;
    int32_t *col;
    double *val;
    const double *src;      /* the CSR values */
    int w;
} group_out;

/* Entry i: the nonzero of key, whose value is src[at]. The i-th TC nonzero
   of the window sits in local column lc = i mod w of its block (f = 1;
   Alg. 1 line 28). */
static inline void put_tc(const group_out *o, int64_t i, int64_t lc, uint64_t key, int64_t at)
{
    o->lid[i] = (uint8_t)(key_row(key) * o->w + lc);
    o->col[i] = key_col(key);
    if (o->val)
        o->val[i] = o->src[at];
}

/* Writes window wi's TC Block Groups from group `grp` on (Alg. 1 lines
   8-12 and 27-30), merging the last two sorted runs as it goes, from both
   ends as tc_merge_framed does. A row's nonzeros come out of the column-major order
   in their CSR order, so the value of each is the next one of its row from
   the front (first[]), or the previous one from the back (last[]). */
static void fill_groups(const build_worker *wk, int64_t wi, const int64_t *tc_len,
                        int64_t grp)
{
    const build_ctx *c = wk->c;
    const tc_csr *a = c->a;
    tc_brp *b = c->b;
    int32_t r0, r1;
    window_rows(a, b->h, wi, &r0, &r1);
    int64_t ntc = 0, first[MAX_BLOCK_AREA], last[MAX_BLOCK_AREA];
    for (int32_t r = r0; r < r1; r++) {
        ntc += tc_len[r - r0];
        first[r - r0] = a->rowptr[r];
        last[r - r0] = a->rowptr[r] + tc_len[r - r0] - 1;
    }
    if (ntc == 0)
        return;
    for (int64_t k = 0; k < ntc / c->G; k++)
        b->group_window_id[grp + k] = (int32_t)wi;
    const uint64_t *fx, *fy;
    int64_t nx, ny;
    window_sort(a, r0, r1, tc_len, wk->keys, wk->tmp, &fx, &nx, &fy, &ny);
    const uint64_t *bx = fx + nx - 1, *by = fy + ny - 1;
    int64_t base = grp * c->G, i = 0, j = ntc - 1, lc = 0, lcb = (ntc - 1) % b->w;
    const group_out o = { b->local_id + base, b->old_col_id + base,
                       b->values ? b->values + base : NULL, a->val, b->w };
    for (; i < ntc / 2; i++, j--) {
        uint64_t p = *fx, q = *fy, u = *bx, v = *by;
        int front_y = q < p, back_x = u > v;
        uint64_t kf = front_y ? q : p, kb = back_x ? u : v;
        fx += !front_y;
        fy += front_y;
        bx -= back_x;
        by -= !back_x;
        put_tc(&o, i, lc, kf, first[key_row(kf)]++);
        put_tc(&o, j, lcb, kb, last[key_row(kb)]--);
        lc = lc + 1 == b->w ? 0 : lc + 1;
        lcb = lcb == 0 ? b->w - 1 : lcb - 1;
    }
    if (ntc & 1) {
        uint64_t kf = *fx < *fy ? *fx : *fy;
        put_tc(&o, i, lc, kf, first[key_row(kf)]);
    }
}

/* Writes window wi's residual rows from residual row `row` and residual
   nonzero `at` on: the end of each CSR row past its TC part. */
static void fill_residual(const build_ctx *c, int64_t wi, const int64_t *tc_len, int64_t row,
                          int64_t at)
{
    const tc_csr *a = c->a;
    tc_brp *b = c->b;
    int32_t r0, r1;
    window_rows(a, b->h, wi, &r0, &r1);
    for (int32_t r = r0; r < r1; r++) {
        int64_t from = a->rowptr[r] + tc_len[r - r0], n = a->rowptr[r + 1] - from;
        if (n == 0)
            continue;
        memcpy(b->res_col_id + at, a->colidx + from, (size_t)n * sizeof *a->colidx);
        if (b->res_values)
            memcpy(b->res_values + at, a->val + from, (size_t)n * sizeof *a->val);
        at += n;
        b->res_row_id[row] = r;
        b->res_row_offset[++row] = at;
    }
}

/* One chunk of windows: counted (count pass), or written from the chunk's
   offsets (fill pass). */
static void build_chunk(build_worker *wk, int64_t ci)
{
    build_ctx *c = wk->c;
    const int64_t *rp = c->a->rowptr;
    const int h = c->b->h;
    chunk at = c->fill ? c->chunks[ci] : (chunk){ 0, 0, 0 };
    int64_t tc_len[MAX_BLOCK_AREA];
    int64_t w1 = (ci + 1) * CHUNK_WINDOWS < c->windows ? (ci + 1) * CHUNK_WINDOWS : c->windows;
    for (int64_t wi = ci * CHUNK_WINDOWS; wi < w1; wi++) {
        int32_t r0, r1;
        window_rows(c->a, h, wi, &r0, &r1);
        int64_t nnz = rp[r1] - rp[r0], res = nnz % c->G, ntc = nnz - res;
        int rows = window_split(c->a, h, c->G, wi, tc_len);
        if (c->fill) {
            fill_groups(wk, wi, tc_len, at.groups);
            fill_residual(c, wi, tc_len, at.res_rows, at.res_nnz);
        } else if (ntc > wk->max_tc) {
            wk->max_tc = ntc;
        }
        at.groups += ntc / c->G;
        at.res_nnz += res;
        at.res_rows += rows;
    }
    if (!c->fill)
        c->chunks[ci] = at;
}

static void *build_run(void *arg)
{
    build_worker *wk = arg;
    for (;;) {
        int64_t ci = atomic_fetch_add(&wk->c->next, 1);
        if (ci >= wk->c->nchunks)
            return NULL;
        build_chunk(wk, ci);
    }
}

/* Runs the current pass over every chunk on n workers. */
static void build_pass(build_ctx *c, build_worker *wk, int n)
{
    atomic_store(&c->next, 0);
    tc_run_jobs(build_run, wk, sizeof *wk, n);
}

/* Turns the chunks' counts into their first group, residual row and
   residual nonzero; returns the totals. */
static chunk chunk_offsets(chunk *ch, int64_t n)
{
    chunk sum = { 0, 0, 0 };
    for (int64_t i = 0; i < n; i++) {
        chunk here = ch[i];
        ch[i] = sum;
        sum.groups += here.groups;
        sum.res_nnz += here.res_nnz;
        sum.res_rows += here.res_rows;
    }
    return sum;
}

static tc_status alloc_arrays(tc_brp *b, chunk total, int values, tc_error *err)
{
    int64_t G = tc_brp_group_nnz(b), ntc = total.groups * G;
    b->ngroups = total.groups;
    b->nres_rows = total.res_rows;
    b->group_window_id = tc_malloc_array(total.groups, sizeof *b->group_window_id, err);
    b->local_id = tc_malloc_array(ntc, sizeof *b->local_id, err);
    b->old_col_id = tc_malloc_array(ntc, sizeof *b->old_col_id, err);
    b->res_row_id = tc_malloc_array(total.res_rows, sizeof *b->res_row_id, err);
    b->res_row_offset = tc_malloc_array(total.res_rows + 1, sizeof *b->res_row_offset, err);
    b->res_col_id = tc_malloc_array(total.res_nnz, sizeof *b->res_col_id, err);
    if (values) {
        b->values = tc_malloc_array(ntc, sizeof *b->values, err);
        b->res_values = tc_malloc_array(total.res_nnz, sizeof *b->res_values, err);
    }
    if (!b->group_window_id || !b->local_id || !b->old_col_id || !b->res_row_id ||
        !b->res_row_offset || !b->res_col_id || (values && (!b->values || !b->res_values)))
        return TC_ERR_NOMEM;
    b->res_row_offset[0] = 0;
    return TC_OK;
}

/* The fill pass's scratch: two key buffers per worker, as long as the
   largest TC part of a window plus the frames of its runs. */
static tc_status alloc_scratch(build_worker *wk, int n, int64_t max_tc, int h, tc_error *err)
{
    for (int i = 0; i < n; i++) {
        wk[i].keys = tc_malloc_array(max_tc + 2 * h, sizeof *wk[i].keys, err);
        wk[i].tmp = tc_malloc_array(max_tc + 2 * h, sizeof *wk[i].tmp, err);
        if (!wk[i].keys || !wk[i].tmp)
            return TC_ERR_NOMEM;
    }
    return TC_OK;
}

/* Count pass, prefix sums, allocation, fill pass (Alg. 1 on the CPU: the
   windows are independent once their offsets are known). */
static tc_status build_arrays(const tc_csr *a, tc_brp *b, tc_error *err)
{
    build_ctx c = { .a = a, .b = b, .G = tc_brp_group_nnz(b) };
    c.windows = window_count(a->rows, b->h);
    c.nchunks = (c.windows + CHUNK_WINDOWS - 1) / CHUNK_WINDOWS;
    c.chunks = tc_calloc_array(c.nchunks, sizeof *c.chunks, err);
    if (!c.chunks)
        return TC_ERR_NOMEM;
    int64_t n = a->nnz < PARALLEL_MIN_NNZ ? 1 : tc_default_threads();
    n = n > TC_MAX_JOBS ? TC_MAX_JOBS : n > c.nchunks ? c.nchunks : n;
    n = n < 1 ? 1 : n;
    build_worker wk[TC_MAX_JOBS];
    for (int i = 0; i < n; i++)
        wk[i] = (build_worker){ .c = &c };
    build_pass(&c, wk, (int)n);
    int64_t max_tc = 0;
    for (int i = 0; i < n; i++)
        max_tc = wk[i].max_tc > max_tc ? wk[i].max_tc : max_tc;
    tc_status st = alloc_arrays(b, chunk_offsets(c.chunks, c.nchunks), a->val != NULL, err);
    if (st == TC_OK)
        st = alloc_scratch(wk, (int)n, max_tc, b->h, err);
    if (st == TC_OK) {
        c.fill = 1;
        build_pass(&c, wk, (int)n);
    }
    for (int i = 0; i < n; i++) {
        free(wk[i].keys);
        free(wk[i].tmp);
    }
    free(c.chunks);
    return st;
}

static tc_status brp_build(const tc_csr *a, const tc_params *p, tc_fmt **out, tc_error *err)
{
    tc_brp *b = calloc(1, sizeof *b);
    if (!b)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_fmt_init(&b->base, &tc_format_brp, a, p);
    tc_status st = brp_shape(b, &b->base.params, "brp", TC_ERR_ARG, err);
    if (st == TC_OK)
        st = build_arrays(a, b, err);
    if (st != TC_OK) {
        brp_free(&b->base);
        return st == TC_ERR_NOMEM ? tc_error_set(err, st, "brp: out of memory") : st;
    }
    *out = &b->base;
    return TC_OK;
}

/* ------------------------------------------------------------ decoding */

/* The row within its window of every local_id (local_id / w), so that
   loops over TC nonzeros need no division. */
static void local_rows(const tc_brp *b, uint8_t lrow[MAX_BLOCK_AREA])
{
    for (int i = 0; i < MAX_BLOCK_AREA; i++)
        lrow[i] = (uint8_t)(i / b->w);
}

/* Exact decode. Relies on the order validate checks: in each window the TC
   nonzeros in column-major order and each row's residual after its TC
   part, so that every row comes out sorted with no further work. */
static tc_status brp_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    const tc_brp *b = (const tc_brp *)m;
    int64_t G = tc_brp_group_nnz(b);
    tc_csr *a;
    tc_status st = tc_csr_alloc(&a, m->rows, m->cols, m->nnz, m->has_values, err);
    if (st != TC_OK)
        return st;
    uint8_t lrow[MAX_BLOCK_AREA];
    local_rows(b, lrow);
    int64_t *rp = a->rowptr;
    for (int64_t gi = 0, e = 0; gi < b->ngroups; gi++) {
        int64_t *grp = rp + 1 + (int64_t)b->group_window_id[gi] * b->h;
        for (int64_t end = e + G; e < end; e++)
            grp[lrow[b->local_id[e]]]++;
    }
    const tc_residual res = TC_RESIDUAL_OF(b);
    tc_residual_count(&res, rp + 1);
    for (int32_t r = 0; r < a->rows; r++)
        rp[r + 1] += rp[r];
    /* rp[r] runs ahead as row r fills, ending at rp[r + 1]; shifted back
       below. */
    for (int64_t gi = 0, e = 0; gi < b->ngroups; gi++) {
        int64_t *grp = rp + (int64_t)b->group_window_id[gi] * b->h;
        for (int64_t end = e + G; e < end; e++) {
            int64_t at = grp[lrow[b->local_id[e]]]++;
            a->colidx[at] = b->old_col_id[e];
            if (a->val)
                a->val[at] = b->values[e];
        }
    }
    tc_residual_fill(&res, a, rp);
    memmove(rp + 1, rp, (size_t)a->rows * sizeof *rp);
    rp[0] = 0;
    *out = a;
    return TC_OK;
}

/* C = A*B straight from the two parts, as the two kernels compute it: each
   TC nonzero at its row (window * h + local row) and old column, then the
   residual rows added. */
static tc_status brp_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                              double *C, int64_t ldc, tc_error *err)
{
    const tc_brp *b = (const tc_brp *)m;
    tc_status st = tc_fmt_spmm_start(m, B, ldb, n, C, ldc, err);
    if (st != TC_OK)
        return st;
    int64_t G = tc_brp_group_nnz(b);
    uint8_t lrow[MAX_BLOCK_AREA];
    local_rows(b, lrow);
    for (int64_t gi = 0, e = 0; gi < b->ngroups; gi++) {
        int64_t row0 = (int64_t)b->group_window_id[gi] * b->h;
        for (int64_t end = e + G; e < end; e++) {
            double v = b->values ? b->values[e] : 1;
            const double *brow = B + (int64_t)b->old_col_id[e] * ldb;
            double *crow = C + (row0 + lrow[b->local_id[e]]) * ldc;
            for (int32_t j = 0; j < n; j++)
                crow[j] += v * brow[j];
        }
    }
    const tc_residual res = TC_RESIDUAL_OF(b);
    tc_residual_spmm(&res, B, ldb, n, C, ldc);
    return TC_OK;
}

/* The GPU layout: int32 group_window_id, uint8 local_id, int32 old_col_id,
   float32 values; int32 res_row_id, int64 res_row_offset, int32 res_col_id,
   float32 res_values. */
static int64_t brp_bytes(const tc_fmt *m)
{
    const tc_brp *b = (const tc_brp *)m;
    const tc_residual res = TC_RESIDUAL_OF(b);
    int64_t ntc = b->ngroups * tc_brp_group_nnz(b);
    return b->ngroups * 4 + ntc * (1 + 4 + (m->has_values ? 4 : 0)) +
           tc_residual_bytes(&res, m->has_values);
}

/* Which nonzeros of a lie in which part: a row's residual nonzeros are the
   end of its CSR row. */
static tc_status brp_nnz_part(const tc_fmt *m, const tc_csr *a, uint8_t *part, tc_error *err)
{
    const tc_brp *b = (const tc_brp *)m;
    if (a->rows != m->rows || a->cols != m->cols || a->nnz != m->nnz)
        return tc_error_set(err, TC_ERR_ARG, "brp: the matrix is not the one the format encodes");
    memset(part, 0, (size_t)a->nnz);
    for (int64_t i = 0; i < b->nres_rows; i++) {
        int32_t r = b->res_row_id[i];
        int64_t n = b->res_row_offset[i + 1] - b->res_row_offset[i];
        if (n > a->rowptr[r + 1] - a->rowptr[r])
            return tc_error_set(err, TC_ERR_ARG,
                                "brp: row %d has fewer nonzeros than its residual part", r);
        memset(part + a->rowptr[r + 1] - n, 1, (size_t)n);
    }
    return TC_OK;
}

/* ------------------------------------------------------------------ files */

static tc_status brp_write_h5(const tc_fmt *m, tc_h5grp *g, tc_error *err)
{
    const tc_brp *b = (const tc_brp *)m;
    const tc_residual res = TC_RESIDUAL_OF(b);
    int64_t ntc = b->ngroups * tc_brp_group_nnz(b);
    tc_status st = tc_h5grp_put(g, "group_window_id", TC_I32, b->ngroups, b->group_window_id, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "local_id", TC_U8, ntc, b->local_id, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "old_col_id", TC_I32, ntc, b->old_col_id, err);
    if (st == TC_OK && b->values)
        st = tc_h5grp_put(g, "values", TC_F64, ntc, b->values, err);
    if (st == TC_OK)
        st = tc_residual_write(g, &res, err);
    return st;
}

/* Reads the arrays with the lengths the parameters and the generic header
   imply; their contents are checked by brp_validate. */
static tc_status read_arrays(tc_h5grp *g, tc_brp *b, tc_error *err)
{
    int64_t G = tc_brp_group_nnz(b);
    tc_status st = tc_h5grp_get(g, "group_window_id", TC_I32, &b->ngroups,
                                (void **)&b->group_window_id, 0, err);
    if (st != TC_OK)
        return st;
    if (b->ngroups > b->base.nnz / G)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s/group_window_id: %" PRId64 " groups of %" PRId64
                            " nonzeros exceed the %" PRId64 " nonzeros of the matrix",
                            tc_h5grp_path(g), b->ngroups, G, b->base.nnz);
    int64_t ntc = b->ngroups * G, nres = b->base.nnz - ntc;
    st = tc_h5grp_get_n(g, "local_id", TC_U8, ntc, (void **)&b->local_id, err);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "old_col_id", TC_I32, ntc, (void **)&b->old_col_id, err);
    if (st == TC_OK)
        st = tc_fmt_read_values(g, "values", ntc, b->base.has_values, &b->values, err);
    tc_residual res = { 0 };
    if (st == TC_OK)
        st = tc_residual_read(g, nres, b->base.has_values, &res, err);
    b->nres_rows = res.nrows;
    b->res_row_id = res.row_id;
    b->res_row_offset = res.row_offset;
    b->res_col_id = res.col_id;
    b->res_values = res.values;
    return st;
}

static tc_status brp_read_h5(tc_h5grp *g, const tc_fmt *hdr, tc_fmt **out, tc_error *err)
{
    tc_brp *b = calloc(1, sizeof *b);
    if (!b)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    b->base = *hdr;
    tc_status st = brp_shape(b, &hdr->params, tc_h5grp_path(g), TC_ERR_FORMAT, err);
    if (st == TC_OK)
        st = read_arrays(g, b, err);
    if (st != TC_OK) {
        brp_free(&b->base);
        return st;
    }
    *out = &b->base;
    return TC_OK;
}

/* ------------------------------------------------------------ validation */

/* Group gi's nonzeros (Section IV-C): every local_id inside its block and
   its row inside the matrix; entry i of a block in local column i mod w
   (f = 1: one nonzero per local column); columns in range; the window's
   nonzeros in strictly increasing column-major order, *prev being the key
   of the one before (TC_KEY_LOW at a window's first group). */
static tc_status check_group(const tc_brp *b, int64_t gi, const uint8_t *lrow, uint64_t *prev,
                             const char *what, tc_error *err)
{
    const int64_t G = tc_brp_group_nnz(b), row0 = (int64_t)b->group_window_id[gi] * b->h;
    const int hw = b->h * b->w;
    for (int64_t e = gi * G, lc = 0; e < (gi + 1) * G; e++, lc = lc + 1 == b->w ? 0 : lc + 1) {
        int32_t col = b->old_col_id[e];
        int lid = b->local_id[e];
        int64_t row = row0 + lrow[lid];
        if (lid >= hw)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/local_id[%" PRId64 "]: %d is not below h*w = %d", what, e,
                                lid, hw);
        if (row >= b->base.rows)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/local_id[%" PRId64 "]: row %" PRId64 " of window %d is "
                                "outside the matrix (%d rows)", what, e, row,
                                b->group_window_id[gi], b->base.rows);
        if (lid - lrow[lid] * b->w != lc)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/local_id[%" PRId64 "]: local column %d, expected %d "
                                "(one nonzero per local column, in order)", what, e,
                                lid - lrow[lid] * b->w, (int)lc);
        if (col < 0 || col >= b->base.cols)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/old_col_id[%" PRId64 "]: column %d is out of range "
                                "(%d columns)", what, e, col, b->base.cols);
        uint64_t key = cm_key(col, lrow[lid]);
        if (key <= *prev)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/old_col_id[%" PRId64 "]: column %d row %" PRId64 " does "
                                "not follow column %d row %" PRId64 " (a window's TC nonzeros "
                                "are in column-major order)", what, e, col, row,
                                key_col(*prev), row0 + key_row(*prev));
        *prev = key;
    }
    return TC_OK;
}

/* The TC part: window ids in range and ascending, then each group. */
static tc_status check_groups(const tc_brp *b, const char *what, tc_error *err)
{
    const int64_t windows = window_count(b->base.rows, b->h);
    uint8_t lrow[MAX_BLOCK_AREA];
    local_rows(b, lrow);
    uint64_t prev = TC_KEY_LOW;
    for (int64_t gi = 0; gi < b->ngroups; gi++) {
        int32_t wid = b->group_window_id[gi];
        if (wid < 0 || wid >= windows)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/group_window_id[%" PRId64 "]: window %d is out of range "
                                "(%" PRId64 " windows of %d rows)", what, gi, wid, windows, b->h);
        if (gi > 0 && wid < b->group_window_id[gi - 1])
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/group_window_id[%" PRId64 "]: window %d after window %d "
                                "(must be ascending)", what, gi, wid, b->group_window_id[gi - 1]);
        if (gi > 0 && wid != b->group_window_id[gi - 1])
            prev = TC_KEY_LOW;
        tc_status st = check_group(b, gi, lrow, &prev, what, err);
        if (st != TC_OK)
            return st;
    }
    return TC_OK;
}

/* The split between the parts (Section IV-B): in each window the residual
   nonzeros come after the TC ones in column-major order, and are fewer
   than a group. Groups and residual rows are walked together, both in
   window order. */
static tc_status check_split(const tc_brp *b, const char *what, tc_error *err)
{
    const int64_t G = tc_brp_group_nnz(b);
    int64_t gi = 0, window = -1, count = 0;
    for (int64_t i = 0; i < b->nres_rows; i++) {
        int32_t r = b->res_row_id[i];
        int64_t wid = r / b->h, first = b->res_row_offset[i];
        count = wid == window ? count : 0;
        window = wid;
        count += b->res_row_offset[i + 1] - first;
        if (count >= G)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_row_offset: window %" PRId64 " has %" PRId64
                                " residual nonzeros, not fewer than g*w*f = %" PRId64, what,
                                wid, count, G);
        while (gi < b->ngroups && b->group_window_id[gi] <= wid)
            gi++;
        if (gi == 0 || b->group_window_id[gi - 1] != wid)
            continue;   /* the window has no group */
        int64_t last = gi * G - 1;
        uint64_t tc_key = cm_key(b->old_col_id[last], b->local_id[last] / b->w);
        if (cm_key(b->res_col_id[first], r % b->h) <= tc_key)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/res_col_id[%" PRId64 "]: column %d row %d comes before the "
                                "last TC nonzero of window %" PRId64 " (column %d) in "
                                "column-major order", what, first, b->res_col_id[first], r, wid,
                                b->old_col_id[last]);
    }
    return TC_OK;
}

static tc_status brp_validate(const tc_fmt *m, const tc_csr *a, const char *what,
                              tc_error *err)
{
    const tc_brp *b = (const tc_brp *)m;
    const tc_residual res = TC_RESIDUAL_OF(b);
    tc_status st = tc_fmt_check_values(m, b->values, "values", what, err);
    if (st == TC_OK)
        st = tc_fmt_check_values(m, b->res_values, "res_values", what, err);
    if (st == TC_OK)
        st = check_groups(b, what, err);
    if (st == TC_OK)
        st = tc_residual_check(&res, m->nnz - b->ngroups * tc_brp_group_nnz(b), m->rows,
                               m->cols, what, err);
    if (st == TC_OK)
        st = check_split(b, what, err);
    if (st == TC_OK && a)
        st = tc_fmt_check_decodes(m, a, what, err);
    return st;
}

/* ------------------------------------------------------------- statistics */

static tc_status brp_stats(const tc_fmt *m, tc_report *r, const char *s, tc_error *err)
{
    const tc_brp *b = (const tc_brp *)m;
    int64_t ntc = b->ngroups * tc_brp_group_nnz(b), with_groups = 0;
    for (int64_t gi = 0; gi < b->ngroups; gi++)
        with_groups += gi == 0 || b->group_window_id[gi] != b->group_window_id[gi - 1];
    tc_status st = tc_report_int(r, s, "groups", b->ngroups, "TC Block Groups of g*w*f nonzeros");
    if (!st)
        st = tc_report_int(r, s, "tc_nnz", ntc, "nonzeros in the TC Block part (tensor cores)");
    if (!st)
        st = tc_report_num(r, s, "tc_share", m->nnz ? (double)ntc / (double)m->nnz : 0,
                           "share of nonzeros in the TC Block part (000 Fig. 9)");
    if (!st)
        st = tc_report_int(r, s, "residual_nnz", m->nnz - ntc,
                           "nonzeros in the Residual Row part (CUDA cores)");
    if (!st)
        st = tc_report_int(r, s, "residual_rows", b->nres_rows, "rows with residual nonzeros");
    if (!st)
        st = tc_report_int(r, s, "windows", window_count(m->rows, b->h), "row windows of h rows");
    if (!st)
        st = tc_report_int(r, s, "windows_with_groups", with_groups,
                           "row windows with at least one TC Block Group");
    return st;
}

/* Windows of h rows; a group's local columns name single columns of B. */
static void brp_window_shape(const tc_fmt *m, int32_t *window_rows, int32_t *col_unit)
{
    *window_rows = ((const tc_brp *)m)->h;
    *col_unit = 1;
}

const tc_format tc_format_brp = {
    .name = "brp",
    .description = "BRP-SpMM block-row partition: TC Block Groups (one nonzero per "
                   "local column) for tensor cores, residual rows for CUDA cores",
    .params = brp_params,
    .nparams = NPARAMS,
    .canonical = 0,
    .build = brp_build,
    .to_csr = brp_to_csr,
    .spmm_ref = brp_spmm_ref,
    .bytes = brp_bytes,
    .write_h5 = brp_write_h5,
    .read_h5 = brp_read_h5,
    .validate = brp_validate,
    .stats = brp_stats,
    .nnz_part = brp_nnz_part,
    .window_shape = brp_window_shape,
    .free = brp_free,
};
