/* model.c: the planner's model (model.h). A log-linear regression per
   format, fitted by bench/model-fit.py on measured speedups over cuSPARSE
   and kept as a data table in model_coef.h, predicts each format's speedup
   from figures of the matrix in each row order: nonzeros per 16 x 8
   tensor-core block, the spread of blocks over row windows and of row
   lengths, TCU-Synergy's alpha, n and the size. The figures are counting
   passes (tc_tiling_stats_compute, tc_synergy_compute), so the model in
   the given order costs a fraction of reading the matrix (bench/NOTES.md,
   "The planner's model"); the reorderings it
   also tries are those model_coef.h names, the ones the fit found to pay.
   A format not measured yet may have a prior instead (model_coef.h's
   tc_model_priors, bench/model-fit.py's PRIORS), used like a fitted row
   and said to be one in its reason. The code knows no format by name:
   every format of the registry is a candidate, those with neither are
   "not modelled". */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model.h"
#include "model_internal.h"
#include "model_coef.h"

/* The regressors of the fitted rows, in model_coef.h's coefficient order
   (bench/model-fit.py computes the same from the figures tcstat --advise
   reports): 1, ln nnz per block, blocks per window CV, row length CV,
   synergy alpha, log2 n, log10 nnz, ln mean row length. Logs of counts
   below 1 are taken at 1, so an empty or tiny matrix gives finite values,
   and each regressor is clamped to the range it had in the fit, so that a
   matrix unlike any measured (a 1 x 1) gets the prediction of the nearest
   measured one rather than an extrapolation. */
static void regressors(const tc_model_features *f, int32_t n, double x[TC_MODEL_NCOEF])
{
    double row_len = f->rows > 0 ? (double)f->nnz / (double)f->rows : 0;
    x[0] = 1;
    x[1] = log(fmax(f->nnz_per_block, 1));
    x[2] = f->blocks_per_window_cv;
    x[3] = f->row_length_cv;
    x[4] = f->synergy_alpha;
    x[5] = log2(fmax((double)n, 1));
    x[6] = log10(fmax((double)f->nnz, 1));
    x[7] = log(fmax(row_len, 1));
    for (int k = 0; k < TC_MODEL_NCOEF; k++)
        x[k] = fmin(fmax(x[k], tc_model_lo[k]), tc_model_hi[k]);
}

tc_status tc_model_features_compute(const tc_csr *a, tc_model_features *out, tc_error *err)
{
    memset(out, 0, sizeof *out);
    out->rows = a->rows;
    out->nnz = a->nnz;
    tc_tiling_stats t;
    tc_status st = tc_tiling_stats_compute(a, 16, 8, &t, err);
    if (st)
        return st;
    out->blocks = t.blocks;
    out->nnz_per_block = t.blocks > 0 ? (double)a->nnz / (double)t.blocks : 0;
    out->blocks_per_window_cv = t.blocks_per_window.cv;
    tc_synergy s;
    if ((st = tc_synergy_compute(a, 16, 16, &s, err)))
        return st;
    out->synergy_alpha = s.alpha;
    out->row_length_cv = tc_csr_row_length_cv(a);
    return TC_OK;
}

/* Format f's row in table t, or NULL. */
static const tc_model_row *row_in(const tc_model_row *t, const tc_format *f)
{
    for (int i = 0; t[i].format; i++)
        if (strcmp(t[i].format, tc_format_name(f)) == 0)
            return &t[i];
    return NULL;
}

/* 1 when format f's row is a prior (model_coef.h's tc_model_priors: a
   format not measured yet), not fitted. */
static int is_prior(const tc_format *f)
{
    return !row_in(tc_model_rows, f) && row_in(tc_model_priors, f);
}

/* The fitted row of format f, else its prior, or NULL. */
static const tc_model_row *row_of(const tc_format *f)
{
    const tc_model_row *r = row_in(tc_model_rows, f);
    return r ? r : row_in(tc_model_priors, f);
}

const char *tc_model_precision(const tc_format *f)
{
    if (tc_format_is_canonical(f))
        return "fp32";
    const tc_model_row *row = row_of(f);
    return row ? row->precision : NULL;
}

_Static_assert(sizeof tc_model_orders / sizeof *tc_model_orders <= TC_MODEL_MAX_ORDERS + 1,
               "model_coef.h names more reorderings than TC_MODEL_MAX_ORDERS");

const char *tc_model_fit_source(void)
{
    return TC_MODEL_FIT_SOURCE;
}

int tc_model_order_count(void)
{
    int n = 0;
    while (tc_model_orders[n])
        n++;
    return n;
}

const char *tc_model_order_at(int i)
{
    return i >= 0 && i < tc_model_order_count() ? tc_model_orders[i] : NULL;
}

double tc_model_predict(const tc_format *f, const tc_model_features *feat, int32_t n)
{
    if (tc_format_is_canonical(f))
        return 1;
    const tc_model_row *row = row_of(f);
    if (!row)
        return 0;
    if (feat->nnz == 0)
        return 0;
    double x[TC_MODEL_NCOEF], y = 0;
    regressors(feat, n, x);
    for (int k = 0; k < TC_MODEL_NCOEF; k++)
        y += row->coef[k] * x[k];
    return exp(y);
}

