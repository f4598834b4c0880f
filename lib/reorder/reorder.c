/* reorder.c: the generic calls that dispatch through each row reordering
   method's vtable (reorder.h). The registry of methods is
   formats/reorder_registry.c. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "block_count.h"
#include "reorder.h"

const char *tc_reorder_name(const tc_reorder_method *m) { return m->name; }
const char *tc_reorder_description(const tc_reorder_method *m) { return m->description; }

const tc_param_def *tc_reorder_params(const tc_reorder_method *m, int *n)
{
    *n = m->nparams;
    return m->params;
}

double tc_reorder_param(const tc_reorder_method *m, const tc_params *p, const char *name)
{
    for (int i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return tc_params_get(p, name, m->params[i].def);
    return NAN;
}

void tc_reorder_params_effective(const tc_reorder_method *m, const tc_params *p,
                                 tc_params *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < m->nparams && i < TC_MAX_PARAMS; i++) {
        snprintf(out->kv[i].name, sizeof out->kv[i].name, "%s", m->params[i].name);
        out->kv[i].value = tc_params_get(p, m->params[i].name, m->params[i].def);
        out->n++;
    }
}

void tc_reorder_choose(tc_reorder_outcome *out, const char *name, double value)
{
    for (int i = 0; i < out->used.n; i++)
        if (strcmp(out->used.kv[i].name, name) == 0)
            out->used.kv[i].value = value;
}

tc_status tc_reorder_run(const tc_reorder_method *m, const tc_csr *a, const tc_params *p,
                         tc_perm **row, const tc_progress *prog, tc_error *err)
{
    tc_reorder_outcome out;
    return tc_reorder_run_outcome(m, a, p, row, &out, prog, err);
}

tc_status tc_reorder_run_outcome(const tc_reorder_method *m, const tc_csr *a,
                                 const tc_params *p, tc_perm **row, tc_reorder_outcome *out,
                                 const tc_progress *prog, tc_error *err)
{
    *row = NULL;
    memset(out, 0, sizeof *out);
    tc_reorder_params_effective(m, p, &out->used);
    tc_status st = tc_params_check(p, m->params, m->nparams, m->name, err);
    if (st)
        return st;
    int32_t *new2old = tc_malloc_array(a->rows, sizeof *new2old, err);
    if (!new2old)
        return TC_ERR_NOMEM;
    st = m->run_outcome ? m->run_outcome(a, p, new2old, out, prog, err)
                        : m->run(a, p, new2old, prog, err);
    /* A method's output is checked like any permutation from outside. */
    if (!st)
        st = tc_perm_from_array(row, a->rows, new2old, TC_PERM_NEW2OLD, m->name, err);
    free(new2old);
    return st;
}

tc_status tc_reorder_keep_if_fewer_blocks(const tc_reorder_method *m, const tc_csr *a,
                                          int32_t *new2old, tc_reorder_outcome *out,
                                          tc_error *err)
{
    int64_t before = tc_count_tc_blocks(a, 16, 8);
    int64_t after = tc_count_tc_blocks_in_order(a, new2old, 16, 8);
    if (before < 0 || after < 0)
        return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory counting TC blocks", m->name);
    if (after < before)
        return TC_OK;
    for (int32_t i = 0; i < a->rows; i++)
        new2old[i] = i;
    out->kept_input = 1;
    snprintf(out->note, sizeof out->note, "kept the original order: the order found gives "
             "%lld 16x8 TC blocks, the original %lld", (long long)after, (long long)before);
    return TC_OK;
}
