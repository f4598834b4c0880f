/*
 * rowsplit.c: the `rowsplit` format (rowsplit.h): the matrix in CSR plus
 * its cut into segments of about equal cost, for the CUDA-core kernel of
 * kernels/rowsplit.cu. The file layout and its invariants are in
 * man/tcf.h5.5; the cut and the kernel's work list in rowsplit_layout.c.
 */
#include "config.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rowsplit.h"
#include "fmtutil.h"

extern const tc_format tc_format_rowsplit;

enum { P_SEG, P_ORDER, P_SEGS, P_ROWCOST };  /* rowsplit_params' order, which tc_fmt_init keeps */
/* rowcost when the caller gives none (its declared default, 1, is what a
   file from before the parameter was cut with): on the social graphs
   fb100_Cornell5, tolokers and deezer_HU a cut that counts a row as two
   nonzeros ran 4-7% faster at n = 32 and 2-4% at 128 in the default cut,
   3-9% in cuts of one or two waves; bipartite 71000 1-3% faster but 1.5%
   slower in one wave, twitch_DE 1-3% slower at 32; a random graph of even
   degree, the R-MAT and lp_nug30 within 1%. 4 gained more on the social
   graphs but pushed the default cuts of bipartite 71000 and lp_nug30 at
   n = 32 past a wave: 18% and 37% slower (H200, bench/NOTES.md, "A row's
   cost in the cut"). Not every cut gains: circuit_4's at seg=64, rows
   longest first, ran 14% slower at 2 than at 1 at n = 128, so patient
   plans time each setting at 1 too (rowsplit_plan_params). */
#define DEFAULT_ROWCOST 2
/* Why seg must be more than rowcost, in the refusals of a build and of a
   file. */
#define PIECE_COST "(a piece of a split row costs its row and a nonzero at least)"
static const tc_param_def rowsplit_params[] = {
    { "seg", "most cost of a segment, its nonzeros plus rowcost times the rows of C it writes: "
             "larger means fewer segments and split rows, smaller more even work among the "
             "lanes (not given: 1.3 times the mean cost of a row, kept between 128 and the "
             "matrix's cost over 8192; more than rowcost)",
      128, TC_ROWSPLIT_SEG_MIN, 65536, 1 },
    { "order", "which rows run side by side: 0 the matrix's order, 1 longest rows first (C "
               "still comes out in the matrix's order; not given: 1 where row lengths vary "
               "much, coefficient of variation past 0.9, else 0)",
      0, 0, 1, 1 },
    { "segs", "at most this many segments: seg becomes the least cost that cuts the matrix into "
              "no more (0: seg as given or by default); a patient plan sets it to what one or two "
              "waves of the kernel hold on its GPU at its n",
      0, 0, 2147483647, 1 },
    { "rowcost", "what a row of C costs in a segment, in nonzeros: its store and the end of its "
                 "walk (not given: 2; a file without it was cut at 1)",
      1, 1, 64, 1 },
};

#define NPARAMS ((int)(sizeof rowsplit_params / sizeof rowsplit_params[0]))

/* seg when the caller gives none: 1.3 times the mean cost of a row (its
   nonzeros + rowcost), so that rows of about the typical cost stay whole,
   kept between 128 and the matrix's cost (nonzeros + rowcost x rows) over
   SEG_SPREAD, and more than rowcost.
   Whole rows: cutting rows of about the typical cost in two doubles the
   segments and makes every row pay the workspace (fence, atomic, second
   pass) while evening out nothing (bench/NOTES.md, "rowsplit": a dense
   random graph whose rows cost 133 ran 0.84x cuSPARSE cut at 128 and 1.09x
   whole). The spread: a group of lanes walks its segment one chunk of
   gathers after another, so a matrix must give the GPU enough segments to
   run side by side. Segments of 128 left most of it idle behind a few long
   chains on matrices of under a million nonzeros (at seg = cost / 8192:
   4elt 0.44 -> 0.88x cuSPARSE at n = 32, p2p-Gnutella31 0.63 -> 1.02x),
   and whole rows of 615 on a matrix of 512 rows ran 3.7x slower than rows
   cut at 128; past 128 on large matrices, 256's larger segments left
   power-law graphs under a wave (H100, NOTES, "Segments for small
   matrices"). */
