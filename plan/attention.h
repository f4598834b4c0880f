/*
 * attention.h: SDDMM and sparse-attention plans (plan/attention.c), to
 * which a tc_plan of op TC_OP_SDDMM or TC_OP_ATTENTION forwards
 * (tcsparse_plan.h). The GPU paths are Fused3S's fused kernel from the bsb
 * format and the unfused cuSPARSE baseline (kernels.h, tc_attn_*); the CPU
 * path is the float64 reference of lib/attention.c.
 */
#ifndef TC_PLAN_ATTENTION_H
#define TC_PLAN_ATTENTION_H

#include "tcsparse_plan.h"

typedef struct tc_attn_plan tc_attn_plan;

/* a: the mask in its stored order; bsb: a's bsb format when the caller has
   it (a .tcf.h5's), else NULL (built); row_perm, col_perm: the permutation
   that took the caller's order to a's (NULL: none), applied to Q, K, V and
   undone on O and S. */
tc_status tc_attn_plan_create(const tc_csr *a, const tc_fmt *bsb, const tc_perm *row_perm,
                              const tc_perm *col_perm, const tc_plan_opts *o,
                              tc_attn_plan **out, tc_error *err);
tc_status tc_attn_plan_sddmm(tc_attn_plan *p, const float *Q, const float *K, float *S,
                             void *stream, tc_error *err);
tc_status tc_attn_plan_attention(tc_attn_plan *p, const float *Q, const float *K,
                                 const float *V, float *O, void *stream, tc_error *err);
void tc_attn_plan_info(const tc_attn_plan *p, tc_plan_info *out);
tc_status tc_attn_plan_report(const tc_attn_plan *p, tc_report *r, tc_error *err);
void tc_attn_plan_free(tc_attn_plan *p);

#endif
