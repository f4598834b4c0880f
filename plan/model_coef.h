/* model_coef.h: written by bench/model-fit.py --header; do not edit, refit.
   Fitted from commit 4ebb343, bench/results/rstile.tsv bench/results/hrpb.tsv bench/results/brp.tsv bench/results/bcsr.tsv. */
#define TC_MODEL_FIT_SOURCE "commit 4ebb343, bench/results/rstile.tsv bench/results/hrpb.tsv bench/results/brp.tsv bench/results/bcsr.tsv"
/* the reorderings the model tries besides the given order */
static const char *const tc_model_orders[] = { "wjaccard", NULL };
/* ln speedup = coef . (1, ln nnz/block, blocks/window CV, row length CV,
   synergy alpha, log2 n, log10 nnz, ln nnz/rows) */
/* each regressor's range in the fit: predictions clamp to it */
static const double tc_model_lo[TC_MODEL_NCOEF] = { 1, 1.99358, 0.0131926, 0, 0.0625923, 5, 3.60788, 0.736413 };
static const double tc_model_hi[TC_MODEL_NCOEF] = { 1, 4.00102, 6.64934, 7.83077, 0.443201, 9, 6.62821, 6.42064 };
static const tc_model_row tc_model_rows[] = {
    { "bcsr", "fp16", { -0.896606, 0.799395, 0.271709, -0.138931, 0.141519, -0.140044, -0.141465, -0.0806838 } },
    { "brp", "tf32", { 2.3429, -0.0353094, 0.0921294, -0.0297985, 0.0443427, -0.128587, -0.272541, -0.0916639 } },
    { "hrpb", "tf32", { -0.533857, 0.507218, 0.0365693, -0.0288261, 0.165938, -0.0239698, -0.00846737, -0.172966 } },
    { "rstile", "fp16", { -0.686632, 0.335272, 0.039147, -0.0129451, 0.143025, -0.0125013, 0.0599478, -0.0810989 } },
    { NULL, NULL, { 0 } }
};
/* formats not measured yet: bench/model-fit.py's PRIORS, not fitted */
static const tc_model_row tc_model_priors[] = {
    /* parity with cuSPARSE: a CUDA-core path, not fitted yet */
    { "rowsplit", "fp32", { 0, 0, 0, 0, 0, 0, 0, 0 } },
    { NULL, NULL, { 0 } }
};
