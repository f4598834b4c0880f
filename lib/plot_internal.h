/*
 * plot_internal.h: what the pictures' files share inside the library:
 * the colour ramps (lib/plot_colours.c), tick values (lib/plot_ticks.c),
 * new pictures (lib/image.c) and the decorations drawn around a bare
 * picture (lib/figure.c).
 */
#ifndef TC_PLOT_INTERNAL_H
#define TC_PLOT_INTERNAL_H

#include <stdint.h>
#include "tcsparse.h"

/* The colours of a picture: white background, grey frame, light grey
   block grid. */
extern const uint8_t PLOT_WHITE[3], PLOT_FRAME[3], PLOT_GRID[3];

typedef enum {
    PLOT_BLUES,     /* spy plot; the tensor-core part of a format with parts */
    PLOT_ORANGES,   /* the CUDA-core part */
    PLOT_VIRIDIS    /* block density */
} plot_ramp_id;

/* Colour at t in [0, 1] (clamped) of a ramp. */
void plot_ramp(plot_ramp_id id, double t, uint8_t out[3]);

/* What a bare picture shows, for the decorations around it. */
typedef struct plot_key {
    int32_t rows, cols;
    int64_t nnz;
    int blocks;             /* 0: spy plot, 1: block density */
    int parts;              /* spy plot coloured by the parts of a format */
    int64_t max;            /* the value at the dark (spy) or bright (blocks)
                               end of the ramp: nonzeros in the fullest pixel,
                               or h*w */
    int32_t block_h, block_w;
    int64_t nblocks;        /* block density: non-empty aligned blocks */
} plot_key;

/* Where value v falls on the ramp, 0 to 1: the pictures' log scales,
   log(1+v)/log(1+max) for the spy plot, log(v)/log(max) for blocks. */
double plot_key_position(const plot_key *k, double v);

/* The smallest step of at least min_step among 1, 2, 5, 10, 20, 50, ...:
   the gap between an axis's ticks, in rows or columns. */
int64_t plot_nice_step(double min_step);
/* Values 1, 2, 5, 10, 20, ... up to max, for a log-scale colour bar:
   writes at most cap of them into v, returns how many. */
int plot_log_ticks(int64_t max, int64_t *v, int cap);

/* A white picture of width x height pixels (lib/image.c). */
tc_status plot_image_new(int32_t width, int32_t height, tc_image **out, tc_error *err);

/* Draws the decorations o->decor asks for around the bare picture `panel`
   (matrix area in a 1-pixel frame) and returns the whole picture in *out;
   panel is not freed. */
tc_status plot_decorate(const tc_image *panel, const plot_key *k, const tc_plot_opts *o,
                        tc_image **out, tc_error *err);

#endif
