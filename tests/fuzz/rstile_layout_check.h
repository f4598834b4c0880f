/*
 * rstile_layout_check.h: what formats/rstile_layout.c promises, checked
 * from scratch on one matrix: by tests/t_rstile_layout.c on chosen
 * matrices and by the `layout` fuzz target on any small one.
 */
#ifndef TC_RSTILE_LAYOUT_CHECK_H
#define TC_RSTILE_LAYOUT_CHECK_H

#include <stddef.h>

#include "rstile.h"

/* 1 when every array that rstile_layout.h builds for m (built from a)
   holds: the segments cover every non-residual row exactly once with the
   format's blocks, the value starts are the padded counts, the fp16 values
   times their row scale decode, with the residual part, back to a (its
   pattern exactly, its values within fp16's rounding), and the window
   index finds each window's blocks and residual nonzeros. Else 0 and the
   first broken promise in why. */
int rstile_layout_check(const tc_rstile *m, const tc_csr *a, char *why, size_t len);

#endif
