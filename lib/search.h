/* search.h: binary search in a sorted run of int32 (column indices, row
   lists), the one the library's readers and reorderings share. Internal
   to the library; not installed. */
#ifndef TC_SEARCH_H
#define TC_SEARCH_H

#include <stdint.h>

/* The first index of x[lo .. hi) (ascending) holding a value >= v; hi
   when none does. */
static inline int64_t tc_lower_bound_i32(const int32_t *x, int64_t lo, int64_t hi, int32_t v)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (x[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
