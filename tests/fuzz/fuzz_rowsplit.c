/*
 * fuzz_rowsplit.c: libFuzzer target for the host side of the rowsplit
 * kernel's layout (formats/rowsplit_layout.c): the segments and the work
 * list kernels/rowsplit.cu uploads, built from any small matrix and any
 * segment cost and row cost, must keep every promise the kernel relies on: each
 * nonzero in exactly one segment, each row of C written exactly once (by
 * its whole-rows segment, or by the last piece of a split row), the
 * pieces of a row on consecutive workspace slots with one counter, no
 * segment costing more than seg; the lockstep kernel's items (each whole
 * row once, each piece once, in order) in runs that start at 0, rise and
 * end at the last item; the format validates against its matrix and its
 * spmm_ref, which sums as the kernel does, equals CSR SpMM.
 *
 * The input: byte 0 the rows and byte 1 the columns (up to 70), byte 2
 * flags (pattern, a dense row, a dense column) and in bits 4-5 rowcost
 * less 1 (1 .. 4), byte 3 seg less rowcost (1 .. 40, or the default when
 * its top bit is set), then three bytes per entry: row,
 * column, a signed value (fuzz_small_matrix). Values are small integers
 * and powers of two from 2^-20 to 2^19, B small integers: every sum of
 * products spans under 53 bits, so both products are exact whatever the
 * order of the sums.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "rowsplit.h"
#include "fuzz.h"

enum {
    HEAD = 4,
    N = 3
};

/* The work list's promises (above); the first broken one in why. */
static int work_keeps_promises(const tc_rowsplit *m, const tc_rowsplit_work_list *w,
                               char *why, size_t len)
{
    const tc_csr *a = m->a;
    int *nz_seen = calloc((size_t)a->nnz + 1, sizeof *nz_seen);
    int *row_written = calloc((size_t)a->rows + 1, sizeof *row_written);
    int *slot_seen = calloc((size_t)w->nslots + 1, sizeof *slot_seen);
    int *counter_rows = malloc(((size_t)w->nsplit + 1) * sizeof *counter_rows);
    if (!nz_seen || !row_written || !slot_seen || !counter_rows)
        fuzz_fail("out of memory");
    for (int32_t i = 0; i < w->nsplit; i++)
        counter_rows[i] = -1;
    int good = 1;
    for (int64_t s = 0; good && s < w->nseg; s++) {
        const tc_rowsplit_seg *g = &w->seg[s];
        const int64_t cost = g->nz1 - g->nz0 + (int64_t)m->rowcost * g->nrows;
        if (g->nrows < 1 || g->row0 + g->nrows > a->rows || cost > m->seg) {
            snprintf(why, len, "segment %lld: rows %d + %d, cost %lld (seg %d)", (long long)s,
                     g->row0, g->nrows, (long long)cost, m->seg);
            good = 0;
            break;
        }
        for (int64_t k = g->nz0; k < g->nz1; k++)
            nz_seen[k]++;
        if (g->slot < 0) {
            good = g->nz0 == a->rowptr[g->row0] && g->nz1 == a->rowptr[g->row0 + g->nrows];
            for (int32_t r = g->row0; r < g->row0 + g->nrows; r++)
                row_written[r]++;
            if (!good)
                snprintf(why, len, "segment %lld: whole rows without their nonzeros",
                         (long long)s);
            continue;
        }
        good = g->nrows == 1 && g->parts >= 2 && g->slot >= g->first &&
               g->slot < g->first + g->parts && g->first + g->parts <= w->nslots &&
               g->counter >= 0 && g->counter < w->nsplit &&
               (counter_rows[g->counter] < 0 || counter_rows[g->counter] == g->row0) &&
               g->nz1 > g->nz0 && g->nz0 >= a->rowptr[g->row0] &&
               g->nz1 <= a->rowptr[g->row0 + 1];
        if (!good) {
            snprintf(why, len, "segment %lld: a bad piece (slot %d, first %d, parts %d, "
                     "counter %d)", (long long)s, g->slot, g->first, g->parts, g->counter);
            break;
        }
        counter_rows[g->counter] = g->row0;
        slot_seen[g->slot]++;
        row_written[g->row0] += g->slot == g->first + g->parts - 1;
    }
    for (int64_t k = 0; good && k < a->nnz; k++)
        if (nz_seen[k] != 1) {
            snprintf(why, len, "nonzero %lld in %d segments", (long long)k, nz_seen[k]);
            good = 0;
        }
    for (int32_t r = 0; good && r < a->rows; r++)
        if (row_written[r] != 1) {
            snprintf(why, len, "row %d written %d times", r, row_written[r]);
            good = 0;
        }
    for (int32_t i = 0; good && i < w->nslots; i++)
        if (slot_seen[i] != 1) {
            snprintf(why, len, "slot %d used %d times", i, slot_seen[i]);
            good = 0;
        }
    free(nz_seen);
    free(row_written);
    free(slot_seen);
    free(counter_rows);
    return good;
}

