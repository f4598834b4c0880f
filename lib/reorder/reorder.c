/* reorder.c: the generic calls that dispatch through each row reordering
   method's vtable (reorder.h). The registry of methods is
   formats/reorder_registry.c. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
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
