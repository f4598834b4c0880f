/*
 * reorder.h: the vtable every row reordering method fills in.
 *
 * A method is one file lib/reorder/NAME.c that defines `const
 * tc_reorder_method tc_reorder_NAME` (formats/NAME.c for a method that
 * builds on a format, as tcbsort does) and one line in the registry of
 * formats/reorder_registry.c. Internal to the library; not installed.
 */
#ifndef TC_REORDER_H
#define TC_REORDER_H

#include "tcsparse.h"

struct tc_reorder_method {
    const char *name;
    const char *description;
    const tc_param_def *params;
    int nparams;
    /* Fills new2old[0 .. a->rows) with the new row order (new2old[i] is the
       original index of new row i). The registry checks p against params
       before the call and that new2old is a permutation after it. Must be
       deterministic. */
    tc_status (*run)(const tc_csr *a, const tc_params *p, int32_t *new2old,
                     const tc_progress *prog, tc_error *err);
    /* Instead of run (exactly one of the two is set), for a method that
       reports an outcome (tc_reorder_outcome): out->used holds the
       effective parameters on entry; the method may change the value of a
       parameter it chose itself, and sets kept_input and note. */
    tc_status (*run_outcome)(const tc_csr *a, const tc_params *p, int32_t *new2old,
                             tc_reorder_outcome *out, const tc_progress *prog, tc_error *err);
};

/* The value of m's parameter `name` in p, else its default (name must be
   one of m's parameters). */
double tc_reorder_param(const tc_reorder_method *m, const tc_params *p, const char *name);
/* Records in out->used the value a method chose for its parameter `name`. */
void tc_reorder_choose(tc_reorder_outcome *out, const char *name, double value);
/* The last stage of the methods that promise never to be worse than the
   input order: replaces new2old by the identity unless it gives fewer
   16x8 TC blocks than the input, and says so in out (kept_input, note).
   Counted in place: a permuted copy of the pattern would be 4 bytes a
   nonzero more at the peak. */
tc_status tc_reorder_keep_if_fewer_blocks(const tc_reorder_method *m, const tc_csr *a,
                                          int32_t *new2old, tc_reorder_outcome *out,
                                          tc_error *err);

#endif