#define SEG_SPREAD 8192
static int32_t default_seg(const tc_csr *a, int32_t rowcost)
{
    const double fixed = rowsplit_params[P_SEG].def, cap = rowsplit_params[P_SEG].max;
    const double cost = (double)a->nnz + (double)rowcost * a->rows;
    const double whole = ceil(1.3 * (a->rows ? cost / a->rows : 1.0));
    const double spread = ceil(cost / SEG_SPREAD);
    const double s = fmin(fmax(whole, fmin(spread, fixed)), fmax(spread, fixed));
    return (int32_t)fmin(fmax(s, rowcost + 1.0), cap);
}

/* order when the caller gives none: rows longest first where their
   lengths vary much (coefficient of variation past ORDER_CV: power-law
   graphs), where rows of about the same length share columns; else the
   matrix's own order, which on meshes and banded matrices is already local
   and on graphs of even degree is all a stable sort could give. 0.9 lets
   in user-item graphs of Pareto degrees (0.99-1.02 as bench/gen makes them:
   10-12% faster sorted at n = 32), and no shared matrix lies between 0.79
   and 1.0 (bench/NOTES.md, "rowsplit", "Rows longest first"). */
#define ORDER_CV 0.9
static int default_order(const tc_csr *a)
{
    return tc_csr_row_length_cv(a) > ORDER_CV;
}

static void rowsplit_free(tc_fmt *m)
{
    tc_rowsplit *r = (tc_rowsplit *)m;
    if (!r)
        return;
    tc_csr_free(r->a);
    tc_perm_free(r->rows);
    free(r->seg_row);
    free(r->seg_start);
    free(r);
}

static tc_rowsplit *rowsplit_new(tc_error *err)
{
    tc_rowsplit *r = calloc(1, sizeof *r);
    if (!r)
        tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    return r;
}

static tc_status rowsplit_build(const tc_csr *a, const tc_params *p, tc_fmt **out,
                                tc_error *err)
{
    tc_rowsplit *r = rowsplit_new(err);
    if (!r)
        return TC_ERR_NOMEM;
    tc_fmt_init(&r->base, &tc_format_rowsplit, a, p);
    /* the values used are stored with the file */
    if (tc_params_get(p, "rowcost", -1) < 0)
        r->base.params.kv[P_ROWCOST].value = DEFAULT_ROWCOST;
    r->rowcost = (int32_t)r->base.params.kv[P_ROWCOST].value;
    if (tc_params_get(p, "seg", -1) < 0)
        r->base.params.kv[P_SEG].value = default_seg(a, r->rowcost);
    if (tc_params_get(p, "order", -1) < 0)
        r->base.params.kv[P_ORDER].value = default_order(a);
    r->seg = (int32_t)r->base.params.kv[P_SEG].value;
    if (r->seg <= r->rowcost) {
        const int seg = r->seg, rowcost = r->rowcost;
        rowsplit_free(&r->base);
        return tc_error_set(err, TC_ERR_ARG,
                            "rowsplit: seg=%d must be more than rowcost=%d " PIECE_COST, seg,
                            rowcost);
    }
    tc_status st = TC_OK;
    if (r->base.params.kv[P_ORDER].value != 0)
        st = tc_reorder_run(tc_reorder_find("degree"), a, NULL, &r->rows, NULL, err);
    if (st == TC_OK)
        st = r->rows ? tc_csr_permute(a, r->rows, NULL, &r->a, err) : tc_csr_copy(a, &r->a, err);
    /* segs: seg from the cut of the rows as stored, kept with the file */
    const int64_t segs = (int64_t)r->base.params.kv[P_SEGS].value;
    if (st == TC_OK && segs > 0)
        r->base.params.kv[P_SEG].value = r->seg =
            tc_rowsplit_seg_for(r, segs, (int32_t)rowsplit_params[P_SEG].max);
    if (st == TC_OK)
        st = tc_rowsplit_cut(r, err);
    if (st != TC_OK) {
        rowsplit_free(&r->base);
        return st == TC_ERR_NOMEM ? tc_error_set(err, st, "rowsplit: out of memory") : st;
    }
    *out = &r->base;
    return TC_OK;
}

