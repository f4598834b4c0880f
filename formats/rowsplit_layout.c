/*
 * rowsplit_layout.c: the segments of the rowsplit format (rowsplit.h) and
 * the work list its kernel uploads, here in C so that the CPU tests, the
 * format's spmm_ref and the fuzzers run the same code the GPU plan does.
 */
#include "config.h"
#include <stdlib.h>

#include "rowsplit.h"

/* The cut of a by seg (> rowcost, a row's cost): the number of segments,
   and with seg_row and seg_start (room for that many, and one more start)
   their first rows and nonzeros. Run twice, to count and to fill, so that
   the arrays are the size of the cut, not of its bound (rows + nnz). */
static int64_t cut(const tc_csr *a, int32_t seg, int32_t rowcost, int32_t *seg_row,
                   int64_t *seg_start)
{
    int64_t n = 0, cost = 0;    /* segments started; cost of the open one */
    for (int32_t r = 0; r < a->rows; r++) {
        const int64_t lo = a->rowptr[r], len = a->rowptr[r + 1] - lo;
        if (len + rowcost <= seg) {
            if (cost == 0 || cost + len + rowcost > seg) {
                if (seg_row) {
                    seg_row[n] = r;
                    seg_start[n] = lo;
                }
                n++;
                cost = 0;
            }
            cost += len + rowcost;
            continue;
        }
        const int64_t room = seg - rowcost;    /* a piece's nonzeros */
        const int64_t parts = (len + room - 1) / room;
        for (int64_t j = 0; j < parts; j++, n++)
            if (seg_row) {
                seg_row[n] = r;
                seg_start[n] = lo + len * j / parts;
            }
        cost = 0;
    }
    if (seg_start)
        seg_start[n] = a->nnz;
    return n;
}

