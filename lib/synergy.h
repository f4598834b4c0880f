/*
 * synergy.h: row panels with their columns compacted, the structure of
 * cuTeSpMM's HRPB (seed 002, Section 3.2), read straight off CSR, and the
 * TCU-Synergy figures of that structure (Sections 4 and 6.4). The panel
 * iterator is what formats/hrpb.c builds its blocks from; the counts are
 * what tcstat prints without building the format. Internal to the
 * library; not installed.
 *
 * A panel of tm rows (panel p holds rows p*tm .. p*tm+tm-1) has its
 * active columns (those holding a nonzero in it) taken in increasing
 * order and cut into blocks of tk of them; a block is cut into bricks of
 * TC_BRICK_M rows by TC_BRICK_K compacted columns, the A operand of the
 * TF32 mma.m16n8k4. A brick holding a nonzero is active. A "brick column"
 * of a block is its strip of TC_BRICK_K compacted columns, tm rows high
 * (the paper's colPtr indexes them); the "columns of a brick" are its
 * TC_BRICK_K single columns of TC_BRICK_M entries, those beyond the
 * panel's last active column excepted (they are padding).
 */
#ifndef TC_SYNERGY_H
#define TC_SYNERGY_H

#include "tcsparse.h"

#define TC_BRICK_M 16           /* brick rows: the m of mma.m16n8k4 */
#define TC_BRICK_K 4            /* brick columns: its k */
#define TC_PANEL_MAX_TM 32      /* the paper's TM: 16 or 32 */
#define TC_PANEL_MAX_TK 64
#define TC_PANEL_MAX_BRICK_ROWS (TC_PANEL_MAX_TM / TC_BRICK_M)
#define TC_PANEL_MAX_STRIPS (TC_PANEL_MAX_TK / TC_BRICK_K)

/* The tm x tk panel shapes these functions take: tm a multiple of
   TC_BRICK_M up to TC_PANEL_MAX_TM, tk a multiple of TC_BRICK_K up to
   TC_PANEL_MAX_TK; otherwise TC_ERR_ARG with "who: ..." in err. */
tc_status tc_panel_shape_check(int tm, int tk, const char *who, tc_status bad, tc_error *err);

/* One block of a panel. Brick pattern bit (r * TC_BRICK_K + c) stands
   for row r and compacted column c of the brick (row-major). */
typedef struct tc_panel_block {
    int ncols;                  /* compacted columns, 1 .. tk (fewer only in
                                   the panel's last block) */
    int32_t col[TC_PANEL_MAX_TK];   /* their matrix columns, ascending */
    uint64_t pattern[TC_PANEL_MAX_BRICK_ROWS][TC_PANEL_MAX_STRIPS];
                                /* [brick row][brick column], 0: inactive */
    int n;                      /* nonzeros of the block */
    int64_t k[TC_PANEL_MAX_TM * TC_PANEL_MAX_TK];   /* CSR index of each, in
                                   column-major order (column, then row) */
    uint16_t place[TC_PANEL_MAX_TM * TC_PANEL_MAX_TK];  /* each one's row in
                                   the panel * tk + its compacted column */
} tc_panel_block;

/* A panel's nonzeros in column-major order: its rows' sorted runs merged
   through a binary heap of one entry per row that still has nonzeros, so
   that nothing is sized by the number of columns. */
typedef struct tc_panel {
    const tc_csr *a;
    int tm, tk;
    int n;                          /* heap entries */
    uint64_t heap[TC_PANEL_MAX_TM]; /* column << 5 | row in the panel */
    int64_t pos[TC_PANEL_MAX_TM], end[TC_PANEL_MAX_TM];
} tc_panel;

/* Starts panel p of a (shape checked by the caller). */
void tc_panel_start(tc_panel *it, const tc_csr *a, int tm, int tk, int64_t p);
/* The panel's next block into *b: 1, or 0 when the panel is done. */
int tc_panel_next_block(tc_panel *it, tc_panel_block *b);

/* ceil(rows / tm). */
int64_t tc_panel_count(int32_t rows, int tm);
/* Calls fn(ctx, worker, p) for every panel p of tm rows of a, on up to
   $TC_THREADS threads taking chunks of panels in turn; worker (0 ..
   TC_MAX_JOBS-1) names the thread. Results must go to per-panel slots or
   be summed in integers, so that they do not depend on the thread
   count. */
void tc_panels_run(const tc_csr *a, int tm, void (*fn)(void *ctx, int worker, int64_t p),
                   void *ctx);

/* Adds one block to the counts of s: ncols compacted columns, and
   strip_bricks[j] active bricks in its brick column j (j < ceil(ncols /
   TC_BRICK_K)). */
void tc_synergy_add_block(tc_synergy *s, int ncols, const int *strip_bricks);
/* Adds the counts of x to s. */
void tc_synergy_add(tc_synergy *s, const tc_synergy *x);
/* The figures from the counts (nnz, tm, tk and the counts set). */
void tc_synergy_finish(tc_synergy *s);
/* s's figures under `section` of r: what tcstat's section "synergy" and
   the hrpb format's own figures both print (TC_ERR_NOMEM when memory is
   short, with no message: the callers' reports set it). */
tc_status tc_synergy_report(const tc_synergy *s, tc_report *r, const char *section);
/* Section "synergy" of tcstat: the figures of a at the paper's TM = 16,
   TK = 16. */
tc_status tc_synergy_section(const tc_csr *a, tc_report *r, tc_error *err);

#endif