/* Stored row i is the matrix's row tc_rowsplit_row(r, i). */
static tc_status rowsplit_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    const tc_rowsplit *r = (const tc_rowsplit *)m;
    if (!r->rows)
        return tc_csr_copy(r->a, out, err);
    /* the matrix's row j is stored row old2new[j] */
    const tc_perm back = { r->rows->n, r->rows->old2new, r->rows->new2old };
    return tc_csr_permute(r->a, &back, NULL, out, err);
}

/* Row i of C (n columns) += the nonzeros k0 .. k1 - 1 of a times B. */
static void add_nonzeros(const tc_csr *a, int64_t k0, int64_t k1, const double *B, int64_t ldb,
                         int32_t n, double *crow)
{
    for (int64_t k = k0; k < k1; k++) {
        const double v = a->val ? a->val[k] : 1;
        const double *brow = B + (int64_t)a->colidx[k] * ldb;
        for (int32_t j = 0; j < n; j++)
            crow[j] += v * brow[j];
    }
}

/* C = A*B the way the kernel sums: whole rows straight into C, each piece
   of a split row into its own slot, then a split row's slots added in
   piece order. */
static tc_status rowsplit_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                                   double *C, int64_t ldc, tc_error *err)
{
    const tc_rowsplit *r = (const tc_rowsplit *)m;
    tc_status st = tc_fmt_spmm_start(m, B, ldb, n, C, ldc, err);
    tc_rowsplit_work_list w;
    if (st == TC_OK)
        st = tc_rowsplit_work(r, &w, err);
    if (st != TC_OK)
        return st;
    double *part = tc_calloc_array((int64_t)w.nslots * n + 1, sizeof *part, err);
    if (!part) {
        tc_rowsplit_work_free(&w);
        return TC_ERR_NOMEM;
    }
    for (int64_t s = 0; s < w.nseg; s++) {
        const tc_rowsplit_seg *g = &w.seg[s];
        if (g->slot >= 0) {
            add_nonzeros(r->a, g->nz0, g->nz1, B, ldb, n, part + (int64_t)g->slot * n);
            continue;
        }
        for (int32_t i = g->row0; i < g->row0 + g->nrows; i++)
            add_nonzeros(r->a, r->a->rowptr[i], r->a->rowptr[i + 1], B, ldb, n,
                         C + tc_rowsplit_row(r, i) * ldc);
    }
    for (int64_t s = 0; s < w.nseg; s++) {
        const tc_rowsplit_seg *g = &w.seg[s];
        if (g->slot < 0 || g->slot != g->first + g->parts - 1)
            continue;
        double *crow = C + tc_rowsplit_row(r, g->row0) * ldc;
        for (int32_t p = g->first; p <= g->slot; p++)
            for (int32_t j = 0; j < n; j++)
                crow[j] += part[(int64_t)p * n + j];
    }
    free(part);
    tc_rowsplit_work_free(&w);
    return TC_OK;
}

/* The GPU layout: int64 row pointers, int32 columns, float32 values, the
   work list (tc_rowsplit_seg per segment) and in order 1 the int32 row
   each stored row is. */
static int64_t rowsplit_bytes(const tc_fmt *m)
{
    const tc_rowsplit *r = (const tc_rowsplit *)m;
    return ((int64_t)m->rows + 1) * 8 + m->nnz * (4 + (m->has_values ? 4 : 0)) +
           r->nseg * (int64_t)sizeof(tc_rowsplit_seg) + (r->rows ? (int64_t)m->rows * 4 : 0);
}

