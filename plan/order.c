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
    tc_params none = { 0 };
    tc_perm *q = NULL;
    tc_reorder_outcome out;
    st = tc_reorder_run_outcome(m, given, params ? params : &none, &q, &out, p->o.progress, err);
    if (!st) {
        p->path.order_params = out.used;
        st = tc_csr_permute(given, q, NULL, &p->a, err);
    }
    if (!st && p->given_row)
        st = tc_perm_compose(p->given_row, q, &p->row, err);
    else if (!st)
        p->row = q, q = NULL;
    tc_perm_free(q);
    p->info.reorder_s += tc_plan_now() - t0;
    return st ? tc_error_prefix(err, st, "plan: reordering %s", order) : TC_OK;
}