/* The lockstep kernel's runs of m for `groups` groups (rowsplit.h): the
   items are the work list w's segments in order, a piece as -s - 1 and
   whole rows one by one; runs rise from 0 to the last item. */
static int runs_keep_promises(const tc_rowsplit *m, const tc_rowsplit_work_list *w, int groups,
                              char *why, size_t len)
{
    tc_rowsplit_run_list r;
    tc_error err;
    if (tc_rowsplit_runs(m, groups, &r, &err) != TC_OK)
        fuzz_fail("no runs for %d groups: %s", groups, err.msg);
    int64_t e = 0;
    int good = 1;
    for (int64_t s = 0; good && s < w->nseg; s++) {
        const tc_rowsplit_seg *g = &w->seg[s];
        if (g->slot >= 0)
            good = e < r.nitems && r.item[e++] == -s - 1;
        else
            for (int32_t i = g->row0; good && i < g->row0 + g->nrows; i++)
                good = e < r.nitems && r.item[e++] == i;
        if (!good)
            snprintf(why, len, "%d groups: item %lld is not segment %lld's", groups,
                     (long long)(e - 1), (long long)s);
    }
    if (good && e != r.nitems) {
        snprintf(why, len, "%d groups: %lld items, the segments make %lld", groups,
                 (long long)r.nitems, (long long)e);
        good = 0;
    }
    for (int64_t k = 0; good && k < r.nruns; k++)
        if (r.run_start[k] >= r.run_start[k + 1] || (k == 0 && r.run_start[0] != 0) ||
            (k + 1 == r.nruns && r.run_start[k + 1] != r.nitems)) {
            snprintf(why, len, "%d groups: run %lld starts at %lld, the next at %lld", groups,
                     (long long)k, (long long)r.run_start[k], (long long)r.run_start[k + 1]);
            good = 0;
        }
    tc_rowsplit_runs_free(&r);
    return good;
}

/* The format's spmm_ref against CSR SpMM on a B of small integers: equal
   exactly. */
static void check_product(const tc_fmt *m, const tc_csr *a)
{
    double *B = malloc(((size_t)a->cols * N + 1) * sizeof *B);
    double *C = malloc(((size_t)a->rows * N + 1) * sizeof *C);
    double *R = malloc(((size_t)a->rows * N + 1) * sizeof *R);
    tc_error err;
    if (!B || !C || !R)
        fuzz_fail("out of memory");
    for (int64_t i = 0; i < (int64_t)a->cols * N; i++)
        B[i] = (double)(i % 7) - 3;
    if (tc_fmt_spmm_ref(m, B, N, N, C, N, &err) != TC_OK ||
        tc_spmm_ref_f64(a, B, N, N, R, N, 1, &err) != TC_OK)
        fuzz_fail("spmm: %s", err.msg);
    if (memcmp(C, R, (size_t)a->rows * N * sizeof *C) != 0)
        fuzz_fail("%dx%d: rowsplit's spmm_ref differs from CSR SpMM", a->rows, a->cols);
    free(B);
    free(C);
    free(R);
}

/* An entry's value: a small signed integer (byte 2). */
static double entry_value(const uint8_t *e)
{
    return (int8_t)e[2];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEAD)
        return 0;
    tc_csr *a = fuzz_small_matrix(data, size, HEAD, 3, entry_value);
    const int32_t rows = a->rows, cols = a->cols;
    tc_fmt *m;
    tc_params p = { 0 };
    tc_error err;
    char text[48], why[256];
    const int rowcost = 1 + (data[2] >> 4 & 3);
    if (data[3] & 0x80)
        snprintf(text, sizeof text, "rowcost=%d", rowcost);
    else
        snprintf(text, sizeof text, "seg=%d,rowcost=%d", rowcost + 1 + data[3] % 40, rowcost);
    if (tc_params_parse(&p, text, &err) != TC_OK)
        fuzz_fail("bad parameters: %s", err.msg);
    const tc_format *f = tc_format_find("rowsplit");
    if (tc_fmt_build(f, a, &p, &m, &err) != TC_OK)
        fuzz_fail("rowsplit refused a %dx%d matrix at %s: %s", rows, cols, text, err.msg);
    if (f->validate(m, a, "built", &err) != TC_OK)
        fuzz_fail("%dx%d, %s: its own arrays refused: %s", rows, cols, text, err.msg);
    tc_rowsplit_work_list w;
    if (tc_rowsplit_work((const tc_rowsplit *)m, &w, &err) != TC_OK)
        fuzz_fail("no work list: %s", err.msg);
    if (!work_keeps_promises((const tc_rowsplit *)m, &w, why, sizeof why))
        fuzz_fail("%dx%d, %s: %s", rows, cols, text, why);
    for (int groups = 1; groups <= 32; groups *= 2)
        if (!runs_keep_promises((const tc_rowsplit *)m, &w, groups, why, sizeof why))
            fuzz_fail("%dx%d, %s: %s", rows, cols, text, why);
    tc_rowsplit_work_free(&w);
    check_product(m, a);
    tc_fmt_free(m);
    tc_csr_free(a);
    return 0;
}
