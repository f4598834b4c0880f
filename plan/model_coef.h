/* model_coef.h: written by bench/model-fit.py --header; do not edit, refit.
   Fitted from commit 0705f9a, bench/results/rstile.tsv bench/results/hrpb.tsv bench/results/brp.tsv bench/results/bcsr.tsv bench/results/rowsplit.tsv. */
#define TC_MODEL_FIT_SOURCE "commit 0705f9a, bench/results/rstile.tsv bench/results/hrpb.tsv bench/results/brp.tsv bench/results/bcsr.tsv bench/results/rowsplit.tsv"
/* the reorderings the model tries besides the given order */
static const char *const tc_model_orders[] = { "wjaccard", NULL };
/* ln speedup = coef . (1, ln nnz/block, blocks/window CV, row length CV,
   synergy alpha, log2 n, log10 nnz, ln nnz/rows) */
/* each regressor's range in the fit: predictions clamp to it */
static const double tc_model_lo[TC_MODEL_NCOEF] = { 1, 1.99358, 0.0131926, 0, 0.0625923, 5, 3.60788, 0.736413 };
static const double tc_model_hi[TC_MODEL_NCOEF] = { 1, 4.00102, 6.64934, 7.83077, 0.443201, 9, 6.62821, 6.42064 };
static const tc_model_row tc_model_rows[] = {
    { "bcsr", "fp16", { -0.896606, 0.799395, 0.271709, -0.138931, 0.141519, -0.140044, -0.141465, -0.0806838 } },
    { "brp", "tf32", { 2.3063, -0.0358844, 0.0914226, -0.0267837, 0.0527638, -0.127639, -0.269612, -0.0877739 } },
    { "hrpb", "tf32", { -0.794266, 0.503466, 0.0393172, -0.031303, 0.164901, -0.00564305, 0.0245523, -0.179213 } },
    { "rowsplit", "fp32", { -0.362104, 0.011391, -0.0683082, 0.0346354, 0.0706972, 0.0233857, 0.14376, -0.0949556 } },
    { "rstile", "fp16", { -0.783634, 0.345303, 0.0436731, -0.0160578, 0.110256, -0.0087365, 0.0694405, -0.0841033 } },
    { NULL, NULL, { 0 } }
};
/* formats not measured yet: bench/model-fit.py's PRIORS, not fitted */
static const tc_model_row tc_model_priors[] = {
    { NULL, NULL, { 0 } }
};
