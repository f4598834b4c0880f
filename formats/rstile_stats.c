/*
 * rstile_stats.c: the rstile format's figures for tcstat, with Fig. 14's
 * curve.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>

#include "fmtutil.h"
#include "rstile_internal.h"

/* ------------------------------------------------------------- statistics */

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
            n += tc_rstile_tc_rows_of(x, row0, &s) == 0;
    }
    return n;
}

tc_status tc_rstile_stats(const tc_fmt *m, tc_report *r, const char *s, tc_error *err)
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
        st = tc_rstile_to_csr(m, &a, err);
    if (st == TC_OK)
        st = tc_rstile_survey(a, &cv, err);
    if (st == TC_OK)
        st = report_curve(&cv, m->nnz, r, s);
    tc_csr_free(a);
    return st;
}
