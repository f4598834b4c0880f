/* advise.c: tc_plan_advise, the model's ranking as a report (tcstat
   --advise): section "advice" (n, the accuracy asked, where the
   coefficients came from, how many candidates), one section "advice.R" per
   candidate of rank R (order, format, precision, predicted speedup,
   reason), and the figures it was predicted from, "features.ORDER" per row
   order (bench/model-fit.py fits on these). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include "model_internal.h"
#include "tcsparse_plan.h"

/* 1 when candidate c's precision meets `accuracy` (NULL: any). A format
   whose precision the model does not know cannot be shown to meet one. */
static int meets(const tc_model_candidate *c, const char *accuracy)
{
    return tc_precision_meets(tc_model_precision(c->format), accuracy);
}

static tc_status put_features(tc_report *r, const char *order, const tc_model_features *f)
{
    char sec[96];
    snprintf(sec, sizeof sec, "features.%s", order);
    tc_status st;
    (void)((st = tc_report_int(r, sec, "rows", f->rows, NULL)) ||
           (st = tc_report_int(r, sec, "nnz", f->nnz, NULL)) ||
           (st = tc_report_int(r, sec, "blocks", f->blocks, "16x8 tensor-core blocks")) ||
           (st = tc_report_num(r, sec, "nnz_per_block", f->nnz_per_block, NULL)) ||
           (st = tc_report_num(r, sec, "blocks_per_window_cv", f->blocks_per_window_cv,
                               NULL)) ||
           (st = tc_report_num(r, sec, "row_length_cv", f->row_length_cv, NULL)) ||
           (st = tc_report_num(r, sec, "synergy_alpha", f->synergy_alpha,
                               "TCU-Synergy at 16x16")));
    return st;
}

static tc_status put_candidate(tc_report *r, int rank, const tc_model_candidate *c)
{
    char sec[32];
    snprintf(sec, sizeof sec, "advice.%d", rank);
    const char *prec = tc_model_precision(c->format);
    tc_status st;
    (void)((st = tc_report_str(r, sec, "order", c->order, NULL)) ||
           (st = tc_report_str(r, sec, "format", tc_format_name(c->format), NULL)) ||
           (st = tc_report_str(r, sec, "precision", prec ? prec : "unknown", NULL)) ||
           (st = tc_report_num(r, sec, "predicted_speedup", c->predicted_speedup,
                               "over cuSPARSE (0: not modelled)")) ||
           (st = tc_report_str(r, sec, "reason", c->reason, NULL)));
    return st;
}

tc_status tc_plan_advise(const tc_csr *a, int32_t n, const char *accuracy, tc_report *r,
                         const tc_progress *progress, tc_error *err)
{
    if (accuracy && tc_tolerance(accuracy) == 0)
        return tc_error_set(err, TC_ERR_ARG,
                            "accuracy '%s': expected fp32, tf32 or fp16", accuracy);
    if (n < 1)
        return tc_error_set(err, TC_ERR_ARG, "the model needs n >= 1 columns, not %d", (int)n);
    tc_model_features feat[1 + TC_MODEL_MAX_ORDERS];
    const char *names[1 + TC_MODEL_MAX_ORDERS];
    int nfeat, count = 0;
    tc_model_candidate *c = NULL;
    tc_status st = tc_model_features_orders(a, 1, NULL, feat, names, &nfeat, progress, err);
    if (!st)
        st = tc_model_rank_features(feat, nfeat, names, n, &c, &count, err);
    int kept = 0;
    for (int i = 0; !st && i < count; i++)
        kept += meets(&c[i], accuracy);
    if (!st)
        (void)((st = tc_report_int(r, "advice", "n", n, "columns of B")) ||
               (st = tc_report_str(r, "advice", "accuracy", accuracy ? accuracy : "any",
                                   NULL)) ||
               (st = tc_report_str(r, "advice", "model", tc_model_fit_source(),
                                   "fitted at commit, on")) ||
               (st = tc_report_int(r, "advice", "candidates", kept, NULL)));
    for (int i = 0, rank = 0; !st && i < count; i++)
        if (meets(&c[i], accuracy))
            st = put_candidate(r, ++rank, &c[i]);
    for (int o = 0; !st && o < nfeat; o++)
        st = put_features(r, names[o], &feat[o]);
    free(c);
    if (st == TC_ERR_NOMEM)
        tc_error_set(err, st, "out of memory filling the advice report");
    return st;
}
