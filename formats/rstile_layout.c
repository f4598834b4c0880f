/*
 * rstile_layout.c: the arrays the rstile kernels upload, built on the host
 * from the format's own (rstile_layout.h). The kernels' side of each is in
 * kernels/rstile.cu, where these used to be written in CUDA host C++.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "half.h"
#include "rstile_layout.h"

#define WROWS TC_RSTILE_H_ROWS
#define BCOLS TC_RSTILE_W_COLS

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

int64_t tc_rstile_padded_values(int count)
{
    return (count + 7) & ~7;
}

/* Bit r of the result: row row0 + r exists and is not a residual row. */
static uint32_t window_mask(const tc_rstile *m, const uint8_t *residual, int32_t row0)
{
    uint32_t mask = 0;
    for (int r = 0; r < WROWS && row0 + r < m->base.rows; r++)
        if (!residual[row0 + r])
            mask |= 1u << r;
    return mask;
}

tc_status tc_rstile_layout_segments(const tc_rstile *m, tc_seg **out, int64_t *nseg,
                                    tc_error *err)
{
    const int64_t nwin = ceil_div(m->base.rows, WROWS);
    uint8_t *residual = tc_calloc_array((int64_t)m->base.rows + 1, 1, err);
    uint8_t *has_seg = tc_calloc_array(nwin + 1, 1, err);
    tc_seg *seg = tc_malloc_array(m->nsegments + nwin + 1, sizeof *seg, err);
    if (!residual || !has_seg || !seg) {
        free(residual);
        free(has_seg);
        free(seg);
        return TC_ERR_NOMEM;
    }
    for (int64_t i = 0; i < m->nres_rows; i++)
        residual[m->res_row_id[i]] = 1;
    int64_t k = 0;
    for (int64_t i = 0; i < m->nsegments; i++) {
        const int32_t row0 = m->row_window_id[i];
        const int is_split = (i > 0 && m->row_window_id[i - 1] == row0) ||
                             (i + 1 < m->nsegments && m->row_window_id[i + 1] == row0);
        const int64_t b0 = m->row_window_offset[i];
        seg[k].block = b0;
        seg[k].row0 = row0;
        seg[k].nblocks = (int32_t)(m->row_window_offset[i + 1] - b0);
        seg[k].mask = window_mask(m, residual, row0);
        seg[k].split = (uint32_t)is_split;
        has_seg[row0 / WROWS] = 1;
        k++;
    }
    for (int64_t w = 0; w < nwin; w++) {
        const uint32_t mask = window_mask(m, residual, (int32_t)(w * WROWS));
        if (has_seg[w] || !mask)
            continue;
        seg[k] = (tc_seg){ 0, (int32_t)(w * WROWS), 0, mask, 0 };
        k++;
    }
    free(residual);
    free(has_seg);
    *out = seg;
    *nseg = k;
    return TC_OK;
}

int64_t *tc_rstile_layout_starts(const tc_rstile *m, tc_error *err)
{
    int64_t *vstart = tc_malloc_array(m->nblocks + 1, sizeof *vstart, err);
    if (!vstart)
        return NULL;
    vstart[0] = 0;
    for (int64_t b = 0; b < m->nblocks; b++)
        vstart[b + 1] = vstart[b] + tc_rstile_padded_values(
                                        (int)(m->value_offset[b + 1] - m->value_offset[b]));
    return vstart;
}

tc_status tc_rstile_layout_values(const tc_rstile *m, const int64_t *vstart, uint16_t **val,
                                  float **row_scale, tc_error *err)
{
    *val = NULL;
    *row_scale = NULL;
    if (!m->values)
        return TC_OK;
    double *scale = tc_calloc_array((int64_t)m->base.rows + 1, sizeof *scale, err);
    uint16_t *h = tc_calloc_array(vstart[m->nblocks] + 1, sizeof *h, err);
    float *rs = tc_malloc_array((int64_t)m->base.rows + 1, sizeof *rs, err);
    if (!scale || !h || !rs) {
        free(scale);
        free(h);
        free(rs);
        return TC_ERR_NOMEM;
    }
    /* two walks over the bitmaps in value order: row maxima, then values */
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t s = 0; s < m->nsegments; s++)
            for (int64_t b = m->row_window_offset[s]; b < m->row_window_offset[s + 1]; b++) {
                int64_t v = m->value_offset[b], d = vstart[b];
                for (int bit = 0; bit < WROWS * BCOLS; bit++) {
                    if (!((m->bitmap[2 * b + bit / 64] >> (bit % 64)) & 1))
                        continue;
                    const int32_t row = m->row_window_id[s] + bit / BCOLS;
                    if (pass == 0)
                        scale[row] = fmax(scale[row], fabs(m->values[v]));
                    else
                        h[d++] = tc_half_from_float((float)(m->values[v] / scale[row]));
                    v++;
                }
            }
        if (pass == 0)
            for (int32_t r = 0; r < m->base.rows; r++)
                scale[r] = tc_half_scale(scale[r]);
    }
    for (int32_t r = 0; r < m->base.rows; r++)
        rs[r] = (float)scale[r];
    free(scale);
    *val = h;
    *row_scale = rs;
    return TC_OK;
}

tc_status tc_rstile_layout_windows(const tc_rstile *m, int64_t **wbp, int64_t **wrp,
                                   uint8_t **lrowp, tc_error *err)
{
    const int64_t nw = ceil_div(m->base.rows, WROWS), nr = m->res_row_offset[m->nres_rows];
    int64_t *wb = tc_malloc_array(nw + 1, sizeof *wb, err);
    int64_t *wr = tc_malloc_array(nw + 1, sizeof *wr, err);
    uint8_t *lrow = tc_malloc_array(nr + 1, 1, err);
    *wbp = *wrp = NULL;
    *lrowp = NULL;
    if (!wb || !wr || !lrow) {
        free(wb);
        free(wr);
        free(lrow);
        return TC_ERR_NOMEM;
    }
    int64_t s = 0, r = 0;
    for (int64_t w = 0; w <= nw; w++) {
        /* the segments and residual rows of the windows before w */
        while (s < m->nsegments && m->row_window_id[s] < w * WROWS)
            s++;
        while (r < m->nres_rows && m->res_row_id[r] < w * WROWS)
            r++;
        wb[w] = m->row_window_offset[s];
        wr[w] = m->res_row_offset[r];
    }
    for (int64_t i = 0; i < m->nres_rows; i++)
        for (int64_t e = m->res_row_offset[i]; e < m->res_row_offset[i + 1]; e++)
            lrow[e] = (uint8_t)(m->res_row_id[i] % WROWS);
    *wbp = wb;
    *wrp = wr;
    *lrowp = lrow;
    return TC_OK;
}
