/*
 * model_internal.h: what plan/model.c offers besides model.h, for the
 * advice report (plan/advise.c) and the model's tests: the figures it
 * predicts from, one prediction, the precision each fitted row was
 * measured at, and the generated coefficient table's shape. Not installed.
 */
#ifndef TC_PLAN_MODEL_INTERNAL_H
#define TC_PLAN_MODEL_INTERNAL_H

#include "model.h"

/* The reorderings the model may try besides the given order, at most. */
#define TC_MODEL_MAX_ORDERS 4
/* Coefficients of a fitted row (model.c's regressors). */
#define TC_MODEL_NCOEF 8

/* One row of model_coef.h (written by bench/model-fit.py): fitted
   (tc_model_rows) or, for a format not measured yet, a prior
   (tc_model_priors). */
typedef struct tc_model_row {
    const char *format;         /* NULL ends the table */
    const char *precision;      /* the kernel's, as measured */
    double coef[TC_MODEL_NCOEF];
} tc_model_row;

/* The figures of a matrix in one row order that the model reads. */
typedef struct tc_model_features {
    int32_t rows;
    int64_t nnz;
    int64_t blocks;                 /* 16 x 8 tensor-core blocks */
    double nnz_per_block;           /* 0 when there are none */
    double blocks_per_window_cv;    /* over non-empty 16-row windows */
    double row_length_cv;
    double synergy_alpha;           /* TCU-Synergy at 16 x 16 */
} tc_model_features;

tc_status tc_model_features_compute(const tc_csr *a, tc_model_features *out, tc_error *err);
/* The predicted speedup of format f over cuSPARSE: 1 for the canonical
   format (cuSPARSE), 0 for a format without a fitted row or prior or an empty
   matrix. */
double tc_model_predict(const tc_format *f, const tc_model_features *feat, int32_t n);
/* The ranking of tc_model_rank from features already computed: feat[o] in
   the order named orders[o] (orders[0] = "given"). */
tc_status tc_model_rank_features(const tc_model_features *feat, int nfeat,
                                 const char *const *orders, int32_t n,
                                 tc_model_candidate **out, int *count, tc_error *err);
/* The features of a in the given order (feat[0], names[0] = "given") and,
   with orders 1, after each reordering the model tries (from r, or run
   here where r is NULL); *nfeat of them. feat and names hold 1 +
   TC_MODEL_MAX_ORDERS entries. */
tc_status tc_model_features_orders(const tc_csr *a, int orders, const tc_model_reorderer *r,
                                   tc_model_features *feat, const char **names, int *nfeat,
                                   const tc_progress *progress, tc_error *err);
/* "fp32" for the canonical format, the fitted row's (or prior's) precision for a
   modelled one, NULL for one the model does not know. */
const char *tc_model_precision(const tc_format *f);
/* Where the coefficients came from: "commit data-file(s)". */
const char *tc_model_fit_source(void);

#endif
