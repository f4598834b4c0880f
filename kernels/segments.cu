/*
 * segments.cu: ordering the segments of the block-row kernels and zeroing
 * the rows their split windows add into (segments.h).
 */
#include <stdlib.h>

#include "segments.h"

/* Split first, then descending length, then ascending position (first
   block, then first row: segments of no blocks share their block). */
static int seg_order(const void *x, const void *y)
{
    const tc_seg *a = (const tc_seg *)x, *b = (const tc_seg *)y;
    if (a->split != b->split)
        return a->split ? -1 : 1;
    if (a->nblocks != b->nblocks)
        return a->nblocks > b->nblocks ? -1 : 1;
    if (a->block != b->block)
        return a->block < b->block ? -1 : 1;
    return a->row0 < b->row0 ? -1 : a->row0 > b->row0;
}

void tc_segs_order(tc_seg *seg, int64_t n, int64_t *nsplit)
{
    qsort(seg, (size_t)n, sizeof *seg, seg_order);
    int64_t k = 0;
    while (k < n && seg[k].split)
        k++;
    *nsplit = k;
}

__global__ void zero_split(const tc_seg *seg, int64_t nseg, float *C, int32_t n)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t per_seg = (int64_t)TC_SEG_ROWS * n;
    if (i >= nseg * per_seg)
        return;
    const tc_seg s = seg[i / per_seg];
    const int r = (int)(i % per_seg / n);
    if ((s.mask >> r) & 1)
        C[(int64_t)(s.row0 + r) * n + i % n] = 0.0f;
}

tc_status tc_gpu_zero_split(tc_gpu *g, const tc_seg *seg, int64_t nsplit, float *C, int32_t n,
                            tc_error *err)
{
    const int64_t items = nsplit * TC_SEG_ROWS * n;
    if (items == 0)
        return TC_OK;
    if ((items + 255) / 256 > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "zeroing %lld split rows is more than one launch takes",
                            (long long)(nsplit * TC_SEG_ROWS));
    zero_split<<<(unsigned)((items + 255) / 256), 256, 0, g->stream>>>(seg, nsplit, C, n);
    return TC_LAUNCHED(err, "zero_split");
}
