/*
 * plot_colours.c: the colours of the pictures, shared by the matrix area
 * (lib/plot.c) and its colour bar and legend (lib/figure.c), so that the
 * key always shows the colours the picture uses.
 */
#include "config.h"
#include <math.h>

#include "plot_internal.h"

const uint8_t PLOT_WHITE[3] = { 255, 255, 255 };
const uint8_t PLOT_FRAME[3] = { 128, 128, 128 };
const uint8_t PLOT_GRID[3] = { 221, 221, 221 };

/* Spy ramp, light blue to dark navy (the ends and middle of ColorBrewer's
   "Blues"): the lightest shade still shows on white paper. */
static const uint8_t BLUES[][3] = { { 158, 202, 225 }, { 66, 146, 198 }, { 8, 48, 107 } };
/* The CUDA-core part of a format with parts, against BLUES for its
   tensor-core part: ColorBrewer's "Oranges" at the same three stops, its
   opposite hue, so that the two stay apart for colour-blind readers too. */
static const uint8_t ORANGES[][3] = { { 253, 174, 107 }, { 241, 105, 19 }, { 127, 39, 4 } };
/* Block-fill ramp: viridis sampled at 0, 1/4, 1/2, 3/4, 1 and interpolated
   (perceptually ordered, readable in grey and by colour-blind readers). */
static const uint8_t VIRIDIS[][3] = {
    { 68, 1, 84 }, { 59, 82, 139 }, { 33, 145, 140 }, { 94, 201, 98 }, { 253, 231, 37 }
};

/* Colour at t of the piecewise-linear ramp through n stops. */
static void ramp(const uint8_t (*stops)[3], int n, double t, uint8_t out[3])
{
    double pos = (t <= 0 ? 0 : t >= 1 ? 1 : t) * (n - 1);
    int i = (int)pos;
    if (i > n - 2)
        i = n - 2;
    double f = pos - i;
    for (int k = 0; k < 3; k++)
        out[k] = (uint8_t)lround(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f);
}

void plot_ramp(plot_ramp_id id, double t, uint8_t out[3])
{
    switch (id) {
    case PLOT_BLUES: ramp(BLUES, 3, t, out); break;
    case PLOT_ORANGES: ramp(ORANGES, 3, t, out); break;
    case PLOT_VIRIDIS: ramp(VIRIDIS, 5, t, out); break;
    }
}

double plot_key_position(const plot_key *k, double v)
{
    if (k->blocks)
        return k->max > 1 ? log(v) / log((double)k->max) : 1;
    return k->max > 0 ? log1p(v) / log1p((double)k->max) : 0;
}
