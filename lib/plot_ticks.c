/*
 * plot_ticks.c: which values the axes and colour bars label. Round values
 * (1, 2 or 5 times a power of ten), as a reader counts rows and as
 * matplotlib's and MATLAB's axes do, so that a position can be read off
 * between two ticks.
 */
#include "config.h"
#include <stdint.h>

#include "plot_internal.h"

int64_t plot_nice_step(double min_step)
{
    static const int64_t mult[3] = { 1, 2, 5 };
    for (int64_t p = 1;; p *= 10)
        for (int i = 0; i < 3; i++)
            if ((double)(mult[i] * p) >= min_step || p > INT64_MAX / 50)
                return mult[i] * p;
}

int plot_log_ticks(int64_t max, int64_t *v, int cap)
{
    static const int64_t mult[3] = { 1, 2, 5 };
    int n = 0;
    for (int64_t p = 1; n < cap; p *= 10) {
        /* mult * p > max, in a form that cannot overflow */
        for (int i = 0; i < 3 && n < cap; i++)
            if (mult[i] > max / p)
                return n;
            else
                v[n++] = mult[i] * p;
        if (p > max / 10)
            break;
    }
    return n;
}
