/*
 * segment.h: the unit of work of the block-row kernels (kernels/segments.h
 * says how they run it): a run of consecutive tensor-core blocks of one
 * 16-row window. Plain C, so that the host-side re-layouts of formats/
 * (rstile_layout.c) build them where the CPU tests and fuzzers reach them.
 */
#ifndef TC_SEGMENT_H
#define TC_SEGMENT_H

#include <stdint.h>

#define TC_SEG_ROWS 16

typedef struct tc_seg {
    int64_t block;              /* first block */
    int32_t row0;               /* the window's first row */
    int32_t nblocks;
    uint32_t mask;              /* bit r: the segment writes row row0 + r */
    uint32_t split;             /* 1: the window has several segments */
} tc_seg;

#endif