/* ------------------------------------------------------------------ files */

static tc_status rowsplit_write_h5(const tc_fmt *m, tc_h5grp *g, tc_error *err)
{
    const tc_rowsplit *r = (const tc_rowsplit *)m;
    tc_status st = tc_h5grp_put(g, "row_ptr", TC_I64, (int64_t)m->rows + 1, r->a->rowptr, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "col_id", TC_I32, m->nnz, r->a->colidx, err);
    if (st == TC_OK && r->a->val)
        st = tc_h5grp_put(g, "values", TC_F64, m->nnz, r->a->val, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "seg_row", TC_I32, r->nseg, r->seg_row, err);
    if (st == TC_OK)
        st = tc_h5grp_put(g, "seg_start", TC_I64, r->nseg + 1, r->seg_start, err);
    if (st == TC_OK && r->rows)
        st = tc_h5grp_put(g, "row_order", TC_I32, m->rows, r->rows->new2old, err);
    return st;
}

/* row_order (order 1): a permutation of the rows, checked as one here. */
static tc_status read_row_order(tc_h5grp *g, tc_rowsplit *r, tc_error *err)
{
    int32_t *idx = NULL;
    tc_status st = tc_h5grp_get_n(g, "row_order", TC_I32, r->base.rows, (void **)&idx, err);
    if (st == TC_OK) {
        char what[300];
        snprintf(what, sizeof what, "%s/row_order", tc_h5grp_path(g));
        st = tc_perm_from_array(&r->rows, r->base.rows, idx, TC_PERM_NEW2OLD, what, err);
    }
    free(idx);
    return st;
}

/* The arrays with the lengths the header and seg_row imply; their contents
   are checked by rowsplit_validate. Every segment holds a row or a
   nonzero of its own, so there are at most rows + nnz of them. */
static tc_status read_arrays(tc_h5grp *g, tc_rowsplit *r, tc_error *err)
{
    const tc_fmt *h = &r->base;
    r->a = calloc(1, sizeof *r->a);
    if (!r->a)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    *r->a = (tc_csr){ .rows = h->rows, .cols = h->cols, .nnz = h->nnz,
                      .field = h->has_values ? TC_FIELD_REAL : TC_FIELD_PATTERN,
                      .symmetry = TC_SYM_GENERAL };
    tc_status st = tc_h5grp_get_n(g, "row_ptr", TC_I64, (int64_t)h->rows + 1, (void **)&r->a->rowptr, err);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "col_id", TC_I32, h->nnz, (void **)&r->a->colidx, err);
    if (st == TC_OK)
        st = tc_fmt_read_values(g, "values", h->nnz, h->has_values, &r->a->val, err);
    if (st == TC_OK)
        st = tc_h5grp_get(g, "seg_row", TC_I32, &r->nseg, (void **)&r->seg_row, 0, err);
    if (st == TC_OK && r->nseg > (int64_t)h->rows + h->nnz)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s/seg_row: %" PRId64 " segments, more than rows + nonzeros (%"
                            PRId64 ": each segment holds a row or a nonzero)",
                            tc_h5grp_path(g), r->nseg, (int64_t)h->rows + h->nnz);
    if (st == TC_OK)
        st = tc_h5grp_get_n(g, "seg_start", TC_I64, r->nseg + 1, (void **)&r->seg_start, err);
    if (st == TC_OK && tc_params_get(&h->params, "order", 0) != 0)
        st = read_row_order(g, r, err);
    return st;
}

static tc_status rowsplit_read_h5(tc_h5grp *g, const tc_fmt *hdr, tc_fmt **out, tc_error *err)
{
    tc_rowsplit *r = rowsplit_new(err);
    if (!r)
        return TC_ERR_NOMEM;
    r->base = *hdr;
    r->seg = (int32_t)tc_params_get(&hdr->params, "seg", rowsplit_params[P_SEG].def);
    r->rowcost = (int32_t)tc_params_get(&hdr->params, "rowcost", rowsplit_params[P_ROWCOST].def);
    tc_status st = read_arrays(g, r, err);
    if (st != TC_OK) {
        rowsplit_free(&r->base);
        return st;
    }
    *out = &r->base;
    return TC_OK;
}

