/*
 * hrpb.h: the in-memory layout of the `hrpb` format (Hierarchical
 * Row-Panel Blocking of cuTeSpMM, seed 002, Section 3.2, Figs. 3-5),
 * shared by formats/hrpb.c (build, decode, files) and kernels/hrpb.cu (the
 * GPU kernel, Algorithm 1), which read the same arrays.
 *
 * Panels. The rows are cut into row panels of TM rows (parameter TM, 16
 * or 32; the paper runs 16): panel p holds rows p*TM .. p*TM+TM-1, the
 * last one fewer when rows is not a multiple of TM (its missing rows hold
 * no nonzero). A panel's active columns, those holding a nonzero in one of
 * its rows, are taken in increasing order ("compacted to the left") and
 * cut into blocks of TK of them (parameter TK, a multiple of 4 up to 64;
 * the paper's 16): the panel's block i covers its active columns
 * i*TK .. i*TK+TK-1, all TM rows. Only the last block of a panel may have
 * fewer than TK active columns; a panel with no nonzero has no block.
 * Blocks are numbered panel after panel.
 *
 * Bricks. A block is cut into bricks of 16 rows x 4 compacted columns (the
 * A operand of the TF32 mma.m16n8k4): brick (br, bc) covers rows
 * 16*br .. 16*br+15 of the panel and the block's compacted columns
 * 4*bc .. 4*bc+3 (br < TM/16, bc < TK/4). Its "brick column" bc is the
 * paper's CSC column. A brick holding a nonzero is active; only active
 * bricks are stored.
 *
 * Brick pattern: 64 bits, bit (r*4 + c) for row r (0..15) and local
 * column c (0..3) of the brick, bit 0 the least significant: row-major,
 * which is the order of the brick's values. It is the m16n8k4 TF32 A
 * fragment's order: lane L of a warp holds a0 = (row L/4, column L%4),
 * which is bit L, and a1 = (row L/4 + 8, column L%4), bit L + 32 (the
 * paper's pattern[lane_id] and pattern[lane_id + 32], Algorithm 1 lines
 * 33-37). If its bit is set, the value is the brick's value number
 * popc(pattern & ((1 << bit) - 1)), else the operand is 0:
 *
 *     a0 = pattern >> L & 1 ? brick_values[__popcll(pattern & ((1ull << L) - 1))] : 0
 *     a1 = pattern >> (L+32) & 1 ? brick_values[__popcll(pattern & ((1ull << (L+32)) - 1))] : 0
 *
 * An explicit zero of the matrix (a nonzero whose value is 0) has its bit
 * set; the pattern, not the value, says what is a nonzero.
 *
 * Arrays (lengths with P = npanels = ceil(rows / TM), NB = nblocks):
 *
 *   blockedRowPtr  int64, P + 1: panel p holds blocks blockedRowPtr[p] ..
 *                  blockedRowPtr[p+1]-1; [0] = 0, [P] = NB.
 *   activeCols     int32, NB * TK: activeCols[b*TK + j] is the matrix
 *                  column of compacted column j of block b, strictly
 *                  increasing along a panel's blocks; the trailing slots of
 *                  a panel's last block hold TC_HRPB_DUMMY_COL (-1), never a
 *                  real column, so a kernel loads zeros for them (an Inf or
 *                  NaN of B cannot leak in through padding). Brick column bc
 *                  local column c reads B row activeCols[b*TK + 4*bc + c].
 *   sizePtr        int64, NB + 1: block b is bytes sizePtr[b] ..
 *                  sizePtr[b+1]-1 of packedBlocks (Fig. 5); every block's
 *                  size is a multiple of 16, so every block starts 16-byte
 *                  aligned (the buffer itself is); [0] = 0.
 *   packedBlocks   uint8, sizePtr[NB]: the blocks (Fig. 4), each:
 *                    offset 0         uint8   colPtr[TK/4 + 1]: brick column
 *                                             bc's bricks are bricks
 *                                             colPtr[bc] .. colPtr[bc+1]-1;
 *                                             colPtr[0] = 0, nb =
 *                                             colPtr[TK/4] active bricks
 *                    TK/4 + 1         uint8   rows[nb]: brick row br of each
 *                                             brick, strictly increasing in
 *                                             a brick column
 *                    zero bytes up to PA = tc_hrpb_patterns_at(TK, nb)
 *                                             (a multiple of 8)
 *                    PA               uint64  patterns[nb]
 *                    VA = PA + 8*nb   float32 values[nz]: nz = the popcounts
 *                                             of the patterns; brick after
 *                                             brick, row-major inside a brick
 *                                             (ascending bit); a pattern
 *                                             matrix's ones are 1.0f
 *                    zero bytes up to tc_hrpb_block_bytes(TK, nb, nz)
 *                  Bricks are in CSC order: brick column 0's bricks by
 *                  increasing brick row, then brick column 1's, ...; a brick's
 *                  values start at VA + 4 * (popcounts of the bricks before
 *                  it in its block): Algorithm 1's nnz_offset. Multi-byte
 *                  fields are little-endian (the host's and the GPU's order).
 *   valuePtr       int64, NB + 1: block b's values are values[valuePtr[b] ..
 *                  valuePtr[b+1]-1], in the same order as in its packed
 *                  block; [0] = 0, [NB] = nnz. (Ours: the exact copy.)
 *   values         float64, nnz, or NULL for a pattern matrix: the exact
 *                  values, for to_csr; packedBlocks holds them as float32,
 *                  the kernel's TF32 input.
 *
 * So a reader finds block b's metadata, float32 and float64 values from
 * sizePtr[b] and valuePtr[b] alone, without walking the stream. The
 * kernel needs blockedRowPtr, activeCols, sizePtr and packedBlocks; the
 * host keeps valuePtr and values.
 */
#ifndef TC_HRPB_H
#define TC_HRPB_H

#include "formats.h"
#include "synergy.h"

#define TC_HRPB_DUMMY_COL (-1)
#define TC_HRPB_ALIGN 16        /* block sizes are multiples of this */

typedef struct tc_hrpb {
    tc_fmt base;
    int tm, tk;                 /* TM and TK (parameters of base) */
    int64_t npanels;            /* ceil(rows / TM) */
    int64_t nblocks;
    int64_t *blockedRowPtr;     /* npanels + 1 */
    int32_t *activeCols;        /* nblocks * tk */
    int64_t *sizePtr;           /* nblocks + 1 */
    uint8_t *packedBlocks;      /* sizePtr[nblocks] bytes */
    int64_t *valuePtr;          /* nblocks + 1 */
    double *values;             /* nnz, or NULL (pattern) */
} tc_hrpb;

/* Offset of a block's patterns: colPtr (tk/4 + 1 bytes) and rows (nb
   bytes), rounded up to 8. */
static inline int64_t tc_hrpb_patterns_at(int tk, int64_t nb)
{
    return (tk / TC_BRICK_K + 1 + nb + 7) / 8 * 8;
}

/* Offset of a block's float32 values. */
static inline int64_t tc_hrpb_values_at(int tk, int64_t nb)
{
    return tc_hrpb_patterns_at(tk, nb) + 8 * nb;
}

/* Size of a block of nb active bricks and nz nonzeros, a multiple of
   TC_HRPB_ALIGN. */
static inline int64_t tc_hrpb_block_bytes(int tk, int64_t nb, int64_t nz)
{
    return (tc_hrpb_values_at(tk, nb) + 4 * nz + TC_HRPB_ALIGN - 1) / TC_HRPB_ALIGN *
           TC_HRPB_ALIGN;
}

#endif
