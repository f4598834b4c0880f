/* tcbsort.c: the `tcbsort` reordering of Fused3S (seed 003, Section 3.2,
   "row window reordering"): whole 16-row windows sorted by decreasing
   number of TC blocks (16 x 8, after each window's column compaction, as
   the bsb format counts them), ties in window order. The paper applies it
   as a schedule (heavy windows go to thread blocks first, light ones fill
   the tail); moving the rows themselves, 16 at a time, makes it a row
   permutation that keeps every window intact, so the reordered matrix has
   the same blocks, and its windows in storage order are the schedule.

   The last window is partial when the rows are not a multiple of 16: it
   stays last, whatever its count. Placed anywhere else it would shift the
   windows after it off the 16-row grid and break them up (the paper is
   silent; every window size is 16 there). So all windows but that one are
   sorted.

   Cost: bsb's count pass (O(16 nnz), in threads) and a counting sort of
   the windows. */
#include "config.h"
#include <stdlib.h>
#include "bsb.h"
#include "reorder/reorder.h"

static tc_status tcbsort_run(const tc_csr *a, const tc_params *p, int32_t *new2old,
                             const tc_progress *prog, tc_error *err)
{
    int64_t windows = ((int64_t)a->rows + TC_BSB_H_ROWS - 1) / TC_BSB_H_ROWS;
    int64_t full = a->rows / TC_BSB_H_ROWS;
    int64_t *tro = tc_malloc_array(windows + 1, sizeof *tro, err);
    int64_t *order = tro ? tc_malloc_array(full, sizeof *order, err) : NULL;
    tc_status st = order ? tc_bsb_count_tro(a, tro, err) : TC_ERR_NOMEM;
    if (st == TC_OK)
        st = tc_bsb_window_order(tro, full, order, err);
    if (st == TC_OK) {
        int32_t at = 0;
        for (int64_t i = 0; i < full; i++)
            for (int32_t r = 0; r < TC_BSB_H_ROWS; r++)
                new2old[at++] = (int32_t)(order[i] * TC_BSB_H_ROWS) + r;
        for (int32_t r = at; r < a->rows; r++)
            new2old[r] = r;
        tc_progress_report(prog, a->rows, a->rows);
    }
    free(tro);
    free(order);
    return st;
}

const tc_reorder_method tc_reorder_tcbsort = {
    .name = "tcbsort",
    .description = "whole 16-row windows by decreasing 16x8 TC block count (Fused3S), "
                   "ties in order; a partial last window stays last",
    .params = NULL,
    .nparams = 0,
    .run = tcbsort_run,
};