/* ------------------------------------------------------------ validation */

/* seg_row: from row 0, not decreasing, in range; seg_start: from 0 to nnz,
   not decreasing. */
static tc_status check_segment_arrays(const tc_rowsplit *r, const char *what, tc_error *err)
{
    const int32_t rows = r->base.rows;
    if ((rows == 0) != (r->nseg == 0))
        return tc_error_set(err, TC_ERR_INVALID, "%s/seg_row: %" PRId64 " segments for %d rows "
                            "(every row is in a segment)", what, r->nseg, rows);
    for (int64_t s = 0; s < r->nseg; s++) {
        const int32_t row = r->seg_row[s], prev = s ? r->seg_row[s - 1] : 0;
        if (row < prev || row >= rows || (s == 0 && row != 0))
            return tc_error_set(err, TC_ERR_INVALID, "%s/seg_row[%" PRId64 "]: row %d after "
                                "row %d (from 0, not decreasing, below %d)", what, s, row, prev,
                                rows);
    }
    if (r->seg_start[0] != 0 || r->seg_start[r->nseg] != r->base.nnz)
        return tc_error_set(err, TC_ERR_INVALID, "%s/seg_start: runs from %" PRId64 " to %"
                            PRId64 ", expected 0 to %" PRId64 " (the nonzeros)", what,
                            r->seg_start[0], r->seg_start[r->nseg], r->base.nnz);
    for (int64_t s = 0; s < r->nseg; s++)
        if (r->seg_start[s + 1] < r->seg_start[s])
            return tc_error_set(err, TC_ERR_INVALID, "%s/seg_start[%" PRId64 "]: %" PRId64
                                " after %" PRId64 " (must not decrease)", what, s + 1,
                                r->seg_start[s + 1], r->seg_start[s]);
    return TC_OK;
}

/* Segment s: a piece holds one or more nonzeros of its row only and is
   followed by the next row; whole rows hold exactly their nonzeros; the
   cost of either at most seg. */
static tc_status check_segment(const tc_rowsplit *r, int64_t s, const char *what,
                               tc_error *err)
{
    const int64_t *rp = r->a->rowptr, k0 = r->seg_start[s], k1 = r->seg_start[s + 1];
    const int32_t row = r->seg_row[s];
    const int32_t next = s + 1 < r->nseg ? r->seg_row[s + 1] : r->base.rows;
    int64_t cost;
    if (tc_rowsplit_is_piece(r, s)) {
        if (next > row + 1)
            return tc_error_set(err, TC_ERR_INVALID, "%s/seg_row[%" PRId64 "]: row %d is split, "
                                "so the next segment must start at row %d, not %d", what, s,
                                row, row + 1, next);
        if (k1 <= k0 || k0 < rp[row] || k1 > rp[row + 1])
            return tc_error_set(err, TC_ERR_INVALID, "%s/seg_start[%" PRId64 "]: piece %" PRId64
                                " .. %" PRId64 " of split row %d is empty or outside its "
                                "nonzeros %" PRId64 " .. %" PRId64, what, s, k0, k1, row, rp[row],
                                rp[row + 1]);
        cost = k1 - k0 + r->rowcost;
    } else {
        if (k0 != rp[row] || k1 != rp[next])
            return tc_error_set(err, TC_ERR_INVALID, "%s/seg_start[%" PRId64 "]: nonzeros %"
                                PRId64 " .. %" PRId64 " for rows %d .. %d, expected %" PRId64
                                " .. %" PRId64, what, s, k0, k1, row, next - 1, rp[row],
                                rp[next]);
        cost = k1 - k0 + (int64_t)r->rowcost * (next - row);
    }
    if (cost > r->seg)
        return tc_error_set(err, TC_ERR_INVALID, "%s/seg_start[%" PRId64 "]: segment costs %"
                            PRId64 " (nonzeros + %d x rows), more than seg=%d", what, s, cost,
                            r->rowcost, r->seg);
    return TC_OK;
}

