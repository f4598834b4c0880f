/*
 * rstile_layout.h: the host side of the rstile kernels' device layout
 * (kernels/rstile*.cu upload what these build from formats/rstile.h's
 * arrays): the window segments, where each block's values start, the fp16
 * values scaled per row, and the per-window index of the tc-item
 * variants. Plain C, so that the CPU tests (tests/t_rstile_layout.c) and
 * the fuzzers (tests/fuzz/fuzz_layout.c) reach it.
 */
#ifndef TC_RSTILE_LAYOUT_H
#define TC_RSTILE_LAYOUT_H

#include "rstile.h"
#include "segment.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Halves of values per block on the device: each block's values start at
   a multiple of 8 halves (16 bytes), so that cp.async can stage them. */
int64_t tc_rstile_padded_values(int count);

/* The device segments, unordered (the kernel orders them, tc_segs_order):
   the format's segments in its order, each writing the rows of its window
   that exist and are not residual rows, split when its window has
   several; then one of no blocks for every window that has such rows but
   no segment. *seg (nseg entries, malloc'ed) is the caller's. */
tc_status tc_rstile_layout_segments(const tc_rstile *m, tc_seg **seg, int64_t *nseg,
                                    tc_error *err);

/* Where each block's values start on the device (nblocks + 1 entries,
   malloc'ed): the format's value_offset with every block's count rounded
   up by tc_rstile_padded_values. NULL (err set) when out of memory. */
int64_t *tc_rstile_layout_starts(const tc_rstile *m, tc_error *err);

/* The TC values as fp16 bits at their padded places (vstart, from
   tc_rstile_layout_starts; vstart[nblocks] + 1 entries, the padding zero),
   each divided by its row's scale (*row_scale, one float per row of A:
   tc_half_scale of the row's largest TC magnitude). A pattern matrix has
   neither: both NULL. */
tc_status tc_rstile_layout_values(const tc_rstile *m, const int64_t *vstart, uint16_t **val,
                                  float **row_scale, tc_error *err);

/* The tc-item variants' index of windows (nw = rows / 16 rounded up):
   *wb (nw + 1) each window's first TC block, *wr (nw + 1) its first
   residual nonzero, *lrow (one per residual nonzero, + 1) each residual
   nonzero's row in its window. All malloc'ed, the caller's. */
tc_status tc_rstile_layout_windows(const tc_rstile *m, int64_t **wb, int64_t **wr,
                                   uint8_t **lrow, tc_error *err);

#ifdef __cplusplus
}
#endif

#endif
