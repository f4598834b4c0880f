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
   undone on O and S (on the device for a GPU plan). The options used: op,
   n (d), device (auto: a GPU when there is one), gpu, effort and calls,
   format (bsb: the fused path; csr: cuSPARSE's unfused one; NULL or
   "auto": the fused one, or the unfused one when b_max_abs passes fp16's
   65504, or at a timing effort (MEASURE or more, or the default with
   calls > 1) whichever of the two runs faster), variant (the fused
   kernel's warps: w1, w2, w4, w8; NULL: measured), b_max_abs, scale,
   threads (the CPU's), warmup and iters (each timing; iters 0: 100).
   Creating a GPU plan uploads the mask and runs the chosen path once, so
   that executes time nothing. */
tc_status tc_attn_plan_create(const tc_csr *a, const tc_fmt *bsb, const tc_perm *row_perm,
                              const tc_perm *col_perm, const tc_plan_opts *o,
                              tc_attn_plan **out, tc_error *err);
tc_status tc_attn_plan_sddmm(tc_attn_plan *p, const float *Q, const float *K, float *S,
                             void *stream, tc_error *err);
tc_status tc_attn_plan_attention(tc_attn_plan *p, const float *Q, const float *K,
                                 const float *V, float *O, void *stream, tc_error *err);
/* Either operation with host arrays in the caller's order, for any plan
   (V NULL for an SDDMM plan; out: S or O): a GPU plan copies them in and
   out, and returns when out is complete. */
tc_status tc_attn_plan_execute_host(tc_attn_plan *p, const float *Q, const float *K,
                                    const float *V, float *out, tc_error *err);
/* The mask in the caller's order: S's k-th score belongs to its k-th
   nonzero. Owned by the plan. */
const tc_csr *tc_attn_plan_mask(const tc_attn_plan *p);
/* The scale the plan multiplies scores by (tc_plan_opts.scale, else
   1 / sqrt(d) for attention and 1 for the SDDMM). */
double tc_attn_plan_scale(const tc_attn_plan *p);
/* For a plan whose path takes fp16 (the fused kernel): TC_ERR_INVALID
   naming the first element of Q, K or V (host arrays, caller's order) that
   is not finite or passes 65504, with *which 0, 1 or 2; else TC_OK and
   *which -1. Each execute checks the same (on the device for device
   pointers, unless tc_plan_opts.b_max_abs vouches for them). */
tc_status tc_attn_plan_check(const tc_attn_plan *p, const float *Q, const float *K,
                             const float *V, int *which, tc_error *err);
/* out (host, the caller's order, as execute gave it) against the float64
   reference (lib/attention.c) on the same operands, rounded to fp16 as the
   fused kernel takes them: *c the comparison, *row and *col the caller's
   place of the largest error (O's row and column, or S's nonzero), -1 when
   none. Passing is c->nonfinite == 0 and c->rel_fro <= the info's
   tolerance. */
tc_status tc_attn_plan_verify(const tc_attn_plan *p, const float *Q, const float *K,
                              const float *V, const float *out, tc_compare *c, int64_t *row,
                              int64_t *col, tc_error *err);
/* GPU plans: times the fused and the unfused path on these operands (host,
   the caller's order, taken in the stored order: the kernels alone, not the
   permutation), opts' warmup and iters each, over operand sets rotated so
   that they are not timed from L2; the figures go to the info (ms,
   cusparse_ms, payback_calls) and the report's "bench" section. */
tc_status tc_attn_plan_bench(tc_attn_plan *p, const float *Q, const float *K, const float *V,
                             tc_error *err);
void tc_attn_plan_info(const tc_attn_plan *p, tc_plan_info *out);
/* Sections "run" (device, path, kernel, precision; the fused kernel's
   warps and width on a GPU), "bench" after tc_attn_plan_bench, "memory"
   (device bytes of each path) on a GPU. */
tc_status tc_attn_plan_report(const tc_attn_plan *p, tc_report *r, tc_error *err);
void tc_attn_plan_free(tc_attn_plan *p);

#endif