static tc_status rowsplit_validate(const tc_fmt *m, const tc_csr *a, const char *what,
                                   tc_error *err)
{
    const tc_rowsplit *r = (const tc_rowsplit *)m;
    char csr_what[300];
    snprintf(csr_what, sizeof csr_what, "%s/row_ptr, col_id", what);
    tc_status st = tc_fmt_check_values(m, r->a->val, "values", what, err);
    if (st == TC_OK && r->seg <= r->rowcost)
        st = tc_error_set(err, TC_ERR_INVALID, "%s: seg=%d is not more than rowcost=%d " PIECE_COST,
                          what, r->seg, r->rowcost);
    if (st == TC_OK)
        st = tc_csr_validate(r->a, csr_what, err);
    if (st == TC_OK)
        st = check_segment_arrays(r, what, err);
    for (int64_t s = 0; st == TC_OK && s < r->nseg; s++)
        st = check_segment(r, s, what, err);
    return st == TC_OK && a ? tc_fmt_check_decodes(m, a, what, err) : st;
}

/* ------------------------------------------------------------- statistics */

/* How even the work is: segments and their cost against seg (a lane group
   that gets a cheap segment idles while the others of its warp finish),
   and how many rows went through the workspace. */
static tc_status rowsplit_stats(const tc_fmt *m, tc_report *rep, const char *s, tc_error *err)
{
    const tc_rowsplit *r = (const tc_rowsplit *)m;
    int64_t pieces = 0, split = 0, cost = 0, max = 0;
    for (int64_t i = 0; i < r->nseg; i++) {
        const int64_t nz = r->seg_start[i + 1] - r->seg_start[i];
        const int64_t c = nz + (int64_t)r->rowcost * (tc_rowsplit_end_row(r, i) - r->seg_row[i]);
        const int piece = tc_rowsplit_is_piece(r, i);
        pieces += piece;
        split += piece && (i == 0 || r->seg_row[i - 1] != r->seg_row[i]);
        cost += c;
        max = c > max ? c : max;
    }
    const tc_fmt_figure f[] = {
        { "segments", "segments (units of work of one lane group)", 1, r->nseg, 0 },
        { "split_rows", "rows cut into pieces (summed through the workspace)", 1, split, 0 },
        { "pieces", "segments that are pieces of split rows", 1, pieces, 0 },
        { "cost_mean", "nonzeros + rowcost x rows per segment, mean", 0, 0,
          tc_fmt_ratio(cost, r->nseg) },
        { "cost_max", "nonzeros + rowcost x rows of the costliest segment", 1, max, 0 },
        { "fill", "mean cost / seg: how full segments are", 0, 0,
          tc_fmt_ratio(cost, r->nseg * (int64_t)r->seg) },
    };
    (void)err;
    return tc_fmt_report_figures(rep, s, f, sizeof f / sizeof f[0]);
}

/* What a patient plan times besides the defaults: the other row order,
   segments of 64 in either, and smaller segments (16-48) in the default
   order. On social graphs of 85-90 nonzeros a row the defaults left 5-19%
   and the best (seg, order) pair changed with n; on graphs of under a few
   million nonzeros at n = 32 and 64 the best seg was 16-64, mostly below
   defaults of 14-128, and up to 1.37x faster (bench/NOTES.md, "seg and
   order where cuSPARSE wins", "Smaller segments in plans"). Each again,
   and the defaults, with rows costing 1, as every cut did before rowcost:
   so no plan made then is out of a patient plan's reach. circuit_4 at
   n = 128 ran seg=64,order=1 in 35.5 us at 1 and 40.4 at 2, and lost 10%
   until it was (H200, bench/NOTES.md, "Every setting at rows costing 1
   too"). */
