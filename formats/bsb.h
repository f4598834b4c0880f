/*
 * bsb.h: the in-memory layout of the `bsb` format (Binary Sparse Block of
 * Fused3S, seed 003, Section 3.1 and Fig. 1), shared by formats/bsb.c
 * (build, decode, files), formats/tcbsort.c (the window order) and the
 * GPU kernels (kernels/bsb.cu, kernels/attention.cu), which read the same
 * arrays.
 *
 * Row windows: the rows are cut into windows of 16 consecutive rows (window
 * w holds rows 16w .. 16w+15; the last one may be shorter: its rows past
 * the matrix have no bit). All windows are listed, empty ones too (no
 * block), so window w is entry w of tro: no window id array.
 *
 * Compaction and blocks (Section 3.1, steps 2-3): the distinct columns of a
 * window's nonzeros, in ascending order, are its compacted columns; column
 * place p (0-based) is local column p % 8 of the window's block p / 8. A
 * TCB (TC block) is the 16 x 8 tile of the window's 16 rows and 8 compacted
 * columns. The last block of a window may have fewer than 8 columns; its
 * unused slots hold the dummy column TC_BSB_DUMMY_COL (-1, never a real
 * column) and no bit: a kernel must load zeros (or skip) for them, never a
 * row of K, V or B, so that a NaN or Inf there cannot leak in.
 *
 * Arrays:
 *   tro[windows + 1]    int64: the window's first block, prefix sums of the
 *                       blocks per window (the paper's tcb_row_offset;
 *                       Algorithm 1 line 5 reads t = tro[i+1] - tro[i]);
 *                       tro[0] = 0, non-decreasing, tro[windows] = nblocks.
 *   sptd[8 * nblocks]   int32: the original column of each block column
 *                       (the paper's col_sparse_to_dense, stored in the
 *                       direction the kernel gathers K and V rows with):
 *                       sptd[8b + j] is local column j of block b. Strictly
 *                       ascending across a window's blocks, dummies only
 *                       after the last real column of the window's last
 *                       block. Every real column has at least one bit.
 *   bitmap[2 * nblocks] uint64: 128 bits per block. Entry (r, c) of block b
 *                       (row r = 0..15 of the window, local column c =
 *                       0..7) is bit (r % 8) * 8 + c of bitmap[2b + r / 8]:
 *                       rows 0-7 in the first word, rows 8-15 in the
 *                       second, row-major inside each word (the order of
 *                       rstile). A set bit is a structural nonzero of the
 *                       matrix, whatever its value (an explicit 0.0 too).
 *   values[nnz]         float64, or NULL (binary): with the `values`
 *                       parameter, the matrix's values, block after block,
 *                       each block's in ascending bit order (word 0 then
 *                       word 1: row-major within the block).
 *   value_offset[nblocks + 1]
 *                       int64, only with values (NULL otherwise): prefix
 *                       popcounts of the blocks, the first value of each
 *                       block. Derived from bitmap, not stored in files.
 *
 * Why this bit order suits the m16n8k16 fragments. Bits 2l and 2l+1 of a
 * word are row l / 4 (+ 8 in the second word), columns 2(l % 4) and
 * 2(l % 4) + 1: exactly the two entries that lane l of a warp holds in
 * an m16n8 C fragment (c0, c1 from word 0; c2, c3 from word 1). So the
 * SDDMM output S = Q K^T of a block is masked by lane l with
 * (bitmap[2b] >> 2l) & 3 and (bitmap[2b + 1] >> 2l) & 3, no shuffle. The
 * same bits give lane l its A fragment of the SpMM E V (m16n8k16, k = two
 * consecutive blocks of a window): a0 a1 from word 0 and a2 a3 from word 1
 * of the first block, a4 a5 and a6 a7 likewise of the second (a window
 * with an odd number of blocks pads the last k half with zeros). With
 * values, lane l's value of bit k of block b is values[value_offset[b] +
 * (popcount of the block's bits below k)].
 *
 * Values: binary by default (values == NULL): every set bit is 1, which is
 * what an attention mask or an adjacency matrix holds (Section 3.1:
 * "adjacency matrices and attention masks exhibit binary-valued
 * sparsity"); the format then decodes to the pattern of the matrix. With
 * the parameter values=1 and a matrix that has values, they are stored in
 * bitmap order so that bsb also serves SpMM.
 *
 * Schedule (Section 3.2, "row window reordering"): tc_bsb_window_order
 * lists the windows by decreasing block count, the order in which a
 * node-parallel kernel should hand them to thread blocks; the `tcbsort`
 * reordering applies the same order to the rows themselves.
 */
#ifndef TC_BSB_H
#define TC_BSB_H

#include "formats.h"

#define TC_BSB_H_ROWS 16        /* rows per row window (TCB height, the MMA's m) */
#define TC_BSB_W_COLS 8         /* columns per TCB (the MMA's n) */
#define TC_BSB_DUMMY_COL (-1)

typedef struct tc_bsb {
    tc_fmt base;
    int64_t windows;            /* ceil(rows / 16) */
    int64_t *tro;               /* windows + 1 */
    int64_t nblocks;            /* tro[windows] */
    int32_t *sptd;              /* 8 * nblocks */
    uint64_t *bitmap;           /* 2 * nblocks */
    double *values;             /* nnz, or NULL (binary) */
    int64_t *value_offset;      /* nblocks + 1 with values, else NULL */
} tc_bsb;

#ifdef __cplusplus
extern "C" {
#endif

/* tro of a as bsb would build it: tro[w + 1] - tro[w] is the number of
   TCBs of window w after its compaction (tro has ceil(rows / 16) + 1
   entries). The build's own count pass: O(16 nnz), no scratch, on
   $TC_THREADS threads, the same whatever their number. */
tc_status tc_bsb_count_tro(const tc_csr *a, int64_t *tro, tc_error *err);

/* The windows by decreasing block count, ties by window index (stable):
   order[i] is the i-th window, for windows [0, n) of tro (n + 1 entries).
   A counting sort: O(n + the largest count). */
tc_status tc_bsb_window_order(const int64_t *tro, int64_t n, int64_t *order, tc_error *err);

/* The order of one value per nonzero that the GPU kernels write (the SDDMM
   of kernels/attention.cu): bsb order, block after block, ascending bit in
   each block. offset gets the blocks' first places in it (prefix
   popcounts, nblocks + 1 entries) and to_csr, unless NULL, the CSR place of
   each (nnz entries: to_csr[k] is the position, in a's CSR order, of the
   nonzero that is k-th in bsb order). */
void tc_bsb_value_index(const tc_bsb *x, int64_t *offset, int64_t *to_csr);

#ifdef __cplusplus
}
#endif
#endif
