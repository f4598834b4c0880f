/*
 * plan_attention.c: the public calls of SDDMM and attention plans
 * (tcsparse_plan.h) beyond create, execute, info, report and free, which
 * plan.c forwards itself: host-array execution, the mask in the caller's
 * order, the fp16 check, verification and the bench. Each forwards to the
 * attention plan (plan/attention.c) that does the work, so that a program
 * can do through the installed header everything tcmul --op attention and
 * --op sddmm do.
 */
#include <config.h>

#include "plan_internal.h"

/* TC_ERR_ARG for an SpMM plan, named by the call that refuses it. */
static tc_status need_attn(const tc_plan *p, const char *fn, tc_error *err)
{
    if (!p)
        return tc_error_set(err, TC_ERR_ARG, "plan: %s: no plan", fn);
    return p->attn ? TC_OK
                   : tc_error_set(err, TC_ERR_ARG, "plan: %s takes SDDMM and attention plans, "
                                  "not an SpMM plan (tc_plan_execute_host, tc_plan_verify and "
                                  "tc_plan_bench are SpMM's)", fn);
}

tc_status tc_plan_execute_attention_host(tc_plan *p, const float *Q, const float *K,
                                         const float *V, float *out, tc_error *err)
{
    tc_status st = need_attn(p, "tc_plan_execute_attention_host", err);
    return st ? st : tc_attn_plan_execute_host(p->attn, Q, K, V, out, err);
}

tc_status tc_plan_attention_mask(const tc_plan *p, const tc_csr **mask, tc_error *err)
{
    *mask = NULL;
    tc_status st = need_attn(p, "tc_plan_attention_mask", err);
    if (!st)
        *mask = tc_attn_plan_mask(p->attn);
    return st;
}

tc_status tc_plan_check_attention(const tc_plan *p, const float *Q, const float *K,
                                  const float *V, int *which, tc_error *err)
{
    *which = -1;
    tc_status st = need_attn(p, "tc_plan_check_attention", err);
    return st ? st : tc_attn_plan_check(p->attn, Q, K, V, which, err);
}

tc_status tc_plan_verify_attention(const tc_plan *p, const float *Q, const float *K,
                                   const float *V, const float *out, tc_compare *c,
                                   int64_t *row, int64_t *col, int *pass, tc_error *err)
{
    *pass = 0;
    *row = *col = -1;
    tc_status st = need_attn(p, "tc_plan_verify_attention", err);
    if (!st)
        st = tc_attn_plan_verify(p->attn, Q, K, V, out, c, row, col, err);
    if (!st) {
        tc_plan_info info;
        tc_attn_plan_info(p->attn, &info);
        *pass = c->nonfinite == 0 && c->rel_fro <= info.tolerance;
    }
    return st;
}

tc_status tc_plan_bench_attention(tc_plan *p, const float *Q, const float *K, const float *V,
                                  tc_error *err)
{
    tc_status st = need_attn(p, "tc_plan_bench_attention", err);
    return st ? st : tc_attn_plan_bench(p->attn, Q, K, V, err);
}