int32_t tc_rowsplit_seg_for(const tc_rowsplit *m, int64_t most, int32_t cap)
{
    int32_t lo = m->rowcost + 1, hi = cap;
    if (cut(m->a, hi, m->rowcost, NULL, NULL) > most)
        return hi;
    /* the count falls as seg grows: the least seg at most `most` */
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (cut(m->a, mid, m->rowcost, NULL, NULL) <= most)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

tc_status tc_rowsplit_cut(tc_rowsplit *m, tc_error *err)
{
    m->nseg = cut(m->a, m->seg, m->rowcost, NULL, NULL);
    m->seg_row = tc_malloc_array(m->nseg + 1, sizeof *m->seg_row, err);
    m->seg_start = tc_malloc_array(m->nseg + 1, sizeof *m->seg_start, err);
    if (!m->seg_row || !m->seg_start)
        return TC_ERR_NOMEM;
    cut(m->a, m->seg, m->rowcost, m->seg_row, m->seg_start);
    return TC_OK;
}

int tc_rowsplit_is_piece(const tc_rowsplit *m, int64_t s)
{
    return (s > 0 && m->seg_row[s - 1] == m->seg_row[s]) ||
           (s + 1 < m->nseg && m->seg_row[s + 1] == m->seg_row[s]);
}

int64_t tc_rowsplit_row(const tc_rowsplit *m, int32_t i)
{
    return m->rows ? m->rows->new2old[i] : i;
}

int32_t tc_rowsplit_end_row(const tc_rowsplit *m, int64_t s)
{
    if (tc_rowsplit_is_piece(m, s))
        return m->seg_row[s] + 1;
    return s + 1 < m->nseg ? m->seg_row[s + 1] : m->base.rows;
}

tc_status tc_rowsplit_work(const tc_rowsplit *m, tc_rowsplit_work_list *w, tc_error *err)
{
    *w = (tc_rowsplit_work_list){ 0 };
    w->seg = tc_malloc_array(m->nseg + 1, sizeof *w->seg, err);
    if (!w->seg)
        return TC_ERR_NOMEM;
    int64_t slots = 0, split = 0;
    int64_t first = 0, parts = 0;   /* the split row being walked */
    for (int64_t s = 0; s < m->nseg; s++) {
        const int32_t r = m->seg_row[s];
        tc_rowsplit_seg *g = &w->seg[s];
        *g = (tc_rowsplit_seg){ .nz0 = m->seg_start[s], .nz1 = m->seg_start[s + 1],
                                .row0 = r, .nrows = tc_rowsplit_end_row(m, s) - r,
                                .slot = -1, .first = -1, .parts = 1, .counter = -1 };
        if (!tc_rowsplit_is_piece(m, s))
            continue;
        if (s == 0 || m->seg_row[s - 1] != r) {
            /* its first piece: count the row's pieces once */
            first = s;
            for (parts = 1; s + parts < m->nseg && m->seg_row[s + parts] == r; parts++)
                ;
            if (slots + parts > INT32_MAX || split >= INT32_MAX) {
                tc_rowsplit_work_free(w);
                return tc_error_set(err, TC_ERR_UNSUPPORTED,
                                    "rowsplit: more than 2^31 - 1 pieces of split rows");
            }
        }
        g->slot = (int32_t)(slots + (s - first));
        g->first = (int32_t)slots;
        g->parts = (int32_t)parts;
        g->counter = (int32_t)split;
        if (s - first == parts - 1) {
            slots += parts;
            split++;
        }
    }
    w->nseg = m->nseg;
    w->nslots = (int32_t)slots;
    w->nsplit = (int32_t)split;
    return TC_OK;
}

void tc_rowsplit_work_free(tc_rowsplit_work_list *w)
{
    free(w->seg);
    *w = (tc_rowsplit_work_list){ 0 };
}

/* Item i's nonzeros (see tc_rowsplit_run_list). */
static int64_t item_len(const tc_rowsplit *m, int32_t i)
{
    if (i >= 0)
        return m->a->rowptr[i + 1] - m->a->rowptr[i];
    return m->seg_start[-(int64_t)i] - m->seg_start[-(int64_t)i - 1];
}

/* The runs of r->item (see tc_rowsplit_runs); with run_start (room for
   the count and one more) their first items. Run twice, as cut. */
static int64_t pack_runs(const tc_rowsplit *m, const tc_rowsplit_run_list *r, int groups,
                         int64_t *run_start)
{
    int64_t n = 0, cost = 0;
    for (int64_t e = 0; e < r->nitems; e += groups) {
        int64_t step = 0;
        for (int64_t i = e; i < r->nitems && i < e + groups; i++) {
            const int64_t len = item_len(m, r->item[i]);
            step = len > step ? len : step;
        }
        step += m->rowcost;
        if (cost == 0 || cost + step > m->seg) {
            if (run_start)
                run_start[n] = e;
            n++;
            cost = 0;
        }
        cost += step;
    }
    if (run_start)
        run_start[n] = r->nitems;
    return n;
}

tc_status tc_rowsplit_runs(const tc_rowsplit *m, int groups, tc_rowsplit_run_list *r,
                           tc_error *err)
{
    *r = (tc_rowsplit_run_list){ 0 };
    if (m->nseg > INT32_MAX)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "rowsplit: more than 2^31 - 1 segments for the lockstep kernel");
    r->item = tc_malloc_array((int64_t)m->base.rows + m->nseg + 1, sizeof *r->item, err);
    if (!r->item)
        return TC_ERR_NOMEM;
    for (int64_t s = 0; s < m->nseg; s++)
        if (tc_rowsplit_is_piece(m, s))
            r->item[r->nitems++] = (int32_t)(-s - 1);
        else
            for (int32_t i = m->seg_row[s]; i < tc_rowsplit_end_row(m, s); i++)
                r->item[r->nitems++] = i;
    r->nruns = pack_runs(m, r, groups, NULL);
    r->run_start = tc_malloc_array(r->nruns + 1, sizeof *r->run_start, err);
    if (!r->run_start) {
        tc_rowsplit_runs_free(r);
        return TC_ERR_NOMEM;
    }
    pack_runs(m, r, groups, r->run_start);
    return TC_OK;
}

void tc_rowsplit_runs_free(tc_rowsplit_run_list *r)
{
    free(r->item);
    free(r->run_start);
    *r = (tc_rowsplit_run_list){ 0 };
}
