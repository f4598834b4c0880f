/*
 * rowsplit.h: the in-memory layout of the `rowsplit` format, shared by
 * formats/rowsplit.c (build, decode, files), formats/rowsplit_layout.c
 * (the segments and the kernel's work list) and kernels/rowsplit.cu (the
 * CUDA-core kernel), which read the same arrays.
 *
 * Why a format for CUDA cores: on low-density graphs (a 16 x 8 tensor-core
 * block holding one or two nonzeros) no tensor-core format pays, and the
 * CUDA-core kernel that beats cuSPARSE there needs its work cut into
 * pieces of about equal cost with no search at run time. rowsplit is the
 * matrix in CSR plus that cut: segments.
 *
 * Row order (parameter `order`): the CSR holds the rows in the matrix's
 * own order (0), or longest first (1: a stable sort by length), with
 * `rows` saying which row of the matrix each stored row is. The kernel
 * stores its row i into row rows->new2old[i] of C, so the order costs
 * nothing at run time and C comes out in the caller's order: it only
 * decides which rows run side by side. On a power-law graph rows of about
 * the same length share columns far more often than rows in label order
 * (the long rows, the hubs), so more of the rows of B a thread block
 * gathers are found in L1 (bench/NOTES.md, "rowsplit", "Rows longest
 * first"). Segments and everything below speak of stored rows.
 *
 * Segments: consecutive runs of the matrix's nonzeros, in row order. The
 * cost of a segment is its nonzeros plus `rowcost` times the rows of C it
 * writes: storing a row moves as many bytes as gathering a row of B for a
 * nonzero, and the row's end costs the kernel about as much again (it
 * takes its warp off the step that has no row end; rowcost 2, measured:
 * rowsplit.c); the parameter `seg` bounds the cost. Short rows are packed
 * whole, several to a segment, so that the group of lanes that takes a
 * segment always has work; a row whose cost alone passes `seg` is split
 * into pieces of nearly equal length, each a segment of its own that
 * writes only that row. So a segment is either
 *   - whole rows seg_row[s] .. next(s) - 1, where next(s) is
 *     seg_row[s + 1] (rows for the last segment), with exactly their
 *     nonzeros, empty rows included (the kernel writes their zeros); or
 *   - a piece of one split row r = seg_row[s], which it shares with a
 *     neighbouring segment: nonzeros seg_start[s] .. seg_start[s + 1] - 1,
 *     at least one, all of row r.
 * seg_start[s] is segment s's first nonzero; seg_start[nseg] = nnz.
 *
 * The kernel adds the pieces of a split row in a workspace, one slot of a
 * row of C per piece, and the last piece to finish sums them in piece
 * order: C is written once, by plain stores, and the result does not
 * depend on the order pieces ran in. tc_rowsplit_work lays that out.
 */
#ifndef TC_ROWSPLIT_H
#define TC_ROWSPLIT_H

#include "formats.h"

/* The least `seg`: a piece of a split row costs at least one nonzero and
   its row. */
#define TC_ROWSPLIT_SEG_MIN 2

typedef struct tc_rowsplit {
    tc_fmt base;
    int32_t seg;                /* the parameter: the most cost of a segment */
    int32_t rowcost;            /* the parameter: a row's share of that cost */
    tc_csr *a;                  /* the matrix in CSR, rows in stored order
                                   (its field says whether it has values) */
    tc_perm *rows;              /* order 1: new2old[i] is the matrix's row
                                   stored as row i; NULL for order 0 */
    int64_t nseg;
    int32_t *seg_row;           /* nseg: the first row of each segment */
    int64_t *seg_start;         /* nseg + 1: the first nonzero of each */
} tc_rowsplit;

/* One segment as the kernel runs it (tc_rowsplit_work). */
typedef struct tc_rowsplit_seg {
    int64_t nz0, nz1;           /* its nonzeros */
    int32_t row0, nrows;        /* the rows it writes (1 for a piece) */
    int32_t slot;               /* a piece: its slot of the workspace; -1 for
                                   whole rows, stored straight into C */
    int32_t first;              /* a piece: the slot of its row's first piece */
    int32_t parts;              /* a piece: its row's pieces; 1 otherwise */
    int32_t counter;            /* a piece: its row's arrival counter */
} tc_rowsplit_seg;

typedef struct tc_rowsplit_work_list {
    tc_rowsplit_seg *seg;       /* nseg entries */
    int64_t nseg;
    int32_t nslots;             /* pieces of split rows: workspace rows */
    int32_t nsplit;             /* split rows: arrival counters */
} tc_rowsplit_work_list;

/* The segments as the "lockstep" kernel runs them (tc_rowsplit_runs):
   items, each a whole row or a piece of a split row, in stored order; a
   warp takes a run of items, its `groups` groups of lanes one item each,
   side by side, so that items of about the same length (rows longest
   first, a split row's pieces) end together and no lane tests for a
   row's end a nonzero. */
typedef struct tc_rowsplit_run_list {
    int32_t *item;              /* nitems: >= 0 a whole stored row; < 0 the
                                   piece that is segment -item - 1 */
    int64_t nitems;
    int64_t *run_start;         /* nruns + 1: each run's first item;
                                   run_start[nruns] = nitems */
    int64_t nruns;
} tc_rowsplit_run_list;

#ifdef __cplusplus
extern "C" {
#endif

/* Cuts a's rows into segments of cost at most seg (> rowcost): rows
   packed greedily in row order, a row costing more split into
   ceil(len / (seg - rowcost)) pieces of nearly equal length. Fills m's
   nseg, seg_row and seg_start (malloc'ed). */
tc_status tc_rowsplit_cut(tc_rowsplit *m, tc_error *err);
/* The least seg (rowcost + 1..cap) whose cut of m->a has at most `most`
   segments; cap where none has (the format's parameter segs). */
int32_t tc_rowsplit_seg_for(const tc_rowsplit *m, int64_t most, int32_t cap);
/* m's segments as the kernel runs them; TC_ERR_UNSUPPORTED when the pieces
   of split rows pass 2^31 - 1. Relies on what validate checks. */
tc_status tc_rowsplit_work(const tc_rowsplit *m, tc_rowsplit_work_list *w, tc_error *err);
void tc_rowsplit_work_free(tc_rowsplit_work_list *w);
/* m's items in runs for warps of `groups` (>= 1) groups of lanes: a step
   is the next `groups` items, one a group, and costs the longest of them
   plus rowcost (its rows stored); steps are packed greedily into runs of
   cost at most m->seg (a step alone may pass it). TC_ERR_UNSUPPORTED when the
   segments pass 2^31 - 1. */
tc_status tc_rowsplit_runs(const tc_rowsplit *m, int groups, tc_rowsplit_run_list *r,
                           tc_error *err);
void tc_rowsplit_runs_free(tc_rowsplit_run_list *r);
/* Whether segment s is a piece of a split row (shares its first row with a
   neighbour). */
int tc_rowsplit_is_piece(const tc_rowsplit *m, int64_t s);
/* The matrix's row that stored row i is (i itself in order 0). */
int64_t tc_rowsplit_row(const tc_rowsplit *m, int32_t i);
/* next(s) above: the row after segment s's last whole row, or its row + 1
   for a piece. */
int32_t tc_rowsplit_end_row(const tc_rowsplit *m, int64_t s);

#ifdef __cplusplus
}
#endif

#endif
