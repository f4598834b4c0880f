/*
 * model.h: the planner's model, which needs no GPU (plan/model.c).
 *
 * From figures the library already computes (tc_stats: tensor-core blocks
 * per row window and nonzeros per block, in the given order and after each
 * reordering; TCU-Synergy; row-length spread; n), it predicts each GPU
 * candidate's speedup over cuSPARSE's best CSR algorithm. The timed effort
 * levels time only the candidates it ranks near the top; ESTIMATE takes its
 * first. Fitted on part of bench/results and measured on the rest
 * (bench/NOTES.md, "The planner's model").
 */
#ifndef TC_PLAN_MODEL_H
#define TC_PLAN_MODEL_H

#include "tcsparse.h"

typedef struct tc_model_candidate {
    const char *order;          /* "given" or a reordering method's name */
    const tc_format *format;    /* whose GPU kernel; the canonical (csr) one
                                   is cuSPARSE, predicted 1 */
    double predicted_speedup;   /* over cuSPARSE at this n, in this order */
    char reason[256];           /* the figures behind it, for people */
} tc_model_candidate;

/* Every (order, format with a GPU kernel) candidate for a and n, best
   first, into *out (malloc'ed, *count entries). orders 0: the given order
   only; 1: also each reordering the model knows to help tensor-core
   formats (it runs them, which takes seconds on large matrices; progress
   counts them). */
/* The predicted speedup over cuSPARSE a candidate needs before a choice
   made on the model alone (ESTIMATE, tcconv -f auto) leaves cuSPARSE: the
   model's predictions are off by about this much (bench/NOTES.md, "The
   planner's model": on fresh H100 data, taking its first candidate at any
   predicted gain lost to cuSPARSE on 29 of 128 (matrix, n), at 1.2 on 5,
   for a geometric-mean speedup of 1.18x instead of 1.21x). The timed
   levels need no margin: they measure. */
#define TC_MODEL_ESTIMATE_MARGIN 1.2

tc_status tc_model_rank(const tc_csr *a, int32_t n, int orders, tc_model_candidate **out,
                        int *count, const tc_progress *progress, tc_error *err);

/* The reorderings the model tries besides the given order (model_coef.h's
   list). */
int tc_model_order_count(void);
const char *tc_model_order_at(int i);

/* Where the model gets a, reordered: fn makes a in the reordering named
   `order` and gives it in *out, which stays the caller's and valid until
   fn's next call. A planner passes its own, so that the reorderings the
   model ranks in are those it then times in, run once (plan/order.c). */
typedef struct tc_model_reorderer {
    tc_status (*fn)(void *ctx, const char *order, const tc_csr **out, tc_error *err);
    void *ctx;
} tc_model_reorderer;
/* tc_model_rank with the reorderings from r (NULL: run and dropped, as
   tc_model_rank does). */
tc_status tc_model_rank_reordered(const tc_csr *a, int32_t n, int orders,
                                  const tc_model_reorderer *r, tc_model_candidate **out,
                                  int *count, const tc_progress *progress, tc_error *err);

#endif
