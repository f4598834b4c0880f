/*
 * bcsr.h: the in-memory layout of the `bcsr` format (SMaT, seed 004,
 * Section IV-B and Fig. 1), shared by formats/bcsr.c (build, decode, files)
 * and kernels/bcsr.cu (the GPU kernel), which read the same arrays.
 *
 * The matrix is cut into blocks of h x w aligned at multiples of the block
 * shape: block (I, J) covers rows I*h .. I*h+h-1 and columns J*w .. J*w+w-1.
 * Only blocks holding at least one nonzero are stored, block row after block
 * row, each block row's blocks in strictly increasing block column. Nothing
 * is sized by the number of all blocks, ceil(rows/h) * ceil(cols/w): rowPtr
 * has one entry per block row, the rest one (or h*w) per stored block.
 *
 * Block shape (the MMA operand A the kernel feeds each block to, Section
 * IV-B): h x w = 16 x 16 for FP16 mma.m16n8k16 (the default) or 16 x 8 for
 * TF32 mma.m16n8k8; no other shape is accepted.
 *
 * Edges: the last block row and block column may reach past the matrix
 * (rows or cols not a multiple of h or w). Their outside rows and columns
 * are padding: value 0, no bit. A kernel must neither write C rows >= rows
 * nor read B rows >= cols for them (B has exactly cols rows).
 *
 * Values: dense and zero padded, h*w per block, row-major inside the block:
 * entry (r, c) of block b (0 <= r < h, 0 <= c < w) is
 * values[b*h*w + r*w + c], the matrix entry (I*h + r, colIdx[b]*w + c).
 * float64 here and in files, so that the decode is exact; kernels/bcsr.cu
 * converts them to half, each row divided by a power of two (its tensor
 * core variant takes 16 x 16 blocks; 16 x 8 blocks, the TF32 mma.m16n8k8
 * shape, run on its CUDA-core variant, which reads the bitmap). A pattern
 * matrix has values == NULL: its nonzeros are 1 at the bitmap's bits, 0
 * elsewhere (the kernel builds that block from the bitmap).
 *
 * Bitmap: which entries of a block are nonzeros of the matrix, so that
 * to_csr gives the matrix back exactly: an explicit zero of the matrix is a
 * nonzero (bit set, value 0), a padding zero is not (bit clear, value 0).
 * h*w/64 words per block (4 for 16 x 16, 2 for 16 x 8); bit k = r*w + c of
 * block b is bit (k & 63) of bitmap[b*(h*w/64) + (k >> 6)]: the bits follow
 * the values' row-major order, so row r of a block is the w bits starting
 * at bit r*w of its words, never split across two words (w divides 64).
 * The kernel does not need the bitmap; it is for the exact decode.
 *
 * Caution for kernels: a dense block multiplies B's rows J*w .. J*w+w-1
 * with every entry of the block, padding zeros included, so an Inf or NaN
 * in one of those B rows gives NaN (0 * Inf) in every C row of the block
 * row, even rows with no nonzero in that column. spmm_ref (bcsr.c) sums
 * the bitmap's nonzeros only, like CSR SpMM.
 */
#ifndef TC_BCSR_H
#define TC_BCSR_H

#include "formats.h"

#define TC_BCSR_H_ROWS 16       /* block height, the MMA's m */

typedef struct tc_bcsr {
    tc_fmt base;
    int h, w;                   /* block shape: 16 x 16 or 16 x 8 (params of base) */
    int64_t nblockrows;         /* ceil(rows / h) */
    int64_t nblocks;            /* stored (nonzero) blocks */
    int64_t *rowPtr;            /* nblockrows + 1: block row I holds blocks
                                   rowPtr[I] .. rowPtr[I+1]-1; [0] = 0,
                                   [nblockrows] = nblocks */
    int32_t *colIdx;            /* nblocks: block column J of each block (the
                                   block starts at column J*w), strictly
                                   increasing within a block row */
    double *values;             /* nblocks*h*w, row-major inside each block,
                                   zero padded; NULL for a pattern matrix */
    uint64_t *bitmap;           /* nblocks*h*w/64 words, bit order above */
} tc_bcsr;

/* Entries per block: h * w. */
static inline int64_t tc_bcsr_block_area(const tc_bcsr *b)
{
    return (int64_t)b->h * b->w;
}

/* 64-bit bitmap words per block: h * w / 64. */
static inline int64_t tc_bcsr_block_words(const tc_bcsr *b)
{
    return tc_bcsr_block_area(b) / 64;
}

#endif