/* The candidate of format f in `order` with features feat. */
static void fill(tc_model_candidate *c, const char *order, const tc_format *f,
                 const tc_model_features *feat, int32_t n)
{
    c->order = order;
    c->format = f;
    c->predicted_speedup = tc_model_predict(f, feat, n);
    char where[96];
    if (strcmp(order, "given") == 0)
        snprintf(where, sizeof where, "in the given order");
    else
        snprintf(where, sizeof where, "after %s", order);
    if (tc_format_is_canonical(f))
        snprintf(c->reason, sizeof c->reason,
                 "cuSPARSE's best CSR algorithm, the baseline every prediction is relative to");
    else if (!row_of(f))
        snprintf(c->reason, sizeof c->reason,
                 "not modelled: no fitted row for %s (the timed levels try it when asked for all)",
                 tc_format_name(f));
    else if (feat->nnz == 0)
        snprintf(c->reason, sizeof c->reason, "no nonzeros %s: nothing for tensor cores", where);
    else if (is_prior(f))
        snprintf(c->reason, sizeof c->reason,
                 "not measured yet: %s predicted %.2fx %s, the prior of bench/model-fit.py "
                 "(no fitted row)", tc_format_name(f), c->predicted_speedup, where);
    else
        snprintf(c->reason, sizeof c->reason,
                 "%.1f nnz per 16x8 block %s, blocks per window CV %.2f, row length CV %.2f, "
                 "synergy alpha %.2f, n %d: %s predicted %.2fx",
                 feat->nnz_per_block, where, feat->blocks_per_window_cv, feat->row_length_cv,
                 feat->synergy_alpha, (int)n, tc_format_name(f), c->predicted_speedup);
}

/* > 0 when a ranks after b: best first. Equal predictions compare equal,
   and the stable sort below keeps them in the order they were listed
   (given order first, then registry order). */
static int by_speedup(const void *pa, const void *pb)
{
    const tc_model_candidate *a = pa, *b = pb;
    if (a->predicted_speedup != b->predicted_speedup)
        return a->predicted_speedup < b->predicted_speedup ? 1 : -1;
    return 0;
}

/* The features of a after reordering it with the method named `name`:
   from r where there is one, else run here. */
static tc_status reordered_features(const tc_csr *a, const char *name,
                                    const tc_model_reorderer *r, tc_model_features *out,
                                    tc_error *err)
{
    if (r) {
        const tc_csr *b = NULL;
        tc_status st = r->fn(r->ctx, name, &b, err);
        return st ? st : tc_model_features_compute(b, out, err);
    }
    const tc_reorder_method *m = tc_reorder_find(name);
    if (!m)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "the model names the reordering '%s', which is not registered",
                            name);
    tc_params defaults = { 0 };
    tc_perm *perm = NULL;
    tc_csr *b = NULL;
    tc_status st = tc_reorder_run(m, a, &defaults, &perm, NULL, err);
    if (!st)
        st = tc_csr_permute(a, perm, NULL, &b, err);
    if (!st)
        st = tc_model_features_compute(b, out, err);
    tc_csr_free(b);
    tc_perm_free(perm);
    return st;
}

tc_status tc_model_rank_features(const tc_model_features *feat, int nfeat,
                                 const char *const *orders, int32_t n,
                                 tc_model_candidate **out, int *count, tc_error *err)
{
    int nformats = tc_format_count();
    tc_model_candidate *c = tc_calloc_array((int64_t)nfeat * nformats, sizeof *c, err);
    if (!c)
        return TC_ERR_NOMEM;
    int k = 0;
    for (int o = 0; o < nfeat; o++)
        for (int i = 0; i < nformats; i++) {
            const tc_format *f = tc_format_at(i);
            /* cuSPARSE and the formats the model cannot judge are listed
               once, in the given order */
            if (o > 0 && (tc_format_is_canonical(f) || !row_of(f)))
                continue;
            fill(&c[k++], orders[o], f, &feat[o], n);
        }
    /* insertion sort: stable, and the lists are a few dozen entries */
    for (int i = 1; i < k; i++) {
        tc_model_candidate t = c[i];
        int j = i;
        for (; j > 0 && by_speedup(&c[j - 1], &t) > 0; j--)
            c[j] = c[j - 1];
        c[j] = t;
    }
    *out = c;
    *count = k;
    return TC_OK;
}

tc_status tc_model_features_orders(const tc_csr *a, int orders, const tc_model_reorderer *r,
                                   tc_model_features *feat, const char **names, int *nfeat,
                                   const tc_progress *progress, tc_error *err)
{
    int nord = 1 + (orders ? tc_model_order_count() : 0);
    names[0] = "given";
    tc_status st = tc_model_features_compute(a, &feat[0], err);
    tc_progress_report(progress, 1, nord);
    for (int o = 1; !st && o < nord; o++) {
        names[o] = tc_model_order_at(o - 1);
        st = reordered_features(a, names[o], r, &feat[o], err);
        tc_progress_report(progress, o + 1, nord);
    }
    *nfeat = st ? 0 : nord;
    return st;
}

tc_status tc_model_rank(const tc_csr *a, int32_t n, int orders, tc_model_candidate **out,
                        int *count, const tc_progress *progress, tc_error *err)
{
    return tc_model_rank_reordered(a, n, orders, NULL, out, count, progress, err);
}

tc_status tc_model_rank_reordered(const tc_csr *a, int32_t n, int orders,
                                  const tc_model_reorderer *r, tc_model_candidate **out,
                                  int *count, const tc_progress *progress, tc_error *err)
{
    *out = NULL;
    *count = 0;
    if (n < 1)
        return tc_error_set(err, TC_ERR_ARG, "the model needs n >= 1 columns, not %d", (int)n);
    tc_model_features feat[1 + TC_MODEL_MAX_ORDERS];
    const char *names[1 + TC_MODEL_MAX_ORDERS];
    int nfeat;
    tc_status st = tc_model_features_orders(a, orders, r, feat, names, &nfeat, progress, err);
    return st ? st : tc_model_rank_features(feat, nfeat, names, n, out, count, err);
}
