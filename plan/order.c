/*
 * order.c: the row orders a plan multiplies in. "given" is the caller's
 * order (a .tcf.h5's /matrix with its /permutation); a reordering method
 * reorders that matrix further, and the plan keeps the composed
 * permutation from the caller's order, which executing applies to B and
 * undoes on C.
 */
#include <config.h>

#include <string.h>

#include "plan_internal.h"

int tc_plan_orders(const char **out, int max)
{
    int n = 0;
    for (int i = 0; i < tc_reorder_count() && n < max; i++)
        out[n++] = tc_reorder_name(tc_reorder_at(i));
    return n;
}

static tc_status copy_perm(const tc_perm *src, tc_perm **dst, tc_error *err)
{
    *dst = NULL;
    return src ? tc_perm_from_array(dst, src->n, src->new2old, TC_PERM_NEW2OLD, "plan", err)
               : TC_OK;
}

/* The reorderings a plan runs at their defaults are kept until the plan
   is made: a GPU plan reorders in the model's ranking (tc_model_rank_
   reordered), again to time its candidates in that order, and again for
   the chosen path; a CPU plan times each order and then sets the best one
   again. Each ran in full every time, and tcreorder's wjaccard of an R-MAT
   of 2^22 rows and 128M nonzeros takes 52 s on 16 CPUs (bench/results/
   reorder-scale.tsv). */
static const plan_reordering *kept_run(const tc_plan *p, const tc_reorder_method *m)
{
    for (int i = 0; i < p->nkept; i++)
        if (p->kept[i].method == m)
            return &p->kept[i];
    return NULL;
}

/* *q: m's permutation of given (params NULL: its defaults, taken from
   what p kept where it ran before, else run and kept), the caller's;
   p->path.order_params the parameters it ran with. */
static tc_status reordering(tc_plan *p, const tc_csr *given, const tc_reorder_method *m,
                            const tc_params *params, tc_perm **q, tc_error *err)
{
    const plan_reordering *k = params ? NULL : kept_run(p, m);
    if (k) {
        p->path.order_params = k->used;
        return copy_perm(k->q, q, err);
    }
    tc_params none = { 0 };
    tc_reorder_outcome out;
    tc_status st = tc_reorder_run_outcome(m, given, params ? params : &none, q, &out,
                                          tc_plan_step_progress(p), err);
    p->reorder_runs++;
    if (st)
        return st;
    p->path.order_params = out.used;
    if (params || p->nkept == TC_PLAN_MAX_KEPT)
        return TC_OK;
    plan_reordering *slot = &p->kept[p->nkept];
    st = copy_perm(*q, &slot->q, err);
    if (!st) {
        slot->method = m;
        slot->used = out.used;
        p->nkept++;
    }
    return st;
}

void tc_plan_forget_orders(tc_plan *p)
{
    for (int i = 0; i < p->nkept; i++)
        tc_perm_free(p->kept[i].q);
    p->nkept = 0;
}

tc_status tc_plan_set_order(tc_plan *p, const tc_csr *given, const char *order_arg,
                            const tc_params *params_arg, tc_error *err)
{
    /* the arguments may be p->path's own, which this resets */
    char order[sizeof p->path.order];
    snprintf(order, sizeof order, "%s", order_arg);
    tc_params kept;
    const tc_params *params = params_arg ? (kept = *params_arg, &kept) : NULL;
    tc_spmm_cpu_op_free(p->cpu_op);
    p->cpu_op = NULL;
    tc_csr_free(p->a);
    tc_perm_free(p->row);
    tc_perm_free(p->col);
    p->a = NULL;
    p->row = p->col = NULL;
    memset(&p->path.order_params, 0, sizeof p->path.order_params);
    snprintf(p->path.order, sizeof p->path.order, "%s", order);
    tc_status st = copy_perm(p->given_col, &p->col, err);
    if (st)
        return st;
    if (strcmp(order, "given") == 0) {
        st = copy_perm(p->given_row, &p->row, err);
        return st ? st : tc_csr_copy(given, &p->a, err);
    }
    const tc_reorder_method *m = tc_reorder_find(order);
    if (!m)
        return tc_error_set(err, TC_ERR_INVALID, "plan: no reordering named '%s'", order);
    const double t0 = tc_plan_now();
    tc_perm *q = NULL;
    st = reordering(p, given, m, params, &q, err);
    if (!st)
        st = tc_csr_permute(given, q, NULL, &p->a, err);
    if (!st && p->given_row)
        st = tc_perm_compose(p->given_row, q, &p->row, err);
    else if (!st)
        p->row = q, q = NULL;
    tc_perm_free(q);
    p->info.reorder_s += tc_plan_now() - t0;
    return st ? tc_error_prefix(err, st, "plan: reordering %s", order) : TC_OK;
}
