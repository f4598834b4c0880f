/* winswap.h: row exchanges between nearby 16-row windows that lower
   their tensor-core block count (winswap.c). Internal to the library. */
#ifndef TC_WINSWAP_H
#define TC_WINSWAP_H

#include "tcsparse.h"

/* Improves the order new2old[0 .. n) of rows of a (the 16-row windows
   from new2old[0] on) by swaps between windows at most `reach` apart,
   `rounds` times, each swap lowering the 16x8 TC blocks of its two
   windows or, at equal blocks, their distinct columns. On up to
   `threads` threads (1 .. TC_MAX_JOBS; fewer where their column masks
   would pass 1 GiB), with the same result whatever their number. */
tc_status tc_window_swaps(const tc_csr *a, int32_t *new2old, int64_t n, int rounds, int reach,
                          int threads, tc_error *err);

#endif
