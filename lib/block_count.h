/* block_count.h: the 16x8-style TC block count of a matrix under a row
   order, without making the permuted copy (lib/stats.c). Internal to the
   library; not installed. */
#ifndef TC_BLOCK_COUNT_H
#define TC_BLOCK_COUNT_H

#include "tcsparse.h"

/* tc_count_tc_blocks of the matrix whose row i is a's row new2old[i]
   (new2old a permutation of a's rows): the figure a permuted copy would
   give, with no copy of a. -1 when h or w < 1 or memory is short. */
int64_t tc_count_tc_blocks_in_order(const tc_csr *a, const int32_t *new2old, int h, int w);

#endif