static const char *const rowsplit_plan_params[] = {
    "order=0", "order=1", "seg=64,order=0", "seg=64,order=1",
    "seg=16", "seg=24", "seg=32", "seg=48",
    "rowcost=1", "order=0,rowcost=1", "order=1,rowcost=1",
    "seg=64,order=0,rowcost=1", "seg=64,order=1,rowcost=1",
    "seg=16,rowcost=1", "seg=24,rowcost=1", "seg=32,rowcost=1", "seg=48,rowcost=1",
    NULL
};

/* A segment smaller than the default's buys more segments to run side by
   side at more fixed cost each. Where the default cut already gives this
   many (at least cost / seg; about 8 waves of an H200's resident groups of
   lanes at n = 32, more at larger n) it cannot pay: on R-MAT 2^22 x 16
   (555,000 and more at seg 128) every smaller seg lost, 1.424 ms at 128
   against 1.554-1.921 at 64-32 (bench/NOTES.md, "Smaller segments in
   plans"), and the graphs where they won had under 20,000. */
#define SMALL_SEG_MAX_SEGMENTS 131072.0
/* segs=N, which a plan sets to what one or two waves of the kernel hold
   (plan/gpu.c): a cut just past a whole wave ran 20-25% slower than one
   just under it (bench/NOTES.md, "Segments to just under a whole wave,
   again"); where the default cut has more than this many times N
   segments, the last wave's share of the time is small and the cut
   cannot pay. */
#define WAVE_SEGS_RANGE 4.0
/* With each wave's cut a patient plan also times rows that cost 1 and 4:
   in cuts of one or two waves, 4 ran 2-5% faster than the default 2 on
   social graphs at n = 128 and on bipartite 71000 at two waves at n = 32,
   1-3% slower on bipartite 71000 and deezer_HU at one wave, where 1, the
   cost before there was a parameter, was fastest (H200, bench/NOTES.md,
   "A row's cost in the cut"). */
static const char *const rowsplit_wave_params[] = { "rowcost=1", "rowcost=4", NULL };
static int rowsplit_plan_param_pays(const tc_csr *a, const char *setting)
{
    tc_params q = { 0 };
    const int parsed = tc_params_parse(&q, setting, NULL) == TC_OK;
    const double seg = parsed ? tc_params_get(&q, "seg", -1) : -1;
    const double segs = parsed ? tc_params_get(&q, "segs", 0) : 0;
    const int32_t rowcost = (int32_t)(parsed ? tc_params_get(&q, "rowcost", DEFAULT_ROWCOST)
                                             : DEFAULT_ROWCOST);
    const int32_t def = default_seg(a, rowcost);
    const double cut = ((double)a->nnz + (double)rowcost * a->rows) / def;
    if (segs > 0)
        return cut < WAVE_SEGS_RANGE * segs;
    return seg < 0 || seg >= def || cut < SMALL_SEG_MAX_SEGMENTS;
}

const tc_format tc_format_rowsplit = {
    .name = "rowsplit",
    .description = "CSR cut into segments of about equal cost (short rows packed, long rows "
                   "split), for CUDA cores on graphs too sparse for tensor-core blocks",
    .params = rowsplit_params,
    .nparams = NPARAMS,
    .canonical = 0,
    .build = rowsplit_build,
    .to_csr = rowsplit_to_csr,
    .spmm_ref = rowsplit_spmm_ref,
    .bytes = rowsplit_bytes,
    .write_h5 = rowsplit_write_h5,
    .read_h5 = rowsplit_read_h5,
    .validate = rowsplit_validate,
    .stats = rowsplit_stats,
    .nnz_part = NULL,
    .free = rowsplit_free,
    .plan_params = rowsplit_plan_params,
    .plan_param_pays = rowsplit_plan_param_pays,
    .wave_params = rowsplit_wave_params,
    .convert_used = 1,
};
